/*
 * Unit tests of the signed-rank machinery and the judge: docs/comparison.md's
 * critical values, Hodges–Lehmann on hand-checked inputs, the look schedule,
 * every verdict rule and reason string, floors, derived throughput, budgets
 * and command results.
 *
 * The sign-test and normal-approximation values for n = 1001 were computed
 * independently with Python's math.comb and statistics.NormalDist:
 *   python3 -c "from math import comb,floor,sqrt; from statistics import
 *     NormalDist; n=1001; c=0; k=0
 *     (loop j: c+=comb(n,j); k=j+1 while c/2**n <= 0.005); print(k);
 *     z=NormalDist().inv_cdf(0.995);
 *     print(floor(n*(n+1)/4 - z*sqrt(n*(n+1)*(2*n+1)/24)+0.5))"  -> 460, 227184
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/err.h"
#include "common/rng.h"
#include "judge/judge.h"
#include "stats/signrank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define assert_near(a, b, eps) near_at((a), (b), (eps), #a, __FILE__, __LINE__)

static void near_at(double a, double b, double eps, const char *what, const char *file, int line)
{
	if (fabs(a - b) <= eps)
		return;
	print_error("%s = %.17g, expected %.17g (within %g)\n", what, a, b, eps);
	_fail(file, line);
}

static const unsigned look_n[] = { 10, 15, 22, 33, 50, 75, 112, 168, 252 };

/* ---- signed-rank ------------------------------------------------------ */

static void test_judge__critical_k_at_nine_looks(void **state)
{
	const uint64_t want[] = { 0, 7, 32, 105, 308, 817, 2052, 5053, 12179 };
	size_t i;

	(void)state;
	for (i = 0; i < 9; i++)
		assert_int_equal(signrank_critical_k(look_n[i], 0.01 / 9), want[i]);
}

static void test_judge__critical_k_single_99(void **state)
{
	const uint64_t want[] = { 4, 16, 49, 139, 374, 941, 2281, 5477, 12962 };
	size_t i;

	(void)state;
	for (i = 0; i < 9; i++)
		assert_int_equal(signrank_critical_k(look_n[i], 0.01), want[i]);
}

static void test_judge__critical_k_above_exact_range(void **state)
{
	(void)state;
	assert_int_equal(signrank_critical_k(1001, 0.01), 227184);
	assert_int_equal(signrank_sign_critical_k(1001, 0.01), 460);
	assert_int_equal(signrank_look_k(1001, 0.01), 460);
	assert_int_equal(signrank_look_k(252, 0.01), 12962);
	/* 2^-7 > 0.005 >= 2^-8: seven pairs cannot give a 99% interval. */
	assert_int_equal(signrank_critical_k(7, 0.01), 0);
	assert_int_equal(signrank_critical_k(8, 0.01), 1);
}

static void test_judge__null_distribution_by_hand(void **state)
{
	(void)state;
	/* n = 3: subset sums 0,1,2,3,3,4,5,6 of {1,2,3}. */
	assert_near(signrank_cdf(3, 0), 1.0 / 8, 0.0);
	assert_near(signrank_cdf(3, 3), 5.0 / 8, 0.0);
	assert_near(signrank_cdf(3, 5), 7.0 / 8, 0.0);
	assert_near(signrank_cdf(3, 6), 1.0, 0.0);
	assert_near(signrank_cdf(3, 99), 1.0, 0.0);
	assert_near(signrank_cdf(10, 0), 1.0 / 1024, 0.0);
	/* Symmetry: P(T <= 27) = 1/2 + P(T = 27.5)... n = 10, mean 27.5. */
	assert_near(signrank_cdf(10, 27), 0.5, 1e-15);
	assert_near(signrank_cdf(1000, 0), ldexp(1.0, -1000), 0.0);
}

static void test_judge__hodges_lehmann_by_hand(void **state)
{
	/* Walsh averages of {-1, .5, 2, 4}, sorted:
	 * -1 -.25 .5 .5 1.25 1.5 2 2.25 3 4 (M = 10). */
	const double r[] = { 4.0, -1.0, 2.0, 0.5 };
	const double odd[] = { 5.0, 1.0, 4.0, 2.0, 3.0 };
	struct signrank_interval iv;

	(void)state;
	signrank_interval(r, 4, 2, &iv);
	assert_false(iv.sign_test);
	assert_true(iv.has_interval);
	assert_near(iv.estimate, 1.375, 0.0);
	assert_near(iv.low, -0.25, 0.0);
	assert_near(iv.high, 3.0, 0.0);
	signrank_interval(r, 4, 3, &iv);
	assert_near(iv.low, 0.5, 0.0);
	assert_near(iv.high, 2.25, 0.0);
	signrank_interval(r, 4, 0, &iv);
	assert_false(iv.has_interval);
	assert_near(iv.estimate, 1.375, 0.0);
	/* M = 15, median is the 8th Walsh average. */
	signrank_interval(odd, 5, 1, &iv);
	assert_near(iv.estimate, 3.0, 0.0);
	assert_near(iv.low, 1.0, 0.0);
	assert_near(iv.high, 5.0, 0.0);
	signrank_interval(odd, 1, 1, &iv);
	assert_near(iv.estimate, 5.0, 0.0);
}

static void test_judge__sign_test_above_1000_pairs(void **state)
{
	double *r = malloc(1001 * sizeof(*r));
	struct signrank_interval iv;
	size_t j;

	(void)state;
	for (j = 0; j < 1001; j++)
		r[j] = (double)((j * 389) % 1001 + 1) - 500.5; /* a permutation */
	signrank_interval(r, 1001, 460, &iv);
	assert_true(iv.sign_test);
	assert_near(iv.estimate, 0.5, 0.0);
	assert_near(iv.low, 460 - 500.5, 0.0);
	assert_near(iv.high, 542 - 500.5, 0.0);
	free(r);
}

/* ---- plan ------------------------------------------------------------- */

static void test_judge__default_plan_has_nine_looks(void **state)
{
	const uint64_t want[] = { 0, 7, 32, 105, 308, 817, 2052, 5053, 12179 };
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct judge_plan p;
	struct err err = ERR_INIT;
	unsigned i;

	(void)state;
	assert_int_equal(judge_plan_init(&p, &s, &err), 0);
	assert_int_equal(p.n_looks, 9);
	assert_near(p.a, 0.01 / 9, 1e-15);
	assert_near(p.confidence, 0.99, 0.0);
	for (i = 0; i < 9; i++) {
		assert_int_equal(p.looks[i], look_n[i]);
		assert_int_equal(p.k[i], want[i]);
	}
}

static void test_judge__plan_follows_min_samples_and_max_runs(void **state)
{
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct judge_plan p;
	struct err err = ERR_INIT;

	(void)state;
	s.min_samples = 20;
	s.max_runs = 100;
	assert_int_equal(judge_plan_init(&p, &s, &err), 0);
	assert_int_equal(p.n_looks, 5);
	assert_int_equal(p.looks[0], 22);
	assert_int_equal(p.looks[3], 75);
	assert_int_equal(p.looks[4], 100);
	assert_near(p.a, 0.01 / 5, 1e-15);

	s.min_samples = 10;
	s.max_runs = 2000; /* a last look above 1000 pairs: the sign test */
	assert_int_equal(judge_plan_init(&p, &s, &err), 0);
	assert_int_equal(p.n_looks, 10);
	assert_int_equal(p.looks[9], 2000);
	assert_int_equal(p.k[9], signrank_sign_critical_k(2000, 0.001));

	s.max_runs = 168; /* a schedule point: no extra look */
	assert_int_equal(judge_plan_init(&p, &s, &err), 0);
	assert_int_equal(p.n_looks, 8);
	assert_int_equal(p.looks[7], 168);
}

