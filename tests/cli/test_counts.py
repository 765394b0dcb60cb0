"""The counted metrics end to end (docs/comparison.md, "Deciding on counts"):
real git repositories whose suite builds a C program on both sides.
artifact_size: a 5% larger artifact is a regression, an identical one a pass,
with the ELF sizes in the report, a budget in k/M/G, and every renderer
showing the sizes."""
import json
import os
import re
import subprocess

from harness import GitRepoTest

# PAD bytes of read-only data: 60000 and 64000 give ELF files of about 73 and
# 77 KB with this toolchain (+5.6%), whatever the page rounding.
PROGRAM = r"""static const char pad[PAD] = {1};
int main(int argc, char **argv) { (void)argv; return pad[argc] == 7; }
"""

SIZE_SUITE = """version: "1"
name: size
build:
  command: [cc, -O1, -o, "${artifact}", work.c]
benchmarks:
  - name: tool
    runs: 10
    metrics: {artifact_size: true}
    # the timings are not what these tests look at
    regression: {max_cv: 0, latency: {gate: false}}
    commands:
      tool:
        command: ["${artifact}"]
        budget:
          artifact_size: {median: "<= 2M"}
"""


class ArtifactSizeTest(GitRepoTest):
    def setUp(self):
        super().setUp()
        self.program(60000)
        self.write("repo/himorime.yaml", SIZE_SUITE)
        self.git("add", "-A")
        self.git("commit", "-qm", "base")

    def program(self, pad):
        self.write("repo/work.c", PROGRAM.replace("PAD", str(pad)))

    def compare(self, *args, code):
        res = self.run_h(["compare", "--against", "HEAD~1", "--seed", "3", *args],
                         cwd=self.repo)
        self.assertExit(res, code)
        return res

    def command(self, res):
        return json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]

    def test_counts__a_larger_artifact_is_a_regression_on_artifact_size(self):
        self.program(64000)
        self.git("commit", "-qam", "bigger")
        c = self.command(self.compare("--format", "json", code=1))
        k = c["comparisons"]["artifact_size"]
        head = c["head"]["metrics"]["artifact_size"]
        base = c["base"]["metrics"]["artifact_size"]
        self.assertEqual(c["result"], "regression")
        self.assertEqual((k["verdict"], k["statistic"], k["pairs"], k["confidence"],
                          k["max_percent"], k["spread_percent"], k["reason"]),
                         ("regression", "median_ratio", 1, 1, 1, 0, ""))
        self.assertEqual((k["base"], k["head"]), (base["samples"][0], head["samples"][0]))
        self.assertAlmostEqual(k["change_percent"],
                               100 * (head["samples"][0] / base["samples"][0] - 1))
        self.assertGreater(k["change_percent"], 5)
        self.assertLess(k["change_percent"], 6)
        self.assertEqual((head["group"], head["scope"], head["source"], head["status"]),
                         ("counts", "artifact", "artifact_file", "measured"))
        # the 4000 bytes more are read-only data: text in `size`'s terms
        self.assertEqual(head["elf"]["text"] - base["elf"]["text"], 4000)
        self.assertEqual(head["elf"]["data"], base["elf"]["data"])
        self.assertEqual(head["elf"]["bss"], base["elf"]["bss"])
        self.assertEqual(c["budgets"][0]["status"], "pass")
        self.assertEqual(c["budgets"][0]["limit"], 2000000)

    def test_counts__an_identical_artifact_passes(self):
        self.write("repo/README", "docs only\n")
        self.git("add", "README")
        self.git("commit", "-qm", "docs")
        c = self.command(self.compare("--format", "json", code=0))
        k = c["comparisons"]["artifact_size"]
        self.assertEqual((k["verdict"], k["change_percent"], k["base"] == k["head"]),
                         ("pass", 0, True))
        self.assertNotIn("artifact_size", [v for v, x in c["comparisons"].items()
                                          if x["verdict"] != "pass" and v != "latency"])

    def test_counts__every_renderer_shows_the_sizes(self):
        self.program(64000)
        self.git("commit", "-qam", "bigger")
        table = self.compare(code=1).out
        self.assertRegex(table, r"Counts\nBENCHMARK +COMMAND +BASE +HEAD +CHANGE +CONFIDENCE"
                                r" +TOLERANCE +COULD SEE +RUNS +RESULT\ntool +tool +71\.\d KiB"
                                r" +75\.\d KiB +\+5\.\d% +exact +±1% +±1% +1 +regression\n")
        md = self.compare("--format", "markdown", code=1).out
        self.assertRegex(md, r"\| tool › tool \| artifact_size \| 71\.\d KiB \| 75\.\d KiB \|"
                             r" \+5\.\d% \| exact \| ±1% \| regression \|")
        gh = self.compare("--format", "github", code=1).out
        self.assertRegex(gh, r"\| tool › tool \| artifact_size \| 71\.\d KiB \| 75\.\d KiB \|"
                             r" \+5\.\d% \| exact \| ±1% \| 1 run \| regression \|")
        self.assertIn("| artifact_size | artifact_file | none | artifact |", gh)
        csv = self.compare("--format", "csv", code=1).out
        self.assertRegex(csv, r"size,tool,tool,regression,stat,head,artifact_size,bytes,"
                              r"artifact,artifact_file,none,measured,median,7\d{4},")
        html = self.compare("--format", "html", code=1).out
        self.assertIn("Counts</h2>", html)
        self.assertRegex(html, r"artifact_size</td>")

    def test_counts__a_budget_on_artifact_size_is_checked(self):
        suite = SIZE_SUITE.replace('"<= 2M"', '"<= 70k"')
        self.write("repo/himorime.yaml", suite)
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo)
        self.assertExit(res, 1)
        c = self.command(res)
        b = c["budgets"][0]
        self.assertEqual((b["metric"], b["limit"], b["status"], b["text"], c["result"]),
                         ("artifact_size", 70000, "fail", "<= 70k", "over_budget"))
        self.assertEqual(b["actual"], c["head"]["metrics"]["artifact_size"]["samples"][0])
        self.assertIsNone(c["comparisons"])


