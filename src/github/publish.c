/*
 * The sticky comment and the commit status: see publish.h.
 */
#include "github/publish.h"

#include "common/alloc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define MAX_PAGES 200 /* 20,000 comments: beyond that the issue is not a pull request we know */

struct identity {
	char login[128];
	int bot; /* also require user.type "Bot": a user cannot own a "[bot]" login */
};

/* The ids of our comments carrying the marker, in listing order. */
struct id_list {
	uint64_t *ids;
	size_t nr, alloc;
};

const char *github_state_name(enum github_state state)
{
	switch (state) {
	case GITHUB_STATE_SUCCESS:
		return "success";
	case GITHUB_STATE_FAILURE:
		return "failure";
	case GITHUB_STATE_ERROR:
		return "error";
	}
	return "error";
}

int github_check_repository(const char *repository, struct err *err)
{
	const char *p;
	int slashes = 0;
	size_t part = 0;

	if (!repository || !*repository || strlen(repository) > 200)
		goto bad;
	for (p = repository; *p; p++) {
		if (*p == '/') {
			if (!part)
				goto bad;
			slashes++;
			part = 0;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			goto bad;
		part++;
	}
	if (slashes == 1 && part && strcmp(repository, "..") != 0 && !strstr(repository, "/..") &&
	    strncmp(repository, "../", 3) != 0 && strncmp(repository, "./", 2) != 0 &&
	    !strstr(repository, "/./") && strcmp(p - 2, "/.") != 0)
		return 0;
bad:
	return err_set(err, ERR_USAGE, "github: repository \"%s\" is not \"owner/name\"",
		       repository ? repository : "");
}

/* Kept as is in a marker; every other byte is %XX. A '-' after a '-' is
 * encoded too: "--" may not occur in an HTML comment. */
static bool is_selection_char(int c, int prev)
{
	if (c == '-')
		return prev != '-';
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("._,:/+=@", c) != NULL);
}

int github_comment_marker(const char *selection, struct strbuf *out, struct err *err)
{
	const unsigned char *p;
	int prev = 0;

	if (!selection || !*selection || strlen(selection) > GITHUB_MARKER_MAX_BYTES)
		return err_set(err, ERR_USAGE,
			       "github: a suite selection of 1 to %d bytes goes in a comment "
			       "marker, got %zu",
			       GITHUB_MARKER_MAX_BYTES, selection ? strlen(selection) : 0);
	strbuf_adds(out, "<!-- himorime:comment v1 suite=");
	for (p = (const unsigned char *)selection; *p; prev = *p++) {
		if (is_selection_char(*p, prev))
			strbuf_addch(out, (char)*p);
		else
			strbuf_addf(out, "%%%02X", *p);
	}
	strbuf_adds(out, " -->");
	return 0;
}

