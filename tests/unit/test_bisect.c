/*
 * Unit tests of bisect's classification (src/judge/bisect.c): the change to
 * locate, each candidate placed nearer good or nearer bad against the
 * midpoint of the two levels, and whole searches over seeded 12-commit
 * histories whose commit 8 makes the work 15% slower, or three times slower.
 * On counts, the same rule on the counts rule's interval, with exact values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/rng.h"
#include "judge/bisect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAIRS 300
#define COMMITS	  12
#define FIRST_BAD 8

struct pairs {
	double base[MAX_PAIRS], head[MAX_PAIRS];
	struct judge_metric_input in;
};

static double gauss(struct rng *rng)
{
	double u = rng_uniform(rng), v = rng_uniform(rng);

	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

/* n seeded pairs of good (base) against a commit `level` times as slow
 * (head): a shared drift of sigma 0.3 per pair, and sigma `noise` of each
 * run's own, so that a pair's log ratio has sigma noise * sqrt(2). */
static void measure(struct pairs *p, double level, double noise, uint64_t seed, size_t n)
{
	struct rng rng;
	size_t j;

	judge_input_init(&p->in, METRIC_LATENCY);
	rng_init(&rng, seed, "bisect");
	for (j = 0; j < n; j++) {
		double drift = exp(0.3 * gauss(&rng));
		p->base[j] = 1e7 * drift * exp(noise * gauss(&rng));
		p->head[j] = 1e7 * level * drift * exp(noise * gauss(&rng));
	}
	p->in.base = p->base;
	p->in.head = p->head;
	p->in.n = n;
	p->in.seed = seed;
	p->in.benchmark = "b";
	p->in.command = "c";
}

/* The plan of every step of a search over `candidates` commits. */
static void bisect_plan(struct judge_plan *plan, unsigned candidates)
{
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct err err = ERR_INIT;

	s.confidence = judge_bisect_confidence(0.99, candidates);
	assert_int_equal(judge_plan_init(plan, &s, &err), 0);
}

/* A binary search over commits 0 (good) .. 11 (bad) whose commits from 8
 * on are `step` times as slow; returns the first bad commit it names, or -1
 * when a step could not be placed, and counts the steps. */
static int search(double step, double noise, uint64_t seed, unsigned *steps, unsigned *pairs)
{
	struct pairs *p = calloc(1, sizeof(*p));
	struct judge_plan plan;
	struct judge_bisect_target t;
	struct judge_bisect_step st;
	int good = 0, bad = COMMITS - 1;

	bisect_plan(&plan, COMMITS - 1);
	measure(p, step, noise, seed, MAX_PAIRS);
	judge_bisect_locate(&plan, &p->in, &t);
	assert_true(t.located);
	*steps = 0;
	*pairs = t.pairs;
	while (bad - good > 1) {
		int mid = (good + bad) / 2;
		measure(p, mid >= FIRST_BAD ? step : 1.0, noise, seed + 1000 * (unsigned)mid,
			MAX_PAIRS);
		judge_bisect_place(&plan, &t, &p->in, &st);
		++*steps;
		*pairs += st.pairs;
		if (st.place == JUDGE_BISECT_UNPLACED) {
			free(p);
			return -1;
		}
		if (st.place == JUDGE_BISECT_BAD)
			bad = mid;
		else
			good = mid;
	}
	free(p);
	return bad;
}

/* A +15% step under noise that makes a single run's time vary by ±10%:
 * every search names commit 8, in at most ceil(log2 11) = 4 steps, each
 * placed by its own interval against the midpoint, +7.2%. */
static void test_bisect__finds_a_fifteen_percent_step(void **state)
{
	uint64_t seed;
	unsigned steps, pairs, most = 0;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		assert_int_equal(search(1.15, 0.1, seed, &steps, &pairs), FIRST_BAD);
		assert_true(steps <= 4);
		most = pairs > most ? pairs : most;
	}
	print_message("+15%%, noise 0.1: 20 of 20 searches found commit 8; at most %u pairs\n",
		      most);
}

