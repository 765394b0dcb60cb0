/*
 * The counting backends of the measurer (measure/counter.h), with the real
 * perf probe and the real valgrind: which backend a command's ask gets here,
 * valgrind found when the measurer starts and never again, a counted run's
 * timeout stretched under valgrind and only there, and a failed run named by
 * its backend.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "measure/counter.h"
#include "measure/helper.h"
#include "measure/measure.h"
#include "measure/perf.h"

#include "scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const int success[] = { 0 };

/* An empty directory for valgrind's out files. */
static char *out_dir(const char *name)
{
	char *dir = xasprintf("%s/%s", scratch_dir, name);

	assert_int_equal(mkdir(dir, 0700), 0);
	return dir;
}

static int count(const char *const *argv, enum count_what what, bool perf, uint64_t timeout_ns,
		 uint64_t counts[2], struct strbuf *why)
{
	struct run_request req = { .argv = (char **)argv, .timeout_ns = timeout_ns };
	char *dir = out_dir(what == COUNT_INSTRUCTIONS ? (perf ? "p" : "i") : "a");
	struct count_request cr = { .run = &req,
				    .what = what,
				    .perf = perf,
				    .dir = dir,
				    .exit_codes = success,
				    .n_exit_codes = 1 };
	struct err err = ERR_INIT;
	int rc = counter_run(scratch_measurer, &cr, counts, why, &err);

	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	free(dir);
	return rc;
}

/* What each ask gets on this machine: perf when asked (or auto) and its
 * probe counts, else valgrind; allocations are valgrind's whatever is
 * asked; `perf` with no counter says why. */
static void test_counter__each_ask_gets_the_backend_that_counts_here(void **state)
{
	struct err probe = ERR_INIT;
	struct counter_choice c;
	uint64_t counted;
	bool perf_counts = perf_probe_instructions(&counted, &probe) == 0;
	char *expected;

	(void)state;
	counter_choose(scratch_measurer, COUNTER_PERF, COUNT_INSTRUCTIONS, NULL, &c);
	assert_int_equal(c.perf, perf_counts);
	if (perf_counts) {
		assert_string_equal(c.name, "perf");
		assert_string_equal(c.event[0], PERF_INSTRUCTIONS_EVENT);
		assert_non_null(c.version);
	} else {
		expected = xasprintf("backend perf: %s", probe.msg);
		assert_null(c.version);
		assert_string_equal(c.why, expected);
		free(expected);
	}
	counter_choice_release(&c);
	counter_choose(scratch_measurer, COUNTER_AUTO, COUNT_INSTRUCTIONS, NULL, &c);
	assert_int_equal(c.perf, perf_counts);
	assert_string_equal(c.name, perf_counts ? "perf" : "valgrind");
	assert_non_null(c.version);
	counter_choice_release(&c);
	counter_choose(scratch_measurer, COUNTER_VALGRIND, COUNT_INSTRUCTIONS, NULL, &c);
	assert_false(c.perf);
	assert_string_equal(c.name, "valgrind");
	assert_string_equal(c.event[0], "Ir");
	assert_true(c.version && c.version[0] >= '3' && c.version[0] <= '9');
	counter_choice_release(&c);
	counter_choose(scratch_measurer, COUNTER_PERF, COUNT_ALLOCATIONS, NULL, &c);
	assert_false(c.perf);
	assert_string_equal(c.name, "valgrind");
	assert_string_equal(c.event[0], "tbk");
	assert_string_equal(c.event[1], "tb");
	assert_non_null(c.version);
	counter_choice_release(&c);
}

/* valgrind is looked up once, when the measurer starts (the measured code
 * may write the PATH entries later: docs/github-actions.md, "Threat
 * model"): one planted in a place the measured code writes is refused then,
 * and a trusted one put on PATH afterwards is never taken. */
