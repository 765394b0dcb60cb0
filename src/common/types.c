/*
 * The name tables of types.h: one per enum, indexed by value; the static
 * asserts keep them complete.
 */
#include "common/types.h"

#include "common/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static const char *const verdicts[] = {
	[VERDICT_PASS] = "pass",
	[VERDICT_IMPROVED] = "improved",
	[VERDICT_REGRESSION] = "regression",
	[VERDICT_INCONCLUSIVE] = "inconclusive",
	[VERDICT_SKIPPED] = "skipped",
};
_Static_assert(ARRAY_SIZE(verdicts) == VERDICT_SKIPPED + 1, "verdict table incomplete");

static const char *const results[] = {
	[RESULT_PASS] = "pass",
	[RESULT_NEW_SUITE] = "new_suite",
	[RESULT_NEW] = "new",
	[RESULT_REMOVED] = "removed",
	[RESULT_IMPROVED] = "improved",
	[RESULT_INCONCLUSIVE] = "inconclusive",
	[RESULT_OVER_BUDGET] = "over_budget",
	[RESULT_REGRESSION] = "regression",
	[RESULT_METRIC_ERROR] = "metric_error",
	[RESULT_ERROR] = "error",
};
_Static_assert(ARRAY_SIZE(results) == RESULT_ERROR + 1, "result table incomplete");

static const char *const budget_statuses[] = {
	[BUDGET_PASS] = "pass",
	[BUDGET_FAIL] = "fail",
	[BUDGET_SKIPPED] = "skipped",
	[BUDGET_NO_DATA] = "no_data",
};
_Static_assert(ARRAY_SIZE(budget_statuses) == BUDGET_NO_DATA + 1, "budget table incomplete");

static const char *const side_statistics[] = {
	[SIDE_MEDIAN] = "median",
	[SIDE_MEAN] = "mean",
};
_Static_assert(ARRAY_SIZE(side_statistics) == SIDE_MEAN + 1, "statistic table incomplete");

static const char *const bound_ops[] = {
	[BOUND_LT] = "<",
	[BOUND_LE] = "<=",
	[BOUND_GT] = ">",
	[BOUND_GE] = ">=",
};
_Static_assert(ARRAY_SIZE(bound_ops) == BOUND_GE + 1, "bound table incomplete");

static const char *const schedules[] = {
	[SCHEDULE_INTERLEAVED] = "interleaved",
	[SCHEDULE_DUET] = "duet",
};
_Static_assert(ARRAY_SIZE(schedules) == SCHEDULE_DUET + 1, "schedule table incomplete");

static const char *const step_outcomes[] = {
	[STEP_GOOD] = "good",
	[STEP_BAD] = "bad",
	[STEP_UNPLACED] = "not placed",
	[STEP_FAILED] = "failed",
};
_Static_assert(ARRAY_SIZE(step_outcomes) == STEP_FAILED + 1, "step table incomplete");

/* Every aggregation but a percentile is a plain name. */
static const char *const aggregations[] = {
	[AGG_MIN] = "min",
	[AGG_MAX] = "max",
	[AGG_MEAN] = "mean",
	[AGG_MEDIAN] = "median",
};
_Static_assert(ARRAY_SIZE(aggregations) == AGG_PERCENTILE, "aggregation table incomplete");

