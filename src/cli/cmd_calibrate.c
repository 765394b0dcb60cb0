/*
 * `himorime calibrate [--against REV] [flags] [PATH...]`: the comparison
 * procedure on head against itself (an A/A comparison): what the machine's
 * noise does to the verdicts, and the smallest change the settings can
 * detect within the pair cap.
 */
#include "cli/commands.h"
#include "cli/revisions.h"
#include "cli/session.h"

#include "common/alloc.h"
#include "judge/judge.h"
#include "render/render.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

/* The suite benchmark a result belongs to, for its pair cap. */
static const struct benchmark *suite_benchmark(const struct session *s, const char *name)
{
	size_t k, m;

	for (k = 0; k < s->suites.count; k++)
		for (m = 0; m < s->suites.v[k]->benchmark_count; m++)
			if (!strcmp(s->suites.v[k]->benchmarks[m].name, name))
				return &s->suites.v[k]->benchmarks[m];
	return NULL;
}

static void record_command(struct results *doc, const struct results_benchmark *b,
			   const struct results_command *c, unsigned cap)
{
	size_t m;

	for (m = 0; m < c->n_comparisons; m++) {
		const struct comparison *cmp = &c->comparisons[m];
		struct results_calibration_row *row;
		double pct;
		if (cmp->derived)
			continue;
		row = results_add_calibration_row(doc, b->name, c->name, cmp->metric);
		row->max_pairs = cap;
		row->has_detectable = judge_detectable_change(cmp, cap, &pct);
		row->detectable_percent = row->has_detectable ? pct : 0;
	}
}

/* Records in the document that it is a calibration, with the smallest
 * slowdown each compared metric could show at its pair cap, so that the
 * saved report keeps what the table shows (docs/reports.md). */
static void record_calibration(struct session *s)
{
	struct results *doc = s->doc;
	size_t i, j, k;

	doc->calibration.present = true;
	for (k = 0; k < s->suites.count; k++)
		doc->calibration.separate_builds |= s->suites.v[k]->has_build;
	for (i = 0; i < doc->n_suites; i++)
		for (j = 0; j < doc->suites[i].n_benchmarks; j++) {
			const struct results_benchmark *b = &doc->suites[i].benchmarks[j];
			const struct benchmark *sb = suite_benchmark(s, b->name);
			unsigned cap =
				sb && sb->max_runs_set ? sb->max_runs : SUITE_COMPARE_MAX_PAIRS;
			for (k = 0; k < b->n_commands; k++)
				record_command(doc, b, &b->commands[k], cap);
		}
}

/* The calibration table, unless the report on standard output (or in the
 * file) is a table, which ends with it. Beside a machine-readable report on
 * standard output it goes to standard error, so that the report stays
 * parseable. */
static int calibration_summary(struct session *s)
{
	struct strbuf out;
	bool table = !strcmp(s->out.format, "table");

	if (table && !s->out.output)
		return EXIT_OK;
	strbuf_init(&out, 0);
	render_calibration(s->doc, &out);
	fputs(out.buf, !s->out.output ? stderr : stdout);
	strbuf_release(&out);
	return EXIT_OK;
}

int cmd_calibrate(struct session *s, struct cmd_args *a)
{
	const struct calibrate_flags *f = &a->f.calibrate;
	/* head against itself: the commit (or the working tree) on both sides */
	struct revisions_request req = {
		.against = f->against,
		.head = f->against,
		.base_source = "calibrate",
		.suite_from = REVISIONS_SUITE_OWN,
	};
	int code = revisions_suite_from("calibrate", f->suite_from, &req.suite_from);

	s->epilogue = calibration_summary;
	s->complete = record_calibration;
	/* built twice and kept as two files, as a real change has them */
	s->ro.separate_artifacts = true;
	return code == EXIT_OK ? revisions_compare(s, &req) : code;
}
