/*
 * Reading the parts of a results document around its suites: the
 * environment, git and noise, a sweep's range and a suite's commit, a
 * calibration's rows and the summary. Called by results_read.c, with the same
 * bounds and error paths (see there).
 */
#include "common/alloc.h"
#include "results/reader.h"
#include "results/results.h"
#include "results/results_internal.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/banned.h"

int reader_environment(struct reader *rd, const cJSON *root, struct results_environment *e)
{
	const cJSON *o, *tools = NULL, *t;
	uint64_t cpus = 0;
	size_t old, n, i = 0;
	int rc;

	if ((rc = reader_enter_object(rd, root, "environment", &o, &old)) <= 0)
		return rc;
	rc = reader_get_str(rd, o, "os", &e->os) || reader_get_str(rd, o, "arch", &e->arch) ||
	     reader_get_str(rd, o, "kernel", &e->kernel) ||
	     reader_get_str(rd, o, "cpu_model", &e->cpu_model) ||
	     reader_get_uint_max(rd, o, "logical_cpus", UINT32_MAX, &cpus) ||
	     reader_get_str(rd, o, "compiler", &e->compiler) ||
	     reader_get_str(rd, o, "libc", &e->libc) || reader_get_str(rd, o, "ci", &e->ci) ||
	     reader_get_array(rd, o, "tools", RESULTS_MAX_ITEMS, &tools, &n);
	e->logical_cpus = (uint32_t)cpus;
	for (t = tools ? tools->child : NULL; !rc && t; t = t->next, i++) {
		size_t o2 = reader_push_key(rd, "tools");
		size_t o3 = reader_push_index(rd, i);
		struct results_tool *tool;
		if (!cJSON_IsObject(t)) {
			rc = reader_expected(rd, "an object", t);
		} else {
			e->tools = xgrow(e->tools, &e->alloc_tools, e->n_tools + 1, sizeof(*tool));
			tool = &e->tools[e->n_tools++];
			memset(tool, 0, sizeof(*tool));
			rc = reader_get_str(rd, t, "name", &tool->name) ||
			     reader_get_str(rd, t, "version", &tool->version);
		}
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	reader_pop(rd, old);
	return rc;
}

int reader_git(struct reader *rd, const cJSON *root, struct results_git *g)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, root, "git", &o, &old)) <= 0)
		return rc;
	g->present = true;
	rc = reader_get_str(rd, o, "head_sha", &g->head_sha) ||
	     reader_get_bool(rd, o, "dirty", &g->dirty) ||
	     reader_get_str(rd, o, "base_ref", &g->base_ref) ||
	     reader_get_str(rd, o, "base_sha", &g->base_sha) ||
	     reader_get_str(rd, o, "base_source", &g->base_source) ||
	     reader_get_str(rd, o, "status_sha", &g->status_sha);
	reader_pop(rd, old);
	return rc;
}

int reader_noise(struct reader *rd, const cJSON *root, struct results_noise *n)
{
	const cJSON *o, *l = NULL;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, root, "noise", &o, &old)) <= 0)
		return rc;
	rc = reader_get_object(rd, o, "load_average", &l);
	if (!rc && l) {
		size_t o2 = reader_push_key(rd, "load_average");
		n->has_load_average = true;
		rc = reader_get_num(rd, l, "1m", &n->load_average_1m) ||
		     reader_get_num(rd, l, "5m", &n->load_average_5m) ||
		     reader_get_num(rd, l, "15m", &n->load_average_15m);
		reader_pop(rd, o2);
	}
	rc = rc || reader_get_opt_num(rd, o, "steal_percent", &n->has_steal, &n->steal_percent) ||
	     reader_get_str(rd, o, "governor", &n->governor) ||
	     reader_get_bool(rd, o, "noisy", &n->noisy) ||
	     reader_get_str(rd, o, "reason", &n->reason);
	reader_pop(rd, old);
	return rc;
}

