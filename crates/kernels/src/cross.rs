//! Kernel values between two row sets of any storage (prediction: test rows against support
//! vectors), through the same [`Kernel`] and stores as training ([`crate::row_store`]): the
//! right rows are the store ([`F64Rows`] for dense rows, [`CsrStore`] or, for 0/1 rows against
//! 0/1 left rows, [`BitsetStore`] for CSR rows), the left rows are gathered into its form, in
//! blocks of [`KERNEL_BLOCK_ROWS`] rows computed in parallel. A dense block is one GEMM (direct
//! dot products below four rows); a CSR block scatters each left row into a dense vector once
//! (or merges sorted indices when wide). No side is ever densified as a whole. The blocks do
//! not depend on the thread count, so neither do the values.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::dense::DenseRows;
use crate::dense_stores::F64Rows;
use crate::error::KernelError;
use crate::function::KernelFunction;
use crate::parallel::PARALLEL_MIN_WORK;
use crate::row_store::Kernel;
use crate::source::{KernelSource, NO_FINISH};
use crate::sparse::{scatter_dot, CsrRows};
use crate::sparse_stores::{BitsetStore, CsrLeft, CsrStore};

/// Rows of the left set per task.
const KERNEL_BLOCK_ROWS: usize = 64;

/// `K(a_i, b_j)` for every row of `a` and `b`, row-major into `out` (`a.n_rows() × b.n_rows()`):
/// [`cross_kernel`] of two dense sets, never stopped. Runs on the current rayon pool.
pub fn kernel_block(
    a: &DenseRows<'_>,
    b: &DenseRows<'_>,
    function: KernelFunction,
    out: &mut [f64],
) -> Result<(), KernelError> {
    cross_kernel(RowSet::Dense(a), RowSet::Dense(b), function, out, &AtomicBool::new(false))
}

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

