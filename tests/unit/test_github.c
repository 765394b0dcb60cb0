/*
 * Unit tests of the GitHub client and publishing against a real HTTP server
 * on 127.0.0.1 (tests/github/server.py) started once for the group: the
 * sticky comment (create, update on a later page, races, foreign markers),
 * retries, the read-only outcome, error messages, the token's confinement to
 * the Authorization header, base URL checks, body and description caps, and
 * dry runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "github/curl_api.h"
#include "github/event.h"
#include "github/http.h"
#include "github/publish.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TOKEN	  "tok-9f8e7d6c5b4a"
#define BOT_TOKEN "ghs_installation0123"
#define RO_TOKEN  "tok-read-only-5555"
#define SHA	  "0123456789abcdef0123456789abcdef01234567"
#define MARKER	  "<!-- himorime:comment v1 suite=bench -->"
#define TOKENS                                                                                     \
	"\"tokens\": {\"" TOKEN "\": {\"login\": \"perf-bot\", \"type\": \"User\"}, \"" BOT_TOKEN  \
	"\": null, \"" RO_TOKEN "\": {\"login\": \"fork-user\", \"type\": \"User\"}}, "            \
	"\"read_only\": [\"" RO_TOKEN "\"]"

struct server {
	char *dir;
	pid_t pid;
	int port;
	int gen;
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int server_start(void **state)
{
	struct server *s = xcalloc(1, sizeof(*s));
	struct err err = ERR_INIT;
	char *port_path;
	int i;

	/* as a command that publishes does, first */
	github_http_preload();
	assert_int_equal(fsio_mkdtemp("himorime-gh-", &s->dir, &err), 0);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		execlp("python3", "python3", "tests/github/server.py", "--dir", s->dir, "--idle",
		       "60", (char *)NULL);
		_exit(127);
	}
	port_path = xasprintf("%s/port", s->dir);
	for (i = 0; i < 500 && !s->port; i++) {
		char *text = NULL;

		if (fsio_read_file(port_path, 64, &text, NULL, &err) == 0)
			s->port = (int)strtol(text, NULL, 10);
		free(text);
		if (!s->port)
			sleep_ms(20);
	}
	free(port_path);
	*state = s;
	if (!s->port) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
		return -1;
	}
	return 0;
}

static int server_stop(void **state)
{
	struct server *s = *state;
	struct err err = ERR_INIT;

	if (!s)
		return 0;
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	fsio_remove_tree(s->dir, &err);
	free(s->dir);
	free(s);
	return 0;
}

/* Resets the server to a scenario given as the inside of a JSON object. */
static void scenario(struct server *s, const char *fields)
{
	struct err err = ERR_INIT;
	char *path = xasprintf("%s/scenario.json", s->dir);
	char *doc = xasprintf("{\"gen\": %d%s%s}", ++s->gen, *fields ? ", " : "", fields);

	assert_int_equal(fsio_write_atomic(path, doc, strlen(doc), &err), 0);
	free(doc);
	free(path);
	/* The log of the previous scenario must not be mistaken for this one's. */
	path = xasprintf("%s/log.json", s->dir);
	unlink(path);
	free(path);
}

static cJSON *server_log(struct server *s)
{
	struct err err = ERR_INIT;
	char *path = xasprintf("%s/log.json", s->dir);
	char *text = NULL;
	cJSON *doc;

	if (fsio_read_file(path, (size_t)64 << 20, &text, NULL, &err)) {
		free(path);
		return cJSON_Parse("{\"requests\": [], \"violations\": [], \"issues\": {}, "
				   "\"statuses\": []}");
	}
	doc = cJSON_Parse(text);
	assert_non_null(doc);
	free(text);
	free(path);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "violations")), 0);
	return doc;
}

static struct github_http *client(struct server *s, const char *token, const char *prefix)
{
	struct github_http_options o = GITHUB_HTTP_OPTIONS_INIT;
	struct github_http *http = NULL;
	struct err err = ERR_INIT;
	char *url = xasprintf("http://127.0.0.1:%d%s", s->port, prefix);

	o.api_url = url;
	o.token = token;
	o.max_wait_ns = 20000000; /* 20 ms: retry-after 1 is honoured but capped */
	o.max_total_wait_ns = 1000000000;
	o.backoff_ns = 1000000;
	assert_int_equal(github_http_new(&http, &o, &err), 0);
	free(url);
	return http;
}

static struct github_publish_options pr_options(const char *body)
{
	struct github_publish_options o = GITHUB_PUBLISH_OPTIONS_INIT;

	o.repository = "octo/repo";
	o.pr_number = 7;
	o.selection = "bench";
	o.body = body;
	o.sha = SHA;
	o.state = GITHUB_STATE_FAILURE;
	o.description = "1 regression, 4 pass";
	o.target_url = "https://github.com/octo/repo/actions/runs/42";
	return o;
}

static cJSON *comments(cJSON *log, const char *issue)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(log, "issues"), issue);
}

static int count_requests(cJSON *log, const char *method, const char *path_prefix)
{
	const cJSON *r;
	int n = 0;

	cJSON_ArrayForEach(r, cJSON_GetObjectItem(log, "requests"))
	{
		if (!strcmp(cJSON_GetObjectItem(r, "method")->valuestring, method) &&
		    !strncmp(cJSON_GetObjectItem(r, "path")->valuestring, path_prefix,
			     strlen(path_prefix)))
			n++;
	}
	return n;
}