size_t github_utf8_len(const unsigned char *p)
{
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0 && p[0] >= 0xc2)
		n = 2;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((p[0] & 0xf8) == 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

size_t github_utf8_floor(const char *s, size_t limit)
{
	while (limit && ((unsigned char)s[limit] & 0xc0) == 0x80)
		limit--;
	return limit;
}

static int is_fence(const char *line, size_t n)
{
	while (n && (*line == ' ')) {
		line++;
		n--;
	}
	return n >= 3 && !memcmp(line, "```", 3);
}

int github_comment_body(const char *selection, const char *body, struct strbuf *out,
			struct err *err)
{
	struct strbuf full;
	const size_t limit = GITHUB_COMMENT_MAX_BYTES - 128; /* room for the fence and note */
	size_t cut, start, fences = 0;
	int rc;

	strbuf_init(&full, 0);
	rc = github_comment_marker(selection, &full, err);
	if (rc)
		goto done;
	if (!strncmp(body, full.buf, full.len) &&
	    (body[full.len] == '\n' || !body[full.len] || !strncmp(body + full.len, "\r\n", 2)))
		strbuf_reset(&full);
	else
		strbuf_addch(&full, '\n');
	strbuf_adds(&full, body);
	if (full.len <= GITHUB_COMMENT_MAX_BYTES) {
		strbuf_add(out, full.buf, full.len);
		goto done;
	}
	cut = limit;
	while (cut && full.buf[cut - 1] != '\n')
		cut--;
	if (!cut)
		cut = github_utf8_floor(full.buf, limit);
	for (start = 0; start < cut;) {
		const char *nl = memchr(full.buf + start, '\n', cut - start);
		size_t end = nl ? (size_t)(nl - full.buf) : cut;

		fences += is_fence(full.buf + start, end - start);
		start = end + 1;
	}
	strbuf_add(out, full.buf, cut);
	if (full.buf[cut - 1] != '\n')
		strbuf_addch(out, '\n');
	if (fences % 2)
		strbuf_adds(out, "```\n");
	strbuf_adds(out, "\n" GITHUB_CUT_NOTE "\n");
done:
	strbuf_release(&full);
	return rc;
}

void github_status_description(const char *text, struct strbuf *out)
{
	const unsigned char *p = (const unsigned char *)(text ? text : "");
	size_t count = 0, total = 0;
	const unsigned char *q;

	for (q = p; *q; total++) {
		size_t n = github_utf8_len(q);
		q += n ? n : 1;
	}
	while (*p) {
		size_t n = github_utf8_len(p);

		if (total > GITHUB_STATUS_DESCRIPTION_MAX &&
		    count == GITHUB_STATUS_DESCRIPTION_MAX - 1) {
			strbuf_adds(out, "…");
			return;
		}
		if (!n) {
			strbuf_addch(out, '?');
			p++;
		} else if (n == 1 && (*p < ' ' || *p == 0x7f)) {
			strbuf_addch(out, ' ');
			p++;
		} else {
			strbuf_add(out, p, n);
			p += n;
		}
		count++;
	}
}

char *github_run_url(const char *server_url, const char *repository, const char *run_id)
{
	size_t n;
	const char *p;

	if (!server_url || !run_id || !*run_id || github_check_repository(repository, NULL))
		return NULL;
	if (strncmp(server_url, "https://", 8) && strncmp(server_url, "http://", 7))
		return NULL;
	for (p = server_url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '"' || *p == '<' || *p == '>')
			return NULL;
	for (p = run_id; *p; p++)
		if (!isdigit((unsigned char)*p))
			return NULL;
	n = strlen(server_url);
	while (n && server_url[n - 1] == '/')
		n--;
	return xasprintf("%.*s/%s/actions/runs/%s", (int)n, server_url, repository, run_id);
}

static int check_sha(const char *sha, struct err *err)
{
	size_t n = strlen(sha), i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)sha[i]))
			break;
	if (i == n && (n == 40 || n == 64))
		return 0;
	return err_set(err, ERR_USAGE, "github: \"%s\" is not a commit sha", sha);
}

/* A failed write: read-only token (403 that is not a rate limit, or 404) or not. */
static int classify(const struct github_response *resp, struct github_publish_result *result,
		    int rc)
{
	if ((resp->status == 403 && !resp->rate_limited) || resp->status == 404)
		result->read_only = 1;
	return rc;
}

static int learn_identity(struct github_http *http, const char *login, struct identity *id,
			  struct err *err)
{
	struct github_response resp;
	cJSON *doc = NULL;
	const cJSON *l, *t;
	int rc = 0;
	size_t n;

