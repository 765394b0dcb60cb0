/*
 * The plain types that several stages share: what judging decides (a
 * compared metric, a budget's outcome, verdicts and result states), how a
 * budget is written (an aggregation and a bound operator), which per-side
 * statistic a comparison shows. Suites
 * declare them, the engine fills them, reports store them and renderers show
 * them; none of those needs the judge to name them.
 *
 * Each enum has one name table, in types.c; the names are part of the suite
 * and report formats (docs/configuration.md, docs/reports.md): never rename
 * one, only append.
 */
#ifndef HIMORIME_COMMON_TYPES_H
#define HIMORIME_COMMON_TYPES_H

#include "common/metric.h"

#include <stdbool.h>
#include <stddef.h>

/* A compared metric's verdict (docs/comparison.md). */
enum verdict {
	VERDICT_PASS,
	VERDICT_IMPROVED,
	VERDICT_REGRESSION,
	VERDICT_INCONCLUSIVE,
	VERDICT_SKIPPED,
};

/* A command's (and benchmark's, suite's) result, in order of severity: the
 * worst gated state wins. RESULT_NEW_SUITE: the suite is new in head, so it
 * was measured on head only and nothing was compared; budgets still count
 * (a broken one is RESULT_OVER_BUDGET). RESULT_NEW and RESULT_REMOVED: a
 * harness benchmark that only head or only base reported in a comparison
 * (docs/configuration.md, "Harnesses"). */
enum result_state {
	RESULT_PASS,
	RESULT_NEW_SUITE,
	RESULT_NEW,
	RESULT_REMOVED,
	RESULT_IMPROVED,
	RESULT_INCONCLUSIVE,
	RESULT_OVER_BUDGET,
	RESULT_REGRESSION,
	RESULT_METRIC_ERROR,
	RESULT_ERROR,
};

enum budget_status { BUDGET_PASS, BUDGET_FAIL, BUDGET_SKIPPED, BUDGET_NO_DATA };

/* Which per-side summary is shown as BASE and HEAD; the decision is always the
 * paired procedure. */
enum side_statistic { SIDE_MEDIAN, SIDE_MEAN };

/* How a suite asks instructions to be counted (docs/comparison.md,
 * "Deciding on counts"): whichever counts here, the hardware counter, or
 * valgrind. Which one does is the measurer's to find (measure/counter.h). */
enum counter_backend { COUNTER_AUTO, COUNTER_PERF, COUNTER_VALGRIND };

/* How the base and head runs of a compared command take turns
 * (docs/design.md, "Measuring a run"): interleaved, a base/head pair back to
 * back in coin-flipped order within each shuffled round; or duet, both
 * started at once, each alone on its own CPU, the CPUs swapped from pair to
 * pair. */
enum schedule { SCHEDULE_INTERLEAVED, SCHEDULE_DUET };

/* A budget's bound: `<`, `<=`, `>`, `>=`. */
enum bound_op { BOUND_LT, BOUND_LE, BOUND_GT, BOUND_GE };

enum aggregation_kind { AGG_MIN, AGG_MAX, AGG_MEAN, AGG_MEDIAN, AGG_PERCENTILE };

/* What a budget aggregates a side's runs into: min, max, mean, median or pN. */
struct aggregation {
	enum aggregation_kind kind;
	double percentile; /* AGG_PERCENTILE only: 1 ≤ p ≤ 99.9 in suites */
};

/* The tolerances of a suite that sets none (docs/comparison.md, "The
 * tolerance band" and "Deciding on counts"), as fractions, and the noise
 * gate's robust CV: written here once. The suite lays its own over them
 * (suite/defaults.c); the judge's inputs start from them. */
#define TOLERANCE_DEFAULT_FRACTION	  0.05 /* latency, cpu_total */
#define TOLERANCE_DEFAULT_FRACTION_RSS	  0.10 /* peak_rss */
#define TOLERANCE_DEFAULT_FRACTION_COUNTS 0.01 /* instructions, allocations, sizes */
#define TOLERANCE_DEFAULT_MAX_CV	  0.5

/* Beyond this many pairs a comparison's projection says "beyond reach"
 * instead of a number: the change sits too close to the tolerance to be
 * sorted at the noise observed. */
#define COMPARISON_PAIRS_TO_DECIDE_MAX 1000000

/* One compared metric of one command: every field a report's
 * comparisons carry (docs/reports.md, "Layout"). Percentages are in percent (+16.3 means
 * head is 16.3% higher); absolute amounts are in the metric's canonical unit. */
