"""`himorime run` end to end: real processes measured through the spawner,
budgets, failures and their exit codes, the schedule, and nothing left behind."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import HELPERS, HIMORIME, SANITIZED, PrivateTmpTest, alive, run, suite

MIB = 1024 * 1024


class RunTest(PrivateTmpTest):
    def run_json(self, body, *args, code=0):
        path = self.write("himorime.yaml", suite(body))
        res = self.run_h(["run", "--format", "json", "--seed", "7", *args, path])
        self.assertExit(res, code)
        return json.loads(res.out), res

    def command(self, doc, bench=0, cmd=0):
        return doc["suites"][0]["benchmarks"][bench]["commands"][cmd]

    def test_run__measures_latency_cpu_and_memory(self):
        doc, res = self.run_json(f"""
benchmarks:
  - name: memory
    runs: 10
    warmup: 0
    metrics: {{cpu: true, memory: true}}
    commands:
      alloc:
        command: ["{HELPERS}/alloc", "50"]
      true:
        command: [/bin/true]
""")
        alloc, true = self.command(doc, 0, 0), self.command(doc, 0, 1)
        for c in (alloc, true):
            self.assertEqual(c["head"]["count"], 10)
            self.assertEqual(len(c["head"]["metrics"]["latency"]["samples"]), 10)
            self.assertEqual(c["head"]["metrics"]["peak_rss"]["status"], "measured")
            self.assertEqual(c["result"], "pass")
        peak = alloc["head"]["metrics"]["peak_rss"]
        self.assertGreaterEqual(peak["stats"]["min"], 50 * MIB)
        self.assertLess(peak["stats"]["max"], 60 * MIB)
        floor = true["head"]["metrics"]["peak_rss"]
        self.assertEqual(floor["samples_at_floor"], 10)
        if not SANITIZED:
            self.assertLess(floor["floor"], 2 * MIB)
        self.assertEqual(doc["seed"], 7)
        self.assertIsNone(doc["suites"][0]["geometric_mean"])
        self.assertEqual(doc["suites"][0]["geometric_mean_unavailable"],
                         "a geometric mean needs at least two benchmarks")
        self.assertEqual(doc["summary"]["exit_code"], 0)

    def test_run__records_head_and_dirty_in_a_git_repository(self):
        doc, _ = self.run_json("benchmarks:\n  - name: b\n    runs: 10\n    warmup: 0\n"
                               "    commands: {t: {command: [/bin/true]}}\n")
        self.assertIsNone(doc["git"])  # not in a repository
        repo = os.path.join(self.tmp, "repo")
        os.makedirs(repo)

        def git(*args):
            return subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t",
                                   *args], cwd=repo, check=True, capture_output=True,
                                  text=True).stdout.strip()
        git("init", "-q", "-b", "main")
        self.write("repo/himorime.yaml", suite("benchmarks:\n  - name: b\n    runs: 10\n    warmup: 0\n"
                                               "    commands: {t: {command: [/bin/true]}}\n"))
        git("add", "-A")
        git("commit", "-qm", "suite")
        head = git("rev-parse", "HEAD")
        res = self.run_h(["run", "--format", "json"], cwd=repo)
        self.assertExit(res, 0)
        self.assertEqual(json.loads(res.out)["git"],
                         {"head_sha": head, "dirty": False, "base_ref": None, "base_sha": None,
                          "base_source": None})
        self.write("repo/notes.txt", "untracked\n")
        res = self.run_h(["run", "--no-color"], cwd=repo)
        self.assertExit(res, 0)
        self.assertIn(f" · run {head[:7]} (dirty) · ", res.out.splitlines()[0])

    def test_run__orphan_cpu_is_counted(self):
        doc, _ = self.run_json(f"""
benchmarks:
  - name: orphan
    runs: 2
    warmup: 0
    regression: {{min_samples: 2}}
    metrics: {{cpu: true}}
    commands:
      orphan:
        command: ["{HELPERS}/orphan_cpu"]
""")
        for user in self.command(doc)["head"]["metrics"]["cpu_user"]["samples"]:
            self.assertGreater(user, 150e6)

    def test_run__prepare_each_is_outside_latency(self):
        doc, _ = self.run_json("""
