/*
 * The metrics every stage shares: which metrics exist, how they are named
 * in suites and reports, their canonical units and which direction is
 * better, and whether a run measured them. What judging decides about them
 * (verdicts, result states, budgets) is in common/types.h. The names are
 * part of the suite and report formats: never rename one, only append.
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
	METRIC_ARTIFACT_SIZE,	/* bytes of the built ${artifact}: a count */
	METRIC_INSTRUCTIONS,	/* user-space instructions of the process tree: a count */
	METRIC_ALLOCATIONS,	/* heap blocks allocated by the process tree: a count */
	METRIC_ALLOCATED_BYTES, /* heap bytes allocated by the process tree: a count */
	METRIC__COUNT
};

/* Canonical units: latency and CPU times in ns, peak RSS and artifact sizes in bytes,
 * utilization in percent, throughput in declared work units per second,
 * instructions in plain counts. */
enum metric_unit { UNIT_NS, UNIT_BYTES, UNIT_PERCENT, UNIT_WORK_PER_S, UNIT_COUNT };

enum better { BETTER_LOWER, BETTER_HIGHER, BETTER_NEUTRAL };

/* GROUP_COUNTS: the deterministic metrics, decided by the counts rule
 * (docs/comparison.md, "Deciding on counts"). */
enum metric_group { GROUP_LATENCY, GROUP_THROUGHPUT, GROUP_CPU, GROUP_MEMORY, GROUP_COUNTS };

/* How a metric was collected, for reports: scope, source, aggregation. */
enum metric_scope { SCOPE_WALL_CLOCK, SCOPE_PROCESS_TREE, SCOPE_ARTIFACT };

enum metric_status {
	STATUS_MEASURED,
	STATUS_NOT_REQUESTED,
	STATUS_UNSUPPORTED,
	STATUS_FAILED,
};

struct metric_info {
	const char *name; /* as in suites and reports: "latency", "peak_rss" */
	enum metric_unit unit;
	enum better better;
	enum metric_group group;
	enum metric_scope scope;
	/* A count (GROUP_COUNTS): decided by the counts rule, not by pairs, and
	 * absent from a report's sides unless a suite asks for it. */
	bool counted;
};

const struct metric_info *metric_info(enum metric m);
/* Returns 0 and sets *out, or -1 for an unknown name. */
int metric_from_name(const char *name, enum metric *out);

const char *metric_unit_name(enum metric_unit u); /* "ns", "bytes", "percent", "work/s", "count" */
const char *better_name(enum better b);		  /* "lower", "higher", "neutral" */
const char *metric_status_name(enum metric_status s);

#endif
