//! Columns of the Gram matrix `K = XXᵀ` for the α and α* pair steps of GSMO, from the shared
//! LRU [`RowCache`](kernelkit_kernels::RowCache) (in `f64`: the solver's stopping rule goes down to 1e-8 and below).
//!
//! A pair step updates `Xβ` either from two Gram columns (O(n) once cached, O(np) each to
//! compute) or directly as `X Δβ` (O(np), one streaming pass). Columns pay off only when they
//! are reused; [`GramColumns::rows_and_pair`] gives columns only when the whole Gram matrix fits
//! in the budget. When it does not, the working pairs of GSMO touch more distinct points than the
//! cache holds (most column requests miss; measurements: `docs/performance.md`, "GSMO's Gram
//! columns"), and the direct update is cheaper than computing two columns.

use kernelkit_kernels::{CacheStats, CachedColumns, DenseKernel, DenseRows, KernelFunction};

use crate::protocol::SolveError;

/// Two columns of `K`.
pub(crate) type ColumnPair<'c> = (&'c [f64], &'c [f64]);

/// The rows of a kernel built by [`DenseKernel::new`], which keeps them in `f64`.
fn f64_rows<'k, 'a>(kernel: &'k DenseKernel<'a>) -> &'k DenseRows<'a> {
    kernel.rows().expect("DenseKernel::new keeps the f64 rows")
}

/// `K = XXᵀ` by cached columns.
#[derive(Debug)]
pub(crate) struct GramColumns<'a> {
    columns: CachedColumns<DenseKernel<'a>>,
    worth_caching: bool,
}

impl<'a> GramColumns<'a> {
    pub(crate) fn new(rows: DenseRows<'a>, cache_bytes: usize) -> Result<Self, SolveError> {
        let n = rows.n_rows();
        let kernel = DenseKernel::new(rows, KernelFunction::Linear)?;
        let worth_caching =
            n.saturating_mul(n).saturating_mul(std::mem::size_of::<f64>()) <= cache_bytes;
        Ok(GramColumns { columns: CachedColumns::plain(kernel, cache_bytes), worth_caching })
    }

    /// The training rows.
    pub(crate) fn kernel_path(&self) -> kernelkit_kernels::KernelPath {
        kernelkit_kernels::KernelSource::path(self.columns.kernel())
    }

    pub(crate) fn rows(&self) -> &DenseRows<'a> {
        f64_rows(self.columns.kernel())
    }

    /// `K_ii = ‖x_i‖²`.
    pub(crate) fn diagonal(&self, i: usize) -> f64 {
        self.columns.diagonal()[i]
    }

    /// The training rows and, when the whole Gram matrix fits in the cache budget (then pair
    /// steps use columns), the columns `K[:, i]` and `K[:, j]`.
    pub(crate) fn rows_and_pair(
        &mut self,
        i: usize,
        j: usize,
    ) -> (&DenseRows<'a>, Option<ColumnPair<'_>>) {
        if self.worth_caching {
            let (column_i, column_j, kernel) = self.columns.pair_and_kernel(i, j);
            (f64_rows(kernel), Some((column_i, column_j)))
        } else {
            (f64_rows(self.columns.kernel()), None)
        }
    }

    pub(crate) fn stats(&self) -> CacheStats {
        self.columns.cache_stats()
    }
}