benchmarks:
  - name: prepared
    runs: 3
    warmup: 0
    regression: {min_samples: 2}
    prepare_each:
      - command: [sleep, "0.3"]
    commands:
      true:
        command: [/bin/true]
""")
        samples = self.command(doc)["head"]["metrics"]["latency"]["samples"]
        self.assertEqual(len(samples), 3)
        self.assertLess(max(samples), 250e6)

    def test_run__growth_from_run_to_run_is_flagged(self):
        # each run allocates 4 MiB more than the last: peak RSS and latency
        # keep growing; a steady allocation does not
        body = f"""
benchmarks:
  - name: drift
    runs: 20
    warmup: 0
    metrics: {{memory: true}}
    commands:
      growing:
        shell: true
        command: 'n=$(cat ${{workdir}}/n 2>/dev/null || echo 0); echo $((n + 1)) > ${{workdir}}/n; exec "{HELPERS}/alloc" $((4 * n + 4))'
      steady:
        command: ["{HELPERS}/alloc", "8"]
"""
        doc, _ = self.run_json(body)
        growing, steady = self.command(doc, 0, 0), self.command(doc, 0, 1)
        rss = growing["head"]["metrics"]["peak_rss"]["trend"]
        self.assertTrue(rss["growing"], rss)
        self.assertGreater(rss["slope"], 3.5 * MIB)
        self.assertLess(rss["slope"], 4.5 * MIB)
        self.assertLess(rss["slope_low"], rss["slope"])
        self.assertGreater(rss["slope_high"], rss["slope"])
        self.assertEqual(rss["confidence"], 0.99)
        # latency grows too, but not in a straight line: its residuals can be
        # too autocorrelated for 20 runs to give an interval (then no trend)
        latency = growing["head"]["metrics"]["latency"]["trend"]
        self.assertTrue(latency is None or latency["slope"] > 0, latency)
        flat = steady["head"]["metrics"]["peak_rss"]["trend"]
        self.assertFalse(flat["growing"], flat)
        self.assertGreater(flat["min_detectable_slope"], 0)
        # cpu is not watched for drift
        self.assertIsNone(steady["head"]["metrics"]["cpu_total"].get("trend"))
        # the table says which metric grows, by how much per run, and what to do
        res = self.run_h(["run", "--seed", "7", self.write("himorime.yaml", suite(body))])
        self.assertExit(res, 0)
        notes = [line for line in res.out.splitlines() if "peak_rss keeps growing" in line]
        self.assertEqual(len(notes), 1, res.out)
        self.assertRegex(
            notes[0],
            r"^  - drift › growing: peak_rss keeps growing from run to run: "
            r"\+[0-9.]+ MiB per run \(99% interval [0-9.]+ MiB to [0-9.]+ MiB\), "
            r"\+[0-9]+% of the median over 20 runs; something grows between runs "
            r"\(a cache, a file, a log\): reset it in prepare_each, or the runs measure "
            r"different work$")
        # a run too short to tell has no trend
        doc, _ = self.run_json(body.replace("runs: 20", "runs: 9").replace(
            "benchmarks:", "defaults: {regression: {min_samples: 2}}\nbenchmarks:"))
        self.assertIsNone(self.command(doc)["head"]["metrics"]["peak_rss"]["trend"])

    def test_run__timeout_kills_the_whole_tree(self):
        pidfile = os.path.join(self.tmp, "pids")
        doc, res = self.run_json(f"""
benchmarks:
  - name: tree
    runs: 10
    warmup: 0
    commands:
      tree:
        command: ["{HELPERS}/tree", "{pidfile}", wait]
        timeout: 500ms
""", code=4)
        c = self.command(doc)
        self.assertEqual(c["result"], "error")
        self.assertEqual(c["head"]["error"]["kind"], "timeout")
        pids = [int(p) for p in open(pidfile).read().split()]
        deadline = time.time() + 5
        while any(alive(p) for p in pids) and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual([p for p in pids if alive(p)], [])
        self.assertTrue(res.err.endswith("himorime: exit 4: 1 command failed\n"), res.err)

    def test_run__exit_code_failure_shows_stderr_tail(self):
        doc, res = self.run_json("""
