//! The representations of dense rows ([`RowStore`]s), one type each; [`crate::plan`](mod@crate::plan) says
//! which one a kernel over given rows takes, [`crate::DenseKernel`] builds it.
//!
//! | store | [`KernelPath`] | one to three rows | four rows or more |
//! |---|---|---|---|
//! | [`F64Rows`] | `dense_f64` | [`crate::simd::dot_rows`] | one GEMM |
//! | [`F32Rows`] | `dense_f32`, `dense_f32_products` | `dot_rows` over the `f32` copy (widened, or summed in `f32`: [`crate::single_products`]) | one GEMM over the `f64` rows |
//! | [`FixedPointRows`] | `fixed_point_i16` | exact integer sums ([`crate::fixed_point`]) | the same, three rows per pass |
//! | [`FeatureMajorRows`] | `dense_feature_major`, `dense_distinct_rows` | [`crate::feature_major`] | one GEMM; repeated rows once ([`DistinctRows`]) |
//!
//! Every value of one to three rows is a dot product summed as for a row alone (so solvers
//! may share passes, [`crate::SHARED_PASS_ROWS`]); a GEMM sums in its own order.

use crate::dense::{swap_row_slices, DenseRows};
use crate::distinct::DistinctRows;
use crate::feature_major::FeatureMajor;
use crate::fixed_point::FixedRows;
use crate::function::KernelFunction;
use crate::plan::KernelPath;
use crate::rbf_expansion::dense_sq_distance;
use crate::row_store::{size_of_rows, RowStore, Window};
use crate::source::Finish;

/// Below this many rows a block is computed by direct dot products instead of a GEMM (a GEMM
/// would pack the whole window of right rows for one or two uses; `criterion` bench
/// `kernel_columns`).
pub(crate) const GEMM_MIN_ROWS: usize = 4;

/// Whether rows of `d` features, read row-major, share passes ([`RowStore::shares_passes`]):
/// from 64 features a row's bytes cost more than its products (the feature-major layout of
/// narrower rows is bound by the products and the exponentials, which a shared pass does not
/// save).
fn reads_wide_rows(d: usize) -> bool {
    d >= 64
}

/// The `f64` rows of a store, or only their norms when the store reads another copy whose
/// values are exactly theirs (`f32` rows, integer multiples) and nothing needs them.
#[derive(Debug, Clone)]
pub(crate) enum Rows<'a> {
    /// The `f64` rows.
    Double(DenseRows<'a>),
    /// Only the rows' norms (summed over the `f64` values, as [`crate::dense::sq_norm`] does).
    NormsOnly { n_features: usize, sq_norms: Vec<f64> },
}

impl<'a> Rows<'a> {
    pub(crate) fn double(&self) -> Option<&DenseRows<'a>> {
        match self {
            Rows::Double(rows) => Some(rows),
            Rows::NormsOnly { .. } => None,
        }
    }

    pub(crate) fn n_features(&self) -> usize {
        match self {
            Rows::Double(rows) => rows.n_features(),
            Rows::NormsOnly { n_features, .. } => *n_features,
        }
    }

    fn n_rows(&self) -> usize {
        self.sq_norms().len()
    }

    fn sq_norms(&self) -> &[f64] {
        match self {
            Rows::Double(rows) => rows.sq_norms(),
            Rows::NormsOnly { sq_norms, .. } => sq_norms,
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        match self {
            Rows::Double(rows) => rows.swap_rows(i, j),
            Rows::NormsOnly { sq_norms, .. } => sq_norms.swap(i, j),
        }
    }
}

/// The [`RowStore`] methods that a store over its `rows` field (a [`DenseRows`] or a [`Rows`])
/// answers from those rows: their number and width ([`size_of_rows`]), and their norms.
macro_rules! shape_of_rows {
    () => {
        size_of_rows!();

        fn sq_norms(&self) -> &[f64] {
            self.rows.sq_norms()
        }
    };
}

/// The rows `positions` of the row-major `values` (`d` wide), one after the other.
fn gather_rows<T: Copy>(values: &[T], d: usize, positions: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(positions.len() * d);
    for &p in positions {
        out.extend_from_slice(&values[p * d..(p + 1) * d]);
    }
    out
}

/// `d`-wide row-major rows as slices (`n` empty slices when `d == 0`).
fn split_rows<T>(values: &[T], d: usize, n: usize) -> Vec<&[T]> {
    if d == 0 {
        vec![&[]; n]
    } else {
        values.chunks_exact(d).collect()
    }
}

