/*
 * Reading a results document back from JSON. The input is untrusted: it is
 * bounded (size, nesting, string lengths, array lengths), scanned before
 * cJSON sees it (UTF-8, NUL bytes, strict number syntax, a byte order mark),
 * checked for duplicate keys (cJSON keeps both), and then read field by field
 * into the typed structs. Every error names the JSON path of the bad value:
 *
 *   report.json: $.suites[0].benchmarks[1].commands[0].head.metrics.latency.samples[3]:
 *   expected a finite number, got "x"
 *
 * Forward compatibility within schema version 1: unknown fields (and unknown
 * metric names as keys of "metrics" and "comparisons") are ignored; missing
 * fields take their defaults (null, false, 0, empty, not_requested), since
 * version 1 only ever gains fields. Only schema_version and mode are
 * required.
 */
#include "results/results.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "results/json.h"
#include "results/reader.h"
#include "results/results_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

static int read_error(struct reader *rd, const cJSON *obj, struct results_error *e)
{
	const cJSON *o;
	size_t old;
	int kind = 0;
	int rc;

	if ((rc = reader_enter_object(rd, obj, "error", &o, &old)) <= 0)
		return rc;
	e->present = true;
	if (!reader_field(o, "kind")) {
		rc = reader_bad(rd, "missing \"kind\"");
		goto done;
	}
	{
		size_t n;
		const char *const *names = results_names(NAMES_ERROR_KIND, &n);
		rc = reader_get_name(rd, o, "kind", names, n, &kind);
	}
	e->kind = (enum results_error_kind)kind;
	rc = rc || reader_get_str(rd, o, "message", &e->message) ||
	     reader_get_int(rd, o, "exit_code", &e->has_exit_code, &e->exit_code) ||
	     reader_get_str_max(rd, o, "stderr", RESULTS_MAX_STDERR_BYTES, &e->stderr_tail);
	if (!rc && reader_field(o, "metric")) {
		e->has_metric = true;
		rc = reader_get_metric_name(rd, o, "metric", &e->metric);
	}
done:
	reader_pop(rd, old);
	return rc;
}

static int read_stats(struct reader *rd, const cJSON *mo, struct results_metric *m)
{
	struct stats_summary *s = &m->stats;
	const cJSON *o, *ps = NULL, *p;
	uint64_t count = 0;
	size_t old, n, i = 0;
	int rc;

	if ((rc = reader_enter_object(rd, mo, "stats", &o, &old)) <= 0)
		return rc;
	m->has_stats = true;
	rc = reader_get_uint(rd, o, "count", &count) || reader_get_num(rd, o, "min", &s->min) ||
	     reader_get_num(rd, o, "max", &s->max) || reader_get_num(rd, o, "mean", &s->mean) ||
	     reader_get_num(rd, o, "median", &s->median) ||
	     reader_get_num(rd, o, "stddev", &s->stddev) || reader_get_num(rd, o, "cv", &s->cv) ||
	     reader_get_num(rd, o, "robust_cv", &s->robust_cv) ||
	     reader_get_array(rd, o, "percentiles", 1000, &ps, &n);
	s->count = (size_t)count;
	if (!rc && n)
		s->percentiles = xcalloc(n, sizeof(*s->percentiles));
	for (p = ps ? ps->child : NULL; !rc && p; p = p->next, i++) {
		size_t o2 = reader_push_key(rd, "percentiles");
		size_t o3 = reader_push_index(rd, i);
		if (!cJSON_IsObject(p))
			rc = reader_expected(rd, "an object", p);
		else
			rc = reader_get_num(rd, p, "p", &s->percentiles[i].p) ||
			     reader_get_num(rd, p, "value", &s->percentiles[i].value);
		s->n_percentiles = i + 1;
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	reader_pop(rd, old);
	return rc;
}

/* source: the metric's, read before (a harness's ns need not be whole). */
static int read_samples(struct reader *rd, const cJSON *mo, int source, struct results_metric *m)
{
	enum metric_unit unit = metric_info(m->metric)->unit;
	bool whole = (unit == UNIT_NS || unit == UNIT_BYTES || unit == UNIT_COUNT) &&
		     source != RESULTS_SOURCE_HARNESS;
	const cJSON *a, *v;
	size_t old, n, i = 0;
	int rc = reader_get_array(rd, mo, "samples", RESULTS_MAX_SAMPLES, &a, &n);

	if (rc || !n)
		return rc;
	old = reader_push_key(rd, "samples");
	m->samples = xcalloc(n, sizeof(double));
	m->alloc_samples = n;
	for (v = a->child; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_index(rd, i);
		uint64_t u;
		if (whole && !(rc = reader_uint_value(rd, v, RESULTS_MAX_INTEGER, &u)))
			m->samples[i] = (double)u;
		else if (!whole)
			rc = reader_num_value(rd, v, &m->samples[i]);
		reader_pop(rd, o2);
	}
	m->n_samples = i;
	reader_pop(rd, old);
	return rc;
}

static int read_work(struct reader *rd, const cJSON *mo, struct results_work *w)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, mo, "work", &o, &old)) <= 0)
		return rc;
	w->present = true;
	rc = reader_get_opt_num(rd, o, "value", &w->has_value, &w->value) ||
	     reader_get_str(rd, o, "file_size", &w->file_size) ||
	     reader_get_str(rd, o, "unit", &w->unit) ||
	     reader_get_num(rd, o, "measured_min", &w->measured_min) ||
	     reader_get_num(rd, o, "measured_max", &w->measured_max);
	reader_pop(rd, old);
	return rc;
}