class CountsSuiteTest(GitRepoTest):
    """The suite keys of the counts, and their errors."""

    def validate(self, body, code):
        self.write("repo/himorime.yaml", body)
        res = self.run_h(["validate"], cwd=self.repo)
        self.assertExit(res, code)
        return res

    def test_counts__artifact_size_needs_a_build(self):
        res = self.validate(SIZE_SUITE.replace('build:\n  command: [cc, -O1, -o, "${artifact}", '
                                               'work.c]\n', '')
                            .replace('["${artifact}"]', "[\"true\"]"), 2)
        self.assertEqual(res.err,
                         "himorime.yaml:6:30: benchmarks[0].metrics.artifact_size: "
                         "metrics.artifact_size needs a build: step (it measures ${artifact})"
                         " [HMR2001]\n  hint: add a build: step that writes ${artifact}\n"
                         "himorime: exit 2: 1 problem in 1 suite file\n")

    def test_counts__tolerance_and_budget_errors_point_at_the_value(self):
        body = SIZE_SUITE.replace("latency: {gate: false}",
                                  "artifact_size: {max_percent: 2%, min_difference: 1k}")
        body = body.replace('"<= 2M"', '"<= 2X"')
        res = self.validate(body, 2)
        self.assertEqual(res.err,
                         "himorime.yaml:10:62: benchmarks[0].regression.artifact_size."
                         "min_difference: unknown key \"min_difference\" in benchmarks[0]."
                         "regression.artifact_size [HMR2001]\n"
                         "himorime.yaml:15:35: benchmarks[0].commands.tool.budget.artifact_size."
                         "median: expected a count after the operator, got \"<= 2X\" (unknown "
                         "multiplier \"X\"; expected k, M or G (10^3, 10^6, 10^9)) [HMR2001]\n"
                         "  hint: write a count with k, M or G (10^3, 10^6, 10^9) or a byte size"
                         " such as 1.5MiB\n"
                         "himorime: exit 2: 2 problems in 1 suite file\n")

    def test_counts__budgets_take_k_m_g_and_byte_sizes(self):
        for text, limit in (("<= 2M", 2000000), ("< 64k", 64000), ("<= 1.5MiB", 1572864),
                            ("<= 3G", 3e9)):
            body = SIZE_SUITE.replace('"<= 2M"', '"%s"' % text)
            self.write("repo/himorime.yaml", body)
            res = self.run_h(["list", "--format", "json"], cwd=self.repo)
            self.assertExit(res, 0)
            doc = json.loads(res.out)
            found = re.findall(r'"limit": ([0-9.e+]+)', json.dumps(doc))
            self.assertEqual([float(x) for x in found], [limit], (text, res.out))


# 10,000 × FACTOR additions: 100 and 101 are 1% apart in instructions.
LOOP = r"""#include <stdio.h>
int main(void) {
	volatile unsigned long x = 0;
	for (long i = 0; i < 10000L * FACTOR; i++) x += i;
	printf("%lu\n", (unsigned long)x);
	return 0;
}
"""

