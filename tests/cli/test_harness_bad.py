"""Bad harness output end to end (docs/configuration.md, "Harnesses"): more
benchmarks than one output may hold, hostile benchmark names in every format
himorime writes, units that differ between base and head, a harness killed
in the middle of its output, values that are no time, truncated output; and
a long list of harness benchmarks in the pull-request comment
(docs/reports.md, "The pull-request comment"). Each asserts the message,
the exit code, that nothing the harness started is left running, that no
temporary directory is left (PrivateTmpTest) and that the report is whole.
The harnesses are short Python or sh scripts printing `lines`."""
import csv
import io
import json
import os
import re
import time
import unittest

from harness import DATA, GitRepoTest, PrivateTmpTest, alive, suite

EVENT = os.path.join(DATA, "events", "workflow_run_same_repo.json")
with open(EVENT) as _f:
    HEAD_SHA = json.load(_f)["workflow_run"]["head_sha"]


def line(name, value, unit="ms"):
    return json.dumps({"name": name, "value": value, "unit": unit, "better": "lower"})


def commands(doc):
    return {c["name"]: c for c in doc["suites"][0]["benchmarks"][0]["commands"]}


def errors(doc):
    """{command: (result, head error message)} of the first benchmark."""
    return {n: (c["result"], c["head"]["error"]["message"] if c["head"]["error"] else None)
            for n, c in commands(doc).items()}


class Helpers:
    def assertGone(self, pid_file):
        """The process whose pid the harness wrote in pid_file is gone."""
        with open(pid_file) as f:
            pid = int(f.read().split()[0])
        deadline = time.time() + 5
        while alive(pid) and time.time() < deadline:
            time.sleep(0.05)
        self.assertFalse(alive(pid), "process %d left running" % pid)

    def assertWhole(self, doc_text, last_line):
        """A report that parses, and a table whose last line is there."""
        doc = json.loads(doc_text)
        self.assertEqual(doc["schema_version"], "1")
        self.assertRegex(last_line, r" · seed \d+ · exit \d$")


class ManyBenchmarksTest(PrivateTmpTest, Helpers):
    def test_harness_bad__a_hundred_thousand_benchmarks_stop_at_the_cap(self):
        # 100,000 names on stdout; a child left behind in the background
        self.write("gen.py", "import json, subprocess, sys\n"
                   "p = subprocess.Popen(['sleep', '300'])\n"
                   "open(sys.argv[1], 'w').write(str(p.pid))\n"
                   "for i in range(100000):\n"
                   "    print(json.dumps({'name': 'case/%06d' % i, 'value': 1, "
                   "'unit': 'ms', 'better': 'lower'}))\n")
        pid_file = os.path.join(self.tmp, "pid")
        self.write("himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    runs: 3\n    commands:\n"
            "      h: {command: [python3, gen.py, %s], harness: lines}\n" % json.dumps(pid_file)))
        out = os.path.join(self.tmp, "r.json")
        res = self.run_h(["run", "--format", "table", "-o", out], cwd=self.tmp)
        self.assertEqual(res.code, 4, repr(res))
        self.assertTrue(res.err.endswith("himorime: exit 4: 1 command failed\n"), res.err)
        with open(out) as f:
            text = f.read()
        self.assertIn("\n  - b › h: the harness output failed: head warmup 1: stdout:1001: "
                      "$.name: more than 1000 benchmarks\n", text)
        self.assertTrue(text.endswith(" · exit 4\n"), text[-200:])
        res = self.run_h(["run", "--format", "json"], cwd=self.tmp)
        self.assertEqual(res.code, 4, repr(res))
        doc = json.loads(res.out)
        self.assertEqual(commands(doc)["h"]["head"]["error"], {
            "kind": "harness_output", "exit_code": None, "stderr": "", "metric": None,
            "message": "head warmup 1: stdout:1001: $.name: more than 1000 benchmarks"})
        self.assertEqual(doc["summary"]["exit_code"], 4)
        self.assertGone(pid_file)


