"""`himorime ci` and `himorime comment` end to end: a real git repository, a
pull_request event shaped like GitHub's, and the fake GitHub API on 127.0.0.1
(tests/github/server.py) checking every request."""
import json
import os
import subprocess
import sys
import time
import unittest

from harness import HIMORIME, ROOT, TempDirTest, run

SERVER = os.path.join(ROOT, "tests", "github", "server.py")
TOKEN = "ghs_citesttoken0123456789"

PROGRAM = r"""#include <stdio.h>
int main(void) {
	volatile double x = 0;
	for (long i = 0; i < 1500000L * FACTOR; i++) x += i * 0.5;
	printf("%f\n", x);
	return 0;
}
"""

SUITE = """version: "1"
name: gate
build:
  command: [cc, -O1, -o, "${artifact}", work.c]
benchmarks:
  - name: work
    runs: 10
    warmup: 0
    # no noise gate: the tests run on a loaded machine and look for a 4x step
    regression: {max_cv: 0}
    commands:
      work:
        command: ["${artifact}"]
      env:
        command: "env > ENVFILE"
        shell: true
"""


class Server:
    def __init__(self, directory, scenario):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self.scenario(scenario)
        self.proc = subprocess.Popen([sys.executable, SERVER, "--dir", directory, "--idle", "120"])
        deadline = time.time() + 10
        while not os.path.exists(os.path.join(directory, "port")):
            if time.time() > deadline:
                raise RuntimeError("fake GitHub API did not start")
            time.sleep(0.02)
        self.url = "http://127.0.0.1:%s" % open(os.path.join(directory, "port")).read().strip()

    def scenario(self, data):
        data = dict(data, gen=time.time())
        with open(os.path.join(self.dir, "scenario.json"), "w") as f:
            json.dump(data, f)

    def log(self):
        path = os.path.join(self.dir, "log.json")
        if not os.path.exists(path):
            return {"requests": [], "violations": [], "issues": {}, "statuses": []}
        with open(path) as f:
            return json.load(f)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


class CiFixture(TempDirTest):
    """A repository whose head is 4x slower than its base, and the fake API."""

    def setUp(self):
        super().setUp()
        self.repo = os.path.join(self.tmp, "repo")
        os.makedirs(self.repo)
        self.envfile = os.path.join(self.tmp, "child-env.txt")
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "t@example.com")
        self.git("config", "user.name", "t")
        self.write("repo/work.c", PROGRAM.replace("FACTOR", "1"))
        self.write("repo/himorime.yaml", SUITE.replace("ENVFILE", self.envfile))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.base = self.git("rev-parse", "HEAD").strip()
        self.write("repo/work.c", PROGRAM.replace("FACTOR", "4"))
        self.git("commit", "-qam", "slower")
        self.head = self.git("rev-parse", "HEAD").strip()
        self.server = Server(os.path.join(self.tmp, "api"), {"tokens": {TOKEN: None}})
        self.addCleanup(self.server.stop)

    def git(self, *args):
        return subprocess.run(["git", *args], cwd=self.repo, check=True, capture_output=True,
                              text=True).stdout

    def event(self, name="pull_request", labels=(), **extra):
        ev = {
            "number": 7,
            "pull_request": {
                "number": 7,
                "labels": [{"name": l} for l in labels],
                "head": {"sha": self.head, "repo": {"full_name": "octo/repo"}},
                "base": {"sha": self.base, "repo": {"full_name": "octo/repo"}},
            },
            "repository": {"full_name": "octo/repo"},
        }
        ev.update(extra)
        path = os.path.join(self.tmp, "event.json")
        with open(path, "w") as f:
            json.dump(ev, f)
        return path

    def ci_env(self, event_path, name="pull_request"):
        self.summary = os.path.join(self.tmp, "summary.md")
        self.outputs = os.path.join(self.tmp, "outputs.txt")
        return {
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": name,
            "GITHUB_EVENT_PATH": event_path,
            "GITHUB_REPOSITORY": "octo/repo",
            "GITHUB_API_URL": self.server.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": "99",
            "GITHUB_SHA": self.head,
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_STEP_SUMMARY": self.summary,
            "GITHUB_OUTPUT": self.outputs,
            "RUNNER_TEMP": self.tmp,
        }

    def ci(self, *args, event=None, name="pull_request", code=None):
        res = run(["ci", "--quiet", "--seed", "5", *args],
                  cwd=self.repo, env=self.ci_env(event or self.event(), name))
        if code is not None:
            self.assertExit(res, code)
        return res

    def our_comments(self):
        return self.server.log()["issues"].get("octo/repo/7", [])

    def saved_report(self, head_repository="octo/repo"):
        """The report a measuring job saves as an artifact (`ci --comment
        false` under the pull request's event, with no token), and the
        environment of the trusted workflow_run job that posts it."""
        env = dict(self.ci_env(self.event()), GITHUB_TOKEN="")
        self.assertExit(run(["ci", "--quiet", "--seed", "5", "--comment", "false"],
                            cwd=self.repo, env=env), 1)
        report = os.path.join(self.tmp, "report.json")
        os.rename(os.path.join(self.tmp, "himorime-report.json"), report)
        self.assertEqual(self.server.log()["requests"], [])
        prs = [{"number": 7, "head": {"sha": self.head}}] if head_repository == "octo/repo" else []
        ev = {"workflow_run": {"id": 5, "event": "pull_request", "head_sha": self.head,
                               "head_repository": {"full_name": head_repository},
                               "pull_requests": prs},
              "repository": {"full_name": "octo/repo"}}
        path = os.path.join(self.tmp, "run.json")
        with open(path, "w") as f:
            json.dump(ev, f)
        return report, self.ci_env(path, "workflow_run")

    def edit_report(self, report, edit):
        with open(report) as f:
            doc = json.load(f)
        edit(doc)
        with open(report, "w") as f:
            json.dump(doc, f)


