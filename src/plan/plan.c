/*
 * Resolving a plan: see plan.h. One pass over the inputs: each selected
 * benchmark gets its settings (the flag when the command line gave one, else
 * the suite's, which already lays the command over the benchmark over the
 * defaults), each compared one its looks; then the settings of the whole
 * command, which need every suite (bisect's confidence, the comparison's time
 * budget).
 */
#include "plan/plan.h"

#include "common/alloc.h"
#include "common/strbuf.h"
#include "harness/select.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* The metrics with a tolerance: the compared ones and the counts. */
static const enum metric tolerated[] = {
	METRIC_LATENCY,	     METRIC_CPU_TOTAL,	 METRIC_PEAK_RSS,	 METRIC_ARTIFACT_SIZE,
	METRIC_INSTRUCTIONS, METRIC_ALLOCATIONS, METRIC_ALLOCATED_BYTES,
};

bool plan_separate_artifacts(enum plan_verb verb)
{
	switch (verb) {
	case PLAN_CALIBRATE:
		return true;
	case PLAN_RUN:
	case PLAN_COMPARE:
	case PLAN_CI:
	case PLAN_SWEEP:
	case PLAN_BISECT:
		break;
	}
	return false;
}

/* Whether the command compares (a base, or a sweep's reference). */
static bool verb_compares(enum plan_verb verb)
{
	return verb != PLAN_RUN;
}

/* Whether the command leaves out the sizes that say compare: false; a sweep
 * measures them (docs/configuration.md, "Sizes"). */
static bool verb_leaves_out(enum plan_verb verb)
{
	switch (verb) {
	case PLAN_COMPARE:
	case PLAN_CALIBRATE:
	case PLAN_CI:
	case PLAN_BISECT:
		return true;
	case PLAN_RUN:
	case PLAN_SWEEP:
		break;
	}
	return false;
}

/* regression.commands names the command, or names none. */
static bool command_compared(const struct benchmark *b, const char *name)
{
	size_t i;

	if (b->regression.command_count == 0)
		return true;
	for (i = 0; i < b->regression.command_count; i++)
		if (!strcmp(b->regression.commands[i], name))
			return true;
	return false;
}

static void add_problem(struct plan_problems *pr, size_t input, bool flag,
			const struct benchmark *b, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void add_problem(struct plan_problems *pr, size_t input, bool flag,
			const struct benchmark *b, const char *fmt, ...)
{
	struct plan_problem *p;
	struct strbuf text;
	va_list ap;

	strbuf_init(&text, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&text, fmt, ap);
	va_end(ap);
	pr->v = xrealloc(pr->v, (pr->n + 1) * sizeof(*pr->v));
	p = &pr->v[pr->n++];
	p->input = input;
	p->flag = flag;
	p->line = b->pos.line;
	p->column = b->pos.column;
	p->text = strbuf_detach(&text, NULL);
}

/* The looks of a compared benchmark (docs/comparison.md): ERR_USAGE or
 * ERR_INVALID after adding the problem when they can never give an interval. */
static int plan_looks(const struct plan *p, struct plan_benchmark *pb, size_t input, size_t index,
		      struct plan_problems *pr)
{
	const struct benchmark *b = pb->b;
	struct judge_settings s = JUDGE_SETTINGS_INIT;
	struct err err = ERR_INIT;

	s.confidence = p->confidence > 0 ? p->confidence : b->regression.confidence;
	s.min_samples = b->regression.min_samples;
	s.max_runs = pb->max_pairs;
	s.runs = pb->runs;
	if (judge_plan_init(&pb->looks, &s, &err) == 0) {
		/* one look at the cap gets the whole level: the narrowest interval
		 * the step can have, so it plans whenever the looks did */
		s.runs = pb->looks.looks[pb->looks.n_looks - 1];
		if (p->flags.verb == PLAN_BISECT)
			judge_plan_init(&pb->recheck, &s, &err);
		return 0;
	}
	if (p->flags.has_runs) {
		add_problem(pr, input, true, b, "--runs %u: %s", p->flags.runs, err.msg);
		return ERR_USAGE;
	}
	if (b->param_count) /* a case: its label says which */
		add_problem(pr, input, false, b, "%s: %s", b->name, err.msg);
	else
		add_problem(pr, input, false, b, "benchmarks[%zu]: %s", index, err.msg);
	return ERR_INVALID;
}

static void plan_tolerances(struct plan_benchmark *pb)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(tolerated); k++) {
		const struct tolerance *t = regression_tolerance(&pb->b->regression, tolerated[k]);
		if (!t)
			continue;
		pb->tolerance[tolerated[k]] = *t;
		pb->has_tolerance[tolerated[k]] = true;
	}
	pb->max_cv = pb->b->regression.max_cv;
}

/* The glob --filter COMMAND › GLOB keeps of c's harness benchmarks, or
 * NULL: c is not a harness command that COMMAND names. */
