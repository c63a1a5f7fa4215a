//! `CachedColumns`: `f64` columns of a kernel matrix, or of a matrix defined entry by entry from
//! it ([`EntryMap`]), from the shared LRU [`RowCache`]. One type for the solvers whose stopping
//! rules need more digits than SMO's `f32` columns ([`crate::QMatrix`]): sparse KLR (its
//! `τ = 1e-5` on logarithmic gradients), GSMO (tolerances of 1e-8 and below), AID's aggregated
//! kernel, and Frank–Wolfe's modified kernel ([`Meb`]).
//!
//! A column is asked for over a prefix `0..len` of the positions; positions can be exchanged
//! ([`CachedColumns::swap_index`]) so that a solver keeps the points it works on in that prefix
//! (Frank–Wolfe's basis), and the cache extends its partial columns as the prefix grows.
//!
//! ## The L2-SVM's modified kernel ([`Meb`])
//!
//! Frandi, Ñanculef, Gasparo, Lodi & Sartori, "Training Support Vector Machines Using
//! Frank-Wolfe Optimization Methods", eq. (18) (digest `papers/seed-002-frank-wolfe.md` §1.3):
//!
//! ```text
//! k̃_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C
//! ```
//!
//! (the paper's `1/√c` in the explicit feature map is a typo for `1/√C`, digest P5). Its
//! columns are cached in `f64`: the Frank–Wolfe stopping rule is relative with `ε = 1e-6` (a
//! threshold `≈ 2e-6·r²`), which an `f32` cache would leave with about one decade of headroom
//! (digest P15). [`CachedColumns::uncached_columns`] computes columns for points that are only
//! looked at once (the random sample of a sampled search) as one kernel block, without
//! evicting anything.

use crate::cache::{CacheStats, Growth, RowCache};
use crate::source::KernelSource;

/// The entries of a cached matrix in terms of the kernel's: `Q_it = f(i, t, K_it)`.
pub trait EntryMap: Send {
    /// `Q_ii` from `K_ii`.
    fn diagonal(&self, i: usize, k_ii: f64) -> f64;
    /// `values[s] ← Q_{i, first + s}` from `values[s] = K_{i, first + s}`.
    fn apply(&self, i: usize, first: usize, values: &mut [f64]);
    /// Exchanges what the map keeps of positions `i` and `j`.
    fn swap(&mut self, i: usize, j: usize);
}

/// The kernel matrix itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl EntryMap for Plain {
    fn diagonal(&self, _i: usize, k_ii: f64) -> f64 {
        k_ii
    }
    fn apply(&self, _i: usize, _first: usize, _values: &mut [f64]) {}
    fn swap(&mut self, _i: usize, _j: usize) {}
}

/// `k̃_it = y_i y_t (k_it + 1) + δ_it / C`, the L2-SVM's modified kernel (module docs).
#[derive(Debug, Clone)]
pub struct Meb {
    signs: Vec<f64>,
    inverse_c: f64,
}

impl EntryMap for Meb {
    fn diagonal(&self, _i: usize, k_ii: f64) -> f64 {
        k_ii + 1.0 + self.inverse_c
    }

    fn apply(&self, i: usize, first: usize, values: &mut [f64]) {
        let y_i = self.signs[i];
        let signs = &self.signs[first..first + values.len()];
        for (value, &y_t) in values.iter_mut().zip(signs) {
            *value = y_i * y_t * (*value + 1.0);
        }
        if let Some(diagonal) = i.checked_sub(first).and_then(|s| values.get_mut(s)) {
            *diagonal += self.inverse_c;
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.signs.swap(i, j);
    }
}

/// `f64` columns of `map(K)` over a kernel source, cached (see the module documentation).
#[derive(Debug)]
pub struct CachedColumns<K, M = Plain> {
    kernel: K,
    map: M,
    diagonal: Vec<f64>,
    cache: RowCache<f64>,
}

/// Frank–Wolfe's modified kernel.
pub type MebQ<K> = CachedColumns<K, Meb>;

impl<K: KernelSource> CachedColumns<K, Plain> {
    /// The kernel's columns under a cache of `cache_bytes`.
    pub fn new(kernel: K, cache_bytes: usize) -> Self {
        Self::with_map(kernel, Plain, cache_bytes, Growth::default())
    }

