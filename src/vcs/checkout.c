/*
 * Materialising a commit for the base side of a comparison. Builds call
 * `git describe` and stamp versions, so the result is a real git working tree:
 * a fresh repository in a private temporary directory that borrows the user's
 * objects through objects/info/alternates, with a detached HEAD, the user's
 * tags packed into it, and no hooks. Being its own repository, it has its own
 * index, refs and config: nothing the user has is written, and the
 * `.gitattributes` that apply are the commit's own (read from the fresh index,
 * never from the user's working tree).
 *
 * Every directory made here is registered until removed, so that the CLI's
 * interrupt path can remove them (vcs_remove_live_trees), and its name carries
 * the pid so that a later run can sweep what a killed run left.
 */
#include "vcs/internal.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/banned.h"

#define TREE_PREFIX	   "himorime-rev-"
#define SHALLOW_FILE_CAP   (64u << 20)
#define MAX_FILTERED_NAMED 10

struct vcs_tree {
	char *path;
};

/* Directories made by this process and not removed yet. */
static struct {
	char **paths;
	size_t count, alloc;
} live;

static void register_tree(const char *path)
{
	live.paths = xgrow(live.paths, &live.alloc, live.count + 1, sizeof(*live.paths));
	live.paths[live.count++] = xstrdup(path);
}

static void unregister_tree(const char *path)
{
	size_t i;

	for (i = 0; i < live.count; i++) {
		if (strcmp(live.paths[i], path) != 0)
			continue;
		free(live.paths[i]);
		live.paths[i] = live.paths[--live.count];
		return;
	}
}

size_t vcs_remove_live_trees(void)
{
	struct err err = ERR_INIT;
	size_t failed = 0;

	while (live.count) {
		char *path = live.paths[--live.count];
		if (fsio_remove_tree(path, &err) < 0)
			failed++;
		free(path);
	}
	return failed;
}

int vcs_sweep_stale(size_t *removed, struct err *err)
{
	return fsio_sweep_stale(TREE_PREFIX, removed, err);
}

const char *const *vcs_git_env_names(void)
{
	static const char *const names[] = {
		"GIT_DIR",
		"GIT_WORK_TREE",
		"GIT_INDEX_FILE",
		"GIT_COMMON_DIR",
		"GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES",
		"GIT_NAMESPACE",
		"GIT_PREFIX",
		"GIT_SHALLOW_FILE",
		"GIT_REPLACE_REF_BASE",
		"GIT_GRAFT_FILE",
		NULL,
	};
	return names;
}

const char *vcs_tree_path(const struct vcs_tree *tree)
{
	return tree->path;
}

int vcs_tree_remove(struct vcs_tree *tree, struct err *err)
{
	int rc;

	if (!tree)
		return 0;
	rc = fsio_remove_tree(tree->path, err);
	unregister_tree(tree->path);
	free(tree->path);
	free(tree);
	return rc;
}

static int make_dir(char **out, struct err *err)
{
	char *prefix = xasprintf(TREE_PREFIX "%ld-", (long)getpid());
	char *made = NULL;
	int rc;

	*out = NULL;
	rc = fsio_mkdtemp(prefix, &made, err);
	free(prefix);
	if (rc < 0)
		return rc;
	register_tree(made);
	/* libgit2 wants an absolute path, and $TMPDIR may be relative. */
	*out = realpath(made, NULL);
	if (!*out) {
		rc = err_set(err, ERR_EXEC, "cannot resolve \"%s\": %s", made, strerror(errno));
		fsio_remove_tree(made, err);
		unregister_tree(made);
	} else if (strcmp(*out, made) != 0) {
		unregister_tree(made);
		register_tree(*out);
	}
	free(made);
	return rc;
}

/* A fresh repository whose object store lists the user's as an alternate, and
 * which shares the user's shallow boundary so that git can walk it too. */
