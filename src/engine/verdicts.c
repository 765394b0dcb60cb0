/*
 * What the commands report from a finished document, as the judge decides
 * it (judge.h, "What the commands report"): the regressions a pull request's
 * label accepts, the worst result and the figures of a calibration (a bisect
 * step's outcome is bisect.c's). The commands only print what these leave in the
 * document or hand back.
 */
#include "engine/runner.h"

#include "common/alloc.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* A command's comparisons with the regressions accepted, and its result
 * judged again. */
static void accept_command(struct results_command *c)
{
	struct budget_result *b = xcalloc(c->n_budgets + 1, sizeof(*b));
	size_t m;

	for (m = 0; m < c->n_budgets; m++)
		b[m] = c->budgets[m].result;
	c->result = judge_accept(c->comparisons, c->n_comparisons, b, c->n_budgets, c->result);
	free(b);
}

static void accept_benchmark(struct results_benchmark *b)
{
	enum result_state *commands = xcalloc(b->n_commands + 1, sizeof(*commands));
	size_t k;

	for (k = 0; k < b->n_commands; k++) {
		accept_command(&b->commands[k]);
		commands[k] = b->commands[k].result;
	}
	b->result = judge_accepted_parent(b->result, judge_worst(commands, b->n_commands));
	free(commands);
}

void runner_accept_regressions(struct results *doc)
{
	size_t i, j;

	for (i = 0; i < doc->n_suites; i++) {
		struct results_suite *su = &doc->suites[i];
		enum result_state *benchmarks = xcalloc(su->n_benchmarks + 1, sizeof(*benchmarks));
		for (j = 0; j < su->n_benchmarks; j++) {
			accept_benchmark(&su->benchmarks[j]);
			benchmarks[j] = su->benchmarks[j].result;
		}
		su->result = judge_accepted_parent(su->result,
						   judge_worst(benchmarks, su->n_benchmarks));
		free(benchmarks);
	}
}

enum result_state runner_worst_result(const struct results *doc)
{
	enum result_state *suites = xcalloc(doc->n_suites + 1, sizeof(*suites));
	enum result_state worst;
	size_t i;

	for (i = 0; i < doc->n_suites; i++)
		suites[i] = doc->suites[i].result;
	worst = judge_worst(suites, doc->n_suites);
	free(suites);
	return worst;
}

/* ---- calibrate ------------------------------------------------------------ */

/* The row the engine made for a command's metric while measuring both
 * schedules (calibrate.c), or NULL. */
static struct results_calibration_row *made_row(struct results_calibration *made, const char *bench,
						const char *cmd, enum metric m)
{
	size_t i;

	for (i = 0; i < made->n_rows; i++) {
		struct results_calibration_row *row = &made->rows[i];
		if (row->metric == m && row->benchmark && row->command &&
		    !strcmp(row->benchmark, bench) && !strcmp(row->command, cmd))
			return row;
	}
	return NULL;
}

static void calibrate_command(struct results *doc, struct results_calibration *made,
			      const struct results_benchmark *b, const struct results_command *c,
			      unsigned cap)
{
	size_t m;

	for (m = 0; m < c->n_comparisons; m++) {
		const struct comparison *cmp = &c->comparisons[m];
		struct results_calibration_row *row, *was;
		double pct;
		if (cmp->derived)
			continue;
		row = results_add_calibration_row(doc, b->name, c->name, cmp->metric);
		row->max_pairs = cap;
		row->has_detectable = judge_detectable_change(cmp, cap, &pct);
		row->detectable_percent = row->has_detectable ? pct : 0;
		was = made_row(made, b->name ? b->name : "", c->name ? c->name : "", cmp->metric);
		if (!was)
			continue;
		row->schedule_pairs = was->schedule_pairs;
		row->interleaved_half_width_percent = was->interleaved_half_width_percent;
		row->duet_half_width_percent = was->duet_half_width_percent;
		row->schedules_note = was->schedules_note;
		was->schedules_note = NULL;
	}
}

/* The schedule whose intervals were narrower here: duet when the geometric
 * mean of the rows' duet ÷ interleaved half-widths is below 1, interleaved
 * otherwise (a tie keeps the default); none without a row measured under
 * both. */
static void recommend(struct results_calibration *cal)
{
	size_t n;
	double ratio = results_calibration_width_ratio(cal, &n);

	if (n)
		results_set_str(&cal->recommended_schedule,
				schedule_name(ratio < 1 ? SCHEDULE_DUET : SCHEDULE_INTERLEAVED));
}

static void free_made(struct results_calibration *made)
{
	size_t i;

	for (i = 0; i < made->n_rows; i++) {
		free(made->rows[i].benchmark);
		free(made->rows[i].command);
		free(made->rows[i].schedules_note);
	}
	free(made->rows);
}

/* The benchmark of the plan named `name`, in the first suite that has one. */
static const struct plan_benchmark *planned(const struct plan *p, const char *name)
{
	const struct plan_benchmark *pb = NULL;
	size_t k;

	for (k = 0; k < p->n_suites && !pb; k++)
		pb = plan_benchmark_named(&p->suites[k], name);
	return pb;
}

void runner_calibration(struct results *doc, const struct plan *p)
{
	/* the rows the engine made while measuring, in its order: the
	 * document's follow its benchmarks and commands */
	struct results_calibration made = doc->calibration;
	size_t i, j, k;

	doc->calibration.rows = NULL;
	doc->calibration.n_rows = doc->calibration.alloc_rows = 0;
	doc->calibration.present = true;
	doc->calibration.both_schedules = p->both_schedules;
	for (k = 0; k < p->n_suites; k++)
		doc->calibration.separate_builds |= p->suites[k].suite->has_build;
	for (i = 0; i < doc->n_suites; i++)
		for (j = 0; j < doc->suites[i].n_benchmarks; j++) {
			const struct results_benchmark *b = &doc->suites[i].benchmarks[j];
			const struct plan_benchmark *pb = planned(p, b->name);
			unsigned cap = pb ? pb->max_pairs : SUITE_COMPARE_MAX_PAIRS;
			for (k = 0; k < b->n_commands; k++)
				calibrate_command(doc, &made, b, &b->commands[k], cap);
		}
	free_made(&made);
	recommend(&doc->calibration);
}
