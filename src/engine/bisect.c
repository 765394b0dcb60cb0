/*
 * A bisect's comparisons (runner.h, "bisect"; docs/sweeps.md, "himorime
 * bisect"): the rounds run as in any comparison, but at each look a compared
 * command's metric is judged by the bisect rule (judge/bisect.h) instead of
 * against its tolerance. The runner keeps one entry per command of the
 * search (suite, benchmark and command names): its change to locate,
 * measured once with bad as head, and the placement of the candidate
 * measured last. A command stops at the look that locates or places it; one
 * whose change could not be located is not measured in the steps at all.
 * Entries are kept by pointer, so that a unit's stays put while others are
 * added.
 *
 * A search on a count (instructions, allocations, allocated_bytes,
 * artifact_size) has no rounds: its commands are done before the first, and
 * their counted runs (counted.c) are the only ones made, of the searched
 * count's phase alone, judged by the bisect rule on counts each time the
 * runs per side it wanted are in (bisect_count), and a recheck starts at
 * the cap of runs.
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "judge/bisect.h"
#include "judge/counts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

struct bisect_entry {
	char *suite, *benchmark, *command;
	bool measured; /* in the phase's comparison so far */
	struct judge_bisect_target target;
	struct judge_bisect_step step;
};

struct engine_bisect {
	enum metric metric;
	enum runner_bisect_phase phase;
	struct bisect_entry **v;
	size_t n, alloc;
};

static void entries_clear(struct engine_bisect *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		free(b->v[i]->suite);
		free(b->v[i]->benchmark);
		free(b->v[i]->command);
		free(b->v[i]);
	}
	b->n = 0;
}

void bisect_free(struct runner *r)
{
	if (!r->bisect)
		return;
	entries_clear(r->bisect);
	free(r->bisect->v);
	free(r->bisect);
	r->bisect = NULL;
}

void runner_bisect(struct runner *r, enum metric m, enum runner_bisect_phase phase)
{
	size_t i;

	if (!r->bisect)
		r->bisect = xcalloc(1, sizeof(*r->bisect));
	r->bisect->metric = m;
	r->bisect->phase = phase;
	if (phase == RUNNER_BISECT_TARGET)
		entries_clear(r->bisect);
	for (i = 0; i < r->bisect->n; i++)
		r->bisect->v[i]->measured = false;
}

static struct bisect_entry *entry_named(const struct engine_bisect *b, const char *suite,
					const char *benchmark, const char *command)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (!strcmp(b->v[i]->suite, suite) && !strcmp(b->v[i]->benchmark, benchmark) &&
		    !strcmp(b->v[i]->command, command))
			return b->v[i];
	return NULL;
}

static struct bisect_entry *entry_add(struct engine_bisect *b, const char *suite,
				      const char *benchmark, const char *command)
{
	struct bisect_entry *e = xcalloc(1, sizeof(*e));

	e->suite = xstrdup(suite);
	e->benchmark = xstrdup(benchmark);
	e->command = xstrdup(command);
	b->v = xgrow(b->v, &b->alloc, b->n + 1, sizeof(*b->v));
	b->v[b->n++] = e;
	return e;
}

void bisect_bench_begin(struct bench_run *br)
{
	const struct engine_bisect *b = br->r->bisect;

	if (b && b->phase == RUNNER_BISECT_RECHECK && br->pb->recheck.n_looks)
		br->looks = &br->pb->recheck;
}

/* Whether u compares the metric searched: a tolerance for it and, for a
 * count, the command asks for it. */
static bool takes_part(const struct bench_run *br, const struct unit *u, enum metric m)
{
	if (!metric_info(m)->counted)
		return u->judged[m];
	return command_measures(u->cmd, m) && plan_tolerance(br->pb, m);
}