static void test_judge__fixed_runs_is_one_look(void **state)
{
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct judge_plan p;
	struct err err = ERR_INIT;

	(void)state;
	s.runs = 30;
	assert_int_equal(judge_plan_init(&p, &s, &err), 0);
	assert_int_equal(p.n_looks, 1);
	assert_int_equal(p.looks[0], 30);
	assert_near(p.a, 0.01, 1e-15);
	assert_int_equal(p.k[0], signrank_critical_k(30, 0.01));
}

static void test_judge__settings_without_interval_are_refused(void **state)
{
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct judge_plan p;
	struct err err = ERR_INIT;

	(void)state;
	s.runs = 5;
	assert_int_equal(judge_plan_init(&p, &s, &err), ERR_INVALID);
	assert_string_equal(
		err.msg, "runs 5 cannot give a 99% confidence interval: it needs at least 8 pairs");
	assert_int_equal(p.n_looks, 0);

	s.runs = 0;
	s.min_samples = 2;
	s.max_runs = 8; /* looks at 8 only; 2^-8 <= 0.005 */
	assert_int_equal(judge_plan_init(&p, &s, &err), 0);
	s.confidence = 0.999;
	assert_int_equal(judge_plan_init(&p, &s, &err), ERR_INVALID);
	/* 11 pairs would make two looks (10, 11) at a = 0.0005 each, and
	 * 2^-11 > 0.00025; 12 pairs (10, 12) are the fewest that work. */
	assert_string_equal(
		err.msg,
		"max_runs 8 cannot give a 99.9% confidence interval: it needs at least 12 pairs");
}

static void test_judge__settings_below_min_samples_are_refused(void **state)
{
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct judge_plan p;
	struct err err = ERR_INIT;

	(void)state;
	s.max_runs = 9;
	assert_int_equal(judge_plan_init(&p, &s, &err), ERR_INVALID);
	assert_string_equal(err.msg, "max_runs 9 is below min_samples 10");
	s.runs = 9;
	assert_int_equal(judge_plan_init(&p, &s, &err), ERR_INVALID);
	assert_string_equal(err.msg, "runs 9 is below min_samples 10");
	s.runs = 0;
	s.max_runs = 252;
	s.confidence = 1.0;
	assert_int_equal(judge_plan_init(&p, &s, &err), ERR_INVALID);
	assert_string_equal(err.msg, "confidence 1 must be between 0 and 1");
}

/* ---- verdicts ----------------------------------------------------------- */

#define MAX_PAIRS 2000

struct fixture {
	double base[MAX_PAIRS], head[MAX_PAIRS];
	double base_floor[MAX_PAIRS], head_floor[MAX_PAIRS];
	struct judge_metric_input in;
	struct judge_plan plan;
	struct comparison cmp;
};

/* A deterministic wobble in [-1, 1]. */
static double wobble(size_t j, unsigned mul)
{
	return (double)((j * mul) % 11) / 5.0 - 1.0;
}

/* base around 10 ms (+-spread), head = base * ratio * (1 +- noise). */
static void fill(struct fixture *f, enum metric m, size_t n, double spread, double ratio,
		 double noise)
{
	size_t j;

	judge_input_init(&f->in, m);
	for (j = 0; j < n; j++) {
		f->base[j] = 1e7 * (1.0 + spread * wobble(j, 37));
		f->head[j] = f->base[j] * ratio * (1.0 + noise * wobble(j, 59));
	}
	f->in.base = f->base;
	f->in.head = f->head;
	f->in.n = n;
	f->in.seed = 42;
	f->in.benchmark = "bench";
	f->in.command = "cmd";
}

static void one_look(struct fixture *f, unsigned runs)
{
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct err err = ERR_INIT;

	s.runs = runs;
	assert_int_equal(judge_plan_init(&f->plan, &s, &err), 0);
}

static void default_looks(struct fixture *f)
{
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(judge_plan_init(&f->plan, &s, &err), 0);
}

static void test_judge__regression_beyond_band(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill(f, METRIC_LATENCY, 50, 0.1, 1.2, 0.0);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	assert_string_equal(f->cmp.reason, "");
	assert_true(f->cmp.final);
	assert_true(f->cmp.has_estimate);
	assert_near(f->cmp.change_percent, 20.0, 1e-9);
	assert_near(f->cmp.ci_low_percent, 20.0, 1e-9);
	assert_near(f->cmp.ci_high_percent, 20.0, 1e-9);
	assert_near(f->cmp.band_high_percent, 5.0, 1e-12);
	assert_near(f->cmp.band_low_percent, -5.0, 1e-12);
	assert_false(f->cmp.band_low_infinite);
	assert_int_equal(f->cmp.pairs, 50);
	assert_int_equal(f->cmp.looks_used, 1);
	assert_int_equal(f->cmp.looks_planned, 1);
	assert_near(f->cmp.confidence, 0.99, 0.0);
	assert_true(f->cmp.gate);
	assert_int_equal(f->cmp.metric, METRIC_LATENCY);
	assert_near(f->cmp.head / f->cmp.base, 1.2, 1e-12);
	free(f);
}

static void test_judge__improved_and_pass(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill(f, METRIC_LATENCY, 50, 0.1, 0.8, 0.01);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_IMPROVED);
	assert_true(f->cmp.ci_high_percent < -5.0);
	assert_true(f->cmp.change_percent > -21.0 && f->cmp.change_percent < -19.0);

	fill(f, METRIC_LATENCY, 50, 0.1, 1.0, 0.02);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_PASS);
	assert_string_equal(f->cmp.reason, "");
	assert_true(f->cmp.ci_low_percent >= -5.0 && f->cmp.ci_high_percent <= 5.0);
	assert_true(f->cmp.ci_low_percent < 0.0 && f->cmp.ci_high_percent > 0.0);
	free(f);
}

static void test_judge__straddling_interval_is_inconclusive(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill(f, METRIC_LATENCY, 50, 0.1, 1.05, 0.05);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason,
			    "the interval still straddles the tolerance after 50 pairs");
	assert_true(f->cmp.has_estimate);
	assert_true(f->cmp.ci_low_percent < 5.0 && f->cmp.ci_high_percent > 5.0);
	free(f);
}

static void test_judge__first_decisive_look_is_final(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill(f, METRIC_LATENCY, 252, 0.1, 1.3, 0.01);
	default_looks(f);
	judge_begin(&f->plan, &f->in, &f->cmp);
	assert_false(f->cmp.final);
	assert_int_equal(f->cmp.looks_planned, 9);
	/* 10 pairs cannot give an interval at a = 0.01/9 (k = 0). */
	assert_false(judge_look(&f->plan, &f->in, 0, &f->cmp));
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_false(f->cmp.has_estimate);
	assert_string_equal(f->cmp.reason, "");
	assert_true(judge_look(&f->plan, &f->in, 1, &f->cmp));
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	assert_int_equal(f->cmp.looks_used, 2);
	assert_int_equal(f->cmp.pairs, 15);
	/* Re-judging stops at the same look. */
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.looks_used, 2);
	judge_finish(&f->in, JUDGE_STOP_TIME_BUDGET, &f->cmp); /* final: no-op */
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	free(f);
}

/* Issue 11 item 2 and issue 18 item 1: a unit that stopped early (its gated
 * metrics decided, or its setup failed) has fewer pairs than a later look
 * needs; such a look changes nothing, and judge_finish() settles the metric
 * at the look it reached. Before, this was an assertion (exit 134). */