# Reads the file it is given and prints its path and size.
PATH_PRINTER = r"""#include <stdio.h>
int main(int argc, char **argv) {
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	long n = 0;
	if (!f)
		return 1;
	while (fgetc(f) != EOF)
		n++;
	fclose(f);
	printf("%s: %ld bytes\n", argv[1], n);
	return 0;
}
"""

# The parent counts FACTOR, a forked child (no exec) 10 times as much.
FORK = r"""#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static void spin(long n) { volatile unsigned long x = 0; for (long i = 0; i < n; i++) x += i; }
int main(void) {
	pid_t pid = fork();
	if (pid == 0) { spin(100000L * FACTOR); _exit(0); }
	spin(10000L * FACTOR);
	waitpid(pid, NULL, 0);
	return 0;
}
"""

INSTRUCTIONS_SUITE = """version: "1"
name: ins
build:
  command: [cc, -O1, -o, "${artifact}", work.c]
benchmarks:
  - name: tool
    runs: 10
    metrics: {instructions: true}
    regression: {max_cv: 0, latency: {gate: false}, instructions: {max_percent: 0.5%}}
    commands:
      tool:
        command: ["${artifact}"]
"""


class InstructionsTest(GitRepoTest):
    """instructions with the valgrind backend (named: where the hardware
    counter opens, `auto` would pick perf)."""

    def setUp(self):
        super().setUp()
        self.write("repo/himorime.yaml", INSTRUCTIONS_SUITE.replace(
            "metrics: {instructions: true}", "metrics: {instructions: {backend: valgrind}}"))
        self.program(LOOP, 100)
        self.git("add", "-A")
        self.git("commit", "-qm", "base")

    def program(self, text, factor):
        self.write("repo/work.c", text.replace("FACTOR", str(factor)))

    def compare(self, code, *args):
        res = self.run_h(["compare", "--against", "HEAD~1", "--seed", "3", *args],
                         cwd=self.repo, timeout=600)
        self.assertExit(res, code)
        return res

    def command(self, res):
        return json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]

    def test_counts__one_percent_more_instructions_is_a_regression(self):
        self.program(LOOP, 101)
        self.git("commit", "-qam", "1% more")
        c = self.command(self.compare(1, "--format", "json"))
        k = c["comparisons"]["instructions"]
        head = c["head"]["metrics"]["instructions"]
        base = c["base"]["metrics"]["instructions"]
        self.assertEqual((k["verdict"], k["statistic"], k["pairs"], k["unit"], k["reason"]),
                         ("regression", "median_ratio", 3, "count", ""))
        self.assertEqual(c["result"], "regression")
        self.assertGreater(k["change_percent"], 0.9)
        self.assertLess(k["change_percent"], 1.1)
        for side in (head, base):
            self.assertEqual(side["counter"], {"backend": "valgrind", "version": side["counter"]
                                               ["version"], "event": "Ir"})
            self.assertRegex(side["counter"]["version"], r"^\d+\.\d+")
            self.assertEqual((side["source"], side["process_aggregation"], side["unit"],
                              side["group"], len(side["samples"])),
                             ("valgrind", "sum_of_traced_processes", "count", "counts", 3))
            # constant counts: three equal runs
            self.assertEqual(len(set(side["samples"])), 1)
        # 10,000 more additions, at a few instructions each
        self.assertGreater(head["samples"][0] - base["samples"][0], 10000 * 3)
        table = self.compare(1).out
        self.assertRegex(table, r"tool +tool +\d\.\d\d M instructions +\d\.\d\d M "
                                r"instructions +\+1\.0% +exact +±0\.5% +±0\.5% +3 +regression\n")
        self.assertIn("instructions counted by valgrind", table)

    def budget_cut(self, *args):
        """A comparison whose whole time budget (1 ms) is spent after its first
        round: the counted runs are announced, warned about and never start."""
        res = self.run_h(["compare", "--against", "HEAD", "--seed", "3", "--format", "json",
                          *args], cwd=self.repo, timeout=600)
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        b = doc["suites"][0]["benchmarks"][0]
        k = b["commands"][0]["comparisons"]
        self.assertEqual(doc["max_total_time_ns"], 1000000)
        self.assertEqual((b["rounds"], b["time_budget_ran_out"]), (1, "max_total_time"))
        self.assertEqual((k["latency"]["verdict"], k["latency"]["reason"]),
                         ("inconclusive", "the comparison's time budget ran out after 1 pair"))
        self.assertEqual((k["instructions"]["verdict"], k["instructions"]["pairs"],
                          k["instructions"]["change_percent"], k["instructions"]["reason"]),
                         ("inconclusive", 0, None,
                          "the comparison's time budget ran out after 0 counted runs per side"))
        self.assertNotIn("samples", b["commands"][0]["head"]["metrics"].get("instructions", {}))
        self.assertRegex(res.err, r"\nhimorime: warning: tool: its counted runs may not fit the "
                                  r"comparison's time budget: 6 runs under valgrind, about "
                                  r"\d\.\d s to \d\.\d s, and 0\.0 s of max_total_time is left; "
                                  r"they stop when it is spent\n")
        self.assertNotIn("tool › tool: counting", res.err)
        return res

    def test_counts__the_comparisons_time_budget_stops_the_counted_runs(self):
        self.budget_cut("--max-total-time", "1ms")
        # the suite's defaults.regression.max_total_time does the same, and the
        # flag wins over it
        self.write("repo/himorime.yaml", INSTRUCTIONS_SUITE.replace(
            "benchmarks:", "defaults:\n  regression: {max_total_time: 1ms}\nbenchmarks:"))
        res = self.budget_cut()
        table = self.run_h(["report", "--no-color", self.write("report.json", res.out)])
        self.assertIn("  - tool › tool: instructions inconclusive: the comparison's time budget "
                      "ran out after 0 counted runs per side; raise --max-total-time or "
                      "defaults.regression.max_total_time\n", table.out)
        # undecided: no claim of an exact change
        self.assertRegex(table.out, r"\ntool +tool +— +— +— +— +±0\.5% +— +0 +inconclusive\n")
        res = self.run_h(["compare", "--against", "HEAD", "--seed", "3", "--format", "json",
                          "--max-total-time", "1h"], cwd=self.repo, timeout=600)
        self.assertExit(res, 0)
        b = json.loads(res.out)["suites"][0]["benchmarks"][0]
        self.assertEqual((b["rounds"], "time_budget_ran_out" in b), (10, False))
        self.assertEqual(b["commands"][0]["comparisons"]["instructions"]["verdict"], "pass")
        self.assertRegex(res.err, r"himorime: tool: 6 counted runs under valgrind next, about "
                                  r"\d+\.\d s to \d+\.\d s \(valgrind's start and 20 to 50 times "
                                  r"the timed runs\), \d+\.\d s elapsed\n"
                                  r"himorime: tool › tool: counting instructions under valgrind, "
                                  r"3 runs per side, \d+\.\d s elapsed\n")

    def test_counts__counted_runs_cut_short_by_the_time_budget_decide_nothing(self):
        """Counted runs that take over a second each (only they see
        HIMORIME_COUNT_PAD) against a 3.5 s budget: at most three of the six
        start, one per side at the least, and what they counted, equal as it
        is, is no verdict: the rule never decides on fewer runs than it
        asks for."""
        self.write("repo/himorime.yaml", """version: "1"
name: ins
benchmarks:
  - name: tool
    runs: 10
    metrics: {instructions: {backend: valgrind}}
    regression: {max_cv: 0, latency: {gate: false}}
    commands:
      tool:
        command: 'if [ -n "$${HIMORIME_COUNT_PAD+x}" ]; then sleep 1; fi'
        shell: true
""")
        res = self.run_h(["compare", "--against", "HEAD", "--seed", "3", "--format", "json",
                          "--max-total-time", "3500ms"], cwd=self.repo, timeout=600)
        self.assertExit(res, 0)
        b = json.loads(res.out)["suites"][0]["benchmarks"][0]
        k = b["commands"][0]["comparisons"]["instructions"]
        self.assertEqual((b["time_budget_ran_out"], k["verdict"]),
                         ("max_total_time", "inconclusive"))
        self.assertLessEqual(k["pairs"], 1)
        self.assertEqual(k["reason"], "the comparison's time budget ran out after %d counted "
                                      "run%s per side" % (k["pairs"], "" if k["pairs"] == 1 else "s"))

    def test_counts__identical_commits_pass_on_instructions(self):
        # A program that prints the path it reads: its count grows with the
        # path's length, and head (the working tree) and base (a checkout)
        # are at paths of different lengths. Under valgrind the count also
        # moves with the working directory's length modulo 4 (docs/
        # comparison.md): four benchmarks run in directories one character
        # apart, and the comparison runs from two clones one character apart,
        # so that some benchmark meets every difference of alignment.
        suite = ['version: "1"', "name: ins", "build:",
                 '  command: [cc, -O1, -o, "${artifact}", work.c]', "benchmarks:"]
        for i in range(1, 5):
            self.write("repo/%s/input.txt" % ("d" * i), "x" * 100)
            suite += ["  - name: cwd%d" % i, "    runs: 10",
                      "    metrics: {instructions: true}",
                      "    regression: {max_cv: 0, latency: {gate: false}, "
                      "instructions: {max_percent: 0}}",
                      '    commands: {tool: {command: ["${artifact}", "input.txt"], cwd: "%s"}}'
                      % ("d" * i)]
        self.write("repo/work.c", PATH_PRINTER)
        self.write("repo/himorime.yaml", "\n".join(suite) + "\n")
        self.git("add", "-A")
        self.git("commit", "-qm", "reads a file")
        self.write("repo/README", "docs only\n")
        self.git("add", "README")
        self.git("commit", "-qm", "docs")
        clone = os.path.join(self.tmp, "repo2")
        subprocess.run(["git", "clone", "-q", self.repo, clone], check=True)
        for where in (self.repo, clone):
            res = self.run_h(["compare", "--against", "HEAD~1", "--seed", "3", "--format",
                              "json"], cwd=where, timeout=600)
            self.assertExit(res, 0)
            for b in json.loads(res.out)["suites"][0]["benchmarks"]:
                c = b["commands"][0]
                k = c["comparisons"]["instructions"]
                self.assertEqual((b["name"], k["verdict"], k["spread_percent"], k["pairs"],
                                  k["change_percent"], k["max_percent"]),
                                 (b["name"], "pass", 0, 3, 0, 0))
                self.assertEqual(c["head"]["metrics"]["instructions"]["samples"],
                                 c["base"]["metrics"]["instructions"]["samples"])

    def test_counts__a_forked_childs_instructions_are_counted(self):
        self.program(FORK, 100)
        self.git("commit", "-qam", "fork")
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo,
                         timeout=600)
        self.assertExit(res, 0)
        m = self.command(res)["head"]["metrics"]["instructions"]
        # the child's 10 million additions are in the sum, beside the parent's 1 million
        self.assertGreater(m["samples"][0], 10000000 * 3)
        self.assertEqual(len(m["samples"]), 3)

    def test_counts__a_backend_that_cannot_count_is_unsupported(self):
        """backend: perf on a machine without hardware counters (this one):
        metrics.unsupported decides between a metric error and a note."""
        suite = INSTRUCTIONS_SUITE.replace("metrics: {instructions: true}",
                                           "metrics: {instructions: {backend: perf}}")
        self.write("repo/himorime.yaml", suite)
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo)
        if json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]["head"][
                "metrics"]["instructions"]["status"] != "unsupported":
            self.skipTest("this machine opens the instructions counter")
        self.assertExit(res, 6)
        c = self.command(res)
        m = c["head"]["metrics"]["instructions"]
        self.assertEqual(c["result"], "metric_error")
        self.assertRegex(m["reason"], r"^backend perf: the instructions counter is not available")
        self.assertEqual((c["head"]["error"]["kind"], c["head"]["error"]["metric"],
                          c["head"]["error"]["message"]),
                         ("metric_unsupported", "instructions", m["reason"]))
        self.write("repo/himorime.yaml", suite.replace(
            "{instructions: {backend: perf}}", "{instructions: {backend: perf}, unsupported: skip}"))
        res = self.run_h(["run", "--seed", "3"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertIn("tool › tool: instructions is not supported here: backend perf: the "
                      "instructions counter is not available", res.out)


class PerfInstructionsTest(GitRepoTest):
    """instructions with the perf backend, counted during the timed runs
    (docs/design.md, "Measuring a run"). Only where the hardware counter
    opens: elsewhere (this machine, most virtual machines and hosted CI
    runners) every test is skipped with the probe's reason, printed."""

    def setUp(self):
        super().setUp()
        self.write("repo/himorime.yaml", INSTRUCTIONS_SUITE.replace(
            "metrics: {instructions: true}", "metrics: {instructions: {backend: perf}}"))
        self.program(LOOP, 100)
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo)
        self.plain = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]
        m = self.plain["head"]["metrics"]["instructions"]
        if m["status"] == "unsupported":
            print("\n  skipped: the perf backend cannot count here: " + m["reason"])
            self.skipTest(m["reason"])
        self.assertExit(res, 0)

    def program(self, text, factor):
        self.write("repo/work.c", text.replace("FACTOR", str(factor)))

    def compare(self, code, *args):
        res = self.run_h(["compare", "--against", "HEAD~1", "--seed", "3", *args],
                         cwd=self.repo, timeout=600)
        self.assertExit(res, code)
        return json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]

    def check_counter(self, side):
        self.assertEqual(side["counter"], {"backend": "perf", "version": os.uname().release,
                                           "event": "instructions:u"})
        self.assertEqual((side["source"], side["process_aggregation"], side["status"]),
                         ("perf_event", "sum_of_traced_processes", "measured"))

    def test_counts__perf_counts_every_timed_run(self):
        head = self.plain["head"]
        m = head["metrics"]["instructions"]
        self.check_counter(m)
        # one count per timed run: no separate phase of runs
        self.assertEqual(len(m["samples"]), head["count"])
        self.assertEqual(len(m["samples"]), len(head["metrics"]["latency"]["samples"]))
        # a million additions, at a few instructions each
        self.assertGreater(min(m["samples"]), 1000000 * 3)

    def test_counts__perf_one_percent_more_instructions_is_a_regression(self):
        self.program(LOOP, 101)
        self.git("commit", "-qam", "1% more")
        c = self.compare(1, "--format", "json")
        k = c["comparisons"]["instructions"]
        self.assertEqual((k["verdict"], k["statistic"], k["unit"], c["result"]),
                         ("regression", "median_ratio", "count", "regression"))
        self.assertGreater(k["change_percent"], 0.8)
        self.assertLess(k["change_percent"], 1.2)
        for name in ("head", "base"):
            side = c[name]
            self.check_counter(side["metrics"]["instructions"])
            self.assertEqual(len(side["metrics"]["instructions"]["samples"]), side["count"])

    def test_counts__perf_identical_commits_pass(self):
        self.write("repo/README", "docs only\n")
        self.git("add", "README")
        self.git("commit", "-qm", "docs")
        c = self.compare(0, "--format", "json")
        self.assertEqual(c["comparisons"]["instructions"]["verdict"], "pass")

    def test_counts__perf_counts_a_forked_childs_instructions(self):
        self.program(FORK, 100)
        self.git("commit", "-qam", "fork")
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo)
        self.assertExit(res, 0)
        m = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]["head"][
            "metrics"]["instructions"]
        # the child's 10 million additions are in the sum, beside the parent's 1 million
        self.assertGreater(min(m["samples"]), 10000000 * 3)


