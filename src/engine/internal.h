/*
 * What the pieces of the engine share, private to src/engine. runner.c holds
 * the suite and benchmark loops; side.c a side's private directory, hooks,
 * builds, artifacts and version probes; watch.c a build's signs of life; rounds.c one run, warmup,
 * the rounds and the stop rules (plain runs) or looks (comparisons); counted.c the counts decided
 * by the counts rule (artifact sizes); finish.c the statistics, budgets, verdicts and result states
 * written into the document (beside summary.c and geomean.c, which work on the document alone);
 * calibrate.c a calibration's pairs under the other schedule, measured beside.
 */
#ifndef HIMORIME_ENGINE_INTERNAL_H
#define HIMORIME_ENGINE_INTERNAL_H

#include "engine/exec.h"
#include "engine/runner.h"
#include "engine/schedule.h"
#include "harness/harness.h"
#include "judge/counts.h"
#include "judge/judge.h"
#include "measure/counter.h"
#include "measure/measure.h"
#include "results/results.h"
#include "suite/suite.h"
#include "suite/vars.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEAD 0
#define BASE 1

/* A base build kept for the runner's lifetime: the next suite measured
 * against the same tree and root reuses it (side.c). */
struct kept_build {
	char *key; /* tree id, root, suite file and build command */
	char *build_dir, *artifact;
};

/* A comparison's whole time budget (runner_budget_start). */
struct time_budget {
	uint64_t total_ns; /* 0: none */
	uint64_t spent_ns; /* by the benchmarks measured since it started */
	size_t left;	   /* compared benchmarks still to come */
};

struct runner {
	struct runner_options o;
	const struct plan *plan; /* the settings of everything it runs */
	struct hidden_env hidden;
	struct runner_measurer m;
	struct measurer *owned; /* runner_new's real measurer, behind m */
	volatile sig_atomic_t interrupted;
	struct time_budget budget;
	struct kept_build *kept;
	size_t n_kept;
	struct engine_bisect *bisect; /* NULL: comparisons judged as usual */
	/* The two CPUs of duets (measurer_duet_cpus), once the plan has any. */
	bool have_cpus;
	int cpu[2];
	/* The plan's both_schedules with no two CPUs: why duet is not measured
	 * beside (heap), for the calibration to say. */
	char *no_duet;
};

/* One revision's side of a suite or benchmark. */
struct side {
	const char *root;      /* the suite's directory in this tree */
	const char *head_root; /* the same in the working tree */
	char *build_dir;       /* holds ${artifact}; NULL without build */
	char *artifact;
	bool kept_build; /* build_dir is a kept build's: the runner removes it */
	char *priv;	 /* private directory of the benchmark: work/, stdin, stderr files */
	char *workdir;
	char *stdin_path; /* what stdin reopens per run; NULL: /dev/null */
	bool failed;	  /* setup failed: nothing of this side runs */
};

/* One command of a benchmark, on one or both sides. */
struct unit {
	size_t index; /* into benchmark->commands and the results benchmark */
	const struct command *cmd;
	const struct plan_command *pc; /* its settings */
	bool sides[2];		       /* which sides run */
	bool compared;		       /* base and head are paired and judged */
	bool failed;
	bool done; /* compared: every gated metric final */
	struct warmup_auto warm[2];
	uint64_t warmups[2];
	unsigned duets; /* duets run, warmup included: which CPU each side gets next */
	uint64_t measured_ns[2];
	double *floors[2]; /* per run, peak RSS floor */
	double *work[2];   /* per run, measured work */
	size_t n_runs[2], alloc_floors[2], alloc_work[2];
	struct judge_metric_input in[METRIC__COUNT];
	struct comparison cmp[METRIC__COUNT];
	bool judged[METRIC__COUNT];
	struct bisect_entry *bisect; /* judged by the bisect rule (bisect.c) */
	/* A harness command (inprocess.c): the cases its benchmarks became,
	 * made after its first turn, and that turn's outputs until then. */
	struct unit *cases;
	size_t n_cases;
	bool expanded;
	struct harness_output *first[2];
	bool first_warmup;
	uint64_t first_run[2];	   /* their numbers, for messages */
	char *bench;		   /* a case: the benchmark's name in the harness output */
	struct inprocess_case *hc; /* a case: which harness metrics it judges */
	/* calibrate.c: the pairs of the other schedule, measured beside this
	 * one's (NULL: none), and whether the run in progress is one of them. */
	struct calib_shadow *shadow;
	bool to_shadow;
};

