/*
 * Descriptive statistics of raw samples. Pure: no I/O, no globals. Every
 * figure a report shows is computed here from the raw per-run values.
 *
 * Percentiles are type 7 (linear interpolation between closest ranks, as
 * NumPy's default and R's type 7). The sample standard deviation uses n - 1.
 * CV = stddev / mean; robust CV = IQR / 1.349 / median.
 */
#ifndef HIMORIME_STATS_STATS_H
#define HIMORIME_STATS_STATS_H

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

#endif