static const char *harness_filter(const struct plan_flags *f, const struct command *c)
{
	if (!f->harness_filter || !c->harness.present ||
	    !harness_filter_matches(f->harness_command, c->name))
		return NULL;
	return f->harness_filter;
}

static void plan_commands(const struct plan_flags *f, struct plan_benchmark *pb)
{
	const struct benchmark *b = pb->b;
	size_t i;

	pb->n_commands = b->command_count;
	pb->commands = xcalloc(b->command_count + 1, sizeof(*pb->commands));
	for (i = 0; i < b->command_count; i++) {
		struct plan_command *pc = &pb->commands[i];
		pc->c = &b->commands[i];
		pc->compared = pb->compared && command_compared(b, pc->c->name);
		pc->backend = pc->c->metrics.backend;
		pc->count_runs = pc->c->metrics.count_runs;
		pc->harness_filter = harness_filter(f, pc->c);
	}
}

/* One benchmark's settings: the flag over the suite's. */
static void plan_benchmark(const struct plan *p, const struct plan_input *in,
			   const struct benchmark *b, bool selected, struct plan_benchmark *pb)
{
	const struct plan_flags *f = &p->flags;

	pb->b = b;
	pb->selected = selected;
	pb->left_out = verb_leaves_out(f->verb) && b->no_compare;
	pb->compared = in->compared && !pb->left_out;
	pb->schedule = !pb->compared	 ? SCHEDULE_INTERLEAVED
		       : f->has_schedule ? f->schedule
					 : b->schedule;
	pb->warmup = b->warmup;
	if (f->has_warmup) {
		pb->warmup.kind = WARMUP_COUNT;
		pb->warmup.count = f->warmup;
	}
	pb->runs = f->has_runs ? f->runs : b->runs;
	pb->min_runs = b->min_runs;
	pb->max_runs = b->max_runs;
	pb->min_time_ns = b->min_time_ns;
	pb->max_pairs = b->max_runs_set ? b->max_runs : SUITE_COMPARE_MAX_PAIRS;
	plan_tolerances(pb);
	if (pb->compared)
		pb->max_time_ns = f->max_time_ns	       ? f->max_time_ns
				  : b->regression.has_max_time ? b->regression.max_time_ns
							       : 0;
	plan_commands(f, pb);
}

/* Whether some command of a benchmark is paired against base. */
static bool any_compared(const struct plan_benchmark *pb)
{
	size_t i;

	for (i = 0; i < pb->n_commands; i++)
		if (pb->commands[i].compared)
			return true;
	return false;
}

/* A duet's two runs share the machine, not a terminal: a benchmark that
 * runs on one (`terminal: true`, one pseudo-terminal session per run)
 * cannot be measured as duets (docs/configuration.md, "Schedule").
 * ERR_USAGE or ERR_INVALID after adding the problem. Each side's streams
 * are files of its own private directory, never shared; files a command
 * writes itself are the suite's to keep apart. */
static int plan_duet(const struct plan *p, const struct plan_benchmark *pb, size_t input,
		     size_t index, struct plan_problems *pr)
{
	const struct benchmark *b = pb->b;
	static const char why[] = "runs on a terminal (terminal: true), and duet runs start "
				  "base and head at once, each without one";

	if (!b->terminal)
		return 0;
	if (p->flags.has_schedule) {
		add_problem(pr, input, true, b,
			    "--schedule duet: benchmark \"%s\" %s: use --schedule interleaved, or "
			    "leave it out with --filter or --skip-tag",
			    b->name, why);
		return ERR_USAGE;
	}
	if (b->param_count)
		add_problem(pr, input, false, b, "%s: schedule duet: the benchmark %s", b->name,
			    why);
	else
		add_problem(pr, input, false, b, "benchmarks[%zu]: schedule duet: the benchmark %s",
			    index, why);
	return ERR_INVALID;
}

/* A suite's benchmarks; the looks of those it compares. ERR_USAGE at the
 * first problem of a flag, else ERR_INVALID when there were any. */
static int plan_suite(const struct plan *p, const struct plan_input *in, size_t input,
		      struct plan_suite *ps, struct plan_problems *pr)
{
	const struct suite *s = in->suite;
	size_t k;
	int rc = 0, looks;

	ps->suite = s;
	ps->compared = in->compared;
	ps->n_benchmarks = s->benchmark_count;
	ps->benchmarks = xcalloc(s->benchmark_count + 1, sizeof(*ps->benchmarks));
	for (k = 0; k < s->benchmark_count; k++) {
		struct plan_benchmark *pb = &ps->benchmarks[k];
		plan_benchmark(p, in, &s->benchmarks[k], in->selected && in->selected[k], pb);
		ps->n_selected += pb->selected;
		if (!pb->selected || !pb->compared)
			continue;
		looks = plan_looks(p, pb, input, k, pr);
		if (looks == ERR_USAGE)
			return looks;
		if (looks < 0)
			rc = looks;
		if (pb->schedule != SCHEDULE_DUET || !any_compared(pb))
			continue;
		looks = plan_duet(p, pb, input, k, pr);
		if (looks == ERR_USAGE)
			return looks;
		if (looks < 0)
			rc = looks;
	}
	return rc;
}

