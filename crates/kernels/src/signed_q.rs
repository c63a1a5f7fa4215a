//! [`SignedQ`]'s columns and passes: `CachedColumns<K, Signs, f32>` as the SMO solvers'
//! [`QMatrix`] and [`QMatrixPasses`] (C-SVC, ν-SVC, PU; one-class and user matrices with unit
//! signs). A column's `f32` values `s_i s_t K_it` are stored window by window as the kernel
//! source computes them ([`KernelSource::fill_block_finishing`]), on the thread that computed
//! the window: no second pass over the `f64` block, and no second fork and join per column.

use std::mem::MaybeUninit;

use crate::cache::{CacheStats, RowCache};
use crate::cached_columns::{CachedColumns, SignedQ, Signs};
use crate::qmatrix::{
    fill_cached, fill_rooms, ColumnsVisit, QMatrix, QMatrixPasses, WindowThen, UNCACHED_BLOCK,
};
use crate::source::KernelSource;

/// Most columns [`SignedQ::columns_from`] computes in one block.
const BLOCK_COLUMNS: usize = 16;

impl<K: KernelSource> SignedQ<K> {
    fn ensure(&mut self, i: usize, len: usize, pinned: Option<usize>) {
        let CachedColumns { kernel, map, cache, scratch, .. } = self;
        let (cached, missing) = cache.get_unfilled(i, len, pinned);
        fill_signed(kernel, &map.signs, scratch, i, missing, cached.len(), &|_, _| {});
        // SAFETY: `fill_signed` wrote every missing position.
        unsafe { cache.set_filled(i, len) };
    }

    /// Columns `i` and `j`, both cached up to `start` exactly, extended to `len` by one block
    /// (each pinned while the other is made room for, so neither loses its prefix).
    fn fill_pair(&mut self, i: usize, j: usize, start: usize, len: usize) {
        let [(cached_i, missing_i), (cached_j, missing_j)] =
            self.cache.get_pair_unfilled(i, j, len);
        debug_assert_eq!((cached_i.len(), cached_j.len()), (start, start));
        let signs = &self.map.signs;
        let (column_signs, signs) = ([signs[i], signs[j]], &signs[start..len]);
        let store = |r: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
            store_signed(window, values, column_signs[r], &signs[c0..c0 + values.len()]);
        };
        fill_rooms(
            &self.kernel,
            &mut self.scratch,
            &[i, j],
            &mut [missing_i, missing_j],
            start,
            &store,
        );
        // SAFETY: `fill_rooms` wrote every position of both rooms.
        unsafe {
            self.cache.set_filled(i, len);
            self.cache.set_filled(j, len);
        }
    }
}

/// Writes `Q[start..start + missing.len(), j]` in `f32` into `missing` (the uninitialised room
/// of column `j` from position `start` on), window by window as the kernel source computes
/// them, handing each stored window to `after(c0, &Q[c0..c1, j])` on the thread that computed
/// it (`c0` counts from the column's first position). Every position of `missing` is written.
fn fill_signed<K: KernelSource>(
    kernel: &K,
    signs: &[f64],
    scratch: &mut Vec<f64>,
    j: usize,
    missing: &mut [MaybeUninit<f32>],
    start: usize,
    after: &(dyn Fn(usize, &[f32]) + Sync),
) {
    let (s_j, signs) = (signs[j], &signs[start..start + missing.len()]);
    let store = |_: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
        after(start + c0, store_signed(window, values, s_j, &signs[c0..c0 + values.len()]));
    };
    fill_rooms(kernel, scratch, &[j], &mut [missing], start, &store);
}

/// Writes `column[t] = (s · signs[t] · values[t]) as f32` for every `t` of the window (as long
/// as `values` and `signs`) and returns it, initialised.
fn store_signed<'a>(
    column: &'a mut [MaybeUninit<f32>],
    values: &[f64],
    s: f64,
    signs: &[f64],
) -> &'a [f32] {
    assert!(values.len() == column.len() && signs.len() == column.len());
    #[inline(always)]
    fn body(column: &mut [MaybeUninit<f32>], values: &[f64], s: f64, signs: &[f64]) {
        for ((q, &value), &s_t) in column.iter_mut().zip(values).zip(signs) {
            q.write((s * s_t * value) as f32);
        }
    }
    // The same operations eight or four wide (baseline x86-64 code converts two at a time:
    // this loop was 10 % of an a9a fit's samples).
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx2")]
        fn avx512(column: &mut [MaybeUninit<f32>], values: &[f64], s: f64, signs: &[f64]) {
            body(column, values, s, signs);
        }
        #[target_feature(enable = "avx2")]
        fn avx2(column: &mut [MaybeUninit<f32>], values: &[f64], s: f64, signs: &[f64]) {
            body(column, values, s, signs);
        }
        if crate::Level::current() >= crate::Level::Avx512 {
            // SAFETY: the CPU has AVX-512F and AVX2.
            unsafe { avx512(column, values, s, signs) };
        } else if crate::Level::current() >= crate::Level::Avx2 {
            // SAFETY: the CPU has AVX2.
            unsafe { avx2(column, values, s, signs) };
        } else {
            body(column, values, s, signs);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    body(column, values, s, signs);
    // SAFETY: every value of the window was written just above (the lengths are equal), and
    // `MaybeUninit<f32>` has the layout of `f32`.
    unsafe { &*(std::ptr::from_mut(column) as *const [f32]) }
}

