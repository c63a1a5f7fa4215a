//! `SvrQ`: the `2l × 2l` ε-SVR matrix `Q_ij = s_i s_j K(x_{p(i)}, x_{p(j)})` with `s = (+1…+1,
//! −1…−1)` and `p(i) = i mod l` before any swap (LIBSVM's `SVR_Q`; Chang & Lin 2011, §4), a
//! [`QMatrix`].
//!
//! As in LIBSVM, the cache holds kernel rows of the `l` *points* (one
//! [`CachedColumns`]`<K, Plain, f32>`, the solvers' one cached-column type), not columns of the `2l`
//! positions (each kernel value would otherwise be computed and stored twice), and a signed `Q`
//! column is assembled from a row by a gather into one of a few buffers. Unlike LIBSVM,
//! a row is not always computed over all `l` points. The points are kept in **slots**: the
//! kernel source and the cache are indexed by slot, and the slots are ordered so that the points
//! with a position in the active set `0..len` come first, `0..m`. A column of length `len` then
//! needs its point's row over slots `0..m` only, and a row is cached as a prefix, as `SignedQ`
//! caches columns after shrinking (LIBSVM's `Cache` prefix rule). When the solver shrinks the
//! active set (it asks for a shorter `len` after swapping positions), the slots of points
//! left without an active position are swapped behind the others (`compact`, the kernel's and
//! the cache's `swap_index`, as `SignedQ` swaps positions); `docs/performance.md`, "SVR slots",
//! has the measurement. A request over every position (`len = 2l`: the `Ḡ` update of a
//! variable that changed bound, the gradient reconstruction) extends the row to all `l` slots.
//!
//! Which values a column holds does not depend on the slot order or the thread count: each is
//! `±K(x_a, x_b)` of its two points, computed as the kernel source computes it.

use std::mem::MaybeUninit;

use crate::cache::{CacheStats, RowCache};
use crate::cached_columns::{CachedColumns, Plain};
use crate::qmatrix::{fill_cached, fill_rooms, scratch_of, QMatrix, QMatrixPasses};
use crate::source::KernelSource;
use crate::team::DisjointSlices;

/// The doubled ε-SVR matrix over `l` points (see the module documentation).
#[derive(Debug)]
pub struct SvrQ<K> {
    /// The kernel rows of the `l` points, by slot (the kernel source in slot order), each
    /// cached as a prefix over the slots.
    rows: CachedColumns<K, Plain, f32>,
    /// `s_i` of each position (exact in `f32`, the type of the assembled columns).
    signs: Vec<f32>,
    /// The slot of the point behind each position (`u32`: the gather streams it with the
    /// signs).
    slot_of: Vec<u32>,
    /// The two positions of the point in each slot.
    positions: Vec<[u32; 2]>,
    diagonal: Vec<f64>,
    /// The signed columns assembled since the last position swap.
    assembled: Assembled,
    /// The active length the slots were last compacted for, and the number of slots its
    /// positions use (`0..m`); `None` after a position swap.
    live: Option<(usize, usize)>,
}

impl<K: KernelSource> SvrQ<K> {
    /// The `2l × 2l` matrix for the `l` points of `kernel`.
    pub fn new(kernel: K, cache_bytes: usize) -> Self {
        let l = kernel.len();
        assert!(u32::try_from(2 * l).is_ok(), "SvrQ: at most 2^31 - 1 points");
        let signs = (0..2 * l).map(|k| if k < l { 1.0 } else { -1.0 }).collect();
        let slot_of = (0..2 * l).map(|k| (k % l.max(1)) as u32).collect();
        let positions = (0..l).map(|k| [k as u32, (k + l) as u32]).collect();
        let cache = RowCache::new(l, cache_bytes).with_loose_fit();
        let rows = CachedColumns::with_cache(kernel, Plain, cache);
        let diagonal = (0..2 * l).map(|k| rows.diagonal()[k % l]).collect();
        SvrQ {
            rows,
            signs,
            slot_of,
            positions,
            diagonal,
            assembled: Assembled::new(ASSEMBLED_COLUMNS),
            live: Some((2 * l, l)),
        }
    }

