/*
 * Seeded generator: see rng.h.
 */
#include "common/rng.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* 64-bit FNV-1a of a string, for deriving stream seeds. */
static uint64_t rng_hash(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

void rng_init(struct rng *rng, uint64_t seed, const char *stream)
{
	uint64_t x = seed ^ rng_hash(stream ? stream : "");
	int i;

	for (i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&x);
}

uint64_t rng_next(struct rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double rng_uniform(struct rng *rng)
{
	return (double)(rng_next(rng) >> 11) * 0x1.0p-53;
}

uint64_t rng_below(struct rng *rng, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;

	do
		x = rng_next(rng);
	while (x >= limit);
	return x % n;
}

void rng_shuffle(struct rng *rng, size_t *idx, size_t n)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = (size_t)rng_below(rng, i);
		size_t t = idx[i - 1];
		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}

uint64_t rng_fresh_seed(void)
{
	uint64_t x = 0;
#if defined(__linux__)
	if (getrandom(&x, sizeof(x), 0) == (ssize_t)sizeof(x))
		return x & RNG_SEED_MAX;
#endif
	{
		struct timespec ts;
		uint64_t mix;
		clock_gettime(CLOCK_REALTIME, &ts);
		mix = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
		return splitmix64(&mix) & RNG_SEED_MAX;
	}
}
