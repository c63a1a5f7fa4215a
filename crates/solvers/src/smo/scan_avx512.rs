//! The working-set scans of [`super::scan_simd`] with AVX-512F: eight positions per vector,
//! the memberships in mask registers.

use std::arch::x86_64::{
    __m512d, __mmask8, _mm256_cvtepi8_epi32, _mm256_cvtepu8_epi32, _mm256_loadu_ps, _mm512_add_pd,
    _mm512_cmp_pd_mask, _mm512_cvtepi32_pd, _mm512_cvtps_pd, _mm512_div_pd, _mm512_loadu_pd,
    _mm512_mask_blend_pd, _mm512_mask_cmp_pd_mask, _mm512_mul_pd, _mm512_set1_pd, _mm512_set_pd,
    _mm512_storeu_pd, _mm512_sub_pd, _mm_cvtsi64_si128, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_NEQ_OQ,
};

use super::scan_simd::{
    max_up_tail, merge_stored, second_scan_tail, simd_scans, vector_ops, SecondScanChunk,
};
use super::state::Bound;
use super::working_set::{ArgMax, Labels};
use super::TAU;

type Vector = __m512d;
type Mask = __mmask8;

/// Positions per vector.
const WIDTH: usize = 8;

#[inline]
#[target_feature(enable = "avx512f")]
fn splat(x: f64) -> Vector {
    _mm512_set1_pd(x)
}

/// `−a`, exactly: a product by −1 is a sign flip (AVX-512F has no `xor` of doubles).
#[inline]
#[target_feature(enable = "avx512f")]
fn negate(a: Vector) -> Vector {
    _mm512_mul_pd(a, _mm512_set1_pd(-1.0))
}

/// The eight values of `values` from `t`.
///
/// # Safety
/// `t + 8 ≤ values.len()`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load(values: &[f64], t: usize) -> Vector {
    // SAFETY: in bounds (the caller's contract).
    unsafe { _mm512_loadu_pd(values.as_ptr().add(t)) }
}

/// The eight values of `values` from `t`, widened (exact).
///
/// # Safety
/// `t + 8 ≤ values.len()`.
#[inline]
#[target_feature(enable = "avx512f,avx2")]
unsafe fn load_single(values: &[f32], t: usize) -> Vector {
    // SAFETY: in bounds (the caller's contract).
    unsafe { _mm512_cvtps_pd(_mm256_loadu_ps(values.as_ptr().add(t))) }
}

/// The labels (`±1.0`) and bounds (`Bound`'s byte as `f64`) of the positions `t..t + 8`.
///
/// # Safety
/// `t + 8 ≤ y.len(), bound.len()`.
#[inline]
#[target_feature(enable = "avx512f,avx2")]
unsafe fn labels_and_bounds(y: &[i8], bound: &[Bound], t: usize) -> (Vector, Vector) {
    // SAFETY: eight bytes from position t of each slice are in bounds (the caller's contract);
    // `Bound` is `repr(u8)`.
    unsafe {
        let y_bytes = y.as_ptr().add(t).cast::<i64>().read_unaligned();
        let bound_bytes = bound.as_ptr().add(t).cast::<i64>().read_unaligned();
        (
            _mm512_cvtepi32_pd(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(y_bytes))),
            _mm512_cvtepi32_pd(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(bound_bytes))),
        )
    }
}

vector_ops! { "avx512f";
    add = _mm512_add_pd => Vector,
    sub = _mm512_sub_pd => Vector,
    mul = _mm512_mul_pd => Vector,
    div = _mm512_div_pd => Vector,
    not_equal = _mm512_cmp_pd_mask::<_CMP_NEQ_OQ> => Mask,
    above = _mm512_cmp_pd_mask::<_CMP_GT_OQ> => Mask,
}

/// The lanes of both masks.
#[inline]
#[target_feature(enable = "avx512f")]
fn both(a: Mask, b: Mask) -> Mask {
    a & b
}

/// `a >= b` in the lanes of `mask`.
#[inline]
#[target_feature(enable = "avx512f")]
fn at_least_where(mask: Mask, a: Vector, b: Vector) -> Mask {
    _mm512_mask_cmp_pd_mask::<_CMP_GE_OQ>(mask, a, b)
}

/// `a > b` in the lanes of `mask`.
#[inline]
#[target_feature(enable = "avx512f")]
fn above_where(mask: Mask, a: Vector, b: Vector) -> Mask {
    _mm512_mask_cmp_pd_mask::<_CMP_GT_OQ>(mask, a, b)
}

/// `b` in the lanes of `mask`, `a` in the others.
#[inline]
#[target_feature(enable = "avx512f")]
fn select(mask: Mask, a: Vector, b: Vector) -> Vector {
    _mm512_mask_blend_pd(mask, a, b)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn any(mask: Mask) -> bool {
    mask != 0
}

/// The positions `0..8`.
#[inline]
#[target_feature(enable = "avx512f")]
fn first_positions() -> Vector {
    _mm512_set_pd(7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn store(a: Vector) -> [f64; WIDTH] {
    let mut values = [0.0; WIDTH];
    // SAFETY: `values` holds eight f64.
    unsafe { _mm512_storeu_pd(values.as_mut_ptr(), a) };
    values
}

simd_scans!("avx512f,avx2");