    /// How many slots the positions `0..len` use, when known without compacting.
    fn known_slots(&self, len: usize) -> Option<usize> {
        let l = self.rows.size();
        if len >= 2 * l {
            return Some(l);
        }
        match self.live {
            Some((live_len, m)) if live_len == len => Some(m),
            _ => None,
        }
    }

    /// The number `m` of slots that the positions `0..len` use, after moving those slots to
    /// the front (`0..m`) if a swap or a new `len` may have left them elsewhere. A request over
    /// every position needs every slot and moves none.
    fn slots_for(&mut self, len: usize) -> usize {
        if let Some(m) = self.known_slots(len) {
            return m;
        }
        let m = self.compact(len);
        self.live = Some((len, m));
        m
    }

    /// Partitions the slots: those of points with a position in `0..len` first. Returns their
    /// number. Deterministic (it depends on the positions only), with the fewest swaps.
    fn compact(&mut self, len: usize) -> usize {
        let used = |positions: &[[u32; 2]], s: usize| {
            (positions[s][0].min(positions[s][1]) as usize) < len
        };
        let (mut front, mut back) = (0, self.rows.size());
        loop {
            while front < back && used(&self.positions, front) {
                front += 1;
            }
            while front < back && !used(&self.positions, back - 1) {
                back -= 1;
            }
            if front >= back {
                break;
            }
            self.swap_slots(front, back - 1);
            front += 1;
            back -= 1;
        }
        front
    }

    /// Exchanges slots `a` and `b`: the kernel's rows, the cache's rows and entries, and the
    /// maps. The assembled columns keep their values.
    fn swap_slots(&mut self, a: usize, b: usize) {
        self.rows.swap_index(a, b);
        self.positions.swap(a, b);
        for s in [a, b] {
            for p in self.positions[s] {
                self.slot_of[p as usize] = s as u32;
            }
        }
    }

    /// The slots of the points behind `columns`, in the order they first appear, and each
    /// point's combined scale `Σ_{p(k) = p} s_k scale_k` (`Q[t, k] = s_t s_k K(p(t), p(k))`).
    fn by_point(&self, columns: &[usize], scales: &[f64]) -> (Vec<usize>, Vec<f64>) {
        let (mut points, mut combined) = (Vec::new(), Vec::new());
        let mut index_of = std::collections::HashMap::new();
        for (&k, &scale) in columns.iter().zip(scales) {
            let slot = self.slot_of[k] as usize;
            let r = *index_of.entry(slot).or_insert_with(|| {
                points.push(slot);
                combined.push(0.0);
                points.len() - 1
            });
            combined[r] += f64::from(self.signs[k]) * scale;
        }
        (points, combined)
    }

    /// Makes the kernel rows of the points behind positions `i` and `j` resident over slots
    /// `0..m` (the missing parts computed as one block when they start at the same slot), each
    /// pinned while the other is made room for. The `f32` values are stored window by window
    /// on the threads that compute them ([`KernelSource::fill_block_finishing`]), not in a
    /// second, serial pass.
    fn ensure_rows(&mut self, i: usize, j: usize, m: usize) {
        let (row_i, row_j) = (self.slot_of[i] as usize, self.slot_of[j] as usize);
        let CachedColumns { kernel, cache, scratch, .. } = &mut self.rows;
        if row_i == row_j {
            let (cached, room) = cache.get_unfilled(row_i, m, None);
            let have = cached.len();
            fill_rooms(kernel, scratch, &[row_i], &mut [room], have, &store_rounded);
            // SAFETY: `fill_rooms` wrote every position of the room.
            unsafe { cache.set_filled(row_i, m) };
            return;
        }
        let [(cached_i, room_i), (cached_j, room_j)] = cache.get_pair_unfilled(row_i, row_j, m);
        let (have_i, have_j) = (cached_i.len(), cached_j.len());
        let pair = [row_i, row_j];
        if have_i == have_j {
            fill_rooms(kernel, scratch, &pair, &mut [room_i, room_j], have_i, &store_rounded);
        } else {
            fill_rooms(kernel, scratch, &pair[..1], &mut [room_i], have_i, &store_rounded);
            fill_rooms(kernel, scratch, &pair[1..], &mut [room_j], have_j, &store_rounded);
        }
        // SAFETY: `fill_rooms` wrote every position of both rooms.
        unsafe {
            cache.set_filled(row_i, m);
            cache.set_filled(row_j, m);
        }
    }

