/*
 * Preparing and measuring the two revisions of a comparison: see revisions.h.
 */
#include "cli/revisions.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "suite/suite.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

static void hide_names(struct revisions *rv)
{
	const char *const *git = vcs_git_env_names();
	size_t n = 0, i;

	while (git[n])
		n++;
	rv->hidden = xcalloc(n + 1, sizeof(*rv->hidden));
	for (i = 0; i < n; i++)
		rv->hidden[rv->n_hidden++] = git[i];
}

static int fail(const struct err *err)
{
	return cli_fail(err);
}

/* The commits of both sides, and their trees' ids. */
static int resolve(struct session *s, const struct revisions_request *req, struct revisions *rv,
		   struct err *err)
{
	if (req->head) {
		if (vcs_resolve(rv->vcs, req->head, &rv->head, err) < 0)
			return -1;
	} else if (vcs_head(rv->vcs, &rv->head, err) < 0 ||
		   vcs_is_dirty(rv->vcs, &rv->dirty, err) < 0) {
		return -1;
	}
	if (req->against) {
		if (vcs_resolve(rv->vcs, req->against, &rv->base, err) < 0)
			return -1;
		if (req->merge_base) {
			struct vcs_sha mb;
			if (vcs_merge_base(rv->vcs, &rv->base, &rv->head, &mb, err) < 0)
				return -1;
			rv->base = mb;
		}
	} else {
		rv->base = rv->head;
	}
	if (vcs_tree_id(rv->vcs, &rv->base, &rv->base_tree_id, err) < 0 ||
	    (!rv->dirty && vcs_tree_id(rv->vcs, &rv->head, &rv->head_tree_id, err) < 0))
		return -1;
	rv->same_tree = !rv->dirty && !plan_separate_artifacts(s->flags.verb) &&
			!strcmp(rv->base_tree_id.hex, rv->head_tree_id.hex);
	return 0;
}

/* Head's tree (a commit with --head), then the base's: not a second copy
 * when both trees are the same, nor when the base is the working tree. */
static int materialise(struct session *s, const struct revisions_request *req, struct revisions *rv,
		       struct err *err)
{
	uint64_t t = clock_monotonic_ns();

	if (req->head) {
		if (vcs_materialise(rv->vcs, &rv->head, &rv->head_tree, err) < 0)
			return -1;
		rv->head_dir = vcs_tree_path(rv->head_tree);
	} else {
		rv->head_dir = vcs_workdir(rv->vcs);
	}
	t = session_phase(s, RESULTS_PHASE_MATERIALISE_HEAD, t);
	if ((req->against || req->head) && !rv->same_tree) {
		if (vcs_materialise(rv->vcs, &rv->base, &rv->base_tree, err) < 0)
			return -1;
		rv->base_dir = vcs_tree_path(rv->base_tree);
	} else {
		/* A/A on the working tree, or identical trees: base is head's
		 * tree (built again only for calibrate) */
		rv->base_dir = rv->head_dir;
	}
	session_phase(s, RESULTS_PHASE_MATERIALISE_BASE, t);
	return 0;
}

int revisions_open(struct session *s, const struct revisions_request *req, struct revisions *rv)
{
	struct err err = ERR_INIT;
	char dir[PATH_MAX];
	size_t swept = 0;
	uint64_t t = clock_monotonic_ns();

	memset(rv, 0, sizeof(*rv));
	hide_names(rv);
	vcs_sweep_stale(&swept, &err);
	if (!realpath(s->suites.v[0]->dir, dir)) {
		err_set(&err, ERR_EXEC, "cannot resolve \"%s\"", s->suites.v[0]->dir);
		return fail(&err);
	}
	if (vcs_open(dir, &rv->vcs, &err) < 0 || resolve(s, req, rv, &err) < 0)
		return fail(&err);
	session_phase(s, RESULTS_PHASE_RESOLVE, t);
	if (materialise(s, req, rv, &err) < 0)
		return fail(&err);
	s->doc->git.present = true;
	results_set_str(&s->doc->git.head_sha, rv->head.hex);
	s->doc->git.dirty = rv->dirty;
	/* what the reader knows the base as: its branch, or REV as given (the
	 * renderers leave out a name that is only the sha again) */
	results_set_str(&s->doc->git.base_ref, req->base_name ? req->base_name : req->against);
	results_set_str(&s->doc->git.base_sha, rv->base.hex);
	results_set_str(&s->doc->git.base_source, req->base_source);
	rv->suite_from = req->suite_from;
	return EXIT_OK;
}

int revisions_suite_from(const char *cmd, const char *text, enum revisions_suite_from *out)
{
	*out = REVISIONS_SUITE_OWN;
	if (!text)
		return EXIT_OK;
	if (!strcmp(text, "head")) {
		*out = REVISIONS_SUITE_HEAD;
		return EXIT_OK;
	}
	if (!strcmp(text, "base")) {
		*out = REVISIONS_SUITE_BASE;
		return EXIT_OK;
	}
	return cli_usagef(cmd, "--suite-from \"%s\": expected head or base", text);
}

