/*
 * The summary of a results document: counts per result state, verdicts that
 * do not gate, and the worst outcome with the reference's precedence:
 * something could not run > a metric could not be measured > a budget broken
 * or a gated regression (or inconclusive with the flag) > ok. The CLI maps
 * the outcome to an exit status.
 */
#include "engine/runner.h"

#include "judge/judge.h"

#include <string.h>

#include "common/banned.h"

static void count_comparisons(struct results_summary *sum, const struct results_command *c)
{
	size_t i;

	for (i = 0; i < c->n_comparisons; i++) {
		const struct comparison *cmp = &c->comparisons[i];
		if (cmp->verdict == VERDICT_SKIPPED) {
			sum->skipped++;
			continue;
		}
		if (cmp->gate || cmp->derived)
			continue;
		switch (cmp->verdict) {
		case VERDICT_PASS:
			sum->not_gated.pass++;
			break;
		case VERDICT_IMPROVED:
			sum->not_gated.improved++;
			break;
		case VERDICT_INCONCLUSIVE:
			sum->not_gated.inconclusive++;
			break;
		case VERDICT_REGRESSION:
			sum->not_gated.regression++;
			break;
		case VERDICT_SKIPPED:
			break;
		}
	}
}

/* A command whose regressions were all accepted and that has nothing worse
 * to show: its story is "accepted regression", not the pass it now gates as. */
static bool accepted_regression(const struct results_command *c)
{
	size_t i;

	if (c->result != RESULT_PASS && c->result != RESULT_IMPROVED)
		return false;
	for (i = 0; i < c->n_comparisons; i++)
		if (c->comparisons[i].accepted && c->comparisons[i].verdict == VERDICT_REGRESSION)
			return true;
	return false;
}

enum runner_outcome runner_summarize(struct results *doc, bool fail_on_inconclusive)
{
	struct results_summary *sum = &doc->summary;
	bool exec_failed = sum->interrupted, metric_failed = false, perf_failed = false;
	size_t i, j, k;

	memset(sum->results, 0, sizeof(sum->results));
	memset(&sum->not_gated, 0, sizeof(sum->not_gated));
	sum->suites = doc->n_suites;
	sum->benchmarks = sum->commands = sum->skipped = sum->new_suites = 0;
	sum->accepted_regressions = 0;
	sum->fail_on_inconclusive = fail_on_inconclusive;
	for (i = 0; i < doc->n_suites; i++) {
		const struct results_suite *s = &doc->suites[i];
		sum->new_suites += s->new_in_head;
		exec_failed |= s->error.present;
		for (j = 0; j < s->n_benchmarks; j++) {
			const struct results_benchmark *b = &s->benchmarks[j];
			sum->benchmarks++;
			exec_failed |= b->error.present;
			for (k = 0; k < b->n_commands; k++) {
				const struct results_command *c = &b->commands[k];
				sum->commands++;
				if (accepted_regression(c))
					sum->accepted_regressions++;
				else
					sum->results[c->result]++;
				count_comparisons(sum, c);
				exec_failed |= c->result == RESULT_ERROR;
				metric_failed |= c->result == RESULT_METRIC_ERROR;
				perf_failed |= judge_result_fails(c->result, fail_on_inconclusive);
			}
		}
	}
	if (exec_failed)
		return OUTCOME_NOT_RUN;
	if (metric_failed)
		return OUTCOME_METRIC_FAILED;
	return perf_failed ? OUTCOME_FAILED : OUTCOME_OK;
}

static void part(struct strbuf *out, uint64_t n, const char *one, const char *many)
{
	if (!n)
		return;
	if (out->len)
		strbuf_adds(out, ", ");
	strbuf_addf(out, "%llu %s", (unsigned long long)n, n == 1 ? one : many);
}

/* "build failed (head)" for one failed build (side.c names the side
 * first in its message: "build (head): ..."), "2 builds failed". */
static void builds_failed(struct strbuf *out, uint64_t n, const struct results_error *first)
{
	const char *m = first ? first->message : NULL;

	if (!n)
		return;
	if (out->len)
		strbuf_adds(out, ", ");
	if (n > 1)
		strbuf_addf(out, "%llu builds failed", (unsigned long long)n);
	else if (m && (!strncmp(m, "build (head)", 12) || !strncmp(m, "build (base)", 12)))
		strbuf_addf(out, "build failed (%.4s)", m + 7);
	else
		strbuf_adds(out, "build failed");
}

void runner_exit_reason(const struct results *doc, struct strbuf *out)
{
	const struct results_summary *s = &doc->summary;
	const struct results_error *first_build = NULL;
	uint64_t suite_errors = 0, bench_errors = 0, builds = 0;
	size_t i, j;

	for (i = 0; i < doc->n_suites; i++) {
		const struct results_error *e = &doc->suites[i].error;
		bool build = e->present && e->kind == RESULTS_ERROR_BUILD_FAILED;
		if (build && !builds++)
			first_build = e;
		suite_errors += e->present && !build;
		for (j = 0; j < doc->suites[i].n_benchmarks; j++)
			bench_errors += doc->suites[i].benchmarks[j].error.present;
	}
	if (s->interrupted)
		strbuf_adds(out, "interrupted");
	builds_failed(out, builds, first_build);
	part(out, suite_errors, "suite could not run", "suites could not run");
	part(out, bench_errors, "benchmark could not run", "benchmarks could not run");
	part(out, s->results[RESULT_ERROR], "command failed", "commands failed");
	part(out, s->results[RESULT_METRIC_ERROR],
	     "command has a metric that could not be measured",
	     "commands have a metric that could not be measured");
	part(out, s->results[RESULT_REGRESSION], "regression", "regressions");
	part(out, s->accepted_regressions, "accepted regression", "accepted regressions");
	part(out, s->results[RESULT_OVER_BUDGET], "command over budget", "commands over budget");
	if (s->fail_on_inconclusive)
		part(out, s->results[RESULT_INCONCLUSIVE], "inconclusive comparison",
		     "inconclusive comparisons");
	/* Never "ok" alone for a suite nothing was compared in. */
	part(out, s->new_suites, "new suite: measured on head only, nothing compared",
	     "new suites: measured on head only, nothing compared");
	if (!out->len)
		strbuf_adds(out, "ok");
}
