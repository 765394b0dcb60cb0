"""Harness benchmarks in sweep, history and calibrate (docs/sweeps.md,
docs/configuration.md "Harnesses"): a real Google Benchmark program swept
over the commits of a temporary git repository, where the last commit makes
one benchmark do ten times the work (a change no busy machine hides), the
history read back from the saved results, and an A/A calibration whose
table lists every benchmark as a case. Verdicts are asserted only where the
change is that large; elsewhere the structure of the lines is."""
import json
import os
import re
import shutil
import unittest

from harness import GB_CHAIN, GB_HEADER, GitRepoTest, suite


GB_PROGRAM = r"""#include <benchmark/benchmark.h>
#include <cstdint>

#include "work.h"

""" + GB_CHAIN + r"""
static void BM_Work(benchmark::State &state)
{
	uint64_t x = 1;
	for (auto _ : state)
		benchmark::DoNotOptimize(x = chain(x, WORK));
}
BENCHMARK(BM_Work);

static void BM_Steady(benchmark::State &state)
{
	uint64_t x = 2;
	for (auto _ : state)
		benchmark::DoNotOptimize(x = chain(x, 2000));
}
BENCHMARK(BM_Steady);

BENCHMARK_MAIN();
"""

# BM_Work's own tolerance (25%), which the history must show.
GB_SUITE = suite("""build:
  command: [g++, -O2, -o, "${artifact}", bench.cc, -lbenchmark, -lpthread]
benchmarks:
  - name: chain
    warmup: 0
    commands:
      gb:
        command: ["${artifact}", --benchmark_format=json, --benchmark_min_time=0.01,
                  --benchmark_repetitions=3]
        harness:
          format: google-benchmark
          metric: cpu_time
          benchmarks: {BM_Work: {tolerance: 25%}}
""", name="gb")

CASES = ["gb › BM_Work", "gb › BM_Steady"]
VERDICT = r"(pass|improved|regression|inconclusive)"
# an interval's bound as the table prints it: signed, except a change that
# rounds to 0.0%, which has no sign
CHANGE = r"([-+]\d+\.\d|0\.0)%"
RATIO = r"\d+\.\d{3} \[\d+\.\d{3}, \d+\.\d{3}\]"
TIME = r"\d+(\.\d+)? [nµ]s"


@unittest.skipUnless(shutil.which("g++") and os.path.exists(GB_HEADER),
                     "libbenchmark-dev is not installed (scripts/setup installs it)")
