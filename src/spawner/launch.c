/*
 * The engine of one measured run: see launch.h. Everything the child does
 * between vfork and execve is async-signal-safe and allocates nothing; it
 * reports a failed step through memory it shares with the parent until exec.
 */
#include "spawner/launch.h"
#include "spawner/files.h"
#include "spawner/terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/banned.h"

#define MIB		   (1024u * 1024u)
#define PATH_CAP	   LAUNCH_PATH_CAP
#define EXIT_POLL_NS	   200000 /* without pidfds: how often the exit is checked */
#define DEFAULT_CHILD_PATH "/bin:/usr/bin"
#define ARRAY_LEN(a)	   (sizeof(a) / sizeof((a)[0]))
#define KERNEL_SIGNALS	   64 /* signals 1..64, the kernel's sigset on Linux */

/* What the child needs, prepared by the parent before vfork. */
struct child_plan {
	const char *path;
	char *const *argv;
	char *const *envp;
	const char *cwd;
	int fd[3]; /* the child's stdin, stdout, stderr; all >= 3 */
	bool terminal;
	/* Bit n-1: signal n's disposition is not the default here (a handler,
	 * or ignored). The child resets only these, one system call each,
	 * instead of every signal inside the measured interval. */
	uint64_t reset;
	/* The CPUs the command may use, when the starter keeps itself on one
	 * (launch_keep_cpu); NULL: the command inherits the starter's. */
	const cpu_set_t *cpus;
	/* In a duet, the vfork child's word to its twin (GO right before its
	 * execve); NULL in one run. */
	struct go_word *go;
};

/* The kernel's sigaction, used directly because the C library's refuses the
 * signals it reserves for itself (32 and 33 with glibc), which its
 * posix_spawn leaves ignored in the spawner: every command would inherit
 * them ignored. Only the handler is read and an all-zero action written, so
 * the layout of the rest (which varies between architectures) does not
 * matter. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

/* Written by the vfork child in memory it shares with the parent until
 * execve: a failed step, and the clock when the child began and when it
 * called execve. The time between is himorime's own preparation (process
 * group, streams, signals, CPUs), which the parent takes out of the run's
 * latency: the interval keeps the process's creation, its execve and the
 * rest of its life (docs/design.md, "Measuring a run"). */
struct child_report {
	int step;
	int error;
	uint64_t began_ns, exec_ns;
	uint64_t spin_cpu_ns; /* a duet's twin: the CPU it spun for its go */
};

/* A duet's go word (struct child_plan): the twin waits while it is GO_WAIT,
 * spinning at first, then asleep on it (sleeping set), so that a long wait
 * does not use up its turn on its CPU. Whoever changes it wakes a sleeper. */
enum go_state { GO_WAIT, GO_GO, GO_ABORT };

struct go_word {
	int go;	      /* enum go_state */
	int sleeping; /* the twin may be asleep on go */
};

/* Async-signal-safe: the vfork child says go with it right before its
 * execve. Both sides use sequentially consistent order, so that either the
 * twin sees the new word before it sleeps or this sees it asleep. */
static void go_say(struct go_word *w, int go)
{
	__atomic_store_n(&w->go, go, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&w->sleeping, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &w->go, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* CPU and peak of every process reaped for one run. */
struct tally {
	uint64_t user_ns, system_ns, maxrss_bytes;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void tally_add(struct tally *t, const struct rusage *ru)
{
	uint64_t rss = (uint64_t)ru->ru_maxrss * 1024u;

	t->user_ns += (uint64_t)ru->ru_utime.tv_sec * 1000000000u +
		      (uint64_t)ru->ru_utime.tv_usec * 1000u;
	t->system_ns += (uint64_t)ru->ru_stime.tv_sec * 1000000000u +
			(uint64_t)ru->ru_stime.tv_usec * 1000u;
	if (rss > t->maxrss_bytes)
		t->maxrss_bytes = rss;
}

static pid_t reap(pid_t pid, int *status, struct tally *t)
{
	struct rusage ru;
	pid_t r;

	do {
		r = wait4(pid, status, __WALL, &ru);
	} while (r < 0 && errno == EINTR);
	if (r > 0 && t)
		tally_add(t, &ru);
	return r;
}

uint64_t launch_own_peak_bytes(void)
{
	char buf[4096];
	const char *p;
	unsigned long long kib;

	if (files_read_small("/proc/self/status", buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "\nVmHWM:");
	if (!p)
		return 0;
	kib = strtoull(p + 7, NULL, 10);
	return (uint64_t)kib * 1024u;
}

/* Resets this process's VmHWM to its current RSS, so that a child started
 * now inherits the current size and not the largest this process ever was. */
static void reset_own_peak(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "5", 1) < 0) {
		/* an old kernel: the floor is then the lifetime peak, still correct */
	}
	close(fd);
}

static size_t list_children(pid_t *pids, size_t cap)
{
	char path[64];
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)pid);
	n = files_read_children(path, pids, 0, cap);
	if (tid != pid) {
		snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)tid);
		n = files_read_children(path, pids, n, cap);
	}
	return n;
}

/* Kills every child of this process, reaps them, and repeats for those
 * reparented to it meanwhile, until none is left. */
static void sweep(struct tally *t)
{
	pid_t pids[1024];
	size_t n, i;

	for (;;) {
		n = list_children(pids, ARRAY_LEN(pids));
		if (!n)
			return;
		for (i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
		for (i = 0; i < n; i++) {
			int status;
			reap(pids[i], &status, t);
		}
	}
}

void launch_sweep(void)
{
	sweep(NULL);
}

int launch_init(struct launch *l, int cancel_fd, int hangup_fd, int stop_signal,
		volatile sig_atomic_t *stop)
{
	memset(l, 0, sizeof(*l));
	l->cancel_fd = cancel_fd;
	l->hangup_fd = hangup_fd;
	l->stop_signal = stop_signal;
	l->stop = stop;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return errno;
	return 0;
}

int launch_wait_by_signal(struct launch *l)
{
	int fds[2] = { l->cancel_fd, l->hangup_fd }, i, flags;

	for (i = 0; i < 2; i++) {
		if (fds[i] < 0)
			continue;
		flags = fcntl(fds[i], F_GETFL);
		if (flags < 0 || fcntl(fds[i], F_SETOWN, getpid()) < 0 ||
		    fcntl(fds[i], F_SETFL, flags | O_ASYNC) < 0)
			return errno;
	}
	l->signal_wait = true;
	return 0;
}

/* The signals the signal wait takes: the exit, the sockets, the stop. */
static void wait_signals(const struct launch *l, sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGIO);
	if (l->stop_signal)
		sigaddset(set, l->stop_signal);
}