/// `f64` left rows against the window's `f64` right rows (`right`, row-major): direct dot
/// products for one to three rows, one GEMM from [`GEMM_MIN_ROWS`] on.
fn dense_products(left: &[f64], right: &[f64], d: usize, window: &mut Window<'_>) {
    let n_left = window.n_rows();
    if d == 0 {
        window.rows(0, n_left).into_iter().for_each(|row| row.fill(0.0));
    } else if n_left < GEMM_MIN_ROWS {
        let left = split_rows(left, d, n_left);
        crate::simd::dot_rows(&left, right, &mut window.rows(0, n_left));
    } else {
        window.gemm(left, right, d);
    }
}

/// `f64` rows, read row-major.
#[derive(Debug, Clone)]
pub struct F64Rows<'a> {
    rows: DenseRows<'a>,
}

impl<'a> F64Rows<'a> {
    pub(crate) fn new(rows: DenseRows<'a>) -> Self {
        F64Rows { rows }
    }

    pub(crate) fn rows(&self) -> &DenseRows<'a> {
        &self.rows
    }
}

impl RowStore for F64Rows<'_> {
    type Left = Vec<f64>;

    shape_of_rows!();

    fn gather(&self, positions: &[usize]) -> Vec<f64> {
        let d = self.rows.n_features();
        gather_rows(self.rows.rows(0, self.rows.n_rows()), d, positions)
    }

    fn inner_products(&self, left: &Vec<f64>, first: usize, window: &mut Window<'_>) {
        let right = self.rows.rows(first, first + window.len());
        dense_products(left, right, self.rows.n_features(), window);
    }

    fn sq_distance(&self, left: &Vec<f64>, r: usize, position: usize) -> f64 {
        let d = self.rows.n_features();
        dense_sq_distance(&left[r * d..(r + 1) * d], self.rows.rows(position, position + 1))
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.rows.swap_rows(i, j);
    }

    fn shares_passes(&self) -> bool {
        reads_wide_rows(self.rows.n_features())
    }

    fn path(&self) -> KernelPath {
        KernelPath::DenseF64
    }
}

/// Rows whose every value is exactly an `f32` (float32 input, pixels, counts), read row-major
/// from an `f32` copy: a column of one to three rows reads half the bytes, with bitwise the
/// same values when the products are widened ([`crate::simd::RowValue`]), or summed in `f32`
/// when the caller allows it (float32 input, whose kernel values the cache stores in `f32`
/// anyway: [`crate::single_products`]). Blocks of four rows or more go through the `f64` GEMM.
#[derive(Debug, Clone)]
pub struct F32Rows<'a> {
    rows: Rows<'a>,
    single: Vec<f32>,
    sums_in_f32: bool,
}

/// The left rows of an [`F32Rows`] block: in `f32` when they are summed in `f32`, else in
/// `f64`.
pub enum F32Left {
    /// For `f32` sums.
    Single(Vec<f32>),
    /// For `f64` sums and the GEMM.
    Double(Vec<f64>),
}

impl<'a> F32Rows<'a> {
    pub(crate) fn new(rows: Rows<'a>, single: Vec<f32>, sums_in_f32: bool) -> Self {
        let d = rows.n_features();
        assert!(d > 0 && single.len() == rows.sq_norms().len() * d, "F32Rows: shape");
        F32Rows { rows, single, sums_in_f32 }
    }

    pub(crate) fn rows(&self) -> &Rows<'a> {
        &self.rows
    }

    pub(crate) fn single(&self) -> &[f32] {
        &self.single
    }

    pub(crate) fn sums_in_f32(&self) -> bool {
        self.sums_in_f32
    }

    pub(crate) fn into_parts(self) -> (Rows<'a>, Vec<f32>) {
        (self.rows, self.single)
    }
}

