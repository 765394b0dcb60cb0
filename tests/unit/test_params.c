/*
 * Unit tests of parameter expansion (suite/params.h): the order of cases,
 * exclusions, the limit, labels, and the checks of names and values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/strbuf.h"
#include "suite/params.h"

#include <stdio.h>
#include <string.h>

static const char *const levels[] = { "1", "6", "9" };
static const char *const modes[] = { "compress", "decompress" };

/* Every case's label, one per line. */
static void labels(const struct param *params, const struct params_expansion *e, struct strbuf *out)
{
	size_t c;

	for (c = 0; c < e->count; c++) {
		params_label("gz", params, e, c, out);
		strbuf_addch(out, '\n');
	}
}

static void test_params__cartesian_product_in_declared_order(void **state)
{
	const struct param params[] = { { "level", levels, 3 }, { "mode", modes, 2 } };
	struct params_expansion e;
	struct strbuf sb = STRBUF_INIT;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(params_expand(params, 2, NULL, 0, PARAMS_MAX_CASES, &e, &err), 0);
	assert_int_equal(e.count, 6);
	labels(params, &e, &sb);
	assert_string_equal(sb.buf, "gz[level=1,mode=compress]\n"
				    "gz[level=1,mode=decompress]\n"
				    "gz[level=6,mode=compress]\n"
				    "gz[level=6,mode=decompress]\n"
				    "gz[level=9,mode=compress]\n"
				    "gz[level=9,mode=decompress]\n");
	assert_int_equal(e.index[5 * 2 + 0], 2);
	assert_int_equal(e.index[5 * 2 + 1], 1);
	params_expansion_release(&e);
	strbuf_release(&sb);
}

static void test_params__exclusions_drop_partial_combinations(void **state)
{
	const struct param params[] = { { "level", levels, 3 }, { "mode", modes, 2 } };
	/* level=9 with any mode, and level=1 with decompress */
	const size_t nine[] = { 2, PARAMS_ANY }, one_decompress[] = { 0, 1 };
	const size_t *const exclusions[] = { nine, one_decompress };
	struct params_expansion e;
	struct strbuf sb = STRBUF_INIT;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(params_expand(params, 2, exclusions, 2, PARAMS_MAX_CASES, &e, &err), 0);
	labels(params, &e, &sb);
	assert_string_equal(sb.buf, "gz[level=1,mode=compress]\n"
				    "gz[level=6,mode=compress]\n"
				    "gz[level=6,mode=decompress]\n");
	params_expansion_release(&e);
	strbuf_release(&sb);
}

static void test_params__no_parameters_is_one_case(void **state)
{
	struct params_expansion e;
	struct strbuf sb = STRBUF_INIT;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(params_expand(NULL, 0, NULL, 0, PARAMS_MAX_CASES, &e, &err), 0);
	assert_int_equal(e.count, 1);
	params_label("gz", NULL, &e, 0, &sb);
	assert_string_equal(sb.buf, "gz");
	params_expansion_release(&e);
	strbuf_release(&sb);
}

static void test_params__refusals(void **state)
{
	static const char *const twice[] = { "1", "6", "1" };
	static const char *const many[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" };
	const struct param empty[] = { { "level", levels, 3 }, { "mode", modes, 0 } };
	const struct param dup[] = { { "level", twice, 3 } };
	const struct param big[] = { { "a", many, 10 }, { "b", many, 10 }, { "c", many, 10 } };
	const struct param all[] = { { "level", levels, 3 } };
	const size_t any[] = { PARAMS_ANY };
	const size_t *const everything[] = { any };
	const size_t a0[] = { 0, PARAMS_ANY, PARAMS_ANY };
	const size_t *const first_a[] = { a0 };
	struct params_expansion e;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(params_expand(empty, 2, NULL, 0, PARAMS_MAX_CASES, &e, &err), ERR_INVALID);
	assert_string_equal(err.msg, "parameter \"mode\" has no values");
	assert_int_equal(params_expand(dup, 1, NULL, 0, PARAMS_MAX_CASES, &e, &err), ERR_INVALID);
	assert_string_equal(err.msg, "parameter \"level\" has the value \"1\" twice");
	/* 10 x 10 x 10 = 1000 fits the default limit exactly; 999 does not */
	assert_int_equal(params_expand(big, 3, NULL, 0, PARAMS_MAX_CASES, &e, &err), 0);
	assert_int_equal(e.count, 1000);
	params_expansion_release(&e);
	assert_int_equal(params_expand(big, 3, NULL, 0, 999, &e, &err), ERR_INVALID);
	assert_string_equal(err.msg,
			    "the parameters make more than 999 cases before exclude; split the "
			    "benchmark");
	assert_null(e.index);
	/* the limit is on the product: an exclusion that would leave 900 cases
	 * does not help, and the message does not suggest it */
	assert_int_equal(params_expand(big, 3, first_a, 1, 999, &e, &err), ERR_INVALID);
	assert_string_equal(err.msg,
			    "the parameters make more than 999 cases before exclude; split the "
			    "benchmark");
	assert_null(e.index);
	assert_int_equal(params_expand(all, 1, everything, 1, PARAMS_MAX_CASES, &e, &err),
			 ERR_INVALID);
	assert_string_equal(err.msg, "exclude removes every combination");
	assert_null(e.index);
}

/* A product beyond size_t (1024^7 = 2^70) is refused, not wrapped. */
static void test_params__product_overflow_is_refused(void **state)
{
	static char text[1024][8];
	static const char *values[1024];
	struct param params[7];
	struct params_expansion e;
	struct err err = ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < 1024; i++) {
		snprintf(text[i], sizeof(text[i]), "%zu", i);
		values[i] = text[i];
	}
	for (i = 0; i < 7; i++) {
		params[i].name = "p";
		params[i].values = values;
		params[i].n = 1024;
	}
	assert_int_equal(params_expand(params, 7, NULL, 0, SIZE_MAX, &e, &err), ERR_INVALID);
	assert_string_equal(err.msg, "the parameters make more than 18446744073709551615 "
				     "cases before exclude; split the benchmark");
	assert_null(e.index);
}

