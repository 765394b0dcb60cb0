/*
 * Unit tests of event payload parsing: the payloads under tests/data/events/
 * are shaped like GitHub's own (trimmed), one per event and case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "github/event.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
#define HEAD "e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3"
#define GSHA "5555555555555555555555555555555555555555"

static int load(struct github_event *ev, const char *name, const char *file, const char *sha,
		struct err *err)
{
	char *path = xasprintf("tests/data/events/%s", file);
	int rc;

	github_event_init(ev);
	rc = github_event_load(ev, name, path, sha, err);
	free(path);
	return rc;
}

static void test_github_event__pull_request(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "pull_request", "pull_request.json", GSHA, &err), 0);
	assert_int_equal(ev.kind, GITHUB_EVENT_PULL_REQUEST);
	assert_string_equal(ev.base_sha, BASE);
	assert_string_equal(ev.head_sha, HEAD);
	assert_string_equal(ev.status_sha, HEAD); /* not GITHUB_SHA, the merge commit */
	assert_int_equal(ev.pr_number, 42);
	assert_int_equal(ev.nr_labels, 2);
	assert_string_equal(ev.labels[1], "himorime:accept");
	assert_true(github_event_has_label(&ev, "performance"));
	assert_false(github_event_has_label(&ev, "himorime"));
	assert_string_equal(ev.head_repo, "octo/repo");
	assert_string_equal(ev.base_repo, "octo/repo");
	github_event_release(&ev);
}

static void test_github_event__pull_request_from_fork(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "pull_request", "pull_request_fork.json", NULL, &err), 0);
	assert_int_equal(ev.pr_number, 43);
	assert_int_equal(ev.nr_labels, 0);
	assert_string_equal(ev.head_repo, "forker/repo");
	assert_string_equal(ev.base_repo, "octo/repo");
	github_event_release(&ev);
}

static void test_github_event__push_uses_github_sha_for_status(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "push", "push.json", GSHA, &err), 0);
	assert_int_equal(ev.kind, GITHUB_EVENT_PUSH);
	assert_string_equal(ev.base_sha, BASE);
	assert_string_equal(ev.head_sha, HEAD);
	assert_string_equal(ev.status_sha, GSHA);
	assert_int_equal(ev.pr_number, 0);
	assert_int_equal(ev.creates_branch, 0);
	github_event_release(&ev);
}

static void test_github_event__push_creating_a_branch_is_refused(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "push", "push_new_branch.json", GSHA, &err), ERR_USAGE);
	assert_string_equal(err.msg,
			    "github: push event creates branch \"refs/heads/feature/new\": "
			    "there is no previous revision to compare with; pass --against "
			    "REF or set HIMORIME_BASE_REF");
	assert_int_equal(ev.creates_branch, 1);
	assert_string_equal(ev.base_sha, "");
	assert_string_equal(ev.head_sha, HEAD);
	assert_string_equal(ev.status_sha, GSHA);
	github_event_release(&ev);
}

/* issue 28: a payload without ref named the branch "?" */
static void test_github_event__a_push_without_ref_names_no_branch(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "push", "push_new_branch_no_ref.json", GSHA, &err), ERR_USAGE);
	assert_string_equal(err.msg, "github: push event creates a branch: there is no previous "
				     "revision to compare with; pass --against REF or set "
				     "HIMORIME_BASE_REF");
	assert_int_equal(ev.creates_branch, 1);
	github_event_release(&ev);
}

static void test_github_event__merge_group(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "merge_group", "merge_group.json", GSHA, &err), 0);
	assert_int_equal(ev.kind, GITHUB_EVENT_MERGE_GROUP);
	assert_string_equal(ev.base_sha, BASE);
	assert_string_equal(ev.head_sha, "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00");
	assert_string_equal(ev.status_sha, GSHA);
	github_event_release(&ev);
}

static void test_github_event__workflow_run_same_repository(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "workflow_run", "workflow_run_same_repo.json", GSHA, &err), 0);
	assert_int_equal(ev.kind, GITHUB_EVENT_WORKFLOW_RUN);
	assert_int_equal(ev.run_id, UINT64_C(9876543210));
	assert_string_equal(ev.head_sha, HEAD);
	assert_string_equal(ev.status_sha, HEAD);
	assert_string_equal(ev.base_sha, "");
	assert_int_equal(ev.pr_number, 42);
	assert_string_equal(ev.run_event, "pull_request");
	assert_string_equal(ev.head_repo, "octo/repo");
	assert_string_equal(ev.base_repo, "octo/repo");
	github_event_release(&ev);
}

static void test_github_event__workflow_run_from_fork_has_no_number(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "workflow_run", "workflow_run_fork.json", NULL, &err), 0);
	assert_int_equal(ev.pr_number, 0);
	assert_string_equal(ev.head_repo, "forker/repo");
	assert_string_equal(ev.base_repo, "octo/repo");
	github_event_release(&ev);
}

