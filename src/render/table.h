/*
 * A table of text cells rendered two ways: aligned columns for terminals
 * (two spaces between columns, widths counted in code points, control
 * characters printed as spaces, optionally in colour) and GitHub
 * Markdown pipes (cells escaped so that a `|` or a newline in a name cannot
 * break the table). Renderers fill rows, then ask for one of the forms.
 */
#ifndef HIMORIME_RENDER_TABLE_H
#define HIMORIME_RENDER_TABLE_H

#include "common/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

enum align { ALIGN_LEFT, ALIGN_RIGHT };

struct table {
	size_t ncols;
	char **header;
	enum align *align;
	char **cells;	     /* nrows * ncols, row-major */
	const char **colour; /* the same: an ANSI colour of a cell, or NULL */
	size_t nrows;
	size_t alloc;
};

/* Columns are given as "NAME" or ">NAME" (right-aligned). */
void table_init(struct table *t, size_t ncols, const char *const *columns);
void table_release(struct table *t);
/* Appends a row of ncols cells (copied). */
void table_add_row(struct table *t, const char *const *cells);
/* Appends a row from a printf format per cell: cells are separated by '\t'. */
void table_add_rowf(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Colours cell col of the last row added: `ansi`, an escape sequence that
 * lives as long as the table (NULL: none), before its text and a reset
 * after it. Only table_render_colour shows it. */
void table_colour_cell(struct table *t, size_t col, const char *ansi);

void table_render_text(const struct table *t, struct strbuf *out);
/* The same text, with the header dim and the cells in their colours; the
 * text without the escape sequences is table_render_text's. */
void table_render_colour(const struct table *t, struct strbuf *out);
void table_render_markdown(const struct table *t, struct strbuf *out);

#endif