class AutoBackendTest(GitRepoTest):
    """`auto` counts instructions with perf where the counter counts, else
    with valgrind (installed here)."""

    def test_counts__auto_picks_perf_where_the_counter_counts(self):
        self.write("repo/himorime.yaml", INSTRUCTIONS_SUITE.replace("runs: 10", "runs: 3"))
        self.write("repo/work.c", LOOP.replace("FACTOR", "10"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo,
                         timeout=600)
        self.assertExit(res, 0)
        m = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]["head"][
            "metrics"]["instructions"]
        self.write("repo/himorime.yaml", INSTRUCTIONS_SUITE.replace(
            "runs: 10", "runs: 3").replace("metrics: {instructions: true}",
                                           "metrics: {instructions: {backend: perf}}"))
        probe = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo)
        perf = json.loads(probe.out)["suites"][0]["benchmarks"][0]["commands"][0]["head"][
            "metrics"]["instructions"]
        if perf["status"] == "measured":
            self.assertEqual((m["counter"]["backend"], m["source"]), ("perf", "perf_event"))
        else:
            self.assertEqual(perf["status"], "unsupported")
            self.assertEqual((m["counter"]["backend"], m["counter"]["event"], m["source"]),
                             ("valgrind", "Ir", "valgrind"))
        self.assertEqual(m["status"], "measured")
        self.assertEqual(len(m["samples"]), 3)


