/*
 * Value parsers: see units.h. Durations are parsed exactly in integers (a
 * whole part and up to 18 fraction digits per part) so that "1.000000001s"
 * is 1000000001 ns; sizes and rates go through double, which is exact for
 * every size below 2^53 bytes.
 */
#include "suite/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

struct unit {
	const char *name;
	uint64_t scale;
};

/* Longest names first where one is a prefix of another ("ms" before "m"). */
static const struct unit duration_units[] = {
	{ .name = "ns", .scale = 1 },
	{ .name = "us", .scale = 1000 },
	{ .name = "\xc2\xb5s", .scale = 1000 }, /* µs, U+00B5 MICRO SIGN */
	{ .name = "\xce\xbcs", .scale = 1000 }, /* μs, U+03BC GREEK SMALL LETTER MU */
	{ .name = "ms", .scale = 1000000 },
	{ .name = "s", .scale = UNITS_NS_PER_S },
	{ .name = "m", .scale = 60 * UNITS_NS_PER_S },
	{ .name = "h", .scale = 3600 * UNITS_NS_PER_S },
};

static const struct unit size_units[] = {
	{ .name = "B", .scale = 1 },
	{ .name = "bytes", .scale = 1 },
	{ .name = "KB", .scale = UINT64_C(1000) },
	{ .name = "MB", .scale = UINT64_C(1000000) },
	{ .name = "GB", .scale = UINT64_C(1000000000) },
	{ .name = "TB", .scale = UINT64_C(1000000000000) },
	{ .name = "KiB", .scale = UINT64_C(1) << 10 },
	{ .name = "MiB", .scale = UINT64_C(1) << 20 },
	{ .name = "GiB", .scale = UINT64_C(1) << 30 },
	{ .name = "TiB", .scale = UINT64_C(1) << 40 },
};

