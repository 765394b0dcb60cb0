/*
 * A small, seeded, reproducible pseudo-random generator (xoshiro256**, seeded
 * through splitmix64). Every random choice himorime makes (round order, coin
 * flips, tie-breaking jitter) comes from one of these, derived from the run's
 * seed, so that `--seed` reproduces a run's schedule exactly.
 */
#ifndef HIMORIME_COMMON_RNG_H
#define HIMORIME_COMMON_RNG_H

#include <stddef.h>
#include <stdint.h>

/* Seeds are integers in 0..2^53-1 so that they survive JSON exactly. */
#define RNG_SEED_MAX ((UINT64_C(1) << 53) - 1)

struct rng {
	uint64_t s[4];
};

/* Seeds from `seed` and a stream name, so that independent users of one run
 * seed (each benchmark, each metric) get independent streams. */
void rng_init(struct rng *rng, uint64_t seed, const char *stream);
uint64_t rng_next(struct rng *rng);
/* Uniform in [0, 1) with 53 bits. */
double rng_uniform(struct rng *rng);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(struct rng *rng, uint64_t n);
/* Fisher–Yates shuffle of n indices stored in idx. */
void rng_shuffle(struct rng *rng, size_t *idx, size_t n);
/* A fresh seed in 0..RNG_SEED_MAX from the operating system's generator. */
uint64_t rng_fresh_seed(void);

#endif
