//! The paper's working-set selection ([`super::Selection::Paper`]): Sansone, De Natale & Zhou,
//! §4.2 "Working-set selection" and Algorithm 1 (digest §2.4, pseudo-code §2.8), in the
//! `examineExample` form of the authors' MATLAB code, with Platt's alternation.
//!
//! * **Non-bound passes.** Every row of the non-bound set `D_n⁻ = {0 < σ < c2, σ ≠ c2/2}`
//!   (`0 < δ < c2`) is examined in turn: its `f̂` is compared with the most critical values of
//!   the rows whose `f̂` is current, and when the largest gap exceeds `τ` the pair it names is
//!   stepped. Passes repeat while they change something.
//! * **Whole-set passes** ("examine all"), only when a non-bound pass changed nothing: every row
//!   is examined the same way, the critical values growing with each row examined ("the
//!   non-bound set together with the current examined sample") and falling back to the current
//!   rows after a step.
//!
//! **The `C4` fix.** The candidates of a row are the gaps of *all four* conditions between it
//! and the critical values ([`super::Critical::cross_gaps`]): besides the authors' candidates
//! (`F − m3min`, `F − m2min + 2`, `m1max − F`, `F − m2min`, `m3max − F`, `m1max − F + 2`), the
//! `C4` pairs `F − m3min − 2` and `m3max − F − 2` of a row in `D3`, which the paper omits
//! (digest §2.3 and §6.1: without them the paper's test stops at non-optimal points, and its
//! selection never repairs a `C4` violation).
//!
//! **The stop is the full scheme's.** Each whole-set pass starts by bringing every row's `f̂` up
//! to date and computing the four gaps over all `n` rows, exactly as [`super::Selection::Full`]
//! does at every step; the solve stops when they are all at most `τ`. Both schemes therefore
//! stop at the same τ-optimality of the same problem. (A whole-set pass that finds no step, in
//! exact arithmetic, finds no violation either: every pair is compared when its later row is
//! examined. Should rounding leave a violating pair that no step can improve, the pass falls
//! back to the full scheme's step, then stops with `Stalled`.)
//!
//! **What is kept current, and why it is cheaper.** The paper keeps `f̂` only for the non-bound
//! rows and recomputes it for a bound row when that row is examined. Here the rows are
//! reordered so that an *active prefix* of positions holds the non-bound rows (and, for the
//! kernel columns, the rows moved since the last refresh); a step updates `f̂` on the prefix
//! only (`O(|prefix|)` instead of `O(n)`), and a row outside it is read through
//! [`super::UnlabeledKernel::outside_value`]: its stored `f̂` minus what the moved rows changed,
//! one kernel column over the prefix, or `O(d)` with the linear kernel's `Δw`. Each whole-set
//! pass starts with a refresh of every stored `f̂` ([`super::UnlabeledKernel::refresh`]: the
//! moved rows' columns over the outside rows) and puts the non-bound rows first again.
//!
//! **The start** serves the paper's purpose for its initialization (§4.5, digest §2.7): almost
//! every row on a bound, so that the non-bound set, and with it the cost of a step, starts
//! small (the uniform start of the full scheme puts every row in the non-bound set, or, at
//! `π = 1/2`, every row on `c2/2`). The rows are ranked by `p_u = c1 Σ_{q∈P} k(x_u, x_q)`, the
//! Parzen score of the labeled positives, instead of the paper's one-class SVM, whose
//! parameters the paper does not give; the highest take `c2/2` each while `Σσ = c1 p` allows,
//! the next one the remainder, the others `0` (for `π > 1/2` every row holds `c2/2` and the
//! highest rise to `c2`). The paper's groups (17) cannot hold rows at `c2/2` without non-bound
//! ones (with `b = c = 0` its program (18) forces `a = 1`: `⌊πn⌋` rows at `c2`, the rest at
//! `0`), but the optimum of the problems measured puts almost every row on `0` or `c2/2` (a9a:
//! none on `c2`). Measured against that `a = 1` start: 7,945 steps instead of 13,859 on 16,000
//! a9a rows (RBF), 1.2–1.7× faster on a9a, 15 % fewer steps over the paper's small sets.
//!
//! Results do not depend on the thread count: the passes are sequential, the parallel updates
//! write fixed chunks, and the column sums of a refresh are fixed by their columns.

