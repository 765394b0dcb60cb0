"""What the measured code can reach (docs/github-actions.md, "Threat model"):
the token and the runner's credentials and files stay out of its reach, untrusted
text cannot issue workflow commands, special files and signals cannot hang
himorime or leave anything behind."""
import json
import os
import re
import signal
import subprocess
import sys
import time
import unittest

from harness import HELPERS, HIMORIME, PrivateTmpTest, alive, suite

# What a step of the Actions runner holds and the measured code must not see.
SECRETS = ["GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN",
           "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
           "ACTIONS_RUNTIME_URL", "ACTIONS_CACHE_URL", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY",
           "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE"]

# Reads the environment of its parent and of every ancestor it can, and its
# own; writes what it found, as {pid: environ or the error}, to argv[1].
SNOOP = r'''
import json, os, sys
seen = {"self": "\n".join(f"{k}={v}" for k, v in os.environ.items())}
pid = os.getppid()
while pid > 1:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            seen[str(pid)] = f.read().decode("utf-8", "replace")
    except OSError as e:
        seen[str(pid)] = f"error {e.errno}"
    with open(f"/proc/{pid}/stat") as f:
        pid = int(f.read().rsplit(")", 1)[1].split()[1])
with open(sys.argv[1], "w") as f:
    json.dump(seen, f)
'''


# A Python that any user may run (the tests' own may live under /root).
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


class TokenTest(PrivateTmpTest):
    """Item 1: as the user the measured code runs as. When the tests run as
    root (who may read any process), himorime and its benchmark run as nobody,
    the way a runner's user is an ordinary one."""

    def test_security__measured_code_finds_no_token_in_any_ancestor(self):
        for d in (self.tmp, self.private_tmp):
            os.chmod(d, 0o777)
        snoop = self.write("snoop.py", SNOOP)
        found = os.path.join(self.tmp, "found.json")
        path = self.write("himorime.yaml", suite(f"""
build:
  command: "{PYTHON} {snoop} {found}.build && cp /bin/true ${{artifact}}"
  shell: true
benchmarks:
  - name: snoop
    runs: 10
    warmup: 0
    setup:
      - command: [{PYTHON}, {snoop}, {found}.setup]
    commands:
      argv:
        command: [{PYTHON}, {snoop}, {found}]
      shell:
        command: "{PYTHON} {snoop} {found}.shell"
        shell: true
"""))
        out = os.path.join(self.tmp, "github_output")
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        env.pop("GITHUB_ACTIONS", None)
        for name in SECRETS:
            env[name] = f"sentinel-{name.lower()}-value"
        env["GITHUB_OUTPUT"] = out
        open(out, "w").close()
        os.chmod(out, 0o666)
        argv = [HIMORIME, "run", "--quiet", "--format", "json", path]
        if os.geteuid() == 0:
            argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + argv
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr + proc.stdout)
        for suffix in (".build", ".setup", "", ".shell"):
            seen = json.load(open(found + suffix))
            self.assertGreaterEqual(len(seen), 3, seen)
            for where, text in seen.items():
                self.assertNotIn("sentinel-", text, f"{suffix} {where}")
            self.assertIn("PATH=", seen["self"])


class ActionExitCodeTest(PrivateTmpTest):
    """Item 1: the action execs himorime, so `ci` itself records the exit code
    of a run that stopped before writing its outputs."""

    def test_security__ci_writes_exit_code_when_it_stops_early(self):
        out = self.write("github_output", "")
        res = self.run_h(["ci", "--comment", "maybe", os.path.join(self.tmp, "none.yaml")],
                         env={"GITHUB_OUTPUT": out}, cwd=self.tmp)
        self.assertExit(res, 2)
        text = open(out).read()
        self.assertRegex(text, r"\Aexit-code<<(ghadelimiter_[0-9a-f]{32})\n2\n\1\n\Z")

    def test_security__ci_keeps_an_exit_code_already_written(self):
        out = self.write("github_output", "exit-code=7\n")
        res = self.run_h(["ci", os.path.join(self.tmp, "none.yaml")],
                         env={"GITHUB_OUTPUT": out}, cwd=self.tmp)
        self.assertExit(res, 2)
        self.assertEqual(open(out).read(), "exit-code=7\n")


