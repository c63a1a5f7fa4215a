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
//! A solution with a value that is not finite (`σ`, `f̂`, the bias, `Φ`: kernel values beyond
//! the range of the `f32` column cache, 3.4e38) ends with [`Status::NumericalError`], whatever
//! the loop concluded; a pair that rounding keeps from lowering `Φ` ends it with
//! [`Status::Stalled`]; a converged solve whose kernel is not positive semidefinite (by
//! construction, or a pair with `η < −1e-10 (|K_ii| + |K_jj|)`) ends with
//! [`Status::NotConvex`]: `Φ` is then not convex and the point only stationary.
//!
//! The start is the uniform feasible point `σ_u = c1 p / n` (`= π c2`), one of the starts the
//! digest recommends; the equality `Σσ = c1 p` holds there and every step preserves it.
//!
//! # Working-set selection
//!
//! [`Selection::Full`] is the scheme above: every pair step scans all `n` rows for the most
//! critical values and updates the function cache of all `n` rows, `O(n)` per step.
//! [`Selection::Paper`] is the paper's scheme (§4.2, "Working-set selection", and Algorithm 1;
//! digest §2.4 and §2.8), in the `examineExample` form of the authors' code: cheap passes over
//! the non-bound set `D_n⁻ = {0 < σ < c2, σ ≠ c2/2}` (`0 < δ < c2`), on whose rows alone the
//! function cache is kept current, and a pass over every row only when a non-bound pass changes
//! nothing, from a start with almost every row on a bound. `paper.rs` gives the details, the
//! `C4` candidates the paper omits, and what it costs. Both schemes stop on the same test: all
//! four gaps `G1..G4`, over every row, at most `τ`.

mod oracle;
mod pair;
mod paper;

pub use oracle::{KernelColumns, LinearRows, UnlabeledKernel};

use std::time::Instant;

use crate::protocol::{
    checkpoint, negative_curvature, Monitor, Progress, Solution, SolveError, SolveOptions,
    SolveStats, Solver, Status,
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
            return Err(SolveError::invalid("prior", format!("prior = {prior} must be in (0, 1)")));
        }
        crate::protocol::check_positive("lam", lam)?;
        if n_positive == 0 || n == 0 {
            return Err(SolveError::invalid(
                "y",
                "PU learning needs labeled positives and unlabeled rows",
            ));
        }
        if positive_sums.len() != n {
            return Err(SolveError::LengthMismatch {
                name: "positive_sums",
                expected: n,
                actual: positive_sums.len(),
            });
        }
        if let Some(u) = positive_sums.iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid(
                "kernel",
                format!(
                    "the kernel values of unlabeled row {u} with the labeled positives sum to \
                     {:e}, beyond the range of floating point (scale the features, or lower \
                     gamma, degree or |coef0|)",
                    positive_sums[u]
                ),
            ));
        }
        let c1 = prior / (2.0 * lam * n_positive as f64);
        let c2 = 1.0 / (2.0 * lam * n as f64);
        let total = prior / (2.0 * lam);
        // λ near the smallest floats (1e-310) sends c1, c2 and Σσ to infinity: the start's σ
        // would be infinite, the bias NaN.
        if !(c1.is_finite() && c2.is_finite() && total.is_finite()) {
            return Err(SolveError::invalid(
                "lam",
                format!(
                    "lam = {lam:e} is too small for floating point: the dual's bounds \
                     c1 = π/(2λp) = {c1:e} and c2 = 1/(2λn) = {c2:e}, and its sum \
                     Σσ = π/(2λ) = {total:e}, must be finite"
                ),
            ));
        }
        let positive_term = positive_sums.iter().map(|s| c1 * s).collect();
        Ok(PuProblem { kernel, positive_term, c1, c2, total, unlabeled_sums: None })
    }
}

/// `g(s) = max(−s, s − c2)`: the double hinge's contribution after eliminating δ.
#[inline]
pub(crate) fn hinge(s: f64, c2: f64) -> f64 {
    (-s).max(s - c2)
}

/// How USMO chooses its pairs (see the module documentation). `Full` is the default here, as
/// the engine was before the choice existed; `PUClassifier` defaults to `Paper`, which was
/// faster on every size of `benches/bench_pu_scaling.py` (`docs/pu_classifier.md`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// The maximal violating pair over all `n` rows at every step, with the function cache of
    /// every row kept current.
    #[default]
    Full,
    /// The paper's alternating scheme: `examineExample` steps over the non-bound set, a pass
    /// over every row only when a non-bound pass changes nothing.
    Paper,
}