static void test_github_event__pull_request_target_is_refused(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "pull_request_target", "pull_request_target.json", NULL, &err),
			 ERR_USAGE);
	assert_string_equal(
		err.msg, "github: event \"pull_request_target\" is refused: it runs pull request "
			 "code with the base repository's secrets; use \"pull_request\", and the "
			 "fork-safe comment workflow (workflow_run) for comments on forks");
	github_event_release(&ev);
}

static void test_github_event__other_events_and_bad_payloads(void **state)
{
	static const struct {
		const char *name;
		const char *json;
		int rc;
		const char *msg;
	} cases[] = {
		{ "schedule", "{}", ERR_USAGE,
		  "github: event \"schedule\" is not supported: use pull_request, push, "
		  "merge_group "
		  "or workflow_run, or pass --against REF" },
		{ "", "{}", ERR_USAGE,
		  "github: GITHUB_EVENT_NAME is not set: run inside GitHub Actions or pass "
		  "--against REF" },
		{ "push", "[1]", ERR_INVALID, "github: event payload is not a JSON object" },
		{ "push", "{\"before\": \"main\"}", ERR_INVALID,
		  "github: event payload: before: expected a commit sha" },
		{ "pull_request",
		  "{\"pull_request\": {\"base\": {\"sha\": \"" BASE "\"}, \"head\": {\"sha\": "
		  "\"" HEAD "\"}, \"number\": -1}}",
		  ERR_INVALID,
		  "github: event payload: pull_request.number: expected a positive integer" },
		{ "pull_request",
		  "{\"pull_request\": {\"base\": {\"sha\": \"" BASE "\", \"repo\": {\"full_name\": "
		  "\"../x\"}}, \"head\": {\"sha\": \"" HEAD "\"}, \"number\": 1}}",
		  ERR_INVALID,
		  "github: event payload: pull_request.base.repo.full_name: expected "
		  "\"owner/name\"" },
		{ "push",
		  "{\"before\": \"" BASE
		  "\", \"after\": \"0000000000000000000000000000000000000000\"}",
		  ERR_USAGE, "github: push event deletes the branch: there is nothing to measure" },
		/* Strict JSON: two readers must never see different values. */
		{ "push", "{\"before\": \"" BASE "\", \"before\": \"" HEAD "\"}", ERR_INVALID,
		  "github: event payload: $: duplicate key \"before\"" },
		{ "push", "{\"a\": {\"x\": 1, \"x\": 2}}", ERR_INVALID,
		  "github: event payload: $.a: duplicate key \"x\"" },
		{ "push", "{\"before\": \"" BASE "\"} {\"before\": \"" HEAD "\"}", ERR_INVALID,
		  "github: event payload:1:56: unexpected text after the document" },
		{ "push", "{\"before\": \"" BASE "\"}garbage", ERR_INVALID,
		  "github: event payload:1:55: unexpected text after the document" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct github_event ev;
		struct err err = ERR_INIT;

		github_event_init(&ev);
		assert_int_equal(github_event_parse(&ev, cases[i].name, cases[i].json,
						    strlen(cases[i].json), NULL, &err),
				 cases[i].rc);
		assert_string_equal(err.msg, cases[i].msg);
		github_event_release(&ev);
	}
}

/* A payload that would cost cJSON far more memory than its size is refused
 * before parsing: too many values, or too many bytes. */
static void test_github_event__payload_caps(void **state)
{
	const size_t values = GITHUB_EVENT_MAX_VALUES + 1;
	struct github_event ev;
	struct err err = ERR_INIT;
	char *json = xmalloc(2 * values + 16);
	size_t i, n = 0;

	(void)state;
	github_event_init(&ev);
	n += (size_t)snprintf(json, 16, "{\"a\":[");
	for (i = 0; i + 1 < values; i++) {
		json[n++] = '0';
		json[n++] = ',';
	}
	json[n - 1] = ']';
	json[n++] = '}';
	assert_int_equal(github_event_parse(&ev, "push", json, n, GSHA, &err), ERR_INVALID);
	assert_string_equal(err.msg, "github: event payload:1:2000001: more than 1000000 values");
	free(json);
	json = xcalloc(GITHUB_EVENT_MAX_BYTES + 1, 1);
	memset(json, ' ', GITHUB_EVENT_MAX_BYTES + 1);
	json[0] = '{';
	json[GITHUB_EVENT_MAX_BYTES] = '}';
	assert_int_equal(
		github_event_parse(&ev, "push", json, GITHUB_EVENT_MAX_BYTES + 1, GSHA, &err),
		ERR_INVALID);
	assert_string_equal(err.msg, "github: event payload: larger than 26214400 bytes");
	free(json);
	github_event_release(&ev);
}

static void test_github_event__missing_payload_file(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	github_event_init(&ev);
	assert_int_equal(github_event_load(&ev, "push", "tests/data/events/none.json", NULL, &err),
			 ERR_EXEC);
	assert_string_equal(err.msg, "github: event payload: cannot read "
				     "\"tests/data/events/none.json\": No such file or directory");
	assert_int_equal(github_event_load(&ev, "push", NULL, NULL, &err), ERR_USAGE);
	github_event_release(&ev);
}

/* Which events come from a fork: the status posted from their report is
 * advisory (docs/github-actions.md). */
static void test_github_event__from_fork(void **state)
{
	static const struct {
		const char *name, *file;
		int fork;
	} cases[] = {
		{ "pull_request", "pull_request.json", 0 },
		{ "pull_request", "pull_request_fork.json", 1 },
		{ "workflow_run", "workflow_run_same_repo.json", 0 },
		{ "workflow_run", "workflow_run_fork.json", 1 },
		{ "push", "push.json", 0 },
		{ "merge_group", "merge_group.json", 0 },
	};
	struct github_event ev;
	struct err err = ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(load(&ev, cases[i].name, cases[i].file, GSHA, &err), 0);
		assert_int_equal(github_event_from_fork(&ev), cases[i].fork);
		github_event_release(&ev);
	}
	/* a pull request whose head repository was deleted, and names in
	 * another case (GitHub's names ignore case) */
	assert_int_equal(load(&ev, "pull_request", "pull_request.json", GSHA, &err), 0);
	free(ev.head_repo);
	ev.head_repo = NULL;
	assert_int_equal(github_event_from_fork(&ev), 1);
	ev.head_repo = xstrdup("Octo/Repo");
	assert_int_equal(github_event_from_fork(&ev), 0);
	github_event_release(&ev);
}