	memset(id, 0, sizeof(*id));
	if (login && *login) {
		n = strlen(login);
		if (n >= sizeof(id->login))
			return err_set(err, ERR_USAGE, "github: login \"%s\" is too long", login);
		memcpy(id->login, login, n + 1);
		id->bot = n > 5 && !strcmp(login + n - 5, "[bot]");
		return 0;
	}
	github_response_init(&resp);
	rc = github_http_request(http, "GET", "/user", NULL, &resp, err);
	if (rc && resp.status == 403 && !resp.rate_limited) {
		/* An installation token (the Actions GITHUB_TOKEN) cannot read /user. */
		err_clear(err);
		memcpy(id->login, GITHUB_ACTIONS_BOT_LOGIN, sizeof(GITHUB_ACTIONS_BOT_LOGIN));
		id->bot = 1;
		rc = 0;
		goto done;
	}
	if (rc)
		goto done;
	doc = cJSON_ParseWithLength(resp.body.buf, resp.body.len);
	l = cJSON_GetObjectItemCaseSensitive(doc, "login");
	t = cJSON_GetObjectItemCaseSensitive(doc, "type");
	if (!cJSON_IsString(l) || !*l->valuestring || strlen(l->valuestring) >= sizeof(id->login)) {
		rc = err_set(err, ERR_EXEC, "github: GET /user: the answer has no login");
		goto done;
	}
	memcpy(id->login, l->valuestring, strlen(l->valuestring) + 1);
	id->bot = cJSON_IsString(t) && !strcmp(t->valuestring, "Bot");
done:
	cJSON_Delete(doc);
	github_response_release(&resp);
	return rc;
}

static int first_line_is(const char *body, const char *marker)
{
	size_t n = strlen(marker);

	if (strncmp(body, marker, n))
		return 0;
	return body[n] == '\0' || body[n] == '\n' || !strncmp(body + n, "\r\n", 2);
}

static int is_ours(const cJSON *comment, const struct identity *id, const char *marker)
{
	const cJSON *body = cJSON_GetObjectItemCaseSensitive(comment, "body");
	const cJSON *user = cJSON_GetObjectItemCaseSensitive(comment, "user");
	const cJSON *login = cJSON_GetObjectItemCaseSensitive(user, "login");
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(user, "type");

	if (!cJSON_IsString(body) || !cJSON_IsString(login))
		return 0;
	if (strcmp(login->valuestring, id->login))
		return 0;
	if (id->bot && !(cJSON_IsString(type) && !strcmp(type->valuestring, "Bot")))
		return 0;
	return first_line_is(body->valuestring, marker);
}

static int json_id(const cJSON *obj, uint64_t *out)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, "id");

	if (!cJSON_IsNumber(id) || id->valuedouble < 1 || id->valuedouble > 9007199254740991.0)
		return -1;
	*out = (uint64_t)id->valuedouble;
	return 0;
}

static int list_ours(struct github_http *http, const struct github_publish_options *opts,
		     const struct identity *id, const char *marker, struct id_list *out,
		     struct github_publish_result *result, struct err *err)
{
	struct github_response resp;
	char *path = xasprintf("/repos/%s/issues/%" PRIu64 "/comments?per_page=100",
			       opts->repository, opts->pr_number);
	int pages = 0;
	int rc = 0;

	out->nr = 0;
	github_response_init(&resp);
	while (path) {
		cJSON *doc;
		const cJSON *c;

		if (++pages > MAX_PAGES) {
			rc = err_set(err, ERR_EXEC,
				     "github: GET /repos/%s/issues/%" PRIu64
				     "/comments: more than %d pages",
				     opts->repository, opts->pr_number, MAX_PAGES);
			goto done;
		}
		rc = github_http_request(http, "GET", path, NULL, &resp, err);
		if (rc) {
			classify(&resp, result, rc);
			goto done;
		}
		doc = cJSON_ParseWithLength(resp.body.buf, resp.body.len);
		if (!cJSON_IsArray(doc)) {
			cJSON_Delete(doc);
			rc = err_set(err, ERR_EXEC, "github: GET %s: the answer is not a list",
				     path);
			goto done;
		}
		cJSON_ArrayForEach(c, doc)
		{
			uint64_t cid;

			if (is_ours(c, id, marker) && json_id(c, &cid) == 0) {
				out->ids = xgrow(out->ids, &out->alloc, out->nr + 1,
						 sizeof(*out->ids));
				out->ids[out->nr++] = cid;
			}
		}
		cJSON_Delete(doc);
		free(path);
		path = resp.next_path;
		resp.next_path = NULL;
	}
done:
	free(path);
	github_response_release(&resp);
	return rc;
}