char *revisions_suite_root(const struct revisions *rv, const struct suite *suite, const char *root)
{
	const char *top = vcs_workdir(rv->vcs);
	char dir[PATH_MAX];
	size_t n = strlen(top);

	if (!realpath(suite->dir, dir))
		return NULL;
	if (strncmp(dir, top, n) || (dir[n] != '/' && dir[n] != '\0'))
		return NULL;
	return dir[n] ? xasprintf("%s%s", root, dir + n) : xstrdup(root);
}

/* Whether the base tree lacks the suite's file: a suite new in head, measured
 * on head only. False when the suite is outside the repository (the
 * measuring step reports that). */
static bool suite_is_new(const struct revisions *rv, const struct suite *suite)
{
	const char *name = strrchr(suite->path, '/');
	char *base_root = revisions_suite_root(rv, suite, rv->base_dir), *base_file;
	struct stat st;
	bool is_new;

	if (!base_root)
		return false;
	base_file = xasprintf("%s/%s", base_root, name ? name + 1 : suite->path);
	is_new = stat(base_file, &st) < 0;
	free(base_file);
	free(base_root);
	return is_new;
}

/* --suite-from base: the base revision's copy of the suite, loaded (and its
 * problems printed) like any suite file; NULL with *code set when it is
 * missing or invalid. */
static struct suite *base_suite(const struct revisions *rv, const char *base_file,
				const struct suite *head, int *code)
{
	struct strlist files = { .v = NULL, .n = 0, .alloc = 0 };
	struct cli_suites loaded;
	struct suite *out = NULL;
	struct stat st;

	if (stat(base_file, &st) < 0) {
		struct err err = ERR_INIT;
		err_set(&err, ERR_EXEC,
			"suite \"%s\" has no file in the base revision %.12s: --suite-from base "
			"needs it there (--suite-from head measures the base with this one)",
			head->path, rv->base.hex);
		*code = fail(&err);
		return NULL;
	}
	strlist_push(&files, base_file);
	*code = cli_load_suites(&files, &loaded);
	strlist_release(&files);
	if (*code != EXIT_OK)
		return NULL;
	out = loaded.v[0];
	loaded.count = 0;
	cli_suites_release(&loaded);
	return out;
}

/* The base revision's copy of suite i in rv->base_suites[i] and its
 * selection, unless the base is the working tree (its suite is the one
 * loaded) or nothing of the suite is selected: EXIT_OK, or the exit code of
 * a missing or invalid copy. */
static int load_base_suite(const struct session *s, struct revisions *rv, size_t i,
			   const bool *selected)
{
	const struct suite *suite = s->suites.v[i];
	const char *name = strrchr(suite->path, '/');
	char *base_root, *base_file;
	bool any = false;
	size_t k;
	int code = EXIT_OK;

	for (k = 0; k < suite->benchmark_count; k++)
		any |= selected[k];
	if (!any || (rv->same_tree && !rv->head_tree) ||
	    !(base_root = revisions_suite_root(rv, suite, rv->base_dir)))
		return EXIT_OK; /* outside the repository: revisions_measure says so */
	base_file = xasprintf("%s/%s", base_root, name ? name + 1 : suite->path);
	rv->base_suites[i] = base_suite(rv, base_file, suite, &code);
	if (rv->base_suites[i]) {
		rv->base_selected[i] =
			xcalloc(rv->base_suites[i]->benchmark_count + 1, sizeof(bool));
		if (!session_selected_in(s, rv->base_suites[i], rv->base_selected[i])) {
			suite_free(rv->base_suites[i]); /* nothing of it is selected */
			rv->base_suites[i] = NULL;
		}
	}
	free(base_file);
	free(base_root);
	return code;
}

/* How the base revision's copy is named after a problem in it. */
#define BASE_COPY " (in the base revision's copy, --suite-from base)"

/* What suite i measures: the working tree's, or with --suite-from base the
 * base revision's copy (none when nothing of it is selected); new in head,
 * it is measured on head only. */
static int plan_input(const struct session *s, struct revisions *rv, size_t i, bool **selected,
		      struct plan_input *in, const char **where)
{
	int code = EXIT_OK;

	in->suite = s->suites.v[i];
	in->selected = selected[i];
	in->compared = true;
	switch (rv->suite_from) {
	case REVISIONS_SUITE_OWN:
		in->compared = !suite_is_new(rv, in->suite);
		break;
	case REVISIONS_SUITE_HEAD:
		break;
	case REVISIONS_SUITE_BASE:
		code = load_base_suite(s, rv, i, selected[i]);
		if (rv->base_suites[i]) {
			in->suite = rv->base_suites[i];
			in->selected = rv->base_selected[i];
			*where = BASE_COPY;
		} else if (rv->base_selected[i]) {
			in->selected = rv->base_selected[i]; /* none: nothing of the copy */
		}
		break;
	}
	return code;
}

