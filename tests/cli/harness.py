"""Helpers shared by the end-to-end tests: where the built binary is, running it
with a clean environment and a timeout, and temporary directories that are
always removed."""
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("HIMORIME_BUILD", os.path.join(ROOT, "build"))
HIMORIME = os.path.join(BUILD, "himorime")
HELPERS = os.path.join(BUILD, "tests", "helpers")
DATA = os.path.join(ROOT, "tests", "data")

# Google Benchmark's header, whose presence the harness tests need, and the
# work their programs measure: a serial chain of integer steps, whose time per
# iteration is its length and nothing else (no memory, no allocation).
GB_HEADER = "/usr/include/benchmark/benchmark.h"
GB_CHAIN = r"""static uint64_t chain(uint64_t x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}
"""
# Sanitizer builds inflate every memory figure: absolute floor checks are skipped.
SANITIZED = os.path.basename(BUILD).startswith("build-san")


def suite(body, name="t"):
    """A suite file's text: version, name, then body."""
    return f'version: "1"\nname: {name}\n' + body


def alive(pid):
    """True when pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class Result:
    def __init__(self, proc):
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def __repr__(self):
        return f"exit {self.code}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


def run(args, cwd=None, env=None, timeout=120, stdin=None):
    """Runs himorime with args; returns a Result with code, out and err."""
    e = dict(os.environ)
    e.pop("GITHUB_ACTIONS", None)
    e["NO_COLOR"] = "1"
    if env:
        e.update(env)
    proc = subprocess.run([HIMORIME] + list(args), cwd=cwd, env=e, timeout=timeout,
                          input=stdin, capture_output=True, text=True)
    return Result(proc)


class TempDirTest(unittest.TestCase):
    """A test case with a fresh temporary directory in self.tmp."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="himorime-e2e-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def assertExit(self, res, code):
        self.assertEqual(res.code, code, repr(res))


class PrivateTmpTest(TempDirTest):
    """himorime runs with TMPDIR set to a private, initially empty directory
    that must be empty again when the test ends: no temporary directory left
    behind, whatever other processes on the machine do in /tmp."""

    def setUp(self):
        super().setUp()
        self.private_tmp = os.path.join(self.tmp, "private-tmp")
        os.makedirs(self.private_tmp)

    def tearDown(self):
        self.assertEqual(os.listdir(self.private_tmp), [], "temporary directories left behind")
        super().tearDown()

    def run_h(self, args, env=None, **kw):
        e = dict(env or {})
        e["TMPDIR"] = self.private_tmp
        return run(args, env=e, **kw)


class GitRepoTest(PrivateTmpTest):
    """A PrivateTmpTest with an empty git repository in self.repo (branch
    main, an author set) and self.git to run git in it."""

    def setUp(self):
        super().setUp()
        self.repo = os.path.join(self.tmp, "repo")
        os.makedirs(self.repo)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "t@example.com")
        self.git("config", "user.name", "t")

    def git(self, *args):
        return subprocess.run(["git", *args], cwd=self.repo, check=True, capture_output=True,
                              text=True).stdout