static int create_repo(struct vcs *vcs, const char *dir, git_repository **out, struct err *err)
{
	git_repository_init_options init;
	git_repository *repo = NULL;
	char *alternates = NULL, *objects = NULL, *shallow = NULL, *data = NULL, *hooks = NULL;
	size_t len;
	int rc;

	git_repository_init_options_init(&init, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	init.flags = GIT_REPOSITORY_INIT_NO_REINIT; /* built-in template: no hook samples */
	if (git_repository_init_ext(&repo, dir, &init) < 0)
		return vcs_lg_error(err, "cannot create the temporary repository");
	git_repository_free(repo);
	repo = NULL;
	/* The built-in template leaves hooks/README.sample: keep hooks/ empty. */
	hooks = xasprintf("%s/.git/hooks", dir);
	rc = fsio_remove_tree(hooks, err);
	if (rc == 0 && mkdir(hooks, 0700) < 0)
		rc = err_set(err, ERR_EXEC, "cannot create \"%s\": %s", hooks, strerror(errno));
	if (rc < 0)
		goto done;
	alternates = xasprintf("%s/.git/objects/info/alternates", dir);
	objects = xasprintf("%sobjects\n", vcs->commondir);
	rc = fsio_write_atomic(alternates, objects, strlen(objects), err);
	if (rc < 0)
		goto done;
	if (vcs_is_shallow(vcs)) {
		free(shallow);
		shallow = xasprintf("%sshallow", vcs->commondir);
		rc = fsio_read_file(shallow, SHALLOW_FILE_CAP, &data, &len, err);
		free(shallow);
		shallow = xasprintf("%s/.git/shallow", dir);
		if (rc == 0)
			rc = fsio_write_atomic(shallow, data, len, err);
		if (rc < 0)
			goto done;
	}
	if (git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		rc = vcs_lg_error(err, "cannot open the temporary repository");
	*out = repo;
done:
	free(hooks);
	free(data);
	free(shallow);
	free(objects);
	free(alternates);
	return rc;
}

struct tag_copy {
	git_repository *from, *to;
};

/* Tags whose objects are missing (a shallow clone) cannot be copied and would
 * not help `git describe` anyway: they are left out. */
static int copy_tag(const char *name, void *payload)
{
	struct tag_copy *copy = payload;
	git_reference *ref = NULL;
	git_oid oid;

	if (git_reference_name_to_id(&oid, copy->from, name) == 0 &&
	    git_reference_create(&ref, copy->to, name, &oid, 1, NULL) == 0)
		git_reference_free(ref);
	return 0;
}

static int copy_tags(struct vcs *vcs, git_repository *repo, struct err *err)
{
	struct tag_copy copy = { .from = vcs->repo, .to = repo };
	git_refdb *refdb = NULL;
	int rc = 0;

	if (git_reference_foreach_glob(vcs->repo, "refs/tags/*", copy_tag, &copy) < 0)
		return vcs_lg_error(err, "cannot copy the tags");
	if (git_repository_refdb(&refdb, repo) < 0 || git_refdb_compress(refdb) < 0)
		rc = vcs_lg_error(err, "cannot pack the copied tags");
	git_refdb_free(refdb);
	return rc;
}

/* Whether `file` exists in any directory of libgit2's search path for
 * config level `level` (a list separated by ':'). */
static bool in_search_path(int level, const char *file)
{
	git_buf paths = GIT_BUF_INIT;
	bool found = false;
	char *list, *dir, *next;

	if (git_libgit2_opts(GIT_OPT_GET_SEARCH_PATH, level, &paths) < 0)
		return true; /* unknown: assume it may */
	list = xstrdup(paths.ptr ? paths.ptr : "");
	git_buf_dispose(&paths);
	for (dir = list; dir && !found; dir = next) {
		char *path;
		struct stat st;
		next = strchr(dir, ':');
		if (next)
			*next++ = '\0';
		if (!*dir)
			continue;
		path = xasprintf("%s/%s", dir, file);
		found = stat(path, &st) == 0;
		free(path);
	}
	free(list);
	return found;
}

/* Whether any file could give the commit's files attributes, or the config
 * asks for line-ending conversion: a .gitattributes in the index, the
 * temporary repository's info/attributes, core.attributesFile, the XDG and
 * system attribute files, core.autocrlf. When none can, no file has a
 * filter and checking out needs no attribute lookups (about 40 us per file,
 * 200 ms for 5,000). */
static bool attributes_may_apply(git_repository *repo, const char *dir, git_index *index)
{
	size_t i, n = git_index_entrycount(index);
	git_config *cfg = NULL;
	const char *value = NULL;
	char *info = xasprintf("%s/.git/info/attributes", dir);
	struct stat st;
	bool may = stat(info, &st) == 0;

	free(info);
	for (i = 0; i < n && !may; i++) {
		const char *path = git_index_get_byindex(index, i)->path;
		const char *base = strrchr(path, '/');
		may = !strcmp(base ? base + 1 : path, ".gitattributes");
	}
	if (may || git_repository_config_snapshot(&cfg, repo) < 0)
		return true;
	if (git_config_get_string(&value, cfg, "core.attributesfile") == 0 ||
	    (git_config_get_string(&value, cfg, "core.autocrlf") == 0 &&
	     strcmp(value, "false") != 0))
		may = true;
	git_config_free(cfg);
	return may || in_search_path(GIT_CONFIG_LEVEL_XDG, "attributes") ||
	       in_search_path(GIT_CONFIG_LEVEL_SYSTEM, "gitattributes");
}

/* libgit2 runs no external filter driver; checking such a file out would
 * silently write its stored form (an LFS pointer), so it is refused. The
 * index holds the commit's tree, so INDEX_ONLY reads the commit's own
 * .gitattributes. */
static int check_filters(const struct vcs_sha *sha, git_repository *repo, git_index *index,
			 struct err *err)
{
	struct strbuf names;
	size_t i, n = git_index_entrycount(index), found = 0;

	strbuf_init(&names, 0);
	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		const char *value = NULL;

		if (e->mode == GIT_FILEMODE_COMMIT)
			continue;
		if (git_attr_get(&value, repo, GIT_ATTR_CHECK_INDEX_ONLY, e->path, "filter") < 0 ||
		    git_attr_value(value) != GIT_ATTR_VALUE_STRING)
			continue;
		if (found++ < MAX_FILTERED_NAMED)
			strbuf_addf(&names, "%s%s (filter=%s)", found > 1 ? ", " : "", e->path,
				    value);
	}
	if (found > MAX_FILTERED_NAMED)
		strbuf_addf(&names, " and %zu more", found - MAX_FILTERED_NAMED);
	if (found)
		err_set(err, ERR_EXEC,
			"commit %.12s has files that need an external filter driver, which "
			"himorime cannot run: %s",
			sha->hex, names.buf);
	strbuf_release(&names);
	return found ? ERR_EXEC : 0;
}

/* Git trusts an index entry's stat data only when the file is older than the
 * index file; entries from the same second are "racily clean" and re-hashed
 * by every `git status` (and `git describe --dirty` in a build). Rather than
 * wait for the next second, every checked-out file is dated two seconds back
 * and its entry takes the new stat data; the index written now is newer than
 * all of them. A later change to a file gives it a newer time than its
 * entry's, which git sees. */
static int settle_index(const char *dir, git_index *index, struct err *err)
{
	struct timespec now, times[2];
	size_t i, n = git_index_entrycount(index);
	struct strbuf path;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	times[0].tv_sec = times[1].tv_sec = now.tv_sec - 2;
	times[0].tv_nsec = times[1].tv_nsec = 0;
	strbuf_init(&path, 0);
	for (i = 0; i < n && rc == 0; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		git_index_entry copy;
		struct stat st;

		if (e->mode == GIT_FILEMODE_COMMIT)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->path);
		if (utimensat(AT_FDCWD, path.buf, times, AT_SYMLINK_NOFOLLOW) < 0 ||
		    lstat(path.buf, &st) < 0) {
			rc = err_set(err, ERR_EXEC, "cannot date \"%s\": %s", path.buf,
				     strerror(errno));
			break;
		}
		copy = *e;
		copy.mtime.seconds = (int32_t)st.st_mtim.tv_sec;
		copy.mtime.nanoseconds = (uint32_t)st.st_mtim.tv_nsec;
		copy.ctime.seconds = (int32_t)st.st_ctim.tv_sec;
		copy.ctime.nanoseconds = (uint32_t)st.st_ctim.tv_nsec;
		if (git_index_add(index, &copy) < 0)
			rc = vcs_lg_error(err, "cannot update the temporary index");
	}
	strbuf_release(&path);
	if (rc == 0 && git_index_write(index) < 0)
		rc = vcs_lg_error(err, "cannot write the temporary index");
	return rc;
}

