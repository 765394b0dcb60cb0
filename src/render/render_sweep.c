/*
 * A sweep document (`himorime sweep -o`, `merge`) rendered again by
 * `himorime report`: a sweep is commits, not benchmarks, so every format but
 * json and samples-csv shows its trends as `history` does (docs/sweeps.md):
 * per benchmark, command and metric, each commit's id, subject, value, ratio
 * to the reference and verdict, in the order the sweep walked them.
 */
#include "render/formats.h"

#include "common/alloc.h"
#include "history/sweep.h"
#include "render/history.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* The metrics a sweep judges against its reference. */
static const enum metric swept[] = { METRIC_LATENCY, METRIC_CPU_TOTAL, METRIC_PEAK_RSS };

/* Moves the series of `from` to the end of `to`. */
static void take(struct sweep_series_list *to, struct sweep_series_list *from)
{
	size_t i;

	for (i = 0; i < from->count; i++) {
		to->items = xgrow(to->items, &to->alloc, to->count + 1, sizeof(*to->items));
		to->items[to->count++] = from->items[i];
	}
	free(from->items);
	memset(from, 0, sizeof(*from));
}

/* Every series of the document, each in the order of the sweep's walk (the
 * commits' index), not of their commit times. */
static int all_series(const struct results *r, struct sweep_series_list *out, struct err *err)
{
	const char **sha = xcalloc(r->n_suites + 1, sizeof(*sha));
	size_t *rank = xcalloc(r->n_suites + 1, sizeof(*rank));
	struct sweep_order order = { .sha = sha, .rank = rank, .n = r->n_suites };
	const struct results *docs[1] = { r };
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < r->n_suites; i++) {
		sha[i] = r->suites[i].commit.sha;
		rank[i] = (size_t)r->suites[i].commit.index;
	}
	for (i = 0; i < ARRAY_SIZE(swept) && rc == 0; i++) {
		struct sweep_series_list one;
		rc = sweep_series_build(docs, 1, swept[i], &order, &one, err);
		if (rc == 0)
			take(out, &one);
	}
	if (rc < 0)
		sweep_series_release(out);
	free(rank);
	free(sha);
	return rc;
}

static size_t commits_of(const struct results *r)
{
	size_t i, j, n = 0;

	for (i = 0; i < r->n_suites; i++) {
		const char *sha = r->suites[i].commit.sha;
		for (j = 0; j < i && sha; j++)
			if (r->suites[j].commit.sha && !strcmp(r->suites[j].commit.sha, sha))
				break;
		n += sha && j == i;
	}
	return n;
}

static void table_header(const struct results *r, struct strbuf *out)
{
	strbuf_addf(out, "himorime %s · sweep %s against %.12s · %zu commit%s\n\n",
		    r->himorime_version ? r->himorime_version : "?",
		    r->sweep.range ? r->sweep.range : "?",
		    r->sweep.reference ? r->sweep.reference : "?", commits_of(r),
		    commits_of(r) == 1 ? "" : "s");
}

bool rnd_sweep_handles(const struct results *r, enum render_format f)
{
	return r->mode == RESULTS_MODE_SWEEP && f != RENDER_JSON && f != RENDER_SAMPLES_CSV;
}

int rnd_sweep(const struct results *r, enum render_format f, const struct render_options *o,
	      struct strbuf *out, struct err *err)
{
	struct sweep_series_list l;
	int rc;

	if (all_series(r, &l, err) < 0)
		return err->code;
	if (f == RENDER_TABLE)
		table_header(r, out);
	rc = history_render(&l, f, f == RENDER_TABLE && o->color, out, err);
	if (rc == 0 && f == RENDER_TABLE)
		strbuf_addf(out, "\n%zu commit%s · seed %llu · exit %d\n", commits_of(r),
			    commits_of(r) == 1 ? "" : "s", (unsigned long long)r->seed,
			    r->summary.exit_code);
	sweep_series_release(&l);
	return rc;
}
