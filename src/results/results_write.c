/*
 * Writing a results document as JSON (schema_version "1"). Keys come in a
 * fixed order, cJSON's formatted print lays them out, and a newline ends the
 * document, so the same document always gives the same bytes.
 *
 * Numbers are never handed to cJSON as doubles: cJSON 1.7.15 prints with
 * %1.15g and accepts it when strtod gives back a value within DBL_EPSILON,
 * so about 10% of random integers below 2^53 and 12% of random finite
 * doubles came back different when we tried 100000 of each. Every number is
 * formatted by results_format_double() and inserted as a raw value.
 */
#include "results/results.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "results/jsonw.h"
#include "results/results_internal.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

struct writer {
	struct err *err;
	int rc;
};

static void fail(struct writer *w, const char *key, const char *what)
{
	if (w->rc)
		return;
	w->rc = err_set(w->err, ERR_INTERNAL, "cannot write report: \"%s\" %s", key, what);
}

static cJSON *add(cJSON *obj, const char *key, cJSON *item)
{
	cJSON_AddItemToObject(obj, key, item);
	return item;
}

static cJSON *raw(const char *text)
{
	cJSON *item = cJSON_CreateRaw(text);

	if (!item)
		abort(); /* out of memory, as the allocation wrappers do */
	return item;
}

static cJSON *str_item(struct writer *w, const char *key, const char *s)
{
	if (!s)
		return cJSON_CreateNull();
	if (!results_utf8_valid(s)) {
		fail(w, key, "is not valid utf-8");
		return cJSON_CreateNull();
	}
	return cJSON_CreateString(s);
}

static void put_str(struct writer *w, cJSON *obj, const char *key, const char *s)
{
	add(obj, key, str_item(w, key, s));
}

static void put_bool(cJSON *obj, const char *key, bool b)
{
	add(obj, key, cJSON_CreateBool(b));
}

static void put_null(cJSON *obj, const char *key)
{
	add(obj, key, cJSON_CreateNull());
}

static cJSON *num_item(struct writer *w, const char *key, double v)
{
	char buf[64];

	if (results_format_double(v, buf, sizeof(buf)) < 0) {
		fail(w, key, "is not a finite number");
		return cJSON_CreateNull();
	}
	return raw(buf);
}

static void put_num(struct writer *w, cJSON *obj, const char *key, double v)
{
	add(obj, key, num_item(w, key, v));
}

static void put_opt_num(struct writer *w, cJSON *obj, const char *key, bool has, double v)
{
	if (has)
		put_num(w, obj, key, v);
	else
		put_null(obj, key);
}

