//! Sparse binary kernel logistic regression by a second-order SMO-type decomposition
//! (Consolo, Manno & Amaldi, "Binary Kernel Logistic Regression: a sparsity-inducing
//! formulation and a convergent decomposition training algorithm"; digest
//! `papers/seed-004-sparse-klr.md`).
//!
//! # The problem ([`KlrProblem`], eq. (22))
//!
//! ```text
//! min_α f(α) = ½ Σ_ij y_i y_j α_i α_j K_ij + C Σ_i G(α_i / C) − λ Σ_i α_i
//! s.t.  Σ_i α_i y_i = 0,   γ ≤ α_i ≤ C − γ,       G(δ) = δ log δ + (1 − δ) log(1 − δ)
//! ```
//!
//! λ = 0 is the dual of ordinary kernel logistic regression (Keerthi et al. 2005; eqs. (5)–(7));
//! λ > 0 is the Lagrangian form of the constraint `Σ α_i ≥ ν` of the sparsity-inducing primal
//! (8), whose margin slack is then `ρ = λ` (Observation 1). The box `[γ, C − γ]` (γ = 1e-5 in
//! the paper) keeps the entropy finite; "sparsity" is `α_i = γ`: such points are dropped from
//! the model. With `F_s = Σ_j α_j y_j K_sj` the gradient is `∇f_i = y_i F_i + log(α_i/(C − α_i))
//! − λ` and the working quantity is `gneg_i = −y_i ∇f_i`.
//!
//! # The algorithm ([`KlrSmo`], §4.1)
//!
//! SMO in LIBSVM's form: with `I_up`, `I_low` of (26), stop when
//! `m = max_{I_up} gneg ≤ M + τ`, `M = min_{I_low} gneg` (27); else take
//! `i* = argmax_{I_up} gneg` and
//! * [`WorkingSetRule::SecondOrder`] (the paper's S-KLR, after Fan, Chen & Lin 2005):
//!   `j* = argmax { v²/q : j ∈ I_low, gneg_j < m }` with `v = m − gneg_j` and
//!   `q = K_ii + K_jj − 2K_ij + C/(α_i(C − α_i)) + C/(α_j(C − α_j))` (35), the curvature of the
//!   subproblem at 0;
//! * [`WorkingSetRule::FirstOrder`]: `j* = argmin_{I_low} gneg` (the maximal violating pair of
//!   Keerthi et al.).
//!
//! The subproblem along the pair has no closed form; [`subproblem`] solves it by safeguarded
//! Newton inside the box. The gradient update `F += Δ(α_i y_i) K_{:,i} + Δ(α_j y_j) K_{:,j}`
//! uses two kernel columns from the shared row cache (`f64`) and runs in fixed chunks on rayon
//! above [`kernelkit_kernels::PARALLEL_MIN_LEN`] points, as do the selection scans (ties go to
//! the smallest index), so results do not depend on the thread count. At convergence `F` is
//! recomputed from the kernel and the test repeated.
//!
//! # Typos of the paper fixed here
//!
//! * The expansion of step 1 of the second-order rule prints `− λ y_i`; the gradient (23) gives
//!   `gneg_i = −F_i − y_i log(α_i/(C − α_i)) + λ y_i`. `gneg` is computed from one formula.
//! * The model step is `t = v/q`, not `−v/(2q)` (only the model value `−v²/(2q)`, printed
//!   correctly, is used for selection).
//! * The initial point: the paper's rule (`1/m_k` per class, or `m1·C̄/m2`, where `C̄` should be
//!   `0̄` and its τ is γ) is infeasible for small C. Here `α_i = s / m_{class(i)}`, which satisfies
//!   `Σ α y = 0`, with `s = 1` (the paper's rule) when feasible, else
//!   `s = clamp(n_min·C/2, n_maj·γ, n_min·(C − γ))` (digest §3.6).
//! * The box is infeasible when `γ·n_maj > (C − γ)·n_min` (small C on imbalanced data; the
//!   paper is silent): [`KlrProblem::new`] reports it.
//!
//! The bias is not given by the paper: `b = mean(gneg_i)` over the free variables (the KKT
//! multiplier of `Σ α y = 0`), else `(m + M)/2`; the decision function is
//! `d(x) = Σ_{α_i > γ} α_i y_i K(x_i, x) + b` (`Solution::bias`).

mod run;
mod state;
mod subproblem;

use kernelkit_kernels::{CachedColumns, KernelSource};

use crate::protocol::{Monitor, Solution, SolveError, SolveOptions};

/// Problem (22) over a kernel source (see the module documentation).
#[derive(Debug)]
pub struct KlrProblem<K> {
    columns: CachedColumns<K>,
    y: Vec<f64>,
    /// `C_i = C · weight_i` per point.
    c: Vec<f64>,
    lambda: f64,
    bound: f64,
}

impl<K: KernelSource> KlrProblem<K> {
    /// The problem for labels `y_i ∈ {−1, +1}` (both present), `C > 0`, `λ ≥ 0` and the box
    /// tolerance `γ = bound` (`0 < γ < C/2`); `cache_bytes` bounds the column cache.
    pub fn new(
        kernel: K,
        y: &[f64],
        c: f64,
        lambda: f64,
        bound: f64,
        cache_bytes: usize,
    ) -> Result<Self, SolveError> {
        Self::weighted(kernel, y, c, None, lambda, bound, cache_bytes)
    }

