/*
 * `himorime merge A.json B.json ... [-o OUT.json] [--append] [--history-ref
 * REF]`: joins the documents of a sweep's shards into one, refusing slices of
 * other suites, settings, ranges or references; --append also records the
 * result in the history of the repository in the current directory.
 */
#include "cli/commands.h"
#include "cli/store.h"

#include "common/alloc.h"
#include "history/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static int append(const struct results *r, const char *ref)
{
	struct err err = ERR_INIT;
	struct vcs *vcs = NULL;
	int rc = vcs_open(".", &vcs, &err);

	if (rc == 0)
		rc = store_append(vcs, ref, r, 0, r->n_suites, &err);
	vcs_free(vcs);
	if (rc < 0)
		return cli_fail(&err);
	fprintf(stderr, "himorime: merge: %zu result%s recorded in %s\n", r->n_suites,
		r->n_suites == 1 ? "" : "s", ref);
	return EXIT_OK;
}

int cmd_merge(struct cmd_args *a)
{
	const struct merge_flags *f = &a->f.merge;
	const struct strlist *files = &a->operands;
	struct err err = ERR_INIT;
	struct results **docs = NULL, *merged = NULL;
	size_t i, n = 0;
	int code = EXIT_OK;

	if (files->n == 0)
		return cli_usagef("merge", "merge needs the sweep documents to join");
	if (!f->output && !f->append)
		return cli_usagef("merge", "merge needs -o OUT.json or --append");
	docs = xcalloc(files->n, sizeof(*docs));
	for (n = 0; n < files->n; n++)
		if (results_read_file(files->v[n], &docs[n], &err) < 0) {
			code = cli_fail(&err);
			goto done;
		}
	if (sweep_merge(docs, (const char *const *)files->v, n, &merged, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	if (f->output && results_write_file(merged, f->output, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	if (f->append)
		code = append(merged, f->ref ? f->ref : VCS_HISTORY_REF);
done:
	results_free(merged);
	for (i = 0; i < n; i++)
		results_free(docs[i]);
	free(docs);
	return code;
}
