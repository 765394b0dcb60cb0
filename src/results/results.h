/*
 * The results document: everything one run, compare or sweep step measured
 * and decided, in memory, and its lossless JSON form (schema_version "1",
 * docs/reports.md, docs/schema/report.schema.json).
 *
 * Producers (the planner while measuring; a sweep keeps one document per
 * commit) build it with results_new() and the results_add_*() helpers, which
 * grow the arrays; consumers (renderers, judge re-runs, `himorime report`)
 * read the plain structs: arrays with counts, units in names. The document
 * owns everything reachable from it: every `char *` is a heap string
 * (xstrdup) or NULL for "absent" (written as null), every array is freed by
 * results_free(). results_set_str() replaces a string field.
 *
 * Samples are raw per-run doubles in canonical units (ns, bytes, percent,
 * work units per second). ns and bytes samples, counts and the seed are whole
 * numbers below 2^53; writing anything else, or a NaN or infinity anywhere,
 * is ERR_INTERNAL. Reading checks every field of untrusted input and reports
 * ERR_INVALID with the JSON path of the bad value.
 */
#ifndef HIMORIME_RESULTS_RESULTS_H
#define HIMORIME_RESULTS_RESULTS_H

#include "common/err.h"
#include "common/metric.h"
#include "common/types.h"
#include "stats/stats.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RESULTS_SCHEMA_VERSION "1"
/* Bounds on untrusted documents (the reader refuses anything larger). */
#define RESULTS_MAX_FILE_BYTES	 (64u * 1024 * 1024)
#define RESULTS_MAX_DEPTH	 64
#define RESULTS_MAX_STRING_BYTES 65536
#define RESULTS_MAX_ITEMS	 100000	 /* suites, benchmarks, commands, ... per array */
#define RESULTS_MAX_SAMPLES	 1000000 /* samples of one metric of one side */
/* Values in one document: cJSON spends about 64 bytes on each, so this keeps
 * a hostile 64 MiB of "0,0,0..." from costing gigabytes. */
#define RESULTS_MAX_VALUES	 4000000
#define RESULTS_MAX_STDERR_BYTES 2048
#define RESULTS_MAX_INTEGER	 9007199254740991.0 /* 2^53 - 1 */
#define RESULTS_RESULT_STATES	 (RESULT_ERROR + 1)

enum results_mode { RESULTS_MODE_RUN, RESULTS_MODE_COMPARE, RESULTS_MODE_SWEEP };

/* The measuring plan a command ended on (large cases: docs/design.md, "Measuring a run"). */
enum results_plan { RESULTS_PLAN_STANDARD, RESULTS_PLAN_LARGE };

/* Where a metric's values come from, and how a process tree is folded. */
enum results_source {
	RESULTS_SOURCE_WALL_CLOCK,
	RESULTS_SOURCE_DECLARED_WORK,
	RESULTS_SOURCE_RUSAGE,
	RESULTS_SOURCE_JOB_OBJECT,
	RESULTS_SOURCE_PROCESS_MEMORY_COUNTERS,
	RESULTS_SOURCE_UNAVAILABLE,
	RESULTS_SOURCE_ARTIFACT_FILE, /* artifact_size: the file's bytes and ELF section headers */
	RESULTS_SOURCE_VALGRIND,      /* instructions: a separate phase of runs under valgrind */
	RESULTS_SOURCE_PERF_EVENT,    /* instructions: the perf counter, during the timed runs */
	/* a harness benchmark's metric as the harness reported it (its time
	 * per iteration, throughput, allocations or bytes per operation),
	 * not necessarily whole */
	RESULTS_SOURCE_HARNESS,
};

enum results_aggregation {
	RESULTS_AGG_NONE,
	RESULTS_AGG_SUM_OF_WAITED_DESCENDANTS,
	RESULTS_AGG_SUM_OF_JOB_PROCESSES,
	RESULTS_AGG_MAX_OF_SINGLE_PROCESS_PEAKS,
	RESULTS_AGG_STARTED_PROCESS_ONLY,
	RESULTS_AGG_SUM_OF_TRACED_PROCESSES, /* valgrind --trace-children: one file each */
};