static void put_uint(struct writer *w, cJSON *obj, const char *key, uint64_t v)
{
	char buf[32];

	if (v > (uint64_t)RESULTS_MAX_INTEGER) {
		fail(w, key, "is 2^53 or larger");
		put_null(obj, key);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	add(obj, key, raw(buf));
}

static void put_int(cJSON *obj, const char *key, int v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", v);
	add(obj, key, raw(buf));
}

static void put_time(struct writer *w, cJSON *obj, const char *key, int64_t unix_ns)
{
	char buf[64];

	if (results_format_time(unix_ns, buf, sizeof(buf)) < 0) {
		fail(w, key, "is not a time gmtime_r can convert");
		put_null(obj, key);
		return;
	}
	put_str(w, obj, key, buf);
}

/* The object at key, or NULL after writing null there when it is absent. */
static cJSON *object_or_null(cJSON *obj, const char *key, bool present)
{
	if (!present) {
		put_null(obj, key);
		return NULL;
	}
	return add(obj, key, cJSON_CreateObject());
}

static void put_error(struct writer *w, cJSON *obj, const struct results_error *e)
{
	cJSON *o;

	o = object_or_null(obj, "error", e->present);
	if (!o)
		return;
	put_str(w, o, "kind", results_error_kind_name(e->kind));
	put_str(w, o, "message", e->message);
	if (e->has_exit_code)
		put_int(o, "exit_code", e->exit_code);
	else
		put_null(o, "exit_code");
	if (e->stderr_tail && strlen(e->stderr_tail) > RESULTS_MAX_STDERR_BYTES)
		fail(w, "stderr", "is longer than 2048 bytes");
	put_str(w, o, "stderr", e->stderr_tail);
	put_str(w, o, "metric", e->has_metric ? metric_info(e->metric)->name : NULL);
}

static void put_environment(struct writer *w, cJSON *root, const struct results_environment *e)
{
	cJSON *o = add(root, "environment", cJSON_CreateObject());
	cJSON *tools;
	size_t i;

	put_str(w, o, "os", e->os);
	put_str(w, o, "arch", e->arch);
	put_str(w, o, "kernel", e->kernel);
	put_str(w, o, "cpu_model", e->cpu_model);
	put_uint(w, o, "logical_cpus", e->logical_cpus);
	put_str(w, o, "compiler", e->compiler);
	put_str(w, o, "libc", e->libc);
	put_str(w, o, "ci", e->ci);
	tools = add(o, "tools", cJSON_CreateArray());
	for (i = 0; i < e->n_tools; i++) {
		cJSON *t = cJSON_CreateObject();
		cJSON_AddItemToArray(tools, t);
		put_str(w, t, "name", e->tools[i].name);
		put_str(w, t, "version", e->tools[i].version);
	}
}

static void put_git(struct writer *w, cJSON *root, const struct results_git *g)
{
	cJSON *o;

	o = object_or_null(root, "git", g->present);
	if (!o)
		return;
	put_str(w, o, "head_sha", g->head_sha);
	put_bool(o, "dirty", g->dirty);
	put_str(w, o, "base_ref", g->base_ref);
	put_str(w, o, "base_sha", g->base_sha);
	put_str(w, o, "base_source", g->base_source);
	if (g->status_sha) /* absent outside `ci`: older documents stay byte for byte */
		put_str(w, o, "status_sha", g->status_sha);
}

static void put_noise(struct writer *w, cJSON *root, const struct results_noise *n)
{
	cJSON *o = add(root, "noise", cJSON_CreateObject());

	if (n->has_load_average) {
		cJSON *l = add(o, "load_average", cJSON_CreateObject());
		put_num(w, l, "1m", n->load_average_1m);
		put_num(w, l, "5m", n->load_average_5m);
		put_num(w, l, "15m", n->load_average_15m);
	} else {
		put_null(o, "load_average");
	}
	put_opt_num(w, o, "steal_percent", n->has_steal, n->steal_percent);
	put_str(w, o, "governor", n->governor);
	put_bool(o, "noisy", n->noisy);
	put_str(w, o, "reason", n->reason);
}

static void put_stats(struct writer *w, cJSON *obj, const struct results_metric *m)
{
	const struct stats_summary *s = &m->stats;
	cJSON *o, *ps;
	size_t i;

	if (!m->has_stats) {
		put_null(obj, "stats");
		return;
	}
	o = add(obj, "stats", cJSON_CreateObject());
	put_uint(w, o, "count", s->count);
	put_num(w, o, "min", s->min);
	put_num(w, o, "max", s->max);
	put_num(w, o, "mean", s->mean);
	put_num(w, o, "median", s->median);
	put_num(w, o, "stddev", s->stddev);
	put_num(w, o, "cv", s->cv);
	put_num(w, o, "robust_cv", s->robust_cv);
	ps = add(o, "percentiles", cJSON_CreateArray());
	for (i = 0; i < s->n_percentiles; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddItemToArray(ps, p);
		put_num(w, p, "p", s->percentiles[i].p);
		put_num(w, p, "value", s->percentiles[i].value);
	}
}

static bool whole_units(const struct results_metric *m)
{
	enum metric_unit u = metric_info(m->metric)->unit;

	/* a harness's time per iteration may be a fraction of a ns */
	if (m->source == RESULTS_SOURCE_HARNESS)
		return false;
	return u == UNIT_NS || u == UNIT_BYTES || u == UNIT_COUNT;
}

/*
 * The samples array is one raw item holding its text, laid out as cJSON's
 * formatted print lays out an array ("[1, 2, 3]" on one line at any depth):
 * one string instead of one cJSON node and one string per run keeps the
 * report's memory near the size of its text (docs/performance.md).
 */
static void put_samples(struct writer *w, cJSON *obj, const struct results_metric *m)
{
	struct strbuf sb;
	char buf[64];
	size_t i;

	strbuf_init(&sb, 0);
	strbuf_addch(&sb, '[');
	for (i = 0; i < m->n_samples; i++) {
		double v = m->samples[i];
		if (whole_units(m) && !(v >= 0 && !signbit(v) && v <= RESULTS_MAX_INTEGER &&
					v == (double)(uint64_t)v))
			fail(w, "samples", "holds a value that is not a whole number below 2^53");
		if (i > 0)
			strbuf_adds(&sb, ", ");
		if (results_format_double(v, buf, sizeof(buf)) < 0) {
			fail(w, "samples", "is not a finite number");
			strbuf_adds(&sb, "null");
		} else {
			strbuf_adds(&sb, buf);
		}
	}
	strbuf_addch(&sb, ']');
	add(obj, "samples", raw(sb.buf));
	strbuf_release(&sb);
}

static void put_work(struct writer *w, cJSON *obj, const struct results_work *wk)
{
	cJSON *o;

	o = object_or_null(obj, "work", wk->present);
	if (!o)
		return;
	put_opt_num(w, o, "value", wk->has_value, wk->value);
	put_str(w, o, "file_size", wk->file_size);
	put_str(w, o, "unit", wk->unit);
	put_num(w, o, "measured_min", wk->measured_min);
	put_num(w, o, "measured_max", wk->measured_max);
}

static void put_trend(struct writer *w, cJSON *obj, const struct results_trend *t)
{
	cJSON *o;

	o = object_or_null(obj, "trend", t->present);
	if (!o)
		return;
	put_num(w, o, "slope", t->slope);
	put_num(w, o, "slope_low", t->slope_low);
	put_num(w, o, "slope_high", t->slope_high);
	put_num(w, o, "confidence", RESULTS_TREND_CONFIDENCE);
	put_num(w, o, "min_detectable_slope", t->min_detectable_slope);
	put_bool(o, "growing", t->growing);
}

static void put_metric(struct writer *w, cJSON *metrics, const struct results_metric *m)
{
	const struct metric_info *info = metric_info(m->metric);
	cJSON *o = add(metrics, info->name, cJSON_CreateObject());

	put_str(w, o, "name", info->name);
	put_str(w, o, "group", results_group_name(info->group));
	put_str(w, o, "unit", metric_unit_name(info->unit));
	put_str(w, o, "better", better_name(info->better));
	put_str(w, o, "scope", results_scope_name(info->scope));
	put_str(w, o, "source", results_source_name(m->source));
	put_str(w, o, "process_aggregation", results_aggregation_name(m->process_aggregation));
	put_str(w, o, "status", metric_status_name(m->status));
	put_str(w, o, "reason", m->reason);
	put_stats(w, o, m);
	put_samples(w, o, m);
	put_work(w, o, &m->work);
	if (m->has_floor) {
		put_uint(w, o, "floor", m->floor_bytes);
		put_uint(w, o, "samples_at_floor", m->samples_at_floor);
	} else {
		put_null(o, "floor");
		put_null(o, "samples_at_floor");
	}
	put_trend(w, o, &m->trend);
	/* the counts' own fields: an artifact's sections, how a run was counted */
	if (m->metric == METRIC_ARTIFACT_SIZE) {
		cJSON *e = object_or_null(o, "elf", m->has_elf);
		if (e) {
			put_uint(w, e, "text", m->elf_text);
			put_uint(w, e, "data", m->elf_data);
			put_uint(w, e, "bss", m->elf_bss);
		}
	} else if (info->counted) {
		cJSON *e = object_or_null(o, "counter", m->counter_backend != NULL);
		if (e) {
			put_str(w, e, "backend", m->counter_backend);
			put_str(w, e, "version", m->counter_version);
			put_str(w, e, "event", m->counter_event);
		}
	}
}

/* A number array as put_samples writes one: one raw item. */
static void put_doubles(struct writer *w, cJSON *parent, const char *key, const double *v, size_t n)
{
	struct strbuf sb;
	char buf[64];
	size_t i;

	strbuf_init(&sb, 0);
	strbuf_addch(&sb, '[');
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_adds(&sb, ", ");
		if (results_format_double(v[i], buf, sizeof(buf)) < 0) {
			fail(w, key, "is not a finite number");
			strbuf_adds(&sb, "null");
		} else {
			strbuf_adds(&sb, buf);
		}
	}
	strbuf_addch(&sb, ']');
	if (key)
		add(parent, key, raw(sb.buf));
	else
		cJSON_AddItemToArray(parent, raw(sb.buf));
	strbuf_release(&sb);
}

