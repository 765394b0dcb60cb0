"""Harness commands end to end (docs/configuration.md, "Harnesses"): a real
Google Benchmark program compared across two commits of a temporary git
repository, where one benchmark does 10% more work; and the paths where a
harness fails, with `lines` harnesses written in sh (no compiler needed)."""
import json
import os
import shutil
import unittest

from harness import DATA, GB_CHAIN, GB_HEADER, GitRepoTest, PrivateTmpTest, suite


# BM_Work's chain length is in work.h, which the head commit raises by 10%.
GB_PROGRAM = r"""#include <benchmark/benchmark.h>
#include <cstdint>

#include "work.h"

""" + GB_CHAIN + r"""
static void BM_Work(benchmark::State &state)
{
	uint64_t x = 1;
	for (auto _ : state)
		benchmark::DoNotOptimize(x = chain(x, 10 * WORK));
}
BENCHMARK(BM_Work);

static void BM_Steady(benchmark::State &state)
{
	uint64_t x = 2;
	for (auto _ : state)
		benchmark::DoNotOptimize(x = chain(x, 10000));
}
BENCHMARK(BM_Steady);

static void BM_Other(benchmark::State &state)
{
	uint64_t x = 3;
	for (auto _ : state)
		benchmark::DoNotOptimize(x = chain(x, state.range(0)));
}
BENCHMARK(BM_Other)->Arg(10000);

BENCHMARK_MAIN();
"""

# cpu_time: the CPU time per iteration, which a busy machine's preemption
# does not stretch as it stretches the wall time; three repetitions per
# process, their median one value per run.
GB_SUITE = suite("""build:
  command: [g++, -O2, -o, "${artifact}", bench.cc, -lbenchmark, -lpthread]
benchmarks:
  - name: chain
    commands:
      gb:
        command: ["${artifact}", --benchmark_format=json, --benchmark_min_time=0.01,
                  --benchmark_repetitions=3]
        harness: {format: google-benchmark, metric: cpu_time}
""", name="gb")


def line(name, value, unit="ms"):
    return json.dumps({"name": name, "value": value, "unit": unit, "better": "lower"})


def commands(doc):
    return {c["name"]: c for c in doc["suites"][0]["benchmarks"][0]["commands"]}


@unittest.skipUnless(shutil.which("g++") and os.path.exists(GB_HEADER),
                     "libbenchmark-dev is not installed (scripts/setup installs it)")
