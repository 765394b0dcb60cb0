/*
 * cost ≈ a + b · size^k, fitted to the per-size medians: a closed form for
 * a and b at each k, a scan and a golden-section search for k, and the
 * profile of the weighted residual for its interval. See growth.h.
 */
#include "stats/growth.h"

#include "common/alloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define SCAN_STEP    0.01
#define PROFILE_STEP 0.001
#define NOISE_FLOOR  1e-12 /* (1e-6)^2: counts have no noise between runs */

/* The per-size points: sizes relative to the largest (so that size^k stays
 * within [0, 1] for any k), medians and weights. */
struct points {
	size_t m;
	double *rel, *y, *w, *logy;
	double largest;
};

struct line {
	double a, b, s; /* constant, coefficient of rel^k, weighted residual */
};

/* a and b at exponent k (a >= 0, and then b by itself), and the residual. */
static void fit_at(const struct points *p, double k, struct line *l)
{
	double W = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, den;
	size_t i;

	for (i = 0; i < p->m; i++) {
		double x = pow(p->rel[i], k), w = p->w[i];
		W += w;
		sx += w * x;
		sy += w * p->y[i];
		sxx += w * x * x;
		sxy += w * x * p->y[i];
	}
	den = W * sxx - sx * sx;
	l->b = den > 0 ? (W * sxy - sx * sy) / den : 0;
	l->a = (sy - l->b * sx) / W;
	if (l->a < 0) {
		l->a = 0;
		l->b = sxx > 0 ? sxy / sxx : 0;
	}
	l->s = 0;
	for (i = 0; i < p->m; i++) {
		double r = p->y[i] - l->a - l->b * pow(p->rel[i], k);
		l->s += p->w[i] * r * r;
	}
}

static double residual(const struct points *p, double k)
{
	struct line l;

	fit_at(p, k, &l);
	return l.s;
}

/* The k of the least residual: the best of a scan, refined by golden
 * section within one scan step of it. */
static double best_exponent(const struct points *p)
{
	const double g = (sqrt(5.0) - 1.0) / 2.0;
	double best = SCAN_STEP, least = INFINITY, lo, hi, c, d;
	int i;

	for (i = 1; i * SCAN_STEP <= STATS_GROWTH_MAX_EXPONENT + 1e-9; i++) {
		double s = residual(p, i * SCAN_STEP);
		if (s < least) {
			least = s;
			best = i * SCAN_STEP;
		}
	}
	lo = fmax(best - SCAN_STEP, PROFILE_STEP);
	hi = fmin(best + SCAN_STEP, STATS_GROWTH_MAX_EXPONENT);
	for (i = 0; i < 60; i++) {
		c = hi - g * (hi - lo);
		d = lo + g * (hi - lo);
		if (residual(p, c) < residual(p, d))
			hi = d;
		else
			lo = c;
	}
	return (lo + hi) / 2;
}

/* Walks from k in `dir` until the residual exceeds `limit` (then bisects the
 * crossing) or the scan's end. */
static double profile_end(const struct points *p, double k, double dir, double limit)
{
	double inside = k, out;
	int i;

	for (;;) {
		out = inside + dir * PROFILE_STEP;
		if (out <= PROFILE_STEP || out >= STATS_GROWTH_MAX_EXPONENT)
			return fmin(fmax(out, 0.0), STATS_GROWTH_MAX_EXPONENT);
		if (residual(p, out) > limit)
			break;
		inside = out;
	}
	for (i = 0; i < 30; i++) {
		double mid = (inside + out) / 2;
		if (residual(p, mid) > limit)
			out = mid;
		else
			inside = mid;
	}
	return (inside + out) / 2;
}

static void points_init(struct points *p, const struct stats_size_runs *cases, size_t k,
			size_t most)
{
	double *tmp = xcalloc(most, sizeof(*tmp)), logm, var;
	size_t i;

	p->m = k;
	p->rel = xcalloc(k, sizeof(*p->rel));
	p->y = xcalloc(k, sizeof(*p->y));
	p->w = xcalloc(k, sizeof(*p->w));
	p->logy = xcalloc(k, sizeof(*p->logy));
	p->largest = 0;
	for (i = 0; i < k; i++)
		p->largest = fmax(p->largest, cases[i].size);
	for (i = 0; i < k; i++) {
		stats_log_median(cases[i].values, cases[i].n, tmp, &logm, &var);
		p->rel[i] = cases[i].size / p->largest;
		p->logy[i] = logm;
		p->y[i] = exp(logm);
		/* relative errors: var is that of ln y */
		p->w[i] = 1.0 / (fmax(var, NOISE_FLOOR) * p->y[i] * p->y[i]);
	}
	free(tmp);
}

static void points_release(struct points *p)
{
	free(p->rel);
	free(p->y);
	free(p->w);
	free(p->logy);
}

/* R² of the log medians about the fitted curve. */
static double r_squared(const struct points *p, const struct line *l, double k)
{
	double mean = 0, tot = 0, res = 0;
	size_t i;

	for (i = 0; i < p->m; i++)
		mean += p->logy[i] / (double)p->m;
	for (i = 0; i < p->m; i++) {
		double f = log(l->a + l->b * pow(p->rel[i], k));
		tot += (p->logy[i] - mean) * (p->logy[i] - mean);
		res += (p->logy[i] - f) * (p->logy[i] - f);
	}
	return tot > 0 ? 1.0 - res / tot : 1.0;
}

static void from_power(const struct stats_power_fit *pf, struct stats_growth_fit *out)
{
	out->sizes = pf->sizes;
	out->runs = pf->runs;
	out->has_constant = false;
	out->constant = 0;
	out->coefficient = pf->coefficient;
	out->exponent = pf->exponent;
	out->r_squared = pf->r_squared;
	out->has_interval = pf->has_interval;
	out->exponent_low = pf->exponent_low;
	out->exponent_high = pf->exponent_high;
}

int stats_growth_fit(const struct stats_size_runs *cases, size_t k, double confidence,
		     struct stats_growth_fit *out, struct err *err)
{
	struct stats_power_fit plain;
	struct points p;
	struct line l;
	size_t i, most = 0, fewest = SIZE_MAX;
	double best;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = stats_power_fit(cases, k, confidence, &plain, err);
	if (rc)
		return rc;
	from_power(&plain, out);
	if (k < 3)
		return 0;
	for (i = 0; i < k; i++) {
		most = cases[i].n > most ? cases[i].n : most;
		fewest = cases[i].n < fewest ? cases[i].n : fewest;
	}
	points_init(&p, cases, k, most);
	best = best_exponent(&p);
	fit_at(&p, best, &l);
	if (l.b > 0) {
		out->has_constant = true;
		out->constant = l.a;
		out->exponent = best;
		out->coefficient = l.b / pow(p.largest, best);
		out->r_squared = r_squared(&p, &l, best);
		if (fewest >= 3) {
			double t = stats_t_quantile(1.0 - (1.0 - confidence) / 2.0,
						    (double)(fewest - 1));
			double scale = k > 3 ? 1.0 + l.s / (double)(k - 3) : 1.0;
			double limit = l.s + t * t * scale;
			out->exponent_low = profile_end(&p, best, -1.0, limit);
			out->exponent_high = profile_end(&p, best, 1.0, limit);
		}
	}
	points_release(&p);
	return 0;
}
