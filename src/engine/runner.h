/*
 * The runner: turns a suite into measurements. For each selected benchmark it
 * builds (once per suite and tree: one build for two sides that are one tree,
 * and a base tree's build kept for the runner's lifetime), runs setup, warms
 * up, measures rounds
 * of every command in a seeded shuffled order (in a comparison each command's
 * turn is a base run and a head run back to back, in coin-flipped order),
 * runs cleanup whatever happened, and records everything in a results
 * document: raw samples, statistics, budgets and, when comparing, the
 * verdicts of the looks in docs/comparison.md, which the judge decides between
 * rounds.
 *
 * The runner never sees git, the network or the token: the CLI materialises
 * revisions and passes their roots (and their tree ids, opaque strings it
 * only compares), and names the environment variables that
 * children must never see.
 *
 * What it runs, and with which settings, is a plan (plan/plan.h): the runner
 * reads nothing of a suite's settings or of the command line but through it.
 *
 *     struct runner_options o = RUNNER_OPTIONS_INIT;
 *     o.seed = seed;
 *     runner_new(&o, plan, &r, &err);
 *     struct runner_roots roots = { .head = head_root, .base = base_root };
 *     runner_run_suite(r, &plan->suites[i], &roots, doc, &err);
 *     outcome = runner_summarize(doc, fail_on_inconclusive);
 *     runner_free(r);
 */
#ifndef HIMORIME_ENGINE_RUNNER_H
#define HIMORIME_ENGINE_RUNNER_H

#include "common/err.h"
#include "common/strbuf.h"
#include "judge/judge.h"
#include "measure/counter.h"
#include "plan/plan.h"
#include "results/results.h"
#include "suite/suite.h"

#include <stdbool.h>
#include <stdint.h>

struct runner;
struct run_request;
struct run_result;
struct duet_request;
struct duet_result;

/*
 * What the engine starts and measures commands with: a seam of three
 * functions and their context. runner_new() wraps measure/'s measurer (the
 * spawner, docs/design.md#measuring-a-run); runner_new_with() takes any
 * other, such as a scripted one that drives the engine without processes.
 */
struct runner_measurer {
	/* Runs one request `runs` times back to back (a batch, 1 to
	 * RUN_MAX_BATCH), res[i] for run i, ending early after a run that
	 * ends the batch (run_result_ends_batch); returns the runs made. Every
	 * outcome of the command (exit code, signal, timeout, start failure,
	 * interruption) is a result; a negative code only when the measurer
	 * itself failed. */
	int (*run)(void *ctx, const struct run_request *req, unsigned runs, struct run_result *res,
		   struct err *err);
	/* Async-signal-safe: the run in progress, or the next one, ends as
	 * RUN_INTERRUPTED. */
	void (*cancel)(void *ctx);
	/* Why commands start from himorime itself rather than the spawner, or
	 * NULL. */
	const char *(*fallback_reason)(const void *ctx);
	void *ctx;
	/* The clock time budgets are read from, in ns (docs/comparison.md,
	 * "Time budgets"); NULL: CLOCK_MONOTONIC. A scripted measurer whose
	 * runs take no real time keeps its own, advanced by its runs. */
	uint64_t (*now_ns)(void *ctx);
	/* Counting (measure/counter.h, whose counter_choose and counter_run
	 * these follow): which backend counts `what` for a command that asks
	 * for `want` (envp: the environment measured commands get), and one
	 * counted run with it. NULL: nothing is counted here, and a count a
	 * suite asks for is unsupported. */
	void (*choose)(void *ctx, enum counter_backend want, enum count_what what,
		       char *const *envp, struct counter_choice *out);
	int (*count)(void *ctx, const struct count_request *req, uint64_t counts[2],
		     struct strbuf *why, struct err *err);
	/* Duet runs (docs/design.md, "Duet runs"; measure/measure.h, whose
	 * measurer_duet_cpus and measurer_duet these follow): the two CPUs
	 * duets use, asked once before a plan with duets measures anything
	 * (a negative code says why there are none), and one duet. NULL: no
	 * duets here, and a plan with duets is refused. */
	int (*duet_cpus)(void *ctx, int cpu[2], struct err *err);
	int (*duet)(void *ctx, const struct duet_request *req, struct duet_result *res,
		    struct err *err);
};

