//! Exact inner products of fixed-point rows, in 16-bit integers.
//!
//! Much float32 data is fixed-point: pixels `k/255`, USPS's `k/2000`, counts, 0/1. When every
//! value of the rows is `x = k·q` for one quantum `q > 0` (the smallest non-zero magnitude) and
//! integers `|k| ≤ 32767` with `d · max|k|² < 2³¹`, the inner product
//!
//! ```text
//! ⟨x, z⟩ = q² · Σ_t k_t k'_t
//! ```
//!
//! is summed exactly in 32-bit integer lanes and rounded once, by the final multiplication by
//! `q²` in `f64`. A vector instruction then multiplies 32 pairs (AVX-512BW `vpmaddwd`, or
//! AVX-512 VNNI `vpdpwssd` with the addition fused) where an `f32` multiply–add multiplies 16
//! ([`crate::single_products`]), and a row is half the bytes. USPS's column passes are bound by
//! those multiply–adds.
//!
//! * **Accuracy.** A float32 value computed as `k q` is within a rounding or two of it, and the
//!   quantum is accepted only when every value is within `2⁻²² M` of its `k q`, `M` the largest
//!   magnitude ([`FixedRows::from_single`]). The integer sum is exact, so the result is within
//!   `2⁻²² M Σ_t (|x_t| + |z_t|)` of the exact inner product of the given values (USPS: below
//!   `2·10⁻⁵` on values in `[0, 1]`), of the order of the `f32` sums it replaces
//!   (`d/16 · 2⁻²⁴ Σ_t |x_t z_t|`, `d ≥ 64` here), and the kernel values are stored in `f32`
//!   anyway (LIBSVM's `Qfloat`).
//! * **Determinism.** Integer sums do not depend on their order: every SIMD level, every pass
//!   and every thread count gives bitwise the same value (the speculative passes of
//!   [`crate::QMatrix`] need that).
//! * Used only where the kernel may sum in `f32` ([`crate::DenseKernel::with_single_products`],
//!   float32 input), then for every block of left rows, three per pass over the right rows
//!   (faster than the `f64` GEMM, and bitwise what a lone row gives). A one-vs-one pair's kernel
//!   gathers only the integer rows, found once for all the rows, in parallel, when the
//!   [`crate::RowFacts`] of `f32` rows are made ([`crate::RowFacts::kernel_with_single_products`]).
//!   The checks and conversions are vectorised with AVX2 or AVX-512 (the baseline loops, run
//!   by the first pair while the other workers waited, were a visible share of a USPS fit).
//! * Measured: `docs/performance.md`, "Fixed-point rows".

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

/// Largest integer a value may be, in quanta.
const MAX_MAGNITUDE: f64 = i16::MAX as f64;

/// A value is a multiple `k·q` of the quantum when it is within this fraction of the largest
/// magnitude `M` of `k·q`: two roundings of an `f32` operation on values up to `M` (USPS's
/// values, `k/2000` computed in `f32`, are within `4.4·10⁻⁸ = 2⁻²⁴·⁴` of theirs).
const ABSOLUTE_SLACK: f64 = 1.0 / (1u64 << 22) as f64;

/// Values checked between two early exits of [`FixedRows::from_single`].
const CHECK_CHUNK: usize = 4096;

/// Values per parallel task of [`FixedRows::from_single`].
const PARALLEL_CHUNK: usize = 64 * CHECK_CHUNK;

/// `1.5 · 2⁵²`: `(x + ROUNDING) − ROUNDING` is `x` rounded to the nearest integer (ties to
/// even) for `|x| < 2⁵¹`.
const ROUNDING: f64 = 6_755_399_441_055_744.0;

/// Rows as integer multiples of one quantum.
#[derive(Debug, Clone)]
pub(crate) struct FixedRows {
    /// `values[r·d + t] = k` with row `r`'s value `t` equal to `k·quantum` (within rounding).
    pub(crate) values: Vec<i16>,
    /// `quantum²`, the scale of every integer inner product.
    pub(crate) quantum_sq: f64,
}

