//! The KLR SMO against its own certificates: KKT conditions recomputed from scratch, the
//! closed-form link `α_i = C σ(λ − y_i d(x_i))` of the free variables (eq. (12) with ρ = λ),
//! agreement of the two working-set rules (uniqueness, Prop. 2), the sufficient decrease (38),
//! thread independence and the infeasible box.

use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction, KernelSource};
use kernelkit_solvers::{
    with_thread_pool, KlrProblem, KlrSmo, NoMonitor, Solution, SolveOptions, Status, WorkingSetRule,
};

mod common;
use common::Random;

/// Two overlapping Gaussian blobs in `d` dimensions (SplitMix64 + Box–Muller).
fn blobs(n: usize, d: usize, seed: u64, positive_share: f64) -> (Vec<f64>, Vec<f64>) {
    let mut random = Random(seed);
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let label = if random.uniform() < positive_share { 1.0 } else { -1.0 };
        for _ in 0..d {
            x.push(random.normal() + 0.8 * label);
        }
        y.push(label);
    }
    (x, y)
}

fn fit(
    x: &[f64],
    y: &[f64],
    d: usize,
    (c, lambda): (f64, f64),
    rule: WorkingSetRule,
    options: &SolveOptions,
) -> (Solution, Vec<f64>, Vec<f64>) {
    let kernel = rbf(x, y.len(), d);
    let mut problem = KlrProblem::new(kernel, y, c, lambda, 1e-5, 1 << 22).unwrap();
    let solver = KlrSmo { rule, record_history: true };
    let (solution, report) =
        solver.solve_with_report(&mut problem, options, &mut NoMonitor).unwrap();
    (solution, report.objectives, report.step_norms)
}

fn rbf(x: &[f64], n: usize, d: usize) -> DenseKernel<'_> {
    DenseKernel::new(DenseRows::new(x, n, d).unwrap(), KernelFunction::Rbf { gamma: 0.5 }).unwrap()
}

fn tight() -> SolveOptions {
    SolveOptions { tol: 1e-9, ..SolveOptions::default() }
}

/// `F = K(α∘y)` from scratch.
fn margins(x: &[f64], y: &[f64], d: usize, alpha: &[f64]) -> Vec<f64> {
    let n = y.len();
    let kernel = rbf(x, n, d);
    let mut column = vec![0.0; n];
    (0..n)
        .map(|i| {
            kernel.fill_block(&[i], 0, n, &mut column);
            column.iter().zip(alpha.iter().zip(y)).map(|(k, (a, y))| k * a * y).sum()
        })
        .collect()
}

#[test]
fn kkt_conditions_hold_at_exit() {
    let (d, n) = (3, 120);
    let (x, y) = blobs(n, d, 1, 0.4);
    for (c, lambda) in [(0.5, 0.0), (10.0, 0.0), (10.0, 1.0), (10.0, 5.0)] {
        let (solution, _, _) = fit(&x, &y, d, (c, lambda), WorkingSetRule::SecondOrder, &tight());
        assert_eq!(solution.status, Status::Converged);
        let alpha = &solution.x;
        let balance: f64 = alpha.iter().zip(&y).map(|(a, y)| a * y).sum();
        assert!(balance.abs() <= 1e-12 * c * n as f64, "{balance}");
        assert!(alpha.iter().all(|&a| (1e-5..=c - 1e-5).contains(&a)));
        let f = margins(&x, &y, d, alpha);
        let gneg: Vec<f64> = (0..n)
            .map(|i| -f[i] - y[i] * (alpha[i].ln() - (c - alpha[i]).ln()) + lambda * y[i])
            .collect();
        let up = |i: usize| if y[i] > 0.0 { alpha[i] < c - 1e-5 } else { alpha[i] > 1e-5 };
        let low = |i: usize| if y[i] > 0.0 { alpha[i] > 1e-5 } else { alpha[i] < c - 1e-5 };
        let m = (0..n).filter(|&i| up(i)).map(|i| gneg[i]).fold(f64::NEG_INFINITY, f64::max);
        let big_m = (0..n).filter(|&i| low(i)).map(|i| gneg[i]).fold(f64::INFINITY, f64::min);
        assert!(m - big_m <= 1e-8, "C={c} lam={lambda}: gap {}", m - big_m);
        // Free variables: α_i = C σ(λ − y_i d(x_i)) with d = F + b.
        for i in (0..n).filter(|&i| alpha[i] > 1e-5 && alpha[i] < c - 1e-5) {
            let margin = lambda - y[i] * (f[i] + solution.bias);
            let expected = c / (1.0 + (-margin).exp());
            assert!((alpha[i] - expected).abs() <= 1e-7 * c, "{} vs {expected}", alpha[i]);
        }
    }
}

