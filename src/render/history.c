/*
 * Renderings of a sweep history: see history.h. Every format walks the same
 * rows: each series' points newest first, a point marked when it is the
 * first bad commit of a change point.
 */
#include "render/history.h"

#include "common/alloc.h"
#include "render/escape.h"
#include "render/format.h"
#include "render/table.h"
#include "results/jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define SHORT_SHA 12

/* The terminal table's colours, as the report table's (render_table.c):
 * only around whole cells, so that the text without them is the same. */
#define ANSI_RED    "\x1b[31m"
#define ANSI_GREEN  "\x1b[32m"
#define ANSI_YELLOW "\x1b[33m"

int history_format_from_name(const char *name, enum render_format *out)
{
	enum render_format f;

	if (render_format_from_name(name, &f) < 0)
		return -1;
	switch (f) {
	case RENDER_TABLE:
	case RENDER_MARKDOWN:
	case RENDER_CSV:
	case RENDER_JSON:
	case RENDER_HTML:
		*out = f;
		return 0;
	case RENDER_SAMPLES_CSV:
	case RENDER_GITHUB:
		break;
	}
	return -1;
}

/* The change point whose first bad commit is point i, or NULL. */
static const struct sweep_change *change_at(const struct sweep_series *s, size_t i)
{
	size_t k;

	for (k = 0; k < s->n_changes; k++)
		if (s->changes[k].index == i)
			return &s->changes[k];
	return NULL;
}

static const char *str(const char *s)
{
	return s ? s : "";
}

static void short_sha(struct strbuf *sb, const char *sha)
{
	strbuf_add(sb, str(sha), sha && strlen(sha) > SHORT_SHA ? SHORT_SHA : strlen(str(sha)));
}

static void percent(struct strbuf *sb, double fraction)
{
	fmt_change(sb, fraction * 100, false);
}

/* "+201.2% [+195.0%, +207.3%]" */
static void step_text(struct strbuf *sb, const struct sweep_change *c)
{
	percent(sb, c->change);
	strbuf_adds(sb, " [");
	percent(sb, c->low);
	strbuf_adds(sb, ", ");
	percent(sb, c->high);
	strbuf_adds(sb, "]");
}

static void ratio_text(struct strbuf *sb, const struct sweep_point *p)
{
	if (!p->has_ratio) {
		strbuf_adds(sb, "-");
		return;
	}
	strbuf_addf(sb, "%.3f [%.3f, %.3f]", p->ratio, p->ratio_low, p->ratio_high);
}

static void value_text(struct strbuf *sb, enum metric m, double v, bool has)
{
	if (has)
		fmt_metric(sb, m, v, NULL);
	else
		strbuf_adds(sb, "-");
}

static void title(struct strbuf *sb, const struct sweep_series *s)
{
	strbuf_addf(sb, "%s › %s › %s: %s relative to ", str(s->suite), str(s->benchmark),
		    str(s->command), metric_info(s->metric)->name);
	short_sha(sb, s->reference);
	strbuf_addf(sb, " (tolerance %.1f%%)", s->max_fraction * 100);
}

/* A subject in a terminal cell: control characters become spaces. */
static void printable(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++)
		strbuf_addch(sb, (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s);
}

/* The subject goes through `text`, the escaper of the format. */
static void change_line(struct strbuf *sb, const struct sweep_series *s,
			const struct sweep_change *c, void (*text)(struct strbuf *, const char *))
{
	const struct sweep_point *bad = &s->points[c->index];
	const struct sweep_point *good = &s->points[c->index - 1];

	strbuf_adds(sb, "change ");
	step_text(sb, c);
	strbuf_adds(sb, ": last good ");
	short_sha(sb, good->sha);
	strbuf_adds(sb, ", first bad ");
	short_sha(sb, bad->sha);
	strbuf_adds(sb, " \"");
	text(sb, bad->subject);
	strbuf_addch(sb, '"');
}

/* Short ids of the searched commits from the oldest (or newest) end, n of
 * them, oldest first. */
static void end_commits(struct strbuf *sb, const struct sweep_series *s, size_t n, bool newest)
{
	size_t i, seen = 0, shown = 0, first;

	for (i = 0; i < s->n_points; i++)
		seen += sweep_point_searched(&s->points[i]);
	first = newest ? seen - n : 0;
	for (i = 0, seen = 0; i < s->n_points && shown < n; i++) {
		if (!sweep_point_searched(&s->points[i]) || seen++ < first)
			continue;
		if (shown++)
			strbuf_adds(sb, ", ");
		short_sha(sb, s->points[i].sha);
	}
}

