/*
 * Sweep bookkeeping (docs/sweeps.md), pure: no I/O, no git, no processes.
 *
 * A sweep measures each selected commit of a range against one fixed
 * reference commit and keeps one results document (mode sweep) per commit
 * and suite. This module holds what the sweep, merge, history and bisect
 * commands share about those documents:
 *
 *   - hashes: the suite file's bytes and the settings that change the
 *     numbers; a commit is "in the history" when its id and both hashes
 *     match (sweep_entry_key names the history file);
 *   - shards: `--shard K/N` is the K-th of N contiguous slices of the
 *     selection, so that a matrix of jobs covers the range exactly once;
 *   - merging: the documents of several shards become one, refused when they
 *     were made with other suites, settings or another reference;
 *   - series: per suite, benchmark, command and metric, each commit's value,
 *     the reference's, and the ratio to the reference (the Hodges–Lehmann
 *     estimate of the paired log ratio, with its interval), oldest first,
 *     with the change points of the log ratio (stats_change_points).
 */
#ifndef HIMORIME_HISTORY_SWEEP_H
#define HIMORIME_HISTORY_SWEEP_H

#include "common/err.h"
#include "common/metric.h"
#include "common/strbuf.h"
#include "results/results.h"
#include "stats/changepoint.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SWEEP_HASH_HEX 16

/* 64-bit FNV-1a of the bytes as 16 lower-case hex digits and a NUL. */
void sweep_hash(const void *data, size_t len, char out[SWEEP_HASH_HEX + 1]);

/* What changes the numbers besides the code and the suite file. */
struct sweep_settings {
	bool has_runs;
	unsigned runs;
	bool has_warmup;
	unsigned warmup;
	uint64_t max_time_ns;
	uint64_t max_total_time_ns; /* --max-total-time; 0: not given */
	/* Selected benchmarks as "suite-name/benchmark-name", in suite order. */
	const char *const *selected;
	size_t n_selected;
	/* --filter COMMAND › GLOB: the harness benchmarks kept; NULL: none. */
	const char *harness_command, *harness_filter;
};

void sweep_settings_hash(const struct sweep_settings *s, char out[SWEEP_HASH_HEX + 1]);

/* The history file name of one commit's suite: "<suite-hash>-<settings-hash>". */
void sweep_entry_key(const char *suite_hash, const char *settings_hash, struct strbuf *out);

/* Parses "K/N" with 1 <= K <= N <= 1000. ERR_USAGE otherwise. */
int sweep_shard_parse(const char *text, unsigned *k, unsigned *n, struct err *err);
/* Slice k (1-based) of n over count items: [*begin, *end). Contiguous and
 * covering: the slices of 1..n partition 0..count. */
void sweep_shard_slice(size_t count, unsigned k, unsigned n, size_t *begin, size_t *end);

/*
 * Joins sweep documents (shards of one sweep, or history entries) into *out,
 * a new document whose suites are every input's, ordered by commit index.
 * The inputs are emptied of their suites. ERR_INVALID, naming the inputs,
 * when a document is not a sweep's, when two were made with another
 * reference, other settings, another range or other suites, or when a
 * commit's suite appears twice. names[i] names docs[i] in messages.
 */
int sweep_merge(struct results *const *docs, const char *const *names, size_t n,
		struct results **out, struct err *err);

/* One commit of a series. */
struct sweep_point {
	const char *sha; /* lent by the documents */
	const char *subject;
	int64_t time_unix_ns;
	uint64_t index;
	size_t rank;		     /* in the commit graph; SIZE_MAX: not placed */
	int64_t measured_at_unix_ns; /* when its document finished */
	bool has_value;
	double value;	  /* the commit's statistic (median unless the suite shows mean) */
	double reference; /* the reference's, measured in the same rounds */
	bool has_ratio;
	double ratio; /* value / reference: exp(Hodges–Lehmann of the paired log ratios) */
	double ratio_low, ratio_high;
	enum verdict verdict; /* against the reference */
	const char *error;    /* why the commit has no value; NULL */
};

struct sweep_change {
	size_t index;	  /* into points: the first bad commit; index - 1 the last good */
	double change;	  /* exp(step) - 1: 0.2 = up 20% */
	double low, high; /* the step's interval, same unit */
};

struct sweep_series {
	const char *suite, *benchmark, *command; /* lent */
	const char *reference;			 /* the reference commit */
	enum metric metric;
	double max_fraction; /* tolerance as a fraction */
	double confidence;
	struct sweep_point *points; /* oldest first */
	size_t n_points, alloc_points;
	struct sweep_change *changes;
	size_t n_changes;
	/* What the search could see (stats_change_point_reach): the commits with
	 * a ratio it searched, the fewest commits a step needs on each side
	 * (0: none can be called), and then how many commits would be needed. */
	size_t searched, reach, needed;
};

/* Whether a point takes part in the change-point search (it has a ratio). */
bool sweep_point_searched(const struct sweep_point *p);

struct sweep_series_list {
	struct sweep_series *items;
	size_t count, alloc;
};

/* The commits' places in the commit graph, as the CLI reads them from git
 * (vcs_graph_order): rank[i] for sha[i], SIZE_MAX when unknown. */
struct sweep_order {
	const char *const *sha;
	const size_t *rank;
	size_t n;
};

/*
 * The series of metric m in docs (each document's suites carry their
 * commit), one per suite name, benchmark, command and reference, ordered by
 * the commit graph when `order` is given (commits it does not place come
 * after, by time), else by commit time; then by index. A commit measured
 * twice keeps the document that finished last. Change points are found on
 * each series' log ratios (commits without a ratio are left out of the
 * search). A commit whose suite failed before any command ran (a build), or
 * whose benchmark did (a setup), is a point without a value in each series
 * of that suite or benchmark, its error saying why. The series lend strings
 * from docs, which must outlive them.
 */
int sweep_series_build(const struct results *const *docs, size_t n, enum metric m,
		       const struct sweep_order *order, struct sweep_series_list *out,
		       struct err *err);
void sweep_series_release(struct sweep_series_list *list);

#endif
