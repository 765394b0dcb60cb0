"""The pull-request comment `himorime comment` posts, read as the fake GitHub API
on 127.0.0.1 (tests/github/server.py) receives it: what a reviewer sees above
the first <details> whatever the suite's size, the 65,536-character limit, and
--hide-footer. The reports are the pull-request fixture (tests/data/reports/
v1-pr.json) grown to 30 benchmarks, all inconclusive or all regressed."""
import copy
import json
import os
import unittest

from harness import DATA, TempDirTest, run
from test_ci import Server

TOKEN = "ghs_commenttest0123456789"
EVENT = os.path.join(DATA, "events", "workflow_run_same_repo.json")
FIXTURE = os.path.join(DATA, "reports", "v1-pr.json")
MARKER = "<!-- himorime:comment v1 suite=bench -->"
with open(EVENT) as _f:
    HEAD_SHA = json.load(_f)["workflow_run"]["head_sha"]


def grown(n, verdict, name="case"):
    """v1-pr.json with its first benchmark ("parse 5 MiB": latency, cpu_total
    and peak_rss compared) repeated n times, latency and cpu_total of each
    given `verdict` with intervals that widen from one to the next (and what
    each could see widening with them)."""
    with open(FIXTURE) as f:
        doc = json.load(f)
    suite = doc["suites"][0]
    model = suite["benchmarks"][0]
    benches = []
    for i in range(n):
        b = copy.deepcopy(model)
        b["name"] = "%s %02d" % (name, i + 1)
        cmd = b["commands"][0]
        for metric in ("latency", "cpu_total"):
            k = cmd["comparisons"][metric]
            k["verdict"] = verdict
            if verdict == "inconclusive":
                width = 4.0 + (i % 7) * 0.5
                k["change_percent"] = 1.0 + i % 3
                k["reason"] = "the interval still straddles the tolerance after 33 pairs"
            else:
                width = 3.0
                k["change_percent"] = 16.0 + i % 5
                k["reason"] = ""
            k["ci_low_percent"] = k["change_percent"] - width
            k["ci_high_percent"] = k["change_percent"] + width
            # what it could see, as the judge stores it (docs/comparison.md,
            # "What a comparison could see"): the band's edge times the
            # interval's half-width on the log scale
            c, lo, hi = (1 + k[f] / 100 for f in ("change_percent", "ci_low_percent",
                                                    "ci_high_percent"))
            k["detectable_high_percent"] = (1.05 * c / lo - 1) * 100
            k["detectable_low_percent"] = (0.95 * c / hi - 1) * 100
        cmd["result"] = b["result"] = verdict
        benches.append(b)
    suite["benchmarks"] = benches
    suite["result"] = verdict
    s = doc["summary"]
    for state in ("pass", "improved", "inconclusive", "regression"):
        s[state] = 0
    s[verdict] = n
    s["benchmarks"] = s["commands"] = n
    s["skipped"] = 0
    s["exit_code"] = 1 if verdict == "regression" else 0
    # `comment` posts a report only for the commit of its event.
    doc["git"]["status_sha"] = HEAD_SHA
    return doc


def above_the_fold(body):
    """The lines a reviewer sees before the first <details>."""
    return body[:body.index("<details>")].splitlines()


class CommentTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.server = Server(os.path.join(self.tmp, "api"), {"tokens": {TOKEN: None}})
        self.addCleanup(self.server.stop)

    def post(self, doc, *flags):
        """Posts doc with `himorime comment`; returns the body the API got."""
        path = os.path.join(self.tmp, "report.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        env = {"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": EVENT,
               "GITHUB_REPOSITORY": "octo/repo", "GITHUB_API_URL": self.server.url,
               "GITHUB_SERVER_URL": "https://github.com", "GITHUB_TOKEN": TOKEN}
        res = run(["comment", *flags, path], cwd=self.tmp, env=env)
        self.assertExit(res, 0)
        log = self.server.log()
        self.assertEqual(log["violations"], [])
        comments = log["issues"]["octo/repo/42"]
        self.assertEqual(len(comments), 1)
        return comments[0]["body"]

    def test_comment__thirty_inconclusive_are_one_line_above_the_fold(self):
        body = self.post(grown(30, "inconclusive"))
        top = above_the_fold(body)
        self.assertEqual(len(top), 16, "\n".join(top))
        self.assertEqual(top[0], MARKER)
        self.assertEqual(top[1], "### ⚠️ himorime: 30 inconclusive")
        self.assertEqual(top[5], "30 inconclusive: the runner was too noisy to tell ±5%; "
                                 "could see changes beyond ±9.2% to ±12.8%")
        # no problem table, no bullet repeating each reason above the fold
        self.assertFalse([l for l in top if l.startswith("|") or l.startswith("- ")], top)
        self.assertEqual(top[7:9], ["```mermaid", "xychart-beta"])
        self.assertEqual(top[14:], ["```", ""])
        # the reasons are kept, folded
        self.assertIn("<summary>Notes: 61</summary>", body)
        self.assertIn("<summary>All comparisons: 90</summary>", body)
        self.assertNotIn("Statistics of every run", body)
        # 500 lines and 52,370 bytes before the comment was reshaped
        self.assertEqual((body.count("\n"), len(body.encode())), (244, 24661))
        self.assertTrue(body.endswith(
            "[Job summary and full report](https://github.com/octo/repo/actions/runs/"
            "9876543210) · himorime 0.1.0 · seed 8461290137\n"), body[-300:])

    def test_comment__thirty_regressions_show_ten_rows_and_count_the_rest(self):
        body = self.post(grown(30, "regression"))
        top = above_the_fold(body)
        self.assertEqual(len(top), 29, "\n".join(top))
        self.assertEqual(top[1], "### ❌ himorime: 30 regressions")
        self.assertEqual(top[5], "|  | benchmark › command | metric | base | head | "
                                 "change (interval) | what happened |")
        rows = [l for l in top if l.startswith("| ❌ |")]
        self.assertEqual(len(rows), 10)
        self.assertEqual(rows[0], "| ❌ | case 01 › parser | latency | 41.3 ms | 47.9 ms | "
                                  "**+16.0%** (+13.0% … +19.0%) | regression beyond ±5% |")
        self.assertEqual(top[18], "… and 50 more problems, in the details below.")
        self.assertEqual(top[20:22], ["```mermaid", "xychart-beta"])
        # 440 lines and 39,851 bytes before the comment was reshaped
        self.assertEqual((body.count("\n"), len(body.encode())), (197, 16454))

    def test_comment__a_huge_suite_is_cut_under_65536_characters_with_a_note(self):
        body = self.post(grown(600, "regression", name="a long benchmark name " * 4))
        self.assertLess(len(body), 65536)
        self.assertLessEqual(len(body.encode()), 65000)
        self.assertEqual(len(above_the_fold(body)), 29)
        self.assertIn("\n> ⚠️ **Cut:** this report is longer than GitHub shows here; the full "
                      "report is in the JSON artifact.\n", body)
        self.assertEqual(body.count("<details>"), body.count("</details>"))
        self.assertEqual(body.count("```") % 2, 0)
        # the link to the full report survives the cut
        self.assertTrue(body.endswith("· himorime 0.1.0 · seed 8461290137\n"), body[-300:])

    def test_comment__hide_footer_leaves_out_the_last_line(self):
        body = self.post(grown(2, "regression"), "--hide-footer")
        self.assertNotIn("· seed 8461290137", body)
        self.assertNotIn("Job summary and full report", body)
        self.assertTrue(body.endswith("</details>\n\n"), body[-200:])
        with_footer = self.post(grown(2, "regression"))
        self.assertEqual(with_footer[:len(body)], body)

    def test_comment__hide_footer_is_in_help_and_takes_no_value(self):
        res = run(["comment", "--hide-footer=yes", FIXTURE], cwd=self.tmp)
        self.assertExit(res, 3)
        res = run(["help", "comment"], cwd=self.tmp)
        self.assertIn("--hide-footer", res.out)


if __name__ == "__main__":
    unittest.main()