class SpecialFileTest(PrivateTmpTest):
    """Item 4: a FIFO (or any file that is not a regular one) where himorime
    expects a file is refused at once, never waited on."""

    def fifo(self, name):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkfifo(path)
        return path

    def test_security__validate_refuses_a_fifo_suite(self):
        path = self.fifo("suite.yaml")
        res = self.run_h(["validate", path], timeout=20)
        self.assertExit(res, 2)
        self.assertEqual(res.err, f'{path}: cannot read "{path}": not a regular file (a FIFO) '
                                  '[HMR2001]\nhimorime: exit 2: 1 problem in 1 suite file\n')

    def test_security__validate_refuses_a_fifo_found_in_a_directory(self):
        path = self.fifo("d/x.himorime.yaml")
        res = self.run_h(["validate", os.path.join(self.tmp, "d")], timeout=20)
        self.assertExit(res, 2)
        self.assertIn(f'cannot read "{path}": not a regular file (a FIFO) [HMR2001]\n', res.err)

    def test_security__report_refuses_a_fifo(self):
        path = self.fifo("r.json")
        res = self.run_h(["report", path], timeout=20)
        self.assertExit(res, 2)
        self.assertEqual(res.err, f'himorime: error: cannot read "{path}": not a regular file '
                                  '(a FIFO) [HMR2001]\nhimorime: exit 2: invalid input\n')

    def test_security__ci_refuses_a_fifo_event(self):
        event = self.fifo("event.json")
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: b
    runs: 10
    commands:
      c: {command: [/bin/true]}
"""))
        res = self.run_h(["ci", "--dry-run", path], timeout=20,
                         env={"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event})
        self.assertExit(res, 4)
        self.assertEqual(res.err, f'himorime: error: github: event payload: cannot read "{event}": '
                                  'not a regular file (a FIFO) [HMR4001]\n'
                                  'himorime: exit 4: execution failed\n')

    def test_security__run_refuses_a_fifo_stdin_at_its_open(self):
        # Checked when a run opens it (issue 28, must-fix 5: setup may write
        # the file), never waited on: the command does not start.
        fifo = self.fifo("in")
        marker = os.path.join(self.tmp, "ran")
        path = self.write("himorime.yaml", suite(f"""
benchmarks:
  - name: b
    runs: 10
    stdin: {{file: in}}
    commands:
      c: {{command: [sh, -c, "touch {marker}; cat"]}}
"""))
        res = self.run_h(["run", "--format", "json", path], timeout=20)
        self.assertExit(res, 4)
        b = json.loads(res.out)["suites"][0]["benchmarks"][0]
        self.assertEqual(b["result"], "error")
        self.assertEqual(b["commands"][0]["head"]["error"]["kind"], "start_failed")
        self.assertEqual(b["commands"][0]["head"]["error"]["message"],
                         f'could not open stdin "{fifo}": not a regular file (a FIFO)')
        self.assertEqual(b["commands"][0]["head"]["count"], 0)
        self.assertFalse(os.path.exists(marker))

    def test_security__run_refuses_a_stdin_that_setup_makes_a_fifo(self):
        marker = os.path.join(self.tmp, "ran")
        path = self.write("himorime.yaml", suite(f"""
benchmarks:
  - name: b
    runs: 10
    setup:
      - command: [mkfifo, "${{workdir}}/in"]
    stdin: "${{workdir}}/in"
    commands:
      c: {{command: [sh, -c, "touch {marker}; cat"]}}
"""))
        res = self.run_h(["run", "--format", "json", path], timeout=20)
        self.assertExit(res, 4)
        err = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]["head"]["error"]
        self.assertRegex(err["message"], r'\Acould not open stdin "[^"]*/work/in": not a '
                                         r'regular file \(a FIFO\)\Z')
        self.assertFalse(os.path.exists(marker))

    def test_security__run_refuses_a_fifo_stdout_without_blocking(self):
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: b
    runs: 10
    setup:
      - command: [mkfifo, "${workdir}/out"]
    commands:
      c: {command: [/bin/true], stdout: out}
"""))
        res = self.run_h(["run", "--format", "json", path], timeout=20)
        self.assertExit(res, 4)
        b = json.loads(res.out)["suites"][0]["benchmarks"][0]
        self.assertEqual(b["result"], "error")


class StderrFileTest(PrivateTmpTest):
    """A failing command's stderr tail is read from a file the command can
    replace: a FIFO put in its place is skipped, never waited on."""

    def test_security__a_fifo_in_place_of_a_commands_stderr_is_not_waited_on(self):
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: b
    runs: 3
    commands:
      c:
        command: 'f=$(readlink /proc/self/fd/2); rm "$f"; mkfifo "$f"; exit 3'
        shell: true