/* A count's entry before its first runs: no figures yet, by the counts rule. */
static void counts_begin(enum runner_bisect_phase phase, struct bisect_entry *e)
{
	if (phase == RUNNER_BISECT_TARGET) {
		memset(&e->target, 0, sizeof(e->target));
		e->target.counts = true;
		e->target.confidence = 1;
		return;
	}
	memset(&e->step, 0, sizeof(e->step));
	e->step.counts = true;
	e->step.confidence = 1;
	e->step.midpoint_percent = expm1(e->target.midpoint) * 100.0;
}

void bisect_unit_begin(struct bench_run *br, struct unit *u)
{
	struct engine_bisect *b = br->r->bisect;
	bool counted = b && metric_info(b->metric)->counted;
	struct bisect_entry *e;

	if (!b || !u->compared)
		return;
	/* only the metric searched is looked at: a command that does not
	 * compare it has nothing to say, and is not measured */
	u->done = true;
	if (!takes_part(br, u, b->metric))
		return;
	e = entry_named(b, br->suite->name, br->b->name, u->cmd->name);
	if (b->phase == RUNNER_BISECT_TARGET) {
		if (!e)
			e = entry_add(b, br->suite->name, br->b->name, u->cmd->name);
		judge_bisect_target_begin(br->looks, &e->target);
	} else if (!e || !e->target.located) {
		return; /* it takes no part */
	} else {
		judge_bisect_begin(br->looks, &e->target, &e->step);
	}
	if (counted)
		counts_begin(b->phase, e);
	e->measured = true;
	u->bisect = e;
	/* a count is measured by its counted runs alone, after the rounds */
	u->done = counted;
}

bool bisect_counts_phase(const struct bench_run *br, const struct unit *u,
			 const enum metric *metrics, size_t n)
{
	const struct engine_bisect *b = br->r->bisect;
	size_t k;

	if (!b)
		return true;
	for (k = 0; u->bisect && k < n; k++)
		if (metrics[k] == b->metric)
			return true;
	return false;
}

size_t bisect_count_runs(const struct bench_run *br, const struct unit *u, size_t runs)
{
	const struct engine_bisect *b = br->r->bisect;

	if (b && u->bisect && b->phase == RUNNER_BISECT_RECHECK)
		return COUNTS_DEFAULT_RUNS_CAP;
	return runs;
}

unsigned bisect_count(const struct bench_run *br, const struct unit *u, enum metric m,
		      const struct counts_input *in)
{
	const struct engine_bisect *b = br->r->bisect;
	struct bisect_entry *e = u->bisect;
	unsigned more;

	if (!b || !e || m != b->metric)
		return 0;
	if (b->phase == RUNNER_BISECT_TARGET)
		judge_bisect_counts_locate(in, &e->target, &more);
	else
		judge_bisect_counts_place(&e->target, in, &e->step, &more);
	return more;
}

bool bisect_look(struct bench_run *br, struct unit *u, bool look)
{
	const struct engine_bisect *b = br->r->bisect;
	const struct judge_metric_input *in = &u->in[b->metric];
	struct bisect_entry *e = u->bisect;

	if (b->phase == RUNNER_BISECT_TARGET) {
		if (look)
			judge_bisect_target_look(br->looks, in, br->next_look, &e->target);
		return e->target.final;
	}
	if (look)
		judge_bisect_look(br->looks, &e->target, in, br->next_look, &e->step);
	return e->step.final;
}

/* Why a count's entry the counted runs left undecided stopped: the whole
 * time budget (a count not measured is a failure of its command: see
 * command_finding). */
static void counts_unfinished(const struct bench_run *br, const struct unit *u, enum metric m,
			      char *reason, size_t size)
{
	const struct results_command *rc = &br->rb->commands[u->index];
	size_t h = rc->head.metrics[m].n_samples, b = rc->base.metrics[m].n_samples;
	size_t runs = h < b ? h : b;

	if (br->counts_cut)
		snprintf(reason, size,
			 "the comparison's time budget ran out after %zu counted run%s per side",
			 runs, runs == 1 ? "" : "s");
}

