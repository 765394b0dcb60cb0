/*
 * The perf backend of instructions (docs/comparison.md, "Deciding on
 * counts"): the hardware counter of user-space instructions retired
 * (PERF_COUNT_HW_INSTRUCTIONS, exclude_kernel, exclude_hv, inherit), which
 * the spawner opens on the child before exec so that the whole tree is
 * counted during the timed runs, at no cost. Many virtual machines and most
 * hosted CI runners expose no hardware counters: the backend `auto` asks
 * perf_probe_instructions() first and falls back to valgrind.
 */
#ifndef HIMORIME_MEASURE_PERF_H
#define HIMORIME_MEASURE_PERF_H

#include "common/err.h"

#include <stdint.h>

/* Opens the counter as the spawner will (on this process), counts a short
 * loop and reads it. 0 when it opens and counts (*counted: what the loop
 * counted); ERR_METRIC with the reason otherwise, e.g. "the instructions
 * counter is not available: perf_event_open: No such file or directory (no
 * hardware counters here: a virtual machine?)". */
int perf_probe_instructions(uint64_t *counted, struct err *err);

#endif
