/*
 * The check run `himorime`: see checks.h. Requests, in order, for a run
 * that starts and finishes (docs/github-actions.md, "The check run"):
 *
 *   GET   /repos/{o}/{r}/commits/{sha}/check-runs?check_name=...&filter=all&per_page=100
 *   POST  /repos/{o}/{r}/check-runs        in_progress (or PATCH ours still in_progress)
 *   ... the comparison ...
 *   GET   /repos/{o}/{r}/check-runs/{id}/annotations?per_page=100   (only when it has some)
 *   PATCH /repos/{o}/{r}/check-runs/{id}   completed, conclusion, output, annotations 1-50
 *   PATCH /repos/{o}/{r}/check-runs/{id}   output, annotations 51-100, and so on
 */
#include "github/checks.h"

#include "common/alloc.h"
#include "github/publish.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define MAX_RUN_PAGES	     20 /* 2,000 check runs of one name on a commit: a loop */
#define MAX_ANNOTATION_PAGES 50 /* 5,000 annotations read back; later ones may be sent again */
#define PATH_MAX_BYTES	     1024
#define NAME_MAX_CHARS	     100

/* The annotations already on a check run, as "path\nline\nlevel\ntitle\nmessage". */
struct seen {
	char **keys;
	size_t nr, alloc;
};

const char *github_conclusion_name(enum github_conclusion c)
{
	switch (c) {
	case GITHUB_CONCLUSION_SUCCESS:
		return "success";
	case GITHUB_CONCLUSION_NEUTRAL:
		return "neutral";
	case GITHUB_CONCLUSION_FAILURE:
		return "failure";
	}
	return "failure";
}

static const char *level_name(enum github_check_level level)
{
	switch (level) {
	case GITHUB_CHECK_NOTICE:
		return "notice";
	case GITHUB_CHECK_WARNING:
		return "warning";
	case GITHUB_CHECK_FAILURE:
		return "failure";
	}
	return "failure";
}

/* Appends `s` as valid UTF-8 of at most `cap` bytes (a malformed byte as
 * '?', control characters as spaces unless `keep_lines`), "…" when cut. */
static void add_clean(struct strbuf *out, const char *s, size_t cap, bool keep_lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, total = strlen(s);

	while (*p) {
		size_t n = github_utf8_len(p);

		if (total > cap && used + (n ? n : 1) > cap - 3) {
			strbuf_adds(out, "…");
			return;
		}
		if (!n) {
			strbuf_addch(out, '?');
			n = 1;
		} else if (n == 1 && (*p < ' ' || *p == 0x7f)) {
			strbuf_addch(out, keep_lines && *p == '\n' ? '\n' : ' ');
		} else {
			strbuf_add(out, p, n);
		}
		used += n;
		p += n;
	}
}

void github_check_name(const char *const *suites, size_t n, struct strbuf *out)
{
	struct strbuf names;
	const unsigned char *p;
	size_t i, chars = 0;

	strbuf_adds(out, GITHUB_CHECK_NAME);
	if (n < 2)
		return;
	strbuf_init(&names, 0);
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_adds(&names, ", ");
		add_clean(&names, suites[i] ? suites[i] : "", 4096, false);
	}
	strbuf_adds(out, " (");
	for (p = (const unsigned char *)names.buf; *p; chars++) {
		size_t k = github_utf8_len(p);
		if (chars == NAME_MAX_CHARS - 1 && strlen((const char *)p) > k) {
			strbuf_adds(out, "…");
			break;
		}
		strbuf_add(out, p, k);
		p += k;
	}
	strbuf_adds(out, ")");
	strbuf_release(&names);
}

void github_check_cut(const char *text, size_t cap, struct strbuf *out)
{
	size_t len = strlen(text), limit, start;
	unsigned fence = 0, open = 0;

	if (len <= cap) {
		strbuf_add(out, text, len);
		return;
	}
	limit = cap > 512 ? cap - 512 : 0; /* room for the closings and the note */
	while (limit && text[limit - 1] != '\n')
		limit--;
	if (!limit) { /* one long line: cut it on a character */
		limit = github_utf8_floor(text, cap > 512 ? cap - 512 : 0);
	}
	for (start = 0; start < limit;) {
		const char *nl = memchr(text + start, '\n', limit - start);
		size_t end = nl ? (size_t)(nl - text) : limit;
		const char *line = text + start;
		size_t n = end - start;

		if (n >= 3 && !memcmp(line, "```", 3))
			fence = !fence;
		else if (!fence && n >= 9 && !memcmp(line, "<details>", 9))
			open++;
		else if (!fence && n >= 10 && !memcmp(line, "</details>", 10) && open)
			open--;
		start = end + 1;
	}
	strbuf_add(out, text, limit);
	if (fence)
		strbuf_adds(out, "```\n");
	for (; open && open <= 64; open--)
		strbuf_adds(out, "\n</details>\n");
	strbuf_adds(out, "\n" GITHUB_CUT_NOTE "\n");
}

