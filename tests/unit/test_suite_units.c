/*
 * Unit tests of the suite's value parsers: durations, byte sizes, rates,
 * percentages and percentile names, with their boundaries and overflows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "suite/units.h"

#include <math.h>
#include <string.h>

static uint64_t dur(const char *s)
{
	struct err err = ERR_INIT;
	uint64_t ns = 0;

	assert_int_equal(units_duration(s, &ns, &err), 0);
	return ns;
}

static const char *dur_err(const char *s)
{
	static struct err err;
	uint64_t ns;

	err_clear(&err);
	assert_int_equal(units_duration(s, &ns, &err), ERR_INVALID);
	return err.msg;
}

static void test_suite_units__durations(void **state)
{
	(void)state;
	assert_true(dur("1ns") == 1);
	assert_true(dur("250ms") == 250000000);
	assert_true(dur("90us") == 90000);
	assert_true(dur("90\xc2\xb5s") == 90000);
	assert_true(dur("90\xce\xbcs") == 90000);
	assert_true(dur("1m30s") == UINT64_C(90000000000));
	assert_true(dur("1h1m1s1ms1us1ns") == UINT64_C(3661001001001));
	assert_true(dur("1.5s") == 1500000000);
	assert_true(dur("1.000000001s") == 1000000001);
	assert_true(dur("0s") == 0);
	assert_true(dur("24h") == UNITS_DURATION_MAX_NS);
	assert_true(dur("1440m") == UNITS_DURATION_MAX_NS);
}

static void test_suite_units__duration_errors(void **state)
{
	(void)state;
	assert_string_equal(dur_err("10"), "missing unit");
	assert_string_equal(dur_err("0"), "missing unit");
	assert_string_equal(dur_err("1m30"), "missing unit");
	assert_string_equal(dur_err(""), "empty");
	assert_string_equal(dur_err("-1s"), "a duration has no sign");
	assert_string_equal(dur_err("24h1ns"), "larger than 24h");
	assert_string_equal(dur_err("25h"), "larger than 24h");
	assert_string_equal(dur_err("99999999999999999999999h"), "larger than 24h");
	assert_string_equal(dur_err("18446744073709551615ns"), "larger than 24h");
	assert_string_equal(dur_err("5 s"), "unknown unit \" s\"");
	assert_string_equal(dur_err("5d"), "unknown unit \"d\"");
	assert_string_equal(dur_err("5S"), "unknown unit \"S\"");
	assert_string_equal(dur_err("ms"), "expected a number before the unit");
}

static uint64_t size(const char *s)
{
	struct err err = ERR_INIT;
	uint64_t b = 0;

	assert_int_equal(units_size(s, &b, &err), 0);
	return b;
}

static void test_suite_units__sizes(void **state)
{
	struct err err = ERR_INIT;
	uint64_t b;

	(void)state;
	assert_true(size("0B") == 0);
	assert_true(size("512B") == 512);
	assert_true(size("10 bytes") == 10);
	assert_true(size("1KB") == 1000);
	assert_true(size("1.5MB") == 1500000);
	assert_true(size("2GB") == UINT64_C(2000000000));
	assert_true(size("3TB") == UINT64_C(3000000000000));
	assert_true(size("1KiB") == 1024);
	assert_true(size("64MiB") == UINT64_C(67108864));
	assert_true(size("1GiB") == UINT64_C(1073741824));
	assert_true(size("1TiB") == UINT64_C(1099511627776));
	assert_true(size("1048576TiB") == UNITS_SIZE_MAX_BYTES);
	assert_int_equal(units_size("1048577TiB", &b, &err), ERR_INVALID);
	assert_string_equal(err.msg, "larger than 1 EiB");
	assert_int_equal(units_size("10mb", &b, &err), ERR_INVALID);
	assert_string_equal(err.msg, "unknown unit \"mb\"");
	assert_int_equal(units_size("10kib", &b, &err), ERR_INVALID);
	assert_int_equal(units_size("10", &b, &err), ERR_INVALID);
	assert_string_equal(err.msg, "missing unit");
	assert_int_equal(units_size("-1B", &b, &err), ERR_INVALID);
	assert_int_equal(units_size("MiB", &b, &err), ERR_INVALID);
	assert_int_equal(units_size("1e400B", &b, &err), ERR_INVALID);
}

static void test_suite_units__rates(void **state)
{
	struct err err = ERR_INIT;
	struct rate r;
	double v;

	(void)state;
	assert_int_equal(units_rate("50MiB/s", &r, &err), 0);
	assert_true(r.bytes);
	assert_string_equal(r.unit, "bytes");
	assert_true(r.per_s == 50.0 * 1048576);
	assert_int_equal(units_rate("1000 records/s", &r, &err), 0);
	assert_false(r.bytes);
	assert_string_equal(r.unit, "records");
	assert_true(r.per_s == 1000);
	assert_int_equal(units_rate("2.5k ops/s", &r, &err), 0);
	assert_true(r.per_s == 2500);
	assert_int_equal(units_rate("3M ops/s", &r, &err), 0);
	assert_true(r.per_s == 3e6);
	assert_int_equal(units_rate("1G ops/s", &r, &err), 0);
	assert_true(r.per_s == 1e9);
	assert_int_equal(units_rate_in(&r, "ops", &v, &err), 0);
	assert_true(v == 1e9);
	assert_int_equal(units_rate("2 krecords/s", &r, &err), 0);
	assert_int_equal(units_rate_in(&r, "records", &v, &err), 0);
	assert_true(v == 2000);
	assert_int_equal(units_rate_in(&r, "ops", &v, &err), ERR_INVALID);
	assert_string_equal(err.msg, "the rate is in krecords/s but the declared work is in ops");
	assert_int_equal(units_rate("10 MiB/s", &r, &err), 0);
	assert_int_equal(units_rate_in(&r, "bytes", &v, &err), 0);
	assert_true(v == 10.0 * 1048576);
	assert_int_equal(units_rate("10 records", &r, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a rate ends in \"/s\"");
	assert_int_equal(units_rate("10/s", &r, &err), ERR_INVALID);
	assert_string_equal(err.msg, "missing unit");
	assert_int_equal(units_rate("-1 ops/s", &r, &err), ERR_INVALID);
	assert_int_equal(units_rate("x ops/s", &r, &err), ERR_INVALID);
	assert_int_equal(units_rate("1 o p s/s", &r, &err), ERR_INVALID);
}

static void test_suite_units__counts(void **state)
{
	struct err err = ERR_INIT;
	double v = -1;

	(void)state;
	assert_int_equal(units_count("100", &v, &err), 0);
	assert_true(v == 100.0);
	assert_int_equal(units_count("64k", &v, &err), 0);
	assert_true(v == 64000.0);
	assert_int_equal(units_count("1.5M", &v, &err), 0);
	assert_true(v == 1500000.0);
	assert_int_equal(units_count("2G", &v, &err), 0);
	assert_true(v == 2e9);
	assert_int_equal(units_count("0", &v, &err), 0);
	assert_true(v == 0.0);
	assert_int_equal(units_count("1000000000G", &v, &err), 0);
	assert_true(v == 1e18);
	assert_int_equal(units_count("1000000001G", &v, &err), ERR_INVALID);
	assert_string_equal(err.msg, "larger than 10^18");
	assert_int_equal(units_count("-1k", &v, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a count cannot be negative");
	assert_int_equal(units_count("k", &v, &err), ERR_INVALID);
	assert_string_equal(err.msg, "expected a number such as 64k, 1.5M or 2G");
	assert_int_equal(units_count("10 k", &v, &err), ERR_INVALID);
	assert_string_equal(err.msg,
			    "unknown multiplier \" k\"; expected k, M or G (10^3, 10^6, 10^9)");
	assert_int_equal(units_count("10K", &v, &err), ERR_INVALID);
	assert_string_equal(err.msg,
			    "unknown multiplier \"K\"; expected k, M or G (10^3, 10^6, 10^9)");
	assert_int_equal(units_count("10kB", &v, &err), ERR_INVALID);
	assert_string_equal(err.msg,
			    "unknown multiplier \"B\"; expected k, M or G (10^3, 10^6, 10^9)");
}

static double pct(const char *s)
{
	struct err err = ERR_INIT;
	double f = -1;

	assert_int_equal(units_percent(s, &f, &err), 0);
	return f;
}

static void test_suite_units__percentages(void **state)
{
	struct err err = ERR_INIT;
	double f;

	(void)state;
	assert_true(fabs(pct("10") - 0.10) < 1e-15);
	assert_true(fabs(pct("10%") - 0.10) < 1e-15);
	assert_true(fabs(pct("2.5%") - 0.025) < 1e-15);
	assert_true(pct("0") == 0);
	assert_true(pct("0%") == 0);
	assert_true(fabs(pct("1000%") - 10) < 1e-12);
	assert_int_equal(units_percent("%", &f, &err), ERR_INVALID);
	assert_int_equal(units_percent("ten%", &f, &err), ERR_INVALID);
	assert_int_equal(units_percent(".inf", &f, &err), ERR_INVALID);
	assert_int_equal(units_percent(".nan%", &f, &err), ERR_INVALID);
	assert_int_equal(units_percent("10 %", &f, &err), ERR_INVALID);
	assert_int_equal(units_percent("1e999", &f, &err), ERR_INVALID);
}

static void test_suite_units__percentiles(void **state)
{
	struct err err = ERR_INIT;
	double p;

	(void)state;
	assert_int_equal(units_percentile("p95", &p, &err), 0);
	assert_true(p == 95);
	assert_int_equal(units_percentile("p99.9", &p, &err), 0);
	assert_true(p == 99.9);
	assert_int_equal(units_percentile("p1", &p, &err), 0);
	assert_true(p == 1);
	assert_int_equal(units_percentile("p99.94", &p, &err), 0);
	assert_true(p == 99.9);
	assert_int_equal(units_percentile("p99.95", &p, &err), ERR_INVALID);
	assert_string_equal(err.msg, "p99.95 rounds to p100");
	assert_int_equal(units_percentile("p100", &p, &err), ERR_INVALID);
	assert_int_equal(units_percentile("p0.5", &p, &err), ERR_INVALID);
	assert_string_equal(err.msg, "below p1");
	assert_int_equal(units_percentile("p", &p, &err), ERR_INVALID);
	assert_int_equal(units_percentile("P95", &p, &err), ERR_INVALID);
	assert_int_equal(units_percentile("p9x", &p, &err), ERR_INVALID);
	assert_int_equal(units_percentile("p.5", &p, &err), ERR_INVALID);
}

static void test_suite_units__numbers(void **state)
{
	struct err err = ERR_INIT;
	double v;

	(void)state;
	assert_int_equal(units_number("0x1F", &v, &err), 0);
	assert_true(v == 31);
	assert_int_equal(units_number("0o17", &v, &err), 0);
	assert_true(v == 15);
	assert_int_equal(units_number("-2.5e1", &v, &err), 0);
	assert_true(v == -25);
	assert_int_equal(units_number(".inf", &v, &err), ERR_INVALID);
	assert_int_equal(units_number("nan", &v, &err), ERR_INVALID);
	assert_int_equal(units_number("0x", &v, &err), ERR_INVALID);
	assert_int_equal(units_number("", &v, &err), ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_units__durations),
		cmocka_unit_test(test_suite_units__duration_errors),
		cmocka_unit_test(test_suite_units__sizes),
		cmocka_unit_test(test_suite_units__rates),
		cmocka_unit_test(test_suite_units__counts),
		cmocka_unit_test(test_suite_units__percentages),
		cmocka_unit_test(test_suite_units__percentiles),
		cmocka_unit_test(test_suite_units__numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