# 10 × FACTOR blocks of 64 bytes: 100 and 110 are 10% apart.
ALLOC = r"""#include <stdlib.h>
int main(void) {
	for (int i = 0; i < 10 * FACTOR; i++) { void *p = malloc(64); if (!p) return 1; free(p); }
	return 0;
}
"""


class AllocationsTest(GitRepoTest):
    """allocations and allocated_bytes with valgrind's DHAT."""

    def setUp(self):
        super().setUp()
        self.write("repo/himorime.yaml", INSTRUCTIONS_SUITE.replace(
            "metrics: {instructions: true}", "metrics: {allocations: true}").replace(
            "instructions: {max_percent: 0.5%}", "allocations: {max_percent: 5%}").replace(
            "-O1", "-O0"))
        self.write("repo/work.c", ALLOC.replace("FACTOR", "100"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")

    def test_counts__ten_percent_more_blocks_is_a_regression_on_allocations(self):
        self.write("repo/work.c", ALLOC.replace("FACTOR", "110"))
        self.git("commit", "-qam", "10% more blocks")
        res = self.run_h(["compare", "--against", "HEAD~1", "--seed", "3", "--format", "json"],
                         cwd=self.repo, timeout=600)
        self.assertExit(res, 1)
        c = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]
        blocks, size = c["comparisons"]["allocations"], c["comparisons"]["allocated_bytes"]
        self.assertEqual((blocks["base"], blocks["head"], blocks["verdict"], blocks["max_percent"]),
                         (1000, 1100, "regression", 5))
        self.assertEqual((size["base"], size["head"], size["verdict"], size["max_percent"]),
                         (64000, 70400, "regression", 1))
        self.assertAlmostEqual(blocks["change_percent"], 10)
        head = c["head"]["metrics"]
        self.assertEqual((head["allocations"]["counter"]["event"],
                          head["allocated_bytes"]["counter"]["event"],
                          head["allocations"]["unit"], head["allocated_bytes"]["unit"]),
                         ("tbk", "tb", "count", "bytes"))
        self.assertEqual(head["allocations"]["samples"], [1100, 1100, 1100])
        self.assertNotIn("instructions", head)
        saved = self.write("report.json", res.out)
        res = self.run_h(["report", "--format", "markdown", saved])
        self.assertExit(res, 0)
        self.assertRegex(res.out, r"\| tool › tool \| allocations \| 1\.00 k allocations \| "
                                  r"1\.10 k allocations \| \+10\.0% \| exact \| ±5% \| "
                                  r"regression \|")

    def test_counts__identical_commits_pass_on_allocations(self):
        self.write("repo/README", "docs only\n")
        self.git("add", "README")
        self.git("commit", "-qm", "docs")
        res = self.run_h(["compare", "--against", "HEAD~1", "--seed", "3", "--format", "json"],
                         cwd=self.repo, timeout=600)
        self.assertExit(res, 0)
        c = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]
        for name in ("allocations", "allocated_bytes"):
            k = c["comparisons"][name]
            self.assertEqual((k["verdict"], k["change_percent"], k["pairs"]), ("pass", 0, 3))


