/*
 * The measuring engine driven through its seam (struct runner_measurer,
 * engine/runner.h) by a scripted measurer: every run returns a duration from
 * a deterministic stream and no process starts. What is asserted is the
 * engine's own logic: how many rounds and runs it makes, when a plain run
 * stops (stop rule) and when a comparison stops (the looks of
 * docs/comparison.md), the verdicts and result states it writes into the
 * document, a failing command, an interrupt, and budgets.
 *
 * Each test loads a small suite from YAML (suite_load, the real loader) and
 * runs it with runner_run_suite on two fake roots: requests whose cwd is
 * HEAD_ROOT are head's, BASE_ROOT base's. The engine still makes and removes
 * its private directories under $TMPDIR, as it does for real runs.
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
#include "common/strbuf.h"
#include "judge/judge.h"
#include "measure/counter.h"
#include "plan/plan.h"
#include "results/results.h"
#include "spawner/run.h"
#include "suite/suite.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAD_ROOT    "/himorime-engine-test/head"
#define BASE_ROOT    "/himorime-engine-test/base"
#define MS	     (UINT64_C(1000000))
#define MAX_COMMANDS 8
#define MAX_CALLS    64

/* ---- the scripted measurer ---------------------------------------------- */

/* A command's stream on one side: run i (0-based, warmups included) lasts
 * wall(command, head, i) ns and uses cpu(...) ns of user time. */
struct fake {
	uint64_t (*wall)(const char *command, bool head, size_t i);
	uint64_t (*cpu)(const char *command, bool head, size_t i); /* NULL: half the wall time */
	/* The run fail_at (0-based) of fail_command on head exits with
	 * fail_code and writes fail_stderr; NULL: nothing fails. */
	const char *fail_command;
	size_t fail_at;
	int fail_code;
	const char *fail_stderr;
	/* The measurer itself fails (ERR_EXEC) when asked for head's run
	 * broken_at (0-based) of broken_command; NULL: never. */
	const char *broken_command;
	size_t broken_at;
	/* The interrupt_at-th start (1-based) is interrupted as SIGINT would:
	 * runner_interrupt(), whose cancel ends that run. 0: never. */
	size_t interrupt_at;
	struct runner *runner;
	bool cancelled;
	size_t starts;
	char names[MAX_COMMANDS][32];
	size_t runs[MAX_COMMANDS][2]; /* [command][0: head, 1: base] */
	size_t n_names;
	/* `touch PATH` (a build) creates PATH; every run's first argument,
	 * per side, is kept in last_arg. */
	char last_arg[2][512];
	/* The runs asked for by each call, in order (the first MAX_CALLS). */
	unsigned batches[MAX_CALLS];
	size_t calls;
	/* The time budgets' clock: each run advances it by its wall time, and
	 * nothing else does (docs/comparison.md, "Time budgets"). */
	uint64_t clock_ns;
	/* --max-time, and the whole budget runner_budget_start() gets for
	 * `budget_benchmarks` benchmarks; 0: none. */
	uint64_t max_time_ns, total_ns;
	size_t budget_benchmarks;
	/* Counting (measure/counter.h): the version of the backend that counts
	 * (NULL: none, with count_why), perf when count_perf (instructions
	 * only), and run i of a command's counts on one side, in its timed runs
	 * (perf) or in counted runs; allocated bytes are 10 times the blocks.
	 * Each counted run advances the clock by count_ns; the one count_fail_at
	 * (1-based) of all of them fails with count_fail_why. */
	const char *count_version, *count_why;
	bool count_perf;
	uint64_t (*counts)(const char *command, bool head, size_t i);
	uint64_t count_ns;
	size_t count_fail_at;
	const char *count_fail_why;
	/* What the engine asked: the backends and counts, the counted runs
	 * per command and side. */
	enum counter_backend wanted[4];
	enum count_what what[4];
	size_t n_chosen;
	size_t counted[MAX_COMMANDS][2], n_counted;
	/* Duets (docs/design.md, "Duet runs"): the CPUs measurer_duet_cpus
	 * finds (one_cpu: none, with its message); both sides start at the
	 * clock and it moves on to the later end. The head run timeout_at
	 * (1-based; 0: none) of timeout_command times out and stops its twin.
	 * Each duet's command and base's CPU are kept, in order. */
	bool one_cpu;
	const char *timeout_command;
	size_t timeout_at;
	size_t duets, cpu_asks;
	char duet_command[MAX_CALLS][32];
	int duet_base_cpu[MAX_CALLS];
	/* A calibration (runner_calibration after the suite), with --schedule
	 * `schedule` when has_schedule; the runs started alone before each
	 * duet (calls, when it started). */
	bool calibrate, has_schedule;
	enum schedule schedule;
	size_t calls_before_duet[MAX_CALLS];
};

/* Whether the run being made is a side of a duet: for streams whose noise
 * depends on the schedule. */
static bool in_duet;

/* The index of a command's name among those seen, added when new. */
static size_t name_index(struct fake *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->n_names; i++)
		if (!strcmp(f->names[i], name))
			return i;
	assert_true(f->n_names < MAX_COMMANDS);
	snprintf(f->names[f->n_names], sizeof(f->names[0]), "%s", name);
	return f->n_names++;
}

static size_t *run_counter(struct fake *f, const char *name, bool head)
{
	return &f->runs[name_index(f, name)][head ? 0 : 1];
}

/* Counted runs of `name` on one side so far. */
static size_t *counted_of(struct fake *f, const char *name, bool head)
{
	return &f->counted[name_index(f, name)][head ? 0 : 1];
}

/* Runs of `name` on one side, warmups included. */
static size_t runs_of(const struct fake *f, const char *name, bool head)
{
	size_t i;

	for (i = 0; i < f->n_names; i++)
		if (!strcmp(f->names[i], name))
			return f->runs[i][head ? 0 : 1];
	return 0;
}

static void write_stderr(const char *path, const char *text)
{
	struct err err = ERR_INIT;

	assert_int_equal(fsio_write_atomic(path, text, strlen(text), &err), 0);
}

static int fake_run_one(void *ctx, const struct run_request *req, struct run_result *res,
			struct err *err)
{
	struct fake *f = ctx;
	const char *name = req->argv[0];
	bool head = !strcmp(req->cwd, HEAD_ROOT);
	size_t *n;

	(void)err;
	assert_true(head || !strcmp(req->cwd, BASE_ROOT));
	memset(res, 0, sizeof(*res));
	f->starts++;
	if (f->interrupt_at && f->starts == f->interrupt_at)
		runner_interrupt(f->runner);
	if (f->cancelled) {
		f->cancelled = false;
		res->status = RUN_INTERRUPTED;
		return 0;
	}
	n = run_counter(f, name, head);
	if (req->argv[1])
		snprintf(f->last_arg[head ? 0 : 1], sizeof(f->last_arg[0]), "%s", req->argv[1]);
	if (!strcmp(name, "touch"))
		write_stderr(req->argv[1], "");
	res->status = RUN_EXITED;
	if (f->fail_command && head && !strcmp(name, f->fail_command) && *n == f->fail_at) {
		res->code = f->fail_code;
		write_stderr(req->stderr_path, f->fail_stderr);
	}
	res->wall_ns = f->wall(name, head, *n);
	f->clock_ns += res->wall_ns;
	if (req->count) { /* perf counts the timed runs */
		res->count_status = COUNT_OK;
		res->count = f->counts(name, head, *n);
	}
	res->user_ns = f->cpu ? f->cpu(name, head, *n) : res->wall_ns / 2;
	(*n)++;
	return 0;
}

/* A batch, as the real measurer makes it (run.h): run after run until one
 * ends it. */
static int fake_run(void *ctx, const struct run_request *req, unsigned runs, struct run_result *res,
		    struct err *err)
{
	struct fake *f = ctx;
	unsigned made = 0;

	assert_true(runs >= 1 && runs <= RUN_MAX_BATCH);
	if (f->broken_command && !strcmp(req->argv[0], f->broken_command) &&
	    !strcmp(req->cwd, HEAD_ROOT) && runs_of(f, f->broken_command, true) == f->broken_at)
		return err_set(err, ERR_EXEC, "the spawner went away");
	if (f->calls < MAX_CALLS)
		f->batches[f->calls] = runs;
	f->calls++;
	do
		fake_run_one(ctx, req, &res[made], err);
	while (++made < runs && !run_result_ends_batch(&res[made - 1]));
	return (int)made;
}

static int fake_duet_cpus(void *ctx, int cpu[2], struct err *err)
{
	struct fake *f = ctx;

	f->cpu_asks++;
	if (f->one_cpu)
		return err_set(err, ERR_INVALID,
			       "duet runs need two CPUs, and himorime may use only CPU 0 (its "
			       "affinity mask): use the interleaved schedule");
	cpu[0] = 2;
	cpu[1] = 5;
	return 0;
}

/* Both sides as fake_run_one makes them, started together: each starts at
 * 1000 ns after the clock (head 700 ns after base) and ends its wall time
 * later, and the clock moves on to the later end. A cancel stops both; a timeout of head
 * stops base, as the real duet does (spawner/run.h). */
static int fake_duet(void *ctx, const struct duet_request *req, struct duet_result *res,
		     struct err *err)
{
	struct fake *f = ctx;
	uint64_t t0 = f->clock_ns, last = t0;
	int i;

	assert_string_equal(req->side[0].cwd, BASE_ROOT);
	assert_string_equal(req->side[1].cwd, HEAD_ROOT);
	assert_int_not_equal(req->cpu[0], req->cpu[1]);
	assert_false(req->side[0].terminal || req->side[1].terminal);
	memset(res, 0, sizeof(*res));
	if (f->duets < MAX_CALLS) {
		snprintf(f->duet_command[f->duets], sizeof(f->duet_command[0]), "%s",
			 req->side[0].argv[0]);
		f->duet_base_cpu[f->duets] = req->cpu[0];
		f->calls_before_duet[f->duets] = f->calls;
	}
	f->duets++;
	in_duet = true;
	for (i = 0; i < 2; i++) {
		struct run_result *x = &res->side[i];
		if (i == 1 && res->side[0].status == RUN_INTERRUPTED) {
			x->status = RUN_INTERRUPTED; /* the cancel stopped both */
			continue;
		}
		fake_run_one(ctx, &req->side[i], x, err);
		if (i == 1 && f->timeout_command &&
		    !strcmp(req->side[1].argv[0], f->timeout_command) &&
		    runs_of(f, f->timeout_command, true) == f->timeout_at) {
			x->status = RUN_TIMED_OUT;
			res->side[0].status = RUN_INTERRUPTED;
			res->stopped_by_twin[0] = true;
		}
		if (x->status == RUN_INTERRUPTED) {
			res->side[0].status = RUN_INTERRUPTED; /* a cancel stops both */
			continue;
		}
		x->start_ns = t0 + 1000 + (uint64_t)i * 700;
		x->end_ns = x->start_ns + x->wall_ns;
		last = x->end_ns > last ? x->end_ns : last;
	}
	res->start_skew_ns = 700;
	f->clock_ns = last;
	in_duet = false;
	return 0;
}