benchmarks:
  - name: fails
    runs: 10
    commands:
      bad:
        command: "echo something broke >&2; exit 3"
        shell: true
      good:
        command: [/bin/true]
""", code=4)
        bad, good = self.command(doc, 0, 0), self.command(doc, 0, 1)
        self.assertEqual(bad["result"], "error")
        self.assertEqual(bad["head"]["error"]["kind"], "exit_code")
        self.assertEqual(bad["head"]["error"]["exit_code"], 3)
        self.assertEqual(bad["head"]["error"]["stderr"], "something broke\n")
        self.assertEqual(good["result"], "pass")
        self.assertEqual(good["head"]["count"], 10)

    def test_run__allowed_exit_codes_pass(self):
        doc, _ = self.run_json("""
benchmarks:
  - name: diff
    runs: 10
    commands:
      one:
        command: [sh, -c, "exit 1"]
        exit_codes: [1]
""")
        self.assertEqual(self.command(doc)["result"], "pass")

    def test_run__missing_program_is_start_failure(self):
        doc, res = self.run_json("""
benchmarks:
  - name: missing
    runs: 10
    commands:
      nope:
        command: [no-such-program-here]
""", code=4)
        err = self.command(doc)["head"]["error"]
        self.assertEqual(err["kind"], "start_failed")
        self.assertIn("no-such-program-here", err["message"])

    def test_run__broken_budget_exits_1(self):
        doc, res = self.run_json("""
benchmarks:
  - name: slow
    runs: 10
    commands:
      sleep:
        command: [sleep, "0.02"]
        budget:
          latency: {median: "<= 1ms", max: "<= 10s"}
""", code=1)
        c = self.command(doc)
        self.assertEqual(c["result"], "over_budget")
        self.assertEqual([b["status"] for b in c["budgets"]], ["fail", "pass"])
        self.assertTrue(res.err.endswith("himorime: exit 1: 1 command over budget\n"), res.err)

    def test_run__peak_rss_budget_at_floor_is_metric_error(self):
        doc, res = self.run_json("""
benchmarks:
  - name: floor
    runs: 10
    metrics: {memory: true}
    commands:
      true:
        command: [/bin/true]
        budget:
          peak_rss: {max: "<= 100KiB"}
""", code=6)
        c = self.command(doc)
        self.assertEqual(c["result"], "metric_error")
        self.assertEqual(c["budgets"][0]["status"], "skipped")
        self.assertTrue(res.err.endswith(
            "himorime: exit 6: 1 command has a metric that could not be measured\n"), res.err)

    def test_run__throughput_from_file_size(self):
        data = self.write("data.bin", "x" * 100000)
        doc, _ = self.run_json(f"""
benchmarks:
  - name: read
    runs: 10
    metrics:
      throughput:
        work: {{file_size: data.bin}}
    commands:
      cat:
        command: [cat, data.bin]
        budget:
          throughput: {{min: ">= 1KiB/s"}}
""")
        c = self.command(doc)
        t = c["head"]["metrics"]["throughput"]
        lat = c["head"]["metrics"]["latency"]["samples"]
        self.assertEqual(t["work"]["measured_min"], 100000)
        self.assertEqual(t["work"]["measured_max"], 100000)
        for rate, ns in zip(t["samples"], lat):
            self.assertAlmostEqual(rate, 100000 / (ns / 1e9), delta=rate * 1e-9)
        self.assertEqual(c["budgets"][0]["status"], "pass")

    def test_run__missing_work_file_exits_6(self):
        doc, res = self.run_json("""
benchmarks:
  - name: read
    runs: 10
    metrics:
      throughput:
        work: {file_size: missing.bin}
    commands:
      cat:
        command: [/bin/true]
""", code=6)
        c = self.command(doc)
        self.assertEqual(c["result"], "metric_error")
        self.assertEqual(c["head"]["metrics"]["throughput"]["status"], "failed")

    def order_for(self, seed):
        log = os.path.join(self.tmp, "order.log")
        if os.path.exists(log):
            os.unlink(log)
        body = "benchmarks:\n  - name: order\n    runs: 10\n    warmup: 0\n    commands:\n"
        for name in "abcde":
            body += f'      {name}:\n        command: "echo {name} >> {log}"\n        shell: true\n'
        path = self.write("himorime.yaml", suite(body))
        self.assertExit(self.run_h(["run", "--format", "json", "--seed", str(seed), path]), 0)
        return open(log).read().split()

    def test_run__round_order_follows_the_seed(self):
        a, b, c = self.order_for(1), self.order_for(1), self.order_for(2)
        self.assertEqual(len(a), 50)
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        for r in range(10):
            self.assertEqual(sorted(a[5 * r:5 * r + 5]), list("abcde"))

    def test_run__stdin_content_and_kept_stdout(self):
        doc, _ = self.run_json(f"""
