/*
 * The long runs of benchmarks with sizes, their drift check
 * (docs/configuration.md, "Sizes"): in each series of cases that differ only
 * in their size, the size `long_run` names, and the largest size whose long
 * run fit in SUITE_LONG_RUN_MAX_NS: at least its long run's runs
 * (SUITE_LONG_RUN_RUNS, or the suite's fixed runs if more) on every command,
 * with the mean of each command's runs, scaled to the long run, adding up to
 * at most that. The stop rule gave every size that looked like fitting those
 * runs (schedule.h); this names the case that was the long run, whose
 * trends (finish.c) are the drift check. Works on the results document and
 * the plan.
 */
#include "engine/runner.h"

#include "common/alloc.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* Whether case b ran a long run that fits: every command's head at least
 * `runs` runs, their means scaled to `runs` adding up to the limit or less. */
static bool fit_long_run(const struct results_benchmark *b, unsigned runs)
{
	double total = 0;
	size_t i;

	if (b->error.present || !b->n_commands)
		return false;
	for (i = 0; i < b->n_commands; i++) {
		const struct results_metric *m = &b->commands[i].head.metrics[METRIC_LATENCY];
		if (!b->commands[i].head.present || b->commands[i].head.error.present ||
		    !m->has_stats || m->n_samples < runs)
			return false;
		total += m->stats.mean * runs;
	}
	return total <= (double)SUITE_LONG_RUN_MAX_NS;
}

/* The long run's length, as the engine's stop rule lengthens it
 * (stop_rule_long_run): 30 runs, or the runs the plan gives the case if
 * more. */
static unsigned long_runs(const struct plan_benchmark *pb)
{
	unsigned asked = pb ? pb->runs : 0;

	return asked > SUITE_LONG_RUN_RUNS ? asked : SUITE_LONG_RUN_RUNS;
}

/* Marks the long runs of one series, the cases members[0..n) of s. */
static void mark_series(struct results_suite *s, const struct plan_suite *ps, const size_t *members,
			size_t n)
{
	struct results_benchmark *largest = NULL, *biggest = NULL;
	bool declared = false;
	size_t i;

	for (i = 0; i < n; i++) {
		struct results_benchmark *b = &s->benchmarks[members[i]];
		const struct plan_benchmark *pb = plan_benchmark_named(ps, b->name);
		if (pb && pb->b->long_run) {
			b->long_run = RESULTS_LONG_RUN_DECLARED;
			declared = true;
		}
		if (fit_long_run(b, long_runs(pb)) && (!largest || b->size > largest->size))
			largest = b;
		if (!b->error.present && b->n_commands && (!biggest || b->size > biggest->size))
			biggest = b;
	}
	if (largest && largest->long_run == RESULTS_LONG_RUN_NONE)
		largest->long_run = RESULTS_LONG_RUN_LARGEST;
	/* no drift check at all: the largest size says why not */
	if (!largest && !declared && biggest)
		biggest->long_run = RESULTS_LONG_RUN_NOT_CHECKED;
}

static void mark_visit(struct results_suite *s, const char *key, const size_t *members, size_t n,
		       const void *ctx)
{
	(void)key;
	mark_series(s, ctx, members, n);
}

void runner_long_run(struct results_suite *s, const struct plan_suite *ps)
{
	runner_each_series(s, mark_visit, ps);
}
