/*
 * One himorime at a time on a working tree that it builds in
 * (docs/revisions.md#builds). Two runs on one tree at once build over each
 * other, so `run`, `compare`, `calibrate` and `ci` hold a lock on the
 * working tree while they measure a suite that has a `build`:
 *
 *   <git dir>/himorime.lock   in a git working tree (.git/ of the main tree,
 *                             .git/worktrees/NAME/ of a linked one), which
 *                             git neither reads nor shows;
 *   <dir>/.himorime.lock      outside git, in the suite's directory.
 *
 * The lock is flock(2) on that file, which holds the holder's pid. The
 * kernel drops it however the holder ends (a crash, SIGKILL), so a file that
 * a dead process left is simply taken over. The holder removes the file as
 * it releases the lock; a process that opened the old file just before sees,
 * once it has the lock, that the name leads elsewhere (or nowhere) now, and
 * starts over.
 *
 *     struct treelock l = TREELOCK_INIT;
 *     if (treelock_take(&l, "/repo/.git/himorime.lock", "/repo", &err) < 0)
 *             l.busy ? refuse : warn and go on unguarded;
 *     ... build and measure ...
 *     treelock_release(&l);
 */
#ifndef HIMORIME_CLI_TREELOCK_H
#define HIMORIME_CLI_TREELOCK_H

#include "common/err.h"

#include <stdbool.h>

struct treelock {
	char *path;
	int fd;	   /* the held lock; -1: none */
	bool busy; /* treelock_take failed because another process holds it */
};

#define TREELOCK_INIT                                                                              \
	{                                                                                          \
		.path = NULL, .fd = -1, .busy = false                                              \
	}

/* Takes the lock at `path` for the working tree `tree` (named in messages).
 * ERR_EXEC with busy set when another process holds it (the message names
 * it by pid when it can), or with busy unset when the lock file cannot be
 * made or used (a read-only tree, a symbolic link or a special file at that
 * name: never followed or waited on). */
int treelock_take(struct treelock *l, const char *path, const char *tree, struct err *err);
/* Removes the file and drops the lock, if held. */
void treelock_release(struct treelock *l);

#endif