/* Seeds `others` comments by someone else, then ours (if `ours_at` >= 0) at that index. */
static char *seeded_issue(int others, int ours_at, const char *our_login, const char *our_type)
{
	struct strbuf sb;
	int i;

	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "\"issues\": {\"octo/repo/7\": [");
	for (i = 0; i < others; i++) {
		if (i == ours_at)
			strbuf_addf(&sb,
				    "{\"user\": {\"login\": \"%s\", \"type\": \"%s\"}, \"body\": "
				    "\"" MARKER "\\nold report\"}, ",
				    our_login, our_type);
		strbuf_addf(&sb,
			    "{\"user\": {\"login\": \"reviewer\", \"type\": \"User\"}, \"body\": "
			    "\"comment %d\"}%s",
			    i, i + 1 < others ? ", " : "");
	}
	strbuf_adds(&sb, "]}");
	return strbuf_detach(&sb, NULL);
}

static void test_github__first_publish_creates_comment_and_status(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("### report\n");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	cJSON *log, *list, *st;

	scenario(s, TOKENS);
	http = client(s, TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	assert_int_equal(res.action, GITHUB_COMMENT_CREATED);
	assert_true(res.status_posted);
	assert_int_equal(res.read_only, 0);
	log = server_log(s);
	list = comments(log, "octo/repo/7");
	assert_int_equal(cJSON_GetArraySize(list), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "body")->valuestring,
			    MARKER "\n### report\n");
	assert_int_equal(
		(uint64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "id")->valuedouble,
		res.comment_id);
	st = cJSON_GetArrayItem(cJSON_GetObjectItem(log, "statuses"), 0);
	assert_string_equal(cJSON_GetObjectItem(st, "sha")->valuestring, SHA);
	assert_string_equal(cJSON_GetObjectItem(st, "state")->valuestring, "failure");
	assert_string_equal(cJSON_GetObjectItem(st, "context")->valuestring, "himorime");
	assert_string_equal(cJSON_GetObjectItem(st, "description")->valuestring,
			    "1 regression, 4 pass");
	assert_string_equal(cJSON_GetObjectItem(st, "target_url")->valuestring,
			    "https://github.com/octo/repo/actions/runs/42");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(log, "requests")), 5);
	assert_int_equal(count_requests(log, "GET", "/user"), 1);
	assert_int_equal(
		count_requests(log, "GET", "/repos/octo/repo/issues/7/comments?per_page=100"), 2);
	cJSON_Delete(log);
	github_http_free(http);
}

static void test_github__second_publish_updates_comment_on_third_page(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("new report");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	/* 240 others and ours at index 215: page 3 with 100 per page. */
	char *issue = seeded_issue(240, 215, "perf-bot", "User");
	char *fields = xasprintf(TOKENS ", %s", issue);
	cJSON *log, *list, *c;
	int found = 0;

	scenario(s, fields);
	free(fields);
	free(issue);
	http = client(s, TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	assert_int_equal(res.action, GITHUB_COMMENT_UPDATED);
	assert_int_equal(res.deleted, 0);
	log = server_log(s);
	list = comments(log, "octo/repo/7");
	assert_int_equal(cJSON_GetArraySize(list), 241);
	cJSON_ArrayForEach(c, list)
	{
		if (!strncmp(cJSON_GetObjectItem(c, "body")->valuestring, MARKER, strlen(MARKER))) {
			found++;
			assert_string_equal(cJSON_GetObjectItem(c, "body")->valuestring,
					    MARKER "\nnew report");
			assert_int_equal((uint64_t)cJSON_GetObjectItem(c, "id")->valuedouble,
					 res.comment_id);
		}
	}
	assert_int_equal(found, 1);
	assert_int_equal(count_requests(log, "GET",
					"/repos/octo/repo/issues/7/comments?per_page=100&page=3"),
			 2);
	assert_int_equal(count_requests(log, "POST", "/repos/octo/repo/issues/7/comments"), 0);
	assert_int_equal(count_requests(log, "PATCH", "/repos/octo/repo/issues/comments/"), 1);
	cJSON_Delete(log);
	github_http_free(http);
}

static void test_github__race_between_list_and_post_ends_with_one_comment(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("mine");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	cJSON *log, *list;

	scenario(s, TOKENS ", \"race\": {\"method\": \"POST\", \"path\": "
			   "\"/repos/octo/repo/issues/7/comments\", \"issue\": \"octo/repo/7\", "
			   "\"comment\": {\"user\": {\"login\": \"perf-bot\", \"type\": \"User\"}, "
			   "\"body\": \"" MARKER "\\nother run\"}}");
	http = client(s, TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	assert_int_equal(res.action, GITHUB_COMMENT_CREATED);
	assert_int_equal(res.deleted, 1);
	log = server_log(s);
	list = comments(log, "octo/repo/7");
	assert_int_equal(cJSON_GetArraySize(list), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "body")->valuestring,
			    MARKER "\nmine");
	assert_int_equal(count_requests(log, "DELETE", "/repos/octo/repo/issues/comments/"), 1);
	cJSON_Delete(log);
	github_http_free(http);
}

static void test_github__marker_in_someone_elses_comment_is_left_alone(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("mine");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	char *issue = seeded_issue(3, 1, "mallory", "User");
	char *fields = xasprintf(TOKENS ", %s", issue);
	cJSON *log, *list;

	scenario(s, fields);
	http = client(s, TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	assert_int_equal(res.action, GITHUB_COMMENT_CREATED);
	log = server_log(s);
	list = comments(log, "octo/repo/7");
	assert_int_equal(cJSON_GetArraySize(list), 5);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 1), "body")->valuestring,
			    MARKER "\nold report");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 4), "body")->valuestring,
			    MARKER "\nmine");
	assert_int_equal(count_requests(log, "PATCH", "/"), 0);
	assert_int_equal(count_requests(log, "DELETE", "/"), 0);
	cJSON_Delete(log);
	github_http_free(http);
	free(fields);
	free(issue);
}

