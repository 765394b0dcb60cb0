/*
 * Unit tests of deciding on counts (docs/comparison.md, "Deciding on
 * counts"): exact verdicts, changes, spreads and reasons on synthetic count
 * streams, and a seeded simulation of the contract (identical revisions
 * flagged in at most 1% of comparisons even at max_percent 0, a 1% change
 * detected in at least 99%) at the noise levels bench/counts/measure found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/rng.h"
#include "judge/counts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void decide(const uint64_t *base, size_t nb, const uint64_t *head, size_t nh,
		   double max_percent, struct counts_decision *d)
{
	struct counts_input in = COUNTS_INPUT_INIT;

	in.base = base;
	in.n_base = nb;
	in.head = head;
	in.n_head = nh;
	in.max_fraction = max_percent;
	counts_decide(&in, d);
}

static void assert_close(double a, double b)
{
	assert_true(fabs(a - b) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1));
}

static void test_counts__spread_trims_only_from_five_runs(void **state)
{
	const uint64_t three[] = { 1000, 1010, 1000 };
	const uint64_t five[] = { 1000, 2000, 1001, 1002, 0 };
	const uint64_t zeros[] = { 0, 0, 4 };
	const uint64_t nine[] = { 9, 1, 2, 3, 4, 5, 6, 7, 8 };

	(void)state;
	assert_close(counts_spread(three, 3), 0.01);
	assert_close(counts_spread(five, 5), 2.0 / 1001); /* 1000..1002 around 1001 */
	assert_close(counts_spread(zeros, 3), 1.0);	  /* median 0: relative to the high */
	assert_close(counts_spread(nine, 9), 4.0 / 5);	  /* 3..7 around 5 */
	assert_close(counts_spread(three, 1), 0);
	assert_close(counts_spread(NULL, 0), 0);
}

static void test_counts__identical_counts_pass(void **state)
{
	const uint64_t same[] = { 7127236, 7127236, 7127236 };
	struct counts_decision d;

	(void)state;
	decide(same, 3, same, 3, 0.01, &d);
	assert_int_equal(d.verdict, VERDICT_PASS);
	assert_true(d.has_change);
	assert_true(d.change == 0);
	assert_true(d.spread == 0);
	assert_true(d.base_median == 7127236);
	assert_false(d.more_runs);
	assert_string_equal(d.reason, "");
}

static void test_counts__identical_counts_pass_at_max_percent_0(void **state)
{
	const uint64_t same[] = { 471973, 471973, 471973 };
	struct counts_decision d;

	(void)state;
	decide(same, 3, same, 3, 0, &d);
	assert_int_equal(d.verdict, VERDICT_PASS);
	assert_false(d.more_runs);
}

static void test_counts__one_percent_more_is_a_regression(void **state)
{
	const uint64_t base[] = { 1000000, 1000000, 1000000 };
	const uint64_t head[] = { 1010000, 1010000, 1010000 };
	struct counts_decision d;

	(void)state;
	decide(base, 3, head, 3, 0.005, &d);
	assert_int_equal(d.verdict, VERDICT_REGRESSION);
	assert_close(d.change, 0.01);
	assert_false(d.more_runs);
	assert_string_equal(d.reason, "");
	decide(base, 3, head, 3, 0, &d);
	assert_int_equal(d.verdict, VERDICT_REGRESSION);
	decide(base, 3, head, 3, 0.015, &d);
	assert_int_equal(d.verdict, VERDICT_PASS);
}

static void test_counts__one_percent_less_is_improved(void **state)
{
	const uint64_t base[] = { 1000000, 1000000, 1000000 };
	const uint64_t head[] = { 990000, 990000, 990000 };
	struct counts_decision d;

	(void)state;
	decide(base, 3, head, 3, 0.005, &d);
	assert_int_equal(d.verdict, VERDICT_IMPROVED);
	assert_close(d.change, -0.01);
	assert_false(d.more_runs);
	decide(base, 3, head, 3, 0.015, &d);
	assert_int_equal(d.verdict, VERDICT_PASS);
}

/* A change within the noise bound is never called, even at max_percent 0:
 * counts that differ by a few instructions between two checkouts (the
 * environment holds their paths) are not a change. */
