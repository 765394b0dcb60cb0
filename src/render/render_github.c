/*
 * The `github` format: the job summary, the verdict first, the rows that
 * need a look, a Mermaid chart of head against base, the notes, and
 * everything else folded in <details>; with `comment` set it is the
 * pull-request comment (the same content under the caller's marker, cut to
 * fit). Tables shared with `markdown` come from render_markdown.c. Every
 * string from the document goes through rnd_md_text or rnd_md_cell: a
 * benchmark name can be hostile.
 */
#include "render/formats.h"

#include "common/alloc.h"
#include "render/format.h"
#include "render/table.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define CHART_MAX_BARS 20
/* Problem rows the comment shows above its first <details>: with the lines
 * around them the top stays under 40 lines whatever the suite's size. */
#define COMMENT_MAX_ROWS 10
/* A long list of comparisons in the comment: the problems and the largest
 * changes in one fold, the rest in another, as many of them (largest change
 * first) as leave COMMENT_TAIL_BYTES for the sections after them. */
#define COMMENT_LARGEST	   20
#define COMMENT_TAIL_BYTES ((size_t)16384)

static const char *headline_icon(const struct results *r)
{
	if (r->summary.exit_code != 0)
		return "❌";
	if (rnd_needs_a_look(r))
		return "⚠️";
	/* Neutral: a suite new in head was not compared, so it did not pass. */
	if (r->summary.new_suites)
		return "ℹ️";
	return "✅";
}

static void context_line(const struct results *r, struct strbuf *out)
{
	const struct results_environment *env = &r->environment;
	unsigned long long nb = r->summary.benchmarks, nc = r->summary.commands;

	if (r->git.present && r->mode == RESULTS_MODE_COMPARE) {
		strbuf_adds(out, "`");
		strbuf_adds(out, "base");
		strbuf_adds(out, "` ");
		if (rnd_base_name(r)) {
			rnd_md_text(out, rnd_base_name(r));
			strbuf_adds(out, " ");
		}
		if (r->git.base_sha)
			strbuf_addf(out, "%.7s", r->git.base_sha);
		strbuf_adds(out, " → `head` ");
		if (r->git.head_sha)
			strbuf_addf(out, "%.7s", r->git.head_sha);
		if (r->git.dirty)
			strbuf_adds(out, " (with uncommitted changes)");
		strbuf_adds(out, " · ");
	}
	if (nb) /* none when a build failed: the headline says so */
		strbuf_addf(out, "%llu benchmark%s, %llu command%s · ", nb, nb == 1 ? "" : "s", nc,
			    nc == 1 ? "" : "s");
	rnd_md_text(out, env->os);
	strbuf_addch(out, ' ');
	rnd_md_text(out, env->arch);
	strbuf_addf(out, ", %u CPUs", env->logical_cpus);
	if (r->finished_at_unix_ns > r->started_at_unix_ns) {
		strbuf_adds(out, " · ");
		fmt_duration(out, (double)r->finished_at_unix_ns - (double)r->started_at_unix_ns);
	}
	strbuf_adds(out, "\n\n");
}

static const char *problem_icon(enum verdict v)
{
	return v == VERDICT_REGRESSION ? "❌" : "⚠️";
}

/* Problem rows in the order the comment shows them (the job summary keeps
 * the document's order): what failed to run, gated regressions, broken
 * budgets, regressions that do not fail the job; then what the comment
 * leaves to its count line and its details. */
enum problem_rank {
	RANK_ERROR,
	RANK_REGRESSION,
	RANK_OVER_BUDGET,
	RANK_NOT_GATING,
	RANK_UNASSESSED,
	RANK_INCONCLUSIVE,
};

/* The text of one problem row, reused from row to row. */
struct problem_text {
	struct strbuf label, base, head, change, what;
};

/* Rows of one rank (or of every rank, in document order), at most `cap`
 * of them; those beyond are counted in `more`. */
struct problems {
	struct table t;
	bool every_rank;
	enum problem_rank rank;
	size_t cap, more;
	struct problem_text p;
};

/* Adds a problem row given all seven cells; a run's table has no base and
 * no change column. */
static void problem_row(struct problems *pr, enum problem_rank rank, const char *const *cells)
{
	struct table *t = &pr->t;
	const char *run[5];

	if (!pr->every_rank && rank != pr->rank)
		return;
	if (t->nrows >= pr->cap) {
		pr->more++;
		return;
	}
	if (t->ncols == 7) {
		table_add_row(t, cells);
		return;
	}
	run[0] = cells[0];
	run[1] = cells[1];
	run[2] = cells[2];
	run[3] = cells[4];
	run[4] = cells[6];
	table_add_row(t, run);
}

