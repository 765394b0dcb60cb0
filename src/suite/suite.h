/*
 * A suite file as a typed model. suite_load reads one YAML file, checks every
 * key, type, range and cross-reference (docs/configuration.md) and returns a
 * `struct suite` whose settings are already layered (defaults → benchmark →
 * command), so that later stages (plan, measure, judge, render) never see
 * YAML, never apply defaults and never re-check anything. Every problem of
 * the file is reported in one `struct suite_diags`; a suite is returned only
 * when there is none.
 *
 * Templates (argv, shell strings, cwd, env values, stdin, hook and build
 * commands) are stored as written, unexpanded: expand them with vars_expand
 * (suite/vars.h) just before a start. Durations are in ns, sizes in bytes,
 * percentages as fractions (0.05 = 5%), budget limits in the metric's
 * canonical unit (common/metric.h). Each model object keeps the suite line
 * and column it came from so that errors at run time can point at it.
 *
 * Everything a suite points at lives in its own arena; suite_free frees it
 * all at once.
 */
#ifndef HIMORIME_SUITE_SUITE_H
#define HIMORIME_SUITE_SUITE_H

#include "common/err.h"
#include "common/metric.h"
#include "common/strbuf.h"
#include "common/types.h"
#include "harness/harness.h" /* enum harness_kind: the names of `harness:` */
#include "suite/arena.h"
#include "suite/params.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits on untrusted suites besides those of yamltree.h. */
#define SUITE_MAX_FILE_BYTES (4 * 1024 * 1024)
#define SUITE_MAX_BENCHMARKS 1000
#define SUITE_MAX_COMMANDS   1000  /* in one file, all benchmarks together */
#define SUITE_MAX_DIAGS	     1000  /* then one "too many problems" line */
#define SUITE_MAX_CASES	     10000 /* benchmarks after expansion, all together */

/* Defaults (docs/configuration.md and docs/comparison.md win over the reference tool's where they
 * differ). */
#define SUITE_DEFAULT_WARMUP	       1
#define SUITE_DEFAULT_MIN_RUNS	       10
#define SUITE_DEFAULT_MAX_RUNS	       100
#define SUITE_COMPARE_MAX_PAIRS	       252 /* comparisons when max_runs is not set */
#define SUITE_DEFAULT_MIN_TIME_NS      (UINT64_C(2) * 1000000000)
#define SUITE_DEFAULT_TIMEOUT_NS       (UINT64_C(60) * 1000000000)
#define SUITE_DEFAULT_HOOK_TIMEOUT_NS  (UINT64_C(300) * 1000000000)
#define SUITE_DEFAULT_BUILD_TIMEOUT_NS (UINT64_C(600) * 1000000000)
#define SUITE_DEFAULT_CONFIDENCE       0.99
#define SUITE_DEFAULT_MIN_SAMPLES      10
/* the tolerances' and max_cv's: common/types.h */
#define SUITE_DEFAULT_EXPONENT_MAX_DIFF 0.2
/* A whole comparison's time budget (docs/comparison.md, "Time budgets"): what
 * a CI job can give its measuring. */
#define SUITE_DEFAULT_MAX_TOTAL_TIME_NS (UINT64_C(20) * 60 * 1000000000)
/* The long run of a benchmark with sizes, its drift check
 * (docs/configuration.md, "Sizes"): this many runs, or `runs` if more,
 * on the `long_run` size and on the largest size whose long run fits in
 * SUITE_LONG_RUN_MAX_NS. */
#define SUITE_LONG_RUN_RUNS   30
#define SUITE_LONG_RUN_MAX_NS (UINT64_C(60) * 1000000000)

/* Where something was written in the suite file (1-based; columns count
 * characters). */
struct suite_pos {
	unsigned line, column;
};

/* One problem: "file:line:column: key.path: message" and an optional hint. */
struct suite_diag {
	const char *file;
	unsigned line, column; /* 0 when the problem has no place (an unreadable file) */
	const char *path;      /* "benchmarks[0].commands.fast.budget.latency.p95"; may be "" */
	const char *message;   /* "expected ..., got ..." and "(via alias ...)" when aliased */
	const char *hint;      /* NULL or one line */
};

