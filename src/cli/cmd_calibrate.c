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
#include "common/clock.h"
#include "render/render.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

/* The calibration table, unless the report on standard output (or in the
 * file) is a table, which ends with it. Beside a machine-readable report on
 * standard output it goes to standard error, so that the report stays
 * parseable. */
static void print_calibration(const struct session *s)
{
	struct strbuf out;
	bool table = !strcmp(s->out.format, "table");

	if (table && !s->out.output)
		return;
	strbuf_init(&out, 0);
	render_calibration(s->doc, &out);
	fputs(out.buf, !s->out.output ? stderr : stdout);
	strbuf_release(&out);
}

/* The session's end (session.h) with what a calibration adds: in the
 * document, before it is written, that it is a calibration, with the
 * smallest slowdown each compared metric could show at its pair cap, so
 * that the saved report keeps what the table shows (docs/reports.md); then
 * the table, before the last line. */
static int finish(struct session *s)
{
	int code = session_verdicts(s);
	uint64_t t = clock_monotonic_ns();
	int written;

	runner_calibration(s->doc, s->plan);
	session_phase(s, RESULTS_PHASE_JUDGING, t);
	written = session_write(s);
	if (written != EXIT_OK)
		return written;
	t = clock_monotonic_ns();
	print_calibration(s);
	session_phase(s, RESULTS_PHASE_RENDERING, t);
	return session_conclude(s, code);
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

	/* built twice and kept as two files, as a real change has them (the
	 * plan's separate_artifacts) */
	if (code == EXIT_OK)
		code = revisions_compare(s, &req);
	return code == EXIT_OK ? finish(s) : code;
}
