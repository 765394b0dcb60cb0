/*
 * Number, time and name formats that the JSON writer and reader share (see
 * results_internal.h). Exactness is the point: every format here has an
 * inverse that gives back the same bits.
 */
#include "results/results_internal.h"

#include "common/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/banned.h"

static const char *const groups[] = {
	[GROUP_LATENCY] = "latency", [GROUP_THROUGHPUT] = "throughput", [GROUP_CPU] = "cpu",
	[GROUP_MEMORY] = "memory",   [GROUP_COUNTS] = "counts",
};

static const char *const scopes[] = {
	[SCOPE_WALL_CLOCK] = "wall_clock",
	[SCOPE_PROCESS_TREE] = "process_tree",
	[SCOPE_ARTIFACT] = "artifact",
};

const char *results_group_name(enum metric_group g)
{
	return groups[g];
}

const char *results_scope_name(enum metric_scope s)
{
	return scopes[s];
}

static bool same_bits(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

/* "1.2500e+20" -> "1.25e+20": drops the mantissa's trailing zeros. */
static void trim_mantissa(char *buf)
{
	char *e = strchr(buf, 'e'), *z;

	if (!e || !strchr(buf, '.'))
		return;
	z = e;
	while (z[-1] == '0')
		z--;
	if (z[-1] == '.')
		z--;
	memmove(z, e, strlen(e) + 1);
}

int results_format_double(double v, char *buf, size_t size)
{
	int digits;

	if (!isfinite(v))
		return -1;
	if (v == trunc(v) && fabs(v) <= RESULTS_MAX_INTEGER) {
		snprintf(buf, size, "%.0f", v);
		return 0;
	}
	for (digits = 15; digits < 17; digits++) {
		snprintf(buf, size, "%.*g", digits, v);
		if (same_bits(strtod(buf, NULL), v))
			break;
	}
	if (digits == 17)
		snprintf(buf, size, "%.17g", v); /* always round-trips */
	/* A whole number of 2^53 or more gets an exponent, so that no integer
	 * literal in a report ever reaches 2^53. */
	if (!strpbrk(buf, ".e")) {
		snprintf(buf, size, "%.*e", digits - 1, v);
		trim_mantissa(buf);
	}
	return 0;
}

int results_format_time(int64_t unix_ns, char *buf, size_t size)
{
	int64_t secs = unix_ns / 1000000000;
	int64_t nanos = unix_ns % 1000000000;
	time_t t;
	struct tm tm;

	if (nanos < 0) {
		nanos += 1000000000;
		secs--;
	}
	t = (time_t)secs;
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 < 1 || tm.tm_year + 1900 > 9999)
		return -1;
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)nanos);
	return 0;
}

/* Reads exactly `n` digits at *p; -1 if any is not a digit. */
static int digits(const char **p, int n)
{
	int v = 0;

	while (n--) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (*(*p)++ - '0');
	}
	return v;
}

static bool expect(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

int results_parse_time(const char *s, int64_t *unix_ns)
{
	static const int month_days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	const char *p = s;
	struct tm tm;
	int year, mon, day, hour, min, sec, n = 0;
	int64_t nanos = 0, scale = 100000000;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	year = digits(&p, 4);
	if (year < 1 || !expect(&p, '-') || (mon = digits(&p, 2)) < 1 || mon > 12 ||
	    !expect(&p, '-') || (day = digits(&p, 2)) < 1 || day > month_days[mon - 1] ||
	    !expect(&p, 'T') || (hour = digits(&p, 2)) < 0 || hour > 23 || !expect(&p, ':') ||
	    (min = digits(&p, 2)) < 0 || min > 59 || !expect(&p, ':') ||
	    (sec = digits(&p, 2)) < 0 || sec > 59)
		return -1;
	if (expect(&p, '.')) {
		while (*p >= '0' && *p <= '9' && n < 9) {
			nanos += (*p++ - '0') * scale;
			scale /= 10;
			n++;
		}
		if (n == 0)
			return -1;
	}
	if (!expect(&p, 'Z') || *p)
		return -1;
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (tm.tm_mday != day) /* 29 February of a common year */
		return -1;
	if (t > INT64_MAX / 1000000000 - 1 || t < INT64_MIN / 1000000000 + 1)
		return -1; /* beyond what nanoseconds since 1970 hold (1677 to 2262) */
	*unix_ns = (int64_t)t * 1000000000 + nanos;
	return 0;
}