/* The strictest confidence of the selected benchmarks: what each bisect
 * step is planned from. */
static double strictest_confidence(const struct plan_input *in, size_t n)
{
	double c = 0;
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; in[i].selected && k < in[i].suite->benchmark_count; k++)
			if (in[i].selected[k] &&
			    in[i].suite->benchmarks[k].regression.confidence > c)
				c = in[i].suite->benchmarks[k].regression.confidence;
	return c > 0 ? c : SUITE_DEFAULT_CONFIDENCE;
}

/* The whole comparison's time budget and the benchmarks that share it. */
static void plan_total_time(struct plan *p)
{
	uint64_t ns = 0;
	size_t i, k;

	if (!verb_compares(p->flags.verb))
		return;
	for (i = 0; i < p->n_suites; i++) {
		const struct plan_suite *ps = &p->suites[i];
		const struct suite *s = ps->suite;
		if (ps->n_selected && s->has_max_total_time && (!ns || s->max_total_time_ns < ns))
			ns = s->max_total_time_ns;
		for (k = 0; ps->compared && k < ps->n_benchmarks; k++)
			p->budget_benchmarks +=
				ps->benchmarks[k].selected && !ps->benchmarks[k].b->no_compare;
	}
	p->max_total_time_ns = p->flags.max_total_time_ns ? p->flags.max_total_time_ns
			       : ns			  ? ns
							  : SUITE_DEFAULT_MAX_TOTAL_TIME_NS;
}

/* Whether any selected benchmark runs duets. */
static void plan_duets(struct plan *p)
{
	size_t i, k;

	for (i = 0; i < p->n_suites; i++)
		for (k = 0; k < p->suites[i].n_benchmarks; k++) {
			const struct plan_benchmark *pb = &p->suites[i].benchmarks[k];
			p->duet |=
				pb->selected && pb->schedule == SCHEDULE_DUET && any_compared(pb);
		}
}

static void plan_accept(struct plan *p)
{
	const struct plan_flags *f = &p->flags;

	p->accept.label = f->accept_label ? f->accept_label : PLAN_DEFAULT_ACCEPT_LABEL;
	p->accept.applies =
		f->verb == PLAN_CI && f->labelled && f->labelled(f->labels_ctx, p->accept.label);
}

int plan_build(const struct plan_flags *f, const struct plan_input *in, size_t n, struct plan **out,
	       struct plan_problems *problems)
{
	struct plan *p = xcalloc(1, sizeof(*p));
	size_t i;
	int rc = 0, one;

	p->flags = *f;
	p->spawner = f->spawner;
	p->separate_artifacts = plan_separate_artifacts(f->verb);
	p->both_schedules = f->verb == PLAN_CALIBRATE && !f->has_schedule;
	if (f->verb == PLAN_BISECT)
		p->confidence = judge_bisect_confidence(strictest_confidence(in, n), f->candidates);
	plan_accept(p);
	p->n_suites = n;
	p->suites = xcalloc(n + 1, sizeof(*p->suites));
	for (i = 0; i < n && rc != ERR_USAGE; i++) {
		one = plan_suite(p, &in[i], i, &p->suites[i], problems);
		rc = one < 0 ? one : rc;
	}
	plan_total_time(p);
	plan_duets(p);
	if (rc < 0) {
		plan_free(p);
		p = NULL;
	}
	*out = p;
	return rc;
}

void plan_free(struct plan *p)
{
	size_t i, k;

	if (!p)
		return;
	for (i = 0; i < p->n_suites; i++) {
		for (k = 0; k < p->suites[i].n_benchmarks; k++)
			free(p->suites[i].benchmarks[k].commands);
		free(p->suites[i].benchmarks);
	}
	free(p->suites);
	free(p);
}

void plan_problems_release(struct plan_problems *problems)
{
	size_t i;

	for (i = 0; i < problems->n; i++)
		free(problems->v[i].text);
	free(problems->v);
	problems->v = NULL;
	problems->n = 0;
}

const struct tolerance *plan_tolerance(const struct plan_benchmark *pb, enum metric m)
{
	return m < METRIC__COUNT && pb->has_tolerance[m] ? &pb->tolerance[m] : NULL;
}

const struct plan_benchmark *plan_benchmark_named(const struct plan_suite *ps, const char *name)
{
	size_t i;

	for (i = 0; i < ps->n_benchmarks; i++)
		if (!strcmp(ps->benchmarks[i].b->name, name))
			return &ps->benchmarks[i];
	return NULL;
}

bool plan_harness_tolerance(const struct plan_benchmark *pb, const struct command *c,
			    const char *bench, struct tolerance *out)
{
	const struct tolerance *t = plan_tolerance(pb, METRIC_LATENCY);
	const struct harness_rule *rule = harness_rule_for(c, bench);

	if (!t)
		return false;
	*out = *t;
	if (rule && rule->has_tolerance)
		out->max_fraction = rule->max_fraction;
	return true;
}
