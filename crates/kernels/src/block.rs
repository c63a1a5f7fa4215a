//! Blocks of kernel values: `K[rows, start..end]` as one matrix product plus an elementwise map.
//!
//! A block of `R` rows against the contiguous positions `start..end` is the product
//! `X[rows] · X[start..end]ᵀ` (GEMM from `matrixmultiply`, which packs both operands into
//! cache-sized panels), followed by [`KernelFunction::from_inner_product`]. The positions are cut
//! into fixed chunks that rayon computes in parallel; the chunking does not depend on the number
//! of threads, so the values are bitwise identical for any thread count.
//!
//! For one or two rows (the common case inside SMO, which asks for one column at a time) a GEMM
//! would pack the whole `X[start..end]` for a single use; the dot products are then computed
//! directly, which reads `X` once (`criterion` bench `kernel_columns`).

use rayon::prelude::*;

use crate::dense::DenseRows;
use crate::error::KernelError;
use crate::function::KernelFunction;
use crate::parallel::{for_column_chunks, ColumnWindows, PARALLEL_MIN_WORK};
use crate::source::{Finish, NO_FINISH};

/// Below this many rows a block is computed by direct dot products instead of a GEMM.
pub(crate) const GEMM_MIN_ROWS: usize = 4;

/// `K(a_i, b_j)` for every row of `a` and `b`, row-major into `out` (`a.n_rows() × b.n_rows()`).
/// Used for prediction; runs on the current rayon pool.
pub fn kernel_block(
    a: &DenseRows<'_>,
    b: &DenseRows<'_>,
    function: KernelFunction,
    out: &mut [f64],
) -> Result<(), KernelError> {
    let (left, right) = ((a.n_rows(), a.n_features()), (b.n_rows(), b.n_features()));
    crate::cross::check_block(function, left, right, out)?;
    let width = b.n_rows();
    if width == 0 {
        return Ok(());
    }
    let job = |(block_index, out_rows): (usize, &mut [f64])| {
        let lo = block_index * KERNEL_BLOCK_ROWS;
        dense_rows_block(a, lo, lo + out_rows.len() / width, b, function, out_rows);
    };
    if out.len() * a.n_features().max(1) < PARALLEL_MIN_WORK {
        out.chunks_mut(KERNEL_BLOCK_ROWS * width).enumerate().for_each(job);
    } else {
        out.par_chunks_mut(KERNEL_BLOCK_ROWS * width).enumerate().for_each(job);
    }
    Ok(())
}

/// Rows of `a` per task of [`kernel_block`] (and of `cross_kernel_product`, which computes the
/// same blocks, so its kernel values are [`kernel_block`]'s).
pub(crate) const KERNEL_BLOCK_ROWS: usize = 64;

/// `K(a_i, b_j)` for the rows `lo..hi` of `a` and every row of `b`, into `out` (row-major,
/// `(hi − lo) × b.n_rows()`), on the calling thread; the caller has checked the shapes.
pub(crate) fn dense_rows_block(
    a: &DenseRows<'_>,
    lo: usize,
    hi: usize,
    b: &DenseRows<'_>,
    function: KernelFunction,
    out: &mut [f64],
) {
    let width = b.n_rows();
    let block = Block {
        left: a.rows(lo, hi),
        left_norms: &a.sq_norms()[lo..hi],
        right: Right { sq_norms: b.sq_norms(), double: Some(b.rows(0, b.n_rows())) },
        right_by_feature: None,
        right_single: None,
        left_single: None,
        fixed: None,
        right_offset: 0,
        function,
        n_features: a.n_features(),
    };
    block.compute_sequential(0, width, width, out);
}

/// The right rows of a [`Block`]: all of them (a block reads a contiguous range), one norm
/// per row.
pub(crate) struct Right<'a> {
    pub(crate) sq_norms: &'a [f64],
    /// Row-major `f64` values; `None` when the block has only the `f32` copy.
    pub(crate) double: Option<&'a [f64]>,
}

/// The operands of one block: gathered left rows against a contiguous range of right rows.
pub(crate) struct Block<'a> {
    pub(crate) left: &'a [f64],
    /// The left rows in `f32`, when the products over `right_single` are summed in `f32`.
    pub(crate) left_single: Option<&'a [f32]>,
    pub(crate) left_norms: &'a [f64],
    pub(crate) right: Right<'a>,
    /// `right` feature-major over the features kept, when the kernel keeps that copy, with the
    /// left rows over the same features and their number.
    pub(crate) right_by_feature: Option<(&'a [f64], &'a [f64], usize)>,
    /// `right` in `f32`, when the kernel keeps that copy.
    pub(crate) right_single: Option<&'a [f32]>,
    /// The left and the right rows as integer multiples of one quantum, with the quantum's
    /// square, when the products are summed exactly over them ([`crate::fixed_point`]; `left`
    /// is then empty).
    pub(crate) fixed: Option<(&'a [i16], &'a [i16], f64)>,
    pub(crate) right_offset: usize,
    pub(crate) function: KernelFunction,
    pub(crate) n_features: usize,
}

