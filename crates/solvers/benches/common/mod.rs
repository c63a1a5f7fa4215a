//! What the solver benches share (`mod common;` in each).

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};

/// The group `name` with 10 samples, criterion's least: each sample is one whole solve, which
/// takes seconds.
pub fn solve_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group
}