benchmarks:
  - name: io
    runs: 10
    stdin: {{content: "hello\\n"}}
    cleanup:
      - command: [cp, "${{workdir}}/out.txt", "{self.tmp}/kept.txt"]
    commands:
      cat:
        command: [cat]
        stdout: out.txt
""")
        with open(os.path.join(self.tmp, "kept.txt")) as f:
            self.assertEqual(f.read(), "hello\n")

    def test_run__terminal_types_stdin_into_an_interactive_shell(self):
        doc, _ = self.run_json(f"""
benchmarks:
  - name: shell
    terminal: true
    runs: 10
    warmup: 0
    stdin: {{content: "echo typed-here\\nexit 7\\n"}}
    cleanup:
      - command: [cp, "${{workdir}}/screen.txt", "{self.tmp}/screen.txt"]
    commands:
      sh:
        command: [sh, -i]
        exit_codes: [7]
        stdout: screen.txt
""")
        self.assertEqual(self.command(doc)["result"], "pass")
        with open(os.path.join(self.tmp, "screen.txt"), errors="replace") as f:
            self.assertIn("typed-here", f.read())

    def test_issue28_should_fix__terminal_runs_with_term_dumb_unless_the_suite_sets_it(self):
        path = self.write("himorime.yaml", suite(f"""
benchmarks:
  - name: plain
    terminal: true
    runs: 10
    cleanup:
      - command: [cp, "${{workdir}}/screen.txt", "{self.tmp}/plain.txt"]
    commands:
      sh: {{command: [sh, -c, 'echo "TERM=$TERM"'], stdout: screen.txt}}
  - name: own
    terminal: true
    runs: 10
    env: {{TERM: vt100}}
    cleanup:
      - command: [cp, "${{workdir}}/screen.txt", "{self.tmp}/own.txt"]
    commands:
      sh: {{command: [sh, -c, 'echo "TERM=$TERM"'], stdout: screen.txt}}
"""))
        res = self.run_h(["run", "-q", path], env={"TERM": "xterm-256color"})
        self.assertExit(res, 0)
        for name, want in (("plain", "TERM=dumb\n"), ("own", "TERM=vt100\n")):
            with open(os.path.join(self.tmp, name + ".txt")) as f:
                self.assertEqual(f.read(), want)

    def test_run__report_versions_are_recorded(self):
        doc, _ = self.run_json("""
report:
  versions:
    shell: [sh, -c, "echo; echo '  tool 1.2.3  '"]
benchmarks:
  - name: t
    runs: 10
    commands:
      t: {command: [/bin/true]}
""")
        self.assertEqual(doc["environment"]["tools"], [{"name": "shell", "version": "tool 1.2.3"}])

    def test_run__failing_version_probe_fails_the_suite(self):
        doc, res = self.run_json("""
report:
  versions:
    missing: [no-such-tool-anywhere, --version]
benchmarks:
  - name: t
    runs: 10
    commands:
      t: {command: [/bin/true]}
""", code=4)
        self.assertIn("report.versions.missing", doc["suites"][0]["error"]["message"])

    def test_issue28_must_fix6__a_version_printed_only_on_stderr_is_recorded(self):
        # bzip2 --version prints its banner on stderr only; the reference
        # reads stderr when stdout is empty, and so do we.
        doc, _ = self.run_json("""
report:
  versions:
    quiet-out: [sh, -c, "echo >&2; echo ' tool 2.0 ' >&2; echo second >&2"]
    both: [sh, -c, "echo from-stdout; echo from-stderr >&2"]
benchmarks:
  - name: t
    runs: 10
    commands:
      t: {command: [/bin/true]}
