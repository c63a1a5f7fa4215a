//! The state shared by the three methods (the oracle with its positions, the iterate, the random
//! stream, the counters) and the loop of Algorithms 2 and 3.

use std::time::Instant;

use kernelkit_kernels::{KernelSource, MebQ};

use super::core_set::{solve_core_set, WarmStart};
use super::iterate::{argmax, argmin, Iterate, StepKind};
use super::search::{best_of_sample, best_outside_basis, Random, Vertex};
use super::{FrankWolfe, FrankWolfeReport, Method, SamplePool, Start};
use crate::protocol::{
    checkpoint, Monitor, Progress, Solution, SolveError, SolveOptions, SolveStats, Status,
};

/// Iterations between renormalisations of the iterate.
pub(super) const RENORMALIZE_EVERY: u64 = 1000;

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
        let constant_diagonal = super::is_constant(meb.diagonal());
        Run {
            config,
            it: Iterate {
                alpha: vec![0.0; n],
                s: vec![0.0; n],
                r_big: 0.0,
                delta2,
                constant_diagonal,
                weighted_diagonal: 0.0,
                negative_curvature: false,
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

    /// The points of the start: [`Start::FurthestPair`]'s two, or `init_size` drawn with
    /// alternating labels, without replacement.
    fn initial_points(&mut self) -> Vec<usize> {
        if self.config.start == Start::FurthestPair {
            return self.furthest_pair();
        }
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

    /// A random point `a` and the point furthest from it, `argmax_i k̃_aa + k̃_ii − 2k̃_ai`
    /// (another point when all are equally far, so that the start has two), sorted.
    fn furthest_pair(&mut self) -> Vec<usize> {
        let n = self.meb.size();
        let a = self.random.below(n);
        let column = self.meb.column(a, n).to_vec();
        let diagonal = self.meb.diagonal();
        let mut best: Option<(usize, f64)> = None;
        for (i, (&k_ai, &k_ii)) in column.iter().zip(diagonal).enumerate() {
            let distance = diagonal[a] + k_ii - 2.0 * k_ai;
            if i != a && best.is_none_or(|(_, d)| distance > d) {
                best = Some((i, distance));
            }
        }
        let b = best.map_or(a, |(i, _)| i);
        let mut pair = vec![a.min(b), a.max(b)];
        pair.dedup();
        pair
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
        // The scale of the stopping rule at the start: `Δ²` (the paper's `r² = Δ²` at `α = 0`),
        // or with an uneven diagonal the smallest `k̃_ii`, which bounds `R*` (a vertex's `R`)
        // where it is positive (a matrix that is not positive semidefinite can have
        // `k̃_ii ≤ 0`: the sub-problem's tolerance must still be positive).
        let smallest = self.meb.diagonal().iter().copied().fold(f64::INFINITY, f64::min);
        let scale =
            if self.it.constant_diagonal || smallest <= 0.0 { self.it.delta2 } else { smallest };
        let tol = (0.5 * self.config.relative_gap() * scale).max(f64::MIN_POSITIVE);
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

    /// `s = K̃α` on the basis from the columns of the support among `positions`, `R` and `D`.
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
        self.refresh_weighted_diagonal();
    }

    /// Recomputes `D = Σ α_i k̃_ii` over the basis (after `R` was recomputed).
    pub fn refresh_weighted_diagonal(&mut self) {
        let basis = self.it.basis;
        let diagonal = &self.meb.diagonal()[..basis];
        self.it.weighted_diagonal =
            self.it.alpha[..basis].iter().zip(diagonal).map(|(a, d)| a * d).sum();
    }

    /// Whether vertex `v` satisfies the stopping rule (37).
    pub fn satisfies_stop(&self, v: &Vertex) -> bool {
        2.0 * (self.it.r_big - v.s) <= self.config.relative_gap() * self.it.stop_scale()
    }

    /// The vertex of this iteration and whether it certifies convergence (see [`super::search`] for the
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
            // `support` never undercounts the weights > 0 (one can underflow to 0 unnoticed),
            // so `pool` never overcounts the points outside the core set.
            let (sample, pool) = match self.config.sample_pool {
                SamplePool::All => (self.random.distinct(0, n, sample_size), n),
                SamplePool::NonCore => {
                    let alpha = &self.it.alpha;
                    let pool = n - self.it.support;
                    (self.random.distinct_where(n, sample_size, pool, |p| alpha[p] == 0.0), pool)
                }
            };
            let sampled = best_of_sample(self.meb, &self.it.alpha, &self.it.s, basis, &sample);
            best = Vertex::better(best, sampled);
            if best.is_some_and(|v| !self.satisfies_stop(&v)) || sample.len() >= pool {
                break;
            }
        }
        // No candidate at all (every point in the core set, with the pool `NonCore`) stops the
        // sampled test too.
        if best.is_none_or(|v| self.satisfies_stop(&v)) && self.config.verify_full {
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
        if self.iterations >= self.options.iteration_limit(self.perm.len()) {
            return Some(Status::MaxIterations);
        }
        if self.iterations > 0 && self.iterations.is_multiple_of(self.options.report_every) {
            return checkpoint(self.options, self.started, monitor, || Progress {
                iteration: self.iterations,
                gap: self.gap,
                objective: self.it.r_big,
                active_size: self.it.support,
                cache: self.meb.cache_stats(),
            });
        }
        None
    }

    /// Algorithms 2 and 3 from the initialised state.
    pub fn iterate(
        &mut self,
        monitor: &mut dyn Monitor,
    ) -> Result<(Solution, FrankWolfeReport), SolveError> {
        let mut objective_increases = 0;
        let status = loop {
            let (vertex, converged) = self.find_vertex();
            let Some(vertex) = vertex else { break Status::Converged };
            self.gap = 2.0 * (self.it.r_big - vertex.s);
            // The search reports an `s` that is not finite first: kernel values beyond the
            // range of floating point, which no step can use.
            if !vertex.s.is_finite() {
                break Status::NumericalError;
            }
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
            if self.iterations.is_multiple_of(RENORMALIZE_EVERY) {
                self.it.renormalize();
                self.refresh_weighted_diagonal();
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

    /// Whether `R` and `s = K̃α` on the basis are finite: an infinite kernel value between a
    /// basis point and a point of the support makes them infinite or NaN.
    pub fn basis_is_finite(&self) -> bool {
        self.it.r_big.is_finite() && self.it.s[..self.it.basis].iter().all(|v| v.is_finite())
    }

    /// The [`Solution`] in the problem's order; its status is [`Status::NumericalError`] when
    /// a value it is made of (`α`, the bias, `R`, `s` on the basis) is not finite, whatever
    /// the loop concluded.
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
        let finite = bias.is_finite() && x.iter().all(|a| a.is_finite()) && self.basis_is_finite();
        // A kernel that is not positive semidefinite (by construction, or a step met negative
        // curvature, or `R = αᵀK̃α < 0`): the problem is not convex, and a point that meets the
        // stopping rule is only stationary (two seeds ended at objectives −0.313 and −0.245
        // with a sigmoid kernel, both "converged" before).
        let not_convex = self.meb.kernel().known_positive_semidefinite() == Some(false)
            || self.it.negative_curvature
            || self.it.r_big < 0.0;
        let status = if !finite {
            Status::NumericalError
        } else if status == Status::Converged && not_convex {
            Status::NotConvex
        } else {
            status
        };
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
                ..SolveStats::default()
            },
            gradient: None,
        };
        (solution, self.report)
    }
}
