/*
 * The pure parts of the schedule: when warmup has settled (`warmup: auto`,
 * docs/design.md, "Measuring a run"), when an adaptive run may stop, and the seeded order of
 * each round. No processes and no clocks here: the runner feeds in the
 * durations it measured and asks what to do next, so these rules are tested
 * with synthetic durations.
 */
#ifndef HIMORIME_ENGINE_SCHEDULE_H
#define HIMORIME_ENGINE_SCHEDULE_H

#include "common/rng.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Warmup `auto`. Standard plan: warm up until the last 3 runs are within 5%
 * of their median and 500 ms have passed. When 500 ms have passed, the runs
 * have not settled and the last 3 each took >= 50 ms, switch to the large-case
 * plan: one run at a time until the median of the last 5 is within 5% of the
 * median of the 5 before, at most 30 s from the start. A standard plan that
 * never settles stops after 10 s (unsettled). */
enum warmup_plan { WARMUP_PLAN_STANDARD, WARMUP_PLAN_LARGE };

#define WARMUP_STABLE_RUNS     3
#define WARMUP_STABLE_TOL      0.05
#define WARMUP_MIN_NS	       (500 * UINT64_C(1000000))
#define WARMUP_LARGE_RUN_NS    (50 * UINT64_C(1000000))
#define WARMUP_LARGE_WINDOW    5
#define WARMUP_LARGE_MAX_NS    (30 * UINT64_C(1000000000))
#define WARMUP_STANDARD_MAX_NS (10 * UINT64_C(1000000000))

struct warmup_auto {
	enum warmup_plan plan;
	bool done;
	bool settled;	     /* done because the runs settled, not because time ran out */
	uint64_t elapsed_ns; /* sum of the warmup runs' durations so far */
	size_t runs;
	uint64_t *durations_ns; /* every warmup run, for the report */
	size_t alloc;
};

void warmup_auto_init(struct warmup_auto *w);
void warmup_auto_release(struct warmup_auto *w);
/* Records one warmup run; returns true when warmup is over. */
bool warmup_auto_feed(struct warmup_auto *w, uint64_t duration_ns);
const char *warmup_plan_name(enum warmup_plan p); /* "standard", "large" */

/* Adaptive stopping for a plain run: stop once every command has at least
 * min_runs samples and at least min_time_ns of measured time, or when any has
 * reached max_runs. runs > 0 fixes the count instead. */
struct stop_rule {
	unsigned runs; /* 0: adaptive */
	unsigned min_runs;
	unsigned max_runs;
	uint64_t min_time_ns;
};

/* `counts[i]` and `time_ns[i]` describe command i; commands that failed are
 * left out by the caller. True when no further round is needed. */
bool stop_rule_done(const struct stop_rule *rule, const unsigned *counts, const uint64_t *time_ns,
		    size_t n);

/* The long run of a case with sizes (docs/configuration.md, "Sizes"): a
 * case whose size `long_run` names (`declared`), and one whose long run
 * (`long_runs` rounds: SUITE_LONG_RUN_RUNS, or the fixed runs if more) is
 * estimated from the mean round so far (`mean_round_ns`, 0: none yet) to
 * fit in `max_ns`, measures at least `long_runs` rounds: the rule is raised
 * to them, max_runs included. Which size that fits is the largest is only
 * known once every size is measured, so each one that fits gets them. */
/* The rounds that a single command with `count` runs certainly needs before
 * stop_rule_done() could say it is done, whatever the runs' durations: what
 * fixed runs or min_runs still ask for, at most what max_runs allows; 0 when
 * it may be done now. The runner may start that many runs as one batch
 * without ever starting a run the rule would not have asked for. */
unsigned stop_rule_certain_runs(const struct stop_rule *rule, unsigned count);

void stop_rule_long_run(struct stop_rule *rule, unsigned long_runs, uint64_t max_ns, bool declared,
			double mean_round_ns);

/* One round's order of n units, shuffled by rng. */
void schedule_round_order(struct rng *rng, size_t *order, size_t n);
/* The coin flip of a pair: true when base runs first. */
bool schedule_base_first(struct rng *rng);

#endif