/// Computes `Q[range, k]` (signs `s`) of the columns `k ∈ ids` as one kernel block into
/// `block`, a buffer outside the cache (nothing is evicted for them; the cache only counts the
/// values), each window stored on the thread that computed it, and returns them in order.
fn uncached_signed<'b, K: KernelSource>(
    kernel: &K,
    s: &[f64],
    cache: &mut RowCache,
    scratch: &mut Vec<f64>,
    block: &'b mut Vec<MaybeUninit<f32>>,
    ids: &[usize],
    range: std::ops::Range<usize>,
) -> Vec<&'b [f32]> {
    let width = range.len();
    if width == 0 {
        return vec![&[]; ids.len()];
    }
    if block.len() < ids.len() * width {
        block.resize(ids.len() * width, MaybeUninit::uninit());
    }
    if !ids.is_empty() {
        let mut rooms: Vec<&mut [MaybeUninit<f32>]> =
            block.chunks_exact_mut(width).take(ids.len()).collect();
        let column_signs: Vec<f64> = ids.iter().map(|&k| s[k]).collect();
        let signs = &s[range.clone()];
        let store = |r: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
            store_signed(window, values, column_signs[r], &signs[c0..c0 + values.len()]);
        };
        fill_rooms(kernel, scratch, ids, &mut rooms, range.start, &store);
        cache.count_computed(ids.len(), ids.len() * width);
    }
    block
        .chunks_exact(width)
        .take(ids.len())
        // SAFETY: `fill_rooms` wrote every position of the first `ids.len()` rooms, and
        // `MaybeUninit<f32>` has the layout of `f32`.
        .map(|room| unsafe { &*(std::ptr::from_ref(room) as *const [f32]) })
        .collect()
}

impl<K: KernelSource> QMatrix for SignedQ<K> {
    fn size(&self) -> usize {
        CachedColumns::size(self)
    }

    fn diagonal(&self) -> &[f64] {
        CachedColumns::diagonal(self)
    }

    fn column(&mut self, i: usize, len: usize) -> &[f32] {
        self.ensure(i, len, None);
        self.cache.peek(i, len)
    }

    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        let (have_i, have_j) = (self.cache.refresh(i), self.cache.refresh(j));
        if i != j && have_i == have_j && have_i < len {
            // Both columns miss the same positions: one block, one pass over the data.
            self.fill_pair(i, j, have_i, len);
        } else {
            self.ensure(i, len, None);
            self.ensure(j, len, Some(i));
        }
        (self.cache.peek(i, len), self.cache.peek(j, len))
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        CachedColumns::swap_index(self, i, j);
    }

    fn cache_stats(&self) -> CacheStats {
        CachedColumns::cache_stats(self)
    }
}

impl<K: KernelSource> QMatrixPasses for SignedQ<K> {
    fn known_positive_semidefinite(&self) -> Option<bool> {
        self.kernel().known_positive_semidefinite()
    }

    fn is_cached(&self, i: usize, len: usize) -> bool {
        CachedColumns::is_cached(self, i, len)
    }

    fn cache_capacity(&self, len: usize) -> usize {
        self.cache.budget_values() / len.max(1)
    }

    fn speculation_width(&self, len: usize) -> usize {
        // Guessed columns must be bitwise those computed alone (the path must not change).
        let width = self.kernel.bitwise_rows().min(crate::SHARED_PASS_ROWS) - 1;
        let free = self.cache.budget_values().saturating_sub(self.cache.used_values());
        if self.kernel.shares_passes() && free >= (width + 1) * len {
            width
        } else {
            0
        }
    }

    fn fuses_passes(&self) -> bool {
        true
    }

