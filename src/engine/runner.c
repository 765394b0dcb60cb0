/*
 * The runner: see runner.h. One benchmark at a time:
 *
 *   sides     head (and base when comparing): private directory, ${workdir},
 *             stdin, setup hooks
 *   warmup    rounds of every unit (count) or until each settles (auto)
 *   rounds    seeded shuffled order; a compared command's turn is a pair in
 *             coin-flipped order; after each round the stop rule (runs) or
 *             the judge's looks (comparisons) say whether to go on
 *   finish    cleanup hooks (always), statistics, budgets, comparisons,
 *             result states; private directories removed
 */
#include "engine/runner.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/rng.h"
#include "judge/judge.h"
#include "measure/measure.h"
#include "measure/sysinfo.h"
#include "engine/exec.h"
#include "engine/schedule.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/banned.h"

#define HEAD 0
#define BASE 1

struct runner {
	struct runner_options o;
	struct hidden_env hidden;
	struct measurer *m;
	volatile sig_atomic_t interrupted;
	uint64_t deadline_ns; /* --max-time, on CLOCK_MONOTONIC; 0: none */
};

/* One revision's side of a suite or benchmark. */
struct side {
	const char *root;      /* the suite's directory in this tree */
	const char *head_root; /* the same in the working tree */
	char *build_dir;       /* holds ${artifact}; NULL without build */
	char *artifact;
	char *priv; /* private directory of the benchmark: work/, stdin, stderr files */
	char *workdir;
	char *stdin_path; /* what stdin reopens per run; NULL: /dev/null */
	bool failed;	  /* setup failed: nothing of this side runs */
};

/* One command of a benchmark, on one or both sides. */
struct unit {
	size_t index; /* into benchmark->commands and the results benchmark */
	const struct command *cmd;
	bool sides[2]; /* which sides run */
	bool compared; /* base and head are paired and judged */
	bool failed;
	bool done; /* compared: every gated metric final */
	struct warmup_auto warm[2];
	uint64_t warmups[2];
	uint64_t measured_ns[2];
	double *floors[2]; /* per run, peak RSS floor */
	double *work[2];   /* per run, measured work */
	size_t n_runs[2], alloc_floors[2], alloc_work[2];
	struct judge_metric_input in[METRIC__COUNT];
	struct comparison cmp[METRIC__COUNT];
	bool judged[METRIC__COUNT];
};

