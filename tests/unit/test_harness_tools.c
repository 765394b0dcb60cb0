/*
 * The real harnesses, now: each program of tests/data/harness/ is built and
 * run with the tool Debian ships (libbenchmark-dev, golang-go,
 * python3-pytest-benchmark, catch2, hyperfine; scripts/setup installs them)
 * and its fresh output parsed, so that a new version of a tool that prints
 * something else fails here rather than in a suite. The selection arguments
 * harness_select makes are handed to the tools too, and must select what the
 * filters name, names with regular-expression characters included. A tool
 * that is not installed skips its test with a message. The programs are
 * tiny and the runs short (about a second each but Catch2's compile).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "harness/harness.h"
#include "harness/select.h"

#include "scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA "tests/data/harness/"

static char *path_of(const char *name)
{
	return xasprintf("%s/%s", scratch_dir, name);
}

/* Runs argv in dir (NULL: here), its standard output to out (NULL:
 * discarded); shows its standard error when it exits with another code
 * than `want`. */
static void run(const char *dir, char *const *argv, const char *out, int want)
{
	struct run_request req = { .argv = argv, .cwd = dir, .stdout_path = out };
	struct run_result res;
	struct err err = ERR_INIT;
	char *errpath = path_of("stderr.txt"), *text = NULL;
	size_t len;

	req.stderr_path = errpath;
	assert_int_equal(measurer_run(scratch_measurer, &req, 1, &res, &err), 1);
	if (res.status != RUN_EXITED || res.code != want) {
		fsio_read_file(errpath, 1 << 20, &text, &len, &err);
		fail_msg("%s: status %d, code %d (want %d)\n%s", argv[0], (int)res.status, res.code,
			 want, text ? text : "");
	}
	free(errpath);
}

/* Whether a shell finds the program and the header exists (NULL: none
 * needed); when not, the test is skipped with a message. */
static bool have(const char *program, const char *header, const char *package)
{
	char *check = xasprintf("command -v %s >/dev/null", program);
	char *argv[] = { (char *)"sh", (char *)"-c", check, NULL };
	bool ok = scratch_run(argv, NULL) == 0 && (!header || access(header, R_OK) == 0);

	free(check);
	if (!ok)
		print_message("skipped: %s is not installed (scripts/setup installs it)\n",
			      package);
	return ok;
}

static void copy(const char *from, const char *to)
{
	struct err err = ERR_INIT;
	char *data = NULL;
	size_t len;

	assert_int_equal(fsio_read_file(from, 1 << 20, &data, &len, &err), 0);
	assert_int_equal(fsio_write_atomic(to, data, len, &err), 0);
	free(data);
}

static void mkdir_in_scratch(const char *name)
{
	char *dir = path_of(name);
	char *argv[] = { (char *)"mkdir", (char *)"-p", dir, NULL };

	assert_int_equal(scratch_run(argv, NULL), 0);
	free(dir);
}

static void parse_file(enum harness_kind kind, const char *path, struct harness_output *out)
{
	struct err err = ERR_INIT;
	char *data = NULL;
	size_t len;

	assert_int_equal(fsio_read_file(path, HARNESS_MAX_OUTPUT_BYTES, &data, &len, &err), 0);
	if (harness_parse(kind, data, len, path, out, &err))
		fail_msg("%s\n%s", err.msg, data);
	free(data);
}

/* The benchmarks' names, one per line, in output order. */
static char *names(const struct harness_output *out)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb, 0);
	for (i = 0; i < out->n_benchmarks; i++)
		strbuf_addf(&sb, "%s\n", out->benchmarks[i].name);
	return strbuf_detach(&sb, NULL);
}

static void assert_names(const struct harness_output *out, const char *want)
{
	char *got = names(out);

	assert_string_equal(got, want);
	free(got);
}

/* Every benchmark that did not fail has a time in ns, lower is better,
 * with n values. */
static void assert_times(const struct harness_output *out, size_t n)
{
	size_t i;

	for (i = 0; i < out->n_benchmarks; i++) {
		const struct harness_metric *t;
		if (out->benchmarks[i].error)
			continue;
		t = harness_benchmark_metric(&out->benchmarks[i], "time");
		assert_non_null(t);
		assert_string_equal(t->unit, "ns");
		assert_int_equal(t->better, BETTER_LOWER);
		assert_int_equal(t->n_values, n);
		assert_true(t->value > 0);
	}
}

