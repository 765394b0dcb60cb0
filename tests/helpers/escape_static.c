/*
 * Test helper: at once starts a child that leaves the process group with
 * setsid() and sleeps, then sleeps itself. Linked statically (its name ends
 * in _static), so that it reaches its fork within microseconds of its
 * execve: a starter that stops it by its process group alone, right after
 * it started, leaves the child running.
 */
#include <unistd.h>

int main(void)
{
	if (fork() == 0)
		setsid();
	for (;;)
		pause();
}