/* A threefold step is placed at the first look that has an interval. */
static void test_bisect__finds_a_threefold_step_at_once(void **state)
{
	struct pairs *p = calloc(1, sizeof(*p));
	struct judge_plan plan;
	struct judge_bisect_target t;
	struct judge_bisect_step st;
	uint64_t seed;
	unsigned steps, pairs;

	(void)state;
	for (seed = 1; seed <= 20; seed++)
		assert_int_equal(search(3.0, 0.1, seed, &steps, &pairs), FIRST_BAD);
	bisect_plan(&plan, COMMITS - 1);
	measure(p, 3.0, 0.1, 5, MAX_PAIRS);
	judge_bisect_locate(&plan, &p->in, &t);
	assert_true(t.located);
	assert_int_equal(t.pairs, 15); /* the first look with an interval */
	assert_true(fabs(t.midpoint - log(3.0) / 2) < 0.05);
	measure(p, 1.0, 0.1, 6, MAX_PAIRS);
	judge_bisect_place(&plan, &t, &p->in, &st);
	assert_int_equal(st.place, JUDGE_BISECT_GOOD);
	assert_int_equal(st.pairs, 15);
	assert_string_equal(st.reason, "");
	free(p);
}

/* A candidate halfway between the levels cannot be placed: at the last look
 * it says so, with its interval and the midpoint. */
static void test_bisect__a_candidate_at_the_midpoint_is_not_placed(void **state)
{
	struct pairs *p = calloc(1, sizeof(*p));
	struct judge_plan plan;
	struct judge_bisect_target t;
	struct judge_bisect_step st;
	unsigned look;

	(void)state;
	bisect_plan(&plan, COMMITS - 1);
	measure(p, 1.15, 0.1, 7, MAX_PAIRS);
	judge_bisect_locate(&plan, &p->in, &t);
	assert_true(t.located);
	measure(p, exp(t.midpoint), 0.1, 8, 252);
	judge_bisect_begin(&plan, &t, &st);
	for (look = 0; look + 1 < plan.n_looks; look++)
		assert_false(judge_bisect_look(&plan, &t, &p->in, look, &st));
	assert_true(judge_bisect_look(&plan, &t, &p->in, look, &st));
	assert_int_equal(st.place, JUDGE_BISECT_UNPLACED);
	assert_int_equal(st.pairs, 252);
	assert_int_equal(st.looks_used, plan.n_looks);
	assert_true(st.ci_low_percent < st.midpoint_percent);
	assert_true(st.ci_high_percent > st.midpoint_percent);
	assert_non_null(strstr(st.reason, "still contains the midpoint"));
	assert_non_null(strstr(st.reason, "after 252 pairs"));
	/* a look beyond the pairs measured is not made */
	judge_bisect_begin(&plan, &t, &st);
	p->in.n = 12;
	assert_false(judge_bisect_look(&plan, &t, &p->in, 1, &st));
	assert_int_equal(st.looks_used, 0);
	free(p);
}

/* The change to locate must lie beyond its own midpoint: identical commits
 * cannot be bisected, and the reason gives the interval. */
static void test_bisect__no_change_cannot_be_located(void **state)
{
	struct pairs *p = calloc(1, sizeof(*p));
	struct judge_plan plan;
	struct judge_bisect_target t;
	char want[200];

	(void)state;
	bisect_plan(&plan, COMMITS - 1);
	measure(p, 1.0, 0.1, 9, 252);
	judge_bisect_locate(&plan, &p->in, &t);
	assert_true(t.final);
	assert_false(t.located);
	assert_int_equal(t.pairs, 252);
	snprintf(want, sizeof(want),
		 "bad against good is %+.1f%% (%+.1f%% … %+.1f%%) after 252 pairs: its interval "
		 "reaches half of it, %+.1f%%",
		 expm1(t.change) * 100, expm1(t.low) * 100, expm1(t.high) * 100,
		 expm1(t.change / 2) * 100);
	assert_string_equal(t.reason, want);
	/* fewer pairs than the last look: not final */
	p->in.n = 40;
	judge_bisect_locate(&plan, &p->in, &t);
	assert_false(t.final);
	free(p);
}

/* Bisecting an improvement: bad is faster, and a candidate is bad when its
 * interval lies below the midpoint. */
static void test_bisect__an_improvement_is_bisected_the_same_way(void **state)
{
	struct pairs *p = calloc(1, sizeof(*p));
	struct judge_plan plan;
	struct judge_bisect_target t;
	struct judge_bisect_step st;

	(void)state;
	bisect_plan(&plan, COMMITS - 1);
	measure(p, 0.8, 0.1, 10, MAX_PAIRS);
	judge_bisect_locate(&plan, &p->in, &t);
	assert_true(t.located);
	assert_true(t.change < 0 && t.midpoint < 0);
	measure(p, 0.8, 0.1, 11, MAX_PAIRS);
	judge_bisect_place(&plan, &t, &p->in, &st);
	assert_int_equal(st.place, JUDGE_BISECT_BAD);
	measure(p, 1.0, 0.1, 12, MAX_PAIRS);
	judge_bisect_place(&plan, &t, &p->in, &st);
	assert_int_equal(st.place, JUDGE_BISECT_GOOD);
	free(p);
}