/* Suites and benchmarks that failed before their commands ran. */
static void entity_problem(struct problems *pr, const char *name, const struct results_error *e)
{
	struct strbuf *what = &pr->p.what;
	const char *cells[7];
	struct strbuf label;

	if (!e->present)
		return;
	strbuf_init(&label, 0);
	rnd_md_cell(&label, name);
	strbuf_reset(what);
	strbuf_adds(what, rnd_error_words(e->kind));
	if (e->message) {
		strbuf_adds(what, ": ");
		rnd_md_cell(what, e->message);
	}
	cells[0] = "❌";
	cells[1] = label.buf;
	cells[2] = e->has_metric ? metric_info(e->metric)->name : "";
	cells[3] = cells[4] = cells[5] = "";
	cells[6] = what->buf;
	problem_row(pr, RANK_ERROR, cells);
	strbuf_release(&label);
}

static void entity_problems(const struct results *r, struct problems *pr)
{
	size_t s, b;

	for (s = 0; s < r->n_suites; s++) {
		entity_problem(pr, r->suites[s].name, &r->suites[s].error);
		for (b = 0; b < r->suites[s].n_benchmarks; b++)
			entity_problem(pr, r->suites[s].benchmarks[b].name,
				       &r->suites[s].benchmarks[b].error);
	}
}

static void problem_text_init(struct problem_text *p)
{
	strbuf_init(&p->label, 0);
	strbuf_init(&p->base, 0);
	strbuf_init(&p->head, 0);
	strbuf_init(&p->change, 0);
	strbuf_init(&p->what, 0);
}

static void problem_text_reset(struct problem_text *p, const struct rnd_row *row)
{
	rnd_md_cell_label(&p->label, row);
	strbuf_reset(&p->base);
	strbuf_reset(&p->head);
	strbuf_reset(&p->change);
	strbuf_reset(&p->what);
}

static void problem_text_release(struct problem_text *p)
{
	strbuf_release(&p->label);
	strbuf_release(&p->base);
	strbuf_release(&p->head);
	strbuf_release(&p->change);
	strbuf_release(&p->what);
}

static void problem_text_row(struct problems *pr, enum problem_rank rank, const char *icon,
			     enum metric m)
{
	const struct problem_text *p = &pr->p;
	const char *cells[7];

	cells[0] = icon;
	cells[1] = p->label.buf;
	cells[2] = metric_info(m)->name;
	cells[3] = p->base.buf;
	cells[4] = p->head.buf;
	cells[5] = p->change.buf;
	cells[6] = p->what.buf;
	problem_row(pr, rank, cells);
}

/* A regression's change in bold with its interval; else as elsewhere. */
static void problem_change(struct strbuf *sb, const struct comparison *k)
{
	if (!(k->has_estimate && k->verdict == VERDICT_REGRESSION)) {
		rnd_change(sb, k, true);
		return;
	}
	strbuf_adds(sb, "**");
	fmt_change(sb, k->change_percent, true);
	strbuf_adds(sb, "**");
	if (k->counts && k->ci_low_percent == k->ci_high_percent)
		return; /* constant counts: no interval */
	strbuf_adds(sb, " (");
	fmt_change(sb, k->ci_low_percent, true);
	strbuf_adds(sb, " … ");
	fmt_change(sb, k->ci_high_percent, true);
	strbuf_adds(sb, ")");
}

static enum problem_rank comparison_rank(const struct comparison *k)
{
	if (k->verdict != VERDICT_REGRESSION)
		return RANK_INCONCLUSIVE;
	return k->accepted || !k->gate ? RANK_NOT_GATING : RANK_REGRESSION;
}

static void comparison_problem(struct problems *pr, const struct rnd_row *row,
			       const struct comparison *k)
{
	struct problem_text *p = &pr->p;

	problem_text_reset(p, row);
	rnd_cmp_value(&p->base, row->cmd, k, false, NULL);
	rnd_cmp_value(&p->head, row->cmd, k, true, NULL);
	problem_change(&p->change, k);
	if (k->verdict == VERDICT_REGRESSION) {
		strbuf_adds(&p->what, "regression beyond ");
		rnd_tolerance(&p->what, k);
		if (k->accepted)
			strbuf_adds(&p->what, " (accepted)");
		else if (!k->gate)
			strbuf_adds(&p->what, " (not gated)");
	} else {
		strbuf_adds(&p->what, "inconclusive");
		if (k->reason[0]) {
			strbuf_adds(&p->what, ": ");
			rnd_md_cell(&p->what, k->reason);
		}
	}
	problem_text_row(pr, comparison_rank(k),
			 k->accepted || !k->gate ? "⚠️" : problem_icon(k->verdict), k->metric);
}

