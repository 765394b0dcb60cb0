// Google Benchmark program of the harness tests (tests/unit/test_harness_tools.c
// builds and runs it; plain.json and repetitions.json are its recorded output).
// BM_Sort reports bytes processed and a user counter, BM_Sum items processed;
// the third benchmark's name holds every character a regular expression treats
// specially, so that selecting it by name must escape them all.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

static void BM_Sort(benchmark::State &state)
{
	std::vector<int> v(state.range(0));
	for (auto _ : state) {
		for (size_t i = 0; i < v.size(); i++)
			v[i] = (int)((i * 2654435761u) % 1000);
		std::sort(v.begin(), v.end());
		benchmark::DoNotOptimize(v.data());
	}
	state.SetBytesProcessed(state.iterations() * state.range(0) * (int64_t)sizeof(int));
	state.counters["elements"] = benchmark::Counter((double)v.size());
}
BENCHMARK(BM_Sort)->Arg(64)->Arg(256);

static void BM_Sum(benchmark::State &state)
{
	long s = 0;
	for (auto _ : state) {
		for (int i = 0; i < 100; i++)
			s += i;
		benchmark::DoNotOptimize(s);
	}
	state.SetItemsProcessed(state.iterations() * 100);
}
BENCHMARK(BM_Sum);

static void BM_Special(benchmark::State &state)
{
	for (auto _ : state)
		benchmark::DoNotOptimize(state.iterations());
}
BENCHMARK(BM_Special)->Name("a.b+c(d)[e]{f}|g^h$i*j?k\\l/m n");

BENCHMARK_MAIN();
