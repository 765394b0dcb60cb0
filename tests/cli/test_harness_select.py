"""--filter COMMAND › GLOB end to end (docs/configuration.md, "Selecting
harness benchmarks"): the glob reaches the harness as its own argument, so
the benchmarks it does not name never run (a real Google Benchmark program
that writes down each benchmark it runs; real pytest-benchmark), it holds
together with the suite's select:, the report says how each was selected,
and its misuses are usage errors."""
import json
import os
import shutil
import unittest

from harness import DATA, GB_CHAIN, GB_HEADER, GitRepoTest, PrivateTmpTest, suite

PYTEST_BENCHMARK = "/usr/lib/python3/dist-packages/pytest_benchmark/__init__.py"

# Three benchmarks, each of which appends its name to the file RAN (an
# absolute path, defined when the test builds it) whenever Google Benchmark
# calls it: what ran is what the file lists.
GB_PROGRAM = r"""#include <benchmark/benchmark.h>
#include <cstdint>
#include <cstdio>

static void mark(const char *name)
{
	FILE *f = std::fopen(RAN, "a");
	std::fprintf(f, "%s\n", name);
	std::fclose(f);
}

""" + GB_CHAIN + r"""
static void BM_Work(benchmark::State &state)
{
	uint64_t x = 1;
	mark("BM_Work");
	for (auto _ : state)
		benchmark::DoNotOptimize(x = chain(x, 1000));
}
BENCHMARK(BM_Work);

static void BM_Steady(benchmark::State &state)
{
	uint64_t x = 2;
	mark("BM_Steady");
	for (auto _ : state)
		benchmark::DoNotOptimize(x = chain(x, 1000));
}
BENCHMARK(BM_Steady);

static void BM_Other(benchmark::State &state)
{
	uint64_t x = 3;
	mark(("BM_Other/" + std::to_string(state.range(0))).c_str());
	for (auto _ : state)
		benchmark::DoNotOptimize(x = chain(x, state.range(0)));
}
BENCHMARK(BM_Other)->Arg(1000);

BENCHMARK_MAIN();
"""

GB_SUITE = suite("""build:
  command: [g++, -O2, "-DRAN=\\"%s\\"", -o, "${artifact}", bench.cc, -lbenchmark, -lpthread]
benchmarks:
  - name: chain
    runs: 2
    warmup: 0
    commands:
      gb:
        command: ["${artifact}", --benchmark_format=json, --benchmark_min_time=0.001]
        harness: %s
""", name="gb")


def rows(doc):
    return doc["suites"][0]["benchmarks"][0]["commands"]


@unittest.skipUnless(shutil.which("g++") and os.path.exists(GB_HEADER),
                     "libbenchmark-dev is not installed (scripts/setup installs it)")
class GoogleBenchmarkFilterTest(GitRepoTest):
    def setUp(self):
        super().setUp()
        self.ran = os.path.join(self.tmp, "ran.txt")
        self.write("repo/bench.cc", GB_PROGRAM)

    def measure(self, harness, *flags):
        """Runs the suite with flags; returns the JSON document and the
        benchmarks the program ran, each once."""
        self.write("repo/himorime.yaml", GB_SUITE % (self.ran, harness))
        if os.path.exists(self.ran):
            os.unlink(self.ran)
        res = self.run_h(["run", "--format", "json", *flags], cwd=self.repo, timeout=300)
        self.assertEqual(res.code, 0, repr(res))
        with open(self.ran) as f:
            ran = sorted(set(f.read().split()))
        return json.loads(res.out), ran

    def note(self, doc):
        table = self.run_h(["report", "--format", "table",
                            self.write("r.json", json.dumps(doc))], cwd=self.repo)
        self.assertEqual(table.code, 0, repr(table))
        return [line for line in table.out.splitlines() if "harness benchmarks selected" in line]

    def test_harness_select__filter_is_passed_on_and_the_rest_never_runs(self):
        doc, ran = self.measure("google-benchmark", "--filter", "gb › BM_W*")
        self.assertEqual(ran, ["BM_Work"])
        self.assertEqual([r["name"] for r in rows(doc)], ["gb › BM_Work"])
        self.assertEqual(rows(doc)[0]["harness"]["selection"], {
            "filters": [], "args": ["--benchmark_filter=^(BM_W.*)$"], "filtered_after": False,
            "filter": "BM_W*"})
        self.assertEqual(self.note(doc), [
            "  - chain › gb: harness benchmarks selected by --filter BM_W*: passed on as "
            "--benchmark_filter=^(BM_W.*)$."])
        # without the filter, every benchmark runs
        doc, ran = self.measure("google-benchmark")
        self.assertEqual(ran, ["BM_Other/1000", "BM_Steady", "BM_Work"])
        self.assertEqual("selection" in rows(doc)[0]["harness"], False)

    def test_harness_select__filter_and_select_must_both_hold(self):
        select = "{format: google-benchmark, select: [BM_W*, BM_Other/1000]}"
        # both have wildcards: the filter is passed on (BM_Work does not
        # run), select: applied after the run (BM_Steady ran, is no case)
        doc, ran = self.measure(select, "--filter", "gb › BM_*e*")
        self.assertEqual(ran, ["BM_Other/1000", "BM_Steady"])
        self.assertEqual([r["name"] for r in rows(doc)], ["gb › BM_Other/1000"])
        self.assertEqual(rows(doc)[0]["harness"]["selection"], {
            "filters": ["BM_W*", "BM_Other/1000"], "args": ["--benchmark_filter=^(BM_.*e.*)$"],
            "filtered_after": True, "filter": "BM_*e*"})
        self.assertEqual(self.note(doc), [
            "  - chain › gb: harness benchmarks selected by BM_W*, BM_Other/1000 and --filter "
            "BM_*e*: passed on as --benchmark_filter=^(BM_.*e.*)$, and filtered again after "
            "each run."])
        # a name: exactly the intersection is passed on
        doc, ran = self.measure(select, "--filter", "gb › BM_Work")
        self.assertEqual(ran, ["BM_Work"])
        self.assertEqual(rows(doc)[0]["harness"]["selection"], {
            "filters": ["BM_W*", "BM_Other/1000"], "args": ["--benchmark_filter=^(BM_Work)$"],
            "filtered_after": False, "filter": "BM_Work"})
        # the command is a glob too
        doc, ran = self.measure(select, "--filter", "* › BM_Other/*")
        self.assertEqual(ran, ["BM_Other/1000"])
        self.assertEqual(rows(doc)[0]["harness"]["selection"]["args"],
                         ["--benchmark_filter=^(BM_Other/.*)$"])