static void fake_cancel(void *ctx)
{
	((struct fake *)ctx)->cancelled = true;
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

static void fake_choose(void *ctx, enum counter_backend want, enum count_what what,
			char *const *envp, struct counter_choice *out)
{
	static const char *const events[2][2] = { { "Ir", NULL }, { "tbk", "tb" } };
	struct fake *f = ctx;

	(void)envp;
	assert_true(f->n_chosen < 4);
	f->wanted[f->n_chosen] = want;
	f->what[f->n_chosen++] = what;
	memset(out, 0, sizeof(*out));
	if (!f->count_version) {
		out->why = xstrdup(f->count_why);
		return;
	}
	out->version = xstrdup(f->count_version);
	out->perf = f->count_perf && what == COUNT_INSTRUCTIONS;
	out->name = out->perf ? "perf" : "valgrind";
	out->event[0] = out->perf ? "instructions:u" : events[what][0];
	out->event[1] = out->perf ? NULL : events[what][1];
}

/* A counted run: its command and side from the counted root it runs in, a
 * link to the side's root. */
static int fake_count(void *ctx, const struct count_request *req, uint64_t counts[2],
		      struct strbuf *why, struct err *err)
{
	struct fake *f = ctx;
	const char *name = req->run->argv[0];
	char root[512];
	ssize_t len = readlink(req->run->cwd, root, sizeof(root) - 1);
	bool head;
	size_t *n;

	(void)err;
	assert_true(len > 0);
	root[len] = '\0';
	head = !strcmp(root, HEAD_ROOT);
	assert_true(head || !strcmp(root, BASE_ROOT));
	f->clock_ns += f->count_ns;
	if (++f->n_counted == f->count_fail_at) {
		strbuf_adds(why, f->count_fail_why);
		return ERR_METRIC;
	}
	n = counted_of(f, name, head);
	counts[0] = f->counts(name, head, (*n)++);
	counts[1] = 10 * counts[0];
	return 0;
}

/* ---- running a suite ---------------------------------------------------- */

/* The plan of suite s for a run or a comparison, with --max-time max_time_ns
 * (0: none). */
static struct plan *plan_with(const struct suite *s, const bool *selected, bool compare,
			      uint64_t max_time_ns, const struct fake *f)
{
	struct plan_flags pf = PLAN_FLAGS_INIT;
	struct plan_input in = { .suite = s, .selected = selected, .compared = compare };
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	struct plan *p = NULL;

	pf.verb = compare ? PLAN_COMPARE : PLAN_RUN;
	if (f && f->calibrate)
		pf.verb = PLAN_CALIBRATE;
	pf.has_schedule = f && f->has_schedule;
	pf.schedule = f ? f->schedule : SCHEDULE_INTERLEAVED;
	pf.max_time_ns = max_time_ns;
	if (plan_build(&pf, &in, 1, &p, &pr) < 0)
		fail_msg("plan: %s", pr.v[0].text);
	return p;
}

static struct plan *plan_of(const struct suite *s, const bool *selected, bool compare,
			    uint64_t max_time_ns)
{
	return plan_with(s, selected, compare, max_time_ns, NULL);
}

struct outcome {
	int rc;
	struct err err;
	struct results *doc;
	struct judge_plan plan; /* the first benchmark's looks, when comparing */
};

static void run_suite(struct fake *f, const char *yaml, bool compare, struct outcome *out)
{
	struct runner_options o = RUNNER_OPTIONS_INIT;
	struct runner_measurer m = {
		.run = fake_run,
		.cancel = fake_cancel,
		.fallback_reason = fake_fallback_reason,
		.ctx = f,
		.now_ns = fake_now,
		.choose = fake_choose,
		.count = fake_count,
		.duet_cpus = fake_duet_cpus,
		.duet = fake_duet,
	};
	struct runner_roots roots = { NULL, NULL, NULL, NULL, NULL };
	struct suite_diags diags;
	struct suite *s = NULL;
	struct plan *plan;
	struct err err = ERR_INIT;
	char *dir = NULL, *path;
	bool selected[8];
	size_t i;

	assert_int_equal(fsio_mkdtemp("himorime-engine-", &dir, &err), 0);
	path = xasprintf("%s/himorime.yaml", dir);
	assert_int_equal(fsio_write_atomic(path, yaml, strlen(yaml), &err), 0);
	suite_diags_init(&diags);
	if (suite_load(path, &s, &diags, &err) < 0)
		fail_msg("suite: %s", err.msg);
	assert_true(s->benchmark_count <= 8);
	for (i = 0; i < 8; i++)
		selected[i] = true;
	o.seed = 42;
	memset(out, 0, sizeof(*out));
	out->err = (struct err)ERR_INIT;
	plan = plan_with(s, selected, compare, f->max_time_ns, f);
	if (compare)
		out->plan = plan->suites[0].benchmarks[0].looks;
	runner_new_with(&o, plan, &m, &f->runner);
	runner_budget_start(f->runner, f->total_ns, f->budget_benchmarks);
	out->doc = results_new(compare ? RESULTS_MODE_COMPARE : RESULTS_MODE_RUN);
	roots.head = HEAD_ROOT;
	roots.base = compare ? BASE_ROOT : NULL;
	out->rc = runner_run_suite(f->runner, &plan->suites[0], &roots, out->doc, &out->err);
	if (f->calibrate)
		runner_calibration(out->doc, plan);
	runner_free(f->runner);
	f->runner = NULL;
	plan_free(plan);
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(path);
	free(dir);
}

static const struct results_benchmark *bench(const struct outcome *o, size_t i)
{
	assert_int_equal(o->doc->n_suites, 1);
	assert_true(i < o->doc->suites[0].n_benchmarks);
	return &o->doc->suites[0].benchmarks[i];
}

static const struct results_command *command(const struct outcome *o, size_t b, size_t c)
{
	assert_true(c < bench(o, b)->n_commands);
	return &bench(o, b)->commands[c];
}

static const struct comparison *comparison_of(const struct results_command *rc, enum metric m)
{
	size_t i;

	for (i = 0; i < rc->n_comparisons; i++)
		if (rc->comparisons[i].metric == m && !rc->comparisons[i].derived)
			return &rc->comparisons[i];
	fail_msg("no comparison of metric %d", (int)m);
	return NULL;
}

/* ---- streams ------------------------------------------------------------ */

/* 10 ms, every run, both sides. */
static uint64_t steady_10ms(const char *command, bool head, size_t i)
{
	(void)command;
	(void)head;
	(void)i;
	return 10 * MS;
}

/* fast: 10 ms; slow: 25 ms. */
static uint64_t fast_and_slow(const char *command, bool head, size_t i)
{
	(void)head;
	(void)i;
	return strcmp(command, "slow") ? 10 * MS : 25 * MS;
}

/* 10, 11, 12, 13, 14, 10, 11, ... ms */
static uint64_t sawtooth(const char *command, bool head, size_t i)
{
	(void)command;
	(void)head;
	return (10 + i % 5) * MS;
}

/* Base 10 ms; head exp(r) times that, for a log ratio r per test. */
static uint64_t scaled(double r)
{
	return (uint64_t)llround(10e6 * exp(r));
}

static uint64_t head_20_percent_slower(const char *command, bool head, size_t i)
{
	(void)command;
	(void)i;
	return head ? 12 * MS : 10 * MS;
}

static uint64_t head_20_percent_faster(const char *command, bool head, size_t i)
{
	(void)command;
	(void)i;
	return head ? 8 * MS : 10 * MS;
}

/* Head's first run is half as long, every other one e^0.1 (10.5%) longer.
 * Of the n(n+1)/2 Walsh averages of the n log ratios exactly n are negative
 * (the outlier alone and with each other pair), the rest are 0.1: the
 * interval's low end is above ln(1.05) once the look's k exceeds n. */
static uint64_t slower_after_an_outlier(const char *command, bool head, size_t i)
{
	(void)command;
	if (!head)
		return 10 * MS;
	return i == 0 ? 5 * MS : scaled(0.1);
}

/* Head alternately e^0.3 times and e^-0.3 times base: the interval spans
 * [-0.3, 0.3] at every look, across the 5% band. */
static uint64_t alternating(const char *command, bool head, size_t i)
{
	(void)command;
	if (!head)
		return 10 * MS;
	return scaled(i % 2 ? -0.3 : 0.3);
}

/* ---- plain runs ----------------------------------------------------------- */

static void test_engine__fixed_runs_make_exactly_that_many_rounds(void **state)
{
	struct fake f = { .wall = sawtooth };
	struct outcome o;
	const struct results_command *c;
	size_t i;

	(void)state;
	run_suite(&f,
		  "version: \"1\"\nname: fixed\nbenchmarks:\n"
		  "  - name: b\n    runs: 7\n    warmup: 2\n"
		  "    commands:\n      one: {command: [one]}\n      two: {command: [two]}\n",
		  false, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(bench(&o, 0)->rounds, 7);
	assert_int_equal(runs_of(&f, "one", true), 9); /* 2 warmups and 7 runs */
	assert_int_equal(runs_of(&f, "two", true), 9);
	assert_int_equal(f.starts, 18);
	c = command(&o, 0, 0);
	assert_string_equal(c->name, "one");
	assert_int_equal(c->head.warmups, 2);
	assert_int_equal(c->head.count, 7);
	assert_int_equal(c->head.metrics[METRIC_LATENCY].n_samples, 7);
	/* The samples are the runs after the warmups: 12, 13, 14, 10, 11, 12, 13 ms. */
	for (i = 0; i < 7; i++)
		assert_true(c->head.metrics[METRIC_LATENCY].samples[i] ==
			    (double)((10 + (i + 2) % 5) * MS));
	assert_true(c->head.metrics[METRIC_LATENCY].stats.median == 12e6);
	assert_int_equal(c->result, RESULT_PASS);
	assert_int_equal(bench(&o, 0)->result, RESULT_PASS);
	assert_false(c->base.present);
	results_free(o.doc);
}

/* fast (10 ms) and slow (25 ms) in a plain run with these adaptive limits:
 * both run in every round, and exactly `rounds` rounds. */
static void assert_adaptive_rounds(const char *limits, size_t rounds)
{
	struct fake f = { .wall = fast_and_slow };
	struct outcome o;
	char *yaml = xasprintf("version: \"1\"\nname: adaptive\nbenchmarks:\n  - name: b\n%s"
			       "    warmup: 0\n    commands:\n"
			       "      fast: {command: [fast]}\n      slow: {command: [slow]}\n",
			       limits);

	run_suite(&f, yaml, false, &o);
	free(yaml);
	assert_int_equal(o.rc, 0);
	assert_int_equal(bench(&o, 0)->rounds, rounds);
	assert_int_equal(runs_of(&f, "fast", true), rounds);
	assert_int_equal(runs_of(&f, "slow", true), rounds);
	assert_int_equal(command(&o, 0, 0)->head.count, rounds);
	assert_int_equal(command(&o, 0, 1)->head.count, rounds);
	results_free(o.doc);
}

static void test_engine__adaptive_run_stops_when_every_command_has_min_time(void **state)
{
	(void)state;
	/* slow (25 ms) has its 100 ms after 4 runs, but min_runs is 5; fast
	 * (10 ms) reaches 100 ms at 10 runs: the rounds stop after the 10th. */
	assert_adaptive_rounds("    min_runs: 5\n    max_runs: 50\n    min_time: 100ms\n", 10);
}

static void test_engine__adaptive_run_waits_for_min_runs(void **state)
{
	(void)state;
	/* Both have their 100 ms by the 10th round; min_runs asks for 12. */
	assert_adaptive_rounds("    min_runs: 12\n    max_runs: 50\n    min_time: 100ms\n", 12);
}

static void test_engine__adaptive_run_stops_at_max_runs(void **state)
{
	(void)state;
	assert_adaptive_rounds("    min_runs: 5\n    max_runs: 6\n    min_time: 10s\n", 6);
}

/* The calls of a run, as "1 1 5 5 2". */
static void assert_batches(const struct fake *f, const char *want)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb, 0);
	assert_true(f->calls <= MAX_CALLS);
	for (i = 0; i < f->calls; i++)
		strbuf_addf(&sb, "%s%u", i ? " " : "", f->batches[i]);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

/* Runs `name` alone under these limits; asserts the calls and the starts. */
static void run_alone(struct fake *f, const char *name, const char *limits, struct outcome *o,
		      const char *batches, size_t starts)
{
	char *yaml = xasprintf("version: \"1\"\nname: batches\nbenchmarks:\n  - name: b\n%s"
			       "    commands:\n      %s: {command: [%s]}\n",
			       limits, name, name);

	run_suite(f, yaml, false, o);
	free(yaml);
	assert_int_equal(o->rc, 0);
	assert_batches(f, batches);
	assert_int_equal(f->starts, starts);
}

/* A command that runs alone goes to the measurer in batches (docs/design.md,
 * "Measuring a run"): after the warmups and one round that gives the mean
 * run (10 ms), as many rounds as fit in 50 ms, never past the fixed runs. */
static void test_engine__a_lone_command_runs_in_batches_up_to_the_stop(void **state)
{
	struct fake f = { .wall = sawtooth };
	struct outcome o;
	const struct results_command *c;
	size_t i;

	(void)state;
	/* Two warmups, one round; the mean run is then 12 ms, and stays about
	 * that: 4 rounds a batch, and the 2 that remain. */
	run_alone(&f, "one", "    runs: 23\n    warmup: 2\n", &o, "1 1 1 4 4 4 4 4 2", 25);
	assert_int_equal(bench(&o, 0)->rounds, 23);
	c = command(&o, 0, 0);
	assert_int_equal(c->head.count, 23);
	assert_int_equal(c->head.metrics[METRIC_LATENCY].n_samples, 23);
	/* The samples, batch or not, are the runs in order. */
	for (i = 0; i < 23; i++)
		assert_true(c->head.metrics[METRIC_LATENCY].samples[i] ==
			    (double)((10 + (i + 2) % 5) * MS));
	results_free(o.doc);
}

/* An adaptive run batches only the rounds min_runs still asks for; then one
 * round at a time, since the next may be the last. */
static void test_engine__an_adaptive_run_batches_only_up_to_min_runs(void **state)
{
	struct fake f = { .wall = steady_10ms };
	struct outcome o;

	(void)state;
	run_alone(&f, "one",
		  "    min_runs: 12\n    max_runs: 50\n    min_time: 150ms\n    warmup: 0\n", &o,
		  "1 5 5 1 1 1 1", 15);
	assert_int_equal(bench(&o, 0)->rounds, 15);
	results_free(o.doc);
}

/* 10 ms runs; the run fail_at (0-based) of "bad" exits with code 3 and
 * writes "bad: no such table". */
static struct fake failing_fake(size_t fail_at)
{
	struct fake f = { .wall = steady_10ms,
			  .fail_command = "bad",
			  .fail_at = fail_at,
			  .fail_code = 3,
			  .fail_stderr = "bad: no such table\n" };

	return f;
}

/* A run that fails inside a batch is its last: nothing starts after it. */
static void test_engine__a_failure_ends_a_batch(void **state)
{
	struct fake f = failing_fake(7);
	struct outcome o;
	const struct results_command *bad;

	(void)state;
	run_alone(&f, "bad", "    runs: 20\n    warmup: 0\n", &o, "1 5 5", 8);
	bad = command(&o, 0, 0);
	assert_int_equal(bad->head.count, 7);
	assert_int_equal(bad->result, RESULT_ERROR);
	assert_string_equal(bad->head.error.message, "exited with code 3");
	assert_string_equal(bad->head.error.stderr_tail, "bad: no such table\n");
	results_free(o.doc);
}

/* No batch where something happens between the runs: two commands share
 * the rounds, prepare_each runs before each run, a comparison pairs base
 * and head. */
static void test_engine__no_batch_between_commands_hooks_or_sides(void **state)
{
	static const char *const yaml[] = {
		"version: \"1\"\nname: n\nbenchmarks:\n  - name: b\n    runs: 12\n"
		"    warmup: 0\n    commands:\n      a: {command: [a]}\n      b: {command: [b]}\n",
		"version: \"1\"\nname: n\nbenchmarks:\n  - name: b\n    runs: 12\n"
		"    warmup: 0\n    prepare_each:\n      - command: [prep]\n"
		"    commands:\n      a: {command: [a]}\n",
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(yaml) + 1; i++) {
		struct fake f = { .wall = steady_10ms };
		struct outcome o;
		bool compare = i == ARRAY_SIZE(yaml);

		run_suite(&f,
			  compare ? "version: \"1\"\nname: n\nbenchmarks:\n  - name: b\n"
				    "    warmup: 0\n    commands:\n      a: {command: [a]}\n"
				  : yaml[i],
			  compare, &o);
		assert_true(f.calls >= 12);
		for (k = 0; k < f.calls && k < MAX_CALLS; k++)
			assert_int_equal(f.batches[k], 1);
		results_free(o.doc);
	}
}

/* ---- comparisons: the looks of docs/comparison.md ---------------------- */

#define ONE_TOOL                                                                                   \
	"version: \"1\"\nname: cmp\nbenchmarks:\n  - name: b\n    warmup: 0\n%s"                   \
	"    commands:\n      tool: {command: [tool]}\n"

static void compare_one_tool(struct fake *f, const char *extra, struct outcome *o)
{
	char *yaml = xasprintf(ONE_TOOL, extra);

	run_suite(f, yaml, true, o);
	free(yaml);
	assert_int_equal(o->rc, 0);
}

/* The plan of a comparison with the default cap: 9 looks from 10 to 252 pairs. */
static void assert_default_looks(const struct judge_plan *plan)
{
	static const unsigned looks[] = { 10, 15, 22, 33, 50, 75, 112, 168, 252 };
	size_t i;

	assert_int_equal(plan->n_looks, 9);
	for (i = 0; i < 9; i++)
		assert_int_equal(plan->looks[i], looks[i]);
}

static void assert_pairs_run(const struct fake *f, const struct outcome *o, size_t pairs)
{
	assert_int_equal(bench(o, 0)->rounds, pairs);
	assert_int_equal(runs_of(f, "tool", true), pairs);
	assert_int_equal(runs_of(f, "tool", false), pairs);
	assert_int_equal(command(o, 0, 0)->head.count, pairs);
	assert_int_equal(command(o, 0, 0)->base.count, pairs);
}

static void assert_decided(const struct comparison *c, enum verdict v, unsigned look,
			   unsigned pairs)
{
	assert_int_equal(c->verdict, v);
	assert_true(c->final);
	assert_int_equal(c->looks_used, look);
	assert_int_equal(c->pairs, pairs);
}

/* With the default confidence (0.99 over 9 looks) 10 pairs cannot form an
 * interval (k = 0), 15 can: a clear change is decided at the second look. */
static void assert_first_interval_at_15_pairs(const struct judge_plan *plan)
{
	assert_default_looks(plan);
	assert_int_equal(plan->k[0], 0);
	assert_true(plan->k[1] > 0);
}

/* A clear outcome (every pair alike) in a comparison with the default
 * looks: decided at 15 pairs with this verdict, change, result and outcome. */
static void assert_clear_outcome(uint64_t (*wall)(const char *, bool, size_t), enum verdict v,
				 double change_percent, enum result_state result,
				 enum runner_outcome outcome)
{
	struct fake f = { .wall = wall };
	struct outcome o;
	const struct comparison *c;

	compare_one_tool(&f, "", &o);
	assert_first_interval_at_15_pairs(&o.plan);
	assert_pairs_run(&f, &o, 15);
	c = comparison_of(command(&o, 0, 0), METRIC_LATENCY);
	assert_decided(c, v, 2, 15);
	assert_int_equal(c->looks_planned, 9);
	assert_true(fabs(c->change_percent - change_percent) < 1e-9);
	assert_string_equal(c->reason, "");
	assert_int_equal(command(&o, 0, 0)->result, result);
	assert_int_equal(bench(&o, 0)->result, result);
	assert_int_equal(runner_summarize(o.doc, false), outcome);
	results_free(o.doc);
}

static void test_engine__regression_is_decided_at_the_first_possible_look(void **state)
{
	(void)state;
	assert_clear_outcome(head_20_percent_slower, VERDICT_REGRESSION, 20.0, RESULT_REGRESSION,
			     OUTCOME_FAILED);
}

static void test_engine__improvement_is_decided_at_the_first_possible_look(void **state)
{
	(void)state;
	assert_clear_outcome(head_20_percent_faster, VERDICT_IMPROVED, -20.0, RESULT_IMPROVED,
			     OUTCOME_OK);
}

static void test_engine__no_change_passes_at_the_first_possible_look(void **state)
{
	(void)state;
	assert_clear_outcome(steady_10ms, VERDICT_PASS, 0.0, RESULT_PASS, OUTCOME_OK);
}

static void test_engine__adaptive_comparison_stops_at_the_first_decisive_look(void **state)
{
	struct fake f = { .wall = slower_after_an_outlier };
	struct outcome o;
	const struct comparison *c;

	(void)state;
	compare_one_tool(&f, "", &o);
	/* The premise: no interval at 10 pairs, k within the pair count at
	 * 15 (the low end is negative) and beyond it at 22 (see
	 * slower_after_an_outlier). */
	assert_first_interval_at_15_pairs(&o.plan);
	assert_true(o.plan.k[1] <= 15);
	assert_true(o.plan.k[2] > 22);
	assert_pairs_run(&f, &o, 22);
	c = comparison_of(command(&o, 0, 0), METRIC_LATENCY);
	assert_decided(c, VERDICT_REGRESSION, 3, 22);
	assert_int_equal(command(&o, 0, 0)->result, RESULT_REGRESSION);
	results_free(o.doc);
}

static void test_engine__undecided_at_the_last_look_is_inconclusive(void **state)
{
	struct fake f = { .wall = alternating };
	struct outcome o;
	const struct comparison *c;

	(void)state;
	/* max_runs 15: looks at 10 and 15 pairs. */
	compare_one_tool(&f, "    max_runs: 15\n", &o);
	assert_int_equal(o.plan.n_looks, 2);
	assert_int_equal(o.plan.looks[1], 15);
	assert_pairs_run(&f, &o, 15);
	c = comparison_of(command(&o, 0, 0), METRIC_LATENCY);
	assert_decided(c, VERDICT_INCONCLUSIVE, 2, 15);
	assert_string_equal(c->reason, "the interval still straddles the tolerance after 15 pairs");
	assert_int_equal(command(&o, 0, 0)->result, RESULT_INCONCLUSIVE);
	assert_int_equal(runner_summarize(o.doc, false), OUTCOME_OK);
	assert_int_equal(runner_summarize(o.doc, true), OUTCOME_FAILED);
	results_free(o.doc);
}

/* cpu: head's user time 20% above base's on every run. */
static uint64_t cpu_20_percent_more(const char *command, bool head, size_t i)
{
	(void)command;
	(void)i;
	return head ? 6 * MS : 5 * MS;
}

static uint64_t cpu_after_an_outlier(const char *command, bool head, size_t i)
{
	return slower_after_an_outlier(command, head, i) / 2;
}

static void test_engine__ungated_metric_decided_before_the_gated_one(void **state)
{
	struct fake f = { .wall = slower_after_an_outlier, .cpu = cpu_20_percent_more };
	struct outcome o;

	(void)state;
	compare_one_tool(&f,
			 "    metrics: {cpu: true}\n"
			 "    regression: {cpu_total: {max_percent: 5%, gate: false}}\n",
			 &o);
	/* Latency (gated) is open until the third look; cpu_total (ungated)
	 * was final at the second and keeps that verdict. */
	assert_pairs_run(&f, &o, 22);
	assert_decided(comparison_of(command(&o, 0, 0), METRIC_LATENCY), VERDICT_REGRESSION, 3, 22);
	assert_decided(comparison_of(command(&o, 0, 0), METRIC_CPU_TOTAL), VERDICT_REGRESSION, 2,
		       15);
	assert_false(comparison_of(command(&o, 0, 0), METRIC_CPU_TOTAL)->gate);
	assert_true(comparison_of(command(&o, 0, 0), METRIC_LATENCY)->gate);
	results_free(o.doc);
}

static void test_engine__ungated_metric_stops_with_the_gated_one(void **state)
{
	struct fake f = { .wall = head_20_percent_slower, .cpu = cpu_after_an_outlier };
	struct outcome o;
	const struct comparison *c;

	(void)state;
	compare_one_tool(&f,
			 "    metrics: {cpu: true}\n"
			 "    regression: {cpu_total: {max_percent: 5%, gate: false}}\n",
			 &o);
	/* Latency decides at the second look; cpu_total would need the
	 * third, but the command stops: it keeps what the second look said. */
	assert_pairs_run(&f, &o, 15);
	assert_decided(comparison_of(command(&o, 0, 0), METRIC_LATENCY), VERDICT_REGRESSION, 2, 15);
	c = comparison_of(command(&o, 0, 0), METRIC_CPU_TOTAL);
	assert_decided(c, VERDICT_INCONCLUSIVE, 2, 15);
	assert_string_equal(c->reason, "the interval still straddles the tolerance after 15 "
				       "pairs, when the command's gated metrics were decided");
	assert_int_equal(command(&o, 0, 0)->result, RESULT_REGRESSION);
	results_free(o.doc);
}

/* ---- time budgets (docs/comparison.md, "Time budgets") -------------------- */

/* Head alternately 13 ms and 7 ms against base's 10 ms: +26% and -36% in
 * log ratio, an interval across the band at every look, and 40 ms of the
 * fake clock every two pairs. */
static uint64_t alternating_ms(const char *command, bool head, size_t i)
{
	(void)command;
	if (!head)
		return 10 * MS;
	return i % 2 ? 7 * MS : 13 * MS;
}

/* A comparison of one undecided command with these settings, which a time
 * budget stopped after `pairs` pairs, the last look at `look`. */
static void assert_stopped_by_time(struct fake *f, const char *extra, size_t pairs, unsigned look,
				   const char *reason, enum results_time_budget which)
{
	struct outcome o;
	const struct comparison *c;

	compare_one_tool(f, extra, &o);
	assert_pairs_run(f, &o, pairs);
	c = comparison_of(command(&o, 0, 0), METRIC_LATENCY);
	assert_int_equal(c->verdict, VERDICT_INCONCLUSIVE);
	assert_int_equal(c->looks_used, look);
	assert_string_equal(c->reason, reason);
	assert_int_equal(bench(&o, 0)->time_budget_ran_out, which);
	assert_int_equal(command(&o, 0, 0)->result, RESULT_INCONCLUSIVE);
	results_free(o.doc);
}

/* The sizes of a series take turns (docs/design.md, "Sizes in turn"), and
 * each one's max_time counts its own turns only: 400 ms are 20 pairs for
 * every size, as for a benchmark alone, although the three sizes' turns
 * take 1.2 s together. */
static void test_engine__sizes_in_turn_keep_their_own_max_time(void **state)
{
	struct fake f = { .wall = alternating_ms };
	struct outcome o;
	char name[8];
	size_t i;

	(void)state;
	run_suite(&f,
		  "version: \"1\"\nname: cmp\nbenchmarks:\n  - name: b\n    sizes: [1, 2, 3]\n"
		  "    warmup: 0\n    regression: {max_time: 400ms}\n"
		  "    commands:\n      tool: {command: [\"tool${size}\"]}\n",
		  true, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.doc->suites[0].n_benchmarks, 3);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "tool%zu", i + 1);
		assert_int_equal(bench(&o, i)->rounds, 20);
		assert_int_equal(runs_of(&f, name, true), 20);
		assert_int_equal(runs_of(&f, name, false), 20);
		assert_int_equal(bench(&o, i)->time_budget_ran_out, RESULTS_TIME_BUDGET_MAX_TIME);
		assert_string_equal(comparison_of(command(&o, i, 0), METRIC_LATENCY)->reason,
				    "the time budget ran out after 20 pairs");
	}
	assert_int_equal(f.clock_ns, 3 * 20 * 20 * MS);
	results_free(o.doc);
}