"""))
        res = self.run_h(["run", "--format", "json", path], timeout=30)
        self.assertExit(res, 4)
        c = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]
        self.assertEqual((c["result"], c["head"]["error"]["message"]),
                         ("error", "exited with code 3"))
        self.assertTrue(res.err.endswith("himorime: exit 4: 1 command failed\n"), res.err)


class SignalTest(PrivateTmpTest):
    """Item 6: SIGINT, SIGTERM, SIGHUP and SIGQUIT stop a run (the tree is
    killed, cleanup runs); a reader that goes away (SIGPIPE, EPIPE) ends it
    quietly; nothing is left behind."""

    def start_long_run(self, *args, stdout=subprocess.PIPE):
        self.pidfile = os.path.join(self.tmp, "pids")
        self.marker = os.path.join(self.tmp, "cleaned")
        path = self.write("himorime.yaml", suite(f"""
build:
  command: [cp, /bin/true, "${{artifact}}"]
benchmarks:
  - name: long
    runs: 10
    cleanup:
      - command: [touch, "{self.marker}"]
    commands:
      tree:
        command: ["{HELPERS}/tree", "{self.pidfile}", wait]
        timeout: 60s
"""))
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        env.pop("GITHUB_ACTIONS", None)
        p = subprocess.Popen([HIMORIME, "run", *args, path], env=env, stdout=stdout,
                             stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 20
        while not os.path.exists(self.pidfile) or len(open(self.pidfile).read().split()) < 5:
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        # The build's and the run's private directories exist now.
        self.assertEqual(len(os.listdir(self.private_tmp)), 2, os.listdir(self.private_tmp))
        return p

    def assert_tree_gone(self):
        pids = [int(x) for x in open(self.pidfile).read().split()]
        time.sleep(0.2)
        self.assertEqual([x for x in pids if alive(x)], [])
        self.assertTrue(os.path.exists(self.marker))

    def test_security__stopping_signals_stop_the_run_and_clean_up(self):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            p = self.start_long_run("--format", "json")
            p.send_signal(sig)
            out, err = p.communicate(timeout=30)
            self.assertEqual(p.returncode, 4, (sig, err))
            self.assertTrue(err.endswith("himorime: exit 4: interrupted, 1 benchmark could not "
                                         "run, 1 command failed\n"), err)
            self.assertTrue(json.loads(out)["summary"]["interrupted"])
            self.assert_tree_gone()
            self.assertEqual(os.listdir(self.private_tmp), [])
            os.remove(self.pidfile)
            os.remove(self.marker)

    def test_security__reader_going_away_ends_quietly(self):
        r, w = os.pipe()
        p = self.start_long_run("--format", "json", stdout=w)
        os.close(w)
        os.close(r)  # the reader goes away before the report is written
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 4, err)
        # the build's lines came before; nothing after the reader went away
        self.assertRegex(err, r"\Ahimorime: t: build \(head\) started\n"
                              r"himorime: t: build \(head\) finished in \d+\.\d s\n\Z")
        self.assert_tree_gone()
        self.assertEqual(os.listdir(self.private_tmp), [])


class OutputPathTest(PrivateTmpTest):
    """Item 5: report.outputs are checked where they are written, and a
    stdout path that can only be a directory is refused by validate."""

    def run_outputs(self, path, extra=""):
        suite_path = self.write("proj/himorime.yaml", suite(f"""
report:
  outputs:
    - {{format: json, path: {path}}}
benchmarks:
  - name: b
    runs: 10
{extra}    commands:
      c: {{command: [/bin/true]}}
