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

int cmd_calibrate(int argc, char **argv)
{
	const char *against = NULL, *suite_from = NULL;
	const struct opt extra[] = {
		{ "against", 0, OPT_STRING, &against, "REV",
		  "calibrate on this commit instead of the working tree" },
		{ "suite-from", 0, OPT_STRING, &suite_from, "head|base",
		  "measure with this revision's suite file (head: the working tree's)" },
	};
	struct revisions_request req = {
		NULL, NULL, false, "calibrate", REVISIONS_SUITE_OWN, NULL
	};
	struct session s;
	int code;

	code = session_start(&s, "calibrate", RESULTS_MODE_COMPARE, extra, ARRAY_SIZE(extra), argc,
			     argv);
	s.epilogue = calibration_summary;
	s.complete = record_calibration;
	if (code == EXIT_OK)
		code = revisions_suite_from("calibrate", suite_from, &req.suite_from);
	if (code == EXIT_OK) {
		/* head against itself: the commit (or the working tree) on both sides,
		 * built twice and kept as two files, as a real change has them (the
		 * plan's separate_artifacts) */
		req.head = against;
		req.against = against;
		code = revisions_compare(&s, &req);
	}
	session_release(&s);
	return code;
}
