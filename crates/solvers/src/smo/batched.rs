//! The batched engine: the SMO engine's problem solved in batches of many variables, for machines
//! with many cores and problems whose columns are costly.
//!
//! LIBSVM's engine takes one pair per iteration, and each iteration's `O(l)` work (a column, the
//! gradient update, the scans) is a few parallel passes of a few microseconds each: at 16
//! threads the threads' meetings and the serial steps between them bound the speed-up (Amdahl),
//! and each column is one pass over the data. This engine is the decomposition of Joachims
//! ("Making large-scale SVM learning practical", 1999) with the subproblem solver of
//! ThunderSVM (Wen et al., JMLR 19, 2018) and oneDAL: each **batch**
//!
//! 1. selects a working set `B` of at most `q` variables ([`select_batch`]): the most violating
//!    of `I_up` (largest `−y_t G_t`) and of `I_low` (smallest), alternately, per equality
//!    constraint (one group for C-SVC, ε-SVR and one-class; one per label for the ν
//!    formulations), a quarter of `B` new and the rest kept from the previous batch, oldest out
//!    first (their columns are resident, and keeping them damps the zig-zag of a working set
//!    that changes wholly; ThunderSVM keeps half);
//! 2. stops when `m(α) − M(α) < tol` over **all** variables, LIBSVM's stopping rule on the full
//!    problem (Fan, Chen & Lin 2005, eq. (9); per label for ν: Chang & Lin 2001);
//! 3. makes the columns of `B` resident as one block ([`QMatrixPasses::prefetch`]: one GEMM, one pass
//!    over the data for all of them) and reads `Q_BB` from them ([`QMatrixPasses::submatrix`]);
//! 4. solves the subproblem `min_{α_B} ½α_Bᵀ Q_BB α_B + (G_B − Q_BB α_B)ᵀ α_B` (the other
//!    variables fixed) on one thread with the engine's own pair steps: WSS 2 ([`Strategy`]),
//!    the analytic step ([`super::step`]), the local gradient update; until its own gap is
//!    below `max(tol, gap/5)` or `LOCAL_STEPS_PER_VARIABLE · |B|` steps (ThunderSVM's local
//!    rule); every step keeps the equality constraints, so `α` stays feasible;
//! 5. adds `Σ_{k∈B} Q_{:,k} Δα_k` to the gradient of every active variable in one pass
//!    ([`QMatrixPasses::add_columns`]).
//!
//! With `shrinking` (the default) and at least
//! [`batched_shrinking_from`](crate::SolveOptions::batched_shrinking_from)
//! variables, the active set is shrunk as LIBSVM's engine shrinks it ([`Shrinker::shrink`](super::shrinking::Shrinker::shrink),
//! every `min(l, 1000)` pair steps), the batches are taken from the active positions only, `Ḡ`
//! is kept for the shrunk variables' gradient (one more pass per batch, for the variables that
//! entered or left their upper bound), and the gradient is rebuilt when the active set is
//! optimal, near the optimum and at the end: in LIBSVM's cheaper order, but with blocks of
//! columns where LIBSVM's engine takes one column at a time (`reconstruct_in_blocks`). ρ (and
//! `r`) come from the same [`Strategy::offset`] as LIBSVM's. Every choice is made on one thread
//! from values that do not depend on the thread count (the passes sum every position in a
//! fixed order), so neither does the model. The iterates differ from LIBSVM's: the optimum is
//! the same within `tol` (the
//! oracle tests run with either engine).

use kernelkit_kernels::team::TeamGuard;
use kernelkit_kernels::{CacheStats, QMatrix, QMatrixPasses};

use super::gradient_update::update_gradient_and_scan;
use super::shrinking::Shrinker;
use super::state::Variables;
use super::strategy::Strategy;
use super::{step_and_update, Run};
use crate::protocol::{Monitor, NoMonitor, Progress, Solution, SolveStats, Status};

/// Most local steps per variable of `B` in one batch.
const LOCAL_STEPS_PER_VARIABLE: usize = 4;

/// A batch after the first takes `size / FRESH_DIVISOR` new positions: a quarter was faster
/// than a half or an eighth (measurements: `docs/performance.md`, "The batched engine's
/// constants").
const FRESH_DIVISOR: usize = 4;

/// The local tolerance is `max(tol, gap · LOCAL_TOL_FRACTION)`: 0.2 solved the SVR problems
/// measured faster than 0.1 (a9a slightly slower), and 0.3 was no faster (measurements:
/// `docs/performance.md`, "The batched engine's constants").
const LOCAL_TOL_FRACTION: f64 = 0.2;

