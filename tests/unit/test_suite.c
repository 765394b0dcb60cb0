/*
 * Unit tests of the suite loader's parts: variables (checking, expanding,
 * shell quoting), the YAML event builder (core schema, aliases, merge keys,
 * duplicate keys, limits, character columns) and suite_load's model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/fsio.h"
#include "suite/suite.h"
#include "suite/vars.h"
#include "suite/yamltree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_suite__vars_check(void **state)
{
	struct err err = ERR_INIT;
	unsigned used;
	size_t off;

	(void)state;
	assert_int_equal(vars_check("a ${root}/x ${env:HOME} $${x}", VARS_ALL, &used, &off, &err),
			 0);
	assert_int_equal(used, VAR_ROOT | VAR_ENV);
	assert_int_equal(vars_check("x ${rot}", VARS_ALL, &used, &off, &err), ERR_INVALID);
	assert_string_equal(err.msg, "unknown variable ${rot}");
	assert_int_equal(off, 2);
	assert_int_equal(vars_check("${workdir}", VARS_ALL & ~VAR_WORKDIR, &used, &off, &err),
			 ERR_INVALID);
	assert_string_equal(err.msg, "${workdir} is not allowed here");
	assert_int_equal(vars_check("${root", VARS_ALL, &used, &off, &err), ERR_INVALID);
	assert_int_equal(vars_check("${env:}", VARS_ALL, &used, &off, &err), ERR_INVALID);
	assert_int_equal(vars_check("${env:A-B}", VARS_ALL, &used, &off, &err), ERR_INVALID);
	assert_int_equal(vars_check("$root $", VARS_ALL, &used, &off, &err), 0);
}

static void test_suite__vars_check_shell(void **state)
{
	struct err err = ERR_INIT;
	size_t off;

	(void)state;
	assert_int_equal(vars_check_shell("cat ${root}/x | wc -l", &off, &err), 0);
	assert_int_equal(vars_check_shell("echo 'a' ${root} \"b\"", &off, &err), 0);
	assert_int_equal(vars_check_shell("echo \\'${root}", &off, &err), 0);
	assert_int_equal(vars_check_shell("echo '$${root}'", &off, &err), 0);
	assert_int_equal(vars_check_shell("echo \"x ${root}\"", &off, &err), ERR_INVALID);
	assert_int_equal(off, 8);
	assert_int_equal(vars_check_shell("echo '${exe}'", &off, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a variable inside the command's own single quotes");
}

static void test_suite__vars_expand(void **state)
{
	struct vars v = { "/b/artifact", "/r", "/h", "/w it's", "" };
	struct err err = ERR_INIT;
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 0);
	setenv("HIMORIME_TEST_VAR", "v a l", 1);
	unsetenv("HIMORIME_TEST_UNSET");
	assert_int_equal(
		vars_expand("${artifact}${exe} ${root}/${head_root} $${x} ${env:HIMORIME_TEST_VAR}",
			    &v, false, &sb, &err),
		0);
	assert_string_equal(sb.buf, "/b/artifact /r//h ${x} v a l");
	strbuf_reset(&sb);
	assert_int_equal(
		vars_expand("cd ${workdir} && echo ${env:HIMORIME_TEST_VAR}", &v, true, &sb, &err),
		0);
	assert_string_equal(sb.buf, "cd '/w it'\\''s' && echo 'v a l'");
	strbuf_reset(&sb);
	assert_int_equal(vars_expand("${env:HIMORIME_TEST_UNSET}", &v, false, &sb, &err), ERR_EXEC);
	assert_string_equal(err.msg,
			    "environment variable \"HIMORIME_TEST_UNSET\" is not set (used "
			    "as ${env:HIMORIME_TEST_UNSET})");
	strbuf_release(&sb);
}

static void test_suite__vars_params(void **state)
{
	const char *const names[] = { "level", "mode" };
	const char *const values[] = { "9", "fast one" };
	const struct vars_params vp = { names, values, 2 };
	const char *const odd_values[] = { "it's", "a${b}" };
	const struct vars_params odd = { names, odd_values, 2 };
	struct err err = ERR_INIT;
	struct strbuf sb;
	unsigned used;
	size_t off;

	(void)state;
	strbuf_init(&sb, 0);
	assert_int_equal(vars_check_params("-${level} ${root}/${mode} $${level}", VARS_ALL, &vp,
					   &used, &off, &err),
			 0);
	assert_int_equal(used, VAR_PARAM | VAR_ROOT);
	assert_int_equal(vars_check_params("x ${levels}", VARS_ALL, &vp, &used, &off, &err),
			 ERR_INVALID);
	assert_string_equal(err.msg, "unknown variable ${levels}");
	assert_int_equal(off, 2);
	assert_int_equal(vars_check("${level}", VARS_ALL, &used, &off, &err), ERR_INVALID);
	assert_true(vars_is_builtin("root") && vars_is_builtin("env") && !vars_is_builtin("size"));
	/* substituted as text, other variables and $${ left as written */
	assert_int_equal(vars_substitute("-${level} ${root}/${mode} $${level}", &vp, false, &sb),
			 0);
	assert_string_equal(sb.buf, "-9 ${root}/fast one $${level}");
	strbuf_reset(&sb);
	assert_int_equal(vars_substitute("echo ${level} ${mode}", &vp, true, &sb), 0);
	assert_string_equal(sb.buf, "echo 9 'fast one'");
	strbuf_reset(&sb);
	/* the result is a template again: a "${" of a value stays literal */
	assert_int_equal(vars_substitute("${level}${mode}", &odd, false, &sb), 0);
	assert_string_equal(sb.buf, "it'sa$${b}");
	strbuf_reset(&sb);
	assert_int_equal(vars_substitute("echo ${level} ${mode}", &odd, true, &sb), 0);
	assert_string_equal(sb.buf, "echo 'it'\\''s' 'a$${b}'");
	strbuf_release(&sb);
}