static void budget_problem(struct problems *pr, const struct rnd_row *row,
			   const struct results_budget *b)
{
	struct problem_text *p = &pr->p;
	bool broken = b->result.status == BUDGET_FAIL;

	problem_text_reset(p, row);
	rnd_budget_actual(&p->head, row->cmd, b, NULL);
	strbuf_addf(&p->what, "%s: ", rnd_budget_word(b->result.status));
	rnd_aggregation(&p->what, &b->result.aggregation);
	strbuf_adds(&p->what, " ");
	rnd_md_cell(&p->what, b->text ? b->text : rnd_op(b->result.op));
	if (b->result.reason[0]) {
		strbuf_adds(&p->what, " (");
		rnd_md_cell(&p->what, b->result.reason);
		strbuf_adds(&p->what, ")");
	}
	problem_text_row(pr, broken ? RANK_OVER_BUDGET : RANK_UNASSESSED, broken ? "❌" : "⚠️",
			 b->result.metric);
}

/* A failed command: its error, on the side that has one. */
static void error_problem(struct problems *pr, const struct rnd_row *row)
{
	const struct results_command *cmd = row->cmd;
	const struct results_error *e =
		cmd->head.error.present ? &cmd->head.error : &cmd->base.error;
	struct problem_text *p = &pr->p;
	const char *cells[7];

	problem_text_reset(p, row);
	strbuf_adds(&p->what, rnd_result_word(cmd->result));
	if (e->present && e->message) {
		strbuf_adds(&p->what, ": ");
		rnd_md_cell(&p->what, e->message);
	}
	cells[0] = "❌";
	cells[1] = p->label.buf;
	cells[2] = e->present && e->has_metric ? metric_info(e->metric)->name : "";
	cells[3] = cells[4] = cells[5] = "";
	cells[6] = p->what.buf;
	problem_row(pr, RANK_ERROR, cells);
}

static void command_problems(struct problems *pr, const struct rnd_row *row)
{
	const struct results_command *cmd = row->cmd;
	size_t j;

	for (j = 0; j < cmd->n_comparisons; j++) {
		const struct comparison *k = &cmd->comparisons[j];
		/* a derived throughput repeats its latency row: once is enough */
		if (!k->derived && rnd_cmp_is_problem(k))
			comparison_problem(pr, row, k);
	}
	for (j = 0; j < cmd->n_budgets; j++)
		if (cmd->budgets[j].result.status != BUDGET_PASS)
			budget_problem(pr, row, &cmd->budgets[j]);
	if (cmd->result == RESULT_ERROR || cmd->result == RESULT_METRIC_ERROR)
		error_problem(pr, row);
}

static void problems_walk(const struct results *r, const struct rnd_rows *rows, struct problems *pr)
{
	size_t i;

	entity_problems(r, pr);
	for (i = 0; i < rows->n; i++)
		command_problems(pr, &rows->v[i]);
}

/* The rows that need a look, as a table: in the job summary every one
 * (regressions and inconclusive comparisons, broken or unassessed budgets,
 * failed commands); in the comment only what failed and regressed, worst
 * first, at most `cap` rows. Returns the rows left out. */
static size_t problem_table(const struct results *r, const struct rnd_rows *rows, bool comment,
			    size_t cap, struct strbuf *out)
{
	static const char *cmp_cols[] = { "",	   "benchmark › command", "metric",	  ">base",
					  ">head", "change (interval)",	  "what happened" };
	static const char *run_cols[] = { "", "benchmark › command", "metric", ">value",
					  "what happened" };
	struct problems pr = { .every_rank = !comment, .cap = cap };
	int rank;

	if (r->mode == RESULTS_MODE_COMPARE)
		table_init(&pr.t, 7, cmp_cols);
	else
		table_init(&pr.t, 5, run_cols);
	problem_text_init(&pr.p);
	if (comment)
		for (rank = RANK_ERROR; rank <= RANK_NOT_GATING; rank++) {
			pr.rank = (enum problem_rank)rank;
			problems_walk(r, rows, &pr);
		}
	else
		problems_walk(r, rows, &pr);
	if (pr.t.nrows) {
		table_render_markdown(&pr.t, out);
		strbuf_addch(out, '\n');
	}
	problem_text_release(&pr.p);
	table_release(&pr.t);
	return pr.more;
}

/* The latency comparison a bar shows: one with an estimate, so that the bar
 * is the change the tables show. */
static const struct comparison *latency_cmp(const struct results_command *c)
{
	size_t j;

	for (j = 0; j < c->n_comparisons; j++)
		if (c->comparisons[j].metric == METRIC_LATENCY && c->comparisons[j].has_estimate)
			return &c->comparisons[j];
	return NULL;
}

/* A row and the size of its change, for ordering by that size. */
struct sized {
	size_t i;
	double size;
};

/* Largest first; equal sizes keep the document's order. */
static int by_size(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The size of a command's largest change (the decision's estimate, of any
 * metric but a derived throughput, which repeats its latency), or of its
 * latency change alone; -1 without an estimate. */
