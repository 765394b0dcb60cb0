/*
 * The plan: the suites a command measures and the flags it was given,
 * resolved once into every setting the engine, the judge and the commands
 * read (docs/design.md, "The plan"). For each benchmark: the runs and warmup
 * it gets, its schedule (interleaved or duet pairs), the looks of its comparison, one tolerance per
 * compared metric and per count (fractions), min_difference, gate, statistic, max_cv, its time
 * budget; for each command: whether it is compared and how its counts are counted; for the whole
 * command: the comparison's time budget, the spawner, whether any duet runs and the accept-label
 * policy.
 *
 * Precedence is decided here and nowhere else: the command line, then the
 * command, then the benchmark, then the defaults (the suite has already
 * layered defaults, benchmark and command: suite/suite.h). Nothing
 * downstream looks at a flag or at a suite's default again.
 *
 * Pure: the plan runs nothing and prints nothing. Settings that can never
 * give a comparison (runs below min_samples, a last look with no interval)
 * are problems at the suite position of their benchmark, or one problem of
 * the flag that caused them (--runs), for the command to print:
 *
 *     struct plan_flags f = PLAN_FLAGS_INIT;
 *     struct plan_input in = { .suite = suite, .selected = selected, .compared = true };
 *     struct plan_problems problems = PLAN_PROBLEMS_INIT;
 *     f.verb = PLAN_COMPARE;
 *     if (plan_build(&f, &in, 1, &plan, &problems) < 0) print problems.v[0..n);
 *     runner_run_suite(runner, &plan->suites[0], &roots, doc, &err);
 *     plan_free(plan);
 *     plan_problems_release(&problems);
 */
#ifndef HIMORIME_PLAN_PLAN_H
#define HIMORIME_PLAN_PLAN_H

#include "common/metric.h"
#include "judge/judge.h" /* struct judge_plan: the looks */
#include "suite/suite.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The command the plan is for: what it compares and which of its policies
 * apply. */
enum plan_verb {
	PLAN_RUN,
	PLAN_COMPARE,
	PLAN_CALIBRATE, /* head against itself, built twice */
	PLAN_CI,
	PLAN_SWEEP,
	PLAN_BISECT, /* each step at alpha / ceil(log2 N) */
};

/* The label that accepts a known regression when none is given
 * (docs/github-actions.md). */
#define PLAN_DEFAULT_ACCEPT_LABEL "himorime:accept"

/* What the command line said, as parsed and checked by the CLI; has_* and
 * 0 mean "not given". */
struct plan_flags {
	enum plan_verb verb;
	bool has_runs; /* --runs: exact runs (pairs when comparing) */
	unsigned runs;
	bool has_warmup; /* --warmup: warmup rounds */
	unsigned warmup;
	bool has_schedule; /* --schedule */
	enum schedule schedule;
	uint64_t max_time_ns;	    /* --max-time */
	uint64_t max_total_time_ns; /* --max-total-time */
	unsigned candidates;	    /* bisect: the commits searched, N */
	const char *accept_label;   /* ci: --accept-label */
	/* ci: whether the pull request carries a label, asked of the event;
	 * NULL: no event, nothing carries any label. */
	bool (*labelled)(const void *ctx, const char *label);
	const void *labels_ctx;
	/* The spawner found beside himorime (docs/design.md, "Measuring a
	 * run"); NULL: none. */
	const char *spawner;
	/* --filter COMMAND › GLOB (docs/configuration.md, "Selecting harness
	 * benchmarks"): the harness commands whose name COMMAND matches keep
	 * only their benchmarks GLOB matches; NULL: no such filter. Both are
	 * checked filters (harness/select.h). */
	const char *harness_command, *harness_filter;
};

#define PLAN_FLAGS_INIT                                                                            \
	{                                                                                          \
		.verb = PLAN_RUN                                                                   \
	}

/* One command of a benchmark. */
struct plan_command {
	const struct command *c;
	/* Paired against base and judged: its benchmark is compared and its
	 * regression.commands names it (or names none). */
	bool compared;
	/* How its instructions are counted, as asked (auto, perf, valgrind);
	 * which backend counts here is the measurer's to find
	 * (measure/counter.h). Allocations are valgrind's whatever this says. */
	enum counter_backend backend;
	unsigned count_runs; /* counted runs per side to start with */
	/* A harness command that --filter names: the glob its benchmarks must
	 * match besides the suite's select: (harness/select.h); NULL: none. */
	const char *harness_filter;
};

/* One benchmark of a suite, as the command measures it. */
struct plan_benchmark {
	const struct benchmark *b; /* the model: commands, hooks, metrics, budgets */
	bool selected;
	/* Measured on both sides, its commands paired and judged (those that
	 * are compared). */
	bool compared;
	/* A size with compare: false in a comparison: left out, recorded as
	 * not compared (docs/configuration.md, "Sizes"). */
	bool left_out;
	/* How a compared command's base and head runs take turns (common/types.h):
	 * --schedule over the benchmark's over the defaults', interleaved
	 * unless set; a benchmark measured on one side only runs as ever
	 * (SCHEDULE_INTERLEAVED). */
	enum schedule schedule;
	struct warmup warmup; /* --warmup N is N rounds, whatever the suite says */
	/* The stop rule of its runs (engine/schedule.h): runs fixed (--runs
	 * over the benchmark's; 0: adaptive between min_runs and max_runs, for
	 * at least min_time_ns). A comparison's pairs follow the looks. */
	unsigned runs, min_runs, max_runs;
	uint64_t min_time_ns;
	/* A comparison's cap of pairs: max_runs when the suite sets it, else
	 * SUITE_COMPARE_MAX_PAIRS. */
	unsigned max_pairs;
	/* Compared: the looks of docs/comparison.md, at the confidence the
	 * command asks (bisect's per step) or the benchmark's, up to runs
	 * pairs when fixed, else up to max_pairs. */
	struct judge_plan looks;
	/* Bisect: a step that could not be placed is measured once more as
	 * one look at the cap (the last look's pairs), at the same level
	 * (docs/sweeps.md, "himorime bisect"); empty otherwise. */
	struct judge_plan recheck;
	/* Per metric with a tolerance (latency, cpu_total, peak_rss and the
	 * counts): plan_tolerance(). */
	struct tolerance tolerance[METRIC__COUNT];
	bool has_tolerance[METRIC__COUNT];
	double max_cv; /* the noise gate on robust CV; 0: off */
	/* Compared: how long its rounds may take (--max-time over
	 * regression.max_time; docs/comparison.md, "Time budgets"); 0: no
	 * limit of its own. */
	uint64_t max_time_ns;
	struct plan_command *commands; /* one per b->commands[i] */
	size_t n_commands;
};

