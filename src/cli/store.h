/*
 * The sweep history as results documents: reading every entry of the
 * history ref (one document per commit and suite), and appending a sweep's
 * document to it split into those entries. Shared by sweep, history, merge
 * and bisect; the storage itself (git objects, compare-and-swap on the ref)
 * is vcs_history_*.
 */
#ifndef HIMORIME_CLI_STORE_H
#define HIMORIME_CLI_STORE_H

#include "common/err.h"
#include "results/results.h"
#include "vcs/vcs.h"

#include <stdbool.h>
#include <stddef.h>

struct store_docs {
	struct results **v;
	size_t count;
	char *tip; /* the ref's commit when read; NULL when the ref is absent */
};

/* Reads and parses every entry under `ref`. A malformed entry is an error
 * naming it (ERR_INVALID). */
int store_read(struct vcs *vcs, const char *ref, struct store_docs *out, struct err *err);
/* True when the history holds commit `sha` with this entry key
 * ("<suite-hash>-<settings-hash>"). */
bool store_has(const struct store_docs *docs, const char *sha, const char *suite_hash,
	       const char *settings_hash);
void store_docs_release(struct store_docs *docs);

/* The commits of the documents placed in the commit graph (vcs_graph_order),
 * for sweep_series_build: a history in the order of the graph, not of commit
 * times, which a rebase makes equal. */
struct store_order {
	const char **sha; /* lent by the documents */
	size_t *rank;
	size_t n;
};
int store_graph_order(struct vcs *vcs, const struct results *const *docs, size_t n_docs,
		      struct store_order *out, struct err *err);
void store_order_release(struct store_order *o);

/* Appends one document per suite doc->suites[first .. first+count) (each
 * suite names its commit) to the history under `ref`, replacing entries with
 * the same key. */
int store_append(struct vcs *vcs, const char *ref, const struct results *doc, size_t first,
		 size_t count, struct err *err);

#endif
