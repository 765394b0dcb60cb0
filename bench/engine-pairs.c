/*
 * The spawner's engine (src/spawner/launch.c) against a bare vfork+exec loop,
 * in one process, run by run: each pair starts the program once bare and once
 * through launch_run, so that both meet the same machine at the same moment.
 * Set up like the spawner (SIGTERM caught, the terminal's signals blocked),
 * it prints each side's minimum and median and the median of the paired
 * differences with its quartiles: the cost the engine adds inside the
 * measured interval, steadier on a loaded machine than whole-tool medians.
 *
 *   cc -O2 -static -D_GNU_SOURCE -Isrc -o /tmp/engine-pairs \
 *      bench/engine-pairs.c src/spawner/launch.c src/spawner/files.c \
 *      src/spawner/terminal.c
 *   /tmp/engine-pairs [OPTION...] N PROGRAM
 *
 * By default the engine's request is the plainest one (no files, no
 * directory, no timeout, no sockets); these options make it, piece by piece,
 * the request the spawner gets from `himorime run` (docs/performance.md,
 * "What the rest is not"):
 *
 *   --files DIR     stderr to DIR/stderr-0, created for every run and
 *                   unlinked after it, as himorime's private stderr file
 *   --cwd DIR       the request's directory (a chdir in the child)
 *   --timeout SEC   the request's timeout (ppoll then waits with one)
 *   --sockets       cancel_fd and hangup_fd are socket pairs, as the
 *                   spawner's two sockets, instead of none, and the engine
 *                   waits by signals on them (launch_wait_by_signal)
 *   --pin           the process keeps to its CPU and every child gets all
 *                   CPUs back before execve (launch_keep_cpu), as the
 *                   spawner does; the bare runs then start pinned too
 *   --round-trip    before each start (both sides) a byte goes to a partner
 *                   process and back, as the spawner sleeps until himorime
 *                   sends the next run
 *   --slack NS      the process's timer slack (PR_SET_TIMERSLACK) first
 *   --random-order  each pair starts its two sides in a random order
 *                   (default: bare first)
 *   --engine-only   no bare runs: the engine's N runs back to back, their
 *                   minimum and median, to compare in alternating blocks
 *                   with bench/vfork-loop.c (pairs put the engine's work
 *                   between runs before both sides; blocks do not)
 *   --real DIR      all of the above as the spawner runs himorime's
 *                   requests: --files DIR --cwd . --timeout 60 --sockets
 *                   --pin --random-order
 */
