/*
 * The XML pull parser of xml.h: one token at a time from x->pos, every
 * position it blames computed from a byte offset of the output.
 */
#include "harness/xml.h"

#include "common/alloc.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

static int bad(struct xml *x, size_t off, const char *what)
{
	struct where w = where_at(x->c, off);

	return collect_bad(x->c, &w, "%s", what);
}

void xml_init(struct xml *x, struct collect *c)
{
	memset(x, 0, sizeof(*x));
	x->c = c;
	strbuf_init(&x->values, 0);
}

void xml_release(struct xml *x)
{
	strbuf_release(&x->values);
}

static const char *at(const struct xml *x, size_t off)
{
	return x->c->data + off;
}

static bool has(const struct xml *x, const char *s)
{
	size_t n = strlen(s);

	return x->c->len - x->pos >= n && !memcmp(at(x, x->pos), s, n);
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static void skip_space(struct xml *x)
{
	while (x->pos < x->c->len && is_space(*at(x, x->pos)))
		x->pos++;
}

static bool name_char(char ch, bool first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == ':' ||
	       (!first && ((ch >= '0' && ch <= '9') || ch == '.' || ch == '-'));
}

static int read_name(struct xml *x, struct xml_span *out)
{
	size_t start = x->pos;

	while (x->pos < x->c->len && name_char(*at(x, x->pos), x->pos == start))
		x->pos++;
	if (x->pos == start)
		return bad(x, start, "expected a name");
	*out = (struct xml_span){ start, x->pos - start };
	return 0;
}

/* Passes over everything up to and including `end`. */
static int skip_to(struct xml *x, const char *end, const char *what)
{
	size_t start = x->pos;
	const char *p = memmem(at(x, x->pos), x->c->len - x->pos, end, strlen(end));
	char msg[96];

	if (!p) {
		snprintf(msg, sizeof(msg), "unterminated %s", what);
		return bad(x, start, msg);
	}
	x->pos = (size_t)(p - x->c->data) + strlen(end);
	return 0;
}

static const struct {
	const char *name;
	char ch;
} entities[] = {
	{ "lt;", '<' }, { "gt;", '>' }, { "amp;", '&' }, { "quot;", '"' }, { "apos;", '\'' }
};

static size_t put_utf8(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* &#N; or &#xH; at p (after the '&'): its length, the character in out. */
static size_t char_ref(const char *p, size_t n, char *out, size_t *out_len)
{
	size_t i = 1, start;
	unsigned long cp = 0;
	bool hex = n > 1 && p[1] == 'x';

	i += hex;
	start = i;
	for (; i < n && i - start < 8; i++) {
		char ch = p[i];
		unsigned d = ch >= '0' && ch <= '9'	     ? (unsigned)(ch - '0')
			     : hex && ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
			     : hex && ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10)
							     : 99;
		if (d == 99)
			break;
		cp = cp * (hex ? 16 : 10) + d;
	}
	if (i == start || i >= n || p[i] != ';' || cp == 0 || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*out_len = put_utf8(out, cp);
	return i + 1;
}

/* The reference at off (its '&'): its length and what it stands for. */
static int reference(struct xml *x, size_t off, size_t end, char *out, size_t *out_len)
{
	const char *p = at(x, off + 1);
	size_t n = end - off - 1, i, l;

	if (n && p[0] == '#') {
		l = char_ref(p, n, out, out_len);
		if (l)
			return (int)l + 1;
	} else {
		for (i = 0; i < ARRAY_SIZE(entities); i++) {
			l = strlen(entities[i].name);
			if (n >= l && !memcmp(p, entities[i].name, l)) {
				out[0] = entities[i].ch;
				*out_len = 1;
				return (int)l + 1;
			}
		}
	}
	bad(x, off,
	    "expected an entity (&lt; &gt; &amp; &quot; &apos;) or a character reference "
	    "after '&'");
	return -1;
}

/* Decodes data[start, end) into x->values, NUL-terminated. */
static int decode(struct xml *x, size_t start, size_t end)
{
	size_t i = start, run;
	char ch[4];
	size_t l;
	int n;

	while (i < end) {
		const char *amp = memchr(at(x, i), '&', end - i);
		run = amp ? (size_t)(amp - at(x, i)) : end - i;
		strbuf_add(&x->values, at(x, i), run);
		i += run;
		if (i == end)
			break;
		n = reference(x, i, end, ch, &l);
		if (n < 0)
			return ERR_INVALID;
		strbuf_add(&x->values, ch, l);
		i += (size_t)n;
	}
	strbuf_addch(&x->values, '\0');
	return 0;
}

static int attribute(struct xml *x)
{
	struct xml_span name;
	size_t i, start;
	char quote_ch, msg[128];
	const char *close;

	if (x->n_attrs == XML_MAX_ATTRS)
		return bad(x, x->pos, "more than 32 attributes");
	if (read_name(x, &name))
		return ERR_INVALID;
	for (i = 0; i < x->n_attrs; i++)
		if (x->attr_names[i].len == name.len &&
		    !memcmp(at(x, x->attr_names[i].off), at(x, name.off), name.len)) {
			snprintf(msg, sizeof(msg), "attribute %.*s twice", (int)name.len,
				 at(x, name.off));
			return bad(x, name.off, msg);
		}
	skip_space(x);
	if (!has(x, "="))
		return bad(x, x->pos, "expected '=' after the attribute's name");
	x->pos++;
	skip_space(x);
	if (!has(x, "\"") && !has(x, "'"))
		return bad(x, x->pos, "expected a quoted attribute value");
	quote_ch = *at(x, x->pos);
	start = ++x->pos;
	close = memchr(at(x, start), quote_ch, x->c->len - start);
	if (!close)
		return bad(x, start - 1, "unterminated attribute value");
	x->pos = (size_t)(close - x->c->data);
	if (memchr(at(x, start), '<', x->pos - start))
		return bad(x, start, "'<' in an attribute value");
	x->attr_names[x->n_attrs] = name;
	x->attr_values[x->n_attrs] = x->values.len;
	if (decode(x, start, x->pos))
		return ERR_INVALID;
	x->attr_lens[x->n_attrs] = x->values.len - 1 - x->attr_values[x->n_attrs];
	x->n_attrs++;
	x->pos++;
	return 0;
}

static int start_tag(struct xml *x, enum xml_event *ev)
{
	x->tag_off = x->pos++;
	x->n_attrs = 0;
	strbuf_reset(&x->values);
	if (x->root_seen && !x->depth)
		return bad(x, x->tag_off, "a second root element");
	if (x->depth == XML_MAX_DEPTH)
		return bad(x, x->tag_off, "elements nested deeper than 64 levels");
	if (read_name(x, &x->name))
		return ERR_INVALID;
	for (;;) {
		size_t before = x->pos;
		skip_space(x);
		if (has(x, "/>") || has(x, ">"))
			break;
		if (x->pos == x->c->len)
			return bad(x, x->tag_off, "unterminated start tag");
		if (x->pos == before)
			return bad(x, x->pos, "expected a space, '>' or '/>'");
		if (attribute(x))
			return ERR_INVALID;
	}
	x->empty_pending = has(x, "/>");
	x->pos += x->empty_pending ? 2 : 1;
	x->root_seen = true;
	x->open[x->depth++] = x->name;
	*ev = XML_START;
	return 0;
}

static int end_tag(struct xml *x, enum xml_event *ev)
{
	struct xml_span name, *open;
	char msg[160];

	x->tag_off = x->pos;
	x->pos += 2;
	if (read_name(x, &name))
		return ERR_INVALID;
	skip_space(x);
	if (!has(x, ">"))
		return bad(x, x->pos, "expected '>'");
	x->pos++;
	if (!x->depth)
		return bad(x, x->tag_off, "an end tag with no element open");
	open = &x->open[x->depth - 1];
	if (open->len != name.len || memcmp(at(x, open->off), at(x, name.off), name.len)) {
		snprintf(msg, sizeof(msg), "expected </%.*s>, got </%.*s>", (int)open->len,
			 at(x, open->off), (int)name.len, at(x, name.off));
		return bad(x, x->tag_off, msg);
	}
	x->name = *open;
	x->depth--;
	*ev = XML_END;
	return 0;
}

/* Text between tags, from x->pos to the next '<': only blanks outside the root. */
static int text(struct xml *x)
{
	const char *lt = memchr(at(x, x->pos), '<', x->c->len - x->pos);
	size_t end = lt ? (size_t)(lt - x->c->data) : x->c->len, i;
	char ch[4];
	size_t l;
	int n;

	for (i = x->pos; i < end; i++) {
		if (!x->depth && !is_space(*at(x, i)))
			return bad(x, i, "text outside the root element");
		if (*at(x, i) == '&') {
			n = reference(x, i, end, ch, &l);
			if (n < 0)
				return ERR_INVALID;
			i += (size_t)n - 1;
		}
	}
	x->pos = end;
	return 0;
}

static int at_end(struct xml *x, enum xml_event *ev)
{
	char msg[160];
	struct xml_span *open;

	if (!x->root_seen)
		return bad(x, x->pos, "no root element");
	if (x->depth) {
		struct where w;
		open = &x->open[x->depth - 1];
		w = where_at(x->c, open->off - 1);
		snprintf(msg, sizeof(msg), "output ends inside <%.*s> (opened at %zu:%zu)",
			 (int)(open->len > 64 ? 64 : open->len), at(x, open->off), w.line, w.col);
		return bad(x, x->pos, msg);
	}
	*ev = XML_DONE;
	return 0;
}

/* UTF-8, and no control character but tab and line breaks (XML 1.0 has
 * none; Catch2 writes them as text such as "\x01"). */
static int check_bytes(struct xml *x)
{
	const unsigned char *p = (const unsigned char *)x->c->data;
	size_t i, l;
	char msg[64];

	for (i = 0; i < x->c->len; i += l) {
		if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r') {
			snprintf(msg, sizeof(msg),
				 "control character 0x%02x (none is allowed in XML)", p[i]);
			return bad(x, i, msg);
		}
		l = utf8_len(p + i, x->c->len - i);
		if (!l)
			return bad(x, i, "invalid UTF-8");
	}
	return 0;
}

int xml_next(struct xml *x, enum xml_event *ev)
{
	if (!x->pos && check_bytes(x))
		return ERR_INVALID;
	if (x->empty_pending) {
		x->empty_pending = false;
		x->depth--;
		*ev = XML_END;
		return 0;
	}
	for (;;) {
		if (text(x))
			return ERR_INVALID;
		if (x->pos == x->c->len)
			return at_end(x, ev);
		if (has(x, "<?") || has(x, "<!--")) {
			if (has(x, "<?") ? skip_to(x, "?>", "processing instruction")
					 : skip_to(x, "-->", "comment"))
				return ERR_INVALID;
		} else if (has(x, "<![CDATA[") && x->depth) {
			if (skip_to(x, "]]>", "CDATA section"))
				return ERR_INVALID;
		} else if (has(x, "<!")) {
			return bad(x, x->pos, "a DOCTYPE or declaration (not accepted)");
		} else if (has(x, "</")) {
			return end_tag(x, ev);
		} else {
			return start_tag(x, ev);
		}
	}
}

bool xml_is(const struct xml *x, const char *name)
{
	return strlen(name) == x->name.len && !memcmp(at(x, x->name.off), name, x->name.len);
}

const char *xml_attr(const struct xml *x, const char *name, size_t *len)
{
	size_t i, n = strlen(name);

	for (i = 0; i < x->n_attrs; i++)
		if (x->attr_names[i].len == n && !memcmp(at(x, x->attr_names[i].off), name, n)) {
			*len = x->attr_lens[i];
			return x->values.buf + x->attr_values[i];
		}
	return NULL;
}
