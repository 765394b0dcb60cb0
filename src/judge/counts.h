/*
 * Deciding on counts: instructions, heap blocks and bytes, artifact sizes.
 * Counts are nearly constant from run to run, so they need few runs and no
 * paired test; the rule is docs/comparison.md, "Deciding on counts". Pure:
 * no I/O, no processes, deterministic given its inputs.
 *
 * The engine runs `runs` (default 3) per side, calls counts_decide() with
 * every run so far, and while the decision says more_runs it runs
 * decision.runs_next per side in all and calls again:
 *
 *     struct counts_input in = COUNTS_INPUT_INIT;
 *     in.base = b; in.n_base = nb; in.head = h; in.n_head = nh;
 *     counts_decide(&in, &d);
 *     while (d.more_runs) { run up to d.runs_next per side; counts_decide(&in, &d); }
 */
#ifndef HIMORIME_JUDGE_COUNTS_H
#define HIMORIME_JUDGE_COUNTS_H

#include "common/types.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The defaults of docs/comparison.md, "Deciding on counts". */
#define COUNTS_DEFAULT_NOISE_BOUND 0.001 /* 0.1% */
#define COUNTS_DEFAULT_RUNS	   3
#define COUNTS_DEFAULT_RUNS_CAP	   9
#define COUNTS_RUNS_STEP	   2 /* runs added per side when more are needed */

struct counts_input {
	const uint64_t *base, *head; /* one count per run, in any order */
	size_t n_base, n_head;	     /* at least 1 each */
	double max_fraction;	     /* tolerance, a fraction: 0.01 = 1%; >= 0 */
	double noise_bound;	     /* largest spread of a quiet side, a fraction */
	unsigned runs_cap;	     /* most runs per side */
};

#define COUNTS_INPUT_INIT                                                                          \
	{                                                                                          \
		.max_fraction = TOLERANCE_DEFAULT_FRACTION_COUNTS,                                 \
		.noise_bound = COUNTS_DEFAULT_NOISE_BOUND, .runs_cap = COUNTS_DEFAULT_RUNS_CAP     \
	}

struct counts_decision {
	enum verdict verdict; /* pass, improved, regression or inconclusive */
	bool has_change;      /* false when base counted 0 and head did not */
	double change;	      /* head median / base median - 1, a fraction */
	double spread;	      /* the larger side's spread, a fraction of its median */
	double margin;	      /* the two sides' spreads added: the change is known within it */
	double base_median, head_median;
	bool more_runs;	    /* run up to runs_next per side and decide again */
	unsigned runs_next; /* runs per side wanted, when more_runs */
	char reason[200];   /* why it is inconclusive, or why a change has no estimate */
};

/* The relative spread of one side's counts: (high - low) / median, where high
 * and low drop the floor((n-1)/4) largest and smallest runs (none for n < 5),
 * so that one odd run among many does not make a side noisy. Relative to the
 * high count when the median is 0. 0 for n = 0. */
double counts_spread(const uint64_t *v, size_t n);

/* The runs per side the rule takes next after `runs` per side that did not
 * decide: COUNTS_RUNS_STEP more, up to in->runs_cap; 0 at the cap. */
unsigned counts_runs_next(const struct counts_input *in, size_t runs);

/* Decides one metric from every run so far (docs/comparison.md, "Deciding on
 * counts"). The input must hold at least one run per side. */
void counts_decide(const struct counts_input *in, struct counts_decision *out);

/* The comparison a report carries for a count (struct comparison with
 * `counts` set), decided from every run so far as counts_decide() decides:
 * base and head are the medians, the interval is the change widened by the
 * sides' spreads added, `pairs` the runs per side, the band [-t, t]. Final
 * unless the decision asks for more runs (then *more is the runs per side
 * wanted; 0 otherwise). */
void counts_compare(enum metric m, const struct counts_input *in, bool gate, struct comparison *out,
		    unsigned *more);

#endif
