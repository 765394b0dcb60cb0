/*
 * Finishing a benchmark (see internal.h): each side's statistics, floors and
 * drift over the runs, the budgets, the comparisons settled at the looks they
 * reached, a command's result state, and the latencies relative to the
 * fastest and the baseline. Only the document is written.
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "stats/stats.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static void budget_percentiles(const struct command *c, enum metric m, double *p, size_t *n)
{
	size_t i;

	*n = 0;
	for (i = 0; i < c->budget_count && *n < 16; i++)
		if (c->budgets[i].metric == m && c->budgets[i].aggregation.kind == AGG_PERCENTILE)
			p[(*n)++] = c->budgets[i].aggregation.percentile;
}

/* Drift over the runs (docs/design.md, "Measuring a run"): see struct results_trend. */
static void find_trend(struct results_metric *rm)
{
	struct stats_trend t;
	struct err err = ERR_INIT;

	if (rm->n_samples < RESULTS_TREND_MIN_RUNS ||
	    stats_theil_sen(rm->samples, rm->n_samples, RESULTS_TREND_CONFIDENCE, &t, &err) < 0 ||
	    !t.has_interval)
		return;
	rm->trend.present = true;
	rm->trend.slope = t.slope;
	rm->trend.slope_low = t.slope_low;
	rm->trend.slope_high = t.slope_high;
	rm->trend.min_detectable_slope = t.min_detectable_slope;
	rm->trend.growing = t.growing && t.slope * (double)(rm->n_samples - 1) >=
						 RESULTS_TREND_MIN_GROWTH * rm->stats.median;
}

static void finish_metric(struct results_side *rs, const struct command *c, enum metric m,
			  const struct unit *u, int side)
{
	struct results_metric *rm = &rs->metrics[m];
	struct stats_summary st;
	double extra[16];
	size_t n_extra, i;

	if (rm->status != STATUS_MEASURED || rm->n_samples == 0)
		return;
	budget_percentiles(c, m, extra, &n_extra);
	stats_summarize(rm->samples, rm->n_samples, extra, n_extra, &st);
	results_set_stats(rs, m, &st);
	stats_summary_release(&st);
	if (m == METRIC_PEAK_RSS && u->floors[side]) {
		rm->has_floor = true;
		for (i = 0; i < rm->n_samples; i++) {
			if (u->floors[side][i] > (double)rm->floor_bytes)
				rm->floor_bytes = (uint64_t)u->floors[side][i];
			if (rm->samples[i] <= u->floors[side][i])
				rm->samples_at_floor++;
		}
	}
	if (m == METRIC_LATENCY || (m == METRIC_PEAK_RSS && rm->samples_at_floor == 0))
		find_trend(rm);
	if (m == METRIC_THROUGHPUT && u->work[side]) {
		rm->work.measured_min = rm->work.measured_max = u->work[side][0];
		for (i = 1; i < u->n_runs[side]; i++) {
			if (u->work[side][i] < rm->work.measured_min)
				rm->work.measured_min = u->work[side][i];
			if (u->work[side][i] > rm->work.measured_max)
				rm->work.measured_max = u->work[side][i];
		}
	}
}

