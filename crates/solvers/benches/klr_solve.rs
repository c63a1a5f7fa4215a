//! One sparse kernel logistic regression solve (RBF, the paper's σ = 1), second- against
//! first-order working sets, λ = 0 and λ = C/10, on 1 thread; and a larger solve on 1 and 2
//! threads.
//!
//! `cargo bench -p kernelkit-solvers --bench klr_solve`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction};
use kernelkit_solvers::{
    with_thread_pool, KlrProblem, KlrSmo, NoMonitor, SolveOptions, WorkingSetRule,
};

mod common;
use common::solve_group;

#[path = "../tests/common/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

/// twonorm-like data (Breiman): N(±a·1, I) in `d` dimensions, a = 2/√d, scaled to about [0, 1].
fn twonorm(n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
    let mut random = XorShift(0x2545_F491_4F6C_DD1D);
    let mut uniform = move || random.uniform();
    let shift = 2.0 / (d as f64).sqrt();
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        for _ in 0..d {
            let normal = (0..12).map(|_| uniform()).sum::<f64>() - 6.0;
            x.push((normal + label * shift) / 8.0 + 0.5);
        }
        y.push(label);
    }
    (x, y)
}

fn solve(
    x: &[f64],
    y: &[f64],
    d: usize,
    c: f64,
    lambda: f64,
    rule: WorkingSetRule,
    threads: usize,
) {
    let n = y.len();
    with_thread_pool(threads, || {
        let kernel =
            DenseKernel::new(DenseRows::new(x, n, d).unwrap(), KernelFunction::Rbf { gamma: 0.5 })
                .unwrap();
        let mut problem = KlrProblem::new(kernel, y, c, lambda, 1e-5, 200 << 20).unwrap();
        let options = SolveOptions { tol: 1e-5, n_threads: threads, ..SolveOptions::default() };
        let solver = KlrSmo { rule, record_history: false };
        black_box(solver.solve_with_report(&mut problem, &options, &mut NoMonitor).unwrap())
    })
    .unwrap();
}

fn klr_solve(c: &mut Criterion) {
    let (x, y) = twonorm(1000, 20);
    let mut group = solve_group(c, "klr_twonorm_1000x20_C100");
    for (label, lambda) in [("lam0", 0.0), ("lamC10", 10.0)] {
        for (name, rule) in [
            ("second_order", WorkingSetRule::SecondOrder),
            ("first_order", WorkingSetRule::FirstOrder),
        ] {
            let id = BenchmarkId::new(label, name);
            group.bench_function(id, |b| b.iter(|| solve(&x, &y, 20, 100.0, lambda, rule, 1)));
        }
    }
    group.finish();
    let (x, y) = twonorm(6000, 20);
    let mut group = solve_group(c, "klr_twonorm_6000x20_C100_lamC10");
    for threads in [1usize, 2] {
        group.bench_with_input(BenchmarkId::new("threads", threads), &threads, |b, &threads| {
            b.iter(|| solve(&x, &y, 20, 100.0, 10.0, WorkingSetRule::SecondOrder, threads))
        });
    }
    group.finish();
}

criterion_group!(benches, klr_solve);
criterion_main!(benches);
