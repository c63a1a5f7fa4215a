//! `SvrQ`: the `2l × 2l` ε-SVR matrix `Q_ij = s_i s_j K(x_{i mod l}, x_{j mod l})` with
//! `s = (+1…+1, −1…−1)` (LIBSVM's `SVR_Q`; Chang & Lin 2011, §4), a [`QMatrix`].
//!
//! Kernel columns of the `l` points are cached (full length, never permuted); `swap_index` only
//! permutes the sign and index maps, and the signed `Q` columns are assembled into two rotating
//! buffers, as LIBSVM's `SVR_Q` does.

use std::mem::MaybeUninit;

use crate::cache::{CacheStats, RowCache};
use crate::qmatrix::{fill_rooms, scratch_of, QMatrix};
use crate::source::KernelSource;
use crate::team::DisjointSlices;

/// The doubled ε-SVR matrix over `l` points (see the module documentation).
#[derive(Debug)]
pub struct SvrQ<K> {
    kernel: K,
    /// `s_p` (exact in `f32`, the type of the assembled columns).
    signs: Vec<f32>,
    /// The point behind each position (`u32`: the assembly streams it with the signs).
    index: Vec<u32>,
    diagonal: Vec<f64>,
    cache: RowCache,
    scratch: Vec<f64>,
    buffers: [Vec<f32>; 2],
    next_buffer: usize,
    /// `(position, len)` of the column each buffer holds, until the next swap: SMO asks for
    /// `Q_i` in the working-set scan and again with `Q_j` for the step.
    assembled: [Option<(usize, usize)>; 2],
}

impl<K: KernelSource> SvrQ<K> {
    /// The `2l × 2l` matrix for the `l` points of `kernel`.
    pub fn new(kernel: K, cache_bytes: usize) -> Self {
        let l = kernel.len();
        assert!(u32::try_from(l).is_ok(), "SvrQ: at most 2^32 - 1 points");
        let signs = (0..2 * l).map(|k| if k < l { 1.0 } else { -1.0 }).collect();
        let index = (0..2 * l).map(|k| (k % l.max(1)) as u32).collect();
        let diagonal = (0..2 * l).map(|k| kernel.diagonal_value(k % l)).collect();
        let cache = RowCache::new(l, cache_bytes);
        SvrQ {
            kernel,
            signs,
            index,
            diagonal,
            cache,
            scratch: Vec::new(),
            buffers: [vec![0.0; 2 * l], vec![0.0; 2 * l]],
            next_buffer: 0,
            assembled: [None, None],
        }
    }

    /// The buffer holding `Q[0..len', i]` with `len' ≥ len`, if any.
    fn holding(&self, i: usize, len: usize) -> Option<usize> {
        (0..2).find(|&slot| matches!(self.assembled[slot], Some((p, l)) if p == i && l >= len))
    }

    /// Makes the kernel rows of the points behind positions `i` and `j` resident (the missing
    /// ones computed as one block), each pinned while the other is made room for. The `f32`
    /// values are stored window by window on the threads that compute them
    /// ([`KernelSource::fill_block_finishing`]), not in a second, serial pass.
    fn ensure_rows(&mut self, i: usize, j: usize) {
        let l = self.kernel.len();
        let (real_i, real_j) = (self.index[i] as usize, self.index[j] as usize);
        let SvrQ { kernel, cache, scratch, .. } = self;
        if real_i == real_j {
            let (cached, room) = cache.get_unfilled(real_i, l, Some(real_i));
            let have = cached.len();
            fill_rooms(kernel, scratch, &[real_i], &mut [room], have, &store_rounded);
            // SAFETY: `fill_rooms` wrote every position of the room.
            unsafe { cache.set_filled(real_i, l) };
            return;
        }
        let [(cached_i, room_i), (cached_j, room_j)] = cache.get_pair_unfilled(real_i, real_j, l);
        let (have_i, have_j) = (cached_i.len(), cached_j.len());
        let pair = [real_i, real_j];
        if have_i == have_j {
            fill_rooms(kernel, scratch, &pair, &mut [room_i, room_j], have_i, &store_rounded);
        } else {
            fill_rooms(kernel, scratch, &pair[..1], &mut [room_i], have_i, &store_rounded);
            fill_rooms(kernel, scratch, &pair[1..], &mut [room_j], have_j, &store_rounded);
        }
        // SAFETY: `fill_rooms` wrote every position of both rooms.
        unsafe {
            cache.set_filled(real_i, l);
            cache.set_filled(real_j, l);
        }
    }

