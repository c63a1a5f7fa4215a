//! `MebQ`: the modified kernel of the L2-SVM as a minimum-enclosing-ball problem (Frandi,
//! Ñanculef, Gasparo, Lodi & Sartori, "Training Support Vector Machines Using Frank-Wolfe
//! Optimization Methods", eq. (18); digest `papers/seed-002-frank-wolfe.md` §1.3):
//!
//! ```text
//! k̃_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C
//! ```
//!
//! (the paper's `1/√c` in the explicit feature map is a typo for `1/√C`, digest P5).
//!
//! Columns `k̃[0..len, i]` come from the shared LRU [`RowCache`], stored in `f64`: the
//! Frank–Wolfe stopping rule is relative with `ε = 1e-6` (a threshold `≈ 2e-6·r²`), which an
//! `f32` cache would leave with about one decade of headroom (digest P15). Positions can be
//! exchanged ([`MebQ::swap_index`]) so that a solver keeps the points it has touched (its
//! *basis*) in a prefix `0..len` and asks for columns over that prefix only, extending the
//! cached prefixes as the basis grows ([`RowCache`]'s partial columns).
//!
//! [`MebQ::uncached_columns`] computes columns for points that are only looked at once (the
//! random sample of a sampled search) as one kernel block, without evicting anything.

use crate::cache::{CacheStats, Growth, RowCache};
use crate::source::KernelSource;

/// `k̃_ij = y_i y_j (k_ij + 1) + δ_ij / C` over a cached kernel source (see the module
/// documentation).
#[derive(Debug)]
pub struct MebQ<K> {
    kernel: K,
    signs: Vec<f64>,
    inverse_c: f64,
    diagonal: Vec<f64>,
    cache: RowCache<f64>,
    scratch: Vec<f64>,
}

impl<K: KernelSource> MebQ<K> {
    /// The modified kernel for labels `y_i ∈ {−1, +1}` and the L2-SVM's `C > 0`
    /// (`C = ∞` drops the `δ_ij / C` term); `cache_bytes` bounds the column cache.
    ///
    /// # Panics
    /// If `signs` and the kernel have different lengths.
    pub fn new(kernel: K, signs: Vec<f64>, c: f64, cache_bytes: usize) -> Self {
        assert_eq!(kernel.len(), signs.len(), "MebQ: one sign per point");
        let inverse_c = 1.0 / c;
        let diagonal =
            (0..kernel.len()).map(|i| kernel.diagonal_value(i) + 1.0 + inverse_c).collect();
        // A sampled search extends the cached columns by one basis position at a time.
        let cache = RowCache::new(kernel.len(), cache_bytes).with_growth(Growth::Geometric);
        MebQ { kernel, signs, inverse_c, diagonal, cache, scratch: Vec::new() }
    }

    /// Number of points.
    pub fn size(&self) -> usize {
        self.signs.len()
    }

    /// `k̃_ii` for every position.
    pub fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    /// The label of each position.
    pub fn signs(&self) -> &[f64] {
        &self.signs
    }

    /// `k̃[0..len, i]`, from the cache (computing the missing part).
    pub fn column(&mut self, i: usize, len: usize) -> &[f64] {
        let (column, start) = self.cache.get(i, len, None);
        if start < len {
            self.scratch.resize(len - start, 0.0);
            self.kernel.fill_block(&[i], start, len, &mut self.scratch);
            let y_i = self.signs[i];
            for (t, (value, &k)) in column[start..].iter_mut().zip(&self.scratch).enumerate() {
                let position = start + t;
                *value = y_i * self.signs[position] * (k + 1.0);
                if position == i {
                    *value += self.inverse_c;
                }
            }
        }
        self.cache.peek(i, len)
    }

    /// Whether `k̃[0..len, i]` is cached.
    pub fn is_cached(&self, i: usize, len: usize) -> bool {
        self.cache.cached_len(i) >= len
    }

    /// `out[r·len + t] = k̃(indices[r], t)` for `t < len`, computed as one kernel block and not
    /// cached. `out` must hold `indices.len() · len` values.
    ///
    /// # Panics
    /// If `out` has the wrong length.
    pub fn uncached_columns(&mut self, indices: &[usize], len: usize, out: &mut [f64]) {
        assert_eq!(out.len(), indices.len() * len, "MebQ::uncached_columns: output length");
        if len == 0 {
            return;
        }
        self.kernel.fill_block(indices, 0, len, out);
        for (&i, values) in indices.iter().zip(out.chunks_exact_mut(len)) {
            let y_i = self.signs[i];
            for (value, &y_t) in values.iter_mut().zip(&self.signs[..len]) {
                *value = y_i * y_t * (*value + 1.0);
            }
            if i < len {
                values[i] += self.inverse_c;
            }
        }
    }

    /// Exchanges positions `i` and `j` (kernel rows, labels, diagonal and cache).
    pub fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        self.cache.swap_index(i, j);
        self.kernel.swap_index(i, j);
        self.signs.swap(i, j);
        self.diagonal.swap(i, j);
    }

    /// Counters of the column cache.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DenseKernel, DenseRows, KernelFunction};

    fn kernel(values: &[f64], n: usize, d: usize) -> DenseKernel<'_> {
        DenseKernel::new(DenseRows::new(values, n, d).unwrap(), KernelFunction::Rbf { gamma: 0.7 })
            .unwrap()
    }

    fn naive(values: &[f64], d: usize, y: &[f64], c: f64, i: usize, j: usize) -> f64 {
        let sq: f64 = (0..d).map(|t| (values[i * d + t] - values[j * d + t]).powi(2)).sum::<f64>();
        let k = (-0.7 * sq).exp();
        y[i] * y[j] * (k + 1.0) + if i == j { 1.0 / c } else { 0.0 }
    }

    #[test]
    fn columns_are_the_modified_kernel_under_swaps() {
        let (n, d, c) = (11, 3, 4.0);
        let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.43).sin()).collect();
        let y: Vec<f64> = (0..n).map(|k| if k % 3 == 0 { 1.0 } else { -1.0 }).collect();
        // A small budget forces evictions and partial columns.
        let mut q = MebQ::new(kernel(&values, n, d), y.clone(), c, 0);
        let mut perm: Vec<usize> = (0..n).collect();
        for (step, &(a, b)) in [(0, 6), (3, 10), (1, 3), (9, 2)].iter().enumerate() {
            let len = 4 + step;
            for i in [a, b, 7] {
                let column = q.column(i, len).to_vec();
                for (t, &value) in column.iter().enumerate() {
                    let expected = naive(&values, d, &y, c, perm[i], perm[t]);
                    assert!((value - expected).abs() <= 1e-14, "{value} vs {expected}");
                }
                assert_eq!(q.diagonal()[i], naive(&values, d, &y, c, perm[i], perm[i]));
            }
            let mut block = vec![0.0; 2 * len];
            q.uncached_columns(&[b, 8], len, &mut block);
            for (r, &i) in [b, 8].iter().enumerate() {
                for t in 0..len {
                    let expected = naive(&values, d, &y, c, perm[i], perm[t]);
                    assert!((block[r * len + t] - expected).abs() <= 1e-14);
                }
            }
            q.swap_index(a, b);
            perm.swap(a, b);
        }
    }
}
