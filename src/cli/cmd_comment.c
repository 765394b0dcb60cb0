/*
 * `himorime comment [--event PATH] [--dry-run] [--hide-footer]
 * [--verdict-as status|check|both] REPORT.json`: the publishing half of the
 * two-job setup. Run from a job that never checks out or runs pull-request
 * code (the measuring workflow's second job, or a workflow_run workflow for
 * forks), it posts the comment, the check run and the status of a report that
 * the measuring job saved. The report is untrusted: size capped,
 * parsed field by field, rendered escaped, and refused unless it is about the
 * commit of the event; the pull request and the commit come from the trusted
 * event. A fork's status is advisory: the fork's own code made the report.
 */
#include "cli/commands.h"
#include "cli/publish.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "github/actions.h"
#include "github/event.h"
#include "github/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define COMMENT_MAX_REPORT_BYTES (16u * 1024 * 1024)

/* A fork's report was written by the fork's own code, verdict included: the
 * status posted from it is advisory (docs/github-actions.md, "Pull requests
 * from forks"). */
static void advisory_notice(const struct github_event *ev)
{
	char *text = xasprintf(
		"the pull request comes from a fork (%s): its report, verdict included, was made "
		"by the fork's own code, which can forge it. The himorime status posted from it "
		"is advisory: never make it a required check for pull requests from forks "
		"(docs/github-actions.md)",
		ev->head_repo ? ev->head_repo : "a deleted repository");

	if (cli_in_actions()) {
		struct github_annotation a = { .level = GITHUB_ANNOTATION_NOTICE,
					       .file = NULL,
					       .line = 0,
					       .title = "himorime: advisory status (fork)",
					       .message = text };
		struct strbuf sb;

		strbuf_init(&sb, 0);
		github_actions_annotation(&a, &sb);
		fwrite(sb.buf, 1, sb.len, stdout);
		fflush(stdout);
		strbuf_release(&sb);
	} else {
		fprintf(stderr, "himorime: notice: %s\n", text);
	}
	free(text);
}

/* The untrusted report and the trusted event, the report checked to be
 * about the event's commit before anything is sent; EXIT_OK or printed. */
static int load_report(const char *path, const char *event_path, struct github_event *ev,
		       char **data, struct results **doc)
{
	const char *event_name = getenv("GITHUB_EVENT_NAME");
	struct err err = ERR_INIT;
	size_t len;

	/* The report is untrusted data from a pull request's run: bounded,
	 * parsed field by field, rendered escaped. */
	if (fsio_read_file(path, COMMENT_MAX_REPORT_BYTES, data, &len, &err) < 0 ||
	    results_from_json(*data, len, path, doc, &err) < 0)
		return cli_fail(&err);
	if (github_event_load(ev, event_name && *event_name ? event_name : "workflow_run",
			      event_path, getenv("GITHUB_SHA"), &err) < 0)
		return cli_fail(&err);
	/* a report of another commit (a stale or mixed-up artifact) is refused */
	if (github_event_check_report_sha(ev, (*doc)->git.present ? (*doc)->git.status_sha : NULL,
					  &err) < 0) {
		err_wrap(&err, "%s", path);
		return cli_fail(&err);
	}
	return EXIT_OK;
}

int cmd_comment(struct cmd_args *a)
{
	const struct comment_flags *f = &a->f.comment;
	const struct strlist *operands = &a->operands;
	const char *event_path = f->event;
	bool dry_run = f->dry_run;
	struct cli_check check = CLI_CHECK_INIT;
	struct cli_publish_request req = { .comment = true };
	struct github_event ev;
	struct github_http *http = NULL;
	struct github_http_options ho = GITHUB_HTTP_OPTIONS_INIT;
	struct results *doc = NULL;
	struct err err = ERR_INIT;
	const char *token;
	char *data = NULL;
	int code = EXIT_OK;

	github_event_init(&ev);
	github_http_preload(); /* as every command that publishes: first */
	if (operands->n != 1) {
		code = cli_usagef("comment", "comment needs exactly one REPORT.json");
		goto done;
	}
	code = cli_verdict_as_parse("comment", f->verdict_as, &req.verdict_as);
	if (code != EXIT_OK)
		goto done;
	if (!event_path)
		event_path = getenv("GITHUB_EVENT_PATH");
	if (!event_path || !*event_path) {
		code = cli_usagef(
			"comment",
			"comment needs the trusted event: --event PATH or GITHUB_EVENT_PATH");
		goto done;
	}
	code = load_report(operands->v[0], event_path, &ev, &data, &doc);
	if (code != EXIT_OK)
		goto done;
	if (github_event_from_fork(&ev))
		advisory_notice(&ev);
	token = cli_token();
	if (!token && !dry_run) {
		code = cli_usagef("comment", "comment needs GITHUB_TOKEN (or --dry-run)");
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
	req.dry_run = dry_run;
	req.token = token;
	req.hide_footer = f->hide_footer;
	req.check = &check;
	code = cli_publish(doc, &ev, &req);
	if (code != EXIT_OK)
		code = cli_exit(code, "the comment, check run or status could not be published");
done:
	cli_check_release(&check);
	github_http_free(http);
	results_free(doc);
	free(data);
	github_event_release(&ev);
	return code;
}
