//! Dot products of up to three left rows against four right rows at a time, in AVX-512.
//!
//! A kernel column over wide dense rows is a pass of dot products, one per right row. The
//! AVX2 passes ([`crate::simd`]) load every left value again for each right row: with three
//! left rows that is four loads per three fused multiply–adds of four lanes. Here four right
//! rows share each left load (register blocking `3 × 4`: twenty-four 512-bit accumulators), so
//! a pass does three left and four right loads per twelve multiply–adds of eight lanes. The pass
//! is mostly bound by streaming the right rows from the caches, so the gain is modest
//! (measurements: `docs/performance.md`, "AVX-512 dot products").
//!
//! Every product is bitwise the one [`crate::simd::dot_generic`] computes: lane `k` of the two
//! accumulators of a product (lanes 0–7 and 8–15) sums the positions `≡ k (mod 16)` with fused
//! multiply–adds in increasing order, the lanes are reduced pairwise in the same order
//! (`k += k + 8`, `k += k + 4`, `k += k + 2`, `k += k + 1`), and the positions past the last
//! whole block of sixteen are summed separately and added last. So which pass computed a column
//! (AVX2, AVX-512, one row or several) never changes a value, nor the solver's path.

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::{
    __m512d, _mm256_add_pd, _mm256_castpd256_pd128, _mm256_extractf128_pd, _mm256_loadu_ps,
    _mm512_add_pd, _mm512_castpd512_pd256, _mm512_cvtps_pd, _mm512_extractf64x4_pd,
    _mm512_fmadd_pd, _mm512_loadu_pd, _mm512_setzero_pd, _mm_add_pd, _mm_cvtsd_f64,
    _mm_unpackhi_pd,
};

use crate::simd::RowValue;

/// Lanes of one product's accumulators (two vectors of eight), as in `dot_generic`.
const LANES: usize = 16;

/// Right rows per register block.
pub(crate) const RIGHT_BLOCK: usize = 4;

/// Eight values of `row` at `k`, widened to `f64` when the row is `f32` (exact).
///
/// # Safety
/// `k + 8 ≤ row.len()`, and the CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load_eight<R: RowValue>(row: &[R], k: usize) -> __m512d {
    // SAFETY: the caller guarantees k + 8 ≤ row.len().
    unsafe {
        let at = row.as_ptr().add(k);
        if R::SINGLE {
            _mm512_cvtps_pd(_mm256_loadu_ps(at.cast::<f32>()))
        } else {
            _mm512_loadu_pd(at.cast::<f64>())
        }
    }
}

/// The sum of the sixteen lanes `low` (0–7) and `high` (8–15) in `dot_generic`'s order.
#[target_feature(enable = "avx512f")]
#[inline]
fn reduce_lanes(low: __m512d, high: __m512d) -> f64 {
    let eight = _mm512_add_pd(low, high);
    let four = _mm256_add_pd(_mm512_castpd512_pd256(eight), _mm512_extractf64x4_pd::<1>(eight));
    let two = _mm_add_pd(_mm256_castpd256_pd128(four), _mm256_extractf128_pd::<1>(four));
    _mm_cvtsd_f64(_mm_add_pd(two, _mm_unpackhi_pd(two, two)))
}

/// `outs[r][first + c] = ⟨x[r], z_c⟩` for `M ≤ 3` left rows and the four right rows `z_c`
/// that follow each other in `z` (each `n ≥ 16` long), each bitwise `dot_generic::<true>` (see
/// the module documentation).
#[target_feature(enable = "avx512f")]
#[inline]
fn dot_block<const M: usize, R: RowValue>(
    x: [&[f64]; M],
    z: &[R],
    outs: &mut [&mut [f64]],
    first: usize,
) {
    let n = x[0].len();
    assert!(x.iter().all(|r| r.len() == n) && z.len() == RIGHT_BLOCK * n && outs.len() == M);
    let (z0, rest) = z.split_at(n);
    let (z1, rest) = rest.split_at(n);
    let (z2, z3) = rest.split_at(n);
    let right_rows = [z0, z1, z2, z3];
    let blocks = n / LANES;
    let mut acc = [[[_mm512_setzero_pd(); 2]; RIGHT_BLOCK]; M];
    for b in 0..blocks {
        for half in 0..2 {
            let k = b * LANES + 8 * half;
            // SAFETY: k + 8 ≤ blocks · 16 ≤ n, the length of every row.
            unsafe {
                let right =
                    [load_eight(z0, k), load_eight(z1, k), load_eight(z2, k), load_eight(z3, k)];
                for (row, sums) in x.iter().zip(acc.iter_mut()) {
                    let left = _mm512_loadu_pd(row.as_ptr().add(k));
                    for (sum, &value) in sums.iter_mut().zip(&right) {
                        sum[half] = _mm512_fmadd_pd(left, value, sum[half]);
                    }
                }
            }
        }
    }
    for ((out, row), sums) in outs.iter_mut().zip(x).zip(&acc) {
        for (c, (right, sum)) in right_rows.iter().zip(sums).enumerate() {
            let mut tail = 0.0;
            for k in blocks * LANES..n {
                tail = row[k].mul_add(right[k].into(), tail);
            }
            out[first + c] = reduce_lanes(sum[0], sum[1]) + tail;
        }
    }
}

