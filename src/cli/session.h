/*
 * What the measuring commands (run, compare, calibrate, ci, sweep, bisect)
 * share: the values of their shared flags, the selection of benchmarks, the
 * seed, signal handling, the runner, and writing the report in every
 * requested format. cli_run (commands.c) starts the session with
 * session_start() and hands it to the command, which prepares the trees it
 * measures, creates the runner with session_runner(), measures each suite
 * (runner_run_suite), then ends it with session_finish() or its steps.
 */
#ifndef HIMORIME_CLI_SESSION_H
#define HIMORIME_CLI_SESSION_H

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/opts.h"
#include "cli/select.h"
#include "cli/treelock.h"
#include "engine/runner.h"
#include "plan/plan.h"
#include "results/results.h"

#include <stdbool.h>
#include <stdint.h>

struct session {
	/* flags */
	const char *filter, *seed_text;
	struct cli_output out; /* --format, --output, --section, --summary, --no-color */
	const char *runs_text, *warmup_text, *max_time_text, *max_total_time_text;
	const char *schedule_text;
	struct strlist tags, skip_tags, operands;
	struct strlist leading; /* operands before the PATHs (sweep's REV_RANGE) */
	bool quiet, fail_on_inconclusive, verbose;
	/* derived */
	struct selection sel;
	bool progress_tty;
	struct runner_options ro;
	struct plan_flags flags; /* the command line, for the plan */
	struct plan *plan;	 /* session_plan(): every setting */
	struct runner *runner;
	struct results *doc;
	struct cli_suites suites;
	char *spawner_path;
	const char *cmd;
	uint64_t started_ns; /* CLOCK_MONOTONIC when the session started */
	/* The working trees this session builds in, locked (treelock.h). */
	struct treelock *locks;
	size_t n_locks;
};

/* Without a terminal, how often a running build's last line of output is
 * printed (docs/revisions.md#builds). */
#define SESSION_BUILD_TICK_NS (UINT64_C(30) * 1000000000)

/* Parses argv with the flags of c's row (commands.c): its own into a, the
 * shared ones into s; checks their values, moves the first c->leading
 * operands to s->leading (exit 3 when missing), loads the suites. Returns
 * EXIT_OK, or the exit code after printing why; s can be released either
 * way. */
int session_start(struct session *s, const struct cmd *c, struct cmd_args *a, int argc,
		  char **argv);
/* The benchmarks of suite i that the selection keeps; false when none. */
bool session_selected(const struct session *s, size_t i, bool *selected);
/* The same for any suite (the base revision's copy of one). */
bool session_selected_in(const struct session *s, const struct suite *suite, bool *selected);
/* The selection of every suite (selected[i][k] for benchmark k of suite i);
 * free with session_selection_free. */
bool **session_selection(const struct session *s);
void session_selection_free(bool **selected, size_t n);
/* EXIT_OK, or exit 3 after saying so when nothing is selected. */
int session_select_check(const struct session *s, bool **selected);
/* Resolves the plan (plan/plan.h) of every suite of the session with its
 * selection, compared unless the command is `run` or skip[i] is set (a suite
 * new in head: measured on head only; skip may be NULL). A comparison's
 * looks must give an interval (runs and max_runs at least min_samples,
 * docs/configuration.md): each problem is printed at its suite position and
 * the return is EXIT_CONFIG (a suite's setting) or EXIT_USAGE (--runs);
 * else EXIT_OK and s->plan. */
int session_plan(struct session *s, bool **selected, const bool *skip);
/* The same for suites that differ from the session's (the base revision's
 * copies): input i is shown as the session's suite i, each message ending
 * with where[i] (NULL: nothing). */
int session_plan_inputs(struct session *s, const struct plan_input *in, const char *const *where);
/* After an interrupt: records every suite of the plan from `from` on that
 * has a selected benchmark as never started, so the report lists what did
 * not run. */
void session_not_started(struct session *s, size_t from);
/* Without a terminal on stderr (CI logs) and without --quiet: one line
 * "himorime: <what>, <seconds> s elapsed" on stderr, so a long comparison
 * shows life (docs/comparison.md). Nothing otherwise. */
void session_log(const struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Adds the time since since_ns to phase p of the document's timings and
 * returns now, the start of the next phase (docs/reports.md#timings). */
uint64_t session_phase(struct session *s, enum results_phase p, uint64_t since_ns);
/* Sets the timings' total to the time since the session started. */
void session_timings_total(struct session *s);
/* With --verbose: the phases of the timings on stderr, each with its share
 * of the total, and what himorime itself spent (all but the builds, warmup
 * and rounds). Nothing otherwise. */
void session_print_timings(const struct session *s);
/* Whether suite i has a `build` and a selected benchmark: measuring it
 * builds in its tree. */
bool session_builds(const struct session *s, size_t i, bool **selected);
/* Locks the working tree that holds `dir` (its git working tree, else dir
 * itself) for the rest of the session (docs/revisions.md#builds); a tree
 * locked already is fine. Returns EXIT_OK, also after a warning when no
 * lock file can be made there (a read-only tree); or exit 4 after saying
 * who holds it. */
int session_lock_tree(struct session *s, const char *dir);
/* Starts the time budget of one comparison on the runner (docs/comparison.md,
 * "Time budgets"), as the plan has it. */
void session_budget_start(struct session *s);
/* Creates the runner (once the hidden environment names are known). */
int session_runner(struct session *s, const char *const *hidden, size_t n_hidden);
/* The end of a measuring command, in three steps it calls in order; a
 * command that adds to the document or prints between them (calibrate, ci)
 * calls each, the others session_finish, which calls all three.
 *
 * session_verdicts: clears the progress line, stamps the end, and rolls the
 * verdicts up into the document's summary (the judging phase); returns the
 * exit code they ask for. */
int session_verdicts(struct session *s);
/* Renders and writes every requested output: the report and the suites'
 * report.outputs. EXIT_OK, or exit 4 after saying why. */
int session_write(struct session *s);
/* With --verbose the phases (session_print_timings); then, for a code other
 * than EXIT_OK, the last line with the verdicts' reason. Returns code. */
int session_conclude(struct session *s, int code);
int session_finish(struct session *s);
void session_release(struct session *s);

#endif
