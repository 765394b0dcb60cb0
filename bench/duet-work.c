/*
 * The workloads of bench/duet, a static program with two modes:
 *
 *   duet-work copy MIB REPS   two buffers of MIB MiB, touched, then copied
 *                             one into the other REPS times: memory-bound,
 *                             it slows when a twin shares the cache and the
 *                             memory bus
 *   duet-work spin ITERS      ITERS steps of an integer recurrence in
 *                             registers: CPU-bound, nothing shared
 *
 * Both exit 0 and print nothing (the result is kept only so that the
 * compiler keeps the work).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int copy(size_t mib, long reps)
{
	size_t size = mib << 20;
	char *a = malloc(size), *b = malloc(size);
	long r;

	if (!a || !b)
		return 3;
	memset(a, 1, size);
	memset(b, 2, size);
	for (r = 0; r < reps; r++) {
		if (r % 2)
			memcpy(a, b, size);
		else
			memcpy(b, a, size);
	}
	return a[size / 2] == 1 || a[size / 2] == 2 ? 0 : 4;
}

static int spin(unsigned long iters)
{
	volatile uint64_t out;
	uint64_t x = 88172645463325252ull;
	unsigned long i;

	for (i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	out = x;
	(void)out;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "copy"))
		return copy(strtoul(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "spin"))
		return spin(strtoul(argv[2], NULL, 10));
	return 2;
}