# A library of a given name whose constructor writes where it was loaded
# from: if the dynamic loader ever takes it, the marker says so.
FAKE_LIBRARY = r"""#include <dlfcn.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
static void hit(void) __attribute__((constructor));
static void hit(void)
{
	Dl_info info;
	int fd = open(MARKER, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0 && dladdr((void *)hit, &info) && info.dli_fname) {
		write(fd, info.dli_fname, strlen(info.dli_fname));
		write(fd, "\n", 1);
	}
	if (fd >= 0)
		close(fd);
}
"""


def library_names(path):
    """The names `ldd path` lists, as the dynamic loader looks them up."""
    out = subprocess.run(["ldd", path], check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if "=>" in line]


def plant_libraries(directory):
    """Fills directory with a fake of libcurl.so.4 and of every library it
    pulls in that himorime does not load itself when it starts; returns the
    path of the marker file a fake writes when it is loaded."""
    os.makedirs(directory, exist_ok=True)
    libdir = subprocess.run(["pkg-config", "--variable=libdir", "libcurl"], check=True,
                            capture_output=True, text=True).stdout.strip()
    own = set(library_names(HIMORIME))
    names = ["libcurl.so.4"] + [n for n in library_names(os.path.join(libdir, "libcurl.so.4"))
                                if n not in own]
    marker = os.path.join(os.path.dirname(directory), "loaded-" + os.path.basename(directory))
    src = os.path.join(directory, ".fake.c")
    obj = os.path.join(directory, ".fake.o")
    with open(src, "w") as f:
        f.write(FAKE_LIBRARY)
    subprocess.run(["cc", "-D_GNU_SOURCE", "-fPIC", "-c", "-DMARKER=\"%s\"" % marker, "-o", obj, src], check=True)
    for name in names:
        subprocess.run(["cc", "-shared", "-Wl,-soname," + name, "-o",
                        os.path.join(directory, name), obj], check=True)
    assert len(names) > 10, names
    return marker


