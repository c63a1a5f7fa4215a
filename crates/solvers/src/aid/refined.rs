//! The aggregated SVM duals solved to float64 accuracy: iterative refinement of the SMO solve.
//!
//! The SMO engine keeps `Q`'s columns in `f32` (LIBSVM's `Qfloat`), so the gradient it updates
//! step by step carries an error of about `2⁻²⁴ · Σ_j |Q_ij| α_j`. AID's aggregated problems put
//! large bounds on few variables (`C|C_k|`, a cluster's weight), so at a large `C` that error
//! exceeds `tol`: the solve stops at an `α` that is optimal for the rounded `Q`, not for `Q`.
//! Its dual value is still a valid lower bound (any feasible `α` gives one), but its `(w, b)`
//! is not the optimum's, and an upper bound evaluated there (the S3VM search's
//! `½‖w‖² + Σ_k c_k · hinge`, each margin error weighted by `c_k`) is too high. Measured on an
//! S3VM of 21 clusters (12 unlabeled) at `C = 10⁴`: the float64 KKT violation of the converged
//! solve was 8.2e-4 (the solver's own 9.5e-7), the upper bound 5.8 above the exact optimum's,
//! more than the unlabeled clusters' losses can differ by (1.8), so branch and bound pruned no
//! node (8,191 solves against the 91 of exact node solves) and returned a point 5.8 above the
//! optimum.
//!
//! The refinement: the exact gradient `G = Qα + p` is cheap here (`O(k·d)` through
//! `w = Σ_k α_k y_k x̄_k` for the linear kernel, `O(k²)` from the block-mean Gram otherwise), so
//! after a solve its float64 KKT violation `m(α) − M(α)` is checked, and while it exceeds `tol`
//! the solve restarts from `α` with `G` as its gradient (`BoxQp::gradient0`). The restart's
//! steps are the correction, whose `f32` error is smaller by as much as the correction is
//! smaller than `α`; a few rounds reach `tol`. Every solve, the first included, starts from its
//! exact gradient, so a warm start (`alpha0`) costs no kernel column either.

use kernelkit_kernels::{
    DenseKernel, DenseRows, KernelFunction, PrecomputedGram, QMatrix, SignedQ,
};

use crate::box_qp::BoxQp;
use crate::protocol::{Monitor, Solution, SolveError, SolveOptions, Solver, Status};

/// Restarts after the first solve, at most: each gains several digits, so more means the
/// violation is stuck at the rounding of `G` itself (then the last solve is returned).
const MAX_RESTARTS: usize = 6;

/// The terms of an aggregated SVM dual besides its Hessian: `min ½αᵀQα + pᵀα`, `yᵀα`
/// fixed, `0 ≤ α ≤ u`.
pub(crate) struct DualTerms<'a> {
    /// `y` as ±1.0.
    pub signs: &'a [f64],
    /// `y`.
    pub y: &'a [i8],
    /// `p`.
    pub p: &'a [f64],
    /// `u`.
    pub upper: &'a [f64],
}

impl DualTerms<'_> {
    /// `G_k = y_k (M_k · v) + p_k` for the rows `M_k` of `rows` (row-major, `width` columns):
    /// `Qα + p` when `M v = K̄ (y ∘ α)`.
    fn gradient(&self, rows: &[f64], width: usize, v: &[f64]) -> Vec<f64> {
        rows.chunks(width.max(1))
            .zip(self.signs)
            .zip(self.p)
            .map(|((row, s), p)| s * row.iter().zip(v).map(|(a, b)| a * b).sum::<f64>() + p)
            .collect()
    }

    /// The [`BoxQp`] of `q` with these terms, started at `alpha0` with the gradient
    /// `gradient0` there, checked.
    fn problem<Q: QMatrix>(
        &self,
        q: Q,
        alpha0: Vec<f64>,
        gradient0: Vec<f64>,
    ) -> Result<BoxQp<Q>, SolveError> {
        let (p, y, upper) = (self.p.to_vec(), self.y.to_vec(), self.upper.to_vec());
        let mut problem = BoxQp::new(q, p, y, upper, Some(alpha0))?;
        problem.gradient0 = Some(gradient0);
        problem.validate()?;
        Ok(problem)
    }
}

/// An aggregated SVM dual with `Q_kq = y_k y_q K̄(k, q)`, whose exact gradient is cheap.
pub(crate) trait ExactDual {
    /// The Hessian the SMO engine reads.
    type Q: QMatrix;
    /// `y`, `p` and `u`.
    fn terms(&self) -> &DualTerms<'_>;
    /// `Qα + p` in float64.
    fn gradient(&self, alpha: &[f64]) -> Vec<f64>;
    /// The [`BoxQp`] started at `alpha0` with gradient `gradient0`.
    fn problem(
        &self,
        alpha0: Vec<f64>,
        gradient0: Vec<f64>,
        options: &SolveOptions,
    ) -> Result<BoxQp<Self::Q>, SolveError>;
}