/* The measurer failing in one size's turn is that size's error (its head
 * side's, an internal one): the other sizes take their turns to the end,
 * and the benchmarks after the series run. */
static void test_engine__a_measurer_failure_ends_only_its_size(void **state)
{
	struct fake f = { .wall = steady_10ms, .broken_command = "tool2", .broken_at = 2 };
	struct outcome o;
	const struct results_command *broken;

	(void)state;
	run_suite(&f,
		  "version: \"1\"\nname: broken\nbenchmarks:\n  - name: b\n    sizes: [1, 2, 3]\n"
		  "    runs: 5\n    warmup: 0\n"
		  "    commands:\n      tool: {command: [\"tool${size}\"]}\n"
		  "  - name: after\n    runs: 5\n    warmup: 0\n"
		  "    commands:\n      after: {command: [after]}\n",
		  false, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.doc->suites[0].n_benchmarks, 4);
	broken = command(&o, 1, 0);
	assert_int_equal(broken->result, RESULT_ERROR);
	assert_true(broken->head.error.present);
	assert_int_equal(broken->head.error.kind, RESULTS_ERROR_INTERNAL);
	assert_string_equal(broken->head.error.message, "the spawner went away");
	assert_int_equal(broken->head.count, 2);
	assert_int_equal(command(&o, 0, 0)->result, RESULT_PASS);
	assert_int_equal(command(&o, 2, 0)->result, RESULT_PASS);
	/* a size's long run: 30 runs of 10 ms fit in 60 s */
	assert_int_equal(runs_of(&f, "tool1", true), 30);
	assert_int_equal(runs_of(&f, "tool3", true), 30);
	assert_int_equal(runs_of(&f, "after", true), 5);
	results_free(o.doc);
}