struct suite_diags {
	struct suite_diag *v;
	size_t count, alloc;
	size_t files_with_problems;
	struct arena arena; /* owns the strings */
};

void suite_diags_init(struct suite_diags *d);
void suite_diags_release(struct suite_diags *d);

enum exec_kind {
	EXEC_ARGV,  /* argv[0..argc): no shell; a program without '/' is looked up in PATH */
	EXEC_SHELL, /* shell: /bin/sh -c shell; substituted values are shell-quoted */
};

struct env_var {
	const char *name;
	const char *value; /* template */
};

/* A command, hook or build step: what to start and how. */
struct exec {
	enum exec_kind kind;
	const char *const *argv; /* EXEC_ARGV: templates, NULL-terminated */
	size_t argc;
	const char *shell;	   /* EXEC_SHELL: the template */
	const char *cwd;	   /* template; "${root}" when not set */
	const struct env_var *env; /* layered: defaults, benchmark, own; names unique */
	size_t env_count;
	uint64_t timeout_ns;
	struct suite_pos pos; /* of the `command` value */
};

enum output_kind { OUTPUT_DISCARD, OUTPUT_FILE };

struct output {
	enum output_kind kind;
	const char *path; /* OUTPUT_FILE: relative to ${workdir} */
};

enum stdin_kind { STDIN_NONE, STDIN_FILE, STDIN_CONTENT };

struct stdin_spec {
	enum stdin_kind kind;
	const char *value; /* file path template (relative to ${root}) or content template */
};

enum warmup_kind { WARMUP_COUNT, WARMUP_AUTO };

struct warmup {
	enum warmup_kind kind;
	unsigned count; /* WARMUP_COUNT */
};

enum unsupported_policy { UNSUPPORTED_FAIL, UNSUPPORTED_SKIP };

enum work_kind { WORK_NONE, WORK_VALUE, WORK_FILE_SIZE };

/* Declared work per run, for throughput. */
struct work {
	enum work_kind kind;
	double value;	  /* WORK_VALUE, > 0 */
	const char *file; /* WORK_FILE_SIZE: path template */
	const char *unit; /* "operations" (value default), "bytes" (file_size) or as written */
};

/* How instructions are counted: enum counter_backend, common/types.h. */

#define SUITE_DEFAULT_COUNT_RUNS 3 /* counted runs per side to start with */
#define SUITE_MAX_COUNT_RUNS	 9 /* the counts rule's cap */

struct metrics {
	bool cpu, memory;
	bool artifact_size; /* needs `build:`; docs/comparison.md, "Deciding on counts" */
	bool instructions;
	bool allocations;	      /* allocations and allocated_bytes, with valgrind's DHAT */
	enum counter_backend backend; /* instructions */
	unsigned count_runs;	      /* counted runs per side to start with, 1..9 */
	enum unsupported_policy unsupported;
	struct work work;
};

/* Per-metric comparison tolerance. */
struct tolerance {
	enum side_statistic statistic;
	double max_fraction; /* the suite's max_percent as a fraction, 0..10 */
	bool has_min_difference;
	double min_difference; /* ns (latency, cpu_total) or bytes (peak_rss) */
	bool gate;
};

struct regression {
	double confidence; /* 0.5..0.999 */
	unsigned min_samples;
	double max_cv; /* 0 disables the noise gate */
	/* The time its rounds may take in a comparison (docs/comparison.md,
	 * "Time budgets"); --max-time wins. */
	bool has_max_time;
	uint64_t max_time_ns;
	const char *const *commands; /* names to compare; command_count 0 = all */
	size_t command_count;
	struct tolerance latency, cpu_total, peak_rss;
	/* The largest change of a growth exponent (head − base) that is not a
	 * regression (docs/comparison.md, "Growth with input size"). */
	double exponent_max_difference;
	/* Counts (docs/comparison.md, "Deciding on counts"): max_percent and
	 * gate only; the statistic is always the median. */
	struct tolerance artifact_size, instructions, allocations, allocated_bytes;
};

