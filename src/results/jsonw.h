/*
 * JSON values appended to a strbuf, for the documents himorime writes
 * without cJSON (`list --format json`, `history --format json`) and for the
 * exact numbers of CSV and HTML. Values are encoded as reports encode them
 * (docs/reports.md, "Numbers, times and absent values"): numbers by the
 * report writer's own code (the shortest form that reads back bit for bit),
 * times RFC 3339 in UTC with nanoseconds, absent values as null. Callers
 * keep their own layout:
 *
 *     strbuf_adds(sb, "{\"value\": ");
 *     jsonw_num(sb, v);
 *     strbuf_adds(sb, ", \"at\": ");
 *     jsonw_time(sb, unix_ns);
 *     strbuf_addch(sb, '}');
 */
#ifndef HIMORIME_RESULTS_JSONW_H
#define HIMORIME_RESULTS_JSONW_H

#include "common/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

/* The exact text of a finite double (whole numbers below 2^53 as integers);
 * appends nothing and returns -1 for NaN or infinity. */
int jsonw_number_text(struct strbuf *sb, double v);
/* A tolerance's fraction in percent as the suite wrote it: the shortest
 * decimal p with p / 100 == fraction, as the suite reader divides ("7%" is
 * 0.07, and 7, not 0.07 * 100 = 7.000000000000001). */
double jsonw_percent(double fraction);
/* A number as jsonw_number_text, or null for NaN or infinity. */
void jsonw_num(struct strbuf *sb, double v);
/* A quoted string escaped as cJSON escapes it, or null for NULL. */
void jsonw_str(struct strbuf *sb, const char *s);
void jsonw_bool(struct strbuf *sb, bool b);
/* "2026-12-02T17:41:34.123456789Z" (every int64_t is a year 1677 to 2262). */
void jsonw_time(struct strbuf *sb, int64_t unix_ns);

#endif
