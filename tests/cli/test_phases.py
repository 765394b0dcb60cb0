"""Where a session's time goes, and what it skips: the `timings` of the JSON
report and `--verbose`, one checkout and one build when both sides are the
same tree, and a sweep that builds its reference once (docs/reports.md,
docs/comparison.md, docs/sweeps.md). No timing is asserted, only that every
phase is there, a whole number of nanoseconds, and how many builds ran."""
import json
import os

from harness import GitRepoTest

PHASES = ["load", "resolve", "materialise_head", "materialise_base", "build_head",
          "build_base", "setup", "warmup", "rounds", "judging", "cleanup", "rendering",
          "publishing"]

PROGRAM = "int main(void) { volatile long x = 0; for (long i = 0; i < FACTOR; i++) x += i; " \
          "return 0; }\n"

# The build appends the commit it builds to a log outside every tree: one
# line per build.
SUITE = """version: "1"
name: ph
build:
  command: [sh, -c, 'echo "$(git rev-parse HEAD) $PWD" >> "$2" && cc -O1 -o "$1" work.c',
            sh, "${artifact}", "LOG"]
benchmarks:
  - name: work
    runs: 10
    warmup: 1
    regression: {max_cv: 0}
    commands:
      work:
        command: ["${artifact}"]
"""


