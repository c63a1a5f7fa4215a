//! The two scans of working-set selection with AVX-512F, eight positions at a time: the scheme
//! of [`super::scan_avx2`] (lanes that keep the last position of their maximum, merged by
//! value with ties to the larger position, the `n mod 8` last positions through the scalar
//! loop) with twice the lanes and mask registers for the memberships. Every value is computed
//! by the same operations as in the sequential scans, so the answers are theirs bit for bit.

use std::arch::x86_64::{
    __m512d, __mmask8, _mm256_cvtepi8_epi32, _mm256_cvtepu8_epi32, _mm256_loadu_ps, _mm512_add_pd,
    _mm512_cmp_pd_mask, _mm512_cvtepi32_pd, _mm512_cvtps_pd, _mm512_div_pd, _mm512_loadu_pd,
    _mm512_mask_blend_pd, _mm512_mask_cmp_pd_mask, _mm512_mul_pd, _mm512_set1_pd, _mm512_set_pd,
    _mm512_storeu_pd, _mm512_sub_pd, _mm_cvtsi64_si128, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_NEQ_OQ,
};

use super::scan_avx2::{max_up_tail, merge_stored, second_scan_tail, SecondScanChunk};
use super::state::Bound;
use super::working_set::ArgMax;
use super::TAU;

/// Positions per vector.
const WIDTH: usize = 8;

/// The labels (`±1.0`) and bounds (`Bound`'s byte as `f64`) of the positions `t..t + 8`.
///
/// # Safety
/// AVX-512F is available and `t + 8 ≤ y.len(), bound.len()`.
#[inline]
#[target_feature(enable = "avx512f,avx2")]
unsafe fn labels_and_bounds(y: &[i8], bound: &[Bound], t: usize) -> (__m512d, __m512d) {
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

/// The lanes' maxima and where they were found (position `−1` for none).
struct Lanes {
    value: __m512d,
    position: __m512d,
}

impl Lanes {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new() -> Lanes {
        Lanes { value: _mm512_set1_pd(f64::NEG_INFINITY), position: _mm512_set1_pd(-1.0) }
    }

    /// Takes `value` in the lanes of `member` where it is `>=` the lane's maximum.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn offer(&mut self, member: __mmask8, value: __m512d, position: __m512d) {
        let take = _mm512_mask_cmp_pd_mask::<_CMP_GE_OQ>(member, value, self.value);
        self.value = _mm512_mask_blend_pd(take, self.value, value);
        self.position = _mm512_mask_blend_pd(take, self.position, position);
    }
}

/// The maximum over the lanes of every set, ties to the larger position (positions are offsets
/// from `offset`).
#[inline]
#[target_feature(enable = "avx512f")]
fn merge_lanes(sets: &[Lanes], offset: usize) -> ArgMax {
    let mut best = ArgMax::EMPTY;
    for lanes in sets {
        let (mut value, mut position) = ([0.0; WIDTH], [0.0; WIDTH]);
        // SAFETY: both arrays hold eight f64.
        unsafe {
            _mm512_storeu_pd(value.as_mut_ptr(), lanes.value);
            _mm512_storeu_pd(position.as_mut_ptr(), lanes.position);
        }
        best = merge_stored(best, &value, &position, offset);
    }
    best
}

/// The positions `0..8` as `f64`.
#[inline]
#[target_feature(enable = "avx512f")]
fn first_positions() -> __m512d {
    _mm512_set_pd(7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0)
}

/// `−y_t G_t` maximised over `t ∈ I_up` (see [`super::working_set::max_up_sequential`]).
///
/// # Safety
/// AVX-512F and AVX2 are available.
#[target_feature(enable = "avx512f,avx2")]
pub(super) unsafe fn max_up(y: &[i8], bound: &[Bound], gradient: &[f64], offset: usize) -> ArgMax {
    let n = y.len().min(bound.len()).min(gradient.len());
    let (one, half, minus_one) = (_mm512_set1_pd(1.0), _mm512_set1_pd(0.5), _mm512_set1_pd(-1.0));
    let eight = _mm512_set1_pd(WIDTH as f64);
    let mut position = first_positions();
    // Two sets of lanes, for alternate vectors: two chains of compare–blend in flight.
    let (mut even, mut odd) = (Lanes::new(), Lanes::new());
    let mut t = 0;
    macro_rules! step {
        ($lanes:expr) => {{
            // SAFETY: t + 8 ≤ n ≤ every slice's length.
            let ((labels, bounds), g) = unsafe {
                (labels_and_bounds(y, bound, t), _mm512_loadu_pd(gradient.as_ptr().add(t)))
            };
            // I_up excludes α_t = u_t (byte 1) for y_t = +1 and α_t = 0 (byte 0) for y_t = −1.
            let excluded = _mm512_mul_pd(_mm512_add_pd(one, labels), half);
            let member = _mm512_cmp_pd_mask::<_CMP_NEQ_OQ>(bounds, excluded);
            // −(y_t G_t), exactly: a product by −1 is a sign flip.
            let value = _mm512_mul_pd(_mm512_mul_pd(labels, g), minus_one);
            $lanes.offer(member, value, position);
            position = _mm512_add_pd(position, eight);
            t += WIDTH;
        }};
    }
    while t + 2 * WIDTH <= n {
        step!(even);
        step!(odd);
    }
    while t + WIDTH <= n {
        step!(even);
    }
    max_up_tail(merge_lanes(&[even, odd], offset), (y, bound, gradient), t, offset)
}

