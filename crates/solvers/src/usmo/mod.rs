//! USMO: the SMO-type solver of positive-unlabeled learning with the double hinge loss
//! (Sansone, De Natale & Zhou, "Efficient Training for Positive Unlabeled Learning", TPAMI 2019;
//! digest `papers/seed-000-pu-usmo.md`).
//!
//! With `p` labeled positives, `n` unlabeled rows, `c1 = π/(2λp)`, `c2 = 1/(2λn)`, the dual (6)
//! with `δ` eliminated (Lemma 1: `δ_u = 2 min(σ_u, c2 − σ_u)`; digest §1.4) is
//!
//! ```text
//! min_σ Φ(σ) = ½ σᵀK_UUσ − pᵀσ + Σ_u g(σ_u),   g(s) = max(−s, s − c2)
//! s.t.  0 ≤ σ_u ≤ c2,   Σ_u σ_u = c1·p
//! ```
//!
//! with `p_u = c1 Σ_{q∈P} k(x_u, x_q)` fixed. The solver keeps the function cache
//! `f̂_u = p_u − Σ_v σ_v k(x_u, x_v)` (`−∂Φ_smooth/∂σ_u`) for every unlabeled row (O(n)), and
//! each iteration
//!
//! 1. computes the most critical values over `D1 = {σ < c2/2}`, `D2 = {σ > c2/2}`,
//!    `D3 = {0 < σ < c2}` (§4.2) and the four gaps
//!    `G1 = m1max − m3min`, `G2 = m3max − m2min`, `G3 = m1max − m2min + 2`, and
//!    **`G4 = m3max − m3min − 2`, the condition the paper omits** (digest §2.3: without it the
//!    solver stops at non-optimal points);
//! 2. stops when `max G ≤ τ` (the τ-optimality of (12)–(13) with C4), else takes the pair of the
//!    largest gap (the digest's "maximal violating pair" mode, covered by the paper's proof);
//! 3. solves the pair exactly ([`pair`]: Table I's four cases, with Case 1's `(…)/η`, clipped,
//!    the lowest sub-objective kept; endpoints when `η ≤ 0`) and accepts the step only if it
//!    strictly lowers Φ;
//! 4. updates the cache `f̂ −= Δσ_i K_{·,i} + Δσ_j K_{·,j}` (eq. (15) with its typo fixed:
//!    `α_i^{k−1}`, not `α_u^{k−1}`), in parallel over fixed chunks.
//!
//! The bias is the mean of `−1 − f̂_u` over `0 < σ_u < c2/2` and `1 − f̂_u` over
//! `c2/2 < σ_u < c2` ((16)); without such points, the midpoint of the feasible interval
//! `[−1 − min(m3min, m2min − 2), −1 − max(m1max, m3max − 2)]` (digest §2.6; the paper does not
//! cover the case).
//!
//! The start is the uniform feasible point `σ_u = c1 p / n` (`= π c2`), one of the starts the
//! digest recommends; the equality `Σσ = c1 p` holds there and every step preserves it.

mod oracle;
mod pair;

pub use oracle::{KernelColumns, LinearRows, UnlabeledKernel};

use std::time::Instant;

use crate::protocol::{
    Control, Monitor, Progress, Solution, SolveError, SolveOptions, SolveStats, Solver, Status,
};

/// Positions per parallel task in the scans and the cache update.
const CHUNK: usize = 4096;

/// The USMO dual over the `n` unlabeled rows.
#[derive(Debug)]
pub struct PuProblem<K> {
    /// The kernel among the unlabeled rows.
    pub kernel: K,
    /// `p_u = c1 Σ_{q∈P} k(x_u, x_q)`.
    pub positive_term: Vec<f64>,
    /// `c1 = π/(2λp)`.
    pub c1: f64,
    /// `c2 = 1/(2λn)`.
    pub c2: f64,
    /// `c1·p = π/(2λ)`, the value of `Σσ`.
    pub total: f64,
    /// `Σ_v k(x_u, x_v)` over the unlabeled rows, when known: the function cache of the
    /// uniform start is then `p_u − (c1 p / n)·Σ_v k(x_u, x_v)` without a pass over `n` columns.
    pub unlabeled_sums: Option<Vec<f64>>,
}

