/*
 * The entry point of every rendering (see render.h) and what the formats
 * share: walking commands, words for states, values with the floor, the notes
 * under the tables and escaping (see render_internal.h).
 */
#include "render/render_internal.h"

#include "common/alloc.h"
#include "render/format.h"
#include "results/jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/banned.h"

static const char *const format_names[] = {
	[RENDER_TABLE] = "table",	[RENDER_JSON] = "json",
	[RENDER_CSV] = "csv",		[RENDER_SAMPLES_CSV] = "samples-csv",
	[RENDER_MARKDOWN] = "markdown", [RENDER_GITHUB] = "github",
	[RENDER_HTML] = "html",
};

int render_format_from_name(const char *name, enum render_format *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(format_names); i++)
		if (!strcmp(name, format_names[i])) {
			*out = (enum render_format)i;
			return 0;
		}
	return -1;
}

const char *render_format_name(enum render_format f)
{
	return format_names[f];
}

static int render_json(const struct results *r, struct strbuf *out, struct err *err)
{
	char *json = NULL;
	size_t len = 0;
	int rc = results_to_json(r, &json, &len, err);

	if (!rc)
		strbuf_add(out, json, len);
	free(json);
	return rc;
}

int render_to(const struct results *r, enum render_format f, const struct render_options *o,
	      struct strbuf *out, struct err *err)
{
	struct render_options defaults = RENDER_OPTIONS_INIT;

	if (!o)
		o = &defaults;
	if (rnd_sweep_handles(r, f))
		return rnd_sweep(r, f, out, err);
	switch (f) {
	case RENDER_TABLE:
		return rnd_table(r, o, out);
	case RENDER_JSON:
		return render_json(r, out, err);
	case RENDER_CSV:
		return rnd_csv(r, out);
	case RENDER_SAMPLES_CSV:
		return rnd_samples_csv(r, out);
	case RENDER_MARKDOWN:
		return rnd_markdown(r, o, out);
	case RENDER_GITHUB:
		return rnd_github(r, o, out);
	case RENDER_HTML:
		return rnd_html(r, out);
	}
	return err_set(err, ERR_INTERNAL, "unknown render format %d", (int)f);
}

/* --- walking the document ------------------------------------------------ */

void rnd_rows_collect(const struct results *r, struct rnd_rows *rows)
{
	size_t s, b, c;

	memset(rows, 0, sizeof(*rows));
	for (s = 0; s < r->n_suites; s++)
		for (b = 0; b < r->suites[s].n_benchmarks; b++)
			for (c = 0; c < r->suites[s].benchmarks[b].n_commands; c++) {
				struct rnd_row *row;
				rows->v =
					xgrow(rows->v, &rows->alloc, rows->n + 1, sizeof(*rows->v));
				row = &rows->v[rows->n++];
				row->suite = &r->suites[s];
				row->bench = &r->suites[s].benchmarks[b];
				row->cmd = &r->suites[s].benchmarks[b].commands[c];
			}
}

void rnd_rows_release(struct rnd_rows *rows)
{
	if (!rows)
		return;
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}

static const char *str(const char *s)
{
	return s ? s : "";
}

const char *rnd_mode_label(const struct results *r)
{
	return r->calibration.present ? "calibrate" : results_mode_name(r->mode);
}

const char *rnd_base_name(const struct results *r)
{
	const char *name = r->git.base_ref, *sha = r->git.base_sha;
	size_t n;

	if (!name || !*name)
		return NULL;
	n = strlen(name);
	if (sha && n >= 4 && n <= strlen(sha) && strspn(name, "0123456789abcdefABCDEF") == n &&
	    !strncasecmp(name, sha, n))
		return NULL;
	return name;
}

void rnd_label(struct strbuf *sb, const struct rnd_row *row)
{
	strbuf_addf(sb, "%s › %s", str(row->bench->name), str(row->cmd->name));
}

/* --- words ------------------------------------------------------------------ */

const char *rnd_result_word(enum result_state s)
{
	switch (s) {
	case RESULT_PASS:
		return "pass";
	case RESULT_NEW_SUITE:
		return "new suite";
	case RESULT_IMPROVED:
		return "improved";
	case RESULT_INCONCLUSIVE:
		return "inconclusive";
	case RESULT_OVER_BUDGET:
		return "over budget";
	case RESULT_REGRESSION:
		return "regression";
	case RESULT_METRIC_ERROR:
		return "metric error";
	case RESULT_ERROR:
		return "error";
	}
	return "?";
}

void rnd_result_count(struct strbuf *sb, enum result_state s, unsigned long long n)
{
	const char *plural = n == 1 ? "" : "s";

	switch (s) {
	case RESULT_PASS:
		strbuf_addf(sb, "%llu passed", n);
		return;
	case RESULT_NEW_SUITE:
		strbuf_addf(sb, "%llu measured on head only", n);
		return;
	case RESULT_IMPROVED:
		strbuf_addf(sb, "%llu improved", n);
		return;
	case RESULT_INCONCLUSIVE:
		strbuf_addf(sb, "%llu inconclusive", n);
		return;
	case RESULT_OVER_BUDGET:
		strbuf_addf(sb, "%llu over budget", n);
		return;
	case RESULT_REGRESSION:
		strbuf_addf(sb, "%llu regression%s", n, plural);
		return;
	case RESULT_METRIC_ERROR:
		strbuf_addf(sb, "%llu metric error%s", n, plural);
		return;
	case RESULT_ERROR:
		strbuf_addf(sb, "%llu failed", n);
		return;
	}
}

