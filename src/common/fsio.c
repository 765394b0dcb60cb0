/*
 * File helpers: see fsio.h.
 */
#include "common/fsio.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/strbuf.h"

#include <dirent.h>
#include <stdbool.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *fsio_kind_name(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "a special file";
	}
}

int fsio_open_regular(const char *path, struct err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return err_set(err, ERR_EXEC, "cannot read \"%s\": %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		err_set(err, ERR_EXEC, "cannot read \"%s\": %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		err_set(err, ERR_EXEC, "cannot read \"%s\": not a regular file (%s)", path,
			fsio_kind_name(st.st_mode));
		close(fd);
		return -1;
	}
	/* Regular files never block; reads go back to blocking semantics. */
	if (fcntl(fd, F_SETFL, 0) < 0) {
		err_set(err, ERR_EXEC, "cannot read \"%s\": %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int fsio_read_file(const char *path, size_t cap, char **out, size_t *len, struct err *err)
{
	struct strbuf sb;
	char chunk[65536];
	int fd;
	int rc = 0;

	*out = NULL;
	if (len)
		*len = 0;
	fd = fsio_open_regular(path, err);
	if (fd < 0)
		return err->code;
	strbuf_init(&sb, cap);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = err_set(err, ERR_EXEC, "cannot read \"%s\": %s", path,
				     strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		if (strbuf_add(&sb, chunk, (size_t)n) < 0) {
			rc = err_set(err, ERR_INVALID, "\"%s\" is larger than %zu bytes", path,
				     cap);
			goto done;
		}
	}
	*out = strbuf_detach(&sb, len);
done:
	strbuf_release(&sb);
	close(fd);
	return rc;
}

int fsio_capped_open(struct fsio_capped *f, const char *path, size_t cap, uint64_t deadline_ns,
		     struct err *err)
{
	struct stat st;

	f->path = path;
	f->cap = cap;
	f->done = 0;
	f->deadline_ns = deadline_ns;
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	if (f->fd < 0)
		return err_set(err, ERR_EXEC, "cannot read \"%s\": %s", path,
			       errno == ELOOP ? "a symbolic link" : strerror(errno));
	if (fstat(f->fd, &st) < 0)
		err_set(err, ERR_EXEC, "cannot read \"%s\": %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err_set(err, ERR_EXEC, "cannot read \"%s\": not a regular file (%s)", path,
			fsio_kind_name(st.st_mode));
	else if ((uint64_t)st.st_size > cap)
		err_set(err, ERR_EXEC, "cannot read \"%s\": larger than %zu bytes", path, cap);
	else
		return 0;
	fsio_capped_close(f);
	return ERR_EXEC;
}

long fsio_capped_read(struct fsio_capped *f, void *buf, size_t n, struct err *err)
{
	ssize_t got;

	if (clock_monotonic_ns() > f->deadline_ns)
		return err_set(err, ERR_EXEC,
			       "cannot read \"%s\": took longer than the time allowed", f->path);
	/* One byte past the cap tells a file that grew since the fstat. */
	if (n > f->cap - f->done + 1)
		n = f->cap - f->done + 1;
	do
		got = read(f->fd, buf, n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return err_set(err, ERR_EXEC, "cannot read \"%s\": %s", f->path, strerror(errno));
	f->done += (size_t)got;
	if (f->done > f->cap)
		return err_set(err, ERR_EXEC, "cannot read \"%s\": larger than %zu bytes", f->path,
			       f->cap);
	return (long)got;
}

void fsio_capped_close(struct fsio_capped *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

int fsio_capped_read_all(const char *path, size_t cap, uint64_t deadline_ns, char **out,
			 size_t *len, struct err *err)
{
	struct fsio_capped f;
	struct strbuf sb;
	char chunk[65536];
	long n;

	*out = NULL;
	*len = 0;
	if (fsio_capped_open(&f, path, cap, deadline_ns, err) < 0)
		return ERR_EXEC;
	strbuf_init(&sb, 0);
	while ((n = fsio_capped_read(&f, chunk, sizeof(chunk), err)) > 0)
		strbuf_add(&sb, chunk, (size_t)n);
	fsio_capped_close(&f);
	if (n < 0) {
		strbuf_release(&sb);
		return ERR_EXEC;
	}
	*out = strbuf_detach(&sb, len);
	return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fsio_atomic_open(struct fsio_atomic *a, const char *path, struct err *err)
{
	a->path = path;
	a->tmp = xasprintf("%s.tmp-XXXXXX", path);
	a->fd = mkstemp(a->tmp);
	if (a->fd < 0 || fchmod(a->fd, 0644) < 0) {
		int rc = err_set(err, ERR_EXEC, "cannot write \"%s\": %s", path, strerror(errno));
		fsio_atomic_abort(a);
		return rc;
	}
	return 0;
}

int fsio_atomic_write(struct fsio_atomic *a, const void *data, size_t len, struct err *err)
{
	if (write_all(a->fd, data, len) < 0) {
		int rc =
			err_set(err, ERR_EXEC, "cannot write \"%s\": %s", a->path, strerror(errno));
		fsio_atomic_abort(a);
		return rc;
	}
	return 0;
}

int fsio_atomic_commit(struct fsio_atomic *a, struct err *err)
{
	int rc = 0;

	if (fsync(a->fd) < 0)
		rc = err_set(err, ERR_EXEC, "cannot write \"%s\": %s", a->path, strerror(errno));
	if (close(a->fd) < 0 && !rc)
		rc = err_set(err, ERR_EXEC, "cannot write \"%s\": %s", a->path, strerror(errno));
	a->fd = -1;
	if (!rc && rename(a->tmp, a->path) < 0)
		rc = err_set(err, ERR_EXEC, "cannot write \"%s\": %s", a->path, strerror(errno));
	if (rc)
		unlink(a->tmp);
	free(a->tmp);
	a->tmp = NULL;
	return rc;
}

void fsio_atomic_abort(struct fsio_atomic *a)
{
	if (!a->tmp)
		return;
	if (a->fd >= 0) {
		close(a->fd);
		unlink(a->tmp);
	}
	a->fd = -1;
	free(a->tmp);
	a->tmp = NULL;
}

int fsio_write_atomic(const char *path, const void *data, size_t len, struct err *err)
{
	struct fsio_atomic a;
	int rc = fsio_atomic_open(&a, path, err);

	if (!rc)
		rc = fsio_atomic_write(&a, data, len, err);
	if (!rc)
		rc = fsio_atomic_commit(&a, err);
	return rc;
}

/* Opens `path` to append without waiting on it: a FIFO with no reader
 * (ENXIO) and any file that is not regular are refused by name. */
static int open_append(const char *path, struct err *err)
{
	struct stat st;
	int fd =
		open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0644);

	if (fd < 0 && errno == ENXIO && stat(path, &st) == 0)
		return err_set(err, ERR_EXEC, "cannot append to \"%s\": not a regular file (%s)",
			       path, fsio_kind_name(st.st_mode));
	if (fd < 0)
		return err_set(err, ERR_EXEC, "cannot append to \"%s\": %s", path, strerror(errno));
	/* Regular files never block; writes go back to blocking semantics. */
	if (fstat(fd, &st) < 0)
		err_set(err, ERR_EXEC, "cannot append to \"%s\": %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err_set(err, ERR_EXEC, "cannot append to \"%s\": not a regular file (%s)", path,
			fsio_kind_name(st.st_mode));
	else if (fcntl(fd, F_SETFL, O_APPEND) < 0)
		err_set(err, ERR_EXEC, "cannot append to \"%s\": %s", path, strerror(errno));
	else
		return fd;
	close(fd);
	return -1;
}

int fsio_append(const char *path, const void *data, size_t len, struct err *err)
{
	int fd = open_append(path, err);
	int rc = 0;

	if (fd < 0)
		return ERR_EXEC;
	if (write_all(fd, data, len) < 0)
		rc = err_set(err, ERR_EXEC, "cannot append to \"%s\": %s", path, strerror(errno));
	if (close(fd) < 0 && !rc)
		rc = err_set(err, ERR_EXEC, "cannot append to \"%s\": %s", path, strerror(errno));
	return rc;
}

int fsio_mkdtemp(const char *prefix, char **out, struct err *err)
{
	const char *base = getenv("TMPDIR");
	char *tmpl;

	if (!base || !*base)
		base = "/tmp";
	tmpl = xasprintf("%s/%sXXXXXX", base, prefix);
	if (!mkdtemp(tmpl)) {
		int e = errno;
		free(tmpl);
		*out = NULL;
		return err_set(err, ERR_EXEC, "cannot create a temporary directory in \"%s\": %s",
			       base, strerror(e));
	}
	*out = tmpl;
	return 0;
}

static int remove_entry(int dirfd, const char *name, struct err *err);

static int remove_dir_contents(int fd, struct err *err)
{
	DIR *dir = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (!dir) {
		close(fd);
		return err_set(err, ERR_EXEC, "cannot list a directory: %s", strerror(errno));
	}
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (remove_entry(dirfd(dir), de->d_name, err) < 0)
			rc = ERR_EXEC;
	}
	closedir(dir);
	return rc;
}

static int remove_entry(int dirfd, const char *name, struct err *err)
{
	struct stat st;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0
				       : err_set(err, ERR_EXEC, "cannot remove \"%s\": %s", name,
						 strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return err_set(err, ERR_EXEC, "cannot remove \"%s\": %s", name,
				       strerror(errno));
		return 0;
	}
	if ((st.st_mode & 0700) != 0700)
		fchmodat(dirfd, name, st.st_mode | 0700, 0);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, ERR_EXEC, "cannot open \"%s\": %s", name, strerror(errno));
	if (remove_dir_contents(fd, err) < 0)
		return ERR_EXEC;
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return err_set(err, ERR_EXEC, "cannot remove \"%s\": %s", name, strerror(errno));
	return 0;
}

int fsio_remove_tree(const char *path, struct err *err)
{
	int rc = remove_entry(AT_FDCWD, path, err);
	if (rc < 0)
		err_wrap(err, "cannot remove \"%s\"", path);
	return rc;
}

static const char *tmp_base(void)
{
	const char *base = getenv("TMPDIR");
	return base && *base ? base : "/tmp";
}

/* The pid in "<prefix><pid>-XXXXXX", or 0 when the name is not one of these. */
static pid_t pid_of_name(const char *prefix, const char *name)
{
	const char *p = name + strlen(prefix);
	char *end;
	long pid;

	if (strncmp(name, prefix, strlen(prefix)) != 0 || *p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || *end != '-' || pid <= 0 || (pid_t)pid != pid)
		return 0;
	return (pid_t)pid;
}

static bool pid_alive(pid_t pid)
{
	return pid == getpid() || kill(pid, 0) == 0 || errno == EPERM;
}

int fsio_sweep_stale(const char *prefix, size_t *removed, struct err *err)
{
	const char *base = tmp_base();
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	*removed = 0;
	dir = opendir(base);
	if (!dir)
		return err_set(err, ERR_EXEC, "cannot list \"%s\": %s", base, strerror(errno));
	while ((de = readdir(dir))) {
		pid_t pid = pid_of_name(prefix, de->d_name);
		struct stat st;
		char *path;

		if (!pid || pid_alive(pid))
			continue;
		path = xasprintf("%s/%s", base, de->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
			if (fsio_remove_tree(path, err) < 0)
				rc = err->code;
			else
				(*removed)++;
		}
		free(path);
	}
	closedir(dir);
	return rc;
}

static bool read_full(int fd, char *buf, size_t cap, size_t *got)
{
	*got = 0;
	while (*got < cap) {
		ssize_t n = read(fd, buf + *got, cap - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return true;
}

bool fsio_same_content(const char *a, const char *b)
{
	enum { CHUNK = 64 * 1024 };
	char *x = xmalloc(CHUNK), *y = xmalloc(CHUNK);
	struct err err = ERR_INIT;
	/* Builds' outputs: regular files only, never a wait on a FIFO or an
	 * endless device. */
	int fa = fsio_open_regular(a, &err), fb = fsio_open_regular(b, &err);
	bool same = fa >= 0 && fb >= 0;

	while (same) {
		size_t na, nb;
		same = read_full(fa, x, CHUNK, &na) && read_full(fb, y, CHUNK, &nb) && na == nb &&
		       !memcmp(x, y, na);
		if (!same || na < CHUNK)
			break;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	free(x);
	free(y);
	return same;
}
