/*
 * The user's repository: opening it (with the owner check's fix spelled out),
 * turning REV strings into commit ids, reading the working tree's state, merge
 * bases, commit subjects and walks over ranges. Everything here only reads.
 */
#include "vcs/internal.h"

#include "common/alloc.h"
#include "common/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

#define SHALLOW_FIX    "fetch the history (actions/checkout with fetch-depth: 0)"
#define MAX_CANDIDATES 10

int vcs_lg_error(struct err *err, const char *what)
{
	const git_error *e = git_error_last();
	return err_set(err, ERR_EXEC, "%s: %s", what,
		       e && e->message ? e->message : "unknown error");
}

int vcs_missing_rev_error(const struct vcs *vcs, const char *rev, struct err *err)
{
	if (vcs_is_shallow(vcs))
		return err_set(err, ERR_EXEC, "revision \"%s\" is not in this shallow clone: %s",
			       rev, SHALLOW_FIX);
	return err_set(err, ERR_EXEC,
		       "revision \"%s\" not found: fetch it, or in GitHub Actions use "
		       "actions/checkout with fetch-depth: 0",
		       rev);
}

void vcs_sha_from_oid(struct vcs_sha *out, const git_oid *oid)
{
	git_oid_tostr(out->hex, sizeof(out->hex), oid);
}

int vcs_oid_from_sha(git_oid *out, const struct vcs_sha *sha, struct err *err)
{
	if (strlen(sha->hex) != VCS_SHA_HEX || git_oid_fromstr(out, sha->hex) < 0)
		return err_set(err, ERR_INTERNAL, "\"%s\" is not a commit id", sha->hex);
	return 0;
}

static char *strip_slash(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	return xstrndup(path, len);
}

/* The directory to name in a safe.directory fix: the working tree for a
 * normal repository, the git directory for a bare one. */
static char *owner_subject(const char *path)
{
	git_buf found = GIT_BUF_INIT;
	char *subject;
	size_t len;

	if (git_repository_discover(&found, path, 0, NULL) < 0)
		return strip_slash(path);
	subject = strip_slash(found.ptr);
	len = strlen(subject);
	if (len > 5 && strcmp(subject + len - 5, "/.git") == 0)
		subject[len - 5] = '\0';
	git_buf_dispose(&found);
	return subject;
}

/* libgit2 1.5.1 reports a refusal by the owner check as GIT_EOWNER, or, when
 * no safe.directory is configured at all, as GIT_ENOTFOUND ("config value
 * 'safe.directory' was not found"). Discovery does not check the owner, so a
 * repository that discovery finds but opening does not is a refusal. */
static bool refused_by_owner(int rc, const char *path)
{
	git_buf found = GIT_BUF_INIT;
	struct stat st;
	bool refused;

	if (rc == GIT_EOWNER)
		return true;
	if (git_repository_discover(&found, path, 0, NULL) < 0)
		return false;
	refused = stat(found.ptr, &st) == 0 && st.st_uid != geteuid();
	git_buf_dispose(&found);
	return refused;
}

static int open_error(int rc, const char *path, struct err *err)
{
	char *subject;

	if (rc < 0 && refused_by_owner(rc, path))
		rc = GIT_EOWNER;

	if (rc == GIT_ENOTFOUND)
		return err_set(err, ERR_EXEC,
			       "\"%s\" is not in a git repository: run himorime inside a clone, "
			       "or use run instead of compare",
			       path);
	if (rc != GIT_EOWNER)
		return vcs_lg_error(err, "cannot open the git repository");
	subject = owner_subject(path);
	err_set(err, ERR_EXEC,
		"repository \"%s\" is owned by another user: add it with git config --global "
		"--add safe.directory %s (in containers and Actions, the checkout is often "
		"owned by another user)",
		subject, subject);
	free(subject);
	return ERR_EXEC;
}

