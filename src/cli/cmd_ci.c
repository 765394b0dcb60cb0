/*
 * `himorime ci`: compare with CI defaults, then publish.
 *
 *   base       --against, else HIMORIME_BASE_REF, else the event payload
 *              (pull_request.base.sha, merge_group.base_sha, push `before`)
 *   head       the working tree as checked out (on pull_request: the merge)
 *   output     the table without colour, measured text wrapped in
 *              ::stop-commands::, annotations, the github summary appended to
 *              GITHUB_STEP_SUMMARY, result/exit-code/report in GITHUB_OUTPUT
 *   publish    one sticky pull-request comment and a commit status through
 *              the REST API; a read-only token (a fork) keeps everything
 *              else and says how to use the fork-safe mode
 */
#include "cli/commands.h"
#include "cli/revisions.h"
#include "cli/publish.h"
#include "cli/session.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/fsio.h"
#include "common/rng.h"
#include "github/actions.h"
#include "github/event.h"
#include "github/http.h"
#include "github/publish.h"
#include "render/format.h"
#include "render/render.h"
#include "suite/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static int check_publish_flags(const char *cmd, struct publish_flags *p,
			       enum cli_verdict_as *verdict)
{
	if (!p->comment)
		p->comment = "true";
	if (strcmp(p->comment, "true") && strcmp(p->comment, "false"))
		return cli_usagef(cmd, "--comment \"%s\": expected true or false", p->comment);
	if (p->accept_label && !*p->accept_label)
		return cli_usagef(cmd, "--accept-label must not be empty");
	return cli_verdict_as_parse(cmd, p->verdict_as, verdict);
}

/* ---- workflow commands --------------------------------------------------- */

static void emit(const struct strbuf *sb)
{
	fwrite(sb->buf, 1, sb->len, stdout);
}

static void annotate(enum github_annotation_level level, const char *file, unsigned line,
		     const char *title, const char *message)
{
	struct github_annotation a = {
		.level = level, .file = file, .line = line, .title = title, .message = message
	};
	struct strbuf sb;

	strbuf_init(&sb, 0);
	github_actions_annotation(&a, &sb);
	emit(&sb);
	strbuf_release(&sb);
}

/* Where a command was written, for the annotation's file and line. */
static void command_place(const struct session *s, const char *suite_name, const char *bench,
			  const char *cmd, const char **file, unsigned *line)
{
	size_t i, j, k;

	*file = NULL;
	*line = 0;
	for (i = 0; i < s->suites.count; i++) {
		const struct suite *st = s->suites.v[i];
		if (strcmp(st->name, suite_name))
			continue;
		*file = st->path;
		for (j = 0; j < st->benchmark_count; j++) {
			if (strcmp(st->benchmarks[j].name, bench))
				continue;
			for (k = 0; k < st->benchmarks[j].command_count; k++)
				if (!strcmp(st->benchmarks[j].commands[k].name, cmd))
					*line = st->benchmarks[j].commands[k].pos.line;
		}
	}
}

static void annotate_command(const struct session *s, const struct results_suite *su,
			     const struct results_benchmark *b, const struct results_command *c)
{
	struct strbuf msg = STRBUF_INIT;
	const char *file, *title;
	unsigned line;
	size_t i;

	command_place(s, su->name, b->name, c->name, &file, &line);
	for (i = 0; i < c->n_comparisons; i++) {
		const struct comparison *cmp = &c->comparisons[i];
		if (cmp->derived)
			continue;
		strbuf_reset(&msg);
		strbuf_addf(&msg, "%s › %s: ", b->name, c->name);
		cli_comparison_text(cmp, &msg);
		if (cmp->verdict == VERDICT_REGRESSION)
			annotate(cmp->gate && !cmp->accepted ? GITHUB_ANNOTATION_ERROR
							     : GITHUB_ANNOTATION_NOTICE,
				 file, line, cli_regression_title(cmp), msg.buf);
		else if (cmp->verdict == VERDICT_INCONCLUSIVE && cmp->gate)
			annotate(GITHUB_ANNOTATION_WARNING, file, line,
				 "himorime: inconclusive comparison", msg.buf);
	}
	for (i = 0; i < c->n_budgets; i++) {
		strbuf_reset(&msg);
		title = cli_budget_note(b, c, &c->budgets[i], &msg);
		if (title)
			annotate(GITHUB_ANNOTATION_ERROR, file, line, title, msg.buf);
	}
	strbuf_reset(&msg);
	title = cli_error_note(b, c, &msg);
	if (title)
		annotate(GITHUB_ANNOTATION_ERROR, file, line, title, msg.buf);
	strbuf_release(&msg);
}