impl<Q: QMatrixPasses, S: Strategy> Run<'_, Q, S> {
    /// Solves in batches of at most `size` variables (see the module documentation).
    pub(super) fn solve_batched(
        &mut self,
        monitor: &mut dyn Monitor,
        size: usize,
    ) -> (Solution, f64) {
        let _team = TeamGuard::enter();
        let l = self.v.len();
        let tol = self.options.tol;
        let shrinking = self.options.shrinking && l >= self.options.batched_shrinking_from;
        let size = size.clamp(2, l.max(2));
        if !self.initialize_gradient_in_blocks(&*monitor, size, shrinking) {
            return (self.interrupted_solution(0), f64::NAN);
        }
        let mut objective = self.v.objective();
        let mut stats = SolveStats { min_active_size: l as u64, ..SolveStats::default() };
        let mut shrinker = Shrinker::default();
        let mut active_size = l;
        // Pair steps since the last shrinking (LIBSVM shrinks every min(l, 1000) steps).
        let shrink_every = l.min(1000) as u64;
        let mut since_shrinking = 0u64;
        let mut iteration: u64 = 0;
        let max_iter = self.options.iteration_limit(l);
        let mut gap = f64::INFINITY;
        let mut status = Status::Converged;
        let mut previous: Vec<usize> = Vec::new();
        let mut sub_q = SubQ::default();
        loop {
            let (mut gap_now, mut set) = select_batch::<S>(&self.v, active_size, size, &previous);
            if shrinking && since_shrinking >= shrink_every {
                since_shrinking = 0;
                // LIBSVM's unshrinking near the optimum, with the reconstruction in blocks
                // (`Shrinker::shrink` then finds it done).
                if !shrinker.unshrunk && gap_now <= 10.0 * tol && active_size < l {
                    shrinker.unshrunk = true;
                    if !self.reconstruct_in_blocks(&mut shrinker, active_size, size, &*monitor) {
                        status = Status::Stopped;
                        break;
                    }
                    active_size = l;
                }
                shrinker.unshrunk |= gap_now <= 10.0 * tol;
                if !self.shrink(&mut shrinker, &mut active_size, tol, &*monitor, &mut stats) {
                    status = Status::Stopped;
                    break;
                }
                (gap_now, set) =
                    select_after_move::<S>(&self.v, active_size, size, &mut previous, &mut sub_q);
            }
            gap = gap_now;
            if gap < tol {
                if active_size == l {
                    break;
                }
                // Optimal on the active set: check every variable.
                if !self.reconstruct_in_blocks(&mut shrinker, active_size, size, &*monitor) {
                    status = Status::Stopped;
                    break;
                }
                active_size = l;
                (gap, set) =
                    select_after_move::<S>(&self.v, active_size, size, &mut previous, &mut sub_q);
                if gap < tol {
                    break;
                }
                since_shrinking = shrink_every; // shrink again before the next batch
            }
            if iteration >= max_iter {
                status = Status::MaxIterations;
                break;
            }
            let progress =
                Progress { iteration, gap, objective, active_size, cache: self.q.cache_stats() };
            // The monitor hears of every batch but the first.
            let report = if stats.batches > 0 { &mut *monitor } else { &mut NoMonitor };
            if let Some(end) = self.time_or_report(&progress, report) {
                status = end;
                break;
            }
            stats.batches += 1;
            self.q.prefetch(&set, active_size);
            sub_q.load(self.q, &self.v, &set);
            let mut sub = self.v.subset(&set);
            let budget = max_iter - iteration;
            let steps = (LOCAL_STEPS_PER_VARIABLE * set.len()) as u64;
            let local = solve_subproblem::<S>(
                &mut sub,
                &mut sub_q,
                tol.max(gap * LOCAL_TOL_FRACTION),
                steps.min(budget),
            );
            iteration += local.steps;
            since_shrinking += local.steps;
            objective += local.objective_change;
            stats.objective_increases += local.increases;
            if !local.finite {
                status = Status::NumericalError;
                break;
            }
            self.apply_batch(&set, &sub.alpha, active_size, shrinking);
            previous = set;
        }
        if status == Status::Stopped && monitor.interrupted() {
            return (self.interrupted_solution(iteration), f64::NAN);
        }
        // Make G exact everywhere, then compute ρ, the objective and the final violation.
        if active_size < l
            && !self.reconstruct_in_blocks(&mut shrinker, active_size, size, &*monitor)
        {
            return (self.interrupted_solution(iteration), f64::NAN);
        }
        stats.gradient_reconstructions = shrinker.reconstructions;
        self.solution(status, gap, iteration, stats)
    }

    /// LIBSVM's gradient reconstruction, `G_t = Ḡ_t + p_t + Σ_{j free} α_j Q_tj` for the
    /// inactive `t ≥ active_size`, in LIBSVM's cheaper order, by blocks of `size` columns where
    /// LIBSVM's engine takes one column (or 16) at a time: the columns of the inactive positions
    /// over the active ones (cached, as LIBSVM's), each summed against the free `α`
    /// ([`QMatrixPasses::submatrix`]); or the free columns over the inactive positions, computed
    /// outside the cache and added one block per pass ([`QMatrixPasses::add_columns_from`]). Counts
    /// the reconstruction; false when interrupted (`G` is then incomplete).
    fn reconstruct_in_blocks(
        &mut self,
        shrinker: &mut Shrinker,
        active_size: usize,
        size: usize,
        monitor: &dyn Monitor,
    ) -> bool {
        let l = self.v.len();
        shrinker.reconstructions += 1;
        let free: Vec<usize> = (0..active_size).filter(|&j| self.v.is_free(j)).collect();
        let alpha_free: Vec<f64> = free.iter().map(|&j| self.v.alpha[j]).collect();
        let mut sums = vec![0.0; l - active_size];
        if free.len() * l > 2 * active_size * (l - active_size) {
            let inactive: Vec<usize> = (active_size..l).collect();
            let mut block = Vec::new();
            for group in inactive.chunks(size) {
                if monitor.interrupted() {
                    return false;
                }
                self.q.prefetch(group, active_size);
                block.resize(free.len() * group.len(), 0.0);
                self.q.submatrix(&free, group, &mut block);
                for (c, &t) in group.iter().enumerate() {
                    let column = &block[c * free.len()..(c + 1) * free.len()];
                    sums[t - active_size] =
                        column.iter().zip(&alpha_free).map(|(&q, &a)| a * f64::from(q)).sum();
                }
            }
        } else {
            for (group, scales) in free.chunks(size).zip(alpha_free.chunks(size)) {
                if monitor.interrupted() {
                    return false;
                }
                self.q.add_columns_from(group, scales, active_size, &mut sums);
            }
        }
        for (t, sum) in (active_size..l).zip(&sums) {
            self.v.gradient[t] = self.v.gradient_bar[t] + self.v.p[t] + sum;
        }
        true
    }

    /// Applies a batch's new `α` (`alpha[r]` for position `set[r]`): `G += Σ Q_{:,k} Δα_k` over
    /// the active positions in one pass, the bounds, and (when shrinking) `Ḡ ±= u_k Q_{:,k}`
    /// over every position for the variables that entered (+) or left (−) their upper bound.
    fn apply_batch(&mut self, set: &[usize], alpha: &[f64], active_size: usize, shrinking: bool) {
        let (changed, deltas): (Vec<usize>, Vec<f64>) = set
            .iter()
            .zip(alpha)
            .filter(|&(&k, &a)| a != self.v.alpha[k])
            .map(|(&k, &a)| (k, a - self.v.alpha[k]))
            .unzip();
        self.q.add_columns(&changed, &deltas, &mut self.v.gradient[..active_size]);
        let (mut entered_or_left, mut scales) = (Vec::new(), Vec::new());
        for (&k, &a) in set.iter().zip(alpha) {
            let was_upper = self.v.is_upper(k);
            self.v.alpha[k] = a;
            self.v.update_bound(k);
            if shrinking && was_upper != self.v.is_upper(k) {
                entered_or_left.push(k);
                scales.push(if was_upper { -self.v.upper[k] } else { self.v.upper[k] });
            }
        }
        if !entered_or_left.is_empty() {
            self.q.prefetch(&entered_or_left, self.v.len());
            self.q.add_columns(&entered_or_left, &scales, &mut self.v.gradient_bar);
        }
    }

    /// `G = p + Σ_{α_i > 0} α_i Q_{:,i}` (unless given) and, when shrinking,
    /// `Ḡ = Σ_{α_i = u_i} u_i Q_{:,i}`, the columns `size` at a time (one block and one pass
    /// each). False when interrupted.
    fn initialize_gradient_in_blocks(
        &mut self,
        monitor: &dyn Monitor,
        size: usize,
        shrinking: bool,
    ) -> bool {
        let l = self.v.len();
        let scales = self.start_gradient();
        let needed: Vec<usize> =
            (0..l).filter(|&i| scales[i] != 0.0 || (shrinking && self.v.is_upper(i))).collect();
        for group in needed.chunks(size) {
            if monitor.interrupted() {
                return false;
            }
            self.q.prefetch(group, l);
            let group_scales: Vec<f64> = group.iter().map(|&i| scales[i]).collect();
            if group_scales.iter().any(|&s| s != 0.0) {
                self.q.add_columns(group, &group_scales, &mut self.v.gradient);
            }
            let upper: Vec<usize> =
                group.iter().copied().filter(|&i| shrinking && self.v.is_upper(i)).collect();
            if !upper.is_empty() {
                let scales: Vec<f64> = upper.iter().map(|&i| self.v.upper[i]).collect();
                self.q.add_columns(&upper, &scales, &mut self.v.gradient_bar);
            }
        }
        true
    }
}

