/*
 * In-process harnesses in the engine (docs/configuration.md, "Harnesses"). A
 * command with `harness:` is a process unit whose runs are not samples
 * themselves: after each run its output (standard output, or the file the
 * command wrote in ${workdir}) is read under a cap and parsed by src/harness,
 * and every benchmark the output reports is a case unit of its own, with its
 * own row of the document ("gb › BM_Sort/64"), samples (one per harness run),
 * looks and verdicts. A case judges each metric of its benchmark that has a
 * metric of the document to stand in (docs/configuration.md, "Harnesses"):
 * the time per iteration as latency, the first metric where higher is better
 * as throughput (judged by the paired looks with its sides swapped, so that
 * the judge sees reciprocals: judge_turn_higher), and Go's allocations and
 * bytes per operation as counts (the counts rule, on the runs the looks
 * took). What has no such metric (Google Benchmark's user counters, which do
 * not say which way is better) is kept run by run in harness_metrics only.
 *
 * The cases are fixed by the process unit's first turn (the first run of
 * each side, warmup or not): a benchmark only head reported is new, one only
 * base reported is removed. A later run that lacks one of them, or whose
 * harness says it failed, or that gives one of its metrics in another unit
 * than the first run that gave it, is an error for that benchmark; so is a
 * benchmark a side reports in a later run but not in its first, which no
 * pairs could be taken for from the start (its row says so). A run that
 * fails or prints nothing readable is an error for every case still
 * measured. The process unit's own row only carries errors until the cases
 * exist, and is dropped once they are finished.
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/fsio.h"
#include "harness/select.h"
#include "judge/counts.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/banned.h"

/* How long reading one output may take: a file the measured code could
 * still be writing to is no reason to hang. */
#define READ_NS (10 * UINT64_C(1000000000))

/* The unit a metric of a case came in first, and the run that gave it, so
 * that a later run that gives it in another unit is named beside it. */
struct seen_unit {
	char *name, *unit;
	int side;
	bool warmup;
	uint64_t run;
};

/* A case's harness metrics: which one each metric of its row judges (NULL:
 * none), and the units seen. A harness process keeps here its cases' names
 * in order, to find a case by name in each later output. */
struct inprocess_case {
	char *slot[METRIC__COUNT];
	struct seen_unit *seen;
	size_t n_seen;
	struct case_name *by_name;
	size_t n_by_name;
};

struct case_name {
	const char *name;
	size_t k;
};

/* Go's -benchmem counts per operation: whole numbers, the same from run to
 * run unless the code changed, decided by the counts rule as heap counts
 * are (docs/comparison.md, "Deciding on counts"). */
static const struct {
	enum metric m;
	const char *name;
} per_op_counts[] = {
	{ METRIC_ALLOCATIONS, "allocs_per_op" },
	{ METRIC_ALLOCATED_BYTES, "bytes_per_op" },
};

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

/* Whether every side's first output that reports the benchmark (h, b;
 * NULL: the side did not) gives metric `name`. */
static bool on_each(const struct harness_benchmark *h, const struct harness_benchmark *b,
		    const char *name)
{
	return (!h || harness_benchmark_metric(h, name)) &&
	       (!b || harness_benchmark_metric(b, name));
}

/* Which of the benchmark's metrics the case judges, from the first outputs
 * of its sides: those both give. Its time unless it gives none and has
 * another metric to judge (a `lines` throughput alone). */
