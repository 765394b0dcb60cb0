/*
 * Human formatting: see format.h.
 */
#include "render/format.h"

#include <math.h>
#include <string.h>

#include "common/banned.h"

/* Three significant digits: 1.23, 12.3, 123. */
static void sig3(struct strbuf *sb, double v)
{
	double a = fabs(v);

	if (a >= 99.95)
		strbuf_addf(sb, "%.0f", v);
	else if (a >= 9.995)
		strbuf_addf(sb, "%.1f", v);
	else
		strbuf_addf(sb, "%.2f", v);
}

struct scale {
	double factor;
	const char *suffix;
};

static void scaled(struct strbuf *sb, double v, const struct scale *s, size_t n)
{
	size_t i = 0;

	/* Pick the largest unit that keeps the number >= 1 after rounding to
	 * three digits, so 999.96 ns prints as "1.00 µs", not "1000 ns". */
	while (i + 1 < n && fabs(v) >= s[i + 1].factor * 0.9995)
		i++;
	sig3(sb, v / s[i].factor);
	strbuf_adds(sb, s[i].suffix);
}

void fmt_duration(struct strbuf *sb, double ns)
{
	static const struct scale s[] = {
		{ .factor = 1, .suffix = " ns" },
		{ .factor = 1e3, .suffix = " µs" },
		{ .factor = 1e6, .suffix = " ms" },
		{ .factor = 1e9, .suffix = " s" },
	};
	/* nothing at all is a count, not a measurement to three digits */
	if (ns == 0) {
		strbuf_adds(sb, "0 ns");
		return;
	}
	scaled(sb, ns, s, 4);
}

void fmt_bytes(struct strbuf *sb, double bytes)
{
	static const struct scale s[] = {
		{ .factor = 1, .suffix = " B" },
		{ .factor = 1024.0, .suffix = " KiB" },
		{ .factor = 1024.0 * 1024, .suffix = " MiB" },
		{ .factor = 1024.0 * 1024 * 1024, .suffix = " GiB" },
		{ .factor = 1024.0 * 1024 * 1024 * 1024, .suffix = " TiB" },
	};
	if (fabs(bytes) < 1024) {
		strbuf_addf(sb, "%.0f B", bytes);
		return;
	}
	scaled(sb, bytes, s, 5);
}

void fmt_count(struct strbuf *sb, double n, const char *what)
{
	static const struct scale s[] = {
		{ .factor = 1, .suffix = "" },	    { .factor = 1e3, .suffix = " k" },
		{ .factor = 1e6, .suffix = " M" },  { .factor = 1e9, .suffix = " G" },
		{ .factor = 1e12, .suffix = " T" },
	};
	size_t len = strlen(what);

	/* below a thousand a count is whole: "812 instructions", and one of
	 * them is singular: "1 allocation" */
	if (fabs(n) < 999.5) {
		strbuf_addf(sb, "%.0f", n);
		if (fabs(n) >= 0.5 && fabs(n) < 1.5 && len > 1 && what[len - 1] == 's')
			len--;
	} else {
		scaled(sb, n, s, 5);
	}
	strbuf_addch(sb, ' ');
	strbuf_add(sb, what, len);
}

void fmt_rate(struct strbuf *sb, double per_s, const char *unit)
{
	static const struct scale bytes[] = {
		{ .factor = 1, .suffix = " B/s" },
		{ .factor = 1024.0, .suffix = " KiB/s" },
		{ .factor = 1024.0 * 1024, .suffix = " MiB/s" },
		{ .factor = 1024.0 * 1024 * 1024, .suffix = " GiB/s" },
		{ .factor = 1024.0 * 1024 * 1024 * 1024, .suffix = " TiB/s" },
	};
	static const struct scale other[] = {
		{ .factor = 1, .suffix = "" },
		{ .factor = 1e3, .suffix = "k" },
		{ .factor = 1e6, .suffix = "M" },
		{ .factor = 1e9, .suffix = "G" },
	};

	if (!unit || !strcmp(unit, "bytes")) {
		scaled(sb, per_s, bytes, 5);
		return;
	}
	scaled(sb, per_s, other, 4);
	strbuf_addf(sb, " %s/s", unit);
}

void fmt_change(struct strbuf *sb, double percent, bool typographic)
{
	double r = round(percent * 10.0) / 10.0;

	if (r == 0) {
		strbuf_adds(sb, "0.0%");
		return;
	}
	if (r > 0)
		strbuf_addf(sb, "+%.1f%%", r);
	else if (typographic)
		strbuf_addf(sb, "\xe2\x88\x92%.1f%%", -r);
	else
		strbuf_addf(sb, "-%.1f%%", -r);
}

void fmt_metric(struct strbuf *sb, enum metric m, double value, const char *work_unit)
{
	switch (metric_info(m)->unit) {
	case UNIT_NS:
		fmt_duration(sb, value);
		return;
	case UNIT_BYTES:
		fmt_bytes(sb, value);
		return;
	case UNIT_PERCENT:
		strbuf_addf(sb, "%.1f%%", value);
		return;
	case UNIT_WORK_PER_S:
		fmt_rate(sb, value, work_unit);
		return;
	case UNIT_COUNT:
		fmt_count(sb, value, metric_info(m)->name);
		return;
	}
}

size_t fmt_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}
