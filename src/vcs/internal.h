/*
 * What the files of src/vcs share and nothing outside sees: the repository
 * handle and libgit2 error helpers. Included only by the files of src/vcs.
 */
#ifndef HIMORIME_VCS_INTERNAL_H
#define HIMORIME_VCS_INTERNAL_H

#include "vcs/vcs.h"

#include <git2.h>

struct vcs {
	git_repository *repo;
	char *workdir;	 /* absolute, no trailing slash; NULL when bare */
	char *commondir; /* absolute, with a trailing slash (libgit2's form) */
};

/* Sets ERR_EXEC "<what>: <libgit2's last message>" and returns it. */
int vcs_lg_error(struct err *err, const char *what);
/* The "not in this shallow clone" or "not found" wording for a revision. */
int vcs_missing_rev_error(const struct vcs *vcs, const char *rev, struct err *err);
void vcs_sha_from_oid(struct vcs_sha *out, const git_oid *oid);
/* 0, or ERR_INTERNAL when `sha` is not 40 hex digits. */
int vcs_oid_from_sha(git_oid *out, const struct vcs_sha *sha, struct err *err);

#endif
