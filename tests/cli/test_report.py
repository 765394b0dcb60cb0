"""`himorime report`: re-rendering saved documents in every format (against the
golden files), the stored exit code, hostile and malformed inputs (exact
messages), atomic writes that fail without harming the previous file, marked
sections, the GitHub summary, colour on terminals, and the HTML charts checked
against the data they draw."""
import html.parser
import json
import math
import os
import pty
import resource
import signal
import subprocess
import unittest

from harness import DATA, HIMORIME, TempDirTest, run

REPORTS = os.path.join(DATA, "reports")
GOLDEN = os.path.join(DATA, "render")
FORMATS = ["table", "json", "csv", "samples-csv", "markdown", "github", "html"]
STORED = {"v1-calibrate": 0, "v1-compare": 4, "v1-minimal": 0, "v1-pr": 1, "v1-run": 4,
          "v1-counts": 1, "v1-command-counts": 1, "v1-duet": 0, "v1-calibrate-schedules": 0}
INVALID = "himorime: exit 2: invalid input\n"


def minimal():
    with open(os.path.join(REPORTS, "v1-minimal.json")) as f:
        return f.read()


def edited(change):
    doc = json.loads(minimal())
    change(doc)
    return json.dumps(doc)


BASE = minimal()
LATENCY = "$.suites[0].benchmarks[0].commands[0].head"
# name -> (file content (str or bytes), the error message after "himorime: error: NAME.json")
HOSTILE = {
    "truncated": (BASE[:200], ":8:29: unexpected end of the document"),
    "empty": ("", ":1:1: empty document"),
    "not-json": ("hello\n", ":1:1: invalid JSON"),
    "wrong-version": (edited(lambda d: d.update(schema_version="2")),
                      ': $.schema_version: expected "1", got "2"'),
    "version-number": (edited(lambda d: d.update(schema_version=1)),
                       ': $.schema_version: expected "1", got 1'),
    "no-version": ("{}", ': $.schema_version: missing; expected "1"'),
    "unknown-mode": (edited(lambda d: d.update(mode="walk")),
                     ': $.mode: expected "run", "compare" or "sweep", got "walk"'),
    "seed-string": (edited(lambda d: d.update(seed="42")),
                    ': $.seed: expected an integer from 0 to 9007199254740991, got "42"'),
    "seed-2-53": (BASE.replace('"seed": 42', '"seed": 9007199254740992'),
                  ": $.seed: expected an integer from 0 to 9007199254740991, got 9007199254740992"),
    "seed-negative": (BASE.replace('"seed": 42', '"seed": -1'),
                      ": $.seed: expected an integer from 0 to 9007199254740991, got -1"),
    "huge-number": (BASE.replace("[1100000, 1200000, 1300000]", "[1e999, 1200000, 1300000]"),
                    f": {LATENCY}.metrics.latency.samples[0]: expected an integer from 0 to "
                    "9007199254740991, got a number out of range"),
    "sample-string": (BASE.replace("[1100000, 1200000, 1300000]", '[1100000, "x", 1300000]'),
                      f": {LATENCY}.metrics.latency.samples[1]: expected an integer from 0 to "
                      '9007199254740991, got "x"'),
    "fractional-count": (BASE.replace('"count": 3', '"count": 3.5'),
                         f": {LATENCY}.count: expected an integer from 0 to 9007199254740991, "
                         "got 3.5"),
    "nan": (BASE.replace("[1100000, 1200000, 1300000]", "[NaN]"), ":29:98: invalid JSON"),
    "deep-nesting": (BASE.replace('"git": null', '"extra": ' + "[" * 200 + "]" * 200
                                  + ', "git": null'), ":9:75: nested deeper than 64 levels"),
    "long-string": (BASE.replace('"himorime_version": "0.1.0"',
                                 '"himorime_version": "' + "a" * 70000 + '"'),
                    ": $.himorime_version: string longer than 65536 bytes"),
    "bom": ("\ufeff" + BASE, ":1:1: starts with a byte order mark; expected plain UTF-8"),
    "duplicate-key": (BASE.replace('"mode": "run",', '"mode": "run", "mode": "compare",'),
                      ': $: duplicate key "mode"'),
    "suites-object": (edited(lambda d: d.update(suites={})),
                      ": $.suites: expected an array, got an object"),
    "top-array": ("[]", ": $: expected an object, got an array"),
    "trend-confidence": (
        edited(lambda d: d["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]
               ["latency"].update(trend={"slope": 1, "slope_low": 0.5, "slope_high": 1.5,
                                         "confidence": 0.95, "min_detectable_slope": 0.5,
                                         "growing": True})),
        f": {LATENCY}.metrics.latency.trend.confidence: expected 0.99, got 0.95"),
    "trend-growing-string": (
        edited(lambda d: d["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]
               ["latency"].update(trend={"slope": 1, "growing": "yes"})),
        f': {LATENCY}.metrics.latency.trend.growing: expected true or false, got "yes"'),
    "invalid-utf8": (BASE.encode().replace(b'"himorime.yaml"', b'"h\xffi"'),
                     ":13:17: invalid UTF-8"),
    "control-char": (BASE.replace('"file": "himorime.yaml"', '"file": "a\u0001b"'),
                     ":13:17: control character in a string"),
    "unknown-result": (BASE.replace('"result": "pass",\n      "benchmarks"',
                                    '"result": "great",\n      "benchmarks"'),
                       ': $.suites[0].result: expected "pass", "new_suite", "new", "removed", '
                       '"improved", "inconclusive", '
                       '"over_budget", "regression", "metric_error" or "error", got "great"'),
    "exit-code-9": (BASE.replace('"exit_code": 0', '"exit_code": 9'),
                    ": $.summary.exit_code: expected 0, 1, 4, 5 or 6, got 9"),
}


def golden(name, fmt):
    with open(os.path.join(GOLDEN, f"{name}.{fmt}"), encoding="utf-8") as f:
        return f.read()


class ReportTest(TempDirTest):
    def report(self, *args, **kw):
        return run(["report", *args], cwd=self.tmp, **kw)

    def test_report__every_format_matches_its_golden_file(self):
        for name, code in STORED.items():
            path = os.path.join(REPORTS, name + ".json")
            for fmt in FORMATS:
                with self.subTest(name=name, format=fmt):
                    res = self.report("--format", fmt, path)
                    self.assertExit(res, 0)
                    self.assertEqual(res.out, golden(name, fmt))
                    self.assertEqual(res.err, "")

    def test_report__rendering_exits_0_and_only_check_exits_with_the_stored_code(self):
        for name, code in STORED.items():
            path = os.path.join(REPORTS, name + ".json")
            with self.subTest(name=name):
                plain = self.report(path)
                self.assertExit(plain, 0)
                self.assertEqual(plain.err, "")
                checked = self.report("--check", path)
                self.assertExit(checked, code)
                self.assertEqual(checked.out, plain.out)

    def test_report__counts_agree_in_number(self):
        for name in STORED:
            with self.subTest(name=name):
                out = self.report("--format", "github", os.path.join(REPORTS, name + ".json")).out
                headline = out.splitlines()[0].split("himorime: ", 1)[1]
                final = out.rstrip("\n").splitlines()[-1]
                counts = [c for c in final.split(" · ") if not c.startswith(("seed", "exit"))
                          and "benchmark" not in c and c != "interrupted"]
                self.assertEqual(sorted(headline.split(" · ")), sorted(counts))
        out = self.report("--format", "github", os.path.join(REPORTS, "v1-pr.json")).out
        self.assertTrue(out.startswith("### ❌ himorime: 1 regression · 1 inconclusive · "
                                       "1 improved · 2 passed\n"), out[:100])

    def test_report__takes_o_like_the_other_commands(self):
        res = self.report("-o", "out.csv", "--format", "csv", os.path.join(REPORTS, "v1-pr.json"))
        self.assertExit(res, 0)
        self.assertEqual(res.out, "")
        with open(os.path.join(self.tmp, "out.csv"), encoding="utf-8") as f:
            self.assertEqual(f.read(), golden("v1-pr", "csv"))

    def test_report__exits_with_the_stored_code_and_says_why(self):
        res = self.report("--check", os.path.join(REPORTS, "v1-pr.json"))
        self.assertExit(res, 1)
        self.assertEqual(res.err, f'himorime: exit 1: as stored in "{REPORTS}/v1-pr.json" '
                                  "(a budget or a gated comparison failed)\n")
        res = self.report("--check", os.path.join(REPORTS, "v1-minimal.json"))
        self.assertExit(res, 0)
        self.assertEqual(res.err, "")

    def test_report__hostile_inputs_give_exact_errors(self):
        self.assertGreaterEqual(len(HOSTILE), 20)
        for name, (content, message) in HOSTILE.items():
            with self.subTest(name=name):
                path = os.path.join(self.tmp, name + ".json")
                with open(path, "wb") as f:
                    f.write(content if isinstance(content, bytes) else content.encode())
                res = self.report(name + ".json")
                self.assertExit(res, 2)
                self.assertEqual(res.out, "")
                self.assertEqual(res.err, f"himorime: error: {name}.json{message} [HMR2001]\n"
                                 + INVALID)

    def test_report__a_100_mb_file_is_refused_before_reading(self):
        with open(os.path.join(self.tmp, "big.json"), "w") as f:
            f.truncate(100 * 1024 * 1024)  # sparse: costs no disk
        res = self.report("big.json")
        self.assertExit(res, 2)
        self.assertEqual(res.err, "himorime: error: big.json: larger than 67108864 bytes "
                                  "[HMR2001]\n" + INVALID)

    def test_report__missing_or_unreadable_input_is_bad_input(self):
        res = self.report("missing.json")
        self.assertExit(res, 2)
        self.assertEqual(res.err, 'himorime: error: cannot read "missing.json": No such file '
                                  "or directory [HMR2001]\n" + INVALID)
        res = self.report(".")
        self.assertExit(res, 2)
        self.assertEqual(res.err, 'himorime: error: cannot read ".": not a regular file '
                                  "(a directory) [HMR2001]\n" + INVALID)

    def test_report__usage_errors(self):
        usage = "himorime: exit 3: invalid command line\n"
        cases = [
            ([], "report needs exactly one input file, got 0"),
            (["a.json", "b.json"], "report needs exactly one input file, got 2"),
            (["--format", "yaml", "a.json"], 'unknown format "yaml": expected table, json, '
             "csv, samples-csv, markdown, github or html"),
            (["--section", "perf", "a.json"], "--section needs --format markdown and --output FILE"),
            (["--format", "markdown", "--section", "perf", "a.json"],
             "--section needs --format markdown and --output FILE"),
            (["--format", "markdown", "--output", "x.md", "--section", "Perf!", "a.json"],
             'invalid section name "Perf!": expected lower-case letters, digits and dashes, '
             "starting with a letter or digit"),
            # flags are parsed from the command table for every command alike,
            # with the hint every command's bad flag gets
            (["--frobnicate", "a.json"], 'unknown flag "--frobnicate" for "report" '
             "(see 'himorime help report') [HMR3001]\n"
             "  hint: run 'himorime help report' for its flags"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                res = self.report(*args)
                self.assertExit(res, 3)
                if "\n" not in message:
                    message += " [HMR3001]"
                self.assertEqual(res.err, f"himorime: error: {message}\n" + usage)

    def test_report__output_that_is_the_input_is_refused(self):
        src = os.path.join(REPORTS, "v1-minimal.json")
        path = self.write("in.json", open(src).read())
        before = open(path).read()
        for flag in ("--output", "--summary"):
            res = self.report(flag, "./in.json", "in.json")
            self.assertExit(res, 2)
            self.assertEqual(open(path).read(), before)
        res = self.report("--output", "./in.json", "in.json")
        self.assertEqual(res.err, 'himorime: error: output "./in.json" is the input report '
                                  "[HMR2001]\n" + INVALID)

    def test_report__writes_atomically_to_output(self):
        src = os.path.join(REPORTS, "v1-pr.json")
        res = self.report("--format", "csv", "--output", "out.csv", src)
        self.assertExit(res, 0)
        self.assertEqual(res.out, "")
        with open(os.path.join(self.tmp, "out.csv"), encoding="utf-8") as f:
            self.assertEqual(f.read(), golden("v1-pr", "csv"))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["out.csv"])

    def test_report__output_onto_a_directory_fails_and_keeps_it(self):
        os.mkdir(os.path.join(self.tmp, "out.md"))
        self.write("out.md/keep", "previous\n")
        res = self.report("--format", "markdown", "--output", "out.md",
                          os.path.join(REPORTS, "v1-minimal.json"))
        self.assertExit(res, 4)
        self.assertEqual(res.err, 'himorime: error: cannot write "out.md": Is a directory '
                                  "[HMR4001]\nhimorime: exit 4: execution failed\n")
        self.assertEqual(open(os.path.join(self.tmp, "out.md", "keep")).read(), "previous\n")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["out.md"])

    def test_report__output_under_a_file_fails(self):
        self.write("file", "x")
        res = self.report("--output", "file/sub/out.txt", os.path.join(REPORTS, "v1-minimal.json"))
        self.assertExit(res, 4)
        self.assertEqual(res.err, 'himorime: error: cannot write "file/sub/out.txt": Not a '
                                  "directory [HMR4001]\nhimorime: exit 4: execution failed\n")

    def test_report__failed_write_leaves_the_previous_file_intact(self):
        # A file size limit makes the write itself fail, even for root.
        previous = "previous report\n"
        path = self.write("out.html", previous)

        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

        env = dict(os.environ, NO_COLOR="1")
        proc = subprocess.run([HIMORIME, "report", "--format", "html", "--output", "out.html",
                               os.path.join(REPORTS, "v1-pr.json")], cwd=self.tmp, env=env,
                              preexec_fn=limit, capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 4, proc.stderr)
        self.assertEqual(proc.stderr, 'himorime: error: cannot write "out.html": File too large '
                                      "[HMR4001]\nhimorime: exit 4: execution failed\n")
        self.assertEqual(open(path).read(), previous)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["out.html"])

    def long_report(self):
        """A run of 3,000 samples per metric: its samples-csv is about 120 KB,
        so it goes out in two chunks (RENDER_FLUSH_BYTES is 64 KiB)."""
        suite = self.write("true.yaml", 'version: "1"\nname: long\nbenchmarks:\n'
                           "  - name: t\n    warmup: 0\n    commands:\n"
                           "      true: {command: [/bin/true]}\n")
        res = run(["run", "-q", "--seed", "1", "--runs", "3000", "--format", "json",
                   "--output", "long.json", suite], cwd=self.tmp)
        self.assertExit(res, 0)
        return os.path.join(self.tmp, "long.json")

    def test_report__samples_csv_is_written_as_it_is_made_with_the_same_bytes(self):
        # Issue 16, item 2: samples-csv is written in chunks as its rows are
        # made, to a file and to standard output. In GitHub Actions standard
        # output is quoted, which needs the whole text: the same rows, built whole.
        doc = self.long_report()
        to_file = self.report("--format", "samples-csv", "--output", "out.csv", doc)
        self.assertExit(to_file, 0)
        self.assertEqual(to_file.out + to_file.err, "")
        with open(os.path.join(self.tmp, "out.csv")) as f:
            streamed = f.read()
        self.assertGreater(len(streamed), 65536)
        self.assertTrue(streamed.startswith("suite,benchmark,command,side,run,metric,unit,value\n"
                                            "long,t,true,head,1,latency,ns,"), streamed[:200])
        self.assertEqual(streamed.count("\n"), 1 + 3000 * streamed.count(",head,1,"))
        to_stdout = self.report("--format", "samples-csv", doc)
        self.assertExit(to_stdout, 0)
        self.assertEqual(to_stdout.out, streamed)
        whole = self.report("--format", "samples-csv", doc, env={"GITHUB_ACTIONS": "true"})
        self.assertExit(whole, 0)
        lines = whole.out.split("\n")
        self.assertRegex(lines[0], r"^::stop-commands::[0-9a-f]{32}$")
        self.assertEqual(lines[-2], "::%s::" % lines[0][len("::stop-commands::"):])
        self.assertEqual("\n".join(lines[1:-2]) + "\n", streamed)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["long.json", "out.csv", "true.yaml"])

    def test_report__samples_csv_failing_half_way_keeps_the_previous_file(self):
        # The limit lets the first chunk (64 KiB) through and stops the rest.
        doc = self.long_report()
        path = self.write("out.csv", "previous\n")

        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))

        env = dict(os.environ, NO_COLOR="1")
        proc = subprocess.run([HIMORIME, "report", "--format", "samples-csv", "--output",
                               "out.csv", doc], cwd=self.tmp, env=env, preexec_fn=limit,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 4, proc.stderr)
        self.assertEqual(proc.stderr, 'himorime: error: cannot write "out.csv": File too large '
                                      "[HMR4001]\nhimorime: exit 4: execution failed\n")
        with open(path) as f:
            self.assertEqual(f.read(), "previous\n")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["long.json", "out.csv", "true.yaml"])
        # standard output that cannot be written: the same exit, nothing left open
        with open("/dev/full", "w") as full:
            proc = subprocess.run([HIMORIME, "report", "--format", "samples-csv", doc],
                                  cwd=self.tmp, env=env, stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=60)
        self.assertEqual(proc.returncode, 4, proc.stderr)
        self.assertEqual(proc.stderr, "himorime: error: cannot write the report to standard "
                                      "output [HMR4001]\nhimorime: exit 4: execution failed\n")

    def test_report__read_only_directory_keeps_the_previous_file(self):
        # Root ignores directory permissions: run as "nobody" then, or skip.
        import pwd
        ro = os.path.join(self.tmp, "ro")
        os.mkdir(ro)
        path = os.path.join(ro, "out.md")
        with open(path, "w") as f:
            f.write("previous\n")
        os.chmod(ro, 0o555)
        self.addCleanup(os.chmod, ro, 0o755)
        as_user = None
        if os.geteuid() == 0:
            try:
                nobody = pwd.getpwnam("nobody")
            except KeyError:
                self.skipTest("running as root and there is no user nobody")
            os.chmod(self.tmp, 0o755)
            as_user = nobody

        def drop():
            if as_user:
                os.setgroups([])
                os.setgid(as_user.pw_gid)
                os.setuid(as_user.pw_uid)

        proc = subprocess.run([HIMORIME, "report", "--format", "markdown", "--output", "ro/out.md",
                               os.path.join(REPORTS, "v1-minimal.json")], cwd=self.tmp,
                              env=dict(os.environ, NO_COLOR="1"), preexec_fn=drop,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 4, proc.stderr)
        self.assertEqual(proc.stderr, 'himorime: error: cannot write "ro/out.md": Permission '
                                      "denied [HMR4001]\nhimorime: exit 4: execution failed\n")
        self.assertEqual(open(path).read(), "previous\n")
        self.assertEqual(os.listdir(ro), ["out.md"])

    def test_report__section_replaces_the_marked_region(self):
        page = ("# Project\n\n## Performance\n\n<!-- himorime:begin perf -->\nold table\n"
                "<!-- himorime:end perf -->\n\nMore text.\n")
        path = self.write("README.md", page)
        res = self.report("--format", "markdown", "--output", "README.md", "--section", "perf",
                          os.path.join(REPORTS, "v1-minimal.json"))
        self.assertExit(res, 0)
        body = golden("v1-minimal", "markdown").replace("## himorime results", "### himorime results")
        body = body.replace("### Latency", "#### Latency")
        self.assertEqual(open(path).read(),
                         "# Project\n\n## Performance\n\n<!-- himorime:begin perf -->\n" + body
                         + "<!-- himorime:end perf -->\n\nMore text.\n")

    def test_report__section_without_markers_or_file_fails(self):
        path = self.write("README.md", "# Project\n")
        src = os.path.join(REPORTS, "v1-minimal.json")
        res = self.report("--format", "markdown", "--output", "README.md", "--section", "perf", src)
        self.assertExit(res, 4)
        self.assertEqual(res.err, 'himorime: error: README.md: section "perf": the page has no '
                                  '"<!-- himorime:begin perf -->" line [HMR4001]\n'
                                  "himorime: exit 4: execution failed\n")
        self.assertEqual(open(path).read(), "# Project\n")
        res = self.report("--format", "markdown", "--output", "NOPE.md", "--section", "perf", src)
        self.assertExit(res, 4)
        self.assertEqual(res.err, 'himorime: error: --section perf: cannot read "NOPE.md": '
                                  'No such file or directory [HMR4001]\n'
                                  "himorime: exit 4: execution failed\n")

    def test_report__summary_is_appended(self):
        path = self.write("summary.md", "earlier step\n")
        res = self.report("--summary", "summary.md", os.path.join(REPORTS, "v1-pr.json"))
        self.assertExit(res, 0)
        self.assertEqual(res.out, golden("v1-pr", "table"))
        self.assertEqual(open(path, encoding="utf-8").read(),
                         "earlier step\n" + golden("v1-pr", "github"))

    def run_tty(self, env_extra, *args):
        """Runs report with stdout on a pseudo-terminal; returns what it printed."""
        master, slave = pty.openpty()
        env = dict(os.environ)
        env.pop("NO_COLOR", None)
        env.update(env_extra)
        proc = subprocess.Popen([HIMORIME, "report", *args, os.path.join(REPORTS, "v1-pr.json")],
                                stdout=slave, stderr=subprocess.DEVNULL, env=env)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=60)
        os.close(master)
        return b"".join(chunks).decode()

    def test_report__colour_only_on_a_terminal_without_no_color(self):
        self.assertIn("\x1b[31mregression\x1b[0m", self.run_tty({}))
        self.assertNotIn("\x1b[", self.run_tty({"NO_COLOR": "1"}))
        self.assertNotIn("\x1b[", self.run_tty({}, "--no-color"))
        self.assertNotIn("\x1b[", self.report(os.path.join(REPORTS, "v1-pr.json"),
                                              env={"NO_COLOR": ""}).out)


