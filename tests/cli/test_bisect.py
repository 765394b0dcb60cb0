"""`himorime bisect` end to end beside a busy loop (docs/sweeps.md, "himorime
bisect"): a real git history of 12 commits c0..c11 made in a temporary
directory, whose program does the work a file of the commit says; from c8 on
it does more. Bad is measured against good first (the change to locate),
then each candidate is placed nearer good or nearer bad: the search names c8
in at most ceil(log2 11) + 1 = 5 steps (the one more: a step measured again
at the cap). A history without a change stops at once, exit 1."""
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

COMMITS, FIRST_BAD = 12, 8
NUMBER = r"[-+]?\d+\.\d%"  # a change of 0.0% has no sign


class BisectTest(unittest.TestCase):
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

    def history(self, fast, slow):
        """c0..c11: the program does `fast` loops, and `slow` from c8 on."""
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "t@example.com")
        self.git("config", "user.name", "t")
        self.write("work.c", PROGRAM)
        self.write("himorime.yaml", SUITE)
        for i in range(COMMITS):
            self.write("work.txt", "%d\n" % (slow if i >= FIRST_BAD else fast))
            self.write("notes.txt", "note %d\n" % i)
            self.git("add", "-A")
            self.git("commit", "-qm", "c%d" % i)
        return self.git("rev-list", "--reverse", "HEAD").split()

    def bisect(self, *args, code):
        res = run(["bisect", "--good", "HEAD~11", "--bad", "HEAD", "-q", *args], cwd=self.repo,
                  timeout=600, env={"TMPDIR": self.tmp})
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


if __name__ == "__main__":
    unittest.main()
