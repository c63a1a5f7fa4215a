//! The SMO engine: LIBSVM's decomposition method for [`BoxQp`].
//!
//! Written from Fan, Chen & Lin, "Working set selection using second order information for
//! training support vector machines" (JMLR 6, 2005) and Chang & Lin, "LIBSVM: a library for
//! support vector machines" (ACM TIST 2, 2011). For
//!
//! ```text
//! min_α ½αᵀQα + pᵀα   s.t.  yᵀα = Δ,  0 ≤ α_i ≤ u_i
//! ```
//!
//! each iteration
//!
//! 1. selects the pair `(i, j)` by second-order information ([`working_set`], Fan et al. WSS 2:
//!    `i` maximises `−y_t G_t` over `I_up`, `j` minimises `−b_it²/a_it` over `I_low`);
//! 2. stops when `m(α) − M(α) < tol` (Fan et al. eq. (9); Chang & Lin eq. (17)) on the active
//!    set, after which the gradient is reconstructed and the test repeated on the full set;
//! 3. solves the two-variable subproblem analytically ([`step`], Chang & Lin §4.1.2);
//! 4. updates `G += Q_{:,i}Δα_i + Q_{:,j}Δα_j` on the active set (parallel, fixed chunks) and
//!    `Ḡ` when a variable enters or leaves its upper bound; the first scan of the next
//!    iteration's step 1 runs in the same pass over the updated gradient (the selection is the
//!    same; one pass over the active set is saved per iteration);
//! 5. every `min(l, 1000)` iterations, shrinks the active set ([`shrinking`]).
//!
//! At exit the gradient is made exact on every position, ρ is computed ([`rho`]), and the
//! objective is `f(α) = Σ α_i (G_i + p_i) / 2`. The change of `f` caused by every step is
//! computed exactly from the step's own quantities and counted in
//! [`SolveStats::objective_increases`] whenever it is positive beyond rounding
//! ([`step::Step::increase_threshold`]): the test hook for
//! the monotone decrease that the analysis guarantees.
//!
//! Steps 1, 2, 5 and the offset depend on the equality constraints and come from a compile-time
//! [`strategy`]: one constraint `yᵀα = Δ` ([`Smo`], LIBSVM's `Solver`) or one per label
//! ([`NuSmo`], LIBSVM's `Solver_NU`, for ν-SVC and ν-SVR, which also returns the scale `r`).
//!
//! Per-variable upper bounds `u_i` are those of scikit-learn's modified LIBSVM (class weight
//! × sample weight × C). Ties in the scans go to the last index, as in LIBSVM, which makes the
//! iterates those of LIBSVM; the scans reduce fixed chunks, so no result depends on the thread
//! count. The parallel passes run on the solve's thread team ([`kernelkit_kernels::team`]),
//! whose threads spin between the passes of an iteration instead of being woken for each.
//! On x86-64 the two scans run four positions at a time with AVX2, eight with AVX-512F
//! (`scan_simd`, written once for both widths; the same answers bit for bit). When a column is
//! missing and the kernel allows it, the pass that computes it also computes the columns of the
//! most violating uncached positions ([`speculation`]), bitwise as they would be computed later:
//! the path does not change. A column's missing positions are computed by the pass that uses them
//! ([`QMatrixPasses::column_then`]): the column of `i` by the second scan's pass, the column of `j` by
//! the gradient update's (the step needs only `Q_ij`, from the resident column of `i`), and the
//! inactive positions of a column by the pass that adds it to `Ḡ` (the gradient reconstruction
//! takes its columns in blocks instead: [`shrinking`]). Each window is scanned or applied as soon
//! as it is stored, while it is in its core's cache, and the threads meet once per pass instead of
//! twice. The `Ḡ` terms of the active positions ride in the gradient update's pass
//! ([`gradient_update`]). The windows' results go to one slot per thread
//! ([`PerThread`](kernelkit_kernels::PerThread): no cache line shared by the threads per window)
//! and merge in any order to the same maxima (ties to the larger index), and every position's sums
//! keep their order, so the iterates are those of the unfused passes, bit for bit (measurements:
//! `docs/performance.md`, "Fused passes").