static void test_github__installation_token_acts_as_the_actions_bot(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("bot report");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	/* A user who named themselves like the bot is not the bot: type "User". */
	char *issue = seeded_issue(2, 0, "github-actions[bot]", "User");
	char *fields = xasprintf(TOKENS ", %s", issue);
	cJSON *log, *list;

	scenario(s, fields);
	http = client(s, BOT_TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	assert_int_equal(res.action, GITHUB_COMMENT_CREATED);
	log = server_log(s);
	list = comments(log, "octo/repo/7");
	assert_int_equal(cJSON_GetArraySize(list), 4);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "body")->valuestring,
			    MARKER "\nold report");
	cJSON_Delete(log);
	/* The second run finds the bot's own comment and updates it. */
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	assert_int_equal(res.action, GITHUB_COMMENT_UPDATED);
	log = server_log(s);
	assert_int_equal(cJSON_GetArraySize(comments(log, "octo/repo/7")), 4);
	cJSON_Delete(log);
	github_http_free(http);
	free(fields);
	free(issue);
}

static void test_github__transient_failures_are_retried(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("after faults");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	cJSON *log;

	scenario(s,
		 TOKENS ", \"faults\": ["
			"{\"method\": \"GET\", \"path\": \"/user\", \"status\": 500},"
			"{\"method\": \"GET\", \"path\": \".*/comments\", \"status\": 502},"
			"{\"method\": \"POST\", \"path\": \".*/comments\", \"status\": 429, "
			"\"headers\": {\"retry-after\": \"1\"}},"
			"{\"method\": \"POST\", \"path\": \".*/statuses/.*\", \"status\": 403, "
			"\"body\": {\"message\": \"You have exceeded a secondary rate limit.\"}},"
			"{\"method\": \"POST\", \"path\": \".*/statuses/.*\", \"status\": 403, "
			"\"headers\": {\"x-ratelimit-remaining\": \"0\", \"x-ratelimit-reset\": "
			"\"1\"}, \"body\": {\"message\": \"API rate limit exceeded\"}}]");
	http = client(s, TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	assert_int_equal(res.action, GITHUB_COMMENT_CREATED);
	assert_true(res.status_posted);
	log = server_log(s);
	assert_int_equal(count_requests(log, "GET", "/user"), 2);
	assert_int_equal(count_requests(log, "GET", "/repos/octo/repo/issues/7/comments"), 3);
	assert_int_equal(count_requests(log, "POST", "/repos/octo/repo/issues/7/comments"), 2);
	assert_int_equal(count_requests(log, "POST", "/repos/octo/repo/statuses/"), 3);
	assert_int_equal(cJSON_GetArraySize(comments(log, "octo/repo/7")), 1);
	cJSON_Delete(log);
	github_http_free(http);
}

static void test_github__persistent_500_fails_after_bounded_tries(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options(NULL);
	struct github_publish_result res;
	struct err err = ERR_INIT;
	cJSON *log;

	o.pr_number = 0;
	scenario(s, TOKENS ", \"faults\": [{\"method\": \"POST\", \"path\": \".*/statuses/.*\", "
			   "\"status\": 500, \"count\": 100, \"body\": {\"message\": \"boom\"}}]");
	http = client(s, TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), ERR_EXEC);
	assert_string_equal(err.msg, "github: POST /repos/octo/repo/statuses/" SHA
				     ": 500 Internal Server Error: boom");
	assert_int_equal(res.read_only, 0);
	assert_int_equal(res.status_posted, 0);
	log = server_log(s);
	assert_int_equal(count_requests(log, "POST", "/repos/octo/repo/statuses/"), 4);
	cJSON_Delete(log);
	github_http_free(http);
}

static void test_github__read_only_403_is_its_own_outcome(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("fork");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	cJSON *log;

	scenario(s, TOKENS);
	http = client(s, RO_TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), ERR_EXEC);
	assert_int_equal(res.read_only, 1);
	assert_string_equal(err.msg, "github: POST /repos/octo/repo/issues/7/comments: 403 "
				     "Forbidden: Resource not accessible by integration");
	log = server_log(s);
	/* Not retried: a read-only answer does not change by asking again. */
	assert_int_equal(count_requests(log, "POST", "/"), 1);
	cJSON_Delete(log);
	github_http_free(http);
}

