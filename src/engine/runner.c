/*
 * The runner: see runner.h. The suite and benchmark loops; the pieces they
 * call live beside this file (internal.h). One benchmark at a time:
 *
 *   sides     head (and base when comparing): private directory, ${workdir},
 *             stdin, setup hooks (side.c)
 *   warmup    rounds of every unit (count) or until each settles (auto)
 *   rounds    seeded shuffled order; a compared command's turn is a pair in
 *             coin-flipped order; after each round the stop rule (runs) or
 *             the judge's looks (comparisons) say whether to go on (rounds.c)
 *   finish    cleanup hooks (always), statistics, budgets, comparisons,
 *             result states; private directories removed (finish.c)
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/rng.h"
#include "measure/sysinfo.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* The real measurer behind the seam: measure/'s, as it is. */
static int real_run(void *ctx, const struct run_request *req, unsigned runs, struct run_result *res,
		    struct err *err)
{
	return measurer_run(ctx, req, runs, res, err);
}

static void real_cancel(void *ctx)
{
	measurer_cancel(ctx);
}

static const char *real_fallback_reason(const void *ctx)
{
	return measurer_fallback_reason(ctx);
}

static void real_choose(void *ctx, enum counter_backend want, enum count_what what,
			char *const *envp, struct counter_choice *out)
{
	counter_choose(ctx, want, what, envp, out);
}

static int real_count(void *ctx, const struct count_request *req, uint64_t counts[2],
		      struct strbuf *why, struct err *err)
{
	return counter_run(ctx, req, counts, why, err);
}

static int real_duet_cpus(void *ctx, int cpu[2], struct err *err)
{
	(void)ctx;
	return measurer_duet_cpus(cpu, err);
}

static int real_duet(void *ctx, const struct duet_request *req, struct duet_result *res,
		     struct err *err)
{
	return measurer_duet(ctx, req, res, err);
}

/* The two CPUs of the plan's duets, found once before anything of the
 * plan runs: ERR_EXEC when there are none (one usable CPU); for a
 * calibration that measures duets only beside the benchmarks' own pairs,
 * no error but the reason, for the calibration to say (calibrate.c). */
static int duet_cpus(struct runner *r, struct err *err)
{
	struct err why = ERR_INIT;
	int rc;

	if ((!r->plan->duet && !r->plan->both_schedules) || r->have_cpus || r->no_duet)
		return 0;
	if (!r->m.duet_cpus || !r->m.duet)
		rc = err_set(&why, ERR_EXEC,
			     "this measurer cannot run duets: use the "
			     "interleaved schedule");
	else
		rc = r->m.duet_cpus(r->m.ctx, r->cpu, &why);
	if (rc == 0) {
		r->have_cpus = true;
		return 0;
	}
	/* A calibration that only measures duets beside says why it did not;
	 * a plan that runs them cannot run here: an execution failure. */
	if (!r->plan->duet) {
		r->no_duet = xstrdup(why.msg);
		return 0;
	}
	*err = why;
	return err->code = ERR_EXEC;
}

void runner_new_with(const struct runner_options *o, const struct plan *p,
		     const struct runner_measurer *m, struct runner **out)
{
	struct runner *r = xcalloc(1, sizeof(*r));

	r->o = *o;
	r->plan = p;
	r->hidden.names = o->hidden_env;
	r->hidden.count = o->hidden_env_count;
	r->m = *m;
	*out = r;
}

int runner_new(const struct runner_options *o, const struct plan *p, struct runner **out,
	       struct err *err)
{
	struct measurer_options mo = MEASURER_OPTIONS_INIT;
	struct runner_measurer m = {
		.run = real_run,
		.cancel = real_cancel,
		.fallback_reason = real_fallback_reason,
		.choose = real_choose,
		.count = real_count,
		.duet_cpus = real_duet_cpus,
		.duet = real_duet,
	};
	struct measurer *owned;
	int rc;

