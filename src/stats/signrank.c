/*
 * Signed-rank null distribution, critical values and the Hodges–Lehmann
 * interval: see signrank.h.
 */
#include "stats/signrank.h"

#include "common/alloc.h"
#include "stats/stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/*
 * Fills p[0..tmax] with P(T+ = t) for n pairs. Counting subsets of {1..n}
 * by sum, halving at each step: p[t] = p[t]/2 + p[t-i]/2. Values above tmax
 * are never needed because p[t] only reads smaller indices, so the
 * programme can be cut at tmax and stays exact below it.
 */
static double *null_pmf(unsigned n, uint64_t tmax)
{
	double *p = xcalloc((size_t)tmax + 1, sizeof(*p));
	unsigned i;

	p[0] = 1.0;
	for (i = 1; i <= n; i++) {
		uint64_t top = (uint64_t)i * (i + 1) / 2;
		uint64_t t;

		if (top > tmax)
			top = tmax;
		for (t = top; t >= i; t--)
			p[t] = 0.5 * p[t] + 0.5 * p[t - i];
		for (t = 0; t < i && t <= top; t++)
			p[t] *= 0.5;
	}
	return p;
}

double signrank_cdf(unsigned n, uint64_t t)
{
	uint64_t max = (uint64_t)n * (n + 1) / 2, i;
	double *p, sum = 0.0;

	assert(n >= 1 && n <= SIGNRANK_EXACT_MAX);
	if (t >= max)
		return 1.0;
	p = null_pmf(n, t);
	for (i = 0; i <= t; i++)
		sum += p[i];
	free(p);
	return sum;
}

/* Cumulative sums compared with a hair of slack, so that a probability that
 * equals a/2 in exact arithmetic is not lost to the last bit of rounding. */
static bool at_most(double cum, double half_a)
{
	return cum <= half_a * (1.0 + 1e-12);
}

uint64_t signrank_critical_k(unsigned n, double a)
{
	uint64_t tmax, t, k = 0;
	double *p, cum = 0.0;

	assert(n >= 1 && a > 0.0 && a < 1.0);
	if (n > SIGNRANK_EXACT_MAX) {
		double nn = (double)n;
		double z = stats_normal_quantile(1.0 - a / 2.0);
		double v = floor(nn * (nn + 1.0) / 4.0 -
				 z * sqrt(nn * (nn + 1.0) * (2.0 * nn + 1.0) / 24.0) + 0.5);
		return v > 0.0 ? (uint64_t)v : 0;
	}
	/* k - 1 lies below the mean n(n+1)/4 because a/2 < 1/2. */
	tmax = (uint64_t)n * (n + 1) / 4;
	p = null_pmf(n, tmax);
	for (t = 0; t <= tmax; t++) {
		cum += p[t];
		if (!at_most(cum, a / 2.0))
			break;
		k = t + 1;
	}
	free(p);
	return k;
}

uint64_t signrank_sign_critical_k(unsigned n, double a)
{
	double log_pmf = -(double)n * log(2.0), cum = 0.0;
	uint64_t k = 0;
	unsigned j;

	assert(n >= 1 && a > 0.0 && a < 1.0);
	for (j = 0; j <= n; j++) {
		cum += exp(log_pmf);
		if (!at_most(cum, a / 2.0))
			break;
		k = (uint64_t)j + 1;
		log_pmf += log((double)(n - j)) - log((double)j + 1.0);
	}
	return k;
}

uint64_t signrank_look_k(unsigned n, double a)
{
	return n <= SIGNRANK_EXACT_MAX ? signrank_critical_k(n, a) : signrank_sign_critical_k(n, a);
}

static void swap_at(double *v, ptrdiff_t i, ptrdiff_t j)
{
	double t = v[i];
	v[i] = v[j];
	v[j] = t;
}

/* Rearranges v[lo..hi] so that v[k] holds the value of that rank, smaller or
 * equal values before it and larger or equal after (quickselect with a
 * median-of-three pivot; expected linear time). */
static void select_nth(double *v, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t k)
{
	while (hi > lo) {
		ptrdiff_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double pivot;

		if (v[mid] < v[lo])
			swap_at(v, mid, lo);
		if (v[hi] < v[lo])
			swap_at(v, hi, lo);
		if (v[hi] < v[mid])
			swap_at(v, hi, mid);
		pivot = v[mid];
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swap_at(v, i, j);
				i++;
				j--;
			}
		}
		/* Now v[lo..j] <= pivot <= v[i..hi], and v(j..i) == pivot. */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/* The value of rank idx in w[0..m), w already partitioned around rank
 * pivot (see select_nth). */
static double rank_value(double *w, size_t m, size_t pivot, size_t idx)
{
	if (idx < pivot)
		select_nth(w, 0, (ptrdiff_t)pivot - 1, (ptrdiff_t)idx);
	else if (idx > pivot)
		select_nth(w, (ptrdiff_t)pivot + 1, (ptrdiff_t)m - 1, (ptrdiff_t)idx);
	return w[idx];
}

static void walsh_interval(const double *r, size_t n, uint64_t k, struct signrank_interval *out)
{
	size_t m = n * (n + 1) / 2, i, j, s = 0, mid = m / 2;
	double *w = xmalloc(m * sizeof(*w));

	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			w[s++] = 0.5 * (r[i] + r[j]);
	select_nth(w, 0, (ptrdiff_t)m - 1, (ptrdiff_t)mid);
	out->estimate = w[mid];
	if (m % 2 == 0) {
		double below = w[0];
		for (i = 1; i < mid; i++)
			if (w[i] > below)
				below = w[i];
		out->estimate = 0.5 * (below + w[mid]);
	}
	if (k >= 1 && k <= m) {
		out->has_interval = true;
		out->low = rank_value(w, m, mid, (size_t)k - 1);
		out->high = rank_value(w, m, mid, m - (size_t)k);
	}
	free(w);
}

static void sign_interval(const double *r, size_t n, uint64_t k, struct signrank_interval *out)
{
	double *sorted = xmalloc(n * sizeof(*sorted));

	memcpy(sorted, r, n * sizeof(*sorted));
	stats_sort(sorted, n);
	out->sign_test = true;
	out->estimate = stats_percentile(sorted, n, 50.0);
	if (k >= 1 && k <= n) {
		out->has_interval = true;
		out->low = sorted[k - 1];
		out->high = sorted[n - k];
	}
	free(sorted);
}

void signrank_interval(const double *r, size_t n, uint64_t k, struct signrank_interval *out)
{
	assert(n >= 1);
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->k = k;
	if (n <= SIGNRANK_EXACT_MAX)
		walsh_interval(r, n, k, out);
	else
		sign_interval(r, n, k, out);
}
