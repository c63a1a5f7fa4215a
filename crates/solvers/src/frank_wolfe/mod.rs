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
//! certifies `(1 − ε′) g* ≤ g(α) ≤ g*` (40–41).
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
//! class-balanced (alternating labels) without replacement, solved by SMO (§2.2, Option B).
//!
//! # Search modes
//!
//! `sample_size = None` scans every point (the pseudo-code; `s` maintained on all `n`
//! points, one cached column of length `n` per step). `Some(r)` is the paper's sampling (59 in its
//! experiments): the solver keeps the points it has touched in a prefix of the positions (the
//! *basis*, swapped to the front; `s` maintained there), and every search computes `s` for `r`
//! random other points against the basis ([`search`], with its retry rule). Termination is then
//! probabilistic (digest §2.6); `verify_full` confirms it with one full scan.
//!
//! The O(n) passes (the `s`/`α` updates, the argmin/argmax scans) run over fixed chunks in
//! parallel (rayon): the iterates do not depend on the thread count. Every 1000 iterations `α`
//! is renormalised onto the simplex and `R` recomputed, which bounds the drift of the
//! incremental updates.

mod core_set;
mod cvm;
mod iterate;
mod search;

use std::time::Instant;

use kernelkit_kernels::{KernelSource, MebQ};

use crate::protocol::{
    Control, Monitor, Progress, Solution, SolveError, SolveOptions, SolveStats, Solver, Status,
};
use core_set::{solve_core_set, WarmStart};
pub use iterate::RadiusRule;
use iterate::{argmax, argmin, Iterate, StepKind};
use search::{best_of_sample, best_outside_basis, Random, Vertex};

/// Iterations between renormalisations of the iterate.
const RENORMALIZE_EVERY: u64 = 1000;

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
            return Err(SolveError::InvalidProblem {
                name: "X",
                reason: format!("the MEB needs at least 2 points, got {}", labels.len()),
            });
        }
        if let Some(i) = labels.iter().position(|&v| v != 1.0 && v != -1.0) {
            return Err(SolveError::InvalidProblem {
                name: "y",
                reason: format!("y[{i}] = {} is not -1 or +1", labels[i]),
            });
        }
        if !(c.is_finite() && c > 0.0) {
            return Err(SolveError::InvalidProblem {
                name: "C",
                reason: format!("C = {c} must be finite and > 0"),
            });
        }
        let q = MebQ::new(kernel, labels.to_vec(), c, cache_bytes);
        if let Some(i) = q.diagonal().iter().position(|v| !v.is_finite()) {
            return Err(SolveError::InvalidProblem {
                name: "kernel",
                reason: format!("k(x_{i}, x_{i}) is not finite"),
            });
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
    /// Points of the random initial MEB.
    pub init_size: usize,
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
            init_size: 20,
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
        if !(self.epsilon.is_finite() && self.epsilon > 0.0) {
            return Err(SolveError::InvalidOption {
                name: "epsilon",
                reason: "must be finite and > 0",
            });
        }
        if self.sample_size == Some(0) {
            return Err(SolveError::InvalidOption { name: "sample_size", reason: "must be >= 1" });
        }
        if self.sample_trials == 0 {
            return Err(SolveError::InvalidOption {
                name: "sample_trials",
                reason: "must be >= 1",
            });
        }
        if self.init_size < 2 {
            return Err(SolveError::InvalidOption { name: "init_size", reason: "must be >= 2" });
        }
        Ok(())
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
        self.validate()?;
        let diagonal = problem.q.diagonal();
        let delta2 = diagonal.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if self.method == Method::Cvm {
            let smallest = diagonal.iter().copied().fold(f64::INFINITY, f64::min);
            if delta2 - smallest > 1e-12 * delta2.abs() {
                return Err(SolveError::InvalidProblem {
                    name: "kernel",
                    reason: "method 'cvm' needs a kernel with constant k(x, x) (e.g. rbf): the \
                             MEB equivalence does not hold otherwise; use 'fw' or 'mfw'"
                        .into(),
                });
            }
            return cvm::solve(self, problem, delta2, options, monitor);
        }
        let prefix_layout = self.sample_size.is_some();
        let mut run = Run::new(self, &mut problem.q, delta2, options, prefix_layout);
        run.initialize(monitor)?;
        run.iterate(monitor)
    }
}