static char *comment_json(const char *body)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(o, "body", body);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		abort(); /* cJSON fails only when out of memory */
	return s;
}

/* POST a new comment or PATCH comment `id`; *written is the comment's id. */
static int write_comment(struct github_http *http, const struct github_publish_options *opts,
			 const char *body, uint64_t id, uint64_t *written, long *status,
			 struct github_publish_result *result, struct err *err)
{
	struct github_response resp;
	char *json = comment_json(body);
	char *path;
	cJSON *doc = NULL;
	int rc;

	github_response_init(&resp);
	if (id)
		path = xasprintf("/repos/%s/issues/comments/%" PRIu64, opts->repository, id);
	else
		path = xasprintf("/repos/%s/issues/%" PRIu64 "/comments", opts->repository,
				 opts->pr_number);
	rc = github_http_request(http, id ? "PATCH" : "POST", path, json, &resp, err);
	*status = resp.status;
	if (rc) {
		classify(&resp, result, rc);
		goto done;
	}
	doc = cJSON_ParseWithLength(resp.body.buf, resp.body.len);
	if (json_id(doc, written)) {
		rc = err_set(err, ERR_EXEC, "github: %s %s: the answer has no comment id",
			     id ? "PATCH" : "POST", path);
		goto done;
	}
	result->action = id ? GITHUB_COMMENT_UPDATED : GITHUB_COMMENT_CREATED;
done:
	cJSON_Delete(doc);
	github_response_release(&resp);
	free(path);
	free(json);
	return rc;
}

static uint64_t newest(const struct id_list *l)
{
	uint64_t max = 0;
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (l->ids[i] > max)
			max = l->ids[i];
	return max;
}

/* After writing: every run keeps the newest of ours and deletes the rest, so
 * racing runs agree on which one survives. A 404 means another run was first. */
static int converge(struct github_http *http, const struct github_publish_options *opts,
		    const struct identity *id, const char *marker,
		    struct github_publish_result *result, struct err *err)
{
	struct id_list ours = { .ids = NULL, .nr = 0, .alloc = 0 };
	struct github_response resp;
	uint64_t keep;
	size_t i;
	int rc;

	github_response_init(&resp);
	rc = list_ours(http, opts, id, marker, &ours, result, err);
	if (rc)
		goto done;
	keep = newest(&ours);
	if (keep < result->comment_id)
		keep = result->comment_id;
	for (i = 0; i < ours.nr; i++) {
		char *path;

		if (ours.ids[i] == keep)
			continue;
		path = xasprintf("/repos/%s/issues/comments/%" PRIu64, opts->repository,
				 ours.ids[i]);
		rc = github_http_request(http, "DELETE", path, NULL, &resp, err);
		free(path);
		if (rc && resp.status == 404) {
			err_clear(err);
			rc = 0;
			continue;
		}
		if (rc) {
			classify(&resp, result, rc);
			goto done;
		}
		result->deleted++;
	}
	result->comment_id = keep;
done:
	github_response_release(&resp);
	free(ours.ids);
	return rc;
}

static int publish_comment(struct github_http *http, const struct github_publish_options *opts,
			   const char *body, struct github_publish_result *result, struct err *err)
{
	struct identity id;
	struct id_list ours = { .ids = NULL, .nr = 0, .alloc = 0 };
	struct strbuf marker;
	uint64_t target;
	long status = 0;
	int rc;

	strbuf_init(&marker, 0);
	github_comment_marker(opts->selection, &marker, NULL);
	rc = learn_identity(http, opts->login, &id, err);
	if (rc)
		goto done;
	rc = list_ours(http, opts, &id, marker.buf, &ours, result, err);
	if (rc)
		goto done;
	target = newest(&ours);
	rc = write_comment(http, opts, body, target, &result->comment_id, &status, result, err);
	if (rc && target && status == 404) {
		/* Our comment vanished between listing and patching (another run
		 * converged): create it anew. */
		result->read_only = 0;
		err_clear(err);
		rc = write_comment(http, opts, body, 0, &result->comment_id, &status, result, err);
	}
	if (rc)
		goto done;
	rc = converge(http, opts, &id, marker.buf, result, err);
done:
	free(ours.ids);
	strbuf_release(&marker);
	return rc;
}