impl FixedRows {
    /// The rows `single` (`d` values each, `d > 0`) as multiples of one quantum `q`, or `None`
    /// when some value is not one (within [`ABSOLUTE_SLACK`] of the largest magnitude `M`),
    /// when a multiple exceeds `i16`, when `d · max|k|²` could overflow an `i32` sum, or when
    /// every value is zero. The quantum is `M / round(M / m)` for the smallest non-zero
    /// magnitude `m` (so `m` itself must be one quantum, up to rounding). Stops at the first
    /// value that fails.
    pub(crate) fn from_single(single: &[f32], d: usize) -> Option<Self> {
        assert!(d > 0 && single.len().is_multiple_of(d), "FixedRows: rows of d > 0 values");
        // Magnitudes compared as the integers of their bits (the same order for finite values):
        // zero counts as the largest for the smallest magnitude.
        let (smallest, largest) = single
            .par_chunks(PARALLEL_CHUNK)
            .map(magnitude_bits_range)
            .reduce(|| (u32::MAX, 0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
        if smallest == u32::MAX {
            return None;
        }
        // The smallest magnitude is one quantum up to its rounding; the largest, a whole number
        // of them, gives the quantum to the rounding of one value.
        let (smallest, largest) =
            (f64::from(f32::from_bits(smallest)), f64::from(f32::from_bits(largest)));
        let largest_multiple = (largest / smallest).round();
        if largest_multiple > MAX_MAGNITUDE
            || (d as f64) * largest_multiple * largest_multiple >= f64::from(i32::MAX)
        {
            return None;
        }
        let quantum = largest / largest_multiple;
        let grid = Grid { quantum, inverse: 1.0 / quantum, slack: largest * ABSOLUTE_SLACK };
        let mut values = vec![0i16; single.len()];
        // Set by the first block with a value off the grid: the later blocks stop early.
        let off = AtomicBool::new(false);
        values.par_chunks_mut(PARALLEL_CHUNK).zip(single.par_chunks(PARALLEL_CHUNK)).for_each(
            |(out, chunk)| {
                for (out, chunk) in out.chunks_mut(CHECK_CHUNK).zip(chunk.chunks(CHECK_CHUNK)) {
                    if off.load(Ordering::Relaxed) || !grid.to_multiples(chunk, out) {
                        off.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            },
        );
        (!off.into_inner()).then_some(FixedRows { values, quantum_sq: quantum * quantum })
    }
}

/// The smallest non-zero and the largest magnitude of `values`, as the bits of their `f32`
/// (`u32::MAX` for the smallest when every value is zero): vectorised (AVX2 or AVX-512 where
/// the CPU has them; baseline x86-64 has no unsigned 32-bit minimum).
fn magnitude_bits_range(values: &[f32]) -> (u32, u32) {
    #[inline(always)]
    fn body(values: &[f32]) -> (u32, u32) {
        let (mut smallest, mut largest) = (u32::MAX, 0u32);
        for &v in values {
            let bits = v.to_bits() & 0x7fff_ffff;
            smallest = smallest.min(if bits == 0 { u32::MAX } else { bits });
            largest = largest.max(bits);
        }
        (smallest, largest)
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx2")]
        fn avx512(values: &[f32]) -> (u32, u32) {
            body(values)
        }
        #[target_feature(enable = "avx2")]
        fn avx2(values: &[f32]) -> (u32, u32) {
            body(values)
        }
        if crate::Level::current() >= crate::Level::Avx512 {
            // SAFETY: the CPU has AVX-512F and AVX2.
            return unsafe { avx512(values) };
        }
        if crate::Level::current() >= crate::Level::Avx2 {
            // SAFETY: the CPU has AVX2.
            return unsafe { avx2(values) };
        }
    }
    body(values)
}

/// The grid of multiples of one quantum that [`FixedRows::from_single`] checks values against.
#[derive(Clone, Copy)]
struct Grid {
    quantum: f64,
    inverse: f64,
    /// How far a value may be from its multiple.
    slack: f64,
}

impl Grid {
    /// `out[t] = k` with `values[t]` within the slack of `k·quantum`, for every `t`; `false`
    /// (and `out` partly written) when some value is not. Every value is at most the largest
    /// magnitude `M`, so `|k| ≤ 32768`. Vectorised where the CPU allows (the same values bit
    /// for bit: each is a few separate `f64` operations, none fused).
    fn to_multiples(self, values: &[f32], out: &mut [i16]) -> bool {
        #[inline(always)]
        fn body(grid: Grid, values: &[f32], out: &mut [i16]) -> bool {
            let mut off = false;
            for (k_out, &v) in out.iter_mut().zip(values) {
                let v = f64::from(v);
                // Rounded to the nearest integer by the addition of 1.5 · 2⁵² (exact for
                // |v / q| < 2⁵¹; `f64::round` is a libm call on baseline x86-64, 45 % of a USPS
                // fit when it was used here).
                let k = (v * grid.inverse + ROUNDING) - ROUNDING;
                off |= (v - k * grid.quantum).abs() > grid.slack;
                *k_out = k as i32 as i16;
            }
            !off
        }
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx2")]
            fn avx512(grid: Grid, values: &[f32], out: &mut [i16]) -> bool {
                body(grid, values, out)
            }
            #[target_feature(enable = "avx2")]
            fn avx2(grid: Grid, values: &[f32], out: &mut [i16]) -> bool {
                body(grid, values, out)
            }
            if crate::Level::current() >= crate::Level::Avx512 {
                // SAFETY: the CPU has AVX-512F and AVX2.
                return unsafe { avx512(self, values, out) };
            }
            if crate::Level::current() >= crate::Level::Avx2 {
                // SAFETY: the CPU has AVX2.
                return unsafe { avx2(self, values, out) };
            }
        }
        body(self, values, out)
    }
}

/// `Σ_t x_t z_t`, exactly.
fn dot_generic(x: &[i16], z: &[i16]) -> i64 {
    x.iter().zip(z).map(|(&a, &b)| i64::from(a) * i64::from(b)).sum()
}

/// `outs[r][c] = quantum_sq · ⟨left[r], row c of rows⟩` for every row of the row-major `rows`
/// (rows as long as every `left[r]`), one to three left rows, exactly summed (see the module).
pub(crate) fn dot_rows_fixed(
    left: &[&[i16]],
    rows: &[i16],
    quantum_sq: f64,
    outs: &mut [&mut [f64]],
) {
    let d = left[0].len();
    assert!(d > 0 && rows.len().is_multiple_of(d), "dot_rows_fixed: rows as long as the left rows");
    assert!(left.len() <= 3 && left.len() == outs.len(), "dot_rows_fixed: one to three rows");
    #[cfg(target_arch = "x86_64")]
    {
        let level = crate::Level::current();
        if level >= crate::Level::Avx512 {
            // SAFETY: the CPU has AVX-512F and AVX-512BW (and VNNI when asked for).
            let done = unsafe {
                if level >= crate::Level::Avx512Vnni {
                    avx512::dot_rows_blocked_vnni(left, rows, quantum_sq, outs)
                } else {
                    avx512::dot_rows_blocked_bw(left, rows, quantum_sq, outs)
                }
            };
            dot_rows_each(left, &rows[done * d..], quantum_sq, outs, done);
            return;
        }
        if level >= crate::Level::Avx2 {
            // SAFETY: the CPU has AVX2.
            unsafe { avx2::dot_rows(left, rows, quantum_sq, outs) };
            return;
        }
    }
    dot_rows_each(left, rows, quantum_sq, outs, 0);
}

/// [`dot_rows_fixed`] row by row, generic, writing from `outs[r][first]`.
fn dot_rows_each(
    left: &[&[i16]],
    rows: &[i16],
    quantum_sq: f64,
    outs: &mut [&mut [f64]],
    first: usize,
) {
    let d = left[0].len();
    for (c, z) in rows.chunks_exact(d).enumerate() {
        for (x, out) in left.iter().zip(outs.iter_mut()) {
            out[first + c] = dot_generic(x, z) as f64 * quantum_sq;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_castsi256_si128, _mm256_extracti128_si256,
        _mm256_loadu_si256, _mm256_madd_epi16, _mm256_setzero_si256, _mm_add_epi32,
        _mm_cvtsi128_si32, _mm_shuffle_epi32,
    };

    use super::dot_generic;

    /// Values per vector.
    const LANES: usize = 16;

    /// The eight lanes' sum.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn reduce(sum: __m256i) -> i64 {
        let four = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256::<1>(sum));
        let two = _mm_add_epi32(four, _mm_shuffle_epi32::<0b01_00_11_10>(four));
        let one = _mm_add_epi32(two, _mm_shuffle_epi32::<0b00_00_00_01>(two));
        i64::from(_mm_cvtsi128_si32(one))
    }

    /// `⟨x, z⟩`, exactly.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn dot(x: &[i16], z: &[i16]) -> i64 {
        let n = x.len();
        assert_eq!(z.len(), n);
        let mut sum = _mm256_setzero_si256();
        for b in 0..n / LANES {
            // SAFETY: (b + 1) · 16 ≤ n, the length of both rows.
            unsafe {
                let x = _mm256_loadu_si256(x.as_ptr().add(b * LANES).cast());
                let z = _mm256_loadu_si256(z.as_ptr().add(b * LANES).cast());
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(x, z));
            }
        }
        let start = n / LANES * LANES;
        reduce(sum) + dot_generic(&x[start..], &z[start..])
    }

