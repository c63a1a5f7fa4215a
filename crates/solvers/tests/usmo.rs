//! USMO: the linear w-vector path against the kernel-column path, and invariants of a solve.

use kernelkit_kernels::{kernel_row_sums, DenseKernel, DenseRows, KernelFunction, RowSet, SignedQ};
use kernelkit_solvers::{
    KernelColumns, LinearRows, NoMonitor, PuProblem, SolveOptions, Solver, Status, Usmo,
};

fn gaussian_rows(n: usize, d: usize, shift: f64, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
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
    let by_columns = Usmo.solve(&mut columns, &options, &mut NoMonitor).unwrap();

    let mut fast =
        PuProblem::new(LinearRows::new(RowSet::Dense(&rows_u)), sums, prior, lam, p).unwrap();
    let by_rows = Usmo.solve(&mut fast, &options, &mut NoMonitor).unwrap();

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
