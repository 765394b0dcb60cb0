/*
 * The notes under the tables (see rnd_notes_collect in render_internal.h):
 * failures with their stderr tails, metric problems, what to do about
 * inconclusive and skipped verdicts, budgets not assessed, the floor, the
 * machine, an interruption. Every format prints the same notes.
 */
#include "render/render_internal.h"

#include "common/alloc.h"
#include "render/format.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* --- notes ------------------------------------------------------------------ */

static void note_add(struct rnd_notes *notes, struct strbuf *text, const char *stderr_tail)
{
	struct rnd_note *n;

	notes->v = xgrow(notes->v, &notes->alloc, notes->n + 1, sizeof(*notes->v));
	n = &notes->v[notes->n++];
	n->text = strbuf_detach(text, NULL);
	n->stderr_tail = stderr_tail && *stderr_tail ? stderr_tail : NULL;
}

void rnd_notes_release(struct rnd_notes *notes)
{
	size_t i;

	if (!notes)
		return;
	for (i = 0; i < notes->n; i++)
		free(notes->v[i].text);
	free(notes->v);
	memset(notes, 0, sizeof(*notes));
}

const char *rnd_error_words(enum results_error_kind k)
{
	switch (k) {
	case RESULTS_ERROR_BUILD_FAILED:
		return "the build failed";
	case RESULTS_ERROR_SETUP_FAILED:
		return "setup failed";
	case RESULTS_ERROR_PREPARE_EACH_FAILED:
		return "prepare_each failed";
	case RESULTS_ERROR_CLEANUP_FAILED:
		return "cleanup failed";
	case RESULTS_ERROR_EXIT_CODE:
		return "the command failed";
	case RESULTS_ERROR_TIMEOUT:
		return "the command timed out";
	case RESULTS_ERROR_START_FAILED:
		return "the command could not be started";
	case RESULTS_ERROR_INTERRUPTED:
		return "interrupted";
	case RESULTS_ERROR_INVALID_PATH:
		return "invalid path";
	case RESULTS_ERROR_INTERNAL:
		return "internal error";
	case RESULTS_ERROR_METRIC_UNSUPPORTED:
		return "a metric is not supported here";
	case RESULTS_ERROR_METRIC_COLLECTION_FAILED:
		return "a metric could not be collected";
	case RESULTS_ERROR_HARNESS_OUTPUT:
		return "the harness output failed";
	}
	return "error";
}

static bool never_started(const struct results_benchmark *b)
{
	return b->error.present && b->error.kind == RESULTS_ERROR_INTERRUPTED && !b->n_commands &&
	       b->error.message && !strcmp(b->error.message, RESULTS_NOT_STARTED);
}

/* " Never started: a, b." for the benchmarks an interrupt came before. */
static void never_started_list(const struct results *r, struct strbuf *sb)
{
	size_t s, b, n = 0;

	for (s = 0; s < r->n_suites; s++)
		for (b = 0; b < r->suites[s].n_benchmarks; b++) {
			if (!never_started(&r->suites[s].benchmarks[b]))
				continue;
			strbuf_adds(sb, n++ ? ", " : " Never started: ");
			strbuf_adds(sb, rnd_str(r->suites[s].benchmarks[b].name));
		}
	if (n)
		strbuf_addch(sb, '.');
}

static void error_note(struct rnd_notes *notes, const char *where, const struct results_error *e)
{
	struct strbuf sb = STRBUF_INIT;

	if (!e->present)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s: %s", where, rnd_error_words(e->kind));
	/* "interrupted: interrupted" says nothing twice */
	if (e->message && *e->message && strcmp(e->message, rnd_error_words(e->kind)))
		strbuf_addf(&sb, ": %s", e->message);
	if (e->has_exit_code)
		strbuf_addf(&sb, " (exit code %d)", e->exit_code);
	if (e->has_metric)
		strbuf_addf(&sb, " [%s]", metric_info(e->metric)->name);
	note_add(notes, &sb, e->stderr_tail);
}

struct hint {
	const char *reason_part;
	const char *hint;
};

