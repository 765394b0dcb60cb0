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
#include "results/results_internal.h"
#include "results/json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

#define MAX_NUMBER_CHARS 63 /* cJSON 1.7.15 copies at most 63 into its buffer */

struct reader {
	const char *name;
	struct strbuf path;
	struct err *err;
};

static int bad(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct reader *rd, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(rd->err, ERR_INVALID, "%s: %s: %s", rd->name, rd->path.buf, what);
}

static size_t push_key(struct reader *rd, const char *key)
{
	size_t old = rd->path.len;

	strbuf_addf(&rd->path, ".%s", key);
	return old;
}

static size_t push_index(struct reader *rd, size_t i)
{
	size_t old = rd->path.len;

	strbuf_addf(&rd->path, "[%zu]", i);
	return old;
}

static void pop(struct reader *rd, size_t old)
{
	strbuf_setlen(&rd->path, old);
}

/* A short, one-line description of a value for messages: "x", 42, an object. */
static void describe(const cJSON *v, char *buf, size_t size)
{
	if (cJSON_IsString(v)) {
		const char *s = v->valuestring;
		size_t n = strlen(s), i, o = 0;
		bool cut = n > 40;
		if (cut)
			n = 40;
		while (cut && n && (((unsigned char)s[n]) & 0xc0) == 0x80)
			n--;
		buf[o++] = '"';
		for (i = 0; i < n && o + 8 < size; i++)
			buf[o++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
		if (cut) {
			memcpy(buf + o, "...", 3);
			o += 3;
		}
		buf[o++] = '"';
		buf[o] = 0;
	} else if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		if (!isfinite(d))
			snprintf(buf, size, "a number out of range");
		else if (d == trunc(d) && fabs(d) < 1e18)
			snprintf(buf, size, "%.0f", d); /* 2^53 reads better than 9.007e+15 */
		else
			results_format_double(d, buf, size);
	} else if (cJSON_IsTrue(v)) {
		snprintf(buf, size, "true");
	} else if (cJSON_IsFalse(v)) {
		snprintf(buf, size, "false");
	} else if (cJSON_IsNull(v)) {
		snprintf(buf, size, "null");
	} else if (cJSON_IsArray(v)) {
		snprintf(buf, size, "an array");
	} else {
		snprintf(buf, size, "an object");
	}
}

static int expected(struct reader *rd, const char *what, const cJSON *v)
{
	char got[64];

	describe(v, got, sizeof(got));
	return bad(rd, "expected %s, got %s", what, got);
}

/* The value of key, or NULL when missing or null. */
static const cJSON *field(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNull(v) ? NULL : v;
}

static int str_value(struct reader *rd, const cJSON *v, size_t max, char **out)
{
	if (!cJSON_IsString(v))
		return expected(rd, "a string", v);
	if (strlen(v->valuestring) > max)
		return bad(rd, "string longer than %zu bytes", max);
	free(*out);
	*out = xstrdup(v->valuestring);
	return 0;
}

static int get_str_max(struct reader *rd, const cJSON *obj, const char *key, size_t max, char **out)
{
	const cJSON *v = field(obj, key);
	size_t old;
	int rc;

	if (!v)
		return 0;
	old = push_key(rd, key);
	rc = str_value(rd, v, max, out);
	pop(rd, old);
	return rc;
}

static int get_str(struct reader *rd, const cJSON *obj, const char *key, char **out)
{
	return get_str_max(rd, obj, key, RESULTS_MAX_STRING_BYTES, out);
}

/* A string into a fixed char array (reasons of comparisons and budgets). */
static int get_chars(struct reader *rd, const cJSON *obj, const char *key, char *out, size_t size)
{
	char *s = NULL;
	int rc = get_str_max(rd, obj, key, size - 1, &s);

	if (!rc && s)
		snprintf(out, size, "%s", s);
	free(s);
	return rc;
}

/* One of names[], into *out; missing or null keeps *out. */
static int get_name(struct reader *rd, const cJSON *obj, const char *key, const char *const *names,
		    size_t n, int *out)
{
	const cJSON *v = field(obj, key);
	struct strbuf list;
	size_t old, i;
	int idx, rc = 0;

	if (!v)
		return 0;
	old = push_key(rd, key);
	idx = cJSON_IsString(v) ? results_name_index(names, n, v->valuestring) : -1;
	if (idx >= 0) {
		*out = idx;
		goto done;
	}
	strbuf_init(&list, 0);
	for (i = 0; i < n; i++)
		strbuf_addf(&list, "%s\"%s\"", i ? (i + 1 == n ? " or " : ", ") : "", names[i]);
	rc = expected(rd, list.buf, v);
	strbuf_release(&list);
done:
	pop(rd, old);
	return rc;
}

static int get_bool(struct reader *rd, const cJSON *obj, const char *key, bool *out)
{
	const cJSON *v = field(obj, key);
	size_t old;
	int rc = 0;

	if (!v)
		return 0;
	old = push_key(rd, key);
	if (cJSON_IsBool(v))
		*out = cJSON_IsTrue(v);
	else
		rc = expected(rd, "true or false", v);
	pop(rd, old);
	return rc;
}

static int num_value(struct reader *rd, const cJSON *v, double *out)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return expected(rd, "a finite number", v);
	*out = v->valuedouble;
	return 0;
}

/* A finite number; missing or null leaves *has false. */
static int get_opt_num(struct reader *rd, const cJSON *obj, const char *key, bool *has, double *out)
{
	const cJSON *v = field(obj, key);
	size_t old;
	int rc;

	*has = false;
	if (!v)
		return 0;
	old = push_key(rd, key);
	rc = num_value(rd, v, out);
	pop(rd, old);
	*has = !rc;
	return rc;
}

