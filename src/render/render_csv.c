/*
 * CSV renderings for spreadsheets and scripts. `csv` is long: one row per
 * statistic, budget, comparison and error, under the reference's header with
 * our columns only appended. `samples-csv` is one row per raw value (with
 * each run's start and end when the document has duet runs). Numbers
 * are written exactly as the JSON writer writes them, in canonical units;
 * fields are quoted as RFC 4180 says (only when they hold a comma, a quote
 * or a line break), and lines end in "\n".
 */
#include "render/formats.h"

#include "common/alloc.h"
#include "results/jsonw.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/banned.h"

/* The reference's columns, in its order; then ours. */
enum col {
	C_SUITE,
	C_BENCHMARK,
	C_COMMAND,
	C_RESULT,
	C_RECORD,
	C_SIDE,
	C_METRIC,
	C_UNIT,
	C_SCOPE,
	C_SOURCE,
	C_AGGREGATION,
	C_STATUS,
	C_STATISTIC,
	C_VALUE,
	C_OPERATOR,
	C_LIMIT,
	C_BASE,
	C_HEAD,
	C_DIFFERENCE,
	C_CHANGE,
	C_CI_LOW,
	C_CI_HIGH,
	C_PROB_REGRESSION,
	C_MAX_PERCENT,
	C_VERDICT,
	C_GATE,
	C_REASON,
	C_ERROR_KIND,
	C_ERROR_MESSAGE,
	C_DERIVED_FROM,
	/* ours, appended */
	C_CONFIDENCE,
	C_LOOKS_PLANNED,
	C_LOOKS_USED,
	C_PAIRS,
	C_MIN_DIFFERENCE,
	C_BAND_LOW,
	C_BAND_HIGH,
	C_ACCEPTED,
	C_BUDGET_TEXT,
	C_ERROR_EXIT_CODE,
	C__COUNT
};

static const char *const header[C__COUNT] = {
	"suite",
	"benchmark",
	"command",
	"result",
	"record",
	"side",
	"metric",
	"unit",
	"scope",
	"source",
	"process_aggregation",
	"status",
	"statistic",
	"value",
	"operator",
	"limit",
	"base",
	"head",
	"difference",
	"change_percent",
	"ci_low_percent",
	"ci_high_percent",
	"probability_regression",
	"max_percent",
	"verdict",
	"gate",
	"reason",
	"error_kind",
	"error_message",
	"derived_from",
	"confidence",
	"looks_planned",
	"looks_used",
	"pairs",
	"min_difference",
	"band_low_percent",
	"band_high_percent",
	"accepted",
	"budget_text",
	"error_exit_code",
};

struct csv_row {
	struct strbuf f[C__COUNT];
};

static void row_init(struct csv_row *row)
{
	size_t i;

	for (i = 0; i < C__COUNT; i++)
		strbuf_init(&row->f[i], 0);
}

static void row_release(struct csv_row *row)
{
	size_t i;

	for (i = 0; i < C__COUNT; i++)
		strbuf_release(&row->f[i]);
}

static void row_emit(struct csv_row *row, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < C__COUNT; i++) {
		if (i)
			strbuf_addch(out, ',');
		rnd_csv_field(out, row->f[i].buf);
		strbuf_reset(&row->f[i]);
	}
	strbuf_addch(out, '\n');
}

static void set(struct csv_row *row, enum col c, const char *s)
{
	strbuf_reset(&row->f[c]);
	strbuf_adds(&row->f[c], s ? s : "");
}

static void num(struct csv_row *row, enum col c, double v)
{
	strbuf_reset(&row->f[c]);
	rnd_number(&row->f[c], v);
}

static void uint_(struct csv_row *row, enum col c, unsigned long long v)
{
	strbuf_reset(&row->f[c]);
	strbuf_addf(&row->f[c], "%llu", v);
}