/* The unit whose name is the longest prefix of s (or, with whole, equals s). */
static const struct unit *find_unit(const struct unit *units, size_t n, const char *s, bool whole)
{
	const struct unit *best = NULL;
	size_t best_len = 0, i;

	for (i = 0; i < n; i++) {
		size_t len = strlen(units[i].name);
		if (whole ? strcmp(s, units[i].name) : strncmp(s, units[i].name, len))
			continue;
		if (len > best_len) {
			best = &units[i];
			best_len = len;
		}
	}
	return best;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int units_duration(const char *s, uint64_t *ns, struct err *err)
{
	const char *p = s;
	uint64_t total = 0;

	if (!*p)
		return err_set(err, ERR_INVALID, "empty");
	while (*p) {
		uint64_t whole = 0, frac = 0, frac_div = 1, part;
		const struct unit *u;
		bool digits = false;

		if (*p == '-' || *p == '+')
			return err_set(err, ERR_INVALID, "a duration has no sign");
		for (; is_digit(*p); p++, digits = true) {
			if (whole > UINT64_MAX / 10)
				return err_set(err, ERR_INVALID, "larger than 24h");
			whole = whole * 10 + (uint64_t)(*p - '0');
		}
		if (*p == '.') {
			for (p++; is_digit(*p); p++, digits = true) {
				if (frac_div < UINT64_C(1000000000000000000)) {
					frac = frac * 10 + (uint64_t)(*p - '0');
					frac_div *= 10;
				}
			}
		}
		if (!digits)
			return err_set(err, ERR_INVALID, "expected a number before the unit");
		if (!*p)
			return err_set(err, ERR_INVALID, "missing unit");
		u = find_unit(duration_units, sizeof(duration_units) / sizeof(duration_units[0]), p,
			      false);
		if (!u)
			return err_set(err, ERR_INVALID, "unknown unit \"%s\"", p);
		p += strlen(u->name);
		if (whole > UNITS_DURATION_MAX_NS / u->scale)
			return err_set(err, ERR_INVALID, "larger than 24h");
		part = whole * u->scale;
		/* frac/frac_div * scale without overflow: scale ≤ 3.6e12, so
		 * split frac_div into two factors of at most 1e9 each. */
		if (frac) {
			long double f = (long double)frac / (long double)frac_div;
			part += (uint64_t)llroundl(f * (long double)u->scale);
		}
		if (part > UNITS_DURATION_MAX_NS - total)
			return err_set(err, ERR_INVALID, "larger than 24h");
		total += part;
	}
	*ns = total;
	return 0;
}

/* A non-negative decimal "12", "1.5", ".5"; returns the end or NULL. */
static const char *parse_decimal(const char *s, double *out)
{
	const char *p = s;
	char *end;
	bool digits = false;

	for (; is_digit(*p); p++)
		digits = true;
	if (*p == '.')
		for (p++; is_digit(*p); p++)
			digits = true;
	if (!digits)
		return NULL;
	errno = 0;
	*out = strtod(s, &end);
	if (end != p || errno || !isfinite(*out))
		return NULL;
	return p;
}

int units_size(const char *s, uint64_t *bytes, struct err *err)
{
	const struct unit *u;
	const char *p;
	double v, b;

	if (*s == '-')
		return err_set(err, ERR_INVALID, "a size cannot be negative");
	p = parse_decimal(s, &v);
	if (!p)
		return err_set(err, ERR_INVALID, "expected a number before the unit");
	while (*p == ' ')
		p++;
	if (!*p)
		return err_set(err, ERR_INVALID, "missing unit");
	u = find_unit(size_units, sizeof(size_units) / sizeof(size_units[0]), p, true);
	if (!u)
		return err_set(err, ERR_INVALID, "unknown unit \"%s\"", p);
	b = v * (double)u->scale;
	if (b > (double)UNITS_SIZE_MAX_BYTES)
		return err_set(err, ERR_INVALID, "larger than 1 EiB");
	*bytes = (uint64_t)llround(b);
	return 0;
}

static bool is_word_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_word(const char *s, size_t n)
{
	size_t i;

	if (!n || !is_word_start(s[0]))
		return false;
	for (i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

static double prefix_scale(char c)
{
	switch (c) {
	case 'k':
		return 1e3;
	case 'M':
		return 1e6;
	case 'G':
		return 1e9;
	default:
		return 0;
	}
}

int units_count(const char *s, double *out, struct err *err)
{
	const char *p;
	double v, scale = 1;

	if (*s == '-')
		return err_set(err, ERR_INVALID, "a count cannot be negative");
	p = parse_decimal(s, &v);
	if (!p)
		return err_set(err, ERR_INVALID, "expected a number such as 64k, 1.5M or 2G");
	if (*p && prefix_scale(*p)) {
		scale = prefix_scale(*p);
		p++;
	}
	if (*p)
		return err_set(err, ERR_INVALID,
			       "unknown multiplier \"%s\"; expected k, M or G (10^3, 10^6, 10^9)",
			       p);
	if (v * scale > UNITS_COUNT_MAX)
		return err_set(err, ERR_INVALID, "larger than 10^18");
	*out = v * scale;
	return 0;
}

int units_rate(const char *s, struct rate *out, struct err *err)
{
	const struct unit *u;
	const char *p, *unit;
	size_t len = strlen(s), unit_len;
	double v, scale;
	char word[64];

	if (len < 2 || strcmp(s + len - 2, "/s"))
		return err_set(err, ERR_INVALID, "a rate ends in \"/s\"");
	if (*s == '-')
		return err_set(err, ERR_INVALID, "a rate cannot be negative");
	p = parse_decimal(s, &v);
	if (!p)
		return err_set(err, ERR_INVALID, "expected a number before the unit");
	unit = p;
	while (*unit == ' ')
		unit++;
	unit_len = (size_t)(s + len - 2 - unit);
	if (!unit_len)
		return err_set(err, ERR_INVALID, "missing unit");
	if (unit_len >= sizeof(word))
		return err_set(err, ERR_INVALID, "unit longer than %zu characters",
			       sizeof(word) - 1);
	memcpy(word, unit, unit_len);
	word[unit_len] = '\0';
	memset(out, 0, sizeof(*out));
	u = find_unit(size_units, sizeof(size_units) / sizeof(size_units[0]), word, true);
	if (u) {
		out->per_s = v * (double)u->scale;
		out->bytes = true;
		memcpy(out->unit, "bytes", 6);
		return 0;
	}
	/* "2.5k ops/s": a multiplier glued to the number. */
	scale = 1;
	if (unit == p && prefix_scale(*unit) && unit_len > 1 && unit[1] == ' ') {
		scale = prefix_scale(*unit);
		unit += 1;
		while (*unit == ' ')
			unit++;
		unit_len = (size_t)(s + len - 2 - unit);
		memcpy(word, unit, unit_len);
		word[unit_len] = '\0';
	}
	if (!is_word(word, unit_len))
		return err_set(err, ERR_INVALID, "unknown unit \"%s\"", word);
	out->per_s = v * scale;
	memcpy(out->unit, word, unit_len + 1);
	return 0;
}

int units_rate_in(const struct rate *r, const char *declared, double *per_s, struct err *err)
{
	if (!strcmp(r->unit, declared)) {
		*per_s = r->per_s;
		return 0;
	}
	if (!r->bytes && prefix_scale(r->unit[0]) && !strcmp(r->unit + 1, declared)) {
		*per_s = r->per_s * prefix_scale(r->unit[0]);
		return 0;
	}
	return err_set(err, ERR_INVALID, "the rate is in %s/s but the declared work is in %s",
		       r->unit, declared);
}

int units_number(const char *s, double *out, struct err *err)
{
	const char *p = s;
	char *end;
	double v;

	if (*p == '+' || *p == '-')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'o')) {
		unsigned long long u;
		int base = p[1] == 'x' ? 16 : 8;
		if (!p[2] || p[2] == '-' || p[2] == '+' || isspace((unsigned char)p[2]))
			return err_set(err, ERR_INVALID, "not a number");
		errno = 0;
		u = strtoull(p + 2, &end, base);
		if (*end || errno)
			return err_set(err, ERR_INVALID, "not a number");
		*out = (*s == '-' ? -1.0 : 1.0) * (double)u;
		return 0;
	}
	if (!is_digit(*p) && !(*p == '.' && is_digit(p[1])))
		return err_set(err, ERR_INVALID, "not a finite number");
	errno = 0;
	v = strtod(s, &end);
	if (*end || end == s)
		return err_set(err, ERR_INVALID, "not a number");
	if (!isfinite(v) || errno == ERANGE)
		return err_set(err, ERR_INVALID, "not a finite number");
	*out = v;
	return 0;
}

int units_percent(const char *s, double *fraction, struct err *err)
{
	size_t len = strlen(s);
	char buf[64];
	double v;

	if (len && s[len - 1] == '%') {
		if (len >= sizeof(buf))
			return err_set(err, ERR_INVALID, "not a percentage");
		memcpy(buf, s, len - 1);
		buf[len - 1] = '\0';
		s = buf;
	}
	if (units_number(s, &v, err) < 0)
		return err_set(err, ERR_INVALID, "not a percentage");
	*fraction = v / 100.0;
	return 0;
}

int units_percentile(const char *s, double *p, struct err *err)
{
	const char *end;
	double v, r;

	if (s[0] != 'p')
		return err_set(err, ERR_INVALID, "a percentile is p and a number");
	end = parse_decimal(s + 1, &v);
	if (!end || *end || !is_digit(s[1]))
		return err_set(err, ERR_INVALID, "a percentile is p and a number");
	r = round(v * 10.0) / 10.0;
	if (r >= 100.0)
		return err_set(err, ERR_INVALID, "%s rounds to p100", s);
	if (r < 1.0)
		return err_set(err, ERR_INVALID, "below p1");
	*p = r;
	return 0;
}
