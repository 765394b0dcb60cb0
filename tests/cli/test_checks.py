"""The check run `himorime` (issue 32), read as the fake GitHub API on
127.0.0.1 (tests/github/server.py) receives it: the requests in order and
their bodies, created or updated, annotations 50 per request, the conclusion,
a token that may not write check runs (the status instead, one notice), a
commit the repository does not have (422), retries, the fork's advisory
summary, --verdict-as and the suite's report.error_conclusion.

Most cases post saved reports with `himorime comment` (the pull-request
fixture grown to N benchmarks, with the suite lines `ci` writes); the `ci`
cases measure a real repository (test_ci's, 4x slower head) and check what
happens while it measures."""
import copy
import json
import os
import shutil
import unittest

from harness import DATA, run
from test_ci import TOKEN as CI_TOKEN, CiFixture, SUITE, Server
from test_comment import EVENT, HEAD_SHA, TempDirTest, grown

TOKEN = "ghs_checkstoken0123456789"
PAT = "ghp_personaltoken0123456789"
FORK_EVENT = os.path.join(DATA, "events", "workflow_run_fork.json")
RUN_URL = "https://github.com/octo/repo/actions/runs/9876543210"
LIST = ("/repos/octo/repo/commits/%s/check-runs?check_name=himorime&filter=all&per_page=100"
        % HEAD_SHA)
ANNOTATIONS = "/repos/octo/repo/check-runs/5001/annotations?per_page=100"
COMMENT_REQUESTS = [("GET", "/user"), ("GET", "/repos/octo/repo/issues/42/comments?per_page=100"),
                    ("POST", "/repos/octo/repo/issues/42/comments"),
                    ("GET", "/repos/octo/repo/issues/42/comments?per_page=100")]
STATUS = ("POST", "/repos/octo/repo/statuses/" + HEAD_SHA)
REFUSED_NOTICE = (
    "himorime: notice: the token may not write check runs (github: GET %s: 403 Forbidden: "
    "Resource not accessible by integration): the commit status is posted instead; for the "
    "check run `himorime` with annotations on the suite, give the job `checks: write` (or "
    "pass --verdict-as status to post the status alone) (docs/github-actions.md)\n" % LIST)


def with_lines(doc):
    """The report as `ci` writes it: each benchmark's and command's line in
    the suite file (benchmark i at 4 + 5i, its command 3 lines below)."""
    for i, b in enumerate(doc["suites"][0]["benchmarks"]):
        b["line"] = 4 + 5 * i
        for c in b["commands"]:
            c["line"] = b["line"] + 3
    return doc


def regression_annotation(doc, i, metric):
    b = doc["suites"][0]["benchmarks"][i]
    k = b["commands"][0]["comparisons"][metric]
    return {"path": "himorime.yaml", "start_line": b["line"] + 3, "end_line": b["line"] + 3,
            "annotation_level": "failure", "title": "himorime: performance regression",
            "message": "%s › parser: %s +%.1f%% (+%.1f%% … +%.1f%%, 99%% confidence)"
                       % (b["name"], metric, k["change_percent"], k["ci_low_percent"],
                          k["ci_high_percent"])}


def top_part(comment):
    """What the check run's summary must be: the comment between its
    headline and its first <details>."""
    lines = comment.split("\n")
    assert lines[0].startswith("<!-- himorime:comment") and lines[1].startswith("### ")
    rest = "\n".join(lines[2:]).lstrip("\n")
    return rest[:rest.index("\n<details>") + 1].rstrip("\n") + "\n"


