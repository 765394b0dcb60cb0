/*
 * The terminal rendering: a header line, one table per metric group (plus
 * budgets), the notes a reader needs under them and a last summary line.
 * Colour is optional and only ever wraps the header and the RESULT words, so
 * the uncoloured text is the same with colour codes removed.
 */
#include "render/formats.h"

#include "common/alloc.h"
#include "render/format.h"
#include "render/table.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define ANSI_RESET  "\x1b[0m"
#define ANSI_BOLD   "\x1b[1m"
#define ANSI_RED    "\x1b[31m"
#define ANSI_GREEN  "\x1b[32m"
#define ANSI_YELLOW "\x1b[33m"
#define ANSI_DIM    "\x1b[2m"

/* Text from the document on a terminal: no escape sequences, no line breaks
 * of its own (tabs are kept for stderr tails). */
static void add_printable(struct strbuf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		strbuf_addch(out, (c < 0x20 && c != '\t') || c == 0x7f ? ' ' : c);
	}
}

/* The colour of a result cell, or NULL. */
struct coloured {
	char **words; /* per row: the last cell's text */
	const char **colour;
	size_t n, alloc;
};

static void coloured_add(struct coloured *c, const char *word, const char *colour)
{
	c->words = xgrow(c->words, &c->alloc, c->n + 1, sizeof(*c->words));
	c->colour = xrealloc(c->colour, c->alloc * sizeof(*c->colour));
	c->words[c->n] = xstrdup(word);
	c->colour[c->n++] = colour;
}

static void coloured_release(struct coloured *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->words[i]);
	free(c->words);
	free(c->colour);
	memset(c, 0, sizeof(*c));
}

static const char *state_colour(enum result_state s)
{
	switch (s) {
	case RESULT_PASS:
	case RESULT_NEW_SUITE:
	case RESULT_NEW:
	case RESULT_REMOVED:
		return NULL;
	case RESULT_IMPROVED:
		return ANSI_GREEN;
	case RESULT_INCONCLUSIVE:
		return ANSI_YELLOW;
	case RESULT_OVER_BUDGET:
	case RESULT_REGRESSION:
	case RESULT_METRIC_ERROR:
	case RESULT_ERROR:
		return ANSI_RED;
	}
	return NULL;
}

static const char *verdict_colour(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return NULL;
	case VERDICT_IMPROVED:
		return ANSI_GREEN;
	case VERDICT_REGRESSION:
		return ANSI_RED;
	case VERDICT_INCONCLUSIVE:
	case VERDICT_SKIPPED:
		return ANSI_YELLOW;
	}
	return NULL;
}

/* Prints a titled table; with colour, the title and header are bold and each
 * row's last cell takes its colour. */
static void emit(struct strbuf *out, const char *title, const struct table *t,
		 const struct coloured *c, bool colour)
{
	struct strbuf text;
	const char *p;
	size_t row = 0;

	strbuf_init(&text, 0);
	table_render_text(t, &text);
	if (colour)
		strbuf_addf(out, ANSI_BOLD "%s" ANSI_RESET "\n", title);
	else
		strbuf_addf(out, "%s\n", title);
	for (p = text.buf; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = (size_t)(eol - p);
		if (!colour) {
			strbuf_add(out, p, len);
		} else if (p == text.buf) {
			strbuf_adds(out, ANSI_DIM);
			strbuf_add(out, p, len);
			strbuf_adds(out, ANSI_RESET);
		} else {
			const char *w = row < c->n ? c->words[row] : "";
			const char *col = row < c->n ? c->colour[row] : NULL;
			size_t wl = strlen(w);
			if (col && wl && wl <= len && !memcmp(p + len - wl, w, wl)) {
				strbuf_add(out, p, len - wl);
				strbuf_addf(out, "%s%s" ANSI_RESET, col, w);
			} else {
				strbuf_add(out, p, len);
			}
			row++;
		}
		strbuf_addch(out, '\n');
		p = eol + 1;
	}
	strbuf_addch(out, '\n');
	strbuf_release(&text);
}

static void header_line(const struct results *r, struct strbuf *out)
{
	const struct results_environment *env = &r->environment;
	struct strbuf sb;

	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "himorime %s · %s", r->himorime_version ? r->himorime_version : "?",
		    rnd_mode_label(r));
	if (r->git.present && r->mode == RESULTS_MODE_COMPARE)
		strbuf_addf(&sb, " %s%s%.7s → %.7s%s", rnd_base_name(r) ? rnd_base_name(r) : "",
			    rnd_base_name(r) ? " " : "", r->git.base_sha ? r->git.base_sha : "",
			    r->git.head_sha ? r->git.head_sha : "", r->git.dirty ? " (dirty)" : "");
	else if (r->git.present)
		strbuf_addf(&sb, " %.7s%s", r->git.head_sha ? r->git.head_sha : "",
			    r->git.dirty ? " (dirty)" : "");
	strbuf_addf(&sb, " · %s %s, %u CPUs", env->os ? env->os : "?", env->arch ? env->arch : "?",
		    env->logical_cpus);
	add_printable(out, sb.buf, sb.len);
	strbuf_adds(out, "\n\n");
	strbuf_release(&sb);
}