"""))
        with open(suite_path) as f:
            before = f.read()
        res = self.run_h(["run", "--quiet", "--format", "csv", suite_path])
        with open(suite_path) as f:
            self.assertEqual(f.read(), before)
        return res

    def test_security__an_output_cannot_overwrite_the_suite_file(self):
        res = self.run_outputs("himorime.yaml")
        self.assertExit(res, 4)
        path = os.path.join(self.tmp, "proj", "himorime.yaml")
        self.assertIn(f'himorime: error: report.outputs "{path}": is an input of the suite '
                      '(the suite file or a stdin file) [HMR4003]\n', res.err)

    def test_security__an_output_cannot_overwrite_a_stdin_file(self):
        self.write("proj/input.txt", "keep me\n")
        res = self.run_outputs("input.txt", "    stdin: {file: input.txt}\n")
        self.assertExit(res, 4)
        self.assertIn('is an input of the suite', res.err)
        with open(os.path.join(self.tmp, "proj", "input.txt")) as f:
            self.assertEqual(f.read(), "keep me\n")

    def test_security__an_output_does_not_follow_a_link_out_of_the_project(self):
        outside = os.path.join(self.tmp, "outside")
        os.makedirs(outside)
        os.makedirs(os.path.join(self.tmp, "proj"))
        os.symlink(outside, os.path.join(self.tmp, "proj", "out"))
        res = self.run_outputs("out/deeper/report.json")
        self.assertExit(res, 4)
        path = os.path.join(self.tmp, "proj", "out", "deeper", "report.json")
        self.assertIn(f'himorime: error: report.outputs "{path}": its directory is '
                      f'"{outside}", outside the suite\'s directory '
                      f'"{os.path.join(self.tmp, "proj")}" [HMR4003]\n', res.err)
        self.assertEqual(os.listdir(outside), [])

    def test_security__an_output_inside_the_project_is_written(self):
        res = self.run_outputs("perf/new/report.json")
        self.assertExit(res, 0)
        with open(os.path.join(self.tmp, "proj", "perf", "new", "report.json")) as f:
            self.assertEqual(json.load(f)["suites"][0]["name"], "t")

    def test_security__validate_refuses_a_directory_as_stdout(self):
        for value in (".", "sub/..", "sub/"):
            path = self.write("himorime.yaml", suite(f"""
benchmarks:
  - name: b
    runs: 10
    commands:
      c: {{command: [/bin/true], stdout: "{value}"}}
"""))
            res = self.run_h(["validate", path])
            self.assertExit(res, 2)
            self.assertIn(f'benchmarks[0].commands.c.stdout: expected "discard" or a file '
                          f'inside ${{workdir}}, got "{value}" [HMR2001]\n', res.err)


class CountFilesTest(PrivateTmpTest):
    """Issue 27, item 3: valgrind's out files lie in a directory the measured
    code can write. What it plants there (a FIFO, a link to /dev/zero) is an
    error of that run's counts (exit 6), at once: no wait, no memory growth."""

    def plant(self, how):
        # In counted runs ${root} is <private directory>/root, and the out
        # files of command k go to <private directory>/counts-k.
        path = self.write("himorime.yaml", suite(f"""
benchmarks:
  - name: b
    runs: 3
    metrics: {{instructions: {{backend: valgrind}}}}
    commands:
      c:
        command: 'd=$(dirname ${{root}}); for c in "$d"/counts-*; do if [ -d "$c" ]; then {how} "$c/cg.zz"; fi; done'
        shell: true
"""))
        res = self.run_h(["run", "--format", "json", "--seed", "1", path], timeout=60)
        self.assertExit(res, 6)
        c = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]
        m = c["head"]["metrics"]["instructions"]
        self.assertEqual((c["result"], m["status"], m["samples"]), ("metric_error", "failed", []))
        return m["reason"]

    def test_security__a_fifo_among_the_counts_is_an_error_not_a_wait(self):
        self.assertRegex(self.plant("mkfifo"), r'^cannot read "/\S+/counts-0/cg\.zz": not a '
                                               r'regular file \(a FIFO\)$')

    def test_security__sigterm_stops_the_counted_runs_at_once(self):
        # The counted run plants a FIFO among its out files and then waits:
        # SIGTERM ends the run (exit 4, interrupted) without reading anything,
        # and leaves no process or directory behind.
        marker = os.path.join(self.tmp, "counting")
        path = self.write("himorime.yaml", suite(f"""
benchmarks:
  - name: b
    runs: 3
    metrics: {{instructions: {{backend: valgrind}}}}
    commands:
      c:
        command: 'd=$(dirname ${{root}}); for c in "$d"/counts-*; do if [ -d "$c" ]; then mkfifo "$c/cg.zz"; touch {marker}; sleep 60; fi; done'
        shell: true
"""))
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        env.pop("GITHUB_ACTIONS", None)
        p = subprocess.Popen([HIMORIME, "run", "--format", "json", path], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while not os.path.exists(marker):
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 4, err)
        self.assertTrue(json.loads(out)["summary"]["interrupted"])
        self.assertTrue(err.endswith("himorime: exit 4: interrupted, 1 benchmark could not "
                                     "run\n"), err)
        # nothing of valgrind's either (its gdbserver FIFOs: --vgdb=no)

    def test_security__a_link_to_dev_zero_among_the_counts_is_not_followed(self):
        self.assertRegex(self.plant("ln -s /dev/zero"), r'^cannot read "/\S+/counts-0/cg\.zz": '
                                                        r'a symbolic link$')


