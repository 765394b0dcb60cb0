/*
 * Every escaper of the renderings (see escape.h): Markdown text and table
 * cells, HTML, CSV fields and Mermaid labels. Documents can be untrusted
 * (the fork-safe comment mode, docs/github-actions.md), so each one leaves
 * nothing that its format would interpret.
 */
#include "render/escape.h"

#include <stdbool.h>
#include <string.h>

#include "common/banned.h"

/* The HTML entity of a character HTML would read (quotes only in attribute
 * context), or NULL. */
static const char *entity(unsigned char ch, bool quotes)
{
	switch (ch) {
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '&':
		return "&amp;";
	case '"':
		return quotes ? "&quot;" : NULL;
	case '\'':
		return quotes ? "&#39;" : NULL;
	default:
		return NULL;
	}
}

/* What a character must become inside a Markdown table row, or NULL. */
static const char *table_char(unsigned char ch)
{
	if (ch == '|')
		return "\\|";
	if (ch == '\n' || ch == '\r')
		return " ";
	return entity(ch, false);
}

static void md_common(struct strbuf *sb, const char *s, bool in_table)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch < 0x20 || ch == 0x7f) { /* newlines and tabs too */
			strbuf_addch(sb, ' ');
			continue;
		}
		switch (ch) {
		case '\\':
		case '`':
		case '*':
		case '_':
		case '[':
		case ']':
		case '~':
		case '#':
		case '!':
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, ch);
			break;
		case '@':
			strbuf_adds(sb, "@\xe2\x80\x8b"); /* U+200B: no mention */
			break;
		case '|':
		case '<':
		case '>':
		case '&':
			/* in a table, rnd_md_table_escape does it */
			if (in_table)
				strbuf_addch(sb, ch);
			else
				strbuf_adds(sb, table_char(ch));
			break;
		default:
			strbuf_addch(sb, ch);
		}
	}
}

void rnd_md_text(struct strbuf *sb, const char *s)
{
	md_common(sb, s ? s : "", false);
}

void rnd_md_cell(struct strbuf *sb, const char *s)
{
	md_common(sb, s ? s : "", true);
}

void rnd_md_table_escape(struct strbuf *out, const char *cell)
{
	for (; *cell; cell++) {
		const char *e = table_char((unsigned char)*cell);
		if (e)
			strbuf_adds(out, e);
		else
			strbuf_addch(out, *cell);
	}
}

void rnd_html_text(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		const char *e = entity((unsigned char)*s, true);
		if (e)
			strbuf_adds(sb, e);
		else
			strbuf_addch(sb, *s);
	}
}

void rnd_csv_field(struct strbuf *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		strbuf_adds(out, s);
		return;
	}
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(out, '"');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

void rnd_mermaid_label(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		switch (ch) {
		case '"':
			strbuf_adds(out, "#quot;");
			break;
		case '#':
			strbuf_adds(out, "#35;");
			break;
		case ';':
			strbuf_adds(out, "#59;");
			break;
		case '`':
			strbuf_adds(out, "#96;");
			break;
		case '<':
			strbuf_adds(out, "#lt;");
			break;
		case '>':
			strbuf_adds(out, "#gt;");
			break;
		case '&':
			strbuf_adds(out, "#amp;");
			break;
		case '\\':
			strbuf_adds(out, "#92;");
			break;
		case '@':
			strbuf_adds(out, "@\xe2\x80\x8b"); /* U+200B: no mention */
			break;
		default:
			strbuf_addch(out, ch < 0x20 || ch == 0x7f ? ' ' : ch);
		}
	}
}