static void test_github__404_on_status_is_read_only(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options(NULL);
	struct github_publish_result res;
	struct err err = ERR_INIT;

	o.pr_number = 0;
	scenario(s, TOKENS ", \"faults\": [{\"method\": \"POST\", \"path\": \".*/statuses/.*\", "
			   "\"status\": 404, \"body\": {\"message\": \"Not Found\"}}]");
	http = client(s, TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), ERR_EXEC);
	assert_int_equal(res.read_only, 1);
	assert_string_equal(err.msg, "github: POST /repos/octo/repo/statuses/" SHA
				     ": 404 Not Found: Not Found");
	github_http_free(http);
}

static void test_github__422_is_an_error_with_the_message(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("x");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	char *issue = seeded_issue(1, 0, "perf-bot", "User");
	char *fields =
		xasprintf(TOKENS ", %s, \"faults\": [{\"method\": \"PATCH\", \"status\": "
				 "422, \"body\": {\"message\": \"Validation Failed\", \"errors\": "
				 "[]}}]",
			  issue);

	scenario(s, fields);
	http = client(s, TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), ERR_EXEC);
	assert_int_equal(res.read_only, 0);
	assert_string_equal(err.msg, "github: PATCH /repos/octo/repo/issues/comments/1001: 422 "
				     "Unprocessable Entity: Validation Failed");
	assert_null(strstr(err.msg, TOKEN));
	github_http_free(http);
	free(fields);
	free(issue);
}

static void test_github__token_only_in_the_authorization_header(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("body mentions nothing secret");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	const cJSON *r;
	cJSON *log;
	int n = 0;

	scenario(s, TOKENS ", \"faults\": [{\"method\": \"GET\", \"path\": \".*/comments\", "
			   "\"status\": 500}, {\"method\": \"POST\", \"path\": \".*/statuses/.*\", "
			   "\"status\": 500, \"count\": 9}]");
	http = client(s, TOKEN, "");
	assert_int_equal(github_publish(http, &o, &res, &err), ERR_EXEC);
	assert_null(strstr(err.msg, TOKEN));
	log = server_log(s);
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(log, "requests"))
	{
		const cJSON *h;

		n++;
		assert_null(strstr(cJSON_GetObjectItem(r, "path")->valuestring, TOKEN));
		assert_null(strstr(cJSON_GetObjectItem(r, "body")->valuestring, TOKEN));
		cJSON_ArrayForEach(h, cJSON_GetObjectItem(r, "headers"))
		{
			if (!strcasecmp(h->string, "Authorization"))
				assert_string_equal(h->valuestring, "Bearer " TOKEN);
			else
				assert_null(strstr(h->valuestring, TOKEN));
		}
	}
	assert_int_equal(n, 9); /* user, list twice (one 500), post, list, status 4 tries */
	cJSON_Delete(log);
	github_http_free(http);
}

static void test_github__base_url_must_be_https_or_loopback(void **state)
{
	static const struct {
		const char *url;
		int rc;
		const char *base_or_msg;
	} cases[] = {
		{ NULL, 0, "https://api.github.com" },
		{ "https://ghe.example/api/v3/", 0, "https://ghe.example/api/v3" },
		{ "http://127.0.0.1:8080", 0, "http://127.0.0.1:8080" },
		{ "http://127.45.6.7", 0, "http://127.45.6.7" },
		{ "http://localhost:1/api/v3", 0, "http://localhost:1/api/v3" },
		{ "http://[::1]:9", 0, "http://[::1]:9" },
		{ "http://api.github.com", ERR_USAGE,
		  "github: GITHUB_API_URL \"http://api.github.com\" is refused: it must be https "
		  "(plain http only to a loopback host)" },
		{ "http://128.0.0.1", ERR_USAGE,
		  "github: GITHUB_API_URL \"http://128.0.0.1\" is refused: it must be https (plain "
		  "http only to a loopback host)" },
		{ "http://127.0.0.1.evil.example", ERR_USAGE,
		  "github: GITHUB_API_URL \"http://127.0.0.1.evil.example\" is refused: it must be "
		  "https (plain http only to a loopback host)" },
		{ "http://127.0.0.1@evil.example", ERR_USAGE,
		  "github: GITHUB_API_URL \"http://127.0.0.1@evil.example\" must not carry "
		  "credentials, a query or a fragment" },
		{ "ftp://127.0.0.1", ERR_USAGE,
		  "github: GITHUB_API_URL \"ftp://127.0.0.1\" is refused: it must be https (plain "
		  "http only to a loopback host)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct github_http_options o = GITHUB_HTTP_OPTIONS_INIT;
		struct github_http *http = NULL;
		struct err err = ERR_INIT;

		o.api_url = cases[i].url;
		o.token = TOKEN;
		assert_int_equal(github_http_new(&http, &o, &err), cases[i].rc);
		if (cases[i].rc)
			assert_string_equal(err.msg, cases[i].base_or_msg);
		else
			assert_string_equal(github_http_base_url(http), cases[i].base_or_msg);
		github_http_free(http);
	}
}

static void test_github__token_is_required_and_picked_from_env_values(void **state)
{
	struct github_http_options o = GITHUB_HTTP_OPTIONS_INIT;
	struct github_http *http = NULL;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(github_http_new(&http, &o, &err), ERR_USAGE);
	assert_string_equal(err.msg, "github: no token: set GITHUB_TOKEN (or the action's "
				     "github-token input)");
	assert_null(http);
	o.token = "a b";
	assert_int_equal(github_http_new(&http, &o, &err), ERR_USAGE);
	assert_null(strstr(err.msg, "a b"));
	assert_string_equal(github_http_pick_token("x", "y"), "x");
	assert_string_equal(github_http_pick_token("", "y"), "y");
	assert_null(github_http_pick_token(NULL, ""));
}

static void test_github__enterprise_prefix_and_pagination(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("ghes");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	char *issue = seeded_issue(150, 120, "perf-bot", "User");
	char *fields = xasprintf(TOKENS ", %s", issue);
	cJSON *log;

	scenario(s, fields);
	http = client(s, TOKEN, "/api/v3");
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	assert_int_equal(res.action, GITHUB_COMMENT_UPDATED);
	log = server_log(s);
	assert_int_equal(count_requests(log, "GET",
					"/api/v3/repos/octo/repo/issues/7/comments?"
					"per_page=100&page=2"),
			 2);
	assert_int_equal(count_requests(log, "PATCH", "/api/v3/repos/octo/repo/issues/comments/"),
			 1);
	cJSON_Delete(log);
	github_http_free(http);
	free(fields);
	free(issue);
}

static void test_github__next_link_to_another_origin_is_not_followed(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_response resp;
	struct err err = ERR_INIT;
	cJSON *log;

	scenario(s,
		 TOKENS ", \"faults\": [{\"method\": \"GET\", \"status\": 200, \"body\": [], "
			"\"headers\": {\"Link\": \"<http://evil.example/repos/octo/repo/issues/7/"
			"comments?page=2>; rel=\\\"next\\\"\"}}]");
	http = client(s, TOKEN, "");
	github_response_init(&resp);
	assert_int_equal(github_http_request(http, "GET", "/repos/octo/repo/issues/7/comments",
					     NULL, &resp, &err),
			 0);
	assert_int_equal(resp.status, 200);
	assert_null(resp.next_path);
	log = server_log(s);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(log, "requests")), 1);
	cJSON_Delete(log);
	github_response_release(&resp);
	github_http_free(http);
}

