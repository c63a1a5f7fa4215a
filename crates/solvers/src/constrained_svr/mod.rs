//! Linear ν-support vector regression with linear constraints on the weights, by the
//! generalized SMO (Klopfenstein & Vaiter, "Linear Support Vector Regression with Linear
//! Constraints"; digest `papers/seed-003-svr-constraints.md`).
//!
//! # The problem ([`ConstrainedSvrProblem`])
//!
//! The primal LSVR-P (§2, with scikit-learn's `C`: the paper's `C` is `C·n`):
//!
//! ```text
//! min ½‖β‖² + C (n ν ε + Σ_i (ξ_i + ξ*_i))
//! s.t. x_iᵀβ + β0 − y_i ≤ ε + ξ_i   (α_i),      y_i − x_iᵀβ − β0 ≤ ε + ξ*_i   (α*_i),
//!      ξ, ξ*, ε ≥ 0,     Aβ ≤ b   (γ ≥ 0),      Γβ = d   (μ free)
//! ```
//!
//! The constraints act on β only, never on β0. Its dual LSVR-D (Prop. 2.1) in
//! `θ = (α, α*, γ, μ)` is `min f(θ) = ½θᵀQ̄θ + lᵀθ` with `Q̄ = MMᵀ`, `M = [X; −X; A; −Γ]`,
//! `l = (y, −y, b, −d)` (the paper drops the ½ in `f`; every later formula has it), over
//! `0 ≤ α, α* ≤ C`, `Σα = Σα* = C n ν / 2`, `γ ≥ 0`. The ν-inequality `Σ(α + α*) ≤ Cnν` is
//! an equality at the optimum (Prop. 2.2), and using it loses nothing even when ε = 0 (digest
//! §1.7), so each block has its own sum constraint. The primal-dual link (Prop. 2.1 (3)) is
//! `β = −Xᵀ(α − α*) − Aᵀγ + Γᵀμ = −Mᵀθ`.
//!
//! # The solver ([`Gsmo`], Algorithm 2)
//!
//! Greedy block coordinate descent: score the four blocks ([`select`]), update a maximal
//! violating pair inside α or inside α* (never across: each block keeps its sum), or one γ_u,
//! or one μ_u, in closed form ([`step`]), until `Δ = max(Δ1, Δ2, Δ3, Δ4) ≤ tol`. Algorithm 1,
//! plain SMO for ν-SVR, is the case without constraints of the same code.
//!
//! **Fix.** The paper's score for γ (Def. 3.3, `Δ3 = −min_j ∇_γj f`) misses the violation
//! "`γ_j > 0` while `∇_γj f > 0`" of the KKT conditions it states in §3.2; taken literally,
//! Algorithm 2 stops at non-optimal points (β errors of 1e-3–3e-2, digest §2.5). The default
//! [`GammaRule::ProjectedGradient`] scores the complete violation; [`GammaRule::Paper`] keeps
//! the printed rule for reproduction. The proof of Thm. 3.7 has the same gap.
//!
//! Q̄ is never formed ((2n + k1 + k2)² entries). The solver keeps β and its images `Xβ`, `Aβ`,
//! `Γβ`, from which every gradient is a residual ([`state`], digest §1.6); a pair step needs
//! two columns of `K = XXᵀ` from the LRU row cache ([`gram`]), a constraint step one sparse row
//! of `A` or `Γ`. The O(n) passes (the fused four-extreme scan, the update of `Xβ`) run in
//! fixed chunks on rayon above [`kernelkit_kernels::PARALLEL_MIN_LEN`] rows, so the iterates do
//! not depend on the thread count. At convergence the state is recomputed from θ and the test
//! repeated, so incremental drift cannot end the solve early. β0 and ε come from the free
//! variables ([`recover`]).
//!
//! The solver checks that every iterate decreases `f` (Lemma D.4) and counts violations in
//! `SolveStats::objective_increases`; [`GsmoReport::history`] records `f(θ^k)`, `Δ^k` and the
//! block of every step on request (the paper's Fig. 4).
//!
//! An infeasible polyhedron `{Aβ ≤ b, Γβ = d}` makes the dual unbounded below (the multipliers
//! grow without end): the solver then runs until `time_limit` or its iteration limit
//! ([`SolveOptions::iteration_limit`](crate::protocol::SolveOptions::iteration_limit)). Callers that cannot
//! rule this out should check feasibility first (the Python estimator solves an LP).
//!
//! # Beyond the paper: constraints on function values (not implemented)
//!
//! Constraints on a kernel model's weights mean nothing in an infinite-dimensional RKHS, but
//! linear constraints on **function values at anchor points** `z_1..z_m` do
//! (`A f(Z) ≤ b`, `Γ f(Z) = d` with `f(z) = ⟨w, φ(z)⟩`; the linear case is `Z = {e_1..e_p}`).
//! Then `M = [Φ(X); −Φ(X); AΦ(Z); −ΓΦ(Z)]` and every block of `Q̄` is a kernel expression
//! (`K(X,X)`, `K(X,Z)Aᵀ`, `A K(Z,Z) Aᵀ`, …; digest §6.1). The design allows it: the gradients
//! are read from `r`, `s`, `q`, which a kernel version would maintain from columns of the row
//! cache (`K(X, X)`, and the precomputed `K(X,Z)Aᵀ`, `K(X,Z)Γᵀ`) instead of from β; the
//! selection, the steps' scalar formulas and the constraint storage are unchanged, and
//! `(AAᵀ)_uu` becomes `(A K(Z,Z) Aᵀ)_uu`. Only constraints free of β0 (differences such as
//! monotonicity, `A·1 = 0`) keep the per-block sums; constraints on `f(z) + β0` couple α with γ
//! and need mixed working sets, a different algorithm.

