/*
 * Allocates: argv[1] blocks of 64 bytes (default 1000), a stdio line, then
 * frees them. Its count of heap blocks is what DHAT reports; its
 * instructions include malloc's. bench/counts/measure.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	void **p = calloc(n ? n : 1, sizeof(*p));
	unsigned long sum = 0;

	if (!p)
		return 1;
	for (unsigned long i = 0; i < n; i++) {
		p[i] = malloc(64);
		sum += (unsigned long)(p[i] != NULL);
	}
	for (unsigned long i = 0; i < n; i++)
		free(p[i]);
	free(p);
	printf("%lu\n", sum);
	return 0;
}
