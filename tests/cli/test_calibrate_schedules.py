"""`himorime calibrate` measuring both schedules (docs/comparison.md, "Choosing
a schedule"): without --schedule each A/A pair is measured interleaved and as
a duet in the same rounds, and the calibration gives each schedule's interval
half-width at the same pairs and recommends the narrower; with --schedule it
measures that one only; on one CPU it says duet was not measured, and why.

Which schedule wins is the machine's to say, so these tests check what ran
(each run writes the CPUs it may use: the whole machine for an interleaved
run, one CPU for a side of a duet) and the report's structure and lines, not
a timing verdict."""
import json
import os
import re
import subprocess

from harness import DATA, HIMORIME, GitRepoTest, suite

# Each run appends the CPUs it may run on to ${head_root}/cpus; a tolerance
# no A/A comparison of ten pairs can break, so the exit code is the
# calibration's and not the machine's load.
SUITE = """benchmarks:
  - name: aff
    runs: 10
    warmup: 0
    metrics: {cpu: true}
    regression: {max_cv: 0, latency: {max_percent: 50%}, cpu_total: {max_percent: 50%}}
    commands:
      aff:
        command: [sh, -c, 'grep Cpus_allowed_list: /proc/self/status >> "$0"', "${head_root}/cpus"]
  - name: tty
    terminal: true
    runs: 10
    warmup: 0
    metrics: {cpu: true}
    regression: {max_cv: 0, latency: {max_percent: 50%}, cpu_total: {max_percent: 50%}}
    commands:
      t: {command: ["true"]}
"""

INTRO = ("Schedules: each pair above was measured again under the other schedule, in the "
         "same rounds, which one first alternating; each schedule's interval half-width at the "
         "same pairs.")
ONE_CPU = ("Duet was not measured: duet runs need two CPUs, and himorime may use only CPU 0 "
           "(its affinity mask): use the interleaved schedule.")
ROW = re.compile(r"^aff +aff +(latency|cpu_total) +10 +±(\d+\.\d)% +±(\d+\.\d)% +"
                 r"(duet|interleaved|tie)$")
TTY_ROW = re.compile(r"^tty +t +(latency|cpu_total) +terminal: true: duet cannot run it$")
ADVICE = {
    "duet": "Interleaved stays the default: set schedule: duet in the suite, or pass "
            "--schedule duet, to use it.",
    "interleaved": "Keep the default schedule, interleaved.",
}