use std::time::Instant;

use super::{
    bias, checked_status, critical_values, objective, take_step, violation, Critical, Duals,
    PuProblem, Taken, UnlabeledKernel, BOUND_TOLERANCE,
};
use crate::protocol::{checkpoint, Monitor, Progress, Solution, SolveOptions, SolveStats, Status};

/// The rows by position, with the function cache current on the active prefix `0..len`.
struct Rows<'k, K> {
    kernel: &'k mut K,
    c2: f64,
    sigma: Vec<f64>,
    /// `f̂` at the active positions; the stored value at the others.
    cache: Vec<f64>,
    positive: Vec<f64>,
    diagonal: Vec<f64>,
    /// The row at each position.
    row: Vec<usize>,
    /// The position of each row.
    position: Vec<usize>,
    /// How far `σ` moved since the last refresh, at the active positions.
    moved: Vec<f64>,
    any_moved: bool,
    len: usize,
    /// Whether the kernel is known or found (a pair of negative curvature) not to be
    /// positive semidefinite.
    not_convex: bool,
}

impl<K: UnlabeledKernel> Rows<'_, K> {
    /// Whether `σ` is in the non-bound set `0 < σ < c2`, `σ ≠ c2/2`.
    fn free(&self, t: usize) -> bool {
        let (s, c2) = (self.sigma[t], self.c2);
        let eps = BOUND_TOLERANCE * c2;
        s > eps && s < c2 - eps && (s - c2 / 2.0).abs() > eps
    }

    fn swap(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.kernel.swap(a, b);
        self.sigma.swap(a, b);
        self.cache.swap(a, b);
        self.positive.swap(a, b);
        self.diagonal.swap(a, b);
        self.moved.swap(a, b);
        self.row.swap(a, b);
        self.position[self.row[a]] = a;
        self.position[self.row[b]] = b;
    }

    /// The current `f̂` at position `t`.
    fn value(&mut self, t: usize) -> f64 {
        if t < self.len {
            return self.cache[t];
        }
        let moved = if self.any_moved { &self.moved[..self.len] } else { &[] };
        self.kernel.outside_value(t, self.len, self.cache[t], moved)
    }

    /// Makes row `r` active.
    fn join(&mut self, r: usize) {
        let t = self.position[r];
        if t < self.len {
            return;
        }
        let value = self.value(t);
        let end = self.len;
        self.swap(t, end);
        self.cache[end] = value;
        self.moved[end] = 0.0;
        self.len += 1;
    }

    /// Makes row `r` inactive when it is on a bound and the kernel can read it from outside.
    fn release(&mut self, r: usize) {
        let t = self.position[r];
        if t >= self.len || self.free(t) {
            return;
        }
        if let Some(stored) = self.kernel.detach(t, self.cache[t]) {
            let last = self.len - 1;
            self.swap(t, last);
            self.cache[last] = stored;
            self.len = last;
        }
    }

    /// Brings every stored `f̂` up to date, then makes the non-bound rows the active prefix.
    fn refresh(&mut self) {
        if self.any_moved {
            self.kernel.refresh(self.len, &self.moved[..self.len], &mut self.cache);
            self.moved[..self.len].fill(0.0);
            self.any_moved = false;
        }
        let mut k = 0;
        for t in 0..self.sigma.len() {
            if self.free(t) {
                self.swap(t, k);
                k += 1;
            }
        }
        self.len = k;
    }

    /// The critical values over the active prefix, indexed by row.
    fn prefix_critical(&self) -> Critical {
        let len = self.len;
        critical_values(&self.sigma[..len], &self.cache[..len], self.c2)
            .map_indices(|t| self.row[t])
    }

    /// Tries the candidate pairs (of rows), largest gap first, making each pair active before
    /// its step; the first step that lowers Φ is taken. Rows that did not move stay active only
    /// as long as the kernel needs.
    fn step(&mut self, candidates: &mut [(f64, (usize, usize))], tol: f64) -> Option<Taken> {
        candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
        let n = self.sigma.len();
        for &(gap, (a, b)) in candidates.iter() {
            if gap <= tol {
                break;
            }
            if a == b || a >= n || b >= n {
                continue;
            }
            self.join(a);
            self.join(b);
            let (i, j) = (self.position[a], self.position[b]);
            let duals = Duals {
                sigma: &mut self.sigma,
                cache: &mut self.cache,
                diagonal: &self.diagonal,
                c2: self.c2,
                not_convex: &mut self.not_convex,
            };
            let taken = take_step(&mut *self.kernel, &mut [(gap, (i, j))], tol, self.len, duals);
            if let Some(taken) = taken {
                self.moved[i] += taken.delta.0;
                self.moved[j] += taken.delta.1;
                self.any_moved = true;
            }
            self.release(a);
            self.release(b);
            if taken.is_some() {
                return taken;
            }
        }
        None
    }
}