impl<K: UnlabeledKernel> PuProblem<K> {
    /// The problem for prior `π ∈ (0, 1)`, regularisation `λ > 0`, `n_positive` labeled positives,
    /// the unlabeled kernel `q` and `positive_sums[u] = Σ_{q∈P} k(x_u, x_q)`.
    pub fn new(
        kernel: K,
        positive_sums: Vec<f64>,
        prior: f64,
        lam: f64,
        n_positive: usize,
    ) -> Result<Self, SolveError> {
        let n = kernel.size();
        if !(prior > 0.0 && prior < 1.0) {
            return Err(SolveError::InvalidProblem {
                name: "prior",
                reason: format!("prior = {prior} must be in (0, 1)"),
            });
        }
        if !(lam.is_finite() && lam > 0.0) {
            return Err(SolveError::InvalidProblem {
                name: "lam",
                reason: format!("lam = {lam} must be finite and > 0"),
            });
        }
        if n_positive == 0 || n == 0 {
            return Err(SolveError::InvalidProblem {
                name: "y",
                reason: "PU learning needs labeled positives and unlabeled rows".into(),
            });
        }
        if positive_sums.len() != n {
            return Err(SolveError::LengthMismatch {
                name: "positive_sums",
                expected: n,
                actual: positive_sums.len(),
            });
        }
        if let Some(u) = positive_sums.iter().position(|v| !v.is_finite()) {
            return Err(SolveError::InvalidProblem {
                name: "positive_sums",
                reason: format!("entry {u} is not finite"),
            });
        }
        let c1 = prior / (2.0 * lam * n_positive as f64);
        let c2 = 1.0 / (2.0 * lam * n as f64);
        let positive_term = positive_sums.iter().map(|s| c1 * s).collect();
        Ok(PuProblem {
            kernel,
            positive_term,
            c1,
            c2,
            total: prior / (2.0 * lam),
            unlabeled_sums: None,
        })
    }
}

/// `g(s) = max(−s, s − c2)`: the double hinge's contribution after eliminating δ.
#[inline]
pub(crate) fn hinge(s: f64, c2: f64) -> f64 {
    (-s).max(s - c2)
}

/// The USMO solver (see the module documentation).
#[derive(Debug, Default, Clone, Copy)]
pub struct Usmo;

/// The most critical values and where they are.
#[derive(Debug, Clone, Copy)]
struct Critical {
    m1_max: (f64, usize),
    m2_min: (f64, usize),
    m3_min: (f64, usize),
    m3_max: (f64, usize),
}

impl Critical {
    const EMPTY: Critical = Critical {
        m1_max: (f64::NEG_INFINITY, usize::MAX),
        m2_min: (f64::INFINITY, usize::MAX),
        m3_min: (f64::INFINITY, usize::MAX),
        m3_max: (f64::NEG_INFINITY, usize::MAX),
    };

    /// Combines with a later chunk (ties to the lower index: the earlier chunk wins).
    fn merge(self, later: Critical) -> Critical {
        let max = |a: (f64, usize), b: (f64, usize)| if b.0 > a.0 { b } else { a };
        let min = |a: (f64, usize), b: (f64, usize)| if b.0 < a.0 { b } else { a };
        Critical {
            m1_max: max(self.m1_max, later.m1_max),
            m2_min: min(self.m2_min, later.m2_min),
            m3_min: min(self.m3_min, later.m3_min),
            m3_max: max(self.m3_max, later.m3_max),
        }
    }

    /// `[(G, (i, j))]` for the four conditions; `i` gives mass to `j`... see `pair`.
    fn gaps(&self) -> [(f64, (usize, usize)); 4] {
        [
            (self.m1_max.0 - self.m3_min.0, (self.m1_max.1, self.m3_min.1)),
            (self.m3_max.0 - self.m2_min.0, (self.m3_max.1, self.m2_min.1)),
            (self.m1_max.0 - self.m2_min.0 + 2.0, (self.m1_max.1, self.m2_min.1)),
            (self.m3_max.0 - self.m3_min.0 - 2.0, (self.m3_max.1, self.m3_min.1)),
        ]
    }
}