    /// [`KlrProblem::new`] with a weight per point (sample and class weights, each finite and
    /// positive): point `i`'s loss is weighted by `C_i = C · weights[i]`, so its entropy term
    /// is `C_i G(α_i / C_i)` and its box `[γ, C_i − γ]` (`γ < C_i / 2` for every point).
    pub fn weighted(
        kernel: K,
        y: &[f64],
        c: f64,
        weights: Option<&[f64]>,
        lambda: f64,
        bound: f64,
        cache_bytes: usize,
    ) -> Result<Self, SolveError> {
        let invalid = |name, reason: String| Err(SolveError::invalid(name, reason));
        if y.len() != kernel.len() {
            return Err(SolveError::LengthMismatch {
                name: "y",
                expected: kernel.len(),
                actual: y.len(),
            });
        }
        if let Some(i) = y.iter().position(|&v| v != 1.0 && v != -1.0) {
            return invalid("y", format!("y[{i}] = {} is not -1 or +1", y[i]));
        }
        let positives = y.iter().filter(|&&v| v > 0.0).count();
        let negatives = y.len() - positives;
        if positives == 0 || negatives == 0 {
            return invalid("y", "both classes must be present".into());
        }
        crate::protocol::check_positive("C", c)?;
        if !(lambda.is_finite() && lambda >= 0.0) {
            return invalid("lam", format!("lam = {lambda} must be finite and >= 0"));
        }
        if !(bound > 0.0 && bound < c / 2.0) {
            return invalid(
                "bound_eps",
                format!("bound_eps = {bound} must be in (0, C/2 = {})", c / 2.0),
            );
        }
        let (minority, majority) = (positives.min(negatives), positives.max(negatives));
        if let Some(weights) = weights {
            if weights.len() != y.len() {
                return Err(SolveError::LengthMismatch {
                    name: "sample_weight",
                    expected: y.len(),
                    actual: weights.len(),
                });
            }
            if let Some(i) = weights.iter().position(|&w| !(w.is_finite() && w > 0.0)) {
                return invalid(
                    "sample_weight",
                    format!("weight {i} = {} must be finite and > 0", weights[i]),
                );
            }
            if let Some(i) = weights.iter().position(|&w| bound >= c * w / 2.0) {
                return invalid(
                    "sample_weight",
                    format!(
                        "point {i}'s box [bound_eps, C * weight - bound_eps] is empty: \
                         bound_eps = {bound} must be < C * weight / 2 = {}",
                        c * weights[i] / 2.0
                    ),
                );
            }
            let room = |side: f64| -> f64 {
                y.iter().zip(weights).filter(|(&v, _)| v == side).map(|(_, &w)| c * w - bound).sum()
            };
            let needed = bound * majority as f64;
            let available = room(1.0).min(room(-1.0));
            if needed > available {
                return invalid(
                    "C",
                    format!(
                        "the weighted box is infeasible for these classes: sum(alpha * y) = 0 \
                         needs bound_eps * {majority} = {needed:.3e} <= {available:.3e}, the \
                         smaller class total of C * weight - bound_eps"
                    ),
                );
            }
            let c_points: Vec<f64> = weights.iter().map(|&w| c * w).collect();
            return Self::checked(kernel, y, c_points, lambda, bound, cache_bytes);
        }
        if bound * majority as f64 > (c - bound) * minority as f64 {
            return invalid(
                "C",
                format!(
                    "the box [bound_eps, C - bound_eps] is infeasible for these classes: \
                     sum(alpha * y) = 0 needs bound_eps * {majority} <= (C - bound_eps) * \
                     {minority}, i.e. C >= {:.3e}",
                    bound * (1.0 + majority as f64 / minority as f64)
                ),
            );
        }
        Self::checked(kernel, y, vec![c; y.len()], lambda, bound, cache_bytes)
    }

    /// The problem once its parameters are checked: the kernel's diagonal is checked here.
    fn checked(
        kernel: K,
        y: &[f64],
        c: Vec<f64>,
        lambda: f64,
        bound: f64,
        cache_bytes: usize,
    ) -> Result<Self, SolveError> {
        let columns = CachedColumns::plain(kernel, cache_bytes);
        if let Some(i) = columns.diagonal().iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid("kernel", format!("K[{i}, {i}] is not finite")));
        }
        Ok(KlrProblem { columns, y: y.to_vec(), c, lambda, bound })
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// Whether there is no point (never: `new` needs both classes).
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }
}

/// How the second index of the working pair is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WorkingSetRule {
    /// The paper's second-order rule (S-KLR). Default.
    #[default]
    SecondOrder,
    /// The maximal violating pair (Keerthi et al. 2005).
    FirstOrder,
}

/// SMO for problem (22).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KlrSmo {
    /// The working-set rule.
    pub rule: WorkingSetRule,
    /// Whether to record `f(α^k)` and `‖α^k − α^{k−1}‖²` of every iteration.
    pub record_history: bool,
}

/// What [`KlrSmo::solve_with_report`] returns besides the [`Solution`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KlrReport {
    /// `f(α^k)` for `k = 0, 1, …` (with `record_history`).
    pub objectives: Vec<f64>,
    /// `‖α^k − α^{k−1}‖²` for `k = 0, 1, …` (0 at `k = 0`; with `record_history`).
    pub step_norms: Vec<f64>,
}

impl KlrSmo {
    /// Solves `problem`: `Solution::x` is α, `bias` the KKT bias `b`, `gap` the final `m − M`.
    pub fn solve_with_report<K: KernelSource>(
        &self,
        problem: &mut KlrProblem<K>,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<(Solution, KlrReport), SolveError> {
        options.validate()?;
        // The other threads of the pool spin between the passes of this solve.
        let _team = kernelkit_kernels::team::TeamGuard::enter();
        Ok(run::solve(self, problem, options, monitor))
    }
}

crate::protocol::solver_by_method!(
    impl[K: KernelSource] KlrProblem<K> => KlrSmo, solve_with_report, |_| "klr_smo"
);
