//! Kernel sources: [`KernelSource`], a symmetric kernel matrix whose entries are computed on
//! demand by position, and [`DenseKernel`], the source over dense rows (feature-major copies of
//! narrow rows, `f32` copies of rows that are exactly `f32`, repeated rows computed once). Its
//! blocks of values are computed by [`crate::block`].

use crate::block::{Block, Right, GEMM_MIN_ROWS};
use crate::dense::{swap_row_slices, DenseRows};
use crate::distinct::DistinctRows;
use crate::error::KernelError;
use crate::feature_major::FeatureMajor;
use crate::fixed_point::FixedRows;
use crate::function::KernelFunction;
use crate::parallel::for_column_chunks;
use crate::plan::{reads_feature_major, KernelPath};

/// At most this many rows share one pass of [`KernelSource::shares_passes`] (below
/// `GEMM_MIN_ROWS`, so every value is a dot product summed as for a single row).
pub const SHARED_PASS_ROWS: usize = GEMM_MIN_ROWS - 1;

/// Dense rows with at least this many features, read row-major, share passes: a row's bytes
/// then cost more than its products (the feature-major layout of narrower rows is bound by the
/// products and the exponentials, which a shared pass does not save).
const SHARED_PASS_MIN_FEATURES: usize = 64;

/// A symmetric kernel matrix whose entries are computed on demand, indexed by *position*
/// (positions are permuted by [`KernelSource::swap_index`] when a solver shrinks).
pub trait KernelSource: Send + Sync {
    /// Number of points.
    fn len(&self) -> usize;

    /// Whether there are no points.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `K[i, i]`.
    fn diagonal_value(&self, i: usize) -> f64;

    /// Writes `K[rows[r], start + c]` to `out[r * (end - start) + c]`.
    fn fill_block(&self, rows: &[usize], start: usize, end: usize, out: &mut [f64]);

    /// [`KernelSource::fill_block`], handing every computed window to `finish` as soon as it
    /// holds its final values: `finish(r, c0, window)` with `window = out[r·w + c0..][..len]`
    /// (`w = end − start`), on the thread that computed it, while the window is still in that
    /// core's cache. The windows of each row cover `0..w` once. A caller that converts the
    /// values (the `f32` columns of a [`crate::QMatrix`]) then needs no second pass over a
    /// block that has left the cache, and no second fork and join of the threads.
    ///
    /// The default fills the block, then finishes it in fixed chunks, in parallel.
    fn fill_block_finishing(
        &self,
        rows: &[usize],
        start: usize,
        end: usize,
        out: &mut [f64],
        finish: Finish<'_>,
    ) {
        self.fill_block(rows, start, end, out);
        finish_in_chunks(rows.len(), end - start, out, finish);
    }

    /// Whether [`KernelSource::fill_block`] computes up to [`SHARED_PASS_ROWS`] rows in one
    /// pass over the data at clearly less than the cost of separate passes (each value bitwise
    /// as for its row alone up to [`KernelSource::bitwise_rows`] rows): then computing
    /// likely-needed columns alongside a needed one pays (see `QMatrixPasses::speculation_width`).
    fn shares_passes(&self) -> bool {
        false
    }

    /// How many rows one [`KernelSource::fill_block`] may hold with every value still bitwise
    /// what a block of its row alone gives (each value a dot product summed as for one row,
    /// no GEMM): a solver computing many columns (the gradient reconstruction) may then take
    /// them this many at a time, one pass over the data each, without changing its path.
    fn bitwise_rows(&self) -> usize {
        1
    }

    /// Exchanges positions `i` and `j`.
    fn swap_index(&mut self, i: usize, j: usize);

    /// How the values are computed ([`crate::plan`]); sources defined elsewhere are
    /// [`KernelPath::Custom`].
    fn path(&self) -> KernelPath {
        KernelPath::Custom
    }

    /// What is known of the matrix's definiteness before any value is computed: `Some(true)`
    /// when a kernel function guarantees it positive semidefinite
    /// ([`KernelFunction::positive_semidefinite`]), `Some(false)` when the function does not
    /// (sigmoid; polynomial with `coef0 < 0`), `None` for a matrix of unknown origin (a
    /// precomputed Gram matrix, a callable): a solver then learns only from the values it meets.
    fn known_positive_semidefinite(&self) -> Option<bool> {
        None
    }
}