class StaticAllocationsTest(GitRepoTest):
    """DHAT counts allocations through a library preloaded into each process:
    a statically linked program gets none, so its allocations are unmeasurable
    (unsupported, exit 6 under `metrics.unsupported: fail`), never a measured
    0 that every comparison would pass."""

    def setUp(self):
        super().setUp()
        self.write("repo/work.c", ALLOC.replace("FACTOR", "100"))

    def suite(self, static, policy=""):
        self.write("repo/himorime.yaml", INSTRUCTIONS_SUITE.replace(
            "metrics: {instructions: true}", "metrics: {allocations: true%s}" % policy).replace(
            "instructions: {max_percent: 0.5%}", "allocations: {max_percent: 5%}").replace(
            "-O1", "-O0, -static" if static else "-O0"))

    def test_counts__a_static_programs_allocations_are_unmeasurable(self):
        self.suite(static=True)
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo, timeout=600)
        self.assertExit(res, 6)
        c = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]
        artifact = c["head"]["metrics"]["allocations"]["reason"].split('"')[1]
        why = ('"%s" is statically linked: valgrind\'s DHAT cannot see its allocations'
               % artifact)
        self.assertTrue(artifact.endswith("/artifact"), artifact)
        self.assertEqual(c["result"], "metric_error")
        for name in ("allocations", "allocated_bytes"):
            m = c["head"]["metrics"][name]
            self.assertEqual((m["status"], m["reason"], m["samples"]),
                             ("unsupported", why, []))
            self.assertIsNone(m["counter"])  # nothing was counted
        self.assertEqual((c["head"]["error"]["kind"], c["head"]["error"]["metric"],
                          c["head"]["error"]["message"]),
                         ("metric_unsupported", "allocations", why))
        # under `unsupported: skip`, a note; the dynamic build is measured
        self.suite(static=True, policy=", unsupported: skip")
        res = self.run_h(["run", "--seed", "3"], cwd=self.repo, timeout=600)
        self.assertExit(res, 0)
        self.assertIn("tool › tool: allocations is not supported here: \"", res.out)
        self.suite(static=False)
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo, timeout=600)
        self.assertExit(res, 0)
        m = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]["head"][
            "metrics"]["allocations"]
        self.assertEqual((m["status"], len(m["samples"])), ("measured", 3))
        self.assertGreaterEqual(m["samples"][0], 100 * 10)