static double change_size(const struct results_command *c, bool latency_only)
{
	double size = -1;
	size_t j;

	for (j = 0; j < c->n_comparisons; j++) {
		const struct comparison *k = &c->comparisons[j];
		if (k->derived || !k->has_estimate || (latency_only && k->metric != METRIC_LATENCY))
			continue;
		if (fabs(k->change_percent) > size)
			size = fabs(k->change_percent);
	}
	return size;
}

static bool row_is_problem(const struct rnd_row *row)
{
	size_t j;

	for (j = 0; j < row->cmd->n_comparisons; j++)
		if (!row->cmd->comparisons[j].derived &&
		    rnd_cmp_is_problem(&row->cmd->comparisons[j]))
			return true;
	return false;
}

/* The rows that compared something and are no problem, largest change
 * first; returns how many (the caller frees *out). */
static size_t others_by_change(const struct rnd_rows *rows, bool latency_only, struct sized **out)
{
	struct sized *v = xcalloc(rows->n ? rows->n : 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < rows->n; i++) {
		const struct rnd_row *row = &rows->v[i];
		const struct comparison *lk = latency_only ? latency_cmp(row->cmd) : NULL;
		bool problem = latency_only ? lk && rnd_cmp_is_problem(lk) : row_is_problem(row);
		if (!row->cmd->n_comparisons || problem)
			continue;
		v[n++] = (struct sized){ .i = i, .size = change_size(row->cmd, latency_only) };
	}
	qsort(v, n, sizeof(*v), by_size);
	*out = v;
	return n;
}

/* Head relative to base × 100 per command, from the change the tables show
 * (the Hodges–Lehmann estimate): problems first, then the largest changes,
 * at most CHART_MAX_BARS. */
static void chart(const struct rnd_rows *rows, struct strbuf *out)
{
	size_t idx[CHART_MAX_BARS], n = 0, i, n_others;
	double lo = 80, hi = 125;
	struct sized *others;
	struct strbuf v;

	for (i = 0; i < rows->n && n < CHART_MAX_BARS; i++) {
		const struct comparison *k = latency_cmp(rows->v[i].cmd);
		if (k && rnd_cmp_is_problem(k))
			idx[n++] = i;
	}
	n_others = others_by_change(rows, true, &others);
	for (i = 0; i < n_others && n < CHART_MAX_BARS; i++) {
		const struct comparison *k = latency_cmp(rows->v[others[i].i].cmd);
		if (k && !rnd_cmp_is_problem(k))
			idx[n++] = others[i].i;
	}
	free(others);
	if (!n)
		return;
	strbuf_init(&v, 0);
	for (i = 0; i < n; i++) {
		const struct comparison *k = latency_cmp(rows->v[idx[i]].cmd);
		/* rounded as fmt_change rounds the table's change */
		double x = 100 + round(k->change_percent * 10.0) / 10.0;
		if (x - 5 < lo)
			lo = floor((x - 5) / 5) * 5;
		if (x + 5 > hi)
			hi = ceil((x + 5) / 5) * 5;
		strbuf_addf(&v, "%s%.1f", i ? ", " : "", x);
	}
	if (lo < 0)
		lo = 0;
	strbuf_adds(out, "```mermaid\nxychart-beta\n"
			 "    title \"Latency change, head relative to base (base = 100)\"\n"
			 "    x-axis [");
	for (i = 0; i < n; i++) {
		strbuf_adds(out, i ? ", \"" : "\"");
		rnd_mermaid_label(out, rows->v[idx[i]].bench->name);
		strbuf_adds(out, " › ");
		rnd_mermaid_label(out, rows->v[idx[i]].cmd->name);
		strbuf_adds(out, "\"");
	}
	strbuf_addf(out,
		    "]\n    y-axis \"head / base × 100\" %.0f --> %.0f\n    bar [%s]\n    line [",
		    lo, hi, v.buf);
	for (i = 0; i < n; i++)
		strbuf_adds(out, i ? ", 100" : "100");
	strbuf_adds(out, "]\n```\n\n");
	strbuf_release(&v);
}

static void details_open(struct strbuf *out, const char *summary)
{
	strbuf_addf(out, "<details>\n<summary>%s</summary>\n\n", summary);
}

static void details_close(struct strbuf *out)
{
	strbuf_adds(out, "</details>\n\n");
}