struct bench_run {
	struct runner *r;
	const struct suite *suite;
	const struct benchmark *b;
	struct results_benchmark *rb;
	struct side *sides[2];
	bool compare;
	struct unit *units;
	size_t n_units;
	struct rng order;
	struct judge_plan plan;
	unsigned next_look;
	bool time_ran_out;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

int runner_new(const struct runner_options *o, struct runner **out, struct err *err)
{
	struct measurer_options mo = MEASURER_OPTIONS_INIT;
	struct runner *r = xcalloc(1, sizeof(*r));
	int rc;

	r->o = *o;
	r->hidden.names = o->hidden_env;
	r->hidden.count = o->hidden_env_count;
	mo.spawner_path = o->spawner_path;
	mo.use_spawner = o->use_spawner && o->spawner_path;
	rc = measurer_new(&mo, &r->m, err);
	if (rc < 0) {
		free(r);
		return rc;
	}
	if (o->max_time_ns)
		r->deadline_ns = now_ns() + o->max_time_ns;
	*out = r;
	return 0;
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	measurer_free(r->m);
	free(r);
}

const char *runner_fallback_reason(const struct runner *r)
{
	return measurer_fallback_reason(r->m);
}

void runner_interrupt(struct runner *r)
{
	r->interrupted = 1;
	measurer_cancel(r->m);
}

bool runner_interrupted(const struct runner *r)
{
	return r->interrupted != 0;
}

static void progress(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void progress(struct runner *r, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;

	if (!r->o.progress)
		return;
	strbuf_init(&sb, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	r->o.progress(r->o.progress_ctx, sb.buf);
	strbuf_release(&sb);
}

static void side_vars(const struct side *s, struct vars *v)
{
	memset(v, 0, sizeof(*v));
	v->artifact = s->artifact;
	v->root = s->root;
	v->head_root = s->head_root;
	v->workdir = s->workdir;
	v->exe = "";
}

/* Runs a hook, build step or version probe to completion. Its stdout goes to
 * stdout_path (NULL: discarded); a failure is described in *why (with the
 * stderr tail) and returns ERR_EXEC. */
static int run_step(struct runner *r, const struct exec *x, const struct side *s,
		    const char *stdout_path, struct strbuf *why, struct strbuf *tail)
{
	struct prepared p;
	struct run_result res;
	struct err err = ERR_INIT;
	struct vars v;
	char *stderr_path = xasprintf("%s/step-stderr", s->priv ? s->priv : s->build_dir);
	int rc;

	side_vars(s, &v);
	rc = exec_prepare(x, &v, s->root, &r->hidden, &p, &err);
	if (rc < 0) {
		strbuf_adds(why, err.msg);
		goto done;
	}
	p.req.stdout_path = stdout_path;
	p.req.stderr_path = stderr_path;
	rc = measurer_run(r->m, &p.req, &res, &err);
	if (rc < 0) {
		strbuf_adds(why, err.msg);
		goto done;
	}
	if (res.status == RUN_EXITED && res.code == 0)
		goto done;
	run_result_describe(&p.req, &res, why);
	exec_stderr_tail(stderr_path, RESULTS_MAX_STDERR_BYTES, &p, tail);
	rc = res.status == RUN_INTERRUPTED ? ERR_INTERRUPTED : ERR_EXEC;
done:
	exec_release(&p);
	unlink(stderr_path);
	free(stderr_path);
	return rc;
}

/* Runs a list of hooks; the first failure is recorded in e with `kind`. */
static int run_hooks(struct runner *r, const struct exec *hooks, size_t n, const struct side *s,
		     const char *what, enum results_error_kind kind, struct results_error *e)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct strbuf why, tail;
		int rc;

		strbuf_init(&why, 0);
		strbuf_init(&tail, 0);
		rc = run_step(r, &hooks[i], s, NULL, &why, &tail);
		if (rc < 0 && !e->present) {
			char *msg = xasprintf("%s[%zu] %s", what, i, why.buf);
			results_set_error(e,
					  rc == ERR_INTERRUPTED ? RESULTS_ERROR_INTERRUPTED : kind,
					  msg, tail.buf, tail.len);
			free(msg);
		}
		strbuf_release(&why);
		strbuf_release(&tail);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- sides ------------------------------------------------------------ */

static void side_release(struct side *s)
{
	struct err err = ERR_INIT;

	if (!s)
		return;
	if (s->priv)
		fsio_remove_tree(s->priv, &err);
	free(s->priv);
	free(s->workdir);
	free(s->stdin_path);
	s->priv = s->workdir = s->stdin_path = NULL;
	s->failed = false;
}

static void side_release_build(struct side *s)
{
	struct err err = ERR_INIT;

	if (s->build_dir)
		fsio_remove_tree(s->build_dir, &err);
	free(s->build_dir);
	free(s->artifact);
	s->build_dir = s->artifact = NULL;
}

static char *private_prefix(const char *what)
{
	return xasprintf("himorime-%s-%ld-", what, (long)getpid());
}

/* A stdin file must be a regular file, checked before any run: a FIFO or a
 * device would block or never end. */
static int check_stdin_file(const char *path, struct err *err)
{
	int fd = fsio_open_regular(path, err);

	if (fd < 0) {
		err->code = ERR_INVALID;
		return err_wrap(err, "stdin");
	}
	close(fd);
	return 0;
}

static int side_open(struct bench_run *br, struct side *s, struct err *err)
{
	const struct benchmark *b = br->b;
	char *prefix = private_prefix("run");
	struct vars v;
	int rc;

	rc = fsio_mkdtemp(prefix, &s->priv, err);
	free(prefix);
	if (rc < 0)
		return rc;
	s->workdir = xasprintf("%s/work", s->priv);
	if (mkdir(s->workdir, 0700) < 0)
		return err_set(err, ERR_EXEC, "cannot create \"%s\": %s", s->workdir,
			       strerror(errno));
	side_vars(s, &v);
	switch (b->stdin_spec.kind) {
	case STDIN_NONE:
		return 0;
	case STDIN_FILE: {
		struct strbuf sb;
		strbuf_init(&sb, 0);
		rc = vars_expand(b->stdin_spec.value, &v, false, &sb, err);
		if (rc == 0) {
			s->stdin_path = exec_resolve_path(s->root, sb.buf);
			rc = check_stdin_file(s->stdin_path, err);
		}
		strbuf_release(&sb);
		return rc;
	}
	case STDIN_CONTENT: {
		struct strbuf sb;
		strbuf_init(&sb, 0);
		rc = vars_expand(b->stdin_spec.value, &v, false, &sb, err);
		s->stdin_path = xasprintf("%s/stdin", s->priv);
		if (rc == 0)
			rc = fsio_write_atomic(s->stdin_path, sb.buf, sb.len, err);
		strbuf_release(&sb);
		return rc;
	}
	}
	return 0;
}

/* ---- one run ------------------------------------------------------------ */

static void push(double **v, size_t *alloc, size_t n, double x)
{
	*v = xgrow(*v, alloc, n + 1, sizeof(**v));
	(*v)[n] = x;
}

static const char *side_name(int side)
{
	return side == HEAD ? "head" : "base";
}

static bool exit_ok(const struct command *c, int code)
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
	u->n_runs[side]++;
	u->measured_ns[side] += res->wall_ns;
	rs->count++;
}

/* Runs one command once on one side: prepare_each, the run, and (unless
 * warming up) its samples. Returns ERR_INTERRUPTED when interrupted; every
 * other failure is recorded in the unit, which stops running. */
static int run_once(struct bench_run *br, struct unit *u, int side, bool warmup, uint64_t *wall_ns)
{
	struct runner *r = br->r;
	struct side *s = br->sides[side];
	const struct command *c = u->cmd;
	struct results_side *rs = result_side(br, u, side);
	struct prepared p;
	struct run_result res;
	struct err err = ERR_INIT;
	struct strbuf why, tail;
	struct vars v;
	char *stdout_path = NULL, *stderr_path;
	double work = 0;
	int rc = 0;

	if (run_hooks(r, br->b->prepare_each, br->b->prepare_each_count, s, "prepare_each",
		      RESULTS_ERROR_PREPARE_EACH_FAILED, &rs->error) < 0) {
		u->failed = true;
		return r->interrupted ? ERR_INTERRUPTED : 0;
	}
	if (br->b->metrics.work.kind != WORK_NONE && read_work(br, s, &work, &err) < 0) {
		struct results_metric *m = &rs->metrics[METRIC_THROUGHPUT];
		m->status = STATUS_FAILED;
		results_set_str(&m->reason, err.msg);
		fail_unit(br, u, side, RESULTS_ERROR_METRIC_COLLECTION_FAILED, err.msg, NULL, 0);
		rs->error.has_metric = true;
		rs->error.metric = METRIC_THROUGHPUT;
		return 0;
	}
	side_vars(s, &v);
	strbuf_init(&why, 0);
	strbuf_init(&tail, 0);
	stderr_path = xasprintf("%s/stderr-%zu", s->priv, u->index);
	if (exec_prepare(&c->exec, &v, s->root, &r->hidden, &p, &err) < 0) {
		fail_unit(br, u, side, RESULTS_ERROR_START_FAILED, err.msg, NULL, 0);
		goto done;
	}
	if (c->out.kind == OUTPUT_FILE)
		stdout_path = exec_resolve_path(s->workdir, c->out.path);
	p.req.stdin_path = s->stdin_path;
	p.req.stdout_path = stdout_path;
	p.req.stderr_path = stderr_path;
	p.req.terminal = br->b->terminal;
	if (measurer_run(r->m, &p.req, &res, &err) < 0) {
		fail_unit(br, u, side, RESULTS_ERROR_INTERNAL, err.msg, NULL, 0);
		goto done;
	}
	if (c->err.kind == OUTPUT_FILE) {
		char *keep = exec_resolve_path(s->workdir, c->err.path);
		struct strbuf all;
		strbuf_init(&all, 0);
		exec_stderr_tail(stderr_path, (size_t)64 << 20, NULL, &all);
		fsio_write_atomic(keep, all.buf, all.len, &err);
		strbuf_release(&all);
		free(keep);
	}
	if (res.status == RUN_EXITED && exit_ok(c, res.code)) {
		*wall_ns = res.wall_ns;
		if (!warmup)
			record(br, u, side, &res, work);
		goto done;
	}
	if (res.status == RUN_INTERRUPTED || r->interrupted) {
		rc = ERR_INTERRUPTED;
		fail_unit(br, u, side, RESULTS_ERROR_INTERRUPTED, "interrupted", NULL, 0);
		goto done;
	}
	run_result_describe(&p.req, &res, &why);
	exec_stderr_tail(stderr_path, RESULTS_MAX_STDERR_BYTES, &p, &tail);
	fail_unit(br, u, side, error_kind(&res), why.buf, tail.buf, tail.len);
	if (res.status == RUN_EXITED) {
		rs->error.has_exit_code = true;
		rs->error.exit_code = res.code;
	}
done:
	exec_release(&p);
	unlink(stderr_path);
	free(stderr_path);
	free(stdout_path);
	strbuf_release(&why);
	strbuf_release(&tail);
	return rc;
}

/* A command's turn in a round: head alone, or a base/head pair in
 * coin-flipped order. */
static int run_turn(struct bench_run *br, struct unit *u, bool warmup)
{
	int order[2] = { HEAD, BASE };
	int i, rc;

	if (u->compared && schedule_base_first(&br->order)) {
		order[0] = BASE;
		order[1] = HEAD;
	}
	for (i = 0; i < 2; i++) {
		uint64_t wall = 0;
		int side = order[i];
		if (!u->sides[side] || u->failed)
			continue;
		if (br->sides[side]->failed)
			continue;
		rc = run_once(br, u, side, warmup, &wall);
		if (rc < 0)
			return rc;
		if (warmup && !u->failed) {
			u->warmups[side]++;
			if (br->b->warmup.kind == WARMUP_AUTO && !br->r->o.has_warmup)
				warmup_auto_feed(&u->warm[side], wall);
		}
	}
	return 0;
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

static int warm_up(struct bench_run *br)
{
	const struct benchmark *b = br->b;
	unsigned i, rounds;
	int rc;

	if (b->warmup.kind == WARMUP_AUTO && !br->r->o.has_warmup) {
		for (;;) {
			bool any = false;
			size_t k;
			for (k = 0; k < br->n_units; k++)
				any |= unit_active(&br->units[k]) && warming_up(&br->units[k]);
			if (!any)
				return 0;
			progress(br->r, "%s: warming up", b->name);
			rc = round_of(br, true, warming_up);
			if (rc < 0)
				return rc;
		}
	}
	rounds = br->r->o.has_warmup ? br->r->o.warmup : b->warmup.count;
	for (i = 0; i < rounds; i++) {
		progress(br->r, "%s: warmup %u of %u", b->name, i + 1, rounds);
		rc = round_of(br, true, NULL);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- stopping ----------------------------------------------------------- */

static bool plain_done(struct bench_run *br)
{
	const struct benchmark *b = br->b;
	struct stop_rule rule;
	unsigned *counts = xcalloc(br->n_units, sizeof(*counts));
	uint64_t *times = xcalloc(br->n_units, sizeof(*times));
	size_t i, n = 0;
	bool done;

	rule.runs = br->r->o.has_runs ? br->r->o.runs : b->runs;
	rule.min_runs = b->min_runs;
	rule.max_runs = b->max_runs;
	rule.min_time_ns = b->min_time_ns;
	for (i = 0; i < br->n_units; i++) {
		const struct unit *u = &br->units[i];
		if (!unit_active(u))
			continue;
		counts[n] = (unsigned)u->n_runs[HEAD];
		times[n] = u->measured_ns[HEAD];
		n++;
	}
	done = n == 0 || stop_rule_done(&rule, counts, times, n);
	free(counts);
	free(times);
	return done;
}

static void point_inputs(struct bench_run *br, struct unit *u)
{
	struct results_command *rc = &br->rb->commands[u->index];
	int m;

	for (m = 0; m < METRIC__COUNT; m++) {
		struct judge_metric_input *in = &u->in[m];
		if (!u->judged[m])
			continue;
		in->base = rc->base.metrics[m].samples;
		in->head = rc->head.metrics[m].samples;
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

/* The look line of the look about to be taken at `pairs` pairs. */
static void log_look(const struct bench_run *br, unsigned pairs)
{
	const struct runner *r = br->r;
	struct strbuf sb;

	if (!r->o.look_line)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s: look %u of %u at %u pairs, cap %u pairs", br->b->name,
		    (unsigned)br->next_look + 1, br->plan.n_looks, pairs,
		    br->plan.looks[br->plan.n_looks - 1]);
	if (r->o.max_time_ns)
		strbuf_addf(&sb, " or --max-time %.0f s", (double)r->o.max_time_ns / 1e9);
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
	bool look = br->next_look < br->plan.n_looks && pairs == br->plan.looks[br->next_look];
	size_t i;
	int m;

	if (look)
		log_look(br, pairs);
	for (i = 0; i < br->n_units; i++) {
		struct unit *u = &br->units[i];
		if (!u->compared || !unit_active(u))
			continue;
		point_inputs(br, u);
		for (m = 0; m < METRIC__COUNT && look; m++)
			if (u->judged[m])
				judge_look(&br->plan, &u->in[m], br->next_look, &u->cmp[m]);
		u->done = !unit_open(u);
		all_final &= u->done;
	}
	if (look)
		br->next_look++;
	if (br->next_look >= br->plan.n_looks)
		return true;
	if (br->r->deadline_ns && now_ns() >= br->r->deadline_ns) {
		br->time_ran_out = true;
		return true;
	}
	return all_final;
}

static bool any_plain_units(const struct bench_run *br)
{
	size_t i;

	for (i = 0; i < br->n_units; i++)
		if (!br->units[i].compared && unit_active(&br->units[i]))
			return true;
	return false;
}

static int measure_rounds(struct bench_run *br)
{
	unsigned round = 0;
	int rc;

	for (;;) {
		bool cmp_done, plain_stop;
		if (br->r->interrupted)
			return ERR_INTERRUPTED;
		rc = round_of(br, false, NULL);
		if (rc < 0)
			return rc;
		round++;
		br->rb->rounds = round;
		progress(br->r, "%s: round %u", br->b->name, round);
		cmp_done = !br->compare || compare_done(br, round);
		plain_stop = !any_plain_units(br) || plain_done(br);
		if (br->compare && cmp_done && (!any_plain_units(br) || plain_stop))
			return 0;
		if (!br->compare && plain_stop)
			return 0;
		/* In a comparison, head-only commands follow the pairs' rounds but
		 * never beyond the largest look. */
		if (br->compare && round >= br->plan.looks[br->plan.n_looks - 1])
			return 0;
	}
}

/* ---- finishing ------------------------------------------------------------ */

static void budget_percentiles(const struct command *c, enum metric m, double *p, size_t *n)
{
	size_t i;

	*n = 0;
	for (i = 0; i < c->budget_count && *n < 16; i++)
		if (c->budgets[i].metric == m && c->budgets[i].aggregation.kind == AGG_PERCENTILE)
			p[(*n)++] = c->budgets[i].aggregation.percentile;
}

/* Drift over the runs (docs/design.md, "Measuring a run"): see struct results_trend. */
static void find_trend(struct results_metric *rm)
{
	struct stats_trend t;
	struct err err = ERR_INIT;

	if (rm->n_samples < RESULTS_TREND_MIN_RUNS ||
	    stats_theil_sen(rm->samples, rm->n_samples, RESULTS_TREND_CONFIDENCE, &t, &err) < 0 ||
	    !t.has_interval)
		return;
	rm->trend.present = true;
	rm->trend.slope = t.slope;
	rm->trend.slope_low = t.slope_low;
	rm->trend.slope_high = t.slope_high;
	rm->trend.min_detectable_slope = t.min_detectable_slope;
	rm->trend.growing = t.growing && t.slope * (double)(rm->n_samples - 1) >=
						 RESULTS_TREND_MIN_GROWTH * rm->stats.median;
}

static void finish_metric(struct results_side *rs, const struct command *c, enum metric m,
			  const struct unit *u, int side)
{
	struct results_metric *rm = &rs->metrics[m];
	struct stats_summary st;
	double extra[16];
	size_t n_extra, i;

	if (rm->status != STATUS_MEASURED || rm->n_samples == 0)
		return;
	budget_percentiles(c, m, extra, &n_extra);
	stats_summarize(rm->samples, rm->n_samples, extra, n_extra, &st);
	results_set_stats(rs, m, &st);
	stats_summary_release(&st);
	if (m == METRIC_PEAK_RSS && u->floors[side]) {
		rm->has_floor = true;
		for (i = 0; i < rm->n_samples; i++) {
			if (u->floors[side][i] > (double)rm->floor_bytes)
				rm->floor_bytes = (uint64_t)u->floors[side][i];
			if (rm->samples[i] <= u->floors[side][i])
				rm->samples_at_floor++;
		}
	}
	if (m == METRIC_LATENCY || (m == METRIC_PEAK_RSS && rm->samples_at_floor == 0))
		find_trend(rm);
	if (m == METRIC_THROUGHPUT && u->work[side]) {
		rm->work.measured_min = rm->work.measured_max = u->work[side][0];
		for (i = 1; i < u->n_runs[side]; i++) {
			if (u->work[side][i] < rm->work.measured_min)
				rm->work.measured_min = u->work[side][i];
			if (u->work[side][i] > rm->work.measured_max)
				rm->work.measured_max = u->work[side][i];
		}
	}
}

static void describe_metrics(const struct benchmark *b, struct results_side *rs)
{
	int m;

	for (m = 0; m < METRIC__COUNT; m++) {
		struct results_metric *rm = &rs->metrics[m];
		bool on = benchmark_measures(b, (enum metric)m);
		switch ((enum metric)m) {
		case METRIC_LATENCY:
			rm->source = RESULTS_SOURCE_WALL_CLOCK;
			rm->process_aggregation = RESULTS_AGG_NONE;
			break;
		case METRIC_THROUGHPUT:
			rm->source = RESULTS_SOURCE_DECLARED_WORK;
			rm->process_aggregation = RESULTS_AGG_NONE;
			if (on) {
				const struct work *w = &b->metrics.work;
				rm->work.present = true;
				rm->work.has_value = w->kind == WORK_VALUE;
				rm->work.value = w->value;
				results_set_str(&rm->work.file_size, w->file);
				results_set_str(&rm->work.unit, w->unit);
			}
			break;
		case METRIC_CPU_USER:
		case METRIC_CPU_SYSTEM:
		case METRIC_CPU_TOTAL:
		case METRIC_CPU_UTILIZATION:
			rm->source = RESULTS_SOURCE_RUSAGE;
			rm->process_aggregation = RESULTS_AGG_SUM_OF_WAITED_DESCENDANTS;
			break;
		case METRIC_PEAK_RSS:
			rm->source = RESULTS_SOURCE_RUSAGE;
			rm->process_aggregation = RESULTS_AGG_MAX_OF_SINGLE_PROCESS_PEAKS;
			break;
		case METRIC__COUNT:
			break;
		}
		if (!on)
			rm->status = STATUS_NOT_REQUESTED;
	}
}

static void finish_budgets(struct results_command *rc, const struct command *c,
			   const struct unit *u)
{
	size_t i;

	for (i = 0; i < c->budget_count; i++) {
		const struct budget *b = &c->budgets[i];
		const struct results_metric *rm = &rc->head.metrics[b->metric];
		struct budget_rule rule;
		struct budget_result res;

		rule.metric = b->metric;
		rule.aggregation = b->aggregation;
		rule.op = b->op;
		rule.limit = b->limit;
		judge_budget(rm->samples, b->metric == METRIC_PEAK_RSS ? u->floors[HEAD] : NULL,
			     rm->status == STATUS_MEASURED ? rm->n_samples : 0, &rule, &res);
		results_add_budget(rc, &res, b->text);
	}
}

static void finish_comparisons(struct bench_run *br, struct unit *u, struct results_command *rc)
{
	int m;

	if (!u->compared || u->failed)
		return;
	point_inputs(br, u);
	for (m = 0; m < METRIC__COUNT; m++) {
		if (!u->judged[m])
			continue;
		if (!u->cmp[m].final)
			judge_finish(&u->in[m],
				     br->time_ran_out ? JUDGE_STOP_TIME_BUDGET : JUDGE_STOP_DECIDED,
				     &u->cmp[m]);
		results_add_comparison(rc, &u->cmp[m]);
	}
	if (benchmark_measures(br->b, METRIC_THROUGHPUT) && u->judged[METRIC_LATENCY]) {
		const struct results_metric *h = &rc->head.metrics[METRIC_THROUGHPUT];
		const struct results_metric *b = &rc->base.metrics[METRIC_THROUGHPUT];
		struct judge_work w;
		struct comparison t;
		w.head_min = h->work.measured_min;
		w.head_max = h->work.measured_max;
		w.base_min = b->work.measured_min;
		w.base_max = b->work.measured_max;
		w.unit = br->b->metrics.work.unit;
		judge_derive_throughput(&u->cmp[METRIC_LATENCY], &w, &t);
		results_add_comparison(rc, &t);
	}
}

static enum result_state command_result(const struct results_command *rc)
{
	struct budget_result *b = xcalloc(rc->n_budgets + 1, sizeof(*b));
	enum result_state state;
	size_t i;

	for (i = 0; i < rc->n_budgets; i++)
		b[i] = rc->budgets[i].result;
	state = judge_command_result(rc->comparisons, rc->n_comparisons, b, rc->n_budgets);
	free(b);
	return state;
}

static bool side_metric_failed(const struct results_side *s)
{
	return s->error.present && (s->error.kind == RESULTS_ERROR_METRIC_COLLECTION_FAILED ||
				    s->error.kind == RESULTS_ERROR_METRIC_UNSUPPORTED);
}

/* In a comparison the two sides run in interleaved pairs, so drift of the
 * machine moves both alike: a side's growth counts only when its interval
 * lies above the other side's and the excess reaches
 * RESULTS_TREND_MIN_GROWTH of its median (docs/reports.md). */
static bool grows_beyond(const struct results_metric *a, const struct results_metric *b)
{
	const struct results_trend *t = &a->trend, *o = &b->trend;

	if (!t->growing || !o->present)
		return t->growing;
	return t->slope_low > o->slope_high && (t->slope - o->slope) * (double)(a->n_samples - 1) >=
						       RESULTS_TREND_MIN_GROWTH * a->stats.median;
}

static void pair_trends(struct results_command *rc)
{
	static const enum metric watched[] = { METRIC_LATENCY, METRIC_PEAK_RSS };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(watched); i++) {
		struct results_metric *h = &rc->head.metrics[watched[i]];
		struct results_metric *b = &rc->base.metrics[watched[i]];
		bool head_grows = grows_beyond(h, b), base_grows = grows_beyond(b, h);
		h->trend.growing = head_grows;
		b->trend.growing = base_grows;
	}
}

static void finish_unit(struct bench_run *br, struct unit *u)
{
	struct results_command *rc = &br->rb->commands[u->index];
	int side, m;

	for (side = HEAD; side <= BASE; side++) {
		struct results_side *rs = side == HEAD ? &rc->head : &rc->base;
		if (!u->sides[side])
			continue;
		rs->warmups = u->warmups[side];
		rs->plan = u->warm[side].plan == WARMUP_PLAN_LARGE ? RESULTS_PLAN_LARGE
								   : RESULTS_PLAN_STANDARD;
		for (m = 0; m < METRIC__COUNT; m++)
			finish_metric(rs, u->cmd, (enum metric)m, u, side);
	}
	if (u->sides[HEAD] && u->sides[BASE])
		pair_trends(rc);
	finish_budgets(rc, u->cmd, u);
	finish_comparisons(br, u, rc);
	if (side_metric_failed(&rc->head) || side_metric_failed(&rc->base))
		rc->result = RESULT_METRIC_ERROR;
	else if (rc->head.error.present || rc->base.error.present || u->failed)
		rc->result = RESULT_ERROR;
	else
		rc->result = command_result(rc);
}

static void finish_relative(struct bench_run *br)
{
	struct results_benchmark *rb = br->rb;
	double fastest = 0, base = 0;
	size_t i;

	for (i = 0; i < rb->n_commands; i++) {
		const struct results_metric *m = &rb->commands[i].head.metrics[METRIC_LATENCY];
		if (!m->has_stats || m->stats.median <= 0)
			continue;
		if (fastest == 0 || m->stats.median < fastest)
			fastest = m->stats.median;
		if (br->b->baseline && !strcmp(rb->commands[i].name, br->b->baseline))
			base = m->stats.median;
	}
	for (i = 0; i < rb->n_commands; i++) {
		struct results_command *c = &rb->commands[i];
		const struct results_metric *m = &c->head.metrics[METRIC_LATENCY];
		if (!m->has_stats || m->stats.median <= 0)
			continue;
		if (fastest > 0) {
			c->has_vs_fastest = true;
			c->vs_fastest = m->stats.median / fastest;
		}
		if (base > 0) {
			c->has_vs_baseline = true;
			c->vs_baseline = m->stats.median / base;
		}
	}
}

static enum result_state worst(enum result_state a, enum result_state b)
{
	return a > b ? a : b;
}

/* ---- a benchmark ---------------------------------------------------------- */

static bool compared_command(const struct benchmark *b, const char *name)
{
	size_t i;

	if (b->regression.command_count == 0)
		return true;
	for (i = 0; i < b->regression.command_count; i++)
		if (!strcmp(b->regression.commands[i], name))
			return true;
	return false;
}

static void setup_judging(struct bench_run *br, struct unit *u)
{
	const struct benchmark *b = br->b;
	static const enum metric compared[] = { METRIC_LATENCY, METRIC_CPU_TOTAL, METRIC_PEAK_RSS };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(compared); k++) {
		enum metric m = compared[k];
		const struct tolerance *t = regression_tolerance(&b->regression, m);
		struct judge_metric_input *in = &u->in[m];
		if (!benchmark_measures(b, m) || !t)
			continue;
		judge_input_init(in, m);
		in->tol.max_percent = t->max_percent;
		in->tol.has_min_difference = t->has_min_difference;
		in->tol.min_difference = t->min_difference;
		in->tol.gate = t->gate;
		in->tol.statistic = t->statistic;
		in->max_cv = b->regression.max_cv;
		in->seed = br->r->o.seed;
		in->benchmark = b->name;
		in->command = u->cmd->name;
		u->judged[m] = true;
		point_inputs(br, u);
		judge_begin(&br->plan, in, &u->cmp[m]);
	}
}

int runner_plan_looks(const struct runner_options *o, const struct benchmark *b,
		      struct judge_plan *plan, struct err *err)
{
	struct judge_settings s = JUDGE_SETTINGS_INIT;

	s.confidence = o->confidence > 0 ? o->confidence : b->regression.confidence;
	s.min_samples = b->regression.min_samples;
	s.max_runs = b->max_runs_set ? b->max_runs : SUITE_COMPARE_MAX_PAIRS;
	s.runs = o->has_runs ? o->runs : b->runs;
	return judge_plan_init(plan, &s, err);
}

static int plan_looks(struct bench_run *br, struct err *err)
{
	return runner_plan_looks(&br->r->o, br->b, &br->plan, err);
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
		u->sides[HEAD] = true;
		u->compared = br->compare && compared_command(b, c->name);
		u->sides[BASE] = u->compared;
		warmup_auto_init(&u->warm[HEAD]);
		warmup_auto_init(&u->warm[BASE]);
		strbuf_init(&text, 0);
		suite_exec_text(&c->exec, &text);
		rc = results_add_command(br->rb, c->name, text.buf);
		strbuf_release(&text);
		rc->base.present = u->compared;
		describe_metrics(b, &rc->head);
		if (u->compared)
			describe_metrics(b, &rc->base);
		/* Excluded from the comparison and without budgets: nothing to do. */
		if (br->compare && !u->compared && c->budget_count == 0)
			u->done = true;
	}
}

static void units_release(struct bench_run *br)
{
	size_t i;
	int s;

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

static void cleanup_side(struct bench_run *br, int side)
{
	struct side *s = br->sides[side];
	struct results_error *e = &br->rb->error;
	bool was_interrupted = br->r->interrupted;

	if (!s || !s->priv)
		return;
	/* Cleanup runs whatever happened, also after an interrupt: let it run. */
	br->r->interrupted = 0;
	run_hooks(br->r, br->b->cleanup, br->b->cleanup_count, s, "cleanup",
		  RESULTS_ERROR_CLEANUP_FAILED, e);
	br->r->interrupted = (sig_atomic_t)(was_interrupted || br->r->interrupted);
	side_release(s);
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

static int run_benchmark(struct runner *r, const struct suite *suite, const struct benchmark *b,
			 struct side *sides[2], struct results_suite *rs, struct results *doc,
			 struct err *err)
{
	struct bench_run br;
	struct sysinfo_sample before;
	char *stream;
	size_t i;
	int side, rc = 0;

	memset(&br, 0, sizeof(br));
	br.r = r;
	br.suite = suite;
	br.b = b;
	br.sides[HEAD] = sides[HEAD];
	br.sides[BASE] = sides[BASE];
	br.compare = sides[BASE] != NULL;
	br.rb = results_add_benchmark(rs, b->name);
	results_set_str(&br.rb->description, b->description);
	results_set_str(&br.rb->baseline, b->baseline);
	for (i = 0; i < b->tag_count; i++)
		results_add_tag(br.rb, b->tags[i]);
	stream = xasprintf("order:%s", b->name);
	rng_init(&br.order, r->o.seed, stream);
	free(stream);
	if (br.compare && plan_looks(&br, err) < 0) {
		results_set_error(&br.rb->error, RESULTS_ERROR_INTERNAL, err->msg, NULL, 0);
		br.rb->result = RESULT_ERROR;
		return 0;
	}
	units_init(&br);
	for (i = 0; i < br.n_units; i++)
		if (br.units[i].compared)
			setup_judging(&br, &br.units[i]);
	sysinfo_sample(&before);

	for (side = HEAD; side <= BASE; side++) {
		if (!sides[side] || sides[side]->failed)
			continue;
		rc = side_open(&br, sides[side], err);
		if (rc < 0) {
			results_set_error(&br.rb->error,
					  rc == ERR_INVALID ? RESULTS_ERROR_INVALID_PATH
							    : RESULTS_ERROR_INTERNAL,
					  err->msg, NULL, 0);
			sides[side]->failed = true;
			rc = 0;
			continue;
		}
		progress(r, "%s: setup (%s)", b->name, side_name(side));
		if (run_hooks(r, b->setup, b->setup_count, sides[side], "setup",
			      RESULTS_ERROR_SETUP_FAILED, &br.rb->error) < 0)
			sides[side]->failed = true;
	}
	fail_unmeasurable_units(&br);
	if (!r->interrupted)
		rc = warm_up(&br);
	if (rc == 0 && !r->interrupted)
		rc = measure_rounds(&br);
	if (r->interrupted)
		rc = ERR_INTERRUPTED;
	for (side = HEAD; side <= BASE; side++)
		cleanup_side(&br, side);

	br.rb->result = RESULT_PASS;
	for (i = 0; i < br.n_units; i++) {
		finish_unit(&br, &br.units[i]);
		br.rb->result = worst(br.rb->result, br.rb->commands[i].result);
	}
	finish_relative(&br);
	if (br.rb->error.present || rc == ERR_INTERRUPTED) {
		if (!br.rb->error.present)
			results_set_error(&br.rb->error, RESULTS_ERROR_INTERRUPTED, "interrupted",
					  NULL, 0);
		br.rb->result = RESULT_ERROR;
	}
	note_noise(doc, &before);
	units_release(&br);
	if (rc == ERR_INTERRUPTED)
		err_set(err, ERR_INTERRUPTED, "interrupted");
	return rc;
}

/* ---- a suite ------------------------------------------------------------- */

static void first_line(const char *text, struct strbuf *out)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");
		size_t s = 0;
		while (s < n && (p[s] == ' ' || p[s] == '\t' || p[s] == '\r'))
			s++;
		if (s < n) {
			size_t e = n;
			while (e > s && (p[e - 1] == ' ' || p[e - 1] == '\t' || p[e - 1] == '\r'))
				e--;
			strbuf_add(out, p + s, e - s);
			return;
		}
		p += n;
		if (*p)
			p++;
	}
}

/* report.versions: each tool once, no shell, in the suite's directory, with
 * LC_ALL=C and a 30 s limit; the first non-empty line of stdout (else
 * stderr) is its version. */
static int probe_versions(struct runner *r, const struct suite *s, struct side *head,
			  struct results *doc, struct results_suite *rs)
{
	size_t i, j;
	int rc = 0;

	for (i = 0; i < s->version_count && rc == 0; i++) {
		const struct tool_version *t = &s->versions[i];
		struct exec x;
		struct env_var lc = { "LC_ALL", "C" };
		struct strbuf why, tail, line;
		char *out_path = xasprintf("%s/version-out", head->build_dir);
		char *text = NULL;
		size_t len;
		struct err err = ERR_INIT;

		memset(&x, 0, sizeof(x));
		x.kind = EXEC_ARGV;
		x.argv = t->argv;
		x.argc = t->argc;
		x.env = &lc;
		x.env_count = 1;
		x.timeout_ns = UINT64_C(30) * 1000000000;
		strbuf_init(&why, 0);
		strbuf_init(&tail, 0);
		strbuf_init(&line, 0);
		rc = run_step(r, &x, head, out_path, &why, &tail);
		if (rc == 0 && fsio_read_file(out_path, 1 << 20, &text, &len, &err) == 0)
			first_line(text, &line);
		if (rc == 0 && !line.len)
			first_line(tail.buf, &line);
		if (rc == 0 && !line.len) {
			strbuf_adds(&why, "printed nothing");
			rc = ERR_EXEC;
		}
		if (rc < 0) {
			char *msg = xasprintf("report.versions.%s: %s", t->tool, why.buf);
			results_set_error(&rs->error, RESULTS_ERROR_START_FAILED, msg, tail.buf,
					  tail.len);
			free(msg);
		} else {
			for (j = 0; j < doc->environment.n_tools; j++)
				if (!strcmp(doc->environment.tools[j].name, t->tool))
					break;
			if (j == doc->environment.n_tools)
				results_add_tool(doc, t->tool, line.buf);
		}
		free(text);
		unlink(out_path);
		free(out_path);
		strbuf_release(&why);
		strbuf_release(&tail);
		strbuf_release(&line);
	}
	return rc;
}

static int open_build(struct side *s, const struct suite *suite, struct err *err)
{
	char *prefix = private_prefix("build");
	int rc = fsio_mkdtemp(prefix, &s->build_dir, err);

	free(prefix);
	if (rc < 0)
		return rc;
	if (suite->has_build)
		s->artifact = xasprintf("%s/artifact", s->build_dir);
	return 0;
}

/* Builds ${artifact} on one side; a failure is the suite's error. */
static int build_side(struct runner *r, const struct suite *suite, struct side *s, int side,
		      struct results_suite *rs)
{
	struct strbuf why, tail;
	struct stat st;
	int rc;

	if (!suite->has_build)
		return 0;
	progress(r, "%s: build (%s)", suite->name, side_name(side));
	strbuf_init(&why, 0);
	strbuf_init(&tail, 0);
	rc = run_step(r, &suite->build, s, NULL, &why, &tail);
	if (rc == 0 && stat(s->artifact, &st) < 0) {
		strbuf_adds(&why, "finished but did not create ${artifact}");
		rc = ERR_EXEC;
	}
	if (rc < 0 && !rs->error.present) {
		char *msg = xasprintf("build (%s): %s", side_name(side), why.buf);
		results_set_error(&rs->error,
				  rc == ERR_INTERRUPTED ? RESULTS_ERROR_INTERRUPTED
							: RESULTS_ERROR_BUILD_FAILED,
				  msg, tail.buf, tail.len);
		free(msg);
	}
	strbuf_release(&why);
	strbuf_release(&tail);
	return rc;
}

/*
 * Base and head built byte-identical artifacts: head's becomes a hard link to
 * base's, so that both sides run one file. Two files with the same bytes
 * still run measurably apart on a virtual machine (each has its own pages,
 * and the difference drifts over minutes: docs/comparison.md), which is no
 * difference of the code; a change that leaves the build alone must compare
 * as no change. Only the file is shared: each side keeps its own root, hooks
 * and variables. Any failure leaves the two files as they were.
 */
static bool share_identical_artifact(const struct side *head, const struct side *base)
{
	struct stat a, b;
	char *tmp;
	bool ok;

	if (lstat(head->artifact, &a) < 0 || lstat(base->artifact, &b) < 0 || !S_ISREG(a.st_mode) ||
	    !S_ISREG(b.st_mode) || a.st_size != b.st_size || a.st_mode != b.st_mode)
		return false;
	if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return true;
	if (!fsio_same_content(head->artifact, base->artifact))
		return false;
	tmp = xasprintf("%s/.artifact-link", head->build_dir);
	ok = link(base->artifact, tmp) == 0 && rename(tmp, head->artifact) == 0;
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok;
}

/* Records the selected benchmarks of `s` from index `from` on as never
 * started: an interrupt came first. They have no commands. */
static void not_started(const struct suite *s, const bool *selected, size_t from,
			struct results_suite *rs)
{
	size_t i;

	for (i = from; i < s->benchmark_count; i++) {
		struct results_benchmark *rb;
		if (!selected[i])
			continue;
		rb = results_add_benchmark(rs, s->benchmarks[i].name);
		results_set_error(&rb->error, RESULTS_ERROR_INTERRUPTED, RESULTS_NOT_STARTED, NULL,
				  0);
		rb->result = RESULT_ERROR;
		rs->result = RESULT_ERROR;
	}
}

void runner_not_started(const struct suite *s, const bool *selected, struct results *doc)
{
	struct results_suite *rs = results_add_suite(doc, s->name);

	results_set_str(&rs->description, s->description);
	results_set_str(&rs->file, s->path);
	not_started(s, selected, 0, rs);
}

int runner_run_suite(struct runner *r, const struct suite *s, const bool *selected,
		     const char *head_root, const char *base_root, const char *fixture_root,
		     struct results *doc, struct err *err)
{
	struct side head, base;
	struct side *sides[2] = { &head, base_root ? &base : NULL };
	struct results_suite *rs = results_add_suite(doc, s->name);
	size_t i, next = 0;
	int side, rc = 0;

	memset(&head, 0, sizeof(head));
	memset(&base, 0, sizeof(base));
	head.root = head_root;
	head.head_root = fixture_root ? fixture_root : head_root;
	base.root = base_root;
	base.head_root = head.head_root;
	results_set_str(&rs->description, s->description);
	results_set_str(&rs->file, s->path);
	rs->result = RESULT_PASS;

	for (side = HEAD; side <= BASE && rc == 0; side++)
		if (sides[side])
			rc = open_build(sides[side], s, err);
	if (rc < 0)
		goto done;
	rc = probe_versions(r, s, &head, doc, rs);
	for (side = HEAD; side <= BASE && rc == 0; side++)
		if (sides[side])
			rc = build_side(r, s, sides[side], side, rs);
	if (rc < 0) {
		rs->result = RESULT_ERROR;
		rc = r->interrupted ? ERR_INTERRUPTED : 0;
		goto done;
	}
	if (base_root && s->has_build && !r->o.separate_artifacts)
		rs->shared_artifact = share_identical_artifact(&head, &base);
	for (i = 0; i < s->benchmark_count && rc == 0; i++) {
		if (!selected[i])
			continue;
		rc = run_benchmark(r, s, &s->benchmarks[i], sides, rs, doc, err);
		rs->result = worst(rs->result, rs->benchmarks[rs->n_benchmarks - 1].result);
		next = i + 1;
	}
	if (rc == 0)
		runner_geometric_mean(rs, base_root != NULL);
done:
	if (rc == ERR_INTERRUPTED)
		not_started(s, selected, next, rs);
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
