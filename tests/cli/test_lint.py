"""The lint's include walls (scripts/walls, called by scripts/lint): the tree
as it stands passes, a forbidden include added to a copy of it fails with
the file, the line and the rule it broke, and so does an arrow of the table
that nothing includes. The same for names in comments
(scripts/comment-names) and function length (scripts/function-length), and
the diagnostic codes: one table in src/, the same codes in docs/."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import ROOT

WALLS = os.path.join(ROOT, "scripts", "walls")
COMMENT_NAMES = os.path.join(ROOT, "scripts", "comment-names")
FUNCTION_LENGTH = os.path.join(ROOT, "scripts", "function-length")


def walls(src):
    return subprocess.run([WALLS, src], capture_output=True, text=True, timeout=120)


class TestWalls(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="himorime-walls-")
        self.src = os.path.join(self.tmp, "src")
        shutil.copytree(os.path.join(ROOT, "src"), self.src)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def append(self, rel, text):
        path = os.path.join(self.src, rel)
        with open(path, encoding="utf-8") as f:
            lines = f.read().count("\n")
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
        return lines + 1

    def test_walls__tree_as_it_stands_passes(self):
        r = walls(os.path.join(ROOT, "src"))
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))

    def test_walls__forbidden_include_fails_with_file_and_line(self):
        line = self.append("stats/stats.c", '#include "vcs/vcs.h"\n')
        r = walls(self.src)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, f"walls: {self.src}/stats/stats.c:{line}: stats may not "
                                   "include vcs/vcs.h (allowed: common)\n")

    def test_walls__relative_include_is_checked_too(self):
        line = self.append("judge/judge.c", '#include "../render/render.h"\n')
        r = walls(self.src)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, f"walls: {self.src}/judge/judge.c:{line}: judge may not "
                                   "include render/render.h (allowed: common stats)\n")

    def test_walls__suite_and_results_no_longer_reach_into_judge(self):
        # The shared types live in common/types.h (docs/design.md, "Include walls").
        s = self.append("suite/suite.c", '#include "judge/judge.h"\n')
        r = self.append("results/results.c", '#include "judge/judge.h"\n')
        out = walls(self.src)
        self.assertEqual(out.returncode, 1)
        self.assertEqual(out.stdout,
                         f"walls: {self.src}/results/results.c:{r}: results may not include "
                         "judge/judge.h (allowed: common stats)\n"
                         f"walls: {self.src}/suite/suite.c:{s}: suite may not include "
                         "judge/judge.h (allowed: common harness/harness.h harness/select.h)\n")

    def test_walls__spawner_may_include_nothing_but_banned_h(self):
        line = self.append("spawner/proto.c", '#include "common/alloc.h"\n')
        r = walls(self.src)
        self.assertEqual(r.stdout, f"walls: {self.src}/spawner/proto.c:{line}: spawner may not "
                                   "include common/alloc.h (allowed: nothing)\n")

    def test_walls__a_single_header_row_allows_that_header_only(self):
        line = self.append("github/http.c", '#include "results/json.h"\n'
                                            '#include "results/results.h"\n') + 1
        r = walls(self.src)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, f"walls: {self.src}/github/http.c:{line}: github may not "
                                   "include results/results.h (allowed: common results/json.h)\n")

    def test_walls__harness_reads_bytes_and_runs_nothing(self):
        # src/harness is handed output to parse (docs/design.md, "Include
        # walls"): the strict JSON parser is all it takes from results, and
        # it reaches nothing that starts a process.
        line = self.append("harness/harness.c", '#include "results/results.h"\n'
                                                '#include "measure/measure.h"\n')
        r = walls(self.src)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout,
                         f"walls: {self.src}/harness/harness.c:{line}: harness may not include "
                         "results/results.h (allowed: common results/json.h)\n"
                         f"walls: {self.src}/harness/harness.c:{line + 1}: harness may not "
                         "include measure/measure.h (allowed: common results/json.h)\n")

    def test_walls__an_arrow_nothing_uses_fails(self):
        # session.c is the one file of cli that includes measure/sysinfo.h
        path = os.path.join(self.src, "cli", "session.c")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertEqual(text.count('#include "measure/'), 1)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace('#include "measure/sysinfo.h"\n', ""))
        r = walls(self.src)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "walls: scripts/walls: cli -> measure/sysinfo.h is allowed and "
                                   "nothing includes it\n")

    def test_walls__new_area_needs_a_row(self):
        os.mkdir(os.path.join(self.src, "newarea"))
        with open(os.path.join(self.src, "newarea", "x.c"), "w", encoding="utf-8") as f:
            f.write('#include "common/alloc.h"\n')
        r = walls(self.src)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, f"walls: {self.src}/newarea/x.c: area 'newarea' has no row "
                                   "in scripts/walls\n")


def comment_names(src):
    return subprocess.run([COMMENT_NAMES, src], capture_output=True, text=True, timeout=120)


class TestCommentNames(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="himorime-comment-names-")
        self.src = os.path.join(self.tmp, "src")
        shutil.copytree(os.path.join(ROOT, "src"), self.src)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def append(self, rel, text):
        path = os.path.join(self.src, rel)
        with open(path, encoding="utf-8") as f:
            lines = f.read().count("\n")
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
        return lines + 1

    def test_comment_names__tree_as_it_stands_passes(self):
        r = comment_names(os.path.join(ROOT, "src"))
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))

    def test_comment_names__a_function_that_does_not_exist_fails(self):
        line = self.append("cli/session.h", "/* Each command calls session_measure() once. */\n")
        r = comment_names(self.src)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, f"comment-names: {self.src}/cli/session.h:{line}: "
                                   "session_measure() is not a function or macro of src/ (nor "
                                   "an allowed outside one)\n")

    def test_comment_names__a_prefixed_name_that_does_not_exist_fails(self):
        line = self.append("cli/cli.h", "/* (cli_fail,\n * cli_exit_for_outcome) */\n") + 1
        r = comment_names(self.src)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, f"comment-names: {self.src}/cli/cli.h:{line}: "
                                   "cli_exit_for_outcome is not a name of src/ (nor an allowed "
                                   "outside one)\n")

    def test_comment_names__what_exists_or_is_allowed_passes(self):
        # ours (a function, a macro, a type), libc's that the code calls, an
        # allowed outside one, a file name, a quoted value, and text that only
        # looks like a call inside a string or in code
        self.append("cli/cli.h", "/* cli_exit(), ARRAY_SIZE(), cli_output, snprintf(),\n"
                                 " * perf_event_open(), session.c, \"cli_no_such_thing\" */\n"
                                 'static const char *const x = "/* gone_fn() */";\n'
                                 "// strbuf_init() and cmd_help()\n")
        r = comment_names(self.src)
        self.assertEqual((r.returncode, r.stdout), (0, ""))

    def test_comment_names__lint_runs_it(self):
        with open(os.path.join(ROOT, "scripts", "lint"), encoding="utf-8") as f:
            self.assertIn("\nscripts/comment-names src || status=1\n", f.read())


def function_length(src):
    return subprocess.run([FUNCTION_LENGTH, src], capture_output=True, text=True, timeout=120)


def function(signature, body_lines):
    """A function whose braces and body are body_lines + 2 lines."""
    return signature + "\n{\n" + "\tx++;\n" * body_lines + "}\n"


class TestFunctionLength(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="himorime-function-length-")
        self.src = os.path.join(self.tmp, "src")
        shutil.copytree(os.path.join(ROOT, "src"), self.src)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def append(self, rel, text):
        path = os.path.join(self.src, rel)
        with open(path, encoding="utf-8") as f:
            lines = f.read().count("\n")
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
        return lines + 1

    def test_function_length__tree_as_it_stands_passes(self):
        r = function_length(os.path.join(ROOT, "src"))
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))

    def test_function_length__81_lines_from_brace_to_brace_fails(self):
        # the signature (two lines here) is not counted; both braces are
        line = self.append("stats/stats.c", function("static __attribute__((noreturn)) void "
                                                     "too_long(int x,\n\t\t\t      int y)", 79))
        r = function_length(self.src)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, f"function-length: {self.src}/stats/stats.c:{line + 2}: "
                                   "too_long is 81 lines (at most 80)\n")

    def test_function_length__80_lines_and_braces_inside_pass(self):
        self.append("stats/stats.c", function("static int just_enough(int x)", 75)[:-2] +
                    "\tif (x) {\n\t\tx++;\n\t}\n}\n" +
                    "static const int rows[] = {\n1,\n};\n")
        r = function_length(self.src)
        self.assertEqual((r.returncode, r.stdout), (0, ""))

    def test_function_length__headers_are_read_too(self):
        line = self.append("common/strbuf.h", function("static inline int long_inline(int x)", 90))
        r = function_length(self.src)
        self.assertEqual(r.stdout, f"function-length: {self.src}/common/strbuf.h:{line + 1}: "
                                   "long_inline is 92 lines (at most 80)\n")

    def test_function_length__lint_runs_it(self):
        with open(os.path.join(ROOT, "scripts", "lint"), encoding="utf-8") as f:
            self.assertIn("\nscripts/function-length src || status=1\n", f.read())


class TestDiagnosticCodes(unittest.TestCase):
    """Every HMRnnnn code is spelled once in src/ (cli/cli.h's table) and is
    documented in docs/, and docs/ names no other."""

    def codes(self, top, ext):
        found = {}
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            for n in names:
                if n.endswith(ext):
                    path = os.path.join(d, n)
                    with open(path, encoding="utf-8") as f:
                        for code in re.findall(r"HMR\d{4}", f.read()):
                            found.setdefault(code, []).append(os.path.relpath(path, ROOT))
        return found

    def test_diag_codes__one_table_in_src_the_same_in_docs(self):
        src = self.codes("src", (".c", ".h"))
        self.assertEqual({c: ["src/cli/cli.h"] for c in src}, src)
        self.assertEqual(sorted(src), ["HMR2001", "HMR3001", "HMR4001", "HMR4003", "HMR5001",
                                       "HMR6001"])
        self.assertEqual(sorted(self.codes("docs", ".md")), sorted(src))


if __name__ == "__main__":
    unittest.main()