    /// Builds `Q[0..len, i]` into buffer `b_i` and `Q[0..len, j]` into buffer `b_j` (when `j`
    /// is given; another buffer) in one pass over the position maps.
    fn assemble(&mut self, i: usize, j: Option<(usize, usize)>, len: usize, b_i: usize) {
        let m = self.slots_for(len);
        self.ensure_rows(i, j.map_or(i, |(j, _)| j), m);
        let SvrQ { rows, signs, slot_of, assembled, .. } = self;
        let cache = &rows.cache;
        let (buffer_i, buffer_j) = assembled.buffers_mut(b_i, j.map(|(_, b_j)| b_j), len);
        let row_i = cache.peek(slot_of[i] as usize, m);
        let s_i = signs[i];
        let row_j = j.map(|(j, _)| (cache.peek(slot_of[j] as usize, m), signs[j]));
        // Elementwise, so chunking (in parallel for long columns) does not change any value.
        let body = |lo: usize, out_i: &mut [f32], out_j: Option<&mut [f32]>| {
            let (signs, slot_of) = (&signs[lo..], &slot_of[lo..]);
            crate::simd::gather_signed(row_i, slot_of, signs, s_i, out_i);
            if let (Some((row_j, s_j)), Some(out_j)) = (row_j, out_j) {
                crate::simd::gather_signed(row_j, slot_of, signs, s_j, out_j);
            }
        };
        if len < crate::PARALLEL_MIN_LEN {
            body(0, buffer_i, buffer_j);
        } else {
            let out_i = DisjointSlices::new(buffer_i);
            let out_j = buffer_j.map(DisjointSlices::new);
            crate::team::for_each_chunk(len.div_ceil(ASSEMBLE_CHUNK), |c| {
                let (lo, hi) = (c * ASSEMBLE_CHUNK, ((c + 1) * ASSEMBLE_CHUNK).min(len));
                // SAFETY: chunk c alone writes lo..hi of both buffers.
                let (out_i, out_j) =
                    unsafe { (out_i.range(lo, hi), out_j.as_ref().map(|o| o.range(lo, hi))) };
                body(lo, out_i, out_j);
            });
        }
    }
}

/// `target[t] += s_t · over_slots[slot_of[t]]`: a sum over the points' slots taken to the
/// positions (two per point, of opposite signs).
fn gather_by_slot(target: &mut [f64], signs: &[f32], slot_of: &[u32], over_slots: &[f64]) {
    crate::column_sums::in_update_chunks(target, |target, lo| {
        for ((g, &s), &slot) in target.iter_mut().zip(&signs[lo..]).zip(&slot_of[lo..]) {
            *g += f64::from(s) * over_slots[slot as usize];
        }
    });
}

/// How many assembled columns [`SvrQ`] keeps (LIBSVM keeps two). SMO asks for `Q_i` in the
/// working-set scan and again with `Q_j` for the step; ν-SVR asks for the scan's two first
/// indices, then for one of them with `Q_j`: with two buffers the other was assembled again
/// at the next iteration when it had not changed. On 564_fried (2 threads) four buffers save
/// 17,000 of about 300,000 gathers of a ν-SVR fit and 1,600 of about 190,000 of an ε-SVR fit.
const ASSEMBLED_COLUMNS: usize = 4;

