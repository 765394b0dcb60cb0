"""Every metric a harness reports, judged (docs/configuration.md, "Harnesses"):
Go's allocations and bytes per operation as counts, a throughput where
higher is better by the paired looks, a `lines` benchmark that reports a
throughput and no time; and the benchmarks and units a later run or the
other side gives differently, each an error of its benchmark."""
import json
import os
import shutil
import unittest

from harness import GitRepoTest, PrivateTmpTest, suite

# BenchmarkAlloc allocates Pieces slices of 64 bytes per operation beside
# the slice that holds them: head's Pieces = 2 is one allocation and 64
# bytes more per operation, whatever the machine's load.
GO_TEST = """package alloc

import "testing"

var sink [][]byte

func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s := make([][]byte, 0, 4)
		for p := 0; p < Pieces; p++ {
			s = append(s, make([]byte, 64))
		}
		sink = s
	}
}

func BenchmarkSteady(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = [][]byte{make([]byte, 32)}
	}
}
"""

# Built once per side; its GOCACHE inside each side's tree. 12 pairs, one
# look: the counts are decided on them, the times may be anything.
GO_SUITE = suite("""build:
  command: [go, test, -c, -o, "${artifact}"]
  env: {GOFLAGS: -mod=mod, GOPROXY: "off", GOCACHE: "${root}/.gocache"}
benchmarks:
  - name: alloc
    runs: 12
    commands:
      go:
        command: ["${artifact}", -test.run=^$, -test.bench=., -test.benchtime=2000x,
                  -test.benchmem]
        harness: go-test
""", name="go")


def rate(name, value, unit="MB/s", metric=None):
    line = {"name": name, "value": value, "unit": unit, "better": "higher"}
    if metric:
        line["metric"] = metric
    return json.dumps(line)


def ms(name, value):
    return json.dumps({"name": name, "value": value, "unit": "ms", "better": "lower"})


def commands(doc):
    return {c["name"]: c for c in doc["suites"][0]["benchmarks"][0]["commands"]}


@unittest.skipUnless(shutil.which("go"), "golang-go is not installed (scripts/setup installs it)")
class GoAllocationsTest(GitRepoTest):
    def test_harness_metrics__more_allocations_per_op_are_the_regression(self):
        self.write("repo/go.mod", "module example.com/alloc\n\ngo 1.19\n")
        self.write("repo/alloc.go", "package alloc\n\nconst Pieces = 1\n")
        self.write("repo/alloc_test.go", GO_TEST)
        self.write("repo/.gitignore", ".gocache\n")
        self.write("repo/himorime.yaml", GO_SUITE)
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.write("repo/alloc.go", "package alloc\n\nconst Pieces = 2\n")
        self.git("commit", "-qam", "one more allocation per operation")
        res = self.run_h(["compare", "--against", "HEAD~1", "--format", "json"], cwd=self.repo,
                         timeout=600)
        self.assertEqual(res.code, 1, repr(res))
        rows = commands(json.loads(res.out))
        self.assertEqual(list(rows), ["go › BenchmarkAlloc", "go › BenchmarkSteady"])
        counts = {n: {m: (c["base"], c["head"], c["verdict"], c["pairs"])
                      for m, c in r["comparisons"].items() if m != "latency"}
                  for n, r in rows.items()}
        self.assertEqual(counts, {
            "go › BenchmarkAlloc": {"allocations": (2, 3, "regression", 12),
                                    "allocated_bytes": (160, 224, "regression", 12)},
            "go › BenchmarkSteady": {"allocations": (2, 2, "pass", 12),
                                     "allocated_bytes": (56, 56, "pass", 12)}})
        self.assertEqual(rows["go › BenchmarkAlloc"]["result"], "regression")
        self.assertIn("latency", rows["go › BenchmarkAlloc"]["comparisons"])
        head = rows["go › BenchmarkAlloc"]["head"]["metrics"]
        self.assertEqual((head["allocations"]["source"], head["allocations"]["samples"]),
                         ("harness", [3] * 12))
        table = self.run_h(["report", "--format", "table", self.write("r.json", res.out)])
        self.assertIn("alloc      go › BenchmarkAlloc   allocations      2 allocations  "
                      "3 allocations  +50.0%  exact", table.out)


