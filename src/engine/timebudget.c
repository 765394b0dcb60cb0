/*
 * The time budgets of a comparison (docs/comparison.md, "Time budgets"), on
 * the runner's clock (engine_clock_ns):
 *
 *   max_time        a benchmark's own (regression.max_time, or --max-time
 *                   over it): its rounds stop once that long has passed
 *                   since the benchmark started, not counting the turns
 *                   of the other sizes of its series (runner.c);
 *   max_total_time  the whole comparison's (runner_budget_start): each
 *                   compared benchmark gets an even share of what is left
 *                   when it starts, its rounds stop when the share is spent
 *                   less what its counted runs are expected to take at the
 *                   least (when that fits in the share), and its counted
 *                   runs stop when the whole is spent.
 *
 * Both are looked at only after a round (no run is cut short and no look is
 * added: the last completed look stands, so the error bound holds); what
 * they stopped is inconclusive with its own reason.
 */
#include "engine/internal.h"

#include "common/strbuf.h"

#include <stdint.h>

#include "common/banned.h"

void runner_budget_start(struct runner *r, uint64_t total_ns, size_t benchmarks)
{
	r->budget.total_ns = total_ns;
	r->budget.spent_ns = 0;
	r->budget.left = benchmarks;
}

/* What the whole budget gives a benchmark that starts now: an even share of
 * what is left among the compared benchmarks still to come. */
static uint64_t share_ns(const struct time_budget *b)
{
	uint64_t left = b->total_ns > b->spent_ns ? b->total_ns - b->spent_ns : 0;

	return left / (b->left ? b->left : 1);
}

void budget_begin(struct bench_run *br)
{
	const struct runner *r = br->r;
	uint64_t own = br->pb->max_time_ns; /* --max-time over regression.max_time */

	br->started_ns = engine_clock_ns(r);
	br->own_ns = 0;
	br->paused = false;
	br->has_limit = false;
	br->limit = RESULTS_TIME_BUDGET_NONE;
	br->ran_out = RESULTS_TIME_BUDGET_NONE;
	if (!br->compare)
		return;
	if (own) {
		br->has_limit = true;
		br->limit_ns = own;
		br->limit = RESULTS_TIME_BUDGET_MAX_TIME;
	}
	if (r->budget.total_ns && (!own || share_ns(&r->budget) < own)) {
		br->has_limit = true;
		br->limit_ns = share_ns(&r->budget);
		br->limit = RESULTS_TIME_BUDGET_MAX_TOTAL_TIME;
	}
}

/* The time since started_ns, unless paused. */
static uint64_t stretch_ns(const struct bench_run *br)
{
	return br->paused ? 0 : engine_clock_ns(br->r) - br->started_ns;
}

void budget_pause(struct bench_run *br)
{
	uint64_t s = stretch_ns(br);

	br->own_ns += s;
	br->r->budget.spent_ns += s;
	br->paused = true;
}

void budget_resume(struct bench_run *br)
{
	br->started_ns = engine_clock_ns(br->r);
	br->paused = false;
}

void budget_end(struct bench_run *br)
{
	struct time_budget *b = &br->r->budget;

	b->spent_ns += stretch_ns(br);
	if (br->compare && b->left)
		b->left--;
}

bool budget_rounds_over(struct bench_run *br)
{
	uint64_t elapsed = br->own_ns + stretch_ns(br), limit = br->limit_ns;

	if (!br->has_limit)
		return false;
	/* The share pays for the counted runs too: keep what they will take
	 * at the least, when that fits in it; counted runs that cannot fit
	 * even so would leave the rounds nothing and count nothing either, so
	 * then the rounds take the share. */
	if (br->limit == RESULTS_TIME_BUDGET_MAX_TOTAL_TIME) {
		uint64_t reserve = counted_estimate_ns(br, COUNTER_SLOWDOWN_LOW, NULL);
		if (reserve < limit)
			limit -= reserve;
	}
	if (elapsed < limit)
		return false;
	br->ran_out = br->limit;
	return true;
}

uint64_t engine_budget_left_ns(const struct bench_run *br)
{
	const struct time_budget *b = &br->r->budget;
	uint64_t spent;

	if (!b->total_ns)
		return UINT64_MAX;
	spent = b->spent_ns + stretch_ns(br);
	return b->total_ns > spent ? b->total_ns - spent : 0;
}

void budget_describe_limit(const struct bench_run *br, struct strbuf *sb)
{
	double s = (double)br->limit_ns / 1e9;

	if (br->has_limit)
		strbuf_addf(sb, s < 10 ? " or %.3g s" : " or %.0f s", s);
}
