//! The two scans of working-set selection ([`super::working_set`]) on SIMD vectors, giving
//! exactly the sequential scans' answers: written once ([`simd_scans!`]) over a few vector
//! operations that [`super::scan_avx2`] (four positions per vector) and
//! [`super::scan_avx512`] (eight, with mask registers) each define.
//!
//! Lane `k` scans the positions `≡ k (mod WIDTH)` with LIBSVM's `>=` and so keeps the last
//! position of its maximum; two sets of lanes take alternate vectors (two compare chains in
//! flight); the lanes are then merged by value with ties to the larger position, which is the
//! sequential scan's "last maximum"; the `n mod WIDTH` last positions run through the scalar
//! loop after the merge (their positions are the largest). Every value is the sequential
//! loop's value bit for bit: the labels enter as `y_t ∈ {−1, +1}` products and the negations
//! are sign flips, both exact (`g − G = g + (−1·G)` in IEEE arithmetic), and no multiply–add
//! is fused. The second scan divides (its slowest instruction) only for a vector holding a
//! candidate: near the optimum few positions violate with `i`.

use super::state::{Bound, Variables};
use super::working_set::{ArgMax, Labels};
use super::TAU;

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
    /// The labels scanned.
    pub labels: Labels,
}

impl<'a> SecondScanChunk<'a> {
    /// The positions `lo..lo + q_i.len()` of `v` with a label in `labels`, with
    /// `Q[lo..lo + q_i.len(), i]` in `q_i` and `m(α) = g_max`.
    pub(super) fn new(
        v: &'a Variables,
        q_i: &'a [f32],
        i: usize,
        g_max: f64,
        lo: usize,
        labels: Labels,
    ) -> Self {
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
            labels,
        }
    }
}

/// `best` merged with the lanes' maxima `value` found at `position` (offsets from `offset`;
/// `−1` for none), ties to the larger position.
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

/// The scalar end of `max_up` (both widths, made by `simd_scans!`): offers the positions `from..` in order.
pub(super) fn max_up_tail(
    mut best: ArgMax,
    (y, bound, gradient): (&[i8], &[Bound], &[f64]),
    (from, offset): (usize, usize),
    labels: Labels,
) -> ArgMax {
    let n = y.len().min(bound.len()).min(gradient.len());
    for t in (from..n).filter(|&t| labels.hold(y[t])) {
        let in_up = if y[t] == 1 { bound[t] != Bound::Upper } else { bound[t] != Bound::Lower };
        if in_up {
            best.offer(-(f64::from(y[t]) * gradient[t]), offset + t);
        }
    }
    best
}