static void stat_cell(struct strbuf *sb, const struct results_metric *m, double v, bool *floor)
{
	strbuf_reset(sb);
	rnd_value(sb, m, v, floor);
}

static void relative_cell(struct strbuf *sb, const struct results_command *c)
{
	strbuf_reset(sb);
	if (c->has_vs_baseline)
		strbuf_addf(sb, "%.2f×", c->vs_baseline);
	else if (c->has_vs_fastest)
		strbuf_addf(sb, "%.2f×", c->vs_fastest);
}

static void run_group(const struct rnd_rows *rows, enum metric_group g,
		      const struct render_options *o, struct strbuf *out, bool *floor)
{
	static const char *with_metric[] = { "BENCHMARK", "COMMAND", "METRIC", ">MEDIAN", ">MEAN",
					     ">STDDEV",	  ">MIN",    ">MAX",   "RESULT" };
	static const char *latency[] = { "BENCHMARK", "COMMAND", ">MEDIAN",   ">MEAN", ">STDDEV",
					 ">MIN",      ">MAX",	 ">RELATIVE", "RESULT" };
	static const char *plain[] = { "BENCHMARK", "COMMAND", ">MEDIAN", ">MEAN",
				       ">STDDEV",   ">MIN",    ">MAX",	  "RESULT" };
	enum metric ms[METRIC__COUNT];
	size_t nm = rnd_group_metrics_in(rows, g, ms, METRIC__COUNT), i, j;
	bool many = nm > 1;
	struct table t;
	struct coloured col;
	struct strbuf c[6];

	memset(&col, 0, sizeof(col));
	if (many)
		table_init(&t, 9, with_metric);
	else if (g == GROUP_LATENCY)
		table_init(&t, 9, latency);
	else
		table_init(&t, 8, plain);
	for (j = 0; j < 6; j++)
		strbuf_init(&c[j], 0);
	for (i = 0; i < rows->n; i++) {
		const struct results_command *cmd = rows->v[i].cmd;
		const char *word = rnd_result_word(cmd->result);
		for (j = 0; j < nm; j++) {
			const struct results_metric *m = &cmd->head.metrics[ms[j]];
			struct rnd_summary sum;
			bool measured = cmd->head.present && m->status == STATUS_MEASURED;
			if (!measured && !(g == GROUP_LATENCY && cmd->result == RESULT_ERROR))
				continue;
			if (measured && rnd_summary(m, &sum)) {
				stat_cell(&c[0], m, sum.median, floor);
				stat_cell(&c[1], m, sum.mean, floor);
				strbuf_reset(&c[2]);
				fmt_metric(&c[2], m->metric, sum.stddev, rnd_work_unit(m));
				stat_cell(&c[3], m, sum.min, floor);
				stat_cell(&c[4], m, sum.max, floor);
			} else {
				size_t k;
				for (k = 0; k < 5; k++) {
					strbuf_reset(&c[k]);
					strbuf_adds(&c[k], "—");
				}
			}
			relative_cell(&c[5], cmd);
			if (many)
				table_add_rowf(&t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s",
					       rows->v[i].bench->name, cmd->name,
					       metric_info(ms[j])->name, c[0].buf, c[1].buf,
					       c[2].buf, c[3].buf, c[4].buf, word);
			else if (g == GROUP_LATENCY)
				table_add_rowf(&t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s",
					       rows->v[i].bench->name, cmd->name, c[0].buf,
					       c[1].buf, c[2].buf, c[3].buf, c[4].buf, c[5].buf,
					       word);
			else
				table_add_rowf(&t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s",
					       rows->v[i].bench->name, cmd->name, c[0].buf,
					       c[1].buf, c[2].buf, c[3].buf, c[4].buf, word);
			coloured_add(&col, word, state_colour(cmd->result));
		}
	}
	if (t.nrows)
		emit(out, rnd_group_title(g), &t, &col, o->color);
	for (j = 0; j < 6; j++)
		strbuf_release(&c[j]);
	coloured_release(&col);
	table_release(&t);
}

/* A side's median latency for a row with nothing compared (a suite new in
 * head: docs/revisions.md; a harness benchmark only one side reported), or
 * a dash. */
