/*
 * cost ≈ a + b · size^k, fitted to the per-size medians: a closed form for
 * a and b at each k, a scan and a golden-section search for k, the variance
 * of the medians about the curve beyond their own noise (Paule–Mandel), and
 * the profile of the weighted residual for the interval of k. See growth.h.
 */
#include "stats/growth.h"

#include "common/alloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define SCAN_STEP    0.01
#define SCAN_STEPS   600 /* STATS_GROWTH_MAX_EXPONENT / SCAN_STEP */
#define PROFILE_STEP 0.001
#define NOISE_FLOOR  1e-12 /* (1e-6)^2: counts have no noise between runs */
#define SOLVE_ROUNDS 100   /* of the between-size variance; a few are used */

/* The per-size points: sizes relative to the largest (so that size^k stays
 * within [0, 1] for any k; their logarithms, so that size^k is one exp()),
 * medians, the noise of each log-median (v), the variance shared by all
 * sizes beyond it (between) and the weights that come of both. x is
 * scratch for size^k at one k; grid holds size^k at every k of the scan, the
 * same for every weighting, so the scan is arithmetic only. */
struct points {
	size_t m;
	double *lnrel, *y, *v, *w, *logy, *x, *grid;
	double largest, between;
};

struct line {
	double a, b, s; /* constant, coefficient of rel^k, weighted residual */
};

/* The weights at a variance between sizes: relative errors, var of ln y. */
static void set_between(struct points *p, double between)
{
	size_t i;

	p->between = between;
	for (i = 0; i < p->m; i++)
		p->w[i] = 1.0 / ((p->v[i] + between) * p->y[i] * p->y[i]);
}

/* a and b for rel^k = x (a >= 0, and then b by itself), and the residual. */
static void fit_x(const struct points *p, const double *x, struct line *l)
{
	double W = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, den;
	size_t i;

	for (i = 0; i < p->m; i++) {
		double w = p->w[i];
		W += w;
		sx += w * x[i];
		sy += w * p->y[i];
		sxx += w * x[i] * x[i];
		sxy += w * x[i] * p->y[i];
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
		double r = p->y[i] - l->a - l->b * x[i];
		l->s += p->w[i] * r * r;
	}
}

/* The same at exponent k; p->x keeps rel^k. */
static void fit_at(struct points *p, double k, struct line *l)
{
	size_t i;

	for (i = 0; i < p->m; i++)
		p->x[i] = exp(k * p->lnrel[i]);
	fit_x(p, p->x, l);
}

static double residual(struct points *p, double k)
{
	struct line l;

	fit_at(p, k, &l);
	return l.s;
}

/* The k of the least residual: the best of a scan, refined by golden
 * section within one scan step of it. */