/* Problem states first, worst first, then the good ones; an accepted
 * regression (ACCEPTED) sits after everything that still fails the job. */
#define ACCEPTED (-1)
static const int count_order[] = {
	RESULT_ERROR,	     RESULT_METRIC_ERROR, RESULT_REGRESSION, RESULT_OVER_BUDGET, ACCEPTED,
	RESULT_INCONCLUSIVE, RESULT_IMPROVED,	  RESULT_PASS,	     RESULT_NEW_SUITE,
};

static uint64_t count_of(const struct results *r, int slot)
{
	return slot == ACCEPTED ? r->summary.accepted_regressions : r->summary.results[slot];
}

/* Every non-zero count in counting form ("2 regressions", "1 accepted
 * regression", "3 passed"), worst first or best first; how many it wrote. */
static size_t counts(struct strbuf *sb, const struct results *r, bool worst_first)
{
	size_t k, n = ARRAY_SIZE(count_order), shown = 0;

	for (k = 0; k < n; k++) {
		int slot = count_order[worst_first ? k : n - 1 - k];
		uint64_t c = count_of(r, slot);
		if (!c)
			continue;
		if (shown++)
			strbuf_adds(sb, " · ");
		if (slot == ACCEPTED)
			strbuf_addf(sb, "%llu accepted regression%s", (unsigned long long)c,
				    c == 1 ? "" : "s");
		else
			rnd_result_count(sb, (enum result_state)slot, c);
	}
	return shown;
}

void rnd_headline_counts(struct strbuf *sb, const struct results *r)
{
	if (!counts(sb, r, true))
		strbuf_adds(sb, "no commands");
}

void rnd_final_line(struct strbuf *sb, const struct results *r)
{
	unsigned long long nb = r->summary.benchmarks;

	if (counts(sb, r, false))
		strbuf_adds(sb, " · ");
	strbuf_addf(sb, "%llu benchmark%s · seed %llu · exit %d", nb, nb == 1 ? "" : "s",
		    (unsigned long long)r->seed, r->summary.exit_code);
	if (r->summary.interrupted)
		strbuf_adds(sb, " · interrupted");
}

/* --- metrics and values ----------------------------------------------------- */

static bool side_measured(const struct results_side *side, enum metric m)
{
	return side->present && side->metrics[m].status == STATUS_MEASURED;
}

bool rnd_metric_measured(const struct results *r, enum metric m)
{
	size_t s, b, c;

	for (s = 0; s < r->n_suites; s++)
		for (b = 0; b < r->suites[s].n_benchmarks; b++)
			for (c = 0; c < r->suites[s].benchmarks[b].n_commands; c++) {
				const struct results_command *cmd =
					&r->suites[s].benchmarks[b].commands[c];
				if (side_measured(&cmd->head, m) || side_measured(&cmd->base, m))
					return true;
			}
	return false;
}

size_t rnd_group_metrics(enum metric_group g, enum metric *out, size_t cap)
{
	size_t n = 0;
	int m;

	for (m = 0; m < METRIC__COUNT; m++)
		if (metric_info((enum metric)m)->group == g && n < cap)
			out[n++] = (enum metric)m;
	return n;
}

bool rnd_group_measured(const struct results *r, enum metric_group g)
{
	enum metric ms[METRIC__COUNT];
	size_t i, n = rnd_group_metrics(g, ms, METRIC__COUNT);

	for (i = 0; i < n; i++)
		if (rnd_metric_measured(r, ms[i]))
			return true;
	return false;
}

