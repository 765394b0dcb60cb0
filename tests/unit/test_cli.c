/*
 * The command table and the flag parser it drives: any number of flags, a
 * measuring command's own flags looked up before the shared ones, defaults,
 * what help lists and excepts; and the diagnostic codes of the exit
 * statuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/commands.h"
#include "cli/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More flags than any command has, in one table: none is cut (the session
 * used to copy a command's own flags into a fixed array of 16). */
static void test_cli__parser_takes_any_number_of_flags(void **state)
{
	enum { N = 40 };
	static char names[N][8];
	struct opt rows[N];
	bool seen[N];
	struct opts o = { .cmd = "t", .own = rows, .n_own = N, .in = { [OPT_IN_ARGS] = seen } };
	struct strlist operands = { .v = NULL, .n = 0 };
	struct err err = ERR_INIT;
	char *argv[] = { "t", "--f39", "x", "--f0", NULL };
	size_t i;

	(void)state;
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i);
		rows[i] = (struct opt){ .name = names[i], .kind = OPT_FLAG, .offset = i };
	}
	opts_defaults(&o);
	assert_int_equal(opts_parse(&o, 4, argv, &operands, &err), 0);
	for (i = 0; i < N; i++)
		assert_int_equal(seen[i], i == 0 || i == N - 1);
	assert_int_equal(operands.n, 1);
	assert_string_equal(operands.v[0], "x");
	strlist_release(&operands);
	opts_release(&o);
}

static void test_cli__measuring_command_parses_own_and_shared_flags(void **state)
{
	const struct cmd *sweep = cli_find("sweep");
	char *argv[] = { "sweep",	  "--every", "3",	 "main~4..main", "--tag", "a,b",
			 "--format=json", "-o",	     "out.json", "--quiet",	 NULL };
	struct cmd_args a;
	struct session s;
	struct err err = ERR_INIT;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	assert_non_null(sweep);
	assert_int_equal(cli_parse(sweep, &a, &s, 10, argv, &s.operands, &err), 0);
	assert_string_equal(a.f.sweep.every, "3");
	assert_null(a.f.sweep.shard);
	assert_string_equal(s.out.format, "json"); /* sweep's own row, the session's value */
	assert_string_equal(s.out.output, "out.json");
	assert_true(s.quiet);
	assert_int_equal(s.tags.n, 2);
	assert_string_equal(s.tags.v[1], "b");
	assert_int_equal(s.operands.n, 1);
	strlist_release(&s.tags);
	strlist_release(&s.operands);
	cli_args_release(sweep, &a);
}

static void test_cli__defaults_come_from_the_rows(void **state)
{
	const struct cmd *list = cli_find("list"), *run = cli_find("run");
	char *argv[] = { "list", NULL }, *run_argv[] = { "run", "--report", "csv", NULL };
	struct cmd_args a;
	struct session s;
	struct err err = ERR_INIT;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.f.list.format = "stale";
	assert_int_equal(cli_parse(list, &a, NULL, 1, argv, &a.operands, &err), 0);
	assert_string_equal(a.f.list.format, "text");
	cli_args_release(list, &a);
	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	assert_int_equal(cli_parse(run, &a, &s, 1, run_argv, &s.operands, &err), 0);
	assert_string_equal(s.out.format, "table");
	assert_int_equal(cli_parse(run, &a, &s, 3, run_argv, &s.operands, &err), 0);
	assert_string_equal(s.out.format, "csv"); /* --report: the alias of --format */
}

static void test_cli__unknown_and_valueless_flags_are_usage_errors(void **state)
{
	const struct cmd *ci = cli_find("ci");
	char *head[] = { "ci", "--head", "HEAD", NULL }, *comment[] = { "ci", "--comment", NULL };
	struct cmd_args a;
	struct session s;
	struct err err = ERR_INIT;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	assert_int_equal(cli_parse(ci, &a, &s, 3, head, &s.operands, &err), ERR_USAGE);
	assert_string_equal(err.msg, "unknown flag \"--head\" for \"ci\" (see 'himorime help ci')");
	assert_int_equal(cli_parse(ci, &a, &s, 2, comment, &s.operands, &err), ERR_USAGE);
	assert_string_equal(err.msg, "flag --comment needs a value (true|false)");
}

static bool named(const struct opt **rows, size_t n, const char *const *names)
{
	size_t i;

	for (i = 0; i < n && names[i]; i++)
		if (strcmp(rows[i]->name, names[i]))
			return false;
	return i == n && !names[i];
}

static void test_cli__help_lists_what_the_like_command_does_not(void **state)
{
	static const char *const ci_except[] = { "head", "merge-base", NULL };
	static const char *const ci_flags[] = { "comment", "accept-label", "verdict-as", "dry-run",
						NULL };
	static const char *const compare_flags[] = {
		"against",	  "head",     "merge-base",	      "suite-from", "max-time",
		"max-total-time", "schedule", "fail-on-inconclusive", NULL
	};
	static const char *const none[] = { NULL };
	const struct opt **rows;
	size_t n;

	(void)state;
	rows = cli_help_except(cli_find("ci"), &n);
	assert_true(named(rows, n, ci_except));
	free(rows);
	rows = cli_help_flags(cli_find("ci"), &n);
	assert_true(named(rows, n, ci_flags));
	free(rows);
	rows = cli_help_flags(cli_find("compare"), &n);
	assert_true(named(rows, n, compare_flags));
	free(rows);
	rows = cli_help_except(cli_find("compare"), &n);
	assert_true(named(rows, n, none));
	free(rows);
	rows = cli_flags(cli_find("bisect"), &n);
	for (size_t i = 0; i < n; i++) /* it refuses these: completions leave them out */
		assert_true(strcmp(rows[i]->name, "format") && strcmp(rows[i]->name, "report"));
	free(rows);
}

static void test_cli__each_failing_exit_status_has_its_code(void **state)
{
	(void)state;
	assert_string_equal(cli_diag_code(EXIT_OK), "");
	assert_string_equal(cli_diag_code(EXIT_FAILED), "");
	assert_string_equal(cli_diag_code(EXIT_CONFIG), HMR_INVALID);
	assert_string_equal(cli_diag_code(EXIT_USAGE), "HMR3001");
	assert_string_equal(cli_diag_code(EXIT_EXEC), HMR_EXEC);
	assert_string_equal(cli_diag_code(EXIT_INTERNAL), HMR_INTERNAL);
	assert_string_equal(cli_diag_code(EXIT_METRIC), HMR_METRIC);
	assert_string_equal(cli_diag_code(42), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli__parser_takes_any_number_of_flags),
		cmocka_unit_test(test_cli__measuring_command_parses_own_and_shared_flags),
		cmocka_unit_test(test_cli__defaults_come_from_the_rows),
		cmocka_unit_test(test_cli__unknown_and_valueless_flags_are_usage_errors),
		cmocka_unit_test(test_cli__help_lists_what_the_like_command_does_not),
		cmocka_unit_test(test_cli__each_failing_exit_status_has_its_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
