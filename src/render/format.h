/*
 * Human formatting of measured values, shared by every rendering: three
 * significant digits and the largest unit that keeps the number at or above
 * one ("41.2 ms", "18.4 MiB", "12.3k records/s"). Machine formats (JSON, CSV)
 * never use these: they write canonical units exactly.
 */
#ifndef HIMORIME_RENDER_FORMAT_H
#define HIMORIME_RENDER_FORMAT_H

#include "common/metric.h"
#include "common/strbuf.h"

#include <stdbool.h>

/* "950 ns", "812 µs", "41.2 ms", "2.31 s", "1 m 34 s" is not used: seconds
 * stay seconds up to 1000 s. */
void fmt_duration(struct strbuf *sb, double ns);
/* "512 B", "612 KiB", "18.4 MiB" (powers of 1024). */
void fmt_bytes(struct strbuf *sb, double bytes);
/* A count with k, M, G or T (10^3 ...) and what it counts: "1.23 G
 * instructions", "812 instructions"; a count shown as 1 drops the plural
 * s of `what`: "1 allocation". */
void fmt_count(struct strbuf *sb, double n, const char *what);
/* A rate in `unit` per second: bytes give "50.0 MiB/s", other units get a k,
 * M or G prefix: "12.3k records/s". */
void fmt_rate(struct strbuf *sb, double per_s, const char *unit);
/* A signed percentage with one decimal: "+16.3%", "-1.9%" ("−1.9%" with a
 * Unicode minus when `typographic`), "0.0%". */
void fmt_change(struct strbuf *sb, double percent, bool typographic);
/* A metric's value in its canonical unit, formatted for humans; `work_unit`
 * names throughput's unit ("bytes", "records"). */
void fmt_metric(struct strbuf *sb, enum metric m, double value, const char *work_unit);

/* Display width of a UTF-8 string in terminal columns (every code point
 * counts one; good enough for the symbols we print). */
size_t fmt_width(const char *s);

#endif