/* What is not a setting (settings are the plan's): the seed, what children
 * must not see, and where the lines the engine has to say go. */
struct runner_options {
	uint64_t seed;
	/* Environment variables no child may see (the token, GIT_DIR, ...). */
	const char *const *hidden_env;
	size_t hidden_env_count;
	/* Progress lines ("startup › fast: run 3 of 10"); NULL: none. */
	void (*progress)(void *ctx, const char *line);
	/* One line per planned look of a comparison, for logs without a
	 * terminal ("work: look 2 of 4 at 24 pairs, cap 120 pairs"); NULL:
	 * none. Both take progress_ctx. */
	void (*look_line)(void *ctx, const char *line);
	void *progress_ctx;
	/* A line when a build starts ("jq: build (head) started") and when it
	 * ends, with its duration ("jq: build (head) finished in 41.2 s"), and
	 * while it runs, every build_tick_ns (0: never), its last line of
	 * output; NULL: none. Takes progress_ctx. The lines while it runs come
	 * from a thread of the engine's own (the build blocks the caller's),
	 * while the caller's thread waits for the build. */
	void (*build_line)(void *ctx, const char *line);
	uint64_t build_tick_ns;
	/* A warning to show whatever the terminal ("work: its counted runs may
	 * not fit the comparison's time budget: ..."); NULL: none. Takes
	 * progress_ctx. */
	void (*warning)(void *ctx, const char *line);
};

#define RUNNER_OPTIONS_INIT                                                                        \
	{                                                                                          \
		.seed = 0                                                                          \
	}

/* A runner of plan p (which it borrows: p must outlive it), measuring with
 * measure/'s measurer: through the spawner when the plan says so. A plan
 * with duets on a machine with one usable CPU is ERR_EXEC, with
 * measurer_duet_cpus's message, before anything runs. */
int runner_new(const struct runner_options *o, const struct plan *p, struct runner **out,
	       struct err *err);
/* A runner that measures with m, which it borrows: m and its context must
 * outlive the runner. */
void runner_new_with(const struct runner_options *o, const struct plan *p,
		     const struct runner_measurer *m, struct runner **out);
void runner_free(struct runner *r);
/*
 * Starts the time budget of one comparison (docs/comparison.md, "Time
 * budgets"): total_ns for the measuring of the `benchmarks` compared
 * benchmarks that follow (builds are not counted), shared as they start:
 * each gets an even share of what is left, so that time one leaves unused
 * goes to the ones after it, and time one overran (a long setup, counted
 * runs) is taken from them. Its rounds stop when its share is spent, its
 * counted runs when the whole is. total_ns 0: no budget (plain runs).
 */
void runner_budget_start(struct runner *r, uint64_t total_ns, size_t benchmarks);
/* Why commands are started from himorime itself rather than the spawner, or
 * NULL. The CLI says it once. */
const char *runner_fallback_reason(const struct runner *r);
/* Async-signal-safe: stops the running command tree; the runner then runs
 * cleanup, records what was measured and returns ERR_INTERRUPTED. */
void runner_interrupt(struct runner *r);
bool runner_interrupted(const struct runner *r);

/* Where a suite is measured: its directory in each side's tree, and what
 * identifies each tree's content. */
struct runner_roots {
	const char *head; /* the suite's directory in the tree measured as head (absolute) */
	const char *base; /* the same in the base revision's tree; NULL for a plain run */
	/* What ${head_root} names on both sides: the suite's directory in the
	 * working tree (docs/configuration.md), or NULL for `head` (sweep and
	 * bisect measure commits, not the working tree). */
	const char *fixture;
	/* The trees' content ids (git tree ids: the engine only compares them),
	 * or NULL when unknown (a working tree with changes). Equal ids build
	 * once and both sides run that one ${artifact}; a base tree this runner
	 * built before (the same id, root and suite build) reuses that build: a
	 * sweep's reference is built once (docs/comparison.md). */
	const char *head_tree, *base_tree;
};

