//! USMO: the linear w-vector path against the kernel-column path, the two working-set
//! selections against each other and against the optimality conditions recomputed here, and
//! invariants of a solve.

use kernelkit_kernels::{kernel_row_sums, DenseKernel, DenseRows, KernelFunction, RowSet, SignedQ};
use kernelkit_solvers::usmo::Selection;
use kernelkit_solvers::{
    KernelColumns, LinearRows, NoMonitor, PuProblem, Solution, SolveOptions, Solver, Status, Usmo,
};

#[path = "common/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

fn gaussian_rows(n: usize, d: usize, shift: f64, seed: u64) -> Vec<f64> {
    let mut random = XorShift::seeded(seed);
    let mut uniform = || random.uniform();
    (0..n * d).map(|_| shift + (uniform() + uniform() + uniform() - 1.5)).collect()
}

#[test]
fn linear_fast_path_follows_the_kernel_path() {
    let (p, n, d) = (12, 300, 4);
    let positives = gaussian_rows(p, d, 0.7, 1);
    let mut unlabeled = gaussian_rows(n / 2, d, 0.7, 2);
    unlabeled.extend(gaussian_rows(n - n / 2, d, -0.7, 3));
    let rows_p = DenseRows::new(&positives, p, d).unwrap();
    let rows_u = DenseRows::new(&unlabeled, n, d).unwrap();
    let linear = KernelFunction::Linear;
    let sums = kernel_row_sums(RowSet::Dense(&rows_u), RowSet::Dense(&rows_p), linear).unwrap();
    let options = SolveOptions { tol: 1e-6, ..SolveOptions::default() };
    let (prior, lam) = (0.5, 0.05);

    let q = SignedQ::unsigned(DenseKernel::new(rows_u.clone(), linear).unwrap(), 1 << 24);
    let mut columns = PuProblem::new(KernelColumns(q), sums.clone(), prior, lam, p).unwrap();
    let by_columns = Usmo::default().solve(&mut columns, &options, &mut NoMonitor).unwrap();

    let mut fast =
        PuProblem::new(LinearRows::new(RowSet::Dense(&rows_u)), sums, prior, lam, p).unwrap();
    let by_rows = Usmo::default().solve(&mut fast, &options, &mut NoMonitor).unwrap();

    assert_eq!(by_columns.status, Status::Converged);
    assert_eq!(by_rows.status, Status::Converged);
    // In exact arithmetic the two paths take the same steps; the kernel path reads f32 cached
    // kernel values, so near-ties can break differently. Both reach the optimum, and the model
    // (w = c1 Σ_P x − Σ_U σ x, unique although σ need not be: K_UU has rank d) is the same.
    assert!((by_columns.objective - by_rows.objective).abs() <= 1e-7 * by_rows.objective.abs());
    let c1 = prior / (2.0 * lam * p as f64);
    let weights = |sigma: &[f64]| {
        let mut w = vec![0.0; d];
        for q in 0..p {
            for k in 0..d {
                w[k] += c1 * positives[q * d + k];
            }
        }
        for (u, s) in sigma.iter().enumerate() {
            for k in 0..d {
                w[k] -= s * unlabeled[u * d + k];
            }
        }
        w
    };
    let (w_columns, w_rows) = (weights(&by_columns.x), weights(&by_rows.x));
    let scale = w_rows.iter().map(|v| v.abs()).fold(1.0, f64::max);
    for (a, b) in w_columns.iter().zip(&w_rows) {
        assert!((a - b).abs() <= 1e-3 * scale, "w: {a} vs {b}");
    }
    assert!((by_columns.bias - by_rows.bias).abs() <= 1e-3 * (1.0 + by_rows.bias.abs()));
    assert_eq!(by_rows.stats.objective_increases, 0);
    // Σσ = c1 p exactly (every step moves mass between two variables).
    let total: f64 = by_rows.x.iter().sum();
    assert!((total - prior / (2.0 * lam)).abs() <= 1e-10 * total);
}

