/*
 * The plan (plan/plan.h): suites loaded by the real loader and the flags of a
 * command resolved into every setting, with each precedence rule (the
 * command line over the command over the benchmark over the defaults), each
 * default, and each problem at its suite position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/fsio.h"
#include "judge/judge.h"
#include "plan/plan.h"
#include "suite/suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEC (UINT64_C(1000000000))

/* ---- loading ------------------------------------------------------------ */

struct loaded {
	char *dir, *path;
	struct suite *suite;
	bool selected[8];
};

static void load(struct loaded *l, const char *yaml)
{
	struct suite_diags diags;
	struct err err = ERR_INIT;
	size_t i;

	memset(l, 0, sizeof(*l));
	assert_int_equal(fsio_mkdtemp("himorime-plan-", &l->dir, &err), 0);
	l->path = xasprintf("%s/himorime.yaml", l->dir);
	assert_int_equal(fsio_write_atomic(l->path, yaml, strlen(yaml), &err), 0);
	suite_diags_init(&diags);
	if (suite_load(l->path, &l->suite, &diags, &err) < 0)
		fail_msg("suite: %s: %s", err.msg, diags.count ? diags.v[0].message : "");
	suite_diags_release(&diags);
	assert_true(l->suite->benchmark_count <= 8);
	for (i = 0; i < 8; i++)
		l->selected[i] = true;
}

static void unload(struct loaded *l)
{
	suite_free(l->suite);
	unlink(l->path);
	assert_int_equal(rmdir(l->dir), 0);
	free(l->path);
	free(l->dir);
}

/* The plan of one suite, every benchmark selected; it must have no problem. */
static struct plan *plan_one(const struct loaded *l, const struct plan_flags *f, bool compared)
{
	struct plan_input in = { .suite = l->suite, .selected = l->selected, .compared = compared };
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	struct plan *p = NULL;

	if (plan_build(f, &in, 1, &p, &pr) < 0)
		fail_msg("plan: %s", pr.v[0].text);
	assert_int_equal(pr.n, 0);
	assert_non_null(p);
	return p;
}

static struct plan_flags flags_for(enum plan_verb verb)
{
	struct plan_flags f = PLAN_FLAGS_INIT;

	f.verb = verb;
	return f;
}

#define PLAIN                                                                                      \
	"version: \"1\"\nname: s\nbenchmarks:\n  - name: a\n    commands: {c: {command: [x]}}\n"

/* ---- defaults ----------------------------------------------------------- */

/* A suite that sets nothing gets docs/configuration.md's defaults. */
static void test_plan__a_suite_that_sets_nothing_gets_the_defaults(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	const struct plan_benchmark *pb;
	const struct plan_command *pc;
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, PLAIN);
	p = plan_one(&l, &f, true);
	assert_int_equal(p->n_suites, 1);
	assert_ptr_equal(p->suites[0].suite, l.suite);
	assert_true(p->suites[0].compared);
	assert_int_equal(p->suites[0].n_selected, 1);
	pb = &p->suites[0].benchmarks[0];
	assert_ptr_equal(pb->b, &l.suite->benchmarks[0]);
	assert_true(pb->selected);
	assert_true(pb->compared);
	assert_false(pb->left_out);
	assert_int_equal(pb->schedule, SCHEDULE_INTERLEAVED);
	assert_false(p->duet);
	assert_int_equal(pb->warmup.kind, WARMUP_COUNT);
	assert_int_equal(pb->warmup.count, SUITE_DEFAULT_WARMUP);
	assert_int_equal(pb->runs, 0);
	assert_int_equal(pb->min_runs, SUITE_DEFAULT_MIN_RUNS);
	assert_int_equal(pb->max_runs, SUITE_DEFAULT_MAX_RUNS);
	assert_true(pb->min_time_ns == SUITE_DEFAULT_MIN_TIME_NS);
	assert_int_equal(pb->max_pairs, SUITE_COMPARE_MAX_PAIRS);
	assert_true(pb->looks.confidence == SUITE_DEFAULT_CONFIDENCE);
	assert_false(pb->looks.runs_fixed);
	assert_int_equal(pb->looks.looks[pb->looks.n_looks - 1], SUITE_COMPARE_MAX_PAIRS);
	assert_true(pb->max_time_ns == 0);
	assert_true(pb->max_cv == TOLERANCE_DEFAULT_MAX_CV);
	assert_true(plan_tolerance(pb, METRIC_LATENCY)->max_fraction == TOLERANCE_DEFAULT_FRACTION);
	assert_true(plan_tolerance(pb, METRIC_CPU_TOTAL)->max_fraction ==
		    TOLERANCE_DEFAULT_FRACTION);
	assert_true(plan_tolerance(pb, METRIC_PEAK_RSS)->max_fraction ==
		    TOLERANCE_DEFAULT_FRACTION_RSS);
	assert_true(plan_tolerance(pb, METRIC_INSTRUCTIONS)->max_fraction ==
		    TOLERANCE_DEFAULT_FRACTION_COUNTS);
	assert_true(plan_tolerance(pb, METRIC_ALLOCATED_BYTES)->max_fraction ==
		    TOLERANCE_DEFAULT_FRACTION_COUNTS);
	assert_true(plan_tolerance(pb, METRIC_LATENCY)->gate);
	assert_false(plan_tolerance(pb, METRIC_LATENCY)->has_min_difference);
	assert_int_equal(plan_tolerance(pb, METRIC_LATENCY)->statistic, SIDE_MEDIAN);
	assert_null(plan_tolerance(pb, METRIC_THROUGHPUT));
	assert_null(plan_tolerance(pb, METRIC_CPU_USER));
	assert_int_equal(pb->n_commands, 1);
	pc = &pb->commands[0];
	assert_ptr_equal(pc->c, &l.suite->benchmarks[0].commands[0]);
	assert_true(pc->compared);
	assert_int_equal(pc->backend, COUNTER_AUTO);
	assert_int_equal(pc->count_runs, SUITE_DEFAULT_COUNT_RUNS);
	/* the whole command's */
	assert_true(p->max_total_time_ns == SUITE_DEFAULT_MAX_TOTAL_TIME_NS);
	assert_int_equal(p->budget_benchmarks, 1);
	assert_true(p->confidence == 0);
	assert_null(p->spawner);
	assert_false(p->separate_artifacts);
	assert_string_equal(p->accept.label, PLAN_DEFAULT_ACCEPT_LABEL);
	assert_false(p->accept.applies);
	plan_free(p);
	unload(&l);
}

