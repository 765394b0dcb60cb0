/*
 * The HTML rendering: one self-contained page (inline CSS and SVG, nothing
 * fetched) with the verdict, the tables, the notes, and per command a strip
 * plot of its latency samples: one <circle> per run, base and head on their
 * own rows against one axis. Ticks are round values (1, 2 or 5 × 10^k of the
 * canonical unit) labelled with format.h; every mark carries its exact value
 * in data-value so tests and scripts can check the picture against the data.
 */
#include "render/formats.h"

#include "common/alloc.h"
#include "render/format.h"
#include "render/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define SVG_WIDTH   760
#define SVG_LEFT    70
#define SVG_RIGHT   30
#define SVG_ROW	    44
#define SVG_AXIS    34
#define SVG_TICKS   6 /* at most, roughly */
#define COLOUR_HEAD "#d9480f"
#define COLOUR_BASE "#1c7ed6"
#define COLOUR_AXIS "#495057"

static const char css[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;"
	"color:#212529;max-width:1100px}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:28px}"
	"table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}"
	"th,td{border:1px solid #dee2e6;padding:4px 8px;text-align:left}"
	"th{background:#f1f3f5}td.num{text-align:right;font-variant-numeric:tabular-nums}"
	"td.bad{color:#c92a2a;font-weight:600}td.warn{color:#e67700}td.good{color:#2b8a3e}"
	".context,.final{color:#495057}"
	"figure{margin:12px 0 20px}figcaption{font-size:14px;margin-bottom:4px}"
	"pre{background:#f8f9fa;padding:8px;font-size:12px;overflow:auto}"
	"svg text{font-size:11px;fill:" COLOUR_AXIS "}"
	".legend-head{color:" COLOUR_HEAD "}.legend-base{color:" COLOUR_BASE "}"
	".badge{color:#fff;border-radius:4px;padding:2px 8px;font-size:16px;vertical-align:2px}"
	".badge.bad{background:#c92a2a}.badge.warn{background:#e67700}.badge.good{background:#"
	"2b8a3e}";

static void html_table(const struct table *t, struct strbuf *out)
{
	size_t i, r;

	strbuf_adds(out, "<table>\n<tr>");
	for (i = 0; i < t->ncols; i++) {
		strbuf_adds(out, "<th>");
		rnd_html_text(out, t->header[i]);
		strbuf_adds(out, "</th>");
	}
	strbuf_adds(out, "</tr>\n");
	for (r = 0; r < t->nrows; r++) {
		strbuf_adds(out, "<tr>");
		for (i = 0; i < t->ncols; i++) {
			const char *cell = t->cells[r * t->ncols + i];
			const char *cls = t->align[i] == ALIGN_RIGHT ? " class=\"num\"" : "";
			if (i + 1 == t->ncols) {
				if (strstr(cell, "regression") || strstr(cell, "error") ||
				    strstr(cell, "over budget"))
					cls = " class=\"bad\"";
				else if (strstr(cell, "inconclusive") || strstr(cell, "skipped"))
					cls = " class=\"warn\"";
				else if (strstr(cell, "improved"))
					cls = " class=\"good\"";
			}
			strbuf_addf(out, "<td%s>", cls);
			rnd_html_text(out, cell);
			strbuf_adds(out, "</td>");
		}
		strbuf_adds(out, "</tr>\n");
	}
	strbuf_adds(out, "</table>\n");
}

static void label_of(struct strbuf *sb, const struct rnd_row *row)
{
	strbuf_reset(sb);
	rnd_label(sb, row);
}

static void compare_tables(const struct rnd_rows *rows, struct strbuf *out)
{
	static const char *cols[] = {
		"benchmark › command", "metric",    ">base",  ">head", "change (interval)",
		"confidence",	       "tolerance", ">pairs", "result"
	};
	int g;
	size_t i, j;
	struct strbuf label;
	struct rnd_cmp_cells cc;

	strbuf_init(&label, 0);
	rnd_cmp_cells_init(&cc);
	for (g = GROUP_LATENCY; g <= GROUP_COUNTS; g++) {
		const char *head[9];
		struct table t;
		memcpy(head, cols, sizeof(head));
		/* counts are not paired: their number is the runs of each side */
		if (g == GROUP_COUNTS)
			head[7] = ">runs";
		table_init(&t, 9, head);
		for (i = 0; i < rows->n; i++) {
			const struct results_command *c = rows->v[i].cmd;
			for (j = 0; j < c->n_comparisons; j++) {
				const struct comparison *k = &c->comparisons[j];
				const char *cells[9];
				if ((int)metric_info(k->metric)->group != g)
					continue;
				label_of(&label, &rows->v[i]);
				rnd_cmp_cells_fill(&cc, c, k);
				cells[0] = label.buf;
				cells[1] = metric_info(k->metric)->name;
				cells[2] = cc.base.buf;
				cells[3] = cc.head.buf;
				cells[4] = cc.change.buf;
				cells[5] = cc.confidence.buf;
				cells[6] = cc.tolerance.buf;
				cells[7] = cc.pairs.buf;
				cells[8] = k->accepted ? "regression (accepted)"
						       : verdict_name(k->verdict);
				table_add_row(&t, cells);
			}
		}
		if (t.nrows) {
			strbuf_addf(out, "<h2>%s</h2>\n", rnd_group_title((enum metric_group)g));
			html_table(&t, out);
		}
		table_release(&t);
	}
	strbuf_release(&label);
	rnd_cmp_cells_release(&cc);
}

static void run_tables(const struct rnd_rows *rows, struct strbuf *out)
{
	static const char *cols[] = { "benchmark › command",
				      "metric",
				      ">median",
				      ">mean",
				      ">stddev",
				      ">min",
				      ">max",
				      "result" };
	struct strbuf label, c[5];
	size_t i, k;
	int g, m;

	strbuf_init(&label, 0);
	for (k = 0; k < 5; k++)
		strbuf_init(&c[k], 0);
	for (g = GROUP_LATENCY; g <= GROUP_COUNTS; g++) {
		struct table t;
		table_init(&t, 8, cols);
		for (i = 0; i < rows->n; i++) {
			const struct results_command *cmd = rows->v[i].cmd;
			for (m = 0; m < METRIC__COUNT; m++) {
				const struct results_metric *mt = &cmd->head.metrics[m];
				const char *cells[8];
				if ((int)metric_info((enum metric)m)->group != g ||
				    !cmd->head.present || mt->status != STATUS_MEASURED)
					continue;
				struct rnd_summary sum;
				bool have = rnd_summary(mt, &sum);
				for (k = 0; k < 5; k++) {
					strbuf_reset(&c[k]);
					if (!have)
						strbuf_adds(&c[k], "—");
				}
				if (have) {
					rnd_value(&c[0], mt, sum.median, NULL);
					rnd_value(&c[1], mt, sum.mean, NULL);
					fmt_metric(&c[2], mt->metric, sum.stddev,
						   rnd_work_unit(mt));
					rnd_value(&c[3], mt, sum.min, NULL);
					rnd_value(&c[4], mt, sum.max, NULL);
				}
				label_of(&label, &rows->v[i]);
				cells[0] = label.buf;
				cells[1] = metric_info((enum metric)m)->name;
				for (k = 0; k < 5; k++)
					cells[2 + k] = c[k].buf;
				cells[7] = rnd_metric_result(cmd, (enum metric)m);
				table_add_row(&t, cells);
			}
		}
		if (t.nrows) {
			strbuf_addf(out, "<h2>%s</h2>\n", rnd_group_title((enum metric_group)g));
			html_table(&t, out);
		}
		table_release(&t);
	}
	strbuf_release(&label);
	for (k = 0; k < 5; k++)
		strbuf_release(&c[k]);
}

/* Text that html_table escapes goes in as it is. */
static void as_is(struct strbuf *sb, const char *s)
{
	strbuf_adds(sb, s);
}

static void budgets(const struct rnd_rows *rows, struct strbuf *out)
{
	struct table t;

	rnd_budget_table(rows, false, as_is, &t);
	if (t.nrows) {
		strbuf_adds(out, "<h2>Budgets</h2>\n");
		html_table(&t, out);
	}
	table_release(&t);
}

/* Each line of `lines` as an <li>. */
static void html_items(const char *lines, struct strbuf *out)
{
	const char *p, *eol;

	for (p = lines; (eol = strchr(p, '\n')); p = eol + 1) {
		struct strbuf one;
		strbuf_init(&one, 0);
		strbuf_add(&one, p, (size_t)(eol - p));
		strbuf_adds(out, "<li>");
		rnd_html_text(out, one.buf);
		strbuf_adds(out, "</li>\n");
		strbuf_release(&one);
	}
}

/* Growth with input size, and the drift check of the long runs. */
static void growth(const struct results *r, struct strbuf *out)
{
	struct strbuf part;

	strbuf_init(&part, 0);
	if (rnd_growth_lines(r, "", false, &part)) {
		strbuf_adds(out, "<h2>Growth with input size</h2>\n<ul class=\"growth\">\n");
		html_items(part.buf, out);
		strbuf_adds(out, "</ul>\n");
		rnd_growth_svg(r, out);
	}
	strbuf_reset(&part);
	if (rnd_long_run_lines(r, "", false, &part)) {
		strbuf_adds(out, "<h2>" RND_LONG_RUN_TITLE "</h2>\n<ul class=\"long-run\">\n");
		html_items(part.buf, out);
		strbuf_adds(out, "</ul>\n");
	}
	strbuf_release(&part);
}

static void notes(const struct results *r, struct strbuf *out)
{
	struct rnd_notes n;
	size_t i;

	rnd_notes_collect(r, &n);
	if (n.n)
		strbuf_adds(out, "<h2>Notes</h2>\n<ul>\n");
	for (i = 0; i < n.n; i++) {
		strbuf_adds(out, "<li>");
		rnd_html_text(out, n.v[i].text);
		if (n.v[i].stderr_tail) {
			strbuf_adds(out, "<pre>");
			rnd_html_text(out, n.v[i].stderr_tail);
			strbuf_adds(out, "</pre>");
		}
		strbuf_adds(out, "</li>\n");
	}
	if (n.n)
		strbuf_adds(out, "</ul>\n");
	rnd_notes_release(&n);
}

/* --- strip plots -------------------------------------------------------------- */

struct axis {
	double lo, hi, step;
	size_t nticks;
};

/* Round ticks covering [min, max]: a step of 1, 2 or 5 × 10^k giving at most
 * about SVG_TICKS intervals; lo and hi are multiples of the step. */
static void axis_make(double min, double max, struct axis *a)
{
	double span, raw, mag, f;

	if (!(max > min)) {
		double pad = fabs(min) > 0 ? fabs(min) * 0.1 : 1;
		min -= pad;
		max += pad;
	}
	span = max - min;
	raw = span / SVG_TICKS;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	a->step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	a->lo = floor(min / a->step) * a->step;
	a->hi = ceil(max / a->step) * a->step;
	if (a->lo < 0 && min >= 0)
		a->lo = 0;
	a->nticks = (size_t)llround((a->hi - a->lo) / a->step) + 1;
}

static double axis_x(const struct axis *a, double v)
{
	double w = SVG_WIDTH - SVG_LEFT - SVG_RIGHT;

	return SVG_LEFT + (v - a->lo) / (a->hi - a->lo) * w;
}

static void marks(const struct axis *a, const struct results_metric *m, const char *side,
		  const char *colour, double cy, struct strbuf *out)
{
	size_t k;

	for (k = 0; k < m->n_samples; k++) {
		double y = cy + (double)((int)(k % 5) - 2) * 4.0;
		strbuf_addf(out,
			    "<circle class=\"mark %s\" cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"%s\" "
			    "data-value=\"",
			    side, axis_x(a, m->samples[k]), y, colour);
		rnd_number(out, m->samples[k]);
		strbuf_adds(out, "\"/>\n");
	}
}

static bool has_samples(const struct results_side *s)
{
	return s->present && s->metrics[METRIC_LATENCY].n_samples > 0;
}

static void strip_plot(const struct rnd_row *row, struct strbuf *out)
{
	const struct results_command *c = row->cmd;
	const struct results_metric *h = &c->head.metrics[METRIC_LATENCY];
	const struct results_metric *b = &c->base.metrics[METRIC_LATENCY];
	bool hb = has_samples(&c->base), hh = has_samples(&c->head);
	double min = INFINITY, max = -INFINITY, axis_y;
	size_t k, nrows = (size_t)hb + (size_t)hh, rowi = 0;
	struct axis a;
	struct strbuf label;
	int height;

	if (!nrows)
		return;
	for (k = 0; hh && k < h->n_samples; k++) {
		min = fmin(min, h->samples[k]);
		max = fmax(max, h->samples[k]);
	}
	for (k = 0; hb && k < b->n_samples; k++) {
		min = fmin(min, b->samples[k]);
		max = fmax(max, b->samples[k]);
	}
	axis_make(min, max, &a);
	height = (int)(nrows * SVG_ROW + SVG_AXIS);
	axis_y = (double)nrows * SVG_ROW;
	strbuf_init(&label, 0);
	rnd_label(&label, row);
	strbuf_adds(out, "<figure class=\"chart\" data-command=\"");
	rnd_html_text(out, label.buf);
	strbuf_adds(out, "\">\n<figcaption>");
	rnd_html_text(out, label.buf);
	strbuf_addf(out, ": latency of each run (%zu head", hh ? h->n_samples : 0);
	if (hb)
		strbuf_addf(out, ", %zu base", b->n_samples);
	strbuf_adds(out, ")</figcaption>\n");
	strbuf_addf(out,
		    "<svg width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		    SVG_WIDTH, height, SVG_WIDTH, height);
	rnd_html_text(out, label.buf);
	strbuf_adds(out, " latency samples\">\n");
	if (hb) {
		double cy = SVG_ROW * (rowi++ + 0.5);
		strbuf_addf(out, "<text class=\"side-label\" x=\"8\" y=\"%.1f\">base</text>\n",
			    cy + 4);
		marks(&a, b, "base", COLOUR_BASE, cy, out);
	}
	if (hh) {
		double cy = SVG_ROW * (rowi++ + 0.5);
		strbuf_addf(out, "<text class=\"side-label\" x=\"8\" y=\"%.1f\">head</text>\n",
			    cy + 4);
		marks(&a, h, "head", COLOUR_HEAD, cy, out);
	}
	strbuf_addf(out,
		    "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"" COLOUR_AXIS "\"/>\n",
		    SVG_LEFT, axis_y, SVG_WIDTH - SVG_RIGHT, axis_y);
	for (k = 0; k < a.nticks; k++) {
		double v = a.lo + (double)k * a.step, x = axis_x(&a, v);
		strbuf_addf(out,
			    "<line class=\"tick\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
			    "stroke=\"" COLOUR_AXIS "\"/>\n",
			    x, axis_y, x, axis_y + 5);
		strbuf_addf(out,
			    "<text class=\"tick-label\" x=\"%.2f\" y=\"%.1f\" "
			    "text-anchor=\"middle\" data-value=\"",
			    x, axis_y + 18);
		rnd_number(out, v);
		strbuf_adds(out, "\">");
		fmt_duration(out, v);
		strbuf_adds(out, "</text>\n");
	}
	strbuf_adds(out, "</svg>\n</figure>\n");
	strbuf_release(&label);
}

/* The heading: a badge with the outcome and the counts. Words in a
 * coloured badge, not emoji: a page must not depend on the fonts of the
 * machine that opens it. */
static void headline(const struct results *r, struct strbuf *out)
{
	bool check = rnd_needs_a_look(r);
	struct strbuf h;

	strbuf_addf(out, "<h1><span class=\"badge %s\">%s</span> himorime: ",
		    r->summary.exit_code ? "bad"
		    : check		 ? "warn"
					 : "good",
		    r->summary.exit_code ? "failed"
		    : check		 ? "check"
					 : "passed");
	strbuf_init(&h, 0);
	rnd_headline_counts(&h, r);
	rnd_html_text(out, h.buf);
	strbuf_release(&h);
	strbuf_adds(out, "</h1>\n");
}

/* "himorime 1.2 · compare · base main 1234567 → head 89abcde · linux x86_64, 4 CPUs" */
static void context(const struct results *r, struct strbuf *out)
{
	strbuf_adds(out, "<p class=\"context\">himorime ");
	rnd_html_text(out, r->himorime_version);
	strbuf_addf(out, " · %s", rnd_mode_label(r));
	if (r->git.present && r->mode == RESULTS_MODE_COMPARE) {
		strbuf_adds(out, " · base ");
		if (rnd_base_name(r)) {
			rnd_html_text(out, rnd_base_name(r));
			strbuf_adds(out, " ");
		}
		if (r->git.base_sha)
			strbuf_addf(out, "%.7s", r->git.base_sha);
		strbuf_adds(out, " → head ");
		if (r->git.head_sha)
			strbuf_addf(out, "%.7s", r->git.head_sha);
	}
	strbuf_adds(out, " · ");
	rnd_html_text(out, r->environment.os);
	strbuf_adds(out, " ");
	rnd_html_text(out, r->environment.arch);
	strbuf_addf(out, ", %u CPUs</p>\n", r->environment.logical_cpus);
}

/* A strip plot per command that has samples, when any has. */
static void samples(const struct results *r, const struct rnd_rows *rows, struct strbuf *out)
{
	size_t i;
	bool any = false;

	for (i = 0; i < rows->n; i++)
		if (has_samples(&rows->v[i].cmd->head) || has_samples(&rows->v[i].cmd->base))
			any = true;
	if (!any)
		return;
	strbuf_adds(out, "<h2>Samples</h2>\n<p>Each mark is one run");
	if (r->mode == RESULTS_MODE_COMPARE)
		strbuf_adds(out, ": <span class=\"legend-base\">● base</span>, "
				 "<span class=\"legend-head\">● head</span>");
	strbuf_adds(out, ".</p>\n");
	for (i = 0; i < rows->n; i++)
		strip_plot(&rows->v[i], out);
}

int rnd_html(const struct results *r, struct strbuf *out)
{
	struct rnd_rows rows;
	struct strbuf f;

	rnd_rows_collect(r, &rows);
	strbuf_addf(out,
		    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width\">\n"
		    "<title>himorime report</title>\n<style>%s</style>\n</head>\n<body>\n",
		    css);
	headline(r, out);
	context(r, out);
	if (r->mode == RESULTS_MODE_COMPARE)
		compare_tables(&rows, out);
	else
		run_tables(&rows, out);
	budgets(&rows, out);
	growth(r, out);
	notes(r, out);
	samples(r, &rows, out);
	strbuf_adds(out, "<p class=\"final\">");
	strbuf_init(&f, 0);
	rnd_final_line(&f, r);
	rnd_html_text(out, f.buf);
	strbuf_release(&f);
	strbuf_adds(out, "</p>\n</body>\n</html>\n");
	rnd_rows_release(&rows);
	return 0;
}
