"""The Action as a runner runs it (issues 17 and 27): action.yml and the
workflows' jobs executed by the runner simulator (tests/action/simulator.py)
on a real git repository with a 4x slowdown, against the loopback GitHub API
of tests/github/server.py. What each case asserts is what
docs/github-actions.md promises: the three modes, the outputs table, the
`comment` input, where the token is and is not, the two-job and fork flows,
and a pull request whose build, as root, reads every process of its job and
finds no token that can write."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))

import simulator  # noqa: E402
import yaml  # noqa: E402
import test_ci as ci_tests  # noqa: E402  the fake API's driver and the program

TOKEN = "ghs_actiontesttoken0123456789"  # the publishing job's, which may write
READ_ONLY = "ghs_readonlytoken0123456789"  # a fork's pull request's
MEASURING = "ghs_measuringjobtoken0123456789"  # the measuring job's: contents: read
WORKFLOWS = os.path.join(ROOT, ".github", "workflows")
BENCHMARK = os.path.join(WORKFLOWS, "benchmark.yml")
DOCS = os.path.join(ROOT, "docs", "github-actions.md")
COMMENT = os.path.join(WORKFLOWS, "comment.yml")

# Every action is pinned by commit (the tag in a comment beside it).
CHECKOUT = "actions/checkout@11d5960a326750d5838078e36cf38b85af677262"
RESTORE = "actions/cache/restore@0057852bfaa89a56745cba8c7296529d2fc39830"
SAVE = "actions/cache/save@0057852bfaa89a56745cba8c7296529d2fc39830"
UPLOAD = "actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02"
DOWNLOAD = "actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093"

# The suite of the ci tests without their `env` command; SOURCE is where
# work.c is seen from the suite's directory.
SUITE = ci_tests.SUITE.split("      env:\n")[0].replace("work.c]", "SOURCE]")

ISOLATED = os.getuid() == 0 and simulator.Machine.available()
NOT_ISOLATED = "a job's own machine needs root and PID namespaces (unshare), as this " \
               "project's CI machine has"


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


class Artifacts:
    """actions/upload-artifact and actions/download-artifact v4 as the Action
    uses them: artifacts belong to a workflow run (its id); a name is
    uploaded once per run; downloading another run's needs its run-id and a
    github-token; a missing one fails the step."""

    def __init__(self, directory):
        self.dir = directory

    def upload(self, with_, runner):
        entry = os.path.join(self.dir, str(runner.run_id), with_["name"])
        if os.path.exists(entry):
            raise simulator.StepFailed("an artifact named %s already exists" % with_["name"])
        if not os.path.isfile(with_["path"]):
            raise simulator.StepFailed("no files were found with the provided path")
        os.makedirs(entry)
        shutil.copy(with_["path"], entry)
        return {"artifact-id": "1"}

    def download(self, with_, runner):
        run_id = with_.get("run-id") or str(runner.run_id)
        if run_id != str(runner.run_id) and not with_.get("github-token"):
            raise simulator.StepFailed("another run's artifacts need github-token")
        entry = os.path.join(self.dir, run_id, with_["name"])
        if not os.path.isdir(entry):
            raise simulator.StepFailed("Artifact not found for name: %s" % with_["name"])
        os.makedirs(with_["path"], exist_ok=True)
        for name in os.listdir(entry):
            shutil.copy(os.path.join(entry, name), with_["path"])
        return {"download-path": with_["path"]}

    def path(self, run_id, name="himorime-report"):
        return os.path.join(self.dir, str(run_id), name, "himorime-report.json")


PUBLISH = "Post the comment, the check run and the status"
MEASURE = "Compare base and head"

# The pull request's build in the hostile repository: as root (sudo, as a
# hosted runner allows), it reads every process of its job for a token
# (steal.py), and hands what it found to the test (an attacker would send it
# away), then builds as before.
HOSTILE_BUILD = """here=$(dirname "$0")
sudo -n python3 "$here/steal.py" STOLEN || echo "steal.py failed"
cc -O1 -o "$1" "$here/work.c"
"""


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
        cls.make_hostile_repository()
        cls.server = ci_tests.Server(os.path.join(cls.tmp, "api"), {"tokens": {TOKEN: None}})
        cls.cache = Cache(os.path.join(cls.tmp, "cache"))
        os.makedirs(cls.cache.dir)
        cls.artifacts = Artifacts(os.path.join(cls.tmp, "artifacts"))
        cls.n = 0
        cls.tmpdirs = []
        # The first run builds himorime from an empty RUNNER_TEMP, in the
        # default mode (measure); its gate fails (a regression), and its build
        # is saved to the cache all the same, and its report uploaded.
        cls.first = cls.runner(cls, run_id=4000).action({})

    @classmethod
    def make_hostile_repository(cls):
        """A pull request whose head's build hunts for tokens (HOSTILE_BUILD)."""
        repo = cls.hostile = os.path.join(cls.tmp, "hostile")
        cls.stolen = os.path.join(cls.tmp, "stolen.json")
        os.makedirs(os.path.join(repo, "bench"))
        git(repo, "init", "-q", "-b", "main")
        git(repo, "config", "user.email", "t@example.com")
        git(repo, "config", "user.name", "t")
        files = {"work.c": ci_tests.PROGRAM.replace("FACTOR", "1"),
                 "build.sh": 'cc -O1 -o "$1" "$(dirname "$0")/work.c"\n',
                 "bench/himorime.yaml": SUITE.replace(
                     '[cc, -O1, -o, "${artifact}", SOURCE]', '[sh, ../build.sh, "${artifact}"]')}
        for name, text in files.items():
            with open(os.path.join(repo, name), "w") as f:
                f.write(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "base")
        cls.hostile_base = git(repo, "rev-parse", "HEAD").strip()
        with open(os.path.join(repo, "work.c"), "w") as f:
            f.write(ci_tests.PROGRAM.replace("FACTOR", "4"))
        with open(os.path.join(repo, "build.sh"), "w") as f:
            f.write(HOSTILE_BUILD.replace("STOLEN", cls.stolen))
        shutil.copy(os.path.join(HERE, "steal.py"), repo)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "faster, promise")
        cls.hostile_head = git(repo, "rev-parse", "HEAD").strip()

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
        self.scenario({"tokens": {TOKEN: None, READ_ONLY: None, MEASURING: None},
                       "read_only": [READ_ONLY, MEASURING]})

    def scenario(self, data):
        """A fresh API state; the log of the previous case goes (the server
        writes its log only when a request comes)."""
        self.server.scenario(data)
        log = os.path.join(self.server.dir, "log.json")
        if os.path.exists(log):
            os.remove(log)

    def event(self, labels=(), head_repo="octo/repo", base=None, head=None):
        repo = {"full_name": "octo/repo"}
        return {
            "action": "synchronize",
            "number": 7,
            "pull_request": {
                "number": 7,
                "labels": [{"name": n} for n in labels],
                "head": {"sha": head or self.head, "ref": "slower",
                         "repo": {"full_name": head_repo}},
                "base": {"sha": base or self.base, "ref": "main", "repo": repo},
            },
            "repository": dict(repo, default_branch="main"),
        }

    def workflow_run(self, run_id, head_sha=None, head_repo="octo/repo", conclusion="failure"):
        """The event of a workflow_run workflow: the measuring run `run_id`
        of pull request 7 completed (GitHub lists no pull request for forks)."""
        head_sha = head_sha or self.head
        prs = [{"number": 7, "head": {"sha": head_sha}}] if head_repo == "octo/repo" else []
        return {"action": "completed",
                "workflow_run": {"id": run_id, "event": "pull_request", "conclusion": conclusion,
                                 "head_sha": head_sha, "head_repository": {"full_name": head_repo},
                                 "pull_requests": prs},
                "repository": {"full_name": "octo/repo", "default_branch": "main"}}

    def runner(self, event=None, token=TOKEN, name="pull_request", workspace=None, run_id=None,
               hooks=None, machine=False):
        cls = type(self) if isinstance(self, ActionRunnerTest) else self
        cls.n += 1
        root = os.path.join(cls.tmp, "job-%d" % cls.n)
        tmpdir = os.path.join(root, "tmp")
        os.makedirs(tmpdir)
        cls.tmpdirs.append(tmpdir)
        uses = {"actions/cache/restore": cls.cache.restore,
                "actions/cache/save": cls.cache.save,
                "actions/upload-artifact": cls.artifacts.upload,
                "actions/download-artifact": cls.artifacts.download,
                "actions/checkout": lambda with_, runner: {}}
        uses.update(hooks or {})
        return simulator.Runner(
            root, workspace or cls.repo, name,
            event if event is not None else ActionRunnerTest.event(cls), token,
            cls.server.url, run_id=run_id or 4000 + cls.n, sha=cls.head,
            action_path=ROOT, uses_hooks=uses, tmpdir=tmpdir, machine=machine)

    def empty_workspace(self):
        """A publishing job's workspace: nothing of the pull request in it."""
        path = tempfile.mkdtemp(prefix="workspace-", dir=self.tmp)
        return path

    def no_temporary_files_left(self):
        """himorime ran with TMPDIR private to each runner: nothing may stay."""
        for d in self.tmpdirs:
            self.assertEqual(os.listdir(d), [], d)

    def step(self, res, name):
        return [s for s in res.steps if s.name == name][0]

    def ci_step(self, res):
        return self.step(res, MEASURE)

    def with_token(self, res, token=TOKEN):
        """The steps that had `token` in their environment or inputs."""
        return [s.name for s in res.steps
                if token in (s.env or {}).values() or token in (s.with_ or {}).values()]

    def assertNoRequests(self):
        self.assertEqual(self.server.log()["requests"], [])

    def comments(self):
        return self.server.log()["issues"].get("octo/repo/7", [])

    def statuses(self):
        return [(s["sha"], s["state"], s["description"], s["target_url"])
                for s in self.server.log()["statuses"]]

    def check_runs(self):
        return [(r["head_sha"], r["status"], r["conclusion"], r["output"]["title"])
                for r in self.server.log()["check_runs"]]

    def grant(self, workflow, job, scenario):
        """The stand-in API's scenario with TOKEN limited to what the job's
        `permissions:` let it write."""
        perms = simulator.job_permissions(workflow, job)
        writes = sorted(k for k, v in perms.items() if v == "write")
        self.scenario(dict(scenario, permissions={TOKEN: writes}))
        return writes

    def notices(self, res):
        return [a for a in res.annotations if a["level"] == "notice"]

    def warnings(self, res):
        return [(a["title"], a["message"]) for a in res.annotations if a["level"] == "warning"]

    def n_root(self):
        return os.path.join(self.tmp, "job-%d" % self.n)

    def run_url(self, run_id):
        return "https://github.com/octo/repo/actions/runs/%d" % run_id

    # -- measure (the default) ---------------------------------------------

    def test_build_from_empty_runner_temp_then_from_the_cache(self):
        first = self.first
        self.assertEqual(first.conclusion, "failure", first)
        self.assertEqual(first.outputs["exit-code"], "1")
        self.assertIn("[simulator] step 'Build himorime'", first.log)
        # saved right after the build, though the gate failed afterwards
        self.assertEqual(first.skipped, [RESTORE, SAVE, UPLOAD])
        self.assertEqual(len(self.cache.saved), 1, self.cache.saved)
        self.assertRegex(self.cache.saved[0], r"^himorime-build-v1-Linux-X64-[0-9a-f]{16}-[0-9a-f]{64}$")
        res = self.runner().action({"comment": "false"})
        self.assertIn("[simulator] skipped step 'Build himorime': if: "
                      "steps.cache.outputs.cache-hit != 'true'", res.log)
        self.assertEqual(res.outputs["exit-code"], "1", res)

    def test_default_mode_measures_without_any_token_and_uploads_the_report(self):
        res = self.runner(run_id=4100).action({})
        self.assertEqual(res.conclusion, "failure", res)
        temp = os.path.join(self.n_root(), "runner-temp")
        self.assertEqual(res.outputs, {"result": "regression", "exit-code": "1", "report": "",
                                       "json": os.path.join(temp, "himorime-report.json")})
        self.assertNoRequests()
        self.assertEqual(res.masks, [])
        # the token (the github-token input's default) reached no step
        self.assertEqual(self.with_token(res), [])
        self.assertEqual(self.ci_step(res).env["GITHUB_TOKEN"], "")
        self.assertEqual(res.skipped, [RESTORE, UPLOAD])
        self.assertEqual(self.step(res, "Upload the report").with_, {
            "name": "himorime-report", "retention-days": "7", "if-no-files-found": "error",
            "path": os.path.join(temp, "himorime-artifact", "himorime-report.json")})
        with open(self.artifacts.path(4100)) as f:
            doc = json.load(f)
        self.assertEqual((doc["summary"]["exit_code"], doc["git"]["status_sha"]), (1, self.head))
        self.assertIn("| work › work | latency |", res.summary)
        self.assertEqual(self.warnings(res), [])

    def test_measure_mode_warns_of_a_token_in_the_job_and_hides_it_from_himorime(self):
        r = self.runner()
        r.env["GITHUB_TOKEN"] = TOKEN  # a job-level env: GITHUB_TOKEN: ${{ github.token }}
        res = r.action({"comment": "false"})
        self.assertEqual(self.warnings(res), [(
            "himorime: a token in the measuring job",
            "GITHUB_TOKEN or GH_TOKEN is set in this job's environment, where the measured code "
            "runs and can read it: the measuring job needs no token; remove it from the job's "
            "env: (docs/github-actions.md)")])
        self.assertEqual(self.ci_step(res).env["GITHUB_TOKEN"], "")
        self.assertEqual(res.masks, [])
        self.assertNoRequests()

    def test_bad_mode_exits_3_before_building(self):
        res = self.runner().action({"mode": "both"})
        self.assertEqual(res.conclusion, "failure")
        self.assertEqual(res.outputs, {"result": "", "exit-code": "3", "report": "", "json": ""})
        self.assertIn("::error title=himorime::input mode: expected measure, publish or "
                      "measure-and-publish", res.log)
        self.assertEqual([s.name for s in res.steps], ["Check the mode"])
        self.assertNoRequests()

    # -- measure-and-publish: one job, trusted code only --------------------

    def test_single_job_comment_created_then_updated_and_says_trusted_only(self):
        res = self.runner().action({"mode": "measure-and-publish"})
        self.assertEqual(res.conclusion, "failure", res)
        self.assertEqual(self.ci_step(res).rc, 1)
        temp = os.path.join(self.n_root(), "runner-temp")
        self.assertEqual(res.outputs, {"result": "regression", "exit-code": "1", "report": "",
                                       "json": os.path.join(temp, "himorime-report.json")})
        self.assertIn("\nhimorime: mode measure-and-publish: the token is in the job that runs "
                      "the measured code (builds, hooks, benchmarks), which can read it: for "
                      "trusted code only, never pull requests (docs/github-actions.md, "
                      "\"Threat model\")\n", res.log)
        self.assertEqual(self.warnings(res), [(
            "himorime: trusted code only",
            "mode measure-and-publish on a pull request puts the token in the job that runs the "
            "pull request's code; use mode measure and a publishing job (docs/github-actions.md)")])
        self.assertEqual(self.with_token(res), [MEASURE])
        self.assertEqual(res.skipped, [RESTORE])
        self.assertEqual(res.masks, [TOKEN])
        self.assertNotIn(TOKEN, res.log)
        errors = [a for a in res.annotations if a["level"] == "error"]
        self.assertEqual([a["title"] for a in errors], ["himorime: performance regression"])
        log = self.server.log()
        self.assertEqual(log["violations"], [])
        # the check run in_progress before anything is measured, then the
        # comment, the check run completed, the status
        self.assertEqual([(r["method"], r["path"].split("?")[0]) for r in log["requests"]
                          if r["method"] != "GET" or "/check-runs" in r["path"]],
                         [("GET", "/repos/octo/repo/commits/%s/check-runs" % self.head),
                          ("POST", "/repos/octo/repo/check-runs"),
                          ("POST", "/repos/octo/repo/issues/7/comments"),
                          ("PATCH", "/repos/octo/repo/check-runs/5001"),
                          ("POST", "/repos/octo/repo/statuses/" + self.head)])
        self.assertEqual(self.check_runs(), [(self.head, "completed", "failure",
                                              "❌ himorime: 1 regression")])
        comments = self.comments()
        self.assertEqual(len(comments), 1)
        self.assertTrue(comments[0]["body"].startswith("<!-- himorime:comment v1 suite=gate -->"))
        self.assertEqual(self.statuses(), [(self.head, "failure", "1 regression",
                                            self.run_url(4000 + self.n))])

        again = self.runner().action({"mode": "measure-and-publish"})
        self.assertEqual(again.outputs["exit-code"], "1", again)
        self.assertEqual([c["id"] for c in self.comments()], [comments[0]["id"]])
        self.assertIn("PATCH", [r["method"] for r in self.server.log()["requests"]])
        self.assertEqual(len(self.check_runs()), 1)

    def test_comment_false_sends_no_request_and_gives_no_token(self):
        res = self.runner().action({"mode": "measure-and-publish", "comment": "false"})
        self.assertNoRequests()
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("regression", "1"))
        self.assertIn("| work › work | latency |", res.summary)
        self.assertEqual(self.notices(res), [])
        self.assertNotIn("the token cannot write", res.log)
        self.assertEqual(self.with_token(res), [])
        self.assertEqual(res.masks, [])

    def test_empty_token_publishes_nothing_keeps_the_gate_and_says_what_to_set(self):
        res = self.runner().action({"mode": "measure-and-publish", "github-token": ""})
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
        res = self.runner(token=READ_ONLY).action({"mode": "measure-and-publish"})
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("regression", "1"))
        self.assertEqual(self.comments(), [])
        self.assertEqual(self.server.log()["statuses"], [])
        self.assertIn("himorime: notice: the token cannot write to this repository", res.log)
        self.assertNotIn(READ_ONLY, res.log)

    def test_accept_label_passes_and_reports(self):
        res = self.runner(event=self.event(labels=["himorime:accept"])).action(
            {"mode": "measure-and-publish"})
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
        res = self.runner().action({"mode": "measure-and-publish", "suite": "bench"})
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
                res = self.runner().action(dict(with_, mode="measure-and-publish"))
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
        res = self.runner().action({"mode": "measure-and-publish"})
        self.assertEqual(self.ci_step(res).rc, 4, res)
        self.assertEqual((res.outputs["result"], res.outputs["exit-code"]), ("regression", "4"))
        self.assertIn("himorime: exit 4: the comment, check run or status could not be "
                      "published", res.log)

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

        res = self.runner(run_id=4101).action({
            "comment": "false", "args": "--format json --output ${{ runner.temp }}/r.json"})
        temp = os.path.join(self.n_root(), "runner-temp")
        self.assertEqual((res.outputs["report"], res.outputs["json"]),
                         (os.path.join(temp, "r.json"), os.path.join(temp, "r.json")))
        self.assertFalse(os.path.exists(os.path.join(temp, "himorime-report.json")))
        # the artifact holds it under the name the publishing job reads
        with open(self.artifacts.path(4101)) as f:
            self.assertEqual(json.load(f)["summary"]["exit_code"], 1)

    # -- publish: the second job --------------------------------------------

    def publish(self, event, run_id=2222, with_=None, name="workflow_run"):
        """The Action in publish mode, in a job with nothing of the pull
        request in its workspace."""
        r = self.runner(event=event, name=name, workspace=self.empty_workspace(), run_id=run_id)
        return r.action(dict({"mode": "publish"}, **(with_ or {})))

    def test_publish_on_workflow_run_posts_the_measuring_runs_report(self):
        # the report of the first run (4000), from the default branch's
        # cache scope: no build
        res = self.publish(self.workflow_run(4000))
        self.assertEqual(res.conclusion, "success", res)
        self.assertEqual(res.outputs, {"result": "", "exit-code": "0", "report": "", "json": ""})
        self.assertIn("[simulator] skipped step 'Build himorime'", res.log)
        self.assertEqual(res.skipped, [RESTORE, DOWNLOAD])
        self.assertEqual(self.step(res, "Download the report of the measuring run").with_, {
            "name": "himorime-report", "run-id": "4000", "github-token": TOKEN,
            "path": os.path.join(self.n_root(), "runner-temp", "himorime-download")})
        self.assertEqual(self.with_token(res), ["Download the report of the measuring run",
                                                PUBLISH])
        self.assertEqual(len(self.comments()), 1)
        self.assertIn(self.run_url(4000), self.comments()[0]["body"])
        self.assertEqual(self.statuses(), [(self.head, "failure", "1 regression",
                                            self.run_url(4000))])
        self.assertEqual(self.check_runs(), [(self.head, "completed", "failure",
                                              "❌ himorime: 1 regression")])
        self.assertEqual(self.server.log()["check_runs"][0]["details_url"], self.run_url(4000))
        self.assertEqual(self.notices(res), [])

    def test_publish_with_verdict_as_status_sends_no_check_run(self):
        res = self.publish(self.workflow_run(4000), with_={"verdict-as": "status"})
        self.assertEqual((res.conclusion, res.outputs["exit-code"]), ("success", "0"), res)
        self.assertEqual([r for r in self.server.log()["requests"] if "/check-runs" in r["path"]],
                         [])
        self.assertEqual(len(self.statuses()), 1)
        res = self.publish(self.workflow_run(4000), with_={"verdict-as": "statuses"})
        self.assertEqual((res.conclusion, res.outputs["exit-code"]), ("failure", "3"), res)
        self.assertIn('--verdict-as "statuses": expected status, check or both', res.log)

    def test_publish_with_comment_false_posts_nothing_and_gives_no_token(self):
        res = self.publish(self.workflow_run(4000), with_={"comment": "false"})
        self.assertEqual((res.conclusion, res.outputs["exit-code"]), ("success", "0"), res)
        self.assertNoRequests()
        self.assertEqual(self.step(res, PUBLISH).env["GITHUB_TOKEN"], "")
        self.assertEqual(self.with_token(res), ["Download the report of the measuring run"])
        self.assertIn("himorime: dry run: nothing was sent", res.log)
        self.assertIn("<!-- himorime:comment v1 suite=gate -->", res.log)

    def test_publish_with_a_bad_comment_input_exits_3(self):
        res = self.publish(self.workflow_run(4000), with_={"comment": "maybe"})
        self.assertEqual((res.conclusion, res.outputs["exit-code"]), ("failure", "3"), res)
        self.assertIn("::error title=himorime::input comment: expected true or false", res.log)
        self.assertEqual(self.step(res, PUBLISH).env["GITHUB_TOKEN"], "")
        self.assertNoRequests()

    def test_publish_refuses_a_report_of_another_commit(self):
        # the artifact of run 4000 is about the head; this event names the base
        res = self.publish(self.workflow_run(4000, head_sha=self.base))
        self.assertEqual((res.conclusion, res.outputs["exit-code"]), ("failure", "2"), res)
        self.assertEqual(self.step(res, PUBLISH).rc, 2)
        self.assertIn("himorime: error: %s: the report is about commit %s (git.status_sha), not "
                      "%s, the commit of this event (workflow_run.head_sha): refusing to post "
                      "another commit's report [HMR2001]\n" % (
                          os.path.join(self.n_root(), "runner-temp", "himorime-download",
                                       "himorime-report.json"), self.head, self.base), res.log)
        self.assertNoRequests()

    def test_publish_without_an_artifact_says_so_and_exits_4(self):
        res = self.publish(self.workflow_run(3999))
        self.assertEqual((res.conclusion, res.outputs["exit-code"]), ("failure", "4"), res)
        self.assertIn("its stand-in failed: Artifact not found for name: himorime-report", res.log)
        self.assertIn("::error title=himorime::no report to publish: the measuring run left no "
                      "report artifact (did it stop before measuring? see its log)", res.log)
        self.assertNoRequests()

    def test_fork_flow_measure_then_workflow_run_posts_an_advisory_status(self):
        # benchmark.yml on a fork's pull request: measured with a read-only
        # token; its publishing job is for this repository's pull requests.
        event = self.event(head_repo="forker/repo")
        measure = self.runner(event=event, token=READ_ONLY, run_id=1111).job(BENCHMARK, "measure")
        self.assertEqual(measure.conclusion, "failure", measure)
        self.assertEqual(measure.skipped, [CHECKOUT, RESTORE, UPLOAD])
        self.assertEqual(measure.outputs["himorime"]["exit-code"], "1")
        publish = self.runner(event=event, token=READ_ONLY, run_id=1111).job(
            BENCHMARK, "publish", needs={"measure": measure})
        self.assertEqual(publish.conclusion, "skipped")
        self.assertNoRequests()
        # comment.yml, on workflow_run: the default branch's action posts
        self.grant(COMMENT, "comment", {"tokens": {TOKEN: None}, "pulls": {
            "octo/repo/" + self.head: [
                {"number": 7, "head": {"sha": self.head, "repo": {"full_name": "forker/repo"}},
                 "base": {"repo": {"full_name": "octo/repo"}}}]}})
        checkouts = []
        post = self.runner(event=self.workflow_run(1111, head_repo="forker/repo"),
                           name="workflow_run", workspace=self.empty_workspace(), run_id=2222,
                           hooks={"actions/checkout": lambda w, r: checkouts.append(w) or {}})
        res = post.job(COMMENT, "comment")
        self.assertEqual(res.conclusion, "success", res)
        self.assertEqual(checkouts, [{"ref": "main", "persist-credentials": "false"}])
        self.assertEqual(res.skipped, [CHECKOUT, RESTORE, DOWNLOAD])
        self.assertEqual(len(self.comments()), 1)
        self.assertIn(self.run_url(1111), self.comments()[0]["body"])
        self.assertNotIn("/actions/runs/2222", self.comments()[0]["body"])
        self.assertEqual(self.statuses(), [(self.head, "failure",
                                            "advisory (fork): 1 regression", self.run_url(1111))])
        self.assertEqual([a["title"] for a in self.notices(res)],
                         ["himorime: advisory status (fork)"])
        # the check run, made by the trusted job on the pull request's head
        self.assertEqual(self.check_runs(), [(self.head, "completed", "failure",
                                              "❌ himorime: 1 regression")])
        self.assertTrue(self.server.log()["check_runs"][0]["output"]["summary"].startswith(
            "> **Advisory (fork):** these figures come from the fork's own job "
            "(`forker/repo`)"))

    def test_comment_workflow_is_for_forks_and_completed_runs(self):
        for event in (self.workflow_run(1112, conclusion="cancelled", head_repo="forker/repo"),
                      self.workflow_run(1112)):
            res = self.runner(event=event, name="workflow_run").job(COMMENT, "comment")
            self.assertEqual(res.conclusion, "skipped")
            self.assertTrue(res.log.startswith(
                "[simulator] job 'comment' skipped: if: github.event.workflow_run.event == "
                "'pull_request' && "), res.log)
        self.assertNoRequests()

    # -- the two-job workflow of a hostile pull request ---------------------

    def hostile_event(self):
        return self.event(base=self.hostile_base, head=self.hostile_head)

    def stolen_tokens(self):
        """What the hostile build found, and checks that it looked: it ran as
        root and read the memory of himorime and of the job's worker."""
        with open(self.stolen) as f:
            stolen = json.load(f)
        os.remove(self.stolen)
        self.assertEqual(stolen["uid"], 0)
        procs = stolen["processes"]
        self.assertEqual(procs["1"]["comm"], "Runner.Worker")  # the stand-in
        self.assertGreater(procs["1"]["mem_bytes"], 0)
        himorime = [p for p in procs.values() if p["comm"] == "himorime"]
        self.assertEqual(len(himorime), 1, procs)
        self.assertGreater(himorime[0]["mem_bytes"], 0)
        self.assertTrue(himorime[0]["environ"])
        return stolen["found"]

    def try_to_write(self, token):
        """What the attacker does with a token it found: comment."""
        request = urllib.request.Request(
            self.server.url + "/repos/octo/repo/issues/7/comments", method="POST",
            data=json.dumps({"body": "pwned"}).encode(),
            headers={"Accept": "application/vnd.github+json", "User-Agent": "himorime/0",
                     "X-GitHub-Api-Version": "2022-11-28", "Content-Type": "application/json",
                     "Authorization": "Bearer " + token})
        try:
            with urllib.request.urlopen(request, timeout=30) as resp:
                return resp.status
        except urllib.error.HTTPError as e:
            return e.code

    @unittest.skipUnless(ISOLATED, NOT_ISOLATED)
    def test_two_jobs_hostile_build_finds_no_token_that_can_write(self):
        # benchmark.yml's measuring job on a pull request of this repository
        # whose build hunts for tokens as root in every process of its job.
        event = self.hostile_event()
        measure = self.runner(event=event, token=MEASURING, workspace=self.hostile,
                              run_id=5555, machine=True).job(BENCHMARK, "measure")
        self.assertEqual(measure.conclusion, "failure", measure)  # the 4x regression
        self.assertEqual(measure.outputs["himorime"]["exit-code"], "1", measure)
        # All it finds is the measuring job's own token, in the runner's
        # memory, and that token cannot write.
        self.assertEqual(self.stolen_tokens(), {MEASURING: ["1 (Runner.Worker) mem"]})
        self.assertEqual(self.with_token(measure, MEASURING), [])
        self.assertNoRequests()
        self.assertEqual(self.try_to_write(MEASURING), 403)
        self.scenario({"tokens": {TOKEN: None}})
        # The publishing job, on its own machine with its own token: it
        # checks out the base commit (the action as merged) and posts. No
        # cache restore in the pull request's scope: it builds himorime.
        checkouts = []
        publish = self.runner(
            event=event, token=TOKEN, workspace=self.empty_workspace(), run_id=5555,
            machine=True, hooks={"actions/checkout": lambda w, r: checkouts.append(w) or {}},
        ).job(BENCHMARK, "publish", needs={"measure": measure})
        self.assertEqual(publish.conclusion, "success", publish)
        self.assertEqual(checkouts, [{"ref": self.hostile_base, "persist-credentials": "false"}])
        self.assertEqual(publish.skipped, [CHECKOUT, DOWNLOAD])
        self.assertIn("[simulator] step 'Build himorime'", publish.log)
        self.assertEqual(self.with_token(publish), [PUBLISH])
        self.assertEqual(len(self.comments()), 1)
        self.assertEqual(self.statuses(), [(self.hostile_head, "failure", "1 regression",
                                            self.run_url(5555))])
        self.assertEqual(self.server.log()["violations"], [])

    @unittest.skipUnless(ISOLATED, NOT_ISOLATED)
    def test_single_job_hostile_build_reads_the_token_out_of_himorime(self):
        # Why measure-and-publish is for trusted code only: the same build in
        # the one-job form finds the token that can write, in himorime's
        # memory (its environment was scrubbed; PR_SET_DUMPABLE does not stop
        # root) and in the runner's.
        res = self.runner(event=self.hostile_event(), token=TOKEN, workspace=self.hostile,
                          machine=True).action({"mode": "measure-and-publish",
                                                "suite": "bench/himorime.yaml"})
        self.assertEqual(res.outputs["exit-code"], "1", res)
        found = self.stolen_tokens()
        self.assertEqual(sorted(found), [TOKEN])
        places = [w.split(" ", 1)[1] for w in found[TOKEN]]
        self.assertIn("(himorime) mem", places)
        self.assertIn("(Runner.Worker) mem", places)
        self.assertNotIn("(himorime) environ", places)
        self.assertEqual(self.try_to_write(TOKEN), 201)

    # -- the workflows of docs/github-actions.md -----------------------------

    def docs_workflows(self):
        """The workflows the five-minute setup shows, written to files."""
        with open(DOCS) as f:
            blocks = re.findall(r"```yaml\n(.*?)```", f.read(), re.S)
        out = {}
        for text in blocks:
            if "\njobs:" in text:
                path = os.path.join(self.tmp, "docs-%s.yml" % yaml.safe_load(text)["name"])
                with open(path, "w") as f:
                    f.write(text)
                out[yaml.safe_load(text)["name"]] = path
        self.assertEqual(sorted(out), ["himorime", "himorime-forks"])
        return out

    def the_action(self, with_, runner):
        """`uses: OWNER/himorime@...`: this repository's action."""
        conclusion, outputs = runner.run_action(os.path.join(ROOT, "action.yml"), with_, ROOT)
        if conclusion != "success":
            raise simulator.StepFailed("himorime failed")
        return outputs

    def test_docs_setup_fork_flow(self):
        docs = self.docs_workflows()
        hooks = {"OWNER/himorime": self.the_action}
        event = self.event(head_repo="forker/repo")
        measure = self.runner(event=event, token=READ_ONLY, run_id=1200,
                              hooks=hooks).job(docs["himorime"], "measure")
        self.assertEqual(measure.conclusion, "failure", measure)  # the regression
        self.assertNoRequests()
        self.assertEqual(self.with_token(measure, READ_ONLY), [])
        with open(self.artifacts.path(1200)) as f:
            self.assertEqual(json.load(f)["git"]["status_sha"], self.head)
        # its publishing job is for the repository's own pull requests
        publish = self.runner(event=event, token=READ_ONLY, run_id=1200, hooks=hooks).job(
            docs["himorime"], "publish", needs={"measure": measure})
        self.assertEqual(publish.conclusion, "skipped")
        with open(docs["himorime"]) as f:
            condition = yaml.safe_load(f)["jobs"]["publish"]["if"]
        ctx = {"github": {"event": self.event(), "repository": "octo/repo"},
               "needs": {"measure": {"result": "failure"}}}
        self.assertTrue(simulator.condition(condition, ctx, True))
        # himorime-forks.yml posts, with the advisory status
        self.assertEqual(self.grant(docs["himorime-forks"], "publish", {
            "tokens": {TOKEN: None}, "pulls": {"octo/repo/" + self.head: [
                {"number": 7, "head": {"sha": self.head, "repo": {"full_name": "forker/repo"}},
                 "base": {"repo": {"full_name": "octo/repo"}}}]}}),
            ["checks", "pull-requests", "statuses"])
        res = self.runner(event=self.workflow_run(1200, head_repo="forker/repo"),
                          name="workflow_run", workspace=self.empty_workspace(), run_id=2300,
                          hooks=hooks).job(docs["himorime-forks"], "publish")
        self.assertEqual(res.conclusion, "success", res)
        self.assertNotIn(CHECKOUT, res.skipped)  # nothing checked out at all
        self.assertEqual(self.statuses(), [(self.head, "failure",
                                            "advisory (fork): 1 regression", self.run_url(1200))])
        self.assertEqual(len(self.comments()), 1)
        self.assertEqual(self.check_runs(), [(self.head, "completed", "failure",
                                              "❌ himorime: 1 regression")])

    def docs_two_jobs(self, workflow, run_id):
        """The five-minute setup's workflow on a pull request of the
        repository: the measuring job, then the publishing job with the
        token its `permissions:` give."""
        hooks = {"OWNER/himorime": self.the_action}
        measure = self.runner(token=MEASURING, run_id=run_id, hooks=hooks).job(workflow,
                                                                                "measure")
        self.assertEqual(measure.conclusion, "failure", measure)  # the regression
        self.assertNoRequests()
        writes = self.grant(workflow, "publish", {"tokens": {TOKEN: None}})
        publish = self.runner(run_id=run_id, workspace=self.empty_workspace(), hooks=hooks).job(
            workflow, "publish", needs={"measure": measure})
        self.assertEqual(publish.conclusion, "success", publish)
        self.assertEqual(self.server.log()["violations"], [])
        return writes, publish

    def test_docs_setup_publishes_a_check_run_with_checks_write(self):
        writes, res = self.docs_two_jobs(self.docs_workflows()["himorime"], 1300)
        self.assertEqual(writes, ["checks", "pull-requests", "statuses"])
        self.assertEqual(self.check_runs(), [(self.head, "completed", "failure",
                                              "❌ himorime: 1 regression")])
        [run_] = self.server.log()["check_runs"]
        self.assertEqual((run_["name"], run_["external_id"], run_["details_url"]),
                         ("himorime", "gate", self.run_url(1300)))
        line = SUITE.split("\n").index("      work:") + 1
        self.assertEqual([(a["path"], a["start_line"], a["annotation_level"], a["title"])
                          for a in run_["annotations"]],
                         [("himorime.yaml", line, "failure", "himorime: performance regression")])
        self.assertEqual(self.statuses(), [(self.head, "failure", "1 regression",
                                            self.run_url(1300))])
        self.assertNotIn("check runs", res.log)

    def test_docs_setup_without_checks_write_posts_the_status_and_says_so(self):
        with open(self.docs_workflows()["himorime"]) as f:
            text = f.read()
        without = os.path.join(self.tmp, "docs-without-checks.yml")
        with open(without, "w") as f:
            f.write(text.replace("      checks: write", "      # no checks"))
        writes, res = self.docs_two_jobs(without, 1301)
        self.assertEqual(writes, ["pull-requests", "statuses"])
        self.assertEqual(self.check_runs(), [])
        self.assertEqual(self.statuses(), [(self.head, "failure", "1 regression",
                                            self.run_url(1301))])
        self.assertEqual(len(self.comments()), 1)
        notice = [l for l in res.log.split("\n") if "may not write check runs" in l]
        self.assertEqual(len(notice), 1, res.log)
        self.assertIn("give the job `checks: write`", notice[0])

    def test_sweep_range_job(self):
        # The nightly sweep's first job: a history younger than a day starts
        # at the root commit.
        r = self.runner(event={}, name="schedule")
        res = r.job(os.path.join(WORKFLOWS, "sweep.yml"), "range")
        self.assertEqual(res.conclusion, "success", res)
        self.assertEqual(res.skipped, [CHECKOUT])
        self.assertEqual(res.outputs["range"], {"range": "%s..%s" % (self.base, self.head)})


if __name__ == "__main__":
    unittest.main()
