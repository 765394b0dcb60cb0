/*
 * A suite's geometric mean (the reference's rules). In a comparison: per
 * command name, the geometric mean over the benchmarks (cases) of its
 * head/base latency ratio, reference "base". In a plain run: per command
 * name, the geometric mean of its median relative to the baseline (when every
 * benchmark names the same baseline) or to the fastest; it needs at least two
 * benchmarks and two command names, and every name in every benchmark.
 */
#include "engine/runner.h"

#include "common/alloc.h"
#include "judge/judge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static const struct results_command *find(const struct results_benchmark *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->n_commands; i++)
		if (!strcmp(b->commands[i].name, name))
			return &b->commands[i];
	return NULL;
}

static bool ratio_of(const struct results_command *c, bool compare, bool baseline, double *out)
{
	size_t i;

	if (!compare) {
		*out = baseline ? c->vs_baseline : c->vs_fastest;
		return baseline ? c->has_vs_baseline : c->has_vs_fastest;
	}
	for (i = 0; i < c->n_comparisons; i++)
		if (c->comparisons[i].metric == METRIC_LATENCY && !c->comparisons[i].derived &&
		    c->comparisons[i].has_estimate) {
			*out = 1.0 + c->comparisons[i].change_percent / 100.0;
			return *out > 0;
		}
	return false;
}

static bool same_baseline(const struct results_suite *s)
{
	size_t i;

	for (i = 0; i < s->n_benchmarks; i++)
		if (!s->benchmarks[i].baseline ||
		    strcmp(s->benchmarks[i].baseline, s->benchmarks[0].baseline))
			return false;
	return s->n_benchmarks > 0;
}

static void unavailable(struct results_suite *s, const char *why)
{
	results_set_str(&s->geometric_mean_unavailable, why);
}

void runner_geometric_mean(struct results_suite *s, bool compare)
{
	bool baseline = !compare && same_baseline(s);
	const struct results_benchmark *first;
	double *ratios;
	size_t i, j;

	if (s->n_benchmarks == 0)
		return;
	if (!compare && s->n_benchmarks < 2) {
		unavailable(s, "a geometric mean needs at least two benchmarks");
		return;
	}
	first = &s->benchmarks[0];
	if (!compare && first->n_commands < 2) {
		unavailable(s, "a geometric mean needs at least two command names");
		return;
	}
	ratios = xcalloc(s->n_benchmarks, sizeof(*ratios));
	for (i = 0; i < first->n_commands; i++) {
		const char *name = first->commands[i].name;
		double g;
		struct err err = ERR_INIT;
		for (j = 0; j < s->n_benchmarks; j++) {
			const struct results_command *c = find(&s->benchmarks[j], name);
			if (!c || !ratio_of(c, compare, baseline, &ratios[j]))
				break;
		}
		if (j < s->n_benchmarks) {
			char *why = xasprintf("command \"%s\" has no ratio in benchmark \"%s\"",
					      name, s->benchmarks[j].name);
			unavailable(s, why);
			free(why);
			goto done;
		}
		if (judge_geometric_mean(ratios, s->n_benchmarks, &g, &err) == 0)
			results_add_ratio(s, name, g);
	}
	s->has_geometric_mean = true;
	s->geometric_mean_cases = s->n_benchmarks;
	results_set_str(&s->geometric_mean_reference,
			compare ? "base" : (baseline ? "baseline" : "fastest"));
done:
	free(ratios);
}