/* A saved report is posted only for the commit its event names. */
static void test_github_event__report_sha_must_be_the_event_commit(void **state)
{
	struct github_event ev;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(load(&ev, "workflow_run", "workflow_run_same_repo.json", GSHA, &err), 0);
	assert_int_equal(github_event_check_report_sha(&ev, HEAD, &err), 0);
	assert_int_equal(github_event_check_report_sha(&ev, BASE, &err), ERR_INVALID);
	assert_string_equal(err.msg,
			    "the report is about commit " BASE " (git.status_sha), not " HEAD
			    ", the commit of this event (workflow_run.head_sha): "
			    "refusing to post another commit's report");
	assert_int_equal(github_event_check_report_sha(&ev, NULL, &err), ERR_INVALID);
	assert_string_equal(err.msg, "the report names no commit (git.status_sha): post a report "
				     "that `himorime ci` wrote under the event of the run that "
				     "measured");
	/* untrusted text is not quoted back */
	assert_int_equal(github_event_check_report_sha(&ev, "::error::x\n", &err), ERR_INVALID);
	assert_string_equal(err.msg, "git.status_sha: expected a 40- or 64-digit commit id");
	assert_int_equal(github_event_check_report_sha(&ev, HEAD "0", &err), ERR_INVALID);
	assert_string_equal(err.msg, "git.status_sha: expected a 40- or 64-digit commit id");
	github_event_release(&ev);
	assert_int_equal(load(&ev, "pull_request", "pull_request.json", GSHA, &err), 0);
	assert_int_equal(github_event_check_report_sha(&ev, HEAD, &err), 0);
	assert_int_equal(github_event_check_report_sha(&ev, GSHA, &err), ERR_INVALID);
	assert_string_equal(err.msg,
			    "the report is about commit " GSHA " (git.status_sha), not " HEAD
			    ", the commit of this event (pull_request.head.sha): "
			    "refusing to post another commit's report");
	github_event_release(&ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github_event__pull_request),
		cmocka_unit_test(test_github_event__pull_request_from_fork),
		cmocka_unit_test(test_github_event__push_uses_github_sha_for_status),
		cmocka_unit_test(test_github_event__push_creating_a_branch_is_refused),
		cmocka_unit_test(test_github_event__a_push_without_ref_names_no_branch),
		cmocka_unit_test(test_github_event__merge_group),
		cmocka_unit_test(test_github_event__workflow_run_same_repository),
		cmocka_unit_test(test_github_event__workflow_run_from_fork_has_no_number),
		cmocka_unit_test(test_github_event__pull_request_target_is_refused),
		cmocka_unit_test(test_github_event__other_events_and_bad_payloads),
		cmocka_unit_test(test_github_event__payload_caps),
		cmocka_unit_test(test_github_event__missing_payload_file),
		cmocka_unit_test(test_github_event__from_fork),
		cmocka_unit_test(test_github_event__report_sha_must_be_the_event_commit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
