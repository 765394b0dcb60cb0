/*
 * The `markdown` format: result tables for a README or a docs page (often
 * spliced into a marked section), and the tables the `github` summary
 * (render_github.c) reuses. Every string from the document goes through
 * rnd_md_text or rnd_md_cell: a benchmark name can be hostile.
 */
#include "render/formats.h"

#include "render/format.h"
#include "render/table.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

static void heading(struct strbuf *out, int level, const char *text)
{
	int i;

	level = level < 1 ? 1 : level > 6 ? 6 : level;
	for (i = 0; i < level; i++)
		strbuf_addch(out, '#');
	strbuf_addf(out, " %s\n\n", text);
}

void rnd_md_cell_label(struct strbuf *sb, const struct rnd_row *row)
{
	strbuf_reset(sb);
	rnd_md_cell(sb, row->bench->name);
	strbuf_adds(sb, " › ");
	rnd_md_cell(sb, row->cmd->name);
}

/* --- tables shared by markdown and github ------------------------------------ */

static bool stats_cells(struct strbuf *c, const struct results_metric *m)
{
	struct rnd_summary sum;
	size_t k;

	for (k = 0; k < 5; k++)
		strbuf_reset(&c[k]);
	if (!rnd_summary(m, &sum)) {
		for (k = 0; k < 5; k++)
			strbuf_adds(&c[k], "—");
		return false;
	}
	rnd_value(&c[0], m, sum.median, NULL);
	rnd_value(&c[1], m, sum.mean, NULL);
	fmt_metric(&c[2], m->metric, sum.stddev, rnd_work_unit(m));
	rnd_value(&c[3], m, sum.min, NULL);
	rnd_value(&c[4], m, sum.max, NULL);
	return true;
}

static bool show_result_column(const struct results *r, const struct rnd_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (rows->v[i].cmd->n_budgets || rows->v[i].cmd->result != RESULT_PASS)
			return true;
	return r->mode == RESULTS_MODE_COMPARE;
}

/* Per-run statistics of one group: head only in a run; head and base in a
 * comparison. Returns false when no command measured the group. */
bool rnd_md_stats_table(const struct results *r, const struct rnd_rows *rows, enum metric_group g,
			struct strbuf *out)
{
	enum metric ms[METRIC__COUNT];
	size_t nm = rnd_group_metrics_in(rows, g, ms, METRIC__COUNT), i, j, k;
	bool cmp = r->mode == RESULTS_MODE_COMPARE, result = show_result_column(r, rows);
	const char *cols[12];
	size_t nc = 0;
	struct table t;
	struct strbuf c[5], label, metric;
	const char *cells[12];

	if (!rnd_group_measured(r, g))
		return false;
	cols[nc++] = "benchmark › command";
	if (nm > 1)
		cols[nc++] = "metric";
	if (cmp)
		cols[nc++] = "side";
	cols[nc++] = ">median";
	cols[nc++] = ">mean";
	cols[nc++] = ">stddev";
	cols[nc++] = ">min";
	cols[nc++] = ">max";
	if (g == GROUP_LATENCY && !cmp)
		cols[nc++] = ">relative";
	if (result)
		cols[nc++] = "result";
	table_init(&t, nc, cols);
	for (k = 0; k < 5; k++)
		strbuf_init(&c[k], 0);
	strbuf_init(&label, 0);
	strbuf_init(&metric, 0);
	for (i = 0; i < rows->n; i++) {
		const struct results_command *cmd = rows->v[i].cmd;
		int side;
		for (j = 0; j < nm; j++)
			for (side = 0; side < (cmp ? 2 : 1); side++) {
				const struct results_side *sd = side ? &cmd->base : &cmd->head;
				const struct results_metric *m = &sd->metrics[ms[j]];
				char rel[32] = "";
				size_t n = 0;
				if (!sd->present || m->status != STATUS_MEASURED)
					continue;
				stats_cells(c, m);
				rnd_md_cell_label(&label, &rows->v[i]);
				cells[n++] = label.buf;
				if (nm > 1)
					cells[n++] = metric_info(ms[j])->name;
				if (cmp)
					cells[n++] = side ? "base" : "head";
				for (k = 0; k < 5; k++)
					cells[n++] = c[k].buf;
				if (g == GROUP_LATENCY && !cmp) {
					if (cmd->has_vs_baseline)
						snprintf(rel, sizeof(rel), "%.2f×",
							 cmd->vs_baseline);
					else if (cmd->has_vs_fastest)
						snprintf(rel, sizeof(rel), "%.2f×",
							 cmd->vs_fastest);
					cells[n++] = rel;
				}
				if (result)
					cells[n++] = rnd_metric_result(cmd, ms[j]);
				table_add_row(&t, cells);
			}
	}
	table_render_markdown(&t, out);
	strbuf_addch(out, '\n');
	for (k = 0; k < 5; k++)
		strbuf_release(&c[k]);
	strbuf_release(&label);
	strbuf_release(&metric);
	table_release(&t);
	return true;
}

