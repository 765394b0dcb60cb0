/*
 * Metric names: see metric.h. The tables are indexed by enum
 * value; the static asserts keep them complete.
 */
#include "common/metric.h"

#include "common/alloc.h"

#include <string.h>

static const struct metric_info metrics[] = {
	[METRIC_LATENCY] = { "latency", UNIT_NS, BETTER_LOWER, GROUP_LATENCY, SCOPE_WALL_CLOCK,
			     false },
	[METRIC_THROUGHPUT] = { "throughput", UNIT_WORK_PER_S, BETTER_HIGHER, GROUP_THROUGHPUT,
				SCOPE_WALL_CLOCK, false },
	[METRIC_CPU_USER] = { "cpu_user", UNIT_NS, BETTER_LOWER, GROUP_CPU, SCOPE_PROCESS_TREE,
			      false },
	[METRIC_CPU_SYSTEM] = { "cpu_system", UNIT_NS, BETTER_LOWER, GROUP_CPU, SCOPE_PROCESS_TREE,
				false },
	[METRIC_CPU_TOTAL] = { "cpu_total", UNIT_NS, BETTER_LOWER, GROUP_CPU, SCOPE_PROCESS_TREE,
			       false },
	[METRIC_CPU_UTILIZATION] = { "cpu_utilization", UNIT_PERCENT, BETTER_NEUTRAL, GROUP_CPU,
				     SCOPE_PROCESS_TREE, false },
	[METRIC_PEAK_RSS] = { "peak_rss", UNIT_BYTES, BETTER_LOWER, GROUP_MEMORY,
			      SCOPE_PROCESS_TREE, false },
	[METRIC_ARTIFACT_SIZE] = { "artifact_size", UNIT_BYTES, BETTER_LOWER, GROUP_COUNTS,
				   SCOPE_ARTIFACT, true },
	[METRIC_INSTRUCTIONS] = { "instructions", UNIT_COUNT, BETTER_LOWER, GROUP_COUNTS,
				  SCOPE_PROCESS_TREE, true },
	[METRIC_ALLOCATIONS] = { "allocations", UNIT_COUNT, BETTER_LOWER, GROUP_COUNTS,
				 SCOPE_PROCESS_TREE, true },
	[METRIC_ALLOCATED_BYTES] = { "allocated_bytes", UNIT_BYTES, BETTER_LOWER, GROUP_COUNTS,
				     SCOPE_PROCESS_TREE, true },
};
_Static_assert(ARRAY_SIZE(metrics) == METRIC__COUNT, "metric table incomplete");

static const char *const statuses[] = {
	[STATUS_MEASURED] = "measured",
	[STATUS_NOT_REQUESTED] = "not_requested",
	[STATUS_UNSUPPORTED] = "unsupported",
	[STATUS_FAILED] = "failed",
};

static const char *const units[] = {
	[UNIT_NS] = "ns",	    [UNIT_BYTES] = "bytes",
	[UNIT_PERCENT] = "percent", [UNIT_WORK_PER_S] = "work/s",
	[UNIT_COUNT] = "count",
};

static const char *const betters[] = {
	[BETTER_LOWER] = "lower",
	[BETTER_HIGHER] = "higher",
	[BETTER_NEUTRAL] = "neutral",
};

const struct metric_info *metric_info(enum metric m)
{
	return &metrics[m];
}

int metric_from_name(const char *name, enum metric *out)
{
	int i;

	for (i = 0; i < METRIC__COUNT; i++)
		if (!strcmp(metrics[i].name, name)) {
			*out = (enum metric)i;
			return 0;
		}
	return -1;
}

const char *metric_unit_name(enum metric_unit u)
{
	return units[u];
}

const char *better_name(enum better b)
{
	return betters[b];
}

const char *metric_status_name(enum metric_status s)
{
	return statuses[s];
}