mod constraints;
mod gram;
mod interior_point;
mod recover;
mod run;
mod select;
mod state;
mod step;

use kernelkit_kernels::DenseRows;

pub use constraints::{LinearConstraints, SparseMatrix};
use gram::GramColumns;
pub use select::{Block, GammaRule};

use crate::protocol::{Monitor, Solution, SolveError, SolveOptions};

/// The constrained ν-SVR (see the module documentation).
#[derive(Debug)]
pub struct ConstrainedSvrProblem<'a> {
    gram: GramColumns<'a>,
    y: Vec<f64>,
    c: f64,
    nu: f64,
    inequalities: LinearConstraints,
    equalities: LinearConstraints,
}

impl<'a> ConstrainedSvrProblem<'a> {
    /// The problem on rows `x` and targets `y` with scikit-learn's `C > 0` (the paper's `C/n`)
    /// and `ν ∈ (0, 1]`, constraints `inequalities` (`A`, `b`) and `equalities` (`Γ`, `d`);
    /// `cache_bytes` bounds the Gram column cache.
    pub fn new(
        x: DenseRows<'a>,
        y: &[f64],
        c: f64,
        nu: f64,
        inequalities: LinearConstraints,
        equalities: LinearConstraints,
        cache_bytes: usize,
    ) -> Result<Self, SolveError> {
        let (n, p) = (x.n_rows(), x.n_features());
        if y.len() != n {
            return Err(SolveError::LengthMismatch { name: "y", expected: n, actual: y.len() });
        }
        if n < 2 {
            return Err(SolveError::invalid("X", format!("needs at least 2 samples, got {n}")));
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid("y", format!("y[{i}] = {} is not finite", y[i])));
        }
        crate::protocol::check_positive("C", c)?;
        if !(nu > 0.0 && nu <= 1.0) {
            return Err(SolveError::invalid("nu", format!("nu = {nu} must be in (0, 1]")));
        }
        for (name, constraints) in [("A", &inequalities), ("Gamma", &equalities)] {
            if constraints.matrix.n_cols() != p {
                return Err(SolveError::invalid(
                    name,
                    format!("has {} columns, but X has {p} features", constraints.matrix.n_cols()),
                ));
            }
        }
        Ok(ConstrainedSvrProblem {
            gram: GramColumns::new(x, cache_bytes)?,
            y: y.to_vec(),
            c,
            nu,
            inequalities,
            equalities,
        })
    }

    /// How the columns of `K = XXᵀ` are computed ([`kernelkit_kernels::plan`](mod@kernelkit_kernels::plan)).
    pub fn kernel_path(&self) -> kernelkit_kernels::KernelPath {
        self.gram.kernel_path()
    }

    /// Number of samples.
    pub fn n_samples(&self) -> usize {
        self.y.len()
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.gram.rows().n_features()
    }

    /// Number of inequality constraints (k1).
    pub fn n_inequalities(&self) -> usize {
        self.inequalities.len()
    }

    /// Number of equality constraints (k2).
    pub fn n_equalities(&self) -> usize {
        self.equalities.len()
    }
}