/// Signed columns assembled since the last position swap, in buffers that grow to the longest
/// column asked for; the least recently used is overwritten first.
#[derive(Debug)]
struct Assembled {
    buffers: Vec<Vec<f32>>,
    /// `(position, len)` of the column each buffer holds.
    held: Vec<Option<(usize, usize)>>,
    /// When each buffer was last used.
    used: Vec<u64>,
    clock: u64,
}

impl Assembled {
    fn new(n: usize) -> Self {
        Assembled { buffers: vec![Vec::new(); n], held: vec![None; n], used: vec![0; n], clock: 0 }
    }

    /// The buffer holding `Q[0..len', i]` with `len' ≥ len`, if any.
    fn holding(&self, i: usize, len: usize) -> Option<usize> {
        self.held.iter().position(|h| matches!(*h, Some((p, l)) if p == i && l >= len))
    }

    /// The buffer to overwrite next (not `keep`).
    fn victim(&self, keep: Option<usize>) -> usize {
        (0..self.buffers.len())
            .filter(|&b| Some(b) != keep)
            .min_by_key(|&b| (self.held[b].is_some(), self.used[b]))
            .expect("at least two buffers")
    }

    fn hold(&mut self, b: usize, i: usize, len: usize) {
        self.held[b] = Some((i, len));
    }

    fn touch(&mut self, b: usize) {
        self.clock += 1;
        self.used[b] = self.clock;
    }

    fn forget(&mut self) {
        self.held.fill(None);
    }

    /// The first `len` values of buffer `b_i` and of buffer `b_j` (when given; another one),
    /// for writing; neither holds a column any more.
    fn buffers_mut(
        &mut self,
        b_i: usize,
        b_j: Option<usize>,
        len: usize,
    ) -> (&mut [f32], Option<&mut [f32]>) {
        for b in [Some(b_i), b_j].into_iter().flatten() {
            if self.buffers[b].len() < len {
                self.buffers[b].resize(len, 0.0);
            }
            self.held[b] = None;
        }
        let Some(b_j) = b_j else {
            return (&mut self.buffers[b_i][..len], None);
        };
        assert_ne!(b_i, b_j, "two distinct buffers");
        let (lo, hi) = self.buffers.split_at_mut(b_i.max(b_j));
        let (low, high) = (&mut lo[b_i.min(b_j)][..len], &mut hi[0][..len]);
        if b_i < b_j {
            (low, Some(high))
        } else {
            (high, Some(low))
        }
    }

    fn column(&self, b: usize, len: usize) -> &[f32] {
        &self.buffers[b][..len]
    }

    fn pair(&self, b_i: usize, b_j: usize, len: usize) -> (&[f32], &[f32]) {
        (&self.buffers[b_i][..len], &self.buffers[b_j][..len])
    }
}

/// Writes `values` into `window` in `f32` (the `store` of [`fill_rooms`] for kernel rows).
fn store_rounded(_: usize, _: usize, window: &mut [MaybeUninit<f32>], values: &[f64]) {
    for (q, &value) in window.iter_mut().zip(values) {
        q.write(value as f32);
    }
}

/// Positions per parallel task when assembling ε-SVR columns.
const ASSEMBLE_CHUNK: usize = 4096;

impl<K: KernelSource> QMatrix for SvrQ<K> {
    fn size(&self) -> usize {
        self.signs.len()
    }

    fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    fn column(&mut self, i: usize, len: usize) -> &[f32] {
        let b = match self.assembled.holding(i, len) {
            Some(b) => b,
            None => {
                let b = self.assembled.victim(None);
                self.assemble(i, None, len, b);
                self.assembled.hold(b, i, len);
                b
            }
        };
        self.assembled.touch(b);
        self.assembled.column(b, len)
    }

    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        let (b_i, b_j) = match (self.assembled.holding(i, len), self.assembled.holding(j, len)) {
            (Some(b_i), Some(b_j)) => (b_i, b_j),
            (Some(b_i), None) => {
                let b_j = self.assembled.victim(Some(b_i));
                self.assemble(j, None, len, b_j);
                (b_i, b_j)
            }
            (None, Some(b_j)) => {
                let b_i = self.assembled.victim(Some(b_j));
                self.assemble(i, None, len, b_i);
                (b_i, b_j)
            }
            (None, None) => {
                let b_i = self.assembled.victim(None);
                let b_j = self.assembled.victim(Some(b_i));
                self.assemble(i, Some((j, b_j)), len, b_i);
                (b_i, b_j)
            }
        };
        self.assembled.hold(b_i, i, len);
        self.assembled.hold(b_j, j, len);
        self.assembled.touch(b_i);
        self.assembled.touch(b_j);
        self.assembled.pair(b_i, b_j, len)
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        self.assembled.forget();
        self.live = None;
        self.signs.swap(i, j);
        self.slot_of.swap(i, j);
        self.diagonal.swap(i, j);
        let (slot_i, slot_j) = (self.slot_of[i] as usize, self.slot_of[j] as usize);
        if slot_i != slot_j {
            // Position i now belongs to the point that had j, and j to the one that had i.
            for (s, from, to) in [(slot_i, j, i), (slot_j, i, j)] {
                for p in &mut self.positions[s] {
                    if *p as usize == from {
                        *p = to as u32;
                    }
                }
            }
        }
    }

    fn cache_stats(&self) -> CacheStats {
        self.rows.cache.stats()
    }
}

impl<K: KernelSource> QMatrixPasses for SvrQ<K> {
    fn is_cached(&self, i: usize, len: usize) -> bool {
        let m = self.known_slots(len).unwrap_or(self.rows.size());
        self.rows.cache.cached_len(self.slot_of[i] as usize) >= m
    }

    fn cache_capacity(&self, len: usize) -> usize {
        let m = self.known_slots(len).unwrap_or(self.rows.size());
        self.rows.cache.budget_values() / m.max(1)
    }

    /// By points: `Q[t, k] = s_t s_k K(p(t), p(k))`, so the terms of the two positions of one
    /// point combine into one scale `c_p = Σ_{p(k) = p} s_k scale_k`, a first pass sums
    /// `h = Σ_p c_p K(·, p)` over the slots (the points in the order they first appear in
    /// `columns`), and a second adds `s_t h[p(t)]` at every position. When a row is not
    /// resident after [`QMatrixPasses::prefetch`] (a cache too small for them all), by blocks.
    fn add_columns(&mut self, columns: &[usize], scales: &[f64], target: &mut [f64]) {
        assert_eq!(scales.len(), columns.len(), "add_columns: one scale per column");
        let len = target.len();
        self.prefetch(columns, len);
        let m = self.slots_for(len);
        let (points, combined) = self.by_point(columns, scales);
        if !points.iter().all(|&slot| self.rows.cache.refresh(slot) >= m) {
            crate::column_sums::add_columns_by_blocks(self, columns, scales, target);
            return;
        }
        let rows: Vec<&[f32]> = points.iter().map(|&slot| self.rows.cache.peek(slot, m)).collect();
        let mut over_slots = vec![0.0; m];
        crate::column_sums::add_scaled_columns(&mut over_slots, &rows, &combined);
        gather_by_slot(target, &self.signs[..len], &self.slot_of[..len], &over_slots);
    }

