//! Frank–Wolfe methods for the L2-SVM as a minimum enclosing ball (Frandi, Ñanculef, Gasparo,
//! Lodi & Sartori, "Training Support Vector Machines Using Frank-Wolfe Optimization Methods",
//! IJPRAI 2013; digest `papers/seed-002-frank-wolfe.md`).
//!
//! # The problem ([`SimplexQp`])
//!
//! The L2-SVM (7) `min ½(‖w‖² + b² + CΣξ²) − ρ  s.t.  y_i(wᵀϕ(x_i) + b) ≥ ρ − ξ_i` has the dual
//! (12) `max −αᵀK̃α` over the unit simplex, with the modified kernel (18)
//! `k̃_ij = y_i y_j (k_ij + 1) + δ_ij / C` ([`MebQ`]). The solvers maximise
//! `g(α) = Δ² − αᵀK̃α` (34) with `Δ² = max_i k̃_ii`; for a kernel with constant `k(x, x)` (RBF)
//! this is the MEB dual (15) of the points `z_i = (y_iϕ(x_i), y_i, e_i/√C)` and `g = r²`, the
//! squared radius. **Δ² is the maximal diagonal, not the paper's `k̃(x_1, x_1)`**: with a
//! non-constant diagonal (polynomial kernels) the paper's choice can make `r₀² < 0` and end the
//! loop at iteration 0 with garbage (digest P1); the maximum keeps `g ≥ 0` on the simplex and is
//! the paper's value whenever the diagonal is constant.
//!
//! The classifier is `h(x) = Σ α_i y_i (k(x_i, x) + 1)` (13): `bias = Σ α_i y_i` ([`Solution`]).
//!
//! # The methods ([`Method`])
//!
//! Each iteration finds the vertex `i* = argmin_i s_i`, `s = K̃α` (the furthest point, (28);
//! [`search`]) and stops when the Frank–Wolfe gap is small relative to `g` (37):
//! `2(R − s_{i*}) ≤ ε′ (Δ² − R)`, `ε′ = 2ε + ε²`, which is `δ₊ ≤ (1+ε)² − 1` of Algorithms 2–3 and
//! certifies `(1 − ε′) g* ≤ g(α) ≤ g*` (40–41). With a diagonal that is not constant, `g`
//! depends on the arbitrary `Δ²`, and this rule held at iteration 0 far from the optimum; the
//! rule's scale is then `D − R`, `D = Σ α_i k̃_ii`, the α-weighted mean of `‖z_i − c‖²`, which
//! equals `r²` whenever the diagonal is constant ([`Iterate::stop_scale`](iterate::Iterate::stop_scale);
//! digest P1 asks for a rule that does not depend on `Δ²`).
//!
//! * [`Method::Fw`], Algorithm 2: the step towards `e_{i*}` with the exact line search (29);
//!   `s` and `R = αᵀK̃α` are updated in O(n) from the one column `K̃[:, i*]` (the paper's
//!   O(q²) recomputation of `R` in step 14 is redundant; [`iterate`]).
//! * [`Method::Mfw`], Algorithm 3: also the nearest core point `j* = argmax_{α_j > 0} s_j`; an
//!   away step from `e_{j*}` when `R − s_{i*} < s_{j*} − R` (`δ₊ < δ₋`, eq. (32)), with
//!   `λ ≤ α_j/(1 − α_j)`: at the bound, `α_{j*} = 0` (a drop step). The printed radius update
//!   of the away step (step 21) has a sign error, fixed in [`iterate`] (digest P3); the other
//!   typos of Algorithm 3 (r₀² at k = 0, "furthest" for the nearest point) are read as the digest
//!   says (P4).
//! * [`Method::Cvm`], Algorithm 1 (Bădoiu–Clarkson as the core vector machine): add the
//!   violating vertex to the core set and re-solve the MEB of the core set with the SMO engine,
//!   warm-started ([`core_set`], [`cvm`]). It needs a constant diagonal (the MEB equivalence
//!   (17)); other kernels are an error. Of LibCVM's extras (digest §2.3), it has the violator-only
//!   insertion, the warm start, second-order SMO and the sampling retries; not the ε-scaling
//!   outer loop.
//!
//! All methods start from the MEB of `init_size` random points (20 in the paper), drawn
//! class-balanced (alternating labels) without replacement, solved by SMO (§2.2, Option B, the
//! paper's experiments), or with [`Start::FurthestPair`] from §2.2's Option A (Kumar, Mitchell
//! & Yıldırım): a random point `a`, the point `b` furthest from it in the MEB's feature space
//! (`k̃_aa + k̃_bb − 2k̃_ab` largest, one kernel column), and `α_a = α_b = ½`.
//!
//! # Search modes
//!
//! `sample_size = None` scans every point (the pseudo-code; `s` maintained on all `n`
//! points, one cached column of length `n` per step). `Some(r)` is the paper's sampling (59 in its
//! experiments): the solver keeps the points it has touched in a prefix of the positions (the
//! *basis*, swapped to the front; `s` maintained there), and every search looks at `r` random
//! points, computing `s` against the basis for those outside it ([`search`]: which points are
//! candidates for each method, and the retry rule). Termination is then probabilistic (digest
//! §2.6); `verify_full` confirms it with one full scan.
//!
//! # Kernels that are not positive semidefinite
//!
//! With a sigmoid kernel, a polynomial one with `coef0 < 0`, or a precomputed or callable
//! matrix with a negative eigenvalue, `min αᵀK̃α` over the simplex is not convex: the steps'
//! line searches still ascend `g`, but a point meeting the stopping rule is only stationary
//! (two seeds ended at `R = −0.313` and `−0.245` with a sigmoid kernel). Such a solve ends with
//! `Status::NotConvex` instead of `Converged` when the kernel is not positive semidefinite by
//! construction, a step met curvature `‖z_v − c‖² < 0` beyond rounding, or `R < 0`.
//!
//! # Values beyond floating point
//!
//! A diagonal entry `k̃_ii` that is not finite is refused ([`SimplexQp::new`]). Off the diagonal
//! a kernel value can overflow alone (a polynomial kernel with `coef0 < 0`: `(⟨x, z⟩ − 1)^2000`
//! between opposite unit rows, whose own values are 0): the searches rank an `s` that is not
//! finite before every other, the solve ends on it with `Status::NumericalError`, and a
//! solution whose `α`, bias, `R` or `s` on the basis is not finite ends with that status too.
//!
//! The O(n) passes (the `s`/`α` updates, the argmin/argmax scans) run over fixed chunks in
//! parallel (rayon): the iterates do not depend on the thread count. Every 1000 iterations `α`
//! is renormalised onto the simplex and `R` recomputed, which bounds the drift of the
//! incremental updates.

