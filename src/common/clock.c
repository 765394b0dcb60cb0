/*
 * The monotonic and the wall clock: see clock.h.
 */
#include "common/clock.h"

#include <time.h>

#include "common/banned.h"

uint64_t clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

int64_t clock_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * INT64_C(1000000000) + ts.tv_nsec;
}