/* A good commit whose base is zero, or a peak RSS at the floor, is never
 * placed, and says why. */
static void test_bisect__unusable_samples_are_not_placed(void **state)
{
	struct pairs *p = calloc(1, sizeof(*p));
	struct judge_plan plan;
	struct judge_bisect_target t;
	struct judge_bisect_step st;
	static double floors[MAX_PAIRS];
	size_t j;

	(void)state;
	bisect_plan(&plan, COMMITS - 1);
	measure(p, 3.0, 0.1, 13, MAX_PAIRS);
	judge_bisect_locate(&plan, &p->in, &t);
	for (j = 0; j < MAX_PAIRS; j++)
		p->base[j] = 0;
	judge_bisect_place(&plan, &t, &p->in, &st);
	assert_int_equal(st.place, JUDGE_BISECT_UNPLACED);
	assert_true(st.final);
	assert_string_equal(st.reason, "the good commit's measurement is zero");
	judge_bisect_locate(&plan, &p->in, &t);
	assert_false(t.located);
	assert_string_equal(t.reason, "the good commit's measurement is zero");
	/* peak RSS whose head side is at its floor */
	measure(p, 3.0, 0.1, 13, MAX_PAIRS);
	judge_bisect_locate(&plan, &p->in, &t);
	p->in.metric = METRIC_PEAK_RSS;
	p->in.resolution = 1024;
	p->in.discrete = true;
	for (j = 0; j < MAX_PAIRS; j++)
		floors[j] = 1e9;
	p->in.head_floor = floors;
	judge_bisect_place(&plan, &t, &p->in, &st);
	assert_int_equal(st.place, JUDGE_BISECT_UNPLACED);
	assert_string_equal(st.reason, "the peak RSS is at or below the measurement floor");
	free(p);
}

static void test_bisect__commands_combine(void **state)
{
	const enum judge_bisect_place good_bad[] = { JUDGE_BISECT_GOOD, JUDGE_BISECT_BAD };
	const enum judge_bisect_place good_open[] = { JUDGE_BISECT_GOOD, JUDGE_BISECT_UNPLACED };
	const enum judge_bisect_place goods[] = { JUDGE_BISECT_GOOD, JUDGE_BISECT_GOOD };
	const enum judge_bisect_place open_bad[] = { JUDGE_BISECT_UNPLACED, JUDGE_BISECT_BAD };

	(void)state;
	assert_int_equal(judge_bisect_combine(good_bad, 2), JUDGE_BISECT_BAD);
	assert_int_equal(judge_bisect_combine(open_bad, 2), JUDGE_BISECT_BAD);
	assert_int_equal(judge_bisect_combine(good_open, 2), JUDGE_BISECT_UNPLACED);
	assert_int_equal(judge_bisect_combine(goods, 2), JUDGE_BISECT_GOOD);
	assert_int_equal(judge_bisect_combine(goods, 0), JUDGE_BISECT_UNPLACED);
}

/* What a comparison of the search comes to, from its findings in order:
 * bad on a command placed bad, whatever else failed but a suite after it;
 * else failed when something could not run; else good when every command
 * that takes part is placed good, not placed otherwise (and when none takes
 * part: a command that does not is STEP_NOT_COMPARED). */