class GoogleBenchmarkCompareTest(GitRepoTest):
    def test_harness_run__ten_percent_more_work_is_the_one_regression(self):
        self.write("repo/bench.cc", GB_PROGRAM)
        self.write("repo/work.h", "#define WORK 1000\n")
        self.write("repo/himorime.yaml", GB_SUITE)
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.write("repo/work.h", "#define WORK 1100\n")
        self.git("commit", "-qam", "BM_Work does 10% more")
        res = self.run_h(["compare", "--against", "HEAD~1", "--format", "json"], cwd=self.repo,
                         timeout=600)
        self.assertEqual(res.code, 1, repr(res))
        self.assertTrue(res.err.endswith("himorime: exit 1: 1 regression\n"), res.err)
        doc = json.loads(res.out)
        rows = commands(doc)
        self.assertEqual(sorted(rows), ["gb › BM_Other/10000", "gb › BM_Steady", "gb › BM_Work"])
        self.assertEqual({n: r["result"] for n, r in rows.items()},
                         {"gb › BM_Work": "regression", "gb › BM_Steady": "pass",
                          "gb › BM_Other/10000": "pass"})
        work = rows["gb › BM_Work"]
        self.assertEqual(work["harness"], {"format": "google-benchmark", "command": "gb",
                                           "benchmark": "BM_Work"})
        lat = work["comparisons"]["latency"]
        self.assertGreater(lat["ci_low_percent"], 5)
        # one value per harness run on each side, paired
        pairs = lat["pairs"]
        self.assertEqual(len(work["head"]["metrics"]["latency"]["samples"]), pairs)
        self.assertEqual(len(work["base"]["metrics"]["latency"]["samples"]), pairs)
        self.assertEqual(rows["gb › BM_Steady"]["comparisons"]["latency"]["verdict"], "pass")
        # every metric the harness reported, run by run: each run's value is
        # the median of its 3 repetitions, and cpu_time's are the samples
        hm = {m["name"]: m for m in work["head"]["harness_metrics"]}
        self.assertEqual(sorted(hm), ["cpu_time", "time"])
        cpu = hm["cpu_time"]
        self.assertEqual((cpu["unit"], cpu["better"]), ("ns", "lower"))
        self.assertEqual([len(r) for r in cpu["raw"]], [3] * len(cpu["values"]))
        self.assertEqual(cpu["values"], [sorted(r)[1] for r in cpu["raw"]])
        self.assertEqual(cpu["values"], work["head"]["metrics"]["latency"]["samples"])
        # and the document reads back as it was written
        again = self.run_h(["report", "--format", "json", self.write("r.json", res.out)],
                           cwd=self.repo)
        self.assertEqual(again.out, res.out)


    def test_harness_run__select_is_passed_on_and_reported(self):
        self.write("repo/bench.cc", GB_PROGRAM)
        self.write("repo/work.h", "#define WORK 1000\n")
        self.write("repo/himorime.yaml", GB_SUITE.replace(
            "    commands:", "    runs: 2\n    warmup: 0\n    commands:").replace(
            "metric: cpu_time}", "metric: cpu_time, select: [BM_W*, BM_Other/10000]}"))
        res = self.run_h(["run", "--format", "json"], cwd=self.repo, timeout=300)
        self.assertEqual(res.code, 0, repr(res))
        doc = json.loads(res.out)
        rows = commands(doc)
        self.assertEqual(list(rows), ["gb › BM_Work", "gb › BM_Other/10000"])
        self.assertEqual(rows["gb › BM_Work"]["harness"]["selection"], {
            "filters": ["BM_W*", "BM_Other/10000"],
            "args": ["--benchmark_filter=^(BM_W.*|BM_Other/10000)$"], "filtered_after": False})
        table = self.run_h(["report", "--format", "table", self.write("r.json", res.out)],
                           cwd=self.repo)
        self.assertIn("  - chain › gb: harness benchmarks selected by BM_W*, BM_Other/10000: "
                      "passed on as --benchmark_filter=^(BM_W.*|BM_Other/10000)$.\n", table.out)


