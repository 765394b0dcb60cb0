/*
 * Text and Markdown tables: alignment by code points, trailing blanks
 * trimmed, Markdown cells escaped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "render/table.h"

static void test_table__text_aligns_columns(void **state)
{
	const char *cols[] = { "BENCHMARK", ">MEDIAN", "RESULT" };
	struct table t;
	struct strbuf out;

	(void)state;
	table_init(&t, 3, cols);
	table_add_rowf(&t, "%s\t%s\t%s", "startup", "≤ 1.60 MiB", "pass");
	table_add_rowf(&t, "%s\t%s\t%s", "x", "41.2 ms", "");
	strbuf_init(&out, 0);
	table_render_text(&t, &out);
	assert_string_equal(out.buf, "BENCHMARK      MEDIAN  RESULT\n"
				     "startup    ≤ 1.60 MiB  pass\n"
				     "x             41.2 ms\n");
	strbuf_release(&out);
	table_release(&t);
}

static void test_table__markdown_escapes_cells(void **state)
{
	const char *cols[] = { "command", ">base" };
	const char *row[] = { "a|b <c>\nd", "1 ms" };
	struct table t;
	struct strbuf out;

	(void)state;
	table_init(&t, 2, cols);
	table_add_row(&t, row);
	strbuf_init(&out, 0);
	table_render_markdown(&t, &out);
	assert_string_equal(out.buf, "| command | base |\n"
				     "|---|---:|\n"
				     "| a\\|b &lt;c&gt; d | 1 ms |\n");
	strbuf_release(&out);
	table_release(&t);
}

/* Colour wraps the header line and the cells given one, before their
 * padding; without the escape sequences the text is table_render_text's. */
static void test_table__colour_wraps_cells_and_keeps_the_text(void **state)
{
	const char *cols[] = { "COMMIT", "VERDICT", "" };
	const char *rows[][3] = { { "abc", "regression", "<< first bad" },
				  { "d\x1b[2Je", "pass", "" } };
	struct table t;
	struct strbuf plain = STRBUF_INIT, coloured = STRBUF_INIT;

	(void)state;
	table_init(&t, 3, cols);
	table_add_row(&t, rows[0]);
	table_colour_cell(&t, 1, "\x1b[31m");
	table_colour_cell(&t, 2, "\x1b[31m");
	table_add_row(&t, rows[1]);
	table_colour_cell(&t, 2, "\x1b[32m"); /* an empty cell stays bare */
	table_render_text(&t, &plain);
	table_render_colour(&t, &coloured);
	assert_string_equal(plain.buf, "COMMIT  VERDICT\n"
				       "abc     regression  << first bad\n"
				       "d [2Je  pass\n");
	assert_string_equal(coloured.buf, "\x1b[2mCOMMIT  VERDICT\x1b[0m\n"
					  "abc     \x1b[31mregression\x1b[0m  "
					  "\x1b[31m<< first bad\x1b[0m\n"
					  "d [2Je  pass\n");
	strbuf_release(&plain);
	strbuf_release(&coloured);
	table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table__text_aligns_columns),
		cmocka_unit_test(test_table__markdown_escapes_cells),
		cmocka_unit_test(test_table__colour_wraps_cells_and_keeps_the_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
