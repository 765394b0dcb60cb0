/*
 * Change points by binary segmentation with Hodges–Lehmann steps: see
 * changepoint.h.
 */
#include "stats/changepoint.h"

#include "common/alloc.h"
#include "stats/stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* Past this many differences, k comes from the normal approximation. */
#define EXACT_MAX_PAIRS 2500

/*
 * Counts the arrangements of m x's and n y's by U, the number of (y, x)
 * pairs with the y before the x: placing an x after j y's adds j. Rolling
 * over the x's: cnt[j][u] for sequences with i x's and j y's. Returns the
 * counts for i = m, j = n (mn + 1 entries; the caller frees them).
 */
static double *u_counts(size_t m, size_t n)
{
	size_t width = m * n + 1, i, j, u;
	double *old = xcalloc((n + 1) * width, sizeof(*old));
	double *cur = xcalloc((n + 1) * width, sizeof(*cur));
	double *out = xmalloc(width * sizeof(*out));

	for (j = 0; j <= n; j++)
		old[j * width] = 1.0;
	for (i = 1; i <= m; i++) {
		double *t;

		memset(cur, 0, (n + 1) * width * sizeof(*cur));
		for (j = 0; j <= n; j++)
			for (u = 0; u < width; u++) {
				double c = u >= j ? old[j * width + u - j] : 0.0;
				if (j > 0)
					c += cur[(j - 1) * width + u];
				cur[j * width + u] = c;
			}
		t = old;
		old = cur;
		cur = t;
	}
	memcpy(out, old + n * width, width * sizeof(*out));
	free(cur);
	free(old);
	return out;
}

uint64_t stats_mann_whitney_k(size_t m, size_t n, double a)
{
	double mn = (double)m * (double)n, total = 0.0, cum = 0.0, *cnt;
	uint64_t k = 0;
	size_t u;

	assert(m >= 1 && n >= 1 && a > 0.0 && a < 1.0);
	if (m * n > EXACT_MAX_PAIRS) {
		double z = stats_normal_quantile(1.0 - a / 2.0);
		double v = floor(mn / 2.0 - z * sqrt(mn * ((double)(m + n) + 1.0) / 12.0) + 0.5);
		return v > 0.0 ? (uint64_t)v : 0;
	}
	cnt = u_counts(m, n);
	for (u = 0; u <= m * n; u++)
		total += cnt[u];
	for (u = 0; u <= m * n; u++) {
		cum += cnt[u];
		if (cum / total > (a / 2.0) * (1.0 + 1e-12))
			break;
		k = (uint64_t)u + 1;
	}
	free(cnt);
	return k;
}

struct search {
	const double *y;
	const struct change_point_settings *s;
	double up, dn; /* the band in log units */
	struct change_point *points;
	size_t n_points, alloc;
};

struct ranked {
	double value;
	size_t index;
};

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->value, y = ((const struct ranked *)b)->value;

	return (x > y) - (x < y);
}

/* Prefix sums of the ranks (1..N, ties in order) of y[start..end). */
static double *rank_prefix(const double *y, size_t start, size_t end)
{
	size_t n = end - start, i;
	struct ranked *r = xmalloc(n * sizeof(*r));
	double *rank = xmalloc(n * sizeof(*rank));
	double *prefix = xmalloc((n + 1) * sizeof(*prefix));

	for (i = 0; i < n; i++) {
		r[i].value = y[start + i];
		r[i].index = i;
	}
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (i = 0; i < n; i++)
		rank[r[i].index] = (double)(i + 1);
	prefix[0] = 0.0;
	for (i = 0; i < n; i++)
		prefix[i + 1] = prefix[i] + rank[i];
	free(rank);
	free(r);
	return prefix;
}

/* Whether the pieces left of t1 and right of t2 are each empty or long
 * enough, and the inner piece differs from something. */