/* The selection of one filter: its arguments after `argv[0..n)`, in a
 * NULL-terminated copy the caller frees. */
static char **with_selection(enum harness_kind kind, const char *filter, char *const *argv,
			     size_t n, struct harness_selection *sel)
{
	struct err err = ERR_INIT;
	char **all;
	size_t i;

	if (harness_select(kind, &filter, 1, sel, &err))
		fail_msg("%s", err.msg);
	assert_true(sel->n_args > 0);
	all = xcalloc(n + sel->n_args + 1, sizeof(*all));
	for (i = 0; i < n; i++)
		all[i] = argv[i];
	for (i = 0; i < sel->n_args; i++)
		all[n + i] = sel->args[i];
	return all;
}

/* ---- Google Benchmark */

static void test_harness_tools__google_benchmark(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	char *bin = path_of("gb"), *json = path_of("gb.json"), *file = path_of("gb-file.json");
	char *out_flag = xasprintf("--benchmark_out=%s", file);
	char *build[] = { (char *)"g++",
			  (char *)"-O1",
			  (char *)"-o",
			  bin,
			  (char *)DATA "google-benchmark/bench.cc",
			  (char *)"-lbenchmark",
			  (char *)"-lpthread",
			  NULL };
	char *plain[] = { bin,
			  (char *)"--benchmark_format=json",
			  (char *)"--benchmark_min_time=0.001",
			  out_flag,
			  (char *)"--benchmark_out_format=json",
			  NULL };
	char *reps[] = { bin, (char *)"--benchmark_format=json",
			 (char *)"--benchmark_min_time=0.001", (char *)"--benchmark_repetitions=2",
			 NULL };
	const struct harness_benchmark *b;
	char **argv;

	(void)state;
	if (!have("g++", "/usr/include/benchmark/benchmark.h", "libbenchmark-dev"))
		skip();
	run(NULL, build, NULL, 0);
	run(NULL, plain, json, 0);
	parse_file(HARNESS_GOOGLE_BENCHMARK, json, &out);
	assert_names(&out, "BM_Sort/64\nBM_Sort/256\nBM_Sum\na.b+c(d)[e]{f}|g^h$i*j?k\\l/m n\n");
	assert_times(&out, 1);
	b = harness_output_find(&out, "BM_Sort/64");
	assert_int_equal(harness_benchmark_metric(b, "bytes_per_second")->better, BETTER_HIGHER);
	assert_true(harness_benchmark_metric(b, "elements")->value == 64);
	assert_non_null(
		harness_benchmark_metric(harness_output_find(&out, "BM_Sum"), "items_per_second"));
	parse_file(HARNESS_GOOGLE_BENCHMARK, file, &out); /* --benchmark_out: the same rows */
	assert_names(&out, "BM_Sort/64\nBM_Sort/256\nBM_Sum\na.b+c(d)[e]{f}|g^h$i*j?k\\l/m n\n");

	run(NULL, reps, json, 0); /* aggregates skipped: two values each */
	parse_file(HARNESS_GOOGLE_BENCHMARK, json, &out);
	assert_int_equal(out.n_benchmarks, 4);
	assert_times(&out, 2);

	argv = with_selection(HARNESS_GOOGLE_BENCHMARK, "a.b+c(d)[e]{f}|g^h$i\\*j\\?k\\\\l/m n",
			      plain, 3, &sel);
	run(NULL, argv, json, 0);
	parse_file(HARNESS_GOOGLE_BENCHMARK, json, &out);
	assert_names(&out, "a.b+c(d)[e]{f}|g^h$i*j?k\\l/m n\n");
	assert_false(sel.after);
	free(argv);
	argv = with_selection(HARNESS_GOOGLE_BENCHMARK, "BM_Sort/*", plain, 3, &sel);
	run(NULL, argv, json, 0);
	parse_file(HARNESS_GOOGLE_BENCHMARK, json, &out);
	assert_names(&out, "BM_Sort/64\nBM_Sort/256\n");
	free(argv);

	harness_selection_release(&sel);
	harness_output_release(&out);
	free(out_flag);
	free(file);
	free(json);
	free(bin);
}