static void test_bisect__a_step_from_its_findings(void **state)
{
	struct step_finding f[4];
	enum judge_bisect_place p[4] = { JUDGE_BISECT_GOOD, JUDGE_BISECT_GOOD, JUDGE_BISECT_GOOD,
					 JUDGE_BISECT_BAD };

	(void)state;
	memset(f, 0, sizeof(f));
	assert_int_equal(judge_bisect_outcome(f, p, 0), STEP_UNPLACED);
	f[0] = (struct step_finding){ .kind = STEP_COMPARED };
	f[1] = (struct step_finding){ .kind = STEP_COMPARED };
	f[2] = (struct step_finding){ .kind = STEP_NOT_COMPARED };
	assert_int_equal(judge_bisect_outcome(f, p, 3), STEP_GOOD);
	assert_int_equal(judge_bisect_outcome(&f[2], &p[2], 1), STEP_UNPLACED);
	f[2] = (struct step_finding){ .kind = STEP_COMPARED };
	p[2] = JUDGE_BISECT_UNPLACED;
	assert_int_equal(judge_bisect_outcome(f, p, 3), STEP_UNPLACED);
	f[1] = (struct step_finding){ .kind = STEP_NOT_MEASURED };
	assert_int_equal(judge_bisect_outcome(f, p, 3), STEP_FAILED);
	f[3] = (struct step_finding){ .kind = STEP_COMPARED };
	assert_int_equal(judge_bisect_outcome(f, p, 4), STEP_BAD);
	/* a command or benchmark that failed after a placement bad: still bad */
	p[0] = JUDGE_BISECT_BAD;
	f[1] = (struct step_finding){ .kind = STEP_COMMAND_FAILED };
	f[2] = (struct step_finding){ .kind = STEP_BENCHMARK_FAILED };
	assert_int_equal(judge_bisect_outcome(f, p, 3), STEP_BAD);
	/* a suite that failed: the step failed, unless placed bad after it */
	f[2] = (struct step_finding){ .kind = STEP_SUITE_FAILED };
	assert_int_equal(judge_bisect_outcome(f, p, 3), STEP_FAILED);
	assert_int_equal(judge_bisect_outcome(f, p, 4), STEP_BAD);
	assert_string_equal(step_outcome_name(STEP_GOOD), "good");
	assert_string_equal(step_outcome_name(STEP_BAD), "bad");
	assert_string_equal(step_outcome_name(STEP_UNPLACED), "not placed");
	assert_string_equal(step_outcome_name(STEP_FAILED), "failed");
}

/* What the rule of tolerance did: under noise that makes a single run vary
 * by ±30% (a loaded machine), a commit identical to good is seldom proven
 * within ±5% of it at the step's level, which ended searches for a
 * threefold step at their first step; against the midpoint, +73%, every
 * one is placed at once. */
static void test_bisect__where_the_tolerance_rule_stalled(void **state)
{
	struct pairs *p = calloc(1, sizeof(*p));
	struct judge_plan plan;
	struct judge_bisect_target t;
	struct judge_bisect_step st;
	struct comparison c;
	uint64_t seed;
	unsigned placed = 0, passed = 0, most = 0;

	(void)state;
	bisect_plan(&plan, COMMITS - 1);
	measure(p, 3.0, 0.3, 14, MAX_PAIRS);
	judge_bisect_locate(&plan, &p->in, &t);
	assert_true(t.located);
	for (seed = 100; seed < 120; seed++) {
		measure(p, 1.0, 0.3, seed, 252);
		judge_bisect_place(&plan, &t, &p->in, &st);
		placed += st.place == JUDGE_BISECT_GOOD;
		most = st.pairs > most ? st.pairs : most;
		judge_compare(&plan, &p->in, JUDGE_STOP_DECIDED, &c);
		passed += c.verdict == VERDICT_PASS;
	}
	print_message("a good commit, threefold step, noise 0.3: placed good %u of 20 (at most "
		      "%u pairs), proven within ±5%% %u of 20\n",
		      placed, most, passed);
	assert_int_equal(placed, 20);
	assert_true(passed <= 2);
	free(p);
}

/* ---- on counts ----------------------------------------------------------- */

#define RUNS 9

/* The counts rule's input: good (base) and another commit (head), n runs
 * each, good's all `good`, the other's from `v`, the last repeated. */
struct counted {
	uint64_t base[RUNS], head[RUNS];
	struct counts_input in;
};

static struct counts_input *counted(struct counted *c, uint64_t good, const uint64_t *v, size_t nv,
				    size_t n)
{
	size_t i;

	c->in = (struct counts_input)COUNTS_INPUT_INIT;
	for (i = 0; i < n; i++) {
		c->base[i] = good;
		c->head[i] = v[i < nv ? i : nv - 1];
	}
	c->in.base = c->base;
	c->in.head = c->head;
	c->in.n_base = c->in.n_head = n;
	return &c->in;
}

/* Constant counts: +15% is located exactly at once (its interval is the
 * change itself, the midpoint its square root), and a candidate at either
 * level is placed at it; an improvement is mirrored. */
