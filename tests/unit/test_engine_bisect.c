/*
 * The engine's part of a bisect (engine/bisect.c, docs/sweeps.md "himorime
 * bisect") driven through its seam by a scripted measurer, as in
 * test_engine.c: every run returns a duration from a deterministic stream
 * and no process starts. What is asserted is how the engine runs a search's
 * comparisons: bad against good locates the change at the first look that
 * can (or says why it cannot), each candidate stops at the look that places
 * it, an unplaced one runs to the cap, its recheck is one look at the cap, a
 * command whose change was not located is not measured in the steps, and
 * what a comparison comes to with failures and time budgets. A search on a
 * count runs no rounds at all: only the counted runs of its count, judged
 * by the counts rule, more while it asks, and its recheck at the cap of runs.
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
#include "plan/plan.h"
#include "results/results.h"
#include "spawner/run.h"
#include "suite/suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAD_ROOT "/himorime-engine-test/head"
#define BASE_ROOT "/himorime-engine-test/base"
#define MS	  (UINT64_C(1000000))

/* ---- the scripted measurer ---------------------------------------------- */

/* Head's level against base (10 ms) per command: "tool" and "other"; a
 * level of 0 alternates e^0.55 and 1 (pairs that straddle the midpoint of a
 * threefold change, ln 3 / 2). Each run advances the clock by its wall time. */
struct fake {
	double tool, other;
	const char *fail;  /* the command whose head run exits 1; NULL: none */
	size_t runs[2][2]; /* [tool, other][head, base] */
	uint64_t clock_ns;
	/* Counted runs: [tool, other][head, base], and head's instructions
	 * against base's 1,000,000 at the levels above; a head that `wobbles`
	 * counts 0.5% more on every other run (a side beyond the noise bound). */
	size_t counted[2][2];
	const char *wobbles;
};

static uint64_t head_wall(double level, size_t i)
{
	if (level == 0)
		return (uint64_t)llround(10e6 * (i % 2 ? exp(0.55) : 1.0));
	return (uint64_t)llround(10e6 * level);
}

static int fake_run(void *ctx, const struct run_request *req, unsigned runs, struct run_result *res,
		    struct err *err)
{
	struct fake *f = ctx;
	bool head = !strcmp(req->cwd, HEAD_ROOT);
	bool tool = !strcmp(req->argv[0], "tool");
	size_t *n = &f->runs[tool ? 0 : 1][head ? 0 : 1];

	(void)err;
	assert_int_equal(runs, 1);
	memset(res, 0, sizeof(*res));
	res->status = RUN_EXITED;
	res->wall_ns = head ? head_wall(tool ? f->tool : f->other, *n) : 10 * MS;
	if (head && f->fail && !strcmp(req->argv[0], f->fail))
		res->code = 1;
	res->user_ns = res->wall_ns / 2;
	f->clock_ns += res->wall_ns;
	(*n)++;
	return 1;
}

static void fake_cancel(void *ctx)
{
	(void)ctx;
}

/* Valgrind counts here, with the version the reports name. */
static void fake_choose(void *ctx, enum counter_backend want, enum count_what what,
			char *const *envp, struct counter_choice *out)
{
	(void)ctx;
	(void)want;
	(void)envp;
	memset(out, 0, sizeof(*out));
	out->version = xstrdup("3.19.0");
	out->name = "valgrind";
	out->event[0] = what == COUNT_INSTRUCTIONS ? "Ir" : "tbk";
	out->event[1] = what == COUNT_INSTRUCTIONS ? NULL : "tb";
}

/* A counted run: its side from the counted root it runs in, a link to the
 * side's root. */
static int fake_count(void *ctx, const struct count_request *req, uint64_t counts[2],
		      struct strbuf *why, struct err *err)
{
	struct fake *f = ctx;
	bool tool = !strcmp(req->run->argv[0], "tool");
	char root[512];
	ssize_t len = readlink(req->run->cwd, root, sizeof(root) - 1);
	bool head, wobble;
	size_t *n;

