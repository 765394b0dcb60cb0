/*
 * Everything himorime does with git, through libgit2 and nothing else (no git
 * binary). A `struct vcs` is the user's repository, opened from any path inside
 * it; through it REV strings become commit ids, the working tree's state is
 * read, ranges are walked, a commit is materialised as a private temporary
 * working tree for the base side of a comparison, and sweep results are kept
 * under a dedicated history ref. No libgit2 type leaves this folder: commits
 * travel as `struct vcs_sha` (40 hex digits).
 *
 * Never touched: the user's working tree, index, branches, config and hooks.
 * The only writes to the user's repository are the history ref and its objects.
 */
#ifndef HIMORIME_VCS_VCS_H
#define HIMORIME_VCS_VCS_H

#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VCS_SHA_HEX	40
#define VCS_HISTORY_REF "refs/himorime/history"

struct vcs;
struct vcs_tree;

/* A full commit id as 40 lower-case hex digits and a NUL. */
struct vcs_sha {
	char hex[VCS_SHA_HEX + 1];
};

struct vcs_sha_list {
	struct vcs_sha *items;
	size_t count;
};

/* Whether `path` or a directory above it has a `.git` entry: where vcs_open
 * could find a work tree. A few stat calls, where the first vcs_open of a
 * process pays libgit2's start-up (about 3.5 MiB on Debian 12, whose
 * libgit2 parses the system's CA bundle: docs/performance.md, "himorime's
 * own memory"). */
bool vcs_may_be_in_work_tree(const char *path);
/* Opens the repository containing `path` (searching upward). ERR_EXEC with the
 * fix for: no repository, one refused by the owner check (safe.directory). */
int vcs_open(const char *path, struct vcs **out, struct err *err);
void vcs_free(struct vcs *vcs);
/* Absolute working tree root with no trailing slash; NULL for a bare repository. */
const char *vcs_workdir(const struct vcs *vcs);
/* The working tree's own git directory, with a trailing slash: .git/ of the
 * main tree, .git/worktrees/NAME/ of a linked one; git leaves files it does
 * not know there alone. */
const char *vcs_git_dir(const struct vcs *vcs);
bool vcs_is_shallow(const struct vcs *vcs);

/* Resolves anything `git rev-parse REV^{commit}` accepts. ERR_USAGE for a REV
 * starting with '-', ERR_EXEC (with the candidates / the fetch hint / the
 * shallow-clone fix) otherwise. */
int vcs_resolve(struct vcs *vcs, const char *rev, struct vcs_sha *out, struct err *err);
int vcs_head(struct vcs *vcs, struct vcs_sha *out, struct err *err);
/* Modified, staged, or untracked files that are not ignored. Reads only. */
int vcs_is_dirty(struct vcs *vcs, bool *dirty, struct err *err);
int vcs_merge_base(struct vcs *vcs, const struct vcs_sha *a, const struct vcs_sha *b,
		   struct vcs_sha *out, struct err *err);

struct vcs_commit_info {
	struct vcs_sha sha;
	char *subject;		   /* first line of the message */
	int64_t author_time_s;	   /* seconds since the epoch */
	int author_utc_offset_min; /* the author's time zone */
};
int vcs_commit_info(struct vcs *vcs, const struct vcs_sha *sha, struct vcs_commit_info *out,
		    struct err *err);
void vcs_commit_info_release(struct vcs_commit_info *info);
/* The id of a commit's tree: two commits with the same tree id have the same
 * files, byte for byte (a revert, a commit compared with itself). */
int vcs_tree_id(struct vcs *vcs, const struct vcs_sha *commit, struct vcs_sha *out,
		struct err *err);

struct vcs_walk_opts {
	bool first_parent; /* follow only first parents from the range's tip */
	size_t every;	   /* keep every Nth commit counting back from the tip (1: all) */
};
#define VCS_WALK_OPTS_INIT                                                                         \
	{                                                                                          \
		.first_parent = false, .every = 1                                                  \
	}
/* Commits of `range` ("A..B", or "B" for all of B's history) oldest first, in
 * topological order. With every=N the tip is always kept. */
