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
#include "render/render.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

/* Records in the document that it is a calibration, with the smallest
 * slowdown each compared metric could show at its pair cap, so that the
 * saved report keeps what the table shows (docs/reports.md). */
static void record_calibration(struct session *s)
{
	runner_calibration(s->doc, s->plan);
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
	/* built twice and kept as two files, as a real change has them (the
	 * plan's separate_artifacts) */
	return code == EXIT_OK ? revisions_compare(s, &req) : code;
}