/* Query values: every byte outside the unreserved set as %XX. */
static void add_query_value(struct strbuf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
			strbuf_addch(out, (char)*p);
		} else {
			strbuf_addch(out, '%');
			strbuf_addch(out, hex[*p >> 4]);
			strbuf_addch(out, hex[*p & 15]);
		}
	}
}

static char *print_json(cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);

	cJSON_Delete(o);
	if (!s)
		abort(); /* cJSON fails only when out of memory */
	return s;
}

static int json_u64(const cJSON *v, uint64_t *out)
{
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9007199254740991.0)
		return -1;
	*out = (uint64_t)v->valuedouble;
	return 0;
}

static const char *json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A failed request: refused (no checks: write) or not. */
static int classify(const struct github_response *resp, struct github_check_result *result, int rc)
{
	if ((resp->status == 403 && !resp->rate_limited) || resp->status == 404)
		result->refused = 1;
	return rc;
}

static bool is_ours(const cJSON *run, const struct github_check_options *opts)
{
	const char *slug = opts->app_slug ? opts->app_slug : GITHUB_ACTIONS_APP_SLUG;
	const char *app = json_str(cJSON_GetObjectItemCaseSensitive(run, "app"), "slug");
	const char *ext = json_str(run, "external_id");
	const char *name = json_str(run, "name");

	return app && ext && name && !strcmp(app, slug) && !strcmp(ext, opts->selection) &&
	       !strcmp(name, opts->name);
}

/* Keeps the newest (highest id) of ours among one page of check runs. */
static void take_ours(const cJSON *page, const struct github_check_options *opts,
		      struct github_check_run *run)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(page, "check_runs"))
	{
		uint64_t id, count = 0;
		const char *status = json_str(c, "status");
		const cJSON *out = cJSON_GetObjectItemCaseSensitive(c, "output");

		if (!is_ours(c, opts) || json_u64(cJSON_GetObjectItemCaseSensitive(c, "id"), &id) ||
		    !id || id <= run->id)
			continue;
		json_u64(cJSON_GetObjectItemCaseSensitive(out, "annotations_count"), &count);
		run->id = id;
		run->completed = status && !strcmp(status, "completed");
		run->annotation_count = count;
	}
}

static char *list_path(const struct github_check_options *opts)
{
	struct strbuf sb;

	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "/repos/%s/commits/%s/check-runs?check_name=", opts->repository,
		    opts->sha);
	add_query_value(&sb, opts->name);
	strbuf_adds(&sb, "&filter=all&per_page=100");
	return strbuf_detach(&sb, NULL);
}

/* Reads the pages of `path` (a path under the base URL); `page` is called
 * with each parsed answer, which must be an array (annotations) or an object
 * (check runs). Annotations stop quietly after their cap; check runs beyond
 * theirs are an error. */
static int read_pages(struct github_http *http, char *path, bool annotations,
		      void (*page)(const cJSON *doc, void *ctx), void *ctx,
		      struct github_check_result *result, struct err *err)
{
	struct github_response resp;
	int pages = 0, rc = 0;
	const int max = annotations ? MAX_ANNOTATION_PAGES : MAX_RUN_PAGES;

	github_response_init(&resp);
	while (path) {
		cJSON *doc;

		if (++pages > max) {
			if (!annotations)
				rc = err_set(err, ERR_EXEC, "github: GET %s: more than %d pages",
					     path, max);
			break;
		}
		rc = github_http_request(http, "GET", path, NULL, &resp, err);
		if (rc) {
			classify(&resp, result, rc);
			break;
		}
		doc = cJSON_ParseWithLength(resp.body.buf, resp.body.len);
		if (annotations ? !cJSON_IsArray(doc) : !cJSON_IsObject(doc)) {
			cJSON_Delete(doc);
			rc = err_set(err, ERR_EXEC, "github: GET %s: the answer is not a %s", path,
				     annotations ? "list" : "JSON object");
			break;
		}
		page(doc, ctx);
		cJSON_Delete(doc);
		free(path);
		path = resp.next_path;
		resp.next_path = NULL;
	}
	free(path);
	github_response_release(&resp);
	return rc;
}

struct find_ctx {
	const struct github_check_options *opts;
	struct github_check_run *run;
};

