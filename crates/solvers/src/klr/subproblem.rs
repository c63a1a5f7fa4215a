//! The two-variable subproblem (30): one-dimensional, strictly convex, no closed form.
//!
//! Along `α_i += t·y_i`, `α_j −= t·y_j` (which keeps `Σ α y`), with `v = gneg_i − gneg_j > 0`,
//! `η = K_ii + K_jj − 2K_ij` and `Gα(a) = log a − log(C − a)` (the derivative of `C·G(a/C)`):
//!
//! ```text
//! φ'(t)  = −v + t η + y_i [Gα(α_i + t y_i) − Gα(α_i)] − y_j [Gα(α_j − t y_j) − Gα(α_j)]
//! φ''(t) = η + C/(α_i(t)(C − α_i(t))) + C/(α_j(t)(C − α_j(t)))   ≥ 8/C
//! ```
//!
//! on `t ∈ [0, t_max]`, where `t_max` is the largest step that keeps both variables in the box
//! `[γ, C − γ]` (negative steps never help: `φ'(0) = −v < 0`). The paper solves it with SciPy's
//! unconstrained Newton-CG; here a safeguarded Newton method on `φ'` inside the bracket
//! `[0, t_max]` (bisection whenever a Newton step leaves the bracket), so that no logarithm is
//! ever evaluated outside `(0, C)`. If `φ'(t_max) ≤ 0` the minimiser is `t_max` and the caller
//! snaps the binding variable onto its bound exactly.
//!
//! The differences `Gα(a + δ) − Gα(a) = ln(1 + δ/a) − ln(1 − δ/(C − a))` use `ln_1p`, exact
//! for the tiny steps near convergence.

/// The data of one subproblem.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairSubproblem {
    /// The upper ends `C_i`, `C_j` of the two entropies (`C` times the points' weights).
    pub c_i: f64,
    pub c_j: f64,
    /// `α_i`, `α_j`.
    pub alpha_i: f64,
    pub alpha_j: f64,
    /// `y_i`, `y_j`.
    pub y_i: f64,
    pub y_j: f64,
    /// `v = gneg_i − gneg_j`.
    pub violation: f64,
    /// `η = K_ii + K_jj − 2K_ij`, clamped at 0 (for PSD kernels it is ≥ 0 up to round-off).
    pub eta: f64,
    /// The largest feasible step.
    pub t_max: f64,
}

/// `Gα(a + δ) − Gα(a)`.
fn entropy_gradient_change(a: f64, delta: f64, c: f64) -> f64 {
    (delta / a).ln_1p() - (-delta / (c - a)).ln_1p()
}

impl PairSubproblem {
    /// `φ'(t)`.
    pub(crate) fn slope(&self, t: f64) -> f64 {
        -self.violation
            + t * self.eta
            + self.y_i * entropy_gradient_change(self.alpha_i, t * self.y_i, self.c_i)
            - self.y_j * entropy_gradient_change(self.alpha_j, -t * self.y_j, self.c_j)
    }

    /// `φ''(t)`.
    pub(crate) fn curvature(&self, t: f64) -> f64 {
        let a_i = self.alpha_i + t * self.y_i;
        let a_j = self.alpha_j - t * self.y_j;
        self.eta + self.c_i / (a_i * (self.c_i - a_i)) + self.c_j / (a_j * (self.c_j - a_j))
    }

    /// The minimiser of `φ` on `[0, t_max]`.
    pub(crate) fn solve(&self) -> f64 {
        if self.slope(self.t_max) <= 0.0 {
            return self.t_max;
        }
        let (mut lower, mut upper) = (0.0, self.t_max);
        let tolerance = 1e-14 * self.violation.max(1.0);
        let mut t = (self.violation / self.curvature(0.0)).min(0.5 * self.t_max);
        for _ in 0..100 {
            let slope = self.slope(t);
            if slope.abs() <= tolerance {
                return t;
            }
            if slope > 0.0 {
                upper = t;
            } else {
                lower = t;
            }
            if upper - lower <= 4.0 * f64::EPSILON * upper {
                return t;
            }
            let newton = t - slope / self.curvature(t);
            t = if newton > lower && newton < upper { newton } else { 0.5 * (lower + upper) };
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::PairSubproblem;

    fn subproblem(alpha_i: f64, alpha_j: f64, y_j: f64, violation: f64) -> PairSubproblem {
        let c = 2.0;
        let (lower, upper) = (1e-5, c - 1e-5);
        // y_i = +1: α_i grows to C − γ; α_j moves by −t y_j.
        let t_max =
            (upper - alpha_i).min(if y_j > 0.0 { alpha_j - lower } else { upper - alpha_j });
        PairSubproblem {
            c_i: c,
            c_j: c,
            alpha_i,
            alpha_j,
            y_i: 1.0,
            y_j,
            violation,
            eta: 0.7,
            t_max,
        }
    }

    #[test]
    fn the_root_of_the_slope_is_found_inside_the_bracket() {
        for (a_i, a_j, y_j, v) in
            [(0.3, 1.1, 1.0, 0.8), (1.5, 0.2, -1.0, 3.0), (1e-3, 1.0, 1.0, 1e-9)]
        {
            let p = subproblem(a_i, a_j, y_j, v);
            let t = p.solve();
            assert!(t > 0.0 && t <= p.t_max);
            if t < p.t_max {
                assert!(p.slope(t).abs() <= 1e-12 * v.max(1.0), "{}", p.slope(t));
            }
        }
    }

    #[test]
    fn a_large_violation_stops_at_the_box() {
        let p = subproblem(1.9, 1.0, 1.0, 1e3);
        assert_eq!(p.solve(), p.t_max);
    }
}