static int get_num(struct reader *rd, const cJSON *obj, const char *key, double *out)
{
	bool has;

	return get_opt_num(rd, obj, key, &has, out);
}

static int uint_value(struct reader *rd, const cJSON *v, double max, uint64_t *out)
{
	char what[80];

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= max &&
	    v->valuedouble == trunc(v->valuedouble)) {
		*out = (uint64_t)v->valuedouble;
		return 0;
	}
	snprintf(what, sizeof(what), "an integer from 0 to %.0f", max);
	return expected(rd, what, v);
}

static int get_uint_max(struct reader *rd, const cJSON *obj, const char *key, double max,
			uint64_t *out)
{
	const cJSON *v = field(obj, key);
	size_t old;
	int rc;

	if (!v)
		return 0;
	old = push_key(rd, key);
	rc = uint_value(rd, v, max, out);
	pop(rd, old);
	return rc;
}

static int get_uint(struct reader *rd, const cJSON *obj, const char *key, uint64_t *out)
{
	return get_uint_max(rd, obj, key, RESULTS_MAX_INTEGER, out);
}

static int get_unsigned(struct reader *rd, const cJSON *obj, const char *key, unsigned *out)
{
	uint64_t v = *out;
	int rc = get_uint_max(rd, obj, key, UINT_MAX, &v);

	*out = (unsigned)v;
	return rc;
}

static int get_int(struct reader *rd, const cJSON *obj, const char *key, bool *has, int *out)
{
	const cJSON *v = field(obj, key);
	size_t old;
	int rc = 0;

	if (has)
		*has = false;
	if (!v)
		return 0;
	old = push_key(rd, key);
	if (cJSON_IsNumber(v) && v->valuedouble >= INT_MIN && v->valuedouble <= INT_MAX &&
	    v->valuedouble == trunc(v->valuedouble)) {
		*out = (int)v->valuedouble;
		if (has)
			*has = true;
	} else {
		rc = expected(rd, "an integer from -2147483648 to 2147483647", v);
	}
	pop(rd, old);
	return rc;
}

static int get_time(struct reader *rd, const cJSON *obj, const char *key, int64_t *out)
{
	const cJSON *v = field(obj, key);
	size_t old;
	int rc = 0;

	if (!v)
		return 0;
	old = push_key(rd, key);
	if (!cJSON_IsString(v) || results_parse_time(v->valuestring, out) < 0)
		rc = expected(rd, "an RFC 3339 UTC time such as \"2026-01-02T03:04:05.5Z\"", v);
	pop(rd, old);
	return rc;
}

static int get_metric_name(struct reader *rd, const cJSON *obj, const char *key, enum metric *out)
{
	const char *names[METRIC__COUNT];
	int m = (int)*out;

	for (int i = 0; i < METRIC__COUNT; i++)
		names[i] = metric_info((enum metric)i)->name;
	if (get_name(rd, obj, key, names, METRIC__COUNT, &m))
		return -1;
	*out = (enum metric)m;
	return 0;
}

/* A field we write but derive from others: when present it must say what we
 * would write. */
static int check_const(struct reader *rd, const cJSON *obj, const char *key, const char *want)
{
	const char *names[1] = { want };
	int dummy = 0;

	return get_name(rd, obj, key, names, 1, &dummy);
}

/* The object at key: *out NULL when missing or null. */
static int get_object(struct reader *rd, const cJSON *obj, const char *key, const cJSON **out)
{
	const cJSON *v = field(obj, key);
	size_t old;
	int rc = 0;

	*out = NULL;
	if (!v)
		return 0;
	if (cJSON_IsObject(v)) {
		*out = v;
		return 0;
	}
	old = push_key(rd, key);
	rc = expected(rd, "an object", v);
	pop(rd, old);
	return rc;
}

/* Enters the object at key: 1 with *o set and the key pushed (pop it with
 * *old), 0 when it is missing or null, -1 on an error. */
static int enter_object(struct reader *rd, const cJSON *obj, const char *key, const cJSON **o,
			size_t *old)
{
	if (get_object(rd, obj, key, o))
		return -1;
	if (!*o)
		return 0;
	*old = push_key(rd, key);
	return 1;
}

static int get_array(struct reader *rd, const cJSON *obj, const char *key, size_t max,
		     const cJSON **out, size_t *n)
{
	const cJSON *v = field(obj, key), *c;
	size_t old = push_key(rd, key);
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (v && !cJSON_IsArray(v)) {
		rc = expected(rd, "an array", v);
	} else if (v) {
		for (c = v->child; c; c = c->next)
			(*n)++;
		if (*n > max)
			rc = bad(rd, "more than %zu items", max);
		else
			*out = v;
	}
	pop(rd, old);
	return rc;
}

static int read_error(struct reader *rd, const cJSON *obj, struct results_error *e)
{
	const cJSON *o;
	size_t old;
	int kind = 0;
	int rc;

	if ((rc = enter_object(rd, obj, "error", &o, &old)) <= 0)
		return rc;
	e->present = true;
	if (!field(o, "kind")) {
		rc = bad(rd, "missing \"kind\"");
		goto done;
	}
	{
		size_t n;
		const char *const *names = results_names(NAMES_ERROR_KIND, &n);
		rc = get_name(rd, o, "kind", names, n, &kind);
	}
	e->kind = (enum results_error_kind)kind;
	rc = rc || get_str(rd, o, "message", &e->message) ||
	     get_int(rd, o, "exit_code", &e->has_exit_code, &e->exit_code) ||
	     get_str_max(rd, o, "stderr", RESULTS_MAX_STDERR_BYTES, &e->stderr_tail);
	if (!rc && field(o, "metric")) {
		e->has_metric = true;
		rc = get_metric_name(rd, o, "metric", &e->metric);
	}
done:
	pop(rd, old);
	return rc;
}