static bool valid_pieces(size_t left, size_t inner, size_t right, size_t min)
{
	return inner >= min && (left == 0 || left >= min) && (right == 0 || right >= min) &&
	       left + right > 0;
}

/*
 * The candidate with the largest rank-sum z of an inner piece [t1, t2)
 * against the rest of [start, end) (circular binary segmentation: a single
 * step is t1 == start or t2 == end; a change that later reverts is one inner
 * piece). Pieces whose z ties (a step wholly separates both sides, and two
 * steps do so equally) are told apart by how far the piece's mean lies from
 * the rest's, so the largest step is split off first. Returns the number of
 * candidates looked at.
 */
static size_t best_piece(const double *y, size_t start, size_t end, size_t min, size_t *bt1,
			 size_t *bt2)
{
	size_t n = end - start, t1, t2, candidates = 0;
	double *prefix = rank_prefix(y, start, end), best = -1.0, best_gap = 0.0;
	double *sum = xmalloc((n + 1) * sizeof(*sum));

	sum[0] = 0.0;
	for (t1 = 0; t1 < n; t1++)
		sum[t1 + 1] = sum[t1] + y[start + t1];

	for (t1 = 0; t1 < n; t1++)
		for (t2 = t1 + min; t2 <= n; t2++) {
			double m = (double)(t2 - t1), o = (double)(n - (t2 - t1));
			double w, z, gap;

			if (!valid_pieces(t1, t2 - t1, n - t2, min))
				continue;
			candidates++;
			w = prefix[t2] - prefix[t1];
			z = fabs(w - m * ((double)n + 1.0) / 2.0) /
			    sqrt(m * o * ((double)n + 1.0) / 12.0);
			gap = fabs((sum[t2] - sum[t1]) / m - (sum[n] - sum[t2] + sum[t1]) / o);
			if (z > best * (1.0 + 1e-12) ||
			    (z >= best * (1.0 - 1e-12) && gap > best_gap)) {
				best = z;
				best_gap = gap;
				*bt1 = start + t1;
				*bt2 = start + t2;
			}
		}
	free(sum);
	free(prefix);
	return candidates;
}

/* The interval of the two-sample Hodges–Lehmann shift of y[t..hi) over
 * y[lo..t) at level a; false when it has no finite interval (k = 0). */
static bool shift_interval(const double *y, size_t lo, size_t t, size_t hi, double a, double *low,
			   double *high)
{
	size_t m = t - lo, n = hi - t, i, j, s = 0;
	uint64_t k = stats_mann_whitney_k(m, n, a);
	double *d;

	if (k == 0)
		return false;
	d = xmalloc(m * n * sizeof(*d));
	for (i = lo; i < t; i++)
		for (j = t; j < hi; j++)
			d[s++] = y[j] - y[i];
	stats_sort(d, s);
	*low = d[k - 1];
	*high = d[s - k];
	free(d);
	return true;
}

/*
 * Ranks find where a step is but not always at which commit: when the two
 * sides are wholly separated, moving the boundary by one commit that sits at
 * the edge of its group can keep them separated, and the rank-sum z then
 * prefers the more balanced split, which puts that commit on the wrong side
 * (and the step's interval then fails). Within min_segment of the rank
 * choice, the boundary between [lo, t) and [t, hi) moves to where the two
 * sides overlap least, as the share of (left, right) pairs in order
 * (|U / mn - 1/2|, which unlike z does not favour balance); among equally
 * separated boundaries, to where the means lie farthest apart: the values,
 * not only their order, say which side an edge commit belongs to.
 */