	(void)why;
	(void)err;
	assert_true(len > 0);
	root[len] = '\0';
	head = !strcmp(root, HEAD_ROOT);
	n = &f->counted[tool ? 0 : 1][head ? 0 : 1];
	wobble = head && f->wobbles && !strcmp(req->run->argv[0], f->wobbles) && *n % 2;
	counts[0] = head ? (uint64_t)llround(1e6 * (tool ? f->tool : f->other)) : 1000000;
	counts[0] += wobble ? counts[0] / 200 : 0;
	counts[1] = 10 * counts[0];
	(*n)++;
	return 0;
}

static const char *fake_fallback_reason(const void *ctx)
{
	(void)ctx;
	return NULL;
}

static uint64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->clock_ns;
}

/* ---- a search ------------------------------------------------------------ */

#define SUITE                                                                                      \
	"version: \"1\"\nname: s\nbenchmarks:\n  - name: b\n    warmup: 0\n%s"                     \
	"    commands:\n      tool: {command: [tool]}\n      other: {command: [other]}\n"

/* A search of 11 candidates over one suite: its plan, runner and the
 * findings of the last comparison. */
struct search {
	struct fake f;
	struct runner_measurer m;
	struct suite_diags diags;
	struct suite *s;
	struct plan *plan;
	struct runner *r;
	struct results *doc;
	struct runner_bisect_finding *v;
	size_t n;
	char *dir, *path;
	enum metric metric; /* searched: latency unless set */
};

static void search_open(struct search *x, const char *extra)
{
	struct plan_flags pf = PLAN_FLAGS_INIT;
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	struct runner_options o = RUNNER_OPTIONS_INIT;
	struct err err = ERR_INIT;
	bool selected[1] = { true };
	struct plan_input in = { .selected = selected, .compared = true };
	char *yaml = xasprintf(SUITE, extra);

	memset(x, 0, sizeof(*x));
	x->m = (struct runner_measurer){ .run = fake_run,
					 .cancel = fake_cancel,
					 .fallback_reason = fake_fallback_reason,
					 .now_ns = fake_now,
					 .choose = fake_choose,
					 .count = fake_count,
					 .ctx = &x->f };
	assert_int_equal(fsio_mkdtemp("himorime-engine-bisect-", &x->dir, &err), 0);
	x->path = xasprintf("%s/himorime.yaml", x->dir);
	assert_int_equal(fsio_write_atomic(x->path, yaml, strlen(yaml), &err), 0);
	free(yaml);
	suite_diags_init(&x->diags);
	if (suite_load(x->path, &x->s, &x->diags, &err) < 0)
		fail_msg("suite: %s", err.msg);
	in.suite = x->s;
	pf.verb = PLAN_BISECT;
	pf.candidates = 11;
	if (plan_build(&pf, &in, 1, &x->plan, &pr) < 0)
		fail_msg("plan: %s", pr.v[0].text);
	o.seed = 42;
	runner_new_with(&o, x->plan, &x->m, &x->r);
}

/* One comparison of the search in `phase`, head at these levels; returns
 * its outcome, its findings in x->v. */
static enum step_outcome search_measure(struct search *x, enum runner_bisect_phase phase,
					double tool, double other)
{
	struct runner_roots roots = { .head = HEAD_ROOT, .base = BASE_ROOT };
	struct err err = ERR_INIT;

	x->f.tool = tool;
	x->f.other = other;
	memset(x->f.runs, 0, sizeof(x->f.runs));
	memset(x->f.counted, 0, sizeof(x->f.counted));
	free(x->v);
	results_free(x->doc);
	x->doc = results_new(RESULTS_MODE_COMPARE);
	runner_bisect(x->r, x->metric, phase);
	runner_budget_start(x->r, 0, 0);
	assert_int_equal(runner_run_suite(x->r, &x->plan->suites[0], &roots, x->doc, &err), 0);
	return runner_bisect_outcome(x->r, x->doc, &x->v, &x->n);
}

static void search_close(struct search *x)
{
	free(x->v);
	results_free(x->doc);
	runner_free(x->r);
	plan_free(x->plan);
	suite_free(x->s);
	suite_diags_release(&x->diags);
	unlink(x->path);
	assert_int_equal(rmdir(x->dir), 0);
	free(x->path);
	free(x->dir);
}

