// The Catch2 v2 program of the harness tests (tests/unit/test_harness_tools.c
// builds and runs it; the .xml files are its recorded -r xml output). Two
// test cases, one with sections and one whose name needs XML escaping;
// HARNESS_FAIL=1 makes one benchmark throw, for the recording of a failure.
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_ENABLE_BENCHMARKING
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <vector>

static std::vector<int> build(int n)
{
	std::vector<int> v(n);
	for (int i = 0; i < n; i++)
		v[i] = (i * 7919) % n;
	std::sort(v.begin(), v.end());
	return v;
}

TEST_CASE("sorting", "[bench]")
{
	SECTION("small") {
		BENCHMARK("std::sort 64") { return build(64); };
	}
	SECTION("large") {
		BENCHMARK("std::sort 256") { return build(256); };
	}
}

TEST_CASE("summing <fast> & \"quoted\"", "[bench]")
{
	BENCHMARK("sum")
	{
		if (std::getenv("HARNESS_FAIL"))
			throw std::runtime_error("asked to fail by HARNESS_FAIL");
		long s = 0;
		for (int i = 0; i < 100; i++)
			s += i;
		return s;
	};
}
