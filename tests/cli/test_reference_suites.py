"""Suites of the reference tool's shape run unchanged (issue 11, item 1): the
first ten suites of tests/data/suites/reference-shaped have `runs: 3` to `8`,
below `regression.min_samples` (10). They validate and run; only a
comparison refuses them, once the revisions are known, and never a suite that
is new in head. Suite files may be up to 4 MiB. Three more (issue 28) have
the shapes of reference suites that failed here: a stdin file that setup
writes (git-compare.yaml), a version probe that prints on stderr
(compression.yaml), bash on a pseudo-terminal (shell.yaml)."""
import json
import os
import shutil

from harness import DATA, GitRepoTest

SHAPED = os.path.join(DATA, "suites", "reference-shaped")
SUITES = sorted(f for f in os.listdir(SHAPED) if f.endswith(".yaml"))

VALIDATED = {
    "compare-clis.yaml": "1 benchmark, 3 commands",
    "compression.yaml": "1 benchmark, 3 commands",
    "cpu-regression.yaml": "1 benchmark, 1 command",
    "gate-cpu-memory.yaml": "1 benchmark, 1 command",
    "git-compare.yaml": "1 benchmark, 1 command",
    "input-sizes.yaml": "3 benchmarks, 6 commands",
    "memory-regression.yaml": "1 benchmark, 1 command",
    "prepare-each.yaml": "1 benchmark, 1 command",
    "script-compare.yaml": "1 benchmark, 2 commands",
    "shell.yaml": "1 benchmark, 2 commands",
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

    def copy_shaped(self, name):
        shutil.copy(os.path.join(SHAPED, name), os.path.join(self.repo, name))
        shutil.copytree(os.path.join(SHAPED, "tools"), os.path.join(self.repo, "tools"),
                        dirs_exist_ok=True)

    def test_issue28_proof__a_stdin_file_made_by_setup_compares(self):
        # git-compare.yaml: the reference's recipe is a comparison.
        self.copy_shaped("git-compare.yaml")
        self.git("add", "-A")
        self.git("commit", "-qm", "suite")
        res = self.run_h(["compare", "--against", "HEAD", "--seed", "3", "--format", "json",
                          "git-compare.yaml"], cwd=self.repo, timeout=300)
        self.assertExit(res, 0)
        cmd = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]
        for side in ("head", "base"):
            self.assertEqual(cmd[side]["count"], 20)
            work = cmd[side]["metrics"]["throughput"]["work"]
            self.assertEqual(work["measured_min"], work["measured_max"])
            self.assertEqual(work["measured_min"], 1638894)  # 50,000 lines of words

    def test_issue28_proof__a_version_probe_on_stderr_is_recorded(self):
        res = self.run_h(["run", "compression.yaml", "--seed", "1", "--format", "json"],
                         cwd=SHAPED, timeout=300)
        self.assertExit(res, 0)
        tools = {t["name"]: t["version"] for t in json.loads(res.out)["environment"]["tools"]}
        self.assertEqual(sorted(tools), ["bzip2", "gzip", "xz"])
        self.assertRegex(tools["bzip2"], r"\Abzip2, a block-sorting file compressor\.  "
                                         r"Version \d")
        self.assertRegex(tools["gzip"], r"\Agzip \d")
        self.assertRegex(tools["xz"], r"\Axz \(XZ Utils\) \d")

    def test_issue28_proof__bash_on_a_pseudo_terminal_under_an_xterm(self):
        # The runner's own TERM: bash's bracketed-paste codes broke the
        # cleanup's check before terminal commands ran with TERM=dumb.
        res = self.run_h(["run", "shell.yaml", "--seed", "1", "--format", "json"],
                         cwd=SHAPED, env={"TERM": "xterm-256color"}, timeout=300)
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        b = doc["suites"][0]["benchmarks"][0]
        self.assertIsNone(b["error"])
        self.assertEqual([c["result"] for c in b["commands"]], ["pass", "pass"])
        self.assertEqual([t["name"] for t in doc["environment"]["tools"]], ["bash", "dash"])
