#!/usr/bin/env python3
"""Discovers and runs the end-to-end tests in tests/cli (test_*.py) and prints a
closing line "e2e: N passed, N failed, N skipped" for tests/run to read; before
it, the five test modules that took longest, so that CI's time (it must stay
well inside its limit) is seen where it goes."""
import os
import sys
import time
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)


class TimedResult(unittest.TextTestResult):
    """Adds each test's wall time to its module's."""
    modules = {}

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        module = type(test).__module__
        self.modules[module] = self.modules.get(module, 0.0) + time.monotonic() - self._started


def main():
    pattern = os.environ.get("HIMORIME_E2E_PATTERN", "test_*.py")
    suite = unittest.defaultTestLoader.discover(here, pattern=pattern, top_level_dir=here)
    result = unittest.TextTestRunner(verbosity=1, stream=sys.stdout,
                                     resultclass=TimedResult).run(suite)
    slowest = sorted(TimedResult.modules.items(), key=lambda kv: -kv[1])[:5]
    print("e2e: slowest modules: " + ", ".join(f"{m} {s:.0f} s" for m, s in slowest))
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print(f"e2e: {passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
