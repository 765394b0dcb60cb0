/*
 * A deterministic loop: the same instructions on every run, whatever the
 * machine, the addresses or the environment. bench/counts/measure.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i * 2654435761u;
	return acc == 1 ? 1 : 0;
}
