/*
 * libcurl, loaded by the commands that publish rather than linked into
 * himorime. Only publishing talks to GitHub, and loading Debian's libcurl with
 * what its build links in (GnuTLS, p11-kit, Kerberos, LDAP, RTMP, ...) cost
 * every himorime process about 3.6 MiB of resident memory at start, whether
 * it published or not (docs/performance.md, "himorime's own memory"). git
 * keeps libcurl out of its main program for the same reason.
 *
 * It is loaded when such a command starts, before any build, hook or
 * command of the suite runs, never later (docs/github-actions.md, "Threat
 * model"): the pull request's code runs as the same user, and the dynamic
 * loader searches LD_LIBRARY_PATH, which it read when himorime started and
 * which may name a directory that code can fill, or (an empty or relative
 * element) the working directory, the checkout. So libcurl is opened by the
 * absolute path the Makefile knows (HIMORIME_CURL_PATH: pkg-config's libdir
 * and the library's SONAME, so the library is the one the headers describe),
 * with / as the working directory while the loader finds its dependencies.
 * Each entry below has the type of the header's own prototype.
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

/* Loads HIMORIME_CURL_PATH and runs curl_global_init, once; a failure is
 * kept for curl_api_load to report (publishing fails then, exit 4, and the
 * measurement stands). Call it when a command that publishes starts. */
void curl_api_preload(void);

/* *out: the functions curl_api_preload loaded; its error (ERR_EXEC,
 * "github: cannot load /usr/lib/x86_64-linux-gnu/libcurl.so.4: <why>") when
 * it could not; ERR_INTERNAL when it was never called: nothing is loaded
 * late. */
int curl_api_load(const struct curl_api **out, struct err *err);

/* The loading itself, for the library at `path` (absolute): ERR_EXEC when it
 * cannot be opened or lacks one of the functions, nothing left open then. */
int curl_api_open(const char *path, struct curl_api *out, struct err *err);

#endif