/* What the change-point search could and could not see (docs/sweeps.md): a
 * step needs enough commits on each side of it, so a short sweep sees none
 * and the commits near either end are never a first bad commit. */
static void reach_text(struct strbuf *sb, const struct sweep_series *s)
{
	double conf = (s->confidence > 0 ? s->confidence : 0.99) * 100;

	if (!s->reach) {
		strbuf_addf(sb,
			    "no step can be called in %zu commit%s with a ratio at %g%% "
			    "confidence",
			    s->searched, s->searched == 1 ? "" : "s", conf);
		if (s->needed)
			strbuf_addf(sb, ": that takes at least %zu", s->needed);
		strbuf_adds(sb, "; each commit's verdict against the reference is in VERDICT");
		return;
	}
	strbuf_addf(sb,
		    "a step needs at least %zu commits on each side at %g%% confidence: ", s->reach,
		    conf);
	strbuf_addf(sb, "the oldest %zu (", s->reach);
	end_commits(sb, s, s->reach, false);
	strbuf_adds(sb, ")");
	if (s->reach > 1) {
		strbuf_addf(sb, " and the newest %zu (", s->reach - 1);
		end_commits(sb, s, s->reach - 1, true);
		strbuf_adds(sb, ")");
	}
	strbuf_adds(sb, " cannot be judged for a step; their verdicts against the reference are "
			"in VERDICT");
}

static const char *verdict_text(const struct sweep_point *p)
{
	return p->has_value ? verdict_name(p->verdict) : "-";
}

/* ---- table ---------------------------------------------------------------- */

enum { TABLE_COLS = 7 };

/* Column c of point `at` in the terminal table. */
static void table_cell(struct strbuf *sb, const struct sweep_series *s, size_t at, size_t c)
{
	const struct sweep_point *p = &s->points[at];
	const struct sweep_change *ch = change_at(s, at);

	switch (c) {
	case 0:
		short_sha(sb, p->sha);
		break;
	case 1:
		strbuf_adds(sb, str(p->subject));
		break;
	case 2:
		value_text(sb, s->metric, p->value, p->has_value);
		break;
	case 3:
		value_text(sb, s->metric, p->reference, p->has_value);
		break;
	case 4:
		ratio_text(sb, p);
		break;
	case 5:
		strbuf_adds(sb, verdict_text(p));
		break;
	default:
		if (ch) {
			strbuf_adds(sb, "<< ");
			step_text(sb, ch);
			strbuf_adds(sb, " first bad");
		} else if (p->error) {
			strbuf_addf(sb, "(%s)", p->error);
		}
		break;
	}
}

/* The colour of cell c of point `at`: the verdict's, and red for a first
 * bad commit or a commit that could not be measured; NULL for none. */
static const char *cell_colour(const struct sweep_series *s, size_t at, size_t c)
{
	const struct sweep_point *p = &s->points[at];

	if (c == TABLE_COLS - 1)
		return change_at(s, at) || p->error ? ANSI_RED : NULL;
	if (c != 5 || !p->has_value)
		return NULL;
	switch (p->verdict) {
	case VERDICT_REGRESSION:
		return ANSI_RED;
	case VERDICT_IMPROVED:
		return ANSI_GREEN;
	case VERDICT_INCONCLUSIVE:
		return ANSI_YELLOW;
	case VERDICT_PASS:
	case VERDICT_SKIPPED:
		return NULL;
	}
	return NULL;
}

/* The points newest first, in the terminal table of table.h; with colour,
 * the header is dim and the cells cell_colour names take it. */
static void table_series(struct strbuf *out, const struct sweep_series *s, bool colour)
{
	static const char *const head[TABLE_COLS] = { "COMMIT",	   "SUBJECT",	       "VALUE",
						      "REFERENCE", "RATIO [INTERVAL]", "VERDICT",
						      "" };
	struct strbuf cells[TABLE_COLS];
	const char *row[TABLE_COLS];
	struct table t;
	size_t i, c;

	table_init(&t, TABLE_COLS, head);
	for (c = 0; c < TABLE_COLS; c++)
		strbuf_init(&cells[c], 0);
	for (i = s->n_points; i-- > 0;) {
		for (c = 0; c < TABLE_COLS; c++) {
			strbuf_reset(&cells[c]);
			table_cell(&cells[c], s, i, c);
			row[c] = cells[c].buf;
		}
		table_add_row(&t, row);
		for (c = 0; c < TABLE_COLS; c++)
			table_colour_cell(&t, c, cell_colour(s, i, c));
	}
	title(out, s);
	strbuf_addch(out, '\n');
	if (colour)
		table_render_colour(&t, out);
	else
		table_render_text(&t, out);
	for (i = s->n_changes; i-- > 0;) {
		change_line(out, s, &s->changes[i], printable);
		strbuf_addch(out, '\n');
	}
	reach_text(out, s);
	strbuf_addch(out, '\n');
	if (!s->n_changes)
		strbuf_adds(out, "no change point\n");
	for (c = 0; c < TABLE_COLS; c++)
		strbuf_release(&cells[c]);
	table_release(&t);
}

