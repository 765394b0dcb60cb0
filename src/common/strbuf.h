/*
 * Growable strings. A strbuf always holds a NUL-terminated string in buf
 * (never NULL after strbuf_init). A non-zero cap bounds its length: appends that
 * would pass it append nothing and return -1, which is how untrusted input
 * (reports, API responses, command output) is kept from growing without limit.
 */
#ifndef HIMORIME_COMMON_STRBUF_H
#define HIMORIME_COMMON_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t cap; /* 0: unbounded */
};

#define STRBUF_INIT                                                                                \
	{                                                                                          \
		NULL, 0, 0, 0                                                                      \
	}

void strbuf_init(struct strbuf *sb, size_t cap);
void strbuf_release(struct strbuf *sb);
/* Hands the string to the caller (who frees it) and leaves sb empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);

int strbuf_add(struct strbuf *sb, const void *data, size_t len);
int strbuf_adds(struct strbuf *sb, const char *s);
int strbuf_addch(struct strbuf *sb, int c);
int strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