/* Suite, benchmark, command and result: the first columns of every row. */
static void where(struct csv_row *row, const struct results_suite *s,
		  const struct results_benchmark *b, const struct results_command *c,
		  enum result_state result)
{
	set(row, C_SUITE, s->name);
	set(row, C_BENCHMARK, b ? b->name : "");
	set(row, C_COMMAND, c ? c->name : "");
	set(row, C_RESULT, result_state_name(result));
}

static void metric_cols(struct csv_row *row, const struct results_metric *m)
{
	const struct metric_info *mi = metric_info(m->metric);

	set(row, C_METRIC, mi->name);
	set(row, C_UNIT, metric_unit_name(mi->unit));
	set(row, C_SCOPE, results_scope_name(mi->scope));
	set(row, C_SOURCE, results_source_name(m->source));
	set(row, C_AGGREGATION, results_aggregation_name(m->process_aggregation));
	set(row, C_STATUS, metric_status_name(m->status));
	set(row, C_REASON, m->reason);
}

struct ctx {
	const struct results_suite *s;
	const struct results_benchmark *b;
	const struct results_command *c;
	struct csv_row *row;
	struct strbuf *out;
};

static void stat_row(struct ctx *x, const char *side, const struct results_metric *m,
		     const char *statistic, double value)
{
	where(x->row, x->s, x->b, x->c, x->c->result);
	set(x->row, C_RECORD, "stat");
	set(x->row, C_SIDE, side);
	metric_cols(x->row, m);
	set(x->row, C_STATISTIC, statistic);
	num(x->row, C_VALUE, value);
	row_emit(x->row, x->out);
}

/* A percentile seed two's rule holds back: no value, and why. */
static void unreported_row(struct ctx *x, const char *side, const struct results_metric *m,
			   const char *statistic, double p)
{
	struct strbuf why;
	size_t above = rnd_runs_above(m->stats.count, p);

	strbuf_init(&why, 0);
	strbuf_addf(&why, RND_NOT_ENOUGH_RUNS ": %zu run%s above %s, %d needed", above,
		    above == 1 ? "" : "s", statistic, RND_PERCENTILE_MIN_ABOVE);
	where(x->row, x->s, x->b, x->c, x->c->result);
	set(x->row, C_RECORD, "stat");
	set(x->row, C_SIDE, side);
	metric_cols(x->row, m);
	set(x->row, C_STATISTIC, statistic);
	set(x->row, C_REASON, why.buf);
	row_emit(x->row, x->out);
	strbuf_release(&why);
}

/* "p95", "p99.9": the percentile written exactly, as reports write it;
 * without its value when too few runs lie above it (seed two's rule). */
static void percentile_rows(struct ctx *x, const char *side, const struct results_metric *m)
{
	struct strbuf name;
	size_t i;

	strbuf_init(&name, 0);
	for (i = 0; i < m->stats.n_percentiles; i++) {
		const struct percentile *pc = &m->stats.percentiles[i];
		strbuf_reset(&name);
		strbuf_addch(&name, 'p');
		if (jsonw_number_text(&name, pc->p) < 0)
			continue;
		if (rnd_percentile_shown(m->stats.count, pc->p))
			stat_row(x, side, m, name.buf, pc->value);
		else
			unreported_row(x, side, m, name.buf, pc->p);
	}
	strbuf_release(&name);
}

