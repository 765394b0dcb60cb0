/*
 * The table of a calibration (`himorime calibrate`, docs/comparison.md): what
 * an A/A comparison says about this machine, per command and metric: each
 * side's robust CV, the pairs and interval the looks reached, the verdict
 * (any but pass is noise) and the smallest slowdown the settings would call a
 * regression within the pair cap, as the document stores it
 * (`calibration.rows`), so that `himorime report` shows what `calibrate`
 * showed. When the calibration measured both schedules (no --schedule), a
 * second table gives each schedule's interval half-width at the same pairs
 * and the narrower one, and a line recommends the schedule that decides
 * faster on this machine, or says why duet was not measured.
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

/* The schedule a row's intervals favour: the narrower one, or "tie". */
static const char *narrower(const struct results_calibration_row *row)
{
	if (row->duet_half_width_percent < row->interleaved_half_width_percent)
		return "duet";
	if (row->interleaved_half_width_percent < row->duet_half_width_percent)
		return "interleaved";
	return "tie";
}

static void schedule_row(struct table *t, const struct results_calibration_row *row)
{
	const char *name = metric_info(row->metric)->name;

	if (!row->schedule_pairs) {
		table_add_rowf(t, "%s\t%s\t%s\t\t\t\t%s", row->benchmark ? row->benchmark : "",
			       row->command ? row->command : "", name,
			       row->schedules_note ? row->schedules_note : "not measured");
		return;
	}
	table_add_rowf(t, "%s\t%s\t%s\t%llu\t±%.1f%%\t±%.1f%%\t%s",
		       row->benchmark ? row->benchmark : "", row->command ? row->command : "", name,
		       (unsigned long long)row->schedule_pairs, row->interleaved_half_width_percent,
		       row->duet_half_width_percent, narrower(row));
}

/* The row the recommendation quotes: the first latency row whose narrower
 * schedule is the recommended one, else the first such row; and the
 * geometric mean of duet's half-widths over interleaved's, of the n rows
 * measured under both. */
static const struct results_calibration_row *quoted(const struct results_calibration *c, bool duet,
						    double *ratio, size_t *n)
{
	const struct results_calibration_row *q = NULL;
	size_t i;

	*ratio = results_calibration_width_ratio(c, n);
	for (i = 0; i < c->n_rows; i++) {
		const struct results_calibration_row *row = &c->rows[i];
		if (!results_calibration_row_both(row) ||
		    duet != (row->duet_half_width_percent < row->interleaved_half_width_percent))
			continue; /* not measured under both, or a row that says otherwise */
		if (!q || (q->metric != METRIC_LATENCY && row->metric == METRIC_LATENCY))
			q = row;
	}
	return q;
}

/* "Duet decides faster here: ±0.9% vs ±1.6% at 24 pairs (work › spin,
 * latency); ..." */
static void recommendation(const struct results_calibration *c, struct strbuf *sb)
{
	bool duet = !strcmp(c->recommended_schedule, "duet");
	double ratio;
	size_t n;
	const struct results_calibration_row *q = quoted(c, duet, &ratio, &n);

	if (!q)
		return;
	strbuf_addf(sb, "%s decides faster here: ±%.1f%% vs ±%.1f%% at %llu pairs (%s › %s, %s)",
		    duet ? "Duet" : "Interleaved",
		    duet ? q->duet_half_width_percent : q->interleaved_half_width_percent,
		    duet ? q->interleaved_half_width_percent : q->duet_half_width_percent,
		    (unsigned long long)q->schedule_pairs, q->benchmark ? q->benchmark : "",
		    q->command ? q->command : "", metric_info(q->metric)->name);
	strbuf_addf(sb, "; duet's intervals were %.2f× as wide as interleaved ones", ratio);
	if (n > 1)
		strbuf_addf(sb, " (geometric mean of %zu rows)", n);
	strbuf_adds(sb, duet ? ". Interleaved stays the default: set schedule: duet in the suite, "
			       "or pass --schedule duet, to use it.\n"
			     : ". Keep the default schedule, interleaved.\n");
}

/* Both schedules' half-widths and the recommendation (docs/comparison.md,
 * "Choosing a schedule"); nothing when the calibration measured one. */
static void render_schedules(const struct results *r, struct strbuf *out)
{
	const char *cols[] = { "BENCHMARK",    "COMMAND", "METRIC",  ">PAIRS",
			       ">INTERLEAVED", ">DUET",	  "NARROWER" };
	const struct results_calibration *c = &r->calibration;
	struct table t;
	size_t i;

	if (!c->both_schedules)
		return;
	if (c->duet_not_measured) {
		strbuf_addf(out, "\nDuet was not measured: %s.\n", c->duet_not_measured);
		return;
	}
	strbuf_adds(out, "\nSchedules: each pair above was measured again under the other "
			 "schedule, in the same rounds, which one first alternating; each "
			 "schedule's interval half-width at the same pairs.\n");
	table_init(&t, ARRAY_SIZE(cols), cols);
	for (i = 0; i < c->n_rows; i++)
		schedule_row(&t, &c->rows[i]);
	table_render_text(&t, out);
	table_release(&t);
	if (c->recommended_schedule)
		recommendation(c, out);
	else
		strbuf_adds(out, "No interval was measured under both schedules: no "
				 "recommendation.\n");
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
	render_schedules(r, &text);
	strbuf_add(out, text.buf, text.len);
	strbuf_release(&text);
	table_release(&t);
	rnd_rows_release(&rows);
}
