//! Dense row-major training rows with precomputed squared norms.
//!
//! The rows are borrowed from the caller (a NumPy array is read in place) until the solver
//! permutes them for shrinking: the first [`DenseRows::swap_rows`] makes a private copy, as
//! LIBSVM's `Kernel` keeps its own permuted row pointers.

use std::borrow::Cow;

use crate::error::{check_finite, KernelError};

/// `n_rows × n_features` row-major `f64` data and `‖x_i‖²` for every row.
#[derive(Debug, Clone)]
pub struct DenseRows<'a> {
    values: Cow<'a, [f64]>,
    n_rows: usize,
    n_features: usize,
    sq_norms: Vec<f64>,
}

impl<'a> DenseRows<'a> {
    /// Wraps `values` (row-major, `n_rows * n_features` long), checking the shape and that
    /// every value is finite.
    pub fn new(values: &'a [f64], n_rows: usize, n_features: usize) -> Result<Self, KernelError> {
        Self::from_cow(Cow::Borrowed(values), n_rows, n_features)
    }

    /// Like [`DenseRows::new`], owning the values.
    pub fn from_vec(
        values: Vec<f64>,
        n_rows: usize,
        n_features: usize,
    ) -> Result<DenseRows<'static>, KernelError> {
        DenseRows::from_cow(Cow::Owned(values), n_rows, n_features)
    }

    fn from_cow(
        values: Cow<'a, [f64]>,
        n_rows: usize,
        n_features: usize,
    ) -> Result<Self, KernelError> {
        check_shape(values.len(), n_rows, n_features)?;
        check_finite("X", &values)?;
        let sq_norms = sq_norms(&values, n_rows, n_features);
        Ok(DenseRows { values, n_rows, n_features, sq_norms })
    }

    /// Rows already checked, with their norms (computed by [`sq_norms`]): no check again.
    pub(crate) fn from_checked_parts(
        values: Vec<f64>,
        n_rows: usize,
        n_features: usize,
        sq_norms: Vec<f64>,
    ) -> DenseRows<'static> {
        debug_assert!(values.len() == n_rows * n_features && sq_norms.len() == n_rows);
        DenseRows { values: Cow::Owned(values), n_rows, n_features, sq_norms }
    }

    /// The same rows, borrowed from `rows` (their norms copied).
    pub(crate) fn borrowing<'b>(rows: &'b DenseRows<'_>) -> DenseRows<'b> {
        DenseRows {
            values: Cow::Borrowed(&rows.values),
            n_rows: rows.n_rows,
            n_features: rows.n_features,
            sq_norms: rows.sq_norms.clone(),
        }
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.n_features..(i + 1) * self.n_features]
    }

    /// Rows `start..end` as one contiguous row-major slice.
    #[inline]
    pub fn rows(&self, start: usize, end: usize) -> &[f64] {
        &self.values[start * self.n_features..end * self.n_features]
    }

    /// The rows feature-major: `out[k · n_rows + t]` is feature `k` of row `t`.
    pub fn feature_major(&self) -> Vec<f64> {
        let (n, d) = (self.n_rows, self.n_features);
        let mut out = vec![0.0; n * d];
        if d == 0 {
            return out;
        }
        // Blocks of rows (in L1 while they are read), each feature written as one contiguous run.
        const BLOCK: usize = 64;
        for lo in (0..n).step_by(BLOCK) {
            let hi = (lo + BLOCK).min(n);
            let block = self.rows(lo, hi);
            for (k, run) in out.chunks_exact_mut(n).enumerate() {
                for (o, row) in run[lo..hi].iter_mut().zip(block.chunks_exact(d)) {
                    *o = row[k];
                }
            }
        }
        out
    }

    /// `‖x_i‖²` for every row.
    pub fn sq_norms(&self) -> &[f64] {
        &self.sq_norms
    }

    /// Exchanges rows `i` and `j` (and their norms).
    pub fn swap_rows(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        swap_row_slices(self.values.to_mut(), i, j, self.n_features);
        self.sq_norms.swap(i, j);
    }
}

/// `len` values are `n_rows` rows of `n_features`: else the shape error naming `X`.
pub(crate) fn check_shape(len: usize, n_rows: usize, n_features: usize) -> Result<(), KernelError> {
    let expected = n_rows.saturating_mul(n_features);
    if len != expected {
        return Err(KernelError::ShapeMismatch { name: "X", expected, actual: len });
    }
    // Rows without features hold no values, but each row's norm is stored: a count no
    // allocation can hold (`usize::MAX` rows of 0 features) is refused, not a panic.
    if n_rows > MAX_ROWS {
        return Err(KernelError::InvalidStructure("n_rows is beyond what memory can index"));
    }
    Ok(())
}