static size_t refine(const double *y, size_t lo, size_t t, size_t hi, size_t min)
{
	size_t from = t > lo + min + min ? t - min : lo + min;
	size_t to = t + min + min < hi ? t + min : hi - min;
	double best = -1.0, best_gap = 0.0;
	size_t c, i, j, best_t = t;

	for (c = from; c <= to; c++) {
		double u = 0.0, left = 0.0, right = 0.0, m = (double)(c - lo), n = (double)(hi - c);
		double sep, gap;
		for (i = lo; i < c; i++) {
			left += y[i];
			for (j = c; j < hi; j++)
				u += y[j] > y[i] ? 1.0 : y[j] == y[i] ? 0.5 : 0.0;
		}
		for (j = c; j < hi; j++)
			right += y[j];
		sep = fabs(u / (m * n) - 0.5);
		gap = fabs(right / n - left / m);
		if (sep > best * (1.0 + 1e-12) || (sep >= best * (1.0 - 1e-12) && gap > best_gap)) {
			best = sep;
			best_gap = gap;
			best_t = c;
		}
	}
	return best_t;
}

/* Two-sample Hodges–Lehmann of y[t..end) - y[start..t) at level a, as a
 * change point at t when its interval lies beyond the band. */
static bool step(const struct search *sr, size_t start, size_t t, size_t end, double a,
		 struct change_point *out)
{
	size_t m = t - start, n = end - t, i, j, s = 0;
	double *d, low, high;

	if (!shift_interval(sr->y, start, t, end, a, &low, &high))
		return false;
	d = xmalloc(m * n * sizeof(*d));
	for (i = start; i < t; i++)
		for (j = t; j < end; j++)
			d[s++] = sr->y[j] - sr->y[i];
	stats_sort(d, s);
	out->index = t;
	out->change = expm1(stats_percentile(d, s, 50.0));
	out->low = expm1(low);
	out->high = expm1(high);
	free(d);
	return low > sr->up || high < sr->dn;
}

static void add_point(struct search *sr, const struct change_point *p)
{
	sr->points = xgrow(sr->points, &sr->alloc, sr->n_points + 1, sizeof(*sr->points));
	sr->points[sr->n_points++] = *p;
}

/* Single steps tried when the best piece's boundaries fail. */
#define MAX_SINGLE_TRIES 16

struct scored {
	double z;
	size_t t;
};

static int by_z_desc(const void *a, const void *b)
{
	const struct scored *x = a, *y = b;

	if (x->z != y->z)
		return x->z < y->z ? 1 : -1;
	return (x->t > y->t) - (x->t < y->t);
}

/*
 * The piece with the largest z can mix two steps (the lows and a few of the
 * middles of a history with two steps are more balanced against the rest
 * than either step alone), and then neither of its boundaries holds. The
 * single steps [start, t) | [t, end) are among the candidates the level a
 * already pays for, so trying the best of them at that level keeps the
 * bound: in order of z, the first whose interval lies beyond the band.
 */
static bool single_step(struct search *sr, size_t start, size_t end, size_t min, double a,
			struct change_point *out)
{
	size_t n = end - start, t, count = 0, i, tried[MAX_SINGLE_TRIES], n_tried = 0;
	double *prefix = rank_prefix(sr->y, start, end);
	struct scored *c = xmalloc((n + 1) * sizeof(*c));
	bool found = false;

	for (t = min; t + min <= n; t++) {
		double m = (double)t, o = (double)(n - t);
		double w = prefix[t];
		c[count].z = fabs(w - m * ((double)n + 1.0) / 2.0) /
			     sqrt(m * o * ((double)n + 1.0) / 12.0);
		c[count++].t = start + t;
	}
	qsort(c, count, sizeof(*c), by_z_desc);
	for (i = 0; i < count && n_tried < MAX_SINGLE_TRIES && !found; i++) {
		size_t at = refine(sr->y, start, c[i].t, end, min), k;
		for (k = 0; k < n_tried && tried[k] != at; k++)
			;
		if (k < n_tried)
			continue;
		tried[n_tried++] = at;
		found = step(sr, start, at, end, a, out);
	}
	free(c);
	free(prefix);
	return found;
}