static void test_counts__change_within_noise_bound_is_not_called(void **state)
{
	const uint64_t base[] = { 1000000, 1000000, 1000000 };
	const uint64_t head[] = { 1000500, 1000500, 1000500 };
	struct counts_decision d;

	(void)state;
	decide(base, 3, head, 3, 0, &d);
	assert_int_equal(d.verdict, VERDICT_INCONCLUSIVE);
	assert_false(d.more_runs);
	assert_close(d.change, 0.0005);
	assert_string_equal(d.reason, "the change +0.05% is within the noise bound 0.1%");
	decide(base, 3, head, 3, 0.01, &d);
	assert_int_equal(d.verdict, VERDICT_PASS);
}

/* Spreads of 0.05% on each side widen the band's edge by 0.1%: +2% at a
 * 1.95% tolerance cannot be sorted, more runs are taken, and at the cap it
 * stays inconclusive. */
static void test_counts__change_within_spread_of_tolerance_needs_runs(void **state)
{
	const uint64_t base[] = { 1000000, 1000500, 1000250, 1000000, 1000500,
				  1000250, 1000000, 1000500, 1000250 };
	const uint64_t head[] = { 1020000, 1020500, 1020250, 1020000, 1020500,
				  1020250, 1020000, 1020500, 1020250 };
	struct counts_decision d;

	(void)state;
	decide(base, 3, head, 3, 0.0195, &d);
	assert_int_equal(d.verdict, VERDICT_INCONCLUSIVE);
	assert_true(d.more_runs);
	assert_int_equal(d.runs_next, 5);
	assert_close(d.change, 20000.0 / 1000250);
	assert_close(d.spread, 500.0 / 1000250);
	assert_string_equal(d.reason, "the change +2% is within the spread 0.099% of the "
				      "tolerance 1.95% after 3 runs per side");
	decide(base, 9, head, 9, 0.0195, &d);
	assert_int_equal(d.verdict, VERDICT_INCONCLUSIVE);
	assert_false(d.more_runs);
	assert_string_equal(d.reason, "the change +2% is within the spread 0.099% of the "
				      "tolerance 1.95% after 9 runs per side");
	decide(base, 9, head, 9, 0.01, &d);
	assert_int_equal(d.verdict, VERDICT_REGRESSION);
	decide(base, 9, head, 9, 0.025, &d);
	assert_int_equal(d.verdict, VERDICT_PASS);
}

/* counts_compare: the decision as a report's comparison, with the interval
 * widened by the spreads and the runs per side in `pairs`. */
static void test_counts__compare_fills_the_report_comparison(void **state)
{
	const uint64_t base[] = { 1000000, 1000500, 1000250 };
	const uint64_t head[] = { 1020000, 1020500, 1020250 };
	const uint64_t size_base[] = { 73208 }, size_head[] = { 77304 };
	struct counts_input in = COUNTS_INPUT_INIT;
	struct comparison k;
	unsigned more;

	(void)state;
	in.base = base;
	in.n_base = 3;
	in.head = head;
	in.n_head = 3;
	in.max_fraction = 0.0195;
	counts_compare(METRIC_ARTIFACT_SIZE, &in, true, &k, &more);
	assert_true(k.counts);
	assert_false(k.final);
	assert_int_equal(more, 5);
	assert_int_equal(k.verdict, VERDICT_INCONCLUSIVE);
	assert_int_equal(k.pairs, 3);
	assert_close(k.base, 1000250);
	assert_close(k.head, 1020250);
	assert_close(k.change_percent, 100 * 20000.0 / 1000250);
	assert_close(k.ci_low_percent,
		     k.change_percent - 100 * (500.0 / 1000250 + 500.0 / 1020250));
	assert_close(k.ci_high_percent,
		     k.change_percent + 100 * (500.0 / 1000250 + 500.0 / 1020250));
	assert_close(k.spread_percent, 100 * 500.0 / 1000250);
	assert_close(k.band_low_percent, -1.95);
	assert_close(k.band_high_percent, 1.95);
	assert_false(k.band_low_infinite);
	assert_true(k.confidence == 1);
	assert_true(k.gate);
	assert_string_equal(k.reason, "the change +2% is within the spread 0.099% of the "
				      "tolerance 1.95% after 3 runs per side");

	in.base = size_base;
	in.n_base = 1;
	in.head = size_head;
	in.n_head = 1;
	in.max_fraction = 0.01;
	in.runs_cap = 1;
	counts_compare(METRIC_ARTIFACT_SIZE, &in, false, &k, &more);
	assert_true(k.final);
	assert_int_equal(more, 0);
	assert_int_equal(k.verdict, VERDICT_REGRESSION);
	assert_int_equal(k.metric, METRIC_ARTIFACT_SIZE);
	assert_int_equal(k.pairs, 1);
	assert_true(k.ci_low_percent == k.change_percent && k.ci_high_percent == k.change_percent);
	assert_close(k.change_percent, 100 * (77304.0 / 73208 - 1));
	assert_false(k.gate);
	assert_string_equal(k.reason, "");
}