    fn column_then(
        &mut self,
        j: usize,
        beside: Option<usize>,
        len: usize,
        from: usize,
        then: &WindowThen<'_>,
    ) -> bool {
        if beside == Some(j) {
            return false;
        }
        let have = self.cache.refresh(j);
        if have > from || have >= len {
            return false;
        }
        if let Some(i) = beside {
            if self.cache.refresh(i) < len {
                return false;
            }
        }
        let CachedColumns { kernel, map, cache, scratch, .. } = self;
        let (cached, missing, companion) = cache.get_beside_unfilled(j, len, beside);
        debug_assert_eq!(cached.len(), have);
        let after = |c0: usize, window: &[f32]| {
            then(c0, window, companion.map(|q_i| &q_i[c0..c0 + window.len()]));
        };
        fill_signed(kernel, &map.signs, scratch, j, missing, have, &after);
        // SAFETY: `fill_signed` wrote every missing position.
        unsafe { cache.set_filled(j, len) };
        true
    }

    fn block_columns(&self) -> usize {
        self.kernel.bitwise_rows().clamp(1, BLOCK_COLUMNS)
    }

    /// The columns the cache holds over `0..len` are read from it (each a hit, made most
    /// recently used); the others are computed over `from..len` only, as one block of at most
    /// [`KernelSource::bitwise_rows`] rows (bitwise the values of a lone column), stored in a
    /// buffer of their own and not cached: nothing is evicted for them.
    fn columns_from(
        &mut self,
        columns: &[usize],
        from: usize,
        len: usize,
        visit: &mut ColumnsVisit<'_>,
    ) {
        if columns.len() > self.block_columns() {
            for (b, block) in columns.chunks(self.block_columns()).enumerate() {
                let first = b * self.block_columns();
                self.columns_from(block, from, len, &mut |r, values| visit(first + r, values));
            }
            return;
        }
        let mut missing = Vec::with_capacity(columns.len());
        for &k in columns {
            if self.cache.refresh(k) >= len {
                self.cache.get_unfilled(k, len, None);
            } else {
                missing.push(k);
            }
        }
        let mut computed = &missing[..];
        let CachedColumns { kernel, map: Signs { signs }, cache, scratch, block, .. } = self;
        let mut computed_values =
            uncached_signed(kernel, signs, cache, scratch, block, computed, from..len).into_iter();
        let values: Vec<&[f32]> = columns
            .iter()
            .map(|&k| match computed.first() {
                Some(&first) if first == k => {
                    computed = &computed[1..];
                    computed_values.next().expect("one block column per computed column")
                }
                _ => &cache.peek(k, len)[from..],
            })
            .collect();
        visit(0, &values);
    }

    /// The resident columns in one pass; the others in blocks of [`UNCACHED_BLOCK`] columns
    /// (one GEMM each over the positions `from..`, then one pass).
    fn add_columns_from(
        &mut self,
        columns: &[usize],
        scales: &[f64],
        from: usize,
        target: &mut [f64],
    ) {
        assert_eq!(scales.len(), columns.len(), "add_columns_from: one scale per column");
        let len = from + target.len();
        let width = target.len();
        let (mut resident, mut missing) = (Vec::new(), Vec::new());
        for (&k, &scale) in columns.iter().zip(scales) {
            if self.cache.refresh(k) >= len {
                resident.push((k, scale));
            } else {
                missing.push((k, scale));
            }
        }
        let values: Vec<&[f32]> =
            resident.iter().map(|&(k, _)| &self.cache.peek(k, len)[from..]).collect();
        let resident_scales: Vec<f64> = resident.iter().map(|&(_, scale)| scale).collect();
        crate::column_sums::add_scaled_columns(target, &values, &resident_scales);
        if width == 0 {
            return;
        }
        let CachedColumns { kernel, map: Signs { signs }, cache, scratch, block, .. } = self;
        for group in missing.chunks(UNCACHED_BLOCK) {
            let ids: Vec<usize> = group.iter().map(|&(k, _)| k).collect();
            let values = uncached_signed(kernel, signs, cache, scratch, block, &ids, from..len);
            let group_scales: Vec<f64> = group.iter().map(|&(_, scale)| scale).collect();
            crate::column_sums::add_scaled_columns(target, &values, &group_scales);
        }
    }

    /// One pass over the resident columns; when one is missing, by blocks (the default).
    fn add_columns(&mut self, columns: &[usize], scales: &[f64], target: &mut [f64]) {
        let len = target.len();
        if !columns.iter().all(|&k| self.cache.refresh(k) >= len) {
            crate::column_sums::add_columns_by_blocks(self, columns, scales, target);
            return;
        }
        let values: Vec<&[f32]> = columns.iter().map(|&k| self.cache.peek(k, len)).collect();
        crate::column_sums::add_scaled_columns(target, &values, scales);
    }