/* Absent in documents written before drift was measured. */
static int read_trend(struct reader *rd, const cJSON *mo, struct results_trend *t)
{
	const cJSON *o;
	double confidence = RESULTS_TREND_CONFIDENCE;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, mo, "trend", &o, &old)) <= 0)
		return rc;
	t->present = true;
	rc = reader_get_num(rd, o, "slope", &t->slope) ||
	     reader_get_num(rd, o, "slope_low", &t->slope_low) ||
	     reader_get_num(rd, o, "slope_high", &t->slope_high) ||
	     reader_get_num(rd, o, "confidence", &confidence) ||
	     reader_get_num(rd, o, "min_detectable_slope", &t->min_detectable_slope) ||
	     reader_get_bool(rd, o, "growing", &t->growing);
	if (!rc && confidence != RESULTS_TREND_CONFIDENCE) {
		size_t k = reader_push_key(rd, "confidence");
		rc = reader_expected(rd, "0.99", reader_field(o, "confidence"));
		reader_pop(rd, k);
	}
	reader_pop(rd, old);
	return rc;
}

/* artifact_size: text, data and bss of an ELF artifact, or null. */
static int read_elf(struct reader *rd, const cJSON *mo, struct results_metric *m)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, mo, "elf", &o, &old)) <= 0)
		return rc;
	m->has_elf = true;
	rc = reader_get_uint(rd, o, "text", &m->elf_text) ||
	     reader_get_uint(rd, o, "data", &m->elf_data) ||
	     reader_get_uint(rd, o, "bss", &m->elf_bss);
	reader_pop(rd, old);
	return rc;
}

/* instructions: the backend that counted them, or null. */
static int read_counter(struct reader *rd, const cJSON *mo, struct results_metric *m)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, mo, "counter", &o, &old)) <= 0)
		return rc;
	rc = reader_get_str(rd, o, "backend", &m->counter_backend) ||
	     reader_get_str(rd, o, "version", &m->counter_version) ||
	     reader_get_str(rd, o, "event", &m->counter_event);
	if (!rc && !m->counter_backend)
		rc = reader_bad(rd, "missing \"backend\"");
	reader_pop(rd, old);
	return rc;
}

static int read_metric(struct reader *rd, const cJSON *o, struct results_metric *m)
{
	const struct metric_info *info = metric_info(m->metric);
	const char *statuses[STATUS_FAILED + 1];
	size_t ns, na;
	const char *const *sources = results_names(NAMES_SOURCE, &ns);
	const char *const *aggs = results_names(NAMES_AGGREGATION, &na);
	int source = (int)m->source, agg = (int)m->process_aggregation, status = (int)m->status;
	int rc;

	for (int i = 0; i <= STATUS_FAILED; i++)
		statuses[i] = metric_status_name((enum metric_status)i);
	if (!cJSON_IsObject(o))
		return reader_expected(rd, "an object", o);
	rc = reader_check_const(rd, o, "name", info->name) ||
	     reader_check_const(rd, o, "group", results_group_name(info->group)) ||
	     reader_check_const(rd, o, "unit", metric_unit_name(info->unit)) ||
	     reader_check_const(rd, o, "better", better_name(info->better)) ||
	     reader_check_const(rd, o, "scope", results_scope_name(info->scope)) ||
	     reader_get_name(rd, o, "source", sources, ns, &source) ||
	     reader_get_name(rd, o, "process_aggregation", aggs, na, &agg) ||
	     reader_get_name(rd, o, "status", statuses, ARRAY_SIZE(statuses), &status) ||
	     reader_get_str(rd, o, "reason", &m->reason) || read_stats(rd, o, m) ||
	     read_samples(rd, o, source, m) || read_work(rd, o, &m->work);
	m->source = (enum results_source)source;
	m->process_aggregation = (enum results_aggregation)agg;
	m->status = (enum metric_status)status;
	if (!rc && reader_field(o, "floor")) {
		m->has_floor = true;
		rc = reader_get_uint(rd, o, "floor", &m->floor_bytes) ||
		     reader_get_uint(rd, o, "samples_at_floor", &m->samples_at_floor);
	}
	return rc || read_trend(rd, o, &m->trend) || read_elf(rd, o, m) || read_counter(rd, o, m);
}

