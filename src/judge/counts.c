/*
 * Deciding on counts (docs/comparison.md, "Deciding on counts"): a few runs
 * per side; while both sides stay within the noise bound, the change of the
 * medians is called against the tolerance, widened by the spreads the sides
 * showed; a side that varies more than the bound takes more runs, up to a
 * cap, and stays inconclusive with its spread.
 */
#include "judge/counts.h"

#include "common/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t *sorted_copy(const uint64_t *v, size_t n)
{
	uint64_t *s = xmalloc((n ? n : 1) * sizeof(*s));

	if (n)
		memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	return s;
}

static double median_of_sorted(const uint64_t *s, size_t n)
{
	if (n == 0)
		return 0;
	if (n % 2)
		return (double)s[n / 2];
	return ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2;
}

static double median(const uint64_t *v, size_t n)
{
	uint64_t *s = sorted_copy(v, n);
	double m = median_of_sorted(s, n);

	free(s);
	return m;
}

double counts_spread(const uint64_t *v, size_t n)
{
	uint64_t *s;
	size_t trim;
	double lo, hi, m, out = 0;

	if (n == 0)
		return 0;
	s = sorted_copy(v, n);
	trim = (n - 1) / 4;
	lo = (double)s[trim];
	hi = (double)s[n - 1 - trim];
	m = median_of_sorted(s, n);
	if (hi > lo)
		out = (hi - lo) / (m > 0 ? m : hi);
	free(s);
	return out;
}

unsigned counts_runs_next(const struct counts_input *in, size_t runs)
{
	if (runs >= in->runs_cap)
		return 0;
	return runs + COUNTS_RUNS_STEP < in->runs_cap ? (unsigned)(runs + COUNTS_RUNS_STEP)
						      : in->runs_cap;
}

/* Settles the decision as inconclusive, or asks for more runs while under the cap. */
static void more_or_settle(const struct counts_input *in, size_t runs, struct counts_decision *out)
{
	out->verdict = VERDICT_INCONCLUSIVE;
	out->runs_next = counts_runs_next(in, runs);
	out->more_runs = out->runs_next > 0;
}

static void noisy(const struct counts_input *in, size_t runs, struct counts_decision *out)
{
	snprintf(out->reason, sizeof(out->reason),
		 "counts vary by %.3g%% between runs, more than the noise bound %.3g%%, after %zu "
		 "runs per side",
		 100 * out->spread, 100 * in->noise_bound, runs);
	more_or_settle(in, runs, out);
}

/* Base counted 0: no ratio. Both 0 is no change; a head above 0 is a change
 * beyond any tolerance. */
static void zero_base(struct counts_decision *out)
{
	if (out->head_median == 0) {
		out->verdict = VERDICT_PASS;
		out->has_change = true;
		return;
	}
	out->verdict = VERDICT_REGRESSION;
	snprintf(out->reason, sizeof(out->reason), "base counted 0, head %.17g: no relative change",
		 out->head_median);
}

/* Both sides quiet: the change against the band [-t, t], widened by the
 * spreads; no change within the noise bound is ever called. */
static void quiet(const struct counts_input *in, size_t runs, double margin,
		  struct counts_decision *out)
{
	double e = out->change, t = in->max_fraction, bound = in->noise_bound;

	if (e - margin > t && e > bound)
		out->verdict = VERDICT_REGRESSION;
	else if (e + margin < -t && -e > bound)
		out->verdict = VERDICT_IMPROVED;
	else if (e - margin >= -t && e + margin <= t)
		out->verdict = VERDICT_PASS;
	else if (fabs(e) <= bound) {
		out->verdict = VERDICT_INCONCLUSIVE;
		snprintf(out->reason, sizeof(out->reason),
			 "the change %+.3g%% is within the noise bound %.3g%%", 100 * e,
			 100 * bound);
	} else {
		snprintf(out->reason, sizeof(out->reason),
			 "the change %+.3g%% is within the spread %.3g%% of the tolerance %.3g%% "
			 "after %zu runs per side",
			 100 * e, 100 * margin, 100 * t, runs);
		more_or_settle(in, runs, out);
	}
}

void counts_decide(const struct counts_input *in, struct counts_decision *out)
{
	size_t runs = in->n_base < in->n_head ? in->n_base : in->n_head;
	double spread_base = counts_spread(in->base, in->n_base);
	double spread_head = counts_spread(in->head, in->n_head);

	memset(out, 0, sizeof(*out));
	out->verdict = VERDICT_INCONCLUSIVE;
	out->base_median = median(in->base, in->n_base);
	out->head_median = median(in->head, in->n_head);
	out->spread = spread_base > spread_head ? spread_base : spread_head;
	out->margin = spread_base + spread_head;
	if (out->base_median > 0) {
		out->has_change = true;
		out->change = out->head_median / out->base_median - 1;
	}
	if (out->spread > in->noise_bound) {
		noisy(in, runs, out);
		return;
	}
	if (out->base_median == 0) {
		zero_base(out);
		return;
	}
	quiet(in, runs, out->margin, out);
}

/* What a count's comparison could see (docs/comparison.md, "What a
 * comparison could see"): on quiet sides, a change beyond the tolerance
 * widened by the spreads, and never one within the noise bound; nothing on
 * noisy sides, which are never decided. */
static void seen(const struct counts_input *in, const struct counts_decision *d, double margin,
		 struct comparison *out)
{
	double least = in->max_fraction + margin;

	if (!d->has_change || d->spread > in->noise_bound)
		return;
	if (least < in->noise_bound)
		least = in->noise_bound;
	out->has_detectable_high = out->has_detectable_low = true;
	out->detectable_high_percent = 100 * least;
	out->detectable_low_percent = -100 * least;
}

void counts_compare(enum metric m, const struct counts_input *in, bool gate, struct comparison *out,
		    unsigned *more)
{
	struct counts_decision d;

	counts_decide(in, &d);
	memset(out, 0, sizeof(*out));
	out->metric = m;
	out->counts = true;
	out->statistic_shown = SIDE_MEDIAN;
	out->base = d.base_median;
	out->head = d.head_median;
	out->has_estimate = d.has_change;
	out->change_percent = 100 * d.change;
	out->ci_low_percent = 100 * (d.change - d.margin);
	out->ci_high_percent = 100 * (d.change + d.margin);
	out->confidence = 1;
	out->pairs = (unsigned)(in->n_base < in->n_head ? in->n_base : in->n_head);
	out->max_fraction = in->max_fraction;
	out->band_low_percent = -100 * in->max_fraction;
	out->band_high_percent = 100 * in->max_fraction;
	out->verdict = d.verdict;
	memcpy(out->reason, d.reason, sizeof(out->reason));
	out->gate = gate;
	out->final = !d.more_runs;
	out->spread_percent = 100 * d.spread;
	seen(in, &d, d.margin, out);
	*more = d.more_runs ? d.runs_next : 0;
}