static void test_judge__look_beyond_the_pairs_is_not_made(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill(f, METRIC_LATENCY, 40, 0.1, 1.05, 0.05);
	default_looks(f);
	judge_begin(&f->plan, &f->in, &f->cmp);
	f->in.n = 15;
	assert_false(judge_look(&f->plan, &f->in, 0, &f->cmp));
	assert_false(judge_look(&f->plan, &f->in, 1, &f->cmp));
	assert_int_equal(f->cmp.looks_used, 2);
	assert_false(judge_look(&f->plan, &f->in, 2, &f->cmp)); /* 22 pairs: not made */
	assert_false(judge_look(&f->plan, &f->in, 9, &f->cmp)); /* not planned */
	assert_int_equal(f->cmp.looks_used, 2);
	assert_int_equal(f->cmp.pairs, 15);
	assert_false(f->cmp.final);
	judge_finish(&f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason,
			    "the interval still straddles the tolerance after 15 pairs");
	/* Ungated, the reason says why no later look came. */
	f->in.tol.gate = false;
	f->in.n = 15;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_string_equal(f->cmp.reason, "the interval still straddles the tolerance after 15 "
					   "pairs, when the command's gated metrics were decided");
	/* A final comparison is not looked at again. */
	f->in.n = 40;
	assert_true(judge_look(&f->plan, &f->in, 2, &f->cmp));
	assert_int_equal(f->cmp.looks_used, 2);
	/* No pairs at all (a side's setup failed). */
	f->in.n = 0;
	judge_begin(&f->plan, &f->in, &f->cmp);
	assert_false(judge_look(&f->plan, &f->in, 0, &f->cmp));
	judge_finish(&f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_string_equal(f->cmp.reason, "no successful samples");
	free(f);
}

static void test_judge__time_budget_keeps_last_look(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill(f, METRIC_LATENCY, 40, 0.1, 1.05, 0.05);
	default_looks(f);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_TIME_BUDGET, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason, "the time budget ran out after 40 pairs");
	assert_int_equal(f->cmp.looks_used, 4);
	assert_int_equal(f->cmp.pairs, 33);
	assert_true(f->cmp.has_estimate);
	assert_true(f->cmp.final);

	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_string_equal(f->cmp.reason,
			    "the interval still straddles the tolerance after 33 pairs");

	/* No look at all before the budget ran out. */
	f->in.n = 8;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_TIME_BUDGET, &f->cmp);
	assert_string_equal(f->cmp.reason, "the time budget ran out after 8 pairs");
	assert_int_equal(f->cmp.looks_used, 0);
	assert_false(f->cmp.has_estimate);
	assert_true(f->cmp.base > 0.0);
	/* One pair is "1 pair" (issue 17, item 6). */
	f->in.n = 1;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_TIME_BUDGET, &f->cmp);
	assert_string_equal(f->cmp.reason, "the time budget ran out after 1 pair");
	f->in.n = 0;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_string_equal(f->cmp.reason, "no successful samples");
	free(f);
}

/* Peak RSS around 50 MiB, head 10.2% above base with seeded lognormal-like
 * noise of sigma per pair (a sum of 12 uniforms). */
static void fill_hair(struct fixture *f, size_t n, double sigma, uint64_t seed)
{
	struct rng rng;
	size_t j;
	int k;

	judge_input_init(&f->in, METRIC_PEAK_RSS);
	rng_init(&rng, seed, "hair");
	for (j = 0; j < n; j++) {
		double g = -6.0;
		for (k = 0; k < 12; k++)
			g += rng_uniform(&rng);
		f->base[j] = 50.0 * 1048576.0 * (1.0 + 0.05 * (rng_uniform(&rng) - 0.5));
		f->head[j] = f->base[j] * 1.102 * exp(sigma * g);
	}
	f->in.base = f->base;
	f->in.head = f->head;
	f->in.n = n;
	f->in.seed = 42;
	f->in.benchmark = "bench";
	f->in.command = "cmd";
}

/* Issue 28's example: peak RSS +10.2% (+9.4…+11.0) against ±10% straddles
 * the band's edge, and would run to the cap; within a tenth of the band it
 * is a pass (docs/comparison.md, "The tolerance band"). */
static void test_judge__an_interval_within_a_hair_of_the_tolerance_passes(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill_hair(f, 50, 0.018, 52);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	/* +10.2% (+9.4…+11.0) */
	assert_near(f->cmp.change_percent, 10.2117, 1e-4);
	assert_near(f->cmp.ci_low_percent, 9.4345, 1e-4);
	assert_near(f->cmp.ci_high_percent, 10.9974, 1e-4);
	assert_near(f->cmp.band_high_percent, 10.0, 1e-12); /* the band reported is the tolerance */
	assert_int_equal(f->cmp.verdict, VERDICT_PASS);
	assert_true(f->cmp.final);
	assert_string_equal(f->cmp.reason,
			    "within the tolerance but for a hair: the interval +9.43% … +11.00% "
			    "lies within the band widened by a tenth (-10.94% … +11.05%)");
	/* wider than the hair: still undecided */
	fill_hair(f, 50, 0.025, 7);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_near(f->cmp.ci_high_percent, 11.5235, 1e-4);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason,
			    "the interval still straddles the tolerance after 50 pairs");
	/* at max_percent 0 the hair is 0: no pass but an exact one */
	fill(f, METRIC_LATENCY, 50, 0.1, 1.0, 0.02);
	f->in.tol.max_fraction = 0;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	free(f);
}

static void test_judge__comparison_time_budget_has_its_own_reason(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill(f, METRIC_LATENCY, 40, 0.1, 1.05, 0.05);
	default_looks(f);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_TOTAL_TIME_BUDGET, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason, "the comparison's time budget ran out after 40 pairs");
	assert_int_equal(f->cmp.looks_used, 4);
	assert_false(f->cmp.runs_fixed);
	one_look(f, 40);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_true(f->cmp.runs_fixed);
	free(f);
}

static void test_judge__min_difference_widens_band(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill(f, METRIC_LATENCY, 50, 0.0, 1.15, 0.0);
	one_look(f, 50);
	f->in.tol.has_min_difference = true;
	f->in.tol.min_difference = 2e6; /* 2 ms of a 10 ms base: 20% */
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_near(f->cmp.band_high_percent, 20.0, 1e-9);
	assert_near(f->cmp.band_low_percent, -20.0, 1e-9);
	assert_int_equal(f->cmp.verdict, VERDICT_PASS);
	assert_true(f->cmp.has_min_difference);
	assert_near(f->cmp.min_difference, 2e6, 0.0);

	/* A min_difference at least the base: nothing below counts. */
	f->in.tol.min_difference = 1e7;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_true(f->cmp.band_low_infinite);
	assert_near(f->cmp.band_high_percent, 100.0, 1e-9);
	assert_int_equal(f->cmp.verdict, VERDICT_PASS);

	/* max_percent 0 and no min_difference: only an exact zero passes. */
	f->in.tol.has_min_difference = false;
	f->in.tol.max_fraction = 0.0;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_near(f->cmp.band_high_percent, 0.0, 0.0);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	free(f);
}