/* What a count's comparison could see: the tolerance widened by the sides'
 * spreads, never less than the noise bound; nothing for noisy counts,
 * which are never decided. */
static void test_counts__compare_says_what_it_could_see(void **state)
{
	const uint64_t base[] = { 1000000, 1000500, 1000250 };
	const uint64_t head[] = { 1020000, 1020500, 1020250 };
	const uint64_t same[] = { 5000, 5000, 5000 };
	const uint64_t noisy[] = { 5000, 5100, 5050 };
	struct counts_input in = COUNTS_INPUT_INIT;
	struct comparison k;
	unsigned more;

	(void)state;
	in.base = base;
	in.n_base = 3;
	in.head = head;
	in.n_head = 3;
	in.max_fraction = 0.0195;
	counts_compare(METRIC_INSTRUCTIONS, &in, true, &k, &more);
	assert_true(k.has_detectable_high && k.has_detectable_low);
	assert_close(k.detectable_high_percent, 1.95 + 100 * (500.0 / 1000250 + 500.0 / 1020250));
	assert_close(k.detectable_low_percent, -k.detectable_high_percent);
	assert_int_equal(k.pairs_to_decide, 0);
	/* constant counts at max_percent 0: the noise bound is the least */
	in.base = in.head = same;
	in.max_fraction = 0;
	counts_compare(METRIC_INSTRUCTIONS, &in, true, &k, &more);
	assert_int_equal(k.verdict, VERDICT_PASS);
	assert_close(k.detectable_high_percent, 100 * COUNTS_DEFAULT_NOISE_BOUND);
	/* noisy counts */
	in.head = noisy;
	counts_compare(METRIC_INSTRUCTIONS, &in, true, &k, &more);
	assert_false(k.has_detectable_high || k.has_detectable_low);
}

/* A side that varies by more than the noise bound takes more runs, two at a
 * time up to the cap, and ends inconclusive with its spread. */
static void test_counts__noisy_side_runs_to_cap_then_inconclusive(void **state)
{
	const uint64_t base[] = { 1000, 1010, 1000, 1020, 990, 1000, 1015, 985, 1000 };
	const uint64_t head[] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };
	const unsigned next[] = { 5, 7, 9 };
	struct counts_decision d;
	size_t i;

	(void)state;
	for (i = 0; i < N(next); i++) {
		decide(base, 3 + 2 * i, head, 3 + 2 * i, 0.01, &d);
		assert_int_equal(d.verdict, VERDICT_INCONCLUSIVE);
		assert_true(d.more_runs);
		assert_int_equal(d.runs_next, next[i]);
	}
	decide(base, 9, head, 9, 0.01, &d);
	assert_int_equal(d.verdict, VERDICT_INCONCLUSIVE);
	assert_false(d.more_runs);
	assert_close(d.spread, 10.0 / 1000); /* 1000..1010 after dropping 2 each end */
	assert_string_equal(d.reason, "counts vary by 1% between runs, more than the noise "
				      "bound 0.1%, after 9 runs per side");
}

/* One odd run among five is dropped from the spread: the side is quiet again
 * and the change is called. */
static void test_counts__one_odd_run_is_settled_by_more_runs(void **state)
{
	const uint64_t base[] = { 1000000, 1000000, 1050000, 1000000, 1000000 };
	const uint64_t head[] = { 1020000, 1020000, 1020000, 1020000, 1020000 };
	struct counts_decision d;

	(void)state;
	decide(base, 3, head, 3, 0.01, &d);
	assert_true(d.more_runs);
	assert_int_equal(d.runs_next, 5);
	decide(base, 5, head, 5, 0.01, &d);
	assert_int_equal(d.verdict, VERDICT_REGRESSION);
	assert_false(d.more_runs);
	assert_close(d.change, 0.02);
	assert_true(d.spread == 0);
}

