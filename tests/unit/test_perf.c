/*
 * Tests of the perf backend: the probe of the hardware counter, and the
 * count a run request asks for (spawner/run.h), through the public measuring
 * API, in the spawner and in-process. Where the instructions counter opens
 * (bare metal, most laptops) the probe must count at least its loop; where
 * it does not (this virtual machine, most hosted CI runners) the probe says
 * why, and the test prints that as its skip reason. The count of a run is
 * checked with a software event (the task clock), which virtual machines
 * allow: the event is a parameter of the request, so this is the same path
 * that counts instructions (docs/design.md, "Measuring a run": counting with perf).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "measure/measure.h"
#include "measure/perf.h"
#include "spawner/proto.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREFIX "the instructions counter is not available: "
#define MS     1000000ull

static bool modes[2] = { true, false }; /* through the spawner, in-process */

static void test_perf__probe_counts_or_says_why(void **state)
{
	struct err err = ERR_INIT;
	uint64_t counted = 0;
	int rc;

	(void)state;
	rc = perf_probe_instructions(&counted, &err);
	if (rc != 0) {
		assert_int_equal(rc, ERR_METRIC);
		assert_memory_equal(err.msg, PREFIX, strlen(PREFIX));
		assert_true(strlen(err.msg) > strlen(PREFIX));
		printf("[ SKIPPED  ] perf backend: %s\n", err.msg);
		skip();
	}
	assert_true(counted >= 100000); /* at least one instruction per iteration */
}

/* <build>/<name>, from this test binary's path, <build>/tests/test_perf. */
static char *build_path(const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	return xasprintf("%s/%s", dirname(dirname(exe)), name);
}

static struct measurer *new_measurer(bool use_spawner)
{
	struct measurer_options o = MEASURER_OPTIONS_INIT;
	struct err err = ERR_INIT;
	struct measurer *m = NULL;
	char *path = build_path("himorime-spawner");

	o.spawner_path = path;
	o.use_spawner = use_spawner;
	assert_int_equal(measurer_new(&o, &m, &err), 0);
	assert_int_equal(measurer_uses_spawner(m), use_spawner);
	free(path);
	return m;
}

/* One run of argv counting the task clock (ns of CPU, user space). */
static void run_counting(struct measurer *m, char **argv, struct run_result *res)
{
	struct run_request req = { .argv = argv, .count = true };
	struct err err = ERR_INIT;

	req.count_type = PERF_TYPE_SOFTWARE;
	req.count_config = PERF_COUNT_SW_TASK_CLOCK;
	assert_int_equal(measurer_run(m, &req, 1, res, &err), 1);
	assert_int_equal(res->status, RUN_EXITED);
	assert_int_equal(res->code, 0);
	if (res->count_status == COUNT_OPEN_FAILED) {
		printf("[ SKIPPED  ] the task clock event does not open here: %s\n",
		       strerror(res->count_error));
		skip();
	}
	assert_int_equal(res->count_status, COUNT_OK);
}

static void test_perf__a_count_includes_the_commands_children(void **state)
{
	struct measurer *m = new_measurer(*(bool *)*state);
	char *burn = build_path("tests/helpers/burn_child");
	char *noop = build_path("tests/helpers/noop_static");
	char *burn50[] = { burn, "50", NULL };
	char *none[] = { noop, NULL };
	struct run_result res;

	/* The child's 50 ms of CPU are in the count, not only its parent's wait. */
	run_counting(m, burn50, &res);
	assert_true(res.count >= 40 * MS);
	assert_true(res.count <= res.wall_ns + 5 * MS);
	assert_true(res.count_enabled_ns > 0);
	assert_true(res.count_running_ns <= res.count_enabled_ns);
	/* A static program that does nothing counts next to nothing. */
	run_counting(m, none, &res);
	assert_true(res.count < 10 * MS);
	free(burn);
	free(noop);
	measurer_free(m);
}

