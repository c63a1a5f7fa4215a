//! Compressed sparse rows (CSR) with precomputed squared norms, and [`SparseKernel`], the
//! kernel over them: one generic [`Kernel`] ([`crate::row_store`]) over the representation of
//! [`crate::sparse_stores`] that [`crate::plan`](mod@crate::plan) chooses (bit sets for 0/1 rows, padded slots
//! for rows of similar lengths, plain CSR otherwise).
//!
//! For data with few non-zeros per row (one-hot features, text) a sparse column reads a
//! fraction of the bytes a dense row would, which is what bounds a single kernel column.

use std::borrow::Cow;

use crate::bitmap::BinaryRows;
use crate::error::{check_finite, KernelError};
use crate::function::KernelFunction;
use crate::padded::PaddedRows;
use crate::plan::KernelPath;
use crate::row_store::{forward_kernel_source, Kernel};
use crate::source::KernelSource;
use crate::sparse_stores::{BitsetStore, CsrStore, PaddedStore};

/// `n_rows × n_features` CSR data.
#[derive(Debug, Clone)]
pub struct CsrRows<'a> {
    indptr: Cow<'a, [usize]>,
    indices: Cow<'a, [u32]>,
    values: Cow<'a, [f64]>,
    n_rows: usize,
    n_features: usize,
    sq_norms: Vec<f64>,
    permutation: Vec<usize>,
}

impl<'a> CsrRows<'a> {
    /// Wraps CSR arrays, checking their consistency and that every value is finite.
    pub fn new(
        indptr: Cow<'a, [usize]>,
        indices: Cow<'a, [u32]>,
        values: Cow<'a, [f64]>,
        n_rows: usize,
        n_features: usize,
    ) -> Result<Self, KernelError> {
        if n_rows.checked_add(1) != Some(indptr.len()) {
            return Err(KernelError::ShapeMismatch {
                name: "indptr",
                expected: n_rows.saturating_add(1),
                actual: indptr.len(),
            });
        }
        let nnz = *indptr.last().unwrap_or(&0);
        if indptr[0] != 0 || indptr.windows(2).any(|w| w[0] > w[1]) {
            return Err(KernelError::InvalidStructure("indptr must start at 0 and never decrease"));
        }
        if indices.len() != nnz || values.len() != nnz {
            return Err(KernelError::ShapeMismatch {
                name: "indices/data",
                expected: nnz,
                actual: indices.len().min(values.len()),
            });
        }
        if indices.iter().any(|&k| k as usize >= n_features) {
            return Err(KernelError::InvalidStructure("a column index is >= n_features"));
        }
        if indptr.windows(2).any(|w| indices[w[0]..w[1]].windows(2).any(|p| p[0] >= p[1])) {
            return Err(KernelError::InvalidStructure(
                "column indices must be strictly increasing within each row (canonical CSR)",
            ));
        }
        check_finite("X", &values)?;
        let sq_norms: Vec<f64> = (0..n_rows)
            .map(|r| values[indptr[r]..indptr[r + 1]].iter().map(|v| v * v).sum())
            .collect();
        Ok(CsrRows {
            indptr,
            indices,
            values,
            n_rows,
            n_features,
            sq_norms,
            permutation: (0..n_rows).collect(),
        })
    }

