//! One constrained linear ν-SVR solve by GSMO: without constraints (Algorithm 1), with β ≥ 0
//! and on the simplex, on 1 thread; and a larger non-negative problem on 1 and 2 threads.
//!
//! `cargo bench -p kernelkit-solvers --bench gsmo_solve`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kernelkit_kernels::DenseRows;
use kernelkit_solvers::{
    with_thread_pool, ConstrainedSvrProblem, Gsmo, LinearConstraints, NoMonitor, SolveOptions,
    SparseMatrix,
};

mod common;
use common::solve_group;

#[path = "../tests/common/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

/// Gaussian-like rows (sums of uniforms), a positive β* and noise, as the paper's §4.1.
fn problem(n: usize, p: usize) -> (Vec<f64>, Vec<f64>) {
    let mut random = XorShift(0x2545_F491_4F6C_DD1D);
    let mut uniform = move || random.uniform();
    let mut normal = move || (0..12).map(|_| uniform()).sum::<f64>() - 6.0;
    let x: Vec<f64> = (0..n * p).map(|_| normal()).collect();
    let beta: Vec<f64> = (0..p).map(|_| normal().exp()).collect();
    let y = (0..n)
        .map(|i| x[i * p..(i + 1) * p].iter().zip(&beta).map(|(a, b)| a * b).sum::<f64>())
        .map(|v| v + 3.0 * normal())
        .collect::<Vec<f64>>();
    (x, y)
}

fn constraints(kind: &str, p: usize) -> (LinearConstraints, LinearConstraints) {
    let minus_identity: Vec<f64> =
        (0..p * p).map(|k| if k / p == k % p { -1.0 } else { 0.0 }).collect();
    let nonnegative = || {
        let a = SparseMatrix::from_dense("A", p, p, &minus_identity).unwrap();
        LinearConstraints::new("A", "b", a, vec![0.0; p], p).unwrap()
    };
    match kind {
        "none" => (LinearConstraints::none(p), LinearConstraints::none(p)),
        "nonnegative" => (nonnegative(), LinearConstraints::none(p)),
        _ => {
            let sum = SparseMatrix::from_dense("Gamma", 1, p, &vec![1.0; p]).unwrap();
            (nonnegative(), LinearConstraints::new("Gamma", "d", sum, vec![1.0], p).unwrap())
        }
    }
}

fn solve(x: &[f64], y: &[f64], p: usize, kind: &str, threads: usize) {
    let n = y.len();
    with_thread_pool(threads, || {
        let rows = DenseRows::new(x, n, p).unwrap();
        let (a, g) = constraints(kind, p);
        // The paper's C = 100 (scikit-learn's C = 100 / n), ν = 0.5.
        let mut problem =
            ConstrainedSvrProblem::new(rows, y, 100.0 / n as f64, 0.5, a, g, 200 << 20).unwrap();
        let options = SolveOptions { tol: 1e-3, n_threads: threads, ..SolveOptions::default() };
        black_box(Gsmo::default().solve_with_report(&mut problem, &options, &mut NoMonitor))
    })
    .unwrap()
    .unwrap();
}

fn gsmo_solve(c: &mut Criterion) {
    let (n, p) = (500, 50);
    let (x, y) = problem(n, p);
    let mut group = solve_group(c, "gsmo_500x50");
    for kind in ["none", "nonnegative", "simplex"] {
        group.bench_with_input(BenchmarkId::from_parameter(kind), &kind, |b, kind| {
            b.iter(|| solve(&x, &y, p, kind, 1))
        });
    }
    group.finish();
    let (n, p) = (20_000, 20);
    let (x, y) = problem(n, p);
    let mut group = solve_group(c, "gsmo_nonnegative_20000x20");
    for threads in [1usize, 2] {
        group.bench_with_input(BenchmarkId::new("threads", threads), &threads, |b, &threads| {
            b.iter(|| solve(&x, &y, p, "nonnegative", threads))
        });
    }
    group.finish();
}

criterion_group!(benches, gsmo_solve);
criterion_main!(benches);