static void find_page(const cJSON *doc, void *ctx)
{
	struct find_ctx *f = ctx;

	take_ours(doc, f->opts, f->run);
}

static int find_ours(struct github_http *http, const struct github_check_options *opts,
		     struct github_check_run *run, struct github_check_result *result,
		     struct err *err)
{
	struct find_ctx f = { .opts = opts, .run = run };

	memset(run, 0, sizeof(*run));
	return read_pages(http, list_path(opts), false, find_page, &f, result, err);
}

static char *annotation_key(const char *path, uint64_t line, const char *level, const char *title,
			    const char *message)
{
	return xasprintf("%s\n%" PRIu64 "\n%s\n%s\n%s", path, line, level, title ? title : "",
			 message ? message : "");
}

static void seen_page(const cJSON *doc, void *ctx)
{
	struct seen *s = ctx;
	const cJSON *a;

	cJSON_ArrayForEach(a, doc)
	{
		uint64_t line = 0;
		const char *path = json_str(a, "path"), *level = json_str(a, "annotation_level");

		if (!path || !level ||
		    json_u64(cJSON_GetObjectItemCaseSensitive(a, "start_line"), &line))
			continue;
		s->keys = xgrow(s->keys, &s->alloc, s->nr + 1, sizeof(*s->keys));
		s->keys[s->nr++] = annotation_key(path, line, level, json_str(a, "title"),
						  json_str(a, "message"));
	}
}

static void seen_release(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->keys[i]);
	free(s->keys);
}

/* The annotation as we send it: title and message cut and cleaned the same
 * way every time, so that one already sent is recognised. */
static cJSON *annotation_json(const struct github_check_annotation *a)
{
	cJSON *o = cJSON_CreateObject();
	struct strbuf title, message;
	unsigned line = a->line ? a->line : 1;

	strbuf_init(&title, 0);
	strbuf_init(&message, 0);
	add_clean(&title, a->title ? a->title : "", GITHUB_CHECK_TITLE_MAX_BYTES, false);
	add_clean(&message, a->message ? a->message : "", GITHUB_CHECK_MESSAGE_MAX_BYTES, true);
	cJSON_AddStringToObject(o, "path", a->path);
	cJSON_AddNumberToObject(o, "start_line", line);
	cJSON_AddNumberToObject(o, "end_line", line);
	cJSON_AddStringToObject(o, "annotation_level", level_name(a->level));
	cJSON_AddStringToObject(o, "title", title.buf);
	cJSON_AddStringToObject(o, "message", message.buf);
	strbuf_release(&title);
	strbuf_release(&message);
	return o;
}

static bool was_sent(const struct seen *s, const cJSON *a)
{
	char *key;
	size_t i;
	bool found = false;

	if (!s->nr)
		return false;
	key = annotation_key(
		json_str(a, "path"),
		(uint64_t)cJSON_GetObjectItemCaseSensitive(a, "start_line")->valuedouble,
		json_str(a, "annotation_level"), json_str(a, "title"), json_str(a, "message"));
	for (i = 0; i < s->nr && !found; i++)
		found = !strcmp(s->keys[i], key);
	free(key);
	return found;
}

/* A path GitHub can place an annotation on: relative, printable, bounded.
 * A report is untrusted: anything else is left to the text. */
static bool usable_path(const char *path)
{
	const unsigned char *p = (const unsigned char *)path;

	if (!path || !*path || *path == '/' || strlen(path) > PATH_MAX_BYTES)
		return false;
	for (; *p; p++)
		if (*p < ' ' || *p == 0x7f)
			return false;
	return true;
}

/* The annotations to send, in order: new ones only, at most the cap. */
static cJSON *pending_annotations(const struct github_check_options *opts, const struct seen *s,
				  struct github_check_result *result)
{
	cJSON *all = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < opts->n_annotations && i < GITHUB_CHECK_MAX_ANNOTATIONS; i++) {
		cJSON *a;

		if (!usable_path(opts->annotations[i].path))
			continue;
		a = annotation_json(&opts->annotations[i]);
		if (was_sent(s, a)) {
			result->annotations_present++;
			cJSON_Delete(a);
			continue;
		}
		cJSON_AddItemToArray(all, a);
	}
	return all;
}

