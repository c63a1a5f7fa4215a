//! The representations of CSR rows ([`RowStore`]s), one type each; [`crate::plan`](mod@crate::plan) says which
//! one a kernel over given rows takes, [`crate::SparseKernel`] builds it.
//!
//! | store | [`KernelPath`] | a column |
//! |---|---|---|
//! | [`CsrStore`] | `csr` | the requested row scattered into a dense vector once, then one multiply–add per stored value of each row (merged by sorted indices when wider than [`SCATTER_MAX_FEATURES`]) |
//! | [`PaddedStore`] | `csr_padded` | the same sums over the rows copied into fixed-width slots in *position* order ([`PaddedRows`]): read sequentially, two requested rows per pass |
//! | [`BitsetStore`] | `bitset`, `bitset_rbf_table` | 0/1 rows as bit sets, shared features counted with `popcnt`; the RBF looked up by integer distance ([`IntegerRbf`]) |
//!
//! Every value is one row's sparse dot product, summed as for that row alone, in the order of
//! [`crate::sparse::scatter_dot`] (counts are integers): the three give bitwise the same
//! inner products.

use crate::bitmap::BinaryRows;
use crate::cross::RowSet;
use crate::function::KernelFunction;
use crate::padded::PaddedRows;
use crate::plan::KernelPath;
use crate::rbf_expansion::{dense_sparse_sq_distance, sparse_sq_distance};
use crate::rbf_table::IntegerRbf;
use crate::row_store::{size_of_rows, RowStore, Window};
use crate::sparse::{merge_dot, scatter_dot, CsrRows, SCATTER_MAX_FEATURES};

/// [`RowStore::bitwise_rows`] of CSR rows: every value of a block is one row's sparse dot
/// product (two rows share the pass over the padded slots, each summed as alone), so any
/// number would do; this many keep a block's scattered rows and bit sets small.
const BITWISE_ROWS: usize = 16;

/// The requested rows of a block: scattered into dense vectors, or kept sparse when wide.
pub enum CsrLeft {
    /// `n_features` values per row, row after row.
    Dense(Vec<f64>),
    /// The rows' `(indices, values)`, for rows wider than [`SCATTER_MAX_FEATURES`].
    Sparse(Vec<(Vec<u32>, Vec<f64>)>),
}

impl CsrLeft {
    /// The rows `positions` of `rows` (the store's own, or a prediction's left rows).
    pub(crate) fn new(rows: RowSet<'_, '_>, positions: impl Iterator<Item = usize>) -> CsrLeft {
        let d = rows.n_features();
        match rows {
            RowSet::Sparse(rows) if d > SCATTER_MAX_FEATURES => {
                let sparse_row = |p: usize| {
                    let (indices, values) = rows.row(p);
                    (indices.to_vec(), values.to_vec())
                };
                CsrLeft::Sparse(positions.map(sparse_row).collect())
            }
            RowSet::Sparse(rows) => {
                let positions: Vec<usize> = positions.collect();
                let mut values = vec![0.0; positions.len() * d];
                for (x, &position) in values.chunks_exact_mut(d.max(1)).zip(&positions) {
                    let (indices, row_values) = rows.row(position);
                    for (&k, &v) in indices.iter().zip(row_values) {
                        x[k as usize] = v;
                    }
                }
                CsrLeft::Dense(values)
            }
            RowSet::Dense(rows) => {
                CsrLeft::Dense(positions.flat_map(|p| rows.row(p)).copied().collect())
            }
        }
    }

    /// `‖x − z‖²` of left row `r` (of `d` features) and the CSR row `z`, from the differences.
    pub(crate) fn sq_distance(&self, r: usize, d: usize, z: (&[u32], &[f64])) -> f64 {
        match self {
            CsrLeft::Dense(x) => dense_sparse_sq_distance(&x[r * d..(r + 1) * d], z),
            CsrLeft::Sparse(rows) => {
                let (indices, values) = &rows[r];
                sparse_sq_distance((indices, values), z)
            }
        }
    }
}

/// CSR rows read through the permutation of positions (rows never move).
#[derive(Debug, Clone)]
pub struct CsrStore<'a> {
    rows: CsrRows<'a>,
    /// `‖x‖²` of the row at each position, permuted with the positions (a window reads a
    /// contiguous slice instead of looking each norm up through the permutation).
    sq_norms: Vec<f64>,
}

