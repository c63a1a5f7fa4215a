//! Working-set selection by second-order information (Fan, Chen & Lin 2005, WSS 2; LIBSVM's
//! `select_working_set`).
//!
//! With `I_up = {t : y_t = +1, α_t < u_t} ∪ {t : y_t = −1, α_t > 0}` and
//! `I_low = {t : y_t = +1, α_t > 0} ∪ {t : y_t = −1, α_t < u_t}`:
//!
//! ```text
//! i = argmax_{t ∈ I_up} −y_t G_t,                          m(α) = −y_i G_i
//! j = argmin_{t ∈ I_low, −y_t G_t < m(α)} −b_it² / a_it,   M(α) = min_{t ∈ I_low} −y_t G_t
//! a_it = Q_ii + Q_tt − 2 y_i y_t Q_it  (τ = 1e−12 when a_it ≤ 0),   b_it = m(α) + y_t G_t
//! ```
//!
//! and the pair is optimal within `tol` when `m(α) − M(α) < tol`. Both scans are reductions
//! over fixed chunks; ties go to the *last* index, as LIBSVM's `>=`/`<=` scans do, so the
//! selected pair does not depend on the thread count.

use kernelkit_kernels::Level;

use super::state::{Bound, Variables};
use super::TAU;

/// Positions per parallel task in the scans (see `UPDATE_CHUNK`; the maxima merge exactly
/// whatever the chunks).
const SCAN_CHUNK: usize = 1024;

/// The result of one selection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Selection {
    /// `(i, j)`, or `None` when the active set is optimal within `tol`.
    pub pair: Option<(usize, usize)>,
    /// `m(α) − M(α)` over the active set.
    pub gap: f64,
}

/// Which labels a scan reads: both (LIBSVM's `Solver`), or one (`Solver_NU`, whose scans run
/// once per label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Labels {
    Both,
    Only(i8),
}

impl Labels {
    #[inline]
    pub(crate) fn hold(self, y: i8) -> bool {
        match self {
            Labels::Both => true,
            Labels::Only(label) => y == label,
        }
    }

    /// The label the scan skips, as the SIMD scans compare it (`0.0`, no label, for both).
    #[inline]
    pub(crate) fn skipped(self) -> f64 {
        match self {
            Labels::Both => 0.0,
            Labels::Only(label) => -f64::from(label),
        }
    }
}

/// `(value, index)` maximum with ties to the larger index; `None` when empty.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArgMax(pub f64, pub Option<usize>);

impl ArgMax {
    pub(crate) const EMPTY: ArgMax = ArgMax(f64::NEG_INFINITY, None);

    #[inline]
    pub(crate) fn offer(&mut self, value: f64, index: usize) {
        if value >= self.0 {
            *self = ArgMax(value, Some(index));
        }
    }

    /// The larger of two maxima, ties to the larger index: what one sequential `>=` scan over
    /// both ranges finds. Commutative and associative, so results of disjoint ranges may be
    /// merged in any order (a fused pass merges its windows as threads finish them).
    pub(crate) fn merge(self, other: ArgMax) -> ArgMax {
        match (self.1, other.1) {
            (_, None) => self,
            (None, Some(_)) => other,
            (Some(a), Some(b)) => {
                if other.0 > self.0 || (other.0 == self.0 && b > a) {
                    other
                } else {
                    self
                }
            }
        }
    }
}

/// `−y_t G_t` for `t ∈ I_up` with a label in `labels`, maximised: LIBSVM's first scan, over
/// the chunk of positions `offset..offset + y.len()` given as slices (so that it can run inside
/// the gradient update).
pub(crate) fn max_up(
    simd: Level,
    y: &[i8],
    bound: &[Bound],
    gradient: &[f64],
    offset: usize,
    labels: Labels,
) -> ArgMax {
    #[cfg(target_arch = "x86_64")]
    if simd >= Level::Avx512 {
        // SAFETY: the CPU supports AVX-512F and AVX2 (the level).
        return unsafe { super::scan_avx512::max_up(y, bound, gradient, offset, labels) };
    }
    #[cfg(target_arch = "x86_64")]
    if simd >= Level::Avx2 {
        // SAFETY: the CPU supports AVX2 (the level).
        return unsafe { super::scan_avx2::max_up(y, bound, gradient, offset, labels) };
    }
    max_up_sequential(y, bound, gradient, offset, labels)
}

/// [`max_up`] as one sequential loop: the portable version, and the definition the AVX2
/// version reproduces exactly.
pub(crate) fn max_up_sequential(
    y: &[i8],
    bound: &[Bound],
    gradient: &[f64],
    offset: usize,
    labels: Labels,
) -> ArgMax {
    let mut best = ArgMax::EMPTY;
    for (k, ((&y_t, &bound_t), &g_t)) in y.iter().zip(bound).zip(gradient).enumerate() {
        if !labels.hold(y_t) {
            continue;
        }
        if y_t == 1 {
            if bound_t != Bound::Upper {
                best.offer(-g_t, offset + k);
            }
        } else if bound_t != Bound::Lower {
            best.offer(g_t, offset + k);
        }
    }
    best
}