impl RowStore for F32Rows<'_> {
    type Left = F32Left;

    shape_of_rows!();

    fn gather(&self, positions: &[usize]) -> F32Left {
        let d = self.rows.n_features();
        if self.sums_in_f32 && positions.len() < GEMM_MIN_ROWS {
            return F32Left::Single(gather_rows(&self.single, d, positions));
        }
        F32Left::Double(match &self.rows {
            Rows::Double(rows) => gather_rows(rows.rows(0, rows.n_rows()), d, positions),
            Rows::NormsOnly { .. } => positions
                .iter()
                .flat_map(|&p| &self.single[p * d..(p + 1) * d])
                .map(|&v| f64::from(v))
                .collect(),
        })
    }

    fn inner_products(&self, left: &F32Left, first: usize, window: &mut Window<'_>) {
        let d = self.rows.n_features();
        let (n_left, last) = (window.n_rows(), first + window.len());
        let single = &self.single[first * d..last * d];
        match left {
            F32Left::Single(left) => {
                let left = split_rows(left, d, n_left);
                crate::single_products::dot_rows_single(&left, single, &mut window.rows(0, n_left));
            }
            F32Left::Double(left) if n_left < GEMM_MIN_ROWS => {
                let left = split_rows(left, d, n_left);
                crate::simd::dot_rows(&left, single, &mut window.rows(0, n_left));
            }
            F32Left::Double(left) => match &self.rows {
                Rows::Double(rows) => window.gemm(left, rows.rows(first, last), d),
                Rows::NormsOnly { .. } => {
                    // Widened exactly: the GEMM of the f64 rows.
                    let widened: Vec<f64> = single.iter().map(|&v| f64::from(v)).collect();
                    window.gemm(left, &widened, d);
                }
            },
        }
    }

    fn sq_distance(&self, left: &F32Left, r: usize, position: usize) -> f64 {
        let d = self.rows.n_features();
        let right = &self.single[position * d..(position + 1) * d];
        match left {
            F32Left::Single(left) => dense_sq_distance(&left[r * d..(r + 1) * d], right),
            // The f64 left rows are exactly the f32 values, widened.
            F32Left::Double(left) => dense_sq_distance(&left[r * d..(r + 1) * d], right),
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.rows.swap(i, j);
        swap_row_slices(&mut self.single, i, j, self.rows.n_features());
    }

    fn shares_passes(&self) -> bool {
        reads_wide_rows(self.rows.n_features())
    }

    fn rounding(&self) -> f64 {
        if self.sums_in_f32 {
            f64::from(f32::EPSILON)
        } else {
            f64::EPSILON
        }
    }

    fn path(&self) -> KernelPath {
        if self.sums_in_f32 {
            KernelPath::DenseF32Products
        } else {
            KernelPath::DenseF32
        }
    }
}

/// Rows whose every value is an integer multiple of one quantum (pixels, counts): every
/// column, of any number of rows, is summed exactly over the 16-bit multiples
/// ([`crate::fixed_point`]), three left rows per pass over the right rows.
#[derive(Debug, Clone)]
pub struct FixedPointRows<'a> {
    rows: Rows<'a>,
    fixed: FixedRows,
}

impl<'a> FixedPointRows<'a> {
    pub(crate) fn new(rows: Rows<'a>, fixed: FixedRows) -> Self {
        let d = rows.n_features();
        assert!(d > 0 && fixed.values.len() == rows.sq_norms().len() * d, "FixedPointRows: shape");
        FixedPointRows { rows, fixed }
    }

    pub(crate) fn rows(&self) -> &Rows<'a> {
        &self.rows
    }
}

impl RowStore for FixedPointRows<'_> {
    type Left = Vec<i16>;

    shape_of_rows!();

    fn gather(&self, positions: &[usize]) -> Vec<i16> {
        gather_rows(&self.fixed.values, self.rows.n_features(), positions)
    }

    fn inner_products(&self, left: &Vec<i16>, first: usize, window: &mut Window<'_>) {
        let d = self.rows.n_features();
        let right = &self.fixed.values[first * d..(first + window.len()) * d];
        let per_pass = GEMM_MIN_ROWS - 1;
        for (g, group) in left.chunks(per_pass * d).enumerate() {
            let rows = split_rows(group, d, group.len() / d);
            let r0 = g * per_pass;
            let mut outs = window.rows(r0, r0 + rows.len());
            crate::fixed_point::dot_rows_fixed(&rows, right, self.fixed.quantum_sq, &mut outs);
        }
    }

    fn sq_distance(&self, left: &Vec<i16>, r: usize, position: usize) -> f64 {
        // Exact over the integer multiples, as the inner products are.
        let d = self.rows.n_features();
        let right = &self.fixed.values[position * d..(position + 1) * d];
        let steps: i64 = left[r * d..(r + 1) * d]
            .iter()
            .zip(right)
            .map(|(&a, &b)| (i64::from(a) - i64::from(b)).pow(2))
            .sum();
        steps as f64 * self.fixed.quantum_sq
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.rows.swap(i, j);
        swap_row_slices(&mut self.fixed.values, i, j, self.rows.n_features());
    }

    fn shares_passes(&self) -> bool {
        reads_wide_rows(self.rows.n_features())
    }

    fn path(&self) -> KernelPath {
        KernelPath::FixedPointI16
    }
}