/* Creates the directories leading to the file at path->buf (below the tree's
 * root, root_len bytes), unless they are those of the previous file (`made`:
 * index entries come sorted by path, so a directory's files are together). */
static int make_parents(struct strbuf *path, size_t root_len, struct strbuf *made, struct err *err)
{
	size_t len = (size_t)(strrchr(path->buf, '/') - path->buf), i;

	if (len == made->len && !memcmp(path->buf, made->buf, len))
		return 0;
	for (i = root_len + 1; i <= len; i++) {
		if (path->buf[i] != '/')
			continue;
		path->buf[i] = '\0';
		if (mkdir(path->buf, 0777) < 0 && errno != EEXIST) {
			int rc = err_set(err, ERR_EXEC, "cannot create \"%s\": %s", path->buf,
					 strerror(errno));
			path->buf[i] = '/';
			return rc;
		}
		path->buf[i] = '/';
	}
	strbuf_reset(made);
	strbuf_add(made, path->buf, len);
	return 0;
}

static bool write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		data += n;
		len -= (size_t)n;
	}
	return true;
}

/* One file (or symbolic link) from its blob, dated `times`; its stat in *st. */
static int write_entry(git_repository *repo, const git_index_entry *e, const char *path,
		       const struct timespec times[2], struct stat *st, struct err *err)
{
	git_blob *blob = NULL;
	size_t len;
	bool ok;

	if (git_blob_lookup(&blob, repo, &e->id) < 0)
		return vcs_lg_error(err, "cannot read a file of the commit");
	len = (size_t)git_blob_rawsize(blob);
	if (e->mode == GIT_FILEMODE_LINK) {
		char *target = xmalloc(len + 1);
		memcpy(target, git_blob_rawcontent(blob), len);
		target[len] = '\0';
		ok = symlink(target, path) == 0 &&
		     utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) == 0 &&
		     lstat(path, st) == 0;
		free(target);
	} else {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			      e->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);
		ok = fd >= 0 && write_all(fd, git_blob_rawcontent(blob), len) &&
		     futimens(fd, times) == 0 && fstat(fd, st) == 0;
		if (fd >= 0 && close(fd) < 0)
			ok = false;
	}
	git_blob_free(blob);
	if (!ok)
		return err_set(err, ERR_EXEC, "cannot write \"%s\": %s", path, strerror(errno));
	return 0;
}