static int read_environment(struct reader *rd, const cJSON *root, struct results_environment *e)
{
	const cJSON *o, *tools = NULL, *t;
	uint64_t cpus = 0;
	size_t old, n, i = 0;
	int rc;

	if ((rc = enter_object(rd, root, "environment", &o, &old)) <= 0)
		return rc;
	rc = get_str(rd, o, "os", &e->os) || get_str(rd, o, "arch", &e->arch) ||
	     get_str(rd, o, "kernel", &e->kernel) || get_str(rd, o, "cpu_model", &e->cpu_model) ||
	     get_uint_max(rd, o, "logical_cpus", UINT32_MAX, &cpus) ||
	     get_str(rd, o, "compiler", &e->compiler) || get_str(rd, o, "libc", &e->libc) ||
	     get_str(rd, o, "ci", &e->ci) ||
	     get_array(rd, o, "tools", RESULTS_MAX_ITEMS, &tools, &n);
	e->logical_cpus = (uint32_t)cpus;
	for (t = tools ? tools->child : NULL; !rc && t; t = t->next, i++) {
		size_t o2 = push_key(rd, "tools");
		size_t o3 = push_index(rd, i);
		struct results_tool *tool;
		if (!cJSON_IsObject(t)) {
			rc = expected(rd, "an object", t);
		} else {
			e->tools = xgrow(e->tools, &e->alloc_tools, e->n_tools + 1, sizeof(*tool));
			tool = &e->tools[e->n_tools++];
			memset(tool, 0, sizeof(*tool));
			rc = get_str(rd, t, "name", &tool->name) ||
			     get_str(rd, t, "version", &tool->version);
		}
		pop(rd, o3);
		pop(rd, o2);
	}
	pop(rd, old);
	return rc;
}

static int read_git(struct reader *rd, const cJSON *root, struct results_git *g)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = enter_object(rd, root, "git", &o, &old)) <= 0)
		return rc;
	g->present = true;
	rc = get_str(rd, o, "head_sha", &g->head_sha) || get_bool(rd, o, "dirty", &g->dirty) ||
	     get_str(rd, o, "base_ref", &g->base_ref) || get_str(rd, o, "base_sha", &g->base_sha) ||
	     get_str(rd, o, "base_source", &g->base_source);
	pop(rd, old);
	return rc;
}

static int read_noise(struct reader *rd, const cJSON *root, struct results_noise *n)
{
	const cJSON *o, *l = NULL;
	size_t old;
	int rc;

	if ((rc = enter_object(rd, root, "noise", &o, &old)) <= 0)
		return rc;
	rc = get_object(rd, o, "load_average", &l);
	if (!rc && l) {
		size_t o2 = push_key(rd, "load_average");
		n->has_load_average = true;
		rc = get_num(rd, l, "1m", &n->load_average_1m) ||
		     get_num(rd, l, "5m", &n->load_average_5m) ||
		     get_num(rd, l, "15m", &n->load_average_15m);
		pop(rd, o2);
	}
	rc = rc || get_opt_num(rd, o, "steal_percent", &n->has_steal, &n->steal_percent) ||
	     get_str(rd, o, "governor", &n->governor) || get_bool(rd, o, "noisy", &n->noisy) ||
	     get_str(rd, o, "reason", &n->reason);
	pop(rd, old);
	return rc;
}

static int read_stats(struct reader *rd, const cJSON *mo, struct results_metric *m)
{
	struct stats_summary *s = &m->stats;
	const cJSON *o, *ps = NULL, *p;
	uint64_t count = 0;
	size_t old, n, i = 0;
	int rc;

	if ((rc = enter_object(rd, mo, "stats", &o, &old)) <= 0)
		return rc;
	m->has_stats = true;
	rc = get_uint(rd, o, "count", &count) || get_num(rd, o, "min", &s->min) ||
	     get_num(rd, o, "max", &s->max) || get_num(rd, o, "mean", &s->mean) ||
	     get_num(rd, o, "median", &s->median) || get_num(rd, o, "stddev", &s->stddev) ||
	     get_num(rd, o, "cv", &s->cv) || get_num(rd, o, "robust_cv", &s->robust_cv) ||
	     get_array(rd, o, "percentiles", 1000, &ps, &n);
	s->count = (size_t)count;
	if (!rc && n)
		s->percentiles = xcalloc(n, sizeof(*s->percentiles));
	for (p = ps ? ps->child : NULL; !rc && p; p = p->next, i++) {
		size_t o2 = push_key(rd, "percentiles");
		size_t o3 = push_index(rd, i);
		if (!cJSON_IsObject(p))
			rc = expected(rd, "an object", p);
		else
			rc = get_num(rd, p, "p", &s->percentiles[i].p) ||
			     get_num(rd, p, "value", &s->percentiles[i].value);
		s->n_percentiles = i + 1;
		pop(rd, o3);
		pop(rd, o2);
	}
	pop(rd, old);
	return rc;
}

