/*
 * Human formatting of durations, sizes, rates and changes: exact strings,
 * including the unit boundaries where rounding could print "1000 ns".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "render/format.h"

#define CHECK(call, expected)                                                                      \
	do {                                                                                       \
		struct strbuf sb;                                                                  \
		strbuf_init(&sb, 0);                                                               \
		call;                                                                              \
		assert_string_equal(sb.buf, expected);                                             \
		strbuf_release(&sb);                                                               \
	} while (0)

static void test_format__zero_duration_prints_0_ns(void **state)
{
	(void)state;
	CHECK(fmt_duration(&sb, 0), "0 ns");
	CHECK(fmt_duration(&sb, -0.0), "0 ns");
	CHECK(fmt_duration(&sb, 0.4), "0.40 ns");
}

static void test_format__durations(void **state)
{
	(void)state;
	CHECK(fmt_duration(&sb, 950), "950 ns");
	CHECK(fmt_duration(&sb, 999.4), "999 ns");
	CHECK(fmt_duration(&sb, 999.6), "1.00 µs");
	CHECK(fmt_duration(&sb, 1460000), "1.46 ms");
	CHECK(fmt_duration(&sb, 41.24e6), "41.2 ms");
	CHECK(fmt_duration(&sb, 2.314e9), "2.31 s");
	CHECK(fmt_duration(&sb, 1500e9), "1500 s");
}

static void test_format__bytes(void **state)
{
	(void)state;
	CHECK(fmt_bytes(&sb, 512), "512 B");
	CHECK(fmt_bytes(&sb, 1023), "1023 B");
	CHECK(fmt_bytes(&sb, 1024), "1.00 KiB");
	CHECK(fmt_bytes(&sb, 612 * 1024.0), "612 KiB");
	CHECK(fmt_bytes(&sb, 18.4 * 1048576), "18.4 MiB");
	CHECK(fmt_bytes(&sb, 1048575), "1.00 MiB");
}

static void test_format__counts(void **state)
{
	(void)state;
	CHECK(fmt_count(&sb, 0, "instructions"), "0 instructions");
	CHECK(fmt_count(&sb, 812, "instructions"), "812 instructions");
	CHECK(fmt_count(&sb, 999.6, "instructions"), "1.00 k instructions");
	CHECK(fmt_count(&sb, 6190253, "instructions"), "6.19 M instructions");
	CHECK(fmt_count(&sb, 1.234e9, "instructions"), "1.23 G instructions");
	CHECK(fmt_count(&sb, 999.96e6, "instructions"), "1.00 G instructions");
	CHECK(fmt_count(&sb, 2.5e12, "instructions"), "2.50 T instructions");
	CHECK(fmt_metric(&sb, METRIC_INSTRUCTIONS, 6190253, NULL), "6.19 M instructions");
}

static void test_format__one_allocation_is_singular(void **state)
{
	(void)state;
	CHECK(fmt_count(&sb, 1, "allocations"), "1 allocation");
	CHECK(fmt_count(&sb, 1.4, "allocations"), "1 allocation");
	CHECK(fmt_count(&sb, -1, "instructions"), "-1 instruction");
	CHECK(fmt_count(&sb, 0.4, "allocations"), "0 allocations");
	CHECK(fmt_count(&sb, 2, "allocations"), "2 allocations");
	CHECK(fmt_count(&sb, 1000, "allocations"), "1.00 k allocations");
	CHECK(fmt_metric(&sb, METRIC_ALLOCATIONS, 1, NULL), "1 allocation");
}

static void test_format__rates(void **state)
{
	(void)state;
	CHECK(fmt_rate(&sb, 50.0 * 1048576, "bytes"), "50.0 MiB/s");
	CHECK(fmt_rate(&sb, 12345, "records"), "12.3k records/s");
	CHECK(fmt_rate(&sb, 999, "operations"), "999 operations/s");
	CHECK(fmt_rate(&sb, 2.5e9, "lines"), "2.50G lines/s");
}

static void test_format__changes(void **state)
{
	(void)state;
	CHECK(fmt_change(&sb, 16.26, false), "+16.3%");
	CHECK(fmt_change(&sb, -1.94, false), "-1.9%");
	CHECK(fmt_change(&sb, -1.94, true), "\xe2\x88\x92"
					    "1.9%");
	CHECK(fmt_change(&sb, 0.04, false), "0.0%");
	CHECK(fmt_change(&sb, -0.04, true), "0.0%");
}

static void test_format__metric_dispatch(void **state)
{
	(void)state;
	CHECK(fmt_metric(&sb, METRIC_LATENCY, 2e6, NULL), "2.00 ms");
	CHECK(fmt_metric(&sb, METRIC_PEAK_RSS, 2097152, NULL), "2.00 MiB");
	CHECK(fmt_metric(&sb, METRIC_CPU_UTILIZATION, 98.76, NULL), "98.8%");
	CHECK(fmt_metric(&sb, METRIC_THROUGHPUT, 1500, "files"), "1.50k files/s");
}

static void test_format__width_counts_code_points(void **state)
{
	(void)state;
	assert_int_equal(fmt_width("abc"), 3);
	assert_int_equal(fmt_width("≤ 1.6 MiB"), 9);
	assert_int_equal(fmt_width("\xe2\x88\x92"
				   "1.9%"),
			 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format__durations),
		cmocka_unit_test(test_format__zero_duration_prints_0_ns),
		cmocka_unit_test(test_format__bytes),
		cmocka_unit_test(test_format__counts),
		cmocka_unit_test(test_format__one_allocation_is_singular),
		cmocka_unit_test(test_format__rates),
		cmocka_unit_test(test_format__changes),
		cmocka_unit_test(test_format__metric_dispatch),
		cmocka_unit_test(test_format__width_counts_code_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
