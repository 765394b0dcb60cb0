/*
 * Bisect that classifies (docs/sweeps.md, "himorime bisect"): the rule that
 * places a candidate commit nearer the good or nearer the bad one. Pure, as
 * the rest of the judge: samples in, a placement out.
 *
 * The search first measures bad against good: that is the change to locate,
 * D = ln(bad / good), with its interval. Each candidate is then measured
 * against good and its change tested against the midpoint of the two levels,
 * m = D / 2, at the step's own level: nearer bad when its whole interval lies
 * beyond m on bad's side, nearer good when it lies on good's side, and not
 * placed (yet) while it contains m. Not whether it is within tolerance of
 * good: a +15% step under noise that makes every interval ±6% wide is placed
 * as surely as a threefold one.
 *
 * How a search uses it, per step (one plan for all of them):
 *
 *     struct judge_settings s = <the benchmark's settings>;
 *     s.confidence = judge_bisect_confidence(s.confidence, candidates);
 *     judge_plan_init(&plan, &s, &err);
 *
 *     // bad against good: the change to locate (base = good, head = bad)
 *     judge_bisect_target_begin(&plan, &t);
 *     for (look = 0; !judge_bisect_target_look(&plan, &in, look, &t); look++)
 *             <run rounds up to plan.looks[look + 1] pairs>;
 *     if (!t.located) <stop: t.reason says why>;
 *
 *     // each candidate against good (base = good, head = the candidate)
 *     judge_bisect_begin(&plan, &t, &step);
 *     for (look = 0; !judge_bisect_look(&plan, &t, &in, look, &step); look++)
 *             <run rounds up to plan.looks[look + 1] pairs>;
 *     step.place: JUDGE_BISECT_GOOD, JUDGE_BISECT_BAD, or JUDGE_BISECT_UNPLACED
 *
 * judge_bisect_locate() and judge_bisect_place() do the same on complete
 * samples. With several commands, each has its own target; a command whose
 * good-to-bad change cannot be located takes no part, and a candidate is bad
 * when any command places it bad, good when every one places it good, and
 * unplaced otherwise (judge_bisect_combine()).
 *
 * On a count (instructions, allocations, allocated bytes, an artifact's
 * size) the rule is the same, its interval the counts rule's (judge/counts.h):
 * the change of the two sides' medians, widened by the spreads their runs
 * showed, on sides within the noise bound only. No looks and no confidence:
 * the rule is asked on every run so far, and while it wants more (*more, the
 * runs per side in all) the search counts up to that many and asks again, as
 * with counts_decide():
 *
 *     judge_bisect_counts_locate(&in, &t, &more);       // bad against good
 *     judge_bisect_counts_place(&t, &in, &step, &more); // a candidate
 *
 * A change is located only when its midpoint lies beyond the noise bound, so
 * that a commit at either level is never placed at the other by the few
 * instructions a count may move without a change of code.
 */
#ifndef HIMORIME_JUDGE_BISECT_H
#define HIMORIME_JUDGE_BISECT_H

#include "judge/counts.h"
#include "judge/judge.h"

#include <stdbool.h>

/* The change to locate: bad against good. */
struct judge_bisect_target {
	bool counts;  /* by the counts rule: pairs are runs per side, exact */
	bool final;   /* located, or out of looks */
	bool located; /* the interval lies beyond its own midpoint */
	unsigned looks_used, looks_planned;
	unsigned pairs; /* of the deciding (or last) look */
	double confidence;
	bool has_interval;
	/* ln(bad / good): the estimate, its interval, and m = change / 2 */
	double change, low, high, midpoint;
	char reason[200]; /* why it is not located */
};

enum judge_bisect_place {
	JUDGE_BISECT_UNPLACED, /* its interval still contains the midpoint */
	JUDGE_BISECT_GOOD,     /* nearer good */
	JUDGE_BISECT_BAD,      /* nearer bad */
};

