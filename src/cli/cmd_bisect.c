/*
 * `himorime bisect --good REV --bad REV [--metric M] [flags] [PATH...]`:
 * binary search over the first-parent line from the good commit to the bad
 * one. Each step is one full comparison of the candidate against the good
 * commit (docs/comparison.md) planned at alpha / ceil(log2 N) for N candidates,
 * so the whole search keeps the error bound (the plan's confidence). What a
 * step makes of its candidate is the judge's (judge_bisect_step): a
 * regression of the metric in any compared command marks it bad; every
 * command passing (or improved) marks it good; anything else ends the search
 * with the smallest range it has proven. This file only prints.
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
};

/* What a command says about the metric: "  bench › cmd: latency +12.1%
 * [+9.8%, +14.5%] at 99.5%, 22 pairs: regression". */
static void print_comparison(const struct bisect *b, const struct step_finding *f,
			     struct strbuf *sb)
{
	const struct comparison *cmp = f->cmp;

	strbuf_addf(sb, "%s ", metric_info(b->metric)->name);
	if (cmp->has_estimate) {
		fmt_change(sb, cmp->change_percent, false);
		strbuf_adds(sb, " [");
		fmt_change(sb, cmp->ci_low_percent, false);
		strbuf_adds(sb, ", ");
		fmt_change(sb, cmp->ci_high_percent, false);
		strbuf_addf(sb, "] at %.4g%%, %u pairs: ", cmp->confidence * 100, cmp->pairs);
	}
	strbuf_adds(sb, verdict_name(cmp->verdict));
	if (cmp->reason[0])
		strbuf_addf(sb, " (%s)", cmp->reason);
}

/* One line of a step: what a suite, benchmark or command says. */
static void print_finding(const struct bisect *b, const struct step_finding *f)
{
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
		strbuf_addf(&sb, "  %s › %s: %s not compared", f->benchmark, f->command,
			    metric_info(b->metric)->name);
		break;
	case STEP_COMPARED:
		strbuf_addf(&sb, "  %s › %s: ", f->benchmark, f->command);
		print_comparison(b, f, &sb);
		break;
	}
	printf("%s\n", sb.buf);
	strbuf_release(&sb);
}

/* The step's findings and the judge's outcome. */
static enum step_outcome print_step(const struct bisect *b, const struct results *doc)
{
	struct step_finding *findings;
	size_t i, n;
	enum step_outcome out = runner_bisect_step(doc, b->metric, &findings, &n);

	for (i = 0; i < n; i++)
		print_finding(b, &findings[i]);
	printf("  => %s\n", step_outcome_name(out));
	free(findings);
	return out;
}

/* One step: the candidate against the good commit. */
static enum step_outcome step(struct bisect *b, const struct vcs_sha *sha, int *code)
{
	struct session *s = b->s;
	struct results *doc = results_new(RESULTS_MODE_COMPARE);
	struct vcs_commit_info info;
	struct vcs_tree *tree = NULL;
	struct err err = ERR_INIT, gone = ERR_INIT;
	enum step_outcome out = STEP_FAILED;
	struct vcs_sha tree_id;
	uint64_t t;
	size_t i, k;
	int rc;