    /// The non-zeros of a dense row-major matrix, as CSR.
    pub fn from_dense(
        dense: &[f64],
        n_rows: usize,
        n_features: usize,
    ) -> Result<CsrRows<'static>, KernelError> {
        let expected = n_rows.saturating_mul(n_features);
        if dense.len() != expected {
            return Err(KernelError::ShapeMismatch { name: "X", expected, actual: dense.len() });
        }
        let mut indptr = Vec::with_capacity(n_rows + 1);
        let mut indices = Vec::new();
        let mut values = Vec::new();
        indptr.push(0);
        for row in dense.chunks_exact(n_features.max(1)).take(n_rows) {
            for (k, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    indices.push(k as u32);
                    values.push(v);
                }
            }
            indptr.push(values.len());
        }
        if n_features == 0 {
            indptr.resize(n_rows + 1, 0);
        }
        CsrRows::new(
            Cow::Owned(indptr),
            Cow::Owned(indices),
            Cow::Owned(values),
            n_rows,
            n_features,
        )
    }

    /// The same rows, borrowed from `rows` (their norms and positions copied).
    pub(crate) fn borrowing<'b>(rows: &'b CsrRows<'_>) -> CsrRows<'b> {
        CsrRows {
            indptr: Cow::Borrowed(&rows.indptr),
            indices: Cow::Borrowed(&rows.indices),
            values: Cow::Borrowed(&rows.values),
            n_rows: rows.n_rows,
            n_features: rows.n_features,
            sq_norms: rows.sq_norms.clone(),
            permutation: rows.permutation.clone(),
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

    /// Stored values.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The stored (column, value) pairs of the row at `position`.
    #[inline]
    pub fn row(&self, position: usize) -> (&[u32], &[f64]) {
        let r = self.permutation[position];
        let (lo, hi) = (self.indptr[r], self.indptr[r + 1]);
        (&self.indices[lo..hi], &self.values[lo..hi])
    }

    /// `‖x‖²` of the row at `position`.
    #[inline]
    pub fn sq_norm(&self, position: usize) -> f64 {
        self.sq_norms[self.permutation[position]]
    }

    /// The bit sets of the rows in position order, when [`crate::plan::reads_bit_sets`] keeps
    /// them so (every value `1.0`, few features).
    pub(crate) fn bit_sets(&self) -> Option<BinaryRows> {
        let (indptr, indices, values) = self.in_position_order();
        BinaryRows::build(&indptr, &indices, &values, self.n_features)
    }

    /// The rows in position order in padded slots, when [`crate::plan::pads_rows`] pads them.
    fn padded(&self) -> Option<PaddedRows> {
        let (indptr, indices, values) = self.in_position_order();
        let norms: Vec<f64> = (0..self.n_rows).map(|p| self.sq_norm(p)).collect();
        PaddedRows::build(&indptr, &indices, &values, &norms, self.n_features)
    }

    /// The CSR arrays with the rows in position order (borrowed when no position has moved).
    fn in_position_order(&self) -> CsrArrays<'_> {
        if self.permutation.iter().enumerate().all(|(p, &r)| p == r) {
            return (
                Cow::Borrowed(&self.indptr),
                Cow::Borrowed(&self.indices),
                Cow::Borrowed(&self.values),
            );
        }
        let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
        for p in 0..self.n_rows {
            let (row_indices, row_values) = self.row(p);
            indices.extend_from_slice(row_indices);
            values.extend_from_slice(row_values);
            indptr.push(values.len());
        }
        (Cow::Owned(indptr), Cow::Owned(indices), Cow::Owned(values))
    }

    /// Exchanges positions `i` and `j`.
    pub fn swap_rows(&mut self, i: usize, j: usize) {
        self.permutation.swap(i, j);
    }
}

/// The fraction of non-zero values.
pub fn density(dense: &[f64]) -> f64 {
    if dense.is_empty() {
        return 1.0;
    }
    let nonzeros = |values: &[f64]| values.iter().filter(|&&v| v != 0.0).count();
    let count: usize = if crate::parallel::parallel_input_pass(dense.len()) {
        use rayon::prelude::*;
        dense.par_chunks(crate::parallel::INPUT_PASS_VALUES).map(nonzeros).sum()
    } else {
        nonzeros(dense)
    };
    count as f64 / dense.len() as f64
}

/// `Σ_k x[indices[k]] · values[k]`, with four independent accumulators so that the
/// multiply-adds do not wait on each other (a single chain is latency-bound).
#[inline]
pub(crate) fn scatter_dot(x: &[f64], indices: &[u32], values: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let index_chunks = indices.chunks_exact(4);
    let value_chunks = values.chunks_exact(4);
    let (index_tail, value_tail) = (index_chunks.remainder(), value_chunks.remainder());
    for (k, v) in index_chunks.zip(value_chunks) {
        acc[0] += x[k[0] as usize] * v[0];
        acc[1] += x[k[1] as usize] * v[1];
        acc[2] += x[k[2] as usize] * v[2];
        acc[3] += x[k[3] as usize] * v[3];
    }
    let mut sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (&k, &v) in index_tail.iter().zip(value_tail) {
        sum += x[k as usize] * v;
    }
    sum
}

