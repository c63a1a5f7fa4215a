//! The two scans of working-set selection ([`super::working_set`]) with AVX2, four positions
//! at a time, giving exactly the sequential scans' answers.
//!
//! Lane `k` scans the positions `≡ k (mod 4)` with LIBSVM's `>=` and so keeps the last
//! position of its maximum; the lanes are then merged by value with ties to the larger
//! position, which is the sequential scan's "last maximum"; the `n mod 4` last positions run
//! through the scalar loop after the merge (their positions are the largest). Every value is
//! the sequential loop's value bit for bit: the labels enter as `y_t ∈ {−1, +1}` products and
//! the negations are sign flips, both exact (`g − G = g + (−1·G)` in IEEE arithmetic), and no
//! multiply–add is fused.

use std::arch::x86_64::{
    __m256d, _mm256_add_pd, _mm256_and_pd, _mm256_blendv_pd, _mm256_cmp_pd, _mm256_cvtepi32_pd,
    _mm256_cvtps_pd, _mm256_div_pd, _mm256_loadu_pd, _mm256_movemask_pd, _mm256_mul_pd,
    _mm256_or_pd, _mm256_set1_pd, _mm256_set_pd, _mm256_storeu_pd, _mm256_sub_pd, _mm256_xor_pd,
    _mm_cvtepi8_epi32, _mm_cvtepu8_epi32, _mm_cvtsi32_si128, _mm_loadu_ps, _CMP_GE_OQ, _CMP_GT_OQ,
    _CMP_NEQ_OQ,
};

use super::state::{Bound, Variables};
use super::working_set::ArgMax;
use super::TAU;

/// Positions per vector.
const WIDTH: usize = 4;

/// The labels (`±1.0`) and bounds (`Bound`'s byte: 0 lower, 1 upper, 2 free, as `f64`) of the
/// positions `t..t + 4`.
///
/// # Safety
/// AVX2 is available and `t + 4 ≤ y.len(), bound.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn labels_and_bounds(y: &[i8], bound: &[Bound], t: usize) -> (__m256d, __m256d) {
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

/// The lanes' maxima and where they were found (position `−1` for none).
struct Lanes {
    value: __m256d,
    position: __m256d,
}

impl Lanes {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new() -> Lanes {
        Lanes { value: _mm256_set1_pd(f64::NEG_INFINITY), position: _mm256_set1_pd(-1.0) }
    }

    /// Takes `value` in the lanes of `member` where it is `>=` the lane's maximum.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn offer(&mut self, member: __m256d, value: __m256d, position: __m256d) {
        let take = _mm256_and_pd(member, _mm256_cmp_pd::<_CMP_GE_OQ>(value, self.value));
        self.value = _mm256_blendv_pd(self.value, value, take);
        self.position = _mm256_blendv_pd(self.position, position, take);
    }
}

/// The maximum over the lanes of every set, ties to the larger position (positions are offsets
/// from `offset`): the order of (value, position) is total, so the sets may cover the
/// positions in any interleaving.
#[inline]
#[target_feature(enable = "avx2")]
fn merge_lanes(sets: &[Lanes], offset: usize) -> ArgMax {
    let mut best = ArgMax::EMPTY;
    for lanes in sets {
        let (mut value, mut position) = ([0.0; WIDTH], [0.0; WIDTH]);
        // SAFETY: both arrays hold four f64.
        unsafe {
            _mm256_storeu_pd(value.as_mut_ptr(), lanes.value);
            _mm256_storeu_pd(position.as_mut_ptr(), lanes.position);
        }
        best = merge_stored(best, &value, &position, offset);
    }
    best
}

/// `best` merged with the lanes' maxima `value` found at `position` (offsets from `offset`;
/// `−1` for none), ties to the larger position. Shared by the AVX2 and AVX-512 scans.
pub(super) fn merge_stored(
    mut best: ArgMax,
    value: &[f64],
    position: &[f64],
    offset: usize,
) -> ArgMax {
    for (&value, &position) in value.iter().zip(position) {
        if position >= 0.0 {
            best = best.merge(ArgMax(value, Some(offset + position as usize)));
        }
    }
    best
}

/// The scalar end of [`max_up`] (both widths): offers the positions `from..` in order.
pub(super) fn max_up_tail(
    mut best: ArgMax,
    (y, bound, gradient): (&[i8], &[Bound], &[f64]),
    from: usize,
    offset: usize,
) -> ArgMax {
    let n = y.len().min(bound.len()).min(gradient.len());
    for t in from..n {
        let in_up = if y[t] == 1 { bound[t] != Bound::Upper } else { bound[t] != Bound::Lower };
        if in_up {
            best.offer(-(f64::from(y[t]) * gradient[t]), offset + t);
        }
    }
    best
}

