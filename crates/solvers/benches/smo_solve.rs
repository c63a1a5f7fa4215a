//! One C-SVC solve with the SMO engine, with and without shrinking, on 1 and 2 threads; and one
//! ε-SVR solve on short dense rows (537_houses-like: 8 features), where the O(n) passes and
//! the column assembly weigh as much as the kernel.
//!
//! `cargo bench -p kernelkit-solvers --bench smo_solve`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction};
use kernelkit_solvers::formulations::{c_svc, epsilon_svr};
use kernelkit_solvers::{with_thread_pool, NoMonitor, SolveOptions};

mod common;
use common::solve_group;

#[path = "../tests/common/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

/// a9a-like binary features with a label that depends on a few of them, plus noise.
fn problem(n: usize, d: usize) -> (Vec<f64>, Vec<i8>) {
    let mut random = XorShift(0x2545_F491_4F6C_DD1D);
    let mut next = || random.next_u64();
    let x: Vec<f64> = (0..n * d).map(|_| if next() % 9 == 0 { 1.0 } else { 0.0 }).collect();
    let y = (0..n)
        .map(|i| {
            let score = x[i * d] + x[i * d + 1] - x[i * d + 2] + (next() % 3) as f64 - 1.0;
            if score > 0.0 {
                1
            } else {
                -1
            }
        })
        .collect();
    (x, y)
}

fn smo_solve(c: &mut Criterion) {
    let (n, d) = (3000, 123);
    let (x, y) = problem(n, d);
    let mut group = solve_group(c, "c_svc_rbf_3000x123");
    for threads in [1usize, 2] {
        for shrinking in [true, false] {
            let options = SolveOptions { shrinking, n_threads: threads, ..SolveOptions::default() };
            let id =
                BenchmarkId::new(format!("threads{threads}"), format!("shrinking={shrinking}"));
            group.bench_with_input(id, &options, |b, options| {
                b.iter(|| {
                    with_thread_pool(threads, || {
                        let kernel = DenseKernel::new(
                            DenseRows::new(&x, n, d).unwrap(),
                            KernelFunction::Rbf { gamma: 0.5 },
                        )
                        .unwrap();
                        let upper = vec![1.0; n];
                        black_box(c_svc(kernel, &y, upper, options, &mut NoMonitor).unwrap())
                    })
                    .unwrap()
                })
            });
        }
    }
    group.finish();
}

/// Smooth targets of 8 features in [−1, 1], plus noise.
fn regression(n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
    let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut uniform = || random.uniform() * 2.0 - 1.0;
    let x: Vec<f64> = (0..n * d).map(|_| uniform()).collect();
    let y = (0..n)
        .map(|i| (2.0 * x[i * d]).sin() + x[i * d + 1] * x[i * d + 2] + 0.3 * uniform())
        .collect();
    (x, y)
}

fn svr_solve(c: &mut Criterion) {
    let (n, d) = (8000, 8);
    let (x, y) = regression(n, d);
    let mut group = solve_group(c, "epsilon_svr_rbf_8000x8");
    for threads in [1usize, 2] {
        let options = SolveOptions { n_threads: threads, ..SolveOptions::default() };
        group.bench_with_input(BenchmarkId::new("threads", threads), &options, |b, options| {
            b.iter(|| {
                with_thread_pool(threads, || {
                    let kernel = DenseKernel::new(
                        DenseRows::new(&x, n, d).unwrap(),
                        KernelFunction::Rbf { gamma: 0.125 },
                    )
                    .unwrap();
                    let upper = vec![1.0; n];
                    black_box(epsilon_svr(kernel, &y, 0.1, upper, options, &mut NoMonitor).unwrap())
                })
                .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, smo_solve, svr_solve);
criterion_main!(benches);