/// A PU problem: `p` labeled positives, `n` unlabeled rows, a fraction `prior` of them
/// positive, in `d` dimensions.
struct Data {
    positives: Vec<f64>,
    unlabeled: Vec<f64>,
    p: usize,
    n: usize,
    d: usize,
}

impl Data {
    fn new(p: usize, n: usize, d: usize, prior: f64, seed: u64) -> Data {
        let positives = gaussian_rows(p, d, 0.8, seed);
        let n_pos = (prior * n as f64).round() as usize;
        let mut unlabeled = gaussian_rows(n_pos, d, 0.8, seed + 1);
        unlabeled.extend(gaussian_rows(n - n_pos, d, -0.8, seed + 2));
        Data { positives, unlabeled, p, n, d }
    }

    fn rows(&self) -> (DenseRows<'_>, DenseRows<'_>) {
        (
            DenseRows::new(&self.positives, self.p, self.d).unwrap(),
            DenseRows::new(&self.unlabeled, self.n, self.d).unwrap(),
        )
    }

    /// The kernel between two rows, in `f64` from the data (independent of the library),
    /// rounded to `f32` as the kernel-column cache holds it when `as_f32`.
    fn kernel(&self, function: KernelFunction, a: &[f64], b: &[f64], as_f32: bool) -> f64 {
        let value = match function {
            KernelFunction::Linear => a.iter().zip(b).map(|(x, y)| x * y).sum(),
            KernelFunction::Rbf { gamma } => {
                (-gamma * a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>()).exp()
            }
            _ => unreachable!("the tests use the linear and RBF kernels"),
        };
        if as_f32 {
            f64::from(value as f32)
        } else {
            value
        }
    }

    fn unlabeled_row(&self, u: usize) -> &[f64] {
        &self.unlabeled[u * self.d..(u + 1) * self.d]
    }

    /// `f̂_u = c1 Σ_P k(x_u, x_q) − Σ_v σ_v k(x_u, x_v)` for every unlabeled row.
    fn function_values(
        &self,
        function: KernelFunction,
        sigma: &[f64],
        c1: f64,
        as_f32: bool,
    ) -> Vec<f64> {
        (0..self.n)
            .map(|u| {
                let x = self.unlabeled_row(u);
                let positive: f64 = (0..self.p)
                    .map(|q| {
                        let z = &self.positives[q * self.d..(q + 1) * self.d];
                        self.kernel(function, x, z, false)
                    })
                    .sum();
                let unlabeled: f64 = (0..self.n)
                    .filter(|&v| sigma[v] != 0.0)
                    .map(|v| sigma[v] * self.kernel(function, x, self.unlabeled_row(v), as_f32))
                    .sum();
                c1 * positive - unlabeled
            })
            .collect()
    }
}

/// The largest of the four gaps (digest §2.3, with C4) of σ, from `f̂` recomputed here.
fn kkt_gap(f: &[f64], sigma: &[f64], c2: f64) -> f64 {
    let eps = 1e-12 * c2;
    let over = |keep: &dyn Fn(f64) -> bool| -> (f64, f64) {
        sigma
            .iter()
            .zip(f)
            .filter(|(&s, _)| keep(s))
            .fold((f64::NEG_INFINITY, f64::INFINITY), |(hi, lo), (_, &v)| (hi.max(v), lo.min(v)))
    };
    let (m1_max, _) = over(&|s| s < c2 / 2.0 - eps);
    let (_, m2_min) = over(&|s| s > c2 / 2.0 + eps);
    let (m3_max, m3_min) = over(&|s| s > eps && s < c2 - eps);
    [m1_max - m3_min, m3_max - m2_min, m1_max - m2_min + 2.0, m3_max - m3_min - 2.0]
        .into_iter()
        .fold(0.0, f64::max)
}