static void metric_rows(struct ctx *x, const char *side, const struct results_metric *m,
			const struct results_command *c)
{
	const struct stats_summary *st = &m->stats;
	enum results_plan plan = !strcmp(side, "head") ? c->head.plan : c->base.plan;

	if (m->status == STATUS_NOT_REQUESTED)
		return;
	if (m->status != STATUS_MEASURED || !m->has_stats) {
		where(x->row, x->s, x->b, x->c, x->c->result);
		set(x->row, C_RECORD, "stat");
		set(x->row, C_SIDE, side);
		metric_cols(x->row, m);
		if (m->status == STATUS_MEASURED)
			set(x->row, C_REASON, "no statistics in the report");
		row_emit(x->row, x->out);
	} else {
		stat_row(x, side, m, "count", (double)st->count);
		stat_row(x, side, m, "min", st->min);
		stat_row(x, side, m, "median", st->median);
		stat_row(x, side, m, "mean", st->mean);
		stat_row(x, side, m, "max", st->max);
		stat_row(x, side, m, "stddev", st->stddev);
		stat_row(x, side, m, "cv", st->cv);
		stat_row(x, side, m, "robust_cv", st->robust_cv);
		percentile_rows(x, side, m);
	}
	if (m->has_floor) {
		stat_row(x, side, m, "floor", (double)m->floor_bytes);
		stat_row(x, side, m, "samples_at_floor", (double)m->samples_at_floor);
	}
	if (m->trend.present) {
		stat_row(x, side, m, "trend_slope", m->trend.slope);
		stat_row(x, side, m, "trend_slope_low", m->trend.slope_low);
		stat_row(x, side, m, "trend_slope_high", m->trend.slope_high);
		stat_row(x, side, m, "trend_growing", m->trend.growing ? 1.0 : 0.0);
	}
	if (m->has_elf) {
		stat_row(x, side, m, "elf_text", (double)m->elf_text);
		stat_row(x, side, m, "elf_data", (double)m->elf_data);
		stat_row(x, side, m, "elf_bss", (double)m->elf_bss);
	}
	if (m->work.present) {
		stat_row(x, side, m, "measured_work_min", m->work.measured_min);
		stat_row(x, side, m, "measured_work_max", m->work.measured_max);
	}
	/* the large-case plan (docs/design.md) is the side's; its latency row
	 * says so, and nothing for the standard plan */
	if (m->metric == METRIC_LATENCY && plan == RESULTS_PLAN_LARGE)
		stat_row(x, side, m, "large_case_plan", 1.0);
	if (m->metric == METRIC_LATENCY && !strcmp(side, "head")) {
		if (c->has_vs_baseline)
			stat_row(x, side, m, "relative_to_baseline", c->vs_baseline);
		if (c->has_vs_fastest)
			stat_row(x, side, m, "relative_to_fastest", c->vs_fastest);
	}
}

static void comparison_row(struct ctx *x, const struct comparison *k)
{
	const struct metric_info *mi = metric_info(k->metric);
	struct csv_row *row = x->row;

	where(row, x->s, x->b, x->c, x->c->result);
	set(row, C_RECORD, "comparison");
	set(row, C_METRIC, mi->name);
	set(row, C_UNIT, metric_unit_name(mi->unit));
	set(row, C_SCOPE, results_scope_name(mi->scope));
	set(row, C_STATISTIC, "hodges_lehmann_ratio");
	num(row, C_BASE, k->base);
	num(row, C_HEAD, k->head);
	num(row, C_DIFFERENCE, k->head - k->base);
	if (k->has_estimate) {
		num(row, C_CHANGE, k->change_percent);
		num(row, C_CI_LOW, k->ci_low_percent);
		num(row, C_CI_HIGH, k->ci_high_percent);
	}
	num(row, C_MAX_PERCENT, k->max_fraction * 100.0);
	set(row, C_VERDICT, verdict_name(k->verdict));
	set(row, C_GATE, k->gate ? "true" : "false");
	set(row, C_REASON, k->reason);
	set(row, C_DERIVED_FROM, k->derived ? "latency" : "");
	num(row, C_CONFIDENCE, k->confidence);
	uint_(row, C_LOOKS_PLANNED, k->looks_planned);
	uint_(row, C_LOOKS_USED, k->looks_used);
	uint_(row, C_PAIRS, k->pairs);
	if (k->has_min_difference)
		num(row, C_MIN_DIFFERENCE, k->min_difference);
	if (!k->band_low_infinite)
		num(row, C_BAND_LOW, k->band_low_percent);
	num(row, C_BAND_HIGH, k->band_high_percent);
	set(row, C_ACCEPTED, k->accepted ? "true" : "false");
	row_emit(row, x->out);
}