	mo.spawner_path = p->spawner;
	mo.use_spawner = p->spawner != NULL;
	rc = measurer_new(&mo, &owned, err);
	if (rc < 0)
		return rc;
	m.ctx = owned;
	runner_new_with(o, p, &m, out);
	(*out)->owned = owned;
	rc = duet_cpus(*out, err);
	if (rc < 0) {
		runner_free(*out);
		*out = NULL;
	}
	return rc;
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	side_release_kept(r);
	bisect_free(r);
	free(r->no_duet);
	measurer_free(r->owned);
	free(r);
}

const char *runner_fallback_reason(const struct runner *r)
{
	return r->m.fallback_reason(r->m.ctx);
}

void runner_interrupt(struct runner *r)
{
	r->interrupted = 1;
	r->m.cancel(r->m.ctx);
}

bool runner_interrupted(const struct runner *r)
{
	return r->interrupted != 0;
}

/* ---- a benchmark ---------------------------------------------------------- */

static enum result_state worst(enum result_state a, enum result_state b)
{
	return a > b ? a : b;
}

void runner_setup_judging(struct bench_run *br, struct unit *u)
{
	const struct benchmark *b = br->b;
	static const enum metric compared[] = { METRIC_LATENCY, METRIC_CPU_TOTAL, METRIC_PEAK_RSS };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(compared); k++) {
		enum metric m = compared[k];
		const struct tolerance *t = plan_tolerance(br->pb, m);
		struct judge_metric_input *in = &u->in[m];
		if (!benchmark_measures(b, m) || !t)
			continue;
		judge_input_init(in, m);
		in->tol.max_fraction = t->max_fraction;
		in->tol.has_min_difference = t->has_min_difference;
		in->tol.min_difference = t->min_difference;
		in->tol.gate = t->gate;
		in->tol.statistic = t->statistic;
		in->max_cv = br->pb->max_cv;
		in->seed = br->r->o.seed;
		in->benchmark = b->name;
		in->command = br->rb->commands[u->index].name;
		u->judged[m] = true;
		rounds_point_inputs(br, u);
		judge_begin(br->looks, in, &u->cmp[m]);
	}
}

static void units_init(struct bench_run *br)
{
	const struct benchmark *b = br->b;
	size_t i;

	br->units = xcalloc(b->command_count, sizeof(*br->units));
	br->n_units = b->command_count;
	for (i = 0; i < b->command_count; i++) {
		const struct command *c = &b->commands[i];
		struct unit *u = &br->units[i];
		struct results_command *rc;
		struct strbuf text;

		u->index = i;
		u->cmd = c;
		u->pc = &br->pb->commands[i];
		u->sides[HEAD] = true;
		u->compared = u->pc->compared;
		u->sides[BASE] = u->compared;
		warmup_auto_init(&u->warm[HEAD]);
		warmup_auto_init(&u->warm[BASE]);
		strbuf_init(&text, 0);
		suite_exec_text(&c->exec, &text);
		rc = results_add_command(br->rb, c->name, text.buf);
		strbuf_release(&text);
		rc->line = c->pos.line; /* for annotations on the suite file */
		rc->base.present = u->compared;
		finish_describe_metrics(c, &rc->head);
		if (u->compared)
			finish_describe_metrics(c, &rc->base);
		/* Excluded from the comparison and without budgets: nothing to do. */
		if (br->compare && !u->compared && c->budget_count == 0)
			u->done = true;
	}
}

static void units_release(struct bench_run *br)
{
	size_t i;
	int s;

	for (i = 0; i < br->n_units; i++) {
		inprocess_release(&br->units[i]);
		calib_release(&br->units[i]);
	}
	for (i = 0; i < br->n_units; i++)
		for (s = 0; s < 2; s++) {
			warmup_auto_release(&br->units[i].warm[s]);
			free(br->units[i].floors[s]);
			free(br->units[i].work[s]);
		}
	free(br->units);
}

/* Records the machine's noise over a benchmark: the highest load averages
 * and steal seen, and the first reason it looked noisy. */
