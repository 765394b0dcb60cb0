/*
 * `himorime merge A.json B.json ... [-o OUT.json] [--append] [--history-ref
 * REF]`: joins the documents of a sweep's shards into one, refusing slices of
 * other suites, settings, ranges or references; --append also records the
 * result in the history of the repository in the current directory.
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/store.h"

#include "common/alloc.h"
#include "history/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static int usage(const char *fmt, const char *value)
{
	struct err err = ERR_INIT;
	err_set(&err, ERR_USAGE, fmt, value);
	return cli_usage_error("merge", &err);
}

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

int cmd_merge(int argc, char **argv)
{
	const char *output = NULL, *ref = NULL;
	bool do_append = false;
	const struct opt opts[] = {
		{ "output", 'o', OPT_STRING, &output, "FILE", "write the merged sweep there" },
		{ "append", 0, OPT_FLAG, &do_append, NULL, "also record it in the history ref" },
		{ "history-ref", 0, OPT_STRING, &ref, "REF", "default refs/himorime/history" },
	};
	struct strlist files = { NULL, 0, 0 };
	struct err err = ERR_INIT;
	struct results **docs = NULL, *merged = NULL;
	size_t i, n = 0;
	int code = EXIT_OK;

	if (opts_parse("merge", opts, ARRAY_SIZE(opts), argc, argv, &files, &err) < 0) {
		code = cli_usage_error("merge", &err);
		goto done;
	}
	if (files.n == 0) {
		code = usage("%smerge needs the sweep documents to join", "");
		goto done;
	}
	if (!output && !do_append) {
		code = usage("%smerge needs -o OUT.json or --append", "");
		goto done;
	}
	docs = xcalloc(files.n, sizeof(*docs));
	for (n = 0; n < files.n; n++)
		if (results_read_file(files.v[n], &docs[n], &err) < 0) {
			code = cli_fail(&err);
			goto done;
		}
	if (sweep_merge(docs, (const char *const *)files.v, n, &merged, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	if (output && results_write_file(merged, output, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	if (do_append)
		code = append(merged, ref ? ref : VCS_HISTORY_REF);
done:
	results_free(merged);
	for (i = 0; i < n; i++)
		results_free(docs[i]);
	free(docs);
	strlist_release(&files);
	return code;
}
