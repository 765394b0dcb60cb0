/*
 * The check run of a results document: what github/checks.h sends, made
 * from the document alone, so that `ci` and the fork-safe `comment` (which
 * has only the report) publish the same check run.
 *
 *   conclusion   success; neutral when only inconclusive comparisons keep it
 *                from passing; failure for regressions and broken budgets;
 *                for a comparison that failed to run (exit 4 or 6) failure,
 *                or neutral when every suite's report.error_conclusion says
 *                so; never action_required
 *   title        the comment's headline
 *   summary      the comment's top part (above its first <details>); for a
 *                pull request from a fork, first a line saying that the
 *                figures come from the fork's own job
 *   text         the whole report (the job summary), cut under 65,535
 *                characters with a note
 *   annotations  one per regression, broken budget and error, on the suite
 *                file at the line of the command (or benchmark) that caused
 *                it (the document's `line`), with the change and its interval
 */
#include "cli/check_run.h"

#include "cli/cli.h"
#include "common/alloc.h"
#include "github/publish.h"
#include "render/format.h"
#include "render/render.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* The annotations of one document; the strings are owned here. */
struct annotations {
	struct github_check_annotation *v;
	size_t nr, alloc;
};

int cli_verdict_as_parse(const char *cmd, const char *text, enum cli_verdict_as *out)
{
	static const struct {
		const char *name;
		enum cli_verdict_as value;
	} table[] = {
		{ .name = "both", .value = CLI_VERDICT_BOTH },
		{ .name = "status", .value = CLI_VERDICT_STATUS },
		{ .name = "check", .value = CLI_VERDICT_CHECK },
	};
	struct err err = ERR_INIT;
	size_t i;

	*out = CLI_VERDICT_BOTH;
	if (!text)
		return EXIT_OK;
	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (!strcmp(text, table[i].name)) {
			*out = table[i].value;
			return EXIT_OK;
		}
	err_set(&err, ERR_USAGE, "--verdict-as \"%s\": expected status, check or both", text);
	return cli_usage_error(cmd, &err);
}

void cli_selection_key(const char *const *names, size_t n, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addch(out, ',');
		strbuf_adds(out, names[i] ? names[i] : "");
	}
	if (!n)
		strbuf_adds(out, "none");
}

/* ---- the conclusion ------------------------------------------------------ */

static bool all_neutral_on_errors(const struct results *doc)
{
	size_t i;

	for (i = 0; i < doc->n_suites; i++)
		if (!doc->suites[i].error_conclusion_neutral)
			return false;
	return doc->n_suites > 0;
}

static enum github_conclusion conclusion_for(const struct results *doc)
{
	const struct results_summary *s = &doc->summary;

	switch (s->exit_code) {
	case EXIT_OK:
		return s->results[RESULT_INCONCLUSIVE] ? GITHUB_CONCLUSION_NEUTRAL
						       : GITHUB_CONCLUSION_SUCCESS;
	case EXIT_EXEC:
	case EXIT_METRIC:
		/* a regression or a broken budget is never hidden behind an error */
		if (!s->results[RESULT_REGRESSION] && !s->results[RESULT_OVER_BUDGET] &&
		    all_neutral_on_errors(doc))
			return GITHUB_CONCLUSION_NEUTRAL;
		return GITHUB_CONCLUSION_FAILURE;
	default:
		return GITHUB_CONCLUSION_FAILURE;
	}
}

/* ---- annotations ----------------------------------------------------------- */

/* A suite file as the repository names it: without "./" and doubled
 * slashes, and relative to GITHUB_WORKSPACE when it lies under it (an
 * absolute path elsewhere is kept, and github/checks.c annotates nothing
 * there). */
