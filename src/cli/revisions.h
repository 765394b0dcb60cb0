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

/* Which suite file defines what each side measures (docs/revisions.md). */
enum revisions_suite_from {
	/* The working tree's suite, on the base only when the base revision has
	 * the suite file too; otherwise the suite is new (head only). */
	REVISIONS_SUITE_OWN,
	/* The working tree's suite on both sides, whatever the base has. */
	REVISIONS_SUITE_HEAD,
	/* The base revision's suite file on both sides; it must exist there. */
	REVISIONS_SUITE_BASE,
};

struct revisions {
	struct vcs *vcs;
	struct vcs_tree *base_tree, *head_tree;
	struct vcs_sha base, head;
	/* The trees' ids (vcs_tree_id); head's hex is "" for a working tree
	 * with changes. same_tree: both known and equal (and not calibrate's
	 * two builds), so one tree is materialised and built for both sides. */
	struct vcs_sha base_tree_id, head_tree_id;
	bool same_tree;
	bool dirty;
	const char *head_dir; /* the working tree, or head_tree's path */
	const char *base_dir; /* base_tree's path; NULL for none */
	/* Names children must not see besides the tokens and the runner's files
	 * that exec.c always hides: git's own variables. */
	const char **hidden;
	size_t n_hidden;
	enum revisions_suite_from suite_from;
	/* --suite-from base: per suite of the session, the base revision's copy
	 * (NULL when the base is the working tree itself, or nothing of the
	 * suite is selected) and its selection; loaded once, before anything
	 * runs, by revisions_plan. */
	struct suite **base_suites;
	bool **base_selected;
	size_t n_base_suites;
};

struct revisions_request {
	const char *against;	 /* REV for the base; NULL: head against itself */
	const char *head;	 /* REV to measure as head; NULL: the working tree */
	bool merge_base;	 /* base = merge base of against and head */
	const char *base_source; /* "--against", "HIMORIME_BASE_REF", "event" */
	enum revisions_suite_from suite_from;
	const char *base_name; /* the base's branch, when known; NULL: REV as given */
};

/* The --suite-from flag of `cmd`: NULL (the default), "head" or "base".
 * Prints a usage error and returns 3 for anything else. */
int revisions_suite_from(const char *cmd, const char *text, enum revisions_suite_from *out);

/* Opens the repository that holds the first suite, resolves and materialises.
 * Prints a clear error and returns its exit code on failure. */
int revisions_open(struct session *s, const struct revisions_request *req, struct revisions *out);
/* Measures every suite of the session: head against base, with the suite
 * file rv->suite_from names; by default a suite whose file does not exist in
 * the base is measured on head only (new in head). */
int revisions_measure(struct session *s, struct revisions *rv, bool **selected);
/* session_plan() once the revisions are known: a suite new in head is
 * measured on head only, so its run counts are not checked (the reference's
 * rule: runs below min_samples are refused only where a comparison is made);
 * with --suite-from head every suite is compared, and with --suite-from base
 * the base revision's copies are loaded and planned instead. Exit 2 at the
 * suite's position before anything runs, 4 when a base copy is missing. */
int revisions_plan(struct session *s, struct revisions *rv, bool **selected);
void revisions_release(struct revisions *rv);
/* The suite's directory inside `root`, a checkout of the repository (a
 * materialised revision, or the working tree itself), found from where the
 * suite lies in the working tree; NULL when it lies outside the repository. */
char *revisions_suite_root(const struct revisions *rv, const struct suite *suite, const char *root);
/* Compare and calibrate after their flags, up to their report: opens the
 * revisions, checks the looks, measures, removes the trees. The command
 * then ends the session (session_finish, or its steps). */
int revisions_compare(struct session *s, const struct revisions_request *req);

#endif
