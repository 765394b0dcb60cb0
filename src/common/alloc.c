/*
 * Allocation wrappers: see alloc.h. Overflow in size arithmetic is treated like
 * out of memory, since it can only come from a request no machine can serve.
 */
#include "common/alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die_oom(size_t size)
{
	fprintf(stderr, "himorime: out of memory (requested %zu bytes)\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		die_oom(size);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		die_oom(size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		die_oom(size);
	return p;
}

void *xgrow(void *ptr, size_t *alloc, size_t need, size_t size)
{
	size_t n;

	if (need <= *alloc)
		return ptr;
	n = *alloc ? *alloc : 8;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			die_oom(SIZE_MAX);
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		die_oom(SIZE_MAX);
	*alloc = n;
	return xrealloc(ptr, n * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die_oom(0);
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
