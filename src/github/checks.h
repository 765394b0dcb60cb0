/*
 * The check run `himorime` beside the comment and the status: GitHub's
 * Checks API, one check run per commit and suite selection, with the
 * verdict's title and summary, the whole report as its text, and an
 * annotation on the suite file's line of each problem.
 *
 * A check run is ours when its app is the token's (the Actions app,
 * `github-actions`, for the GITHUB_TOKEN) AND its external_id is the suite
 * selection, the key of the comment's marker; it is looked up by name on the
 * commit (`GET /repos/{o}/{r}/commits/{sha}/check-runs?check_name=...`), so a
 * re-run of the same commit updates the newest of ours instead of adding one,
 * and one that a dead job left in_progress is taken over and completed.
 *
 * Two calls: github_check_start when the comparison starts (`ci` with a
 * token) marks it in_progress; github_check_finish completes it with the
 * conclusion, the output and the annotations, 50 per request as the API
 * takes them. `comment` calls only github_check_finish.
 *
 * The API appends annotations and cannot remove them: an update sends only
 * those not on the check run already, so re-running a commit does not repeat
 * a problem it reported before. GitHub does not take a completed check run
 * back to in_progress: a re-run of a commit whose check run completed leaves
 * it as it is until github_check_finish updates it.
 *
 * Failures: a 403 that is not a rate limit, or a 404 (no `checks: write`: a
 * personal token, a job without the permission, a fork's read-only token) is
 * ERR_EXEC with result->refused set, so the caller can post a commit status
 * instead and say which permission to add; anything else is plain ERR_EXEC
 * (retries and rate limits are http.h's). With `dry_run` set nothing is sent
 * and the planned requests are appended there.
 */
#ifndef HIMORIME_GITHUB_CHECKS_H
#define HIMORIME_GITHUB_CHECKS_H

#include "common/err.h"
#include "common/strbuf.h"
#include "github/http.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GITHUB_CHECK_NAME "himorime"
/* output.summary and output.text take at most 65,535 characters each; bytes
 * never count fewer than characters, so a byte cap keeps under it. */
#define GITHUB_CHECK_TEXT_MAX_BYTES	     65000
#define GITHUB_CHECK_ANNOTATIONS_PER_REQUEST 50
/* The most annotations one check run gets from us (20 requests); the
 * summary says when there were more problems. */
#define GITHUB_CHECK_MAX_ANNOTATIONS   1000
#define GITHUB_CHECK_TITLE_MAX_BYTES   255  /* an annotation's title */
#define GITHUB_CHECK_MESSAGE_MAX_BYTES 4096 /* an annotation's message */
#define GITHUB_ACTIONS_APP_SLUG	       "github-actions"

enum github_check_level {
	GITHUB_CHECK_NOTICE,
	GITHUB_CHECK_WARNING,
	GITHUB_CHECK_FAILURE,
};

/* The conclusions himorime gives; never action_required. */
enum github_conclusion {
	GITHUB_CONCLUSION_SUCCESS,
	GITHUB_CONCLUSION_NEUTRAL,
	GITHUB_CONCLUSION_FAILURE,
};

struct github_check_annotation {
	const char *path; /* the suite file, relative to the repository's root */
	unsigned line;	  /* 1-based; 0 is taken as 1 */
	enum github_check_level level;
	const char *title;   /* cut to GITHUB_CHECK_TITLE_MAX_BYTES */
	const char *message; /* cut to GITHUB_CHECK_MESSAGE_MAX_BYTES */
};

struct github_check_options {
	const char *repository;	 /* "owner/name" */
	const char *sha;	 /* the commit the check run is on */
	const char *name;	 /* github_check_name */
	const char *selection;	 /* the external_id: the comment marker's key */
	const char *app_slug;	 /* whose check runs are ours; NULL: GITHUB_ACTIONS_APP_SLUG */
	const char *details_url; /* the run; NULL: none */
	const char *title;	 /* output.title */
	const char *summary;	 /* output.summary, cut to GITHUB_CHECK_TEXT_MAX_BYTES */
	const char *text;	 /* output.text (finish), cut the same way; NULL: none */
	enum github_conclusion conclusion;		   /* finish */
	const struct github_check_annotation *annotations; /* finish */
	size_t n_annotations;
	struct strbuf *dry_run; /* non-NULL: describe the requests, send none */
};

#define GITHUB_CHECK_OPTIONS_INIT                                                                  \
	{                                                                                          \
		.repository = NULL, .sha = NULL, .name = GITHUB_CHECK_NAME, .selection = NULL,     \
		.app_slug = NULL, .details_url = NULL, .title = NULL, .summary = NULL,             \
		.text = NULL, .conclusion = GITHUB_CONCLUSION_FAILURE, .annotations = NULL,        \
		.n_annotations = 0, .dry_run = NULL                                                \
	}

/* One of our check runs as the API listed it. */
struct github_check_run {
	uint64_t id;		   /* 0: none */
	bool completed;		   /* status "completed" */
	uint64_t annotation_count; /* output.annotations_count */
};

enum github_check_action {
	GITHUB_CHECK_NONE, /* nothing written (dry run, or left as it was) */
	GITHUB_CHECK_CREATED,
	GITHUB_CHECK_UPDATED,
};

struct github_check_result {
	int refused; /* the token may not use check runs here */
	enum github_check_action action;
	struct github_check_run run; /* the check run written or found */
	size_t annotations_sent;     /* in this call */
	size_t annotations_present;  /* already on the check run, not sent again */
};

/* When the comparison starts: finds ours, or creates it in_progress; one
 * still in_progress gets this run's details_url, title and summary; a
 * completed one is left for github_check_finish. result->run is what to
 * pass it. */
int github_check_start(struct github_http *http, const struct github_check_options *opts,
		       struct github_check_result *result, struct err *err);

/* Completes `known` (from github_check_start), or ours found now when it is
 * NULL or has no id, or a new one: status completed, the conclusion, the
 * output, then the annotations not on it yet, GITHUB_CHECK_ANNOTATIONS_PER_REQUEST
 * per request, at most GITHUB_CHECK_MAX_ANNOTATIONS. */
int github_check_finish(struct github_http *http, const struct github_check_options *opts,
			const struct github_check_run *known, struct github_check_result *result,
			struct err *err);

/* "himorime" for one suite; "himorime (a, b)" for several: control
 * characters as spaces, the names cut at 100 code points with "…". */
void github_check_name(const char *const *suites, size_t n, struct strbuf *out);

/* "success", "neutral" or "failure". */
const char *github_conclusion_name(enum github_conclusion c);

/* Appends `text` cut to at most `cap` bytes at a line boundary, closing an
 * open ``` fence and <details>, with GITHUB_CUT_NOTE (github/publish.h). */
void github_check_cut(const char *text, size_t cap, struct strbuf *out);

#endif