    /// `outs[r][c] = quantum_sq · ⟨left[r], row c of rows⟩`.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dot_rows(
        left: &[&[i16]],
        rows: &[i16],
        quantum_sq: f64,
        outs: &mut [&mut [f64]],
    ) {
        let d = left[0].len();
        for (c, z) in rows.chunks_exact(d).enumerate() {
            for (x, out) in left.iter().zip(outs.iter_mut()) {
                out[c] = dot(x, z) as f64 * quantum_sq;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi32, _mm512_dpwssd_epi32, _mm512_madd_epi16,
        _mm512_maskz_loadu_epi16, _mm512_reduce_add_epi32, _mm512_setzero_si512,
    };

    /// Values per vector.
    const LANES: usize = 32;
    /// Right rows per register block.
    const RIGHT_BLOCK: usize = 4;

    /// `outs[r][first + c]` for the four right rows `z` (row-major, `d` values each) and the
    /// `M` left rows `x`.
    ///
    /// # Safety
    /// Inlined only into functions with AVX-512F and AVX-512BW enabled, and AVX-512 VNNI when
    /// `VNNI` (an instruction the caller's features lack would not be inlined: a call per
    /// multiply–add made the first version much slower than the `f32` sums; measurements:
    /// `docs/performance.md`, "Fixed-point rows").
    #[inline(always)]
    unsafe fn dot_block<const M: usize, const VNNI: bool>(
        x: [&[i16]; M],
        z: &[i16],
        quantum_sq: f64,
        outs: &mut [&mut [f64]],
        first: usize,
    ) {
        let d = x[0].len();
        assert_eq!(z.len(), RIGHT_BLOCK * d);
        let mut sums = [[_mm512_setzero_si512(); RIGHT_BLOCK]; M];
        let mut k = 0;
        while k < d {
            let mask: u32 = if d - k >= LANES { u32::MAX } else { (1u32 << (d - k)) - 1 };
            // SAFETY: the mask covers only positions k..min(k + 32, d) of each row, which are
            // in bounds (masked-off positions are not read and load as zero).
            unsafe {
                let right: [__m512i; RIGHT_BLOCK] = std::array::from_fn(|c| {
                    _mm512_maskz_loadu_epi16(mask, z.as_ptr().add(c * d + k).cast())
                });
                for m in 0..M {
                    let left = _mm512_maskz_loadu_epi16(mask, x[m].as_ptr().add(k).cast());
                    for c in 0..RIGHT_BLOCK {
                        sums[m][c] = if VNNI {
                            _mm512_dpwssd_epi32(sums[m][c], left, right[c])
                        } else {
                            _mm512_add_epi32(sums[m][c], _mm512_madd_epi16(left, right[c]))
                        };
                    }
                }
            }
            k += LANES;
        }
        for m in 0..M {
            for c in 0..RIGHT_BLOCK {
                outs[m][first + c] = f64::from(_mm512_reduce_add_epi32(sums[m][c])) * quantum_sq;
            }
        }
    }

    /// [`super::dot_rows_fixed`] for the first `4 · ⌊n_rows / 4⌋` rows with AVX-512 VNNI;
    /// returns how many rows it did.
    ///
    /// # Safety
    /// The CPU has AVX-512F, AVX-512BW and AVX-512 VNNI (`Level::Avx512Vnni`).
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn dot_rows_blocked_vnni(
        left: &[&[i16]],
        rows: &[i16],
        quantum_sq: f64,
        outs: &mut [&mut [f64]],
    ) -> usize {
        // SAFETY: the features `dot_block::<_, true>` needs are enabled here.
        unsafe { dot_rows_blocked::<true>(left, rows, quantum_sq, outs) }
    }

    /// [`super::dot_rows_fixed`] for the first `4 · ⌊n_rows / 4⌋` rows with AVX-512BW; returns
    /// how many rows it did.
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512BW (`Level::Avx512`).
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn dot_rows_blocked_bw(
        left: &[&[i16]],
        rows: &[i16],
        quantum_sq: f64,
        outs: &mut [&mut [f64]],
    ) -> usize {
        // SAFETY: the features `dot_block::<_, false>` needs are enabled here.
        unsafe { dot_rows_blocked::<false>(left, rows, quantum_sq, outs) }
    }

    /// The blocks of four right rows, inlined into the two functions above.
    ///
    /// # Safety
    /// As [`dot_block`].
    #[inline(always)]
    unsafe fn dot_rows_blocked<const VNNI: bool>(
        left: &[&[i16]],
        rows: &[i16],
        quantum_sq: f64,
        outs: &mut [&mut [f64]],
    ) -> usize {
        let d = left[0].len();
        let n_blocks = rows.len() / d / RIGHT_BLOCK;
        for (block, z) in rows.chunks_exact(RIGHT_BLOCK * d).take(n_blocks).enumerate() {
            let first = block * RIGHT_BLOCK;
            // SAFETY: as this function's.
            unsafe {
                match left {
                    [x0] => dot_block::<1, VNNI>([x0], z, quantum_sq, outs, first),
                    [x0, x1] => dot_block::<2, VNNI>([x0, x1], z, quantum_sq, outs, first),
                    [x0, x1, x2] => dot_block::<3, VNNI>([x0, x1, x2], z, quantum_sq, outs, first),
                    _ => unreachable!("dot_rows_blocked: one to three left rows"),
                }
            }
        }
        n_blocks * RIGHT_BLOCK
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::XorShift;

    /// Fixed-point rows `k / scale` in `f32` with `|k| ≤ max_k`, about a third zero.
    fn fixed_rows(n: usize, d: usize, scale: f32, max_k: i32, seed: u64) -> Vec<f32> {
        let mut random = XorShift::seeded(seed);
        (0..n * d)
            .map(|_| {
                let state = random.next_u64();
                let k = (state >> 33) as i32 % (2 * max_k + 1) - max_k;
                if state.is_multiple_of(3) {
                    0.0
                } else {
                    k as f32 / scale
                }
            })
            .collect()
    }

    #[test]
    fn quantum_is_found_and_every_value_is_its_multiple() {
        for (scale, max_k) in [(2000.0f32, 2000), (255.0, 255), (1.0, 30), (4.0, 100)] {
            let d = 77;
            let mut single = fixed_rows(40, d, scale, max_k, 3);
            // The smallest magnitude, once, so that the quantum is exactly 1 / scale.
            single[5] = 1.0 / scale;
            let fixed = FixedRows::from_single(&single, d).expect("fixed-point rows");
            let quantum = 1.0 / f64::from(scale);
            assert!((fixed.quantum_sq / (quantum * quantum) - 1.0).abs() < 1e-6);
            let largest = single.iter().fold(0.0f64, |m, &v| m.max(f64::from(v.abs())));
            for (&k, &v) in fixed.values.iter().zip(&single) {
                let v = f64::from(v);
                assert!((f64::from(k) * quantum - v).abs() <= largest * ABSOLUTE_SLACK, "{k} {v}");
            }
        }
    }

    #[test]
    fn many_blocks_on_two_threads_give_every_multiple_and_see_an_off_value_anywhere() {
        // Three parallel blocks and a part, on a pool of two threads.
        let d = 256;
        let n = (3 * PARALLEL_CHUNK + 5 * CHECK_CHUNK + 7) / d + 1;
        let mut single = fixed_rows(n, d, 2000.0, 2000, 11);
        single[n * d - 1] = 1.0 / 2000.0;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let fixed = pool.install(|| FixedRows::from_single(&single, d)).expect("fixed-point");
        // Every value's multiple, as one value at a time rounds it.
        let quantum = 1.0 / 2000.0f64;
        assert!((fixed.quantum_sq / (quantum * quantum) - 1.0).abs() < 1e-6);
        for (t, (&k, &v)) in fixed.values.iter().zip(&single).enumerate() {
            assert_eq!(i32::from(k), (f64::from(v) * 2000.0).round() as i32, "value {t}");
        }
        // One value off the grid in the first, a middle or the last block: refused.
        for t in [0, PARALLEL_CHUNK + 3, 2 * PARALLEL_CHUNK + CHECK_CHUNK, n * d - 2] {
            let mut off = single.clone();
            off[t] = 0.3 / 2000.0 + 0.5;
            assert!(pool.install(|| FixedRows::from_single(&off, d)).is_none(), "off at {t}");
        }
    }

    #[test]
    fn rows_that_are_not_fixed_point_are_refused() {
        let d = 64;
        // Random mantissas: not multiples of the smallest value.
        let mut stream = XorShift(7);
        let random: Vec<f32> = (0..10 * d)
            .map(|_| (stream.next_u64() >> 40) as f32 / (1u64 << 24) as f32 + 0.1)
            .collect();
        assert!(FixedRows::from_single(&random, d).is_none());
        // All zero: no quantum.
        assert!(FixedRows::from_single(&vec![0.0; 3 * d], d).is_none());
        // Multiples too large for i16.
        let mut wide = vec![1.0f32; 2 * d];
        wide[3] = 40_000.0;
        assert!(FixedRows::from_single(&wide, d).is_none());
        // Multiples whose products could overflow an i32 sum over a row: 3 · 30000² ≥ 2³¹.
        let mut overflow = vec![30_000.0f32; 3];
        overflow[0] = 1.0;
        assert!(FixedRows::from_single(&overflow, 3).is_none());
        assert!(FixedRows::from_single(&overflow[..2], 2).is_some());
        // Half a quantum off.
        let mut off = vec![0.5f32; d];
        off[1] = 1.25;
        assert!(FixedRows::from_single(&off, d).is_none());
    }

    #[test]
    fn products_are_exact_and_the_same_on_every_level_and_block() {
        for d in [1, 16, 31, 32, 33, 64, 77, 256] {
            for n_rows in [0, 1, 3, 4, 5, 9] {
                let mut single = fixed_rows(n_rows + 3, d, 2000.0, 2000, d as u64 + n_rows as u64);
                single[0] = 1.0 / 2000.0;
                let fixed = FixedRows::from_single(&single, d).expect("fixed-point rows");
                let rows = &fixed.values[3 * d..];
                for n_left in 1..=3 {
                    let left: Vec<&[i16]> = fixed.values.chunks_exact(d).take(n_left).collect();
                    let mut out = vec![f64::NAN; n_left * n_rows.max(1)];
                    let mut outs: Vec<&mut [f64]> = out.chunks_mut(n_rows.max(1)).collect();
                    dot_rows_fixed(&left, rows, fixed.quantum_sq, &mut outs);
                    for (r, x) in left.iter().enumerate() {
                        for c in 0..n_rows {
                            let z = &rows[c * d..(c + 1) * d];
                            let exact: i64 =
                                x.iter().zip(z).map(|(&a, &b)| i64::from(a) * i64::from(b)).sum();
                            let expected = exact as f64 * fixed.quantum_sq;
                            assert_eq!(outs[r][c].to_bits(), expected.to_bits(), "d {d} c {c}");
                            // And close to the f64 inner product of the f32 values.
                            let x32 = &single[r * d..(r + 1) * d];
                            let z32 = &single[(3 + c) * d..(4 + c) * d];
                            let (dot, scale) =
                                x32.iter().zip(z32).fold((0.0, 0.0), |acc, (&a, &b)| {
                                    let p = f64::from(a) * f64::from(b);
                                    (acc.0 + p, acc.1 + p.abs())
                                });
                            assert!((outs[r][c] - dot).abs() <= scale * 1e-6 + 1e-300);
                        }
                    }
                }
            }
        }
    }
}
