/*
 * Renderings of a sweep history (docs/sweeps.md): per benchmark, command and
 * metric, each commit's value, the reference's value measured in the same
 * rounds, and the ratio to the reference with its interval, newest first,
 * with the change points marked on the first bad commit (and the last good
 * one named). Text formats show numbers for humans; csv and json write them
 * exactly (canonical units, doubles that read back bit for bit); html is one
 * self-contained page with a table and an inline SVG line chart per series.
 *
 *     struct sweep_series_list l;      (from sweep_series_build)
 *     history_render(&l, RENDER_MARKDOWN, false, &out, &err);
 */
#ifndef HIMORIME_RENDER_HISTORY_H
#define HIMORIME_RENDER_HISTORY_H

#include "common/err.h"
#include "common/strbuf.h"
#include "history/sweep.h"
#include "render/render.h"

#include <stdbool.h>

/* The formats `history` takes, by render_format_from_name's names:
 * "table", "markdown", "csv", "json", "html"; -1 for another name. */
int history_format_from_name(const char *name, enum render_format *out);

/* Appends the rendering of every series of `l` to out: github is markdown,
 * samples-csv ERR_INTERNAL (a history has no samples). `colour` (the table
 * only) colours the verdicts and marks a first bad commit and a commit that
 * could not be measured in red, and dims the header; the text without the
 * escape sequences is the same. */
int history_render(const struct sweep_series_list *l, enum render_format f, bool colour,
		   struct strbuf *out, struct err *err);

#endif
