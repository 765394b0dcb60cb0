/*
 * Judging: budgets against measured samples, and the paired comparison of two
 * revisions (docs/comparison.md). Pure: no I/O, no processes, no git, no network;
 * deterministic given its inputs and seed.
 *
 * The data the rest of the program reads (a comparison's fields, a budget's
 * outcome) are plain types in common/types.h; reports store them as they are.
 *
 * How the stages use it:
 *   - before anything runs, judge_plan_init() turns the comparison settings
 *     into the looks (pairs at each look, the per-look level a = alpha / K,
 *     the critical k of each look) and refuses settings that can never give
 *     an interval (ERR_INVALID, a message the CLI shows, exit 2);
 *   - the planner runs rounds of pairs; at each look it calls judge_look()
 *     per compared metric, with all pairs so far, until the metric is final;
 *     when it stops early (time budget, or every gated metric decided) it
 *     calls judge_finish() on the others;
 *   - re-judging saved samples is judge_compare(), which does both;
 *   - throughput is judge_derive_throughput() from latency's comparison;
 *   - budgets are judge_budget(); a command's result is
 *     judge_command_result(); judge_result_fails() says whether it fails the
 *     job (exit 1) under --fail-on-inconclusive or not.
 */
#ifndef HIMORIME_JUDGE_JUDGE_H
#define HIMORIME_JUDGE_JUDGE_H

#include "common/err.h"
#include "common/types.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- The look schedule ------------------------------------------------ */

/* The fixed looks of docs/comparison.md ("Looks"), in pairs. */
#define JUDGE_SCHEDULE_LOOKS 9
#define JUDGE_MAX_LOOKS	     (JUDGE_SCHEDULE_LOOKS + 1)

/* Comparison settings of one benchmark; in comparisons runs, min_runs and
 * max_runs count pairs. */
struct judge_settings {
	double confidence;    /* 0 < confidence < 1; default 0.99 */
	unsigned min_samples; /* default 10 */
	unsigned max_runs;    /* pairs; default 252 */
	unsigned runs;	      /* 0: adaptive; else one look at this many pairs */
};

#define JUDGE_SETTINGS_INIT                                                                        \
	{                                                                                          \
		.confidence = 0.99, .min_samples = 10, .max_runs = 252, .runs = 0                  \
	}

struct judge_plan {
	bool runs_fixed; /* `runs` set: one look at that many pairs */
	double confidence;
	double alpha;			 /* 1 - confidence */
	double a;			 /* per look: alpha / n_looks */
	unsigned n_looks;		 /* K, at least 1 */
	unsigned looks[JUDGE_MAX_LOOKS]; /* pairs at each look, ascending */
	uint64_t k[JUDGE_MAX_LOOKS];	 /* critical k of each look (0: no interval) */
};

/* Plans the looks. ERR_INVALID when the last look cannot give an interval
 * (k = 0, e.g. runs: 5), when max_runs or runs is below min_samples, or the
 * confidence is not between 0 and 1. */
int judge_plan_init(struct judge_plan *plan, const struct judge_settings *s, struct err *err);

/* Bisect (docs/sweeps.md): each step is one full comparison at
 * alpha / ceil(log2 N) for N candidate commits, so that the whole search
 * keeps the error bound. Returns the confidence to plan each step with (the
 * input when N <= 2, or when it is not between 0 and 1). */
double judge_bisect_confidence(double confidence, unsigned candidates);

/* ---- Comparing one metric --------------------------------------------- */

/* Per-metric tolerance (`regression.<metric>`). */
struct judge_tolerance {
	double max_fraction; /* fraction: 0.05 = 5%; >= 0 */
	bool has_min_difference;
	double min_difference; /* canonical unit */
	bool gate;
	enum side_statistic statistic; /* shown as BASE and HEAD */
};

/*
 * One compared metric's paired samples: base[j] and head[j] were run back
 * to back in round j. Only latency, cpu_total and peak_rss are compared
 * (judge_metric_compared()); throughput is derived, utilization never.
 */
struct judge_metric_input {
	enum metric metric;
	const double *base, *head; /* raw values, canonical unit */
	/* Per-run measurement floors (peak RSS), or NULL when there is none. */
	const double *base_floor, *head_floor;
	size_t n; /* pairs available */
	struct judge_tolerance tol;
	double max_cv;	   /* noise gate on robust CV; 0 disables */
	double resolution; /* canonical unit: 1 ns, 1000 ns (CPU), 1024 B (RSS) */
	bool discrete;	   /* jitter by +-resolution/2 before taking logs */
	/* The jitter's stream: from the run seed and these names. */
	uint64_t seed;
	const char *benchmark, *command;
};

