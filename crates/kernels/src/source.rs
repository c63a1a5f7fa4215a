//! Kernel sources: [`KernelSource`], a symmetric kernel matrix whose entries are computed on
//! demand by position, and [`DenseKernel`], the source over dense rows: one generic
//! [`Kernel`] ([`crate::row_store`]) over the representation of [`crate::dense_stores`] that
//! [`crate::plan`](mod@crate::plan) chooses (feature-major copies of narrow rows, `f32` copies of rows that are
//! exactly `f32`, integer multiples, repeated rows computed once).

use crate::dense::DenseRows;
use crate::dense_stores::{
    F32Rows, F64Rows, FeatureMajorRows, FixedPointRows, Rows, GEMM_MIN_ROWS,
};
use crate::error::KernelError;
use crate::fixed_point::FixedRows;
use crate::function::KernelFunction;
use crate::parallel::for_column_chunks;
use crate::plan::{reads_feature_major, KernelPath};
use crate::row_store::{forward_kernel_source, Kernel};

/// At most this many rows share one pass of [`KernelSource::shares_passes`] (below
/// `GEMM_MIN_ROWS`, so every value is a dot product summed as for a single row).
pub const SHARED_PASS_ROWS: usize = GEMM_MIN_ROWS - 1;

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

    /// How the values are computed ([`crate::plan`](mod@crate::plan)); sources defined elsewhere are
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

/// A kernel function over dense rows, in the representation [`crate::plan`](mod@crate::plan) chooses for them:
/// one [`Kernel`] over one of the stores of [`crate::dense_stores`].
#[derive(Debug, Clone)]
pub struct DenseKernel<'a>(Dense<'a>);

