/*
 * The paired comparison of two revisions (docs/comparison.md): the look schedule,
 * the per-pair log ratios, the Hodges–Lehmann interval against the practical
 * band, and the rules that turn an interval into a verdict (noise gate,
 * zero base, measurement floor, derived throughput). Budgets and command
 * results are in budget.c. See judge.h for how the planner drives it.
 */
#include "judge/judge.h"

#include "common/alloc.h"
#include "common/rng.h"
#include "stats/signrank.h"
#include "stats/stats.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static const unsigned schedule[JUDGE_SCHEDULE_LOOKS] = { 10, 15, 22, 33, 50, 75, 112, 168, 252 };

#define REASON_STRADDLES  "the interval still straddles the tolerance after %zu pair%s"
#define REASON_TIME	  "the time budget ran out after %zu pair%s"
#define REASON_TOTAL_TIME "the comparison's time budget ran out after %zu pair%s"
#define REASON_HAIR                                                                                \
	"within the tolerance but for a hair: the interval %+.2f%% … %+.2f%% lies within the "   \
	"band widened by a tenth (%+.2f%% … %+.2f%%)"
#define REASON_NOISY	"measurements are noisier than max_cv"
#define REASON_ZERO	"the base measurement is zero"
#define REASON_FLOOR	"the peak RSS is at or below the measurement floor"
#define REASON_FLOORS	"the peak RSS is at or below the measurement floor on both sides"
#define REASON_NO_PAIRS "no successful samples"
#define REASON_GATED_DONE                                                                          \
	"the interval still straddles the tolerance after %zu pairs, when the command's gated "    \
	"metrics were decided"

/* Fills looks[] for the settings with `last` as runs or max_runs; returns K. */
static unsigned plan_looks(const struct judge_settings *s, unsigned last, unsigned *looks)
{
	unsigned n = 0, i;

	if (s->runs) {
		looks[0] = last;
		return 1;
	}
	for (i = 0; i < JUDGE_SCHEDULE_LOOKS; i++)
		if (schedule[i] >= s->min_samples && schedule[i] <= last)
			looks[n++] = schedule[i];
	if (n == 0 || looks[n - 1] != last)
		looks[n++] = last;
	return n;
}

/* Whether the last look of `last` pairs gives an interval: k >= 1 exactly
 * when P(T+ <= 0) = 2^-n <= a/2 (the sign test's bound is the same). */
static bool last_look_has_interval(const struct judge_settings *s, unsigned last)
{
	unsigned looks[JUDGE_MAX_LOOKS];
	unsigned k = plan_looks(s, last, looks);
	double a = (1.0 - s->confidence) / (double)k;

	return signrank_look_k(last, a) >= 1;
}

static int refuse_no_interval(const struct judge_settings *s, struct err *err)
{
	const char *name = s->runs ? "runs" : "max_runs";
	unsigned last = s->runs ? s->runs : s->max_runs, need = last;

	while (need < 4096 && !last_look_has_interval(s, need))
		need++;
	return err_set(err, ERR_INVALID,
		       "%s %u cannot give a %g%% confidence interval: it needs at least %u pairs",
		       name, last, s->confidence * 100.0, need);
}

int judge_plan_init(struct judge_plan *plan, const struct judge_settings *s, struct err *err)
{
	unsigned last = s->runs ? s->runs : s->max_runs, i;

	memset(plan, 0, sizeof(*plan));
	if (!(s->confidence > 0.0 && s->confidence < 1.0))
		return err_set(err, ERR_INVALID, "confidence %g must be between 0 and 1",
			       s->confidence);
	if (last == 0)
		return err_set(err, ERR_INVALID, "%s must be at least 1",
			       s->runs ? "runs" : "max_runs");
	plan->runs_fixed = s->runs != 0;
	plan->confidence = s->confidence;
	plan->alpha = 1.0 - s->confidence;
	plan->n_looks = plan_looks(s, last, plan->looks);
	plan->a = plan->alpha / (double)plan->n_looks;
	for (i = 0; i < plan->n_looks; i++)
		plan->k[i] = signrank_look_k(plan->looks[i], plan->a);
	if (plan->k[plan->n_looks - 1] == 0) {
		memset(plan, 0, sizeof(*plan));
		return refuse_no_interval(s, err);
	}
	if (last < s->min_samples) {
		memset(plan, 0, sizeof(*plan));
		return err_set(err, ERR_INVALID, "%s %u is below min_samples %u",
			       s->runs ? "runs" : "max_runs", last, s->min_samples);
	}
	return 0;
}

