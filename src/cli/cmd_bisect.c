/*
 * `himorime bisect --good REV --bad REV [--metric M] [flags] [PATH...]`:
 * binary search over the first-parent line from the good commit to the bad
 * one (docs/sweeps.md, "himorime bisect"). Bad is first measured against
 * good: each compared command's change to locate. Then each candidate is
 * measured against good and placed nearer good or nearer bad; one that
 * cannot be placed is measured once more at the cap, and if it still cannot,
 * the search ends with the smallest range it has proven. Every comparison is
 * planned at alpha / ceil(log2 N) for N candidates, so the whole search
 * keeps the error bound. On a count (instructions, allocations,
 * allocated_bytes, artifact_size) each comparison is the counts rule's
 * counted runs instead, exact. What each comparison says is the engine's, by
 * the judge's rule (runner_bisect_outcome); this file walks the line and
 * prints.
 */
#include "cli/commands.h"
#include "cli/revisions.h"
#include "cli/session.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "render/format.h"
#include "suite/suite.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

struct bisect {
	struct session *s;
	struct revisions rv;
	bool **selected;
	enum metric metric;
	struct vcs_tree *good_tree;
	struct vcs_sha good_tree_id; /* its build is kept: built once per bisect */
	unsigned steps;
	/* The last comparison failed only where a metric could not be
	 * measured: exit 6 rather than 4. */
	bool metric_failed;
};

/* What a measurement of the metric came to, and how the line goes on. */
static const char *const states[] = {
	[RUNNER_BISECT_NONE] = "",
	[RUNNER_BISECT_LOCATED] = "located, midpoint ",
	[RUNNER_BISECT_NOT_LOCATED] = "not located",
	[RUNNER_BISECT_GOOD] = "nearer good than the midpoint ",
	[RUNNER_BISECT_BAD] = "nearer bad than the midpoint ",
	[RUNNER_BISECT_UNPLACED] = "not placed",
	[RUNNER_BISECT_NO_PART] = "takes no part: its change was not located",
};

/* What a command's measurement says: "cpu_total +2.1% [-1.0%, +5.3%] at
 * 99.75%, 15 pairs: nearer good than the midpoint +73.2%", or on a count
 * "instructions 0.0% [0.0%, 0.0%] exact, 3 runs: nearer good than ...". */
static void print_measured(const struct bisect *b, const struct runner_bisect_finding *f,
			   struct strbuf *sb)
{
	strbuf_addf(sb, "%s ", metric_info(b->metric)->name);
	if (f->state == RUNNER_BISECT_NO_PART) {
		strbuf_adds(sb, states[f->state]);
		return;
	}
	if (f->has_estimate) {
		fmt_change(sb, f->change_percent, false);
		if (f->has_interval) {
			strbuf_adds(sb, " [");
			fmt_change(sb, f->ci_low_percent, false);
			strbuf_adds(sb, ", ");
			fmt_change(sb, f->ci_high_percent, false);
			strbuf_adds(sb, "]");
		}
		if (f->counts)
			strbuf_addf(sb, " exact, %u run%s: ", f->pairs, f->pairs == 1 ? "" : "s");
		else
			strbuf_addf(sb, " at %.4g%%, %u pairs: ", f->confidence * 100, f->pairs);
	}
	strbuf_adds(sb, states[f->state]);
	if (f->state == RUNNER_BISECT_LOCATED || f->state == RUNNER_BISECT_GOOD ||
	    f->state == RUNNER_BISECT_BAD)
		fmt_change(sb, f->midpoint_percent, false);
	if (f->reason[0])
		strbuf_addf(sb, " (%s)", f->reason);
}