/* One candidate against good. Percentages as in struct comparison. */
struct judge_bisect_step {
	bool counts; /* as in the target */
	enum judge_bisect_place place;
	bool final; /* placed, or out of looks */
	unsigned looks_used, looks_planned;
	unsigned pairs; /* of the deciding (or last) look */
	double confidence;
	bool has_interval;
	double change_percent, ci_low_percent, ci_high_percent; /* candidate / good - 1 */
	double midpoint_percent;				/* exp(m) - 1 */
	char reason[200];					/* why it is not placed */
};

/* Starts the target before its first look: not located, not final. */
void judge_bisect_target_begin(const struct judge_plan *plan, struct judge_bisect_target *t);

/*
 * Look number `look` of bad (in->head) against good (in->base). Returns
 * t->final: true at the first look whose interval lies beyond half its own
 * estimate on the estimate's side (located), and at the last look (not
 * located: "bad against good is +3.1% (-0.5% … +6.8%) after 252 pairs: its
 * interval reaches half of it, +1.5%", or no interval, a zero base, a side
 * at the floor). A look that cannot be made changes nothing, as
 * judge_look().
 */
bool judge_bisect_target_look(const struct judge_plan *plan, const struct judge_metric_input *in,
			      unsigned look, struct judge_bisect_target *t);

/* Every look in->n pairs reach, until located. */
void judge_bisect_locate(const struct judge_plan *plan, const struct judge_metric_input *in,
			 struct judge_bisect_target *t);

/* Starts a candidate's step before its first look: unplaced, not final.
 * t must be located. */
void judge_bisect_begin(const struct judge_plan *plan, const struct judge_bisect_target *t,
			struct judge_bisect_step *out);

/*
 * Look number `look` of the candidate (in->head) against good (in->base),
 * at the plan's level: placed bad when the interval lies beyond t's
 * midpoint on bad's side, good when it lies on good's side. Returns
 * out->final: placed, or the last look ("the interval +3.1% … +9.0% still
 * contains the midpoint +7.0% after 252 pairs"; a side at the floor or a
 * zero base cannot be placed either).
 */
bool judge_bisect_look(const struct judge_plan *plan, const struct judge_bisect_target *t,
		       const struct judge_metric_input *in, unsigned look,
		       struct judge_bisect_step *out);

/* Every look in->n pairs reach, until placed. */
void judge_bisect_place(const struct judge_plan *plan, const struct judge_bisect_target *t,
			const struct judge_metric_input *in, struct judge_bisect_step *out);

/*
 * Bad (in->head) against good (in->base) on counts: located when both sides
 * are within the noise bound, the interval lies beyond its own midpoint and
 * the midpoint beyond the noise bound. *more: the runs per side the rule
 * wants before it settles (noisy sides, or an interval that reaches the
 * midpoint, up to in->runs_cap), 0 when t is final. Not located says why:
 * the counts rule's reason for noisy sides, "bad against good is +0.15%
 * after 3 runs per side: half of it, +0.075%, is within the noise bound
 * 0.1%", a zero count.
 */
void judge_bisect_counts_locate(const struct counts_input *in, struct judge_bisect_target *t,
				unsigned *more);

/* A candidate (in->head) against good (in->base) on counts, t located on
 * counts: placed as judge_bisect_look() places an interval; *more as above. */
void judge_bisect_counts_place(const struct judge_bisect_target *t, const struct counts_input *in,
			       struct judge_bisect_step *out, unsigned *more);

/* Several commands' placements of one candidate: bad when any is bad, good
 * when every one is good (n > 0), unplaced otherwise. */
enum judge_bisect_place judge_bisect_combine(const enum judge_bisect_place *p, size_t n);

/*
 * What a comparison of the search makes of its candidate, from its findings
 * in their order (each suite's error, its benchmarks' errors, then every
 * command) and place[i], the placement of finding i when it is
 * STEP_COMPARED (a command that takes no part is STEP_NOT_COMPARED): bad
 * when a command places it bad, whatever failed beside it but a suite after
 * it; else failed when something could not run; else good when every
 * command that takes part places it good (judge_bisect_combine), and
 * unplaced otherwise, also when none takes part. Measuring bad against
 * good, a located change is JUDGE_BISECT_BAD: bad is then at bad's level.
 */
enum step_outcome judge_bisect_outcome(const struct step_finding *f,
				       const enum judge_bisect_place *place, size_t n);

#endif