class DocsTest(unittest.TestCase):
    def test_report__docs_examples_are_real_output(self):
        import re
        with open(os.path.join(DATA, "..", "..", "docs", "reports.md"), encoding="utf-8") as f:
            doc = f.read()
        examples = re.findall(r"<!-- example: (\S+) -->\n```\w*\n(.*?)```\n", doc, re.S)
        # every format but json, and the pull-request comment (samples-csv
        # twice: with and without duet runs)
        self.assertEqual(sorted({n.split(".")[1] for n, _ in examples}),
                         sorted([f for f in FORMATS if f != "json"] + ["comment"]))
        for name, text in examples:
            with self.subTest(example=name):
                with open(os.path.join(GOLDEN, name), encoding="utf-8") as f:
                    self.assertIn(text, f.read())


class ChartParser(html.parser.HTMLParser):
    """Collects each figure's marks and tick labels."""

    def __init__(self):
        super().__init__()
        self.figures = []
        self.in_tick = None
        self.external = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href"):
            if k in a:
                self.external.append(a[k])
        if tag in ("script", "link", "img", "iframe"):
            self.external.append(tag)
        if tag == "figure":
            self.figures.append({"command": a["data-command"], "marks": [], "ticks": []})
        elif tag == "circle":
            self.figures[-1]["marks"].append((a["class"].split()[1], float(a["cx"]),
                                              float(a["data-value"])))
        elif tag == "text" and a.get("class") == "tick-label":
            self.in_tick = (float(a["x"]), float(a["data-value"]))

    def handle_data(self, data):
        if self.in_tick:
            self.figures[-1]["ticks"].append(self.in_tick + (data,))
            self.in_tick = None