static void test_perf__a_count_that_cannot_open_leaves_the_run_measured(void **state)
{
	struct measurer *m = new_measurer(*(bool *)*state);
	char *noop = build_path("tests/helpers/noop_static");
	char *argv[] = { noop, NULL };
	char *missing[] = { "/nonexistent/himorime-program", NULL };
	struct run_request req = { .argv = argv, .count = true };
	struct err err = ERR_INIT;
	struct run_result res;

	/* An event type no kernel knows. */
	req.count_type = 0x7fff0000u;
	assert_int_equal(measurer_run(m, &req, 1, &res, &err), 1);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 0);
	assert_true(res.wall_ns > 0);
	assert_int_equal(res.count_status, COUNT_OPEN_FAILED);
	assert_int_equal(res.count_error, ENOENT);
	assert_int_equal(res.count, 0);
	/* Nothing asked, nothing counted; a command that never started, no count. */
	req.count = false;
	assert_int_equal(measurer_run(m, &req, 1, &res, &err), 1);
	assert_int_equal(res.count_status, COUNT_NONE);
	req.count = true;
	req.count_type = PERF_TYPE_SOFTWARE;
	req.count_config = PERF_COUNT_SW_TASK_CLOCK;
	req.argv = missing;
	assert_int_equal(measurer_run(m, &req, 1, &res, &err), 1);
	assert_int_equal(res.status, RUN_START_FAILED);
	assert_int_equal(res.count_status, COUNT_NONE);
	free(noop);
	measurer_free(m);
}

/* The count travels both ways on the spawner's wire (spawner/proto.h). */
static void test_perf__the_protocol_carries_counts(void **state)
{
	char *argv[] = { "prog", NULL };
	struct run_request req = { .argv = argv, .count = true, .count_type = 4 };
	struct run_result res = { .status = RUN_EXITED, .count_status = COUNT_OK };
	struct run_request back;
	struct run_result got;
	unsigned char wire[PROTO_RESULT_SIZE];
	uint32_t id = 0, runs = 0, bad = COUNT_READ_FAILED + 1;
	char **vec = NULL, *payload = NULL;
	size_t len;

	(void)state;
	req.count_config = 0x1234567890ull;
	assert_int_equal(proto_encode_run(7, &req, 1, &payload, &len), 0);
	memset(&back, 0, sizeof(back));
	assert_int_equal(proto_decode_run(payload, len, &id, &back, &runs, &vec), 0);
	assert_true(back.count);
	assert_false(back.terminal);
	assert_int_equal(back.count_type, 4);
	assert_int_equal(back.count_config, 0x1234567890ull);
	free(vec);
	free(payload);
	res.count_error = EMFILE;
	res.count = 5000000000ull;
	res.count_enabled_ns = 300;
	res.count_running_ns = 200;
	proto_encode_result(7, &res, wire);
	assert_int_equal(proto_decode_result(wire, &id, &got), 0);
	assert_int_equal(got.count_status, COUNT_OK);
	assert_int_equal(got.count_error, EMFILE);
	assert_int_equal(got.count, 5000000000ull);
	assert_int_equal(got.count_enabled_ns, 300);
	assert_int_equal(got.count_running_ns, 200);
	memcpy(wire + 56, &bad, 4); /* a count status out of range */
	assert_int_equal(proto_decode_result(wire, &id, &got), EPROTO);
}