static void pick_slots(const struct unit *u, struct inprocess_case *hc,
		       const struct harness_benchmark *h, const struct harness_benchmark *b)
{
	const struct harness_benchmark *first = h ? h : b;
	const char *want = u->cmd->harness.metric;
	bool other = false;
	size_t k;

	for (k = 0; k < first->n_metrics && !hc->slot[METRIC_THROUGHPUT]; k++) {
		const struct harness_metric *m = &first->metrics[k];
		if (m->better == BETTER_HIGHER && strcmp(m->name, want) && on_each(h, b, m->name))
			hc->slot[METRIC_THROUGHPUT] = xstrdup(m->name);
	}
	other = hc->slot[METRIC_THROUGHPUT] != NULL;
	for (k = 0; u->cmd->harness.kind == HARNESS_GO_TEST && k < ARRAY_SIZE(per_op_counts); k++)
		if (first->n_metrics && on_each(h, b, per_op_counts[k].name)) {
			hc->slot[per_op_counts[k].m] = xstrdup(per_op_counts[k].name);
			other = true;
		}
	if (!other || (harness_benchmark_metric(first, want) && on_each(h, b, want)))
		hc->slot[METRIC_LATENCY] = xstrdup(want);
}

/* A throughput's work unit, as reports print it before "/s": the harness's
 * unit without its "/s" ("bytes/s" is bytes per second). */
static void work_unit(struct results_metric *rm, const struct harness_benchmark *first,
		      const char *name)
{
	const char *unit = harness_benchmark_metric(first, name)->unit;
	size_t n = strlen(unit);

	if (n > 2 && !strcmp(unit + n - 2, "/s"))
		n -= 2;
	rm->work.present = true;
	free(rm->work.unit);
	rm->work.unit = xstrndup(unit, n);
}

/* The row's metrics: those the case judges are measured, by the harness. */
static void describe_slots(const struct inprocess_case *hc, const struct harness_benchmark *first,
			   struct results_command *rc)
{
	int m;

	if (hc->slot[METRIC_THROUGHPUT]) {
		work_unit(&rc->head.metrics[METRIC_THROUGHPUT], first, hc->slot[METRIC_THROUGHPUT]);
		work_unit(&rc->base.metrics[METRIC_THROUGHPUT], first, hc->slot[METRIC_THROUGHPUT]);
	}

	for (m = 0; m < METRIC__COUNT; m++) {
		enum metric_status st = hc->slot[m] ? STATUS_MEASURED : STATUS_NOT_REQUESTED;
		rc->head.metrics[m].status = rc->base.metrics[m].status = st;
		if (hc->slot[m])
			rc->head.metrics[m].source = rc->base.metrics[m].source =
				RESULTS_SOURCE_HARNESS;
	}
}

/* The unit of each metric of b against the first run that gave it: another
 * is the error "head run 2: "rate" is in GB/s, but base run 1 reported it in
 * MB/s" (msg holds "head run 2"); a metric not seen before is noted. */
static int check_units(struct inprocess_case *hc, const struct harness_benchmark *b, int side,
		       bool warmup, uint64_t run, struct strbuf *msg)
{
	size_t k, i;

	for (k = 0; k < b->n_metrics; k++) {
		const struct harness_metric *m = &b->metrics[k];
		for (i = 0; i < hc->n_seen && strcmp(hc->seen[i].name, m->name); i++)
			;
		if (i == hc->n_seen) {
			hc->seen = xrealloc(hc->seen, (i + 1) * sizeof(*hc->seen));
			hc->seen[hc->n_seen++] = (struct seen_unit){ .name = xstrdup(m->name),
								     .unit = xstrdup(m->unit),
								     .side = side,
								     .warmup = warmup,
								     .run = run };
		} else if (strcmp(hc->seen[i].unit, m->unit)) {
			strbuf_addf(msg, ": \"%s\" is in %s, but ", m->name, m->unit);
			run_name(msg, hc->seen[i].side, hc->seen[i].warmup, hc->seen[i].run);
			strbuf_addf(msg, " reported it in %s", hc->seen[i].unit);
			return -1;
		}
	}
	return 0;
}

/* Whether b gives every metric the case judges, its time in ns; if not,
 * why, after msg's run name. */
