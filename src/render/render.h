/*
 * Renderings of a results document: everything a user of the gate reads.
 * Renderers read a `struct results` only (no processes, git or network) and
 * append to a strbuf; the CLI decides where the text goes and writes files
 * atomically.
 *
 *   table        aligned terminal tables per metric group, notes, a last line
 *   json         the lossless document (results_to_json)
 *   csv          long format, one row per statistic, budget, comparison, error
 *   samples-csv  one row per raw value
 *   markdown     result tables for a README or a docs page (--section)
 *   github       the job summary; with `comment` set, the pull-request comment
 *   html         one self-contained page with SVG strip plots of the samples
 *
 * Every string taken from the document is escaped for the format it lands
 * in: documents can be untrusted (the fork-safe comment mode).
 */
#ifndef HIMORIME_RENDER_RENDER_H
#define HIMORIME_RENDER_RENDER_H

#include "common/err.h"
#include "common/strbuf.h"
#include "results/results.h"

#include <stdbool.h>
#include <stddef.h>

/* GitHub's step summary takes at most 1 MiB; a comment body fewer than
 * 65,536 characters (bytes never count fewer than characters). */
#define RENDER_GITHUB_MAX_BYTES	 ((size_t)1 << 20)
#define RENDER_COMMENT_MAX_BYTES ((size_t)65000)

enum render_format {
	RENDER_TABLE,
	RENDER_JSON,
	RENDER_CSV,
	RENDER_SAMPLES_CSV,
	RENDER_MARKDOWN,
	RENDER_GITHUB,
	RENDER_HTML,
};

struct render_options {
	/* table: ANSI colours. The CLI sets it only when stdout is a terminal
	 * and NO_COLOR is unset (and --no-color was not given). */
	bool color;
	/* github: render the pull-request comment instead of the job summary:
	 * the problems and one line for the rest above the first <details>,
	 * everything else folded, capped at RENDER_COMMENT_MAX_BYTES. */
	bool comment;
	/* comment: the hidden marker line (no newline) put first, or NULL. */
	const char *marker;
	/* github: a link to the workflow run, or NULL. */
	const char *run_url;
	/* github: cap in bytes; 0 means RENDER_GITHUB_MAX_BYTES for the summary
	 * and RENDER_COMMENT_MAX_BYTES for the comment. Longer output is cut at
	 * a line boundary with a visible note. */
	size_t max_bytes;
	/* markdown: the level of the top heading, 1 to 6. */
	int heading_level;
	/* samples-csv: where to send the rows made so far, or NULL to build the
	 * whole text in `out`. */
	const struct render_sink *sink;
	/* comment: leave out the last line (the link to the run, the version
	 * and the seed). */
	bool hide_footer;
};

#define RENDER_OPTIONS_INIT                                                                        \
	{                                                                                          \
		.color = false, .comment = false, .marker = NULL, .run_url = NULL, .max_bytes = 0, \
		.heading_level = 2, .sink = NULL, .hide_footer = false                             \
	}

/* samples-csv grows with the runs (a row per sample), so it can be written as
 * it is made: once `out` holds RENDER_FLUSH_BYTES or more at the end of a
 * row, `flush` is given it (whole lines), writes it and empties it. Its error
 * ends the rendering. What is left in `out` at the end is the caller's. */
#define RENDER_FLUSH_BYTES ((size_t)64 << 10)
struct render_sink {
	int (*flush)(void *ctx, struct strbuf *out, struct err *err);
	void *ctx;
};

/* "table", "json", "csv", "samples-csv", "markdown", "github", "html";
 * -1 for an unknown name. */
int render_format_from_name(const char *name, enum render_format *out);
const char *render_format_name(enum render_format f);

/* Appends the rendering of `r` to `out`. ERR_INTERNAL when the document holds
 * values that cannot be written (json). */
int render_to(const struct results *r, enum render_format f, const struct render_options *o,
	      struct strbuf *out, struct err *err);

/* A calibration's own table (docs/reports.md): per compared metric the noise
 * of each side, the pairs, the interval, the verdict and the smallest
 * slowdown detectable at the cap. Nothing for other documents. The table
 * rendering ends with it; the CLI prints it beside other formats. */
void render_calibration(const struct results *r, struct strbuf *out);

/* ERR_USAGE unless `name` matches ^[a-z0-9][a-z0-9-]*$ (at most 64 bytes). */
int render_section_name_check(const char *name, struct err *err);

/* Appends `page` with the text between its lines `<!-- himorime:begin NAME -->`
 * and `<!-- himorime:end NAME -->` replaced by `body`. The body's headings are
 * moved one level below the last heading before the begin marker, so they
 * follow the page. ERR_EXEC when a marker is missing, repeated or out of
 * order; ERR_USAGE for a bad name. */
int render_markdown_section(const char *page, const char *name, const char *body,
			    struct strbuf *out, struct err *err);

#endif