""")
        self.assertEqual(doc["environment"]["tools"],
                         [{"name": "quiet-out", "version": "tool 2.0"},
                          {"name": "both", "version": "from-stdout"}])
        self.assertEqual(doc["summary"]["exit_code"], 0)

    def test_issue28_must_fix6__a_version_probe_that_prints_nothing_fails(self):
        doc, _ = self.run_json("""
report:
  versions:
    mute: [sh, -c, "exit 0"]
benchmarks:
  - name: t
    runs: 10
    commands:
      t: {command: [/bin/true]}
""", code=4)
        self.assertEqual(doc["suites"][0]["error"]["message"],
                         "report.versions.mute: printed nothing on stdout or stderr")

    def test_issue28_must_fix5__a_stdin_file_written_by_setup_is_read(self):
        # The reference's git-compare recipe: setup writes the input into
        # ${workdir}, and stdin names it; it does not exist before setup.
        doc, _ = self.run_json(f"""
benchmarks:
  - name: count
    runs: 10
    setup:
      - command: [sh, -c, "seq 1 5000 > ${{workdir}}/input.txt"]
    stdin: "${{workdir}}/input.txt"
    cleanup:
      - command: [cp, "${{workdir}}/count.txt", "{self.tmp}/count.txt"]
    commands:
      wc:
        command: [wc, -l]
        stdout: count.txt
""")
        self.assertEqual(self.command(doc)["result"], "pass")
        self.assertEqual(self.command(doc)["head"]["count"], 10)
        with open(os.path.join(self.tmp, "count.txt")) as f:
            self.assertEqual(f.read().strip(), "5000")

    def test_issue28_must_fix5__a_stdin_file_still_missing_fails_at_the_run(self):
        doc, _ = self.run_json("""
benchmarks:
  - name: count
    runs: 10
    stdin: "${workdir}/never-written.txt"
    commands:
      wc: {command: [wc, -l]}
""", code=4)
        err = self.command(doc)["head"]["error"]
        self.assertEqual(err["kind"], "start_failed")
        self.assertRegex(err["message"], r'\Acould not open stdin "[^"]*/work/never-written\.txt": '
                                         r'no such file or directory\Z')

    def test_run__report_outputs_are_written_beside_the_suite(self):
        page = self.write("page.md", "# Perf\n\n<!-- himorime:begin perf -->\nold\n"
                                     "<!-- himorime:end perf -->\ntail\n")
        doc, _ = self.run_json("""
report:
  outputs:
    - {format: json, path: out/report.json}
    - {format: samples-csv, path: samples.csv}
    - {format: markdown, path: page.md, section: perf}
benchmarks:
  - name: t
    runs: 10
    commands:
      t: {command: [/bin/true]}
""")
        with open(os.path.join(self.tmp, "out", "report.json")) as f:
            self.assertEqual(json.load(f)["seed"], 7)
        with open(os.path.join(self.tmp, "samples.csv")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "suite,benchmark,command,side,run,metric,unit,value")
        self.assertEqual(len(lines), 11)
        text = open(page).read()
        self.assertTrue(text.startswith("# Perf\n\n<!-- himorime:begin perf -->\n"))
        self.assertNotIn("\nold\n", text)
        self.assertTrue(text.endswith("<!-- himorime:end perf -->\ntail\n"))

    def test_run__setup_failure_still_runs_cleanup(self):
        marker = os.path.join(self.tmp, "cleaned")
        doc, res = self.run_json(f"""
benchmarks:
  - name: hooks
    runs: 10
    setup:
      - command: [sh, -c, "exit 5"]
    cleanup:
      - command: [touch, "{marker}"]
    commands:
      true:
        command: [/bin/true]
""", code=4)
        b = doc["suites"][0]["benchmarks"][0]
        self.assertEqual(b["error"]["kind"], "setup_failed")
        self.assertTrue(os.path.exists(marker))

    def test_run__token_is_not_passed_to_commands(self):
        out = os.path.join(self.tmp, "env.txt")
        path = self.write("himorime.yaml", suite(f"""
benchmarks:
  - name: env
    runs: 10
    commands:
      env:
        command: "env > {out}"
        shell: true