void finish_describe_metrics(const struct command *c, struct results_side *rs)
{
	int m;

	for (m = 0; m < METRIC__COUNT; m++) {
		struct results_metric *rm = &rs->metrics[m];
		bool on = command_measures(c, (enum metric)m);
		switch ((enum metric)m) {
		case METRIC_LATENCY:
			rm->source = RESULTS_SOURCE_WALL_CLOCK;
			rm->process_aggregation = RESULTS_AGG_NONE;
			break;
		case METRIC_THROUGHPUT:
			rm->source = RESULTS_SOURCE_DECLARED_WORK;
			rm->process_aggregation = RESULTS_AGG_NONE;
			if (on) {
				const struct work *w = &c->metrics.work;
				rm->work.present = true;
				rm->work.has_value = w->kind == WORK_VALUE;
				rm->work.value = w->value;
				results_set_str(&rm->work.file_size, w->file);
				results_set_str(&rm->work.unit, w->unit);
			}
			break;
		case METRIC_CPU_USER:
		case METRIC_CPU_SYSTEM:
		case METRIC_CPU_TOTAL:
		case METRIC_CPU_UTILIZATION:
			rm->source = RESULTS_SOURCE_RUSAGE;
			rm->process_aggregation = RESULTS_AGG_SUM_OF_WAITED_DESCENDANTS;
			break;
		case METRIC_PEAK_RSS:
			rm->source = RESULTS_SOURCE_RUSAGE;
			rm->process_aggregation = RESULTS_AGG_MAX_OF_SINGLE_PROCESS_PEAKS;
			break;
		case METRIC_ARTIFACT_SIZE:
			rm->source = RESULTS_SOURCE_ARTIFACT_FILE;
			rm->process_aggregation = RESULTS_AGG_NONE;
			break;
		case METRIC_INSTRUCTIONS:
		case METRIC_ALLOCATIONS:
		case METRIC_ALLOCATED_BYTES:
			rm->source = RESULTS_SOURCE_VALGRIND;
			rm->process_aggregation = RESULTS_AGG_SUM_OF_TRACED_PROCESSES;
			break;
		case METRIC__COUNT:
			break;
		}
		if (!on)
			rm->status = STATUS_NOT_REQUESTED;
	}
}

static void finish_budget_list(struct results_command *rc, const struct budget *list, size_t n,
			       const struct unit *u)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct budget *b = &list[i];
		const struct results_metric *rm = &rc->head.metrics[b->metric];
		struct budget_rule rule;
		struct budget_result res;

		rule.metric = b->metric;
		rule.aggregation = b->aggregation;
		rule.op = b->op;
		rule.limit = b->limit;
		judge_budget(rm->samples, b->metric == METRIC_PEAK_RSS ? u->floors[HEAD] : NULL,
			     rm->status == STATUS_MEASURED ? rm->n_samples : 0, &rule, &res);
		results_add_budget(rc, &res, b->text);
	}
}

/* The command's budgets, and for a harness's benchmark those of the rule
 * of harness.benchmarks that matches it (docs/configuration.md,
 * "Harnesses"). */
static void finish_budgets(struct results_command *rc, const struct command *c,
			   const struct unit *u)
{
	const struct harness_rule *rule = u->bench ? harness_rule_for(c, u->bench) : NULL;

	finish_budget_list(rc, c->budgets, c->budget_count, u);
	if (rule)
		finish_budget_list(rc, rule->budgets, rule->budget_count, u);
}

/* Why the rounds stopped before a comparison was final. */
static enum judge_stop stop_reason(const struct bench_run *br)
{
	switch (br->ran_out) {
	case RESULTS_TIME_BUDGET_MAX_TIME:
		return JUDGE_STOP_TIME_BUDGET;
	case RESULTS_TIME_BUDGET_MAX_TOTAL_TIME:
		return JUDGE_STOP_TOTAL_TIME_BUDGET;
	case RESULTS_TIME_BUDGET_NONE:
		break;
	}
	return JUDGE_STOP_DECIDED;
}

static void finish_comparisons(struct bench_run *br, struct unit *u, struct results_command *rc)
{
	struct comparison t;
	int m;

	if (!u->compared || u->failed)
		return;
	rounds_point_inputs(br, u);
	for (m = 0; m < METRIC__COUNT; m++) {
		if (!u->judged[m])
			continue;
		if (!u->cmp[m].final)
			judge_finish(&u->in[m], stop_reason(br), &u->cmp[m]);
		results_add_comparison(rc, u->bench ? inprocess_shown(u, m, &t) : &u->cmp[m]);
	}
	if (u->bench)
		inprocess_compare_counts(br, u, rc);
	if (benchmark_measures(br->b, METRIC_THROUGHPUT) && u->judged[METRIC_LATENCY]) {
		const struct results_metric *h = &rc->head.metrics[METRIC_THROUGHPUT];
		const struct results_metric *b = &rc->base.metrics[METRIC_THROUGHPUT];
		struct judge_work w;
		w.head_min = h->work.measured_min;
		w.head_max = h->work.measured_max;
		w.base_min = b->work.measured_min;
		w.base_max = b->work.measured_max;
		w.unit = br->b->metrics.work.unit;
		judge_derive_throughput(&u->cmp[METRIC_LATENCY], &w, &t);
		results_add_comparison(rc, &t);
	}
	counted_compare(br, u, rc);
}

