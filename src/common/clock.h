/*
 * The two clocks himorime reads, in ns: CLOCK_MONOTONIC for durations,
 * deadlines, time budgets and the phases of a report's timings
 * (docs/reports.md#timings), CLOCK_REALTIME for the moments a report
 * records (started_at, finished_at). One function each, so that every stage
 * counts time the same way.
 */
#ifndef HIMORIME_COMMON_CLOCK_H
#define HIMORIME_COMMON_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC: only differences between two readings mean anything. */
uint64_t clock_monotonic_ns(void);
/* CLOCK_REALTIME: ns since the Unix epoch. */
int64_t clock_wall_ns(void);

#endif
