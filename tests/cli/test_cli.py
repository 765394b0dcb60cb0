"""The command table: help, version, completion and the usage errors."""
import unittest

from harness import TempDirTest, run


class CliTest(TempDirTest):
    def test_cli__help_lists_commands(self):
        res = run(["help"])
        self.assertExit(res, 0)
        self.assertIn("usage: himorime <command> [flags] [args]", res.out)
        for name in ("help", "version", "completion"):
            self.assertRegex(res.out, rf"\n  {name} +\S")

    def test_cli__no_arguments_is_help(self):
        self.assertEqual(run([]).out, run(["help"]).out)

    def test_cli__help_flag_aliases(self):
        for flag in ("-h", "--help", "-help"):
            self.assertEqual(run([flag]).out, run(["help"]).out)

    def test_cli__help_for_one_command(self):
        res = run(["help", "completion"])
        self.assertExit(res, 0)
        self.assertTrue(res.out.startswith("usage: himorime completion bash|zsh|fish\n"))

    def test_cli__help_calibrate_lists_its_flags(self):
        res = run(["help", "calibrate"])
        self.assertExit(res, 0)
        flags = [l.split()[0] for l in res.out.splitlines() if l.startswith("  --")]
        self.assertEqual(flags, ["--against", "--suite-from", "--max-time",
                                 "--fail-on-inconclusive"])
        self.assertIn("\nflags (besides those of 'himorime help run'):\n", res.out)
        self.assertIn("\nexit: 0 ok, 1 a regression (here: noise) or budget broken, ", res.out)

    def test_cli__help_compare_says_what_a_comparison_could_see(self):
        res = run(["help", "compare"])
        self.assertExit(res, 0)
        self.assertIn("\nEvery comparison says the smallest change it could have seen (COULD SEE), "
                      "and\nan inconclusive one how many pairs would have decided it. On a noisy "
                      "runner\n(a robust CV above max_cv) a verdict stands only when the first "
                      "and the second\nhalf of the pairs, each on its own, agree, and the report "
                      "says so.\n", res.out)

    def test_cli__unknown_command_is_usage_error(self):
        res = run(["frobnicate"])
        self.assertExit(res, 3)
        self.assertEqual(res.err,
                         'himorime: error: unknown command "frobnicate" [HMR3001]\n'
                         "  hint: run 'himorime help' for the list of commands\n"
                         "himorime: exit 3: invalid command line\n")
        self.assertEqual(res.out, "")

    def test_cli__help_unknown_command(self):
        res = run(["help", "nope"])
        self.assertExit(res, 3)
        self.assertTrue(res.err.endswith("himorime: exit 3: invalid command line\n"))

    def test_cli__version(self):
        for args in (["version"], ["--version"], ["-v"]):
            res = run(args)
            self.assertExit(res, 0)
            self.assertRegex(res.out, r"^himorime \d+\.\d+\.\d+\S* \(\w+ \w+, built with .+\)\n$")

    def test_cli__version_rejects_arguments(self):
        self.assertExit(run(["version", "x"]), 3)

    def test_cli__completion_scripts_name_every_command(self):
        names = [l.split()[0] for l in run(["help"]).out.split("commands:\n")[1].split("\n\n")[0].splitlines()]
        for shell in ("bash", "zsh", "fish"):
            res = run(["completion", shell])
            self.assertExit(res, 0)
            for n in names:
                self.assertIn(n, res.out)

    def test_cli__completion_unknown_shell(self):
        res = run(["completion", "powershell"])
        self.assertExit(res, 3)
        self.assertIn('unknown shell "powershell"', res.err)


if __name__ == "__main__":
    unittest.main()
