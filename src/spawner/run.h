/*
 * The shapes of one measured run, shared by the spawner (a separate, static,
 * libc-only executable) and its client in himorime. A request says what to
 * start and where its standard streams go; a result says how it ended and
 * what it cost, in canonical units (ns, bytes). Only libc types appear here,
 * because the spawner links nothing else.
 */
#ifndef HIMORIME_SPAWNER_RUN_H
#define HIMORIME_SPAWNER_RUN_H

#include <stdbool.h>
#include <stdint.h>

struct run_request {
	char *const *argv; /* argv[0] is the program; NULL-terminated, at least one entry */
	char *const *envp; /* the child's whole environment, NULL-terminated */
	const char *cwd;   /* NULL: the starter's current directory */
	/* Reopened for every run; NULL: /dev/null. In terminal mode the file's
	 * content is typed on the pseudo-terminal one key at a time. */
	const char *stdin_path;
	/* Truncated for every run, so it keeps the latest run's output; NULL:
	 * discarded. In terminal mode it receives the terminal output. */
	const char *stdout_path;
	/* Truncated for every run; NULL: discarded. The client names a private
	 * file here so that a failing run's last lines can be shown. */
	const char *stderr_path;
	uint64_t timeout_ns; /* 0: none */
	bool terminal;	     /* run on an 80x24 pseudo-terminal */
	/* A perf event to count over the command's whole tree (docs/design.md,
	 * "Measuring a run": counting with perf): count_type and count_config are
	 * perf_event_attr's type and config, e.g. PERF_TYPE_HARDWARE and
	 * PERF_COUNT_HW_INSTRUCTIONS; user space only. */
	bool count;
	uint32_t count_type;
	uint64_t count_config;
};

/* What became of the count a request asked for. */
enum count_status {
	COUNT_NONE,	   /* none was asked for, or the command never started */
	COUNT_OK,	   /* count holds it */
	COUNT_OPEN_FAILED, /* count_error: perf_event_open's errno; the run went ahead */
	COUNT_READ_FAILED, /* count_error: read's errno (0: a short read) */
};

enum run_status {
	RUN_EXITED,	  /* code: the exit status */
	RUN_SIGNALED,	  /* code: the signal number */
	RUN_TIMED_OUT,	  /* the tree was killed at timeout_ns */
	RUN_START_FAILED, /* code: errno; step: which step failed; nothing ran */
	RUN_INTERRUPTED,  /* cancelled, or the client went away */
};

/* The step of starting a command that failed (RUN_START_FAILED). */
enum run_step {
	STEP_NONE,
	STEP_LOOKUP,   /* finding the program (PATH or cwd) */
	STEP_STDIN,    /* opening the stdin file */
	STEP_STDOUT,   /* creating the stdout file */
	STEP_STDERR,   /* creating the stderr file */
	STEP_TERMINAL, /* making the pseudo-terminal */
	STEP_START,    /* creating the process */
	STEP_CHDIR,    /* changing to cwd, in the child */
	STEP_EXEC,     /* execve, in the child */
};

struct run_result {
	enum run_status status;
	int code;
	enum run_step step;
	uint64_t wall_ns; /* CLOCK_MONOTONIC, the start to the reap, less the child's
			   * own steps before execve (docs/design.md); end_ns - start_ns */
	/* The measured interval on CLOCK_MONOTONIC, so that two runs can be
	 * set side by side: start_ns is the clock just before the start moved
	 * on by the child's own steps (in a duet, the child's execve), end_ns
	 * the reap. Both 0 when nothing started. */
	uint64_t start_ns, end_ns;
	uint64_t user_ns;   /* the child, its waited-for descendants and reaped orphans */
	uint64_t system_ns; /* likewise */
	/* The largest single process of the tree (ru_maxrss), in bytes. */
	uint64_t peak_rss_bytes;
	/* The starter's own peak after the run (VmHWM) plus 1 MiB: peak_rss_bytes
	 * at or below it says only that the command's real peak is at most this. */
	uint64_t floor_bytes;
	/* The count of the whole tree (request.count), from the command's exec
	 * to the reap of its last process. When the kernel shared the counter
	 * with other events (count_running_ns < count_enabled_ns), count is
	 * scaled up by enabled / running: an estimate. */
	enum count_status count_status;
	int count_error;
	uint64_t count;
	uint64_t count_enabled_ns, count_running_ns;
};

/* A batch: one request run up to RUN_MAX_BATCH times back to back, with
 * nothing of himorime's between the runs (docs/design.md, "Measuring a
 * run": batches). A batch ends early after a run that did not exit with
 * code 0, so that a failure is always its last run and nothing runs after
 * it; both ends of the protocol apply this one rule. */
#define RUN_MAX_BATCH 64u

/* A duet (docs/design.md, "Duet runs"): two commands started together,
 * side i on CPU cpu[i] alone, each in its own process group, both reaped.
 * Neither side may use a terminal, and the CPUs must differ; the caller
 * alternates them from pair to pair. */
struct duet_request {
	struct run_request side[2];
	int cpu[2];
};

/* Each side's result is its own (CPU time, peak RSS and counts of its own
 * tree; the floor is the starter's, the same for both). A side ends on its
 * own (an exit, a signal) without touching its twin; a timeout of either
 * side, a start failure of either side, or a cancel stops both. A side that
 * was stopped, or never started, because of its twin is RUN_INTERRUPTED
 * with stopped_by_twin set; its twin's result says why. */
struct duet_result {
	struct run_result side[2];
	bool stopped_by_twin[2];
	/* side[1]'s execve less side[0]'s, CLOCK_MONOTONIC ns: how far apart
	 * the two commands started (0 when either did not). */
	int64_t start_skew_ns;
};

static inline bool run_result_ends_batch(const struct run_result *res)
{
	return res->status != RUN_EXITED || res->code != 0;
}

#endif
