//! Compressed sparse rows (CSR) with precomputed squared norms, and their kernel.
//!
//! A block `K[rows, start..end]` scatters each requested row into a dense scratch vector once,
//! then every other row's inner product with it costs one multiply-add per stored value. For
//! data with few non-zeros per row (one-hot features, text) this reads a fraction of the bytes a
//! dense row would, which is what bounds a single kernel column.
//!
//! Shrinking permutes positions. When the rows have similar lengths (at most twice the mean,
//! as one-hot data has), they are also kept in a padded copy in *position* order
//! ([`PaddedRows`], in a compact lossless encoding), where a swap moves the two rows: a kernel
//! column then reads the rows sequentially instead of jumping through a permutation, which the
//! memory prefetcher rewards, and two requested rows share one pass. Otherwise positions map to
//! rows through a permutation and rows never move.

use std::borrow::Cow;

use crate::bitmap::BinaryRows;
use crate::error::{check_finite, KernelError};
use crate::function::KernelFunction;
use crate::padded::PaddedRows;
use crate::parallel::{for_column_chunks, ColumnWindows, PARALLEL_MIN_WORK};
use crate::plan::KernelPath;
use crate::rbf_table::IntegerRbf;
use crate::source::{Finish, KernelSource, NO_FINISH};

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
    /// The rows again, in position order and a compact encoding, when their lengths are
    /// similar ([`PaddedRows`]).
    padded: Option<Box<PaddedRows>>,
    /// The rows again as bit sets, in position order, when every value is `1.0` and there are
    /// at most 1,024 features ([`BinaryRows`]).
    binary: Option<BinaryRows>,
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
        if indptr.len() != n_rows + 1 {
            return Err(KernelError::ShapeMismatch {
                name: "indptr",
                expected: n_rows + 1,
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
        // Columns of 0/1 rows are counted over their bit sets: a padded copy would never be
        // read (it was built, and kept in position order on every swap, before the plan).
        let binary = BinaryRows::build(&indptr, &indices, &values, n_features);
        let padded = if binary.is_none() {
            PaddedRows::build(&indptr, &indices, &values, &sq_norms, n_features).map(Box::new)
        } else {
            None
        };
        Ok(CsrRows {
            indptr,
            indices,
            values,
            n_rows,
            n_features,
            sq_norms,
            permutation: (0..n_rows).collect(),
            padded,
            binary,
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
        if let Some(padded) = &self.padded {
            return padded.sq_norm(position);
        }
        self.sq_norms[self.permutation[position]]
    }

    /// `out[p] = ⟨x, row at position p⟩` for `p < out.len()` by counting shared features, when
    /// the rows are binary ([`BinaryRows`]) and `x` is a 0/1 vector; `false` (and nothing
    /// written) otherwise.
    pub(crate) fn binary_inner_products(&self, x: &[f64], out: &mut [f64]) -> bool {
        let Some(binary) = &self.binary else { return false };
        let Some(query) = binary.query(x) else { return false };
        binary.inner_products(&query, 0, out);
        true
    }

    /// Exchanges positions `i` and `j`.
    pub fn swap_rows(&mut self, i: usize, j: usize) {
        self.permutation.swap(i, j);
        if let Some(padded) = &mut self.padded {
            padded.swap(i, j);
        }
        if let Some(binary) = &mut self.binary {
            binary.swap(i, j);
        }
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

/// [`KernelSource::bitwise_rows`] of CSR rows: every value of a block is one row's sparse dot
/// product (two rows share the pass over the padded slots, each summed as alone), so any
/// number would do; this many keep a block's scattered rows and bit sets small.
const BITWISE_ROWS: usize = 16;

/// The requested rows of a block: scattered into dense vectors, or kept sparse when wide.
enum LeftValues {
    Dense { values: Vec<f64>, n_features: usize },
    Sparse(Vec<(Vec<u32>, Vec<f64>)>),
}

impl LeftValues {
    fn new(rows: &CsrRows<'_>, positions: &[usize]) -> LeftValues {
        let d = rows.n_features;
        if d > SCATTER_MAX_FEATURES {
            return LeftValues::Sparse(
                positions
                    .iter()
                    .map(|&p| {
                        let (indices, values) = rows.row(p);
                        (indices.to_vec(), values.to_vec())
                    })
                    .collect(),
            );
        }
        let mut values = vec![0.0; positions.len() * d];
        for (r, &position) in positions.iter().enumerate() {
            let (indices, row_values) = rows.row(position);
            for (&k, &v) in indices.iter().zip(row_values) {
                values[r * d + k as usize] = v;
            }
        }
        LeftValues::Dense { values, n_features: d }
    }

    /// `⟨left row r, (indices, values)⟩`.
    #[inline]
    fn dot(&self, r: usize, indices: &[u32], values: &[f64]) -> f64 {
        match self {
            LeftValues::Dense { values: x, n_features } => {
                scatter_dot(&x[r * n_features..(r + 1) * n_features], indices, values)
            }
            LeftValues::Sparse(rows) => {
                let (left_indices, left_values) = &rows[r];
                merge_dot((left_indices, left_values), (indices, values))
            }
        }
    }
}

/// The requested rows of a block with their squared norms, built once per block (not once per
/// parallel window).
struct LeftBlock {
    /// `‖x‖²` of each row (the kernel's position-ordered norms: no row is read for them).
    norms: Vec<f64>,
    rows: LeftRows,
}

/// What a window reads of the requested rows.
enum LeftRows {
    /// Binary rows: their bit sets (`words` 64-bit words per row), copied from the
    /// [`BinaryRows`] of their positions; the CSR rows are not read at all (those were two or
    /// three cache misses per requested row on the solve's thread).
    Bits { words: usize, bits: Vec<u64> },
    /// Any other rows: scattered into dense vectors, or kept sparse when wide.
    Values(LeftValues),
}

impl LeftBlock {
    fn new(kernel: &SparseKernel<'_>, positions: &[usize]) -> LeftBlock {
        let norms = positions.iter().map(|&p| kernel.sq_norms[p]).collect();
        let rows = match &kernel.rows.binary {
            Some(binary) => LeftRows::Bits {
                words: binary.words(),
                bits: positions.iter().flat_map(|&p| binary.row(p)).copied().collect(),
            },
            None => LeftRows::Values(LeftValues::new(&kernel.rows, positions)),
        };
        LeftBlock { norms, rows }
    }
}

/// A kernel function over CSR rows.
#[derive(Debug, Clone)]
pub struct SparseKernel<'a> {
    rows: CsrRows<'a>,
    function: KernelFunction,
    /// The RBF by table lookup, for 0/1 rows read as bit sets.
    integer_rbf: Option<IntegerRbf>,
    /// `‖x‖²` of the row at each position, permuted with the positions (a window reads a
    /// contiguous slice instead of looking each norm up through the permutation).
    sq_norms: Vec<f64>,
}

impl<'a> SparseKernel<'a> {
    /// Combines rows and a kernel function, validating the function's parameters.
    pub fn new(rows: CsrRows<'a>, function: KernelFunction) -> Result<Self, KernelError> {
        function.validate()?;
        let sq_norms: Vec<f64> = (0..rows.n_rows).map(|p| rows.sq_norm(p)).collect();
        let integer_rbf = if rows.binary.is_some() {
            IntegerRbf::new(function, sq_norms.iter().copied().fold(0.0, f64::max))
        } else {
            None
        };
        Ok(SparseKernel { rows, function, integer_rbf, sq_norms })
    }

    /// How the columns are computed (see [`crate::plan`]).
    pub fn kernel_path(&self) -> KernelPath {
        match (&self.rows.binary, &self.integer_rbf, &self.rows.padded) {
            (Some(_), Some(_), _) => KernelPath::BitsetRbfTable,
            (Some(_), None, _) => KernelPath::Bitset,
            (None, _, Some(_)) => KernelPath::CsrPadded,
            (None, _, None) => KernelPath::Csr,
        }
    }

    /// Whether RBF columns are looked up in a table ([`IntegerRbf`]: 0/1 rows).
    pub fn looks_up_rbf(&self) -> bool {
        self.integer_rbf.is_some()
    }

    /// Columns `c0..c1` of the block of `left` rows against positions `start..`.
    fn window(
        &self,
        block: &LeftBlock,
        start: usize,
        c0: usize,
        c1: usize,
        out: &ColumnWindows<'_>,
        finish: Finish<'_>,
    ) {
        let LeftBlock { norms: left_norms, rows: left } = block;
        let positions = start + c0..start + c1;
        let norms = &self.sq_norms[positions.clone()];
        let left = match (left, &self.rows.binary) {
            (LeftRows::Values(values), _) => values,
            (LeftRows::Bits { .. }, None) => unreachable!("bit sets are built for binary rows"),
            (LeftRows::Bits { words, bits }, Some(binary)) => {
                for (r, query) in bits.chunks_exact(*words).enumerate() {
                    // SAFETY: the caller owns columns c0..c1 of every row of `out`.
                    let window = unsafe { out.row(r, c0, c1) };
                    binary.inner_products(query, start + c0, window);
                    match &self.integer_rbf {
                        Some(table) => table.map_row(window, left_norms[r], norms),
                        None => self.function.map_row(window, left_norms[r], norms),
                    }
                    finish(r, c0, window);
                }
                return;
            }
        };
        if let (Some(padded), LeftValues::Dense { values: x, n_features: d }) =
            (&self.rows.padded, left)
        {
            let left_row = |r: usize| &x[r * d..(r + 1) * d];
            // Two requested rows per pass over the slots.
            for r in (0..left_norms.len()).step_by(2) {
                // SAFETY: the caller owns columns c0..c1 of every row of `out`; rows r and r + 1
                // are distinct.
                let window = unsafe { out.row(r, c0, c1) };
                if r + 1 < left_norms.len() {
                    let next = unsafe { out.row(r + 1, c0, c1) };
                    padded.inner_products_pair(
                        (left_row(r), left_row(r + 1)),
                        start + c0,
                        (&mut *window, &mut *next),
                    );
                    self.function.map_row(next, left_norms[r + 1], norms);
                    finish(r + 1, c0, next);
                } else {
                    padded.inner_products(left_row(r), start + c0, window);
                }
                self.function.map_row(window, left_norms[r], norms);
                finish(r, c0, window);
            }
            return;
        }
        for (r, &norm_x) in left_norms.iter().enumerate() {
            // SAFETY: the caller owns columns c0..c1 of every row of `out`.
            let window = unsafe { out.row(r, c0, c1) };
            for (o, position) in window.iter_mut().zip(positions.clone()) {
                let (indices, values) = self.rows.row(position);
                *o = left.dot(r, indices, values);
            }
            self.function.map_row(window, norm_x, norms);
            finish(r, c0, window);
        }
    }
}

impl KernelSource for SparseKernel<'_> {
    fn len(&self) -> usize {
        self.rows.n_rows
    }

    fn diagonal_value(&self, i: usize) -> f64 {
        let norm = self.rows.sq_norm(i);
        self.function.from_inner_product(norm, norm, norm)
    }

    fn fill_block(&self, rows: &[usize], start: usize, end: usize, out: &mut [f64]) {
        self.fill_block_finishing(rows, start, end, out, NO_FINISH);
    }

    fn fill_block_finishing(
        &self,
        rows: &[usize],
        start: usize,
        end: usize,
        out: &mut [f64],
        finish: Finish<'_>,
    ) {
        let width = end - start;
        assert_eq!(out.len(), rows.len() * width, "fill_block: output has the wrong length");
        if width == 0 || rows.is_empty() {
            return;
        }
        let block = LeftBlock::new(self, rows);
        let average_nnz = self.rows.nnz() / self.rows.n_rows.max(1) + 1;
        let windows = ColumnWindows::new(out, width);
        let sequential = rows.len() * width * average_nnz < PARALLEL_MIN_WORK;
        for_column_chunks(width, sequential, |c0, c1| {
            self.window(&block, start, c0, c1, &windows, finish);
        });
    }

    fn bitwise_rows(&self) -> usize {
        BITWISE_ROWS
    }

    fn path(&self) -> KernelPath {
        self.kernel_path()
    }

    fn known_positive_semidefinite(&self) -> Option<bool> {
        Some(self.function.positive_semidefinite())
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.rows.swap_rows(i, j);
        self.sq_norms.swap(i, j);
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
        assert!(rows.binary.is_some());
        let mut sparse = SparseKernel::new(rows, function).unwrap();
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