/// The second scan over the positions `lo..lo + q_i.len()` with a label in `labels`, given
/// `q_i = Q[lo..lo + q_i.len(), i]`: `(argmin of −b²/a as ArgMax of b²/a, max over I_low of
/// y_t G_t)`.
pub(crate) fn second_scan(
    v: &Variables,
    q_i: &[f32],
    i: usize,
    g_max: f64,
    lo: usize,
    labels: Labels,
) -> (ArgMax, f64) {
    #[cfg(target_arch = "x86_64")]
    if v.simd >= Level::Avx2 {
        let chunk = super::scan_simd::SecondScanChunk::new(v, q_i, i, g_max, lo, labels);
        if v.simd >= Level::Avx512 {
            // SAFETY: the CPU supports AVX-512F and AVX2 (the level).
            return unsafe { super::scan_avx512::second_scan(&chunk) };
        }
        // SAFETY: the CPU supports AVX2 (the level).
        return unsafe { super::scan_avx2::second_scan(&chunk) };
    }
    second_scan_sequential(v, q_i, i, g_max, lo, labels)
}

/// [`second_scan`] as one sequential loop: the portable version, and the definition the AVX2
/// version reproduces exactly.
pub(crate) fn second_scan_sequential(
    v: &Variables,
    q_i: &[f32],
    i: usize,
    g_max: f64,
    lo: usize,
    labels: Labels,
) -> (ArgMax, f64) {
    let mut best = ArgMax::EMPTY;
    let mut g_max2 = f64::NEG_INFINITY;
    let y_i = f64::from(v.y[i]);
    let diagonal = &v.diagonal;
    let q_ii = diagonal[i];
    for (t, &q_it) in (lo..).zip(q_i) {
        if !labels.hold(v.y[t]) {
            continue;
        }
        if v.y[t] == 1 {
            if !v.is_lower(t) {
                let grad_diff = g_max + v.gradient[t];
                if v.gradient[t] >= g_max2 {
                    g_max2 = v.gradient[t];
                }
                if grad_diff > 0.0 {
                    let quad = q_ii + diagonal[t] - 2.0 * y_i * f64::from(q_it);
                    let quad = if quad > 0.0 { quad } else { TAU };
                    // minimising −b²/a is maximising b²/a; LIBSVM keeps the last of equal values.
                    best.offer(grad_diff * grad_diff / quad, t);
                }
            }
        } else if !v.is_upper(t) {
            let grad_diff = g_max - v.gradient[t];
            if -v.gradient[t] >= g_max2 {
                g_max2 = -v.gradient[t];
            }
            if grad_diff > 0.0 {
                let quad = q_ii + diagonal[t] + 2.0 * y_i * f64::from(q_it);
                let quad = if quad > 0.0 { quad } else { TAU };
                best.offer(grad_diff * grad_diff / quad, t);
            }
        }
    }
    (best, g_max2)
}

/// Two second scans of disjoint ranges merged (in any order: see [`ArgMax::merge`]).
pub(crate) fn merge_second((a, ga): (ArgMax, f64), (b, gb): (ArgMax, f64)) -> (ArgMax, f64) {
    (a.merge(b), ga.max(gb))
}

/// The selection given the merged second scan of the active set.
pub(crate) fn selection_from(
    (best, g_max2): (ArgMax, f64),
    i: usize,
    g_max: f64,
    tol: f64,
) -> Selection {
    let gap = g_max + g_max2;
    let pair = match best.1 {
        Some(j) if gap >= tol => Some((i, j)),
        _ => None,
    };
    Selection { pair, gap }
}

/// Runs `scan` over `0..len` in fixed chunks, in parallel when `len` is large.
pub(crate) fn chunked<T: Send>(
    len: usize,
    scan: impl Fn(usize, usize) -> T + Sync,
    merge: impl Fn(T, T) -> T,
    empty: T,
) -> T {
    if len < kernelkit_kernels::PARALLEL_MIN_LEN {
        return merge(empty, scan(0, len));
    }
    kernelkit_kernels::team::fold_chunks(
        len.div_ceil(SCAN_CHUNK),
        |c| scan(c * SCAN_CHUNK, ((c + 1) * SCAN_CHUNK).min(len)),
        empty,
        merge,
    )
}

/// The second scan given `i` and its column `Q[0..active_size, i]`.
pub(crate) fn select_second(
    v: &Variables,
    q_i: &[f32],
    i: usize,
    g_max: f64,
    tol: f64,
) -> Selection {
    let active_size = q_i.len();
    let scanned = chunked(
        active_size,
        |lo, hi| second_scan(v, &q_i[lo..hi], i, g_max, lo, Labels::Both),
        merge_second,
        (ArgMax::EMPTY, f64::NEG_INFINITY),
    );
    selection_from(scanned, i, g_max, tol)
}

/// `m(α) − M(α)` over positions `0..len`, without selecting anything (exit report).
pub(crate) fn max_violation(v: &Variables, len: usize) -> f64 {
    let mut up = f64::NEG_INFINITY;
    let mut low = f64::NEG_INFINITY;
    for t in 0..len {
        let minus_yg = -f64::from(v.y[t]) * v.gradient[t];
        let in_up = (v.y[t] == 1 && !v.is_upper(t)) || (v.y[t] == -1 && !v.is_lower(t));
        let in_low = (v.y[t] == 1 && !v.is_lower(t)) || (v.y[t] == -1 && !v.is_upper(t));
        if in_up {
            up = up.max(minus_yg);
        }
        if in_low {
            low = low.max(-minus_yg);
        }
    }
    (up + low).max(0.0)
}