bool vcs_may_be_in_work_tree(const char *path)
{
	char *dir = realpath(path, NULL), *probe, *slash;
	bool found = false;
	struct stat st;

	while (dir) {
		bool root = !strcmp(dir, "/");
		probe = xasprintf("%s/.git", root ? "" : dir);
		found = lstat(probe, &st) == 0;
		free(probe);
		if (found || root)
			break;
		slash = strrchr(dir, '/'); /* realpath's are absolute */
		slash[slash == dir ? 1 : 0] = '\0';
	}
	free(dir);
	return found;
}

int vcs_open(const char *path, struct vcs **out, struct err *err)
{
	struct vcs *vcs;
	char *abs;
	int rc;

	*out = NULL;
	abs = realpath(path, NULL);
	if (!abs)
		return err_set(err, ERR_EXEC, "cannot open \"%s\": no such directory", path);
	git_libgit2_init();
	vcs = xcalloc(1, sizeof(*vcs));
	rc = git_repository_open_ext(&vcs->repo, abs, 0, NULL);
	if (rc < 0) {
		rc = open_error(rc, abs, err);
		goto done;
	}
	if (git_repository_workdir(vcs->repo))
		vcs->workdir = strip_slash(git_repository_workdir(vcs->repo));
	vcs->commondir = xstrdup(git_repository_commondir(vcs->repo));
	*out = vcs;
	vcs = NULL;
done:
	vcs_free(vcs);
	free(abs);
	return rc;
}

void vcs_free(struct vcs *vcs)
{
	if (!vcs)
		return;
	git_repository_free(vcs->repo);
	free(vcs->workdir);
	free(vcs->commondir);
	free(vcs);
	git_libgit2_shutdown();
}

const char *vcs_workdir(const struct vcs *vcs)
{
	return vcs->workdir;
}

const char *vcs_git_dir(const struct vcs *vcs)
{
	return git_repository_path(vcs->repo);
}

bool vcs_is_shallow(const struct vcs *vcs)
{
	return git_repository_is_shallow(vcs->repo) == 1;
}

struct candidates {
	char prefix[VCS_SHA_HEX + 1];
	size_t prefix_len;
	git_oid *ids;
	size_t count, alloc;
};

static int collect_candidate(const git_oid *id, void *payload)
{
	struct candidates *c = payload;
	char hex[VCS_SHA_HEX + 1];
	size_t i;

	git_oid_tostr(hex, sizeof(hex), id);
	if (strncmp(hex, c->prefix, c->prefix_len) != 0)
		return 0;
	for (i = 0; i < c->count; i++) /* packed and loose copies of one object */
		if (git_oid_equal(&c->ids[i], id))
			return 0;
	c->ids = xgrow(c->ids, &c->alloc, c->count + 1, sizeof(*c->ids));
	git_oid_cpy(&c->ids[c->count++], id);
	return 0;
}

static int compare_oids(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/* libgit2 only says "ambiguous"; git names the candidates, and so do we. */
static int ambiguous_error(struct vcs *vcs, const char *rev, struct err *err)
{
	struct candidates c = {
		.prefix = "", .prefix_len = 0, .ids = NULL, .count = 0, .alloc = 0
	};
	struct strbuf sb;
	git_odb *odb = NULL;
	size_t i;

	while (c.prefix_len < VCS_SHA_HEX && isxdigit((unsigned char)rev[c.prefix_len])) {
		c.prefix[c.prefix_len] = (char)tolower((unsigned char)rev[c.prefix_len]);
		c.prefix_len++;
	}
	if (c.prefix_len > 0 && git_repository_odb(&odb, vcs->repo) == 0)
		git_odb_foreach(odb, collect_candidate, &c);
	if (c.count > 1)
		qsort(c.ids, c.count, sizeof(*c.ids), compare_oids);
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "revision \"%s\" is ambiguous", rev);
	for (i = 0; i < c.count && i < MAX_CANDIDATES; i++) {
		char hex[VCS_SHA_HEX + 1];
		size_t len;
		git_object_t type;

		git_oid_tostr(hex, sizeof(hex), &c.ids[i]);
		if (git_odb_read_header(&len, &type, odb, &c.ids[i]) < 0)
			type = GIT_OBJECT_INVALID;
		strbuf_addf(&sb, "%s %s (%s)", i ? "," : ":", hex,
			    type == GIT_OBJECT_INVALID ? "unknown" : git_object_type2string(type));
	}
	if (c.count > MAX_CANDIDATES)
		strbuf_addf(&sb, " and %zu more", c.count - MAX_CANDIDATES);
	strbuf_adds(&sb, ": use more digits");
	err_set(err, ERR_EXEC, "%s", sb.buf);
	strbuf_release(&sb);
	git_odb_free(odb);
	free(c.ids);
	return ERR_EXEC;
}

