"""Parameters and sizes end to end (docs/configuration.md, "Parameters"): a
benchmark expands into cases that run as real processes with their values
substituted, --filter picks cases with the bracketed form, and list shows
every case."""
import csv
import io
import json
import os
import re
import signal
import subprocess
import time
import unittest

from harness import HELPERS, HIMORIME, GitRepoTest, PrivateTmpTest, suite
from test_report_schema import SCHEMA, load, validate

CODES = """
benchmarks:
  - name: b
    runs: 3
    warmup: 0
    parameters: {code: [0, 3], mode: [x, "y z"]}
    exclude: [{code: 3, mode: "y z"}]
    commands:
      sh: {command: [/bin/sh, -c, "exit ${code}", "${mode}"]}
"""


class ParamsTest(PrivateTmpTest):
    def names(self, doc):
        return [b["name"] for b in doc["suites"][0]["benchmarks"]]

    def test_params__cases_run_with_their_values(self):
        path = self.write("himorime.yaml", suite(CODES))
        res = self.run_h(["run", "--format", "json", "--seed", "7", path])
        self.assertExit(res, 4)
        doc = json.loads(res.out)
        self.assertEqual(self.names(doc), ["b[code=0,mode=x]", "b[code=0,mode=y z]",
                                           "b[code=3,mode=x]"])
        results = [b["commands"][0]["result"] for b in doc["suites"][0]["benchmarks"]]
        self.assertEqual(results, ["pass", "pass", "error"])

    def test_params__filter_selects_cases_by_their_values(self):
        path = self.write("himorime.yaml", suite(CODES))
        res = self.run_h(["run", "--format", "json", "--seed", "7", "--filter", "b[code=0]", path])
        self.assertExit(res, 0)
        self.assertEqual(self.names(json.loads(res.out)), ["b[code=0,mode=x]",
                                                           "b[code=0,mode=y z]"])
        # values in any order; the exact label works too
        res = self.run_h(["list", "--filter", "b[mode=x,code=3]", path])
        self.assertExit(res, 0)
        self.assertEqual(res.out, f"{path}\tb[code=3,mode=x]\t-\t-\tsh\t/bin/sh -c 'exit 3' x\n")
        # a regular expression still searches the label
        res = self.run_h(["list", "--filter", r"=y z\]$", path])
        self.assertExit(res, 0)
        self.assertEqual(res.out, f"{path}\tb[code=0,mode=y z]\t-\t-\tsh\t/bin/sh -c 'exit 0' "
                                  "'y z'\n")
        # an excluded or unknown combination selects nothing
        res = self.run_h(["list", "--filter", "b[code=3,mode=y z]", path])
        self.assertExit(res, 3)
        self.assertIn("no benchmark matches the selection", res.err)

    def test_params__list_json_names_the_parameters(self):
        path = self.write("himorime.yaml", suite(CODES))
        res = self.run_h(["list", "--format", "json", path])
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        self.assertEqual([(c["benchmark"], c["base_name"], c["parameters"]) for c in doc],
                         [("b[code=0,mode=x]", "b", {"code": "0", "mode": "x"}),
                          ("b[code=0,mode=y z]", "b", {"code": "0", "mode": "y z"}),
                          ("b[code=3,mode=x]", "b", {"code": "3", "mode": "x"})])
        self.assertEqual(doc[2]["exec"]["argv"], ["/bin/sh", "-c", "exit 3", "x"])

    def test_params__validate_points_at_the_misuse(self):
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: b
    parameters: {code: [0, 3]}
    commands:
      sh: {command: [/bin/sh, -c, "exit ${cod}"]}
"""))
        res = self.run_h(["validate", path])
        self.assertExit(res, 2)
        self.assertEqual(res.err.splitlines()[0],
                         f"{path}:8:41: benchmarks[0].commands.sh.command[2]: "
                         "unknown variable ${cod} [HMR2001]")


    def test_params__budgets_take_the_case_values(self):
        """docs/configuration.md, "Parameters": ${name} in a budget's bound
        is substituted per case before the bound is read."""
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: b
    parameters: {limit: [1ns, 1000s]}
    runs: 3
    warmup: 0
    commands:
      "true": {command: ["true"], budget: {latency: {median: "<= ${limit}"}}}
"""))
        res = self.run_h(["run", "--format", "json", "--seed", "7", path])
        self.assertExit(res, 1)
        doc = json.loads(res.out)
        budgets = [(b["name"], c["budgets"][0]["text"], c["budgets"][0]["limit"],
                    c["budgets"][0]["status"])
                   for b in doc["suites"][0]["benchmarks"] for c in b["commands"]]
        self.assertEqual(budgets, [("b[limit=1ns]", "<= 1ns", 1, "fail"),
                                   ("b[limit=1000s]", "<= 1000s", 1e12, "pass")])

