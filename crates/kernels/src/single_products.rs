//! Inner products summed in `f32`, for float32 input over wide rows read row-major.
//!
//! [`crate::simd::dot_rows`] widens `f32` rows to `f64` and sums in `f64`: every product is then
//! bitwise the one of the `f64` rows, at the price of two conversion uops per eight values on
//! the ports that also run the multiply–adds, which bound the column passes of wide rows such
//! as USPS's (measurements: `docs/performance.md`, "Inner products summed in `f32`"). When the
//! user gives float32 rows, the kernel may sum in `f32` instead (16 lanes per AVX-512 vector, no
//! conversion): the kernel values are cached in `f32` anyway (LIBSVM's `Qfloat`), and a sum of
//! `d` products in `f32` is within about `d/16 · 2⁻²⁴` of `Σ|x_k z_k|` (sixteen lanes of `d/16`
//! terms, then four additions), far below the solver's tolerance.
//!
//! The order is fixed, so the three versions here (generic, AVX2 + FMA, AVX-512F) give
//! bitwise the same value, whichever pass computes a column and on any thread count:
//!
//! * lane `k ∈ 0..16` sums `x_t z_t` over the positions `t ≡ k (mod 16)` of the whole blocks of
//!   sixteen, in increasing order, with fused multiply–adds from `0`;
//! * the lanes are reduced pairwise: `k += k + 8` (`k < 8`), `k += k + 4`, `k += k + 2`,
//!   `k += k + 1`;
//! * the positions past the last whole block are summed in order with fused multiply–adds
//!   from `0` and added last; the `f32` result is widened to `f64` (exact).
//!
//! On a CPU without AVX2 and FMA the generic version multiplies and adds separately (as
//! [`crate::simd`] does for `f64`).

use crate::level::Level;
use crate::simd::level;

/// Lanes of one product's sum.
const LANES: usize = 16;

/// Right rows per AVX-512 register block.
#[cfg(target_arch = "x86_64")]
const RIGHT_BLOCK: usize = 4;

#[inline(always)]
fn multiply_add<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// The sixteen lanes reduced in the module's order.
#[inline(always)]
fn reduce(mut lanes: [f32; LANES]) -> f32 {
    let mut width = LANES / 2;
    while width > 0 {
        for k in 0..width {
            lanes[k] += lanes[k + width];
        }
        width /= 2;
    }
    lanes[0]
}

/// The positions past the last whole block of sixteen, summed in order.
#[inline(always)]
fn tail<const FMA: bool>(x: &[f32], z: &[f32]) -> f32 {
    let start = x.len() / LANES * LANES;
    let mut sum = 0.0;
    for (a, b) in x[start..].iter().zip(&z[start..]) {
        sum = multiply_add::<FMA>(*a, *b, sum);
    }
    sum
}

/// `⟨x, z⟩` in the module's order (`x` and `z` of the same length).
#[inline(always)]
pub(crate) fn dot_single<const FMA: bool>(x: &[f32], z: &[f32]) -> f64 {
    debug_assert_eq!(x.len(), z.len());
    let mut lanes = [0.0f32; LANES];
    for (a, b) in x.chunks_exact(LANES).zip(z.chunks_exact(LANES)) {
        for k in 0..LANES {
            lanes[k] = multiply_add::<FMA>(a[k], b[k], lanes[k]);
        }
    }
    f64::from(reduce(lanes) + tail::<FMA>(x, z))
}

fn dot_rows_generic<const FMA: bool>(left: &[&[f32]], rows: &[f32], outs: &mut [&mut [f64]]) {
    let d = left[0].len();
    for (c, z) in rows.chunks_exact(d).enumerate() {
        for (x, out) in left.iter().zip(outs.iter_mut()) {
            out[c] = dot_single::<FMA>(x, z);
        }
    }
}