/// The counters and limits of a solve, shared by its passes.
struct Run<'o, 'm> {
    options: &'o SolveOptions,
    monitor: &'m mut dyn Monitor,
    started: Instant,
    iteration: u64,
    /// [`SolveOptions::iteration_limit`] of the problem's rows.
    limit: u64,
    objective: f64,
    stats: SolveStats,
}

impl Run<'_, '_> {
    /// Examines the row `r` against `thresholds` and steps its worst pair. `Ok(true)` after a
    /// step, `Err(status)` when a limit stops the solve.
    fn examine<K: UnlabeledKernel>(
        &mut self,
        rows: &mut Rows<'_, K>,
        r: usize,
        thresholds: &mut Critical,
    ) -> Result<bool, Status> {
        let tol = self.options.tol;
        let t = rows.position[r];
        let me = Critical::single(r, rows.sigma[t], rows.value(t), rows.c2);
        let mut candidates = me.cross_gaps(thresholds);
        if !candidates.iter().any(|c| c.0 > tol) {
            *thresholds = thresholds.merge(me);
            return Ok(false);
        }
        if self.iteration >= self.limit {
            return Err(Status::MaxIterations);
        }
        let Some(taken) = rows.step(&mut candidates, tol) else {
            *thresholds = thresholds.merge(me);
            return Ok(false);
        };
        self.stepped(rows, taken)?;
        *thresholds = rows.prefix_critical();
        Ok(true)
    }

    /// Counts a step, then checks the limits every `report_every` steps.
    fn stepped<K: UnlabeledKernel>(
        &mut self,
        rows: &mut Rows<'_, K>,
        taken: Taken,
    ) -> Result<(), Status> {
        self.iteration += 1;
        self.objective += taken.objective_change;
        if taken.objective_change > 0.0 {
            self.stats.objective_increases += 1;
        }
        if !self.iteration.is_multiple_of(self.options.report_every) {
            return Ok(());
        }
        let gap = violation(&rows.prefix_critical(), 0.0).unwrap_or(0.0);
        let progress = || Progress {
            iteration: self.iteration,
            gap,
            objective: self.objective,
            active_size: rows.len,
            cache: rows.kernel.cache_stats(),
        };
        match checkpoint(self.options, self.started, &mut *self.monitor, progress) {
            Some(status) => Err(status),
            None => Ok(()),
        }
    }

    /// One pass over every row; the number of steps taken.
    fn whole_pass<K: UnlabeledKernel>(&mut self, rows: &mut Rows<'_, K>) -> Result<u64, Status> {
        let mut thresholds = rows.prefix_critical();
        let mut changed = 0;
        for r in 0..rows.sigma.len() {
            changed += u64::from(self.examine(rows, r, &mut thresholds)?);
        }
        Ok(changed)
    }

    /// One pass over the non-bound rows; the number of steps taken.
    fn non_bound_pass<K: UnlabeledKernel>(
        &mut self,
        rows: &mut Rows<'_, K>,
    ) -> Result<u64, Status> {
        let free: Vec<usize> =
            (0..rows.len).filter(|&t| rows.free(t)).map(|t| rows.row[t]).collect();
        let mut thresholds = rows.prefix_critical();
        let mut changed = 0;
        for r in free {
            let t = rows.position[r];
            if t < rows.len && rows.free(t) {
                changed += u64::from(self.examine(rows, r, &mut thresholds)?);
            }
        }
        Ok(changed)
    }

