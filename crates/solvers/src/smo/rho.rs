//! The offset ρ of the decision function (LIBSVM's `calculate_rho`; Chang & Lin 2011, §4.2).
//!
//! At the optimum `y_i G_i = ρ` for every free variable, so ρ is their average; without free
//! variables ρ is the midpoint of the interval allowed by the bounded ones.

use super::state::Variables;

/// The midpoint rule of [`calculate_rho`] for one label: the average of the free values, or
/// the middle of the interval left by the bounded ones.
fn label_offset(n_free: usize, sum_free: f64, ub: f64, lb: f64) -> f64 {
    if n_free > 0 {
        sum_free / n_free as f64
    } else if ub.is_finite() && lb.is_finite() {
        (ub + lb) / 2.0
    } else if ub.is_finite() {
        ub
    } else if lb.is_finite() {
        lb
    } else {
        0.0
    }
}

/// `(ρ, r)` of the ν formulations (LIBSVM's `Solver_NU::calculate_rho`): `r⁺` and `r⁻` are
/// the per-label offsets of `G` (not `yG`), `ρ = (r⁺ − r⁻)/2` and `r = (r⁺ + r⁻)/2`.
pub(crate) fn calculate_rho_nu(v: &Variables, len: usize) -> (f64, f64) {
    let mut n_free = [0usize; 2];
    let mut sum_free = [0.0; 2];
    let mut ub = [f64::INFINITY; 2];
    let mut lb = [f64::NEG_INFINITY; 2];
    for i in 0..len {
        let side = usize::from(v.y[i] != 1);
        let g = v.gradient[i];
        if v.is_upper(i) {
            lb[side] = lb[side].max(g);
        } else if v.is_lower(i) {
            ub[side] = ub[side].min(g);
        } else {
            n_free[side] += 1;
            sum_free[side] += g;
        }
    }
    let r_positive = label_offset(n_free[0], sum_free[0], ub[0], lb[0]);
    let r_negative = label_offset(n_free[1], sum_free[1], ub[1], lb[1]);
    ((r_positive - r_negative) / 2.0, (r_positive + r_negative) / 2.0)
}

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
    // Degenerate cases (every variable at one bound, one label): LIBSVM would return ±∞;
    // `label_offset` returns the finite side.
    label_offset(n_free, sum_free, ub, lb)
}