static struct ytree parse(struct arena *a, const char *text)
{
	struct ytree t;

	ytree_parse(&t, text, strlen(text), a);
	return t;
}

static void test_suite__ytree_core_schema(void **state)
{
	struct arena a = ARENA_INIT;
	struct ytree t = parse(&a, "[yes, no, on, true, False, TRUE, ~, null, '', 0o17, 0x1F, -3, "
				   "1.5, .inf, -.Inf, .nan, '1', !!str 2, 1e3, 1_000]");
	const enum yscalar_type want[] = {
		YSCALAR_STR,   YSCALAR_STR,  YSCALAR_STR,   YSCALAR_BOOL,  YSCALAR_BOOL,
		YSCALAR_BOOL,  YSCALAR_NULL, YSCALAR_NULL,  YSCALAR_STR,   YSCALAR_INT,
		YSCALAR_INT,   YSCALAR_INT,  YSCALAR_FLOAT, YSCALAR_FLOAT, YSCALAR_FLOAT,
		YSCALAR_FLOAT, YSCALAR_STR,  YSCALAR_STR,   YSCALAR_FLOAT, YSCALAR_STR,
	};
	int64_t i;
	size_t k;

	(void)state;
	assert_int_equal(t.diag_count, 0);
	assert_int_equal(t.root->count, sizeof(want) / sizeof(want[0]));
	for (k = 0; k < t.root->count; k++)
		assert_int_equal(ynode_type(t.root->items[k]), want[k]);
	assert_true(ynode_int(t.root->items[9], &i) && i == 15);
	assert_true(ynode_int(t.root->items[10], &i) && i == 31);
	assert_true(ynode_int(t.root->items[11], &i) && i == -3);
	free(t.diags);
	arena_release(&a);
}

static void test_suite__ytree_merge_and_duplicates(void **state)
{
	struct arena a = ARENA_INIT;
	struct ytree t = parse(&a, "base: &b {x: 1, y: 2}\n"
				   "m:\n  <<: [{y: 3, z: 4}, *b]\n  x: 9\n"
				   "d: {k: 1, k: 2, <<: {k: 3}}\n");
	const struct ynode *m, *d;

	(void)state;
	m = ynode_get(t.root, "m");
	assert_string_equal(ynode_get(m, "x")->text, "9");
	assert_string_equal(ynode_get(m, "y")->text, "3");
	assert_string_equal(ynode_get(m, "z")->text, "4");
	assert_int_equal(m->count, 3);
	d = ynode_get(t.root, "d");
	assert_int_equal(d->count, 1);
	assert_string_equal(ynode_get(d, "k")->text, "1");
	assert_int_equal(t.diag_count, 1);
	assert_string_equal(t.diags[0].message, "duplicate key \"k\" (first at 5:5)");
	assert_int_equal(t.diags[0].line, 5);
	assert_int_equal(t.diags[0].column, 11);
	assert_string_equal(t.diags[0].path, "d.k");
	free(t.diags);
	arena_release(&a);
}

