/*
 * What the formats share (see render_internal.h): walking commands, words
 * for states and verdicts, values with the floor, changes, tolerances and
 * the cells of a comparison row. Nothing here knows a format; the formats
 * call in, never the other way (docs/design.md, "Include walls").
 */
#include "render/render_internal.h"

#include "common/alloc.h"
#include "render/format.h"
#include "results/jsonw.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

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

const char *rnd_str(const char *s)
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
	strbuf_addf(sb, "%s › %s", rnd_str(row->bench->name), rnd_str(row->cmd->name));
}

/* --- words ------------------------------------------------------------------ */

const char *rnd_result_word(enum result_state s)
{
	switch (s) {
	case RESULT_PASS:
		return "pass";
	case RESULT_NEW_SUITE:
		return "new suite";
	case RESULT_NEW:
		return "new";
	case RESULT_REMOVED:
		return "removed";
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
	case RESULT_NEW:
		strbuf_addf(sb, "%llu new", n);
		return;
	case RESULT_REMOVED:
		strbuf_addf(sb, "%llu removed", n);
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
	RESULT_ERROR, RESULT_METRIC_ERROR, RESULT_REGRESSION, RESULT_OVER_BUDGET,
	ACCEPTED,     RESULT_INCONCLUSIVE, RESULT_IMPROVED,   RESULT_REMOVED,
	RESULT_NEW,   RESULT_PASS,	   RESULT_NEW_SUITE,
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

/* The side a failed build's message names ("build (head): exited with
 * code 2", as the engine writes it), or NULL. */
static const char *build_side(const struct results_error *e)
{
	static const char *const sides[] = { "head", "base" };
	size_t i;

	for (i = 0; e->message && i < ARRAY_SIZE(sides); i++)
		if (!strncmp(e->message, "build (", 7) && !strncmp(e->message + 7, sides[i], 4) &&
		    e->message[11] == ')')
			return sides[i];
	return NULL;
}

/* "build failed (head)", or "2 builds failed": what a reader must see first
 * when a build failed, since no command of that suite ran. How many it
 * wrote (0 or 1). */
static size_t build_failures(struct strbuf *sb, const struct results *r)
{
	const struct results_error *first = NULL;
	size_t i, n = 0;

	for (i = 0; i < r->n_suites; i++)
		if (r->suites[i].error.present &&
		    r->suites[i].error.kind == RESULTS_ERROR_BUILD_FAILED && !n++)
			first = &r->suites[i].error;
	if (n > 1)
		strbuf_addf(sb, "%zu builds failed", n);
	else if (n && build_side(first))
		strbuf_addf(sb, "build failed (%s)", build_side(first));
	else if (n)
		strbuf_adds(sb, "build failed");
	return n ? 1 : 0;
}

void rnd_headline_counts(struct strbuf *sb, const struct results *r)
{
	size_t builds = build_failures(sb, r);

	if (builds && r->summary.commands)
		strbuf_adds(sb, " · ");
	if (!counts(sb, r, true) && !builds)
		strbuf_adds(sb, "no commands");
}

void rnd_final_line(struct strbuf *sb, const struct results *r)
{
	unsigned long long nb = r->summary.benchmarks;
	size_t builds = build_failures(sb, r);

	if (builds)
		strbuf_adds(sb, " · ");
	if (counts(sb, r, false))
		strbuf_adds(sb, " · ");
	/* no "0 benchmarks" beside a failed build: none could run */
	if (nb || !builds)
		strbuf_addf(sb, "%llu benchmark%s · ", nb, nb == 1 ? "" : "s");
	strbuf_addf(sb, "seed %llu · exit %d", (unsigned long long)r->seed, r->summary.exit_code);
	if (r->summary.interrupted)
		strbuf_adds(sb, " · interrupted");
}

bool rnd_needs_a_look(const struct results *r)
{
	return r->summary.results[RESULT_INCONCLUSIVE] || r->summary.accepted_regressions;
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

/* The metrics of group g, in enum order. */
static size_t group_metrics(enum metric_group g, enum metric *out, size_t cap)
{
	size_t n = 0;
	int m;

	for (m = 0; m < METRIC__COUNT; m++)
		if (metric_info((enum metric)m)->group == g && n < cap)
			out[n++] = (enum metric)m;
	return n;
}

size_t rnd_group_metrics_in(const struct rnd_rows *rows, enum metric_group g, enum metric *out,
			    size_t cap)
{
	size_t n = group_metrics(g, out, cap), i, j, k = 0;

	if (g != GROUP_COUNTS)
		return n;
	for (i = 0; i < n; i++)
		for (j = 0; j < rows->n; j++) {
			const struct results_command *c = rows->v[j].cmd;
			if ((c->head.present &&
			     c->head.metrics[out[i]].status != STATUS_NOT_REQUESTED) ||
			    (c->base.present &&
			     c->base.metrics[out[i]].status != STATUS_NOT_REQUESTED)) {
				out[k++] = out[i];
				break;
			}
		}
	return k;
}

bool rnd_group_measured(const struct results *r, enum metric_group g)
{
	enum metric ms[METRIC__COUNT];
	size_t i, n = group_metrics(g, ms, METRIC__COUNT);

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
	case GROUP_COUNTS:
		return "Counts";
	}
	return "?";
}

static void from_stats(const struct stats_summary *st, struct rnd_summary *out)
{
	out->count = st->count;
	out->min = st->min;
	out->max = st->max;
	out->mean = st->mean;
	out->median = st->median;
	out->stddev = st->stddev;
}

bool rnd_summary(const struct results_metric *m, struct rnd_summary *out)
{
	struct stats_summary st;

	memset(out, 0, sizeof(*out));
	if (m->status != STATUS_MEASURED)
		return false;
	if (m->has_stats) {
		from_stats(&m->stats, out);
		return true;
	}
	if (!m->n_samples)
		return false;
	/* the figures the producer would have stored: src/stats's */
	stats_summarize(m->samples, m->n_samples, NULL, 0, &st);
	from_stats(&st, out);
	stats_summary_release(&st);
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

size_t rnd_runs_above(size_t runs, double p)
{
	double h;

	if (!runs || p < 0 || p > 100)
		return 0;
	/* the same position as stats_percentile's */
	h = (double)(runs - 1) * (p / 100.0);
	return runs - 1 - (size_t)floor(h);
}

bool rnd_percentile_shown(size_t runs, double p)
{
	return rnd_runs_above(runs, p) >= RND_PERCENTILE_MIN_ABOVE;
}

static size_t runs_of(const struct results_metric *m)
{
	return m->has_stats ? m->stats.count : m->n_samples;
}

void rnd_budget_actual(struct strbuf *sb, const struct results_command *c,
		       const struct results_budget *b, bool *at_floor)
{
	const struct results_metric *m = &c->head.metrics[b->result.metric];
	const struct aggregation *a = &b->result.aggregation;

	if (!b->result.has_actual) {
		strbuf_adds(sb, "—");
		return;
	}
	if (a->kind == AGG_PERCENTILE && !rnd_percentile_shown(runs_of(m), a->percentile)) {
		strbuf_adds(sb, RND_NOT_ENOUGH_RUNS);
		return;
	}
	rnd_value(sb, m, b->result.actual, at_floor);
}

double rnd_detectable_percent(const struct comparison *k)
{
	double high = k->has_detectable_high ? k->detectable_high_percent : -1;
	double low = k->has_detectable_low ? -k->detectable_low_percent : -1;

	return high > low ? high : low;
}

void rnd_detectable(struct strbuf *sb, const struct comparison *k)
{
	if (k->has_detectable_high && k->has_detectable_low) {
		strbuf_adds(sb, "±");
		rnd_percent(sb, rnd_detectable_percent(k));
	} else if (k->has_detectable_high) {
		strbuf_adds(sb, "+");
		rnd_percent(sb, k->detectable_high_percent);
	} else if (k->has_detectable_low) {
		strbuf_adds(sb, "-");
		rnd_percent(sb, -k->detectable_low_percent);
	} else {
		strbuf_adds(sb, "—");
	}
}

void rnd_cmp_value(struct strbuf *sb, const struct results_command *c, const struct comparison *k,
		   bool head, bool *at_floor)
{
	const struct results_side *side = head ? &c->head : &c->base;

	/* a count the time budget stopped before its first run has no value */
	if (!side->present || (k->counts && k->pairs == 0)) {
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
	/* constant counts have no interval to show */
	if (k->counts && k->ci_low_percent == k->ci_high_percent)
		return;
	strbuf_adds(sb, " (");
	fmt_change(sb, k->ci_low_percent, typographic);
	strbuf_adds(sb, " … ");
	fmt_change(sb, k->ci_high_percent, typographic);
	strbuf_adds(sb, ")");
}

void rnd_percent(struct strbuf *sb, double pct)
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
	rnd_percent(sb, k->band_low_percent);
	strbuf_adds(sb, " / ");
	if (k->band_high_infinite) {
		strbuf_adds(sb, "+∞");
		return;
	}
	strbuf_addch(sb, '+');
	rnd_percent(sb, k->band_high_percent);
}

void rnd_tolerance(struct strbuf *sb, const struct comparison *k)
{
	/* a band never formed (a skipped comparison) keeps the tolerance */
	if (k->derived && !k->band_low_infinite && fabs(k->band_high_percent) < 1e6) {
		band_bounds(sb, k);
		return;
	}
	strbuf_adds(sb, "±");
	rnd_percent(sb, k->max_fraction * 100.0);
	if (k->has_min_difference && k->min_difference > 0) {
		strbuf_adds(sb, " or ");
		fmt_metric(sb, k->metric, k->min_difference, NULL);
	}
}

void rnd_confidence(struct strbuf *sb, const struct comparison *k)
{
	/* a count is decided by the counts rule, not at a confidence; one it
	 * could not decide claims nothing */
	if (k->counts) {
		strbuf_adds(sb, k->verdict == VERDICT_INCONCLUSIVE || k->verdict == VERDICT_SKIPPED
					? "—"
					: "exact");
		return;
	}
	if (k->confidence <= 0) {
		strbuf_adds(sb, "—");
		return;
	}
	rnd_percent(sb, k->confidence * 100.0);
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

void rnd_number(struct strbuf *sb, double v)
{
	jsonw_number_text(sb, v);
}

void rnd_aggregation(struct strbuf *sb, const struct aggregation *a)
{
	char buf[64];

	if (aggregation_name(a, buf, sizeof(buf)))
		strbuf_adds(sb, buf);
}

const char *rnd_op(enum bound_op op)
{
	return bound_op_name(op);
}

void rnd_budget_table(const struct rnd_rows *rows, bool problems_only,
		      void (*text)(struct strbuf *, const char *), struct table *t)
{
	static const char *const cols[] = { "benchmark › command", "metric", "budget", ">actual",
					    "result" };
	struct strbuf label = STRBUF_INIT, budget = STRBUF_INIT, actual = STRBUF_INIT;
	size_t i, j;

	table_init(t, ARRAY_SIZE(cols), cols);
	for (i = 0; i < rows->n; i++) {
		const struct results_command *cmd = rows->v[i].cmd;
		for (j = 0; j < cmd->n_budgets; j++) {
			const struct results_budget *b = &cmd->budgets[j];
			const char *cells[ARRAY_SIZE(cols)];
			if (problems_only && b->result.status == BUDGET_PASS)
				continue;
			strbuf_reset(&label);
			strbuf_reset(&budget);
			strbuf_reset(&actual);
			text(&label, rnd_str(rows->v[i].bench->name));
			strbuf_adds(&label, " › ");
			text(&label, rnd_str(cmd->name));
			rnd_aggregation(&budget, &b->result.aggregation);
			strbuf_addch(&budget, ' ');
			text(&budget, b->text ? b->text : rnd_op(b->result.op));
			rnd_budget_actual(&actual, cmd, b, NULL);
			if (rows->v[i].bench->schedule == SCHEDULE_DUET)
				strbuf_adds(&actual, " (duet runs)");
			cells[0] = label.buf;
			cells[1] = metric_info(b->result.metric)->name;
			cells[2] = budget.buf;
			cells[3] = actual.buf;
			cells[4] = rnd_budget_word(b->result.status);
			table_add_row(t, cells);
		}
	}
	strbuf_release(&label);
	strbuf_release(&budget);
	strbuf_release(&actual);
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