/* output: title, summary and text (cut), and annotations [from, from + 50). */
static cJSON *output_json(const struct github_check_options *opts, bool with_text,
			  const cJSON *pending, int from)
{
	cJSON *o = cJSON_CreateObject();
	struct strbuf sb;
	int i, n = pending ? cJSON_GetArraySize(pending) : 0;

	strbuf_init(&sb, 0);
	add_clean(&sb, opts->title ? opts->title : GITHUB_CHECK_NAME, 1024, false);
	cJSON_AddStringToObject(o, "title", sb.buf);
	strbuf_reset(&sb);
	github_check_cut(opts->summary ? opts->summary : "", GITHUB_CHECK_TEXT_MAX_BYTES, &sb);
	cJSON_AddStringToObject(o, "summary", sb.buf);
	if (with_text && opts->text) {
		strbuf_reset(&sb);
		github_check_cut(opts->text, GITHUB_CHECK_TEXT_MAX_BYTES, &sb);
		cJSON_AddStringToObject(o, "text", sb.buf);
	}
	strbuf_release(&sb);
	if (from < n) {
		cJSON *arr = cJSON_AddArrayToObject(o, "annotations");
		for (i = from; i < n && i < from + GITHUB_CHECK_ANNOTATIONS_PER_REQUEST; i++)
			cJSON_AddItemToArray(arr,
					     cJSON_Duplicate(cJSON_GetArrayItem(pending, i), 1));
	}
	return o;
}

/* The fields a create or an update sets besides the output. */
static cJSON *run_json(const struct github_check_options *opts, bool create, const char *status)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", opts->name);
	if (create)
		cJSON_AddStringToObject(o, "head_sha", opts->sha);
	if (opts->details_url)
		cJSON_AddStringToObject(o, "details_url", opts->details_url);
	cJSON_AddStringToObject(o, "external_id", opts->selection);
	cJSON_AddStringToObject(o, "status", status);
	return o;
}

/* POST a new check run (id 0) or PATCH check run `id`; the answer's id goes
 * to result->run.id. */
static int write_run(struct github_http *http, const struct github_check_options *opts, uint64_t id,
		     cJSON *body, struct github_check_result *result, struct err *err)
{
	struct github_response resp;
	char *json = print_json(body);
	char *path = id ? xasprintf("/repos/%s/check-runs/%" PRIu64, opts->repository, id)
			: xasprintf("/repos/%s/check-runs", opts->repository);
	cJSON *doc = NULL;
	uint64_t got = 0;
	int rc;

	github_response_init(&resp);
	rc = github_http_request(http, id ? "PATCH" : "POST", path, json, &resp, err);
	if (rc) {
		classify(&resp, result, rc);
		goto done;
	}
	doc = cJSON_ParseWithLength(resp.body.buf, resp.body.len);
	if (json_u64(cJSON_GetObjectItemCaseSensitive(doc, "id"), &got) || !got) {
		rc = err_set(err, ERR_EXEC, "github: %s %s: the answer has no check run id",
			     id ? "PATCH" : "POST", path);
		goto done;
	}
	result->run.id = got;
	if (result->action == GITHUB_CHECK_NONE)
		result->action = id ? GITHUB_CHECK_UPDATED : GITHUB_CHECK_CREATED;
done:
	cJSON_Delete(doc);
	github_response_release(&resp);
	free(path);
	free(json);
	return rc;
}

static int check_options(const struct github_check_options *opts, struct err *err)
{
	size_t n = opts->sha ? strlen(opts->sha) : 0, i;
	int rc = github_check_repository(opts->repository, err);

	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		if (!((opts->sha[i] >= '0' && opts->sha[i] <= '9') ||
		      (opts->sha[i] >= 'a' && opts->sha[i] <= 'f')))
			break;
	if (i != n || (n != 40 && n != 64))
		return err_set(err, ERR_USAGE, "github: \"%s\" is not a commit sha",
			       opts->sha ? opts->sha : "");
	if (!opts->selection || !*opts->selection || !opts->name || !*opts->name)
		return err_set(err, ERR_USAGE, "github: a check run needs a name and a selection");
	return 0;
}

static void describe_start(const struct github_check_options *opts, struct strbuf *out)
{
	char *list = list_path(opts);
	char *body = print_json(run_json(opts, true, "in_progress"));

	strbuf_addf(out, "GET %s (every page)\n", list);
	strbuf_addf(out,
		    "POST /repos/%s/check-runs %s with the output's title and summary, if none is "
		    "ours (app %s, external_id); PATCH /repos/%s/check-runs/{id} if ours is "
		    "in_progress\n",
		    opts->repository, body,
		    opts->app_slug ? opts->app_slug : GITHUB_ACTIONS_APP_SLUG, opts->repository);
	free(body);
	free(list);
}

int github_check_start(struct github_http *http, const struct github_check_options *opts,
		       struct github_check_result *result, struct err *err)
{
	struct github_check_run run;
	cJSON *body;
	int rc;

