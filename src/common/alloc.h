/*
 * Allocation wrappers. Running out of memory is not an error a caller can do
 * anything useful about, so these abort with a message instead of returning
 * NULL; callers never check their results.
 */
#ifndef HIMORIME_COMMON_ALLOC_H
#define HIMORIME_COMMON_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Grows an array of `count` elements of `size` bytes to hold at least `need`. */
void *xgrow(void *ptr, size_t *alloc, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh heap string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
