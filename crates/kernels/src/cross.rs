//! Kernel values between two row sets of any storage (prediction: test rows against support
//! vectors), in parallel over blocks of left rows.
//!
//! Two dense sets go through the GEMM of [`crate::kernel_block`]. When either side is CSR,
//! each left row is scattered into a dense scratch vector once and its inner products with the
//! right rows cost one multiply-add per stored value (CSR) or a vectorised dot (dense); binary
//! CSR rows against a 0/1 left row count shared features on bit sets instead
//! ([`crate::bitmap`]). No side is ever densified as a whole.

use rayon::prelude::*;

use crate::dense::DenseRows;
use crate::error::KernelError;
use crate::function::KernelFunction;
use crate::parallel::PARALLEL_MIN_WORK;
use crate::sparse::{merge_dot, scatter_dot, CsrRows, SCATTER_MAX_FEATURES};

/// A borrowed row set.
#[derive(Debug, Clone, Copy)]
pub enum RowSet<'r, 'a> {
    /// Dense rows.
    Dense(&'r DenseRows<'a>),
    /// CSR rows.
    Sparse(&'r CsrRows<'a>),
}

impl RowSet<'_, '_> {
    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        match self {
            RowSet::Dense(rows) => rows.n_rows(),
            RowSet::Sparse(rows) => rows.n_rows(),
        }
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        match self {
            RowSet::Dense(rows) => rows.n_features(),
            RowSet::Sparse(rows) => rows.n_features(),
        }
    }

    /// `‖row i‖²`.
    pub fn sq_norm(&self, i: usize) -> f64 {
        match self {
            RowSet::Dense(rows) => rows.sq_norms()[i],
            RowSet::Sparse(rows) => rows.sq_norm(i),
        }
    }

    /// Writes row `i` into `out` (`n_features` long, all other entries zero).
    pub fn scatter(&self, i: usize, out: &mut [f64]) {
        match self {
            RowSet::Dense(rows) => out.copy_from_slice(rows.row(i)),
            RowSet::Sparse(rows) => {
                out.fill(0.0);
                let (indices, values) = rows.row(i);
                for (&k, &v) in indices.iter().zip(values) {
                    out[k as usize] = v;
                }
            }
        }
    }

    /// `⟨row j, x⟩` for a dense `x`.
    pub fn dot_dense(&self, j: usize, x: &[f64]) -> f64 {
        match self {
            RowSet::Dense(rows) => crate::simd::dot(rows.row(j), x),
            RowSet::Sparse(rows) => {
                let (indices, values) = rows.row(j);
                scatter_dot(x, indices, values)
            }
        }
    }
}

/// The checks every kernel between two row sets starts with: valid parameters, and rows of the
/// same width.
pub(crate) fn check_operands(
    function: KernelFunction,
    left_features: usize,
    right_features: usize,
) -> Result<(), KernelError> {
    function.validate()?;
    if left_features != right_features {
        return Err(KernelError::FeatureMismatch { left: left_features, right: right_features });
    }
    Ok(())
}

/// [`check_operands`], and that `out` holds the `left_rows × right_rows` block.
pub(crate) fn check_block(
    function: KernelFunction,
    (left_rows, left_features): (usize, usize),
    (right_rows, right_features): (usize, usize),
    out: &[f64],
) -> Result<(), KernelError> {
    check_operands(function, left_features, right_features)?;
    let expected = left_rows * right_rows;
    if out.len() != expected {
        return Err(KernelError::ShapeMismatch { name: "out", expected, actual: out.len() });
    }
    Ok(())
}

/// `out[j] = K(a_i, b_j)` for every row `j` of `b`; `right_norms` are the squared norms of `b`.
fn kernel_row(
    a: RowSet<'_, '_>,
    b: RowSet<'_, '_>,
    i: usize,
    function: KernelFunction,
    right_norms: &[f64],
    out: &mut [f64],
) {
    let d = a.n_features();
    match (a, b) {
        // Two wide sparse sets: merge sorted indices instead of scattering `d` values.
        (RowSet::Sparse(left), RowSet::Sparse(right)) if d > SCATTER_MAX_FEATURES => {
            for (j, o) in out.iter_mut().enumerate() {
                *o = merge_dot(left.row(i), right.row(j));
            }
        }
        _ => {
            let mut x = vec![0.0; d];
            a.scatter(i, &mut x);
            let counted =
                matches!(b, RowSet::Sparse(right) if right.binary_inner_products(&x, out));
            if !counted {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = b.dot_dense(j, &x);
                }
            }
        }
    }
    function.map_row(out, a.sq_norm(i), right_norms);
}

