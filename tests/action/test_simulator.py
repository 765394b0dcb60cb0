"""The runner simulator's own parts, each against what GitHub documents:
expressions and `if:`, the file commands' two forms, workflow commands and
masking, the shells, and a `uses:` step said to be skipped."""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import simulator  # noqa: E402

CTX = {
    "github": {"event": {"workflow_run": {"id": 1111, "event": "pull_request",
                                          "conclusion": "failure"}},
               "token": "t0k"},
    "inputs": {"comment": "false", "github-token": ""},
    "steps": {"cache": {"outputs": {"cache-hit": "true"}}},
    "runner": {"temp": "/rt"},
}


class ExpressionTest(unittest.TestCase):
    def test_values(self):
        self.assertEqual(simulator.substitute("${{ github.event.workflow_run.id }}", CTX), 1111)
        self.assertEqual(simulator.substitute("a ${{ runner.temp }}/x ${{ inputs.comment }}", CTX),
                         "a /rt/x false")
        self.assertEqual(simulator.substitute("${{ github.nothing.here }}", CTX), None)
        self.assertEqual(simulator.substitute("x${{ github.nothing }}y", CTX), "xy")

    def test_operators(self):
        e = simulator.Evaluator(CTX, False)
        self.assertIs(e.evaluate("steps.cache.outputs.cache-hit != 'true'"), False)
        self.assertIs(e.evaluate("github.event.workflow_run.event == 'PULL_REQUEST'"), True)
        self.assertIs(e.evaluate("!(inputs.github-token)"), True)
        self.assertEqual(e.evaluate("inputs.github-token || 'fallback'"), "fallback")
        self.assertIs(e.evaluate("contains('a,b', 'B') && startsWith('abc', 'ab')"), True)
        self.assertEqual(e.evaluate("'it''s'"), "it's")
        with self.assertRaises(simulator.ExpressionError):
            e.evaluate("secrets.X")
        with self.assertRaises(simulator.ExpressionError):
            e.evaluate("hashFiles('x')")

    def test_conditions(self):
        cond = simulator.condition
        self.assertTrue(cond(None, CTX, False))
        self.assertFalse(cond(None, CTX, True))
        self.assertTrue(cond("always()", CTX, True))
        self.assertTrue(cond("${{ failure() }}", CTX, True))
        # A condition without a status function still needs success().
        self.assertFalse(cond("github.token == 't0k'", CTX, True))
        self.assertFalse(cond("github.event.workflow_run.conclusion != 'failure'", CTX, False))


class FileCommandTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="himorime-sim-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def pairs(self, text):
        path = os.path.join(self.tmp, "out")
        with open(path, "w") as f:
            f.write(text)
        return simulator.read_pairs(path)

    def test_both_forms(self):
        self.assertEqual(self.pairs("a=1\nb=x=y\nc<<EOF_1\nline 1\n\nline=3\nEOF_1\nd=\n"),
                         {"a": "1", "b": "x=y", "c": "line 1\n\nline=3", "d": ""})

    def test_unclosed_block_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "no closing 'EOF' for 'c'"):
            self.pairs("c<<EOF\nvalue\n")
        with self.assertRaisesRegex(ValueError, "invalid line 'junk'"):
            self.pairs("junk\n")


class LogTest(unittest.TestCase):
    def test_masks_commands_and_annotations(self):
        log = simulator.Log()
        for line in ["::add-mask::s3cret", "token s3cret here",
                     "::stop-commands::abc123", "::error::not a command now", "::abc123::",
                     "::warning file=a.yaml,line=3,title=himorime%3A x::50%25 of s3cret%0Anext",
                     "::notice::plain"]:
            log.feed(line)
        self.assertEqual(log.lines, ["token *** here", "::error::not a command now",
                                     "::warning file=a.yaml,line=3,title=himorime%3A x::50%25 of "
                                     "***%0Anext", "::notice::plain"])
        self.assertEqual(log.annotations, [
            {"level": "warning", "file": "a.yaml", "line": "3", "title": "himorime: x",
             "message": "50% of ***\nnext"},
            {"level": "notice", "message": "plain"}])


class RunnerTest(unittest.TestCase):
    """Two steps of a workflow job, run for real with bash."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="himorime-sim-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.ws = os.path.join(self.tmp, "ws")
        os.makedirs(self.ws)

    def job(self, text):
        wf = os.path.join(self.tmp, "wf.yml")
        with open(wf, "w") as f:
            f.write(text)
        r = simulator.Runner(os.path.join(self.tmp, "r"), self.ws, "push", {}, "tok", "http://x")
        return r.job(wf, "j")

    def test_outputs_env_path_and_shells_between_steps(self):
        res = self.job("""
jobs:
  j:
    steps:
      - id: one
        shell: bash
        run: |
          echo "v=1" >> "$GITHUB_OUTPUT"
          echo "E=from-env" >> "$GITHUB_ENV"
          mkdir -p "$RUNNER_TEMP/bin" && echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"
          printf '#!/bin/sh\\necho tool\\n' > "$RUNNER_TEMP/bin/tool" && chmod +x "$RUNNER_TEMP/bin/tool"
          echo "## s" >> "$GITHUB_STEP_SUMMARY"
      - id: two
        env:
          V: ${{ steps.one.outputs.v }}
        run: |
          echo "got=$V $E $(tool)" >> "$GITHUB_OUTPUT"
          false | true
      - id: three
        shell: bash
        run: false | true
      - uses: actions/upload-artifact@v4
        if: always()
      - run: echo never
