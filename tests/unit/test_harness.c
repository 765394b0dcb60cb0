/*
 * Harness outputs read as samples (src/harness): every recording of a real
 * harness in tests/data/harness/ against the readable listing of what it
 * must parse to (<recording>.expected; HIMORIME_UPDATE_GOLDEN=1 rewrites
 * them, to be reviewed by eye), the converters of docs/configuration.md on
 * recorded Criterion.rs and JMH results, every error with its exact message
 * and position, the limits, and the selection arguments of each harness.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "harness/harness.h"
#include "harness/select.h"

#include "scratch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers */

static char *slurp(const char *path, size_t *len)
{
	struct err err = ERR_INIT;
	char *data = NULL;

	if (fsio_read_file(path, HARNESS_MAX_OUTPUT_BYTES, &data, len, &err))
		fail_msg("%s", err.msg);
	return data;
}

/* The listing of a parsed output: each benchmark, its error or its
 * metrics with unit, direction, median and every value, exact. */
static char *listing(const struct harness_output *out)
{
	struct strbuf sb;
	char name[HARNESS_MAX_NAME_BYTES * 4 + 1];
	size_t i, j, k;

	strbuf_init(&sb, 0);
	for (i = 0; i < out->n_benchmarks; i++) {
		const struct harness_benchmark *b = &out->benchmarks[i];
		err_escape(name, sizeof(name), b->name);
		strbuf_addf(&sb, "\"%s\"\n", name);
		if (b->error)
			strbuf_addf(&sb, "  failed: %s\n", b->error);
		for (j = 0; j < b->n_metrics; j++) {
			const struct harness_metric *m = &b->metrics[j];
			strbuf_addf(&sb,
				    "  %s in %s, better %s: %.17g, the median of %zu:", m->name,
				    m->unit, better_name(m->better), m->value, m->n_values);
			for (k = 0; k < m->n_values; k++)
				strbuf_addf(&sb, " %.17g", m->values[k]);
			strbuf_addch(&sb, '\n');
		}
	}
	return strbuf_detach(&sb, NULL);
}

static void parse_ok(enum harness_kind kind, const char *data, size_t len,
		     struct harness_output *out)
{
	struct err err = ERR_INIT;

	if (harness_parse(kind, data, len, "stdout", out, &err))
		fail_msg("%s", err.msg);
}

/* Parses and expects exactly this message. */
static void parse_bad(enum harness_kind kind, const char *data, size_t len, const char *want)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(harness_parse(kind, data, len, "stdout", &out, &err), ERR_INVALID);
	assert_int_equal(err.code, ERR_INVALID);
	assert_string_equal(err.msg, want);
	assert_int_equal(out.n_benchmarks, 0);
	assert_null(out.benchmarks);
	harness_output_release(&out);
}

static void bad(enum harness_kind kind, const char *data, const char *want)
{
	parse_bad(kind, data, strlen(data), want);
}

static void check_golden(const char *expected_path, const char *got)
{
	struct err err = ERR_INIT;
	char *want;
	size_t len;

	if (getenv("HIMORIME_UPDATE_GOLDEN")) {
		assert_int_equal(fsio_write_atomic(expected_path, got, strlen(got), &err), 0);
		return;
	}
	want = slurp(expected_path, &len);
	if (strcmp(got, want))
		fail_msg("%s differs from the parse (HIMORIME_UPDATE_GOLDEN=1 rewrites it: review "
			 "the diff)\n--- got\n%s",
			 expected_path, got);
	free(want);
}

/* ---- recorded outputs of the real harnesses */

static const struct {
	enum harness_kind kind;
	const char *recording;
} recordings[] = {
	{ HARNESS_GOOGLE_BENCHMARK, "google-benchmark/plain.json" },
	{ HARNESS_GOOGLE_BENCHMARK, "google-benchmark/repetitions.json" },
	{ HARNESS_GO_TEST, "go-test/benchmem-count.txt" },
	{ HARNESS_GO_TEST, "go-test/fail.txt" },
	{ HARNESS_GO_TEST, "go-test/cpu-list.txt" },
	{ HARNESS_PYTEST_BENCHMARK, "pytest-benchmark/bench.json" },
	{ HARNESS_CATCH2, "catch2/xml.xml" },
	{ HARNESS_CATCH2, "catch2/failed.xml" },
	{ HARNESS_HYPERFINE, "hyperfine/export.json" },
	{ HARNESS_LINES, "lines/example.jsonl" },
};

static void test_harness__recordings_parse_to_their_listings(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(recordings); i++) {
		struct harness_output out = HARNESS_OUTPUT_INIT;
		char *path = xasprintf("tests/data/harness/%s", recordings[i].recording);
		char *expected = xasprintf("%.*s.expected", (int)(strrchr(path, '.') - path), path);
		size_t len;
		char *data = slurp(path, &len), *got;
		parse_ok(recordings[i].kind, data, len, &out);
		got = listing(&out);
		check_golden(expected, got);
		free(got);
		harness_output_release(&out);
		free(data);
		free(expected);
		free(path);
	}
}

/* Whether a recording cut at `cut` may still be read: what is cut off is
 * blanks, or whole lines of `lines`, or what follows one of go test's
 * closing lines (a test binary run alone ends with PASS, no ok line). */
static bool cut_may_parse(enum harness_kind kind, const char *data, size_t len, size_t cut)
{
	size_t i, start = cut;

	for (i = cut; i < len && strchr(" \t\r\n", data[i]); i++)
		;
	if (i == len)
		return true;
	if (kind == HARNESS_LINES) {
		while (start > 0 && strchr(" \t\r", data[start - 1]))
			start--;
		return !start || data[start - 1] == '\n' || data[start - 1] == '}';
	}
	if (kind != HARNESS_GO_TEST)
		return false;
	if (data[start - 1] == '\n')
		start--;
	while (start > 0 && data[start - 1] != '\n')
		start--;
	return !strncmp(data + start, "PASS", 4) || !strncmp(data + start, "FAIL", 4) ||
	       !strncmp(data + start, "ok", 2);
}

/* Every prefix of a recording is a cut-short run: each is refused unless
 * cut_may_parse, never a crash (the sanitizers watch). */
static void test_harness__every_cut_of_a_recording_is_refused(void **state)
{
	size_t i, cut, len;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(recordings); i++) {
		char *path = xasprintf("tests/data/harness/%s", recordings[i].recording);
		char *data = slurp(path, &len);
		size_t step = len / 400 + 1;
		for (cut = 1; cut < len; cut += step) {
			struct harness_output out = HARNESS_OUTPUT_INIT;
			struct err err = ERR_INIT;
			int rc = harness_parse(recordings[i].kind, data, cut, "stdout", &out, &err);
			if (!rc && !cut_may_parse(recordings[i].kind, data, len, cut))
				fail_msg("%s cut at %zu parsed", path, cut);
			if (rc)
				assert_true(!strncmp(err.msg, "stdout:", 7));
			harness_output_release(&out);
		}
		free(data);
		free(path);
	}
}

/* The converters docs/configuration.md shows, run on recorded results of
 * Criterion.rs and JMH; their output read as `lines`. */
static void convert(const char *script, const char *arg1, const char *arg2, const char *expected)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	char *outpath = xasprintf("%s/lines.out", scratch_dir), *data, *got;
	char *argv[] = { (char *)"python3", (char *)script, (char *)arg1, (char *)arg2, NULL };
	size_t len;

	assert_int_equal(scratch_run(argv, outpath), 0);
	data = slurp(outpath, &len);
	parse_ok(HARNESS_LINES, data, len, &out);
	got = listing(&out);
	check_golden(expected, got);
	free(got);
	free(data);
	harness_output_release(&out);
	free(outpath);
}

