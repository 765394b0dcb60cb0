"""The command table: help, version, completion and the usage errors."""
import re
import subprocess
import unittest

from harness import HIMORIME, TempDirTest, run


def commands():
    return [l.split()[0] for l in run(["help"]).out.split("commands:\n")[1].split("\n\n")[0]
            .splitlines()]


def help_flags(name):
    """The flags `himorime help NAME` names: its flag lines, its synopsis and
    those of the help its heading refers to (less the ones it excepts)."""
    text = run(["help", name]).out
    usage = text.split("\n\n")[0]
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-z])\b", usage))
    flags |= {re.match(r"  (?:-\w, )?(--[a-z-]+)", l).group(1)
              for l in text.splitlines() if l.startswith("  -")}
    heading = re.search(r"\nflags \(besides those of 'himorime help (\w+)'(.*?)\):\n", text,
                        re.S)
    if heading:
        excepted = set(re.findall(r"--[a-z-]+", heading.group(2)))
        flags |= help_flags(heading.group(1)) - excepted
    return flags


def parse_args(flag):
    return [f"{flag}=x" if flag.startswith("--") else flag, "x", "--no-such-flag"]


def parses(name, flag):
    """Whether `himorime NAME` parses flag: given a value, it is refused only
    for taking none, and the unknown flag after it is what stops the run."""
    res = run([name] + parse_args(flag))
    return res.code == 3 and ("takes no value" in res.err or
                              res.err.startswith('himorime: error: unknown flag "--no-such-flag"'))


def complete(words):
    """What the bash completion script offers for the last of words."""
    script = run(["completion", "bash"]).out
    cmd = (script + "\nCOMP_WORDS=(" + " ".join(words) + f")\nCOMP_CWORD={len(words) - 1}\n"
           '_himorime\nprintf "%s\\n" "${COMPREPLY[@]}"\n')
    out = subprocess.run(["bash", "--norc", "-c", cmd], capture_output=True, text=True,
                         timeout=60, cwd="/")
    return out.stdout.split()


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
        self.assertEqual(flags, ["--against", "--suite-from", "--max-time", "--max-total-time",
                                 "--schedule", "--fail-on-inconclusive"])
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

    def test_cli__every_flag_help_names_is_parsed(self):
        # Help, parsing and completion read one command table: every flag a
        # command's help names (its synopsis, its flag lines, the flags of the
        # help its heading refers to that it does not except) is one that the
        # command parses.
        checked = 0
        for name in commands():
            for flag in sorted(help_flags(name)):
                with self.subTest(command=name, flag=flag):
                    self.assertTrue(parses(name, flag), run([name] + parse_args(flag)))
                    checked += 1
        self.assertGreater(checked, 100)

    def test_cli__help_heading_names_the_flags_a_command_does_not_take(self):
        ci = run(["help", "ci"]).out
        self.assertIn("\nflags (besides those of 'himorime help compare' except --head and "
                      "--merge-base):\n", ci)
        for flag in ("--head", "--merge-base"):
            res = run(["ci", flag])
            self.assertExit(res, 3)
            self.assertIn(f'unknown flag "{flag}" for "ci"', res.err)
        self.assertIn("\nflags (besides those of 'himorime help run' except --section and "
                      "--summary):\n", run(["help", "sweep"]).out)
        bisect = run(["help", "bisect"]).out
        self.assertIn("\nflags (besides those of 'himorime help run' except --format, --output,"
                      "\n--section, --summary and --no-color):\n", bisect)
        # what run's help does not list, bisect's does
        self.assertNotIn("--max-time", run(["help", "run"]).out)
        self.assertIn("\n  --max-time DURATION  stop each benchmark's rounds when spent (over\n"
                      "                       regression.max_time); undecided metrics are\n",
                      bisect)

    def test_cli__report_lists_its_flags_under_a_heading(self):
        self.assertIn("whatever the report found.\n\nflags:\n  --format FORMAT    table (default), "
                      "json, csv, samples-csv, markdown, github,\n                     html\n",
                      run(["help", "report"]).out)

    def test_cli__bash_completion_offers_each_commands_flags(self):
        self.assertEqual(complete(["himorime", "comp"]), ["compare", "completion"])
        self.assertEqual(complete(["himorime", "compare", "--ag"]), ["--against"])
        ci = complete(["himorime", "ci", "--"])
        for flag in ("--against", "--comment", "--accept-label", "--dry-run", "--suite-from",
                     "--max-time", "--fail-on-inconclusive", "--format", "--quiet"):
            self.assertIn(flag, ci)
        for flag in ("--head", "--merge-base", "--report", "--every"):
            self.assertNotIn(flag, ci)
        self.assertEqual(complete(["himorime", "init", "-"]), ["-f", "--force"])
        self.assertEqual(complete(["himorime", "version", "-"]), [])

    def test_cli__zsh_and_fish_completions_name_each_commands_flags(self):
        zsh = run(["completion", "zsh"]).out
        self.assertIn("\t\tinit) compadd -- -f --force ;;\n", zsh)
        self.assertIn("\t\tmerge) compadd -- -o --output --append --history-ref ;;\n", zsh)
        fish = run(["completion", "fish"]).out
        self.assertIn("complete -c himorime -n '__fish_seen_subcommand_from init' -s f -l force "
                      "-d 'overwrite an existing file'\n", fish)
        self.assertIn("complete -c himorime -n '__fish_seen_subcommand_from comment' -l event -r "
                      "-d 'the trusted workflow_run event (default GITHUB_EVENT_PATH)'\n", fish)
        self.assertIn("-l hide-footer -d 'leave out the comment\\'s last line (the link to the "
                      "run,'\n", fish)

    def test_cli__completion_scripts_name_every_command(self):
        names = commands()
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