class HarnessErrorsTest(PrivateTmpTest):
    def test_harness_run__select_filters_after_the_run_where_the_harness_cannot(self):
        script = "; ".join("echo '%s'" % line(n, 1) for n in ("keep/a", "keep/b", "drop"))
        res = self.run_suite("benchmarks:\n  - name: b\n    runs: 2\n    commands:\n"
                             "      h: {command: [sh, -c, %s],\n"
                             "          harness: {format: lines, select: keep/*}}\n"
                             "      none: {command: [sh, -c, %s],\n"
                             "             harness: {format: lines, select: nothing}}\n"
                             % (json.dumps(script), json.dumps(script)))
        self.assertEqual(res.code, 4, repr(res))
        rows = commands(json.loads(res.out))
        self.assertEqual(list(rows), ["none", "h › keep/a", "h › keep/b"])
        self.assertEqual(rows["h › keep/a"]["harness"]["selection"],
                         {"filters": ["keep/*"], "args": [], "filtered_after": True})
        self.assertEqual(rows["none"]["head"]["error"]["message"],
                         "head warmup 1: select matches none of the 3 benchmarks the output "
                         "reports")

    def run_suite(self, body, *args):
        self.write("himorime.yaml", suite(body))
        return self.run_h(["run", "--format", "json", *args], cwd=self.tmp)

    def test_harness_run__crash_and_missing_benchmark_are_errors_of_their_benchmarks(self):
        # run n (warmup is 1): b is missing from n=4, the process exits 3 at n=5
        script = ("n=$(cat ${workdir}/n 2>/dev/null || echo 0); n=$((n+1)); "
                  "echo $n > ${workdir}/n; echo '%s'; "
                  "if [ $n -ne 4 ]; then echo '%s'; fi; "
                  "if [ $n -eq 5 ]; then echo boom >&2; exit 3; fi"
                  % (line("a", 1), line("b", 2)))
        res = self.run_suite("benchmarks:\n  - name: b\n    runs: 5\n    commands:\n"
                             "      h: {command: %s, shell: true, harness: lines}\n"
                             % json.dumps(script))
        self.assertEqual(res.code, 4, repr(res))
        self.assertTrue(res.err.endswith("himorime: exit 4: 2 commands failed\n"), res.err)
        rows = commands(json.loads(res.out))
        self.assertEqual(list(rows), ["h › a", "h › b"])
        a, b = rows["h › a"], rows["h › b"]
        self.assertEqual((a["result"], a["head"]["count"]), ("error", 3))
        self.assertEqual(a["head"]["error"], {
            "kind": "exit_code", "message": "head run 4: exited with code 3", "exit_code": 3,
            "stderr": "boom\n", "metric": None})
        self.assertEqual((b["result"], b["head"]["count"]), ("error", 2))
        self.assertEqual(b["head"]["error"]["kind"], "harness_output")
        self.assertEqual(b["head"]["error"]["message"],
                         "head run 3: the output does not report this benchmark, which the "
                         "first run did")
        self.assertEqual(a["head"]["metrics"]["latency"]["samples"], [1e6, 1e6, 1e6])

    def test_harness_run__unreadable_outputs_are_errors_that_say_why(self):
        os.makedirs(os.path.join(self.tmp, "elsewhere"))
        self.write("elsewhere/x.json", '{"results": []}')
        res = self.run_suite(
            "benchmarks:\n  - name: b\n    runs: 3\n    commands:\n"
            "      empty: {command: [/bin/true], harness: lines}\n"
            "      nan: {command: [echo, '{\"name\": \"a\", \"value\": NaN}'], harness: lines}\n"
            "      none: {command: [/bin/true], harness: {format: hyperfine, output: h.json}}\n"
            "      fifo: {command: [mkfifo, \"${workdir}/f.json\"],\n"
            "             harness: {format: hyperfine, output: f.json}}\n"
            "      link: {command: [ln, -s, /etc/passwd, \"${workdir}/l.json\"],\n"
            "             harness: {format: hyperfine, output: l.json}}\n"
            "      dir: {command: [ln, -s, \"%s\", \"${workdir}/d\"],\n"
            "            harness: {format: hyperfine, output: d/x.json}}\n"
            % os.path.join(self.tmp, "elsewhere"))
        self.assertEqual(res.code, 4, repr(res))
        rows = commands(json.loads(res.out))
        want = {
            "empty": "head warmup 1: stdout: empty output",
            "nan": "head warmup 1: stdout:1:24: expected a finite number, got NaN",
            "none": 'head warmup 1: cannot read "h.json": No such file or directory',
            "fifo": 'head warmup 1: cannot read "f.json": not a regular file (a FIFO)',
            "link": 'head warmup 1: cannot read "l.json": a symbolic link',
            "dir": 'head warmup 1: cannot read "d/x.json": its directory is a link out of '
                   "${workdir}",
        }
        self.assertEqual({n: (r["result"], r["head"]["error"]["kind"],
                              r["head"]["error"]["message"]) for n, r in rows.items()},
                         {n: ("error", "harness_output", m) for n, m in want.items()})


class HarnessMetricTest(PrivateTmpTest):
    def test_harness_run__metric_names_the_time_judged_and_must_be_a_time(self):
        self.write("himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    runs: 3\n    commands:\n"
            "      t: {command: [sh, -c, \"echo '%s'; echo '%s'\"],\n"
            "          harness: {format: lines, metric: cpu}}\n"
            "      bytes: {command: [echo, '%s'], harness: {format: lines, metric: bytes}}\n"
            % (json.dumps({"name": "a", "metric": "cpu", "value": 2, "unit": "us",
                           "better": "lower"}).replace('"', '\\"'),
               line("a", 1).replace('"', '\\"'),
               json.dumps({"name": "a", "value": 5, "unit": "bytes", "better": "lower"}))))
        res = self.run_h(["run", "--format", "json"], cwd=self.tmp)
        self.assertEqual(res.code, 4, repr(res))
        rows = commands(json.loads(res.out))
        # cpu (2 us), not time (1 ms)
        self.assertEqual(rows["t › a"]["head"]["metrics"]["latency"]["samples"],
                         [2000, 2000, 2000])
        self.assertEqual(rows["bytes › a"]["head"]["error"]["message"],
                         'head warmup 1: "bytes" is in bytes, not a time')


