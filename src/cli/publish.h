/*
 * Publishing a report to a pull request: see publish.c.
 */
#ifndef HIMORIME_CLI_PUBLISH_H
#define HIMORIME_CLI_PUBLISH_H

#include "github/event.h"
#include "results/results.h"

#include <stdbool.h>

/* Posts doc's comment (when `comment` and the event names a pull request)
 * and its status on the event's commit, through GITHUB_API_URL with `token`
 * for GITHUB_REPOSITORY; hide_footer leaves the comment's last line out.
 * With dry_run, prints what would be sent and sends nothing. Returns EXIT_OK
 * (also after a read-only token's notice) or EXIT_EXEC after printing why. */
int cli_publish(const struct results *doc, const struct github_event *ev, bool comment,
		bool dry_run, const char *token, bool hide_footer);

#endif
