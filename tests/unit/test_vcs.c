/*
 * Unit tests of src/vcs against real repositories built with the git CLI in a
 * private temporary directory (HOME and TMPDIR point into it, so no user
 * config applies and every temporary tree is counted and removed).
 *
 * The fixture repository "repo" (branch main):
 *   c1  a.txt "one", crlf.txt, .gitattributes "crlf.txt text eol=crlf"; tag v1.0 (annotated)
 *   c2  a.txt "two", .gitattributes removed; tag light; refs/remotes/origin/main
 *   c3  on branch feature from c2: b.txt
 *   c4  merge of feature into main (--no-ff): HEAD, HEAD^2 = c3
 *   lfs branch from c2: big.bin under "*.bin filter=lfs"
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "vcs/vcs.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *root;   /* the fixture's temporary directory */
static char *repo;   /* root/repo */
static char *tmpdir; /* root/tmp, exported as TMPDIR */
static struct vcs_sha c1, c2, c3, c4, lfs;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;
	struct strbuf sb;

	strbuf_init(&sb, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	cmd = strbuf_detach(&sb, NULL);
	rc = system(cmd);
	free(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Runs a command and returns its whole stdout with the last newline removed. */
static char *out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *out(const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb, res;
	char buf[4096];
	FILE *p;
	size_t n;

	strbuf_init(&sb, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	p = popen(sb.buf, "r");
	assert_non_null(p);
	strbuf_init(&res, 0);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(&res, buf, n);
	pclose(p);
	strbuf_release(&sb);
	if (res.len && res.buf[res.len - 1] == '\n')
		strbuf_setlen(&res, res.len - 1);
	return strbuf_detach(&res, NULL);
}

static void sha_of(struct vcs_sha *s, const char *dir, const char *rev)
{
	char *hex = out("git -C %s rev-parse %s", dir, rev);
	assert_int_equal(strlen(hex), VCS_SHA_HEX);
	memcpy(s->hex, hex, VCS_SHA_HEX + 1);
	free(hex);
}

static char *slurp(const char *path)
{
	struct err err = ERR_INIT;
	char *data = NULL;
	size_t len;

	if (fsio_read_file(path, 1u << 24, &data, &len, &err) < 0)
		return xstrdup("<missing>");
	return data;
}

/* Entries of TMPDIR whose name starts with himorime-rev-. */
static int count_trees(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strncmp(de->d_name, "himorime-rev-", 13) == 0;
	closedir(d);
	return n;
}

static int setup(void **state)
{
	struct err err = ERR_INIT;
	char *home;

	(void)state;
	if (fsio_mkdtemp("himorime-test-vcs-", &root, &err) < 0)
		return -1;
	repo = xasprintf("%s/repo", root);
	tmpdir = xasprintf("%s/tmp", root);
	home = xasprintf("%s/home", root);
	mkdir(tmpdir, 0700);
	mkdir(home, 0700);
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	setenv("TMPDIR", tmpdir, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "A U Thor", 1);
	setenv("GIT_AUTHOR_EMAIL", "author@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "C O Mitter", 1);
	setenv("GIT_COMMITTER_EMAIL", "committer@example.com", 1);
	free(home);
	if (sh("set -e; cd %s; git init -q -b main repo; cd repo;"
	       "printf 'one\\n' > a.txt; printf 'x\\ny\\n' > crlf.txt;"
	       "printf 'crlf.txt text eol=crlf\\n' > .gitattributes; git -c core.safecrlf=false "
	       "add -A;"
	       "GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'"
	       " git commit -q -m 'first commit' -m 'body';"
	       "git tag -a v1.0 -m 'release 1.0';"
	       "printf 'two\\n' > a.txt; git rm -q .gitattributes; git add -A;"
	       "GIT_AUTHOR_DATE='1700000100 +0000' GIT_COMMITTER_DATE='1700000100 +0000'"
	       " git commit -q -m 'second';"
	       "git tag light; git update-ref refs/remotes/origin/main HEAD;"
	       "git checkout -q -b lfs; printf '*.bin filter=lfs diff=lfs merge=lfs -text\\n'"
	       " > .gitattributes; printf 'pointer\\n' > big.bin; git add -A;"
	       "git commit -q -m 'lfs'; git checkout -q main;"
	       "git checkout -q -b feature; printf 'b\\n' > b.txt; git add b.txt;"
	       "GIT_AUTHOR_DATE='1700000200 +0000' GIT_COMMITTER_DATE='1700000200 +0000'"
	       " git commit -q -m 'feature';"
	       "git checkout -q main;"
	       "GIT_AUTHOR_DATE='1700000300 +0000' GIT_COMMITTER_DATE='1700000300 +0000'"
	       " git merge -q --no-ff -m 'merge feature' feature",
	       root) != 0)
		return -1;
	sha_of(&c1, repo, "v1.0^{commit}");
	sha_of(&c2, repo, "light");
	sha_of(&c3, repo, "feature");
	sha_of(&c4, repo, "main");
	sha_of(&lfs, repo, "lfs");
	return 0;
}

static int teardown(void **state)
{
	struct err err = ERR_INIT;

	(void)state;
	fsio_remove_tree(root, &err);
	free(root);
	free(repo);
	free(tmpdir);
	return 0;
}

static struct vcs *open_repo(const char *path)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = NULL;

	if (vcs_open(path, &vcs, &err) < 0)
		fail_msg("%s", err.msg);
	return vcs;
}

static void expect_resolves(struct vcs *vcs, const char *rev, const struct vcs_sha *want)
{
	struct err err = ERR_INIT;
	struct vcs_sha got;

	if (vcs_resolve(vcs, rev, &got, &err) < 0)
		fail_msg("%s: %s", rev, err.msg);
	assert_string_equal(got.hex, want->hex);
}

static void test_vcs__resolves_every_rev_form(void **state)
{
	struct vcs *vcs;
	char *sub = xasprintf("%s/.git/refs", repo);
	char short7[8];

	(void)state;
	vcs = open_repo(sub); /* discovered upward */
	assert_string_equal(vcs_workdir(vcs), repo);
	memcpy(short7, c2.hex, 7);
	short7[7] = '\0';
	expect_resolves(vcs, c2.hex, &c2);
	expect_resolves(vcs, short7, &c2);
	expect_resolves(vcs, "main", &c4);
	expect_resolves(vcs, "HEAD", &c4);
	expect_resolves(vcs, "v1.0", &c1); /* annotated tag peels to its commit */
	expect_resolves(vcs, "refs/tags/v1.0", &c1);
	expect_resolves(vcs, "light", &c2);
	expect_resolves(vcs, "HEAD~1", &c2);
	expect_resolves(vcs, "HEAD~2", &c1);
	expect_resolves(vcs, "HEAD^2", &c3);
	expect_resolves(vcs, "origin/main", &c2);
	expect_resolves(vcs, "feature", &c3);
	vcs_free(vcs);
	free(sub);
}

static void test_vcs__head_and_commit_info(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = open_repo(repo);
	struct vcs_commit_info info;
	struct vcs_sha head;

	(void)state;
	assert_int_equal(vcs_head(vcs, &head, &err), 0);
	assert_string_equal(head.hex, c4.hex);
	assert_int_equal(vcs_commit_info(vcs, &c1, &info, &err), 0);
	assert_string_equal(info.subject, "first commit");
	assert_int_equal(info.author_time_s, 1700000000);
	assert_int_equal(info.author_utc_offset_min, 0);
	assert_string_equal(info.sha.hex, c1.hex);
	vcs_commit_info_release(&info);
	vcs_free(vcs);
}

static void test_vcs__rejects_bad_revisions(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = open_repo(repo);
	struct vcs_sha got;

	(void)state;
	assert_int_equal(vcs_resolve(vcs, "-x", &got, &err), ERR_USAGE);
	assert_string_equal(err.msg, "revision \"-x\" must not start with \"-\"");
	assert_int_equal(vcs_resolve(vcs, "nope", &got, &err), ERR_EXEC);
	assert_string_equal(err.msg, "revision \"nope\" not found: fetch it, or in GitHub Actions "
				     "use actions/checkout with fetch-depth: 0");
	assert_int_equal(vcs_resolve(vcs, "HEAD~9", &got, &err), ERR_EXEC);
	assert_string_equal(err.msg, "revision \"HEAD~9\" not found: fetch it, or in GitHub "
				     "Actions use actions/checkout with fetch-depth: 0");
	assert_int_equal(vcs_resolve(vcs, "HEAD:a.txt", &got, &err), ERR_EXEC);
	assert_string_equal(err.msg, "revision \"HEAD:a.txt\" is a blob, not a commit");
	assert_string_equal(got.hex, "");
	vcs_free(vcs);
}

static void test_vcs__not_a_repository(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = NULL;
	char *want;

	(void)state;
	/* GIT_CEILING_DIRECTORIES keeps discovery from finding a repository above. */
	setenv("GIT_CEILING_DIRECTORIES", root, 1);
	assert_int_equal(vcs_open(tmpdir, &vcs, &err), ERR_EXEC);
	unsetenv("GIT_CEILING_DIRECTORIES");
	assert_null(vcs);
	want = xasprintf("\"%s\" is not in a git repository: run himorime inside a clone, "
			 "or use run instead of compare",
			 tmpdir);
	assert_string_equal(err.msg, want);
	free(want);
}

/* The probe a plain run makes before it starts libgit2: a work tree's
 * directories, at any depth, and no more. */
static void test_vcs__work_tree_probe_finds_a_git_entry_above(void **state)
{
	char *deep = xasprintf("%s/a/b", repo), *a = xasprintf("%s/a", repo);

	(void)state;
	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(deep, 0700), 0);
	assert_true(vcs_may_be_in_work_tree(repo));
	assert_true(vcs_may_be_in_work_tree(deep));
	assert_false(vcs_may_be_in_work_tree(tmpdir));
	assert_false(vcs_may_be_in_work_tree(root));
	assert_false(vcs_may_be_in_work_tree("/nonexistent/himorime"));
	rmdir(deep);
	rmdir(a);
	free(deep);
	free(a);
}

/* 1000 blobs make several 4-digit prefixes collide; the message names both. */
static void test_vcs__ambiguous_short_id_names_candidates(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs;
	struct vcs_sha got;
	char *prefix, *pair, *want, *path;

	(void)state;
	assert_int_equal(sh("cd %s && git init -q amb && cd amb && "
			    "for i in $(seq 1 1000); do printf 'blob\\ndata <<E\\n%%s\\nE\\n' $i; "
			    "done | git fast-import --quiet && "
			    "git cat-file --batch-all-objects --batch-check='%%(objectname)' "
			    "> ../amb.ids",
			    root),
			 0);
	prefix = out("cut -c1-4 %s/amb.ids | sort | uniq -d | head -n 1", root);
	assert_int_equal(strlen(prefix), 4);
	pair = out("grep '^%s' %s/amb.ids | sort | sed 's/$/ (blob)/' | paste -sd, | "
		   "sed 's/,/, /g'",
		   prefix, root);
	want = xasprintf("revision \"%s\" is ambiguous: %s: use more digits", prefix, pair);
	path = xasprintf("%s/amb", root);
	vcs = open_repo(path);
	free(path);
	assert_int_equal(vcs_resolve(vcs, prefix, &got, &err), ERR_EXEC);
	assert_string_equal(err.msg, want);
	vcs_free(vcs);
	free(want);
	free(pair);
	free(prefix);
}

static void test_vcs__dirty_detection(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs;
	bool dirty = true;
	char *clone = xasprintf("%s/dirty", root);

	(void)state;
	assert_int_equal(sh("git clone -q %s %s && cd %s && printf 'x\\n' > .gitignore && "
			    "git add .gitignore && git commit -q -m ignore",
			    repo, clone, clone),
			 0);
	vcs = open_repo(clone);
	assert_int_equal(vcs_is_dirty(vcs, &dirty, &err), 0);
	assert_false(dirty);
	assert_int_equal(sh("touch %s/x", clone), 0); /* ignored */
	assert_int_equal(vcs_is_dirty(vcs, &dirty, &err), 0);
	assert_false(dirty);
	assert_int_equal(sh("touch %s/untracked", clone), 0);
	assert_int_equal(vcs_is_dirty(vcs, &dirty, &err), 0);
	assert_true(dirty);
	assert_int_equal(sh("rm %s/untracked && echo more >> %s/a.txt", clone, clone), 0);
	assert_int_equal(vcs_is_dirty(vcs, &dirty, &err), 0);
	assert_true(dirty);
	assert_int_equal(sh("cd %s && git add a.txt", clone), 0); /* staged only */
	assert_int_equal(vcs_is_dirty(vcs, &dirty, &err), 0);
	assert_true(dirty);
	vcs_free(vcs);
	free(clone);
}

static void test_vcs__merge_base(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = open_repo(repo);
	struct vcs_sha base;

	(void)state;
	assert_int_equal(vcs_merge_base(vcs, &c3, &lfs, &base, &err), 0);
	assert_string_equal(base.hex, c2.hex);
	assert_int_equal(vcs_merge_base(vcs, &c4, &c1, &base, &err), 0);
	assert_string_equal(base.hex, c1.hex);
	vcs_free(vcs);
}

static void expect_walk(struct vcs *vcs, const char *range, bool first_parent, size_t every,
			const struct vcs_sha **want, size_t n)
{
	struct vcs_walk_opts opts = VCS_WALK_OPTS_INIT;
	struct err err = ERR_INIT;
	struct vcs_sha_list list;
	size_t i;

	opts.first_parent = first_parent;
	opts.every = every;
	if (vcs_walk(vcs, range, &opts, &list, &err) < 0)
		fail_msg("%s: %s", range, err.msg);
	assert_int_equal(list.count, n);
	for (i = 0; i < n; i++)
		assert_string_equal(list.items[i].hex, want[i]->hex);
	vcs_sha_list_release(&list);
}

static void test_vcs__walks_ranges(void **state)
{
	struct vcs *vcs = open_repo(repo);
	struct vcs_walk_opts opts = VCS_WALK_OPTS_INIT;
	struct err err = ERR_INIT;
	struct vcs_sha_list list;
	const struct vcs_sha *all[] = { &c2, &c3, &c4 };
	const struct vcs_sha *fp[] = { &c2, &c4 };
	const struct vcs_sha *fp_root[] = { &c1, &c2, &c4 };
	const struct vcs_sha *every2[] = { &c1, &c4 };
	const struct vcs_sha *tip_only[] = { &c4 };

	(void)state;
	expect_walk(vcs, "v1.0..main", false, 1, all, 3);
	expect_walk(vcs, "v1.0..", false, 1, all, 3);
	expect_walk(vcs, "v1.0..main", true, 1, fp, 2);
	expect_walk(vcs, "HEAD", true, 1, fp_root, 3);
	expect_walk(vcs, "HEAD", true, 2, every2, 2);
	expect_walk(vcs, "HEAD", true, 5, tip_only, 1);
	assert_int_equal(vcs_walk(vcs, "a...b", &opts, &list, &err), ERR_USAGE);
	assert_string_equal(
		err.msg, "range \"a...b\": symmetric ranges (A...B) are not supported, use A..B");
	assert_int_equal(vcs_walk(vcs, "v1.0..nope", &opts, &list, &err), ERR_EXEC);
	assert_string_equal(err.msg, "revision \"nope\" not found: fetch it, or in GitHub Actions "
				     "use actions/checkout with fetch-depth: 0");
	vcs_free(vcs);
}

static char *tree_file(const struct vcs_tree *t, const char *name)
{
	char *path = xasprintf("%s/%s", vcs_tree_path(t), name);
	char *data = slurp(path);
	free(path);
	return data;
}

static void test_vcs__materialise_is_a_real_git_tree(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = open_repo(repo);
	struct vcs_tree *t = NULL;
	char *s, *path, *before;
	struct stat index_st, file_st;

	(void)state;
	assert_int_equal(vcs_materialise(vcs, &c1, &t, &err), 0);
	path = xstrdup(vcs_tree_path(t));
	assert_int_equal(strncmp(path, tmpdir, strlen(tmpdir)), 0);
	assert_int_equal(count_trees(), 1);
	s = tree_file(t, "a.txt");
	assert_string_equal(s, "one\n");
	free(s);
	s = out("git -C %s rev-parse HEAD", path);
	assert_string_equal(s, c1.hex);
	free(s);
	s = out("git -C %s describe --always --tags", path);
	assert_string_equal(s, "v1.0");
	free(s);
	/* Clean, and git trusts the index as written: status does not rewrite it. */
	before = out("sha1sum < %s/.git/index", path);
	s = out("git -C %s status --porcelain", path);
	assert_string_equal(s, "");
	free(s);
	s = out("sha1sum < %s/.git/index", path);
	assert_string_equal(s, before);
	free(s);
	free(before);
	s = out("git -C %s symbolic-ref -q HEAD || echo detached", path);
	assert_string_equal(s, "detached");
	free(s);
	s = out("ls -A %s/.git/hooks 2>/dev/null | wc -l", path);
	assert_string_equal(s, "0");
	free(s);
	/* The refreshed index is newer than every file: no racily clean entries. */
	s = xasprintf("%s/.git/index", path);
	assert_int_equal(stat(s, &index_st), 0);
	free(s);
	s = xasprintf("%s/a.txt", path);
	assert_int_equal(stat(s, &file_st), 0);
	free(s);
	assert_true(index_st.st_mtime > file_st.st_mtime);
	assert_int_equal(vcs_tree_remove(t, &err), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(count_trees(), 0);
	free(path);
	vcs_free(vcs);
}

/* A commit no attribute file reaches is written straight from its blobs:
 * directories, an executable, a symbolic link, contents as committed; git
 * sees a clean tree and trusts the index as written. */
static void test_vcs__materialise_writes_modes_links_and_directories(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs;
	struct vcs_tree *t = NULL;
	struct vcs_sha shapes;
	struct stat st;
	char *s, *path, *before;

	(void)state;
	assert_int_equal(
		sh("set -e; cd %s; git checkout -q -b shapes main; mkdir -p d/e;"
		   "printf 'deep\\n' > d/e/f.txt; printf '#!/bin/sh\\necho ran\\n' > run.sh;"
		   "chmod 755 run.sh; ln -s d/e/f.txt link; git add -A;"
		   "git commit -q -m shapes; git checkout -q main",
		   repo),
		0);
	sha_of(&shapes, repo, "shapes");
	vcs = open_repo(repo);
	assert_int_equal(vcs_materialise(vcs, &shapes, &t, &err), 0);
	path = xstrdup(vcs_tree_path(t));
	s = tree_file(t, "d/e/f.txt");
	assert_string_equal(s, "deep\n");
	free(s);
	s = out("cd %s && ./run.sh && readlink link && cat link", path);
	assert_string_equal(s, "ran\nd/e/f.txt\ndeep");
	free(s);
	s = xasprintf("%s/run.sh", path);
	assert_int_equal(stat(s, &st), 0);
	assert_true(st.st_mode & S_IXUSR);
	free(s);
	s = xasprintf("%s/a.txt", path);
	assert_int_equal(stat(s, &st), 0);
	assert_false(st.st_mode & S_IXUSR);
	free(s);
	before = out("sha1sum < %s/.git/index", path);
	s = out("git -C %s status --porcelain", path);
	assert_string_equal(s, "");
	free(s);
	s = out("sha1sum < %s/.git/index", path);
	assert_string_equal(s, before);
	free(s);
	free(before);
	assert_int_equal(vcs_tree_remove(t, &err), 0);
	free(path);
	vcs_free(vcs);
}

/* c1's .gitattributes asks for CRLF; HEAD has none. The commit's own
 * attributes apply, whatever the working tree has. */
static void test_vcs__materialise_applies_the_commits_attributes(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = open_repo(repo);
	struct vcs_tree *t = NULL;
	char *s;

	(void)state;
	assert_int_equal(vcs_materialise(vcs, &c1, &t, &err), 0);
	s = tree_file(t, "crlf.txt");
	assert_string_equal(s, "x\r\ny\r\n");
	free(s);
	assert_int_equal(vcs_tree_remove(t, &err), 0);
	/* And the reverse: the working tree asks for CRLF, the commit does not. */
	assert_int_equal(sh("printf 'crlf.txt text eol=crlf\\n' > %s/.gitattributes", repo), 0);
	assert_int_equal(vcs_materialise(vcs, &c2, &t, &err), 0);
	s = tree_file(t, "crlf.txt");
	assert_string_equal(s, "x\ny\n");
	free(s);
	assert_int_equal(vcs_tree_remove(t, &err), 0);
	assert_int_equal(sh("rm %s/.gitattributes", repo), 0);
	vcs_free(vcs);
}

static void test_vcs__materialise_refuses_filter_drivers(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = open_repo(repo);
	struct vcs_tree *t = NULL;
	char *want;

	(void)state;
	assert_int_equal(vcs_materialise(vcs, &lfs, &t, &err), ERR_EXEC);
	assert_null(t);
	want = xasprintf("commit %.12s has files that need an external filter driver, which "
			 "himorime cannot run: big.bin (filter=lfs)",
			 lfs.hex);
	assert_string_equal(err.msg, want);
	assert_int_equal(count_trees(), 0); /* removed after the error */
	free(want);
	vcs_free(vcs);
}

/* libgit2 needs an absolute target; $TMPDIR may be relative. */
static void test_vcs__materialise_with_relative_tmpdir(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = open_repo(repo);
	struct vcs_tree *t = NULL;
	char *cwd = getcwd(NULL, 0), *s;

	(void)state;
	assert_int_equal(chdir(root), 0);
	setenv("TMPDIR", "tmp", 1);
	assert_int_equal(vcs_materialise(vcs, &c2, &t, &err), 0);
	setenv("TMPDIR", tmpdir, 1);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(strncmp(vcs_tree_path(t), tmpdir, strlen(tmpdir)), 0);
	s = out("git -C %s rev-parse HEAD", vcs_tree_path(t));
	assert_string_equal(s, c2.hex);
	free(s);
	assert_int_equal(vcs_tree_remove(t, &err), 0);
	assert_int_equal(count_trees(), 0);
	vcs_free(vcs);
	free(cwd);
}

static void test_vcs__materialise_missing_commit(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = open_repo(repo);
	struct vcs_tree *t = NULL;
	struct vcs_sha missing = { "0123456789abcdef0123456789abcdef01234567" };

	(void)state;
	assert_int_equal(vcs_materialise(vcs, &missing, &t, &err), ERR_EXEC);
	assert_null(t);
	assert_string_equal(err.msg, "revision \"0123456789abcdef0123456789abcdef01234567\" not "
				     "found: fetch it, or in GitHub Actions use actions/checkout "
				     "with fetch-depth: 0");
	assert_int_equal(count_trees(), 0);
	vcs_free(vcs);
}

/* With modified, staged and untracked files present, materialising and
 * removing a tree leaves status, index bytes, refs and config as they were. */
static void test_vcs__materialise_leaves_the_user_repository_alone(void **state)
{
	struct err err = ERR_INIT;
	char *clone = xasprintf("%s/user", root);
	char *status[2], *index[2], *refs[2], *config[2], *index_path, *config_path, *worktrees;
	struct vcs *vcs;
	struct vcs_tree *t = NULL;
	int i;

	(void)state;
	assert_int_equal(sh("git clone -q %s %s && cd %s && git tag -a v0 -m v0 %s && "
			    "echo changed >> a.txt && echo new > staged.txt && git add staged.txt "
			    "&& echo u > untracked.txt",
			    repo, clone, clone, c1.hex),
			 0);
	index_path = xasprintf("%s/.git/index", clone);
	config_path = xasprintf("%s/.git/config", clone);
	for (i = 0; i < 2; i++) {
		status[i] = out("git -C %s status --porcelain", clone);
		index[i] = slurp(index_path);
		refs[i] = out("git -C %s for-each-ref", clone);
		config[i] = slurp(config_path);
		if (i)
			break;
		vcs = open_repo(clone);
		assert_int_equal(vcs_materialise(vcs, &c1, &t, &err), 0);
		assert_int_equal(vcs_tree_remove(t, &err), 0);
		vcs_free(vcs);
	}
	assert_string_equal(status[0], " M a.txt\nA  staged.txt\n?? untracked.txt");
	assert_string_equal(status[0], status[1]);
	assert_string_equal(index[0], index[1]);
	assert_string_equal(refs[0], refs[1]);
	assert_string_equal(config[0], config[1]);
	worktrees = xasprintf("%s/.git/worktrees", clone);
	assert_int_equal(access(worktrees, F_OK), -1);
	for (i = 0; i < 2; i++) {
		free(status[i]);
		free(index[i]);
		free(refs[i]);
		free(config[i]);
	}
	free(worktrees);
	free(config_path);
	free(index_path);
	free(clone);
}

static void test_vcs__shallow_clone_names_the_fix(void **state)
{
	struct err err = ERR_INIT;
	char *clone = xasprintf("%s/shallow", root);
	struct vcs *vcs;
	struct vcs_sha got;
	struct vcs_tree *t = NULL;
	char *want, *s;

	(void)state;
	assert_int_equal(sh("git clone -q --depth 1 file://%s %s", repo, clone), 0);
	vcs = open_repo(clone);
	assert_true(vcs_is_shallow(vcs));
	assert_int_equal(vcs_resolve(vcs, c1.hex, &got, &err), ERR_EXEC);
	want = xasprintf("revision \"%s\" is not in this shallow clone: fetch the history "
			 "(actions/checkout with fetch-depth: 0)",
			 c1.hex);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(vcs_resolve(vcs, "HEAD~1", &got, &err), ERR_EXEC);
	assert_string_equal(err.msg, "revision \"HEAD~1\" is not in this shallow clone: fetch the "
				     "history (actions/checkout with fetch-depth: 0)");
	/* What is there still materialises, and git can describe it. */
	assert_int_equal(vcs_materialise(vcs, &c4, &t, &err), 0);
	s = out("git -C %s describe --always", vcs_tree_path(t));
	assert_int_equal(strncmp(s, c4.hex, 7), 0);
	free(s);
	assert_int_equal(vcs_tree_remove(t, &err), 0);
	vcs_free(vcs);
	free(clone);
}

static void test_vcs__owner_check_names_safe_directory(void **state)
{
	struct err err = ERR_INIT;
	char *clone = xasprintf("%s/owned", root);
	struct vcs *vcs = NULL;
	char *want;

	(void)state;
	if (geteuid() != 0)
		skip(); /* only root can give a repository to another user */
	assert_int_equal(sh("git clone -q %s %s && chown -R nobody %s", repo, clone, clone), 0);
	assert_int_equal(vcs_open(clone, &vcs, &err), ERR_EXEC);
	assert_null(vcs);
	want = xasprintf("repository \"%s\" is owned by another user: add it with git config "
			 "--global --add safe.directory %s (in containers and Actions, the "
			 "checkout is often owned by another user)",
			 clone, clone);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(sh("chown -R 0 %s", clone), 0);
	free(clone);
}

static void test_vcs__sweeps_dirs_of_dead_pids_only(void **state)
{
	struct err err = ERR_INIT;
	char *dead, *mine, *init_dir, *other;
	size_t removed = 99;
	pid_t child;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	dead = xasprintf("%s/himorime-rev-%ld-abc123", tmpdir, (long)child);
	mine = xasprintf("%s/himorime-rev-%ld-def456", tmpdir, (long)getpid());
	init_dir = xasprintf("%s/himorime-rev-1-ghi789", tmpdir);
	other = xasprintf("%s/himorime-other-%ld", tmpdir, (long)child);
	assert_int_equal(
		sh("mkdir -p %s/sub %s %s %s && touch %s/sub/f", dead, mine, init_dir, other, dead),
		0);
	assert_int_equal(vcs_sweep_stale(&removed, &err), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(mine, F_OK), 0);
	assert_int_equal(access(init_dir, F_OK), 0);
	assert_int_equal(access(other, F_OK), 0);
	assert_int_equal(sh("rmdir %s %s %s", mine, init_dir, other), 0);
	free(dead);
	free(mine);
	free(init_dir);
	free(other);
}

static void test_vcs__interrupt_path_removes_live_trees(void **state)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = open_repo(repo);
	struct vcs_tree *a = NULL, *b = NULL;

	(void)state;
	assert_int_equal(vcs_materialise(vcs, &c1, &a, &err), 0);
	assert_int_equal(vcs_materialise(vcs, &c2, &b, &err), 0);
	assert_int_equal(count_trees(), 2);
	assert_int_equal(vcs_remove_live_trees(), 0);
	assert_int_equal(count_trees(), 0);
	assert_int_equal(vcs_tree_remove(a, &err), 0);
	assert_int_equal(vcs_tree_remove(b, &err), 0);
	vcs_free(vcs);
}

static struct vcs_history_entry entry(const struct vcs_sha *commit, const char *suite,
				      const char *json)
{
	struct vcs_history_entry e;

	e.commit = *commit;
	e.suite_hash = (char *)suite;
	e.json = (char *)json;
	e.json_len = strlen(json);
	return e;
}

static const struct vcs_history_entry *find(const struct vcs_history *h, const struct vcs_sha *c,
					    const char *suite)
{
	size_t i;

	for (i = 0; i < h->count; i++)
		if (!strcmp(h->entries[i].commit.hex, c->hex) &&
		    !strcmp(h->entries[i].suite_hash, suite))
			return &h->entries[i];
	return NULL;
}

/* Writers in separate processes racing on one ref, from its creation on:
 * every append lands, each as its own history commit on top of the last. */
static void test_vcs__history_racing_writers_lose_nothing(void **state)
{
	enum { WRITERS = 6, ROUNDS = 4 };
	char *clone = xasprintf("%s/race", root);
	int round;

	(void)state;
	assert_int_equal(sh("git clone -q %s %s", repo, clone), 0);
	for (round = 0; round < ROUNDS; round++) {
		char *ref = xasprintf("refs/himorime/race%d", round);
		pid_t pids[WRITERS];
		struct vcs_history h;
		struct err err = ERR_INIT;
		struct vcs *vcs;
		char *count;
		int i;

		for (i = 0; i < WRITERS; i++) {
			pids[i] = fork();
			assert_true(pids[i] >= 0);
			if (pids[i] == 0) {
				char suite[16];
				struct vcs_history_entry e;
				struct vcs *mine = NULL;
				snprintf(suite, sizeof(suite), "w%d", i);
				e = entry(&c1, suite, "{}");
				if (vcs_open(clone, &mine, &err) < 0 ||
				    vcs_history_append(mine, ref, &e, 1, &err) < 0) {
					fprintf(stderr, "writer %d: %s\n", i, err.msg);
					_exit(1);
				}
				_exit(0);
			}
		}
		for (i = 0; i < WRITERS; i++) {
			int status = 0;
			assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
			assert_true(WIFEXITED(status));
			assert_int_equal(WEXITSTATUS(status), 0);
		}
		vcs = open_repo(clone);
		assert_int_equal(vcs_history_read(vcs, ref, &h, &err), 0);
		assert_int_equal(h.count, WRITERS);
		vcs_history_release(&h);
		vcs_free(vcs);
		count = out("git -C %s rev-list --count %s", clone, ref);
		assert_string_equal(count, "6");
		free(count);
		free(ref);
	}
	free(clone);
}

static void test_vcs__history_round_trip_and_cas(void **state)
{
	struct err err = ERR_INIT;
	char *clone = xasprintf("%s/hist", root);
	struct vcs *vcs, *other;
	struct vcs_history h, stale;
	struct vcs_history_entry e[3];
	char *before[2];
	size_t removed = 0;

	(void)state;
	assert_int_equal(sh("git clone -q %s %s && echo dirty >> %s/a.txt", repo, clone, clone), 0);
	before[0] = out("cd %s && git status --porcelain && git for-each-ref refs/heads refs/tags"
			" && sha1sum .git/index",
			clone);
	vcs = open_repo(clone);
	other = open_repo(clone);
	e[0] = entry(&c1, "s1", "{\"a\":1}");
	e[1] = entry(&c2, "s1", "{\"a\":2}");
	e[2] = entry(&c2, "s2", "{\"b\":2}");
	assert_int_equal(vcs_history_append(vcs, VCS_HISTORY_REF, e, 3, &err), 0);
	assert_int_equal(vcs_history_read(vcs, VCS_HISTORY_REF, &h, &err), 0);
	assert_int_equal(h.count, 3);
	assert_string_equal(find(&h, &c2, "s2")->json, "{\"b\":2}");
	vcs_history_release(&h);
	/* As git sees it: one directory per commit, one file per suite. */
	{
		const struct vcs_sha *lo = strcmp(c1.hex, c2.hex) < 0 ? &c1 : &c2;
		char *ls = out("git -C %s ls-tree -r --name-only " VCS_HISTORY_REF, clone);
		char *want = lo == &c1 ? xasprintf("%s/s1.json\n%s/s1.json\n%s/s2.json", c1.hex,
						   c2.hex, c2.hex)
				       : xasprintf("%s/s1.json\n%s/s2.json\n%s/s1.json", c2.hex,
						   c2.hex, c1.hex);
		assert_string_equal(ls, want);
		free(want);
		free(ls);
	}

	/* A writer that read before another one wrote is refused, and loses nothing. */
	assert_int_equal(vcs_history_read(vcs, VCS_HISTORY_REF, &stale, &err), 0);
	e[0] = entry(&c3, "s1", "{\"c\":3}");
	assert_int_equal(vcs_history_append(other, VCS_HISTORY_REF, e, 1, &err), 0);
	e[0] = entry(&c4, "s1", "{\"d\":4}");
	assert_int_equal(vcs_history_write(vcs, VCS_HISTORY_REF, &stale, e, 1, &err), ERR_EXEC);
	assert_string_equal(err.msg, "history ref \"refs/himorime/history\" was updated by another "
				     "writer: read it again and retry");
	vcs_history_release(&stale);
	assert_int_equal(vcs_history_append(vcs, VCS_HISTORY_REF, e, 1, &err), 0);
	assert_int_equal(vcs_history_read(vcs, VCS_HISTORY_REF, &h, &err), 0);
	assert_int_equal(h.count, 5);
	assert_non_null(find(&h, &c3, "s1"));
	assert_non_null(find(&h, &c4, "s1"));
	vcs_history_release(&h);

	/* The same when the ref did not exist yet: two writers creating it at once
	 * must not both win, or the second would drop the first one's entries. */
	assert_int_equal(vcs_history_read(vcs, "refs/himorime/fresh", &stale, &err), 0);
	assert_string_equal(stale.tip.hex, "");
	assert_int_equal(vcs_history_append(other, "refs/himorime/fresh", e, 1, &err), 0);
	assert_int_equal(vcs_history_write(vcs, "refs/himorime/fresh", &stale, e, 1, &err),
			 ERR_EXEC);
	assert_string_equal(err.msg, "history ref \"refs/himorime/fresh\" was updated by another "
				     "writer: read it again and retry");
	vcs_history_release(&stale);

	/* Prune keeps the two newest commits (c4, c3). */
	assert_int_equal(vcs_history_prune(vcs, VCS_HISTORY_REF, 2, &removed, &err), 0);
	assert_int_equal(removed, 2);
	assert_int_equal(vcs_history_read(vcs, VCS_HISTORY_REF, &h, &err), 0);
	assert_int_equal(h.count, 2);
	assert_non_null(find(&h, &c3, "s1"));
	assert_non_null(find(&h, &c4, "s1"));
	vcs_history_release(&h);

	assert_int_equal(vcs_history_read(vcs, "refs/heads/main", &h, &err), ERR_USAGE);
	assert_string_equal(err.msg, "history ref \"refs/heads/main\" must not be a branch, tag or "
				     "remote-tracking ref");
	before[1] = out("cd %s && git status --porcelain && git for-each-ref refs/heads refs/tags"
			" && sha1sum .git/index",
			clone);
	assert_string_equal(before[0], before[1]);
	free(before[0]);
	free(before[1]);
	vcs_free(other);
	vcs_free(vcs);
	free(clone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vcs__resolves_every_rev_form),
		cmocka_unit_test(test_vcs__head_and_commit_info),
		cmocka_unit_test(test_vcs__rejects_bad_revisions),
		cmocka_unit_test(test_vcs__not_a_repository),
		cmocka_unit_test(test_vcs__work_tree_probe_finds_a_git_entry_above),
		cmocka_unit_test(test_vcs__ambiguous_short_id_names_candidates),
		cmocka_unit_test(test_vcs__dirty_detection),
		cmocka_unit_test(test_vcs__merge_base),
		cmocka_unit_test(test_vcs__walks_ranges),
		cmocka_unit_test(test_vcs__materialise_is_a_real_git_tree),
		cmocka_unit_test(test_vcs__materialise_writes_modes_links_and_directories),
		cmocka_unit_test(test_vcs__materialise_applies_the_commits_attributes),
		cmocka_unit_test(test_vcs__materialise_refuses_filter_drivers),
		cmocka_unit_test(test_vcs__materialise_with_relative_tmpdir),
		cmocka_unit_test(test_vcs__materialise_missing_commit),
		cmocka_unit_test(test_vcs__materialise_leaves_the_user_repository_alone),
		cmocka_unit_test(test_vcs__shallow_clone_names_the_fix),
		cmocka_unit_test(test_vcs__owner_check_names_safe_directory),
		cmocka_unit_test(test_vcs__sweeps_dirs_of_dead_pids_only),
		cmocka_unit_test(test_vcs__interrupt_path_removes_live_trees),
		cmocka_unit_test(test_vcs__history_round_trip_and_cas),
		cmocka_unit_test(test_vcs__history_racing_writers_lose_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