impl<'a> CsrStore<'a> {
    pub(crate) fn new(rows: CsrRows<'a>) -> Self {
        let sq_norms = (0..rows.n_rows()).map(|p| rows.sq_norm(p)).collect();
        CsrStore { rows, sq_norms }
    }
}

/// Stored values per row, rounded up: the cost of one sparse inner product.
fn average_nnz(rows: &CsrRows<'_>) -> usize {
    rows.nnz() / rows.n_rows().max(1) + 1
}

/// The [`RowStore`] methods that a store over its `rows` field ([`CsrRows`]) answers from those
/// rows: their number and width ([`size_of_rows`]), the requested rows gathered from them, and
/// their distances to the rows at positions.
macro_rules! csr_rows_shape {
    () => {
        size_of_rows!();

        fn gather(&self, positions: &[usize]) -> CsrLeft {
            CsrLeft::new(RowSet::Sparse(&self.rows), positions.iter().copied())
        }

        fn sq_distance(&self, left: &CsrLeft, r: usize, position: usize) -> f64 {
            left.sq_distance(r, self.rows.n_features(), self.rows.row(position))
        }
    };
}

/// The [`RowStore`] costs of a store over its `rows` field ([`CsrRows`]): a value costs the
/// rows' stored values, and blocks are bitwise up to [`BITWISE_ROWS`] rows.
macro_rules! csr_rows_costs {
    () => {
        fn cost_per_value(&self) -> usize {
            average_nnz(&self.rows)
        }

        fn bitwise_rows(&self) -> usize {
            BITWISE_ROWS
        }
    };
}

impl RowStore for CsrStore<'_> {
    type Left = CsrLeft;

    csr_rows_shape!();

    fn sq_norms(&self) -> &[f64] {
        &self.sq_norms
    }

    fn inner_products(&self, left: &CsrLeft, first: usize, window: &mut Window<'_>) {
        let d = self.rows.n_features();
        for r in 0..window.n_rows() {
            let out = window.row(r);
            for (o, position) in out.iter_mut().zip(first..) {
                let (indices, values) = self.rows.row(position);
                *o = match left {
                    CsrLeft::Dense(x) => scatter_dot(&x[r * d..(r + 1) * d], indices, values),
                    CsrLeft::Sparse(rows) => {
                        let (left_indices, left_values) = &rows[r];
                        merge_dot((left_indices, left_values), (indices, values))
                    }
                };
            }
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.rows.swap_rows(i, j);
        self.sq_norms.swap(i, j);
    }

    csr_rows_costs!();

    fn path(&self) -> KernelPath {
        KernelPath::Csr
    }
}

/// CSR rows of similar lengths, copied into padded slots in position order (a swap moves the
/// two rows); the requested rows are scattered from the CSR rows.
#[derive(Debug, Clone)]
pub struct PaddedStore<'a> {
    rows: CsrRows<'a>,
    padded: PaddedRows,
}

impl<'a> PaddedStore<'a> {
    /// `padded` must be the rows of `rows` in position order, of at most
    /// [`SCATTER_MAX_FEATURES`] features.
    pub(crate) fn new(rows: CsrRows<'a>, padded: PaddedRows) -> Self {
        assert!(rows.n_features() <= SCATTER_MAX_FEATURES, "PaddedStore: rows too wide");
        PaddedStore { rows, padded }
    }
}

impl RowStore for PaddedStore<'_> {
    type Left = CsrLeft;

    csr_rows_shape!();

    fn sq_norms(&self) -> &[f64] {
        self.padded.sq_norms()
    }

    fn inner_products(&self, left: &CsrLeft, first: usize, window: &mut Window<'_>) {
        let CsrLeft::Dense(x) = left else { unreachable!("padded rows are narrow") };
        let (n_left, d) = (window.n_rows(), self.rows.n_features());
        // Two requested rows per pass over the slots.
        for r in (0..n_left).step_by(2) {
            if r + 1 < n_left {
                let mut outs = window.rows(r, r + 2);
                let (a, b) = outs.split_at_mut(1);
                let pair = (&x[r * d..(r + 1) * d], &x[(r + 1) * d..(r + 2) * d]);
                self.padded.inner_products_pair(pair, first, (&mut *a[0], &mut *b[0]));
            } else {
                self.padded.inner_products(&x[r * d..(r + 1) * d], first, window.row(r));
            }
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.rows.swap_rows(i, j);
        self.padded.swap(i, j);
    }

    csr_rows_costs!();

    fn path(&self) -> KernelPath {
        KernelPath::CsrPadded
    }
}

