/*
 * Value parsers for the typed values of a suite file: durations, byte sizes,
 * rates, percentages and percentile names. They turn the text a user wrote
 * into canonical units (ns, bytes, work per second, fractions, percent) and
 * say in err->msg why a text is not one ("missing unit", "larger than 24h").
 * Renderers format values; nothing but the suite loader parses them.
 */
#ifndef HIMORIME_SUITE_UNITS_H
#define HIMORIME_SUITE_UNITS_H

#include "common/err.h"

#include <stdbool.h>
#include <stdint.h>

#define UNITS_NS_PER_S	      UINT64_C(1000000000)
#define UNITS_DURATION_MAX_NS (UINT64_C(24) * 3600 * UNITS_NS_PER_S)
/* Byte sizes are capped at 2^60 (1 EiB), far beyond any real limit. */
#define UNITS_SIZE_MAX_BYTES (UINT64_C(1) << 60)

/* "250ms", "1m30s", "1.5s", "90us", "90µs": one or more <number><unit> parts
 * with units ns, us, µs (or μs), ms, s, m, h; no sign, no spaces; a bare
 * number, even 0, is rejected; at most 24h. Zero ("0s") is accepted here:
 * callers that need a positive duration check. Rounds to whole ns. */
int units_duration(const char *s, uint64_t *ns, struct err *err);

/* "512B", "10 bytes", "1.5KB", "64MiB": a non-negative number, optional
 * spaces, and one of B bytes KB MB GB TB (powers of 1000) KiB MiB GiB TiB
 * (powers of 1024), case-sensitive. Rounds to whole bytes. */
int units_size(const char *s, uint64_t *bytes, struct err *err);

/* Counts are capped at 10^18, beyond any instruction count or input size. */
#define UNITS_COUNT_MAX 1e18

/* "100", "64k", "1.5M", "2G": a non-negative number with an optional k, M or G
 * glued to it (10^3, 10^6, 10^9), for input sizes and instruction counts. No
 * sign, no space, no other unit. The value need not be whole ("1.5k" is 1500;
 * "0.5" stays 0.5): callers that need an integer check. */
int units_count(const char *s, double *out, struct err *err);

/* A rate as written: "50MiB/s" (a byte rate: unit "bytes", value in
 * bytes/s), "1000 records/s", "2.5k ops/s" (k/M/G after the number
 * multiplies by 10^3/10^6/10^9; value in units/s, unit as written). */
struct rate {
	double per_s;
	char unit[64];
	bool bytes; /* written with a byte-size unit */
};
int units_rate(const char *s, struct rate *out, struct err *err);
/* The rate in units of `declared` per second, or ERR_INVALID when the rate's
 * unit is not the declared one. Accepts a k/M/G prefix glued to the unit
 * ("2 krecords/s" for "records"); a byte rate matches "bytes". */
int units_rate_in(const struct rate *r, const char *declared, double *per_s, struct err *err);

/* "10%" or "10" (percent) or "2.5%": the fraction (0.10, 0.025). Finite
 * numbers only; sign and range are the caller's. */
int units_percent(const char *s, double *fraction, struct err *err);

/* "p95", "p99.9", "p1": the percentile rounded to one decimal, from 1 to
 * 99.9. A name that rounds to p100 ("p99.99") is rejected. */
int units_percentile(const char *s, double *p, struct err *err);

/* A finite decimal number in YAML 1.2 core form ("10", "-2.5", "1e3",
 * "0x1F", "0o17"); .inf and .nan are rejected. */
int units_number(const char *s, double *out, struct err *err);

#endif
