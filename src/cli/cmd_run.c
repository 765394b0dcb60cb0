/*
 * `himorime run [flags] [PATH...]`: builds, measures every selected
 * benchmark of the suites, checks budgets and writes the report. Exit 0, or 1
 * for a broken budget, 4 when something could not run, 6 when a metric could
 * not be measured.
 */
#include "cli/commands.h"
#include "cli/session.h"

#include "common/alloc.h"
#include "suite/suite.h"
#include "vcs/vcs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* A run inside a git repository records the commit measured and whether the
 * tree had changes (docs/reports.md); outside one, git stays null, and
 * libgit2 is never started. */
static void record_git(struct results *doc, const char *dir)
{
	struct vcs *vcs = NULL;
	struct vcs_sha head;
	struct err err = ERR_INIT;
	bool dirty = false;

	if (!vcs_may_be_in_work_tree(dir))
		return;
	if (vcs_open(dir, &vcs, &err) < 0 || vcs_head(vcs, &head, &err) < 0 ||
	    vcs_is_dirty(vcs, &dirty, &err) < 0)
		goto done;
	doc->git.present = true;
	results_set_str(&doc->git.head_sha, head.hex);
	doc->git.dirty = dirty;
done:
	vcs_free(vcs);
}

int cmd_run(struct session *s, struct cmd_args *a)
{
	struct err err = ERR_INIT;
	bool **selected = NULL;
	size_t i, n = s->suites.count;
	int code;

	(void)a;
	selected = session_selection(s);
	code = session_select_check(s, selected);
	for (i = 0; i < n && code == EXIT_OK; i++)
		if (session_builds(s, i, selected))
			code = session_lock_tree(s, s->suites.v[i]->dir);
	if (code == EXIT_OK)
		code = session_plan(s, selected, NULL);
	if (code == EXIT_OK)
		code = session_runner(s, NULL, 0);
	if (code != EXIT_OK)
		goto done;
	record_git(s->doc, s->suites.v[0]->dir);
	for (i = 0; i < n; i++) {
		char root[PATH_MAX];
		struct runner_roots roots = { .head = NULL };

		if (!s->plan->suites[i].n_selected)
			continue;
		if (!realpath(s->suites.v[i]->dir, root)) {
			err_set(&err, ERR_EXEC, "cannot resolve \"%s\"", s->suites.v[i]->dir);
			code = cli_fail(&err);
			goto done;
		}
		roots.head = root;
		if (runner_run_suite(s->runner, &s->plan->suites[i], &roots, s->doc, &err) ==
		    ERR_INTERRUPTED) {
			session_not_started(s, i + 1);
			break;
		}
	}
	code = session_finish(s);
done:
	session_selection_free(selected, n);
	return code;
}