    /// Builds `Q[0..len, i]` into buffer `slot_i` and `Q[0..len, j]` into the other buffer
    /// (when `j` is given) in one pass over the position maps.
    fn assemble(&mut self, i: usize, j: Option<usize>, len: usize, slot_i: usize) {
        self.ensure_rows(i, j.unwrap_or(i));
        let l = self.kernel.len();
        let SvrQ { cache, signs, index, buffers, .. } = self;
        let [first, second] = buffers;
        let (buffer_i, buffer_j) = if slot_i == 0 { (first, second) } else { (second, first) };
        let row_i = cache.peek(index[i] as usize, l);
        let s_i = signs[i];
        let row_j = j.map(|j| (cache.peek(index[j] as usize, l), signs[j]));
        // Elementwise, so chunking (in parallel for long columns) does not change any value.
        let body = |(lo, (out_i, out_j)): (usize, (&mut [f32], &mut [f32]))| {
            let (signs, index) = (&signs[lo..], &index[lo..]);
            crate::simd::gather_signed(row_i, index, signs, s_i, out_i);
            if let Some((row_j, s_j)) = row_j {
                crate::simd::gather_signed(row_j, index, signs, s_j, out_j);
            }
        };
        let (out_i, out_j) = (&mut buffer_i[..len], &mut buffer_j[..len]);
        if len < crate::PARALLEL_MIN_LEN {
            body((0, (out_i, out_j)));
        } else {
            let (out_i, out_j) = (DisjointSlices::new(out_i), DisjointSlices::new(out_j));
            crate::team::for_each_chunk(len.div_ceil(ASSEMBLE_CHUNK), |c| {
                let (lo, hi) = (c * ASSEMBLE_CHUNK, ((c + 1) * ASSEMBLE_CHUNK).min(len));
                // SAFETY: chunk c alone writes lo..hi of both buffers.
                body((lo, unsafe { (out_i.range(lo, hi), out_j.range(lo, hi)) }));
            });
        }
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
        let slot = match self.holding(i, len) {
            Some(slot) => slot,
            None => {
                let slot = self.next_buffer;
                self.assemble(i, None, len, slot);
                self.assembled[slot] = Some((i, len));
                slot
            }
        };
        // The other buffer is the one to overwrite next, so that this column stays valid.
        self.next_buffer = 1 - slot;
        &self.buffers[slot][..len]
    }

    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        let slot_i = match self.holding(i, len) {
            Some(slot_i) => {
                self.assemble(j, None, len, 1 - slot_i);
                slot_i
            }
            None => {
                self.assemble(i, Some(j), len, 0);
                0
            }
        };
        self.assembled[slot_i] = Some((i, len));
        self.assembled[1 - slot_i] = Some((j, len));
        self.next_buffer = slot_i;
        (&self.buffers[slot_i][..len], &self.buffers[1 - slot_i][..len])
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.assembled = [None, None];
        self.signs.swap(i, j);
        self.index.swap(i, j);
        self.diagonal.swap(i, j);
    }

    fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    fn is_cached(&self, i: usize, _len: usize) -> bool {
        self.cache.cached_len(self.index[i] as usize) >= self.kernel.len()
    }

    fn cache_capacity(&self, _len: usize) -> usize {
        self.cache.budget_values() / self.kernel.len().max(1)
    }

    fn prefetch(&mut self, indices: &[usize], _len: usize) {
        let l = self.kernel.len();
        let mut missing: Vec<usize> = indices
            .iter()
            .map(|&k| self.index[k] as usize)
            .filter(|&real| self.cache.cached_len(real) < l)
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return;
        }
        let scratch = scratch_of(&mut self.scratch, missing.len() * l);
        self.kernel.fill_block(&missing, 0, l, scratch);
        for (&real, values) in missing.iter().zip(scratch.chunks_exact(l)) {
            let (cached, room) = self.cache.get_unfilled(real, l, None);
            let start = cached.len();
            store_rounded(0, start, room, &values[start..]);
            // SAFETY: every position of the room was written (`values` holds all `l`).
            unsafe { self.cache.set_filled(real, l) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qmatrix::tests::{k_value, kernel};

    #[test]
    fn svr_q_is_the_doubled_signed_kernel() {
        let (l, d) = (5, 2);
        let values: Vec<f64> = (0..l * d).map(|k| (k as f64 * 0.91).cos()).collect();
        let reference = kernel(&values, l, d);
        let mut q = SvrQ::new(kernel(&values, l, d), 0);
        q.swap_index(1, 7);
        let mut perm: Vec<usize> = (0..2 * l).collect();
        perm.swap(1, 7);
        let sign = |k: usize| if k < l { 1.0f32 } else { -1.0 };
        let (ci, cj) = q.column_pair(1, 4, 2 * l);
        for k in 0..2 * l {
            let expected_i = sign(perm[1])
                * sign(perm[k])
                * (k_value(&reference, perm[1] % l, perm[k] % l) as f32);
            let expected_j = sign(perm[4])
                * sign(perm[k])
                * (k_value(&reference, perm[4] % l, perm[k] % l) as f32);
            assert_eq!(ci[k], expected_i);
            assert_eq!(cj[k], expected_j);
        }
    }
}