static int read_samples(struct reader *rd, const cJSON *mo, struct results_metric *m)
{
	enum metric_unit unit = metric_info(m->metric)->unit;
	bool whole = unit == UNIT_NS || unit == UNIT_BYTES;
	const cJSON *a, *v;
	size_t old, n, i = 0;
	int rc = get_array(rd, mo, "samples", RESULTS_MAX_SAMPLES, &a, &n);

	if (rc || !n)
		return rc;
	old = push_key(rd, "samples");
	m->samples = xcalloc(n, sizeof(double));
	m->alloc_samples = n;
	for (v = a->child; !rc && v; v = v->next, i++) {
		size_t o2 = push_index(rd, i);
		uint64_t u;
		if (whole && !(rc = uint_value(rd, v, RESULTS_MAX_INTEGER, &u)))
			m->samples[i] = (double)u;
		else if (!whole)
			rc = num_value(rd, v, &m->samples[i]);
		pop(rd, o2);
	}
	m->n_samples = i;
	pop(rd, old);
	return rc;
}

static int read_work(struct reader *rd, const cJSON *mo, struct results_work *w)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = enter_object(rd, mo, "work", &o, &old)) <= 0)
		return rc;
	w->present = true;
	rc = get_opt_num(rd, o, "value", &w->has_value, &w->value) ||
	     get_str(rd, o, "file_size", &w->file_size) || get_str(rd, o, "unit", &w->unit) ||
	     get_num(rd, o, "measured_min", &w->measured_min) ||
	     get_num(rd, o, "measured_max", &w->measured_max);
	pop(rd, old);
	return rc;
}

/* Absent in documents written before drift was measured. */
static int read_trend(struct reader *rd, const cJSON *mo, struct results_trend *t)
{
	const cJSON *o;
	double confidence = RESULTS_TREND_CONFIDENCE;
	size_t old;
	int rc;

	if ((rc = enter_object(rd, mo, "trend", &o, &old)) <= 0)
		return rc;
	t->present = true;
	rc = get_num(rd, o, "slope", &t->slope) || get_num(rd, o, "slope_low", &t->slope_low) ||
	     get_num(rd, o, "slope_high", &t->slope_high) ||
	     get_num(rd, o, "confidence", &confidence) ||
	     get_num(rd, o, "min_detectable_slope", &t->min_detectable_slope) ||
	     get_bool(rd, o, "growing", &t->growing);
	if (!rc && confidence != RESULTS_TREND_CONFIDENCE) {
		size_t k = push_key(rd, "confidence");
		rc = expected(rd, "0.99", field(o, "confidence"));
		pop(rd, k);
	}
	pop(rd, old);
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
		return expected(rd, "an object", o);
	rc = check_const(rd, o, "name", info->name) ||
	     check_const(rd, o, "group", results_group_name(info->group)) ||
	     check_const(rd, o, "unit", metric_unit_name(info->unit)) ||
	     check_const(rd, o, "better", better_name(info->better)) ||
	     check_const(rd, o, "scope", results_scope_name(info->scope)) ||
	     get_name(rd, o, "source", sources, ns, &source) ||
	     get_name(rd, o, "process_aggregation", aggs, na, &agg) ||
	     get_name(rd, o, "status", statuses, ARRAY_SIZE(statuses), &status) ||
	     get_str(rd, o, "reason", &m->reason) || read_stats(rd, o, m) ||
	     read_samples(rd, o, m) || read_work(rd, o, &m->work);
	m->source = (enum results_source)source;
	m->process_aggregation = (enum results_aggregation)agg;
	m->status = (enum metric_status)status;
	if (!rc && field(o, "floor")) {
		m->has_floor = true;
		rc = get_uint(rd, o, "floor", &m->floor_bytes) ||
		     get_uint(rd, o, "samples_at_floor", &m->samples_at_floor);
	}
	return rc || read_trend(rd, o, &m->trend);
}

static int read_side(struct reader *rd, const cJSON *co, const char *key, struct results_side *s)
{
	const cJSON *o, *metrics = NULL;
	size_t old, np;
	const char *const *plans = results_names(NAMES_PLAN, &np);
	int plan = 0, m, rc;

	results_side_init(s);
	if (get_object(rd, co, key, &o))
		return -1;
	if (!o)
		return 0;
	old = push_key(rd, key);
	s->present = true;
	rc = get_uint(rd, o, "count", &s->count) || get_uint(rd, o, "warmups", &s->warmups) ||
	     get_name(rd, o, "plan", plans, np, &plan) || get_object(rd, o, "metrics", &metrics);
	s->plan = (enum results_plan)plan;
	for (m = 0; !rc && metrics && m < METRIC__COUNT; m++) {
		const char *name = metric_info((enum metric)m)->name;
		const cJSON *mo = field(metrics, name);
		size_t o2, o3;
		if (!mo)
			continue;
		o2 = push_key(rd, "metrics");
		o3 = push_key(rd, name);
		rc = read_metric(rd, mo, &s->metrics[m]);
		pop(rd, o3);
		pop(rd, o2);
	}
	rc = rc || read_error(rd, o, &s->error);
	pop(rd, old);
	return rc;
}

/* max_percent repeats max_fraction in percent; documents written before it
 * existed have none. */
static int check_max_percent(struct reader *rd, const cJSON *o, double fraction)
{
	double percent;
	bool has;
	size_t old;
	int rc = get_opt_num(rd, o, "max_percent", &has, &percent);

	if (rc || !has || fabs(percent - fraction * 100.0) <= 1e-9 * fmax(1.0, fabs(percent)))
		return rc;
	old = push_key(rd, "max_percent");
	rc = bad(rd, "expected %.17g (max_fraction in percent), got %.17g", fraction * 100.0,
		 percent);
	pop(rd, old);
	return rc;
}

