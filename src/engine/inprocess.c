/*
 * In-process harnesses in the engine (docs/configuration.md, "Harnesses"). A
 * command with `harness:` is a process unit whose runs are not samples
 * themselves: after each run its output (standard output, or the file the
 * command wrote in ${workdir}) is read under a cap and parsed by src/harness,
 * and every benchmark the output reports is a case unit of its own, with its
 * own row of the document ("gb › BM_Sort/64"), samples (the benchmark's time
 * per iteration, one per harness run), looks and verdict.
 *
 * The cases are fixed by the process unit's first turn (the first run of
 * each side, warmup or not): a benchmark only head reported is new, one only
 * base reported is removed. A later run that lacks one of them, or whose
 * harness says it failed, is an error for that benchmark; a run that fails
 * or prints nothing readable is an error for every case still measured. The
 * process unit's own row only carries errors until the cases exist, and is
 * dropped once they are finished.
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/fsio.h"
#include "harness/select.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/banned.h"

/* How long reading one output may take: a file the measured code could
 * still be writing to is no reason to hang. */
#define READ_NS (10 * UINT64_C(1000000000))

bool inprocess_is(const struct unit *u)
{
	return u->cmd->harness.present && !u->bench;
}

char *inprocess_output_path(const struct side *s, const struct unit *u, const char *stdout_path)
{
	if (u->cmd->harness.output)
		return exec_resolve_path(s->workdir, u->cmd->harness.output);
	return stdout_path ? xstrdup(stdout_path) : NULL;
}

char *inprocess_stdout_path(const struct side *s, const struct unit *u)
{
	return xasprintf("%s/stdout-%zu", s->priv, u->index);
}

void inprocess_before_run(const char *out_path)
{
	/* a run that writes nothing must not be read as the run before */
	if (out_path)
		unlink(out_path);
}

int inprocess_select(const struct unit *u, struct prepared *p, struct err *err)
{
	const struct harness_spec *h = &u->cmd->harness;
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	int rc;

	if (!inprocess_is(u) || (!h->select_count && !u->pc->harness_filter))
		return 0;
	rc = harness_select_both(h->kind, h->select, h->select_count, u->pc->harness_filter, &sel,
				 err);
	if (rc == 0)
		exec_append_args(p, sel.args, sel.n_args);
	harness_selection_release(&sel);
	return rc;
}

/* Whether the suite's select: and --filter keep a benchmark the harness
 * reported: where the harness's own selection can be wider than the
 * filters, what it ran beyond them is left out (and it costs nothing
 * where it cannot). */
static bool selected(const struct unit *u, const char *name)
{
	const struct harness_spec *h = &u->cmd->harness;

	return harness_filters_keep(h->select, h->select_count, u->pc->harness_filter, name);
}

/* How the benchmarks were selected, for the report. */
static void note_selection(const struct unit *u, struct results_harness *rh)
{
	const struct harness_spec *h = &u->cmd->harness;
	const char *also = u->pc->harness_filter;
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	struct err err = ERR_INIT;
	size_t i;

	for (i = 0; i < h->select_count; i++)
		results_add_string(&rh->select, &rh->n_select, h->select[i]);
	rh->filter = also ? xstrdup(also) : NULL;
	if ((!h->select_count && !also) ||
	    harness_select_both(h->kind, h->select, h->select_count, also, &sel, &err))
		return;
	for (i = 0; i < sel.n_args; i++)
		results_add_string(&rh->args, &rh->n_args, sel.args[i]);
	rh->filtered_after = sel.after;
	harness_selection_release(&sel);
}

/* The directory of an output file must be ${workdir} or inside it once
 * every symbolic link is resolved: a link planted by the measured code
 * must not make himorime read (and report) a file from elsewhere. */
static int check_inside(const char *workdir, const char *path, struct err *err)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	char real_dir[PATH_MAX], real_work[PATH_MAX];
	size_t n;
	int rc = 0;

	if (slash)
		*slash = '\0';
	if (!realpath(dir, real_dir) || !realpath(workdir, real_work))
		rc = err_set(err, ERR_EXEC, "cannot read \"%s\": %s", path, strerror(errno));
	else if (n = strlen(real_work), strncmp(real_dir, real_work, n) != 0 ||
						(real_dir[n] != '\0' && real_dir[n] != '/'))
		rc = err_set(err, ERR_EXEC,
			     "cannot read \"%s\": its directory is a link out of ${workdir}", path);
	free(dir);
	return rc;
}

/* msg with the private path of the output replaced by the suite's name for
 * it, so that a message says "h.json", as the suite does. */
