/*
 * Unit tests of the noise guards: parsing /proc text (usual and malformed),
 * the noisy verdict and its reason in words, and the environment record.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/sysinfo.h"

#include <string.h>
#include <sys/utsname.h>

static void test_sysinfo__parses_loadavg(void **state)
{
	double load[3] = { -1, -1, -1 };

	(void)state;
	assert_int_equal(sysinfo_parse_loadavg("3.10 0.52 0.23 2/91 7990\n", load), 0);
	assert_true(load[0] > 3.09 && load[0] < 3.11);
	assert_true(load[1] > 0.51 && load[1] < 0.53);
	assert_true(load[2] > 0.22 && load[2] < 0.24);
	assert_int_equal(sysinfo_parse_loadavg("", load), -1);
	assert_int_equal(sysinfo_parse_loadavg("busy", load), -1);
	assert_int_equal(sysinfo_parse_loadavg("1.0 0.5", load), -1);
	assert_int_equal(sysinfo_parse_loadavg("-1.0 0 0", load), -1);
}

static void test_sysinfo__parses_steal_from_stat(void **state)
{
	uint64_t steal = 0, total = 0;

	(void)state;
	assert_int_equal(
		sysinfo_parse_stat("cpu  10 1 20 60 2 0 3 4 9 9\ncpu0 1 2\n", &steal, &total), 0);
	assert_int_equal(steal, 4);
	assert_int_equal(total, 100);
	assert_int_equal(sysinfo_parse_stat("cpu  1 2 3\n", &steal, &total), -1);
	assert_int_equal(sysinfo_parse_stat("intr 1 2 3 4 5 6 7 8\n", &steal, &total), -1);
	assert_int_equal(sysinfo_parse_stat("cpu  1 2 3 4 5 6 7 x\n", &steal, &total), -1);
}

static void test_sysinfo__quiet_machine_is_not_noisy(void **state)
{
	struct sysinfo_sample a = { true, { 0.5, 0, 0 }, true, 10, 1000 };
	struct sysinfo_sample b = { true, { 0.9, 0, 0 }, true, 12, 2000 };
	struct sysinfo_noise n;

	(void)state;
	sysinfo_noise(&a, &b, 2, &n);
	assert_false(n.noisy);
	assert_string_equal(n.reason, "");
	assert_true(n.has_load && n.has_steal);
	assert_true(n.load_per_cpu > 0.44 && n.load_per_cpu < 0.46);
	assert_true(n.steal_percent > 0.19 && n.steal_percent < 0.21);
}

static void test_sysinfo__load_and_steal_make_it_noisy(void **state)
{
	struct sysinfo_sample a = { true, { 3.1, 0, 0 }, true, 100, 1000 };
	struct sysinfo_sample b = { true, { 1.0, 0, 0 }, true, 175, 2000 };
	struct sysinfo_noise n;

	(void)state;
	sysinfo_noise(&a, &b, 2, &n);
	assert_true(n.noisy);
	assert_string_equal(
		n.reason,
		"load average 3.10 on 2 logical CPUs; CPU steal time 7.5% of the interval");

	a.load[0] = b.load[0] = 0.2;
	sysinfo_noise(&a, &b, 1, &n);
	assert_true(n.noisy);
	assert_string_equal(n.reason, "CPU steal time 7.5% of the interval");

	a.has_cpu = false; /* steal unreadable: only what is known is judged */
	a.load[0] = 1.5;
	sysinfo_noise(&a, &b, 1, &n);
	assert_true(n.noisy);
	assert_false(n.has_steal);
	assert_string_equal(n.reason, "load average 1.50 on 1 logical CPU");
}

static void test_sysinfo__samples_this_machine(void **state)
{
	struct sysinfo_sample s;

	(void)state;
	sysinfo_sample(&s);
	assert_true(s.has_load);
	assert_true(s.has_cpu);
	assert_true(s.total_ticks > 0);
}

static void test_sysinfo__describes_the_environment(void **state)
{
	struct sysinfo_env env;
	struct utsname u;

	(void)state;
	assert_int_equal(uname(&u), 0);
	sysinfo_environment(&env);
	assert_string_equal(env.os, "linux");
	assert_string_equal(env.arch, u.machine);
	assert_string_equal(env.kernel, u.release);
	assert_true(env.logical_cpus >= 1);
	assert_int_equal(strncmp(env.libc, "glibc 2.", 8), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysinfo__parses_loadavg),
		cmocka_unit_test(test_sysinfo__parses_steal_from_stat),
		cmocka_unit_test(test_sysinfo__quiet_machine_is_not_noisy),
		cmocka_unit_test(test_sysinfo__load_and_steal_make_it_noisy),
		cmocka_unit_test(test_sysinfo__samples_this_machine),
		cmocka_unit_test(test_sysinfo__describes_the_environment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