static void test_params__names_and_values(void **state)
{
	const struct param p = { "level", levels, 3 };
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(params_check_name("level", &err), 0);
	assert_int_equal(params_check_name("_x9", &err), 0);
	assert_int_equal(params_check_name("9x", &err), ERR_INVALID);
	assert_string_equal(err.msg, "a parameter's name starts with a letter or '_', got \"9x\"");
	assert_int_equal(params_check_name("a-b", &err), ERR_INVALID);
	assert_string_equal(err.msg,
			    "a parameter's name has only letters, digits and '_', got \"a-b\"");
	assert_int_equal(params_check_name("", &err), ERR_INVALID);
	assert_string_equal(err.msg, "a parameter's name has 1 to 64 characters");
	assert_int_equal(params_check_value("--fast", &err), 0);
	assert_int_equal(params_check_value("a b", &err), 0);
	assert_int_equal(params_check_value("a,b", &err), ERR_INVALID);
	assert_string_equal(err.msg, "a parameter's value cannot hold ',' (it would make the "
				     "case's label ambiguous)");
	assert_int_equal(params_check_value("x]", &err), ERR_INVALID);
	assert_string_equal(err.msg, "a parameter's value cannot hold ']' (it would make the "
				     "case's label ambiguous)");
	assert_int_equal(params_check_value("a\tb", &err), ERR_INVALID);
	assert_string_equal(err.msg, "a parameter's value cannot hold a control character");
	assert_int_equal(params_check_value("", &err), ERR_INVALID);
	assert_string_equal(err.msg, "a parameter's value cannot be empty");
	assert_int_equal(params_find_value(&p, "9"), 2);
	assert_true(params_find_value(&p, "7") == PARAMS_ANY);
}

static void test_params__selectors(void **state)
{
	const struct params_value one[] = { { "level", "1" }, { "mode", "compress" } };
	const struct params_value nine[] = { { "level", "9" }, { "mode", "compress" } };
	struct params_selector sel;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(params_selector_parse("gz[mode=compress,level=1]", &sel, &err), 0);
	assert_string_equal(sel.base, "gz");
	assert_int_equal(sel.n, 2);
	assert_string_equal(sel.pairs[1].name, "level");
	assert_string_equal(sel.pairs[1].value, "1");
	assert_true(params_selector_matches(&sel, "gz", one, 2));
	assert_false(params_selector_matches(&sel, "gz", nine, 2));
	assert_false(params_selector_matches(&sel, "gzip", one, 2));
	/* a case known by its label only, as reports name it */
	assert_true(params_selector_matches_label(&sel, "gz[mode=compress,level=1]"));
	assert_true(params_selector_matches_label(&sel, "gz[level=1,mode=compress,size=1k]"));
	assert_false(params_selector_matches_label(&sel, "gz[level=9,mode=compress]"));
	assert_false(params_selector_matches_label(&sel, "gz"));
	params_selector_release(&sel);
	/* a subset of the values, and no name: any benchmark */
	assert_int_equal(params_selector_parse("[mode=compress]", &sel, &err), 0);
	assert_string_equal(sel.base, "");
	assert_true(params_selector_matches(&sel, "gz", one, 2));
	assert_true(params_selector_matches(&sel, "other", nine, 2));
	assert_false(params_selector_matches(&sel, "plain", NULL, 0));
	params_selector_release(&sel);
	/* what is not a selector */
	assert_int_equal(params_selector_parse("gz", &sel, &err), ERR_INVALID);
	assert_string_equal(err.msg, "expected NAME[name=value,...] or [name=value,...]");
	assert_int_equal(params_selector_parse("gz[level=1", &sel, &err), ERR_INVALID);
	assert_int_equal(params_selector_parse("gz[a][b=1]", &sel, &err), ERR_INVALID);
	assert_int_equal(params_selector_parse("gz[]", &sel, &err), ERR_INVALID);
	assert_string_equal(err.msg, "expected name=value, got \"\"");
	assert_int_equal(params_selector_parse("gz[level]", &sel, &err), ERR_INVALID);
	assert_string_equal(err.msg, "expected name=value, got \"level\"");
	assert_int_equal(params_selector_parse("gz[9=1]", &sel, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a parameter's name starts with a letter or '_', got \"9\"");
	assert_int_equal(params_selector_parse("[a-z]+", &sel, &err), ERR_INVALID);
	assert_null(sel.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params__cartesian_product_in_declared_order),
		cmocka_unit_test(test_params__exclusions_drop_partial_combinations),
		cmocka_unit_test(test_params__no_parameters_is_one_case),
		cmocka_unit_test(test_params__refusals),
		cmocka_unit_test(test_params__product_overflow_is_refused),
		cmocka_unit_test(test_params__names_and_values),
		cmocka_unit_test(test_params__selectors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