/* A standard normal draw (Box–Muller) from the seeded generator. */
static double gauss(struct rng *rng)
{
	double u = rng_uniform(rng), v = rng_uniform(rng);

	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

/*
 * Seeded pairs: base around 10 ms with lognormal drift of sigma `drift`
 * shared by both runs of a pair, head = base * ratio * lognormal(noise).
 * Pair j's ratio is ratios[(j / stretch) % n_ratios]: a stretch of pairs can
 * move apart from the rest, as under a burst of load.
 */
static void fill_seeded(struct fixture *f, size_t n, uint64_t seed, double drift, double noise,
			const double *ratios, size_t n_ratios, size_t stretch)
{
	struct rng rng;
	size_t j;

	assert_true(n <= MAX_PAIRS);
	judge_input_init(&f->in, METRIC_LATENCY);
	rng_init(&rng, seed, "noisy runner");
	for (j = 0; j < n; j++) {
		f->base[j] = 1e7 * exp(drift * gauss(&rng));
		f->head[j] =
			f->base[j] * ratios[(j / stretch) % n_ratios] * exp(noise * gauss(&rng));
	}
	f->in.base = f->base;
	f->in.head = f->head;
	f->in.n = n;
	f->in.seed = 42;
	f->in.benchmark = "bench";
	f->in.command = "cmd";
}

/* A noisy runner: drift of sigma 0.8 gives each side a robust CV about 0.6,
 * above the default max_cv 0.5, with overlapping ranges. */
static void fill_noisy(struct fixture *f, size_t n, uint64_t seed, double noise,
		       const double *ratios, size_t n_ratios, size_t stretch)
{
	fill_seeded(f, n, seed, 0.8, noise, ratios, n_ratios, stretch);
}

/* The case: +18.5% (+6.6…+31.9) against ±5% on a noisy runner. Both
 * halves of the pairs are beyond +5% on their own: the regression stands,
 * and the comparison says the runner was noisy. */
static void test_judge__noise_gate_keeps_agreeing_halves(void **state)
{
	static const double slower[] = { 1.185 };
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill_noisy(f, 50, 45, 0.29, slower, 1, 50);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	assert_string_equal(f->cmp.reason, "");
	assert_true(f->cmp.noisy);
	assert_true(f->cmp.final);
	assert_near(f->cmp.change_percent, 18.4, 0.05);
	assert_near(f->cmp.ci_low_percent, 6.6, 0.05);
	assert_near(f->cmp.ci_high_percent, 31.5, 0.05);
	free(f);
}

/* The same interval's worth of change, but made of a first half at +40% and
 * a second half at +1%, inside the band: the halves disagree, so the gate
 * keeps it inconclusive. */
static void test_judge__noise_gate_hides_disagreeing_halves(void **state)
{
	static const double apart[] = { 1.40, 1.01 };
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill_noisy(f, 50, 19, 0.2, apart, 2, 25);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason, "measurements are noisier than max_cv");
	assert_true(f->cmp.noisy);
	assert_true(f->cmp.final);
	/* the whole interval lies beyond +5%, as in the issue */
	assert_near(f->cmp.change_percent, 18.5, 0.05);
	assert_near(f->cmp.ci_low_percent, 6.4, 0.05);
	assert_near(f->cmp.ci_high_percent, 31.9, 0.05);
	/* held back by the gate, not by the interval: no pairs would decide it */
	assert_int_equal(f->cmp.pairs_to_decide, 0);
	assert_false(f->cmp.pairs_to_decide_beyond);
	free(f);
}

/* Halves that disagree at a look that is not the last leave the comparison
 * open; the next look, whose halves agree, decides. */
static void test_judge__noise_gate_waits_for_the_next_look(void **state)
{
	static const double apart[] = { 1.40, 1.01 };
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct err err = ERR_INIT;
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill_noisy(f, 75, 19, 0.2, apart, 2, 25);
	s.min_samples = 50;
	s.max_runs = 75;
	assert_int_equal(judge_plan_init(&f->plan, &s, &err), 0);
	assert_int_equal(f->plan.n_looks, 2);
	judge_begin(&f->plan, &f->in, &f->cmp);
	assert_false(judge_look(&f->plan, &f->in, 0, &f->cmp));
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_true(f->cmp.noisy);
	assert_true(judge_look(&f->plan, &f->in, 1, &f->cmp));
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	assert_int_equal(f->cmp.pairs, 75);
	assert_true(f->cmp.noisy);
	free(f);
}

/* A pass stands on a noisy runner when both halves are inside the band. */
static void test_judge__noise_gate_keeps_a_pass_whose_halves_agree(void **state)
{
	static const double same[] = { 1.0 };
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill_noisy(f, 50, 7, 0.03, same, 1, 50);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_PASS);
	assert_true(f->cmp.noisy);
	free(f);
}

static void test_judge__noise_gate_needs_noise_and_overlap(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	/* Separated ranges: the gate does not apply. */
	fill(f, METRIC_LATENCY, 50, 0.6, 5.0, 0.0);
	one_look(f, 50);
	f->in.max_cv = 0.1;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	assert_false(f->cmp.noisy);

	/* Robust CV of base ~ 0.5 > max_cv 0.1, ranges overlap: noisy. */
	fill(f, METRIC_LATENCY, 50, 0.6, 1.2, 0.0);
	f->in.max_cv = 0.1;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	assert_true(f->cmp.noisy);

	/* max_cv 0 disables it. */
	f->in.max_cv = 0.0;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	assert_false(f->cmp.noisy);
	free(f);
}

/* ---- what a comparison could see --------------------------------------- */

/* The figure is exact, not a rule of thumb: head slower by the smallest
 * slowdown it reports (a hair more) in every pair, with the same noise, is
 * a regression, and a hair less is not; likewise for improvements. */
static void test_judge__detectable_change_is_the_interval_shifted(void **state)
{
	static const double same[] = { 1.0 };
	struct fixture *f = calloc(1, sizeof(*f));
	struct comparison seen;
	double est, shift[2], eps = 1e-6;
	size_t side, j;
	int sign;

	(void)state;
	fill_seeded(f, 50, 3, 0.1, 0.05, same, 1, 50);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	seen = f->cmp;
	assert_true(seen.has_detectable_high);
	assert_true(seen.has_detectable_low);
	est = log1p(seen.change_percent / 100);
	/* tolerance plus the interval's lower (upper) half-width, log scale */
	assert_near(seen.detectable_high_percent,
		    expm1(log(1.05) + est - log1p(seen.ci_low_percent / 100)) * 100, 1e-9);
	assert_near(seen.detectable_low_percent,
		    expm1(log(0.95) - (log1p(seen.ci_high_percent / 100) - est)) * 100, 1e-9);
	/* the multiplier of head that makes the estimate the detectable change */
	shift[0] = log1p(seen.detectable_high_percent / 100) - est;
	shift[1] = log1p(seen.detectable_low_percent / 100) - est;
	for (side = 0; side < 2; side++)
		for (sign = -1; sign <= 1; sign += 2) {
			/* a hair beyond the figure (sign > 0) or a hair short of it */
			double d = shift[side] + (side ? -sign : sign) * eps;
			fill_seeded(f, 50, 3, 0.1, 0.05, same, 1, 50);
			for (j = 0; j < 50; j++)
				f->head[j] *= exp(d);
			judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
			if (sign > 0)
				assert_int_equal(f->cmp.verdict,
						 side ? VERDICT_IMPROVED : VERDICT_REGRESSION);
			else
				assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
		}
	free(f);
}

/* An inconclusive comparison says how many pairs would have decided it at
 * the noise it saw; here they do: the same stream of pairs, run that long,
 * is decided. (A projection from one estimate: the estimate moves as pairs
 * come, so it is a figure to plan with, not a promise; docs/comparison.md
 * measures how often it holds.) */
static void test_judge__pairs_to_decide_are_enough(void **state)
{
	static const double slower[] = { 1.08 };
	struct fixture *f = calloc(1, sizeof(*f));
	unsigned m;

	(void)state;
	fill_seeded(f, 50, 4, 0.1, 0.1, slower, 1, 50);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason,
			    "the interval still straddles the tolerance after 50 pairs");
	assert_near(f->cmp.change_percent, 7.6, 0.05);
	m = f->cmp.pairs_to_decide;
	assert_false(f->cmp.pairs_to_decide_beyond);
	assert_int_equal(m, 150);
	fill_seeded(f, m, 4, 0.1, 0.1, slower, 1, m);
	one_look(f, m);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	assert_int_equal(f->cmp.pairs_to_decide, 0);
	free(f);
}

/* How often the projection holds, on seeded pairs (docs/comparison.md, "What
 * a comparison could see"): comparisons inconclusive at 50 pairs, run again
 * on the same stream of pairs at the projected count and at twice it. A
 * projection from one estimate holds about as often as the estimate does
 * not move towards the band; printed, and held to at least 60% and 85%. */