static void test_github__oversized_response_is_refused(void **state)
{
	struct server *s = *state;
	struct github_http_options o = GITHUB_HTTP_OPTIONS_INIT;
	struct github_http *http = NULL;
	struct github_response resp;
	struct err err = ERR_INIT;
	char *url = xasprintf("http://127.0.0.1:%d", s->port);
	char *issue = seeded_issue(20, -1, "x", "User");
	char *fields = xasprintf(TOKENS ", %s", issue);

	scenario(s, fields);
	o.api_url = url;
	o.token = TOKEN;
	o.max_body_bytes = 256;
	assert_int_equal(github_http_new(&http, &o, &err), 0);
	github_response_init(&resp);
	assert_int_equal(github_http_request(http, "GET", "/repos/octo/repo/issues/7/comments",
					     NULL, &resp, &err),
			 ERR_EXEC);
	assert_string_equal(err.msg, "github: GET /repos/octo/repo/issues/7/comments: response "
				     "larger than 256 bytes");
	github_response_release(&resp);
	github_http_free(http);
	free(fields);
	free(issue);
	free(url);
}

static void test_github__long_body_is_cut_visibly(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct strbuf body, out;
	struct github_publish_options o;
	struct github_publish_result res;
	struct err err = ERR_INIT;
	const char *text;
	cJSON *log;
	size_t n;
	int i;

	strbuf_init(&body, 0);
	strbuf_adds(&body, "```mermaid\n");
	for (i = 0; i < 2000; i++)
		strbuf_addf(&body, "line %04d ééééééééééééééééééééééé\n", i);
	strbuf_init(&out, 0);
	assert_int_equal(github_comment_body("bench", body.buf, &out, &err), 0);
	assert_true(out.len <= GITHUB_COMMENT_MAX_BYTES);
	n = strlen("\n```\n\n" GITHUB_CUT_NOTE "\n");
	assert_string_equal(out.buf + out.len - n, "\n```\n\n" GITHUB_CUT_NOTE "\n");
	assert_int_equal(strncmp(out.buf, MARKER "\n```mermaid\nline 0000 ", 55), 0);
	strbuf_release(&out);

	scenario(s, TOKENS);
	http = client(s, TOKEN, "");
	o = pr_options(body.buf);
	o.sha = NULL;
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	log = server_log(s);
	text = cJSON_GetObjectItem(cJSON_GetArrayItem(comments(log, "octo/repo/7"), 0), "body")
		       ->valuestring;
	assert_true(strlen(text) <= GITHUB_COMMENT_MAX_BYTES);
	assert_non_null(strstr(text, GITHUB_CUT_NOTE));
	cJSON_Delete(log);
	github_http_free(http);
	strbuf_release(&body);
}