static enum result_state command_result(const struct results_command *rc)
{
	struct budget_result *b = xcalloc(rc->n_budgets + 1, sizeof(*b));
	enum result_state state;
	size_t i;

	for (i = 0; i < rc->n_budgets; i++)
		b[i] = rc->budgets[i].result;
	state = judge_command_result(rc->comparisons, rc->n_comparisons, b, rc->n_budgets);
	free(b);
	return state;
}

static bool side_metric_failed(const struct results_side *s)
{
	return s->error.present && (s->error.kind == RESULTS_ERROR_METRIC_COLLECTION_FAILED ||
				    s->error.kind == RESULTS_ERROR_METRIC_UNSUPPORTED);
}

/* In a comparison the two sides run in interleaved pairs, so drift of the
 * machine moves both alike: a side's growth counts only when its interval
 * lies above the other side's and the excess reaches
 * RESULTS_TREND_MIN_GROWTH of its median (docs/reports.md). */
static bool grows_beyond(const struct results_metric *a, const struct results_metric *b)
{
	const struct results_trend *t = &a->trend, *o = &b->trend;

	if (!t->growing || !o->present)
		return t->growing;
	return t->slope_low > o->slope_high && (t->slope - o->slope) * (double)(a->n_samples - 1) >=
						       RESULTS_TREND_MIN_GROWTH * a->stats.median;
}

static void pair_trends(struct results_command *rc)
{
	static const enum metric watched[] = { METRIC_LATENCY, METRIC_PEAK_RSS };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(watched); i++) {
		struct results_metric *h = &rc->head.metrics[watched[i]];
		struct results_metric *b = &rc->base.metrics[watched[i]];
		bool head_grows = grows_beyond(h, b), base_grows = grows_beyond(b, h);
		h->trend.growing = head_grows;
		b->trend.growing = base_grows;
	}
}

void finish_unit(struct bench_run *br, struct unit *u)
{
	struct results_command *rc = &br->rb->commands[u->index];
	int side, m;

	counted_measure(br, u);
	for (side = HEAD; side <= BASE; side++) {
		struct results_side *rs = side == HEAD ? &rc->head : &rc->base;
		if (!u->sides[side])
			continue;
		rs->warmups = u->warmups[side];
		rs->plan = u->warm[side].plan == WARMUP_PLAN_LARGE ? RESULTS_PLAN_LARGE
								   : RESULTS_PLAN_STANDARD;
		for (m = 0; m < METRIC__COUNT; m++)
			finish_metric(rs, u->cmd, (enum metric)m, u, side);
	}
	if (u->sides[HEAD] && u->sides[BASE])
		pair_trends(rc);
	finish_budgets(rc, u->cmd, u);
	finish_comparisons(br, u, rc);
	if (side_metric_failed(&rc->head) || side_metric_failed(&rc->base))
		rc->result = RESULT_METRIC_ERROR;
	else if (rc->head.error.present || rc->base.error.present || u->failed)
		rc->result = RESULT_ERROR;
	else
		rc->result = command_result(rc);
}

void finish_relative(struct bench_run *br)
{
	struct results_benchmark *rb = br->rb;
	double fastest = 0, base = 0;
	size_t i;

	for (i = 0; i < rb->n_commands; i++) {
		const struct results_metric *m = &rb->commands[i].head.metrics[METRIC_LATENCY];
		if (!m->has_stats || m->stats.median <= 0 || rb->commands[i].harness.format)
			continue;
		if (fastest == 0 || m->stats.median < fastest)
			fastest = m->stats.median;
		if (br->b->baseline && !strcmp(rb->commands[i].name, br->b->baseline))
			base = m->stats.median;
	}
	for (i = 0; i < rb->n_commands; i++) {
		struct results_command *c = &rb->commands[i];
		const struct results_metric *m = &c->head.metrics[METRIC_LATENCY];
		/* a harness's time per iteration is no process's latency */
		if (!m->has_stats || m->stats.median <= 0 || c->harness.format)
			continue;
		if (fastest > 0) {
			c->has_vs_fastest = true;
			c->vs_fastest = m->stats.median / fastest;
		}
		if (base > 0) {
			c->has_vs_baseline = true;
			c->vs_baseline = m->stats.median / base;
		}
	}
}
