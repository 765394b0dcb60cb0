/*
 * `himorime calibrate [--against REV] [flags] [PATH...]`: the comparison
 * procedure on head against itself (an A/A comparison): what the machine's
 * noise does to the verdicts, and the smallest change the settings can
 * detect within the pair cap.
 */
#include "cli/cli.h"
#include "cli/revisions.h"
#include "cli/session.h"

#include "common/alloc.h"
#include "judge/judge.h"
#include "render/format.h"
#include "render/table.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

/* What an A/A comparison says about this machine: per command and metric,
 * each side's robust CV, the interval the looks reached, the verdict (any
 * but pass is noise), and the smallest slowdown the settings would call a
 * regression at the cap. */
static int calibration_summary(struct session *s)
{
	const char *cols[] = { "BENCHMARK", "COMMAND",	"METRIC",  ">NOISE (BASE / HEAD)",
			       ">PAIRS",    "INTERVAL", "VERDICT", ">DETECTABLE AT CAP" };
	const struct results *doc = s->doc;
	struct table t;
	struct strbuf out;
	size_t i, j, k, m;

	table_init(&t, ARRAY_SIZE(cols), cols);
	for (i = 0; i < doc->n_suites; i++)
		for (j = 0; j < doc->suites[i].n_benchmarks; j++) {
			const struct results_benchmark *b = &doc->suites[i].benchmarks[j];
			const struct benchmark *sb = NULL;
			for (k = 0; k < s->suites.count && !sb; k++)
				for (m = 0; m < s->suites.v[k]->benchmark_count; m++)
					if (!strcmp(s->suites.v[k]->benchmarks[m].name, b->name))
						sb = &s->suites.v[k]->benchmarks[m];
			for (k = 0; k < b->n_commands; k++) {
				const struct results_command *c = &b->commands[k];
				for (m = 0; m < c->n_comparisons; m++) {
					const struct comparison *cmp = &c->comparisons[m];
					const struct results_metric *hb =
						&c->base.metrics[cmp->metric];
					const struct results_metric *hh =
						&c->head.metrics[cmp->metric];
					unsigned cap = sb && sb->max_runs_set
							       ? sb->max_runs
							       : SUITE_COMPARE_MAX_PAIRS;
					struct strbuf noise, iv, det;
					double pct;
					if (cmp->derived)
						continue;
					strbuf_init(&noise, 0);
					strbuf_init(&iv, 0);
					strbuf_init(&det, 0);
					if (hb->has_stats && hh->has_stats)
						strbuf_addf(&noise, "%.1f%% / %.1f%%",
							    hb->stats.robust_cv * 100,
							    hh->stats.robust_cv * 100);
					if (cmp->has_estimate) {
						fmt_change(&iv, cmp->ci_low_percent, false);
						strbuf_adds(&iv, " … ");
						fmt_change(&iv, cmp->ci_high_percent, false);
					}
					if (judge_detectable_change(cmp, cap, &pct))
						strbuf_addf(&det, "+%.1f%% at %u pairs", pct, cap);
					table_add_rowf(&t, "%s\t%s\t%s\t%s\t%u\t%s\t%s\t%s",
						       b->name, c->name,
						       metric_info(cmp->metric)->name, noise.buf,
						       cmp->pairs, iv.buf,
						       verdict_name(cmp->verdict), det.buf);
					strbuf_release(&noise);
					strbuf_release(&iv);
					strbuf_release(&det);
				}
			}
		}
	strbuf_init(&out, 0);
	strbuf_adds(&out, "\nCalibration: the same revision on both sides, so every verdict "
			  "but pass is noise.");
	for (k = 0; k < s->suites.count && !s->suites.v[k]->has_build; k++)
		;
	if (k < s->suites.count)
		strbuf_adds(&out, " The two builds stay two files, as in a real change.");
	strbuf_addch(&out, '\n');
	table_render_text(&t, &out);
	strbuf_adds(&out, "DETECTABLE AT CAP: the smallest slowdown these settings would call a "
			  "regression within the pair cap (the tolerance plus the interval's "
			  "expected half-width there). Raise max_runs or widen the tolerance to "
			  "change it.\n");
	/* Beside a machine-readable report on standard output, the summary goes
	 * to standard error so that the report stays parseable. */
	fputs(out.buf, !s->out.output && strcmp(s->out.format, "table") ? stderr : stdout);
	strbuf_release(&out);
	table_release(&t);
	return EXIT_OK;
}

int cmd_calibrate(int argc, char **argv)
{
	const char *against = NULL;
	const struct opt extra[] = {
		{ "against", 0, OPT_STRING, &against, "REV",
		  "calibrate on this commit instead of the working tree" },
	};
	struct revisions_request req = { NULL, NULL, false, "calibrate", NULL };
	struct session s;
	int code;

	code = session_start(&s, "calibrate", RESULTS_MODE_COMPARE, extra, ARRAY_SIZE(extra), argc,
			     argv);
	s.epilogue = calibration_summary;
	if (code == EXIT_OK) {
		/* head against itself: the commit (or the working tree) on both sides,
		 * built twice and kept as two files, as a real change has them */
		s.ro.separate_artifacts = true;
		req.head = against;
		req.against = against;
		code = revisions_compare(&s, &req);
	}
	session_release(&s);
	return code;
}
