"""Builds (issue 28, must-fix 4): each side's build says when it starts and
ends on stderr, with its duration; one himorime at a time builds in a working
tree (a lock in its git directory, or in the suite's directory outside git),
released on every way out; and a failed build is what the report's headline
and last line say, with its stderr below."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import HIMORIME, GitRepoTest, PrivateTmpTest, suite

DURATION = r"\d+\.\d s"


def waiting_build(started, go):
    """A build that says it started, then waits (at most 60 s) for `go`."""
    return (f'  command: [sh, -c, "touch {started}; i=0; while [ ! -e {go} ] && '
            f'[ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; cp /bin/true ${{artifact}}"]\n')


BENCH = """benchmarks:
  - name: b
    runs: 10
    commands:
      c: {command: ["${artifact}"]}
"""


class BuildLinesTest(GitRepoTest):
    def commit_suite(self, build):
        self.write("repo/himorime.yaml", suite("build:\n" + build + BENCH, name="s"))
        self.git("add", "-A")
        self.git("commit", "-qm", "suite")

    def test_issue28_must_fix4__each_sides_build_says_start_end_and_duration(self):
        self.commit_suite('  command: [sh, -c, "echo compiling; cp /bin/true ${artifact}"]\n')
        self.write("repo/notes.txt", "a change: head is not the base's tree\n")
        res = self.run_h(["compare", "--against", "HEAD", "--seed", "1"], cwd=self.repo)
        self.assertExit(res, 0)
        builds = [line for line in res.err.splitlines() if ": build (" in line]
        self.assertEqual(len(builds), 4, res.err)
        for line, want in zip(builds, (r"s: build \(head\) started",
                                       r"s: build \(head\) finished in " + DURATION,
                                       r"s: build \(base\) started",
                                       r"s: build \(base\) finished in " + DURATION)):
            self.assertRegex(line, r"\Ahimorime: " + want + r"\Z")

    def test_issue28_must_fix4__quiet_prints_no_build_lines(self):
        self.commit_suite('  command: [cp, /bin/true, "${artifact}"]\n')
        res = self.run_h(["run", "-q", "--seed", "1"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertEqual(res.err, "")

    def test_issue28_must_fix4__a_failed_build_is_the_headline_with_its_stderr(self):
        self.commit_suite('  command: [sh, -c, "echo compiling >&2; echo oops >&2; exit 2"]\n')
        res = self.run_h(["run", "--seed", "1"], cwd=self.repo)
        self.assertExit(res, 4)
        self.assertRegex(res.err, r"\Ahimorime: s: build \(head\) started\n"
                                  r"himorime: s: build \(head\) failed after " + DURATION +
                                  r": exited with code 2\n"
                                  r"himorime: exit 4: build failed \(head\)\n\Z")
        self.assertIn("\n    stderr (last lines):\n      | compiling\n      | oops\n", res.out)
        self.assertTrue(res.out.endswith("\nbuild failed (head) · seed 1 · exit 4\n"), res.out)
        self.write("repo/notes.txt", "a change\n")
        res = self.run_h(["compare", "--against", "HEAD", "--seed", "1", "--format", "github"],
                         cwd=self.repo)
        self.assertExit(res, 4)
        lines = res.out.splitlines()
        self.assertEqual(lines[0], "### ❌ himorime: build failed (head)")
        self.assertNotIn("0 benchmarks", res.out)
        self.assertNotIn("no commands", res.out)
        self.assertIn("  ```text\n  compiling\n  oops\n  ```\n", res.out)

    def test_issue28_must_fix4__a_build_without_artifact_says_the_side(self):
        self.commit_suite('  command: ["true"]\n')
        res = self.run_h(["run", "--seed", "1", "--format", "json"], cwd=self.repo)
        self.assertExit(res, 4)
        doc = json.loads(res.out)
        self.assertEqual(doc["suites"][0]["error"]["kind"], "build_failed")
        self.assertTrue(res.err.endswith("himorime: exit 4: build failed (head)\n"), res.err)


class TreeLockTest(GitRepoTest):
    """Two runs on one tree at once: the second is refused."""

    def setUp(self):
        super().setUp()
        self.started = os.path.join(self.tmp, "started")
        self.go = os.path.join(self.tmp, "go")
        self.lock = os.path.join(self.repo, ".git", "himorime.lock")
        self.write("repo/himorime.yaml",
                   suite("build:\n" + waiting_build(self.started, self.go) + BENCH, name="s"))
        self.git("add", "-A")
        self.git("commit", "-qm", "suite")

    def start(self, *args):
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        env.pop("GITHUB_ACTIONS", None)
        p = subprocess.Popen([HIMORIME, *args, "-q", "--seed", "1"], cwd=self.repo, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        deadline = time.time() + 30
        while not os.path.exists(self.started):
            self.assertLess(time.time(), deadline, "the first build never started")
            self.assertIsNone(p.poll())
            time.sleep(0.02)
        return p

    def refused(self, pid, args):
        res = self.run_h(args + ["-q"], cwd=self.repo)
        self.assertExit(res, 4)
        self.assertEqual(
            res.err,
            f'himorime: error: the working tree "{self.repo}" is in use by another himorime '
            f'(pid {pid}), which holds "{self.lock}" [HMR4001]\n'
            "  hint: two runs on one tree build over each other: wait for that one to end, "
            "or measure a copy of the tree (git worktree add)\n"
            "himorime: exit 4: the working tree is in use\n")
        self.assertEqual(res.out, "")

    def test_issue28_must_fix4__a_second_run_on_the_tree_is_refused(self):
        p = self.start("run")
        with open(self.lock) as f:
            self.assertEqual(f.read(), f"{p.pid}\n")
        self.refused(p.pid, ["run"])
        self.refused(p.pid, ["compare", "--against", "HEAD"])
        self.refused(p.pid, ["calibrate"])
        open(self.go, "w").close()
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertFalse(os.path.exists(self.lock))
        res = self.run_h(["run", "-q", "--seed", "1"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertFalse(os.path.exists(self.lock))

    def test_issue28_must_fix4__the_lock_goes_with_an_interrupted_run(self):
        p = self.start("compare", "--against", "HEAD")
        self.assertTrue(os.path.exists(self.lock))
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 4, err)
        self.assertFalse(os.path.exists(self.lock))

    def test_issue28_must_fix4__a_lock_left_by_a_killed_run_is_taken_over(self):
        p = self.start("run")
        p.kill()  # SIGKILL: nothing of himorime runs; the kernel drops the lock
        p.communicate(timeout=30)
        self.assertTrue(os.path.exists(self.lock))
        with open(self.lock) as f:
            self.assertEqual(f.read(), f"{p.pid}\n")
        # what the killed run left (its build waits on `go`; the spawner kills
        # its tree when himorime goes away) is no concern of the next run
        open(self.go, "w").close()
        res = self.run_h(["run", "-q", "--seed", "1"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertFalse(os.path.exists(self.lock))

    def test_issue28_must_fix4__a_commit_as_head_builds_in_its_own_tree(self):
        # Another process holds the tree's lock (as a himorime would); a
        # comparison of two commits builds in trees of its own and goes on.
        holder = subprocess.Popen(
            ["python3", "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'w'); "
             "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
             self.lock], stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: holder.poll() is None and holder.kill())
        self.assertEqual(holder.stdout.readline(), "held\n")
        open(self.go, "w").close()
        res = self.run_h(["compare", "--against", "HEAD", "--head", "HEAD", "-q"],
                         cwd=self.repo)
        self.assertExit(res, 0)
        res = self.run_h(["run", "-q"], cwd=self.repo)
        self.assertExit(res, 4)
        self.assertIn(f'is in use by another himorime, which holds "{self.lock}" [HMR4001]\n',
                      res.err)
        holder.kill()
        holder.communicate()

    def test_issue28_must_fix4__a_symbolic_link_is_never_followed(self):
        victim = self.write("victim.txt", "keep me\n")
        os.symlink(victim, self.lock)
        open(self.go, "w").close()
        res = self.run_h(["run", "-q", "--seed", "1"], cwd=self.repo)
        self.assertExit(res, 0)
        self.assertEqual(res.err,
                         f'himorime: warning: cannot lock the working tree with "{self.lock}": '
                         "a symbolic link, never followed: another himorime could build in "
                         f'"{self.repo}" at the same time\n')
        with open(victim) as f:
            self.assertEqual(f.read(), "keep me\n")
        self.assertTrue(os.path.islink(self.lock))


class TreeLockOutsideGitTest(PrivateTmpTest):
    def test_issue28_must_fix4__outside_git_the_lock_is_in_the_suites_directory(self):
        started = os.path.join(self.tmp, "started")
        go = os.path.join(self.tmp, "go")
        d = os.path.join(self.tmp, "plain")
        path = self.write("plain/himorime.yaml",
                          suite("build:\n" + waiting_build(started, go) + BENCH, name="s"))
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        p = subprocess.Popen([HIMORIME, "run", "-q", path], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        deadline = time.time() + 30
        while not os.path.exists(started):
            self.assertLess(time.time(), deadline)
            time.sleep(0.02)
        lock = os.path.join(d, ".himorime.lock")
        res = self.run_h(["run", "-q", path])
        self.assertExit(res, 4)
        self.assertIn(f'the working tree "{d}" is in use by another himorime (pid {p.pid}), '
                      f'which holds "{lock}" [HMR4001]\n', res.err)
        open(go, "w").close()
        p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(sorted(os.listdir(d)), ["himorime.yaml"])


class InitBuildTest(PrivateTmpTest):
    """`init` writes a build step for the build system it sees (issue 28,
    should-fix), and a build that leaves no ${artifact} says how to."""

    def repo(self, name, files):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        subprocess.run(["git", "init", "-q", "-b", "main", d], check=True)
        for rel, text in files.items():
            self.write(os.path.join(name, rel), text)
        return d

    def git(self, d, *args):
        subprocess.run(["git", "-c", "user.email=t@e", "-c", "user.name=t", *args], cwd=d,
                       check=True, capture_output=True)

    def test_issue28_should_fix__init_writes_a_make_build_that_runs(self):
        d = self.repo("hello", {
            "hello.c": '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n',
            "Makefile": "hello: hello.c\n\tcc -O2 -o hello hello.c\n",
            ".gitignore": "hello\n",
        })
        res = self.run_h(["init"], cwd=d)
        self.assertExit(res, 0)
        self.assertEqual(res.out, "wrote himorime.yaml (with a build step for the Makefile "
                                  "found: check it) and himorime.schema.json; check it with "
                                  "'himorime validate himorime.yaml'\n")
        with open(os.path.join(d, "himorime.yaml")) as f:
            text = f.read()
        self.assertIn("""