class ThroughputTest(GitRepoTest):
    def test_harness_metrics__a_throughput_alone_that_drops_is_the_regression(self):
        def script(tput):
            return "".join("echo '%s'\n" % rate(n, v) for n, v in (("tput", tput),
                                                                   ("steady", 500)))
        self.write("repo/bench.sh", script(1000))
        self.write("repo/himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    commands:\n"
            "      h: {command: [sh, bench.sh], harness: lines}\n"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.write("repo/bench.sh", script(800))  # -20%, every run
        self.git("commit", "-qam", "20% less throughput")
        res = self.run_h(["compare", "--against", "HEAD~1", "--format", "json"], cwd=self.repo)
        self.assertEqual(res.code, 1, repr(res))
        rows = commands(json.loads(res.out))
        got = {n: {m: (c["better"], c["base"], c["head"], round(c["change_percent"], 6),
                       c["verdict"], round(c["max_percent"], 6))
                   for m, c in r["comparisons"].items()} for n, r in rows.items()}
        # the 5% tolerance of the reciprocals is a loss of 5/1.05 = 4.76%
        self.assertEqual(got, {
            "h › tput": {"throughput": ("higher", 1000, 800, -20.0, "regression", 4.761905)},
            "h › steady": {"throughput": ("higher", 500, 500, 0.0, "pass", 4.761905)}})
        self.assertEqual([r["result"] for r in rows.values()], ["regression", "pass"])
        self.assertEqual(rows["h › tput"]["head"]["metrics"]["latency"]["status"],
                         "not_requested")
        table = self.run_h(["report", "--format", "table", self.write("r.json", res.out)])
        self.assertIn("b          h › tput    1.00k MB/s  800 MB/s  -20.0% (-20.0% … -20.0%)",
                      table.out)


class LaterRunsTest(PrivateTmpTest):
    def run_script(self, script):
        self.write("himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    runs: 4\n    commands:\n"
            "      h: {command: %s, shell: true, harness: lines}\n" % json.dumps(script)))
        return self.run_h(["run", "--format", "json"], cwd=self.tmp)

    def test_harness_metrics__a_benchmark_first_seen_in_a_later_run_is_an_error(self):
        # run n (the warmup is 1): "late" from n=3 on
        script = ("n=$(cat ${workdir}/n 2>/dev/null || echo 0); n=$((n+1)); "
                  "echo $n > ${workdir}/n; echo '%s'; "
                  "if [ $n -ge 3 ]; then echo '%s'; fi" % (ms("a", 5), ms("late", 5)))
        res = self.run_script(script)
        self.assertEqual(res.code, 4, repr(res))
        rows = commands(json.loads(res.out))
        self.assertEqual({n: (r["result"], r["head"]["count"], r["head"]["error"] and
                              r["head"]["error"]["message"]) for n, r in rows.items()},
                         {"h › a": ("pass", 4, None),
                          "h › late": ("error", 0, "head run 2: the output reports this "
                                                   "benchmark, which the first run did not")})

    def test_harness_metrics__a_unit_that_changes_between_runs_is_an_error(self):
        script = ("n=$(cat ${workdir}/n 2>/dev/null || echo 0); n=$((n+1)); "
                  "echo $n > ${workdir}/n; echo '%s'; echo '%s'; "
                  "if [ $n -ge 3 ]; then echo '%s'; else echo '%s'; fi"
                  % (ms("a", 5), ms("b", 5), rate("b", 5, "GB/s", "rate"),
                     rate("b", 5, "MB/s", "rate")))
        res = self.run_script(script)
        self.assertEqual(res.code, 4, repr(res))
        rows = commands(json.loads(res.out))
        self.assertEqual({n: (r["result"], r["head"]["count"], r["head"]["error"] and
                              r["head"]["error"]["message"]) for n, r in rows.items()},
                         {"h › a": ("pass", 4, None),
                          "h › b": ("error", 1, 'head run 2: "rate" is in GB/s, but head '
                                                'warmup 1 reported it in MB/s')})


class UnitsAcrossSidesTest(GitRepoTest):
    def test_harness_metrics__a_unit_that_differs_between_base_and_head_is_an_error(self):
        self.write("repo/bench.sh", "echo '%s'\necho '%s'\n"
                   % (rate("a", 5), rate("b", 5, "MB/s", "rate")))
        self.write("repo/himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    commands:\n"
            "      h: {command: [sh, bench.sh], harness: lines}\n"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.write("repo/bench.sh", "echo '%s'\necho '%s'\n"
                   % (rate("a", 5), rate("b", 5, "GB/s", "rate")))
        self.git("commit", "-qam", "GB/s")
        res = self.run_h(["compare", "--against", "HEAD~1", "--format", "json"], cwd=self.repo)
        self.assertEqual(res.code, 4, repr(res))
        rows = commands(json.loads(res.out))
        b = rows["h › b"]
        self.assertEqual((rows["h › a"]["result"], b["result"], b["head"]["error"]),
                         ("pass", "error", None))
        # head's first run is taken first: base's is the one that differs
        self.assertEqual(b["base"]["error"]["message"],
                         'base warmup 1: "rate" is in MB/s, but head warmup 1 reported it '
                         "in GB/s")


if __name__ == "__main__":
    unittest.main()