const char *rnd_group_title(enum metric_group g)
{
	switch (g) {
	case GROUP_LATENCY:
		return "Latency";
	case GROUP_THROUGHPUT:
		return "Throughput";
	case GROUP_CPU:
		return "CPU";
	case GROUP_MEMORY:
		return "Memory";
	}
	return "?";
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

bool rnd_summary(const struct results_metric *m, struct rnd_summary *out)
{
	double *v, sum = 0, sq = 0;
	size_t i, n = m->n_samples;

	memset(out, 0, sizeof(*out));
	if (m->status != STATUS_MEASURED)
		return false;
	if (m->has_stats) {
		out->count = m->stats.count;
		out->min = m->stats.min;
		out->max = m->stats.max;
		out->mean = m->stats.mean;
		out->median = m->stats.median;
		out->stddev = m->stats.stddev;
		return true;
	}
	if (!n)
		return false;
	v = xcalloc(n, sizeof(*v));
	memcpy(v, m->samples, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	out->count = n;
	out->min = v[0];
	out->max = v[n - 1];
	out->mean = sum / (double)n;
	out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	for (i = 0; i < n; i++)
		sq += (v[i] - out->mean) * (v[i] - out->mean);
	out->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	free(v);
	return true;
}

const char *rnd_work_unit(const struct results_metric *m)
{
	if (m->work.present && m->work.unit)
		return m->work.unit;
	return "operations";
}

void rnd_value(struct strbuf *sb, const struct results_metric *m, double v, bool *at_floor)
{
	if (m->metric == METRIC_PEAK_RSS && m->has_floor && v <= (double)m->floor_bytes) {
		strbuf_adds(sb, "≤ ");
		fmt_bytes(sb, (double)m->floor_bytes);
		if (at_floor)
			*at_floor = true;
		return;
	}
	fmt_metric(sb, m->metric, v, rnd_work_unit(m));
}

void rnd_cmp_value(struct strbuf *sb, const struct results_command *c, const struct comparison *k,
		   bool head, bool *at_floor)
{
	const struct results_side *side = head ? &c->head : &c->base;

	if (!side->present) {
		strbuf_adds(sb, "—");
		return;
	}
	rnd_value(sb, &side->metrics[k->metric], head ? k->head : k->base, at_floor);
}

void rnd_change(struct strbuf *sb, const struct comparison *k, bool typographic)
{
	if (!k->has_estimate) {
		strbuf_adds(sb, "—");
		return;
	}
	fmt_change(sb, k->change_percent, typographic);
	strbuf_adds(sb, " (");
	fmt_change(sb, k->ci_low_percent, typographic);
	strbuf_adds(sb, " … ");
	fmt_change(sb, k->ci_high_percent, typographic);
	strbuf_adds(sb, ")");
}

static void percent_number(struct strbuf *sb, double pct)
{
	double r = round(pct * 10.0) / 10.0;

	if (r == floor(r))
		strbuf_addf(sb, "%.0f%%", r);
	else
		strbuf_addf(sb, "%.1f%%", r);
}

/* A derived throughput's band is the latency band turned over: 1/1.05 and
 * 1/0.952 give -4.8% and +5%, not a symmetric ±; shown as its two bounds. */
static void band_bounds(struct strbuf *sb, const struct comparison *k)
{
	percent_number(sb, k->band_low_percent);
	strbuf_adds(sb, " / ");
	if (k->band_high_infinite) {
		strbuf_adds(sb, "+∞");
		return;
	}
	strbuf_addch(sb, '+');
	percent_number(sb, k->band_high_percent);
}

void rnd_tolerance(struct strbuf *sb, const struct comparison *k)
{
	/* a band never formed (a skipped comparison) keeps the tolerance */
	if (k->derived && !k->band_low_infinite && fabs(k->band_high_percent) < 1e6) {
		band_bounds(sb, k);
		return;
	}
	strbuf_adds(sb, "±");
	percent_number(sb, k->max_percent * 100.0);
	if (k->has_min_difference && k->min_difference > 0) {
		strbuf_adds(sb, " or ");
		fmt_metric(sb, k->metric, k->min_difference, NULL);
	}
}

void rnd_confidence(struct strbuf *sb, const struct comparison *k)
{
	if (k->confidence <= 0) {
		strbuf_adds(sb, "—");
		return;
	}
	percent_number(sb, k->confidence * 100.0);
}

const char *rnd_verdict_cell(const struct comparison *k)
{
	if (k->accepted)
		return "regression (accepted)";
	if (!k->gate && k->verdict == VERDICT_REGRESSION)
		return "regression (not gated)";
	return verdict_name(k->verdict);
}

static const char *budgets_result(const struct results_command *c, enum metric m)
{
	const char *word = NULL;
	size_t i;

	for (i = 0; i < c->n_budgets; i++) {
		const struct budget_result *b = &c->budgets[i].result;
		if (b->metric != m)
			continue;
		/* a stored document keeps no metric_error flag: a required budget
		 * that could not be assessed left its command metric_error */
		if (b->metric_error ||
		    (c->result == RESULT_METRIC_ERROR && b->status == BUDGET_SKIPPED))
			return rnd_result_word(RESULT_METRIC_ERROR);
		if (b->status == BUDGET_FAIL)
			word = rnd_result_word(RESULT_OVER_BUDGET);
		else if (!word)
			word = rnd_budget_word(b->status);
	}
	return word;
}

const char *rnd_metric_result(const struct results_command *c, enum metric m)
{
	const char *word;
	size_t i;

	if (c->result == RESULT_ERROR)
		return rnd_result_word(RESULT_ERROR);
	for (i = 0; i < c->n_comparisons; i++)
		if (c->comparisons[i].metric == m)
			return rnd_verdict_cell(&c->comparisons[i]);
	word = budgets_result(c, m);
	return word ? word : "—";
}

bool rnd_cmp_is_problem(const struct comparison *k)
{
	switch (k->verdict) {
	case VERDICT_REGRESSION:
	case VERDICT_INCONCLUSIVE:
		return true;
	case VERDICT_PASS:
	case VERDICT_IMPROVED:
	case VERDICT_SKIPPED:
		return false;
	}
	return false;
}

bool rnd_row_is_problem(const struct rnd_row *row)
{
	switch (row->cmd->result) {
	case RESULT_PASS:
	case RESULT_NEW_SUITE:
	case RESULT_IMPROVED:
		return false;
	case RESULT_INCONCLUSIVE:
	case RESULT_OVER_BUDGET:
	case RESULT_REGRESSION:
	case RESULT_METRIC_ERROR:
	case RESULT_ERROR:
		return true;
	}
	return true;
}

void rnd_number(struct strbuf *sb, double v)
{
	jsonw_number_text(sb, v);
}

void rnd_aggregation(struct strbuf *sb, const struct aggregation *a)
{
	char buf[64];

	if (results_format_aggregation(a, buf, sizeof(buf)) < 0)
		return;
	strbuf_adds(sb, buf);
}

const char *rnd_op(enum bound_op op)
{
	return results_bound_op_name(op);
}

/* --- notes ------------------------------------------------------------------ */

static void note_add(struct rnd_notes *notes, struct strbuf *text, const char *stderr_tail)
{
	struct rnd_note *n;

	notes->v = xgrow(notes->v, &notes->alloc, notes->n + 1, sizeof(*notes->v));
	n = &notes->v[notes->n++];
	n->text = strbuf_detach(text, NULL);
	n->stderr_tail = stderr_tail && *stderr_tail ? stderr_tail : NULL;
}

void rnd_notes_release(struct rnd_notes *notes)
{
	size_t i;

	if (!notes)
		return;
	for (i = 0; i < notes->n; i++)
		free(notes->v[i].text);
	free(notes->v);
	memset(notes, 0, sizeof(*notes));
}

const char *rnd_error_words(enum results_error_kind k)
{
	switch (k) {
	case RESULTS_ERROR_BUILD_FAILED:
		return "the build failed";
	case RESULTS_ERROR_SETUP_FAILED:
		return "setup failed";
	case RESULTS_ERROR_PREPARE_EACH_FAILED:
		return "prepare_each failed";
	case RESULTS_ERROR_CLEANUP_FAILED:
		return "cleanup failed";
	case RESULTS_ERROR_EXIT_CODE:
		return "the command failed";
	case RESULTS_ERROR_TIMEOUT:
		return "the command timed out";
	case RESULTS_ERROR_START_FAILED:
		return "the command could not be started";
	case RESULTS_ERROR_INTERRUPTED:
		return "interrupted";
	case RESULTS_ERROR_INVALID_PATH:
		return "invalid path";
	case RESULTS_ERROR_INTERNAL:
		return "internal error";
	case RESULTS_ERROR_METRIC_UNSUPPORTED:
		return "a metric is not supported here";
	case RESULTS_ERROR_METRIC_COLLECTION_FAILED:
		return "a metric could not be collected";
	}
	return "error";
}

static bool never_started(const struct results_benchmark *b)
{
	return b->error.present && b->error.kind == RESULTS_ERROR_INTERRUPTED && !b->n_commands &&
	       b->error.message && !strcmp(b->error.message, RESULTS_NOT_STARTED);
}

/* " Never started: a, b." for the benchmarks an interrupt came before. */
static void never_started_list(const struct results *r, struct strbuf *sb)
{
	size_t s, b, n = 0;

	for (s = 0; s < r->n_suites; s++)
		for (b = 0; b < r->suites[s].n_benchmarks; b++) {
			if (!never_started(&r->suites[s].benchmarks[b]))
				continue;
			strbuf_adds(sb, n++ ? ", " : " Never started: ");
			strbuf_adds(sb, str(r->suites[s].benchmarks[b].name));
		}
	if (n)
		strbuf_addch(sb, '.');
}

static void error_note(struct rnd_notes *notes, const char *where, const struct results_error *e)
{
	struct strbuf sb = STRBUF_INIT;

	if (!e->present)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s: %s", where, rnd_error_words(e->kind));
	/* "interrupted: interrupted" says nothing twice */
	if (e->message && *e->message && strcmp(e->message, rnd_error_words(e->kind)))
		strbuf_addf(&sb, ": %s", e->message);
	if (e->has_exit_code)
		strbuf_addf(&sb, " (exit code %d)", e->exit_code);
	if (e->has_metric)
		strbuf_addf(&sb, " [%s]", metric_info(e->metric)->name);
	note_add(notes, &sb, e->stderr_tail);
}

struct hint {
	const char *reason_part;
	const char *hint;
};

/* What a user can do about each reason the judge and the budgets give. */
static const struct hint hints[] = {
	{ "gated metrics were decided",
	  "it does not gate, so it stopped with them: set regression.<metric>.gate: true to "
	  "measure until it is decided" },
	{ "straddles", "more pairs decide it: raise max_runs or --max-time" },
	{ "time budget ran out", "raise --max-time or regression.max_time" },
	{ "noisier than max_cv", "quiet the machine (fewer parallel jobs) or raise max_cv" },
	{ "base measurement is zero",
	  "measure a larger workload so that the base is above the metric's resolution" },
	{ "measurement floor",
	  "measure a larger input so that the peak RSS rises above the floor" },
	{ "work differs", "keep the declared work constant and equal on both revisions" },
	{ "work varies", "keep the declared work constant and equal on both revisions" },
	{ "not measured", "enable the metric for this benchmark (metrics:)" },
};

static void add_hint(struct strbuf *sb, const char *reason)
{
	size_t i;

	if (!reason)
		return;
	for (i = 0; i < ARRAY_SIZE(hints); i++)
		if (strstr(reason, hints[i].reason_part)) {
			strbuf_addf(sb, "; %s", hints[i].hint);
			return;
		}
}

static void metric_notes(struct rnd_notes *notes, const char *label, const char *side_name,
			 const struct results_side *side)
{
	int m;

	if (!side->present)
		return;
	for (m = 0; m < METRIC__COUNT; m++) {
		const struct results_metric *mt = &side->metrics[m];
		struct strbuf sb;
		if (mt->status != STATUS_UNSUPPORTED && mt->status != STATUS_FAILED)
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "%s%s: %s %s", label, side_name, metric_info(mt->metric)->name,
			    mt->status == STATUS_UNSUPPORTED ? "is not supported here"
							     : "could not be collected");
		if (mt->reason && *mt->reason)
			strbuf_addf(&sb, ": %s", mt->reason);
		note_add(notes, &sb, NULL);
	}
}

/* A metric that keeps growing from run to run (docs/reports.md); `other` is
 * the other side of a comparison, or NULL. */
static void trend_notes(struct rnd_notes *notes, const char *label, const char *side_name,
			const struct results_side *side, const struct results_side *other)
{
	static const enum metric watched[] = { METRIC_LATENCY, METRIC_PEAK_RSS };
	size_t i;

	if (!side->present)
		return;
	for (i = 0; i < ARRAY_SIZE(watched); i++) {
		const struct results_metric *mt = &side->metrics[watched[i]];
		const struct results_trend *t = &mt->trend;
		struct strbuf sb;
		if (!t->present || !t->growing)
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "%s%s: %s keeps growing from run to run: +", label, side_name,
			    metric_info(mt->metric)->name);
		fmt_metric(&sb, mt->metric, t->slope, NULL);
		strbuf_addf(&sb, " per run (%.0f%% interval ", 100.0 * RESULTS_TREND_CONFIDENCE);
		fmt_metric(&sb, mt->metric, t->slope_low, NULL);
		strbuf_adds(&sb, " to ");
		fmt_metric(&sb, mt->metric, t->slope_high, NULL);
		strbuf_adds(&sb, ")");
		if (mt->has_stats && mt->stats.median > 0)
			strbuf_addf(&sb, ", %+.0f%% of the median over %llu runs",
				    100.0 * t->slope * (double)(mt->n_samples - 1) /
					    mt->stats.median,
				    (unsigned long long)mt->n_samples);
		if (other && other->present && other->metrics[watched[i]].trend.present) {
			strbuf_adds(&sb, ", beyond the other side's ");
			fmt_metric(&sb, mt->metric, other->metrics[watched[i]].trend.slope, NULL);
			strbuf_adds(&sb,
				    " per run (drift of the machine moves both sides of the "
				    "pairs alike and cancels, so this growth is the command's)");
		}
		strbuf_adds(&sb,
			    "; something grows between runs (a cache, a file, a log): reset it "
			    "in prepare_each, or the runs measure different work");
		note_add(notes, &sb, NULL);
	}
}