impl Selection {
    /// `"full"` or `"paper"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Selection::Full => "full",
            Selection::Paper => "paper",
        }
    }

    /// The selection named `name` (`"full"` or `"paper"`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "full" => Some(Selection::Full),
            "paper" => Some(Selection::Paper),
            _ => None,
        }
    }
}

/// The USMO solver (see the module documentation).
#[derive(Debug, Default, Clone, Copy)]
pub struct Usmo {
    /// How pairs are chosen.
    pub selection: Selection,
}

impl Usmo {
    /// The solver with the given working-set selection.
    pub fn new(selection: Selection) -> Self {
        Usmo { selection }
    }
}

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

    /// The critical values of the one row `u` with `σ_u = s`, `f̂_u = f`.
    fn single(u: usize, s: f64, f: f64, c2: f64) -> Critical {
        let (half, eps) = (c2 / 2.0, BOUND_TOLERANCE * c2);
        let mut c = Critical::EMPTY;
        if s < half - eps {
            c.m1_max = (f, u);
        }
        if s > half + eps {
            c.m2_min = (f, u);
        }
        if s > eps && s < c2 - eps {
            c.m3_min = (f, u);
            c.m3_max = (f, u);
        }
        c
    }

    /// The gaps of the four conditions between a row of `self` and a row of `other`, both
    /// ways: `examineExample`'s candidates when `self` is one row (digest §2.4, with the `C4`
    /// pairs `F_x − F_y − 2` the authors' code omits). Empty sets give `−∞`.
    fn cross_gaps(&self, other: &Critical) -> [(f64, (usize, usize)); 8] {
        let (a, b) = (self, other);
        [
            (a.m1_max.0 - b.m3_min.0, (a.m1_max.1, b.m3_min.1)),
            (b.m1_max.0 - a.m3_min.0, (b.m1_max.1, a.m3_min.1)),
            (a.m3_max.0 - b.m2_min.0, (a.m3_max.1, b.m2_min.1)),
            (b.m3_max.0 - a.m2_min.0, (b.m3_max.1, a.m2_min.1)),
            (a.m1_max.0 - b.m2_min.0 + 2.0, (a.m1_max.1, b.m2_min.1)),
            (b.m1_max.0 - a.m2_min.0 + 2.0, (b.m1_max.1, a.m2_min.1)),
            (a.m3_max.0 - b.m3_min.0 - 2.0, (a.m3_max.1, b.m3_min.1)),
            (b.m3_max.0 - a.m3_min.0 - 2.0, (b.m3_max.1, a.m3_min.1)),
        ]
    }

    /// `self` with every index `k` replaced by `map(k)` (empty sets keep theirs).
    fn map_indices(self, map: impl Fn(usize) -> usize) -> Critical {
        let m = |(v, k): (f64, usize)| (v, if k == usize::MAX { k } else { map(k) });
        Critical {
            m1_max: m(self.m1_max),
            m2_min: m(self.m2_min),
            m3_min: m(self.m3_min),
            m3_max: m(self.m3_max),
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

/// A step taken: the changes of the pair's σ and of Φ.
#[derive(Debug, Clone, Copy)]
struct Taken {
    delta: (f64, f64),
    objective_change: f64,
}

/// What a pair step reads and writes, by position.
struct Duals<'a> {
    sigma: &'a mut [f64],
    cache: &'a mut [f64],
    diagonal: &'a [f64],
    c2: f64,
    /// Set when a pair's curvature proves the kernel matrix indefinite.
    not_convex: &'a mut bool,
}

/// Tries the candidate pairs `(gap, (i, j))` whose gap exceeds `tol`, largest gap first (ties:
/// in the given order), and takes the first step that lowers Φ: σ and the function cache of
/// the positions `0..len` (which must hold `i` and `j`) are updated. `None` when no candidate
/// moves.
fn take_step<K: UnlabeledKernel>(
    kernel: &mut K,
    candidates: &mut [(f64, (usize, usize))],
    tol: f64,
    len: usize,
    duals: Duals<'_>,
) -> Option<Taken> {
    let Duals { sigma, cache, diagonal, c2, not_convex } = duals;
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(_, (i, j)) in candidates.iter().filter(|(g, _)| *g > tol) {
        if i == j || i >= len || j >= len {
            continue;
        }
        let (s_i, s_j, f_i, f_j) = (sigma[i], sigma[j], cache[i], cache[j]);
        let (k_ii, k_jj) = (diagonal[i], diagonal[j]);
        let mut chosen = None;
        let taken = kernel.step(i, j, len, cache, &mut |k_ij| {
            *not_convex |= negative_curvature(k_ii + k_jj - 2.0 * k_ij, k_ii.abs() + k_jj.abs());
            let input =
                pair::PairInput { sigma: (s_i, s_j), cache: (f_i, f_j), k_ii, k_jj, k_ij, c2 };
            let step = pair::solve_pair(&input)?;
            chosen = Some(step);
            Some((step.sigma.0 - s_i, step.sigma.1 - s_j))
        });
        let (Some(delta), Some(step)) = (taken, chosen) else { continue };
        sigma[i] = step.sigma.0;
        sigma[j] = step.sigma.1;
        return Some(Taken { delta, objective_change: step.objective_change });
    }
    None
}

/// The largest of the four gaps, or `None` when it is at most `tol` (or no gap is finite).
fn violation(critical: &Critical, tol: f64) -> Option<f64> {
    let gap = critical.gaps().iter().map(|g| g.0).fold(f64::NEG_INFINITY, f64::max);
    (gap.is_finite() && gap > tol).then_some(gap)
}

/// `status`, or [`Status::NumericalError`] when a value the solution is made of is not finite:
/// `σ`, a function cache entry, the bias or `Φ`. Kernel values beyond the range of the `f32`
/// column cache (3.4e38: `degree = 1000` on rows of norm 1.1) or of `f64` make `f̂` infinite or
/// NaN; the scans skip a NaN and [`violation`] takes an infinite gap for no gap, so the loop
/// would stop as if converged, and the bias would be read from those values.
///
/// A converged solve whose kernel is not positive semidefinite (by construction, or a pair of
/// negative curvature met: `not_convex`) ends with [`Status::NotConvex`]: `Φ` is then not
/// convex, the pair steps take the better endpoint where `η ≤ 0`, and a point that meets the
/// stopping rule is only stationary (two selections end at different points, 5 % of the
/// predictions apart, with a sigmoid kernel).
fn checked_status(
    status: Status,
    not_convex: bool,
    sigma: &[f64],
    cache: &[f64],
    bias: f64,
    objective: f64,
) -> Status {
    let finite = bias.is_finite()
        && objective.is_finite()
        && sigma.iter().chain(cache).all(|v| v.is_finite());
    if !finite {
        Status::NumericalError
    } else if status == Status::Converged && not_convex {
        Status::NotConvex
    } else {
        status
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
        // The other threads of the pool spin between the passes of this solve.
        let _team = kernelkit_kernels::team::TeamGuard::enter();
        match self.selection {
            Selection::Full => Ok(solve_full(problem, options, monitor)),
            Selection::Paper => Ok(paper::solve(problem, options, monitor)),
        }
    }
}

/// The full scan: the maximal violating pair over all rows at every step.
fn solve_full<K: UnlabeledKernel>(
    problem: &mut PuProblem<K>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Solution {
    let started = Instant::now();
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
    let mut not_convex = problem.kernel.known_positive_semidefinite() == Some(false);
    let mut critical = critical_values(&sigma, &cache, c2);
    while let Some(gap) = violation(&critical, tol) {
        if iteration >= options.iteration_limit(n) {
            status = Status::MaxIterations;
            break;
        }
        if iteration > 0 && iteration.is_multiple_of(options.report_every) {
            let stop = checkpoint(options, started, monitor, || Progress {
                iteration,
                gap,
                objective: objective(&sigma, &cache, &problem.positive_term, c2),
                active_size: n,
                cache: problem.kernel.cache_stats(),
            });
            if let Some(stop) = stop {
                status = stop;
                break;
            }
        }
        // The violating pairs by decreasing gap: the first that lowers Φ is taken.
        let mut order = critical.gaps();
        let duals = Duals {
            sigma: &mut sigma,
            cache: &mut cache,
            diagonal: &diagonal,
            c2,
            not_convex: &mut not_convex,
        };
        let taken = take_step(&mut problem.kernel, &mut order, tol, n, duals);
        let Some(taken) = taken else {
            // Every violating pair is stuck at rounding level: nothing can lower Φ (`tol` is
            // below what the `f32` kernel columns resolve).
            status = Status::Stalled;
            break;
        };
        if taken.objective_change > 0.0 {
            stats.objective_increases += 1;
        }
        iteration += 1;
        critical = critical_values(&sigma, &cache, c2);
    }
    let gap = critical.gaps().iter().map(|g| g.0).fold(0.0, f64::max);
    stats.cache = problem.kernel.cache_stats();
    let solution_objective = objective(&sigma, &cache, &problem.positive_term, c2);
    let solution_bias = bias(&sigma, &cache, c2, &critical);
    let status =
        checked_status(status, not_convex, &sigma, &cache, solution_bias, solution_objective);
    Solution {
        objective: solution_objective,
        bias: solution_bias,
        x: sigma,
        gap,
        iterations: iteration,
        status,
        stats,
        gradient: None,
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