/* Takes the signals that came while no run waited: an earlier run's
 * descendants, the request that started this run. Whatever they announced
 * is read after this, so none is lost. */
static void drain_signals(const struct launch *l)
{
	const struct timespec zero = { .tv_sec = 0, .tv_nsec = 0 };
	sigset_t set;
	int sig;

	wait_signals(l, &set);
	if (l->stop_signal)
		sigdelset(&set, l->stop_signal);
	do {
		sig = sigtimedwait(&set, NULL, &zero);
	} while (sig > 0 || (sig < 0 && errno == EINTR));
}

/* Returns true when a cancel named run_id. */
static bool read_cancels(struct launch *l, uint32_t run_id)
{
	uint32_t ids[64];
	ssize_t n;
	size_t i;
	bool hit = false;

	if (l->cancel_fd < 0)
		return false;
	for (;;) {
		n = read(l->cancel_fd, ids, sizeof(ids));
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			l->gone = true; /* the peer closed: the client is gone */
			return true;
		}
		if (n < 0)
			return hit;
		for (i = 0; i < (size_t)n / sizeof(ids[0]); i++) {
			if ((int32_t)(ids[i] - l->cancelled_id) > 0)
				l->cancelled_id = ids[i];
			if (ids[i] == run_id)
				hit = true;
		}
	}
}

void launch_read_cancels(struct launch *l)
{
	read_cancels(l, 0);
}

static const char *env_get(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

/* out = [cwd/]dir/name, with the cwd only for a relative dir. */
static int join_path(char *out, const char *cwd, const char *dir, size_t dir_len, const char *name)
{
	int n;

	if (dir_len == 0) {
		dir = ".";
		dir_len = 1;
	}
	if (dir[0] != '/' && cwd)
		n = snprintf(out, PATH_CAP, "%s/%.*s/%s", cwd, (int)dir_len, dir, name);
	else
		n = snprintf(out, PATH_CAP, "%.*s/%s", (int)dir_len, dir, name);
	return n < 0 || n >= PATH_CAP ? ENAMETOOLONG : 0;
}

int launch_resolve_program(const struct run_request *req, char *out)
{
	const char *prog = req->argv[0];
	const char *path, *p, *colon;
	int found_error = ENOENT;
	struct stat st;

	if (!prog[0])
		return ENOENT;
	if (strchr(prog, '/')) {
		int n = prog[0] == '/' || !req->cwd
				? snprintf(out, PATH_CAP, "%s", prog)
				: snprintf(out, PATH_CAP, "%s/%s", req->cwd, prog);
		return n < 0 || n >= PATH_CAP ? ENAMETOOLONG : 0;
	}
	path = env_get(req->envp, "PATH");
	if (!path)
		path = DEFAULT_CHILD_PATH;
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		if (!join_path(out, req->cwd, p, (size_t)(colon - p), prog) && !stat(out, &st) &&
		    S_ISREG(st.st_mode)) {
			if (!access(out, X_OK))
				return 0;
			found_error = EACCES;
		}
		if (!*colon)
			return found_error;
	}
}

/* Sets the signals in set to their default; async-signal-safe. */
static void default_signals(uint64_t set)
{
	struct kernel_sigaction dfl = {
		.handler = SIG_DFL, .flags = 0, .restorer = NULL, .mask = 0
	};
	int i;

	for (i = 1; i <= KERNEL_SIGNALS; i++)
		if (set >> (i - 1) & 1)
			syscall(SYS_rt_sigaction, i, &dfl, NULL, sizeof(dfl.mask));
}

static int child_failed(volatile struct child_report *rep, int step)
{
	rep->error = errno;
	rep->step = step;
	return step;
}

static __attribute__((noreturn)) void child_fail(volatile struct child_report *rep, int step)
{
	child_failed(rep, step);
	_exit(127);
}

/* The command's own steps up to its execve, in a child that shares the
 * starter's memory (the vfork child, a duet's twin): async-signal-safe
 * only. Returns STEP_NONE, or the step that failed (in rep with errno). */
static int child_steps(const struct child_plan *plan, volatile struct child_report *rep)
{
	sigset_t none;
	int i;

	if (plan->terminal) {
		if (setsid() < 0 || ioctl(plan->fd[0], TIOCSCTTY, 0) < 0)
			return child_failed(rep, STEP_TERMINAL);
	} else {
		setpgid(0, 0);
	}
	for (i = 0; i < 3; i++)
		if (dup2(plan->fd[i], i) < 0)
			return child_failed(rep, STEP_START);
	syscall(SYS_close_range, 3u, ~0u, 0u);
	if (plan->cwd && chdir(plan->cwd) < 0)
		return child_failed(rep, STEP_CHDIR);
	default_signals(plan->reset);
	if (plan->cpus)
		sched_setaffinity(0, sizeof(*plan->cpus), plan->cpus);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	return STEP_NONE;
}

/* In the vfork child: its steps, then execve. In a duet it tells the twin
 * to go last, so that the two execve calls are as close as they can be. */
static __attribute__((noreturn)) void child_exec(const struct child_plan *plan,
						 volatile struct child_report *rep)
{
	rep->began_ns = now_ns();
	if (child_steps(plan, rep) != STEP_NONE)
		_exit(127);
	rep->exec_ns = now_ns();
	if (plan->go)
		go_say(plan->go, GO_GO);
	execve(plan->path, plan->argv, plan->envp);
	child_fail(rep, STEP_EXEC);
}

/* vfork in a function of its own, so that no local of the caller can be
 * clobbered while the child borrows the stack. */
static pid_t start_child(const struct child_plan *plan, volatile struct child_report *rep)
{
	pid_t pid = vfork();

	if (pid == 0)
		child_exec(plan, rep);
	return pid;
}

/* The signals (bit n-1 for signal n) whose disposition is not the default:
 * those ignored, and unless ignored_only also those with a handler. */
static uint64_t signals_not_default(bool ignored_only)
{
	struct kernel_sigaction sa;
	uint64_t set = 0;
	int i;

	for (i = 1; i <= KERNEL_SIGNALS; i++)
		if (syscall(SYS_rt_sigaction, i, NULL, &sa, sizeof(sa.mask)) == 0 &&
		    (ignored_only ? sa.handler == SIG_IGN : sa.handler != SIG_DFL))
			set |= (uint64_t)1 << (i - 1);
	return set;
}