    /// `K[:, i]` (over every position) and the diagonal.
    pub fn column_and_diagonal(&mut self, i: usize) -> (&[f64], &[f64]) {
        let n = self.size();
        self.column(i, n);
        (self.cache.peek(i, n), &self.diagonal)
    }

    /// Columns `K[:, i]` and `K[:, j]` (over every position) together, with the kernel source.
    pub fn pair_and_kernel(&mut self, i: usize, j: usize) -> (&[f64], &[f64], &K) {
        let n = self.size();
        self.fill(i, n, None);
        self.fill(j, n, Some(i));
        (self.cache.peek(i, n), self.cache.peek(j, n), &self.kernel)
    }
}

impl<K: KernelSource> CachedColumns<K, Meb> {
    /// The modified kernel for labels `y_i ∈ {−1, +1}` and the L2-SVM's `C > 0` (`C = ∞` drops
    /// the `δ_ij / C` term); `cache_bytes` bounds the column cache, which grows partial columns
    /// geometrically (a sampled search extends them by one basis position at a time).
    ///
    /// # Panics
    /// If `signs` and the kernel have different lengths.
    pub fn modified(kernel: K, signs: Vec<f64>, c: f64, cache_bytes: usize) -> Self {
        assert_eq!(kernel.len(), signs.len(), "MebQ: one sign per point");
        Self::with_map(kernel, Meb { signs, inverse_c: 1.0 / c }, cache_bytes, Growth::Geometric)
    }

    /// The label of each position.
    pub fn signs(&self) -> &[f64] {
        &self.map.signs
    }
}

impl<K: KernelSource, M: EntryMap> CachedColumns<K, M> {
    /// `map(K)` under a cache of `cache_bytes` that extends partial columns by `growth`.
    pub fn with_map(kernel: K, map: M, cache_bytes: usize, growth: Growth) -> Self {
        let n = kernel.len();
        let diagonal = (0..n).map(|i| map.diagonal(i, kernel.diagonal_value(i))).collect();
        let cache = RowCache::new(n, cache_bytes).with_growth(growth);
        CachedColumns { kernel, map, diagonal, cache }
    }

    /// Number of positions.
    pub fn size(&self) -> usize {
        self.diagonal.len()
    }

    /// `Q_ii` for every position.
    pub fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    /// The kernel source.
    pub fn kernel(&self) -> &K {
        &self.kernel
    }

    /// Computes the missing part of `Q[0..len, i]` into the cache (`pinned` stays resident).
    fn fill(&mut self, i: usize, len: usize, pinned: Option<usize>) {
        let (column, start) = self.cache.get(i, len, pinned);
        if start < len {
            let missing = &mut column[start..len];
            self.kernel.fill_block(&[i], start, len, missing);
            self.map.apply(i, start, missing);
        }
    }

    /// `Q[0..len, i]`, from the cache (computing the missing part).
    pub fn column(&mut self, i: usize, len: usize) -> &[f64] {
        self.fill(i, len, None);
        self.cache.peek(i, len)
    }

    /// `Q[0..len, i]` and `Q[0..len, j]` together.
    pub fn pair(&mut self, i: usize, j: usize, len: usize) -> (&[f64], &[f64]) {
        self.fill(i, len, None);
        self.fill(j, len, Some(i));
        (self.cache.peek(i, len), self.cache.peek(j, len))
    }

    /// Whether `Q[0..len, i]` is cached.
    pub fn is_cached(&self, i: usize, len: usize) -> bool {
        self.cache.cached_len(i) >= len
    }

    /// `out[r·len + t] = Q(indices[r], t)` for `t < len`, computed as one kernel block and not
    /// cached. `out` must hold `indices.len() · len` values.
    ///
    /// # Panics
    /// If `out` has the wrong length.
    pub fn uncached_columns(&mut self, indices: &[usize], len: usize, out: &mut [f64]) {
        assert_eq!(out.len(), indices.len() * len, "uncached_columns: output length");
        if len == 0 {
            return;
        }
        self.kernel.fill_block(indices, 0, len, out);
        for (&i, values) in indices.iter().zip(out.chunks_exact_mut(len)) {
            self.map.apply(i, 0, values);
        }
    }

    /// Exchanges positions `i` and `j` (kernel rows, the map's data, diagonal and cache).
    pub fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        self.cache.swap_index(i, j);
        self.kernel.swap_index(i, j);
        self.map.swap(i, j);
        self.diagonal.swap(i, j);
    }

    /// Counters of the column cache.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }
}

#[cfg(test)]
mod tests;