/* The tolerances applied per metric, as "latency ±5%, peak_rss ±10%". */
static void tolerances(const struct rnd_rows *rows, struct strbuf *out)
{
	bool seen[METRIC__COUNT] = { false };
	size_t i, j, n = 0;

	for (i = 0; i < rows->n; i++)
		for (j = 0; j < rows->v[i].cmd->n_comparisons; j++) {
			const struct comparison *k = &rows->v[i].cmd->comparisons[j];
			if (seen[k->metric] || k->verdict == VERDICT_SKIPPED)
				continue;
			seen[k->metric] = true;
			strbuf_adds(out, n++ ? ", " : "");
			strbuf_addf(out, "%s ", metric_info(k->metric)->name);
			rnd_tolerance(out, k);
		}
	if (!n)
		strbuf_adds(out, "none compared");
}

static bool any_counts(const struct rnd_rows *rows)
{
	size_t i, j;

	for (i = 0; i < rows->n; i++)
		for (j = 0; j < rows->v[i].cmd->n_comparisons; j++)
			if (rows->v[i].cmd->comparisons[j].counts)
				return true;
	return false;
}

static void how_decided(const struct results *r, const struct rnd_rows *rows, struct strbuf *out)
{
	const struct comparison *first = NULL;
	uint64_t floor_bytes = 0;
	size_t i, j;

	for (i = 0; i < rows->n; i++) {
		const struct results_command *c = rows->v[i].cmd;
		for (j = 0; j < c->n_comparisons && !first; j++)
			if (c->comparisons[j].looks_planned)
				first = &c->comparisons[j];
		if (c->head.present && c->head.metrics[METRIC_PEAK_RSS].floor_bytes > floor_bytes)
			floor_bytes = c->head.metrics[METRIC_PEAK_RSS].floor_bytes;
		if (c->base.present && c->base.metrics[METRIC_PEAK_RSS].floor_bytes > floor_bytes)
			floor_bytes = c->base.metrics[METRIC_PEAK_RSS].floor_bytes;
	}
	details_open(out, "How this was decided");
	if (r->mode == RESULTS_MODE_COMPARE && first) {
		strbuf_adds(out,
			    "Base and head ran in pairs, back to back, in random order, on the "
			    "same machine. Each metric's change is the Hodges–Lehmann estimate "
			    "of the head/base ratio with a Wilcoxon signed-rank interval, checked "
			    "at up to ");
		strbuf_addf(out, "%u planned looks at ", first->looks_planned);
		rnd_confidence(out, first);
		strbuf_adds(out, " simultaneous confidence, so that identical revisions are "
				 "flagged at most ");
		{
			double a = (1 - first->confidence) * 100;
			strbuf_addf(out, "%g%%", round(a * 100) / 100);
		}
		strbuf_adds(out, " of the time. A change counts only when its whole interval lies "
				 "beyond the tolerance (");
		tolerances(rows, out);
		strbuf_adds(out, ").");
		if (any_counts(rows))
			strbuf_adds(out, " Counts are not paired: each is decided on the sides' "
					 "medians against its tolerance, and only when its runs "
					 "agree within 0.1%.");
	} else if (r->mode == RESULTS_MODE_COMPARE) {
		strbuf_adds(out,
			    "No comparison reached a decision procedure (nothing was compared).");
	} else {
		strbuf_adds(out, "A plain run: each budget is checked against the statistic it "
				 "names, computed from every measured run.");
	}
	if (floor_bytes) {
		strbuf_adds(out, " Peak RSS floor: ");
		fmt_bytes(out, (double)floor_bytes);
		strbuf_adds(out, ".");
	}
	strbuf_adds(out, "\n\n");
	details_close(out);
}

static void methods(const struct results *r, const struct rnd_rows *rows, struct strbuf *out)
{
	static const char *cols[] = { "metric", "source", "process aggregation", "scope" };
	const struct results_environment *env = &r->environment;
	struct table t;
	size_t i;
	int m;

	table_init(&t, 4, cols);
	for (m = 0; m < METRIC__COUNT; m++)
		for (i = 0; i < rows->n; i++) {
			const struct results_side *sd = &rows->v[i].cmd->head;
			const struct results_metric *mt = &sd->metrics[m];
			const char *cells[4];
			if (!sd->present || mt->status != STATUS_MEASURED)
				continue;
			cells[0] = metric_info((enum metric)m)->name;
			cells[1] = results_source_name(mt->source);
			cells[2] = results_aggregation_name(mt->process_aggregation);
			cells[3] = results_scope_name(metric_info((enum metric)m)->scope);
			table_add_row(&t, cells);
			break;
		}
	details_open(out, "Collection methods and environment");
	if (t.nrows) {
		table_render_markdown(&t, out);
		strbuf_addch(out, '\n');
	}
	strbuf_adds(out, "- himorime ");
	rnd_md_text(out, r->himorime_version);
	strbuf_addf(out, ", seed %llu\n- ", (unsigned long long)r->seed);
	rnd_md_text(out, env->os);
	strbuf_adds(out, " ");
	rnd_md_text(out, env->arch);
	if (env->kernel) {
		strbuf_adds(out, ", kernel ");
		rnd_md_text(out, env->kernel);
	}
	strbuf_addf(out, ", %u logical CPUs", env->logical_cpus);
	if (env->cpu_model) {
		strbuf_adds(out, ", ");
		rnd_md_text(out, env->cpu_model);
	}
	strbuf_adds(out, "\n");
	if (env->compiler || env->libc) {
		strbuf_adds(out, "- built with ");
		rnd_md_text(out, env->compiler ? env->compiler : "?");
		if (env->libc) {
			strbuf_adds(out, ", ");
			rnd_md_text(out, env->libc);
		}
		strbuf_adds(out, "\n");
	}
	for (i = 0; i < env->n_tools; i++) {
		strbuf_adds(out, "- ");
		rnd_md_text(out, env->tools[i].name);
		strbuf_adds(out, " ");
		rnd_md_text(out, env->tools[i].version);
		strbuf_adds(out, "\n");
	}
	if (r->noise.has_load_average)
		strbuf_addf(out, "- load average %.2f, %.2f, %.2f\n", r->noise.load_average_1m,
			    r->noise.load_average_5m, r->noise.load_average_15m);
	if (r->noise.governor) {
		strbuf_adds(out, "- CPU governor ");
		rnd_md_text(out, r->noise.governor);
		strbuf_adds(out, "\n");
	}
	strbuf_adds(out, "\n");
	details_close(out);
	table_release(&t);
}

