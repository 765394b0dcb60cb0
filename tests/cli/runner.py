#!/usr/bin/env python3
"""Discovers and runs the end-to-end tests in tests/cli (test_*.py) and prints a
closing line "e2e: N passed, N failed, N skipped" for tests/run to read."""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)


def main():
    pattern = os.environ.get("HIMORIME_E2E_PATTERN", "test_*.py")
    suite = unittest.defaultTestLoader.discover(here, pattern=pattern, top_level_dir=here)
    result = unittest.TextTestRunner(verbosity=1, stream=sys.stdout).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print(f"e2e: {passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