/*
 * Measures the selected benchmarks of suite ps of the runner's plan into a
 * new suite of `doc`, adding the wall time of each phase to doc->timings:
 * head against base when the plan compares the suite (roots->base is then
 * its directory in the base's tree), else head alone.
 * Commands that fail are recorded in the document, not returned as errors:
 * the return is 0, or ERR_INTERRUPTED, or ERR_EXEC for a failure of himorime
 * itself (no spawner and no fallback, a temporary directory that cannot be
 * made, duets planned and no two CPUs for them).
 */
int runner_run_suite(struct runner *r, const struct plan_suite *ps,
		     const struct runner_roots *roots, struct results *doc, struct err *err);

/* Adds suite ps to doc with every selected benchmark never started: the run
 * was interrupted before the suite's turn. */
void runner_not_started(const struct plan_suite *ps, struct results *doc);

/* Fills the last suite's geometric mean: head/base latency ratios when
 * comparing, else medians relative to the baseline or the fastest. */
void runner_geometric_mean(struct results_suite *s, bool compare);
/* Fills the last suite's growth with input size: a power law per series of
 * cases that differ only in their size, per command and metric, for head
 * (and base when comparing), judged against the commands' exponent budgets
 * and, comparing, base's exponent; a broken budget or a regression is the
 * result of the command at the largest size. */
void runner_growth(struct results_suite *s, const struct suite *suite, bool compare);
/* Names the long runs of the last suite's series of sizes, their drift
 * check (engine/longrun.c): the size `long_run` declares, and the largest
 * whose long run fit in 60 s at the runs the plan gives each case. */
void runner_long_run(struct results_suite *s, const struct plan_suite *ps);
/* The suite's benchmark a case of the document came from, by its name. */
const struct benchmark *runner_model_of(const struct suite *suite, const char *name);
/* The key of a case's series of sizes (the cases that differ only in
 * their size): its label without its size, "scan[mode=a]" (heap). */
char *runner_series_key(const char *base_name, const struct params_value *params, size_t n);
/* Calls visit once per series of sizes of the last suite: its key, and its
 * cases' indices in s->benchmarks, in order. */
typedef void (*runner_series_fn)(struct results_suite *s, const char *key, const size_t *members,
				 size_t n, const void *ctx);
void runner_each_series(struct results_suite *s, runner_series_fn visit, const void *ctx);
/* Records the last suite as new in head: measured on head only and judged
 * like a run, with RESULT_NEW_SUITE where a run would say pass. */
void runner_mark_new_in_head(struct results *doc);

/* What a document's runs came to, worst last: the CLI turns it into the
 * process's exit status (README.md, "Exit codes"). */
enum runner_outcome {
	OUTCOME_OK,
	OUTCOME_FAILED,	       /* a budget broken, a gated regression, or inconclusive
				* with fail_on_inconclusive */
	OUTCOME_METRIC_FAILED, /* a metric could not be measured */
	OUTCOME_NOT_RUN,       /* something could not run, or the run was interrupted */
};

/* What the commands report, decided by the judge (verdicts.c). */
/* A pull request labelled to accept a known regression (the plan's accept
 * policy, docs/github-actions.md): its regressions are still reported,
 * marked accepted, and no longer fail the job; commands, benchmarks and
 * suites tell the same story. */
void runner_accept_regressions(struct results *doc);
/* The worst result of every suite: the verdict a CI step reports. */
enum result_state runner_worst_result(const struct results *doc);