void launch_default_ignored_signals(void)
{
	default_signals(signals_not_default(true));
}

void launch_fix_signals(struct launch *l)
{
	l->fixed_reset = signals_not_default(false);
	l->signals_fixed = true;
}

void launch_keep_cpu(struct launch *l)
{
	cpu_set_t here;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(l->cpus), &l->cpus) != 0 ||
	    CPU_COUNT(&l->cpus) < 2 || !CPU_ISSET(cpu, &l->cpus))
		return;
	CPU_ZERO(&here);
	CPU_SET(cpu, &here);
	l->kept_cpu = sched_setaffinity(0, sizeof(here), &here) == 0;
}

static void start_failed(struct run_result *res, int step, int error)
{
	res->status = RUN_START_FAILED;
	res->step = step;
	res->code = error;
}

enum wait_outcome { WAIT_EXITED, WAIT_TIMED_OUT, WAIT_INTERRUPTED };

/* The commands a wait watches: one in a run, two in a duet. A root of 0 is
 * not watched (a duet's side that has ended); pidfd -1: none (Linux before
 * 5.3, or the signal wait). At an exit, which says whose. */
struct watch {
	size_t n;
	pid_t pid[2];
	int pidfd[2];
	size_t which;
};

/* Without pidfds (Linux before 5.3): whether the child is waitable yet. */
static bool exited(pid_t pid)
{
	siginfo_t si;

	si.si_pid = 0;
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Whether a watched root without a pidfd (or any, with all) has exited. */
static bool watch_exited(struct watch *w, bool all)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->pid[i] > 0 && (all || w->pidfd[i] < 0) && exited(w->pid[i])) {
			w->which = i;
			return true;
		}
	return false;
}

static bool watch_polls(const struct watch *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->pid[i] > 0 && w->pidfd[i] < 0)
			return true;
	return false;
}

/* Waits for a watched exit, a timeout, a cancel or the client's going
 * away, typing keys meanwhile in terminal mode. At the exit it returns at
 * once: the reap and the clock come first, the check for a cancel that came
 * with the exit after them (see launch_run). */
static enum wait_outcome wait_child(struct launch *l, uint32_t run_id, struct watch *w,
				    uint64_t deadline_ns, struct typist *ty,
				    const sigset_t *poll_mask)
{
	struct pollfd pfd[5];
	struct timespec ts, *tsp;
	uint64_t now, left;
	bool polls = watch_polls(w);
	size_t i;
	int n;

	for (;;) {
		if (l->stop && *l->stop) {
			l->gone = true;
			return WAIT_INTERRUPTED;
		}
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = l->cancel_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = l->hangup_fd, .events = POLLRDHUP };
		if (ty)
			pfd[n++] = (struct pollfd){ .fd = ty->master, .events = POLLIN };
		for (i = 0; i < w->n; i++)
			pfd[n++] = (struct pollfd){ .fd = w->pid[i] > 0 ? w->pidfd[i] : -1,
						    .events = POLLIN };
		if (polls && watch_exited(w, false))
			return WAIT_EXITED;
		tsp = NULL;
		if (deadline_ns || (ty && ty->pos < ty->len) || polls) {
			now = now_ns();
			if (deadline_ns && now >= deadline_ns)
				return WAIT_TIMED_OUT;
			left = deadline_ns ? deadline_ns - now : UINT64_MAX;
			if (ty && ty->pos < ty->len && left > TERMINAL_KEY_POLL_NS)
				left = TERMINAL_KEY_POLL_NS;
			if (polls && left > EXIT_POLL_NS)
				left = EXIT_POLL_NS;
			ts.tv_sec = (time_t)(left / 1000000000u);
			ts.tv_nsec = (long)(left % 1000000000u);
			tsp = &ts;
		}
		if (ppoll(pfd, (nfds_t)n, tsp, poll_mask) < 0) {
			if (errno == EINTR)
				continue;
			return WAIT_INTERRUPTED;
		}
		for (i = 0; i < w->n; i++)
			if (pfd[(size_t)n - w->n + i].revents &&
			    pfd[(size_t)n - w->n + i].fd >= 0) {
				w->which = i;
				return WAIT_EXITED;
			}
		if (pfd[0].revents && read_cancels(l, run_id))
			return WAIT_INTERRUPTED;
		if (pfd[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
			l->gone = true;
			return WAIT_INTERRUPTED;
		}
		if (ty) {
			terminal_drain(ty);
			terminal_type_key(ty, w->pid[0]);
		}
	}
}