/* `run` compares nothing: no looks, no time budget, whatever the suite says. */
static void test_plan__a_run_compares_nothing_and_has_no_time_budget(void **state)
{
	struct plan_flags f = flags_for(PLAN_RUN);
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\ndefaults:\n  regression: {max_time: 1m, "
		 "max_total_time: 2m}\nbenchmarks:\n  - name: a\n    runs: 5\n"
		 "    commands: {c: {command: [x]}}\n");
	f.max_time_ns = 3 * SEC;
	p = plan_one(&l, &f, false);
	assert_false(p->suites[0].compared);
	assert_false(p->suites[0].benchmarks[0].compared);
	assert_false(p->suites[0].benchmarks[0].commands[0].compared);
	assert_int_equal(p->suites[0].benchmarks[0].looks.n_looks, 0);
	assert_true(p->suites[0].benchmarks[0].max_time_ns == 0);
	assert_true(p->max_total_time_ns == 0);
	assert_int_equal(p->budget_benchmarks, 0);
	plan_free(p);
	unload(&l);
}

/* ---- runs and warmup ------------------------------------------------------ */

/* runs: --runs over the benchmark's over the defaults'. */
static void test_plan__runs_come_from_the_flag_then_the_benchmark_then_the_defaults(void **state)
{
	struct plan_flags f = flags_for(PLAN_RUN);
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\ndefaults: {runs: 15}\nbenchmarks:\n"
		 "  - name: a\n    commands: {c: {command: [x]}}\n"
		 "  - name: b\n    runs: 25\n    commands: {c: {command: [x]}}\n");
	p = plan_one(&l, &f, false);
	assert_int_equal(p->suites[0].benchmarks[0].runs, 15);
	assert_int_equal(p->suites[0].benchmarks[1].runs, 25);
	plan_free(p);
	f.has_runs = true;
	f.runs = 40;
	p = plan_one(&l, &f, false);
	assert_int_equal(p->suites[0].benchmarks[0].runs, 40);
	assert_int_equal(p->suites[0].benchmarks[1].runs, 40);
	/* the adaptive rule's bounds stay the suite's */
	assert_int_equal(p->suites[0].benchmarks[1].min_runs, SUITE_DEFAULT_MIN_RUNS);
	plan_free(p);
	unload(&l);
}

/* min_runs, max_runs and min_time: the benchmark's over the defaults'. */
static void test_plan__the_adaptive_rule_comes_from_the_benchmark_then_the_defaults(void **state)
{
	struct plan_flags f = flags_for(PLAN_RUN);
	const struct plan_benchmark *a, *b;
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\ndefaults: {min_runs: 12, max_runs: 60, min_time: 1s}\n"
		 "benchmarks:\n  - name: a\n    commands: {c: {command: [x]}}\n"
		 "  - name: b\n    min_runs: 20\n    max_runs: 30\n    min_time: 3s\n"
		 "    commands: {c: {command: [x]}}\n");
	p = plan_one(&l, &f, false);
	a = &p->suites[0].benchmarks[0];
	b = &p->suites[0].benchmarks[1];
	assert_int_equal(a->min_runs, 12);
	assert_int_equal(a->max_runs, 60);
	assert_true(a->min_time_ns == 1 * SEC);
	assert_int_equal(b->min_runs, 20);
	assert_int_equal(b->max_runs, 30);
	assert_true(b->min_time_ns == 3 * SEC);
	/* a comparison's cap of pairs is max_runs only where the suite sets it */
	assert_int_equal(a->max_pairs, 60);
	assert_int_equal(b->max_pairs, 30);
	plan_free(p);
	unload(&l);
}

/* warmup: --warmup N over the benchmark's (auto or a count) over the
 * defaults'. */