/// Values within this fraction of `c2` from `0`, `c2/2` or `c2` count as on them: the pair step
/// keeps `σ_i + σ_j` exact, so one of the two may sit a rounding error away from the point it was
/// clipped to, and must not be taken for a free variable with no room to move.
const BOUND_TOLERANCE: f64 = 1e-12;

fn critical_values(sigma: &[f64], cache: &[f64], c2: f64) -> Critical {
    let half = c2 / 2.0;
    let eps = BOUND_TOLERANCE * c2;
    let scan = |lo: usize, hi: usize| {
        let mut c = Critical::EMPTY;
        for u in lo..hi {
            let (s, f) = (sigma[u], cache[u]);
            if s < half - eps && f > c.m1_max.0 {
                c.m1_max = (f, u);
            }
            if s > half + eps && f < c.m2_min.0 {
                c.m2_min = (f, u);
            }
            if s > eps && s < c2 - eps {
                if f < c.m3_min.0 {
                    c.m3_min = (f, u);
                }
                if f > c.m3_max.0 {
                    c.m3_max = (f, u);
                }
            }
        }
        c
    };
    let n = sigma.len();
    if n < kernelkit_kernels::PARALLEL_MIN_LEN {
        return scan(0, n);
    }
    kernelkit_kernels::team::fold_chunks(
        n.div_ceil(CHUNK),
        |c| scan(c * CHUNK, ((c + 1) * CHUNK).min(n)),
        Critical::EMPTY,
        Critical::merge,
    )
}

/// `Φ(σ) = ½σᵀKσ − pᵀσ + Σ g(σ_u)` from the cache: `½σᵀKσ = ½ Σ σ_u (p_u − f̂_u)`.
fn objective(sigma: &[f64], cache: &[f64], positive: &[f64], c2: f64) -> f64 {
    sigma
        .iter()
        .zip(cache)
        .zip(positive)
        .map(|((&s, &f), &p)| 0.5 * s * (p - f) - p * s + hinge(s, c2))
        .sum()
}

/// The bias (16), or the midpoint of the feasible interval when no point is non-bound.
fn bias(sigma: &[f64], cache: &[f64], c2: f64, critical: &Critical) -> f64 {
    let half = c2 / 2.0;
    let eps = BOUND_TOLERANCE * c2;
    let (mut sum, mut count) = (0.0, 0usize);
    for (&s, &f) in sigma.iter().zip(cache) {
        if s > eps && s < half - eps {
            sum += -1.0 - f;
            count += 1;
        } else if s > half + eps && s < c2 - eps {
            sum += 1.0 - f;
            count += 1;
        }
    }
    if count > 0 {
        return sum / count as f64;
    }
    let upper = -1.0 - critical.m1_max.0.max(critical.m3_max.0 - 2.0);
    let lower = -1.0 - critical.m3_min.0.min(critical.m2_min.0 - 2.0);
    match (lower.is_finite(), upper.is_finite()) {
        (true, true) => (lower + upper) / 2.0,
        (true, false) => lower,
        (false, true) => upper,
        (false, false) => 0.0,
    }
}