class KilledTest(PrivateTmpTest, Helpers):
    def test_harness_bad__a_harness_killed_mid_output_is_an_error_naming_the_run(self):
        # `first` kills itself in its first run (the warmup) after half a
        # line; `later` in its second measured run, after one whole
        # benchmark of two; both leave a child sleeping behind
        half = "printf '%%s\\n' '%s'; printf '%%s' '%s'" % (line("a", 1), line("b", 1)[:20])
        whole = "printf '%%s\\n' '%s' '%s'" % (line("a", 1), line("b", 1))
        script = ("sleep 300 & echo $! > %s; n=$(cat ${workdir}/%s 2>/dev/null || echo 0); "
                  "n=$((n+1)); echo $n > ${workdir}/%s; "
                  "if [ $n -ge %d ]; then %s; kill -9 $$; fi; %s")
        first = script % (os.path.join(self.tmp, "pid1"), "n1", "n1", 1, half, whole)
        later = script % (os.path.join(self.tmp, "pid2"), "n2", "n2", 3, half, whole)
        self.write("himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    runs: 3\n    commands:\n"
            "      first: {command: %s, shell: true, harness: lines}\n"
            "      later: {command: %s, shell: true, harness: lines}\n"
            % (json.dumps(first), json.dumps(later))))
        res = self.run_h(["run", "--format", "json"], cwd=self.tmp)
        self.assertEqual(res.code, 4, repr(res))
        self.assertTrue(res.err.endswith("himorime: exit 4: 3 commands failed\n"), res.err)
        doc = json.loads(res.out)
        self.assertEqual(errors(doc), {
            "first": ("error", "head warmup 1: killed by signal 9 (SIGKILL)"),
            "later › a": ("error", "head run 2: killed by signal 9 (SIGKILL)"),
            "later › b": ("error", "head run 2: killed by signal 9 (SIGKILL)"),
        })
        self.assertEqual(commands(doc)["later › a"]["head"]["metrics"]["latency"]["samples"],
                         [1e6])
        self.assertEqual(commands(doc)["first"]["head"]["error"]["kind"], "exit_code")
        self.assertGone(os.path.join(self.tmp, "pid1"))
        self.assertGone(os.path.join(self.tmp, "pid2"))


class ValuesTest(PrivateTmpTest, Helpers):
    def test_harness_bad__negative_infinite_and_truncated_output_say_where(self):
        def echo(text):
            return json.dumps(["printf", "%s", text])
        self.write("himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    runs: 3\n    commands:\n"
            "      negative: {command: %s, harness: lines}\n"
            "      huge: {command: %s, harness: lines}\n"
            "      infinity: {command: %s, harness: lines}\n"
            "      cut: {command: %s, harness: lines}\n"
            "      cut-json: {command: %s, harness: hyperfine}\n"
            % (echo(line("a", -1)), echo(line("a", "1e999").replace('"1e999"', "1e999")),
               echo(line("a", "Infinity").replace('"Infinity"', "Infinity")),
               echo(line("a", 1) + "\n" + line("b", 1)[:20]),
               echo('{"results": [{"command": "x", "mean": 1, "times": [1, 2'))))
        res = self.run_h(["run", "--format", "json"], cwd=self.tmp)
        self.assertEqual(res.code, 4, repr(res))
        self.assertTrue(res.err.endswith("himorime: exit 4: 5 commands failed\n"), res.err)
        self.assertEqual(errors(json.loads(res.out)), {
            "negative": ("error", "head warmup 1: stdout:1: $.value: expected a number >= 0, "
                                  "got -1"),
            "huge": ("error", "head warmup 1: stdout:1: $.value: time: expected a finite "
                              "number >= 0, got inf"),
            "infinity": ("error", "head warmup 1: stdout:1:24: expected a finite number, "
                                  "got Infinity"),
            "cut": ("error", "head warmup 1: stdout:2:21: unexpected end of the document"),
            "cut-json": ("error", "head warmup 1: stdout:1:56: unexpected end of the "
                                  "document"),
        })


