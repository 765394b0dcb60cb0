/*
 * One launch step at a time, paired: each of N pairs starts PROGRAM once with
 * the step MODE on and once without (random order within the pair), timing
 * each run as the spawner does (CLOCK_MONOTONIC from just before vfork until
 * the reap), and prints both sides' p10 and median and the median of the
 * paired differences (on - off) with its quartiles. A quick way to price
 * what src/spawner/launch.c does beyond a bare vfork+exec loop, one
 * difference at a time. It exits 2 on a bad MODE or N and 1 when a run fails;
 * the stderr file it writes to is unlinked as soon as it is open.
 *
 *   cc -O2 -D_GNU_SOURCE -o /tmp/launch-ab bench/launch-ab.c
 *   /tmp/launch-ab MODE N PROGRAM
 *
 * MODE (on = with the step): pin (the starter pinned to its CPU and the
 * child's affinity reset to all CPUs before execve, vs neither), aff (the
 * starter pinned throughout; the child reset to all CPUs or left confined),
 * stderr (fd 2 a file on disk vs /dev/null), env (the caller's environment
 * vs an empty one), setpgid, fds (dup2 of three fds and close_range over
 * 37 extra ones), subreaper (PR_SET_CHILD_SUBREAPER), clearrefs (VmHWM reset
 * before the clock), pidfdopen (pidfd_open and close, then wait4), pidfd
 * (ppoll on a pidfd before wait4), poll3 (ppoll on a pidfd and two sockets
 * with a signal mask, as launch.c waits), sigmask (the child unblocks all
 * signals), third (a partner process that answers a byte before each run
 * and stays runnable, on the starter's CPU vs the other one), all (pin,
 * subreaper, clearrefs, setpgid, fds, sigmask and poll3 together).
 * BIGMM=MIB in the environment: the starter first touches MIB MiB and maps
 * 500 small regions (a larger parent; compare whole runs with and without).
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}
static int cmpu(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}
static int cmps(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}
static const char *mode;
static cpu_set_t all, one;
static int devnull, efile;
static char *bigenv[200];
static const char *const modes[] = { "pin",   "aff",	   "stderr",	"env",	     "setpgid",
				     "fds",   "subreaper", "clearrefs", "pidfdopen", "pidfd",
				     "poll3", "sigmask",   "third",	"all" };
static int is(const char *m)
{
	return !strcmp(mode, m) ||
	       (!strcmp(mode, "all") && strcmp(m, "aff") && strcmp(m, "pidfd") &&
		strcmp(m, "pidfdopen") && strcmp(m, "stderr"));
}
static int tsv[2] = { -1, -1 };
static pid_t tpid;
static int cpu_here;
static void third_start(void)
{
	socketpair(AF_UNIX, SOCK_STREAM, 0, tsv);
	tpid = fork();
	if (tpid == 0) {
		char c;
		static volatile char buf[256 * 1024];
		while (read(tsv[1], &c, 1) == 1) {
			for (int i = 0; i < (int)sizeof buf; i += 64)
				buf[i]++;
			if (write(tsv[1], &c, 1) != 1)
				break;
		}
		_exit(0);
	}
}
static uint64_t run(char **prog, int on)
{
	if (!strcmp(mode, "third")) {
		cpu_set_t s;
		CPU_ZERO(&s);
		CPU_SET(on ? cpu_here : 1 - cpu_here, &s);
		sched_setaffinity(tpid, sizeof s, &s);
		char c = 1;
		if (write(tsv[0], &c, 1) != 1 || read(tsv[0], &c, 1) != 1)
			exit(1);
	}
	int status;
	pid_t pid;
	uint64_t t0;
	int pin = is("pin"), aff = !strcmp(mode, "aff");
	if (pin)
		sched_setaffinity(0, sizeof one, on ? &one : &all);
	if (is("subreaper"))
		prctl(PR_SET_CHILD_SUBREAPER, on, 0, 0, 0);
	if (is("clearrefs") && on) {
		int fd = open("/proc/self/clear_refs", O_WRONLY);
		if (fd < 0 || write(fd, "5", 1) != 1) {
			perror("launch-ab: /proc/self/clear_refs");
			exit(1);
		}
		close(fd);
	}
	int fd2 = (!strcmp(mode, "stderr") && on) ? efile : devnull;
	if (!strcmp(mode, "stderr") && on && ftruncate(efile, 0) < 0)
		exit(1);
	char **env = (!strcmp(mode, "env") && !on) ? bigenv + 199 : environ;
	t0 = now_ns();
	pid = vfork();
	if (pid == 0) {
		if (is("setpgid") && on)
			setpgid(0, 0);
		if (is("fds") && on) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(fd2, 2);
			syscall(SYS_close_range, 3u, ~0u, 0u);
		}
		if (!strcmp(mode, "stderr"))
			dup2(fd2, 2);
		if ((pin && on) || (aff && on))
			sched_setaffinity(0, sizeof all, &all);
		if (is("sigmask") && on) {
			sigset_t n;
			sigemptyset(&n);
			sigprocmask(SIG_SETMASK, &n, NULL);
		}
		execve(prog[0], prog, env);
		_exit(127);
	}
	if (!strcmp(mode, "pidfdopen") && on) {
		int pfd = syscall(SYS_pidfd_open, pid, 0);
		close(pfd);
	}
	if (is("poll3") && on) {
		static int sv[2] = { -1, -1 }, sw[2];
		if (sv[0] < 0) {
			socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
			socketpair(AF_UNIX, SOCK_STREAM, 0, sw);
		}
		int pfd = syscall(SYS_pidfd_open, pid, 0);
		struct pollfd p[3] = { { pfd, POLLIN, 0 },
				       { sv[0], POLLIN, 0 },
				       { sw[0], POLLRDHUP, 0 } };
		sigset_t m;
		sigemptyset(&m);
		ppoll(p, 3, NULL, &m);
		close(pfd);
	}
	if (!strcmp(mode, "pidfd") && on) {
		int pfd = syscall(SYS_pidfd_open, pid, 0);
		struct pollfd p = { pfd, POLLIN, 0 };
		ppoll(&p, 1, NULL, NULL);
		close(pfd);
	}
	if (waitpid(pid, &status, 0) != pid || status) {
		fprintf(stderr, "fail\n");
		exit(1);
	}
	uint64_t t = now_ns() - t0;
	if (pin)
		sched_setaffinity(0, sizeof all, &all);
	return t;
}
int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: launch-ab MODE N PROGRAM [ARG...]\n");
		return 2;
	}
	mode = argv[1];
	long n = strtol(argv[2], NULL, 10);
	char **prog = argv + 3;
	size_t m = 0;
	while (m < sizeof(modes) / sizeof(*modes) && strcmp(mode, modes[m]))
		m++;
	if (m == sizeof(modes) / sizeof(*modes)) {
		fprintf(stderr, "launch-ab: unknown MODE \"%s\" (see bench/launch-ab.c)\n", mode);
		return 2;
	}
	if (n < 1) {
		fprintf(stderr, "launch-ab: N must be a number of pairs >= 1, not \"%s\"\n",
			argv[2]);
		return 2;
	}
	sched_getaffinity(0, sizeof all, &all);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (!strcmp(mode, "aff"))
		sched_setaffinity(0, sizeof one, &one); /* parent pinned throughout */
	devnull = open("/dev/null", O_RDWR);
	efile = open("launch-ab-stderr.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (devnull < 0 || efile < 0 || unlink("launch-ab-stderr.tmp") < 0) {
		perror("launch-ab: /dev/null or ./launch-ab-stderr.tmp");
		return 1;
	}
	for (int i = 3; i < 40 && is("fds"); i++)
		open("/dev/null", O_RDONLY);
	bigenv[199] = NULL;
	if (!strcmp(mode, "third")) {
		cpu_here = sched_getcpu();
		CPU_ZERO(&one);
		CPU_SET(cpu_here, &one);
		sched_setaffinity(0, sizeof one, &one);
		third_start();
	}
	if (getenv("BIGMM")) {
		long mib = strtol(getenv("BIGMM"), NULL, 10);
		char *p = malloc(mib << 20);
		for (long i = 0; p && i < (mib << 20); i += 4096)
			p[i] = 1;
		for (int i = 0; i < 500; i++) {
			char *q = mmap(NULL, 8192, i & 1 ? PROT_READ : PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (q != MAP_FAILED && !(i & 1))
				q[0] = 1; /* alternate regions so that they do not merge */
		}
	}
	uint64_t *a = calloc(n, 8), *b = calloc(n, 8);
	int64_t *d = calloc(n, 8);
	if (!a || !b || !d)
		return 1;
	srand(1);
	for (long i = 0; i < n; i++) {
		int f = rand() & 1;
		for (int k = 0; k < 2; k++) {
			int on = k == 0 ? f : !f;
			uint64_t t = run(prog, on);
			*(on ? &a[i] : &b[i]) = t;
		}
		d[i] = (int64_t)a[i] - (int64_t)b[i];
	}
	qsort(a, n, 8, cmpu);
	qsort(b, n, 8, cmpu);
	qsort(d, n, 8, cmps);
	printf("%-10s n=%ld on: p10 %.1f med %.1f | off: p10 %.1f med %.1f | diff med %.1f (q1 "
	       "%.1f q3 %.1f) us\n",
	       mode, n, a[n / 10] / 1e3, a[n / 2] / 1e3, b[n / 10] / 1e3, b[n / 2] / 1e3,
	       d[n / 2] / 1e3, d[n / 4] / 1e3, d[3 * n / 4] / 1e3);
	return 0;
}
