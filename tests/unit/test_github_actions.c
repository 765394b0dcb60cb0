/*
 * Unit tests of workflow commands: exact escaping, annotations, masks,
 * stop-commands tokens, GITHUB_OUTPUT heredoc delimiters and the 1 MiB cap on
 * the step summary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "github/actions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_hex_run(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]) || !s[i])
			return 0;
	return 1;
}

static void test_github_actions__escaping_is_exact(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 0);
	github_actions_escape_data("100% a:b,c\r\nnext", &sb);
	assert_string_equal(sb.buf, "100%25 a:b,c%0D%0Anext");
	strbuf_reset(&sb);
	github_actions_escape_property("100% a:b,c\r\nnext", &sb);
	assert_string_equal(sb.buf, "100%25 a%3Ab%2Cc%0D%0Anext");
	strbuf_release(&sb);
}

static void test_github_actions__annotation(void **state)
{
	struct github_annotation a = { GITHUB_ANNOTATION_ERROR, "bench/suite.yml", 12,
				       "himorime: performance regression",
				       "parse › parser: latency +16.3%\n(+12.1% … +20.4%)" };
	struct github_annotation b = { GITHUB_ANNOTATION_NOTICE, NULL, 0, NULL, "::set-env x" };
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 0);
	github_actions_annotation(&a, &sb);
	assert_string_equal(sb.buf, "::error file=bench/suite.yml,line=12,title=himorime%3A "
				    "performance regression::parse › parser: latency "
				    "+16.3%25%0A(+12.1%25 … +20.4%25)\n");
	strbuf_reset(&sb);
	github_actions_annotation(&b, &sb);
	assert_string_equal(sb.buf, "::notice::::set-env x\n");
	strbuf_reset(&sb);
	a.level = GITHUB_ANNOTATION_WARNING;
	a.file = NULL;
	github_actions_annotation(&a, &sb);
	assert_int_equal(strncmp(sb.buf, "::warning line=12,title=himorime%3A", 35), 0);
	strbuf_reset(&sb);
	github_actions_add_mask("s3cr%t\n", &sb);
	assert_string_equal(sb.buf, "::add-mask::s3cr%25t%0A\n");
	strbuf_release(&sb);
}

static void test_github_actions__stop_commands_wraps_output(void **state)
{
	struct rng rng;
	struct strbuf sb;
	const char *text = "::add-mask::x\n::error::injected";
	char token[GITHUB_TOKEN_HEX + 1];
	char *tail;

	(void)state;
	rng_init(&rng, 7, "test");
	strbuf_init(&sb, 0);
	github_actions_quote_output(&rng, text, &sb);
	assert_int_equal(strncmp(sb.buf, "::stop-commands::", 17), 0);
	assert_true(is_hex_run(sb.buf + 17, GITHUB_TOKEN_HEX));
	memcpy(token, sb.buf + 17, GITHUB_TOKEN_HEX);
	token[GITHUB_TOKEN_HEX] = '\0';
	assert_int_equal(sb.buf[17 + GITHUB_TOKEN_HEX], '\n');
	assert_int_equal(strncmp(sb.buf + 18 + GITHUB_TOKEN_HEX, text, strlen(text)), 0);
	tail = xasprintf("\n::%s::\n", token);
	assert_string_equal(sb.buf + sb.len - strlen(tail), tail);
	assert_int_equal(sb.len, 17 + GITHUB_TOKEN_HEX + 1 + strlen(text) + strlen(tail));
	free(tail);
	strbuf_release(&sb);
}

static void test_github_actions__output_uses_random_heredoc_delimiter(void **state)
{
	struct rng rng;
	struct strbuf sb;
	struct err err = ERR_INIT;
	const char *d;
	size_t dn = strlen("ghadelimiter_") + GITHUB_TOKEN_HEX;
	char *expect;

	(void)state;
	rng_init(&rng, 11, "test");
	strbuf_init(&sb, 0);
	assert_int_equal(github_actions_output(&rng, "report", "line 1\nline 2", &sb, &err), 0);
	assert_int_equal(strncmp(sb.buf, "report<<ghadelimiter_", 21), 0);
	d = sb.buf + strlen("report<<");
	assert_true(is_hex_run(d + 13, GITHUB_TOKEN_HEX));
	assert_int_equal(d[dn], '\n');
	expect = xasprintf("report<<%.*s\nline 1\nline 2\n%.*s\n", (int)dn, d, (int)dn, d);
	assert_string_equal(sb.buf, expect);
	free(expect);
	strbuf_reset(&sb);
	assert_int_equal(github_actions_output(&rng, "a\nb", "x", &sb, &err), ERR_USAGE);
	assert_string_equal(err.msg, "github: output name \"a\\nb\" is not valid");
	assert_int_equal(github_actions_output(&rng, "a<<b", "x", &sb, &err), ERR_USAGE);
	assert_int_equal(github_actions_output(&rng, "", "x", &sb, &err), ERR_USAGE);
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

static void test_github_actions__output_and_summary_files(void **state)
{
	struct rng rng;
	struct err err = ERR_INIT;
	struct strbuf big;
	char *dir = NULL, *out_path, *sum_path, *text = NULL;
	size_t len = 0;
	int i;

	(void)state;
	rng_init(&rng, 3, "test");
	assert_int_equal(fsio_mkdtemp("himorime-gha-", &dir, &err), 0);
	out_path = xasprintf("%s/output", dir);
	sum_path = xasprintf("%s/summary", dir);
	assert_int_equal(github_actions_output_append(out_path, &rng, "result", "pass", &err), 0);
	assert_int_equal(github_actions_output_append(out_path, &rng, "exit-code", "0", &err), 0);
	assert_int_equal(fsio_read_file(out_path, 4096, &text, &len, &err), 0);
	assert_int_equal(len, 2 * (strlen("<<\n\n") + 2 * (13 + GITHUB_TOKEN_HEX) + 1) +
				      strlen("resultpass") + strlen("exit-code0"));
	free(text);

	assert_int_equal(github_actions_summary_append(sum_path, "# one\n", &err), 0);
	strbuf_init(&big, 0);
	for (i = 0; i < 60000; i++)
		strbuf_addf(&big, "| row %05d | value |\n", i);
	assert_true(big.len > GITHUB_SUMMARY_MAX_BYTES);
	assert_int_equal(github_actions_summary_append(sum_path, big.buf, &err), 0);
	assert_int_equal(fsio_read_file(sum_path, 2 << 20, &text, &len, &err), 0);
	assert_true(len <= GITHUB_SUMMARY_MAX_BYTES);
	assert_true(len > GITHUB_SUMMARY_MAX_BYTES - 100);
	assert_int_equal(strncmp(text, "# one\n| row 00000 |", 19), 0);
	assert_string_equal(text + len -
				    strlen("|\n\n… cut: the step summary is limited to 1 MiB\n"),
			    "|\n\n… cut: the step summary is limited to 1 MiB\n");
	free(text);
	/* Full: a further append adds nothing. */
	assert_int_equal(github_actions_summary_append(sum_path, big.buf, &err), 0);
	assert_int_equal(fsio_read_file(sum_path, 2 << 20, &text, &len, &err), 0);
	assert_true(len <= GITHUB_SUMMARY_MAX_BYTES);
	free(text);
	strbuf_release(&big);
	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	free(sum_path);
	free(out_path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github_actions__escaping_is_exact),
		cmocka_unit_test(test_github_actions__annotation),
		cmocka_unit_test(test_github_actions__stop_commands_wraps_output),
		cmocka_unit_test(test_github_actions__output_uses_random_heredoc_delimiter),
		cmocka_unit_test(test_github_actions__output_and_summary_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