#include "spawner/launch.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void setup_like_the_spawner(void)
{
	static const int blocked[] = { SIGINT,	SIGQUIT, SIGHUP,  SIGPIPE, SIGTSTP,
				       SIGTTIN, SIGTTOU, SIGTERM, SIGCHLD, SIGIO };
	struct sigaction sa;
	sigset_t set;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&set);
	for (i = 0; i < sizeof(blocked) / sizeof(blocked[0]); i++)
		sigaddset(&set, blocked[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* A partner process answering every byte it reads; returns the socket. It
 * is not a child (the engine's sweep would kill it): a grandchild whose
 * parent is gone, and it exits when the socket closes. */
static int start_partner(void)
{
	int sv[2];
	pid_t pid;
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		close(sv[0]);
		while (read(sv[1], &c, 1) == 1 && write(sv[1], &c, 1) == 1)
			;
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	close(sv[1]);
	return sv[0];
}

static int round_trip(int partner)
{
	char c = 'x';

	if (partner < 0)
		return 0;
	return write(partner, &c, 1) == 1 && read(partner, &c, 1) == 1 ? 0 : -1;
}

/* One bare run; its wall time in ns, or -1. */
static int64_t bare_run(char **argv)
{
	uint64_t t0 = now_ns();
	pid_t pid = vfork();
	int status;

	if (pid == 0) {
		execve(argv[0], argv, environ);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
		return -1;
	return (int64_t)(now_ns() - t0);
}

static int usage(void)
{
	fprintf(stderr, "usage: engine-pairs [--files DIR] [--cwd DIR] [--timeout SEC] "
			"[--sockets] [--pin] [--round-trip] [--slack NS] [--random-order] "
			"[--engine-only] [--real DIR] N PROGRAM\n");
	return 2;
}

/* The engine's run of pair i; its wall time in ns, or -1. */
static int64_t engine_run(struct launch *l, long i, const struct run_request *req)
{
	struct run_result res;

	launch_run(l, (uint32_t)i + 1, req, &res);
	if (req->stderr_path)
		unlink(req->stderr_path); /* as himorime does after each run */
	if (res.status != RUN_EXITED || res.code != 0)
		return -1;
	return (int64_t)res.wall_ns;
}

int main(int argc, char **argv)
{
	struct run_request req = { .envp = environ };
	struct launch l;
	int64_t *bare, *engine, *diff;
	char stderr_path[PATH_MAX], cwd[PATH_MAX];
	int cancel[2] = { -1, -1 }, hangup[2] = { -1, -1 };
	int partner = -1, sockets = 0, trips = 0, shuffle = 0, pin = 0, engine_only = 0, a = 1;
	long n, i, slack = -1;

	for (; a < argc && !strncmp(argv[a], "--", 2); a++) {
		if (!strcmp(argv[a], "--files") && a + 1 < argc) {
			snprintf(stderr_path, sizeof(stderr_path), "%s/stderr-0", argv[++a]);
			req.stderr_path = stderr_path;
		} else if (!strcmp(argv[a], "--cwd") && a + 1 < argc) {
			req.cwd = realpath(argv[++a], cwd);
		} else if (!strcmp(argv[a], "--timeout") && a + 1 < argc) {
			req.timeout_ns = (uint64_t)(strtod(argv[++a], NULL) * 1e9);
		} else if (!strcmp(argv[a], "--sockets")) {
			sockets = 1;
		} else if (!strcmp(argv[a], "--round-trip")) {
			trips = 1;
		} else if (!strcmp(argv[a], "--slack") && a + 1 < argc) {
			slack = strtol(argv[++a], NULL, 10);
		} else if (!strcmp(argv[a], "--engine-only")) {
			engine_only = 1;
		} else if (!strcmp(argv[a], "--pin")) {
			pin = 1;
		} else if (!strcmp(argv[a], "--random-order")) {
			shuffle = 1;
		} else if (!strcmp(argv[a], "--real") && a + 1 < argc) {
			snprintf(stderr_path, sizeof(stderr_path), "%s/stderr-0", argv[++a]);
			req.stderr_path = stderr_path;
			req.cwd = realpath(".", cwd);
			req.timeout_ns = 60000000000u;
			sockets = shuffle = pin = 1;
		} else {
			return usage();
		}
	}
	if (argc - a != 2 || (n = strtol(argv[a], NULL, 10)) < 1)
		return usage();
	argv += a - 1; /* argv[2] is the program, as without options */
	req.argv = argv + 2;
	bare = calloc((size_t)n, sizeof(*bare));
	engine = calloc((size_t)n, sizeof(*engine));
	diff = calloc((size_t)n, sizeof(*diff));
	if (!bare || !engine || !diff)
		return 1;
	if (slack >= 0 && prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0) < 0)
		return 1;
	if (trips && (partner = start_partner()) < 0)
		return 1;
	if (sockets &&
	    (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, cancel) < 0 ||
	     socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, hangup) < 0))
		return 1;
	setup_like_the_spawner();
	if (launch_init(&l, cancel[0], hangup[0], SIGTERM, &stopping) != 0)
		return 1;
	launch_fix_signals(&l);
	if (pin)
		launch_keep_cpu(&l);
	if (sockets && launch_wait_by_signal(&l) != 0)
		return 1;
	srand((unsigned)now_ns());
	for (i = 0; i < n; i++) {
		int engine_first = shuffle && rand() % 2;

		if (engine_only) {
			engine[i] = round_trip(partner) ? -1 : engine_run(&l, i, &req);
			bare[i] = 0;
		} else if (engine_first) {
			engine[i] = round_trip(partner) ? -1 : engine_run(&l, i, &req);
			bare[i] = round_trip(partner) ? -1 : bare_run(argv + 2);
		} else {
			bare[i] = round_trip(partner) ? -1 : bare_run(argv + 2);
			engine[i] = round_trip(partner) ? -1 : engine_run(&l, i, &req);
		}
		if (bare[i] < 0 || engine[i] < 0) {
			fprintf(stderr, "engine-pairs: run %ld of %s failed\n", i + 1, argv[2]);
			return 1;
		}
		diff[i] = engine[i] - bare[i];
	}
	qsort(bare, (size_t)n, sizeof(*bare), compare);
	qsort(engine, (size_t)n, sizeof(*engine), compare);
	qsort(diff, (size_t)n, sizeof(*diff), compare);
	if (engine_only)
		printf("%ld runs of %s through the engine: min %.1f us, median %.1f us\n", n,
		       argv[2], engine[0] / 1e3, engine[n / 2] / 1e3);
	else
		printf("%ld pairs of %s: bare min %.1f us, median %.1f us; engine min %.1f us, "
		       "median %.1f us; ratio of medians %.3f; engine - bare per pair: median "
		       "%.1f us (quartiles %.1f … %.1f us)\n",
		       n, argv[2], bare[0] / 1e3, bare[n / 2] / 1e3, engine[0] / 1e3,
		       engine[n / 2] / 1e3, (double)engine[n / 2] / (double)bare[n / 2],
		       diff[n / 2] / 1e3, diff[n / 4] / 1e3, diff[3 * n / 4] / 1e3);
	free(bare);
	free(engine);
	free(diff);
	if (partner >= 0)
		close(partner);
	return 0;
}
