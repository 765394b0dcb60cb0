/*
 * Metric names: see metric.h. The tables are indexed by enum
 * value; the static asserts keep them complete.
 */
#include "common/metric.h"

#include "common/alloc.h"

#include <string.h>

static const struct metric_info metrics[] = {
	[METRIC_LATENCY] = { .name = "latency",
			     .unit = UNIT_NS,
			     .better = BETTER_LOWER,
			     .group = GROUP_LATENCY,
			     .scope = SCOPE_WALL_CLOCK,
			     .counted = false },
	[METRIC_THROUGHPUT] = { .name = "throughput",
				.unit = UNIT_WORK_PER_S,
				.better = BETTER_HIGHER,
				.group = GROUP_THROUGHPUT,
				.scope = SCOPE_WALL_CLOCK,
				.counted = false },
	[METRIC_CPU_USER] = { .name = "cpu_user",
			      .unit = UNIT_NS,
			      .better = BETTER_LOWER,
			      .group = GROUP_CPU,
			      .scope = SCOPE_PROCESS_TREE,
			      .counted = false },
	[METRIC_CPU_SYSTEM] = { .name = "cpu_system",
				.unit = UNIT_NS,
				.better = BETTER_LOWER,
				.group = GROUP_CPU,
				.scope = SCOPE_PROCESS_TREE,
				.counted = false },
	[METRIC_CPU_TOTAL] = { .name = "cpu_total",
			       .unit = UNIT_NS,
			       .better = BETTER_LOWER,
			       .group = GROUP_CPU,
			       .scope = SCOPE_PROCESS_TREE,
			       .counted = false },
	[METRIC_CPU_UTILIZATION] = { .name = "cpu_utilization",
				     .unit = UNIT_PERCENT,
				     .better = BETTER_NEUTRAL,
				     .group = GROUP_CPU,
				     .scope = SCOPE_PROCESS_TREE,
				     .counted = false },
	[METRIC_PEAK_RSS] = { .name = "peak_rss",
			      .unit = UNIT_BYTES,
			      .better = BETTER_LOWER,
			      .group = GROUP_MEMORY,
			      .scope = SCOPE_PROCESS_TREE,
			      .counted = false },
	[METRIC_ARTIFACT_SIZE] = { .name = "artifact_size",
				   .unit = UNIT_BYTES,
				   .better = BETTER_LOWER,
				   .group = GROUP_COUNTS,
				   .scope = SCOPE_ARTIFACT,
				   .counted = true },
	[METRIC_INSTRUCTIONS] = { .name = "instructions",
				  .unit = UNIT_COUNT,
				  .better = BETTER_LOWER,
				  .group = GROUP_COUNTS,
				  .scope = SCOPE_PROCESS_TREE,
				  .counted = true },
	[METRIC_ALLOCATIONS] = { .name = "allocations",
				 .unit = UNIT_COUNT,
				 .better = BETTER_LOWER,
				 .group = GROUP_COUNTS,
				 .scope = SCOPE_PROCESS_TREE,
				 .counted = true },
	[METRIC_ALLOCATED_BYTES] = { .name = "allocated_bytes",
				     .unit = UNIT_BYTES,
				     .better = BETTER_LOWER,
				     .group = GROUP_COUNTS,
				     .scope = SCOPE_PROCESS_TREE,
				     .counted = true },
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