/* One line of a comparison: what a suite, benchmark or command says. */
static void print_finding(const struct bisect *b, const struct runner_bisect_finding *rf)
{
	const struct step_finding *f = &rf->f;
	struct strbuf sb;

	strbuf_init(&sb, 0);
	switch (f->kind) {
	case STEP_SUITE_FAILED:
		strbuf_addf(&sb, "  %s: %s", f->suite, f->message ? f->message : "failed");
		break;
	case STEP_BENCHMARK_FAILED:
		strbuf_addf(&sb, "  %s: failed: %s", f->benchmark,
			    f->message ? f->message : "no message");
		break;
	case STEP_COMMAND_FAILED:
		strbuf_addf(&sb, "  %s › %s: failed: %s", f->benchmark, f->command,
			    f->message ? f->message : "no message");
		break;
	case STEP_NOT_MEASURED:
		strbuf_addf(&sb, "  %s › %s: failed: not measured", f->benchmark, f->command);
		break;
	case STEP_NOT_COMPARED:
		strbuf_addf(&sb, "  %s › %s: ", f->benchmark, f->command);
		if (rf->state == RUNNER_BISECT_NO_PART)
			print_measured(b, rf, &sb);
		else
			strbuf_addf(&sb, "%s not compared", metric_info(b->metric)->name);
		break;
	case STEP_COMPARED:
		strbuf_addf(&sb, "  %s › %s: ", f->benchmark, f->command);
		print_measured(b, rf, &sb);
		break;
	}
	printf("%s\n", sb.buf);
	strbuf_release(&sb);
}

/* Whether every failure among the findings is a metric that could not be
 * measured (and there is one). */
static bool only_metrics_failed(const struct runner_bisect_finding *v, size_t n)
{
	size_t i, failed = 0;

	for (i = 0; i < n; i++) {
		enum step_finding_kind k = v[i].f.kind;
		if (k == STEP_COMPARED || k == STEP_NOT_COMPARED)
			continue;
		if (k != STEP_COMMAND_FAILED || !v[i].metric_error)
			return false;
		failed++;
	}
	return failed > 0;
}

/* A comparison's findings and what it comes to; a step says it. */
static enum step_outcome print_outcome(struct bisect *b, const struct results *doc, bool step)
{
	struct runner_bisect_finding *findings;
	size_t i, n;
	enum step_outcome out = runner_bisect_outcome(b->s->runner, doc, &findings, &n);

	for (i = 0; i < n; i++)
		print_finding(b, &findings[i]);
	b->metric_failed = out == STEP_FAILED && only_metrics_failed(findings, n);
	if (step)
		printf("  => %s\n", step_outcome_name(out));
	free(findings);
	return out;
}

/* The suites measured with `tree` as head against the good commit. */
static int measure_suites(struct bisect *b, struct vcs_tree *tree, const struct vcs_sha *tree_id,
			  struct results *doc, struct err *err)
{
	struct session *s = b->s;
	size_t i;
	int rc = 0;

	/* each comparison has the whole time budget */
	session_budget_start(s);
	for (i = 0; i < s->suites.count && rc == 0; i++) {
		const struct suite *suite = s->suites.v[i];
		char *head = revisions_suite_root(&b->rv, suite, vcs_tree_path(tree));
		char *base = revisions_suite_root(&b->rv, suite, vcs_tree_path(b->good_tree));
		char *fixtures = revisions_suite_root(&b->rv, suite, vcs_workdir(b->rv.vcs));
		if (!head || !base || !fixtures)
			rc = err_set(err, ERR_EXEC, "suite \"%s\" is not inside the repository",
				     suite->path);
		else if (s->plan->suites[i].n_selected) {
			struct runner_roots roots = {
				.head = head,
				.base = base,
				.fixture = fixtures,
				.head_tree = tree_id->hex,
				.base_tree = b->good_tree_id.hex,
			};
			rc = runner_run_suite(s->runner, &s->plan->suites[i], &roots, doc, err);
		}
		free(fixtures);
		free(head);
		free(base);
	}
	return rc;
}

/* One comparison: commit `sha` against the good commit, in the runner's
 * bisect phase, under the title "step 3" (or "bad against good"). */
