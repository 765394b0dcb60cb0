// The Criterion.rs benchmark whose results are in this folder (tests/data/README.md).
use criterion::{black_box, criterion_group, criterion_main, Criterion};

fn build(n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).map(|i| (i * 7919) % n).collect();
    v.sort();
    v
}

fn benches(c: &mut Criterion) {
    c.bench_function("sort 64", |b| b.iter(|| build(black_box(64))));
    let mut g = c.benchmark_group("sizes");
    for n in [8usize, 256] {
        g.bench_function(format!("{}", n), |b| b.iter(|| build(black_box(n))));
    }
    g.finish();
}

criterion_group! {
    name = group;
    config = Criterion::default().sample_size(10).warm_up_time(std::time::Duration::from_millis(10)).measurement_time(std::time::Duration::from_millis(50)).without_plots();
    targets = benches
}
criterion_main!(group);