/* Whether the client hung up (without blocking). */
static bool hung_up(const struct launch *l)
{
	struct pollfd pfd = { .fd = l->hangup_fd, .events = POLLRDHUP };

	return l->hangup_fd >= 0 && poll(&pfd, 1, 0) > 0 &&
	       (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* The same wait as wait_child, by signals (launch_wait_by_signal): one
 * system call sleeps until the exit, as a bare wait4 does, where a ppoll
 * over three descriptors cost the measured interval about 10 µs more
 * (docs/performance.md, "The child's own steps, the wait and the idle
 * CPU"). Every signal it takes was blocked, so one that came before the
 * call is pending, never missed. */
static enum wait_outcome wait_by_signal(struct launch *l, uint32_t run_id, struct watch *w,
					uint64_t deadline_ns)
{
	struct timespec ts, *tsp;
	sigset_t set;
	uint64_t now;
	int sig;

	wait_signals(l, &set);
	for (;;) {
		if (l->stop && *l->stop) {
			l->gone = true;
			return WAIT_INTERRUPTED;
		}
		tsp = NULL;
		if (deadline_ns) {
			now = now_ns();
			if (now >= deadline_ns)
				return WAIT_TIMED_OUT;
			ts.tv_sec = (time_t)((deadline_ns - now) / 1000000000u);
			ts.tv_nsec = (long)((deadline_ns - now) % 1000000000u);
			tsp = &ts;
		}
		sig = sigtimedwait(&set, NULL, tsp);
		if (sig == SIGCHLD) {
			if (watch_exited(w, true))
				return WAIT_EXITED;
		} else if (sig == SIGIO) {
			if (read_cancels(l, run_id))
				return WAIT_INTERRUPTED;
			if (hung_up(l)) {
				l->gone = true;
				return WAIT_INTERRUPTED;
			}
		} else if (sig > 0) { /* the stop signal, taken before its handler ran */
			l->gone = true;
			return WAIT_INTERRUPTED;
		} else if (errno != EAGAIN && errno != EINTR) {
			return WAIT_INTERRUPTED;
		}
	}
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void finish_status(struct run_result *res, enum wait_outcome outcome, int status)
{
	switch (outcome) {
	case WAIT_TIMED_OUT:
		res->status = RUN_TIMED_OUT;
		return;
	case WAIT_INTERRUPTED:
		res->status = RUN_INTERRUPTED;
		return;
	case WAIT_EXITED:
		break;
	}
	if (WIFSIGNALED(status)) {
		res->status = RUN_SIGNALED;
		res->code = WTERMSIG(status);
	} else {
		res->status = RUN_EXITED;
		res->code = WEXITSTATUS(status);
	}
}

/* Opens the child's three streams (or the terminal); returns the failed
 * step, or STEP_NONE, with errno in *error. */
static int open_streams(const struct run_request *req, struct child_plan *plan, struct typist *ty,
			int *error)
{
	const int out_flags = O_WRONLY | O_CREAT | O_TRUNC;

	const char *out = req->stdout_path ? req->stdout_path : "/dev/null";

	if (req->terminal) {
		/* The pty is all three streams; its output is copied to stdout. */
		ty->out = files_open_high(out, out_flags, 0644);
		if (ty->out < 0)
			return *error = errno, STEP_STDOUT;
		*error = terminal_read_keys(req->stdin_path, ty);
		if (*error)
			return STEP_STDIN;
		*error = terminal_open(ty);
		if (*error)
			return STEP_TERMINAL;
		plan->fd[0] = plan->fd[1] = plan->fd[2] = ty->slave;
		return STEP_NONE;
	}
	plan->fd[1] = files_open_high(out, out_flags, 0644);
	if (plan->fd[1] < 0)
		return *error = errno, STEP_STDOUT;
	plan->fd[0] = files_open_high(req->stdin_path ? req->stdin_path : "/dev/null", O_RDONLY, 0);
	if (plan->fd[0] < 0)
		return *error = errno, STEP_STDIN;
	/* Checked here, at each run's open, not before the benchmark: a stdin
	 * file may be one that setup writes. A FIFO or a device would block
	 * the run or never end: EINVAL, which run_result_describe() names. */
	if (req->stdin_path && !files_is_regular(plan->fd[0]))
		return *error = EINVAL, STEP_STDIN;
	plan->fd[2] =
		files_open_high(req->stderr_path ? req->stderr_path : "/dev/null", out_flags, 0644);
	if (plan->fd[2] < 0)
		return *error = errno, STEP_STDERR;
	return STEP_NONE;
}

/* Everything a run needs before its clock starts: no cancel pending, the
 * program found, the streams open. Returns false with *res filled when the
 * run ends here. */
static bool prepare_run(struct launch *l, uint32_t run_id, const struct run_request *req,
			struct child_plan *plan, char *path, struct typist *ty,
			struct run_result *res)
{
	int error = 0, step;

	if (read_cancels(l, run_id) || l->cancelled_id == run_id || l->gone) {
		res->status = RUN_INTERRUPTED;
		return false;
	}
	error = launch_resolve_program(req, path);
	if (error) {
		start_failed(res, STEP_LOOKUP, error);
		return false;
	}
	plan->path = path;
	step = open_streams(req, plan, ty, &error);
	if (step != STEP_NONE) {
		start_failed(res, step, error);
		return false;
	}
	/* Those with a handler, which would otherwise run in the vfork child
	 * on the parent's memory, and those ignored, which exec keeps. */
	plan->cpus = l->kept_cpu ? &l->cpus : NULL;
	plan->reset = l->signals_fixed ? l->fixed_reset : signals_not_default(false);
	return true;
}

/* The count a request asked for (docs/design.md, "Measuring a run": counting with perf),
 * opened on this process (pid 0; a duet's twin: on the twin, before its
 * go), disabled, before the clock starts: the vfork child
 * inherits a copy that turns on at its execve, and so does every process the
 * command starts in turn; each copy's count folds into this event when its
 * process exits. This process never execs, so its own copy stays off, and
 * nothing is added between vfork and execve. Returns the descriptor, or -1
 * (with the failure in res when one was asked for: the run goes ahead). */
static int count_open(const struct run_request *req, struct run_result *res, pid_t pid)
{
	struct perf_event_attr attr;
	long fd;

	if (!req->count)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = req->count_type;
	attr.config = req->count_config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.enable_on_exec = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		res->count_status = COUNT_OPEN_FAILED;
		res->count_error = errno;
		return -1;
	}
	return (int)fd;
}

/* Reads the count once the whole tree is reaped, scaled up when the kernel
 * shared the counter with other events, and closes it. */
static void count_read(int *fd, struct run_result *res)
{
	uint64_t v[3]; /* value, time enabled, time running */
	ssize_t n;

	if (*fd < 0)
		return;
	if (res->status == RUN_START_FAILED) {
		res->count_status = COUNT_NONE;
		close_fd(fd);
		return;
	}
	do {
		n = read(*fd, v, sizeof(v));
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(v)) {
		res->count_status = COUNT_READ_FAILED;
		res->count_error = n < 0 ? errno : 0;
	} else {
		res->count_status = COUNT_OK;
		res->count = v[0];
		res->count_enabled_ns = v[1];
		res->count_running_ns = v[2];
		if (v[2] && v[2] < v[1])
			res->count = (uint64_t)((double)v[0] * ((double)v[1] / (double)v[2]));
	}
	close_fd(fd);
}

/* Closes what the run opened; the floor is read last, after its peak. */
static void release_run(const struct run_request *req, struct child_plan *plan, struct typist *ty,
			int *pidfd, struct run_result *res)
{
	close_fd(pidfd);
	if (!req->terminal) {
		close_fd(&plan->fd[0]);
		close_fd(&plan->fd[1]);
		close_fd(&plan->fd[2]);
	}
	close_fd(&ty->out);
	close_fd(&ty->slave);
	close_fd(&ty->master);
	free(ty->keys);
	res->floor_bytes = launch_own_peak_bytes() + MIB;
}

void launch_run(struct launch *l, uint32_t run_id, const struct run_request *req,
		struct run_result *res)
{
	char path[PATH_CAP];
	struct child_plan plan = { .argv = req->argv, .envp = req->envp, .cwd = req->cwd };
	volatile struct child_report rep = { .step = STEP_NONE };
	struct typist ty = { .master = -1, .slave = -1, .out = -1 };
	struct tally tally = { .user_ns = 0 };
	struct watch w = { .n = 1, .pidfd = { -1, -1 } };
	enum wait_outcome outcome = WAIT_EXITED;
	sigset_t all, old, waiting, poll_mask;
	uint64_t start_ns, deadline_ns = 0;
	int pidfd = -1, status = 0, error, count_fd = -1;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	plan.fd[0] = plan.fd[1] = plan.fd[2] = -1;
	plan.terminal = req->terminal;
	if (l->signal_wait)
		drain_signals(l);
	if (!prepare_run(l, run_id, req, &plan, path, &ty, res))
		goto done;
	count_fd = count_open(req, res, 0);

	/* Everything the start needs is prepared before the clock starts. */
	sigfillset(&all);
	reset_own_peak();
	sigprocmask(SIG_SETMASK, &all, &old);
	/* The stop signal stays blocked except inside ppoll, so that it can
	 * never arrive between the check of *stop and the wait. */
	poll_mask = waiting = old;
	if (l->stop_signal) {
		sigaddset(&waiting, l->stop_signal);
		sigdelset(&poll_mask, l->stop_signal);
	}
	start_ns = now_ns();
	pid = start_child(&plan, &rep);
	error = errno;
	sigprocmask(SIG_SETMASK, &waiting, NULL);
	if (pid < 0 || rep.step != STEP_NONE) {
		if (pid > 0)
			reap(pid, &status, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		start_failed(res, pid < 0 ? STEP_START : rep.step, pid < 0 ? error : rep.error);
		goto done;
	}
	if (req->timeout_ns)
		deadline_ns = start_ns + req->timeout_ns;
	l->running_pgid = pid;
	w.pid[0] = pid;
	if (l->signal_wait && !req->terminal) {
		outcome = wait_by_signal(l, run_id, &w, deadline_ns);
	} else {
		/* A pidfd wakes the wait at the exit; without one, the wait polls. */
		w.pidfd[0] = pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		outcome = wait_child(l, run_id, &w, deadline_ns, req->terminal ? &ty : NULL,
				     &poll_mask);
	}
	l->running_pgid = 0; /* before the reap: the group id stays valid until then */
	if (outcome != WAIT_EXITED)
		kill(-pid, SIGKILL);
	reap(pid, &status, &tally);
	res->end_ns = now_ns();
	res->start_ns = start_ns + (rep.exec_ns - rep.began_ns);
	res->wall_ns = res->end_ns - res->start_ns;
	/* A cancel that came with the exit wins: measurer_cancel may have
	 * killed the group itself before the engine saw the cancel. */
	if (outcome == WAIT_EXITED && read_cancels(l, run_id))
		outcome = WAIT_INTERRUPTED;
	sigprocmask(SIG_SETMASK, &old, NULL);
	finish_status(res, outcome, status);
	kill(-pid, SIGKILL);
	sweep(&tally);
	if (req->terminal)
		terminal_drain(&ty);
	res->user_ns = tally.user_ns;
	res->system_ns = tally.system_ns;
	res->peak_rss_bytes = tally.maxrss_bytes;
done:
	count_read(&count_fd, res); /* after the sweep: every process has folded in */
	release_run(req, &plan, &ty, &pidfd, res);
}

unsigned launch_batch(struct launch *l, uint32_t run_id, const struct run_request *req,
		      unsigned runs, struct run_result *res)
{
	unsigned made = 0;

	do
		launch_run(l, run_id, req, &res[made]);
	while (++made < runs && !run_result_ends_batch(&res[made - 1]) && !l->gone &&
	       !(l->stop && *l->stop));
	return made;
}

/*
 * Duet runs (launch.h): two commands at once, each alone on its CPU.
 *
 * Side a is on the starter's CPU and starts as one run does, by vfork. Side
 * b, the twin, is a clone child that borrows this memory on a stack of its
 * own: the starter moves it to its CPU, it takes the command's steps there,
 * says it is ready and waits on the go word (spinning, then asleep), which
 * the vfork child sets right before its own execve. The starter waits for
 * the twin to leave this memory (its execve or its exit clears the word
 * CLONE_CHILD_CLEARTID names) before it goes on, so nothing of the twin's
 * outlives the start.
 */

#define TWIN_STACK_BYTES (256u * 1024u)
#define TWIN_SPIN_NS	 200000u	/* a wait spins this long, then sleeps */
#define TWIN_NAP_NS	 1000000u	/* then naps this long between looks */
#define TWIN_LOOK_NS	 100000u	/* the twin looks at its parent this often */
#define TWIN_PATIENCE_NS 10000000000ull /* and waits at most this for its go */

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield" ::: "memory")
#else
#define CPU_RELAX() __asm__ __volatile__("" ::: "memory")
#endif

enum twin_state { TWIN_WAIT, TWIN_READY, TWIN_FAILED };

/* What the starter shares with the twin while the twin runs in its memory. */
struct twin {
	const struct child_plan *plan;
	volatile struct child_report *rep;
	cpu_set_t cpus;	   /* its CPU */
	int state;	   /* enum twin_state */
	struct go_word go; /* the vfork child's word */
	pid_t parent;
	pid_t tid; /* non-zero until the twin leaves this memory */
};

/* One side of a duet, as the starter sees it. */
struct duet_side {
	struct child_plan plan;
	volatile struct child_report rep;
	struct typist ty; /* unused (no terminal), but prepare_run takes one */
	char path[PATH_CAP];
	pid_t pid; /* the root, and its process group; 0: not started */
	int pidfd, count_fd, status;
	bool live, stopped_by_twin;
	enum wait_outcome outcome;
	uint64_t deadline_ns, end_ns;
	struct tally tally;
};

struct duet {
	struct duet_side s[2];
	int a, b; /* a: the vfork child, on the starter's CPU; b: the twin */
	struct twin twin;
	bool placed;	     /* the starter may have moved: give it wait_cpus back */
	cpu_set_t wait_cpus; /* the starter's CPUs while it waits */
	sigset_t old, waiting, poll_mask;
};

/*
 * A system call that returns -errno itself and leaves errno alone. A duet's
 * twin is a clone child without a thread area of its own, so libc's errno
 * is the starter's: the twin's execve error and the starter's futex waits
 * (which time out every nap) must not go through it, or one overwrites
 * what the other is about to read. A raw call where we know the
 * convention; elsewhere libc's wrapper, with that race.
 */
static long raw_syscall4(long n, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			     : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ __volatile__("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
#else
	long ret = syscall(n, a, b, c, d);

	return ret < 0 ? -errno : ret;
#endif
}

static long futex(void *addr, int op, int val, uint64_t timeout_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000u),
			       .tv_nsec = (long)(timeout_ns % 1000000000u) };

	return raw_syscall4(SYS_futex, (long)addr, op, val, timeout_ns ? (long)&ts : 0);
}

static void twin_say(struct twin *t, int state)
{
	__atomic_store_n(&t->state, state, __ATOMIC_RELEASE);
	futex(&t->state, FUTEX_WAKE, INT_MAX, 0);
}

/* In the twin: waits until the go word changes, spinning for up to
 * TWIN_SPIN_NS (the vfork child's start takes tens of microseconds when its
 * CPU is free), then asleep on it. False for an abort, or when the starter
 * is gone (then nobody would ever say go). */
static bool await_go(struct twin *t)
{
	uint64_t began = now_ns(), looked = began, now;
	unsigned spins = 0;
	int go;

	while ((go = __atomic_load_n(&t->go.go, __ATOMIC_SEQ_CST)) == GO_WAIT) {
		CPU_RELAX();
		if (++spins % 64)
			continue;
		now = now_ns();
		if (now - began < TWIN_SPIN_NS)
			continue;
		if (now - looked >= TWIN_LOOK_NS) {
			looked = now;
			if (getppid() != t->parent || now - began > TWIN_PATIENCE_NS)
				return false;
		}
		__atomic_store_n(&t->go.sleeping, 1, __ATOMIC_SEQ_CST);
		futex(&t->go.go, FUTEX_WAIT, GO_WAIT, TWIN_NAP_NS);
	}
	return go == GO_GO;
}

static uint64_t own_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The twin: async-signal-safe steps only, on its own stack, until execve.
 * The CPU it spins is not the command's: it is read around the spin (the
 * second read before the clock, so that the latency does not carry it) and
 * taken out of the side's user time. */
static int twin_main(void *arg)
{
	struct twin *t = arg;
	uint64_t cpu;

	t->rep->began_ns = now_ns();
	/* The starter moves it too; whichever comes first, it never spins on
	 * the starter's CPU. */
	sched_setaffinity(0, sizeof(t->cpus), &t->cpus);
	if (child_steps(t->plan, t->rep) != STEP_NONE) {
		twin_say(t, TWIN_FAILED);
		_exit(127);
	}
	twin_say(t, TWIN_READY);
	cpu = own_cpu_ns();
	if (!await_go(t))
		_exit(127);
	t->rep->spin_cpu_ns = own_cpu_ns() - cpu;
	t->rep->exec_ns = now_ns();
	t->rep->error = (int)-raw_syscall4(SYS_execve, (long)t->plan->path, (long)t->plan->argv,
					   (long)t->plan->envp, 0);
	t->rep->step = STEP_EXEC;
	_exit(127);
}

/* In the starter: waits until the twin is ready (spinning on its CPU) or
 * can never be. */
static bool await_twin_ready(struct twin *t)
{
	uint64_t until = now_ns() + TWIN_SPIN_NS;
	int state;

	while ((state = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE)) == TWIN_WAIT &&
	       __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE)) {
		if (now_ns() < until)
			CPU_RELAX();
		else
			futex(&t->state, FUTEX_WAIT, TWIN_WAIT, TWIN_NAP_NS);
	}
	return state == TWIN_READY;
}