/* The reference's error kinds, by name in reports. */
enum results_error_kind {
	RESULTS_ERROR_BUILD_FAILED,
	RESULTS_ERROR_SETUP_FAILED,
	RESULTS_ERROR_PREPARE_EACH_FAILED,
	RESULTS_ERROR_CLEANUP_FAILED,
	RESULTS_ERROR_EXIT_CODE,
	RESULTS_ERROR_TIMEOUT,
	RESULTS_ERROR_START_FAILED,
	RESULTS_ERROR_INTERRUPTED,
	RESULTS_ERROR_INVALID_PATH,
	RESULTS_ERROR_INTERNAL,
	RESULTS_ERROR_METRIC_UNSUPPORTED,
	RESULTS_ERROR_METRIC_COLLECTION_FAILED,
	/* A harness's output that cannot be read, a benchmark missing from it
	 * or reported failed (docs/configuration.md, "Harnesses"). */
	RESULTS_ERROR_HARNESS_OUTPUT,
};

/* An error of a suite, benchmark or measured side; absent unless present. */
struct results_error {
	bool present;
	enum results_error_kind kind;
	char *message;
	bool has_exit_code;
	int exit_code;
	char *stderr_tail; /* redacted, valid UTF-8, at most RESULTS_MAX_STDERR_BYTES */
	bool has_metric;
	enum metric metric;
};

struct results_tool {
	char *name;
	char *version;
};

/* Never host names or environment values. */
struct results_environment {
	char *os, *arch, *kernel, *cpu_model;
	uint32_t logical_cpus;
	char *compiler, *libc;
	char *ci;		    /* CI provider, e.g. "github_actions"; NULL outside CI */
	struct results_tool *tools; /* report.versions */
	size_t n_tools, alloc_tools;
};

struct results_git {
	bool present; /* false: written as null */
	char *head_sha;
	bool dirty;
	char *base_ref, *base_sha, *base_source;
	/* `ci` under an Actions event: the commit the event names, which gets
	 * the status (pull_request.head.sha; GITHUB_SHA on push and
	 * merge_group). `comment` posts a report only for the commit of its own
	 * event. NULL elsewhere, and then absent from the JSON. */
	char *status_sha;
};

struct results_noise {
	bool has_load_average; /* the highest seen over the runs */
	double load_average_1m, load_average_5m, load_average_15m;
	bool has_steal;
	double steal_percent;
	char *governor; /* NULL when unreadable */
	bool noisy;
	char *reason; /* why the machine was noisy; NULL when it was not */
};

/* Declared work of a throughput metric. */
struct results_work {
	bool present;
	bool has_value;
	double value;	 /* declared amount per run */
	char *file_size; /* the file whose size is the work, as written; or NULL */
	char *unit;	 /* "operations", "bytes", "records", ... */
	double measured_min, measured_max;
};

/*
 * Drift over the runs of one side (docs/design.md, "Measuring a run"): the Theil–Sen slope of the
 * samples over the run index, for latency and peak_rss from
 * RESULTS_TREND_MIN_RUNS runs on (peak_rss only when no run is at the floor),
 * when the runs give an interval at their autocorrelation (stats_theil_sen).
 * `growing` flags a metric that keeps growing from run to run: the whole
 * interval lies above 0 and the fitted growth over the runs reaches
 * RESULTS_TREND_MIN_GROWTH of the median; in a comparison, also beyond the
 * other side's: its interval lies above the other side's and the excess
 * slope reaches RESULTS_TREND_MIN_GROWTH (drift of the machine moves both
 * sides of the pairs alike and cancels). Slopes are per run, in the
 * metric's canonical unit.
 */
#define RESULTS_TREND_MIN_RUNS	 10
#define RESULTS_TREND_CONFIDENCE 0.99
#define RESULTS_TREND_MIN_GROWTH 0.05