    /// By points, as [`QMatrixPasses::add_columns`]: the combined scales of the points, `h = Σ_p
    /// c_p K(·, p)` over the slots (resident rows from the cache, the others computed in blocks
    /// of [`UNCACHED_BLOCK`](crate::qmatrix::UNCACHED_BLOCK) rows, rounded to `f32` as the
    /// cache stores them, and not cached), then `s_t h[p(t)]` at the positions `from..`.
    fn add_columns_from(
        &mut self,
        columns: &[usize],
        scales: &[f64],
        from: usize,
        target: &mut [f64],
    ) {
        assert_eq!(scales.len(), columns.len(), "add_columns_from: one scale per column");
        let len = from + target.len();
        let m = self.slots_for(len);
        let (points, combined) = self.by_point(columns, scales);
        let mut over_slots = vec![0.0; m];
        let (mut resident, mut resident_scales, mut missing) = (Vec::new(), Vec::new(), Vec::new());
        for (&slot, &c) in points.iter().zip(&combined) {
            if self.rows.cache.refresh(slot) >= m {
                resident.push(slot);
                resident_scales.push(c);
            } else {
                missing.push((slot, c));
            }
        }
        let rows: Vec<&[f32]> =
            resident.iter().map(|&slot| self.rows.cache.peek(slot, m)).collect();
        crate::column_sums::add_scaled_columns(&mut over_slots, &rows, &resident_scales);
        for group in missing.chunks(crate::qmatrix::UNCACHED_BLOCK) {
            let ids: Vec<usize> = group.iter().map(|&(slot, _)| slot).collect();
            let scratch = scratch_of(&mut self.rows.scratch, ids.len() * m);
            self.rows.kernel.fill_block(&ids, 0, m, scratch);
            self.rows.cache.count_computed(ids.len(), ids.len() * m);
            let scratch = &*scratch;
            crate::column_sums::in_update_chunks(&mut over_slots, |out, lo| {
                for (r, &(_, c)) in group.iter().enumerate() {
                    let row = &scratch[r * m + lo..r * m + lo + out.len()];
                    for (h, &value) in out.iter_mut().zip(row) {
                        *h += c * f64::from(value as f32);
                    }
                }
            });
        }
        gather_by_slot(target, &self.signs[from..len], &self.slot_of[from..len], &over_slots);
    }

    /// `Q[a, b] = s_a s_b K(p(a), p(b))` from the rows of the points (resident over the rows'
    /// slots after [`QMatrixPasses::prefetch`]; else column by column).
    fn submatrix(&mut self, rows: &[usize], columns: &[usize], out: &mut [f32]) {
        let n = rows.len();
        assert_eq!(out.len(), n * columns.len(), "submatrix: out holds rows × columns values");
        // The rows' slots: `0..m` covers them (the slots of the active positions come first).
        let m = rows.iter().map(|&t| self.slot_of[t] as usize + 1).max().unwrap_or(0);
        if !columns.iter().all(|&k| self.rows.cache.refresh(self.slot_of[k] as usize) >= m) {
            crate::column_sums::submatrix_by_columns(self, rows, columns, out);
            return;
        }
        let resident: Vec<&[f32]> =
            columns.iter().map(|&k| self.rows.cache.peek(self.slot_of[k] as usize, m)).collect();
        let (signs, slot_of) = (&self.signs, &self.slot_of);
        crate::column_sums::submatrix_in_parallel(out, n, |c, values| {
            let s_k = signs[columns[c]];
            for (value, &t) in values.iter_mut().zip(rows) {
                *value = signs[t] * s_k * resident[c][slot_of[t] as usize];
            }
        });
    }

    fn prefetch(&mut self, indices: &[usize], len: usize) {
        let m = self.slots_for(len);
        let mut rows: Vec<usize> = indices.iter().map(|&k| self.slot_of[k] as usize).collect();
        rows.sort_unstable();
        rows.dedup();
        let CachedColumns { kernel, cache, scratch, .. } = &mut self.rows;
        let store = |_: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
            store_rounded(0, c0, window, values);
        };
        fill_cached(kernel, cache, scratch, &rows, m, &store);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qmatrix::tests::{k_value, kernel};