static void annotate_all(const struct session *s)
{
	const struct results *doc = s->doc;
	size_t i, j, k;

	for (i = 0; i < doc->n_suites; i++) {
		const struct results_suite *su = &doc->suites[i];
		if (su->error.present)
			annotate(GITHUB_ANNOTATION_ERROR, su->file, 0,
				 "himorime: benchmark could not run",
				 su->error.message ? su->error.message : "");
		if (su->new_in_head)
			annotate(GITHUB_ANNOTATION_NOTICE, su->file, 0,
				 "himorime: suite new in this revision",
				 "measured on head only and judged like a run");
		for (j = 0; j < su->n_benchmarks; j++) {
			const struct results_benchmark *b = &su->benchmarks[j];
			if (b->error.present)
				annotate(GITHUB_ANNOTATION_ERROR, su->file, 0,
					 "himorime: benchmark could not run",
					 b->error.message ? b->error.message : "");
			for (k = 0; k < b->n_commands; k++)
				annotate_command(s, su, b, &b->commands[k]);
		}
	}
}

/* ---- ci ------------------------------------------------------------------- */

struct publish_ctx {
	const struct github_event *ev;
	const struct publish_flags *pf;
	const char *token;
	const char *json_path;
	struct cli_check *check;     /* the check run, in_progress from the start */
	enum cli_verdict_as verdict; /* --verdict-as */
};

static void write_outputs(const struct session *s, const char *json_path, int exit_code);

/* The comment and the status (docs/github-actions.md): `--comment false`
 * sends no request at all; in Actions without a token nothing is published
 * and one notice says what to set; the gate's exit code stays. */
static int publish(const struct session *s, const struct publish_ctx *c)
{
	if (!strcmp(c->pf->comment, "false"))
		return EXIT_OK;
	if (!c->token && !c->pf->dry_run) {
		annotate(GITHUB_ANNOTATION_NOTICE, NULL, 0, "himorime: nothing published",
			 "no GitHub token (GITHUB_TOKEN is empty, as on pull requests from forks): "
			 "no comment and no status were posted. Set the action's github-token "
			 "input (or GITHUB_TOKEN) to a token with pull-requests: write and "
			 "statuses: write, or post from a workflow_run workflow with 'himorime "
			 "comment' (docs/github-actions.md)");
		return EXIT_OK;
	}
	return cli_publish(s->doc, c->ev,
			   &(struct cli_publish_request){ .comment = true,
							  .dry_run = c->pf->dry_run,
							  .token = c->token,
							  .verdict_as = c->verdict,
							  .check = c->check });
}

/* Whether the end will send requests: then the check run goes in_progress
 * when the comparison starts (docs/github-actions.md, "The check run"). */
static bool will_publish(const struct publish_ctx *c, const struct github_event *ev)
{
	const char *repo = getenv("GITHUB_REPOSITORY");

	return strcmp(c->pf->comment, "false") && c->token && !c->pf->dry_run && repo && *repo &&
	       ev->status_sha[0] && c->verdict != CLI_VERDICT_STATUS;
}

