/*
 * Behaviour that depends on addresses and the environment, as real programs
 * have: pointers hashed into a chained table (collisions, hence instructions,
 * depend on where malloc and the stack land), and a walk over the environment.
 * bench/counts/measure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

#define BUCKETS 251

struct node {
	struct node *next;
	uintptr_t key;
};

int main(void)
{
	static struct node *table[BUCKETS];
	struct node nodes[4000];
	unsigned long steps = 0;
	int local;

	for (int i = 0; i < 4000; i++) {
		void *p = malloc(16 + (size_t)(i % 7) * 8);
		uintptr_t k = (uintptr_t)p ^ (uintptr_t)&local;
		size_t b = (size_t)((k >> 3) % BUCKETS);

		for (struct node *n = table[b]; n; n = n->next)
			if (++steps && n->key == k)
				break;
		nodes[i].key = k;
		nodes[i].next = table[b];
		table[b] = &nodes[i];
	}
	for (char **e = environ; *e; e++)
		steps += strlen(*e);
	return steps == 1;
}