/* What a user can do about each reason the judge and the budgets give. */
static const struct hint hints[] = {
	{ .reason_part = "gated metrics were decided",
	  .hint = "it does not gate, so it stopped with them: set regression.<metric>.gate: true "
		  "to measure until it is decided" },
	{ .reason_part = "straddles",
	  .hint = "more pairs decide it: raise max_runs or --max-time" },
	{ .reason_part = "comparison's time budget ran out",
	  .hint = "raise --max-total-time or defaults.regression.max_total_time" },
	{ .reason_part = "time budget ran out", .hint = "raise --max-time or regression.max_time" },
	{ .reason_part = "noisier than max_cv",
	  .hint = "quiet the machine (fewer parallel jobs) or raise max_cv" },
	{ .reason_part = "base measurement is zero",
	  .hint = "measure a larger workload so that the base is above the metric's resolution" },
	{ .reason_part = "measurement floor",
	  .hint = "measure a larger input so that the peak RSS rises above the floor" },
	{ .reason_part = "work differs",
	  .hint = "keep the declared work constant and equal on both revisions" },
	{ .reason_part = "work varies",
	  .hint = "keep the declared work constant and equal on both revisions" },
	{ .reason_part = "not measured",
	  .hint = "enable the metric for this benchmark (metrics:)" },
};

/* The hint of a reason; runs_fixed: the pairs were fixed by `runs` (or
 * --runs), so more come from raising it, not max_runs. */
static void add_hint(struct strbuf *sb, const char *reason, bool runs_fixed)
{
	size_t i;

	if (!reason)
		return;
	if (runs_fixed && strstr(reason, "straddles")) {
		strbuf_adds(sb, "; more pairs decide it: raise runs (or --runs), which fixes them");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(hints); i++)
		if (strstr(reason, hints[i].reason_part)) {
			strbuf_addf(sb, "; %s", hints[i].hint);
			return;
		}
}

static void metric_notes(struct rnd_notes *notes, const char *label, const char *side_name,
			 const struct results_side *side)
{
	int m;

	if (!side->present)
		return;
	for (m = 0; m < METRIC__COUNT; m++) {
		const struct results_metric *mt = &side->metrics[m];
		struct strbuf sb;
		if (mt->status != STATUS_UNSUPPORTED && mt->status != STATUS_FAILED)
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "%s%s: %s %s", label, side_name, metric_info(mt->metric)->name,
			    mt->status == STATUS_UNSUPPORTED ? "is not supported here"
							     : "could not be collected");
		if (mt->reason && *mt->reason)
			strbuf_addf(&sb, ": %s", mt->reason);
		note_add(notes, &sb, NULL);
	}
}

/* A metric that keeps growing from run to run (docs/reports.md); `other` is
 * the other side of a comparison, or NULL. */
static void trend_notes(struct rnd_notes *notes, const char *label, const char *side_name,
			const struct results_side *side, const struct results_side *other)
{
	static const enum metric watched[] = { METRIC_LATENCY, METRIC_PEAK_RSS };
	size_t i;

	if (!side->present)
		return;
	for (i = 0; i < ARRAY_SIZE(watched); i++) {
		const struct results_metric *mt = &side->metrics[watched[i]];
		const struct results_trend *t = &mt->trend;
		struct strbuf sb;
		if (!t->present || !t->growing)
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "%s%s: %s keeps growing from run to run: +", label, side_name,
			    metric_info(mt->metric)->name);
		fmt_metric(&sb, mt->metric, t->slope, NULL);
		strbuf_addf(&sb, " per run (%.0f%% interval ", 100.0 * RESULTS_TREND_CONFIDENCE);
		fmt_metric(&sb, mt->metric, t->slope_low, NULL);
		strbuf_adds(&sb, " to ");
		fmt_metric(&sb, mt->metric, t->slope_high, NULL);
		strbuf_adds(&sb, ")");
		if (mt->has_stats && mt->stats.median > 0)
			strbuf_addf(&sb, ", %+.0f%% of the median over %llu runs",
				    100.0 * t->slope * (double)(mt->n_samples - 1) /
					    mt->stats.median,
				    (unsigned long long)mt->n_samples);
		if (other && other->present && other->metrics[watched[i]].trend.present) {
			strbuf_adds(&sb, ", beyond the other side's ");
			fmt_metric(&sb, mt->metric, other->metrics[watched[i]].trend.slope, NULL);
			strbuf_adds(&sb,
				    " per run (drift of the machine moves both sides of the "
				    "pairs alike and cancels, so this growth is the command's)");
		}
		strbuf_adds(&sb,
			    "; something grows between runs (a cache, a file, a log): reset it "
			    "in prepare_each, or the runs measure different work");
		note_add(notes, &sb, NULL);
	}
}

