/*
 * Pairs of runs of two programs, back to back in coin-flipped order, as a
 * comparison makes them, with nothing else around: prints the mean of
 * ln(time of B / time of A) over the pairs, its standard error, and the share
 * of pairs where B took longer. Used by bench/two-files.
 *
 *   pairs N SEED A B
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double run(const char *path)
{
	struct timespec t0, t1;
	int status;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = vfork();
	if (pid == 0) {
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "pairs: %s failed\n", path);
		exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

int main(int argc, char **argv)
{
	uint64_t state;
	double sum = 0, sum2 = 0, mean, se;
	long n, i, longer = 0;

	if (argc != 5 || (n = strtol(argv[1], NULL, 10)) < 2) {
		fprintf(stderr, "usage: pairs N SEED A B\n");
		return 2;
	}
	state = strtoull(argv[2], NULL, 10) * 2654435761u + 1;
	for (i = 0; i < n; i++) {
		double a, b, r;
		state = state * 6364136223846793005u + 1442695040888963407u;
		if (state >> 63) {
			a = run(argv[3]);
			b = run(argv[4]);
		} else {
			b = run(argv[4]);
			a = run(argv[3]);
		}
		r = log(b / a);
		sum += r;
		sum2 += r * r;
		longer += r > 0;
	}
	mean = sum / (double)n;
	se = sqrt((sum2 / (double)n - mean * mean) / (double)(n - 1));
	printf("%.6f %.6f %.4f\n", mean, se, (double)longer / (double)n);
	return 0;
}