//! Without `max_iter`, a solve stops after LIBSVM's limit of `max(10⁷, 100·l)` iterations
//! ([`SolveOptions::iteration_limit`], as every iterative solver here; status
//! `max_iterations`): a tolerance below what the problem's rounding resolves (a linear kernel
//! of full rank at `tol = 1e-6`, say) would otherwise never end, as it does not in
//! scikit-learn, whose copy of LIBSVM dropped the limit. One departure, in a
//! degenerate case only: ρ without free variables and with an empty side is the finite side's
//! bound instead of ±∞.

mod batched;
mod gradient_update;
mod rho;
#[cfg(target_arch = "x86_64")]
mod scan_avx2;
#[cfg(target_arch = "x86_64")]
mod scan_avx512;
#[cfg(target_arch = "x86_64")]
mod scan_simd;
mod shrinking;
mod speculation;
mod state;
mod step;
mod strategy;
mod working_set;
mod working_set_nu;

use std::time::Instant;

use kernelkit_kernels::team::{self, TeamGuard};
use kernelkit_kernels::QMatrixPasses;

use crate::box_qp::BoxQp;
use crate::protocol::{
    checkpoint, Engine, Monitor, Progress, Solution, SolveError, SolveOptions, SolveStats, Solver,
    Status,
};
use gradient_update::{
    add_scaled, add_scaled_column_from, update_gradient_and_scan, update_gradient_and_scan_in_fill,
    PairUpdate,
};
use shrinking::Shrinker;
use state::Variables;
use strategy::{OneEquality, Strategy, TwoEqualities};

/// LIBSVM's `TAU`: the curvature used when `a_ij ≤ 0`.
pub(crate) const TAU: f64 = 1e-12;

/// Columns between two checks of [`Monitor::interrupted`] while the gradient is initialised.
const INTERRUPT_CHECK_COLUMNS: usize = 16;

/// The SMO engine with one equality constraint (LIBSVM's `Solver`; see the module
/// documentation).
#[derive(Debug, Default, Clone, Copy)]
pub struct Smo;

/// The SMO engine with one equality constraint per label (LIBSVM's `Solver_NU`), for the ν
/// formulations: `Σ_{y_i=+1} α_i` and `Σ_{y_i=−1} α_i` both stay at their starting values.
/// The solution's `bias` is `−ρ`; the scale `r` of the ν formulations is returned by
/// [`NuSmo::solve_with_scale`].
#[derive(Debug, Default, Clone, Copy)]
pub struct NuSmo;

impl<Q: QMatrixPasses> Solver<BoxQp<Q>> for Smo {
    fn name(&self) -> &'static str {
        "smo"
    }

    fn solve(
        &self,
        problem: &mut BoxQp<Q>,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<Solution, SolveError> {
        Ok(solve_with::<Q, OneEquality>(problem, options, monitor)?.0)
    }
}

crate::protocol::solver_by_method!(
    impl[Q: QMatrixPasses] BoxQp<Q> => NuSmo, solve_with_scale, |_| "smo_nu"
);