/* A number array at key of o (or o itself when key is NULL) into a heap
 * array. */
static int read_doubles(struct reader *rd, const cJSON *o, const char *key, double **out, size_t *n)
{
	const cJSON *a = o, *v;
	size_t count, i = 0, old = 0;
	int rc = 0;

	if (key)
		rc = reader_get_array(rd, o, key, RESULTS_MAX_SAMPLES, &a, &count);
	else if (!cJSON_IsArray(o))
		return reader_expected(rd, "an array", o);
	if (rc || !a)
		return rc;
	if (key)
		old = reader_push_key(rd, key);
	*n = (size_t)cJSON_GetArraySize(a);
	*out = xcalloc(*n ? *n : 1, sizeof(double));
	for (v = a->child; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_index(rd, i);
		rc = reader_num_value(rd, v, &(*out)[i]);
		reader_pop(rd, o2);
	}
	if (key)
		reader_pop(rd, old);
	return rc;
}

static int read_harness_metric(struct reader *rd, const cJSON *o, struct results_side *s)
{
	static const char *const betters[] = { "lower", "higher", "neutral" };
	char *name = NULL, *unit = NULL;
	double *values = NULL, *run = NULL;
	size_t n = 0, nr = 0, i = 0, old;
	const cJSON *runs = NULL, *v;
	int better = 0;
	int rc = reader_get_str(rd, o, "name", &name) || reader_get_str(rd, o, "unit", &unit) ||
		 reader_get_name(rd, o, "better", betters, 3, &better) ||
		 read_doubles(rd, o, "values", &values, &n) ||
		 reader_get_array(rd, o, "raw", RESULTS_MAX_SAMPLES, &runs, &nr);

	if (!rc && (!name || !unit || nr != n))
		rc = reader_expected(rd, "name, unit and a raw array per value", o);
	old = reader_push_key(rd, "raw");
	for (v = runs ? runs->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_index(rd, i), k = 0;
		rc = read_doubles(rd, v, NULL, &run, &k);
		if (!rc)
			results_add_harness_value(s, name, unit, (enum better)better, values[i],
						  run, k);
		free(run);
		run = NULL;
		reader_pop(rd, o2);
	}
	reader_pop(rd, old);
	free(name);
	free(unit);
	free(values);
	return rc;
}

static int read_harness_metrics(struct reader *rd, const cJSON *o, struct results_side *s)
{
	const cJSON *a, *v;
	size_t n, i = 0, old;
	int rc = reader_get_array(rd, o, "harness_metrics", RESULTS_MAX_ITEMS, &a, &n);

	if (rc || !a)
		return rc;
	old = reader_push_key(rd, "harness_metrics");
	for (v = a->child; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_index(rd, i);
		rc = cJSON_IsObject(v) ? read_harness_metric(rd, v, s)
				       : reader_expected(rd, "an object", v);
		reader_pop(rd, o2);
	}
	reader_pop(rd, old);
	return rc;
}

/* One array of a duet side's run times (whole ns); *n its length. */
static int read_times(struct reader *rd, const cJSON *so, const char *key, uint64_t **out,
		      size_t *n)
{
	const cJSON *a, *v;
	size_t old, i = 0;
	int rc = reader_get_array(rd, so, key, RESULTS_MAX_SAMPLES, &a, n);

	if (rc || !*n)
		return rc;
	old = reader_push_key(rd, key);
	*out = xcalloc(*n, sizeof(uint64_t));
	for (v = a->child; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_index(rd, i);
		rc = reader_uint_value(rd, v, RESULTS_MAX_INTEGER, &(*out)[i]);
		reader_pop(rd, o2);
	}
	reader_pop(rd, old);
	return rc;
}

/* run_start_ns and run_end_ns: both or neither, one entry per run. */
static int read_run_times(struct reader *rd, const cJSON *so, struct results_side *s)
{
	size_t ns = 0, ne = 0;
	int rc = read_times(rd, so, "run_start_ns", &s->run_start_ns, &ns) ||
		 read_times(rd, so, "run_end_ns", &s->run_end_ns, &ne);

	s->alloc_start = ns;
	s->alloc_end = ne;
	s->n_times = ns < ne ? ns : ne;
	if (!rc && ns != ne)
		return reader_bad(rd,
				  "expected run_start_ns and run_end_ns of the same length, "
				  "got %zu and %zu",
				  ns, ne);
	return rc;
}