/* In the starter: waits until the twin has left this memory. */
static void await_twin_gone(struct twin *t)
{
	pid_t tid;

	while ((tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE)) != 0)
		futex(&t->tid, FUTEX_WAIT, tid, TWIN_NAP_NS);
}

/* Side i was stopped, or never started, because of its twin. */
static void stopped_by_twin(struct duet_result *res, int i)
{
	res->side[i].status = RUN_INTERRUPTED;
	res->stopped_by_twin[i] = true;
}

static void duet_init(struct duet *d, const struct duet_request *req)
{
	int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < 2; i++) {
		struct duet_side *s = &d->s[i];

		s->plan = (struct child_plan){ .argv = req->side[i].argv,
					       .envp = req->side[i].envp,
					       .cwd = req->side[i].cwd,
					       .fd = { -1, -1, -1 } };
		s->rep.step = STEP_NONE;
		s->ty = (struct typist){ .master = -1, .slave = -1, .out = -1 };
		s->pidfd = s->count_fd = -1;
	}
}

/* Both sides' programs and streams, before anything starts. A side that
 * cannot be prepared is the result; its twin is stopped before it starts. */
static bool duet_prepare(struct launch *l, uint32_t run_id, struct duet *d,
			 const struct duet_request *req, struct duet_result *res)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct duet_side *s = &d->s[i];

		if (req->side[i].terminal) { /* measurer_duet refuses it first */
			start_failed(&res->side[i], STEP_TERMINAL, EINVAL);
		} else if (prepare_run(l, run_id, &req->side[i], &s->plan, s->path, &s->ty,
				       &res->side[i])) {
			s->plan.cpus = NULL; /* each side keeps the one CPU it starts on */
			continue;
		}
		if (res->side[i].status == RUN_INTERRUPTED)
			res->side[1 - i].status = RUN_INTERRUPTED; /* a cancel: both */
		else
			stopped_by_twin(res, 1 - i);
		return false;
	}
	return true;
}