double judge_bisect_confidence(double confidence, unsigned candidates)
{
	unsigned steps = 0;

	/* Not a confidence: returned as is, for judge_plan_init() to refuse. */
	if (!(confidence > 0.0 && confidence < 1.0))
		return confidence;
	while (steps < 64 && (UINT64_C(1) << steps) < candidates)
		steps++;
	return steps <= 1 ? confidence : 1.0 - (1.0 - confidence) / (double)steps;
}

bool judge_metric_compared(enum metric m)
{
	switch (m) {
	case METRIC_LATENCY:
	case METRIC_CPU_TOTAL:
	case METRIC_PEAK_RSS:
		return true;
	case METRIC_THROUGHPUT:
	case METRIC_CPU_USER:
	case METRIC_CPU_SYSTEM:
	case METRIC_CPU_UTILIZATION:
	case METRIC_ARTIFACT_SIZE: /* counts: judge/counts.h */
	case METRIC_INSTRUCTIONS:
	case METRIC_ALLOCATIONS:
	case METRIC_ALLOCATED_BYTES:
	case METRIC__COUNT:
		break;
	}
	return false;
}

void judge_input_init(struct judge_metric_input *in, enum metric m)
{
	memset(in, 0, sizeof(*in));
	in->metric = m;
	in->tol.max_fraction =
		m == METRIC_PEAK_RSS ? TOLERANCE_DEFAULT_FRACTION_RSS : TOLERANCE_DEFAULT_FRACTION;
	in->tol.gate = true;
	in->tol.statistic = SIDE_MEDIAN;
	in->max_cv = TOLERANCE_DEFAULT_MAX_CV;
	in->resolution = 1.0;
	switch (m) {
	case METRIC_CPU_USER:
	case METRIC_CPU_SYSTEM:
	case METRIC_CPU_TOTAL:
		in->resolution = 1000.0; /* rusage: microseconds */
		in->discrete = true;
		break;
	case METRIC_PEAK_RSS:
		in->resolution = 1024.0; /* ru_maxrss: KiB on Linux */
		in->discrete = true;
		break;
	case METRIC_LATENCY:
	case METRIC_THROUGHPUT:
	case METRIC_CPU_UTILIZATION:
	case METRIC_ARTIFACT_SIZE:
	case METRIC_INSTRUCTIONS:
	case METRIC_ALLOCATIONS:
	case METRIC_ALLOCATED_BYTES:
	case METRIC__COUNT:
		break;
	}
}

void judge_begin(const struct judge_plan *plan, const struct judge_metric_input *in,
		 struct comparison *out)
{
	assert(judge_metric_compared(in->metric));
	memset(out, 0, sizeof(*out));
	out->metric = in->metric;
	out->statistic_shown = in->tol.statistic;
	out->confidence = plan->confidence;
	out->looks_planned = plan->n_looks;
	out->runs_fixed = plan->runs_fixed;
	out->max_fraction = in->tol.max_fraction;
	out->has_min_difference = in->tol.has_min_difference;
	out->min_difference = in->tol.min_difference;
	out->gate = in->tol.gate;
	out->verdict = VERDICT_INCONCLUSIVE;
}