static void segment(struct search *sr, size_t start, size_t end)
{
	size_t min = sr->s->min_segment, t1 = start, t2 = end, candidates;
	struct change_point p1, p2;
	bool at_t1 = false, at_t2 = false;
	double a;

	if (end - start < 2 * min)
		return;
	candidates = best_piece(sr->y, start, end, min, &t1, &t2);
	if (candidates == 0)
		return;
	a = (1.0 - sr->s->confidence) / (double)candidates;
	if (t1 > start)
		t1 = refine(sr->y, start, t1, t2, min);
	if (t2 < end)
		t2 = refine(sr->y, t1, t2, end, min);
	/* Each boundary is judged between its two neighbouring pieces. */
	if (t1 > start)
		at_t1 = step(sr, start, t1, t2, a, &p1);
	if (t2 < end)
		at_t2 = step(sr, t1, t2, end, a, &p2);
	if (!at_t1 && !at_t2 && single_step(sr, start, end, min, a, &p1)) {
		t1 = p1.index;
		at_t1 = true;
		t2 = end;
	}
	if (at_t1)
		add_point(sr, &p1);
	if (at_t2)
		add_point(sr, &p2);
	if (at_t1 && at_t2) {
		segment(sr, start, t1);
		segment(sr, t1, t2);
		segment(sr, t2, end);
	} else if (at_t1) {
		segment(sr, start, t1);
		segment(sr, t1, end);
	} else if (at_t2) {
		segment(sr, start, t2);
		segment(sr, t2, end);
	}
}

static int cmp_point(const void *a, const void *b)
{
	size_t x = ((const struct change_point *)a)->index;
	size_t y = ((const struct change_point *)b)->index;

	return (x > y) - (x < y);
}

int stats_change_points(const double *y, size_t n, const struct change_point_settings *s,
			struct change_point **points, size_t *n_points, struct err *err)
{
	struct search sr;
	size_t i;

	*points = NULL;
	*n_points = 0;
	if (!(s->confidence > 0.0 && s->confidence < 1.0))
		return err_set(err, ERR_INVALID, "confidence %g must be between 0 and 1",
			       s->confidence);
	if (s->min_segment < 1 || !(s->max_fraction >= 0.0))
		return err_set(err, ERR_INVALID,
			       "change points need min_segment >= 1 and max_percent >= 0");
	for (i = 0; i < n; i++)
		if (!isfinite(y[i]))
			return err_set(err, ERR_INVALID, "commit %zu has no finite log ratio", i);
	memset(&sr, 0, sizeof(sr));
	sr.y = y;
	sr.s = s;
	sr.up = log1p(s->max_fraction);
	sr.dn = s->max_fraction >= 1.0 ? -INFINITY : log1p(-s->max_fraction);
	segment(&sr, 0, n);
	if (sr.n_points > 1)
		qsort(sr.points, sr.n_points, sizeof(*sr.points), cmp_point);
	*points = sr.points;
	*n_points = sr.n_points;
	return 0;
}

/* How many pieces best_piece looks at in a segment of n commits. */
static size_t candidate_count(size_t n, size_t min)
{
	size_t t1, t2, count = 0;

	for (t1 = 0; t1 < n; t1++)
		for (t2 = t1 + min; t2 <= n; t2++)
			count += valid_pieces(t1, t2 - t1, n - t2, min);
	return count;
}

size_t stats_change_point_reach(size_t n, const struct change_point_settings *s)
{
	size_t min = s->min_segment < 1 ? 1 : s->min_segment, candidates, side;
	double a;

	if (n < 2 * min || !(s->confidence > 0.0 && s->confidence < 1.0))
		return 0;
	candidates = candidate_count(n, min);
	if (!candidates)
		return 0;
	a = (1.0 - s->confidence) / (double)candidates;
	/* the balanced split is the easiest: the shortest side that works is
	 * the first from min up */
	for (side = min; 2 * side <= n; side++)
		if (stats_mann_whitney_k(side, n - side, a) >= 1)
			return side;
	return 0;
}