/// `⟨a, b⟩` of two sparse rows with sorted indices, by merging them.
#[inline]
pub(crate) fn merge_dot(a: (&[u32], &[f64]), b: (&[u32], &[f64])) -> f64 {
    let ((a_indices, a_values), (b_indices, b_values)) = (a, b);
    let (mut i, mut j) = (0, 0);
    let mut sum = 0.0;
    while i < a_indices.len() && j < b_indices.len() {
        match a_indices[i].cmp(&b_indices[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                sum += a_values[i] * b_values[j];
                i += 1;
                j += 1;
            }
        }
    }
    sum
}

/// Above this many features, a requested row is not scattered into a dense vector (which would
/// cost `n_features` per column); its inner products are computed by merging sorted indices.
pub const SCATTER_MAX_FEATURES: usize = 1 << 16;

/// The three arrays of CSR rows: `indptr`, `indices`, `values`.
type CsrArrays<'r> = (Cow<'r, [usize]>, Cow<'r, [u32]>, Cow<'r, [f64]>);

/// A kernel function over CSR rows, in the representation [`crate::plan`](mod@crate::plan) chooses for them.
#[derive(Debug, Clone)]
pub struct SparseKernel<'a>(Sparse<'a>);

#[derive(Debug, Clone)]
enum Sparse<'a> {
    Csr(Kernel<CsrStore<'a>>),
    Padded(Kernel<PaddedStore<'a>>),
    Bitset(Kernel<BitsetStore>),
}

forward_kernel_source!(SparseKernel, Sparse { Csr, Padded, Bitset });

impl<'a> SparseKernel<'a> {
    /// Combines rows and a kernel function, validating the function's parameters.
    pub fn new(rows: CsrRows<'a>, function: KernelFunction) -> Result<Self, KernelError> {
        function.validate()?;
        let sparse = if let Some(binary) = rows.bit_sets() {
            let store = BitsetStore::with_table(&rows, binary, function);
            Sparse::Bitset(Kernel::validated(store, function))
        } else if let Some(padded) = rows.padded() {
            Sparse::Padded(Kernel::validated(PaddedStore::new(rows, padded), function))
        } else {
            Sparse::Csr(Kernel::validated(CsrStore::new(rows), function))
        };
        Ok(SparseKernel(sparse))
    }

    /// How the columns are computed (see [`crate::plan`](mod@crate::plan)).
    pub fn kernel_path(&self) -> KernelPath {
        self.path()
    }

    /// Whether RBF columns are looked up in a table ([`crate::rbf_table`]: 0/1 rows).
    pub fn looks_up_rbf(&self) -> bool {
        self.path() == KernelPath::BitsetRbfTable
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DenseKernel, DenseRows};

    fn sparse_data(n: usize, d: usize) -> Vec<f64> {
        (0..n * d)
            .map(|k| if k % 7 == 3 || k % 11 == 0 { (k % 13) as f64 - 6.0 } else { 0.0 })
            .collect()
    }

    #[test]
    fn csr_blocks_match_dense_blocks_under_swaps() {
        let (n, d) = (1500, 23);
        let values = sparse_data(n, d);
        for function in [
            KernelFunction::Linear,
            KernelFunction::Rbf { gamma: 0.05 },
            KernelFunction::Polynomial { gamma: 0.1, coef0: 1.0, degree: 2 },
        ] {
            let mut dense =
                DenseKernel::new(DenseRows::new(&values, n, d).unwrap(), function).unwrap();
            let mut sparse =
                SparseKernel::new(CsrRows::from_dense(&values, n, d).unwrap(), function).unwrap();
            for (i, j) in [(0, 1400), (3, 9), (77, 1499)] {
                dense.swap_index(i, j);
                sparse.swap_index(i, j);
            }
            let rows = [0, 9, 1499, 5];
            let (start, end) = (2, n);
            let mut expected = vec![0.0; rows.len() * (end - start)];
            let mut got = expected.clone();
            dense.fill_block(&rows, start, end, &mut expected);
            sparse.fill_block(&rows, start, end, &mut got);
            for (a, b) in got.iter().zip(&expected) {
                assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{function:?}: {a} vs {b}");
            }
            for p in [0, 9, 1499] {
                assert_eq!(sparse.diagonal_value(p), dense.diagonal_value(p));
            }
        }
    }

    #[test]
    fn binary_rows_give_the_dense_kernel_bitwise_under_swaps() {
        // 0/1 data of unequal row lengths (not padded) over 150 features: the bit-set path.
        let (n, d) = (700, 150);
        let values: Vec<f64> =
            (0..n * d).map(|k| f64::from(u8::from((k * 7 + k / d) % 9 < 2))).collect();
        let function = KernelFunction::Rbf { gamma: 0.07 };
        let mut dense = DenseKernel::new(DenseRows::new(&values, n, d).unwrap(), function).unwrap();
        let rows = CsrRows::from_dense(&values, n, d).unwrap();
        let mut sparse = SparseKernel::new(rows, function).unwrap();
        assert_eq!(sparse.kernel_path(), KernelPath::BitsetRbfTable);
        for (i, j) in [(0, 600), (3, 9), (77, 699)] {
            dense.swap_index(i, j);
            sparse.swap_index(i, j);
        }
        let rows = [0, 9, 699];
        let mut expected = vec![0.0; rows.len() * (n - 1)];
        let mut got = expected.clone();
        dense.fill_block(&rows, 1, n, &mut expected);
        sparse.fill_block(&rows, 1, n, &mut got);
        for (a, b) in got.iter().zip(&expected) {
            assert!((a - b).abs() <= 1e-14 * b.abs().max(1.0), "{a} vs {b}");
        }
    }

    #[test]
    fn inconsistent_csr_is_rejected() {
        let bad_indptr = CsrRows::new(
            Cow::Owned(vec![0, 2, 1]),
            Cow::Owned(vec![0, 1]),
            Cow::Owned(vec![1.0, 2.0]),
            2,
            3,
        );
        assert!(matches!(bad_indptr, Err(KernelError::InvalidStructure(_))));
        let bad_index =
            CsrRows::new(Cow::Owned(vec![0, 1]), Cow::Owned(vec![5]), Cow::Owned(vec![1.0]), 1, 3);
        assert!(matches!(bad_index, Err(KernelError::InvalidStructure(_))));
        assert!((density(&[0.0, 1.0, 0.0, 2.0]) - 0.5).abs() < 1e-15);
    }
}

#[cfg(test)]
mod wide_tests {
    use super::*;

    #[test]
    fn a_row_count_without_its_indptr_is_an_error_at_every_size() {
        // `n_rows + 1` overflowed ("attempt to add with overflow" in debug builds).
        let csr = |n_rows| {
            CsrRows::new(Cow::Owned(vec![0]), Cow::Owned(vec![]), Cow::Owned(vec![]), n_rows, 3)
        };
        assert!(matches!(csr(usize::MAX), Err(KernelError::ShapeMismatch { name: "indptr", .. })));
        assert!(matches!(csr(2), Err(KernelError::ShapeMismatch { name: "indptr", .. })));
        assert!(csr(0).is_ok());
    }

    #[test]
    fn wide_rows_merge_instead_of_scattering() {
        // 3 rows over 10 million features: scattering would allocate 80 MB per requested row.
        let d = 10_000_000;
        let rows = CsrRows::new(
            Cow::Owned(vec![0, 2, 5, 6]),
            Cow::Owned(vec![7, 9_999_999, 7, 5_000_000, 9_999_999, 5_000_000]),
            Cow::Owned(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            3,
            d,
        )
        .unwrap();
        let kernel = SparseKernel::new(rows, KernelFunction::Linear).unwrap();
        let mut out = vec![0.0; 3];
        kernel.fill_block(&[1], 0, 3, &mut out);
        assert_eq!(out, vec![1.0 * 3.0 + 2.0 * 5.0, 9.0 + 16.0 + 25.0, 4.0 * 6.0]);
        assert!(CsrRows::new(
            Cow::Owned(vec![0, 2]),
            Cow::Owned(vec![3, 1]),
            Cow::Owned(vec![1.0, 1.0]),
            1,
            4
        )
        .is_err());
    }
}
