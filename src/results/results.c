/*
 * The in-memory results document: construction, builders, names, equality
 * and freeing (see results.h). The JSON form is in results_write.c and
 * results_read.c.
 */
#include "results/results.h"

#include "common/alloc.h"
#include "common/version.h"
#include "results/results_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static const char *const modes[] = {
	[RESULTS_MODE_RUN] = "run",
	[RESULTS_MODE_COMPARE] = "compare",
	[RESULTS_MODE_SWEEP] = "sweep",
};

static const char *const plans[] = {
	[RESULTS_PLAN_STANDARD] = "standard",
	[RESULTS_PLAN_LARGE] = "large",
};

static const char *const sources[] = {
	[RESULTS_SOURCE_WALL_CLOCK] = "wall_clock",
	[RESULTS_SOURCE_DECLARED_WORK] = "declared_work",
	[RESULTS_SOURCE_RUSAGE] = "rusage",
	[RESULTS_SOURCE_JOB_OBJECT] = "job_object",
	[RESULTS_SOURCE_PROCESS_MEMORY_COUNTERS] = "process_memory_counters",
	[RESULTS_SOURCE_UNAVAILABLE] = "unavailable",
	[RESULTS_SOURCE_ARTIFACT_FILE] = "artifact_file",
	[RESULTS_SOURCE_VALGRIND] = "valgrind",
	[RESULTS_SOURCE_PERF_EVENT] = "perf_event",
	[RESULTS_SOURCE_HARNESS] = "harness",
};

static const char *const aggregations[] = {
	[RESULTS_AGG_NONE] = "none",
	[RESULTS_AGG_SUM_OF_WAITED_DESCENDANTS] = "sum_of_waited_descendants",
	[RESULTS_AGG_SUM_OF_JOB_PROCESSES] = "sum_of_job_processes",
	[RESULTS_AGG_MAX_OF_SINGLE_PROCESS_PEAKS] = "max_of_single_process_peaks",
	[RESULTS_AGG_STARTED_PROCESS_ONLY] = "started_process_only",
	[RESULTS_AGG_SUM_OF_TRACED_PROCESSES] = "sum_of_traced_processes",
};

static const char *const error_kinds[] = {
	[RESULTS_ERROR_BUILD_FAILED] = "build_failed",
	[RESULTS_ERROR_SETUP_FAILED] = "setup_failed",
	[RESULTS_ERROR_PREPARE_EACH_FAILED] = "prepare_each_failed",
	[RESULTS_ERROR_CLEANUP_FAILED] = "cleanup_failed",
	[RESULTS_ERROR_EXIT_CODE] = "exit_code",
	[RESULTS_ERROR_TIMEOUT] = "timeout",
	[RESULTS_ERROR_START_FAILED] = "start_failed",
	[RESULTS_ERROR_INTERRUPTED] = "interrupted",
	[RESULTS_ERROR_INVALID_PATH] = "invalid_path",
	[RESULTS_ERROR_INTERNAL] = "internal",
	[RESULTS_ERROR_METRIC_UNSUPPORTED] = "metric_unsupported",
	[RESULTS_ERROR_METRIC_COLLECTION_FAILED] = "metric_collection_failed",
	[RESULTS_ERROR_HARNESS_OUTPUT] = "harness_output",
};
_Static_assert(ARRAY_SIZE(error_kinds) == RESULTS_ERROR_HARNESS_OUTPUT + 1,
	       "error kind table incomplete");

static const char *const phases[] = {
	[RESULTS_PHASE_LOAD] = "load",
	[RESULTS_PHASE_RESOLVE] = "resolve",
	[RESULTS_PHASE_MATERIALISE_HEAD] = "materialise_head",
	[RESULTS_PHASE_MATERIALISE_BASE] = "materialise_base",
	[RESULTS_PHASE_BUILD_HEAD] = "build_head",
	[RESULTS_PHASE_BUILD_BASE] = "build_base",
	[RESULTS_PHASE_SETUP] = "setup",
	[RESULTS_PHASE_WARMUP] = "warmup",
	[RESULTS_PHASE_ROUNDS] = "rounds",
	[RESULTS_PHASE_JUDGING] = "judging",
	[RESULTS_PHASE_CLEANUP] = "cleanup",
	[RESULTS_PHASE_RENDERING] = "rendering",
	[RESULTS_PHASE_PUBLISHING] = "publishing",
};
_Static_assert(ARRAY_SIZE(phases) == RESULTS_PHASE__COUNT, "phase table incomplete");