static void test_github__short_body_keeps_a_given_marker(void **state)
{
	struct strbuf out;
	struct err err = ERR_INIT;

	(void)state;
	strbuf_init(&out, 0);
	assert_int_equal(github_comment_body("bench", MARKER "\nbody", &out, &err), 0);
	assert_string_equal(out.buf, MARKER "\nbody");
	strbuf_reset(&out);
	assert_int_equal(github_comment_body("a,b", "body", &out, &err), 0);
	assert_string_equal(out.buf, "<!-- himorime:comment v1 suite=a,b -->\nbody");
	strbuf_release(&out);
}

static void test_github__marker_encodes_any_name(void **state)
{
	static const struct {
		const char *key, *marker;
	} cases[] = {
		{ "my benchmarks", "<!-- himorime:comment v1 suite=my%20benchmarks -->" },
		{ "R\xc3\xa9sum\xc3\xa9", "<!-- himorime:comment v1 suite=R%C3%A9sum%C3%A9 -->" },
		{ "x --> y", "<!-- himorime:comment v1 suite=x%20-%2D%3E%20y -->" },
		{ "100%", "<!-- himorime:comment v1 suite=100%25 -->" },
		{ "a\n::error::b", "<!-- himorime:comment v1 suite=a%0A::error::b -->" },
		{ "my-bench,b.c", "<!-- himorime:comment v1 suite=my-bench,b.c -->" },
	};
	struct strbuf out;
	struct err err = ERR_INIT;
	char *long_key;
	size_t i;

	(void)state;
	strbuf_init(&out, 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		strbuf_reset(&out);
		assert_int_equal(github_comment_marker(cases[i].key, &out, &err), 0);
		assert_string_equal(out.buf, cases[i].marker);
	}
	assert_int_equal(github_comment_marker("", &out, &err), ERR_USAGE);
	assert_string_equal(err.msg, "github: a suite selection of 1 to 4096 bytes goes in a "
				     "comment marker, got 0");
	long_key = xcalloc(GITHUB_MARKER_MAX_BYTES + 2, 1);
	memset(long_key, 'a', GITHUB_MARKER_MAX_BYTES + 1);
	assert_int_equal(github_comment_marker(long_key, &out, &err), ERR_USAGE);
	free(long_key);
	strbuf_release(&out);
}

static void test_github__status_description_fits_140_characters(void **state)
{
	struct strbuf out;
	struct strbuf in;
	size_t points = 0;
	const unsigned char *p;
	int i;

	(void)state;
	strbuf_init(&in, 0);
	strbuf_init(&out, 0);
	for (i = 0; i < 200; i++)
		strbuf_adds(&in, "é");
	github_status_description(in.buf, &out);
	for (p = (const unsigned char *)out.buf; *p; p++)
		points += (*p & 0xc0) != 0x80;
	assert_int_equal(points, 140);
	assert_string_equal(out.buf + out.len - strlen("é…"), "é…");
	strbuf_reset(&out);
	github_status_description("two\nlines\tand \xff", &out);
	assert_string_equal(out.buf, "two lines and ?");
	strbuf_reset(&in);
	strbuf_reset(&out);
	for (i = 0; i < 140; i++)
		strbuf_addch(&in, 'x');
	github_status_description(in.buf, &out);
	assert_string_equal(out.buf, in.buf);
	strbuf_release(&in);
	strbuf_release(&out);
}

static void test_github__dry_run_sends_nothing(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("dry");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	struct strbuf plan;
	cJSON *log;

	scenario(s, TOKENS);
	http = client(s, TOKEN, "");
	strbuf_init(&plan, 0);
	o.dry_run = &plan;
	assert_int_equal(github_publish(http, &o, &res, &err), 0);
	assert_string_equal(
		plan.buf,
		"GET /user\n"
		"GET /repos/octo/repo/issues/7/comments?per_page=100 (every page)\n"
		"PATCH /repos/octo/repo/issues/comments/{id} of our comment, or POST "
		"/repos/octo/repo/issues/7/comments if there is none: body of 44 bytes\n"
		"GET /repos/octo/repo/issues/7/comments?per_page=100 (every page), then DELETE "
		"older duplicates of ours\n"
		"POST /repos/octo/repo/statuses/" SHA " {\"state\":\"failure\",\"target_url\":"
		"\"https://github.com/octo/repo/actions/runs/42\",\"description\":\"1 regression, "
		"4 "
		"pass\",\"context\":\"himorime\"}\n");
	assert_int_equal(res.action, GITHUB_COMMENT_NONE);
	log = server_log(s);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(log, "requests")), 0);
	cJSON_Delete(log);
	strbuf_release(&plan);
	github_http_free(http);
}

static void test_github__bad_inputs_are_refused_before_sending(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_publish_options o = pr_options("x");
	struct github_publish_result res;
	struct err err = ERR_INIT;
	char *url;
	cJSON *log;

	scenario(s, TOKENS);
	http = client(s, TOKEN, "");
	o.repository = "octo/repo/../x";
	assert_int_equal(github_publish(http, &o, &res, &err), ERR_USAGE);
	assert_string_equal(err.msg, "github: repository \"octo/repo/../x\" is not \"owner/name\"");
	o = pr_options("x");
	o.sha = "main";
	assert_int_equal(github_publish(http, &o, &res, &err), ERR_USAGE);
	assert_string_equal(err.msg, "github: \"main\" is not a commit sha");
	log = server_log(s);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(log, "requests")), 0);
	cJSON_Delete(log);
	github_http_free(http);
	url = github_run_url("https://github.com/", "octo/repo", "42");
	assert_string_equal(url, "https://github.com/octo/repo/actions/runs/42");
	free(url);
	assert_null(github_run_url("https://github.com", "octo/repo", "4 2"));
	assert_null(github_run_url(NULL, "octo/repo", "42"));
}

