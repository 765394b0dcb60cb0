/*
 * `himorime report [--format F] [-o FILE] [--section NAME] [--summary FILE]
 * [--no-color] [--check] IN.json`: renders a saved report again, without
 * measuring, with its stored verdicts. Rendering succeeds with 0; with
 * --check it exits with the stored exit code instead, so that a CI step can
 * re-judge from an artifact (docs/reports.md). Failing to read the input (or
 * an output that is the input) is exit 2, a bad command line 3, a failed
 * write 4; those win over the stored code.
 */
#include "cli/commands.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "render/render.h"
#include "results/results.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

/* True when `path` names the same file as the existing `input`. */
static bool same_file(const char *path, const char *input)
{
	struct stat a, b;

	if (stat(path, &a) < 0 || stat(input, &b) < 0)
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int check_args(const struct cmd_args *a, enum render_format *f, struct err *err)
{
	if (a->operands.n != 1)
		return err_set(err, ERR_USAGE, "report needs exactly one input file, got %zu",
			       a->operands.n);
	return cli_output_check(&a->f.report.out, f, err);
}

static int check_not_input(const struct cmd_args *a, struct err *err)
{
	const struct cli_output *out = &a->f.report.out;
	const char *in = a->operands.v[0];

	if (out->output && same_file(out->output, in))
		return err_set(err, ERR_INVALID, "output \"%s\" is the input report", out->output);
	if (out->summary && same_file(out->summary, in))
		return err_set(err, ERR_INVALID, "summary \"%s\" is the input report",
			       out->summary);
	return 0;
}

static int stored_exit(const struct results *r, const char *in, struct err *err)
{
	switch (r->summary.exit_code) {
	case EXIT_OK:
	case EXIT_FAILED:
	case EXIT_EXEC:
	case EXIT_INTERNAL:
	case EXIT_METRIC:
		return 0;
	default:
		return err_set(err, ERR_INVALID,
			       "%s: $.summary.exit_code: expected 0, 1, 4, 5 or 6, got %d", in,
			       r->summary.exit_code);
	}
}

/* ANSI colour only for a table on a terminal, unless NO_COLOR (non-empty) or
 * --no-color says otherwise. */
int cmd_report(struct cmd_args *a)
{
	struct results *r = NULL;
	struct err err = ERR_INIT;
	enum render_format f = RENDER_TABLE;
	int rc, code;

	rc = check_args(a, &f, &err);
	rc = rc ? rc : check_not_input(a, &err);
	if (!rc) {
		rc = results_read_file(a->operands.v[0], &r, &err);
		/* An input that cannot be read is bad input, like a malformed one. */
		if (rc == ERR_EXEC)
			rc = err.code = ERR_INVALID;
	}
	rc = rc ? rc : stored_exit(r, a->operands.v[0], &err);
	rc = rc ? rc : cli_output_write(r, &a->f.report.out, &err);
	if (rc) {
		code = cli_fail(&err);
		goto done;
	}
	code = a->f.report.check ? r->summary.exit_code : EXIT_OK;
	if (code != EXIT_OK)
		cli_exit(code, "as stored in \"%s\" (%s)", a->operands.v[0],
			 code == EXIT_FAILED	 ? "a budget or a gated comparison failed"
			 : code == EXIT_METRIC	 ? "a metric could not be measured"
			 : code == EXIT_INTERNAL ? "an internal error"
						 : "the measurement failed");
done:
	results_free(r);
	return code;
}
