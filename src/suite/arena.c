/*
 * The suite's arena: see arena.h. Blocks are at least 16 KiB; a larger
 * request gets a block of its own.
 */
#include "suite/arena.h"

#include "common/alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define BLOCK_BYTES 16384
#define ALIGN	    16

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->total_bytes = 0;
}

void arena_release(struct arena *a)
{
	struct arena_block *b, *next;

	if (!a)
		return;
	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
	a->total_bytes = 0;
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_block *b = a->head;
	size_t need = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	void *p;

	if (need < size) {
		fprintf(stderr, "himorime: arena request too large\n");
		abort();
	}
	if (!need)
		need = ALIGN;
	if (!b || b->size - b->used < need) {
		size_t bytes = need > BLOCK_BYTES ? need : BLOCK_BYTES;
		b = xmalloc(sizeof(*b) + bytes);
		b->used = 0;
		b->size = bytes;
		b->next = a->head;
		a->head = b;
		a->total_bytes += bytes;
	}
	p = b->data + b->used;
	b->used += need;
	memset(p, 0, need);
	return p;
}

void *arena_array(struct arena *a, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size) {
		fprintf(stderr, "himorime: arena array too large\n");
		abort();
	}
	return arena_alloc(a, count * size);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *tmp, *p;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&tmp, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		fprintf(stderr, "himorime: out of memory\n");
		abort();
	}
	p = arena_strdup(a, tmp);
	free(tmp);
	return p;
}
