"""The duet schedule end to end (docs/configuration.md, "Schedule"): a
comparison's base and head runs really overlap (their starts and ends in the
samples csv), --schedule wins over the suite, runs on one side stay as they
were, and the refusals: a benchmark on a terminal (exit 2 from the suite,
exit 3 from the flag) and a machine with one usable CPU (exit 4)."""
import csv
import io
import json
import os
import subprocess

from harness import HIMORIME, GitRepoTest, suite

# 100 ms each: a start skew of a few ms on a loaded machine still leaves the
# two sides of every duet running together.
SLEEP = """benchmarks:
  - name: nap
    schedule: duet
    runs: 10
    warmup: 1
    regression: {max_cv: 0}
    commands:
      nap:
        command: [sleep, "0.1"]
        budget: {latency: {median: "<= 10s"}}
"""

TTY = """benchmarks:
  - name: plain
    commands:
      t: {command: ["true"]}
  - name: tty
    terminal: true
%s    commands:
      t: {command: ["true"]}
"""

DUET_NOTE = ("nap: measured as duets: base and head at once, each alone on its own CPU; "
             "its figures, and the budgets checked on them, are each side's beside its twin.")


class DuetTest(GitRepoTest):
    def commit(self, text):
        self.write("repo/himorime.yaml", suite(text, "duet"))
        self.git("add", "-A")
        self.git("commit", "-qm", "suite")

    def h(self, *args, code):
        res = self.run_h([*args, "--seed", "7", "-q"], cwd=self.repo)
        self.assertExit(res, code)
        return res

    def samples(self, out):
        return list(csv.DictReader(io.StringIO(out)))

    def test_duet__both_sides_of_every_pair_run_at_once(self):
        self.commit(SLEEP)
        res = self.h("compare", "--against", "HEAD", "--format", "samples-csv", code=0)
        rows = self.samples(res.out)
        self.assertEqual(res.out.splitlines()[0],
                         "suite,benchmark,command,side,run,metric,unit,value,start_ns,end_ns")
        lat = {(r["side"], int(r["run"])): r for r in rows if r["metric"] == "latency"}
        self.assertEqual(len(lat), 20)
        for run in range(1, 11):
            head, base = lat[("head", run)], lat[("base", run)]
            hs, he = int(head["start_ns"]), int(head["end_ns"])
            bs, be = int(base["start_ns"]), int(base["end_ns"])
            # each interval is its run's latency, and the two overlap
            self.assertEqual(he - hs, int(head["value"]))
            self.assertEqual(be - bs, int(base["value"]))
            self.assertLess(max(hs, bs), min(he, be), (run, head, base))
            if run > 1:
                self.assertGreater(min(hs, bs), int(lat[("head", run - 1)]["end_ns"]))
        self.assertEqual(min(int(r["start_ns"]) for r in lat.values()), 0)

    def test_duet__the_report_says_which_runs_budgets_were_checked_on(self):
        self.commit(SLEEP)
        res = self.h("compare", "--against", "HEAD", "--format", "json", code=0)
        b = json.loads(res.out)["suites"][0]["benchmarks"][0]
        self.assertEqual(b["schedule"], "duet")
        self.assertEqual(len(b["commands"][0]["head"]["run_start_ns"]), 10)
        self.assertEqual(len(b["commands"][0]["base"]["run_end_ns"]), 10)
        md = self.h("compare", "--against", "HEAD", "--format", "markdown", code=0).out
        self.assertIn("- " + DUET_NOTE, md)
        self.assertIn("(duet runs) | pass |", md)
        table = self.h("compare", "--against", "HEAD", code=0).out
        self.assertIn(DUET_NOTE, table)

    def test_duet__the_flag_wins_and_one_side_runs_as_ever(self):
        quick = SLEEP.replace('"0.1"', '"0.02"')
        self.commit(quick.replace("    schedule: duet\n", ""))
        res = self.h("compare", "--against", "HEAD", "--format", "samples-csv", code=0)
        self.assertEqual(res.out.splitlines()[0],
                         "suite,benchmark,command,side,run,metric,unit,value")
        res = self.h("compare", "--against", "HEAD", "--schedule", "duet", "--format",
                     "samples-csv", code=0)
        self.assertTrue(res.out.startswith("suite,benchmark,command,side,run,metric,unit,value,"
                                           "start_ns,end_ns\n"))
        self.commit(quick)
        res = self.h("compare", "--against", "HEAD", "--schedule", "interleaved", "--format",
                     "samples-csv", code=0)
        self.assertEqual(res.out.splitlines()[0],
                         "suite,benchmark,command,side,run,metric,unit,value")
        res = self.h("run", "--format", "samples-csv", code=0)
        self.assertEqual(res.out.splitlines()[0],
                         "suite,benchmark,command,side,run,metric,unit,value")
        res = self.h("run", "--format", "json", code=0)
        self.assertNotIn("schedule", json.loads(res.out)["suites"][0]["benchmarks"][0])

    def test_duet__a_terminal_benchmark_is_refused(self):
        self.commit(TTY % "    schedule: duet\n")
        res = self.h("compare", "--against", "HEAD", code=2)
        self.assertEqual(res.err,
                         "himorime.yaml:7:5: benchmarks[1]: schedule duet: the benchmark runs on a "
                         "terminal (terminal: true), and duet runs start base and head at once, "
                         "each without one\n"
                         "himorime: exit 2: 1 problem in the comparison settings\n")
        self.commit(TTY % "")
        res = self.h("compare", "--against", "HEAD", "--schedule", "duet", code=3)
        self.assertEqual(res.err,
                         "himorime: error: --schedule duet: benchmark \"tty\" runs on a terminal "
                         "(terminal: true), and duet runs start base and head at once, each "
                         "without one: use --schedule interleaved, or leave it out with --filter "
                         "or --skip-tag [HMR3001]\n"
                         "himorime: exit 3: invalid command line\n")
        res = self.h("calibrate", "--schedule", "together", code=3)
        self.assertEqual(res.err.splitlines()[0],
                         "himorime: error: --schedule \"together\": expected interleaved or duet "
                         "[HMR3001]")

    def test_duet__one_usable_cpu_is_refused_before_anything_runs(self):
        self.commit(SLEEP.replace("command: [sleep, \"0.1\"]", "command: [touch, \"${head_root}/ran\"]"))
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        env.pop("GITHUB_ACTIONS", None)

        def one_cpu(*args):
            return subprocess.run([HIMORIME, *args], cwd=self.repo, env=env, text=True,
                                  capture_output=True, timeout=120,
                                  preexec_fn=lambda: os.sched_setaffinity(0, {0}))

        res = one_cpu("compare", "--against", "HEAD", "-q")
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertEqual(res.stderr,
                         "himorime: error: duet runs need two CPUs, and himorime may use only "
                         "CPU 0 (its affinity mask): use the interleaved schedule [HMR4001]\n"
                         "himorime: exit 4: execution failed\n")
        self.assertFalse(os.path.exists(os.path.join(self.repo, "ran")))
        # measured on one side, it runs as ever
        res = one_cpu("run", "-q", "--format", "json")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.repo, "ran")))