struct results_trend {
	bool present;
	double slope, slope_low, slope_high;
	double min_detectable_slope; /* the interval's half-width */
	bool growing;
};

/* One metric of one side. Name, group, unit, better and scope come from
 * metric_info(metric). Every metric exists on every side; not_requested
 * unless the producer says otherwise. */
struct results_metric {
	enum metric metric;
	enum metric_status status;
	char *reason;
	enum results_source source;
	enum results_aggregation process_aggregation;
	bool has_stats;
	struct stats_summary stats; /* owned: stats.percentiles is freed with us */
	double *samples;	    /* one per measured run, canonical unit */
	size_t n_samples, alloc_samples;
	struct results_work work; /* throughput only */
	bool has_floor;		  /* peak_rss only */
	uint64_t floor_bytes;	  /* the largest floor of the runs */
	uint64_t samples_at_floor;
	struct results_trend trend; /* latency and peak_rss only */
	/* artifact_size only: the text, data and bss of an ELF artifact, as
	 * `size` counts them (measure/elf.h); absent for other files. */
	bool has_elf;
	uint64_t elf_text, elf_data, elf_bss;
	/* instructions only: how they were counted ("valgrind", its version
	 * "3.19.0", the event "Ir"; or "perf", the kernel's release,
	 * "instructions:u"); NULL when not counted. Counts of two backends are
	 * never compared. */
	char *counter_backend, *counter_version, *counter_event;
};

/* One side (head or base) of one command. */
/* A metric a harness reported for one of its benchmarks
 * (docs/configuration.md, "Harnesses"), run by run: each run's value (the
 * median of what that run repeated inside itself) and every raw value
 * behind it. Only the runs that reported it, in order. */
struct results_harness_metric {
	char *name, *unit;
	enum better better;
	double *values; /* one per run */
	size_t n_values, alloc_values;
	double *raw; /* every raw value, run after run */
	size_t n_raw, alloc_raw;
	size_t *raw_counts; /* per run: how many of raw are its */
	size_t alloc_counts;
};

struct results_side {
	bool present;
	uint64_t count; /* measured runs */
	uint64_t warmups;
	enum results_plan plan;
	struct results_metric metrics[METRIC__COUNT]; /* indexed by enum metric */
	struct results_error error;
	/* A harness benchmark's metrics as the harness reported them. */
	struct results_harness_metric *harness_metrics;
	size_t n_harness_metrics, alloc_harness_metrics;
	/* Duet runs only (docs/configuration.md, "Schedule"): each measured
	 * run's start (its execve) and end (its reap) on CLOCK_MONOTONIC, in
	 * ns, run i beside sample i, so that the two sides' overlap can be
	 * seen; n_times is 0 for interleaved runs. */
	uint64_t *run_start_ns, *run_end_ns;
	size_t n_times, alloc_start, alloc_end;
};

/* Adds one run's value of a harness metric (made on its first value) and
 * the n raw values behind it. */
void results_add_harness_value(struct results_side *s, const char *name, const char *unit,
			       enum better better, double value, const double *raw, size_t n);

struct results_budget {
	struct budget_result result;
	char *text; /* as written in the suite, e.g. "<= 50ms" */
};

/* The row of a benchmark a harness reported (docs/configuration.md,
 * "Harnesses"): its harness ("google-benchmark"), the suite's command that
 * ran it and its name as the harness reports it; all NULL for a command's
 * own row. */
struct results_harness {
	char *format, *command, *benchmark;
	/* The suite's `select:` (none: every benchmark), the arguments that
	 * passed it on to the harness, and whether the output was filtered
	 * again after each run (docs/configuration.md, "Selecting harness
	 * benchmarks"). */
	char **select, **args;
	size_t n_select, n_args;
	bool filtered_after;
	/* The command line's --filter COMMAND › GLOB: its GLOB, which the
	 * suite's select: and it must both match; NULL: none. */
	char *filter;
};

/* Adds a copy of s to a list of strings. */
void results_add_string(char ***v, size_t *n, const char *s);