/* The check run of the suites about to be compared, in_progress. */
static void start_check(const struct session *s, bool **selected, const struct github_event *ev,
			const struct publish_ctx *c)
{
	const char **names = xcalloc(s->suites.count + 1, sizeof(*names));
	size_t i, k, n = 0;

	for (i = 0; i < s->suites.count; i++)
		for (k = 0; k < s->suites.v[i]->benchmark_count; k++)
			if (selected[i][k]) {
				names[n++] = s->suites.v[i]->name;
				break;
			}
	cli_check_start(names, n, ev, c->token, c->check);
	free(names);
}

/* report.error_conclusion of every suite: for a check run that stops early. */
static bool errors_neutral(const struct session *s)
{
	size_t i;

	for (i = 0; i < s->suites.count; i++)
		if (!s->suites.v[i]->error_conclusion_neutral)
			return false;
	return s->suites.count > 0;
}

/* After the report is written: the comment and the status, then the step's
 * outputs, once, with the code the process exits with. A publishing failure
 * other than a read-only token is exit 4: the measurement stands in the
 * report, but the job must not look green. */
static int publish_step(struct session *s, const struct publish_ctx *c)
{
	int code = publish(s, c);

	write_outputs(s, c->json_path, code != EXIT_OK ? code : s->doc->summary.exit_code);
	return code;
}

struct base_choice {
	const char *rev;
	const char *source;
};

static int choose_base(const char *against, struct github_event *ev, struct base_choice *out)
{
	const char *env_ref = getenv("HIMORIME_BASE_REF");
	const char *name = getenv("GITHUB_EVENT_NAME");
	const char *path = getenv("GITHUB_EVENT_PATH");
	struct err err = ERR_INIT;
	int rc = 0;

	if (name && path) {
		rc = github_event_load(ev, name, path, getenv("GITHUB_SHA"), &err);
		if (rc < 0 && !(ev->creates_branch && (against || (env_ref && *env_ref))))
			return cli_fail(&err);
	}
	if (against) {
		out->rev = against;
		out->source = "--against";
	} else if (env_ref && *env_ref) {
		out->rev = env_ref;
		out->source = "HIMORIME_BASE_REF";
	} else if (ev->base_sha[0]) {
		out->rev = ev->base_sha;
		out->source = "event";
	} else {
		return cli_usagef("ci",
				  "cannot tell the base revision: pass --against REV, set "
				  "HIMORIME_BASE_REF, or run on a pull_request, merge_group or "
				  "push event");
	}
	return EXIT_OK;
}

/* On pull_request, actions/checkout checks out the merge of head into
 * base; its first parent should be the event's base. Only a merge says
 * anything about that: a checkout of the head itself (ref: head_sha) has
 * the branch's own commits as parents. */
static void warn_merge_parent(struct revisions *rv, const struct github_event *ev)
{
	struct vcs_sha parent, second;
	struct err err = ERR_INIT;

	if (ev->kind != GITHUB_EVENT_PULL_REQUEST || !ev->base_sha[0])
		return;
	if (vcs_resolve(rv->vcs, "HEAD^2", &second, &err) < 0 ||
	    vcs_resolve(rv->vcs, "HEAD^1", &parent, &err) < 0)
		return;
	if (strcmp(parent.hex, ev->base_sha))
		fprintf(stderr,
			"himorime: warning: the checked-out merge's first parent is %.12s, not the "
			"pull request's base %.12s: the base moved since the merge was made\n",
			parent.hex, ev->base_sha);
}

/* result, exit-code, report (the file of --output, any format; empty
 * without) and json (the JSON report ci always writes). */
