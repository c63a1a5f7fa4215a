//! The working-set scans of [`super::scan_simd`] with AVX2: four positions per vector, the
//! memberships as all-ones lanes (`blendv`); and the speculation's test of four positions at a
//! time ([`visit_reaching`]).

use std::arch::x86_64::{
    __m256d, _mm256_add_pd, _mm256_and_pd, _mm256_blendv_pd, _mm256_cmp_pd, _mm256_cvtepi32_pd,
    _mm256_cvtps_pd, _mm256_div_pd, _mm256_loadu_pd, _mm256_movemask_pd, _mm256_mul_pd,
    _mm256_or_pd, _mm256_set1_pd, _mm256_set_pd, _mm256_storeu_pd, _mm256_sub_pd, _mm256_xor_pd,
    _mm_cvtepi8_epi32, _mm_cvtepu8_epi32, _mm_cvtsi32_si128, _mm_loadu_ps, _CMP_GE_OQ, _CMP_GT_OQ,
    _CMP_NEQ_OQ,
};

use super::scan_simd::{
    max_up_tail, merge_stored, second_scan_tail, simd_scans, vector_ops, SecondScanChunk,
};
use super::state::Bound;
use super::working_set::{ArgMax, Labels};
use super::TAU;

type Vector = __m256d;
/// A lane is all ones where the mask holds.
type Mask = __m256d;

/// Positions per vector.
const WIDTH: usize = 4;

#[inline]
#[target_feature(enable = "avx2")]
fn splat(x: f64) -> Vector {
    _mm256_set1_pd(x)
}

/// `−a`, a sign flip.
#[inline]
#[target_feature(enable = "avx2")]
fn negate(a: Vector) -> Vector {
    _mm256_xor_pd(a, _mm256_set1_pd(-0.0))
}

/// The four values of `values` from `t`.
///
/// # Safety
/// `t + 4 ≤ values.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load(values: &[f64], t: usize) -> Vector {
    // SAFETY: in bounds (the caller's contract).
    unsafe { _mm256_loadu_pd(values.as_ptr().add(t)) }
}

/// The four values of `values` from `t`, widened (exact).
///
/// # Safety
/// `t + 4 ≤ values.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_single(values: &[f32], t: usize) -> Vector {
    // SAFETY: in bounds (the caller's contract).
    unsafe { _mm256_cvtps_pd(_mm_loadu_ps(values.as_ptr().add(t))) }
}

/// The labels (`±1.0`) and bounds (`Bound`'s byte: 0 lower, 1 upper, 2 free, as `f64`) of the
/// positions `t..t + 4`.
///
/// # Safety
/// `t + 4 ≤ y.len(), bound.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn labels_and_bounds(y: &[i8], bound: &[Bound], t: usize) -> (Vector, Vector) {
    // SAFETY: four bytes from position t of each slice are in bounds (the caller's contract);
    // `Bound` is `repr(u8)`.
    unsafe {
        let y_bytes = y.as_ptr().add(t).cast::<i32>().read_unaligned();
        let bound_bytes = bound.as_ptr().add(t).cast::<i32>().read_unaligned();
        (
            _mm256_cvtepi32_pd(_mm_cvtepi8_epi32(_mm_cvtsi32_si128(y_bytes))),
            _mm256_cvtepi32_pd(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(bound_bytes))),
        )
    }
}

vector_ops! { "avx2";
    add = _mm256_add_pd => Vector,
    sub = _mm256_sub_pd => Vector,
    mul = _mm256_mul_pd => Vector,
    div = _mm256_div_pd => Vector,
    not_equal = _mm256_cmp_pd::<_CMP_NEQ_OQ> => Mask,
    above = _mm256_cmp_pd::<_CMP_GT_OQ> => Mask,
}

/// The lanes of both masks.
#[inline]
#[target_feature(enable = "avx2")]
fn both(a: Mask, b: Mask) -> Mask {
    _mm256_and_pd(a, b)
}

/// `a >= b` in the lanes of `mask`.
#[inline]
#[target_feature(enable = "avx2")]
fn at_least_where(mask: Mask, a: Vector, b: Vector) -> Mask {
    _mm256_and_pd(mask, _mm256_cmp_pd::<_CMP_GE_OQ>(a, b))
}

/// `a > b` in the lanes of `mask`.
#[inline]
#[target_feature(enable = "avx2")]
fn above_where(mask: Mask, a: Vector, b: Vector) -> Mask {
    _mm256_and_pd(mask, above(a, b))
}

/// `b` in the lanes of `mask`, `a` in the others.
#[inline]
#[target_feature(enable = "avx2")]
fn select(mask: Mask, a: Vector, b: Vector) -> Vector {
    _mm256_blendv_pd(a, b, mask)
}

#[inline]
#[target_feature(enable = "avx2")]
fn any(mask: Mask) -> bool {
    _mm256_movemask_pd(mask) != 0
}

/// The positions `0..4`.
#[inline]
#[target_feature(enable = "avx2")]
fn first_positions() -> Vector {
    _mm256_set_pd(3.0, 2.0, 1.0, 0.0)
}

#[inline]
#[target_feature(enable = "avx2")]
fn store(a: Vector) -> [f64; WIDTH] {
    let mut values = [0.0; WIDTH];
    // SAFETY: `values` holds four f64.
    unsafe { _mm256_storeu_pd(values.as_mut_ptr(), a) };
    values
}

simd_scans!("avx2");