/// The scalar end of `second_scan` (both widths, made by `simd_scans!`): offers the positions `from..` of the
/// chunk in order to `best` and to the maximum `g_max2`.
pub(super) fn second_scan_tail(
    chunk: &SecondScanChunk<'_>,
    from: usize,
    mut best: ArgMax,
    mut g_max2: f64,
) -> (ArgMax, f64) {
    let SecondScanChunk { y, bound, gradient, diagonal, q_i, .. } = *chunk;
    let two_y_i = 2.0 * f64::from(chunk.y_i);
    for t in (from..y.len()).filter(|&t| chunk.labels.hold(y[t])) {
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

/// The lanes, `merge_lanes`, `max_up` and `second_scan` of one vector width, over the
/// operations the invoking module defines (all `#[inline]`, compiled for `$features`):
/// `Vector`, `Mask`, `WIDTH`, `splat`, `add`, `sub`, `mul`, `div`, `negate`, `load`,
/// `load_single`, `labels_and_bounds`, `not_equal`, `above`, `at_least_where`, `above_where`,
/// `both`, `select`, `any`, `first_positions` and `store`. A label outside the scan's
/// [`Labels`] takes its positions out of every membership (one compare and one mask `and` per
/// vector; the labels are `±1`, so the compare with `0` for both labels always holds).
macro_rules! simd_scans {
    ($features:literal) => {
        /// The lanes' maxima and where they were found (position `−1` for none).
        struct Lanes {
            value: Vector,
            position: Vector,
        }

        impl Lanes {
            #[inline]
            #[target_feature(enable = $features)]
            fn new() -> Lanes {
                Lanes { value: splat(f64::NEG_INFINITY), position: splat(-1.0) }
            }

            /// Takes `value` in the lanes of `member` where it is `>=` the lane's maximum.
            #[inline]
            #[target_feature(enable = $features)]
            fn offer(&mut self, member: Mask, value: Vector, position: Vector) {
                let take = at_least_where(member, value, self.value);
                self.value = select(take, self.value, value);
                self.position = select(take, self.position, position);
            }
        }

        /// The maximum over the lanes of every set, ties to the larger position (positions
        /// are offsets from `offset`).
        #[inline]
        #[target_feature(enable = $features)]
        fn merge_lanes(sets: &[Lanes], offset: usize) -> ArgMax {
            sets.iter().fold(ArgMax::EMPTY, |best, lanes| {
                merge_stored(best, &store(lanes.value), &store(lanes.position), offset)
            })
        }

        /// `−y_t G_t` maximised over `t ∈ I_up` (see
        /// [`super::working_set::max_up_sequential`]).
        ///
        /// # Safety
        /// The CPU has `$features`.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn max_up(
            y: &[i8],
            bound: &[Bound],
            gradient: &[f64],
            offset: usize,
            labels_scanned: Labels,
        ) -> ArgMax {
            let n = y.len().min(bound.len()).min(gradient.len());
            let (one, half, width) = (splat(1.0), splat(0.5), splat(WIDTH as f64));
            let skipped = splat(labels_scanned.skipped());
            let mut position = first_positions();
            let (mut even, mut odd) = (Lanes::new(), Lanes::new());
            let mut t = 0;
            macro_rules! step {
                ($lanes:expr) => {{
                    // SAFETY: t + WIDTH ≤ n ≤ every slice's length.
                    let ((labels, bounds), g) =
                        unsafe { (labels_and_bounds(y, bound, t), load(gradient, t)) };
                    // I_up excludes α_t = u_t (byte 1) for y_t = +1 and α_t = 0 (byte 0) for
                    // y_t = −1.
                    let member = both(
                        not_equal(bounds, mul(add(one, labels), half)),
                        not_equal(labels, skipped),
                    );
                    $lanes.offer(member, negate(mul(labels, g)), position);
                    position = add(position, width);
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
            let best = merge_lanes(&[even, odd], offset);
            max_up_tail(best, (y, bound, gradient), (t, offset), labels_scanned)
        }

        /// `(argmax of b²/a, max over I_low of y_t G_t)` over the chunk (see
        /// [`super::working_set::second_scan_sequential`]).
        ///
        /// # Safety
        /// The CPU has `$features`.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn second_scan(chunk: &SecondScanChunk<'_>) -> (ArgMax, f64) {
            let SecondScanChunk { y, bound, gradient, diagonal, q_i, .. } = *chunk;
            let n = y.len();
            assert!([bound.len(), gradient.len(), diagonal.len(), q_i.len()]
                .iter()
                .all(|&m| m == n));
            let (one, half, zero, tau) = (splat(1.0), splat(0.5), splat(0.0), splat(TAU));
            let (g_max, q_ii) = (splat(chunk.g_max), splat(chunk.q_ii));
            let two_y_i = splat(2.0 * f64::from(chunk.y_i));
            let skipped = splat(chunk.labels.skipped());
            let width = splat(WIDTH as f64);
            let mut position = first_positions();
            let (mut even, mut odd) = (Lanes::new(), Lanes::new());
            let mut maxima = [splat(f64::NEG_INFINITY); 2];
            let mut t = 0;
            macro_rules! step {
                ($lanes:expr, $g_max2:expr) => {{
                    // SAFETY: t + WIDTH ≤ n = every slice's length.
                    let ((labels, bounds), g) =
                        unsafe { (labels_and_bounds(y, bound, t), load(gradient, t)) };
                    // I_low excludes α_t = 0 (byte 0) for y_t = +1 and α_t = u_t (byte 1) for
                    // y_t = −1.
                    let member = both(
                        not_equal(bounds, mul(sub(one, labels), half)),
                        not_equal(labels, skipped),
                    );
                    let y_g = mul(labels, g);
                    $g_max2 = select(at_least_where(member, y_g, $g_max2), $g_max2, y_g);
                    let grad_diff = add(g_max, y_g);
                    let candidate = above_where(member, grad_diff, zero);
                    if any(candidate) {
                        // SAFETY: as above.
                        let (d, q) = unsafe { (load(diagonal, t), load_single(q_i, t)) };
                        let quad = sub(add(q_ii, d), mul(mul(two_y_i, q), labels));
                        let quad = select(above(quad, zero), tau, quad);
                        $lanes.offer(candidate, div(mul(grad_diff, grad_diff), quad), position);
                    }
                    position = add(position, width);
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
            let g_max2 =
                maxima.iter().flat_map(|&lanes| store(lanes)).fold(f64::NEG_INFINITY, f64::max);
            second_scan_tail(chunk, t, best, g_max2)
        }
    };
}
pub(super) use simd_scans;

/// Defines `name(a, b) -> Out` as `op(a, b)` for each `name = op -> Out`, `#[inline]` and
/// compiled for `$features`: the two-operand vector operations each width names alike.
macro_rules! vector_ops {
    ($features:literal; $($name:ident = $op:expr => $out:ty),* $(,)?) => {
        $(
            #[inline]
            #[target_feature(enable = $features)]
            fn $name(a: Vector, b: Vector) -> $out {
                $op(a, b)
            }
        )*
    };
}
pub(super) use vector_ops;