/* "harness_metrics" of a harness benchmark's side (absent elsewhere):
 * [{name, unit, better, values: one per run, raw: [[the run's], ...]}]. */
static void put_harness_metrics(struct writer *w, cJSON *side, const struct results_side *s)
{
	cJSON *arr;
	size_t i, r, at;

	if (!s->n_harness_metrics)
		return;
	arr = add(side, "harness_metrics", cJSON_CreateArray());
	for (i = 0; i < s->n_harness_metrics; i++) {
		const struct results_harness_metric *hm = &s->harness_metrics[i];
		cJSON *o = cJSON_CreateObject(), *rawv;
		cJSON_AddItemToArray(arr, o);
		put_str(w, o, "name", hm->name);
		put_str(w, o, "unit", hm->unit);
		put_str(w, o, "better", better_name(hm->better));
		put_doubles(w, o, "values", hm->values, hm->n_values);
		rawv = add(o, "raw", cJSON_CreateArray());
		for (r = 0, at = 0; r < hm->n_values; at += hm->raw_counts[r++])
			put_doubles(w, rawv, NULL, hm->raw + at, hm->raw_counts[r]);
	}
}

/* A duet side's run starts or ends: whole ns, one raw item as the samples. */
static void put_times(struct writer *w, cJSON *obj, const char *key, const uint64_t *v, size_t n)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb, 0);
	strbuf_addch(&sb, '[');
	for (i = 0; i < n; i++) {
		if (v[i] > (uint64_t)RESULTS_MAX_INTEGER)
			fail(w, key, "holds a value of 2^53 or larger");
		strbuf_addf(&sb, "%s%" PRIu64, i ? ", " : "", v[i]);
	}
	strbuf_addch(&sb, ']');
	add(obj, key, raw(sb.buf));
	strbuf_release(&sb);
}