static void test_harness__converters_read_recorded_criterion_and_jmh(void **state)
{
	(void)state;
	convert("examples/converters/criterion-to-lines.py", "tests/data/harness/lines/criterion",
		NULL, "tests/data/harness/lines/criterion-samples.expected");
	convert("examples/converters/criterion-to-lines.py", "--estimates",
		"tests/data/harness/lines/criterion",
		"tests/data/harness/lines/criterion-estimates.expected");
	convert("examples/converters/jmh-to-lines.py",
		"tests/data/harness/lines/jmh/jmh-result.json", NULL,
		"tests/data/harness/lines/jmh.expected");
}

/* docs/configuration.md shows each converter as it is in examples/. */
static void test_harness__docs_show_the_converters_as_they_are(void **state)
{
	static const char *const scripts[] = { "examples/converters/criterion-to-lines.py",
					       "examples/converters/jmh-to-lines.py" };
	size_t i, len;
	char *doc = slurp("docs/configuration.md", &len);

	(void)state;
	for (i = 0; i < ARRAY_SIZE(scripts); i++) {
		char *script = slurp(scripts[i], &len);
		if (!strstr(doc, script))
			fail_msg("docs/configuration.md does not show %s as it is", scripts[i]);
		free(script);
	}
	free(doc);
}

/* ---- what every kind shares */

static void test_harness__kind_names_round_trip(void **state)
{
	static const char *const names[] = { "google-benchmark", "go-test",   "pytest-benchmark",
					     "catch2",		 "hyperfine", "lines" };
	enum harness_kind k;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		assert_int_equal(harness_kind_from_name(names[i], &k), 0);
		assert_int_equal(k, (enum harness_kind)i);
		assert_string_equal(harness_kind_name(k), names[i]);
	}
	assert_int_equal(harness_kind_from_name("gbench", &k), -1);
	assert_int_equal(HARNESS__COUNT, ARRAY_SIZE(names));
}

static void test_harness__empty_output_is_refused(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < HARNESS__COUNT; k++)
		bad((enum harness_kind)k, "", "stdout: empty output");
}

static void test_harness__output_over_the_cap_is_refused(void **state)
{
	size_t len = HARNESS_MAX_OUTPUT_BYTES + 1;
	char *data = xmalloc(len);
	int k;

	(void)state;
	memset(data, '\n', len);
	for (k = 0; k < HARNESS__COUNT; k++)
		parse_bad((enum harness_kind)k, data, len, "stdout: output larger than 16 MiB");
	/* At the cap, read: blank lines, no value. */
	parse_bad(HARNESS_LINES, data, len - 1, "stdout: no line with a value");
	free(data);
}

static void test_harness__output_without_benchmarks_says_so(void **state)
{
	(void)state;
	bad(HARNESS_GOOGLE_BENCHMARK, "{\"benchmarks\": []}",
	    "stdout: no benchmark in $.benchmarks (only aggregates? run without "
	    "--benchmark_report_aggregates_only)");
	bad(HARNESS_GOOGLE_BENCHMARK,
	    "{\"benchmarks\": [{\"name\": \"BM_X_mean\", \"run_type\": \"aggregate\", "
	    "\"aggregate_name\": \"mean\", \"real_time\": 1, \"cpu_time\": 1, \"time_unit\": "
	    "\"ns\"}]}",
	    "stdout: no benchmark in $.benchmarks (only aggregates? run without "
	    "--benchmark_report_aggregates_only)");
	bad(HARNESS_GO_TEST, "goos: linux\nPASS\n",
	    "stdout: no benchmark result line (did -bench match any benchmark?)");
	bad(HARNESS_PYTEST_BENCHMARK, "{\"benchmarks\": []}",
	    "stdout: no benchmark in $.benchmarks");
	bad(HARNESS_CATCH2, "<?xml version=\"1.0\"?>\n<Catch name=\"x\"><Group/></Catch>\n",
	    "stdout: no BenchmarkResults element");
	bad(HARNESS_HYPERFINE, "{\"results\": []}", "stdout: no command in $.results");
	bad(HARNESS_LINES, "\n  \r\n\t\n", "stdout: no line with a value");
}

static void test_harness__lookups_find_benchmarks_and_metrics(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	struct strbuf sb;
	const struct harness_benchmark *b;
	char name[32];
	size_t i;

	(void)state;
	strbuf_init(&sb, 0);
	for (i = 0; i < 300; i++)
		strbuf_addf(&sb,
			    "{\"name\": \"b%zu\", \"value\": %zu, \"unit\": \"ms\", \"better\": "
			    "\"lower\"}\n",
			    i, i);
	parse_ok(HARNESS_LINES, sb.buf, sb.len, &out);
	assert_int_equal(out.n_benchmarks, 300);
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "b%zu", i);
		b = harness_output_find(&out, name);
		assert_non_null(b);
		assert_string_equal(b->name, name);
		assert_true(harness_benchmark_metric(b, "time")->value == (double)i * 1e6);
		assert_null(harness_benchmark_metric(b, "bytes"));
	}
	assert_null(harness_output_find(&out, "b300"));
	assert_null(harness_output_find(&out, ""));
	harness_output_release(&out);
	harness_output_release(&out); /* twice: released is empty */
	assert_null(harness_output_find(&out, "b1"));
	strbuf_release(&sb);
}

/* A failed parse leaves nothing behind, and a parse replaces what was there. */
static void test_harness__a_parse_replaces_the_output(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	struct err err = ERR_INIT;
	const char *one = "{\"name\": \"a\", \"value\": 1, \"unit\": \"s\", \"better\": \"lower\"}";
	const char *two = "{\"name\": \"b\", \"value\": 1, \"unit\": \"s\", \"better\": \"lower\"}";

	(void)state;
	parse_ok(HARNESS_LINES, one, strlen(one), &out);
	parse_ok(HARNESS_LINES, two, strlen(two), &out);
	assert_int_equal(out.n_benchmarks, 1);
	assert_null(harness_output_find(&out, "a"));
	assert_non_null(harness_output_find(&out, "b"));
	assert_int_equal(harness_parse(HARNESS_LINES, "x", 1, "stdout", &out, &err), ERR_INVALID);
	assert_int_equal(out.n_benchmarks, 0);
	harness_output_release(&out);
}

/* ---- Google Benchmark */

static const char gb_row[] = "{\"name\": \"%s\", \"run_type\": \"%s\", \"family_index\": %d, "
			     "\"per_family_instance_index\": 0, \"real_time\": %s, \"cpu_time\": "
			     "2, \"time_unit\": \"%s\"%s}";

static char *gb(const char *rows)
{
	return xasprintf("{\"context\": {}, \"benchmarks\": [%s]}", rows);
}

static char *gb_one(const char *name, const char *real, const char *unit, const char *extra)
{
	char *row = xasprintf(gb_row, name, "iteration", 0, real, unit, extra), *doc = gb(row);

	free(row);
	return doc;
}

static void test_harness__google_benchmark_skips_aggregates_merges_repetitions(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	char *r1 = xasprintf(gb_row, "BM_X", "iteration", 0, "3", "us", "");
	char *r2 = xasprintf(gb_row, "BM_X", "iteration", 0, "1", "us", "");
	char *agg = xasprintf(gb_row, "BM_X_mean", "aggregate", 0, "1000", "us", "");
	char *r3 = xasprintf(gb_row, "BM_X", "iteration", 0, "2", "us", "");
	char *rows = xasprintf("%s, %s, %s, %s", r1, r2, agg, r3), *doc = gb(rows);
	const struct harness_metric *m;

	(void)state;
	parse_ok(HARNESS_GOOGLE_BENCHMARK, doc, strlen(doc), &out);
	assert_int_equal(out.n_benchmarks, 1);
	m = harness_benchmark_metric(&out.benchmarks[0], "time");
	assert_int_equal(m->n_values, 3);
	assert_true(m->values[0] == 3000 && m->values[1] == 1000 && m->values[2] == 2000);
	assert_true(m->value == 2000);
	assert_string_equal(m->unit, "ns");
	assert_int_equal(harness_benchmark_metric(&out.benchmarks[0], "cpu_time")->n_values, 3);
	harness_output_release(&out);
	free(doc);
	free(rows);
	free(r1);
	free(r2);
	free(r3);
	free(agg);
}