/// What [`KernelSource::fill_block_finishing`] calls on each finished window: `(row of the
/// block, first column of the window, the window's values)`.
pub type Finish<'a> = &'a (dyn Fn(usize, usize, &[f64]) + Sync);

/// A [`Finish`] that does nothing (a plain [`KernelSource::fill_block`]).
pub(crate) const NO_FINISH: Finish<'static> = &|_, _, _| {};

/// `finish` on every window of the `n_rows × width` row-major `out`, over the fixed column
/// chunks of [`for_column_chunks`] (in parallel for a large block).
pub(crate) fn finish_in_chunks(n_rows: usize, width: usize, out: &[f64], finish: Finish<'_>) {
    if n_rows == 0 || width == 0 {
        return;
    }
    for_column_chunks(width, n_rows * width < crate::PARALLEL_MIN_LEN, |c0, c1| {
        for r in 0..n_rows {
            finish(r, c0, &out[r * width + c0..r * width + c1]);
        }
    });
}

/// The rows of a [`DenseKernel`].
#[derive(Debug, Clone)]
enum Store<'a> {
    /// The `f64` rows (with, in [`DenseKernel::single`], their `f32` copy when they have one).
    Double(DenseRows<'a>),
    /// Only the `f32` copy, in [`DenseKernel::single`], with the rows' norms: the `f64` rows are
    /// those values widened (exactly), so a subset of rows that is read row-major in `f32`
    /// never gathers them ([`crate::RowFacts::kernel`]: gathering them for every one-vs-one
    /// pair cost a share of the fit and the page faults of the fresh copies; measurements:
    /// `docs/performance.md`, "One-vs-one row facts").
    Single { n_features: usize, sq_norms: Vec<f64> },
}

/// A kernel function over dense rows.
#[derive(Debug, Clone)]
pub struct DenseKernel<'a> {
    rows: Store<'a>,
    function: KernelFunction,
    /// The rows again, feature-major over the features that are not zero in every row
    /// (`by_feature[k · n + t]` is feature `used[k]` of the row at position `t`), when rows are
    /// short ([`crate::plan::reads_feature_major`]): one to three columns are then computed by
    /// [`crate::feature_major::dot_feature_major`].
    by_feature: Option<FeatureMajor>,
    /// The rows again in `f32`, row-major, when they are read row-major and every value is
    /// exactly an `f32` (float32 input, pixels, counts, 0/1): a column of one to three rows then
    /// reads half the bytes, with bitwise the same values ([`crate::simd::RowValue`]).
    single: Option<Vec<f32>>,
    /// Whether one to three columns over `single` are summed in `f32`
    /// ([`DenseKernel::with_single_products`]) rather than widened to `f64`.
    single_products: bool,
    /// The rows as integer multiples of one quantum, when they sum in single precision and
    /// every value is one ([`crate::fixed_point`]): every column is then summed exactly over
    /// them, in 16-bit integers (and `single` may be absent: [`DenseKernel::fixed_only`]).
    fixed: Option<FixedRows>,
    /// The distinct rows, when the rows are narrow (feature-major) and often repeated: a wide
    /// enough column is then computed over them and gathered ([`DistinctRows`]).
    distinct: Option<DistinctRows>,
}

impl<'a> DenseKernel<'a> {
    /// Combines rows and a kernel function, validating the function's parameters.
    pub fn new(rows: DenseRows<'a>, function: KernelFunction) -> Result<Self, KernelError> {
        Self::with_single(rows, function, |rows| exactly_single(rows.rows(0, rows.n_rows())))
    }

