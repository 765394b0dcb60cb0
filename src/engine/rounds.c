/*
 * One run, warmup and the rounds of a benchmark (see internal.h). A round runs
 * every active unit once in a seeded shuffled order; a compared unit's turn is
 * a base/head pair in coin-flipped order. After each round a plain run asks
 * the stop rule (schedule.h) and a comparison takes the judge's look when its
 * pair count is a planned one (docs/comparison.md).
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/fsio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

/* ---- one run ------------------------------------------------------------ */

static void push(double **v, size_t *alloc, size_t n, double x)
{
	*v = xgrow(*v, alloc, n + 1, sizeof(**v));
	(*v)[n] = x;
}

bool rounds_exit_ok(const struct command *c, int code)
{
	size_t i;

	for (i = 0; i < c->exit_code_count; i++)
		if (c->exit_codes[i] == code)
			return true;
	return false;
}

static enum results_error_kind error_kind(const struct run_result *res)
{
	switch (res->status) {
	case RUN_EXITED:
	case RUN_SIGNALED:
		return RESULTS_ERROR_EXIT_CODE;
	case RUN_TIMED_OUT:
		return RESULTS_ERROR_TIMEOUT;
	case RUN_START_FAILED:
		return RESULTS_ERROR_START_FAILED;
	case RUN_INTERRUPTED:
		return RESULTS_ERROR_INTERRUPTED;
	}
	return RESULTS_ERROR_INTERNAL;
}

static struct results_side *result_side(struct bench_run *br, struct unit *u, int side)
{
	struct results_command *rc = &br->rb->commands[u->index];
	return side == HEAD ? &rc->head : &rc->base;
}

static void fail_unit(struct bench_run *br, struct unit *u, int side, enum results_error_kind kind,
		      const char *msg, const char *tail, size_t tail_len)
{
	struct results_side *rs = result_side(br, u, side);

	u->failed = true;
	if (!rs->error.present)
		results_set_error(&rs->error, kind, msg, tail, tail_len);
}

/* Reads the declared work of one run: the value, or the size of a file read
 * after prepare_each and outside the measured time. */
static int read_work(struct bench_run *br, const struct side *s, double *work, struct err *err)
{
	const struct work *w = &br->b->metrics.work;
	struct strbuf sb;
	struct stat st;
	struct vars v;
	char *path;
	int rc;

	if (w->kind == WORK_VALUE) {
		*work = w->value;
		return 0;
	}
	side_vars(s, &v);
	strbuf_init(&sb, 0);
	rc = vars_expand(w->file, &v, false, &sb, err);
	if (rc < 0) {
		strbuf_release(&sb);
		return rc;
	}
	path = exec_resolve_path(s->root, sb.buf);
	strbuf_release(&sb);
	if (stat(path, &st) < 0)
		rc = err_set(err, ERR_METRIC, "throughput work file \"%s\": %s", path,
			     strerror(errno));
	else if (st.st_size <= 0)
		rc = err_set(err, ERR_METRIC, "throughput work file \"%s\" is empty", path);
	else
		*work = (double)st.st_size;
	free(path);
	return rc;
}

