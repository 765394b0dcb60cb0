/*
 * The long run of a benchmark with sizes, its drift check
 * (docs/configuration.md, "Sizes"), through the engine's seam: a scripted
 * measurer whose runs last by the size in their first argument, so that a
 * size fits its 30 runs in 60 s or does not, without a process or a clock.
 * Asserted: how many runs each size gets (the stop rule, schedule.h), which
 * case the document names as the long run and why (engine/longrun.c), and
 * that a command whose runs keep growing is flagged there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/fsio.h"
#include "engine/runner.h"
#include "engine/schedule.h"
#include "plan/plan.h"
#include "results/results.h"
#include "spawner/run.h"
#include "suite/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROOT "/himorime-longrun-test"
#define MS   (UINT64_C(1000000))

/* Runs per size (1, 2, 3), warmups included, and the sizes of the first
 * runs in order. */
struct fake {
	size_t runs[4];
	char order[128];
	size_t n_order;
};

/* size 1: 10 ms; size 2: 1.5 s, growing by 20 ms a run; size 3: 2.5 s.
 * 30 runs of size 2 take 45 s + 8.7 s (fit), of size 3 75 s (do not). */
static uint64_t wall(int size, size_t i)
{
	switch (size) {
	case 1:
		return 10 * MS;
	case 2:
		return 1500 * MS + 20 * MS * i;
	default:
		return 2500 * MS;
	}
}

static int fake_run_one(void *ctx, const struct run_request *req, struct run_result *res,
			struct err *err)
{
	struct fake *f = ctx;
	int size = (int)strtol(req->argv[1], NULL, 10);

	(void)err;
	assert_true(size >= 1 && size <= 3);
	memset(res, 0, sizeof(*res));
	res->status = RUN_EXITED;
	res->wall_ns = wall(size, f->runs[size]);
	f->runs[size]++;
	if (f->n_order < sizeof(f->order) - 1)
		f->order[f->n_order++] = (char)('0' + size);
	res->user_ns = res->wall_ns / 2;
	return 0;
}

/* A batch, as the real measurer makes it (run.h): run after run until one
 * ends it. */
static int fake_run(void *ctx, const struct run_request *req, unsigned runs, struct run_result *res,
		    struct err *err)
{
	unsigned made = 0;

	assert_true(runs >= 1 && runs <= RUN_MAX_BATCH);
	do
		fake_run_one(ctx, req, &res[made], err);
	while (++made < runs && !run_result_ends_batch(&res[made - 1]));
	return (int)made;
}

static void fake_cancel(void *ctx)
{
	(void)ctx;
}

static const char *fake_fallback_reason(const void *ctx)
{
	(void)ctx;
	return NULL;
}

static struct results *run_suite(struct fake *f, const char *yaml)
{
	struct runner_options o = RUNNER_OPTIONS_INIT;
	struct runner_measurer m = {
		.run = fake_run,
		.cancel = fake_cancel,
		.fallback_reason = fake_fallback_reason,
		.ctx = f,
	};
	struct runner_roots roots = { NULL, NULL, NULL, NULL, NULL };
	struct suite_diags diags;
	struct suite *s = NULL;
	struct runner *r;
	struct results *doc;
	struct err err = ERR_INIT;
	char *dir = NULL, *path;
	bool selected[3] = { true, true, true };
	struct plan_flags pf = PLAN_FLAGS_INIT;
	struct plan_input in = { .selected = selected };
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	struct plan *plan = NULL;

	assert_int_equal(fsio_mkdtemp("himorime-longrun-", &dir, &err), 0);
	path = xasprintf("%s/himorime.yaml", dir);
	assert_int_equal(fsio_write_atomic(path, yaml, strlen(yaml), &err), 0);
	suite_diags_init(&diags);
	if (suite_load(path, &s, &diags, &err) < 0)
		fail_msg("suite: %s", err.msg);
	assert_int_equal(s->benchmark_count, 3);
	o.seed = 42;
	in.suite = s;
	assert_int_equal(plan_build(&pf, &in, 1, &plan, &pr), 0);
	runner_new_with(&o, plan, &m, &r);
	doc = results_new(RESULTS_MODE_RUN);
	roots.head = ROOT;
	assert_int_equal(runner_run_suite(r, &plan->suites[0], &roots, doc, &err), 0);
	runner_free(r);
	plan_free(plan);
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(path);
	free(dir);
	return doc;
}

static const struct results_metric *latency(const struct results *doc, size_t b)
{
	return &doc->suites[0].benchmarks[b].commands[0].head.metrics[METRIC_LATENCY];
}

#define SUITE(extra)                                                                               \
	"version: \"1\"\n"                                                                         \
	"name: t\n"                                                                                \
	"benchmarks:\n"                                                                            \
	"  - name: scan\n"                                                                         \
	"    sizes: [1, 2, 3]\n" extra "    runs: 5\n"                                             \
	"    warmup: 0\n"                                                                          \
	"    commands:\n"                                                                          \
	"      scan: {command: [scan, \"${size}\"]}\n"

/* Without long_run: every size whose 30 runs fit gets them, the largest of
 * them is the long run, and its growing runs are flagged. */