/// The dual of the linear kernel on `k` rows of `d` columns (the cluster centroids):
/// `(Qα)_k = y_k x̄_k · w`, `w = Σ_q α_q y_q x̄_q`.
pub(crate) struct LinearDual<'a> {
    /// `k × d`, row-major.
    pub rows: &'a [f64],
    /// Columns.
    pub d: usize,
    /// `y`, `p`, `u`.
    pub terms: DualTerms<'a>,
}

impl ExactDual for LinearDual<'_> {
    type Q = SignedQ<DenseKernel<'static>>;

    fn terms(&self) -> &DualTerms<'_> {
        &self.terms
    }

    fn gradient(&self, alpha: &[f64]) -> Vec<f64> {
        let w = crate::aid::svm::linear_weights(self.rows, self.d, alpha, self.terms.signs);
        self.terms.gradient(self.rows, self.d, &w)
    }

    fn problem(
        &self,
        alpha0: Vec<f64>,
        gradient0: Vec<f64>,
        options: &SolveOptions,
    ) -> Result<BoxQp<Self::Q>, SolveError> {
        let signs = self.terms.signs.to_vec();
        let rows = DenseRows::from_vec(self.rows.to_vec(), signs.len(), self.d)?;
        let kernel = DenseKernel::new(rows, KernelFunction::Linear)?;
        let q = SignedQ::new(kernel, signs, options.cache_bytes);
        self.terms.problem(q, alpha0, gradient0)
    }
}

/// The dual of a kernel's block means `K̄` (`k × k`, row-major): `(Qα)_k = y_k Σ_q K̄_kq y_q α_q`.
pub(crate) struct GramDual<'a> {
    /// `K̄`.
    pub means: &'a [f64],
    /// `y`, `p`, `u`.
    pub terms: DualTerms<'a>,
}

impl<'a> ExactDual for GramDual<'a> {
    type Q = SignedQ<PrecomputedGram<'a>>;

    fn terms(&self) -> &DualTerms<'_> {
        &self.terms
    }

    fn gradient(&self, alpha: &[f64]) -> Vec<f64> {
        let coef: Vec<f64> = alpha.iter().zip(self.terms.signs).map(|(a, s)| a * s).collect();
        self.terms.gradient(self.means, coef.len(), &coef)
    }

    fn problem(
        &self,
        alpha0: Vec<f64>,
        gradient0: Vec<f64>,
        options: &SolveOptions,
    ) -> Result<BoxQp<Self::Q>, SolveError> {
        let signs = self.terms.signs.to_vec();
        let k = signs.len();
        let q = SignedQ::new(PrecomputedGram::new(self.means, k, k)?, signs, options.cache_bytes);
        self.terms.problem(q, alpha0, gradient0)
    }
}

/// The float64 KKT violation `m(α) − M(α)` of `min ½αᵀQα + pᵀα`, `yᵀα` fixed, `0 ≤ α ≤ u`, at
/// `alpha` with exact gradient `gradient` (LIBSVM's `I_up`/`I_low`; `−∞` when a side is
/// empty).
pub(crate) fn kkt_violation(alpha: &[f64], gradient: &[f64], y: &[i8], upper: &[f64]) -> f64 {
    let (mut up, mut low) = (f64::NEG_INFINITY, f64::INFINITY);
    for (((&a, &g), &label), &u) in alpha.iter().zip(gradient).zip(y).zip(upper) {
        let value = -f64::from(label) * g;
        let (below_upper, above_zero) = (a < u, a > 0.0);
        let (in_up, in_low) =
            if label > 0 { (below_upper, above_zero) } else { (above_zero, below_upper) };
        if in_up {
            up = up.max(value);
        }
        if in_low {
            low = low.min(value);
        }
    }
    up - low
}

/// Solves `dual` from `alpha0` (`None`: 0) to a float64 KKT violation of at most
/// `options.tol` (module documentation). Returns the last solve, with `iterations` summed over
/// the rounds and `gap` the float64 violation where the rounds ended on it.
pub(crate) fn solve_refined<D, S>(
    dual: &D,
    alpha0: Option<Vec<f64>>,
    solver: &S,
    options: &SolveOptions,
    inner: &mut dyn Monitor,
) -> Result<Solution, SolveError>
where
    D: ExactDual,
    S: Solver<BoxQp<D::Q>>,
{
    let terms = dual.terms();
    let mut alpha = alpha0.unwrap_or_else(|| vec![0.0; terms.y.len()]);
    let mut exact = dual.gradient(&alpha);
    let mut iterations = 0;
    for restart in 0..=MAX_RESTARTS {
        let mut qp = dual.problem(alpha, exact, options)?;
        let mut solution = solver.solve(&mut qp, options, inner)?;
        iterations += solution.iterations;
        solution.iterations = iterations;
        if solution.status != Status::Converged || restart == MAX_RESTARTS {
            return Ok(solution);
        }
        exact = dual.gradient(&solution.x);
        let violation = kkt_violation(&solution.x, &exact, terms.y, terms.upper);
        if violation <= options.tol || !violation.is_finite() {
            return Ok(Solution { gap: violation.max(0.0), ..solution });
        }
        alpha = solution.x;
    }
    unreachable!("the last round returns")
}