static void test_plan__warmup_comes_from_the_flag_then_the_benchmark_then_the_defaults(void **state)
{
	struct plan_flags f = flags_for(PLAN_RUN);
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\ndefaults: {warmup: 3}\nbenchmarks:\n"
		 "  - name: a\n    commands: {c: {command: [x]}}\n"
		 "  - name: b\n    warmup: auto\n    commands: {c: {command: [x]}}\n");
	p = plan_one(&l, &f, false);
	assert_int_equal(p->suites[0].benchmarks[0].warmup.kind, WARMUP_COUNT);
	assert_int_equal(p->suites[0].benchmarks[0].warmup.count, 3);
	assert_int_equal(p->suites[0].benchmarks[1].warmup.kind, WARMUP_AUTO);
	plan_free(p);
	f.has_warmup = true;
	f.warmup = 0;
	p = plan_one(&l, &f, false);
	assert_int_equal(p->suites[0].benchmarks[0].warmup.kind, WARMUP_COUNT);
	assert_int_equal(p->suites[0].benchmarks[0].warmup.count, 0);
	assert_int_equal(p->suites[0].benchmarks[1].warmup.kind, WARMUP_COUNT);
	assert_int_equal(p->suites[0].benchmarks[1].warmup.count, 0);
	plan_free(p);
	unload(&l);
}

/* ---- the schedule --------------------------------------------------------- */

/* The schedule: --schedule over the benchmark's over the defaults',
 * interleaved unless set; a benchmark measured on one side (a run, a suite
 * new in head, a command regression.commands leaves out) runs interleaved
 * whatever it says, and only duets that pair something need two CPUs. */
static void
test_plan__the_schedule_comes_from_the_flag_then_the_benchmark_then_the_defaults(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	struct loaded l, d;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\ndefaults: {schedule: duet}\nbenchmarks:\n"
		 "  - name: a\n    commands: {c: {command: [x]}}\n"
		 "  - name: b\n    schedule: interleaved\n    commands: {c: {command: [x]}}\n");
	load(&d, "version: \"1\"\nname: d\nbenchmarks:\n"
		 "  - name: a\n    commands: {c: {command: [x]}}\n"
		 "  - name: b\n    schedule: duet\n    regression: {commands: [c]}\n"
		 "    commands: {c: {command: [x]}, d: {command: [y]}}\n");
	p = plan_one(&l, &f, true);
	assert_int_equal(p->suites[0].benchmarks[0].schedule, SCHEDULE_DUET);
	assert_int_equal(p->suites[0].benchmarks[1].schedule, SCHEDULE_INTERLEAVED);
	assert_true(p->duet);
	plan_free(p);
	/* only the selected benchmarks ask for two CPUs */
	l.selected[0] = false;
	p = plan_one(&l, &f, true);
	assert_false(p->duet);
	plan_free(p);
	l.selected[0] = true;
	p = plan_one(&d, &f, true);
	assert_int_equal(p->suites[0].benchmarks[0].schedule, SCHEDULE_INTERLEAVED);
	assert_int_equal(p->suites[0].benchmarks[1].schedule, SCHEDULE_DUET);
	assert_true(p->duet);
	plan_free(p);
	f.has_schedule = true;
	f.schedule = SCHEDULE_INTERLEAVED;
	p = plan_one(&l, &f, true);
	assert_int_equal(p->suites[0].benchmarks[0].schedule, SCHEDULE_INTERLEAVED);
	assert_false(p->duet);
	plan_free(p);
	f.schedule = SCHEDULE_DUET;
	p = plan_one(&l, &f, true);
	assert_int_equal(p->suites[0].benchmarks[1].schedule, SCHEDULE_DUET);
	assert_true(p->duet);
	plan_free(p);
	/* measured on one side: as ever */
	f = flags_for(PLAN_RUN);
	p = plan_one(&l, &f, false);
	assert_int_equal(p->suites[0].benchmarks[0].schedule, SCHEDULE_INTERLEAVED);
	assert_false(p->duet);
	plan_free(p);
	f = flags_for(PLAN_COMPARE);
	p = plan_one(&l, &f, false); /* a suite new in head */
	assert_int_equal(p->suites[0].benchmarks[0].schedule, SCHEDULE_INTERLEAVED);
	assert_false(p->duet);
	plan_free(p);
	unload(&l);
	unload(&d);
}

/* A benchmark on a terminal cannot run duets: the suite's schedule is a
 * problem at the benchmark's position (ERR_INVALID, every one listed),
 * --schedule duet the flag's (ERR_USAGE); measured on one side, or
 * interleaved, it is fine. */
