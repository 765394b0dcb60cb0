/*
 * GitHub REST client: see http.h. One curl easy handle per client, reused so
 * that a run's few requests share a connection.
 */
#include "github/http.h"

#include "common/alloc.h"
#include "common/rng.h"
#include "common/version.h"
#include "github/curl_api.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/banned.h"

struct github_http {
	const struct curl_api *api;
	CURL *curl;
	struct curl_slist *headers;	 /* the four contract headers */
	struct curl_slist *json_headers; /* the same plus Content-Type */
	char *base_url;
	struct github_http_options opts;
	struct rng rng; /* backoff jitter only */
};

/* What the header callback learns about one attempt. */
struct answer {
	char retry_after[32];
	char remaining[32];
	char reset[32];
	struct strbuf link;
	struct strbuf *body;
	int oversized;
};

void github_response_init(struct github_response *resp)
{
	resp->status = 0;
	strbuf_init(&resp->body, 0);
	resp->next_path = NULL;
	resp->rate_limited = 0;
}

void github_response_release(struct github_response *resp)
{
	if (!resp)
		return;
	strbuf_release(&resp->body);
	free(resp->next_path);
	resp->next_path = NULL;
	resp->status = 0;
	resp->rate_limited = 0;
}

void github_http_preload(void)
{
	curl_api_preload();
}

const char *github_http_pick_token(const char *github_token, const char *input_token)
{
	if (github_token && *github_token)
		return github_token;
	if (input_token && *input_token)
		return input_token;
	return NULL;
}

static int is_loopback_host(const char *host)
{
	struct in_addr v4;
	size_t n = strlen(host);

	if (!strcasecmp(host, "localhost"))
		return 1;
	if (!strcmp(host, "[::1]") || !strcmp(host, "::1"))
		return 1;
	if (n < 16 && inet_pton(AF_INET, host, &v4) == 1)
		return (ntohl(v4.s_addr) >> 24) == 127;
	return 0;
}

/* Parses and checks the base URL; *out is the URL without a trailing slash. */
static int check_base_url(const struct curl_api *api, const char *url, char **out, struct err *err)
{
	CURLU *u = api->url();
	char *scheme = NULL, *host = NULL, *user = NULL, *query = NULL, *frag = NULL;
	int rc = 0;
	size_t n;

	*out = NULL;
	if (api->url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    api->url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    api->url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		rc = err_set(err, ERR_USAGE, "github: GITHUB_API_URL \"%s\" is not a valid URL",
			     url);
		goto done;
	}
	api->url_get(u, CURLUPART_USER, &user, 0);
	api->url_get(u, CURLUPART_QUERY, &query, 0);
	api->url_get(u, CURLUPART_FRAGMENT, &frag, 0);
	if (user || query || frag) {
		rc = err_set(err, ERR_USAGE,
			     "github: GITHUB_API_URL \"%s\" must not carry credentials, a query or "
			     "a fragment",
			     url);
		goto done;
	}
	if (strcasecmp(scheme, "https") &&
	    !(!strcasecmp(scheme, "http") && is_loopback_host(host))) {
		rc = err_set(err, ERR_USAGE,
			     "github: GITHUB_API_URL \"%s\" is refused: it must be https (plain "
			     "http only to a loopback host)",
			     url);
		goto done;
	}
	n = strlen(url);
	while (n && url[n - 1] == '/')
		n--;
	*out = xstrndup(url, n);
done:
	api->free(frag);
	api->free(query);
	api->free(user);
	api->free(host);
	api->free(scheme);
	api->url_cleanup(u);
	return rc;
}