# A `valgrind` the pull request plants first on PATH: it records that it ran
# and with what environment, then hands over to the real one.
FAKE_VALGRIND = """#!/bin/sh
env > "{marker}"
exec /usr/bin/valgrind "$@"
"""


class HelperProgramTest(PrivateTmpTest):
    """Issue 27, item 2: valgrind is found once at start, only where the
    measured code cannot write, and runs with the environment the measured
    commands get; `--` ends its options."""

    def setUp(self):
        super().setUp()
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        self.marker = os.path.join(self.tmp, "fake-ran")
        self.fake = self.write("fake-valgrind", FAKE_VALGRIND.format(marker=self.marker))
        os.chmod(self.fake, 0o755)
        self.version = subprocess.run(["/usr/bin/valgrind", "--version"], capture_output=True,
                                      text=True).stdout.strip()[len("valgrind-"):]

    def counts(self, body):
        path = self.write("himorime.yaml", suite(body))
        env = {"PATH": self.bin + ":" + os.environ["PATH"], "GITHUB_OUTPUT": "sentinel-output",
               "GITHUB_TOKEN": "sentinel-token"}
        res = self.run_h(["run", "--format", "json", "--seed", "1", path], env=env, timeout=120)
        self.assertExit(res, 0)
        self.assertFalse(os.path.exists(self.marker),
                         open(self.marker).read() if os.path.exists(self.marker) else "")
        m = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]["head"][
            "metrics"]["instructions"]
        self.assertEqual((m["status"], len(m["samples"]), m["counter"]["version"]),
                         ("measured", 3, self.version))
        return m

    def test_security__a_valgrind_planted_before_start_never_runs(self):
        subprocess.run(["cp", self.fake, os.path.join(self.bin, "valgrind")], check=True)
        self.counts("""
benchmarks:
  - name: b
    runs: 3
    metrics: {instructions: {backend: valgrind}}
    commands:
      c: {command: [/bin/true]}
""")

    def test_security__a_valgrind_planted_by_the_build_never_runs(self):
        self.counts(f"""
build:
  command: "cp {self.fake} {self.bin}/valgrind && cp /bin/true ${{artifact}}"
  shell: true
benchmarks:
  - name: b
    runs: 3
    metrics: {{instructions: {{backend: valgrind}}}}
    commands:
      c: {{command: ["${{artifact}}"]}}
""")
        self.assertTrue(os.path.exists(os.path.join(self.bin, "valgrind")))

    def test_security__a_command_named_like_an_option_is_counted(self):
        subprocess.run(["cp", "/bin/true", os.path.join(self.bin, "-true")], check=True)
        m = self.counts("""
benchmarks:
  - name: b
    runs: 3
    metrics: {instructions: {backend: valgrind}}
    commands:
      c: {command: [-true]}
""")
        self.assertGreater(m["samples"][0], 1000)


class ActionsListingTest(PrivateTmpTest):
    """Issue 27, item 5: in Actions, `list` and `validate` quote what they
    print (names, file names and commands come from the pull request's
    suite): no line of it can become a workflow command."""

    QUOTED = r"\A::stop-commands::([0-9a-f]{32})\n(.*)::\1::\n\Z"

    def setUp(self):
        super().setUp()
        self.dir = os.path.join(self.tmp, "suites")
        self.write("suites/x\n::warning::named.himorime.yaml", suite("""
benchmarks:
  - name: b
    commands:
      a: {command: "echo a\\n::warning::injected", shell: true}
"""))

    def test_security__list_quotes_what_it_prints_in_actions(self):
        for fmt in ("text", "json"):
            res = self.run_h(["list", "--format", fmt, self.dir], env={"GITHUB_ACTIONS": "true"})
            self.assertExit(res, 0)
            m = re.match(self.QUOTED, res.out, re.S)
            self.assertIsNotNone(m, res.out)
            plain = self.run_h(["list", "--format", fmt, self.dir])
            self.assertEqual(m.group(2), plain.out)
        text = self.run_h(["list", self.dir]).out
        self.assertIn("\techo a\n::warning::injected\n", text)

    def test_security__validate_quotes_what_it_prints_in_actions(self):
        res = self.run_h(["validate", self.dir], env={"GITHUB_ACTIONS": "true"})
        self.assertExit(res, 0)
        m = re.match(self.QUOTED, res.out, re.S)
        self.assertIsNotNone(m, res.out)
        self.assertEqual(m.group(2), "%s/x\n::warning::named.himorime.yaml: ok (1 benchmark, "
                                     "1 command)\n" % self.dir)
        self.assertEqual(self.run_h(["validate", self.dir]).out, m.group(2))