/* True for the metrics that get a paired verdict of their own. */
bool judge_metric_compared(enum metric m);
/* Defaults for metric m: docs/comparison.md's tolerance (5%, 10% for peak RSS),
 * gate on, median shown, max_cv 0.5 (the reference's), resolution and
 * discreteness of the Linux collector. Samples, names and seed stay empty. */
void judge_input_init(struct judge_metric_input *in, enum metric m);

/* Starts a comparison before the first look: metadata, verdict
 * inconclusive, not final. */
void judge_begin(const struct judge_plan *plan, const struct judge_metric_input *in,
		 struct comparison *out);

/*
 * Judges look number `look` (0-based) on the first plan->looks[look] pairs
 * of in. Updates out and returns out->final: true at the first decisive
 * look, when the verdict is settled otherwise (zero base, both sides at the
 * floor, noise gate) and at the last look (undecided: inconclusive "the
 * interval still straddles the tolerance after N pairs"). A look that cannot
 * be made changes nothing: the comparison is final already, the look is not
 * planned, or in->n is below the look's pairs (a unit that stopped early;
 * judge_finish() settles it with the looks it reached).
 */
bool judge_look(const struct judge_plan *plan, const struct judge_metric_input *in, unsigned look,
		struct comparison *out);

/* One look's interval of a metric's paired samples, on the log scale, as
 * judge_look() forms it (floors, flooring at half the resolution, seeded
 * jitter), without a band or a verdict: for rules that test the change
 * against another threshold (bisect.h). Empty (pairs 0) when the look is not
 * planned or in has fewer pairs than it needs. */
struct judge_interval {
	size_t pairs;
	bool has_interval; /* false when the look's k is 0 */
	bool at_floor;	   /* a side's samples at or below its measurement floor */
	bool zero_base;	   /* base's median is 0: no ratio means anything */
	double estimate;   /* Hodges–Lehmann, ln(head / base) */
	double low, high;  /* the interval at the look's level */
};

void judge_interval_at(const struct judge_plan *plan, const struct judge_metric_input *in,
		       unsigned look, struct judge_interval *out);

/*
 * The hair (docs/comparison.md, "The tolerance band"): an interval that lies
 * within the band widened by a tenth of it on each side (in log-ratio units:
 * [1.1 dn, 1.1 up]) is a pass, so that a metric sitting on its tolerance
 * stops instead of running to the cap. It never makes a regression or an
 * improvement, so the false-alarm bound is untouched; a pass then says "no
 * change beyond the tolerance and its hair".
 */
#define JUDGE_HAIR 0.1

/* Why rounds stopped before a comparison was final. */
enum judge_stop {
	JUDGE_STOP_TIME_BUDGET,	      /* its benchmark's max_time: "the time budget ran out
				       * after N pairs" */
	JUDGE_STOP_TOTAL_TIME_BUDGET, /* the comparison's max_total_time: "the comparison's
				       * time budget ran out after N pairs" */
	JUDGE_STOP_DECIDED,	      /* every gated metric of the command decided: "the
				       * interval still straddles the tolerance after N
				       * pairs" and, for an ungated metric, ", when the
				       * command's gated metrics were decided" */
};

/* Settles a comparison that is not final after in->n pairs (the last
 * completed look stands; no extra look is made). No-op when final. */
void judge_finish(const struct judge_metric_input *in, enum judge_stop why, struct comparison *out);

/* Re-judging complete samples: begin, every look that in->n pairs reach,
 * then judge_finish(why) when still undecided. */
void judge_compare(const struct judge_plan *plan, const struct judge_metric_input *in,
		   enum judge_stop why, struct comparison *out);

/* Declared work of a throughput metric over the runs of each side. */
struct judge_work {
	double base_min, base_max;
	double head_min, head_max;
	const char *unit; /* "bytes", "records", ... */
};

/*
 * Throughput derived from latency's comparison: same verdict, change
 * 1/(1+c) - 1 with the interval ends swapped, not gated. Skipped unless the
 * work is constant within and equal across revisions, with the measured
 * ranges in the reason.
 */
void judge_derive_throughput(const struct comparison *latency, const struct judge_work *work,
			     struct comparison *out);