static enum step_outcome measure(struct bisect *b, const struct vcs_sha *sha, const char *title,
				 int *code)
{
	struct session *s = b->s;
	struct results *doc = results_new(RESULTS_MODE_COMPARE);
	struct vcs_commit_info info;
	struct vcs_tree *tree = NULL;
	struct err err = ERR_INIT, gone = ERR_INIT;
	enum step_outcome out = STEP_FAILED;
	struct vcs_sha tree_id;
	uint64_t t;
	size_t k;
	int rc;

	memset(&info, 0, sizeof(info));
	rc = vcs_commit_info(b->rv.vcs, sha, &info, &err);
	if (rc == 0)
		rc = vcs_tree_id(b->rv.vcs, sha, &tree_id, &err);
	t = clock_monotonic_ns();
	if (rc == 0)
		rc = vcs_materialise(b->rv.vcs, sha, &tree, &err);
	session_phase(s, RESULTS_PHASE_MATERIALISE_HEAD, t);
	if (rc == 0) {
		printf("%s: %.12s %s\n", title, sha->hex, info.subject);
		rc = measure_suites(b, tree, &tree_id, doc, &err);
	}
	if (rc < 0)
		*code = cli_fail(&err);
	else
		out = print_outcome(b, doc, strcmp(title, "bad against good") != 0);
	vcs_tree_remove(tree, &gone);
	vcs_commit_info_release(&info);
	for (k = 0; k < RESULTS_PHASE__COUNT; k++) /* the comparison's phases are the session's */
		s->doc->timings.phase_ns[k] += doc->timings.phase_ns[k];
	results_free(doc);
	return out;
}

/* One step: the candidate placed, or measured once more at the cap when it
 * could not be. */
static enum step_outcome step(struct bisect *b, const struct vcs_sha *sha, int *code)
{
	enum step_outcome out;
	char title[64];

	b->steps++;
	snprintf(title, sizeof(title), "step %u", b->steps);
	runner_bisect(b->s->runner, b->metric, RUNNER_BISECT_STEP);
	out = measure(b, sha, title, code);
	if (out != STEP_UNPLACED || *code != EXIT_OK || runner_interrupted(b->s->runner))
		return out;
	snprintf(title, sizeof(title), "step %u again, one look at the cap", b->steps);
	runner_bisect(b->s->runner, b->metric, RUNNER_BISECT_RECHECK);
	return measure(b, sha, title, code);
}

static void name_commit(struct bisect *b, const char *what, const struct vcs_sha *sha)
{
	struct vcs_commit_info info;
	struct err err = ERR_INIT;

	memset(&info, 0, sizeof(info));
	if (vcs_commit_info(b->rv.vcs, sha, &info, &err) == 0)
		printf("%s %s %s\n", what, sha->hex, info.subject);
	else
		printf("%s %s\n", what, sha->hex);
	vcs_commit_info_release(&info);
}

/* Whether a compared command of a selected benchmark measures m; when none
 * does, *first is the first benchmark with a compared command (NULL: none
 * has one, and the search says so on its own). */
static bool plan_measures(const struct plan *p, enum metric m, const struct suite **suite,
			  const struct benchmark **first)
{
	size_t i, j, k;

	*first = NULL;
	for (i = 0; i < p->n_suites; i++)
		for (j = 0; j < p->suites[i].n_benchmarks; j++) {
			const struct plan_benchmark *pb = &p->suites[i].benchmarks[j];
			bool any = false;
			for (k = 0; pb->selected && pb->compared && k < pb->n_commands; k++) {
				if (!pb->commands[k].compared)
					continue;
				if (plan_tolerance(pb, m) && command_measures(pb->commands[k].c, m))
					return true;
				any = true;
			}
			if (any && !*first) {
				*first = pb->b;
				*suite = p->suites[i].suite;
			}
		}
	return *first == NULL;
}

/* A search on a metric no compared command measures has nothing to find:
 * say so before anything is built, naming a benchmark and how it turns the
 * metric on (exit 3). */
