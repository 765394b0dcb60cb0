"""`himorime compare` end to end on real git repositories made in a temporary
directory: a C program built by the suite on both sides, a 3x slowdown found,
identical code not flagged, the dirty working tree measured, the user's
repository untouched, and no temporary tree left behind."""
import json
import os
import re
import signal
import subprocess
import time
import unittest

from harness import HELPERS, HIMORIME, GitRepoTest, suite

MIB = 1024 * 1024

PROGRAM = r"""#include <stdio.h>
int main(void) {
	volatile double x = 0;
	for (long i = 0; i < 2000000L * FACTOR; i++) x += i * 0.5;
	printf("%f\n", x);
	return 0;
}
"""

SUITE = """version: "1"
name: cmp
build:
  command: [cc, -O1, -o, "${artifact}", work.c]
benchmarks:
  - name: work
    runs: 12
    warmup: 1
    metrics: {cpu: true}
    # no noise gate: the tests run on a loaded machine and look for a 3x step
    regression: {max_cv: 0}
    commands:
      work:
        command: ["${artifact}"]
"""


class CompareTest(GitRepoTest):
    def setUp(self):
        super().setUp()
        self.program(1)
        self.write("repo/himorime.yaml", SUITE)
        self.git("add", "-A")
        self.git("commit", "-qm", "base")

    def program(self, factor):
        self.write("repo/work.c", PROGRAM.replace("FACTOR", str(factor)))

    def compare(self, *args, code=None):
        res = self.run_h(["compare", "--format", "json", "--seed", "3", *args], cwd=self.repo)
        if code is not None:
            self.assertExit(res, code)
        return res

    def snapshot(self):
        with open(os.path.join(self.repo, ".git", "index"), "rb") as f:
            index = f.read()
        return (self.git("status", "--porcelain"), index, self.git("for-each-ref"),
                self.git("worktree", "list"), open(os.path.join(self.repo, ".git", "config")).read())

    def verdicts(self, res):
        doc = json.loads(res.out)
        c = doc["suites"][0]["benchmarks"][0]["commands"][0]
        return doc, c, {k: v["verdict"] for k, v in c["comparisons"].items()}

    def test_compare__three_times_slower_is_a_regression(self):
        self.program(3)
        self.git("commit", "-qam", "slower")
        res = self.compare("--against", "HEAD~1", code=1)
        doc, c, v = self.verdicts(res)
        self.assertEqual(v["latency"], "regression")
        self.assertEqual(v["cpu_total"], "regression")
        self.assertEqual(c["result"], "regression")
        lat = c["comparisons"]["latency"]
        self.assertGreater(lat["ci_low_percent"], 5)
        self.assertEqual(lat["pairs"], 12)
        self.assertEqual(len(c["base"]["metrics"]["latency"]["samples"]), 12)
        gm = doc["suites"][0]["geometric_mean"]
        self.assertEqual((gm["reference"], gm["cases"], gm["values"][0]["command"]),
                         ("base", 1, "work"))
        self.assertAlmostEqual(gm["values"][0]["ratio"], 1 + lat["change_percent"] / 100)
        self.assertEqual(doc["git"]["base_sha"], self.git("rev-parse", "HEAD~1").strip())
        self.assertEqual(doc["git"]["head_sha"], self.git("rev-parse", "HEAD").strip())
        self.assertFalse(doc["git"]["dirty"])
        self.assertTrue(res.err.endswith("himorime: exit 1: 1 regression\n"), res.err)

    def test_compare__identical_code_is_not_flagged(self):
        self.write("repo/README", "docs only\n")
        self.git("add", "README")
        self.git("commit", "-qm", "docs")
        res = self.compare("--against", "HEAD~1", code=0)
        _, c, v = self.verdicts(res)
        for metric in ("latency", "cpu_total"):
            self.assertIn(v[metric], ("pass", "inconclusive"))

    def inode_suite(self):
        """The suite with a setup hook that records, per side, the inode
        ${artifact} names when the benchmark starts."""
        self.inodes = os.path.join(self.tmp, "inodes")
        self.write("repo/himorime.yaml", SUITE.replace(
            "    commands:\n",
            "    setup:\n      - {command: 'stat -c %%i ${artifact} >> %s', shell: true}\n"
            "    commands:\n" % self.inodes, 1))
        self.git("commit", "-qam", "record inodes")

    def sides(self, res):
        """shared_artifact of the report, whether both sides' setup saw one
        inode, and the report rendered as a table."""
        with open(self.inodes) as f:
            head, base = f.read().split()
        report = self.write("report.json", res.out)
        table = self.run_h(["report", "--format", "table", report], cwd=self.repo).out
        return json.loads(res.out)["suites"][0]["shared_artifact"], head == base, table

    def test_compare__identical_builds_run_one_file(self):
        self.inode_suite()
        shared, one_inode, table = self.sides(self.compare("--against", "HEAD~1"))
        self.assertEqual((shared, one_inode), (True, True))
        self.assertIn("cmp: base and head built byte-identical artifacts, and both sides ran "
                      "that one file: a difference measured here does not come from the build.",
                      table)

    def test_compare__different_builds_stay_two_files(self):
        self.inode_suite()
        self.program(2)
        self.git("commit", "-qam", "slower")
        shared, one_inode, table = self.sides(self.compare("--against", "HEAD~1", code=1))
        self.assertEqual((shared, one_inode), (False, False))
        self.assertNotIn("byte-identical", table)

    def test_calibrate__keeps_identical_builds_as_two_files(self):
        self.inode_suite()
        res = self.run_h(["calibrate", "--format", "json", "--seed", "4"], cwd=self.repo)
        self.assertExit(res, 0)
        shared, one_inode, table = self.sides(res)
        self.assertEqual((shared, one_inode), (False, False))
        self.assertNotIn("byte-identical", table)

    def test_compare__dirty_working_tree_is_measured_and_untouched(self):
        self.program(3)  # uncommitted: head is the working tree as it is
        self.write("repo/untracked.txt", "x\n")
        self.git("add", "untracked.txt")  # staged too
        before = self.snapshot()
        res = self.compare("--against", "HEAD", code=1)
        doc, c, v = self.verdicts(res)
        self.assertEqual(v["latency"], "regression")
        self.assertTrue(doc["git"]["dirty"])
        self.assertEqual(self.snapshot(), before)

    def test_compare__build_failure_on_head_exits_4_and_cleans_up(self):
        self.write("repo/work.c", "this is not C\n")
        res = self.compare("--against", "HEAD", code=4)
        doc = json.loads(res.out)
        self.assertEqual(doc["suites"][0]["error"]["kind"], "build_failed")
        self.assertIn("build (head)", doc["suites"][0]["error"]["message"])

    def test_compare__unknown_revision_exits_4_with_a_hint(self):
        res = self.compare("--against", "no-such-branch", code=4)
        self.assertIn('revision "no-such-branch" not found', res.err)
        self.assertIn("fetch-depth: 0", res.err)

    def test_calibrate__compares_head_with_itself(self):
        res = self.run_h(["calibrate", "--seed", "4"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertIn("Calibration: the same revision on both sides, so every verdict but pass "
                      "is noise. The two builds stay two files, as in a real change.\n", res.out)
        self.assertRegex(res.out, r"\nwork +work +latency +[0-9.]+% / [0-9.]+% +12 +")
        self.assertRegex(res.out, r"\+[0-9.]+% at 252 pairs")
        res = self.run_h(["calibrate", "--format", "json", "--seed", "4"], cwd=self.repo)
        doc = json.loads(res.out)
        self.assertIn("Calibration: the same revision", res.err)
        self.assertEqual(doc["git"]["base_sha"], doc["git"]["head_sha"])
        self.assertEqual(doc["git"]["base_source"], "calibrate")

    def test_issue28_should_fix__calibrate_takes_suite_from(self):
        # a suite the commit does not have yet
        self.write("repo/new.yaml", suite("""
benchmarks:
  - name: t
    runs: 10
    commands:
      t: {command: ["true"]}
"""))
        args = ["calibrate", "--against", "HEAD", "--format", "json", "-q", "--seed", "4",
                "new.yaml"]
        res = self.run_h(args, cwd=self.repo)
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        self.assertTrue(doc["suites"][0]["new_in_head"])
        self.assertEqual(doc["calibration"]["rows"], [])
        res = self.run_h(args + ["--suite-from", "head"], cwd=self.repo)
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        self.assertFalse(doc["suites"][0]["new_in_head"])
        self.assertEqual([(r["benchmark"], r["metric"]) for r in doc["calibration"]["rows"]],
                         [("t", "latency")])
        res = self.run_h(args + ["--suite-from", "base"], cwd=self.repo)
        self.assertExit(res, 4)
        self.assertIn('suite "new.yaml" has no file in the base revision', res.err)
        res = self.run_h(args + ["--suite-from", "tail"], cwd=self.repo)
        self.assertExit(res, 3)
        self.assertIn('--suite-from "tail": expected head or base', res.err)

    def test_calibrate__json_output_records_the_calibration_and_report_rerenders_it(self):
        res = self.run_h(["calibrate", "--seed", "4", "--no-color"], cwd=self.repo)
        self.assertExit(res, 0)
        table = res.out
        # labelled what it is, and the base is the short id alone
        head = self.git("rev-parse", "HEAD").strip()[:7]
        self.assertRegex(table.splitlines()[0],
                         r"^himorime \S+ · calibrate %s → %s · " % (head, head))
        saved = os.path.join(self.tmp, "cal.json")
        res = self.run_h(["calibrate", "--seed", "4", "--format", "json", "--output", saved],
                         cwd=self.repo)
        self.assertExit(res, 0)
        with open(saved) as f:
            doc = json.load(f)
        self.assertEqual(doc["mode"], "compare")
        cal = doc["calibration"]
        self.assertTrue(cal["separate_builds"])
        self.assertEqual([(r["benchmark"], r["command"], r["metric"], r["max_pairs"])
                          for r in cal["rows"]],
                         [("work", "work", m, 252) for m in ("latency", "cpu_total")])
        latency = cal["rows"][0]["detectable_percent"]
        self.assertGreater(latency, 5.0)
        # the summary printed beside the file is the one the report renders
        self.assertIn("Calibration: the same revision on both sides", res.out)
        again = self.run_h(["report", "--no-color", saved], cwd=self.repo)
        self.assertExit(again, 0)
        self.assertTrue(again.out.startswith("himorime "), again.out[:80])
        self.assertIn(" · calibrate ", again.out.splitlines()[0])
        self.assertIn(f"+{latency:.1f}% at 252 pairs", again.out)
        self.assertTrue(again.out.endswith(res.out), again.out[-2000:])
        # calibrate's own table ends with the same section (the numbers are
        # another sitting's, and so may be the schedule that decided faster;
        # the notes may differ with the machine's load)
        section = table[table.index("\nCalibration: "):]

        def words(text):
            return [[re.sub(r"^(Duet|Interleaved)$", "SCHEDULE", w) for w in l.split()[:3]]
                    for l in text.splitlines() if l.strip()]
        self.assertEqual(words(section), words(res.out))

    def test_calibrate__without_a_build_says_nothing_of_files(self):
        self.write("repo/himorime.yaml", 'version: "1"\nname: nb\nbenchmarks:\n'
                   '  - name: t\n    runs: 10\n    commands:\n      t: {command: ["true"]}\n')
        self.git("commit", "-qam", "no build")
        res = self.run_h(["calibrate", "--seed", "4"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertIn("\nCalibration: the same revision on both sides, so every verdict but "
                      "pass is noise.\n", res.out)
        self.assertNotIn("two files", res.out)

    def test_compare__looks_that_cannot_decide_are_refused_before_running(self):
        self.write("repo/himorime.yaml", SUITE.replace("runs: 12", "runs: 5\n    regression: "
                                                       "{min_samples: 2}")
                   .replace("    # no noise gate", "    # x").replace("    regression: {max_cv: 0}\n", ""))
        res = self.compare("--against", "HEAD", code=2)
        self.assertEqual(res.err, "himorime.yaml:6:5: benchmarks[0]: runs 5 cannot give a 99% "
                                  "confidence interval: it needs at least 8 pairs\n"
                                  "himorime: exit 2: 1 problem in the comparison settings\n")
        self.assertEqual(res.out, "")

    def test_compare__suite_from_head_or_base_with_runs_below_min_samples_is_a_suite_error(self):
        # a base without the suite, and a suite whose runs cannot give an interval
        self.git("rm", "-q", "himorime.yaml")
        self.git("commit", "-qm", "a release without the suite")
        self.write("repo/himorime.yaml", SUITE.replace("runs: 12", "runs: 5"))
        self.git("add", "-A")
        self.git("commit", "-qm", "the suite again, with runs: 5")
        message = ("himorime.yaml:6:5: benchmarks[0]: runs 5 cannot give a 99% confidence "
                   "interval: it needs at least 8 pairs")
        res = self.compare("--against", "HEAD~1", "--suite-from", "head", code=2)
        self.assertEqual(res.err, message + "\nhimorime: exit 2: 1 problem in the comparison "
                                            "settings\n")
        self.assertEqual(res.out, "")
        # the base revision's copy with runs: 5, the working tree's fine
        self.write("repo/himorime.yaml", SUITE)
        self.git("commit", "-qam", "runs: 12")
        res = self.compare("--against", "HEAD~1", "--suite-from", "base", code=2)
        self.assertEqual(res.err, message + " (in the base revision's copy, --suite-from base)\n"
                                            "himorime: exit 2: 1 problem in the comparison "
                                            "settings\n")

    def test_compare__max_time_stops_the_rounds_with_time_budget_ran_out(self):
        adaptive = SUITE.replace("runs: 12", "max_runs: 22")
        for suite in (adaptive.replace("{max_cv: 0}", "{max_cv: 0, max_time: 1ms}"),
                      adaptive.replace("benchmarks:", "defaults:\n  regression: {max_time: 1ms}\n"
                                                      "benchmarks:")):
            self.write("repo/himorime.yaml", suite)
            res = self.compare("--against", "HEAD", code=0)
            doc, c, v = self.verdicts(res)
            b = doc["suites"][0]["benchmarks"][0]
            self.assertEqual((b["rounds"], b["time_budget_ran_out"]), (1, "max_time"))
            self.assertEqual((c["head"]["count"], c["base"]["count"]), (1, 1))
            for k in c["comparisons"].values():
                self.assertEqual((k["verdict"], k["reason"]),
                                 ("inconclusive", "the time budget ran out after 1 pair"))
        # --max-time wins over the suite's, and the look lines show the cap
        self.write("repo/himorime.yaml", adaptive.replace("max_runs: 22", "max_runs: 10")
                   .replace("{max_cv: 0}", "{max_cv: 0, max_time: 1ms}"))
        res = self.compare("--against", "HEAD", "--max-time", "150s", code=0)
        self.assertEqual(json.loads(res.out)["suites"][0]["benchmarks"][0]["rounds"], 10)
        self.assertRegex(res.err, r"(?m)^himorime: work: look 1 of 1 at 10 pairs, cap 10 pairs or "
                                  r"150 s, \d+\.\d s elapsed\n")

    def test_compare__runs_flag_below_min_samples_is_a_usage_error(self):
        res = self.compare("--against", "HEAD", "--runs", "5", code=3)
        self.assertIn("--runs 5: ", res.err)
        self.assertTrue(res.err.endswith("himorime: exit 3: invalid command line\n"), res.err)

    def test_compare__merge_base_compares_what_the_branch_changed(self):
        self.git("checkout", "-q", "-b", "feature")
        self.write("repo/notes.txt", "feature work\n")
        self.git("add", "notes.txt")
        self.git("commit", "-qm", "feature")
        self.git("checkout", "-q", "main")
        self.program(3)
        self.git("commit", "-qam", "main got slower")
        self.git("checkout", "-q", "feature")
        direct = self.compare("--against", "main", code=0)
        self.assertEqual(self.verdicts(direct)[2]["latency"], "improved")
        res = self.compare("--against", "main", "--merge-base", code=0)
        doc, _, v = self.verdicts(res)
        self.assertIn(v["latency"], ("pass", "inconclusive"))
        self.assertEqual(doc["git"]["base_sha"], self.git("merge-base", "main", "feature").strip())

    def test_compare__needs_against(self):
        res = self.compare(code=3)
        self.assertIn("compare needs --against REV", res.err)

    def test_compare__suite_new_in_head_runs_on_head_only(self):
        self.write("repo/extra/new.himorime.yaml", SUITE.replace("name: cmp", "name: fresh")
                   .replace("work.c", "../work.c"))
        self.git("add", "-A")
        self.git("commit", "-qm", "new suite")
        res = self.run_h(["compare", "--format", "json", "--against", "HEAD~1", "extra"], cwd=self.repo)
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        self.assertTrue(doc["suites"][0]["new_in_head"])
        c = doc["suites"][0]["benchmarks"][0]["commands"][0]
        self.assertFalse(c["base"])  # not measured
        self.assertEqual(doc["summary"]["new_suites"], 1)

    def new_suite_in_head(self):
        """A commit that adds extra/new.himorime.yaml: its parent has no such file."""
        self.write("repo/extra/new.himorime.yaml", SUITE.replace("name: cmp", "name: fresh")
                   .replace("work.c", "../work.c").replace("runs: 12", "runs: 10"))
        self.git("add", "-A")
        self.git("commit", "-qm", "new suite")

    def test_compare__suite_missing_in_base_is_new_not_a_pass(self):
        self.new_suite_in_head()
        res = self.run_h(["compare", "--no-color", "--seed", "3", "--against", "HEAD~1",
                          "extra"], cwd=self.repo)
        self.assertExit(res, 0)
        lines = res.out.splitlines()
        self.assertEqual(lines[3], "BENCHMARK  COMMAND  BASE     HEAD  CHANGE  CONFIDENCE  "
                                   "TOLERANCE  COULD SEE  PAIRS  RESULT")
        self.assertRegex(lines[4], r"^work       work        —  [ \d.]{4} ms  —       —           "
                                   r"—          —              —  new suite$")
        self.assertIn("  - fresh: new suite: measured on head only, nothing compared (the base "
                      "revision has no extra/new.himorime.yaml); --suite-from head measures the "
                      "base with this suite too.", lines)
        self.assertEqual(lines[-1], "1 measured on head only · 1 benchmark · seed 3 · exit 0")
        self.assertNotIn("pass", res.out)
        doc = json.loads(self.compare("--against", "HEAD~1", "extra", code=0).out)
        c = doc["suites"][0]["benchmarks"][0]["commands"][0]
        self.assertEqual([doc["suites"][0]["result"], doc["suites"][0]["benchmarks"][0]["result"],
                          c["result"]], ["new_suite"] * 3)
        self.assertEqual((doc["summary"]["pass"], doc["summary"]["new_suite"],
                          doc["summary"]["new_suites"]), (0, 1, 1))
        res = self.run_h(["compare", "--format", "github", "--seed", "3", "--against", "HEAD~1",
                          "extra"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertEqual(res.out.splitlines()[0], "### ℹ️ himorime: 1 measured on head only")

    def test_compare__suite_from_head_measures_a_base_without_the_suite(self):
        self.git("rm", "-q", "himorime.yaml")
        self.git("commit", "-qm", "a release without the suite")
        self.write("repo/himorime.yaml", SUITE)
        self.git("add", "-A")
        self.git("commit", "-qm", "the suite again")
        res = self.run_h(["compare", "--no-color", "--seed", "3", "--against", "HEAD~1"],
                         cwd=self.repo)
        self.assertExit(res, 0)
        self.assertIn("new suite", res.out)
        self.assertNotIn("pass", res.out)
        self.assertEqual(res.out.splitlines()[-1],
                         "1 measured on head only · 1 benchmark · seed 3 · exit 0")
        doc, c, v = self.verdicts(self.compare("--against", "HEAD~1", "--suite-from", "head",
                                               code=0))
        self.assertFalse(doc["suites"][0]["new_in_head"])
        self.assertEqual((c["head"]["count"], c["base"]["count"]), (12, 12))
        self.assertIn(v["latency"], ("pass", "inconclusive"))
        self.assertEqual(doc["summary"]["new_suites"], 0)
        self.assertEqual(doc["summary"]["new_suite"], 0)

    def test_compare__suite_from_base_measures_both_sides_with_the_base_copy(self):
        self.write("repo/himorime.yaml", SUITE.replace("- name: work", "- name: renamed"))
        self.git("commit", "-qam", "rename the benchmark")
        doc, c, _ = self.verdicts(self.compare("--against", "HEAD~1", "--suite-from", "base",
                                               code=0))
        self.assertEqual(doc["suites"][0]["benchmarks"][0]["name"], "work")
        self.assertEqual(doc["suites"][0]["file"], "himorime.yaml")
        self.assertEqual((c["head"]["count"], c["base"]["count"]), (12, 12))
        self.git("rm", "-q", "himorime.yaml")
        self.git("commit", "-qm", "no suite")
        self.write("repo/himorime.yaml", SUITE)
        res = self.compare("--against", "HEAD", "--suite-from", "base", code=4)
        base = self.git("rev-parse", "HEAD").strip()
        self.assertEqual(res.err, f'himorime: error: suite "himorime.yaml" has no file in the base '
                                  f'revision {base[:12]}: --suite-from base needs it there '
                                  f'(--suite-from head measures the base with this one) '
                                  f'[HMR4001]\nhimorime: exit 4: execution failed\n')
        res = self.compare("--against", "HEAD", "--suite-from", "tip", code=3)
        self.assertEqual(res.err, 'himorime: error: --suite-from "tip": expected head or base '
                                  "[HMR3001]\n  hint: run 'himorime help compare' for its flags\n"
                                  "himorime: exit 3: invalid command line\n")

    def test_compare__growth_is_flagged_only_beyond_the_other_side(self):
        # one counter for both sides, so every run allocates more than the
        # last on either side, as drift of the machine would; `step` (per
        # revision) says how much each side grows with it
        counter = os.path.join(self.tmp, "n")
        self.write("repo/himorime.yaml", f"""version: "1"
name: cmp
benchmarks:
  - name: drift
    runs: 20
    warmup: 0
    metrics: {{memory: true}}
    regression: {{max_cv: 0}}
    commands:
      grow:
        shell: true
        command: 's=$(cat step); n=$(cat {counter} 2>/dev/null || echo 0); echo $((n + 1)) > {counter}; exec "{HELPERS}/alloc" $((s * n + 4))'
""")
        self.write("repo/step", "2\n")
        self.git("add", "-A")
        self.git("commit", "-qm", "both sides grow alike")
        doc, c, _ = self.verdicts(self.compare("--against", "HEAD", code=None))
        rss = {side: c[side]["metrics"]["peak_rss"]["trend"] for side in ("head", "base")}
        self.assertGreater(rss["head"]["slope_low"], 1.5 * MIB, rss)
        self.assertGreater(rss["base"]["slope_low"], 1.5 * MIB, rss)
        self.assertEqual((rss["head"]["growing"], rss["base"]["growing"]), (False, False), rss)
        self.assertNotIn("peak_rss keeps growing", self.render(doc))
        os.remove(counter)
        self.write("repo/step", "0\n")
        self.git("commit", "-qam", "steady")
        self.write("repo/step", "2\n")  # head: the working tree grows
        doc, c, _ = self.verdicts(self.compare("--against", "HEAD", code=None))
        self.assertTrue(c["head"]["metrics"]["peak_rss"]["trend"]["growing"])
        self.assertFalse(c["base"]["metrics"]["peak_rss"]["trend"]["growing"])
        text = self.render(doc)
        self.assertRegex(text, r"  - drift › grow \(head\): peak_rss keeps growing from run to "
                               r"run: \+[\d.]+ MiB per run .*, beyond the other side's -?[\d.]+ \w+ "
                               r"per run \(drift of the machine moves both sides of the pairs "
                               r"alike and cancels, so this growth is the command's\); something "
                               r"grows between runs")
        self.assertNotIn("(base): peak_rss keeps growing", text)

    def test_compare__the_drift_check_runs_or_says_why_not(self):
        sized = """version: "1"
name: cmp
benchmarks:
  - name: pack
    sizes: [1k, 2k]
    runs: 10
    warmup: 0
    # neither the timings nor the growth are what this looks at
    regression: {max_cv: 0, latency: {gate: false}, exponent: {max_difference: 10}}
    commands:
      cat: {command: "head -c ${size} /dev/zero > /dev/null", shell: true}
"""
        self.write("repo/himorime.yaml", sized)
        self.git("commit", "-qam", "sizes")
        # 10 pairs per size: no long run of 30 runs, and the report says so
        doc, _, _ = self.verdicts(self.compare("--against", "HEAD", code=0))
        cases = {b["name"]: b["case"]["long_run"] for b in doc["suites"][0]["benchmarks"]}
        self.assertEqual(cases, {"pack[size=1k]": None, "pack[size=2k]": "not checked"})
        self.assertIn("\nDrift check (long run)\n  pack › cat: drift not checked: no size had a "
                      "long run of 30 runs within 60 s (size 2k: 10 runs); a comparison's pairs "
                      "stop where it decides: 'himorime run' measures the long run, or name a "
                      "size in long_run:\n", self.render(doc))
        # a declared long run is checked on the pairs there are
        self.write("repo/himorime.yaml", sized.replace("    runs: 10", "    runs: 10\n"
                                                       "    long_run: 2k"))
        doc, _, _ = self.verdicts(self.compare("--against", "HEAD", code=0))
        # (what it finds with 10 runs on a busy machine varies: not what this checks)
        self.assertIn("\n  pack › cat: drift checked at size 2k (10 runs, declared): ",
                      self.render(doc))

    def render(self, doc):
        path = os.path.join(self.tmp, "saved.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        res = self.run_h(["report", "--no-color", path])
        return res.out

    def test_compare__without_a_terminal_prints_one_line_per_look(self):
        self.program(3)
        res = self.compare("--against", "HEAD", code=1)
        json.loads(res.out)  # stdout is the report alone
        # the whole comparison's default budget, 20 minutes, is the cap in time
        self.assertRegex(res.err, r"\Ahimorime: cmp: build \(head\) started\n"
                                  r"himorime: cmp: build \(head\) finished in \d+\.\d s\n"
                                  r"himorime: cmp: build \(base\) started\n"
                                  r"himorime: cmp: build \(base\) finished in \d+\.\d s\n"
                                  r"himorime: work: look 1 of 1 at 12 pairs, cap 12 pairs or "
                                  r"1200 s, \d+\.\d s elapsed\n")
        res = self.compare("--against", "HEAD", "--max-time", "10m", "--quiet", code=1)
        self.assertEqual(res.err, "himorime: exit 1: 1 regression\n")
        self.write("repo/himorime.yaml", SUITE.replace("runs: 12", "max_runs: 15"))
        res = self.compare("--against", "HEAD", "--max-time", "10m", code=1)
        looks = [l for l in res.err.splitlines() if " look " in l]
        self.assertRegex(looks[0], r"^himorime: work: look 1 of 2 at 10 pairs, cap 15 pairs or "
                                   r"600 s, \d+\.\d s elapsed$")

    def test_compare__interrupt_removes_the_base_tree(self):
        self.write("repo/himorime.yaml", SUITE.replace("runs: 12", "runs: 100000")
                   .replace("regression", "regression"))
        self.git("commit", "-qam", "many runs")
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        p = subprocess.Popen([HIMORIME, "compare", "--format", "json", "--against", "HEAD~1"],
                             cwd=self.repo, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        # wait for the measuring to start: the builds are over (an interrupted
        # compiler leaves its own temporary files, which are not ours)
        while not [d for d in os.listdir(self.private_tmp) if d.startswith("himorime-run-")]:
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 4, err)
        self.assertIn("himorime: exit 4: interrupted", err)
        self.assertTrue(json.loads(out)["summary"]["interrupted"])

    def test_compare__interrupted_build_leaves_no_temporary_file(self):
        # a build killed by the interrupt leaves what it put in TMPDIR, as an
        # interrupted compiler leaves its .s files: that TMPDIR is himorime's own
        self.write("repo/himorime.yaml", SUITE.replace(
            'command: [cc, -O1, -o, "${artifact}", work.c]',
            'command: \'echo "$TMPDIR" > "$HIMORIME_TEST_MARK"; touch "$TMPDIR/cc1.s"; sleep 60\'\n'
            '  shell: true'))
        self.git("commit", "-qam", "a slow build")
        mark = os.path.join(self.tmp, "mark")
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp, HIMORIME_TEST_MARK=mark)
        p = subprocess.Popen([HIMORIME, "compare", "--format", "json", "--against", "HEAD~1"],
                             cwd=self.repo, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        while not os.path.exists(mark) or not open(mark).read().endswith("\n"):
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        step_tmp = open(mark).read().strip()
        self.assertTrue(step_tmp.startswith(os.path.join(self.private_tmp, "himorime-build-")),
                        step_tmp)
        self.assertTrue(step_tmp.endswith("/tmp"), step_tmp)
        while not os.path.exists(os.path.join(step_tmp, "cc1.s")):
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 4, err)
        self.assertIn("himorime: exit 4: interrupted", err)
        self.assertFalse(os.path.exists(step_tmp))
        # tearDown checks that the private TMPDIR is empty again

    def test_compare__a_suite_env_tmpdir_is_kept_for_builds(self):
        mine = os.path.join(self.tmp, "my-tmp")
        os.makedirs(mine)
        mark = os.path.join(self.tmp, "mark")
        self.write("repo/himorime.yaml", SUITE.replace(
            'command: [cc, -O1, -o, "${artifact}", work.c]',
            'command: \'echo "$TMPDIR" >> "$HIMORIME_TEST_MARK" && cc -O1 -o ${artifact} work.c\'\n'
            '  shell: true\n'
            '  env: {TMPDIR: "%s"}' % mine))
        self.git("add", "-A")
        self.git("commit", "-qm", "own TMPDIR")
        res = self.run_h(["compare", "--format", "json", "--seed", "3", "--against", "HEAD"],
                         cwd=self.repo, env={"HIMORIME_TEST_MARK": mark})
        self.assertExit(res, 0)
        # one line: base and head are one tree, built once
        self.assertEqual(open(mark).read(), "%s\n" % mine)

if __name__ == "__main__":
    unittest.main()