static void put_side(struct writer *w, cJSON *obj, const char *key, const struct results_side *s)
{
	cJSON *o, *metrics;
	int m;

	o = object_or_null(obj, key, s->present);
	if (!o)
		return;
	put_uint(w, o, "count", s->count);
	put_uint(w, o, "warmups", s->warmups);
	put_str(w, o, "plan", results_plan_name(s->plan));
	metrics = add(o, "metrics", cJSON_CreateObject());
	/* A count is written only when a suite asked for it, so that documents
	 * of suites that do not ask stay as they were. */
	for (m = 0; m < METRIC__COUNT; m++)
		if (!metric_info((enum metric)m)->counted ||
		    s->metrics[m].status != STATUS_NOT_REQUESTED)
			put_metric(w, metrics, &s->metrics[m]);
	put_error(w, o, &s->error);
	put_harness_metrics(w, o, s);
	if (s->n_times) {
		put_times(w, o, "run_start_ns", s->run_start_ns, s->n_times);
		put_times(w, o, "run_end_ns", s->run_end_ns, s->n_times);
	}
}

static void put_comparison(struct writer *w, cJSON *obj, const struct comparison *c)
{
	const struct metric_info *info = metric_info(c->metric);
	cJSON *o = add(obj, info->name, cJSON_CreateObject());

	put_str(w, o, "metric", info->name);
	put_str(w, o, "derived_from", c->derived ? "latency" : NULL);
	put_str(w, o, "statistic", c->counts ? "median_ratio" : "hodges_lehmann_ratio");
	put_str(w, o, "side_statistic", side_statistic_name(c->statistic_shown));
	put_str(w, o, "unit", metric_unit_name(info->unit));
	put_str(w, o, "better", better_name(info->better));
	put_num(w, o, "base", c->base);
	put_num(w, o, "head", c->head);
	put_num(w, o, "difference", c->head - c->base);
	put_opt_num(w, o, "change_percent", c->has_estimate, c->change_percent);
	put_opt_num(w, o, "ci_low_percent", c->has_estimate, c->ci_low_percent);
	put_opt_num(w, o, "ci_high_percent", c->has_estimate, c->ci_high_percent);
	put_num(w, o, "confidence", c->confidence);
	put_uint(w, o, "looks_planned", c->looks_planned);
	put_uint(w, o, "looks_used", c->looks_used);
	put_uint(w, o, "pairs", c->pairs);
	/* max_percent in percent, as the suite writes it (docs/comparison.md);
	 * max_fraction, the same tolerance as a fraction, stays for readers of
	 * earlier documents. */
	put_num(w, o, "max_percent", jsonw_percent(c->max_fraction));
	put_num(w, o, "max_fraction", c->max_fraction);
	put_opt_num(w, o, "min_difference", c->has_min_difference, c->min_difference);
	put_opt_num(w, o, "band_low_percent", !c->band_low_infinite, c->band_low_percent);
	put_num(w, o, "band_high_percent", c->band_high_percent);
	put_str(w, o, "verdict", verdict_name(c->verdict));
	if (!memchr(c->reason, 0, sizeof(c->reason)))
		fail(w, "reason", "is not terminated");
	else
		put_str(w, o, "reason", c->reason);
	put_bool(o, "gate", c->gate);
	put_bool(o, "accepted", c->accepted);
	if (c->counts)
		put_num(w, o, "spread_percent", c->spread_percent);
	put_bool(o, "noisy", c->noisy);
	put_opt_num(w, o, "detectable_high_percent", c->has_detectable_high,
		    c->detectable_high_percent);
	put_opt_num(w, o, "detectable_low_percent", c->has_detectable_low,
		    c->detectable_low_percent);
	if (c->pairs_to_decide)
		put_uint(w, o, "pairs_to_decide", c->pairs_to_decide);
	else
		put_null(o, "pairs_to_decide");
	put_bool(o, "pairs_to_decide_beyond", c->pairs_to_decide_beyond);
	if (c->runs_fixed)
		put_bool(o, "runs_fixed", true);
}