/* ---- go test */

static void test_harness_tools__go_test(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	char *dir = path_of("go"), *txt = path_of("go.txt"), *cache = path_of("gocache");
	char *gocache = xasprintf("GOCACHE=%s", cache),
	     *gopath = xasprintf("GOPATH=%s/gopath", dir);
	char *home = xasprintf("HOME=%s", dir), *mod = path_of("go/go.mod");
	char *src = path_of("go/bench_test.go");
	char *count[] = { (char *)"env",
			  gocache,
			  gopath,
			  home,
			  (char *)"GOPROXY=off",
			  (char *)"GOFLAGS=-mod=mod",
			  (char *)"go",
			  (char *)"test",
			  (char *)"-run=^$",
			  (char *)"-benchtime=100x",
			  (char *)"-bench=.",
			  (char *)"-benchmem",
			  (char *)"-count=2",
			  NULL };
	char *fail[] = { (char *)"env",
			 (char *)"HARNESS_FAIL=1",
			 gocache,
			 gopath,
			 home,
			 (char *)"GOPROXY=off",
			 (char *)"go",
			 (char *)"test",
			 (char *)"-run=^$",
			 (char *)"-benchtime=100x",
			 (char *)"-bench=.",
			 NULL };
	const struct harness_benchmark *b;
	char **argv;

	(void)state;
	if (!have("go", NULL, "golang-go"))
		skip();
	mkdir_in_scratch("go");
	copy(DATA "go-test/go.mod", mod);
	copy(DATA "go-test/bench_test.go", src);
	run(dir, count, txt, 0);
	parse_file(HARNESS_GO_TEST, txt, &out);
	assert_names(&out,
		     "BenchmarkSort\nBenchmarkSum\nBenchmarkSizes/small\nBenchmarkSizes/large\n");
	assert_times(&out, 2);
	b = harness_output_find(&out, "BenchmarkSort");
	assert_true(harness_benchmark_metric(b, "allocs_per_op")->value >= 1);
	assert_true(harness_benchmark_metric(b, "bytes_per_op")->value >= 64 * sizeof(int));
	b = harness_output_find(&out, "BenchmarkSum");
	assert_true(harness_benchmark_metric(b, "adds/op")->value == 100);
	assert_true(harness_benchmark_metric(b, "bytes_per_second")->value > 0);

	run(dir, fail, txt, 1);
	parse_file(HARNESS_GO_TEST, txt, &out);
	b = harness_output_find(&out, "BenchmarkSum");
	assert_non_null(b->error);
	assert_non_null(strstr(b->error, "asked to fail by HARNESS_FAIL"));

	argv = with_selection(HARNESS_GO_TEST, "BenchmarkSizes/sm*", count, 10, &sel);
	run(dir, argv, txt, 0);
	parse_file(HARNESS_GO_TEST, txt, &out);
	assert_names(&out, "BenchmarkSizes/small\n");
	free(argv);
	argv = with_selection(HARNESS_GO_TEST, "BenchmarkSum", count, 10, &sel);
	run(dir, argv, txt, 0);
	parse_file(HARNESS_GO_TEST, txt, &out);
	assert_names(&out, "BenchmarkSum\n");
	free(argv);

	harness_selection_release(&sel);
	harness_output_release(&out);
	free(src);
	free(mod);
	free(home);
	free(gopath);
	free(gocache);
	free(cache);
	free(txt);
	free(dir);
}

/* ---- pytest-benchmark */