static void test_suite__ytree_alias_positions_and_cycles(void **state)
{
	struct arena a = ARENA_INIT;
	struct ytree t = parse(&a, "a: &x [1, 2]\nb: *x\nc: &y [1, *y]\n");
	const struct ynode *b;

	(void)state;
	assert_false(t.fatal);
	b = ynode_get(t.root, "b");
	assert_int_equal(b->kind, YNODE_SEQ);
	assert_non_null(b->via);
	assert_string_equal(b->via->anchor, "x");
	assert_int_equal(b->via->alias_line, 2);
	assert_int_equal(b->via->alias_column, 4);
	assert_int_equal(b->via->anchor_line, 1);
	assert_int_equal(b->via->anchor_column, 4);
	assert_int_equal(t.diag_count, 1);
	assert_string_equal(t.diags[0].message,
			    "alias *y refers to its own anchor &y at 3:4 (a cycle)");
	free(t.diags);
	arena_release(&a);
}

static void test_suite__ytree_columns_count_characters(void **state)
{
	struct arena a = ARENA_INIT;
	struct ytree t = parse(&a, "k: [\"\xc3\xa9\xc3\xa9\xe6\x97\xa5\", x]\n");

	(void)state;
	assert_int_equal(t.root->items[0]->items[1]->column, 12);
	free(t.diags);
	arena_release(&a);
}

static void test_suite__ytree_limits(void **state)
{
	struct arena a = ARENA_INIT;
	char deep[200];
	struct ytree t;

	(void)state;
	memset(deep, '[', 100);
	memset(deep + 100, ']', 99);
	deep[199] = '\0';
	t = parse(&a, deep);
	assert_true(t.fatal);
	assert_null(t.root);
	assert_string_equal(t.diags[0].message, "nesting deeper than 64 levels");
	free(t.diags);
	/* A second document is reported; the first is still checked. */
	t = parse(&a, "a: 1\n---\nb: 2\n");
	assert_false(t.fatal);
	assert_non_null(ynode_get(t.root, "a"));
	assert_int_equal(t.diag_count, 1);
	assert_int_equal(t.diags[0].line, 2);
	free(t.diags);
	arena_release(&a);
}

static const char *write_tmp(const char *text)
{
	static char path[] = "/tmp/himorime-unit-XXXXXX";
	int fd;

	memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_suite__load_model(void **state)
{
	const char *path = write_tmp("version: \"1\"\nname: s\n"
				     "defaults: {env: {A: \"1\"}, metrics: {memory: true}}\n"
				     "benchmarks:\n"
				     "  - name: b\n    warmup: auto\n    env: {B: \"2\"}\n"
				     "    commands:\n      c:\n        command: [x, \"${root}\"]\n"
				     "        env: {A: \"3\"}\n"
				     "        budget: {peak_rss: {p99.5: \"<= 2KiB\"}}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s;
	const struct command *c;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), 0);
	assert_int_equal(diags.count, 0);
	assert_int_equal(s->benchmark_count, 1);
	assert_int_equal(s->benchmarks[0].warmup.kind, WARMUP_AUTO);
	assert_int_equal(s->benchmarks[0].runs, 0);
	assert_false(s->benchmarks[0].max_runs_set);
	assert_true(benchmark_measures(&s->benchmarks[0], METRIC_PEAK_RSS));
	assert_false(benchmark_measures(&s->benchmarks[0], METRIC_CPU_TOTAL));
	assert_true(s->benchmarks[0].regression.confidence == 0.99);
	assert_true(s->benchmarks[0].regression.latency.max_fraction == 0.05);
	assert_true(s->benchmarks[0].regression.peak_rss.max_fraction == 0.10);
	assert_false(benchmark_measures(&s->benchmarks[0], METRIC_ARTIFACT_SIZE));
	assert_true(s->benchmarks[0].regression.artifact_size.max_fraction == 0.01);
	assert_true(s->benchmarks[0].regression.artifact_size.gate);
	assert_ptr_equal(regression_tolerance(&s->benchmarks[0].regression, METRIC_ARTIFACT_SIZE),
			 &s->benchmarks[0].regression.artifact_size);
	c = &s->benchmarks[0].commands[0];
	assert_string_equal(c->exec.argv[1], "${root}");
	assert_int_equal(c->exec.env_count, 2);
	assert_string_equal(c->exec.env[0].name, "A");
	assert_string_equal(c->exec.env[0].value, "3");
	assert_string_equal(c->exec.env[1].name, "B");
	assert_int_equal(c->budget_count, 1);
	assert_int_equal(c->budgets[0].aggregation.kind, AGG_PERCENTILE);
	assert_true(c->budgets[0].aggregation.percentile == 99.5);
	assert_true(c->budgets[0].limit == 2048);
	assert_int_equal(c->budgets[0].op, BOUND_LE);
	assert_int_equal(c->budgets[0].pos.line, 12);
	assert_int_equal(c->pos.line, 9);
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
}