/* Every comparison, optionally of one group only (group < 0: all); the pairs
 * column only when asked (the job summary has it, pages keep it short). */
size_t rnd_md_compare_table(const struct rnd_rows *rows, int group, bool pairs, struct strbuf *out)
{
	static const char *with_pairs[] = {
		"benchmark › command", "metric",    ">base",  ">head", "change (interval)",
		"confidence",	       "tolerance", ">pairs", "result"
	};
	static const char *without[] = {
		"benchmark › command", "metric",     ">base",	  ">head",
		"change (interval)",   "confidence", "tolerance", "result"
	};
	const char *cols[9];
	struct table t;
	struct strbuf label;
	struct rnd_cmp_cells cc;
	size_t i, j, n;

	memcpy(cols, pairs ? with_pairs : without, (pairs ? 9 : 8) * sizeof(*cols));
	/* counts are not paired: their number is the runs of each side, said in
	 * the header of their own table and in the cell of a mixed one */
	if (pairs && group == GROUP_COUNTS)
		cols[7] = ">runs";
	table_init(&t, pairs ? 9 : 8, cols);
	strbuf_init(&label, 0);
	rnd_cmp_cells_init(&cc);
	for (i = 0; i < rows->n; i++) {
		const struct results_command *cmd = rows->v[i].cmd;
		for (j = 0; j < cmd->n_comparisons; j++) {
			const struct comparison *k = &cmd->comparisons[j];
			const char *cells[9];
			size_t c = 0;
			if (group >= 0 && (int)metric_info(k->metric)->group != group)
				continue;
			rnd_md_cell_label(&label, &rows->v[i]);
			rnd_cmp_cells_fill(&cc, cmd, k);
			cells[c++] = label.buf;
			cells[c++] = metric_info(k->metric)->name;
			cells[c++] = cc.base.buf;
			cells[c++] = cc.head.buf;
			cells[c++] = cc.change.buf;
			cells[c++] = cc.confidence.buf;
			cells[c++] = cc.tolerance.buf;
			if (pairs && k->counts && group < 0)
				strbuf_adds(&cc.pairs, k->pairs == 1 ? " run" : " runs");
			if (pairs)
				cells[c++] = cc.pairs.buf;
			cells[c] = rnd_verdict_cell(k);
			table_add_row(&t, cells);
		}
	}
	n = t.nrows;
	if (n) {
		table_render_markdown(&t, out);
		strbuf_addch(out, '\n');
	}
	strbuf_release(&label);
	rnd_cmp_cells_release(&cc);
	table_release(&t);
	return n;
}

size_t rnd_md_budget_table(const struct rnd_rows *rows, bool problems_only, struct strbuf *out)
{
	struct table t;
	size_t n;

	rnd_budget_table(rows, problems_only, rnd_md_cell, &t);
	n = t.nrows;
	if (n) {
		table_render_markdown(&t, out);
		strbuf_addch(out, '\n');
	}
	table_release(&t);
	return n;
}

