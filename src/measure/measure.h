/*
 * Measuring one run of a command as precisely as the machine allows. A
 * measurer starts the spawner (build/himorime-spawner, a tiny static
 * executable) once and sends it one request per run; the spawner resets its
 * own peak RSS, times the run with CLOCK_MONOTONIC from just before the start
 * until the reap (less the child's own steps before execve), and returns the
 * wait4 rusage of the command's tree. Its
 * small size is the peak RSS floor every result reports.
 *
 * When the spawner cannot start, the measurer runs the same engine inside
 * himorime (same primitives), says why through measurer_fallback_reason(),
 * and the floor is himorime's own peak: far higher. himorime then becomes a
 * child subreaper itself, and after each run every child it has is killed
 * and reaped: it must start no other process while a measurer falls back.
 *
 *     struct measurer_options o = MEASURER_OPTIONS_INIT;
 *     o.spawner_path = "/usr/local/bin/himorime-spawner";
 *     measurer_new(&o, &m, &err);
 *     if (measurer_fallback_reason(m)) print it once;
 *     measurer_run(m, &req, 1, &res, &err); as often as needed
 *     measurer_free(m);                    the spawner exits
 *
 * A SIGINT handler may call measurer_cancel(m): the running tree is killed
 * and that run ends as RUN_INTERRUPTED. Runs must come from the main thread.
 *
 * A duet (docs/design.md, "Duet runs") runs base and head at once, each
 * alone on its CPU, so that what disturbs one disturbs the other:
 *
 *     int cpu[2];
 *     measurer_duet_cpus(cpu, &err);       once: refuses a one-CPU machine
 *     struct duet_request d = { .side = { base, head }, .cpu = { cpu[k], cpu[1 - k] } };
 *     measurer_duet(m, &d, &res, &err);    k alternating from pair to pair
 */
#ifndef HIMORIME_MEASURE_MEASURE_H
#define HIMORIME_MEASURE_MEASURE_H

#include "common/err.h"
#include "common/strbuf.h"
#include "spawner/run.h" /* struct run_request, struct run_result */

#include <stdbool.h>

struct measurer;

struct measurer_options {
	const char *spawner_path; /* NULL: no spawner */
	bool use_spawner;	  /* false: measure from himorime itself */
};

#define MEASURER_OPTIONS_INIT                                                                      \
	{                                                                                          \
		.spawner_path = NULL, .use_spawner = true                                          \
	}

/* Starts the spawner, or falls back to measuring in-process (not an error).
 * Fails only when neither works (ERR_EXEC). */
int measurer_new(const struct measurer_options *opts, struct measurer **out, struct err *err);
/* Closes the spawner's socket (it kills anything left and exits) and reaps it. */
void measurer_free(struct measurer *m);

bool measurer_uses_spawner(const struct measurer *m);
/* Why the spawner is not used ("cannot execute \"...\": no such file or
 * directory"), or NULL when it is, or when the options said not to use it. */
const char *measurer_fallback_reason(const struct measurer *m);
/* valgrind's absolute path, found when the measurer started (helper.h), or
 * NULL with *why "valgrind is not available: ...". Counting runs it
 * (counter.h). */
const char *measurer_valgrind(const struct measurer *m, const char **why);

/* Runs one command `runs` times back to back (a batch, 1 to RUN_MAX_BATCH),
 * res[i] for run i, and returns the number of runs made: all of them, or
 * fewer when one ended the batch (run_result_ends_batch: it is the last).
 * Every outcome of the command (exit code, signal, timeout, start failure,
 * interruption) is a result. Errors, negative: a request that cannot be sent
 * (ERR_INVALID: no argv, too large, a batch out of range) and a spawner that
 * stopped answering (ERR_EXEC). req->envp NULL means himorime's own
 * environment; relative paths are taken from himorime's current directory. */
int measurer_run(struct measurer *m, const struct run_request *req, unsigned runs,
		 struct run_result *res, struct err *err);
/* The two CPUs duets should use: the lowest two this process may use
 * (sched_getaffinity), in cpu[0] < cpu[1]. ERR_INVALID on a machine (or
 * under an affinity mask) with one usable CPU: "duet runs need two CPUs,
 * and himorime may use only CPU 0 (its affinity mask): use the interleaved
 * schedule". */
int measurer_duet_cpus(int cpu[2], struct err *err);

/* Runs base and head at once (spawner/run.h: struct duet_request and
 * struct duet_result) and fills *res. Every outcome of either command is a
 * result, as in measurer_run; a side stopped because of its twin is
 * RUN_INTERRUPTED with res->stopped_by_twin[i] (duet_result_describe says
 * why). Errors, negative: ERR_INVALID for a request that cannot be run as a
 * duet (no argv, a terminal, CPUs that are equal or not this process's,
 * both sides writing one stdout or stderr file, too large) and ERR_EXEC for
 * a spawner that stopped answering. Paths and envp as in measurer_run. */
int measurer_duet(struct measurer *m, const struct duet_request *req, struct duet_result *res,
		  struct err *err);

/* Async-signal-safe: stops the run in progress (or the one about to start);
 * in a duet, both sides. */
void measurer_cancel(struct measurer *m);

/* The file the request's program names, found as the start of a run finds
 * it (spawner/launch.h): a heap string, or NULL with no such program. */
char *run_request_program(const struct run_request *req);

/* Describes how a run ended, for messages: "exited with code 3", "killed by
 * signal 9 (SIGKILL)", "timed out", "interrupted", "could not start: cannot
 * execute \"./x\": permission denied". */
void run_result_describe(const struct run_request *req, const struct run_result *res,
			 struct strbuf *out);

/* Describes how side i of a duet ended, as run_result_describe does; a side
 * stopped because of its twin says so: "stopped: the other side timed out
 * after 0.3s". */
void duet_result_describe(const struct duet_request *req, const struct duet_result *res, int i,
			  struct strbuf *out);

/* The last max_lines lines of a captured stream (the stderr file a request
 * named), read from at most its last 64 KiB, for showing why a run failed.
 * A missing file is ERR_EXEC; an empty one gives "". */
int run_output_tail(const char *path, size_t max_lines, struct strbuf *out, struct err *err);

#endif