    /// `Q[k, i]` of the doubled matrix, from the original position of each.
    fn expected(reference: &crate::DenseKernel<'_>, l: usize, a: usize, b: usize) -> f32 {
        let sign = |k: usize| if k < l { 1.0f32 } else { -1.0 };
        sign(a) * sign(b) * (k_value(reference, a % l, b % l) as f32)
    }

    #[test]
    fn svr_q_is_the_doubled_signed_kernel() {
        let (l, d) = (5, 2);
        let values: Vec<f64> = (0..l * d).map(|k| (k as f64 * 0.91).cos()).collect();
        let reference = kernel(&values, l, d);
        let mut q = SvrQ::new(kernel(&values, l, d), 0);
        q.swap_index(1, 7);
        let mut perm: Vec<usize> = (0..2 * l).collect();
        perm.swap(1, 7);
        let (ci, cj) = q.column_pair(1, 4, 2 * l);
        for k in 0..2 * l {
            assert_eq!(ci[k], expected(&reference, l, perm[1], perm[k]));
            assert_eq!(cj[k], expected(&reference, l, perm[4], perm[k]));
        }
    }

    /// Shrinking as SMO does it (positions swapped behind a shorter active length, then columns
    /// of that length, now and then of every position), with a cache of two rows: every column
    /// served is the doubled kernel's, whatever slots the points were moved to.
    #[test]
    fn columns_stay_exact_while_the_active_set_shrinks_and_grows() {
        let (l, d) = (23, 3);
        let values: Vec<f64> = (0..l * d).map(|k| (k as f64 * 0.57).sin()).collect();
        let reference = kernel(&values, l, d);
        for budget in [0, 1 << 20] {
            let mut q = SvrQ::new(kernel(&values, l, d), budget);
            let mut perm: Vec<usize> = (0..2 * l).collect();
            let mut state = 12345u64;
            let mut next = |n: usize| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((state >> 33) as usize) % n
            };
            let (mut len, mut fewest) = (2 * l, l);
            for round in 0..40 {
                if round % 10 == 9 {
                    len = 2 * l; // the gradient reconstruction
                } else {
                    // Shrink: a few positions of the active set moved behind it.
                    for _ in 0..next(8) {
                        if len > 2 {
                            let a = next(len);
                            len -= 1;
                            q.swap_index(a, len);
                            perm.swap(a, len);
                        }
                    }
                }
                if round % 7 == 3 {
                    let wanted = [next(len), next(len), next(len)];
                    q.prefetch(&wanted, len);
                }
                let (i, j) = (next(len), next(len));
                for (k, &value) in q.column(i, len).to_vec().iter().enumerate() {
                    assert_eq!(value, expected(&reference, l, perm[i], perm[k]), "round {round}");
                }
                if i != j {
                    let (ci, cj) = q.column_pair(i, j, len);
                    let (ci, cj) = (ci.to_vec(), cj.to_vec());
                    for k in 0..len {
                        assert_eq!(ci[k], expected(&reference, l, perm[i], perm[k]));
                        assert_eq!(cj[k], expected(&reference, l, perm[j], perm[k]));
                    }
                }
                // A column over every position (the `Ḡ` update), then the active one again.
                let full = q.column(j, 2 * l).to_vec();
                for (k, &value) in full.iter().enumerate() {
                    assert_eq!(value, expected(&reference, l, perm[j], perm[k]));
                }
                // The live slots are those of the active points, and no more.
                let m = q.slots_for(len);
                let mut points: Vec<usize> = perm[..len].iter().map(|&p| p % l).collect();
                points.sort_unstable();
                points.dedup();
                assert_eq!(m, points.len(), "round {round}");
                assert!(q.slot_of[..len].iter().all(|&s| (s as usize) < m));
                fewest = fewest.min(m);
            }
            assert!(fewest < l / 2, "the rows never got shorter: {fewest} of {l} slots");
        }
    }
}
