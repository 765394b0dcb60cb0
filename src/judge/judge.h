/*
 * Judging: budgets against measured samples, and the paired comparison of two
 * revisions (COMPARISON.md). Pure: no I/O, no processes, no git, no network;
 * deterministic given its inputs and seed.
 *
 * This header starts with the data the rest of the program reads (a
 * comparison's fields, a budget's outcome); reports store them as they are.
 */
#ifndef HIMORIME_JUDGE_JUDGE_H
#define HIMORIME_JUDGE_JUDGE_H

#include "common/metric.h"

#include <stdbool.h>
#include <stddef.h>

/* Which per-side summary is shown as BASE and HEAD; the decision is always the
 * paired procedure. */
enum side_statistic { SIDE_MEDIAN, SIDE_MEAN };

/* One compared metric of one command: every field of COMPARISON.md's
 * "Reported fields per comparison". Percentages are in percent (+16.3 means
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
	unsigned pairs;	    /* pairs used by the deciding (or last) look */
	double max_percent; /* tolerance as a fraction: 0.05 = 5% */
	bool has_min_difference;
	double min_difference;	  /* canonical unit */
	double band_low_percent;  /* the practical band actually applied, percent; */
	double band_high_percent; /* -inf/+inf never stored: see band_*_infinite */
	bool band_low_infinite;
	enum verdict verdict;
	char reason[200]; /* empty for a plain pass/regression/improved */
	bool gate;
	bool accepted; /* a known regression accepted by a PR label */
};

/* Budget bounds. */
enum bound_op { BOUND_LT, BOUND_LE, BOUND_GT, BOUND_GE };

enum aggregation_kind { AGG_MIN, AGG_MAX, AGG_MEAN, AGG_MEDIAN, AGG_PERCENTILE };

struct aggregation {
	enum aggregation_kind kind;
	double percentile; /* AGG_PERCENTILE only: 1 ≤ p ≤ 99.9 */
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
};

#endif