static char *repo_path(const char *file)
{
	const char *ws = getenv("GITHUB_WORKSPACE");
	struct strbuf sb;
	const char *p = file;
	size_t n;

	if (ws && *ws && *p == '/') {
		n = strlen(ws);
		while (n && ws[n - 1] == '/')
			n--;
		if (n && !strncmp(p, ws, n) && p[n] == '/')
			p += n + 1;
	}
	strbuf_init(&sb, 0);
	if (*p == '/') /* an absolute path elsewhere stays one: no annotation */
		strbuf_addch(&sb, '/');
	while (*p == '/')
		p++;
	while (*p) {
		if (p[0] == '/' && p[1] == '/') {
			p++;
			continue;
		}
		if (p[0] == '.' && p[1] == '/' && (sb.len == 0 || sb.buf[sb.len - 1] == '/')) {
			p += 2;
			continue;
		}
		strbuf_addch(&sb, *p++);
	}
	return strbuf_detach(&sb, NULL);
}

static void add(struct annotations *list, const char *path, uint32_t line,
		enum github_check_level level, const char *title, struct strbuf *message)
{
	struct github_check_annotation *a;

	list->v = xgrow(list->v, &list->alloc, list->nr + 1, sizeof(*list->v));
	a = &list->v[list->nr++];
	*a = (struct github_check_annotation){
		.path = xstrdup(path),
		.line = line ? line : 1,
		.level = level,
		.title = title,
		.message = strbuf_detach(message, NULL),
	};
}

static void annotations_release(struct annotations *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++) {
		free((char *)list->v[i].path);
		free((char *)list->v[i].message);
	}
	free(list->v);
}

void cli_comparison_text(const struct comparison *c, struct strbuf *out)
{
	strbuf_adds(out, metric_info(c->metric)->name);
	if (c->has_estimate) {
		strbuf_addch(out, ' ');
		fmt_change(out, c->change_percent, false);
		strbuf_adds(out, " (");
		fmt_change(out, c->ci_low_percent, false);
		strbuf_adds(out, " … ");
		fmt_change(out, c->ci_high_percent, false);
		strbuf_addf(out, ", %.0f%% confidence)", c->confidence * 100);
	}
	if (c->reason[0])
		strbuf_addf(out, ": %s", c->reason);
}

void cli_budget_text(const struct results_command *c, const struct results_budget *b,
		     struct strbuf *out)
{
	const struct budget_result *r = &b->result;
	char agg[32];

	strbuf_adds(out, metric_info(r->metric)->name);
	if (r->has_actual) {
		if (aggregation_name(&r->aggregation, agg, sizeof(agg)))
			strbuf_addf(out, " %s", agg);
		strbuf_addch(out, ' ');
		fmt_metric(out, r->metric, r->actual, c->head.metrics[r->metric].work.unit);
		strbuf_addch(out, ',');
	}
	strbuf_addf(out, " budget %s", b->text ? b->text : "");
	if (r->reason[0])
		strbuf_addf(out, ": %s", r->reason);
}

const char *cli_regression_title(const struct comparison *c)
{
	if (c->gate && !c->accepted)
		return "himorime: performance regression";
	return c->accepted ? "himorime: performance regression (accepted)"
			   : "himorime: performance regression (not gated)";
}

const char *cli_budget_note(const struct results_benchmark *b, const struct results_command *c,
			    const struct results_budget *bu, struct strbuf *msg)
{
	if (bu->result.status != BUDGET_FAIL && !bu->result.metric_error)
		return NULL;
	strbuf_addf(msg, "%s › %s: ", b->name, c->name);
	cli_budget_text(c, bu, msg);
	return bu->result.metric_error ? "himorime: required budget could not be assessed"
				       : "himorime: performance budget exceeded";
}

const char *cli_error_note(const struct results_benchmark *b, const struct results_command *c,
			   struct strbuf *msg)
{
	const struct results_error *e = c->head.error.present ? &c->head.error : &c->base.error;

	if (!e->present)
		return NULL;
	strbuf_addf(msg, "%s › %s (%s): %s", b->name, c->name,
		    c->head.error.present ? "head" : "base", e->message ? e->message : "");
	return c->result == RESULT_METRIC_ERROR ? "himorime: metric could not be measured"
						: "himorime: benchmark could not run";
}

