/*
 * JSON values onto a strbuf (see jsonw.h), with the number and time formats
 * of the report writer (results_format.c), so that every JSON himorime
 * writes agrees with its reports.
 */
#include "results/jsonw.h"

#include "results/results_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/banned.h"

int jsonw_number_text(struct strbuf *sb, double v)
{
	char buf[64];

	if (results_format_double(v, buf, sizeof(buf)) < 0)
		return -1;
	strbuf_adds(sb, buf);
	return 0;
}

void jsonw_num(struct strbuf *sb, double v)
{
	if (jsonw_number_text(sb, v) < 0)
		strbuf_adds(sb, "null");
}

/* The short escapes cJSON writes; other control characters as \u00XX. */
static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	default:
		return NULL;
	}
}

void jsonw_str(struct strbuf *sb, const char *s)
{
	const unsigned char *p;

	if (!s) {
		strbuf_adds(sb, "null");
		return;
	}
	strbuf_addch(sb, '"');
	for (p = (const unsigned char *)s; *p; p++) {
		const char *esc = short_escape(*p);
		if (esc)
			strbuf_adds(sb, esc);
		else if (*p < 0x20)
			strbuf_addf(sb, "\\u%04x", *p);
		else
			strbuf_addch(sb, (char)*p);
	}
	strbuf_addch(sb, '"');
}

void jsonw_bool(struct strbuf *sb, bool b)
{
	strbuf_adds(sb, b ? "true" : "false");
}

void jsonw_time(struct strbuf *sb, int64_t unix_ns)
{
	char buf[64];

	if (results_format_time(unix_ns, buf, sizeof(buf)) < 0) {
		strbuf_adds(sb, "null");
		return;
	}
	strbuf_addf(sb, "\"%s\"", buf);
}

double jsonw_percent(double fraction)
{
	double p = fraction * 100.0;
	char buf[64];
	int digits;

	for (digits = 1; digits <= 17; digits++) {
		double q;
		snprintf(buf, sizeof(buf), "%.*g", digits, p);
		q = strtod(buf, NULL);
		if (q / 100.0 == fraction)
			return q;
	}
	return p;
}