static void one_cpu(cpu_set_t *set, int cpu)
{
	CPU_ZERO(set);
	CPU_SET(cpu, set);
}

/* Puts the starter on side a's CPU for the start (the vfork child starts
 * there and keeps it), and notes the CPUs it waits on: all it may use, so
 * that a side's end wakes it on the CPU that side has just left. Side a is
 * the side whose CPU the starter is on, if any: no move. */
static int duet_place(struct launch *l, struct duet *d, const struct duet_request *req)
{
	int cpu = sched_getcpu();
	cpu_set_t here;

	d->a = req->cpu[1] == cpu ? 1 : 0;
	d->b = 1 - d->a;
	if (l->kept_cpu)
		d->wait_cpus = l->cpus;
	else if (sched_getaffinity(0, sizeof(d->wait_cpus), &d->wait_cpus) != 0)
		return errno;
	d->placed = true;
	if (l->kept_cpu && cpu == req->cpu[d->a])
		return 0;
	one_cpu(&here, req->cpu[d->a]);
	return sched_setaffinity(0, sizeof(here), &here) == 0 ? 0 : errno;
}

/* The twin's start: its clone, its CPU, its count, until it is ready to go.
 * Returns 0, or the errno of the step that failed (the twin is then gone). */
static int start_twin(struct launch *l, struct duet *d, const struct duet_request *req,
		      struct duet_result *res)
{
	struct duet_side *s = &d->s[d->b];
	int error;