static void command_regressions(struct annotations *list, const char *path,
				const struct results_benchmark *b, const struct results_command *c)
{
	size_t i;

	for (i = 0; i < c->n_comparisons; i++) {
		const struct comparison *k = &c->comparisons[i];
		struct strbuf msg;
		bool fails = k->gate && !k->accepted;

		if (k->derived || k->verdict != VERDICT_REGRESSION)
			continue;
		strbuf_init(&msg, 0);
		strbuf_addf(&msg, "%s › %s: ", b->name, c->name);
		cli_comparison_text(k, &msg);
		add(list, path, c->line, fails ? GITHUB_CHECK_FAILURE : GITHUB_CHECK_WARNING,
		    cli_regression_title(k), &msg);
	}
}

static void command_budgets(struct annotations *list, const char *path,
			    const struct results_benchmark *b, const struct results_command *c)
{
	size_t i;

	for (i = 0; i < c->n_budgets; i++) {
		struct strbuf msg = STRBUF_INIT;
		const char *title = cli_budget_note(b, c, &c->budgets[i], &msg);

		if (title)
			add(list, path, c->line, GITHUB_CHECK_FAILURE, title, &msg);
	}
}

static void command_error(struct annotations *list, const char *path,
			  const struct results_benchmark *b, const struct results_command *c)
{
	struct strbuf msg = STRBUF_INIT;
	const char *title = cli_error_note(b, c, &msg);

	if (title)
		add(list, path, c->line, GITHUB_CHECK_FAILURE, title, &msg);
}

static void entity_error(struct annotations *list, const char *path, uint32_t line,
			 const struct results_error *e)
{
	struct strbuf msg;

	if (!e->present)
		return;
	strbuf_init(&msg, 0);
	strbuf_adds(&msg, e->message ? e->message : "");
	add(list, path, line, GITHUB_CHECK_FAILURE, "himorime: benchmark could not run", &msg);
}

static void collect(const struct results *doc, struct annotations *list)
{
	size_t i, j, k;

	for (i = 0; i < doc->n_suites; i++) {
		const struct results_suite *su = &doc->suites[i];
		char *path;

		if (!su->file || !*su->file)
			continue; /* nowhere to put them: the text has them */
		path = repo_path(su->file);
		entity_error(list, path, 1, &su->error);
		for (j = 0; j < su->n_benchmarks; j++) {
			const struct results_benchmark *b = &su->benchmarks[j];
			entity_error(list, path, b->line, &b->error);
			for (k = 0; k < b->n_commands; k++) {
				command_regressions(list, path, b, &b->commands[k]);
				command_budgets(list, path, b, &b->commands[k]);
				command_error(list, path, b, &b->commands[k]);
			}
		}
		free(path);
	}
}

/* ---- title, summary and text ------------------------------------------------- */

/* The comment's headline (its first line, without "### ") and its top part,
 * up to the first <details>. */
static int top_part(const struct results *doc, const char *run_url, struct strbuf *title,
		    struct strbuf *summary, struct err *err)
{
	struct render_options ro = RENDER_OPTIONS_INIT;
	struct strbuf body;
	const char *p, *nl, *fold;
	int rc;

	ro.comment = true;
	ro.hide_footer = true;
	ro.run_url = run_url;
	strbuf_init(&body, 0);
	rc = render_to(doc, RENDER_GITHUB, &ro, &body, err);
	if (rc < 0)
		goto done;
	p = body.buf;
	nl = strchr(p, '\n');
	if (!strncmp(p, "### ", 4))
		p += 4;
	strbuf_add(title, p, nl ? (size_t)(nl - p) : strlen(p));
	p = nl ? nl + 1 : p + strlen(p);
	while (*p == '\n')
		p++;
	fold = strstr(p, "\n<details>");
	strbuf_add(summary, p, fold ? (size_t)(fold - p) + 1 : strlen(p));
	while (summary->len && summary->buf[summary->len - 1] == '\n')
		strbuf_setlen(summary, summary->len - 1);
	strbuf_addch(summary, '\n');
done:
	strbuf_release(&body);
	return rc;
}