static const struct judge_plan *looks(const struct search *x)
{
	return &x->plan->suites[0].benchmarks[0].looks;
}

/* The first look of the plan that can give an interval. */
static unsigned first_interval(const struct search *x)
{
	unsigned i;

	for (i = 0; i < looks(x)->n_looks; i++)
		if (looks(x)->k[i] > 0)
			return looks(x)->looks[i];
	fail_msg("no look gives an interval");
	return 0;
}

/* The finding of a command, and the pairs each side of it ran. */
static const struct runner_bisect_finding *finding(const struct search *x, const char *command,
						   size_t pairs)
{
	size_t i, k = strcmp(command, "tool") ? 1 : 0;

	assert_int_equal(x->f.runs[k][0], pairs);
	assert_int_equal(x->f.runs[k][1], pairs);
	for (i = 0; i < x->n; i++)
		if (x->v[i].f.command && !strcmp(x->v[i].f.command, command))
			return &x->v[i];
	fail_msg("no finding of %s", command);
	return NULL;
}

static void assert_measured(const struct runner_bisect_finding *f, enum runner_bisect_state state,
			    unsigned pairs, double change_percent)
{
	assert_int_equal(f->f.kind, STEP_COMPARED);
	assert_int_equal(f->state, state);
	assert_true(f->has_estimate && f->has_interval);
	assert_int_equal(f->pairs, pairs);
	assert_true(fabs(f->confidence - 0.9975) < 1e-12);
	assert_true(fabs(f->change_percent - change_percent) < 1e-6);
	assert_true(fabs(f->midpoint_percent - (sqrt(3.0) - 1) * 100) < 1e-6);
}

/* ---- tests --------------------------------------------------------------- */

/* A threefold change is located at the first look with an interval, and
 * each candidate placed at its own first look: nearer good at good's level,
 * nearer bad at bad's, with the midpoint +73.2% (sqrt 3). */
static void test_engine_bisect__locates_then_places_at_the_first_look(void **state)
{
	struct search x;
	unsigned first;

	(void)state;
	search_open(&x, "");
	first = first_interval(&x);
	assert_int_equal(first, 15);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 3, 3), STEP_BAD);
	assert_int_equal(x.n, 2);
	assert_measured(finding(&x, "tool", first), RUNNER_BISECT_LOCATED, first, 200);
	assert_string_equal(finding(&x, "tool", first)->reason, "");
	assert_measured(finding(&x, "other", first), RUNNER_BISECT_LOCATED, first, 200);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 1, 1), STEP_GOOD);
	assert_measured(finding(&x, "tool", first), RUNNER_BISECT_GOOD, first, 0);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 3, 1), STEP_BAD);
	assert_measured(finding(&x, "tool", first), RUNNER_BISECT_BAD, first, 200);
	assert_measured(finding(&x, "other", first), RUNNER_BISECT_GOOD, first, 0);
	search_close(&x);
}

/* A candidate whose pairs straddle the midpoint runs to the cap, unplaced
 * with the reason; its recheck is one look at the cap, at the whole level;
 * the other command, placed good, stops at its first look both times. */
static void test_engine_bisect__unplaced_runs_to_the_cap_then_one_look_at_it(void **state)
{
	const struct judge_plan *recheck;
	const struct runner_bisect_finding *f;
	struct search x;

	(void)state;
	search_open(&x, "    max_runs: 30\n");
	recheck = &x.plan->suites[0].benchmarks[0].recheck;
	assert_int_equal(recheck->n_looks, 1);
	assert_int_equal(recheck->looks[0], 30);
	assert_true(recheck->k[0] > looks(&x)->k[looks(&x)->n_looks - 1]);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 3, 3), STEP_BAD);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 0, 1), STEP_UNPLACED);
	f = finding(&x, "tool", 30);
	assert_int_equal(f->state, RUNNER_BISECT_UNPLACED);
	assert_int_equal(f->pairs, 30);
	assert_string_equal(f->reason, "the interval +0.0% … +73.3% still contains the midpoint "
				       "+73.2% after 30 pairs");
	assert_int_equal(finding(&x, "other", 15)->state, RUNNER_BISECT_GOOD);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_RECHECK, 0, 1), STEP_UNPLACED);
	f = finding(&x, "tool", 30);
	assert_int_equal(f->pairs, 30);
	assert_int_equal(finding(&x, "other", 30)->state, RUNNER_BISECT_GOOD);
	search_close(&x);
}