static bool lacks_slot(const struct unit *c, const struct harness_benchmark *b, struct strbuf *msg)
{
	int m;

	for (m = 0; m < METRIC__COUNT; m++) {
		const char *name = c->hc->slot[m];
		const struct harness_metric *hm = name ? harness_benchmark_metric(b, name) : NULL;
		if (name && !hm) {
			strbuf_addf(msg, ": the output reports no \"%s\" for this benchmark", name);
			return true;
		}
		if (hm && m == METRIC_LATENCY && strcmp(hm->unit, "ns")) {
			strbuf_addf(msg, ": \"%s\" is in %s, not a time", name, hm->unit);
			return true;
		}
	}
	return false;
}

/* One measured run's values of case c, one sample of each judged metric. */
static void add_values(struct unit *c, struct results_side *rs, int side,
		       const struct harness_benchmark *b)
{
	size_t k;
	int m;

	for (k = 0; k < b->n_metrics; k++)
		results_add_harness_value(rs, b->metrics[k].name, b->metrics[k].unit,
					  b->metrics[k].better, b->metrics[k].value,
					  b->metrics[k].values, b->metrics[k].n_values);
	for (m = 0; m < METRIC__COUNT; m++) {
		const struct harness_metric *hm;
		double v;
		if (!c->hc->slot[m])
			continue;
		hm = harness_benchmark_metric(b, c->hc->slot[m]);
		/* a count's median of an even number of repetitions can be
		 * half a count: the counts rule takes whole ones */
		v = metric_info((enum metric)m)->counted ? nearbyint(hm->value) : hm->value;
		results_add_sample(rs, (enum metric)m, v);
		if (m == METRIC_LATENCY)
			c->measured_ns[side] += (uint64_t)v;
	}
	c->n_runs[side]++;
	rs->count++;
}

/* One run's values of case c, or its error. */
static void record_case(struct bench_run *br, struct unit *c, int side, bool warmup, uint64_t run,
			const struct harness_output *out, const struct strbuf *tail)
{
	const struct harness_benchmark *b = harness_output_find(out, c->bench);
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
	else if (check_units(c->hc, b, side, warmup, run, &msg) == 0 && !lacks_slot(c, b, &msg))
		bad = false;
	if (bad)
		fail_case(br, c, side, msg.buf, tail);
	else if (!warmup)
		add_values(c, rs, side, b);
	strbuf_release(&msg);
}

/* The judge's inputs of a compared case: its time and its throughput (with
 * its sides swapped, rounds_point_inputs) by the paired looks, at the
 * tolerance of its rule in harness.benchmarks or latency's. */
static void setup_judging(struct bench_run *br, struct unit *c)
{
	static const enum metric paired[] = { METRIC_LATENCY, METRIC_THROUGHPUT };
	struct tolerance t;
	size_t k;

	if (!plan_harness_tolerance(br->pb, c->cmd, c->bench, &t))
		return;
	for (k = 0; k < ARRAY_SIZE(paired); k++) {
		enum metric m = paired[k];
		struct judge_metric_input *in = &c->in[m];
		if (!c->hc->slot[m])
			continue;
		judge_input_init(in, METRIC_LATENCY);
		in->tol.max_fraction = t.max_fraction;
		/* a smallest difference in ns means nothing to a throughput */
		in->tol.has_min_difference = m == METRIC_LATENCY && t.has_min_difference;
		in->tol.min_difference = t.min_difference;
		in->tol.gate = t.gate;
		in->tol.statistic = t.statistic;
		in->max_cv = br->pb->max_cv;
		in->seed = br->r->o.seed;
		in->benchmark = br->b->name;
		in->command = br->rb->commands[c->index].name;
		c->judged[m] = true;
	}
	rounds_point_inputs(br, c);
	for (k = 0; k < ARRAY_SIZE(paired); k++)
		if (c->judged[paired[k]])
			judge_begin(br->looks, &c->in[paired[k]], &c->cmp[paired[k]]);
}

/* A case of process unit u; h and b are the benchmark in each side's first
 * output (NULL: not there), both NULL for a case that came later. */
