/*
 * The engine that starts and measures one command. It is compiled twice: into
 * the spawner (a tiny static process whose low peak RSS is the measurement
 * floor) and into himorime, which uses it directly only when the spawner
 * cannot start. It uses libc alone and allocates only what a request needs.
 *
 * One run: resolve the program (PATH from the child's environment, or relative
 * to the request's cwd), open the streams, note which signals are not at
 * their default, reset the starter's peak RSS (/proc/self/clear_refs), read
 * CLOCK_MONOTONIC, vfork+execve, wait for the child (pidfd), read the clock at
 * the reap, then check for a cancel, kill and reap whatever the command left
 * behind. Between the two clock reads only what must happen there happens:
 * in the child, the process group, three dup2, closing inherited
 * descriptors, the directory, resetting the signals noted, the signal mask,
 * execve
 * (docs/performance.md). A request's count (run.h) is a perf event opened on
 * the calling process before the clock starts and read after the whole tree
 * is reaped (docs/design.md, "Measuring a run": counting with perf): nothing of it happens
 * between vfork and execve. The calling process is a child subreaper, so orphans
 * come back to it: their CPU is added and their peak folded into the maximum.
 *
 * Interruption: `cancel_fd` carries 4-byte run ids (a cancel names the run it
 * means, so a late cancel cannot hit the next run, and an early one is kept
 * until that run's request arrives); a hang-up on `hangup_fd` (the client's
 * socket) or a `stop_signal` also interrupts and marks the engine `gone`.
 * Runs must be made from one thread, the process's main thread, because
 * orphans are reparented to it.
 *
 * A duet (launch_duet, docs/design.md "Duet runs") starts two commands at
 * once, each alone on its CPU. The side whose CPU is the starter's is the
 * vfork child, as in one run; the other, the twin, is a clone child that
 * shares this memory on its own stack: the starter moves it to its CPU, it
 * takes its own steps there and waits (spinning, then asleep) until the
 * vfork child, right before its execve, says go. The two execve calls are
 * then microseconds apart when both CPUs are free (the skew is measured and
 * returned). Each side's latency runs from its execve to its reap, so that
 * both are timed alike; the starter waits for both unpinned, so that it is
 * woken where a side ends.
 */
#ifndef HIMORIME_SPAWNER_LAUNCH_H
#define HIMORIME_SPAWNER_LAUNCH_H

#include "spawner/run.h"

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Finds the program of req as execvp would, but in the child's PATH (from
 * req->envp; "/bin:/usr/bin" without one) and relative to req->cwd. Returns 0
 * with the path in out (LAUNCH_PATH_CAP bytes), or an errno value. */
#define LAUNCH_PATH_CAP 4096
int launch_resolve_program(const struct run_request *req, char *out);

struct launch {
	int cancel_fd;	 /* non-blocking SOCK_SEQPACKET end; -1: none */
	int hangup_fd;	 /* a socket whose hang-up means "stop everything"; -1: none */
	int stop_signal; /* a signal whose handler sets *stop; 0: none */
	volatile sig_atomic_t *stop;
	uint32_t cancelled_id; /* the latest run id a cancel named */
	/* The running command's process group while it may be killed, else 0:
	 * a signal handler in the same process may kill it directly. */
	volatile sig_atomic_t running_pgid;
	/* In a duet, the other side's process group, likewise. */
	volatile sig_atomic_t running_twin_pgid;
	/* The twin's stack (launch_duet), made at the first duet; NULL: none yet. */
	void *twin_stack;
	bool gone; /* the client went away: stop after this run */
	/* launch_fix_signals was called: the signals every child must reset
	 * are fixed_reset (bit n-1 for signal n), not noted again per run. */
	bool signals_fixed;
	uint64_t fixed_reset;
	/* launch_keep_cpu kept the caller on one CPU: every child gets cpus, the
	 * caller's CPUs before, back right before execve. */
	bool kept_cpu;
	cpu_set_t cpus;
	/* launch_wait_by_signal was called: a run's exit, cancel, hang-up and
	 * stop signal are waited for with one sigtimedwait (except in terminal
	 * mode), not a ppoll over a pidfd and both sockets. */
	bool signal_wait;
};

/* Makes the calling process a child subreaper and remembers the channels.
 * Returns 0, or an errno value when the process cannot be a subreaper. */
int launch_init(struct launch *l, int cancel_fd, int hangup_fd, int stop_signal,
		volatile sig_atomic_t *stop);
/* Runs one command and fills *res; every outcome is a result, never an error.
 * When it returns, nothing the command started is left running. */
void launch_run(struct launch *l, uint32_t run_id, const struct run_request *req,
		struct run_result *res);
/* Runs the request `runs` times back to back (1 to RUN_MAX_BATCH), res[i]
 * for run i, all under run_id: a cancel of it ends the batch. Stops after a
 * run that ends the batch (run_result_ends_batch) or when the client went
 * away. Returns the number of runs made, at least 1. */
unsigned launch_batch(struct launch *l, uint32_t run_id, const struct run_request *req,
		      unsigned runs, struct run_result *res);
/* Runs a duet and fills *res; every outcome is a result, never an error.
 * The request must be valid (measurer_duet checks it): no terminal, two
 * distinct CPUs this process may use. When it returns, nothing either side
 * started is left running. A cancel of run_id stops both sides. */
void launch_duet(struct launch *l, uint32_t run_id, const struct duet_request *req,
		 struct duet_result *res);
/* Frees what the engine keeps between runs (the twin's stack). */
void launch_release(struct launch *l);
/* Reads any pending cancels without blocking (while no run is active). */
void launch_read_cancels(struct launch *l);
/* Kills and reaps every child of the calling process. */
void launch_sweep(void);
/* Sets every signal the calling process ignores back to its default, those
 * the C library reserves included: the spawner does it once at its start,
 * since glibc's posix_spawn leaves signals 32 and 33 ignored in it, so that
 * no run has to reset them inside its measured interval. */
void launch_default_ignored_signals(void);
/* Notes once which signals are not at their default, for every later run,
 * instead of before each run (64 system calls, outside the measured interval
 * but not free). Only for a caller that changes no disposition afterwards:
 * the spawner. */
void launch_fix_signals(struct launch *l);
/* Keeps the calling process on the CPU it runs on, when it may use more
 * than one, and lets every command it starts use all the CPUs it was allowed
 * (one system call in the child before execve). A starter that sleeps
 * between runs (the spawner, woken by himorime for each run) is otherwise
 * woken on either CPU, and its child starts where the scheduler puts it, on
 * a CPU that may have gone idle: on a quiet 2-CPU machine that cost about
 * 0.25 ms a run, against the bare loop's never sleeping between runs
 * (docs/performance.md, "The third process"). Only for the spawner, whose
 * only work is starting commands. */
void launch_keep_cpu(struct launch *l);
/* Waits for every later run by signals: the exit by SIGCHLD, a cancel or
 * the hang-up by SIGIO (O_ASYNC on cancel_fd and hangup_fd), the stop signal
 * by itself. The caller must keep SIGCHLD, SIGIO and the stop signal blocked
 * for good (they stay pending until the wait takes them), must be the only
 * thread, and must not rely on O_ASYNC or the owner of either socket.
 * Returns 0, or an errno value (the ppoll wait stays). */
int launch_wait_by_signal(struct launch *l);
/* The calling process's VmHWM in bytes, or 0 when unreadable. */
uint64_t launch_own_peak_bytes(void);

#endif