    /// [`DenseKernel::new`] with the `f32` copy of row-major rows given by `single` (called
    /// only when the rows are read row-major), which must return what [`exactly_single`] would:
    /// [`crate::RowFacts`] gathers it from the copy of all the rows.
    pub(crate) fn with_single(
        rows: DenseRows<'a>,
        function: KernelFunction,
        single: impl FnOnce(&DenseRows<'a>) -> Option<Vec<f32>>,
    ) -> Result<Self, KernelError> {
        function.validate()?;
        let (n, d) = (rows.n_rows(), rows.n_features());
        let narrow = reads_feature_major(n, d);
        let (by_feature, distinct) = if narrow {
            // Two independent passes over the rows, on two threads when there are.
            let (by_feature, distinct) =
                rayon::join(|| FeatureMajor::new(&rows), || DistinctRows::find(&rows));
            (Some(by_feature), distinct)
        } else {
            (None, None)
        };
        let single = if !narrow && d > 0 { single(&rows) } else { None };
        Ok(DenseKernel {
            rows: Store::Double(rows),
            function,
            by_feature,
            single,
            single_products: false,
            fixed: None,
            distinct,
        })
    }

    /// The kernel over `n_rows` rows of `n_features` values given only in `f32` (`single`,
    /// row-major) with their norms `sq_norms` (summed over the `f64` values, as
    /// [`crate::dense::sq_norm`] does): what [`DenseKernel::new`] builds over the rows widened to
    /// `f64`, value for value, without keeping that copy. Only for rows read row-major
    /// ([`reads_feature_major`] false) with at least one feature.
    pub(crate) fn single_only(
        single: Vec<f32>,
        sq_norms: Vec<f64>,
        n_features: usize,
        function: KernelFunction,
    ) -> Result<Self, KernelError> {
        Self::row_major_only(Some(single), None, sq_norms, n_features, function)
    }

    /// The kernel over rows given only as integer multiples of one quantum (`fixed`, gathered
    /// from [`FixedRows::from_single`] of `f32` rows), with the norms `sq_norms` of those `f32`
    /// rows: what [`DenseKernel::single_only`] over the `f32` rows, then
    /// [`DenseKernel::with_single_products`]`(true)`, would compute, without the `f32` copy
    /// (every column is summed over the integers; the one-vs-one pairs would gather the `f32`
    /// rows for nothing). Only for rows read row-major, of at least one feature.
    pub(crate) fn fixed_only(
        fixed: FixedRows,
        sq_norms: Vec<f64>,
        n_features: usize,
        function: KernelFunction,
    ) -> Result<Self, KernelError> {
        Self::row_major_only(None, Some(fixed), sq_norms, n_features, function)
    }

    /// [`DenseKernel::single_only`] (`single`) or [`DenseKernel::fixed_only`] (`fixed`).
    fn row_major_only(
        single: Option<Vec<f32>>,
        fixed: Option<FixedRows>,
        sq_norms: Vec<f64>,
        n_features: usize,
        function: KernelFunction,
    ) -> Result<Self, KernelError> {
        function.validate()?;
        let n_rows = sq_norms.len();
        let n_values = match (&single, &fixed) {
            (Some(single), None) => single.len(),
            (None, Some(fixed)) => fixed.values.len(),
            _ => unreachable!("DenseKernel::row_major_only: the f32 rows or the integer rows"),
        };
        assert!(
            n_features > 0
                && n_values == n_rows * n_features
                && !reads_feature_major(n_rows, n_features),
            "DenseKernel: rows given only in f32 or as integers are read row-major, of at least \
             one feature"
        );
        Ok(DenseKernel {
            rows: Store::Single { n_features, sq_norms },
            function,
            by_feature: None,
            single,
            single_products: fixed.is_some(),
            fixed,
            distinct: None,
        })
    }

    /// Sums the inner products of one to three columns in `f32`
    /// ([`crate::single_products`]) when `enabled` and the kernel reads its rows in `f32`
    /// ([`DenseKernel::reads_single_precision`]): for float32 input, whose kernel values the
    /// cache stores in `f32` anyway. Otherwise (and for blocks of four rows or more, which go
    /// through the `f64` GEMM) every product is the `f64` one.
    ///
    /// When enabled and every value is an integer multiple of one quantum (pixels, counts;
    /// [`crate::fixed_point`]), every column, of any number of rows, is instead summed exactly
    /// over those integers ([`DenseKernel::sums_in_integers`]). A kernel without the `f32`
    /// copy is left as it is.
    pub fn with_single_products(mut self, enabled: bool) -> Self {
        if self.single.is_none() {
            // No f32 copy: nothing to change, unless the kernel has only integer rows
            // ([`DenseKernel::fixed_only`]), which it always sums over.
            return self;
        }
        self.single_products = enabled;
        self.fixed = match &self.single {
            Some(single) if enabled => FixedRows::from_single(single, self.n_features()),
            _ => None,
        };
        self
    }

    /// [`DenseKernel::with_single_products`]`(true)` with the rows' integer multiples `fixed`
    /// found by the caller ([`crate::RowFacts::kernel_with_single_products`]): they must be
    /// [`FixedRows::from_single`] of rows whose `f32` values are this kernel's.
    pub(crate) fn with_single_products_over(mut self, fixed: Option<FixedRows>) -> Self {
        self.single_products = self.single.is_some();
        self.fixed = fixed.filter(|_| self.single_products);
        self
    }

    /// Whether columns sum their inner products in `f32` ([`DenseKernel::with_single_products`]).
    pub fn sums_in_single_precision(&self) -> bool {
        self.single_products
    }

    /// Whether columns are summed exactly over the rows as integer multiples of one quantum
    /// ([`crate::fixed_point`]; only when they sum in single precision).
    pub fn sums_in_integers(&self) -> bool {
        self.fixed.is_some()
    }

    /// Whether columns read the rows in `f32` (every value is exactly an `f32`).
    pub fn reads_single_precision(&self) -> bool {
        self.single.is_some()
    }

    /// How many distinct rows columns are computed over, when repeated rows are computed once
    /// (`None`: every position is computed).
    pub fn distinct_rows(&self) -> Option<usize> {
        self.distinct.as_ref().map(|distinct| distinct.rows().n_rows())
    }

    /// The kernel function.
    pub fn function(&self) -> KernelFunction {
        self.function
    }

    /// The `f64` rows, in their current (possibly permuted) order; `None` for a kernel of
    /// [`crate::RowFacts::kernel`] that reads its rows in `f32` only (they are exactly those
    /// values; [`DenseKernel::new`] always keeps them).
    pub fn rows(&self) -> Option<&DenseRows<'a>> {
        match &self.rows {
            Store::Double(rows) => Some(rows),
            Store::Single { .. } => None,
        }
    }