/* An absolute budget: `aggregation(metric) op limit`. */
struct budget {
	enum metric metric;
	struct aggregation aggregation;
	enum bound_op op;
	double limit;	  /* canonical unit: ns, bytes, percent, work units/s */
	const char *text; /* as written: "<= 50ms" */
	struct suite_pos pos;
};

/* A budget on growth with input size: `metric: {exponent: "<= 1.2"}`, the
 * exponent b of cost ≈ a · size^b over a benchmark's sizes. */
struct growth_budget {
	enum metric metric; /* latency, cpu_total or peak_rss */
	enum bound_op op;
	double limit;
	const char *text; /* as written: "<= 1.2" */
	struct suite_pos pos;
};

/* A rule of `harness.benchmarks:` for the benchmarks a filter matches
 * (harness/select.h): their latency tolerance and budgets. */
struct harness_rule {
	const char *filter;
	bool has_tolerance;
	double max_fraction;	      /* of latency, over regression.latency.max_percent */
	const struct budget *budgets; /* latency only, over the command's */
	size_t budget_count;
	struct suite_pos pos;
};

/* `harness:` of a command (docs/configuration.md, "Harnesses"): the
 * command runs an in-process benchmark harness; one of its processes is
 * one run, and every benchmark its output reports is a case of its own. */
struct harness_spec {
	bool present;
	enum harness_kind kind;
	/* A file inside ${workdir} the command writes its output to
	 * (relative, like stdout's), or NULL: its standard output. */
	const char *output;
	/* The metric each benchmark is judged on, its latency: "time" (the
	 * harness's time per iteration), or another time it reports such as
	 * Google Benchmark's "cpu_time". */
	const char *metric;
	/* `select:` (docs/configuration.md, "Selecting harness benchmarks"):
	 * filters (harness/select.h), checked; none: every benchmark. */
	const char *const *select;
	size_t select_count;
	/* `benchmarks:`, in written order: the first rule whose filter
	 * matches a benchmark is its rule. */
	const struct harness_rule *rules;
	size_t rule_count;
	struct suite_pos pos; /* of the `harness` value */
};

struct command {
	const char *name;
	struct exec exec;
	struct output out, err;
	struct harness_spec harness;
	const int *exit_codes; /* statuses counted as success */
	size_t exit_code_count;
	const struct budget *budgets;
	size_t budget_count;
	const struct growth_budget *growth_budgets; /* with sizes only */
	size_t growth_budget_count;
	/* The benchmark's metrics with the command's own `metrics:` laid over:
	 * a command may set the counts only (instructions, allocations,
	 * artifact_size; docs/configuration.md, "Metrics"), so cpu, memory,
	 * unsupported and work are always the benchmark's. */
	struct metrics metrics;
	struct suite_pos pos; /* of the command's name */
};

/*
 * A benchmark with `parameters:` or `sizes:` is expanded by the loader into
 * one benchmark per case (docs/configuration.md, "Parameters and sizes"),
 * named by its label "bench[level=1,size=64k]", its templates with the
 * case's values substituted. Later stages see ordinary benchmarks; these
 * fields say which case one is.
 */