static void put_budget(struct writer *w, cJSON *arr, const struct results_budget *b)
{
	const struct budget_result *r = &b->result;
	cJSON *o = cJSON_CreateObject();
	char agg[64];

	cJSON_AddItemToArray(arr, o);
	put_str(w, o, "metric", metric_info(r->metric)->name);
	if (!aggregation_name(&r->aggregation, agg, sizeof(agg))) {
		fail(w, "aggregation", "is not a percentile between 0 and 100");
		put_null(o, "aggregation");
	} else {
		put_str(w, o, "aggregation", agg);
	}
	put_str(w, o, "operator", bound_op_name(r->op));
	put_num(w, o, "limit", r->limit);
	put_opt_num(w, o, "actual", r->has_actual, r->actual);
	put_str(w, o, "unit", metric_unit_name(metric_info(r->metric)->unit));
	put_str(w, o, "status", budget_status_name(r->status));
	put_bool(o, "pass", r->status == BUDGET_PASS);
	if (!memchr(r->reason, 0, sizeof(r->reason)))
		fail(w, "reason", "is not terminated");
	else
		put_str(w, o, "reason", r->reason);
	put_str(w, o, "text", b->text);
}

static void put_command(struct writer *w, enum results_mode mode, cJSON *arr,
			const struct results_command *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *rel, *budgets;
	size_t i;

	cJSON_AddItemToArray(arr, o);
	put_str(w, o, "name", c->name);
	put_str(w, o, "command", c->command);
	if (c->harness.format) {
		cJSON *h = add(o, "harness", cJSON_CreateObject());
		put_str(w, h, "format", c->harness.format);
		put_str(w, h, "command", c->harness.command);
		put_str(w, h, "benchmark", c->harness.benchmark);
		if (c->harness.n_select || c->harness.filter) {
			cJSON *sel = add(h, "selection", cJSON_CreateObject());
			cJSON *f = add(sel, "filters", cJSON_CreateArray());
			cJSON *a = add(sel, "args", cJSON_CreateArray());
			for (i = 0; i < c->harness.n_select; i++)
				cJSON_AddItemToArray(f,
						     str_item(w, "filters", c->harness.select[i]));
			for (i = 0; i < c->harness.n_args; i++)
				cJSON_AddItemToArray(a, str_item(w, "args", c->harness.args[i]));
			put_bool(sel, "filtered_after", c->harness.filtered_after);
			if (c->harness.filter)
				put_str(w, sel, "filter", c->harness.filter);
		}
	}
	put_str(w, o, "result", result_state_name(c->result));
	put_side(w, o, "head", &c->head);
	put_side(w, o, "base", &c->base);
	rel = add(o, "relative", cJSON_CreateObject());
	put_opt_num(w, rel, "vs_baseline", c->has_vs_baseline, c->vs_baseline);
	put_opt_num(w, rel, "vs_fastest", c->has_vs_fastest, c->vs_fastest);
	if (mode == RESULTS_MODE_RUN) {
		if (c->n_comparisons)
			fail(w, "comparisons", "are only written in compare and sweep modes");
		put_null(o, "comparisons");
	} else {
		cJSON *cmps = add(o, "comparisons", cJSON_CreateObject());
		for (i = 0; i < c->n_comparisons; i++)
			put_comparison(w, cmps, &c->comparisons[i]);
	}
	budgets = add(o, "budgets", cJSON_CreateArray());
	for (i = 0; i < c->n_budgets; i++)
		put_budget(w, budgets, &c->budgets[i]);
	if (c->line)
		put_uint(w, o, "line", c->line);
}