static int read_comparison(struct reader *rd, const cJSON *o, enum metric m, struct comparison *c)
{
	const struct metric_info *info = metric_info(m);
	const char *derived_names[1] = { "latency" };
	int statistic = 0, verdict = 0, derived = -1;
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
		return expected(rd, "an object", o);
	rc = check_const(rd, o, "metric", info->name) ||
	     get_name(rd, o, "derived_from", derived_names, 1, &derived) ||
	     check_const(rd, o, "statistic", "hodges_lehmann_ratio") ||
	     get_name(rd, o, "side_statistic", statistics, n_statistics, &statistic) ||
	     check_const(rd, o, "unit", metric_unit_name(info->unit)) ||
	     check_const(rd, o, "better", better_name(info->better)) ||
	     get_num(rd, o, "base", &c->base) || get_num(rd, o, "head", &c->head) ||
	     get_num(rd, o, "difference", &difference) ||
	     get_opt_num(rd, o, "change_percent", &c->has_estimate, &c->change_percent) ||
	     get_opt_num(rd, o, "ci_low_percent", &has, &c->ci_low_percent) ||
	     get_opt_num(rd, o, "ci_high_percent", &has, &c->ci_high_percent) ||
	     get_num(rd, o, "confidence", &c->confidence) ||
	     get_unsigned(rd, o, "looks_planned", &c->looks_planned) ||
	     get_unsigned(rd, o, "looks_used", &c->looks_used) ||
	     get_unsigned(rd, o, "pairs", &c->pairs) ||
	     get_num(rd, o, "max_fraction", &c->max_percent) ||
	     check_max_percent(rd, o, c->max_percent) ||
	     get_opt_num(rd, o, "min_difference", &c->has_min_difference, &c->min_difference) ||
	     get_opt_num(rd, o, "band_low_percent", &has, &c->band_low_percent) ||
	     get_num(rd, o, "band_high_percent", &c->band_high_percent) ||
	     get_name(rd, o, "verdict", verdicts, n_verdicts, &verdict) ||
	     get_chars(rd, o, "reason", c->reason, sizeof(c->reason)) ||
	     get_bool(rd, o, "gate", &c->gate) || get_bool(rd, o, "accepted", &c->accepted);
	c->band_low_infinite = !field(o, "band_low_percent");
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

	if ((rc = enter_object(rd, co, "comparisons", &o, &old)) <= 0)
		return rc;
	rc = mode == RESULTS_MODE_RUN ? bad(rd, "expected null in run mode, got an object") : 0;
	/* In the document's order, so that a rewrite gives the same bytes. */
	for (const cJSON *v = o->child; !rc && v; v = v->next) {
		enum metric metric;
		struct comparison cmp;
		size_t o2;
		if (metric_from_name(v->string, &metric) < 0)
			continue; /* a metric of a later version */
		o2 = push_key(rd, v->string);
		rc = read_comparison(rd, v, metric, &cmp);
		if (!rc)
			results_add_comparison(c, &cmp);
		pop(rd, o2);
	}
	pop(rd, old);
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
		return expected(rd, "an object", o);
	if (!field(o, "metric"))
		return bad(rd, "missing \"metric\"");
	rc = get_metric_name(rd, o, "metric", &r->metric);
	if (!rc && field(o, "aggregation")) {
		const cJSON *v = field(o, "aggregation");
		size_t o2 = push_key(rd, "aggregation");
		if (!cJSON_IsString(v) || aggregation_from_name(v->valuestring, &r->aggregation))
			rc = expected(rd,
				      "\"min\", \"max\", \"mean\", \"median\" or a percentile "
				      "such as \"p95\"",
				      v);
		pop(rd, o2);
	}
	rc = rc || get_name(rd, o, "operator", ops, n_ops, &op) ||
	     get_num(rd, o, "limit", &r->limit) ||
	     get_opt_num(rd, o, "actual", &r->has_actual, &r->actual) ||
	     check_const(rd, o, "unit", metric_unit_name(metric_info(r->metric)->unit)) ||
	     get_name(rd, o, "status", statuses, n_statuses, &status) ||
	     get_bool(rd, o, "pass", &pass) ||
	     get_chars(rd, o, "reason", r->reason, sizeof(r->reason)) ||
	     get_str(rd, o, "text", &b->text);
	r->op = (enum bound_op)op;
	r->status = (enum budget_status)status;
	if (!rc && field(o, "pass") && pass != (r->status == BUDGET_PASS)) {
		size_t o2 = push_key(rd, "pass");
		rc = bad(rd, "expected %s, as status says", pass ? "false" : "true");
		pop(rd, o2);
	}
	return rc;
}

static int read_result(struct reader *rd, const cJSON *o, enum result_state *out)
{
	const char *names[RESULTS_RESULT_STATES];
	int v = (int)*out;

	for (int i = 0; i < RESULTS_RESULT_STATES; i++)
		names[i] = result_state_name((enum result_state)i);
	if (get_name(rd, o, "result", names, RESULTS_RESULT_STATES, &v))
		return -1;
	*out = (enum result_state)v;
	return 0;
}

static int read_command(struct reader *rd, const cJSON *o, enum results_mode mode,
			struct results_command *c)
{
	const cJSON *rel = NULL, *budgets = NULL, *b;
	size_t n, i = 0;
	int rc;

	if (!cJSON_IsObject(o))
		return expected(rd, "an object", o);
	rc = get_str(rd, o, "name", &c->name) || get_str(rd, o, "command", &c->command) ||
	     read_result(rd, o, &c->result) || read_side(rd, o, "head", &c->head) ||
	     read_side(rd, o, "base", &c->base) || get_object(rd, o, "relative", &rel);
	if (!rc && rel) {
		size_t old = push_key(rd, "relative");
		rc = get_opt_num(rd, rel, "vs_baseline", &c->has_vs_baseline, &c->vs_baseline) ||
		     get_opt_num(rd, rel, "vs_fastest", &c->has_vs_fastest, &c->vs_fastest);
		pop(rd, old);
	}
	rc = rc || read_comparisons(rd, o, mode, c) ||
	     get_array(rd, o, "budgets", RESULTS_MAX_ITEMS, &budgets, &n);
	for (b = budgets ? budgets->child : NULL; !rc && b; b = b->next, i++) {
		size_t o2 = push_key(rd, "budgets");
		size_t o3 = push_index(rd, i);
		struct budget_result empty;
		struct results_budget *rb;
		memset(&empty, 0, sizeof(empty));
		rb = results_add_budget(c, &empty, NULL);
		rc = read_budget(rd, b, rb);
		pop(rd, o3);
		pop(rd, o2);
	}
	return rc;
}

