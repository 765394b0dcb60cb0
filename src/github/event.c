/*
 * Event payloads: see event.h. The payload is untrusted JSON; every field is
 * checked for type and shape before it is copied into struct github_event.
 */
#include "github/event.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "github/publish.h"
#include "results/json.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/banned.h"

#define MAX_LABELS	100
#define MAX_LABEL_BYTES 256

void github_event_init(struct github_event *ev)
{
	memset(ev, 0, sizeof(*ev));
}

void github_event_release(struct github_event *ev)
{
	size_t i;

	if (!ev)
		return;
	for (i = 0; i < ev->nr_labels; i++)
		free(ev->labels[i]);
	free(ev->labels);
	free(ev->head_repo);
	free(ev->base_repo);
	free(ev->base_ref);
	free(ev->run_event);
	github_event_init(ev);
}

/* The item at a dotted path ("pull_request.base.sha"), or NULL. */
static const cJSON *at(const cJSON *doc, const char *path)
{
	char key[64];

	while (doc && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		doc = cJSON_GetObjectItemCaseSensitive(doc, key);
		path += n + (dot ? 1 : 0);
	}
	return doc;
}

static int is_sha(const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return n == 40 || n == 64;
}

static int is_zero_sha(const char *s)
{
	return strspn(s, "0") == strlen(s);
}

static int get_sha(const cJSON *doc, const char *path, char *out, struct err *err)
{
	const cJSON *v = at(doc, path);

	if (!cJSON_IsString(v) || !is_sha(v->valuestring))
		return err_set(err, ERR_INVALID, "github: event payload: %s: expected a commit sha",
			       path);
	memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
	return 0;
}

static int get_repo(const cJSON *doc, const char *path, int required, char **out, struct err *err)
{
	const cJSON *v = at(doc, path);

	*out = NULL;
	if (!v || cJSON_IsNull(v)) {
		if (!required)
			return 0;
	} else if (cJSON_IsString(v) && github_check_repository(v->valuestring, NULL) == 0) {
		*out = xstrdup(v->valuestring);
		return 0;
	}
	return err_set(err, ERR_INVALID, "github: event payload: %s: expected \"owner/name\"",
		       path);
}

static int get_u64(const cJSON *doc, const char *path, uint64_t *out, struct err *err)
{
	const cJSON *v = at(doc, path);

	if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 9007199254740991.0 ||
	    v->valuedouble != (double)(uint64_t)v->valuedouble)
		return err_set(err, ERR_INVALID,
			       "github: event payload: %s: expected a positive integer", path);
	*out = (uint64_t)v->valuedouble;
	return 0;
}

/* A branch name shown beside the base's short id: a label only, so one that
 * is missing or not plain printable text is left out rather than refused. */
static char *get_branch(const cJSON *doc, const char *path)
{
	const cJSON *v = at(doc, path);
	const unsigned char *c;
	size_t n;

	if (!cJSON_IsString(v))
		return NULL;
	n = strlen(v->valuestring);
	if (n == 0 || n > 255)
		return NULL;
	for (c = (const unsigned char *)v->valuestring; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return NULL;
	return xstrdup(v->valuestring);
}

static int status_from_github_sha(struct github_event *ev, const char *github_sha, struct err *err)
{
	if (!github_sha || !*github_sha) {
		memcpy(ev->status_sha, ev->head_sha, sizeof(ev->status_sha));
		return 0;
	}
	if (!is_sha(github_sha))
		return err_set(err, ERR_INVALID, "github: GITHUB_SHA \"%s\" is not a commit sha",
			       github_sha);
	memcpy(ev->status_sha, github_sha, strlen(github_sha) + 1);
	return 0;
}

static int parse_labels(struct github_event *ev, const cJSON *doc, struct err *err)
{
	const cJSON *labels = at(doc, "pull_request.labels");
	const cJSON *l;
	size_t alloc = 0;

	if (!labels || cJSON_IsNull(labels))
		return 0;
	if (!cJSON_IsArray(labels))
		return err_set(err, ERR_INVALID,
			       "github: event payload: pull_request.labels: expected a list");
	cJSON_ArrayForEach(l, labels)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(l, "name");

		if (!cJSON_IsString(name) || strlen(name->valuestring) > MAX_LABEL_BYTES)
			return err_set(err, ERR_INVALID,
				       "github: event payload: pull_request.labels[%zu].name: "
				       "expected a label name",
				       ev->nr_labels);
		if (ev->nr_labels == MAX_LABELS)
			return err_set(err, ERR_INVALID,
				       "github: event payload: pull_request.labels: more than %d",
				       MAX_LABELS);
		ev->labels = xgrow(ev->labels, &alloc, ev->nr_labels + 1, sizeof(*ev->labels));
		ev->labels[ev->nr_labels++] = xstrdup(name->valuestring);
	}
	return 0;
}