/*
 * A metric where higher is better (a harness's throughput) is judged as a
 * lower-is-better one with its sides swapped: the judge's base is head's
 * samples and its head is base's, so that its change head/base - 1 is the
 * change of the reciprocals (docs/configuration.md, "Harnesses"). This
 * turns that comparison back into metric m's own: base and head swapped
 * back, the change c as 1/(1+c) - 1, the interval, what it could see and
 * the band turned over as judge_derive_throughput() turns latency's, the
 * tolerance t as the loss t/(1+t). The verdict, gate and looks stay.
 */
void judge_turn_higher(const struct comparison *swapped, enum metric m, struct comparison *out);

/* ---- Budgets and results ---------------------------------------------- */

struct budget_rule {
	enum metric metric;
	struct aggregation aggregation;
	enum bound_op op;
	double limit; /* canonical unit */
};

/* The aggregation of samples[0..n), n > 0. */
double judge_aggregate(const double *samples, size_t n, const struct aggregation *agg);

/*
 * Checks a budget on head samples. floor_bytes holds per-run floors (peak
 * RSS) or is NULL. No samples: no_data. Peak RSS whose aggregate is at or
 * below the largest floor: pass when an upper bound the floor itself meets,
 * else skipped with the floor reason and metric_error set.
 */
void judge_budget(const double *samples, const double *floor_bytes, size_t n,
		  const struct budget_rule *b, struct budget_result *out);

/* A command's result: its worst gated comparison (skipped ones and accepted
 * regressions do not count) combined with its budgets (fail: over_budget;
 * metric_error: metric_error). Execution errors are the caller's. */
enum result_state judge_command_result(const struct comparison *cmp, size_t n_cmp,
				       const struct budget_result *budgets, size_t n_budgets);

/* Whether a result fails the job as a performance failure (exit 1):
 * over_budget and regression always, inconclusive with
 * --fail-on-inconclusive. metric_error and error are not this kind. */
bool judge_result_fails(enum result_state r, bool fail_on_inconclusive);

/* ---- What a comparison could see (seen.c) ------------------------------ */

/*
 * Fills what comparison c could see from its own fields (interval, estimate,
 * band, pairs, verdict): detectable_high_percent, the smallest slowdown its
 * interval would have called a regression, exp(up + (e - L)) - 1, and
 * detectable_low_percent, the smallest improvement, exp(dn - (U - e)) - 1,
 * e the estimate and [L, U] the interval on the log scale; and, for a final
 * inconclusive comparison whose interval straddles the band (not one held
 * back by the noise gate or the floor), pairs_to_decide: the pairs at which
 * the interval, narrowing as 1/sqrt(n) around the same estimate, would have
 * decided, or pairs_to_decide_beyond above COMPARISON_PAIRS_TO_DECIDE_MAX. Clears
 * them when there is no interval or the metric was skipped. Counts are
 * filled by counts_compare().
 */
void judge_fill_seen(struct comparison *c);

/* The smallest slowdown, in percent, that the settings would call a
 * regression at `pairs` pairs, estimated from a comparison of a revision
 * against itself: judge_fill_seen()'s detectable_high_percent with the
 * interval's half-width scaled by sqrt(c->pairs / pairs). False when the
 * comparison has no interval or no upper band. */
bool judge_detectable_change(const struct comparison *c, unsigned pairs, double *percent);

/* Geometric mean of head/base latency ratios; ERR_INVALID when n is 0 or a
 * ratio is not a positive finite number. */
int judge_geometric_mean(const double *ratios, size_t n, double *out, struct err *err);

/* ---- What the commands report (verdicts.c) ---------------------------- */

/* The worst of n results, RESULT_PASS for none: a benchmark's from its
 * commands', a suite's from its benchmarks', the whole document's from its
 * suites'. */
enum result_state judge_worst(const enum result_state *results, size_t n);

/* A command of a pull request labelled to accept a known regression
 * (docs/github-actions.md): every regression among cmp is marked accepted
 * (it stays in the report), and the command's result, when it was a
 * regression, is judged again without them; returns the result. */
enum result_state judge_accept(struct comparison *cmp, size_t n_cmp,
			       const struct budget_result *budgets, size_t n_budgets,
			       enum result_state result);
/* A benchmark's or suite's result once its children accepted their
 * regressions: a regression becomes the worst of its children's results
 * again; anything else (an error of its own) stays. */
enum result_state judge_accepted_parent(enum result_state parent, enum result_state worst_child);

#endif