int vcs_walk(struct vcs *vcs, const char *range, const struct vcs_walk_opts *opts,
	     struct vcs_sha_list *out, struct err *err);
void vcs_sha_list_release(struct vcs_sha_list *list);

/* Orders commits by the commit graph: rank[i] is hex[i]'s position in a walk
 * of their first-parent history, topological (a parent before its child,
 * whatever their times say: a rebase gives a whole series one time), with
 * commit time only between unrelated lines; SIZE_MAX for a commit not in the
 * repository. Duplicates get the same rank. */
int vcs_graph_order(struct vcs *vcs, const char *const *hex, size_t n, size_t *rank,
		    struct err *err);

/*
 * Materialises `sha` as a real git working tree in a private directory
 * $TMPDIR/himorime-rev-<pid>-XXXXXX: a fresh repository whose objects come
 * from the user's through objects/info/alternates, detached HEAD at `sha`,
 * the user's tags copied (packed) for `git describe`, no hooks, and an index
 * refreshed so `git status` is clean and fast. ERR_EXEC naming the files when
 * the commit needs an external filter driver (e.g. Git LFS).
 */
int vcs_materialise(struct vcs *vcs, const struct vcs_sha *sha, struct vcs_tree **out,
		    struct err *err);
const char *vcs_tree_path(const struct vcs_tree *tree);
/* Removes the directory and frees the handle, also when removal fails (the
 * error says what is left). NULL is fine. */
int vcs_tree_remove(struct vcs_tree *tree, struct err *err);
/* Removes every directory vcs_materialise made in this process and that is not
 * removed yet. For the CLI's interrupt path: call it after the measured
 * processes are stopped, outside the signal handler (it allocates and does
 * I/O). Handles stay valid; removing them later is harmless. Returns how many
 * directories could not be removed. */
size_t vcs_remove_live_trees(void);
/* NULL-terminated names of the environment variables that point git at a
 * repository (GIT_DIR, GIT_WORK_TREE, ...). Commands run in a materialised
 * tree must not inherit them, or the git binary there would use the user's
 * repository instead of the tree's own. */
const char *const *vcs_git_env_names(void);
/* Removes himorime-rev-<pid>-* directories in $TMPDIR owned by this user
 * whose pid is no longer alive (left by a killed run). */
int vcs_sweep_stale(size_t *removed, struct err *err);

/*
 * History ref (docs/sweeps.md): one JSON document per (commit, suite hash), stored as
 * <commit-sha>/<suite-hash>.json in the tree of a commit chain under `ref`
 * (VCS_HISTORY_REF by default). Writes are compare-and-swap on the ref.
 */
struct vcs_history_entry {
	struct vcs_sha commit;
	char *suite_hash; /* [0-9A-Za-z_-], 1 to 128 characters */
	char *json;
	size_t json_len;
};

struct vcs_history {
	struct vcs_sha tip; /* the ref's value when read; hex "" when absent */
	struct vcs_history_entry *entries;
	size_t count;
};

int vcs_history_read(struct vcs *vcs, const char *ref, struct vcs_history *out, struct err *err);
/* Adds (or replaces) entries on top of `base` (as read) and moves the ref only
 * if it still points at base->tip: ERR_EXEC "... was updated by another writer"
 * otherwise, and nothing changes. */
int vcs_history_write(struct vcs *vcs, const char *ref, const struct vcs_history *base,
		      const struct vcs_history_entry *entries, size_t count, struct err *err);
/* Read, write, and on a concurrent update read again after a random, growing
 * back-off, up to 40 attempts (about 4 s). */
int vcs_history_append(struct vcs *vcs, const char *ref, const struct vcs_history_entry *entries,
		       size_t count, struct err *err);
/* Keeps the entries of the `keep` newest commits (by committer time of the
 * measured commit; commits no longer in the repository count as oldest);
 * *removed is how many commits' entries were dropped. Retries like append. */
int vcs_history_prune(struct vcs *vcs, const char *ref, size_t keep, size_t *removed,
		      struct err *err);
void vcs_history_release(struct vcs_history *history);

#endif