/* Cuts `body` (from `start`) to at most `cap` bytes at a line boundary,
 * closes an open code fence and <details>, and says so visibly. */
static void cap_output(struct strbuf *out, size_t start, size_t cap)
{
	static const char note[] = "\n> ⚠️ **Cut:** this report is longer than GitHub shows "
				   "here; the full report is in the JSON artifact.\n";
	size_t reserve = sizeof(note) + 64 * 16 + 8, limit, k;
	const char *p;
	int fence = 0, open = 0;

	if (out->len - start <= cap)
		return;
	limit = cap > reserve ? cap - reserve : 0;
	while (limit > 0 && out->buf[start + limit - 1] != '\n')
		limit--;
	/* UTF-8 is safe: we cut after a newline. */
	strbuf_setlen(out, start + limit);
	for (p = out->buf + start; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		if (len >= 3 && !memcmp(p, "```", 3))
			fence = !fence;
		else if (!fence && len >= 9 && !memcmp(p, "<details>", 9))
			open++;
		else if (!fence && len >= 10 && !memcmp(p, "</details>", 10) && open > 0)
			open--;
		p = eol ? eol + 1 : p + len;
	}
	if (fence)
		strbuf_adds(out, "```\n");
	for (k = 0; k < (size_t)open && k < 64; k++)
		strbuf_adds(out, "\n</details>\n");
	strbuf_adds(out, note);
}

/* Growth with input size and the drift check: inline in the job summary,
 * folded in the comment. */
static void growth_sections(const struct results *r, bool folded, struct strbuf *out)
{
	struct strbuf part;

	strbuf_init(&part, 0);
	if (rnd_growth_lines(r, "- ", true, &part)) {
		if (folded)
			details_open(out, "Growth with input size");
		else
			strbuf_adds(out, "**Growth with input size**\n\n");
		strbuf_add(out, part.buf, part.len);
		strbuf_addch(out, '\n');
		rnd_growth_mermaid(r, out);
		if (folded)
			details_close(out);
	}
	strbuf_reset(&part);
	if (rnd_long_run_lines(r, "- ", true, &part)) {
		if (folded)
			details_open(out, RND_LONG_RUN_TITLE);
		else
			strbuf_adds(out, "**" RND_LONG_RUN_TITLE "**\n\n");
		strbuf_add(out, part.buf, part.len);
		strbuf_addch(out, '\n');
		if (folded)
			details_close(out);
	}
	strbuf_release(&part);
}

static void comparisons_section(const struct rnd_rows *rows, struct strbuf *out)
{
	struct strbuf part;
	size_t n;

	strbuf_init(&part, 0);
	n = rnd_md_compare_table(rows, -1, true, &part);
	if (n) {
		char summary[96];
		snprintf(summary, sizeof(summary), "All comparisons: %zu", n);
		details_open(out, summary);
		strbuf_add(out, part.buf, part.len);
		details_close(out);
	}
	strbuf_release(&part);
}

/* The rows others[from, to) as a view of `rows` (the caller frees v). */
static void rows_view(const struct rnd_rows *rows, const struct sized *others, size_t from,
		      size_t to, struct rnd_rows *view)
{
	size_t i;

	for (i = from; i < to; i++)
		view->v[view->n++] = rows->v[others[i].i];
}

/* The comparisons after the largest changes, largest first, as many as fit
 * in `room` bytes; a line counts those left out. */