static char *status_json(const struct github_publish_options *opts)
{
	cJSON *o = cJSON_CreateObject();
	struct strbuf desc;
	char *s;

	strbuf_init(&desc, 0);
	github_status_description(opts->description, &desc);
	cJSON_AddStringToObject(o, "state", github_state_name(opts->state));
	if (opts->target_url)
		cJSON_AddStringToObject(o, "target_url", opts->target_url);
	cJSON_AddStringToObject(o, "description", desc.buf);
	cJSON_AddStringToObject(o, "context", GITHUB_STATUS_CONTEXT);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	strbuf_release(&desc);
	if (!s)
		abort(); /* cJSON fails only when out of memory */
	return s;
}

static int publish_status(struct github_http *http, const struct github_publish_options *opts,
			  struct github_publish_result *result, struct err *err)
{
	struct github_response resp;
	char *json = status_json(opts);
	char *path = xasprintf("/repos/%s/statuses/%s", opts->repository, opts->sha);
	int rc;

	github_response_init(&resp);
	rc = github_http_request(http, "POST", path, json, &resp, err);
	if (rc)
		classify(&resp, result, rc);
	else
		result->status_posted = 1;
	github_response_release(&resp);
	free(path);
	free(json);
	return rc;
}

static void describe(const struct github_publish_options *opts, const char *body,
		     struct strbuf *out)
{
	if (opts->pr_number) {
		if (!opts->login)
			strbuf_adds(out, "GET /user\n");
		strbuf_addf(out,
			    "GET /repos/%s/issues/%" PRIu64 "/comments?per_page=100 (every page)\n",
			    opts->repository, opts->pr_number);
		strbuf_addf(out,
			    "PATCH /repos/%s/issues/comments/{id} of our comment, or POST "
			    "/repos/%s/issues/%" PRIu64 "/comments if there is none: body of %zu "
			    "bytes\n",
			    opts->repository, opts->repository, opts->pr_number, strlen(body));
		strbuf_addf(out,
			    "GET /repos/%s/issues/%" PRIu64 "/comments?per_page=100 (every page), "
			    "then DELETE older duplicates of ours\n",
			    opts->repository, opts->pr_number);
	}
	if (opts->sha) {
		char *json = status_json(opts);

		strbuf_addf(out, "POST /repos/%s/statuses/%s %s\n", opts->repository, opts->sha,
			    json);
		free(json);
	}
}

int github_publish(struct github_http *http, const struct github_publish_options *opts,
		   struct github_publish_result *result, struct err *err)
{
	struct strbuf body;
	int rc = 0;

	memset(result, 0, sizeof(*result));
	strbuf_init(&body, 0);
	rc = github_check_repository(opts->repository, err);
	if (rc)
		goto done;
	if (opts->sha) {
		rc = check_sha(opts->sha, err);
		if (rc)
			goto done;
	}
	if (opts->pr_number) {
		rc = github_comment_body(opts->selection, opts->body ? opts->body : "", &body, err);
		if (rc)
			goto done;
	}
	if (opts->dry_run) {
		describe(opts, body.buf, opts->dry_run);
		goto done;
	}
	if (opts->pr_number) {
		rc = publish_comment(http, opts, body.buf, result, err);
		if (rc)
			goto done;
	}
	if (opts->sha)
		rc = publish_status(http, opts, result, err);
done:
	strbuf_release(&body);
	return rc;
}
