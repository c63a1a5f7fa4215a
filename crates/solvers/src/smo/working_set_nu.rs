//! Working-set selection of LIBSVM's ν solver (`Solver_NU::select_working_set`).
//!
//! The same second-order rule as [`super::working_set`], applied within each label: `i⁺`
//! maximises `−G_t` over `{y_t = +1, α_t < u_t}` and `i⁻` maximises `G_t` over
//! `{y_t = −1, α_t > 0}`; `j` minimises `−b²/a` over both labels, each against its own `i`;
//! the pair is `(i⁺, j)` or `(i⁻, j)` by the label of `j`. Optimal within `tol` when
//! `max(m⁺ − M⁺, m⁻ − M⁻) < tol`. Ties go to the last index, as in LIBSVM.

use super::state::{Bound, Variables};
use super::working_set::{chunked, ArgMax, Selection};
use super::TAU;

/// A maximum and where it is (ties to the larger index).
pub(crate) type Extreme = ArgMax;

const EMPTY: Extreme = ArgMax::EMPTY;

/// `(m⁺, i⁺)` and `(m⁻, i⁻)` over the chunk of positions `offset..offset + y.len()`, given as
/// slices (so that it can run inside the gradient update).
pub(crate) fn first_extremes(
    y: &[i8],
    bound: &[Bound],
    gradient: &[f64],
    offset: usize,
) -> (Extreme, Extreme) {
    let (mut positive, mut negative) = (EMPTY, EMPTY);
    for (k, ((&y_t, &bound_t), &g_t)) in y.iter().zip(bound).zip(gradient).enumerate() {
        if y_t == 1 {
            if bound_t != Bound::Upper {
                positive.offer(-g_t, offset + k);
            }
        } else if bound_t != Bound::Lower {
            negative.offer(g_t, offset + k);
        }
    }
    (positive, negative)
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
    let active_size = q_ip.or(q_in).map_or(0, <[f32]>::len);
    // (best j by b²/a, max over I_low⁺ of G, max over I_low⁻ of −G)
    let scan = |lo: usize, hi: usize| {
        let mut best = EMPTY;
        let (mut g_max_p2, mut g_max_n2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for t in lo..hi {
            if v.y[t] == 1 {
                if !v.is_lower(t) {
                    let grad_diff = g_max_p + v.gradient[t];
                    if v.gradient[t] >= g_max_p2 {
                        g_max_p2 = v.gradient[t];
                    }
                    if grad_diff > 0.0 {
                        if let (Some(ip), Some(q_ip)) = (ip, q_ip) {
                            let quad = v.diagonal[ip] + v.diagonal[t] - 2.0 * f64::from(q_ip[t]);
                            let quad = if quad > 0.0 { quad } else { TAU };
                            best.offer(grad_diff * grad_diff / quad, t);
                        }
                    }
                }
            } else if !v.is_upper(t) {
                let grad_diff = g_max_n - v.gradient[t];
                if -v.gradient[t] >= g_max_n2 {
                    g_max_n2 = -v.gradient[t];
                }
                if grad_diff > 0.0 {
                    if let (Some(i_n), Some(q_in)) = (i_n, q_in) {
                        let quad = v.diagonal[i_n] + v.diagonal[t] - 2.0 * f64::from(q_in[t]);
                        let quad = if quad > 0.0 { quad } else { TAU };
                        best.offer(grad_diff * grad_diff / quad, t);
                    }
                }
            }
        }
        (best, g_max_p2, g_max_n2)
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
