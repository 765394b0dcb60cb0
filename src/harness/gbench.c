/*
 * Google Benchmark's JSON (--benchmark_format=json on standard output, or
 * --benchmark_out=FILE --benchmark_out_format=json). Each row of
 * $.benchmarks whose run_type is "iteration" is one repetition of one
 * benchmark instance; the aggregate rows (mean, median, stddev, cv, BigO,
 * RMS) restate those repetitions and are skipped, so nothing counts twice.
 * Rows of one instance (same family_index and per_family_instance_index)
 * merge; another instance reporting the same name is an error. A row that
 * skipped with an error marks its benchmark failed; one skipped on purpose
 * (1.8's "skipped") is left out. Metrics: "time" (real_time) and "cpu_time"
 * in ns, "bytes_per_second" and "items_per_second" (higher is better), and
 * every other numeric field as a user counter ("count", neutral: the output
 * does not carry a counter's flags or direction).
 */
#include "common/alloc.h"
#include "harness/harness_internal.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

/* Fields of a row that are not metrics. */
static const char *const plain_fields[] = {
	"name",
	"family_index",
	"per_family_instance_index",
	"run_name",
	"run_type",
	"repetitions",
	"repetition_index",
	"threads",
	"iterations",
	"time_unit",
	"aggregate_name",
	"aggregate_unit",
	"label",
	"error_occurred",
	"error_message",
	"skipped",
	"skip_message",
	"real_time",
	"cpu_time",
};

static const struct {
	const char *field;
	const char *unit;
} rates[] = {
	{ "bytes_per_second", "bytes/s" },
	{ "items_per_second", "items/s" },
};

static bool is_plain(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(plain_fields); i++)
		if (!strcmp(key, plain_fields[i]))
			return true;
	return false;
}

/* An index of the instance: a number below 2^32, or 0 when missing. */
static int index_field(struct collect *c, const cJSON *row, const char *key, struct where *w,
		       double *out)
{
	const cJSON *v = json_field(row, key);

	*out = 0;
	if (!v)
		return 0;
	if (json_number(c, v, w, out))
		return ERR_INVALID;
	return *out < 4294967295.0 ? 0 : collect_bad(c, w, "expected an index below 2^32");
}

/* An instance's identity: its family and its index in the family; rows of
 * versions before 1.6 have neither and merge by name. */
static int identity(struct collect *c, const cJSON *row, size_t i, uint64_t *ident)
{
	struct where wf = WHERE_JSON("$.benchmarks[%zu].family_index", i, 0);
	struct where wi = WHERE_JSON("$.benchmarks[%zu].per_family_instance_index", i, 0);
	double f, k;

	if (index_field(c, row, "family_index", &wf, &f) ||
	    index_field(c, row, "per_family_instance_index", &wi, &k))
		return ERR_INVALID;
	*ident = json_field(row, "family_index") || json_field(row, "per_family_instance_index")
			 ? ((uint64_t)f + 1) << 32 | (uint64_t)k
			 : IDENT_SAME;
	return 0;
}

/* Skipped rows: aggregates, and benchmarks skipped on purpose. */
static int skipped(struct collect *c, const cJSON *row, size_t i, bool *skip)
{
	const cJSON *type = json_field(row, "run_type");
	struct where w = WHERE_JSON("$.benchmarks[%zu].run_type", i, 0);
	const char *t = "iteration";

	if (type && json_string(c, type, &w, &t))
		return ERR_INVALID;
	if (strcmp(t, "iteration") && strcmp(t, "aggregate"))
		return collect_bad(c, &w, "expected \"iteration\" or \"aggregate\", got \"%.32s\"",
				   t);
	*skip = !strcmp(t, "aggregate") || (!type && json_field(row, "aggregate_name")) ||
		cJSON_IsTrue(json_field(row, "skipped"));
	return 0;
}

