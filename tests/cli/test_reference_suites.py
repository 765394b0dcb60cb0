"""Suites of the reference tool's shape run unchanged (issue 11, item 1): the
ten suites of tests/data/suites/reference-shaped have `runs: 3` to `8`,
below `regression.min_samples` (10). They validate and run; only a
comparison refuses them, once the revisions are known, and never a suite that
is new in head. Suite files may be up to 4 MiB."""
import os
import shutil

from harness import DATA, GitRepoTest

SHAPED = os.path.join(DATA, "suites", "reference-shaped")
SUITES = sorted(f for f in os.listdir(SHAPED) if f.endswith(".yaml"))

VALIDATED = {
    "compare-clis.yaml": "1 benchmark, 3 commands",
    "cpu-regression.yaml": "1 benchmark, 1 command",
    "gate-cpu-memory.yaml": "1 benchmark, 1 command",
    "input-sizes.yaml": "3 benchmarks, 6 commands",
    "memory-regression.yaml": "1 benchmark, 1 command",
    "prepare-each.yaml": "1 benchmark, 1 command",
    "script-compare.yaml": "1 benchmark, 2 commands",
    "startup.yaml": "1 benchmark, 1 command",
    "tags.yaml": "2 benchmarks, 2 commands",
    "throughput.yaml": "2 benchmarks, 2 commands",
}


class ReferenceSuitesTest(GitRepoTest):
    def setUp(self):
        super().setUp()
        self.write("repo/notes.txt", "x\n")
        self.git("add", "-A")
        self.git("commit", "-qm", "without suites")

    def test_issue11_item1__ten_reference_shaped_suites_validate_and_run(self):
        self.assertEqual(SUITES, sorted(VALIDATED))
        for name in SUITES:
            with self.subTest(suite=name):
                res = self.run_h(["validate", name], cwd=SHAPED)
                self.assertExit(res, 0)
                self.assertEqual(res.out, "%s: ok (%s)\n" % (name, VALIDATED[name]))
                self.assertEqual(res.err, "")
                res = self.run_h(["run", name, "-q", "--seed", "1"], cwd=SHAPED, timeout=300)
                self.assertExit(res, 0)
                self.assertIn(" · seed 1 · exit 0\n", res.out)

    def test_issue11_item1__a_comparison_refuses_runs_below_min_samples(self):
        shutil.copy(os.path.join(SHAPED, "gate-cpu-memory.yaml"),
                    os.path.join(self.repo, "himorime.yaml"))
        self.git("add", "-A")
        self.git("commit", "-qm", "suite")
        expected = ("himorime.yaml:6:5: benchmarks[0]: runs 8 is below min_samples 10\n"
                    "himorime: exit 2: 1 problem in the comparison settings\n")
        for args in (["compare", "--against", "HEAD"], ["calibrate"],
                     ["bisect", "--good", "HEAD~1", "--bad", "HEAD"], ["sweep", "HEAD"]):
            with self.subTest(args=args):
                res = self.run_h(args + ["-q"], cwd=self.repo)
                self.assertExit(res, 2)
                self.assertEqual(res.err, expected)
        # the history was not touched: nothing was measured
        self.assertEqual(self.git("for-each-ref", "refs/himorime/"), "")

    def test_issue11_item1__a_suite_new_in_head_is_measured_as_asked(self):
        shutil.copy(os.path.join(SHAPED, "gate-cpu-memory.yaml"),
                    os.path.join(self.repo, "himorime.yaml"))
        res = self.run_h(["compare", "--against", "HEAD", "-q", "--seed", "2", "--format",
                          "json"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertIn('"new_in_head":\ttrue', res.out)
        self.assertIn('"new_suites":\t1', res.out)

    def test_issue11_item1__suite_files_up_to_4_mib_are_read(self):
        with open(os.path.join(SHAPED, "startup.yaml")) as f:
            text = f.read()
        text += "#" * (4 * 1024 * 1024 - len(text) - 1) + "\n"
        self.assertEqual(len(text), 4 * 1024 * 1024)
        path = self.write("big.yaml", text)
        res = self.run_h(["validate", path])
        self.assertExit(res, 0)
        self.assertEqual(res.out, "%s: ok (1 benchmark, 1 command)\n" % path)
        self.write("big.yaml", text + "\n")
        res = self.run_h(["validate", path])
        self.assertExit(res, 2)
        self.assertEqual(res.err, '%s: "%s" is larger than 4194304 bytes [HMR2001]\n'
                                  "  hint: a suite file is at most 4 MiB (a limit)\n"
                                  "himorime: exit 2: 1 problem in 1 suite file\n" % (path, path))