def grow_suite(helpers):
    """Peak RSS that grows as size (linear) and as size² (quadratic): memory
    is what the runs can make exact, so the exponents are asserted."""
    return f"""
benchmarks:
  - name: grow
    sizes: [32, 64, 128]
    runs: 3
    warmup: 0
    metrics: {{memory: true}}
    commands:
      linear: {{command: ["{helpers}/alloc", "${{size}}"]}}
      quadratic: {{command: "{helpers}/alloc $((${{size}} * ${{size}} / 64))", shell: true}}
"""


class SizesTest(PrivateTmpTest):
    def test_sizes__growth_is_fitted_recorded_and_shown(self):
        path = self.write("himorime.yaml", suite(grow_suite(HELPERS)))
        out = os.path.join(self.tmp, "out.json")
        res = self.run_h(["run", "--format", "json", "-o", out, "--seed", "7", path])
        self.assertExit(res, 0)
        with open(out) as f:
            doc = json.load(f)
        schema = load(SCHEMA)
        self.assertEqual(validate(schema, doc, schema), [])
        s = doc["suites"][0]
        self.assertEqual([b["name"] for b in s["benchmarks"]],
                         ["grow[size=32]", "grow[size=64]", "grow[size=128]"])
        case = dict(s["benchmarks"][1]["case"])
        # which size is the long run depends on how long 30 runs take here
        self.assertIn(case.pop("long_run"), (None, "largest within 60 s"))
        self.assertEqual(case, {"benchmark": "grow", "parameters": {"size": "64"}, "size": 64})
        fits = {(g["command"], g["metric"]): g for g in s["growth"]}
        self.assertEqual(sorted(fits), [("linear", "latency"), ("linear", "peak_rss"),
                                        ("quadratic", "latency"), ("quadratic", "peak_rss")])
        linear, quadratic = fits["linear", "peak_rss"], fits["quadratic", "peak_rss"]
        self.assertAlmostEqual(linear["head"]["exponent"], 1, delta=0.1)
        self.assertAlmostEqual(quadratic["head"]["exponent"], 2, delta=0.1)
        # runs: 3, but a size whose long run fits in 60 s gets 30 runs
        counts = [b["commands"][0]["head"]["count"] for b in s["benchmarks"]]
        self.assertTrue(set(counts) <= {3, 30}, counts)
        self.assertEqual((linear["head"]["sizes"], linear["head"]["runs"],
                          linear["head"]["from"], linear["head"]["to"]),
                         (3, sum(counts), "32", "128"))
        self.assertIsNone(linear["base"])
        # the saved report renders the same lines again, in every format
        text = self.run_h(["report", out])
        self.assertExit(text, 0)
        lines = text.out.split("Growth with input size\n")[1].split("\n\n")[0].splitlines()
        self.assertEqual(len(lines), 4)
        line = (r"  grow › quadratic: peak_rss grows as size\^(\d\.\d\d) "
                r"\((\d\.\d\d)…(\d\.\d\d)\) beyond a constant (\d[\d.]* [KM]iB) over sizes "
                r"32…128")
        m = re.fullmatch(line, lines[3])
        self.assertIsNotNone(m, lines)
        self.assertEqual(m.group(1), f"{quadratic['head']['exponent']:.2f}")
        # the constant cost apart from the growth: about a process's own
        # peak RSS, which every size pays
        self.assertGreater(quadratic["head"]["constant"], 256 * 1024)
        self.assertLess(quadratic["head"]["constant"], 4 * 1024 * 1024)
        md = self.run_h(["report", "--format", "markdown", out])
        self.assertIn("### Growth with input size\n\n- grow › linear: latency grows as size^",
                      md.out)
        self.assertIn('```mermaid\nxychart-beta\n    title "grow › linear: median latency by '
                      'size"\n    x-axis ["32", "64", "128"]\n    y-axis "ms"\n    line [',
                      md.out)
        html = self.run_h(["report", "--format", "html", out])
        self.assertIn("<h2>Growth with input size</h2>\n<ul class=\"growth\">\n<li>grow › linear: "
                      "latency grows as size^", html.out)
        charts = html.out.split('<figure class="growth-chart">')[1:]
        self.assertEqual(len(charts), 2)  # latency of each command
        self.assertIn("<figcaption>grow › linear: median latency by size, log–log, with the "
                      "fitted power law</figcaption>", charts[0])
        self.assertEqual(charts[0].count('<circle class="head"'), 3)
        # a line, or a curve when the fit has a constant
        self.assertEqual(charts[0].count('<line class="fit head"') +
                         charts[0].count('<polyline class="fit head"'), 1)

    @staticmethod
    def lines(path):
        with open(path) as f:
            return f.read().splitlines()

    def turns_suite(self, log, setup="true", runs=3):
        return suite(f"""
benchmarks:
  - name: scan
    sizes: [1, 2, 3]
    runs: {runs}
    warmup: 0
    setup: [{{command: "echo setup ${{size}} >> {log}; {setup}", shell: true}}]
    prepare_each: [{{command: "echo prepare ${{size}} >> {log}", shell: true}}]
    cleanup: [{{command: "echo cleanup ${{size}} >> {log}", shell: true}}]
    commands:
      scan: {{command: "echo run ${{size}} >> {log}", shell: true}}
""")

    def test_sizes__take_turns(self):
        """docs/design.md, "Sizes in turn": every size is set up before any
        is measured, each round runs every size once (its prepare_each just
        before its run) in an order shuffled from round to round, and every
        size is cleaned up after all are measured."""
        log = os.path.join(self.tmp, "log")
        path = self.write("himorime.yaml", self.turns_suite(log))
        res = self.run_h(["run", "--format", "json", "--seed", "7", path])
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        self.assertEqual([(b["name"], b["commands"][0]["head"]["count"])
                          for b in doc["suites"][0]["benchmarks"]],
                         [("scan[size=1]", 30), ("scan[size=2]", 30), ("scan[size=3]", 30)])
        lines = self.lines(log)
        self.assertEqual(lines[:3], ["setup 1", "setup 2", "setup 3"])
        self.assertEqual(lines[-3:], ["cleanup 1", "cleanup 2", "cleanup 3"])
        runs = lines[3:-3]
        self.assertEqual(len(runs), 2 * 3 * 30)
        orders = set()
        for r in range(30):
            turn = runs[6 * r:6 * r + 6]
            sizes = [line.split()[1] for line in turn[1::2]]
            self.assertEqual(sorted(sizes), ["1", "2", "3"], turn)
            self.assertEqual(turn, [f"{w} {n}" for n in sizes for w in ("prepare", "run")])
            orders.add(tuple(sizes))
        self.assertGreater(len(orders), 1)  # shuffled

    def test_sizes__each_series_takes_turns_apart(self):
        """With another parameter, each of its values is a series of its own
        (the growth fit's): mode a's sizes take turns, then mode b's."""
        log = os.path.join(self.tmp, "log")
        path = self.write("himorime.yaml", suite(f"""
benchmarks:
  - name: scan
    parameters: {{mode: [a, b]}}
    sizes: [1, 2]
    runs: 3
    warmup: 0
    commands:
      scan: {{command: "echo ${{mode}} ${{size}} >> {log}", shell: true}}
"""))
        res = self.run_h(["run", "--format", "json", "--seed", "7", path])
        self.assertExit(res, 0)
        lines = self.lines(log)
        self.assertEqual(len(lines), 4 * 30)
        for mode, runs in (("a", lines[:60]), ("b", lines[60:])):
            for r in range(30):
                self.assertEqual(sorted(runs[2 * r:2 * r + 2]), [f"{mode} 1", f"{mode} 2"])

    def test_sizes__a_failed_setup_ends_only_its_size(self):
        log = os.path.join(self.tmp, "log")
        path = self.write("himorime.yaml", self.turns_suite(
            log, setup="test ${size} != 2 || { echo no input >&2; exit 3; }"))
        res = self.run_h(["run", "--format", "json", "--seed", "7", path])
        self.assertExit(res, 4)
        doc = json.loads(res.out)
        self.assertEqual([(b["name"], b["result"], b["commands"][0]["head"]["count"])
                          for b in doc["suites"][0]["benchmarks"]],
                         [("scan[size=1]", "pass", 30), ("scan[size=2]", "error", 0),
                          ("scan[size=3]", "pass", 30)])
        error = doc["suites"][0]["benchmarks"][1]["error"]
        self.assertEqual((error["kind"], error["message"]),
                         ("setup_failed", "setup[0] exited with code 3"))
        self.assertIn("no input", json.dumps(error))
        lines = self.lines(log)
        self.assertNotIn("run 2", lines)
        self.assertEqual(lines.count("run 1"), 30)
        self.assertEqual(lines[-3:], ["cleanup 1", "cleanup 2", "cleanup 3"])

    def test_sizes__an_interrupt_ends_every_size_and_cleans_up(self):
        log = os.path.join(self.tmp, "log")
        path = self.write("himorime.yaml", self.turns_suite(log, runs=100000))
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        p = subprocess.Popen([HIMORIME, "run", "--format", "json", path], cwd=self.tmp,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 20
        while not os.path.exists(log) or self.lines(log).count("run 3") < 5:
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 4, err)
        doc = json.loads(out)
        self.assertEqual([(b["name"], b["error"]["kind"])
                          for b in doc["suites"][0]["benchmarks"]],
                         [("scan[size=1]", "interrupted"), ("scan[size=2]", "interrupted"),
                          ("scan[size=3]", "interrupted")])
        counts = [b["commands"][0]["head"]["count"] for b in doc["suites"][0]["benchmarks"]]
        self.assertTrue(all(c >= 4 for c in counts), counts)
        self.assertEqual(self.lines(log)[-3:], ["cleanup 1", "cleanup 2", "cleanup 3"])

    def test_sizes__long_run_flags_what_grows_from_run_to_run(self):
        """docs/configuration.md, "Sizes": the declared long_run size and the
        largest size within 60 s get 30 runs, and the report says the drift
        check of each. `leak` appends a line to a log per run and allocates
        as many MiB as the log has lines times the size over 2, so its peak
        RSS grows by exactly 1 MiB a run at size 2."""
        path = self.write("himorime.yaml", suite(f"""
benchmarks:
  - name: leak
    sizes: [1, 2]
    long_run: 2
    runs: 3
    warmup: 0
    metrics: {{memory: true}}
    setup: [{{command: ": > ${{workdir}}/log", shell: true}}]
    commands:
      grow:
        command: "echo x >> ${{workdir}}/log; {HELPERS}/alloc $(( ($(wc -l < ${{workdir}}/log) + 4) * ${{size}} / 2 ))"
        shell: true
  - name: flat
    sizes: [1, 2]
    runs: 3
    warmup: 0
    commands:
      "true": {{command: [/bin/true, "${{size}}"]}}
"""))
        out = os.path.join(self.tmp, "out.json")
        res = self.run_h(["run", "--format", "json", "-o", out, "--seed", "7", path])
        self.assertExit(res, 0)
        with open(out) as f:
            doc = json.load(f)
        schema = load(SCHEMA)
        self.assertEqual(validate(schema, doc, schema), [])
        s = doc["suites"][0]
        self.assertEqual([(b["name"], b["case"]["long_run"], b["commands"][0]["head"]["count"])
                          for b in s["benchmarks"]],
                         [("leak[size=1]", None, 30), ("leak[size=2]", "declared", 30),
                          ("flat[size=1]", None, 30), ("flat[size=2]", "largest within 60 s",
                                                       30)])
        rss = s["benchmarks"][1]["commands"][0]["head"]["metrics"]["peak_rss"]["trend"]
        self.assertTrue(rss["growing"])
        self.assertAlmostEqual(rss["slope"], 1 << 20, delta=1 << 14)
        lat = s["benchmarks"][3]["commands"][0]["head"]["metrics"]["latency"]["trend"]
        self.assertGreater(lat["min_detectable_slope"], 0)
        text = self.run_h(["report", out])
        self.assertExit(text, 0)
        lines = text.out.split("Drift check (long run)\n")[1].split("\n\n")[0].splitlines()
        self.assertEqual(len(lines), 2, text.out)
        self.assertRegex(lines[0], r"^  leak › grow: drift checked at size 2 \(30 runs, declared\): "
                                   r"(latency grows \+[^,]+, )?peak_rss grows \+(1\.00 MiB|10[0-4]\d KiB) per run "
                                   r"\([^)]+\); smallest detectable \+\d[\d.]* [µm]?s per run$")
        self.assertRegex(lines[1], r"^  flat › true: drift checked at size 2 \(30 runs, largest "
                                   r"within 60 s\): .*; smallest detectable \+\d[\d.]* [nµm]?s per run$")
        md = self.run_h(["report", "--format", "markdown", out])
        self.assertIn("### Drift check (long run)\n\n- leak › grow: drift checked at size 2 (30 "
                      "runs, declared): ", md.out)
        gh = self.run_h(["report", "--format", "github", out])
        self.assertIn("**Drift check (long run)**\n\n- leak › grow: drift checked at size 2 ",
                      gh.out)
        html = self.run_h(["report", "--format", "html", out])
        self.assertIn("<h2>Drift check (long run)</h2>\n<ul class=\"long-run\">\n<li>leak › grow: "
                      "drift checked at size 2 (30 runs, declared): ", html.out)

    def test_sizes__long_run_follows_runs_given_on_the_command_line(self):
        """--runs wins over the benchmark's runs for the long run too: with
        --runs 5 a long run is 30 runs, though the suite asks for 40."""
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: flat
    sizes: [1, 2]
    runs: 40
    warmup: 0
    commands:
      "true": {command: [/bin/true, "${size}"]}