/// `−y_t G_t` maximised over `t ∈ I_up` (see [`super::working_set::max_up_sequential`]).
///
/// # Safety
/// AVX2 is available.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn max_up(y: &[i8], bound: &[Bound], gradient: &[f64], offset: usize) -> ArgMax {
    let n = y.len().min(bound.len()).min(gradient.len());
    let (one, half) = (_mm256_set1_pd(1.0), _mm256_set1_pd(0.5));
    let sign = _mm256_set1_pd(-0.0);
    let four = _mm256_set1_pd(WIDTH as f64);
    let mut position = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
    // Two sets of lanes, for alternate vectors: two chains of compare–blend in flight.
    let (mut even, mut odd) = (Lanes::new(), Lanes::new());
    let mut t = 0;
    // The vector at t, offered to `lanes`.
    macro_rules! step {
        ($lanes:expr) => {{
            // SAFETY: t + 4 ≤ n ≤ every slice's length.
            let ((labels, bounds), g) = unsafe {
                (labels_and_bounds(y, bound, t), _mm256_loadu_pd(gradient.as_ptr().add(t)))
            };
            // I_up excludes α_t = u_t (byte 1) for y_t = +1 and α_t = 0 (byte 0) for y_t = −1.
            let excluded = _mm256_mul_pd(_mm256_add_pd(one, labels), half);
            let member = _mm256_cmp_pd::<_CMP_NEQ_OQ>(bounds, excluded);
            let value = _mm256_xor_pd(_mm256_mul_pd(labels, g), sign);
            $lanes.offer(member, value, position);
            position = _mm256_add_pd(position, four);
            t += WIDTH;
        }};
    }
    while t + 2 * WIDTH <= n {
        step!(even);
        step!(odd);
    }
    // At most one vector left.
    while t + WIDTH <= n {
        step!(even);
    }
    let sets = [even, odd];
    max_up_tail(merge_lanes(&sets, offset), (y, bound, gradient), t, offset)
}

/// Calls `visit(state, t)` for every position `t` that could raise the running maxima of a
/// scan over `I_up` by `−y_t G_t` and over `I_low` by `y_t G_t`, given by `thresholds(state)`
/// as `(up, low)`: whenever one of four positions is a member with a value `>=` its side's
/// threshold, the four are visited in order; the `n mod 4` last positions are always visited.
/// A `visit` that changes the state only when a value reaches its side's threshold (and
/// raises the threshold only) therefore ends in the state the sequential loop over every
/// position ends in.
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
    let (one, half) = (_mm256_set1_pd(1.0), _mm256_set1_pd(0.5));
    let sign = _mm256_set1_pd(-0.0);
    let mut t = 0;
    while t + WIDTH <= n {
        let (up, low) = thresholds(state);
        // SAFETY: t + 4 ≤ n ≤ every slice's length.
        let ((labels, bounds), g) =
            unsafe { (labels_and_bounds(y, bound, t), _mm256_loadu_pd(gradient.as_ptr().add(t))) };
        let y_g = _mm256_mul_pd(labels, g);
        // As in `max_up` and `second_scan`: I_up excludes byte (1 + y)/2, I_low (1 − y)/2.
        let in_up =
            _mm256_cmp_pd::<_CMP_NEQ_OQ>(bounds, _mm256_mul_pd(_mm256_add_pd(one, labels), half));
        let in_low =
            _mm256_cmp_pd::<_CMP_NEQ_OQ>(bounds, _mm256_mul_pd(_mm256_sub_pd(one, labels), half));
        let up_reached = _mm256_and_pd(
            in_up,
            _mm256_cmp_pd::<_CMP_GE_OQ>(_mm256_xor_pd(y_g, sign), _mm256_set1_pd(up)),
        );
        let low_reached =
            _mm256_and_pd(in_low, _mm256_cmp_pd::<_CMP_GE_OQ>(y_g, _mm256_set1_pd(low)));
        if _mm256_movemask_pd(_mm256_or_pd(up_reached, low_reached)) != 0 {
            for k in t..t + WIDTH {
                visit(state, k);
            }
        }
        t += WIDTH;
    }
    for k in t..n {
        visit(state, k);
    }
}

/// One chunk of positions of the second scan, and the selected `i`.
pub(super) struct SecondScanChunk<'a> {
    pub y: &'a [i8],
    pub bound: &'a [Bound],
    pub gradient: &'a [f64],
    pub diagonal: &'a [f64],
    /// `Q[chunk, i]`.
    pub q_i: &'a [f32],
    pub y_i: i8,
    pub q_ii: f64,
    /// `m(α) = −y_i G_i`.
    pub g_max: f64,
    /// The position of the chunk's first entry.
    pub offset: usize,
}