/// The right rows of a prediction as the kernel that computes their blocks: the same
/// [`Kernel`] over the same stores as training ([`F64Rows`] for dense rows, [`CsrStore`] for
/// CSR rows, [`BitsetStore`] for 0/1 CSR rows when a block's left rows are 0/1 too), borrowing
/// the rows. Without the RBF table: the left rows' norms are not the right rows'.
#[allow(clippy::large_enum_variant)] // one per prediction call
enum RightKernel<'b> {
    Dense(Kernel<F64Rows<'b>>),
    Sparse { csr: Kernel<CsrStore<'b>>, bits: Option<Kernel<BitsetStore>> },
}

impl<'b> RightKernel<'b> {
    /// The kernel over `b` (the function is checked by the caller).
    fn new(b: RowSet<'b, '_>, function: KernelFunction) -> Self {
        match b {
            RowSet::Dense(b) => RightKernel::Dense(Kernel::validated(
                F64Rows::new(DenseRows::borrowing(b)),
                function,
            )),
            RowSet::Sparse(b) => {
                let bits = b.bit_sets().map(|bits| BitsetStore::new(b, bits, None));
                RightKernel::Sparse {
                    csr: Kernel::validated(CsrStore::new(CsrRows::borrowing(b)), function),
                    bits: bits.map(|bits| Kernel::validated(bits, function)),
                }
            }
        }
    }

    /// `K(a_i, b_j)` for the rows `lo..hi` of `a` and every right row, into `out` (row-major),
    /// on the calling thread; the caller has checked the shapes.
    fn block(&self, a: RowSet<'_, '_>, lo: usize, hi: usize, out: &mut [f64]) {
        let norms: Vec<f64> = (lo..hi).map(|i| a.sq_norm(i)).collect();
        match self {
            RightKernel::Dense(kernel) => {
                let left = match a {
                    RowSet::Dense(a) => a.rows(lo, hi).to_vec(),
                    RowSet::Sparse(_) => {
                        let mut left = vec![0.0; (hi - lo) * a.n_features()];
                        let rows = left.chunks_exact_mut(a.n_features().max(1));
                        rows.zip(lo..hi).for_each(|(x, i)| a.scatter(i, x));
                        left
                    }
                };
                let width = kernel.len();
                kernel.fill_gathered(&left, &norms, 0, width, out, NO_FINISH, true);
            }
            RightKernel::Sparse { csr, bits } => {
                let width = csr.len();
                if let Some(bits) = bits {
                    if let Some(left) = bits.store().query_rows(a, lo..hi) {
                        bits.fill_gathered(&left, &norms, 0, width, out, NO_FINISH, true);
                        return;
                    }
                }
                let left = CsrLeft::new(a, lo..hi);
                csr.fill_gathered(&left, &norms, 0, width, out, NO_FINISH, true);
            }
        }
    }

    /// [`RightKernel::block`] over the blocks of [`KERNEL_BLOCK_ROWS`] rows of `a` (in a
    /// scratch buffer reused by each thread), in parallel when the work is large, each handed
    /// to `job(its kernel values, its rows of out)` (`out_per_row` values of `out` per row).
    /// Once `stop` is set, the blocks not yet begun are skipped (their rows of `out` keep what
    /// they held): a Ctrl-C ends a prediction of many rows after the blocks in progress, a few
    /// milliseconds, and the caller discards `out`.
    fn for_blocks(
        &self,
        a: RowSet<'_, '_>,
        out: &mut [f64],
        out_per_row: usize,
        stop: &AtomicBool,
        job: impl Fn(&[f64], &mut [f64]) + Sync,
    ) {
        let width = match self {
            RightKernel::Dense(kernel) => kernel.len(),
            RightKernel::Sparse { csr, .. } => csr.len(),
        };
        let task = |scratch: &mut Vec<f64>, (t, out_rows): (usize, &mut [f64])| {
            // One relaxed load per block of 64 rows: nothing next to the block's kernel values.
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let lo = t * KERNEL_BLOCK_ROWS;
            let hi = lo + out_rows.len() / out_per_row;
            scratch.resize((hi - lo) * width, 0.0);
            self.block(a, lo, hi, scratch);
            job(scratch, out_rows);
        };
        let chunk = KERNEL_BLOCK_ROWS * out_per_row;
        if a.n_rows() * width * a.n_features().max(1) < PARALLEL_MIN_WORK {
            let mut scratch = Vec::new();
            out.chunks_mut(chunk).enumerate().for_each(|t| task(&mut scratch, t));
        } else {
            out.par_chunks_mut(chunk).enumerate().for_each_init(Vec::new, task);
        }
    }
}

/// `K(a_i, b_j)` for every row of `a` and `b`, row-major into `out` (`a.n_rows() × b.n_rows()`).
/// Setting `stop` (Ctrl-C) ends the call early, with `out` incomplete.
pub fn cross_kernel(
    a: RowSet<'_, '_>,
    b: RowSet<'_, '_>,
    function: KernelFunction,
    out: &mut [f64],
    stop: &AtomicBool,
) -> Result<(), KernelError> {
    check_block(function, (a.n_rows(), a.n_features()), (b.n_rows(), b.n_features()), out)?;
    let width = b.n_rows();
    if width == 0 || out.is_empty() {
        return Ok(());
    }
    RightKernel::new(b, function).for_blocks(a, out, width, stop, |values, out_rows| {
        out_rows.copy_from_slice(values);
    });
    Ok(())
}

/// `out[i·k + c] = Σ_j K(a_i, b_j) · coef_t[c·|b| + j]` for every row of `a` and each of the
/// `k` coefficient vectors (given transposed, one contiguous vector per output column): the
/// decision values of a kernel machine, without holding `K(a, b)` (memory
/// `O(threads · 64 · |b|)`, scratch reused by each thread). The kernel values are those of
/// [`cross_kernel`]; each sum is a [`crate::simd`] dot product in a fixed order, so the result
/// does not depend on the thread count. Setting `stop` (Ctrl-C) ends the call early, with `out`
/// incomplete.
pub fn cross_kernel_product(
    a: RowSet<'_, '_>,
    b: RowSet<'_, '_>,
    function: KernelFunction,
    coef_t: &[f64],
    k: usize,
    out: &mut [f64],
    stop: &AtomicBool,
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
    RightKernel::new(b, function).for_blocks(a, out, k, stop, |values, out_rows| {
        for (kernel_row, out_row) in values.chunks_exact(width).zip(out_rows.chunks_exact_mut(k)) {
            for (o, coef) in out_row.iter_mut().zip(coef_t.chunks_exact(width)) {
                *o = crate::simd::dot(kernel_row, coef);
            }
        }
    });
    Ok(())
}

/// `Σ_j K(a_i, b_j)` for every row of `a`, a block of kernel values at a time (memory
/// `O(threads · 64 · |b|)`), in parallel over the blocks of rows of `a`.
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
    let mut sums = vec![0.0; a.n_rows()];
    if width > 0 && !sums.is_empty() {
        let never = AtomicBool::new(false);
        RightKernel::new(b, function).for_blocks(a, &mut sums, 1, &never, |values, out_rows| {
            for (o, kernel_row) in out_rows.iter_mut().zip(values.chunks_exact(width)) {
                *o = kernel_row.iter().sum::<f64>();
            }
        });
    }
    Ok(sums)
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
        // Left 0/1 rows with more features than any right row (squared distances beyond what
        // the right rows alone would tabulate), and one left row that is not 0/1.
        let mut dense_left: Vec<f64> =
            (0..m * d).map(|k| f64::from(u8::from(k % 3 != 0))).collect();
        assert_storage_pairs_agree(&dense_left, &b, (m, n, d));
        dense_left[5] = 0.5;
        assert_storage_pairs_agree(&dense_left, &b, (m, n, d));
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
        let never = AtomicBool::new(false);
        cross_kernel(RowSet::Dense(&dense_a), RowSet::Dense(&dense_b), f, &mut matrix, &never)
            .unwrap();
        for (left, right) in [
            (RowSet::Dense(&dense_a), RowSet::Dense(&dense_b)),
            (RowSet::Sparse(&sparse_a), RowSet::Dense(&dense_b)),
            (RowSet::Sparse(&sparse_a), RowSet::Sparse(&sparse_b)),
        ] {
            let mut got = vec![f64::NAN; m * 2];
            cross_kernel_product(left, right, f, &coef_t, 2, &mut got, &never).unwrap();
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
            &never,
        );
        assert!(matches!(short, Err(KernelError::ShapeMismatch { name: "coef", .. })));
    }

    #[test]
    fn a_set_stop_flag_skips_the_blocks_not_begun() {
        // 1,000 rows: 16 blocks, split over the threads (the work is above the serial bound).
        let (m, n, d) = (1000, 300, 20);
        let a: Vec<f64> = (0..m * d).map(|k| ((k * 7) % 13) as f64 / 13.0).collect();
        let b: Vec<f64> = (0..n * d).map(|k| ((k * 5) % 11) as f64 / 11.0).collect();
        let (a, b) = (DenseRows::new(&a, m, d).unwrap(), DenseRows::new(&b, n, d).unwrap());
        let f = KernelFunction::Rbf { gamma: 0.1 };
        let coef_t = vec![1.0; n];
        let stop = AtomicBool::new(true);
        let mut out = vec![f64::NAN; m];
        cross_kernel_product(RowSet::Dense(&a), RowSet::Dense(&b), f, &coef_t, 1, &mut out, &stop)
            .unwrap();
        assert!(out.iter().all(|v| v.is_nan()), "a block was computed after the stop");
        let mut matrix = vec![f64::NAN; m * n];
        cross_kernel(RowSet::Dense(&a), RowSet::Dense(&b), f, &mut matrix, &stop).unwrap();
        assert!(matrix.iter().all(|v| v.is_nan()), "a block was computed after the stop");
        stop.store(false, Ordering::Relaxed);
        cross_kernel_product(RowSet::Dense(&a), RowSet::Dense(&b), f, &coef_t, 1, &mut out, &stop)
            .unwrap();
        assert!(out.iter().all(|v| v.is_finite()));
    }

    fn assert_storage_pairs_agree(a: &[f64], b: &[f64], (m, n, d): (usize, usize, usize)) {
        let (dense_a, dense_b) =
            (DenseRows::new(a, m, d).unwrap(), DenseRows::new(b, n, d).unwrap());
        let (sparse_a, sparse_b) =
            (CsrRows::from_dense(a, m, d).unwrap(), CsrRows::from_dense(b, n, d).unwrap());
        let gamma = 0.2;
        let f = KernelFunction::Rbf { gamma };
        // The naive reference: exp(−γ ‖a_i − b_j‖²).
        let expected: Vec<f64> = (0..m * n)
            .map(|t| {
                let (x, z) = (&a[t / n * d..][..d], &b[t % n * d..][..d]);
                (-gamma * x.iter().zip(z).map(|(u, v)| (u - v) * (u - v)).sum::<f64>()).exp()
            })
            .collect();
        for (left, right) in [
            (RowSet::Dense(&dense_a), RowSet::Dense(&dense_b)),
            (RowSet::Sparse(&sparse_a), RowSet::Dense(&dense_b)),
            (RowSet::Dense(&dense_a), RowSet::Sparse(&sparse_b)),
            (RowSet::Sparse(&sparse_a), RowSet::Sparse(&sparse_b)),
        ] {
            let mut got = vec![0.0; m * n];
            cross_kernel(left, right, f, &mut got, &AtomicBool::new(false)).unwrap();
            for (g, e) in got.iter().zip(&expected) {
                assert!((g - e).abs() <= 1e-12, "{g} vs {e}");
            }
        }
    }
}