def duration(ns):
    """format.h's fmt_duration, written again: 3 significant digits."""
    units = [(1, " ns"), (1e3, " µs"), (1e6, " ms"), (1e9, " s")]
    i = 0
    while i + 1 < len(units) and abs(ns) >= units[i + 1][0] * 0.9995:
        i += 1
    v = ns / units[i][0]
    digits = "%.0f" if abs(v) >= 99.95 else "%.1f" if abs(v) >= 9.995 else "%.2f"
    return (digits % v) + units[i][1]


class HtmlChartTest(TempDirTest):
    def test_report__html_charts_draw_every_sample_on_exact_axes(self):
        src = os.path.join(REPORTS, "v1-pr.json")
        res = run(["report", "--format", "html", src])
        self.assertExit(res, 0)
        p = ChartParser()
        p.feed(res.out)
        self.assertEqual(p.external, [])
        doc = json.load(open(src))
        commands = [(b["name"] + " › " + c["name"], c) for s in doc["suites"]
                    for b in s["benchmarks"] for c in b["commands"]]
        self.assertEqual([f["command"] for f in p.figures], [n for n, _ in commands])
        for fig, (_, cmd) in zip(p.figures, commands):
            with self.subTest(command=fig["command"]):
                for side in ("head", "base"):
                    samples = cmd[side]["metrics"]["latency"]["samples"]
                    drawn = [v for s, _, v in fig["marks"] if s == side]
                    self.assertEqual(sorted(drawn), sorted(samples))
                values = [v for _, _, v in fig["marks"]]
                ticks = fig["ticks"]
                # Round ticks: 1, 2 or 5 × 10^k apart, covering every sample.
                step = ticks[1][1] - ticks[0][1]
                mantissa = step / 10 ** math.floor(math.log10(step))
                self.assertIn(round(mantissa, 9), (1, 2, 5))
                self.assertLessEqual(ticks[0][1], min(values))
                self.assertGreaterEqual(ticks[-1][1], max(values))
                self.assertLess(ticks[0][1], min(values) + step)
                self.assertGreater(ticks[-1][1], max(values) - step)
                for i, (x, v, label) in enumerate(ticks):
                    self.assertAlmostEqual(v, ticks[0][1] + i * step, delta=step * 1e-9)
                    self.assertEqual(label, duration(v))
                # Marks sit where the axis says their value is.
                (x0, v0, _), (x1, v1, _) = ticks[0], ticks[-1]
                for _, cx, v in fig["marks"]:
                    self.assertAlmostEqual(cx, x0 + (v - v0) / (v1 - v0) * (x1 - x0), delta=0.01)


if __name__ == "__main__":
    unittest.main()
