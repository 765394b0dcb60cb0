"""Builds (issue 28, must-fix 4): each side's build says when it starts and
ends on stderr, with its duration; and a failed build is what the report's
headline and last line say, with its stderr below."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import HIMORIME, GitRepoTest, PrivateTmpTest, suite

DURATION = r"\d+\.\d s"


def waiting_build(started, go):
    """A build that says it started, then waits (at most 60 s) for `go`."""
    return (f'  command: [sh, -c, "touch {started}; i=0; while [ ! -e {go} ] && '
            f'[ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; cp /bin/true ${{artifact}}"]\n')


BENCH = """benchmarks:
  - name: b
    runs: 10
    commands:
      c: {command: ["${artifact}"]}
"""


class BuildLinesTest(GitRepoTest):
    def commit_suite(self, build):
        self.write("repo/himorime.yaml", suite("build:\n" + build + BENCH, name="s"))
        self.git("add", "-A")
        self.git("commit", "-qm", "suite")

    def test_issue28_must_fix4__each_sides_build_says_start_end_and_duration(self):
        self.commit_suite('  command: [sh, -c, "echo compiling; cp /bin/true ${artifact}"]\n')
        self.write("repo/notes.txt", "a change: head is not the base's tree\n")
        res = self.run_h(["compare", "--against", "HEAD", "--seed", "1"], cwd=self.repo)
        self.assertExit(res, 0)
        builds = [line for line in res.err.splitlines() if ": build (" in line]
        self.assertEqual(len(builds), 4, res.err)
        for line, want in zip(builds, (r"s: build \(head\) started",
                                       r"s: build \(head\) finished in " + DURATION,
                                       r"s: build \(base\) started",
                                       r"s: build \(base\) finished in " + DURATION)):
            self.assertRegex(line, r"\Ahimorime: " + want + r"\Z")

    def test_issue28_must_fix4__quiet_prints_no_build_lines(self):
        self.commit_suite('  command: [cp, /bin/true, "${artifact}"]\n')
        res = self.run_h(["run", "-q", "--seed", "1"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertEqual(res.err, "")

    def test_issue28_must_fix4__a_failed_build_is_the_headline_with_its_stderr(self):
        self.commit_suite('  command: [sh, -c, "echo compiling >&2; echo oops >&2; exit 2"]\n')
        res = self.run_h(["run", "--seed", "1"], cwd=self.repo)
        self.assertExit(res, 4)
        self.assertRegex(res.err, r"\Ahimorime: s: build \(head\) started\n"
                                  r"himorime: s: build \(head\) failed after " + DURATION +
                                  r": exited with code 2\n"
                                  r"himorime: exit 4: build failed \(head\)\n\Z")
        self.assertIn("\n    stderr (last lines):\n      | compiling\n      | oops\n", res.out)
        self.assertTrue(res.out.endswith("\nbuild failed (head) · seed 1 · exit 4\n"), res.out)
        self.write("repo/notes.txt", "a change\n")
        res = self.run_h(["compare", "--against", "HEAD", "--seed", "1", "--format", "github"],
                         cwd=self.repo)
        self.assertExit(res, 4)
        lines = res.out.splitlines()
        self.assertEqual(lines[0], "### ❌ himorime: build failed (head)")
        self.assertNotIn("0 benchmarks", res.out)
        self.assertNotIn("no commands", res.out)
        self.assertIn("  ```text\n  compiling\n  oops\n  ```\n", res.out)

    def test_issue28_must_fix4__a_build_without_artifact_says_the_side(self):
        self.commit_suite('  command: ["true"]\n')
        res = self.run_h(["run", "--seed", "1", "--format", "json"], cwd=self.repo)
        self.assertExit(res, 4)
        doc = json.loads(res.out)
        self.assertEqual(doc["suites"][0]["error"]["kind"], "build_failed")
        self.assertTrue(res.err.endswith("himorime: exit 4: build failed (head)\n"), res.err)


if __name__ == "__main__":
    unittest.main()