static int read_benchmark(struct reader *rd, const cJSON *o, enum results_mode mode,
			  struct results_benchmark *b)
{
	const cJSON *tags = NULL, *cmds = NULL, *v;
	size_t n, i = 0;
	int rc;

	if (!cJSON_IsObject(o))
		return expected(rd, "an object", o);
	rc = get_str(rd, o, "name", &b->name) || get_str(rd, o, "description", &b->description) ||
	     get_array(rd, o, "tags", RESULTS_MAX_ITEMS, &tags, &n);
	for (v = tags ? tags->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = push_key(rd, "tags");
		size_t o3 = push_index(rd, i);
		char *tag = NULL;
		rc = str_value(rd, v, RESULTS_MAX_STRING_BYTES, &tag);
		if (!rc)
			results_add_tag(b, tag);
		free(tag);
		pop(rd, o3);
		pop(rd, o2);
	}
	rc = rc || get_str(rd, o, "baseline", &b->baseline) ||
	     get_uint(rd, o, "rounds", &b->rounds) || read_result(rd, o, &b->result) ||
	     read_error(rd, o, &b->error) ||
	     get_array(rd, o, "commands", RESULTS_MAX_ITEMS, &cmds, &n);
	i = 0;
	for (v = cmds ? cmds->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = push_key(rd, "commands");
		size_t o3 = push_index(rd, i);
		struct results_command *c = results_add_command(b, NULL, NULL);
		rc = read_command(rd, v, mode, c);
		pop(rd, o3);
		pop(rd, o2);
	}
	return rc;
}

static int read_geometric_mean(struct reader *rd, const cJSON *so, struct results_suite *s)
{
	const cJSON *g, *vals = NULL, *v;
	size_t old, n, i = 0;
	int rc;

	if (get_object(rd, so, "geometric_mean", &g))
		return -1;
	if (!g)
		return 0;
	old = push_key(rd, "geometric_mean");
	s->has_geometric_mean = true;
	rc = get_str(rd, g, "reference", &s->geometric_mean_reference) ||
	     get_uint(rd, g, "cases", &s->geometric_mean_cases) ||
	     get_array(rd, g, "values", RESULTS_MAX_ITEMS, &vals, &n);
	for (v = vals ? vals->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = push_key(rd, "values");
		size_t o3 = push_index(rd, i);
		struct results_ratio *r;
		if (!cJSON_IsObject(v)) {
			rc = expected(rd, "an object", v);
		} else {
			results_add_ratio(s, NULL, 0);
			r = &s->geometric_mean_values[s->n_geometric_mean_values - 1];
			rc = get_str(rd, v, "command", &r->command) ||
			     get_num(rd, v, "ratio", &r->ratio);
		}
		pop(rd, o3);
		pop(rd, o2);
	}
	pop(rd, old);
	return rc;
}

static int read_commit(struct reader *rd, const cJSON *so, struct results_commit *c)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = enter_object(rd, so, "commit", &o, &old)) <= 0)
		return rc;
	c->present = true;
	rc = get_str(rd, o, "sha", &c->sha) || get_str(rd, o, "subject", &c->subject) ||
	     get_time(rd, o, "time", &c->time_unix_ns) || get_uint(rd, o, "index", &c->index) ||
	     get_str(rd, o, "suite_hash", &c->suite_hash);
	pop(rd, old);
	return rc;
}

static int read_sweep(struct reader *rd, const cJSON *root, struct results_sweep *s)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = enter_object(rd, root, "sweep", &o, &old)) <= 0)
		return rc;
	s->present = true;
	rc = get_str(rd, o, "range", &s->range) || get_str(rd, o, "reference", &s->reference) ||
	     get_str(rd, o, "settings_hash", &s->settings_hash) ||
	     get_uint(rd, o, "shard_index", &s->shard_index) ||
	     get_uint(rd, o, "shard_count", &s->shard_count) ||
	     get_uint(rd, o, "commits", &s->commits);
	pop(rd, old);
	return rc;
}

static int read_calibration_row(struct reader *rd, const cJSON *o, struct results *r)
{
	struct results_calibration_row *row;

	if (!cJSON_IsObject(o))
		return expected(rd, "an object", o);
	row = results_add_calibration_row(r, NULL, NULL, METRIC_LATENCY);
	return get_str(rd, o, "benchmark", &row->benchmark) ||
	       get_str(rd, o, "command", &row->command) ||
	       get_metric_name(rd, o, "metric", &row->metric) ||
	       get_uint(rd, o, "max_pairs", &row->max_pairs) ||
	       get_opt_num(rd, o, "detectable_percent", &row->has_detectable,
			   &row->detectable_percent);
}