static void add_named(struct strbuf *sb, const char *msg, const char *path, const char *name)
{
	const char *at = strstr(msg, path);

	if (!at) {
		strbuf_adds(sb, msg);
		return;
	}
	strbuf_add(sb, msg, (size_t)(at - msg));
	strbuf_adds(sb, name);
	strbuf_adds(sb, at + strlen(path));
}

/* The number of the run of u being taken, from 1. */
static uint64_t run_number(const struct unit *u, int side, bool warmup)
{
	return (warmup ? u->warmups[side] : u->n_runs[side]) + 1;
}

/* "head run 3", "base warmup 1". */
static void run_name(struct strbuf *sb, int side, bool warmup, uint64_t run)
{
	strbuf_addf(sb, "%s %s %llu", side_name(side), warmup ? "warmup" : "run",
		    (unsigned long long)run);
}

static void set_error(struct results_side *rs, const char *msg, const char *tail, size_t len)
{
	if (!rs->error.present)
		results_set_error(&rs->error, RESULTS_ERROR_HARNESS_OUTPUT, msg, tail, len);
}

static struct results_side *row_side(struct bench_run *br, const struct unit *u, int side)
{
	struct results_command *rc = &br->rb->commands[u->index];
	return side == HEAD ? &rc->head : &rc->base;
}

/* Reads and parses one run's output; on failure the process unit fails
 * with "head run 3: <why>" and the stderr tail. */
static int read_output(struct bench_run *br, struct unit *u, int side, bool warmup,
		       const char *out_path, const struct strbuf *tail, struct harness_output *out)
{
	const struct harness_spec *h = &u->cmd->harness;
	const char *name = h->output ? h->output : "stdout";
	struct err err = ERR_INIT;
	struct strbuf msg;
	char *data = NULL;
	size_t len = 0;
	int rc = 0;

	if (h->output)
		rc = check_inside(br->sides[side]->workdir, out_path, &err);
	if (rc == 0)
		rc = fsio_capped_read_all(out_path, HARNESS_MAX_OUTPUT_BYTES,
					  clock_monotonic_ns() + READ_NS, &data, &len, &err);
	if (rc == 0)
		rc = harness_parse(h->kind, data, len, name, out, &err);
	free(data);
	if (rc == 0)
		return 0;
	strbuf_init(&msg, 0);
	run_name(&msg, side, warmup, run_number(u, side, warmup));
	strbuf_adds(&msg, ": ");
	add_named(&msg, err.msg, out_path, name);
	set_error(row_side(br, u, side), msg.buf, tail->buf, tail->len);
	u->failed = true;
	strbuf_release(&msg);
	return -1;
}

static void fail_case(struct bench_run *br, struct unit *c, int side, const char *msg,
		      const struct strbuf *tail)
{
	set_error(row_side(br, c, side), msg, tail ? tail->buf : NULL, tail ? tail->len : 0);
	c->failed = true;
}

/* One run's value of case c: its time per iteration, or its error. */
static void record_case(struct bench_run *br, struct unit *c, int side, bool warmup, uint64_t run,
			const struct harness_output *out, const struct strbuf *tail)
{
	const char *want = c->cmd->harness.metric;
	const struct harness_benchmark *b = harness_output_find(out, c->bench);
	const struct harness_metric *m = b ? harness_benchmark_metric(b, want) : NULL;
	struct results_side *rs = row_side(br, c, side);
	struct strbuf msg;
	bool bad = true;

	strbuf_init(&msg, 0);
	run_name(&msg, side, warmup, run);
	if (!b)
		strbuf_adds(&msg, ": the output does not report this benchmark, which the first "
				  "run did");
	else if (b->error)
		strbuf_addf(&msg, ": the harness reports it failed: %s", b->error);
	else if (!m)
		strbuf_addf(&msg, ": the output reports no \"%s\" for this benchmark", want);
	else if (strcmp(m->unit, "ns"))
		strbuf_addf(&msg, ": \"%s\" is in %s, not a time", want, m->unit);
	else
		bad = false;
	if (bad) {
		fail_case(br, c, side, msg.buf, tail);
	} else if (!warmup) {
		size_t k;
		for (k = 0; k < b->n_metrics; k++)
			results_add_harness_value(rs, b->metrics[k].name, b->metrics[k].unit,
						  b->metrics[k].better, b->metrics[k].value,
						  b->metrics[k].values, b->metrics[k].n_values);
		results_add_sample(rs, METRIC_LATENCY, m->value);
		c->n_runs[side]++;
		c->measured_ns[side] += (uint64_t)m->value;
		rs->count++;
	}
	strbuf_release(&msg);
}