/* For a pull request from a fork: whose figures these are. The repository
 * name is checked "owner/name" of [A-Za-z0-9._-]: safe in a code span. */
static void fork_note(const struct github_event *ev, struct strbuf *out)
{
	strbuf_addf(out,
		    "> **Advisory (fork):** these figures come from the fork's own job (`%s`): "
		    "its code made this report and could have forged it. Never make this check "
		    "required for pull requests from forks.\n\n",
		    ev->head_repo ? ev->head_repo : "a deleted repository");
}

struct check_texts {
	struct strbuf name, key, title, summary, text;
	struct annotations annotations;
};

static void texts_init(struct check_texts *t)
{
	strbuf_init(&t->name, 0);
	strbuf_init(&t->key, 0);
	strbuf_init(&t->title, 0);
	strbuf_init(&t->summary, 0);
	strbuf_init(&t->text, 0);
	memset(&t->annotations, 0, sizeof(t->annotations));
}

static void texts_release(struct check_texts *t)
{
	strbuf_release(&t->name);
	strbuf_release(&t->key);
	strbuf_release(&t->title);
	strbuf_release(&t->summary);
	strbuf_release(&t->text);
	annotations_release(&t->annotations);
}

static void names_of(const struct results *doc, struct check_texts *t)
{
	const char **names = xcalloc(doc->n_suites + 1, sizeof(*names));
	size_t i;

	for (i = 0; i < doc->n_suites; i++)
		names[i] = doc->suites[i].name;
	github_check_name(names, doc->n_suites, &t->name);
	cli_selection_key(names, doc->n_suites, &t->key);
	free(names);
}

static int make_texts(const struct results *doc, const struct github_event *ev, const char *run_url,
		      struct check_texts *t, struct err *err)
{
	struct render_options ro = RENDER_OPTIONS_INIT;
	struct strbuf top;
	int rc;

	names_of(doc, t);
	collect(doc, &t->annotations);
	if (github_event_from_fork(ev))
		fork_note(ev, &t->summary);
	strbuf_init(&top, 0);
	rc = top_part(doc, run_url, &t->title, &top, err);
	strbuf_add(&t->summary, top.buf, top.len);
	strbuf_release(&top);
	if (t->annotations.nr > GITHUB_CHECK_MAX_ANNOTATIONS)
		strbuf_addf(&t->summary,
			    "\nThe first %d of %zu problems are annotated; the text below has "
			    "them all.\n",
			    GITHUB_CHECK_MAX_ANNOTATIONS, t->annotations.nr);
	ro.run_url = run_url;
	ro.max_bytes = GITHUB_CHECK_TEXT_MAX_BYTES;
	if (rc == 0)
		rc = render_to(doc, RENDER_GITHUB, &ro, &t->text, err);
	return rc;
}

/* ---- start, finish, abandon ------------------------------------------------- */

static char *run_url_here(void)
{
	return github_run_url(getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"),
			      getenv("GITHUB_RUN_ID"));
}

static int client(const char *token, struct github_http **out, struct err *err)
{
	struct github_http_options ho = GITHUB_HTTP_OPTIONS_INIT;

	ho.api_url = getenv("GITHUB_API_URL");
	ho.token = token;
	return github_http_new(out, &ho, err);
}

static void keep_refusal(struct cli_check *check, const struct github_check_result *res,
			 const struct err *err)
{
	if (!res->refused)
		return;
	check->refused = true;
	snprintf(check->why, sizeof(check->why), "%s", err->msg);
}

