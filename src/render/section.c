/*
 * Marked sections of a Markdown page (render_markdown_section in render.h):
 * `--section NAME` replaces only the text between a page's begin and end
 * markers, with the body's headings moved under the page's.
 */
#include "render/render.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

/* --- sections ------------------------------------------------------------------- */

int render_section_name_check(const char *name, struct err *err)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > 64)
		goto bad;
	for (i = 0; i < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (i > 0 && c == '-');
		if (!ok)
			goto bad;
	}
	return 0;
bad:
	return err_set(err, ERR_USAGE,
		       "invalid section name \"%s\": expected lower-case letters, digits and "
		       "dashes, starting with a letter or digit",
		       name);
}

/* Finds the line that is exactly `marker` (surrounding blanks allowed);
 * returns its start or NULL, and counts the matches. */
static const char *find_marker_line(const char *page, const char *marker, size_t *count,
				    const char **line_end)
{
	const char *p = page, *first = NULL;
	size_t mlen = strlen(marker);

	*count = 0;
	while (*p) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		const char *a = p, *z = end;
		while (a < z && (*a == ' ' || *a == '\t'))
			a++;
		while (z > a && (z[-1] == ' ' || z[-1] == '\t' || z[-1] == '\r'))
			z--;
		if ((size_t)(z - a) == mlen && !memcmp(a, marker, mlen)) {
			if (!*count) {
				first = p;
				*line_end = eol ? eol + 1 : end;
			}
			(*count)++;
		}
		p = eol ? eol + 1 : end;
	}
	return first;
}

/* Level of an ATX heading line ("## x" is 2), 0 if it is not one. */
static int heading_level(const char *line, const char *end)
{
	int n = 0;

	while (line < end && *line == '#' && n < 7) {
		line++;
		n++;
	}
	if (n == 0 || n > 6)
		return 0;
	if (line < end && *line != ' ' && *line != '\t' && *line != '\r')
		return 0;
	return n;
}

static bool is_fence(const char *line, const char *end)
{
	while (line < end && *line == ' ')
		line++;
	return end - line >= 3 && (!memcmp(line, "```", 3) || !memcmp(line, "~~~", 3));
}

/* The level the body's top heading should get: one below the page's last
 * heading before `stop`; 0 when the page has none. */
static int page_level(const char *page, const char *stop)
{
	const char *p = page;
	int level = 0;
	bool fenced = false;

	while (p < stop) {
		const char *eol = memchr(p, '\n', (size_t)(stop - p));
		const char *end = eol ? eol : stop;
		if (is_fence(p, end))
			fenced = !fenced;
		else if (!fenced && heading_level(p, end))
			level = heading_level(p, end);
		p = eol ? eol + 1 : stop;
	}
	return level;
}

static void add_body(struct strbuf *out, const char *body, int want)
{
	const char *p = body;
	int top = 0, shift;
	bool fenced = false;

	while (*p) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		int l;
		if (is_fence(p, end))
			fenced = !fenced;
		else if (!fenced && (l = heading_level(p, end)) && (!top || l < top))
			top = l;
		p = eol ? eol + 1 : end;
	}
	shift = want && top ? want - top : 0;
	fenced = false;
	for (p = body; *p;) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol + 1 : p + strlen(p);
		int l = 0;
		if (is_fence(p, end))
			fenced = !fenced;
		else if (!fenced)
			l = heading_level(p, end);
		if (l && shift) {
			int nl = l + shift;
			nl = nl < 1 ? 1 : nl > 6 ? 6 : nl;
			while (nl--)
				strbuf_addch(out, '#');
			strbuf_add(out, p + l, (size_t)(end - p - l));
		} else {
			strbuf_add(out, p, (size_t)(end - p));
		}
		p = end;
	}
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
}

int render_markdown_section(const char *page, const char *name, const char *body,
			    struct strbuf *out, struct err *err)
{
	char begin[128], end[128];
	const char *b, *e, *b_end = NULL, *e_end = NULL;
	size_t nb, ne;
	int level;

	if (render_section_name_check(name, err))
		return ERR_USAGE;
	snprintf(begin, sizeof(begin), "<!-- himorime:begin %s -->", name);
	snprintf(end, sizeof(end), "<!-- himorime:end %s -->", name);
	b = find_marker_line(page, begin, &nb, &b_end);
	e = find_marker_line(page, end, &ne, &e_end);
	if (!b || !e)
		return err_set(err, ERR_EXEC, "section \"%s\": the page has no \"%s\" line", name,
			       !b ? begin : end);
	if (nb > 1 || ne > 1)
		return err_set(err, ERR_EXEC,
			       "section \"%s\": the page has more than one \"%s\" line", name,
			       nb > 1 ? begin : end);
	if (e < b)
		return err_set(err, ERR_EXEC, "section \"%s\": \"%s\" comes before \"%s\"", name,
			       end, begin);
	level = page_level(page, b);
	strbuf_add(out, page, (size_t)(b_end - page));
	if (b_end > page && b_end[-1] != '\n')
		strbuf_addch(out, '\n');
	add_body(out, body, level ? (level < 6 ? level + 1 : 6) : 0);
	strbuf_adds(out, e);
	return 0;
}
