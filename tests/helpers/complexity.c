/*
 * A program whose work grows as a known function of its size, after a fixed
 * start-up cost of about 1 ms (docs/comparison.md, "Growth with input
 * size"): `complexity linear|nlogn|quadratic N`. The start-up is a loop of
 * a fixed length (about 2.8 M instructions), so that its cost is the same
 * whatever N; the work is 200 N steps, a merge sort of N numbers (N log2 N),
 * or N * N / 4 steps, each of the first and the last about 7 instructions.
 * Used by tests/cli/test_params.py and bench/growth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

static void start_up(void)
{
	unsigned long i, x = 0;

	for (i = 0; i < 400000; i++)
		x += i ^ (x >> 3);
	sink = x;
}

static void linear(unsigned long n)
{
	unsigned long i, x = 0;

	for (i = 0; i < n * 200; i++)
		x += i ^ (x >> 3);
	sink = x;
}

static void quadratic(unsigned long n)
{
	unsigned long i, j, x = 0;

	for (i = 0; i < n / 2; i++)
		for (j = 0; j < n / 2; j++)
			x += (i * j) ^ (x >> 3);
	sink = x;
}

static void merge_sort(unsigned *a, unsigned *tmp, unsigned long n)
{
	unsigned long h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	merge_sort(a, tmp, h);
	merge_sort(a + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof(*a));
}

static void nlogn(unsigned long n)
{
	unsigned *a = malloc(n * sizeof(*a)), *tmp = malloc(n * sizeof(*tmp));
	unsigned long i, x = 12345;

	if (!a || !tmp)
		exit(2);
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		a[i] = (unsigned)(x >> 33);
	}
	merge_sort(a, tmp, n);
	sink = a[n / 2];
	free(a);
	free(tmp);
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc != 3 || (n = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: complexity linear|nlogn|quadratic N\n");
		return 2;
	}
	start_up();
	if (!strcmp(argv[1], "linear"))
		linear(n);
	else if (!strcmp(argv[1], "nlogn"))
		nlogn(n);
	else if (!strcmp(argv[1], "quadratic"))
		quadratic(n);
	else
		return 2;
	return 0;
}