impl NuSmo {
    /// Solves and also returns `r = (r⁺ + r⁻)/2` (Chang & Lin 2001: the ν-SVC dual is the
    /// C-SVC dual scaled by `r`, and `−r` is the ε of ν-SVR).
    pub fn solve_with_scale<Q: QMatrixPasses>(
        &self,
        problem: &mut BoxQp<Q>,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<(Solution, f64), SolveError> {
        solve_with::<Q, TwoEqualities>(problem, options, monitor)
    }
}

fn solve_with<Q: QMatrixPasses, S: Strategy>(
    problem: &mut BoxQp<Q>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, f64), SolveError> {
    options.validate()?;
    problem.validate()?;
    problem.restore_order();
    let variables = Variables::new(
        problem.q.diagonal().to_vec(),
        problem.y.clone(),
        problem.alpha0.clone(),
        problem.p.clone(),
        problem.upper.clone(),
        options.simd,
    );
    let known_gradient = problem.gradient0.clone();
    let known_at = problem.gradient0_at.clone();
    let l = problem.q.size();
    let (engine, size) = choose_engine(options, l, problem.q.cache_capacity(l));
    let mut run = Run {
        q: &mut problem.q,
        v: variables,
        known_gradient,
        known_at,
        options,
        started: Instant::now(),
        passes_before: team::passes_so_far(),
        strategy: std::marker::PhantomData::<S>,
        engine,
    };
    let solved = match engine {
        Engine::Batched => run.solve_batched(monitor, size),
        _ => run.solve(monitor),
    };
    // Shrinking swapped `q`'s positions; a second solve of this problem undoes that first.
    let order = std::mem::take(&mut run.v.active_set);
    problem.order = Some(order);
    Ok(solved)
}

/// The batch size of the batched engine unless [`SolveOptions::batch_size`] says otherwise,
/// chosen among 128, 256, 512 and 1,024 by fit times on an ε-SVR and a C-SVC problem
/// (measurements: `docs/performance.md`, "The batched engine's constants").
const BATCH_SIZE: usize = 256;

/// With [`Engine::Auto`], problems with at least this many variables run the batched engine.
/// Measured on two cores, the batched engine was as fast or faster on the larger problems,
/// except where columns cost little (a9a's binary rows); its passes are many times fewer, which
/// decides at 16 threads (measurements: `docs/performance.md`, "The batched engine's
/// constants").
const BATCHED_MIN_VARIABLES: usize = 8192;

/// The engine a solve runs and the batch size of the batched engine: from the problem and the
/// cache only, never from the thread count (the model must not depend on it). The batched
/// engine needs the columns of two batches resident (the kept part of a batch and the new
/// part are read together); with a smaller cache, batches shrink to fit, and `Auto` keeps
/// LIBSVM's engine.
fn choose_engine(options: &SolveOptions, l: usize, capacity: usize) -> (Engine, usize) {
    let size = options.batch_size.unwrap_or(BATCH_SIZE).min(capacity / 2).max(2);
    let engine = match options.engine {
        Engine::Auto => {
            let fits = capacity >= 2 * BATCH_SIZE;
            if fits && l >= BATCHED_MIN_VARIABLES {
                Engine::Batched
            } else {
                Engine::Libsvm
            }
        }
        engine => engine,
    };
    (engine, size)
}

/// One solve in progress.
struct Run<'a, Q, S> {
    q: &'a mut Q,
    v: Variables,
    /// `BoxQp::gradient0`.
    known_gradient: Option<Vec<f64>>,
    /// `BoxQp::gradient0_at`.
    known_at: Option<Vec<f64>>,
    options: &'a SolveOptions,
    started: Instant,
    /// The solving thread's parallel passes before this solve.
    passes_before: team::Passes,
    strategy: std::marker::PhantomData<S>,
    /// [`Engine::Libsvm`] or [`Engine::Batched`].
    engine: Engine,
}

