/*
 * The sweep history as results documents: see store.h.
 */
#include "cli/store.h"

#include "common/alloc.h"
#include "common/strbuf.h"
#include "history/sweep.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

int store_read(struct vcs *vcs, const char *ref, struct store_docs *out, struct err *err)
{
	struct vcs_history h;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = vcs_history_read(vcs, ref, &h, err)) < 0)
		return rc;
	if (h.tip.hex[0])
		out->tip = xstrdup(h.tip.hex);
	out->v = xcalloc(h.count + 1, sizeof(*out->v));
	for (i = 0; i < h.count && rc == 0; i++) {
		const struct vcs_history_entry *e = &h.entries[i];
		char *name = xasprintf("%s:%s/%s.json", ref, e->commit.hex, e->suite_hash);
		rc = results_from_json(e->json, e->json_len, name, &out->v[out->count], err);
		if (rc == 0)
			out->count++;
		free(name);
	}
	vcs_history_release(&h);
	if (rc < 0)
		store_docs_release(out);
	return rc;
}

bool store_has(const struct store_docs *docs, const char *sha, const char *suite_hash,
	       const char *settings_hash)
{
	size_t i, k;

	for (i = 0; i < docs->count; i++) {
		const struct results *r = docs->v[i];
		if (!r->sweep.settings_hash || strcmp(r->sweep.settings_hash, settings_hash))
			continue;
		for (k = 0; k < r->n_suites; k++) {
			const struct results_commit *c = &r->suites[k].commit;
			if (c->present && c->sha && c->suite_hash && !strcmp(c->sha, sha) &&
			    !strcmp(c->suite_hash, suite_hash))
				return true;
		}
	}
	return false;
}

void store_docs_release(struct store_docs *docs)
{
	size_t i;

	if (!docs)
		return;
	for (i = 0; i < docs->count; i++)
		results_free(docs->v[i]);
	free(docs->v);
	free(docs->tip);
	memset(docs, 0, sizeof(*docs));
}

/* The document of suite i alone, as JSON: a view that shares the parent's
 * strings (nothing of it is freed), whose head is the suite's commit. */
static int one_suite(const struct results *doc, size_t i, char **out, size_t *out_len,
		     struct err *err)
{
	struct results view = *doc;

	view.suites = (struct results_suite *)&doc->suites[i];
	view.n_suites = 1;
	view.alloc_suites = 1;
	view.git.present = true;
	view.git.head_sha = doc->suites[i].commit.sha;
	view.git.dirty = false;
	return results_to_json(&view, out, out_len, err);
}

int store_append(struct vcs *vcs, const char *ref, const struct results *doc, size_t first,
		 size_t count, struct err *err)
{
	struct vcs_history_entry *entries = xcalloc(count + 1, sizeof(*entries));
	size_t i, n = 0;
	int rc = 0;

	for (i = first; i < first + count && i < doc->n_suites && rc == 0; i++) {
		const struct results_suite *s = &doc->suites[i];
		struct vcs_history_entry *e = &entries[n];
		struct strbuf key;
		if (!s->commit.present || !s->commit.sha || strlen(s->commit.sha) != VCS_SHA_HEX ||
		    !s->commit.suite_hash || !doc->sweep.settings_hash) {
			rc = err_set(err, ERR_INVALID,
				     "suite %zu of the sweep does not name its commit and hashes",
				     i);
			break;
		}
		memcpy(e->commit.hex, s->commit.sha, VCS_SHA_HEX + 1);
		strbuf_init(&key, 0);
		sweep_entry_key(s->commit.suite_hash, doc->sweep.settings_hash, &key);
		e->suite_hash = strbuf_detach(&key, NULL);
		n++;
		rc = one_suite(doc, i, &e->json, &e->json_len, err);
	}
	if (rc == 0 && n)
		rc = vcs_history_append(vcs, ref, entries, n, err);
	for (i = 0; i < n; i++) {
		free(entries[i].suite_hash);
		free(entries[i].json);
	}
	free(entries);
	return rc;
}

int store_graph_order(struct vcs *vcs, const struct results *const *docs, size_t n_docs,
		      struct store_order *out, struct err *err)
{
	size_t i, j, n = 0;
	int rc;

	for (i = 0; i < n_docs; i++)
		n += docs[i]->n_suites;
	out->sha = xcalloc(n + 1, sizeof(*out->sha));
	out->rank = xcalloc(n + 1, sizeof(*out->rank));
	out->n = 0;
	for (i = 0; i < n_docs; i++)
		for (j = 0; j < docs[i]->n_suites; j++)
			if (docs[i]->suites[j].commit.present && docs[i]->suites[j].commit.sha)
				out->sha[out->n++] = docs[i]->suites[j].commit.sha;
	rc = vcs_graph_order(vcs, out->sha, out->n, out->rank, err);
	if (rc < 0)
		store_order_release(out);
	return rc;
}

void store_order_release(struct store_order *o)
{
	if (!o)
		return;
	free(o->sha);
	free(o->rank);
	memset(o, 0, sizeof(*o));
}
