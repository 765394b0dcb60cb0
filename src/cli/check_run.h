/*
 * The check run `himorime` of a results document (docs/github-actions.md,
 * "The check run"): its conclusion, title, summary, text and annotations
 * made from the document, and the glue `ci` and `comment` use around
 * github/checks.h. See check_run.c.
 */
#ifndef HIMORIME_CLI_CHECK_RUN_H
#define HIMORIME_CLI_CHECK_RUN_H

#include "common/err.h"
#include "common/strbuf.h"
#include "github/checks.h"
#include "github/event.h"
#include "github/http.h"
#include "results/results.h"

#include <stdbool.h>
#include <stddef.h>

/* --verdict-as: where the verdict goes beside the comment. */
enum cli_verdict_as {
	CLI_VERDICT_BOTH,   /* a check run and a commit status (the default) */
	CLI_VERDICT_STATUS, /* the commit status only, as before check runs */
	CLI_VERDICT_CHECK,  /* the check run; a status only when checks are refused */
};

/* Parses --verdict-as (NULL: both); EXIT_OK, or prints the usage error of
 * `cmd` and returns EXIT_USAGE. */
int cli_verdict_as_parse(const char *cmd, const char *text, enum cli_verdict_as *out);

/* `ci`'s check run from its start to its end. */
struct cli_check {
	bool started;		     /* created, or taken over, in_progress */
	bool refused;		     /* the token may not use check runs: the status goes instead */
	bool done;		     /* completed (or given up on) */
	char why[ERR_MSG_BYTES];     /* the refusal, for the notice */
	struct github_check_run run; /* what github_check_start found or made */
	char *name, *key;	     /* its name and selection when started */
};

#define CLI_CHECK_INIT                                                                             \
	{                                                                                          \
		.started = false, .refused = false, .done = false, .why = "", .run = { .id = 0 },  \
		.name = NULL, .key = NULL                                                          \
	}

void cli_check_release(struct cli_check *check);

/* "latency +16.0% (+13.0% … +19.0%, 99% confidence)" and the reason: an
 * annotation's message, the check run's and the workflow command's. */
void cli_comparison_text(const struct comparison *c, struct strbuf *out);

/* "latency p95 50.2 ms, budget <= 40ms" and the reason: a broken (or
 * unassessable) budget as an annotation's message says it. */
void cli_budget_text(const struct results_command *c, const struct results_budget *b,
		     struct strbuf *out);

/* The title of a regression's annotation, the check run's and the workflow
 * command's: " (accepted)" or " (not gated)" after it when it does not fail. */
const char *cli_regression_title(const struct comparison *c);

/* A budget that failed or could not be assessed: appends "BENCH › CMD: " and
 * cli_budget_text to `msg` and returns the annotation's title; NULL, `msg`
 * untouched, for one that held. */
const char *cli_budget_note(const struct results_benchmark *b, const struct results_command *c,
			    const struct results_budget *bu, struct strbuf *msg);

/* A command that could not run or be measured: appends "BENCH › CMD (head|
 * base): message" to `msg` and returns the annotation's title; NULL, `msg`
 * untouched, when neither side has an error. */
const char *cli_error_note(const struct results_benchmark *b, const struct results_command *c,
			   struct strbuf *msg);

/* The suite selection's key, as the comment's marker names it: the names
 * joined by ','; "none" without any. */
void cli_selection_key(const char *const *names, size_t n, struct strbuf *out);

/* `ci` when the comparison starts: with a token that may, the check run of
 * these suites goes in_progress on the event's commit. A refusal is kept for
 * the end's notice; another failure is a warning (the end tries again). */
void cli_check_start(const char *const *suites, size_t n, const struct github_event *ev,
		     const char *token, struct cli_check *check);

/* At the end, beside the comment: completes the check run of `doc` (the
 * one `check` started, else ours found now, else a new one). 0, or ERR_EXEC
 * with check->refused set when the token may not. */
int cli_check_finish(struct github_http *http, const struct results *doc,
		     const struct github_event *ev, const char *run_url, struct cli_check *check,
		     struct strbuf *dry_run, struct err *err);

/* `ci` stopping with `code` before its report was published: the check run it
 * started is completed (failure, or neutral when every suite's
 * report.error_conclusion asks for it and the code is 4 or 6), so that it is
 * not left in_progress. */
void cli_check_abandon(struct cli_check *check, const struct github_event *ev, const char *token,
		       int code, bool neutral);

#endif