static int parse_pull_request(struct github_event *ev, const cJSON *doc, struct err *err)
{
	int rc;

	ev->kind = GITHUB_EVENT_PULL_REQUEST;
	if ((rc = get_sha(doc, "pull_request.base.sha", ev->base_sha, err)) ||
	    (rc = get_sha(doc, "pull_request.head.sha", ev->head_sha, err)) ||
	    (rc = get_u64(doc, "pull_request.number", &ev->pr_number, err)) ||
	    (rc = get_repo(doc, "pull_request.base.repo.full_name", 1, &ev->base_repo, err)) ||
	    (rc = get_repo(doc, "pull_request.head.repo.full_name", 0, &ev->head_repo, err)))
		return rc;
	memcpy(ev->status_sha, ev->head_sha, sizeof(ev->status_sha));
	ev->base_ref = get_branch(doc, "pull_request.base.ref");
	return parse_labels(ev, doc, err);
}

static int parse_merge_group(struct github_event *ev, const cJSON *doc, const char *github_sha,
			     struct err *err)
{
	int rc;

	ev->kind = GITHUB_EVENT_MERGE_GROUP;
	if ((rc = get_sha(doc, "merge_group.base_sha", ev->base_sha, err)) ||
	    (rc = get_sha(doc, "merge_group.head_sha", ev->head_sha, err)) ||
	    (rc = get_repo(doc, "repository.full_name", 0, &ev->base_repo, err)))
		return rc;
	return status_from_github_sha(ev, github_sha, err);
}

static int parse_push(struct github_event *ev, const cJSON *doc, const char *github_sha,
		      struct err *err)
{
	const cJSON *ref = at(doc, "ref");
	int rc;

	ev->kind = GITHUB_EVENT_PUSH;
	if ((rc = get_sha(doc, "before", ev->base_sha, err)) ||
	    (rc = get_sha(doc, "after", ev->head_sha, err)) ||
	    (rc = get_repo(doc, "repository.full_name", 0, &ev->base_repo, err)) ||
	    (rc = status_from_github_sha(ev, github_sha, err)))
		return rc;
	if (is_zero_sha(ev->head_sha))
		return err_set(
			err, ERR_USAGE,
			"github: push event deletes the branch: there is nothing to measure");
	if (is_zero_sha(ev->base_sha)) {
		ev->creates_branch = 1;
		ev->base_sha[0] = '\0';
		/* a payload without ref names no branch, rather than "?" */
		return err_set(err, ERR_USAGE,
			       "github: push event creates %s%.200s%s: there is no previous "
			       "revision to compare with; pass --against REF or set "
			       "HIMORIME_BASE_REF",
			       cJSON_IsString(ref) ? "branch \"" : "a branch",
			       cJSON_IsString(ref) ? ref->valuestring : "",
			       cJSON_IsString(ref) ? "\"" : "");
	}
	return 0;
}

static int parse_workflow_run(struct github_event *ev, const cJSON *doc, struct err *err)
{
	const cJSON *prs = at(doc, "workflow_run.pull_requests");
	const cJSON *event = at(doc, "workflow_run.event");
	const cJSON *pr;
	int rc;

	ev->kind = GITHUB_EVENT_WORKFLOW_RUN;
	if ((rc = get_u64(doc, "workflow_run.id", &ev->run_id, err)) ||
	    (rc = get_sha(doc, "workflow_run.head_sha", ev->head_sha, err)) ||
	    (rc = get_repo(doc, "repository.full_name", 1, &ev->base_repo, err)) ||
	    (rc = get_repo(doc, "workflow_run.head_repository.full_name", 1, &ev->head_repo, err)))
		return rc;
	if (!cJSON_IsString(event) || strlen(event->valuestring) > 64)
		return err_set(err, ERR_INVALID,
			       "github: event payload: workflow_run.event: expected an event name");
	ev->run_event = xstrdup(event->valuestring);
	memcpy(ev->status_sha, ev->head_sha, sizeof(ev->status_sha));
	if (prs && !cJSON_IsArray(prs))
		return err_set(
			err, ERR_INVALID,
			"github: event payload: workflow_run.pull_requests: expected a list");
	/* The list names pull requests of the base repository whose head is this
	 * commit; keep the one whose head sha matches. */
	cJSON_ArrayForEach(pr, prs)
	{
		const cJSON *sha = at(pr, "head.sha");
		uint64_t n;

		if (!cJSON_IsString(sha) || strcmp(sha->valuestring, ev->head_sha))
			continue;
		if ((rc = get_u64(pr, "number", &n, err)))
			return err_wrap(err, "workflow_run.pull_requests");
		if (ev->pr_number && ev->pr_number != n)
			return err_set(err, ERR_INVALID,
				       "github: event payload: workflow_run.pull_requests: "
				       "commit %s heads several pull requests",
				       ev->head_sha);
		ev->pr_number = n;
	}
	return 0;
}