static int find(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

const char *const *vocab_names(enum vocab v, size_t *n)
{
	switch (v) {
	case VOCAB_VERDICT:
		*n = ARRAY_SIZE(verdicts);
		return verdicts;
	case VOCAB_RESULT_STATE:
		*n = ARRAY_SIZE(results);
		return results;
	case VOCAB_BUDGET_STATUS:
		*n = ARRAY_SIZE(budget_statuses);
		return budget_statuses;
	case VOCAB_SIDE_STATISTIC:
		*n = ARRAY_SIZE(side_statistics);
		return side_statistics;
	case VOCAB_BOUND_OP:
		*n = ARRAY_SIZE(bound_ops);
		return bound_ops;
	case VOCAB_SCHEDULE:
		*n = ARRAY_SIZE(schedules);
		return schedules;
	}
	*n = 0;
	return NULL;
}

/* The value of `name` in table v, or -1. */
static int vocab_find(enum vocab v, const char *name)
{
	size_t n;
	const char *const *names = vocab_names(v, &n);

	return find(names, n, name);
}

const char *verdict_name(enum verdict v)
{
	return verdicts[v];
}

int verdict_from_name(const char *name, enum verdict *out)
{
	int i = vocab_find(VOCAB_VERDICT, name);

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
	int i = vocab_find(VOCAB_RESULT_STATE, name);

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
	int i = vocab_find(VOCAB_BUDGET_STATUS, name);

	if (i < 0)
		return -1;
	*out = (enum budget_status)i;
	return 0;
}

const char *side_statistic_name(enum side_statistic s)
{
	return side_statistics[s];
}

int side_statistic_from_name(const char *name, enum side_statistic *out)
{
	int i = vocab_find(VOCAB_SIDE_STATISTIC, name);

	if (i < 0)
		return -1;
	*out = (enum side_statistic)i;
	return 0;
}

const char *schedule_name(enum schedule s)
{
	return schedules[s];
}

int schedule_from_name(const char *name, enum schedule *out)
{
	int i = vocab_find(VOCAB_SCHEDULE, name);

	if (i < 0)
		return -1;
	*out = (enum schedule)i;
	return 0;
}

const char *bound_op_name(enum bound_op op)
{
	return bound_ops[op];
}

int bound_op_from_name(const char *name, enum bound_op *out)
{
	int i = vocab_find(VOCAB_BOUND_OP, name);

	if (i < 0)
		return -1;
	*out = (enum bound_op)i;
	return 0;
}

const char *step_outcome_name(enum step_outcome o)
{
	return step_outcomes[o];
}

static bool reads_back(const char *text, double v)
{
	double r = strtod(text, NULL);

	return !memcmp(&r, &v, sizeof(v));
}

/* p in (0, 100): whole numbers as integers, others in the shortest of %.15g,
 * %.16g and %.17g that reads back bit for bit (as reports write numbers). */
static void format_percentile(double p, char *buf, size_t size)
{
	char num[32];
	int digits;

	if (p == (double)(long)p)
		snprintf(num, sizeof(num), "%ld", (long)p);
	else
		for (digits = 15; digits <= 17; digits++) {
			snprintf(num, sizeof(num), "%.*g", digits, p);
			if (digits == 17 || reads_back(num, p))
				break;
		}
	snprintf(buf, size, "p%s", num);
}

const char *aggregation_name(const struct aggregation *a, char *buf, size_t size)
{
	switch (a->kind) {
	case AGG_MIN:
	case AGG_MAX:
	case AGG_MEAN:
	case AGG_MEDIAN:
		snprintf(buf, size, "%s", aggregations[a->kind]);
		return buf;
	case AGG_PERCENTILE:
		break;
	}
	if (!(a->percentile > 0 && a->percentile < 100))
		return NULL;
	format_percentile(a->percentile, buf, size);
	return buf;
}

int aggregation_from_name(const char *s, struct aggregation *out)
{
	char *end;
	double p;
	int i = find(aggregations, ARRAY_SIZE(aggregations), s);

	out->percentile = 0;
	if (i >= 0) {
		out->kind = (enum aggregation_kind)i;
		return 0;
	}
	if (s[0] != 'p' || !(s[1] >= '0' && s[1] <= '9'))
		return -1;
	errno = 0;
	p = strtod(s + 1, &end);
	if (errno || *end || !(p > 0 && p < 100))
		return -1;
	out->kind = AGG_PERCENTILE;
	out->percentile = p;
	return 0;
}
