//! The two inner loops of every kernel column: the inner product of two rows and the
//! exponential of the RBF kernel, compiled twice (baseline x86-64 and AVX2 + FMA) and chosen once
//! at run time. Both versions sum in the same fixed order, so results do not depend on the
//! thread count; they may differ in the last bit between machines with and without FMA. The
//! AVX2 inner products of long rows are written with explicit 256-bit vectors, one left row
//! against two right rows or three left rows against one right row per call ([`dot_rows`]), in
//! the generic loop's order. The right rows may be `f32` when every value is exactly an `f32`
//! ([`RowValue`]): widened on load, the products and sums are bitwise those of the `f64` rows.
//! Where the CPU has AVX-512F, whole groups of four right rows go through
//! [`crate::simd_avx512`] (up to three left rows against four right rows per register block),
//! again in the generic loop's order (no value changes; a modest gain, measured in
//! `docs/performance.md`, "AVX-512 dot products").
//! Also here: the signed gather that assembles an ε-SVR column from a cached kernel column
//! ([`gather_signed`], AVX2 gathers).
//!
//! `exp` is evaluated by Cody–Waite range reduction `x = k ln 2 + r`, `|r| ≤ ln 2 / 2`, and a
//! degree-13 Taylor polynomial for `e^r` (truncation error below 1e-17), then scaled by `2^k`
//! through the exponent bits: a few ulp of `f64`, far below the `f32` in which kernel values are
//! cached, and free of calls, so the loop vectorises.

pub(crate) use crate::level::Level;

/// The level every loop runs at ([`Level::current`]).
#[inline]
pub(crate) fn level() -> Level {
    Level::current()
}

#[inline(always)]
pub(crate) fn multiply_add<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// Sixteen independent accumulators: four AVX2 vectors of four lanes.
const LANES: usize = 16;

/// Below this length a dot product uses one vector of four accumulators: the reduction of
/// sixteen would cost more than the products of a short row.
const SHORT: usize = 64;

/// A value of a stored row: `f64`, or `f32` for rows whose every value is exactly an `f32`
/// (`DenseKernel` keeps such rows in single precision to halve the bytes a column reads). The
/// widening to `f64` is exact, so a product over `f32` rows is bitwise the same product over the
/// same values in `f64`.
pub trait RowValue: Copy + Into<f64> + Send + Sync + sealed::Sealed {
    /// Whether the value is an `f32`.
    const SINGLE: bool;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
}

impl RowValue for f64 {
    const SINGLE: bool = false;
}

impl RowValue for f32 {
    const SINGLE: bool = true;
}

#[inline(always)]
fn dot_short<const FMA: bool, R: RowValue>(x: &[f64], z: &[R]) -> f64 {
    let mut acc = [0.0f64; 4];
    let xs = x.chunks_exact(4);
    let zs = z.chunks_exact(4);
    let (x_tail, z_tail) = (xs.remainder(), zs.remainder());
    for (a, b) in xs.zip(zs) {
        for k in 0..4 {
            acc[k] = multiply_add::<FMA>(a[k], b[k].into(), acc[k]);
        }
    }
    let mut tail = 0.0;
    for (a, b) in x_tail.iter().zip(z_tail) {
        tail = multiply_add::<FMA>(*a, (*b).into(), tail);
    }
    ((acc[0] + acc[2]) + (acc[1] + acc[3])) + tail
}

#[inline(always)]
pub(crate) fn dot_generic<const FMA: bool, R: RowValue>(x: &[f64], z: &[R]) -> f64 {
    if x.len().min(z.len()) < SHORT {
        return dot_short::<FMA, R>(x, z);
    }
    let mut acc = [0.0f64; LANES];
    let xs = x.chunks_exact(LANES);
    let zs = z.chunks_exact(LANES);
    let (x_tail, z_tail) = (xs.remainder(), zs.remainder());
    for (a, b) in xs.zip(zs) {
        for k in 0..LANES {
            acc[k] = multiply_add::<FMA>(a[k], b[k].into(), acc[k]);
        }
    }
    let mut tail = 0.0;
    for (a, b) in x_tail.iter().zip(z_tail) {
        tail = multiply_add::<FMA>(*a, (*b).into(), tail);
    }
    // Pairwise reduction in a fixed order.
    let mut width = LANES / 2;
    while width > 0 {
        for k in 0..width {
            acc[k] += acc[k + width];
        }
        width /= 2;
    }
    acc[0] + tail
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_avx2(x: &[f64], z: &[f64]) -> f64 {
    dot_generic::<true, f64>(x, z)
}

/// `⟨x, z⟩` (over the shorter length).
#[inline]
pub fn dot(x: &[f64], z: &[f64]) -> f64 {
    match level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU supports AVX2 and FMA (the level).
        level if level >= Level::Avx2 => unsafe { dot_avx2(x, z) },
        _ => dot_generic::<false, f64>(x, z),
    }
}