void rnd_md_notes_list(const struct results *r, struct strbuf *out)
{
	struct rnd_notes notes;
	size_t i;

	rnd_notes_collect(r, &notes);
	for (i = 0; i < notes.n; i++) {
		const char *tail = notes.v[i].stderr_tail;
		strbuf_adds(out, "- ");
		rnd_md_text(out, notes.v[i].text);
		strbuf_addch(out, '\n');
		if (tail) {
			/* A fence longer than any run of backticks in the tail, so
			 * the tail cannot close it. */
			size_t run = 0, longest = 0, k;
			const char *p;
			for (p = tail; *p; p++) {
				run = *p == '`' ? run + 1 : 0;
				if (run > longest)
					longest = run;
			}
			strbuf_adds(out, "\n  ");
			for (k = 0; k < (longest < 3 ? 3 : longest + 1); k++)
				strbuf_addch(out, '`');
			strbuf_adds(out, "text\n");
			for (p = tail; *p;) {
				const char *eol = strchr(p, '\n');
				size_t len = eol ? (size_t)(eol - p) : strlen(p);
				strbuf_adds(out, "  ");
				for (k = 0; k < len; k++) {
					unsigned char ch = (unsigned char)p[k];
					strbuf_addch(out, ch < 0x20 && ch != '\t' ? ' ' : ch);
				}
				strbuf_addch(out, '\n');
				p = eol ? eol + 1 : p + len;
			}
			strbuf_adds(out, "  ");
			for (k = 0; k < (longest < 3 ? 3 : longest + 1); k++)
				strbuf_addch(out, '`');
			strbuf_adds(out, "\n\n");
		}
	}
	if (notes.n)
		strbuf_addch(out, '\n');
	rnd_notes_release(&notes);
}

static void tools_line(const struct results *r, struct strbuf *out)
{
	const struct results_environment *env = &r->environment;
	size_t i;

	strbuf_adds(out, "himorime ");
	rnd_md_text(out, r->himorime_version);
	strbuf_adds(out, " · ");
	rnd_md_text(out, env->os);
	strbuf_addch(out, ' ');
	rnd_md_text(out, env->arch);
	strbuf_addf(out, ", %u CPUs", env->logical_cpus);
	if (env->cpu_model) {
		strbuf_adds(out, " (");
		rnd_md_text(out, env->cpu_model);
		strbuf_adds(out, ")");
	}
	for (i = 0; i < env->n_tools; i++) {
		strbuf_adds(out, i ? ", " : " · tools: ");
		rnd_md_text(out, env->tools[i].name);
		strbuf_addch(out, ' ');
		rnd_md_text(out, env->tools[i].version);
	}
	strbuf_addf(out, " · seed %llu\n\n", (unsigned long long)r->seed);
}

int rnd_markdown(const struct results *r, const struct render_options *o, struct strbuf *out)
{
	struct rnd_rows rows;
	int h = o->heading_level, g;

	rnd_rows_collect(r, &rows);
	heading(out, h, "himorime results");
	tools_line(r, out);
	for (g = GROUP_LATENCY; g <= GROUP_COUNTS; g++) {
		struct strbuf part;
		strbuf_init(&part, 0);
		if (r->mode == RESULTS_MODE_COMPARE) {
			if (rnd_md_compare_table(&rows, g, false, &part)) {
				heading(out, h + 1, rnd_group_title((enum metric_group)g));
				strbuf_add(out, part.buf, part.len);
			}
		} else if (rnd_md_stats_table(r, &rows, (enum metric_group)g, &part)) {
			heading(out, h + 1, rnd_group_title((enum metric_group)g));
			strbuf_add(out, part.buf, part.len);
		}
		strbuf_release(&part);
	}
	{
		struct strbuf part;
		strbuf_init(&part, 0);
		if (rnd_md_budget_table(&rows, false, &part)) {
			heading(out, h + 1, "Budgets");
			strbuf_add(out, part.buf, part.len);
		}
		strbuf_reset(&part);
		if (rnd_growth_lines(r, "- ", true, &part)) {
			heading(out, h + 1, "Growth with input size");
			strbuf_add(out, part.buf, part.len);
			strbuf_addch(out, '\n');
			rnd_growth_mermaid(r, out);
		}
		strbuf_reset(&part);
		if (rnd_long_run_lines(r, "- ", true, &part)) {
			heading(out, h + 1, RND_LONG_RUN_TITLE);
			strbuf_add(out, part.buf, part.len);
			strbuf_addch(out, '\n');
		}
		strbuf_reset(&part);
		rnd_md_notes_list(r, &part);
		if (part.len) {
			heading(out, h + 1, "Notes");
			strbuf_add(out, part.buf, part.len);
		}
		strbuf_release(&part);
	}
	rnd_final_line(out, r);
	strbuf_addch(out, '\n');
	rnd_rows_release(&rows);
	return 0;
}

/* --- github ---------------------------------------------------------------------- */