static void test_bisect__counts_locate_and_place_exactly(void **state)
{
	static const uint64_t bad[] = { 1150000 }, good[] = { 1000000 }, less[] = { 800000 };
	struct judge_bisect_target t;
	struct judge_bisect_step st;
	struct counted c;
	unsigned more;

	(void)state;
	judge_bisect_counts_locate(counted(&c, 1000000, bad, 1, 3), &t, &more);
	assert_true(t.counts && t.located && t.final && t.has_interval);
	assert_int_equal(more, 0);
	assert_int_equal(t.pairs, 3);
	assert_true(t.change == log(1.15));
	assert_true(fabs(t.low - log(1.15)) < 1e-15 && fabs(t.high - log(1.15)) < 1e-15);
	assert_true(t.midpoint == log(1.15) / 2);
	assert_string_equal(t.reason, "");
	judge_bisect_counts_place(&t, counted(&c, 1000000, good, 1, 3), &st, &more);
	assert_true(st.counts && st.final);
	assert_int_equal(st.place, JUDGE_BISECT_GOOD);
	assert_int_equal(more, 0);
	assert_true(st.change_percent == 0 && st.ci_low_percent == 0 && st.ci_high_percent == 0);
	assert_true(fabs(st.midpoint_percent - (sqrt(1.15) - 1) * 100) < 1e-12);
	judge_bisect_counts_place(&t, counted(&c, 1000000, bad, 1, 3), &st, &more);
	assert_int_equal(st.place, JUDGE_BISECT_BAD);
	assert_true(fabs(st.change_percent - 15) < 1e-9);
	assert_string_equal(st.reason, "");
	/* bad counts 20% less: a candidate below the midpoint is bad */
	judge_bisect_counts_locate(counted(&c, 1000000, less, 1, 1), &t, &more);
	assert_true(t.located);
	assert_int_equal(t.pairs, 1);
	judge_bisect_counts_place(&t, counted(&c, 1000000, less, 1, 1), &st, &more);
	assert_int_equal(st.place, JUDGE_BISECT_BAD);
	judge_bisect_counts_place(&t, counted(&c, 1000000, good, 1, 1), &st, &more);
	assert_int_equal(st.place, JUDGE_BISECT_GOOD);
}

/* A change whose midpoint lies within the noise bound (0.1%) is never
 * located, as the counts rule calls no change within it; +0.3% is (its
 * midpoint +0.15%). */
static void test_bisect__counts_within_the_noise_bound_are_not_located(void **state)
{
	static const uint64_t small[] = { 1001500 }, same[] = { 1000000 }, larger[] = { 1003000 };
	struct judge_bisect_target t;
	struct counted c;
	unsigned more;

	(void)state;
	judge_bisect_counts_locate(counted(&c, 1000000, small, 1, 3), &t, &more);
	assert_true(t.final && !t.located && t.has_interval);
	assert_int_equal(more, 0);
	assert_string_equal(t.reason, "bad against good is +0.15% after 3 runs per side: half of "
				      "it, +0.075%, is within the noise bound 0.1%");
	judge_bisect_counts_locate(counted(&c, 1000000, same, 1, 1), &t, &more);
	assert_true(t.final && !t.located);
	assert_string_equal(t.reason, "bad and good counted the same after 1 run per side");
	judge_bisect_counts_locate(counted(&c, 1000000, larger, 1, 3), &t, &more);
	assert_true(t.located);
}

/* A side whose runs vary beyond the noise bound: the counts rule's runs, 2
 * more per side up to 9, then not located with its reason; a candidate the
 * same. */
static void test_bisect__noisy_counts_take_runs_then_say_why(void **state)
{
	static const uint64_t wobbly[] = { 1150000, 1155750, 1150000, 1155750, 1150000,
					   1155750, 1150000, 1155750, 1150000 };
	static const uint64_t bad[] = { 1150000 };
	struct judge_bisect_target t;
	struct judge_bisect_step st;
	struct counted c;
	unsigned more;

	(void)state;
	judge_bisect_counts_locate(counted(&c, 1000000, wobbly, RUNS, 3), &t, &more);
	assert_true(!t.final && !t.located && !t.has_interval);
	assert_int_equal(more, 5);
	assert_string_equal(t.reason, "counts vary by 0.5% between runs, more than the noise bound "
				      "0.1%, after 3 runs per side");
	judge_bisect_counts_locate(counted(&c, 1000000, wobbly, RUNS, 7), &t, &more);
	assert_int_equal(more, 9);
	judge_bisect_counts_locate(counted(&c, 1000000, wobbly, RUNS, 9), &t, &more);
	assert_true(t.final && !t.located);
	assert_int_equal(more, 0);
	assert_string_equal(t.reason, "counts vary by 0.5% between runs, more than the noise bound "
				      "0.1%, after 9 runs per side");
	judge_bisect_counts_locate(counted(&c, 1000000, bad, 1, 3), &t, &more);
	judge_bisect_counts_place(&t, counted(&c, 1000000, wobbly, RUNS, 3), &st, &more);
	assert_true(!st.final && st.place == JUDGE_BISECT_UNPLACED);
	assert_int_equal(more, 5);
}

