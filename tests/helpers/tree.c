/*
 * Test helper: builds a process tree that a process-group kill alone would
 * not stop, writes its pids to a file, then sleeps ("wait") or exits at once
 * ("exit"). The tree: this process; a child that sleeps; that child's child,
 * which called setsid(); and a background orphan whose parent has exited.
 *
 *   tree PIDFILE wait|exit
 *
 * PIDFILE gets one line: "self child setsid_grandchild orphan starter".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void report_and_sleep(int fd)
{
	int pid = (int)getpid();

	if (write(fd, &pid, sizeof(pid)) != sizeof(pid))
		_exit(1);
	close(fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	int ready[2], child, orphan_parent, pids[2];
	char tmp[4096];
	FILE *f;

	if (argc != 3 || pipe(ready) < 0)
		return 2;
	child = fork();
	if (child == 0) {
		if (fork() == 0) {
			setsid();
			report_and_sleep(ready[1]);
		}
		close(ready[1]);
		for (;;)
			pause();
	}
	orphan_parent = fork();
	if (orphan_parent == 0) {
		if (fork() == 0)
			report_and_sleep(ready[1]);
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &pids[0], sizeof(int)) != sizeof(int) ||
	    read(ready[0], &pids[1], sizeof(int)) != sizeof(int))
		return 3;
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	f = fopen(tmp, "w");
	if (!f)
		return 4;
	/* The orphan and the setsid grandchild reported in either order; the
	 * test only needs all of them. */
	fprintf(f, "%d %d %d %d %d\n", (int)getpid(), child, pids[0], pids[1], (int)getppid());
	if (fclose(f) != 0 || rename(tmp, argv[1]) != 0)
		return 5;
	if (!strcmp(argv[2], "exit"))
		return 0;
	for (;;)
		pause();
}