static void test_counts__zero_counts(void **state)
{
	const uint64_t zero[] = { 0, 0, 0 };
	const uint64_t some[] = { 1000, 1000, 1000 };
	struct counts_decision d;

	(void)state;
	decide(zero, 3, zero, 3, 0, &d);
	assert_int_equal(d.verdict, VERDICT_PASS);
	assert_true(d.has_change);
	assert_true(d.change == 0);
	decide(zero, 3, some, 3, 0.01, &d);
	assert_int_equal(d.verdict, VERDICT_REGRESSION);
	assert_false(d.has_change);
	assert_string_equal(d.reason, "base counted 0, head 1000: no relative change");
	decide(some, 3, zero, 3, 0.01, &d);
	assert_int_equal(d.verdict, VERDICT_IMPROVED);
	assert_true(d.has_change);
	assert_close(d.change, -1);
}

/* An artifact's size is one count per side. */
static void test_counts__one_run_per_side(void **state)
{
	const uint64_t base[] = { 100000 };
	const uint64_t head[] = { 105000 };
	struct counts_decision d;

	(void)state;
	decide(base, 1, head, 1, 0.01, &d);
	assert_int_equal(d.verdict, VERDICT_REGRESSION);
	assert_close(d.change, 0.05);
}

/* ---- The contract, simulated ------------------------------------------ */

/*
 * A noise model of one program's counts: every run counts `count`, plus
 * `jitter` (uniform in 0..jitter) and, with probability `odd`, a run that
 * counts `odd_extra` more. A side's constant `offset` stands for what differs
 * between two checkouts with environments of different sizes. Levels from
 * bench/counts/measure (docs/comparison.md, "Deciding on counts"): under
 * valgrind every program counted the same in 30 runs with one environment;
 * aslr.c, which hashes pointers, moved by up to 9,521 instructions (0.79%)
 * when the environment's size changed, which is what its counts would do from
 * run to run with address randomisation (the perf backend). `quiet` models
 * stay within the noise bound; the detection contract is for those.
 */
struct noise {
	const char *name;
	uint64_t count, jitter, offset;
	double odd;
	uint64_t odd_extra;
	bool quiet;
};

static const struct noise models[] = {
	{ "constant (loop, alloc, fork, aslr)", 1202438, 0, 0, 0, 0, true },
	{ "environment offset of 60", 1202438, 0, 60, 0, 0, true },
	{ "jitter at 1/10 of the noise bound", 1202438, 120, 0, 0, 0, true },
	{ "jitter at the noise bound", 1202438, 1202, 0, 0, 0, true },
	{ "an odd run in 20, +5%", 1202438, 0, 0, 0.05, 60000, true },
	{ "address-dependent, 0.79% (aslr+env)", 1202438, 9521, 0, 0, 0, false },
};

static uint64_t sample(struct rng *rng, const struct noise *m, double scale, bool head)
{
	uint64_t v = (uint64_t)llround((double)m->count * scale);

	if (m->jitter)
		v += rng_below(rng, m->jitter + 1);
	if (head)
		v += m->offset;
	if (m->odd > 0 && rng_uniform(rng) < m->odd)
		v += m->odd_extra;
	return v;
}

/* One comparison as the engine will run it; returns its verdict. */
static enum verdict simulate(struct rng *rng, const struct noise *m, double scale,
			     double max_percent, size_t *runs)
{
	uint64_t base[COUNTS_DEFAULT_RUNS_CAP], head[COUNTS_DEFAULT_RUNS_CAP];
	struct counts_decision d;
	size_t n = 0, want = COUNTS_DEFAULT_RUNS;

	for (;;) {
		for (; n < want; n++) {
			base[n] = sample(rng, m, 1, false);
			head[n] = sample(rng, m, scale, true);
		}
		decide(base, n, head, n, max_percent, &d);
		if (!d.more_runs)
			break;
		want = d.runs_next;
	}
	*runs = n;
	return d.verdict;
}

#define COMPARISONS 20000

static void rates(const struct noise *m, double scale, double max_percent, unsigned counts[5],
		  double *mean_runs)
{
	struct rng rng;
	size_t runs, total = 0;
	unsigned i;

	rng_init(&rng, 14, m->name);
	memset(counts, 0, 5 * sizeof(counts[0]));
	for (i = 0; i < COMPARISONS; i++) {
		counts[simulate(&rng, m, scale, max_percent, &runs)]++;
		total += runs;
	}
	*mean_runs = (double)total / COMPARISONS;
}

