"""The worked examples of docs/configuration.md, "Harnesses": every YAML
block marked `<!-- harness example: KIND -->` is run with the real harness
against the small program of tests/data/harness/KIND/ (copied beside the
suite), and must give a case per benchmark, each measured. A harness that is
not installed skips its example (scripts/setup installs them all). The
sanitizer build skips them: they spend their time in the harnesses, and the
engine's harness paths run under the sanitizers in test_harness_run.py.

The converters to `lines` the same page shows (Criterion.rs's sample.json,
JMH's -rf json), each marked `<!-- converter: KIND -->`, are run as the page
shows them by a real `himorime run`, on results recorded from Criterion.rs
and JMH (tests/data/harness/lines/, tests/data/README.md says how): the
tests do not run Criterion or JMH themselves, which scripts/setup does not
install (there is no crates.io or Maven registry to fetch them from). The values each benchmark gets are worked out here from the
recorded files, independently of the converter."""
import json
import math
import os
import re
import shutil
import subprocess

import unittest

from harness import DATA, ROOT, SANITIZED, PrivateTmpTest, suite

DOC = os.path.join(ROOT, "docs", "configuration.md")
EXAMPLE = re.compile(r"<!-- harness example: ([a-z0-9-]+) -->\n```yaml\n(.*?)```", re.S)
CONVERTER = re.compile(r"<!-- converter: ([a-z]+) -->\n```python\n(.*?)```\n\n```yaml\n(.*?)```",
                       re.S)
LINES = os.path.join(DATA, "harness", "lines")

# what each example needs: a program on PATH, and a file that must exist
NEEDS = {
    "google-benchmark": ("g++", "/usr/include/benchmark/benchmark.h"),
    "go-test": ("go", None),
    "pytest-benchmark": ("/usr/bin/python3",
                         "/usr/lib/python3/dist-packages/pytest_benchmark/__init__.py"),
    "catch2": ("g++", "/usr/include/catch2/catch.hpp"),
    "hyperfine": ("hyperfine", None),
    "lines": ("head", None),
}
# the benchmarks each example must report, as its rows name them
ROWS = {
    "google-benchmark": ["gb › BM_Sort/64", "gb › BM_Sort/256", "gb › BM_Sum"],
    "go-test": ["go › BenchmarkSort", "go › BenchmarkSum", "go › BenchmarkSizes/small",
                "go › BenchmarkSizes/large"],
    "pytest-benchmark": ["py › test_bench.py::test_sort", "py › test_bench.py::test_sizes[8]",
                         "py › test_bench.py::test_sizes[256]",
                         "py › test_bench.py::TestJoin::test_join"],
    "catch2": ["catch2 › sorting/small/std::sort 64", "catch2 › sorting/large/std::sort 256",
               'catch2 › summing <fast> & "quoted"/sum'],
    "hyperfine": ["hf › sleep-1ms", "hf › true"],
    "lines": ["parse › parse/small"],
}


def examples():
    with open(DOC, encoding="utf-8") as f:
        return EXAMPLE.findall(f.read())


def converters():
    """{kind: (the script, the suite's command that runs it)} as the page shows them"""
    with open(DOC, encoding="utf-8") as f:
        return {kind: (script, command) for kind, script, command in CONVERTER.findall(f.read())}


def median(values):
    v = sorted(values)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def criterion_expected():
    """{name: ns per iteration, the median of the samples'} from the recorded
    target/criterion tree: times[i] / iters[i], whatever the sampling_mode"""
    out = {}
    for top, _, files in os.walk(os.path.join(LINES, "criterion")):
        if os.path.basename(top) == "new" and "sample.json" in files:
            with open(os.path.join(top, "benchmark.json")) as f:
                name = json.load(f)["full_id"]
            with open(os.path.join(top, "sample.json")) as f:
                sample = json.load(f)
            out[name] = median(t / n for n, t in zip(sample["iters"], sample["times"]))
    return out


