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


if __name__ == "__main__":
    unittest.main()