/* A side that warmed up on the large-case plan (docs/design.md, "Measuring a
 * run"): its runs were measured after another warmup than the rest. */
static void plan_note(struct rnd_notes *notes, const char *label, const char *side_name,
		      const struct results_side *side)
{
	struct strbuf sb;

	if (!side->present || side->plan != RESULTS_PLAN_LARGE)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb,
		    "%s%s: warmed up on the large-case plan: its warmup runs each took 50 ms "
		    "or more without settling, so it warmed up one run at a time until the "
		    "median of the last 5 was within 5%% of the 5 before (at most 30 s)",
		    label, side_name);
	note_add(notes, &sb, NULL);
}

/* How many pairs would have decided an inconclusive comparison at the noise
 * observed (docs/comparison.md, "What a comparison could see"). */
static void to_decide(struct strbuf *sb, const struct comparison *k)
{
	if (k->pairs_to_decide)
		strbuf_addf(sb, "; at the noise observed, about %u pairs would decide it",
			    k->pairs_to_decide);
	else if (k->pairs_to_decide_beyond)
		strbuf_addf(sb,
			    "; at the noise observed, more than %u pairs would be needed: the "
			    "change is about the size of the tolerance",
			    (unsigned)COMPARISON_PAIRS_TO_DECIDE_MAX);
}

/* A verdict that stood on a noisy runner (docs/comparison.md, "Noise gate"). */
static void noisy_note(struct strbuf *sb, const char *label, const struct comparison *k)
{
	strbuf_addf(sb,
		    "%s: %s %s on a noisy runner (robust CV above max_cv): it stands because "
		    "each half of the pairs, on its own, points the same way",
		    label, metric_info(k->metric)->name, verdict_name(k->verdict));
}

static void comparison_notes(struct rnd_notes *notes, const char *label,
			     const struct results_command *c)
{
	size_t i;

	for (i = 0; i < c->n_comparisons; i++) {
		const struct comparison *k = &c->comparisons[i];
		const char *name = metric_info(k->metric)->name;
		struct strbuf sb;
		strbuf_init(&sb, 0);
		if (k->verdict == VERDICT_INCONCLUSIVE || k->verdict == VERDICT_SKIPPED) {
			strbuf_addf(&sb, "%s: %s %s", label, name, verdict_name(k->verdict));
			if (k->reason[0])
				strbuf_addf(&sb, ": %s", k->reason);
			add_hint(&sb, k->reason, k->runs_fixed);
			to_decide(&sb, k);
			if (k->derived)
				strbuf_adds(&sb, " (derived from latency, not gated)");
			else if (!k->gate)
				strbuf_adds(&sb, " (not gated)");
		} else if (k->verdict == VERDICT_REGRESSION && k->accepted) {
			strbuf_addf(&sb,
				    "%s: %s regression accepted by the pull-request label: "
				    "reported, does not fail the job",
				    label, name);
		} else if (k->verdict == VERDICT_REGRESSION && !k->gate) {
			strbuf_addf(&sb, "%s: %s regression is %s: reported, does not fail the job",
				    label, name,
				    k->derived ? "derived from latency, not gated"
					       : "not gated (gate: false)");
		} else if (k->noisy && !k->derived) {
			noisy_note(&sb, label, k);
		} else {
			strbuf_release(&sb);
			continue;
		}
		note_add(notes, &sb, NULL);
	}
}

static void elf_side(struct strbuf *sb, const char *side, const struct results_metric *m)
{
	strbuf_addf(sb, "%s text ", side);
	fmt_bytes(sb, (double)m->elf_text);
	strbuf_adds(sb, ", data ");
	fmt_bytes(sb, (double)m->elf_data);
	strbuf_adds(sb, ", bss ");
	fmt_bytes(sb, (double)m->elf_bss);
}

/* The ELF sections of a measured artifact, per side, as `size` counts them. */
static void elf_notes(struct rnd_notes *notes, const char *label, const struct results_command *c)
{
	const struct results_metric *h = &c->head.metrics[METRIC_ARTIFACT_SIZE];
	const struct results_metric *b = &c->base.metrics[METRIC_ARTIFACT_SIZE];
	bool head = c->head.present && h->has_elf, base = c->base.present && b->has_elf;
	struct strbuf sb;

	if (!head && !base)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s: artifact sections: ", label);
	if (head)
		elf_side(&sb, "head", h);
	if (base) {
		strbuf_adds(&sb, head ? "; " : "");
		elf_side(&sb, "base", b);
	}
	note_add(notes, &sb, NULL);
}

