/*
 * Growth with input size, apart from the constant cost (docs/comparison.md,
 * "Growth with input size"): cost ≈ a + b · size^k, where a is what every
 * run pays whatever its size (starting the process, reading its input) and
 * b · size^k the growth. A plain power law (stats_power_fit) folds a into the
 * exponent: an O(n) program that spends 1 ms starting read size^0.73 over
 * sizes where its work is a few milliseconds. Pure: no I/O, no globals.
 *
 * The fit, on the per-size medians y_i with their noise v_i (the variance of
 * the log-median, as stats_power_fit has it):
 *
 *   - each log-median is the curve, plus its own noise (v_i, known from its
 *     runs), plus a share of noise common to all sizes, of variance τ²:
 *     the sizes are measured one after the other, and load that comes and
 *     goes between them shifts a whole size's runs, which no v_i shows (a
 *     random-effects model, as in a meta-analysis of studies);
 *   - for a given k, a and b minimise S = sum w_i (y_i - a - b x_i)^2 with
 *     x_i = size_i^k and w_i = 1 / ((v_i + τ²) y_i^2) (relative errors:
 *     the noise of a timing grows with it), a closed form; a < 0 is not a
 *     cost, so a is then held at 0 and only b fitted (the plain power law);
 *   - k is the minimum of that weighted residual S(k) over 0 < k <= 6 (a
 *     scan, then golden-section refinement);
 *   - τ² is Paule and Mandel's estimate (J. Res. NBS 87, 1982): the τ² at
 *     which the least residual S_min equals m - 3, its expectation with m
 *     sizes and 3 parameters fitted, or 0 when S_min at τ² = 0 is that
 *     small already (then the fit is the one of the v_i alone). Chosen over
 *     DerSimonian and Laird's moment estimate, which needs the trace of the
 *     fit's hat matrix (only approximate for a curve in k with a bound on
 *     a), and over maximum likelihood, which forgets the 3 fitted
 *     parameters and so reads τ² too small with 4-10 sizes; Paule–Mandel
 *     needs only S_min and counts the parameters, like REML. Without τ² a
 *     size measured precisely but shifted by a few percent of load gets a
 *     huge weight and pulls k, and the interval misses (docs/comparison.md
 *     has the figures);
 *   - the interval of k is the profile at those weights: every k whose S(k)
 *     exceeds the minimum by at most t^2 * (1 + S_min / (m - 3)) (m sizes;
 *     the second term, with more than 3 sizes, adds how far the medians
 *     stray from the curve beyond the weights), t Student's at n - 1 degrees
 *     of freedom, n the fewest runs at any size (the noise of each median is
 *     itself estimated from those runs). With τ² > 0, S_min = m - 3, so the
 *     second term is 1, as for a curve that fits: the stray is in the
 *     weights now, and counting it again would widen the interval twice.
 *     The interval widens through the weights (v_i + τ²); with 7 sizes the
 *     factor 2 also covers τ²'s own uncertainty (4 degrees of freedom), with
 *     4 or 5 sizes it does not quite (docs/comparison.md). An interval that
 *     reaches the end of the scan is cut there. Calibrated by
 *     test_stats__growth_fit_interval_covers and
 *     test_stats__growth_fit_with_drift_between_sizes (docs/comparison.md).
 *
 * With 2 sizes a, b and k cannot be told apart: the result is the plain
 * power law (a = 0, has_constant false). Counts (instructions, allocations)
 * have no noise between runs; their v_i is floored at (1e-6)^2, so their fit
 * is exact where the model is (τ² = 0), and its interval comes from how far
 * the medians stray from it (n log n is not a + b n^k: τ² > 0, and as every
 * v_i is the same floor, τ² scales all weights alike and leaves k as it was).
 */
#ifndef HIMORIME_STATS_GROWTH_H
#define HIMORIME_STATS_GROWTH_H

#include "common/err.h"
#include "stats/stats.h"

#include <stdbool.h>
#include <stddef.h>

#define STATS_GROWTH_MAX_EXPONENT 6.0

struct stats_growth_fit {
	size_t sizes, runs;
	bool has_constant;  /* 3 sizes or more: a was fitted (it may be 0) */
	double constant;    /* a, the metric's unit */
	double coefficient; /* b: the cost is a + b * size^exponent */
	double exponent;
	double r_squared;  /* of the log medians about the fitted curve */
	bool has_interval; /* needs at least 3 runs at every size */
	double exponent_low, exponent_high;
};

/* The same inputs and errors as stats_power_fit(). */
int stats_growth_fit(const struct stats_size_runs *cases, size_t k, double confidence,
		     struct stats_growth_fit *out, struct err *err);

#endif