/// `K(a_i, b_j)` for every row of `a` and `b`, row-major into `out` (`a.n_rows() × b.n_rows()`).
pub fn cross_kernel(
    a: RowSet<'_, '_>,
    b: RowSet<'_, '_>,
    function: KernelFunction,
    out: &mut [f64],
) -> Result<(), KernelError> {
    if let (RowSet::Dense(a), RowSet::Dense(b)) = (a, b) {
        return crate::kernel_block(a, b, function, out);
    }
    check_block(function, (a.n_rows(), a.n_features()), (b.n_rows(), b.n_features()), out)?;
    let width = b.n_rows();
    if width == 0 {
        return Ok(());
    }
    let right_norms: Vec<f64> = (0..width).map(|j| b.sq_norm(j)).collect();
    let job = |(i, out_row): (usize, &mut [f64])| {
        kernel_row(a, b, i, function, &right_norms, out_row);
    };
    if out.len() < PARALLEL_MIN_WORK {
        out.chunks_mut(width).enumerate().for_each(job);
    } else {
        out.par_chunks_mut(width).enumerate().for_each(job);
    }
    Ok(())
}

/// `out[i·k + c] = Σ_j K(a_i, b_j) · coef_t[c·|b| + j]` for every row of `a` and each of the
/// `k` coefficient vectors (given transposed, one contiguous vector per output column): the
/// decision values of a kernel machine, without holding `K(a, b)` (memory
/// `O(threads · 64 · |b|)`, scratch reused by each thread). Dense pairs compute the blocks of
/// [`crate::kernel_block`], so the kernel values are its values; each sum is a
/// [`crate::simd`] dot product in a fixed order, so the result does not depend on the thread
/// count.
pub fn cross_kernel_product(
    a: RowSet<'_, '_>,
    b: RowSet<'_, '_>,
    function: KernelFunction,
    coef_t: &[f64],
    k: usize,
    out: &mut [f64],
) -> Result<(), KernelError> {
    check_operands(function, a.n_features(), b.n_features())?;
    let width = b.n_rows();
    if coef_t.len() != k * width {
        return Err(KernelError::ShapeMismatch {
            name: "coef",
            expected: k * width,
            actual: coef_t.len(),
        });
    }
    let expected = a.n_rows() * k;
    if out.len() != expected {
        return Err(KernelError::ShapeMismatch { name: "out", expected, actual: out.len() });
    }
    if width == 0 {
        out.fill(0.0);
        return Ok(());
    }
    if expected == 0 {
        return Ok(());
    }
    let rows_per_task = crate::block::KERNEL_BLOCK_ROWS;
    let sums = |values: &[f64], out_rows: &mut [f64]| {
        for (kernel_row, out_row) in values.chunks_exact(width).zip(out_rows.chunks_exact_mut(k)) {
            for (o, coef) in out_row.iter_mut().zip(coef_t.chunks_exact(width)) {
                *o = crate::simd::dot(kernel_row, coef);
            }
        }
    };
    let right_norms: Vec<f64> = (0..width).map(|j| b.sq_norm(j)).collect();
    let job = |scratch: &mut Vec<f64>, (task, out_rows): (usize, &mut [f64])| {
        let (lo, rows) = (task * rows_per_task, out_rows.len() / k);
        scratch.resize(rows * width, 0.0);
        match (a, b) {
            (RowSet::Dense(a), RowSet::Dense(b)) => {
                crate::block::dense_rows_block(a, lo, lo + rows, b, function, scratch);
            }
            _ => {
                for (r, values) in scratch.chunks_exact_mut(width).enumerate() {
                    kernel_row(a, b, lo + r, function, &right_norms, values);
                }
            }
        }
        sums(scratch, out_rows);
    };
    let work = a.n_rows() * width * a.n_features().max(1);
    if work < PARALLEL_MIN_WORK {
        let mut scratch = Vec::new();
        out.chunks_mut(rows_per_task * k).enumerate().for_each(|task| job(&mut scratch, task));
    } else {
        out.par_chunks_mut(rows_per_task * k).enumerate().for_each_init(Vec::new, job);
    }
    Ok(())
}