/* How each count of the process tree was counted, once per metric: the
 * backend, its version, the event. */
static void counter_note(const struct rnd_rows *rows, struct rnd_notes *notes)
{
	size_t i;
	int m;

	for (m = 0; m < METRIC__COUNT; m++)
		for (i = 0; i < rows->n; i++) {
			const struct results_metric *mt = &rows->v[i].cmd->head.metrics[m];
			struct strbuf sb;
			if (!rows->v[i].cmd->head.present || !mt->counter_backend)
				continue;
			strbuf_init(&sb, 0);
			strbuf_addf(&sb,
				    "%s counted by %s %s (event %s), summed over every process "
				    "of a run, in separate runs that are not timed",
				    metric_info((enum metric)m)->name, mt->counter_backend,
				    rnd_str(mt->counter_version), rnd_str(mt->counter_event));
			note_add(notes, &sb, NULL);
			break;
		}
}

static void budget_notes(struct rnd_notes *notes, const char *label,
			 const struct results_command *c)
{
	size_t i;

	for (i = 0; i < c->n_budgets; i++) {
		const struct results_budget *b = &c->budgets[i];
		struct strbuf sb;
		if (b->result.status != BUDGET_SKIPPED && b->result.status != BUDGET_NO_DATA)
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "%s: budget %s ", label, metric_info(b->result.metric)->name);
		rnd_aggregation(&sb, &b->result.aggregation);
		strbuf_addf(&sb, " %s %s", b->text ? b->text : rnd_op(b->result.op),
			    b->result.status == BUDGET_SKIPPED ? "was skipped" : "has no data");
		if (b->result.reason[0])
			strbuf_addf(&sb, ": %s", b->result.reason);
		add_hint(&sb, b->result.reason, false);
		note_add(notes, &sb, NULL);
	}
}

static bool any_at_floor(const struct results *r)
{
	struct rnd_rows rows;
	size_t i;
	bool found = false;

	rnd_rows_collect(r, &rows);
	for (i = 0; i < rows.n && !found; i++) {
		const struct results_command *c = rows.v[i].cmd;
		found = (c->head.present && c->head.metrics[METRIC_PEAK_RSS].samples_at_floor) ||
			(c->base.present && c->base.metrics[METRIC_PEAK_RSS].samples_at_floor);
	}
	rnd_rows_release(&rows);
	return found;
}

/* Why a suite of several benchmarks has no geometric mean; one benchmark
 * has nothing to average, and says nothing. */
static void geomean_absent(const struct results_suite *su, struct rnd_notes *notes)
{
	struct strbuf sb;

	if (su->n_benchmarks < 2 || !su->geometric_mean_unavailable)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s: no geometric mean over the benchmarks: %s.", rnd_str(su->name),
		    su->geometric_mean_unavailable);
	note_add(notes, &sb, NULL);
}

/* "Geometric mean over 3 benchmarks, head/base: fast 0.91×, slow 1.20×." */
static void geomean_notes(const struct results *r, struct rnd_notes *notes)
{
	struct strbuf sb;
	size_t s, i;

	strbuf_init(&sb, 0);
	for (s = 0; s < r->n_suites; s++) {
		const struct results_suite *su = &r->suites[s];
		const char *ref = su->geometric_mean_reference ? su->geometric_mean_reference : "";
		if (!su->has_geometric_mean || !su->n_geometric_mean_values ||
		    su->geometric_mean_cases < 2) {
			geomean_absent(su, notes);
			continue;
		}
		strbuf_addf(&sb,
			    "%s: geometric mean over %llu benchmark%s, %s: ", rnd_str(su->name),
			    (unsigned long long)su->geometric_mean_cases,
			    su->geometric_mean_cases == 1 ? "" : "s",
			    !strcmp(ref, "base")       ? "head/base latency"
			    : !strcmp(ref, "baseline") ? "relative to the baseline"
						       : "relative to the fastest");
		for (i = 0; i < su->n_geometric_mean_values; i++)
			strbuf_addf(&sb, "%s%s %.2f×", i ? ", " : "",
				    rnd_str(su->geometric_mean_values[i].command),
				    su->geometric_mean_values[i].ratio);
		strbuf_addch(&sb, '.');
		note_add(notes, &sb, NULL);
	}
	strbuf_release(&sb);
}

/* The runner shares one file between the sides when their builds match (a
 * sweep records it per commit in the JSON; a note per commit would drown the
 * others). */