/// Solves on the kernel columns (or the linear rows) with the given selection.
fn solve(
    data: &Data,
    function: KernelFunction,
    selection: Selection,
    prior: f64,
    lam: f64,
    options: &SolveOptions,
    linear_rows: bool,
) -> Solution {
    let (rows_p, rows_u) = data.rows();
    let sums = kernel_row_sums(RowSet::Dense(&rows_u), RowSet::Dense(&rows_p), function).unwrap();
    let usmo = Usmo::new(selection);
    if linear_rows {
        let kernel = LinearRows::new(RowSet::Dense(&rows_u));
        let mut problem = PuProblem::new(kernel, sums, prior, lam, data.p).unwrap();
        return usmo.solve(&mut problem, options, &mut NoMonitor).unwrap();
    }
    let q = SignedQ::unsigned(DenseKernel::new(rows_u.clone(), function).unwrap(), 1 << 24);
    let mut problem = PuProblem::new(KernelColumns(q), sums, prior, lam, data.p).unwrap();
    usmo.solve(&mut problem, options, &mut NoMonitor).unwrap()
}

#[test]
fn both_selections_reach_the_optimum_recomputed_here() {
    let cases = [
        (KernelFunction::Rbf { gamma: 0.5 }, 0.4, 0.01, 400, 1e-3),
        (KernelFunction::Rbf { gamma: 0.5 }, 0.3, 0.05, 250, 1e-8),
        (KernelFunction::Rbf { gamma: 2.0 }, 0.5, 0.05, 300, 1e-6),
        (KernelFunction::Linear, 0.6, 0.01, 350, 1e-3),
        (KernelFunction::Linear, 0.2, 0.1, 200, 1e-8),
    ];
    for (case, &(function, prior, lam, n, tol)) in cases.iter().enumerate() {
        let data = Data::new(20, n, 4, prior, 10 + case as u64);
        let c1 = prior / (2.0 * lam * data.p as f64);
        let c2 = 1.0 / (2.0 * lam * n as f64);
        let options = SolveOptions { tol, ..SolveOptions::default() };
        let full = solve(&data, function, Selection::Full, prior, lam, &options, false);
        let paths: &[bool] =
            if function == KernelFunction::Linear { &[false, true] } else { &[false] };
        for &linear_rows in paths {
            let paper = solve(&data, function, Selection::Paper, prior, lam, &options, linear_rows);
            let what = format!("case {case}, linear rows {linear_rows}");
            assert_eq!(paper.status, Status::Converged, "{what}: full {:?}", full.status);
            assert_eq!(paper.stats.objective_increases, 0, "{what}");
            // The first steps are a whole-set pass's (none when the start is optimal).
            let passes = paper.stats.gradient_reconstructions;
            assert!((paper.iterations > 0) == (passes > 0), "{what}: {passes} whole-set passes");
            // Feasible, with Σσ = c1 p exactly up to rounding.
            assert!(paper.x.iter().all(|&s| (0.0..=c2).contains(&s)), "{what}");
            let total: f64 = paper.x.iter().sum();
            assert!((total - c1 * data.p as f64).abs() <= 1e-10 * total, "{what}: Σσ = {total}");
            // τ-optimal by the four conditions, f̂ recomputed from σ with the values the
            // solver reads (f32 kernel columns, f64 linear rows).
            let f = data.function_values(function, &paper.x, c1, !linear_rows);
            let gap = kkt_gap(&f, &paper.x, c2);
            assert!(gap <= tol + 1e-9 * (1.0 + c1), "{what}: gap {gap} > tol {tol}");
            // The optimum of the full scheme: the same Φ and, at a tight tolerance, the same
            // decision values f̂ + β. (At τ = 1e-3 two τ-optimal points differ by about τ in
            // f, whichever scheme reached them: only Φ is compared there.)
            let scale = full.objective.abs().max(1.0);
            let dphi = (paper.objective - full.objective).abs();
            assert!(dphi <= 1e-6 * scale, "{what}: Φ {} vs {}", paper.objective, full.objective);
            if tol <= 1e-8 {
                let f_full = data.function_values(function, &full.x, c1, !linear_rows);
                let largest = f_full.iter().map(|v| (v + full.bias).abs()).fold(0.0, f64::max);
                let worst = f
                    .iter()
                    .zip(&f_full)
                    .map(|(a, b)| ((a + paper.bias) - (b + full.bias)).abs())
                    .fold(0.0, f64::max);
                assert!(worst <= 1e-6 * largest, "{what}: decision values differ by {worst}");
            }
        }
    }
}