static void test_engine__max_time_stops_the_rounds_at_every_level(void **state)
{
	struct fake bench_level = { .wall = alternating_ms };
	struct fake defaults_level = { .wall = alternating_ms };
	struct fake flag = { .wall = alternating_ms, .max_time_ns = 200 * MS };
	struct fake none = { .wall = alternating_ms };
	struct outcome o;
	char *yaml;

	(void)state;
	/* 400 ms are 20 pairs: the look at 15 was the last one made */
	assert_stopped_by_time(&bench_level, "    regression: {max_time: 400ms}\n", 20, 2,
			       "the time budget ran out after 20 pairs",
			       RESULTS_TIME_BUDGET_MAX_TIME);
	yaml = xasprintf("version: \"1\"\nname: cmp\ndefaults:\n  regression: {max_time: 400ms}\n"
			 "benchmarks:\n  - name: b\n    warmup: 0\n"
			 "    commands:\n      tool: {command: [tool]}\n");
	run_suite(&defaults_level, yaml, true, &o);
	free(yaml);
	assert_pairs_run(&defaults_level, &o, 20);
	assert_string_equal(comparison_of(command(&o, 0, 0), METRIC_LATENCY)->reason,
			    "the time budget ran out after 20 pairs");
	results_free(o.doc);
	/* --max-time wins over the suite's: 200 ms are 10 pairs, the first look */
	assert_stopped_by_time(&flag, "    regression: {max_time: 400ms}\n", 10, 1,
			       "the time budget ran out after 10 pairs",
			       RESULTS_TIME_BUDGET_MAX_TIME);
	/* without one, the looks run out */
	assert_stopped_by_time(&none, "    max_runs: 33\n", 33, 4,
			       "the interval still straddles the tolerance after 33 pairs",
			       RESULTS_TIME_BUDGET_NONE);
}

/* slow: head 12 ms against 10 ms, decided at 15 pairs (330 ms of the fake
 * clock); anything else alternating_ms. */
static uint64_t one_slow_then_undecided(const char *command, bool head, size_t i)
{
	return strcmp(command, "slow") ? alternating_ms(command, head, i)
				       : head_20_percent_slower(command, head, i);
}

static void test_engine__the_whole_budget_is_shared_by_what_is_left(void **state)
{
	struct fake f = { .wall = one_slow_then_undecided,
			  .total_ns = 1200 * MS,
			  .budget_benchmarks = 3 };
	struct outcome o;
	const struct comparison *c;
	size_t i;

	(void)state;
	run_suite(&f,
		  "version: \"1\"\nname: cmp\ndefaults: {warmup: 0}\nbenchmarks:\n"
		  "  - name: a\n    commands:\n      slow: {command: [slow]}\n"
		  "  - name: b\n    commands:\n      tool: {command: [tool]}\n"
		  "  - name: c\n    commands:\n      tool: {command: [tool]}\n",
		  true, &o);
	assert_int_equal(o.rc, 0);
	/* a's share is 400 ms; it decides at 15 pairs, 330 ms */
	assert_int_equal(bench(&o, 0)->rounds, 15);
	assert_int_equal(bench(&o, 0)->time_budget_ran_out, RESULTS_TIME_BUDGET_NONE);
	assert_int_equal(comparison_of(command(&o, 0, 0), METRIC_LATENCY)->verdict,
			 VERDICT_REGRESSION);
	/* b shares the 870 ms left with c: 435 ms, reached at 22 pairs (440
	 * ms); c then gets the 430 ms left, 22 pairs again */
	for (i = 1; i <= 2; i++) {
		assert_int_equal(bench(&o, i)->rounds, 22);
		assert_int_equal(bench(&o, i)->time_budget_ran_out,
				 RESULTS_TIME_BUDGET_MAX_TOTAL_TIME);
		c = comparison_of(command(&o, i, 0), METRIC_LATENCY);
		assert_int_equal(c->verdict, VERDICT_INCONCLUSIVE);
		assert_int_equal(c->looks_used, 3);
		assert_string_equal(c->reason,
				    "the comparison's time budget ran out after 22 pairs");
	}
	assert_int_equal(f.clock_ns, 1210 * MS);
	results_free(o.doc);
}

/* ---- failures, interrupts, budgets ---------------------------------------- */

static void test_engine__failing_command_stops_and_is_an_error(void **state)
{
	struct fake f = failing_fake(3);
	struct outcome o;
	const struct results_command *bad, *good;

	(void)state;
	run_suite(&f,
		  "version: \"1\"\nname: failing\nbenchmarks:\n"
		  "  - name: b\n    runs: 5\n    warmup: 0\n"
		  "    commands:\n      good: {command: [good]}\n      bad: {command: [bad]}\n",
		  false, &o);
	assert_int_equal(o.rc, 0);
	good = command(&o, 0, 0);
	bad = command(&o, 0, 1);
	assert_int_equal(runs_of(&f, "good", true), 5);
	assert_int_equal(runs_of(&f, "bad", true), 4); /* the 4th failed; no more */
	assert_int_equal(good->head.count, 5);
	assert_int_equal(good->result, RESULT_PASS);
	assert_int_equal(bad->head.count, 3);
	assert_int_equal(bad->result, RESULT_ERROR);
	assert_true(bad->head.error.present);
	assert_int_equal(bad->head.error.kind, RESULTS_ERROR_EXIT_CODE);
	assert_string_equal(bad->head.error.message, "exited with code 3");
	assert_true(bad->head.error.has_exit_code);
	assert_int_equal(bad->head.error.exit_code, 3);
	assert_string_equal(bad->head.error.stderr_tail, "bad: no such table\n");
	assert_int_equal(bench(&o, 0)->result, RESULT_ERROR);
	assert_int_equal(runner_summarize(o.doc, false), OUTCOME_NOT_RUN);
	results_free(o.doc);
}

