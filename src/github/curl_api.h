/*
 * libcurl, opened the first time a GitHub client is made rather than linked
 * into himorime. Only publishing talks to GitHub, and loading Debian's
 * libcurl with what its build links in (GnuTLS, p11-kit, Kerberos, LDAP,
 * RTMP, ...) cost every himorime process about 3.6 MiB of resident memory at
 * start, whether it published or not (docs/performance.md, "himorime's own
 * memory"). git keeps libcurl out of its main program for the same reason.
 *
 * The headers are pkg-config's libcurl as before, and the Makefile passes the
 * SONAME of the library pkg-config names (HIMORIME_CURL_SONAME), so the
 * library opened is the one the headers describe. Each entry below has the
 * type of the header's own prototype.
 */
#ifndef HIMORIME_GITHUB_CURL_API_H
#define HIMORIME_GITHUB_CURL_API_H

#include "common/err.h"

#include <curl/curl.h>

#define CURL_API_FUNCTIONS(X)                                                                      \
	X(global_init, curl_global_init)                                                           \
	X(global_cleanup, curl_global_cleanup)                                                     \
	X(easy_init, curl_easy_init)                                                               \
	X(easy_cleanup, curl_easy_cleanup)                                                         \
	X(easy_setopt, curl_easy_setopt)                                                           \
	X(easy_perform, curl_easy_perform)                                                         \
	X(easy_getinfo, curl_easy_getinfo)                                                         \
	X(easy_strerror, curl_easy_strerror)                                                       \
	X(slist_append, curl_slist_append)                                                         \
	X(slist_free_all, curl_slist_free_all)                                                     \
	X(url, curl_url)                                                                           \
	X(url_cleanup, curl_url_cleanup)                                                           \
	X(url_get, curl_url_get)                                                                   \
	X(url_set, curl_url_set)                                                                   \
	X(free, curl_free)

struct curl_api {
#define CURL_API_MEMBER(member, function) __typeof__(function) *member;
	CURL_API_FUNCTIONS(CURL_API_MEMBER)
#undef CURL_API_MEMBER
};

/* *out: the functions above, from the library opened on the first call;
 * later calls give the same table. ERR_EXEC ("github: cannot load
 * libcurl.so.4: <why>") when the library cannot be opened or lacks one of
 * them; nothing is left open then. */
int curl_api_load(const struct curl_api **out, struct err *err);

#endif
