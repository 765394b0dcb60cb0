/*
 * How a cost grows with input size (docs/comparison.md, "Growth with input
 * size"): for the cases of a benchmark with sizes that differ only in their
 * size, per command, cost ≈ a + b · size^k of latency, cpu_total, peak RSS
 * (sizes with runs at the RSS floor left out) and the counts a command asked
 * for (instructions, allocations, allocated bytes) over each side's runs
 * (stats_growth_fit: the constant a, what every run pays, apart from the
 * growth). Works on the results document alone, like geomean.c.
 */
#include "engine/runner.h"

#include "common/alloc.h"
#include "common/strbuf.h"
#include "stats/growth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static const enum metric growth_metrics[] = { METRIC_LATENCY,	  METRIC_CPU_TOTAL,
					      METRIC_PEAK_RSS,	  METRIC_INSTRUCTIONS,
					      METRIC_ALLOCATIONS, METRIC_ALLOCATED_BYTES };

char *runner_series_key(const char *base_name, const struct params_value *params, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, k = 0;

	strbuf_adds(&sb, base_name);
	for (i = 0; i < n; i++)
		if (strcmp(params[i].name, "size"))
			strbuf_addf(&sb, "%s%s=%s", k++ ? "," : "[", params[i].name,
				    params[i].value);
	if (k)
		strbuf_addch(&sb, ']');
	return strbuf_detach(&sb, NULL);
}

/* The same of a case of the document (heap). */
static char *series_key(const struct results_benchmark *b)
{
	struct params_value *v = xcalloc(b->n_params ? b->n_params : 1, sizeof(*v));
	char *key;
	size_t i;

	for (i = 0; i < b->n_params; i++) {
		v[i].name = b->params[i].name;
		v[i].value = b->params[i].value;
	}
	key = runner_series_key(b->base_name, v, b->n_params);
	free(v);
	return key;
}

static const char *size_text(const struct results_benchmark *b)
{
	size_t i;

	for (i = 0; i < b->n_params; i++)
		if (!strcmp(b->params[i].name, "size"))
			return b->params[i].value;
	return "";
}

static const struct results_command *find_command(const struct results_benchmark *b,
						  const char *name)
{
	size_t i;

	for (i = 0; i < b->n_commands; i++)
		if (!strcmp(b->commands[i].name, name))
			return &b->commands[i];
	return NULL;
}

/* The runs of one side at one size, when they can enter the fit. */
static bool usable(const struct results_side *side, enum metric m)
{
	const struct results_metric *rm = &side->metrics[m];
	size_t i;

	if (!side->present || rm->status != STATUS_MEASURED || !rm->n_samples ||
	    (m == METRIC_PEAK_RSS && rm->samples_at_floor))
		return false;
	for (i = 0; i < rm->n_samples; i++)
		if (!(rm->samples[i] > 0))
			return false;
	return true;
}

/* Fits one side over the cases `members` (indices into s->benchmarks). */
static void fit_side(const struct results_suite *s, const size_t *members, size_t n,
		     const char *command, enum metric m, bool base, struct results_fit *f)
{
	struct stats_size_runs *runs = xcalloc(n, sizeof(*runs));
	const struct results_benchmark *lo = NULL, *hi = NULL;
	struct stats_growth_fit fit;
	struct err err = ERR_INIT;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		const struct results_benchmark *b = &s->benchmarks[members[i]];
		const struct results_command *c = find_command(b, command);
		const struct results_side *side = c ? (base ? &c->base : &c->head) : NULL;
		if (!side || !usable(side, m))
			continue;
		runs[k].size = b->size;
		runs[k].values = side->metrics[m].samples;
		runs[k++].n = side->metrics[m].n_samples;
		if (!lo || b->size < lo->size)
			lo = b;
		if (!hi || b->size > hi->size)
			hi = b;
	}
	if (k >= 2 && stats_growth_fit(runs, k, RESULTS_GROWTH_CONFIDENCE, &fit, &err) == 0) {
		f->present = true;
		f->exponent = fit.exponent;
		f->coefficient = fit.coefficient;
		f->has_constant = fit.has_constant;
		f->constant = fit.constant;
		f->r_squared = fit.r_squared;
		f->has_interval = fit.has_interval;
		f->exponent_low = fit.exponent_low;
		f->exponent_high = fit.exponent_high;
		f->sizes = fit.sizes;
		f->runs = fit.runs;
		f->from = xstrdup(size_text(lo));
		f->to = xstrdup(size_text(hi));
	}
	free(runs);
}

const struct benchmark *runner_model_of(const struct suite *suite, const char *name)
{
	size_t i;

	for (i = 0; i < suite->benchmark_count; i++)
		if (!strcmp(suite->benchmarks[i].name, name))
			return &suite->benchmarks[i];
	return NULL;
}

static const struct growth_budget *budget_of(const struct benchmark *b, const char *command,
					     enum metric m)
{
	size_t i, j;

	for (i = 0; b && i < b->command_count; i++)
		if (!strcmp(b->commands[i].name, command))
			for (j = 0; j < b->commands[i].growth_budget_count; j++)
				if (b->commands[i].growth_budgets[j].metric == m)
					return &b->commands[i].growth_budgets[j];
	return NULL;
}

static bool bound_holds(double v, enum bound_op op, double limit)
{
	switch (op) {
	case BOUND_LT:
		return v < limit;
	case BOUND_LE:
		return v <= limit;
	case BOUND_GT:
		return v > limit;
	case BOUND_GE:
		return v >= limit;
	}
	return false;
}