static void note_noise(struct results *doc, const struct sysinfo_sample *before)
{
	struct results_noise *rn = &doc->noise;
	struct sysinfo_sample after;
	struct sysinfo_noise n;

	sysinfo_sample(&after);
	sysinfo_noise(before, &after, sysinfo_logical_cpus(), &n);
	if (after.has_load) {
		if (!rn->has_load_average || after.load[0] > rn->load_average_1m)
			rn->load_average_1m = after.load[0];
		if (!rn->has_load_average || after.load[1] > rn->load_average_5m)
			rn->load_average_5m = after.load[1];
		if (!rn->has_load_average || after.load[2] > rn->load_average_15m)
			rn->load_average_15m = after.load[2];
		rn->has_load_average = true;
	}
	if (n.has_steal && (!rn->has_steal || n.steal_percent > rn->steal_percent)) {
		rn->has_steal = true;
		rn->steal_percent = n.steal_percent;
	}
	if (n.noisy && !rn->noisy) {
		rn->noisy = true;
		results_set_str(&rn->reason, n.reason);
	}
}

/* A unit needs head, and base when compared: when the setup of such a side
 * failed (the benchmark's error holds the setup's stderr), the unit is never
 * measured and is an error, not a comparison of no pairs. */
static void fail_unmeasurable_units(struct bench_run *br)
{
	size_t i;

	for (i = 0; i < br->n_units; i++) {
		struct unit *u = &br->units[i];
		if (br->sides[HEAD]->failed || (u->compared && br->sides[BASE]->failed))
			u->failed = true;
	}
}

/* The benchmark's entry in the document and the seeded order of its rounds. */
/* Why a comparison leaves a case out (docs/configuration.md, "Sizes"). */
#define NOT_COMPARED_REASON "its size says compare: false (run and sweep measure it)"

/* What case of a benchmark with parameters b is, if it is one. */
static void add_case(struct results_benchmark *rb, const struct benchmark *b)
{
	size_t i;

	if (!b->param_count)
		return;
	results_set_str(&rb->base_name, b->base_name);
	for (i = 0; i < b->param_count; i++)
		results_add_param(rb, b->params[i].name, b->params[i].value);
	rb->has_size = b->has_size;
	rb->size = b->size;
}

static void bench_begin(struct bench_run *br, struct runner *r, const struct suite *suite,
			const struct plan_benchmark *pb, struct side *sides[2],
			struct results_suite *rs)
{
	const struct benchmark *b = pb->b;
	char *stream;
	size_t i;

	memset(br, 0, sizeof(*br));
	br->r = r;
	br->suite = suite;
	br->b = b;
	br->pb = pb;
	br->looks = &pb->looks;
	br->sides[HEAD] = sides[HEAD];
	br->sides[BASE] = sides[BASE];
	br->compare = pb->compared;
	br->rb = results_add_benchmark(rs, b->name);
	br->rb->line = b->pos.line;
	br->rb->schedule = pb->schedule;
	add_case(br->rb, b);
	results_set_str(&br->rb->description, b->description);
	results_set_str(&br->rb->baseline, b->baseline);
	for (i = 0; i < b->tag_count; i++)
		results_add_tag(br->rb, b->tags[i]);
	stream = xasprintf("order:%s", b->name);
	rng_init(&br->order, r->o.seed, stream);
	free(stream);
}

/* Opens each side that has not failed and runs its setup hooks; a side that
 * cannot be opened or set up is marked failed, in the benchmark's error. */
static void open_sides(struct bench_run *br, struct err *err)
{
	const struct benchmark *b = br->b;
	int side, rc;

	for (side = HEAD; side <= BASE; side++) {
		struct side *s = br->sides[side];
		if (!s || s->failed)
			continue;
		rc = side_open(br, s, err);
		if (rc < 0) {
			results_set_error(&br->rb->error,
					  rc == ERR_INVALID ? RESULTS_ERROR_INVALID_PATH
							    : RESULTS_ERROR_INTERNAL,
					  err->msg, NULL, 0);
			s->failed = true;
			continue;
		}
		engine_progress(br->r, "%s: setup (%s)", b->name, side_name(side));
		if (side_run_hooks(br->r, b->setup, b->setup_count, s, "setup",
				   RESULTS_ERROR_SETUP_FAILED, &br->rb->error) < 0)
			s->failed = true;
	}
}

