/*
 * The sweep history kept inside the repository (docs/sweeps.md): a chain of commits
 * under one ref (refs/himorime/history by default) whose tree holds
 * <commit-sha>/<suite-hash>.json. It is made of ordinary git objects, so it is
 * fetched and pushed like any ref; it never touches branches, the index or
 * the working tree. Updates are compare-and-swap on the ref: a writer that
 * lost a race is told so and nothing it wrote becomes visible.
 */
#include "vcs/internal.h"

#include "common/alloc.h"
#include "common/rng.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/banned.h"

#define MAX_SUITE_HASH 128
#define MAX_JSON_BYTES (16u << 20)
#define MAX_ATTEMPTS   40 /* about 4 s of backing off at most */

/* After a lost race: waits a random time below 1 ms, 2 ms, 4 ms, ... up to
 * 128 ms, so that writers that collided spread out instead of colliding
 * again on their next try (retrying at once lost 5 tries in a row to 6
 * racing writers). */
static void back_off(struct rng *rng, int attempt)
{
	uint64_t cap_us = UINT64_C(1000) << (attempt < 7 ? attempt : 7);
	uint64_t us = rng_below(rng, cap_us);
	struct timespec ts = { .tv_sec = (time_t)(us / 1000000),
			       .tv_nsec = (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int check_ref(const char *ref, struct err *err)
{
	if (strncmp(ref, "refs/", 5) != 0 || !git_reference_is_valid_name(ref))
		return err_set(err, ERR_USAGE, "history ref \"%s\" is not a valid ref name", ref);
	if (strncmp(ref, "refs/heads/", 11) == 0 || strncmp(ref, "refs/tags/", 10) == 0 ||
	    strncmp(ref, "refs/remotes/", 13) == 0)
		return err_set(
			err, ERR_USAGE,
			"history ref \"%s\" must not be a branch, tag or remote-tracking ref", ref);
	return 0;
}

static bool valid_suite_hash(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && s[n] != '-' && s[n] != '_')
			return false;
	return n >= 1 && n <= MAX_SUITE_HASH;
}

static bool valid_sha(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]) || isupper((unsigned char)s[n]))
			return false;
	return n == VCS_SHA_HEX;
}

void vcs_history_release(struct vcs_history *history)
{
	size_t i;

	if (!history)
		return;
	for (i = 0; i < history->count; i++) {
		free(history->entries[i].suite_hash);
		free(history->entries[i].json);
	}
	free(history->entries);
	memset(history, 0, sizeof(*history));
}

static void add_entry(struct vcs_history *h, size_t *alloc, const char *commit, const char *file,
		      const git_blob *blob)
{
	struct vcs_history_entry *e;
	size_t len = (size_t)git_blob_rawsize(blob);

	h->entries = xgrow(h->entries, alloc, h->count + 1, sizeof(*h->entries));
	e = &h->entries[h->count++];
	memcpy(e->commit.hex, commit, VCS_SHA_HEX + 1);
	e->suite_hash = xstrndup(file, strlen(file) - 5);
	e->json = xmalloc(len + 1);
	memcpy(e->json, git_blob_rawcontent(blob), len);
	e->json[len] = '\0';
	e->json_len = len;
}

/* Entries that do not have the expected shape (a file someone else put
 * there) are skipped rather than trusted. */