mod core_set;
mod cvm;
mod iterate;
mod run;
pub(crate) mod search;

use kernelkit_kernels::{KernelSource, MebQ};

use crate::protocol::{check_option, Monitor, Solution, SolveError, SolveOptions};
pub use iterate::RadiusRule;
use run::Run;

/// The L2-SVM dual over the unit simplex with the modified kernel (see the module
/// documentation).
#[derive(Debug)]
pub struct SimplexQp<K> {
    /// The modified kernel `K̃`.
    pub q: MebQ<K>,
}

impl<K: KernelSource> SimplexQp<K> {
    /// The problem for `labels` (each −1 or +1) and `C > 0` over `kernel`.
    pub fn new(kernel: K, labels: &[f64], c: f64, cache_bytes: usize) -> Result<Self, SolveError> {
        if labels.len() != kernel.len() {
            return Err(SolveError::LengthMismatch {
                name: "y",
                expected: kernel.len(),
                actual: labels.len(),
            });
        }
        if labels.len() < 2 {
            return Err(SolveError::invalid(
                "X",
                format!("the MEB needs at least 2 points, got {}", labels.len()),
            ));
        }
        if let Some(i) = labels.iter().position(|&v| v != 1.0 && v != -1.0) {
            return Err(SolveError::invalid(
                "y",
                format!("y[{i}] = {} is not -1 or +1", labels[i]),
            ));
        }
        crate::protocol::check_positive("C", c)?;
        let q = MebQ::modified(kernel, labels.to_vec(), c, cache_bytes);
        if let Some(i) = q.diagonal().iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid("kernel", format!("k(x_{i}, x_{i}) is not finite")));
        }
        Ok(SimplexQp { q })
    }

    /// Number of variables.
    pub fn len(&self) -> usize {
        self.q.size()
    }

    /// Whether there are no variables.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Which algorithm of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Algorithm 1: the core vector machine (Bădoiu–Clarkson with SMO sub-problems).
    Cvm,
    /// Algorithm 2: Frank–Wolfe.
    Fw,
    /// Algorithm 3: Frank–Wolfe with away and drop steps.
    #[default]
    Mfw,
}

/// How the solve starts (§2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Start {
    /// Option B: the MEB of `init_size` random class-balanced points (the paper's experiments).
    #[default]
    RandomMeb,
    /// Option A: a random point and the point furthest from it, each with weight ½.
    FurthestPair,
}

impl Method {
    /// A stable lower-case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Cvm => "cvm",
            Method::Fw => "fw",
            Method::Mfw => "mfw",
        }
    }
}

/// Which points a sampled search draws from (digest §2.6 item 1 and P6: the paper leaves the
/// pool open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SamplePool {
    /// Every point, the core set's included: the sampled test also watches the core points.
    #[default]
    All,
    /// The points outside the core set (`α_i = 0`), as LibCVM's sampler, on whose code the
    /// paper's implementation is built: the stopping test then asks, as Bădoiu–Clarkson's, only
    /// whether some point outside the core set lies outside the ball.
    NonCore,
}