static void test_plan__duets_on_a_terminal_are_refused(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	struct plan_input in;
	struct loaded l;
	struct plan *p = NULL;

	(void)state;
	load(&l, "version: \"1\"\nname: s\nbenchmarks:\n"
		 "  - name: plain\n    commands: {c: {command: [x]}}\n"
		 "  - name: tty\n    terminal: true\n    schedule: duet\n"
		 "    commands: {c: {command: [x]}}\n"
		 "  - name: tty2\n    terminal: true\n    schedule: duet\n"
		 "    parameters: {n: [1]}\n    commands: {c: {command: [x]}}\n");
	in = (struct plan_input){ .suite = l.suite, .selected = l.selected, .compared = true };
	assert_int_equal(plan_build(&f, &in, 1, &p, &pr), ERR_INVALID);
	assert_null(p);
	assert_int_equal(pr.n, 2);
	assert_false(pr.v[0].flag);
	assert_int_equal(pr.v[0].line, 6);
	assert_int_equal(pr.v[0].column, 5);
	assert_string_equal(pr.v[0].text,
			    "benchmarks[1]: schedule duet: the benchmark runs on a terminal "
			    "(terminal: true), and duet runs start base and head at once, each "
			    "without one");
	assert_int_equal(pr.v[1].line, 10);
	assert_string_equal(pr.v[1].text,
			    "tty2[n=1]: schedule duet: the benchmark runs on a terminal "
			    "(terminal: true), and duet runs start base and head at once, each "
			    "without one");
	plan_problems_release(&pr);
	f.has_schedule = true;
	f.schedule = SCHEDULE_DUET;
	assert_int_equal(plan_build(&f, &in, 1, &p, &pr), ERR_USAGE);
	assert_null(p);
	assert_int_equal(pr.n, 1);
	assert_true(pr.v[0].flag);
	assert_string_equal(pr.v[0].text,
			    "--schedule duet: benchmark \"tty\" runs on a terminal (terminal: "
			    "true), and duet runs start base and head at once, each without one: "
			    "use --schedule interleaved, or leave it out with --filter or "
			    "--skip-tag");
	plan_problems_release(&pr);
	f.schedule = SCHEDULE_INTERLEAVED;
	assert_int_equal(plan_build(&f, &in, 1, &p, &pr), 0);
	plan_free(p);
	f = flags_for(PLAN_COMPARE);
	in.compared = false;
	assert_int_equal(plan_build(&f, &in, 1, &p, &pr), 0);
	assert_false(p->duet);
	plan_free(p);
	assert_int_equal(pr.n, 0);
	unload(&l);
}

/* ---- tolerances ----------------------------------------------------------- */

/* A tolerance: the benchmark's over the defaults' over the built-in ones,
 * key by key, as fractions. */
static void test_plan__tolerances_come_from_the_benchmark_then_the_defaults(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	const struct plan_benchmark *a, *b;
	const struct tolerance *t;
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\ndefaults:\n  regression:\n    max_cv: 0.2\n"
		 "    latency: {max_percent: 2%, min_difference: 1ms, statistic: mean}\n"
		 "    instructions: {max_percent: 0.5%}\n"
		 "benchmarks:\n  - name: a\n    commands: {c: {command: [x]}}\n"
		 "  - name: b\n    regression:\n      max_cv: 0\n"
		 "      latency: {max_percent: 20%, gate: false}\n"
		 "      peak_rss: {max_percent: 30}\n      instructions: {gate: false}\n"
		 "    commands: {c: {command: [x]}}\n");
	p = plan_one(&l, &f, true);
	a = &p->suites[0].benchmarks[0];
	b = &p->suites[0].benchmarks[1];
	t = plan_tolerance(a, METRIC_LATENCY);
	assert_true(t->max_fraction == 0.02);
	assert_true(t->has_min_difference);
	assert_true(t->min_difference == 1e6);
	assert_int_equal(t->statistic, SIDE_MEAN);
	assert_true(t->gate);
	assert_true(a->max_cv == 0.2);
	assert_true(plan_tolerance(a, METRIC_INSTRUCTIONS)->max_fraction == 0.005);
	assert_true(plan_tolerance(a, METRIC_PEAK_RSS)->max_fraction ==
		    TOLERANCE_DEFAULT_FRACTION_RSS);
	t = plan_tolerance(b, METRIC_LATENCY);
	assert_true(t->max_fraction == 0.20);
	assert_false(t->gate);
	/* what the benchmark does not say is the defaults' */
	assert_true(t->has_min_difference);
	assert_int_equal(t->statistic, SIDE_MEAN);
	assert_true(b->max_cv == 0);
	assert_true(plan_tolerance(b, METRIC_PEAK_RSS)->max_fraction == 0.30);
	assert_true(plan_tolerance(b, METRIC_INSTRUCTIONS)->max_fraction == 0.005);
	assert_false(plan_tolerance(b, METRIC_INSTRUCTIONS)->gate);
	plan_free(p);
	unload(&l);
}

/* ---- commands and counts -------------------------------------------------- */

/* The counting backend and the counted runs: the command's over the
 * benchmark's over the defaults'. */
static void test_plan__the_counting_backend_comes_from_the_command_then_the_benchmark(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	const struct plan_benchmark *a, *b;
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\n"
		 "defaults:\n  metrics: {instructions: {backend: perf, runs: 4}}\nbenchmarks:\n"
		 "  - name: a\n    metrics: {instructions: {backend: valgrind}}\n    commands:\n"
		 "      own: {command: [x], metrics: {instructions: {backend: auto, runs: 6}}}\n"
		 "      plain: {command: [x]}\n"
		 "  - name: b\n    commands: {c: {command: [x]}}\n");
	p = plan_one(&l, &f, true);
	a = &p->suites[0].benchmarks[0];
	b = &p->suites[0].benchmarks[1];
	assert_int_equal(a->commands[0].backend, COUNTER_AUTO);
	assert_int_equal(a->commands[0].count_runs, 6);
	assert_int_equal(a->commands[1].backend, COUNTER_VALGRIND);
	assert_int_equal(a->commands[1].count_runs, 4);
	assert_int_equal(b->commands[0].backend, COUNTER_PERF);
	assert_int_equal(b->commands[0].count_runs, 4);
	plan_free(p);
	unload(&l);
}