    fn n_rows(&self) -> usize {
        self.sq_norms().len()
    }

    fn n_features(&self) -> usize {
        match &self.rows {
            Store::Double(rows) => rows.n_features(),
            Store::Single { n_features, .. } => *n_features,
        }
    }

    fn sq_norms(&self) -> &[f64] {
        match &self.rows {
            Store::Double(rows) => rows.sq_norms(),
            Store::Single { sq_norms, .. } => sq_norms,
        }
    }

    /// The `f64` values of the row at position `r` appended to `out`.
    fn extend_with_row(&self, r: usize, out: &mut Vec<f64>) {
        match (&self.rows, &self.single) {
            (Store::Double(rows), _) => out.extend_from_slice(rows.row(r)),
            (Store::Single { n_features: d, .. }, Some(single)) => {
                out.extend(single[r * d..(r + 1) * d].iter().map(|&v| f64::from(v)));
            }
            (Store::Single { .. }, None) => {
                unreachable!("a single-only kernel keeps its f32 rows; a fixed-only one sums over its integers")
            }
        }
    }
}

impl KernelSource for DenseKernel<'_> {
    fn len(&self) -> usize {
        self.n_rows()
    }

    fn diagonal_value(&self, i: usize) -> f64 {
        let norm = self.sq_norms()[i];
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
        let d = self.n_features();
        // Every column of a kernel with integer rows is summed over them: the left rows are
        // not needed in f64.
        let left_fixed: Option<Vec<i16>> = self
            .fixed
            .as_ref()
            .map(|fixed| rows.iter().flat_map(|&r| fixed.row(r, d)).copied().collect());
        let mut left = Vec::new();
        if left_fixed.is_none() {
            left.reserve(rows.len() * d);
            for &r in rows {
                self.extend_with_row(r, &mut left);
            }
        }
        let left_norms: Vec<f64> = rows.iter().map(|&r| self.sq_norms()[r]).collect();
        // Integer rows need the f32 copy, which only rows read row-major have; distinct rows
        // are only looked for in rows read feature-major.
        debug_assert!(left_fixed.is_none() || self.distinct.is_none());
        let through_distinct = |distinct: &&DistinctRows| distinct.pays_for(width, rows.len());
        if let Some(distinct) = self.distinct.as_ref().filter(through_distinct) {
            let left: Vec<&[f64]> = left.chunks_exact(d).collect();
            let mut over_distinct = vec![0.0; rows.len() * distinct.rows().n_rows()];
            distinct.columns(&left, &left_norms, self.function, &mut over_distinct);
            distinct.gather(&over_distinct, start, end, out, finish);
            return;
        }
        let left_used = self.by_feature.as_ref().map(|by_feature| by_feature.left(&left, d));
        let left_single: Option<Vec<f32>> = match &self.single {
            Some(single)
                if self.single_products && left_fixed.is_none() && rows.len() < GEMM_MIN_ROWS =>
            {
                Some(rows.iter().flat_map(|&r| &single[r * d..(r + 1) * d]).copied().collect())
            }
            _ => None,
        };
        let block = Block {
            left: &left,
            left_single: left_single.as_deref(),
            left_norms: &left_norms,
            right: Right {
                sq_norms: self.sq_norms(),
                double: self.rows().map(|rows| rows.rows(0, rows.n_rows())),
            },
            right_by_feature: self.by_feature.as_ref().zip(left_used.as_deref()).map(
                |(by_feature, left)| (by_feature.values.as_slice(), left, by_feature.used.len()),
            ),
            right_single: self.single.as_deref(),
            fixed: self
                .fixed
                .as_ref()
                .zip(left_fixed.as_deref())
                .map(|(fixed, left)| (left, fixed.values.as_slice(), fixed.quantum_sq)),
            right_offset: start,
            function: self.function,
            n_features: d,
        };
        block.compute(width, out, finish);
    }

    fn shares_passes(&self) -> bool {
        self.by_feature.is_none() && self.n_features() >= SHARED_PASS_MIN_FEATURES
    }

    fn known_positive_semidefinite(&self) -> Option<bool> {
        Some(self.function.positive_semidefinite())
    }

    fn path(&self) -> KernelPath {
        if self.distinct.is_some() {
            KernelPath::DenseDistinctRows
        } else if self.by_feature.is_some() {
            KernelPath::DenseFeatureMajor
        } else if self.fixed.is_some() {
            KernelPath::FixedPointI16
        } else if self.single.is_some() && self.single_products {
            KernelPath::DenseF32Products
        } else if self.single.is_some() {
            KernelPath::DenseF32
        } else {
            KernelPath::DenseF64
        }
    }

    fn bitwise_rows(&self) -> usize {
        SHARED_PASS_ROWS
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        let (n, d) = (self.n_rows(), self.n_features());
        match &mut self.rows {
            Store::Double(rows) => rows.swap_rows(i, j),
            Store::Single { sq_norms, .. } => sq_norms.swap(i, j),
        }
        if let Some(single) = &mut self.single {
            swap_row_slices(single, i, j, d);
        }
        if let Some(fixed) = &mut self.fixed {
            swap_row_slices(&mut fixed.values, i, j, d);
        }
        if let Some(distinct) = &mut self.distinct {
            distinct.swap_index(i, j);
        }
        if let Some(by_feature) = &mut self.by_feature {
            for k in 0..by_feature.used.len() {
                by_feature.values.swap(k * n + i, k * n + j);
            }
        }
    }
}

/// `values` in `f32` when every one is exactly an `f32` (`None` at the first that is not).
pub(crate) fn exactly_single(values: &[f64]) -> Option<Vec<f32>> {
    let mut single = vec![0.0; values.len()];
    narrow_exactly(values, &mut single).then_some(single)
}

/// Writes `values` in `f32` to `single` (the same length); `false` at the first value that is
/// not exactly an `f32` (the rest of `single` is then left as it was).
pub(crate) fn narrow_exactly(values: &[f64], single: &mut [f32]) -> bool {
    for (narrowed, &v) in single.iter_mut().zip(values) {
        *narrowed = v as f32;
        if f64::from(*narrowed) != v {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests;