/* metrics.artifact_size and its tolerance layer like the other settings;
 * budgets take counts with k, M, G and byte sizes. */
static void test_suite__artifact_size_layers(void **state)
{
	const char *path =
		write_tmp("version: \"1\"\nname: s\n"
			  "build: {command: [cc, -o, \"${artifact}\", m.c]}\n"
			  "defaults:\n  metrics: {artifact_size: true}\n"
			  "  regression: {artifact_size: {max_percent: 0, gate: false}}\n"
			  "benchmarks:\n"
			  "  - name: a\n    regression: {artifact_size: {max_percent: 2%}}\n"
			  "    commands:\n      c:\n        command: [\"${artifact}\"]\n"
			  "        budget: {artifact_size: {max: \"<= 1.5M\", min: \"< 2KiB\"}}\n"
			  "  - name: b\n    metrics: {artifact_size: false}\n"
			  "    commands: {c: {command: [\"${artifact}\"]}}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s;
	const struct command *c;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), 0);
	assert_true(benchmark_measures(&s->benchmarks[0], METRIC_ARTIFACT_SIZE));
	assert_true(s->benchmarks[0].regression.artifact_size.max_fraction == 0.02);
	assert_false(s->benchmarks[0].regression.artifact_size.gate);
	assert_false(benchmark_measures(&s->benchmarks[1], METRIC_ARTIFACT_SIZE));
	assert_true(s->benchmarks[1].regression.artifact_size.max_fraction == 0);
	c = &s->benchmarks[0].commands[0];
	assert_int_equal(c->budget_count, 2);
	assert_int_equal(c->budgets[0].metric, METRIC_ARTIFACT_SIZE);
	assert_true(c->budgets[0].limit == 1500000);
	assert_true(c->budgets[1].limit == 2048);
	assert_int_equal(c->budgets[1].op, BOUND_LT);
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
}

/* metrics.instructions: true, or a map that turns it on with a backend and
 * the runs to start with; its tolerance and budgets in counts. */