impl<'a> SecondScanChunk<'a> {
    /// The positions `lo..lo + q_i.len()` of `v`, with `Q[lo..lo + q_i.len(), i]` in `q_i` and
    /// `m(α) = g_max`.
    pub(super) fn new(v: &'a Variables, q_i: &'a [f32], i: usize, g_max: f64, lo: usize) -> Self {
        let hi = lo + q_i.len();
        SecondScanChunk {
            y: &v.y[lo..hi],
            bound: &v.bound[lo..hi],
            gradient: &v.gradient[lo..hi],
            diagonal: &v.diagonal[lo..hi],
            q_i,
            y_i: v.y[i],
            q_ii: v.diagonal[i],
            g_max,
            offset: lo,
        }
    }
}

/// `(argmax of b²/a, max over I_low of y_t G_t)` over the chunk (see
/// [`super::working_set::second_scan_sequential`]).
///
/// # Safety
/// AVX2 is available.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn second_scan(chunk: &SecondScanChunk<'_>) -> (ArgMax, f64) {
    let SecondScanChunk { y, bound, gradient, diagonal, q_i, .. } = *chunk;
    let n = y.len();
    assert!([bound.len(), gradient.len(), diagonal.len(), q_i.len()].iter().all(|&m| m == n));
    let two_y_i = 2.0 * f64::from(chunk.y_i);
    let (one, half) = (_mm256_set1_pd(1.0), _mm256_set1_pd(0.5));
    let (zero, tau) = (_mm256_set1_pd(0.0), _mm256_set1_pd(TAU));
    let (g_max, q_ii, two_y_i_v) =
        (_mm256_set1_pd(chunk.g_max), _mm256_set1_pd(chunk.q_ii), _mm256_set1_pd(two_y_i));
    let four = _mm256_set1_pd(WIDTH as f64);
    let mut position = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
    // Two sets of lanes (and of maxima), for alternate vectors: two chains in flight.
    let (mut even, mut odd) = (Lanes::new(), Lanes::new());
    let mut maxima = [_mm256_set1_pd(f64::NEG_INFINITY); 2];
    let mut t = 0;
    // The vector at t, offered to `lanes` and to the maxima `g_max2`.
    macro_rules! step {
        ($lanes:expr, $g_max2:expr) => {{
            // SAFETY: t + 4 ≤ n = every slice's length.
            let (labels, bounds, g, d, q) = unsafe {
                let (labels, bounds) = labels_and_bounds(y, bound, t);
                (
                    labels,
                    bounds,
                    _mm256_loadu_pd(gradient.as_ptr().add(t)),
                    _mm256_loadu_pd(diagonal.as_ptr().add(t)),
                    _mm256_cvtps_pd(_mm_loadu_ps(q_i.as_ptr().add(t))),
                )
            };
            // I_low excludes α_t = 0 (byte 0) for y_t = +1 and α_t = u_t (byte 1) for
            // y_t = −1.
            let excluded = _mm256_mul_pd(_mm256_sub_pd(one, labels), half);
            let member = _mm256_cmp_pd::<_CMP_NEQ_OQ>(bounds, excluded);
            let y_g = _mm256_mul_pd(labels, g);
            let raise = _mm256_and_pd(member, _mm256_cmp_pd::<_CMP_GE_OQ>(y_g, $g_max2));
            $g_max2 = _mm256_blendv_pd($g_max2, y_g, raise);
            let grad_diff = _mm256_add_pd(g_max, y_g);
            let candidate = _mm256_and_pd(member, _mm256_cmp_pd::<_CMP_GT_OQ>(grad_diff, zero));
            // Near the optimum few positions violate with i: the division (the scan's
            // slowest instruction) only for a vector with a candidate.
            if _mm256_movemask_pd(candidate) != 0 {
                let quad = _mm256_sub_pd(
                    _mm256_add_pd(q_ii, d),
                    _mm256_mul_pd(_mm256_mul_pd(two_y_i_v, q), labels),
                );
                let quad = _mm256_blendv_pd(tau, quad, _mm256_cmp_pd::<_CMP_GT_OQ>(quad, zero));
                let value = _mm256_div_pd(_mm256_mul_pd(grad_diff, grad_diff), quad);
                $lanes.offer(candidate, value, position);
            }
            position = _mm256_add_pd(position, four);
            t += WIDTH;
        }};
    }
    while t + 2 * WIDTH <= n {
        step!(even, maxima[0]);
        step!(odd, maxima[1]);
    }
    // At most one vector left.
    while t + WIDTH <= n {
        step!(even, maxima[0]);
    }
    let sets = [even, odd];
    let best = merge_lanes(&sets, chunk.offset);
    let mut g_max2 = f64::NEG_INFINITY;
    for lanes in maxima {
        let mut values = [0.0; WIDTH];
        // SAFETY: `values` holds four f64.
        unsafe { _mm256_storeu_pd(values.as_mut_ptr(), lanes) };
        g_max2 = values.into_iter().fold(g_max2, f64::max);
    }
    second_scan_tail(chunk, t, best, g_max2)
}