/* Rows without run_type (before 1.5) are iterations unless they name an
 * aggregate; a benchmark skipped on purpose is left out; one skipped with
 * an error is failed. */
static void test_harness__google_benchmark_old_rows_skips_and_errors(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	const char *doc =
		"{\"benchmarks\": ["
		"{\"name\": \"BM_A\", \"real_time\": 5, \"cpu_time\": 4, \"time_unit\": \"ms\"},"
		"{\"name\": \"BM_A_mean\", \"aggregate_name\": \"mean\", \"real_time\": 5},"
		"{\"name\": \"BM_S\", \"run_type\": \"iteration\", \"skipped\": true, "
		"\"skip_message\": \"later\"},"
		"{\"name\": \"BM_E\", \"run_type\": \"iteration\", \"error_occurred\": true, "
		"\"error_message\": \"no input\\nsecond line\", \"real_time\": 0}]}";

	(void)state;
	parse_ok(HARNESS_GOOGLE_BENCHMARK, doc, strlen(doc), &out);
	assert_int_equal(out.n_benchmarks, 2);
	assert_string_equal(out.benchmarks[0].name, "BM_A");
	assert_true(out.benchmarks[0].metrics[0].value == 5e6);
	assert_null(out.benchmarks[0].error);
	assert_string_equal(out.benchmarks[1].name, "BM_E");
	assert_string_equal(out.benchmarks[1].error, "no input");
	assert_int_equal(out.benchmarks[1].n_metrics, 0);
	harness_output_release(&out);
}

static void test_harness__google_benchmark_errors_name_the_field(void **state)
{
	static const struct {
		const char *name, *real, *unit, *extra, *want;
	} cases[] = {
		{ "BM_X", "-1", "ns", "",
		  "stdout: $.benchmarks[0].real_time: expected a number >= 0, got -1" },
		{ "BM_X", "\"1\"", "ns", "",
		  "stdout: $.benchmarks[0].real_time: expected a number >= 0, got \"1\"" },
		{ "BM_X", "1", "ks", "",
		  "stdout: $.benchmarks[0].time_unit: expected \"ns\", \"us\", \"ms\" or \"s\", "
		  "got "
		  "\"ks\"" },
		{ "BM_X", "1e308", "s", "",
		  "stdout: $.benchmarks[0].real_time: time: expected a finite number >= 0, got "
		  "inf" },
		{ "BM_X", "1", "ns", ", \"bytes_per_second\": -5",
		  "stdout: $.benchmarks[0]: bytes_per_second: expected a finite number >= 0, got "
		  "-5" },
		{ "BM_X", "1", "ns", ", \"run_type\": \"x\"",
		  "stdout: $.benchmarks[0]: duplicate key \"run_type\"" },
		{ "", "1", "ns", "", "stdout: $.benchmarks[0].name: empty benchmark name" },
		{ "BM_X", "1", "ns",
		  ", \"a_counter_whose_name_is_much_longer_than_sixty_four_bytes_of_text_x\": 1",
		  "stdout: $.benchmarks[0]: counter name "
		  "\"a_counter_whose_name_is_much_longer_than_sixty_four_bytes_of_tex...\" longer "
		  "than 64 bytes" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *doc = gb_one(cases[i].name, cases[i].real, cases[i].unit, cases[i].extra);
		bad(HARNESS_GOOGLE_BENCHMARK, doc, cases[i].want);
		free(doc);
	}
}

static void test_harness__google_benchmark_structure_errors(void **state)
{
	static const struct {
		const char *doc, *want;
	} cases[] = {
		{ "[]", "stdout: $: expected an object, got an array" },
		{ "{}", "stdout: $: missing \"benchmarks\"" },
		{ "{\"benchmarks\": null}", "stdout: $: missing \"benchmarks\"" },
		{ "{\"benchmarks\": {}}",
		  "stdout: $.benchmarks: expected an array, got an object" },
		{ "{\"benchmarks\": [3]}", "stdout: $.benchmarks[0]: expected an object, got 3" },
		{ "{\"benchmarks\": [{\"real_time\": 1}]}",
		  "stdout: $.benchmarks[0]: missing \"name\"" },
		{ "{\"benchmarks\": [{\"name\": 3}]}",
		  "stdout: $.benchmarks[0].name: expected a string, got 3" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": \"other\"}]}",
		  "stdout: $.benchmarks[0].run_type: expected \"iteration\" or \"aggregate\", got "
		  "\"other\"" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1}]}",
		  "stdout: $.benchmarks[0]: missing \"time_unit\"" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"time_unit\": \"ns\", \"real_time\": 1}]}",
		  "stdout: $.benchmarks[0]: missing \"cpu_time\"" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"family_index\": -1}]}",
		  "stdout: $.benchmarks[0].family_index: expected a number >= 0, got -1" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"family_index\": 5e9}]}",
		  "stdout: $.benchmarks[0].family_index: expected an index below 2^32" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"real_time\": NaN}]}",
		  "stdout:1:44: expected a finite number, got NaN" },
		{ "{\"benchmarks\": [{\"name\": \"a\",\n \"real_time\": -Infinity}]}",
		  "stdout:2:15: expected a finite number, got -Infinity" },
		{ "{\"benchmarks\": [{\"name\": \"NaN\", \"real_time\": Infinity}]}",
		  "stdout:1:46: expected a finite number, got Infinity" },
		{ "{\"benchmarks\": [{\"name\": \"a\"",
		  "stdout:1:29: unexpected end of the document" },
		{ "{\"benchmarks\": []} {}", "stdout:1:20: unexpected text after the document" },
		{ "{\"benchmarks\": [],}", "stdout:1:19: invalid JSON" },
		{ "\xef\xbb\xbf{}",
		  "stdout:1:1: starts with a byte order mark; expected plain UTF-8" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		bad(HARNESS_GOOGLE_BENCHMARK, cases[i].doc, cases[i].want);
}

/* Two instances that report one name are two benchmarks, not repetitions. */
static void test_harness__google_benchmark_name_of_two_instances_is_refused(void **state)
{
	char *r1 = xasprintf(gb_row, "BM_X", "iteration", 0, "1", "ns", "");
	char *r2 = xasprintf(gb_row, "BM_X", "iteration", 0, "2", "ns", "");
	char *r3 = xasprintf(gb_row, "BM_X", "iteration", 1, "3", "ns", "");
	char *rows = xasprintf("%s, %s, %s", r1, r2, r3), *doc = gb(rows);

	(void)state;
	bad(HARNESS_GOOGLE_BENCHMARK, doc,
	    "stdout: $.benchmarks[2].name: benchmark name \"BM_X\" repeated (first at "
	    "$.benchmarks[0].name)");
	free(doc);
	free(rows);
	free(r1);
	free(r2);
	free(r3);
}

static void test_harness__json_nested_too_deep_is_refused(void **state)
{
	char doc[200];

	(void)state;
	memset(doc, '[', 65);
	doc[65] = '\0';
	bad(HARNESS_GOOGLE_BENCHMARK, doc, "stdout:1:65: nested deeper than 64 levels");
}

/* ---- go test */

static void test_harness__go_test_result_lines_and_the_rest(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	const char *text = "goos: linux\r\n"
			   "Benchmarking is fun\n"
			   "BenchmarkA-4 \t 10\t 5 ns/op\t 2.5 MB/s\t 3 things\r\n"
			   "    a_test.go:3: a log line\n"
			   "--- BENCH: BenchmarkA-4\n"
			   "--- FAIL: TestUnrelated (0.00s)\n"
			   "Benchmark-4 \t 1\t 7 ns/op\n"
			   "BenchmarkA-4 \t 10\t 6 ns/op\t 2 MB/s\t 4 things\n"
			   "PASS\n"
			   "ok  \texample.com/x\t0.01s\n\n";
	const struct harness_benchmark *a, *b;

	(void)state;
	parse_ok(HARNESS_GO_TEST, text, strlen(text), &out);
	assert_int_equal(out.n_benchmarks, 2);
	a = harness_output_find(&out, "BenchmarkA");
	b = harness_output_find(&out, "Benchmark");
	assert_non_null(a);
	assert_non_null(b);
	assert_true(harness_benchmark_metric(a, "time")->value == 5.5);
	assert_true(harness_benchmark_metric(a, "bytes_per_second")->values[0] == 2.5e6);
	assert_int_equal(harness_benchmark_metric(a, "bytes_per_second")->better, BETTER_HIGHER);
	assert_int_equal(harness_benchmark_metric(a, "things")->better, BETTER_NEUTRAL);
	assert_string_equal(harness_benchmark_metric(a, "things")->unit, "things");
	assert_true(harness_benchmark_metric(b, "time")->value == 7);
	harness_output_release(&out);
}