static void comparison_notes(struct rnd_notes *notes, const char *label,
			     const struct results_command *c)
{
	size_t i;

	for (i = 0; i < c->n_comparisons; i++) {
		const struct comparison *k = &c->comparisons[i];
		const char *name = metric_info(k->metric)->name;
		struct strbuf sb;
		strbuf_init(&sb, 0);
		if (k->verdict == VERDICT_INCONCLUSIVE || k->verdict == VERDICT_SKIPPED) {
			strbuf_addf(&sb, "%s: %s %s", label, name, verdict_name(k->verdict));
			if (k->reason[0])
				strbuf_addf(&sb, ": %s", k->reason);
			add_hint(&sb, k->reason);
			if (k->derived)
				strbuf_adds(&sb, " (derived from latency, not gated)");
			else if (!k->gate)
				strbuf_adds(&sb, " (not gated)");
		} else if (k->verdict == VERDICT_REGRESSION && k->accepted) {
			strbuf_addf(&sb,
				    "%s: %s regression accepted by the pull-request label: "
				    "reported, does not fail the job",
				    label, name);
		} else if (k->verdict == VERDICT_REGRESSION && !k->gate) {
			strbuf_addf(&sb, "%s: %s regression is %s: reported, does not fail the job",
				    label, name,
				    k->derived ? "derived from latency, not gated"
					       : "not gated (gate: false)");
		} else {
			strbuf_release(&sb);
			continue;
		}
		note_add(notes, &sb, NULL);
	}
}

