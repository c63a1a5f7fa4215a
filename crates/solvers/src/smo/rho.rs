//! The offset ρ of the decision function (LIBSVM's `calculate_rho`; Chang & Lin 2011, §4.2).
//!
//! At the optimum `y_i G_i = ρ` for every free variable, so ρ is their average; without free
//! variables ρ is the midpoint of the interval allowed by the bounded ones.

use super::state::Variables;

/// ρ from the exact gradient on positions `0..len`.
pub(crate) fn calculate_rho(v: &Variables, len: usize) -> f64 {
    let mut n_free = 0usize;
    let mut sum_free = 0.0;
    let mut ub = f64::INFINITY;
    let mut lb = f64::NEG_INFINITY;
    for i in 0..len {
        let y_g = f64::from(v.y[i]) * v.gradient[i];
        if v.is_upper(i) {
            if v.y[i] == -1 {
                ub = ub.min(y_g);
            } else {
                lb = lb.max(y_g);
            }
        } else if v.is_lower(i) {
            if v.y[i] == 1 {
                ub = ub.min(y_g);
            } else {
                lb = lb.max(y_g);
            }
        } else {
            n_free += 1;
            sum_free += y_g;
        }
    }
    if n_free > 0 {
        sum_free / n_free as f64
    } else if ub.is_finite() && lb.is_finite() {
        (ub + lb) / 2.0
    } else if ub.is_finite() {
        // Degenerate (e.g. every variable at one bound, one label): LIBSVM would return ±∞.
        ub
    } else if lb.is_finite() {
        lb
    } else {
        0.0
    }
}