static void test_github__workflow_run_fork_finds_pull_request(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_event ev;
	struct err err = ERR_INIT;
	char *json = NULL;
	size_t len;

	scenario(s, TOKENS
		 ", \"pulls\": {\"octo/repo/" SHA "\": ["
		 "{\"number\": 3, \"head\": {\"sha\": \"" SHA "\", \"repo\": {\"full_name\": "
		 "\"someone/repo\"}}, \"base\": {\"repo\": {\"full_name\": \"octo/repo\"}}},"
		 "{\"number\": 12, \"head\": {\"sha\": \"" SHA "\", \"repo\": {\"full_name\": "
		 "\"forker/repo\"}}, \"base\": {\"repo\": {\"full_name\": \"octo/repo\"}}}]}");
	http = client(s, TOKEN, "");
	github_event_init(&ev);
	assert_int_equal(fsio_read_file("tests/data/events/workflow_run_fork.json", 1 << 20, &json,
					&len, &err),
			 0);
	assert_int_equal(github_event_parse(&ev, "workflow_run", json, len, NULL, &err), 0);
	assert_int_equal(ev.pr_number, 0);
	assert_int_equal(github_event_find_pr(http, &ev, &err), 0);
	assert_int_equal(ev.pr_number, 12);
	github_event_release(&ev);
	free(json);
	github_http_free(http);
}

static void test_github__fork_pull_request_found_among_open_ones(void **state)
{
	struct server *s = *state;
	struct github_http *http;
	struct github_event ev;
	struct err err = ERR_INIT;
	struct strbuf fields;
	char *json = NULL;
	size_t len;
	cJSON *log;
	int i;

	strbuf_init(&fields, 0);
	strbuf_adds(&fields, TOKENS ", \"pulls\": {\"octo/repo/open\": [");
	for (i = 1; i <= 130; i++)
		strbuf_addf(&fields,
			    "{\"number\": %d, \"head\": {\"sha\": \"%s\", \"repo\": "
			    "{\"full_name\": \"%s\"}}, \"base\": {\"repo\": {\"full_name\": "
			    "\"octo/repo\"}}}%s",
			    i, i == 117 ? SHA : "1111111111111111111111111111111111111111",
			    i == 117 ? "forker/repo" : "octo/repo", i < 130 ? ", " : "");
	strbuf_adds(&fields, "]}");
	scenario(s, fields.buf);
	http = client(s, TOKEN, "");
	github_event_init(&ev);
	assert_int_equal(fsio_read_file("tests/data/events/workflow_run_fork.json", 1 << 20, &json,
					&len, &err),
			 0);
	assert_int_equal(github_event_parse(&ev, "workflow_run", json, len, NULL, &err), 0);
	assert_int_equal(github_event_find_pr(http, &ev, &err), 0);
	assert_int_equal(ev.pr_number, 117);
	log = server_log(s);
	assert_int_equal(count_requests(log, "GET", "/repos/octo/repo/commits/" SHA "/pulls"), 1);
	assert_int_equal(count_requests(log, "GET", "/repos/octo/repo/pulls?"), 2);
	cJSON_Delete(log);

	scenario(s, TOKENS);
	ev.pr_number = 0;
	assert_int_equal(github_event_find_pr(http, &ev, &err), ERR_INVALID);
	assert_string_equal(err.msg, "github: no pull request of \"octo/repo\" has head " SHA
				     " from \"forker/repo\"");
	github_event_release(&ev);
	free(json);
	strbuf_release(&fields);
	github_http_free(http);
}

static void test_github__unreachable_server_is_an_error_after_tries(void **state)
{
	struct github_http_options o = GITHUB_HTTP_OPTIONS_INIT;
	struct github_http *http = NULL;
	struct github_response resp;
	struct err err = ERR_INIT;

	(void)state;
	o.api_url = "http://127.0.0.1:1";
	o.token = TOKEN;
	o.max_tries = 2;
	o.backoff_ns = 1000000;
	assert_int_equal(github_http_new(&http, &o, &err), 0);
	github_response_init(&resp);
	assert_int_equal(github_http_request(http, "GET", "/user", NULL, &resp, &err), ERR_EXEC);
	assert_string_equal(err.msg,
			    "github: GET /user: Couldn't connect to server (after 2 tries)");
	assert_int_equal(resp.status, 0);
	github_response_release(&resp);
	github_http_free(http);
}

/* A server-given wait longer than the client may wait in total ends the
 * retries at once: the header is read, not replaced by the short backoff. */