struct comparison {
	enum metric metric;
	bool derived; /* throughput: derived from latency */
	enum side_statistic statistic_shown;
	double base, head;     /* the shown per-side statistic */
	bool has_estimate;     /* false when no interval could be formed */
	double change_percent; /* Hodges–Lehmann ratio − 1, in percent */
	double ci_low_percent; /* interval of the deciding (or last) look */
	double ci_high_percent;
	double confidence; /* e.g. 0.99; simultaneous over all looks */
	unsigned looks_planned;
	unsigned looks_used;
	unsigned pairs;	     /* pairs used by the deciding (or last) look */
	double max_fraction; /* tolerance as a fraction: 0.05 = 5% */
	bool has_min_difference;
	double min_difference;	  /* canonical unit */
	double band_low_percent;  /* the practical band actually applied, percent; */
	double band_high_percent; /* -inf/+inf never stored: see band_*_infinite */
	bool band_low_infinite;
	enum verdict verdict;
	char reason[200]; /* empty for a plain pass/regression/improved */
	bool gate;
	bool accepted; /* a known regression accepted by a PR label */
	/* Appended by the judge: */
	bool final;		 /* the verdict can no longer change */
	bool band_high_infinite; /* derived throughput of an open latency band */
	bool sign_test;		 /* above 1000 pairs: sign-test interval */
	bool base_at_floor;	 /* peak RSS: compared as if it used the whole floor */
	bool head_at_floor;
	/* A count (docs/comparison.md, "Deciding on counts"): decided on the
	 * sides' medians, not on pairs; `pairs` is the runs per side, the
	 * interval is the change widened by the sides' spreads added, and
	 * confidence is 1. */
	bool counts;
	double spread_percent; /* the larger side's spread, percent of its median */
	/* The noise gate's condition held at the deciding (or last) look: a
	 * side's robust CV above max_cv with the sides' ranges overlapping. A
	 * verdict other than inconclusive then stood because each half of the
	 * pairs pointed the same way (docs/comparison.md, "Noise gate"). */
	bool noisy;
	/* What the comparison could see (docs/comparison.md, "What a comparison
	 * could see"), in percent: the smallest slowdown its achieved interval
	 * would have called a regression, and the smallest improvement (a
	 * negative figure) it would have called improved; absent when there is
	 * no interval or the band is open on that side. */
	bool has_detectable_high, has_detectable_low;
	double detectable_high_percent, detectable_low_percent;
	/* An inconclusive comparison whose interval straddled the band: the
	 * pairs that would have decided at the noise observed (0: none), or
	 * more than COMPARISON_PAIRS_TO_DECIDE_MAX (pairs_to_decide_beyond). */
	unsigned pairs_to_decide;
	bool pairs_to_decide_beyond;
	/* The benchmark's `runs` (or --runs) fixed the pairs: one look, and more
	 * pairs come from raising runs, not max_runs. */
	bool runs_fixed;
};

/* One budget's outcome for one command. */
struct budget_result {
	enum metric metric;
	struct aggregation aggregation;
	enum bound_op op;
	double limit; /* canonical unit */
	bool has_actual;
	double actual; /* canonical unit */
	enum budget_status status;
	char reason[200];
	/* Appended by the judge: a required budget that could not be assessed
	 * (peak RSS at the floor): the command becomes metric_error (exit 6). */
	bool metric_error;
};

/* What a step of `bisect` found its candidate to be (docs/sweeps.md,
 * "himorime bisect"): bad (nearer bad's level), good (nearer good's), not
 * placed, or failed. */
enum step_outcome { STEP_GOOD, STEP_BAD, STEP_UNPLACED, STEP_FAILED };

/* One thing a step's comparison says about the candidate, in the order of
 * its document: each suite's error, its benchmarks' errors, then every
 * command. */
enum step_finding_kind {
	STEP_SUITE_FAILED,     /* the suite could not run (a build) */
	STEP_BENCHMARK_FAILED, /* the benchmark could not run (its setup) */
	STEP_COMMAND_FAILED,   /* the command failed on a side */
	STEP_NOT_MEASURED,     /* the command failed without a message */
	STEP_NOT_COMPARED,     /* the command does not compare the metric */
	STEP_COMPARED,	       /* its comparison of the metric */
};

struct step_finding {
	enum step_finding_kind kind;
	const char *suite, *benchmark, *command; /* the names that apply */
	const char *message;			 /* the error's, when failed; may be NULL */
	const struct comparison *cmp;		 /* STEP_COMPARED */
};

/* The enums with a name table, for readers that list every name in an error. */
enum vocab {
	VOCAB_VERDICT,
	VOCAB_RESULT_STATE,
	VOCAB_BUDGET_STATUS,
	VOCAB_SIDE_STATISTIC,
	VOCAB_BOUND_OP,
	VOCAB_SCHEDULE,
};

/* The names of an enum's values, indexed by value; *n is how many. */
const char *const *vocab_names(enum vocab v, size_t *n);

/* Name to value: each returns 0 and sets *out, or -1 for an unknown name. */
const char *verdict_name(enum verdict v);
int verdict_from_name(const char *name, enum verdict *out);
const char *result_state_name(enum result_state r);
int result_state_from_name(const char *name, enum result_state *out);
const char *budget_status_name(enum budget_status s);
int budget_status_from_name(const char *name, enum budget_status *out);
const char *side_statistic_name(enum side_statistic s); /* "median", "mean" */
int side_statistic_from_name(const char *name, enum side_statistic *out);
const char *bound_op_name(enum bound_op op);	    /* "<", "<=", ">", ">=" */
const char *step_outcome_name(enum step_outcome o); /* "good", "bad", "not placed", ... */
int bound_op_from_name(const char *name, enum bound_op *out);
const char *schedule_name(enum schedule s); /* "interleaved", "duet" */
int schedule_from_name(const char *name, enum schedule *out);

/*
 * An aggregation as suites, `list` and reports write it: "min", "max",
 * "mean", "median", or "p" and the percentile in the shortest form that reads
 * back to the same double ("p95", "p99.9"). Writes it into buf and returns
 * buf; NULL when a percentile is not between 0 and 100 (exclusive).
 */
const char *aggregation_name(const struct aggregation *a, char *buf, size_t size);
/* The inverse of aggregation_name for any percentile between 0 and 100
 * (suites are stricter: see suite/units.h). 0, or -1 for anything else. */
int aggregation_from_name(const char *s, struct aggregation *out);

#endif
