/*
 * Test helper: one small behaviour per mode, for checking how a command is
 * started and what its streams are.
 *
 *   probe exit N        exit with code N
 *   probe signal N      kill itself with signal N
 *   probe echo TEXT     print TEXT and a newline on stdout
 *   probe stderr TEXT   print TEXT and a newline on stderr
 *   probe cat           copy stdin to stdout
 *   probe pwd           print the current directory
 *   probe devnull FD    exit 0 if FD is /dev/null, 1 otherwise
 *   probe sleep         sleep until killed
 *   probe signals       print the SigBlk, SigIgn and SigCgt lines of its status
 *   probe cpus          print the Cpus_allowed_list line of its status, then
 *                       its starter's (the parent's)
 *   probe nap MS        sleep MS milliseconds, then exit 0
 *   probe burn MS       spin until it has used MS milliseconds of CPU since
 *                       main() began, then print the CPU it ended on ("cpu
 *                       N") and its Cpus_allowed_list line
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Prints the lines of a status file that start with one of the keys. */
static int status_lines(const char *path, const char *a, const char *b, const char *c)
{
	char line[4096];
	FILE *f = fopen(path, "r");

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, a, strlen(a)) || (b && !strncmp(line, b, strlen(b))) ||
		    (c && !strncmp(line, c, strlen(c))))
			fputs(line, stdout);
	fclose(f);
	return 0;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Mostly user time: the clock is read every 100,000 steps. The process CPU
 * clock goes on across execve, so it is read against its value at the start:
 * a duet's twin spins before its execve until it is told to go, and that
 * spin is the starter's, which the measurer takes away from the run's CPU
 * time, not the command's. */
static int burn(double ms)
{
	volatile unsigned long spin = 0;
	double start = cpu_ms();
	unsigned long i;

	while (cpu_ms() - start < ms)
		for (i = 0; i < 100000; i++)
			spin++;
	printf("cpu %d\n", sched_getcpu());
	fflush(stdout);
	return status_lines("/proc/self/status", "Cpus_allowed_list:", NULL, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";
	char buf[4096];
	ssize_t n;

	if (!strcmp(mode, "exit"))
		return (int)strtol(arg, NULL, 10);
	if (!strcmp(mode, "signal")) {
		signal((int)strtol(arg, NULL, 10), SIG_DFL);
		raise((int)strtol(arg, NULL, 10));
		return 100;
	}
	if (!strcmp(mode, "echo"))
		return printf("%s\n", arg) < 0;
	if (!strcmp(mode, "stderr"))
		return fprintf(stderr, "%s\n", arg) < 0;
	if (!strcmp(mode, "cat")) {
		while ((n = read(0, buf, sizeof(buf))) > 0)
			if (write(1, buf, (size_t)n) != n)
				return 1;
		return 0;
	}
	if (!strcmp(mode, "pwd"))
		return !getcwd(buf, sizeof(buf)) || printf("%s\n", buf) < 0;
	if (!strcmp(mode, "devnull")) {
		struct stat a, b;
		if (fstat((int)strtol(arg, NULL, 10), &a) < 0 || stat("/dev/null", &b) < 0)
			return 1;
		return !(S_ISCHR(a.st_mode) && a.st_rdev == b.st_rdev);
	}
	if (!strcmp(mode, "signals"))
		return status_lines("/proc/self/status", "SigBlk:", "SigIgn:", "SigCgt:");
	if (!strcmp(mode, "cpus")) {
		snprintf(buf, sizeof(buf), "/proc/%d/status", (int)getppid());
		return status_lines("/proc/self/status", "Cpus_allowed_list:", NULL, NULL) ||
		       status_lines(buf, "Cpus_allowed_list:", NULL, NULL);
	}
	if (!strcmp(mode, "nap")) {
		long ms = strtol(arg, NULL, 10);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

		while (nanosleep(&ts, &ts) != 0)
			;
		return 0;
	}
	if (!strcmp(mode, "burn"))
		return burn(strtod(arg, NULL));
	if (!strcmp(mode, "sleep")) {
		for (;;)
			pause();
	}
	return 2;
}