/* head − base of the exponents, with an interval whose half-width is that
 * of the two fits' intervals combined (independent sides): a regression
 * when the change exceeds the tolerance and the interval lies above 0. */
static void compare_exponents(struct results_growth *g, double max_difference)
{
	double hh = g->head.has_interval ? (g->head.exponent_high - g->head.exponent_low) / 2 : 0;
	double hb = g->base.has_interval ? (g->base.exponent_high - g->base.exponent_low) / 2 : 0;
	double half = sqrt(hh * hh + hb * hb);

	g->compared = true;
	g->difference = g->head.exponent - g->base.exponent;
	g->difference_low = g->difference - half;
	g->difference_high = g->difference + half;
	g->max_difference = max_difference;
	if (fabs(g->difference) <= max_difference)
		g->verdict = VERDICT_PASS;
	else if (g->difference_low > 0)
		g->verdict = VERDICT_REGRESSION;
	else if (g->difference_high < 0)
		g->verdict = VERDICT_IMPROVED;
	else
		g->verdict = VERDICT_INCONCLUSIVE;
}

static enum result_state worst(enum result_state a, enum result_state b)
{
	return a > b ? a : b;
}

/* A broken exponent budget or an exponent regression is the result of the
 * command at the largest size of the series, where the growth shows. */
static void blame_largest(struct results_suite *s, const size_t *members, size_t n,
			  const char *command, enum result_state state)
{
	struct results_benchmark *big = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (!big || s->benchmarks[members[i]].size > big->size)
			big = &s->benchmarks[members[i]];
	for (i = 0; big && i < big->n_commands; i++)
		if (!strcmp(big->commands[i].name, command)) {
			big->commands[i].result = worst(big->commands[i].result, state);
			big->result = worst(big->result, state);
			s->result = worst(s->result, state);
		}
}

/* The exponent budget and the comparison of exponents of one fit. */
static void judge_growth(struct results_suite *s, const struct benchmark *model,
			 const size_t *members, size_t n, struct results_growth *g)
{
	const struct growth_budget *gb = budget_of(model, g->command, g->metric);

	if (gb && g->head.present) {
		g->has_budget = true;
		g->budget_text = xstrdup(gb->text);
		g->budget_op = gb->op;
		g->budget_limit = gb->limit;
		g->budget_pass = bound_holds(g->head.exponent, gb->op, gb->limit);
		if (!g->budget_pass)
			blame_largest(s, members, n, g->command, RESULT_OVER_BUDGET);
	}
	if (model && g->head.present && g->base.present) {
		compare_exponents(g, model->regression.exponent_max_difference);
		if (g->verdict == VERDICT_REGRESSION)
			blame_largest(s, members, n, g->command, RESULT_REGRESSION);
	}
}

/* The growth of one series: per command of its first case, per metric. */
static void fit_series(struct results_suite *s, const struct suite *suite, const char *key,
		       const size_t *members, size_t n, bool compare)
{
	const struct benchmark *model = runner_model_of(suite, s->benchmarks[members[0]].name);
	const struct results_benchmark *first = &s->benchmarks[members[0]];
	size_t c, m;

	for (c = 0; c < first->n_commands; c++) {
		for (m = 0; m < sizeof(growth_metrics) / sizeof(growth_metrics[0]); m++) {
			struct results_fit head, base;
			struct results_growth *g;
			const char *name = s->benchmarks[members[0]].commands[c].name;
			memset(&head, 0, sizeof(head));
			memset(&base, 0, sizeof(base));
			fit_side(s, members, n, name, growth_metrics[m], false, &head);
			if (compare)
				fit_side(s, members, n, name, growth_metrics[m], true, &base);
			if (!head.present && !base.present)
				continue;
			g = results_add_growth(s, key, name, growth_metrics[m]);
			g->head = head;
			g->base = base;
			judge_growth(s, model, members, n, g);
		}
	}
}

void runner_each_series(struct results_suite *s, runner_series_fn visit, const void *ctx)
{
	size_t *members = xcalloc(s->n_benchmarks ? s->n_benchmarks : 1, sizeof(*members));
	char **keys = xcalloc(s->n_benchmarks ? s->n_benchmarks : 1, sizeof(*keys));
	size_t i, j, n;

	for (i = 0; i < s->n_benchmarks; i++)
		if (s->benchmarks[i].has_size && s->benchmarks[i].base_name)
			keys[i] = series_key(&s->benchmarks[i]);
	for (i = 0; i < s->n_benchmarks; i++) {
		for (j = 0; keys[i] && j < i; j++)
			if (keys[j] && !strcmp(keys[i], keys[j]))
				break;
		if (!keys[i] || j < i) /* not a size, or its series is done */
			continue;
		for (n = 0, j = i; j < s->n_benchmarks; j++)
			if (keys[j] && !strcmp(keys[i], keys[j]))
				members[n++] = j;
		visit(s, keys[i], members, n, ctx);
	}
	for (i = 0; i < s->n_benchmarks; i++)
		free(keys[i]);
	free(keys);
	free(members);
}

struct growth_ctx {
	const struct suite *suite;
	bool compare;
};

static void fit_visit(struct results_suite *s, const char *key, const size_t *members, size_t n,
		      const void *ctx)
{
	const struct growth_ctx *c = ctx;

	fit_series(s, c->suite, key, members, n, c->compare);
}

void runner_growth(struct results_suite *s, const struct suite *suite, bool compare)
{
	struct growth_ctx c = { .suite = suite, .compare = compare };

	runner_each_series(s, fit_visit, &c);
}