#[inline(always)]
fn dot_rows_generic<const FMA: bool, R: RowValue>(
    left: &[&[f64]],
    rows: &[R],
    outs: &mut [&mut [f64]],
) {
    let d = left[0].len();
    for (c, z) in rows.chunks_exact(d).enumerate() {
        for (x, out) in left.iter().zip(outs.iter_mut()) {
            out[c] = dot_generic::<FMA, R>(x, z);
        }
    }
}

/// `(⟨x, z⟩, ⟨x, w⟩)` for rows of at least [`SHORT`] values, with explicit 256-bit vectors:
/// lane `k` of the four accumulators of each product sums the positions `≡ k (mod 16)`, and
/// the reduction and tail follow [`dot_generic`], so each result is bitwise
/// `dot_generic::<true>`. Two products at once give eight independent chains of fused
/// multiply–adds, enough to hide their latency (four chains, or the 128-bit vectors the
/// compiler picks for the generic loop, leave the FMA units idle half of the time). `z` and
/// `w` may be `f32` rows ([`RowValue`]): widened exactly on load, same sums.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_two_long<R: RowValue>(x: &[f64], z: &[R], w: &[R]) -> (f64, f64) {
    use std::arch::x86_64::{_mm256_fmadd_pd, _mm256_loadu_pd, _mm256_setzero_pd};
    let n = x.len();
    assert!(z.len() == n && w.len() == n && n >= SHORT);
    let blocks = n / LANES;
    let mut acc_z = [_mm256_setzero_pd(); 4];
    let mut acc_w = [_mm256_setzero_pd(); 4];
    for b in 0..blocks {
        for v in 0..4 {
            let k = b * LANES + 4 * v;
            // SAFETY: k + 4 ≤ blocks · 16 ≤ n, the length of the three rows.
            unsafe {
                let xv = _mm256_loadu_pd(x.as_ptr().add(k));
                acc_z[v] = _mm256_fmadd_pd(xv, load_four(z, k), acc_z[v]);
                acc_w[v] = _mm256_fmadd_pd(xv, load_four(w, k), acc_w[v]);
            }
        }
    }
    let (mut tail_z, mut tail_w) = (0.0, 0.0);
    for k in blocks * LANES..n {
        tail_z = x[k].mul_add(z[k].into(), tail_z);
        tail_w = x[k].mul_add(w[k].into(), tail_w);
    }
    (reduce_lanes(acc_z) + tail_z, reduce_lanes(acc_w) + tail_w)
}

/// `(⟨x₀, z⟩, ⟨x₁, z⟩, ⟨x₂, z⟩)` for rows of at least [`SHORT`] values, each bitwise
/// `dot_generic::<true>` as in [`dot_two_long`]: three left rows against one right row, so
/// that each value of `z` is loaded (and, for an `f32` row, widened) once for three products;
/// twelve independent chains keep both FMA units busy.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_three_long<R: RowValue>(x: [&[f64]; 3], z: &[R]) -> [f64; 3] {
    use std::arch::x86_64::{_mm256_fmadd_pd, _mm256_loadu_pd, _mm256_setzero_pd};
    let n = z.len();
    assert!(x.iter().all(|row| row.len() == n) && n >= SHORT);
    let blocks = n / LANES;
    let mut acc = [[_mm256_setzero_pd(); 4]; 3];
    for b in 0..blocks {
        for v in 0..4 {
            let k = b * LANES + 4 * v;
            // SAFETY: k + 4 ≤ blocks · 16 ≤ n, the length of the four rows.
            unsafe {
                let zv = load_four(z, k);
                for (row, sums) in x.iter().zip(acc.iter_mut()) {
                    let xv = _mm256_loadu_pd(row.as_ptr().add(k));
                    sums[v] = _mm256_fmadd_pd(xv, zv, sums[v]);
                }
            }
        }
    }
    let mut out = [0.0; 3];
    for ((o, row), sums) in out.iter_mut().zip(x).zip(acc) {
        let mut tail = 0.0;
        for k in blocks * LANES..n {
            tail = row[k].mul_add(z[k].into(), tail);
        }
        *o = reduce_lanes(sums) + tail;
    }
    out
}