#[test]
fn both_rules_reach_the_same_point_and_every_step_decreases_enough() {
    let (d, n) = (2, 150);
    let (x, y) = blobs(n, d, 2, 0.5);
    for (c, lambda) in [(1.0, 0.0), (100.0, 100.0 / 9.0)] {
        let (second, objectives, steps) =
            fit(&x, &y, d, (c, lambda), WorkingSetRule::SecondOrder, &tight());
        let (first, _, _) = fit(&x, &y, d, (c, lambda), WorkingSetRule::FirstOrder, &tight());
        let distance =
            second.x.iter().zip(&first.x).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(distance <= 1e-6 * c, "C={c}: {distance}");
        assert!(
            second.iterations < first.iterations,
            "{} vs {}",
            second.iterations,
            first.iterations
        );
        // (38): f(α^k) − f(α^{k+1}) ≥ (2/C)‖Δα‖².
        for k in 1..objectives.len() {
            let decrease = objectives[k - 1] - objectives[k];
            let slack = 1e-12 * objectives[k].abs().max(1.0);
            assert!(decrease >= 2.0 / c * steps[k] - slack, "k={k}: {decrease} < {}", steps[k]);
        }
        assert_eq!(second.stats.objective_increases, 0);
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    // Just above the parallel threshold (4096 points); building F is O(n²) kernel values.
    let (d, n) = (2, 4200);
    let (x, y) = blobs(n, d, 3, 0.45);
    let options = SolveOptions { max_iter: Some(60), ..SolveOptions::default() };
    let run = |threads| {
        with_thread_pool(threads, || {
            fit(&x, &y, d, (10.0, 1.0), WorkingSetRule::SecondOrder, &options).0
        })
        .unwrap()
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.x, two.x);
    assert_eq!(one.bias, two.bias);
}

#[test]
fn infeasible_boxes_and_bad_labels_are_errors() {
    let (d, n) = (2, 40);
    let (x, mut y) = blobs(n, d, 4, 0.5);
    y.iter_mut().skip(2).for_each(|v| *v = -1.0);
    y[0] = 1.0;
    y[1] = 1.0;
    // 2 positives, 38 negatives: needs C ≥ 1e-5·(1 + 19) = 2e-4.
    let error = KlrProblem::new(rbf(&x, n, d), &y, 1e-4, 0.0, 1e-5, 0).unwrap_err();
    assert!(error.to_string().contains("infeasible"), "{error}");
    assert!(KlrProblem::new(rbf(&x, n, d), &y, 1e-3, 0.0, 1e-5, 0).is_ok());
    let one_class = vec![1.0; n];
    let error = KlrProblem::new(rbf(&x, n, d), &one_class, 1.0, 0.0, 1e-5, 0).unwrap_err();
    assert!(error.to_string().contains("both classes"), "{error}");
    let error = KlrProblem::new(rbf(&x, n, d), &y, 1.0, -1.0, 1e-5, 0).unwrap_err();
    assert!(error.to_string().contains("lam"), "{error}");
}