static int token_is_sane(const char *token)
{
	const unsigned char *p;

	for (p = (const unsigned char *)token; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return 0;
	return 1;
}

int github_http_new(struct github_http **out, const struct github_http_options *opts,
		    struct err *err)
{
	struct github_http *http;
	const char *url = opts->api_url && *opts->api_url ? opts->api_url : GITHUB_API_URL_DEFAULT;
	char *base = NULL;
	const struct curl_api *api;
	char *auth;
	int rc;

	*out = NULL;
	if (!opts->token || !*opts->token)
		return err_set(err, ERR_USAGE,
			       "github: no token: set GITHUB_TOKEN (or the action's github-token "
			       "input)");
	if (!token_is_sane(opts->token))
		return err_set(err, ERR_USAGE,
			       "github: the token contains spaces or control "
			       "characters");
	rc = curl_api_load(&api, err);
	if (rc)
		return rc;
	if (api->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return err_set(err, ERR_EXEC, "github: cannot initialise libcurl");
	rc = check_base_url(api, url, &base, err);
	if (rc) {
		api->global_cleanup(); /* balances the global_init above */
		return rc;
	}
	http = xcalloc(1, sizeof(*http));
	http->api = api;
	http->base_url = base;
	http->opts = *opts;
	if (http->opts.max_tries < 1)
		http->opts.max_tries = 1;
	if (!http->opts.max_body_bytes)
		http->opts.max_body_bytes = GITHUB_BODY_MAX_BYTES;
	rng_init(&http->rng, rng_fresh_seed(), "github-backoff");
	http->curl = api->easy_init();
	if (!http->curl) {
		github_http_free(http);
		return err_set(err, ERR_EXEC, "github: cannot initialise libcurl");
	}
	auth = xasprintf("Authorization: Bearer %s", opts->token);
	http->headers = api->slist_append(http->headers, "Accept: application/vnd.github+json");
	http->headers = api->slist_append(http->headers, "X-GitHub-Api-Version: 2022-11-28");
	http->headers = api->slist_append(http->headers, auth);
	http->headers = api->slist_append(http->headers, "User-Agent: himorime/" HIMORIME_VERSION);
	http->headers = api->slist_append(http->headers, "Expect:");
	http->json_headers = api->slist_append(NULL, "Accept: application/vnd.github+json");
	http->json_headers =
		api->slist_append(http->json_headers, "X-GitHub-Api-Version: 2022-11-28");
	http->json_headers = api->slist_append(http->json_headers, auth);
	http->json_headers =
		api->slist_append(http->json_headers, "User-Agent: himorime/" HIMORIME_VERSION);
	http->json_headers = api->slist_append(http->json_headers, "Expect:");
	http->json_headers =
		api->slist_append(http->json_headers, "Content-Type: application/json");
	memset(auth, 0, strlen(auth));
	free(auth);
	if (!http->headers || !http->json_headers) {
		github_http_free(http);
		return err_set(err, ERR_EXEC, "github: cannot initialise libcurl");
	}
	*out = http;
	return 0;
}

void github_http_free(struct github_http *http)
{
	const struct curl_api *api;

	if (!http)
		return;
	api = http->api;
	if (http->curl)
		api->easy_cleanup(http->curl);
	api->slist_free_all(http->json_headers);
	api->slist_free_all(http->headers);
	free(http->base_url);
	free(http);
	api->global_cleanup(); /* balances the curl_global_init of github_http_new */
}

const char *github_http_base_url(const struct github_http *http)
{
	return http->base_url;
}

static size_t on_body(char *data, size_t size, size_t count, void *userdata)
{
	struct answer *a = userdata;
	size_t n = size * count;

	if (strbuf_add(a->body, data, n) < 0) {
		a->oversized = 1;
		return 0;
	}
	return n;
}

/* Copies a header value, trimmed, into a small field (longer ones are ignored). */
static void keep_value(char *field, size_t size, const char *v, size_t n)
{
	while (n && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' '))
		n--;
	if (n >= size)
		return;
	memcpy(field, v, n);
	field[n] = '\0';
}

static size_t on_header(char *data, size_t size, size_t count, void *userdata)
{
	struct answer *a = userdata;
	size_t n = size * count;
	const char *colon = memchr(data, ':', n);
	size_t name_len;
	const char *v;
	size_t vn;

	if (n >= 5 && !memcmp(data, "HTTP/", 5)) {
		/* A new status line: forget headers of an interim response. */
		a->retry_after[0] = a->remaining[0] = a->reset[0] = '\0';
		strbuf_reset(&a->link);
		return n;
	}
	if (!colon)
		return n;
	name_len = (size_t)(colon - data);
	v = colon + 1;
	vn = n - name_len - 1;
	if (name_len == 11 && !strncasecmp(data, "retry-after", 11))
		keep_value(a->retry_after, sizeof(a->retry_after), v, vn);
	else if (name_len == 21 && !strncasecmp(data, "x-ratelimit-remaining", 21))
		keep_value(a->remaining, sizeof(a->remaining), v, vn);
	else if (name_len == 17 && !strncasecmp(data, "x-ratelimit-reset", 17))
		keep_value(a->reset, sizeof(a->reset), v, vn);
	else if (name_len == 4 && !strncasecmp(data, "link", 4))
		strbuf_add(&a->link, v, vn); /* capped: an oversized link is dropped */
	return n;
}

static const char *reason(long status)
{
	static const struct {
		long status;
		const char *text;
	} table[] = {
		{ .status = 400, .text = "Bad Request" },
		{ .status = 401, .text = "Unauthorized" },
		{ .status = 403, .text = "Forbidden" },
		{ .status = 404, .text = "Not Found" },
		{ .status = 405, .text = "Method Not Allowed" },
		{ .status = 409, .text = "Conflict" },
		{ .status = 410, .text = "Gone" },
		{ .status = 413, .text = "Payload Too Large" },
		{ .status = 422, .text = "Unprocessable Entity" },
		{ .status = 429, .text = "Too Many Requests" },
		{ .status = 500, .text = "Internal Server Error" },
		{ .status = 502, .text = "Bad Gateway" },
		{ .status = 503, .text = "Service Unavailable" },
		{ .status = 504, .text = "Gateway Timeout" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (table[i].status == status)
			return table[i].text;
	return "HTTP error";
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* The rel="next" target of a Link header, if any; a heap string. */
static char *link_next(const char *link)
{
	const char *p = link;

	while ((p = strchr(p, '<')) != NULL) {
		const char *end = strchr(p, '>');
		const char *stop;
		const char *rel;

		if (!end)
			return NULL;
		stop = strchr(end, ',');
		if (!stop)
			stop = end + strlen(end);
		rel = strstr(end, "rel=\"next\"");
		if (rel && rel < stop)
			return xstrndup(p + 1, (size_t)(end - p - 1));
		p = stop;
	}
	return NULL;
}

/* The next page as a path under our base URL. A link to anywhere else is
 * ignored: following it would send the token to another origin. */
static char *next_path(const struct github_http *http, const char *link)
{
	char *url = link_next(link);
	size_t n = strlen(http->base_url);
	char *path = NULL;

	if (url && !strncmp(url, http->base_url, n) && url[n] == '/')
		path = xstrdup(url + n);
	free(url);
	return path;
}

/* The "message" of a JSON error body, printable ASCII, at most 200 bytes. */
static void body_message(const struct strbuf *body, char *out, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength(body->buf, body->len);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(doc, "message");
	size_t i = 0;
	const char *p;

	out[0] = '\0';
	if (cJSON_IsString(msg) && msg->valuestring) {
		for (p = msg->valuestring; *p && i + 1 < size && i < 200; p++)
			out[i++] = (*p >= ' ' && *p < 0x7f) ? *p : '?';
		out[i] = '\0';
	}
	cJSON_Delete(doc);
}

static int contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int is_retryable(long status, const struct answer *a, const struct strbuf *body,
			int *rate_limited)
{
	*rate_limited = 0;
	if (status == 429) {
		*rate_limited = 1;
		return 1;
	}
	if (status >= 500)
		return 1;
	if (status == 403 && (a->retry_after[0] || !strcmp(a->remaining, "0") ||
			      contains_nocase(body->buf, "secondary rate limit"))) {
		*rate_limited = 1;
		return 1;
	}
	return 0;
}

/* How long to wait before try number `tries + 1`. */
static uint64_t wait_ns(struct github_http *http, const struct answer *a, unsigned tries)
{
	uint64_t v;
	uint64_t ns;

	if (parse_u64(a->retry_after, &v) == 0) {
		ns = v > UINT64_MAX / 1000000000u ? UINT64_MAX : v * 1000000000u;
	} else if (!strcmp(a->remaining, "0") && parse_u64(a->reset, &v) == 0) {
		time_t now = time(NULL);
		uint64_t secs = v > (uint64_t)now ? v - (uint64_t)now + 1 : 1;
		ns = secs > UINT64_MAX / 1000000000u ? UINT64_MAX : secs * 1000000000u;
	} else {
		double step = (double)http->opts.backoff_ns;
		unsigned i;

		for (i = 1; i < tries && step < 1e12; i++)
			step *= 2;
		ns = (uint64_t)(step * (0.5 + rng_uniform(&http->rng)));
	}
	return ns < http->opts.max_wait_ns ? ns : http->opts.max_wait_ns;
}

static int valid_path(const char *path)
{
	const unsigned char *p;

	if (path[0] != '/')
		return 0;
	for (p = (const unsigned char *)path; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return 0;
	return 1;
}

static void set_method(struct github_http *http, const char *method, const char *json_body)
{
	const struct curl_api *api = http->api;
	CURL *c = http->curl;

	api->easy_setopt(c, CURLOPT_HTTPGET, 1L);
	api->easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
	api->easy_setopt(c, CURLOPT_HTTPHEADER, json_body ? http->json_headers : http->headers);
	if (json_body) {
		api->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(json_body));
		api->easy_setopt(c, CURLOPT_POSTFIELDS, json_body);
	}
	if (strcmp(method, "GET") && strcmp(method, "POST"))
		api->easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	else if (!strcmp(method, "POST") && !json_body) {
		api->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
		api->easy_setopt(c, CURLOPT_POSTFIELDS, "");
	}
}

static CURLcode attempt(struct github_http *http, const char *method, const char *url,
			const char *json_body, struct answer *a, long *status)
{
	const struct curl_api *api = http->api;
	CURL *c = http->curl;
	CURLcode cc;

	a->retry_after[0] = a->remaining[0] = a->reset[0] = '\0';
	a->oversized = 0;
	strbuf_reset(&a->link);
	strbuf_reset(a->body);
	*status = 0;
	set_method(http, method, json_body);
	api->easy_setopt(c, CURLOPT_URL, url);
	api->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	api->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	api->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	api->easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	api->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(http->opts.connect_timeout_ns / 1000000u));
	api->easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(http->opts.total_timeout_ns / 1000000u));
	api->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	api->easy_setopt(c, CURLOPT_WRITEDATA, a);
	api->easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	api->easy_setopt(c, CURLOPT_HEADERDATA, a);
	cc = api->easy_perform(c);
	if (cc == CURLE_OK)
		api->easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return cc;
}

int github_http_request(struct github_http *http, const char *method, const char *path,
			const char *json_body, struct github_response *resp, struct err *err)
{
	struct answer a;
	char *url = NULL;
	uint64_t waited_ns = 0;
	unsigned tries = 0;
	CURLcode cc = CURLE_OK;
	int rc = 0;

	github_response_release(resp);
	strbuf_init(&resp->body, http->opts.max_body_bytes);
	memset(&a, 0, sizeof(a));
	strbuf_init(&a.link, 8192);
	a.body = &resp->body;
	if (!valid_path(path)) {
		rc = err_set(err, ERR_INTERNAL, "github: %s: invalid request path", method);
		goto done;
	}
	url = xasprintf("%s%s", http->base_url, path);
	for (;;) {
		int limited = 0;
		uint64_t ns;

		tries++;
		cc = attempt(http, method, url, json_body, &a, &resp->status);
		/* Whether the last answer is a rate limit, answer by answer: a 429
		 * before a plain 403 must not make that 403 look like one. */
		resp->rate_limited = 0;
		if (cc == CURLE_OK && resp->status >= 200 && resp->status < 300)
			break;
		if (a.oversized)
			break;
		if (cc == CURLE_OK && !is_retryable(resp->status, &a, &resp->body, &limited))
			break;
		resp->rate_limited = limited;
		if (tries >= http->opts.max_tries)
			break;
		ns = wait_ns(http, &a, tries);
		if (waited_ns + ns > http->opts.max_total_wait_ns)
			break;
		waited_ns += ns;
		sleep_ns(ns);
	}
	if (a.oversized) {
		resp->status = 0;
		rc = err_set(err, ERR_EXEC, "github: %s %s: response larger than %zu bytes", method,
			     path, http->opts.max_body_bytes);
	} else if (cc != CURLE_OK) {
		resp->status = 0;
		rc = err_set(err, ERR_EXEC, "github: %s %s: %s (after %u tries)", method, path,
			     http->api->easy_strerror(cc), tries);
	} else if (resp->status < 200 || resp->status >= 300) {
		char msg[256];

		body_message(&resp->body, msg, sizeof(msg));
		rc = err_set(err, ERR_EXEC, "github: %s %s: %ld %s%s%s", method, path, resp->status,
			     reason(resp->status), msg[0] ? ": " : "", msg);
	} else if (a.link.len) {
		resp->next_path = next_path(http, a.link.buf);
	}
done:
	free(url);
	strbuf_release(&a.link);
	return rc;
}