/* regression.commands names the commands a comparison pairs; the others run
 * on head only. */
static void test_plan__only_the_commands_regression_names_are_compared(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\nbenchmarks:\n  - name: a\n"
		 "    regression: {commands: [two]}\n"
		 "    commands: {one: {command: [x]}, two: {command: [y]}}\n");
	p = plan_one(&l, &f, true);
	assert_false(p->suites[0].benchmarks[0].commands[0].compared);
	assert_true(p->suites[0].benchmarks[0].commands[1].compared);
	plan_free(p);
	unload(&l);
}

/* ---- what is compared ------------------------------------------------------ */

#define SIZES                                                                                      \
	"version: \"1\"\nname: s\nbenchmarks:\n  - name: grow\n"                                   \
	"    sizes: [{value: 1k, compare: false}, 2k]\n"                                           \
	"    commands: {c: {command: [x, \"${size}\"]}}\n"

/* A size that says compare: false is left out of compare, ci, calibrate and
 * bisect, and of the time budget's share; a sweep compares it. */
static void test_plan__a_size_with_compare_false_is_left_out_of_comparisons(void **state)
{
	static const enum plan_verb leaving[] = { PLAN_COMPARE, PLAN_CALIBRATE, PLAN_CI,
						  PLAN_BISECT };
	struct plan_flags f;
	struct loaded l;
	struct plan *p;
	size_t i;

	(void)state;
	load(&l, SIZES);
	for (i = 0; i < ARRAY_SIZE(leaving); i++) {
		f = flags_for(leaving[i]);
		p = plan_one(&l, &f, true);
		assert_true(p->suites[0].benchmarks[0].left_out);
		assert_false(p->suites[0].benchmarks[0].compared);
		assert_int_equal(p->suites[0].benchmarks[0].looks.n_looks, 0);
		assert_false(p->suites[0].benchmarks[1].left_out);
		assert_true(p->suites[0].benchmarks[1].compared);
		assert_int_equal(p->budget_benchmarks, 1);
		plan_free(p);
	}
	f = flags_for(PLAN_SWEEP);
	p = plan_one(&l, &f, true);
	assert_false(p->suites[0].benchmarks[0].left_out);
	assert_true(p->suites[0].benchmarks[0].compared);
	assert_int_equal(p->budget_benchmarks, 1); /* the share is the comparisons' */
	plan_free(p);
	f = flags_for(PLAN_RUN);
	p = plan_one(&l, &f, false);
	assert_false(p->suites[0].benchmarks[0].left_out);
	plan_free(p);
	unload(&l);
}

/* A suite new in head is measured on head only: not compared, not checked,
 * not in the time budget's share; a benchmark not selected is planned but
 * not measured. */
static void test_plan__a_suite_not_compared_and_a_benchmark_not_selected(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	struct loaded fine, low;
	struct plan_input in[2];
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	struct plan *p = NULL;

	(void)state;
	load(&fine, "version: \"1\"\nname: s\nbenchmarks:\n"
		    "  - name: a\n    commands: {c: {command: [x]}}\n"
		    "  - name: b\n    commands: {c: {command: [x]}}\n");
	load(&low, "version: \"1\"\nname: t\nbenchmarks:\n  - name: a\n    runs: 5\n"
		   "    commands: {c: {command: [x]}}\n");
	fine.selected[1] = false;
	in[0] = (struct plan_input){ .suite = fine.suite,
				     .selected = fine.selected,
				     .compared = true };
	in[1] = (struct plan_input){ .suite = low.suite,
				     .selected = low.selected,
				     .compared = false };
	assert_int_equal(plan_build(&f, in, 2, &p, &pr), 0);
	assert_int_equal(pr.n, 0);
	assert_int_equal(p->suites[0].n_selected, 1);
	assert_false(p->suites[0].benchmarks[1].selected);
	assert_int_equal(p->suites[0].benchmarks[1].looks.n_looks, 0);
	assert_false(p->suites[1].compared);
	assert_false(p->suites[1].benchmarks[0].compared);
	assert_int_equal(p->suites[1].benchmarks[0].runs, 5);
	assert_int_equal(p->budget_benchmarks, 1);
	plan_free(p);
	/* NULL: nothing of the suite selected */
	in[1].selected = NULL;
	assert_int_equal(plan_build(&f, in, 2, &p, &pr), 0);
	assert_int_equal(p->suites[1].n_selected, 0);
	plan_free(p);
	unload(&fine);
	unload(&low);
}

/* ---- looks and confidence -------------------------------------------------- */

/* The looks: one at runs when runs is fixed (--runs over the suite's), else
 * the schedule up to the cap, at the benchmark's confidence. */
