/*
 * Text and Markdown tables: see table.h.
 */
#include "render/table.h"

#include "common/alloc.h"
#include "render/escape.h"
#include "render/format.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define ANSI_RESET "\x1b[0m"
#define ANSI_DIM   "\x1b[2m"

void table_init(struct table *t, size_t ncols, const char *const *columns)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->header = xcalloc(ncols, sizeof(*t->header));
	t->align = xcalloc(ncols, sizeof(*t->align));
	for (i = 0; i < ncols; i++) {
		const char *c = columns[i];
		t->align[i] = c[0] == '>' ? ALIGN_RIGHT : ALIGN_LEFT;
		t->header[i] = xstrdup(c[0] == '>' ? c + 1 : c);
	}
}

void table_release(struct table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->ncols; i++)
		free(t->header[i]);
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->header);
	free(t->align);
	free(t->cells);
	free(t->colour);
	memset(t, 0, sizeof(*t));
}

void table_add_row(struct table *t, const char *const *cells)
{
	size_t i;

	t->cells = xgrow(t->cells, &t->alloc, (t->nrows + 1) * t->ncols, sizeof(*t->cells));
	t->colour = xrealloc(t->colour, t->alloc * sizeof(*t->colour));
	for (i = 0; i < t->ncols; i++) {
		t->cells[t->nrows * t->ncols + i] = xstrdup(cells[i] ? cells[i] : "");
		t->colour[t->nrows * t->ncols + i] = NULL;
	}
	t->nrows++;
}

void table_colour_cell(struct table *t, size_t col, const char *ansi)
{
	assert(t->nrows && col < t->ncols);
	t->colour[(t->nrows - 1) * t->ncols + col] = ansi;
}

void table_add_rowf(struct table *t, const char *fmt, ...)
{
	struct strbuf sb;
	const char **cells = xcalloc(t->ncols, sizeof(*cells));
	va_list ap;
	char *p;
	size_t i;

	strbuf_init(&sb, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	p = sb.buf;
	for (i = 0; i < t->ncols; i++) {
		char *tab = p ? strchr(p, '\t') : NULL;
		cells[i] = p ? p : "";
		if (tab) {
			*tab = '\0';
			p = tab + 1;
		} else {
			p = NULL;
		}
	}
	table_add_row(t, cells);
	free(cells);
	strbuf_release(&sb);
}

static void pad(struct strbuf *out, size_t n)
{
	while (n--)
		strbuf_addch(out, ' ');
}

/* Control characters (an escape sequence in a hostile name, a newline) would
 * reach the terminal or break the layout: they print as spaces. */
static void add_printable(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		strbuf_addch(out, c < 0x20 || c == 0x7f ? ' ' : c);
	}
}

/* One line: the cells padded to their columns, each in its colour (colour
 * may be NULL), trailing blanks cut; the whole line in `line_colour`. */
static void text_row(const struct table *t, const size_t *width, char *const *row,
		     const char *const *colour, const char *line_colour, struct strbuf *out)
{
	size_t i, start;

	if (line_colour)
		strbuf_adds(out, line_colour);
	start = out->len;
	for (i = 0; i < t->ncols; i++) {
		size_t w = fmt_width(row[i]);
		const char *c = colour && *row[i] ? colour[i] : NULL;
		if (i)
			strbuf_adds(out, "  ");
		if (t->align[i] == ALIGN_RIGHT)
			pad(out, width[i] - w);
		if (c)
			strbuf_adds(out, c);
		add_printable(out, row[i]);
		if (c)
			strbuf_adds(out, ANSI_RESET);
		if (t->align[i] == ALIGN_LEFT && i + 1 < t->ncols)
			pad(out, width[i] - w);
	}
	while (out->len > start && out->buf[out->len - 1] == ' ')
		strbuf_setlen(out, out->len - 1);
	if (line_colour)
		strbuf_adds(out, ANSI_RESET);
	strbuf_addch(out, '\n');
}

static void render_text(const struct table *t, bool colour, struct strbuf *out)
{
	size_t *width = xcalloc(t->ncols, sizeof(*width));
	size_t i, r;

	for (i = 0; i < t->ncols; i++)
		width[i] = fmt_width(t->header[i]);
	for (r = 0; r < t->nrows; r++)
		for (i = 0; i < t->ncols; i++) {
			size_t w = fmt_width(t->cells[r * t->ncols + i]);
			if (w > width[i])
				width[i] = w;
		}
	text_row(t, width, t->header, NULL, colour ? ANSI_DIM : NULL, out);
	for (r = 0; r < t->nrows; r++)
		text_row(t, width, t->cells + r * t->ncols,
			 colour ? t->colour + r * t->ncols : NULL, NULL, out);
	free(width);
}

void table_render_text(const struct table *t, struct strbuf *out)
{
	render_text(t, false, out);
}

void table_render_colour(const struct table *t, struct strbuf *out)
{
	render_text(t, true, out);
}

void table_render_markdown(const struct table *t, struct strbuf *out)
{
	size_t i, r;

	strbuf_addch(out, '|');
	for (i = 0; i < t->ncols; i++) {
		strbuf_addch(out, ' ');
		rnd_md_table_escape(out, t->header[i]);
		strbuf_adds(out, " |");
	}
	strbuf_adds(out, "\n|");
	for (i = 0; i < t->ncols; i++)
		strbuf_adds(out, t->align[i] == ALIGN_RIGHT ? "---:|" : "---|");
	strbuf_addch(out, '\n');
	for (r = 0; r < t->nrows; r++) {
		strbuf_addch(out, '|');
		for (i = 0; i < t->ncols; i++) {
			strbuf_addch(out, ' ');
			rnd_md_table_escape(out, t->cells[r * t->ncols + i]);
			strbuf_adds(out, " |");
		}
		strbuf_addch(out, '\n');
	}
}