"""))
        out = os.path.join(self.tmp, "out.json")
        res = self.run_h(["run", "--runs", "5", "--format", "json", "-o", out, "--seed", "7",
                          path])
        self.assertExit(res, 0)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual([(b["name"], b["case"]["long_run"], b["commands"][0]["head"]["count"])
                          for b in doc["suites"][0]["benchmarks"]],
                         [("flat[size=1]", None, 30),
                          ("flat[size=2]", "largest within 60 s", 30)])

    def test_sizes__substitute_counts_and_label_as_written(self):
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: scan
    parameters: {mode: [a, b]}
    sizes: [1k, 1.5M]
    exclude: [{mode: b, size: 1.5M}]
    metrics: {throughput: {work: {value: "${size}", unit: records}}}
    commands:
      run: {command: [echo, "${mode}", "${size}"]}
"""))
        res = self.run_h(["list", path])
        self.assertExit(res, 0)
        self.assertEqual(res.out, f"{path}\tscan[mode=a,size=1k]\t-\t-\trun\techo a 1000\n"
                                  f"{path}\tscan[mode=a,size=1.5M]\t-\t-\trun\techo a 1500000\n"
                                  f"{path}\tscan[mode=b,size=1k]\t-\t-\trun\techo b 1000\n")
        doc = json.loads(self.run_h(["list", "--format", "json", path]).out)
        self.assertEqual(doc[1]["metrics"]["work"], {"value": 1500000, "unit": "records"})
        self.assertEqual(doc[1]["parameters"], {"mode": "a", "size": "1.5M"})


    def test_issue28_should_fix__a_size_selects_the_same_case_however_written(self):
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: scan
    parameters: {mode: [a, b]}
    sizes: [1k, 10k, 1.5M]
    commands:
      run: {command: [echo, "${size}"]}