int github_event_parse(struct github_event *ev, const char *event_name, const char *json,
		       size_t len, const char *github_sha, struct err *err)
{
	cJSON *doc = NULL;
	int rc;

	github_event_release(ev);
	if (!event_name || !*event_name)
		return err_set(err, ERR_USAGE,
			       "github: GITHUB_EVENT_NAME is not set: run inside GitHub Actions or "
			       "pass --against REF");
	if (!strcmp(event_name, "pull_request_target"))
		return err_set(
			err, ERR_USAGE,
			"github: event \"pull_request_target\" is refused: it runs pull "
			"request code with the base repository's secrets; use "
			"\"pull_request\", and the fork-safe comment workflow (workflow_run) "
			"for comments on forks");
	if (strcmp(event_name, "pull_request") && strcmp(event_name, "merge_group") &&
	    strcmp(event_name, "push") && strcmp(event_name, "workflow_run"))
		return err_set(err, ERR_USAGE,
			       "github: event \"%.64s\" is not supported: use pull_request, push, "
			       "merge_group or workflow_run, or pass --against REF",
			       event_name);
	if (len > GITHUB_EVENT_MAX_BYTES)
		return err_set(err, ERR_INVALID, "github: event payload: larger than %zu bytes",
			       GITHUB_EVENT_MAX_BYTES);
	if (results_json_parse(json, len, "github: event payload", GITHUB_EVENT_MAX_VALUES, &doc,
			       err) < 0)
		return ERR_INVALID;
	if (!cJSON_IsObject(doc)) {
		rc = err_set(err, ERR_INVALID, "github: event payload is not a JSON object");
		goto done;
	}
	if (!strcmp(event_name, "pull_request"))
		rc = parse_pull_request(ev, doc, err);
	else if (!strcmp(event_name, "merge_group"))
		rc = parse_merge_group(ev, doc, github_sha, err);
	else if (!strcmp(event_name, "push"))
		rc = parse_push(ev, doc, github_sha, err);
	else
		rc = parse_workflow_run(ev, doc, err);
done:
	cJSON_Delete(doc);
	return rc;
}

int github_event_load(struct github_event *ev, const char *event_name, const char *path,
		      const char *github_sha, struct err *err)
{
	char *json = NULL;
	size_t len = 0;
	int rc;

	if (!path || !*path)
		return err_set(err, ERR_USAGE,
			       "github: GITHUB_EVENT_PATH is not set: run inside GitHub Actions or "
			       "pass --against REF");
	rc = fsio_read_file(path, GITHUB_EVENT_MAX_BYTES, &json, &len, err);
	if (rc)
		return err_wrap(err, "github: event payload");
	rc = github_event_parse(ev, event_name, json, len, github_sha, err);
	free(json);
	return rc;
}

int github_event_has_label(const struct github_event *ev, const char *name)
{
	size_t i;

	for (i = 0; i < ev->nr_labels; i++)
		if (!strcmp(ev->labels[i], name))
			return 1;
	return 0;
}

/* Keeps in *found the pull requests of `doc` (a list) whose head is the
 * event's commit in its head repository and whose base is its repository. */
static int match_pulls(const struct github_event *ev, const cJSON *doc, uint64_t *found,
		       struct err *err)
{
	const cJSON *pr;

