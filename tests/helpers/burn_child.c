/*
 * Test helper: forks one child that burns MS milliseconds of its own CPU
 * time, then waits for it; the parent itself only waits. A count of the
 * command's tree (task clock, instructions) includes the child only if the
 * starter's counter follows the command's descendants.
 *
 *   burn_child MS
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	volatile unsigned long spin = 0;
	unsigned long i;
	double ms;
	int status;
	pid_t pid;

	if (argc != 2)
		return 2;
	ms = atof(argv[1]);
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		while (cpu_ms() < ms)
			for (i = 0; i < 100000; i++)
				spin++;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 4;
	return WEXITSTATUS(status);
}