static void test_judge__pairs_to_decide_hold_in_simulation(void **state)
{
	static const double ratios[2] = { 1.08, 1.0 };
	struct fixture *f = calloc(1, sizeof(*f));
	size_t r;

	(void)state;
	for (r = 0; r < 2; r++) {
		unsigned seed, n = 0, at_m = 0, at_2m = 0, m;
		for (seed = 1; seed <= 200; seed++) {
			fill_seeded(f, 50, seed, 0.1, 0.1, &ratios[r], 1, 50);
			one_look(f, 50);
			judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
			m = f->cmp.pairs_to_decide;
			if (f->cmp.verdict != VERDICT_INCONCLUSIVE || !m || 2 * m > MAX_PAIRS)
				continue;
			n++;
			fill_seeded(f, 2 * m, seed, 0.1, 0.1, &ratios[r], 1, 2 * m);
			f->in.n = m;
			one_look(f, m);
			judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
			at_m += f->cmp.verdict != VERDICT_INCONCLUSIVE;
			f->in.n = 2 * m;
			one_look(f, 2 * m);
			judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
			at_2m += f->cmp.verdict != VERDICT_INCONCLUSIVE;
		}
		print_message(
			"pairs to decide, change %+.0f%%, noise 0.1: %u inconclusive at 50 "
			"pairs; decided at the projection %u (%.0f%%), at twice it %u (%.0f%%)\n",
			(ratios[r] - 1) * 100, n, at_m, 100.0 * at_m / n, at_2m, 100.0 * at_2m / n);
		assert_true(n >= 50);
		assert_true(at_m >= 0.6 * n);
		assert_true(at_2m >= 0.85 * n);
	}
	free(f);
}

/* The projection from the fields alone: a pass needs both ends inside the
 * band; an estimate on the band's edge is beyond reach; a decided or
 * skipped comparison, or one without an interval, projects nothing.
 * Expected values from Python:
 *   e, lo, hi = log(1.01), log(0.97), log(1.055)
 *   ceil(50 * max(((hi - e) / (log(1.05) - e))**2, ((e - lo) / (e - log(0.95)))**2)) */
static void test_judge__pairs_to_decide_from_the_fields(void **state)
{
	struct comparison c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.has_estimate = true;
	c.change_percent = 1;
	c.ci_low_percent = -3;
	c.ci_high_percent = 5.5;
	c.pairs = 50;
	c.band_low_percent = -5;
	c.band_high_percent = 5;
	c.verdict = VERDICT_INCONCLUSIVE;
	c.final = true;
	judge_fill_seen(&c);
	assert_int_equal(c.pairs_to_decide, 63);
	assert_near(c.detectable_high_percent, (1.05 * 1.01 / 0.97 - 1) * 100, 1e-9);
	assert_near(c.detectable_low_percent, (0.95 * 1.01 / 1.055 - 1) * 100, 1e-9);
	/* not final yet: no projection */
	c.final = false;
	judge_fill_seen(&c);
	assert_int_equal(c.pairs_to_decide, 0);
	/* the estimate on the tolerance: no number of pairs sorts it */
	c.final = true;
	c.change_percent = 5;
	c.ci_high_percent = 9;
	judge_fill_seen(&c);
	assert_int_equal(c.pairs_to_decide, 0);
	assert_true(c.pairs_to_decide_beyond);
	/* decided: nothing to project, but what it could see stays */
	c.verdict = VERDICT_PASS;
	judge_fill_seen(&c);
	assert_false(c.pairs_to_decide_beyond);
	assert_true(c.has_detectable_high);
	/* skipped or no interval: nothing seen */
	c.verdict = VERDICT_SKIPPED;
	judge_fill_seen(&c);
	assert_false(c.has_detectable_high);
	assert_false(c.has_detectable_low);
	c.verdict = VERDICT_INCONCLUSIVE;
	c.has_estimate = false;
	judge_fill_seen(&c);
	assert_false(c.has_detectable_high);
	/* a band open below (min_difference at least the base): no improvement
	 * is ever called, so none is detectable */
	c.has_estimate = true;
	c.band_low_infinite = true;
	judge_fill_seen(&c);
	assert_true(c.has_detectable_high);
	assert_false(c.has_detectable_low);
}

/* Derived throughput sees what latency saw, turned over. */
static void test_judge__throughput_sees_what_latency_saw(void **state)
{
	static const double slower[] = { 1.08 };
	struct fixture *f = calloc(1, sizeof(*f));
	struct judge_work work = { 1e6, 1e6, 1e6, 1e6, "bytes" };
	struct comparison t;

	(void)state;
	fill_seeded(f, 50, 11, 0.1, 0.08, slower, 1, 50);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	judge_derive_throughput(&f->cmp, &work, &t);
	assert_true(t.has_detectable_high && t.has_detectable_low);
	assert_near(t.detectable_high_percent,
		    100 / (1 + f->cmp.detectable_low_percent / 100) - 100, 1e-9);
	assert_near(t.detectable_low_percent,
		    100 / (1 + f->cmp.detectable_high_percent / 100) - 100, 1e-9);
	assert_int_equal(t.pairs_to_decide, f->cmp.pairs_to_decide);
	work.base_max = 2e6; /* skipped: nothing seen */
	judge_derive_throughput(&f->cmp, &work, &t);
	assert_false(t.has_detectable_high || t.has_detectable_low);
	assert_int_equal(t.pairs_to_decide, 0);
	free(f);
}

/* A throughput judged with its sides swapped (a harness's, where higher is
 * better): 20% less in head is the regression, turned back into throughput's
 * own figures; the same drop the other way round is an improvement. */
static void test_judge__higher_is_better_judged_swapped_and_turned_back(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct comparison t;

	(void)state;
	fill(f, METRIC_LATENCY, 30, 0.1, 0.8, 0.01); /* head: 80% of base's rate */
	f->in.base = f->head;			     /* swapped: the judge's base is head */
	f->in.head = f->base;
	one_look(f, 30);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	f->cmp.has_min_difference = true; /* in ns: nothing to a throughput */
	judge_turn_higher(&f->cmp, METRIC_THROUGHPUT, &t);
	assert_int_equal(t.metric, METRIC_THROUGHPUT);
	assert_int_equal(t.verdict, VERDICT_REGRESSION);
	assert_true(t.gate && !t.derived && !t.has_min_difference);
	assert_near(t.base, f->cmp.head, 1e-9);
	assert_near(t.head, f->cmp.base, 1e-9);
	assert_true(t.head < t.base);
	assert_near(t.change_percent, -20.0, 0.5);
	assert_near(t.change_percent, 100 / (1 + f->cmp.change_percent / 100) - 100, 1e-9);
	assert_near(t.ci_low_percent, 100 / (1 + f->cmp.ci_high_percent / 100) - 100, 1e-9);
	assert_near(t.ci_high_percent, 100 / (1 + f->cmp.ci_low_percent / 100) - 100, 1e-9);
	assert_true(t.ci_low_percent <= t.change_percent && t.change_percent <= t.ci_high_percent);
	assert_near(t.max_fraction, 0.05 / 1.05, 1e-12);
	assert_near(t.band_low_percent, -100 * 0.05 / 1.05, 1e-9);
	assert_near(t.band_high_percent, 100 * 0.05 / 0.95, 1e-9);
	fill(f, METRIC_LATENCY, 30, 0.1, 1.25, 0.01); /* head's rate 1.25 times base's */
	f->in.base = f->head;
	f->in.head = f->base;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	judge_turn_higher(&f->cmp, METRIC_THROUGHPUT, &t);
	assert_int_equal(t.verdict, VERDICT_IMPROVED);
	assert_near(t.change_percent, 25.0, 0.7);
	free(f);
}

