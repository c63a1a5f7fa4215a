//! The batched engine against LIBSVM's engine (the reference: same problem, same stopping rule)
//! and against the KKT conditions computed from scratch, on every formulation; its
//! independence from the thread count (its limits and interruptions: `smo.rs`).

mod common;
#[path = "common/kkt.rs"]
mod kkt;
#[path = "common/same.rs"]
mod same;
use common::Random;
use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction, KernelSource};
use kernelkit_solvers::formulations::{c_svc, epsilon_svr, nu_svc, nu_svr, one_class};
use kernelkit_solvers::{with_thread_pool, Engine, NoMonitor, Solution, SolveOptions, Status};
use kkt::max_violation;
use same::assert_same_iterates;

/// Two overlapping clouds, labels `+1` for a third of the points.
fn clouds(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<i8>) {
    let mut random = Random(seed);
    let y: Vec<i8> = (0..n).map(|i| if i % 3 == 0 { 1 } else { -1 }).collect();
    let mut x = Vec::with_capacity(n * d);
    for &label in &y {
        x.push(f64::from(label) * 0.6 + random.normal() * 0.5);
        x.extend((1..d).map(|_| random.normal() * 0.5));
    }
    (x, y)
}

fn rbf(x: &[f64], n: usize, d: usize) -> DenseKernel<'_> {
    DenseKernel::new(DenseRows::new(x, n, d).unwrap(), KernelFunction::Rbf { gamma: 0.5 }).unwrap()
}

/// Small batches, and shrinking in the batched engine whatever the size.
fn options(engine: Engine) -> SolveOptions {
    SolveOptions {
        tol: 1e-6,
        engine,
        batch_size: Some(16),
        batched_shrinking_from: 0,
        ..SolveOptions::default()
    }
}

/// Both engines converged to the same objective, the batched one in several batches.
fn same_optimum(libsvm: &Solution, batched: &Solution) {
    assert_eq!(libsvm.status, Status::Converged);
    assert_eq!(batched.status, Status::Converged);
    assert_eq!(libsvm.stats.engine, Some(Engine::Libsvm));
    assert_eq!(batched.stats.engine, Some(Engine::Batched));
    assert!(batched.stats.batches > 1, "{} batches", batched.stats.batches);
    assert_eq!(batched.stats.objective_increases, 0);
    let scale = libsvm.objective.abs().max(1.0);
    assert!(
        (libsvm.objective - batched.objective).abs() <= 1e-6 * scale,
        "objectives {} and {}",
        libsvm.objective,
        batched.objective
    );
    assert!(batched.gap < 1e-6);
}

/// `max_{I_up} −y_t G_t − min_{I_low} −y_t G_t` of the C-SVC dual, `G` from scratch in `f64`.
fn c_svc_violation(kernel: &DenseKernel<'_>, y: &[i8], upper: &[f64], alpha: &[f64]) -> f64 {
    let n = alpha.len();
    let mut row = vec![0.0; n];
    max_violation(y, upper, alpha, |t| {
        kernel.fill_block(&[t], 0, n, &mut row);
        let s_t = f64::from(y[t]);
        let q_alpha: f64 = (0..n).map(|j| s_t * f64::from(y[j]) * row[j] * alpha[j]).sum();
        -s_t * (q_alpha - 1.0)
    })
}

#[test]
fn c_svc_reaches_libsvm_optimum_and_the_kkt_conditions() {
    let (n, d) = (300, 4);
    let (x, y) = clouds(n, d, 1);
    let upper: Vec<f64> = (0..n).map(|i| if i % 7 == 0 { 0.5 } else { 2.0 }).collect();
    let solve = |engine| c_svc(rbf(&x, n, d), &y, upper.clone(), &options(engine), &mut NoMonitor);
    let (libsvm, batched) = (solve(Engine::Libsvm).unwrap(), solve(Engine::Batched).unwrap());
    same_optimum(&libsvm, &batched);
    // The f32 columns the solver reads differ from the f64 kernel by about 1e-7 relative.
    let violation = c_svc_violation(&rbf(&x, n, d), &y, &upper, &batched.x);
    assert!(violation <= 1e-6 + 1e-4, "KKT violation {violation}");
    let balance: f64 = batched.x.iter().zip(&y).map(|(a, &s)| a * f64::from(s)).sum();
    assert!(balance.abs() < 1e-9, "yᵀα = {balance}");
    assert!(batched.x.iter().zip(&upper).all(|(&a, &u)| (0.0..=u).contains(&a)));
    assert!((libsvm.bias - batched.bias).abs() < 1e-3, "{} vs {}", libsvm.bias, batched.bias);
    // Shrinking ran (the active set shrank, and G was rebuilt) and changed nothing beyond tol.
    assert!(batched.stats.min_active_size < n as u64, "{:?}", batched.stats);
    assert!(batched.stats.gradient_reconstructions >= 1);
    let unshrunk = SolveOptions { shrinking: false, ..options(Engine::Batched) };
    let plain = c_svc(rbf(&x, n, d), &y, upper.clone(), &unshrunk, &mut NoMonitor).unwrap();
    assert_eq!(plain.stats.min_active_size, n as u64);
    same_optimum(&libsvm, &plain);
}

