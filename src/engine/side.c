/*
 * A side of a suite or benchmark (see internal.h): its private directory,
 * ${workdir} and stdin; setup, prepare_each and cleanup hooks; the build of
 * ${artifact}, shared between the sides when byte-identical, built once when
 * both sides are one tree, and kept for the runner's lifetime for a base
 * tree that comes again (a sweep's reference); the version probes of
 * report.versions. Every step runs to completion through the
 * measurer and a failure is recorded in the document, never printed.
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/fsio.h"
#include "suite/recipes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

void side_vars(const struct side *s, struct vars *v)
{
	memset(v, 0, sizeof(*v));
	v->artifact = s->artifact;
	v->root = s->root;
	v->head_root = s->head_root;
	v->workdir = s->workdir;
	v->exe = "";
}

/* Where a step's streams go: stdout to `out` (NULL: discarded), stderr to
 * `err` when the caller reads it afterwards (NULL: a file of the step's own,
 * read only for the tail of a failure). */
struct step_io {
	const char *out, *err;
};

/* Runs a hook, build step or version probe to completion, its streams where
 * io says; a failure is described in *why (with the stderr tail) and
 * returns ERR_EXEC. The step's TMPDIR (unless its `env` sets one) is a
 * directory of the side's own, removed after the step: a compiler killed by
 * an interrupt or a timeout leaves its temporary files there, not in the
 * user's TMPDIR. */
static int run_step(struct runner *r, const struct exec *x, const struct side *s,
		    const struct step_io *io, struct strbuf *why, struct strbuf *tail)
{
	const char *dir = s->priv ? s->priv : s->build_dir;
	struct prepared p;
	struct run_result res;
	struct err err = ERR_INIT, gone = ERR_INIT;
	struct vars v;
	char *own_stderr = io->err ? NULL : xasprintf("%s/step-stderr", dir);
	const char *stderr_path = io->err ? io->err : own_stderr;
	char *tmp = xasprintf("%s/tmp", dir);
	int rc;

	side_vars(s, &v);
	rc = exec_prepare(x, &v, s->root, &r->hidden, &p, &err);
	if (rc < 0) {
		strbuf_adds(why, err.msg);
		goto done;
	}
	if (mkdir(tmp, 0700) == 0 || errno == EEXIST)
		exec_default_env(&p, x, "TMPDIR", tmp);
	p.req.stdout_path = io->out;
	p.req.stderr_path = stderr_path;
	rc = r->m.run(r->m.ctx, &p.req, 1, &res, &err);
	if (rc < 0) {
		strbuf_adds(why, err.msg);
		goto done;
	}
	rc = 0;
	if (res.status == RUN_EXITED && res.code == 0)
		goto done;
	run_result_describe(&p.req, &res, why);
	exec_stderr_tail(stderr_path, RESULTS_MAX_STDERR_BYTES, &p, tail);
	rc = res.status == RUN_INTERRUPTED ? ERR_INTERRUPTED : ERR_EXEC;
done:
	exec_release(&p);
	if (own_stderr)
		unlink(own_stderr);
	free(own_stderr);
	fsio_remove_tree(tmp, &gone);
	free(tmp);
	return rc;
}

/* Runs a list of hooks; the first failure is recorded in e with `kind`. */
int side_run_hooks(struct runner *r, const struct exec *hooks, size_t n, const struct side *s,
		   const char *what, enum results_error_kind kind, struct results_error *e)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct strbuf why, tail;
		int rc;

		strbuf_init(&why, 0);
		strbuf_init(&tail, 0);
		rc = run_step(r, &hooks[i], s, &(struct step_io){ .out = NULL, .err = NULL }, &why,
			      &tail);
		if (rc < 0 && !e->present) {
			char *msg = xasprintf("%s[%zu] %s", what, i, why.buf);
			results_set_error(e,
					  rc == ERR_INTERRUPTED ? RESULTS_ERROR_INTERRUPTED : kind,
					  msg, tail.buf, tail.len);
			free(msg);
		}
		strbuf_release(&why);
		strbuf_release(&tail);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void side_release(struct side *s)
{
	struct err err = ERR_INIT;

	if (!s)
		return;
	if (s->priv)
		fsio_remove_tree(s->priv, &err);
	free(s->priv);
	free(s->workdir);
	free(s->stdin_path);
	s->priv = s->workdir = s->stdin_path = NULL;
	s->failed = false;
}