impl<K: UnlabeledKernel> Solver<PuProblem<K>> for Usmo {
    fn name(&self) -> &'static str {
        "usmo"
    }

    fn solve(
        &self,
        problem: &mut PuProblem<K>,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<Solution, SolveError> {
        options.validate()?;
        let started = Instant::now();
        // The other threads of the pool spin between the passes of this solve.
        let _team = kernelkit_kernels::team::TeamGuard::enter();
        let n = problem.kernel.size();
        let (c2, tol) = (problem.c2, options.tol);
        let diagonal = problem.kernel.diagonal();
        let mut sigma = vec![problem.total / n as f64; n];
        let mut cache = problem.positive_term.clone();
        match &problem.unlabeled_sums {
            Some(sums) if sums.len() == n => {
                let start = problem.total / n as f64;
                for (f, s) in cache.iter_mut().zip(sums) {
                    *f -= start * s;
                }
            }
            _ => problem.kernel.subtract_weighted_columns(&sigma, &mut cache),
        }

        let mut stats = SolveStats { min_active_size: n as u64, ..SolveStats::default() };
        let mut iteration = 0u64;
        let mut status = Status::Converged;
        let mut critical = critical_values(&sigma, &cache, c2);
        let mut gap;
        loop {
            let gaps = critical.gaps();
            gap = gaps.iter().map(|g| g.0).fold(f64::NEG_INFINITY, f64::max);
            if !gap.is_finite() || gap <= tol {
                gap = gap.max(0.0);
                break;
            }
            if options.max_iter.is_some_and(|m| iteration >= m) {
                status = Status::MaxIterations;
                break;
            }
            if iteration > 0 && iteration.is_multiple_of(options.report_every) {
                if options.time_limit.is_some_and(|t| started.elapsed() >= t) {
                    status = Status::TimeLimit;
                    break;
                }
                let progress = Progress {
                    iteration,
                    gap,
                    objective: objective(&sigma, &cache, &problem.positive_term, c2),
                    active_size: n,
                    cache: problem.kernel.cache_stats(),
                };
                if monitor.report(&progress) == Control::Stop {
                    status = Status::Stopped;
                    break;
                }
            }
            // The violating pairs by decreasing gap: the first that lowers Φ is taken.
            let mut order = gaps;
            order.sort_by(|a, b| b.0.total_cmp(&a.0));
            let mut stepped = false;
            for &(g, (i, j)) in order.iter().filter(|(g, _)| *g > tol) {
                let _ = g;
                if i == j || i >= n || j >= n {
                    continue;
                }
                let (s_i, s_j, f_i, f_j) = (sigma[i], sigma[j], cache[i], cache[j]);
                let (k_ii, k_jj) = (diagonal[i], diagonal[j]);
                let mut chosen = None;
                let taken = problem.kernel.step(i, j, &mut cache, &mut |k_ij| {
                    let input = pair::PairInput {
                        sigma: (s_i, s_j),
                        cache: (f_i, f_j),
                        k_ii,
                        k_jj,
                        k_ij,
                        c2,
                    };
                    let step = pair::solve_pair(&input)?;
                    chosen = Some(step);
                    Some((step.sigma.0 - s_i, step.sigma.1 - s_j))
                });
                let (Some(_), Some(step)) = (taken, chosen) else { continue };
                sigma[i] = step.sigma.0;
                sigma[j] = step.sigma.1;
                if step.objective_change > 0.0 {
                    stats.objective_increases += 1;
                }
                stepped = true;
                break;
            }
            if !stepped {
                // Every violating pair is stuck at rounding level: nothing can lower Φ.
                status = Status::NumericalError;
                break;
            }
            iteration += 1;
            critical = critical_values(&sigma, &cache, c2);
        }
        if status != Status::Converged {
            critical = critical_values(&sigma, &cache, c2);
            gap = critical.gaps().iter().map(|g| g.0).fold(0.0, f64::max);
        }
        stats.cache = problem.kernel.cache_stats();
        Ok(Solution {
            objective: objective(&sigma, &cache, &problem.positive_term, c2),
            bias: bias(&sigma, &cache, c2, &critical),
            x: sigma,
            gap,
            iterations: iteration,
            status,
            stats,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fourth_condition_catches_what_the_paper_misses() {
        // Digest §2.3: u1 ∈ D1 ∩ D3 with f̂ = 0, u2 ∈ D2 ∩ D3 with f̂ = 5 (c2 = 1).
        let critical = critical_values(&[0.2, 0.8], &[0.0, 5.0], 1.0);
        let gaps = critical.gaps();
        let tol = 1e-3;
        // (C1)–(C3) hold: the paper's test would stop here ...
        assert!(gaps[0].0 <= tol && gaps[1].0 <= tol && gaps[2].0 <= tol, "{gaps:?}");
        // ... but (C4) is violated, and its pair is (argmax_D3 f̂, argmin_D3 f̂).
        assert!((gaps[3].0 - 3.0).abs() < 1e-12);
        assert_eq!(gaps[3].1, (1, 0));
    }
}
