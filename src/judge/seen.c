/*
 * What a comparison could see (docs/comparison.md, "What a comparison could
 * see"): from a judged comparison's own fields, the smallest slowdown and
 * improvement its achieved interval would have called, and for an interval
 * that still straddled the band, the pairs that would have decided at the
 * noise observed. Part of the judge module: see judge.h. One computation
 * serves the report, the pull-request comment and `calibrate`.
 *
 * Why these figures are exact and not a rule of thumb: the Walsh averages
 * of r_j + d are those of r_j shifted by d, so had head been slower by a
 * factor e^d in every pair, with the same noise, the interval would have
 * been [L + d, U + d] around the estimate e + d. A regression is L + d > up,
 * that is a true change beyond up + (e - L): the tolerance plus the
 * interval's lower half-width, on the log scale. Likewise an improvement
 * needs a change below dn - (U - e). An interval's width shrinks as 1/sqrt(n)
 * at a fixed level, which gives the projection to more pairs.
 */
#include "judge/judge.h"

#include <math.h>

#include "common/banned.h"

/* A comparison's interval, estimate and band on the log scale. */
struct logs {
	double est, low, high, dn, up;
	bool has_dn, has_up;
};

static bool to_logs(const struct comparison *c, struct logs *g)
{
	if (!c->has_estimate || c->counts || c->pairs == 0 || !(c->ci_low_percent > -100) ||
	    !(c->ci_high_percent >= c->ci_low_percent))
		return false;
	g->est = log1p(c->change_percent / 100.0);
	g->low = log1p(c->ci_low_percent / 100.0);
	g->high = log1p(c->ci_high_percent / 100.0);
	g->has_up = !c->band_high_infinite && c->band_high_percent > -100;
	g->up = g->has_up ? log1p(c->band_high_percent / 100.0) : INFINITY;
	g->has_dn = !c->band_low_infinite && c->band_low_percent > -100;
	g->dn = g->has_dn ? log1p(c->band_low_percent / 100.0) : -INFINITY;
	return true;
}

/* The smallest changes called with the interval's half-widths scaled by
 * `scale` (1: as achieved). */
static void detectable(const struct logs *g, double scale, struct comparison *c)
{
	c->has_detectable_high = g->has_up;
	c->detectable_high_percent = g->has_up ? expm1(g->up + (g->est - g->low) * scale) * 100 : 0;
	c->has_detectable_low = g->has_dn;
	c->detectable_low_percent = g->has_dn ? expm1(g->dn - (g->high - g->est) * scale) * 100 : 0;
}

/* n * (half / gap)^2: the pairs at which a half-width `half` at n pairs
 * shrinks to `gap`; infinite when there is no gap. */
static double pairs_for(double n, double half, double gap)
{
	return gap > 0 ? n * (half / gap) * (half / gap) : INFINITY;
}

/* The pairs that would decide an interval that straddles the band, if the
 * estimate stayed where it is: beyond the band on its side, or inside it on
 * both sides. */
static double projected_pairs(const struct logs *g, double n)
{
	double below = g->est - g->low, above = g->high - g->est, m;

	if (g->est > g->up)
		return pairs_for(n, below, g->est - g->up);
	if (g->est < g->dn)
		return pairs_for(n, above, g->dn - g->est);
	m = pairs_for(n, above, g->up - g->est);
	if (g->has_dn && pairs_for(n, below, g->est - g->dn) > m)
		m = pairs_for(n, below, g->est - g->dn);
	return m;
}

static bool straddles(const struct logs *g)
{
	return !(g->low > g->up || g->high < g->dn || (g->dn <= g->low && g->high <= g->up));
}

void judge_fill_seen(struct comparison *c)
{
	struct logs g;
	double m;

	c->has_detectable_high = c->has_detectable_low = false;
	c->detectable_high_percent = c->detectable_low_percent = 0;
	c->pairs_to_decide = 0;
	c->pairs_to_decide_beyond = false;
	/* a skipped metric was not compared: it saw nothing */
	if (c->verdict == VERDICT_SKIPPED || !to_logs(c, &g))
		return;
	detectable(&g, 1.0, c);
	if (c->verdict != VERDICT_INCONCLUSIVE || !c->final || !straddles(&g) || c->base_at_floor ||
	    c->head_at_floor)
		return;
	m = ceil(projected_pairs(&g, (double)c->pairs));
	if (m <= (double)c->pairs)
		m = (double)c->pairs + 1;
	if (m > COMPARISON_PAIRS_TO_DECIDE_MAX)
		c->pairs_to_decide_beyond = true;
	else
		c->pairs_to_decide = (unsigned)m;
}

bool judge_detectable_change(const struct comparison *c, unsigned pairs, double *percent)
{
	struct comparison seen = *c;
	struct logs g;

	*percent = 0;
	if (pairs == 0 || !to_logs(c, &g) || !g.has_up)
		return false;
	detectable(&g, sqrt((double)c->pairs / (double)pairs), &seen);
	*percent = seen.detectable_high_percent;
	return isfinite(*percent);
}
