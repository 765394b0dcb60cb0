// The go test program of the harness tests (tests/unit/test_harness_tools.c
// runs it; the .txt files are its recorded output). BenchmarkSort allocates,
// BenchmarkSum sets bytes (MB/s) and reports its own metric, BenchmarkSizes
// has sub-benchmarks. HARNESS_FAIL=1 makes BenchmarkSum fail, for the
// recording of a failure.
package harness

import (
	"os"
	"sort"
	"testing"
)

var sink []int

func BenchmarkSort(b *testing.B) {
	for i := 0; i < b.N; i++ {
		v := make([]int, 64)
		for j := range v {
			v[j] = (j * 7919) % 64
		}
		sort.Ints(v)
		sink = v
	}
}

func BenchmarkSum(b *testing.B) {
	if os.Getenv("HARNESS_FAIL") == "1" {
		b.Fatal("asked to fail by HARNESS_FAIL")
	}
	b.SetBytes(8 * 100)
	s := 0
	for i := 0; i < b.N; i++ {
		for j := 0; j < 100; j++ {
			s += j
		}
	}
	b.ReportMetric(100, "adds/op")
}

func BenchmarkSizes(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"small", 8}, {"large", 1024}} {
		b.Run(size.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = make([]int, size.n)
			}
		})
	}
}