static void other_comparisons(const struct rnd_rows *rows, const struct sized *others,
			      size_t n_others, size_t room, struct strbuf *out)
{
	struct rnd_rows view = { .v = xcalloc(n_others + 1, sizeof(*view.v)) };
	size_t shown = n_others, n = 0;
	struct strbuf part;
	char summary[96];

	strbuf_init(&part, 0);
	for (;;) {
		view.n = 0;
		strbuf_reset(&part);
		rows_view(rows, others, COMMENT_LARGEST, shown, &view);
		n = rnd_md_compare_table(&view, -1, true, &part);
		if (part.len <= room || shown == COMMENT_LARGEST)
			break;
		/* fewer rows, in proportion to the bytes over, and at least one */
		shown = COMMENT_LARGEST + (shown - COMMENT_LARGEST) * room / part.len * 9 / 10;
	}
	snprintf(summary, sizeof(summary), "The other comparisons: %zu", n);
	if (n)
		details_open(out, summary);
	strbuf_add(out, part.buf, part.len);
	if (shown < n_others)
		strbuf_addf(out,
			    "… and the comparisons of %zu more command%s, with smaller changes: "
			    "the job summary and the JSON report list every one.\n\n",
			    n_others - shown, n_others - shown == 1 ? "" : "s");
	if (n)
		details_close(out);
	strbuf_release(&part);
	free(view.v);
}

/* The comment's comparisons: all in one fold while the list is short; a
 * long one (more than COMMENT_LARGEST commands that are no problem) as the
 * problems and the COMMENT_LARGEST largest changes, then the others,
 * largest first, as many as `room` bytes hold (docs/reports.md). */
static void comment_comparisons(const struct rnd_rows *rows, size_t room, struct strbuf *out)
{
	struct rnd_rows view;
	struct sized *others;
	size_t n_others = others_by_change(rows, false, &others), i, n;
	struct strbuf part;
	char summary[96];

	if (n_others <= COMMENT_LARGEST) {
		free(others);
		comparisons_section(rows, out);
		return;
	}
	view = (struct rnd_rows){ .v = xcalloc(rows->n + 1, sizeof(*view.v)) };
	for (i = 0; i < rows->n; i++)
		if (rows->v[i].cmd->n_comparisons && row_is_problem(&rows->v[i]))
			view.v[view.n++] = rows->v[i];
	rows_view(rows, others, 0, COMMENT_LARGEST, &view);
	strbuf_init(&part, 0);
	n = rnd_md_compare_table(&view, -1, true, &part);
	snprintf(summary, sizeof(summary), "Problems and the %d largest changes: %zu comparisons",
		 COMMENT_LARGEST, n);
	details_open(out, summary);
	strbuf_add(out, part.buf, part.len);
	details_close(out);
	other_comparisons(rows, others, n_others, room > part.len ? room - part.len : 0, out);
	strbuf_release(&part);
	free(view.v);
	free(others);
}

static void statistics_section(const struct results *r, const struct rnd_rows *rows,
			       struct strbuf *out)
{
	struct strbuf part, one;
	int g;

	strbuf_init(&part, 0);
	strbuf_init(&one, 0);
	for (g = GROUP_LATENCY; g <= GROUP_COUNTS; g++) {
		strbuf_reset(&one);
		if (rnd_md_stats_table(r, rows, (enum metric_group)g, &one)) {
			strbuf_addf(&part, "**%s**\n\n", rnd_group_title((enum metric_group)g));
			strbuf_add(&part, one.buf, one.len);
		}
	}
	if (part.len) {
		details_open(out, "Statistics of every run");
		strbuf_add(out, part.buf, part.len);
		details_close(out);
	}
	strbuf_release(&one);
	strbuf_release(&part);
}

static void budgets_section(const struct rnd_rows *rows, struct strbuf *out)
{
	struct strbuf part;

	strbuf_init(&part, 0);
	if (rnd_md_budget_table(rows, false, &part)) {
		details_open(out, "Budgets");
		strbuf_add(out, part.buf, part.len);
		details_close(out);
	}
	strbuf_release(&part);
}

/* The job summary below its headline: every problem row, the chart, the
 * notes, then everything folded. */
static void summary_body(const struct results *r, const struct rnd_rows *rows, struct strbuf *out)
{
	problem_table(r, rows, false, SIZE_MAX, out);
	if (r->mode == RESULTS_MODE_COMPARE)
		chart(rows, out);
	growth_sections(r, false, out);
	rnd_md_notes_list(r, out);
	if (r->mode == RESULTS_MODE_COMPARE)
		comparisons_section(rows, out);
	statistics_section(r, rows, out);
	budgets_section(rows, out);
	how_decided(r, rows, out);
	methods(r, rows, out);
}