static void test_plan__the_looks_follow_runs_or_the_cap(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	const struct judge_plan *a, *b;
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\nbenchmarks:\n"
		 "  - name: a\n    runs: 30\n    regression: {confidence: 0.95}\n"
		 "    commands: {c: {command: [x]}}\n"
		 "  - name: b\n    max_runs: 40\n    commands: {c: {command: [x]}}\n");
	p = plan_one(&l, &f, true);
	a = &p->suites[0].benchmarks[0].looks;
	b = &p->suites[0].benchmarks[1].looks;
	assert_true(a->runs_fixed);
	assert_int_equal(a->n_looks, 1);
	assert_int_equal(a->looks[0], 30);
	assert_true(a->confidence == 0.95);
	assert_false(b->runs_fixed);
	assert_int_equal(b->n_looks, 5); /* 10, 15, 22, 33 and 40 */
	assert_int_equal(b->looks[b->n_looks - 1], 40);
	assert_true(b->confidence == SUITE_DEFAULT_CONFIDENCE);
	plan_free(p);
	f.has_runs = true;
	f.runs = 50;
	p = plan_one(&l, &f, true);
	assert_int_equal(p->suites[0].benchmarks[1].looks.n_looks, 1);
	assert_int_equal(p->suites[0].benchmarks[1].looks.looks[0], 50);
	plan_free(p);
	unload(&l);
}

/* bisect plans every step at alpha / ceil(log2 N) of the strictest
 * selected confidence, for every benchmark; other commands at each
 * benchmark's own. */
static void test_plan__bisect_plans_every_step_at_the_strictest_confidence_over_log2_n(void **state)
{
	struct plan_flags f = flags_for(PLAN_BISECT);
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, "version: \"1\"\nname: s\nbenchmarks:\n"
		 "  - name: a\n    regression: {confidence: 0.95}\n"
		 "    commands: {c: {command: [x]}}\n"
		 "  - name: b\n    regression: {confidence: 0.98}\n"
		 "    commands: {c: {command: [x]}}\n"
		 "  - name: c\n    regression: {confidence: 0.999}\n"
		 "    commands: {c: {command: [x]}}\n");
	l.selected[2] = false; /* not selected: not the strictest */
	f.candidates = 16;     /* 4 steps */
	p = plan_one(&l, &f, true);
	assert_true(p->confidence == judge_bisect_confidence(0.98, 16));
	assert_true(fabs(p->confidence - 0.995) < 1e-12);
	assert_true(p->suites[0].benchmarks[0].looks.confidence == p->confidence);
	assert_true(p->suites[0].benchmarks[1].looks.confidence == p->confidence);
	plan_free(p);
	/* two candidates: one step, at the strictest confidence itself */
	f.candidates = 2;
	p = plan_one(&l, &f, true);
	assert_true(p->confidence == 0.98);
	assert_true(p->suites[0].benchmarks[0].looks.confidence == 0.98);
	plan_free(p);
	unload(&l);
}

/* ---- time budgets ----------------------------------------------------------- */

/* A benchmark's max_time: --max-time over regression.max_time (the
 * benchmark's over the defaults'); none at all by default. */
static void test_plan__max_time_comes_from_the_flag_then_the_suite(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l,
	     "version: \"1\"\nname: s\ndefaults:\n  regression: {max_time: 2m}\nbenchmarks:\n"
	     "  - name: a\n    commands: {c: {command: [x]}}\n"
	     "  - name: b\n    regression: {max_time: 30s}\n    commands: {c: {command: [x]}}\n");
	p = plan_one(&l, &f, true);
	assert_true(p->suites[0].benchmarks[0].max_time_ns == 120 * SEC);
	assert_true(p->suites[0].benchmarks[1].max_time_ns == 30 * SEC);
	plan_free(p);
	f.max_time_ns = 5 * SEC;
	p = plan_one(&l, &f, true);
	assert_true(p->suites[0].benchmarks[0].max_time_ns == 5 * SEC);
	assert_true(p->suites[0].benchmarks[1].max_time_ns == 5 * SEC);
	plan_free(p);
	unload(&l);
}

/* The whole comparison's budget: --max-total-time over the smallest
 * max_total_time of the suites with a selected benchmark over the default. */
static void test_plan__max_total_time_comes_from_the_flag_then_the_strictest_suite(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	struct loaded a, b;
	struct plan_input in[2];
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	struct plan *p = NULL;

	(void)state;
	load(&a, "version: \"1\"\nname: a\ndefaults:\n  regression: {max_total_time: 10m}\n"
		 "benchmarks:\n  - name: a\n    commands: {c: {command: [x]}}\n");
	load(&b, "version: \"1\"\nname: b\ndefaults:\n  regression: {max_total_time: 5m}\n"
		 "benchmarks:\n  - name: b\n    commands: {c: {command: [x]}}\n"
		 "  - name: c\n    commands: {c: {command: [x]}}\n");
	in[0] = (struct plan_input){ .suite = a.suite, .selected = a.selected, .compared = true };
	in[1] = (struct plan_input){ .suite = b.suite, .selected = b.selected, .compared = true };
	assert_int_equal(plan_build(&f, in, 2, &p, &pr), 0);
	assert_true(p->max_total_time_ns == 300 * SEC);
	assert_int_equal(p->budget_benchmarks, 3);
	plan_free(p);
	/* a suite with nothing selected has no say */
	b.selected[0] = b.selected[1] = false;
	assert_int_equal(plan_build(&f, in, 2, &p, &pr), 0);
	assert_true(p->max_total_time_ns == 600 * SEC);
	assert_int_equal(p->budget_benchmarks, 1);
	plan_free(p);
	f.max_total_time_ns = 42 * SEC;
	assert_int_equal(plan_build(&f, in, 2, &p, &pr), 0);
	assert_true(p->max_total_time_ns == 42 * SEC);
	plan_free(p);
	unload(&a);
	unload(&b);
}