int reader_commit(struct reader *rd, const cJSON *so, struct results_commit *c)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, so, "commit", &o, &old)) <= 0)
		return rc;
	c->present = true;
	rc = reader_get_str(rd, o, "sha", &c->sha) ||
	     reader_get_str(rd, o, "subject", &c->subject) ||
	     reader_get_time(rd, o, "time", &c->time_unix_ns) ||
	     reader_get_uint(rd, o, "index", &c->index) ||
	     reader_get_str(rd, o, "suite_hash", &c->suite_hash);
	reader_pop(rd, old);
	return rc;
}

int reader_sweep(struct reader *rd, const cJSON *root, struct results_sweep *s)
{
	const cJSON *o;
	size_t old;
	int rc;

	if ((rc = reader_enter_object(rd, root, "sweep", &o, &old)) <= 0)
		return rc;
	s->present = true;
	rc = reader_get_str(rd, o, "range", &s->range) ||
	     reader_get_str(rd, o, "reference", &s->reference) ||
	     reader_get_str(rd, o, "settings_hash", &s->settings_hash) ||
	     reader_get_uint(rd, o, "shard_index", &s->shard_index) ||
	     reader_get_uint(rd, o, "shard_count", &s->shard_count) ||
	     reader_get_uint(rd, o, "commits", &s->commits);
	reader_pop(rd, old);
	return rc;
}

static int read_calibration_row(struct reader *rd, const cJSON *o, struct results *r)
{
	struct results_calibration_row *row;
	bool has_iw = false, has_dw = false;
	int rc;

	if (!cJSON_IsObject(o))
		return reader_expected(rd, "an object", o);
	row = results_add_calibration_row(r, NULL, NULL, METRIC_LATENCY);
	rc = reader_get_str(rd, o, "benchmark", &row->benchmark) ||
	     reader_get_str(rd, o, "command", &row->command) ||
	     reader_get_metric_name(rd, o, "metric", &row->metric) ||
	     reader_get_uint(rd, o, "max_pairs", &row->max_pairs) ||
	     reader_get_opt_num(rd, o, "detectable_percent", &row->has_detectable,
				&row->detectable_percent) ||
	     reader_get_uint(rd, o, "schedule_pairs", &row->schedule_pairs) ||
	     reader_get_opt_num(rd, o, "interleaved_half_width_percent", &has_iw,
				&row->interleaved_half_width_percent) ||
	     reader_get_opt_num(rd, o, "duet_half_width_percent", &has_dw,
				&row->duet_half_width_percent) ||
	     reader_get_str(rd, o, "schedules_note", &row->schedules_note);
	if (!rc && row->schedule_pairs && (!has_iw || !has_dw))
		rc = reader_bad(rd, "schedule_pairs without both half-widths");
	/* written only with both_schedules: anything else would not survive
	 * being written again */
	if (!rc && !r->calibration.both_schedules &&
	    (row->schedule_pairs || has_iw || has_dw || row->schedules_note))
		rc = reader_bad(rd, "schedule figures without both_schedules");
	return rc;
}

/* recommended_schedule names a schedule; it and duet_not_measured are
 * written only with both_schedules. */
static int read_recommended(struct reader *rd, const struct results_calibration *c)
{
	enum schedule unused;
	size_t old;
	int rc;

	if (c->recommended_schedule && schedule_from_name(c->recommended_schedule, &unused) < 0) {
		old = reader_push_key(rd, "recommended_schedule");
		rc = reader_bad(rd, "expected \"interleaved\" or \"duet\", got \"%s\"",
				c->recommended_schedule);
		reader_pop(rd, old);
		return rc;
	}
	if (!c->both_schedules && (c->recommended_schedule || c->duet_not_measured))
		return reader_bad(rd, "a schedule recommendation without both_schedules");
	return 0;
}