struct benchmark {
	const char *name;		   /* the label of a case: "bench[level=1,mode=compress]" */
	const char *base_name;		   /* the name as written: "bench" */
	const struct params_value *params; /* the case's values in declared order */
	size_t param_count;		   /* 0: not a case */
	bool has_size;			   /* a case of `sizes:` */
	double size;			   /* its size as a count ("64k" is 64000) */
	/* Its size says compare: false: run and sweep measure it, compare and
	 * ci leave it out (docs/configuration.md, "Sizes"). */
	bool no_compare;
	/* Its size is the one `long_run:` names: the drift check runs on it
	 * with at least SUITE_LONG_RUN_RUNS runs (docs/configuration.md, "Sizes"). */
	bool long_run;
	const char *description;
	const char *const *tags;
	size_t tag_count;
	struct stdin_spec stdin_spec;
	bool terminal;
	struct warmup warmup;
	unsigned runs; /* 0 = adaptive */
	unsigned min_runs, max_runs;
	bool max_runs_set; /* comparisons use SUITE_COMPARE_MAX_PAIRS when false */
	uint64_t min_time_ns;
	/* How a comparison pairs its commands' runs (defaults, then the
	 * benchmark; interleaved unless set); the plan puts --schedule over
	 * it. */
	enum schedule schedule;
	struct metrics metrics;
	struct regression regression;
	const struct exec *setup, *prepare_each, *cleanup;
	size_t setup_count, prepare_each_count, cleanup_count;
	const char *baseline; /* NULL: the fastest */
	const struct command *commands;
	size_t command_count;
	struct suite_pos pos;
};

enum report_format {
	REPORT_JSON,
	REPORT_CSV,
	REPORT_MARKDOWN,
	REPORT_GITHUB,
	REPORT_SAMPLES_CSV,
};

struct report_output {
	enum report_format format;
	const char *path;    /* relative to the suite file's directory */
	const char *section; /* markdown only, or NULL */
	struct suite_pos pos;
};

struct tool_version {
	const char *tool;
	const char *const *argv;
	size_t argc;
	struct suite_pos pos;
};

struct suite {
	const char *path; /* as given */
	const char *dir;  /* the suite file's directory, as given ("." for none) */
	const char *name;
	const char *description;
	bool has_build;
	struct exec build;
	/* defaults.regression.max_total_time: the budget of a whole comparison
	 * of this suite's benchmarks (docs/comparison.md, "Time budgets");
	 * --max-total-time wins, SUITE_DEFAULT_MAX_TOTAL_TIME_NS when unset. */
	bool has_max_total_time;
	uint64_t max_total_time_ns;
	const struct benchmark *benchmarks;
	size_t benchmark_count;
	const struct report_output *outputs;
	size_t output_count;
	const struct tool_version *versions;
	size_t version_count;
	/* report.error_conclusion: neutral, not failure, for the check run of
	 * a comparison that failed to run (docs/github-actions.md). */
	bool error_conclusion_neutral;
	struct arena arena;
};

/* Loads and checks one suite file. On success returns 0 and *out (free with
 * suite_free). When the file has problems they are appended to diags (file
 * named as `path`) and the return is ERR_INVALID with *out NULL; err then
 * says how many. Nothing is executed. */
int suite_load(const char *path, struct suite **out, struct suite_diags *diags, struct err *err);
void suite_free(struct suite *s);

/* The rule of c's harness for the benchmark `name` reports, or NULL. */
const struct harness_rule *harness_rule_for(const struct command *c, const char *name);

/* Whether a command measures a metric (latency always; CPU metrics with
 * metrics.cpu; peak_rss with metrics.memory; throughput with declared work;
 * artifact_size with metrics.artifact_size; instructions with
 * metrics.instructions; allocations and allocated_bytes with
 * metrics.allocations), its own settings over its benchmark's. */
bool command_measures(const struct command *c, enum metric m);
/* How a suite turns metric m on, for messages about a metric nothing
 * measures: "set metrics.cpu: true", "set metrics.instructions: true in the
 * command, its benchmark or defaults"; NULL for latency (always measured). */
const char *metric_switch_hint(enum metric m);
/* Whether any command of a benchmark measures a metric: the timed metrics
 * are the same for all of them, a count may be asked by some only. */
bool benchmark_measures(const struct benchmark *b, enum metric m);
/* The tolerance for latency, cpu_total, peak_rss or a count; NULL for other
 * metrics. */
const struct tolerance *regression_tolerance(const struct regression *r, enum metric m);
const char *report_format_name(enum report_format f);
/* A command as written, for lists and reports: argv words joined with shell
 * quoting where a word needs it, or the shell string; variables unexpanded. */
void suite_exec_text(const struct exec *x, struct strbuf *out);

#endif