	cJSON_ArrayForEach(pr, doc)
	{
		const cJSON *sha = at(pr, "head.sha");
		const cJSON *repo = at(pr, "head.repo.full_name");
		const cJSON *base = at(pr, "base.repo.full_name");
		uint64_t n;

		if (!cJSON_IsString(sha) || strcmp(sha->valuestring, ev->head_sha) ||
		    !cJSON_IsString(repo) || strcmp(repo->valuestring, ev->head_repo) ||
		    !cJSON_IsString(base) || strcmp(base->valuestring, ev->base_repo) ||
		    get_u64(pr, "number", &n, NULL))
			continue;
		if (*found && *found != n)
			return err_set(err, ERR_INVALID,
				       "github: commit %s of \"%s\" heads several pull requests",
				       ev->head_sha, ev->head_repo);
		*found = n;
	}
	return 0;
}

/* GETs `path` and every following page, matching pull requests on each. */
static int scan_pulls(struct github_http *http, const struct github_event *ev, const char *first,
		      uint64_t *found, struct err *err)
{
	struct github_response resp;
	char *path = xstrdup(first);
	int pages = 0;
	int rc = 0;

	github_response_init(&resp);
	while (path && !rc) {
		cJSON *doc;

		if (++pages > 50) /* 5,000 open pull requests: give up rather than crawl */
			break;
		rc = github_http_request(http, "GET", path, NULL, &resp, err);
		if (rc)
			break;
		doc = cJSON_ParseWithLength(resp.body.buf, resp.body.len);
		if (!cJSON_IsArray(doc))
			rc = err_set(err, ERR_EXEC, "github: GET %s: the answer is not a list",
				     path);
		else
			rc = match_pulls(ev, doc, found, err);
		cJSON_Delete(doc);
		free(path);
		path = resp.next_path;
		resp.next_path = NULL;
	}
	free(path);
	github_response_release(&resp);
	return rc;
}

int github_event_from_fork(const struct github_event *ev)
{
	if (ev->kind != GITHUB_EVENT_PULL_REQUEST && ev->kind != GITHUB_EVENT_WORKFLOW_RUN)
		return 0;
	/* GitHub compares owner and name without case */
	return !ev->head_repo || !ev->base_repo || strcasecmp(ev->head_repo, ev->base_repo) != 0;
}

/* Where each event names the commit that gets the status, for messages. */
static const char *const status_sha_field[] = {
	[GITHUB_EVENT_PULL_REQUEST] = "pull_request.head.sha",
	[GITHUB_EVENT_MERGE_GROUP] = "GITHUB_SHA",
	[GITHUB_EVENT_PUSH] = "GITHUB_SHA",
	[GITHUB_EVENT_WORKFLOW_RUN] = "workflow_run.head_sha",
};

int github_event_check_report_sha(const struct github_event *ev, const char *claimed,
				  struct err *err)
{
	const char *field = status_sha_field[ev->kind];

	if (!claimed)
		return err_set(err, ERR_INVALID,
			       "the report names no commit (git.status_sha): post a report that "
			       "`himorime ci` wrote under the event of the run that measured");
	/* the claim is the artifact's, untrusted: quoted only once it is hex */
	if (!is_sha(claimed))
		return err_set(err, ERR_INVALID,
			       "git.status_sha: expected a 40- or 64-digit commit id");
	if (strcmp(claimed, ev->status_sha))
		return err_set(
			err, ERR_INVALID,
			"the report is about commit %s (git.status_sha), not %s, the "
			"commit of this event (%s): refusing to post another commit's report",
			claimed, ev->status_sha, field);
	return 0;
}

int github_event_find_pr(struct github_http *http, struct github_event *ev, struct err *err)
{
	uint64_t found = 0;
	char *path;
	int rc;

	if (!ev->base_repo || !ev->head_repo || !ev->head_sha[0])
		return err_set(err, ERR_INVALID,
			       "github: event payload: no head commit and repositories to look "
			       "the pull request up by");
	path = xasprintf("/repos/%s/commits/%s/pulls?per_page=100", ev->base_repo, ev->head_sha);
	rc = scan_pulls(http, ev, path, &found, err);
	free(path);
	if (!rc && !found) {
		/* The commit may live only in the fork: look through the open pull
		 * requests for one whose head is this commit in that fork. */
		path = xasprintf("/repos/%s/pulls?state=open&per_page=100", ev->base_repo);
		rc = scan_pulls(http, ev, path, &found, err);
		free(path);
	}
	if (rc)
		return rc;
	if (!found)
		return err_set(err, ERR_INVALID,
			       "github: no pull request of \"%s\" has head %s from \"%s\"",
			       ev->base_repo, ev->head_sha, ev->head_repo);
	ev->pr_number = found;
	return 0;
}
