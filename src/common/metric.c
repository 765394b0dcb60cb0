/*
 * Metric and verdict names: see metric.h. The tables are indexed by enum
 * value; the static asserts keep them complete.
 */
#include "common/metric.h"

#include "common/alloc.h"

#include <string.h>

static const struct metric_info metrics[] = {
	[METRIC_LATENCY] = { "latency", UNIT_NS, BETTER_LOWER, GROUP_LATENCY, SCOPE_WALL_CLOCK },
	[METRIC_THROUGHPUT] = { "throughput", UNIT_WORK_PER_S, BETTER_HIGHER, GROUP_THROUGHPUT,
				SCOPE_WALL_CLOCK },
	[METRIC_CPU_USER] = { "cpu_user", UNIT_NS, BETTER_LOWER, GROUP_CPU, SCOPE_PROCESS_TREE },
	[METRIC_CPU_SYSTEM] = { "cpu_system", UNIT_NS, BETTER_LOWER, GROUP_CPU,
				SCOPE_PROCESS_TREE },
	[METRIC_CPU_TOTAL] = { "cpu_total", UNIT_NS, BETTER_LOWER, GROUP_CPU, SCOPE_PROCESS_TREE },
	[METRIC_CPU_UTILIZATION] = { "cpu_utilization", UNIT_PERCENT, BETTER_NEUTRAL, GROUP_CPU,
				     SCOPE_PROCESS_TREE },
	[METRIC_PEAK_RSS] = { "peak_rss", UNIT_BYTES, BETTER_LOWER, GROUP_MEMORY,
			      SCOPE_PROCESS_TREE },
};
_Static_assert(ARRAY_SIZE(metrics) == METRIC__COUNT, "metric table incomplete");

static const char *const verdicts[] = {
	[VERDICT_PASS] = "pass",
	[VERDICT_IMPROVED] = "improved",
	[VERDICT_REGRESSION] = "regression",
	[VERDICT_INCONCLUSIVE] = "inconclusive",
	[VERDICT_SKIPPED] = "skipped",
};

static const char *const results[] = {
	[RESULT_PASS] = "pass",
	[RESULT_NEW_SUITE] = "new_suite",
	[RESULT_IMPROVED] = "improved",
	[RESULT_INCONCLUSIVE] = "inconclusive",
	[RESULT_OVER_BUDGET] = "over_budget",
	[RESULT_REGRESSION] = "regression",
	[RESULT_METRIC_ERROR] = "metric_error",
	[RESULT_ERROR] = "error",
};

static const char *const budget_statuses[] = {
	[BUDGET_PASS] = "pass",
	[BUDGET_FAIL] = "fail",
	[BUDGET_SKIPPED] = "skipped",
	[BUDGET_NO_DATA] = "no_data",
};

static const char *const statuses[] = {
	[STATUS_MEASURED] = "measured",
	[STATUS_NOT_REQUESTED] = "not_requested",
	[STATUS_UNSUPPORTED] = "unsupported",
	[STATUS_FAILED] = "failed",
};

static const char *const units[] = {
	[UNIT_NS] = "ns",
	[UNIT_BYTES] = "bytes",
	[UNIT_PERCENT] = "percent",
	[UNIT_WORK_PER_S] = "work/s",
};

static const char *const betters[] = {
	[BETTER_LOWER] = "lower",
	[BETTER_HIGHER] = "higher",
	[BETTER_NEUTRAL] = "neutral",
};

static int find(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

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

const char *verdict_name(enum verdict v)
{
	return verdicts[v];
}

int verdict_from_name(const char *name, enum verdict *out)
{
	int i = find(verdicts, (int)ARRAY_SIZE(verdicts), name);
	if (i < 0)
		return -1;
	*out = (enum verdict)i;
	return 0;
}

const char *result_state_name(enum result_state r)
{
	return results[r];
}

int result_state_from_name(const char *name, enum result_state *out)
{
	int i = find(results, (int)ARRAY_SIZE(results), name);
	if (i < 0)
		return -1;
	*out = (enum result_state)i;
	return 0;
}

const char *budget_status_name(enum budget_status s)
{
	return budget_statuses[s];
}

int budget_status_from_name(const char *name, enum budget_status *out)
{
	int i = find(budget_statuses, (int)ARRAY_SIZE(budget_statuses), name);
	if (i < 0)
		return -1;
	*out = (enum budget_status)i;
	return 0;
}