static void test_harness_tools__pytest_benchmark(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	char *dir = path_of("py"), *json = path_of("py/bench.json"),
	     *src = path_of("py/test_bench.py");
	char *argv0[] = { (char *)"env",
			  (char *)"PYTHONDONTWRITEBYTECODE=1",
			  (char *)"pytest-3",
			  (char *)"-q",
			  (char *)"-p",
			  (char *)"no:cacheprovider",
			  (char *)"--benchmark-json=bench.json",
			  (char *)"--benchmark-min-rounds=3",
			  (char *)"--benchmark-max-time=0.001",
			  (char *)"--benchmark-warmup=off",
			  (char *)"test_bench.py",
			  NULL };
	char **argv;

	(void)state;
	if (!have("pytest-3", "/usr/lib/python3/dist-packages/pytest_benchmark/__init__.py",
		  "python3-pytest-benchmark"))
		skip();
	mkdir_in_scratch("py");
	copy(DATA "pytest-benchmark/test_bench.py", src);
	run(dir, argv0, NULL, 0);
	parse_file(HARNESS_PYTEST_BENCHMARK, json, &out);
	assert_names(&out, "test_bench.py::test_sort\ntest_bench.py::test_sizes[8]\n"
			   "test_bench.py::test_sizes[256]\ntest_bench.py::TestJoin::test_join\n");
	assert_true(out.benchmarks[0].metrics[0].n_values >= 3);

	argv = with_selection(HARNESS_PYTEST_BENCHMARK, "*::TestJoin::*", argv0, 11, &sel);
	run(dir, argv, NULL, 0);
	parse_file(HARNESS_PYTEST_BENCHMARK, json, &out);
	assert_names(&out, "test_bench.py::TestJoin::test_join\n");
	free(argv);

	harness_selection_release(&sel);
	harness_output_release(&out);
	free(src);
	free(json);
	free(dir);
}

/* ---- Catch2 */

static void test_harness_tools__catch2(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	char *bin = path_of("catch2"), *xml = path_of("catch2.xml");
	char *build[] = {
		(char *)"g++", (char *)"-O0", (char *)"-o", bin, (char *)DATA "catch2/bench.cpp",
		NULL
	};
	char *plain[] = { bin,
			  (char *)"-r",
			  (char *)"xml",
			  (char *)"-o",
			  xml,
			  (char *)"--benchmark-samples",
			  (char *)"3",
			  (char *)"--benchmark-no-analysis",
			  (char *)"--benchmark-warmup-time",
			  (char *)"1",
			  NULL };
	char *fail[] = { (char *)"env", (char *)"HARNESS_FAIL=1",
			 bin,		(char *)"-r",
			 (char *)"xml", (char *)"-o",
			 xml,		(char *)"--benchmark-samples",
			 (char *)"3",	(char *)"--benchmark-no-analysis",
			 NULL };
	char **argv;

	(void)state;
	if (!have("g++", "/usr/include/catch2/catch.hpp", "catch2"))
		skip();
	run(NULL, build, NULL, 0);
	run(NULL, plain, NULL, 0);
	parse_file(HARNESS_CATCH2, xml, &out);
	assert_names(&out, "sorting/small/std::sort 64\nsorting/large/std::sort 256\n"
			   "summing <fast> & \"quoted\"/sum\n");
	assert_times(&out, 1);

	run(NULL, fail, NULL, 0);
	parse_file(HARNESS_CATCH2, xml, &out);
	assert_string_equal(out.benchmarks[2].error, "asked to fail by HARNESS_FAIL");

	argv = with_selection(HARNESS_CATCH2, "summing <fast> & \"quoted\"/*", plain, 10, &sel);
	run(NULL, argv, NULL, 0);
	parse_file(HARNESS_CATCH2, xml, &out);
	assert_names(&out, "summing <fast> & \"quoted\"/sum\n");
	free(argv);

	harness_selection_release(&sel);
	harness_output_release(&out);
	free(xml);
	free(bin);
}

/* ---- hyperfine */

static void test_harness_tools__hyperfine(void **state)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	char *json = path_of("hyperfine.json");
	char *argv[] = { (char *)DATA "hyperfine/run.sh", json, NULL };

	(void)state;
	if (!have("hyperfine", NULL, "hyperfine"))
		skip();
	run(NULL, argv, NULL, 0);
	parse_file(HARNESS_HYPERFINE, json, &out);
	assert_names(&out, "sleep-1ms\ntrue\n");
	assert_times(&out, 5);
	assert_true(out.benchmarks[0].metrics[0].value >= 1e6); /* sleep 0.001 */
	harness_output_release(&out);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_harness_tools__google_benchmark),
		cmocka_unit_test(test_harness_tools__go_test),
		cmocka_unit_test(test_harness_tools__pytest_benchmark),
		cmocka_unit_test(test_harness_tools__catch2),
		cmocka_unit_test(test_harness_tools__hyperfine),
	};
	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
