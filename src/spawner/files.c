/*
 * Small file helpers the run and the terminal share: whole /proc files read
 * without allocating, and descriptors opened above the standard three. Used
 * before vfork and after the reap, never in the child.
 */
#include "spawner/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/banned.h"

/* Reads a whole small /proc file into buf (NUL-terminated); length or -1. */
ssize_t files_read_small(const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (len + 1 < cap) {
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* Appends the numbers in a /proc children file to pids. */
size_t files_read_children(const char *path, pid_t *pids, size_t n, size_t cap)
{
	char buf[8192];
	char *p, *end;
	ssize_t len = files_read_small(path, buf, sizeof(buf));

	if (len <= 0)
		return n;
	if ((size_t)len == sizeof(buf) - 1) {
		/* Drop a number the buffer may have cut; the next round finds it. */
		p = strrchr(buf, ' ');
		if (p)
			*p = '\0';
	}
	for (p = buf; n < cap;) {
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v > 0)
			pids[n++] = (pid_t)v;
		p = end;
	}
	return n;
}

/* Opens without blocking (a FIFO with no writer or reader would stop the
 * spawner where no timeout reaches it), then makes the descriptor blocking
 * again for the child. */
int files_open_high(const char *path, int flags, mode_t mode)
{
	int fd = open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, mode);
	int high;

	if (fd >= 0 && fcntl(fd, F_SETFL, flags & O_APPEND) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (fd < 0 || fd >= 3)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return high;
}

bool files_is_regular(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}
