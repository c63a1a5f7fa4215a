//! GSMO for the constrained ν-SVR against its own certificates: the duality gap between the
//! dual objective and the primal objective at the recovered `(β, β0, ε)` (strong duality,
//! Prop. 2.1), feasibility of every iterate, monotone decrease (Lemma D.4), Prop. 2.2 at exit,
//! independence of the thread count, and the early stop of the paper's literal γ rule. The
//! interior-point method against the same certificates and against GSMO, and the rule that
//! chooses between them.

use kernelkit_kernels::DenseRows;
use kernelkit_solvers::{
    with_thread_pool, ConstrainedSvrMethod, ConstrainedSvrMethodPreference, ConstrainedSvrProblem,
    GammaRule, Gsmo, GsmoReport, LinearConstraints, NoMonitor, Solution, SolveError, SolveOptions,
    SparseMatrix, Status,
};

mod common;
use common::Random;

struct Data {
    x: Vec<f64>,
    y: Vec<f64>,
    n: usize,
    p: usize,
}

fn regression(n: usize, p: usize, seed: u64) -> Data {
    let mut random = Random(seed);
    let x: Vec<f64> = (0..n * p).map(|_| random.normal()).collect();
    let beta: Vec<f64> = (0..p).map(|_| random.normal()).collect();
    let y = (0..n)
        .map(|i| {
            let row = &x[i * p..(i + 1) * p];
            row.iter().zip(&beta).map(|(a, b)| a * b).sum::<f64>() + 0.5 * random.normal()
        })
        .collect();
    Data { x, y, n, p }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    None,
    NonNegative,
    Simplex,
    Increasing,
    General,
}

/// `(A, b, Γ, d)` of each kind; the general one is built around a known feasible point.
fn constraints(kind: Kind, p: usize, seed: u64) -> (LinearConstraints, LinearConstraints) {
    let identity_minus: Vec<f64> =
        (0..p * p).map(|k| if k / p == k % p { -1.0 } else { 0.0 }).collect();
    let dense = |name, rows: usize, values: &[f64]| {
        SparseMatrix::from_dense(name, rows, p, values).unwrap()
    };
    let none = || LinearConstraints::none(p);
    match kind {
        Kind::None => (none(), none()),
        Kind::NonNegative => (
            LinearConstraints::new("A", "b", dense("A", p, &identity_minus), vec![0.0; p], p)
                .unwrap(),
            none(),
        ),
        Kind::Simplex => (
            LinearConstraints::new("A", "b", dense("A", p, &identity_minus), vec![0.0; p], p)
                .unwrap(),
            LinearConstraints::new("Gamma", "d", dense("Gamma", 1, &vec![1.0; p]), vec![1.0], p)
                .unwrap(),
        ),
        Kind::Increasing => {
            let mut d = vec![0.0; (p - 1) * p];
            for j in 0..p - 1 {
                d[j * p + j] = 1.0;
                d[j * p + j + 1] = -1.0;
            }
            (
                LinearConstraints::new("A", "b", dense("A", p - 1, &d), vec![0.0; p - 1], p)
                    .unwrap(),
                none(),
            )
        }
        Kind::General => {
            let mut random = Random(seed ^ 0xABCD);
            let point: Vec<f64> = (0..p).map(|_| random.normal()).collect();
            let (k1, k2) = (p, 2);
            let a: Vec<f64> = (0..k1 * p).map(|_| random.normal()).collect();
            let b = (0..k1)
                .map(|j| {
                    let row = &a[j * p..(j + 1) * p];
                    row.iter().zip(&point).map(|(u, v)| u * v).sum::<f64>() + random.uniform()
                })
                .collect();
            let g: Vec<f64> = (0..k2 * p).map(|_| random.normal()).collect();
            let d = (0..k2)
                .map(|j| g[j * p..(j + 1) * p].iter().zip(&point).map(|(u, v)| u * v).sum())
                .collect();
            (
                LinearConstraints::new("A", "b", dense("A", k1, &a), b, p).unwrap(),
                LinearConstraints::new("Gamma", "d", dense("Gamma", k2, &g), d, p).unwrap(),
            )
        }
    }
}