    /// Alternates the passes until a whole-set pass starts τ-optimal (or a limit stops it).
    fn alternate<K: UnlabeledKernel>(&mut self, rows: &mut Rows<'_, K>) -> Status {
        let tol = self.options.tol;
        let mut examine_all = true;
        loop {
            if !examine_all {
                match self.non_bound_pass(rows) {
                    Ok(changed) => examine_all = changed == 0,
                    Err(status) => return status,
                }
                continue;
            }
            rows.refresh();
            self.stats.min_active_size = self.stats.min_active_size.min(rows.len as u64);
            // Indexed by row: a pass reorders the positions.
            let critical =
                critical_values(&rows.sigma, &rows.cache, rows.c2).map_indices(|t| rows.row[t]);
            if violation(&critical, tol).is_none() {
                return Status::Converged;
            }
            self.stats.gradient_reconstructions += 1;
            match self.whole_pass(rows) {
                Ok(0) => {
                    // Nothing moved, so `critical` still holds; its pairs are stuck at
                    // rounding level unless the full scheme's step moves one.
                    let mut gaps = critical.gaps();
                    if self.iteration >= self.limit {
                        return Status::MaxIterations;
                    }
                    let Some(taken) = rows.step(&mut gaps, tol) else {
                        return Status::Stalled;
                    };
                    if let Err(status) = self.stepped(rows, taken) {
                        return status;
                    }
                }
                Ok(_) => {}
                Err(status) => return status,
            }
            examine_all = false;
        }
    }
}