impl Block<'_> {
    fn n_left(&self) -> usize {
        self.left_norms.len()
    }

    /// Fills the `n_left × width` row-major `out`, in parallel over fixed column chunks, and
    /// finishes each window.
    pub(crate) fn compute(&self, width: usize, out: &mut [f64], finish: Finish<'_>) {
        assert_eq!(out.len(), self.n_left() * width);
        let work = self.n_left() * width * self.n_features.max(1);
        let windows = ColumnWindows::new(out, width);
        for_column_chunks(width, work < PARALLEL_MIN_WORK, |c0, c1| {
            self.compute_window(c0, c1, &windows, finish);
        });
    }

    /// Fills columns `c0..c1` of the row-major `out` (rows `stride` long, `n_left` rows).
    fn compute_sequential(&self, c0: usize, c1: usize, stride: usize, out: &mut [f64]) {
        assert!(out.len() >= self.n_left() * stride && c1 <= stride);
        self.compute_window(c0, c1, &ColumnWindows::new(out, stride), NO_FINISH);
    }

    /// Fills columns `c0..c1` of every row of `out` and finishes them; the caller owns those
    /// columns.
    fn compute_window(&self, c0: usize, c1: usize, out: &ColumnWindows<'_>, finish: Finish<'_>) {
        let d = self.n_features;
        let n_left = self.n_left();
        let (first, last) = (self.right_offset + c0, self.right_offset + c1);
        let right_norms = &self.right.sq_norms[first..last];
        let n_cols = c1 - c0;
        if n_cols == 0 {
            return;
        }
        // SAFETY (every `out.row` below): this task is the only one writing columns c0..c1,
        // and the windows alive at the same time belong to distinct rows.
        if d == 0 {
            for r in 0..n_left {
                unsafe { out.row(r, c0, c1) }.fill(0.0);
            }
        } else if let Some((left_fixed, right_fixed, quantum_sq)) = self.fixed {
            // Integer rows: exact sums, three left rows per pass over the right rows, however
            // many left rows (faster than the f64 GEMM, and bitwise what any pass gives).
            let right = &right_fixed[first * d..last * d];
            let mut r0 = 0;
            for group in left_fixed.chunks((GEMM_MIN_ROWS - 1) * d) {
                let left: Vec<&[i16]> = group.chunks_exact(d).collect();
                let mut windows: Vec<&mut [f64]> =
                    (r0..r0 + left.len()).map(|r| unsafe { out.row(r, c0, c1) }).collect();
                crate::fixed_point::dot_rows_fixed(&left, right, quantum_sq, &mut windows);
                r0 += left.len();
            }
        } else if n_left < GEMM_MIN_ROWS {
            // One pass over the right rows for all the (at most three) left rows.
            let left: Vec<&[f64]> = self.left.chunks_exact(d).collect();
            let mut windows: Vec<&mut [f64]> =
                (0..n_left).map(|r| unsafe { out.row(r, c0, c1) }).collect();
            match (self.right_by_feature, self.right_single) {
                (Some((by_feature, left_used, d_used)), _) => {
                    let left: Vec<&[f64]> = if d_used == 0 {
                        vec![&[]; n_left]
                    } else {
                        left_used.chunks_exact(d_used).collect()
                    };
                    crate::feature_major::dot_feature_major(
                        &left,
                        by_feature,
                        self.right.sq_norms.len(),
                        self.right_offset + c0,
                        &mut windows,
                    )
                }
                (None, Some(single)) => match self.left_single {
                    Some(left_single) => {
                        let left: Vec<&[f32]> = left_single.chunks_exact(d).collect();
                        crate::single_products::dot_rows_single(
                            &left,
                            &single[first * d..last * d],
                            &mut windows,
                        )
                    }
                    None => {
                        crate::simd::dot_rows(&left, &single[first * d..last * d], &mut windows)
                    }
                },
                (None, None) => {
                    let double = self.right.double.expect("rows without an f32 copy are kept");
                    crate::simd::dot_rows(&left, &double[first * d..last * d], &mut windows)
                }
            }
        } else {
            // A kernel with only the f32 rows widens the window's rows for the GEMM (exact).
            let widened: Vec<f64>;
            let right = match (self.right.double, self.right_single) {
                (Some(double), _) => &double[first * d..last * d],
                (None, Some(single)) => {
                    widened = single[first * d..last * d].iter().map(|&v| f64::from(v)).collect();
                    &widened
                }
                (None, None) => unreachable!("a block has the f64 or the f32 rows"),
            };
            // SAFETY: the pointers and strides describe `left` (n_left × d, row-major),
            // `right` read as its transpose (d × n_cols), and the n_left × n_cols window of
            // `out` at column c0, which this task owns; all are in bounds (`pointer` checks the
            // first entry, and the window's last entry is (n_left − 1, c1 − 1) < (rows, stride)).
            unsafe {
                let _last = out.pointer(n_left - 1, c1 - 1);
                matrixmultiply::dgemm(
                    n_left,
                    d,
                    n_cols,
                    1.0,
                    self.left.as_ptr(),
                    d as isize,
                    1,
                    right.as_ptr(),
                    1,
                    d as isize,
                    0.0,
                    out.pointer(0, c0),
                    out.stride() as isize,
                    1,
                );
            }
        }
        for r in 0..n_left {
            let row = unsafe { out.row(r, c0, c1) };
            self.function.map_row(row, self.left_norms[r], right_norms);
            finish(r, c0, row);
        }
    }
}