static void budget_row(struct ctx *x, const struct results_budget *b)
{
	const struct metric_info *mi = metric_info(b->result.metric);
	struct csv_row *row = x->row;

	where(row, x->s, x->b, x->c, x->c->result);
	set(row, C_RECORD, "budget");
	set(row, C_SIDE, "head");
	set(row, C_METRIC, mi->name);
	set(row, C_UNIT, metric_unit_name(mi->unit));
	set(row, C_SCOPE, results_scope_name(mi->scope));
	set(row, C_STATUS, budget_status_name(b->result.status));
	strbuf_reset(&row->f[C_STATISTIC]);
	rnd_aggregation(&row->f[C_STATISTIC], &b->result.aggregation);
	if (b->result.has_actual)
		num(row, C_VALUE, b->result.actual);
	set(row, C_OPERATOR, rnd_op(b->result.op));
	num(row, C_LIMIT, b->result.limit);
	set(row, C_REASON, b->result.reason);
	set(row, C_BUDGET_TEXT, b->text);
	row_emit(row, x->out);
}

/* A benchmark measured as duets: one row that says so, and that its
 * budgets were checked on those runs (interleaved, the default, has none). */
static void schedule_row(struct ctx *x)
{
	if (x->b->schedule == SCHEDULE_INTERLEAVED)
		return;
	where(x->row, x->s, x->b, NULL, x->b->result);
	set(x->row, C_RECORD, "schedule");
	set(x->row, C_REASON, RND_DUET_WORDS);
	row_emit(x->row, x->out);
}

static void error_row(struct ctx *x, enum result_state result, const char *side,
		      const struct results_error *e)
{
	struct csv_row *row = x->row;

	if (!e->present)
		return;
	where(row, x->s, x->b, x->c, result);
	set(row, C_RECORD, "error");
	set(row, C_SIDE, side);
	if (e->has_metric)
		set(row, C_METRIC, metric_info(e->metric)->name);
	set(row, C_ERROR_KIND, results_error_kind_name(e->kind));
	set(row, C_ERROR_MESSAGE, e->message);
	if (e->has_exit_code) {
		strbuf_reset(&row->f[C_ERROR_EXIT_CODE]);
		strbuf_addf(&row->f[C_ERROR_EXIT_CODE], "%d", e->exit_code);
	}
	row_emit(row, x->out);
}

static void command_rows(struct ctx *x)
{
	const struct results_command *c = x->c;
	size_t i;
	int m;

	error_row(x, c->result, "head", &c->head.error);
	error_row(x, c->result, "base", &c->base.error);
	for (m = 0; m < METRIC__COUNT; m++) {
		if (c->head.present)
			metric_rows(x, "head", &c->head.metrics[m], c);
		if (c->base.present)
			metric_rows(x, "base", &c->base.metrics[m], c);
	}
	for (i = 0; i < c->n_comparisons; i++)
		comparison_row(x, &c->comparisons[i]);
	for (i = 0; i < c->n_budgets; i++)
		budget_row(x, &c->budgets[i]);
}

/* The first columns of a row about a growth fit: its cases' label without
 * the size, the command, the metric. */
static void growth_where(struct ctx *x, const struct results_growth *g, const char *record,
			 const char *side)
{
	const struct metric_info *mi = metric_info(g->metric);

	set(x->row, C_SUITE, x->s->name);
	set(x->row, C_BENCHMARK, g->benchmark);
	set(x->row, C_COMMAND, g->command);
	set(x->row, C_RECORD, record);
	set(x->row, C_SIDE, side);
	set(x->row, C_METRIC, mi->name);
	set(x->row, C_UNIT, metric_unit_name(mi->unit));
	set(x->row, C_SCOPE, results_scope_name(mi->scope));
}

