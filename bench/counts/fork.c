/*
 * Forks argv[1] children (default 4); each runs a deterministic loop and
 * exits; the parent waits for them. Counts must include the children.
 * bench/counts/measure.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void work(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i;
}

int main(int argc, char **argv)
{
	int children = argc > 1 ? atoi(argv[1]) : 4;

	for (int i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			work(200000);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	work(100000);
	return 0;
}