/* ---- markdown ------------------------------------------------------------- */

static void markdown_series(struct strbuf *out, const struct sweep_series *s)
{
	struct strbuf tmp;
	char *reach;
	size_t i;

	strbuf_init(&tmp, 0);
	reach_text(&tmp, s);

	strbuf_adds(out, "### ");
	rnd_md_text(out, s->benchmark);
	strbuf_adds(out, " › ");
	rnd_md_text(out, s->command);
	strbuf_addf(out, " (%s)\n\n", metric_info(s->metric)->name);
	strbuf_adds(out, "Suite ");
	rnd_md_text(out, s->suite);
	strbuf_adds(out, ", relative to `");
	short_sha(out, s->reference);
	strbuf_addf(out, "`, tolerance %.1f%%.\n\n", s->max_fraction * 100);
	strbuf_adds(out, "| Commit | Subject | Value | Reference | Ratio [interval] | Verdict | "
			 "Change |\n"
			 "|---|---|---:|---:|---:|---|---|\n");
	for (i = s->n_points; i-- > 0;) {
		const struct sweep_point *p = &s->points[i];
		const struct sweep_change *ch = change_at(s, i);
		strbuf_adds(out, "| `");
		short_sha(out, p->sha);
		strbuf_adds(out, "` | ");
		rnd_md_text(out, p->subject);
		strbuf_adds(out, " | ");
		value_text(out, s->metric, p->value, p->has_value);
		strbuf_adds(out, " | ");
		value_text(out, s->metric, p->reference, p->has_value);
		strbuf_adds(out, " | ");
		ratio_text(out, p);
		strbuf_addf(out, " | %s | ", verdict_text(p));
		if (ch) {
			strbuf_adds(out, "**");
			step_text(out, ch);
			strbuf_adds(out, " first bad**");
		} else if (p->error) {
			rnd_md_text(out, p->error);
		}
		strbuf_adds(out, " |\n");
	}
	strbuf_addch(out, '\n');
	if (!s->n_changes)
		strbuf_adds(out, "No change point.\n\n");
	for (i = s->n_changes; i-- > 0;) {
		strbuf_adds(out, "- ");
		change_line(out, s, &s->changes[i], rnd_md_text);
		strbuf_addch(out, '\n');
	}
	if (s->n_changes)
		strbuf_addch(out, '\n');
	reach = strbuf_detach(&tmp, NULL);
	rnd_md_text(out, reach);
	free(reach);
	strbuf_adds(out, ".\n\n");
}

/* ---- csv ------------------------------------------------------------------- */

static void csv_num(struct strbuf *sb, bool has, double v)
{
	strbuf_addch(sb, ',');
	if (has)
		jsonw_number_text(sb, v);
}

static void csv_series(struct strbuf *out, const struct sweep_series *s)
{
	size_t i;

	for (i = s->n_points; i-- > 0;) {
		const struct sweep_point *p = &s->points[i];
		const struct sweep_change *ch = change_at(s, i);
		rnd_csv_field(out, s->suite);
		strbuf_addch(out, ',');
		rnd_csv_field(out, s->benchmark);
		strbuf_addch(out, ',');
		rnd_csv_field(out, s->command);
		strbuf_addf(out, ",%s,%s,", metric_info(s->metric)->name, str(p->sha));
		rnd_csv_field(out, p->subject);
		strbuf_addf(out, ",%s", str(s->reference));
		csv_num(out, p->has_value, p->value);
		csv_num(out, p->has_value, p->reference);
		csv_num(out, p->has_ratio, p->ratio);
		csv_num(out, p->has_ratio, p->ratio_low);
		csv_num(out, p->has_ratio, p->ratio_high);
		strbuf_addf(out, ",%s,%s", p->has_value ? verdict_name(p->verdict) : "",
			    ch ? "first_bad" : "");
		csv_num(out, ch != NULL, ch ? ch->change : 0);
		csv_num(out, ch != NULL, ch ? ch->low : 0);
		csv_num(out, ch != NULL, ch ? ch->high : 0);
		strbuf_addch(out, '\n');
	}
}

/* ---- json ------------------------------------------------------------------ */