impl<Q: QMatrixPasses, S: Strategy> Run<'_, Q, S> {
    /// Starts `G` at the gradient given with the problem (a warm start's), else at `p`, and `Ḡ`
    /// at 0. Returns the scale of each column still to be added to `G`: `α_i` without a given
    /// gradient; with one, `α_i − a_i` where it was computed at `a ≠ α⁰`
    /// (`BoxQp::gradient0_at`), else 0 (0: no column).
    ///
    /// A given gradient at `a` is used only where it saves columns: updating it costs one per
    /// variable that moved from `a` (and at the upper bound, for `Ḡ`), computing `G` afresh one
    /// per non-zero `α⁰_i`. A start that moved more variables than it keeps non-zero (a refit
    /// whose smaller box or sums send most variables to 0) starts afresh: measured on USPS's
    /// first 3,000 rows, ν-SVC at ν = 0.3 → 0.1, the update computed 1.8 times the kernel
    /// values of the fresh start (`docs/performance.md`, "Warm starts").
    fn start_gradient(&mut self) -> Vec<f64> {
        let known = self.known_gradient.take();
        let at = self.known_at.take();
        self.v.gradient_bar.fill(0.0);
        let updated = |a: &[f64]| {
            let moved: Vec<f64> = self.v.alpha.iter().zip(a).map(|(x, y)| x - y).collect();
            let columns = (0..moved.len()).filter(|&i| moved[i] != 0.0 || self.v.is_upper(i));
            let afresh = self.v.alpha.iter().filter(|&&x| x != 0.0).count();
            (columns.count() < afresh).then_some(moved)
        };
        let start = match (known, at) {
            (Some(g), None) => Some((g, vec![0.0; self.v.len()])),
            (Some(g), Some(at)) => updated(&at).map(|moved| (g, moved)),
            (None, _) => None,
        };
        match start {
            Some((g, scales)) => {
                self.v.gradient.copy_from_slice(&g);
                scales
            }
            None => {
                self.v.gradient.copy_from_slice(&self.v.p);
                self.v.alpha.clone()
            }
        }
    }

    /// `G = p + Σ_{α_i > 0} α_i Q_{:,i}` (or the given gradient plus its columns still to add:
    /// [`Self::start_gradient`]) and `Ḡ = Σ_{α_i = u_i} u_i Q_{:,i}`. A column for every
    /// non-zero `α_i`: seconds for a large ν or one-class problem, so the monitor's
    /// interruption is checked every [`INTERRUPT_CHECK_COLUMNS`] columns; returns false when
    /// interrupted (`G` is then incomplete).
    fn initialize_gradient(&mut self, monitor: &dyn Monitor) -> bool {
        let l = self.v.len();
        let scales = self.start_gradient();
        let mut columns = 0usize;
        for (i, &scale) in scales.iter().enumerate() {
            if scale == 0.0 && !self.v.is_upper(i) {
                continue;
            }
            columns += 1;
            if columns.is_multiple_of(INTERRUPT_CHECK_COLUMNS) && monitor.interrupted() {
                return false;
            }
            let q_i = self.q.column(i, l);
            if scale != 0.0 {
                add_scaled(&mut self.v.gradient, q_i, scale);
            }
            if self.v.is_upper(i) {
                add_scaled(&mut self.v.gradient_bar, q_i, self.v.upper[i]);
            }
        }
        true
    }

    fn solve(&mut self, monitor: &mut dyn Monitor) -> (Solution, f64) {
        // The other threads of the pool spin between the passes of this solve.
        let _team = TeamGuard::enter();
        let l = self.v.len();
        let tol = self.options.tol;
        if !self.initialize_gradient(&*monitor) {
            return (self.interrupted_solution(0), f64::NAN);
        }
        let mut objective = self.v.objective();
        let mut shrinker = Shrinker::default();
        let mut stats = SolveStats { min_active_size: l as u64, ..SolveStats::default() };
        let mut active_size = l;
        let mut iteration: u64 = 0;
        let mut counter = l.min(1000) + 1;
        let mut gap = f64::INFINITY;
        let mut status = Status::Converged;
        // The first scan of the next selection, when the last step computed it.
        let mut first: Option<S::First> = None;
        let max_iter = self.options.iteration_limit(l);

        loop {
            if iteration >= max_iter {
                status = Status::MaxIterations;
                break;
            }
            if iteration > 0 && iteration.is_multiple_of(self.options.report_every) {
                let progress = Progress {
                    iteration,
                    gap,
                    objective,
                    active_size,
                    cache: self.q.cache_stats(),
                };
                if let Some(end) = self.time_or_report(&progress, monitor) {
                    status = end;
                    break;
                }
            }
            counter -= 1;
            if counter == 0 {
                counter = l.min(1000);
                if self.options.shrinking {
                    if !self.shrink(&mut shrinker, &mut active_size, tol, &*monitor, &mut stats) {
                        status = Status::Stopped;
                        break;
                    }
                    // Positions moved and the gradient may have been rebuilt.
                    first = None;
                }
            }
            let mut selection = match first.take() {
                Some(first) => {
                    S::select_after_first(self.q, &self.v, active_size, self.options.tol, first)
                }
                None => self.select_working_set(active_size),
            };
            gap = selection.gap;
            if selection.pair.is_none() {
                // Optimal on the active set: check the whole set.
                shrinker.reconstruct_gradient(self.q, &mut self.v, active_size, &*monitor);
                if monitor.interrupted() {
                    status = Status::Stopped;
                    break;
                }
                active_size = l;
                selection = self.select_working_set(active_size);
                gap = selection.gap;
                if selection.pair.is_none() {
                    break;
                }
                counter = 1; // shrink again at the next iteration
            }
            let Some((i, j)) = selection.pair else { unreachable!() };
            iteration += 1;
            let (change, next_first) = self.update_pair(i, j, active_size);
            first = Some(next_first);
            if !change.is_finite() {
                status = Status::NumericalError;
                break;
            }
            objective += change.objective_change;
            if change.objective_change > change.increase_threshold {
                stats.objective_increases += 1;
            }
        }

        // Ctrl-C (or a `StopFlag`, whose solves are discarded too): skip the final rebuild of
        // G (up to l columns) and everything computed from it.
        if status == Status::Stopped && monitor.interrupted() {
            return (self.interrupted_solution(iteration), f64::NAN);
        }
        // Make G exact everywhere, then compute ρ, the objective and the final violation.
        shrinker.reconstruct_gradient(self.q, &mut self.v, active_size, &*monitor);
        stats.gradient_reconstructions = shrinker.reconstructions;
        self.solution(status, gap, iteration, stats)
    }

    /// The solution once `G` is exact everywhere: ρ (and `r`), the objective, the final
    /// violation (the last selection's gap when converged), the counters, and `α` in the
    /// problem's order.
    fn solution(
        &mut self,
        status: Status,
        gap: f64,
        iterations: u64,
        mut stats: SolveStats,
    ) -> (Solution, f64) {
        let l = self.v.len();
        let (rho, scale) = S::offset(&self.v, l);
        let objective = self.v.objective();
        // Kernel values near the float range (rows of 1e20 under a linear kernel) can leave
        // every step finite and still make ρ or r NaN: not a solution.
        let status = if [rho, scale, objective].iter().all(|v| v.is_finite()) {
            status
        } else {
            Status::NumericalError
        };
        let gap =
            if status == Status::Converged { gap.max(0.0) } else { S::max_violation(&self.v, l) };
        stats.cache = self.q.cache_stats();
        self.count_passes(&mut stats);
        let mut x = vec![0.0; l];
        let mut gradient = vec![0.0; l];
        for (position, &original) in self.v.active_set.iter().enumerate() {
            x[original] = self.v.alpha[position];
            gradient[original] = self.v.gradient[position];
        }
        let gradient = Some(gradient);
        (Solution { x, objective, bias: -rho, gap, iterations, status, stats, gradient }, scale)
    }

    /// One shrinking of the active set ([`Shrinker::shrink`]), counted in
    /// `stats.min_active_size`: `active_size` becomes the new size; false (and `active_size`
    /// left as it was) when the monitor was interrupted during it.
    fn shrink(
        &mut self,
        shrinker: &mut Shrinker,
        active_size: &mut usize,
        tol: f64,
        monitor: &dyn Monitor,
        stats: &mut SolveStats,
    ) -> bool {
        let g_max = S::shrink_extremes(&self.v, *active_size);
        let shrunk = shrinker.shrink(self.q, &mut self.v, *active_size, tol, g_max, monitor);
        if monitor.interrupted() {
            return false;
        }
        stats.min_active_size = stats.min_active_size.min(shrunk as u64);
        *active_size = shrunk;
        true
    }

    /// The time limit, then the monitor's report: how the solve ends now, if it does.
    fn time_or_report(&self, progress: &Progress, monitor: &mut dyn Monitor) -> Option<Status> {
        checkpoint(self.options, self.started, monitor, || *progress)
    }

    /// The result of a solve interrupted (Ctrl-C, or a `StopFlag`) after `iterations` steps:
    /// the current `α` in the problem's order, with no objective, bias or gap, since `G` is not
    /// exact (the caller discards it).
    fn interrupted_solution(&mut self, iterations: u64) -> Solution {
        let mut stats = SolveStats {
            cache: self.q.cache_stats(),
            min_active_size: self.v.len() as u64,
            ..SolveStats::default()
        };
        self.count_passes(&mut stats);
        let mut x = vec![0.0; self.v.len()];
        for (position, &original) in self.v.active_set.iter().enumerate() {
            x[original] = self.v.alpha[position];
        }
        Solution {
            x,
            objective: f64::NAN,
            bias: f64::NAN,
            gap: f64::INFINITY,
            iterations,
            status: Status::Stopped,
            stats,
            gradient: None,
        }
    }

    /// The solve's parallel passes and its time outside them, so far.
    fn count_passes(&self, stats: &mut SolveStats) {
        let passes = team::passes_so_far().since(self.passes_before);
        stats.parallel_passes = passes.count;
        stats.serial_time = self.started.elapsed().saturating_sub(passes.time);
        stats.engine = Some(self.engine);
    }

    fn select_working_set(&mut self, active_size: usize) -> working_set::Selection {
        S::select(self.q, &self.v, active_size, self.options.tol)
    }

    /// One SMO step on `(i, j)`: new α, gradient, bounds and `Ḡ`; also returns the first scan
    /// of the next selection, computed in the same pass as the gradient update.
    fn update_pair(&mut self, i: usize, j: usize, active_size: usize) -> (StepOutcome, S::First) {
        let (q_ii, q_jj) = (self.v.diagonal[i], self.v.diagonal[j]);
        speculation::prefetch_with_candidates(self.q, &self.v, active_size, j);
        // Column i resident and j not computed at all (the common miss): the step needs only
        // Q_ij from column i, and the gradient update and scan then run window by window inside
        // the pass that computes column j (`QMatrixPasses::column_then`).
        let fuse =
            self.q.fuses_passes() && self.q.is_cached(i, active_size) && !self.q.is_cached(j, 1);
        let (step, update, first);
        if fuse {
            let q_ij = self.q.column(i, active_size)[j];
            (step, update) = step_and_update(&mut self.v, (i, j), f64::from(q_ij), (q_ii, q_jj));
            first = match update_gradient_and_scan_in_fill::<S, Q>(
                self.q,
                &mut self.v,
                (i, j),
                active_size,
                update,
            ) {
                Some(first) => first,
                None => {
                    let (q_i, q_j) = self.q.column_pair(i, j, active_size);
                    update_gradient_and_scan::<S>(&mut self.v, active_size, q_i, q_j, update)
                }
            };
        } else {
            let (q_i, q_j) = self.q.column_pair(i, j, active_size);
            (step, update) = step_and_update(&mut self.v, (i, j), f64::from(q_i[j]), (q_ii, q_jj));
            first = update_gradient_and_scan::<S>(&mut self.v, active_size, q_i, q_j, update);
        }
        // `Ḡ` of the active positions changed in the pass above; the inactive ones (after
        // shrinking) read the columns' remaining positions.
        let l = self.v.len();
        if active_size < l {
            for (k, scale) in [(i, update.bar_i), (j, update.bar_j)] {
                if let Some(scale) = scale {
                    add_scaled_column_from(self.q, k, &mut self.v.gradient_bar, active_size, scale);
                }
            }
        }
        let outcome = StepOutcome {
            objective_change: step.objective_change,
            increase_threshold: step.increase_threshold,
            finite: self.v.alpha[i].is_finite() && self.v.alpha[j].is_finite(),
        };
        (outcome, first)
    }
}