/// Calls `visit(state, t)` for every position `t` that could raise the running maxima of a
/// scan over `I_up` by `−y_t G_t` and over `I_low` by `y_t G_t`, given by `thresholds(state)`
/// as `(up, low)`: four positions at a time, those that are members with a value `>=` their
/// side's threshold at the start of the four are visited in order; the `n mod 4` last
/// positions are always visited. A `visit` that changes the state only when a value reaches
/// its side's threshold (and raises the thresholds only) therefore ends in the state the
/// sequential loop over every position ends in.
///
/// # Safety
/// AVX2 is available.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn visit_reaching<S>(
    (y, bound, gradient): (&[i8], &[Bound], &[f64]),
    state: &mut S,
    thresholds: impl Fn(&S) -> (f64, f64),
    mut visit: impl FnMut(&mut S, usize),
) {
    let n = y.len().min(bound.len()).min(gradient.len());
    let (one, half) = (splat(1.0), splat(0.5));
    let mut t = 0;
    while t + WIDTH <= n {
        let (up, low) = thresholds(state);
        // SAFETY: t + 4 ≤ n ≤ every slice's length.
        let ((labels, bounds), g) = unsafe { (labels_and_bounds(y, bound, t), load(gradient, t)) };
        let y_g = mul(labels, g);
        // As in `max_up` and `second_scan`: I_up excludes byte (1 + y)/2, I_low (1 − y)/2.
        let in_up = not_equal(bounds, mul(add(one, labels), half));
        let in_low = not_equal(bounds, mul(sub(one, labels), half));
        let up_reached = at_least_where(in_up, negate(y_g), splat(up));
        let low_reached = at_least_where(in_low, y_g, splat(low));
        // Only the positions that reach a threshold, in order: the others cannot reach the
        // thresholds raised by the earlier ones either (a visit to every position of a group
        // that had one was 2 % of a USPS fit, in the calls alone).
        let mut reaching = _mm256_movemask_pd(_mm256_or_pd(up_reached, low_reached));
        while reaching != 0 {
            visit(state, t + reaching.trailing_zeros() as usize);
            reaching &= reaching - 1;
        }
        t += WIDTH;
    }
    for k in t..n {
        visit(state, k);
    }
}

#[cfg(test)]
mod tests {
    use super::super::state::Variables;
    use super::super::working_set::{max_up_sequential, second_scan_sequential, Labels};
    use super::*;

    fn variables(n: usize, seed: u64) -> Variables {
        super::super::state::tied_variables(n, seed, None)
    }

    #[test]
    fn max_up_is_the_sequential_scan() {
        if kernelkit_kernels::Level::current() < kernelkit_kernels::Level::Avx2 {
            return;
        }
        // Many positions hold the maximum (a coarse grid): the lanes' ties must go to the last.
        for (n, seed) in
            [(0, 1), (3, 2), (4, 3), (17, 4), (23, 13), (64, 5), (512, 15), (1000, 16), (1001, 6)]
        {
            let v = variables(n, seed);
            for (offset, labels) in [0, 4096].into_iter().flat_map(|offset| {
                [Labels::Both, Labels::Only(1), Labels::Only(-1)].map(|labels| (offset, labels))
            }) {
                let expected = max_up_sequential(&v.y, &v.bound, &v.gradient, offset, labels);
                // SAFETY: AVX2 is available (checked above).
                let got = unsafe { max_up(&v.y, &v.bound, &v.gradient, offset, labels) };
                assert_eq!((got.0.to_bits(), got.1), (expected.0.to_bits(), expected.1));
                if kernelkit_kernels::Level::current() >= kernelkit_kernels::Level::Avx512 {
                    // SAFETY: AVX-512F and AVX2 are available (checked above).
                    let got = unsafe {
                        super::super::scan_avx512::max_up(
                            &v.y,
                            &v.bound,
                            &v.gradient,
                            offset,
                            labels,
                        )
                    };
                    assert_eq!((got.0.to_bits(), got.1), (expected.0.to_bits(), expected.1));
                }
            }
        }
    }

    #[test]
    fn second_scan_is_the_sequential_scan() {
        if kernelkit_kernels::Level::current() < kernelkit_kernels::Level::Avx2 {
            return;
        }
        for (n, seed) in [(1, 7), (5, 8), (8, 9), (15, 14), (31, 10), (257, 11), (2000, 12)] {
            let v = variables(n, seed);
            let q_i: Vec<f32> = (0..n).map(|t| [0.25f32, -0.5, 0.0, 1.0][t % 4]).collect();
            let labels = [Labels::Both, Labels::Only(1), Labels::Only(-1)];
            for (i, labels) in [0, n / 2, n - 1].into_iter().flat_map(|i| labels.map(|l| (i, l))) {
                for g_max in [-0.5, 0.0, 0.75] {
                    let (lo, hi) = (n / 3, n);
                    let expected = second_scan_sequential(&v, &q_i[lo..hi], i, g_max, lo, labels);
                    let chunk = SecondScanChunk::new(&v, &q_i[lo..hi], i, g_max, lo, labels);
                    // SAFETY: AVX2 is available (checked above).
                    let (best, g_max2) = unsafe { second_scan(&chunk) };
                    assert_eq!(best.1, expected.0 .1, "n={n}, i={i}, g_max={g_max}");
                    assert_eq!(best.0.to_bits(), expected.0 .0.to_bits());
                    assert_eq!(g_max2, expected.1);
                    if kernelkit_kernels::Level::current() >= kernelkit_kernels::Level::Avx512 {
                        // SAFETY: AVX-512F and AVX2 are available (checked above).
                        let (best, g_max2) =
                            unsafe { super::super::scan_avx512::second_scan(&chunk) };
                        assert_eq!(best.1, expected.0 .1, "AVX-512: n={n}, i={i}, g_max={g_max}");
                        assert_eq!(best.0.to_bits(), expected.0 .0.to_bits());
                        assert_eq!(g_max2, expected.1);
                    }
                }
            }
        }
    }
}
