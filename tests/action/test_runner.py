"""The Action as a runner runs it (issue 17): action.yml and the workflows'
steps executed by the runner simulator (tests/action/simulator.py) on a real
git repository with a 4x slowdown, against the loopback GitHub API of
tests/github/server.py. What each case asserts is what docs/github-actions.md
promises: the outputs table, the `comment` input, the token's behaviour, the
fork-safe comment's links."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))

import simulator  # noqa: E402
import test_ci as ci_tests  # noqa: E402  the fake API's driver and the program

TOKEN = "ghs_actiontesttoken0123456789"
READ_ONLY = "ghs_readonlytoken0123456789"
WORKFLOWS = os.path.join(ROOT, ".github", "workflows")

# The suite of the ci tests without their `env` command; SOURCE is where
# work.c is seen from the suite's directory.
SUITE = ci_tests.SUITE.split("      env:\n")[0].replace("work.c]", "SOURCE]")


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


class Cache:
    """actions/cache/restore and actions/cache/save as the Action uses them:
    restore `path` on an exact `key`; save it when the save step runs (the
    step right after the build, whatever the gate does later)."""

    def __init__(self, directory):
        self.dir = directory
        self.saved = []

    def restore(self, with_, runner):
        entry = os.path.join(self.dir, with_["key"])
        if os.path.isdir(entry):
            shutil.copytree(entry, with_["path"], symlinks=True)
            return {"cache-hit": "true"}
        return {"cache-hit": "false"}

    def save(self, with_, runner):
        entry = os.path.join(self.dir, with_["key"])
        if os.path.isdir(with_["path"]) and not os.path.exists(entry):
            shutil.copytree(with_["path"], entry, symlinks=True)
            self.saved.append(with_["key"])
        return {}


class ActionRunnerTest(unittest.TestCase):
    """One repository, one fake API and one build cache for every case; each
    case gets a fresh runner (empty RUNNER_TEMP, private TMPDIR)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="himorime-action-")
        cls.repo = os.path.join(cls.tmp, "repo")
        os.makedirs(os.path.join(cls.repo, "bench"))
        git(cls.repo, "init", "-q", "-b", "main")
        git(cls.repo, "config", "user.email", "t@example.com")
        git(cls.repo, "config", "user.name", "t")
        cls.put("work.c", ci_tests.PROGRAM.replace("FACTOR", "1"))
        cls.put("himorime.yaml", SUITE.replace("SOURCE", "work.c"))
        cls.put("bench/himorime.yaml", SUITE.replace("SOURCE", "../work.c"))
        git(cls.repo, "add", "-A")
        git(cls.repo, "commit", "-qm", "base")
        cls.base = git(cls.repo, "rev-parse", "HEAD").strip()
        cls.put("work.c", ci_tests.PROGRAM.replace("FACTOR", "4"))
        git(cls.repo, "commit", "-qam", "slower")
        cls.head = git(cls.repo, "rev-parse", "HEAD").strip()
        cls.server = ci_tests.Server(os.path.join(cls.tmp, "api"), {"tokens": {TOKEN: None}})
        cls.cache = Cache(os.path.join(cls.tmp, "cache"))
        os.makedirs(cls.cache.dir)
        cls.n = 0
        cls.tmpdirs = []
        # The first run builds himorime from an empty RUNNER_TEMP; its gate
        # fails (a regression), and its build is saved to the cache all the same.
        cls.first = cls.runner(cls).action({"comment": "false"})

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, True)

    @classmethod
    def put(cls, name, text):
        with open(os.path.join(cls.repo, name), "w") as f:
            f.write(text)

    def setUp(self):
        self.addCleanup(self.no_temporary_files_left)
        self.scenario({"tokens": {TOKEN: None, READ_ONLY: None}, "read_only": [READ_ONLY]})

    def scenario(self, data):
        """A fresh API state; the log of the previous case goes (the server
        writes its log only when a request comes)."""
        self.server.scenario(data)
        log = os.path.join(self.server.dir, "log.json")
        if os.path.exists(log):
            os.remove(log)

    def event(self, labels=()):
        repo = {"full_name": "octo/repo"}
        return {
            "action": "synchronize",
            "number": 7,
            "pull_request": {
                "number": 7,
                "labels": [{"name": n} for n in labels],
                "head": {"sha": self.head, "ref": "slower", "repo": repo},
                "base": {"sha": self.base, "ref": "main", "repo": repo},
            },
            "repository": dict(repo, default_branch="main"),
        }

    def runner(self, event=None, token=TOKEN, name="pull_request", workspace=None, run_id=None,
               hooks=None):
        cls = type(self) if isinstance(self, ActionRunnerTest) else self
        cls.n += 1
        root = os.path.join(cls.tmp, "job-%d" % cls.n)
        tmpdir = os.path.join(root, "tmp")
        os.makedirs(tmpdir)
        cls.tmpdirs.append(tmpdir)
        uses = {"actions/cache/restore": cls.cache.restore,
                "actions/cache/save": cls.cache.save}
        uses.update(hooks or {})
        return simulator.Runner(
            root, workspace or cls.repo, name,
            event if event is not None else ActionRunnerTest.event(cls), token,
            cls.server.url, run_id=run_id or 4000 + cls.n, sha=cls.head,
            action_path=ROOT, uses_hooks=uses, tmpdir=tmpdir)

    def no_temporary_files_left(self):
        """himorime ran with TMPDIR private to each runner: nothing may stay."""
        for d in self.tmpdirs:
            self.assertEqual(os.listdir(d), [], d)

    def ci_step(self, res):
        return [s for s in res.steps if s.name == "Compare base and head"][0]

    def assertNoRequests(self):
        self.assertEqual(self.server.log()["requests"], [])

    def comments(self):
        return self.server.log()["issues"].get("octo/repo/7", [])

    def notices(self, res):
        return [a for a in res.annotations if a["level"] == "notice"]

    # -- the cases ---------------------------------------------------------

    def test_build_from_empty_runner_temp_then_from_the_cache(self):
        first = self.first
        self.assertEqual(first.conclusion, "failure", first)
        self.assertEqual(first.outputs["exit-code"], "1")
        self.assertIn("[simulator] step 'Build himorime'", first.log)
        # saved right after the build, though the gate failed afterwards
        self.assertEqual(first.skipped, ["actions/cache/restore@v4", "actions/cache/save@v4"])
        self.assertEqual(len(self.cache.saved), 1, self.cache.saved)
        self.assertRegex(self.cache.saved[0], r"^himorime-build-v1-Linux-X64-[0-9a-f]{16}-[0-9a-f]{64}$")
        res = self.runner().action({"comment": "false"})
        self.assertIn("[simulator] skipped step 'Build himorime': if: "
                      "steps.cache.outputs.cache-hit != 'true'", res.log)
        self.assertEqual(res.outputs["exit-code"], "1", res)

    def test_default_inputs_comment_created_then_updated(self):
        res = self.runner().action({})
        self.assertEqual(res.conclusion, "failure", res)
        self.assertEqual(self.ci_step(res).rc, 1)
        temp = os.path.join(self.n_root(), "runner-temp")
        self.assertEqual(res.outputs, {"result": "regression", "exit-code": "1", "report": "",
                                       "json": os.path.join(temp, "himorime-report.json")})
        with open(res.outputs["json"]) as f:
            self.assertEqual(json.load(f)["summary"]["exit_code"], 1)
        self.assertEqual(res.skipped, ["actions/cache/restore@v4"])
        self.assertIn("[simulator] skipped uses: actions/cache/restore@v4 (not run by the "
                      "simulator)",
                      res.log)
        self.assertEqual(res.masks, [TOKEN])
        self.assertNotIn(TOKEN, res.log)
        self.assertIn("| work › work | latency |", res.summary)
        errors = [a for a in res.annotations if a["level"] == "error"]
        self.assertEqual([a["title"] for a in errors], ["himorime: performance regression"])
        log = self.server.log()
        self.assertEqual(log["violations"], [])
        self.assertEqual([r["method"] for r in log["requests"] if r["method"] != "GET"],
                         ["POST", "POST"])
        comments = self.comments()
        self.assertEqual(len(comments), 1)
        self.assertTrue(comments[0]["body"].startswith("<!-- himorime:comment v1 suite=gate -->"))
        self.assertEqual(len(log["statuses"]), 1)
        st = log["statuses"][0]
        self.assertEqual((st["sha"], st["state"], st["description"]),
                         (self.head, "failure", "1 regression"))
        self.assertEqual(st["target_url"],
                         "https://github.com/octo/repo/actions/runs/%d" % (4000 + self.n))

        again = self.runner().action({})
        self.assertEqual(again.outputs["exit-code"], "1", again)
        self.assertEqual([c["id"] for c in self.comments()], [comments[0]["id"]])
        self.assertIn("PATCH", [r["method"] for r in self.server.log()["requests"]])

    def n_root(self):
        return os.path.join(self.tmp, "job-%d" % self.n)

    def test_comment_false_sends_no_request_at_all(self):
        res = self.runner().action({"comment": "false"})
        self.assertNoRequests()
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("regression", "1"))
        self.assertIn("| work › work | latency |", res.summary)
        self.assertEqual(self.notices(res), [])
        self.assertNotIn("the token cannot write", res.log)

    def test_empty_token_publishes_nothing_keeps_the_gate_and_says_what_to_set(self):
        res = self.runner().action({"github-token": ""})
        self.assertNoRequests()
        self.assertEqual(res.conclusion, "failure")
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("regression", "1"))
        self.assertEqual(self.ci_step(res).rc, 1)
        notices = self.notices(res)
        self.assertEqual(len(notices), 1, res.annotations)
        self.assertEqual(notices[0]["title"], "himorime: nothing published")
        self.assertEqual(
            notices[0]["message"],
            "no GitHub token (GITHUB_TOKEN is empty, as on pull requests from forks): no comment "
            "and no status were posted. Set the action's github-token input (or GITHUB_TOKEN) to "
            "a token with pull-requests: write and statuses: write, or post from a workflow_run "
            "workflow with 'himorime comment' (docs/github-actions.md)")
        self.assertNotIn("dry-run", res.log)

    def test_read_only_token_keeps_the_verdict(self):
        res = self.runner(token=READ_ONLY).action({})
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("regression", "1"))
        self.assertEqual(self.comments(), [])
        self.assertEqual(self.server.log()["statuses"], [])
        self.assertIn("himorime: notice: the token cannot write to this repository", res.log)
        self.assertNotIn(READ_ONLY, res.log)

    def test_accept_label_passes_and_reports(self):
        res = self.runner(event=self.event(labels=["himorime:accept"])).action({})
        self.assertEqual(res.conclusion, "success", res)
        self.assertEqual(res.outputs["exit-code"], "0")
        self.assertEqual(self.server.log()["statuses"][0]["state"], "success")
        notices = self.notices(res)
        self.assertEqual([a["title"] for a in notices],
                         ["himorime: performance regression (accepted)"])

    def test_fail_on_inconclusive_and_the_inconclusive_annotation(self):
        with_ = {"comment": "false", "args": "--max-time 1ns"}
        res = self.runner().action(with_)
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("inconclusive", "0"),
                         res)
        warnings = [a for a in res.annotations if a["level"] == "warning"]
        self.assertEqual([(a["title"], a["message"]) for a in warnings],
                         [("himorime: inconclusive comparison",
                           "work › work: latency: the time budget ran out after 1 pair")])
        res = self.runner().action(dict(with_, **{"fail-on-inconclusive": "true"}))
        self.assertEqual(res.conclusion, "failure")
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("inconclusive", "1"))

    def test_suite_as_a_directory(self):
        res = self.runner().action({"suite": "bench"})
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("regression", "1"),
                         res)
        self.assertTrue(self.comments()[0]["body"].startswith(
            "<!-- himorime:comment v1 suite=gate -->"))

    def test_bad_inputs_exit_3(self):
        cases = [
            ({"comment": "maybe"}, '--comment "maybe": expected true or false'),
            ({"fail-on-inconclusive": "maybe"},
             "::error title=himorime::input fail-on-inconclusive: expected true or false"),
            ({"accept-label": ""}, "--accept-label must not be empty"),
            ({"args": "--no-such-flag"}, "--no-such-flag"),
        ]
        for with_, message in cases:
            with self.subTest(with_=with_):
                res = self.runner().action(with_)
                self.assertEqual(res.conclusion, "failure")
                self.assertEqual(res.outputs, {"result": "", "exit-code": "3", "report": "",
                                               "json": ""}, res)
                self.assertEqual(self.ci_step(res).rc, 3)
                self.assertIn(message, res.log)
        self.assertNoRequests()

    def test_502_while_posting_is_exit_4_in_the_output_too(self):
        self.scenario({"tokens": {TOKEN: None},
                       "faults": [{"method": "POST", "path": ".*", "count": 100,
                                   "status": 502, "headers": {"retry-after": "0"},
                                   "body": {"message": "Bad Gateway"}}]})
        res = self.runner().action({})
        self.assertEqual(self.ci_step(res).rc, 4, res)
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("regression", "4"))
        self.assertIn("himorime: exit 4: the comment or status could not be published", res.log)

    def test_report_output_names_the_output_file_and_json_the_json(self):
        res = self.runner().action({"comment": "false",
                                    "args": "--format markdown --output ${{ runner.temp }}/r.md"})
        temp = os.path.join(self.n_root(), "runner-temp")
        self.assertEqual((res.outputs["report"], res.outputs["json"]),
                         (os.path.join(temp, "r.md"), os.path.join(temp, "himorime-report.json")))
        with open(res.outputs["report"]) as f:
            self.assertIn("| work › work | latency |", f.read())
        with open(res.outputs["json"]) as f:
            self.assertEqual(json.load(f)["summary"]["exit_code"], 1)

        res = self.runner().action({"comment": "false",
                                    "args": "--format json --output ${{ runner.temp }}/r.json"})
        temp = os.path.join(self.n_root(), "runner-temp")
        self.assertEqual((res.outputs["report"], res.outputs["json"]),
                         (os.path.join(temp, "r.json"), os.path.join(temp, "r.json")))
        self.assertFalse(os.path.exists(os.path.join(temp, "himorime-report.json")))

    def test_fork_safe_flow_benchmark_then_comment_links_the_benchmark_run(self):
        artifacts = {}

        def upload(with_, runner):
            artifacts[with_["name"]] = with_["path"]
            return {}

        bench = self.runner(token=READ_ONLY, run_id=1111,
                            hooks={"actions/upload-artifact": upload,
                                   "actions/checkout": lambda w, r: {}})
        res = bench.job(os.path.join(WORKFLOWS, "benchmark.yml"), "benchmark")
        self.assertEqual(res.conclusion, "failure", res)
        self.assertEqual(res.skipped, ["actions/checkout@v4", "actions/cache/restore@v4",
                                       "actions/upload-artifact@v4"])
        self.assertEqual(res.outputs["himorime"]["exit-code"], "1")
        self.assertNoRequests()
        self.assertEqual(self.notices(res), [])
        report = artifacts["himorime-report"]
        self.assertTrue(os.path.isfile(report), report)

        # comment.yml: the default branch's himorime (this tree) builds in its
        # own checkout; the artifact of run 1111 is downloaded by run id.
        src = os.path.join(self.tmp, "default-branch")
        if not os.path.isdir(src):
            simulator.copy_tree(ROOT, src, ignore=(".git", "node_modules", "build", "build-san"))

        def download(with_, runner):
            self.assertEqual(with_["run-id"], "1111")
            os.makedirs(with_["path"], exist_ok=True)
            shutil.copy(report, os.path.join(with_["path"], "himorime.json"))
            return {}

        event = {
            "action": "completed",
            "workflow_run": {
                "id": 1111, "event": "pull_request", "conclusion": "failure",
                "head_sha": self.head, "head_repository": {"full_name": "octo/repo"},
                "pull_requests": [{"number": 7, "head": {"sha": self.head}}],
            },
            "repository": {"full_name": "octo/repo", "default_branch": "main"},
        }
        post = self.runner(event=event, name="workflow_run", workspace=src, run_id=2222,
                           hooks={"actions/checkout": lambda w, r: {},
                                  "actions/download-artifact": download})
        res = post.job(os.path.join(WORKFLOWS, "comment.yml"), "comment")
        self.assertEqual(res.conclusion, "success", res)
        self.assertEqual(res.skipped, ["actions/checkout@v4", "actions/download-artifact@v4"])
        comments = self.comments()
        self.assertEqual(len(comments), 1)
        self.assertIn("https://github.com/octo/repo/actions/runs/1111", comments[0]["body"])
        self.assertNotIn("/actions/runs/2222", comments[0]["body"])
        st = self.server.log()["statuses"]
        self.assertEqual([(s["sha"], s["state"], s["target_url"]) for s in st],
                         [(self.head, "failure", "https://github.com/octo/repo/actions/runs/1111")])

    def test_comment_workflow_skips_a_cancelled_benchmark_run(self):
        event = {"workflow_run": {"id": 1112, "event": "pull_request", "conclusion": "cancelled",
                                  "head_sha": self.head,
                                  "head_repository": {"full_name": "octo/repo"},
                                  "pull_requests": []},
                 "repository": {"full_name": "octo/repo", "default_branch": "main"}}
        res = self.runner(event=event, name="workflow_run").job(
            os.path.join(WORKFLOWS, "comment.yml"), "comment")
        self.assertEqual(res.conclusion, "skipped")
        self.assertTrue(res.log.startswith("[simulator] job 'comment' skipped: if: "
                                           "github.event.workflow_run.event == 'pull_request' && "),
                        res.log)
        self.assertNoRequests()

    def test_sweep_range_job(self):
        # The nightly sweep's first job: a history younger than a day starts
        # at the root commit.
        r = self.runner(event={}, name="schedule", hooks={"actions/checkout": lambda w, r: {}})
        res = r.job(os.path.join(WORKFLOWS, "sweep.yml"), "range")
        self.assertEqual(res.conclusion, "success", res)
        self.assertEqual(res.skipped, ["actions/checkout@v4"])
        self.assertEqual(res.outputs["range"], {"range": "%s..%s" % (self.base, self.head)})


if __name__ == "__main__":
    unittest.main()
