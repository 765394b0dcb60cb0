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

static void md_common(struct strbuf *sb, const char *s, bool in_table)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '\n' || ch == '\r' || ch == '\t' || ch < 0x20 || ch == 0x7f) {
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
			strbuf_adds(sb, in_table ? "|" : "\\|");
			break;
		case '<':
			strbuf_adds(sb, in_table ? "<" : "&lt;");
			break;
		case '>':
			strbuf_adds(sb, in_table ? ">" : "&gt;");
			break;
		case '&':
			strbuf_adds(sb, in_table ? "&" : "&amp;");
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

void rnd_html_text(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			strbuf_adds(sb, "&lt;");
			break;
		case '>':
			strbuf_adds(sb, "&gt;");
			break;
		case '&':
			strbuf_adds(sb, "&amp;");
			break;
		case '"':
			strbuf_adds(sb, "&quot;");
			break;
		case '\'':
			strbuf_adds(sb, "&#39;");
			break;
		default:
			strbuf_addch(sb, *s);
		}
	}
}

void rnd_md_table_escape(struct strbuf *out, const char *cell)
{
	for (; *cell; cell++) {
		switch (*cell) {
		case '|':
			strbuf_adds(out, "\\|");
			break;
		case '\n':
		case '\r':
			strbuf_addch(out, ' ');
			break;
		case '<':
			strbuf_adds(out, "&lt;");
			break;
		case '>':
			strbuf_adds(out, "&gt;");
			break;
		case '&':
			strbuf_adds(out, "&amp;");
			break;
		default:
			strbuf_addch(out, *cell);
		}
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