static void report(const char *what, const struct noise *m, const unsigned c[5], double runs)
{
	printf("[ counts   ] %-36s %-22s regression %5.2f%% improved %5.2f%% pass %6.2f%% "
	       "inconclusive %6.2f%% runs %.2f\n",
	       m->name, what, 100.0 * c[VERDICT_REGRESSION] / COMPARISONS,
	       100.0 * c[VERDICT_IMPROVED] / COMPARISONS, 100.0 * c[VERDICT_PASS] / COMPARISONS,
	       100.0 * c[VERDICT_INCONCLUSIVE] / COMPARISONS, runs);
}

static void test_counts__identical_flagged_at_most_1_percent(void **state)
{
	unsigned c[5];
	double runs;
	size_t i;

	(void)state;
	for (i = 0; i < N(models); i++) {
		rates(&models[i], 1, 0, c, &runs);
		report("A/A, max_percent 0", &models[i], c, runs);
		assert_true(c[VERDICT_REGRESSION] + c[VERDICT_IMPROVED] <= COMPARISONS / 100);
		rates(&models[i], 1, TOLERANCE_DEFAULT_FRACTION_COUNTS, c, &runs);
		report("A/A, defaults", &models[i], c, runs);
		assert_true(c[VERDICT_REGRESSION] + c[VERDICT_IMPROVED] <= COMPARISONS / 100);
	}
}

static void test_counts__one_percent_detected_at_least_99_percent(void **state)
{
	unsigned c[5];
	double runs;
	size_t i;

	(void)state;
	for (i = 0; i < N(models); i++) {
		if (!models[i].quiet) {
			/* Noisier than the bound: more runs, then inconclusive. */
			rates(&models[i], 1.01, 0.005, c, &runs);
			report("+1%, max_percent 0.5%", &models[i], c, runs);
			assert_true(c[VERDICT_IMPROVED] + c[VERDICT_PASS] <= COMPARISONS / 100);
			continue;
		}
		rates(&models[i], 1.01, 0.005, c, &runs);
		report("+1%, max_percent 0.5%", &models[i], c, runs);
		assert_true(c[VERDICT_REGRESSION] >= COMPARISONS * 99 / 100);
		rates(&models[i], 1.01, 0, c, &runs);
		report("+1%, max_percent 0", &models[i], c, runs);
		assert_true(c[VERDICT_REGRESSION] >= COMPARISONS * 99 / 100);
	}
}

/* The runs the rule takes next: two more per side, up to the cap, none at
 * it; a size's cap is its one run. */
static void test_counts__runs_next_steps_by_two_up_to_the_cap(void **state)
{
	struct counts_input in = COUNTS_INPUT_INIT;

	(void)state;
	assert_int_equal(counts_runs_next(&in, 1), 3);
	assert_int_equal(counts_runs_next(&in, 3), 5);
	assert_int_equal(counts_runs_next(&in, 8), 9);
	assert_int_equal(counts_runs_next(&in, 9), 0);
	in.runs_cap = 1;
	assert_int_equal(counts_runs_next(&in, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts__spread_trims_only_from_five_runs),
		cmocka_unit_test(test_counts__identical_counts_pass),
		cmocka_unit_test(test_counts__compare_says_what_it_could_see),
		cmocka_unit_test(test_counts__identical_counts_pass_at_max_percent_0),
		cmocka_unit_test(test_counts__one_percent_more_is_a_regression),
		cmocka_unit_test(test_counts__one_percent_less_is_improved),
		cmocka_unit_test(test_counts__change_within_noise_bound_is_not_called),
		cmocka_unit_test(test_counts__change_within_spread_of_tolerance_needs_runs),
		cmocka_unit_test(test_counts__noisy_side_runs_to_cap_then_inconclusive),
		cmocka_unit_test(test_counts__one_odd_run_is_settled_by_more_runs),
		cmocka_unit_test(test_counts__zero_counts),
		cmocka_unit_test(test_counts__one_run_per_side),
		cmocka_unit_test(test_counts__runs_next_steps_by_two_up_to_the_cap),
		cmocka_unit_test(test_counts__compare_fills_the_report_comparison),
		cmocka_unit_test(test_counts__identical_flagged_at_most_1_percent),
		cmocka_unit_test(test_counts__one_percent_detected_at_least_99_percent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