static void record(struct bench_run *br, struct unit *u, int side, const struct run_result *res,
		   double work)
{
	const struct benchmark *b = br->b;
	struct results_side *rs = result_side(br, u, side);
	double wall = (double)(res->wall_ns ? res->wall_ns : 1);
	size_t n = u->n_runs[side];

	if (u->to_shadow) { /* the other schedule's pair of a calibration */
		calib_record(u, side, res);
		return;
	}
	results_add_sample(rs, METRIC_LATENCY, (double)res->wall_ns);
	if (b->metrics.cpu) {
		double total = (double)res->user_ns + (double)res->system_ns;
		results_add_sample(rs, METRIC_CPU_USER, (double)res->user_ns);
		results_add_sample(rs, METRIC_CPU_SYSTEM, (double)res->system_ns);
		results_add_sample(rs, METRIC_CPU_TOTAL, total);
		results_add_sample(rs, METRIC_CPU_UTILIZATION, total / wall * 100.0);
	}
	if (b->metrics.memory) {
		results_add_sample(rs, METRIC_PEAK_RSS, (double)res->peak_rss_bytes);
		push(&u->floors[side], &u->alloc_floors[side], n, (double)res->floor_bytes);
	}
	if (b->metrics.work.kind != WORK_NONE) {
		results_add_sample(rs, METRIC_THROUGHPUT, work / (wall / 1e9));
		push(&u->work[side], &u->alloc_work[side], n, work);
	}
	if (counted_by_perf(br, u))
		counted_add_run(br, u, side, res);
	u->n_runs[side]++;
	u->measured_ns[side] += res->wall_ns;
	rs->count++;
}

/* prepare_each and the declared work of one run, outside the measured time.
 * Returns 1 when the run goes ahead; 0 when the unit failed (recorded in the
 * document) or ERR_INTERRUPTED. */
static int before_run(struct bench_run *br, struct unit *u, int side, double *work)
{
	struct runner *r = br->r;
	struct side *s = br->sides[side];
	struct results_side *rs = result_side(br, u, side);
	struct err err = ERR_INIT;

	if (side_run_hooks(r, br->b->prepare_each, br->b->prepare_each_count, s, "prepare_each",
			   RESULTS_ERROR_PREPARE_EACH_FAILED, &rs->error) < 0) {
		u->failed = true;
		return r->interrupted ? ERR_INTERRUPTED : 0;
	}
	if (br->b->metrics.work.kind != WORK_NONE && read_work(br, s, work, &err) < 0) {
		struct results_metric *m = &rs->metrics[METRIC_THROUGHPUT];
		m->status = STATUS_FAILED;
		results_set_str(&m->reason, err.msg);
		fail_unit(br, u, side, RESULTS_ERROR_METRIC_COLLECTION_FAILED, err.msg, NULL, 0);
		rs->error.has_metric = true;
		rs->error.metric = METRIC_THROUGHPUT;
		return 0;
	}
	return 1;
}

/* `stderr: {file: ...}`: the run's whole stderr is kept in ${workdir}. */
static void keep_stderr(const struct side *s, const struct command *c, const char *stderr_path)
{
	struct err err = ERR_INIT;
	struct strbuf all;
	char *keep;

	if (c->err.kind != OUTPUT_FILE)
		return;
	keep = exec_resolve_path(s->workdir, c->err.path);
	strbuf_init(&all, 0);
	exec_stderr_tail(stderr_path, (size_t)64 << 20, NULL, &all);
	fsio_write_atomic(keep, all.buf, all.len, &err);
	strbuf_release(&all);
	free(keep);
}

/* A run that ended otherwise than with an accepted exit code: `why` it
 * ended, and the tail of its stderr, become the side's error. */
static void record_failure(struct bench_run *br, struct unit *u, int side, const struct prepared *p,
			   const struct run_result *res, const char *why, const char *stderr_path)
{
	struct results_side *rs = result_side(br, u, side);
	struct strbuf tail;

	strbuf_init(&tail, 0);
	exec_stderr_tail(stderr_path, RESULTS_MAX_STDERR_BYTES, p, &tail);
	fail_unit(br, u, side, error_kind(res), why, tail.buf, tail.len);
	if (res->status == RUN_EXITED) {
		rs->error.has_exit_code = true;
		rs->error.exit_code = res->code;
	}
	strbuf_release(&tail);
}

/* One run's result: its samples (unless warming up), or the unit's failure.
 * Returns 0, or ERR_INTERRUPTED. */