static int check_metric(const struct bisect *b)
{
	const struct suite *suite = NULL;
	const struct benchmark *first;
	const char *name = metric_info(b->metric)->name;

	if (plan_measures(b->s->plan, b->metric, &suite, &first))
		return EXIT_OK;
	cli_error(HMR_USAGE,
		  "--metric %s: no selected command measures %s (%s:%u:%u: benchmark \"%s\" "
		  "does not)",
		  name, name, suite->path, first->pos.line, first->pos.column, first->name);
	if (metric_switch_hint(b->metric))
		fprintf(stderr, "  hint: %s\n", metric_switch_hint(b->metric));
	return cli_exit(EXIT_USAGE, "nothing to search on %s", name);
}

/* The first-parent line good..bad (*line, ending with bad), the plan for
 * its candidates, the runner and the good commit's tree. */
static int search_begin(struct bisect *b, const char *good_rev, const char *bad_rev,
			struct vcs_sha *good, struct vcs_sha_list *line)
{
	struct revisions_request req = { .base_source = "bisect",
					 .suite_from = REVISIONS_SUITE_HEAD };
	struct vcs_walk_opts wo = VCS_WALK_OPTS_INIT;
	struct vcs_sha bad;
	struct err err = ERR_INIT;
	char *range;
	int code = revisions_open(b->s, &req, &b->rv);

	if (code != EXIT_OK)
		return code;
	if (vcs_resolve(b->rv.vcs, good_rev, good, &err) < 0 ||
	    vcs_resolve(b->rv.vcs, bad_rev, &bad, &err) < 0)
		return cli_fail(&err);
	range = xasprintf("%s..%s", good->hex, bad.hex);
	wo.first_parent = true;
	code = vcs_walk(b->rv.vcs, range, &wo, line, &err) < 0 ? cli_fail(&err) : EXIT_OK;
	free(range);
	if (code == EXIT_OK &&
	    (line->count == 0 || strcmp(line->items[line->count - 1].hex, bad.hex)))
		code = cli_usagef("bisect",
				  "--bad %s is not a descendant of --good on the first-parent line",
				  bad_rev);
	if (code != EXIT_OK)
		return code;
	b->s->flags.candidates = (unsigned)line->count;
	code = session_plan(b->s, b->selected, NULL);
	if (code != EXIT_OK)
		return code;
	code = check_metric(b);
	if (code != EXIT_OK)
		return code;
	printf("bisect: %zu candidate%s between %.12s (good) and %.12s (bad); ", line->count,
	       line->count == 1 ? "" : "s", good->hex, bad.hex);
	if (metric_info(b->metric)->counted)
		printf("each step on counts, exact\n");
	else
		printf("each step at %.4g%% confidence\n", b->s->plan->confidence * 100);
	code = session_runner(b->s, b->rv.hidden, b->rv.n_hidden);
	if (code == EXIT_OK && (vcs_tree_id(b->rv.vcs, good, &b->good_tree_id, &err) < 0 ||
				vcs_materialise(b->rv.vcs, good, &b->good_tree, &err) < 0))
		code = cli_fail(&err);
	return code;
}

/* Bad against good: whether there is a change to locate (exit 1 when there
 * is none, 4 when it could not be measured). */
static int locate(struct bisect *b, const struct vcs_sha *bad)
{
	enum step_outcome out;
	int code = EXIT_OK;

	runner_bisect(b->s->runner, b->metric, RUNNER_BISECT_TARGET);
	out = measure(b, bad, "bad against good", &code);
	if (code != EXIT_OK || out == STEP_BAD)
		return code;
	if (runner_interrupted(b->s->runner))
		return cli_exit(EXIT_EXEC, "interrupted");
	if (out == STEP_FAILED && b->metric_failed)
		return cli_exit(EXIT_METRIC, "bad against good: %s could not be measured",
				metric_info(b->metric)->name);
	if (out == STEP_FAILED)
		return cli_exit(EXIT_EXEC, "bad against good could not be measured");
	printf("no change between good and bad could be located: nothing to search\n");
	return cli_exit(EXIT_FAILED, "no change of %s between good and bad could be located",
			metric_info(b->metric)->name);
}