#[test]
fn a_paper_solve_leaves_the_problem_as_it_found_it() {
    // The scheme reorders the kernel's positions; it must put them back, so that a second
    // solve of the same problem (here by the full scheme) sees the original rows.
    let data = Data::new(15, 300, 3, 0.4, 40);
    let (prior, lam) = (0.4, 0.02);
    let options = SolveOptions { tol: 1e-6, ..SolveOptions::default() };
    let function = KernelFunction::Rbf { gamma: 1.0 };
    let (rows_p, rows_u) = data.rows();
    let sums = kernel_row_sums(RowSet::Dense(&rows_u), RowSet::Dense(&rows_p), function).unwrap();
    let q = SignedQ::unsigned(DenseKernel::new(rows_u.clone(), function).unwrap(), 1 << 24);
    let mut problem = PuProblem::new(KernelColumns(q), sums.clone(), prior, lam, data.p).unwrap();
    let paper = Usmo::new(Selection::Paper).solve(&mut problem, &options, &mut NoMonitor).unwrap();
    let again = Usmo::default().solve(&mut problem, &options, &mut NoMonitor).unwrap();
    let fresh = solve(&data, function, Selection::Full, prior, lam, &options, false);
    assert_eq!(again.x, fresh.x);
    assert_eq!(again.objective, fresh.objective);
    assert!((paper.objective - fresh.objective).abs() <= 1e-8 * fresh.objective.abs());

    let linear_function = KernelFunction::Linear;
    let sums =
        kernel_row_sums(RowSet::Dense(&rows_u), RowSet::Dense(&rows_p), linear_function).unwrap();
    let mut linear =
        PuProblem::new(LinearRows::new(RowSet::Dense(&rows_u)), sums, prior, lam, data.p).unwrap();
    Usmo::new(Selection::Paper).solve(&mut linear, &options, &mut NoMonitor).unwrap();
    let again = Usmo::default().solve(&mut linear, &options, &mut NoMonitor).unwrap();
    let fresh = solve(&data, linear_function, Selection::Full, prior, lam, &options, true);
    assert_eq!(again.x, fresh.x);
}

#[test]
fn a_limited_paper_solve_stops_feasible() {
    // The paper's start is close to the optimum of well separated data under the linear kernel
    // (a dozen steps at π = 0.5 here); at π = 0.3, λ = 1e-3 it is the optimum. Overlapping
    // classes need more steps.
    let data = Data::new(10, 200, 3, 0.5, 50);
    let (prior, lam) = (0.5, 0.01);
    let options = SolveOptions { tol: 1e-8, max_iter: Some(7), ..SolveOptions::default() };
    for linear_rows in [false, true] {
        let paper = solve(
            &data,
            KernelFunction::Linear,
            Selection::Paper,
            prior,
            lam,
            &options,
            linear_rows,
        );
        assert_eq!(paper.status, Status::MaxIterations);
        assert_eq!(paper.iterations, 7);
        let c1 = prior / (2.0 * lam * data.p as f64);
        let total: f64 = paper.x.iter().sum();
        assert!((total - c1 * data.p as f64).abs() <= 1e-10 * total);
        // The reported gap is that of the returned σ, over every row.
        let f = data.function_values(KernelFunction::Linear, &paper.x, c1, !linear_rows);
        let gap = kkt_gap(&f, &paper.x, 1.0 / (2.0 * lam * 200.0));
        assert!((gap - paper.gap).abs() <= 1e-8 * (1.0 + gap), "{gap} vs {}", paper.gap);
    }
}
