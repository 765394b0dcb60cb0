/*
 * The escapers of the renderings, in one place so that a name, a commit
 * subject or an error text is escaped the same way in every format.
 *
 *     rnd_md_text(sb, subject);     Markdown outside tables (and hand-laid rows)
 *     rnd_md_cell(sb, name);        a cell that table_render_markdown escapes again
 *     rnd_html_text(sb, name);      HTML text and attribute values
 *     rnd_csv_field(sb, name);      one RFC 4180 field
 */
#ifndef HIMORIME_RENDER_ESCAPE_H
#define HIMORIME_RENDER_ESCAPE_H

#include "common/strbuf.h"

/* Markdown text: every character that Markdown or HTML would interpret is
 * escaped (`|` as `\|`, `<` `>` `&` as entities), control characters and
 * newlines become spaces and mentions are broken with a zero-width space
 * ("@\u200b"). NULL is empty. */
void rnd_md_text(struct strbuf *sb, const char *s);
/* As rnd_md_text but leaves `|`, `<`, `>`, `&` to rnd_md_table_escape, which
 * table_render_markdown applies to every cell. */
void rnd_md_cell(struct strbuf *sb, const char *s);
/* A cell's last pass in a Markdown table: `|` → `\|`, newlines → spaces,
 * `<` `>` `&` to entities. */
void rnd_md_table_escape(struct strbuf *out, const char *cell);
/* HTML text and attribute values: < > & " ' as entities. NULL is empty. */
void rnd_html_text(struct strbuf *sb, const char *s);
/* One CSV field: quoted when it holds a comma, quote or line break, quotes
 * doubled. NULL is empty. */
void rnd_csv_field(struct strbuf *out, const char *s);
/* A label inside a quoted Mermaid string: Mermaid's entity codes for the
 * characters that could end the string, the statement or the code fence;
 * mentions broken as in Markdown. */
void rnd_mermaid_label(struct strbuf *out, const char *s);

#endif