static void test_harness__go_test_errors_name_line_and_column(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "BenchmarkX-2   \t",
		  "stdout:1:17: expected the iteration count after the benchmark name, got the end "
		  "of the line" },
		{ "BenchmarkX-2   \thello\n     100\t 905.9 ns/op\nPASS\n",
		  "stdout:1:17: expected the iteration count after the benchmark name, got "
		  "\"hello\" (did the benchmark print on standard output?)" },
		{ "BenchmarkX-2 \t 0\t 5 ns/op\nPASS\n",
		  "stdout:1:16: expected the iteration count after the benchmark name, got \"0\" "
		  "(did the benchmark print on standard output?)" },
		{ "BenchmarkX-2 \t 1.5\t 5 ns/op\nPASS\n",
		  "stdout:1:16: expected the iteration count after the benchmark name, got \"1.5\" "
		  "(did the benchmark print on standard output?)" },
		{ "BenchmarkX-2 \t 100\n",
		  "stdout:1:19: expected values and units after the iteration count" },
		{ "BenchmarkX-2 \t 100 \t 12\n", "stdout:1:24: expected a unit after 12" },
		{ "BenchmarkX-2 \t 100 \t NaN ns/op\n",
		  "stdout:1:22: expected a number, got \"NaN\"" },
		{ "BenchmarkX-2 \t 100 \t 5ns/op\n",
		  "stdout:1:22: expected a number, got \"5ns/op\"" },
		{ "BenchmarkX-2 \t 100 \t -5 ns/op\n",
		  "stdout:1:22: time: expected a finite number >= 0, got -5" },
		{ "BenchmarkX-2 \t 100 \t 5 ns/op 6 ns/op\n",
		  "stdout:1:32: unit ns/op twice on one line" },
		{ "BenchmarkX-2 \t 100 \t 5 a_unit_name_that_is_longer_than_32_bytes\n",
		  "stdout:1:24: unit longer than 32 bytes" },
		{ "BenchmarkX\xff-2 \t 100 \t 5 ns/op\nPASS\n",
		  "stdout:1:1: benchmark name \"BenchmarkX\": invalid UTF-8 at byte 11" },
		{ "goos: linux\nBenchmarkX-2 \t 100 \t 5 ns/op\n",
		  "stdout:3: output ends early: expected go test's closing PASS, FAIL or ok line" },
		{ "BenchmarkX-2 \t 100 \t 5 ns/op\nBenchmarkY-2 \t 100 \t 5 ns/op",
		  "stdout:3: output ends early: expected go test's closing PASS, FAIL or ok line" },
		{ "BenchmarkX-2 \t 100 \t 5 ns/op\nFAIL\n",
		  "stdout:2:1: go test reported FAIL and named no failed benchmark (a test failed, "
		  "or the program panicked?)" },
		{ "BenchmarkX-2 \t 100 \t 5 ns/op\n--- FAIL: TestY (0.00s)\nFAIL\texample.com/x\n",
		  "stdout:3:1: go test reported FAIL and named no failed benchmark (a test failed, "
		  "or the program panicked?)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		bad(HARNESS_GO_TEST, cases[i].text, cases[i].want);
}

/* "--- FAIL: BenchmarkX" marks X failed with its log's first line; the
 * others keep their values, and the closing FAIL is then no error. */
static void test_harness__go_test_failed_benchmark_is_named(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	const char *text = "BenchmarkOk-2 \t 10\t 5 ns/op\n"
			   "--- FAIL: BenchmarkBad-2\n"
			   "    x_test.go:9: boom\n"
			   "    x_test.go:10: more\n"
			   "--- FAIL: BenchmarkQuiet\n"
			   "FAIL\n"
			   "exit status 1\n"
			   "FAIL\texample.com/x\t0.01s\n";

	(void)state;
	parse_ok(HARNESS_GO_TEST, text, strlen(text), &out);
	assert_int_equal(out.n_benchmarks, 3);
	assert_null(out.benchmarks[0].error);
	assert_string_equal(out.benchmarks[1].name, "BenchmarkBad");
	assert_string_equal(out.benchmarks[1].error, "x_test.go:9: boom");
	assert_string_equal(out.benchmarks[2].name, "BenchmarkQuiet");
	assert_string_equal(out.benchmarks[2].error, "failed");
	harness_output_release(&out);
}

static char *go_lines(size_t n)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb, 0);
	for (i = 0; i < n; i++)
		strbuf_addf(&sb, "BenchmarkN%zu-2 \t 1\t 5 ns/op\n", i);
	strbuf_adds(&sb, "PASS\n");
	return strbuf_detach(&sb, NULL);
}

static void test_harness__a_hundred_thousand_benchmarks_stop_at_the_cap(void **state)
{
	char *ok = go_lines(HARNESS_MAX_BENCHMARKS), *many = go_lines(100000);
	struct harness_output out = HARNESS_OUTPUT_INIT;

	(void)state;
	parse_ok(HARNESS_GO_TEST, ok, strlen(ok), &out);
	assert_int_equal(out.n_benchmarks, HARNESS_MAX_BENCHMARKS);
	assert_string_equal(out.benchmarks[999].name, "BenchmarkN999");
	harness_output_release(&out);
	bad(HARNESS_GO_TEST, many, "stdout:1001:1: more than 1000 benchmarks");
	free(ok);
	free(many);
}

/* ---- pytest-benchmark */