class CiTest(CiFixture):
    def test_ci__regression_comments_sets_status_and_fails(self):
        res = self.ci(code=1)
        self.assertTrue(res.out.startswith(f"::add-mask::{TOKEN}\n"), res.out[:200])
        self.assertIn("::error file=himorime.yaml,line=", res.out)
        self.assertIn("title=himorime%3A performance regression::work › work: latency +", res.out)
        self.assertRegex(res.out, r"::stop-commands::\S+\n")
        log = self.server.log()
        self.assertEqual(log["violations"], [])
        comments = self.our_comments()
        self.assertEqual(len(comments), 1)
        self.assertTrue(comments[0]["body"].startswith("<!-- himorime:comment v1 suite=gate -->"))
        self.assertEqual(len(log["statuses"]), 1)
        st = log["statuses"][0]
        self.assertEqual(st["sha"], self.head)
        self.assertEqual(st["state"], "failure")
        self.assertEqual(st["context"], "himorime")
        self.assertEqual(st["description"], "1 regression")
        self.assertEqual(st["target_url"], "https://github.com/octo/repo/actions/runs/99")
        self.assertTrue(os.path.getsize(self.summary) > 0)
        outputs = open(self.outputs).read()
        self.assertRegex(outputs, r"result<<ghadelimiter_\S+\nregression\nghadelimiter_\S+\n")
        self.assertRegex(outputs, r"exit-code<<ghadelimiter_\S+\n1\n")
        report = os.path.join(self.tmp, "himorime-report.json")
        self.assertIn(report, outputs)
        doc = json.load(open(report))
        self.assertEqual(doc["summary"]["exit_code"], 1)
        # the commit of the event, for `comment` to check the artifact against
        self.assertEqual((doc["git"]["head_sha"], doc["git"]["status_sha"]), (self.head, self.head))
        self.assertTrue(res.err.endswith("himorime: exit 1: 1 regression\n"), res.err)

    def test_ci__libraries_planted_after_start_are_never_loaded(self):
        # A setup hook fills a directory on LD_LIBRARY_PATH, which the
        # dynamic loader read when himorime started, with libraries of
        # libcurl's names: libcurl was loaded before anything of the suite
        # ran, so none of them is ever loaded, and the comment is posted.
        fakes = os.path.join(self.tmp, "fakes")
        marker = plant_libraries(fakes)
        libs = os.path.join(self.tmp, "libs")
        os.makedirs(libs)
        self.write("repo/himorime.yaml", SUITE.replace("ENVFILE", self.envfile).replace(
            "    warmup: 0\n",
            '    warmup: 0\n    setup:\n      - {command: "cp %s/* %s/", shell: true}\n'
            % (fakes, libs)))
        res = run(["ci", "--quiet", "--seed", "5"], cwd=self.repo,
                  env=dict(self.ci_env(self.event()), LD_LIBRARY_PATH=libs))
        self.assertExit(res, 1)
        self.assertIn("libcurl.so.4", os.listdir(libs))
        self.assertFalse(os.path.exists(marker), open(marker).read()
                         if os.path.exists(marker) else "")
        self.assertEqual(len(self.our_comments()), 1)
        self.assertEqual(self.server.log()["statuses"][0]["state"], "failure")

    def test_ci__a_fifo_as_github_output_is_refused_not_waited_on(self):
        # The runner's files lie where the measured code can write: a FIFO
        # put in GITHUB_OUTPUT's place (no reader) would block the append
        # for ever. It is refused with a warning; the exit code is the gate's.
        env = self.ci_env(self.event())
        os.mkfifo(self.outputs)
        res = run(["ci", "--quiet", "--seed", "5", "--comment", "false"], cwd=self.repo, env=env,
                  timeout=60)
        self.assertExit(res, 1)
        warning = ('himorime: warning: cannot append to "%s": not a regular file (a FIFO)\n'
                   % self.outputs)
        self.assertIn(warning, res.err)
        self.assertEqual(res.err.count(warning), 1, res.err)
        self.assertTrue(res.err.endswith("himorime: exit 1: 1 regression\n"), res.err)
        self.assertTrue(os.path.getsize(self.summary) > 0)

    def test_ci__step_summary_is_cut_at_1_mib_with_a_note(self):
        # GitHub shows 1 MiB of a step's summary, what earlier steps wrote
        # included: ci's summary fills what is left, cut at a line with a note.
        env = self.ci_env(self.event())
        earlier = ("x" * 99 + "\n") * 10465  # 2,076 bytes short of 1 MiB
        with open(self.summary, "w") as f:
            f.write(earlier)
        res = run(["ci", "--quiet", "--seed", "5", "--comment", "false"], cwd=self.repo, env=env,
                  timeout=300)
        self.assertExit(res, 1)
        with open(self.summary, encoding="utf-8") as f:
            text = f.read()
        self.assertLessEqual(os.path.getsize(self.summary), 1 << 20)
        self.assertTrue(text.startswith(earlier))
        note = "\n… cut: the step summary is limited to 1 MiB\n"
        self.assertTrue(text.endswith(note), text[-300:])
        ours = text[len(earlier):-len(note)]
        self.assertIn("himorime", ours)
        self.assertTrue(ours.endswith("\n"), ours)

    def test_ci__a_fifo_as_step_summary_is_an_error_not_a_wait(self):
        env = self.ci_env(self.event())
        os.mkfifo(self.summary)
        res = run(["ci", "--quiet", "--seed", "5", "--comment", "false"], cwd=self.repo, env=env,
                  timeout=60)
        self.assertExit(res, 4)
        self.assertIn('cannot append to "%s": not a regular file (a FIFO)' % self.summary,
                      res.err)
        self.assertRegex(open(self.outputs).read(), r"exit-code<<ghadelimiter_\S+\n4\n")

    def loaded_by_himorime(self, args, extra_env):
        """The files the dynamic loader opened for himorime itself (not its
        children) while it ran args: LD_DEBUG=files writes them to
        <prefix>.<pid>."""
        prefix = os.path.join(self.tmp, "ld")
        env = dict(os.environ, NO_COLOR="1", LD_DEBUG="files", LD_DEBUG_OUTPUT=prefix)
        env.update(extra_env)
        p = subprocess.Popen([HIMORIME] + args, cwd=self.repo, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        p.communicate(timeout=120)
        with open("%s.%d" % (prefix, p.pid)) as f:
            return p.returncode, f.read()

    def test_ci__only_a_command_that_publishes_loads_libcurl(self):
        # docs/performance.md: libcurl costs every process that loads it
        # about 3.6 MiB; run, compare and a ci that will send nothing never
        # load it. One that publishes loads it (the check can fail).
        env = self.ci_env(self.event())
        local = {"GITHUB_ACTIONS": "", "GITHUB_TOKEN": "", "GITHUB_REPOSITORY": ""}
        for args, extra in ((["compare", "--quiet", "--against", "HEAD~1"], {}),
                            (["ci", "--quiet", "--seed", "5", "--comment", "false"], {}),
                            (["ci", "--quiet", "--seed", "5", "--against", "HEAD~1"], local)):
            code, loaded = self.loaded_by_himorime(args, dict(env, **extra))
            self.assertEqual(code, 1, args)
            self.assertIn("libgit2", loaded)
            self.assertNotIn("libcurl", loaded, args)
        code, loaded = self.loaded_by_himorime(["ci", "--quiet", "--seed", "5"], env)
        self.assertEqual(code, 1)
        self.assertIn("calling init: %s/libcurl.so.4" % subprocess.run(
            ["pkg-config", "--variable=libdir", "libcurl"], capture_output=True,
            text=True).stdout.strip(), loaded)

    def test_ci__suite_missing_in_base_is_new_not_a_pass(self):
        self.base = self.head
        self.write("repo/extra/new.himorime.yaml",
                   SUITE.replace("name: gate", "name: fresh").replace("work.c", "../work.c")
                   .replace("ENVFILE", self.envfile))
        self.git("add", "-A")
        self.git("commit", "-qm", "new suite")
        self.head = self.git("rev-parse", "HEAD").strip()
        res = self.ci("extra", code=0)
        log = self.server.log()
        self.assertEqual(log["violations"], [])
        st = log["statuses"][0]
        self.assertEqual((st["state"], st["description"]),
                         ("success", "1 new suite: measured on head only, nothing compared"))
        body = self.our_comments()[0]["body"]
        self.assertIn("\n### ℹ️ himorime: 2 measured on head only\n", body)
        self.assertNotIn("✅", body)
        self.assertRegex(open(self.outputs).read(), r"result<<ghadelimiter_\S+\nnew_suite\n")
        # the only line on stderr says where the JSON report went
        self.assertEqual(res.err, "himorime: the JSON report is in %s\n"
                         % os.path.join(self.tmp, "himorime-report.json"))

    def test_ci__token_reaches_no_child_and_only_the_authorization_header(self):
        self.ci(code=1)
        self.assertNotIn(TOKEN, open(self.envfile).read())
        for r in self.server.log()["requests"]:
            self.assertNotIn(TOKEN, r["path"])
            self.assertNotIn(TOKEN, json.dumps(r["body"]))
            for k, v in r["headers"].items():
                if k.lower() != "authorization":
                    self.assertNotIn(TOKEN, v)
                else:
                    self.assertEqual(v, f"Bearer {TOKEN}")

    def test_ci__second_run_updates_the_same_comment(self):
        self.ci(code=1)
        first = self.our_comments()
        self.ci(code=1)
        second = self.our_comments()
        self.assertEqual(len(second), 1)
        self.assertEqual(first[0]["id"], second[0]["id"])
        methods = [r["method"] for r in self.server.log()["requests"]]
        self.assertIn("PATCH", methods)

    def test_ci__accept_label_keeps_the_report_but_passes(self):
        res = self.ci(event=self.event(labels=["himorime:accept"]), code=0)
        report = json.load(open(os.path.join(self.tmp, "himorime-report.json")))
        cmp = report["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]
        self.assertEqual(cmp["verdict"], "regression")
        self.assertTrue(cmp["accepted"])
        self.assertIn("title=himorime%3A performance regression (accepted)::", res.out)
        self.assertEqual(self.server.log()["statuses"][0]["state"], "success")

    def test_ci__the_base_in_headers_is_the_short_id_and_the_branch(self):
        ev = self.event()
        res = self.ci(event=ev, code=1)
        self.assertIn(f"· compare {self.base[:7]} → {self.head[:7]} ·", res.out)
        self.assertNotIn(self.base, res.out.split("::stop-commands::")[1])
        body = self.our_comments()[0]["body"]
        self.assertIn(f"`base` {self.base[:7]} → `head` {self.head[:7]} ·", body)
        with open(ev) as f:
            payload = json.load(f)
        payload["pull_request"]["base"]["ref"] = "main"
        with open(ev, "w") as f:
            json.dump(payload, f)
        res = self.ci(event=ev, code=1)
        self.assertIn(f"· compare main {self.base[:7]} → {self.head[:7]} ·", res.out)
        body = self.our_comments()[0]["body"]
        self.assertIn(f"`base` main {self.base[:7]} → `head` {self.head[:7]} ·", body)

    def test_ci__an_accepted_regression_is_one_story_everywhere(self):
        res = self.ci(event=self.event(labels=["himorime:accept"]), code=0)
        report = json.load(open(os.path.join(self.tmp, "himorime-report.json")))
        # the other command ("env") is noise: pass, improved or inconclusive
        other = report["suites"][0]["benchmarks"][0]["commands"][1]["result"]
        self.assertIn(other, ("pass", "improved", "inconclusive"))
        count = {"pass": "1 passed", "improved": "1 improved",
                 "inconclusive": "1 inconclusive"}[other]
        self.assertEqual(report["summary"]["accepted_regressions"], 1)
        self.assertEqual(report["summary"]["regression"], 0)
        self.assertEqual(report["summary"][other], 1)
        self.assertEqual(report["suites"][0]["result"], other)
        headline = f"### ⚠️ himorime: 1 accepted regression · {count}\n"
        self.assertIn("\n" + headline, self.our_comments()[0]["body"])
        st = self.server.log()["statuses"][0]
        self.assertEqual((st["state"], st["description"]), ("success", "1 accepted regression"))
        outputs = open(self.outputs).read()
        self.assertRegex(outputs, r"result<<ghadelimiter_\S+\naccepted-regression\nghadelimiter_\S+\n")
        self.assertIn(f"\n{count} · 1 accepted regression · 1 benchmark · seed 5 · exit 0\n",
                      res.out)
        rendered = run(["report", "--format", "github",
                        os.path.join(self.tmp, "himorime-report.json")])
        self.assertIn(headline, rendered.out)

    def test_ci__read_only_token_keeps_the_verdict(self):
        self.server.scenario({"tokens": {TOKEN: None}, "read_only": [TOKEN]})
        res = self.ci(code=1)
        self.assertIn("the token cannot write to this repository", res.err)
        self.assertIn("himorime comment", res.err)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "himorime-report.json")))

    def test_ci__server_failure_is_exit_4_after_the_report(self):
        self.server.scenario({"tokens": {TOKEN: None},
                              "faults": [{"method": "POST", "path": ".*", "count": 100,
                                          "status": 422, "body": {"message": "Validation Failed"}}]})
        res = self.ci(code=4)  # 4 > 1: a job whose gate could not report is not green
        self.assertIn("422", res.err)
        self.assertTrue(res.err.endswith(
            "himorime: exit 4: the comment, check run or status could not be published\n"), res.err)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "himorime-report.json")))

    def test_ci__pull_request_target_is_refused(self):
        res = self.ci(event=self.event(), name="pull_request_target", code=3)
        self.assertIn("pull_request_target", res.err)
        self.assertEqual(self.server.log()["requests"], [])

    def test_ci__push_creating_a_branch_needs_against(self):
        path = self.event(before="0" * 40, after=self.head)
        res = self.ci(event=path, name="push", code=3)
        self.assertIn("--against", res.err)

    def test_issue28_should_fix__the_merge_parent_warning_only_for_a_merge(self):
        # head checked out as itself, two commits above the base: no merge
        self.write("repo/notes.txt", "one more commit\n")
        self.git("add", "-A")
        self.git("commit", "-qm", "notes")
        self.head = self.git("rev-parse", "HEAD").strip()
        res = self.ci("--dry-run", code=1)
        self.assertNotIn("first parent", res.err)
        # a merge whose first parent is not the base: the base moved
        self.git("checkout", "-q", "-b", "side", self.base)
        self.write("repo/side.txt", "side\n")
        self.git("add", "-A")
        self.git("commit", "-qm", "side")
        self.git("checkout", "-q", "main")
        self.git("merge", "-q", "--no-ff", "-m", "merge", "side")
        first = self.git("rev-parse", "HEAD^1").strip()
        res = self.ci("--dry-run", code=1)
        self.assertIn(f"himorime: warning: the checked-out merge's first parent is {first[:12]}, "
                      f"not the pull request's base {self.base[:12]}: the base moved since the "
                      "merge was made\n", res.err)

    def test_issue28_should_fix__a_push_without_ref_names_no_branch(self):
        path = self.event(before="0" * 40, after=self.head)
        res = self.ci(event=path, name="push", code=3)
        self.assertIn("himorime: error: github: push event creates a branch: there is no "
                      "previous revision to compare with;", res.err)
        self.assertNotIn('"?"', res.err)

    def test_ci__dry_run_sends_nothing(self):
        res = self.ci("--dry-run", code=1)
        self.assertIn("himorime: dry run: nothing was sent", res.out)
        self.assertEqual(self.server.log()["requests"], [])

    def test_ci__report_without_runner_temp_goes_to_tmpdir_not_the_tree(self):
        # Issue 11, item 4: nothing is written inside the measured tree.
        private = os.path.join(self.tmp, "private-tmp")
        os.makedirs(private)
        res = run(["ci", "--quiet", "--seed", "5", "--against", "HEAD~1"], cwd=self.repo,
                  env={"TMPDIR": private, "GITHUB_TOKEN": "", "RUNNER_TEMP": ""})
        self.assertExit(res, 1)
        self.assertEqual(self.git("status", "--porcelain", "--ignored"), "")
        made = os.listdir(private)
        self.assertEqual(len(made), 1, made)
        self.assertRegex(made[0], r"^himorime-report-[A-Za-z0-9]{6}$")
        report = os.path.join(private, made[0], "himorime-report.json")
        self.assertIn("himorime: the JSON report is in %s\n" % report, res.err)
        self.assertEqual(json.load(open(report))["summary"]["exit_code"], 1)

    def test_ci__bad_comment_flag(self):
        res = self.ci("--comment", "maybe", code=3)
        self.assertIn('--comment "maybe": expected true or false', res.err)

    def test_comment__posts_a_saved_report_from_a_trusted_event(self):
        report, env = self.saved_report()
        res = run(["comment", report], cwd=self.tmp, env=env)
        self.assertExit(res, 0)
        self.assertEqual(len(self.our_comments()), 1)
        st = self.server.log()["statuses"]
        self.assertEqual(st[0]["sha"], self.head)
        self.assertEqual(st[0]["state"], "failure")

    def test_comment__libraries_in_ld_library_path_are_never_loaded(self):
        # libcurl is loaded by its absolute path, and the dynamic loader
        # searches himorime's DT_RPATH before LD_LIBRARY_PATH for its
        # dependencies (src/github/curl_api.h): a directory of libraries of
        # those names on LD_LIBRARY_PATH is never read.
        report, env = self.saved_report()
        libs = os.path.join(self.tmp, "libs")
        marker = plant_libraries(libs)
        res = run(["comment", report], cwd=self.tmp, env=dict(env, LD_LIBRARY_PATH=libs))
        self.assertExit(res, 0)
        self.assertFalse(os.path.exists(marker), open(marker).read()
                         if os.path.exists(marker) else "")
        self.assertEqual(len(self.our_comments()), 1)

    def test_comment__an_empty_ld_library_path_element_never_reaches_the_checkout(self):
        # An empty element names the working directory, where a pull request
        # can commit a libcurl.so.4 of its own: no code of it ever runs.
        report, env = self.saved_report()
        here = os.path.join(self.tmp, "checkout")
        marker = plant_libraries(here)
        res = run(["comment", report], cwd=here,
                  env=dict(env, LD_LIBRARY_PATH=os.path.join(self.tmp, "none") + ":"))
        self.assertExit(res, 0)
        self.assertFalse(os.path.exists(marker), open(marker).read()
                         if os.path.exists(marker) else "")
        self.assertEqual(len(self.our_comments()), 1)

    def test_comment__a_rate_limit_then_the_installation_tokens_403_still_posts(self):
        # GET /user answers 429 once (retried), then the 403 an installation
        # token always gets there: that 403 is not a rate limit, so the
        # identity is the Actions bot and the comment is posted.
        report, env = self.saved_report()
        self.server.scenario({"tokens": {TOKEN: None}, "faults": [
            {"method": "GET", "path": "/user", "count": 1, "status": 429,
             "headers": {"retry-after": "0"}, "body": {"message": "slow down"}}]})
        res = run(["comment", report], cwd=self.tmp, env=env)
        self.assertExit(res, 0)
        users = [r for r in self.server.log()["requests"] if r["path"] == "/user"]
        self.assertEqual(len(users), 2)
        self.assertEqual(len(self.our_comments()), 1)
        self.assertEqual(self.our_comments()[0]["user"]["login"], "github-actions[bot]")
        self.assertEqual(self.server.log()["statuses"][0]["state"], "failure")

    def test_comment__refuses_a_report_of_another_commit(self):
        # Issue 27: an artifact about another commit (a stale run, another
        # pull request's report) is refused before any request.
        report, env = self.saved_report()
        self.edit_report(report, lambda d: d["git"].update(status_sha=self.base))
        for args in ([], ["--dry-run"]):
            res = run(["comment", *args, report], cwd=self.tmp, env=env)
            self.assertExit(res, 2)
            self.assertEqual(res.err, (
                "himorime: error: %s: the report is about commit %s (git.status_sha), not %s, "
                "the commit of this event (workflow_run.head_sha): refusing to post another "
                "commit's report [HMR2001]\nhimorime: exit 2: invalid input\n")
                % (report, self.base, self.head))
            self.assertEqual(res.out, "")
        self.assertEqual(self.server.log()["requests"], [])

    def test_comment__refuses_a_report_that_names_no_commit(self):
        report, env = self.saved_report()
        cases = [(lambda d: d["git"].pop("status_sha"),
                  "the report names no commit (git.status_sha): post a report that `himorime "
                  "ci` wrote under the event of the run that measured"),
                 (lambda d: d.update(git=None),
                  "the report names no commit (git.status_sha): post a report that `himorime "
                  "ci` wrote under the event of the run that measured"),
                 (lambda d: d["git"].update(status_sha="::error::pwned"),
                  "git.status_sha: expected a 40- or 64-digit commit id")]
        for edit, message in cases:
            with self.subTest(message=message):
                self.saved = report + ".edited"
                with open(report) as f:
                    doc = json.load(f)
                edit(doc)
                with open(self.saved, "w") as f:
                    json.dump(doc, f)
                res = run(["comment", self.saved], cwd=self.tmp, env=env)
                self.assertExit(res, 2)
                self.assertEqual(res.err, "himorime: error: %s: %s [HMR2001]\n"
                                 "himorime: exit 2: invalid input\n" % (self.saved, message))
        self.assertEqual(self.server.log()["requests"], [])

    def test_comment__from_the_pull_request_event_of_the_same_workflow(self):
        # The publishing job of the measuring workflow (`needs:`), on the
        # same pull_request event: the commit and the number from its event.
        report, _ = self.saved_report()
        env = self.ci_env(self.event())
        res = run(["comment", report], cwd=self.tmp, env=env)
        self.assertExit(res, 0)
        self.assertEqual(len(self.our_comments()), 1)
        st = self.server.log()["statuses"]
        self.assertEqual([(s["sha"], s["state"], s["description"], s["target_url"]) for s in st],
                         [(self.head, "failure", "1 regression",
                           "https://github.com/octo/repo/actions/runs/99")])
        self.assertEqual(res.out, "")

    def test_comment__fork_status_is_advisory(self):
        # Issue 27, item 6: the fork's own code made the report and its
        # verdict; the status says it is advisory, and so does the log.
        report, env = self.saved_report(head_repository="forker/repo")
        self.server.scenario({"tokens": {TOKEN: None}, "pulls": {
            "octo/repo/%s" % self.head: [{"number": 7, "head": {
                "sha": self.head, "repo": {"full_name": "forker/repo"}},
                "base": {"repo": {"full_name": "octo/repo"}}}]}})
        res = run(["comment", report], cwd=self.tmp, env=env)
        self.assertExit(res, 0)
        notice = ("the pull request comes from a fork (forker/repo): its report, verdict "
                  "included, was made by the fork's own code, which can forge it. The himorime "
                  "status posted from it is advisory: never make it a required check for pull "
                  "requests from forks (docs/github-actions.md)")
        self.assertEqual(res.out, "::notice title=himorime%3A advisory status (fork)::"
                         + notice + "\n")
        st = self.server.log()["statuses"]
        self.assertEqual([(s["sha"], s["state"], s["description"]) for s in st],
                         [(self.head, "failure", "advisory (fork): 1 regression")])
        self.assertEqual(len(self.our_comments()), 1)
        # outside Actions the same notice goes to stderr
        res = run(["comment", "--dry-run", report], cwd=self.tmp,
                  env=dict(env, GITHUB_ACTIONS="", GITHUB_REPOSITORY=""))
        self.assertExit(res, 0)
        self.assertIn("himorime: notice: " + notice + "\n", res.err)

    def test_comment__rejects_a_hostile_report(self):
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"schema_version": "2", "mode": "compare"}')
        res = run(["comment", "--event", self.event(), bad], cwd=self.tmp,
                  env=self.ci_env(self.event(), "workflow_run"))
        self.assertExit(res, 2)
        self.assertIn("schema_version", res.err)
        self.assertEqual(self.server.log()["requests"], [])


