/*
 * Growth with input size in every format (docs/reports.md, "Cases and
 * growth"): one line per command and metric, "latency grows as size^1.02
 * (0.98…1.06) beyond a constant 1.05 ms over sizes 1k…64k", with base's
 * exponent beside head's in a comparison, in Markdown a Mermaid chart of the
 * median latency per size, and in HTML a log–log chart of it with each
 * side's fitted curve. The fit itself is in the report (engine/growth.c);
 * this only says it.
 */
#include "render/render_internal.h"

#include "render/escape.h"
#include "render/format.h"

#include <math.h>
#include <string.h>

#include "common/banned.h"

static void exponent(struct strbuf *sb, enum metric m, const struct results_fit *f)
{
	strbuf_addf(sb, "size^%.2f", f->exponent);
	if (f->has_interval)
		strbuf_addf(sb, " (%.2f…%.2f)", f->exponent_low, f->exponent_high);
	if (f->has_constant) {
		strbuf_adds(sb, " beyond a constant ");
		fmt_metric(sb, m, f->constant, NULL);
	}
}

void rnd_growth_line(struct strbuf *sb, const struct results_growth *g)
{
	const struct results_fit *f = g->head.present ? &g->head : &g->base;

	strbuf_addf(sb, "%s grows as ", metric_info(g->metric)->name);
	if (g->head.present)
		exponent(sb, g->metric, &g->head);
	else
		strbuf_adds(sb, "? (head has no fit)");
	if (g->base.present) {
		strbuf_adds(sb, ", base ");
		exponent(sb, g->metric, &g->base);
		strbuf_addch(sb, ',');
	}
	strbuf_addf(sb, " over sizes %s…%s", rnd_str(f->from), rnd_str(f->to));
	if (g->compared)
		strbuf_addf(sb, "; exponent change %+.2f (%+.2f…%+.2f), tolerance %.2f: %s",
			    g->difference, g->difference_low, g->difference_high, g->max_difference,
			    verdict_name(g->verdict));
	if (g->has_budget)
		strbuf_addf(sb, "; budget exponent %s: %s", rnd_str(g->budget_text),
			    g->budget_pass ? "pass" : "over budget");
}

void rnd_prefixed_line(struct strbuf *out, const char *prefix, const char *text, bool md)
{
	strbuf_adds(out, prefix);
	if (md)
		rnd_md_text(out, text);
	else
		strbuf_adds(out, text);
	strbuf_addch(out, '\n');
}

/* "scan › lin: latency grows as ..." for every fit of the document, each
 * line after `prefix`; escaped as Markdown when md. */
size_t rnd_growth_lines(const struct results *r, const char *prefix, bool md, struct strbuf *out)
{
	struct strbuf line;
	size_t i, j, n = 0;

	strbuf_init(&line, 0);
	for (i = 0; i < r->n_suites; i++)
		for (j = 0; j < r->suites[i].n_growth; j++, n++) {
			const struct results_growth *g = &r->suites[i].growth[j];
			strbuf_reset(&line);
			strbuf_addf(&line, "%s › %s: ", rnd_str(g->benchmark), rnd_str(g->command));
			rnd_growth_line(&line, g);
			rnd_prefixed_line(out, prefix, line.buf, md);
		}
	strbuf_release(&line);
	return n;
}

/* The median of a command's latency in case b, or a negative number. */
static double median_latency(const struct results_benchmark *b, const char *command)
{
	const struct results_metric *m;
	size_t i;

	for (i = 0; i < b->n_commands; i++)
		if (!strcmp(b->commands[i].name, command)) {
			m = &b->commands[i].head.metrics[METRIC_LATENCY];
			return m->has_stats ? m->stats.median : -1;
		}
	return -1;
}

/* Whether case b belongs to the series of g (its label without the size). */
static bool in_series(const struct results_benchmark *b, const struct results_growth *g)
{
	struct strbuf key;
	size_t i, n = 0;
	bool same;

	if (!b->has_size || !b->base_name)
		return false;
	strbuf_init(&key, 0);
	strbuf_adds(&key, b->base_name);
	for (i = 0; i < b->n_params; i++)
		if (strcmp(b->params[i].name, "size"))
			strbuf_addf(&key, "%s%s=%s", n++ ? "," : "[", b->params[i].name,
				    b->params[i].value);
	if (n)
		strbuf_addch(&key, ']');
	same = g->benchmark && !strcmp(key.buf, g->benchmark);
	strbuf_release(&key);
	return same;
}