/* What a reviewer reads in ten seconds, above the first <details>: at most
 * COMMENT_MAX_ROWS problem rows, a line for those left out, one line for
 * the rest, the machine's state, the chart (docs/reports.md). */
static void comment_top(const struct results *r, const struct rnd_rows *rows, struct strbuf *out)
{
	struct strbuf line;
	size_t before = out->len, more = problem_table(r, rows, true, COMMENT_MAX_ROWS, out);
	bool problems = out->len > before;

	if (more)
		strbuf_addf(out, "… and %zu more problem%s, in the details below.\n\n", more,
			    more == 1 ? "" : "s");
	strbuf_init(&line, 0);
	/* without problems or anything undecided the headline counts it all */
	if ((problems || r->summary.results[RESULT_INCONCLUSIVE]) &&
	    rnd_rest_line(r, rows, &line)) {
		rnd_md_text(out, line.buf);
		strbuf_adds(out, "\n\n");
	}
	strbuf_release(&line);
	if (r->noise.noisy) {
		strbuf_adds(out, "The machine was noisy");
		if (r->noise.reason && *r->noise.reason) {
			strbuf_adds(out, " (");
			rnd_md_text(out, r->noise.reason);
			strbuf_adds(out, ")");
		}
		strbuf_adds(out, ": comparisons need more runs to decide.\n\n");
	}
	if (r->summary.interrupted)
		strbuf_adds(out, "The run was interrupted: these results are partial.\n\n");
	if (r->mode == RESULTS_MODE_COMPARE)
		chart(rows, out);
}

/* The pull-request comment below its headline: the top, then the notes,
 * the comparisons and the rest folded; the statistics of every run stay in
 * the job summary the footer links to. */
static void comment_body(const struct results *r, const struct rnd_rows *rows, size_t end,
			 struct strbuf *out)
{
	struct strbuf part;
	struct rnd_notes notes;

	comment_top(r, rows, out);
	strbuf_init(&part, 0);
	rnd_notes_collect(r, &notes);
	rnd_md_notes_list(r, &part);
	if (part.len) {
		char summary[64];
		snprintf(summary, sizeof(summary), "Notes: %zu", notes.n);
		details_open(out, summary);
		strbuf_add(out, part.buf, part.len);
		details_close(out);
	}
	rnd_notes_release(&notes);
	strbuf_release(&part);
	if (r->mode == RESULTS_MODE_COMPARE)
		comment_comparisons(rows,
				    end > out->len + COMMENT_TAIL_BYTES
					    ? end - out->len - COMMENT_TAIL_BYTES
					    : 0,
				    out);
	growth_sections(r, true, out);
	budgets_section(rows, out);
	how_decided(r, rows, out);
	methods(r, rows, out);
}

/* The last line: a link to the run (a URL, with only characters that
 * cannot end the link), then the counts (job summary) or the version and
 * the seed (comment). */
static void footer(const struct results *r, const struct render_options *o, struct strbuf *out)
{
	const char *p;

	if (o->run_url) {
		strbuf_adds(out, "[Job summary and full report](");
		for (p = o->run_url; *p; p++)
			if (*p != ')' && *p != '(' && *p != ' ' && *p != '<' && *p != '>' &&
			    (unsigned char)*p >= 0x21)
				strbuf_addch(out, *p);
		strbuf_adds(out, ") · ");
	}
	if (o->comment) {
		strbuf_adds(out, "himorime ");
		rnd_md_text(out, r->himorime_version);
		strbuf_addf(out, " · seed %llu", (unsigned long long)r->seed);
	} else {
		rnd_final_line(out, r);
	}
	strbuf_adds(out, "\n");
}

int rnd_github(const struct results *r, const struct render_options *o, struct strbuf *out)
{
	struct rnd_rows rows;
	size_t start = out->len, cap;
	struct strbuf last;

	rnd_rows_collect(r, &rows);
	strbuf_init(&last, 0);
	if (o->comment && o->marker)
		strbuf_addf(out, "%s\n", o->marker);
	strbuf_addf(out, "### %s himorime: ", headline_icon(r));
	rnd_headline_counts(out, r);
	strbuf_adds(out, "\n\n");
	context_line(r, out);
	cap = o->max_bytes ? o->max_bytes
			   : (o->comment ? RENDER_COMMENT_MAX_BYTES : RENDER_GITHUB_MAX_BYTES);
	if (o->comment)
		comment_body(r, &rows, start + cap, out);
	else
		summary_body(r, &rows, out);
	if (!(o->comment && o->hide_footer))
		footer(r, o, &last);
	/* a cut keeps the footer: the link to the full report matters most then */
	cap_output(out, start, cap > last.len ? cap - last.len : 0);
	strbuf_add(out, last.buf, last.len);
	strbuf_release(&last);
	rnd_rows_release(&rows);
	return 0;
}