class HarnessSweepHistoryTest(GitRepoTest):
    def commit(self, work, message):
        self.write("repo/work.h", f"/* {message} */\n#define WORK {work}\n")
        self.git("add", "-A")
        self.git("commit", "-qm", message)
        return self.git("rev-parse", "HEAD").strip()

    def test_harness_history__sweep_and_history_have_a_series_per_benchmark(self):
        self.write("repo/bench.cc", GB_PROGRAM)
        self.write("repo/himorime.yaml", GB_SUITE)
        ref = self.commit(200, "reference")
        mid = self.commit(200, "same work")
        tip = self.commit(2000, "ten times the work")
        res = self.run_h(["sweep", "HEAD~2..HEAD", "--reference", "HEAD~2", "--runs", "20", "-o",
                          os.path.join(self.tmp, "sweep.json")], cwd=self.repo, timeout=600)
        self.assertEqual(res.code, 0, repr(res))
        self.assertIn("himorime: sweep: 2 measured, 0 already in the history\n", res.err)
        lines = res.out.splitlines()
        blocks = [lines[i:i + 6] for i in range(0, len(lines), 7)]
        self.assertEqual(len(lines), 2 * 7 - 1, res.out)
        for block, case, tol in zip(blocks, CASES, ("25.0%", "5.0%")):
            self.assertEqual(block[0], f"gb › chain › {case}: latency relative to {ref[:12]} "
                             f"(tolerance {tol})")
            self.assertEqual(block[1].split(), ["COMMIT", "SUBJECT", "VALUE", "REFERENCE",
                                                "RATIO", "[INTERVAL]", "VERDICT"])
            self.assertRegex(block[2], rf"^{tip[:12]}  ten times the work +{TIME} +{TIME} +"
                             rf"{RATIO} +{VERDICT}$")
            self.assertRegex(block[3], rf"^{mid[:12]}  same work +{TIME} +{TIME} +"
                             rf"{RATIO} +{VERDICT}$")
            self.assertEqual(block[4], "no step can be called in 2 commits with a ratio at 99% "
                             "confidence: that takes at least 16; each commit's verdict "
                             "against the reference is in VERDICT")
            self.assertEqual(block[5], "no change point")
        # ten times the work: a ratio of several, a regression beside any
        # load (20 pairs: a pair or two with an outlier, as a loaded machine
        # gives, cannot move the interval's low end below 1)
        self.assertRegex(blocks[0][2], r"  regression$")
        self.assertGreater(float(blocks[0][2].split()[-4]), 4)
        # the whole sweep's document: a row per benchmark and commit
        with open(os.path.join(self.tmp, "sweep.json")) as f:
            doc = json.load(f)
        self.assertEqual([[c["name"] for c in s["benchmarks"][0]["commands"]]
                          for s in doc["suites"]], [CASES, CASES])

        # history reads the saved results back: the same trend
        hist = self.run_h(["history"], cwd=self.repo)
        self.assertEqual(hist.code, 0, repr(hist))
        self.assertEqual(hist.out, res.out)
        js = self.run_h(["history", "--format", "json"], cwd=self.repo)
        series = json.loads(js.out)["series"]
        self.assertEqual([(s["benchmark"], s["command"], s["max_fraction"]) for s in series],
                         [("chain", "gb › BM_Work", 0.25), ("chain", "gb › BM_Steady", 0.05)])
        self.assertEqual([[p["commit"] for p in s["points"]] for s in series], [[tip, mid]] * 2)
        csv = self.run_h(["history", "--format", "csv"], cwd=self.repo)
        self.assertEqual([tuple(r.split(",")[1:5]) for r in csv.out.splitlines()[1:]],
                         [("chain", case, "latency", c) for case in CASES for c in (tip, mid)])
        md = self.run_h(["history", "--format", "markdown"], cwd=self.repo)
        self.assertEqual(re.findall(r"^### .*$", md.out, re.M),
                         ["### chain › gb › BM\\_Work (latency)",
                          "### chain › gb › BM\\_Steady (latency)"])

    def test_harness_history__calibrate_lists_every_benchmark_as_a_case(self):
        self.write("repo/bench.cc", GB_PROGRAM)
        # structure only: one repetition per process is enough
        self.write("repo/himorime.yaml",
                   GB_SUITE.replace(",\n                  --benchmark_repetitions=3]", "]"))
        self.commit(200, "reference")
        res = self.run_h(["calibrate", "--runs", "10", "--format", "json"], cwd=self.repo,
                         timeout=600)
        self.assertIn(res.code, (0, 1), repr(res))
        doc = json.loads(res.out)
        rows = doc["suites"][0]["benchmarks"][0]["commands"]
        self.assertEqual([r["name"] for r in rows], CASES)
        for r in rows:
            self.assertEqual(r["comparisons"]["latency"]["pairs"], 10, r["name"])
        table = self.run_h(["report", "--format", "table",
                            self.write("c.json", res.out)], cwd=self.repo)
        lines = table.out.splitlines()
        at = lines.index("Calibration: the same revision on both sides, so every verdict but "
                         "pass is noise. The two builds stay two files, as in a real change.")
        self.assertEqual(lines[at + 1].split()[:4], ["BENCHMARK", "COMMAND", "METRIC", "NOISE"])
        for line, case in zip(lines[at + 2:at + 4], CASES):
            self.assertRegex(line, rf"^chain +{case} +latency +\d+\.\d% / \d+\.\d% +10 +"
                             rf"{CHANGE} … {CHANGE} +{VERDICT} +")
        self.assertTrue(lines[at + 4].startswith("DETECTABLE AT CAP: "), table.out)


class HarnessSweepKeyTest(GitRepoTest):
    # a `lines` harness in sh: no compiler, no timing to judge
    SUITE = suite("""benchmarks:
  - name: b
    runs: 10
    warmup: 0
    commands:
      h:
        command: [sh, -c, "echo '{\\"name\\": \\"a\\", \\"value\\": 1, \\"unit\\": \\"ms\\", \\"better\\": \\"lower\\"}';
                          echo '{\\"name\\": \\"b\\", \\"value\\": 1, \\"unit\\": \\"ms\\", \\"better\\": \\"lower\\"}'"]
        harness: lines
""")

    def test_harness_history__a_filtered_sweep_is_not_the_whole_one(self):
        self.write("repo/himorime.yaml", self.SUITE)
        self.git("add", "-A")
        self.git("commit", "-qm", "one")
        self.git("commit", "-qm", "two", "--allow-empty")

        def sweep(*flags):
            res = self.run_h(["sweep", "HEAD~1..HEAD", "--reference", "HEAD~1", *flags],
                             cwd=self.repo)
            self.assertEqual(res.code, 0, repr(res))
            return res

        res = sweep("--filter", "h › a")
        self.assertIn("himorime: sweep: 1 measured, 0 already in the history\n", res.err)
        self.assertEqual(res.out.splitlines()[0].split(" relative")[0],
                         "t › b › h › a: latency")
        # the whole sweep is other settings: measured, not taken from the
        # filtered one
        res = sweep()
        self.assertIn("himorime: sweep: 1 measured, 0 already in the history\n", res.err)
        self.assertEqual([line.split(" relative")[0] for line in res.out.splitlines()
                          if " relative to " in line],
                         ["t › b › h › a: latency", "t › b › h › b: latency"])
        # the same filter again: in the history already
        res = sweep("--filter", "h › a")
        self.assertIn("himorime: sweep: 0 measured, 1 already in the history\n", res.err)


if __name__ == "__main__":
    unittest.main()