/* "case": the benchmark as written, the values, the size (cases only). */
static void put_case(struct writer *w, cJSON *obj, const struct results_benchmark *b)
{
	cJSON *o, *params;
	size_t i;

	if (!b->base_name)
		return;
	o = add(obj, "case", cJSON_CreateObject());
	put_str(w, o, "benchmark", b->base_name);
	params = add(o, "parameters", cJSON_CreateObject());
	for (i = 0; i < b->n_params; i++)
		put_str(w, params, b->params[i].name, b->params[i].value);
	if (b->has_size) {
		put_num(w, o, "size", b->size);
		put_str(w, o, "long_run", results_long_run_name(b->long_run));
	}
}

static void put_fit(struct writer *w, cJSON *obj, const char *key, const struct results_fit *f)
{
	cJSON *o = object_or_null(obj, key, f->present);

	if (!o)
		return;
	put_num(w, o, "exponent", f->exponent);
	put_opt_num(w, o, "exponent_low", f->has_interval, f->exponent_low);
	put_opt_num(w, o, "exponent_high", f->has_interval, f->exponent_high);
	put_num(w, o, "coefficient", f->coefficient);
	put_opt_num(w, o, "constant", f->has_constant, f->constant);
	put_num(w, o, "r_squared", f->r_squared);
	put_uint(w, o, "sizes", f->sizes);
	put_uint(w, o, "runs", f->runs);
	put_str(w, o, "from", f->from);
	put_str(w, o, "to", f->to);
}

/* "budget" and "comparison" of a growth, or null. */
static void put_growth_verdicts(struct writer *w, cJSON *o, const struct results_growth *g)
{
	cJSON *b = object_or_null(o, "budget", g->has_budget);

	if (b) {
		put_str(w, b, "text", g->budget_text);
		put_str(w, b, "op", bound_op_name(g->budget_op));
		put_num(w, b, "limit", g->budget_limit);
		put_bool(b, "pass", g->budget_pass);
	}
	b = object_or_null(o, "comparison", g->compared);
	if (!b)
		return;
	put_num(w, b, "difference", g->difference);
	put_num(w, b, "difference_low", g->difference_low);
	put_num(w, b, "difference_high", g->difference_high);
	put_num(w, b, "max_difference", g->max_difference);
	put_str(w, b, "verdict", verdict_name(g->verdict));
}

/* "growth" of a suite with sizes, and "not_compared" of a comparison that
 * left cases out (absent otherwise). */
static void put_growth(struct writer *w, cJSON *obj, const struct results_suite *s)
{
	cJSON *arr;
	size_t i;

	if (s->n_not_compared) {
		arr = add(obj, "not_compared", cJSON_CreateArray());
		for (i = 0; i < s->n_not_compared; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddItemToArray(arr, o);
			put_str(w, o, "benchmark", s->not_compared[i].benchmark);
			put_str(w, o, "reason", s->not_compared[i].reason);
		}
	}
	if (!s->n_growth)
		return;
	arr = add(obj, "growth", cJSON_CreateArray());
	for (i = 0; i < s->n_growth; i++) {
		const struct results_growth *g = &s->growth[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, o);
		put_str(w, o, "benchmark", g->benchmark);
		put_str(w, o, "command", g->command);
		put_str(w, o, "metric", metric_info(g->metric)->name);
		put_fit(w, o, "head", &g->head);
		put_fit(w, o, "base", &g->base);
		put_growth_verdicts(w, o, g);
	}
}

static void put_benchmark(struct writer *w, enum results_mode mode, cJSON *arr,
			  const struct results_benchmark *b)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *tags, *cmds;
	size_t i;

	cJSON_AddItemToArray(arr, o);
	put_str(w, o, "name", b->name);
	put_case(w, o, b);
	put_str(w, o, "description", b->description);
	tags = add(o, "tags", cJSON_CreateArray());
	for (i = 0; i < b->n_tags; i++)
		cJSON_AddItemToArray(tags, str_item(w, "tags", b->tags[i]));
	put_str(w, o, "baseline", b->baseline);
	put_uint(w, o, "rounds", b->rounds);
	/* only duets: documents of interleaved runs stay as they were */
	if (b->schedule != SCHEDULE_INTERLEAVED)
		put_str(w, o, "schedule", schedule_name(b->schedule));
	if (b->time_budget_ran_out != RESULTS_TIME_BUDGET_NONE)
		put_str(w, o, "time_budget_ran_out",
			results_time_budget_name(b->time_budget_ran_out));
	put_str(w, o, "result", result_state_name(b->result));
	put_error(w, o, &b->error);
	cmds = add(o, "commands", cJSON_CreateArray());
	for (i = 0; i < b->n_commands; i++)
		put_command(w, mode, cmds, &b->commands[i]);
	if (b->line)
		put_uint(w, o, "line", b->line);
}