    fn submatrix(&mut self, rows: &[usize], columns: &[usize], out: &mut [f32]) {
        let len = rows.iter().max().map_or(0, |&k| k + 1);
        if !columns.iter().all(|&k| self.cache.refresh(k) >= len) {
            crate::column_sums::submatrix_by_columns(self, rows, columns, out);
            return;
        }
        let n = rows.len();
        assert_eq!(out.len(), n * columns.len(), "submatrix: out holds rows × columns values");
        let resident: Vec<&[f32]> = columns.iter().map(|&k| self.cache.peek(k, len)).collect();
        crate::column_sums::submatrix_in_parallel(out, n, |c, values| {
            for (value, &t) in values.iter_mut().zip(rows) {
                *value = resident[c][t];
            }
        });
    }

    /// The resident columns among `indices` are made most recently used first, so that
    /// computing the missing ones does not evict them ([`fill_cached`]).
    fn prefetch(&mut self, indices: &[usize], len: usize) {
        let CachedColumns { kernel, map: Signs { signs }, cache, scratch, .. } = self;
        let signs = &*signs;
        let store = |k: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
            store_signed(window, values, signs[k], &signs[c0..c0 + values.len()]);
        };
        fill_cached(kernel, cache, scratch, indices, len, &store);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qmatrix::tests::{k_value, kernel};

    #[test]
    fn signed_windows_are_the_scalar_products_rounded_once() {
        // Every vector width's tail; values that round differently in f32, and ±0, ±∞, NaN.
        for n in [0, 1, 3, 4, 7, 8, 9, 16, 17, 33] {
            let values: Vec<f64> = (0..n)
                .map(|t| match t % 9 {
                    6 => -0.0,
                    7 => f64::INFINITY,
                    8 => f64::NAN,
                    r => (t as f64 * 0.731).sin() * 10f64.powi(r as i32 - 3) + 1e-9,
                })
                .collect();
            let signs: Vec<f64> = (0..n).map(|t| if t % 3 == 0 { -1.0 } else { 1.0 }).collect();
            for s in [1.0, -1.0] {
                let mut column = vec![MaybeUninit::<f32>::uninit(); n];
                let stored = store_signed(&mut column, &values, s, &signs);
                for t in 0..n {
                    let expected = (s * signs[t] * values[t]) as f32;
                    assert_eq!(stored[t].to_bits(), expected.to_bits(), "n {n}, t {t}, s {s}");
                }
            }
        }
    }

    #[test]
    fn signed_q_is_coherent_under_swaps() {
        let (n, d) = (9, 3);
        let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.37).sin()).collect();
        let y: Vec<f64> = (0..n).map(|k| if k % 3 == 0 { 1.0 } else { -1.0 }).collect();
        let reference = kernel(&values, n, d);
        // A budget of 2 columns forces evictions and partial-column drops.
        let mut q = SignedQ::new(kernel(&values, n, d), y.clone(), 0);
        let mut perm: Vec<usize> = (0..n).collect();
        let swaps = [(0, 5), (2, 8), (1, 2), (7, 3), (0, 8)];
        for (step, &(a, b)) in swaps.iter().enumerate() {
            let len = n - step;
            for i in [a, b, (a + b) % n] {
                let col = q.column(i, len).to_vec();
                for (k, &value) in col.iter().enumerate() {
                    let expected = y[perm[i]] * y[perm[k]] * k_value(&reference, perm[i], perm[k]);
                    assert_eq!(value, expected as f32);
                }
            }
            q.swap_index(a, b);
            perm.swap(a, b);
        }
    }

    #[test]
    fn prefetched_columns_equal_computed_columns() {
        let (n, d) = (40, 6);
        let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.21).sin()).collect();
        let y: Vec<f64> = (0..n).map(|k| if k % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let mut direct = SignedQ::new(kernel(&values, n, d), y.clone(), 1 << 20);
        let mut prefetched = SignedQ::new(kernel(&values, n, d), y, 1 << 20);
        let wanted: Vec<usize> = (0..12).map(|k| k * 3).collect();
        prefetched.prefetch(&wanted, n - 5);
        for &k in &wanted {
            assert!(prefetched.is_cached(k, n - 5));
            let (a, b) = (prefetched.column(k, n - 5).to_vec(), direct.column(k, n - 5).to_vec());
            for (x, z) in a.iter().zip(&b) {
                assert!((x - z).abs() <= 1e-6 * z.abs().max(1.0), "{x} vs {z}");
            }
        }
    }
}
