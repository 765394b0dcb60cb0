/*
 * Growable strings. A strbuf always holds a NUL-terminated string in buf,
 * never NULL: an empty one (STRBUF_INIT, strbuf_init, and after release or
 * detach) points at a shared static "" that is never written or freed, so
 * that `alloc == 0` is what says "nothing of ours to free", as in git. A
 * non-zero cap bounds its length: appends that would pass it append nothing
 * and return -1, which is how untrusted input (reports, API responses,
 * command output) is kept from growing without limit.
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

/* The empty string every empty strbuf points at; never written. */
extern char strbuf_empty[];

#define STRBUF_INIT                                                                                \
	{                                                                                          \
		.buf = strbuf_empty, .len = 0, .alloc = 0, .cap = 0                                \
	}

void strbuf_init(struct strbuf *sb, size_t cap);
/* Frees what sb holds and leaves it empty, its cap kept. */
void strbuf_release(struct strbuf *sb);
/* Hands the string to the caller (who frees it; a fresh "" when sb was
 * empty) and leaves sb empty, its cap kept. */
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