/// `Σ_j K(a_i, b_j)` for every row of `a`, one row of kernel values at a time (memory
/// `O(threads · |b|)`), in parallel over the rows of `a`.
pub fn kernel_row_sums(
    a: RowSet<'_, '_>,
    b: RowSet<'_, '_>,
    function: KernelFunction,
) -> Result<Vec<f64>, KernelError> {
    check_operands(function, a.n_features(), b.n_features())?;
    let (d, width) = (a.n_features(), b.n_rows());
    if function == KernelFunction::Linear {
        // Σ_j ⟨a_i, b_j⟩ = ⟨a_i, Σ_j b_j⟩: O((|a| + |b|)·d) instead of O(|a|·|b|·d).
        let mut total = vec![0.0; d];
        let mut row = vec![0.0; d];
        for j in 0..width {
            b.scatter(j, &mut row);
            for (t, r) in total.iter_mut().zip(&row) {
                *t += r;
            }
        }
        return Ok((0..a.n_rows()).into_par_iter().map(|i| a.dot_dense(i, &total)).collect());
    }
    let right_norms: Vec<f64> = (0..width).map(|j| b.sq_norm(j)).collect();
    let row_sum = |i: usize| {
        let mut values = vec![0.0; width];
        kernel_row(a, b, i, function, &right_norms, &mut values);
        values.iter().sum::<f64>()
    };
    Ok((0..a.n_rows()).into_par_iter().map(row_sum).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two sparse-ish row sets, `m × d` and `n × d`, with different patterns.
    fn sparse_operands(m: usize, n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
        let a = (0..m * d).map(|k| if k % 3 == 0 { (k % 7) as f64 - 3.0 } else { 0.0 }).collect();
        let b = (0..n * d).map(|k| if k % 4 == 1 { (k % 5) as f64 * 0.5 } else { 0.0 }).collect();
        (a, b)
    }

    #[test]
    fn every_storage_pair_gives_the_dense_values() {
        let (m, n, d) = (37, 53, 11);
        let (a, b) = sparse_operands(m, n, d);
        assert_storage_pairs_agree(&a, &b, (m, n, d));
        // Binary rows (the bit-set path when both sides are sparse), over two words of bits.
        let d = 100;
        let bits = |k: usize| f64::from(u8::from((k * 13 + k / 7).is_multiple_of(5)));
        let a: Vec<f64> = (0..m * d).map(bits).collect();
        let b: Vec<f64> = (0..n * d).map(|k| bits(k + 3)).collect();
        assert_storage_pairs_agree(&a, &b, (m, n, d));
    }

    #[test]
    fn kernel_products_are_the_kernel_matrix_times_the_coefficients() {
        let (m, n, d) = (150, 41, 7);
        let (a, b) = sparse_operands(m, n, d);
        let coef_t: Vec<f64> = (0..2 * n).map(|k| ((k * 17) % 11) as f64 / 5.0 - 1.0).collect();
        let (dense_a, dense_b) =
            (DenseRows::new(&a, m, d).unwrap(), DenseRows::new(&b, n, d).unwrap());
        let (sparse_a, sparse_b) =
            (CsrRows::from_dense(&a, m, d).unwrap(), CsrRows::from_dense(&b, n, d).unwrap());
        let f = KernelFunction::Rbf { gamma: 0.2 };
        let mut matrix = vec![0.0; m * n];
        cross_kernel(RowSet::Dense(&dense_a), RowSet::Dense(&dense_b), f, &mut matrix).unwrap();
        for (left, right) in [
            (RowSet::Dense(&dense_a), RowSet::Dense(&dense_b)),
            (RowSet::Sparse(&sparse_a), RowSet::Dense(&dense_b)),
            (RowSet::Sparse(&sparse_a), RowSet::Sparse(&sparse_b)),
        ] {
            let mut got = vec![f64::NAN; m * 2];
            cross_kernel_product(left, right, f, &coef_t, 2, &mut got).unwrap();
            for i in 0..m {
                for c in 0..2 {
                    let expected: f64 = (0..n).map(|j| matrix[i * n + j] * coef_t[c * n + j]).sum();
                    assert!((got[i * 2 + c] - expected).abs() <= 1e-12, "row {i}, column {c}");
                }
            }
        }
        let mut out = vec![0.0; m];
        let short = cross_kernel_product(
            RowSet::Dense(&dense_a),
            RowSet::Dense(&dense_b),
            f,
            &coef_t[..n + 1],
            1,
            &mut out,
        );
        assert!(matches!(short, Err(KernelError::ShapeMismatch { name: "coef", .. })));
    }

    fn assert_storage_pairs_agree(a: &[f64], b: &[f64], (m, n, d): (usize, usize, usize)) {
        let (dense_a, dense_b) =
            (DenseRows::new(a, m, d).unwrap(), DenseRows::new(b, n, d).unwrap());
        let (sparse_a, sparse_b) =
            (CsrRows::from_dense(a, m, d).unwrap(), CsrRows::from_dense(b, n, d).unwrap());
        let f = KernelFunction::Rbf { gamma: 0.2 };
        let mut expected = vec![0.0; m * n];
        cross_kernel(RowSet::Dense(&dense_a), RowSet::Dense(&dense_b), f, &mut expected).unwrap();
        for (left, right) in [
            (RowSet::Sparse(&sparse_a), RowSet::Dense(&dense_b)),
            (RowSet::Dense(&dense_a), RowSet::Sparse(&sparse_b)),
            (RowSet::Sparse(&sparse_a), RowSet::Sparse(&sparse_b)),
        ] {
            let mut got = vec![0.0; m * n];
            cross_kernel(left, right, f, &mut got).unwrap();
            for (g, e) in got.iter().zip(&expected) {
                assert!((g - e).abs() <= 1e-12, "{g} vs {e}");
            }
        }
    }
}