class UnitsTest(GitRepoTest, Helpers):
    def test_harness_bad__a_unit_that_differs_between_base_and_head_is_an_error(self):
        # a: a time on base, bytes on head; k: ms on base, the same time
        # in us on head (one quantity: it compares)
        self.write("repo/bench.sh", "echo '%s'\necho '%s'\n" % (line("a", 1), line("k", 1)))
        self.write("repo/himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    runs: 10\n    commands:\n"
            "      h: {command: [sh, bench.sh], harness: lines}\n"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.write("repo/bench.sh", "echo '%s'\necho '%s'\n"
                   % (line("a", 1, "bytes"), line("k", 1000, "us")))
        self.git("commit", "-qam", "a in bytes")
        res = self.run_h(["compare", "--against", "HEAD~1", "--format", "json"], cwd=self.repo)
        self.assertEqual(res.code, 4, repr(res))
        self.assertTrue(res.err.endswith("himorime: exit 4: 1 command failed\n"), res.err)
        doc = json.loads(res.out)
        self.assertEqual(errors(doc), {
            "h › a": ("error", 'head warmup 1: the output reports no "time" for this benchmark'),
            "h › k": ("pass", None),
        })
        self.assertEqual(commands(doc)["h › a"]["base"]["error"], None)


# Names a report must never let through as markup or workflow commands.
HOSTILE = ["nl\nx", "::error::pwned", "a\n::warning::pwned", "<script>alert(1)</script>",
           "a|b`c`", "[x](javascript:alert(1))"]


class HostileNamesTest(GitRepoTest, Helpers):
    def compare(self):
        """A comparison where <script>… is 30% slower on head and the others
        pass; returns the path of its JSON report."""
        def script(slow):
            return "import json\nfor n in %r:\n    print(json.dumps({'name': n, 'value': " \
                   "%s if n.startswith('<') else 1, 'unit': 'ms', 'better': 'lower'}))\n" \
                   % (HOSTILE, slow)
        self.write("repo/bench.py", script(1))
        self.write("repo/himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    runs: 10\n    commands:\n"
            "      h: {command: [python3, bench.py], harness: lines}\n"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.write("repo/bench.py", script(1.3))
        self.git("commit", "-qam", "slower")
        out = os.path.join(self.tmp, "r.json")
        res = self.run_h(["compare", "--against", "HEAD~1", "--format", "json", "-o", out,
                          "--summary", os.path.join(self.tmp, "summary.md")], cwd=self.repo,
                         env={"GITHUB_ACTIONS": "true"})
        self.assertEqual(res.code, 1, repr(res))
        self.assertEqual(res.out, "")
        self.assertFalse(re.search(r"^::", res.err, re.M), res.err)
        return out

    def assertQuoted(self, text):
        """Under Actions what himorime prints is between the workflow
        commands that stop and resume workflow commands, with a token found
        nowhere in between: a name's "::error::" there is text."""
        lines = text.splitlines()
        token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[0]).group(1)
        self.assertEqual(lines[-1], "::%s::" % token)
        self.assertNotIn(token, "\n".join(lines[1:-1]))

    def render(self, report, fmt):
        res = self.run_h(["report", "--format", fmt, report], cwd=self.tmp,
                         env={"GITHUB_ACTIONS": "true"})
        self.assertEqual(res.code, 0, repr(res))
        self.assertQuoted(res.out)
        return res.out.split("\n", 1)[1].rsplit("::", 2)[0]

    def test_harness_bad__hostile_names_are_escaped_in_every_format(self):
        report = self.compare()
        with open(report) as f:
            doc = json.load(f)
        # JSON: the names exactly as the harness printed them
        self.assertEqual([c["harness"]["benchmark"] for c in commands(doc).values()],
                         sorted(HOSTILE, key=HOSTILE.index))
        self.assertEqual(commands(doc)["h › <script>alert(1)</script>"]["result"], "regression")
        # CSV and samples CSV: quoted, read back exactly
        for fmt in ("csv", "samples-csv"):
            rows = list(csv.DictReader(io.StringIO(self.render(report, fmt))))
            self.assertEqual(sorted({r["command"] for r in rows}),
                             sorted("h › " + n for n in HOSTILE), fmt)
        # terminal table: a line break is a space
        table = self.render(report, "table")
        self.assertIn("\nb          h › nl x          ", table)
        self.assertIn("\nb          h › a ::warning::pwned  ", table)
        # Markdown, the job summary and the comment: escaped
        cells = ["b › h › nl x", "b › h › ::error::pwned", "b › h › a ::warning::pwned",
                 "b › h › &lt;script&gt;alert(1)&lt;/script&gt;", "b › h › a\\|b\\`c\\`",
                 "b › h › \\[x\\](javascript:alert(1))"]
        comment = self.comment(report)
        for fmt, text in (("markdown", self.render(report, "markdown")),
                          ("github", self.render(report, "github")), ("comment", comment)):
            # the chart's labels are text in a code fence (checked below)
            text = re.sub(r"```mermaid\n.*?```\n", "", text, flags=re.S)
            for cell in cells:
                self.assertIn("| %s |" % cell, text, fmt)
            self.assertNotIn("<script", text, fmt)
            self.assertNotIn("[x](javascript", text, fmt)
            self.assertFalse(re.search(r"^::", text, re.M), fmt)
        self.assertIn("\n| ❌ | b › h › &lt;script&gt;alert(1)&lt;/script&gt; | latency | "
                      "1.00 ms | 1.30 ms | **+30.0%** (+30.0% … +30.0%) | regression beyond "
                      "±5% |\n", comment)
        # the chart's labels: Mermaid entities, no line break
        self.assertIn('    x-axis ["b › h › #lt;script#gt;alert(1)#lt;/script#gt;", '
                      '"b › h › nl x", "b › h › ::error::pwned", "b › h › a ::warning::pwned", '
                      '"b › h › a|b#96;c#96;", "b › h › [x](javascript:alert(1))"]\n', comment)
        # HTML: entities; nothing runs
        html = self.render(report, "html")
        self.assertNotIn("<script", html.lower())
        self.assertIn("b › h › &lt;script&gt;alert(1)&lt;/script&gt;", html)
        # the step summary the comparison appended: the github rendering
        with open(os.path.join(self.tmp, "summary.md")) as f:
            self.assertEqual(f.read(), self.render(report, "github"))

    def comment(self, report):
        """The pull-request comment as `comment --dry-run` prints it."""
        with open(report) as f:
            doc = json.load(f)
        doc["git"]["status_sha"] = HEAD_SHA
        path = self.write("c.json", json.dumps(doc))
        res = self.run_h(["comment", "--dry-run", "--event", EVENT, path], cwd=self.tmp)
        self.assertEqual(res.code, 0, repr(res))
        return res.out.split("--- comment ---\n", 1)[1]


LONG_BENCH = """import json
HEAD = %s
for i in range(300):
    ms = 1 + i / 1000
    if HEAD:
        # three +30%% (regressions), two -30%% (improvements), the others
        # within 4%%, no two of the same size
        v = i * 37 %% 301
        f = (1.30 if i in (7, 150, 299) else 0.70 if i in (20, 21)
             else 1 + (-v if v %% 2 else v) / 7600)
        ms *= f
    print(json.dumps({"name": "case/%%03d/" %% i + "x" * 200, "value": round(ms, 6),
                      "unit": "ms", "better": "lower"}))
"""


class LongListTest(GitRepoTest, Helpers):
    def test_harness_bad__three_hundred_benchmarks_fold_under_the_comment_limit(self):
        self.write("repo/bench.py", LONG_BENCH % False)
        self.write("repo/himorime.yaml", suite(
            "benchmarks:\n  - name: b\n    runs: 10\n    commands:\n"
            "      h: {command: [python3, bench.py], harness: lines}\n", name="long"))
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        self.write("repo/bench.py", LONG_BENCH % True)
        self.git("commit", "-qam", "head")
        report = os.path.join(self.tmp, "r.json")
        res = self.run_h(["compare", "--against", "HEAD~1", "--format", "json", "-o", report],
                         cwd=self.repo)
        self.assertEqual(res.code, 1, repr(res))
        body = HostileNamesTest.comment(self, report)
        x = "x" * 200

        def label(i):
            return "b › h › case/%03d/%s" % (i, x)
        size = {i: i * 37 % 301 for i in range(300) if i not in (7, 150, 299, 20, 21)}
        largest = sorted(size, key=lambda i: (-size[i], i))
        self.assertLess(len(body.encode()), 65000)
        self.assertNotIn("**Cut:**", body)
        top = body[:body.index("<details>")].splitlines()
        self.assertEqual(top[1], "### ❌ himorime: 3 regressions · 2 improved · 295 passed")
        self.assertEqual([l.split(" | ")[1] for l in top if l.startswith("| ❌ |")],
                         [label(i) for i in (7, 150, 299)])
        self.assertIn("2 improved · 295 passed", top)
        # the chart: the regressions, then the largest changes
        axis = next(l for l in top if l.startswith("    x-axis "))
        self.assertEqual(re.findall(r"case/(\d+)/", axis),
                         ["%03d" % i for i in [7, 150, 299, 20, 21] + largest[:15]])
        # folded: the problems and the 20 largest changes, then the others
        # largest first, as many as fit, and a line for the rest
        first = body.split("<summary>Problems and the 20 largest changes")[1]
        first = first.split("</details>")[0]
        self.assertEqual(re.findall(r"\| b › h › case/(\d+)/", first),
                         ["%03d" % i for i in [7, 150, 299, 20, 21] + largest[:18]])
        other = body.split("<summary>The other comparisons: ")[1].split("</details>")[0]
        shown = re.findall(r"\| b › h › case/(\d+)/", other)
        self.assertEqual([s for s in re.findall(r"<summary>(.*)</summary>", body)
                          if not s.startswith("Notes")][:2],
                         ["Problems and the 20 largest changes: 23 comparisons",
                          "The other comparisons: %d" % len(shown)])
        self.assertGreater(len(shown), 50)
        self.assertEqual(shown, ["%03d" % i for i in largest[18:18 + len(shown)]])
        self.assertIn("\n… and the comparisons of %d more commands, with smaller changes: the "
                      "job summary and the JSON report list every one.\n"
                      % (295 - 18 - len(shown)), other)
        self.assertTrue(body.rstrip("\n").endswith("· seed %d"
                                                   % json.load(open(report))["seed"]))
        self.assertIn("<summary>How this was decided</summary>", body)
        self.assertEqual(body.count("<details>"), body.count("</details>"))


if __name__ == "__main__":
    unittest.main()