static void test_suite__instructions_layer(void **state)
{
	const char *path =
		write_tmp("version: \"1\"\nname: s\n"
			  "defaults:\n  metrics: {instructions: true}\n"
			  "  regression: {instructions: {max_percent: 0.5%}}\n"
			  "benchmarks:\n"
			  "  - name: a\n    metrics: {instructions: {backend: valgrind, runs: 5}}\n"
			  "    commands:\n      c:\n        command: [x]\n"
			  "        budget: {instructions: {median: \"<= 2G\"}}\n"
			  "  - name: b\n    commands: {c: {command: [x]}}\n"
			  "  - name: c\n    metrics: {instructions: false, allocations: true}\n"
			  "    regression: {allocations: {max_percent: 10%}}\n"
			  "    commands: {c: {command: [x], budget: {allocated_bytes: "
			  "{max: \"<= 1M\"}}}}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s;
	const struct benchmark *b;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), 0);
	b = &s->benchmarks[0];
	assert_true(benchmark_measures(b, METRIC_INSTRUCTIONS));
	assert_int_equal(b->metrics.backend, COUNTER_VALGRIND);
	assert_int_equal(b->metrics.count_runs, 5);
	assert_true(b->regression.instructions.max_fraction == 0.005);
	assert_true(b->regression.instructions.gate);
	assert_int_equal(b->commands[0].budgets[0].metric, METRIC_INSTRUCTIONS);
	assert_true(b->commands[0].budgets[0].limit == 2e9);
	b = &s->benchmarks[1];
	assert_true(benchmark_measures(b, METRIC_INSTRUCTIONS));
	assert_int_equal(b->metrics.backend, COUNTER_AUTO);
	assert_int_equal(b->metrics.count_runs, 3);
	assert_false(benchmark_measures(&s->benchmarks[2], METRIC_INSTRUCTIONS));
	assert_false(benchmark_measures(&s->benchmarks[0], METRIC_ALLOCATIONS));
	assert_true(benchmark_measures(&s->benchmarks[2], METRIC_ALLOCATIONS));
	assert_true(benchmark_measures(&s->benchmarks[2], METRIC_ALLOCATED_BYTES));
	assert_true(s->benchmarks[2].regression.allocations.max_fraction == 0.1);
	assert_true(s->benchmarks[2].regression.allocated_bytes.max_fraction == 0.01);
	assert_ptr_equal(regression_tolerance(&s->benchmarks[2].regression, METRIC_ALLOCATED_BYTES),
			 &s->benchmarks[2].regression.allocated_bytes);
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
}

/* A command's metrics: the counts laid over its benchmark's (which lie over
 * defaults) for that command only; the timed metrics stay the benchmark's. */
static void test_suite__command_metrics_layer(void **state)
{
	const char *path =
		write_tmp("version: \"1\"\nname: s\n"
			  "build: {command: [cc, -o, \"${artifact}\", m.c]}\n"
			  "defaults:\n  metrics: {allocations: true, cpu: true}\n"
			  "benchmarks:\n"
			  "  - name: a\n    metrics: {instructions: {runs: 5}}\n"
			  "    commands:\n"
			  "      on: {command: [x], metrics: {artifact_size: true}}\n"
			  "      off:\n        command: [x]\n"
			  "        metrics: {instructions: false, allocations: false}\n"
			  "      own:\n        command: [x]\n"
			  "        metrics: {instructions: {backend: valgrind, runs: 7}}\n"
			  "        budget: {instructions: {median: \"<= 2G\"}}\n"
			  "  - name: b\n    metrics: {allocations: false}\n"
			  "    commands:\n"
			  "      plain: {command: [x]}\n"
			  "      counted: {command: [x], metrics: {instructions: true}}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s;
	const struct benchmark *a, *b;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), 0);
	a = &s->benchmarks[0];
	b = &s->benchmarks[1];
	/* on: the benchmark's instructions and defaults' allocations, its own size */
	assert_true(command_measures(&a->commands[0], METRIC_INSTRUCTIONS));
	assert_true(command_measures(&a->commands[0], METRIC_ALLOCATIONS));
	assert_true(command_measures(&a->commands[0], METRIC_ALLOCATED_BYTES));
	assert_true(command_measures(&a->commands[0], METRIC_ARTIFACT_SIZE));
	assert_true(command_measures(&a->commands[0], METRIC_CPU_TOTAL));
	assert_int_equal(a->commands[0].metrics.count_runs, 5);
	assert_int_equal(a->commands[0].metrics.backend, COUNTER_AUTO);
	/* off: both turned off for it alone */
	assert_false(command_measures(&a->commands[1], METRIC_INSTRUCTIONS));
	assert_false(command_measures(&a->commands[1], METRIC_ALLOCATED_BYTES));
	assert_false(command_measures(&a->commands[1], METRIC_ARTIFACT_SIZE));
	assert_true(command_measures(&a->commands[1], METRIC_CPU_USER));
	/* own: its backend and runs */
	assert_int_equal(a->commands[2].metrics.backend, COUNTER_VALGRIND);
	assert_int_equal(a->commands[2].metrics.count_runs, 7);
	assert_int_equal(a->commands[2].budgets[0].metric, METRIC_INSTRUCTIONS);
	/* the benchmark measures what any of its commands does */
	assert_true(benchmark_measures(a, METRIC_ARTIFACT_SIZE));
	assert_true(a->metrics.instructions);
	assert_false(a->metrics.artifact_size);
	assert_false(command_measures(&b->commands[0], METRIC_INSTRUCTIONS));
	assert_false(command_measures(&b->commands[0], METRIC_ALLOCATIONS));
	assert_true(command_measures(&b->commands[1], METRIC_INSTRUCTIONS));
	assert_int_equal(b->commands[1].metrics.count_runs, 3);
	assert_true(benchmark_measures(b, METRIC_INSTRUCTIONS));
	assert_false(b->metrics.instructions);
	assert_false(benchmark_measures(b, METRIC_ALLOCATIONS));
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
}