/* The backends the measurer chose for one count (counted.c), once for each
 * backend a command asks for (the plan's): the one that counts and its
 * version, or why there is none. */
#define COUNT_BACKENDS (COUNTER_VALGRIND + 1)
struct count_picks {
	bool done[COUNT_BACKENDS];
	struct counter_choice choice[COUNT_BACKENDS];
};

struct bench_run {
	struct runner *r;
	struct results *doc; /* the document its benchmark goes into */
	const struct suite *suite;
	const struct benchmark *b;
	const struct plan_benchmark *pb; /* its settings */
	struct results_benchmark *rb;
	struct side *sides[2];
	bool compare;
	bool in_turn; /* one of several sizes measured in turn: one round a turn */
	struct unit *units;
	size_t n_units;
	struct rng order;
	const struct judge_plan *looks; /* compared: the plan's */
	unsigned next_look;
	/* Time budgets (docs/comparison.md, "Time budgets"), on the runner's
	 * clock (engine_clock_ns): the rounds stop once limit_ns have passed
	 * in its own time, own_ns and what passed since started_ns (less the
	 * counted runs' reserve when the limit is the benchmark's share of the
	 * whole budget), which `limit` names. */
	uint64_t started_ns;
	bool has_limit;
	uint64_t limit_ns;
	enum results_time_budget limit;
	enum results_time_budget ran_out; /* the budget that stopped its rounds, if any */
	uint64_t own_ns;		  /* its time before started_ns, when it has taken turns */
	bool paused;			  /* between two of its turns (budget_pause) */
	bool counts_cut;		  /* the whole budget stopped its counted runs */
	uint64_t judging_ns;		  /* spent in the looks while measuring rounds */
	/* Duets: the earliest start of the first measured one (CLOCK_MONOTONIC
	 * ns), which the runs' recorded starts and ends count from. */
	bool has_origin;
	uint64_t origin_ns;
	/* instructions, chosen before the first run (counted_choose) for each
	 * backend a command asks for: counted by perf during the timed runs,
	 * or by valgrind after them. */
	struct count_picks picks;
};

/* progress.c: the clock of budgets, the phases, and lines for the user */
/* The clock of time budgets: the measurer's, or CLOCK_MONOTONIC. */
uint64_t engine_clock_ns(const struct runner *r);
/* A line for logs without a terminal through the options' look_line ("work:
 * look 2 of 9 ..."), and a warning through the options' warning. */