/* What a run's count of instructions becomes: the count, or why there is none. */
static void test_perf__a_runs_instructions_or_why_not(void **state)
{
	struct run_result res = { .count_status = COUNT_OK, .count = 1234 };
	struct err err = ERR_INIT;
	uint64_t n = 9;

	(void)state;
	res.count_enabled_ns = res.count_running_ns = 50;
	assert_int_equal(perf_run_instructions(&res, &n, &err), 0);
	assert_int_equal(n, 1234);
	res.count_running_ns = 0; /* multiplexed out for the whole run */
	assert_int_equal(perf_run_instructions(&res, &n, &err), ERR_METRIC);
	assert_string_equal(err.msg, "the instructions counter never ran: other events held the "
				     "hardware counters for the whole run");
	assert_int_equal(n, 0);
	res.count_status = COUNT_OPEN_FAILED;
	res.count_error = EMFILE;
	assert_int_equal(perf_run_instructions(&res, &n, &err), ERR_METRIC);
	assert_string_equal(err.msg, "the instructions counter did not open for a run: "
				     "perf_event_open: Too many open files");
	res.count_error = ENOENT;
	assert_int_equal(perf_run_instructions(&res, &n, &err), ERR_METRIC);
	assert_string_equal(err.msg, "the instructions counter did not open for a run: "
				     "perf_event_open: No such file or directory (no hardware "
				     "counters here: a virtual machine?)");
	res.count_status = COUNT_READ_FAILED;
	res.count_error = 0;
	assert_int_equal(perf_run_instructions(&res, &n, &err), ERR_METRIC);
	assert_string_equal(err.msg, "the instructions counter could not be read after a run: "
				     "a short read");
	res.count_status = COUNT_NONE;
	assert_int_equal(perf_run_instructions(&res, &n, &err), ERR_METRIC);
	assert_string_equal(err.msg, "a run returned no count of instructions");
}

/* In a duet each side counts its own tree: the vfork child inherits the
 * starter's event, the twin has one of its own, opened on it before its
 * go. 200 ms and 50 ms of a child's CPU, either way round (the CPUs
 * swapped, so each side is once the twin). */
static void test_perf__a_duet_counts_each_side_apart(void **state)
{
	struct measurer *m = new_measurer(*(bool *)*state);
	char *burn = build_path("tests/helpers/burn_child");
	char *burn200[] = { burn, "200", NULL };
	char *burn50[] = { burn, "50", NULL };
	struct duet_request d = { .side = { { .argv = burn200 }, { .argv = burn50 } } };
	struct duet_result res;
	struct err err = ERR_INIT;
	int cpu[2], k, i;

	if (measurer_duet_cpus(cpu, &err) != 0) {
		printf("[ SKIPPED  ] %s\n", err.msg);
		skip();
	}
	for (i = 0; i < 2; i++) {
		d.side[i].count = true;
		d.side[i].count_type = PERF_TYPE_SOFTWARE;
		d.side[i].count_config = PERF_COUNT_SW_TASK_CLOCK;
	}
	for (k = 0; k < 2; k++) {
		d.cpu[0] = cpu[k];
		d.cpu[1] = cpu[1 - k];
		assert_int_equal(measurer_duet(m, &d, &res, &err), 0);
		for (i = 0; i < 2; i++) {
			assert_int_equal(res.side[i].status, RUN_EXITED);
			assert_int_equal(res.side[i].code, 0);
			if (res.side[i].count_status == COUNT_OPEN_FAILED) {
				printf("[ SKIPPED  ] the task clock event does not open here: %s\n",
				       strerror(res.side[i].count_error));
				skip();
			}
			assert_int_equal(res.side[i].count_status, COUNT_OK);
		}
		assert_true(res.side[0].count >= 190 * MS);
		assert_true(res.side[0].count < 280 * MS);
		assert_true(res.side[1].count >= 45 * MS);
		assert_true(res.side[1].count < 130 * MS);
	}
	free(burn);
	measurer_free(m);
}

#define BOTH(fn) cmocka_unit_test_prestate(fn, &modes[0]), cmocka_unit_test_prestate(fn, &modes[1])

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf__probe_counts_or_says_why),
		cmocka_unit_test(test_perf__the_protocol_carries_counts),
		cmocka_unit_test(test_perf__a_runs_instructions_or_why_not),
		BOTH(test_perf__a_count_includes_the_commands_children),
		BOTH(test_perf__a_count_that_cannot_open_leaves_the_run_measured),
		BOTH(test_perf__a_duet_counts_each_side_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
