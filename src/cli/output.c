/*
 * Where a rendering goes, for every command that writes a report (run,
 * compare, calibrate, ci, report): standard output, a file written
 * atomically, a marked section of an existing page, and the GitHub summary
 * appended to a file. In GitHub Actions, standard output may quote what a
 * measured command printed, so it can be wrapped in ::stop-commands::; and
 * ci's exit code goes to GITHUB_OUTPUT however it ends.
 */
#include "cli/cli.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/rng.h"
#include "github/actions.h"
#include "render/render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/banned.h"

bool cli_in_actions(void)
{
	const char *v = getenv("GITHUB_ACTIONS");

	return v && !strcmp(v, "true");
}

/* Set when a write to stdout met EPIPE: the reader went away (`| head`). */
static bool reader_gone;

bool cli_reader_gone(void)
{
	return reader_gone;
}

/* Set once ci appended its outputs, written or not: a GITHUB_OUTPUT it could
 * not append to (a FIFO put in its place) is not tried again at the end. */
static bool outputs_tried;

void cli_outputs_tried(void)
{
	outputs_tried = true;
}

/* Whether GITHUB_OUTPUT already has an exit-code line. */
static bool has_exit_code_output(const char *path)
{
	struct err err = ERR_INIT;
	char *text = NULL;
	bool found = false;
	const char *p;

	if (fsio_read_file(path, 1u << 24, &text, NULL, &err) < 0)
		return false;
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "exit-code=", 10) || !strncmp(p, "exit-code<<", 11))
			found = true;
	free(text);
	return found;
}

void cli_exit_code_output(int code)
{
	const char *path = getenv("GITHUB_OUTPUT");
	struct err err = ERR_INIT;
	struct rng rng;
	char text[16];

	if (!path || !*path || outputs_tried || has_exit_code_output(path))
		return;
	rng_init(&rng, rng_fresh_seed(), "output");
	snprintf(text, sizeof(text), "%d", code);
	if (github_actions_output_append(path, &rng, "exit-code", text, &err) < 0)
		fprintf(stderr, "himorime: warning: %s\n", err.msg);
}

int cli_print_untrusted(const char *text, bool quote)
{
	struct strbuf quoted;
	struct rng rng;
	size_t n;
	int rc = 0;

	strbuf_init(&quoted, 0);
	if (quote || cli_in_actions()) {
		rng_init(&rng, rng_fresh_seed(), "stop-commands");
		github_actions_quote_output(&rng, text, &quoted);
		text = quoted.buf;
	}
	n = strlen(text);
	if (fwrite(text, 1, n, stdout) != n || fflush(stdout)) {
		reader_gone = errno == EPIPE;
		rc = -1;
	}
	strbuf_release(&quoted);
	return rc;
}

static int write_stdout(const struct cli_output *a, const struct strbuf *out, struct err *err)
{
	if (cli_print_untrusted(out->buf, a->quote_workflow_commands) < 0)
		return err_set(err, ERR_EXEC, "cannot write the report to standard output");
	return 0;
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

bool cli_colour(bool no_color)
{
	const char *nc = getenv("NO_COLOR");

	return !no_color && isatty(STDOUT_FILENO) && !(nc && *nc);
}

static bool want_colour(const struct cli_output *o)
{
	return !o->output && cli_colour(o->no_color);
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

/* samples-csv is written as it is made (render.h, struct render_sink): to
 * the --output file through its temporary file, or to standard output when
 * nothing there is quoted (quoting needs the whole text, to choose a token it
 * does not contain). */
struct stream {
	const struct cli_output *to;
	struct fsio_atomic file;
};

static bool streams(const struct cli_output *a, enum render_format f)
{
	return f == RENDER_SAMPLES_CSV && !a->section &&
	       (a->output || !(a->quote_workflow_commands || cli_in_actions()));
}

static int stream_flush(void *ctx, struct strbuf *out, struct err *err)
{
	struct stream *s = ctx;
	int rc = s->to->output ? fsio_atomic_write(&s->file, out->buf, out->len, err)
			       : write_stdout(s->to, out, err);

	strbuf_reset(out);
	return rc;
}

int cli_output_write(const struct results *r, const struct cli_output *a, struct err *err)
{
	struct render_options o = RENDER_OPTIONS_INIT;
	struct stream st = { .to = a, .file = { .path = NULL, .tmp = NULL, .fd = -1 } };
	struct render_sink sink = { .flush = stream_flush, .ctx = &st };
	enum render_format f;
	struct strbuf out;
	int rc;

	if (cli_output_check(a, &f, err))
		return ERR_USAGE;
	strbuf_init(&out, 0);
	o.color = f == RENDER_TABLE && want_colour(a);
	if (streams(a, f)) {
		if (a->output && (rc = fsio_atomic_open(&st.file, a->output, err)))
			goto done;
		o.sink = &sink;
	}
	rc = render_to(r, f, &o, &out, err);
	if (o.sink) {
		if (!rc)
			rc = stream_flush(&st, &out, err); /* what is left */
		if (!rc && a->output)
			rc = fsio_atomic_commit(&st.file, err);
		fsio_atomic_abort(&st.file); /* after an error: the old file stays */
	} else if (rc) {
		goto done;
	} else if (a->section) {
		rc = write_section(a, out.buf, err);
	} else if (a->output) {
		rc = fsio_write_atomic(a->output, out.buf, out.len, err);
	} else {
		rc = write_stdout(a, &out, err);
	}
	if (rc || !a->summary)
		goto done;
	strbuf_reset(&out);
	o = (struct render_options)RENDER_OPTIONS_INIT;
	rc = render_to(r, RENDER_GITHUB, &o, &out, err);
	/* GitHub shows 1 MiB of a step's summary: what earlier steps wrote
	 * counts too, and what would pass it is cut with a note. */
	if (!rc)
		rc = github_actions_summary_append(a->summary, out.buf, err);
done:
	strbuf_release(&out);
	return rc;
}
/* GitHub shows 1 MiB of a step's summary: what earlier steps wrote
 * counts too, and what would pass it is cut with a note. */
