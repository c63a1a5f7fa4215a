//! The small problems of the SMO tests (`smo.rs`, `warm_start.rs`; `#[path]`-included with
//! `xorshift.rs` and `kkt.rs`): two overlapping clouds, their RBF kernel, the signed matrix the
//! solver sees, and the KKT violation computed from scratch.

use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction, KernelSource};

use super::kkt::max_violation;
use super::xorshift::XorShift;

/// A reproducible two-class problem: two overlapping Gaussian-ish clouds.
pub fn two_clouds(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<i8>) {
    let mut random = XorShift::seeded(seed);
    let mut uniform = || random.uniform();
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let label: i8 = if i % 3 == 0 { 1 } else { -1 };
        for f in 0..d {
            let centre = if f == 0 { f64::from(label) * 0.6 } else { 0.0 };
            x.push(centre + (uniform() + uniform() + uniform() - 1.5));
        }
        y.push(label);
    }
    (x, y)
}

pub fn rbf(x: &[f64], n: usize, d: usize) -> DenseKernel<'_> {
    DenseKernel::new(DenseRows::new(x, n, d).unwrap(), KernelFunction::Rbf { gamma: 0.5 }).unwrap()
}

/// `Q_ij = y_i y_j K_ij` rounded to f32, as the solver sees it.
pub fn signed_q(kernel: &DenseKernel<'_>, y: &[i8]) -> Vec<Vec<f64>> {
    let n = y.len();
    (0..n)
        .map(|i| {
            let mut row = vec![0.0; n];
            kernel.fill_block(&[i], 0, n, &mut row);
            row.iter()
                .zip(y)
                .map(|(k, &y_j)| f64::from((f64::from(y[i]) * f64::from(y_j) * k) as f32))
                .collect()
        })
        .collect()
}

/// `max_{I_up} −y_t G_t − min_{I_low} −y_t G_t` from scratch.
pub fn kkt_violation(q: &[Vec<f64>], p: &[f64], y: &[i8], upper: &[f64], alpha: &[f64]) -> f64 {
    let n = alpha.len();
    let gradient: Vec<f64> =
        (0..n).map(|i| p[i] + (0..n).map(|j| q[i][j] * alpha[j]).sum::<f64>()).collect();
    max_violation(y, upper, alpha, |t| -f64::from(y[t]) * gradient[t])
}
