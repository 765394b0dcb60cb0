"""`himorime bisect` end to end beside a busy loop (docs/sweeps.md, "himorime
bisect"): a real git history of 12 commits c0..c11 made in a temporary
directory, whose program does the work a file of the commit says; from c8 on
it does more. Bad is measured against good first (the change to locate),
then each candidate is placed nearer good or nearer bad: the search names c8
in at most ceil(log2 11) + 1 = 5 steps (the one more: a step measured again
at the cap). A history without a change stops at once, exit 1. On
instructions the search has no pairs: one counted run per side under
valgrind per comparison, exact whatever the load."""
import math
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import run

PROGRAM = r"""#include <stdio.h>
int main(void) {
	FILE *f = fopen("work.txt", "r");
	long n = 0;
	if (!f || fscanf(f, "%ld", &n) != 1)
		return 2;
	fclose(f);
	volatile double x = 0;
	for (long i = 0; i < n; i++) x += i * 0.5;
	printf("%f\n", x);
	return 0;
}
"""

# the pair cap is low so that a step that cannot be placed ends quickly
SUITE = """version: "1"
name: bs
build:
  command: [cc, -O1, -o, "${artifact}", work.c]
benchmarks:
  - name: work
    warmup: 1
    max_runs: 100
    metrics: {cpu: true}
    commands:
      work:
        command: ["${artifact}"]
"""

# instructions only, one valgrind run per side and comparison: no timed runs
COUNTS_SUITE = """version: "1"
name: bs
build:
  command: [cc, -O1, -o, "${artifact}", work.c]
benchmarks:
  - name: work
    metrics: {instructions: {backend: valgrind, runs: 1}}
    commands:
      work:
        command: ["${artifact}"]
"""

COMMITS, FIRST_BAD = 12, 8
NUMBER = r"[-+]?\d+\.\d%"  # a change of 0.0% has no sign


