/*
 * Descriptive statistics of raw samples. Pure: no I/O, no globals. Every
 * figure a report shows is computed here from the raw per-run values.
 *
 * Percentiles are type 7 (linear interpolation between closest ranks, as
 * NumPy's default and R's type 7). The sample standard deviation uses n - 1.
 * CV = stddev / mean; robust CV = IQR / 1.349 / median.
 *
 * Besides the per-metric summary this module has the two fits reports show:
 * a Theil–Sen trend over the run index (drift: does latency or peak RSS keep
 * growing from run to run?) and a log–log least-squares exponent (how a
 * metric grows with the input size).
 */
#ifndef HIMORIME_STATS_STATS_H
#define HIMORIME_STATS_STATS_H

#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>

struct percentile {
	double p; /* 0 < p < 100, e.g. 95 or 99.9 */
	double value;
};

struct stats_summary {
	size_t count;
	double min, max, mean, median;
	double stddev;	  /* sample (n - 1); 0 when count < 2 */
	double cv;	  /* stddev / mean; 0 when mean is 0 */
	double robust_cv; /* IQR / 1.349 / median; 0 when median is 0 */
	/* p90, p95, p99 always, then any extra percentiles asked for, in
	 * ascending order without duplicates. Heap array owned by the summary. */
	struct percentile *percentiles;
	size_t n_percentiles;
};

/*
 * Summarises x[0..n) (any order, finite values). extra_p lists percentiles in
 * (0, 100] that a budget or report needs besides p90/p95/p99. n == 0 gives
 * count 0 and zero figures, which a caller must not show as measurements.
 * Release with stats_summary_release().
 */
void stats_summarize(const double *x, size_t n, const double *extra_p, size_t n_extra,
		     struct stats_summary *out);
void stats_summary_release(struct stats_summary *s);
/* The stored value of percentile p, or NULL when the summary lacks it. */
const struct percentile *stats_summary_percentile(const struct stats_summary *s, double p);

/* Type-7 percentile of sorted[0..n), n > 0, 0 <= p <= 100. */
double stats_percentile(const double *sorted, size_t n, double p);
/* Median of x[0..n), n > 0, without changing x. */
double stats_median(const double *x, size_t n);
/* Sorts x[0..n) ascending (finite values). */
void stats_sort(double *x, size_t n);
/* The standard normal quantile: z with P(Z <= z) = p, 0 < p < 1. */
double stats_normal_quantile(double p);

/*
 * Drift: the Theil–Sen slope of y over the run index 0..n-1 (the median of
 * all pairwise slopes), robust to the heavy right tail of timings.
 *
 * The rule, kept simple and honest: the slope's interval at `confidence` is
 * Sen's, from Kendall's S statistic: C = z * sqrt(Var S) with
 * Var S = n(n-1)(2n+5)/18, the interval being the slopes of rank
 * floor((N - C)/2) and ceil((N + C)/2) + 1 among the N sorted pairwise
 * slopes. Runs on a real machine are autocorrelated (slow drift), which
 * makes that interval too narrow, so Var S is widened by (1 + rho)/(1 - rho),
 * rho being the lag-1 autocorrelation of the detrended series (clamped to
 * [0, 0.95]; negative rho never narrows it). `growing` is set when the whole
 * interval lies above 0. min_detectable_slope is the interval's half-width:
 * a steady growth smaller than that per run cannot be told from noise by
 * this many runs. Series longer than 1000 runs are first reduced to the
 * medians of at most 1000 consecutive equal blocks (placed at the block's
 * centre index), which keeps the cost bounded and a trend intact.
 */
struct stats_trend {
	size_t count;	  /* runs */
	double slope;	  /* per run, in y's unit */
	double intercept; /* fitted y at run 0 */
	bool has_interval;
	double slope_low, slope_high; /* Sen's interval, widened for autocorrelation */
	double autocorrelation;	      /* lag-1 of the detrended series, as used */
	double min_detectable_slope;  /* half-width of the interval, per run */
	bool growing;		      /* slope_low > 0 */
};

/*
 * The k-th smallest (0-based, k < m(m-1)/2) of the pairwise slopes
 * (y[j] - y[i]) / (x[j] - x[i]), i < j, of m >= 2 points with x strictly
 * increasing and y finite: the value a full sort of all slopes puts at k,
 * found in O(m) memory (a few passes of O(m^2) time).
 */
double stats_pairwise_slope_rank(const double *x, const double *y, size_t m, size_t k);

/* Needs n >= 3 and 0 < confidence < 1; otherwise ERR_INVALID. */
int stats_theil_sen(const double *y, size_t n, double confidence, struct stats_trend *out,
		    struct err *err);

/*
 * Growth with input size: cost ~ coefficient * size^exponent, fitted to the
 * runs measured at each size (docs/comparison.md, "Growth with input size").
 *
 * Each size contributes the median of the logarithms of its runs (robust to
 * the heavy right tail of timings), and the exponent is the least-squares
 * slope of those medians over ln(size). Its interval accounts for two things
 * and takes the larger: the noise of each median, estimated from its runs
 * (the variance of a median, pi/2 * s^2 / n, s being 1.4826 * MAD of the
 * logarithms), and how far the medians stray from a straight line (the
 * residuals of the fit, when there are more than 2 sizes). The quantile is
 * Student's t with 2(n - 1) degrees of freedom, n the fewest runs at any size,
 * since s is itself estimated from few runs. With seeded lognormal noise,
 * with and without outliers and with noise that differs between sizes, the
 * 95% interval covers the true exponent in 95.5-98.3% of trials
 * (tests/unit/test_stats.c, test_stats__power_fit_interval_covers).
 */
struct stats_size_runs {
	double size;	      /* > 0 */
	const double *values; /* the runs at this size, each > 0 */
	size_t n;
};

struct stats_power_fit {
	size_t sizes; /* distinct sizes used */
	size_t runs;  /* all runs used */
	double exponent;
	double coefficient;
	double r_squared;  /* of the per-size medians in log-log; 1 for a perfect power law */
	bool has_interval; /* needs at least 3 runs at every size */
	double exponent_low, exponent_high;
};

/* Student's t quantile at probability p (> 0.5) with df degrees of freedom
 * (Cornish–Fisher from the normal one: within 0.5% for df >= 3). */
double stats_t_quantile(double p, double df);

/* The median of ln(values[0..n)), n > 0, and the variance of that median
 * (pi/2 * s^2 / n, s = 1.4826 * MAD of the logarithms); tmp holds n doubles. */
void stats_log_median(const double *values, size_t n, double *tmp, double *median,
		      double *variance);

/* Needs at least 2 distinct sizes with at least one run each, positive sizes
 * and values, and 0 < confidence < 1; otherwise ERR_INVALID. */
int stats_power_fit(const struct stats_size_runs *cases, size_t k, double confidence,
		    struct stats_power_fit *out, struct err *err);

#endif