static int take_result(struct bench_run *br, struct unit *u, int side, bool warmup,
		       const struct prepared *p, const struct run_result *res, double work,
		       const char *out_path, const char *stderr_path)
{
	struct strbuf why;

	if (res->status == RUN_EXITED && rounds_exit_ok(u->cmd, res->code)) {
		if (inprocess_is(u))
			inprocess_take(br, u, side, warmup, res, out_path, stderr_path, p);
		else if (!warmup)
			record(br, u, side, res, work);
		return 0;
	}
	if (res->status == RUN_INTERRUPTED || br->r->interrupted) {
		fail_unit(br, u, side, RESULTS_ERROR_INTERRUPTED, "interrupted", NULL, 0);
		return ERR_INTERRUPTED;
	}
	strbuf_init(&why, 0);
	run_result_describe(&p->req, res, &why);
	record_failure(br, u, side, p, res, why.buf, stderr_path);
	strbuf_release(&why);
	return 0;
}

/* One side's run, ready to start: its request and the files it names. */
struct ready {
	struct prepared p;
	char *stdout_path, *stderr_path;
	char *out_path; /* a harness command's output, read after the run */
	double work;
};

/* prepare_each, the declared work and the request of one run of a unit's
 * side. Returns 1 when the run goes ahead (ready_release after it); 0 when
 * the unit failed (recorded), or ERR_INTERRUPTED. */
static int ready_run(struct bench_run *br, struct unit *u, int side, bool warmup, struct ready *rd)
{
	struct runner *r = br->r;
	struct side *s = br->sides[side];
	const struct command *c = u->cmd;
	struct err err = ERR_INIT;
	struct vars v;
	int rc;

	memset(rd, 0, sizeof(*rd));
	rc = before_run(br, u, side, &rd->work);
	if (rc <= 0)
		return rc;
	side_vars(s, &v);
	rd->stderr_path = xasprintf("%s/stderr-%zu", s->priv, u->index);
	if (exec_prepare(&c->exec, &v, s->root, &r->hidden, &rd->p, &err) < 0 ||
	    inprocess_select(u, &rd->p, &err) < 0) {
		fail_unit(br, u, side, RESULTS_ERROR_START_FAILED, err.msg, NULL, 0);
		return 0;
	}
	if (c->out.kind == OUTPUT_FILE)
		rd->stdout_path = exec_resolve_path(s->workdir, c->out.path);
	else if (inprocess_is(u) && !c->harness.output)
		rd->stdout_path = inprocess_stdout_path(s, u);
	if (inprocess_is(u)) {
		rd->out_path = inprocess_output_path(s, u, rd->stdout_path);
		inprocess_before_run(rd->out_path);
	}
	rd->p.req.stdin_path = s->stdin_path;
	rd->p.req.stdout_path = rd->stdout_path;
	rd->p.req.stderr_path = rd->stderr_path;
	rd->p.req.terminal = br->b->terminal;
	/* A terminal the program knows nothing of: with the runner's TERM
	 * (xterm...) bash turns on bracketed paste and wraps the typed input
	 * in escape codes that end up in its output (docs/configuration.md). */
	if (br->b->terminal)
		exec_default_env(&rd->p, &c->exec, "TERM", "dumb");
	if (!warmup && counted_by_perf(br, u))
		counter_timed_request(&rd->p.req);
	return 1;
}

static void ready_release(struct ready *rd)
{
	exec_release(&rd->p);
	if (rd->stderr_path)
		unlink(rd->stderr_path);
	free(rd->stderr_path);
	free(rd->stdout_path);
	free(rd->out_path);
	memset(rd, 0, sizeof(*rd));
}

/* Runs one command on one side: prepare_each, then the run, or `runs` runs
 * as one batch (plain_batch says when that may be), and (unless warming
 * up) their samples; *made says how many ran and *wall_ns is the last one's
 * latency. Returns ERR_INTERRUPTED when interrupted; every other failure is
 * recorded in the unit, which stops running. */