/* Every unit finished, and the benchmark's result: the worst of its
 * commands', or an error when the benchmark has one or was interrupted. */
static void finish_benchmark(struct bench_run *br, int rc)
{
	size_t i;

	br->rb->result = RESULT_PASS;
	br->rb->time_budget_ran_out = br->ran_out      ? br->ran_out
				      : br->counts_cut ? RESULTS_TIME_BUDGET_MAX_TOTAL_TIME
						       : RESULTS_TIME_BUDGET_NONE;
	for (i = 0; i < br->n_units; i++) {
		if (!inprocess_finish(br, &br->units[i]))
			finish_unit(br, &br->units[i]);
		calib_finish(br, &br->units[i]);
	}
	inprocess_drop_rows(br);
	for (i = 0; i < br->rb->n_commands; i++)
		br->rb->result = worst(br->rb->result, br->rb->commands[i].result);
	finish_relative(br);
	if (br->rb->error.present || rc == ERR_INTERRUPTED) {
		if (!br->rb->error.present)
			results_set_error(&br->rb->error, RESULTS_ERROR_INTERRUPTED, "interrupted",
					  NULL, 0);
		br->rb->result = RESULT_ERROR;
	}
}

/* A benchmark being measured: its run, its own sides (its private
 * directories on the suite's builds), and where it stands. */
struct turns {
	struct bench_run br;
	struct side own[2];
	struct side *sides[2];
	struct sysinfo_sample before;
	int rc;
	bool measuring; /* its rounds are not over */
};

/* Everything before its rounds: the document's entry, the sides' setup and
 * the warm-up. */
static void bench_start(struct turns *t, struct runner *r, const struct suite *suite,
			const struct plan_benchmark *pb, struct side *sides[2],
			struct results_suite *rs, struct results *doc, struct err *err)
{
	struct bench_run *br = &t->br;
	uint64_t at = clock_monotonic_ns();
	size_t i;
	int side;

	for (side = HEAD; side <= BASE; side++) {
		t->sides[side] = NULL;
		if (!sides[side])
			continue;
		t->own[side] = *sides[side]; /* the build is the suite's */
		t->own[side].priv = t->own[side].workdir = t->own[side].stdin_path = NULL;
		t->sides[side] = &t->own[side];
	}
	bench_begin(br, r, suite, pb, t->sides, rs);
	br->doc = doc;
	bisect_bench_begin(br);
	budget_begin(br);
	units_init(br);
	for (i = 0; i < br->n_units; i++)
		if (br->units[i].compared && !inprocess_is(&br->units[i])) {
			runner_setup_judging(br, &br->units[i]);
			bisect_unit_begin(br, &br->units[i]);
			calib_unit_begin(br, &br->units[i]);
		}
	sysinfo_sample(&t->before);
	open_sides(br, err);
	fail_unmeasurable_units(br);
	counted_choose(br);
	at = engine_phase(doc, RESULTS_PHASE_SETUP, at);
	t->rc = r->interrupted ? 0 : rounds_warm_up(br);
	engine_phase(doc, RESULTS_PHASE_WARMUP, at);
	t->measuring = t->rc == 0;
	budget_pause(br);
}

/* Everything after its rounds: the counted runs, the cleanup, the
 * verdicts. */
static void bench_end(struct turns *t, struct results *doc, struct err *err)
{
	struct bench_run *br = &t->br;
	struct runner *r = br->r;
	uint64_t at = clock_monotonic_ns();
	int side;

	budget_resume(br);
	if (t->rc == 0 && !r->interrupted)
		t->rc = counted_run(br);
	at = engine_phase(doc, RESULTS_PHASE_ROUNDS, at);
	/* the looks taken between rounds are judging, not rounds */
	doc->timings.phase_ns[RESULTS_PHASE_ROUNDS] -= br->judging_ns;
	doc->timings.phase_ns[RESULTS_PHASE_JUDGING] += br->judging_ns;
	if (r->interrupted)
		t->rc = ERR_INTERRUPTED;
	for (side = HEAD; side <= BASE; side++)
		side_cleanup(br, side);
	at = engine_phase(doc, RESULTS_PHASE_CLEANUP, at);
	budget_end(br);
	bisect_finish(br);
	finish_benchmark(br, t->rc);
	note_noise(doc, &t->before);
	counted_release(br);
	units_release(br);
	engine_phase(doc, RESULTS_PHASE_JUDGING, at);
	if (t->rc == ERR_INTERRUPTED)
		err_set(err, ERR_INTERRUPTED, "interrupted");
}

