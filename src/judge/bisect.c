/*
 * Bisect that classifies: the change to locate (bad against good) and the
 * placement of each candidate against the midpoint of the two levels. See
 * bisect.h for how a search drives it and docs/sweeps.md for why the whole
 * search keeps its error bound. One rule for timings and counts: each forms
 * an interval (judge_interval_at's on pairs, the counts rule's on counts),
 * and target_judge and step_judge test it against the midpoint.
 */
#include "judge/bisect.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/banned.h"

static void say(char *reason, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *reason, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, size, fmt, ap);
	va_end(ap);
}

static double percent(double log_ratio)
{
	return expm1(log_ratio) * 100.0;
}

/* Whether [low, high] lies beyond m on the side `sign` points to (+1: above,
 * -1: below). */
static bool beyond(double low, double high, double m, int sign)
{
	return sign > 0 ? low > m : high < m;
}

/* Why an interval could not be formed or judged at all; NULL when it can. */
static const char *unusable(const struct judge_interval *iv)
{
	if (iv->zero_base)
		return "the good commit's measurement is zero";
	if (iv->at_floor)
		return "the peak RSS is at or below the measurement floor";
	return NULL;
}

void judge_bisect_target_begin(const struct judge_plan *plan, struct judge_bisect_target *t)
{
	memset(t, 0, sizeof(*t));
	t->looks_planned = plan->n_looks;
	t->confidence = plan->confidence;
}

/* What n pairs of a reason are: runs per side on counts. */
static const char *pairs_word(bool counts, size_t n)
{
	if (!counts)
		return "pairs";
	return n == 1 ? "run per side" : "runs per side";
}

static void target_not_located(struct judge_bisect_target *t, const struct judge_interval *iv)
{
	const char *why = unusable(iv);

	if (why)
		say(t->reason, sizeof(t->reason), "%s", why);
	else if (!iv->has_interval)
		say(t->reason, sizeof(t->reason), "bad against good has no interval after %zu %s",
		    iv->pairs, pairs_word(t->counts, iv->pairs));
	else
		say(t->reason, sizeof(t->reason),
		    "bad against good is %+.1f%% (%+.1f%% … %+.1f%%) after %zu %s: its interval "
		    "reaches half of it, %+.1f%%",
		    percent(iv->estimate), percent(iv->low), percent(iv->high), iv->pairs,
		    pairs_word(t->counts, iv->pairs), percent(iv->estimate / 2.0));
}

/* The target as one interval of bad against good says it: located when the
 * interval lies beyond half its own estimate on the estimate's side. */
static void target_judge(const struct judge_interval *iv, struct judge_bisect_target *t)
{
	int sign = iv->estimate > 0 ? 1 : -1;

	t->pairs = (unsigned)iv->pairs;
	t->has_interval = iv->has_interval;
	t->change = iv->estimate;
	t->low = iv->low;
	t->high = iv->high;
	t->midpoint = iv->estimate / 2.0;
	t->located = iv->has_interval && !unusable(iv) && iv->estimate != 0.0 &&
		     beyond(iv->low, iv->high, t->midpoint, sign);
	t->reason[0] = '\0';
	if (!t->located)
		target_not_located(t, iv);
}

bool judge_bisect_target_look(const struct judge_plan *plan, const struct judge_metric_input *in,
			      unsigned look, struct judge_bisect_target *t)
{
	struct judge_interval iv;

	if (t->final)
		return true;
	judge_interval_at(plan, in, look, &iv);
	if (iv.pairs == 0)
		return false;
	t->looks_used = look + 1;
	target_judge(&iv, t);
	t->final = t->located || look + 1 >= plan->n_looks;
	return t->final;
}

void judge_bisect_locate(const struct judge_plan *plan, const struct judge_metric_input *in,
			 struct judge_bisect_target *t)
{
	unsigned look;

	judge_bisect_target_begin(plan, t);
	for (look = 0; look < plan->n_looks && in->n >= plan->looks[look]; look++)
		if (judge_bisect_target_look(plan, in, look, t))
			return;
}

void judge_bisect_begin(const struct judge_plan *plan, const struct judge_bisect_target *t,
			struct judge_bisect_step *out)
{
	memset(out, 0, sizeof(*out));
	out->place = JUDGE_BISECT_UNPLACED;
	out->looks_planned = plan->n_looks;
	out->confidence = plan->confidence;
	out->midpoint_percent = percent(t->midpoint);
}

