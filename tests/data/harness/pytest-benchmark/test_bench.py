"""The pytest-benchmark program of the harness tests
(tests/unit/test_harness_tools.c runs it; bench.json is its recorded output):
a plain test, a parametrized one and one in a class, so that the names
(pytest's node ids) have parameters and "::" levels."""
import pytest


def build(n):
    return sorted((i * 7919) % n for i in range(n))


def test_sort(benchmark):
    benchmark(build, 64)


@pytest.mark.parametrize("n", [8, 256])
def test_sizes(benchmark, n):
    benchmark(build, n)


class TestJoin:
    def test_join(self, benchmark):
        benchmark("-".join, ["a"] * 32)
