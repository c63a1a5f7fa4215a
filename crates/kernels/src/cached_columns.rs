//! `CachedColumns`: the one cached-column type. Columns of a kernel matrix, or of a matrix
//! defined entry by entry from it ([`EntryMap`]), from the shared LRU [`RowCache`], stored as
//! `f64` or `f32` (`T`). Every solver reads its Hessian through it, by way of a map:
//!
//! | map | `Q_it` | stored | solvers |
//! |---|---|---|---|
//! | [`Plain`] | `K_it` | `f64` | sparse KLR, GSMO, AID's aggregated kernel |
//! | [`Meb`] ([`MebQ`]) | `y_i y_t (K_it + 1) + δ_it / C` | `f64` | Frank–Wolfe |
//! | [`Signs`] ([`SignedQ`]) | `s_i s_t K_it` | `f32` | SMO (C-SVC, ν-SVC, one-class with unit signs), USMO |
//! | [`Plain`], `f32` | `K_it` by point | `f32` | [`crate::SvrQ`]'s kernel rows, doubled to `2l × 2l` |
//!
//! The `f64` columns serve the solvers whose stopping rules need more digits than SMO's `f32`
//! columns: sparse KLR (its `τ = 1e-5` on logarithmic gradients), GSMO (tolerances of 1e-8 and
//! below), Frank–Wolfe (below). The `f32` columns are LIBSVM's `Qfloat`, with the SMO solvers'
//! fused passes ([`crate::QMatrixPasses`], in `signed_q.rs`).
//!
//! A column is asked for over a prefix `0..len` of the positions; positions can be exchanged
//! ([`CachedColumns::swap_index`]) so that a solver keeps the points it works on in that prefix
//! (SMO's active set, Frank–Wolfe's basis), and the cache extends its partial columns as the
//! prefix grows.
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

use std::mem::MaybeUninit;

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

/// `Q_it = s_i s_t K_it` for signs `s_i ∈ {−1, +1}`: the C-SVC and ν-SVC Hessian (labels), and
/// with unit signs the kernel itself (one-class, user-given matrices). `Q_ii = K_ii`.
#[derive(Debug, Clone)]
pub struct Signs {
    pub(crate) signs: Vec<f64>,
}

impl EntryMap for Signs {
    fn diagonal(&self, _i: usize, k_ii: f64) -> f64 {
        k_ii
    }

    fn apply(&self, i: usize, first: usize, values: &mut [f64]) {
        let s_i = self.signs[i];
        for (value, &s_t) in values.iter_mut().zip(&self.signs[first..]) {
            *value *= s_i * s_t;
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.signs.swap(i, j);
    }
}

/// Columns of `map(K)` over a kernel source, cached as `T` (see the module documentation).
#[derive(Debug)]
pub struct CachedColumns<K, M = Plain, T = f64> {
    pub(crate) kernel: K,
    pub(crate) map: M,
    diagonal: Vec<f64>,
    pub(crate) cache: RowCache<T>,
    /// The `f64` kernel values of a block before they are stored as `T` (`f32` columns).
    pub(crate) scratch: Vec<f64>,
    /// Columns computed outside the cache (`f32` columns' passes over many columns).
    pub(crate) block: Vec<MaybeUninit<T>>,
}

/// Frank–Wolfe's modified kernel.
pub type MebQ<K> = CachedColumns<K, Meb>;

/// `Q_ij = s_i s_j K_ij` in `f32`: the SMO solvers' Hessian (`signed_q.rs` has its passes).
pub type SignedQ<K> = CachedColumns<K, Signs, f32>;

impl<K: KernelSource, M: EntryMap, T: Copy + Default> CachedColumns<K, M, T> {
    /// `map(K)` cached in `cache` (one column slot per position of `kernel`).
    ///
    /// # Panics
    /// If the cache and the kernel have different lengths.
    pub fn with_cache(kernel: K, map: M, cache: RowCache<T>) -> Self {
        let n = kernel.len();
        assert_eq!(cache.len(), n, "CachedColumns: one cache column per position");
        let diagonal = (0..n).map(|i| map.diagonal(i, kernel.diagonal_value(i))).collect();
        CachedColumns { kernel, map, diagonal, cache, scratch: Vec::new(), block: Vec::new() }
    }

    /// Number of positions.
    pub fn size(&self) -> usize {
        self.diagonal.len()
    }

    /// `Q_ii` for every position.
    pub fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    /// The kernel source, in its current position order.
    pub fn kernel(&self) -> &K {
        &self.kernel
    }

    /// Whether `Q[0..len, i]` is cached.
    pub fn is_cached(&self, i: usize, len: usize) -> bool {
        self.cache.cached_len(i) >= len
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

impl<K: KernelSource> SignedQ<K> {
    /// `y_i y_j K_ij`, for labels `y_i ∈ {−1, +1}`; `cache_bytes` bounds the column cache.
    ///
    /// # Panics
    /// If `signs` and the kernel have different lengths.
    pub fn new(kernel: K, signs: Vec<f64>, cache_bytes: usize) -> Self {
        assert_eq!(kernel.len(), signs.len(), "SignedQ: one sign per point");
        let cache = RowCache::new(kernel.len(), cache_bytes).with_loose_fit();
        Self::with_cache(kernel, Signs { signs }, cache)
    }

    /// `K_ij` itself (all signs +1): the one-class matrix, or a user-given `Q`.
    pub fn unsigned(kernel: K, cache_bytes: usize) -> Self {
        let n = kernel.len();
        Self::new(kernel, vec![1.0; n], cache_bytes)
    }
}

impl<K: KernelSource> CachedColumns<K, Plain> {
    /// The kernel's own columns under a cache of `cache_bytes`.
    pub fn plain(kernel: K, cache_bytes: usize) -> Self {
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
        let cache = RowCache::new(kernel.len(), cache_bytes).with_growth(growth);
        Self::with_cache(kernel, map, cache)
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
}

#[cfg(test)]
mod tests;