struct results_command {
	char *name;
	char *command; /* as written, before ${env:...} substitution */
	struct results_harness harness;
	enum result_state result;
	struct results_side head, base; /* base.present only when comparing */
	bool has_vs_baseline, has_vs_fastest;
	double vs_baseline, vs_fastest; /* median / baseline's or fastest's median */
	struct comparison *comparisons; /* one per compared metric, in order */
	size_t n_comparisons, alloc_comparisons;
	struct results_budget *budgets;
	size_t n_budgets, alloc_budgets;
	/* The line of the command's name in the suite file (1-based), for
	 * annotations on it (docs/github-actions.md, "The check run"); 0 when
	 * unknown (documents written before it, or read from one), and then
	 * absent from the JSON. */
	uint32_t line;
};

/* The error message of a benchmark that an interrupt kept from starting: its
 * error kind is "interrupted" and it has no commands. */
#define RESULTS_NOT_STARTED "never started"

/* One value of a case (docs/configuration.md, "Parameters"), as written. */
struct results_param {
	char *name, *value;
};

/* Why a case of a benchmark with sizes was its long run, the drift check
 * (docs/configuration.md, "Sizes"): the suite's `long_run` named its size,
 * or it is the largest size whose long run fit in 60 s. */
enum results_long_run {
	RESULTS_LONG_RUN_NONE,
	RESULTS_LONG_RUN_DECLARED,
	RESULTS_LONG_RUN_LARGEST, /* "largest within 60 s" */
	/* "not checked": no size of its series had a long run (a comparison's
	 * pairs stop where it decides; or no size's runs fit in 60 s), and none
	 * is declared: the largest size says why not. */
	RESULTS_LONG_RUN_NOT_CHECKED,
};

/* Which time budget stopped a benchmark of a comparison before its looks or
 * its counts were done (docs/comparison.md, "Time budgets"). */
enum results_time_budget {
	RESULTS_TIME_BUDGET_NONE,
	RESULTS_TIME_BUDGET_MAX_TIME,	    /* its own regression.max_time or --max-time */
	RESULTS_TIME_BUDGET_MAX_TOTAL_TIME, /* its share of the whole comparison's */
};

struct results_benchmark {
	char *name, *description;
	/* A case of a benchmark with parameters or sizes: the benchmark as
	 * written (NULL for any other benchmark), its values in declared order
	 * and its size as a count. A case's name is its label, stable across
	 * commits. */
	char *base_name;
	struct results_param *params;
	size_t n_params, alloc_params;
	bool has_size;
	double size;
	enum results_long_run long_run; /* sizes only */
	char **tags;
	size_t n_tags, alloc_tags;
	char *baseline;
	uint64_t rounds;
	/* How its compared commands' pairs ran (common/types.h); interleaved
	 * for documents written before duets, and for benchmarks measured on
	 * one side. Budgets of a duet benchmark were checked on duet runs. */
	enum schedule schedule;
	enum results_time_budget time_budget_ran_out;
	enum result_state result;
	struct results_error error;
	struct results_command *commands;
	size_t n_commands, alloc_commands;
	uint32_t line; /* of the benchmark in the suite file; 0 unknown, as a command's */
};

struct results_ratio {
	char *command;
	double ratio;
};

/* The commit a sweep measured a suite on (docs/sweeps.md); absent outside sweeps. */
struct results_commit {
	bool present;
	char *sha;	      /* 40 hex digits */
	char *subject;	      /* first line of its message */
	int64_t time_unix_ns; /* committer time */
	uint64_t index;	      /* position in the sweep's selection, oldest first */
	char *suite_hash;     /* hash of the suite file's bytes (16 hex digits) */
};

/*
 * How a cost grows with input size (docs/comparison.md, "Growth with input
 * size"): cost ≈ constant + coefficient · size^exponent fitted over the
 * sizes of one side (stats_growth_fit), from the sizes `from` to `to` as
 * written. has_constant is false with 2 sizes (a plain power law) and in
 * documents written before the constant was fitted.
 */