static void side_median(struct strbuf *sb, const struct results_side *s, bool *floor)
{
	const struct results_metric *m = &s->metrics[METRIC_LATENCY];
	struct rnd_summary sum;

	strbuf_reset(sb);
	if (s->present && m->status == STATUS_MEASURED && rnd_summary(m, &sum))
		stat_cell(sb, m, sum.median, floor);
	else
		strbuf_adds(sb, "—");
}

/* A comparison's RESULT cell: its verdict, and whether a regression was
 * accepted or is not gated. */
static const char *comparison_word(const struct comparison *k)
{
	if (k->accepted)
		return "regression (accepted)";
	if (!k->gate && k->verdict == VERDICT_REGRESSION)
		return "regression (not gated)";
	return verdict_name(k->verdict);
}

static void compare_group(const struct results *r, const struct rnd_rows *rows, enum metric_group g,
			  const struct render_options *o, struct strbuf *out, bool *floor)
{
	static const char *with_metric[] = { "BENCHMARK", "COMMAND", "METRIC",	   ">BASE",
					     ">HEAD",	  "CHANGE",  "CONFIDENCE", "TOLERANCE",
					     "COULD SEE", ">PAIRS",  "RESULT" };
	static const char *plain[] = { "BENCHMARK",  "COMMAND",	  ">BASE",     ">HEAD",	 "CHANGE",
				       "CONFIDENCE", "TOLERANCE", "COULD SEE", ">PAIRS", "RESULT" };
	enum metric ms[METRIC__COUNT];
	size_t nm = rnd_group_metrics_in(rows, g, ms, METRIC__COUNT), i, j;
	bool many = nm > 1;
	const char *cols[11];
	struct table t;
	struct coloured col;
	/* the cells of a row: base, head, change, confidence, tolerance, could see */
	struct strbuf cell[6];
	struct strbuf *base = &cell[0], *head = &cell[1];

	(void)r;
	memset(&col, 0, sizeof(col));
	memcpy(cols, many ? with_metric : plain, (many ? 11 : 10) * sizeof(*cols));
	/* counts are not paired: their number is the runs of each side */
	if (g == GROUP_COUNTS)
		cols[many ? 9 : 8] = ">RUNS";
	table_init(&t, many ? 11 : 10, cols);
	for (j = 0; j < ARRAY_SIZE(cell); j++)
		strbuf_init(&cell[j], 0);
	for (i = 0; i < rows->n; i++) {
		const struct results_command *cmd = rows->v[i].cmd;
		bool any = false;
		size_t c;
		for (j = 0; j < cmd->n_comparisons; j++) {
			const struct comparison *k = &cmd->comparisons[j];
			const char *word = comparison_word(k);
			if (metric_info(k->metric)->group != g)
				continue;
			any = true;
			for (c = 0; c < ARRAY_SIZE(cell); c++)
				strbuf_reset(&cell[c]);
			rnd_cmp_value(base, cmd, k, false, floor);
			rnd_cmp_value(head, cmd, k, true, floor);
			rnd_change(&cell[2], k, false);
			rnd_confidence(&cell[3], k);
			rnd_tolerance(&cell[4], k);
			rnd_detectable(&cell[5], k);
			if (many)
				table_add_rowf(&t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%u\t%s",
					       rows->v[i].bench->name, cmd->name,
					       metric_info(k->metric)->name, base->buf, head->buf,
					       cell[2].buf, cell[3].buf, cell[4].buf, cell[5].buf,
					       k->pairs, word);
			else
				table_add_rowf(&t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%u\t%s",
					       rows->v[i].bench->name, cmd->name, base->buf,
					       head->buf, cell[2].buf, cell[3].buf, cell[4].buf,
					       cell[5].buf, k->pairs, word);
			coloured_add(&col, word,
				     k->accepted ? ANSI_YELLOW : verdict_colour(k->verdict));
		}
		if (!any && g == GROUP_LATENCY && cmd->n_comparisons == 0) {
			const char *word = rnd_result_word(cmd->result);
			side_median(base, &cmd->base, floor);
			side_median(head, &cmd->head, floor);
			table_add_rowf(&t, "%s\t%s\t%s\t%s\t—\t—\t—\t—\t—\t%s",
				       rows->v[i].bench->name, cmd->name, base->buf, head->buf,
				       word);
			coloured_add(&col, word, state_colour(cmd->result));
		}
	}
	if (t.nrows)
		emit(out, rnd_group_title(g), &t, &col, o->color);
	for (j = 0; j < ARRAY_SIZE(cell); j++)
		strbuf_release(&cell[j]);
	coloured_release(&col);
	table_release(&t);
}

static const char *budget_colour(enum budget_status s)
{
	switch (s) {
	case BUDGET_PASS:
		return NULL;
	case BUDGET_FAIL:
		return ANSI_RED;
	case BUDGET_SKIPPED:
	case BUDGET_NO_DATA:
		return ANSI_YELLOW;
	}
	return NULL;
}