/// `outs[r][c] = ⟨left[r], row c of rows⟩` in `f32` (module documentation), widened to `f64`,
/// for the row-major `rows` (rows as long as every `left[r]`): one pass over `rows` for all the
/// left rows.
///
/// # Panics
/// If `left` is empty, `left` and `outs` differ in length, the lengths of `left` differ, or an
/// output is shorter than the number of rows.
pub fn dot_rows_single(left: &[&[f32]], rows: &[f32], outs: &mut [&mut [f64]]) {
    assert!(
        !left.is_empty() && left.len() == outs.len(),
        "dot_rows_single: one output per left row"
    );
    let d = left[0].len();
    assert!(left.iter().all(|x| x.len() == d), "dot_rows_single: left rows of different lengths");
    let n_rows = rows.len().checked_div(d).unwrap_or(0);
    assert!(outs.iter().all(|o| o.len() >= n_rows), "dot_rows_single: output too short");
    if d == 0 {
        outs.iter_mut().for_each(|o| o[..n_rows].fill(0.0));
        return;
    }
    let rows = &rows[..n_rows * d];
    match level() {
        #[cfg(target_arch = "x86_64")]
        level if level >= Level::Avx2 => {
            let done = if d >= LANES && left.len() <= 3 && level >= Level::Avx512 {
                // SAFETY: the CPU supports AVX-512F (the level).
                unsafe { avx512::dot_rows_blocked(left, rows, outs) }
            } else {
                0
            };
            // SAFETY: the CPU supports AVX2 and FMA (the level).
            unsafe { avx2::dot_rows(left, &rows[done * d..], outs, done) }
        }
        _ => dot_rows_generic::<false>(left, rows, outs),
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_castps256_ps128, _mm256_extractf128_ps, _mm256_fmadd_ps,
        _mm256_loadu_ps, _mm256_setzero_ps, _mm_add_ps, _mm_add_ss, _mm_cvtss_f32, _mm_movehl_ps,
        _mm_shuffle_ps,
    };

    use super::{tail, LANES};

    /// The sixteen lanes `low` (0–7) and `high` (8–15) reduced in the module's order.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn reduce(low: __m256, high: __m256) -> f32 {
        let eight = _mm256_add_ps(low, high);
        let four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps::<1>(eight));
        let two = _mm_add_ps(four, _mm_movehl_ps(four, four));
        _mm_cvtss_f32(_mm_add_ss(two, _mm_shuffle_ps::<0b01>(two, two)))
    }

    /// `⟨x, z⟩` in the module's order.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn dot(x: &[f32], z: &[f32]) -> f64 {
        let n = x.len();
        assert_eq!(z.len(), n);
        let (mut low, mut high) = (_mm256_setzero_ps(), _mm256_setzero_ps());
        for b in 0..n / LANES {
            let k = b * LANES;
            // SAFETY: k + 16 ≤ n, the length of both rows.
            unsafe {
                let (x, z) = (x.as_ptr().add(k), z.as_ptr().add(k));
                low = _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(z), low);
                high = _mm256_fmadd_ps(_mm256_loadu_ps(x.add(8)), _mm256_loadu_ps(z.add(8)), high);
            }
        }
        f64::from(reduce(low, high) + tail::<true>(x, z))
    }

    /// `outs[r][first + c] = ⟨left[r], row c of rows⟩`.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot_rows(
        left: &[&[f32]],
        rows: &[f32],
        outs: &mut [&mut [f64]],
        first: usize,
    ) {
        let d = left[0].len();
        for (c, z) in rows.chunks_exact(d).enumerate() {
            for (x, out) in left.iter().zip(outs.iter_mut()) {
                out[first + c] = dot(x, z);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        __m512, _mm512_add_ps, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_permute_ps,
        _mm512_setzero_ps, _mm512_shuffle_f32x4, _mm512_storeu_ps,
    };

    use super::{tail, LANES, RIGHT_BLOCK};

    /// The lanes of four sums reduced in the module's order, all four at once: the result's
    /// lane `4c` holds sum `c`. Each step adds the same lanes as the scalar reduction (an
    /// addition does not depend on the order of its operands), only packed together.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn reduce_four(sums: [__m512; RIGHT_BLOCK]) -> [f32; RIGHT_BLOCK] {
        // `k += k + 8`: quarters (0, 1) plus quarters (2, 3) of each sum.
        let first = _mm512_add_ps(
            _mm512_shuffle_f32x4::<0b0100_0100>(sums[0], sums[1]),
            _mm512_shuffle_f32x4::<0b1110_1110>(sums[0], sums[1]),
        );
        let second = _mm512_add_ps(
            _mm512_shuffle_f32x4::<0b0100_0100>(sums[2], sums[3]),
            _mm512_shuffle_f32x4::<0b1110_1110>(sums[2], sums[3]),
        );
        // `k += k + 4`: quarter c of the result holds lanes 0–3 of sum c.
        let four = _mm512_add_ps(
            _mm512_shuffle_f32x4::<0b1000_1000>(first, second),
            _mm512_shuffle_f32x4::<0b1101_1101>(first, second),
        );
        // `k += k + 2`, then `k += k + 1`, inside each quarter.
        let two = _mm512_add_ps(four, _mm512_permute_ps::<0b0100_1110>(four));
        let one = _mm512_add_ps(two, _mm512_permute_ps::<0b1011_0001>(two));
        let mut lanes = [0.0f32; LANES];
        // SAFETY: `lanes` holds sixteen f32.
        unsafe { _mm512_storeu_ps(lanes.as_mut_ptr(), one) };
        [lanes[0], lanes[4], lanes[8], lanes[12]]
    }

    /// `outs[r][first + c] = ⟨x[r], z_c⟩` for `M ≤ 3` left rows and the four right rows `z_c`
    /// that follow each other in `z` (each `n ≥ 16` long).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn dot_block<const M: usize>(x: [&[f32]; M], z: &[f32], outs: &mut [&mut [f64]], first: usize) {
        let n = x[0].len();
        assert!(x.iter().all(|r| r.len() == n) && z.len() == RIGHT_BLOCK * n && outs.len() == M);
        let mut acc = [[_mm512_setzero_ps(); RIGHT_BLOCK]; M];
        for b in 0..n / LANES {
            let k = b * LANES;
            // SAFETY: k + 16 ≤ n, the length of every row (z holds four rows of n).
            unsafe {
                let at = z.as_ptr().add(k);
                let right = [
                    _mm512_loadu_ps(at),
                    _mm512_loadu_ps(at.add(n)),
                    _mm512_loadu_ps(at.add(2 * n)),
                    _mm512_loadu_ps(at.add(3 * n)),
                ];
                for (row, sums) in x.iter().zip(acc.iter_mut()) {
                    let left = _mm512_loadu_ps(row.as_ptr().add(k));
                    for (sum, &value) in sums.iter_mut().zip(&right) {
                        *sum = _mm512_fmadd_ps(left, value, *sum);
                    }
                }
            }
        }
        for ((out, row), sums) in outs.iter_mut().zip(x).zip(acc) {
            let reduced = reduce_four(sums);
            for (c, value) in reduced.into_iter().enumerate() {
                let right = &z[c * n..(c + 1) * n];
                out[first + c] = f64::from(value + tail::<true>(row, right));
            }
        }
    }

    /// `outs[r][c] = ⟨left[r], row c of rows⟩` for the first `4 · ⌊n_rows / 4⌋` rows (one to
    /// three left rows of at least sixteen values); returns how many rows it did.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn dot_rows_blocked(
        left: &[&[f32]],
        rows: &[f32],
        outs: &mut [&mut [f64]],
    ) -> usize {
        crate::simd_avx512::over_right_blocks!(dot_block, left, rows, outs, RIGHT_BLOCK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values with every bit of the mantissa in use, in [-1, 1).
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|v| v.to_bits()).collect()
    }

    /// Every pass (each number of left rows, row lengths below, at and past sixteen, a number of
    /// right rows that is not a multiple of four) gives bitwise the generic order's value.
    #[test]
    fn every_pass_gives_bitwise_the_generic_order() {
        let fma = crate::Level::current() >= crate::Level::Avx2;
        for d in [1, 5, 15, 16, 17, 31, 48, 63, 256, 301] {
            let n_rows = 11;
            let rows = values(n_rows * d, d as u64);
            let lefts: Vec<Vec<f32>> = (0..3).map(|r| values(d, 100 + r)).collect();
            for m in 1..=3 {
                let left: Vec<&[f32]> = lefts[..m].iter().map(Vec::as_slice).collect();
                let mut outs = vec![vec![f64::NAN; n_rows]; m];
                let mut views: Vec<&mut [f64]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
                dot_rows_single(&left, &rows, &mut views);
                for (x, out) in left.iter().zip(&outs) {
                    let expected: Vec<f64> =
                        rows.chunks_exact(d)
                            .map(|z| {
                                if fma {
                                    dot_single::<true>(x, z)
                                } else {
                                    dot_single::<false>(x, z)
                                }
                            })
                            .collect();
                    assert_eq!(bits(out), bits(&expected), "d = {d}, {m} left rows");
                }
            }
        }
    }

    /// The generic order is the one the module documents (a plain transcription of it), and the
    /// sums are within the `f32` bound of the exact `f64` products.
    #[test]
    fn the_order_is_the_documented_one_and_close_to_the_double_sum() {
        for d in [3, 16, 40, 256] {
            let x = values(d, 7);
            let z = values(d, 8);
            let blocks = d / 16;
            let mut lanes = [0.0f32; 16];
            for t in 0..blocks * 16 {
                lanes[t % 16] = x[t].mul_add(z[t], lanes[t % 16]);
            }
            let mut t8 = [0.0f32; 8];
            for k in 0..8 {
                t8[k] = lanes[k] + lanes[k + 8];
            }
            let t4: Vec<f32> = (0..4).map(|k| t8[k] + t8[k + 4]).collect();
            let t2: Vec<f32> = (0..2).map(|k| t4[k] + t4[k + 2]).collect();
            let mut rest = 0.0f32;
            for t in blocks * 16..d {
                rest = x[t].mul_add(z[t], rest);
            }
            let expected = f64::from((t2[0] + t2[1]) + rest);
            assert_eq!(dot_single::<true>(&x, &z).to_bits(), expected.to_bits(), "d = {d}");
            let exact: f64 = x.iter().zip(&z).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum();
            let magnitude: f64 = x.iter().zip(&z).map(|(a, b)| f64::from(a * b).abs()).sum();
            let bound = (d as f64 / 16.0 + 5.0) * f64::from(f32::EPSILON) * magnitude;
            assert!((expected - exact).abs() <= bound, "d = {d}: {expected} vs {exact}");
        }
    }
}
