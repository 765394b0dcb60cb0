"""Golden suite files, run data-driven.

tests/data/suites/invalid/<case>/: suite.yaml (or suite.py, which prints the
suite when the file would be too big to keep in the tree), `expected` (the
exact stderr of `himorime validate suite.yaml` run in the case's folder) and
`exit` (the exit status). tests/data/suites/valid/<case>/: suite.yaml and
expected.json, the exact stdout of `himorime list --format json suite.yaml`.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from harness import DATA, run

INVALID = os.path.join(DATA, "suites", "invalid")
VALID = os.path.join(DATA, "suites", "valid")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class SuiteGoldenTest(unittest.TestCase):
    def test_suite_golden__invalid_cases(self):
        cases = sorted(os.listdir(INVALID))
        self.assertGreaterEqual(len(cases), 40)
        for case in cases:
            with self.subTest(case=case):
                d = os.path.join(INVALID, case)
                tmp = None
                if os.path.exists(os.path.join(d, "suite.py")):
                    tmp = tempfile.mkdtemp(prefix="himorime-golden-")
                    self.addCleanup(shutil.rmtree, tmp, True)
                    text = subprocess.run([sys.executable, os.path.join(d, "suite.py")],
                                          capture_output=True, text=True, check=True).stdout
                    with open(os.path.join(tmp, "suite.yaml"), "w") as f:
                        f.write(text)
                res = run(["validate", "suite.yaml"], cwd=tmp or d)
                self.assertEqual(res.err, read(os.path.join(d, "expected")), case)
                self.assertEqual(res.code, int(read(os.path.join(d, "exit"))), case)
                self.assertEqual(res.out, "", case)

    def test_suite_golden__valid_cases(self):
        cases = sorted(os.listdir(VALID))
        self.assertGreaterEqual(len(cases), 1)
        for case in cases:
            with self.subTest(case=case):
                d = os.path.join(VALID, case)
                res = run(["list", "--format", "json", "suite.yaml"], cwd=d)
                self.assertEqual(res.code, 0, repr(res))
                self.assertEqual(res.out, read(os.path.join(d, "expected.json")), case)
                self.assertEqual(res.err, "")


if __name__ == "__main__":
    unittest.main()
