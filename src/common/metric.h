/*
 * The shared vocabulary of every stage: which metrics exist, how they are
 * named in suites and reports, their canonical units and which direction is
 * better; and the verdicts and result states that judging produces and
 * reports show. The names are part of the suite and report formats: never
 * rename one, only append.
 */
#ifndef HIMORIME_COMMON_METRIC_H
#define HIMORIME_COMMON_METRIC_H

#include <stdbool.h>

enum metric {
	METRIC_LATENCY,
	METRIC_THROUGHPUT,
	METRIC_CPU_USER,
	METRIC_CPU_SYSTEM,
	METRIC_CPU_TOTAL,
	METRIC_CPU_UTILIZATION,
	METRIC_PEAK_RSS,
	METRIC__COUNT
};

/* Canonical units: latency and CPU times in ns, peak RSS in bytes,
 * utilization in percent, throughput in declared work units per second. */
enum metric_unit { UNIT_NS, UNIT_BYTES, UNIT_PERCENT, UNIT_WORK_PER_S };

enum better { BETTER_LOWER, BETTER_HIGHER, BETTER_NEUTRAL };

enum metric_group { GROUP_LATENCY, GROUP_THROUGHPUT, GROUP_CPU, GROUP_MEMORY };

/* How a metric was collected, for reports: scope, source, aggregation. */
enum metric_scope { SCOPE_WALL_CLOCK, SCOPE_PROCESS_TREE };

enum metric_status {
	STATUS_MEASURED,
	STATUS_NOT_REQUESTED,
	STATUS_UNSUPPORTED,
	STATUS_FAILED,
};

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
 * (a broken one is RESULT_OVER_BUDGET). */
enum result_state {
	RESULT_PASS,
	RESULT_NEW_SUITE,
	RESULT_IMPROVED,
	RESULT_INCONCLUSIVE,
	RESULT_OVER_BUDGET,
	RESULT_REGRESSION,
	RESULT_METRIC_ERROR,
	RESULT_ERROR,
};

enum budget_status { BUDGET_PASS, BUDGET_FAIL, BUDGET_SKIPPED, BUDGET_NO_DATA };

struct metric_info {
	const char *name; /* as in suites and reports: "latency", "peak_rss" */
	enum metric_unit unit;
	enum better better;
	enum metric_group group;
	enum metric_scope scope;
};

const struct metric_info *metric_info(enum metric m);
/* Returns 0 and sets *out, or -1 for an unknown name. */
int metric_from_name(const char *name, enum metric *out);

const char *metric_unit_name(enum metric_unit u); /* "ns", "bytes", "percent", "work/s" */
const char *better_name(enum better b);		  /* "lower", "higher", "neutral" */
const char *metric_status_name(enum metric_status s);
const char *verdict_name(enum verdict v);
int verdict_from_name(const char *name, enum verdict *out);
const char *result_state_name(enum result_state r);
int result_state_from_name(const char *name, enum result_state *out);
const char *budget_status_name(enum budget_status s);
int budget_status_from_name(const char *name, enum budget_status *out);

#endif