static void growth_stat(struct ctx *x, const struct results_growth *g, const char *side,
			const struct results_fit *f, const char *statistic, double value)
{
	growth_where(x, g, "growth", side);
	set(x->row, C_STATISTIC, statistic);
	num(x->row, C_VALUE, value);
	strbuf_reset(&x->row->f[C_REASON]);
	strbuf_addf(&x->row->f[C_REASON], "over sizes %s to %s", f->from ? f->from : "?",
		    f->to ? f->to : "?");
	row_emit(x->row, x->out);
}

/* One side's fit: cost = constant + coefficient * size^exponent (no
 * constant row for a plain power law). */
static void growth_fit_rows(struct ctx *x, const struct results_growth *g, const char *side,
			    const struct results_fit *f)
{
	if (!f->present)
		return;
	growth_stat(x, g, side, f, "exponent", f->exponent);
	if (f->has_interval) {
		growth_stat(x, g, side, f, "exponent_low", f->exponent_low);
		growth_stat(x, g, side, f, "exponent_high", f->exponent_high);
	}
	growth_stat(x, g, side, f, "coefficient", f->coefficient);
	if (f->has_constant)
		growth_stat(x, g, side, f, "constant", f->constant);
	growth_stat(x, g, side, f, "r_squared", f->r_squared);
	growth_stat(x, g, side, f, "sizes", (double)f->sizes);
	growth_stat(x, g, side, f, "runs", (double)f->runs);
}

/* A growth's fits, its budget and the comparison of its exponents. */
static void growth_rows(struct ctx *x, const struct results_growth *g)
{
	growth_fit_rows(x, g, "head", &g->head);
	growth_fit_rows(x, g, "base", &g->base);
	if (g->has_budget) {
		growth_where(x, g, "growth_budget", "head");
		set(x->row, C_STATUS,
		    budget_status_name(g->budget_pass ? BUDGET_PASS : BUDGET_FAIL));
		set(x->row, C_STATISTIC, "exponent");
		if (g->head.present)
			num(x->row, C_VALUE, g->head.exponent);
		set(x->row, C_OPERATOR, rnd_op(g->budget_op));
		num(x->row, C_LIMIT, g->budget_limit);
		set(x->row, C_BUDGET_TEXT, g->budget_text);
		row_emit(x->row, x->out);
	}
	if (g->compared) {
		growth_where(x, g, "growth_comparison", "");
		set(x->row, C_STATISTIC, "exponent");
		num(x->row, C_BASE, g->base.exponent);
		num(x->row, C_HEAD, g->head.exponent);
		num(x->row, C_DIFFERENCE, g->difference);
		num(x->row, C_LIMIT, g->max_difference); /* regression.exponent.max_difference */
		set(x->row, C_VERDICT, verdict_name(g->verdict));
		strbuf_reset(&x->row->f[C_REASON]);
		strbuf_adds(&x->row->f[C_REASON], "difference interval ");
		rnd_number(&x->row->f[C_REASON], g->difference_low);
		strbuf_adds(&x->row->f[C_REASON], " to ");
		rnd_number(&x->row->f[C_REASON], g->difference_high);
		row_emit(x->row, x->out);
	}
}