/// 0/1 rows as bit sets in position order; the CSR rows are not read at all (they were two or
/// three cache misses per requested row on the solve's thread).
#[derive(Debug, Clone)]
pub struct BitsetStore {
    binary: BinaryRows,
    sq_norms: Vec<f64>,
    /// The RBF by table lookup, when it fits ([`crate::plan::looks_up_rbf`]).
    table: Option<IntegerRbf>,
    n_features: usize,
    cost_per_value: usize,
}

impl BitsetStore {
    /// `binary` must be the rows of `rows` in position order; `table`, when given, must cover
    /// every squared distance between requested rows and these ([`IntegerRbf::new`] of the
    /// largest norm of both).
    pub(crate) fn new(rows: &CsrRows<'_>, binary: BinaryRows, table: Option<IntegerRbf>) -> Self {
        let sq_norms: Vec<f64> = (0..rows.n_rows()).map(|p| rows.sq_norm(p)).collect();
        let (n_features, cost_per_value) = (rows.n_features(), average_nnz(rows));
        BitsetStore { binary, sq_norms, table, n_features, cost_per_value }
    }

    /// [`BitsetStore::new`] with the RBF table for requested rows of the same rows.
    pub(crate) fn with_table(
        rows: &CsrRows<'_>,
        binary: BinaryRows,
        function: KernelFunction,
    ) -> Self {
        let largest = (0..rows.n_rows()).map(|p| rows.sq_norm(p)).fold(0.0, f64::max);
        Self::new(rows, binary, IntegerRbf::new(function, largest))
    }

    /// The bit sets of the rows `positions` of `rows` (another set of rows of the same width),
    /// when each of them is 0/1 (`None` otherwise).
    pub(crate) fn query_rows(
        &self,
        rows: RowSet<'_, '_>,
        positions: std::ops::Range<usize>,
    ) -> Option<Vec<u64>> {
        let mut x = vec![0.0; rows.n_features()];
        let mut bits = Vec::with_capacity(positions.len() * self.binary.words());
        for p in positions {
            rows.scatter(p, &mut x);
            bits.extend(self.binary.query(&x)?);
        }
        Some(bits)
    }
}

impl RowStore for BitsetStore {
    type Left = Vec<u64>;

    fn n_rows(&self) -> usize {
        self.sq_norms.len()
    }

    fn n_features(&self) -> usize {
        self.n_features
    }

    fn sq_norms(&self) -> &[f64] {
        &self.sq_norms
    }

    fn gather(&self, positions: &[usize]) -> Vec<u64> {
        positions.iter().flat_map(|&p| self.binary.row(p)).copied().collect()
    }

    fn inner_products(&self, left: &Vec<u64>, first: usize, window: &mut Window<'_>) {
        for (r, query) in left.chunks_exact(self.binary.words()).enumerate() {
            self.binary.inner_products(query, first, window.row(r));
        }
    }

    #[inline]
    fn map_row(
        &self,
        function: KernelFunction,
        row: &mut [f64],
        left_norm: f64,
        right_norms: &[f64],
    ) {
        match &self.table {
            Some(table) => table.map_row(row, left_norm, right_norms),
            None => function.map_row(row, left_norm, right_norms),
        }
    }

    fn sq_distance(&self, left: &Vec<u64>, r: usize, position: usize) -> f64 {
        // 0/1 rows: the features set in exactly one of them.
        let words = self.binary.words();
        let query = &left[r * words..(r + 1) * words];
        let differing: u32 =
            query.iter().zip(self.binary.row(position)).map(|(a, b)| (a ^ b).count_ones()).sum();
        f64::from(differing)
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.binary.swap(i, j);
        self.sq_norms.swap(i, j);
    }

    fn cost_per_value(&self) -> usize {
        self.cost_per_value
    }

    fn bitwise_rows(&self) -> usize {
        BITWISE_ROWS
    }

    fn path(&self) -> KernelPath {
        if self.table.is_some() {
            KernelPath::BitsetRbfTable
        } else {
            KernelPath::Bitset
        }
    }
}