static void test_judge__zero_base_is_inconclusive(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	size_t j;

	(void)state;
	fill(f, METRIC_CPU_TOTAL, 50, 0.0, 1.0, 0.0);
	for (j = 0; j < 50; j++) {
		f->base[j] = j % 5 == 0 ? 1000.0 : 0.0; /* 0 us mostly */
		f->head[j] = 2000.0;
	}
	default_looks(f);
	judge_begin(&f->plan, &f->in, &f->cmp);
	assert_true(judge_look(&f->plan, &f->in, 0, &f->cmp));
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason, "the base measurement is zero");
	assert_int_equal(f->cmp.metric, METRIC_CPU_TOTAL);
	free(f);
}

/* Peak RSS around `base_mib` and `head_mib`, +-5% in KiB steps, floors at
 * `floor_mib` on both sides. */
static void fill_rss(struct fixture *f, size_t n, double base_mib, double head_mib,
		     double floor_mib)
{
	size_t j;

	judge_input_init(&f->in, METRIC_PEAK_RSS);
	for (j = 0; j < n; j++) {
		f->base[j] = 1024.0 * floor(base_mib * 1024.0 * (1.0 + 0.05 * wobble(j, 37)));
		f->head[j] = 1024.0 * floor(head_mib * 1024.0 * (1.0 + 0.05 * wobble(j, 59)));
		f->base_floor[j] = floor_mib * 1048576.0;
		f->head_floor[j] = floor_mib * 1048576.0;
	}
	f->in.base = f->base;
	f->in.head = f->head;
	f->in.base_floor = f->base_floor;
	f->in.head_floor = f->head_floor;
	f->in.n = n;
	f->in.seed = 7;
	f->in.benchmark = "bench";
	f->in.command = "cmd";
}

static void test_judge__floor_both_sides_skipped(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill_rss(f, 50, 1.5, 1.0, 2.0);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_SKIPPED);
	assert_string_equal(f->cmp.reason,
			    "the peak RSS is at or below the measurement floor on both sides");
	assert_true(f->cmp.base_at_floor && f->cmp.head_at_floor);
	free(f);
}

static void test_judge__floor_keeps_regression_from_base_at_floor(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	(void)state;
	fill_rss(f, 50, 1.5, 8.0, 2.0);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	assert_true(f->cmp.base_at_floor);
	assert_false(f->cmp.head_at_floor);
	/* Compared against the whole floor (2 MiB), not 1.5 MiB: +300%. */
	assert_true(f->cmp.change_percent > 290.0 && f->cmp.change_percent < 310.0);

	fill_rss(f, 50, 8.0, 1.5, 2.0);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_IMPROVED);
	assert_true(f->cmp.head_at_floor);
	free(f);
}

static void test_judge__floor_makes_other_verdicts_inconclusive(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	size_t j;

	(void)state;
	/* Base at the floor, head just above it: a pass is not kept. */
	fill_rss(f, 50, 1.9, 2.1, 2.0);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason, "the peak RSS is at or below the measurement floor");

	/* Head at the floor, base well above: improvement kept; but an
	 * improvement from a base at the floor (head lower) cannot happen, and a
	 * regression to a head at the floor is not kept either. */
	fill_rss(f, 50, 2.1, 1.9, 2.0);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_true(f->cmp.head_at_floor);
	assert_int_equal(f->cmp.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(f->cmp.reason, "the peak RSS is at or below the measurement floor");

	/* Rounds stopped (other metrics decided) with a side at the floor. */
	fill_rss(f, 40, 1.9, 2.4, 2.0);
	for (j = 0; j < 40; j++) /* +20% +-30% against a 20% band: undecided */
		f->head[j] = 1024.0 * floor(2.4 * 1024.0 * (1.0 + 0.3 * wobble(j, 59)));
	f->in.tol.max_fraction = 0.2;
	default_looks(f);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.looks_used, 4);
	assert_string_equal(f->cmp.reason, "the peak RSS is at or below the measurement floor");
	free(f);
}

static void test_judge__jitter_is_seeded(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct comparison a, b, c;

	(void)state;
	fill_rss(f, 50, 40.0, 40.0, 2.0);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &a);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	f->in.seed = 8;
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &c);
	assert_true(a.ci_low_percent != c.ci_low_percent);
	assert_int_equal(a.verdict, VERDICT_PASS);
	assert_near(a.band_high_percent, 10.0, 1e-9); /* peak RSS default */
	free(f);
}

static void test_judge__throughput_derived_from_latency(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct judge_work work = { 1e6, 1e6, 1e6, 1e6, "bytes" };
	struct comparison t;

	(void)state;
	fill(f, METRIC_LATENCY, 50, 0.0, 1.25, 0.0);
	one_look(f, 50);
	judge_compare(&f->plan, &f->in, JUDGE_STOP_DECIDED, &f->cmp);
	assert_int_equal(f->cmp.verdict, VERDICT_REGRESSION);
	judge_derive_throughput(&f->cmp, &work, &t);
	assert_int_equal(t.metric, METRIC_THROUGHPUT);
	assert_true(t.derived);
	assert_false(t.gate);
	assert_int_equal(t.verdict, VERDICT_REGRESSION);
	assert_near(t.change_percent, -20.0, 1e-9); /* 1/1.25 - 1 */
	assert_near(t.ci_low_percent, -20.0, 1e-9);
	assert_near(t.base, 1e8, 1e-3); /* 1e6 bytes per 10 ms */
	assert_near(t.head, 8e7, 1e-3);
	assert_near(t.max_fraction, 0.05 / 1.05, 1e-15);
	assert_near(t.band_low_percent, 100.0 / 1.05 - 100.0, 1e-9);
	assert_near(t.band_high_percent, 100.0 / 0.95 - 100.0, 1e-9);

	/* Interval ends swap. */
	f->cmp.ci_low_percent = 10.0;
	f->cmp.ci_high_percent = 25.0;
	judge_derive_throughput(&f->cmp, &work, &t);
	assert_near(t.ci_low_percent, -20.0, 1e-9);
	assert_near(t.ci_high_percent, 100.0 / 1.1 - 100.0, 1e-9);

	work.base_max = 1.2e6;
	judge_derive_throughput(&f->cmp, &work, &t);
	assert_int_equal(t.verdict, VERDICT_SKIPPED);
	assert_string_equal(t.reason, "throughput needs constant, equal work: base 1e+06 to "
				      "1.2e+06 bytes, head 1e+06 to 1e+06 bytes");
	free(f);
}

static void test_judge__only_three_metrics_are_compared(void **state)
{
	struct judge_metric_input in;

	(void)state;
	assert_true(judge_metric_compared(METRIC_LATENCY));
	assert_true(judge_metric_compared(METRIC_CPU_TOTAL));
	assert_true(judge_metric_compared(METRIC_PEAK_RSS));
	assert_false(judge_metric_compared(METRIC_CPU_UTILIZATION));
	assert_false(judge_metric_compared(METRIC_THROUGHPUT));
	assert_false(judge_metric_compared(METRIC_CPU_USER));
	judge_input_init(&in, METRIC_CPU_TOTAL);
	assert_near(in.tol.max_fraction, 0.05, 0.0);
	assert_near(in.resolution, 1000.0, 0.0);
	assert_true(in.discrete);
	judge_input_init(&in, METRIC_PEAK_RSS);
	assert_near(in.tol.max_fraction, 0.10, 0.0);
	assert_near(in.resolution, 1024.0, 0.0);
	judge_input_init(&in, METRIC_LATENCY);
	assert_false(in.discrete);
	assert_true(in.tol.gate);
}

/* ---- budgets and results ---------------------------------------------- */