static void test_counter__valgrind_is_found_when_the_measurer_starts_only(void **state)
{
	struct measurer_options o = MEASURER_OPTIONS_INIT;
	struct err err = ERR_INIT, found = ERR_INIT;
	char *planted = xasprintf("%s/bin", scratch_dir);
	char *program = xasprintf("%s/valgrind", planted);
	char *path = xstrdup(getenv("PATH")), *expected, *out = NULL;
	struct counter_choice c;
	struct measurer *m;
	const char *why;
	char *cp[] = { (char *)"cp", (char *)"/bin/true", program, NULL };

	(void)state;
	assert_int_equal(mkdir(planted, 0755), 0);
	assert_int_equal(scratch_run(cp, NULL), 0);
	assert_int_equal(helper_find("valgrind", planted, &out, &found), ERR_METRIC);
	expected = xasprintf("valgrind is not available: %s", found.msg);
	o.use_spawner = false;
	assert_int_equal(setenv("PATH", planted, 1), 0);
	assert_int_equal(measurer_new(&o, &m, &err), 0);
	assert_int_equal(setenv("PATH", path, 1), 0);
	assert_null(measurer_valgrind(m, &why));
	assert_string_equal(why, expected);
	counter_choose(m, COUNTER_VALGRIND, COUNT_INSTRUCTIONS, NULL, &c);
	assert_null(c.version);
	assert_string_equal(c.why, expected);
	counter_choice_release(&c);
	measurer_free(m);
	free(expected);
	free(path);
	free(program);
	free(planted);
}

/* A counted run under valgrind counts the command's instructions, and its
 * heap blocks and bytes. */
static void test_counter__valgrind_counts_instructions_and_allocations(void **state)
{
	static const char *const argv[] = { "/bin/ls", "/", NULL };
	uint64_t counts[2];
	struct strbuf why;

	(void)state;
	strbuf_init(&why, 0);
	assert_int_equal(
		count(argv, COUNT_INSTRUCTIONS, false, 60 * UINT64_C(1000000000), counts, &why), 0);
	assert_true(counts[0] > 10000);
	assert_true(counts[1] == 0);
	assert_int_equal(
		count(argv, COUNT_ALLOCATIONS, false, 60 * UINT64_C(1000000000), counts, &why), 0);
	assert_true(counts[0] > 0);
	assert_true(counts[1] > counts[0]);
	assert_int_equal(why.len, 0);
	strbuf_release(&why);
}

/* Under valgrind a run may take COUNTER_SLOWDOWN_HIGH times the command's
 * timeout (a 1 s sleep fits in 0.4 s stretched to 20 s: room for valgrind's
 * start on a loaded machine, which once took over 4 s); counting with perf
 * runs the command as it is, with its own timeout. */
static void test_counter__only_valgrind_stretches_the_timeout(void **state)
{
	static const char *const argv[] = { "/bin/sleep", "1", NULL };
	uint64_t counts[2];
	struct strbuf why;

	(void)state;
	strbuf_init(&why, 0);
	assert_int_equal(
		count(argv, COUNT_INSTRUCTIONS, false, 400 * UINT64_C(1000000), counts, &why), 0);
	assert_int_equal(why.len, 0);
	assert_int_equal(
		count(argv, COUNT_INSTRUCTIONS, true, 400 * UINT64_C(1000000), counts, &why),
		ERR_METRIC);
	assert_string_equal(why.buf, "counting instructions, the command timed out after 0.4s");
	strbuf_release(&why);
}

/* A run that ends otherwise than with an accepted exit code counts nothing,
 * and says which backend ran it. */
static void test_counter__a_failed_run_is_named_by_its_backend(void **state)
{
	static const char *const argv[] = { "/bin/false", NULL };
	uint64_t counts[2];
	struct strbuf why;

	(void)state;
	strbuf_init(&why, 0);
	assert_int_equal(
		count(argv, COUNT_INSTRUCTIONS, false, 60 * UINT64_C(1000000000), counts, &why),
		ERR_METRIC);
	assert_string_equal(why.buf, "under valgrind, the command exited with code 1");
	assert_true(counts[0] == 0);
	strbuf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter__each_ask_gets_the_backend_that_counts_here),
		cmocka_unit_test(test_counter__valgrind_is_found_when_the_measurer_starts_only),
		cmocka_unit_test(test_counter__valgrind_counts_instructions_and_allocations),
		cmocka_unit_test(test_counter__only_valgrind_stretches_the_timeout),
		cmocka_unit_test(test_counter__a_failed_run_is_named_by_its_backend),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
