/*
 * The count line of the pull-request comment (render_github.c): the
 * commands its problem rows leave out, counted in one line, with why the
 * inconclusive ones were not decided and the smallest change their
 * intervals could have told apart (rnd_detectable_percent):
 *
 *     6 inconclusive: the runner was too noisy to tell ±5%; could see
 *     changes beyond ±9.3% · 1 improved · 20 passed
 *
 * Plain text of our own words and numbers: nothing from the document but
 * counts, so the caller's escaping leaves it as it is.
 */
#include "render/render_internal.h"

#include "common/alloc.h"

#include <string.h>

#include "common/banned.h"

/* Why a gated comparison stayed inconclusive, in a reader's words, found by
 * a part of the judge's reason; "%s" takes the tolerance. The last row
 * takes every other reason. */
struct why {
	const char *reason_part;
	const char *words;
};

static const struct why whys[] = {
	{ .reason_part = "straddles", .words = "the runner was too noisy to tell %s" },
	{ .reason_part = "time budget ran out",
	  .words = "the time budget ran out before %s could be told" },
	{ .reason_part = "noisier than max_cv", .words = "the runs were noisier than max_cv" },
	{ .reason_part = "within the spread", .words = "the counts varied too much to tell %s" },
	{ .reason_part = "counts vary", .words = "the counts varied between runs" },
	{ .reason_part = "noise bound", .words = "the counts changed within their noise bound" },
	{ .reason_part = NULL, .words = "see the notes" },
};

/* A range of percentages, lowest and highest seen; lo < 0 when none. */
struct span {
	double lo, hi;
};

struct undecided {
	size_t n[ARRAY_SIZE(whys)];
	struct span tolerance[ARRAY_SIZE(whys)];
	struct span seen; /* rnd_detectable_percent over every comparison */
};

static void span_add(struct span *s, double v)
{
	if (v < 0)
		return;
	if (s->lo < 0 || v < s->lo)
		s->lo = v;
	if (v > s->hi)
		s->hi = v;
}

/* "±5%", or "±5% to ±10%" when they differ as shown. */
static void span_text(struct strbuf *sb, const struct span *s)
{
	struct strbuf lo, hi;

	strbuf_init(&lo, 0);
	strbuf_init(&hi, 0);
	rnd_percent(&lo, s->lo);
	rnd_percent(&hi, s->hi);
	strbuf_addf(sb, "±%s", lo.buf);
	if (strcmp(lo.buf, hi.buf))
		strbuf_addf(sb, " to ±%s", hi.buf);
	strbuf_release(&lo);
	strbuf_release(&hi);
}

static size_t why_of(const char *reason)
{
	size_t i;

	for (i = 0; whys[i].reason_part; i++)
		if (strstr(reason, whys[i].reason_part))
			return i;
	return i;
}

/* The gated comparisons that left their commands inconclusive. */
static void undecided_collect(const struct rnd_rows *rows, struct undecided *u)
{
	size_t i, j, w;

	memset(u, 0, sizeof(*u));
	u->seen.lo = -1;
	for (w = 0; w < ARRAY_SIZE(whys); w++)
		u->tolerance[w].lo = -1;
	for (i = 0; i < rows->n; i++) {
		const struct results_command *c = rows->v[i].cmd;
		if (c->result != RESULT_INCONCLUSIVE)
			continue;
		for (j = 0; j < c->n_comparisons; j++) {
			const struct comparison *k = &c->comparisons[j];
			if (k->verdict != VERDICT_INCONCLUSIVE || !k->gate || k->derived)
				continue;
			w = why_of(k->reason);
			u->n[w]++;
			span_add(&u->tolerance[w], k->max_fraction * 100.0);
			span_add(&u->seen, rnd_detectable_percent(k));
		}
	}
}

/* ": the runner was too noisy to tell ±5%; could see changes beyond ±9.3%";
 * with several reasons, each with how many metrics it held back. */
static void undecided_text(const struct undecided *u, struct strbuf *sb)
{
	size_t w, kinds = 0, shown = 0;

	for (w = 0; w < ARRAY_SIZE(whys); w++)
		kinds += u->n[w] > 0;
	if (!kinds)
		return;
	strbuf_adds(sb, ": ");
	for (w = 0; w < ARRAY_SIZE(whys); w++) {
		struct strbuf tol;
		if (!u->n[w])
			continue;
		strbuf_init(&tol, 0);
		span_text(&tol, &u->tolerance[w]);
		if (shown++)
			strbuf_adds(sb, ", ");
		if (strstr(whys[w].words, "%s"))
			strbuf_addf(sb, whys[w].words, tol.buf);
		else
			strbuf_adds(sb, whys[w].words);
		if (kinds > 1)
			strbuf_addf(sb, " (%zu metric%s)", u->n[w], u->n[w] == 1 ? "" : "s");
		strbuf_release(&tol);
	}
	if (u->seen.lo >= 0) {
		strbuf_adds(sb, "; could see changes beyond ");
		span_text(sb, &u->seen);
	}
}

bool rnd_rest_line(const struct results *r, const struct rnd_rows *rows, struct strbuf *out)
{
	static const enum result_state rest[] = { RESULT_INCONCLUSIVE, RESULT_IMPROVED,
						  RESULT_PASS,	       RESULT_NEW_SUITE,
						  RESULT_NEW,	       RESULT_REMOVED };
	size_t i, shown = 0;

	for (i = 0; i < ARRAY_SIZE(rest); i++) {
		uint64_t n = r->summary.results[rest[i]];
		if (!n)
			continue;
		if (shown++)
			strbuf_adds(out, " · ");
		rnd_result_count(out, rest[i], n);
		if (rest[i] == RESULT_INCONCLUSIVE) {
			struct undecided u;
			undecided_collect(rows, &u);
			undecided_text(&u, out);
		}
	}
	return shown > 0;
}