/// What one subproblem solve did.
struct LocalOutcome {
    steps: u64,
    objective_change: f64,
    increases: u64,
    finite: bool,
}

/// Pair steps on the subproblem until its gap is below `tol` or `max_steps` were taken.
fn solve_subproblem<S: Strategy>(
    v: &mut Variables,
    q: &mut SubQ,
    tol: f64,
    max_steps: u64,
) -> LocalOutcome {
    let n = v.len();
    let mut outcome = LocalOutcome { steps: 0, objective_change: 0.0, increases: 0, finite: true };
    let mut first = None;
    while outcome.steps < max_steps {
        let selection = match first.take() {
            Some(first) => S::select_after_first(q, v, n, tol, first),
            None => S::select(q, v, n, tol),
        };
        let Some((i, j)) = selection.pair else { break };
        let q_ij = f64::from(q.column(i, n)[j]);
        let (step, update) = step_and_update(v, (i, j), q_ij, (v.diagonal[i], v.diagonal[j]));
        let (q_i, q_j) = q.column_pair(i, j, n);
        first = Some(update_gradient_and_scan::<S>(v, n, q_i, q_j, update));
        outcome.steps += 1;
        outcome.objective_change += step.objective_change;
        if step.objective_change > step.increase_threshold {
            outcome.increases += 1;
        }
        if !(v.alpha[i].is_finite() && v.alpha[j].is_finite() && step.objective_change.is_finite())
        {
            outcome.finite = false;
            break;
        }
    }
    outcome
}