/// Solves `problem` by the paper's scheme (see the module documentation).
pub(super) fn solve<K: UnlabeledKernel>(
    problem: &mut PuProblem<K>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Solution {
    let started = Instant::now();
    let n = problem.kernel.size();
    let c2 = problem.c2;
    let sigma = paper_start(&problem.positive_term, problem.total, c2);
    let mut cache = problem.positive_term.clone();
    problem.kernel.subtract_weighted_columns(&sigma, &mut cache);
    let start_objective = objective(&sigma, &cache, &problem.positive_term, c2);
    let not_convex = problem.kernel.known_positive_semidefinite() == Some(false);
    let mut rows = Rows {
        diagonal: problem.kernel.diagonal(),
        kernel: &mut problem.kernel,
        c2,
        sigma,
        cache,
        positive: problem.positive_term.clone(),
        row: (0..n).collect(),
        position: (0..n).collect(),
        moved: vec![0.0; n],
        any_moved: false,
        len: n,
        not_convex,
    };
    let mut run = Run {
        options,
        monitor,
        started,
        iteration: 0,
        limit: options.iteration_limit(n),
        objective: start_objective,
        stats: SolveStats { min_active_size: n as u64, ..SolveStats::default() },
    };
    let status = run.alternate(&mut rows);

    // Every f̂ current, for the gap, the bias and the objective.
    if rows.any_moved {
        rows.kernel.refresh(rows.len, &rows.moved[..rows.len], &mut rows.cache);
    }
    let critical = critical_values(&rows.sigma, &rows.cache, c2);
    let gap = critical.gaps().iter().map(|g| g.0).fold(0.0, f64::max);
    let solution_bias = bias(&rows.sigma, &rows.cache, c2, &critical);
    let solution_objective = objective(&rows.sigma, &rows.cache, &rows.positive, c2);
    let status = checked_status(
        status,
        rows.not_convex,
        &rows.sigma,
        &rows.cache,
        solution_bias,
        solution_objective,
    );
    // Back to the problem's order, in the kernel too (it may be solved again).
    for t in 0..n {
        while rows.row[t] != t {
            let home = rows.row[t];
            rows.swap(t, home);
        }
    }
    let mut stats = run.stats;
    stats.cache = rows.kernel.cache_stats();
    Solution {
        objective: solution_objective,
        bias: solution_bias,
        x: rows.sigma,
        gap,
        iterations: run.iteration,
        status,
        stats,
        gradient: None,
    }
}

/// The start: the rows ranked by `p_u` (highest first; ties by row) take `c2/2` each while
/// `Σσ = total` allows, the next one the remainder; when every row holds `c2/2` (`π > 1/2`), the
/// highest rise to `c2` the same way. All rows but one are on a bound. The counts come from one
/// division, and a remainder within `1e−12·c2` of `0` or `c2/2` is snapped onto it: a sum over
/// the rows would leave a row a rounding error off `c2/2`, a "free" row that the bias (16)
/// would then be read from (at `π = 1/2`, where every row belongs on `c2/2`, it moved the bias
/// of Isolet's RBF problems by up to 1).
fn paper_start(positive: &[f64], total: f64, c2: f64) -> Vec<f64> {
    let n = positive.len();
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by(|&a, &b| positive[b].total_cmp(&positive[a]).then(a.cmp(&b)));
    let (half, eps) = (c2 / 2.0, BOUND_TOLERANCE * c2);
    let (base, extra) =
        if total <= n as f64 * half { (0.0, total) } else { (half, total - n as f64 * half) };
    let mut count = ((extra / half).floor() as usize).min(n);
    let mut rest = extra - count as f64 * half;
    if half - rest <= eps && count < n {
        count += 1;
        rest = 0.0;
    }
    let mut sigma = vec![base; n];
    for &u in &ranked[..count] {
        sigma[u] += half;
    }
    if count < n && rest > eps {
        sigma[ranked[count]] += rest;
    }
    sigma
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_is_feasible_and_almost_all_bound() {
        let positive: Vec<f64> = (0..10).map(|k| f64::from(k % 4)).collect();
        let c2 = 0.25;
        // π = 0.17: the three highest scores (rows 3 and 7 at 3, row 2 at 2) at c2/2, row 6
        // (score 2) at the remainder 0.4 c2/2, the rest at 0.
        let total = c2 * 1.7;
        let sigma = paper_start(&positive, total, c2);
        assert!((sigma.iter().sum::<f64>() - total).abs() <= 1e-15);
        let half: Vec<usize> = (0..10).filter(|&u| sigma[u] == c2 / 2.0).collect();
        assert_eq!(half, vec![2, 3, 7]);
        assert!((sigma[6] - 0.2 * c2).abs() <= 1e-15);
        assert_eq!(sigma.iter().filter(|&&s| s == 0.0).count(), 6);
        // π = 0.62: every row at c2/2 or more, rows 3, 7 at c2, row 2 at c2/2 + 0.4 c2/2.
        let total = c2 * 6.2;
        let sigma = paper_start(&positive, total, c2);
        assert!((sigma.iter().sum::<f64>() - total).abs() <= 1e-14);
        assert_eq!((0..10).filter(|&u| sigma[u] == c2).collect::<Vec<_>>(), vec![3, 7]);
        assert!((sigma[2] - 0.7 * c2).abs() <= 1e-15);
        assert_eq!(sigma.iter().filter(|&&s| s == c2 / 2.0).count(), 7);
        // π = 1/2 with a total that is not a multiple of c2/2 in floating point: every row
        // exactly on c2/2, none left a rounding error off it.
        let (n, lam) = (540, 1e-4);
        let c2 = 1.0 / (2.0 * lam * n as f64);
        let sigma = paper_start(&vec![0.0; n], 0.5 / (2.0 * lam), c2);
        assert!(sigma.iter().all(|&s| s == c2 / 2.0));
    }

    #[test]
    fn examine_example_has_the_c4_candidates() {
        // Digest §2.3: a row in D1 ∩ D3 with f̂ = 0 and the examined row in D2 ∩ D3 with
        // f̂ = 5 (c2 = 1). The authors' candidates see no violation; C4's does (5 − 0 − 2 = 3).
        let thresholds = Critical::single(0, 0.2, 0.0, 1.0);
        let me = Critical::single(1, 0.8, 5.0, 1.0);
        let gaps = me.cross_gaps(&thresholds);
        let best =
            gaps.iter().copied().fold(
                (f64::NEG_INFINITY, (0, 0)),
                |a, b| {
                    if b.0 > a.0 {
                        b
                    } else {
                        a
                    }
                },
            );
        assert!((best.0 - 3.0).abs() < 1e-12, "{gaps:?}");
        assert_eq!(best.1, (1, 0));
        // Without the two C4 entries (the last two), nothing exceeds τ = 1e-3.
        assert!(gaps[..6].iter().all(|g| g.0 <= 1e-3), "{gaps:?}");
    }
}