/// The step on `(i, j)` (new `α_i`, `α_j` and their bound status) and what it changes in `G`
/// and `Ḡ` ([`PairUpdate`]).
fn step_and_update(
    v: &mut Variables,
    (i, j): (usize, usize),
    q_ij: f64,
    (q_ii, q_jj): (f64, f64),
) -> (step::Step, PairUpdate) {
    let step = step::take_step(v, i, j, q_ij, q_ii, q_jj);
    // The bounds before the pass: the scan fused into the gradient update reads them.
    let was_upper = [v.is_upper(i), v.is_upper(j)];
    v.update_bound(i);
    v.update_bound(j);
    // `Ḡ += ±u_k Q_k` for a variable k that entered (+) or left (−) its upper bound.
    let [bar_i, bar_j] = [(i, was_upper[0]), (j, was_upper[1])].map(|(k, was_upper)| {
        (was_upper != v.is_upper(k)).then(|| {
            let sign = if was_upper { -1.0 } else { 1.0 };
            sign * v.upper[k]
        })
    });
    (step, PairUpdate { d_i: step.delta_i, d_j: step.delta_j, bar_i, bar_j })
}

/// What `update_pair` reports to the main loop.
struct StepOutcome {
    objective_change: f64,
    increase_threshold: f64,
    finite: bool,
}

impl StepOutcome {
    fn is_finite(&self) -> bool {
        self.finite && self.objective_change.is_finite()
    }
}