static int read_commit_dir(git_repository *repo, const git_tree_entry *dir, struct vcs_history *h,
			   size_t *alloc, struct err *err)
{
	git_tree *sub = NULL;
	size_t i, n;

	if (git_tree_lookup(&sub, repo, git_tree_entry_id(dir)) < 0)
		return vcs_lg_error(err, "cannot read the history");
	n = git_tree_entrycount(sub);
	for (i = 0; i < n; i++) {
		const git_tree_entry *f = git_tree_entry_byindex(sub, i);
		const char *name = git_tree_entry_name(f);
		size_t len = strlen(name);
		git_blob *blob = NULL;
		char *hash;
		bool ok;

		if (git_tree_entry_type(f) != GIT_OBJECT_BLOB || len <= 5 ||
		    strcmp(name + len - 5, ".json") != 0)
			continue;
		hash = xstrndup(name, len - 5);
		ok = valid_suite_hash(hash);
		free(hash);
		if (!ok)
			continue;
		if (git_blob_lookup(&blob, repo, git_tree_entry_id(f)) < 0) {
			git_tree_free(sub);
			return vcs_lg_error(err, "cannot read the history");
		}
		if (git_blob_rawsize(blob) <= MAX_JSON_BYTES)
			add_entry(h, alloc, git_tree_entry_name(dir), name, blob);
		git_blob_free(blob);
	}
	git_tree_free(sub);
	return 0;
}

int vcs_history_read(struct vcs *vcs, const char *ref, struct vcs_history *out, struct err *err)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	size_t alloc = 0, i, n;
	git_oid tip;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = check_ref(ref, err)) < 0)
		return rc;
	rc = git_reference_name_to_id(&tip, vcs->repo, ref);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return vcs_lg_error(err, "cannot read the history ref");
	vcs_sha_from_oid(&out->tip, &tip);
	if (git_commit_lookup(&commit, vcs->repo, &tip) < 0 || git_commit_tree(&tree, commit) < 0) {
		rc = vcs_lg_error(err, "cannot read the history");
		goto done;
	}
	n = git_tree_entrycount(tree);
	for (i = 0; i < n && rc == 0; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		if (git_tree_entry_type(e) == GIT_OBJECT_TREE && valid_sha(git_tree_entry_name(e)))
			rc = read_commit_dir(vcs->repo, e, out, &alloc, err);
	}
done:
	if (rc < 0)
		vcs_history_release(out);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}

/* Builds the root tree holding exactly `entries`. */
static int write_tree(git_repository *repo, const struct vcs_history_entry *entries, size_t count,
		      git_oid *out, struct err *err)
{
	git_treebuilder *root = NULL;
	size_t i, j;
	int rc = 0;

	if (git_treebuilder_new(&root, repo, NULL) < 0)
		return vcs_lg_error(err, "cannot write the history");
	for (i = 0; i < count && rc == 0; i++) {
		git_treebuilder *dir = NULL;
		git_oid sub;

		if (git_treebuilder_get(root, entries[i].commit.hex))
			continue; /* this commit's directory is written already */
		if (git_treebuilder_new(&dir, repo, NULL) < 0) {
			rc = vcs_lg_error(err, "cannot write the history");
			break;
		}
		for (j = i; j < count && rc == 0; j++) {
			char *name;
			git_oid blob;

			if (strcmp(entries[j].commit.hex, entries[i].commit.hex) != 0)
				continue;
			name = xasprintf("%s.json", entries[j].suite_hash);
			if (git_blob_create_from_buffer(&blob, repo, entries[j].json,
							entries[j].json_len) < 0 ||
			    git_treebuilder_insert(NULL, dir, name, &blob, GIT_FILEMODE_BLOB) < 0)
				rc = vcs_lg_error(err, "cannot write the history");
			free(name);
		}
		if (rc == 0 && (git_treebuilder_write(&sub, dir) < 0 ||
				git_treebuilder_insert(NULL, root, entries[i].commit.hex, &sub,
						       GIT_FILEMODE_TREE) < 0))
			rc = vcs_lg_error(err, "cannot write the history");
		git_treebuilder_free(dir);
	}
	if (rc == 0 && git_treebuilder_write(out, root) < 0)
		rc = vcs_lg_error(err, "cannot write the history");
	git_treebuilder_free(root);
	return rc;
}

/* Commits `entries` as the new history on top of `base` and moves the ref
 * only if it still points where `base` was read from. */