class CalibrateSchedulesTest(GitRepoTest):
    def setUp(self):
        super().setUp()
        self.write("repo/himorime.yaml", suite(SUITE, "cal"))
        self.git("add", "-A")
        self.git("commit", "-qm", "suite")
        self.cpus_file = os.path.join(self.repo, "cpus")

    def cpus(self):
        """The CPU lists the runs wrote since the last call, counted."""
        with open(self.cpus_file) as f:
            seen = [line.split(":")[1].strip() for line in f]
        os.unlink(self.cpus_file)
        return {c: seen.count(c) for c in sorted(set(seen))}

    def calibrate(self, *args, preexec=None):
        env = dict(os.environ, NO_COLOR="1", TMPDIR=self.private_tmp)
        env.pop("GITHUB_ACTIONS", None)
        return subprocess.run([HIMORIME, "calibrate", "--seed", "7", "-q", *args], cwd=self.repo,
                              env=env, text=True, capture_output=True, timeout=300,
                              preexec_fn=preexec)

    def test_calibrate__measures_both_schedules_and_recommends_the_narrower(self):
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs two usable CPUs")
        whole = self.calibrate("--schedule", "interleaved").stdout
        self.assertNotIn("\nSchedules:", whole)
        everywhere = self.cpus()
        self.assertEqual(list(everywhere.values()), [20])

        saved = os.path.join(self.tmp, "cal.json")
        res = self.calibrate("--output", saved, "--format", "json")
        self.assertEqual(res.returncode, 0, res.stderr)
        # ten interleaved pairs on the whole machine, ten duets whose sides
        # each had one CPU, the CPUs swapped from one duet to the next
        ran = self.cpus()
        self.assertEqual(ran.pop(list(everywhere)[0]), 20)
        self.assertEqual(list(ran.values()), [10, 10], ran)

        with open(saved) as f:
            doc = json.load(f)
        cal = doc["calibration"]
        self.assertTrue(cal["both_schedules"])
        self.assertIsNone(cal["duet_not_measured"])
        bench = doc["suites"][0]["benchmarks"][0]
        self.assertNotIn("schedule", bench)  # interleaved, the document's pairs
        self.assertEqual(len(bench["commands"][0]["head"]["metrics"]["latency"]["samples"]), 10)
        rows = {(r["benchmark"], r["metric"]): r for r in cal["rows"]}
        self.assertEqual(sorted(rows), [("aff", "cpu_total"), ("aff", "latency"),
                                        ("tty", "cpu_total"), ("tty", "latency")])
        for metric in ("latency", "cpu_total"):
            r = rows[("aff", metric)]
            self.assertEqual(r["schedule_pairs"], 10)
            self.assertIsNone(r["schedules_note"])
            self.assertGreater(r["interleaved_half_width_percent"], 0)
            self.assertGreater(r["duet_half_width_percent"], 0)
            t = rows[("tty", metric)]
            self.assertIsNone(t["schedule_pairs"])
            self.assertEqual(t["schedules_note"], "terminal: true: duet cannot run it")
        lat, cpu = rows[("aff", "latency")], rows[("aff", "cpu_total")]
        ratio = ((lat["duet_half_width_percent"] / lat["interleaved_half_width_percent"]) *
                 (cpu["duet_half_width_percent"] / cpu["interleaved_half_width_percent"])) ** 0.5
        self.assertEqual(cal["recommended_schedule"], "duet" if ratio < 1 else "interleaved")

        # the table beside the file: the section, its rows, the recommendation
        text = res.stdout
        section = text[text.index("\n" + INTRO + "\n") + 1:].splitlines()
        self.assertEqual(section[0], INTRO)
        self.assertRegex(section[1], r"^BENCHMARK +COMMAND +METRIC +PAIRS +INTERLEAVED +DUET +"
                                     r"NARROWER$")
        found = {}
        for line in section[2:4]:
            m = ROW.match(line)
            self.assertTrue(m, line)
            found[m.group(1)] = m.groups()[1:]
        self.assertEqual(sorted(found), ["cpu_total", "latency"])
        for metric, (iw, dw, narrower) in found.items():
            r = rows[("aff", metric)]
            self.assertEqual(iw, "%.1f" % r["interleaved_half_width_percent"])
            self.assertEqual(dw, "%.1f" % r["duet_half_width_percent"])
            self.assertEqual(narrower, "duet" if r["duet_half_width_percent"] <
                             r["interleaved_half_width_percent"] else "interleaved")
        for line in section[4:6]:
            self.assertRegex(line, TTY_ROW)
        winner = cal["recommended_schedule"]
        m = re.match(r"^%s decides faster here: ±\d+\.\d%% vs ±\d+\.\d%% at 10 pairs "
                     r"\(aff › aff, (latency|cpu_total)\); duet's intervals were "
                     r"(\d+\.\d\d)× as wide as interleaved ones \(geometric mean of 2 rows\)\. "
                     r"%s$" % (winner.capitalize(), re.escape(ADVICE[winner])), section[6])
        self.assertTrue(m, section[6])
        self.assertAlmostEqual(float(m.group(2)), ratio, delta=0.006)
        self.assertEqual(len(section), 7)

        # the saved report renders the same section
        again = subprocess.run([HIMORIME, "report", "--no-color", saved], text=True,
                               capture_output=True, timeout=60)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertTrue(again.stdout.endswith("\n".join(section) + "\n"))

        # with --schedule duet, duets only, and no section
        res = self.calibrate("--schedule", "duet", "--format", "json")
        self.assertEqual(res.returncode, 3, res.stderr)  # the terminal benchmark
        res = self.calibrate("--schedule", "duet", "--filter", "aff")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn("\nSchedules:", res.stdout)
        self.assertNotIn("Duet was not measured", res.stdout)
        self.assertEqual(list(self.cpus().values()), [10, 10])

    def test_calibrate__on_one_cpu_says_duet_was_not_measured(self):
        res = self.calibrate(preexec=lambda: os.sched_setaffinity(0, {0}))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(self.cpus(), {"0": 20})  # ten pairs, interleaved
        self.assertTrue(res.stdout.endswith("\n\n" + ONE_CPU + "\n"), res.stdout[-600:])
        self.assertNotIn(INTRO, res.stdout)
        res = self.calibrate("--format", "json", preexec=lambda: os.sched_setaffinity(0, {0}))
        self.assertEqual(res.returncode, 0, res.stderr)
        cal = json.loads(res.stdout)["calibration"]
        self.assertTrue(cal["both_schedules"])
        self.assertIsNone(cal["recommended_schedule"])
        self.assertEqual(cal["duet_not_measured"], ONE_CPU[len("Duet was not measured: "):-1])
        self.assertEqual({r["schedule_pairs"] for r in cal["rows"]}, {None})
        notes = [(r["benchmark"], r["schedules_note"]) for r in cal["rows"]]
        self.assertEqual(notes, [("aff", None), ("aff", None),
                                 ("tty", "terminal: true: duet cannot run it"),
                                 ("tty", "terminal: true: duet cannot run it")])
        self.assertTrue(res.stderr.endswith(ONE_CPU + "\n"), res.stderr[-400:])

    def test_calibrate__a_report_with_wrong_schedule_figures_is_refused(self):
        with open(os.path.join(DATA, "reports", "v1-calibrate-schedules.json")) as f:
            good = f.read()
        cases = [
            (lambda c: c.update(recommended_schedule="fast"),
             '$.calibration.recommended_schedule: expected "interleaved" or "duet", got "fast"'),
            (lambda c: c.update(both_schedules=False),
             "$.calibration: a schedule recommendation without both_schedules"),
            (lambda c: c.update(both_schedules=False, recommended_schedule=None),
             "$.calibration.rows[0]: schedule figures without both_schedules"),
            (lambda c: c["rows"][0].update(duet_half_width_percent=None),
             "$.calibration.rows[0]: schedule_pairs without both half-widths"),
        ]
        path = os.path.join(self.tmp, "bad.json")
        for change, message in cases:
            doc = json.loads(good)
            change(doc["calibration"])
            with open(path, "w") as f:
                json.dump(doc, f)
            res = subprocess.run([HIMORIME, "report", path], text=True, capture_output=True,
                                 timeout=60)
            self.assertEqual(res.returncode, 2)
            self.assertEqual(res.stdout, "")
            self.assertEqual(res.stderr, "himorime: error: %s: %s [HMR2001]\n"
                             "himorime: exit 2: invalid input\n" % (path, message))
