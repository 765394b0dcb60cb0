/*
 * Functions that are too easy to misuse. Including this header last turns
 * every use into a compile error that names the function. Use strbuf,
 * snprintf, strtol/strtoull with end and errno checks instead.
 */
#ifndef HIMORIME_COMMON_BANNED_H
#define HIMORIME_COMMON_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef atof
#define atof(x) BANNED(atof)
#undef gets
#define gets(x) BANNED(gets)
#undef system
#define system(x) BANNED(system)
#undef popen
#define popen(x, y) BANNED(popen)

#endif