static void test_judge__budget_aggregations_and_bounds(void **state)
{
	const double x[] = { 12.0, 3.0, 7.5, 9.0, 1.0, 15.0, 4.0, 8.0, 11.0, 6.0 };
	struct budget_rule b = { METRIC_LATENCY, { AGG_PERCENTILE, 90.0 }, BOUND_LT, 12.5 };
	struct budget_result r;

	(void)state;
	judge_budget(x, NULL, 10, &b, &r);
	assert_int_equal(r.status, BUDGET_PASS);
	assert_true(r.has_actual);
	assert_near(r.actual, 12.3, 1e-12);
	b.limit = 12.25;
	judge_budget(x, NULL, 10, &b, &r);
	assert_int_equal(r.status, BUDGET_FAIL);
	/* The bound itself: < fails, <= passes. */
	b.aggregation.kind = AGG_MAX;
	b.limit = 15.0;
	judge_budget(x, NULL, 10, &b, &r);
	assert_int_equal(r.status, BUDGET_FAIL);
	b.op = BOUND_LE;
	judge_budget(x, NULL, 10, &b, &r);
	assert_int_equal(r.status, BUDGET_PASS);
	assert_false(r.metric_error);

	b.aggregation.kind = AGG_MIN;
	assert_near(judge_aggregate(x, 10, &b.aggregation), 1.0, 0.0);
	b.aggregation.kind = AGG_MAX;
	assert_near(judge_aggregate(x, 10, &b.aggregation), 15.0, 0.0);
	b.aggregation.kind = AGG_MEAN;
	assert_near(judge_aggregate(x, 10, &b.aggregation), 7.65, 1e-12);
	b.aggregation.kind = AGG_MEDIAN;
	assert_near(judge_aggregate(x, 10, &b.aggregation), 7.75, 1e-12);

	/* Throughput floors: lower bounds. */
	b.op = BOUND_GE;
	b.limit = 7.75;
	judge_budget(x, NULL, 10, &b, &r);
	assert_int_equal(r.status, BUDGET_PASS);
	b.op = BOUND_GT;
	judge_budget(x, NULL, 10, &b, &r);
	assert_int_equal(r.status, BUDGET_FAIL);

	judge_budget(x, NULL, 0, &b, &r);
	assert_int_equal(r.status, BUDGET_NO_DATA);
	assert_false(r.has_actual);
	assert_string_equal(r.reason, "no successful samples");
}

static void test_judge__budget_at_floor(void **state)
{
	const double rss[] = { 1.5e6, 1.6e6, 1.4e6 };
	const double floors[] = { 2.0e6, 2.1e6, 2.0e6 };
	struct budget_rule b = { METRIC_PEAK_RSS, { AGG_MAX, 0.0 }, BOUND_LE, 2.1e6 };
	struct budget_result r;

	(void)state;
	/* The floor itself (2.1e6, the largest) meets "<= 2.1e6": pass. */
	judge_budget(rss, floors, 3, &b, &r);
	assert_int_equal(r.status, BUDGET_PASS);
	assert_false(r.metric_error);
	assert_near(r.actual, 1.6e6, 0.0);
	/* "< 2.1e6" the floor does not meet: skipped, metric_error. */
	b.op = BOUND_LT;
	judge_budget(rss, floors, 3, &b, &r);
	assert_int_equal(r.status, BUDGET_SKIPPED);
	assert_true(r.metric_error);
	assert_string_equal(r.reason, "the peak RSS is at or below the measurement floor");
	/* Above the floor: an ordinary check. */
	b.limit = 1.0e6;
	b.op = BOUND_LE;
	{
		const double big[] = { 5e6, 6e6, 7e6 };
		judge_budget(big, floors, 3, &b, &r);
		assert_int_equal(r.status, BUDGET_FAIL);
		assert_false(r.metric_error);
	}
}

static void test_judge__command_result_is_worst_gated_state(void **state)
{
	struct comparison c[3];
	struct budget_result b[2];

	(void)state;
	memset(c, 0, sizeof(c));
	memset(b, 0, sizeof(b));
	c[0].gate = c[1].gate = c[2].gate = true;
	c[0].verdict = VERDICT_PASS;
	c[1].verdict = VERDICT_IMPROVED;
	c[2].verdict = VERDICT_SKIPPED;
	assert_int_equal(judge_command_result(c, 3, NULL, 0), RESULT_IMPROVED);
	assert_int_equal(judge_command_result(c, 0, NULL, 0), RESULT_PASS);

	c[2].verdict = VERDICT_REGRESSION;
	c[2].gate = false; /* shown, not counted */
	assert_int_equal(judge_command_result(c, 3, NULL, 0), RESULT_IMPROVED);
	c[2].gate = true;
	c[2].accepted = true;
	assert_int_equal(judge_command_result(c, 3, NULL, 0), RESULT_IMPROVED);
	c[2].accepted = false;
	assert_int_equal(judge_command_result(c, 3, NULL, 0), RESULT_REGRESSION);

	c[2].verdict = VERDICT_INCONCLUSIVE;
	b[0].status = BUDGET_PASS;
	b[1].status = BUDGET_FAIL;
	assert_int_equal(judge_command_result(c, 3, b, 2), RESULT_OVER_BUDGET);
	c[2].verdict = VERDICT_REGRESSION;
	assert_int_equal(judge_command_result(c, 3, b, 2), RESULT_REGRESSION);
	b[0].status = BUDGET_SKIPPED;
	b[0].metric_error = true;
	assert_int_equal(judge_command_result(c, 3, b, 2), RESULT_METRIC_ERROR);
	b[0].metric_error = false; /* a waiver (metrics.unsupported: skip) */
	b[1].status = BUDGET_NO_DATA;
	c[2].verdict = VERDICT_INCONCLUSIVE;
	assert_int_equal(judge_command_result(c, 3, b, 2), RESULT_INCONCLUSIVE);
}

/* The worst of a level's results rolls up; none is a pass. */
static void test_judge__worst_result_rolls_up(void **state)
{
	const enum result_state v[] = { RESULT_IMPROVED, RESULT_REGRESSION, RESULT_INCONCLUSIVE };

	(void)state;
	assert_int_equal(judge_worst(v, 3), RESULT_REGRESSION);
	assert_int_equal(judge_worst(v, 1), RESULT_IMPROVED);
	assert_int_equal(judge_worst(NULL, 0), RESULT_PASS);
}

/* The accept label: every regression is marked accepted and stays; a
 * command that was a regression is judged again without them, down to its
 * budgets and its other verdicts; one that was not keeps its result. */
static void test_judge__accepting_marks_regressions_and_judges_again(void **state)
{
	struct comparison c[3];
	struct budget_result b[1];

	(void)state;
	memset(c, 0, sizeof(c));
	memset(b, 0, sizeof(b));
	c[0].gate = c[1].gate = c[2].gate = true;
	c[0].verdict = VERDICT_REGRESSION;
	c[1].verdict = VERDICT_IMPROVED;
	c[2].verdict = VERDICT_REGRESSION;
	c[2].gate = false;
	assert_int_equal(judge_accept(c, 3, NULL, 0, RESULT_REGRESSION), RESULT_IMPROVED);
	assert_true(c[0].accepted);
	assert_false(c[1].accepted);
	assert_true(c[2].accepted); /* shown as accepted, gated or not */
	assert_int_equal(c[0].verdict, VERDICT_REGRESSION);
	/* a broken budget is not accepted */
	c[0].accepted = c[2].accepted = false;
	b[0].status = BUDGET_FAIL;
	assert_int_equal(judge_accept(c, 3, b, 1, RESULT_REGRESSION), RESULT_OVER_BUDGET);
	/* a command that was no regression (an error of its own) keeps it */
	c[0].accepted = c[2].accepted = false;
	assert_int_equal(judge_accept(c, 3, NULL, 0, RESULT_ERROR), RESULT_ERROR);
	assert_true(c[0].accepted);
	/* nothing to accept: the result as it was */
	c[0].verdict = c[2].verdict = VERDICT_PASS;
	c[0].accepted = c[2].accepted = false;
	assert_int_equal(judge_accept(c, 3, NULL, 0, RESULT_REGRESSION), RESULT_REGRESSION);
	assert_false(c[0].accepted);
}

/* A benchmark or suite that was a regression takes its children's worst
 * once they accepted theirs; anything else of its own stays. */
