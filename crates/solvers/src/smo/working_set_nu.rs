//! Working-set selection of LIBSVM's ν solver (`Solver_NU::select_working_set`).
//!
//! The same second-order rule as [`super::working_set`], applied within each label: `i⁺`
//! maximises `−G_t` over `{y_t = +1, α_t < u_t}` and `i⁻` maximises `G_t` over
//! `{y_t = −1, α_t > 0}`; `j` minimises `−b²/a` over both labels, each against its own `i`;
//! the pair is `(i⁺, j)` or `(i⁻, j)` by the label of `j`. Optimal within `tol` when
//! `max(m⁺ − M⁺, m⁻ − M⁻) < tol`. Ties go to the last index, as in LIBSVM.

use kernelkit_kernels::Level;

use super::state::{Bound, Variables};
use super::working_set::{chunked, max_up, second_scan, ArgMax, Labels, Selection};

/// A maximum and where it is (ties to the larger index).
pub(crate) type Extreme = ArgMax;

const EMPTY: Extreme = ArgMax::EMPTY;

/// `(m⁺, i⁺)` and `(m⁻, i⁻)` over the chunk of positions `offset..offset + y.len()`, given as
/// slices (so that it can run inside the gradient update): the first scan of
/// [`super::working_set`] once per label (`−y_t G_t` over `I_up` is `−G_t` over `α_t < u_t` for
/// `y_t = +1` and `G_t` over `α_t > 0` for `y_t = −1`, bit for bit), vectorised as it is.
pub(crate) fn first_extremes(
    simd: Level,
    y: &[i8],
    bound: &[Bound],
    gradient: &[f64],
    offset: usize,
) -> (Extreme, Extreme) {
    (
        max_up(simd, y, bound, gradient, offset, Labels::Only(1)),
        max_up(simd, y, bound, gradient, offset, Labels::Only(-1)),
    )
}

/// Merges the extremes of two consecutive chunks.
pub(crate) fn merge_extremes(
    (p1, n1): (Extreme, Extreme),
    (p2, n2): (Extreme, Extreme),
) -> (Extreme, Extreme) {
    (p1.merge(p2), n1.merge(n2))
}

/// The second scan, given each label's first index and its column (when it exists).
pub(crate) fn select_second(
    v: &Variables,
    positive: (Extreme, Option<&[f32]>),
    negative: (Extreme, Option<&[f32]>),
    tol: f64,
) -> Selection {
    let (ArgMax(g_max_p, ip), q_ip) = positive;
    let (ArgMax(g_max_n, i_n), q_in) = negative;
    // Each label's part is the second scan of [`super::working_set`] restricted to that label,
    // with that label's first index: for y_t = +1 and i⁺ (y = +1) its b is m⁺ + G_t and its a
    // Q_i⁺i⁺ + Q_tt − 2Q_i⁺t; for y_t = −1 and i⁻ (y = −1), m⁻ − G_t and Q_i⁻i⁻ + Q_tt − 2Q_i⁻t;
    // its maximum of y_t G_t over I_low is M⁺ and M⁻: LIBSVM's values bit for bit (the signs
    // are exact products by ±1), vectorised as that scan is. A label without a first index
    // offers no candidate (m = −∞) and is scanned for its M only, against the other label's
    // column (never read).
    let Some(column) = q_ip.or(q_in) else {
        return Selection { pair: None, gap: 0.0 };
    };
    let active_size = column.len();
    let other = ip.or(i_n).unwrap_or(0);
    let positive = match (ip, q_ip) {
        (Some(i), Some(q)) => (i, q, g_max_p),
        _ => (other, column, f64::NEG_INFINITY),
    };
    let negative = match (i_n, q_in) {
        (Some(i), Some(q)) => (i, q, g_max_n),
        _ => (other, column, f64::NEG_INFINITY),
    };
    let scan = |lo: usize, hi: usize| {
        let scan_label = |(i, q, g_max): (usize, &[f32], f64), label: i8| {
            second_scan(v, &q[lo..hi], i, g_max, lo, Labels::Only(label))
        };
        let (best_p, g_max_p2) = scan_label(positive, 1);
        let (best_n, g_max_n2) = scan_label(negative, -1);
        (best_p.merge(best_n), g_max_p2, g_max_n2)
    };
    let (best, g_max_p2, g_max_n2) = chunked(
        active_size,
        scan,
        |(b1, p1, n1): (Extreme, f64, f64), (b2, p2, n2)| (b1.merge(b2), p1.max(p2), n1.max(n2)),
        (EMPTY, f64::NEG_INFINITY, f64::NEG_INFINITY),
    );
    let gap = (g_max_p + g_max_p2).max(g_max_n + g_max_n2);
    let pair = match best.1 {
        Some(j) if gap >= tol => {
            let i = if v.y[j] == 1 { ip } else { i_n };
            i.map(|i| (i, j))
        }
        _ => None,
    };
    Selection { pair, gap }
}

