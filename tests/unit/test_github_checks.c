/*
 * Unit tests of the check run's pure parts (github/checks.h): its name from
 * the suites, the cut of a summary or text under the API's limit, the
 * conclusions' names, and the options refused before any request. The
 * requests themselves are checked end to end against the fake API
 * (tests/cli/test_checks.py).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "github/checks.h"
#include "github/publish.h"

#include <stdlib.h>
#include <string.h>

static void test_github_checks__name_of_one_or_several_suites(void **state)
{
	const char *one[] = { "bench" };
	const char *two[] = { "io", "net\twork" };
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 0);
	github_check_name(one, 1, &sb);
	assert_string_equal(sb.buf, "himorime");
	strbuf_reset(&sb);
	github_check_name(NULL, 0, &sb);
	assert_string_equal(sb.buf, "himorime");
	strbuf_reset(&sb);
	github_check_name(two, 2, &sb);
	assert_string_equal(sb.buf, "himorime (io, net work)");
	strbuf_release(&sb);
}

static void test_github_checks__long_names_are_cut_on_a_character(void **state)
{
	const char *names[] = { "é", NULL };
	char *long_name = xcalloc(301, 1);
	struct strbuf sb;
	const char *inner;

	(void)state;
	memset(long_name, 'a', 300);
	long_name[0] = 'x';
	names[1] = long_name;
	strbuf_init(&sb, 0);
	github_check_name(names, 2, &sb);
	inner = sb.buf + strlen("himorime (");
	/* 99 characters, then the ellipsis, then the closing parenthesis */
	assert_int_equal(strlen(inner), strlen("é, x") + 95 + strlen("…)"));
	assert_true(strncmp(inner, "é, xaaa", strlen("é, xaaa")) == 0);
	assert_string_equal(sb.buf + sb.len - strlen("a…)"), "a…)");
	strbuf_release(&sb);
	free(long_name);
}

static void test_github_checks__cut_closes_fences_and_details(void **state)
{
	struct strbuf text, out;
	int i;

	(void)state;
	strbuf_init(&text, 0);
	strbuf_init(&out, 0);
	github_check_cut("short\n", 10, &out);
	assert_string_equal(out.buf, "short\n");
	strbuf_reset(&out);
	strbuf_adds(&text, "<details>\n<summary>x</summary>\n\n```\n");
	for (i = 0; i < 2000; i++)
		strbuf_addf(&text, "line %d of a long stderr tail\n", i);
	github_check_cut(text.buf, 4096, &out);
	assert_true(out.len <= 4096);
	assert_string_equal(out.buf + out.len -
				    strlen("```\n\n</details>\n\n" GITHUB_CUT_NOTE "\n"),
			    "```\n\n</details>\n\n" GITHUB_CUT_NOTE "\n");
	/* cut after a whole line */
	assert_non_null(strstr(out.buf, " tail\n```\n\n</details>"));
	strbuf_release(&text);
	strbuf_release(&out);
}

/* A single line longer than the cap is cut on a character, not dropped. */
static void test_github_checks__one_long_line_is_cut_on_a_character(void **state)
{
	struct strbuf text, out;
	int i;

	(void)state;
	strbuf_init(&text, 0);
	strbuf_init(&out, 0);
	for (i = 0; i < 1000; i++)
		strbuf_adds(&text, "é");
	github_check_cut(text.buf, 1001, &out);
	/* 1001 - 512 is 489: 244 two-byte characters fit in 488 */
	assert_int_equal(out.len, 488 + strlen("\n" GITHUB_CUT_NOTE "\n"));
	assert_true(strncmp(out.buf + 486, "é\n", 3) == 0);
	strbuf_release(&text);
	strbuf_release(&out);
}

static void test_github_checks__conclusions_are_githubs_names(void **state)
{
	(void)state;
	assert_string_equal(github_conclusion_name(GITHUB_CONCLUSION_SUCCESS), "success");
	assert_string_equal(github_conclusion_name(GITHUB_CONCLUSION_NEUTRAL), "neutral");
	assert_string_equal(github_conclusion_name(GITHUB_CONCLUSION_FAILURE), "failure");
}

/* Bad options are refused before anything is sent: no client is needed. */
static void test_github_checks__bad_options_are_refused_first(void **state)
{
	struct github_check_options o = GITHUB_CHECK_OPTIONS_INIT;
	struct github_check_result res;
	struct err err = ERR_INIT;

	(void)state;
	o.repository = "octo/repo";
	o.sha = "not-a-sha";
	o.selection = "bench";
	assert_int_equal(github_check_finish(NULL, &o, NULL, &res, &err), ERR_USAGE);
	assert_string_equal(err.msg, "github: \"not-a-sha\" is not a commit sha");
	o.sha = "0123456789abcdef0123456789abcdef01234567";
	o.repository = "octo";
	assert_int_equal(github_check_start(NULL, &o, &res, &err), ERR_USAGE);
	assert_string_equal(err.msg, "github: repository \"octo\" is not \"owner/name\"");
	o.repository = "octo/repo";
	o.selection = "";
	assert_int_equal(github_check_start(NULL, &o, &res, &err), ERR_USAGE);
	assert_string_equal(err.msg, "github: a check run needs a name and a selection");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github_checks__name_of_one_or_several_suites),
		cmocka_unit_test(test_github_checks__long_names_are_cut_on_a_character),
		cmocka_unit_test(test_github_checks__cut_closes_fences_and_details),
		cmocka_unit_test(test_github_checks__one_long_line_is_cut_on_a_character),
		cmocka_unit_test(test_github_checks__conclusions_are_githubs_names),
		cmocka_unit_test(test_github_checks__bad_options_are_refused_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