/* The cases of process unit u, from the first turn's outputs. */
static void add_case(struct bench_run *br, struct unit *u, const char *name, bool head, bool base)
{
	struct unit *c = &u->cases[u->n_cases++];
	struct results_command *rc;
	char *label = xasprintf("%s › %s", u->cmd->name, name);
	const struct results_command *proc = &br->rb->commands[u->index];

	c->cmd = u->cmd;
	c->pc = u->pc;
	c->bench = xstrdup(name);
	c->sides[HEAD] = head;
	c->sides[BASE] = base;
	c->compared = u->compared && head && base;
	warmup_auto_init(&c->warm[HEAD]);
	warmup_auto_init(&c->warm[BASE]);
	c->index = br->rb->n_commands;
	rc = results_add_command(br->rb, label, proc->command);
	free(label);
	rc->harness.format = xstrdup(harness_kind_name(u->cmd->harness.kind));
	rc->harness.command = xstrdup(u->cmd->name);
	rc->harness.benchmark = xstrdup(name);
	note_selection(u, &rc->harness);
	rc->head.present = head;
	rc->base.present = base;
	inprocess_describe(c->cmd, &rc->head);
	inprocess_describe(c->cmd, &rc->base);
	if (c->compared)
		runner_setup_judging(br, c);
}

/* The cases of u: what head's first run reported, then what only base's
 * did, each kept by the suite's select:. None is an error of the process
 * unit (the selection matched nothing). */
static void expand(struct bench_run *br, struct unit *u)
{
	const struct harness_output *h = u->first[HEAD], *b = u->first[BASE];
	size_t i, n = h ? h->n_benchmarks : 0;

	for (i = 0; b && i < b->n_benchmarks; i++)
		n += !h || !harness_output_find(h, b->benchmarks[i].name);
	u->cases = xcalloc(n ? n : 1, sizeof(*u->cases));
	for (i = 0; h && i < h->n_benchmarks; i++)
		if (selected(u, h->benchmarks[i].name))
			add_case(br, u, h->benchmarks[i].name, true,
				 b && harness_output_find(b, h->benchmarks[i].name));
	for (i = 0; b && i < b->n_benchmarks; i++)
		if ((!h || !harness_output_find(h, b->benchmarks[i].name)) &&
		    selected(u, b->benchmarks[i].name))
			add_case(br, u, b->benchmarks[i].name, false, true);
	u->expanded = u->n_cases > 0;
	if (!u->expanded) {
		int side = h ? HEAD : BASE;
		struct strbuf msg;
		strbuf_init(&msg, 0);
		run_name(&msg, side, u->first_warmup, u->first_run[side]);
		strbuf_addf(&msg, ": %s none of the %zu benchmarks the output reports",
			    !u->pc->harness_filter	   ? "select matches"
			    : u->cmd->harness.select_count ? "select and --filter match"
							   : "--filter matches",
			    (h ? h : b)->n_benchmarks);
		set_error(row_side(br, u, side), msg.buf, NULL, 0);
		u->failed = true;
		strbuf_release(&msg);
	}
}

static void record_all(struct bench_run *br, struct unit *u, int side, bool warmup, uint64_t run,
		       const struct harness_output *out, const struct strbuf *tail)
{
	size_t k;

	for (k = 0; k < u->n_cases; k++) {
		struct unit *c = &u->cases[k];
		if (c->sides[side] && !c->failed && !c->done)
			record_case(br, c, side, warmup, run, out, tail);
	}
}

void inprocess_take(struct bench_run *br, struct unit *u, int side, bool warmup,
		    const struct run_result *res, const char *out_path, const char *stderr_path,
		    const struct prepared *p)
{
	struct harness_output *out = xcalloc(1, sizeof(*out));
	struct strbuf tail;

	strbuf_init(&tail, 0);
	exec_stderr_tail(stderr_path, RESULTS_MAX_STDERR_BYTES, p, &tail);
	harness_output_init(out);
	if (read_output(br, u, side, warmup, out_path, &tail, out) < 0)
		goto done;
	if (!u->expanded) { /* kept for the end of the turn */
		u->first[side] = out;
		u->first_warmup = warmup;
		u->first_run[side] = run_number(u, side, warmup);
		out = NULL;
	} else {
		record_all(br, u, side, warmup, run_number(u, side, warmup), out, &tail);
	}
	if (!warmup) {
		u->n_runs[side]++;
		u->measured_ns[side] += res->wall_ns;
	}
done:
	strbuf_release(&tail);
	harness_output_release(out);
	free(out);
}