/* Where [low, high] lies against the target's midpoint. */
static enum judge_bisect_place place_of(const struct judge_bisect_target *t,
					const struct judge_interval *iv)
{
	int bad = t->change > 0 ? 1 : -1;

	if (!iv->has_interval || unusable(iv))
		return JUDGE_BISECT_UNPLACED;
	if (beyond(iv->low, iv->high, t->midpoint, bad))
		return JUDGE_BISECT_BAD;
	if (beyond(iv->low, iv->high, t->midpoint, -bad))
		return JUDGE_BISECT_GOOD;
	return JUDGE_BISECT_UNPLACED;
}

/* The step as one interval of the candidate against good says it. */
static void step_judge(const struct judge_bisect_target *t, const struct judge_interval *iv,
		       struct judge_bisect_step *out)
{
	const char *why;

	out->pairs = (unsigned)iv->pairs;
	out->has_interval = iv->has_interval;
	out->change_percent = percent(iv->estimate);
	out->ci_low_percent = iv->has_interval ? percent(iv->low) : 0.0;
	out->ci_high_percent = iv->has_interval ? percent(iv->high) : 0.0;
	out->place = place_of(t, iv);
	out->reason[0] = '\0';
	if (out->place != JUDGE_BISECT_UNPLACED)
		return;
	if ((why = unusable(iv)))
		say(out->reason, sizeof(out->reason), "%s", why);
	else if (!iv->has_interval)
		say(out->reason, sizeof(out->reason), "no interval yet after %zu %s", iv->pairs,
		    pairs_word(out->counts, iv->pairs));
	else
		say(out->reason, sizeof(out->reason),
		    "the interval %+.1f%% … %+.1f%% still contains the midpoint %+.1f%% after %zu "
		    "%s",
		    out->ci_low_percent, out->ci_high_percent, out->midpoint_percent, iv->pairs,
		    pairs_word(out->counts, iv->pairs));
}

bool judge_bisect_look(const struct judge_plan *plan, const struct judge_bisect_target *t,
		       const struct judge_metric_input *in, unsigned look,
		       struct judge_bisect_step *out)
{
	struct judge_interval iv;

	assert(t->located);
	if (out->final)
		return true;
	judge_interval_at(plan, in, look, &iv);
	if (iv.pairs == 0)
		return false;
	out->looks_used = look + 1;
	step_judge(t, &iv, out);
	out->final = out->place != JUDGE_BISECT_UNPLACED || look + 1 >= plan->n_looks;
	return out->final;
}

void judge_bisect_place(const struct judge_plan *plan, const struct judge_bisect_target *t,
			const struct judge_metric_input *in, struct judge_bisect_step *out)
{
	unsigned look;

	judge_bisect_begin(plan, t, out);
	for (look = 0; look < plan->n_looks && in->n >= plan->looks[look]; look++)
		if (judge_bisect_look(plan, t, in, look, out))
			return;
}

/* ---- on counts ------------------------------------------------------------ */

/*
 * The counts rule's interval of head against base (judge/counts.h), on the
 * log scale: the change of the medians widened by the two sides' spreads
 * added, [change - margin, change + margin]. None on a side beyond the noise
 * bound (*d says why) or a zero count; a zero base is unusable as on
 * timings. d is the counts rule's decision, for its reasons and its runs.
 */
static void counts_interval(const struct counts_input *in, struct counts_decision *d,
			    struct judge_interval *iv)
{
	counts_decide(in, d);
	memset(iv, 0, sizeof(*iv));
	iv->pairs = in->n_base < in->n_head ? in->n_base : in->n_head;
	iv->zero_base = d->base_median <= 0;
	if (iv->zero_base || d->head_median <= 0)
		return;
	iv->estimate = log(d->head_median / d->base_median);
	iv->has_interval = d->spread <= in->noise_bound && d->change - d->margin > -1.0;
	if (!iv->has_interval)
		return;
	iv->low = log1p(d->change - d->margin);
	iv->high = log1p(d->change + d->margin);
}

/* The runs per side the counts rule takes next when a count did not decide:
 * noisy sides as it asks; an interval that reaches the midpoint only while
 * the sides' spreads widen it (more runs may narrow them, as for a change
 * within the spread of a tolerance); none for a zero count, or constant
 * counts, which more runs do not move. */
static unsigned counts_more(const struct counts_input *in, const struct counts_decision *d,
			    const struct judge_interval *iv)
{
	if (d->spread > in->noise_bound)
		return d->more_runs ? d->runs_next : 0;
	if (!iv->has_interval || d->margin <= 0)
		return 0;
	return counts_runs_next(in, iv->pairs);
}