/* Measures the benchmarks pbs[0..n) in turn (docs/design.md, "Sizes in
 * turn"): each is set up and warmed up, then each takes a turn of one round
 * (rounds_step) in a seeded shuffled order until every one's rounds are
 * over, so that what drifts on the machine meets every size alike; then
 * each counts and cleans up. One benchmark alone is measured the same way.
 * The first error ends every one's rounds. */
static int run_in_turn(struct runner *r, const struct suite *suite,
		       const struct plan_benchmark *const *pbs, size_t n, struct side *sides[2],
		       struct results_suite *rs, struct results *doc, struct err *err)
{
	struct turns *t = xcalloc(n, sizeof(*t));
	size_t *order = xcalloc(n, sizeof(*order));
	struct rng rng;
	char *stream = xasprintf("turns:%s", pbs[0]->b->name);
	uint64_t at;
	size_t i, k;
	int rc = 0;

	rng_init(&rng, r->o.seed, stream);
	free(stream);
	results_reserve_benchmarks(rs, n); /* the runs point into it */
	for (i = 0; i < n; i++) {
		bench_start(&t[i], r, suite, pbs[i], sides, rs, doc, err);
		t[i].br.in_turn = n > 1;
		if (t[i].rc < 0 && rc == 0)
			rc = t[i].rc;
	}
	at = clock_monotonic_ns();
	while (rc == 0) {
		bool any = false;
		schedule_round_order(&rng, order, n);
		for (k = 0; k < n && rc == 0; k++) {
			struct turns *u = &t[order[k]];
			if (!u->measuring)
				continue;
			budget_resume(&u->br);
			u->rc = rounds_step(&u->br);
			budget_pause(&u->br);
			u->measuring = u->rc == 0;
			if (u->rc > 0)
				u->rc = 0;
			if (u->rc < 0)
				rc = u->rc;
			any |= u->measuring;
		}
		if (!any)
			break;
	}
	engine_phase(doc, RESULTS_PHASE_ROUNDS, at);
	for (i = 0; i < n; i++) {
		if (rc < 0 && t[i].measuring)
			t[i].rc = rc;
		bench_end(&t[i], doc, err);
		rs->result = worst(rs->result, t[i].br.rb->result);
		if (t[i].rc < 0 && rc == 0)
			rc = t[i].rc;
	}
	free(order);
	free(t);
	return rc;
}

/* ---- a suite ------------------------------------------------------------- */

/* Whether b is a size of the same series as a (runner_series_key, by
 * which the growth fit and the long run find series too). */
static bool same_series(const struct benchmark *a, const struct benchmark *b)
{
	char *ka, *kb;
	bool same;

	if (!a->has_size || !b->has_size)
		return false;
	ka = runner_series_key(a->base_name, a->params, a->param_count);
	kb = runner_series_key(b->base_name, b->params, b->param_count);
	same = !strcmp(ka, kb);
	free(ka);
	free(kb);
	return same;
}

/* Records the selected benchmarks of ps from index `from` on as never
 * started: an interrupt came first. They have no commands. */
static void not_started(const struct plan_suite *ps, size_t from, struct results_suite *rs)
{
	size_t i;

	for (i = from; i < ps->n_benchmarks; i++) {
		struct results_benchmark *rb;
		if (!ps->benchmarks[i].selected)
			continue;
		rb = results_add_benchmark(rs, ps->benchmarks[i].b->name);
		rb->line = ps->benchmarks[i].b->pos.line;
		add_case(rb, ps->benchmarks[i].b);
		results_set_error(&rb->error, RESULTS_ERROR_INTERRUPTED, RESULTS_NOT_STARTED, NULL,
				  0);
		rb->result = RESULT_ERROR;
		rs->result = RESULT_ERROR;
	}
}

