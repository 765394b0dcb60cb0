/*
 * Bisect that classifies: the change to locate (bad against good) and the
 * placement of each candidate against the midpoint of the two levels. See
 * bisect.h for how a search drives it and docs/sweeps.md for why the whole
 * search keeps its error bound.
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

static void target_not_located(struct judge_bisect_target *t, const struct judge_interval *iv)
{
	const char *why = unusable(iv);

	if (why)
		say(t->reason, sizeof(t->reason), "%s", why);
	else if (!iv->has_interval)
		say(t->reason, sizeof(t->reason),
		    "bad against good has no interval after %zu pairs", iv->pairs);
	else
		say(t->reason, sizeof(t->reason),
		    "bad against good is %+.1f%% (%+.1f%% … %+.1f%%) after %zu pairs: its interval "
		    "reaches half of it, %+.1f%%",
		    percent(iv->estimate), percent(iv->low), percent(iv->high), iv->pairs,
		    percent(iv->estimate / 2.0));
}

bool judge_bisect_target_look(const struct judge_plan *plan, const struct judge_metric_input *in,
			      unsigned look, struct judge_bisect_target *t)
{
	struct judge_interval iv;
	int sign;

	if (t->final)
		return true;
	judge_interval_at(plan, in, look, &iv);
	if (iv.pairs == 0)
		return false;
	t->looks_used = look + 1;
	t->pairs = (unsigned)iv.pairs;
	t->has_interval = iv.has_interval;
	t->change = iv.estimate;
	t->low = iv.low;
	t->high = iv.high;
	t->midpoint = iv.estimate / 2.0;
	sign = iv.estimate > 0 ? 1 : -1;
	t->located = iv.has_interval && !unusable(&iv) && iv.estimate != 0.0 &&
		     beyond(iv.low, iv.high, t->midpoint, sign);
	t->final = t->located || look + 1 >= plan->n_looks;
	t->reason[0] = '\0';
	if (!t->located)
		target_not_located(t, &iv);
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

bool judge_bisect_look(const struct judge_plan *plan, const struct judge_bisect_target *t,
		       const struct judge_metric_input *in, unsigned look,
		       struct judge_bisect_step *out)
{
	struct judge_interval iv;
	const char *why;

	assert(t->located);
	if (out->final)
		return true;
	judge_interval_at(plan, in, look, &iv);
	if (iv.pairs == 0)
		return false;
	out->looks_used = look + 1;
	out->pairs = (unsigned)iv.pairs;
	out->has_interval = iv.has_interval;
	out->change_percent = percent(iv.estimate);
	out->ci_low_percent = iv.has_interval ? percent(iv.low) : 0.0;
	out->ci_high_percent = iv.has_interval ? percent(iv.high) : 0.0;
	out->place = place_of(t, &iv);
	out->final = out->place != JUDGE_BISECT_UNPLACED || look + 1 >= plan->n_looks;
	out->reason[0] = '\0';
	if (out->place != JUDGE_BISECT_UNPLACED)
		return out->final;
	if ((why = unusable(&iv)))
		say(out->reason, sizeof(out->reason), "%s", why);
	else if (!iv.has_interval)
		say(out->reason, sizeof(out->reason), "no interval yet after %zu pairs", iv.pairs);
	else
		say(out->reason, sizeof(out->reason),
		    "the interval %+.1f%% … %+.1f%% still contains the midpoint %+.1f%% after %zu "
		    "pairs",
		    out->ci_low_percent, out->ci_high_percent, out->midpoint_percent, iv.pairs);
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
