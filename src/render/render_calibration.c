/*
 * The table of a calibration (`himorime calibrate`, docs/comparison.md): what
 * an A/A comparison says about this machine, per command and metric: each
 * side's robust CV, the pairs and interval the looks reached, the verdict
 * (any but pass is noise) and the smallest slowdown the settings would call a
 * regression within the pair cap, as the document stores it
 * (`calibration.rows`), so that `himorime report` shows what `calibrate`
 * showed.
 */
#include "render/render_internal.h"

#include "common/alloc.h"
#include "render/format.h"
#include "render/table.h"

#include <string.h>

#include "common/banned.h"

static const struct results_calibration_row *row_of(const struct results *r, const char *bench,
						    const char *cmd, enum metric m)
{
	size_t i;

	for (i = 0; i < r->calibration.n_rows; i++) {
		const struct results_calibration_row *row = &r->calibration.rows[i];
		if (row->metric == m && row->benchmark && row->command &&
		    !strcmp(row->benchmark, bench) && !strcmp(row->command, cmd))
			return row;
	}
	return NULL;
}

static void add_row(struct table *t, const struct results *r, const struct rnd_row *at,
		    const struct comparison *k)
{
	const struct results_metric *hb = &at->cmd->base.metrics[k->metric];
	const struct results_metric *hh = &at->cmd->head.metrics[k->metric];
	const struct results_calibration_row *row =
		row_of(r, at->bench->name ? at->bench->name : "",
		       at->cmd->name ? at->cmd->name : "", k->metric);
	struct strbuf noise, iv, det;

	strbuf_init(&noise, 0);
	strbuf_init(&iv, 0);
	strbuf_init(&det, 0);
	if (hb->has_stats && hh->has_stats)
		strbuf_addf(&noise, "%.1f%% / %.1f%%", hb->stats.robust_cv * 100,
			    hh->stats.robust_cv * 100);
	if (k->has_estimate) {
		fmt_change(&iv, k->ci_low_percent, false);
		strbuf_adds(&iv, " … ");
		fmt_change(&iv, k->ci_high_percent, false);
	}
	if (row && row->has_detectable)
		strbuf_addf(&det, "+%.1f%% at %llu pairs", row->detectable_percent,
			    (unsigned long long)row->max_pairs);
	table_add_rowf(t, "%s\t%s\t%s\t%s\t%u\t%s\t%s\t%s", at->bench->name ? at->bench->name : "",
		       at->cmd->name ? at->cmd->name : "", metric_info(k->metric)->name, noise.buf,
		       k->pairs, iv.buf, verdict_name(k->verdict), det.buf);
	strbuf_release(&noise);
	strbuf_release(&iv);
	strbuf_release(&det);
}

void render_calibration(const struct results *r, struct strbuf *out)
{
	const char *cols[] = { "BENCHMARK", "COMMAND",	"METRIC",  ">NOISE (BASE / HEAD)",
			       ">PAIRS",    "INTERVAL", "VERDICT", ">DETECTABLE AT CAP" };
	struct rnd_rows rows;
	struct table t;
	struct strbuf text;
	size_t i, j;

	if (!r->calibration.present)
		return;
	rnd_rows_collect(r, &rows);
	table_init(&t, ARRAY_SIZE(cols), cols);
	for (i = 0; i < rows.n; i++)
		for (j = 0; j < rows.v[i].cmd->n_comparisons; j++)
			if (!rows.v[i].cmd->comparisons[j].derived)
				add_row(&t, r, &rows.v[i], &rows.v[i].cmd->comparisons[j]);
	strbuf_init(&text, 0);
	strbuf_adds(&text, "\nCalibration: the same revision on both sides, so every verdict "
			   "but pass is noise.");
	if (r->calibration.separate_builds)
		strbuf_adds(&text, " The two builds stay two files, as in a real change.");
	strbuf_addch(&text, '\n');
	table_render_text(&t, &text);
	strbuf_adds(&text, "DETECTABLE AT CAP: the smallest slowdown these settings would call a "
			   "regression within the pair cap (the tolerance plus the interval's "
			   "expected half-width there). Raise max_runs or widen the tolerance to "
			   "change it.\n");
	strbuf_add(out, text.buf, text.len);
	strbuf_release(&text);
	table_release(&t);
	rnd_rows_release(&rows);
}