static struct unit *add_case(struct bench_run *br, struct unit *u, const char *name,
			     const struct harness_benchmark *h, const struct harness_benchmark *b)
{
	struct unit *c = &u->cases[u->n_cases++];
	struct results_command *rc;
	char *label = xasprintf("%s › %s", u->cmd->name, name);
	const struct results_command *proc = &br->rb->commands[u->index];

	c->cmd = u->cmd;
	c->pc = u->pc;
	c->bench = xstrdup(name);
	c->hc = xcalloc(1, sizeof(*c->hc));
	c->sides[HEAD] = h != NULL;
	c->sides[BASE] = b != NULL;
	c->compared = u->compared && h && b;
	warmup_auto_init(&c->warm[HEAD]);
	warmup_auto_init(&c->warm[BASE]);
	c->index = br->rb->n_commands;
	rc = results_add_command(br->rb, label, proc->command);
	free(label);
	rc->harness.format = xstrdup(harness_kind_name(u->cmd->harness.kind));
	rc->harness.command = xstrdup(u->cmd->name);
	rc->harness.benchmark = xstrdup(name);
	note_selection(u, &rc->harness);
	rc->head.present = h != NULL;
	rc->base.present = b != NULL;
	inprocess_describe(c->cmd, &rc->head);
	inprocess_describe(c->cmd, &rc->base);
	if (h || b) {
		pick_slots(u, c->hc, h, b);
		describe_slots(c->hc, h ? h : b, rc);
	}
	if (c->compared)
		setup_judging(br, c);
	return c;
}

static int cmp_case_name(const void *a, const void *b)
{
	return strcmp(((const struct case_name *)a)->name, ((const struct case_name *)b)->name);
}

/* u's cases by name, for case_named. */
static void index_cases(struct unit *u)
{
	size_t k;

	if (!u->hc)
		u->hc = xcalloc(1, sizeof(*u->hc));
	u->hc->by_name = xrealloc(u->hc->by_name, (u->n_cases + 1) * sizeof(*u->hc->by_name));
	for (k = 0; k < u->n_cases; k++)
		u->hc->by_name[k] = (struct case_name){ .name = u->cases[k].bench, .k = k };
	u->hc->n_by_name = u->n_cases;
	qsort(u->hc->by_name, u->n_cases, sizeof(*u->hc->by_name), cmp_case_name);
}

static struct unit *case_named(struct unit *u, const char *name)
{
	struct case_name key = { .name = name }, *at;

