/*
 * `himorime comment [--event PATH] [--dry-run] REPORT.json`: the fork-safe
 * half of the two-workflow setup. Run from a trusted workflow_run workflow
 * that never checks out pull-request code, it posts the comment and status of
 * a report that a pull request's run saved. The report is untrusted: size
 * capped, parsed field by field, rendered escaped; the pull request and the
 * commit come from the trusted event.
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/publish.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "github/event.h"
#include "github/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static int usage(const char *fmt)
{
	struct err err = ERR_INIT;
	err_set(&err, ERR_USAGE, "%s", fmt);
	return cli_usage_error("comment", &err);
}

#define COMMENT_MAX_REPORT_BYTES (16u * 1024 * 1024)

int cmd_comment(int argc, char **argv)
{
	const char *event_path = NULL;
	bool dry_run = false;
	const struct opt opts[] = {
		{ "event", 0, OPT_STRING, &event_path, "PATH",
		  "the trusted workflow_run event (default GITHUB_EVENT_PATH)" },
		{ "dry-run", 0, OPT_FLAG, &dry_run, NULL,
		  "print the comment and the requests, send nothing" },
	};
	struct strlist operands = { NULL, 0, 0 };
	struct github_event ev;
	struct github_http *http = NULL;
	struct github_http_options ho = GITHUB_HTTP_OPTIONS_INIT;
	struct results *doc = NULL;
	struct err err = ERR_INIT;
	const char *token, *event_name;
	char *data = NULL;
	size_t len;
	int code = EXIT_OK;

	github_event_init(&ev);
	github_http_preload(); /* as every command that publishes: first */
	if (opts_parse("comment", opts, ARRAY_SIZE(opts), argc, argv, &operands, &err) < 0) {
		code = cli_usage_error("comment", &err);
		goto done;
	}
	if (operands.n != 1) {
		code = usage("comment needs exactly one REPORT.json");
		goto done;
	}
	if (!event_path)
		event_path = getenv("GITHUB_EVENT_PATH");
	event_name = getenv("GITHUB_EVENT_NAME");
	if (!event_path || !*event_path) {
		code = usage("comment needs the trusted event: --event PATH or GITHUB_EVENT_PATH");
		goto done;
	}
	/* The report is untrusted data from a pull request's run: bounded,
	 * parsed field by field, rendered escaped. */
	if (fsio_read_file(operands.v[0], COMMENT_MAX_REPORT_BYTES, &data, &len, &err) < 0 ||
	    results_from_json(data, len, operands.v[0], &doc, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	if (github_event_load(&ev, event_name && *event_name ? event_name : "workflow_run",
			      event_path, getenv("GITHUB_SHA"), &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	token = cli_token();
	if (!token && !dry_run) {
		code = usage("comment needs GITHUB_TOKEN (or --dry-run)");
		goto done;
	}
	if (ev.pr_number == 0 && !dry_run) {
		ho.api_url = getenv("GITHUB_API_URL");
		ho.token = token;
		if (github_http_new(&http, &ho, &err) < 0 ||
		    github_event_find_pr(http, &ev, &err) < 0) {
			code = cli_fail(&err);
			goto done;
		}
	}
	code = cli_publish(doc, &ev, true, dry_run, token);
	if (code != EXIT_OK)
		code = cli_exit(code, "the comment or status could not be published");
done:
	github_http_free(http);
	results_free(doc);
	free(data);
	github_event_release(&ev);
	strlist_release(&operands);
	return code;
}