class History(unittest.TestCase):
    """A temporary repository for a 12-commit history, beside a busy loop."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="himorime-e2e-bisect-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.repo = os.path.join(self.dir, "repo")
        # himorime's private trees go here: none may be left behind
        self.tmp = os.path.join(self.dir, "tmp")
        os.makedirs(self.repo)
        os.makedirs(self.tmp)
        self.busy = subprocess.Popen(["sh", "-c", "while :; do :; done"])

    def tearDown(self):
        self.busy.kill()
        self.busy.wait()

    def git(self, *args):
        return subprocess.run(["git", *args], cwd=self.repo, check=True, capture_output=True,
                              text=True).stdout

    def write(self, name, text):
        with open(os.path.join(self.repo, name), "w") as f:
            f.write(text)

    def history(self, fast, slow, suite=SUITE, programs=(PROGRAM, PROGRAM)):
        """c0..c11: the program does `fast` loops, and `slow` from c8 on (and
        is programs[1] from c8 on)."""
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "t@example.com")
        self.git("config", "user.name", "t")
        self.write("himorime.yaml", suite)
        for i in range(COMMITS):
            self.write("work.c", programs[i >= FIRST_BAD])
            self.write("work.txt", "%d\n" % (slow if i >= FIRST_BAD else fast))
            self.write("notes.txt", "note %d\n" % i)
            self.git("add", "-A")
            self.git("commit", "-qm", "c%d" % i)
        return self.git("rev-list", "--reverse", "HEAD").split()

    def bisect(self, *args, code):
        res = run(["bisect", "--good", "HEAD~11", "--bad", "HEAD", "-q", *args], cwd=self.repo,
                  timeout=600, env={"TMPDIR": self.tmp})
        if code is not None:
            self.assertEqual(res.code, code, repr(res))
        self.assertEqual(os.listdir(self.tmp), [], "temporary files left behind")
        return res

    def assertNamesTheFirstBad(self, res, shas, metric):
        """The output line by line: the header, the change located, then
        c5 good, c8 bad, c6 good, c7 good (a binary search over c1..c11),
        each maybe measured again at the cap, and c8 named."""
        lines = res.out.splitlines()
        self.assertEqual(lines[0], "bisect: 11 candidates between %s (good) and %s (bad); "
                         "each step at 99.75%% confidence" % (shas[0][:12], shas[11][:12]))
        self.assertEqual(lines[1], "bad against good: %s c11" % shas[11][:12])
        m = re.fullmatch(r"  work › work: %s \+\d+\.\d%% \[\+\d+\.\d%%, \+\d+\.\d%%\] at "
                         r"99\.75%%, \d+ pairs: located, midpoint (\+\d+\.\d%%)" % metric, lines[2])
        self.assertTrue(m, res.out)
        midpoint = m.group(1)
        k, step = 3, 0
        for c, place in ((5, "good"), (8, "bad"), (6, "good"), (7, "good")):
            step += 1
            self.assertEqual(lines[k], "step %d: %s c%d" % (step, shas[c][:12], c), res.out)
            if lines[k + 2] == "  => not placed":
                self.assertRegex(lines[k + 1], r"  work › work: %s .*: not placed \(the interval "
                                 r".* still contains the midpoint %s after 100 pairs\)"
                                 % (metric, re.escape(midpoint)))
                k += 3
                self.assertEqual(lines[k], "step %d again, one look at the cap: %s c%d"
                                 % (step, shas[c][:12], c), res.out)
            self.assertRegex(lines[k + 1], r"  work › work: %s %s \[%s, %s\] at 99\.75%%, "
                             r"\d+ pairs: nearer %s than the midpoint %s$"
                             % (metric, NUMBER, NUMBER, NUMBER, place, re.escape(midpoint)))
            self.assertEqual(lines[k + 2], "  => %s" % place)
            k += 3
        self.assertEqual(lines[k:], ["first bad commit: %s c8" % shas[8],
                                     "last good commit: %s c7" % shas[7]])
        steps = [l for l in lines if l.startswith("step ")]
        self.assertLessEqual(len(steps), 5, res.out)  # ceil(log2 11) + 1
        self.assertEqual(res.err, "")


class BisectTest(History):
    def test_bisect__names_the_commit_that_triples_the_work_beside_a_busy_loop(self):
        shas = self.history(1000000, 3000000)
        res = self.bisect("--seed", "3", code=0)
        self.assertNamesTheFirstBad(res, shas, "latency")

    def test_bisect__names_a_fifteen_percent_step_beside_a_busy_loop(self):
        # on CPU time: the busy loop and the machine's other work disturb it
        # less than wall time (docs/sweeps.md)
        shas = self.history(2000000, 2300000)
        res = self.bisect("--metric", "cpu_total", "--seed", "5", code=0)
        self.assertNamesTheFirstBad(res, shas, "cpu_total")

    def test_bisect__no_change_between_good_and_bad_stops_at_once(self):
        shas = self.history(1000000, 1000000)
        res = self.bisect("--seed", "3", "--runs", "12", code=1)
        lines = res.out.splitlines()
        self.assertEqual(lines[1], "bad against good: %s c11" % shas[11][:12])
        self.assertRegex(lines[2], r"  work › work: latency %s \[%s, %s\] at 99\.75%%, 12 pairs: "
                         r"not located \(bad against good is %s \(%s … %s\) after 12 pairs: its "
                         r"interval reaches half of it, %s\)$" % ((NUMBER,) * 7))
        self.assertEqual(lines[3:], ["no change between good and bad could be located: "
                                     "nothing to search"])
        self.assertEqual(res.err, "himorime: exit 1: no change of latency between good and bad "
                         "could be located\n")


class BisectCountsTest(History):
    """`bisect --metric instructions` beside the same busy loop: counts do
    not move with the load, so every comparison is one valgrind run per
    side, and the search names c8 in ceil(log2 11) = 4 steps."""

    def test_bisect__names_a_fifteen_percent_step_on_instructions(self):
        shas = self.history(1000000, 1150000, COUNTS_SUITE)
        res = self.bisect("--metric", "instructions", "--seed", "3", code=0)
        lines = res.out.splitlines()
        self.assertEqual(lines[0], "bisect: 11 candidates between %s (good) and %s (bad); "
                         "each step on counts, exact" % (shas[0][:12], shas[11][:12]))
        self.assertEqual(lines[1], "bad against good: %s c11" % shas[11][:12])
        # the loop is nearly all of the program's instructions: the change is
        # a little under +15%, and the same figure wherever c8's code is
        change = self.assertPlaces(res, shas, "instructions", lines)
        self.assertGreater(change, 14)
        self.assertLessEqual(change, 15)
        self.assertEqual(res.err, "")

    def assertPlaces(self, res, shas, metric, lines):
        """From the change located on: c5 good, c8 bad, c6 good, c7 good, each
        at its level's exact figure, and c8 named."""
        m = re.fullmatch(r"  work › work: %s (\+\d+\.\d%%) \[\1, \1\] exact, 1 run: "
                         r"located, midpoint (\+\d+\.\d%%)" % metric, lines[2])
        self.assertTrue(m, res.out)
        change, midpoint = m.groups()
        self.assertAlmostEqual(float(midpoint[:-1]),
                               (math.sqrt(1 + float(change[:-1]) / 100) - 1) * 100, delta=0.06)
        want = []
        for step, (c, place) in enumerate(((5, "good"), (8, "bad"), (6, "good"), (7, "good")), 1):
            figure = change if place == "bad" else "0.0%"
            want += ["step %d: %s c%d" % (step, shas[c][:12], c),
                     "  work › work: %s %s [%s, %s] exact, 1 run: nearer %s than the "
                     "midpoint %s" % (metric, figure, figure, figure, place, midpoint),
                     "  => %s" % place]
        want += ["first bad commit: %s c8" % shas[8], "last good commit: %s c7" % shas[7]]
        self.assertEqual(lines[3:], want)
        return float(change[:-1])

    def test_bisect__names_a_larger_artifact_without_running_it(self):
        # 4000 bytes of read-only data more from c8 on (+5.5% here); the
        # program never runs: a size is read from the build
        pad = r"""static const char pad[PAD] = {1};
int main(int argc, char **argv) { (void)argv; return pad[argc] == 7; }
"""
        suite = COUNTS_SUITE.replace(
            "{instructions: {backend: valgrind, runs: 1}}", "{artifact_size: true}").replace(
            'command: ["${artifact}"]', 'command: "touch ${head_root}/ran; ${artifact}"\n'
            '        shell: true')
        shas = self.history(1, 1, suite, (pad.replace("PAD", "60000"),
                                          pad.replace("PAD", "64000")))
        res = self.bisect("--metric", "artifact_size", "--seed", "3", code=0)
        lines = res.out.splitlines()
        self.assertEqual(lines[0], "bisect: 11 candidates between %s (good) and %s (bad); "
                         "each step on counts, exact" % (shas[0][:12], shas[11][:12]))
        change = self.assertPlaces(res, shas, "artifact_size", lines)
        self.assertGreater(change, 5)
        self.assertLess(change, 6)
        self.assertFalse(os.path.exists(os.path.join(self.repo, "ran")), "the command ran")
        self.assertEqual(res.err, "")

    def test_bisect__names_the_commit_that_allocates_more_bytes(self):
        """allocated_bytes, the second count of valgrind's DHAT runs: from c8 on
        the program makes 15% more allocations; a search from c7 (four
        candidates, two steps) names c8."""
        allocs = r"""#include <stdio.h>
#include <stdlib.h>
int main(void) {
	FILE *f = fopen("work.txt", "r");
	long n = 0;
	if (!f || fscanf(f, "%ld", &n) != 1)
		return 2;
	fclose(f);
	for (long i = 0; i < n; i++) {
		void *volatile p = malloc(64);
		free(p);
	}
	return 0;
}
"""
        suite = COUNTS_SUITE.replace("{instructions: {backend: valgrind, runs: 1}}",
                                     "{allocations: true, instructions: {runs: 1}}")
        shas = self.history(1000, 1150, suite, (allocs, allocs))
        res = run(["bisect", "--good", "HEAD~4", "--bad", "HEAD", "-q", "--metric",
                   "allocated_bytes"], cwd=self.repo, timeout=600, env={"TMPDIR": self.tmp})
        self.assertEqual(res.code, 0, repr(res))
        self.assertEqual(os.listdir(self.tmp), [], "temporary files left behind")
        lines = res.out.splitlines()
        # 15% more of the 64-byte blocks; stdio's buffers are the rest (+14.0% here)
        m = re.fullmatch(r"  work › work: allocated_bytes (\+1[34]\.\d%) \[\1, \1\] exact, 1 run: "
                         r"located, midpoint (\+[67]\.\d%)", lines[2])
        self.assertTrue(m, res.out)
        change, midpoint = m.groups()
        self.assertAlmostEqual(float(midpoint[:-1]),
                               (math.sqrt(1 + float(change[:-1]) / 100) - 1) * 100, delta=0.06)
        self.assertEqual(lines[3:], [
            "step 1: %s c9" % shas[9][:12],
            "  work › work: allocated_bytes %s [%s, %s] exact, 1 run: nearer bad than the "
            "midpoint %s" % (change, change, change, midpoint), "  => bad",
            "step 2: %s c8" % shas[8][:12],
            "  work › work: allocated_bytes %s [%s, %s] exact, 1 run: nearer bad than the "
            "midpoint %s" % (change, change, change, midpoint), "  => bad",
            "first bad commit: %s c8" % shas[8], "last good commit: %s c7" % shas[7]])
        self.assertEqual(res.err, "")

    def test_bisect__a_count_the_suite_does_not_measure_is_refused(self):
        self.history(1000000, 1150000)
        for metric, hint in (("instructions", "metrics.instructions: true in the command, its "
                                              "benchmark or defaults"),
                             ("allocated_bytes", "metrics.allocations: true in the command, its "
                                                 "benchmark or defaults")):
            res = self.bisect("--metric", metric, code=3)
            self.assertEqual(res.out, "")
            self.assertEqual(res.err, "himorime: error: --metric %s: no selected command measures "
                             "%s (himorime.yaml:6:5: benchmark \"work\" does not) [HMR3001]\n"
                             "  hint: set %s\n"
                             "himorime: exit 3: nothing to search on %s\n"
                             % (metric, metric, hint, metric))
        res = self.bisect("--metric", "cpu_user", code=3)
        self.assertEqual(res.out, "")
        self.assertIn('himorime: error: --metric "cpu_user": expected latency, cpu_total, '
                      'peak_rss, instructions, allocations, allocated_bytes or artifact_size '
                      '[HMR3001]\n', res.err)

    def test_bisect__a_count_that_cannot_be_measured_here_exits_6(self):
        """backend perf where the counter does not open (this machine, most
        virtual machines): the count is unsupported, with either
        metrics.unsupported, and the search stops at bad against good."""
        suite = COUNTS_SUITE.replace("{backend: valgrind, runs: 1}", "{backend: perf, runs: 1}")
        shas = self.history(1000000, 1150000, suite)
        res = self.bisect("--metric", "instructions", code=None)
        lines = res.out.splitlines()
        if res.code == 0:
            self.skipTest("this machine opens the instructions counter")
        self.assertEqual(res.code, 6, repr(res))
        self.assertEqual(lines[1], "bad against good: %s c11" % shas[11][:12])
        self.assertRegex(lines[2], r"^  work › work: failed: backend perf: the instructions "
                                   r"counter is not available")
        self.assertEqual(len(lines), 3, res.out)
        self.assertEqual(res.err, "himorime: exit 6: bad against good: instructions could not be "
                                  "measured\n")
        self.write("himorime.yaml", suite.replace("runs: 1}", "runs: 1}, unsupported: skip"))
        self.git("commit", "-qam", "skip")
        res = self.bisect("--metric", "instructions", code=6)
        self.assertRegex(res.out.splitlines()[2], r"^  work › work: failed: backend perf: the "
                                                  r"instructions counter is not available")


if __name__ == "__main__":
    unittest.main()