#[derive(Debug, Clone)]
enum Dense<'a> {
    F64(Kernel<F64Rows<'a>>),
    F32(Kernel<F32Rows<'a>>),
    FixedPoint(Kernel<FixedPointRows<'a>>),
    FeatureMajor(Kernel<FeatureMajorRows<'a>>),
}

forward_kernel_source!(DenseKernel, Dense { F64, F32, FixedPoint, FeatureMajor });

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
        let d = rows.n_features();
        let dense = if reads_feature_major(rows.n_rows(), d) {
            Dense::FeatureMajor(Kernel::new(FeatureMajorRows::new(rows), function)?)
        } else {
            match (d > 0).then(|| single(&rows)).flatten() {
                Some(single) => Dense::F32(Kernel::new(
                    F32Rows::new(Rows::Double(rows), single, false),
                    function,
                )?),
                None => Dense::F64(Kernel::new(F64Rows::new(rows), function)?),
            }
        };
        Ok(DenseKernel(dense))
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
        let rows = norms_only(sq_norms, n_features, "single_only");
        Ok(DenseKernel(Dense::F32(Kernel::new(F32Rows::new(rows, single, false), function)?)))
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
        let rows = norms_only(sq_norms, n_features, "fixed_only");
        Ok(DenseKernel(Dense::FixedPoint(Kernel::new(FixedPointRows::new(rows, fixed), function)?)))
    }

    /// Sums the inner products of one to three columns in `f32`
    /// ([`crate::single_products`]) when `enabled` and the kernel reads its rows in `f32`
    /// ([`DenseKernel::reads_single_precision`]): for float32 input, whose kernel values the
    /// cache stores in `f32` anyway. Otherwise (and for blocks of four rows or more, which go
    /// through the `f64` GEMM) every product is the `f64` one.
    ///
    /// When enabled and every value is an integer multiple of one quantum (pixels, counts;
    /// [`crate::fixed_point`]), every column, of any number of rows, is instead summed exactly
    /// over those integers ([`DenseKernel::sums_in_integers`]), and the `f32` copy is dropped.
    /// A kernel without the `f32` copy (or already summing over integers) is left as it is.
    pub fn with_single_products(self, enabled: bool) -> Self {
        match self.0 {
            Dense::F32(kernel) => {
                let fixed = if enabled {
                    let d = kernel.store().rows().n_features();
                    FixedRows::from_single(kernel.store().single(), d)
                } else {
                    None
                };
                Self::summing_over(kernel, enabled, fixed)
            }
            other => DenseKernel(other),
        }
    }

    /// [`DenseKernel::with_single_products`]`(true)` with the rows' integer multiples `fixed`
    /// found by the caller ([`crate::RowFacts::kernel_with_single_products`]): they must be
    /// [`FixedRows::from_single`] of rows whose `f32` values are this kernel's.
    pub(crate) fn with_single_products_over(self, fixed: Option<FixedRows>) -> Self {
        match self.0 {
            Dense::F32(kernel) => Self::summing_over(kernel, true, fixed),
            other => DenseKernel(other),
        }
    }

    /// The kernel over `kernel`'s rows summing over `fixed` when there are (dropping the `f32`
    /// copy), else in `f32` when `in_f32`, else in `f64`.
    fn summing_over(kernel: Kernel<F32Rows<'a>>, in_f32: bool, fixed: Option<FixedRows>) -> Self {
        let function = kernel.function();
        let (rows, single) = kernel.into_store().into_parts();
        let dense = match fixed {
            Some(fixed) => {
                Dense::FixedPoint(Kernel::validated(FixedPointRows::new(rows, fixed), function))
            }
            None => Dense::F32(Kernel::validated(F32Rows::new(rows, single, in_f32), function)),
        };
        DenseKernel(dense)
    }

    /// Whether columns sum their inner products in `f32` ([`DenseKernel::with_single_products`]).
    pub fn sums_in_single_precision(&self) -> bool {
        match &self.0 {
            Dense::F32(kernel) => kernel.store().sums_in_f32(),
            Dense::FixedPoint(_) => true,
            _ => false,
        }
    }

    /// Whether columns are summed exactly over the rows as integer multiples of one quantum
    /// ([`crate::fixed_point`]; only when they sum in single precision).
    pub fn sums_in_integers(&self) -> bool {
        matches!(self.0, Dense::FixedPoint(_))
    }

    /// Whether columns read the rows in less than `f64` (every value is exactly an `f32`).
    pub fn reads_single_precision(&self) -> bool {
        matches!(self.0, Dense::F32(_) | Dense::FixedPoint(_))
    }

    /// How many distinct rows columns are computed over, when repeated rows are computed once
    /// (`None`: every position is computed).
    pub fn distinct_rows(&self) -> Option<usize> {
        match &self.0 {
            Dense::FeatureMajor(kernel) => {
                kernel.store().distinct().map(|distinct| distinct.rows().n_rows())
            }
            _ => None,
        }
    }

    /// The kernel function.
    pub fn function(&self) -> KernelFunction {
        match &self.0 {
            Dense::F64(kernel) => kernel.function(),
            Dense::F32(kernel) => kernel.function(),
            Dense::FixedPoint(kernel) => kernel.function(),
            Dense::FeatureMajor(kernel) => kernel.function(),
        }
    }

    /// The `f64` rows, in their current (possibly permuted) order; `None` for a kernel of
    /// [`crate::RowFacts::kernel`] that reads its rows in `f32` or as integers only (they are
    /// exactly those values; [`DenseKernel::new`] always keeps them).
    pub fn rows(&self) -> Option<&DenseRows<'a>> {
        match &self.0 {
            Dense::F64(kernel) => Some(kernel.store().rows()),
            Dense::F32(kernel) => kernel.store().rows().double(),
            Dense::FixedPoint(kernel) => kernel.store().rows().double(),
            Dense::FeatureMajor(kernel) => Some(kernel.store().rows()),
        }
    }
}

#[cfg(test)]
impl DenseKernel<'_> {
    /// The feature-major store's features kept (tests).
    pub(crate) fn used_features(&self) -> Option<&[usize]> {
        match &self.0 {
            Dense::FeatureMajor(kernel) => Some(kernel.store().used_features()),
            _ => None,
        }
    }

    /// The feature-major store changed by `change` (tests).
    pub(crate) fn map_feature_major(
        self,
        change: impl FnOnce(FeatureMajorRows<'_>) -> FeatureMajorRows<'_>,
    ) -> Self {
        match self.0 {
            Dense::FeatureMajor(kernel) => {
                let function = kernel.function();
                let store = change(kernel.into_store());
                DenseKernel(Dense::FeatureMajor(Kernel::validated(store, function)))
            }
            other => DenseKernel(other),
        }
    }
}

/// Rows known only by their norms, for `who` ([`DenseKernel::single_only`],
/// [`DenseKernel::fixed_only`]), which must read them row-major.
fn norms_only(sq_norms: Vec<f64>, n_features: usize, who: &str) -> Rows<'static> {
    assert!(!reads_feature_major(sq_norms.len(), n_features), "{who}: rows read row-major");
    Rows::NormsOnly { n_features, sq_norms }
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