static int run_once(struct bench_run *br, struct unit *u, int side, bool warmup, unsigned runs,
		    unsigned *made, uint64_t *wall_ns)
{
	struct runner *r = br->r;
	struct run_result res[RUN_MAX_BATCH];
	struct err err = ERR_INIT;
	struct ready rd;
	unsigned i;
	int rc, n;

	*made = 0;
	rc = ready_run(br, u, side, warmup, &rd);
	if (rc <= 0) {
		ready_release(&rd);
		return rc;
	}
	rc = 0;
	n = r->m.run(r->m.ctx, &rd.p.req, runs, res, &err);
	if (n < 0) {
		fail_unit(br, u, side, RESULTS_ERROR_INTERNAL, err.msg, NULL, 0);
		goto done;
	}
	keep_stderr(br->sides[side], u->cmd, rd.stderr_path);
	*made = (unsigned)n;
	*wall_ns = res[n - 1].wall_ns;
	for (i = 0; i < (unsigned)n && rc == 0 && !u->failed; i++)
		rc = take_result(br, u, side, warmup, &rd.p, &res[i], rd.work, rd.out_path,
				 rd.stderr_path);
done:
	ready_release(&rd);
	return rc;
}

/* ---- duets -------------------------------------------------------------- */

/* In a duet request and result, side 0 is base and side 1 head. */
static const int duet_side[2] = { BASE, HEAD };

/* A measured duet run's start and end, counted from the benchmark's first
 * measured duet so that they stay small whole numbers (docs/reports.md). */
static void record_times(struct bench_run *br, struct unit *u, int side,
			 const struct duet_result *res, int i)
{
	const struct run_result *x = &res->side[i];

	if (!br->has_origin) {
		const struct run_result *o = &res->side[1 - i];
		br->origin_ns =
			o->start_ns && o->start_ns < x->start_ns ? o->start_ns : x->start_ns;
		br->has_origin = true;
	}
	results_add_run_times(result_side(br, u, side),
			      x->start_ns > br->origin_ns ? x->start_ns - br->origin_ns : 0,
			      x->end_ns > br->origin_ns ? x->end_ns - br->origin_ns : 0);
}

/* Side i of a duet's result: its samples and start and end (unless warming
 * up), or the unit's failure. A side its twin stopped is not a failure of
 * its own: the twin's error says what happened. Returns 0, or
 * ERR_INTERRUPTED. */
static int take_duet_side(struct bench_run *br, struct unit *u, bool warmup, struct ready *rd,
			  const struct duet_request *req, const struct duet_result *res, int i)
{
	const struct run_result *x = &res->side[i];
	int side = duet_side[i];
	struct strbuf why;

	if (x->status == RUN_EXITED && rounds_exit_ok(u->cmd, x->code)) {
		if (!warmup) {
			record(br, u, side, x, rd->work);
			if (!u->to_shadow)
				record_times(br, u, side, res, i);
		}
		return 0;
	}
	if (res->stopped_by_twin[i] && !br->r->interrupted) {
		u->failed = true;
		return 0;
	}
	if (x->status == RUN_INTERRUPTED || br->r->interrupted) {
		fail_unit(br, u, side, RESULTS_ERROR_INTERRUPTED, "interrupted", NULL, 0);
		return ERR_INTERRUPTED;
	}
	strbuf_init(&why, 0);
	duet_result_describe(req, res, i, &why);
	record_failure(br, u, side, &rd->p, x, why.buf, rd->stderr_path);
	strbuf_release(&why);
	return 0;
}

/* A compared command's pair as one duet (docs/configuration.md,
 * "Schedule"): prepare_each on both sides, then base and head at once, each
 * on its own CPU, the CPUs swapped from one pair to the next. */
