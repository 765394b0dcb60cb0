/*
 * File helpers shared by every stage that reads input or writes output:
 * bounded reads of untrusted files, atomic writes (temporary file in the same
 * folder, fsync, rename: a failed write never leaves a truncated file), private
 * temporary directories and recursive removal.
 */
#ifndef HIMORIME_COMMON_FSIO_H
#define HIMORIME_COMMON_FSIO_H

#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Opens a regular file for reading without ever blocking on it: O_NONBLOCK,
 * then fstat. A FIFO, a device, a socket or a directory is ERR_EXEC
 * ("cannot read "x": not a regular file (a FIFO)"), the descriptor closed.
 * Returns the descriptor (O_CLOEXEC, blocking again), or -1 with err set. */
int fsio_open_regular(const char *path, struct err *err);
/* "a FIFO", "a directory", ... for a st_mode. */
const char *fsio_kind_name(unsigned mode);
/* Reads a whole file of at most `cap` bytes into a NUL-terminated heap buffer.
 * A larger file is ERR_INVALID ("larger than N bytes"); a missing or
 * unreadable one, or one that is not a regular file, is ERR_EXEC. */
int fsio_read_file(const char *path, size_t cap, char **out, size_t *len, struct err *err);
/* A file in a directory that code himorime does not trust can write (the
 * measured code's: valgrind's out files), read under caps
 * (docs/github-actions.md, "Threat model"): opened with O_NOFOLLOW and
 * O_NONBLOCK, refused unless it is a regular file of at most `cap` bytes,
 * read in chunks, and given up when CLOCK_MONOTONIC passes `deadline_ns`
 * (clock_monotonic_ns() plus the time allowed).
 * A symbolic link, a FIFO or a device, a larger file and a read that outlasts
 * the deadline are ERR_EXEC with the reason ("cannot read "x": a symbolic
 * link", "... not a regular file (a FIFO)", "... larger than N bytes",
 * "... took longer than the time allowed"). */
struct fsio_capped {
	int fd;
	const char *path;
	size_t cap, done;
	uint64_t deadline_ns; /* CLOCK_MONOTONIC */
};
int fsio_capped_open(struct fsio_capped *f, const char *path, size_t cap, uint64_t deadline_ns,
		     struct err *err);
/* Up to n bytes: their number, 0 at the end, or ERR_EXEC with err set. */
long fsio_capped_read(struct fsio_capped *f, void *buf, size_t n, struct err *err);
void fsio_capped_close(struct fsio_capped *f);
/* The whole file so read, NUL-terminated, into a heap buffer. */
int fsio_capped_read_all(const char *path, size_t cap, uint64_t deadline_ns, char **out,
			 size_t *len, struct err *err);
/* Writes `len` bytes to `path` atomically. ERR_EXEC on any failure, and the
 * previous content of `path`, if any, is left intact. */
int fsio_write_atomic(const char *path, const void *data, size_t len, struct err *err);
/* The same in steps, for text written as it is made: a temporary file beside
 * `path` (which must outlive the writer), renamed over it by the commit. Any
 * failure removes the temporary file and leaves `path` as it was, so after
 * an error nothing is left to release; abort drops a writer that has not
 * failed (and does nothing after a commit or an error). */
struct fsio_atomic {
	const char *path;
	char *tmp;
	int fd;
};
int fsio_atomic_open(struct fsio_atomic *a, const char *path, struct err *err);
int fsio_atomic_write(struct fsio_atomic *a, const void *data, size_t len, struct err *err);
int fsio_atomic_commit(struct fsio_atomic *a, struct err *err);
void fsio_atomic_abort(struct fsio_atomic *a);
/* Appends to a file (created if missing), as GitHub's step summary wants.
 * The file is opened without blocking and must be a regular file: a FIFO
 * (which would wait for a reader) is ERR_EXEC, "cannot append to "x": not a
 * regular file (a FIFO)". */
int fsio_append(const char *path, const void *data, size_t len, struct err *err);
/* Creates a private (0700) directory under $TMPDIR (or /tmp) named
 * "<prefix>XXXXXX"; *out is a heap string. */
int fsio_mkdtemp(const char *prefix, char **out, struct err *err);
/* Removes a file or a directory tree, making read-only directories writable
 * first (as Go's module cache leaves them). Missing is not an error. */
int fsio_remove_tree(const char *path, struct err *err);

/* Whether two files hold the same bytes (false when either cannot be read). */
bool fsio_same_content(const char *a, const char *b);

/* Removes the directories "$TMPDIR/<prefix><pid>-*" that this user owns and
 * whose pid is no longer alive: what a killed run left behind. */
int fsio_sweep_stale(const char *prefix, size_t *removed, struct err *err);

#endif
