//! AID against the direct solve of the same problem: LAD (AID with Clarabel LPs on cluster
//! means vs one Clarabel LP on all rows) and the linear C-SVM (AID with SMO on cluster means vs
//! SMO on all rows), 2 threads.
//!
//! `cargo bench -p kernelkit-solvers --bench aid_solve`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction};
use kernelkit_solvers::aid::{
    lad_partition, svm_partition, Aid, AidOptions, ClarabelLp, Initial, LadModel, NoAidMonitor,
    SvmData, SvmModel, WeightedLad,
};
use kernelkit_solvers::formulations::c_svc;
use kernelkit_solvers::{with_thread_pool, NoMonitor, Smo, SolveOptions, Solver};

mod common;
use common::solve_group;

#[path = "../tests/common/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

/// Rows `x ~ N(0, I)` with a last column of ones; LAD targets `x·β + t(3)-like noise`, SVM
/// labels `sign(x·β + noise)`.
fn data(n: usize, d: usize) -> (Vec<f64>, Vec<f64>, Vec<i8>) {
    let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut normal = move || {
        let mut sum = 0.0;
        for _ in 0..12 {
            sum += random.uniform();
        }
        sum - 6.0
    };
    let mut x = Vec::with_capacity(n * d);
    let (mut y, mut labels) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let mut fit = 0.0;
        for j in 0..d {
            let v = if j + 1 == d { 1.0 } else { normal() };
            fit += v * (1.0 + j as f64 % 3.0 - 1.0);
            x.push(v);
        }
        let noise = normal();
        y.push(fit + noise / (0.3 + noise.abs() * 0.1));
        labels.push(if fit + noise > 0.0 { 1 } else { -1 });
    }
    (x, y, labels)
}

fn aid_solve(c: &mut Criterion) {
    let (n, d) = (20_000, 11);
    let (x, y, labels) = data(n, d);
    let aid = Aid { options: AidOptions { tol: 1e-6, max_iter: 100, time_limit: None } };
    let lp = SolveOptions { tol: 1e-9, n_threads: 2, ..SolveOptions::default() };
    let mut group = solve_group(c, "lad_20000x11");
    group.bench_function("aid", |b| {
        b.iter(|| {
            with_thread_pool(2, || {
                let mut model = LadModel::new(&x, d, &y, ClarabelLp, lp.clone()).unwrap();
                let initial = Initial::KMeans { k: 22, seed: 0 };
                let start = lad_partition(&x, d, &y, &initial, &mut NoMonitor).unwrap();
                black_box(aid.run(&mut model, start, &mut NoAidMonitor::default()).unwrap())
            })
            .unwrap()
        })
    });
    group.bench_function("direct_lp", |b| {
        b.iter(|| {
            let mut full = WeightedLad { x: x.clone(), d, y: y.clone(), weights: vec![1.0; n] };
            black_box(ClarabelLp.solve(&mut full, &lp, &mut NoMonitor).unwrap())
        })
    });
    group.finish();
    let smo = SolveOptions { tol: 1e-6, n_threads: 2, ..SolveOptions::default() };
    let mut group = solve_group(c, "linear_svm_20000x11_C0.1");
    group.bench_function("aid", |b| {
        b.iter(|| {
            with_thread_pool(2, || {
                let data = SvmData { x: &x, d, y: &labels, c: 0.1, kernel: KernelFunction::Linear };
                let mut model = SvmModel::new(data, Smo, smo.clone()).unwrap();
                let initial = Initial::KMeans { k: 26, seed: 0 };
                let linear = KernelFunction::Linear;
                let start =
                    svm_partition(&x, d, &labels, 0.1, linear, &initial, &smo, &mut NoMonitor)
                        .unwrap();
                black_box(aid.run(&mut model, start, &mut NoAidMonitor::default()).unwrap())
            })
            .unwrap()
        })
    });
    group.bench_function("direct_smo", |b| {
        b.iter(|| {
            with_thread_pool(2, || {
                let rows = DenseRows::new(&x, n, d).unwrap();
                let kernel = DenseKernel::new(rows, KernelFunction::Linear).unwrap();
                let options = SolveOptions { tol: 1e-3, ..smo.clone() };
                black_box(c_svc(kernel, &labels, vec![0.1; n], &options, &mut NoMonitor).unwrap())
            })
            .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, aid_solve);
criterion_main!(benches);