/* Why a count has no interval, good's being usable: `what` counted 0, or
 * the counts rule's reason for noisy sides. */
static void counts_why_not(const struct counts_decision *d, const char *what, char *reason,
			   size_t size)
{
	if (d->head_median <= 0)
		say(reason, size, "%s counted 0 against good's %.17g: no ratio", what,
		    d->base_median);
	else
		say(reason, size, "%s", d->reason);
}

/* Why a change on counts whose midpoint lies within the noise bound is not
 * located. */
static void within_bound(const struct counts_input *in, size_t runs, struct judge_bisect_target *t)
{
	if (t->change == 0.0)
		say(t->reason, sizeof(t->reason), "bad and good counted the same after %zu %s",
		    runs, pairs_word(true, runs));
	else
		say(t->reason, sizeof(t->reason),
		    "bad against good is %+.3g%% after %zu %s: half of it, %+.3g%%, is within the "
		    "noise bound %.3g%%",
		    percent(t->change), runs, pairs_word(true, runs), percent(t->midpoint),
		    100 * in->noise_bound);
}

void judge_bisect_counts_locate(const struct counts_input *in, struct judge_bisect_target *t,
				unsigned *more)
{
	struct counts_decision d;
	struct judge_interval iv;

	memset(t, 0, sizeof(*t));
	t->counts = true;
	t->confidence = 1;
	t->looks_planned = t->looks_used = 1;
	counts_interval(in, &d, &iv);
	target_judge(&iv, t);
	*more = 0;
	if (iv.has_interval && fabs(expm1(t->midpoint)) <= in->noise_bound) {
		/* as the counts rule calls no change within the noise bound */
		t->located = false;
		within_bound(in, iv.pairs, t);
	} else if (!t->located) {
		if (!iv.has_interval && !iv.zero_base)
			counts_why_not(&d, "bad", t->reason, sizeof(t->reason));
		*more = counts_more(in, &d, &iv);
	}
	t->final = *more == 0;
}

void judge_bisect_counts_place(const struct judge_bisect_target *t, const struct counts_input *in,
			       struct judge_bisect_step *out, unsigned *more)
{
	struct counts_decision d;
	struct judge_interval iv;

	assert(t->located);
	memset(out, 0, sizeof(*out));
	out->counts = true;
	out->confidence = 1;
	out->looks_planned = out->looks_used = 1;
	out->midpoint_percent = percent(t->midpoint);
	counts_interval(in, &d, &iv);
	step_judge(t, &iv, out);
	*more = 0;
	if (out->place == JUDGE_BISECT_UNPLACED && !iv.has_interval && !iv.zero_base)
		counts_why_not(&d, "the candidate", out->reason, sizeof(out->reason));
	if (out->place == JUDGE_BISECT_UNPLACED)
		*more = counts_more(in, &d, &iv);
	out->final = *more == 0;
}

enum judge_bisect_place judge_bisect_combine(const enum judge_bisect_place *p, size_t n)
{
	size_t i, good = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == JUDGE_BISECT_BAD)
			return JUDGE_BISECT_BAD;
		good += p[i] == JUDGE_BISECT_GOOD;
	}
	return n > 0 && good == n ? JUDGE_BISECT_GOOD : JUDGE_BISECT_UNPLACED;
}

/* How one finding moves the outcome so far (*placed: commands placed). */
static enum step_outcome outcome_fold(const struct step_finding *f, enum judge_bisect_place place,
				      enum step_outcome out, size_t *placed)
{
	switch (f->kind) {
	case STEP_SUITE_FAILED:
		return STEP_FAILED;
	case STEP_BENCHMARK_FAILED:
	case STEP_COMMAND_FAILED:
	case STEP_NOT_MEASURED:
		return out == STEP_BAD ? out : STEP_FAILED;
	case STEP_NOT_COMPARED:
		return out;
	case STEP_COMPARED:
		break;
	}
	(*placed)++;
	if (place == JUDGE_BISECT_BAD)
		return STEP_BAD;
	if (place == JUDGE_BISECT_UNPLACED && out == STEP_GOOD)
		return STEP_UNPLACED;
	return out;
}

enum step_outcome judge_bisect_outcome(const struct step_finding *f,
				       const enum judge_bisect_place *place, size_t n)
{
	enum step_outcome out = STEP_GOOD;
	size_t i, placed = 0;

	for (i = 0; i < n; i++)
		out = outcome_fold(&f[i], place[i], out, &placed);
	return out == STEP_GOOD && placed == 0 ? STEP_UNPLACED : out;
}
