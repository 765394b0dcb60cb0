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
#include <sys/ioctl.h>
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
};

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
	const struct timespec zero = { 0, 0 };
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
	struct kernel_sigaction dfl = { SIG_DFL, 0, NULL, 0 };
	int i;

	for (i = 1; i <= KERNEL_SIGNALS; i++)
		if (set >> (i - 1) & 1)
			syscall(SYS_rt_sigaction, i, &dfl, NULL, sizeof(dfl.mask));
}

static __attribute__((noreturn)) void child_fail(volatile struct child_report *rep, int step)
{
	rep->error = errno;
	rep->step = step;
	_exit(127);
}

/* In the vfork child: async-signal-safe steps only, then execve. */
static __attribute__((noreturn)) void child_exec(const struct child_plan *plan,
						 volatile struct child_report *rep)
{
	sigset_t none;
	int i;

	rep->began_ns = now_ns();
	if (plan->terminal) {
		if (setsid() < 0 || ioctl(plan->fd[0], TIOCSCTTY, 0) < 0)
			child_fail(rep, STEP_TERMINAL);
	} else {
		setpgid(0, 0);
	}
	for (i = 0; i < 3; i++)
		if (dup2(plan->fd[i], i) < 0)
			child_fail(rep, STEP_START);
	syscall(SYS_close_range, 3u, ~0u, 0u);
	if (plan->cwd && chdir(plan->cwd) < 0)
		child_fail(rep, STEP_CHDIR);
	default_signals(plan->reset);
	if (plan->cpus)
		sched_setaffinity(0, sizeof(*plan->cpus), plan->cpus);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	rep->exec_ns = now_ns();
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

/* Without pidfds (Linux before 5.3): whether the child is waitable yet. */
static bool exited(pid_t pid)
{
	siginfo_t si;

	si.si_pid = 0;
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Waits for the child's exit, a timeout, a cancel or the client's going
 * away, typing keys meanwhile in terminal mode. At the exit it returns at
 * once: the reap and the clock come first, the check for a cancel that came
 * with the exit after them (see launch_run). */
static enum wait_outcome wait_child(struct launch *l, uint32_t run_id, int pidfd, pid_t pid,
				    uint64_t deadline_ns, struct typist *ty,
				    const sigset_t *poll_mask)
{
	struct pollfd pfd[4];
	struct timespec ts, *tsp;
	uint64_t now, left;
	int n;

	for (;;) {
		if (l->stop && *l->stop) {
			l->gone = true;
			return WAIT_INTERRUPTED;
		}
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = l->cancel_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = l->hangup_fd, .events = POLLRDHUP };
		if (ty)
			pfd[n++] = (struct pollfd){ .fd = ty->master, .events = POLLIN };
		if (pidfd < 0 && exited(pid))
			return WAIT_EXITED;
		tsp = NULL;
		if (deadline_ns || (ty && ty->pos < ty->len) || pidfd < 0) {
			now = now_ns();
			if (deadline_ns && now >= deadline_ns)
				return WAIT_TIMED_OUT;
			left = deadline_ns ? deadline_ns - now : UINT64_MAX;
			if (ty && ty->pos < ty->len && left > TERMINAL_KEY_POLL_NS)
				left = TERMINAL_KEY_POLL_NS;
			if (pidfd < 0 && left > EXIT_POLL_NS)
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
		if (pfd[0].revents && pidfd >= 0)
			return WAIT_EXITED;
		if (pfd[1].revents && read_cancels(l, run_id))
			return WAIT_INTERRUPTED;
		if (pfd[2].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
			l->gone = true;
			return WAIT_INTERRUPTED;
		}
		if (ty) {
			terminal_drain(ty);
			terminal_type_key(ty, pid);
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
static enum wait_outcome wait_by_signal(struct launch *l, uint32_t run_id, pid_t pid,
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
			if (exited(pid))
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
 * opened on this process, disabled, before the clock starts: the vfork child
 * inherits a copy that turns on at its execve, and so does every process the
 * command starts in turn; each copy's count folds into this event when its
 * process exits. This process never execs, so its own copy stays off, and
 * nothing is added between vfork and execve. Returns the descriptor, or -1
 * (with the failure in res when one was asked for: the run goes ahead). */
static int count_open(const struct run_request *req, struct run_result *res)
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
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
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
	volatile struct child_report rep = { STEP_NONE, 0, 0, 0 };
	struct typist ty = { .master = -1, .slave = -1, .out = -1 };
	struct tally tally = { 0, 0, 0 };
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
	count_fd = count_open(req, res);

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
	if (l->signal_wait && !req->terminal) {
		outcome = wait_by_signal(l, run_id, pid, deadline_ns);
	} else {
		/* A pidfd wakes the wait at the exit; without one, the wait polls. */
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		outcome = wait_child(l, run_id, pidfd, pid, deadline_ns, req->terminal ? &ty : NULL,
				     &poll_mask);
	}
	l->running_pgid = 0; /* before the reap: the group id stays valid until then */
	if (outcome != WAIT_EXITED)
		kill(-pid, SIGKILL);
	reap(pid, &status, &tally);
	res->wall_ns = now_ns() - start_ns - (rep.exec_ns - rep.began_ns);
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
