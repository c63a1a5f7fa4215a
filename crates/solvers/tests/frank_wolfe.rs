//! The Frank–Wolfe family against an SMO solve of the same simplex QP, and its invariants.

use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction, PrecomputedGram, SignedQ};
use kernelkit_solvers::{
    with_thread_pool, BoxQp, FrankWolfe, Method, NoMonitor, RadiusRule, SamplePool, SimplexQp, Smo,
    SolveOptions, Solver, Start, Status,
};

/// Two noisy interleaved clusters in 2-D with labels ±1.
fn data(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut state = seed;
    let mut uniform = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64) / ((1u64 << 53) as f64)
    };
    let mut x = Vec::with_capacity(2 * n);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        x.push(label * 0.8 + 1.5 * (uniform() - 0.5));
        x.push((uniform() - 0.5) * 2.0);
        y.push(label);
    }
    (x, y)
}

fn kernel(x: &[f64], n: usize, function: KernelFunction) -> DenseKernel<'_> {
    DenseKernel::new(DenseRows::new(x, n, 2).unwrap(), function).unwrap()
}

/// `K̃` as a dense matrix, computed directly.
fn modified_kernel(x: &[f64], y: &[f64], c: f64, function: KernelFunction) -> Vec<f64> {
    let n = y.len();
    let k = |i: usize, j: usize| {
        let (a, b) = (&x[2 * i..2 * i + 2], &x[2 * j..2 * j + 2]);
        match function {
            KernelFunction::Rbf { gamma } => {
                (-gamma * ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2))).exp()
            }
            KernelFunction::Polynomial { gamma, coef0, degree } => {
                (gamma * (a[0] * b[0] + a[1] * b[1]) + coef0).powi(degree as i32)
            }
            _ => unreachable!(),
        }
    };
    let mut q = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            q[i * n + j] = y[i] * y[j] * (k(i, j) + 1.0) + if i == j { 1.0 / c } else { 0.0 };
        }
    }
    q
}

fn quadratic(q: &[f64], alpha: &[f64]) -> f64 {
    let n = alpha.len();
    (0..n).map(|i| alpha[i] * (0..n).map(|j| q[i * n + j] * alpha[j]).sum::<f64>()).sum()
}

/// `min αᵀK̃α` on the simplex by the SMO engine (an independent code path).
fn reference(q: &[f64], n: usize) -> f64 {
    let gram = PrecomputedGram::new(q, n, n).unwrap();
    let mut problem = BoxQp::new(
        SignedQ::unsigned(gram, 1 << 24),
        vec![0.0; n],
        vec![1; n],
        vec![1.0; n],
        Some(vec![1.0 / n as f64; n]),
    )
    .unwrap();
    let options = SolveOptions { tol: 1e-10, ..SolveOptions::default() };
    let solution = Smo.solve(&mut problem, &options, &mut NoMonitor).unwrap();
    quadratic(q, &solution.x)
}

fn solve(
    solver: &FrankWolfe,
    x: &[f64],
    y: &[f64],
    c: f64,
    function: KernelFunction,
    options: &SolveOptions,
) -> (kernelkit_solvers::Solution, kernelkit_solvers::FrankWolfeReport) {
    let n = y.len();
    let mut problem = SimplexQp::new(kernel(x, n, function), y, c, 1 << 24).unwrap();
    solver.solve_with_report(&mut problem, options, &mut NoMonitor).unwrap()
}

#[test]
fn every_method_meets_the_papers_bound_against_the_qp_optimum() {
    let rbf = KernelFunction::Rbf { gamma: 0.8 };
    let poly = KernelFunction::Polynomial { gamma: 0.7, coef0: 1.0, degree: 3 };
    for (n, c, function) in [(60, 1.0, rbf), (120, 10.0, rbf), (90, 100.0, rbf), (80, 5.0, poly)] {
        let (x, y) = data(n, n as u64);
        let q = modified_kernel(&x, &y, c, function);
        let delta2 = (0..n).map(|i| q[i * n + i]).fold(f64::NEG_INFINITY, f64::max);
        let g_star = delta2 - reference(&q, n);
        for method in [Method::Cvm, Method::Fw, Method::Mfw] {
            if method == Method::Cvm && matches!(function, KernelFunction::Polynomial { .. }) {
                continue;
            }
            let starts = [Start::RandomMeb, Start::FurthestPair];
            let searches = [
                (None, SamplePool::NonCore),
                (Some(59), SamplePool::NonCore),
                (Some(59), SamplePool::All),
            ];
            for ((sample_size, sample_pool), start) in
                searches.into_iter().flat_map(|s| starts.map(|t| (s, t)))
            {
                let epsilon = 1e-4;
                let solver = FrankWolfe {
                    method,
                    epsilon,
                    sample_size,
                    sample_pool,
                    start,
                    verify_full: true,
                    ..Default::default()
                };
                let (solution, report) =
                    solve(&solver, &x, &y, c, function, &SolveOptions::default());
                assert_eq!(
                    solution.status,
                    Status::Converged,
                    "{method:?} {sample_size:?} {sample_pool:?} {start:?}"
                );
                let alpha = &solution.x;
                assert!(alpha.iter().all(|&a| a >= 0.0));
                assert!((alpha.iter().sum::<f64>() - 1.0).abs() <= 1e-12);
                let r_big = quadratic(&q, alpha);
                assert!((solution.objective - r_big).abs() <= 1e-10 * r_big);
                assert!((report.radius2 - (delta2 - r_big)).abs() <= 1e-10 * delta2);
                let g = delta2 - r_big;
                let relative = 2.0 * epsilon + epsilon * epsilon;
                // The SMO reference reads K̃ in f32: 1e-6 absolute covers its rounding.
                assert!(g >= (1.0 - relative) * g_star - 1e-6, "{method:?}: {g} vs {g_star}");
                assert!(g <= g_star + 1e-6, "{method:?}: {g} vs {g_star}");
                let bias: f64 = alpha.iter().zip(&y).map(|(a, y)| a * y).sum();
                assert!((solution.bias - bias).abs() <= 1e-12);
            }
        }
    }
}