void side_release_build(struct side *s)
{
	struct err err = ERR_INIT;

	if (s->build_dir && !s->kept_build)
		fsio_remove_tree(s->build_dir, &err);
	free(s->build_dir);
	free(s->artifact);
	s->build_dir = s->artifact = NULL;
	s->kept_build = false;
}

static char *private_prefix(const char *what)
{
	return xasprintf("himorime-%s-%ld-", what, (long)getpid());
}

int side_open(struct bench_run *br, struct side *s, struct err *err)
{
	const struct benchmark *b = br->b;
	char *prefix = private_prefix("run");
	struct vars v;
	int rc;

	rc = fsio_mkdtemp(prefix, &s->priv, err);
	free(prefix);
	if (rc < 0)
		return rc;
	s->workdir = xasprintf("%s/work", s->priv);
	if (mkdir(s->workdir, 0700) < 0)
		return err_set(err, ERR_EXEC, "cannot create \"%s\": %s", s->workdir,
			       strerror(errno));
	side_vars(s, &v);
	switch (b->stdin_spec.kind) {
	case STDIN_NONE:
		return 0;
	case STDIN_FILE: {
		struct strbuf sb;
		strbuf_init(&sb, 0);
		/* Not opened here: setup may write it (${workdir}/input.txt).
		 * Each run opens it, and its starter refuses anything but a
		 * regular file then (docs/github-actions.md, "Threat model"). */
		rc = vars_expand(b->stdin_spec.value, &v, false, &sb, err);
		if (rc == 0)
			s->stdin_path = exec_resolve_path(s->root, sb.buf);
		strbuf_release(&sb);
		return rc;
	}
	case STDIN_CONTENT: {
		struct strbuf sb;
		strbuf_init(&sb, 0);
		rc = vars_expand(b->stdin_spec.value, &v, false, &sb, err);
		s->stdin_path = xasprintf("%s/stdin", s->priv);
		if (rc == 0)
			rc = fsio_write_atomic(s->stdin_path, sb.buf, sb.len, err);
		strbuf_release(&sb);
		return rc;
	}
	}
	return 0;
}

const char *side_name(int side)
{
	return side == HEAD ? "head" : "base";
}

void side_cleanup(struct bench_run *br, int side)
{
	struct side *s = br->sides[side];
	struct results_error *e = &br->rb->error;
	bool was_interrupted = br->r->interrupted;

	if (!s || !s->priv)
		return;
	/* Cleanup runs whatever happened, also after an interrupt: let it run. */
	br->r->interrupted = 0;
	side_run_hooks(br->r, br->b->cleanup, br->b->cleanup_count, s, "cleanup",
		       RESULTS_ERROR_CLEANUP_FAILED, e);
	br->r->interrupted = (sig_atomic_t)(was_interrupted || br->r->interrupted);
	side_release(s);
}

static void first_line(const char *text, struct strbuf *out)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");
		size_t s = 0;
		while (s < n && (p[s] == ' ' || p[s] == '\t' || p[s] == '\r'))
			s++;
		if (s < n) {
			size_t e = n;
			while (e > s && (p[e - 1] == ' ' || p[e - 1] == '\t' || p[e - 1] == '\r'))
				e--;
			strbuf_add(out, p + s, e - s);
			return;
		}
		p += n;
		if (*p)
			p++;
	}
}

/* The first non-empty line of a step's output file, trimmed, into line. */
static void file_first_line(const char *path, struct strbuf *line)
{
	struct err err = ERR_INIT;
	char *text = NULL;
	size_t len;

	if (fsio_read_file(path, 1 << 20, &text, &len, &err) == 0)
		first_line(text, line);
	free(text);
}