/// [`select_batch`] after the positions moved (shrinking, or every position made active
/// again): the last batch and the sub-matrix loaded for it no longer name the same variables,
/// so both are forgotten and the batch is chosen afresh.
fn select_after_move<S: Strategy>(
    v: &Variables,
    len: usize,
    size: usize,
    previous: &mut Vec<usize>,
    sub_q: &mut SubQ,
) -> (f64, Vec<usize>) {
    previous.clear();
    sub_q.forget();
    select_batch::<S>(v, len, size, previous)
}

/// The working set of a batch and the maximal violation `m(α) − M(α)` over the positions
/// `0..len` (the largest over the groups). Each group offers two candidate lists, its violating `I_up`
/// positions by decreasing `−y_t G_t` and its violating `I_low` positions by increasing
/// `−y_t G_t` (ties to the larger index, as LIBSVM's scans); the lists are taken from in turn,
/// one position each, skipping those already chosen, until `size / 4` new positions are chosen
/// (`size` in the first batch); the positions of the previous set fill the rest, in their
/// order, so the oldest leave first. The candidates are found by one parallel scan over fixed
/// chunks, each keeping its own best; the orders are total, so the lists do not depend on the
/// thread count.
pub(super) fn select_batch<S: Strategy>(
    v: &Variables,
    len: usize,
    size: usize,
    previous: &[usize],
) -> (f64, Vec<usize>) {
    let fresh = if previous.is_empty() { size } else { (size / FRESH_DIVISOR).max(2) };
    let found = super::working_set::chunked(
        len,
        |lo, hi| candidates::<S>(v, lo, hi, fresh),
        merge_candidates,
        Vec::new(),
    );
    let mut gap = f64::NEG_INFINITY;
    let mut lists: Vec<Vec<(f64, usize)>> = Vec::with_capacity(2 * S::GROUPS.len());
    for mut group in found {
        keep_first(&mut group.up, fresh, up_order);
        keep_first(&mut group.low, fresh, low_order);
        group.up.sort_unstable_by(up_order);
        group.low.sort_unstable_by(low_order);
        gap = gap.max(group.m - group.big_m);
        // Only a violating pair moves anything: t ∈ I_up with −y_t G_t > M, t ∈ I_low below m.
        lists.push(group.up.into_iter().filter(|&(value, _)| value > group.big_m).collect());
        lists.push(group.low.into_iter().filter(|&(value, _)| value < group.m).collect());
    }
    let mut chosen = vec![false; v.len()];
    let mut set = Vec::with_capacity(size);
    let mut next = vec![0usize; lists.len()];
    while set.len() < fresh {
        let mut took = false;
        for (list, at) in lists.iter().zip(&mut next) {
            while let Some(&(_, t)) = list.get(*at) {
                *at += 1;
                if !chosen[t] {
                    chosen[t] = true;
                    set.push(t);
                    took = true;
                    break;
                }
            }
            if set.len() == fresh {
                break;
            }
        }
        if !took {
            break;
        }
    }
    for &t in previous {
        if set.len() == size {
            break;
        }
        if !chosen[t] {
            chosen[t] = true;
            set.push(t);
        }
    }
    (gap, set)
}