	d->twin = (struct twin){ .plan = &s->plan, .rep = &s->rep, .parent = getpid(), .tid = 1 };
	one_cpu(&d->twin.cpus, req->cpu[d->b]);
	s->pid = clone(twin_main, (char *)l->twin_stack + TWIN_STACK_BYTES,
		       CLONE_VM | CLONE_CHILD_CLEARTID | SIGCHLD, &d->twin, NULL, NULL,
		       &d->twin.tid);
	if (s->pid < 0) {
		s->pid = 0;
		return errno;
	}
	error = sched_setaffinity(s->pid, sizeof(d->twin.cpus), &d->twin.cpus) == 0 ? 0 : errno;
	/* On the twin before its go: it alone has this event (the vfork
	 * child inherits the starter's, opened after the twin's clone). */
	if (!error)
		s->count_fd = count_open(&req->side[d->b], &res->side[d->b], s->pid);
	if (!error && !await_twin_ready(&d->twin))
		error = ESRCH; /* its own step failed (in rep), or it was killed */
	if (error) {
		go_say(&d->twin.go, GO_ABORT);
		await_twin_gone(&d->twin);
		reap(s->pid, &s->status, NULL);
		s->pid = 0;
	}
	return error;
}

/* The vfork child's start, which sets the twin going; false when it did not
 * start (its failure in rep or in *error), and then the twin is told to
 * abort. Either way the twin has left this memory when it returns. */
static bool start_vfork_side(struct duet *d, const struct duet_request *req,
			     struct duet_result *res, int *error)
{
	struct duet_side *s = &d->s[d->a];
	int go = GO_WAIT;