static void test_harness__pytest_benchmark_errors_name_the_field(void **state)
{
	static const struct {
		const char *doc, *want;
	} cases[] = {
		{ "{\"benchmarks\": [{\"name\": \"t\", \"stats\": {}}]}",
		  "stdout: $.benchmarks[0]: missing \"fullname\"" },
		{ "{\"benchmarks\": [{\"fullname\": \"t\"}]}",
		  "stdout: $.benchmarks[0]: missing \"stats\"" },
		{ "{\"benchmarks\": [{\"fullname\": \"t\", \"stats\": []}]}",
		  "stdout: $.benchmarks[0].stats: expected an object, got an array" },
		{ "{\"benchmarks\": [{\"fullname\": \"t\", \"stats\": {}}]}",
		  "stdout: $.benchmarks[0].stats: missing \"median\"" },
		{ "{\"benchmarks\": [{\"fullname\": \"t\", \"stats\": {\"data\": []}}]}",
		  "stdout: $.benchmarks[0].stats.data: expected at least one round" },
		{ "{\"benchmarks\": [{\"fullname\": \"t\", \"stats\": {\"data\": 1}}]}",
		  "stdout: $.benchmarks[0].stats.data: expected an array, got 1" },
		{ "{\"benchmarks\": [{\"fullname\": \"t\", \"stats\": {\"data\": [1e-6, -1e-6]}}]}",
		  "stdout: $.benchmarks[0].stats.data[1]: expected a number >= 0, got "
		  "-9.9999999999999995e-07" },
		{ "{\"benchmarks\": [{\"fullname\": \"t\", \"stats\": {\"data\": [NaN]}}]}",
		  "stdout:1:54: expected a finite number, got NaN" },
		{ "{\"benchmarks\": [{\"fullname\": \"t\", \"stats\": {\"median\": 1}}, "
		  "{\"fullname\": \"t\", \"stats\": {\"median\": 2}}]}",
		  "stdout: $.benchmarks[1].fullname: benchmark name \"t\" repeated (first at "
		  "$.benchmarks[0].fullname)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		bad(HARNESS_PYTEST_BENCHMARK, cases[i].doc, cases[i].want);
}

/* A file without the rounds (stats.data) gives its median as the one value. */
static void test_harness__pytest_benchmark_without_data_uses_the_median(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	const char *doc = "{\"benchmarks\": [{\"fullname\": \"a.py::t\", \"stats\": {\"median\": "
			  "0.25, \"mean\": 9}}]}";

	(void)state;
	parse_ok(HARNESS_PYTEST_BENCHMARK, doc, strlen(doc), &out);
	assert_int_equal(out.benchmarks[0].metrics[0].n_values, 1);
	assert_true(out.benchmarks[0].metrics[0].value == 2.5e8);
	harness_output_release(&out);
}

/* ---- Catch2 */

static void test_harness__catch2_xml_errors_name_line_and_column(void **state)
{
	static const struct {
		const char *xml, *want;
	} cases[] = {
		{ "<Catch>\n  <Group>\n    <TestCase name=\"t\">\n",
		  "stdout:4:1: output ends inside <TestCase> (opened at 3:5)" },
		{ "<Catch><Group></Catch>", "stdout:1:15: expected </Group>, got </Catch>" },
		{ "<Catch></Catch></Catch>", "stdout:1:16: an end tag with no element open" },
		{ "<Catch/><Catch/>", "stdout:1:9: a second root element" },
		{ "text<Catch/>", "stdout:1:1: text outside the root element" },
		{ "<Catch/>\ntext", "stdout:2:1: text outside the root element" },
		{ "", "stdout: empty output" },
		{ "   \n", "stdout:2:1: no root element" },
		{ "<!DOCTYPE x [<!ENTITY a \"b\">]><Catch/>",
		  "stdout:1:1: a DOCTYPE or declaration (not accepted)" },
		{ "<Catch><!-- open", "stdout:1:8: unterminated comment" },
		{ "<?xml version=\"1.0\"", "stdout:1:1: unterminated processing instruction" },
		{ "<Catch><TestCase name=\"a &bogus; b\"/></Catch>",
		  "stdout:1:26: expected an entity (&lt; &gt; &amp; &quot; &apos;) or a character "
		  "reference after '&'" },
		{ "<Catch>a & b</Catch>",
		  "stdout:1:10: expected an entity (&lt; &gt; &amp; &quot; &apos;) or a character "
		  "reference after '&'" },
		{ "<Catch><TestCase name=\"&#0;\"/></Catch>",
		  "stdout:1:24: expected an entity (&lt; &gt; &amp; &quot; &apos;) or a character "
		  "reference after '&'" },
		{ "<Catch><TestCase name=\"&#xD800;\"/></Catch>",
		  "stdout:1:24: expected an entity (&lt; &gt; &amp; &quot; &apos;) or a character "
		  "reference after '&'" },
		{ "<Catch><TestCase name=\"a\" name=\"b\"/></Catch>",
		  "stdout:1:27: attribute name twice" },
		{ "<Catch><TestCase name=\"a<b\"/></Catch>",
		  "stdout:1:24: '<' in an attribute value" },
		{ "<Catch><TestCase name=\"a\"", "stdout:1:8: unterminated start tag" },
		{ "<Catch><TestCase name=\"a", "stdout:1:23: unterminated attribute value" },
		{ "<Catch><TestCase name=a/></Catch>",
		  "stdout:1:23: expected a quoted attribute value" },
		{ "<Catch><TestCase name/></Catch>",
		  "stdout:1:22: expected '=' after the attribute's name" },
		{ "<Catch><TestCase name=\"a\"x=\"b\"/></Catch>",
		  "stdout:1:26: expected a space, '>' or '/>'" },
		{ "<Catch>< TestCase/></Catch>", "stdout:1:9: expected a name" },
		{ "<Catch>\n\x01</Catch>",
		  "stdout:2:1: control character 0x01 (none is allowed in XML)" },
		{ "<Catch>\n\x1b[31m</Catch>",
		  "stdout:2:1: control character 0x1b (none is allowed in XML)" },
		{ "<Catch>\xc3\x28</Catch>", "stdout:1:8: invalid UTF-8" },
		{ "<Catch/>\n<Catch", "stdout:2:1: a second root element" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		bad(HARNESS_CATCH2, cases[i].xml, cases[i].want);
}

static void test_harness__catch2_structure_errors(void **state)
{
	static const struct {
		const char *xml, *want;
	} cases[] = {
		{ "<Other/>",
		  "stdout:1:1: expected the root element <Catch> (Catch2 v2's -r xml)" },
		{ "<Catch><BenchmarkResults name=\"b\"/></Catch>",
		  "stdout:1:8: BenchmarkResults outside a TestCase" },
		{ "<Catch><Section name=\"s\"/></Catch>",
		  "stdout:1:8: a Section outside a TestCase" },
		{ "<Catch><TestCase name=\"t\"><TestCase name=\"u\"/></TestCase></Catch>",
		  "stdout:1:27: a TestCase inside a TestCase" },
		{ "<Catch><TestCase><BenchmarkResults name=\"b\"/></TestCase></Catch>",
		  "stdout:1:8: missing the attribute name" },
		{ "<Catch><TestCase name=\"t\"><BenchmarkResults/></TestCase></Catch>",
		  "stdout:1:27: missing the attribute name" },
		{ "<Catch><TestCase name=\"t\"><BenchmarkResults name=\"b\"/></TestCase></Catch>",
		  "stdout:1:27: BenchmarkResults without a mean or a failed element" },
		{ "<Catch><TestCase name=\"t\"><BenchmarkResults "
		  "name=\"b\"><mean/></BenchmarkResults>"
		  "</TestCase></Catch>",
		  "stdout:1:54: missing the attribute value" },
		{ "<Catch><TestCase name=\"t\"><BenchmarkResults name=\"b\"><mean value=\"nan\"/>"
		  "</BenchmarkResults></TestCase></Catch>",
		  "stdout:1:54: mean: expected a number, got \"nan\"" },
		{ "<Catch><TestCase name=\"t\"><BenchmarkResults name=\"b\"><mean value=\"-3\"/>"
		  "</BenchmarkResults></TestCase></Catch>",
		  "stdout:1:54: time: expected a finite number >= 0, got -3" },
		{ "<Catch><TestCase name=\"t\"><BenchmarkResults name=\"b\"><BenchmarkResults "
		  "name=\"c\"/></BenchmarkResults></TestCase></Catch>",
		  "stdout:1:54: BenchmarkResults inside BenchmarkResults" },
		{ "<Catch><TestCase name=\"t\"><BenchmarkResults name=\"b\"><Section name=\"s\"/>"
		  "</BenchmarkResults></TestCase></Catch>",
		  "stdout:1:54: a TestCase or Section inside BenchmarkResults" },
		{ "<Catch><TestCase name=\"t\"><BenchmarkResults name=\"b\"><mean value=\"1\"/>"
		  "</BenchmarkResults><BenchmarkResults name=\"b\"/></TestCase></Catch>",
		  "stdout:1:90: benchmark name \"t/b\" repeated (first at 1:27)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		bad(HARNESS_CATCH2, cases[i].xml, cases[i].want);
}

static void test_harness__catch2_nesting_is_capped(void **state)
{
	struct strbuf sb;
	size_t i;

	(void)state;
	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "<Catch><TestCase name=\"t\">");
	for (i = 0; i < 63; i++)
		strbuf_adds(&sb, "<Section name=\"s\">");
	bad(HARNESS_CATCH2, sb.buf, "stdout:1:1143: elements nested deeper than 64 levels");
	strbuf_release(&sb);
}

/* Names are data: entities and character references decoded, a line
 * break kept, and what looks like markup left for the renderers. */
static void test_harness__catch2_names_are_decoded_data(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	const char *xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- c -->\n"
			  "<Catch name='x'><Group><TestCase name=\"a&#10;b &lt;i&gt; | &#x2603; "
			  "&apos;q&apos; ::\"><BenchmarkResults name=\"**x**\">"
			  "<![CDATA[ <not> & markup ]]><mean value=\"1.5e3\" ci=\"0\"/>"
			  "</BenchmarkResults></TestCase></Group></Catch>\n<!-- after -->\n";

	(void)state;
	parse_ok(HARNESS_CATCH2, xml, strlen(xml), &out);
	assert_string_equal(out.benchmarks[0].name, "a\nb <i> | \xe2\x98\x83 'q' ::/**x**");
	assert_true(out.benchmarks[0].metrics[0].value == 1500);
	harness_output_release(&out);
}

/* ---- hyperfine */

static void test_harness__hyperfine_errors_name_the_field(void **state)
{
	static const struct {
		const char *doc, *want;
	} cases[] = {
		{ "{}", "stdout: $: missing \"results\"" },
		{ "{\"results\": 1}", "stdout: $.results: expected an array, got 1" },
		{ "{\"results\": [{\"times\": [1]}]}",
		  "stdout: $.results[0]: missing \"command\"" },
		{ "{\"results\": [{\"command\": \"a\"}]}",
		  "stdout: $.results[0]: missing \"times\"" },
		{ "{\"results\": [{\"command\": \"a\", \"times\": []}]}",
		  "stdout: $.results[0].times: expected at least one run" },
		{ "{\"results\": [{\"command\": \"a\", \"times\": [0.5, -0.5]}]}",
		  "stdout: $.results[0].times[1]: expected a number >= 0, got -0.5" },
		{ "{\"results\": [{\"command\": \"a\", \"times\": [true]}]}",
		  "stdout: $.results[0].times[0]: expected a number >= 0, got true" },
		{ "{\"results\": [{\"command\": \"a\", \"times\": [1]}, {\"command\": \"a\", "
		  "\"times\": [2]}]}",
		  "stdout: $.results[1].command: benchmark name \"a\" repeated (first at "
		  "$.results[0].command)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		bad(HARNESS_HYPERFINE, cases[i].doc, cases[i].want);
}

static void test_harness__values_stop_at_the_cap(void **state)
{
	struct strbuf sb;
	size_t i;

	(void)state;
	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "{\"results\": [{\"command\": \"a\", \"times\": [0");
	for (i = 1; i <= HARNESS_MAX_VALUES; i++)
		strbuf_adds(&sb, ",0");
	strbuf_adds(&sb, "]}]}");
	parse_bad(HARNESS_HYPERFINE, sb.buf, sb.len,
		  "stdout: $.results[0].times[1000000]: more than 1000000 values");
	strbuf_reset(&sb);
	strbuf_adds(&sb, "{\"results\": [0");
	for (i = 1; i <= HARNESS_MAX_JSON_VALUES; i++)
		strbuf_adds(&sb, ",0");
	strbuf_adds(&sb, "]}");
	parse_bad(HARNESS_HYPERFINE, sb.buf, sb.len, "stdout:1:4000008: more than 2000000 values");
	strbuf_release(&sb);
}

/* ---- lines */

static void test_harness__lines_errors_name_the_line(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "{", "stdout:1:2: unexpected end of the document" },
		{ "\n\n{\"name\": \"a\", \"value\": 1, \"unit\": \"s\", \"better\": \"lower\"} x",
		  "stdout:3:59: unexpected text after the document" },
		{ "[1]", "stdout:1: $: expected an object, got an array" },
		{ "{\"name\": \"a\", \"value\": 1, \"unit\": \"s\", \"beter\": \"lower\"}",
		  "stdout:1: $: unknown key \"beter\"; expected name, value, unit, better or "
		  "metric" },
		{ "{\"value\": 1, \"unit\": \"s\", \"better\": \"lower\"}",
		  "stdout:1: $: missing \"name\"" },
		{ "{\"name\": \"a\", \"unit\": \"s\", \"better\": \"lower\"}",
		  "stdout:1: $: missing \"value\"" },
		{ "{\"name\": \"a\", \"value\": 1, \"better\": \"lower\"}",
		  "stdout:1: $: missing \"unit\"" },
		{ "{\"name\": \"a\", \"value\": 1, \"unit\": \"s\"}",
		  "stdout:1: $: missing \"better\"" },
		{ "{\"name\": \"a\", \"value\": 1, \"unit\": \"s\", \"better\": \"up\"}",
		  "stdout:1: $.better: expected \"lower\" or \"higher\", got \"up\"" },
		{ "{\"name\": \"a\", \"value\": 1, \"unit\": \"\", \"better\": \"lower\"}",
		  "stdout:1: $.unit: expected 1 to 32 bytes, got 0" },
		{ "{\"name\": \"a\", \"value\": 1, \"unit\": \"s\", \"better\": \"lower\", "
		  "\"metric\": "
		  "\"a_metric_name_that_is_longer_than_sixty_four_bytes_of_plain_texts\"}",
		  "stdout:1: $.metric: expected 1 to 64 bytes, got 65" },
		{ "{\"name\": 1, \"value\": 1, \"unit\": \"s\", \"better\": \"lower\"}",
		  "stdout:1: $.name: expected a string, got 1" },
		{ "{\"name\": \"a\", \"value\": \"1\", \"unit\": \"s\", \"better\": \"lower\"}",
		  "stdout:1: $.value: expected a number >= 0, got \"1\"" },
		{ "{\"name\": \"a\", \"value\": -1, \"unit\": \"s\", \"better\": \"lower\"}",
		  "stdout:1: $.value: expected a number >= 0, got -1" },
		{ "{\"name\": \"a\", \"value\": 1e300, \"unit\": \"s\", \"better\": \"lower\"}",
		  "stdout:1: $.value: time: expected a finite number >= 0, got inf" },
		{ "\n{\"name\": \"a\", \"value\": NaN, \"unit\": \"s\", \"better\": \"lower\"}",
		  "stdout:2:24: expected a finite number, got NaN" },
		{ "{\"name\": \"a\", \"name\": \"b\", \"value\": 1, \"unit\": \"s\", \"better\": "
		  "\"lower\"}",
		  "stdout:1: $: duplicate key \"name\"" },
		{ "{\"name\": \"\", \"value\": 1, \"unit\": \"s\", \"better\": \"lower\"}",
		  "stdout:1: $.name: empty benchmark name" },
		{ "{\"name\": \"a\", \"value\": 1, \"unit\": \"B\", \"better\": \"lower\"}\n"
		  "{\"name\": \"a\", \"value\": 1, \"unit\": \"B\", \"better\": \"higher\"}",
		  "stdout:2: $.value: benchmark \"a\": B in B (higher is better) here, in B "
		  "(lower) "
		  "before" },
		{ "{\"name\": \"a\", \"value\": 1, \"unit\": \"ms\", \"better\": \"lower\", "
		  "\"metric\": "
		  "\"m\"}\n{\"name\": \"a\", \"value\": 1, \"unit\": \"B\", \"better\": \"lower\", "
		  "\"metric\": \"m\"}",
		  "stdout:2: $.value: benchmark \"a\": m in B (lower is better) here, in ns "
		  "(lower) "
		  "before" },
		{ "{\"name\": \"a\\u0000\", \"value\": 1, \"unit\": \"s\", \"better\": \"lower\"}",
		  "stdout:1:12: \\u0000 in a string" },
		{ "{\"name\": \"a\nb\", \"value\": 1}",
		  "stdout:1:12: unexpected end of the document" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		bad(HARNESS_LINES, cases[i].text, cases[i].want);
}

static void test_harness__lines_limits(void **state)
{
	struct strbuf sb;
	char name[HARNESS_MAX_NAME_BYTES + 2];
	size_t i;

	(void)state;
	strbuf_init(&sb, 0);
	for (i = 0; i < 100000; i++)
		strbuf_addf(&sb,
			    "{\"name\": \"b%zu\", \"value\": 1, \"unit\": \"s\", \"better\": "
			    "\"lower\"}\n",
			    i);
	parse_bad(HARNESS_LINES, sb.buf, sb.len, "stdout:1001: $.name: more than 1000 benchmarks");
	strbuf_reset(&sb);
	for (i = 0; i <= HARNESS_MAX_METRICS; i++)
		strbuf_addf(
			&sb,
			"{\"name\": \"b\", \"metric\": \"m%zu\", \"value\": 1, \"unit\": \"s\", "
			"\"better\": \"lower\"}\n",
			i);
	parse_bad(HARNESS_LINES, sb.buf, sb.len,
		  "stdout:65: $.value: benchmark \"b\": more than 64 metrics");
	strbuf_reset(&sb);
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	strbuf_addf(&sb, "{\"name\": \"%s\", \"value\": 1, \"unit\": \"s\", \"better\": \"lower\"}",
		    name);
	parse_bad(HARNESS_LINES, sb.buf, sb.len,
		  "stdout:1: $.name: benchmark name "
		  "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		  "xx\"."
		  ".. longer than 1024 bytes");
	strbuf_release(&sb);
}

/* A NUL byte in a name of a text output is refused where it stands. */
static void test_harness__nul_in_a_name_is_refused(void **state)
{
	static const char text[] = "BenchmarkA\0B-2 \t 1\t 5 ns/op\nPASS\n";

	(void)state;
	parse_bad(HARNESS_GO_TEST, text, sizeof(text) - 1,
		  "stdout:1:1: benchmark name \"BenchmarkA\": NUL at byte 11");
}

/* ---- selection */

static void test_harness__filters_match_whole_names_as_globs(void **state)
{
	static const struct {
		const char *filter, *name;
		bool match;
	} cases[] = {
		{ "BM_Sort/*", "BM_Sort/64", true },
		{ "BM_Sort/*", "BM_Sort/64/8", true },
		{ "BM_Sort/*", "BM_Sort", false },
		{ "BM_Sort/*", "BM_Sort/", true },
		{ "BM_Sort", "BM_Sort/64", false },
		{ "BM_Sort", "BM_Sort", true },
		{ "*", "", true },
		{ "*", "anything", true },
		{ "", "", true },
		{ "?", "\xc3\xa9", true },
		{ "??", "\xc3\xa9", false },
		{ "a?c", "abc", true },
		{ "a?c", "ac", false },
		{ "*Sort*", "BM_Sort/64", true },
		{ "*/64", "BM_Sort/64", true },
		{ "*/64", "BM_Sort/640", false },
		{ "a*b*c", "axxbyyc", true },
		{ "a*b*c", "axxbyy", false },
		{ "a.b+c(d)[e]", "a.b+c(d)[e]", true },
		{ "a.b", "axb", false },
		{ "\\*", "*", true },
		{ "\\*", "x", false },
		{ "\\?", "?", true },
		{ "\\\\", "\\", true },
		{ "a\\b", "ab", true },
		{ "test_x.py::Test*::t[1]", "test_x.py::TestA::t[1]", true },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (harness_filter_matches(cases[i].filter, cases[i].name) != cases[i].match)
			fail_msg("%s on %s: expected %d", cases[i].filter, cases[i].name,
				 cases[i].match);
}

static void test_harness__filter_check_errors(void **state)
{
	static const struct {
		const char *filter, *want;
	} cases[] = {
		{ "", "filter \"\": expected a name or a glob" },
		{ "a\xff", "filter \"a\"...: invalid UTF-8 at byte 2" },
		{ "BM_\\", "filter \"BM_\\\": ends in a lone \\ (write \\\\ for a backslash)" },
	};
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	char long_filter[HARNESS_MAX_FILTER_BYTES + 2];
	const char *filters[1];
	struct err err = ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(harness_filter_check(cases[i].filter, &err), ERR_INVALID);
		assert_string_equal(err.msg, cases[i].want);
		filters[0] = cases[i].filter;
		assert_int_equal(harness_select(HARNESS_LINES, filters, 1, &sel, &err),
				 ERR_INVALID);
		assert_string_equal(err.msg, cases[i].want);
	}
	assert_int_equal(harness_filter_check("\\\\", &err), 0);
	memset(long_filter, 'x', sizeof(long_filter) - 1);
	long_filter[sizeof(long_filter) - 1] = '\0';
	assert_int_equal(harness_filter_check(long_filter, &err), ERR_INVALID);
	assert_string_equal(err.msg, "filter "
				     "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				     "xxxxxxxxxxxxxxxxxxxxx\"."
				     "..: longer than 1024 bytes");
	assert_int_equal(harness_select(HARNESS_LINES, filters, 0, &sel, &err), ERR_INVALID);
	assert_string_equal(err.msg, "expected 1 to 1000 filters, got 0");
	harness_selection_release(&sel);
}

/* The arguments each harness is given for filters, and whether the caller
 * filters after the run. */
static void expect_selection(enum harness_kind kind, const char *const *filters, size_t n,
			     const char *arg0, const char *arg1, bool after)
{
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	struct err err = ERR_INIT;

	if (harness_select(kind, filters, n, &sel, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sel.n_args, !arg0 ? 0 : !arg1 ? 1 : 2);
	if (arg0)
		assert_string_equal(sel.args[0], arg0);
	if (arg1)
		assert_string_equal(sel.args[1], arg1);
	assert_int_equal(sel.after, after);
	harness_selection_release(&sel);
	assert_int_equal(sel.n_args, 0);
}

#define SELECT(kind, arg0, arg1, after, ...)                                                       \
	do {                                                                                       \
		const char *const f_[] = { __VA_ARGS__ };                                          \
		expect_selection(kind, f_, ARRAY_SIZE(f_), arg0, arg1, after);                     \
	} while (0)

static void test_harness__google_benchmark_selection_is_an_exact_regex(void **state)
{
	(void)state;
	SELECT(HARNESS_GOOGLE_BENCHMARK, "--benchmark_filter=^(BM_Sort/.*)$", NULL, false,
	       "BM_Sort/*");
	SELECT(HARNESS_GOOGLE_BENCHMARK, "--benchmark_filter=^(BM_Sort/64|BM_Sum)$", NULL, false,
	       "BM_Sort/64", "BM_Sum");
	SELECT(HARNESS_GOOGLE_BENCHMARK,
	       "--benchmark_filter=^(a\\.b\\+c\\(d\\)\\[e]\\{f}\\|g\\^h\\$i\\*j\\?k\\\\l/m n)$",
	       NULL, false, "a.b+c(d)[e]{f}|g^h$i\\*j\\?k\\\\l/m n");
	SELECT(HARNESS_GOOGLE_BENCHMARK, "--benchmark_filter=^(BM_.{1,4})$", NULL, true, "BM_?");
	SELECT(HARNESS_GOOGLE_BENCHMARK, "--benchmark_filter=^(-x)$", NULL, false, "-x");
}

static void test_harness__go_test_selection_is_one_expression_per_level(void **state)
{
	(void)state;
	SELECT(HARNESS_GO_TEST, "-test.bench=^BenchmarkSort$", NULL, true, "BenchmarkSort");
	SELECT(HARNESS_GO_TEST, "-test.bench=^BenchmarkSizes$/^small$", NULL, true,
	       "BenchmarkSizes/small");
	SELECT(HARNESS_GO_TEST, "-test.bench=^BenchmarkSizes$", NULL, true, "BenchmarkSizes/*");
	SELECT(HARNESS_GO_TEST, "-test.bench=^BenchmarkSizes$/^sm", NULL, true,
	       "BenchmarkSizes/sm*l");
	SELECT(HARNESS_GO_TEST, "-test.bench=^Bench", NULL, true, "Bench*");
	SELECT(HARNESS_GO_TEST, "-test.bench=^BenchmarkSort(-2)?$|^BenchmarkA$/^x\\.y\\[1\\]$",
	       NULL, true, "BenchmarkSort-2", "BenchmarkA/x.y[1]");
	SELECT(HARNESS_GO_TEST, "-test.bench=^BenchmarkA$/^\\(a\\|b\\)\\*\\+\\{\\}\\^\\$\\\\$",
	       NULL, true, "BenchmarkA/(a|b)\\*+{}^$\\\\");
	SELECT(HARNESS_GO_TEST, NULL, NULL, true, "BenchmarkSort", "*Sum");
}

static void test_harness__pytest_selection_is_a_word_after_the_path(void **state)
{
	(void)state;
	SELECT(HARNESS_PYTEST_BENCHMARK, "-k", "test_sizes", true, "test_bench.py::test_sizes[*]");
	SELECT(HARNESS_PYTEST_BENCHMARK, "-k", "test_join", true, "*::TestJoin::test_join");
	SELECT(HARNESS_PYTEST_BENCHMARK, "-k", "test_sort or TestJoin", true,
	       "tests/test_bench.py::test_sort", "*::TestJoin::*");
	SELECT(HARNESS_PYTEST_BENCHMARK, "-k", "x", true, "a::and::or::not::x");
	SELECT(HARNESS_PYTEST_BENCHMARK, NULL, NULL, true, "test_bench.py::*");
	SELECT(HARNESS_PYTEST_BENCHMARK, NULL, NULL, true, "test_sort");
	SELECT(HARNESS_PYTEST_BENCHMARK, NULL, NULL, true, "a::not");
}

static void test_harness__catch2_selection_is_a_test_case_spec(void **state)
{
	(void)state;
	SELECT(HARNESS_CATCH2, "sorting*", NULL, true, "sorting/*");
	SELECT(HARNESS_CATCH2, "sort*", NULL, true, "sort*");
	SELECT(HARNESS_CATCH2, "sorting*,summing <fast> & \\\"quoted\\\"*", NULL, true,
	       "sorting/small/std::sort 64", "summing <fast> & \"quoted\"/sum");
	SELECT(HARNESS_CATCH2, "a\\,b\\[c\\]\\~d\\\\e\\**", NULL, true, "a,b[c]~d\\\\e\\*");
	SELECT(HARNESS_CATCH2, "sorting:*", NULL, true, "sorting:?");
	SELECT(HARNESS_CATCH2, NULL, NULL, true, "*/sum");
	SELECT(HARNESS_CATCH2, NULL, NULL, true, "\\*x");
	SELECT(HARNESS_CATCH2, NULL, NULL, true, "exclude:x");
	SELECT(HARNESS_CATCH2, NULL, NULL, true, "a", "/b");
}

static void test_harness__hyperfine_and_lines_select_after_the_run(void **state)
{
	(void)state;
	SELECT(HARNESS_HYPERFINE, NULL, NULL, true, "sleep-1ms");
	SELECT(HARNESS_LINES, NULL, NULL, true, "parse/*");
}

/* select: and one more filter: the intersection is exact where one side is
 * names, else the filter is passed on and select: applied after. */
static void expect_both(const char *const *filters, size_t n, const char *also, const char *arg0,
			bool after)
{
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	struct err err = ERR_INIT;

	if (harness_select_both(HARNESS_GOOGLE_BENCHMARK, filters, n, also, &sel, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sel.n_args, arg0 ? 1 : 0);
	if (arg0)
		assert_string_equal(sel.args[0], arg0);
	assert_int_equal(sel.after, after);
	harness_selection_release(&sel);
}

static void test_harness__two_selections_both_hold(void **state)
{
	const char *const names[] = { "BM_A", "BM_B/1" }, *const globs[] = { "BM_A*", "BM_B/*" };
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	struct err err = ERR_INIT;

	(void)state;
	expect_both(names, 2, NULL, "--benchmark_filter=^(BM_A|BM_B/1)$", false);
	expect_both(names, 0, NULL, NULL, false);
	expect_both(names, 0, "BM_*", "--benchmark_filter=^(BM_.*)$", false);
	/* names in select: the ones the filter keeps */
	expect_both(names, 2, "BM_B*", "--benchmark_filter=^(BM_B/1)$", false);
	/* a name on the command line that select: keeps */
	expect_both(globs, 2, "BM_B/1", "--benchmark_filter=^(BM_B/1)$", false);
	/* globs on both sides */
	expect_both(globs, 2, "*1", "--benchmark_filter=^(.*1)$", true);
	/* nothing in common: the filter, and none survives the run */
	expect_both(names, 2, "BM_C", "--benchmark_filter=^(BM_C)$", true);
	assert_true(harness_filters_keep(globs, 2, "*1", "BM_B/1"));
	assert_false(harness_filters_keep(globs, 2, "*1", "BM_B/2"));
	assert_false(harness_filters_keep(globs, 2, "*1", "BM_C1"));
	assert_true(harness_filters_keep(globs, 0, "*1", "BM_C1"));
	assert_true(harness_filters_keep(globs, 0, NULL, "BM_C1"));
	assert_int_equal(harness_select_both(HARNESS_LINES, names, 2, "a\\", &sel, &err),
			 ERR_INVALID);
	assert_string_equal(err.msg,
			    "filter \"a\\\": ends in a lone \\ (write \\\\ for a backslash)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_harness__recordings_parse_to_their_listings),
		cmocka_unit_test(test_harness__every_cut_of_a_recording_is_refused),
		cmocka_unit_test(test_harness__converters_read_recorded_criterion_and_jmh),
		cmocka_unit_test(test_harness__docs_show_the_converters_as_they_are),
		cmocka_unit_test(test_harness__kind_names_round_trip),
		cmocka_unit_test(test_harness__empty_output_is_refused),
		cmocka_unit_test(test_harness__output_over_the_cap_is_refused),
		cmocka_unit_test(test_harness__output_without_benchmarks_says_so),
		cmocka_unit_test(test_harness__lookups_find_benchmarks_and_metrics),
		cmocka_unit_test(test_harness__a_parse_replaces_the_output),
		cmocka_unit_test(
			test_harness__google_benchmark_skips_aggregates_merges_repetitions),
		cmocka_unit_test(test_harness__google_benchmark_old_rows_skips_and_errors),
		cmocka_unit_test(test_harness__google_benchmark_errors_name_the_field),
		cmocka_unit_test(test_harness__google_benchmark_structure_errors),
		cmocka_unit_test(test_harness__google_benchmark_name_of_two_instances_is_refused),
		cmocka_unit_test(test_harness__json_nested_too_deep_is_refused),
		cmocka_unit_test(test_harness__go_test_result_lines_and_the_rest),
		cmocka_unit_test(test_harness__go_test_errors_name_line_and_column),
		cmocka_unit_test(test_harness__go_test_failed_benchmark_is_named),
		cmocka_unit_test(test_harness__a_hundred_thousand_benchmarks_stop_at_the_cap),
		cmocka_unit_test(test_harness__pytest_benchmark_errors_name_the_field),
		cmocka_unit_test(test_harness__pytest_benchmark_without_data_uses_the_median),
		cmocka_unit_test(test_harness__catch2_xml_errors_name_line_and_column),
		cmocka_unit_test(test_harness__catch2_structure_errors),
		cmocka_unit_test(test_harness__catch2_nesting_is_capped),
		cmocka_unit_test(test_harness__catch2_names_are_decoded_data),
		cmocka_unit_test(test_harness__hyperfine_errors_name_the_field),
		cmocka_unit_test(test_harness__values_stop_at_the_cap),
		cmocka_unit_test(test_harness__lines_errors_name_the_line),
		cmocka_unit_test(test_harness__lines_limits),
		cmocka_unit_test(test_harness__nul_in_a_name_is_refused),
		cmocka_unit_test(test_harness__filters_match_whole_names_as_globs),
		cmocka_unit_test(test_harness__filter_check_errors),
		cmocka_unit_test(test_harness__google_benchmark_selection_is_an_exact_regex),
		cmocka_unit_test(test_harness__go_test_selection_is_one_expression_per_level),
		cmocka_unit_test(test_harness__pytest_selection_is_a_word_after_the_path),
		cmocka_unit_test(test_harness__catch2_selection_is_a_test_case_spec),
		cmocka_unit_test(test_harness__hyperfine_and_lines_select_after_the_run),
		cmocka_unit_test(test_harness__two_selections_both_hold),
	};
	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