struct Fit {
    solution: Solution,
    report: GsmoReport,
}

fn fit(data: &Data, kind: Kind, c: f64, nu: f64, rule: GammaRule, options: &SolveOptions) -> Fit {
    let (a, g) = constraints(kind, data.p, 7);
    let rows = DenseRows::new(&data.x, data.n, data.p).unwrap();
    let mut problem = ConstrainedSvrProblem::new(rows, &data.y, c, nu, a, g, 1 << 20).unwrap();
    let solver = Gsmo { gamma_rule: rule, record_history: true };
    let (solution, report) =
        solver.solve_with_report(&mut problem, options, &mut NoMonitor).unwrap();
    Fit { solution, report }
}

fn fit_by(data: &Data, kind: Kind, c: f64, nu: f64, method: ConstrainedSvrMethod) -> Fit {
    let (a, g) = constraints(kind, data.p, 7);
    let rows = DenseRows::new(&data.x, data.n, data.p).unwrap();
    let mut problem = ConstrainedSvrProblem::new(rows, &data.y, c, nu, a, g, 1 << 20).unwrap();
    let (solution, report) =
        method.solve(&Gsmo::default(), &mut problem, &options(1e-10), &mut NoMonitor).unwrap();
    Fit { solution, report }
}

/// `½‖β‖² + C (n ν ε + Σ (|y − Xβ − β0| − ε)₊)`.
fn primal(data: &Data, c: f64, nu: f64, report: &GsmoReport) -> f64 {
    let beta = &report.coef;
    let slack: f64 = (0..data.n)
        .map(|i| {
            let row = &data.x[i * data.p..(i + 1) * data.p];
            let fitted = row.iter().zip(beta).map(|(a, b)| a * b).sum::<f64>() + report.intercept;
            ((data.y[i] - fitted).abs() - report.epsilon).max(0.0)
        })
        .sum();
    0.5 * beta.iter().map(|b| b * b).sum::<f64>()
        + c * (data.n as f64 * nu * report.epsilon + slack)
}

fn options(tol: f64) -> SolveOptions {
    SolveOptions { tol, ..SolveOptions::default() }
}

/// Box, per-block sums `C n ν / 2` and `γ ≥ 0` (the feasible set F of LSVR-D).
fn assert_dual_feasible(x: &[f64], n: usize, k1: usize, c: f64, nu: f64) {
    let target = c * n as f64 * nu / 2.0;
    for block in [&x[..n], &x[n..2 * n]] {
        assert!(block.iter().all(|&v| (0.0..=c).contains(&v)), "box violated");
        let sum: f64 = block.iter().sum();
        assert!((sum - target).abs() <= 1e-12 * target.max(1.0) * n as f64, "{sum} vs {target}");
    }
    assert!(x[2 * n..2 * n + k1].iter().all(|&g| g >= 0.0), "gamma < 0");
}

/// Every constraint kind on its own 80 × 6 problem, each with three (C, ν).
fn duality_cases() -> Vec<(Kind, f64, f64, Data)> {
    let kinds = [Kind::None, Kind::NonNegative, Kind::Simplex, Kind::Increasing, Kind::General];
    let mut cases = Vec::new();
    for (k, kind) in kinds.into_iter().enumerate() {
        for (c, nu) in [(0.05, 0.5), (0.5, 0.2), (0.02, 1.0)] {
            cases.push((kind, c, nu, regression(80, 6, 11 + k as u64)));
        }
    }
    cases
}

#[test]
fn strong_duality_for_every_constraint_kind() {
    for (kind, c, nu, data) in duality_cases() {
        let f = fit(&data, kind, c, nu, GammaRule::ProjectedGradient, &options(1e-10));
        assert_eq!(f.solution.status, Status::Converged, "{kind:?}");
        let p = primal(&data, c, nu, &f.report);
        let gap = p + f.solution.objective;
        assert!(gap.abs() <= 1e-7 * p.abs().max(1.0), "{kind:?} C={c} nu={nu}: gap {gap}");
        assert_eq!(f.solution.stats.objective_increases, 0);
        let (a, g) = constraints(kind, data.p, 7);
        for j in 0..a.len() {
            assert!(a.matrix.row_dot(j, &f.report.coef) - a.rhs[j] <= 1e-10);
        }
        for j in 0..g.len() {
            assert!((g.matrix.row_dot(j, &f.report.coef) - g.rhs[j]).abs() <= 1e-10);
        }
        assert_dual_feasible(&f.solution.x, data.n, a.len(), c, nu);
        // Prop. 2.2: α_i α*_i = 0 when ε > 0.
        if f.report.epsilon > 1e-8 {
            let (alpha, star) = f.solution.x[..2 * data.n].split_at(data.n);
            assert!(alpha.iter().zip(star).all(|(a, s)| a * s == 0.0), "{kind:?}");
        }
    }
}

