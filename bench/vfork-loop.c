/*
 * A bare start loop, the yardstick for the spawner's per-run cost: starts a
 * program N times with one primitive, timing each run the way the spawner
 * does (CLOCK_MONOTONIC from just before the start until wait4 returns), and
 * prints the median, mean and minimum.
 *
 *   vfork-loop [--method vfork|posix_spawn|fork] N PROGRAM [ARG...]
 */
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static pid_t start(const char *method, char **argv)
{
	pid_t pid;

	if (!strcmp(method, "posix_spawn"))
		return posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) ? -1 : pid;
	pid = !strcmp(method, "fork") ? fork() : vfork();
	if (pid == 0) {
		execve(argv[0], argv, environ);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	const char *method = "vfork";
	uint64_t *wall, sum = 0, t0;
	struct rusage ru;
	long n, i;
	int status, maxrss_kib = 0;

	if (argc > 2 && !strcmp(argv[1], "--method")) {
		method = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: vfork-loop [--method vfork|posix_spawn|fork] N PROGRAM "
				"[ARG...]\n");
		return 2;
	}
	wall = calloc((size_t)n, sizeof(*wall));
	if (!wall)
		return 1;
	for (i = 0; i < n; i++) {
		pid_t pid;

		t0 = now_ns();
		pid = start(method, argv + 2);
		if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || status != 0) {
			fprintf(stderr, "vfork-loop: run %ld of %s failed\n", i + 1, argv[2]);
			return 1;
		}
		wall[i] = now_ns() - t0;
		sum += wall[i];
		if (ru.ru_maxrss > maxrss_kib)
			maxrss_kib = (int)ru.ru_maxrss;
	}
	qsort(wall, (size_t)n, sizeof(*wall), compare);
	printf("%s+exec: %ld runs of %s: median %.3f ms, mean %.3f ms, min %.3f ms, "
	       "max peak RSS %d KiB\n",
	       method, n, argv[2], (double)wall[n / 2] / 1e6, (double)sum / (double)n / 1e6,
	       (double)wall[0] / 1e6, maxrss_kib);
	free(wall);
	return 0;
}