/// `(argmax of b²/a, max over I_low of y_t G_t)` over the chunk (see
/// [`super::working_set::second_scan_sequential`]).
///
/// # Safety
/// AVX-512F and AVX2 are available.
#[target_feature(enable = "avx512f,avx2")]
pub(super) unsafe fn second_scan(chunk: &SecondScanChunk<'_>) -> (ArgMax, f64) {
    let SecondScanChunk { y, bound, gradient, diagonal, q_i, .. } = *chunk;
    let n = y.len();
    assert!([bound.len(), gradient.len(), diagonal.len(), q_i.len()].iter().all(|&m| m == n));
    let two_y_i = 2.0 * f64::from(chunk.y_i);
    let (one, half) = (_mm512_set1_pd(1.0), _mm512_set1_pd(0.5));
    let (zero, tau) = (_mm512_set1_pd(0.0), _mm512_set1_pd(TAU));
    let (g_max, q_ii, two_y_i_v) =
        (_mm512_set1_pd(chunk.g_max), _mm512_set1_pd(chunk.q_ii), _mm512_set1_pd(two_y_i));
    let eight = _mm512_set1_pd(WIDTH as f64);
    let mut position = first_positions();
    let (mut even, mut odd) = (Lanes::new(), Lanes::new());
    let mut maxima = [_mm512_set1_pd(f64::NEG_INFINITY); 2];
    let mut t = 0;
    macro_rules! step {
        ($lanes:expr, $g_max2:expr) => {{
            // SAFETY: t + 8 ≤ n = every slice's length.
            let (labels, bounds, g) = unsafe {
                let (labels, bounds) = labels_and_bounds(y, bound, t);
                (labels, bounds, _mm512_loadu_pd(gradient.as_ptr().add(t)))
            };
            // I_low excludes α_t = 0 (byte 0) for y_t = +1 and α_t = u_t (byte 1) for
            // y_t = −1.
            let excluded = _mm512_mul_pd(_mm512_sub_pd(one, labels), half);
            let member = _mm512_cmp_pd_mask::<_CMP_NEQ_OQ>(bounds, excluded);
            let y_g = _mm512_mul_pd(labels, g);
            let raise = _mm512_mask_cmp_pd_mask::<_CMP_GE_OQ>(member, y_g, $g_max2);
            $g_max2 = _mm512_mask_blend_pd(raise, $g_max2, y_g);
            let grad_diff = _mm512_add_pd(g_max, y_g);
            let candidate = _mm512_mask_cmp_pd_mask::<_CMP_GT_OQ>(member, grad_diff, zero);
            // The division only for a vector with a candidate (few near the optimum).
            if candidate != 0 {
                // SAFETY: t + 8 ≤ n = every slice's length.
                let (d, q) = unsafe {
                    (
                        _mm512_loadu_pd(diagonal.as_ptr().add(t)),
                        _mm512_cvtps_pd(_mm256_loadu_ps(q_i.as_ptr().add(t))),
                    )
                };
                let quad = _mm512_sub_pd(
                    _mm512_add_pd(q_ii, d),
                    _mm512_mul_pd(_mm512_mul_pd(two_y_i_v, q), labels),
                );
                let positive = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(quad, zero);
                let quad = _mm512_mask_blend_pd(positive, tau, quad);
                let value = _mm512_div_pd(_mm512_mul_pd(grad_diff, grad_diff), quad);
                $lanes.offer(candidate, value, position);
            }
            position = _mm512_add_pd(position, eight);
            t += WIDTH;
        }};
    }
    while t + 2 * WIDTH <= n {
        step!(even, maxima[0]);
        step!(odd, maxima[1]);
    }
    while t + WIDTH <= n {
        step!(even, maxima[0]);
    }
    let best = merge_lanes(&[even, odd], chunk.offset);
    let mut g_max2 = f64::NEG_INFINITY;
    for lanes in maxima {
        let mut values = [0.0; WIDTH];
        // SAFETY: `values` holds eight f64.
        unsafe { _mm512_storeu_pd(values.as_mut_ptr(), lanes) };
        g_max2 = values.into_iter().fold(g_max2, f64::max);
    }
    second_scan_tail(chunk, t, best, g_max2)
}