static void test_judge__an_accepted_parent_takes_its_childrens_worst(void **state)
{
	(void)state;
	assert_int_equal(judge_accepted_parent(RESULT_REGRESSION, RESULT_PASS), RESULT_PASS);
	assert_int_equal(judge_accepted_parent(RESULT_REGRESSION, RESULT_OVER_BUDGET),
			 RESULT_OVER_BUDGET);
	assert_int_equal(judge_accepted_parent(RESULT_ERROR, RESULT_PASS), RESULT_ERROR);
	assert_int_equal(judge_accepted_parent(RESULT_INCONCLUSIVE, RESULT_PASS),
			 RESULT_INCONCLUSIVE);
}

static void test_judge__fail_on_inconclusive(void **state)
{
	(void)state;
	assert_false(judge_result_fails(RESULT_PASS, true));
	assert_false(judge_result_fails(RESULT_IMPROVED, true));
	assert_false(judge_result_fails(RESULT_INCONCLUSIVE, false));
	assert_true(judge_result_fails(RESULT_INCONCLUSIVE, true));
	assert_true(judge_result_fails(RESULT_OVER_BUDGET, false));
	assert_true(judge_result_fails(RESULT_REGRESSION, false));
	assert_false(judge_result_fails(RESULT_METRIC_ERROR, true));
	assert_false(judge_result_fails(RESULT_ERROR, true));
}

static void test_judge__bisect_confidence_splits_alpha(void **state)
{
	(void)state;
	/* 100 candidates: ceil(log2 100) = 7 steps. */
	assert_near(judge_bisect_confidence(0.99, 100), 1.0 - 0.01 / 7, 1e-15);
	assert_near(judge_bisect_confidence(0.99, 128), 1.0 - 0.01 / 7, 1e-15);
	assert_near(judge_bisect_confidence(0.99, 129), 1.0 - 0.01 / 8, 1e-15);
	assert_near(judge_bisect_confidence(0.99, 2), 0.99, 0.0);
	assert_near(judge_bisect_confidence(0.95, 1), 0.95, 0.0);
	/* Not a confidence: returned for judge_plan_init to refuse, no abort. */
	assert_near(judge_bisect_confidence(0.0, 100), 0.0, 0.0);
	assert_near(judge_bisect_confidence(1.5, 100), 1.5, 0.0);
}

static void test_judge__geometric_mean(void **state)
{
	const double r[] = { 2.0, 0.5, 1.0 };
	const double up[] = { 1.1, 1.21 };
	const double bad[] = { 1.0, 0.0 };
	struct err err = ERR_INIT;
	double g;

	(void)state;
	assert_int_equal(judge_geometric_mean(r, 3, &g, &err), 0);
	assert_near(g, 1.0, 1e-15);
	assert_int_equal(judge_geometric_mean(up, 2, &g, &err), 0);
	assert_near(g, 1.1 * sqrt(1.1), 1e-15);
	assert_int_equal(judge_geometric_mean(bad, 2, &g, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a geometric mean needs positive ratios, got 0");
	assert_int_equal(judge_geometric_mean(r, 0, &g, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a geometric mean needs at least one ratio");
}

/* Expected values from Python: e, lo = 0, log(0.98); h = (e - lo) * sqrt(50 / 200);
 * expm1(log1p(0.05) + h) * 100. */
static void test_judge__detectable_change_from_an_a_a_interval(void **state)
{
	struct comparison c;
	double pct;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.has_estimate = true;
	c.ci_low_percent = -2;
	c.ci_high_percent = 2;
	c.pairs = 50;
	c.band_high_percent = 5;
	assert_true(judge_detectable_change(&c, 200, &pct));
	assert_true(fabs(pct - 6.066017177982131) < 1e-9);
	/* at the pairs it was measured with: a slowdown whose interval's low end
	 * lands on the tolerance, 1.05 / 0.98 - 1 */
	assert_true(judge_detectable_change(&c, 50, &pct));
	assert_true(fabs(pct - (1.05 / 0.98 - 1) * 100) < 1e-9);
	c.has_estimate = false;
	assert_false(judge_detectable_change(&c, 200, &pct));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge__critical_k_at_nine_looks),
		cmocka_unit_test(test_judge__critical_k_single_99),
		cmocka_unit_test(test_judge__critical_k_above_exact_range),
		cmocka_unit_test(test_judge__null_distribution_by_hand),
		cmocka_unit_test(test_judge__hodges_lehmann_by_hand),
		cmocka_unit_test(test_judge__sign_test_above_1000_pairs),
		cmocka_unit_test(test_judge__default_plan_has_nine_looks),
		cmocka_unit_test(test_judge__plan_follows_min_samples_and_max_runs),
		cmocka_unit_test(test_judge__fixed_runs_is_one_look),
		cmocka_unit_test(test_judge__settings_without_interval_are_refused),
		cmocka_unit_test(test_judge__settings_below_min_samples_are_refused),
		cmocka_unit_test(test_judge__regression_beyond_band),
		cmocka_unit_test(test_judge__improved_and_pass),
		cmocka_unit_test(test_judge__straddling_interval_is_inconclusive),
		cmocka_unit_test(test_judge__first_decisive_look_is_final),
		cmocka_unit_test(test_judge__look_beyond_the_pairs_is_not_made),
		cmocka_unit_test(test_judge__time_budget_keeps_last_look),
		cmocka_unit_test(test_judge__an_interval_within_a_hair_of_the_tolerance_passes),
		cmocka_unit_test(test_judge__comparison_time_budget_has_its_own_reason),
		cmocka_unit_test(test_judge__min_difference_widens_band),
		cmocka_unit_test(test_judge__noise_gate_keeps_agreeing_halves),
		cmocka_unit_test(test_judge__noise_gate_hides_disagreeing_halves),
		cmocka_unit_test(test_judge__noise_gate_waits_for_the_next_look),
		cmocka_unit_test(test_judge__noise_gate_keeps_a_pass_whose_halves_agree),
		cmocka_unit_test(test_judge__noise_gate_needs_noise_and_overlap),
		cmocka_unit_test(test_judge__detectable_change_is_the_interval_shifted),
		cmocka_unit_test(test_judge__pairs_to_decide_are_enough),
		cmocka_unit_test(test_judge__pairs_to_decide_hold_in_simulation),
		cmocka_unit_test(test_judge__pairs_to_decide_from_the_fields),
		cmocka_unit_test(test_judge__throughput_sees_what_latency_saw),
		cmocka_unit_test(test_judge__higher_is_better_judged_swapped_and_turned_back),
		cmocka_unit_test(test_judge__zero_base_is_inconclusive),
		cmocka_unit_test(test_judge__floor_both_sides_skipped),
		cmocka_unit_test(test_judge__floor_keeps_regression_from_base_at_floor),
		cmocka_unit_test(test_judge__floor_makes_other_verdicts_inconclusive),
		cmocka_unit_test(test_judge__jitter_is_seeded),
		cmocka_unit_test(test_judge__throughput_derived_from_latency),
		cmocka_unit_test(test_judge__only_three_metrics_are_compared),
		cmocka_unit_test(test_judge__budget_aggregations_and_bounds),
		cmocka_unit_test(test_judge__budget_at_floor),
		cmocka_unit_test(test_judge__command_result_is_worst_gated_state),
		cmocka_unit_test(test_judge__fail_on_inconclusive),
		cmocka_unit_test(test_judge__worst_result_rolls_up),
		cmocka_unit_test(test_judge__accepting_marks_regressions_and_judges_again),
		cmocka_unit_test(test_judge__an_accepted_parent_takes_its_childrens_worst),
		cmocka_unit_test(test_judge__bisect_confidence_splits_alpha),
		cmocka_unit_test(test_judge__geometric_mean),
		cmocka_unit_test(test_judge__detectable_change_from_an_a_a_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