# One benchmark, two commands: only `counted` asks for instructions
# (docs/configuration.md, "Metrics": a command's counts over its benchmark's).
PER_COMMAND_SUITE = """version: "1"
name: ins
build:
  command: [cc, -O1, -o, "${artifact}", work.c]
benchmarks:
  - name: tool
    runs: 10
    regression: {max_cv: 0, latency: {gate: false}, instructions: {max_percent: 0.5%}}
    commands:
      counted:
        command: ["${artifact}"]
        metrics: {instructions: true, artifact_size: true}
        budget: {instructions: {median: "<= 1G"}}
      plain:
        command: ["${artifact}", x]
"""


class CommandMetricsTest(GitRepoTest):
    """Counts asked for by one command of a benchmark and not the other."""

    def setUp(self):
        super().setUp()
        self.write("repo/himorime.yaml", PER_COMMAND_SUITE)
        self.write("repo/work.c", LOOP.replace("FACTOR", "100"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")

    def commands(self, res):
        cs = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"]
        return {c["name"]: c for c in cs}

    def test_counts__only_the_command_that_asks_is_counted_and_decided(self):
        self.write("repo/work.c", LOOP.replace("FACTOR", "101"))
        self.git("commit", "-qam", "1% more")
        res = self.run_h(["compare", "--against", "HEAD~1", "--seed", "3", "--format", "json"],
                         cwd=self.repo, timeout=600)
        self.assertExit(res, 1)
        cs = self.commands(res)
        counted, plain = cs["counted"], cs["plain"]
        k = counted["comparisons"]["instructions"]
        self.assertEqual((counted["result"], k["verdict"], k["pairs"]),
                         ("regression", "regression", 3))
        self.assertGreater(k["change_percent"], 0.9)
        self.assertLess(k["change_percent"], 1.1)
        for side in ("head", "base"):
            m = counted[side]["metrics"]["instructions"]
            self.assertEqual((m["status"], len(m["samples"]), m["counter"]["backend"]),
                             ("measured", 3, "valgrind"))
            # the other command's sides have no instructions at all
            self.assertNotIn("instructions", plain[side]["metrics"])
        self.assertEqual(sorted(counted["comparisons"]),
                         ["artifact_size", "instructions", "latency"])
        self.assertEqual(sorted(plain["comparisons"]), ["latency"])
        self.assertNotIn("artifact_size", plain["head"]["metrics"])
        self.assertEqual(plain["result"], "pass")
        self.assertEqual([(b["metric"], b["status"]) for b in counted["budgets"]],
                         [("instructions", "pass")])
        self.assertEqual(plain["budgets"], [])
        # the Counts table has the counted command's rows only
        table = self.run_h(["report", self.write("report.json", res.out)]).out
        counts = table.split("Counts\n")[1].split("\n\n")[0].splitlines()
        self.assertEqual(len(counts), 3, table)
        self.assertRegex(counts[1], r"^tool +counted +artifact_size +\d+\.\d KiB +\d+\.\d KiB +"
                                    r"[+-]?\d+\.\d% +exact +±1% +±1% +1 +\w+$")
        self.assertRegex(counts[2], r"^tool +counted +instructions +\d\.\d\d M instructions +"
                                    r"\d\.\d\d M instructions +\+1\.0% +exact +±0\.5% +±0\.5% +3 +"
                                    r"regression$")

    def test_counts__a_command_turns_off_its_benchmarks_count(self):
        """Its runs are the timed ones only: none under valgrind."""
        log = os.path.join(self.tmp, "plain.log")
        suite = PER_COMMAND_SUITE.replace(
            "    commands:\n",
            "    metrics: {instructions: true}\n    commands:\n").replace(
            '["${artifact}", x]',
            '[sh, -c, \'echo run >> "$PLAIN_LOG"\']\n        metrics: {instructions: false}')
        self.write("repo/himorime.yaml", suite)
        res = self.run_h(["run", "--format", "json", "--seed", "3"], cwd=self.repo, timeout=600,
                         env={"PLAIN_LOG": log})
        self.assertExit(res, 0)
        cs = self.commands(res)
        self.assertEqual(len(cs["counted"]["head"]["metrics"]["instructions"]["samples"]), 3)
        self.assertNotIn("instructions", cs["plain"]["head"]["metrics"])
        # one warmup and 10 timed runs
        with open(log) as f:
            self.assertEqual(f.read(), "run\n" * 11)

    def test_counts__a_budget_on_a_count_the_command_does_not_ask_for_is_an_error(self):
        suite = PER_COMMAND_SUITE.replace('["${artifact}", x]',
                                          '["${artifact}", x]\n'
                                          '        budget: {instructions: {max: "<= 1G"}}')
        self.write("repo/himorime.yaml", suite)
        res = self.run_h(["validate"], cwd=self.repo)
        self.assertExit(res, 2)
        self.assertEqual(res.err,
                         "himorime.yaml:16:18: benchmarks[0].commands.plain.budget.instructions: "
                         "a budget on instructions, which the command does not measure "
                         "[HMR2001]\n  hint: set metrics.instructions: true in the command, its "
                         "benchmark or defaults\n"
                         "himorime: exit 2: 1 problem in 1 suite file\n")