/* ---- the command's policies ------------------------------------------------- */

static bool labelled_performance(const void *ctx, const char *label)
{
	(void)ctx;
	return !strcmp(label, "performance") || !strcmp(label, PLAN_DEFAULT_ACCEPT_LABEL);
}

/* The accept label: --accept-label over the default; it applies to ci on a
 * pull request that carries it, and to nothing else. */
static void test_plan__the_accept_label_applies_to_ci_when_the_event_carries_it(void **state)
{
	struct plan_flags f = flags_for(PLAN_CI);
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, PLAIN);
	p = plan_one(&l, &f, true); /* no event */
	assert_string_equal(p->accept.label, PLAN_DEFAULT_ACCEPT_LABEL);
	assert_false(p->accept.applies);
	plan_free(p);
	f.labelled = labelled_performance;
	p = plan_one(&l, &f, true);
	assert_true(p->accept.applies);
	plan_free(p);
	f.accept_label = "perf-ok";
	p = plan_one(&l, &f, true);
	assert_string_equal(p->accept.label, "perf-ok");
	assert_false(p->accept.applies);
	plan_free(p);
	f.accept_label = "performance";
	p = plan_one(&l, &f, true);
	assert_true(p->accept.applies);
	plan_free(p);
	f.verb = PLAN_COMPARE;
	p = plan_one(&l, &f, true);
	assert_false(p->accept.applies);
	plan_free(p);
	unload(&l);
}

/* The spawner is used when one was found; calibrate alone keeps identical
 * builds as two files. */
static void test_plan__the_spawner_and_separate_builds(void **state)
{
	static const enum plan_verb verbs[] = { PLAN_RUN, PLAN_COMPARE, PLAN_CALIBRATE,
						PLAN_CI,  PLAN_SWEEP,	PLAN_BISECT };
	struct plan_flags f;
	struct loaded l;
	struct plan *p;
	size_t i;

	(void)state;
	load(&l, PLAIN);
	for (i = 0; i < ARRAY_SIZE(verbs); i++) {
		f = flags_for(verbs[i]);
		f.spawner = "/opt/himorime-spawner";
		f.candidates = 4;
		p = plan_one(&l, &f, verbs[i] != PLAN_RUN);
		assert_string_equal(p->spawner, "/opt/himorime-spawner");
		assert_int_equal(p->separate_artifacts, verbs[i] == PLAN_CALIBRATE);
		assert_int_equal(plan_separate_artifacts(verbs[i]), verbs[i] == PLAN_CALIBRATE);
		assert_ptr_equal(p->flags.spawner, f.spawner);
		assert_int_equal(p->flags.verb, verbs[i]);
		plan_free(p);
	}
	unload(&l);
}

static void test_plan__a_benchmark_is_found_by_its_name(void **state)
{
	struct plan_flags f = flags_for(PLAN_RUN);
	struct loaded l;
	struct plan *p;

	(void)state;
	load(&l, SIZES);
	p = plan_one(&l, &f, false);
	assert_ptr_equal(plan_benchmark_named(&p->suites[0], "grow[size=2k]"),
			 &p->suites[0].benchmarks[1]);
	assert_null(plan_benchmark_named(&p->suites[0], "grow"));
	plan_free(p);
	unload(&l);
}

/* ---- problems ----------------------------------------------------------------- */

/* Runs that can never give an interval, or below min_samples, are problems at
 * the benchmark's position, every one of every suite; a case is named by its
 * label. Nothing is planned. */