/* A case's budgets are checked against what its command measures. */
static void test_suite__command_metrics_in_cases(void **state)
{
	const char *path = write_tmp("version: \"1\"\nname: s\n"
				     "benchmarks:\n"
				     "  - name: a\n    parameters: {n: [1, 2]}\n"
				     "    cases:\n"
				     "      \"[n=2]\":\n"
				     "        budget: {fast: {instructions: {median: \"<= 1G\"}}}\n"
				     "    commands:\n"
				     "      fast: {command: [x], metrics: {instructions: true}}\n"
				     "      slow: {command: [x]}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s;
	const struct command *c;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), 0);
	assert_int_equal(s->benchmark_count, 2);
	assert_int_equal(s->benchmarks[0].commands[0].budget_count, 0);
	c = &s->benchmarks[1].commands[0];
	assert_int_equal(c->budget_count, 1);
	assert_int_equal(c->budgets[0].metric, METRIC_INSTRUCTIONS);
	assert_true(c->budgets[0].limit == 1e9);
	assert_false(command_measures(&s->benchmarks[1].commands[1], METRIC_INSTRUCTIONS));
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
}

/* The diagnostics of a suite file, one "line:column: path: message | hint"
 * string each, for exact comparisons. */
static char *diags_text(const struct suite_diags *d)
{
	char *out = calloc(1, 4096);
	size_t i, n = 0;

	assert_non_null(out);
	for (i = 0; i < d->count; i++)
		n += (size_t)snprintf(out + n, 4096 - n, "%u:%u: %s: %s | %s\n", d->v[i].line,
				      d->v[i].column, d->v[i].path, d->v[i].message,
				      d->v[i].hint ? d->v[i].hint : "-");
	return out;
}

/* A command may set the counts only: the other metrics keys are refused
 * where they are written, and a budget on a count the command does not
 * measure says so. */
static void test_suite__command_metrics_errors(void **state)
{
	const char *path =
		write_tmp("version: \"1\"\nname: s\n"
			  "benchmarks:\n"
			  "  - name: a\n    metrics: {instructions: true}\n"
			  "    commands:\n"
			  "      c:\n        command: [x]\n"
			  "        metrics: {cpu: true, throughput: {}, instruction: true, "
			  "artifact_size: true}\n"
			  "      d:\n        command: [x]\n"
			  "        metrics: {instructions: false, allocations: maybe}\n"
			  "        budget: {instructions: {median: \"<= 2G\"}}\n"
			  "      e: {command: [x], metrics: [instructions]}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s;
	char *text;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), ERR_INVALID);
	text = diags_text(&diags);
	assert_string_equal(
		text,
		"9:19: benchmarks[0].commands.c.metrics.cpu: metrics.cpu is set per benchmark or "
		"in defaults, not per command | a command may set metrics.instructions, "
		"metrics.allocations and metrics.artifact_size\n"
		"9:30: benchmarks[0].commands.c.metrics.throughput: metrics.throughput is only "
		"allowed in a benchmark | a command may set metrics.instructions, "
		"metrics.allocations and metrics.artifact_size\n"
		"9:46: benchmarks[0].commands.c.metrics.instruction: unknown key \"instruction\" "
		"in "
		"benchmarks[0].commands.c.metrics | did you mean \"instructions\"?\n"
		"9:80: benchmarks[0].commands.c.metrics.artifact_size: metrics.artifact_size needs "
		"a build: step (it measures ${artifact}) | add a build: step that writes "
		"${artifact}\n"
		"12:53: benchmarks[0].commands.d.metrics.allocations: expected true or false, got "
		"\"maybe\" | booleans are true or false (yes, no, on and off are strings)\n"
		"13:18: benchmarks[0].commands.d.budget.instructions: a budget on instructions, "
		"which the command does not measure | set metrics.instructions: true in the "
		"command, its benchmark or defaults\n"
		"14:34: benchmarks[0].commands.e.metrics: expected a map of instructions, "
		"allocations, artifact_size, got a list | -\n");
	free(text);
	suite_diags_release(&diags);
	unlink(path);
}