/* Records what was written in the file's index entry, as a checkout does. */
static int record_stat(git_index *index, const git_index_entry *e, const struct stat *st,
		       struct err *err)
{
	git_index_entry copy = *e;

	copy.ctime.seconds = (int32_t)st->st_ctim.tv_sec;
	copy.ctime.nanoseconds = (uint32_t)st->st_ctim.tv_nsec;
	copy.mtime.seconds = (int32_t)st->st_mtim.tv_sec;
	copy.mtime.nanoseconds = (uint32_t)st->st_mtim.tv_nsec;
	copy.dev = (uint32_t)st->st_dev;
	copy.ino = (uint32_t)st->st_ino;
	copy.uid = (uint32_t)st->st_uid;
	copy.gid = (uint32_t)st->st_gid;
	copy.file_size = (uint32_t)st->st_size;
	if (git_index_add(index, &copy) < 0)
		return vcs_lg_error(err, "cannot update the temporary index");
	return 0;
}

/*
 * The commit's files written straight from their blobs, for a commit no
 * attribute reaches (nothing to convert): what git_checkout_tree does then,
 * without its comparison of three trees, in one pass. Each file is dated
 * two seconds back as it is written, for the reason settle_index gives, and
 * its entry records its stat data. Submodules get an empty directory.
 */