class CheckRunTest(TempDirTest):
    """`himorime comment` posting a saved report."""

    def setUp(self):
        super().setUp()
        self.server = Server(os.path.join(self.tmp, "api"), {"tokens": {TOKEN: None}})
        self.addCleanup(self.server.stop)

    def post(self, doc, *flags, code=0, event=EVENT, token=TOKEN):
        path = os.path.join(self.tmp, "report.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        env = {"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": event,
               "GITHUB_REPOSITORY": "octo/repo", "GITHUB_API_URL": self.server.url,
               "GITHUB_SERVER_URL": "https://github.com", "GITHUB_TOKEN": token}
        res = run(["comment", *flags, path], cwd=self.tmp, env=env)
        self.assertExit(res, code)
        self.assertEqual(self.server.log()["violations"], [])
        return res

    def requests(self):
        return [(r["method"], r["path"]) for r in self.server.log()["requests"]]

    def bodies(self, method, path_part):
        return [json.loads(r["body"]) for r in self.server.log()["requests"]
                if r["method"] == method and path_part in r["path"]]

    def runs(self):
        return self.server.log()["check_runs"]

    def comment_body(self):
        return self.server.log()["issues"]["octo/repo/42"][0]["body"]

    def test_checks__created_completed_with_title_summary_text_and_annotations(self):
        doc = with_lines(grown(2, "regression"))
        res = self.post(doc)
        self.assertEqual(res.err, "")
        self.assertEqual(self.requests(), COMMENT_REQUESTS + [
            ("GET", LIST), ("POST", "/repos/octo/repo/check-runs"), STATUS])
        [body] = self.bodies("POST", "/check-runs")
        text = body["output"].pop("text")
        self.assertEqual(body, {
            "name": "himorime", "head_sha": HEAD_SHA, "details_url": RUN_URL,
            "external_id": "bench", "status": "completed", "conclusion": "failure",
            "output": {"title": "❌ himorime: 2 regressions",
                       "summary": top_part(self.comment_body()),
                       "annotations": [regression_annotation(doc, 0, "latency"),
                                       regression_annotation(doc, 0, "cpu_total"),
                                       regression_annotation(doc, 1, "latency"),
                                       regression_annotation(doc, 1, "cpu_total")]}})
        # the whole report: the job summary, statistics of every run included
        rendered = run(["report", "--format", "github", os.path.join(self.tmp, "report.json")])
        self.assertEqual(text.split("\n")[:-2], rendered.out.split("\n")[:-2])
        self.assertIn("Statistics of every run", text)
        self.assertTrue(text.startswith("### ❌ himorime: 2 regressions\n\n"), text[:80])
        self.assertIn("[Job summary and full report](%s)" % RUN_URL, text)
        self.assertEqual(top_part(self.comment_body()).split("\n")[0],
                         "`base` main a1b2c3d → `head` e4f5a6b · 2 benchmarks, 2 commands · "
                         "linux x86\\_64, 2 CPUs · 94.5 s")
        [run_] = self.runs()
        self.assertEqual((run_["id"], run_["status"], run_["conclusion"], run_["app"]["slug"],
                          len(run_["annotations"])), (5001, "completed", "failure",
                                                      "github-actions", 4))
        self.assertEqual(self.server.log()["statuses"][0]["state"], "failure")

    def test_checks__120_problems_are_annotated_50_per_request(self):
        doc = with_lines(grown(60, "regression"))
        self.post(doc)
        self.assertEqual(self.requests()[4:], [
            ("GET", LIST), ("POST", "/repos/octo/repo/check-runs"),
            ("PATCH", "/repos/octo/repo/check-runs/5001"),
            ("PATCH", "/repos/octo/repo/check-runs/5001"), STATUS])
        first = self.bodies("POST", "/check-runs")[0]
        later = self.bodies("PATCH", "/check-runs/5001")
        expected = [regression_annotation(doc, i, m) for i in range(60)
                    for m in ("latency", "cpu_total")]
        self.assertEqual([len(b["output"]["annotations"]) for b in [first] + later], [50, 50, 20])
        self.assertEqual(first["output"]["annotations"] + later[0]["output"]["annotations"]
                         + later[1]["output"]["annotations"], expected)
        # the later requests add annotations and repeat the output, nothing else
        for b in later:
            self.assertEqual(set(b), {"output"})
            self.assertEqual({k: v for k, v in b["output"].items() if k != "annotations"},
                             {k: v for k, v in first["output"].items() if k != "annotations"})
        self.assertEqual(first["conclusion"], "failure")
        [run_] = self.runs()
        self.assertEqual(run_["annotations"], expected)
        self.assertEqual(run_["output"]["title"], "❌ himorime: 60 regressions")

    def test_checks__a_rerun_updates_its_check_run_without_repeating_annotations(self):
        doc = with_lines(grown(2, "regression"))
        self.post(doc)
        first = len(self.requests())
        self.post(doc)
        self.assertEqual(self.requests()[first + 4:], [
            ("GET", LIST), ("GET", ANNOTATIONS),
            ("PATCH", "/repos/octo/repo/check-runs/5001"), STATUS])
        [body] = self.bodies("PATCH", "/check-runs/5001")
        self.assertNotIn("annotations", body["output"])
        self.assertEqual((body["name"], body["status"], body["conclusion"], body["external_id"]),
                         ("himorime", "completed", "failure", "bench"))
        self.assertNotIn("head_sha", body)
        [run_] = self.runs()
        self.assertEqual(len(run_["annotations"]), 4)

    def test_checks__a_rerun_whose_numbers_moved_adds_only_the_new_annotations(self):
        self.server.scenario({"tokens": {TOKEN: None}, "check_runs": [{
            "name": "himorime", "head_sha": HEAD_SHA, "status": "completed",
            "conclusion": "success", "external_id": "bench",
            "output": {"title": "✅ himorime: 2 passed", "summary": "old"},
            "annotations": [regression_annotation(with_lines(grown(2, "regression")), 0,
                                                  "latency")]}]})
        doc = with_lines(grown(2, "regression"))
        doc["suites"][0]["benchmarks"][1]["commands"][0]["comparisons"]["latency"][
            "change_percent"] = 19.5
        self.post(doc)
        [body] = self.bodies("PATCH", "/check-runs/5001")
        self.assertEqual(body["output"]["annotations"], [
            regression_annotation(doc, 0, "cpu_total"), regression_annotation(doc, 1, "latency"),
            regression_annotation(doc, 1, "cpu_total")])
        self.assertEqual(len(self.runs()[0]["annotations"]), 4)

    def test_checks__a_stale_in_progress_run_is_completed_and_others_are_left_alone(self):
        runs = [
            # ours, left in_progress by a job that died
            {"name": "himorime", "head_sha": HEAD_SHA, "status": "in_progress",
             "external_id": "bench", "output": {"title": "himorime is measuring", "summary": "s"}},
            # another app's check of the same name, and ours of another selection
            {"name": "himorime", "head_sha": HEAD_SHA, "status": "in_progress",
             "external_id": "bench", "app": {"slug": "other-app", "id": 9}},
            {"name": "himorime", "head_sha": HEAD_SHA, "status": "in_progress",
             "external_id": "other"},
        ]
        self.server.scenario({"tokens": {TOKEN: None}, "check_runs": runs})
        self.post(with_lines(grown(1, "regression")))
        self.assertEqual(self.requests()[4:], [
            ("GET", LIST), ("PATCH", "/repos/octo/repo/check-runs/5001"), STATUS])
        states = [(r["id"], r["status"], r["conclusion"]) for r in self.runs()]
        self.assertEqual(states, [(5001, "completed", "failure"), (5002, "in_progress", None),
                                  (5003, "in_progress", None)])

    def test_checks__only_inconclusive_is_neutral_and_a_pass_is_success(self):
        self.post(with_lines(grown(2, "inconclusive")))
        self.assertEqual(self.runs()[0]["conclusion"], "neutral")
        self.assertEqual(self.runs()[0]["output"]["title"], "⚠️ himorime: 2 inconclusive")
        self.assertEqual(self.runs()[0]["annotations"], [])
        self.post(with_lines(grown(2, "pass")))
        self.assertEqual(self.runs()[0]["conclusion"], "success")

    def errored(self, neutral, regression=False):
        doc = with_lines(grown(2, "regression" if regression else "pass"))
        b = doc["suites"][0]["benchmarks"][1 if regression else 0]
        b["result"] = b["commands"][0]["result"] = "error"
        b["commands"][0]["head"]["error"] = {
            "kind": "exit_code", "message": "exited with status 3", "exit_code": 3,
            "stderr": None, "metric": None}
        doc["suites"][0]["result"] = "error"
        s = doc["summary"]
        s["error"] = 1
        s["pass" if not regression else "regression"] -= 1
        s["exit_code"] = 4
        if neutral:
            doc["suites"][0]["error_conclusion"] = "neutral"
        return doc

    def test_checks__errors_fail_unless_the_suite_asks_for_neutral(self):
        for neutral, regression, conclusion in ((False, False, "failure"),
                                                (True, False, "neutral"),
                                                (True, True, "failure")):
            with self.subTest(neutral=neutral, regression=regression):
                self.server.scenario({"tokens": {TOKEN: None}})
                doc = self.errored(neutral, regression)
                self.post(doc)
                [run_] = self.runs()
                self.assertEqual(run_["conclusion"], conclusion)
                line = doc["suites"][0]["benchmarks"][1 if regression else 0]["line"] + 3
                self.assertIn({"path": "himorime.yaml", "start_line": line, "end_line": line,
                               "annotation_level": "failure",
                               "title": "himorime: benchmark could not run",
                               "message": "case 0%d › parser (head): exited with status 3"
                                          % (2 if regression else 1)}, run_["annotations"])
                self.assertEqual(self.server.log()["statuses"][0]["state"], "error")

    def test_checks__a_broken_budget_and_regressions_that_do_not_fail_are_annotated(self):
        # case 01: latency accepted by the label, cpu_total not gated (warnings);
        # case 02: its p95 latency budget broken (a failure)
        doc = with_lines(grown(2, "pass"))
        first, second = doc["suites"][0]["benchmarks"]
        k = first["commands"][0]["comparisons"]
        for metric, flags in (("latency", {"accepted": True}), ("cpu_total", {"gate": False})):
            k[metric].update(flags, verdict="regression", change_percent=16.0,
                             ci_low_percent=13.0, ci_high_percent=19.0)
        first["commands"][0]["result"] = first["result"] = "regression"
        budget = second["commands"][0]["budgets"][0]
        budget.update(limit=40000000, text="<= 40ms", status="fail", **{"pass": False})
        second["commands"][0]["result"] = second["result"] = "over_budget"
        doc["suites"][0]["result"] = "over_budget"
        doc["summary"].update({"pass": 0, "regression": 1, "over_budget": 1,
                               "accepted_regressions": 1, "exit_code": 1})
        self.post(doc)
        [run_] = self.runs()
        self.assertEqual(run_["conclusion"], "failure")
        self.assertEqual(run_["annotations"], [
            {"path": "himorime.yaml", "start_line": 7, "end_line": 7,
             "annotation_level": "warning",
             "title": "himorime: performance regression (accepted)",
             "message": "case 01 › parser: latency +16.0% (+13.0% … +19.0%, 99% confidence)"},
            {"path": "himorime.yaml", "start_line": 7, "end_line": 7,
             "annotation_level": "warning",
             "title": "himorime: performance regression (not gated)",
             "message": "case 01 › parser: cpu_total +16.0% (+13.0% … +19.0%, 99% confidence)"},
            {"path": "himorime.yaml", "start_line": 12, "end_line": 12,
             "annotation_level": "failure", "title": "himorime: performance budget exceeded",
             "message": "case 02 › parser: latency p95 50.2 ms, budget <= 40ms"}])

    def test_checks__a_404_is_a_refusal_like_a_403(self):
        # a token that cannot see check runs (a private repository's read-only
        # token): the status instead, one notice, the exit code unchanged
        self.server.scenario({"tokens": {TOKEN: None}, "faults": [
            {"method": "GET", "path": ".*/check-runs", "count": 1, "status": 404,
             "body": {"message": "Not Found"}}]})
        res = self.post(with_lines(grown(1, "regression")))
        self.assertEqual(res.err, REFUSED_NOTICE.replace(
            "403 Forbidden: Resource not accessible by integration", "404 Not Found: Not Found"))
        self.assertEqual(self.requests()[4:], [("GET", LIST), STATUS])
        self.assertEqual(self.runs(), [])
        self.assertEqual(self.server.log()["statuses"][0]["state"], "failure")

    def test_checks__a_token_without_checks_write_posts_the_status_and_one_notice(self):
        self.server.scenario({"tokens": {TOKEN: None},
                              "permissions": {TOKEN: ["pull-requests", "statuses"]}})
        res = self.post(with_lines(grown(2, "regression")))
        self.assertEqual(res.err, REFUSED_NOTICE)
        self.assertEqual(self.requests()[4:], [("GET", LIST), STATUS])
        self.assertEqual(self.runs(), [])
        self.assertEqual(self.server.log()["statuses"][0]["state"], "failure")
        # --verdict-as check: the status all the same, as the notice says
        self.server.scenario({"tokens": {TOKEN: None},
                              "permissions": {TOKEN: ["pull-requests", "statuses"]}})
        res = self.post(with_lines(grown(2, "regression")), "--verdict-as", "check")
        self.assertEqual(res.err, REFUSED_NOTICE)
        self.assertEqual(self.requests()[4:], [("GET", LIST), STATUS])

    def test_checks__a_personal_token_cannot_write_check_runs(self):
        self.server.scenario({"tokens": {PAT: {"login": "perf-bot", "type": "User"}}})
        res = self.post(with_lines(grown(1, "regression")), token=PAT)
        self.assertEqual(res.err, REFUSED_NOTICE.replace(
            "GET %s: 403 Forbidden: Resource not accessible by integration" % LIST,
            "POST /repos/octo/repo/check-runs: 403 Forbidden: You must authenticate via a "
            "GitHub App."))
        self.assertEqual(self.requests()[4:], [
            ("GET", LIST), ("POST", "/repos/octo/repo/check-runs"), STATUS])
        self.assertEqual(len(self.server.log()["statuses"]), 1)

    def test_checks__verdict_as_status_or_check(self):
        doc = with_lines(grown(1, "regression"))
        self.post(doc, "--verdict-as", "status")
        self.assertEqual(self.requests()[4:], [STATUS])
        self.assertEqual(self.runs(), [])
        self.server.scenario({"tokens": {TOKEN: None}})
        self.post(doc, "--verdict-as=check")
        self.assertEqual(self.requests()[4:], [("GET", LIST),
                                               ("POST", "/repos/octo/repo/check-runs")])
        self.assertEqual(self.server.log()["statuses"], [])

    def test_checks__a_bad_verdict_as_is_a_usage_error(self):
        res = self.post(with_lines(grown(1, "regression")), "--verdict-as", "checks", code=3)
        self.assertIn('himorime: error: --verdict-as "checks": expected status, check or both',
                      res.err)
        self.assertEqual(self.requests(), [])

    def test_checks__a_commit_the_repository_does_not_have_is_422_and_exit_4(self):
        self.server.scenario({"tokens": {TOKEN: None}, "commits": ["a" * 40]})
        res = self.post(with_lines(grown(1, "regression")), code=4)
        self.assertEqual(res.err, (
            "himorime: error: github: GET %s: 422 Unprocessable Entity: No commit found for "
            "SHA: %s [HMR4001]\nhimorime: exit 4: the comment, check run or status could not "
            "be published\n") % (LIST, HEAD_SHA))
        # the status is tried too, and refused the same way
        self.assertEqual(self.requests()[4:], [("GET", LIST), STATUS])
        self.assertEqual(self.runs(), [])

    def test_checks__5xx_and_rate_limits_are_retried(self):
        self.server.scenario({"tokens": {TOKEN: None}, "faults": [
            {"method": "GET", "path": ".*/check-runs", "count": 1, "status": 502},
            {"method": "POST", "path": ".*/check-runs", "count": 1, "status": 403,
             "headers": {"retry-after": "0"},
             "body": {"message": "You have exceeded a secondary rate limit."}},
            {"method": "PATCH", "path": ".*/check-runs/5001", "count": 1, "status": 429,
             "headers": {"retry-after": "0"}, "body": {"message": "slow down"}}]})
        res = self.post(with_lines(grown(30, "regression")))
        self.assertEqual(res.err, "")
        self.assertEqual(self.requests()[4:], [
            ("GET", LIST), ("GET", LIST), ("POST", "/repos/octo/repo/check-runs"),
            ("POST", "/repos/octo/repo/check-runs"), ("PATCH", "/repos/octo/repo/check-runs/5001"),
            ("PATCH", "/repos/octo/repo/check-runs/5001"), STATUS])
        self.assertEqual(len(self.runs()[0]["annotations"]), 60)

    def test_checks__a_persistent_500_is_exit_4_and_the_status_is_still_posted(self):
        self.server.scenario({"tokens": {TOKEN: None}, "faults": [
            {"method": "POST", "path": ".*/check-runs", "count": 100, "status": 500}]})
        res = self.post(with_lines(grown(1, "regression")), code=4)
        self.assertTrue(res.err.startswith(
            "himorime: error: github: POST /repos/octo/repo/check-runs: 500 Internal Server "
            "Error: fault [HMR4001]\n"), res.err)
        self.assertEqual(self.requests().count(("POST", "/repos/octo/repo/check-runs")), 4)
        self.assertEqual(self.server.log()["statuses"][0]["state"], "failure")

    def test_checks__a_fork_says_whose_figures_these_are(self):
        with open(FORK_EVENT) as f:
            sha = json.load(f)["workflow_run"]["head_sha"]
        self.server.scenario({"tokens": {TOKEN: None}, "pulls": {
            "octo/repo/%s" % sha: [{"number": 42, "head": {
                "sha": sha, "repo": {"full_name": "forker/repo"}},
                "base": {"repo": {"full_name": "octo/repo"}}}]}})
        doc = with_lines(grown(1, "regression"))
        doc["git"]["status_sha"] = sha
        self.post(doc, event=FORK_EVENT)
        # on the event's commit, looked up as the status is
        self.assertIn(("GET", LIST.replace(HEAD_SHA, sha)), self.requests())
        [run_] = self.runs()
        self.assertEqual(run_["head_sha"], sha)
        self.assertEqual(self.server.log()["statuses"][0]["sha"], sha)
        summary = run_["output"]["summary"]
        self.assertTrue(summary.startswith(
            "> **Advisory (fork):** these figures come from the fork's own job "
            "(`forker/repo`): its code made this report and could have forged it. Never make "
            "this check required for pull requests from forks.\n\n`base` main a1b2c3d"),
            summary[:300])

    def test_checks__several_suites_name_the_check_run(self):
        doc = with_lines(grown(1, "regression"))
        other = copy.deepcopy(doc["suites"][0])
        other["name"] = "io, net"
        other["file"] = "./bench//io.himorime.yaml"
        doc["suites"].append(other)
        self.post(doc)
        [run_] = self.runs()
        self.assertEqual((run_["name"], run_["external_id"]), ("himorime (bench, io, net)",
                                                               "bench,io, net"))
        self.assertEqual(self.requests()[4][1], LIST.replace(
            "check_name=himorime", "check_name=himorime%20%28bench%2C%20io%2C%20net%29"))
        self.assertEqual(sorted({a["path"] for a in run_["annotations"]}),
                         ["bench/io.himorime.yaml", "himorime.yaml"])

    def test_checks__annotations_go_only_on_paths_inside_the_repository(self):
        # a report is untrusted: an absolute path outside the workspace or
        # one with a line break gets no annotation (the text has the problem);
        # one under GITHUB_WORKSPACE is made relative to it
        doc = with_lines(grown(1, "regression"))
        for name, file in (("abs", "/etc/passwd"), ("abs2", "//etc/passwd"), ("nl", "a\nb.yaml"),
                           ("ws", "/work/space/bench/w.himorime.yaml")):
            other = copy.deepcopy(doc["suites"][0])
            other["name"], other["file"] = name, file
            doc["suites"].append(other)
        path = os.path.join(self.tmp, "report.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        env = {"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": EVENT,
               "GITHUB_REPOSITORY": "octo/repo", "GITHUB_API_URL": self.server.url,
               "GITHUB_SERVER_URL": "https://github.com", "GITHUB_TOKEN": TOKEN,
               "GITHUB_WORKSPACE": "/work/space/"}
        self.assertExit(run(["comment", path], cwd=self.tmp, env=env), 0)
        [run_] = self.runs()
        self.assertEqual([(a["path"], a["start_line"]) for a in run_["annotations"]],
                         [("himorime.yaml", 7), ("himorime.yaml", 7),
                          ("bench/w.himorime.yaml", 7), ("bench/w.himorime.yaml", 7)])

    def test_checks__a_huge_report_is_cut_under_the_limit_with_a_note(self):
        doc = with_lines(grown(600, "regression", name="a long benchmark name " * 4))
        self.post(doc)
        [run_] = self.runs()
        out = run_["output"]
        self.assertLessEqual(len(out["text"].encode()), 65000)
        self.assertIn("> ⚠️ **Cut:** this report is longer than GitHub shows here; the full "
                      "report is in the JSON artifact.\n", out["text"])
        self.assertEqual(out["text"].count("<details>"), out["text"].count("</details>"))
        self.assertEqual(len(run_["annotations"]), 1000)
        self.assertTrue(out["summary"].endswith(
            "\nThe first 1000 of 1200 problems are annotated; the text below has them all.\n"),
            out["summary"][-300:])
        # 1 + 19 requests of 50
        self.assertEqual(self.requests().count(("PATCH", "/repos/octo/repo/check-runs/5001")), 19)

    def test_checks__a_dry_run_describes_the_check_run(self):
        res = self.post(with_lines(grown(2, "regression")), "--dry-run")
        self.assertIn("\nGET %s (every page)\nPATCH /repos/octo/repo/check-runs/{id} of ours, "
                      "or POST /repos/octo/repo/check-runs on %s if there is none: name "
                      "\"himorime\", status completed, conclusion failure, title \"❌ himorime: "
                      "2 regressions\", summary of " % (LIST, HEAD_SHA), res.out)
        self.assertIn("; 4 annotations in 1 request (at most 50 each)\nPOST "
                      "/repos/octo/repo/statuses/", res.out)
        self.assertEqual(self.requests(), [])


