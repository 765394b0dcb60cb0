/*
 * Change points of a metric along a commit history (docs/sweeps.md, "Change points"): binary
 * segmentation of each commit's log ratio to the reference, a step accepted
 * only when the two-sample Hodges–Lehmann interval of the shift between the
 * two segments lies wholly beyond the tolerance, every segment at least
 * min_segment commits long. Pure: no I/O, no globals.
 *
 * Each segment is searched for the piece [t1, t2) whose ranks differ most
 * from the rest of the segment (rank-sum z; a single step is a piece that
 * touches an end, a change that is later reverted is one inner piece, which
 * plain binary segmentation would miss). Each boundary of that piece is then
 * judged between its two neighbouring pieces: the two-sample Hodges–Lehmann
 * shift (median of all differences right - left) with the interval of the
 * k-th smallest and k-th largest difference, k from the exact Mann–Whitney
 * null distribution (normal approximation past 2500 differences). The
 * search picks the best of many candidates, so the level of each interval
 * is a = alpha / (number of candidates in the segment): a segment without a
 * real step gets one with probability at most alpha. Accepted boundaries
 * split the segment and the pieces are searched again.
 */
#ifndef HIMORIME_STATS_CHANGEPOINT_H
#define HIMORIME_STATS_CHANGEPOINT_H

#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct change_point {
	size_t index;  /* first commit of the new segment */
	double change; /* exp(shift) - 1: 0.2 = the metric moved up 20% */
	double low;    /* interval of the change, same unit */
	double high;
};

struct change_point_settings {
	double max_fraction; /* tolerance as a fraction, >= 0 */
	double confidence;   /* 0 < confidence < 1 */
	size_t min_segment;  /* >= 1; sweeps use 3 (docs/sweeps.md) */
};

#define CHANGE_POINT_SETTINGS_INIT                                                                 \
	{                                                                                          \
		0.05, 0.99, 3                                                                      \
	}

/*
 * y[0..n) is each commit's ln(value / reference), oldest first. Fills
 * *points (heap, sorted by index; the caller frees it) and *n_points.
 * ERR_INVALID for bad settings or a non-finite y.
 */
int stats_change_points(const double *y, size_t n, const struct change_point_settings *s,
			struct change_point **points, size_t *n_points, struct err *err);

/*
 * What a history of n commits can show at these settings: the fewest commits
 * a step needs on each side of it to be called (the shift's interval is
 * finite at the level the search of n commits pays), at least min_segment;
 * 0 when no step in n commits can be called at all. A commit that has fewer
 * before it, or fewer from it to the end, can never be a first bad commit.
 */
size_t stats_change_point_reach(size_t n, const struct change_point_settings *s);

/* The largest k with P(U <= k - 1) <= a/2 for the Mann–Whitney U of sizes
 * m and n under the null; 0 when there is none. */
uint64_t stats_mann_whitney_k(size_t m, size_t n, double a);

#endif
