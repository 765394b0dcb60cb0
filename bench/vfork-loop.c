/*
 * A bare start loop, the yardstick for the spawner's per-run cost: starts a
 * program N times with one primitive, timing each run the way the spawner
 * does (CLOCK_MONOTONIC from just before the start until wait4 returns), and
 * prints the median, mean and minimum.
 *
 *   vfork-loop [--method vfork|posix_spawn|fork] [--round-trip]
 *              [--partner-work KIB [--paired]] N PROGRAM [ARG...]
 *
 * --round-trip: before each run (outside the timed interval) the loop sends a
 * byte to a partner process over a socket pair and sleeps until it answers,
 * as the spawner sleeps until himorime sends the next run
 * (docs/performance.md, "The third process").
 *
 * --partner-work KIB (implies --round-trip): before answering each byte the
 * partner reads and writes KIB kibibytes of its own memory (a buffer
 * allocated once, one byte every 64), as himorime does real work between
 * runs (storing the sample, the stop rule, progress), so that the next run
 * starts after the partner has evicted the CPU's caches and TLB: whether a
 * colder run accounts for what himorime costs beyond the bare loop.
 *
 * --paired (with --partner-work): each of the N pairs starts the program
 * once after the partner worked and once after it did not, in a random
 * order, and prints the median of the differences (worked - plain) with its
 * quartiles: both runs of a pair meet the machine at the same moment, so the
 * difference survives a load that moves whole blocks by more.
 */
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
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

/* Reads and writes one byte of every 64 in buf, so the compiler keeps it. */
static void touch(volatile unsigned char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < size; i += 64)
		buf[i] = (unsigned char)(buf[i] + 1);
}

/*
 * A partner process answering every byte, after touching work_kib KiB of its
 * own memory; returns the loop's end, or -1.
 */
static int start_partner(long work_kib)
{
	size_t size = (size_t)work_kib * 1024;
	unsigned char *buf = NULL;
	int sv[2];
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	if (fork() == 0) {
		close(sv[0]);
		if (size && !(buf = calloc(1, size)))
			_exit(1);
		if (size)
			touch(buf, size); /* fault the pages in once */
		while (read(sv[1], &c, 1) == 1) {
			if (size && c)
				touch(buf, size);
			if (write(sv[1], &c, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(sv[1]);
	return sv[0];
}

/* One run: a round trip with the partner (it works first when work is 1),
 * then the program, timed; its wall time in ns, or 0 if it failed. */
static uint64_t run_once(const char *method, char **prog, int partner, char work, int *maxrss_kib)
{
	struct rusage ru;
	uint64_t t0;
	int status;
	pid_t pid;
	char c = work;

	if (partner >= 0 && (write(partner, &c, 1) != 1 || read(partner, &c, 1) != 1))
		return 0;
	t0 = now_ns();
	pid = start(method, prog);
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || status != 0) {
		fprintf(stderr, "vfork-loop: a run of %s failed\n", prog[0]);
		return 0;
	}
	if (ru.ru_maxrss > *maxrss_kib)
		*maxrss_kib = (int)ru.ru_maxrss;
	return now_ns() - t0;
}

static int compare_signed(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* --paired: n pairs, worked and plain in a random order within each. */
static int paired(const char *method, char **prog, int partner, long n, long work_kib)
{
	uint64_t *worked = calloc((size_t)n, sizeof(*worked));
	uint64_t *plain = calloc((size_t)n, sizeof(*plain));
	int64_t *diff = calloc((size_t)n, sizeof(*diff));
	int maxrss_kib = 0, k;
	long i;

	if (!worked || !plain || !diff)
		return 1;
	srand(1);
	for (i = 0; i < n; i++) {
		int first = rand() & 1;
		for (k = 0; k < 2; k++) {
			int work = k == 0 ? first : !first;
			uint64_t t = run_once(method, prog, partner, (char)work, &maxrss_kib);
			if (!t)
				return 1;
			*(work ? &worked[i] : &plain[i]) = t;
		}
		diff[i] = (int64_t)worked[i] - (int64_t)plain[i];
	}
	qsort(worked, (size_t)n, sizeof(*worked), compare);
	qsort(plain, (size_t)n, sizeof(*plain), compare);
	qsort(diff, (size_t)n, sizeof(*diff), compare_signed);
	printf("%ld pairs of %s, partner work %ld KiB: worked median %.3f ms (min %.3f), "
	       "plain median %.3f ms (min %.3f), worked - plain median %.1f us "
	       "(quartiles %.1f, %.1f)\n",
	       n, prog[0], work_kib, (double)worked[n / 2] / 1e6, (double)worked[0] / 1e6,
	       (double)plain[n / 2] / 1e6, (double)plain[0] / 1e6, (double)diff[n / 2] / 1e3,
	       (double)diff[n / 4] / 1e3, (double)diff[3 * n / 4] / 1e3);
	free(worked);
	free(plain);
	free(diff);
	return 0;
}

int main(int argc, char **argv)
{
	const char *method = "vfork";
	uint64_t *wall, sum = 0;
	long n, i;
	int maxrss_kib = 0, partner = -1, round_trip = 0, pairs = 0;
	long work_kib = 0;

	if (argc > 2 && !strcmp(argv[1], "--method")) {
		method = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc > 1 && !strcmp(argv[1], "--round-trip")) {
		round_trip = 1;
		argv++;
		argc--;
	}
	if (argc > 2 && !strcmp(argv[1], "--partner-work")) {
		work_kib = strtol(argv[2], NULL, 10);
		round_trip = 1;
		argv += 2;
		argc -= 2;
	}
	if (argc > 1 && !strcmp(argv[1], "--paired")) {
		pairs = 1;
		argv++;
		argc--;
	}
	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1 || work_kib < 0 ||
	    (pairs && !work_kib)) {
		fprintf(stderr,
			"usage: vfork-loop [--method vfork|posix_spawn|fork] [--round-trip] "
			"[--partner-work KIB [--paired]] N PROGRAM [ARG...]\n");
		return 2;
	}
	if (round_trip && (partner = start_partner(work_kib)) < 0)
		return 1;
	if (pairs)
		return paired(method, argv + 2, partner, n, work_kib);
	wall = calloc((size_t)n, sizeof(*wall));
	if (!wall)
		return 1;
	for (i = 0; i < n; i++) {
		if (!(wall[i] = run_once(method, argv + 2, partner, 1, &maxrss_kib)))
			return 1;
		sum += wall[i];
	}
	qsort(wall, (size_t)n, sizeof(*wall), compare);
	printf("%s+exec: %ld runs of %s: median %.3f ms, mean %.3f ms, min %.3f ms, "
	       "max peak RSS %d KiB\n",
	       method, n, argv[2], (double)wall[n / 2] / 1e6, (double)sum / (double)n / 1e6,
	       (double)wall[0] / 1e6, maxrss_kib);
	free(wall);
	return 0;
}
