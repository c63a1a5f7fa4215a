//! `CachedColumns`: columns `K[:, i]` of a kernel matrix in `f64` from the shared LRU
//! [`RowCache`], for the solvers whose stopping rules need more digits than SMO's `f32` columns
//! (GSMO down to 1e-8 and below, sparse KLR's τ = 1e-5 on logarithmic gradients).

use kernelkit_kernels::{CacheStats, KernelSource, RowCache};

/// A kernel source with an `f64` column cache and its diagonal.
#[derive(Debug)]
pub(crate) struct CachedColumns<K> {
    kernel: K,
    cache: RowCache<f64>,
    diagonal: Vec<f64>,
}

impl<K: KernelSource> CachedColumns<K> {
    pub(crate) fn new(kernel: K, cache_bytes: usize) -> Self {
        let n = kernel.len();
        let diagonal = (0..n).map(|i| kernel.diagonal_value(i)).collect();
        CachedColumns { kernel, cache: RowCache::new(n, cache_bytes), diagonal }
    }

    /// The kernel source.
    pub(crate) fn kernel(&self) -> &K {
        &self.kernel
    }

    /// `K_ii` for every point.
    pub(crate) fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    fn fill(&mut self, i: usize, pinned: Option<usize>) {
        let n = self.diagonal.len();
        let (column, start) = self.cache.get(i, n, pinned);
        if start < n {
            self.kernel.fill_block(&[i], start, n, &mut column[start..]);
        }
    }

    /// `K[:, i]` and the diagonal.
    pub(crate) fn column(&mut self, i: usize) -> (&[f64], &[f64]) {
        self.fill(i, None);
        (self.cache.peek(i, self.diagonal.len()), &self.diagonal)
    }

    /// Columns `K[:, i]` and `K[:, j]` together.
    pub(crate) fn pair(&mut self, i: usize, j: usize) -> (&[f64], &[f64]) {
        let (column_i, column_j, _) = self.pair_and_kernel(i, j);
        (column_i, column_j)
    }

    /// Columns `K[:, i]` and `K[:, j]` together, with the kernel source.
    pub(crate) fn pair_and_kernel(&mut self, i: usize, j: usize) -> (&[f64], &[f64], &K) {
        let n = self.diagonal.len();
        self.fill(i, None);
        self.fill(j, Some(i));
        (self.cache.peek(i, n), self.cache.peek(j, n), &self.kernel)
    }

    /// Cache counters.
    pub(crate) fn stats(&self) -> CacheStats {
        self.cache.stats()
    }
}