struct results_fit {
	bool present;
	double exponent, coefficient, r_squared;
	bool has_constant;
	double constant; /* the metric's canonical unit */
	bool has_interval;
	double exponent_low, exponent_high; /* at RESULTS_GROWTH_CONFIDENCE */
	uint64_t sizes, runs;
	char *from, *to;
};

#define RESULTS_GROWTH_CONFIDENCE 0.95

/* The growth of one command of a benchmark with sizes, for one metric
 * (latency, cpu_total, peak_rss above the floor, instructions, allocations,
 * allocated_bytes). */
struct results_growth {
	char *benchmark; /* the cases' label without the size: "scan" or "scan[mode=a]" */
	char *command;
	enum metric metric;
	struct results_fit head, base; /* base.present only when comparing */
	/* A budget on head's exponent (`exponent: "<= 1.2"`): passes when the
	 * exponent keeps the bound. */
	bool has_budget;
	char *budget_text;
	enum bound_op budget_op;
	double budget_limit;
	bool budget_pass;
	/* The exponents compared (both fitted): head − base, its interval from
	 * the two fits' intervals, the tolerance, and the verdict. */
	bool compared;
	double difference, difference_low, difference_high, max_difference;
	enum verdict verdict;
};

/* A case a comparison left out, and why (docs/reports.md, "Cases and growth"). */
struct results_not_compared {
	char *benchmark, *reason;
};

struct results_suite {
	char *name, *description, *file;
	enum result_state result;
	struct results_error error;
	bool new_in_head;
	/* Base and head built byte-identical artifacts and both sides ran one
	 * file (comparisons only). */
	bool shared_artifact;
	struct results_benchmark *benchmarks;
	size_t n_benchmarks, alloc_benchmarks;
	bool has_geometric_mean;
	char *geometric_mean_reference; /* "baseline", "fastest" or "base" */
	uint64_t geometric_mean_cases;
	struct results_ratio *geometric_mean_values;
	size_t n_geometric_mean_values, alloc_geometric_mean_values;
	char *geometric_mean_unavailable; /* why there is none, or NULL */
	struct results_growth *growth;
	size_t n_growth, alloc_growth;
	struct results_not_compared *not_compared;
	size_t n_not_compared, alloc_not_compared;
	struct results_commit commit; /* sweeps only */
	/* The suite's report.error_conclusion is neutral: a check run whose
	 * comparison failed to run (exit 4 or 6, no regression and no broken
	 * budget) concludes `neutral`, not `failure` (docs/github-actions.md).
	 * Written only when set. */
	bool error_conclusion_neutral;
};

struct results_not_gated {
	uint64_t pass, improved, inconclusive, regression;
};

struct results_summary {
	uint64_t suites, benchmarks, commands;
	/* commands per result state; a command whose only problem is a
	 * regression accepted by the pull-request label is counted in
	 * accepted_regressions instead, so that the counts add up to commands */
	uint64_t results[RESULTS_RESULT_STATES];
	uint64_t accepted_regressions;
	struct results_not_gated not_gated;
	uint64_t skipped, new_suites;
	bool fail_on_inconclusive;
	int exit_code;
	bool interrupted;
};

/* What every commit of one sweep shares (docs/sweeps.md); absent outside sweeps.
 * Documents of one sweep, or of its shards, agree on all of it. */
struct results_sweep {
	bool present;
	char *range;	      /* REV_RANGE as given */
	char *reference;      /* the commit every commit is measured with (base) */
	char *settings_hash;  /* of the settings that change the numbers */
	uint64_t shard_index; /* 1-based slice K of N; 1 of 1 when not sharded */
	uint64_t shard_count;
	uint64_t commits; /* commits selected in the whole, unsharded range */
};

/* What a calibration (`himorime calibrate`, an A/A comparison in mode
 * compare) found beyond its comparisons: per compared metric, the pair cap
 * and the smallest slowdown the settings would call a regression within it
 * (docs/reports.md). Absent outside calibrations. */