	at = bsearch(&key, u->hc->by_name, u->hc->n_by_name, sizeof(key), cmp_case_name);
	return at ? &u->cases[at->k] : NULL;
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
			add_case(br, u, h->benchmarks[i].name, &h->benchmarks[i],
				 b ? harness_output_find(b, h->benchmarks[i].name) : NULL);
	for (i = 0; b && i < b->n_benchmarks; i++)
		if ((!h || !harness_output_find(h, b->benchmarks[i].name)) &&
		    selected(u, b->benchmarks[i].name))
			add_case(br, u, b->benchmarks[i].name, NULL, &b->benchmarks[i]);
	u->expanded = u->n_cases > 0;
	index_cases(u);
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

/* A benchmark this side's first run did not report, in a later run: an
 * error of its row (made now if it has none), since no pairs were taken
 * for it from the start and taking it in would judge it on fewer. */
static void late_benchmark(struct bench_run *br, struct unit *u, const char *name, int side,
			   bool warmup, uint64_t run, const struct strbuf *tail)
{
	struct unit *c = case_named(u, name);
	struct strbuf msg;

	if (c && (c->failed || c->done))
		return;
	if (!c) {
		u->cases = xrealloc(u->cases, (u->n_cases + 1) * sizeof(*u->cases));
		memset(&u->cases[u->n_cases], 0, sizeof(*u->cases));
		c = add_case(br, u, name, NULL, NULL);
		index_cases(u);
	}
	c->sides[side] = true;
	row_side(br, c, side)->present = true;
	strbuf_init(&msg, 0);
	run_name(&msg, side, warmup, run);
	strbuf_adds(&msg, ": the output reports this benchmark, which the first run did not");
	fail_case(br, c, side, msg.buf, tail);
	strbuf_release(&msg);
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
	for (k = 0; k < out->n_benchmarks; k++) {
		const char *name = out->benchmarks[k].name;
		const struct unit *c = case_named(u, name);
		if ((!c || !c->sides[side]) && selected(u, name))
			late_benchmark(br, u, name, side, warmup, run, tail);
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
		struct results_error *e = &row_side(br, u, side)->error;
		size_t named;
		strbuf_reset(&msg);
		if (e->present && e->kind != RESULTS_ERROR_HARNESS_OUTPUT) {
			run_name(&msg, side, warmup, run_number(u, side, warmup));
			strbuf_adds(&msg, ": ");
		}
		named = msg.len;
		strbuf_adds(&msg, e->present && e->message ? e->message : "");
		/* a process that failed before any case came from it keeps the
		 * error on its own row: that names the run too */
		if (named && !u->expanded && e->message && strncmp(e->message, msg.buf, named)) {
			free(e->message);
			e->message = xstrdup(msg.buf);
		}
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

const struct comparison *inprocess_shown(const struct unit *u, int m, struct comparison *tmp)
{
	if (m != METRIC_THROUGHPUT)
		return &u->cmp[m];
	judge_turn_higher(&u->cmp[m], METRIC_THROUGHPUT, tmp);
	return tmp;
}

void inprocess_compare_counts(const struct bench_run *br, const struct unit *u,
			      struct results_command *rc)
{
	size_t k, i;

	for (k = 0; k < ARRAY_SIZE(per_op_counts); k++) {
		enum metric m = per_op_counts[k].m;
		const struct results_metric *h = &rc->head.metrics[m], *b = &rc->base.metrics[m];
		const struct tolerance *t = plan_tolerance(br->pb, m);
		struct counts_input in = COUNTS_INPUT_INIT;
		uint64_t *v[2];
		struct comparison cmp;
		unsigned more;
		if (!u->hc->slot[m] || !h->n_samples || !b->n_samples)
			continue;
		v[HEAD] = xcalloc(h->n_samples, sizeof(*v[HEAD]));
		v[BASE] = xcalloc(b->n_samples, sizeof(*v[BASE]));
		for (i = 0; i < h->n_samples; i++)
			v[HEAD][i] = (uint64_t)h->samples[i];
		for (i = 0; i < b->n_samples; i++)
			v[BASE][i] = (uint64_t)b->samples[i];
		in.head = v[HEAD];
		in.n_head = h->n_samples;
		in.base = v[BASE];
		in.n_base = b->n_samples;
		if (t)
			in.max_fraction = t->max_fraction;
		counts_compare(m, &in, t ? t->gate : true, &cmp, &more);
		/* the runs are the looks': a noisy count stays inconclusive with
		 * its spread, no runs are taken for it alone */
		cmp.final = true;
		results_add_comparison(rc, &cmp);
		free(v[HEAD]);
		free(v[BASE]);
	}
}

static void release_case(struct inprocess_case *hc)
{
	size_t i;
	int m;

	if (!hc)
		return;
	for (m = 0; m < METRIC__COUNT; m++)
		free(hc->slot[m]);
	for (i = 0; i < hc->n_seen; i++) {
		free(hc->seen[i].name);
		free(hc->seen[i].unit);
	}
	free(hc->seen);
	free(hc->by_name);
	free(hc);
}

void inprocess_release(struct unit *u)
{
	size_t k;
	int side;

	for (k = 0; k < u->n_cases; k++) {
		warmup_auto_release(&u->cases[k].warm[HEAD]);
		warmup_auto_release(&u->cases[k].warm[BASE]);
		free(u->cases[k].bench);
		release_case(u->cases[k].hc);
	}
	free(u->cases);
	release_case(u->hc);
	for (side = HEAD; side <= BASE; side++) {
		harness_output_release(u->first[side]);
		free(u->first[side]);
	}
}
