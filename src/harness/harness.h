/*
 * In-process benchmark harnesses read as samples. A command that runs a
 * benchmark harness (Google Benchmark, `go test -bench`, pytest-benchmark,
 * Catch2, hyperfine, or anything printing `lines`) reports many benchmarks in
 * one process; this module turns the bytes of one such run's output (its
 * standard output or the file it wrote) into those benchmarks, each with
 * named metrics in canonical units, a direction, and one value per run: the
 * median of what the run repeated inside itself (repetitions, `-count`,
 * rounds, samples), the raw values kept beside it.
 *
 * Pure: no I/O, no globals. The caller reads the output (under
 * HARNESS_MAX_OUTPUT_BYTES) and hands the bytes over; every problem is
 * ERR_INVALID with one line that starts with the caller's name for the
 * output and the position ("stdout:12:5: ..." for text, XML and syntax,
 * "bench.json: $.benchmarks[3].real_time: ..." for a JSON field) and says
 * what was expected. docs/configuration.md, "Harnesses", is the user's side
 * of this contract: what each harness must be told to print, and the limits.
 */
#ifndef HIMORIME_HARNESS_HARNESS_H
#define HIMORIME_HARNESS_HARNESS_H

#include "common/err.h"
#include "common/metric.h"

#include <stddef.h>

/* The names are part of the suite format: never rename one, only append. */
enum harness_kind {
	HARNESS_GOOGLE_BENCHMARK, /* "google-benchmark": --benchmark_format=json */
	HARNESS_GO_TEST,	  /* "go-test": go test -bench text */
	HARNESS_PYTEST_BENCHMARK, /* "pytest-benchmark": --benchmark-json=FILE */
	HARNESS_CATCH2,		  /* "catch2": Catch2 v2's -r xml */
	HARNESS_HYPERFINE,	  /* "hyperfine": --export-json FILE */
	HARNESS_LINES,		  /* "lines": one JSON object per line */
	HARNESS__COUNT
};

/* Limits on one output; each is an error when passed, never a truncation.
 * Benchmarks: a comparison of 10000 took 849 MB and wrote a report of 116 MB,
 * beyond the 64 MiB `report` and `comment` read back; 1000 took 86 MB and
 * 12 MB (docs/configuration.md, "Harnesses"). */
#define HARNESS_MAX_OUTPUT_BYTES (16u << 20) /* 16 MiB */
#define HARNESS_MAX_BENCHMARKS	 1000u	     /* distinct names in one output */
#define HARNESS_MAX_METRICS	 64u	     /* per benchmark */
#define HARNESS_MAX_VALUES	 1000000u    /* values in one output, all metrics */
#define HARNESS_MAX_NAME_BYTES	 1024u	     /* a benchmark's name */
#define HARNESS_MAX_METRIC_BYTES 64u	     /* a metric's name */
#define HARNESS_MAX_UNIT_BYTES	 32u	     /* a unit as declared */
#define HARNESS_MAX_ERROR_BYTES	 512u	     /* a failed benchmark's message, cut there */
#define HARNESS_MAX_JSON_VALUES	 2000000u    /* JSON values, counted before any is allocated */

/* One metric of one benchmark. Times are in ns ("ns") whatever the harness
 * printed; Google Benchmark's and Go's throughputs are "bytes/s" and
 * "items/s" (higher is better); Go's -benchmem gives "bytes" and "allocs"
 * per operation. What the harness does not define keeps the name and unit
 * it was given, with BETTER_NEUTRAL where the output does not say which
 * way is better: Google Benchmark's user counters (unit "count") and the
 * units of Go's b.ReportMetric; `lines` declares both. */
struct harness_metric {
	char *name; /* "time", "cpu_time", "bytes_per_op", "allocs_per_op",
		     * "bytes_per_second", "items_per_second", or the harness's own */
	char *unit;
	enum better better;
	double value;	 /* the median of values (of an even count, the mean of the middle two) */
	double *values;	 /* every value this run reported for it, in output order */
	size_t n_values; /* at least 1 */
};

struct harness_benchmark {
	char *name; /* as the harness reports it (see docs), any UTF-8 but NUL: data, not markup */
	/* The harness said this benchmark failed: its message, one line (NULL
	 * otherwise). A failed benchmark may have no metrics. */
	char *error;
	struct harness_metric *metrics; /* in the order the output first gave them */
	size_t n_metrics;
};

struct harness_index;

/* Every benchmark of one run, in the order the output first named them;
 * names are unique. */
struct harness_output {
	struct harness_benchmark *benchmarks;
	size_t n_benchmarks;
	struct harness_index *index; /* private: names to benchmarks */
};

#define HARNESS_OUTPUT_INIT                                                                        \
	{                                                                                          \
		NULL, 0, NULL                                                                      \
	}

/* "google-benchmark", "go-test", "pytest-benchmark", "catch2", "hyperfine", "lines". */
const char *harness_kind_name(enum harness_kind kind);
/* 0 and *out, or -1 for a name that is none of those. */
int harness_kind_from_name(const char *name, enum harness_kind *out);

void harness_output_init(struct harness_output *out);
void harness_output_release(struct harness_output *out);

/* Reads `len` bytes of one run's output of a `kind` harness into *out
 * (released first). `name` names the output in messages ("stdout",
 * "bench.json"). An output that reports no benchmark, an empty one, a
 * truncated or malformed one, NaN, infinite or negative values, names
 * repeated where the harness does not repeat by design, and anything past
 * a HARNESS_MAX_* limit are ERR_INVALID; *out is then empty. */
int harness_parse(enum harness_kind kind, const char *data, size_t len, const char *name,
		  struct harness_output *out, struct err *err);

/* The benchmark of that name, or NULL; lent by out. */
const struct harness_benchmark *harness_output_find(const struct harness_output *out,
						    const char *name);
/* The metric of that name, or NULL; lent by b. */
const struct harness_metric *harness_benchmark_metric(const struct harness_benchmark *b,
						      const char *metric);

#endif
