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
 * the suite, like growth.c.
 */
#include "engine/runner.h"

#include "common/alloc.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static const struct benchmark *model_of(const struct suite *suite, const char *name)
{
	size_t i;

	for (i = 0; i < suite->benchmark_count; i++)
		if (!strcmp(suite->benchmarks[i].name, name))
			return &suite->benchmarks[i];
	return NULL;
}

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

static unsigned long_runs(const struct benchmark *model)
{
	return model && model->runs > SUITE_LONG_RUN_RUNS ? model->runs : SUITE_LONG_RUN_RUNS;
}

/* Marks the long runs of one series, the cases members[0..n) of s. */
static void mark_series(struct results_suite *s, const struct suite *suite, const size_t *members,
			size_t n)
{
	struct results_benchmark *largest = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		struct results_benchmark *b = &s->benchmarks[members[i]];
		const struct benchmark *model = model_of(suite, b->name);
		if (model && model->long_run)
			b->long_run = RESULTS_LONG_RUN_DECLARED;
		if (fit_long_run(b, long_runs(model)) && (!largest || b->size > largest->size))
			largest = b;
	}
	if (largest && largest->long_run == RESULTS_LONG_RUN_NONE)
		largest->long_run = RESULTS_LONG_RUN_LARGEST;
}

void runner_long_run(struct results_suite *s, const struct suite *suite)
{
	size_t *members = xcalloc(s->n_benchmarks ? s->n_benchmarks : 1, sizeof(*members));
	char **keys = xcalloc(s->n_benchmarks ? s->n_benchmarks : 1, sizeof(*keys));
	size_t i, j, n;

	for (i = 0; i < s->n_benchmarks; i++)
		if (s->benchmarks[i].has_size && s->benchmarks[i].base_name)
			keys[i] = runner_series_key(&s->benchmarks[i]);
	for (i = 0; i < s->n_benchmarks; i++) {
		for (j = 0; keys[i] && j < i; j++)
			if (keys[j] && !strcmp(keys[i], keys[j]))
				break;
		if (!keys[i] || j < i) /* not a size, or its series is done */
			continue;
		for (n = 0, j = i; j < s->n_benchmarks; j++)
			if (keys[j] && !strcmp(keys[i], keys[j]))
				members[n++] = j;
		mark_series(s, suite, members, n);
	}
	for (i = 0; i < s->n_benchmarks; i++)
		free(keys[i]);
	free(keys);
	free(members);
}