impl SamplePool {
    /// A stable lower-case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            SamplePool::All => "all",
            SamplePool::NonCore => "noncore",
        }
    }
}

/// The Frank–Wolfe solver family (see the module documentation). `SolveOptions::tol` is not
/// used: the stopping rule is the paper's relative `epsilon`.
#[derive(Debug, Clone, PartialEq)]
pub struct FrankWolfe {
    /// The algorithm.
    pub method: Method,
    /// The paper's ε: stop when `δ₊ ≤ (1+ε)² − 1`.
    pub epsilon: f64,
    /// Points sampled per search (`None`: scan all).
    pub sample_size: Option<usize>,
    /// Samples drawn in a row without a violator before declaring convergence.
    pub sample_trials: u32,
    /// Which points FW and MFW sample (CVM always samples outside its core set).
    pub sample_pool: SamplePool,
    /// Points of the random initial MEB.
    pub init_size: usize,
    /// The start: the random MEB of `init_size` points or the furthest pair.
    pub start: Start,
    /// After a sampled convergence, confirm it with one full scan.
    pub verify_full: bool,
    /// The away-step radius update.
    pub radius_rule: RadiusRule,
}

impl Default for FrankWolfe {
    fn default() -> Self {
        FrankWolfe {
            method: Method::Mfw,
            epsilon: 1e-6,
            sample_size: Some(59),
            sample_trials: 7,
            sample_pool: SamplePool::All,
            init_size: 20,
            start: Start::RandomMeb,
            verify_full: false,
            radius_rule: RadiusRule::Exact,
        }
    }
}

/// What a Frank–Wolfe solve reports beyond the [`Solution`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FrankWolfeReport {
    /// The maintained squared radius `r² = Δ² − R` at exit.
    pub radius2: f64,
    /// `Δ² = max_i k̃_ii`.
    pub delta2: f64,
    /// Steps towards a vertex.
    pub toward_steps: u64,
    /// Away steps that kept the point.
    pub away_steps: u64,
    /// Away steps that removed the point.
    pub drop_steps: u64,
    /// Points with `α_i > 0` at exit.
    pub coreset_size: u64,
    /// SMO iterations of the initial MEB and (CVM) of the core-set problems.
    pub inner_iterations: u64,
}

impl FrankWolfe {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), SolveError> {
        // The solve stops at the relative gap 2ε + ε², which must be finite too (it overflowed
        // from ε ≈ 1.3e154 and was refused as the options' `tol`, a name the caller never gave).
        let positive = self.epsilon > 0.0 && self.relative_gap().is_finite();
        check_option(positive, "epsilon", "must be > 0 with 2ε + ε² finite (ε < 1e154)")?;
        check_option(self.sample_size != Some(0), "sample_size", "must be >= 1")?;
        check_option(self.sample_trials != 0, "sample_trials", "must be >= 1")?;
        check_option(self.init_size >= 2, "init_size", "must be >= 2")
    }

    /// `ε′ = 2ε + ε²`.
    pub(crate) fn relative_gap(&self) -> f64 {
        2.0 * self.epsilon + self.epsilon * self.epsilon
    }

    /// Solves and also returns the [`FrankWolfeReport`].
    pub fn solve_with_report<K: KernelSource>(
        &self,
        problem: &mut SimplexQp<K>,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<(Solution, FrankWolfeReport), SolveError> {
        options.validate()?;
        // The other threads of the pool spin between the passes of this solve.
        let _team = kernelkit_kernels::team::TeamGuard::enter();
        self.validate()?;
        let diagonal = problem.q.diagonal();
        let delta2 = diagonal.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if self.method == Method::Cvm {
            if !is_constant(diagonal) {
                return Err(SolveError::invalid(
                    "kernel",
                    "method 'cvm' needs a kernel with constant k(x, x) (e.g. rbf): the \
                     MEB equivalence does not hold otherwise; use 'fw' or 'mfw'",
                ));
            }
            return cvm::solve(self, problem, delta2, options, monitor);
        }
        let prefix_layout = self.sample_size.is_some();
        let mut run = Run::new(self, &mut problem.q, delta2, options, prefix_layout);
        run.initialize(monitor)?;
        run.iterate(monitor)
    }
}

/// Whether the diagonal is constant to 1e-12 relative (an RBF kernel's `k̃_ii = 2 + 1/C`).
pub(crate) fn is_constant(diagonal: &[f64]) -> bool {
    let largest = diagonal.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let smallest = diagonal.iter().copied().fold(f64::INFINITY, f64::min);
    largest - smallest <= 1e-12 * largest.abs()
}

crate::protocol::solver_by_method!(
    impl[K: KernelSource] SimplexQp<K> => FrankWolfe,
    solve_with_report,
    |solver| match solver.method {
        Method::Cvm => "cvm",
        Method::Fw => "frank_wolfe",
        Method::Mfw => "modified_frank_wolfe",
    }
);
