/*
 * The schedule's pure rules: warmup `auto` (standard and large-case plans),
 * adaptive stopping and the seeded round order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/schedule.h"

#include <string.h>

#define MS (UINT64_C(1000000))

static void test_schedule__warmup_settles_after_500ms(void **state)
{
	struct warmup_auto w;
	size_t i;

	(void)state;
	warmup_auto_init(&w);
	/* 10 ms runs, perfectly steady: settled only once 500 ms have passed. */
	for (i = 0; i < 49; i++)
		assert_false(warmup_auto_feed(&w, 10 * MS));
	assert_true(warmup_auto_feed(&w, 10 * MS));
	assert_int_equal(w.runs, 50);
	assert_true(w.settled);
	assert_int_equal(w.plan, WARMUP_PLAN_STANDARD);
	assert_string_equal(warmup_plan_name(w.plan), "standard");
	warmup_auto_release(&w);
}

static void test_schedule__warmup_waits_for_last_three_within_5_percent(void **state)
{
	struct warmup_auto w;
	size_t i;

	(void)state;
	warmup_auto_init(&w);
	for (i = 0; i < 60; i++)
		assert_false(warmup_auto_feed(&w, (i % 2) ? 10 * MS : 12 * MS));
	/* 12, 10, 10.4: 12 is 15% off the median; then 10, 10.4, 10.2 are all
	 * within 5% of their median 10.2 */
	assert_false(warmup_auto_feed(&w, 10400000));
	assert_true(warmup_auto_feed(&w, 10200000));
	assert_true(w.settled);
	warmup_auto_release(&w);
}

static void test_schedule__warmup_switches_to_large_plan(void **state)
{
	struct warmup_auto w;
	uint64_t unsettled[] = { 200 * MS, 260 * MS, 200 * MS };
	size_t i;

	(void)state;
	warmup_auto_init(&w);
	for (i = 0; i < 3; i++)
		assert_false(warmup_auto_feed(&w, unsettled[i]));
	assert_int_equal(w.plan, WARMUP_PLAN_LARGE);
	/* The last 5's median must be within 5% of the median of the 5 before,
	 * which holds the slow standard-plan runs until 3 of them are steady:
	 * run 11 compares [100 x5] with [260 200 100 100 100]. */
	for (i = 0; i < 7; i++)
		assert_false(warmup_auto_feed(&w, 100 * MS));
	assert_true(warmup_auto_feed(&w, 100 * MS));
	assert_int_equal(w.runs, 11);
	assert_true(w.settled);
	assert_string_equal(warmup_plan_name(w.plan), "large");
	warmup_auto_release(&w);
}

static void test_schedule__large_plan_gives_up_after_30s(void **state)
{
	struct warmup_auto w;
	size_t i = 0;

	(void)state;
	warmup_auto_init(&w);
	/* Keeps slowing down by 10% a run: never settles. */
	double d = 100.0 * MS;
	while (!warmup_auto_feed(&w, (uint64_t)d)) {
		d *= 1.1;
		i++;
		assert_true(i < 1000);
	}
	assert_int_equal(w.plan, WARMUP_PLAN_LARGE);
	assert_false(w.settled);
	assert_true(w.elapsed_ns >= WARMUP_LARGE_MAX_NS);
	warmup_auto_release(&w);
}

static void test_schedule__short_unsteady_runs_stop_after_10s(void **state)
{
	struct warmup_auto w;
	size_t i = 0;

	(void)state;
	warmup_auto_init(&w);
	while (!warmup_auto_feed(&w, (i % 2) ? 10 * MS : 20 * MS))
		i++;
	assert_int_equal(w.plan, WARMUP_PLAN_STANDARD);
	assert_false(w.settled);
	assert_true(w.elapsed_ns >= WARMUP_STANDARD_MAX_NS);
	assert_true(w.elapsed_ns < WARMUP_STANDARD_MAX_NS + 20 * MS);
	warmup_auto_release(&w);
}

static void test_schedule__fixed_runs_stop_exactly(void **state)
{
	struct stop_rule rule = { 5, 10, 100, 2000 * MS };
	unsigned counts[2] = { 5, 4 };
	uint64_t t[2] = { 0, 0 };

	(void)state;
	assert_false(stop_rule_done(&rule, counts, t, 2));
	counts[1] = 5;
	assert_true(stop_rule_done(&rule, counts, t, 2));
}

