/*
 * The counted metrics of a unit (see internal.h): counts that do not depend
 * on the machine's load, decided by the counts rule of docs/comparison.md,
 * "Deciding on counts", not by pairs. artifact_size is the bytes of each
 * side's built ${artifact} (and its ELF text, data and bss): exact, so one
 * "run" per side.
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "judge/counts.h"
#include "measure/elf.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* A count that could not be measured: the side's metric error (exit 6). */
static void count_failed(struct results_side *rs, enum metric m, const char *why)
{
	struct results_metric *rm = &rs->metrics[m];

	rm->status = STATUS_FAILED;
	results_set_str(&rm->reason, why);
	if (!rs->error.present)
		results_set_error(&rs->error, RESULTS_ERROR_METRIC_COLLECTION_FAILED, why, NULL, 0);
	rs->error.has_metric = true;
	rs->error.metric = m;
}

static void artifact_size(const struct side *s, struct results_side *rs)
{
	struct results_metric *rm = &rs->metrics[METRIC_ARTIFACT_SIZE];
	struct elf_sizes es;
	struct err err = ERR_INIT;

	if (elf_sizes_read(s->artifact, &es, &err) < 0) {
		count_failed(rs, METRIC_ARTIFACT_SIZE, err.msg);
		return;
	}
	results_add_sample(rs, METRIC_ARTIFACT_SIZE, (double)es.file_bytes);
	if (es.is_elf) {
		rm->has_elf = true;
		rm->elf_text = es.text;
		rm->elf_data = es.data;
		rm->elf_bss = es.bss;
	}
}

void counted_measure(struct bench_run *br, struct unit *u)
{
	struct results_command *rc = &br->rb->commands[u->index];
	int side;

	if (!benchmark_measures(br->b, METRIC_ARTIFACT_SIZE))
		return;
	for (side = HEAD; side <= BASE; side++) {
		const struct side *s = br->sides[side];
		if (!u->sides[side] || !s || s->failed || !s->artifact)
			continue;
		artifact_size(s, side == HEAD ? &rc->head : &rc->base);
	}
}

/* The runs of one side's count as integers, for the counts rule. */
static uint64_t *runs_of(const struct results_metric *rm)
{
	uint64_t *v = xcalloc(rm->n_samples ? rm->n_samples : 1, sizeof(*v));
	size_t i;

	for (i = 0; i < rm->n_samples; i++)
		v[i] = (uint64_t)rm->samples[i];
	return v;
}

void counted_compare(const struct bench_run *br, struct results_command *rc)
{
	static const enum metric counted[] = { METRIC_ARTIFACT_SIZE };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(counted); k++) {
		enum metric m = counted[k];
		const struct results_metric *h = &rc->head.metrics[m], *b = &rc->base.metrics[m];
		const struct tolerance *t = regression_tolerance(&br->b->regression, m);
		struct counts_input in = COUNTS_INPUT_INIT;
		struct comparison cmp;
		uint64_t *hv, *bv;
		unsigned more;
		if (!benchmark_measures(br->b, m) || h->status != STATUS_MEASURED ||
		    b->status != STATUS_MEASURED || !h->n_samples || !b->n_samples)
			continue;
		hv = runs_of(h);
		bv = runs_of(b);
		in.head = hv;
		in.n_head = h->n_samples;
		in.base = bv;
		in.n_base = b->n_samples;
		in.max_percent = t->max_percent;
		/* A size is exact: its one "run" is all there is. */
		in.runs_cap = m == METRIC_ARTIFACT_SIZE ? 1 : COUNTS_DEFAULT_RUNS_CAP;
		counts_compare(m, &in, t->gate, &cmp, &more);
		results_add_comparison(rc, &cmp);
		free(hv);
		free(bv);
	}
}
