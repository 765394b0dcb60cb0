/*
 * Preparing and measuring the two revisions of a comparison: see revisions.h.
 */
#include "cli/revisions.h"

#include "common/alloc.h"
#include "suite/suite.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

static const char *const tokens[] = { "GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "GH_TOKEN" };

static void hide_names(struct revisions *rv)
{
	const char *const *git = vcs_git_env_names();
	size_t n = 0, i;

	while (git[n])
		n++;
	rv->hidden = xcalloc(n + ARRAY_SIZE(tokens), sizeof(*rv->hidden));
	for (i = 0; i < ARRAY_SIZE(tokens); i++)
		rv->hidden[rv->n_hidden++] = tokens[i];
	for (i = 0; i < n; i++)
		rv->hidden[rv->n_hidden++] = git[i];
}

static int fail(const struct err *err)
{
	return cli_fail(err);
}

int revisions_open(struct session *s, const struct revisions_request *req, struct revisions *rv)
{
	struct err err = ERR_INIT;
	char dir[PATH_MAX];
	size_t swept = 0;

	memset(rv, 0, sizeof(*rv));
	hide_names(rv);
	vcs_sweep_stale(&swept, &err);
	if (!realpath(s->suites.v[0]->dir, dir)) {
		err_set(&err, ERR_EXEC, "cannot resolve \"%s\"", s->suites.v[0]->dir);
		return fail(&err);
	}
	if (vcs_open(dir, &rv->vcs, &err) < 0)
		return fail(&err);
	if (req->head) {
		if (vcs_resolve(rv->vcs, req->head, &rv->head, &err) < 0)
			return fail(&err);
	} else if (vcs_head(rv->vcs, &rv->head, &err) < 0 ||
		   vcs_is_dirty(rv->vcs, &rv->dirty, &err) < 0) {
		return fail(&err);
	}
	if (req->against) {
		if (vcs_resolve(rv->vcs, req->against, &rv->base, &err) < 0)
			return fail(&err);
		if (req->merge_base) {
			struct vcs_sha mb;
			if (vcs_merge_base(rv->vcs, &rv->base, &rv->head, &mb, &err) < 0)
				return fail(&err);
			rv->base = mb;
		}
	} else {
		rv->base = rv->head;
	}
	if (req->head) {
		if (vcs_materialise(rv->vcs, &rv->head, &rv->head_tree, &err) < 0)
			return fail(&err);
		rv->head_dir = vcs_tree_path(rv->head_tree);
	} else {
		rv->head_dir = vcs_workdir(rv->vcs);
	}
	if (req->against || req->head) {
		if (vcs_materialise(rv->vcs, &rv->base, &rv->base_tree, &err) < 0)
			return fail(&err);
		rv->base_dir = vcs_tree_path(rv->base_tree);
	} else {
		/* A/A on the working tree: base is the same tree, built again. */
		rv->base_dir = rv->head_dir;
	}
	s->doc->git.present = true;
	results_set_str(&s->doc->git.head_sha, rv->head.hex);
	s->doc->git.dirty = rv->dirty;
	/* what the reader knows the base as: its branch, or REV as given (the
	 * renderers leave out a name that is only the sha again) */
	results_set_str(&s->doc->git.base_ref, req->base_name ? req->base_name : req->against);
	results_set_str(&s->doc->git.base_sha, rv->base.hex);
	results_set_str(&s->doc->git.base_source, req->base_source);
	return EXIT_OK;
}

/* The suite's directory relative to the repository's working tree; NULL
 * when it lies outside (an error). */
static char *relative_dir(const struct revisions *rv, const char *suite_dir)
{
	const char *top = vcs_workdir(rv->vcs);
	char dir[PATH_MAX];
	size_t n = strlen(top);

	if (!realpath(suite_dir, dir))
		return NULL;
	if (strncmp(dir, top, n) || (dir[n] != '/' && dir[n] != '\0'))
		return NULL;
	return xstrdup(dir[n] == '/' ? dir + n + 1 : "");
}

static char *join(const char *root, const char *rel)
{
	return *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
}

int revisions_measure(struct session *s, struct revisions *rv, bool **selected)
{
	struct err err = ERR_INIT;
	size_t i, k;

	for (i = 0; i < s->suites.count; i++) {
		const struct suite *suite = s->suites.v[i];
		char *rel, *head_root, *base_root, *base_file;
		const char *name = strrchr(suite->path, '/');
		struct stat st;
		bool any = false, is_new;
		int rc;

		for (k = 0; k < suite->benchmark_count; k++)
			any |= selected[i][k];
		if (!any)
			continue;
		rel = relative_dir(rv, suite->dir);
		if (!rel) {
			err_set(&err, ERR_EXEC, "suite \"%s\" is not inside the repository \"%s\"",
				suite->path, vcs_workdir(rv->vcs));
			return fail(&err);
		}
		head_root = join(rv->head_dir, rel);
		base_root = join(rv->base_dir, rel);
		base_file = xasprintf("%s/%s", base_root, name ? name + 1 : suite->path);
		is_new = stat(base_file, &st) < 0;
		rc = runner_run_suite(s->runner, suite, selected[i], head_root,
				      is_new ? NULL : base_root, s->doc, &err);
		if (is_new)
			runner_mark_new_in_head(s->doc);
		free(rel);
		free(head_root);
		free(base_root);
		free(base_file);
		if (rc == ERR_INTERRUPTED)
			break;
	}
	return EXIT_OK;
}

void revisions_release(struct revisions *rv)
{
	struct err err = ERR_INIT;

	vcs_tree_remove(rv->base_tree, &err);
	vcs_tree_remove(rv->head_tree, &err);
	vcs_free(rv->vcs);
	free(rv->hidden);
	memset(rv, 0, sizeof(*rv));
}

int revisions_compare(struct session *s, const struct revisions_request *req)
{
	struct revisions rv;
	bool **selected = session_selection(s);
	int code = session_select_check(s, selected);

	memset(&rv, 0, sizeof(rv));
	if (code == EXIT_OK)
		code = session_check_looks(s, selected);
	if (code == EXIT_OK)
		code = revisions_open(s, req, &rv);
	if (code == EXIT_OK)
		code = session_runner(s, rv.hidden, rv.n_hidden);
	if (code == EXIT_OK)
		code = revisions_measure(s, &rv, selected);
	/* The trees go before the report is written: nothing is left behind
	 * even when writing fails. */
	revisions_release(&rv);
	if (code == EXIT_OK)
		code = session_finish(s);
	session_selection_free(selected, s->suites.count);
	return code;
}