/// The algorithm that solves a [`ConstrainedSvrProblem`], chosen by [`Method::choose`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The paper's generalized SMO ([`Gsmo`]): O(n) memory and work per step, any size, but its
    /// absolute stopping test can be met far from the optimum on ill-conditioned problems.
    Gsmo,
    /// The primal as one QP by Clarabel's interior-point method ([`interior_point`]): the
    /// optimum to about 1e-9 relative, at `O(n p² + p³)` per iteration and `O(n p)` memory.
    InteriorPoint,
}

/// What the caller asks for: a method, or the choice of [`Method::choose`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MethodPreference {
    /// [`Method::choose`] decides.
    #[default]
    Auto,
    /// Always [`Method::Gsmo`].
    Gsmo,
    /// Always [`Method::InteriorPoint`] (GSMO-only options are refused).
    InteriorPoint,
}

/// The interior-point method is chosen while `n · p` (the non-zeros of its program) is at most
/// this ...
pub const INTERIOR_POINT_MAX_ENTRIES: usize = 1_000_000;

/// ... `n · p²` (the work of one factorisation) at most this, and `p ≤ n`. Measured on one
/// core with `C = 1` (`docs/constrained_svr.md`, "Benchmarks"): 40,000 × 10 in 5 s, 2,000 × 200
/// in 11 s, 5,000 × 200 (n p² = 2·10⁸) in 31 s, where GSMO took 53 s and, on the simplex, more
/// than 120 s; 2,000 × 500 took 64 s and 20,000 × 200 127 s and 1.2 GB. With more features than
/// samples Clarabel met numerical trouble (400 × 1,000: `numerical_error` after 18 s, where GSMO
/// converged in 11 s).
pub const INTERIOR_POINT_MAX_WORK: usize = 200_000_000;