/// Four values of `row` at `k`, widened to `f64` when the row is `f32`.
///
/// # Safety
/// `k + 4 ≤ row.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn load_four<R: RowValue>(row: &[R], k: usize) -> std::arch::x86_64::__m256d {
    use std::arch::x86_64::{_mm256_cvtps_pd, _mm256_loadu_pd, _mm_loadu_ps};
    // SAFETY: the caller guarantees k + 4 ≤ row.len().
    unsafe {
        let at = row.as_ptr().add(k);
        if R::SINGLE {
            _mm256_cvtps_pd(_mm_loadu_ps(at.cast::<f32>()))
        } else {
            _mm256_loadu_pd(at.cast::<f64>())
        }
    }
}

/// The sum of sixteen lanes (four vectors) in [`dot_generic`]'s order: lanes `k += k + 8`,
/// then `k += k + 4`, `k += k + 2`, `k += k + 1`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
fn reduce_lanes(acc: [std::arch::x86_64::__m256d; 4]) -> f64 {
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_castpd256_pd128, _mm256_extractf128_pd, _mm_add_pd, _mm_cvtsd_f64,
        _mm_unpackhi_pd,
    };
    let half = _mm256_add_pd(_mm256_add_pd(acc[0], acc[2]), _mm256_add_pd(acc[1], acc[3]));
    let pair = _mm_add_pd(_mm256_castpd256_pd128(half), _mm256_extractf128_pd::<1>(half));
    _mm_cvtsd_f64(_mm_add_pd(pair, _mm_unpackhi_pd(pair, pair)))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_rows_avx2<R: RowValue>(left: &[&[f64]], rows: &[R], outs: &mut [&mut [f64]]) {
    let d = left[0].len();
    if d < SHORT {
        dot_rows_generic::<true, R>(left, rows, outs);
        return;
    }
    if let ([x0, x1, x2], [o0, o1, o2]) = (left, &mut *outs) {
        for (c, z) in rows.chunks_exact(d).enumerate() {
            [o0[c], o1[c], o2[c]] = dot_three_long([x0, x1, x2], z);
        }
        return;
    }
    let mut pairs = rows.chunks_exact(2 * d);
    for (p, zw) in pairs.by_ref().enumerate() {
        let (z, w) = zw.split_at(d);
        for (x, out) in left.iter().zip(outs.iter_mut()) {
            (out[2 * p], out[2 * p + 1]) = dot_two_long(x, z, w);
        }
    }
    let last = pairs.remainder();
    if last.len() >= d {
        let c = rows.len() / d - 1;
        for (x, out) in left.iter().zip(outs.iter_mut()) {
            out[c] = dot_generic::<true, R>(x, &last[..d]);
        }
    }
}

/// `outs[r][c] = ⟨left[r], row c of rows⟩` for the row-major `rows` (rows as long as every
/// `left[r]`, one output entry per row): one pass over `rows` for all the left vectors, each
/// product exactly [`dot`] (of the rows widened to `f64`, when they are `f32`).
///
/// # Panics
/// If `left` is empty, `left` and `outs` differ in length, the lengths of `left` differ, or an
/// output is shorter than the number of rows.
pub fn dot_rows<R: RowValue>(left: &[&[f64]], rows: &[R], outs: &mut [&mut [f64]]) {
    assert!(!left.is_empty() && left.len() == outs.len(), "dot_rows: one output per left row");
    let d = left[0].len();
    assert!(left.iter().all(|x| x.len() == d), "dot_rows: left rows of different lengths");
    let n_rows = rows.len().checked_div(d).unwrap_or(0);
    assert!(outs.iter().all(|o| o.len() >= n_rows), "dot_rows: output too short");
    if d == 0 {
        outs.iter_mut().for_each(|o| o.fill(0.0));
        return;
    }
    match level() {
        #[cfg(target_arch = "x86_64")]
        level if level >= Level::Avx2 => {
            // Blocks of four right rows in AVX-512 where the CPU has it, the rest (or all) in
            // AVX2: bitwise the same products either way.
            let done =
                if d >= SHORT && left.len() <= crate::SHARED_PASS_ROWS && level >= Level::Avx512 {
                    // SAFETY: the CPU supports AVX-512F (the level).
                    unsafe { crate::simd_avx512::dot_rows_blocked(left, rows, outs) }
                } else {
                    0
                };
            if done == n_rows {
                return;
            }
            let mut rest: Vec<&mut [f64]> = outs.iter_mut().map(|o| &mut o[done..]).collect();
            // SAFETY: the CPU supports AVX2 and FMA (the level).
            unsafe { dot_rows_avx2::<R>(left, &rows[done * d..n_rows * d], &mut rest) }
        }
        _ => dot_rows_generic::<false, R>(left, rows, outs),
    }
}