static void put_suite(struct writer *w, enum results_mode mode, cJSON *arr,
		      const struct results_suite *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *benches;
	size_t i;

	cJSON_AddItemToArray(arr, o);
	put_str(w, o, "name", s->name);
	put_str(w, o, "description", s->description);
	put_str(w, o, "file", s->file);
	put_str(w, o, "result", result_state_name(s->result));
	put_error(w, o, &s->error);
	put_bool(o, "new_in_head", s->new_in_head);
	if (mode != RESULTS_MODE_RUN)
		put_bool(o, "shared_artifact", s->shared_artifact);
	benches = add(o, "benchmarks", cJSON_CreateArray());
	for (i = 0; i < s->n_benchmarks; i++)
		put_benchmark(w, mode, benches, &s->benchmarks[i]);
	put_growth(w, o, s);
	if (s->has_geometric_mean) {
		cJSON *g = add(o, "geometric_mean", cJSON_CreateObject());
		cJSON *vals;
		put_str(w, g, "reference", s->geometric_mean_reference);
		put_uint(w, g, "cases", s->geometric_mean_cases);
		vals = add(g, "values", cJSON_CreateArray());
		for (i = 0; i < s->n_geometric_mean_values; i++) {
			cJSON *v = cJSON_CreateObject();
			cJSON_AddItemToArray(vals, v);
			put_str(w, v, "command", s->geometric_mean_values[i].command);
			put_num(w, v, "ratio", s->geometric_mean_values[i].ratio);
		}
	} else {
		put_null(o, "geometric_mean");
	}
	put_str(w, o, "geometric_mean_unavailable", s->geometric_mean_unavailable);
	if (s->commit.present) {
		cJSON *c = add(o, "commit", cJSON_CreateObject());
		put_str(w, c, "sha", s->commit.sha);
		put_str(w, c, "subject", s->commit.subject);
		put_time(w, c, "time", s->commit.time_unix_ns);
		put_uint(w, c, "index", s->commit.index);
		put_str(w, c, "suite_hash", s->commit.suite_hash);
	} else {
		put_null(o, "commit");
	}
	if (s->error_conclusion_neutral)
		put_str(w, o, "error_conclusion", "neutral");
}

static void put_sweep(struct writer *w, cJSON *root, const struct results_sweep *s)
{
	cJSON *o;

	o = object_or_null(root, "sweep", s->present);
	if (!o)
		return;
	put_str(w, o, "range", s->range);
	put_str(w, o, "reference", s->reference);
	put_str(w, o, "settings_hash", s->settings_hash);
	put_uint(w, o, "shard_index", s->shard_index);
	put_uint(w, o, "shard_count", s->shard_count);
	put_uint(w, o, "commits", s->commits);
}

/* Each schedule's half-width at the same pairs, or null with why not. */
static void put_calibration_schedules(struct writer *w, cJSON *e,
				      const struct results_calibration_row *row)
{
	bool both = row->schedule_pairs > 0;

	if (both)
		put_uint(w, e, "schedule_pairs", row->schedule_pairs);
	else
		put_null(e, "schedule_pairs");
	put_opt_num(w, e, "interleaved_half_width_percent", both,
		    row->interleaved_half_width_percent);
	put_opt_num(w, e, "duet_half_width_percent", both, row->duet_half_width_percent);
	put_str(w, e, "schedules_note", row->schedules_note);
}