static int failed(struct collect *c, const cJSON *row, size_t i, size_t index, bool *fail)
{
	const cJSON *msg = json_field(row, "error_message");
	struct where w = WHERE_JSON("$.benchmarks[%zu].error_message", i, 0);
	const char *m = "";

	*fail = cJSON_IsTrue(json_field(row, "error_occurred"));
	if (!*fail)
		return 0;
	if (msg && json_string(c, msg, &w, &m))
		return ERR_INVALID;
	collect_error(c, index, m, strlen(m));
	return 0;
}

static int times(struct collect *c, const cJSON *row, size_t i, size_t index)
{
	static const char *const fields[] = { "real_time", "cpu_time" };
	static const char *const metrics[] = { "time", "cpu_time" };
	const cJSON *v;
	const char *unit;
	struct where w = WHERE_JSON("$.benchmarks[%zu]", i, 0);
	double scale, x;
	size_t k;

	if (json_need(c, row, "time_unit", &w, &v))
		return ERR_INVALID;
	w.json = "$.benchmarks[%zu].time_unit";
	if (json_string(c, v, &w, &unit))
		return ERR_INVALID;
	scale = time_unit_ns(unit, strlen(unit));
	if (!scale)
		return collect_bad(c, &w, "expected \"ns\", \"us\", \"ms\" or \"s\", got \"%.32s\"",
				   unit);
	for (k = 0; k < ARRAY_SIZE(fields); k++) {
		w.json = "$.benchmarks[%zu]";
		if (json_need(c, row, fields[k], &w, &v))
			return ERR_INVALID;
		w.json = k ? "$.benchmarks[%zu].cpu_time" : "$.benchmarks[%zu].real_time";
		if (json_number(c, v, &w, &x) ||
		    collect_value(c, index, metrics[k], "ns", BETTER_LOWER, x * scale, &w))
			return ERR_INVALID;
	}
	return 0;
}

/* Throughputs and user counters: every other numeric field, in order. */
static int counters(struct collect *c, const cJSON *row, size_t i, size_t index)
{
	const cJSON *f;
	struct where w = WHERE_JSON("$.benchmarks[%zu]", i, 0);
	size_t k;

	for (f = row->child; f; f = f->next) {
		const char *unit = "count";
		enum better better = BETTER_NEUTRAL;
		if (is_plain(f->string) || !cJSON_IsNumber(f))
			continue;
		if (strlen(f->string) > HARNESS_MAX_METRIC_BYTES)
			return collect_bad(c, &w, "counter name \"%.64s...\" longer than %u bytes",
					   f->string, HARNESS_MAX_METRIC_BYTES);
		for (k = 0; k < ARRAY_SIZE(rates); k++)
			if (!strcmp(f->string, rates[k].field)) {
				unit = rates[k].unit;
				better = BETTER_HIGHER;
			}
		if (collect_value(c, index, f->string, unit, better, f->valuedouble, &w))
			return ERR_INVALID;
	}
	return 0;
}

static int row(struct collect *c, const cJSON *r, size_t i)
{
	const cJSON *v;
	const char *name;
	struct where w = WHERE_JSON("$.benchmarks[%zu]", i, 0);
	uint64_t ident;
	size_t index;
	bool skip = false, fail = false;

	if (json_object(c, r, &w) || skipped(c, r, i, &skip))
		return ERR_INVALID;
	if (skip)
		return 0;
	if (json_need(c, r, "name", &w, &v))
		return ERR_INVALID;
	w.json = "$.benchmarks[%zu].name";
	if (json_string(c, v, &w, &name) || identity(c, r, i, &ident) ||
	    collect_benchmark(c, name, strlen(name), ident, &w, &index) ||
	    failed(c, r, i, index, &fail))
		return ERR_INVALID;
	if (fail)
		return 0;
	return times(c, r, i, index) || counters(c, r, i, index) ? ERR_INVALID : 0;
}

int parse_google_benchmark(struct collect *c)
{
	return json_each(c, "benchmarks", "$.benchmarks", row);
}