/// The most rows a store keeps per-row values for (`isize::MAX` bytes of `f64`).
pub(crate) const MAX_ROWS: usize = isize::MAX as usize / std::mem::size_of::<f64>();

/// `‖x_i‖²` of every row of the row-major `values`, each summed in the row's order (so a row's
/// norm does not depend on the rows around it).
pub(crate) fn sq_norms(values: &[f64], n_rows: usize, n_features: usize) -> Vec<f64> {
    if n_features == 0 {
        return vec![0.0; n_rows];
    }
    if crate::parallel::parallel_input_pass(values.len()) {
        use rayon::prelude::*;
        let rows_per_task = (crate::parallel::INPUT_PASS_VALUES / n_features).max(1);
        values.par_chunks_exact(n_features).with_min_len(rows_per_task).map(sq_norm).collect()
    } else {
        values.chunks_exact(n_features).map(sq_norm).collect()
    }
}

/// `‖row‖²`, summed in the row's order: every norm of the crate is this sum, so that norms
/// computed once for several row subsets ([`crate::RowFacts`]) are bitwise those of the rows
/// (`f32` values are widened first: the same sum as over their `f64` copy).
pub(crate) fn sq_norm<T: Copy + Into<f64>>(row: &[T]) -> f64 {
    row.iter().map(|&v| v.into() * v.into()).sum()
}

/// Exchanges rows `i` and `j` of the row-major `values` (rows of `width` entries); nothing
/// when `i == j`.
pub(crate) fn swap_row_slices<T>(values: &mut [T], i: usize, j: usize, width: usize) {
    if i == j {
        return;
    }
    let (lo, hi) = (i.min(j), i.max(j));
    let (head, tail) = values.split_at_mut(hi * width);
    head[lo * width..(lo + 1) * width].swap_with_slice(&mut tail[..width]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inside a pool the passes over the input run in parallel: the same norms bit for bit,
    /// the same density, and the first non-finite value is still the one named.
    #[test]
    fn input_passes_inside_a_pool_equal_the_sequential_ones() {
        let (n, d) = (9000, 37);
        let mut values: Vec<f64> = (0..n * d)
            .map(|k| if k % 5 == 0 { 0.0 } else { ((k * 7919) % 101) as f64 / 7.0 })
            .collect();
        assert!(crate::parallel::INPUT_PASS_VALUES * 4 <= values.len());
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (norms, density) =
            pool.install(|| (sq_norms(&values, n, d), crate::sparse::density(&values)));
        let expected: Vec<u64> = values
            .chunks_exact(d)
            .map(|row| row.iter().map(|v| v * v).sum::<f64>().to_bits())
            .collect();
        assert_eq!(norms.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), expected);
        assert_eq!(density, crate::sparse::density(&values));
        values[300_000] = f64::NAN;
        values[150_001] = f64::INFINITY;
        values[200_000] = f64::NAN;
        assert_eq!(
            pool.install(|| DenseRows::new(&values, n, d)).unwrap_err(),
            KernelError::NotFinite { name: "X", index: 150_001 }
        );
    }

    #[test]
    fn shape_and_finiteness_are_checked() {
        assert!(matches!(
            DenseRows::new(&[1.0, 2.0, 3.0], 2, 2),
            Err(KernelError::ShapeMismatch { .. })
        ));
        assert!(matches!(
            DenseRows::new(&[1.0, f64::NAN], 1, 2),
            Err(KernelError::NotFinite { index: 1, .. })
        ));
        // No values, but a norm per row: a count beyond memory is an error (it was a panic,
        // "capacity overflow").
        assert!(matches!(
            DenseRows::new(&[], usize::MAX, 0),
            Err(KernelError::InvalidStructure(_))
        ));
    }

    #[test]
    fn feature_major_transposes() {
        let data: Vec<f64> = (0..300).map(f64::from).collect();
        let rows = DenseRows::new(&data, 100, 3).unwrap();
        let by_feature = rows.feature_major();
        for t in 0..100 {
            for k in 0..3 {
                assert_eq!(by_feature[k * 100 + t], data[t * 3 + k]);
            }
        }
    }

    #[test]
    fn swap_rows_moves_rows_and_norms() {
        let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mut rows = DenseRows::new(&data, 3, 2).unwrap();
        rows.swap_rows(0, 2);
        assert_eq!(rows.row(0), &[5.0, 6.0]);
        assert_eq!(rows.row(2), &[1.0, 2.0]);
        assert_eq!(rows.sq_norms(), &[61.0, 25.0, 5.0]);
        // The caller's data is untouched.
        assert_eq!(data[0], 1.0);
    }
}
