/*
 * The perf backend of instructions (docs/comparison.md, "Deciding on
 * counts"): the hardware counter of user-space instructions retired
 * (PERF_COUNT_HW_INSTRUCTIONS, exclude_kernel, exclude_hv, inherit), which
 * the starter of a run opens before the run and reads after its whole tree
 * is reaped (docs/design.md, "Measuring a run": counting with perf), so that
 * the timed runs count at no extra cost. Many virtual machines and most
 * hosted CI runners expose no hardware counters: the backend `auto` asks
 * perf_probe_instructions() first and falls back to valgrind.
 */
#ifndef HIMORIME_MEASURE_PERF_H
#define HIMORIME_MEASURE_PERF_H

#include "common/err.h"
#include "common/strbuf.h"
#include "spawner/run.h"

#include <stdint.h>

/* The event a perf count of instructions records in reports. */
#define PERF_INSTRUCTIONS_EVENT "instructions:u"

/* Opens the counter as the spawner will (on this process), counts a short
 * loop and reads it. 0 when it opens and counts (*counted: what the loop
 * counted); ERR_METRIC with the reason otherwise, e.g. "the instructions
 * counter is not available: perf_event_open: No such file or directory (no
 * hardware counters here: a virtual machine?)". */
int perf_probe_instructions(uint64_t *counted, struct err *err);

/* Asks a run request to count the user-space instructions of the command's
 * whole tree (spawner/run.h; docs/design.md, "Measuring a run"). */
void perf_request_instructions(struct run_request *req);

/* The count of instructions a run returned: 0 with *count, or ERR_METRIC
 * with why there is none: "the instructions counter did not open for a run:
 * perf_event_open: Too many open files", "... could not be read ...", "...
 * never ran: other events held the hardware counters". A count the kernel
 * multiplexed is already scaled (run.h). */
int perf_run_instructions(const struct run_result *res, uint64_t *count, struct err *err);

/* The kernel's release (uname -r), the perf backend's version, in out. */
void perf_kernel_release(struct strbuf *out);

#endif