	memset(&info, 0, sizeof(info));
	b->steps++;
	rc = vcs_commit_info(b->rv.vcs, sha, &info, &err);
	if (rc == 0)
		rc = vcs_tree_id(b->rv.vcs, sha, &tree_id, &err);
	t = clock_monotonic_ns();
	if (rc == 0)
		rc = vcs_materialise(b->rv.vcs, sha, &tree, &err);
	session_phase(s, RESULTS_PHASE_MATERIALISE_HEAD, t);
	if (rc == 0)
		printf("step %u: %.12s %s\n", b->steps, sha->hex, info.subject);
	/* each step is a comparison with the whole time budget */
	session_budget_start(s);
	for (i = 0; i < s->suites.count && rc == 0; i++) {
		const struct suite *suite = s->suites.v[i];
		char *head = revisions_suite_root(&b->rv, suite, vcs_tree_path(tree));
		char *base = revisions_suite_root(&b->rv, suite, vcs_tree_path(b->good_tree));
		char *fixtures = revisions_suite_root(&b->rv, suite, vcs_workdir(b->rv.vcs));
		if (!head || !base || !fixtures)
			rc = err_set(&err, ERR_EXEC, "suite \"%s\" is not inside the repository",
				     suite->path);
		else if (s->plan->suites[i].n_selected) {
			struct runner_roots roots = {
				.head = head,
				.base = base,
				.fixture = fixtures,
				.head_tree = tree_id.hex,
				.base_tree = b->good_tree_id.hex,
			};
			rc = runner_run_suite(s->runner, &s->plan->suites[i], &roots, doc, &err);
		}
		free(fixtures);
		free(head);
		free(base);
	}
	if (rc < 0) {
		*code = cli_fail(&err);
		goto done;
	}
	out = print_step(b, doc);
done:
	vcs_tree_remove(tree, &gone);
	vcs_commit_info_release(&info);
	for (k = 0; k < RESULTS_PHASE__COUNT; k++) /* the step's phases are the session's */
		s->doc->timings.phase_ns[k] += doc->timings.phase_ns[k];
	results_free(doc);
	return out;
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

static int search(struct bisect *b, const char *good_rev, const char *bad_rev)
{
	struct revisions_request req = { .base_source = "bisect",
					 .suite_from = REVISIONS_SUITE_HEAD };
	struct vcs_walk_opts wo = VCS_WALK_OPTS_INIT;
	struct vcs_sha_list line = { .items = NULL, .count = 0 };
	struct vcs_sha good, bad;
	struct err err = ERR_INIT;
	char *range = NULL;
	enum step_outcome last = STEP_GOOD;
	long lo = -1, hi;
	double confidence;
	int code = revisions_open(b->s, &req, &b->rv);

	if (code != EXIT_OK)
		return code;
	if (vcs_resolve(b->rv.vcs, good_rev, &good, &err) < 0 ||
	    vcs_resolve(b->rv.vcs, bad_rev, &bad, &err) < 0)
		return cli_fail(&err);
	range = xasprintf("%s..%s", good.hex, bad.hex);
	wo.first_parent = true;
	if (vcs_walk(b->rv.vcs, range, &wo, &line, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	if (line.count == 0 || strcmp(line.items[line.count - 1].hex, bad.hex)) {
		code = cli_usagef("bisect",
				  "--bad %s is not a descendant of --good on the first-parent line",
				  bad_rev);
		goto done;
	}
	hi = (long)line.count - 1;
	b->s->flags.candidates = (unsigned)line.count;
	code = session_plan(b->s, b->selected, NULL);
	if (code != EXIT_OK)
		goto done;
	confidence = b->s->plan->confidence;
	printf("bisect: %zu candidate%s between %.12s (good) and %.12s (bad); each step at %.4g%% "
	       "confidence\n",
	       line.count, line.count == 1 ? "" : "s", good.hex, bad.hex, confidence * 100);
	code = session_runner(b->s, b->rv.hidden, b->rv.n_hidden);
	if (code == EXIT_OK && line.count > 1 &&
	    (vcs_tree_id(b->rv.vcs, &good, &b->good_tree_id, &err) < 0 ||
	     vcs_materialise(b->rv.vcs, &good, &b->good_tree, &err) < 0))
		code = cli_fail(&err);
	while (code == EXIT_OK && hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;
		last = step(b, &line.items[mid], &code);
		if (last == STEP_BAD)
			hi = mid;
		else if (last == STEP_GOOD)
			lo = mid;
		else
			break;
		if (runner_interrupted(b->s->runner))
			break;
	}
	if (code != EXIT_OK)
		goto done;
	if (hi - lo == 1) {
		name_commit(b, "first bad commit:", &line.items[hi]);
		name_commit(b, "last good commit:", lo < 0 ? &good : &line.items[lo]);
	} else {
		printf("the search ended without a decision: the first bad commit is one of the "
		       "%ld "
		       "after %.12s up to %.12s\n",
		       hi - lo, lo < 0 ? good.hex : line.items[lo].hex, line.items[hi].hex);
		if (runner_interrupted(b->s->runner))
			code = cli_exit(EXIT_EXEC, "interrupted");
		else if (last == STEP_FAILED)
			code = cli_exit(EXIT_EXEC, "step %u could not be measured", b->steps);
	}
done:
	vcs_tree_remove(b->good_tree, &err);
	vcs_sha_list_release(&line);
	free(range);
	return code;
}

int cmd_bisect(struct session *s, struct cmd_args *a)
{
	const struct bisect_flags *f = &a->f.bisect;
	struct bisect b = { .s = s, .metric = METRIC_LATENCY };
	int code = EXIT_OK;

	if (!f->good || !f->bad)
		code = cli_usagef("bisect", "bisect needs --good REV and --bad REV");
	if (code == EXIT_OK && f->metric &&
	    (metric_from_name(f->metric, &b.metric) < 0 ||
	     (b.metric != METRIC_LATENCY && b.metric != METRIC_CPU_TOTAL &&
	      b.metric != METRIC_PEAK_RSS)))
		code = cli_usagef("bisect",
				  "--metric \"%s\": expected latency, cpu_total or peak_rss",
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