int reader_calibration(struct reader *rd, const cJSON *root, struct results *r)
{
	const cJSON *o, *rows = NULL, *v;
	size_t old, n, i = 0;
	int rc;

	if ((rc = reader_enter_object(rd, root, "calibration", &o, &old)) <= 0)
		return rc;
	if (r->mode != RESULTS_MODE_COMPARE) {
		rc = reader_bad(rd, "expected null outside mode compare, got an object");
		reader_pop(rd, old);
		return rc;
	}
	r->calibration.present = true;
	rc = reader_get_bool(rd, o, "separate_builds", &r->calibration.separate_builds) ||
	     reader_get_bool(rd, o, "both_schedules", &r->calibration.both_schedules) ||
	     reader_get_str(rd, o, "recommended_schedule", &r->calibration.recommended_schedule) ||
	     reader_get_str(rd, o, "duet_not_measured", &r->calibration.duet_not_measured) ||
	     read_recommended(rd, &r->calibration) ||
	     reader_get_array(rd, o, "rows", RESULTS_MAX_ITEMS, &rows, &n);
	for (v = rows ? rows->child : NULL; !rc && v; v = v->next, i++) {
		size_t o2 = reader_push_key(rd, "rows");
		size_t o3 = reader_push_index(rd, i);
		rc = read_calibration_row(rd, v, r);
		reader_pop(rd, o3);
		reader_pop(rd, o2);
	}
	reader_pop(rd, old);
	return rc;
}

int reader_summary(struct reader *rd, const cJSON *root, struct results_summary *s)
{
	const cJSON *o, *ng = NULL;
	size_t old;
	int i, rc;

	if ((rc = reader_enter_object(rd, root, "summary", &o, &old)) <= 0)
		return rc;
	rc = reader_get_uint(rd, o, "suites", &s->suites) ||
	     reader_get_uint(rd, o, "benchmarks", &s->benchmarks) ||
	     reader_get_uint(rd, o, "commands", &s->commands);
	for (i = 0; !rc && i < RESULTS_RESULT_STATES; i++)
		rc = reader_get_uint(rd, o, result_state_name((enum result_state)i),
				     &s->results[i]);
	rc = rc || reader_get_uint(rd, o, "accepted_regressions", &s->accepted_regressions);
	rc = rc || reader_get_bool(rd, o, "fail_on_inconclusive", &s->fail_on_inconclusive) ||
	     reader_get_int(rd, o, "exit_code", NULL, &s->exit_code) ||
	     reader_get_object(rd, o, "not_gated", &ng);
	if (!rc && ng) {
		size_t o2 = reader_push_key(rd, "not_gated");
		rc = reader_get_uint(rd, ng, "pass", &s->not_gated.pass) ||
		     reader_get_uint(rd, ng, "improved", &s->not_gated.improved) ||
		     reader_get_uint(rd, ng, "inconclusive", &s->not_gated.inconclusive) ||
		     reader_get_uint(rd, ng, "regression", &s->not_gated.regression);
		reader_pop(rd, o2);
	}
	rc = rc || reader_get_uint(rd, o, "skipped", &s->skipped) ||
	     reader_get_uint(rd, o, "new_suites", &s->new_suites) ||
	     reader_get_bool(rd, o, "interrupted", &s->interrupted);
	reader_pop(rd, old);
	return rc;
}

int reader_timings(struct reader *rd, const cJSON *root, struct results_timings *t)
{
	const cJSON *o;
	size_t old;
	int p, rc;

	if ((rc = reader_enter_object(rd, root, "timings", &o, &old)) <= 0)
		return rc;
	t->present = true;
	rc = reader_get_uint(rd, o, "total_ns", &t->total_ns);
	for (p = 0; p < RESULTS_PHASE__COUNT && !rc; p++) {
		char key[32];
		snprintf(key, sizeof(key), "%s_ns", results_phase_name((enum results_phase)p));
		rc = reader_get_uint(rd, o, key, &t->phase_ns[p]);
	}
	reader_pop(rd, old);
	return rc;
}
