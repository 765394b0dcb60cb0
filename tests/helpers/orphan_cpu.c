/*
 * Test helper: leaves an orphan that burns about 200 ms of CPU. Its parent
 * exits at once, so the orphan is reparented to the starter (a subreaper) and
 * never waited for by this process; this process only waits, through a pipe,
 * for the orphan to finish. A run's CPU time counts the orphan only if the
 * starter reaps it and adds its rusage.
 */
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	int done[2], status;
	char c;
	volatile unsigned long spin = 0;
	unsigned long i;
	pid_t parent;

	if (pipe(done) < 0)
		return 2;
	parent = fork();
	if (parent == 0) {
		if (fork() == 0) {
			close(done[0]);
			/* Mostly user time: the clock is read every million steps. */
			while (cpu_seconds() < 0.2)
				for (i = 0; i < 1000000; i++)
					spin++;
			_exit(0); /* closes done[1]: the waiting process sees EOF */
		}
		_exit(0);
	}
	close(done[1]);
	waitpid(parent, &status, 0);
	while (read(done[0], &c, 1) > 0)
		;
	return 0;
}