/// Calls `$block([x0, …], z, $outs, first)` for every whole group `z` of `$per` right rows of
/// the row-major `$rows` (rows as long as `$left[0]`), `first` being the group's first row, with
/// one to three left rows `$left` as an array (one `$block` instance per count); evaluates to
/// the number of rows done. Shared by the `f64`-sum passes here and the `f32`-sum passes of
/// [`crate::single_products`].
macro_rules! over_right_blocks {
    ($block:ident, $left:expr, $rows:expr, $outs:expr, $per:expr) => {{
        let (left, rows, outs) = ($left, $rows, $outs);
        let d = left[0].len();
        let n_blocks = rows.len() / d / $per;
        for (block, z) in rows.chunks_exact($per * d).take(n_blocks).enumerate() {
            let first = block * $per;
            match left {
                [x0] => $block([x0], z, outs, first),
                [x0, x1] => $block([x0, x1], z, outs, first),
                [x0, x1, x2] => $block([x0, x1, x2], z, outs, first),
                _ => unreachable!("over_right_blocks: one to three left rows"),
            }
        }
        n_blocks * $per
    }};
}
pub(crate) use over_right_blocks;

/// `outs[r][c] = ⟨left[r], row c of rows⟩` for the first `RIGHT_BLOCK · ⌊n_rows / RIGHT_BLOCK⌋`
/// rows of the row-major `rows` (rows as long as every `left[r]`, at least 16), one to three
/// left rows; returns how many rows it did. The caller does the rest.
///
/// # Safety
/// The CPU has AVX-512F ([`Level::Avx512`](crate::Level::Avx512)).
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn dot_rows_blocked<R: RowValue>(
    left: &[&[f64]],
    rows: &[R],
    outs: &mut [&mut [f64]],
) -> usize {
    over_right_blocks!(dot_block, left, rows, outs, RIGHT_BLOCK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::{dot_generic, dot_rows};
    use crate::test_random::XorShift;

    /// Values with every bit of the mantissa in use (sums depend on their order), exact in
    /// `f32` so that the same rows exist in both precisions.
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut random = XorShift::seeded(seed);
        (0..n).map(|_| f64::from((random.uniform() * 2.0 - 1.0) as f32)).collect()
    }

    fn check<R: RowValue>(convert: impl Fn(f64) -> R) {
        for d in [16, 64, 77, 256, 300] {
            for n_rows in [0, 1, 3, 4, 5, 8, 11] {
                let rows64 = values(n_rows * d, d as u64 + 7 * n_rows as u64);
                let rows: Vec<R> = rows64.iter().map(|&v| convert(v)).collect();
                for n_left in 1..=3 {
                    let left_values = values(n_left * d, 99 + n_left as u64);
                    let left: Vec<&[f64]> = left_values.chunks_exact(d).collect();
                    let mut out = vec![f64::NAN; n_left * n_rows];
                    let mut outs: Vec<&mut [f64]> = out.chunks_mut(n_rows.max(1)).collect();
                    outs.truncate(n_left);
                    if n_rows == 0 {
                        continue;
                    }
                    dot_rows(&left, &rows, &mut outs);
                    for (r, x) in left.iter().enumerate() {
                        for c in 0..n_rows {
                            let expected = dot_generic::<true, R>(x, &rows[c * d..(c + 1) * d]);
                            assert_eq!(
                                outs[r][c].to_bits(),
                                expected.to_bits(),
                                "d {d}, {n_rows} rows, left row {r} of {n_left}, column {c}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_product_is_bitwise_the_generic_dot() {
        check::<f64>(|v| v);
        check::<f32>(|v| v as f32);
    }

    #[test]
    fn blocks_cover_whole_groups_of_four_rows() {
        if crate::Level::current() < crate::Level::Avx512 {
            return;
        }
        let d = 64;
        let rows = values(7 * d, 3);
        let left_values = values(2 * d, 4);
        let left: Vec<&[f64]> = left_values.chunks_exact(d).collect();
        let mut out = [0.0; 2 * 7];
        let mut outs: Vec<&mut [f64]> = out.chunks_mut(7).collect();
        // SAFETY: the CPU has AVX-512F (checked above).
        let done = unsafe { dot_rows_blocked(&left, &rows, &mut outs) };
        assert_eq!(done, 4);
        assert!(outs.iter().all(|o| o[4..].iter().all(|&v| v == 0.0)));
    }
}
