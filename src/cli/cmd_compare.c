/*
 * `himorime compare --against REV [--head REV] [--merge-base] [flags]
 * [PATH...]`: measures the working tree (uncommitted changes included), or
 * the commit named by --head, against REV, both built and measured in
 * interleaved pairs, and judges every compared metric (COMPARISON.md).
 *
 * `himorime calibrate [--against REV] [flags] [PATH...]`: the same procedure
 * on head against itself (an A/A comparison): what the machine's noise does
 * to the verdicts, and the smallest change the settings can detect.
 */
#include "cli/cli.h"
#include "cli/revisions.h"
#include "cli/session.h"

#include "common/alloc.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

static int measure(struct session *s, const struct revisions_request *req)
{
	struct revisions rv;
	bool **selected = session_selection(s);
	int code = session_select_check(s, selected);

	memset(&rv, 0, sizeof(rv));
	if (code == EXIT_OK)
		code = revisions_open(s, req, &rv);
	if (code == EXIT_OK)
		code = session_runner(s, rv.hidden, rv.n_hidden);
	if (code == EXIT_OK)
		code = revisions_measure(s, &rv, selected);
	/* The trees go before the report is written: nothing is left behind
	 * even when writing fails. */
	revisions_release(&rv);
	if (code == EXIT_OK)
		code = session_finish(s);
	session_selection_free(selected, s->suites.count);
	return code;
}

int cmd_compare(int argc, char **argv)
{
	const char *against = NULL, *head = NULL;
	bool merge_base = false;
	const struct opt extra[] = {
		{ "against", 0, OPT_STRING, &against, "REV", "the base revision" },
		{ "head", 0, OPT_STRING, &head, "REV",
		  "measure this commit instead of the working tree" },
		{ "merge-base", 0, OPT_FLAG, &merge_base, NULL,
		  "compare against the merge base of REV and head" },
	};
	struct revisions_request req = { NULL, NULL, false, "--against" };
	struct session s;
	int code;

	code = session_start(&s, "compare", RESULTS_MODE_COMPARE, extra, ARRAY_SIZE(extra), argc,
			     argv);
	if (code == EXIT_OK && !against) {
		struct err err = ERR_INIT;
		err_set(&err, ERR_USAGE, "compare needs --against REV (a commit, branch or tag)");
		code = cli_usage_error("compare", &err);
	}
	if (code == EXIT_OK) {
		req.against = against;
		req.head = head;
		req.merge_base = merge_base;
		code = measure(&s, &req);
	}
	session_release(&s);
	return code;
}

int cmd_calibrate(int argc, char **argv)
{
	const char *against = NULL;
	const struct opt extra[] = {
		{ "against", 0, OPT_STRING, &against, "REV",
		  "calibrate on this commit instead of the working tree" },
	};
	struct revisions_request req = { NULL, NULL, false, "calibrate" };
	struct session s;
	int code;

	code = session_start(&s, "calibrate", RESULTS_MODE_COMPARE, extra, ARRAY_SIZE(extra), argc,
			     argv);
	if (code == EXIT_OK) {
		/* head against itself: the commit (or the working tree) on both sides */
		req.head = against;
		req.against = against;
		code = measure(&s, &req);
	}
	session_release(&s);
	return code;
}
