// The JMH benchmark whose result is jmh-result.json (tests/data/README.md).
package bench;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 1, time = 50, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 3, time = 50, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
public class SortBench {
    @Param({"8", "256"})
    public int n;

    @Benchmark
    public int[] sort() {
        int[] v = new int[n];
        for (int i = 0; i < n; i++)
            v[i] = (i * 7919) % n;
        Arrays.sort(v);
        return v;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public int sum() {
        int s = 0;
        for (int i = 0; i < 100; i++)
            s += i;
        return s;
    }
}