#[test]
fn every_iterate_is_feasible_and_the_objective_decreases() {
    let data = regression(40, 5, 3);
    let (c, nu) = (0.2, 0.5);
    let full = fit(&data, Kind::Simplex, c, nu, GammaRule::ProjectedGradient, &options(1e-9));
    let history = &full.report.history;
    assert_eq!(history.len() as u64, full.solution.iterations + 1);
    for pair in history.windows(2) {
        let (before, after) = (pair[0].objective, pair[1].objective);
        assert!(after <= before + 1e-12 * before.abs().max(1.0), "{before} -> {after}");
        assert!(pair[1].block.is_some());
    }
    let k1 = data.p;
    for k in (1..full.solution.iterations).step_by(7) {
        let partial = SolveOptions { max_iter: Some(k), ..options(1e-9) };
        let f = fit(&data, Kind::Simplex, c, nu, GammaRule::ProjectedGradient, &partial);
        assert_eq!(f.solution.status, Status::MaxIterations);
        assert_eq!(f.solution.iterations, k);
        assert_dual_feasible(&f.solution.x, data.n, k1, c, nu);
        // The k-th recorded objective is the one of the k-th iterate (up to the final refresh).
        let recorded = history[k as usize].objective;
        assert!((f.solution.objective - recorded).abs() <= 1e-9 * recorded.abs().max(1.0));
        // Lemma D.1: ½‖β^k − β*‖² ≤ f(θ^k) − f*.
        let distance: f64 =
            f.report.coef.iter().zip(&full.report.coef).map(|(a, b)| (a - b).powi(2)).sum();
        assert!(0.5 * distance <= f.solution.objective - full.solution.objective + 1e-9);
    }
}

