"""The worked examples of docs/configuration.md, "Harnesses": every YAML
block marked `<!-- harness example: KIND -->` is run with the real harness
against the small program of tests/data/harness/KIND/ (copied beside the
suite), and must give a case per benchmark, each measured. A harness that is
not installed skips its example (scripts/setup installs them all). The
sanitizer build skips them: they spend their time in the harnesses, and the
engine's harness paths run under the sanitizers in test_harness_run.py."""
import json
import os
import re
import shutil
import subprocess

import unittest

from harness import DATA, ROOT, SANITIZED, PrivateTmpTest

DOC = os.path.join(ROOT, "docs", "configuration.md")
EXAMPLE = re.compile(r"<!-- harness example: ([a-z0-9-]+) -->\n```yaml\n(.*?)```", re.S)

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


if __name__ == "__main__":
    unittest.main()