/// One group's extremes `m = max_{I_up} −y_t G_t`, `M = min_{I_low} −y_t G_t` and its best
/// `k` candidates on each side, over some positions.
#[derive(Debug, Clone)]
struct GroupCandidates {
    m: f64,
    big_m: f64,
    up: Vec<(f64, usize)>,
    low: Vec<(f64, usize)>,
}

/// `I_up` by decreasing `−y_t G_t`, ties to the larger index.
fn up_order(a: &(f64, usize), b: &(f64, usize)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0).then(b.1.cmp(&a.1))
}

/// `I_low` by increasing `−y_t G_t`, ties to the larger index.
fn low_order(a: &(f64, usize), b: &(f64, usize)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(b.1.cmp(&a.1))
}

/// The candidates of every group over positions `lo..hi`.
fn candidates<S: Strategy>(v: &Variables, lo: usize, hi: usize, k: usize) -> Vec<GroupCandidates> {
    let empty = GroupCandidates {
        m: f64::NEG_INFINITY,
        big_m: f64::INFINITY,
        up: Vec::new(),
        low: Vec::new(),
    };
    let mut groups = vec![empty; S::GROUPS.len()];
    for t in lo..hi {
        let Some(g) = S::GROUPS.iter().position(|labels| labels.hold(v.y[t])) else { continue };
        let group = &mut groups[g];
        let value = -f64::from(v.y[t]) * v.gradient[t];
        let (in_up, in_low) = membership(v, t);
        if in_up {
            group.m = group.m.max(value);
            group.up.push((value, t));
        }
        if in_low {
            group.big_m = group.big_m.min(value);
            group.low.push((value, t));
        }
    }
    for group in &mut groups {
        keep_first(&mut group.up, k, up_order);
        keep_first(&mut group.low, k, low_order);
    }
    groups
}

/// The candidates of two sets of positions together: every candidate of both (the best are
/// kept once, after the last merge: the merges run on the owner's thread between passes, where
/// a selection and a sort per merge were a measurable share of the time; measurements:
/// `docs/performance.md`, "The batched engine's constants").
fn merge_candidates(a: Vec<GroupCandidates>, b: Vec<GroupCandidates>) -> Vec<GroupCandidates> {
    if a.is_empty() {
        return b;
    }
    a.into_iter()
        .zip(b)
        .map(|(mut a, b)| {
            a.m = a.m.max(b.m);
            a.big_m = a.big_m.min(b.big_m);
            a.up.extend(b.up);
            a.low.extend(b.low);
            a
        })
        .collect()
}

/// Keeps the first `k` of `list` in the order `order` (a total order: which ones does not
/// depend on how the list was put together), in no particular order.
fn keep_first(
    list: &mut Vec<(f64, usize)>,
    k: usize,
    order: fn(&(f64, usize), &(f64, usize)) -> std::cmp::Ordering,
) {
    if list.len() > k && k > 0 {
        list.select_nth_unstable_by(k - 1, order);
        list.truncate(k);
    }
}