/// `max(m⁺ − M⁺, m⁻ − M⁻)` over positions `0..len`.
pub(crate) fn max_violation(v: &Variables, len: usize) -> f64 {
    let mut up = [f64::NEG_INFINITY; 2]; // max −G over I_up, per label (+, −)
    let mut low = [f64::NEG_INFINITY; 2]; // max G over I_low, per label
    for t in 0..len {
        let side = usize::from(v.y[t] != 1);
        let g = v.gradient[t];
        let (in_up, in_low) = if v.y[t] == 1 {
            (!v.is_upper(t), !v.is_lower(t))
        } else {
            (!v.is_lower(t), !v.is_upper(t))
        };
        // For y = −1, I_up holds α > 0 with violation G, I_low holds α < u with −G.
        let (up_value, low_value) = if v.y[t] == 1 { (-g, g) } else { (g, -g) };
        if in_up {
            up[side] = up[side].max(up_value);
        }
        if in_low {
            low[side] = low[side].max(low_value);
        }
    }
    (up[0] + low[0]).max(up[1] + low[1]).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::super::TAU;
    use super::*;

    /// LIBSVM's `Solver_NU` scans as one scalar loop each: the definitions the vectorised
    /// per-label scans must reproduce bit for bit.
    fn reference(
        v: &Variables,
        q_ip: Option<&[f32]>,
        q_in: Option<&[f32]>,
        len: usize,
    ) -> ((Extreme, Extreme), (Extreme, f64, f64)) {
        let (mut positive, mut negative) = (EMPTY, EMPTY);
        for t in 0..len {
            if v.y[t] == 1 {
                if !v.is_upper(t) {
                    positive.offer(-v.gradient[t], t);
                }
            } else if !v.is_lower(t) {
                negative.offer(v.gradient[t], t);
            }
        }
        let (ArgMax(g_max_p, ip), ArgMax(g_max_n, i_n)) = (positive, negative);
        let mut best = EMPTY;
        let (mut g_max_p2, mut g_max_n2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for t in 0..len {
            if v.y[t] == 1 {
                if !v.is_lower(t) {
                    let grad_diff = g_max_p + v.gradient[t];
                    if v.gradient[t] >= g_max_p2 {
                        g_max_p2 = v.gradient[t];
                    }
                    if let (true, Some(ip), Some(q)) = (grad_diff > 0.0, ip, q_ip) {
                        let quad = v.diagonal[ip] + v.diagonal[t] - 2.0 * f64::from(q[t]);
                        let quad = if quad > 0.0 { quad } else { TAU };
                        best.offer(grad_diff * grad_diff / quad, t);
                    }
                }
            } else if !v.is_upper(t) {
                let grad_diff = g_max_n - v.gradient[t];
                if -v.gradient[t] >= g_max_n2 {
                    g_max_n2 = -v.gradient[t];
                }
                if let (true, Some(i_n), Some(q)) = (grad_diff > 0.0, i_n, q_in) {
                    let quad = v.diagonal[i_n] + v.diagonal[t] - 2.0 * f64::from(q[t]);
                    let quad = if quad > 0.0 { quad } else { TAU };
                    best.offer(grad_diff * grad_diff / quad, t);
                }
            }
        }
        ((positive, negative), (best, g_max_p2, g_max_n2))
    }

    #[test]
    fn the_per_label_scans_are_libsvm_nu_scans() {
        let mut next = super::super::state::test_draws(7);
        // Lengths around the vector widths and past the parallel threshold; a coarse grid of
        // gradients and columns, so that ties are everywhere; sets with one label only.
        for (n, only) in [(1, None), (7, None), (9, Some(1)), (33, Some(-1)), (40_000, None)] {
            let v = super::super::state::tied_variables(n, n as u64 + 7, only);
            let columns: Vec<Vec<f32>> = (0..2)
                .map(|_| (0..n).map(|_| [0.25f32, -0.5, 0.0, 1.0][next() % 4]).collect())
                .collect();
            // The reference reads a label's column only when that label has a first index.
            let ((positive, negative), (best, g_max_p2, g_max_n2)) =
                reference(&v, Some(&columns[0]), Some(&columns[1]), n);
            let (p, m) = first_extremes(v.simd, &v.y, &v.bound, &v.gradient, 0);
            assert_eq!((p.0.to_bits(), p.1), (positive.0.to_bits(), positive.1), "n {n}");
            assert_eq!((m.0.to_bits(), m.1), (negative.0.to_bits(), negative.1), "n {n}");
            let q_ip = positive.1.map(|_| &columns[0][..]);
            let q_in = negative.1.map(|_| &columns[1][..]);
            let selection = select_second(&v, (positive, q_ip), (negative, q_in), 1e-3);
            let gap = (positive.0 + g_max_p2).max(negative.0 + g_max_n2);
            if q_ip.is_none() && q_in.is_none() {
                assert!(selection.pair.is_none());
                continue;
            }
            assert_eq!(selection.gap.to_bits(), gap.to_bits(), "n {n}");
            let j = best.1.filter(|_| gap >= 1e-3);
            assert_eq!(selection.pair.map(|(_, j)| j), j, "n {n}");
            if let Some((i, j)) = selection.pair {
                assert_eq!(i, if v.y[j] == 1 { positive.1 } else { negative.1 }.unwrap());
            }
        }
    }
}