# Found make (Makefile). The build runs in each revision's own tree (your
# working tree; in a comparison, a temporary one for the base) and
# must leave the program at ${artifact}, the file the commands run.
# Check the program's name: hello.
build:
  command: 'make -j$(nproc) && cp hello ${artifact}'
  shell: true
  timeout: 30m
""", text)
        self.assertIn('        command: ["${artifact}", --version]\n', text)
        res = self.run_h(["run", "-q", "--runs", "10"], cwd=d)
        self.assertExit(res, 0)
        self.git(d, "add", "-A")
        self.git(d, "commit", "-qm", "x")
        self.write("hello/hello.c", '#include <stdio.h>\nint main(void) { puts("hey"); }\n')
        res = self.run_h(["compare", "--against", "HEAD", "-q", "--runs", "10"], cwd=d)
        self.assertExit(res, 0)

    def test_issue28_should_fix__init_finds_each_build_system_and_its_program(self):
        cases = [
            ({"Cargo.toml": '[package]\nname = "ripgrep"\n\n[[bin]]\nname = "rg"\n'},
             "cargo build --release && cp target/release/rg ${artifact}"),
            ({"Cargo.toml": '[package]\nname = "tool"\nversion = "1.0"\n'},
             "cargo build --release && cp target/release/tool ${artifact}"),
            ({"go.mod": "module example.com/x\n", "main.go": "package main\nfunc main() {}\n"},
             "go build -o ${artifact} ."),
            ({"go.mod": "module example.com/x\n", "cmd/zz/main.go": "package main\n",
              "cmd/aa/main.go": "package main\n", "lib.go": "package x\n"},
             "go build -o ${artifact} ./cmd/aa"),
            ({"CMakeLists.txt": "project(z C)\nadd_executable( zstd src/main.c)\n", "Makefile": ""},
             "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build --parallel"
             " && cp build/zstd ${artifact}"),
            ({"meson.build": "project('d', 'c')\nexecutable('demo', 'main.c')\n"},
             "{ test -d build || meson setup build --buildtype=release; } && meson compile -C"
             " build && cp build/demo ${artifact}"),
            ({"configure.ac": "AC_INIT([jq], [1.7.1])\n", "Makefile": "all:\n"},
             "autoreconf -fi && ./configure && make -j$(nproc) && cp jq ${artifact}"),
            ({"configure": "#!/bin/sh\n"},
             "./configure && make -j$(nproc) && cp PROGRAM ${artifact}"),
            ({"package.json": '{"name": "x", "bin": {"x": "bin/cli.js"}}'},
             "npm ci && npm run build --if-present && printf '#!/bin/sh\\nexec node %s "
             "\"$@\"\\n' \"$PWD/bin/cli.js\" > ${artifact} && chmod +x ${artifact}"),
            ({"Cargo.toml": "[workspace]\n"},
             "cargo build --release && cp target/release/PROGRAM ${artifact}"),
        ]
        try:
            import yaml
        except ImportError:
            self.skipTest("python3-yaml is needed")
        for i, (files, command) in enumerate(cases):
            with self.subTest(files=sorted(files)):
                d = self.repo(f"p{i}", files)
                self.assertExit(self.run_h(["init"], cwd=d), 0)
                with open(os.path.join(d, "himorime.yaml")) as f:
                    doc = yaml.safe_load(f)
                self.assertEqual(doc["build"], {"command": command, "shell": True,
                                                "timeout": "30m"})
                res = self.run_h(["validate"], cwd=d)
                self.assertExit(res, 0)

    def test_issue28_should_fix__init_finds_the_build_above_the_suite(self):
        d = self.repo("top", {"Makefile": "all:\n", "bench/.keep": ""})
        res = self.run_h(["init", "bench/himorime.yaml"], cwd=d)
        self.assertExit(res, 0)
        with open(os.path.join(d, "bench", "himorime.yaml")) as f:
            text = f.read()
        self.assertIn("build:\n  command: 'make -j$(nproc) && cp top ${artifact}'\n"
                      "  shell: true\n  cwd: ..\n  timeout: 30m\n", text)
        # outside a repository only the suite's own directory counts
        self.write("loose/Makefile", "all:\n")
        os.makedirs(os.path.join(self.tmp, "loose", "sub"))
        res = self.run_h(["init", "sub/himorime.yaml"], cwd=os.path.join(self.tmp, "loose"))
        self.assertExit(res, 0)
        with open(os.path.join(self.tmp, "loose", "sub", "himorime.yaml")) as f:
            self.assertNotIn("build:", f.read())

    def test_issue28_should_fix__a_build_without_artifact_says_how_for_its_system(self):
        d = self.repo("proj", {"Makefile": "all:\n\ttrue\n", "himorime.yaml": suite(
            "build:\n  command: [make]\n" + BENCH, name="s")})
        res = self.run_h(["run", "--format", "json", "-q"], cwd=d)
        self.assertExit(res, 4)
        self.assertEqual(
            json.loads(res.out)["suites"][0]["error"]["message"],
            "build (head): finished but did not create ${artifact}: the build must leave the "
            "program there; this tree builds with make (Makefile): e.g. command: "
            '"make -j$(nproc) && cp PROGRAM ${artifact}", shell: true (himorime init writes '
            "such a step)")
        os.unlink(os.path.join(d, "Makefile"))
        self.write("proj/himorime.yaml", suite('build:\n  command: ["true"]\n' + BENCH,
                                               name="s"))
        res = self.run_h(["run", "--format", "json", "-q"], cwd=d)
        self.assertExit(res, 4)
        self.assertEqual(
            json.loads(res.out)["suites"][0]["error"]["message"],
            "build (head): finished but did not create ${artifact}: the build must leave the "
            "program there (e.g. end it with cp PROGRAM ${artifact})")


if __name__ == "__main__":
    unittest.main()