static void put_calibration(struct writer *w, cJSON *root, const struct results_calibration *c)
{
	cJSON *o, *rows;
	size_t i;

	/* written only by calibrate: other documents stay as they were */
	if (!c->present)
		return;
	o = add(root, "calibration", cJSON_CreateObject());
	put_bool(o, "separate_builds", c->separate_builds);
	/* only when both schedules were measured: a calibration with
	 * --schedule is written as before */
	if (c->both_schedules) {
		put_bool(o, "both_schedules", true);
		put_str(w, o, "recommended_schedule", c->recommended_schedule);
		put_str(w, o, "duet_not_measured", c->duet_not_measured);
	}
	rows = add(o, "rows", cJSON_CreateArray());
	for (i = 0; i < c->n_rows; i++) {
		const struct results_calibration_row *row = &c->rows[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddItemToArray(rows, e);
		put_str(w, e, "benchmark", row->benchmark);
		put_str(w, e, "command", row->command);
		put_str(w, e, "metric", metric_info(row->metric)->name);
		put_uint(w, e, "max_pairs", row->max_pairs);
		put_opt_num(w, e, "detectable_percent", row->has_detectable,
			    row->detectable_percent);
		if (c->both_schedules)
			put_calibration_schedules(w, e, row);
	}
}

static void put_timings(struct writer *w, cJSON *root, const struct results_timings *t)
{
	cJSON *o;
	int p;

	/* written only by measuring sessions: other documents stay as they were */
	if (!t->present)
		return;
	o = add(root, "timings", cJSON_CreateObject());
	put_uint(w, o, "total_ns", t->total_ns);
	for (p = 0; p < RESULTS_PHASE__COUNT; p++) {
		char key[32];
		snprintf(key, sizeof(key), "%s_ns", results_phase_name((enum results_phase)p));
		put_uint(w, o, key, t->phase_ns[p]);
	}
}

static void put_summary(struct writer *w, cJSON *root, const struct results_summary *s)
{
	cJSON *o = add(root, "summary", cJSON_CreateObject());
	cJSON *ng;
	int i;

	put_uint(w, o, "suites", s->suites);
	put_uint(w, o, "benchmarks", s->benchmarks);
	put_uint(w, o, "commands", s->commands);
	for (i = 0; i < RESULTS_RESULT_STATES; i++)
		/* harness benchmarks' states, written where there are some so
		 * that a document without harnesses reads as it always has */
		if (s->results[i] || (i != RESULT_NEW && i != RESULT_REMOVED))
			put_uint(w, o, result_state_name((enum result_state)i), s->results[i]);
	put_uint(w, o, "accepted_regressions", s->accepted_regressions);
	put_bool(o, "fail_on_inconclusive", s->fail_on_inconclusive);
	put_int(o, "exit_code", s->exit_code);
	ng = add(o, "not_gated", cJSON_CreateObject());
	put_uint(w, ng, "pass", s->not_gated.pass);
	put_uint(w, ng, "improved", s->not_gated.improved);
	put_uint(w, ng, "inconclusive", s->not_gated.inconclusive);
	put_uint(w, ng, "regression", s->not_gated.regression);
	put_uint(w, o, "skipped", s->skipped);
	put_uint(w, o, "new_suites", s->new_suites);
	put_bool(o, "interrupted", s->interrupted);
}

int results_to_json(const struct results *r, char **out, size_t *len, struct err *err)
{
	struct writer w = { .err = err, .rc = 0 };
	cJSON *root = cJSON_CreateObject();
	cJSON *suites;
	char *text = NULL;
	size_t i, n;

	*out = NULL;
	put_str(&w, root, "schema_version", RESULTS_SCHEMA_VERSION);
	put_str(&w, root, "mode", results_mode_name(r->mode));
	put_str(&w, root, "himorime_version", r->himorime_version);
	put_uint(&w, root, "seed", r->seed);
	put_time(&w, root, "started_at", r->started_at_unix_ns);
	put_time(&w, root, "finished_at", r->finished_at_unix_ns);
	put_environment(&w, root, &r->environment);
	put_git(&w, root, &r->git);
	put_noise(&w, root, &r->noise);
	if (r->max_total_time_ns)
		put_uint(&w, root, "max_total_time_ns", r->max_total_time_ns);
	suites = add(root, "suites", cJSON_CreateArray());
	for (i = 0; i < r->n_suites; i++)
		put_suite(&w, r->mode, suites, &r->suites[i]);
	put_summary(&w, root, &r->summary);
	put_sweep(&w, root, &r->sweep);
	put_calibration(&w, root, &r->calibration);
	put_timings(&w, root, &r->timings);
	if (w.rc)
		goto done;
	text = cJSON_Print(root);
	if (!text)
		abort(); /* out of memory */
	cJSON_Delete(root);
	root = NULL;
	/* cJSON allocates with malloc (no hooks are set): grow its text in place
	 * rather than hold a second copy of the whole document. */
	n = strlen(text);
	*out = xrealloc(text, n + 2);
	text = NULL;
	(*out)[n] = '\n';
	(*out)[n + 1] = 0;
	if (len)
		*len = n + 1;
done:
	free(text);
	cJSON_Delete(root);
	return w.rc;
}

int results_write_file(const struct results *r, const char *path, struct err *err)
{
	char *text;
	size_t len;
	int rc = results_to_json(r, &text, &len, err);

	if (rc)
		return rc;
	rc = fsio_write_atomic(path, text, len, err);
	free(text);
	return rc;
}
