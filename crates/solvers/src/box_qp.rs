//! `BoxQp`: the quadratic program of the LIBSVM formulations (Chang & Lin 2011, eq. (11)):
//!
//! ```text
//! min_α  f(α) = ½ αᵀQα + pᵀα
//! s.t.   yᵀα = Δ,   0 ≤ α_i ≤ u_i,   y_i ∈ {−1, +1},
//! ```
//!
//! where `Δ = yᵀα⁰` is fixed by the feasible starting point `α⁰`. The upper bounds `u_i` are per
//! variable (class weights times sample weights, as scikit-learn's LIBSVM has them).
//!
//! `Q` is symmetric: the solvers read its columns as its rows (the gradient `Qα + p` from the
//! columns of the variables that moved), which is the gradient of `f` only when `Q = Qᵀ`. The
//! formulations build it symmetric; a user-given dense `Q` is checked ([`check_symmetric`]).
//! A non-symmetric `Q` has the objective of `(Q + Qᵀ)/2`, the matrix to give instead.

use kernelkit_kernels::QMatrix;

use crate::protocol::SolveError;

/// The asymmetry [`check_symmetric`] lets pass, relative to the entries' scale: the SMO solvers
/// read `Q` through an `f32` column cache (relative rounding 6e-8), so a difference 16 times
/// that is rounding of a symmetric matrix (`A·Aᵀ` summed in another order, or computed in
/// `f32`), and a larger one is another matrix.
pub const SYMMETRY_RTOL: f64 = 1e-6;