/* A suite whose file the base revision does not have (docs/revisions.md). */
static void new_suite_note(struct rnd_notes *notes, const struct results_suite *su)
{
	struct strbuf sb;

	if (!su->new_in_head)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb,
		    "%s: new suite: measured on head only, nothing compared (the base revision "
		    "has no %s); --suite-from head measures the base with this suite too.",
		    rnd_str(su->name), su->file ? su->file : "suite file");
	note_add(notes, &sb, NULL);
}

static void not_compared_notes(struct rnd_notes *notes, const struct results_suite *su)
{
	struct strbuf sb;
	size_t i;

	for (i = 0; i < su->n_not_compared; i++) {
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "%s: not compared: %s.", rnd_str(su->not_compared[i].benchmark),
			    rnd_str(su->not_compared[i].reason));
		note_add(notes, &sb, NULL);
	}
}

/* "b › gb: harness benchmarks selected by BM_S*: passed on as
 * --benchmark_filter=^(BM_S.*)$", once per harness command with select:
 * (its rows stand together). */
static void selection_notes(const struct rnd_rows *rows, struct rnd_notes *notes)
{
	size_t i, k;

	for (i = 0; i < rows->n; i++) {
		const struct results_harness *h = &rows->v[i].cmd->harness;
		const struct results_harness *prev = i ? &rows->v[i - 1].cmd->harness : NULL;
		struct strbuf sb;
		if ((!h->n_select && !h->filter) ||
		    (prev && prev->command && rows->v[i - 1].bench == rows->v[i].bench &&
		     !strcmp(prev->command, h->command)))
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "%s › %s: harness benchmarks selected by ",
			    rnd_str(rows->v[i].bench->name), rnd_str(h->command));
		for (k = 0; k < h->n_select; k++)
			strbuf_addf(&sb, "%s%s", k ? ", " : "", h->select[k]);
		if (h->filter)
			strbuf_addf(&sb, "%s--filter %s", h->n_select ? " and " : "", h->filter);
		strbuf_adds(&sb, h->n_args ? ": passed on as "
					   : ": not passed on (the harness "
					     "cannot select)");
		for (k = 0; k < h->n_args; k++)
			strbuf_addf(&sb, "%s%s", k ? " " : "", h->args[k]);
		if (h->filtered_after)
			strbuf_adds(&sb, h->n_args ? ", and filtered again after each run"
						   : ", filtered after each run");
		strbuf_addch(&sb, '.');
		note_add(notes, &sb, NULL);
	}
}

/* A harness benchmark only one side reported: the tables that list
 * comparisons do not show it, the note does. */
static void one_side_notes(const struct rnd_rows *rows, struct rnd_notes *notes)
{
	struct strbuf sb;
	size_t i;

	for (i = 0; i < rows->n; i++) {
		enum result_state s = rows->v[i].cmd->result;
		if (s != RESULT_NEW && s != RESULT_REMOVED)
			continue;
		strbuf_init(&sb, 0);
		rnd_label(&sb, &rows->v[i]);
		strbuf_adds(&sb, s == RESULT_NEW
					 ? ": new: only head's harness reports it; measured "
					   "on head, not compared."
					 : ": removed: only base's harness reports it; "
					   "measured on base, not compared.");
		note_add(notes, &sb, NULL);
	}
}

static void artifact_notes(const struct results *r, struct rnd_notes *notes)
{
	size_t s;

	for (s = 0; s < r->n_suites && r->mode == RESULTS_MODE_COMPARE; s++) {
		struct strbuf sb;
		if (!r->suites[s].shared_artifact)
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(
			&sb,
			"%s: base and head built byte-identical artifacts, and both sides ran "
			"that one file: a difference measured here does not come from the build.",
			rnd_str(r->suites[s].name));
		note_add(notes, &sb, NULL);
	}
}