void bisect_finish(struct bench_run *br)
{
	static const char *const budgets[] = {
		[RESULTS_TIME_BUDGET_NONE] = NULL,
		[RESULTS_TIME_BUDGET_MAX_TIME] = "the time budget",
		[RESULTS_TIME_BUDGET_MAX_TOTAL_TIME] = "the comparison's time budget",
	};
	const struct engine_bisect *b = br->r->bisect;
	const char *budget = budgets[br->ran_out];
	bool target = b && b->phase == RUNNER_BISECT_TARGET;
	size_t i;

	for (i = 0; b && i < br->n_units; i++) {
		struct bisect_entry *e = br->units[i].bisect;
		bool final = e && (target ? e->target.final : e->step.final);
		char *reason = !e ? NULL : target ? e->target.reason : e->step.reason;
		size_t size = target ? sizeof(e->target.reason) : sizeof(e->step.reason);
		if (!e || final)
			continue;
		if (metric_info(b->metric)->counted)
			counts_unfinished(br, &br->units[i], b->metric, reason, size);
		else if (budget)
			snprintf(reason, size, "%s ran out after %zu pairs", budget,
				 br->units[i].in[b->metric].n);
	}
}

/* ---- what a comparison of the search says --------------------------------- */

struct findings {
	struct runner_bisect_finding *v;
	enum judge_bisect_place *place;
	size_t n, alloc, alloc_place;
};

static struct runner_bisect_finding *add_finding(struct findings *fs, enum step_finding_kind kind,
						 const char *suite)
{
	struct runner_bisect_finding *f;

	fs->v = xgrow(fs->v, &fs->alloc, fs->n + 1, sizeof(*fs->v));
	fs->place = xgrow(fs->place, &fs->alloc_place, fs->n + 1, sizeof(*fs->place));
	fs->place[fs->n] = JUDGE_BISECT_UNPLACED;
	f = &fs->v[fs->n++];
	memset(f, 0, sizeof(*f));
	f->f.kind = kind;
	f->f.suite = suite;
	f->reason = "";
	return f;
}

static double percent(double log_ratio)
{
	return expm1(log_ratio) * 100.0;
}

/* A command's change to locate, measured with bad as head. */
static void target_finding(const struct judge_bisect_target *t, struct runner_bisect_finding *f,
			   enum judge_bisect_place *place)
{
	f->state = t->located ? RUNNER_BISECT_LOCATED : RUNNER_BISECT_NOT_LOCATED;
	*place = t->located ? JUDGE_BISECT_BAD : JUDGE_BISECT_UNPLACED;
	f->counts = t->counts;
	f->has_estimate = t->pairs > 0;
	f->has_interval = t->has_interval;
	f->pairs = t->pairs;
	f->confidence = t->confidence;
	f->change_percent = percent(t->change);
	f->ci_low_percent = percent(t->low);
	f->ci_high_percent = percent(t->high);
	f->midpoint_percent = percent(t->midpoint);
	f->reason = t->reason;
}

/* A candidate's placement. */
static void step_finding_of(const struct judge_bisect_step *s, struct runner_bisect_finding *f,
			    enum judge_bisect_place *place)
{
	static const enum runner_bisect_state states[] = {
		[JUDGE_BISECT_UNPLACED] = RUNNER_BISECT_UNPLACED,
		[JUDGE_BISECT_GOOD] = RUNNER_BISECT_GOOD,
		[JUDGE_BISECT_BAD] = RUNNER_BISECT_BAD,
	};

	f->state = states[s->place];
	*place = s->place;
	f->counts = s->counts;
	f->has_estimate = s->pairs > 0;
	f->has_interval = s->has_interval;
	f->pairs = s->pairs;
	f->confidence = s->confidence;
	f->change_percent = s->change_percent;
	f->ci_low_percent = s->ci_low_percent;
	f->ci_high_percent = s->ci_high_percent;
	f->midpoint_percent = s->midpoint_percent;
	f->reason = s->reason;
}

/* Why the metric searched was not measured on a side of a command that
 * takes part (unsupported here, under `metrics.unsupported: skip` too: a
 * search on it finds nothing), or NULL. */