static int read_side(struct reader *rd, const cJSON *co, const char *key, struct results_side *s)
{
	const cJSON *o, *metrics = NULL;
	size_t old, np;
	const char *const *plans = results_names(NAMES_PLAN, &np);
	int plan = 0, m, rc;

	results_side_init(s);
	if (reader_get_object(rd, co, key, &o))
		return -1;
	if (!o)
		return 0;
	old = reader_push_key(rd, key);
	s->present = true;
	rc = reader_get_uint(rd, o, "count", &s->count) ||
	     reader_get_uint(rd, o, "warmups", &s->warmups) ||
	     reader_get_name(rd, o, "plan", plans, np, &plan) ||
	     reader_get_object(rd, o, "metrics", &metrics);
	s->plan = (enum results_plan)plan;
	for (m = 0; !rc && metrics && m < METRIC__COUNT; m++) {
		const char *name = metric_info((enum metric)m)->name;
		const cJSON *mo = reader_field(metrics, name);
		size_t o2, o3;
		if (!mo)
			continue;
		o2 = reader_push_key(rd, "metrics");
		o3 = reader_push_key(rd, name);
		rc = read_metric(rd, mo, &s->metrics[m]);
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	rc = rc || read_error(rd, o, &s->error) || read_harness_metrics(rd, o, s) ||
	     read_run_times(rd, o, s);
	reader_pop(rd, old);
	return rc;
}

/* max_percent repeats max_fraction in percent; documents written before it
 * existed have none. */
static int check_max_percent(struct reader *rd, const cJSON *o, double fraction)
{
	double percent;
	bool has;
	size_t old;
	int rc = reader_get_opt_num(rd, o, "max_percent", &has, &percent);

	if (rc || !has || fabs(percent - fraction * 100.0) <= 1e-9 * fmax(1.0, fabs(percent)))
		return rc;
	old = reader_push_key(rd, "max_percent");
	rc = reader_bad(rd, "expected %.17g (max_fraction in percent), got %.17g", fraction * 100.0,
			percent);
	reader_pop(rd, old);
	return rc;
}

/* What a comparison could see and whether the runner was noisy; documents
 * written before these fields existed have none of them. */
static int read_seen(struct reader *rd, const cJSON *o, struct comparison *c)
{
	return reader_get_bool(rd, o, "noisy", &c->noisy) ||
	       reader_get_opt_num(rd, o, "detectable_high_percent", &c->has_detectable_high,
				  &c->detectable_high_percent) ||
	       reader_get_opt_num(rd, o, "detectable_low_percent", &c->has_detectable_low,
				  &c->detectable_low_percent) ||
	       reader_get_unsigned(rd, o, "pairs_to_decide", &c->pairs_to_decide) ||
	       reader_get_bool(rd, o, "pairs_to_decide_beyond", &c->pairs_to_decide_beyond);
}

static int read_comparison(struct reader *rd, const cJSON *o, enum metric m, struct comparison *c)
{
	const struct metric_info *info = metric_info(m);
	const char *derived_names[1] = { "latency" };
	const char *kinds[2] = { "hodges_lehmann_ratio", "median_ratio" };
	int statistic = 0, verdict = 0, derived = -1, kind = 0;
	size_t n_statistics, n_verdicts;
	const char *const *statistics = vocab_names(VOCAB_SIDE_STATISTIC, &n_statistics);
	const char *const *verdicts = vocab_names(VOCAB_VERDICT, &n_verdicts);
	bool has;
	double difference;
	int rc;

	memset(c, 0, sizeof(*c));
	c->metric = m;
	c->band_low_infinite = true;
	if (!cJSON_IsObject(o))
		return reader_expected(rd, "an object", o);
	rc = reader_check_const(rd, o, "metric", info->name) ||
	     reader_get_name(rd, o, "derived_from", derived_names, 1, &derived) ||
	     reader_get_name(rd, o, "statistic", kinds, 2, &kind) ||
	     reader_get_name(rd, o, "side_statistic", statistics, n_statistics, &statistic) ||
	     reader_check_const(rd, o, "unit", metric_unit_name(info->unit)) ||
	     reader_check_const(rd, o, "better", better_name(info->better)) ||
	     reader_get_num(rd, o, "base", &c->base) || reader_get_num(rd, o, "head", &c->head) ||
	     reader_get_num(rd, o, "difference", &difference) ||
	     reader_get_opt_num(rd, o, "change_percent", &c->has_estimate, &c->change_percent) ||
	     reader_get_opt_num(rd, o, "ci_low_percent", &has, &c->ci_low_percent) ||
	     reader_get_opt_num(rd, o, "ci_high_percent", &has, &c->ci_high_percent) ||
	     reader_get_num(rd, o, "confidence", &c->confidence) ||
	     reader_get_unsigned(rd, o, "looks_planned", &c->looks_planned) ||
	     reader_get_unsigned(rd, o, "looks_used", &c->looks_used) ||
	     reader_get_unsigned(rd, o, "pairs", &c->pairs) ||
	     reader_get_num(rd, o, "max_fraction", &c->max_fraction) ||
	     check_max_percent(rd, o, c->max_fraction) ||
	     reader_get_opt_num(rd, o, "min_difference", &c->has_min_difference,
				&c->min_difference) ||
	     reader_get_opt_num(rd, o, "band_low_percent", &has, &c->band_low_percent) ||
	     reader_get_num(rd, o, "band_high_percent", &c->band_high_percent) ||
	     reader_get_name(rd, o, "verdict", verdicts, n_verdicts, &verdict) ||
	     reader_get_chars(rd, o, "reason", c->reason, sizeof(c->reason)) ||
	     reader_get_bool(rd, o, "gate", &c->gate) ||
	     reader_get_bool(rd, o, "accepted", &c->accepted) ||
	     reader_get_bool(rd, o, "runs_fixed", &c->runs_fixed);
	c->counts = kind == 1;
	if (!rc && c->counts)
		rc = reader_get_num(rd, o, "spread_percent", &c->spread_percent);
	rc = rc || read_seen(rd, o, c);
	c->band_low_infinite = !reader_field(o, "band_low_percent");
	c->derived = derived == 0;
	c->statistic_shown = (enum side_statistic)statistic;
	c->verdict = (enum verdict)verdict;
	if (!c->has_estimate) {
		c->ci_low_percent = 0;
		c->ci_high_percent = 0;
	}
	return rc;
}

static int read_comparisons(struct reader *rd, const cJSON *co, enum results_mode mode,
			    struct results_command *c)
{
	const cJSON *o;
	size_t old;
	int rc = 0;

	if ((rc = reader_enter_object(rd, co, "comparisons", &o, &old)) <= 0)
		return rc;
	rc = mode == RESULTS_MODE_RUN ? reader_bad(rd, "expected null in run mode, got an object")
				      : 0;
	/* In the document's order, so that a rewrite gives the same bytes. */
	for (const cJSON *v = o->child; !rc && v; v = v->next) {
		enum metric metric;
		struct comparison cmp;
		size_t o2;
		if (metric_from_name(v->string, &metric) < 0)
			continue; /* a metric of a later version */
		o2 = reader_push_key(rd, v->string);
		rc = read_comparison(rd, v, metric, &cmp);
		if (!rc)
			results_add_comparison(c, &cmp);
		reader_pop(rd, o2);
	}
	reader_pop(rd, old);
	return rc;
}

static int read_budget(struct reader *rd, const cJSON *o, struct results_budget *b)
{
	struct budget_result *r = &b->result;
	size_t n_ops, n_statuses;
	const char *const *ops = vocab_names(VOCAB_BOUND_OP, &n_ops);
	const char *const *statuses = vocab_names(VOCAB_BUDGET_STATUS, &n_statuses);
	int op = 0, status = 0;
	bool pass = false;
	int rc;

	if (!cJSON_IsObject(o))
		return reader_expected(rd, "an object", o);
	if (!reader_field(o, "metric"))
		return reader_bad(rd, "missing \"metric\"");
	rc = reader_get_metric_name(rd, o, "metric", &r->metric);
	if (!rc && reader_field(o, "aggregation")) {
		const cJSON *v = reader_field(o, "aggregation");
		size_t o2 = reader_push_key(rd, "aggregation");
		if (!cJSON_IsString(v) || aggregation_from_name(v->valuestring, &r->aggregation))
			rc = reader_expected(
				rd,
				"\"min\", \"max\", \"mean\", \"median\" or a percentile "
				"such as \"p95\"",
				v);
		reader_pop(rd, o2);
	}
	rc = rc || reader_get_name(rd, o, "operator", ops, n_ops, &op) ||
	     reader_get_num(rd, o, "limit", &r->limit) ||
	     reader_get_opt_num(rd, o, "actual", &r->has_actual, &r->actual) ||
	     reader_check_const(rd, o, "unit", metric_unit_name(metric_info(r->metric)->unit)) ||
	     reader_get_name(rd, o, "status", statuses, n_statuses, &status) ||
	     reader_get_bool(rd, o, "pass", &pass) ||
	     reader_get_chars(rd, o, "reason", r->reason, sizeof(r->reason)) ||
	     reader_get_str(rd, o, "text", &b->text);
	r->op = (enum bound_op)op;
	r->status = (enum budget_status)status;
	if (!rc && reader_field(o, "pass") && pass != (r->status == BUDGET_PASS)) {
		size_t o2 = reader_push_key(rd, "pass");
		rc = reader_bad(rd, "expected %s, as status says", pass ? "false" : "true");
		reader_pop(rd, o2);
	}
	return rc;
}

static int read_result(struct reader *rd, const cJSON *o, enum result_state *out)
{
	const char *names[RESULTS_RESULT_STATES];
	int v = (int)*out;

	for (int i = 0; i < RESULTS_RESULT_STATES; i++)
		names[i] = result_state_name((enum result_state)i);
	if (reader_get_name(rd, o, "result", names, RESULTS_RESULT_STATES, &v))
		return -1;
	*out = (enum result_state)v;
	return 0;
}

static int read_strings(struct reader *rd, const cJSON *o, const char *key, char ***v, size_t *n)
{
	const cJSON *a, *s;
	size_t count, i = 0, old;
	int rc = reader_get_array(rd, o, key, RESULTS_MAX_ITEMS, &a, &count);

	old = reader_push_key(rd, key);
	for (s = a ? a->child : NULL; !rc && s; s = s->next, i++) {
		size_t o2 = reader_push_index(rd, i);
		char *str = NULL;
		rc = reader_str_value(rd, s, RESULTS_MAX_STRING_BYTES, &str);
		if (!rc)
			results_add_string(v, n, str);
		free(str);
		reader_pop(rd, o2);
	}
	reader_pop(rd, old);
	return rc;
}

/* "selection" of a harness benchmark's row: absent when nothing was
 * selected. */
static int read_selection(struct reader *rd, const cJSON *h, struct results_harness *out)
{
	const cJSON *v;
	size_t old;
	int rc = reader_enter_object(rd, h, "selection", &v, &old);

	if (rc <= 0)
		return rc;
	rc = read_strings(rd, v, "filters", &out->select, &out->n_select) ||
	     read_strings(rd, v, "args", &out->args, &out->n_args) ||
	     reader_get_bool(rd, v, "filtered_after", &out->filtered_after) ||
	     reader_get_str(rd, v, "filter", &out->filter);
	reader_pop(rd, old);
	return rc ? -1 : 0;
}

/* "harness" of a harness benchmark's row: absent on a command's own. */
static int read_harness(struct reader *rd, const cJSON *o, struct results_harness *h)
{
	const cJSON *v;
	size_t old;
	int rc = reader_enter_object(rd, o, "harness", &v, &old);

	if (rc <= 0)
		return rc;
	rc = reader_get_str(rd, v, "format", &h->format) ||
	     reader_get_str(rd, v, "command", &h->command) ||
	     reader_get_str(rd, v, "benchmark", &h->benchmark);
	if (!rc && (!h->format || !h->command || !h->benchmark))
		rc = reader_expected(rd, "format, command and benchmark", v);
	rc = rc || read_selection(rd, v, h);
	reader_pop(rd, old);
	return rc ? -1 : 0;
}

/* "line": where a benchmark or command was written in its suite file;
 * absent (documents written before it) is 0, unknown. */
static int read_line(struct reader *rd, const cJSON *o, uint32_t *out)
{
	uint64_t v = 0;
	int rc = reader_get_uint_max(rd, o, "line", UINT32_MAX, &v);

	*out = (uint32_t)v;
	return rc;
}

/* "error_conclusion": "neutral" when the suite asks a check run that failed
 * to run to conclude neutral; absent or "failure" otherwise. */
static int read_error_conclusion(struct reader *rd, const cJSON *o, bool *neutral)
{
	static const char *const names[] = { "failure", "neutral" };
	int v = 0;
	int rc = reader_get_name(rd, o, "error_conclusion", names, 2, &v);

	*neutral = v == 1;
	return rc;
}

static int read_command(struct reader *rd, const cJSON *o, enum results_mode mode,
			struct results_command *c)
{
	const cJSON *rel = NULL, *budgets = NULL, *b;
	size_t n, i = 0;
	int rc;

	if (!cJSON_IsObject(o))
		return reader_expected(rd, "an object", o);
	rc = reader_get_str(rd, o, "name", &c->name) ||
	     reader_get_str(rd, o, "command", &c->command) || read_harness(rd, o, &c->harness) ||
	     read_result(rd, o, &c->result) || read_side(rd, o, "head", &c->head) ||
	     read_side(rd, o, "base", &c->base) || reader_get_object(rd, o, "relative", &rel);
	if (!rc && rel) {
		size_t old = reader_push_key(rd, "relative");
		rc = reader_get_opt_num(rd, rel, "vs_baseline", &c->has_vs_baseline,
					&c->vs_baseline) ||
		     reader_get_opt_num(rd, rel, "vs_fastest", &c->has_vs_fastest, &c->vs_fastest);
		reader_pop(rd, old);
	}
	rc = rc || read_comparisons(rd, o, mode, c) || read_line(rd, o, &c->line) ||
	     reader_get_array(rd, o, "budgets", RESULTS_MAX_ITEMS, &budgets, &n);
	for (b = budgets ? budgets->child : NULL; !rc && b; b = b->next, i++) {
		size_t o2 = reader_push_key(rd, "budgets");
		size_t o3 = reader_push_index(rd, i);
		struct budget_result empty;
		struct results_budget *rb;
		memset(&empty, 0, sizeof(empty));
		rb = results_add_budget(c, &empty, NULL);
		rc = read_budget(rd, b, rb);
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	return rc;
}

static int read_benchmark(struct reader *rd, const cJSON *o, enum results_mode mode,
			  struct results_benchmark *b)
{
	static const char *const time_budgets[] = { "max_time", "max_total_time" };
	const cJSON *tags = NULL, *cmds = NULL, *v;
	size_t n, i = 0, n_schedules;
	const char *const *schedules = vocab_names(VOCAB_SCHEDULE, &n_schedules);
	int rc, time_budget = -1, schedule = SCHEDULE_INTERLEAVED;

	if (!cJSON_IsObject(o))
		return reader_expected(rd, "an object", o);
	rc = reader_get_str(rd, o, "name", &b->name) || results_read_case(rd, o, b) ||
	     reader_get_str(rd, o, "description", &b->description) ||
	     reader_get_array(rd, o, "tags", RESULTS_MAX_ITEMS, &tags, &n);
	for (v = tags ? tags->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_key(rd, "tags");
		size_t o3 = reader_push_index(rd, i);
		char *tag = NULL;
		rc = reader_str_value(rd, v, RESULTS_MAX_STRING_BYTES, &tag);
		if (!rc)
			results_add_tag(b, tag);
		free(tag);
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	rc = rc || reader_get_str(rd, o, "baseline", &b->baseline) ||
	     reader_get_uint(rd, o, "rounds", &b->rounds) ||
	     reader_get_name(rd, o, "schedule", schedules, n_schedules, &schedule) ||
	     reader_get_name(rd, o, "time_budget_ran_out", time_budgets, 2, &time_budget) ||
	     read_result(rd, o, &b->result) || read_error(rd, o, &b->error) ||
	     read_line(rd, o, &b->line) ||
	     reader_get_array(rd, o, "commands", RESULTS_MAX_ITEMS, &cmds, &n);
	b->time_budget_ran_out = (enum results_time_budget)(time_budget + 1);
	b->schedule = (enum schedule)schedule;
	i = 0;
	for (v = cmds ? cmds->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_key(rd, "commands");
		size_t o3 = reader_push_index(rd, i);
		struct results_command *c = results_add_command(b, NULL, NULL);
		rc = read_command(rd, v, mode, c);
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	return rc;
}

static int read_geometric_mean(struct reader *rd, const cJSON *so, struct results_suite *s)
{
	const cJSON *g, *vals = NULL, *v;
	size_t old, n, i = 0;
	int rc;

	if (reader_get_object(rd, so, "geometric_mean", &g))
		return -1;
	if (!g)
		return 0;
	old = reader_push_key(rd, "geometric_mean");
	s->has_geometric_mean = true;
	rc = reader_get_str(rd, g, "reference", &s->geometric_mean_reference) ||
	     reader_get_uint(rd, g, "cases", &s->geometric_mean_cases) ||
	     reader_get_array(rd, g, "values", RESULTS_MAX_ITEMS, &vals, &n);
	for (v = vals ? vals->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_key(rd, "values");
		size_t o3 = reader_push_index(rd, i);
		struct results_ratio *r;
		if (!cJSON_IsObject(v)) {
			rc = reader_expected(rd, "an object", v);
		} else {
			results_add_ratio(s, NULL, 0);
			r = &s->geometric_mean_values[s->n_geometric_mean_values - 1];
			rc = reader_get_str(rd, v, "command", &r->command) ||
			     reader_get_num(rd, v, "ratio", &r->ratio);
		}
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	reader_pop(rd, old);
	return rc;
}

static int read_suite(struct reader *rd, const cJSON *o, enum results_mode mode,
		      struct results_suite *s)
{
	const cJSON *benches = NULL, *v;
	size_t n, i = 0;
	int rc;

	if (!cJSON_IsObject(o))
		return reader_expected(rd, "an object", o);
	rc = reader_get_str(rd, o, "name", &s->name) ||
	     reader_get_str(rd, o, "description", &s->description) ||
	     reader_get_str(rd, o, "file", &s->file) || read_result(rd, o, &s->result) ||
	     read_error(rd, o, &s->error) ||
	     reader_get_bool(rd, o, "new_in_head", &s->new_in_head) ||
	     reader_get_bool(rd, o, "shared_artifact", &s->shared_artifact) ||
	     reader_get_array(rd, o, "benchmarks", RESULTS_MAX_ITEMS, &benches, &n);
	for (v = benches ? benches->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_key(rd, "benchmarks");
		size_t o3 = reader_push_index(rd, i);
		rc = read_benchmark(rd, v, mode, results_add_benchmark(s, NULL));
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	return rc || results_read_growth(rd, o, s) || read_geometric_mean(rd, o, s) ||
	       reader_get_str(rd, o, "geometric_mean_unavailable",
			      &s->geometric_mean_unavailable) ||
	       reader_commit(rd, o, &s->commit) ||
	       read_error_conclusion(rd, o, &s->error_conclusion_neutral);
}

static int read_root(struct reader *rd, const cJSON *root, struct results *r)
{
	const cJSON *v = reader_field(root, "schema_version"), *suites = NULL;
	size_t nm, n, i = 0, old;
	const char *const *modes = results_names(NAMES_MODE, &nm);
	int mode = -1, rc;

	old = reader_push_key(rd, "schema_version");
	if (!v)
		rc = reader_bad(rd, "missing; expected \"" RESULTS_SCHEMA_VERSION "\"");
	else if (!cJSON_IsString(v) || strcmp(v->valuestring, RESULTS_SCHEMA_VERSION))
		rc = reader_expected(rd, "\"" RESULTS_SCHEMA_VERSION "\"", v);
	else
		rc = 0;
	reader_pop(rd, old);
	if (rc)
		return rc;
	if (!reader_field(root, "mode")) {
		old = reader_push_key(rd, "mode");
		rc = reader_bad(rd, "missing; expected \"run\", \"compare\" or \"sweep\"");
		reader_pop(rd, old);
		return rc;
	}
	if (reader_get_name(rd, root, "mode", modes, nm, &mode))
		return -1;
	r->mode = (enum results_mode)mode;
	free(r->himorime_version);
	r->himorime_version = NULL;
	rc = reader_get_str(rd, root, "himorime_version", &r->himorime_version) ||
	     reader_get_uint(rd, root, "seed", &r->seed) ||
	     reader_get_time(rd, root, "started_at", &r->started_at_unix_ns) ||
	     reader_get_time(rd, root, "finished_at", &r->finished_at_unix_ns) ||
	     reader_environment(rd, root, &r->environment) || reader_git(rd, root, &r->git) ||
	     reader_noise(rd, root, &r->noise) ||
	     reader_get_uint(rd, root, "max_total_time_ns", &r->max_total_time_ns) ||
	     reader_get_array(rd, root, "suites", RESULTS_MAX_ITEMS, &suites, &n);
	for (v = suites ? suites->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_key(rd, "suites");
		size_t o3 = reader_push_index(rd, i);
		rc = read_suite(rd, v, r->mode, results_add_suite(r, NULL));
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	return rc || reader_summary(rd, root, &r->summary) || reader_sweep(rd, root, &r->sweep) ||
	       reader_calibration(rd, root, r) || reader_timings(rd, root, &r->timings);
}

int results_from_json(const char *data, size_t len, const char *name, struct results **out,
		      struct err *err)
{
	struct reader rd = { .name = name, .path = STRBUF_INIT, .err = err };
	struct results *r = NULL;
	cJSON *root = NULL;
	int rc;

	*out = NULL;
	strbuf_init(&rd.path, 4096);
	strbuf_adds(&rd.path, "$");
	if (len > RESULTS_MAX_FILE_BYTES) {
		rc = err_set(err, ERR_INVALID, "%s: larger than %u bytes", name,
			     RESULTS_MAX_FILE_BYTES);
		goto done;
	}
	rc = results_json_parse(data, len, name, RESULTS_MAX_VALUES, &root, err);
	if (rc)
		goto done;
	if (!cJSON_IsObject(root)) {
		rc = reader_expected(&rd, "an object", root);
		goto done;
	}
	r = results_new(RESULTS_MODE_RUN);
	if (read_root(&rd, root, r)) {
		rc = ERR_INVALID;
		goto done;
	}
	*out = r;
	r = NULL;
done:
	results_free(r);
	cJSON_Delete(root);
	strbuf_release(&rd.path);
	return rc;
}

int results_read_file(const char *path, struct results **out, struct err *err)
{
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size > RESULTS_MAX_FILE_BYTES)
		return err_set(err, ERR_INVALID, "%s: larger than %u bytes", path,
			       RESULTS_MAX_FILE_BYTES);
	rc = fsio_read_file(path, RESULTS_MAX_FILE_BYTES, &data, &len, err);
	if (rc)
		return rc;
	rc = results_from_json(data, len, path, out, err);
	free(data);
	return rc;
}