int rnd_csv(const struct results *r, struct strbuf *out)
{
	struct csv_row row;
	struct ctx x;
	size_t s, b, c, i;

	for (i = 0; i < C__COUNT; i++)
		strbuf_addf(out, "%s%s", i ? "," : "", header[i]);
	strbuf_addch(out, '\n');
	row_init(&row);
	memset(&x, 0, sizeof(x));
	x.row = &row;
	x.out = out;
	for (s = 0; s < r->n_suites; s++) {
		x.s = &r->suites[s];
		x.b = NULL;
		x.c = NULL;
		if (x.s->new_in_head) {
			where(&row, x.s, NULL, NULL, x.s->result);
			set(&row, C_RECORD, "new_in_head");
			row_emit(&row, out);
		}
		error_row(&x, x.s->result, "", &x.s->error);
		for (b = 0; b < x.s->n_benchmarks; b++) {
			x.b = &x.s->benchmarks[b];
			x.c = NULL;
			error_row(&x, x.b->result, "", &x.b->error);
			schedule_row(&x);
			for (c = 0; c < x.b->n_commands; c++) {
				x.c = &x.b->commands[c];
				command_rows(&x);
			}
		}
		for (i = 0; i < x.s->n_growth; i++)
			growth_rows(&x, &x.s->growth[i]);
		for (i = 0; i < x.s->n_not_compared; i++) {
			set(&row, C_SUITE, x.s->name);
			set(&row, C_BENCHMARK, x.s->not_compared[i].benchmark);
			set(&row, C_RECORD, "not_compared");
			set(&row, C_REASON, x.s->not_compared[i].reason);
			row_emit(&row, out);
		}
	}
	row_release(&row);
	return 0;
}

/* Whether some side of the document ran duets, whose rows then carry each
 * run's start and end (docs/reports.md). */
static bool any_run_times(const struct rnd_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (rows->v[i].cmd->head.n_times || rows->v[i].cmd->base.n_times)
			return true;
	return false;
}

/* ",start_ns,end_ns" of run k, or ",," when the side has none. */
static void run_times(const struct results_side *sd, size_t k, struct strbuf *out)
{
	if (k < sd->n_times)
		strbuf_addf(out, ",%" PRIu64 ",%" PRIu64, sd->run_start_ns[k], sd->run_end_ns[k]);
	else
		strbuf_adds(out, ",,");
}

int rnd_samples_csv(const struct results *r, const struct render_sink *sink, struct strbuf *out,
		    struct err *err)
{
	struct rnd_rows rows;
	struct strbuf f;
	size_t i, k;
	int m, side;
	int rc = 0;
	bool times;

	strbuf_init(&f, 0);
	rnd_rows_collect(r, &rows);
	times = any_run_times(&rows);
	/* the columns of duet runs are appended only where there are some, so
	 * that other documents' rows stay as they were */
	strbuf_adds(out, times ? "suite,benchmark,command,side,run,metric,unit,value,start_ns,"
				 "end_ns\n"
			       : "suite,benchmark,command,side,run,metric,unit,value\n");
	for (i = 0; i < rows.n; i++) {
		const struct results_command *c = rows.v[i].cmd;
		for (side = 0; side < 2; side++) {
			const struct results_side *sd = side ? &c->base : &c->head;
			if (!sd->present)
				continue;
			for (m = 0; m < METRIC__COUNT; m++) {
				const struct results_metric *mt = &sd->metrics[m];
				const struct metric_info *mi = metric_info((enum metric)m);
				for (k = 0; k < mt->n_samples; k++) {
					rnd_csv_field(out, rows.v[i].suite->name
								   ? rows.v[i].suite->name
								   : "");
					strbuf_addch(out, ',');
					rnd_csv_field(out, rows.v[i].bench->name
								   ? rows.v[i].bench->name
								   : "");
					strbuf_addch(out, ',');
					rnd_csv_field(out, c->name ? c->name : "");
					strbuf_addf(out, ",%s,%zu,%s,%s,", side ? "base" : "head",
						    k + 1, mi->name, metric_unit_name(mi->unit));
					strbuf_reset(&f);
					rnd_number(&f, mt->samples[k]);
					strbuf_adds(out, f.buf);
					if (times)
						run_times(sd, k, out);
					strbuf_addch(out, '\n');
					if (sink && out->len >= RENDER_FLUSH_BYTES) {
						rc = sink->flush(sink->ctx, out, err);
						if (rc)
							goto done;
					}
				}
			}
		}
	}
done:
	rnd_rows_release(&rows);
	strbuf_release(&f);
	return rc;
}