/* No change between good and bad: not located, with why, after the last
 * look; a command whose change is not located takes no part in the steps
 * and is not measured, while the other places the candidate. */
static void test_engine_bisect__what_is_not_located_takes_no_part(void **state)
{
	const struct runner_bisect_finding *f;
	struct search x;

	(void)state;
	search_open(&x, "    max_runs: 30\n");
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 1, 1), STEP_UNPLACED);
	f = finding(&x, "tool", 30);
	assert_int_equal(f->state, RUNNER_BISECT_NOT_LOCATED);
	assert_string_equal(f->reason, "bad against good is +0.0% (+0.0% … +0.0%) after 30 pairs: "
				       "its interval reaches half of it, +0.0%");
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 1, 3), STEP_BAD);
	assert_int_equal(finding(&x, "tool", 30)->state, RUNNER_BISECT_NOT_LOCATED);
	assert_int_equal(finding(&x, "other", 15)->state, RUNNER_BISECT_LOCATED);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 3, 3), STEP_BAD);
	f = finding(&x, "tool", 0);
	assert_int_equal(f->f.kind, STEP_NOT_COMPARED);
	assert_int_equal(f->state, RUNNER_BISECT_NO_PART);
	assert_int_equal(finding(&x, "other", 15)->state, RUNNER_BISECT_BAD);
	search_close(&x);
}

/* A command that fails is a failure of the comparison, unless another
 * places the candidate bad. */
static void test_engine_bisect__a_failing_command_fails_the_step(void **state)
{
	const struct runner_bisect_finding *f;
	struct search x;

	(void)state;
	search_open(&x, "");
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 3, 3), STEP_BAD);
	x.f.fail = "tool";
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 1, 1), STEP_FAILED);
	f = finding(&x, "tool", 1);
	assert_int_equal(f->f.kind, STEP_COMMAND_FAILED);
	assert_string_equal(f->f.message, "exited with code 1");
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 1, 3), STEP_BAD);
	search_close(&x);
}

/* A benchmark's time budget that runs out before a look decides: the
 * reason says so. */
static void test_engine_bisect__a_time_budget_says_why_it_stopped(void **state)
{
	const struct runner_bisect_finding *f;
	struct search x;

	(void)state;
	/* a round of both commands takes 80 ms: 4 rounds, no look made */
	search_open(&x, "    regression: {max_time: 320ms}\n");
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 3, 3), STEP_UNPLACED);
	f = finding(&x, "tool", 4);
	assert_int_equal(f->state, RUNNER_BISECT_NOT_LOCATED);
	assert_false(f->has_estimate);
	assert_string_equal(f->reason, "the time budget ran out after 4 pairs");
	/* a step: 26 rounds of 47.3 ms on average, past its look at 22 */
	search_close(&x);
	search_open(&x, "    regression: {max_time: 1200ms}\n");
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 3, 3), STEP_BAD);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 0, 0), STEP_UNPLACED);
	f = finding(&x, "tool", 26);
	assert_int_equal(f->state, RUNNER_BISECT_UNPLACED);
	assert_true(f->has_estimate);
	assert_int_equal(f->pairs, 22);
	assert_string_equal(f->reason, "the time budget ran out after 26 pairs");
	search_close(&x);
}

/* The counted runs of a command on each side. */
static void assert_counted(const struct search *x, const char *command, size_t runs)
{
	size_t k = strcmp(command, "tool") ? 1 : 0;

	assert_int_equal(x->f.counted[k][0], runs);
	assert_int_equal(x->f.counted[k][1], runs);
}

#define COUNTED "    metrics: {instructions: {backend: valgrind, runs: 1}}\n"

/* On instructions: no rounds, one counted run per side (the suite's runs),
 * a +15% change located exactly (midpoint +7.2%, sqrt 1.15) and a command
 * without a change not located, then taking no part: not counted in the
 * steps, where the candidate is placed at good's or bad's level. */