const char *results_phase_name(enum results_phase p)
{
	return phases[p];
}

const char *results_time_budget_name(enum results_time_budget t)
{
	switch (t) {
	case RESULTS_TIME_BUDGET_NONE:
		return NULL;
	case RESULTS_TIME_BUDGET_MAX_TIME:
		return "max_time";
	case RESULTS_TIME_BUDGET_MAX_TOTAL_TIME:
		return "max_total_time";
	}
	return NULL;
}

const char *results_long_run_name(enum results_long_run l)
{
	switch (l) {
	case RESULTS_LONG_RUN_NONE:
		return NULL;
	case RESULTS_LONG_RUN_DECLARED:
		return "declared";
	case RESULTS_LONG_RUN_LARGEST:
		return "largest within 60 s";
	case RESULTS_LONG_RUN_NOT_CHECKED:
		return "not checked";
	}
	return NULL;
}

const char *results_mode_name(enum results_mode m)
{
	return modes[m];
}

const char *results_plan_name(enum results_plan p)
{
	return plans[p];
}

const char *results_source_name(enum results_source s)
{
	return sources[s];
}

const char *results_aggregation_name(enum results_aggregation a)
{
	return aggregations[a];
}

const char *results_error_kind_name(enum results_error_kind k)
{
	return error_kinds[k];
}