#[test]
fn cvm_refuses_a_kernel_without_constant_diagonal() {
    let (x, y) = data(30, 3);
    let function = KernelFunction::Polynomial { gamma: 1.0, coef0: 0.0, degree: 2 };
    let mut problem = SimplexQp::new(kernel(&x, 30, function), &y, 1.0, 1 << 20).unwrap();
    let solver = FrankWolfe { method: Method::Cvm, ..Default::default() };
    let error = solver.solve(&mut problem, &SolveOptions::default(), &mut NoMonitor).unwrap_err();
    assert!(error.to_string().contains("constant k(x, x)"), "{error}");
}

/// After every step, the maintained `r²` is `Δ² − αᵀK̃α` recomputed from scratch; the paper's
/// printed away-step update breaks this at the first away step.
#[test]
fn the_maintained_radius_is_exact_after_every_step_and_the_printed_rule_is_not() {
    let (n, c) = (70, 10.0);
    let function = KernelFunction::Rbf { gamma: 1.5 };
    let (x, y) = data(n, 5);
    let q = modified_kernel(&x, &y, c, function);
    let delta2 = 2.0 + 1.0 / c;
    let mut worst_printed: f64 = 0.0;
    let mut saw_away = false;
    for k in 1..=150u64 {
        let options = SolveOptions { max_iter: Some(k), ..SolveOptions::default() };
        for rule in [RadiusRule::Exact, RadiusRule::PaperPrinted] {
            let solver = FrankWolfe {
                method: Method::Mfw,
                epsilon: 1e-9,
                sample_size: None,
                radius_rule: rule,
                ..Default::default()
            };
            let (solution, report) = solve(&solver, &x, &y, c, function, &options);
            let truth = delta2 - quadratic(&q, &solution.x);
            let error = (report.radius2 - truth).abs() / truth;
            if rule == RadiusRule::Exact {
                assert!(error <= 1e-10, "step {k}: {error}");
                saw_away |= report.away_steps + report.drop_steps > 0;
            } else {
                worst_printed = worst_printed.max(error);
            }
        }
    }
    assert!(saw_away);
    assert!(worst_printed > 1e-3, "{worst_printed}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let n = 4600; // above the length at which the O(n) passes go parallel
    let (x, y) = data(n, 9);
    let function = KernelFunction::Rbf { gamma: 2.0 };
    for (method, sample_size) in
        [(Method::Mfw, None), (Method::Fw, Some(59)), (Method::Cvm, Some(59))]
    {
        let solver = FrankWolfe { method, epsilon: 1e-3, sample_size, ..Default::default() };
        let options = SolveOptions { max_iter: Some(300), seed: 17, ..SolveOptions::default() };
        let one = with_thread_pool(1, || solve(&solver, &x, &y, 10.0, function, &options)).unwrap();
        let two = with_thread_pool(2, || solve(&solver, &x, &y, 10.0, function, &options)).unwrap();
        assert_eq!(one.0.x, two.0.x, "{method:?}");
        assert_eq!(one.0.iterations, two.0.iterations);
    }
}

#[test]
fn away_steps_make_mfw_converge_much_faster_than_fw() {
    let (n, c) = (80, 10.0);
    let function = KernelFunction::Rbf { gamma: 1.0 };
    let (x, y) = data(n, 21);
    let options = SolveOptions::default();
    let run = |method| {
        let solver = FrankWolfe { method, epsilon: 1e-6, sample_size: None, ..Default::default() };
        let (solution, _) = solve(&solver, &x, &y, c, function, &options);
        assert_eq!(solution.status, Status::Converged);
        solution.iterations
    };
    let (fw, mfw) = (run(Method::Fw), run(Method::Mfw));
    eprintln!("toy: FW {fw} iterations, MFW {mfw}");
    assert!(mfw * 20 < fw, "MFW {mfw} vs FW {fw}");
}