class NewAndRemovedTest(GitRepoTest):
    def test_harness_run__head_only_is_new_base_only_is_removed(self):
        self.write("repo/bench.sh", "echo '%s'\necho '%s'\n" % (line("kept", 1), line("old", 1)))
        self.write("repo/himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    commands:\n"
            "      h: {command: [sh, bench.sh], harness: lines}\n"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.write("repo/bench.sh", "echo '%s'\necho '%s'\n" % (line("kept", 1), line("new", 1)))
        self.git("commit", "-qam", "old is gone, new came")
        res = self.run_h(["compare", "--against", "HEAD~1", "--format", "json"], cwd=self.repo)
        self.assertEqual(res.code, 0, repr(res))
        doc = json.loads(res.out)
        rows = commands(doc)
        self.assertEqual(list(rows), ["h › kept", "h › new", "h › old"])
        self.assertEqual([rows[n]["result"] for n in rows], ["pass", "new", "removed"])
        self.assertEqual(rows["h › new"]["base"], None)
        self.assertEqual(rows["h › new"]["head"]["count"], rows["h › kept"]["head"]["count"])
        self.assertEqual(rows["h › old"]["head"], None)
        self.assertEqual(rows["h › old"]["base"]["count"], rows["h › kept"]["base"]["count"])
        self.assertEqual((doc["summary"]["new"], doc["summary"]["removed"]), (1, 1))
        table = self.run_h(["report", "--format", "table", self.write("r.json", res.out)],
                           cwd=self.repo)
        self.assertEqual(table.code, 0, repr(table))
        self.assertIn("1 passed · 1 new · 1 removed · 1 benchmark", table.out)
        self.assertIn("h › old   1.00 ms        —  —", table.out)



class RulesTest(GitRepoTest):
    def test_harness_run__tolerance_and_budget_of_matching_benchmarks(self):
        def script(ms):
            return "".join("echo '%s'\n" % line(n, ms) for n in ("fast/a", "loose/b", "loose/c"))
        self.write("repo/bench.sh", script(10))
        self.write("repo/himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    commands:\n"
            "      h:\n        command: [sh, bench.sh]\n"
            "        harness:\n          format: lines\n          benchmarks:\n"
            "            loose/c: {budget: {latency: {median: '<= 5ms'}}}\n"
            "            loose/*: {tolerance: 10%}\n"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.write("repo/bench.sh", script(10.8))  # +8% everywhere, every run
        self.git("commit", "-qam", "8% slower")
        res = self.run_h(["compare", "--against", "HEAD~1", "--format", "json"], cwd=self.repo)
        self.assertEqual(res.code, 1, repr(res))
        self.assertTrue(res.err.endswith("himorime: exit 1: 2 regressions\n"), res.err)
        rows = commands(json.loads(res.out))
        # the first matching rule is a benchmark's rule: loose/c has the
        # budget and the default tolerance (5%), loose/b the 10% tolerance
        self.assertEqual({n: (r["result"], r["comparisons"]["latency"]["verdict"],
                              r["comparisons"]["latency"]["max_percent"])
                          for n, r in rows.items()},
                         {"h › fast/a": ("regression", "regression", 5),
                          "h › loose/b": ("pass", "pass", 10),
                          "h › loose/c": ("regression", "regression", 5)})
        self.assertEqual([(b["text"], b["status"]) for b in rows["h › loose/c"]["budgets"]],
                         [("<= 5ms", "fail")])
        self.assertEqual(rows["h › loose/b"]["budgets"], [])


if __name__ == "__main__":
    unittest.main()