	s->count_fd = count_open(&req->side[d->a], &res->side[d->a], 0);
	s->plan.go = &d->twin.go;
	s->pid = start_child(&s->plan, &s->rep);
	*error = errno;
	if (__atomic_compare_exchange_n(&d->twin.go.go, &go, GO_ABORT, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		go_say(&d->twin.go, GO_ABORT); /* it did not start: wake the twin */
	await_twin_gone(&d->twin);
	if (s->pid >= 0 && s->rep.step == STEP_NONE)
		return true;
	if (s->pid > 0)
		reap(s->pid, &s->status, NULL);
	s->pid = 0;
	return false;
}

/* The twin was told to go, or to abort: in either case it is reaped here
 * when the vfork side failed, and stopped if it had already gone. */
static void drop_twin(struct duet *d)
{
	struct duet_side *s = &d->s[d->b];

	kill(-s->pid, SIGKILL);
	kill(s->pid, SIGKILL); /* before its setpgid, it has no group of its own */
	reap(s->pid, &s->status, NULL);
	s->pid = 0;
}

/* Starts both sides. False with both results filled when either could not
 * start: the one that failed, and its twin stopped by it. */
static bool duet_start(struct launch *l, struct duet *d, const struct duet_request *req,
		       struct duet_result *res)
{
	struct duet_side *a, *b;
	int error, i;
	sigset_t all;

	error = duet_place(l, d, req);
	a = &d->s[d->a];
	b = &d->s[d->b];
	if (!error && !l->twin_stack) {
		void *stack = mmap(NULL, TWIN_STACK_BYTES, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED)
			error = errno;
		else
			l->twin_stack = stack;
	}
	if (error) {
		start_failed(&res->side[d->b], STEP_START, error);
		stopped_by_twin(res, d->a);
		return false;
	}
	sigfillset(&all);
	reset_own_peak(); /* once for both: both execve from this memory */
	sigprocmask(SIG_SETMASK, &all, &d->old);
	d->poll_mask = d->waiting = d->old;
	if (l->stop_signal) {
		sigaddset(&d->waiting, l->stop_signal);
		sigdelset(&d->poll_mask, l->stop_signal);
	}
	error = start_twin(l, d, req, res);
	if (error) {
		sigprocmask(SIG_SETMASK, &d->old, NULL);
		start_failed(&res->side[d->b],
			     b->rep.step != STEP_NONE ? (int)b->rep.step : STEP_START,
			     b->rep.step != STEP_NONE ? b->rep.error : error);
		stopped_by_twin(res, d->a);
		return false;
	}
	if (!start_vfork_side(d, req, res, &error)) {
		drop_twin(d);
		sigprocmask(SIG_SETMASK, &d->old, NULL);
		start_failed(&res->side[d->a],
			     a->rep.step != STEP_NONE ? (int)a->rep.step : STEP_START,
			     a->rep.step != STEP_NONE ? a->rep.error : error);
		stopped_by_twin(res, d->b);
		return false;
	}
	sigprocmask(SIG_SETMASK, &d->waiting, NULL);
	sched_setaffinity(0, sizeof(d->wait_cpus), &d->wait_cpus);
	for (i = 0; i < 2; i++) {
		struct duet_side *s = &d->s[i];

		s->live = true;
		if (req->side[i].timeout_ns)
			s->deadline_ns = s->rep.exec_ns + req->side[i].timeout_ns;
		if (!l->signal_wait)
			s->pidfd = (int)syscall(SYS_pidfd_open, s->pid, 0);
	}
	l->running_pgid = d->s[0].pid;
	l->running_twin_pgid = d->s[1].pid;
	return true;
}

/* Ends side i: killed first unless it exited, reaped, timed (at `at` when
 * not 0, else now), and what it left in its process group killed (its stray
 * descendants are swept at the end, with the twin's). */
static void end_side(struct launch *l, struct duet *d, int i, enum wait_outcome outcome,
		     uint64_t at)
{
	struct duet_side *s = &d->s[i];

	if (i == 0)
		l->running_pgid = 0; /* before the reap, as in one run */
	else
		l->running_twin_pgid = 0;
	if (outcome != WAIT_EXITED)
		kill(-s->pid, SIGKILL);
	reap(s->pid, &s->status, &s->tally);
	s->end_ns = at ? at : now_ns();
	kill(-s->pid, SIGKILL);
	s->live = false;
	s->outcome = outcome;
}

/* After an exit, a timeout or an interruption: which sides end, and how.
 * An exit that came with a cancel is an interruption, as in one run (the
 * fallback's measurer_cancel kills the groups itself). */
static void duet_event(struct launch *l, uint32_t run_id, struct duet *d, enum wait_outcome outcome,
		       int which)
{
	uint64_t now;
	bool stop = outcome != WAIT_EXITED;
	int i;

	if (outcome == WAIT_EXITED) {
		/* Both sides may have exited by this wake-up. Their ends are then
		 * one time, taken before either reap: ending one after the other
		 * dated the second later by the first's reap, and base is always
		 * looked at first, so head read some 25 us slower in about half
		 * the pairs of an A/A duet (docs/comparison.md). */
		struct duet_side *o = &d->s[1 - which];
		bool both = o->live && exited(o->pid);
		uint64_t at = now_ns();

		end_side(l, d, which, WAIT_EXITED, at);
		if (both)
			end_side(l, d, 1 - which, WAIT_EXITED, at);
		if (read_cancels(l, run_id)) {
			outcome = d->s[which].outcome = WAIT_INTERRUPTED;
			if (both)
				o->outcome = WAIT_INTERRUPTED;
		}
		stop = outcome != WAIT_EXITED || d->s[which].rep.step != STEP_NONE ||
		       (both && o->rep.step != STEP_NONE);
	}
	now = now_ns();
	for (i = 0; i < 2; i++) {
		struct duet_side *s = &d->s[i];

		if (!s->live)
			continue;
		if (outcome == WAIT_TIMED_OUT && s->deadline_ns && now >= s->deadline_ns) {
			end_side(l, d, i, WAIT_TIMED_OUT, 0);
		} else if (outcome == WAIT_INTERRUPTED) {
			end_side(l, d, i, WAIT_INTERRUPTED, 0);
		} else if (stop) { /* the twin timed out, or its execve failed */
			end_side(l, d, i, WAIT_INTERRUPTED, 0);
			s->stopped_by_twin = true;
		}
	}
}

/* Waits until both sides have ended. */
static void duet_wait(struct launch *l, uint32_t run_id, struct duet *d)
{
	struct watch w = { .n = 2 };
	enum wait_outcome outcome;
	uint64_t deadline;
	int i;

	while (d->s[0].live || d->s[1].live) {
		deadline = 0;
		for (i = 0; i < 2; i++) {
			const struct duet_side *s = &d->s[i];

			w.pid[i] = s->live ? s->pid : 0;
			w.pidfd[i] = s->pidfd;
			if (s->live && s->deadline_ns && (!deadline || s->deadline_ns < deadline))
				deadline = s->deadline_ns;
		}
		/* Two exits may have raised one SIGCHLD, which the first took:
		 * once a side has ended, look before sleeping. */
		if (l->signal_wait && (!d->s[0].live || !d->s[1].live) && watch_exited(&w, true))
			outcome = WAIT_EXITED;
		else if (l->signal_wait)
			outcome = wait_by_signal(l, run_id, &w, deadline);
		else
			outcome = wait_child(l, run_id, &w, deadline, NULL, &d->poll_mask);
		duet_event(l, run_id, d, outcome, (int)w.which);
	}
}

/* Kills and reaps every child left, each counted on the side whose process
 * group it is in. One that left both groups (setsid, setpgid) and outlived
 * its parent cannot be told apart: it is counted on neither side. */
static void sweep_sides(struct duet *d)
{
	pid_t pids[1024], groups[1024];
	size_t n, i;
	int status;

	for (;;) {
		n = list_children(pids, ARRAY_LEN(pids));
		if (!n)
			return;
		for (i = 0; i < n; i++) {
			groups[i] = getpgid(pids[i]);
			kill(pids[i], SIGKILL);
		}
		for (i = 0; i < n; i++)
			reap(pids[i], &status,
			     groups[i] == d->s[0].pid	? &d->s[0].tally
			     : groups[i] == d->s[1].pid ? &d->s[1].tally
							: NULL);
	}
}

/* The results of two sides that both started. */
static void duet_finish(struct duet *d, struct duet_result *res)
{
	int i;

	sigprocmask(SIG_SETMASK, &d->old, NULL);
	sweep_sides(d);
	for (i = 0; i < 2; i++) {
		struct duet_side *s = &d->s[i];
		struct run_result *r = &res->side[i];

		res->stopped_by_twin[i] = s->stopped_by_twin;
		if (s->rep.step != STEP_NONE) { /* its execve failed: no run */
			start_failed(r, s->rep.step, s->rep.error);
			continue;
		}
		finish_status(r, s->outcome, s->status);
		r->start_ns = s->rep.exec_ns;
		r->end_ns = s->end_ns;
		r->wall_ns = s->end_ns - s->rep.exec_ns;
		r->user_ns = s->tally.user_ns - (s->rep.spin_cpu_ns < s->tally.user_ns
							 ? s->rep.spin_cpu_ns
							 : s->tally.user_ns);
		r->system_ns = s->tally.system_ns;
		r->peak_rss_bytes = s->tally.maxrss_bytes;
	}
	if (d->s[0].rep.step == STEP_NONE && d->s[1].rep.step == STEP_NONE)
		res->start_skew_ns = (int64_t)(d->s[1].rep.exec_ns - d->s[0].rep.exec_ns);
}

void launch_duet(struct launch *l, uint32_t run_id, const struct duet_request *req,
		 struct duet_result *res)
{
	struct duet d;
	int i;

	memset(res, 0, sizeof(*res));
	duet_init(&d, req);
	if (l->signal_wait)
		drain_signals(l);
	if (duet_prepare(l, run_id, &d, req, res) && duet_start(l, &d, req, res)) {
		duet_wait(l, run_id, &d);
		duet_finish(&d, res);
	} else {
		/* The vfork side says go right before its execve: when that
		 * execve fails, the twin may have run its command, and what it
		 * started is in its group (killed, not reaped) or left it. */
		sweep(NULL);
	}
	if (d.placed) {
		/* The starter's CPUs back; the spawner keeps to the one the
		 * wait left it on, so that it does not move. */
		sched_setaffinity(0, sizeof(d.wait_cpus), &d.wait_cpus);
		if (l->kept_cpu)
			launch_keep_cpu(l);
	}
	for (i = 0; i < 2; i++) {
		count_read(&d.s[i].count_fd, &res->side[i]);
		release_run(&req->side[i], &d.s[i].plan, &d.s[i].ty, &d.s[i].pidfd, &res->side[i]);
	}
}

void launch_release(struct launch *l)
{
	if (l->twin_stack)
		munmap(l->twin_stack, TWIN_STACK_BYTES);
	l->twin_stack = NULL;
}