	memset(result, 0, sizeof(*result));
	rc = check_options(opts, err);
	if (rc)
		return rc;
	if (opts->dry_run) {
		describe_start(opts, opts->dry_run);
		return 0;
	}
	rc = find_ours(http, opts, &run, result, err);
	if (rc)
		return rc;
	result->run = run;
	if (run.id && run.completed)
		return 0; /* GitHub keeps it completed: github_check_finish updates it */
	body = run_json(opts, !run.id, "in_progress");
	cJSON_AddItemToObject(body, "output", output_json(opts, false, NULL, 0));
	return write_run(http, opts, run.id, body, result, err);
}

static void describe_finish(const struct github_check_options *opts,
			    const struct github_check_run *known, struct strbuf *out)
{
	size_t n = opts->n_annotations < GITHUB_CHECK_MAX_ANNOTATIONS
			   ? opts->n_annotations
			   : GITHUB_CHECK_MAX_ANNOTATIONS;
	size_t requests = n ? (n + GITHUB_CHECK_ANNOTATIONS_PER_REQUEST - 1) /
					  GITHUB_CHECK_ANNOTATIONS_PER_REQUEST
			    : 1;
	char *list = list_path(opts);

	if (!known || !known->id)
		strbuf_addf(out, "GET %s (every page)\n", list);
	strbuf_addf(out,
		    "PATCH /repos/%s/check-runs/{id} of ours, or POST /repos/%s/check-runs on "
		    "%s if there is none: name \"%s\", status completed, conclusion %s, title "
		    "\"%s\", summary of %zu bytes, text of %zu bytes; %zu annotation%s in %zu "
		    "request%s (at most %d each)\n",
		    opts->repository, opts->repository, opts->sha, opts->name,
		    github_conclusion_name(opts->conclusion), opts->title ? opts->title : "",
		    opts->summary ? strlen(opts->summary) : 0, opts->text ? strlen(opts->text) : 0,
		    n, n == 1 ? "" : "s", requests, requests == 1 ? "" : "s",
		    GITHUB_CHECK_ANNOTATIONS_PER_REQUEST);
	free(list);
}

/* The first request completes the check run with the first batch; the
 * rest of the annotations follow, 50 at a time. */
static int send_all(struct github_http *http, const struct github_check_options *opts, uint64_t id,
		    const cJSON *pending, struct github_check_result *result, struct err *err)
{
	int n = cJSON_GetArraySize(pending), from = 0;
	cJSON *body = run_json(opts, !id, "completed");
	int rc;

	cJSON_AddStringToObject(body, "conclusion", github_conclusion_name(opts->conclusion));
	cJSON_AddItemToObject(body, "output", output_json(opts, true, pending, 0));
	rc = write_run(http, opts, id, body, result, err);
	for (;;) {
		int batch = n - from < GITHUB_CHECK_ANNOTATIONS_PER_REQUEST
				    ? n - from
				    : GITHUB_CHECK_ANNOTATIONS_PER_REQUEST;
		if (rc)
			return rc;
		result->annotations_sent += (size_t)batch;
		from += batch;
		if (from >= n)
			return 0;
		body = cJSON_CreateObject();
		cJSON_AddItemToObject(body, "output", output_json(opts, true, pending, from));
		rc = write_run(http, opts, result->run.id, body, result, err);
	}
}

int github_check_finish(struct github_http *http, const struct github_check_options *opts,
			const struct github_check_run *known, struct github_check_result *result,
			struct err *err)
{
	struct github_check_run run;
	struct seen seen = { .keys = NULL, .nr = 0, .alloc = 0 };
	cJSON *pending = NULL;
	int rc;

	memset(result, 0, sizeof(*result));
	rc = check_options(opts, err);
	if (rc)
		return rc;
	if (opts->dry_run) {
		describe_finish(opts, known, opts->dry_run);
		return 0;
	}
	if (known && known->id)
		run = *known;
	else if ((rc = find_ours(http, opts, &run, result, err)) != 0)
		return rc;
	result->run = run;
	if (run.id && run.annotation_count) {
		char *path = xasprintf("/repos/%s/check-runs/%" PRIu64 "/annotations?per_page=100",
				       opts->repository, run.id);
		rc = read_pages(http, path, true, seen_page, &seen, result, err);
		if (rc)
			goto done;
	}
	pending = pending_annotations(opts, &seen, result);
	rc = send_all(http, opts, run.id, pending, result, err);
done:
	cJSON_Delete(pending);
	seen_release(&seen);
	return rc;
}