int results_name_index(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

const char *const *results_names(enum results_names_table t, size_t *n)
{
	switch (t) {
	case NAMES_MODE:
		*n = ARRAY_SIZE(modes);
		return modes;
	case NAMES_PLAN:
		*n = ARRAY_SIZE(plans);
		return plans;
	case NAMES_SOURCE:
		*n = ARRAY_SIZE(sources);
		return sources;
	case NAMES_AGGREGATION:
		*n = ARRAY_SIZE(aggregations);
		return aggregations;
	case NAMES_ERROR_KIND:
		*n = ARRAY_SIZE(error_kinds);
		return error_kinds;
	}
	*n = 0;
	return NULL;
}

void results_side_init(struct results_side *side)
{
	int m;

	memset(side, 0, sizeof(*side));
	for (m = 0; m < METRIC__COUNT; m++) {
		side->metrics[m].metric = (enum metric)m;
		side->metrics[m].status = STATUS_NOT_REQUESTED;
	}
}

struct results *results_new(enum results_mode mode)
{
	struct results *r = xcalloc(1, sizeof(*r));

	r->mode = mode;
	r->himorime_version = xstrdup(HIMORIME_VERSION);
	return r;
}

void results_set_str(char **slot, const char *s)
{
	free(*slot);
	*slot = s ? xstrdup(s) : NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct results_suite *results_add_suite(struct results *r, const char *name)
{
	struct results_suite *s;

	r->suites = xgrow(r->suites, &r->alloc_suites, r->n_suites + 1, sizeof(*r->suites));
	s = &r->suites[r->n_suites++];
	memset(s, 0, sizeof(*s));
	s->name = dup_or_null(name);
	return s;
}

struct results_benchmark *results_add_benchmark(struct results_suite *s, const char *name)
{
	struct results_benchmark *b;

	s->benchmarks = xgrow(s->benchmarks, &s->alloc_benchmarks, s->n_benchmarks + 1, sizeof(*b));
	b = &s->benchmarks[s->n_benchmarks++];
	memset(b, 0, sizeof(*b));
	b->name = dup_or_null(name);
	return b;
}

void results_reserve_benchmarks(struct results_suite *s, size_t n)
{
	s->benchmarks = xgrow(s->benchmarks, &s->alloc_benchmarks, s->n_benchmarks + n,
			      sizeof(*s->benchmarks));
}

struct results_command *results_add_command(struct results_benchmark *b, const char *name,
					    const char *command)
{
	struct results_command *c;

	b->commands = xgrow(b->commands, &b->alloc_commands, b->n_commands + 1, sizeof(*c));
	c = &b->commands[b->n_commands++];
	memset(c, 0, sizeof(*c));
	c->name = dup_or_null(name);
	c->command = dup_or_null(command);
	results_side_init(&c->head);
	results_side_init(&c->base);
	c->head.present = true;
	return c;
}

void results_add_tool(struct results *r, const char *name, const char *version)
{
	struct results_environment *e = &r->environment;
	struct results_tool *t;

	e->tools = xgrow(e->tools, &e->alloc_tools, e->n_tools + 1, sizeof(*t));
	t = &e->tools[e->n_tools++];
	t->name = dup_or_null(name);
	t->version = dup_or_null(version);
}

void results_add_param(struct results_benchmark *b, const char *name, const char *value)
{
	b->params = xgrow(b->params, &b->alloc_params, b->n_params + 1, sizeof(*b->params));
	b->params[b->n_params].name = dup_or_null(name);
	b->params[b->n_params++].value = dup_or_null(value);
}

struct results_growth *results_add_growth(struct results_suite *s, const char *benchmark,
					  const char *command, enum metric metric)
{
	struct results_growth *g;

	s->growth = xgrow(s->growth, &s->alloc_growth, s->n_growth + 1, sizeof(*g));
	g = &s->growth[s->n_growth++];
	memset(g, 0, sizeof(*g));
	g->benchmark = dup_or_null(benchmark);
	g->command = dup_or_null(command);
	g->metric = metric;
	return g;
}

void results_add_not_compared(struct results_suite *s, const char *benchmark, const char *reason)
{
	s->not_compared = xgrow(s->not_compared, &s->alloc_not_compared, s->n_not_compared + 1,
				sizeof(*s->not_compared));
	s->not_compared[s->n_not_compared].benchmark = dup_or_null(benchmark);
	s->not_compared[s->n_not_compared++].reason = dup_or_null(reason);
}

void results_add_tag(struct results_benchmark *b, const char *tag)
{
	b->tags = xgrow(b->tags, &b->alloc_tags, b->n_tags + 1, sizeof(*b->tags));
	b->tags[b->n_tags++] = xstrdup(tag);
}

void results_add_ratio(struct results_suite *s, const char *command, double ratio)
{
	struct results_ratio *v;

	s->geometric_mean_values = xgrow(s->geometric_mean_values, &s->alloc_geometric_mean_values,
					 s->n_geometric_mean_values + 1, sizeof(*v));
	v = &s->geometric_mean_values[s->n_geometric_mean_values++];
	v->command = dup_or_null(command);
	v->ratio = ratio;
}

struct results_calibration_row *results_add_calibration_row(struct results *r,
							    const char *benchmark,
							    const char *command, enum metric m)
{
	struct results_calibration *cal = &r->calibration;
	struct results_calibration_row *row;

	cal->present = true;
	cal->rows = xgrow(cal->rows, &cal->alloc_rows, cal->n_rows + 1, sizeof(*row));
	row = &cal->rows[cal->n_rows++];
	memset(row, 0, sizeof(*row));
	row->benchmark = dup_or_null(benchmark);
	row->command = dup_or_null(command);
	row->metric = m;
	return row;
}

struct comparison *results_add_comparison(struct results_command *c, const struct comparison *cmp)
{
	c->comparisons = xgrow(c->comparisons, &c->alloc_comparisons, c->n_comparisons + 1,
			       sizeof(*c->comparisons));
	c->comparisons[c->n_comparisons] = *cmp;
	return &c->comparisons[c->n_comparisons++];
}

struct results_budget *results_add_budget(struct results_command *c,
					  const struct budget_result *res, const char *text)
{
	struct results_budget *b;

	c->budgets = xgrow(c->budgets, &c->alloc_budgets, c->n_budgets + 1, sizeof(*b));
	b = &c->budgets[c->n_budgets++];
	b->result = *res;
	b->text = dup_or_null(text);
	return b;
}

void results_add_sample(struct results_side *side, enum metric m, double value)
{
	struct results_metric *rm = &side->metrics[m];

	rm->samples = xgrow(rm->samples, &rm->alloc_samples, rm->n_samples + 1, sizeof(double));
	rm->samples[rm->n_samples++] = value;
	rm->status = STATUS_MEASURED;
}

void results_add_run_times(struct results_side *side, uint64_t start_ns, uint64_t end_ns)
{
	side->run_start_ns =
		xgrow(side->run_start_ns, &side->alloc_start, side->n_times + 1, sizeof(uint64_t));
	side->run_end_ns =
		xgrow(side->run_end_ns, &side->alloc_end, side->n_times + 1, sizeof(uint64_t));
	side->run_start_ns[side->n_times] = start_ns;
	side->run_end_ns[side->n_times++] = end_ns;
}

void results_set_stats(struct results_side *side, enum metric m, const struct stats_summary *stats)
{
	struct results_metric *rm = &side->metrics[m];

	free(rm->stats.percentiles);
	rm->stats = *stats;
	rm->stats.percentiles = NULL;
	if (stats->n_percentiles) {
		rm->stats.percentiles = xcalloc(stats->n_percentiles, sizeof(struct percentile));
		memcpy(rm->stats.percentiles, stats->percentiles,
		       stats->n_percentiles * sizeof(struct percentile));
	}
	rm->has_stats = true;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
size_t results_utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len, i;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

bool results_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	while (i < n) {
		size_t l = results_utf8_len(p + i, n - i);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

/* Valid UTF-8 of the bytes (invalid sequences and NULs become U+FFFD), then
 * its last RESULTS_MAX_STDERR_BYTES at a character boundary. */
static char *stderr_tail(const char *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	char *out = xmalloc(len * 3 + 1);
	size_t i = 0, o = 0, start = 0;

	while (i < len) {
		size_t l = p[i] ? results_utf8_len(p + i, len - i) : 0;
		if (l) {
			memcpy(out + o, p + i, l);
			o += l;
			i += l;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = 0;
	if (o > RESULTS_MAX_STDERR_BYTES) {
		start = o - RESULTS_MAX_STDERR_BYTES;
		while (((unsigned char)out[start] & 0xc0) == 0x80)
			start++;
		memmove(out, out + start, o - start + 1);
	}
	return out;
}

void results_set_error(struct results_error *e, enum results_error_kind kind, const char *message,
		       const char *stderr_tail_bytes, size_t stderr_len)
{
	free(e->message);
	free(e->stderr_tail);
	memset(e, 0, sizeof(*e));
	e->present = true;
	e->kind = kind;
	e->message = dup_or_null(message);
	e->stderr_tail = stderr_tail_bytes ? stderr_tail(stderr_tail_bytes, stderr_len) : NULL;
}

static void error_release(struct results_error *e)
{
	free(e->message);
	free(e->stderr_tail);
}

void results_add_harness_value(struct results_side *s, const char *name, const char *unit,
			       enum better better, double value, const double *raw, size_t n)
{
	struct results_harness_metric *hm = NULL;
	size_t i;

	for (i = 0; i < s->n_harness_metrics && !hm; i++)
		if (!strcmp(s->harness_metrics[i].name, name))
			hm = &s->harness_metrics[i];
	if (!hm) {
		s->harness_metrics = xgrow(s->harness_metrics, &s->alloc_harness_metrics,
					   s->n_harness_metrics + 1, sizeof(*hm));
		hm = &s->harness_metrics[s->n_harness_metrics++];
		memset(hm, 0, sizeof(*hm));
		hm->name = xstrdup(name);
		hm->unit = xstrdup(unit);
		hm->better = better;
	}
	hm->values = xgrow(hm->values, &hm->alloc_values, hm->n_values + 1, sizeof(double));
	hm->raw_counts = xgrow(hm->raw_counts, &hm->alloc_counts, hm->n_values + 1, sizeof(size_t));
	hm->values[hm->n_values] = value;
	hm->raw_counts[hm->n_values++] = n;
	hm->raw = xgrow(hm->raw, &hm->alloc_raw, hm->n_raw + n, sizeof(double));
	if (n)
		memcpy(hm->raw + hm->n_raw, raw, n * sizeof(double));
	hm->n_raw += n;
}

static void side_release(struct results_side *side)
{
	int m;
	size_t i;

	for (i = 0; i < side->n_harness_metrics; i++) {
		free(side->harness_metrics[i].name);
		free(side->harness_metrics[i].unit);
		free(side->harness_metrics[i].values);
		free(side->harness_metrics[i].raw);
		free(side->harness_metrics[i].raw_counts);
	}
	free(side->harness_metrics);

	for (m = 0; m < METRIC__COUNT; m++) {
		struct results_metric *rm = &side->metrics[m];
		free(rm->reason);
		free(rm->stats.percentiles);
		free(rm->samples);
		free(rm->work.file_size);
		free(rm->work.unit);
		free(rm->counter_backend);
		free(rm->counter_version);
		free(rm->counter_event);
	}
	error_release(&side->error);
	free(side->run_start_ns);
	free(side->run_end_ns);
}

static void command_release(struct results_command *c)
{
	size_t i;

	free(c->name);
	free(c->command);
	free(c->harness.format);
	free(c->harness.command);
	free(c->harness.benchmark);
	for (i = 0; i < c->harness.n_select; i++)
		free(c->harness.select[i]);
	free(c->harness.select);
	free(c->harness.filter);
	for (i = 0; i < c->harness.n_args; i++)
		free(c->harness.args[i]);
	free(c->harness.args);
	side_release(&c->head);
	side_release(&c->base);
	free(c->comparisons);
	for (i = 0; i < c->n_budgets; i++)
		free(c->budgets[i].text);
	free(c->budgets);
}

void results_add_string(char ***v, size_t *n, const char *s)
{
	/* grows one at a time: a selection is a few filters */
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

void results_remove_command(struct results_benchmark *b, size_t i)
{
	command_release(&b->commands[i]);
	memmove(&b->commands[i], &b->commands[i + 1],
		(b->n_commands - i - 1) * sizeof(*b->commands));
	b->n_commands--;
}

static void benchmark_release(struct results_benchmark *b)
{
	size_t i;

	free(b->name);
	free(b->description);
	for (i = 0; i < b->n_tags; i++)
		free(b->tags[i]);
	free(b->tags);
	free(b->baseline);
	free(b->base_name);
	for (i = 0; i < b->n_params; i++) {
		free(b->params[i].name);
		free(b->params[i].value);
	}
	free(b->params);
	error_release(&b->error);
	for (i = 0; i < b->n_commands; i++)
		command_release(&b->commands[i]);
	free(b->commands);
}

static void suite_release(struct results_suite *s)
{
	size_t i;

	free(s->name);
	free(s->description);
	free(s->file);
	error_release(&s->error);
	for (i = 0; i < s->n_benchmarks; i++)
		benchmark_release(&s->benchmarks[i]);
	free(s->benchmarks);
	free(s->geometric_mean_reference);
	for (i = 0; i < s->n_geometric_mean_values; i++)
		free(s->geometric_mean_values[i].command);
	free(s->geometric_mean_values);
	free(s->geometric_mean_unavailable);
	for (i = 0; i < s->n_growth; i++) {
		free(s->growth[i].benchmark);
		free(s->growth[i].command);
		free(s->growth[i].head.from);
		free(s->growth[i].head.to);
		free(s->growth[i].base.from);
		free(s->growth[i].base.to);
		free(s->growth[i].budget_text);
	}
	free(s->growth);
	for (i = 0; i < s->n_not_compared; i++) {
		free(s->not_compared[i].benchmark);
		free(s->not_compared[i].reason);
	}
	free(s->not_compared);
	free(s->commit.sha);
	free(s->commit.subject);
	free(s->commit.suite_hash);
}

void results_free(struct results *r)
{
	struct results_environment *e;
	size_t i;

	if (!r)
		return;
	e = &r->environment;
	free(r->himorime_version);
	free(e->os);
	free(e->arch);
	free(e->kernel);
	free(e->cpu_model);
	free(e->compiler);
	free(e->libc);
	free(e->ci);
	for (i = 0; i < e->n_tools; i++) {
		free(e->tools[i].name);
		free(e->tools[i].version);
	}
	free(e->tools);
	for (i = 0; i < r->calibration.n_rows; i++) {
		free(r->calibration.rows[i].benchmark);
		free(r->calibration.rows[i].command);
		free(r->calibration.rows[i].schedules_note);
	}
	free(r->calibration.rows);
	free(r->calibration.recommended_schedule);
	free(r->calibration.duet_not_measured);
	free(r->git.head_sha);
	free(r->git.base_ref);
	free(r->git.base_sha);
	free(r->git.base_source);
	free(r->git.status_sha);
	free(r->noise.governor);
	free(r->noise.reason);
	free(r->sweep.range);
	free(r->sweep.reference);
	free(r->sweep.settings_hash);
	for (i = 0; i < r->n_suites; i++)
		suite_release(&r->suites[i]);
	free(r->suites);
	free(r);
}

bool results_calibration_row_both(const struct results_calibration_row *row)
{
	return row->schedule_pairs && row->interleaved_half_width_percent > 0 &&
	       row->duet_half_width_percent > 0;
}

double results_calibration_width_ratio(const struct results_calibration *c, size_t *n)
{
	double sum = 0;
	size_t i;

	*n = 0;
	for (i = 0; i < c->n_rows; i++) {
		const struct results_calibration_row *row = &c->rows[i];
		if (!results_calibration_row_both(row))
			continue;
		sum += log(row->duet_half_width_percent / row->interleaved_half_width_percent);
		(*n)++;
	}
	return *n ? exp(sum / (double)*n) : 1;
}
