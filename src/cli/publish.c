/*
 * Publishing a results document to GitHub: one sticky pull-request comment
 * (the github rendering in its comment form, under a hidden marker naming the
 * suites), then the check run `himorime` (check_run.c) and a commit status
 * `himorime`, as --verdict-as says. Shared by `ci` and the fork-safe
 * `comment`. A read-only token (a pull request from a fork) is a notice, not
 * a failure: the report is kept and the notice says how to use `comment`. A
 * token that may not write check runs gets the status instead, and a notice
 * naming the permission.
 */
#include "cli/publish.h"

#include "cli/cli.h"
#include "common/alloc.h"
#include "github/http.h"
#include "github/publish.h"
#include "engine/runner.h"
#include "render/render.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static enum github_state state_for(int exit_code)
{
	switch (exit_code) {
	case EXIT_OK:
		return GITHUB_STATE_SUCCESS;
	case EXIT_FAILED:
		return GITHUB_STATE_FAILURE;
	default:
		return GITHUB_STATE_ERROR;
	}
}

static void selection_key(const struct results *doc, struct strbuf *out)
{
	const char **names = xcalloc(doc->n_suites + 1, sizeof(*names));
	size_t i;

	for (i = 0; i < doc->n_suites; i++)
		names[i] = doc->suites[i].name;
	cli_selection_key(names, doc->n_suites, out);
	free(names);
}

/* The run the comment and the status link to: this run, except for the
 * fork-safe `comment` (workflow_run), whose own summary is empty: it links the
 * measuring run, workflow_run.id of the trusted event. */
static char *run_url_for(const struct github_event *ev)
{
	char id[32];
	const char *run_id = getenv("GITHUB_RUN_ID");

	if (ev->kind == GITHUB_EVENT_WORKFLOW_RUN && ev->run_id) {
		snprintf(id, sizeof(id), "%" PRIu64, ev->run_id);
		run_id = id;
	}
	return github_run_url(getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), run_id);
}

/* The status' description: the verdict's reasons; for a pull request from a
 * fork, whose own run made the verdict, marked advisory where the checks
 * list shows it, the place where required checks are chosen. */
static void status_description(const struct results *doc, const struct github_event *ev,
			       struct strbuf *out)
{
	struct strbuf why;

	strbuf_init(&why, 0);
	runner_exit_reason(doc, &why);
	if (github_event_from_fork(ev))
		strbuf_adds(out, "advisory (fork): ");
	strbuf_add(out, why.buf, why.len);
	strbuf_release(&why);
}

/* The requests and the comment a dry run would send: they quote the report,
 * a pull request's data, so they go out wrapped in Actions. */
static void print_dry_run(const char *head, const char *plan, const char *body)
{
	char *text = xasprintf("%s%s--- comment ---\n%s\n", head, plan, body);

	cli_print_untrusted(text, false);
	free(text);
}

/* Without GITHUB_REPOSITORY there is no repository to address requests to:
 * a local dry run shows the comment, anything else says nothing was sent. */
static void no_repository(bool dry_run, const char *body)
{
	if (dry_run)
		print_dry_run("himorime: dry run: no GITHUB_REPOSITORY, so no request would "
			      "be made\n",
			      "", body);
	else
		fprintf(stderr, "himorime: notice: GITHUB_REPOSITORY is not set: nothing "
				"was published\n");
}

/* A token that cannot write (a pull request from a fork) is a notice, not a
 * failure: the report and the job summary are kept. */
static void read_only_notice(const char *why)
{
	fprintf(stderr,
		"himorime: notice: the token cannot write to this repository (a pull "
		"request from a fork?): %s\n"
		"  the report and the job summary are kept; to comment on pull requests "
		"from forks, upload the JSON report as an artifact and post it with "
		"'himorime comment' from a workflow_run workflow (docs/github-actions.md)\n",
		why);
}

/* A token that may not write check runs (a personal token, a job without
 * the permission): the status goes instead, and the log says what to add. */
static void checks_refused_notice(const char *why)
{
	fprintf(stderr,
		"himorime: notice: the token may not write check runs (%s): the commit status "
		"is posted instead; for the check run `himorime` with annotations on the suite, "
		"give the job `checks: write` (or pass --verdict-as status to post the status "
		"alone) (docs/github-actions.md)\n",
		why);
}

/* What publishing did so far: the first failure wins the message. */
struct outcome {
	struct err err;
	bool failed;
};