static double best_exponent(struct points *p)
{
	const double g = (sqrt(5.0) - 1.0) / 2.0;
	double best = SCAN_STEP, least = INFINITY, lo, hi, c, d;
	struct line l;
	int i;

	for (i = 0; i < SCAN_STEPS; i++) {
		fit_x(p, p->grid + (size_t)i * p->m, &l);
		if (l.s < least) {
			least = l.s;
			best = (i + 1) * SCAN_STEP;
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

/* The best fit at the current weights: its k, its line, and dS/dτ², how
 * the least residual moves with the variance between sizes (a, b and k sit
 * at the minimum, so only the weights move it: the envelope theorem). */
static void best_fit(struct points *p, double *k, struct line *l, double *slope)
{
	size_t i;

	*k = best_exponent(p);
	fit_at(p, *k, l);
	*slope = 0;
	for (i = 0; i < p->m; i++) {
		double r = p->y[i] - l->a - l->b * p->x[i];
		*slope -= r * r * p->w[i] * p->w[i] * p->y[i] * p->y[i];
	}
}

/* The variance between sizes, τ², that brings the least residual down to
 * what m − 3 degrees of freedom expect (Paule–Mandel), 0 if it is there
 * already; leaves the points weighted with it and its fit in k and l.
 * S_min(τ²) falls as τ² grows; its reciprocal is nearly a line in τ² (it is
 * one when every v is the same), so Newton's method on 1/S, kept inside a
 * bracket that it narrows (bisecting where a step leaves it), takes a few
 * rounds. Any fit's Σ r²/y², r0, bounds the root: S_min(r0/df) <= df. */
static void solve_between(struct points *p, double *k, struct line *l, double *slope)
{
	double df = (double)p->m - 3.0, lo = 0.0, hi, t;
	size_t i;
	int round;

	if (p->m <= 3 || !(l->s > df))
		return;
	for (hi = 0.0, i = 0; i < p->m; i++) {
		double r = (p->y[i] - l->a - l->b * p->x[i]) / p->y[i];
		hi += r * r / df;
	}
	t = *slope < 0 ? (l->s / df - 1.0) * l->s / -*slope : hi / 2.0;
	for (round = 0; round < SOLVE_ROUNDS; round++) {
		if (!(t > lo && t < hi))
			t = (lo + hi) / 2.0;
		set_between(p, t);
		best_fit(p, k, l, slope);
		if (fabs(l->s - df) <= 1e-9 * df || hi - lo <= 1e-12 * hi)
			return;
		if (l->s > df)
			lo = t;
		else
			hi = t;
		t = *slope < 0 ? t + (l->s / df - 1.0) * l->s / -*slope : -1.0;
	}
}

/* Walks from k in `dir` until the residual exceeds `limit` (then bisects the
 * crossing) or the scan's end. */
static double profile_end(struct points *p, double k, double dir, double limit)
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
	size_t i, j;

	p->m = k;
	p->lnrel = xcalloc(k, sizeof(*p->lnrel));
	p->y = xcalloc(k, sizeof(*p->y));
	p->v = xcalloc(k, sizeof(*p->v));
	p->w = xcalloc(k, sizeof(*p->w));
	p->logy = xcalloc(k, sizeof(*p->logy));
	p->x = xcalloc(k, sizeof(*p->x));
	p->grid = xcalloc((size_t)SCAN_STEPS * k, sizeof(*p->grid));
	p->largest = 0;
	for (i = 0; i < k; i++)
		p->largest = fmax(p->largest, cases[i].size);
	for (i = 0; i < k; i++) {
		stats_log_median(cases[i].values, cases[i].n, tmp, &logm, &var);
		p->lnrel[i] = log(cases[i].size / p->largest);
		p->logy[i] = logm;
		p->y[i] = exp(logm);
		p->v[i] = fmax(var, NOISE_FLOOR);
		for (j = 0; j < SCAN_STEPS; j++)
			p->grid[j * k + i] = exp((double)(j + 1) * SCAN_STEP * p->lnrel[i]);
	}
	set_between(p, 0.0);
	free(tmp);
}

static void points_release(struct points *p)
{
	free(p->lnrel);
	free(p->y);
	free(p->v);
	free(p->w);
	free(p->logy);
	free(p->x);
	free(p->grid);
}

/* R² of the log medians about the fitted curve. */
static double r_squared(const struct points *p, const struct line *l, double k)
{
	double mean = 0, tot = 0, res = 0;
	size_t i;

	for (i = 0; i < p->m; i++)
		mean += p->logy[i] / (double)p->m;
	for (i = 0; i < p->m; i++) {
		double f = log(l->a + l->b * exp(k * p->lnrel[i]));
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

/* The profile interval of k at the points' weights (growth.h says why). */
static void interval(struct points *p, const struct line *l, double best, size_t fewest,
		     double confidence, struct stats_growth_fit *out)
{
	double t = stats_t_quantile(1.0 - (1.0 - confidence) / 2.0, (double)(fewest - 1));
	double scale = p->m > 3 ? 1.0 + l->s / (double)(p->m - 3) : 1.0;
	double limit = l->s + t * t * scale;

	out->exponent_low = profile_end(p, best, -1.0, limit);
	out->exponent_high = profile_end(p, best, 1.0, limit);
}

int stats_growth_fit(const struct stats_size_runs *cases, size_t k, double confidence,
		     struct stats_growth_fit *out, struct err *err)
{
	struct stats_power_fit plain;
	struct points p;
	struct line l;
	size_t i, most = 0, fewest = SIZE_MAX;
	double best, slope;
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
	best_fit(&p, &best, &l, &slope);
	solve_between(&p, &best, &l, &slope);
	if (l.b > 0) {
		out->has_constant = true;
		out->constant = l.a;
		out->exponent = best;
		out->coefficient = l.b / pow(p.largest, best);
		out->r_squared = r_squared(&p, &l, best);
		if (fewest >= 3)
			interval(&p, &l, best, fewest, confidence, out);
	}
	points_release(&p);
	return 0;
}