static void json_num(struct strbuf *sb, const char *key, bool has, double v)
{
	strbuf_addf(sb, ", \"%s\": ", key);
	if (has)
		jsonw_num(sb, v);
	else
		strbuf_adds(sb, "null");
}

static void json_point(struct strbuf *out, const struct sweep_point *p)
{
	strbuf_adds(out, "{\"commit\": ");
	jsonw_str(out, p->sha);
	strbuf_adds(out, ", \"subject\": ");
	jsonw_str(out, p->subject);
	strbuf_adds(out, ", \"time\": ");
	jsonw_time(out, p->time_unix_ns);
	strbuf_addf(out, ", \"index\": %llu", (unsigned long long)p->index);
	json_num(out, "value", p->has_value, p->value);
	json_num(out, "reference_value", p->has_value, p->reference);
	json_num(out, "ratio", p->has_ratio, p->ratio);
	json_num(out, "ratio_low", p->has_ratio, p->ratio_low);
	json_num(out, "ratio_high", p->has_ratio, p->ratio_high);
	strbuf_adds(out, ", \"verdict\": ");
	jsonw_str(out, p->has_value ? verdict_name(p->verdict) : NULL);
	strbuf_adds(out, ", \"error\": ");
	jsonw_str(out, p->error);
	strbuf_adds(out, "}");
}

static void json_series(struct strbuf *out, const struct sweep_series *s)
{
	size_t i;

	strbuf_adds(out, "{\"suite\": ");
	jsonw_str(out, s->suite);
	strbuf_adds(out, ", \"benchmark\": ");
	jsonw_str(out, s->benchmark);
	strbuf_adds(out, ", \"command\": ");
	jsonw_str(out, s->command);
	strbuf_addf(out, ", \"metric\": \"%s\", \"reference\": ", metric_info(s->metric)->name);
	jsonw_str(out, s->reference);
	json_num(out, "max_fraction", true, s->max_fraction);
	json_num(out, "confidence", true, s->confidence);
	strbuf_addf(out, ", \"searched\": %zu", s->searched);
	json_num(out, "shortest_step_side", s->reach > 0, (double)s->reach);
	json_num(out, "commits_needed", s->needed > 0, (double)s->needed);
	strbuf_adds(out, ",\n   \"points\": [");
	for (i = s->n_points; i-- > 0;) {
		strbuf_adds(out, i + 1 < s->n_points ? ",\n    " : "\n    ");
		json_point(out, &s->points[i]);
	}
	strbuf_adds(out, "],\n   \"changes\": [");
	for (i = s->n_changes; i-- > 0;) {
		const struct sweep_change *c = &s->changes[i];
		strbuf_adds(out, i + 1 < s->n_changes ? ",\n    " : "\n    ");
		strbuf_adds(out, "{\"first_bad\": ");
		jsonw_str(out, s->points[c->index].sha);
		strbuf_adds(out, ", \"last_good\": ");
		jsonw_str(out, s->points[c->index - 1].sha);
		json_num(out, "change", true, c->change);
		json_num(out, "low", true, c->low);
		json_num(out, "high", true, c->high);
		strbuf_adds(out, "}");
	}
	strbuf_adds(out, "]}");
}

/* ---- html ------------------------------------------------------------------ */

/* The ratios oldest to newest as a polyline; a dashed line at 1 and a red
 * line before each first bad commit. */
static void html_chart(struct strbuf *out, const struct sweep_series *s)
{
	const double w = 640, h = 200, m = 20;
	double lo = 1, hi = 1;
	size_t i, n = s->n_points;

	for (i = 0; i < n; i++)
		if (s->points[i].has_ratio) {
			lo = fmin(lo, s->points[i].ratio);
			hi = fmax(hi, s->points[i].ratio);
		}
	if (hi - lo < 1e-9) {
		lo -= 0.5;
		hi += 0.5;
	}
#define X(i) (m + (n > 1 ? (double)(i) * (w - 2 * m) / (double)(n - 1) : (w - 2 * m) / 2))
#define Y(v) (h - m - ((v)-lo) * (h - 2 * m) / (hi - lo))
	strbuf_addf(out,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\">", w,
		    h);
	strbuf_addf(out,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" "
		    "stroke-dasharray=\"4\"/>",
		    m, Y(1.0), w - m, Y(1.0));
	for (i = 0; i < s->n_changes; i++) {
		double x = (X(s->changes[i].index) + X(s->changes[i].index - 1)) / 2;
		strbuf_addf(out,
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"#c00\"/>",
			    x, m, x, h - m);
	}
	strbuf_adds(out, "<polyline fill=\"none\" stroke=\"#036\" stroke-width=\"2\" points=\"");
	for (i = 0; i < n; i++)
		if (s->points[i].has_ratio)
			strbuf_addf(out, "%.1f,%.1f ", X(i), Y(s->points[i].ratio));
	strbuf_adds(out, "\"/>");
	strbuf_addf(out,
		    "<text x=\"2\" y=\"%.1f\" font-size=\"10\">%.3f</text>"
		    "<text x=\"2\" y=\"%.1f\" font-size=\"10\">%.3f</text></svg>\n",
		    m, hi, h - m + 12, lo);
#undef X
#undef Y
}