impl<K: KernelSource> Solver<SimplexQp<K>> for FrankWolfe {
    fn name(&self) -> &'static str {
        match self.method {
            Method::Cvm => "cvm",
            Method::Fw => "frank_wolfe",
            Method::Mfw => "modified_frank_wolfe",
        }
    }

    fn solve(
        &self,
        problem: &mut SimplexQp<K>,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<Solution, SolveError> {
        Ok(self.solve_with_report(problem, options, monitor)?.0)
    }
}

/// The state shared by the three methods: the oracle with its positions, the iterate, the
/// random stream and the counters.
pub(crate) struct Run<'a, K> {
    config: &'a FrankWolfe,
    pub meb: &'a mut MebQ<K>,
    pub it: Iterate,
    /// Position → index in the problem's order.
    pub perm: Vec<usize>,
    pub random: Random,
    pub options: &'a SolveOptions,
    pub started: Instant,
    pub report: FrankWolfeReport,
    pub iterations: u64,
    pub gap: f64,
    /// Whether the basis is a prefix of the positions (sampling, and CVM's core set) or every
    /// position (full-scan FW/MFW).
    prefix_layout: bool,
    pub scratch: Vec<f64>,
}

impl<'a, K: KernelSource> Run<'a, K> {
    pub fn new(
        config: &'a FrankWolfe,
        meb: &'a mut MebQ<K>,
        delta2: f64,
        options: &'a SolveOptions,
        prefix_layout: bool,
    ) -> Self {
        let n = meb.size();
        Run {
            config,
            it: Iterate {
                alpha: vec![0.0; n],
                s: vec![0.0; n],
                r_big: 0.0,
                delta2,
                basis: if prefix_layout { 0 } else { n },
                support: 0,
            },
            meb,
            perm: (0..n).collect(),
            random: Random::new(options.seed),
            options,
            started: Instant::now(),
            report: FrankWolfeReport { delta2, ..FrankWolfeReport::default() },
            iterations: 0,
            gap: f64::INFINITY,
            prefix_layout,
            scratch: Vec::new(),
        }
    }

    /// The solver's parameters.
    pub fn config(&self) -> &FrankWolfe {
        self.config
    }

    /// Exchanges positions `a` and `b` everywhere.
    pub fn swap(&mut self, a: usize, b: usize) {
        if a != b {
            self.meb.swap_index(a, b);
            self.it.alpha.swap(a, b);
            self.it.s.swap(a, b);
            self.perm.swap(a, b);
        }
    }

    /// Draws `init_size` points, alternating labels, without replacement.
    fn initial_points(&mut self) -> Vec<usize> {
        let n = self.meb.size();
        let count = self.config.init_size.min(n);
        let signs = self.meb.signs();
        let mut classes: [Vec<usize>; 2] = [
            (0..n).filter(|&i| signs[i] > 0.0).collect(),
            (0..n).filter(|&i| signs[i] < 0.0).collect(),
        ];
        let mut chosen = Vec::with_capacity(count);
        let mut class = 0;
        while chosen.len() < count {
            if classes[class].is_empty() {
                class = 1 - class;
            }
            let pool = &mut classes[class];
            let k = self.random.below(pool.len());
            chosen.push(pool.swap_remove(k));
            class = 1 - class;
        }
        chosen.sort_unstable();
        chosen
    }