/// `(t ∈ I_up, t ∈ I_low)`.
#[inline]
fn membership(v: &Variables, t: usize) -> (bool, bool) {
    let positive = v.y[t] == 1;
    let up = if positive { !v.is_upper(t) } else { !v.is_lower(t) };
    let low = if positive { !v.is_lower(t) } else { !v.is_upper(t) };
    (up, low)
}

impl Variables {
    /// The variables at `positions`, as a problem of their own (`G` and `α` copied; `p` is not
    /// needed by the steps).
    fn subset(&self, positions: &[usize]) -> Variables {
        let pick = |values: &[f64]| positions.iter().map(|&k| values[k]).collect::<Vec<f64>>();
        let mut sub = Variables::new(
            pick(&self.diagonal),
            positions.iter().map(|&k| self.y[k]).collect(),
            pick(&self.alpha),
            vec![0.0; positions.len()],
            pick(&self.upper),
            self.simd,
        );
        sub.gradient = pick(&self.gradient);
        sub
    }
}

/// `Q_BB` of a batch, dense and column-major: the [`QMatrix`] of the subproblem. Loaded
/// incrementally: the entries between positions of the previous batch are copied, and only
/// the columns of the new positions are read from `Q` (one rectangular
/// [`QMatrixPasses::submatrix`]); the rows of the new positions in the kept columns are those
/// columns' entries by symmetry.
#[derive(Debug, Default)]
struct SubQ {
    n: usize,
    values: Vec<f32>,
    diagonal: Vec<f64>,
    /// The positions of the batch loaded last.
    set: Vec<usize>,
    /// `index_of[t]` = the index of position `t` in `set` (`u32::MAX`: not in it).
    index_of: Vec<u32>,
}

impl SubQ {
    /// Forgets the last batch (its positions moved).
    fn forget(&mut self) {
        for &t in &self.set {
            self.index_of[t] = u32::MAX;
        }
        self.set.clear();
        self.n = 0;
    }

    fn load<Q: QMatrixPasses>(&mut self, q: &mut Q, v: &Variables, set: &[usize]) {
        const ABSENT: u32 = u32::MAX;
        let n = set.len();
        if self.index_of.len() != v.len() {
            self.index_of = vec![ABSENT; v.len()];
        }
        let (old_n, old_values) = (self.n, std::mem::take(&mut self.values));
        // The index of each position among the new ones (`ABSENT` for a kept position).
        let mut new_index = vec![ABSENT; n];
        let mut new_positions = Vec::new();
        for (r, &t) in set.iter().enumerate() {
            if self.index_of[t] == ABSENT {
                new_index[r] = new_positions.len() as u32;
                new_positions.push(t);
            }
        }
        let mut block = vec![0.0f32; n * new_positions.len()];
        q.submatrix(set, &new_positions, &mut block);
        let mut values = vec![0.0f32; n * n];
        for (c, &k) in set.iter().enumerate() {
            let column = &mut values[c * n..(c + 1) * n];
            if new_index[c] != ABSENT {
                let fresh = new_index[c] as usize;
                column.copy_from_slice(&block[fresh * n..(fresh + 1) * n]);
                continue;
            }
            let old_c = self.index_of[k] as usize;
            for (r, &t) in set.iter().enumerate() {
                column[r] = match new_index[r] {
                    ABSENT => old_values[old_c * old_n + self.index_of[t] as usize],
                    fresh => block[fresh as usize * n + c],
                };
            }
        }
        for &t in &self.set {
            self.index_of[t] = ABSENT;
        }
        for (r, &t) in set.iter().enumerate() {
            self.index_of[t] = r as u32;
        }
        self.set = set.to_vec();
        self.values = values;
        self.n = n;
        self.diagonal = set.iter().map(|&k| v.diagonal[k]).collect();
    }
}

impl QMatrix for SubQ {
    fn size(&self) -> usize {
        self.n
    }

    fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    fn column(&mut self, i: usize, len: usize) -> &[f32] {
        &self.values[i * self.n..i * self.n + len]
    }

    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        let n = self.n;
        (&self.values[i * n..i * n + len], &self.values[j * n..j * n + len])
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        let n = self.n;
        for c in 0..n {
            self.values.swap(c * n + i, c * n + j);
        }
        for r in 0..n {
            self.values.swap(i * n + r, j * n + r);
        }
        self.diagonal.swap(i, j);
    }

    fn cache_stats(&self) -> CacheStats {
        CacheStats::default()
    }
}

impl QMatrixPasses for SubQ {
    fn is_cached(&self, _i: usize, _len: usize) -> bool {
        true
    }
}
