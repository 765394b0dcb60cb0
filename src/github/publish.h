/*
 * Publishing a finished report on GitHub: one sticky pull-request comment per
 * pull request and suite selection, and a commit status on the head SHA.
 *
 * The comment is found by a hidden marker on its first line,
 * `<!-- himorime:comment v1 suite=<selection> -->`, AND by its author being
 * the token's own identity, so a marker planted by someone else is never
 * edited. The identity comes from GET /user (personal tokens); an Actions
 * GITHUB_TOKEN or another installation token gets 403 there, and then the
 * identity is the Actions bot, login "github-actions[bot]" with user.type
 * "Bot" (an app's own installation token passes its "<slug>[bot]" login in
 * `login`). When two runs race, each writes and then lists again and deletes
 * every comment of ours with the same marker except the newest (highest id),
 * so both converge on one comment.
 *
 * Failures: a 403 or 404 on a write (the read-only token a pull request from
 * a fork gets) is ERR_EXEC with result->read_only set, so the CLI can keep the
 * report and explain the fork-safe mode; anything else is plain ERR_EXEC.
 * With `dry_run` set nothing is sent and the planned requests are appended
 * there instead.
 */
#ifndef HIMORIME_GITHUB_PUBLISH_H
#define HIMORIME_GITHUB_PUBLISH_H

#include "common/err.h"
#include "common/strbuf.h"
#include "github/http.h"

#include <stddef.h>
#include <stdint.h>

/* GitHub rejects comment bodies of 65,536 characters or more; bytes never
 * count fewer than characters, so a byte cap keeps safely under it. */
#define GITHUB_COMMENT_MAX_BYTES      65000
#define GITHUB_STATUS_DESCRIPTION_MAX 140 /* characters (code points) */
#define GITHUB_STATUS_CONTEXT	      "himorime"
#define GITHUB_ACTIONS_BOT_LOGIN      "github-actions[bot]"
#define GITHUB_CUT_NOTE		      "… cut: the full report is in the job summary"

enum github_state {
	GITHUB_STATE_SUCCESS,
	GITHUB_STATE_FAILURE,
	GITHUB_STATE_ERROR,
};

enum github_comment_action {
	GITHUB_COMMENT_NONE, /* no comment asked for, or dry run */
	GITHUB_COMMENT_CREATED,
	GITHUB_COMMENT_UPDATED,
};

struct github_publish_options {
	const char *repository;	 /* "owner/name" (GITHUB_REPOSITORY) */
	uint64_t pr_number;	 /* 0: no comment */
	const char *selection;	 /* suite selection key in the marker, e.g. "bench" */
	const char *body;	 /* the comment's Markdown; the marker is added if absent */
	const char *sha;	 /* commit that gets the status; NULL: no status */
	enum github_state state; /* the status */
	const char *description; /* status text; cut to 140 characters */
	const char *target_url;	 /* the run's URL, or NULL */
	const char *login;	 /* our identity if known; NULL: learn it */
	struct strbuf *dry_run;	 /* non-NULL: describe the requests, send none */
};

#define GITHUB_PUBLISH_OPTIONS_INIT                                                                \
	{                                                                                          \
		.repository = NULL, .pr_number = 0, .selection = "default", .body = NULL,          \
		.sha = NULL, .state = GITHUB_STATE_ERROR, .description = NULL, .target_url = NULL, \
		.login = NULL, .dry_run = NULL                                                     \
	}

struct github_publish_result {
	int read_only;			   /* the token may not write here (fork PR) */
	enum github_comment_action action; /* what happened to our comment */
	uint64_t comment_id;		   /* the comment we wrote, or 0 */
	unsigned deleted;		   /* duplicates of ours removed */
	int status_posted;
};

/* Comment, then status. Either part is skipped when its input is absent. */
int github_publish(struct github_http *http, const struct github_publish_options *opts,
		   struct github_publish_result *result, struct err *err);

/* The longest selection key a marker takes (suite names joined by ','). */
#define GITHUB_MARKER_MAX_BYTES 4096

/* The marker line (no newline) for a selection key: "<!-- himorime:comment v1
 * suite=KEY -->" with every byte of KEY outside [A-Za-z0-9._,:/+=@-], and the
 * second '-' of "--", written as %XX (UTF-8 bytes one by one), so that any
 * suite name round-trips and names that need no encoding keep their marker.
 * ERR_USAGE when the key is empty or longer than GITHUB_MARKER_MAX_BYTES. */
int github_comment_marker(const char *selection, struct strbuf *out, struct err *err);

/* Appends `body` with the marker as first line (unless already there), cut at
 * a line boundary below GITHUB_COMMENT_MAX_BYTES with GITHUB_CUT_NOTE; an open
 * ``` fence is closed before the note. */
int github_comment_body(const char *selection, const char *body, struct strbuf *out,
			struct err *err);

/* Appends `text` with control characters turned into spaces, cut to at most
 * 140 code points on a UTF-8 boundary (the last one "…" when cut). */
void github_status_description(const char *text, struct strbuf *out);

/* Length of the UTF-8 sequence starting at p, or 0 when it is malformed (a
 * bad lead byte or continuation; overlong 3-byte forms and surrogates pass).
 * Shared by every text this area cuts or cleans for GitHub. */
size_t github_utf8_len(const unsigned char *p);

/* The largest cut <= limit in s that does not split a UTF-8 sequence. */
size_t github_utf8_floor(const char *s, size_t limit);

/* "success", "failure" or "error". */
const char *github_state_name(enum github_state state);

/* The run's URL from GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_RUN_ID;
 * NULL when any is missing or malformed. A heap string. */
char *github_run_url(const char *server_url, const char *repository, const char *run_id);

/* ERR_USAGE unless `repository` is "owner/name" made of [A-Za-z0-9._-]. */
int github_check_repository(const char *repository, struct err *err);

#endif