/* One tool of report.versions: no shell, in the suite's directory, with
 * LC_ALL=C and a 30 s limit. Its version is the first non-empty line of its
 * stdout, else of its stderr (`bzip2 --version` prints only there), as the
 * reference tool reads it; a tool that prints neither fails. */
static int probe_one(struct runner *r, const struct tool_version *t, struct side *head,
		     struct strbuf *line, struct strbuf *why, struct strbuf *tail)
{
	struct env_var lc = { .name = "LC_ALL", .value = "C" };
	struct exec x = {
		.kind = EXEC_ARGV,
		.argv = t->argv,
		.argc = t->argc,
		.env = &lc,
		.env_count = 1,
		.timeout_ns = UINT64_C(30) * 1000000000,
	};
	char *out = xasprintf("%s/version-out", head->build_dir);
	char *err = xasprintf("%s/version-err", head->build_dir);
	int rc = run_step(r, &x, head, &(struct step_io){ .out = out, .err = err }, why, tail);

	if (rc == 0)
		file_first_line(out, line);
	if (rc == 0 && !line->len)
		file_first_line(err, line);
	if (rc == 0 && !line->len) {
		strbuf_adds(why, "printed nothing on stdout or stderr");
		rc = ERR_EXEC;
	}
	unlink(out);
	unlink(err);
	free(out);
	free(err);
	return rc;
}

/* report.versions: each tool once, before the build; the first failure is
 * the suite's error. */
static int probe_versions(struct runner *r, const struct suite *s, struct side *head,
			  struct results *doc, struct results_suite *rs)
{
	size_t i, j;
	int rc = 0;

	for (i = 0; i < s->version_count && rc == 0; i++) {
		const struct tool_version *t = &s->versions[i];
		struct strbuf why, tail, line;

		strbuf_init(&why, 0);
		strbuf_init(&tail, 0);
		strbuf_init(&line, 0);
		rc = probe_one(r, t, head, &line, &why, &tail);
		if (rc < 0) {
			char *msg = xasprintf("report.versions.%s: %s", t->tool, why.buf);
			results_set_error(&rs->error, RESULTS_ERROR_START_FAILED, msg, tail.buf,
					  tail.len);
			free(msg);
		} else {
			for (j = 0; j < doc->environment.n_tools; j++)
				if (!strcmp(doc->environment.tools[j].name, t->tool))
					break;
			if (j == doc->environment.n_tools)
				results_add_tool(doc, t->tool, line.buf);
		}
		strbuf_release(&why);
		strbuf_release(&tail);
		strbuf_release(&line);
	}
	return rc;
}

static int open_build(struct side *s, const struct suite *suite, struct err *err)
{
	char *prefix = private_prefix("build");
	int rc = fsio_mkdtemp(prefix, &s->build_dir, err);

	free(prefix);
	if (rc < 0)
		return rc;
	if (suite->has_build)
		s->artifact = xasprintf("%s/artifact", s->build_dir);
	return 0;
}

/* What a build that left no ${artifact} should do, with the step for the
 * build system its tree shows, which recipes_find tells by the files that
 * exist (docs/configuration.md#build). */
static void artifact_missing(const char *root, struct strbuf *why)
{
	unsigned up = 0, i;
	const struct recipe *r = recipes_find(root, &up);

	strbuf_adds(why, "finished but did not create ${artifact}: the build must leave the "
			 "program there");
	if (!r) {
		strbuf_adds(why, " (e.g. end it with cp PROGRAM ${artifact})");
		return;
	}
	strbuf_addf(why, "; this tree builds with %s (%s): e.g. command: \"", r->system, r->marker);
	recipes_command(r, NULL, why);
	strbuf_adds(why, "\", shell: true");
	for (i = 0; i < up; i++)
		strbuf_adds(why, i ? "/.." : ", cwd: ..");
	strbuf_adds(why, " (himorime init writes such a step)");
}