static void test_engine_bisect__counts_locate_and_place_without_rounds(void **state)
{
	const struct runner_bisect_finding *f;
	struct search x;

	(void)state;
	search_open(&x, COUNTED);
	x.metric = METRIC_INSTRUCTIONS;
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 1.15, 1), STEP_BAD);
	f = finding(&x, "tool", 0);
	assert_counted(&x, "tool", 1);
	assert_int_equal(f->state, RUNNER_BISECT_LOCATED);
	assert_true(f->counts && f->has_estimate && f->has_interval);
	assert_int_equal(f->pairs, 1);
	assert_true(fabs(f->change_percent - 15) < 1e-9);
	assert_true(fabs(f->ci_low_percent - 15) < 1e-9 && fabs(f->ci_high_percent - 15) < 1e-9);
	assert_true(fabs(f->midpoint_percent - (sqrt(1.15) - 1) * 100) < 1e-9);
	f = finding(&x, "other", 0);
	assert_int_equal(f->state, RUNNER_BISECT_NOT_LOCATED);
	assert_string_equal(f->reason, "bad and good counted the same after 1 run per side");
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 1, 1.15), STEP_GOOD);
	assert_int_equal(finding(&x, "tool", 0)->state, RUNNER_BISECT_GOOD);
	assert_counted(&x, "tool", 1);
	assert_int_equal(finding(&x, "other", 0)->state, RUNNER_BISECT_NO_PART);
	assert_counted(&x, "other", 0);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 1.15, 1), STEP_BAD);
	f = finding(&x, "tool", 0);
	assert_int_equal(f->state, RUNNER_BISECT_BAD);
	assert_true(fabs(f->change_percent - 15) < 1e-9);
	assert_string_equal(f->reason, "");
	search_close(&x);
}

/* A head whose counts wobble by 0.5% is beyond the noise bound: from the
 * default 3 runs per side, 2 more at a time up to the cap of 9, then not placed with the counts
 * rule's reason; its recheck starts at the cap. A search on latency counts
 * nothing, whatever the suite asks for. */
static void test_engine_bisect__noisy_counts_take_runs_to_the_cap(void **state)
{
	const struct runner_bisect_finding *f;
	struct search x;

	(void)state;
	search_open(&x, "    metrics: {instructions: {backend: valgrind}}\n");
	x.metric = METRIC_INSTRUCTIONS;
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 1.15, 1.15), STEP_BAD);
	assert_counted(&x, "tool", 3);
	x.f.wobbles = "tool";
	assert_int_equal(search_measure(&x, RUNNER_BISECT_STEP, 1, 1), STEP_UNPLACED);
	assert_counted(&x, "tool", 9);
	assert_counted(&x, "other", 3);
	f = finding(&x, "tool", 0);
	assert_int_equal(f->state, RUNNER_BISECT_UNPLACED);
	assert_int_equal(f->pairs, 9);
	assert_false(f->has_interval);
	assert_string_equal(f->reason, "counts vary by 0.5% between runs, more than the noise "
				       "bound 0.1%, after 9 runs per side");
	assert_int_equal(search_measure(&x, RUNNER_BISECT_RECHECK, 1, 1), STEP_UNPLACED);
	assert_counted(&x, "tool", 9);
	assert_counted(&x, "other", 9);
	search_close(&x);
	search_open(&x, COUNTED);
	assert_int_equal(search_measure(&x, RUNNER_BISECT_TARGET, 3, 3), STEP_BAD);
	assert_counted(&x, "tool", 0);
	assert_counted(&x, "other", 0);
	search_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_bisect__locates_then_places_at_the_first_look),
		cmocka_unit_test(test_engine_bisect__unplaced_runs_to_the_cap_then_one_look_at_it),
		cmocka_unit_test(test_engine_bisect__what_is_not_located_takes_no_part),
		cmocka_unit_test(test_engine_bisect__a_failing_command_fails_the_step),
		cmocka_unit_test(test_engine_bisect__a_time_budget_says_why_it_stopped),
		cmocka_unit_test(test_engine_bisect__counts_locate_and_place_without_rounds),
		cmocka_unit_test(test_engine_bisect__noisy_counts_take_runs_to_the_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