static void html_series(struct strbuf *out, const struct sweep_series *s)
{
	struct strbuf t;
	size_t i;

	strbuf_init(&t, 0);
	title(&t, s);
	strbuf_adds(out, "<h2>");
	rnd_html_text(out, t.buf);
	strbuf_adds(out, "</h2>\n");
	strbuf_release(&t);
	html_chart(out, s);
	strbuf_adds(out, "<table>\n<tr><th>Commit</th><th>Subject</th><th>Value</th>"
			 "<th>Reference</th><th>Ratio [interval]</th><th>Verdict</th>"
			 "<th>Change</th></tr>\n");
	for (i = s->n_points; i-- > 0;) {
		const struct sweep_point *p = &s->points[i];
		const struct sweep_change *ch = change_at(s, i);
		struct strbuf cell;
		strbuf_init(&cell, 0);
		strbuf_adds(out, ch ? "<tr class=\"bad\"><td>" : "<tr><td>");
		short_sha(out, p->sha);
		strbuf_adds(out, "</td><td>");
		rnd_html_text(out, p->subject);
		strbuf_adds(out, "</td><td>");
		value_text(&cell, s->metric, p->value, p->has_value);
		strbuf_adds(&cell, "</td><td>");
		value_text(&cell, s->metric, p->reference, p->has_value);
		strbuf_adds(&cell, "</td><td>");
		ratio_text(&cell, p);
		strbuf_addf(&cell, "</td><td>%s</td><td>", verdict_text(p));
		if (ch) {
			step_text(&cell, ch);
			strbuf_adds(&cell, " first bad");
		}
		strbuf_adds(out, cell.buf);
		if (!ch && p->error)
			rnd_html_text(out, p->error);
		strbuf_adds(out, "</td></tr>\n");
		strbuf_release(&cell);
	}
	strbuf_adds(out, "</table>\n<p>");
	strbuf_init(&t, 0);
	reach_text(&t, s);
	rnd_html_text(out, t.buf);
	strbuf_release(&t);
	strbuf_adds(out, ".</p>\n");
}

/* ---- entry ----------------------------------------------------------------- */

int history_render(const struct sweep_series_list *l, enum render_format f, bool colour,
		   struct strbuf *out, struct err *err)
{
	size_t i;

	switch (f) {
	case RENDER_TABLE:
		for (i = 0; i < l->count; i++) {
			if (i)
				strbuf_addch(out, '\n');
			table_series(out, &l->items[i], colour);
		}
		return 0;
	case RENDER_MARKDOWN:
	case RENDER_GITHUB:
		strbuf_adds(out, "## himorime history\n\n");
		for (i = 0; i < l->count; i++)
			markdown_series(out, &l->items[i]);
		return 0;
	case RENDER_CSV:
		strbuf_adds(out, "suite,benchmark,command,metric,commit,subject,reference,value,"
				 "reference_value,ratio,ratio_low,ratio_high,verdict,change_point,"
				 "change,change_low,change_high\n");
		for (i = 0; i < l->count; i++)
			csv_series(out, &l->items[i]);
		return 0;
	case RENDER_JSON:
		strbuf_adds(out, "{\"series\": [");
		for (i = 0; i < l->count; i++) {
			strbuf_adds(out, i ? ",\n  " : "\n  ");
			json_series(out, &l->items[i]);
		}
		strbuf_adds(out, "]}\n");
		return 0;
	case RENDER_HTML:
		strbuf_adds(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
				 "<title>himorime history</title><style>"
				 "body{font-family:sans-serif}table{border-collapse:collapse}"
				 "td,th{border:1px solid #ccc;padding:2px 6px}"
				 "tr.bad{background:#fdd}</style></head><body>\n"
				 "<h1>himorime history</h1>\n");
		for (i = 0; i < l->count; i++)
			html_series(out, &l->items[i]);
		strbuf_adds(out, "</body></html>\n");
		return 0;
	case RENDER_SAMPLES_CSV:
		break;
	}
	return err_set(err, ERR_INTERNAL, "a history has no %s rendering", render_format_name(f));
}