/* Runs the build step on one side, its streams in files that a watch
 * reads while it runs (when the options ask for lines while it runs); the
 * step's description and stderr tail go to why and tail. */
static int run_build_step(struct runner *r, const struct suite *suite, struct side *s,
			  const char *label, struct strbuf *why, struct strbuf *tail)
{
	bool watched = r->o.build_line && r->o.build_tick_ns;
	char *out = watched ? xasprintf("%s/build-stdout", s->build_dir) : NULL;
	char *err = watched ? xasprintf("%s/build-stderr", s->build_dir) : NULL;
	struct watch *w = watch_start(r, label, out, err);
	int rc = run_step(r, &suite->build, s, &(struct step_io){ .out = out, .err = err }, why,
			  tail);
	struct stat st;

	watch_stop(w);
	if (rc == 0 && stat(s->artifact, &st) < 0) {
		artifact_missing(s->root, why);
		rc = ERR_EXEC;
	}
	if (out)
		unlink(out);
	if (err)
		unlink(err);
	free(out);
	free(err);
	return rc;
}

/* Builds ${artifact} on one side, with a line when it starts and one when
 * it ends; a failure is the suite's error. */
static int build(struct runner *r, const struct suite *suite, struct side *s, int side,
		 struct results_suite *rs)
{
	struct strbuf why, tail;
	char *label;
	uint64_t t;
	int rc;

	if (!suite->has_build)
		return 0;
	engine_progress(r, "%s: build (%s)", suite->name, side_name(side));
	label = xasprintf("%s: build (%s)", suite->name, side_name(side));
	engine_build_line(r, "%s started", label);
	strbuf_init(&why, 0);
	strbuf_init(&tail, 0);
	t = clock_monotonic_ns();
	rc = run_build_step(r, suite, s, label, &why, &tail);
	t = clock_monotonic_ns() - t;
	if (rc == 0)
		engine_build_line(r, "%s finished in %.1f s", label, (double)t / 1e9);
	else
		engine_build_line(r, "%s failed after %.1f s: %s", label, (double)t / 1e9, why.buf);
	if (rc < 0 && !rs->error.present) {
		char *msg = xasprintf("build (%s): %s", side_name(side), why.buf);
		results_set_error(&rs->error,
				  rc == ERR_INTERRUPTED ? RESULTS_ERROR_INTERRUPTED
							: RESULTS_ERROR_BUILD_FAILED,
				  msg, tail.buf, tail.len);
		free(msg);
	}
	free(label);
	strbuf_release(&why);
	strbuf_release(&tail);
	return rc;
}

/*
 * Base and head built byte-identical artifacts: head's becomes a hard link to
 * base's, so that both sides run one file. Two files with the same bytes
 * still run measurably apart on a virtual machine (each has its own pages,
 * and the difference drifts over minutes: docs/comparison.md), which is no
 * difference of the code; a change that leaves the build alone must compare
 * as no change. Only the file is shared: each side keeps its own root, hooks
 * and variables. Any failure leaves the two files as they were.
 */
static bool share_artifact(const struct side *head, const struct side *base)
{
	struct stat a, b;
	char *tmp;
	bool ok;

	if (lstat(head->artifact, &a) < 0 || lstat(base->artifact, &b) < 0 || !S_ISREG(a.st_mode) ||
	    !S_ISREG(b.st_mode) || a.st_size != b.st_size || a.st_mode != b.st_mode)
		return false;
	if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return true;
	if (!fsio_same_content(head->artifact, base->artifact))
		return false;
	tmp = xasprintf("%s/.artifact-link", head->build_dir);
	ok = link(base->artifact, tmp) == 0 && rename(tmp, head->artifact) == 0;
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok;
}

/* ---- builds kept and shared ------------------------------------------------ */

/* What makes two builds of a base the same: its tree, its roots, the suite
 * file and its build command. */
