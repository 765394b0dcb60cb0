/*
 * The drift check of benchmarks with sizes in every human format
 * (docs/reports.md, "Cases and growth"): one line per command of each case
 * that was its series' long run, "sort › sort: drift checked at size 64k
 * (30 runs, declared): no growth; smallest detectable +0.8 µs per run",
 * from head's latency trend (and peak RSS when that grows). Which case was
 * the long run and its trends are in the report (engine/longrun.c,
 * engine/finish.c); this only says them.
 */
#include "render/render_internal.h"

#include "render/format.h"

#include <string.h>

#include "common/banned.h"

/* "sort" or "scan[mode=a]": the case's label without its size. */
static void series_label(struct strbuf *sb, const struct results_benchmark *b)
{
	size_t i, n = 0;

	strbuf_adds(sb, rnd_str(b->base_name));
	for (i = 0; i < b->n_params; i++)
		if (strcmp(b->params[i].name, "size"))
			strbuf_addf(sb, "%s%s=%s", n++ ? "," : "[", b->params[i].name,
				    b->params[i].value);
	if (n)
		strbuf_addch(sb, ']');
}

static const char *size_text(const struct results_benchmark *b)
{
	size_t i;

	for (i = 0; i < b->n_params; i++)
		if (!strcmp(b->params[i].name, "size"))
			return b->params[i].value;
	return "?";
}

static void slope(struct strbuf *sb, enum metric m, double v)
{
	if (v >= 0)
		strbuf_addch(sb, '+');
	else
		strbuf_adds(sb, "-");
	fmt_metric(sb, m, v >= 0 ? v : -v, NULL);
}

/* "latency grows +1.2 ms per run (+0.9 ms…+1.5 ms)"; false when it does
 * not grow. */
static bool growth(struct strbuf *sb, const struct results_metric *m, const char *sep)
{
	const struct results_trend *t = &m->trend;

	if (!t->present || !t->growing)
		return false;
	strbuf_addf(sb, "%s%s grows ", sep, metric_info(m->metric)->name);
	slope(sb, m->metric, t->slope);
	strbuf_adds(sb, " per run (");
	slope(sb, m->metric, t->slope_low);
	strbuf_adds(sb, "…");
	slope(sb, m->metric, t->slope_high);
	strbuf_adds(sb, ")");
	return true;
}

/* "no growth; smallest detectable +0.8 µs per run", or what grows, and the
 * smallest growth of latency the runs could have seen. */
static void verdict(struct strbuf *sb, const struct results_side *side)
{
	const struct results_metric *lat = &side->metrics[METRIC_LATENCY];
	bool grows;

	if (!lat->trend.present) {
		strbuf_adds(sb, "not checked: the runs give no interval");
		return;
	}
	grows = growth(sb, lat, "");
	grows |= growth(sb, &side->metrics[METRIC_PEAK_RSS], grows ? ", " : "");
	if (!grows)
		strbuf_adds(sb, "no growth");
	strbuf_adds(sb, "; smallest detectable ");
	slope(sb, METRIC_LATENCY, lat->trend.min_detectable_slope);
	strbuf_adds(sb, " per run");
}

void rnd_long_run_line(struct strbuf *sb, const struct results_benchmark *b,
		       const struct results_command *c)
{
	if (b->long_run == RESULTS_LONG_RUN_NOT_CHECKED) {
		/* 30: SUITE_LONG_RUN_RUNS, docs/configuration.md, "Sizes" */
		strbuf_addf(sb,
			    "drift not checked: no size had a long run of 30 runs within 60 s "
			    "(size %s: %llu runs); a comparison's pairs stop where it decides: "
			    "'himorime run' measures the long run, or name a size in long_run:",
			    size_text(b),
			    (unsigned long long)c->head.metrics[METRIC_LATENCY].n_samples);
		return;
	}
	strbuf_addf(sb, "drift checked at size %s (%llu runs, %s): ", size_text(b),
		    (unsigned long long)c->head.metrics[METRIC_LATENCY].n_samples,
		    results_long_run_name(b->long_run));
	verdict(sb, &c->head);
}

size_t rnd_long_run_lines(const struct results *r, const char *prefix, bool md, struct strbuf *out)
{
	struct strbuf line;
	size_t i, j, k, n = 0;

	strbuf_init(&line, 0);
	for (i = 0; i < r->n_suites; i++)
		for (j = 0; j < r->suites[i].n_benchmarks; j++) {
			const struct results_benchmark *b = &r->suites[i].benchmarks[j];
			if (b->long_run == RESULTS_LONG_RUN_NONE)
				continue;
			for (k = 0; k < b->n_commands; k++, n++) {
				const struct results_command *c = &b->commands[k];
				strbuf_reset(&line);
				series_label(&line, b);
				strbuf_addf(&line, " › %s: ", rnd_str(c->name));
				rnd_long_run_line(&line, b, c);
				rnd_prefixed_line(out, prefix, line.buf, md);
			}
		}
	strbuf_release(&line);
	return n;
}