"""))
        for f in ("scan[size=10k]", "scan[size=10000]", "scan[size=10.0k]",
                  "scan[mode=a,size=10000]"):
            with self.subTest(filter=f):
                res = self.run_h(["list", "--filter", f, path])
                self.assertExit(res, 0)
                want = ["scan[mode=a,size=10k]", "scan[mode=b,size=10k]"]
                if "mode=a" in f:
                    want = want[:1]
                self.assertEqual([line.split("\t")[1] for line in res.out.splitlines()], want)
        res = self.run_h(["list", "--filter", "scan[size=1500000]", path])
        self.assertEqual([line.split("\t")[1] for line in res.out.splitlines()],
                         ["scan[mode=a,size=1.5M]", "scan[mode=b,size=1.5M]"])
        res = self.run_h(["run", "-q", "--runs", "3", "--filter", "scan[size=1000]",
                          "--format", "json", path])
        self.assertExit(res, 0)
        self.assertEqual([b["name"] for b in json.loads(res.out)["suites"][0]["benchmarks"]],
                         ["scan[mode=a,size=1k]", "scan[mode=b,size=1k]"])
        # only sizes are counts: another parameter's value is matched as written
        res = self.run_h(["list", "--filter", "scan[size=10001]", path])
        self.assertExit(res, 3)


GROW = r"""#include <stdlib.h>
#include <string.h>
/* Touches COST bytes: n KiB (linear) or n*n/16 bytes (quadratic), so that
 * peak RSS grows exactly as size or size^2 and both agree at 16k. */