static int run_duet(struct bench_run *br, struct unit *u, bool warmup)
{
	struct runner *r = br->r;
	struct duet_request req;
	struct duet_result res;
	struct err err = ERR_INIT;
	struct ready rd[2];
	unsigned k = u->duets & 1;
	int i, rc = 1, one;

	memset(rd, 0, sizeof(rd));
	for (i = 0; i < 2 && rc > 0; i++)
		rc = ready_run(br, u, duet_side[i], warmup, &rd[i]);
	if (rc <= 0)
		goto done;
	rc = 0;
	req = (struct duet_request){
		.side = { rd[0].p.req, rd[1].p.req },
		.cpu = { r->cpu[k], r->cpu[1 - k] },
	};
	u->duets++;
	if (r->m.duet(r->m.ctx, &req, &res, &err) < 0) {
		for (i = 0; i < 2; i++)
			fail_unit(br, u, duet_side[i], RESULTS_ERROR_INTERNAL, err.msg, NULL, 0);
		goto done;
	}
	for (i = 0; i < 2; i++) {
		keep_stderr(br->sides[duet_side[i]], u->cmd, rd[i].stderr_path);
		one = take_duet_side(br, u, warmup, &rd[i], &req, &res, i);
		rc = rc < 0 ? rc : one;
		if (warmup && !u->failed)
			u->warmups[duet_side[i]]++;
		if (warmup && !u->failed && br->pb->warmup.kind == WARMUP_AUTO)
			warmup_auto_feed(&u->warm[duet_side[i]], res.side[i].wall_ns);
	}
done:
	for (i = 0; i < 2; i++)
		ready_release(&rd[i]);
	return rc;
}

/* Whether a unit's turn is a duet: compared, in a duet benchmark, with
 * both sides set up; a harness command's pairs stay interleaved (its
 * output is read per run, docs/configuration.md "Schedule"). */
static bool duet_turn(const struct bench_run *br, const struct unit *u)
{
	return u->compared && br->pb->schedule == SCHEDULE_DUET && !inprocess_is(u) &&
	       !br->sides[HEAD]->failed && !br->sides[BASE]->failed;
}

/* A command's run or pair: head alone, a base/head pair in coin-flipped
 * order, or a duet. */
static int run_pair(struct bench_run *br, struct unit *u, bool warmup, bool duet)
{
	int order[2] = { HEAD, BASE };
	int i, rc;

	if (duet)
		return run_duet(br, u, warmup);
	if (u->compared && schedule_base_first(&br->order)) {
		order[0] = BASE;
		order[1] = HEAD;
	}
	for (i = 0; i < 2; i++) {
		uint64_t wall = 0;
		unsigned made;
		int side = order[i];
		if (!u->sides[side] || u->failed)
			continue;
		if (br->sides[side]->failed)
			continue;
		rc = run_once(br, u, side, warmup, 1, &made, &wall);
		if (rc < 0)
			return rc;
		if (warmup && !u->failed) {
			u->warmups[side]++;
			if (br->pb->warmup.kind == WARMUP_AUTO)
				warmup_auto_feed(&u->warm[side], wall);
		}
	}
	inprocess_after_turn(br, u, warmup);
	return 0;
}

/* A command's turn in a round: its pair under the benchmark's schedule,
 * and in a calibration of both schedules (calibrate.c) a pair under the
 * other one too, which of them first alternating from turn to turn. */
static int run_turn(struct bench_run *br, struct unit *u, bool warmup)
{
	bool shadow_first;
	int i, rc = 0;

	if (warmup || !u->shadow)
		return run_pair(br, u, warmup, duet_turn(br, u));
	shadow_first = calib_turn_shadow_first(u);
	for (i = 0; i < 2 && rc == 0 && !u->failed; i++) {
		u->to_shadow = (i == 0) == shadow_first;
		rc = run_pair(br, u, false,
			      u->to_shadow ? calib_shadow_schedule(u) == SCHEDULE_DUET
					   : duet_turn(br, u));
		u->to_shadow = false;
	}
	return rc;
}

static bool unit_active(const struct unit *u)
{
	return !u->failed && !u->done;
}