static int commit_history(struct vcs *vcs, const char *ref, const struct vcs_history *base,
			  const struct vcs_history_entry *entries, size_t count,
			  const char *message, bool *lost_race, struct err *err)
{
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_reference *moved = NULL;
	git_oid tree_id, commit_id, old;
	bool has_old = base->tip.hex[0] != '\0';
	int rc;

	if (has_old && (rc = vcs_oid_from_sha(&old, &base->tip, err)) < 0)
		return rc;
	if ((rc = write_tree(vcs->repo, entries, count, &tree_id, err)) < 0)
		return rc;
	if (git_signature_now(&sig, "himorime", "himorime@localhost") < 0 ||
	    git_tree_lookup(&tree, vcs->repo, &tree_id) < 0 ||
	    (has_old && git_commit_lookup(&parent, vcs->repo, &old) < 0) ||
	    git_commit_create(&commit_id, vcs->repo, NULL, sig, sig, NULL, message, tree,
			      has_old ? 1 : 0, (const git_commit **)&parent) < 0) {
		rc = vcs_lg_error(err, "cannot write the history");
		goto done;
	}
	/* A NULL current id would skip the check under the ref's lock, and two
	 * writers creating the ref at once would both win: the zero id means
	 * "must not exist yet" and is checked under the lock. */
	if (!has_old)
		memset(&old, 0, sizeof(old));
	rc = git_reference_create_matching(&moved, vcs->repo, ref, &commit_id, has_old, &old,
					   message);
	*lost_race = rc == GIT_EMODIFIED || rc == GIT_EEXISTS || rc == GIT_ELOCKED;
	if (*lost_race)
		rc = err_set(err, ERR_EXEC,
			     "history ref \"%s\" was updated by another writer: read it again "
			     "and retry",
			     ref);
	else if (rc < 0)
		rc = vcs_lg_error(err, "cannot update the history ref");
done:
	git_reference_free(moved);
	git_tree_free(tree);
	git_commit_free(parent);
	git_signature_free(sig);
	return rc;
}

static bool same_key(const struct vcs_history_entry *a, const struct vcs_history_entry *b)
{
	return strcmp(a->commit.hex, b->commit.hex) == 0 &&
	       strcmp(a->suite_hash, b->suite_hash) == 0;
}

static int write_on(struct vcs *vcs, const char *ref, const struct vcs_history *base,
		    const struct vcs_history_entry *entries, size_t count, bool *lost_race,
		    struct err *err)
{
	struct vcs_history_entry *all;
	size_t n = 0, i, j;
	int rc;

	if ((rc = check_ref(ref, err)) < 0)
		return rc;
	for (i = 0; i < count; i++)
		if (!valid_sha(entries[i].commit.hex) || !valid_suite_hash(entries[i].suite_hash))
			return err_set(err, ERR_INTERNAL,
				       "history entry \"%s/%s\" has a malformed name",
				       entries[i].commit.hex, entries[i].suite_hash);
	all = xcalloc(base->count + count + 1, sizeof(*all));
	for (i = 0; i < base->count; i++) { /* kept unless replaced */
		for (j = 0; j < count && !same_key(&base->entries[i], &entries[j]); j++)
			;
		if (j == count)
			all[n++] = base->entries[i];
	}
	for (i = 0; i < count; i++)
		all[n++] = entries[i];
	rc = commit_history(vcs, ref, base, all, n, "himorime: record results", lost_race, err);
	free(all);
	return rc;
}

int vcs_history_write(struct vcs *vcs, const char *ref, const struct vcs_history *base,
		      const struct vcs_history_entry *entries, size_t count, struct err *err)
{
	bool lost_race = false;

	return write_on(vcs, ref, base, entries, count, &lost_race, err);
}