static void budgets(const struct rnd_rows *rows, const struct render_options *o, struct strbuf *out,
		    bool *floor)
{
	static const char *cols[] = { "BENCHMARK", "COMMAND", "METRIC",
				      "BUDGET",	   ">ACTUAL", "RESULT" };
	struct table t;
	struct coloured col;
	struct strbuf budget, actual;
	size_t i, j;

	memset(&col, 0, sizeof(col));
	table_init(&t, 6, cols);
	strbuf_init(&budget, 0);
	strbuf_init(&actual, 0);
	for (i = 0; i < rows->n; i++) {
		const struct results_command *cmd = rows->v[i].cmd;
		for (j = 0; j < cmd->n_budgets; j++) {
			const struct results_budget *b = &cmd->budgets[j];
			const char *word = rnd_budget_word(b->result.status);
			strbuf_reset(&budget);
			strbuf_reset(&actual);
			rnd_aggregation(&budget, &b->result.aggregation);
			strbuf_addf(&budget, " %s", b->text ? b->text : rnd_op(b->result.op));
			rnd_budget_actual(&actual, cmd, b, floor);
			table_add_rowf(&t, "%s\t%s\t%s\t%s\t%s\t%s", rows->v[i].bench->name,
				       cmd->name, metric_info(b->result.metric)->name, budget.buf,
				       actual.buf, word);
			coloured_add(&col, word, budget_colour(b->result.status));
		}
	}
	if (t.nrows)
		emit(out, "Budgets", &t, &col, o->color);
	strbuf_release(&budget);
	strbuf_release(&actual);
	coloured_release(&col);
	table_release(&t);
}

static void growth_block(const struct results *r, struct strbuf *out)
{
	struct strbuf part;

	const char *p, *eol;

	strbuf_init(&part, 0);
	if (rnd_growth_lines(r, "  ", false, &part)) {
		strbuf_adds(out, "Growth with input size\n");
		for (p = part.buf; (eol = strchr(p, '\n')); p = eol + 1) {
			add_printable(out, p, (size_t)(eol - p));
			strbuf_addch(out, '\n');
		}
		strbuf_addch(out, '\n');
	}
	strbuf_reset(&part);
	if (rnd_long_run_lines(r, "  ", false, &part)) {
		strbuf_adds(out, RND_LONG_RUN_TITLE "\n");
		for (p = part.buf; (eol = strchr(p, '\n')); p = eol + 1) {
			add_printable(out, p, (size_t)(eol - p));
			strbuf_addch(out, '\n');
		}
		strbuf_addch(out, '\n');
	}
	strbuf_release(&part);
}

static void notes_block(const struct results *r, struct strbuf *out)
{
	struct rnd_notes notes;
	size_t i;

	rnd_notes_collect(r, &notes);
	if (notes.n)
		strbuf_adds(out, "Notes\n");
	for (i = 0; i < notes.n; i++) {
		const char *p = notes.v[i].stderr_tail;
		strbuf_adds(out, "  - ");
		add_printable(out, notes.v[i].text, strlen(notes.v[i].text));
		strbuf_addch(out, '\n');
		if (p)
			strbuf_adds(out, "    stderr (last lines):\n");
		while (p && *p) {
			const char *eol = strchr(p, '\n');
			size_t len = eol ? (size_t)(eol - p) : strlen(p);
			strbuf_adds(out, "      | ");
			add_printable(out, p, len);
			strbuf_addch(out, '\n');
			p = eol ? eol + 1 : p + len;
		}
	}
	if (notes.n)
		strbuf_addch(out, '\n');
	rnd_notes_release(&notes);
}

int rnd_table(const struct results *r, const struct render_options *o, struct strbuf *out)
{
	struct rnd_rows rows;
	bool floor = false;
	int g;

	rnd_rows_collect(r, &rows);
	header_line(r, out);
	for (g = GROUP_LATENCY; g <= GROUP_COUNTS; g++) {
		if (r->mode == RESULTS_MODE_COMPARE)
			compare_group(r, &rows, (enum metric_group)g, o, out, &floor);
		else
			run_group(&rows, (enum metric_group)g, o, out, &floor);
	}
	budgets(&rows, o, out, &floor);
	growth_block(r, out);
	notes_block(r, out);
	if (o->color)
		strbuf_adds(out, r->summary.exit_code ? ANSI_RED : ANSI_GREEN);
	rnd_final_line(out, r);
	if (o->color)
		strbuf_adds(out, ANSI_RESET);
	strbuf_addch(out, '\n');
	render_calibration(r, out);
	rnd_rows_release(&rows);
	return 0;
}
