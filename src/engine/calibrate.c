/*
 * Both schedules in one calibration (docs/comparison.md, "Choosing a
 * schedule"): when `calibrate` is given no --schedule (the plan's
 * both_schedules), each compared command's turn in a round is two A/A
 * pairs, one under the benchmark's schedule, whose samples are the
 * document's and whose looks stop the rounds as in any comparison, and one
 * under the other schedule (the shadow), whose samples are kept here. Which
 * of the two runs first alternates from turn to turn (AB, BA, AB...), so a
 * machine that drifts (a neighbour arriving, a CPU's clock changing) weighs
 * on both schedules alike; running one schedule's pairs after the other's
 * would give the drift to one of them. At the end each schedule's interval
 * is formed at the same look, on the same number of pairs, and its
 * half-width becomes the calibration row's: the narrower interval is the
 * schedule that decides faster on this machine.
 *
 * The shadow is never warmed up on its own (the warmup's pairs, under the
 * benchmark's schedule, warm the command for both), never counted, and
 * never runs a harness command or a `terminal: true` benchmark as a duet,
 * which duet cannot run (docs/configuration.md, "Schedule").
 */
#include "engine/internal.h"

#include "common/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* The samples of the schedule measured beside the benchmark's. */
struct calib_shadow {
	enum schedule schedule;
	double *v[2][METRIC__COUNT];
	size_t n[2][METRIC__COUNT], alloc[2][METRIC__COUNT];
	double *floors[2];
	size_t n_floors[2], alloc_floors[2];
	unsigned turns; /* turns so far: which schedule goes first in the next */
};

/* Why a benchmark's commands are measured under one schedule only, though
 * the calibration measures both; NULL when they get both. */
static const char *benchmark_note(const struct bench_run *br)
{
	if (br->b->terminal)
		return "terminal: true: duet cannot run it";
	return NULL;
}

void calib_unit_begin(struct bench_run *br, struct unit *u)
{
	const struct runner *r = br->r;
	enum schedule other =
		br->pb->schedule == SCHEDULE_DUET ? SCHEDULE_INTERLEAVED : SCHEDULE_DUET;

	if (!r->plan->both_schedules || !br->compare || !u->compared || inprocess_is(u) ||
	    benchmark_note(br))
		return;
	if (other == SCHEDULE_DUET && !r->have_cpus) /* the calibration says why */
		return;
	u->shadow = xcalloc(1, sizeof(*u->shadow));
	u->shadow->schedule = other;
}

bool calib_turn_shadow_first(struct unit *u)
{
	return (u->shadow->turns++ & 1) != 0;
}

enum schedule calib_shadow_schedule(const struct unit *u)
{
	return u->shadow->schedule;
}

static void push(double **v, size_t *n, size_t *alloc, double x)
{
	*v = xgrow(*v, alloc, *n + 1, sizeof(**v));
	(*v)[(*n)++] = x;
}

void calib_record(struct unit *u, int side, const struct run_result *res)
{
	struct calib_shadow *s = u->shadow;
	const double value[METRIC__COUNT] = {
		[METRIC_LATENCY] = (double)res->wall_ns,
		[METRIC_CPU_TOTAL] = (double)res->user_ns + (double)res->system_ns,
		[METRIC_PEAK_RSS] = (double)res->peak_rss_bytes,
	};
	int m;

	for (m = 0; m < METRIC__COUNT; m++)
		if (u->judged[m])
			push(&s->v[side][m], &s->n[side][m], &s->alloc[side][m], value[m]);
	if (u->judged[METRIC_PEAK_RSS])
		push(&s->floors[side], &s->n_floors[side], &s->alloc_floors[side],
		     (double)res->floor_bytes);
}

/* The half-width of an interval on the log scale, as a percentage of the
 * ratio: exp((U - L) / 2) - 1. */
static double half_width_percent(const struct judge_interval *iv)
{
	return expm1((iv->high - iv->low) / 2) * 100;
}