static void budget_notes(struct rnd_notes *notes, const char *label,
			 const struct results_command *c)
{
	size_t i;

	for (i = 0; i < c->n_budgets; i++) {
		const struct results_budget *b = &c->budgets[i];
		struct strbuf sb;
		if (b->result.status != BUDGET_SKIPPED && b->result.status != BUDGET_NO_DATA)
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "%s: budget %s ", label, metric_info(b->result.metric)->name);
		rnd_aggregation(&sb, &b->result.aggregation);
		strbuf_addf(&sb, " %s %s", b->text ? b->text : rnd_op(b->result.op),
			    b->result.status == BUDGET_SKIPPED ? "was skipped" : "has no data");
		if (b->result.reason[0])
			strbuf_addf(&sb, ": %s", b->result.reason);
		add_hint(&sb, b->result.reason);
		note_add(notes, &sb, NULL);
	}
}

static bool any_at_floor(const struct results *r)
{
	struct rnd_rows rows;
	size_t i;
	bool found = false;

	rnd_rows_collect(r, &rows);
	for (i = 0; i < rows.n && !found; i++) {
		const struct results_command *c = rows.v[i].cmd;
		found = (c->head.present && c->head.metrics[METRIC_PEAK_RSS].samples_at_floor) ||
			(c->base.present && c->base.metrics[METRIC_PEAK_RSS].samples_at_floor);
	}
	rnd_rows_release(&rows);
	return found;
}