static int read_calibration(struct reader *rd, const cJSON *root, struct results *r)
{
	const cJSON *o, *rows = NULL, *v;
	size_t old, n, i = 0;
	int rc;

	if ((rc = enter_object(rd, root, "calibration", &o, &old)) <= 0)
		return rc;
	if (r->mode != RESULTS_MODE_COMPARE) {
		rc = bad(rd, "expected null outside mode compare, got an object");
		pop(rd, old);
		return rc;
	}
	r->calibration.present = true;
	rc = get_bool(rd, o, "separate_builds", &r->calibration.separate_builds) ||
	     get_array(rd, o, "rows", RESULTS_MAX_ITEMS, &rows, &n);
	for (v = rows ? rows->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = push_key(rd, "rows");
		size_t o3 = push_index(rd, i);
		rc = read_calibration_row(rd, v, r);
		pop(rd, o3);
		pop(rd, o2);
	}
	pop(rd, old);
	return rc;
}

static int read_suite(struct reader *rd, const cJSON *o, enum results_mode mode,
		      struct results_suite *s)
{
	const cJSON *benches = NULL, *v;
	size_t n, i = 0;
	int rc;

	if (!cJSON_IsObject(o))
		return expected(rd, "an object", o);
	rc = get_str(rd, o, "name", &s->name) || get_str(rd, o, "description", &s->description) ||
	     get_str(rd, o, "file", &s->file) || read_result(rd, o, &s->result) ||
	     read_error(rd, o, &s->error) || get_bool(rd, o, "new_in_head", &s->new_in_head) ||
	     get_bool(rd, o, "shared_artifact", &s->shared_artifact) ||
	     get_array(rd, o, "benchmarks", RESULTS_MAX_ITEMS, &benches, &n);
	for (v = benches ? benches->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = push_key(rd, "benchmarks");
		size_t o3 = push_index(rd, i);
		rc = read_benchmark(rd, v, mode, results_add_benchmark(s, NULL));
		pop(rd, o3);
		pop(rd, o2);
	}
	return rc || read_geometric_mean(rd, o, s) ||
	       get_str(rd, o, "geometric_mean_unavailable", &s->geometric_mean_unavailable) ||
	       read_commit(rd, o, &s->commit);
}

static int read_summary(struct reader *rd, const cJSON *root, struct results_summary *s)
{
	const cJSON *o, *ng = NULL;
	size_t old;
	int i, rc;

	if ((rc = enter_object(rd, root, "summary", &o, &old)) <= 0)
		return rc;
	rc = get_uint(rd, o, "suites", &s->suites) ||
	     get_uint(rd, o, "benchmarks", &s->benchmarks) ||
	     get_uint(rd, o, "commands", &s->commands);
	for (i = 0; !rc && i < RESULTS_RESULT_STATES; i++)
		rc = get_uint(rd, o, result_state_name((enum result_state)i), &s->results[i]);
	rc = rc || get_uint(rd, o, "accepted_regressions", &s->accepted_regressions);
	rc = rc || get_bool(rd, o, "fail_on_inconclusive", &s->fail_on_inconclusive) ||
	     get_int(rd, o, "exit_code", NULL, &s->exit_code) ||
	     get_object(rd, o, "not_gated", &ng);
	if (!rc && ng) {
		size_t o2 = push_key(rd, "not_gated");
		rc = get_uint(rd, ng, "pass", &s->not_gated.pass) ||
		     get_uint(rd, ng, "improved", &s->not_gated.improved) ||
		     get_uint(rd, ng, "inconclusive", &s->not_gated.inconclusive) ||
		     get_uint(rd, ng, "regression", &s->not_gated.regression);
		pop(rd, o2);
	}
	rc = rc || get_uint(rd, o, "skipped", &s->skipped) ||
	     get_uint(rd, o, "new_suites", &s->new_suites) ||
	     get_bool(rd, o, "interrupted", &s->interrupted);
	pop(rd, old);
	return rc;
}