static void test_engine__interrupt_stops_the_run_and_marks_the_rest(void **state)
{
	struct fake f = { .wall = steady_10ms, .interrupt_at = 4 };
	struct outcome o;
	const struct results_command *a, *b;

	(void)state;
	run_suite(&f,
		  "version: \"1\"\nname: interrupted\nbenchmarks:\n"
		  "  - name: first\n    runs: 5\n    warmup: 0\n"
		  "    commands:\n      a: {command: [a]}\n      b: {command: [b]}\n"
		  "  - name: second\n    runs: 5\n    warmup: 0\n"
		  "    commands:\n      c: {command: [c]}\n",
		  false, &o);
	assert_int_equal(o.rc, ERR_INTERRUPTED);
	assert_int_equal(o.err.code, ERR_INTERRUPTED);
	assert_string_equal(o.err.msg, "interrupted");
	assert_true(o.doc->summary.interrupted);
	/* Two full rounds would be 4 starts: the 4th was interrupted and
	 * nothing started after it. */
	assert_int_equal(f.starts, 4);
	assert_int_equal(bench(&o, 0)->rounds, 1);
	assert_int_equal(bench(&o, 0)->result, RESULT_ERROR);
	assert_int_equal(bench(&o, 0)->error.kind, RESULTS_ERROR_INTERRUPTED);
	assert_string_equal(bench(&o, 0)->error.message, "interrupted");
	a = command(&o, 0, 0);
	b = command(&o, 0, 1);
	/* Exactly one command was running: it has 1 sample, the other 2. */
	assert_int_equal(a->head.count + b->head.count, 3);
	assert_true(a->head.error.present != b->head.error.present);
	assert_int_equal((a->head.error.present ? a : b)->head.error.kind,
			 RESULTS_ERROR_INTERRUPTED);
	assert_string_equal((a->head.error.present ? a : b)->head.error.message, "interrupted");
	assert_int_equal((a->head.error.present ? a : b)->head.count, 1);
	assert_int_equal(bench(&o, 1)->n_commands, 0);
	assert_int_equal(bench(&o, 1)->result, RESULT_ERROR);
	assert_int_equal(bench(&o, 1)->error.kind, RESULTS_ERROR_INTERRUPTED);
	assert_string_equal(bench(&o, 1)->error.message, RESULTS_NOT_STARTED);
	assert_int_equal(runs_of(&f, "c", true), 0);
	results_free(o.doc);
}

/* ---- duets ----------------------------------------------------------------- */

#define DUET_SUITE                                                                                 \
	"version: \"1\"\nname: duet\nbenchmarks:\n  - name: b\n    schedule: duet\n%s"             \
	"    commands:\n      a: {command: [a]}\n      b: {command: [b]}\n"

static void run_duets(struct fake *f, const char *extra, bool compare, struct outcome *o)
{
	char *yaml = xasprintf(DUET_SUITE, extra);

	run_suite(f, yaml, compare, o);
	free(yaml);
}

/* Each pair of a compared command is one duet, base and head at once: the
 * warmup's and the rounds', and no run alone; each command's duets swap
 * the two CPUs from one to the next; the CPUs are asked for once; each
 * side's samples carry their start and end, which overlap, counted from
 * the first measured duet; the document says duet. */