#[test]
fn the_paper_gamma_rule_stops_early_where_the_fix_does_not() {
    // Definition 3.3 never lowers a positive γ_j whose constraint became inactive. Over a few
    // non-negative problems, it must end at least once with a clear duality gap while the
    // projected rule closes every gap.
    let (c, nu) = (10.0 / 60.0, 0.5);
    let mut worst_paper_gap: f64 = 0.0;
    for seed in 0..6 {
        let data = regression(60, 8, 100 + seed);
        let fixed =
            fit(&data, Kind::NonNegative, c, nu, GammaRule::ProjectedGradient, &options(1e-8));
        let p = primal(&data, c, nu, &fixed.report);
        assert!((p + fixed.solution.objective).abs() <= 1e-6 * p.max(1.0), "seed {seed}");
        let paper = fit(&data, Kind::NonNegative, c, nu, GammaRule::Paper, &options(1e-8));
        assert_eq!(paper.solution.status, Status::Converged);
        let p = primal(&data, c, nu, &paper.report);
        worst_paper_gap = worst_paper_gap.max((p + paper.solution.objective) / p.max(1.0));
    }
    assert!(worst_paper_gap > 1e-4, "the paper's rule reached every optimum: {worst_paper_gap}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    // Above the parallel threshold (4096 rows); 400 steps of the same trajectory.
    let data = regression(5000, 4, 5);
    let limited = SolveOptions { max_iter: Some(400), ..options(1e-3) };
    assert_same_bits_on_one_and_two_threads(|| {
        fit(&data, Kind::NonNegative, 0.01, 0.3, GammaRule::ProjectedGradient, &limited)
    });
}

/// `fit` run on a pool of one thread and on one of two gives the same bits.
fn assert_same_bits_on_one_and_two_threads(fit: impl Fn() -> Fit + Send + Sync) {
    let (one, two) = (with_thread_pool(1, &fit).unwrap(), with_thread_pool(2, &fit).unwrap());
    assert_eq!(one.solution.iterations, two.solution.iterations);
    assert_eq!(one.report.coef, two.report.coef);
    assert_eq!(one.solution.x, two.solution.x);
}

#[test]
fn duplicate_rows_and_invalid_problems() {
    let mut data = regression(30, 3, 9);
    let copy = data.x[..3].to_vec();
    data.x[3..6].copy_from_slice(&copy);
    data.y[1] = data.y[0] + 1.0;
    let f = fit(&data, Kind::Simplex, 0.5, 0.5, GammaRule::ProjectedGradient, &options(1e-8));
    assert_eq!(f.solution.status, Status::Converged);
    assert!(f.report.coef.iter().all(|v| v.is_finite()));
    let rows = || DenseRows::new(&data.x, data.n, data.p).unwrap();
    let none = || LinearConstraints::none(3);
    let bad_nu = ConstrainedSvrProblem::new(rows(), &data.y, 1.0, 1.5, none(), none(), 0);
    assert!(bad_nu.unwrap_err().to_string().contains("nu"));
    let bad_c = ConstrainedSvrProblem::new(rows(), &data.y, 0.0, 0.5, none(), none(), 0);
    assert!(bad_c.unwrap_err().to_string().contains("C"));
    let wrong = ConstrainedSvrProblem::new(rows(), &data.y[..5], 1.0, 0.5, none(), none(), 0);
    assert!(wrong.unwrap_err().to_string().contains('y'));
    let columns = ConstrainedSvrProblem::new(
        rows(),
        &data.y,
        1.0,
        0.5,
        LinearConstraints::none(4),
        none(),
        0,
    );
    assert!(columns.unwrap_err().to_string().contains("features"));
}

#[test]
fn many_features_take_the_parallel_weight_updates() {
    // p ≥ 4096: pair steps form a dense Δβ in parallel chunks and update Aβ by rows.
    let data = regression(20, 4100, 21);
    let (c, nu) = (3e-3, 0.5);
    let run = |threads, options: &SolveOptions| {
        with_thread_pool(threads, || {
            fit(&data, Kind::NonNegative, c, nu, GammaRule::ProjectedGradient, options)
        })
        .unwrap()
    };
    let limited = SolveOptions { max_iter: Some(400), ..options(1e-6) };
    let (one, two) = (run(1, &limited), run(2, &limited));
    assert!(one.report.steps[0] + one.report.steps[1] > 50, "{:?}", one.report.steps);
    assert_eq!(one.report.coef, two.report.coef);
    assert_eq!(one.solution.x, two.solution.x);
    let full = run(2, &options(1e-6));
    assert_eq!(full.solution.status, Status::Converged);
    let p = primal(&data, c, nu, &full.report);
    let gap = p + full.solution.objective;
    assert!(gap.abs() <= 1e-5 * p.abs().max(1.0), "gap {gap}");
    assert!(full.report.coef.iter().all(|&b| b >= -1e-6));
}

#[test]
fn the_interior_point_method_meets_the_certificates_and_agrees_with_gsmo() {
    for (kind, c, nu, data) in duality_cases() {
        let ipm = fit_by(&data, kind, c, nu, ConstrainedSvrMethod::InteriorPoint);
        let gsmo = fit_by(&data, kind, c, nu, ConstrainedSvrMethod::Gsmo);
        assert_eq!(ipm.solution.status, Status::Converged, "{kind:?}");
        let p = primal(&data, c, nu, &ipm.report);
        let scale = p.abs().max(1.0);
        // Strong duality at the multipliers rounded to their bounds.
        let gap = p + ipm.solution.objective;
        assert!(gap.abs() <= 1e-8 * scale, "{kind:?} C={c} nu={nu}: gap {gap}");
        assert!(ipm.solution.gap <= 1e-6, "{kind:?} C={c} nu={nu}: Δ = {}", ipm.solution.gap);
        let (a, g) = constraints(kind, data.p, 7);
        assert_dual_feasible(&ipm.solution.x, data.n, a.len(), c, nu);
        for j in 0..a.len() {
            assert!(a.matrix.row_dot(j, &ipm.report.coef) - a.rhs[j] <= 1e-8);
        }
        for j in 0..g.len() {
            assert!((g.matrix.row_dot(j, &ipm.report.coef) - g.rhs[j]).abs() <= 1e-8);
        }
        // The same optimum as GSMO at tol = 1e-10 (a different algorithm).
        let p_gsmo = primal(&data, c, nu, &gsmo.report);
        assert!((p - p_gsmo).abs() <= 1e-8 * scale, "{kind:?}: {p} vs GSMO {p_gsmo}");
        for (a, b) in ipm.report.coef.iter().zip(&gsmo.report.coef) {
            assert!((a - b).abs() <= 1e-6, "{kind:?}: β {a} vs GSMO {b}");
        }
    }
}

#[test]
fn the_interior_point_method_does_not_depend_on_the_thread_count() {
    let data = regression(1500, 4, 5);
    assert_same_bits_on_one_and_two_threads(|| {
        fit_by(&data, Kind::NonNegative, 0.01, 0.3, ConstrainedSvrMethod::InteriorPoint)
    });
}

#[test]
fn the_method_is_chosen_by_size_and_by_the_options_only_gsmo_has() {
    use ConstrainedSvrMethod as M;
    use ConstrainedSvrMethodPreference as P;
    let choose = |n: usize, p: usize, preference, gsmo: Gsmo| {
        let data = Data { x: vec![1.0; n * p], y: vec![0.0; n], n, p };
        let rows = DenseRows::new(&data.x, n, p).unwrap();
        let (a, g) = (LinearConstraints::none(p), LinearConstraints::none(p));
        let problem = ConstrainedSvrProblem::new(rows, &data.y, 1.0, 0.5, a, g, 1 << 20).unwrap();
        M::choose(preference, &problem, &gsmo)
    };
    let history = Gsmo { record_history: true, ..Gsmo::default() };
    let paper = Gsmo { gamma_rule: GammaRule::Paper, ..Gsmo::default() };
    let max_entries = kernelkit_solvers::constrained_svr::INTERIOR_POINT_MAX_ENTRIES;
    let max_work = kernelkit_solvers::constrained_svr::INTERIOR_POINT_MAX_WORK;
    // n · p at its limit with p = 10; n · p² at its limit with p = 400 (n · p = 500,000).
    let work_n = max_work / (400 * 400);
    let table: [(usize, usize, P, Gsmo, Option<M>); 12] = [
        (200, 200, P::Auto, Gsmo::default(), Some(M::InteriorPoint)),
        (max_entries / 10, 10, P::Auto, Gsmo::default(), Some(M::InteriorPoint)),
        (max_entries / 10 + 1, 10, P::Auto, Gsmo::default(), Some(M::Gsmo)),
        (work_n, 400, P::Auto, Gsmo::default(), Some(M::InteriorPoint)),
        (work_n + 1, 400, P::Auto, Gsmo::default(), Some(M::Gsmo)),
        (600, 600, P::Auto, Gsmo::default(), Some(M::Gsmo)),
        (100, 101, P::Auto, Gsmo::default(), Some(M::Gsmo)),
        (200, 20, P::Auto, history, Some(M::Gsmo)),
        (200, 20, P::Auto, paper, Some(M::Gsmo)),
        (200, 20, P::Gsmo, Gsmo::default(), Some(M::Gsmo)),
        (600, 600, P::InteriorPoint, Gsmo::default(), Some(M::InteriorPoint)),
        (200, 20, P::InteriorPoint, history, None),
    ];
    for (n, p, preference, gsmo, expected) in table {
        match (choose(n, p, preference, gsmo), expected) {
            (Ok(method), Some(expected)) => assert_eq!(method, expected, "{n}x{p} {preference:?}"),
            (Err(SolveError::InvalidProblem { name, .. }), None) => {
                assert_eq!(name, "record_history")
            }
            (other, _) => panic!("{n}x{p} {preference:?}: {other:?}"),
        }
    }
    assert!(choose(200, 20, P::InteriorPoint, paper).is_err());
}