static void machine_notes(const struct results *r, struct rnd_notes *notes)
{
	struct strbuf sb;
	bool cpu = rnd_group_measured(r, GROUP_CPU), mem = rnd_metric_measured(r, METRIC_PEAK_RSS);

	strbuf_init(&sb, 0);
	if (any_at_floor(r)) {
		strbuf_adds(&sb,
			    "≤ marks a peak RSS at or below the measurement floor (the peak RSS "
			    "of the process that started the command): the real peak is at most "
			    "that; measure a larger input to see it.");
		note_add(notes, &sb, NULL);
	}
	if (cpu && mem)
		strbuf_adds(&sb, "CPU time covers the command and its waited-for descendants; "
				 "peak RSS is the largest single process.");
	else if (cpu)
		strbuf_adds(&sb, "CPU time covers the command and its waited-for descendants.");
	else if (mem)
		strbuf_adds(&sb, "Peak RSS is the largest single process of the command's tree.");
	if (sb.len)
		note_add(notes, &sb, NULL);
	if (r->noise.noisy) {
		strbuf_adds(&sb, "The machine was noisy");
		if (r->noise.reason && *r->noise.reason)
			strbuf_addf(&sb, " (%s)", r->noise.reason);
		strbuf_adds(&sb, ": comparisons need more runs to decide, and budgets may fail "
				 "from load alone.");
		note_add(notes, &sb, NULL);
	}
	if (r->summary.interrupted) {
		strbuf_adds(&sb, "The run was interrupted: these results are partial.");
		never_started_list(r, &sb);
		note_add(notes, &sb, NULL);
	}
	strbuf_release(&sb);
}

/* "work: measured as duets: ..." for each benchmark whose pairs ran at
 * once: its absolute figures (and so its budgets) are those beside a twin. */
static void schedule_notes(struct rnd_notes *notes, const struct results_suite *su)
{
	size_t b;

	for (b = 0; b < su->n_benchmarks; b++) {
		struct strbuf sb;
		if (su->benchmarks[b].schedule == SCHEDULE_INTERLEAVED)
			continue;
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "%s: %s.", rnd_str(su->benchmarks[b].name), RND_DUET_WORDS);
		note_add(notes, &sb, NULL);
	}
}

void rnd_notes_collect(const struct results *r, struct rnd_notes *notes)
{
	struct rnd_rows rows;
	struct strbuf label;
	size_t s, b, i;

	memset(notes, 0, sizeof(*notes));
	strbuf_init(&label, 0);
	for (s = 0; s < r->n_suites; s++) {
		const struct results_suite *su = &r->suites[s];
		new_suite_note(notes, su);
		not_compared_notes(notes, su);
		schedule_notes(notes, su);
		error_note(notes, rnd_str(su->name), &su->error);
		for (b = 0; b < su->n_benchmarks; b++)
			if (!never_started(&su->benchmarks[b])) /* listed once, below */
				error_note(notes, rnd_str(su->benchmarks[b].name),
					   &su->benchmarks[b].error);
	}
	rnd_rows_collect(r, &rows);
	for (i = 0; i < rows.n; i++) {
		const struct results_command *c = rows.v[i].cmd;
		bool cmp = r->mode == RESULTS_MODE_COMPARE;
		strbuf_reset(&label);
		rnd_label(&label, &rows.v[i]);
		if (c->head.error.present) {
			struct strbuf where;
			strbuf_init(&where, 0);
			strbuf_addf(&where, "%s%s", label.buf, cmp ? " (head)" : "");
			error_note(notes, where.buf, &c->head.error);
			strbuf_release(&where);
		}
		if (c->base.error.present) {
			struct strbuf where;
			strbuf_init(&where, 0);
			strbuf_addf(&where, "%s (base)", label.buf);
			error_note(notes, where.buf, &c->base.error);
			strbuf_release(&where);
		}
	}
	for (i = 0; i < rows.n; i++) {
		const struct results_command *c = rows.v[i].cmd;
		bool cmp = r->mode == RESULTS_MODE_COMPARE;
		strbuf_reset(&label);
		rnd_label(&label, &rows.v[i]);
		metric_notes(notes, label.buf, cmp ? " (head)" : "", &c->head);
		metric_notes(notes, label.buf, " (base)", &c->base);
		trend_notes(notes, label.buf, cmp ? " (head)" : "", &c->head, &c->base);
		trend_notes(notes, label.buf, " (base)", &c->base, &c->head);
		plan_note(notes, label.buf, cmp ? " (head)" : "", &c->head);
		plan_note(notes, label.buf, " (base)", &c->base);
		comparison_notes(notes, label.buf, c);
		budget_notes(notes, label.buf, c);
		elf_notes(notes, label.buf, c);
	}
	counter_note(&rows, notes);
	selection_notes(&rows, notes);
	one_side_notes(&rows, notes);
	rnd_rows_release(&rows);
	strbuf_release(&label);
	geomean_notes(r, notes);
	artifact_notes(r, notes);
	machine_notes(r, notes);
}
