/*
 * `himorime compare --against REV [--head REV] [--merge-base] [flags]
 * [PATH...]`: measures the working tree (uncommitted changes included), or
 * the commit named by --head, against REV, both built and measured in
 * interleaved pairs, and judges every compared metric (docs/comparison.md).
 */
#include "cli/cli.h"
#include "cli/revisions.h"
#include "cli/session.h"

#include "common/alloc.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

int cmd_compare(int argc, char **argv)
{
	const char *against = NULL, *head = NULL, *suite_from = NULL;
	bool merge_base = false;
	const struct opt extra[] = {
		{ "against", 0, OPT_STRING, &against, "REV", "the base revision" },
		{ "head", 0, OPT_STRING, &head, "REV",
		  "measure this commit instead of the working tree" },
		{ "merge-base", 0, OPT_FLAG, &merge_base, NULL,
		  "compare against the merge base of REV and head" },
		{ "suite-from", 0, OPT_STRING, &suite_from, "head|base",
		  "measure both sides with this revision's suite file" },
	};
	struct revisions_request req = {
		NULL, NULL, false, "--against", REVISIONS_SUITE_OWN, NULL
	};
	struct session s;
	int code;

	code = session_start(&s, "compare", RESULTS_MODE_COMPARE, extra, ARRAY_SIZE(extra), argc,
			     argv);
	if (code == EXIT_OK && !against) {
		struct err err = ERR_INIT;
		err_set(&err, ERR_USAGE, "compare needs --against REV (a commit, branch or tag)");
		code = cli_usage_error("compare", &err);
	}
	if (code == EXIT_OK)
		code = revisions_suite_from("compare", suite_from, &req.suite_from);
	if (code == EXIT_OK) {
		req.against = against;
		req.head = head;
		req.merge_base = merge_base;
		code = revisions_compare(&s, &req);
	}
	session_release(&s);
	return code;
}