static void write_outputs(const struct session *s, const char *json_path, int exit_code)
{
	const char *path = getenv("GITHUB_OUTPUT");
	struct rng rng;
	struct err err = ERR_INIT;
	char code[16];
	const char *result;

	if (!path || !*path)
		return;
	cli_outputs_tried();
	rng_init(&rng, rng_fresh_seed(), "output");
	result = result_state_name(runner_worst_result(s->doc));
	/* the story of the headline: a regression, accepted, that does not fail
	 * the job, comes before anything else that does not fail it either */
	if (s->doc->summary.accepted_regressions &&
	    runner_worst_result(s->doc) < RESULT_OVER_BUDGET)
		result = "accepted-regression";
	snprintf(code, sizeof(code), "%d", exit_code);
	if (github_actions_output_append(path, &rng, "result", result, &err) < 0 ||
	    github_actions_output_append(path, &rng, "exit-code", code, &err) < 0 ||
	    github_actions_output_append(path, &rng, "report", s->out.output ? s->out.output : "",
					 &err) < 0 ||
	    github_actions_output_append(path, &rng, "json", json_path, &err) < 0)
		fprintf(stderr, "himorime: warning: %s\n", err.msg);
}

static bool json_output(const struct session *s)
{
	return s->out.output && !strcmp(s->out.format, "json");
}

/* Where the JSON report goes: the --output file when it is JSON, else
 * RUNNER_TEMP, else a private directory under TMPDIR: never inside the
 * measured tree unless the user names the path. NULL after a warning. */
static char *json_path_for(const struct session *s)
{
	const char *dir = getenv("RUNNER_TEMP");
	struct err err = ERR_INIT;
	char *made = NULL, *path;

	if (json_output(s))
		return xstrdup(s->out.output);
	if (dir && *dir)
		return xasprintf("%s/himorime-report.json", dir);
	if (fsio_mkdtemp("himorime-report-", &made, &err) < 0) {
		fprintf(stderr, "himorime: warning: %s\n", err.msg);
		return NULL;
	}
	path = xasprintf("%s/himorime-report.json", made);
	free(made);
	return path;
}

/* The JSON report ci always writes (the `json` output), and where it went. */
static char *write_json_report(const struct session *s)
{
	struct err err = ERR_INIT;
	char *path = json_path_for(s);

	if (!path || json_output(s))
		return path;
	if (results_write_file(s->doc, path, &err) < 0) {
		fprintf(stderr, "himorime: warning: %s\n", err.msg);
		free(path);
		return NULL;
	}
	fprintf(stderr, "himorime: the JSON report is in %s\n", path);
	return path;
}

/* In Actions, the token is masked in the log before anything can print it. */
static void mask_token(const char *token)
{
	struct strbuf mask;

	if (!token || !cli_in_actions())
		return;
	strbuf_init(&mask, 0);
	github_actions_add_mask(token, &mask);
	emit(&mask);
	strbuf_release(&mask);
}

/* Chooses the base, opens both revisions and measures the selected
 * benchmarks on them into s->doc. */
static int measure_revisions(struct session *s, const char *against, struct revisions_request *req,
			     struct github_event *ev, bool **selected,
			     const struct publish_ctx *ctx)
{
	struct base_choice base = { .rev = NULL, .source = NULL };
	struct revisions rv;
	int code;

	memset(&rv, 0, sizeof(rv));
	code = choose_base(against, ev, &base);
	if (code != EXIT_OK)
		return code;
	req->against = base.rev;
	req->base_source = base.source;
	/* the pull request's base branch, when the base is the event's */
	if (!strcmp(base.source, "event"))
		req->base_name = ev->base_ref;
	code = session_select_check(s, selected);
	if (code == EXIT_OK)
		code = revisions_open(s, req, &rv);
	if (code == EXIT_OK)
		code = revisions_plan(s, &rv, selected);
	if (code == EXIT_OK) {
		warn_merge_parent(&rv, ev);
		if (will_publish(ctx, ev))
			start_check(s, selected, ev, ctx);
		code = session_runner(s, rv.hidden, rv.n_hidden);
	}
	if (code == EXIT_OK)
		code = revisions_measure(s, &rv, selected);
	revisions_release(&rv);
	return code;
}

