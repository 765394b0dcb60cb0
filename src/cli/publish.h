/*
 * Publishing a report to a pull request: see publish.c.
 */
#ifndef HIMORIME_CLI_PUBLISH_H
#define HIMORIME_CLI_PUBLISH_H

#include "cli/check_run.h"
#include "github/event.h"
#include "results/results.h"

#include <stdbool.h>

struct cli_publish_request {
	bool comment; /* the pull-request comment, when the event names one */
	bool dry_run; /* print what would be sent, send nothing */
	const char *token;
	bool hide_footer; /* leave the comment's last line out */
	enum cli_verdict_as verdict_as;
	struct cli_check *check; /* ci's check run from its start; or a fresh one */
};

/* Posts doc's comment (when `comment` and the event names a pull request),
 * then its check run and/or its status on the event's commit, as
 * `verdict_as` says, through GITHUB_API_URL for GITHUB_REPOSITORY. A token
 * that may not write check runs gets the status and one notice naming the
 * permission. Returns EXIT_OK (also after a read-only token's notice) or
 * EXIT_EXEC after printing why. */
int cli_publish(const struct results *doc, const struct github_event *ev,
		const struct cli_publish_request *req);

#endif