/* A candidate whose spread (0.084%, within the bound) widens its interval
 * across the midpoint +7.24%: unplaced, more runs up to the cap, then
 * final with the interval and the midpoint. */
static void test_bisect__counts_at_the_midpoint_take_runs_to_the_cap(void **state)
{
	static const uint64_t bad[] = { 1150000 };
	static const uint64_t mid[] = { 1072000, 1072500, 1072900, 1072000, 1072500,
					1072900, 1072000, 1072500, 1072900 };
	struct judge_bisect_target t;
	struct judge_bisect_step st;
	struct counted c;
	unsigned more;

	(void)state;
	judge_bisect_counts_locate(counted(&c, 1000000, bad, 1, 3), &t, &more);
	judge_bisect_counts_place(&t, counted(&c, 1000000, mid, RUNS, 3), &st, &more);
	assert_true(!st.final && st.place == JUDGE_BISECT_UNPLACED && st.has_interval);
	assert_int_equal(more, 5);
	assert_string_equal(st.reason, "the interval +7.2% … +7.3% still contains the midpoint "
				       "+7.2% after 3 runs per side");
	judge_bisect_counts_place(&t, counted(&c, 1000000, mid, RUNS, RUNS), &st, &more);
	assert_true(st.final && st.place == JUDGE_BISECT_UNPLACED);
	assert_int_equal(more, 0);
	assert_int_equal(st.pairs, RUNS);
}

/* No ratio with a zero count: a good commit that counts 0 is never located
 * on, a bad one or a candidate that counts 0 says so. */
static void test_bisect__zero_counts_have_no_ratio(void **state)
{
	static const uint64_t zero[] = { 0 }, twelve[] = { 12 }, bad[] = { 24 };
	struct judge_bisect_target t;
	struct judge_bisect_step st;
	struct counted c;
	unsigned more;

	(void)state;
	judge_bisect_counts_locate(counted(&c, 0, twelve, 1, 3), &t, &more);
	assert_true(t.final && !t.located);
	assert_string_equal(t.reason, "the good commit's measurement is zero");
	judge_bisect_counts_locate(counted(&c, 12, zero, 1, 3), &t, &more);
	assert_true(t.final && !t.located && !t.has_interval);
	assert_string_equal(t.reason, "bad counted 0 against good's 12: no ratio");
	judge_bisect_counts_locate(counted(&c, 12, bad, 1, 3), &t, &more);
	assert_true(t.located);
	judge_bisect_counts_place(&t, counted(&c, 12, zero, 1, 3), &st, &more);
	assert_true(st.final && st.place == JUDGE_BISECT_UNPLACED);
	assert_int_equal(more, 0);
	assert_string_equal(st.reason, "the candidate counted 0 against good's 12: no ratio");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bisect__finds_a_fifteen_percent_step),
		cmocka_unit_test(test_bisect__finds_a_threefold_step_at_once),
		cmocka_unit_test(test_bisect__a_candidate_at_the_midpoint_is_not_placed),
		cmocka_unit_test(test_bisect__no_change_cannot_be_located),
		cmocka_unit_test(test_bisect__an_improvement_is_bisected_the_same_way),
		cmocka_unit_test(test_bisect__unusable_samples_are_not_placed),
		cmocka_unit_test(test_bisect__commands_combine),
		cmocka_unit_test(test_bisect__a_step_from_its_findings),
		cmocka_unit_test(test_bisect__where_the_tolerance_rule_stalled),
		cmocka_unit_test(test_bisect__counts_locate_and_place_exactly),
		cmocka_unit_test(test_bisect__counts_within_the_noise_bound_are_not_located),
		cmocka_unit_test(test_bisect__noisy_counts_take_runs_then_say_why),
		cmocka_unit_test(test_bisect__counts_at_the_midpoint_take_runs_to_the_cap),
		cmocka_unit_test(test_bisect__zero_counts_have_no_ratio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
