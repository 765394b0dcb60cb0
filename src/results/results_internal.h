/*
 * Shared by the results module's own files only: name tables, UTF-8 checks,
 * number and time formats that the writer and reader must agree on.
 */
#ifndef HIMORIME_RESULTS_RESULTS_INTERNAL_H
#define HIMORIME_RESULTS_RESULTS_INTERNAL_H

#include "results/results.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum results_names_table {
	NAMES_MODE,
	NAMES_PLAN,
	NAMES_SOURCE,
	NAMES_AGGREGATION,
	NAMES_ERROR_KIND,
};

const char *const *results_names(enum results_names_table t, size_t *n);
int results_name_index(const char *const *names, size_t n, const char *name);
void results_side_init(struct results_side *side);
size_t results_utf8_len(const unsigned char *p, size_t n);
bool results_utf8_valid(const char *s);

/* Report names of metric_info fields that metric.h does not name. */
const char *results_group_name(enum metric_group g);

/* Formats a finite double so that strtod gives it back bit for bit: whole
 * numbers below 2^53 as integers, others in the shortest of %.15g, %.16g,
 * %.17g that round-trips. Returns -1 for NaN or infinity. */
int results_format_double(double v, char *buf, size_t size);
/* RFC 3339 UTC with nanoseconds: 2026-12-02T17:41:34.123456789Z. */
int results_format_time(int64_t unix_ns, char *buf, size_t size);
int results_parse_time(const char *s, int64_t *unix_ns);

/* The optional "case" of a benchmark and "growth" of a suite
 * (results_read_cases.c). */
struct reader;
struct cJSON;
int results_read_case(struct reader *rd, const struct cJSON *bo, struct results_benchmark *b);
int results_read_growth(struct reader *rd, const struct cJSON *so, struct results_suite *s);

#endif