/* The last planned look that `pairs` pairs reach and that forms an
 * interval; false when there is none. */
static bool common_look(const struct judge_plan *p, size_t pairs, unsigned *look)
{
	unsigned k = p->n_looks;

	while (k--)
		if (p->looks[k] <= pairs && p->k[k] > 0) {
			*look = k;
			return true;
		}
	return false;
}

static bool usable(const struct judge_interval *iv)
{
	return iv->pairs && iv->has_interval && !iv->at_floor && !iv->zero_base;
}

/* Metric m of u: both schedules' intervals at the same look into row, or
 * the note that says why not. */
static void measure_row(const struct bench_run *br, const struct unit *u, int m,
			struct results_calibration_row *row)
{
	const struct calib_shadow *s = u->shadow;
	struct judge_metric_input in = u->in[m], other = u->in[m];
	struct judge_interval own, beside;
	unsigned look;
	double w[2];

	other.base = s->v[BASE][m];
	other.head = s->v[HEAD][m];
	other.n = s->n[BASE][m] < s->n[HEAD][m] ? s->n[BASE][m] : s->n[HEAD][m];
	other.base_floor = m == METRIC_PEAK_RSS ? s->floors[BASE] : NULL;
	other.head_floor = m == METRIC_PEAK_RSS ? s->floors[HEAD] : NULL;
	if (!common_look(br->looks, in.n < other.n ? in.n : other.n, &look)) {
		results_set_str(&row->schedules_note, "too few pairs for an interval");
		return;
	}
	judge_interval_at(br->looks, &in, look, &own);
	judge_interval_at(br->looks, &other, look, &beside);
	if (!usable(&own) || !usable(&beside)) {
		results_set_str(&row->schedules_note,
				"no interval to compare (a side at its measurement floor, "
				"or base at zero)");
		return;
	}
	w[br->pb->schedule == SCHEDULE_DUET] = half_width_percent(&own);
	w[s->schedule == SCHEDULE_DUET] = half_width_percent(&beside);
	row->schedule_pairs = br->looks->looks[look];
	row->interleaved_half_width_percent = w[0];
	row->duet_half_width_percent = w[1];
}

/* One row per judged metric of a compared unit (a case of a harness
 * command included), with the figures or the note. */
static void unit_rows(struct bench_run *br, struct unit *u, const char *note)
{
	const struct results_command *rc = &br->rb->commands[u->index];
	int m;

	for (m = 0; m < METRIC__COUNT; m++) {
		struct results_calibration_row *row;
		if (!u->judged[m])
			continue;
		row = results_add_calibration_row(br->doc, br->b->name, rc->name, (enum metric)m);
		if (u->shadow && u->failed)
			results_set_str(&row->schedules_note, "it failed: see its error");
		else if (u->shadow)
			measure_row(br, u, m, row);
		else
			results_set_str(&row->schedules_note, note);
	}
}

void calib_finish(struct bench_run *br, struct unit *u)
{
	const char *note = benchmark_note(br);
	size_t k;

	if (!br->r->plan->both_schedules || !br->compare || !u->compared)
		return;
	if (!note && inprocess_is(u))
		note = "a harness command: its pairs stay interleaved";
	/* with no note and no shadow (one CPU), the calibration's own reason,
	 * duet_not_measured, says why for every row */
	for (k = 0; k < u->n_cases; k++)
		if (u->cases[k].compared)
			unit_rows(br, &u->cases[k], note);
	if (!inprocess_is(u))
		unit_rows(br, u, note);
}

void calib_release(struct unit *u)
{
	struct calib_shadow *s = u->shadow;
	int side, m;

	if (!s)
		return;
	for (side = 0; side < 2; side++) {
		for (m = 0; m < METRIC__COUNT; m++)
			free(s->v[side][m]);
		free(s->floors[side]);
	}
	free(s);
	u->shadow = NULL;
}