/* The process unit failed: its error becomes each open case's on that
 * side, named by the run that failed ("head run 4: exited with code 3"). */
static void propagate(struct bench_run *br, struct unit *u, bool warmup)
{
	struct strbuf msg;
	size_t k;
	int side;

	strbuf_init(&msg, 0);
	for (side = HEAD; side <= BASE; side++) {
		const struct results_error *e = &row_side(br, u, side)->error;
		strbuf_reset(&msg);
		if (e->present && e->kind != RESULTS_ERROR_HARNESS_OUTPUT) {
			run_name(&msg, side, warmup, run_number(u, side, warmup));
			strbuf_adds(&msg, ": ");
		}
		strbuf_adds(&msg, e->present && e->message ? e->message : "");
		for (k = 0; e->present && k < u->n_cases; k++) {
			struct unit *c = &u->cases[k];
			struct results_side *rs = row_side(br, c, side);
			if (!c->sides[side] || c->failed || c->done)
				continue;
			c->failed = true;
			if (!rs->error.present) {
				results_set_error(&rs->error, e->kind, msg.buf, e->stderr_tail,
						  e->stderr_tail ? strlen(e->stderr_tail) : 0);
				rs->error.has_exit_code = e->has_exit_code;
				rs->error.exit_code = e->exit_code;
			}
		}
	}
	strbuf_release(&msg);
}

static bool any_case_running(const struct unit *u)
{
	size_t k;

	for (k = 0; k < u->n_cases; k++)
		if (!u->cases[k].failed && !u->cases[k].done)
			return true;
	return false;
}

void inprocess_after_turn(struct bench_run *br, struct unit *u, bool warmup)
{
	int side;

	if (!inprocess_is(u))
		return;
	if (!u->expanded && !u->failed && (u->first[HEAD] || u->first[BASE])) {
		struct strbuf none;
		strbuf_init(&none, 0);
		expand(br, u);
		for (side = HEAD; side <= BASE; side++)
			if (u->first[side])
				record_all(br, u, side, u->first_warmup, u->first_run[side],
					   u->first[side], &none);
		strbuf_release(&none);
	}
	for (side = HEAD; side <= BASE; side++) {
		harness_output_release(u->first[side]);
		free(u->first[side]);
		u->first[side] = NULL;
	}
	if (u->failed)
		propagate(br, u, warmup);
	/* nothing left to measure: the process stops (a comparison's cases
	 * that are decided are done after the looks of rounds.c) */
	if (u->expanded && !any_case_running(u) && !u->failed)
		u->done = true;
}

void inprocess_describe(const struct command *c, struct results_side *rs)
{
	int m;

	finish_describe_metrics(c, rs);
	rs->metrics[METRIC_LATENCY].source = RESULTS_SOURCE_HARNESS;
	for (m = 0; m < METRIC__COUNT; m++)
		if (m != METRIC_LATENCY)
			rs->metrics[m].status = STATUS_NOT_REQUESTED;
}

bool inprocess_finish(struct bench_run *br, struct unit *u)
{
	size_t k;

	if (!inprocess_is(u) || !u->expanded)
		return false;
	for (k = 0; k < u->n_cases; k++) {
		struct unit *c = &u->cases[k];
		struct results_command *rc;
		c->warmups[HEAD] = c->sides[HEAD] ? u->warmups[HEAD] : 0;
		c->warmups[BASE] = c->sides[BASE] ? u->warmups[BASE] : 0;
		finish_unit(br, c);
		rc = &br->rb->commands[c->index];
		/* one side only in a comparison: a benchmark added or removed */
		if (u->compared && !c->compared && rc->result == RESULT_PASS)
			rc->result = c->sides[HEAD] ? RESULT_NEW : RESULT_REMOVED;
	}
	return true;
}

void inprocess_drop_rows(struct bench_run *br)
{
	size_t i = br->n_units;

	/* from the last: a row's index stays good while the later go */
	while (i--) {
		const struct unit *u = &br->units[i];
		if (inprocess_is(u) && u->expanded)
			results_remove_command(br->rb, u->index);
	}
}

void inprocess_release(struct unit *u)
{
	size_t k;
	int side;

	for (k = 0; k < u->n_cases; k++) {
		warmup_auto_release(&u->cases[k].warm[HEAD]);
		warmup_auto_release(&u->cases[k].warm[BASE]);
		free(u->cases[k].bench);
	}
	free(u->cases);
	for (side = HEAD; side <= BASE; side++) {
		harness_output_release(u->first[side]);
		free(u->first[side]);
	}
}
