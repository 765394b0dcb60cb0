/*
 * Reading what a report says about cases and growth (docs/reports.md,
 * "Cases and growth"): a benchmark's "case" and a suite's "growth". Both are
 * optional, so that version 1 documents of an older himorime still read.
 * Private to src/results: see results_internal.h.
 */
#include "results/reader.h"
#include "results/results_internal.h"

#include <stdlib.h>

#include "common/banned.h"

int results_read_case(struct reader *rd, const cJSON *bo, struct results_benchmark *b)
{
	static const char *const long_runs[] = { "declared", "largest within 60 s", "not checked" };
	const cJSON *o, *params = NULL, *v;
	bool has_size = false;
	int long_run = -1;
	size_t old, o2;
	int rc;

	if ((rc = reader_enter_object(rd, bo, "case", &o, &old)) <= 0)
		return rc;
	rc = reader_get_str(rd, o, "benchmark", &b->base_name) ||
	     reader_get_object(rd, o, "parameters", &params) ||
	     reader_get_opt_num(rd, o, "size", &has_size, &b->size) ||
	     reader_get_name(rd, o, "long_run", long_runs, 3, &long_run);
	b->has_size = has_size;
	/* absent or null in documents of an older himorime: no long run */
	b->long_run = (enum results_long_run)(long_run + 1);
	if (!rc && !b->base_name)
		rc = reader_bad(rd, "expected \"benchmark\" in a case");
	o2 = reader_push_key(rd, "parameters");
	for (v = params ? params->child : NULL; !rc && v; v = v->next) {
		char *value = NULL;
		size_t o3 = reader_push_key(rd, v->string);
		if (b->n_params >= RESULTS_MAX_ITEMS)
			rc = reader_bad(rd, "more than %d parameters", RESULTS_MAX_ITEMS);
		if (!rc)
			rc = reader_str_value(rd, v, RESULTS_MAX_STRING_BYTES, &value);
		if (!rc)
			results_add_param(b, v->string, value);
		free(value);
		reader_pop(rd, o3);
	}
	reader_pop(rd, o2);
	reader_pop(rd, old);
	return rc;
}

static int read_fit(struct reader *rd, const cJSON *go, const char *key, struct results_fit *f)
{
	const cJSON *o;
	bool has_low = false, has_high = false;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, go, key, &o, &old)) <= 0)
		return rc;
	f->present = true;
	rc = reader_get_num(rd, o, "exponent", &f->exponent) ||
	     reader_get_opt_num(rd, o, "exponent_low", &has_low, &f->exponent_low) ||
	     reader_get_opt_num(rd, o, "exponent_high", &has_high, &f->exponent_high) ||
	     reader_get_num(rd, o, "coefficient", &f->coefficient) ||
	     reader_get_opt_num(rd, o, "constant", &f->has_constant, &f->constant) ||
	     reader_get_num(rd, o, "r_squared", &f->r_squared) ||
	     reader_get_uint(rd, o, "sizes", &f->sizes) ||
	     reader_get_uint(rd, o, "runs", &f->runs) || reader_get_str(rd, o, "from", &f->from) ||
	     reader_get_str(rd, o, "to", &f->to);
	f->has_interval = has_low && has_high;
	reader_pop(rd, old);
	return rc;
}

static int read_not_compared(struct reader *rd, const cJSON *so, struct results_suite *s)
{
	const cJSON *arr = NULL, *v;
	size_t n, i = 0;
	int rc = reader_get_array(rd, so, "not_compared", RESULTS_MAX_ITEMS, &arr, &n);

	for (v = arr ? arr->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_key(rd, "not_compared");
		size_t o3 = reader_push_index(rd, i);
		results_add_not_compared(s, NULL, NULL);
		if (!cJSON_IsObject(v))
			rc = reader_expected(rd, "an object", v);
		else
			rc = reader_get_str(rd, v, "benchmark",
					    &s->not_compared[s->n_not_compared - 1].benchmark) ||
			     reader_get_str(rd, v, "reason",
					    &s->not_compared[s->n_not_compared - 1].reason);
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	return rc;
}

static int read_growth_verdicts(struct reader *rd, const cJSON *go, struct results_growth *g)
{
	const cJSON *o;
	char *name = NULL;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, go, "budget", &o, &old)) < 0)
		return rc;
	if (rc > 0) {
		g->has_budget = true;
		rc = reader_get_str(rd, o, "text", &g->budget_text) ||
		     reader_get_str(rd, o, "op", &name) ||
		     reader_get_num(rd, o, "limit", &g->budget_limit) ||
		     reader_get_bool(rd, o, "pass", &g->budget_pass);
		if (!rc && (!name || bound_op_from_name(name, &g->budget_op) < 0))
			rc = reader_bad(rd, "expected an operator <, <=, > or >= in \"op\"");
		free(name);
		name = NULL;
		reader_pop(rd, old);
		if (rc)
			return rc;
	}
	if ((rc = reader_enter_object(rd, go, "comparison", &o, &old)) <= 0)
		return rc;
	g->compared = true;
	rc = reader_get_num(rd, o, "difference", &g->difference) ||
	     reader_get_num(rd, o, "difference_low", &g->difference_low) ||
	     reader_get_num(rd, o, "difference_high", &g->difference_high) ||
	     reader_get_num(rd, o, "max_difference", &g->max_difference) ||
	     reader_get_str(rd, o, "verdict", &name);
	if (!rc && (!name || verdict_from_name(name, &g->verdict) < 0))
		rc = reader_bad(rd, "expected a verdict in \"verdict\"");
	free(name);
	reader_pop(rd, old);
	return rc;
}

int results_read_growth(struct reader *rd, const cJSON *so, struct results_suite *s)
{
	const cJSON *arr = NULL, *v;
	size_t n, i = 0;
	int rc = read_not_compared(rd, so, s) ||
		 reader_get_array(rd, so, "growth", RESULTS_MAX_ITEMS, &arr, &n);

	for (v = arr ? arr->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_key(rd, "growth");
		size_t o3 = reader_push_index(rd, i);
		struct results_growth *g = results_add_growth(s, NULL, NULL, METRIC_LATENCY);
		if (!cJSON_IsObject(v))
			rc = reader_expected(rd, "an object", v);
		else
			rc = reader_get_str(rd, v, "benchmark", &g->benchmark) ||
			     reader_get_str(rd, v, "command", &g->command) ||
			     reader_get_metric_name(rd, v, "metric", &g->metric) ||
			     read_fit(rd, v, "head", &g->head) ||
			     read_fit(rd, v, "base", &g->base) || read_growth_verdicts(rd, v, g);
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	return rc;
}