/// The scalar end of [`second_scan`] (both widths): offers the positions `from..` of the
/// chunk in order to `best` and to the maximum `g_max2`.
pub(super) fn second_scan_tail(
    chunk: &SecondScanChunk<'_>,
    from: usize,
    mut best: ArgMax,
    mut g_max2: f64,
) -> (ArgMax, f64) {
    let SecondScanChunk { y, bound, gradient, diagonal, q_i, .. } = *chunk;
    let two_y_i = 2.0 * f64::from(chunk.y_i);
    for t in from..y.len() {
        let y_t = f64::from(y[t]);
        let in_low = if y[t] == 1 { bound[t] != Bound::Lower } else { bound[t] != Bound::Upper };
        if in_low {
            let y_g = y_t * gradient[t];
            g_max2 = g_max2.max(y_g);
            let grad_diff = chunk.g_max + y_g;
            if grad_diff > 0.0 {
                let quad = (chunk.q_ii + diagonal[t]) - two_y_i * f64::from(q_i[t]) * y_t;
                let quad = if quad > 0.0 { quad } else { TAU };
                best.offer(grad_diff * grad_diff / quad, chunk.offset + t);
            }
        }
    }
    (best, g_max2)
}

#[cfg(test)]
mod tests {
    use super::super::working_set::{max_up_sequential, second_scan_sequential};
    use super::*;

    /// Variables with many ties: gradients on a coarse grid, every bound and label.
    fn variables(n: usize, seed: u64) -> Variables {
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        let y: Vec<i8> = (0..n).map(|_| if next() % 2 == 0 { 1 } else { -1 }).collect();
        let mut v = Variables::new(
            (0..n).map(|_| [0.5, 1.0, 1.0, 2.0][next() % 4]).collect(),
            y,
            vec![0.0; n],
            vec![-1.0; n],
            vec![1.0; n],
        );
        for t in 0..n {
            v.alpha[t] = [0.0, 1.0, 0.5][next() % 3];
            v.update_bound(t);
            v.gradient[t] = (next() % 9) as f64 * 0.25 - 1.0;
        }
        v
    }

    #[test]
    fn max_up_is_the_sequential_scan() {
        if !kernelkit_kernels::avx2_available() {
            return;
        }
        // Many positions hold the maximum (a coarse grid): the lanes' ties must go to the last.
        for (n, seed) in
            [(0, 1), (3, 2), (4, 3), (17, 4), (23, 13), (64, 5), (512, 15), (1000, 16), (1001, 6)]
        {
            let v = variables(n, seed);
            for offset in [0, 4096] {
                let expected = max_up_sequential(&v.y, &v.bound, &v.gradient, offset);
                // SAFETY: AVX2 is available (checked above).
                let got = unsafe { max_up(&v.y, &v.bound, &v.gradient, offset) };
                assert_eq!((got.0.to_bits(), got.1), (expected.0.to_bits(), expected.1));
                if kernelkit_kernels::avx512_available() {
                    // SAFETY: AVX-512F and AVX2 are available (checked above).
                    let got = unsafe {
                        super::super::scan_avx512::max_up(&v.y, &v.bound, &v.gradient, offset)
                    };
                    assert_eq!((got.0.to_bits(), got.1), (expected.0.to_bits(), expected.1));
                }
            }
        }
    }

    #[test]
    fn second_scan_is_the_sequential_scan() {
        if !kernelkit_kernels::avx2_available() {
            return;
        }
        for (n, seed) in [(1, 7), (5, 8), (8, 9), (15, 14), (31, 10), (257, 11), (2000, 12)] {
            let v = variables(n, seed);
            let q_i: Vec<f32> = (0..n).map(|t| [0.25f32, -0.5, 0.0, 1.0][t % 4]).collect();
            for i in [0, n / 2, n - 1] {
                for g_max in [-0.5, 0.0, 0.75] {
                    let (lo, hi) = (n / 3, n);
                    let expected = second_scan_sequential(&v, &q_i[lo..hi], i, g_max, lo);
                    let chunk = SecondScanChunk::new(&v, &q_i[lo..hi], i, g_max, lo);
                    // SAFETY: AVX2 is available (checked above).
                    let (best, g_max2) = unsafe { second_scan(&chunk) };
                    assert_eq!(best.1, expected.0 .1, "n={n}, i={i}, g_max={g_max}");
                    assert_eq!(best.0.to_bits(), expected.0 .0.to_bits());
                    assert_eq!(g_max2, expected.1);
                    if kernelkit_kernels::avx512_available() {
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