/* After measuring: accepted regressions, the summary, the JSON report and the
 * annotations; then the session's end (session.h) with publishing between
 * the report written and the last line. */
static int finish(struct session *s, const struct github_event *ev, struct publish_ctx *ctx,
		  char **json_path)
{
	int code, written, published;
	uint64_t t;

	if (s->plan->accept.applies)
		runner_accept_regressions(s->doc);
	if (!s->out.summary && getenv("GITHUB_STEP_SUMMARY") && *getenv("GITHUB_STEP_SUMMARY"))
		s->out.summary = getenv("GITHUB_STEP_SUMMARY");
	/* the commit this report is about, for `comment` to check against its
	 * own event before it posts the report (docs/github-actions.md) */
	if (ev->status_sha[0] && s->doc->git.present)
		results_set_str(&s->doc->git.status_sha, ev->status_sha);
	cli_summarize(s->doc, s->fail_on_inconclusive);
	*json_path = write_json_report(s);
	if (cli_in_actions()) {
		annotate_all(s);
		s->out.quote_workflow_commands = true;
	}
	ctx->ev = ev;
	ctx->json_path = *json_path ? *json_path : "";
	code = session_verdicts(s);
	written = session_write(s);
	if (written != EXIT_OK)
		return written;
	t = clock_monotonic_ns();
	published = publish_step(s, ctx);
	session_phase(s, RESULTS_PHASE_PUBLISHING, t);
	if (published != EXIT_OK) {
		session_print_timings(s);
		return cli_exit(published,
				"the comment, check run or status could not be published");
	}
	return session_conclude(s, code);
}

/* Whether the event's pull request carries a label, for the plan. */
static bool has_label(const void *ev, const char *label)
{
	return github_event_has_label(ev, label) != 0;
}

int cmd_ci(struct session *s, struct cmd_args *a)
{
	struct publish_flags *pf = &a->f.ci.publish;
	struct cli_check check = CLI_CHECK_INIT;
	struct revisions_request req = { .suite_from = REVISIONS_SUITE_OWN };
	struct github_event ev;
	struct publish_ctx ctx = { .pf = pf };
	bool **selected = NULL;
	char *json_path = NULL;
	int code;

	github_event_init(&ev);
	code = check_publish_flags("ci", pf, &ctx.verdict);
	if (code == EXIT_OK)
		code = revisions_suite_from("ci", a->f.ci.suite_from, &req.suite_from);
	if (code != EXIT_OK)
		goto done;
	s->out.no_color = true;
	/* the accept label's policy is the plan's, once the event is loaded */
	s->flags.accept_label = pf->accept_label;
	s->flags.labelled = has_label;
	s->flags.labels_ctx = &ev;
	ctx.check = &check;
	ctx.token = cli_token();
	mask_token(ctx.token);
	/* Outside Actions without a token there is nowhere to publish: show. */
	if (!ctx.token && !cli_in_actions())
		pf->dry_run = true;
	/* libcurl before anything of the suite runs (github/curl_api.h), and
	 * only when publish() will make a client (cli_publish needs a
	 * repository to address). */
	if (strcmp(pf->comment, "false") && (ctx.token || pf->dry_run) &&
	    getenv("GITHUB_REPOSITORY") && *getenv("GITHUB_REPOSITORY"))
		github_http_preload();
	selected = session_selection(s);
	code = measure_revisions(s, a->f.ci.against, &req, &ev, selected, &ctx);
	if (code == EXIT_OK)
		code = finish(s, &ev, &ctx, &json_path);
	/* never left in_progress: a run that stopped before publishing says so */
	cli_check_abandon(&check, &ev, ctx.token, code, errors_neutral(s));
done:
	cli_check_release(&check);
	session_selection_free(selected, s->suites.count);
	free(json_path);
	github_event_release(&ev);
	return code;
}