void cli_check_start(const char *const *suites, size_t n, const struct github_event *ev,
		     const char *token, struct cli_check *check)
{
	struct github_check_options o = GITHUB_CHECK_OPTIONS_INIT;
	struct github_check_result res;
	struct github_http *http = NULL;
	struct strbuf name, key, summary;
	struct err err = ERR_INIT;
	char *run_url = run_url_here();

	memset(&res, 0, sizeof(res));
	strbuf_init(&name, 0);
	strbuf_init(&key, 0);
	strbuf_init(&summary, 0);
	github_check_name(suites, n, &name);
	cli_selection_key(suites, n, &key);
	strbuf_adds(&summary, "Comparing this commit with its base; the verdict comes when the run "
			      "ends");
	if (run_url)
		strbuf_addf(&summary, ": [the run](%s)", run_url);
	strbuf_adds(&summary, ".\n");
	o.repository = getenv("GITHUB_REPOSITORY");
	o.sha = ev->status_sha;
	o.name = name.buf;
	o.selection = key.buf;
	o.details_url = run_url;
	o.title = "himorime is measuring";
	o.summary = summary.buf;
	if (client(token, &http, &err) == 0 && github_check_start(http, &o, &res, &err) == 0) {
		check->started = true;
		check->run = res.run;
		check->name = strbuf_detach(&name, NULL);
		check->key = strbuf_detach(&key, NULL);
	} else if (res.refused) {
		keep_refusal(check, &res, &err);
	} else {
		fprintf(stderr,
			"himorime: warning: the check run could not be started (%s): it is "
			"tried again at the end\n",
			err.msg);
	}
	github_http_free(http);
	free(run_url);
	strbuf_release(&name);
	strbuf_release(&key);
	strbuf_release(&summary);
}

void cli_check_release(struct cli_check *check)
{
	free(check->name);
	free(check->key);
	check->name = check->key = NULL;
}

int cli_check_finish(struct github_http *http, const struct results *doc,
		     const struct github_event *ev, const char *run_url, struct cli_check *check,
		     struct strbuf *dry_run, struct err *err)
{
	struct github_check_options o = GITHUB_CHECK_OPTIONS_INIT;
	struct github_check_result res;
	struct check_texts t;
	int rc;

	memset(&res, 0, sizeof(res));
	texts_init(&t);
	rc = make_texts(doc, ev, run_url, &t, err);
	if (rc < 0)
		goto done;
	o.repository = getenv("GITHUB_REPOSITORY");
	o.sha = ev->status_sha;
	o.name = t.name.buf;
	o.selection = t.key.buf;
	o.details_url = run_url;
	o.title = t.title.buf;
	o.summary = t.summary.buf;
	o.text = t.text.buf;
	o.conclusion = conclusion_for(doc);
	o.annotations = t.annotations.v;
	o.n_annotations = t.annotations.nr;
	o.dry_run = dry_run;
	rc = github_check_finish(http, &o, check->started ? &check->run : NULL, &res, err);
	keep_refusal(check, &res, err);
	check->done = true;
done:
	texts_release(&t);
	return rc;
}

void cli_check_abandon(struct cli_check *check, const struct github_event *ev, const char *token,
		       int code, bool neutral)
{
	struct github_check_options o = GITHUB_CHECK_OPTIONS_INIT;
	struct github_check_result res;
	struct github_http *http = NULL;
	struct err err = ERR_INIT;
	char *run_url, *title, *summary;

	if (!check->started || check->done)
		return;
	check->done = true;
	run_url = run_url_here();
	title = xasprintf("himorime stopped before its report (exit %d)", code);
	summary = xasprintf("The comparison stopped before it could report (exit %d): the "
			    "job's log says why.\n",
			    code);
	o.repository = getenv("GITHUB_REPOSITORY");
	o.sha = ev->status_sha;
	o.name = check->name;
	o.selection = check->key;
	o.details_url = run_url;
	o.title = title;
	o.summary = summary;
	o.conclusion = neutral && (code == EXIT_EXEC || code == EXIT_METRIC)
			       ? GITHUB_CONCLUSION_NEUTRAL
			       : GITHUB_CONCLUSION_FAILURE;
	if (client(token, &http, &err) < 0 ||
	    github_check_finish(http, &o, &check->run, &res, &err) < 0)
		fprintf(stderr, "himorime: warning: the check run could not be completed: %s\n",
			err.msg);
	github_http_free(http);
	free(summary);
	free(title);
	free(run_url);
}