/// Checks that the row-major `n × n` matrix `q` is symmetric: every pair of entries has
/// `|Q_ij − Q_ji| ≤ SYMMETRY_RTOL · max(|Q_ij|, |Q_ji|, √(|Q_ii|·|Q_jj|))` (the last term the
/// scale of an entry of a positive semi-definite matrix, `|Q_ij| ≤ √(Q_ii Q_jj)`, which keeps
/// the rounding of an entry that cancels to about 0 from counting). The error names the first
/// pair that differs, in row-major order of the upper triangle.
///
/// # Panics
/// If `q` does not hold `n × n` values.
pub fn check_symmetric(q: &[f64], n: usize) -> Result<(), SolveError> {
    assert_eq!(q.len(), n * n, "check_symmetric: an n × n matrix");
    // Tiles of the upper triangle and of their mirror images, both read row by row.
    const TILE: usize = 64;
    for i0 in (0..n).step_by(TILE) {
        for j0 in (i0..n).step_by(TILE) {
            for i in i0..(i0 + TILE).min(n) {
                for j in j0.max(i + 1)..(j0 + TILE).min(n) {
                    let (upper, lower) = (q[i * n + j], q[j * n + i]);
                    let scale = upper
                        .abs()
                        .max(lower.abs())
                        .max((q[i * n + i] * q[j * n + j]).abs().sqrt());
                    if (upper - lower).abs() > SYMMETRY_RTOL * scale {
                        return Err(SolveError::invalid(
                            "Q",
                            format!(
                                "it is not symmetric: Q[{i}, {j}] = {upper} and Q[{j}, {i}] = \
                                 {lower} differ by more than {SYMMETRY_RTOL} of their scale \
                                 (the solver reads Q as symmetric; (Q + Q.T) / 2 has the same \
                                 objective)"
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// A previous solve's solution `x` and the gradient `Qx + p` there (its `Solution::x` and
/// `Solution::gradient`, of the same `Q` and `p`): a warm start from a point near `x` updates
/// that gradient by the columns of the variables that moved instead of computing it afresh.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviousSolution {
    /// The previous solution.
    pub x: Vec<f64>,
    /// `Qx + p`.
    pub gradient: Vec<f64>,
}

/// `min ½αᵀQα + pᵀα` s.t. `yᵀα = yᵀα⁰`, `0 ≤ α ≤ u`.
#[derive(Debug)]
pub struct BoxQp<Q> {
    /// The Hessian.
    pub q: Q,
    /// The linear term.
    pub p: Vec<f64>,
    /// The signs of the equality constraint, each −1 or +1.
    pub y: Vec<i8>,
    /// The upper bounds, each > 0.
    pub upper: Vec<f64>,
    /// A feasible starting point.
    pub alpha0: Vec<f64>,
    /// `Qa + p` at `a = gradient0_at` (else at `a = α⁰`), when the caller already knows it (a
    /// warm start): the solver then skips the `O(n · #{α⁰_i > 0})` computation of the initial
    /// gradient. `None` by default.
    pub gradient0: Option<Vec<f64>>,
    /// The point `a` where `gradient0` was computed, when it is not `α⁰`: a previous solve's
    /// solution that the warm start moved (projected onto new bounds). The solver then adds
    /// `Q(α⁰ − a)` to `gradient0`, one column per variable that moved, instead of one per
    /// non-zero `α⁰_i`. Needs `gradient0`; `None` by default.
    pub gradient0_at: Option<Vec<f64>>,
    /// The order a solve left `q` in (`order[position]` = the variable there): the SMO
    /// solvers' shrinking swaps `q`'s positions and does not swap them back, as the problem is
    /// usually dropped. A second solve of the same problem (a warm start's cold restart,
    /// `formulations`) first puts `q` back in the variables' order ([`BoxQp::restore_order`]),
    /// which costs a swap per displaced position only where it happens.
    pub(crate) order: Option<Vec<usize>>,
}

impl<Q: QMatrix> BoxQp<Q> {
    /// Builds the problem, starting from `α⁰ = 0` when `alpha0` is `None`.
    pub fn new(
        q: Q,
        p: Vec<f64>,
        y: Vec<i8>,
        upper: Vec<f64>,
        alpha0: Option<Vec<f64>>,
    ) -> Result<Self, SolveError> {
        let n = q.size();
        let alpha0 = alpha0.unwrap_or_else(|| vec![0.0; n]);
        let problem =
            BoxQp { q, p, y, upper, alpha0, gradient0: None, gradient0_at: None, order: None };
        problem.validate()?;
        Ok(problem)
    }

    /// The problem started from `α⁰` with the gradient known at a previous solution
    /// (`gradient0` and `gradient0_at`), checked; unchanged when `previous` is `None`.
    pub fn with_previous(mut self, previous: Option<PreviousSolution>) -> Result<Self, SolveError> {
        if let Some(previous) = previous {
            self.gradient0 = Some(previous.gradient);
            self.gradient0_at = Some(previous.x);
            self.validate()?;
        }
        Ok(self)
    }

    /// Undoes the swaps a previous solve left on `q` ([`BoxQp::order`]): position `i` holds
    /// variable `i` again.
    pub(crate) fn restore_order(&mut self) {
        let Some(mut order) = self.order.take() else { return };
        let mut position = vec![0; order.len()];
        for (at, &variable) in order.iter().enumerate() {
            position[variable] = at;
        }
        for variable in 0..order.len() {
            let at = position[variable];
            if at != variable {
                // The variable at `variable`'s place moves to where `variable` was.
                let displaced = order[variable];
                self.q.swap_index(variable, at);
                order.swap(variable, at);
                position[displaced] = at;
                position[variable] = variable;
            }
        }
    }

    /// Number of variables.
    pub fn len(&self) -> usize {
        self.q.size()
    }

    /// Whether there are no variables.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks lengths, signs, bounds and the feasibility of `α⁰`.
    pub fn validate(&self) -> Result<(), SolveError> {
        let n = self.q.size();
        for (name, actual) in [
            ("p", self.p.len()),
            ("y", self.y.len()),
            ("upper", self.upper.len()),
            ("alpha0", self.alpha0.len()),
            ("gradient0", self.gradient0.as_ref().map_or(n, Vec::len)),
            ("gradient0_at", self.gradient0_at.as_ref().map_or(n, Vec::len)),
        ] {
            if actual != n {
                return Err(SolveError::LengthMismatch { name, expected: n, actual });
            }
        }
        if n == 0 {
            return Err(SolveError::invalid("problem", "it has no variables"));
        }
        if let Some(i) = self.p.iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid("p", format!("p[{i}] is not finite")));
        }
        if let Some(i) = self.y.iter().position(|&v| v != 1 && v != -1) {
            return Err(SolveError::invalid(
                "y",
                format!("y[{i}] = {} is not -1 or +1", self.y[i]),
            ));
        }
        if let Some(i) = self.upper.iter().position(|&u| !(u.is_finite() && u > 0.0)) {
            return Err(SolveError::invalid(
                "upper",
                format!("upper[{i}] = {} must be finite and > 0", self.upper[i]),
            ));
        }
        for (i, (&a, &u)) in self.alpha0.iter().zip(&self.upper).enumerate() {
            if !(a.is_finite() && (0.0..=u).contains(&a)) {
                return Err(SolveError::invalid(
                    "alpha0",
                    format!("alpha0[{i}] = {a} is outside [0, upper[{i}] = {u}]"),
                ));
            }
        }
        for (name, values) in [("gradient0", &self.gradient0), ("gradient0_at", &self.gradient0_at)]
        {
            if let Some(i) = values.as_ref().and_then(|g| g.iter().position(|v| !v.is_finite())) {
                return Err(SolveError::invalid(name, format!("{name}[{i}] is not finite")));
            }
        }
        if self.gradient0_at.is_some() && self.gradient0.is_none() {
            return Err(SolveError::invalid(
                "gradient0_at",
                "it is the point of gradient0, which is not given",
            ));
        }
        if let Some(i) = self.q.diagonal().iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid("Q", format!("Q[{i}, {i}] is not finite")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matrix_is_symmetric_within_the_relative_tolerance_only() {
        let n = 130; // more than two tiles
        let mut q: Vec<f64> =
            (0..n * n).map(|k| ((k / n) as f64 + 1.0) * ((k % n) as f64 + 1.0)).collect();
        assert_eq!(check_symmetric(&q, n), Ok(()));
        // Rounding of an entry that is about 0 next to a large diagonal: not an asymmetry.
        let (i, j) = (3, 100);
        q[i * n + j] = 1e-12;
        q[j * n + i] = -1e-12;
        assert_eq!(check_symmetric(&q, n), Ok(()));
        // An asymmetry of 1e-5 of the entry, at a pair in the second row of tiles.
        let (i, j) = (70, 120);
        q[j * n + i] *= 1.0 + 1e-5;
        let error = check_symmetric(&q, n).unwrap_err().to_string();
        assert!(error.contains("not symmetric: Q[70, 120]"), "{error}");
    }
}