struct plan_suite {
	const struct suite *suite;
	/* Measured against a base: false for `run` and for a suite new in head
	 * (measured on head only). */
	bool compared;
	struct plan_benchmark *benchmarks; /* one per suite->benchmarks[i] */
	size_t n_benchmarks;
	size_t n_selected;
};

/* Whether accepting a known regression applies, and by which label. */
struct plan_accept {
	const char *label;
	bool applies; /* ci, on a pull request that carries the label */
};

struct plan {
	struct plan_flags flags; /* as given (a sweep's history names them) */
	/* Where commands start: the spawner's path, or NULL when they start
	 * from himorime itself. */
	const char *spawner;
	/* Byte-identical builds of the two sides kept as two files
	 * (calibrate: as a real change has them). */
	bool separate_artifacts;
	/* Some selected benchmark pairs its runs as duets: the measurer must
	 * find two CPUs before anything runs (measure/measure.h). */
	bool duet;
	/* calibrate without --schedule: each compared pair is measured under
	 * both schedules, the benchmark's and the other one beside it, so that
	 * the calibration can say which decides faster here (docs/comparison.md,
	 * "Choosing a schedule"). Duets measured only for this need two CPUs but
	 * do not refuse a machine without them: the calibration says why duet
	 * was not measured. */
	bool both_schedules;
	/* The confidence every comparison is planned at (bisect's per step);
	 * 0: each benchmark's own. */
	double confidence;
	/* The whole comparison's time budget (docs/comparison.md, "Time
	 * budgets"): --max-total-time, else the smallest max_total_time of the
	 * suites with a selected benchmark, else the default; 0 for `run`. It
	 * is shared by budget_benchmarks compared benchmarks (a size with
	 * compare: false is not one of them). */
	uint64_t max_total_time_ns;
	size_t budget_benchmarks;
	struct plan_accept accept;
	struct plan_suite *suites; /* one per input */
	size_t n_suites;
};

/* A suite the plan covers: the suite file measured (the base revision's
 * copy with --suite-from base), its selected benchmarks (NULL: none), and
 * whether it is compared. */
struct plan_input {
	const struct suite *suite;
	const bool *selected;
	bool compared;
};

/* A setting that can never give a comparison, or a schedule that cannot
 * run a benchmark. */
struct plan_problem {
	size_t input; /* the suite's index among the inputs */
	/* The command line's (--runs, --schedule; exit 3) rather than the
	 * suite's (exit 2): text is "--runs 5: ...", without a position. */
	bool flag;
	unsigned line, column; /* of the benchmark in its suite file */
	/* "benchmarks[0]: runs 5 cannot give a 99% confidence interval: it
	 * needs at least 8 pairs", or for a case its label first. */
	char *text;
};

struct plan_problems {
	struct plan_problem *v;
	size_t n;
};

#define PLAN_PROBLEMS_INIT                                                                         \
	{                                                                                          \
		.v = NULL, .n = 0                                                                  \
	}

/* Resolves the plan of n suites. 0 and *out (plan_free); or, with *out
 * NULL, ERR_INVALID after adding every suite problem to problems, or
 * ERR_USAGE after adding the one problem of a flag (with --runs, the runs
 * of every benchmark are the flag's). The plan borrows the suites and the
 * flags' strings: they must outlive it. */
int plan_build(const struct plan_flags *f, const struct plan_input *in, size_t n, struct plan **out,
	       struct plan_problems *problems);
void plan_free(struct plan *p);
void plan_problems_release(struct plan_problems *problems);

/* Whether a command keeps byte-identical builds of the two sides as two
 * files: calibrate, which measures what a real change measures. Asked
 * before the plan is made (which trees to check out), and the plan's
 * separate_artifacts. */
bool plan_separate_artifacts(enum plan_verb verb);

/* The tolerance of metric m in benchmark pb, or NULL when m has none. */
const struct tolerance *plan_tolerance(const struct plan_benchmark *pb, enum metric m);
/* The latency tolerance of the benchmark `bench` that command c's harness
 * reports: pb's, its max_fraction the tolerance of the first rule of
 * harness.benchmarks that matches it (docs/configuration.md,
 * "Harnesses"); false when pb compares no latency. */
bool plan_harness_tolerance(const struct plan_benchmark *pb, const struct command *c,
			    const char *bench, struct tolerance *out);
/* The benchmark of ps named `name` (a case's label), or NULL. */
const struct plan_benchmark *plan_benchmark_named(const struct plan_suite *ps, const char *name);

#endif
