/*
 * The revisions a comparison measures: the base materialised from the user's
 * repository into a private temporary tree, and head as the working tree (or
 * a commit with --head). Shared by `compare`, `calibrate` and `ci`; the trees
 * are removed by revisions_release, also after an error or an interrupt.
 */
#ifndef HIMORIME_CLI_REVISIONS_H
#define HIMORIME_CLI_REVISIONS_H

#include "cli/session.h"
#include "vcs/vcs.h"

#include <stdbool.h>

struct revisions {
	struct vcs *vcs;
	struct vcs_tree *base_tree, *head_tree;
	struct vcs_sha base, head;
	bool dirty;
	const char *head_dir; /* the working tree, or head_tree's path */
	const char *base_dir; /* base_tree's path; NULL for none */
	/* Names children must not see: tokens and git's own variables. */
	const char **hidden;
	size_t n_hidden;
};

struct revisions_request {
	const char *against;	 /* REV for the base; NULL: head against itself */
	const char *head;	 /* REV to measure as head; NULL: the working tree */
	bool merge_base;	 /* base = merge base of against and head */
	const char *base_source; /* "--against", "HIMORIME_BASE_REF", "event" */
	const char *base_name;	 /* the base's branch, when known; NULL: REV as given */
};

/* Opens the repository that holds the first suite, resolves and materialises.
 * Prints a clear error and returns its exit code on failure. */
int revisions_open(struct session *s, const struct revisions_request *req, struct revisions *out);
/* Measures every suite of the session: head against base; a suite whose file
 * does not exist in the base is measured on head only (new in head). */
int revisions_measure(struct session *s, struct revisions *rv, bool **selected);
void revisions_release(struct revisions *rv);
/* The whole of compare and calibrate after their flags: checks the looks,
 * opens the revisions, measures, removes the trees, writes the report. */
int revisions_compare(struct session *s, const struct revisions_request *req);

#endif