const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// `1.5 · 2^52`: adding it rounds to the nearest integer, kept in the low mantissa bits.
const ROUNDING: f64 = 6_755_399_441_055_744.0;
/// Below this, `e^x` is 0 in `f32` (and subnormal or 0 in `f64`).
const EXP_LOWEST: f64 = -708.0;
const EXP_HIGHEST: f64 = 709.0;

#[inline(always)]
fn exp_one<const FMA: bool>(x: f64) -> f64 {
    let clamped = x.clamp(EXP_LOWEST, EXP_HIGHEST);
    let shifted = multiply_add::<FMA>(clamped, LOG2_E, ROUNDING);
    let k = shifted - ROUNDING;
    let r = multiply_add::<FMA>(-k, LN2_LO, multiply_add::<FMA>(-k, LN2_HI, clamped));
    // Taylor coefficients 1/n!, n = 13 … 0, by Horner's rule.
    const C: [f64; 14] = [
        1.0 / 6_227_020_800.0,
        1.0 / 479_001_600.0,
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ];
    let mut p = C[0];
    for &c in &C[1..] {
        p = multiply_add::<FMA>(p, r, c);
    }
    // 2^k from the exponent bits; k is in [−1022, 1023] thanks to the clamp.
    let k_bits = (shifted.to_bits() as i64).wrapping_sub(ROUNDING.to_bits() as i64);
    let scale = f64::from_bits(((k_bits + 1023) as u64) << 52);
    let value = p * scale;
    if x < EXP_LOWEST {
        0.0
    } else if x > EXP_HIGHEST {
        f64::INFINITY
    } else {
        value
    }
}