@unittest.skipUnless(os.path.exists(PYTEST_BENCHMARK),
                     "python3-pytest-benchmark is not installed (scripts/setup installs it)")
class PytestFilterTest(PrivateTmpTest):
    def test_harness_select__pytest_gets_a_keyword_and_is_filtered_after(self):
        shutil.copy(os.path.join(DATA, "harness", "pytest-benchmark", "test_bench.py"), self.tmp)
        self.write("himorime.yaml", suite("""benchmarks:
  - name: sort
    runs: 2
    warmup: 0
    env: {PYTHONDONTWRITEBYTECODE: "1"}
    commands:
      py:
        command: [/usr/bin/python3, -m, pytest, -q, -p, no:cacheprovider,
                  "--benchmark-json=${workdir}/py.json", --benchmark-min-rounds=3,
                  --benchmark-max-time=0.001, test_bench.py]
        harness: {format: pytest-benchmark, output: py.json}
""", name="py"))
        res = self.run_h(["run", "--format", "json", "--filter",
                          "py › test_bench.py::test_sizes\\[2*"], cwd=self.tmp, timeout=300)
        self.assertEqual(res.code, 0, repr(res))
        doc = json.loads(res.out)
        self.assertEqual([r["name"] for r in rows(doc)], ["py › test_bench.py::test_sizes[256]"])
        self.assertEqual(rows(doc)[0]["harness"]["selection"], {
            "filters": [], "args": ["-k", "test_sizes"], "filtered_after": True,
            "filter": "test_bench.py::test_sizes\\[2*"})


class FilterErrorsTest(PrivateTmpTest):
    SUITE = suite("""benchmarks:
  - name: b
    runs: 2
    warmup: 0
    commands:
      h:
        command: [sh, -c, "echo '{\\"name\\": \\"keep/a\\", \\"value\\": 1, \\"unit\\": \\"ms\\", \\"better\\": \\"lower\\"}'"]
        harness: {format: lines, select: keep/*}
  - name: plain
    commands:
      t: {command: ["true"]}
""")

    def run_suite(self, *args):
        path = self.write("s.yaml", self.SUITE)
        return self.run_h(["run", *args, path], cwd=self.tmp)

    def test_harness_select__filter_misuse_is_a_usage_error(self):
        for filt, msg in [
                ("h › ", 'himorime: error: --filter "h › ": filter "": expected a name or a '
                 'glob [HMR3001]\n'),
                (" › keep/a", 'himorime: error: --filter " › keep/a": filter "": expected a '
                 'name or a glob [HMR3001]\n'),
                ("h › keep\\", 'himorime: error: --filter "h › keep\\": filter "keep\\": ends '
                 'in a lone \\ (write \\\\ for a backslash) [HMR3001]\n'),
                ("t › *", "himorime: error: no benchmark matches the selection [HMR3001]\n")]:
            with self.subTest(filter=filt):
                res = self.run_suite("--filter", filt)
                self.assertEqual(res.code, 3, repr(res))
                self.assertTrue(res.err.startswith(msg), repr(res))

    def test_harness_select__filter_keeps_only_the_benchmarks_it_names(self):
        res = self.run_suite("--format", "json", "--filter", "h › keep/a")
        self.assertEqual(res.code, 0, repr(res))
        doc = json.loads(res.out)
        # only the benchmark with a harness command named h is selected
        self.assertEqual([b["name"] for b in doc["suites"][0]["benchmarks"]], ["b"])
        self.assertEqual([r["name"] for r in rows(doc)], ["h › keep/a"])
        self.assertEqual(rows(doc)[0]["harness"]["selection"], {
            "filters": ["keep/*"], "args": [], "filtered_after": True, "filter": "keep/a"})

    def test_harness_select__filter_and_select_with_nothing_in_common(self):
        res = self.run_suite("--format", "json", "--filter", "h › other")
        self.assertEqual(res.code, 4, repr(res))
        err = rows(json.loads(res.out))[0]["head"]["error"]
        self.assertEqual(err["message"], "head run 1: select and --filter match none of the 1 "
                         "benchmarks the output reports")


if __name__ == "__main__":
    unittest.main()