struct results_calibration_row {
	char *benchmark, *command;
	enum metric metric;
	uint64_t max_pairs;
	bool has_detectable;
	double detectable_percent;
	/* Both schedules measured (docs/comparison.md, "Choosing a schedule"):
	 * each one's A/A interval half-width, in percent, at the same pairs;
	 * schedule_pairs 0 when they were not both measured, and then
	 * schedules_note says why (NULL: the whole calibration's reason). */
	uint64_t schedule_pairs;
	double interleaved_half_width_percent, duet_half_width_percent;
	char *schedules_note;
};

struct results_calibration {
	bool present;
	bool separate_builds; /* a suite built its command: two files, as in a change */
	/* Whether both schedules were to be measured (no --schedule), the one
	 * whose intervals were narrower here (NULL: none measured on both),
	 * and why duet was measured nowhere (NULL: it was, or not asked). */
	bool both_schedules;
	char *recommended_schedule;
	char *duet_not_measured;
	struct results_calibration_row *rows;
	size_t n_rows, alloc_rows;
};

/* Where a session's wall time went (docs/reports.md#timings), per phase, on
 * CLOCK_MONOTONIC; phases do not overlap, so their sum is at most total_ns.
 * Written only when present (documents of a measuring session); absent in
 * older documents, which read as before. */
enum results_phase {
	RESULTS_PHASE_LOAD,		/* reading and validating the suites */
	RESULTS_PHASE_RESOLVE,		/* opening the repository, resolving revisions */
	RESULTS_PHASE_MATERIALISE_HEAD, /* checking out head's tree (--head, sweeps) */
	RESULTS_PHASE_MATERIALISE_BASE,
	RESULTS_PHASE_BUILD_HEAD, /* build: and report.versions */
	RESULTS_PHASE_BUILD_BASE,
	RESULTS_PHASE_SETUP, /* private directories, stdin, setup hooks */
	RESULTS_PHASE_WARMUP,
	RESULTS_PHASE_ROUNDS,  /* measured rounds, without the looks */
	RESULTS_PHASE_JUDGING, /* the looks, statistics, budgets, verdicts */
	RESULTS_PHASE_CLEANUP, /* cleanup hooks, removing temporary trees */
	RESULTS_PHASE_RENDERING,
	RESULTS_PHASE_PUBLISHING, /* the pull-request comment and status; a sweep's history */
	RESULTS_PHASE__COUNT,
};

struct results_timings {
	bool present;
	uint64_t total_ns; /* from the start of the session to its last phase */
	uint64_t phase_ns[RESULTS_PHASE__COUNT];
};

struct results {
	enum results_mode mode;
	char *himorime_version;
	uint64_t seed; /* at most 2^53 - 1 */
	int64_t started_at_unix_ns, finished_at_unix_ns;
	struct results_environment environment;
	struct results_git git;
	struct results_noise noise;
	/* A comparison's whole time budget, max_total_time (docs/comparison.md,
	 * "Time budgets"); 0 when there was none (runs, older documents). */
	uint64_t max_total_time_ns;
	struct results_suite *suites;
	size_t n_suites, alloc_suites;
	struct results_summary summary;
	struct results_sweep sweep;
	struct results_calibration calibration;
	struct results_timings timings;
};

/* A fresh document: mode, this himorime's version, every metric of every
 * side not_requested. */
struct results *results_new(enum results_mode mode);
void results_free(struct results *r);

/* Builders: each appends a zeroed element (strings duplicated, NULL allowed)
 * and returns it; the pointer lives until the next append to the same array. */
struct results_suite *results_add_suite(struct results *r, const char *name);
struct results_benchmark *results_add_benchmark(struct results_suite *s, const char *name);
/* Makes room for n more benchmarks in s: the pointers the next n appends
 * return all live until the append after them. */
void results_reserve_benchmarks(struct results_suite *s, size_t n);
struct results_command *results_add_command(struct results_benchmark *b, const char *name,
					    const char *command);