static int read_root(struct reader *rd, const cJSON *root, struct results *r)
{
	const cJSON *v = field(root, "schema_version"), *suites = NULL;
	size_t nm, n, i = 0, old;
	const char *const *modes = results_names(NAMES_MODE, &nm);
	int mode = -1, rc;

	old = push_key(rd, "schema_version");
	if (!v)
		rc = bad(rd, "missing; expected \"" RESULTS_SCHEMA_VERSION "\"");
	else if (!cJSON_IsString(v) || strcmp(v->valuestring, RESULTS_SCHEMA_VERSION))
		rc = expected(rd, "\"" RESULTS_SCHEMA_VERSION "\"", v);
	else
		rc = 0;
	pop(rd, old);
	if (rc)
		return rc;
	if (!field(root, "mode")) {
		old = push_key(rd, "mode");
		rc = bad(rd, "missing; expected \"run\", \"compare\" or \"sweep\"");
		pop(rd, old);
		return rc;
	}
	if (get_name(rd, root, "mode", modes, nm, &mode))
		return -1;
	r->mode = (enum results_mode)mode;
	free(r->himorime_version);
	r->himorime_version = NULL;
	rc = get_str(rd, root, "himorime_version", &r->himorime_version) ||
	     get_uint(rd, root, "seed", &r->seed) ||
	     get_time(rd, root, "started_at", &r->started_at_unix_ns) ||
	     get_time(rd, root, "finished_at", &r->finished_at_unix_ns) ||
	     read_environment(rd, root, &r->environment) || read_git(rd, root, &r->git) ||
	     read_noise(rd, root, &r->noise) ||
	     get_array(rd, root, "suites", RESULTS_MAX_ITEMS, &suites, &n);
	for (v = suites ? suites->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = push_key(rd, "suites");
		size_t o3 = push_index(rd, i);
		rc = read_suite(rd, v, r->mode, results_add_suite(r, NULL));
		pop(rd, o3);
		pop(rd, o2);
	}
	return rc || read_summary(rd, root, &r->summary) || read_sweep(rd, root, &r->sweep) ||
	       read_calibration(rd, root, r);
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* cJSON keeps duplicate keys and lookups find the first: a document where
 * two readers could see different values is refused. */
static int check_duplicates(struct reader *rd, const cJSON *v)
{
	const cJSON *c;
	size_t n = 0, i = 0;
	int rc = 0;

	for (c = v->child; c; c = c->next)
		n++;
	if (cJSON_IsObject(v) && n > 1) {
		const char **keys = xcalloc(n, sizeof(*keys));
		for (c = v->child; c; c = c->next)
			keys[i++] = c->string;
		qsort(keys, n, sizeof(*keys), key_cmp);
		for (i = 1; !rc && i < n; i++)
			if (!strcmp(keys[i - 1], keys[i]))
				rc = bad(rd, "duplicate key \"%.64s\"", keys[i]);
		free((void *)keys);
	}
	i = 0;
	for (c = v->child; !rc && c; c = c->next, i++) {
		size_t old = cJSON_IsObject(v) ? push_key(rd, c->string) : push_index(rd, i);
		rc = check_duplicates(rd, c);
		pop(rd, old);
	}
	return rc;
}

static void line_col(const char *data, size_t off, size_t *line, size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (data[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int bad_at(struct reader *rd, const char *data, size_t off, const char *what)
{
	size_t line, col;

	line_col(data, off, &line, &col);
	return err_set(rd->err, ERR_INVALID, "%s:%zu:%zu: %s", rd->name, line, col, what);
}

/* Strict JSON number syntax at p; returns its length or 0. */
static size_t number_len(const char *p, size_t n)
{
	size_t i = 0;

	if (i < n && p[i] == '-')
		i++;
	if (i < n && p[i] == '0') {
		i++;
	} else if (i < n && p[i] >= '1' && p[i] <= '9') {
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
	} else {
		return 0;
	}
	if (i < n && p[i] == '.') {
		size_t start = ++i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == start)
			return 0;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		size_t start;
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		start = i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == start)
			return 0;
	}
	if (i < n && (p[i] == '.' || p[i] == 'e' || p[i] == 'E' || p[i] == '+' || p[i] == '-' ||
		      (p[i] >= '0' && p[i] <= '9')))
		return 0;
	return i;
}

/* What cJSON does not check: UTF-8, NUL bytes, control characters and \u0000
 * in strings, strict numbers, nesting depth. Structure is left to cJSON. */
static int scan(struct reader *rd, const char *data, size_t len, size_t max_values)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t i = 0, depth = 0, values = 0;
	bool in_string = false;

	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		return bad_at(rd, data, 0, "starts with a byte order mark; expected plain UTF-8");
	while (i < len) {
		size_t l;
		if (!p[i])
			return bad_at(rd, data, i, "NUL byte");
		l = results_utf8_len(p + i, len - i);
		if (!l)
			return bad_at(rd, data, i, "invalid UTF-8");
		if (in_string) {
			if (p[i] < 0x20)
				return bad_at(rd, data, i, "control character in a string");
			if (p[i] == '\\' && i + 1 < len) {
				if (p[i + 1] == 'u' && i + 5 < len &&
				    !memcmp(data + i + 2, "0000", 4))
					return bad_at(rd, data, i, "\\u0000 in a string");
				l = 2;
			} else if (p[i] == '"') {
				in_string = false;
			}
		} else if (strchr("\"{[tfn-0123456789", p[i]) && ++values > max_values) {
			char what[64];
			snprintf(what, sizeof(what), "more than %zu values", max_values);
			return bad_at(rd, data, i, what);
		} else if (p[i] == '"') {
			in_string = true;
		} else if (p[i] == '{' || p[i] == '[') {
			if (++depth > RESULTS_MAX_DEPTH)
				return bad_at(rd, data, i, "nested deeper than 64 levels");
		} else if (p[i] == '}' || p[i] == ']') {
			if (depth)
				depth--;
		} else if (p[i] == '-' || (p[i] >= '0' && p[i] <= '9')) {
			l = number_len(data + i, len - i);
			if (!l)
				return bad_at(rd, data, i, "malformed number");
			if (l > MAX_NUMBER_CHARS)
				return bad_at(rd, data, i, "number longer than 63 characters");
		}
		i += l;
	}
	if (in_string || depth)
		return bad_at(rd, data, len, "unexpected end of the document");
	return 0;
}

int results_json_parse(const char *data, size_t len, const char *name, size_t max_values,
		       cJSON **out, struct err *err)
{
	struct reader rd = { name, STRBUF_INIT, err };
	const char *end = NULL;
	cJSON *root = NULL;
	size_t off;
	int rc;

	*out = NULL;
	strbuf_init(&rd.path, 4096);
	strbuf_adds(&rd.path, "$");
	rc = scan(&rd, data, len, max_values);
	if (rc)
		goto done;
	root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
	if (!root) {
		off = end && end >= data && end <= data + len ? (size_t)(end - data) : 0;
		rc = bad_at(&rd, data, off, len ? "invalid JSON" : "empty document");
		goto done;
	}
	off = (size_t)(end - data);
	while (off < len &&
	       (data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r'))
		off++;
	if (off < len) {
		rc = bad_at(&rd, data, off, "unexpected text after the document");
		goto done;
	}
	if (check_duplicates(&rd, root)) {
		rc = ERR_INVALID;
		goto done;
	}
	*out = root;
	root = NULL;
done:
	cJSON_Delete(root);
	strbuf_release(&rd.path);
	return rc;
}

int results_from_json(const char *data, size_t len, const char *name, struct results **out,
		      struct err *err)
{
	struct reader rd = { name, STRBUF_INIT, err };
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
		rc = expected(&rd, "an object", root);
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
