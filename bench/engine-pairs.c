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
 *   /tmp/engine-pairs N PROGRAM
 */
#include "spawner/launch.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	static const int blocked[] = { SIGINT,	SIGQUIT, SIGHUP,  SIGPIPE,
				       SIGTSTP, SIGTTIN, SIGTTOU, SIGTERM };
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

int main(int argc, char **argv)
{
	struct run_request req = { .argv = argv + 2, .envp = environ };
	struct run_result res;
	struct launch l;
	int64_t *bare, *engine, *diff;
	long n, i;

	if (argc != 3 || (n = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: engine-pairs N PROGRAM\n");
		return 2;
	}
	bare = calloc((size_t)n, sizeof(*bare));
	engine = calloc((size_t)n, sizeof(*engine));
	diff = calloc((size_t)n, sizeof(*diff));
	if (!bare || !engine || !diff)
		return 1;
	setup_like_the_spawner();
	if (launch_init(&l, -1, -1, SIGTERM, &stopping) != 0)
		return 1;
	launch_fix_signals(&l);
	for (i = 0; i < n; i++) {
		bare[i] = bare_run(argv + 2);
		launch_run(&l, (uint32_t)i + 1, &req, &res);
		if (bare[i] < 0 || res.status != RUN_EXITED || res.code != 0) {
			fprintf(stderr, "engine-pairs: run %ld of %s failed\n", i + 1, argv[2]);
			return 1;
		}
		engine[i] = (int64_t)res.wall_ns;
		diff[i] = engine[i] - bare[i];
	}
	qsort(bare, (size_t)n, sizeof(*bare), compare);
	qsort(engine, (size_t)n, sizeof(*engine), compare);
	qsort(diff, (size_t)n, sizeof(*diff), compare);
	printf("%ld pairs of %s: bare min %.1f us, median %.1f us; engine min %.1f us, "
	       "median %.1f us; ratio of medians %.3f; engine - bare per pair: median "
	       "%.1f us (quartiles %.1f … %.1f us)\n",
	       n, argv[2], bare[0] / 1e3, bare[n / 2] / 1e3, engine[0] / 1e3, engine[n / 2] / 1e3,
	       (double)engine[n / 2] / (double)bare[n / 2], diff[n / 2] / 1e3, diff[n / 4] / 1e3,
	       diff[3 * n / 4] / 1e3);
	free(bare);
	free(engine);
	free(diff);
	return 0;
}