static void test_plan__looks_that_cannot_decide_are_problems_at_their_position(void **state)
{
	struct plan_flags f = flags_for(PLAN_COMPARE);
	struct loaded a, b;
	struct plan_input in[2];
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	struct plan *p = (struct plan *)&f; /* must become NULL */

	(void)state;
	load(&a, "version: \"1\"\nname: a\nbenchmarks:\n"
		 "  - name: fine\n    commands: {c: {command: [x]}}\n"
		 "  - name: five\n    runs: 5\n    commands: {c: {command: [x]}}\n"
		 "  - name: eight\n    runs: 8\n    commands: {c: {command: [x]}}\n");
	load(&b, "version: \"1\"\nname: b\nbenchmarks:\n"
		 "  - name: grow\n    min_runs: 2\n    max_runs: 6\n    sizes: [1k, 2k]\n"
		 "    commands: {c: {command: [x]}}\n");
	in[0] = (struct plan_input){ .suite = a.suite, .selected = a.selected, .compared = true };
	in[1] = (struct plan_input){ .suite = b.suite, .selected = b.selected, .compared = true };
	assert_int_equal(plan_build(&f, in, 2, &p, &pr), ERR_INVALID);
	assert_null(p);
	assert_int_equal(pr.n, 4);
	assert_int_equal(pr.v[0].input, 0);
	assert_false(pr.v[0].flag);
	assert_int_equal(pr.v[0].line, 6);
	assert_int_equal(pr.v[0].column, 5);
	assert_string_equal(pr.v[0].text, "benchmarks[1]: runs 5 cannot give a 99% confidence "
					  "interval: it needs at least 8 pairs");
	assert_int_equal(pr.v[1].line, 9);
	assert_string_equal(pr.v[1].text, "benchmarks[2]: runs 8 is below min_samples 10");
	assert_int_equal(pr.v[2].input, 1);
	assert_int_equal(pr.v[2].line, 4);
	assert_string_equal(pr.v[2].text, "grow[size=1k]: max_runs 6 cannot give a 99% confidence "
					  "interval: it needs at least 8 pairs");
	assert_string_equal(pr.v[3].text, "grow[size=2k]: max_runs 6 cannot give a 99% confidence "
					  "interval: it needs at least 8 pairs");
	plan_problems_release(&pr);
	assert_int_equal(pr.n, 0);
	/* the same settings compare nothing in a run: no problem */
	f.verb = PLAN_RUN;
	in[0].compared = in[1].compared = false;
	assert_int_equal(plan_build(&f, in, 2, &p, &pr), 0);
	assert_int_equal(pr.n, 0);
	plan_free(p);
	unload(&a);
	unload(&b);
}

/* With --runs, runs that cannot decide are the flag's: one problem, no
 * position, and ERR_USAGE. */
static void test_plan__runs_from_the_flag_that_cannot_decide_are_the_flags_problem(void **state)
{
	struct plan_flags f = flags_for(PLAN_SWEEP);
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	struct plan_input in;
	struct loaded l;
	struct plan *p = NULL;

	(void)state;
	load(&l, "version: \"1\"\nname: s\nbenchmarks:\n"
		 "  - name: a\n    commands: {c: {command: [x]}}\n"
		 "  - name: b\n    commands: {c: {command: [x]}}\n");
	in = (struct plan_input){ .suite = l.suite, .selected = l.selected, .compared = true };
	f.has_runs = true;
	f.runs = 5;
	assert_int_equal(plan_build(&f, &in, 1, &p, &pr), ERR_USAGE);
	assert_null(p);
	assert_int_equal(pr.n, 1);
	assert_true(pr.v[0].flag);
	assert_string_equal(pr.v[0].text, "--runs 5: runs 5 cannot give a 99% confidence interval: "
					  "it needs at least 8 pairs");
	plan_problems_release(&pr);
	unload(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan__a_suite_that_sets_nothing_gets_the_defaults),
		cmocka_unit_test(test_plan__a_run_compares_nothing_and_has_no_time_budget),
		cmocka_unit_test(
			test_plan__runs_come_from_the_flag_then_the_benchmark_then_the_defaults),
		cmocka_unit_test(
			test_plan__the_adaptive_rule_comes_from_the_benchmark_then_the_defaults),
		cmocka_unit_test(
			test_plan__warmup_comes_from_the_flag_then_the_benchmark_then_the_defaults),
		cmocka_unit_test(
			test_plan__the_schedule_comes_from_the_flag_then_the_benchmark_then_the_defaults),
		cmocka_unit_test(test_plan__duets_on_a_terminal_are_refused),
		cmocka_unit_test(test_plan__tolerances_come_from_the_benchmark_then_the_defaults),
		cmocka_unit_test(
			test_plan__the_counting_backend_comes_from_the_command_then_the_benchmark),
		cmocka_unit_test(test_plan__only_the_commands_regression_names_are_compared),
		cmocka_unit_test(test_plan__a_size_with_compare_false_is_left_out_of_comparisons),
		cmocka_unit_test(test_plan__a_suite_not_compared_and_a_benchmark_not_selected),
		cmocka_unit_test(test_plan__the_looks_follow_runs_or_the_cap),
		cmocka_unit_test(
			test_plan__bisect_plans_every_step_at_the_strictest_confidence_over_log2_n),
		cmocka_unit_test(test_plan__max_time_comes_from_the_flag_then_the_suite),
		cmocka_unit_test(
			test_plan__max_total_time_comes_from_the_flag_then_the_strictest_suite),
		cmocka_unit_test(
			test_plan__the_accept_label_applies_to_ci_when_the_event_carries_it),
		cmocka_unit_test(test_plan__the_spawner_and_separate_builds),
		cmocka_unit_test(test_plan__a_benchmark_is_found_by_its_name),
		cmocka_unit_test(
			test_plan__looks_that_cannot_decide_are_problems_at_their_position),
		cmocka_unit_test(
			test_plan__runs_from_the_flag_that_cannot_decide_are_the_flags_problem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
