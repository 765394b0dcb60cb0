/*
 * Descriptive statistics, drift and size fits: see stats.h. Everything here
 * works on copies; callers' arrays are never reordered unless a function
 * says so (stats_sort).
 */
#include "stats/stats.h"

#include "common/alloc.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static const double fixed_percentiles[] = { 90.0, 95.0, 99.0 };

/* Past this many runs a trend is fitted on block medians (see stats.h). */
#define TREND_MAX_POINTS 1000

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats_sort(double *x, size_t n)
{
	if (n > 1)
		qsort(x, n, sizeof(*x), cmp_double);
}

double stats_percentile(const double *sorted, size_t n, double p)
{
	double h, frac;
	size_t lo;

	assert(n > 0 && p >= 0.0 && p <= 100.0);
	h = (double)(n - 1) * (p / 100.0);
	lo = (size_t)floor(h);
	if (lo >= n - 1)
		return sorted[n - 1];
	frac = h - (double)lo;
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double stats_median(const double *x, size_t n)
{
	double *copy, m;

	assert(n > 0);
	copy = xmalloc(n * sizeof(*copy));
	memcpy(copy, x, n * sizeof(*copy));
	stats_sort(copy, n);
	m = stats_percentile(copy, n, 50.0);
	free(copy);
	return m;
}

/* Phi(x) through erfc, accurate in both tails. */
static double normal_cdf(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

double stats_normal_quantile(double p)
{
	double lo = -40.0, hi = 40.0;
	int i;

	assert(p > 0.0 && p < 1.0);
	/* Bisection: slow by numerical standards, but a few hundred erfc calls
	 * per plan are nothing, and it cannot misbehave in the tails. */
	for (i = 0; i < 200 && hi - lo > 1e-15; i++) {
		double mid = 0.5 * (lo + hi);
		if (normal_cdf(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* Mean and sample variance by the corrected two-pass formula, which stays
 * accurate when the values are large and close together (nanoseconds). */
static void mean_variance(const double *x, size_t n, double *mean, double *variance)
{
	double sum = 0.0, dev = 0.0, dev2 = 0.0, m;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[i];
	m = sum / (double)n;
	for (i = 0; i < n; i++) {
		double d = x[i] - m;
		dev += d;
		dev2 += d * d;
	}
	m += dev / (double)n;
	*mean = m;
	*variance = n > 1 ? (dev2 - dev * dev / (double)n) / (double)(n - 1) : 0.0;
	if (*variance < 0.0)
		*variance = 0.0;
}

static bool has_p(const struct percentile *list, size_t n, double p)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i].p == p)
			return true;
	return false;
}

static void fill_percentiles(const double *sorted, size_t n, const double *extra_p, size_t n_extra,
			     struct stats_summary *out)
{
	double *extra = NULL;
	size_t i, total = ARRAY_SIZE(fixed_percentiles) + n_extra;

	out->percentiles = xcalloc(total, sizeof(*out->percentiles));
	out->n_percentiles = 0;
	for (i = 0; i < ARRAY_SIZE(fixed_percentiles); i++)
		out->percentiles[out->n_percentiles++].p = fixed_percentiles[i];
	if (n_extra) {
		extra = xmalloc(n_extra * sizeof(*extra));
		memcpy(extra, extra_p, n_extra * sizeof(*extra));
		stats_sort(extra, n_extra);
	}
	for (i = 0; i < n_extra; i++) {
		assert(extra[i] > 0.0 && extra[i] <= 100.0);
		if (!has_p(out->percentiles, out->n_percentiles, extra[i]))
			out->percentiles[out->n_percentiles++].p = extra[i];
	}
	free(extra);
	for (i = 0; i < out->n_percentiles; i++)
		out->percentiles[i].value =
			n ? stats_percentile(sorted, n, out->percentiles[i].p) : 0.0;
}

void stats_summarize(const double *x, size_t n, const double *extra_p, size_t n_extra,
		     struct stats_summary *out)
{
	double *sorted = NULL, variance;

	memset(out, 0, sizeof(*out));
	out->count = n;
	if (n) {
		sorted = xmalloc(n * sizeof(*sorted));
		memcpy(sorted, x, n * sizeof(*sorted));
		stats_sort(sorted, n);
		out->min = sorted[0];
		out->max = sorted[n - 1];
		out->median = stats_percentile(sorted, n, 50.0);
		mean_variance(sorted, n, &out->mean, &variance);
		out->stddev = sqrt(variance);
		out->cv = out->mean != 0.0 ? out->stddev / out->mean : 0.0;
		if (out->median != 0.0) {
			double iqr = stats_percentile(sorted, n, 75.0) -
				     stats_percentile(sorted, n, 25.0);
			out->robust_cv = iqr / 1.349 / out->median;
		}
	}
	fill_percentiles(sorted, n, extra_p, n_extra, out);
	free(sorted);
}

void stats_summary_release(struct stats_summary *s)
{
	if (!s)
		return;
	free(s->percentiles);
	s->percentiles = NULL;
	s->n_percentiles = 0;
}

const struct percentile *stats_summary_percentile(const struct stats_summary *s, double p)
{
	size_t i;

	for (i = 0; i < s->n_percentiles; i++)
		if (s->percentiles[i].p == p)
			return &s->percentiles[i];
	return NULL;
}

/* Reduces y[0..n) to at most TREND_MAX_POINTS block medians at their centre
 * index; short series are copied as they are. */
static size_t trend_points(const double *y, size_t n, double **px, double **py)
{
	size_t block = (n + TREND_MAX_POINTS - 1) / TREND_MAX_POINTS;
	size_t m = (n + block - 1) / block, i;
	double *xs = xmalloc(m * sizeof(*xs));
	double *ys = xmalloc(m * sizeof(*ys));

	for (i = 0; i < m; i++) {
		size_t start = i * block;
		size_t len = start + block <= n ? block : n - start;
		xs[i] = (double)start + (double)(len - 1) / 2.0;
		ys[i] = len == 1 ? y[start] : stats_median(y + start, len);
	}
	*px = xs;
	*py = ys;
	return m;
}

/* Lag-1 autocorrelation of the residuals y - slope * x. */
static double residual_autocorrelation(const double *x, const double *y, size_t m, double slope)
{
	double *res = xmalloc(m * sizeof(*res));
	double mean, var, num = 0.0, den = 0.0;
	size_t i;

	for (i = 0; i < m; i++)
		res[i] = y[i] - slope * x[i];
	mean_variance(res, m, &mean, &var);
	for (i = 0; i < m; i++) {
		double d = res[i] - mean;
		den += d * d;
		if (i + 1 < m)
			num += d * (res[i + 1] - mean);
	}
	free(res);
	return den > 0.0 ? num / den : 0.0;
}

/*
 * The k-th smallest pairwise slope (stats.h), found without holding the
 * m(m-1)/2 slopes: each round samples the slopes inside a window (lo, hi] of
 * values known to hold the wanted one, takes two sample values around its
 * expected place as pivots, and counts slopes below, at and between them to
 * shrink the window; once the window holds at most SLOPE_BUFFER(m) slopes they
 * are gathered and sorted. Every slope is computed by the same expression, so
 * the result is bit for bit the element a full sort would give. The pivot
 * itself is excluded from the next window, so each round shrinks it.
 */
#define SLOPE_BUFFER(m) ((m) < 256 ? 1024 : 4 * (m))

struct slope_window {
	const double *x, *y;
	size_t m;
	double lo, hi; /* slopes v with lo < v <= hi */
	size_t below;  /* slopes <= lo */
	double *buf;   /* a sample of the window, or all of it */
	size_t cap, n; /* buf's capacity and fill */
	size_t count;  /* slopes in the window */
	uint64_t rng;  /* xorshift64 state: the sample is the same every call */
};

static double pair_slope(const struct slope_window *w, size_t i, size_t j)
{
	return (w->y[j] - w->y[i]) / (w->x[j] - w->x[i]);
}

static uint64_t xorshift64(uint64_t *state)
{
	uint64_t v = *state;

	v ^= v << 13;
	v ^= v >> 7;
	v ^= v << 17;
	*state = v;
	return v;
}

/* Reservoir sample of the window into buf: all of it when count <= cap. */
static void window_sample(struct slope_window *w)
{
	size_t i, j;

	w->n = 0;
	w->count = 0;
	for (i = 0; i < w->m; i++)
		for (j = i + 1; j < w->m; j++) {
			double v = pair_slope(w, i, j);

			if (!(v > w->lo && v <= w->hi))
				continue;
			w->count++;
			if (w->n < w->cap)
				w->buf[w->n++] = v;
			else {
				uint64_t r = xorshift64(&w->rng) % w->count;

				if (r < w->cap)
					w->buf[r] = v;
			}
		}
}

/* Counts of window slopes < a, <= a and <= b (a <= b). */
static void window_count(const struct slope_window *w, double a, double b, size_t counts[3])
{
	size_t i, j;

	counts[0] = counts[1] = counts[2] = 0;
	for (i = 0; i < w->m; i++)
		for (j = i + 1; j < w->m; j++) {
			double v = pair_slope(w, i, j);

			if (!(v > w->lo && v <= w->hi))
				continue;
			counts[0] += v < a;
			counts[1] += v <= a;
			counts[2] += v <= b;
		}
}

/* One round: narrows the window around rank r (1-based within it); returns
 * true with *found set when a pivot is the answer. */
static bool window_narrow(struct slope_window *w, size_t r, double *found)
{
	size_t at = (size_t)((double)(r - 1) / (double)w->count * (double)w->n);
	size_t spread = (size_t)(2.0 * sqrt((double)w->n)) + 1;
	size_t ia = at > spread ? at - spread : 0;
	size_t ib = at + spread < w->n ? at + spread : w->n - 1;
	double a, b;
	size_t c[3];

	stats_sort(w->buf, w->n);
	a = w->buf[ia];
	b = w->buf[ib];
	window_count(w, a, b, c);
	if (r > c[0] && r <= c[1]) {
		*found = a;
		return true;
	}
	if (r <= c[0]) {
		w->hi = nextafter(a, -INFINITY);
	} else if (r <= c[2]) {
		w->below += c[1];
		w->lo = a;
		w->hi = b;
	} else {
		w->below += c[2];
		w->lo = b;
	}
	return false;
}

double stats_pairwise_slope_rank(const double *x, const double *y, size_t m, size_t k)
{
	struct slope_window w = { .x = x, .y = y, .m = m, .lo = -INFINITY, .hi = INFINITY };
	double v;

	assert(m >= 2 && k < m * (m - 1) / 2);
	w.cap = SLOPE_BUFFER(m);
	w.buf = xmalloc(w.cap * sizeof(*w.buf));
	w.rng = 0x9e3779b97f4a7c15u;
	for (;;) {
		window_sample(&w);
		if (w.count <= w.cap) {
			stats_sort(w.buf, w.n);
			v = w.buf[k - w.below];
			break;
		}
		if (window_narrow(&w, k + 1 - w.below, &v))
			break;
	}
	free(w.buf);
	return v;
}

/* stats_percentile(p) of the m(m-1)/2 sorted pairwise slopes. */
static double slope_percentile(const double *x, const double *y, size_t m, double p)
{
	size_t n = m * (m - 1) / 2;
	double h = (double)(n - 1) * (p / 100.0), frac, a, b;
	size_t lo = (size_t)floor(h);

	if (lo >= n - 1)
		return stats_pairwise_slope_rank(x, y, m, n - 1);
	frac = h - (double)lo;
	a = stats_pairwise_slope_rank(x, y, m, lo);
	b = stats_pairwise_slope_rank(x, y, m, lo + 1);
	return a + frac * (b - a);
}

int stats_theil_sen(const double *y, size_t n, double confidence, struct stats_trend *out,
		    struct err *err)
{
	double *xs = NULL, *ys = NULL, *icepts = NULL;
	double var_s, c, rho, z;
	size_t m, n_slopes, i, lo, hi;

	memset(out, 0, sizeof(*out));
	if (n < 3)
		return err_set(err, ERR_INVALID, "a trend needs at least 3 runs, got %zu", n);
	if (!(confidence > 0.0 && confidence < 1.0))
		return err_set(err, ERR_INVALID, "confidence %g must be between 0 and 1",
			       confidence);
	out->count = n;
	m = trend_points(y, n, &xs, &ys);
	n_slopes = m * (m - 1) / 2;
	out->slope = slope_percentile(xs, ys, m, 50.0);
	icepts = xmalloc(m * sizeof(*icepts));
	for (i = 0; i < m; i++)
		icepts[i] = ys[i] - out->slope * xs[i];
	out->intercept = stats_median(icepts, m);

	rho = residual_autocorrelation(xs, ys, m, out->slope);
	rho = rho < 0.0 ? 0.0 : rho > 0.95 ? 0.95 : rho;
	out->autocorrelation = rho;
	var_s = (double)m * (double)(m - 1) * (double)(2 * m + 5) / 18.0;
	var_s *= (1.0 + rho) / (1.0 - rho);
	z = stats_normal_quantile(1.0 - (1.0 - confidence) / 2.0);
	c = z * sqrt(var_s);
	/* 1-based ranks among the sorted slopes. */
	if ((double)n_slopes - c >= 2.0) {
		lo = (size_t)floor(((double)n_slopes - c) / 2.0);
		hi = (size_t)ceil(((double)n_slopes + c) / 2.0) + 1;
		if (lo >= 1 && hi <= n_slopes) {
			out->has_interval = true;
			out->slope_low = stats_pairwise_slope_rank(xs, ys, m, lo - 1);
			out->slope_high = stats_pairwise_slope_rank(xs, ys, m, hi - 1);
			out->min_detectable_slope = (out->slope_high - out->slope_low) / 2.0;
			out->growing = out->slope_low > 0.0;
		}
	}
	free(icepts);
	free(ys);
	free(xs);
	return 0;
}

/* Student's t quantile at probability p (> 0.5) with df degrees of freedom,
 * from the normal one by the Cornish-Fisher expansion (within 0.5% for
 * df >= 3, exact as df grows). */
double stats_t_quantile(double p, double df)
{
	double z = stats_normal_quantile(p), z2 = z * z;
	double g1 = (z2 + 1.0) * z / 4.0;
	double g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
	double g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;

	return z + g1 / df + g2 / (df * df) + g3 / (df * df * df);
}

/* The median of ln(values) and the variance of that median (pi/2 * s^2 / n,
 * s = 1.4826 * MAD). tmp holds n doubles. */
void stats_log_median(const double *values, size_t n, double *tmp, double *median, double *variance)
{
	double mad;
	size_t i;

	for (i = 0; i < n; i++)
		tmp[i] = log(values[i]);
	stats_sort(tmp, n);
	*median = stats_percentile(tmp, n, 50.0);
	for (i = 0; i < n; i++)
		tmp[i] = fabs(tmp[i] - *median);
	stats_sort(tmp, n);
	mad = 1.4826 * stats_percentile(tmp, n, 50.0);
	*variance = M_PI / 2.0 * mad * mad / (double)n;
}

static int check_power_input(const struct stats_size_runs *cases, size_t k, double confidence,
			     size_t *most, struct err *err)
{
	size_t i, j, distinct = 0;

	if (!(confidence > 0.0 && confidence < 1.0))
		return err_set(err, ERR_INVALID, "confidence %g must be between 0 and 1",
			       confidence);
	*most = 0;
	for (i = 0; i < k; i++) {
		if (!(cases[i].size > 0.0) || !cases[i].n)
			return err_set(err, ERR_INVALID,
				       "an exponent fit needs positive sizes with runs, got size "
				       "%g with %zu runs",
				       cases[i].size, cases[i].n);
		for (j = 0; j < cases[i].n; j++)
			if (!(cases[i].values[j] > 0.0))
				return err_set(err, ERR_INVALID,
					       "an exponent fit needs positive values, got %g at "
					       "size %g",
					       cases[i].values[j], cases[i].size);
		for (j = 0; j < i && cases[j].size != cases[i].size; j++)
			;
		distinct += j == i;
		*most = cases[i].n > *most ? cases[i].n : *most;
	}
	if (distinct < 2 || distinct < k)
		return err_set(err, ERR_INVALID,
			       "an exponent fit needs at least 2 sizes, each once, got %zu "
			       "distinct of %zu",
			       distinct, k);
	return 0;
}

/* Least squares of y on x (k points): slope, intercept, and Sxx, Syy, Sxy. */
struct line {
	double mx, my, sxx, syy, sxy, slope, intercept;
};

static void fit_line(const double *x, const double *y, size_t k, struct line *l)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < k; i++) {
		l->mx += x[i] / (double)k;
		l->my += y[i] / (double)k;
	}
	for (i = 0; i < k; i++) {
		l->sxx += (x[i] - l->mx) * (x[i] - l->mx);
		l->syy += (y[i] - l->my) * (y[i] - l->my);
		l->sxy += (x[i] - l->mx) * (y[i] - l->my);
	}
	l->slope = l->sxy / l->sxx;
	l->intercept = l->my - l->slope * l->mx;
}

/* The exponent's variance: the larger of the medians' noise carried through
 * the fit and the residuals' (more than 2 sizes). */
static double slope_variance(const double *x, const double *y, const double *var, size_t k,
			     const struct line *l)
{
	double noise = 0.0, resid = 0.0;
	size_t i;

	for (i = 0; i < k; i++) {
		double r = y[i] - l->intercept - l->slope * x[i];
		noise += (x[i] - l->mx) * (x[i] - l->mx) * var[i];
		resid += r * r;
	}
	noise /= l->sxx * l->sxx;
	resid = k > 2 ? resid / (double)(k - 2) / l->sxx : 0.0;
	return noise > resid ? noise : resid;
}

int stats_power_fit(const struct stats_size_runs *cases, size_t k, double confidence,
		    struct stats_power_fit *out, struct err *err)
{
	double *x = NULL, *y = NULL, *var = NULL, *tmp = NULL, q;
	size_t i, most = 0, fewest = SIZE_MAX;
	struct line l;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = check_power_input(cases, k, confidence, &most, err);
	if (rc)
		return rc;
	x = xcalloc(k, sizeof(*x));
	y = xcalloc(k, sizeof(*y));
	var = xcalloc(k, sizeof(*var));
	tmp = xcalloc(most, sizeof(*tmp));
	for (i = 0; i < k; i++) {
		x[i] = log(cases[i].size);
		stats_log_median(cases[i].values, cases[i].n, tmp, &y[i], &var[i]);
		out->runs += cases[i].n;
		fewest = cases[i].n < fewest ? cases[i].n : fewest;
	}
	fit_line(x, y, k, &l);
	out->sizes = k;
	out->exponent = l.slope;
	out->coefficient = exp(l.intercept);
	out->r_squared = l.syy > 0.0 ? (l.sxy * l.sxy) / (l.sxx * l.syy) : 1.0;
	if (fewest >= 3) {
		q = stats_t_quantile(1.0 - (1.0 - confidence) / 2.0, 2.0 * (double)(fewest - 1)) *
		    sqrt(slope_variance(x, y, var, k, &l));
		out->has_interval = true;
		out->exponent_low = l.slope - q;
		out->exponent_high = l.slope + q;
	}
	free(tmp);
	free(var);
	free(y);
	free(x);
	return 0;
}