static char *kept_key(const struct suite *suite, const struct side *s, const char *tree)
{
	struct strbuf sb;

	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s\n%s\n%s\n%s\n", tree, s->root, s->head_root, suite->path);
	suite_exec_text(&suite->build, &sb);
	return strbuf_detach(&sb, NULL);
}

static struct kept_build *find_kept(struct runner *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->n_kept; i++)
		if (!strcmp(r->kept[i].key, key))
			return &r->kept[i];
	return NULL;
}

/* The base's build directory: a kept one (*reused set), or a new one. */
static int open_base_build(struct runner *r, const struct suite *suite, struct side *base,
			   const char *key, bool *reused, struct err *err)
{
	struct kept_build *k = key ? find_kept(r, key) : NULL;

	*reused = k != NULL;
	if (!k)
		return open_build(base, suite, err);
	base->build_dir = xstrdup(k->build_dir);
	base->artifact = xstrdup(k->artifact);
	base->kept_build = true;
	return 0;
}

/* Hands a finished base build to the runner, which removes it at the end. */
static void keep_build(struct runner *r, struct side *base, char *key)
{
	struct kept_build *k;

	r->kept = xrealloc(r->kept, (r->n_kept + 1) * sizeof(*r->kept));
	k = &r->kept[r->n_kept++];
	k->key = key;
	k->build_dir = xstrdup(base->build_dir);
	k->artifact = xstrdup(base->artifact);
	base->kept_build = true;
}

void side_release_kept(struct runner *r)
{
	struct err err = ERR_INIT;
	size_t i;

	for (i = 0; i < r->n_kept; i++) {
		fsio_remove_tree(r->kept[i].build_dir, &err);
		free(r->kept[i].key);
		free(r->kept[i].build_dir);
		free(r->kept[i].artifact);
	}
	free(r->kept);
	r->kept = NULL;
	r->n_kept = 0;
}

/*
 * Identical trees need one build: when both sides' tree ids are known and
 * equal, only the base is built and head runs its ${artifact} (the
 * shared-artifact rule without a second build). A base build is kept for the
 * runner's lifetime when its tree is known, so the next suite measured
 * against the same tree (a sweep's reference, commit after commit) reuses
 * it. calibrate's separate_artifacts builds both sides every time.
 */
int side_build_all(struct runner *r, const struct suite *suite, struct side *sides[2],
		   const struct runner_roots *roots, struct results *doc, struct results_suite *rs,
		   struct err *err)
{
	struct side *head = sides[HEAD], *base = sides[BASE];
	bool keep = base && suite->has_build && roots->base_tree && !r->plan->separate_artifacts;
	bool same = keep && roots->head_tree && !strcmp(roots->head_tree, roots->base_tree);
	char *key = keep ? kept_key(suite, base, roots->base_tree) : NULL;
	bool reused = false;
	uint64_t t = clock_monotonic_ns();
	int rc = open_build(head, suite, err);

	if (rc == 0 && base)
		rc = open_base_build(r, suite, base, key, &reused, err);
	if (rc < 0) {
		free(key);
		return rc;
	}
	rc = probe_versions(r, suite, head, doc, rs);
	if (rc == 0 && !same)
		rc = build(r, suite, head, HEAD, rs);
	t = engine_phase(doc, RESULTS_PHASE_BUILD_HEAD, t);
	if (rc == 0 && base && !reused)
		rc = build(r, suite, base, BASE, rs);
	engine_phase(doc, RESULTS_PHASE_BUILD_BASE, t);
	if (rc == 0 && keep && !reused)
		keep_build(r, base, key);
	else
		free(key);
	if (rc < 0) { /* recorded in rs->error */
		rs->result = RESULT_ERROR;
		return r->interrupted ? ERR_INTERRUPTED : 0;
	}
	if (same) {
		free(head->artifact);
		head->artifact = xstrdup(base->artifact);
		rs->shared_artifact = true;
	} else if (base && suite->has_build && !r->plan->separate_artifacts) {
		rs->shared_artifact = share_artifact(head, base);
	}
	return 0;
}
