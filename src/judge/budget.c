/*
 * Budgets and results: a budget's aggregation and bound checked on head
 * samples (with the measurement-floor rules of docs/design.md), a command's result
 * as the worst of its gated verdicts and budgets, and the geometric mean of
 * latency ratios. Part of the judge module: see judge.h.
 */
#include "judge/judge.h"

#include "common/alloc.h"
#include "stats/stats.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

double judge_aggregate(const double *samples, size_t n, const struct aggregation *agg)
{
	double *sorted, v = 0.0, sum = 0.0;
	size_t i;

	assert(n > 0);
	sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, samples, n * sizeof(*sorted));
	stats_sort(sorted, n);
	switch (agg->kind) {
	case AGG_MIN:
		v = sorted[0];
		break;
	case AGG_MAX:
		v = sorted[n - 1];
		break;
	case AGG_MEAN:
		for (i = 0; i < n; i++)
			sum += sorted[i];
		v = sum / (double)n;
		break;
	case AGG_MEDIAN:
		v = stats_percentile(sorted, n, 50.0);
		break;
	case AGG_PERCENTILE:
		v = stats_percentile(sorted, n, agg->percentile);
		break;
	}
	free(sorted);
	return v;
}

static bool meets(double actual, enum bound_op op, double limit)
{
	switch (op) {
	case BOUND_LT:
		return actual < limit;
	case BOUND_LE:
		return actual <= limit;
	case BOUND_GT:
		return actual > limit;
	case BOUND_GE:
		return actual >= limit;
	}
	return false;
}

static bool is_upper_bound(enum bound_op op)
{
	switch (op) {
	case BOUND_LT:
	case BOUND_LE:
		return true;
	case BOUND_GT:
	case BOUND_GE:
		break;
	}
	return false;
}

void judge_budget(const double *samples, const double *floor_bytes, size_t n,
		  const struct budget_rule *b, struct budget_result *out)
{
	memset(out, 0, sizeof(*out));
	out->metric = b->metric;
	out->aggregation = b->aggregation;
	out->op = b->op;
	out->limit = b->limit;
	if (n == 0) {
		out->status = BUDGET_NO_DATA;
		snprintf(out->reason, sizeof(out->reason), "no successful samples");
		return;
	}
	out->has_actual = true;
	out->actual = judge_aggregate(samples, n, &b->aggregation);
	if (floor_bytes) {
		double fl = floor_bytes[0];
		size_t i;

		for (i = 1; i < n; i++)
			if (floor_bytes[i] > fl)
				fl = floor_bytes[i];
		if (out->actual <= fl) {
			/* The real value is at most the floor: an upper bound the
			 * floor meets holds; nothing else can be assessed. */
			if (is_upper_bound(b->op) && meets(fl, b->op, b->limit)) {
				out->status = BUDGET_PASS;
				return;
			}
			out->status = BUDGET_SKIPPED;
			out->metric_error = true;
			snprintf(out->reason, sizeof(out->reason),
				 "the peak RSS is at or below the measurement floor");
			return;
		}
	}
	out->status = meets(out->actual, b->op, b->limit) ? BUDGET_PASS : BUDGET_FAIL;
}

static bool verdict_state(enum verdict v, enum result_state *out)
{
	switch (v) {
	case VERDICT_PASS:
		*out = RESULT_PASS;
		return true;
	case VERDICT_IMPROVED:
		*out = RESULT_IMPROVED;
		return true;
	case VERDICT_REGRESSION:
		*out = RESULT_REGRESSION;
		return true;
	case VERDICT_INCONCLUSIVE:
		*out = RESULT_INCONCLUSIVE;
		return true;
	case VERDICT_SKIPPED:
		break;
	}
	return false;
}

static bool budget_state(const struct budget_result *b, enum result_state *out)
{
	if (b->metric_error) {
		*out = RESULT_METRIC_ERROR;
		return true;
	}
	switch (b->status) {
	case BUDGET_FAIL:
		*out = RESULT_OVER_BUDGET;
		return true;
	case BUDGET_PASS:
		*out = RESULT_PASS;
		return true;
	case BUDGET_SKIPPED:
	case BUDGET_NO_DATA:
		break;
	}
	return false;
}

enum result_state judge_command_result(const struct comparison *cmp, size_t n_cmp,
				       const struct budget_result *budgets, size_t n_budgets)
{
	enum result_state worst = RESULT_PASS, s;
	size_t i;

	for (i = 0; i < n_cmp; i++) {
		if (!cmp[i].gate || (cmp[i].accepted && cmp[i].verdict == VERDICT_REGRESSION))
			continue;
		if (verdict_state(cmp[i].verdict, &s) && s > worst)
			worst = s;
	}
	for (i = 0; i < n_budgets; i++)
		if (budget_state(&budgets[i], &s) && s > worst)
			worst = s;
	return worst;
}

bool judge_result_fails(enum result_state r, bool fail_on_inconclusive)
{
	switch (r) {
	case RESULT_OVER_BUDGET:
	case RESULT_REGRESSION:
		return true;
	case RESULT_INCONCLUSIVE:
		return fail_on_inconclusive;
	case RESULT_PASS:
	case RESULT_NEW_SUITE:
	case RESULT_NEW:
	case RESULT_REMOVED:
	case RESULT_IMPROVED:
	case RESULT_METRIC_ERROR:
	case RESULT_ERROR:
		break;
	}
	return false;
}

int judge_geometric_mean(const double *ratios, size_t n, double *out, struct err *err)
{
	double sum = 0.0;
	size_t i;

	*out = 0.0;
	if (n == 0)
		return err_set(err, ERR_INVALID, "a geometric mean needs at least one ratio");
	for (i = 0; i < n; i++) {
		if (!(ratios[i] > 0.0) || isinf(ratios[i]))
			return err_set(err, ERR_INVALID,
				       "a geometric mean needs positive ratios, got %g", ratios[i]);
		sum += log(ratios[i]);
	}
	*out = exp(sum / (double)n);
	return 0;
}