    /// The random MEB start (§2.2): the chosen points are moved to the front of the basis
    /// (sampling) and their MEB solved by SMO from uniform weights.
    pub fn initialize(&mut self, monitor: &mut dyn Monitor) -> Result<(), SolveError> {
        let chosen = self.initial_points();
        let positions: Vec<usize> = if !self.prefix_layout {
            chosen
        } else {
            // `chosen` is sorted, so each swap moves a point that no earlier swap touched.
            for (k, &p) in chosen.iter().enumerate() {
                self.swap(p, k);
            }
            self.it.basis = chosen.len();
            (0..chosen.len()).collect()
        };
        let p = positions.len();
        let tol = 0.5 * self.config.relative_gap() * self.it.delta2;
        let outer_len = self.it.basis;
        let solution = solve_core_set(
            self.meb,
            &positions,
            outer_len,
            WarmStart { alpha: vec![1.0 / p as f64; p], gradient: None },
            tol,
            self.options,
            monitor,
        )?;
        self.report.inner_iterations += solution.iterations;
        for (&position, &a) in positions.iter().zip(&solution.x) {
            self.it.alpha[position] = a;
        }
        self.recompute_s(&positions);
        Ok(())
    }

    /// `s = K̃α` on the basis from the columns of the support among `positions`, and `R`.
    pub fn recompute_s(&mut self, positions: &[usize]) {
        let basis = self.it.basis;
        self.it.s[..basis].fill(0.0);
        for &j in positions {
            let a = self.it.alpha[j];
            if a > 0.0 {
                let column = self.meb.column(j, basis);
                for (s, &k) in self.it.s[..basis].iter_mut().zip(column) {
                    *s += a * k;
                }
            }
        }
        self.it.support = self.it.alpha[..basis].iter().filter(|&&a| a > 0.0).count();
        self.it.r_big =
            self.it.alpha[..basis].iter().zip(&self.it.s[..basis]).map(|(a, s)| a * s).sum();
    }

    /// Whether vertex `v` satisfies the stopping rule (37).
    pub fn satisfies_stop(&self, v: &Vertex) -> bool {
        2.0 * (self.it.r_big - v.s) <= self.config.relative_gap() * self.it.r2()
    }

    /// The vertex of this iteration and whether it certifies convergence (see [`search`] for the
    /// candidates of each method).
    pub fn find_vertex(&mut self) -> (Option<Vertex>, bool) {
        let basis = self.it.basis;
        let mut best = if self.config.sample_size.is_none() {
            argmin(&self.it.s[..basis], |_| true).map(|(position, s)| Vertex { position, s })
        } else {
            None
        };
        let Some(sample_size) = self.config.sample_size else {
            let converged = best.is_some_and(|v| self.satisfies_stop(&v));
            return (best, converged);
        };
        let n = self.meb.size();
        for _ in 0..self.config.sample_trials {
            let sample = self.random.distinct(0, n, sample_size);
            let sampled = best_of_sample(self.meb, &self.it.alpha, &self.it.s, basis, &sample);
            best = Vertex::better(best, sampled);
            if best.is_some_and(|v| !self.satisfies_stop(&v)) || sample.len() >= n {
                break;
            }
        }
        if best.is_some_and(|v| self.satisfies_stop(&v)) && self.config.verify_full {
            let inside =
                argmin(&self.it.s[..basis], |_| true).map(|(position, s)| Vertex { position, s });
            let outside = best_outside_basis(self.meb, &self.it.alpha, basis, &mut self.scratch);
            best = Vertex::better(best, Vertex::better(inside, outside));
        }
        let converged = best.is_some_and(|v| self.satisfies_stop(&v));
        (best, converged)
    }

    /// Makes `v` a basis position (sampling: swapped to the end of the basis) and returns it.
    pub fn admit(&mut self, v: Vertex) -> usize {
        let basis = self.it.basis;
        if v.position < basis {
            return v.position;
        }
        self.swap(v.position, basis);
        self.it.s[basis] = v.s;
        self.it.basis += 1;
        basis
    }