#[inline(always)]
fn exp_in_place_generic<const FMA: bool>(values: &mut [f64]) {
    for v in values {
        *v = exp_one::<FMA>(*v);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn exp_in_place_avx2(values: &mut [f64]) {
    exp_in_place_generic::<true>(values);
}

/// The same loop, vectorised eight values at a time: each value's operations (and fused
/// multiply–adds) are those of the AVX2 loop, so the values are the same bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn exp_in_place_avx512(values: &mut [f64]) {
    exp_in_place_generic::<true>(values);
}

/// `v ← e^v` for every value (NaN stays NaN).
#[inline]
pub fn exp_in_place(values: &mut [f64]) {
    match level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU supports AVX-512F, AVX2 and FMA (the level).
        level if level >= Level::Avx512 => unsafe { exp_in_place_avx512(values) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU supports AVX2 and FMA (the level).
        level if level >= Level::Avx2 => unsafe { exp_in_place_avx2(values) },
        _ => exp_in_place_generic::<false>(values),
    }
}

/// `values[c] ← e^(−γ max(0, ‖x‖² + ‖z_c‖² − 2 values[c]))` for `c` below the length of
/// `sq_norms_z`, and `values[c] ← e^values[c]` past it: the RBF kernel from inner products. The
/// argument is computed as [`crate::KernelFunction::map_row`] computed it before calling
/// [`exp_in_place`] (no operation fused), in the same loop as the exponential: the values are
/// those of the two loops bit for bit, in one pass instead of two, the argument eight wide with
/// AVX-512 (the separate loop was baseline x86-64 code, two wide; measurements:
/// `docs/performance.md`, "The RBF argument in the exponential's loop").
pub fn rbf_in_place(values: &mut [f64], sq_norm_x: f64, sq_norms_z: &[f64], gamma: f64) {
    let n = values.len().min(sq_norms_z.len());
    let (head, tail) = values.split_at_mut(n);
    let sq_norms_z = &sq_norms_z[..n];
    match level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU supports AVX-512F, AVX2 and FMA (the level).
        level if level >= Level::Avx512 => unsafe {
            rbf_in_place_avx512(head, sq_norm_x, sq_norms_z, gamma)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU supports AVX2 and FMA (the level).
        level if level >= Level::Avx2 => unsafe {
            rbf_in_place_avx2(head, sq_norm_x, sq_norms_z, gamma)
        },
        _ => rbf_in_place_generic::<false>(head, sq_norm_x, sq_norms_z, gamma),
    }
    exp_in_place(tail);
}

#[inline(always)]
fn rbf_in_place_generic<const FMA: bool>(
    values: &mut [f64],
    sq_norm_x: f64,
    sq_norms_z: &[f64],
    gamma: f64,
) {
    for (v, &sq_norm_z) in values.iter_mut().zip(sq_norms_z) {
        *v = exp_one::<FMA>(-gamma * (sq_norm_x + sq_norm_z - 2.0 * *v).max(0.0));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn rbf_in_place_avx2(values: &mut [f64], sq_norm_x: f64, sq_norms_z: &[f64], gamma: f64) {
    rbf_in_place_generic::<true>(values, sq_norm_x, sq_norms_z, gamma);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn rbf_in_place_avx512(values: &mut [f64], sq_norm_x: f64, sq_norms_z: &[f64], gamma: f64) {
    rbf_in_place_generic::<true>(values, sq_norm_x, sq_norms_z, gamma);
}

/// `out[k] = scale · signs[k] · row[index[k]]` for every `k < out.len()`: the gather that
/// assembles a signed, permuted `Q` column from a cached kernel column (`SvrQ`). With `scale`
/// and `signs` in `{−1, +1}` every product is exact, so both versions give the same values.
///
/// # Panics
/// When `index` or `signs` is shorter than `out`, or an index is out of `row` (checked once,
/// before the loop, by the maximum index).
pub fn gather_signed(row: &[f32], index: &[u32], signs: &[f32], scale: f32, out: &mut [f32]) {
    let n = out.len();
    let (index, signs) = (&index[..n], &signs[..n]);
    #[cfg(target_arch = "x86_64")]
    if level() >= Level::Avx2 && row.len() <= i32::MAX as usize {
        // SAFETY: AVX2 is available.
        unsafe { gather_signed_avx2(row, index, signs, scale, out) };
        return;
    }
    let max_index = index.iter().copied().max().unwrap_or(0) as usize;
    assert!(n == 0 || max_index < row.len(), "gather_signed: index {max_index} out of the row");
    for ((o, &k), &s) in out.iter_mut().zip(index).zip(signs) {
        *o = scale * s * row[k as usize];
    }
}

/// [`gather_signed`] with AVX2 gathers, for `row.len() ≤ i32::MAX` and
/// `index.len() = signs.len() = out.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn gather_signed_avx2(row: &[f32], index: &[u32], signs: &[f32], scale: f32, out: &mut [f32]) {
    use std::arch::x86_64::{
        __m256i, _mm256_i32gather_ps, _mm256_loadu_ps, _mm256_loadu_si256, _mm256_mul_ps,
        _mm256_set1_ps, _mm256_storeu_ps,
    };
    let n = out.len();
    assert!(index.len() == n && signs.len() == n && row.len() <= i32::MAX as usize);
    // One vectorised pass bounds every gathered offset.
    let max_index = index.iter().copied().max().unwrap_or(0) as usize;
    assert!(n == 0 || max_index < row.len(), "gather_signed: index {max_index} out of the row");
    let scale_vector = _mm256_set1_ps(scale);
    let mut k = 0;
    while k + 8 <= n {
        // SAFETY: k + 8 ≤ n, the length of `index`, `signs` and `out`; the gathered offsets
        // are below `row.len()` ≤ i32::MAX (both checked above), so non-negative as i32.
        unsafe {
            let offsets = _mm256_loadu_si256(index.as_ptr().add(k).cast::<__m256i>());
            let values = _mm256_i32gather_ps::<4>(row.as_ptr(), offsets);
            let sign = _mm256_mul_ps(scale_vector, _mm256_loadu_ps(signs.as_ptr().add(k)));
            _mm256_storeu_ps(out.as_mut_ptr().add(k), _mm256_mul_ps(sign, values));
        }
        k += 8;
    }
    for t in k..n {
        out[t] = scale * signs[t] * row[index[t] as usize];
    }
}

#[cfg(test)]
mod tests;