static void mermaid_one(const struct results_suite *s, const struct results_growth *g,
			struct strbuf *out)
{
	struct strbuf x, y;
	size_t i, n = 0;

	strbuf_init(&x, 0);
	strbuf_init(&y, 0);
	for (i = 0; i < s->n_benchmarks; i++) {
		const struct results_benchmark *b = &s->benchmarks[i];
		const char *size = NULL;
		double v;
		size_t k;
		if (!in_series(b, g) || (v = median_latency(b, g->command)) < 0)
			continue;
		for (k = 0; k < b->n_params; k++)
			if (!strcmp(b->params[k].name, "size"))
				size = b->params[k].value;
		strbuf_adds(&x, n ? ", \"" : "\"");
		rnd_mermaid_label(&x, size ? size : "");
		strbuf_addch(&x, '"');
		strbuf_addf(&y, "%s%.4g", n++ ? ", " : "", v / 1e6);
	}
	if (n >= 2) {
		strbuf_adds(out, "```mermaid\nxychart-beta\n    title \"");
		rnd_mermaid_label(out, g->benchmark);
		strbuf_adds(out, " › ");
		rnd_mermaid_label(out, g->command);
		strbuf_addf(out,
			    ": median latency by size\"\n    x-axis [%s]\n"
			    "    y-axis \"ms\"\n    line [%s]\n```\n\n",
			    x.buf, y.buf);
	}
	strbuf_release(&x);
	strbuf_release(&y);
}

void rnd_growth_mermaid(const struct results *r, struct strbuf *out)
{
	size_t i, j;

	for (i = 0; i < r->n_suites; i++)
		for (j = 0; j < r->suites[i].n_growth; j++)
			if (r->suites[i].growth[j].metric == METRIC_LATENCY)
				mermaid_one(&r->suites[i], &r->suites[i].growth[j], out);
}

/* --- the log–log chart of HTML ------------------------------------------------ */

#define PLOT_W	   520
#define PLOT_H	   240
#define PLOT_LEFT  70
#define PLOT_RIGHT 20
#define PLOT_TOP   14
#define PLOT_BOT   40

struct plot {
	double x0, x1, y0, y1; /* ln size, ln value */
};

static double px(const struct plot *p, double size)
{
	return PLOT_LEFT +
	       (log(size) - p->x0) / (p->x1 - p->x0) * (PLOT_W - PLOT_LEFT - PLOT_RIGHT);
}

static double py(const struct plot *p, double v)
{
	return PLOT_TOP + (p->y1 - log(v)) / (p->y1 - p->y0) * (PLOT_H - PLOT_TOP - PLOT_BOT);
}

#define CURVE_POINTS 24 /* segments of a fitted curve with a constant */

/* The fitted cost at ln(size) = x. */
static double fitted(const struct results_fit *f, double x)
{
	return (f->has_constant ? f->constant : 0) + f->coefficient * exp(f->exponent * x);
}

/* A side's median latency at each case of the series, and its fitted line
 * (a curve in log–log when the fit has a constant). */
static void plot_side(const struct plot *p, const struct results_suite *s,
		      const struct results_growth *g, bool base, struct strbuf *out)
{
	const struct results_fit *f = base ? &g->base : &g->head;
	const char *colour = base ? "#1c7ed6" : "#d9480f";
	size_t i, k;

	for (i = 0; i < s->n_benchmarks; i++) {
		const struct results_benchmark *b = &s->benchmarks[i];
		for (k = 0; in_series(b, g) && k < b->n_commands; k++) {
			const struct results_metric *m =
				&(base ? &b->commands[k].base : &b->commands[k].head)
					 ->metrics[METRIC_LATENCY];
			if (strcmp(b->commands[k].name, g->command) || !m->has_stats ||
			    !(m->stats.median > 0))
				continue;
			strbuf_addf(out,
				    "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				    "fill=\"%s\"/>\n",
				    base ? "base" : "head", px(p, b->size), py(p, m->stats.median),
				    colour);
		}
	}
	if (!f->has_constant) { /* a power law is a line in log–log */
		strbuf_addf(out,
			    "<line class=\"fit %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"%s\"/>\n",
			    base ? "base" : "head", px(p, exp(p->x0)), py(p, fitted(f, p->x0)),
			    px(p, exp(p->x1)), py(p, fitted(f, p->x1)), colour);
		return;
	}
	strbuf_addf(out, "<polyline class=\"fit %s\" fill=\"none\" stroke=\"%s\" points=\"",
		    base ? "base" : "head", colour);
	for (i = 0; i <= CURVE_POINTS; i++) {
		double x = p->x0 + (p->x1 - p->x0) * (double)i / CURVE_POINTS;
		strbuf_addf(out, "%s%.1f,%.1f", i ? " " : "", px(p, exp(x)), py(p, fitted(f, x)));
	}
	strbuf_adds(out, "\"/>\n");
}