static void test_longrun__largest_size_within_60s(void **state)
{
	struct fake f = { .n_order = 0 };
	struct results *doc = run_suite(&f, SUITE(""));
	const struct results_suite *s = &doc->suites[0];

	(void)state;
	assert_int_equal(latency(doc, 0)->n_samples, SUITE_LONG_RUN_RUNS);
	assert_int_equal(latency(doc, 1)->n_samples, SUITE_LONG_RUN_RUNS);
	assert_int_equal(latency(doc, 2)->n_samples, 5); /* 30 × 2.5 s > 60 s */
	assert_int_equal(s->benchmarks[0].long_run, RESULTS_LONG_RUN_NONE);
	assert_int_equal(s->benchmarks[1].long_run, RESULTS_LONG_RUN_LARGEST);
	assert_int_equal(s->benchmarks[2].long_run, RESULTS_LONG_RUN_NONE);
	assert_string_equal(results_long_run_name(RESULTS_LONG_RUN_LARGEST), "largest within 60 s");
	assert_true(latency(doc, 1)->trend.present);
	assert_true(latency(doc, 1)->trend.growing);
	assert_true(latency(doc, 0)->trend.present);
	assert_false(latency(doc, 0)->trend.growing);
	results_free(doc);
}

/* long_run names size 3: it gets 30 runs although they take 75 s, and the
 * largest size within 60 s is still checked too. */
static void test_longrun__declared_size_gets_its_runs(void **state)
{
	struct fake f = { .n_order = 0 };
	struct results *doc = run_suite(&f, SUITE("    long_run: 3\n"));
	const struct results_suite *s = &doc->suites[0];

	(void)state;
	assert_int_equal(latency(doc, 2)->n_samples, SUITE_LONG_RUN_RUNS);
	assert_int_equal(s->benchmarks[2].long_run, RESULTS_LONG_RUN_DECLARED);
	assert_int_equal(s->benchmarks[1].long_run, RESULTS_LONG_RUN_LARGEST);
	assert_int_equal(s->benchmarks[0].long_run, RESULTS_LONG_RUN_NONE);
	results_free(doc);
}

/* A size both declared and the largest within 60 s says declared. */
static void test_longrun__declared_and_largest_is_declared(void **state)
{
	struct fake f = { .n_order = 0 };
	struct results *doc = run_suite(&f, SUITE("    long_run: 2\n"));
	const struct results_suite *s = &doc->suites[0];

	(void)state;
	assert_int_equal(s->benchmarks[1].long_run, RESULTS_LONG_RUN_DECLARED);
	assert_int_equal(s->benchmarks[0].long_run, RESULTS_LONG_RUN_NONE);
	assert_int_equal(s->benchmarks[2].long_run, RESULTS_LONG_RUN_NONE);
	results_free(doc);
}

/* The sizes of a series take turns (docs/design.md, "Sizes in turn"): each
 * round runs every size whose rounds are not over once, in an order
 * shuffled from round to round, rather than size after size: 5 rounds of
 * the three sizes (size 3 stops at its 5 runs), then 25 of sizes 1 and 2.
 * Size 1's runs of 10 ms go one at a time, not as a batch. */
static void test_longrun__sizes_take_turns(void **state)
{
	struct fake f = { .n_order = 0 };
	struct results *doc = run_suite(&f, SUITE(""));
	size_t i, orders = 0;

	(void)state;
	assert_int_equal(f.n_order, 3 * 5 + 2 * 25);
	for (i = 0; i < 15; i += 3) {
		char round[4] = { f.order[i], f.order[i + 1], f.order[i + 2], 0 };
		assert_non_null(strchr(round, '1'));
		assert_non_null(strchr(round, '2'));
		assert_non_null(strchr(round, '3'));
		orders += strncmp(round, f.order, 3) != 0;
	}
	for (i = 15; i < f.n_order; i += 2)
		assert_true(!strncmp(f.order + i, "12", 2) || !strncmp(f.order + i, "21", 2));
	assert_true(orders > 0); /* shuffled */
	assert_int_equal(latency(doc, 0)->n_samples, SUITE_LONG_RUN_RUNS);
	assert_int_equal(latency(doc, 1)->n_samples, SUITE_LONG_RUN_RUNS);
	assert_int_equal(latency(doc, 2)->n_samples, 5);
	results_free(doc);
}

/* The stop rule alone: raised to the long run when declared or when it fits. */
static void test_longrun__stop_rule_is_raised(void **state)
{
	struct stop_rule fixed = { 5, 10, 100, 0 }, adaptive = { 0, 10, 20, 0 };
	struct stop_rule big = { 40, 10, 100, 0 }, slow = { 5, 10, 100, 0 };
	struct stop_rule declared = { 5, 10, 100, 0 };
	const uint64_t limit = SUITE_LONG_RUN_MAX_NS;

	(void)state;
	stop_rule_long_run(&fixed, 30, limit, false, 2000.0 * MS); /* 30 × 2 s = 60 s */
	assert_int_equal(fixed.runs, 30);
	stop_rule_long_run(&adaptive, 30, limit, false, 10.0 * MS);
	assert_int_equal(adaptive.runs, 0);
	assert_int_equal(adaptive.min_runs, 30);
	assert_int_equal(adaptive.max_runs, 30);
	stop_rule_long_run(&big, 30, limit, false, 1400.0 * MS); /* 40 × 1.4 s = 56 s */
	assert_int_equal(big.runs, 40);
	stop_rule_long_run(&slow, 30, limit, false, 2001.0 * MS);
	assert_int_equal(slow.runs, 5);
	stop_rule_long_run(&slow, 30, limit, false, 0); /* no run yet */
	assert_int_equal(slow.runs, 5);
	stop_rule_long_run(&declared, 30, limit, true, 9000.0 * MS);
	assert_int_equal(declared.runs, 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longrun__largest_size_within_60s),
		cmocka_unit_test(test_longrun__declared_size_gets_its_runs),
		cmocka_unit_test(test_longrun__declared_and_largest_is_declared),
		cmocka_unit_test(test_longrun__sizes_take_turns),
		cmocka_unit_test(test_longrun__stop_rule_is_raised),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