static const char *unmeasured(const struct results_command *c, enum metric m)
{
	const struct results_metric *side[2] = { &c->head.metrics[m], &c->base.metrics[m] };
	size_t i;

	for (i = 0; i < 2; i++)
		if (side[i]->status == STATUS_UNSUPPORTED || side[i]->status == STATUS_FAILED)
			return side[i]->reason ? side[i]->reason
					       : metric_status_name(side[i]->status);
	return NULL;
}

/* What one command says: that it failed, its measurement, that it takes no
 * part, or that it does not compare the metric. */
static void command_finding(const struct engine_bisect *b, const struct results_suite *rs,
			    const struct results_benchmark *bm, const struct results_command *c,
			    struct findings *fs)
{
	const struct bisect_entry *e = entry_named(b, rs->name, bm->name, c->name);
	bool target = b->phase == RUNNER_BISECT_TARGET;
	const char *off = e && e->measured ? unmeasured(c, b->metric) : NULL;
	struct runner_bisect_finding *f;

	if (c->head.error.present || c->base.error.present || off)
		f = add_finding(fs, STEP_COMMAND_FAILED, rs->name);
	else if (c->result == RESULT_ERROR)
		f = add_finding(fs, STEP_NOT_MEASURED, rs->name);
	else
		f = add_finding(fs, e && e->measured ? STEP_COMPARED : STEP_NOT_COMPARED, rs->name);
	f->f.benchmark = bm->name;
	f->f.command = c->name;
	if (f->f.kind == STEP_COMMAND_FAILED) {
		f->f.message = c->head.error.present   ? c->head.error.message
			       : c->base.error.present ? c->base.error.message
						       : off;
		f->metric_error = c->result == RESULT_METRIC_ERROR ||
				  (off && !c->head.error.present && !c->base.error.present);
	}
	if (f->f.kind == STEP_COMPARED && target)
		target_finding(&e->target, f, &fs->place[fs->n - 1]);
	else if (f->f.kind == STEP_COMPARED)
		step_finding_of(&e->step, f, &fs->place[fs->n - 1]);
	else if (e && !target) {
		/* its change was not located: it takes no part */
		target_finding(&e->target, f, &fs->place[fs->n - 1]);
		f->state = RUNNER_BISECT_NO_PART;
	}
}

/* A suite's findings: its error, its benchmarks' errors, then every command. */
static void suite_findings(const struct engine_bisect *b, const struct results_suite *rs,
			   struct findings *fs)
{
	size_t j, k;

	if (rs->error.present)
		add_finding(fs, STEP_SUITE_FAILED, rs->name)->f.message = rs->error.message;
	for (j = 0; j < rs->n_benchmarks; j++)
		if (rs->benchmarks[j].error.present) {
			struct runner_bisect_finding *f =
				add_finding(fs, STEP_BENCHMARK_FAILED, rs->name);
			f->f.benchmark = rs->benchmarks[j].name;
			f->f.message = rs->benchmarks[j].error.message;
		}
	for (j = 0; j < rs->n_benchmarks; j++)
		for (k = 0; k < rs->benchmarks[j].n_commands; k++)
			command_finding(b, rs, &rs->benchmarks[j], &rs->benchmarks[j].commands[k],
					fs);
}

enum step_outcome runner_bisect_outcome(const struct runner *r, const struct results *doc,
					struct runner_bisect_finding **v, size_t *n)
{
	struct findings fs = { .v = NULL };
	struct step_finding *plain;
	enum step_outcome out;
	size_t i;

	for (i = 0; r->bisect && i < doc->n_suites; i++)
		suite_findings(r->bisect, &doc->suites[i], &fs);
	plain = xcalloc(fs.n + 1, sizeof(*plain));
	for (i = 0; i < fs.n; i++)
		plain[i] = fs.v[i].f;
	out = judge_bisect_outcome(plain, fs.place, fs.n);
	free(plain);
	free(fs.place);
	*v = fs.v;
	*n = fs.n;
	return out;
}