impl Method {
    /// A stable lower-case name (`solver_stats_["method"]`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Gsmo => "gsmo",
            Method::InteriorPoint => "interior_point",
        }
    }

    /// The one place where the method is decided. `Auto` takes the interior-point method when
    /// the problem is small enough for it (`n · p ≤` [`INTERIOR_POINT_MAX_ENTRIES`],
    /// `n · p² ≤` [`INTERIOR_POINT_MAX_WORK`] and `p ≤ n`) and `gsmo` asks for nothing only
    /// GSMO does (the history of iterates, the paper's γ rule); GSMO otherwise. An explicit
    /// interior-point request with a GSMO-only option is an error naming the option.
    pub fn choose(
        preference: MethodPreference,
        problem: &ConstrainedSvrProblem<'_>,
        gsmo: &Gsmo,
    ) -> Result<Method, SolveError> {
        let gsmo_only = if gsmo.record_history {
            Some("record_history")
        } else if gsmo.gamma_rule == GammaRule::Paper {
            Some("gamma_rule")
        } else {
            None
        };
        let (n, p) = (problem.n_samples(), problem.n_features());
        Ok(match preference {
            MethodPreference::Gsmo => Method::Gsmo,
            MethodPreference::InteriorPoint => match gsmo_only {
                Some(name) => {
                    return Err(SolveError::invalid(
                        name,
                        "is an option of GSMO; the interior-point method does not have it \
                         (use method=\"gsmo\")",
                    ))
                }
                None => Method::InteriorPoint,
            },
            MethodPreference::Auto => {
                let entries = n.saturating_mul(p);
                let small = entries <= INTERIOR_POINT_MAX_ENTRIES
                    && entries.saturating_mul(p) <= INTERIOR_POINT_MAX_WORK
                    && p <= n;
                if small && gsmo_only.is_none() {
                    Method::InteriorPoint
                } else {
                    Method::Gsmo
                }
            }
        })
    }

    /// Chooses ([`Method::choose`]) and solves. When `Auto` chose the interior-point method and
    /// Clarabel fails (`numerical_error`, met on degenerate data such as two equal rows with
    /// `y = 0`), GSMO solves the problem instead. Returns the method whose result it is.
    pub fn choose_and_solve(
        preference: MethodPreference,
        gsmo: &Gsmo,
        problem: &mut ConstrainedSvrProblem<'_>,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<(Solution, GsmoReport, Method), SolveError> {
        let method = Method::choose(preference, problem, gsmo)?;
        let (solution, report) = method.solve(gsmo, problem, options, monitor)?;
        if preference == MethodPreference::Auto
            && method == Method::InteriorPoint
            && solution.status == crate::protocol::Status::NumericalError
        {
            let (solution, report) = Method::Gsmo.solve(gsmo, problem, options, monitor)?;
            return Ok((solution, report, Method::Gsmo));
        }
        Ok((solution, report, method))
    }

    /// Solves `problem` with this method; `gsmo` configures GSMO. The returned pair is the same
    /// for both methods: `Solution::x` is `θ = (α, α*, γ, μ)`, `Solution::gap` the `Δ` of
    /// GSMO's scores at the result, and the report's `coef`, `intercept` and `epsilon` the model
    /// (`steps` and `history` stay empty for the interior-point method).
    pub fn solve(
        &self,
        gsmo: &Gsmo,
        problem: &mut ConstrainedSvrProblem<'_>,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<(Solution, GsmoReport), SolveError> {
        match self {
            Method::Gsmo => gsmo.solve_with_report(problem, options, monitor),
            Method::InteriorPoint => {
                options.validate()?;
                interior_point::solve(problem, options, monitor)
            }
        }
    }
}

/// The generalized SMO (Algorithm 2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gsmo {
    /// How the γ block is scored (default: the projected-gradient fix).
    pub gamma_rule: GammaRule,
    /// Whether to record `f(θ^k)`, `Δ^k` and the block of every step ([`GsmoReport::history`]).
    pub record_history: bool,
}

/// One entry of the optional history: the iterate after a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryPoint {
    /// `f(θ^k)`.
    pub objective: f64,
    /// `Δ^k = max(Δ1..Δ4)` at `θ^k`.
    pub violation: f64,
    /// The block updated to reach `θ^k` (`None` for `θ⁰`).
    pub block: Option<Block>,
}

/// What [`Gsmo::solve_with_report`] returns besides the [`Solution`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GsmoReport {
    /// `β = −Xᵀ(α − α*) − Aᵀγ + Γᵀμ`, recomputed from θ at exit.
    pub coef: Vec<f64>,
    /// β0 (also `Solution::bias`).
    pub intercept: f64,
    /// The tube half-width ε.
    pub epsilon: f64,
    /// Steps taken in each block, in the order α, α*, γ, μ.
    pub steps: [u64; 4],
    /// `θ⁰, θ¹, …` when [`Gsmo::record_history`] is set.
    pub history: Vec<HistoryPoint>,
}

impl Gsmo {
    /// Solves `problem`; `Solution::x` is `θ = (α, α*, γ, μ)` concatenated, `Solution::bias`
    /// the intercept and `Solution::gap` the final `Δ`.
    pub fn solve_with_report(
        &self,
        problem: &mut ConstrainedSvrProblem<'_>,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<(Solution, GsmoReport), SolveError> {
        options.validate()?;
        // The other threads of the pool spin between the passes of this solve.
        let _team = kernelkit_kernels::team::TeamGuard::enter();
        run::solve(self, problem, options, monitor)
    }
}

crate::protocol::solver_by_method!(
    impl[] ConstrainedSvrProblem<'_> => Gsmo, solve_with_report, |_| "gsmo"
);