int vcs_resolve(struct vcs *vcs, const char *rev, struct vcs_sha *out, struct err *err)
{
	git_object *obj = NULL, *commit = NULL;
	int rc;

	out->hex[0] = '\0';
	if (!*rev)
		return err_set(err, ERR_USAGE, "empty revision");
	if (rev[0] == '-')
		return err_set(err, ERR_USAGE, "revision \"%s\" must not start with \"-\"", rev);
	rc = git_revparse_single(&obj, vcs->repo, rev);
	if (rc == GIT_EAMBIGUOUS)
		return ambiguous_error(vcs, rev, err);
	if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC)
		return vcs_missing_rev_error(vcs, rev, err);
	if (rc < 0)
		return vcs_lg_error(err, "cannot resolve revision");
	rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
	if (rc == GIT_ENOTFOUND && git_object_type(obj) == GIT_OBJECT_TAG)
		rc = vcs_missing_rev_error(vcs, rev, err); /* the tag's target is not here */
	else if (rc < 0)
		rc = err_set(err, ERR_EXEC, "revision \"%s\" is a %s, not a commit", rev,
			     git_object_type2string(git_object_type(obj)));
	else
		vcs_sha_from_oid(out, git_object_id(commit));
	git_object_free(commit);
	git_object_free(obj);
	return rc;
}

int vcs_head(struct vcs *vcs, struct vcs_sha *out, struct err *err)
{
	git_oid oid;

	out->hex[0] = '\0';
	if (git_reference_name_to_id(&oid, vcs->repo, "HEAD") < 0)
		return err_set(err, ERR_EXEC, "the repository has no commit yet: commit first");
	vcs_sha_from_oid(out, &oid);
	return 0;
}

static int stop_at_first(const char *path, unsigned int flags, void *payload)
{
	(void)path;
	(void)flags;
	(void)payload;
	return 1;
}

int vcs_is_dirty(struct vcs *vcs, bool *dirty, struct err *err)
{
	git_status_options opts;
	int rc;

	*dirty = false;
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED; /* never UPDATE_INDEX: read only */
	rc = git_status_foreach_ext(vcs->repo, &opts, stop_at_first, NULL);
	if (rc < 0)
		return vcs_lg_error(err, "cannot read the working tree's status");
	*dirty = rc > 0;
	return 0;
}

int vcs_merge_base(struct vcs *vcs, const struct vcs_sha *a, const struct vcs_sha *b,
		   struct vcs_sha *out, struct err *err)
{
	git_oid ia, ib, base;
	int rc;

	out->hex[0] = '\0';
	if (vcs_oid_from_sha(&ia, a, err) < 0 || vcs_oid_from_sha(&ib, b, err) < 0)
		return err->code;
	rc = git_merge_base(&base, vcs->repo, &ia, &ib);
	if (rc == GIT_ENOTFOUND && vcs_is_shallow(vcs))
		return err_set(err, ERR_EXEC,
			       "the merge base of %.12s and %.12s is not in this shallow clone: %s",
			       a->hex, b->hex, SHALLOW_FIX);
	if (rc == GIT_ENOTFOUND)
		return err_set(err, ERR_EXEC, "commits %.12s and %.12s have no common ancestor",
			       a->hex, b->hex);
	if (rc < 0)
		return vcs_lg_error(err, "cannot find the merge base");
	vcs_sha_from_oid(out, &base);
	return 0;
}

