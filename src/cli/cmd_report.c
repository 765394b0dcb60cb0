/*
 * `himorime report [--format F] [--output FILE] [--section NAME]
 * [--summary FILE] [--no-color] IN.json`: renders a saved report again,
 * without measuring, with its stored verdicts, and exits with its stored exit
 * code so that a CI step can re-judge from an artifact. Failing to read the
 * input (or an output that is the input) is exit 2, a bad command line 3, a
 * failed write 4; those win over the stored code.
 *
 * cli_output_write() (cli.h), which puts a rendering on standard output or in
 * a file, a marked section of a page and the GitHub summary, lives here and
 * serves run, compare and ci too.
 */
#include "cli/cli.h"

#include "cli/opts.h"
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

struct report_args {
	struct cli_output out;
	struct strlist operands;
};

/* True when `path` names the same file as the existing `input`. */
static bool same_file(const char *path, const char *input)
{
	struct stat a, b;

	if (stat(path, &a) < 0 || stat(input, &b) < 0)
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int cli_output_check(const struct cli_output *o, enum render_format *f, struct err *err)
{
	if (render_format_from_name(o->format, f) < 0)
		return err_set(err, ERR_USAGE,
			       "unknown format \"%s\": expected table, json, csv, samples-csv, "
			       "markdown, github or html",
			       o->format);
	if (o->section) {
		if (render_section_name_check(o->section, err))
			return ERR_USAGE;
		if (*f != RENDER_MARKDOWN || !o->output)
			return err_set(err, ERR_USAGE,
				       "--section needs --format markdown and --output FILE");
	}
	if (o->output && !*o->output)
		return err_set(err, ERR_USAGE, "--output needs a file name");
	return 0;
}

static int check_args(const struct report_args *a, enum render_format *f, struct err *err)
{
	if (a->operands.n != 1)
		return err_set(err, ERR_USAGE, "report needs exactly one input file, got %zu",
			       a->operands.n);
	return cli_output_check(&a->out, f, err);
}

static int check_not_input(const struct report_args *a, struct err *err)
{
	const char *in = a->operands.v[0];

	if (a->out.output && same_file(a->out.output, in))
		return err_set(err, ERR_INVALID, "output \"%s\" is the input report",
			       a->out.output);
	if (a->out.summary && same_file(a->out.summary, in))
		return err_set(err, ERR_INVALID, "summary \"%s\" is the input report",
			       a->out.summary);
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
static bool want_colour(const struct cli_output *o)
{
	const char *nc = getenv("NO_COLOR");

	return !o->no_color && !o->output && isatty(STDOUT_FILENO) && !(nc && *nc);
}

static int write_section(const struct cli_output *a, const char *body, struct err *err)
{
	struct strbuf page;
	char *old = NULL;
	size_t len = 0;
	int rc;

	strbuf_init(&page, 0);
	rc = fsio_read_file(a->output, RESULTS_MAX_FILE_BYTES, &old, &len, err);
	if (rc) {
		/* A page too large to read is still a failed output step. */
		err_wrap(err, "--section %s", a->section);
		rc = err->code = ERR_EXEC;
		goto done;
	}
	rc = render_markdown_section(old, a->section, body, &page, err);
	if (rc) {
		err_wrap(err, "%s", a->output);
		goto done;
	}
	rc = fsio_write_atomic(a->output, page.buf, page.len, err);
done:
	free(old);
	strbuf_release(&page);
	return rc;
}

int cli_output_write(const struct results *r, const struct cli_output *a, struct err *err)
{
	struct render_options o = RENDER_OPTIONS_INIT;
	enum render_format f;
	struct strbuf out;
	int rc;

	if (cli_output_check(a, &f, err))
		return ERR_USAGE;
	strbuf_init(&out, 0);
	o.color = f == RENDER_TABLE && want_colour(a);
	rc = render_to(r, f, &o, &out, err);
	if (rc)
		goto done;
	if (a->section)
		rc = write_section(a, out.buf, err);
	else if (a->output)
		rc = fsio_write_atomic(a->output, out.buf, out.len, err);
	else if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout))
		rc = err_set(err, ERR_EXEC, "cannot write the report to standard output");
	if (rc || !a->summary)
		goto done;
	strbuf_reset(&out);
	o = (struct render_options)RENDER_OPTIONS_INIT;
	rc = render_to(r, RENDER_GITHUB, &o, &out, err);
	if (!rc)
		rc = fsio_append(a->summary, out.buf, out.len, err);
done:
	strbuf_release(&out);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { CLI_OUTPUT_INIT, { NULL, 0, 0 } };
	const struct opt opts[] = {
		{ "format", 0, OPT_STRING, &a.out.format, "FORMAT", "output format" },
		{ "output", 0, OPT_STRING, &a.out.output, "FILE", "write there instead of stdout" },
		{ "section", 0, OPT_STRING, &a.out.section, "NAME", "replace a marked section" },
		{ "summary", 0, OPT_STRING, &a.out.summary, "FILE", "append the GitHub summary" },
		{ "no-color", 0, OPT_FLAG, &a.out.no_color, NULL, "no colour" },
	};
	struct results *r = NULL;
	struct err err = ERR_INIT;
	enum render_format f = RENDER_TABLE;
	int rc, code;

	rc = opts_parse("report", opts, ARRAY_SIZE(opts), argc, argv, &a.operands, &err);
	rc = rc ? rc : check_args(&a, &f, &err);
	rc = rc ? rc : check_not_input(&a, &err);
	if (!rc) {
		rc = results_read_file(a.operands.v[0], &r, &err);
		/* An input that cannot be read is bad input, like a malformed one. */
		if (rc == ERR_EXEC)
			rc = err.code = ERR_INVALID;
	}
	rc = rc ? rc : stored_exit(r, a.operands.v[0], &err);
	rc = rc ? rc : cli_output_write(r, &a.out, &err);
	if (rc) {
		code = cli_fail(&err);
		goto done;
	}
	code = r->summary.exit_code;
	if (code != EXIT_OK)
		cli_exit(code, "as stored in \"%s\" (%s)", a.operands.v[0],
			 code == EXIT_FAILED	 ? "a budget or a gated comparison failed"
			 : code == EXIT_METRIC	 ? "a metric could not be measured"
			 : code == EXIT_INTERNAL ? "an internal error"
						 : "the measurement failed");
done:
	results_free(r);
	strlist_release(&a.operands);
	return code;
}