    /// Checks the limits and reports to the monitor; `Some(status)` ends the solve.
    pub fn check_limits(&mut self, monitor: &mut dyn Monitor) -> Option<Status> {
        if self.options.max_iter.is_some_and(|m| self.iterations >= m) {
            return Some(Status::MaxIterations);
        }
        if self.iterations > 0 && self.iterations % self.options.report_every == 0 {
            if self.options.time_limit.is_some_and(|t| self.started.elapsed() >= t) {
                return Some(Status::TimeLimit);
            }
            let progress = Progress {
                iteration: self.iterations,
                gap: self.gap,
                objective: self.it.r_big,
                active_size: self.it.support,
                cache: self.meb.cache_stats(),
            };
            if monitor.report(&progress) == Control::Stop {
                return Some(Status::Stopped);
            }
        }
        None
    }

    /// Algorithms 2 and 3 from the initialised state.
    fn iterate(
        &mut self,
        monitor: &mut dyn Monitor,
    ) -> Result<(Solution, FrankWolfeReport), SolveError> {
        let mut objective_increases = 0;
        let status = loop {
            let (vertex, converged) = self.find_vertex();
            let Some(vertex) = vertex else { break Status::Converged };
            self.gap = 2.0 * (self.it.r_big - vertex.s);
            if converged {
                break Status::Converged;
            }
            if let Some(status) = self.check_limits(monitor) {
                break status;
            }
            let before = self.it.r_big;
            let kind = match self.away_candidate(&vertex) {
                Some(j) => {
                    let basis = self.it.basis;
                    let k_jj = self.meb.diagonal()[j];
                    let column = self.meb.column(j, basis);
                    self.it.step_away(j, column, k_jj, self.config.radius_rule)
                }
                None => {
                    let v = self.admit(vertex);
                    let basis = self.it.basis;
                    let k_vv = self.meb.diagonal()[v];
                    let column = self.meb.column(v, basis);
                    self.it.step_toward(v, column, k_vv)
                }
            };
            match kind {
                Some(StepKind::Toward) => self.report.toward_steps += 1,
                Some(StepKind::Away) => self.report.away_steps += 1,
                Some(StepKind::Drop) => self.report.drop_steps += 1,
                // No ascent along the chosen direction: rounding has the last word.
                None => break Status::Converged,
            }
            self.iterations += 1;
            if self.it.r_big > before * (1.0 + 1e-12) + 1e-300 {
                objective_increases += 1;
            }
            if !self.it.r_big.is_finite() {
                break Status::NumericalError;
            }
            if self.iterations % RENORMALIZE_EVERY == 0 {
                self.it.renormalize();
            }
        };
        Ok(self.finish(status, objective_increases))
    }

    /// MFW's choice (Alg. 3 step 12): the nearest core point `j*` when the away direction
    /// ascends faster than the Frank–Wolfe direction, `s_{j*} − R > R − s_{i*}`.
    fn away_candidate(&self, vertex: &Vertex) -> Option<usize> {
        if self.config.method != Method::Mfw || self.it.support < 2 {
            return None;
        }
        let basis = self.it.basis;
        let alpha = &self.it.alpha;
        let (j, s_j) = argmax(&self.it.s[..basis], |t| alpha[t] > 0.0)?;
        (s_j - self.it.r_big > self.it.r_big - vertex.s).then_some(j)
    }

    /// The [`Solution`] in the problem's order.
    pub fn finish(
        &mut self,
        status: Status,
        objective_increases: u64,
    ) -> (Solution, FrankWolfeReport) {
        let n = self.meb.size();
        let mut x = vec![0.0; n];
        let mut bias = 0.0;
        let signs = self.meb.signs();
        for position in 0..n {
            let a = self.it.alpha[position];
            x[self.perm[position]] = a;
            bias += a * signs[position];
        }
        self.report.radius2 = self.it.r2();
        self.report.coreset_size = self.it.alpha.iter().filter(|&&a| a > 0.0).count() as u64;
        let solution = Solution {
            x,
            objective: self.it.r_big,
            bias,
            gap: self.gap,
            iterations: self.iterations,
            status,
            stats: SolveStats {
                cache: self.meb.cache_stats(),
                objective_increases,
                gradient_reconstructions: 0,
                min_active_size: 0,
            },
        };
        (solution, self.report)
    }
}