static void keep_failure(struct outcome *out, const struct err *err)
{
	if (out->failed)
		return;
	out->failed = true;
	out->err = *err;
}

/* The check run, then the status when asked, or when check runs are
 * refused. false after a read-only token's notice (nothing more to try). */
static bool publish_verdict(struct github_http *http, const struct results *doc,
			    const struct github_event *ev, const struct cli_publish_request *req,
			    struct github_publish_options *po, struct strbuf *plan,
			    struct outcome *out)
{
	struct github_publish_result res;
	struct err err = ERR_INIT;
	bool want_status = req->verdict_as != CLI_VERDICT_CHECK;

	if (req->verdict_as != CLI_VERDICT_STATUS && po->sha) {
		if (!req->check->refused &&
		    cli_check_finish(http, doc, ev, po->target_url, req->check,
				     req->dry_run ? plan : NULL, &err) < 0 &&
		    !req->check->refused)
			keep_failure(out, &err);
		if (req->check->refused) {
			checks_refused_notice(req->check->why);
			want_status = true;
		}
	}
	if (!want_status || !po->sha)
		return true;
	po->pr_number = 0; /* the comment is posted */
	err_clear(&err);
	if (github_publish(http, po, &res, &err) < 0) {
		if (res.read_only) {
			read_only_notice(err.msg);
			return false;
		}
		keep_failure(out, &err);
	}
	return true;
}

/* Publishes doc's comment, check run and status. Returns EXIT_OK, or
 * EXIT_EXEC for a failure other than a read-only token (which is only a
 * notice). */
int cli_publish(const struct results *doc, const struct github_event *ev,
		const struct cli_publish_request *req)
{
	struct github_http_options ho = GITHUB_HTTP_OPTIONS_INIT;
	struct github_publish_options po = GITHUB_PUBLISH_OPTIONS_INIT;
	struct github_publish_result res;
	struct render_options ro = RENDER_OPTIONS_INIT;
	struct github_http *http = NULL;
	struct strbuf body, key, marker, why, plan;
	struct outcome out = { .err = ERR_INIT, .failed = false };
	char *run_url;
	const char *sha = ev->status_sha[0] ? ev->status_sha : NULL;

	strbuf_init(&body, 0);
	strbuf_init(&key, 0);
	strbuf_init(&marker, 0);
	strbuf_init(&why, 0);
	strbuf_init(&plan, 0);
	memset(&res, 0, sizeof(res));
	selection_key(doc, &key);
	run_url = run_url_for(ev);
	ro.comment = true;
	ro.run_url = run_url;
	ro.hide_footer = req->hide_footer;
	if (github_comment_marker(key.buf, &marker, &out.err) < 0) {
		out.failed = true;
		goto done;
	}
	ro.marker = marker.buf;
	if (render_to(doc, RENDER_GITHUB, &ro, &body, &out.err) < 0) {
		out.failed = true;
		goto done;
	}
	status_description(doc, ev, &why);
	if (!getenv("GITHUB_REPOSITORY") || !*getenv("GITHUB_REPOSITORY")) {
		no_repository(req->dry_run, body.buf);
		goto done;
	}
	ho.api_url = getenv("GITHUB_API_URL");
	ho.token = req->token ? req->token : "dry-run";
	if (github_http_new(&http, &ho, &out.err) < 0) {
		out.failed = true;
		goto done;
	}
	po.repository = getenv("GITHUB_REPOSITORY");
	po.pr_number = req->comment ? ev->pr_number : 0;
	po.selection = key.buf;
	po.body = body.buf;
	po.state = state_for(doc->summary.exit_code);
	po.description = why.buf;
	po.target_url = run_url;
	po.dry_run = req->dry_run ? &plan : NULL;
	if (github_publish(http, &po, &res, &out.err) < 0) { /* the comment (no sha yet) */
		if (res.read_only)
			read_only_notice(out.err.msg);
		else
			out.failed = true;
		goto done;
	}
	po.sha = sha;
	if (publish_verdict(http, doc, ev, req, &po, &plan, &out) && req->dry_run)
		print_dry_run("himorime: dry run: nothing was sent\n", plan.buf, body.buf);
done:
	if (out.failed)
		cli_error(HMR_EXEC, "%s", out.err.msg);
	github_http_free(http);
	free(run_url);
	strbuf_release(&body);
	strbuf_release(&key);
	strbuf_release(&marker);
	strbuf_release(&why);
	strbuf_release(&plan);
	return out.failed ? EXIT_EXEC : EXIT_OK;
}
