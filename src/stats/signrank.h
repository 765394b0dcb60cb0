/*
 * The Wilcoxon signed-rank statistic for paired log ratios (docs/comparison.md, "Estimate and
 * interval"): its exact null distribution, the critical k of a two-sided level, and the
 * Hodges–Lehmann estimate with its interval. Pure: no I/O, no globals.
 *
 * A planner computes k once per look (signrank_look_k) and then calls
 * signrank_interval() with the look's r values at each look.
 *
 * Exact up to SIGNRANK_EXACT_MAX pairs: the null distribution of T+ is
 * counted by a dynamic programme in doubles (probabilities halve at each
 * step, so nothing overflows and 2^-1000 is still a normal double). Above
 * it, k comes from the normal approximation and the interval is the sign
 * test's, which needs only a sort.
 */
#ifndef HIMORIME_STATS_SIGNRANK_H
#define HIMORIME_STATS_SIGNRANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIGNRANK_EXACT_MAX 1000

/* P(T+ <= t) under the null hypothesis for n pairs, 1 <= n <= 1000. */
double signrank_cdf(unsigned n, uint64_t t);

/* The largest k with P(T+ <= k - 1) <= a/2, 0 when there is none (too few
 * pairs for level a). Exact for n <= 1000; above, the normal approximation
 * k = floor(n(n+1)/4 - z * sqrt(n(n+1)(2n+1)/24) + 1/2), z = Phi^-1(1 - a/2). */
uint64_t signrank_critical_k(unsigned n, double a);

/* The sign test's: the largest k with P(B <= k - 1) <= a/2, B ~ Bin(n, 1/2). */
uint64_t signrank_sign_critical_k(unsigned n, double a);

/* The k an interval of n pairs uses: signed-rank up to 1000, sign test above. */
uint64_t signrank_look_k(unsigned n, double a);

struct signrank_interval {
	size_t n;
	uint64_t k;
	bool sign_test;	   /* n > 1000: sign-test interval, estimate = median of r */
	double estimate;   /* median of the Walsh averages (Hodges–Lehmann) */
	bool has_interval; /* false when k == 0 */
	double low, high;  /* k-th smallest and k-th largest Walsh average */
};

/* Estimate and interval of r[0..n) (finite values, n >= 1) for a k from
 * signrank_look_k(n, a). r is not changed. */
void signrank_interval(const double *r, size_t n, uint64_t k, struct signrank_interval *out);

#endif