/* Why a suite of several benchmarks has no geometric mean; one benchmark
 * has nothing to average, and says nothing. */
static void geomean_absent(const struct results_suite *su, struct rnd_notes *notes)
{
	struct strbuf sb;

	if (su->n_benchmarks < 2 || !su->geometric_mean_unavailable)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s: no geometric mean over the benchmarks: %s.", str(su->name),
		    su->geometric_mean_unavailable);
	note_add(notes, &sb, NULL);
}

/* "Geometric mean over 3 benchmarks, head/base: fast 0.91×, slow 1.20×." */
static void geomean_notes(const struct results *r, struct rnd_notes *notes)
{
	struct strbuf sb;
	size_t s, i;

	strbuf_init(&sb, 0);
	for (s = 0; s < r->n_suites; s++) {
		const struct results_suite *su = &r->suites[s];
		const char *ref = su->geometric_mean_reference ? su->geometric_mean_reference : "";
		if (!su->has_geometric_mean || !su->n_geometric_mean_values ||
		    su->geometric_mean_cases < 2) {
			geomean_absent(su, notes);
			continue;
		}
		strbuf_addf(&sb, "%s: geometric mean over %llu benchmark%s, %s: ", str(su->name),
			    (unsigned long long)su->geometric_mean_cases,
			    su->geometric_mean_cases == 1 ? "" : "s",
			    !strcmp(ref, "base")       ? "head/base latency"
			    : !strcmp(ref, "baseline") ? "relative to the baseline"
						       : "relative to the fastest");
		for (i = 0; i < su->n_geometric_mean_values; i++)
			strbuf_addf(&sb, "%s%s %.2f×", i ? ", " : "",
				    str(su->geometric_mean_values[i].command),
				    su->geometric_mean_values[i].ratio);
		strbuf_addch(&sb, '.');
		note_add(notes, &sb, NULL);
	}
	strbuf_release(&sb);
}

/* The runner shares one file between the sides when their builds match (a
 * sweep records it per commit in the JSON; a note per commit would drown the
 * others). */
/* A suite whose file the base revision does not have (docs/revisions.md). */
static void new_suite_note(struct rnd_notes *notes, const struct results_suite *su)
{
	struct strbuf sb;

	if (!su->new_in_head)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb,
		    "%s: new suite: measured on head only, nothing compared (the base revision "
		    "has no %s); --suite-from head measures the base with this suite too.",
		    str(su->name), su->file ? su->file : "suite file");
	note_add(notes, &sb, NULL);
}

static void artifact_notes(const struct results *r, struct rnd_notes *notes)
{
	size_t s;

	for (s = 0; s < r->n_suites && r->mode == RESULTS_MODE_COMPARE; s++) {
		struct strbuf sb;
		if (!r->suites[s].shared_artifact)
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(
			&sb,
			"%s: base and head built byte-identical artifacts, and both sides ran "
			"that one file: a difference measured here does not come from the build.",
			str(r->suites[s].name));
		note_add(notes, &sb, NULL);
	}
}