/* Removes and frees command i of b; the later ones move down by one. */
void results_remove_command(struct results_benchmark *b, size_t i);
void results_add_tool(struct results *r, const char *name, const char *version);
void results_add_param(struct results_benchmark *b, const char *name, const char *value);
struct results_growth *results_add_growth(struct results_suite *s, const char *benchmark,
					  const char *command, enum metric metric);
void results_add_not_compared(struct results_suite *s, const char *benchmark, const char *reason);
void results_add_tag(struct results_benchmark *b, const char *tag);
void results_add_ratio(struct results_suite *s, const char *command, double ratio);
/* Whether a calibration row was measured under both schedules. */
bool results_calibration_row_both(const struct results_calibration_row *row);
/* The geometric mean of duet's half-widths over interleaved's across the rows
 * measured under both (*n of them; 1 when none): below 1, duet's intervals
 * were the narrower. */
double results_calibration_width_ratio(const struct results_calibration *c, size_t *n);
/* Appends a calibration row and marks the document a calibration. */
struct results_calibration_row *results_add_calibration_row(struct results *r,
							    const char *benchmark,
							    const char *command, enum metric m);
struct comparison *results_add_comparison(struct results_command *c, const struct comparison *cmp);
struct results_budget *results_add_budget(struct results_command *c,
					  const struct budget_result *res, const char *text);
/* Appends one raw sample (canonical unit) and marks the metric measured. */
void results_add_sample(struct results_side *side, enum metric m, double value);
/* Appends the start and end of one measured duet run (CLOCK_MONOTONIC ns). */
void results_add_run_times(struct results_side *side, uint64_t start_ns, uint64_t end_ns);
/* Copies a summary into a metric (the percentiles are duplicated). */
void results_set_stats(struct results_side *side, enum metric m, const struct stats_summary *stats);
/* Replaces a string field: *slot = copy of s (NULL clears). */
void results_set_str(char **slot, const char *s);
/* Sets an error; message and stderr_tail are copied (stderr_tail may be NULL
 * and is cut to its last RESULTS_MAX_STDERR_BYTES at a character boundary, with
 * invalid UTF-8 replaced by U+FFFD). */
void results_set_error(struct results_error *e, enum results_error_kind kind, const char *message,
		       const char *stderr_tail_bytes, size_t stderr_len);

/* Names in reports, and back (-1 for an unknown name). */
const char *results_mode_name(enum results_mode m);
const char *results_plan_name(enum results_plan p);
const char *results_source_name(enum results_source s);
const char *results_aggregation_name(enum results_aggregation a);
const char *results_error_kind_name(enum results_error_kind k);
const char *results_scope_name(enum metric_scope s);
/* "load", "resolve", "materialise_head", ...: the JSON keys are these + "_ns". */
const char *results_phase_name(enum results_phase p);
/* "declared", "largest within 60 s", "not checked"; NULL for
 * RESULTS_LONG_RUN_NONE. */
const char *results_long_run_name(enum results_long_run l);
/* "max_time", "max_total_time"; NULL for RESULTS_TIME_BUDGET_NONE. */
const char *results_time_budget_name(enum results_time_budget t);

/* True when both documents hold exactly the same values (doubles compared
 * bit for bit). The timings are left out: they say how long this session's
 * phases took, which is no result (two sessions that measured the same
 * never took the same time); their round trip is checked on the JSON. */
bool results_equal(const struct results *a, const struct results *b);

/* JSON: *out is a heap string ending in a newline. ERR_INTERNAL for values
 * that cannot be written exactly. */
int results_to_json(const struct results *r, char **out, size_t *len, struct err *err);
/* Parses a document; `name` prefixes messages ("report.json: $.seed: ...").
 * ERR_INVALID for anything malformed. */
int results_from_json(const char *data, size_t len, const char *name, struct results **out,
		      struct err *err);
/* Files: atomic write; read refuses files over RESULTS_MAX_FILE_BYTES. */
int results_write_file(const struct results *r, const char *path, struct err *err);
int results_read_file(const char *path, struct results **out, struct err *err);

#endif
