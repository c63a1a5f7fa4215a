//! Columns of the Gram matrix `K = XXᵀ` for the α and α* pair steps of GSMO, from the shared
//! LRU [`RowCache`] (in `f64`: the solver's stopping rule goes down to 1e-8 and below).

use kernelkit_kernels::{
    CacheStats, DenseKernel, DenseRows, KernelFunction, KernelSource, RowCache,
};

use crate::protocol::SolveError;

/// `K = XXᵀ` by cached columns.
#[derive(Debug)]
pub(crate) struct GramColumns<'a> {
    kernel: DenseKernel<'a>,
    cache: RowCache<f64>,
}

impl<'a> GramColumns<'a> {
    pub(crate) fn new(rows: DenseRows<'a>, cache_bytes: usize) -> Result<Self, SolveError> {
        let n = rows.n_rows();
        let kernel = DenseKernel::new(rows, KernelFunction::Linear)?;
        Ok(GramColumns { kernel, cache: RowCache::new(n, cache_bytes) })
    }

    /// The training rows.
    pub(crate) fn rows(&self) -> &DenseRows<'a> {
        self.kernel.rows()
    }

    /// `K_ii = ‖x_i‖²`.
    pub(crate) fn diagonal(&self, i: usize) -> f64 {
        self.kernel.diagonal_value(i)
    }

    fn fill(&mut self, i: usize, pinned: Option<usize>) {
        let n = self.kernel.len();
        let (column, start) = self.cache.get(i, n, pinned);
        if start < n {
            self.kernel.fill_block(&[i], start, n, &mut column[start..]);
        }
    }

    /// Columns `K[:, i]` and `K[:, j]` together.
    pub(crate) fn pair(&mut self, i: usize, j: usize) -> (&[f64], &[f64]) {
        let n = self.kernel.len();
        self.fill(i, None);
        self.fill(j, Some(i));
        (self.cache.peek(i, n), self.cache.peek(j, n))
    }

    pub(crate) fn stats(&self) -> CacheStats {
        self.cache.stats()
    }
}