int main(int argc, char **argv) {
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0, bytes = COST;
	char *p = malloc(bytes);
	if (!p)
		return 3;
	memset(p, 1, bytes);
	return p[bytes / 2] == 1 ? 0 : 4;
}
"""

GROW_SUITE = """version: "1"
name: growth
build:
  command: [cc, -O1, -o, "${artifact}", grow.c]
benchmarks:
  - name: grow
    sizes: [{value: 1k, compare: false}, 16k, 32k, 64k]
    runs: 8
    warmup: 0
    metrics: {memory: true}
    regression: {max_cv: 0, min_samples: 5, exponent: {max_difference: 0.1}}
    commands:
      grow:
        command: ["${artifact}", "${size}"]
        budget: {peak_rss: {exponent: "<= 1.2"}}
"""


COMPLEXITY = """
benchmarks:
  - name: linear
    sizes: [1k, 2k, 4k, 8k, 16k]
    runs: 3
    warmup: 0
    metrics: {{instructions: {{backend: valgrind, runs: 1}}}}
    commands:
      work: {{command: ["{helpers}/complexity", linear, "${{size}}"]}}
  - name: nlogn
    sizes: [4k, 8k, 16k, 32k, 64k]
    runs: 3
    warmup: 0
    metrics: {{instructions: {{backend: valgrind, runs: 1}}}}
    commands:
      work: {{command: ["{helpers}/complexity", nlogn, "${{size}}"]}}
  - name: quadratic
    sizes: [500, 1k, 2k, 3k, 4k]
    runs: 3
    warmup: 0
    metrics: {{instructions: {{backend: valgrind, runs: 1}}}}
    commands:
      work: {{command: ["{helpers}/complexity", quadratic, "${{size}}"]}}
