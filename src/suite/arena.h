/*
 * A bump allocator that owns everything a parsed suite points at: the typed
 * model, its strings and its diagnostics. One arena_release frees it all, so
 * the model's many small pieces need no individual ownership rules.
 */
#ifndef HIMORIME_SUITE_ARENA_H
#define HIMORIME_SUITE_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;
	size_t total_bytes;
};

#define ARENA_INIT                                                                                 \
	{                                                                                          \
		.head = NULL, .total_bytes = 0                                                     \
	}

void arena_init(struct arena *a);
void arena_release(struct arena *a);
/* Zeroed, aligned for any type; aborts when out of memory like xmalloc. */
void *arena_alloc(struct arena *a, size_t size);
/* Zeroed array of count elements; aborts on overflow. */
void *arena_array(struct arena *a, size_t count, size_t size);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
