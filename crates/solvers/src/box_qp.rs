//! `BoxQp`: the quadratic program of the LIBSVM formulations (Chang & Lin 2011, eq. (11)):
//!
//! ```text
//! min_α  f(α) = ½ αᵀQα + pᵀα
//! s.t.   yᵀα = Δ,   0 ≤ α_i ≤ u_i,   y_i ∈ {−1, +1},
//! ```
//!
//! where `Δ = yᵀα⁰` is fixed by the feasible starting point `α⁰`. The upper bounds `u_i` are per
//! variable (class weights times sample weights, as scikit-learn's LIBSVM has them).

use kernelkit_kernels::QMatrix;

use crate::protocol::SolveError;

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
    /// `Qα⁰ + p`, when the caller already knows it (a warm start): the solver then skips the
    /// `O(n · #{α⁰_i > 0})` computation of the initial gradient. `None` by default.
    pub gradient0: Option<Vec<f64>>,
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
        let problem = BoxQp { q, p, y, upper, alpha0, gradient0: None };
        problem.validate()?;
        Ok(problem)
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
        if let Some(i) = self.gradient0.as_ref().and_then(|g| g.iter().position(|v| !v.is_finite()))
        {
            return Err(SolveError::invalid("gradient0", format!("gradient0[{i}] is not finite")));
        }
        if let Some(i) = self.q.diagonal().iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid("Q", format!("Q[{i}, {i}] is not finite")));
        }
        Ok(())
    }
}