int vcs_history_append(struct vcs *vcs, const char *ref, const struct vcs_history_entry *entries,
		       size_t count, struct err *err)
{
	bool lost_race = false;
	int attempt, rc = 0;
	struct rng rng;

	rng_init(&rng, rng_fresh_seed(), "history");
	for (attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		struct vcs_history base;

		if (attempt)
			back_off(&rng, attempt - 1);
		if ((rc = vcs_history_read(vcs, ref, &base, err)) < 0)
			return rc;
		err_clear(err);
		rc = write_on(vcs, ref, &base, entries, count, &lost_race, err);
		vcs_history_release(&base);
		if (!lost_race)
			return rc;
	}
	return err_set(err, ERR_EXEC,
		       "history ref \"%s\" was updated by another writer %d times in a row: try "
		       "again",
		       ref, MAX_ATTEMPTS);
}

struct dated {
	const char *sha;
	int64_t time_s;
};

static int newest_first(const void *a, const void *b)
{
	const struct dated *x = a, *y = b;

	if (x->time_s != y->time_s)
		return x->time_s > y->time_s ? -1 : 1;
	return strcmp(x->sha, y->sha);
}

static int64_t commit_time(struct vcs *vcs, const char *hex)
{
	git_commit *commit = NULL;
	int64_t t = INT64_MIN;
	git_oid oid;

	if (git_oid_fromstr(&oid, hex) == 0 && git_commit_lookup(&commit, vcs->repo, &oid) == 0)
		t = git_commit_time(commit);
	git_commit_free(commit);
	return t;
}

/* The distinct commits of `h`, newest first. */
static size_t dated_commits(struct vcs *vcs, const struct vcs_history *h, struct dated *out)
{
	size_t i, j, n = 0;

	for (i = 0; i < h->count; i++) {
		for (j = 0; j < n && strcmp(out[j].sha, h->entries[i].commit.hex) != 0; j++)
			;
		if (j < n)
			continue;
		out[n].sha = h->entries[i].commit.hex;
		out[n++].time_s = commit_time(vcs, h->entries[i].commit.hex);
	}
	qsort(out, n, sizeof(*out), newest_first);
	return n;
}

/* One read-filter-write pass; *lost_race when another writer got there first. */
static int prune_once(struct vcs *vcs, const char *ref, size_t keep, size_t *removed,
		      bool *lost_race, struct err *err)
{
	struct vcs_history h;
	struct vcs_history_entry *kept;
	struct dated *commits;
	size_t n, i, j, nkept = 0;
	int rc;

	*lost_race = false;
	if ((rc = vcs_history_read(vcs, ref, &h, err)) < 0)
		return rc;
	commits = xcalloc(h.count + 1, sizeof(*commits));
	kept = xcalloc(h.count + 1, sizeof(*kept));
	n = dated_commits(vcs, &h, commits);
	for (i = 0; i < h.count; i++)
		for (j = 0; j < n && j < keep; j++)
			if (strcmp(commits[j].sha, h.entries[i].commit.hex) == 0)
				kept[nkept++] = h.entries[i];
	if (n > keep)
		rc = commit_history(vcs, ref, &h, kept, nkept, "himorime: prune history", lost_race,
				    err);
	if (rc == 0)
		*removed = n > keep ? n - keep : 0;
	free(kept);
	free(commits);
	vcs_history_release(&h);
	return rc;
}

int vcs_history_prune(struct vcs *vcs, const char *ref, size_t keep, size_t *removed,
		      struct err *err)
{
	bool lost_race = false;
	int attempt, rc;
	struct rng rng;

	*removed = 0;
	rng_init(&rng, rng_fresh_seed(), "history");
	for (attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		if (attempt)
			back_off(&rng, attempt - 1);
		rc = prune_once(vcs, ref, keep, removed, &lost_race, err);
		if (!lost_race)
			return rc;
		err_clear(err);
	}
	return err_set(err, ERR_EXEC,
		       "history ref \"%s\" was updated by another writer %d times in a row: try "
		       "again",
		       ref, MAX_ATTEMPTS);
}
