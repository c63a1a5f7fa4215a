//! The two-variable subproblem and its analytic solution (Chang & Lin 2011, §4.1.2–4.1.3).
//!
//! For the pair `(i, j)` the step keeps `y_i α_i + y_j α_j` fixed and minimises `f` along that
//! line, clipped to the box `[0, u_i] × [0, u_j]`:
//!
//! * `y_i ≠ y_j`: `δ = (−G_i − G_j) / (Q_ii + Q_jj + 2Q_ij)`, `α_i += δ`, `α_j += δ`;
//! * `y_i = y_j`: `δ = (G_i − G_j) / (Q_ii + Q_jj − 2Q_ij)`, `α_i −= δ`, `α_j += δ`;
//!
//! with the denominator replaced by `τ` when it is not positive, then projected back onto the
//! feasible segment exactly as LIBSVM's `Solver::Solve` does.

use super::state::Variables;
use super::TAU;

/// The change of `α_i` and `α_j` made by one step, and the exact change of `f` it causes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step {
    pub delta_i: f64,
    pub delta_j: f64,
    /// `Δf = G_iΔ_i + G_jΔ_j + ½Q_iiΔ_i² + ½Q_jjΔ_j² + Q_ijΔ_iΔ_j` (gradients before the step).
    pub objective_change: f64,
    /// Below this, a positive `Δf` is rounding, not an increase: `10⁻⁹ Σ|terms of Δf|`, plus
    /// `4ε(|G_i| |α_i| + |G_j| |α_j|)` (a step that moves `α` by about one ulp, as clipping to a
    /// bound can, changes `f` by about `ulp(α)·|G|` whatever its own terms are).
    pub increase_threshold: f64,
}

/// One half of LIBSVM's clipping of a step between two variables of the same label (their
/// `sum` kept): `first` back to its bound `c_first` when the sum can exceed it, else `second`
/// back to 0; the other takes the rest of the sum. Called for `(i, j)`, then for `(j, i)`.
fn clip_same_label(first: &mut f64, second: &mut f64, sum: f64, c_first: f64) {
    if sum > c_first {
        if *first > c_first {
            *first = c_first;
            *second = sum - c_first;
        }
    } else if *second < 0.0 {
        *second = 0.0;
        *first = sum;
    }
}

/// Updates `α_i`, `α_j` (not their bounds or the gradient) and returns the step.
pub(crate) fn take_step(
    v: &mut Variables,
    i: usize,
    j: usize,
    q_ij: f64,
    q_ii: f64,
    q_jj: f64,
) -> Step {
    let (c_i, c_j) = (v.upper[i], v.upper[j]);
    let (old_i, old_j) = (v.alpha[i], v.alpha[j]);
    let (g_i, g_j) = (v.gradient[i], v.gradient[j]);
    let (mut a_i, mut a_j) = (old_i, old_j);
    if v.y[i] != v.y[j] {
        let quad = positive_or_tau(q_ii + q_jj + 2.0 * q_ij);
        let delta = (-g_i - g_j) / quad;
        let diff = a_i - a_j;
        a_i += delta;
        a_j += delta;
        if diff > 0.0 {
            if a_j < 0.0 {
                a_j = 0.0;
                a_i = diff;
            }
        } else if a_i < 0.0 {
            a_i = 0.0;
            a_j = -diff;
        }
        if diff > c_i - c_j {
            if a_i > c_i {
                a_i = c_i;
                a_j = c_i - diff;
            }
        } else if a_j > c_j {
            a_j = c_j;
            a_i = c_j + diff;
        }
    } else {
        let quad = positive_or_tau(q_ii + q_jj - 2.0 * q_ij);
        let delta = (g_i - g_j) / quad;
        let sum = a_i + a_j;
        a_i -= delta;
        a_j += delta;
        clip_same_label(&mut a_i, &mut a_j, sum, c_i);
        clip_same_label(&mut a_j, &mut a_i, sum, c_j);
    }
    v.alpha[i] = a_i;
    v.alpha[j] = a_j;
    let (d_i, d_j) = (a_i - old_i, a_j - old_j);
    let terms =
        [g_i * d_i, g_j * d_j, 0.5 * q_ii * d_i * d_i, 0.5 * q_jj * d_j * d_j, q_ij * d_i * d_j];
    Step {
        delta_i: d_i,
        delta_j: d_j,
        objective_change: terms.iter().sum(),
        increase_threshold: 1e-9 * terms.iter().map(|t| t.abs()).sum::<f64>()
            + 4.0
                * f64::EPSILON
                * (g_i.abs() * old_i.abs().max(a_i.abs()) + g_j.abs() * old_j.abs().max(a_j.abs()))
            + f64::MIN_POSITIVE,
    }
}

#[inline]
fn positive_or_tau(quad: f64) -> f64 {
    if quad > 0.0 {
        quad
    } else {
        TAU
    }
}