if __name__ == "__main__":
    unittest.main()


HOSTILE = "x\n::error::pwned\r::add-mask::secret\x1b[31m::warning::red"


def obeyed(text):
    """The lines of one stream of a step's log that the Actions runner would
    obey as workflow commands: it splits lines on \\n, \\r\\n and \\r, and
    ignores every command between ::stop-commands::T and ::T::."""
    stop, found = None, []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = line.lstrip()
        if stop:
            if line == f"::{stop}::":
                stop = None
        elif line.startswith("::stop-commands::"):
            stop = line[len("::stop-commands::"):]
        elif line.startswith("::"):
            found.append(line)
    return found


class UntrustedTextTest(CiFixture):
    """Issue 12, items 2 and 3: names from a suite or a fork's report, and a
    command's output, never become workflow commands; any valid suite name
    makes a marker that finds its comment again."""

    def rename_saved_suite(self, name):
        report, env = self.saved_report()
        with open(report) as f:
            doc = json.load(f)
        doc["suites"][0]["name"] = name
        with open(report, "w") as f:
            json.dump(doc, f)
        return report, env

    def rename_suite(self, name):
        text = SUITE.replace("ENVFILE", self.envfile).replace("name: gate",
                                                              "name: " + json.dumps(name))
        self.write("repo/himorime.yaml", text)

    def test_comment__hostile_suite_name_issues_no_workflow_command(self):
        report, env = self.rename_saved_suite(HOSTILE)
        for args in (["--dry-run"], []):
            res = run(["comment", *args, report], cwd=self.tmp, env=env)
            self.assertExit(res, 0)
            self.assertEqual(obeyed(res.out), [], res.out)
            self.assertEqual(obeyed(res.err), [], res.err)
        comments = self.our_comments()
        self.assertEqual(len(comments), 1)
        self.assertTrue(comments[0]["body"].startswith(
            "<!-- himorime:comment v1 suite=x%0A::error::pwned%0D::add-mask::secret%1B%5B31m"
            "::warning::red -->\n"), comments[0]["body"][:200])

    def test_report__hostile_names_and_stderr_issue_no_workflow_command(self):
        report, env = self.rename_saved_suite(HOSTILE)
        with open(report) as f:
            doc = json.load(f)
        doc["suites"][0]["benchmarks"][0]["name"] = HOSTILE
        with open(report, "w") as f:
            json.dump(doc, f)
        for fmt in ("table", "markdown", "github", "csv"):
            res = run(["report", "--format", fmt, report], cwd=self.tmp,
                      env={"GITHUB_ACTIONS": "true"})
            self.assertExit(res, 0)  # rendering succeeds; --check would give the stored 1
            self.assertEqual(obeyed(res.out), [], res.out)
            self.assertEqual(obeyed(res.err), [], res.err)

    def test_run__hostile_stderr_issues_no_workflow_command(self):
        path = self.write("hostile.yaml", f"""version: "1"
name: {json.dumps(HOSTILE)}
benchmarks:
  - name: {json.dumps(HOSTILE)}
    runs: 10
    commands:
      noisy:
        command: ["sh", "-c", "printf '%s' \\"$X\\" >&2; exit 3"]
        env: {{X: {json.dumps(HOSTILE)}}}
""")
        for fmt in ("table", "markdown", "github", "csv"):
            res = run(["run", "--format", fmt, path], cwd=self.tmp,
                      env={"GITHUB_ACTIONS": "true"})
            self.assertExit(res, 4)
            self.assertIn("pwned", res.out)
            self.assertEqual(obeyed(res.out), [], res.out)
            self.assertEqual(obeyed(res.err), [], res.err)

    def test_comment__marker_check_failure_quotes_the_name_on_one_line(self):
        report, env = self.rename_saved_suite(HOSTILE + "a" * 5000)
        res = run(["comment", "--dry-run", report], cwd=self.tmp, env=env)
        self.assertExit(res, 4)
        self.assertEqual(obeyed(res.err), [], res.err)

    def test_ci__suite_names_with_spaces_and_accents_round_trip(self):
        # --fail-on-inconclusive: 1 whether the 4x step is decided or not on
        # a loaded machine; what matters here is that nothing fails with 4.
        for name in ("my benchmarks", "Résumé"):
            self.rename_suite(name)
            res = self.ci("--dry-run", "--fail-on-inconclusive", code=1)
            self.assertIn("himorime: dry run: nothing was sent", res.out)
            self.assertEqual(self.server.log()["requests"], [])
        marker = "<!-- himorime:comment v1 suite=R%C3%A9sum%C3%A9 -->"
        self.assertIn(marker, res.out)
        self.ci("--fail-on-inconclusive", code=1)
        self.ci("--fail-on-inconclusive", code=1)
        comments = self.our_comments()
        self.assertEqual(len(comments), 1)
        self.assertTrue(comments[0]["body"].startswith(marker + "\n"))

    def test_comment__suite_name_with_a_space_round_trips(self):
        report, env = self.rename_saved_suite("my benchmarks")
        for _ in range(2):
            self.assertExit(run(["comment", report], cwd=self.tmp, env=env), 0)
        comments = self.our_comments()
        self.assertEqual(len(comments), 1)
        self.assertTrue(comments[0]["body"].startswith(
            "<!-- himorime:comment v1 suite=my%20benchmarks -->\n"))
