/*
 * Warmup, stopping and round order: see schedule.h.
 */
#include "engine/schedule.h"

#include "common/alloc.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

void warmup_auto_init(struct warmup_auto *w)
{
	memset(w, 0, sizeof(*w));
	w->plan = WARMUP_PLAN_STANDARD;
}

void warmup_auto_release(struct warmup_auto *w)
{
	if (!w)
		return;
	free(w->durations_ns);
	warmup_auto_init(w);
}

const char *warmup_plan_name(enum warmup_plan p)
{
	switch (p) {
	case WARMUP_PLAN_STANDARD:
		return "standard";
	case WARMUP_PLAN_LARGE:
		return "large";
	}
	return "standard";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Median of n durations (n <= 16), as a double to keep halves. */
static double median_of(const uint64_t *d, size_t n)
{
	uint64_t tmp[16];

	memcpy(tmp, d, n * sizeof(*d));
	qsort(tmp, n, sizeof(*tmp), cmp_u64);
	if (n % 2)
		return (double)tmp[n / 2];
	return ((double)tmp[n / 2 - 1] + (double)tmp[n / 2]) / 2.0;
}

static bool last_runs_stable(const struct warmup_auto *w)
{
	const uint64_t *last = w->durations_ns + w->runs - WARMUP_STABLE_RUNS;
	double mid;
	size_t i;

	if (w->runs < WARMUP_STABLE_RUNS)
		return false;
	mid = median_of(last, WARMUP_STABLE_RUNS);
	if (mid <= 0)
		return true;
	for (i = 0; i < WARMUP_STABLE_RUNS; i++) {
		double dev = ((double)last[i] - mid) / mid;
		if (dev > WARMUP_STABLE_TOL || dev < -WARMUP_STABLE_TOL)
			return false;
	}
	return true;
}

static bool last_runs_long(const struct warmup_auto *w)
{
	size_t i;

	if (w->runs < WARMUP_STABLE_RUNS)
		return false;
	for (i = w->runs - WARMUP_STABLE_RUNS; i < w->runs; i++)
		if (w->durations_ns[i] < WARMUP_LARGE_RUN_NS)
			return false;
	return true;
}

static bool windows_stable(const struct warmup_auto *w)
{
	double last, before, dev;

	if (w->runs < 2 * WARMUP_LARGE_WINDOW)
		return false;
	last = median_of(w->durations_ns + w->runs - WARMUP_LARGE_WINDOW, WARMUP_LARGE_WINDOW);
	before =
		median_of(w->durations_ns + w->runs - 2 * WARMUP_LARGE_WINDOW, WARMUP_LARGE_WINDOW);
	if (before <= 0)
		return true;
	dev = (last - before) / before;
	return dev <= WARMUP_STABLE_TOL && dev >= -WARMUP_STABLE_TOL;
}

static bool finish(struct warmup_auto *w, bool settled)
{
	w->done = true;
	w->settled = settled;
	return true;
}

bool warmup_auto_feed(struct warmup_auto *w, uint64_t duration_ns)
{
	if (w->done)
		return true;
	w->durations_ns = xgrow(w->durations_ns, &w->alloc, w->runs + 1, sizeof(*w->durations_ns));
	w->durations_ns[w->runs++] = duration_ns;
	w->elapsed_ns += duration_ns;

	switch (w->plan) {
	case WARMUP_PLAN_STANDARD:
		if (w->elapsed_ns < WARMUP_MIN_NS)
			return false;
		if (last_runs_stable(w))
			return finish(w, true);
		if (last_runs_long(w)) {
			w->plan = WARMUP_PLAN_LARGE;
			return false;
		}
		if (w->elapsed_ns >= WARMUP_STANDARD_MAX_NS)
			return finish(w, false);
		return false;
	case WARMUP_PLAN_LARGE:
		if (windows_stable(w))
			return finish(w, true);
		if (w->elapsed_ns >= WARMUP_LARGE_MAX_NS)
			return finish(w, false);
		return false;
	}
	return finish(w, false);
}

bool stop_rule_done(const struct stop_rule *rule, const unsigned *counts, const uint64_t *time_ns,
		    size_t n)
{
	size_t i;
	bool all_enough = true;

	for (i = 0; i < n; i++) {
		if (rule->runs) {
			if (counts[i] < rule->runs)
				return false;
			continue;
		}
		if (counts[i] >= rule->max_runs)
			return true;
		if (counts[i] < rule->min_runs || time_ns[i] < rule->min_time_ns)
			all_enough = false;
	}
	return all_enough;
}

unsigned stop_rule_certain_runs(const struct stop_rule *rule, unsigned count)
{
	unsigned want = rule->runs ? rule->runs : rule->min_runs;

	if (!rule->runs && want > rule->max_runs)
		want = rule->max_runs;
	return count < want ? want - count : 0;
}

void stop_rule_long_run(struct stop_rule *rule, unsigned long_runs, uint64_t max_ns, bool declared,
			double mean_round_ns)
{
	unsigned n = rule->runs > long_runs ? rule->runs : long_runs;
	bool fits = mean_round_ns > 0 && (double)n * mean_round_ns <= (double)max_ns;

	if (!declared && !fits)
		return;
	if (rule->runs) {
		rule->runs = n;
		return;
	}
	if (rule->min_runs < n)
		rule->min_runs = n;
	if (rule->max_runs < n)
		rule->max_runs = n;
}

void schedule_round_order(struct rng *rng, size_t *order, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	rng_shuffle(rng, order, n);
}

bool schedule_base_first(struct rng *rng)
{
	return (rng_next(rng) >> 63) != 0;
}