static void set_reason(struct comparison *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_reason(struct comparison *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
}

/* The "s" of "N pairs", none for one pair. */
static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static double mean_of(const double *x, size_t n)
{
	double sum = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[i];
	return n ? sum / (double)n : 0.0;
}

static double shown(enum side_statistic st, const double *x, size_t n)
{
	if (n == 0)
		return 0.0;
	switch (st) {
	case SIDE_MEDIAN:
		return stats_median(x, n);
	case SIDE_MEAN:
		return mean_of(x, n);
	}
	return 0.0;
}

static double max_of(const double *x, size_t n)
{
	double m = x[0];
	size_t i;

	for (i = 1; i < n; i++)
		if (x[i] > m)
			m = x[i];
	return m;
}

/* One side's samples of the pairs used, as compared: raised to the side's
 * floor when its shown statistic is at or below it. */
struct side {
	double *x;
	bool at_floor;
	double median;
	double robust_cv;
	double min, max;
};

static void side_prepare(struct side *sd, const double *raw, const double *floor, size_t n,
			 enum side_statistic st)
{
	struct stats_summary sum;
	size_t i;

	sd->x = xmalloc(n * sizeof(*sd->x));
	memcpy(sd->x, raw, n * sizeof(*sd->x));
	sd->at_floor = false;
	if (floor) {
		double fl = max_of(floor, n);
		sd->at_floor = shown(st, raw, n) <= fl;
		if (sd->at_floor)
			for (i = 0; i < n; i++)
				if (sd->x[i] < fl)
					sd->x[i] = fl;
	}
	stats_summarize(sd->x, n, NULL, 0, &sum);
	sd->median = sum.median;
	sd->robust_cv = sum.robust_cv;
	sd->min = sum.min;
	sd->max = sum.max;
	stats_summary_release(&sum);
}

static void side_release(struct side *sd)
{
	free(sd->x);
	sd->x = NULL;
}

/* The practical band in log-ratio units (docs/comparison.md, "The tolerance band"). */
static void band(const struct judge_tolerance *tol, double base_median, double *dn, double *up)
{
	double mp = tol->max_fraction;

	*up = log1p(mp);
	*dn = mp >= 1.0 ? -INFINITY : log1p(-mp);
	if (tol->has_min_difference) {
		double rel = tol->min_difference / base_median;
		if (log1p(rel) > *up)
			*up = log1p(rel);
		if (rel >= 1.0)
			*dn = -INFINITY;
		else if (log1p(-rel) < *dn)
			*dn = log1p(-rel);
	}
}

/* A uniform draw strictly inside (0, 1), so that a jittered value floored
 * at half the resolution never reaches 0. */
static double open_uniform(struct rng *rng)
{
	return ((double)(rng_next(rng) >> 11) + 0.5) * 0x1.0p-53;
}

static double prepare_value(double v, const struct judge_metric_input *in, struct rng *rng)
{
	double half = in->resolution / 2.0;

	if (v < half)
		v = half;
	if (in->discrete)
		v += (open_uniform(rng) - 0.5) * in->resolution;
	return v;
}

/* r_j = ln(head_j) - ln(base_j) after flooring and seeded jitter; the jitter
 * of pair j is the same at every look. */
static void log_ratios(const struct judge_metric_input *in, const double *base, const double *head,
		       size_t n, double *r)
{
	char *stream = xasprintf("jitter\x1f%s\x1f%s\x1f%s", in->benchmark ? in->benchmark : "",
				 in->command ? in->command : "", metric_info(in->metric)->name);
	struct rng rng;
	size_t j;

	rng_init(&rng, in->seed, stream);
	free(stream);
	for (j = 0; j < n; j++) {
		double b = prepare_value(base[j], in, &rng);
		double h = prepare_value(head[j], in, &rng);
		r[j] = log(h) - log(b);
	}
}

static bool separated(const struct side *b, const struct side *h)
{
	return b->min > 0.0 && h->min > 0.0 && (h->min > b->max || h->max < b->min);
}

static bool too_noisy(const struct judge_metric_input *in, const struct side *b,
		      const struct side *h)
{
	if (in->max_cv <= 0.0)
		return false;
	if (b->robust_cv <= in->max_cv && h->robust_cv <= in->max_cv)
		return false;
	return !separated(b, h);
}

/* Where an estimate lies against the band, as a verdict: beyond it on one
 * side, or within it. */
static enum verdict side_of(double estimate, double dn, double up)
{
	if (estimate > up)
		return VERDICT_REGRESSION;
	if (estimate < dn)
		return VERDICT_IMPROVED;
	return VERDICT_PASS;
}

/*
 * The noise gate's second chance (docs/comparison.md, "Noise gate"): verdict
 * v of the whole interval stands on a noisy runner only when the first and
 * the second half of the pairs, each on its own, point the same way: both
 * halves' Hodges–Lehmann estimates beyond the band on v's side, or both
 * within it for a pass. The halves are in the order the pairs were run (the
 * second takes the odd one), so that a burst of load that moved a stretch
 * of pairs shows as halves that disagree.
 */
static bool halves_agree(const double *r, size_t n, enum verdict v, double dn, double up)
{
	struct signrank_interval first, second;
	size_t half = n / 2;

	if (half == 0)
		return false;
	signrank_interval(r, half, 0, &first);
	signrank_interval(r + half, n - half, 0, &second);
	return side_of(first.estimate, dn, up) == v && side_of(second.estimate, dn, up) == v;
}

/* The verdict of an interval against the band [dn, up] (docs/comparison.md,
 * "The tolerance band"); *hair when it passes only within the hair. */
static enum verdict interval_verdict(double low, double high, double dn, double up, bool *decided,
				     bool *hair)
{
	*decided = true;
	*hair = false;
	if (low > up)
		return VERDICT_REGRESSION;
	if (high < dn)
		return VERDICT_IMPROVED;
	if (dn <= low && high <= up)
		return VERDICT_PASS;
	if (dn * (1.0 + JUDGE_HAIR) <= low && high <= up * (1.0 + JUDGE_HAIR)) {
		*hair = true;
		return VERDICT_PASS;
	}
	*decided = false;
	return VERDICT_INCONCLUSIVE;
}

static void hair_reason(struct comparison *out, double dn, double up)
{
	set_reason(out, REASON_HAIR, out->ci_low_percent, out->ci_high_percent,
		   isinf(dn) ? -100.0 : expm1(dn * (1.0 + JUDGE_HAIR)) * 100.0,
		   expm1(up * (1.0 + JUDGE_HAIR)) * 100.0);
}

/* A verdict that survives a side at its floor: only a regression from a base
 * at the floor or an improvement to a head at the floor (the real change can
 * only be larger). */
static bool survives_floor(enum verdict v, const struct side *b, const struct side *h)
{
	if (!b->at_floor && !h->at_floor)
		return true;
	return (v == VERDICT_REGRESSION && b->at_floor) || (v == VERDICT_IMPROVED && h->at_floor);
}

static void fill_band(struct comparison *out, double dn, double up)
{
	out->band_high_percent = expm1(up) * 100.0;
	out->band_low_infinite = isinf(dn);
	out->band_low_percent = out->band_low_infinite ? -100.0 : expm1(dn) * 100.0;
}

static void fill_interval(struct comparison *out, const struct signrank_interval *iv)
{
	out->sign_test = iv->sign_test;
	out->has_estimate = iv->has_interval;
	if (!iv->has_interval) {
		out->change_percent = out->ci_low_percent = out->ci_high_percent = 0.0;
		return;
	}
	out->change_percent = expm1(iv->estimate) * 100.0;
	out->ci_low_percent = expm1(iv->low) * 100.0;
	out->ci_high_percent = expm1(iv->high) * 100.0;
}

/* The verdict of an interval that is not decisive once no more looks come. */
static void settle_undecided(struct comparison *out, bool noisy, bool floor, size_t pairs)
{
	out->verdict = VERDICT_INCONCLUSIVE;
	if (noisy)
		set_reason(out, REASON_NOISY);
	else if (floor)
		set_reason(out, REASON_FLOOR);
	else
		set_reason(out, REASON_STRADDLES, pairs, plural(pairs));
}

/* Whether look number `look` can be made: the comparison is open, the look is
 * planned and in has its pairs. A unit that stopped early (its setup failed,
 * its gated metrics were decided) has fewer pairs than a later look needs:
 * an honest state that judge_finish() settles, not an error. */
static bool look_reached(const struct judge_plan *plan, const struct judge_metric_input *in,
			 unsigned look, const struct comparison *out)
{
	return !out->final && look < plan->n_looks && plan->looks[look] > 0 &&
	       in->n >= plan->looks[look];
}

bool judge_look(const struct judge_plan *plan, const struct judge_metric_input *in, unsigned look,
		struct comparison *out)
{
	size_t n = look < plan->n_looks ? plan->looks[look] : 0;
	struct side b = { .x = NULL }, h = { .x = NULL };
	struct signrank_interval iv;
	double dn, up, *r = NULL;
	bool decided, hair = false, noisy, floor_ok, last = look + 1 == plan->n_looks;
	enum verdict v;

	if (!look_reached(plan, in, look, out))
		return out->final;
	out->looks_used = look + 1;
	out->pairs = (unsigned)n;
	out->base = shown(in->tol.statistic, in->base, n);
	out->head = shown(in->tol.statistic, in->head, n);
	out->reason[0] = '\0';
	side_prepare(&b, in->base, in->base_floor, n, in->tol.statistic);
	side_prepare(&h, in->head, in->head_floor, n, in->tol.statistic);
	out->base_at_floor = b.at_floor;
	out->head_at_floor = h.at_floor;
	if (b.at_floor && h.at_floor) {
		out->verdict = VERDICT_SKIPPED;
		set_reason(out, REASON_FLOORS);
		out->final = true;
		goto done;
	}
	if (b.median <= 0.0) {
		out->verdict = VERDICT_INCONCLUSIVE;
		set_reason(out, REASON_ZERO);
		out->final = true;
		goto done;
	}
	band(&in->tol, b.median, &dn, &up);
	fill_band(out, dn, up);

	r = xmalloc(n * sizeof(*r));
	log_ratios(in, b.x, h.x, n, r);
	signrank_interval(r, n, plan->k[look], &iv);
	fill_interval(out, &iv);
	v = iv.has_interval ? interval_verdict(iv.low, iv.high, dn, up, &decided, &hair)
			    : (decided = false, VERDICT_INCONCLUSIVE);
	out->noisy = noisy = too_noisy(in, &b, &h);
	floor_ok = survives_floor(v, &b, &h);
	if (decided && floor_ok && (!noisy || halves_agree(r, n, v, dn, up))) {
		out->verdict = v;
		out->final = true;
		if (hair)
			hair_reason(out, dn, up);
	} else if ((decided && !floor_ok) || last) {
		/* held back by the floor, which more pairs do not lift, or out of
		 * looks; a noisy runner whose halves disagree gets the next look */
		settle_undecided(out, noisy && decided, b.at_floor || h.at_floor, n);
		out->final = true;
	} else {
		out->verdict = VERDICT_INCONCLUSIVE;
	}
done:
	judge_fill_seen(out);
	free(r);
	side_release(&h);
	side_release(&b);
	return out->final;
}

void judge_interval_at(const struct judge_plan *plan, const struct judge_metric_input *in,
		       unsigned look, struct judge_interval *out)
{
	size_t n = look < plan->n_looks ? plan->looks[look] : 0;
	struct side b = { .x = NULL }, h = { .x = NULL };
	struct signrank_interval iv;
	double *r;

	memset(out, 0, sizeof(*out));
	if (n == 0 || in->n < n)
		return;
	out->pairs = n;
	side_prepare(&b, in->base, in->base_floor, n, in->tol.statistic);
	side_prepare(&h, in->head, in->head_floor, n, in->tol.statistic);
	out->at_floor = b.at_floor || h.at_floor;
	out->zero_base = b.median <= 0.0;
	r = xmalloc(n * sizeof(*r));
	log_ratios(in, b.x, h.x, n, r);
	signrank_interval(r, n, plan->k[look], &iv);
	out->has_interval = iv.has_interval;
	out->estimate = iv.estimate;
	out->low = iv.low;
	out->high = iv.high;
	free(r);
	side_release(&h);
	side_release(&b);
}

void judge_finish(const struct judge_metric_input *in, enum judge_stop why, struct comparison *out)
{
	if (out->final)
		return;
	if (out->looks_used == 0) {
		out->base = shown(in->tol.statistic, in->base, in->n);
		out->head = shown(in->tol.statistic, in->head, in->n);
		out->pairs = (unsigned)in->n;
	}
	out->verdict = VERDICT_INCONCLUSIVE;
	out->final = true;
	switch (why) {
	case JUDGE_STOP_TIME_BUDGET:
		set_reason(out, REASON_TIME, in->n, plural(in->n));
		break;
	case JUDGE_STOP_TOTAL_TIME_BUDGET:
		set_reason(out, REASON_TOTAL_TIME, in->n, plural(in->n));
		break;
	case JUDGE_STOP_DECIDED:
		if (in->n == 0)
			set_reason(out, REASON_NO_PAIRS);
		else if (out->base_at_floor || out->head_at_floor)
			set_reason(out, REASON_FLOOR);
		else if (!out->gate)
			set_reason(out, REASON_GATED_DONE, (size_t)out->pairs);
		else
			set_reason(out, REASON_STRADDLES, (size_t)out->pairs, plural(out->pairs));
		break;
	}
	judge_fill_seen(out);
}

void judge_compare(const struct judge_plan *plan, const struct judge_metric_input *in,
		   enum judge_stop why, struct comparison *out)
{
	unsigned look;

	judge_begin(plan, in, out);
	for (look = 0; look < plan->n_looks && in->n >= plan->looks[look]; look++)
		if (judge_look(plan, in, look, out))
			return;
	judge_finish(in, why, out);
}

/* A latency change in percent as a rate change: 1/(1+c) - 1. */
static double reciprocal_percent(double p)
{
	return (100.0 / (100.0 + p) - 1.0) * 100.0;
}

/* A comparison of reciprocals turned over into the metric they are the
 * reciprocals of: the changes, the interval, what it could see and the band,
 * each as 1/(1+c) - 1, low and high swapped. */
static void turn_over(const struct comparison *latency, struct comparison *out)
{
	if (latency->has_estimate) {
		out->change_percent = reciprocal_percent(latency->change_percent);
		out->ci_low_percent = reciprocal_percent(latency->ci_high_percent);
		out->ci_high_percent = reciprocal_percent(latency->ci_low_percent);
	}
	/* what latency could see, turned over: its smallest slowdown is the
	 * smallest loss of throughput, and the other way round */
	out->has_detectable_high = latency->has_detectable_low;
	out->detectable_high_percent = latency->has_detectable_low
					       ? reciprocal_percent(latency->detectable_low_percent)
					       : 0;
	out->has_detectable_low = latency->has_detectable_high;
	out->detectable_low_percent = latency->has_detectable_high
					      ? reciprocal_percent(latency->detectable_high_percent)
					      : 0;
	out->band_low_percent = reciprocal_percent(latency->band_high_percent);
	out->band_low_infinite = false;
	out->band_high_infinite = latency->band_low_infinite;
	out->band_high_percent =
		latency->band_low_infinite ? 0.0 : reciprocal_percent(latency->band_low_percent);
}

void judge_derive_throughput(const struct comparison *latency, const struct judge_work *work,
			     struct comparison *out)
{
	const char *unit = work->unit ? work->unit : "";

	*out = *latency;
	out->metric = METRIC_THROUGHPUT;
	out->derived = true;
	out->gate = false;
	out->accepted = false;
	out->has_min_difference = false;
	out->min_difference = 0.0;
	out->max_fraction = latency->max_fraction / (1.0 + latency->max_fraction);
	if (!(work->base_min == work->base_max && work->head_min == work->head_max &&
	      work->base_min == work->head_min && work->base_min > 0.0)) {
		out->verdict = VERDICT_SKIPPED;
		out->final = true;
		out->has_estimate = false;
		out->change_percent = out->ci_low_percent = out->ci_high_percent = 0.0;
		judge_fill_seen(out); /* no interval: nothing seen */
		set_reason(
			out,
			"throughput needs constant, equal work: base %g to %g %s, head %g to %g %s",
			work->base_min, work->base_max, unit, work->head_min, work->head_max, unit);
		return;
	}
	out->base = latency->base > 0.0 ? work->base_min / (latency->base * 1e-9) : 0.0;
	out->head = latency->head > 0.0 ? work->head_min / (latency->head * 1e-9) : 0.0;
	turn_over(latency, out);
}

void judge_turn_higher(const struct comparison *swapped, enum metric m, struct comparison *out)
{
	*out = *swapped;
	out->metric = m;
	out->base = swapped->head;
	out->head = swapped->base;
	out->has_min_difference = false;
	out->min_difference = 0.0;
	out->max_fraction = swapped->max_fraction / (1.0 + swapped->max_fraction);
	turn_over(swapped, out);
}