void engine_log(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void engine_warn(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds the time since `since_ns` (clock_monotonic_ns) to a phase of
 * doc->timings; returns now, the start of the next phase. */
uint64_t engine_phase(struct results *doc, enum results_phase p, uint64_t since_ns);
/* A progress line through the options' callback, if any. */
void engine_progress(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line about a build through the options' build_line, if any. */
void engine_build_line(struct runner *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* watch.c: a build's last line of output while it runs */
struct watch;
/* Starts a thread that every r->o.build_tick_ns hands "<label> running for
 * N s; last output: <line>" to r->o.build_line, the line being the last
 * non-empty one of the newer of the files out and err; NULL (nothing to
 * stop) when the options ask for no such lines or no thread can start. */
struct watch *watch_start(struct runner *r, const char *label, const char *out, const char *err);
/* Stops the thread and waits for it; NULL is fine. */
void watch_stop(struct watch *w);

/* side.c */
void side_vars(const struct side *s, struct vars *v);
const char *side_name(int side); /* "head", "base" */
/* Runs a list of hooks; the first failure is recorded in e with `kind`. */
int side_run_hooks(struct runner *r, const struct exec *hooks, size_t n, const struct side *s,
		   const char *what, enum results_error_kind kind, struct results_error *e);
/* The benchmark's private directory, ${workdir} and stdin of one side. */
int side_open(struct bench_run *br, struct side *s, struct err *err);
/* Runs the cleanup hooks (always, also after an interrupt) and removes the
 * side's private directory. */
void side_cleanup(struct bench_run *br, int side);
/* The build directories, the version probes and the builds of both sides
 * (base may be NULL), ${artifact} shared where the rules allow
 * (docs/comparison.md#one-file-when-the-builds-are-identical). A failure
 * is the suite's error in rs and returns its code. */
int side_build_all(struct runner *r, const struct suite *suite, struct side *sides[2],
		   const struct runner_roots *roots, struct results *doc, struct results_suite *rs,
		   struct err *err);
void side_release_build(struct side *s);
/* Removes the builds the runner kept (runner_free). */
void side_release_kept(struct runner *r);

/* rounds.c */
int rounds_warm_up(struct bench_run *br);
/* One turn of measuring: a round, or a batch of rounds of a command that
 * runs alone. 1 when the stop rule or the looks say stop, 0 when more
 * rounds are wanted, < 0 on an error (ERR_INTERRUPTED). */
int rounds_step(struct bench_run *br);
/* Whether an exit status counts as the command's success. */
bool rounds_exit_ok(const struct command *c, int code);
/* Points the judge's inputs of a compared unit at its samples so far. */
void rounds_point_inputs(struct bench_run *br, struct unit *u);

/* timebudget.c: the time budgets of docs/comparison.md, "Time budgets" */
/* Time left of the whole budget while benchmark br runs; UINT64_MAX
 * without one. */
uint64_t engine_budget_left_ns(const struct bench_run *br);
/* Starts a benchmark's clock and picks the limit of its rounds, in a
 * comparison: its max_time, or its share of the whole budget if smaller. */
void budget_begin(struct bench_run *br);
/* Adds the benchmark's time to what the whole budget has spent. */
void budget_end(struct bench_run *br);
/* While the other sizes of a series take their turns (runner.c), a case's
 * own time stands still: its budgets count only its own turns. */
void budget_pause(struct bench_run *br);
void budget_resume(struct bench_run *br);
/* After a round: whether the rounds' limit is reached (then br->ran_out
 * names it). */
bool budget_rounds_over(struct bench_run *br);
/* " or 150 s" after a cap of pairs, when the rounds have a limit. */
void budget_describe_limit(const struct bench_run *br, struct strbuf *sb);

/* counted.c: the counts of docs/comparison.md, "Deciding on counts" */
/* Chooses how instructions are counted, before the first run: perf when
 * the backend allows it and the counter counts here (docs/comparison.md,
 * "What the engine counts"). counted_release frees the choice. */
void counted_choose(struct bench_run *br);
void counted_release(struct bench_run *br);
/* Whether the unit's instructions are counted by perf in its timed runs. */
bool counted_by_perf(const struct bench_run *br, const struct unit *u);
/* A timed run's count of instructions (counted_by_perf), or the side's
 * metric error when the run has none. */
void counted_add_run(struct bench_run *br, struct unit *u, int side, const struct run_result *res);
/* Measures a unit's counts on each side it ran: artifact sizes. */
void counted_measure(struct bench_run *br, struct unit *u);
/* The untimed phase of counted runs (instructions under valgrind, or with
 * perf the runs the counts rule wants beyond the timed ones), after the
 * timed rounds and before cleanup: 0 or ERR_INTERRUPTED. */
int counted_run(struct bench_run *br);
/* Appends the comparison of each count both sides of unit u measured. */
void counted_compare(const struct bench_run *br, const struct unit *u, struct results_command *rc);
/* The valgrind runs the counted phase will make at least (each count's
 * `runs` per side) and their cost: valgrind's start and `slowdown` times
 * the timed median latency of each command (docs/comparison.md, "Time
 * budgets"); 0 when none is planned. */
uint64_t counted_estimate_ns(const struct bench_run *br, unsigned slowdown, unsigned *runs);

/* runner.c */
/* The judge's inputs of a compared unit's metrics, its first look begun. */
void runner_setup_judging(struct bench_run *br, struct unit *u);

/* inprocess.c: harness commands (docs/configuration.md, "Harnesses") */
/* Whether u runs a harness process (not one of its cases). */
bool inprocess_is(const struct unit *u);
/* Where the engine sends a harness's standard output when the suite does
 * not keep it: a file in the side's private directory. */
char *inprocess_stdout_path(const struct side *s, const struct unit *u);
/* The file a run's output is read from: the harness's own file in
 * ${workdir}, else stdout_path (a heap string, or NULL). */
char *inprocess_output_path(const struct side *s, const struct unit *u, const char *stdout_path);
/* Adds the arguments that pass the suite's select: on to the harness
 * (harness/select.h); 0 for any other unit. */
int inprocess_select(const struct unit *u, struct prepared *p, struct err *err);
/* Removes the last run's output before a run. */
void inprocess_before_run(const char *out_path);
/* A successful run of harness unit u: its output read, parsed and recorded
 * into its cases (or kept until the end of the first turn). */
void inprocess_take(struct bench_run *br, struct unit *u, int side, bool warmup,
		    const struct run_result *res, const char *out_path, const char *stderr_path,
		    const struct prepared *p);
/* After a turn of u: the cases made after the first, a failure of the
 * process handed to each open case, the process done when no case runs. */
void inprocess_after_turn(struct bench_run *br, struct unit *u, bool warmup);
/* A case's metrics before it knows which its benchmark gives: none
 * requested, latency's source the harness. */
void inprocess_describe(const struct command *c, struct results_side *rs);
/* Finishes the cases of u; false when u is no expanded harness unit (then
 * it is finished as any unit). */
bool inprocess_finish(struct bench_run *br, struct unit *u);
/* Removes the rows of the harness processes whose cases stand in them. */
void inprocess_drop_rows(struct bench_run *br);
void inprocess_release(struct unit *u);
/* The comparison of a case's judged metric m as the report shows it: a
 * throughput judged with its sides swapped, turned back; cmp otherwise. */
const struct comparison *inprocess_shown(const struct unit *u, int m, struct comparison *tmp);
/* Appends the comparisons of a case's counts (allocations and bytes per
 * operation), decided by the counts rule on its runs. */
void inprocess_compare_counts(const struct bench_run *br, const struct unit *u,
			      struct results_command *rc);

/* calibrate.c: both schedules in one calibration (the plan's both_schedules) */
/* A compared unit's shadow, when the calibration measures the other
 * schedule beside its benchmark's and the unit can run it. */
void calib_unit_begin(struct bench_run *br, struct unit *u);
/* Whether the shadow's pair goes first in this turn (alternating). */
bool calib_turn_shadow_first(struct unit *u);
enum schedule calib_shadow_schedule(const struct unit *u);
/* A successful measured run of the shadow: its judged metrics' samples. */
void calib_record(struct unit *u, int side, const struct run_result *res);
/* After the unit is finished: its calibration rows with both schedules'
 * half-widths at the same pairs, or why not (a harness command, `terminal:
 * true`, a failure). */
void calib_finish(struct bench_run *br, struct unit *u);
void calib_release(struct unit *u);

/* bisect.c: a search's comparisons, judged by the bisect rule */
/* Before a benchmark's units: the looks of the phase (a recheck's). */
void bisect_bench_begin(struct bench_run *br);
/* After a compared unit's judging is set up: ties it to its command's
 * entry, or marks it done when it takes no part. */
void bisect_unit_begin(struct bench_run *br, struct unit *u);
/* A round's end for a unit tied to an entry: the look when `look`;
 * returns whether the unit is decided. */
bool bisect_look(struct bench_run *br, struct unit *u, bool look);
/* After the rounds and the counted runs: why an entry they left undecided
 * stopped. */
void bisect_finish(struct bench_run *br);
/* Searching a count: whether a counted phase of `metrics` runs for u (in a
 * search, only the searched count's phase, for a command that takes part;
 * outside one, every phase). */
bool bisect_counts_phase(const struct bench_run *br, const struct unit *u,
			 const enum metric *metrics, size_t n);
/* The counted runs per side u starts with: `runs`, or the cap of the counts
 * rule when a step is measured again. */
size_t bisect_count_runs(const struct bench_run *br, const struct unit *u, size_t runs);
/* The bisect rule on counts on a unit's counted runs so far of metric m
 * (its target or its step); returns the runs per side it wants in all
 * before it settles, 0 when settled or when m is not searched. */
unsigned bisect_count(const struct bench_run *br, const struct unit *u, enum metric m,
		      const struct counts_input *in);
void bisect_free(struct runner *r);

/* finish.c */
/* How each metric of command c is measured, and which it does not ask for. */
void finish_describe_metrics(const struct command *c, struct results_side *rs);
/* Statistics, trends, budgets, comparisons and the result state of a unit. */
void finish_unit(struct bench_run *br, struct unit *u);
/* Each command's median latency relative to the fastest and the baseline. */
void finish_relative(struct bench_run *br);

#endif