"""))
        res = self.run_h(["run", "--quiet", path], env={"GITHUB_TOKEN": "ghs_secret123",
                                                 "INPUT_GITHUB-TOKEN": "ghs_secret456"})
        self.assertExit(res, 0)
        text = open(out).read()
        self.assertNotIn("ghs_secret", text)
        self.assertIn("PATH=", text)

    def interrupt_once_the_tree_runs(self, pidfile, path):
        """Runs `run --format json path` in self.tmp, sends SIGINT once the
        tree helper wrote its five pids, and returns stdout and stderr of
        the exit 4 that must follow."""
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        p = subprocess.Popen([HIMORIME, "run", "--format", "json", path], cwd=self.tmp,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 20
        while not os.path.exists(pidfile) or len(open(pidfile).read().split()) < 5:
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 4, err)
        return out, err

    def test_run__interrupted_lists_benchmarks_that_never_started(self):
        pidfile = os.path.join(self.tmp, "pids")
        os.makedirs(os.path.join(self.tmp, "suites"))
        self.write("suites/himorime.yaml", suite(f"""
benchmarks:
  - name: long
    runs: 10
    commands:
      tree:
        command: ["{HELPERS}/tree", "{pidfile}", wait]
        timeout: 60s
  - name: second
    runs: 10
    commands: {{t: {{command: [/bin/true]}}}}
"""))
        self.write("suites/later.himorime.yaml", suite("""
benchmarks:
  - name: third
    runs: 10
    commands: {t: {command: [/bin/true]}}
""", name="later"))
        out, err = self.interrupt_once_the_tree_runs(pidfile, "suites")
        self.assertTrue(err.endswith("himorime: exit 4: interrupted, 3 benchmarks could not run, "
                                     "1 command failed\n"), err)
        doc = json.loads(out)
        never = [(s["name"], b["name"], b["error"]["kind"], b["error"]["message"], b["commands"])
                 for s in doc["suites"] for b in s["benchmarks"] if b["name"] != "long"]
        self.assertEqual(never, [("t", "second", "interrupted", "never started", []),
                                 ("later", "third", "interrupted", "never started", [])])
        saved = self.write("report.json", out)
        res = run(["report", "--no-color", saved])
        notes = [line for line in res.out.splitlines() if line.startswith("  - ")]
        self.assertIn("  - long: interrupted", notes)
        self.assertIn("  - long › tree: interrupted", notes)
        self.assertIn("  - The run was interrupted: these results are partial. "
                      "Never started: second, third.", notes)
        self.assertNotIn("interrupted: interrupted", res.out)
        self.assertNotIn("  - second", res.out)

    def test_run__sweeps_what_a_killed_run_left(self):
        p = subprocess.Popen(["true"])
        p.wait()
        stale = os.path.join(self.private_tmp, f"himorime-run-{p.pid}-abcdef")
        os.makedirs(os.path.join(stale, "work"))
        live = os.path.join(self.private_tmp, f"himorime-run-{os.getpid()}-abcdef")
        os.makedirs(live)
        self.run_json("""
benchmarks:
  - name: t
    runs: 10
    commands:
      t: {command: [/bin/true]}
""")
        self.assertFalse(os.path.exists(stale))
        self.assertTrue(os.path.exists(live))
        os.rmdir(live)

    def test_run__empty_selection_is_usage_error(self):
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: a
    commands:
      t: {command: [/bin/true]}
"""))
        res = self.run_h(["run", "--tag", "nothing", path])
        self.assertExit(res, 3)
        self.assertEqual(res.err, "himorime: error: no benchmark matches the selection [HMR3001]\n"
                                  "  hint: check --filter, --tag and --skip-tag against 'himorime list'\n"
                                  "himorime: exit 3: empty selection\n")

    def test_run__bad_flag_values_are_usage_errors(self):
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: a
    commands:
      t: {command: [/bin/true]}
"""))
        for args, msg in ((["--seed", "x"], '--seed "x": expected an integer from 0 to 9007199254740991'),
                          (["--runs", "0"], '--runs "0": expected an integer from 1 to 100000'),
                          (["--format", "xml"], 'unknown format "xml"'),
                          (["--max-time", "1s"], "--max-time only applies to compare and ci")):
            res = self.run_h(["run", *args, path])
            self.assertExit(res, 3)
            self.assertIn(msg, res.err)


if __name__ == "__main__":
    unittest.main()