/* Runs one round over the units that `wanted` selects, in shuffled order. */
static int round_of(struct bench_run *br, bool warmup, bool (*wanted)(const struct unit *))
{
	size_t *order = xcalloc(br->n_units, sizeof(*order));
	size_t i;
	int rc = 0;

	schedule_round_order(&br->order, order, br->n_units);
	for (i = 0; i < br->n_units && rc == 0; i++) {
		struct unit *u = &br->units[order[i]];
		if (!unit_active(u) || (wanted && !wanted(u)))
			continue;
		if (br->r->interrupted) {
			rc = ERR_INTERRUPTED;
			break;
		}
		rc = run_turn(br, u, warmup);
	}
	free(order);
	return rc;
}

static bool warming_up(const struct unit *u)
{
	return (u->sides[HEAD] && !u->warm[HEAD].done) || (u->sides[BASE] && !u->warm[BASE].done);
}

int rounds_warm_up(struct bench_run *br)
{
	const struct benchmark *b = br->b;
	unsigned i, rounds;
	int rc;

	if (br->pb->warmup.kind == WARMUP_AUTO) {
		for (;;) {
			bool any = false;
			size_t k;
			for (k = 0; k < br->n_units; k++)
				any |= unit_active(&br->units[k]) && warming_up(&br->units[k]);
			if (!any)
				return 0;
			engine_progress(br->r, "%s: warming up", b->name);
			rc = round_of(br, true, warming_up);
			if (rc < 0)
				return rc;
		}
	}
	rounds = br->pb->warmup.count;
	for (i = 0; i < rounds; i++) {
		engine_progress(br->r, "%s: warmup %u of %u", b->name, i + 1, rounds);
		rc = round_of(br, true, NULL);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- stopping ----------------------------------------------------------- */

/* The stop rule of a run without comparison, before any raise for a long
 * run (which only ever asks for more). */
static void plain_rule(const struct bench_run *br, struct stop_rule *rule)
{
	rule->runs = br->pb->runs;
	rule->min_runs = br->pb->min_runs;
	rule->max_runs = br->pb->max_runs;
	rule->min_time_ns = br->pb->min_time_ns;
}

static bool plain_done(struct bench_run *br)
{
	const struct benchmark *b = br->b;
	struct stop_rule rule;
	unsigned *counts = xcalloc(br->n_units, sizeof(*counts));
	uint64_t *times = xcalloc(br->n_units, sizeof(*times));
	size_t i, n = 0;
	double mean_round_ns = 0;
	bool done;

	plain_rule(br, &rule);
	for (i = 0; i < br->n_units; i++) {
		const struct unit *u = &br->units[i];
		if (!unit_active(u))
			continue;
		counts[n] = (unsigned)u->n_runs[HEAD];
		times[n] = u->measured_ns[HEAD];
		if (counts[n])
			mean_round_ns += (double)times[n] / counts[n];
		n++;
	}
	if (b->has_size)
		stop_rule_long_run(&rule, SUITE_LONG_RUN_RUNS, SUITE_LONG_RUN_MAX_NS, b->long_run,
				   mean_round_ns);
	done = n == 0 || stop_rule_done(&rule, counts, times, n);
	free(counts);
	free(times);
	return done;
}

/* How many of the next rounds of a run without comparison may go to the
 * spawner as one batch (docs/design.md, "Measuring a run": batches), and
 * the command they run in *only. A batch needs a command that runs alone
 * (the round's order then has nothing to shuffle) and that takes no turns
 * with other sizes (runner.c: a turn is one run), nothing of the suite's
 * between its runs (no prepare_each, no work file read before each run), and
 * exit code 0 accepted, since a run that exits otherwise ends a batch. It
 * is never longer than the rounds the stop rule certainly still needs, so
 * no run starts that would not have started one round at a time, and it
 * lasts about BATCH_NS at the mean run so far. 1: one round as usual. */
#define BATCH_NS (50 * UINT64_C(1000000))

static unsigned plain_batch(struct bench_run *br, struct unit **only)
{
	const struct benchmark *b = br->b;
	struct stop_rule rule;
	struct unit *u = NULL;
	uint64_t mean_ns;
	unsigned k;
	size_t i;

	if (br->compare || br->in_turn || b->prepare_each_count ||
	    b->metrics.work.kind == WORK_FILE_SIZE || br->sides[HEAD]->failed)
		return 1;
	for (i = 0; i < br->n_units; i++) {
		if (!unit_active(&br->units[i]))
			continue;
		if (u)
			return 1;
		u = &br->units[i];
	}
	/* a harness's output is read after each run */
	if (!u || !u->sides[HEAD] || !rounds_exit_ok(u->cmd, 0) || !u->n_runs[HEAD] ||
	    inprocess_is(u))
		return 1;
	plain_rule(br, &rule);
	k = stop_rule_certain_runs(&rule, (unsigned)u->n_runs[HEAD]);
	mean_ns = u->measured_ns[HEAD] / u->n_runs[HEAD];
	if (mean_ns && BATCH_NS / mean_ns < k)
		k = (unsigned)(BATCH_NS / mean_ns);
	if (k > RUN_MAX_BATCH)
		k = RUN_MAX_BATCH;
	*only = u;
	return k ? k : 1;
}

void rounds_point_inputs(struct bench_run *br, struct unit *u)
{
	struct results_command *rc = &br->rb->commands[u->index];
	int m;

	for (m = 0; m < METRIC__COUNT; m++) {
		struct judge_metric_input *in = &u->in[m];
		if (!u->judged[m])
			continue;
		in->base = rc->base.metrics[m].samples;
		in->head = rc->head.metrics[m].samples;
		if (u->bench && m == METRIC_THROUGHPUT) { /* higher is better: swapped */
			in->base = rc->head.metrics[m].samples;
			in->head = rc->base.metrics[m].samples;
		}
		in->n = rc->head.metrics[m].n_samples < rc->base.metrics[m].n_samples
				? rc->head.metrics[m].n_samples
				: rc->base.metrics[m].n_samples;
		if (m == METRIC_PEAK_RSS) {
			in->base_floor = u->floors[BASE];
			in->head_floor = u->floors[HEAD];
		}
	}
}

/* Whether a compared unit still needs pairs: while a gated metric is open;
 * a unit whose metrics are all ungated (`gate: false`) while any is open,
 * so that they are decided at the looks they reach, not after one round. */
static bool unit_open(const struct unit *u)
{
	bool any_gated = false, gated_open = false, open = false;
	int m;

	for (m = 0; m < METRIC__COUNT; m++) {
		if (!u->judged[m])
			continue;
		any_gated |= u->cmp[m].gate;
		gated_open |= u->cmp[m].gate && !u->cmp[m].final;
		open |= !u->cmp[m].final;
	}
	return any_gated ? gated_open : open;
}

/* At a look, the judge's look at each judged metric of u; u is done when
 * none of its gated metrics is open. */
static void look_unit(struct bench_run *br, struct unit *u, bool look)
{
	int m;

	rounds_point_inputs(br, u);
	if (u->bisect) { /* a bisect's: its own rule (bisect.c) */
		u->done = bisect_look(br, u, look);
		return;
	}
	for (m = 0; m < METRIC__COUNT && look; m++)
		if (u->judged[m])
			judge_look(br->looks, &u->in[m], br->next_look, &u->cmp[m]);
	u->done = !unit_open(u);
}

/* The same for each compared case of a harness unit (inprocess.c), which
 * is done when every case is decided or failed; never before its cases
 * exist. */
static void look_cases(struct bench_run *br, struct unit *u, bool look)
{
	bool open = !u->expanded;
	size_t k;

	for (k = 0; k < u->n_cases; k++) {
		struct unit *c = &u->cases[k];
		if (!c->compared || !unit_active(c))
			continue;
		look_unit(br, c, look);
		open |= !c->done;
	}
	u->done = !open;
}

/* The look line of the look about to be taken at `pairs` pairs. */
static void log_look(const struct bench_run *br, unsigned pairs)
{
	const struct runner *r = br->r;
	struct strbuf sb;

	if (!r->o.look_line)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s: look %u of %u at %u pairs, cap %u pairs", br->b->name,
		    (unsigned)br->next_look + 1, br->looks->n_looks, pairs,
		    br->looks->looks[br->looks->n_looks - 1]);
	budget_describe_limit(br, &sb);
	r->o.look_line(r->o.progress_ctx, sb.buf);
	strbuf_release(&sb);
}

/* After a round in a comparison: at a planned look, asks the judge about
 * every open metric of the units that still run. A unit that stopped (done,
 * failed, its side's setup failed) gets no more looks: its open metrics are
 * settled with the looks they reached by finish_comparisons(). True when no
 * unit is open, or no looks remain. */
static bool compare_done(struct bench_run *br, unsigned pairs)
{
	bool all_final = true;
	bool look = br->next_look < br->looks->n_looks && pairs == br->looks->looks[br->next_look];
	uint64_t t = clock_monotonic_ns();
	size_t i;

	if (look)
		log_look(br, pairs);
	for (i = 0; i < br->n_units; i++) {
		struct unit *u = &br->units[i];
		if (!u->compared || !unit_active(u))
			continue;
		if (inprocess_is(u))
			look_cases(br, u, look);
		else
			look_unit(br, u, look);
		all_final &= u->done;
	}
	if (look)
		br->next_look++;
	br->judging_ns += clock_monotonic_ns() - t;
	if (br->next_look >= br->looks->n_looks || all_final)
		return true;
	return budget_rounds_over(br);
}

/* "work: round 12", and in a comparison its caps: "work: round 12, cap 252
 * pairs or 150 s". */
static void progress_round(struct bench_run *br, unsigned round)
{
	struct strbuf sb;

	if (!br->r->o.progress)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s: round %u", br->b->name, round);
	if (br->compare) {
		strbuf_addf(&sb, ", cap %u pairs", br->looks->looks[br->looks->n_looks - 1]);
		budget_describe_limit(br, &sb);
	}
	engine_progress(br->r, "%s", sb.buf);
	strbuf_release(&sb);
}

static bool any_plain_units(const struct bench_run *br)
{
	size_t i;

	for (i = 0; i < br->n_units; i++)
		if (!br->units[i].compared && unit_active(&br->units[i]))
			return true;
	return false;
}

int rounds_step(struct bench_run *br)
{
	bool cmp_done, plain_stop;
	struct unit *only = NULL;
	unsigned batch, made = 1, round;
	uint64_t wall;
	int rc;

	if (br->r->interrupted)
		return ERR_INTERRUPTED;
	batch = plain_batch(br, &only);
	if (batch > 1)
		rc = run_once(br, only, HEAD, false, batch, &made, &wall);
	else
		rc = round_of(br, false, NULL);
	if (rc < 0)
		return rc;
	round = br->rb->rounds + (made ? made : 1);
	br->rb->rounds = round;
	progress_round(br, round);
	cmp_done = !br->compare || compare_done(br, round);
	/* a time budget stops the commands a comparison does not pair too */
	if (br->ran_out)
		return 1;
	plain_stop = !any_plain_units(br) || plain_done(br);
	if (br->compare && cmp_done && (!any_plain_units(br) || plain_stop))
		return 1;
	if (!br->compare && plain_stop)
		return 1;
	/* In a comparison, head-only commands follow the pairs' rounds but
	 * never beyond the largest look. */
	if (br->compare && round >= br->looks->looks[br->looks->n_looks - 1])
		return 1;
	return 0;
}