#[test]
fn one_class_and_epsilon_svr_reach_libsvm_optimum() {
    let (n, d) = (240, 3);
    let (x, _) = clouds(n, d, 3);
    let solve = |engine| {
        one_class(rbf(&x, n, d), 0.3, vec![1.0; n], &options(engine), &mut NoMonitor).unwrap()
    };
    let (libsvm, batched) = (solve(Engine::Libsvm), solve(Engine::Batched));
    same_optimum(&libsvm, &batched);
    assert!((batched.x.iter().sum::<f64>() - 0.3 * n as f64).abs() < 1e-9);

    let targets: Vec<f64> = (0..n).map(|i| x[i * d] * 2.0 - x[i * d + 1]).collect();
    let solve = |engine| {
        epsilon_svr(rbf(&x, n, d), &targets, 0.1, vec![3.0; n], &options(engine), &mut NoMonitor)
            .unwrap()
    };
    let (libsvm, batched) = (solve(Engine::Libsvm), solve(Engine::Batched));
    same_optimum(&libsvm, &batched);
    assert!(batched.x.iter().sum::<f64>().abs() < 1e-9);
    assert!(batched.x.iter().all(|b| b.abs() <= 3.0));
}

#[test]
fn nu_formulations_reach_libsvm_optimum_and_keep_both_equalities() {
    let (n, d) = (240, 3);
    let (x, y) = clouds(n, d, 7);
    let solve = |engine| {
        nu_svc(rbf(&x, n, d), &y, 0.4, vec![1.0; n], &options(engine), &mut NoMonitor).unwrap()
    };
    let ((libsvm, r_libsvm), (batched, r)) = (solve(Engine::Libsvm), solve(Engine::Batched));
    same_optimum(&libsvm, &batched);
    assert!((r - r_libsvm).abs() <= 1e-3 * r_libsvm.abs());
    for label in [1, -1] {
        let sum: f64 = batched.x.iter().zip(&y).filter(|(_, &s)| s == label).map(|(a, _)| a).sum();
        assert!((sum * r - 0.4 * n as f64 / 2.0).abs() < 1e-9, "label {label}: {sum}");
    }

    let targets: Vec<f64> = (0..n).map(|i| x[i * d] - 0.5 * x[i * d + 2]).collect();
    let solve = |engine| {
        nu_svr(rbf(&x, n, d), &targets, 0.3, vec![2.0; n], &options(engine), &mut NoMonitor)
            .unwrap()
    };
    let ((libsvm, eps_libsvm), (batched, eps)) = (solve(Engine::Libsvm), solve(Engine::Batched));
    same_optimum(&libsvm, &batched);
    assert!((eps - eps_libsvm).abs() <= 1e-3 * eps_libsvm.abs().max(1e-3));
    assert!(batched.x.iter().sum::<f64>().abs() < 1e-9);
}

#[test]
fn the_thread_count_does_not_change_the_solution() {
    // Large enough for the parallel selection, kernel blocks and gradient updates to run.
    let (n, d) = (6000, 5);
    let (x, y) = clouds(n, d, 2);
    let targets: Vec<f64> = (0..n).map(|i| x[i * d] - x[i * d + 1]).collect();
    let solve = |threads| {
        with_thread_pool(threads, || {
            let options = SolveOptions {
                n_threads: threads,
                engine: Engine::Batched,
                batch_size: Some(64),
                batched_shrinking_from: 0,
                ..SolveOptions::default()
            };
            let svc = c_svc(rbf(&x, n, d), &y, vec![1.0; n], &options, &mut NoMonitor).unwrap();
            let svr =
                epsilon_svr(rbf(&x, n, d), &targets, 0.1, vec![1.0; n], &options, &mut NoMonitor)
                    .unwrap();
            (svc, svr)
        })
        .unwrap()
    };
    let (one, three) = (solve(1), solve(3));
    for (a, b) in [(&one.0, &three.0), (&one.1, &three.1)] {
        assert_eq!(a.stats.engine, Some(Engine::Batched));
        assert_same_iterates(a, b, "1 and 3 threads");
        assert_eq!(a.stats.batches, b.stats.batches);
    }
}

#[test]
fn auto_chooses_by_the_problem_size() {
    let (n, d) = (200, 3);
    let (x, y) = clouds(n, d, 4);
    let auto = SolveOptions::default();
    let small = c_svc(rbf(&x, n, d), &y, vec![1.0; n], &auto, &mut NoMonitor).unwrap();
    assert_eq!(small.stats.engine, Some(Engine::Libsvm));
    let (n, d) = (9000, 2);
    let (x, y) = clouds(n, d, 4);
    let large = c_svc(rbf(&x, n, d), &y, vec![1.0; n], &auto, &mut NoMonitor).unwrap();
    assert_eq!(large.stats.engine, Some(Engine::Batched));
    // A cache too small for two batches keeps LIBSVM's engine.
    let tiny = SolveOptions { cache_bytes: 1 << 20, ..SolveOptions::default() };
    let kept = c_svc(rbf(&x, n, d), &y, vec![1.0; n], &tiny, &mut NoMonitor).unwrap();
    assert_eq!(kept.stats.engine, Some(Engine::Libsvm));
}