class PhasesTest(GitRepoTest):
    def setUp(self):
        super().setUp()
        self.log = os.path.join(self.tmp, "builds.log")
        self.program(1000)
        self.write("repo/himorime.yaml", SUITE.replace("LOG", self.log))
        self.git("add", "-A")
        self.git("commit", "-qm", "first")

    def program(self, factor):
        self.write("repo/work.c", PROGRAM.replace("FACTOR", str(factor)))

    def commit(self, message):
        self.git("add", "-A")
        self.git("commit", "-qm", message)
        return self.git("rev-parse", "HEAD").strip()

    def builds(self, where=False):
        """The commits built since the last call, one per build; with where,
        (commit, directory) pairs."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            pairs = [tuple(l.split(" ", 1)) for l in f.read().splitlines()]
        os.unlink(self.log)
        return pairs if where else [p[0] for p in pairs]

    def compare(self, *args, code=0):
        res = self.run_h(["compare", "--format", "json", "--seed", "5", *args], cwd=self.repo)
        self.assertExit(res, code)
        return res

    def assertTimings(self, doc):
        t = doc["timings"]
        self.assertEqual(list(t), ["total_ns"] + [p + "_ns" for p in PHASES])
        for key, value in t.items():
            self.assertIsInstance(value, int, key)
            self.assertGreaterEqual(value, 0, key)
        # the phases do not overlap: together they are at most the whole
        self.assertLessEqual(sum(t[p + "_ns"] for p in PHASES), t["total_ns"])

    def test_phases__compare_records_each_phase_and_prints_them_with_verbose(self):
        self.program(2000)
        self.commit("second")
        res = self.compare("--against", "HEAD~1", "--verbose")
        self.assertTimings(json.loads(res.out))
        lines = [l for l in res.err.splitlines() if l.startswith("himorime:   ")]
        self.assertEqual([l.split()[1] for l in lines], PHASES + ["other", "total", "himorime's"])
        self.assertIn("himorime: phases (wall clock, CLOCK_MONOTONIC):\n", res.err)
        self.assertIn("(all but builds, warmup and rounds)\n", lines[-1] + "\n")
        self.assertEqual(len(self.builds()), 2)

    def test_phases__without_verbose_nothing_is_printed(self):
        res = self.compare("--against", "HEAD", "--quiet")
        self.assertTimings(json.loads(res.out))
        self.assertNotIn("phases", res.err)

    def test_phases__run_records_timings(self):
        res = self.run_h(["run", "--format", "json", "--seed", "1", "-v", "--quiet"],
                         cwd=self.repo)
        self.assertExit(res, 0)
        self.assertTimings(json.loads(res.out))
        self.assertIn("himorime:   build_head ", res.err)

    def test_phases__older_reports_have_no_timings(self):
        res = self.compare("--against", "HEAD", "--quiet")
        doc = json.loads(res.out)
        del doc["timings"]
        path = self.write("old.json", json.dumps(doc))
        again = self.run_h(["report", "--format", "json", path])
        self.assertExit(again, 0)
        self.assertNotIn('"timings"', again.out)

    def test_phases__a_clean_tree_against_its_own_commit_builds_once(self):
        head = self.git("rev-parse", "HEAD").strip()
        res = self.compare("--against", "HEAD")
        doc = json.loads(res.out)
        # built once, in the working tree: the base was not checked out
        self.assertEqual(self.builds(where=True), [(head, os.path.realpath(self.repo))])
        self.assertTrue(doc["suites"][0]["shared_artifact"])
        c = doc["suites"][0]["benchmarks"][0]["commands"][0]
        self.assertEqual(c["comparisons"]["latency"]["pairs"], 10)

    def test_phases__two_commits_with_one_tree_are_checked_out_and_built_once(self):
        first = self.git("rev-parse", "HEAD").strip()
        self.git("commit", "-q", "--allow-empty", "-m", "empty")  # another id, the same tree
        res = self.compare("--head", "HEAD", "--against", first)
        doc = json.loads(res.out)
        built = self.builds(where=True)
        self.assertEqual(len(built), 1)
        self.assertIn("/himorime-rev-", built[0][1])
        self.assertTrue(doc["suites"][0]["shared_artifact"])
        self.assertNotEqual(doc["git"]["head_sha"], doc["git"]["base_sha"])

    def test_phases__with_suite_from_base_one_tree_is_still_built_once(self):
        res = self.compare("--against", "HEAD", "--suite-from", "base")
        self.assertEqual(len(self.builds()), 1)
        self.assertTrue(json.loads(res.out)["suites"][0]["shared_artifact"])

    def test_phases__a_changed_working_tree_is_built_on_both_sides(self):
        self.write("repo/NOTES", "uncommitted\n")
        self.compare("--against", "HEAD")
        self.assertEqual(len(self.builds()), 2)

    def test_phases__a_changed_tree_is_built_on_both_sides(self):
        self.write("repo/README", "docs only\n")
        head = self.commit("docs")
        self.compare("--against", "HEAD~1")
        built = self.builds()
        self.assertEqual(len(built), 2)
        self.assertIn(head, built)

    def test_phases__calibrate_still_builds_twice(self):
        res = self.run_h(["calibrate", "--format", "json", "--seed", "2", "--against", "HEAD"],
                         cwd=self.repo)
        self.assertExit(res, 0)
        self.assertEqual(len(self.builds()), 2)
        self.assertFalse(json.loads(res.out)["suites"][0]["shared_artifact"])

    def test_phases__sweep_builds_its_reference_once(self):
        first = self.git("rev-parse", "HEAD").strip()
        self.program(3000)
        second = self.commit("slower")
        self.write("repo/README", "docs only\n")
        third = self.commit("docs")
        self.git("commit", "-q", "--allow-empty", "-m", "empty")
        fourth = self.git("rev-parse", "HEAD").strip()
        out = os.path.join(self.tmp, "sweep.json")
        res = self.run_h(["sweep", "HEAD", "--seed", "3", "--quiet", "-o", out, "--verbose"],
                         cwd=self.repo)
        self.assertExit(res, 0)
        # the reference (the first commit) once, measured as a commit too;
        # the fourth commit has the third's tree but is built: only the
        # reference's build is kept
        self.assertEqual(sorted(self.builds()), sorted([first, second, third, fourth]))
        with open(out) as f:
            doc = json.load(f)
        self.assertTimings(doc)
        self.assertEqual([s["commit"]["sha"] for s in doc["suites"]],
                         [first, second, third, fourth])
        self.assertEqual([s["shared_artifact"] for s in doc["suites"]][:2], [True, False])
        self.assertIn("himorime:   publishing ", res.err)

    def test_phases__each_shard_builds_the_reference_once(self):
        first = self.git("rev-parse", "HEAD").strip()
        for factor in (3000, 4000, 5000):
            self.program(factor)
            self.commit(f"factor {factor}")
        for k in (1, 2):
            res = self.run_h(["sweep", "HEAD", "--seed", "3", "--quiet", "--shard", f"{k}/2"],
                             cwd=self.repo)
            self.assertExit(res, 0)
            built = self.builds()
            # two commits per shard, plus the reference: built once however
            # many commits the shard measures
            self.assertEqual(built.count(first), 1, built)
            self.assertEqual(len(built), 3 if k == 2 else 2, built)

    def test_phases__bisect_builds_the_good_commit_once(self):
        self.program(2000000)
        good = self.commit("good")
        self.program(20000000)
        first_bad = self.commit("ten times the work")
        for name in ("A", "B"):
            self.write("repo/" + name, name + "\n")
            self.commit("docs " + name)
        self.builds()
        res = self.run_h(["bisect", "--good", good, "--bad", "HEAD",
                          "--runs", "30", "--seed", "4", "-q"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertIn("first bad commit: %s ten times the work\n" % first_bad, res.out)
        steps = [l for l in res.out.splitlines() if l.startswith("step ")]
        built = self.builds()
        # the good commit once, bad (against good first) and each step's
        # candidate once
        self.assertEqual(built.count(good), 1, built)
        self.assertEqual(len(built), 2 + len(steps), built)