class CiCheckRunTest(CiFixture):
    """`himorime ci` with a token: in_progress while it measures."""

    def with_setup(self, text):
        """The suite with a setup hook on the `work` benchmark."""
        suite = SUITE.replace("ENVFILE", self.envfile).replace(
            "    warmup: 0\n", "    warmup: 0\n    setup:\n      - {command: %s, shell: true}\n"
            % json.dumps(text))
        self.write("repo/himorime.yaml", suite)

    def test_ci__in_progress_while_measuring_then_completed(self):
        # the setup hook copies what the API holds while himorime measures
        during = os.path.join(self.tmp, "during.json")
        self.with_setup("cp %s %s" % (os.path.join(self.server.dir, "log.json"), during))
        self.ci(code=1)
        with open(during) as f:
            seen = json.load(f)
        list_ = ("/repos/octo/repo/commits/%s/check-runs?check_name=himorime&filter=all"
                 "&per_page=100" % self.head)
        self.assertEqual([(r["method"], r["path"]) for r in seen["requests"]],
                         [("GET", list_), ("POST", "/repos/octo/repo/check-runs")])
        self.assertEqual(json.loads(seen["requests"][1]["body"]), {
            "name": "himorime", "head_sha": self.head,
            "details_url": "https://github.com/octo/repo/actions/runs/99",
            "external_id": "gate", "status": "in_progress",
            "output": {"title": "himorime is measuring",
                       "summary": "Comparing this commit with its base; the verdict comes when "
                                  "the run ends: [the run](https://github.com/octo/repo/actions/"
                                  "runs/99).\n"}})
        self.assertEqual([(r["status"], r["conclusion"]) for r in seen["check_runs"]],
                         [("in_progress", None)])
        log = self.server.log()
        self.assertEqual(log["violations"], [])
        requests = [(r["method"], r["path"]) for r in log["requests"]]
        self.assertEqual(requests[2:], [
            ("GET", "/user"), ("GET", "/repos/octo/repo/issues/7/comments?per_page=100"),
            ("POST", "/repos/octo/repo/issues/7/comments"),
            ("GET", "/repos/octo/repo/issues/7/comments?per_page=100"),
            ("PATCH", "/repos/octo/repo/check-runs/5001"),
            ("POST", "/repos/octo/repo/statuses/" + self.head)])
        [run_] = log["check_runs"]
        self.assertEqual((run_["status"], run_["conclusion"]), ("completed", "failure"))
        # the annotation sits on the line of the command `work` in the suite
        with open(os.path.join(self.repo, "himorime.yaml")) as f:
            written = f.read().split("\n")
        line = written.index("      work:") + 1
        self.assertIn({"path": "himorime.yaml", "start_line": line, "end_line": line,
                       "annotation_level": "failure", "title": "himorime: performance regression",
                       "message": run_["annotations"][0]["message"]}, run_["annotations"])
        self.assertRegex(run_["annotations"][0]["message"],
                         r"^work › work: latency \+\d+\.\d% \(\+\d+\.\d% … \+\d+\.\d%, 99% "
                         r"confidence\)$")
        with open(os.path.join(self.tmp, "himorime-report.json")) as f:
            report = json.load(f)
        bench = report["suites"][0]["benchmarks"][0]
        self.assertEqual((bench["line"], bench["commands"][0]["line"]),
                         (written.index("  - name: work") + 1, line))

    def test_ci__a_check_run_a_dead_job_left_in_progress_is_taken_over(self):
        self.server.scenario({"tokens": {CI_TOKEN: None}, "check_runs": [
            {"name": "himorime", "head_sha": self.head, "status": "in_progress",
             "external_id": "gate", "details_url": "https://github.com/octo/repo/actions/runs/98",
             "output": {"title": "himorime is measuring", "summary": "s"}}]})
        self.ci(code=1)
        log = self.server.log()
        patches = [json.loads(r["body"]) for r in log["requests"] if r["method"] == "PATCH"]
        self.assertEqual([(p["status"], p["details_url"]) for p in patches],
                         [("in_progress", "https://github.com/octo/repo/actions/runs/99"),
                          ("completed", "https://github.com/octo/repo/actions/runs/99")])
        self.assertEqual([(r["id"], r["status"], r["conclusion"]) for r in log["check_runs"]],
                         [(5001, "completed", "failure")])
        self.assertNotIn("POST", [r["method"] for r in log["requests"]
                                  if "/check-runs" in r["path"]])

    def test_ci__a_broken_budget_says_what_was_measured_in_both_annotations(self):
        suite = SUITE.replace("ENVFILE", self.envfile).replace(
            '        command: ["${artifact}"]\n',
            '        command: ["${artifact}"]\n        budget: {latency: {median: "<= 1us"}}\n')
        self.write("repo/himorime.yaml", suite)
        self.git("commit", "-qam", "a budget no process keeps")
        self.head = self.git("rev-parse", "HEAD").strip()
        res = self.ci(code=1)
        line = suite.split("\n").index("      work:") + 1
        message = r"work › work: latency median \d+(\.\d+)? ms, budget <= 1us"
        # the measuring job's workflow command and the check run's annotation
        self.assertRegex(res.out, r"::error file=himorime.yaml,line=%d,title=himorime%%3A "
                                  r"performance budget exceeded::%s\n" % (line, message))
        [run_] = self.server.log()["check_runs"]
        [budget] = [a for a in run_["annotations"]
                    if a["title"] == "himorime: performance budget exceeded"]
        self.assertEqual((budget["start_line"], budget["annotation_level"]), (line, "failure"))
        self.assertRegex(budget["message"], "^%s$" % message)
        self.assertIn("::%s\n" % budget["message"], res.out)

    def test_ci__a_rerun_of_a_completed_check_run_waits_for_the_end(self):
        self.ci(code=1)
        first = self.server.log()
        self.ci(code=1)
        log = self.server.log()
        checks = [(r["method"], r["path"]) for r in log["requests"][len(first["requests"]):]
                  if "/check-runs" in r["path"]]
        # the start finds it completed and leaves it; the end updates it
        self.assertEqual(checks, [
            ("GET", "/repos/octo/repo/commits/%s/check-runs?check_name=himorime&filter=all"
                    "&per_page=100" % self.head),
            ("GET", "/repos/octo/repo/check-runs/5001/annotations?per_page=100"),
            ("PATCH", "/repos/octo/repo/check-runs/5001")])
        first = first["check_runs"]
        self.assertEqual(len(log["check_runs"]), 1)
        self.assertEqual(log["check_runs"][0]["id"], first[0]["id"])

    def test_ci__without_checks_write_the_status_goes_and_nothing_is_in_progress(self):
        self.server.scenario({"tokens": {CI_TOKEN: None},
                              "permissions": {CI_TOKEN: ["pull-requests", "statuses"]}})
        res = self.ci(code=1)
        log = self.server.log()
        self.assertEqual(log["check_runs"], [])
        self.assertEqual([r["method"] for r in log["requests"] if "/check-runs" in r["path"]],
                         ["GET"])
        self.assertEqual(res.err.count("himorime: notice: the token may not write check runs"), 1)
        self.assertEqual(log["statuses"][0]["state"], "failure")
        self.assertTrue(res.err.endswith("himorime: exit 1: 1 regression\n"), res.err)

    def test_ci__a_read_only_token_gives_one_notice_and_the_gates_exit_code(self):
        # a fork's own run: its token may read, not write; the refused check
        # run adds no notice of its own to the read-only one
        self.server.scenario({"tokens": {CI_TOKEN: None}, "read_only": [CI_TOKEN]})
        res = self.ci(code=1)
        log = self.server.log()
        self.assertEqual([(r["method"], r["path"].split("?")[0]) for r in log["requests"]
                          if r["method"] != "GET" or "/check-runs" in r["path"]], [
            ("GET", "/repos/octo/repo/commits/%s/check-runs" % self.head),
            ("POST", "/repos/octo/repo/check-runs"),
            ("POST", "/repos/octo/repo/issues/7/comments")])
        self.assertEqual((log["check_runs"], log["statuses"]), ([], []))
        self.assertEqual(res.err.count("himorime: notice:"), 1, res.err)
        self.assertIn("himorime: notice: the token cannot write to this repository", res.err)
        self.assertTrue(res.err.endswith("himorime: exit 1: 1 regression\n"), res.err)

    def test_ci__a_failed_start_is_a_warning_and_the_end_creates_it(self):
        # the API fails all 4 tries when the comparison starts: one warning,
        # the measurement goes on, the end creates the check run completed
        self.server.scenario({"tokens": {CI_TOKEN: None}, "faults": [
            {"method": "GET", "path": ".*/check-runs", "count": 4, "status": 503,
             "headers": {"retry-after": "0"}}]})
        res = self.ci(code=1)
        log = self.server.log()
        list_ = ("/repos/octo/repo/commits/%s/check-runs?check_name=himorime&filter=all"
                 "&per_page=100" % self.head)
        self.assertEqual([(r["method"], r["path"]) for r in log["requests"]
                          if "/check-runs" in r["path"]],
                         [("GET", list_)] * 5 + [("POST", "/repos/octo/repo/check-runs")])
        self.assertEqual([(r["status"], r["conclusion"]) for r in log["check_runs"]],
                         [("completed", "failure")])
        self.assertEqual(log["statuses"][0]["state"], "failure")
        self.assertIn("himorime: warning: the check run could not be started (github: GET %s: "
                      "503 Service Unavailable: fault): it is tried again at the end\n" % list_,
                      res.err)
        self.assertTrue(res.err.endswith("himorime: exit 1: 1 regression\n"), res.err)

    def test_ci__a_commit_the_repository_does_not_have_is_exit_4(self):
        # 422 when it starts (a warning) and at the end (the error): the
        # comment is posted, the status tried, the exit code 4
        self.server.scenario({"tokens": {CI_TOKEN: None}, "commits": ["a" * 40]})
        res = self.ci(code=4)
        log = self.server.log()
        self.assertEqual((log["check_runs"], log["statuses"]), ([], []))
        self.assertEqual(len(self.our_comments()), 1)
        list_ = ("/repos/octo/repo/commits/%s/check-runs?check_name=himorime&filter=all"
                 "&per_page=100" % self.head)
        self.assertEqual([(r["method"], r["path"]) for r in log["requests"]
                          if "/check-runs" in r["path"] or "/statuses/" in r["path"]],
                         [("GET", list_), ("GET", list_),
                          ("POST", "/repos/octo/repo/statuses/" + self.head)])
        refused = "github: GET %s: 422 Unprocessable Entity: No commit found for SHA: %s" % (
            list_, self.head)
        self.assertIn("himorime: warning: the check run could not be started (%s): it is "
                      "tried again at the end\n" % refused, res.err)
        self.assertIn("himorime: error: %s [HMR4001]\n" % refused, res.err)
        self.assertTrue(res.err.endswith("himorime: exit 4: the comment, check run or status "
                                         "could not be published\n"), res.err)

    def failing_suite(self, neutral):
        report = "report: {error_conclusion: neutral}\n" if neutral else ""
        self.write("repo/himorime.yaml", 'version: "1"\nname: gate\n' + report + (
            "benchmarks:\n  - name: broken\n    runs: 10\n    commands:\n"
            "      fails: {command: [\"false\"]}\n"))
        self.git("add", "-A")
        self.git("commit", "-qm", "a suite that fails")
        self.base = self.git("rev-parse", "HEAD").strip()
        self.write("repo/notes.txt", "a change, neutral: %s\n" % neutral)
        self.git("add", "-A")
        self.git("commit", "-qm", "notes")
        self.head = self.git("rev-parse", "HEAD").strip()

    def test_ci__error_conclusion_neutral_makes_a_failed_run_neutral(self):
        for neutral, conclusion in ((False, "failure"), (True, "neutral")):
            with self.subTest(neutral=neutral):
                self.failing_suite(neutral)
                self.server.scenario({"tokens": {CI_TOKEN: None}})
                self.ci(code=4)
                [run_] = self.server.log()["check_runs"]
                self.assertEqual(run_["conclusion"], conclusion)
                self.assertEqual(run_["annotations"][0]["start_line"], 8 if neutral else 7)
                with open(os.path.join(self.tmp, "himorime-report.json")) as f:
                    report = json.load(f)
                self.assertEqual(report["suites"][0].get("error_conclusion"),
                                 "neutral" if neutral else None)

    def test_ci__a_run_that_stops_before_publishing_completes_its_check_run(self):
        # the report cannot be written (its directory is missing): exit 4,
        # nothing published, and the check run is not left in_progress
        self.failing_suite(True)
        missing = os.path.join(self.tmp, "missing", "r.json")
        res = self.ci("--format", "json", "--output", missing, code=4)
        log = self.server.log()
        [run_] = log["check_runs"]
        self.assertEqual((run_["status"], run_["conclusion"], run_["output"]["title"]),
                         ("completed", "neutral", "himorime stopped before its report (exit 4)"))
        self.assertEqual(log["statuses"], [])
        self.assertIn("himorime: exit 4: the report could not be written\n", res.err)

    def test_ci__a_bad_verdict_as_is_a_usage_error_before_anything_runs(self):
        res = self.ci("--verdict-as", "all", code=3)
        self.assertIn('--verdict-as "all": expected status, check or both', res.err)
        self.assertEqual(self.server.log()["requests"], [])


class SuiteKeyTest(TempDirTest):
    def test_error_conclusion_is_checked(self):
        path = self.write("s.yaml", 'version: "1"\nname: s\nreport:\n  error_conclusion: maybe\n'
                          'benchmarks:\n  - name: b\n    commands:\n      a: {command: ["true"]}\n')
        res = run(["validate", path])
        self.assertExit(res, 2)
        self.assertIn("s.yaml:4:21: report.error_conclusion: expected failure or neutral, got "
                      "\"maybe\"", res.err)


if __name__ == "__main__":
    unittest.main()