static void test_github__rate_limit_headers_are_honoured(void **state)
{
	static const char *faults[] = {
		"{\"path\": \"/user\", \"status\": 429, \"count\": 9, \"headers\": "
		"{\"retry-after\": \"100\"}}",
		"{\"path\": \"/user\", \"status\": 403, \"count\": 9, \"headers\": "
		"{\"x-ratelimit-remaining\": \"0\", \"x-ratelimit-reset\": \"99999999999\"}, "
		"\"body\": {\"message\": \"API rate limit exceeded\"}}",
		"{\"path\": \"/user\", \"status\": 429, \"count\": 9}",
	};
	static const int tries[] = { 1, 1, 4 };
	struct server *s = *state;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(faults); i++) {
		struct github_http_options o = GITHUB_HTTP_OPTIONS_INIT;
		struct github_http *http = NULL;
		struct github_response resp;
		struct err err = ERR_INIT;
		char *url = xasprintf("http://127.0.0.1:%d", s->port);
		char *fields = xasprintf(TOKENS ", \"faults\": [%s]", faults[i]);
		cJSON *log;

		scenario(s, fields);
		o.api_url = url;
		o.token = TOKEN;
		o.max_total_wait_ns = 1000000000;
		o.backoff_ns = 1000000;
		assert_int_equal(github_http_new(&http, &o, &err), 0);
		github_response_init(&resp);
		assert_int_equal(github_http_request(http, "GET", "/user", NULL, &resp, &err),
				 ERR_EXEC);
		assert_true(resp.rate_limited);
		log = server_log(s);
		assert_int_equal(count_requests(log, "GET", "/user"), tries[i]);
		cJSON_Delete(log);
		github_response_release(&resp);
		github_http_free(http);
		free(fields);
		free(url);
	}
}

/* The library is opened by the path given: one that is not a library, or
 * lacks a function himorime calls, is refused by name, and the working
 * directory is the same afterwards. */
static void test_github__libcurl_is_loaded_by_path_or_refused(void **state)
{
	struct server *s = *state;
	char *empty = xasprintf("%s/libcurl.so.4", s->dir), *src = xasprintf("%s/half.c", s->dir);
	char *half = xasprintf("%s/half.so", s->dir), *cmd, *want, *before, *after;
	static const char text[] = "int curl_global_init(long flags) { return (int)flags; }\n";
	struct curl_api api;
	struct err err = ERR_INIT;

	(void)state;
	before = getcwd(NULL, 0);
	assert_int_equal(fsio_write_atomic(empty, "", 0, &err), 0);
	assert_int_equal(curl_api_open(empty, &api, &err), ERR_EXEC);
	want = xasprintf("github: cannot load %s: %s: file too short", empty, empty);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(fsio_write_atomic(src, text, strlen(text), &err), 0);
	cmd = xasprintf("cc -shared -fPIC -o '%s' '%s'", half, src);
	assert_int_equal(WEXITSTATUS(system(cmd)), 0);
	assert_int_equal(curl_api_open(half, &api, &err), ERR_EXEC);
	want = xasprintf("github: cannot load %s: it has no curl_global_cleanup", half);
	assert_string_equal(err.msg, want);
	after = getcwd(NULL, 0);
	assert_string_equal(before, after);
	free(want);
	free(cmd);
	free(before);
	free(after);
	free(half);
	free(src);
	free(empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github__first_publish_creates_comment_and_status),
		cmocka_unit_test(test_github__second_publish_updates_comment_on_third_page),
		cmocka_unit_test(test_github__race_between_list_and_post_ends_with_one_comment),
		cmocka_unit_test(test_github__marker_in_someone_elses_comment_is_left_alone),
		cmocka_unit_test(test_github__installation_token_acts_as_the_actions_bot),
		cmocka_unit_test(test_github__transient_failures_are_retried),
		cmocka_unit_test(test_github__persistent_500_fails_after_bounded_tries),
		cmocka_unit_test(test_github__rate_limit_headers_are_honoured),
		cmocka_unit_test(test_github__read_only_403_is_its_own_outcome),
		cmocka_unit_test(test_github__404_on_status_is_read_only),
		cmocka_unit_test(test_github__422_is_an_error_with_the_message),
		cmocka_unit_test(test_github__token_only_in_the_authorization_header),
		cmocka_unit_test(test_github__base_url_must_be_https_or_loopback),
		cmocka_unit_test(test_github__token_is_required_and_picked_from_env_values),
		cmocka_unit_test(test_github__enterprise_prefix_and_pagination),
		cmocka_unit_test(test_github__next_link_to_another_origin_is_not_followed),
		cmocka_unit_test(test_github__oversized_response_is_refused),
		cmocka_unit_test(test_github__long_body_is_cut_visibly),
		cmocka_unit_test(test_github__short_body_keeps_a_given_marker),
		cmocka_unit_test(test_github__marker_encodes_any_name),
		cmocka_unit_test(test_github__status_description_fits_140_characters),
		cmocka_unit_test(test_github__dry_run_sends_nothing),
		cmocka_unit_test(test_github__bad_inputs_are_refused_before_sending),
		cmocka_unit_test(test_github__workflow_run_fork_finds_pull_request),
		cmocka_unit_test(test_github__fork_pull_request_found_among_open_ones),
		cmocka_unit_test(test_github__unreachable_server_is_an_error_after_tries),
		cmocka_unit_test(test_github__libcurl_is_loaded_by_path_or_refused),
	};
	return cmocka_run_group_tests(tests, server_start, server_stop);
}