""")
        self.assertEqual(res.conclusion, "failure", res)
        self.assertEqual(res.outputs["two"], {"got": "1 from-env tool"})
        self.assertEqual([s.conclusion for s in res.steps], ["success", "success", "failure",
                                                              "success"])
        self.assertEqual(res.skipped, ["actions/upload-artifact@v4"])
        self.assertIn("[simulator] skipped uses: actions/upload-artifact@v4 (not run by the "
                      "simulator)\n", res.log)
        self.assertIn("[simulator] skipped step 'Run echo never': if: success()\n", res.log)
        self.assertEqual(res.summary, "## s\n")


class NeedsAndHooksTest(unittest.TestCase):
    """A job's `needs:` and a failing stand-in for an action."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="himorime-sim-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.wf = os.path.join(self.tmp, "wf.yml")
        with open(self.wf, "w") as f:
            f.write("""
jobs:
  a:
    steps:
      - run: exit 0
  b:
    needs: a
    if: ${{ !cancelled() && needs.a.result != 'skipped' }}
    steps:
      - uses: actions/download-artifact@v4
        continue-on-error: true
      - uses: actions/download-artifact@v4
      - run: echo never
  c:
    needs: [a]
    steps:
      - run: echo after a
""")

    def runner(self, hooks=None):
        os.makedirs(os.path.join(self.tmp, "ws"), exist_ok=True)
        return simulator.Runner(os.path.join(self.tmp, "r"), os.path.join(self.tmp, "ws"),
                                "push", {}, "tok", "http://x", uses_hooks=hooks)

    def test_needs(self):
        r = self.runner()
        a = r.job(self.wf, "a")
        self.assertEqual(a.conclusion, "success")
        failed = simulator.JobResult(r, "failure", {})
        skipped = simulator.JobResult(r, "skipped", {})
        self.assertEqual(r.job(self.wf, "c", needs={"a": a}).conclusion, "success")
        # success() is the default: a failed need skips the job
        self.assertEqual(r.job(self.wf, "c", needs={"a": failed}).conclusion, "skipped")
        self.assertEqual(r.job(self.wf, "b", needs={"a": skipped}).conclusion, "skipped")
        with self.assertRaisesRegex(ValueError, r"job 'c' needs \['a'\], given \[\]"):
            r.job(self.wf, "c")

    def test_a_failing_stand_in_fails_its_step(self):
        def missing(with_, runner):
            raise simulator.StepFailed("Artifact not found")
        r = self.runner({"actions/download-artifact": missing})
        res = r.job(self.wf, "b", needs={"a": simulator.JobResult(r, "failure", {})})
        self.assertEqual(res.conclusion, "failure", res)
        self.assertEqual([s.conclusion for s in res.steps], ["success", "failure"])
        self.assertIn("[simulator] skipped uses: actions/download-artifact@v4 (not run by the "
                      "simulator); its stand-in failed: Artifact not found\n", res.log)
        self.assertIn("[simulator] skipped step 'Run echo never': if: success()\n", res.log)


@unittest.skipUnless(os.getuid() == 0 and simulator.Machine.available(),
                     "a job's own machine needs root and PID namespaces (unshare)")
class MachineTest(unittest.TestCase):
    """A job on its own machine: its steps see only the job's processes,
    among them the worker holding the job's token; sudo asks nothing."""

    TOKEN = "ghs_machinetesttoken0123456789"

    def test_own_processes_the_workers_token_and_sudo(self):
        tmp = tempfile.mkdtemp(prefix="himorime-sim-")
        self.addCleanup(shutil.rmtree, tmp, True)
        ws = os.path.join(tmp, "ws")
        os.makedirs(ws)
        steal = os.path.join(os.path.dirname(os.path.abspath(__file__)), "steal.py")
        out = os.path.join(tmp, "stolen.json")
        wf = os.path.join(tmp, "wf.yml")
        with open(wf, "w") as f:
            f.write(f"""
jobs:
  j:
    steps:
      - id: s
        run: |
          echo "uid=$(sudo -n id -u)" >> "$GITHUB_OUTPUT"
          sudo -n python3 {steal} {out}
""")
        r = simulator.Runner(os.path.join(tmp, "r"), ws, "push", {}, self.TOKEN, "http://x",
                             machine=True)
        res = r.job(wf, "j")
        self.assertEqual(res.conclusion, "success", res)
        self.assertEqual(res.outputs["s"], {"uid": "0"})
        with open(out) as f:
            stolen = json.load(f)
        procs = sorted(stolen["processes"].items(), key=lambda kv: int(kv[0]))
        self.assertEqual([p["comm"] for _, p in procs], ["Runner.Worker", "bash", "python3"])
        self.assertEqual(procs[0][0], "1")
        self.assertEqual(stolen["found"], {self.TOKEN: ["1 (Runner.Worker) mem"]})
        self.assertIsNone(r.machine)  # the job's machine is gone with the job


if __name__ == "__main__":
    unittest.main()
