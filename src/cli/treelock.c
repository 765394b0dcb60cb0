/*
 * The working tree's lock: see treelock.h.
 */
#include "cli/treelock.h"

#include "common/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

/* The pid the holder wrote, or 0 when it has not yet (or wrote nothing). */
static long holder_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *end;
	long pid;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	return pid > 0 && (*end == '\n' || *end == '\0') ? pid : 0;
}

static int busy(struct treelock *l, int fd, const char *path, const char *tree, struct err *err)
{
	long pid = holder_pid(fd);

	l->busy = true;
	if (pid)
		return err_set(err, ERR_EXEC,
			       "the working tree \"%s\" is in use by another himorime (pid %ld), "
			       "which holds \"%s\"",
			       tree, pid, path);
	return err_set(err, ERR_EXEC,
		       "the working tree \"%s\" is in use by another himorime, which holds \"%s\"",
		       tree, path);
}

/* Whether fd is still the file that `path` names: the holder before us may
 * have removed it between our open and our flock. */
static bool still_named(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int cannot(const char *path, const char *why, struct err *err)
{
	return err_set(err, ERR_EXEC, "cannot lock the working tree with \"%s\": %s", path, why);
}

/* Opens the lock file: never through a symbolic link, never blocking on a
 * FIFO, and only a regular file. */
static int open_lock(const char *path, struct err *err)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);

	if (fd < 0)
		return cannot(path,
			      errno == ELOOP ? "a symbolic link, never followed" : strerror(errno),
			      err);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return cannot(path, "not a regular file", err);
	}
	return fd;
}

/* Writes our pid for the next himorime's message. */
static void write_pid(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	/* the lock holds without it: a refused run's message then names no pid */
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		return;
}

int treelock_take(struct treelock *l, const char *path, const char *tree, struct err *err)
{
	int tries;

	l->busy = false;
	for (tries = 0; tries < 100; tries++) {
		int fd = open_lock(path, err);
		if (fd < 0)
			return fd;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int rc = errno == EWOULDBLOCK ? busy(l, fd, path, tree, err)
						      : cannot(path, strerror(errno), err);
			close(fd);
			return rc;
		}
		if (still_named(fd, path)) {
			write_pid(fd);
			l->fd = fd;
			l->path = xstrdup(path);
			return 0;
		}
		close(fd);
	}
	return cannot(path, "it keeps being removed and made again", err);
}

void treelock_release(struct treelock *l)
{
	if (!l || l->fd < 0)
		return;
	/* Removed before the lock is dropped: whoever opened it meanwhile
	 * finds the name gone once it gets the lock, and starts over. */
	unlink(l->path);
	close(l->fd);
	free(l->path);
	l->path = NULL;
	l->fd = -1;
}