static void test_suite__load_collects_all_problems(void **state)
{
	const char *path = write_tmp("version: \"1\"\nname: s\nbenchmarks:\n"
				     "  - name: b\n    runs: 0\n    commands: {c: {command: x}}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s = (struct suite *)1;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), ERR_INVALID);
	assert_null(s);
	assert_int_equal(diags.count, 2);
	assert_int_equal(diags.files_with_problems, 1);
	assert_string_equal(diags.v[0].path, "benchmarks[0].runs");
	assert_int_equal(diags.v[0].line, 5);
	assert_int_equal(diags.v[0].column, 11);
	assert_string_equal(diags.v[0].message, "expected an integer from 1 to 100000, got 0");
	assert_null(diags.v[0].hint);
	assert_string_equal(diags.v[1].path, "benchmarks[0].commands.c.command");
	assert_non_null(diags.v[1].hint);
	suite_diags_release(&diags);
	unlink(path);
}

/* A benchmark with parameters is one benchmark per case, in declared order
 * without the excluded ones, its values substituted and its `cases:`
 * overrides laid over the cases they select. */
static void test_suite__load_expands_parameters(void **state)
{
	const char *path =
		write_tmp("version: \"1\"\nname: s\nbenchmarks:\n"
			  "  - name: gz\n"
			  "    parameters: {level: [1, 9], mode: [c, d x]}\n"
			  "    exclude: [{level: 9, mode: d x}]\n"
			  "    env: {L: \"${level}\"}\n"
			  "    cases:\n"
			  "      \"[level=9]\": {regression: {latency: {max_percent: 20%}},\n"
			  "                    budget: {a: {latency: {p95: \"<= 2s\"}}}}\n"
			  "    commands:\n"
			  "      a: {command: [x, \"-${level}\", \"${mode}\"], budget: {latency: "
			  "{mean: \"<= 1s\"}}}\n"
			  "      b: {command: \"x ${mode} ${root}\", shell: true}\n"
			  "  - name: plain\n    commands: {c: {command: [x]}}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s = NULL;
	const struct benchmark *b;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), 0);
	assert_int_equal(s->benchmark_count, 4);
	assert_string_equal(s->benchmarks[0].name, "gz[level=1,mode=c]");
	assert_string_equal(s->benchmarks[1].name, "gz[level=1,mode=d x]");
	assert_string_equal(s->benchmarks[2].name, "gz[level=9,mode=c]");
	assert_string_equal(s->benchmarks[3].name, "plain");
	assert_string_equal(s->benchmarks[3].base_name, "plain");
	assert_int_equal(s->benchmarks[3].param_count, 0);
	b = &s->benchmarks[1];
	assert_string_equal(b->base_name, "gz");
	assert_int_equal(b->param_count, 2);
	assert_string_equal(b->params[1].name, "mode");
	assert_string_equal(b->params[1].value, "d x");
	assert_string_equal(b->commands[0].exec.argv[1], "-1");
	assert_string_equal(b->commands[0].exec.argv[2], "d x");
	assert_string_equal(b->commands[1].exec.shell, "x 'd x' ${root}");
	assert_string_equal(b->commands[0].exec.env[0].value, "1");
	assert_true(b->regression.latency.max_fraction == 0.05);
	assert_int_equal(b->commands[0].budget_count, 1);
	assert_int_equal(b->commands[0].budgets[0].aggregation.kind, AGG_MEAN);
	b = &s->benchmarks[2];
	assert_true(b->regression.latency.max_fraction == 0.20);
	assert_int_equal(b->commands[0].budget_count, 1);
	assert_int_equal(b->commands[0].budgets[0].aggregation.kind, AGG_PERCENTILE);
	assert_int_equal(b->commands[0].budgets[0].pos.line, 10);
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
}

/* Sizes: the count substituted, the label as written, compare: false and
 * exponent budgets carried to the model. */