void runner_not_started(const struct plan_suite *ps, struct results *doc)
{
	struct results_suite *rs = results_add_suite(doc, ps->suite->name);

	results_set_str(&rs->description, ps->suite->description);
	results_set_str(&rs->file, ps->suite->path);
	rs->error_conclusion_neutral = ps->suite->error_conclusion_neutral;
	not_started(ps, 0, rs);
}

int runner_run_suite(struct runner *r, const struct plan_suite *ps,
		     const struct runner_roots *roots, struct results *doc, struct err *err)
{
	const struct suite *s = ps->suite;
	struct side head, base;
	struct side *sides[2] = { &head, ps->compared ? &base : NULL };
	struct results_suite *rs;
	const struct plan_benchmark **pbs;
	size_t i, next = 0;
	int rc = duet_cpus(r, err);

	if (rc < 0)
		return rc;
	if (r->no_duet && !doc->calibration.duet_not_measured)
		results_set_str(&doc->calibration.duet_not_measured, r->no_duet);
	rs = results_add_suite(doc, s->name);

	memset(&head, 0, sizeof(head));
	memset(&base, 0, sizeof(base));
	head.root = roots->head;
	head.head_root = roots->fixture ? roots->fixture : roots->head;
	base.root = roots->base;
	base.head_root = head.head_root;
	results_set_str(&rs->description, s->description);
	results_set_str(&rs->file, s->path);
	rs->error_conclusion_neutral = s->error_conclusion_neutral;
	rs->result = RESULT_PASS;

	rc = side_build_all(r, s, sides, roots, doc, rs, err);
	if (rc < 0 || rs->result == RESULT_ERROR)
		goto done;
	pbs = xcalloc(ps->n_benchmarks ? ps->n_benchmarks : 1, sizeof(*pbs));
	for (i = 0; i < ps->n_benchmarks && rc == 0; i = next) {
		size_t n = 0;
		for (next = i; next < ps->n_benchmarks; next++) {
			const struct plan_benchmark *pb = &ps->benchmarks[next];
			if (n && !same_series(pbs[0]->b, pb->b))
				break;
			if (!pb->selected)
				continue;
			if (pb->left_out) {
				results_add_not_compared(rs, pb->b->name, NOT_COMPARED_REASON);
				continue;
			}
			pbs[n++] = pb;
		}
		if (n)
			rc = run_in_turn(r, s, pbs, n, sides, rs, doc, err);
	}
	free(pbs);
	if (rc == 0)
		runner_geometric_mean(rs, ps->compared);
	if (rc == 0)
		runner_growth(rs, s, ps->compared);
	if (rc == 0)
		runner_long_run(rs, ps);
done:
	if (rc == ERR_INTERRUPTED)
		not_started(ps, next, rs);
	side_release_build(&head);
	side_release_build(&base);
	if (rc == ERR_INTERRUPTED) {
		doc->summary.interrupted = true;
		err_set(err, ERR_INTERRUPTED, "interrupted");
	}
	return rc;
}

static void mark_new(enum result_state *r)
{
	if (*r == RESULT_PASS)
		*r = RESULT_NEW_SUITE;
}

/* Nothing was compared, so nothing passed: what a run would call a pass is
 * RESULT_NEW_SUITE; broken budgets and failures keep their states. */
void runner_mark_new_in_head(struct results *doc)
{
	struct results_suite *s;
	size_t b, c;

	if (!doc->n_suites)
		return;
	s = &doc->suites[doc->n_suites - 1];
	s->new_in_head = true;
	mark_new(&s->result);
	for (b = 0; b < s->n_benchmarks; b++) {
		mark_new(&s->benchmarks[b].result);
		for (c = 0; c < s->benchmarks[b].n_commands; c++)
			mark_new(&s->benchmarks[b].commands[c].result);
	}
}