static int write_files(git_repository *repo, const char *dir, git_index *index, struct err *err)
{
	struct timespec now, times[2];
	struct strbuf path, made;
	size_t i, n = git_index_entrycount(index), root_len = strlen(dir);
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	times[0].tv_sec = times[1].tv_sec = now.tv_sec - 2;
	times[0].tv_nsec = times[1].tv_nsec = 0;
	strbuf_init(&path, 0);
	strbuf_init(&made, 0);
	for (i = 0; i < n && rc == 0; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		struct stat st;

		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->path);
		rc = make_parents(&path, root_len, &made, err);
		if (rc == 0 && e->mode == GIT_FILEMODE_COMMIT) {
			if (mkdir(path.buf, 0777) < 0 && errno != EEXIST)
				rc = err_set(err, ERR_EXEC, "cannot create \"%s\": %s", path.buf,
					     strerror(errno));
			continue;
		}
		if (rc == 0)
			rc = write_entry(repo, e, path.buf, times, &st, err);
		if (rc == 0)
			rc = record_stat(index, e, &st, err);
	}
	strbuf_release(&made);
	strbuf_release(&path);
	if (rc == 0 && git_index_write(index) < 0)
		rc = vcs_lg_error(err, "cannot write the temporary index");
	return rc;
}

static int populate(struct vcs *vcs, const struct vcs_sha *sha, git_repository *repo,
		    const char *dir, struct err *err)
{
	git_checkout_options co;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	git_oid oid;
	int rc;

	if ((rc = vcs_oid_from_sha(&oid, sha, err)) < 0)
		return rc;
	if (git_commit_lookup(&commit, repo, &oid) < 0) {
		rc = vcs_missing_rev_error(vcs, sha->hex, err);
		goto done;
	}
	if (git_commit_tree(&tree, commit) < 0 ||
	    git_repository_set_head_detached(repo, &oid) < 0 ||
	    git_repository_index(&index, repo) < 0 || git_index_read_tree(index, tree) < 0 ||
	    git_index_write(index) < 0) {
		rc = git_error_last() && git_error_last()->klass == GIT_ERROR_ODB
			     ? vcs_missing_rev_error(vcs, sha->hex, err)
			     : vcs_lg_error(err, "cannot prepare the temporary tree");
		goto done;
	}
	if (!attributes_may_apply(repo, dir, index)) {
		rc = write_files(repo, dir, index, err);
		goto done;
	}
	if ((rc = check_filters(sha, repo, index, err)) < 0)
		goto done;
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_checkout_tree(repo, (const git_object *)commit, &co) < 0) {
		rc = vcs_lg_error(err, "cannot check out the temporary tree");
		goto done;
	}
	rc = settle_index(dir, index, err);
done:
	git_index_free(index);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}

int vcs_materialise(struct vcs *vcs, const struct vcs_sha *sha, struct vcs_tree **out,
		    struct err *err)
{
	git_repository *repo = NULL;
	char *dir = NULL;
	int rc;

	*out = NULL;
	if ((rc = make_dir(&dir, err)) < 0)
		return rc;
	rc = create_repo(vcs, dir, &repo, err);
	if (rc == 0)
		rc = copy_tags(vcs, repo, err);
	if (rc == 0)
		rc = populate(vcs, sha, repo, dir, err);
	git_repository_free(repo);
	if (rc < 0) {
		struct err ignored = ERR_INIT;
		fsio_remove_tree(dir, &ignored);
		unregister_tree(dir);
		free(dir);
		return rc;
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->path = dir;
	return 0;
}
