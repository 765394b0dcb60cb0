/*
 * The event that started a GitHub Actions run, read from the payload at
 * GITHUB_EVENT_PATH for GITHUB_EVENT_NAME: which revisions to compare, which
 * commit gets the status, which pull request gets the comment and its labels.
 *
 *   pull_request  base.sha, head.sha (the status), number, labels, repos
 *   merge_group   base_sha, head_sha; the status goes on GITHUB_SHA
 *   push          before, after; the status goes on GITHUB_SHA. `before` all
 *                 zeros is a new branch: ERR_USAGE with ev->creates_branch set
 *                 and the rest of ev filled, so a caller that was given a base
 *                 (--against) may go on
 *   workflow_run  id, head_sha (the status), head and base repository, the
 *                 pull request number when pull_requests[] names one (it is
 *                 empty for forks: github_event_find_pr asks the API)
 *
 * pull_request_target is refused (it runs with secrets on untrusted code);
 * every other event is ERR_USAGE with guidance. A malformed payload is
 * ERR_INVALID naming the field.
 */
#ifndef HIMORIME_GITHUB_EVENT_H
#define HIMORIME_GITHUB_EVENT_H

#include "common/err.h"
#include "github/http.h"

#include <stddef.h>
#include <stdint.h>

/* GitHub's payloads are under 25 MiB; a larger file is refused. */
#define GITHUB_EVENT_MAX_BYTES ((size_t)25 << 20)
/* JSON values in a payload: a few thousand in real ones; the cap bounds the
 * memory a hostile one costs (cJSON spends ~64 bytes per value). */
#define GITHUB_EVENT_MAX_VALUES ((size_t)1000000)
#define GITHUB_SHA_MAX		64 /* hex digits of a SHA-256 object name */

enum github_event_kind {
	GITHUB_EVENT_PULL_REQUEST,
	GITHUB_EVENT_MERGE_GROUP,
	GITHUB_EVENT_PUSH,
	GITHUB_EVENT_WORKFLOW_RUN,
};

struct github_event {
	enum github_event_kind kind;
	char base_sha[GITHUB_SHA_MAX + 1];   /* "" when the event has none (workflow_run) */
	char head_sha[GITHUB_SHA_MAX + 1];   /* the revision the event is about */
	char status_sha[GITHUB_SHA_MAX + 1]; /* the commit that gets the status */
	uint64_t pr_number;		     /* 0: none known */
	char **labels;			     /* pull_request label names */
	size_t nr_labels;
	char *head_repo;    /* "owner/name" of the head, or NULL */
	char *base_repo;    /* "owner/name" of the base (the workflow's repository) */
	char *base_ref;	    /* pull_request.base.ref, the base branch's name, or NULL */
	uint64_t run_id;    /* workflow_run.id */
	char *run_event;    /* workflow_run.event, e.g. "pull_request" */
	int creates_branch; /* push with `before` all zeros */
};

void github_event_init(struct github_event *ev);
void github_event_release(struct github_event *ev);

/* Reads at most GITHUB_EVENT_MAX_BYTES from `path`. `github_sha` is GITHUB_SHA
 * (needed for push and merge_group). */
int github_event_load(struct github_event *ev, const char *event_name, const char *path,
		      const char *github_sha, struct err *err);
/* The same from a payload in memory. */
int github_event_parse(struct github_event *ev, const char *event_name, const char *json,
		       size_t len, const char *github_sha, struct err *err);

/* 1 if the event is about a pull request from another repository than the
 * base (a fork; also a pull request whose head repository was deleted). */
int github_event_from_fork(const struct github_event *ev);

/* The commit a saved report claims to be about (its git.status_sha, NULL
 * when it names none) must be the one this event names (status_sha):
 * ERR_INVALID otherwise, naming both and the event's field. */
int github_event_check_report_sha(const struct github_event *ev, const char *claimed,
				  struct err *err);

/* 1 if the pull request carries the label `name`. */
int github_event_has_label(const struct github_event *ev, const char *name);

/* For a workflow_run without a pull request number: GET
 * /repos/{base_repo}/commits/{head_sha}/pulls and keep the one pull request
 * whose head is head_sha in head_repo. ERR_INVALID when none or several. */
int github_event_find_pr(struct github_http *http, struct github_event *ev, struct err *err);

#endif