"""


class ComplexityTest(PrivateTmpTest):
    """Growth apart from the start-up cost (docs/comparison.md, "Growth with
    input size"): three programs that spend about 2.9 M instructions (about
    1 ms) starting, then O(n), O(n log n) or O(n^2) work, counted under
    valgrind, which makes the counts and so the exponents exact whatever the
    machine's load. The smallest sizes' work is half the start-up or less,
    which a plain power law folds into the exponent."""

    def test_sizes__exponents_apart_from_the_start_up_on_instructions(self):
        path = self.write("himorime.yaml", suite(COMPLEXITY.format(helpers=HELPERS)))
        out = os.path.join(self.tmp, "out.json")
        res = self.run_h(["run", "--format", "json", "-o", out, "--seed", "5", path])
        self.assertExit(res, 0)
        with open(out) as f:
            doc = json.load(f)
        schema = load(SCHEMA)
        self.assertEqual(validate(schema, doc, schema), [])
        fits = {g["benchmark"]: g["head"] for g in doc["suites"][0]["growth"]
                if g["metric"] == "instructions"}
        self.assertEqual(sorted(fits), ["linear", "nlogn", "quadratic"])
        for name, want in (("linear", 1.0), ("nlogn", 1.1), ("quadratic", 2.0)):
            with self.subTest(name):
                self.assertAlmostEqual(fits[name]["exponent"], want, delta=0.1)
                # the constant is the start-up: a loop of 400,000 turns
                self.assertGreater(fits[name]["constant"], 2.5e6)
                self.assertLess(fits[name]["constant"], 3.5e6)
                self.assertEqual((fits[name]["sizes"], fits[name]["runs"]), (5, 5))
        # the same runs as a plain power law, from the saved counts: the
        # start-up flattens it well below the truth
        counts = {}
        for b in doc["suites"][0]["benchmarks"]:
            m = b["commands"][0]["head"]["metrics"]["instructions"]
            counts.setdefault(b["case"]["benchmark"], []).append((b["case"]["size"],
                                                                  m["samples"][0]))
        plain = power_law(counts["linear"])
        self.assertLess(plain, 0.85)
        text = self.run_h(["report", out]).out
        self.assertRegex(text, r"  linear › work: instructions grows as size\^1\.00 beyond a "
                               r"constant 2\.\d\d M instructions over sizes 1k…16k\n")


def power_law(points):
    """The least-squares slope of ln(count) over ln(size)."""
    import math
    xs = [math.log(s) for s, _ in points]
    ys = [math.log(c) for _, c in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) /
            sum((x - mx) ** 2 for x in xs))


class GrowthRepo(GitRepoTest):
    """A repository whose program is O(n) in one commit and O(n^2) in the
    next (GROW, GROW_SUITE)."""

    def setUp(self):
        super().setUp()
        self.program("n * 1024")
        self.write("repo/himorime.yaml", GROW_SUITE)
        self.git("add", "-A")
        self.git("commit", "-qm", "linear")
        self.program("n * n / 16")
        self.git("commit", "-qam", "quadratic")

    def program(self, cost):
        self.write("repo/grow.c", GROW.replace("COST", cost))

    def growth(self, doc, metric):
        return [g for g in doc["suites"][0]["growth"] if g["metric"] == metric][0]


class GrowthCompareTest(GrowthRepo):
    """The proof of docs/configuration.md, "Sizes". Exponents are asserted
    on peak RSS, which the runs make exact; latency is fitted and shown the
    same way."""

    def test_growth__quadratic_is_a_regression_the_smallest_size_would_pass(self):
        res = self.run_h(["compare", "--format", "json", "--seed", "3", "--against", "HEAD~1"],
                         cwd=self.repo)
        self.assertExit(res, 1)
        doc = json.loads(res.out)
        schema = load(SCHEMA)
        self.assertEqual(validate(schema, doc, schema), [])
        s = doc["suites"][0]
        self.assertEqual([b["name"] for b in s["benchmarks"]],
                         ["grow[size=16k]", "grow[size=32k]", "grow[size=64k]"])
        self.assertEqual(s["not_compared"], [{
            "benchmark": "grow[size=1k]",
            "reason": "its size says compare: false (run and sweep measure it)"}])
        rss = self.growth(doc, "peak_rss")
        self.assertAlmostEqual(rss["base"]["exponent"], 1, delta=0.1)
        self.assertAlmostEqual(rss["head"]["exponent"], 2, delta=0.1)
        self.assertEqual((rss["head"]["from"], rss["head"]["to"]), ("16k", "64k"))
        self.assertEqual(rss["comparison"]["verdict"], "regression")
        self.assertEqual(rss["comparison"]["max_difference"], 0.1)
        self.assertGreater(rss["comparison"]["difference_low"], 0.1)
        self.assertEqual((rss["budget"]["text"], rss["budget"]["pass"]), ("<= 1.2", False))
        self.assertIsNotNone(self.growth(doc, "latency")["comparison"])
        small, big = s["benchmarks"][0]["commands"][0], s["benchmarks"][2]["commands"][0]
        self.assertEqual(small["comparisons"]["peak_rss"]["verdict"], "pass")
        self.assertNotEqual(small["result"], "regression")  # latency may be inconclusive
        self.assertEqual(big["comparisons"]["peak_rss"]["verdict"], "regression")
        self.assertEqual(big["result"], "regression")
        self.assertRegex(res.err, r"himorime: exit 1: 2 regressions\n$")  # 32k and 64k
        # the table says it, from the saved report too
        out = os.path.join(self.tmp, "cmp.json")
        with open(out, "w") as f:
            f.write(res.out)
        text = self.run_h(["report", out]).out
        self.assertIn("  - grow[size=1k]: not compared: its size says compare: false (run and "
                      "sweep measure it).\n", text)
        self.assertRegex(text, r"  grow › grow: peak_rss grows as size\^[12]\.\d\d \(\d\.\d\d…\d\.\d\d\) "
                               r"beyond a constant \d[\d.]* [KM]iB, base size\^[01]\.\d\d "
                               r"\(\d\.\d\d…\d\.\d\d\) beyond a constant \d[\d.]* [KM]iB, over sizes "
                               r"16k…64k; "
                               r"exponent change \+\d\.\d\d \(\+\d\.\d\d…\+\d\.\d\d\), tolerance "
                               r"0\.10: regression; budget exponent <= 1\.2: over budget\n")
        # and the CSV, one row per fitted value, budget, comparison and left-out case
        rows = list(csv.DictReader(io.StringIO(self.run_h(["report", "--format", "csv",
                                                             out]).out)))
        growth = [r for r in rows if r["record"] == "growth" and r["metric"] == "peak_rss"]
        self.assertEqual([(r["side"], r["statistic"]) for r in growth],
                         [(side, stat) for side in ("head", "base") for stat in
                          ("exponent", "exponent_low", "exponent_high", "coefficient",
                           "constant", "r_squared", "sizes", "runs")])
        self.assertEqual({(r["benchmark"], r["command"], r["reason"]) for r in growth},
                         {("grow", "grow", "over sizes 16k to 64k")})
        self.assertEqual(float(growth[0]["value"]), rss["head"]["exponent"])
        self.assertEqual(float(growth[8]["value"]), rss["base"]["exponent"])
        budget = [r for r in rows if r["record"] == "growth_budget" and r["metric"] == "peak_rss"]
        self.assertEqual([(r["status"], r["operator"], r["limit"], r["budget_text"])
                          for r in budget], [("fail", "<=", "1.2", "<= 1.2")])
        cmp = [r for r in rows if r["record"] == "growth_comparison" and r["metric"] == "peak_rss"]
        self.assertEqual(len(cmp), 1)
        self.assertEqual((cmp[0]["verdict"], cmp[0]["limit"]), ("regression", "0.1"))
        self.assertEqual(float(cmp[0]["difference"]), rss["comparison"]["difference"])
        self.assertEqual([(r["benchmark"], r["reason"]) for r in rows
                          if r["record"] == "not_compared"],
                         [("grow[size=1k]", "its size says compare: false (run and sweep "
                           "measure it)")])

    def test_growth__run_measures_every_size_and_keeps_the_budget(self):
        self.git("checkout", "-q", "HEAD~1")
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo)
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        s = doc["suites"][0]
        self.assertEqual([b["name"] for b in s["benchmarks"]],
                         ["grow[size=1k]", "grow[size=16k]", "grow[size=32k]", "grow[size=64k]"])
        self.assertNotIn("not_compared", s)
        rss = self.growth(doc, "peak_rss")
        self.assertTrue(rss["budget"]["pass"])
        self.assertIsNone(rss["comparison"])



    def test_growth__settings_problems_name_the_compared_cases(self):
        self.write("repo/himorime.yaml", GROW_SUITE.replace("runs: 8", "runs: 6"))
        self.git("commit", "-qam", "fewer runs")
        res = self.run_h(["compare", "--against", "HEAD~1"], cwd=self.repo)
        self.assertExit(res, 2)
        self.assertEqual(res.err, "".join(
            f"himorime.yaml:6:5: grow[size={k}]: runs 6 cannot give a 99% confidence interval: "
            "it needs at least 8 pairs\n" for k in ("16k", "32k", "64k")) +
            "himorime: exit 2: 3 problems in the comparison settings\n")


class GrowthSweepTest(GrowthRepo):
    """A sweep measures the sizes pull requests leave out, and history
    selects one case by its values."""

    def setUp(self):
        super().setUp()
        self.write("repo/himorime.yaml", GROW_SUITE.replace(
            "sizes: [{value: 1k, compare: false}, 16k, 32k, 64k]",
            "sizes: [{value: 1k, compare: false}, 2k]"))
        self.git("commit", "-qam", "small sizes")

    def test_sweep__measures_compare_false_sizes_and_history_selects_a_case(self):
        res = self.run_h(["sweep", "HEAD~1..HEAD", "--runs", "8", "--seed", "1", "-q"],
                         cwd=self.repo)
        self.assertExit(res, 0)
        res = self.run_h(["history", "--benchmark", "grow[size=1k]", "--metric", "peak_rss",
                          "--format", "json"], cwd=self.repo)
        self.assertExit(res, 0)
        series = json.loads(res.out)["series"]
        self.assertEqual([(x["benchmark"], x["command"], len(x["points"])) for x in series],
                         [("grow[size=1k]", "grow", 1)])
        # a regular expression still works, and a selector of no case finds nothing
        res = self.run_h(["history", "--benchmark", r"^grow\[size=2k\]$", "--metric", "peak_rss",
                          "--format", "json"], cwd=self.repo)
        self.assertEqual([x["benchmark"] for x in json.loads(res.out)["series"]],
                         ["grow[size=2k]"])
        res = self.run_h(["history", "--benchmark", "grow[size=3k]", "--format", "json"],
                         cwd=self.repo)
        self.assertExit(res, 0)
        self.assertEqual(json.loads(res.out)["series"], [])


if __name__ == "__main__":
    unittest.main()
