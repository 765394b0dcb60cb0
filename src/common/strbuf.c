/*
 * Growable strings: see strbuf.h.
 */
#include "common/strbuf.h"

#include "common/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb, size_t cap)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
	sb->cap = cap;
}

void strbuf_release(struct strbuf *sb)
{
	if (!sb)
		return;
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, sb->cap);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *s;

	if (len)
		*len = sb->len;
	s = sb->alloc ? sb->buf : xstrdup("");
	strbuf_init(sb, sb->cap);
	return s;
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return;
	if (len > sb->len)
		len = sb->len;
	sb->len = len;
	sb->buf[len] = '\0';
}

static int grow(struct strbuf *sb, size_t extra)
{
	size_t need;

	if (extra > (size_t)-1 - sb->len - 1)
		return -1;
	if (sb->cap && sb->len + extra > sb->cap)
		return -1;
	need = sb->len + extra + 1;
	if (!sb->alloc) {
		size_t alloc = 0;
		sb->buf = xgrow(NULL, &alloc, need, 1);
		sb->buf[0] = '\0';
		sb->alloc = alloc;
		return 0;
	}
	sb->buf = xgrow(sb->buf, &sb->alloc, need, 1);
	return 0;
}

int strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (grow(sb, len) < 0)
		return -1;
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int strbuf_adds(struct strbuf *sb, const char *s)
{
	return strbuf_add(sb, s, strlen(s));
}

int strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;
	return strbuf_add(sb, &ch, 1);
}

int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || grow(sb, (size_t)n) < 0)
		return -1;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return r;
}