static void test_schedule__adaptive_needs_min_runs_and_min_time(void **state)
{
	struct stop_rule rule = { 0, 10, 100, 2000 * MS };
	unsigned counts[2] = { 10, 10 };
	uint64_t t[2] = { 2000 * MS, 1999 * MS };

	(void)state;
	assert_false(stop_rule_done(&rule, counts, t, 2));
	t[1] = 2000 * MS;
	assert_true(stop_rule_done(&rule, counts, t, 2));
	counts[0] = 9;
	assert_false(stop_rule_done(&rule, counts, t, 2));
	/* the cap ends it whatever the time */
	counts[0] = 100;
	counts[1] = 100;
	t[0] = t[1] = 1;
	assert_true(stop_rule_done(&rule, counts, t, 2));
}

static void test_schedule__certain_runs_never_pass_the_stop(void **state)
{
	struct stop_rule fixed = { 5, 10, 100, 2000 * MS }, adaptive = { 0, 10, 100, 2000 * MS };
	struct stop_rule capped = { 0, 10, 4, 0 };
	unsigned runs, min, max, count, j, k;
	uint64_t long_enough = 3600 * UINT64_C(1000000000);

	(void)state;
	assert_int_equal(stop_rule_certain_runs(&fixed, 0), 5);
	assert_int_equal(stop_rule_certain_runs(&fixed, 3), 2);
	assert_int_equal(stop_rule_certain_runs(&fixed, 5), 0);
	assert_int_equal(stop_rule_certain_runs(&fixed, 7), 0);
	assert_int_equal(stop_rule_certain_runs(&adaptive, 4), 6);
	assert_int_equal(stop_rule_certain_runs(&adaptive, 10), 0); /* the time decides */
	assert_int_equal(stop_rule_certain_runs(&capped, 1), 3);
	/* Every rule: the runs it is certain of never let stop_rule_done say
	 * done before they are made, and with time enough it says done right
	 * after them. */
	for (runs = 0; runs < 6; runs++)
		for (min = 0; min < 6; min++)
			for (max = 1; max < 7; max++)
				for (count = 0; count < 8; count++) {
					struct stop_rule r = { runs, min, max, 0 };
					k = stop_rule_certain_runs(&r, count);
					for (j = 0; j < k; j++) {
						unsigned c = count + j;
						assert_false(
							stop_rule_done(&r, &c, &long_enough, 1));
					}
					if (k) {
						unsigned c = count + k;
						assert_true(
							stop_rule_done(&r, &c, &long_enough, 1));
					}
				}
}

static void test_schedule__round_order_is_seeded(void **state)
{
	struct rng a, b, c;
	size_t oa[8], ob[8], oc[8];
	int differs = 0, r;

	(void)state;
	rng_init(&a, 42, "order:bench");
	rng_init(&b, 42, "order:bench");
	rng_init(&c, 43, "order:bench");
	for (r = 0; r < 5; r++) {
		schedule_round_order(&a, oa, 8);
		schedule_round_order(&b, ob, 8);
		schedule_round_order(&c, oc, 8);
		assert_memory_equal(oa, ob, sizeof(oa));
		differs |= memcmp(oa, oc, sizeof(oa)) != 0;
	}
	assert_true(differs);
}

static void test_schedule__coin_is_fair(void **state)
{
	struct rng r;
	int heads = 0, i;

	(void)state;
	rng_init(&r, 9, "coin");
	for (i = 0; i < 10000; i++)
		heads += schedule_base_first(&r);
	assert_in_range(heads, 4800, 5200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule__warmup_settles_after_500ms),
		cmocka_unit_test(test_schedule__warmup_waits_for_last_three_within_5_percent),
		cmocka_unit_test(test_schedule__warmup_switches_to_large_plan),
		cmocka_unit_test(test_schedule__large_plan_gives_up_after_30s),
		cmocka_unit_test(test_schedule__short_unsteady_runs_stop_after_10s),
		cmocka_unit_test(test_schedule__fixed_runs_stop_exactly),
		cmocka_unit_test(test_schedule__adaptive_needs_min_runs_and_min_time),
		cmocka_unit_test(test_schedule__certain_runs_never_pass_the_stop),
		cmocka_unit_test(test_schedule__round_order_is_seeded),
		cmocka_unit_test(test_schedule__coin_is_fair),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
