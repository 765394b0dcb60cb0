/*
 * `himorime compare --against REV [--head REV] [--merge-base] [flags]
 * [PATH...]`: measures the working tree (uncommitted changes included), or
 * the commit named by --head, against REV, both built and measured in
 * interleaved pairs, and judges every compared metric (docs/comparison.md).
 */
#include "cli/commands.h"
#include "cli/revisions.h"
#include "cli/session.h"

#include "common/alloc.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

int cmd_compare(struct session *s, struct cmd_args *a)
{
	const struct compare_flags *f = &a->f.compare;
	struct revisions_request req = {
		.against = f->against,
		.head = f->head,
		.merge_base = f->merge_base,
		.base_source = "--against",
		.suite_from = REVISIONS_SUITE_OWN,
	};
	int code;

	if (!f->against)
		return cli_usagef("compare",
				  "compare needs --against REV (a commit, branch or tag)");
	code = revisions_suite_from("compare", f->suite_from, &req.suite_from);
	if (code == EXIT_OK)
		code = revisions_compare(s, &req);
	return code == EXIT_OK ? session_finish(s) : code;
}
