/*
 * A small client for GitHub's REST API, the only user of libcurl. It owns the
 * contract every request must keep: the base URL (GITHUB_API_URL; https, or
 * plain http only to a loopback host), the four headers GitHub asks for
 * (Accept, X-GitHub-Api-Version, Authorization: Bearer, User-Agent), connect
 * and total timeouts, a cap on response bodies, retries of 5xx, 429 and
 * secondary-rate-limit 403 responses honouring retry-after or
 * x-ratelimit-reset with a bounded number of tries and a bounded wait, and
 * pagination through `Link: <...>; rel="next"`.
 *
 * The token travels only in the Authorization header: never in a URL, an
 * error message or a log line. Error messages read
 * `github: PATCH /repos/o/r/issues/comments/5: 422 Unprocessable Entity: Validation Failed`.
 *
 * Nothing here reads the environment: the caller passes GITHUB_API_URL and
 * the token in (github_http_pick_token chooses between GITHUB_TOKEN and
 * INPUT_GITHUB-TOKEN).
 */
#ifndef HIMORIME_GITHUB_HTTP_H
#define HIMORIME_GITHUB_HTTP_H

#include "common/err.h"
#include "common/strbuf.h"

#include <stddef.h>
#include <stdint.h>

#define GITHUB_API_URL_DEFAULT "https://api.github.com"
#define GITHUB_BODY_MAX_BYTES  ((size_t)8 << 20)

struct github_http_options {
	const char *api_url;	    /* GITHUB_API_URL; NULL or "": the default */
	const char *token;	    /* required, non-empty */
	unsigned max_tries;	    /* attempts per request, >= 1 */
	uint64_t max_wait_ns;	    /* cap on any single wait between tries */
	uint64_t max_total_wait_ns; /* cap on all waits of one request */
	uint64_t backoff_ns;	    /* first exponential backoff step */
	uint64_t connect_timeout_ns;
	uint64_t total_timeout_ns; /* per attempt */
	size_t max_body_bytes;	   /* response body cap */
};

#define GITHUB_HTTP_OPTIONS_INIT                                                                   \
	{                                                                                          \
		.api_url = NULL, .token = NULL, .max_tries = 4,                                    \
		.max_wait_ns = UINT64_C(60000000000), .max_total_wait_ns = UINT64_C(120000000000), \
		.backoff_ns = UINT64_C(1000000000), .connect_timeout_ns = UINT64_C(10000000000),   \
		.total_timeout_ns = UINT64_C(60000000000), .max_body_bytes = GITHUB_BODY_MAX_BYTES \
	}

/* One completed exchange. `status` is 0 when no response arrived at all. */
struct github_response {
	long status;
	struct strbuf body;
	char *next_path;  /* the rel="next" link as a path under the base URL, or NULL */
	int rate_limited; /* the last answer was a (primary or secondary) rate limit */
};

/* Loads libcurl now (github/curl_api.h): a command that will publish calls
 * it first, before anything of the suite runs; a client made later uses what
 * this loaded and never loads a library itself. */
void github_http_preload(void);

void github_response_init(struct github_response *resp);
void github_response_release(struct github_response *resp);

struct github_http;

/* Checks the base URL (ERR_USAGE: not https and not loopback, or malformed)
 * and the token (ERR_USAGE when missing). */
int github_http_new(struct github_http **out, const struct github_http_options *opts,
		    struct err *err);
void github_http_free(struct github_http *http);

/* The base URL in use, without a trailing slash. */
const char *github_http_base_url(const struct github_http *http);

/* GITHUB_TOKEN if set and non-empty, else INPUT_GITHUB-TOKEN, else NULL.
 * The caller passes getenv() values; neither is read here. */
const char *github_http_pick_token(const char *github_token, const char *input_token);

/*
 * Sends `method` to `path` (starting with "/", relative to the base URL, may
 * carry a query) with an optional JSON body, retrying as described above.
 * Returns 0 for a 2xx answer. Any other final answer is ERR_EXEC with the
 * message above; resp->status still tells which (0: no answer: connection,
 * timeout or oversized body), so that callers can tell a read-only token
 * (403/404) from other failures. resp is reset first.
 */
int github_http_request(struct github_http *http, const char *method, const char *path,
			const char *json_body, struct github_response *resp, struct err *err);

#endif