static void test_engine__duet_pairs_run_at_once_on_alternating_cpus(void **state)
{
	struct fake f = { .wall = head_20_percent_slower };
	const struct results_command *c;
	const struct results_side *h, *b;
	struct outcome o;
	size_t k, seen[2] = { 0, 0 };
	int last[2] = { -1, -1 };

	(void)state;
	run_duets(&f, "    runs: 12\n    warmup: 2\n", true, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(f.cpu_asks, 1);
	assert_int_equal(f.calls, 0); /* nothing ran alone */
	assert_int_equal(f.duets, 2 * 14);
	for (k = 0; k < f.duets; k++) {
		size_t i = strcmp(f.duet_command[k], "a") ? 1 : 0;
		assert_true(f.duet_base_cpu[k] == 2 || f.duet_base_cpu[k] == 5);
		assert_int_not_equal(f.duet_base_cpu[k], last[i]);
		last[i] = f.duet_base_cpu[k];
		seen[i]++;
	}
	assert_int_equal(seen[0], 14);
	assert_int_equal(seen[1], 14);
	assert_int_equal(bench(&o, 0)->schedule, SCHEDULE_DUET);
	assert_int_equal(bench(&o, 0)->rounds, 12);
	for (k = 0; k < 2; k++) {
		c = command(&o, 0, k);
		h = &c->head;
		b = &c->base;
		assert_int_equal(h->warmups, 2);
		assert_int_equal(b->warmups, 2);
		assert_int_equal(h->count, 12);
		assert_int_equal(h->n_times, 12);
		assert_int_equal(b->n_times, 12);
	}
	/* the first measured duet: base at 0, head 700 ns later; each run
	 * overlaps its twin */
	c = command(&o, 0, 0);
	h = &c->head;
	b = &c->base;
	assert_true(b->run_start_ns[0] == 0 || command(&o, 0, 1)->base.run_start_ns[0] == 0);
	for (k = 0; k < 12; k++) {
		assert_true(h->run_start_ns[k] == b->run_start_ns[k] + 700);
		assert_true(h->run_end_ns[k] - h->run_start_ns[k] == 12 * MS);
		assert_true(b->run_end_ns[k] - b->run_start_ns[k] == 10 * MS);
		assert_true(h->run_start_ns[k] < b->run_end_ns[k]);
		assert_true(k == 0 || h->run_start_ns[k] > h->run_end_ns[k - 1]);
	}
	results_free(o.doc);
}

/* Duets go through the same looks: the same streams decided at the same
 * look with the same pairs and samples as interleaved pairs. */
static void test_engine__duets_follow_the_looks_as_interleaved_pairs(void **state)
{
	struct fake fi = { .wall = slower_after_an_outlier }, fd = fi;
	struct outcome oi, od;
	const struct comparison *ci, *cd;
	size_t k;

	(void)state;
	run_suite(&fi,
		  "version: \"1\"\nname: duet\nbenchmarks:\n  - name: b\n    warmup: 0\n"
		  "    commands:\n      a: {command: [a]}\n      b: {command: [b]}\n",
		  true, &oi);
	run_duets(&fd, "    warmup: 0\n", true, &od);
	assert_int_equal(oi.rc, 0);
	assert_int_equal(od.rc, 0);
	assert_int_equal(fi.duets, 0);
	assert_int_equal(bench(&oi, 0)->schedule, SCHEDULE_INTERLEAVED);
	assert_int_equal(command(&oi, 0, 0)->head.n_times, 0);
	assert_int_equal(bench(&od, 0)->rounds, bench(&oi, 0)->rounds);
	assert_int_equal(fd.duets, 2 * bench(&od, 0)->rounds);
	for (k = 0; k < 2; k++) {
		ci = comparison_of(command(&oi, 0, k), METRIC_LATENCY);
		cd = comparison_of(command(&od, 0, k), METRIC_LATENCY);
		assert_int_equal(cd->verdict, VERDICT_REGRESSION);
		assert_int_equal(cd->verdict, ci->verdict);
		assert_int_equal(cd->looks_used, ci->looks_used);
		assert_int_equal(cd->pairs, ci->pairs);
		assert_true(cd->change_percent == ci->change_percent);
		assert_memory_equal(command(&od, 0, k)->head.metrics[METRIC_LATENCY].samples,
				    command(&oi, 0, k)->head.metrics[METRIC_LATENCY].samples,
				    cd->pairs * sizeof(double));
	}
	results_free(oi.doc);
	results_free(od.doc);
}

/* A side that fails in a duet is the unit's error, as a failed run of an
 * interleaved pair; its twin, which ran to its end, keeps its sample, and
 * no pair of that command runs after it. */
static void test_engine__a_failing_side_of_a_duet_stops_its_command(void **state)
{
	struct fake f = failing_fake(3);
	const struct results_command *bad, *good;
	struct outcome o;

	(void)state;
	f.fail_command = "b";
	run_duets(&f, "    runs: 10\n    warmup: 0\n", true, &o);
	assert_int_equal(o.rc, 0);
	good = command(&o, 0, 0);
	bad = command(&o, 0, 1);
	assert_int_equal(good->head.count, 10);
	assert_int_equal(good->result, RESULT_PASS);
	assert_int_equal(runs_of(&f, "b", true), 4);
	assert_int_equal(runs_of(&f, "b", false), 4);
	assert_int_equal(bad->head.count, 3);
	assert_int_equal(bad->base.count, 4);
	assert_int_equal(bad->base.n_times, 4);
	assert_int_equal(bad->result, RESULT_ERROR);
	assert_int_equal(bad->head.error.kind, RESULTS_ERROR_EXIT_CODE);
	assert_string_equal(bad->head.error.message, "exited with code 3");
	assert_string_equal(bad->head.error.stderr_tail, "bad: no such table\n");
	assert_false(bad->base.error.present);
	assert_int_equal(runner_summarize(o.doc, false), OUTCOME_NOT_RUN);
	results_free(o.doc);
}

/* A side that times out stops its twin: the timeout is the side's error,
 * the twin stopped because of it has none of its own (and no sample). */
static void test_engine__a_timeout_in_a_duet_stops_the_twin(void **state)
{
	struct fake f = { .wall = steady_10ms, .timeout_command = "b", .timeout_at = 2 };
	const struct results_command *bad;
	struct outcome o;

	(void)state;
	run_duets(&f, "    runs: 10\n    warmup: 0\n    timeout: 5s\n", true, &o);
	assert_int_equal(o.rc, 0);
	bad = command(&o, 0, 1);
	assert_int_equal(runs_of(&f, "b", true), 2);
	assert_int_equal(bad->head.count, 1);
	assert_int_equal(bad->base.count, 1);
	assert_int_equal(bad->head.error.kind, RESULTS_ERROR_TIMEOUT);
	assert_string_equal(bad->head.error.message, "timed out after 5s");
	assert_false(bad->base.error.present);
	assert_int_equal(bad->result, RESULT_ERROR);
	assert_int_equal(command(&o, 0, 0)->head.count, 10);
	results_free(o.doc);
}

/* An interrupt during a duet stops both sides and the run. */
static void test_engine__an_interrupt_stops_a_duet(void **state)
{
	struct fake f = { .wall = steady_10ms, .interrupt_at = 6 };
	struct outcome o;

	(void)state;
	run_duets(&f, "    runs: 10\n    warmup: 0\n", true, &o);
	assert_int_equal(o.rc, ERR_INTERRUPTED);
	assert_int_equal(f.starts, 6); /* the third duet's head: nothing after it */
	assert_int_equal(f.duets, 3);
	assert_int_equal(bench(&o, 0)->result, RESULT_ERROR);
	assert_int_equal(bench(&o, 0)->error.kind, RESULTS_ERROR_INTERRUPTED);
	assert_int_equal(command(&o, 0, 0)->head.count + command(&o, 0, 1)->head.count, 2);
	results_free(o.doc);
}

/* A time budget stops duets as it stops pairs: the clock moves on by the
 * later end of each duet, here 13 or 10 ms and 1.7 µs. */
static void test_engine__max_time_stops_duets(void **state)
{
	struct fake f = { .wall = alternating_ms, .max_time_ns = 200 * MS };
	struct outcome o;

	(void)state;
	run_duets(&f, "    warmup: 0\n", true, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(bench(&o, 0)->time_budget_ran_out, RESULTS_TIME_BUDGET_MAX_TIME);
	assert_true(f.clock_ns >= 200 * MS);
	assert_true(f.clock_ns < 200 * MS + 2 * 14 * MS);
	results_free(o.doc);
}

/* Without two CPUs a plan with duets measures nothing (ERR_EXEC with the
 * measurer's message); measured on one side (a run), duet is not asked
 * for and the runs are as ever. */
static void test_engine__duets_without_two_cpus_measure_nothing(void **state)
{
	struct fake f = { .wall = steady_10ms, .one_cpu = true };
	struct outcome o;

	(void)state;
	run_duets(&f, "    runs: 10\n    warmup: 0\n", true, &o);
	assert_int_equal(o.rc, ERR_EXEC);
	assert_string_equal(o.err.msg, "duet runs need two CPUs, and himorime may use only CPU 0 "
				       "(its affinity mask): use the interleaved schedule");
	assert_int_equal(f.starts, 0);
	assert_int_equal(o.doc->n_suites, 0);
	results_free(o.doc);
	run_duets(&f, "    runs: 10\n    warmup: 0\n", false, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(f.cpu_asks, 1);
	assert_int_equal(f.duets, 0);
	assert_int_equal(bench(&o, 0)->schedule, SCHEDULE_INTERLEAVED);
	assert_int_equal(command(&o, 0, 0)->head.count, 10);
	assert_int_equal(command(&o, 0, 0)->head.n_times, 0);
	results_free(o.doc);
}

/* ---- calibrating both schedules ------------------------------------------ */

/* 10 ms plus a deviation of up to `spread` of it, pseudo-random per side
 * and run. */
static uint64_t spread_by(double spread, bool head, size_t i)
{
	uint64_t h = ((uint64_t)i * 2654435761u + (head ? 40503u : 0u)) % 1000;

	return 10 * MS + (uint64_t)llround((double)h / 1000.0 * spread * 10e6);
}

/* Duets 1% apart, interleaved pairs 8%; and the other way round. */
static uint64_t duet_quieter(const char *command, bool head, size_t i)
{
	(void)command;
	return spread_by(in_duet ? 0.01 : 0.08, head, i);
}

static uint64_t duet_noisier(const char *command, bool head, size_t i)
{
	(void)command;
	return spread_by(in_duet ? 0.08 : 0.01, head, i);
}

#define CALIBRATE_SUITE                                                                            \
	"version: \"1\"\nname: cal\nbenchmarks:\n  - name: b\n    warmup: 0\n"                     \
	"    commands:\n      a: {command: [a]}\n"

static const struct results_calibration_row *calibration_row(const struct outcome *o, enum metric m)
{
	size_t i;

	for (i = 0; i < o->doc->calibration.n_rows; i++)
		if (o->doc->calibration.rows[i].metric == m)
			return &o->doc->calibration.rows[i];
	fail_msg("no calibration row of metric %d", (int)m);
	return NULL;
}

/* A calibration without --schedule measures each pair interleaved and as
 * a duet in the same round, which first alternating (the duet after the
 * interleaved pair, then before the next one); the document's samples are
 * the interleaved pairs', whose looks stop the rounds; each schedule's
 * half-width is taken at the same pairs, and the narrower one is
 * recommended: duet here, whose pairs are quieter. */
static void test_engine__calibrate_recommends_duet_when_its_pairs_are_narrower(void **state)
{
	struct fake f = { .wall = duet_quieter, .calibrate = true };
	const struct results_calibration_row *row;
	const struct comparison *cmp;
	struct outcome o;
	unsigned rounds;
	size_t k;

	(void)state;
	run_suite(&f, CALIBRATE_SUITE, true, &o);
	assert_int_equal(o.rc, 0);
	rounds = bench(&o, 0)->rounds;
	assert_true(rounds >= 10);
	assert_int_equal(f.duets, rounds);
	assert_int_equal(f.calls, 2 * rounds);
	for (k = 0; k < f.duets; k++) /* 2, 2, 6, 6, 10, 10, ... */
		assert_int_equal(f.calls_before_duet[k], 4 * (k / 2) + 2);
	assert_int_equal(bench(&o, 0)->schedule, SCHEDULE_INTERLEAVED);
	assert_int_equal(command(&o, 0, 0)->head.count, rounds);
	assert_int_equal(command(&o, 0, 0)->head.n_times, 0);
	cmp = comparison_of(command(&o, 0, 0), METRIC_LATENCY);
	row = calibration_row(&o, METRIC_LATENCY);
	assert_true(o.doc->calibration.both_schedules);
	assert_null(o.doc->calibration.duet_not_measured);
	assert_int_equal(row->schedule_pairs, o.plan.looks[cmp->looks_used - 1]);
	assert_null(row->schedules_note);
	assert_true(row->duet_half_width_percent > 0);
	assert_true(row->duet_half_width_percent < row->interleaved_half_width_percent / 2);
	assert_string_equal(o.doc->calibration.recommended_schedule, "duet");
	results_free(o.doc);
}

/* The same with duets the noisier: interleaved is recommended. */
static void test_engine__calibrate_recommends_interleaved_when_duets_are_wider(void **state)
{
	struct fake f = { .wall = duet_noisier, .calibrate = true };
	const struct results_calibration_row *row;
	struct outcome o;

	(void)state;
	run_suite(&f, CALIBRATE_SUITE, true, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(f.duets, bench(&o, 0)->rounds);
	row = calibration_row(&o, METRIC_LATENCY);
	assert_true(row->schedule_pairs >= 10);
	assert_true(row->interleaved_half_width_percent > 0);
	assert_true(row->interleaved_half_width_percent < row->duet_half_width_percent / 2);
	assert_string_equal(o.doc->calibration.recommended_schedule, "interleaved");
	results_free(o.doc);
}

/* A benchmark whose schedule is duet is calibrated the other way round:
 * its duets are the document's, interleaved pairs are measured beside. */
static void test_engine__calibrate_a_duet_benchmark_measures_interleaved_beside(void **state)
{
	struct fake f = { .wall = duet_quieter, .calibrate = true };
	const struct results_calibration_row *row;
	struct outcome o;
	unsigned rounds;

	(void)state;
	run_suite(&f,
		  "version: \"1\"\nname: cal\nbenchmarks:\n  - name: b\n    warmup: 0\n"
		  "    schedule: duet\n    commands:\n      a: {command: [a]}\n",
		  true, &o);
	assert_int_equal(o.rc, 0);
	rounds = bench(&o, 0)->rounds;
	assert_int_equal(bench(&o, 0)->schedule, SCHEDULE_DUET);
	assert_int_equal(f.duets, rounds);
	assert_int_equal(f.calls, 2 * rounds);
	assert_int_equal(command(&o, 0, 0)->head.n_times, rounds); /* the duets' */
	row = calibration_row(&o, METRIC_LATENCY);
	assert_true(row->schedule_pairs >= 10);
	assert_true(row->duet_half_width_percent < row->interleaved_half_width_percent / 2);
	assert_string_equal(o.doc->calibration.recommended_schedule, "duet");
	results_free(o.doc);
}

/* With --schedule only that schedule is measured; on one CPU duet is not
 * measured and the calibration says why, the interleaved pairs measured as
 * ever; a benchmark on a terminal gets interleaved pairs only, with the
 * reason in its rows. */
static void test_engine__calibrate_measures_one_schedule_when_it_must(void **state)
{
	struct fake flag = { .wall = duet_quieter, .calibrate = true, .has_schedule = true };
	struct fake one = { .wall = duet_quieter, .calibrate = true, .one_cpu = true };
	struct fake tty = { .wall = duet_quieter, .calibrate = true };
	struct outcome o;

	(void)state;
	run_suite(&flag, CALIBRATE_SUITE, true, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(flag.duets, 0);
	assert_int_equal(flag.cpu_asks, 0);
	assert_false(o.doc->calibration.both_schedules);
	assert_int_equal(calibration_row(&o, METRIC_LATENCY)->schedule_pairs, 0);
	assert_null(calibration_row(&o, METRIC_LATENCY)->schedules_note);
	assert_null(o.doc->calibration.recommended_schedule);
	results_free(o.doc);

	run_suite(&one, CALIBRATE_SUITE, true, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(one.duets, 0);
	assert_int_equal(one.calls, 2 * bench(&o, 0)->rounds);
	assert_true(o.doc->calibration.both_schedules);
	assert_string_equal(
		o.doc->calibration.duet_not_measured,
		"duet runs need two CPUs, and himorime may use only CPU 0 (its affinity "
		"mask): use the interleaved schedule");
	assert_int_equal(calibration_row(&o, METRIC_LATENCY)->schedule_pairs, 0);
	assert_null(calibration_row(&o, METRIC_LATENCY)->schedules_note);
	assert_null(o.doc->calibration.recommended_schedule);
	results_free(o.doc);

	run_suite(&tty,
		  "version: \"1\"\nname: cal\nbenchmarks:\n  - name: b\n    warmup: 0\n"
		  "    terminal: true\n    commands:\n      a: {command: [a]}\n",
		  true, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(tty.duets, 0);
	assert_int_equal(calibration_row(&o, METRIC_LATENCY)->schedule_pairs, 0);
	assert_string_equal(calibration_row(&o, METRIC_LATENCY)->schedules_note,
			    "terminal: true: duet cannot run it");
	assert_null(o.doc->calibration.recommended_schedule);
	results_free(o.doc);
}

/* Builds: two sides of one tree build once, on the base, and both run that
 * artifact; a base tree the runner built before is not built again, and the
 * runner removes that build when it is freed (docs/comparison.md). */
static void test_engine__one_tree_builds_once_and_a_base_build_is_kept(void **state)
{
	struct fake f = { .wall = steady_10ms };
	struct runner_options o = RUNNER_OPTIONS_INIT;
	struct runner_measurer m = {
		.run = fake_run,
		.cancel = fake_cancel,
		.fallback_reason = fake_fallback_reason,
		.ctx = &f,
		.now_ns = fake_now,
	};
	struct runner_roots roots = { HEAD_ROOT, BASE_ROOT, NULL, "tree-2", "tree-1" };
	struct suite_diags diags;
	struct suite *s = NULL;
	struct results *doc = results_new(RESULTS_MODE_COMPARE);
	struct err err = ERR_INIT;
	char *dir = NULL, *path, *kept;
	const char *yaml = "version: \"1\"\nname: b\nbuild:\n  command: [touch, \"${artifact}\"]\n"
			   "benchmarks:\n  - name: one\n    runs: 10\n    commands:\n"
			   "      one: {command: [run, \"${artifact}\"]}\n";
	bool selected[1] = { true };
	struct plan *plan;

	(void)state;
	assert_int_equal(fsio_mkdtemp("himorime-engine-", &dir, &err), 0);
	path = xasprintf("%s/himorime.yaml", dir);
	assert_int_equal(fsio_write_atomic(path, yaml, strlen(yaml), &err), 0);
	suite_diags_init(&diags);
	if (suite_load(path, &s, &diags, &err) < 0)
		fail_msg("suite: %s", err.msg);
	o.seed = 42;
	plan = plan_of(s, selected, true, 0);
	runner_new_with(&o, plan, &m, &f.runner);
	/* two trees: both built */
	assert_int_equal(runner_run_suite(f.runner, &plan->suites[0], &roots, doc, &err), 0);
	assert_int_equal(runs_of(&f, "touch", true), 1);
	assert_int_equal(runs_of(&f, "touch", false), 1);
	assert_string_not_equal(f.last_arg[0], f.last_arg[1]);
	/* the same base tree again: only head is built */
	roots.head_tree = "tree-3";
	assert_int_equal(runner_run_suite(f.runner, &plan->suites[0], &roots, doc, &err), 0);
	assert_int_equal(runs_of(&f, "touch", true), 2);
	assert_int_equal(runs_of(&f, "touch", false), 1);
	/* head is the base's tree: nothing is built, both run the kept artifact */
	roots.head_tree = "tree-1";
	assert_int_equal(runner_run_suite(f.runner, &plan->suites[0], &roots, doc, &err), 0);
	assert_int_equal(runs_of(&f, "touch", true), 2);
	assert_int_equal(runs_of(&f, "touch", false), 1);
	assert_string_equal(f.last_arg[0], f.last_arg[1]);
	assert_int_equal(doc->n_suites, 3);
	/* two empty files are byte-identical: linked as one after two builds */
	assert_true(doc->suites[0].shared_artifact);
	assert_true(doc->suites[2].shared_artifact);
	assert_int_equal(doc->suites[2].result, RESULT_PASS);
	kept = xstrdup(f.last_arg[1]);
	assert_int_equal(access(kept, F_OK), 0);
	runner_free(f.runner);
	assert_int_equal(access(kept, F_OK), -1);
	free(kept);
	results_free(doc);
	plan_free(plan);
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(path);
	free(dir);
}

/* ---- counted runs --------------------------------------------------------- */

/* Instructions: base 1,000,000 on every run, head 3% more. */
static uint64_t instructions_3_percent_more(const char *command, bool head, size_t i)
{
	(void)command;
	(void)i;
	return head ? 1030000 : 1000000;
}

static uint64_t instructions_steady(const char *command, bool head, size_t i)
{
	(void)command;
	(void)head;
	(void)i;
	return 1000000;
}

/* Both sides alternate 0.5% either side of 1,000,000: a spread of 1%, ten
 * times the noise bound of docs/comparison.md, "Deciding on counts". */
static uint64_t instructions_noisy(const char *command, bool head, size_t i)
{
	(void)command;
	(void)head;
	return i % 2 ? 1005000 : 995000;
}

static const struct results_metric *head_metric(const struct outcome *o, enum metric m)
{
	return &command(o, 0, 0)->head.metrics[m];
}

/* The counted runs the measurer makes through the seam: `runs` (3) per side
 * of constant counts, decided by the counts rule, and the backend the
 * measurer chose named in the report. */
static void test_engine__counted_runs_decide_instructions_by_the_counts_rule(void **state)
{
	struct fake f = { .wall = steady_10ms,
			  .count_version = "3.19.0",
			  .counts = instructions_3_percent_more };
	const struct results_metric *m;
	const struct comparison *c;
	struct outcome o;

	(void)state;
	compare_one_tool(&f, "    runs: 10\n    metrics: {instructions: true}\n", &o);
	assert_int_equal(f.n_chosen, 1);
	assert_int_equal(f.wanted[0], COUNTER_AUTO);
	assert_int_equal(f.what[0], COUNT_INSTRUCTIONS);
	assert_int_equal(*counted_of(&f, "tool", true), 3);
	assert_int_equal(*counted_of(&f, "tool", false), 3);
	c = comparison_of(command(&o, 0, 0), METRIC_INSTRUCTIONS);
	assert_true(c->counts);
	assert_int_equal(c->verdict, VERDICT_REGRESSION);
	assert_true(c->final);
	assert_int_equal(c->pairs, 3);
	assert_true(fabs(c->change_percent - 3.0) < 1e-9);
	m = head_metric(&o, METRIC_INSTRUCTIONS);
	assert_int_equal(m->status, STATUS_MEASURED);
	assert_int_equal(m->n_samples, 3);
	assert_string_equal(m->counter_backend, "valgrind");
	assert_string_equal(m->counter_version, "3.19.0");
	assert_string_equal(m->counter_event, "Ir");
	assert_int_equal(command(&o, 0, 0)->result, RESULT_REGRESSION);
	results_free(o.doc);
}

/* Counts that spread beyond the noise bound ask for two more runs per side
 * at a time, up to the rule's cap of 9, and stay inconclusive. */
static void test_engine__noisy_counts_ask_for_more_counted_runs_up_to_the_cap(void **state)
{
	struct fake f = { .wall = steady_10ms,
			  .count_version = "3.19.0",
			  .counts = instructions_noisy };
	const struct comparison *c;
	struct outcome o;

	(void)state;
	compare_one_tool(&f, "    runs: 10\n    metrics: {instructions: true}\n", &o);
	assert_int_equal(*counted_of(&f, "tool", true), 9);
	assert_int_equal(*counted_of(&f, "tool", false), 9);
	c = comparison_of(command(&o, 0, 0), METRIC_INSTRUCTIONS);
	assert_int_equal(c->pairs, 9);
	assert_int_equal(c->verdict, VERDICT_INCONCLUSIVE);
	assert_true(c->final);
	results_free(o.doc);
}

/* With perf the timed runs count: no counted run is made when they are
 * `runs` or more, and the report names perf's event. */
static void test_engine__perf_counts_the_timed_runs_and_no_counted_run_is_made(void **state)
{
	struct fake f = { .wall = steady_10ms,
			  .count_version = "6.1.0",
			  .count_perf = true,
			  .counts = instructions_steady };
	const struct results_metric *m;
	const struct comparison *c;
	struct outcome o;

	(void)state;
	compare_one_tool(&f, "    runs: 10\n    metrics: {instructions: true}\n", &o);
	assert_int_equal(f.n_counted, 0);
	c = comparison_of(command(&o, 0, 0), METRIC_INSTRUCTIONS);
	assert_int_equal(c->pairs, 10);
	assert_int_equal(c->verdict, VERDICT_PASS);
	m = head_metric(&o, METRIC_INSTRUCTIONS);
	assert_int_equal(m->n_samples, 10);
	assert_int_equal(m->source, RESULTS_SOURCE_PERF_EVENT);
	assert_string_equal(m->counter_backend, "perf");
	assert_string_equal(m->counter_version, "6.1.0");
	assert_string_equal(m->counter_event, "instructions:u");
	results_free(o.doc);
}

/* No backend counts here: the count is unsupported with the measurer's
 * reason, an error of the side under `unsupported: fail` (exit 6), a note
 * under skip. */
static void test_engine__a_count_no_backend_can_make_is_unsupported(void **state)
{
	static const char why[] = "no backend: no counter here; valgrind is not available";
	struct fake f = { .wall = steady_10ms, .count_why = why, .counts = instructions_steady };
	const struct results_metric *m;
	struct outcome o;

	(void)state;
	compare_one_tool(&f, "    runs: 10\n    metrics: {instructions: true}\n", &o);
	assert_int_equal(f.n_counted, 0);
	m = head_metric(&o, METRIC_INSTRUCTIONS);
	assert_int_equal(m->status, STATUS_UNSUPPORTED);
	assert_string_equal(m->reason, why);
	assert_null(m->counter_backend);
	assert_int_equal(command(&o, 0, 0)->head.error.kind, RESULTS_ERROR_METRIC_UNSUPPORTED);
	assert_string_equal(command(&o, 0, 0)->head.error.message, why);
	assert_int_equal(command(&o, 0, 0)->result, RESULT_METRIC_ERROR);
	assert_int_equal(runner_summarize(o.doc, false), OUTCOME_METRIC_FAILED);
	results_free(o.doc);
	compare_one_tool(&f, "    runs: 10\n    metrics: {instructions: true, unsupported: skip}\n",
			 &o);
	assert_int_equal(head_metric(&o, METRIC_INSTRUCTIONS)->status, STATUS_UNSUPPORTED);
	assert_false(command(&o, 0, 0)->head.error.present);
	assert_int_equal(command(&o, 0, 0)->result, RESULT_PASS);
	results_free(o.doc);
}

/* The backend a command asks for is what the measurer is asked for, per
 * count: allocations too, which give blocks and bytes. */
static void test_engine__the_measurer_is_asked_for_the_commands_own_backend(void **state)
{
	struct fake f = { .wall = steady_10ms,
			  .count_version = "3.19.0",
			  .counts = instructions_steady };
	const struct results_metric *bytes;
	struct outcome o;
	char *yaml = xasprintf("version: \"1\"\nname: cmp\nbenchmarks:\n  - name: b\n"
			       "    warmup: 0\n    runs: 10\n"
			       "    metrics: {instructions: true, allocations: true}\n"
			       "    commands:\n      tool:\n        command: [tool]\n"
			       "        metrics: {instructions: {backend: valgrind}}\n");

	(void)state;
	run_suite(&f, yaml, true, &o);
	free(yaml);
	assert_int_equal(o.rc, 0);
	assert_int_equal(f.n_chosen, 2);
	assert_int_equal(f.wanted[0], COUNTER_VALGRIND);
	assert_int_equal(f.what[0], COUNT_INSTRUCTIONS);
	assert_int_equal(f.wanted[1], COUNTER_VALGRIND);
	assert_int_equal(f.what[1], COUNT_ALLOCATIONS);
	/* each phase: 3 counted runs per side */
	assert_int_equal(*counted_of(&f, "tool", true), 6);
	bytes = head_metric(&o, METRIC_ALLOCATED_BYTES);
	assert_int_equal(bytes->n_samples, 3);
	assert_true(bytes->samples[0] == 10000000);
	assert_string_equal(bytes->counter_event, "tb");
	assert_string_equal(head_metric(&o, METRIC_ALLOCATIONS)->counter_event, "tbk");
	assert_int_equal(comparison_of(command(&o, 0, 0), METRIC_ALLOCATED_BYTES)->verdict,
			 VERDICT_PASS);
	results_free(o.doc);
}

/* A counted run that fails is its side's metric error, with the measurer's
 * reason; the other side counts on. */
static void test_engine__a_failed_counted_run_is_the_metric_error_of_its_side(void **state)
{
	static const char why[] = "under valgrind, the command exited with code 3";
	struct fake f = { .wall = steady_10ms,
			  .count_version = "3.19.0",
			  .counts = instructions_steady,
			  .count_fail_at = 2,
			  .count_fail_why = why };
	const struct results_command *c;
	const struct results_side *failed, *other;
	struct outcome o;

	(void)state;
	compare_one_tool(&f, "    runs: 10\n    metrics: {instructions: true}\n", &o);
	c = command(&o, 0, 0);
	/* the second counted run is the first round's second side */
	failed = c->head.metrics[METRIC_INSTRUCTIONS].status == STATUS_FAILED ? &c->head : &c->base;
	other = failed == &c->head ? &c->base : &c->head;
	assert_int_equal(failed->metrics[METRIC_INSTRUCTIONS].status, STATUS_FAILED);
	assert_string_equal(failed->metrics[METRIC_INSTRUCTIONS].reason, why);
	assert_int_equal(failed->metrics[METRIC_INSTRUCTIONS].n_samples, 0);
	assert_int_equal(failed->error.kind, RESULTS_ERROR_METRIC_COLLECTION_FAILED);
	assert_string_equal(failed->error.message, why);
	assert_int_equal(other->metrics[METRIC_INSTRUCTIONS].status, STATUS_MEASURED);
	assert_int_equal(other->metrics[METRIC_INSTRUCTIONS].n_samples, 3);
	assert_int_equal(c->result, RESULT_METRIC_ERROR);
	results_free(o.doc);
}

/* The whole time budget stops counted runs between runs: a run must fit in
 * what is left (valgrind's start and 20 times the timed median), and a count
 * cut short is inconclusive, never decided on fewer runs. */
static void test_engine__the_whole_budget_cuts_counted_runs_short(void **state)
{
	struct fake f = { .wall = steady_10ms,
			  .count_version = "3.19.0",
			  .counts = instructions_steady,
			  .count_ns = 20 * UINT64_C(1000000000),
			  .total_ns = 30 * UINT64_C(1000000000),
			  .budget_benchmarks = 1 };
	const struct comparison *c;
	struct outcome o;

	(void)state;
	compare_one_tool(&f, "    runs: 10\n    metrics: {instructions: true}\n", &o);
	/* 0.2 s of rounds, then one run per side: 40.2 s, over the 30 s */
	assert_int_equal(f.n_counted, 2);
	c = comparison_of(command(&o, 0, 0), METRIC_INSTRUCTIONS);
	assert_int_equal(c->verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(c->reason,
			    "the comparison's time budget ran out after 1 counted run per side");
	assert_int_equal(bench(&o, 0)->time_budget_ran_out, RESULTS_TIME_BUDGET_MAX_TOTAL_TIME);
	/* the timed comparison was decided before the budget ran out */
	assert_int_equal(comparison_of(command(&o, 0, 0), METRIC_LATENCY)->verdict, VERDICT_PASS);
	results_free(o.doc);
}

/* ---- build lines ---------------------------------------------------------- */

/* The lines a runner hands to build_line, from the caller's thread and the
 * watch's. */
static struct {
	pthread_mutex_t lock;
	char lines[16][256];
	size_t n;
} seen = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void collect_line(void *ctx, const char *line)
{
	(void)ctx;
	pthread_mutex_lock(&seen.lock);
	if (seen.n < 16)
		snprintf(seen.lines[seen.n++], sizeof(seen.lines[0]), "%s", line);
	pthread_mutex_unlock(&seen.lock);
}

/* Waits (at most 10 s) for a collected line that contains `text`. */
static bool wait_for_line(const char *text)
{
	size_t i, tries;

	for (tries = 0; tries < 10000; tries++) {
		pthread_mutex_lock(&seen.lock);
		for (i = 0; i < seen.n; i++)
			if (strstr(seen.lines[i], text)) {
				pthread_mutex_unlock(&seen.lock);
				return true;
			}
		pthread_mutex_unlock(&seen.lock);
		usleep(1000);
	}
	return false;
}

static void append(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A build that writes a line on stdout, waits until a tick has shown it,
 * then one on stderr (the newer file), waits for that too, and creates
 * ${artifact}: no sleep decides what is seen, only the ticks. */
static int ticking_build(void *ctx, const struct run_request *req, unsigned runs,
			 struct run_result *res, struct err *err)
{
	if (strcmp(req->argv[0], "builder"))
		return fake_run(ctx, req, runs, res, err);
	memset(res, 0, sizeof(*res));
	assert_non_null(req->stdout_path);
	assert_non_null(req->stderr_path);
	append(req->stdout_path, "CC a.o\n\n");
	assert_true(wait_for_line("last output: CC a.o"));
	append(req->stderr_path, "warning: b.c\r  linking  \n");
	assert_true(wait_for_line("last output: linking"));
	write_stderr(req->argv[1], "");
	res->status = RUN_EXITED;
	return 1;
}

/* Builds say when they start and end, and while they run, every tick, the
 * last line of output (docs/revisions.md#builds). */
static void test_engine__a_build_says_when_it_starts_ends_and_what_it_printed(void **state)
{
	struct fake f = { .wall = steady_10ms };
	struct runner_options o = RUNNER_OPTIONS_INIT;
	struct runner_measurer m = { .run = ticking_build,
				     .cancel = fake_cancel,
				     .fallback_reason = fake_fallback_reason,
				     .ctx = &f };
	struct runner_roots roots = { HEAD_ROOT, NULL, NULL, NULL, NULL };
	struct suite_diags diags;
	struct suite *s = NULL;
	struct results *doc = results_new(RESULTS_MODE_RUN);
	struct err err = ERR_INIT;
	char *dir = NULL, *path;
	const char *yaml =
		"version: \"1\"\nname: b\nbuild:\n  command: [builder, \"${artifact}\"]\n"
		"benchmarks:\n  - name: one\n    runs: 3\n    commands:\n"
		"      one: {command: [run, \"${artifact}\"]}\n";
	bool selected[1] = { true };
	struct plan *plan;
	size_t i;

	(void)state;
	assert_int_equal(fsio_mkdtemp("himorime-engine-", &dir, &err), 0);
	path = xasprintf("%s/himorime.yaml", dir);
	assert_int_equal(fsio_write_atomic(path, yaml, strlen(yaml), &err), 0);
	suite_diags_init(&diags);
	if (suite_load(path, &s, &diags, &err) < 0)
		fail_msg("suite: %s", err.msg);
	o.build_line = collect_line;
	o.build_tick_ns = 20 * MS;
	plan = plan_of(s, selected, false, 0);
	runner_new_with(&o, plan, &m, &f.runner);
	assert_int_equal(runner_run_suite(f.runner, &plan->suites[0], &roots, doc, &err), 0);
	runner_free(f.runner);
	plan_free(plan);
	assert_int_equal(doc->suites[0].result, RESULT_PASS);
	assert_true(seen.n >= 4);
	assert_string_equal(seen.lines[0], "b: build (head) started");
	for (i = 1; i + 1 < seen.n; i++)
		if (strncmp(seen.lines[i], "b: build (head) running for ", 28) ||
		    (!strstr(seen.lines[i], " s; last output: CC a.o") &&
		     !strstr(seen.lines[i], " s; last output: linking")))
			fail_msg("line %zu: %s", i, seen.lines[i]);
	assert_true(strncmp(seen.lines[seen.n - 1], "b: build (head) finished in ", 28) == 0);
	assert_string_equal(seen.lines[seen.n - 1] + strlen(seen.lines[seen.n - 1]) - 2, " s");
	results_free(doc);
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(path);
	free(dir);
}

static void test_engine__budgets_pass_and_fail(void **state)
{
	struct fake f = { .wall = fast_and_slow };
	struct outcome o;
	const struct results_command *fast, *slow;

	(void)state;
	run_suite(&f,
		  "version: \"1\"\nname: budgets\nbenchmarks:\n"
		  "  - name: b\n    runs: 5\n    warmup: 0\n"
		  "    commands:\n"
		  "      fast: {command: [fast], budget: {latency: {median: \"<= 15ms\"}}}\n"
		  "      slow: {command: [slow], budget: {latency: {median: \"<= 15ms\"}}}\n",
		  false, &o);
	assert_int_equal(o.rc, 0);
	fast = command(&o, 0, 0);
	slow = command(&o, 0, 1);
	assert_int_equal(fast->n_budgets, 1);
	assert_int_equal(fast->budgets[0].result.status, BUDGET_PASS);
	assert_true(fast->budgets[0].result.actual == 10e6);
	assert_true(fast->budgets[0].result.limit == 15e6);
	assert_string_equal(fast->budgets[0].text, "<= 15ms");
	assert_int_equal(fast->result, RESULT_PASS);
	assert_int_equal(slow->n_budgets, 1);
	assert_int_equal(slow->budgets[0].result.status, BUDGET_FAIL);
	assert_true(slow->budgets[0].result.actual == 25e6);
	assert_int_equal(slow->result, RESULT_OVER_BUDGET);
	assert_int_equal(bench(&o, 0)->result, RESULT_OVER_BUDGET);
	assert_int_equal(runner_summarize(o.doc, false), OUTCOME_FAILED);
	results_free(o.doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine__fixed_runs_make_exactly_that_many_rounds),
		cmocka_unit_test(test_engine__one_tree_builds_once_and_a_base_build_is_kept),
		cmocka_unit_test(test_engine__adaptive_run_stops_when_every_command_has_min_time),
		cmocka_unit_test(test_engine__adaptive_run_waits_for_min_runs),
		cmocka_unit_test(test_engine__adaptive_run_stops_at_max_runs),
		cmocka_unit_test(test_engine__a_lone_command_runs_in_batches_up_to_the_stop),
		cmocka_unit_test(test_engine__an_adaptive_run_batches_only_up_to_min_runs),
		cmocka_unit_test(test_engine__a_failure_ends_a_batch),
		cmocka_unit_test(test_engine__no_batch_between_commands_hooks_or_sides),
		cmocka_unit_test(test_engine__regression_is_decided_at_the_first_possible_look),
		cmocka_unit_test(test_engine__improvement_is_decided_at_the_first_possible_look),
		cmocka_unit_test(test_engine__no_change_passes_at_the_first_possible_look),
		cmocka_unit_test(test_engine__adaptive_comparison_stops_at_the_first_decisive_look),
		cmocka_unit_test(test_engine__undecided_at_the_last_look_is_inconclusive),
		cmocka_unit_test(test_engine__ungated_metric_decided_before_the_gated_one),
		cmocka_unit_test(test_engine__ungated_metric_stops_with_the_gated_one),
		cmocka_unit_test(test_engine__max_time_stops_the_rounds_at_every_level),
		cmocka_unit_test(test_engine__sizes_in_turn_keep_their_own_max_time),
		cmocka_unit_test(test_engine__a_measurer_failure_ends_only_its_size),
		cmocka_unit_test(test_engine__the_whole_budget_is_shared_by_what_is_left),
		cmocka_unit_test(test_engine__failing_command_stops_and_is_an_error),
		cmocka_unit_test(test_engine__duet_pairs_run_at_once_on_alternating_cpus),
		cmocka_unit_test(test_engine__duets_follow_the_looks_as_interleaved_pairs),
		cmocka_unit_test(test_engine__a_failing_side_of_a_duet_stops_its_command),
		cmocka_unit_test(test_engine__a_timeout_in_a_duet_stops_the_twin),
		cmocka_unit_test(test_engine__an_interrupt_stops_a_duet),
		cmocka_unit_test(test_engine__max_time_stops_duets),
		cmocka_unit_test(test_engine__duets_without_two_cpus_measure_nothing),
		cmocka_unit_test(
			test_engine__calibrate_recommends_duet_when_its_pairs_are_narrower),
		cmocka_unit_test(
			test_engine__calibrate_recommends_interleaved_when_duets_are_wider),
		cmocka_unit_test(
			test_engine__calibrate_a_duet_benchmark_measures_interleaved_beside),
		cmocka_unit_test(test_engine__calibrate_measures_one_schedule_when_it_must),
		cmocka_unit_test(test_engine__interrupt_stops_the_run_and_marks_the_rest),
		cmocka_unit_test(test_engine__budgets_pass_and_fail),
		cmocka_unit_test(test_engine__a_build_says_when_it_starts_ends_and_what_it_printed),
		cmocka_unit_test(test_engine__counted_runs_decide_instructions_by_the_counts_rule),
		cmocka_unit_test(test_engine__noisy_counts_ask_for_more_counted_runs_up_to_the_cap),
		cmocka_unit_test(
			test_engine__perf_counts_the_timed_runs_and_no_counted_run_is_made),
		cmocka_unit_test(test_engine__a_count_no_backend_can_make_is_unsupported),
		cmocka_unit_test(test_engine__the_measurer_is_asked_for_the_commands_own_backend),
		cmocka_unit_test(test_engine__a_failed_counted_run_is_the_metric_error_of_its_side),
		cmocka_unit_test(test_engine__the_whole_budget_cuts_counted_runs_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