int revisions_plan(struct session *s, struct revisions *rv, bool **selected)
{
	struct plan_input *in = xcalloc(s->suites.count + 1, sizeof(*in));
	const char **where = xcalloc(s->suites.count + 1, sizeof(*where));
	size_t i;
	int code = EXIT_OK;

	if (rv->suite_from == REVISIONS_SUITE_BASE) {
		rv->n_base_suites = s->suites.count;
		rv->base_suites = xcalloc(s->suites.count + 1, sizeof(*rv->base_suites));
		rv->base_selected = xcalloc(s->suites.count + 1, sizeof(*rv->base_selected));
	}
	for (i = 0; i < s->suites.count && code == EXIT_OK; i++)
		code = plan_input(s, rv, i, selected, &in[i], &where[i]);
	if (code == EXIT_OK)
		code = session_plan_inputs(s, in, where);
	free(where);
	free(in);
	return code;
}

/* One suite, head against base, with the suite file rv->suite_from names. */
static int measure_suite(struct session *s, struct revisions *rv, size_t i, const char *head_root)
{
	/* as revisions_plan chose it: with --suite-from base the base's copy,
	 * and nothing when nothing of the copy is selected */
	const struct plan_suite *ps = &s->plan->suites[i];
	bool from_base = i < rv->n_base_suites && rv->base_suites[i];
	char *base_root = revisions_suite_root(rv, s->suites.v[i], rv->base_dir);
	struct runner_roots roots = { .head = head_root };
	struct err err = ERR_INIT;
	int rc = 0;

	if (!ps->n_selected)
		goto done;
	roots.base = ps->compared ? base_root : NULL; /* not: new in head */
	roots.head_tree = rv->head_tree_id.hex[0] ? rv->head_tree_id.hex : NULL;
	/* a working tree as base (calibrate) is not the base commit's tree */
	roots.base_tree = rv->base_tree || rv->same_tree ? rv->base_tree_id.hex : NULL;
	rc = runner_run_suite(s->runner, ps, &roots, s->doc, &err);
	if (!ps->compared)
		runner_mark_new_in_head(s->doc);
	if (from_base) /* the suite's path, not the temporary tree's */
		results_set_str(&s->doc->suites[s->doc->n_suites - 1].file, s->suites.v[i]->path);
done:
	free(base_root);
	return rc == ERR_INTERRUPTED ? -1 : EXIT_OK;
}

/* Head builds in the working tree unless it is a commit (--head): one
 * himorime at a time there (docs/revisions.md#builds). */
static int lock_working_tree(struct session *s, const struct revisions *rv, bool **selected)
{
	size_t i;

	if (rv->head_tree)
		return EXIT_OK;
	for (i = 0; i < s->suites.count; i++)
		if (session_builds(s, i, selected))
			return session_lock_tree(s, rv->head_dir);
	return EXIT_OK;
}

int revisions_measure(struct session *s, struct revisions *rv, bool **selected)
{
	struct err err = ERR_INIT;
	size_t i, k;
	int locked = lock_working_tree(s, rv, selected);

	if (locked != EXIT_OK)
		return locked;
	session_budget_start(s); /* shared by the suites that will be compared */
	for (i = 0; i < s->suites.count; i++) {
		const struct suite *suite = s->suites.v[i];
		char *head_root;
		bool any = false;
		int code;

		for (k = 0; k < suite->benchmark_count; k++)
			any |= selected[i][k];
		if (!any)
			continue;
		head_root = revisions_suite_root(rv, suite, rv->head_dir);
		if (!head_root) {
			err_set(&err, ERR_EXEC, "suite \"%s\" is not inside the repository \"%s\"",
				suite->path, vcs_workdir(rv->vcs));
			return fail(&err);
		}
		code = measure_suite(s, rv, i, head_root);
		free(head_root);
		if (code > 0)
			return code;
		if (code < 0) { /* interrupted */
			session_not_started(s, i + 1);
			break;
		}
	}
	return EXIT_OK;
}

void revisions_release(struct revisions *rv)
{
	struct err err = ERR_INIT;
	size_t i;

	vcs_tree_remove(rv->base_tree, &err);
	vcs_tree_remove(rv->head_tree, &err);
	vcs_free(rv->vcs);
	free(rv->hidden);
	for (i = 0; i < rv->n_base_suites; i++) {
		suite_free(rv->base_suites[i]);
		free(rv->base_selected[i]);
	}
	free(rv->base_suites);
	free(rv->base_selected);
	memset(rv, 0, sizeof(*rv));
}

int revisions_compare(struct session *s, const struct revisions_request *req)
{
	struct revisions rv;
	bool **selected = session_selection(s);
	int code = session_select_check(s, selected);

	memset(&rv, 0, sizeof(rv));
	if (code == EXIT_OK)
		code = revisions_open(s, req, &rv);
	if (code == EXIT_OK)
		code = revisions_plan(s, &rv, selected);
	if (code == EXIT_OK)
		code = session_runner(s, rv.hidden, rv.n_hidden);
	if (code == EXIT_OK)
		code = revisions_measure(s, &rv, selected);
	/* The trees go before the command writes the report: nothing is left
	 * behind even when writing fails. */
	if (s->doc) {
		uint64_t t = clock_monotonic_ns();
		revisions_release(&rv);
		session_phase(s, RESULTS_PHASE_CLEANUP, t);
	} else {
		revisions_release(&rv);
	}
	session_selection_free(selected, s->suites.count);
	return code;
}
