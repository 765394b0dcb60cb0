"""`himorime sweep`, `history`, `merge` and `bisect` end to end on real git
repositories of 22 commits made in a temporary directory: a small C program,
built by the suite, becomes 3x slower at one commit (and, in another
repository, 10% slower); the sweep records every commit, the history marks
the step at that commit, bisect names it, a flat stretch has no change point,
two shards merged equal one sweep, and the user's refs stay as they were."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from harness import HIMORIME, run

PROGRAM = r"""#include <stdio.h>
int main(void) {
	volatile double x = 0;
	for (long i = 0; i < LOOPSL; i++) x += i * 0.5;
	printf("%f\n", x);
	return 0;
}
"""

SUITE = """version: "1"
name: sw
build:
  command: [cc, -O1, -o, "${artifact}", work.c]
benchmarks:
  - name: work
    warmup: 1
    metrics: {cpu: true}
    regression:
      latency: {max_percent: TOL}
      cpu_total: {max_percent: TOL}
    commands:
      work:
        command: ["${artifact}"]
"""

COMMITS = 22


class Finished:
    """The exit code and output of a started himorime."""

    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def __repr__(self):
        return f"exit {self.code}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


def finish(proc):
    out, err = proc.communicate(timeout=600)
    return Finished(proc.returncode, out, err)


class Repo:
    """A repository of COMMITS commits c0..c21 whose program runs `fast`
    loops before commit `step` and `slow` loops from it on."""

    def __init__(self, fast, slow, step, tol):
        self.dir = tempfile.mkdtemp(prefix="himorime-e2e-sweep-")
        self.path = os.path.join(self.dir, "repo")
        # himorime's private trees go here, so that the tests can see that
        # none is left behind (other programs may use /tmp meanwhile)
        self.tmp = os.path.join(self.dir, "tmp")
        os.makedirs(self.path)
        os.makedirs(self.tmp)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "t@example.com")
        self.git("config", "user.name", "t")
        self.write("himorime.yaml",
                   SUITE.replace("TOL", str(tol)))
        for i in range(COMMITS):
            self.write("work.c", PROGRAM.replace("LOOPS", str(slow if i >= step else fast)))
            self.write("notes.txt", "note %d\n" % i)
            self.git("add", "-A")
            self.git("commit", "-qm", "c%d" % i)
        self.shas = self.git("rev-list", "--reverse", "HEAD").split()

    def remove(self):
        shutil.rmtree(self.dir, True)

    def write(self, name, text):
        with open(os.path.join(self.path, name), "w") as f:
            f.write(text)

    def git(self, *args):
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True,
                              text=True).stdout

    def user_state(self):
        """Everything of the user's that himorime must not touch."""
        refs = [l for l in self.git("for-each-ref").splitlines() if "refs/himorime/" not in l]
        with open(os.path.join(self.path, ".git", "index"), "rb") as f:
            index = f.read()
        return refs, index, self.git("status", "--porcelain"), self.git("rev-parse", "HEAD")

    def run(self, *args, code=None):
        res = run(list(args), cwd=self.path, timeout=600, env={"TMPDIR": self.tmp})
        if code is not None and res.code != code:
            raise AssertionError("exit %d, expected %d\n%r" % (res.code, code, res))
        return res

    def start(self, *args):
        """Starts himorime without waiting for it."""
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.tmp)
        env.pop("GITHUB_ACTIONS", None)
        return subprocess.Popen([HIMORIME, *args], cwd=self.path, env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def history(self, *args):
        res = self.run("history", "--format", "json", *args, code=0)
        return json.loads(res.out)


class RepoTest(unittest.TestCase):
    """One full sweep of the repository's 22 commits in setUpClass; the tests
    read what it left and run the other commands on the same repository."""
    # the program's start costs as much as ~1M loop iterations on a busy
    # machine: the loop counts below make the whole run 3x and 1.1x slower
    FAST = SLOW = STEP = RUNS = TOL = None

    @classmethod
    def setUpClass(cls):
        cls.repo = Repo(cls.FAST, cls.SLOW, cls.STEP, cls.TOL)
        cls.addClassCleanup(cls.repo.remove)
        cls.before = cls.repo.user_state()
        cls.out = os.path.join(cls.repo.dir, "full.json")
        cls.shards = [os.path.join(cls.repo.dir, "shard%d.json" % k) for k in (1, 2)]
        cls.sweep_all()

    @classmethod
    def sweep_shards(cls, *more):
        """Starts the two slices of the whole range (as the jobs of a matrix
        would run them, at the same time), each into its own ref."""
        return [cls.repo.start("sweep", "HEAD", "--shard", "%d/2" % k, "--runs", str(cls.RUNS),
                               "--seed", str(k), "-q", "--history-ref",
                               "refs/himorime/shard%d" % k, "-o", cls.shards[k - 1])
                for k in (1, 2)]

    def tearDown(self):
        # nothing at all: a compiler killed by an interrupt mid-build leaves
        # its cc*.s in the step's own TMPDIR, which himorime removes
        self.assertEqual(os.listdir(self.repo.tmp), [], "temporary files left behind")

    def changes(self, *args):
        s = self.repo.history("--metric", "cpu_total", *args)["series"]
        self.assertEqual(len(s), 1)
        return s[0]["changes"]


class TenPercentTest(RepoTest):
    """A 10% step against a 4% tolerance, judged on cpu_total (which a busy
    machine disturbs less than wall time), with ~15 ms runs: the start of a
    process jitters by milliseconds here, and a longer run makes that jitter a
    smaller share (an A/A interval of 100 pairs is +-1% instead of +-4%).
    Swept in two shards merged into the history."""
    FAST, SLOW, STEP, RUNS, TOL = 2000000, 2310000, 11, 20, 4

    @classmethod
    def sweep_all(cls):
        for p in cls.sweep_shards():
            finish(p)
        cls.res = cls.repo.run("merge", *cls.shards, "--append")

    def test_history_and_bisect__find_a_ten_percent_step(self):
        self.assertEqual(self.res.code, 0, repr(self.res))
        shas = self.repo.shas
        s = self.repo.history("--metric", "cpu_total")["series"][0]
        self.assertEqual([p["commit"] for p in s["points"]], shas[::-1])
        self.assertEqual([(c["last_good"], c["first_bad"]) for c in s["changes"]],
                         [(shas[self.STEP - 1], shas[self.STEP])])
        c = s["changes"][0]
        self.assertGreater(c["low"], self.TOL / 100)
        self.assertTrue(0.05 < c["change"] < 0.2, c)
        self.assertLess(c["high"], 0.3)
        res = self.repo.run("bisect", "--good", shas[self.STEP - 6], "--bad",
                            shas[self.STEP + 5], "--metric", "cpu_total", "--seed", "12", "-q",
                            code=0)
        self.assertTrue(res.out.startswith(
            "bisect: 11 candidates between %s (good) and %s (bad); each step at 99.75%% "
            "confidence\n" % (shas[self.STEP - 6][:12], shas[self.STEP + 5][:12])), res.out)
        self.assertTrue(res.out.endswith(
            "first bad commit: %s c%d\nlast good commit: %s c%d\n"
            % (shas[self.STEP], self.STEP, shas[self.STEP - 1], self.STEP - 1)), res.out)
        self.assertRegex(res.out, r"\nbad against good: %s c%d\n  work › work: cpu_total "
                         r"[^\n]*: located, midpoint \+\d+\.\d%%\n" % (shas[self.STEP + 5][:12],
                                                                     self.STEP + 5))
        self.assertRegex(res.out, r": nearer bad than the midpoint [^\n]*\n  => bad\n")
        self.assertRegex(res.out, r": nearer good than the midpoint [^\n]*\n  => good\n")
        self.assertEqual(self.repo.user_state(), self.before)


class ThreeTimesTest(RepoTest):
    """A 3x step at c12, and every command around it. The whole range is
    swept once, and at the same time in two shards."""
    FAST, SLOW, STEP, RUNS, TOL = 300000, 3000000, 12, 15, 20

    @classmethod
    def sweep_all(cls):
        procs = cls.sweep_shards()
        cls.res = finish(cls.repo.start("sweep", "HEAD", "--runs", str(cls.RUNS), "--seed", "1",
                                        "-q", "-o", cls.out))
        cls.shard_res = [finish(p) for p in procs]

    def test_sweep__records_every_commit_against_the_first(self):
        self.assertEqual(self.res.code, 0, repr(self.res))
        with open(self.out) as f:
            doc = json.load(f)
        self.assertEqual(doc["mode"], "sweep")
        self.assertEqual([s["commit"]["sha"] for s in doc["suites"]], self.repo.shas)
        self.assertEqual([s["commit"]["subject"] for s in doc["suites"]],
                         ["c%d" % i for i in range(COMMITS)])
        self.assertEqual([s["commit"]["index"] for s in doc["suites"]], list(range(COMMITS)))
        self.assertEqual(doc["sweep"]["reference"], self.repo.shas[0])
        self.assertEqual(doc["sweep"]["range"], "HEAD")
        self.assertEqual(doc["sweep"]["commits"], COMMITS)
        self.assertEqual((doc["sweep"]["shard_index"], doc["sweep"]["shard_count"]), (1, 1))
        self.assertEqual(doc["git"]["base_sha"], self.repo.shas[0])
        self.assertEqual(doc["git"]["head_sha"], self.repo.shas[-1])
        # commits whose build is the reference's byte for byte run its file
        self.assertEqual([s["shared_artifact"] for s in doc["suites"]],
                         [True] * self.STEP + [False] * (COMMITS - self.STEP))
        cmd = doc["suites"][self.STEP]["benchmarks"][0]["commands"][0]
        # the raw values of both sides, and the ratio to the reference
        self.assertEqual(len(cmd["base"]["metrics"]["latency"]["samples"]), self.RUNS)
        self.assertEqual(len(cmd["head"]["metrics"]["latency"]["samples"]), self.RUNS)
        # (three sweeps share the machine: the noise gate may hold a verdict back)
        self.assertIn(cmd["comparisons"]["latency"]["verdict"], ("regression", "inconclusive"))
        self.assertGreater(cmd["comparisons"]["latency"]["change_percent"], 100)
        self.assertGreater(cmd["comparisons"]["latency"]["ci_low_percent"], 50)
        # one directory per commit, one document per suite, under the history ref
        tree = self.repo.git("ls-tree", "--name-only", "refs/himorime/history").split()
        self.assertEqual(sorted(tree), sorted(self.repo.shas))
        files = self.repo.git("ls-tree", "-r", "--name-only",
                              "refs/himorime/history").split()
        self.assertEqual(len(files), COMMITS)
        self.assertRegex(files[0], r"^[0-9a-f]{40}/[0-9a-f]{16}-[0-9a-f]{16}\.json$")
        entry = json.loads(self.repo.git("show", "refs/himorime/history:" + files[0]))
        self.assertEqual(entry["mode"], "sweep")
        self.assertEqual(len(entry["suites"]), 1)
        self.assertEqual(entry["suites"][0]["commit"]["sha"], files[0][:40])
        self.assertEqual(entry["git"]["head_sha"], files[0][:40])
        self.assertEqual(self.res.err, "himorime: sweep: 22 measured, 0 already in the history\n")
        self.assertIn("first bad", self.res.out)

    def test_sweep__leaves_the_users_refs_index_and_tree_alone(self):
        self.assertEqual(self.repo.user_state(), self.before)

    def test_sweep__skips_commits_already_in_the_history(self):
        res = self.repo.run("sweep", "HEAD", "--every", "7", "--runs", "15", code=0)
        self.assertIn("himorime: sweep: 0 measured, 4 already in the history", res.err)
        for i in (0, 7, 14, 21):
            self.assertIn("himorime: sweep: %s is in the history already" % self.repo.shas[i][:12],
                          res.err)
        res = self.repo.run("sweep", "HEAD", "--every", "7", "--max-commits", "2", "--runs", "15",
                            "-q", code=0)
        self.assertIn("himorime: sweep: 0 measured, 2 already in the history", res.err)
        # other settings are another key: measured again
        res = self.repo.run("sweep", "HEAD~1..HEAD", "--seed", "1", "-q", "--runs", "10",
                            "--history-ref", "refs/himorime/other", code=0)
        self.assertIn("1 measured, 0 already", res.err)

    def test_sweep__without_a_terminal_prints_one_line_per_look_and_commit(self):
        res = self.repo.run("sweep", "HEAD~1..HEAD", "--seed", "2", "--runs", "10",
                            "--history-ref", "refs/himorime/progress", code=0)
        sha = self.repo.shas[-1][:12]
        lines = res.err.splitlines()
        self.assertEqual(len(lines), 6, res.err)
        self.assertEqual(lines[0], "himorime: sweep: measuring %s c21" % sha)
        # the reference's build (the commit is the reference's tree here)
        self.assertEqual(lines[1], "himorime: sw: build (base) started")
        self.assertRegex(lines[2], r"^himorime: sw: build \(base\) finished in \d+\.\d s$")
        # each commit's comparison has the default 20 minutes
        self.assertRegex(lines[3], r"^himorime: work: look 1 of 1 at 10 pairs, cap 10 pairs or "
                                   r"1200 s, \d+\.\d s elapsed$")
        self.assertRegex(lines[4], r"^himorime: sweep: commit 1 of 1 \(%s\) measured, "
                                   r"\d+\.\d s elapsed$" % sha)
        self.assertEqual(lines[5], "himorime: sweep: 1 measured, 0 already in the history")

    def test_history__marks_the_step_at_the_commit_that_made_it(self):
        shas = self.repo.shas
        for metric in ("latency", "cpu_total"):
            h = self.repo.history("--metric", metric)
            self.assertEqual(len(h["series"]), 1)
            s = h["series"][0]
            self.assertEqual((s["suite"], s["benchmark"], s["command"], s["metric"]),
                             ("sw", "work", "work", metric))
            self.assertEqual(s["reference"], shas[0])
            self.assertEqual([p["commit"] for p in s["points"]], shas[::-1])
            self.assertEqual([(c["last_good"], c["first_bad"]) for c in s["changes"]],
                             [(shas[self.STEP - 1], shas[self.STEP])], metric)
            c = s["changes"][0]
            # beyond the 20% tolerance (the step is 3x; a loaded machine
            # narrows what a short program's latency shows of it)
            self.assertGreater(c["low"], self.TOL / 100)
            self.assertLessEqual(c["low"], c["change"])
            self.assertLessEqual(c["change"], c["high"])

    def test_history__renders_every_format(self):
        bad = self.repo.shas[self.STEP][:12]
        good = self.repo.shas[self.STEP - 1][:12]
        table = self.repo.run("history", code=0).out
        self.assertTrue(table.startswith(
            "sw › work › work: latency relative to %s (tolerance 20.0%%)\n"
            "COMMIT        SUBJECT  VALUE" % self.repo.shas[0][:12]), table)
        self.assertRegex(table, r"\n%s .*<< \+[0-9.]+%% \[\+[0-9.]+%%, \+[0-9.]+%%\] first bad"
                         % bad)
        self.assertIn('last good %s, first bad %s "c%d"' % (good, bad, self.STEP), table)
        # 22 commits: a step needs 6 on each side, so the ends are named
        ends = ", ".join(s[:12] for s in self.repo.shas[:6])
        newest = ", ".join(s[:12] for s in self.repo.shas[-5:])
        self.assertIn("\na step needs at least 6 commits on each side at 99%% confidence: the "
                      "oldest 6 (%s) and the newest 5 (%s) cannot be judged for a step; their "
                      "verdicts against the reference are in VERDICT\n" % (ends, newest), table)
        self.assertRegex(table, r"\n%s .*  (regression|inconclusive) +<< " % bad)
        md = self.repo.run("history", "--format", "markdown", code=0).out
        self.assertTrue(md.startswith("## himorime history\n\n### work › work (latency)\n"))
        self.assertIn("| Commit | Subject | Value | Reference | Ratio [interval] | Verdict | "
                      "Change |", md)
        self.assertIn("| `%s` | c%d |" % (bad, self.STEP), md)
        csv = self.repo.run("history", "--format", "csv", code=0).out.splitlines()
        self.assertEqual(csv[0], "suite,benchmark,command,metric,commit,subject,reference,"
                         "value,reference_value,ratio,ratio_low,ratio_high,verdict,"
                         "change_point,change,change_low,change_high")
        self.assertEqual(len(csv), 1 + COMMITS)
        row = [r for r in csv if r.split(",")[4] == self.repo.shas[self.STEP]][0].split(",")
        self.assertEqual(row[:7], ["sw", "work", "work", "latency", self.repo.shas[self.STEP],
                                   "c%d" % self.STEP, self.repo.shas[0]])
        self.assertIn(row[12], ("regression", "inconclusive"))
        self.assertEqual(row[13], "first_bad")
        self.assertGreater(float(row[9]), 2)  # the ratio to the reference
        html = self.repo.run("history", "--format", "html", code=0).out
        self.assertTrue(html.startswith("<!DOCTYPE html>"))
        self.assertIn("<svg", html)
        self.assertIn('<tr class="bad"><td>%s</td>' % bad, html)
        out = os.path.join(self.repo.dir, "h.md")
        self.repo.run("history", "--format", "markdown", "-o", out, code=0)
        with open(out) as f:
            self.assertEqual(f.read(), md)

    def test_history__filters_and_refuses_bad_flags(self):
        res = self.repo.run("history", "--benchmark", "^nothing$", "--format", "json", code=0)
        self.assertEqual(json.loads(res.out), {"series": []})
        self.assertEqual(res.err, "himorime: history: no latency results under "
                         "refs/himorime/history for that --benchmark\n")
        self.assertEqual(len(self.repo.history("--benchmark", "^wo")["series"]), 1)
        res = self.repo.run("history", "--metric", "cpu_user", code=3)
        self.assertIn('--metric "cpu_user": expected latency, cpu_total or peak_rss', res.err)
        res = self.repo.run("history", "--format", "yaml", code=3)
        self.assertIn('unknown format "yaml"', res.err)
        res = self.repo.run("history", "--history-ref", "refs/heads/main", code=3)
        self.assertIn("must not be a branch", res.err)
        res = self.repo.run("history", "--keep", "3", code=3)
        self.assertIn("--keep 3 only applies to history prune", res.err)
        res = self.repo.run("history", "prune", code=3)
        self.assertIn("history prune needs --keep N", res.err)
        res = self.repo.run("history", "--history-ref", "refs/himorime/none", "--format", "json",
                            code=0)
        self.assertEqual(json.loads(res.out), {"series": []})

    def test_bisect__names_the_commit_that_made_it_3x_slower(self):
        shas = self.repo.shas
        res = self.repo.run("bisect", "--good", shas[self.STEP - 6], "--bad", shas[self.STEP + 5],
                            "--metric", "cpu_total", "--runs", "60", "--seed", "4", "-q", code=0)
        self.assertTrue(res.out.startswith(
            "bisect: 11 candidates between %s (good) and %s (bad); each step at 99.75%% "
            "confidence\n" % (shas[self.STEP - 6][:12], shas[self.STEP + 5][:12])), res.out)
        self.assertTrue(res.out.endswith(
            "first bad commit: %s c%d\nlast good commit: %s c%d\n"
            % (shas[self.STEP], self.STEP, shas[self.STEP - 1], self.STEP - 1)), res.out)
        steps = [l for l in res.out.splitlines() if l.startswith("step ")]
        self.assertLessEqual(len(steps), 4)  # ceil(log2 11)
        self.assertIn("step 1: %s c%d\n  work › work: cpu_total " % (shas[self.STEP - 1][:12],
                                                                      self.STEP - 1), res.out)
        self.assertRegex(res.out, r"at 99\.75%, 60 pairs: nearer bad than the midpoint "
                                  r"\+\d+\.\d%\n  => bad\n")
        self.assertRegex(res.out, r"at 99\.75%, 60 pairs: nearer good than the midpoint "
                                  r"\+\d+\.\d%\n  => good\n")
        self.assertEqual(self.repo.user_state(), self.before)

    def test_bisect__refuses_what_it_cannot_search(self):
        res = self.repo.run("bisect", "--good", "HEAD", code=3)
        self.assertIn("bisect needs --good REV and --bad REV", res.err)
        res = self.repo.run("bisect", "--good", "HEAD", "--bad", "HEAD~3", code=3)
        self.assertIn("--bad HEAD~3 is not a descendant of --good", res.err)
        res = self.repo.run("bisect", "--good", "HEAD~1", "--bad", "HEAD", "--format", "json",
                            code=3)
        self.assertIn("--format, --output, --section and --summary do not apply", res.err)
        res = self.repo.run("bisect", "--good", "HEAD~1", "--bad", "HEAD", "--metric", "x",
                            code=3)
        self.assertIn('--metric "x": expected latency, cpu_total, peak_rss, instructions, '
                      'allocations, allocated_bytes or artifact_size', res.err)

    def test_sweep__refuses_bad_flags(self):
        res = self.repo.run("sweep", code=3)
        self.assertIn("sweep needs a revision range such as main~20..main", res.err)
        res = self.repo.run("sweep", "HEAD", "--shard", "3/2", code=3)
        self.assertIn('--shard "3/2": expected K/N with 1 <= K <= N <= 1000, such as 2/4',
                      res.err)
        res = self.repo.run("sweep", "HEAD", "--every", "0", code=3)
        self.assertIn('--every "0": expected an integer from 1 to 1000000', res.err)
        res = self.repo.run("sweep", "HEAD", "--format", "samples-csv", code=3)
        self.assertIn("sweep prints table, markdown, csv, json or html", res.err)
        res = self.repo.run("sweep", "HEAD..HEAD", code=3)
        self.assertIn('range "HEAD..HEAD" has no commits', res.err)
        res = self.repo.run("sweep", "no-such-rev..HEAD", code=4)
        self.assertIn("no-such-rev", res.err)

    def test_sweep_and_bisect__a_commit_that_does_not_build(self):
        broken = SUITE.replace('command: [cc, -O1, -o, "${artifact}", work.c]',
                               'command: [sh, -c, "echo no compiler >&2; exit 3"]')
        self.repo.write("broken.himorime.yaml", broken.replace("TOL", "20"))
        try:
            res = self.repo.run("sweep", "HEAD~1..HEAD", "broken.himorime.yaml", "--runs", "10",
                                "--history-ref", "refs/himorime/broken", "--format", "json",
                                "-q", code=4)
            self.assertIn("himorime: exit 4: 1 suite could not be measured", res.err)
            self.assertIn("himorime: sweep: commit 1 of 1 (%s) could not be measured: build "
                          % self.repo.shas[-1][:12], res.err)
            self.assertIn("0 measured, 1 could not be measured, 0 already", res.err)
            # recorded with its error, so the history knows the commit was tried
            tree = self.repo.git("ls-tree", "-r", "--name-only", "refs/himorime/broken").split()
            self.assertEqual([t[:40] for t in tree], [self.repo.shas[-1]])
            doc = json.loads(self.repo.git("show", "refs/himorime/broken:" + tree[0]))
            self.assertEqual(doc["suites"][0]["error"]["kind"], "build_failed")
            self.assertIn("no compiler", doc["suites"][0]["error"]["stderr"])
            # bad against good comes first: nothing to locate when it fails
            res = self.repo.run("bisect", "--good", "HEAD~2", "--bad", "HEAD",
                                "broken.himorime.yaml", "--runs", "10", "-q", code=4)
            self.assertTrue(res.out.endswith("bad against good: %s c%d\n  sw: build (head): "
                                             "exited with code 3\n"
                                             % (self.repo.shas[-1][:12], COMMITS - 1)), res.out)
            self.assertIn("himorime: exit 4: bad against good could not be measured", res.err)
            res = self.repo.run("sweep", "HEAD", "--summary", "x", code=3)
            self.assertIn("--section, --summary and --fail-on-inconclusive do not apply to sweep",
                          res.err)
        finally:
            os.unlink(os.path.join(self.repo.path, "broken.himorime.yaml"))

    def test_sweep__interrupted_keeps_what_it_measured(self):
        ref = "refs/himorime/interrupted"
        proc = self.repo.start("sweep", "HEAD", "--runs", "15", "-q", "--history-ref", ref)
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            if subprocess.run(["git", "rev-parse", "-q", "--verify", ref], cwd=self.repo.path,
                              capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        res = finish(proc)
        self.assertEqual(res.code, 4, repr(res))
        self.assertTrue(res.err.endswith("himorime: exit 4: interrupted\n"), res.err)
        kept = self.repo.git("ls-tree", "--name-only", ref).split()
        self.assertGreaterEqual(len(kept), 1)
        self.assertLess(len(kept), COMMITS)
        # oldest first: the commits kept are the first ones of the range
        self.assertEqual(sorted(kept), sorted(self.repo.shas[:len(kept)]))
        # every commit kept is a whole measurement
        for sha in kept:
            doc = json.loads(self.repo.git("show", "%s:%s" % (ref, self.repo.git(
                "ls-tree", "-r", "--name-only", ref, sha).strip())))
            self.assertFalse(doc["summary"]["interrupted"])
            self.assertEqual(len(doc["suites"][0]["benchmarks"][0]["commands"][0]["head"]
                                 ["metrics"]["latency"]["samples"]), 15)
        self.assertEqual(self.repo.user_state(), self.before)

    def test_sweep__two_shards_merged_equal_one_sweep(self):
        m = os.path.join(self.repo.dir, "m.json")
        a, b = self.shards
        for res in self.shard_res:
            self.assertEqual(res.code, 0, repr(res))
        with open(a) as f:
            shard_a = json.load(f)
        self.assertEqual((shard_a["sweep"]["shard_index"], shard_a["sweep"]["shard_count"]),
                         (1, 2))
        self.assertEqual([s["commit"]["sha"] for s in shard_a["suites"]],
                         self.repo.shas[:COMMITS // 2])
        res = self.repo.run("merge", b, a, "-o", m, "--append", "--history-ref",
                            "refs/himorime/merged", code=0)
        self.assertEqual(res.err, "himorime: merge: 22 results recorded in refs/himorime/merged\n")
        with open(m) as f:
            merged = json.load(f)
        with open(self.out) as f:
            full = json.load(f)
        self.assertEqual([s["commit"]["sha"] for s in merged["suites"]],
                         [s["commit"]["sha"] for s in full["suites"]])
        for key in ("range", "reference", "settings_hash", "commits", "shard_index",
                    "shard_count"):
            self.assertEqual(merged["sweep"][key], full["sweep"][key], key)
        one = self.changes()
        two = self.changes("--history-ref", "refs/himorime/merged")
        self.assertEqual([(c["last_good"], c["first_bad"]) for c in two],
                         [(c["last_good"], c["first_bad"]) for c in one])
        # slices of other settings or another reference are refused
        path = os.path.join(self.repo.dir, "other.json")
        for key, value, what in (("settings_hash", "0" * 16, "measured with other settings"),
                                 ("reference", self.repo.shas[1],
                                  "measured against other references")):
            with open(path, "w") as f:
                json.dump(dict(shard_a, sweep=dict(shard_a["sweep"], **{key: value})), f)
            res = self.repo.run("merge", b, path, "-o", m, code=2)
            self.assertIn("himorime: error: %s and %s were %s" % (b, path, what), res.err)
        # writers racing on one ref lose nothing: each appends its slice
        for n in range(3):
            ref = "refs/himorime/race%d" % n
            racers = [self.repo.start("merge", f, "--append", "--history-ref", ref)
                      for f in (a, b, a, b)]
            for p in racers:
                self.assertEqual(finish(p).code, 0)
            tree = self.repo.git("ls-tree", "--name-only", ref).split()
            self.assertEqual(sorted(tree), sorted(self.repo.shas))
            # one history commit per writer, each on top of the last
            self.assertEqual(self.repo.git("rev-list", "--count", ref).strip(), "4")
        res = self.repo.run("merge", a, a, "-o", m, code=2)
        self.assertIn("(suite \"sw\") is in more than one slice", res.err)
        res = self.repo.run("merge", a, code=3)
        self.assertIn("merge needs -o OUT.json or --append", res.err)
        with open(path, "w") as f:
            json.dump(dict(shard_a, mode="compare", sweep=None), f)
        res = self.repo.run("merge", a, path, "-o", m, code=2)
        self.assertIn("%s is not a sweep's results document" % path, res.err)
        # shard 1 is c0..c10, all before the step: a flat history
        flat = self.repo.history("--history-ref", "refs/himorime/shard1")["series"][0]
        self.assertEqual([p["commit"] for p in flat["points"]], self.repo.shas[10::-1])
        self.assertEqual(flat["changes"], [])
        table = self.repo.run("history", "--history-ref", "refs/himorime/shard1", code=0).out
        self.assertTrue(table.endswith("no change point\n"), table)
        # history prune bounds the size of a ref
        res = self.repo.run("history", "prune", "--keep", "5", "--history-ref",
                            "refs/himorime/shard1", code=0)
        self.assertEqual(res.out, "pruned 6 commits from refs/himorime/shard1\n")
        tree = self.repo.git("ls-tree", "--name-only", "refs/himorime/shard1").split()
        self.assertEqual(len(tree), 5)
        self.assertEqual(self.repo.user_state(), self.before)


QUICK_SUITE = """version: "1"
name: quick
benchmarks:
  - name: t
    runs: 10
    warmup: 0
    regression: {max_cv: 0}
    commands:
      t:
        command: ["cat", "notes.txt"]
"""


class RebasedHistoryTest(unittest.TestCase):
    """Commits that share one commit time, as a rebase leaves them, swept in
    two ranges: the history follows the commit graph, not the times."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="himorime-e2e-rebased-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.path = os.path.join(self.dir, "repo")
        self.tmp = os.path.join(self.dir, "tmp")
        os.makedirs(self.path)
        os.makedirs(self.tmp)
        self.git("init", "-q", "-b", "main")
        with open(os.path.join(self.path, "himorime.yaml"), "w") as f:
            f.write(QUICK_SUITE)
        for i in range(9):
            with open(os.path.join(self.path, "notes.txt"), "w") as f:
                f.write("note %d\n" % i)
            self.git("add", "-A")
            self.git("commit", "-qm", "c%d" % i)
        self.shas = self.git("rev-list", "--reverse", "HEAD").split()

    def git(self, *args):
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
                   GIT_AUTHOR_DATE="2026-01-02T03:04:05Z",
                   GIT_COMMITTER_DATE="2026-01-02T03:04:05Z")
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True,
                              text=True, env=env).stdout

    def himorime(self, *args):
        res = run(list(args), cwd=self.path, timeout=600, env={"TMPDIR": self.tmp})
        self.assertEqual(res.code, 0, repr(res))
        return res

    def test_history__orders_commits_by_the_commit_graph_not_their_equal_times(self):
        ref = self.shas[0]
        # two sweeps: each numbers its commits from 0, and every time is equal
        self.himorime("sweep", "HEAD~8..HEAD~4", "--reference", ref, "--seed", "1", "-q")
        self.himorime("sweep", "HEAD~4..HEAD", "--reference", ref, "--seed", "1", "-q")
        h = json.loads(self.himorime("history", "--format", "json").out)
        self.assertEqual(len(h["series"]), 1)
        self.assertEqual([p["commit"] for p in h["series"][0]["points"]], self.shas[:0:-1])
        self.assertEqual(os.listdir(self.tmp), [])

    def test_report__a_sweep_document_renders_commits_in_every_format(self):
        ref = self.shas[0]
        out = os.path.join(self.dir, "sweep.json")
        self.himorime("sweep", "HEAD~4..HEAD", "--reference", ref, "--seed", "2", "-q", "-o", out)
        with open(out) as f:
            doc = json.load(f)
        newest = [s[:12] for s in self.shas[:4:-1]]
        table = self.himorime("report", out).out
        lines = table.splitlines()
        self.assertEqual(lines[0], "himorime %s · sweep HEAD~4..HEAD against %s · 4 commits"
                         % (doc["himorime_version"], ref[:12]))
        self.assertEqual(lines[2], "quick › t › t: latency relative to %s (tolerance 5.0%%)"
                         % ref[:12])
        self.assertTrue(lines[3].startswith("COMMIT        SUBJECT  VALUE"), lines[3])
        for line, sha, i in zip(lines[4:8], newest, (8, 7, 6, 5)):
            # a quiet machine runs the program in under a millisecond
            self.assertRegex(line, r"^%s  c%d +\S+ [mµ]s +\S+ [mµ]s +[0-9.]+ \[[0-9.]+, [0-9.]+\]  "
                             r"(pass|inconclusive|regression|improved)$" % (sha, i))
        self.assertTrue(table.endswith("\n4 commits · seed 2 · exit 0\n"), table)
        self.assertNotIn("benchmarks", table)
        self.assertNotIn("geometric mean", table)
        csv = self.himorime("report", "--format", "csv", out).out.splitlines()
        self.assertEqual(csv[0].split(",")[:6],
                         ["suite", "benchmark", "command", "metric", "commit", "subject"])
        self.assertEqual([r.split(",")[4] for r in csv[1:]], self.shas[:4:-1])
        for fmt in ("markdown", "github"):
            md = self.himorime("report", "--format", fmt, out).out
            self.assertIn("| Commit | Subject | Value | Reference | Ratio [interval] | Verdict |",
                          md)
            for sha, i in zip(newest, (8, 7, 6, 5)):
                self.assertIn("| `%s` | c%d | " % (sha, i), md)
        html = self.himorime("report", "--format", "html", out).out
        for sha, i in zip(newest, (8, 7, 6, 5)):
            self.assertIn("<tr><td>%s</td><td>c%d</td>" % (sha, i), html)
        self.assertIn("<th>Verdict</th>", html)
        self.assertEqual(json.loads(self.himorime("report", "--format", "json", out).out), doc)

    def test_sweep__a_resweep_with_nothing_left_to_measure_prints_the_trend_of_the_range(self):
        ref = self.shas[0]
        first = self.himorime("sweep", "HEAD~8..HEAD", "--reference", ref, "--seed", "1", "-q")
        again = self.himorime("sweep", "HEAD~8..HEAD", "--reference", ref, "--seed", "1", "-q")
        self.assertIn("himorime: sweep: 0 measured, 8 already in the history", again.err)
        self.assertEqual(again.out, first.out)
        rows = [l.split()[0] for l in again.out.splitlines()[2:10]]
        self.assertEqual(rows, [s[:12] for s in self.shas[:0:-1]])
        # a part of the range: only its commits
        part = self.himorime("sweep", "HEAD~3..HEAD", "--reference", ref, "--seed", "1", "-q")
        self.assertEqual([l.split()[0] for l in part.out.splitlines()[2:5]],
                         [s[:12] for s in self.shas[:5:-1]])
        self.assertIn("\nno step can be called in 3 commits with a ratio", part.out)


BROKEN_SUITE = """version: "1"
name: quick
build:
  command: [sh, -c, "if [ -e broken ]; then echo no compiler >&2; exit 3; fi; cp notes.txt ${artifact}"]
benchmarks:
  - name: t
    runs: 10
    warmup: 0
    regression: {max_cv: 0}
    commands:
      t:
        command: ["cat", "${artifact}"]
"""


def on_a_terminal(args, cwd, env_extra):
    """Runs himorime with stdout on a pseudo-terminal; returns what it printed."""
    import pty
    master, slave = pty.openpty()
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    env.pop("GITHUB_ACTIONS", None)
    env.update(env_extra)
    proc = subprocess.Popen([HIMORIME, *args], cwd=cwd, stdout=slave, stderr=subprocess.DEVNULL,
                            env=env)
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
    proc.wait(timeout=120)
    os.close(master)
    return b"".join(chunks).decode().replace("\r\n", "\n")


class FailedCommitTest(unittest.TestCase):
    """Four quick commits; the third does not build. The sweep names it on
    stderr and the trend shows it, in the terminal and in the history's
    table and Markdown, not only in the JSON."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="himorime-e2e-failed-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        cls.path = os.path.join(cls.dir, "repo")
        cls.tmp = os.path.join(cls.dir, "tmp")
        os.makedirs(cls.path)
        os.makedirs(cls.tmp)
        cls.git("init", "-q", "-b", "main")
        cls.git("config", "user.email", "t@example.com")
        cls.git("config", "user.name", "t")
        with open(os.path.join(cls.path, "himorime.yaml"), "w") as f:
            f.write(BROKEN_SUITE)
        for i in range(4):
            with open(os.path.join(cls.path, "notes.txt"), "w") as f:
                f.write("note %d\n" % i)
            if i == 2:
                open(os.path.join(cls.path, "broken"), "w").close()
            elif os.path.exists(os.path.join(cls.path, "broken")):
                os.unlink(os.path.join(cls.path, "broken"))
            cls.git("add", "-A")
            cls.git("commit", "-qm", "c%d" % i)
        cls.shas = cls.git("rev-list", "--reverse", "HEAD").split()
        cls.sweep = run(["sweep", "HEAD~3..HEAD", "--seed", "1", "-q"], cwd=cls.path,
                        timeout=600, env={"TMPDIR": cls.tmp})

    @classmethod
    def git(cls, *args):
        return subprocess.run(["git", *args], cwd=cls.path, check=True, capture_output=True,
                              text=True).stdout

    def test_sweep__a_commit_that_does_not_build_is_named_and_in_the_trend(self):
        res, broken = self.sweep, self.shas[2][:12]
        self.assertEqual(res.code, 4, repr(res))
        self.assertEqual(res.err, "himorime: sweep: commit 2 of 3 (%s) could not be measured: "
                                  "build (head): exited with code 3\n"
                                  "himorime: sweep: 2 measured, 1 could not be measured, "
                                  "0 already in the history\n"
                                  "himorime: exit 4: 1 suite could not be measured\n" % broken)
        rows = res.out.splitlines()[2:5]
        self.assertEqual([r.split()[0] for r in rows], [s[:12] for s in self.shas[:0:-1]])
        # no value, reference, ratio or verdict: the error in their place
        self.assertRegex(rows[1], r"^%s  c2 +- +- +- +- +\(build \(head\): exited with "
                                  r"code 3\)$" % broken)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_history__shows_a_commit_that_does_not_build(self):
        broken = self.shas[2][:12]
        table = run(["history"], cwd=self.path)
        self.assertEqual(table.code, 0, repr(table))
        self.assertRegex(table.out, r"\n%s  c2 +- +- +- +- +\(build \(head\): exited with "
                                    r"code 3\)\n" % broken)
        md = run(["history", "--format", "markdown"], cwd=self.path)
        self.assertIn("\n| `%s` | c2 | - | - | - | - | build (head): exited with code 3 |\n"
                      % broken, md.out)

    def test_history__no_color_turns_the_terminal_colour_off(self):
        coloured = on_a_terminal(["history"], self.path, {})
        self.assertIn("\x1b[31m(build (head): exited with code 3)\x1b[0m", coloured)
        self.assertIn("\x1b[2mCOMMIT", coloured)
        plain = on_a_terminal(["history", "--no-color"], self.path, {})
        self.assertNotIn("\x1b[", plain)
        self.assertEqual(plain, on_a_terminal(["history"], self.path, {"NO_COLOR": "1"}))
        self.assertIn("(build (head): exited with code 3)\n", plain)
        # without a terminal there is no colour to turn off
        self.assertEqual(run(["history"], cwd=self.path).out, plain)


if __name__ == "__main__":
    unittest.main()