/* ---- bisect (docs/sweeps.md, "himorime bisect") ----
 *
 * The comparisons of a search are judged by the bisect rule
 * (judge/bisect.h) on one metric, not by the tolerance: first bad against
 * good, each command's change to locate; then each candidate against good,
 * placed nearer good or nearer bad at the plan's looks; a candidate not
 * placed is measured again as one look at the cap (the plan's recheck). A
 * compared command stops at the look that decides it; one whose change
 * could not be located is not measured in the steps (it takes no part).
 *
 *     runner_bisect(r, metric, RUNNER_BISECT_TARGET);
 *     runner_run_suite(r, ps, <base: good, head: bad>, doc, &err);
 *     if (runner_bisect_outcome(r, doc, &v, &n) != STEP_BAD) <nothing to locate>;
 *     runner_bisect(r, metric, RUNNER_BISECT_STEP);
 *     runner_run_suite(r, ps, <base: good, head: the candidate>, doc2, &err);
 *     switch (runner_bisect_outcome(r, doc2, &v, &n)) ...
 */
enum runner_bisect_phase {
	RUNNER_BISECT_TARGET,  /* bad against good: each command's change to locate */
	RUNNER_BISECT_STEP,    /* a candidate against good, at the plan's looks */
	RUNNER_BISECT_RECHECK, /* the same candidate again, one look at the cap */
};

/* Judges the comparisons that follow by the bisect rule on metric m, in
 * this phase (the changes located in the last TARGET phase stand). */
void runner_bisect(struct runner *r, enum metric m, enum runner_bisect_phase phase);

/* What a compared command's measurement of the metric says. */
enum runner_bisect_state {
	RUNNER_BISECT_NONE,	   /* no measurement: f.kind says why */
	RUNNER_BISECT_LOCATED,	   /* target: its change to locate */
	RUNNER_BISECT_NOT_LOCATED, /* target: none (reason) */
	RUNNER_BISECT_GOOD,	   /* step: nearer good */
	RUNNER_BISECT_BAD,	   /* step: nearer bad */
	RUNNER_BISECT_UNPLACED,	   /* step: not placed (reason) */
	RUNNER_BISECT_NO_PART,	   /* step: its change was not located (STEP_NOT_COMPARED,
				    * with the target's figures) */
};

/* One thing a comparison of the search says: a suite, benchmark or command
 * that failed, a command that does not compare the metric (f.kind, names
 * and message as in struct step_finding; f.cmp is NULL), or a compared
 * command's measurement (STEP_COMPARED). Percentages of the metric,
 * head / base - 1. */
struct runner_bisect_finding {
	struct step_finding f;
	enum runner_bisect_state state;
	bool has_estimate, has_interval; /* no estimate: no look was made */
	/* Decided by the counts rule (a count searched): pairs are the runs
	 * per side, and no confidence applies (exact). */
	bool counts;
	/* STEP_COMMAND_FAILED: only a metric could not be measured there (a
	 * count unsupported, its runs failed: exit 6). */
	bool metric_error;
	unsigned pairs; /* of the deciding (or last) look */
	double confidence;
	double change_percent, ci_low_percent, ci_high_percent;
	double midpoint_percent; /* half the change to locate, on the log scale */
	const char *reason;	 /* why not located or placed; "" otherwise */
};

/* What doc, measured in the runner's bisect phase, says (*v, free()d by the
 * caller, pointing into doc and the runner until its next runner_bisect())
 * and its outcome (judge_bisect_outcome): in the TARGET phase STEP_BAD when
 * a change is located, STEP_UNPLACED when none is; in a step the
 * candidate's. */
enum step_outcome runner_bisect_outcome(const struct runner *r, const struct results *doc,
					struct runner_bisect_finding **v, size_t *n);
/* Records that doc is a calibration of plan p (docs/reports.md), with the
 * smallest slowdown each compared metric could show at its benchmark's cap
 * of pairs. */
void runner_calibration(struct results *doc, const struct plan *p);

/* Counts results into doc->summary and returns the worst outcome. The exit
 * code in the summary is the CLI's to set. */
enum runner_outcome runner_summarize(struct results *doc, bool fail_on_inconclusive);
/* One line saying why a non-zero exit happened ("1 regression", "2 commands
 * failed"), for the CLI's last line. */
void runner_exit_reason(const struct results *doc, struct strbuf *out);

#endif