int vcs_commit_info(struct vcs *vcs, const struct vcs_sha *sha, struct vcs_commit_info *out,
		    struct err *err)
{
	git_commit *commit = NULL;
	const git_signature *author;
	const char *summary;
	git_oid oid;

	memset(out, 0, sizeof(*out));
	if (vcs_oid_from_sha(&oid, sha, err) < 0)
		return err->code;
	if (git_commit_lookup(&commit, vcs->repo, &oid) < 0)
		return vcs_missing_rev_error(vcs, sha->hex, err);
	out->sha = *sha;
	summary = git_commit_summary(commit);
	out->subject = xstrdup(summary ? summary : "");
	author = git_commit_author(commit);
	out->author_time_s = author->when.time;
	out->author_utc_offset_min = author->when.offset;
	git_commit_free(commit);
	return 0;
}

int vcs_tree_id(struct vcs *vcs, const struct vcs_sha *commit, struct vcs_sha *out, struct err *err)
{
	git_commit *c = NULL;
	git_oid oid;

	out->hex[0] = '\0';
	if (vcs_oid_from_sha(&oid, commit, err) < 0)
		return err->code;
	if (git_commit_lookup(&c, vcs->repo, &oid) < 0)
		return vcs_missing_rev_error(vcs, commit->hex, err);
	vcs_sha_from_oid(out, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

void vcs_commit_info_release(struct vcs_commit_info *info)
{
	if (!info)
		return;
	free(info->subject);
	info->subject = NULL;
}

/* "A..B" into two resolved ends; an empty side means HEAD, as in git. No
 * "..": all of B's history (from->hex stays ""). */
static int parse_range(struct vcs *vcs, const char *range, struct vcs_sha *from, struct vcs_sha *to,
		       struct err *err)
{
	const char *dots = strstr(range, "..");
	char *left;
	int rc;

	from->hex[0] = '\0';
	if (!dots)
		return vcs_resolve(vcs, range, to, err);
	if (dots[2] == '.')
		return err_set(err, ERR_USAGE,
			       "range \"%s\": symmetric ranges (A...B) are not supported, use A..B",
			       range);
	left = xstrndup(range, (size_t)(dots - range));
	rc = vcs_resolve(vcs, *left ? left : "HEAD", from, err);
	free(left);
	if (rc < 0)
		return rc;
	return vcs_resolve(vcs, dots[2] ? dots + 2 : "HEAD", to, err);
}

static int start_walk(struct vcs *vcs, const struct vcs_sha *from, const struct vcs_sha *to,
		      bool first_parent, git_revwalk **out, struct err *err)
{
	git_revwalk *walk = NULL;
	git_oid oid;

	if (git_revwalk_new(&walk, vcs->repo) < 0)
		return vcs_lg_error(err, "cannot walk the history");
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (first_parent)
		git_revwalk_simplify_first_parent(walk);
	if (vcs_oid_from_sha(&oid, to, err) < 0 || git_revwalk_push(walk, &oid) < 0)
		goto fail;
	if (from->hex[0] &&
	    (vcs_oid_from_sha(&oid, from, err) < 0 || git_revwalk_hide(walk, &oid) < 0))
		goto fail;
	*out = walk;
	return 0;
fail:
	git_revwalk_free(walk);
	return err->code ? err->code : vcs_lg_error(err, "cannot walk the history");
}

int vcs_walk(struct vcs *vcs, const char *range, const struct vcs_walk_opts *opts,
	     struct vcs_sha_list *out, struct err *err)
{
	struct vcs_sha from, to;
	git_revwalk *walk = NULL;
	size_t alloc = 0, i, kept = 0;
	git_oid oid;
	int rc;

	out->items = NULL;
	out->count = 0;
	if (opts->every < 1)
		return err_set(err, ERR_USAGE, "every must be at least 1");
	rc = parse_range(vcs, range, &from, &to, err);
	if (rc < 0)
		return rc;
	rc = start_walk(vcs, &from, &to, opts->first_parent, &walk, err);
	if (rc < 0)
		return rc;
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		out->items = xgrow(out->items, &alloc, out->count + 1, sizeof(*out->items));
		vcs_sha_from_oid(&out->items[out->count++], &oid);
	}
	git_revwalk_free(walk);
	if (rc != GIT_ITEROVER) {
		vcs_sha_list_release(out);
		if (rc == GIT_ENOTFOUND && vcs_is_shallow(vcs))
			return err_set(err, ERR_EXEC,
				       "range \"%s\" is not in this shallow clone: %s", range,
				       SHALLOW_FIX);
		return vcs_lg_error(err, "cannot walk the history");
	}
	for (i = 0; i < out->count; i++) /* oldest first; keep the tip, then every Nth back */
		if ((out->count - 1 - i) % opts->every == 0)
			out->items[kept++] = out->items[i];
	out->count = kept;
	return 0;
}

struct ranked {
	const char *hex;
	size_t i;
};

static int by_hex(const void *a, const void *b)
{
	return strcmp(((const struct ranked *)a)->hex, ((const struct ranked *)b)->hex);
}

/* Pushes every commit of `r` that the repository has; how many it pushed. */
static size_t push_known(struct vcs *vcs, git_revwalk *walk, const struct ranked *r, size_t n)
{
	size_t i, pushed = 0;
	git_commit *commit;
	git_oid oid;

	for (i = 0; i < n; i++) {
		if (git_oid_fromstr(&oid, r[i].hex) < 0 ||
		    git_commit_lookup(&commit, vcs->repo, &oid) < 0)
			continue;
		git_commit_free(commit);
		pushed += git_revwalk_push(walk, &oid) == 0;
	}
	return pushed;
}

/* Gives the walk's position to every entry of r (sorted by hex) it meets. */
static int rank_walk(git_revwalk *walk, const struct ranked *r, size_t n, size_t *rank)
{
	size_t pos = 0, found = 0;
	git_oid oid;
	int rc = GIT_ITEROVER;

	while (found < n && (rc = git_revwalk_next(&oid, walk)) == 0) {
		struct vcs_sha sha;
		struct ranked key = { .hex = NULL, .i = 0 }, *hit;
		vcs_sha_from_oid(&sha, &oid);
		key.hex = sha.hex;
		hit = bsearch(&key, r, n, sizeof(*r), by_hex);
		for (; hit && hit > r && !strcmp(hit[-1].hex, sha.hex); hit--)
			;
		for (; hit && hit < r + n && !strcmp(hit->hex, sha.hex); hit++, found++)
			rank[hit->i] = pos;
		pos++;
	}
	return found == n || rc == GIT_ITEROVER ? 0 : rc;
}

int vcs_graph_order(struct vcs *vcs, const char *const *hex, size_t n, size_t *rank,
		    struct err *err)
{
	struct ranked *r = xcalloc(n + 1, sizeof(*r));
	git_revwalk *walk = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		rank[i] = SIZE_MAX;
		r[i].hex = hex[i] ? hex[i] : "";
		r[i].i = i;
	}
	qsort(r, n, sizeof(*r), by_hex);
	if (git_revwalk_new(&walk, vcs->repo) < 0) {
		rc = vcs_lg_error(err, "cannot walk the history");
		goto done;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME | GIT_SORT_REVERSE);
	git_revwalk_simplify_first_parent(walk);
	if (push_known(vcs, walk, r, n) && rank_walk(walk, r, n, rank) < 0)
		rc = vcs_lg_error(err, "cannot walk the history");
done:
	git_revwalk_free(walk);
	free(r);
	return rc;
}

void vcs_sha_list_release(struct vcs_sha_list *list)
{
	if (!list)
		return;
	free(list->items);
	list->items = NULL;
	list->count = 0;
}