/* The binary search over line (good excluded, bad last) once bad is known
 * to differ from good. */
static int bisect_line(struct bisect *b, const struct vcs_sha *good,
		       const struct vcs_sha_list *line)
{
	enum step_outcome last = STEP_GOOD;
	long lo = -1, hi = (long)line->count - 1;
	int code = EXIT_OK;

	while (code == EXIT_OK && hi - lo > 1 && !runner_interrupted(b->s->runner)) {
		long mid = lo + (hi - lo) / 2;
		last = step(b, &line->items[mid], &code);
		if (last == STEP_BAD)
			hi = mid;
		else if (last == STEP_GOOD)
			lo = mid;
		else
			break;
	}
	if (code != EXIT_OK)
		return code;
	if (hi - lo == 1) {
		name_commit(b, "first bad commit:", &line->items[hi]);
		name_commit(b, "last good commit:", lo < 0 ? good : &line->items[lo]);
		return EXIT_OK;
	}
	printf("the search ended without a decision: the first bad commit is one of the %ld "
	       "after %.12s up to %.12s\n",
	       hi - lo, lo < 0 ? good->hex : line->items[lo].hex, line->items[hi].hex);
	if (runner_interrupted(b->s->runner))
		return cli_exit(EXIT_EXEC, "interrupted");
	if (last == STEP_FAILED && b->metric_failed)
		return cli_exit(EXIT_METRIC, "step %u: %s could not be measured", b->steps,
				metric_info(b->metric)->name);
	if (last == STEP_FAILED)
		return cli_exit(EXIT_EXEC, "step %u could not be measured", b->steps);
	return EXIT_OK;
}

static int search(struct bisect *b, const char *good_rev, const char *bad_rev)
{
	struct vcs_sha_list line = { .items = NULL, .count = 0 };
	struct vcs_sha good;
	struct err err = ERR_INIT;
	int code = search_begin(b, good_rev, bad_rev, &good, &line);

	if (code == EXIT_OK)
		code = locate(b, &line.items[line.count - 1]);
	if (code == EXIT_OK)
		code = bisect_line(b, &good, &line);
	vcs_tree_remove(b->good_tree, &err);
	vcs_sha_list_release(&line);
	return code;
}

/* The metrics a search can be on: those a comparison judges, and the counts. */
static const bool searched[METRIC__COUNT] = {
	[METRIC_LATENCY] = true,	 [METRIC_CPU_TOTAL] = true,    [METRIC_PEAK_RSS] = true,
	[METRIC_ARTIFACT_SIZE] = true,	 [METRIC_INSTRUCTIONS] = true, [METRIC_ALLOCATIONS] = true,
	[METRIC_ALLOCATED_BYTES] = true,
};

int cmd_bisect(struct session *s, struct cmd_args *a)
{
	const struct bisect_flags *f = &a->f.bisect;
	struct bisect b = { .s = s, .metric = METRIC_LATENCY };
	int code = EXIT_OK;

	if (!f->good || !f->bad)
		code = cli_usagef("bisect", "bisect needs --good REV and --bad REV");
	if (code == EXIT_OK && f->metric &&
	    (metric_from_name(f->metric, &b.metric) < 0 || !searched[b.metric]))
		code = cli_usagef("bisect",
				  "--metric \"%s\": expected latency, cpu_total, peak_rss, "
				  "instructions, allocations, allocated_bytes or artifact_size",
				  f->metric);
	if (code == EXIT_OK &&
	    (s->out.output || s->out.section || s->out.summary || strcmp(s->out.format, "table")))
		code = cli_usagef("bisect",
				  "bisect prints its steps: --format, --output, --section "
				  "and --summary do not apply");
	if (code == EXIT_OK) {
		b.selected = session_selection(s);
		code = session_select_check(s, b.selected);
	}
	if (code == EXIT_OK)
		code = search(&b, f->good, f->bad);
	session_print_timings(s);
	revisions_release(&b.rv);
	session_selection_free(b.selected, s->suites.count);
	return code;
}