/// Short rows ([`crate::plan::reads_feature_major`]), kept again feature-major over the
/// features that are not zero in every row ([`FeatureMajor`]): one to three columns are
/// computed by [`crate::feature_major::dot_feature_major`]. When the rows are often repeated
/// (categorical data), a wide enough block is computed over the distinct rows and gathered
/// ([`DistinctRows`]).
#[derive(Debug, Clone)]
pub struct FeatureMajorRows<'a> {
    rows: DenseRows<'a>,
    by_feature: FeatureMajor,
    distinct: Option<DistinctRows>,
}

/// The left rows of a [`FeatureMajorRows`] block.
pub struct FeatureMajorLeft {
    /// Whole rows (for the GEMM and the distinct rows).
    rows: Vec<f64>,
    /// The rows over the features kept, for one to three rows.
    used: Vec<f64>,
}

impl<'a> FeatureMajorRows<'a> {
    /// The copies of `rows` (two independent passes, on two threads when there are).
    pub(crate) fn new(rows: DenseRows<'a>) -> Self {
        let (by_feature, distinct) =
            rayon::join(|| FeatureMajor::new(&rows), || DistinctRows::find(&rows));
        FeatureMajorRows { rows, by_feature, distinct }
    }

    pub(crate) fn rows(&self) -> &DenseRows<'a> {
        &self.rows
    }

    pub(crate) fn distinct(&self) -> Option<&DistinctRows> {
        self.distinct.as_ref()
    }

    /// The features kept (tests).
    #[cfg(test)]
    pub(crate) fn used_features(&self) -> &[usize] {
        &self.by_feature.used
    }

    /// The same store computing every position directly (tests).
    #[cfg(test)]
    pub(crate) fn without_distinct_rows(mut self) -> Self {
        self.distinct = None;
        self
    }

    /// The same store keeping every feature feature-major (tests).
    #[cfg(test)]
    pub(crate) fn keeping_every_feature(mut self) -> Self {
        let d = self.rows.n_features();
        self.by_feature =
            FeatureMajor { used: (0..d).collect(), values: self.rows.feature_major() };
        self
    }
}

impl RowStore for FeatureMajorRows<'_> {
    type Left = FeatureMajorLeft;

    shape_of_rows!();

    fn gather(&self, positions: &[usize]) -> FeatureMajorLeft {
        let d = self.rows.n_features();
        let rows = gather_rows(self.rows.rows(0, self.rows.n_rows()), d, positions);
        let used = if positions.len() < GEMM_MIN_ROWS {
            self.by_feature.left(&rows, d)
        } else {
            Vec::new()
        };
        FeatureMajorLeft { rows, used }
    }

    fn inner_products(&self, left: &FeatureMajorLeft, first: usize, window: &mut Window<'_>) {
        let (n_left, d) = (window.n_rows(), self.rows.n_features());
        if n_left < GEMM_MIN_ROWS {
            let used = split_rows(&left.used, self.by_feature.used.len(), n_left);
            crate::feature_major::dot_feature_major(
                &used,
                &self.by_feature.values,
                self.rows.n_rows(),
                first,
                &mut window.rows(0, n_left),
            );
        } else {
            dense_products(&left.rows, self.rows.rows(first, first + window.len()), d, window);
        }
    }

    fn fill_whole_block(
        &self,
        function: KernelFunction,
        left: &FeatureMajorLeft,
        left_norms: &[f64],
        start: usize,
        end: usize,
        out: &mut [f64],
        finish: Finish<'_>,
    ) -> bool {
        let Some(distinct) = &self.distinct else { return false };
        if !distinct.pays_for(end - start, left_norms.len()) {
            return false;
        }
        let left_rows = split_rows(&left.rows, self.rows.n_features(), left_norms.len());
        let mut over_distinct = vec![0.0; left_norms.len() * distinct.rows().n_rows()];
        distinct.columns(&left_rows, left_norms, function, &mut over_distinct);
        distinct.gather(&over_distinct, start, end, out, finish);
        true
    }

    fn sq_distance(&self, left: &FeatureMajorLeft, r: usize, position: usize) -> f64 {
        let d = self.rows.n_features();
        dense_sq_distance(&left.rows[r * d..(r + 1) * d], self.rows.rows(position, position + 1))
    }

    fn swap(&mut self, i: usize, j: usize) {
        let n = self.rows.n_rows();
        self.rows.swap_rows(i, j);
        if let Some(distinct) = &mut self.distinct {
            distinct.swap_index(i, j);
        }
        for k in 0..self.by_feature.used.len() {
            self.by_feature.values.swap(k * n + i, k * n + j);
        }
    }

    fn path(&self) -> KernelPath {
        if self.distinct.is_some() {
            KernelPath::DenseDistinctRows
        } else {
            KernelPath::DenseFeatureMajor
        }
    }
}