/* The range of sizes and medians of the series, in logs. */
static bool plot_range(const struct results_suite *s, const struct results_growth *g,
		       struct plot *p)
{
	size_t i, k, n = 0;

	p->x0 = p->y0 = INFINITY;
	p->x1 = p->y1 = -INFINITY;
	for (i = 0; i < s->n_benchmarks; i++) {
		const struct results_benchmark *b = &s->benchmarks[i];
		for (k = 0; in_series(b, g) && k < b->n_commands; k++) {
			const struct results_side *sides[2] = { &b->commands[k].head,
								&b->commands[k].base };
			size_t j;
			if (strcmp(b->commands[k].name, g->command))
				continue;
			for (j = 0; j < 2; j++) {
				const struct results_metric *m = &sides[j]->metrics[METRIC_LATENCY];
				if (!sides[j]->present || !m->has_stats || !(m->stats.median > 0))
					continue;
				p->x0 = fmin(p->x0, log(b->size));
				p->x1 = fmax(p->x1, log(b->size));
				p->y0 = fmin(p->y0, log(m->stats.median));
				p->y1 = fmax(p->y1, log(m->stats.median));
				n++;
			}
		}
	}
	p->y0 -= 0.1;
	p->y1 += 0.1;
	return n >= 2 && p->x1 > p->x0;
}

static void svg_one(const struct results_suite *s, const struct results_growth *g,
		    struct strbuf *out)
{
	struct strbuf label;
	struct plot p;

	if (!plot_range(s, g, &p))
		return;
	strbuf_init(&label, 0);
	strbuf_addf(&label, "%s › %s", rnd_str(g->benchmark), rnd_str(g->command));
	strbuf_adds(out, "<figure class=\"growth-chart\">\n<figcaption>");
	rnd_html_text(out, label.buf);
	strbuf_adds(out, ": median latency by size, log–log, with the fitted power law"
			 "</figcaption>\n");
	strbuf_addf(out,
		    "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		    "aria-label=\"",
		    PLOT_W, PLOT_H, PLOT_W, PLOT_H);
	rnd_html_text(out, label.buf);
	strbuf_addf(out,
		    " latency by size\">\n<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		    "y2=\"%d\" stroke=\"#495057\"/>\n<line class=\"axis\" x1=\"%d\" y1=\"%d\" "
		    "x2=\"%d\" y2=\"%d\" stroke=\"#495057\"/>\n",
		    PLOT_LEFT, PLOT_H - PLOT_BOT, PLOT_W - PLOT_RIGHT, PLOT_H - PLOT_BOT, PLOT_LEFT,
		    PLOT_TOP, PLOT_LEFT, PLOT_H - PLOT_BOT);
	strbuf_addf(out, "<text x=\"%d\" y=\"%d\">", PLOT_LEFT, PLOT_H - 8);
	rnd_html_text(out, g->head.present ? g->head.from : g->base.from);
	strbuf_addf(out, "</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
		    PLOT_W - PLOT_RIGHT, PLOT_H - 8);
	rnd_html_text(out, g->head.present ? g->head.to : g->base.to);
	strbuf_adds(out, "</text>\n");
	strbuf_addf(out, "<text x=\"4\" y=\"%d\">%.4g ms</text>\n", PLOT_TOP + 4, exp(p.y1) / 1e6);
	strbuf_addf(out, "<text x=\"4\" y=\"%d\">%.4g ms</text>\n", PLOT_H - PLOT_BOT,
		    exp(p.y0) / 1e6);
	if (g->base.present)
		plot_side(&p, s, g, true, out);
	if (g->head.present)
		plot_side(&p, s, g, false, out);
	strbuf_adds(out, "</svg>\n</figure>\n");
	strbuf_release(&label);
}

void rnd_growth_svg(const struct results *r, struct strbuf *out)
{
	size_t i, j;

	for (i = 0; i < r->n_suites; i++)
		for (j = 0; j < r->suites[i].n_growth; j++)
			if (r->suites[i].growth[j].metric == METRIC_LATENCY)
				svg_one(&r->suites[i], &r->suites[i].growth[j], out);
}