static void test_suite__load_sizes(void **state)
{
	const char *path = write_tmp(
		"version: \"1\"\nname: s\nbenchmarks:\n"
		"  - name: scan\n"
		"    sizes: [1k, {value: 1.5M, compare: false}]\n"
		"    regression: {exponent: {max_difference: 0.1}}\n"
		"    commands:\n"
		"      a: {command: [x, \"${size}\"], budget: {latency: {exponent: \"<= 1.2\", "
		"p95: \"<= 1s\"}}}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s = NULL;
	const struct benchmark *b;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), 0);
	assert_int_equal(s->benchmark_count, 2);
	b = &s->benchmarks[1];
	assert_string_equal(b->name, "scan[size=1.5M]");
	assert_true(b->has_size && b->size == 1500000);
	assert_true(b->no_compare);
	assert_false(s->benchmarks[0].no_compare);
	assert_string_equal(b->commands[0].exec.argv[1], "1500000");
	assert_true(b->regression.exponent_max_difference == 0.1);
	assert_int_equal(b->commands[0].budget_count, 1);
	assert_int_equal(b->commands[0].growth_budget_count, 1);
	assert_int_equal(b->commands[0].growth_budgets[0].metric, METRIC_LATENCY);
	assert_int_equal(b->commands[0].growth_budgets[0].op, BOUND_LE);
	assert_true(b->commands[0].growth_budgets[0].limit == 1.2);
	assert_string_equal(b->commands[0].growth_budgets[0].text, "<= 1.2");
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
}

/* Top-level x-* keys hold anchors the benchmarks share; anywhere else they
 * are still unknown keys. */
static void test_suite__x_keys_at_top_level_are_ignored(void **state)
{
	const char *path = write_tmp("version: \"1\"\nname: s\n"
				     "x-common: &common {runs: 12, warmup: 0}\n"
				     "x-other: [1, 2]\n"
				     "benchmarks:\n"
				     "  - name: b\n    <<: *common\n"
				     "    commands: {c: {command: [x]}}\n"
				     "  - name: d\n    x-note: 1\n"
				     "    commands: {c: {command: [x]}}\n");
	struct suite_diags diags;
	struct err err = ERR_INIT;
	struct suite *s = NULL;

	(void)state;
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), ERR_INVALID);
	assert_int_equal(diags.count, 1);
	assert_string_equal(diags.v[0].path, "benchmarks[1].x-note");
	assert_string_equal(diags.v[0].message, "unknown key \"x-note\" in benchmarks[1]");
	suite_diags_release(&diags);
	unlink(path);
	path = write_tmp("version: \"1\"\nname: s\n"
			 "x-common: &common {runs: 12, warmup: 0}\n"
			 "benchmarks:\n"
			 "  - name: b\n    <<: *common\n"
			 "    commands: {c: {command: [x]}}\n");
	suite_diags_init(&diags);
	assert_int_equal(suite_load(path, &s, &diags, &err), 0);
	assert_int_equal(diags.count, 0);
	assert_int_equal(s->benchmarks[0].runs, 12);
	suite_free(s);
	suite_diags_release(&diags);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite__vars_check),
		cmocka_unit_test(test_suite__vars_check_shell),
		cmocka_unit_test(test_suite__vars_expand),
		cmocka_unit_test(test_suite__vars_params),
		cmocka_unit_test(test_suite__ytree_core_schema),
		cmocka_unit_test(test_suite__ytree_merge_and_duplicates),
		cmocka_unit_test(test_suite__ytree_alias_positions_and_cycles),
		cmocka_unit_test(test_suite__ytree_columns_count_characters),
		cmocka_unit_test(test_suite__ytree_limits),
		cmocka_unit_test(test_suite__load_model),
		cmocka_unit_test(test_suite__artifact_size_layers),
		cmocka_unit_test(test_suite__instructions_layer),
		cmocka_unit_test(test_suite__command_metrics_layer),
		cmocka_unit_test(test_suite__command_metrics_errors),
		cmocka_unit_test(test_suite__command_metrics_in_cases),
		cmocka_unit_test(test_suite__load_collects_all_problems),
		cmocka_unit_test(test_suite__x_keys_at_top_level_are_ignored),
		cmocka_unit_test(test_suite__load_expands_parameters),
		cmocka_unit_test(test_suite__load_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