NS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def jmh_expected():
    """{name: ns per operation} from the recorded JMH result: the median of
    the measurement iterations; a throughput (ops per unit) as its inverse"""
    with open(os.path.join(LINES, "jmh", "jmh-result.json")) as f:
        doc = json.load(f)
    out = {}
    for b in doc:
        name = b["benchmark"] + "".join(f"/{k}={v}" for k, v in sorted(b["params"].items()))
        raw = [v for fork in b["primaryMetric"]["rawData"] for v in fork]
        ops, per = b["primaryMetric"]["scoreUnit"].split("/")
        if b["mode"] == "thrpt":
            out[name] = median(NS[per] / v for v in raw)
        else:
            out[name] = median(raw) * NS[ops]
    return out


class HarnessExamplesTest(PrivateTmpTest):
    def test_harness_examples__one_per_harness(self):
        self.assertEqual(sorted(kind for kind, _ in examples()), sorted(ROWS))

    @unittest.skipIf(SANITIZED, "real harnesses: run by the optimised build's tests")
    def test_harness_examples__each_runs_with_its_harness(self):
        for kind, text in examples():
            with self.subTest(kind=kind):
                program, path = NEEDS[kind]
                if not shutil.which(program) or (path and not os.path.exists(path)):
                    self.skipTest(f"{kind}: not installed (scripts/setup installs it)")
                work = os.path.join(self.tmp, kind)
                shutil.copytree(os.path.join(DATA, "harness", kind), work)
                with open(os.path.join(work, "himorime.yaml"), "w") as f:
                    f.write(text)
                res = self.run_h(["run", "--runs", "2", "--warmup", "0", "--format", "json"],
                                 cwd=work, timeout=600)
                self.assertEqual(res.code, 0, repr(res))
                rows = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"]
                self.assertEqual([r["name"] for r in rows], ROWS[kind])
                for r in rows:
                    self.assertEqual((r["result"], r["head"]["count"]), ("pass", 2), r["name"])

    def test_harness_examples__converters_read_by_himorime(self):
        shown = converters()
        self.assertEqual(sorted(shown), ["criterion", "jmh"])
        want = {"criterion": criterion_expected(), "jmh": jmh_expected()}
        # the results as the tools leave them: target/criterion/, a JMH file
        shutil.copytree(os.path.join(LINES, "criterion"),
                        os.path.join(self.tmp, "target", "criterion"))
        shutil.copy(os.path.join(LINES, "jmh", "jmh-result.json"), self.tmp)
        for kind, (script, _) in shown.items():
            self.write(f"{kind}-to-lines.py", script)
        self.write("himorime.yaml", suite("""benchmarks:
  - name: conv
    commands:
      criterion: {command: [python3, criterion-to-lines.py], harness: lines}
      jmh: {command: [python3, jmh-to-lines.py, jmh-result.json], harness: lines}
""", name="conv"))
        res = self.run_h(["run", "--runs", "2", "--warmup", "0", "--format", "json"],
                         cwd=self.tmp)
        self.assertEqual(res.code, 0, repr(res))
        rows = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"]
        self.assertEqual(sorted(r["name"] for r in rows),
                         ["criterion › sizes/256", "criterion › sizes/8", "criterion › sort 64",
                          "jmh › bench.SortBench.sort/n=256", "jmh › bench.SortBench.sort/n=8",
                          "jmh › bench.SortBench.sum/n=256", "jmh › bench.SortBench.sum/n=8"])
        for r in rows:
            kind, name = r["name"].split(" › ")
            latency = r["head"]["metrics"]["latency"]
            self.assertEqual((r["result"], latency["unit"], latency["source"]),
                             ("pass", "ns", "harness"), r["name"])
            self.assertEqual(len(latency["samples"]), 2, r["name"])
            for value in latency["samples"]:
                self.assertTrue(math.isclose(value, want[kind][name], rel_tol=1e-12),
                                (r["name"], value, want[kind][name]))
        self.assertEqual(sorted(len(v) for v in want.values()), [3, 4])

    def test_harness_examples__converter_commands_are_valid(self):
        """The commands the page shows to run each tool and its converter."""
        commands = "".join(command for _, command in converters().values())
        self.assertIn("criterion-to-lines.py", commands)
        self.assertIn("jmh-to-lines.py", commands)
        self.write("himorime.yaml", suite("benchmarks:\n  - name: conv\n    commands:\n"
                                          + commands, name="conv"))
        res = self.run_h(["validate", "himorime.yaml"], cwd=self.tmp)
        self.assertEqual((res.code, res.err), (0, ""), repr(res))


if __name__ == "__main__":
    unittest.main()