static void machine_notes(const struct results *r, struct rnd_notes *notes)
{
	struct strbuf sb;
	bool cpu = rnd_group_measured(r, GROUP_CPU), mem = rnd_metric_measured(r, METRIC_PEAK_RSS);

	strbuf_init(&sb, 0);
	if (any_at_floor(r)) {
		strbuf_adds(&sb,
			    "≤ marks a peak RSS at or below the measurement floor (the peak RSS "
			    "of the process that started the command): the real peak is at most "
			    "that; measure a larger input to see it.");
		note_add(notes, &sb, NULL);
	}
	if (cpu && mem)
		strbuf_adds(&sb, "CPU time covers the command and its waited-for descendants; "
				 "peak RSS is the largest single process.");
	else if (cpu)
		strbuf_adds(&sb, "CPU time covers the command and its waited-for descendants.");
	else if (mem)
		strbuf_adds(&sb, "Peak RSS is the largest single process of the command's tree.");
	if (sb.len)
		note_add(notes, &sb, NULL);
	if (r->noise.noisy) {
		strbuf_adds(&sb, "The machine was noisy");
		if (r->noise.reason && *r->noise.reason)
			strbuf_addf(&sb, " (%s)", r->noise.reason);
		strbuf_adds(&sb, ": comparisons need more runs to decide, and budgets may fail "
				 "from load alone.");
		note_add(notes, &sb, NULL);
	}
	if (r->summary.interrupted) {
		strbuf_adds(&sb, "The run was interrupted: these results are partial.");
		never_started_list(r, &sb);
		note_add(notes, &sb, NULL);
	}
	strbuf_release(&sb);
}

void rnd_notes_collect(const struct results *r, struct rnd_notes *notes)
{
	struct rnd_rows rows;
	struct strbuf label;
	size_t s, b, i;

	memset(notes, 0, sizeof(*notes));
	strbuf_init(&label, 0);
	for (s = 0; s < r->n_suites; s++) {
		const struct results_suite *su = &r->suites[s];
		new_suite_note(notes, su);
		error_note(notes, str(su->name), &su->error);
		for (b = 0; b < su->n_benchmarks; b++)
			if (!never_started(&su->benchmarks[b])) /* listed once, below */
				error_note(notes, str(su->benchmarks[b].name),
					   &su->benchmarks[b].error);
	}
	rnd_rows_collect(r, &rows);
	for (i = 0; i < rows.n; i++) {
		const struct results_command *c = rows.v[i].cmd;
		bool cmp = r->mode == RESULTS_MODE_COMPARE;
		strbuf_reset(&label);
		rnd_label(&label, &rows.v[i]);
		if (c->head.error.present) {
			struct strbuf where;
			strbuf_init(&where, 0);
			strbuf_addf(&where, "%s%s", label.buf, cmp ? " (head)" : "");
			error_note(notes, where.buf, &c->head.error);
			strbuf_release(&where);
		}
		if (c->base.error.present) {
			struct strbuf where;
			strbuf_init(&where, 0);
			strbuf_addf(&where, "%s (base)", label.buf);
			error_note(notes, where.buf, &c->base.error);
			strbuf_release(&where);
		}
	}
	for (i = 0; i < rows.n; i++) {
		const struct results_command *c = rows.v[i].cmd;
		bool cmp = r->mode == RESULTS_MODE_COMPARE;
		strbuf_reset(&label);
		rnd_label(&label, &rows.v[i]);
		metric_notes(notes, label.buf, cmp ? " (head)" : "", &c->head);
		metric_notes(notes, label.buf, " (base)", &c->base);
		trend_notes(notes, label.buf, cmp ? " (head)" : "", &c->head, &c->base);
		trend_notes(notes, label.buf, " (base)", &c->base, &c->head);
		comparison_notes(notes, label.buf, c);
		budget_notes(notes, label.buf, c);
	}
	rnd_rows_release(&rows);
	strbuf_release(&label);
	geomean_notes(r, notes);
	artifact_notes(r, notes);
	machine_notes(r, notes);
}

/* --- sections ------------------------------------------------------------------- */

int render_section_name_check(const char *name, struct err *err)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > 64)
		goto bad;
	for (i = 0; i < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (i > 0 && c == '-');
		if (!ok)
			goto bad;
	}
	return 0;
bad:
	return err_set(err, ERR_USAGE,
		       "invalid section name \"%s\": expected lower-case letters, digits and "
		       "dashes, starting with a letter or digit",
		       name);
}

/* Finds the line that is exactly `marker` (surrounding blanks allowed);
 * returns its start or NULL, and counts the matches. */
static const char *find_marker_line(const char *page, const char *marker, size_t *count,
				    const char **line_end)
{
	const char *p = page, *first = NULL;
	size_t mlen = strlen(marker);

	*count = 0;
	while (*p) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		const char *a = p, *z = end;
		while (a < z && (*a == ' ' || *a == '\t'))
			a++;
		while (z > a && (z[-1] == ' ' || z[-1] == '\t' || z[-1] == '\r'))
			z--;
		if ((size_t)(z - a) == mlen && !memcmp(a, marker, mlen)) {
			if (!*count) {
				first = p;
				*line_end = eol ? eol + 1 : end;
			}
			(*count)++;
		}
		p = eol ? eol + 1 : end;
	}
	return first;
}

/* Level of an ATX heading line ("## x" is 2), 0 if it is not one. */
static int heading_level(const char *line, const char *end)
{
	int n = 0;

	while (line < end && *line == '#' && n < 7) {
		line++;
		n++;
	}
	if (n == 0 || n > 6)
		return 0;
	if (line < end && *line != ' ' && *line != '\t' && *line != '\r')
		return 0;
	return n;
}

static bool is_fence(const char *line, const char *end)
{
	while (line < end && *line == ' ')
		line++;
	return end - line >= 3 && (!memcmp(line, "```", 3) || !memcmp(line, "~~~", 3));
}

/* The level the body's top heading should get: one below the page's last
 * heading before `stop`; 0 when the page has none. */
static int page_level(const char *page, const char *stop)
{
	const char *p = page;
	int level = 0;
	bool fenced = false;

	while (p < stop) {
		const char *eol = memchr(p, '\n', (size_t)(stop - p));
		const char *end = eol ? eol : stop;
		if (is_fence(p, end))
			fenced = !fenced;
		else if (!fenced && heading_level(p, end))
			level = heading_level(p, end);
		p = eol ? eol + 1 : stop;
	}
	return level;
}

static void add_body(struct strbuf *out, const char *body, int want)
{
	const char *p = body;
	int top = 0, shift;
	bool fenced = false;

	while (*p) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		int l;
		if (is_fence(p, end))
			fenced = !fenced;
		else if (!fenced && (l = heading_level(p, end)) && (!top || l < top))
			top = l;
		p = eol ? eol + 1 : end;
	}
	shift = want && top ? want - top : 0;
	fenced = false;
	for (p = body; *p;) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol + 1 : p + strlen(p);
		int l = 0;
		if (is_fence(p, end))
			fenced = !fenced;
		else if (!fenced)
			l = heading_level(p, end);
		if (l && shift) {
			int nl = l + shift;
			nl = nl < 1 ? 1 : nl > 6 ? 6 : nl;
			while (nl--)
				strbuf_addch(out, '#');
			strbuf_add(out, p + l, (size_t)(end - p - l));
		} else {
			strbuf_add(out, p, (size_t)(end - p));
		}
		p = end;
	}
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
}

int render_markdown_section(const char *page, const char *name, const char *body,
			    struct strbuf *out, struct err *err)
{
	char begin[128], end[128];
	const char *b, *e, *b_end = NULL, *e_end = NULL;
	size_t nb, ne;
	int level;

	if (render_section_name_check(name, err))
		return ERR_USAGE;
	snprintf(begin, sizeof(begin), "<!-- himorime:begin %s -->", name);
	snprintf(end, sizeof(end), "<!-- himorime:end %s -->", name);
	b = find_marker_line(page, begin, &nb, &b_end);
	e = find_marker_line(page, end, &ne, &e_end);
	if (!b || !e)
		return err_set(err, ERR_EXEC, "section \"%s\": the page has no \"%s\" line", name,
			       !b ? begin : end);
	if (nb > 1 || ne > 1)
		return err_set(err, ERR_EXEC,
			       "section \"%s\": the page has more than one \"%s\" line", name,
			       nb > 1 ? begin : end);
	if (e < b)
		return err_set(err, ERR_EXEC, "section \"%s\": \"%s\" comes before \"%s\"", name,
			       end, begin);
	level = page_level(page, b);
	strbuf_add(out, page, (size_t)(b_end - page));
	if (b_end > page && b_end[-1] != '\n')
		strbuf_addch(out, '\n');
	add_body(out, body, level ? (level < 6 ? level + 1 : 6) : 0);
	strbuf_adds(out, e);
	return 0;
}

const char *rnd_budget_word(enum budget_status s)
{
	switch (s) {
	case BUDGET_PASS:
		return "pass";
	case BUDGET_FAIL:
		return "over budget";
	case BUDGET_SKIPPED:
		return "skipped";
	case BUDGET_NO_DATA:
		return "no data";
	}
	return "?";
}

void rnd_cmp_cells_init(struct rnd_cmp_cells *c)
{
	strbuf_init(&c->base, 0);
	strbuf_init(&c->head, 0);
	strbuf_init(&c->change, 0);
	strbuf_init(&c->confidence, 0);
	strbuf_init(&c->tolerance, 0);
	strbuf_init(&c->pairs, 0);
}

void rnd_cmp_cells_fill(struct rnd_cmp_cells *c, const struct results_command *cmd,
			const struct comparison *k)
{
	strbuf_reset(&c->base);
	strbuf_reset(&c->head);
	strbuf_reset(&c->change);
	strbuf_reset(&c->confidence);
	strbuf_reset(&c->tolerance);
	strbuf_reset(&c->pairs);
	rnd_cmp_value(&c->base, cmd, k, false, NULL);
	rnd_cmp_value(&c->head, cmd, k, true, NULL);
	rnd_change(&c->change, k, true);
	rnd_confidence(&c->confidence, k);
	rnd_tolerance(&c->tolerance, k);
	strbuf_addf(&c->pairs, "%u", k->pairs);
}

void rnd_cmp_cells_release(struct rnd_cmp_cells *c)
{
	strbuf_release(&c->base);
	strbuf_release(&c->head);
	strbuf_release(&c->change);
	strbuf_release(&c->confidence);
	strbuf_release(&c->tolerance);
	strbuf_release(&c->pairs);
}
