//! The constrained ν-SVR's primal LSVR-P solved as one quadratic program by the Clarabel
//! interior-point method (Goulart & Chen 2024), for problems whose KKT system is small enough to
//! factor ([`super::Method::choose`]).
//!
//! # Why a second method
//!
//! GSMO's stopping test `Δ ≤ tol` is absolute and local. On strongly constrained, ill-conditioned
//! problems it is met far from the optimum: on the simplex case at `n = p = 200` GSMO at
//! `tol = 1e-3` takes 12.4 million steps and ends 9.8 % below the optimal primal objective (β still
//! violates the simplex), and still 0.85 % below it at `tol = 1e-4` (`docs/constrained_svr.md`, "Benchmarks"). Neither the
//! second-order working set nor a projected step changed that. An interior-point method's
//! iteration count hardly depends on the conditioning, and it stops on relative primal, dual and
//! gap residuals, so its answer is the QP optimum to about 1e-8 relative.
//!
//! # The program
//!
//! Variables `z = (β ∈ Rᵖ, β0, ε, ξ ∈ Rⁿ, ξ* ∈ Rⁿ)`, objective `½‖β‖² + C n ν ε + C Σξ + C Σξ*`,
//! and Clarabel's `Az + s = h`, `s ∈ K` with the rows, in this order:
//!
//! ```text
//! Γβ = d                                  (zero cone; multipliers z_μ)
//! x_iᵀβ + β0 − ε − ξ_i ≤ y_i              (α_i)
//! −x_iᵀβ − β0 − ε − ξ*_i ≤ −y_i           (α*_i)
//! Aβ ≤ b                                  (γ)
//! −ξ ≤ 0,  −ξ* ≤ 0
//! ```
//!
//! ε is free: a negative ε never pays for `ν ≤ 1` (each sample then needs `ξ_i + ξ*_i ≥ −2ε`,
//! which costs `2Cn|ε|` against the `Cnν|ε|` gained), so the optimum is LSVR-P's, and the dual
//! of a free ε is the equality `Σα + Σα* = C n ν` that GSMO keeps (Prop. 2.2; digest §1.7).
//!
//! Clarabel's dual stationarity `Pz + q + Aᵀz_dual = 0` in β reads
//! `β = −Xᵀ(α − α*) − Aᵀγ − Γᵀz_μ`, which is LSVR-D's link `β = −Mᵀθ` with `μ = −z_μ`; in β0
//! and ε it gives `Σα = Σα* = C n ν / 2`, and in ξ the box `α ≤ C`. So the
//! multipliers are the dual variables `θ` of GSMO's problem and the same attributes describe
//! both methods' answers. Each multiplier is put on the bound that complementarity points to
//! ([`on_bound`]: `α_i = 0` where the row's slack exceeds `α_i`, `α_i = C` where `ξ_i` exceeds
//! `C − α_i`), so that GSMO's scores `Δ` ([`super::select`]) evaluated at the result are
//! meaningful (an interior-point `γ_u = 1e-9` on an inactive constraint would otherwise count as
//! a positive multiplier).
//!
//! # Scaling
//!
//! Clarabel's tolerances and [`on_bound`]'s comparison of a slack with its multiplier assume
//! quantities of order one, but the multipliers of LSVR-P live in `[0, C]` and the slacks in
//! the units of `y`. Unscaled, a small `C` broke both: at `C = 1e-9` (n = 200, `y` of order 1)
//! the active rows' slacks ended at about `μ/C ≈ 4e-8`, above their multipliers `C`, so every α
//! was rounded to 0 (β = 0, the dual objective 0 instead of −3.2e-7); at `C = 1e-12` the
//! solve itself stopped on its absolute gap tolerance with `Σα` 0.1 % off and inactive
//! multipliers at 8 % of `C`. Clarabel therefore solves the program divided by `C σ`, with
//! `σ = ‖(d, y, b)‖_∞` (1 if that is 0) and the variables in units of `σ`:
//!
//! ```text
//! min  (σ/C) ½‖β̃‖² + n ν ε̃ + Σξ̃ + Σξ̃*   s.t. the rows above with right-hand side (d, y, −y, b)/σ
//! ```
//!
//! whose solution is `(β, β0, ε, ξ) = σ (β̃, β̃0, ε̃, ξ̃)` and whose multipliers are those of
//! LSVR-P divided by `C` (`α̃ ∈ [0, 1]`). The rows of α and α* then compare a slack relative
//! to the data's scale with a multiplier relative to the box, so their rounding and the
//! stopping rule mean the same at every `C` and every scale of `y`. A row `a_uᵀβ ≤ b_u` of `A`
//! is another matter: its slack and its multiplier are both in β's units (the link
//! `β = −Xᵀ(α − α*) − Aᵀγ + …` makes `γ_u ‖a_u‖` a length in β's space, like the distance
//! `(b_u − a_uᵀβ) / ‖a_u‖`), and β is of the order of `C` when `C` is small, not of `σ`. Those
//! rows are rounded on that comparison, `σ s̃_u / ‖a_u‖ > C γ̃_u ‖a_u‖` (for rows of norm 1 at
//! `C = σ = 1` the earlier rule). At `C = 1e-12` with `β ≥ 0` the α then match GSMO's to
//! 5e-14 C, and the γ of the inactive rows, 1e-4 of the active one's in Clarabel's answer, are
//! 0 as GSMO's.
//!
//! What scaling cannot do: with constraints on β and a tiny `C`, the β part of the scaled
//! objective, `(σ/C) ½‖β̃‖²`, is of relative size about `C` (β is of the order of `C`), so
//! Clarabel's relative tolerances resolve the active γ only to about `1e-12 / C` relative.
//! At `C = 1e-9` (n = 200, p = 3, `β ≥ 0`) β is within 1.1e-7 of GSMO's, relative; at
//! `C = 1e-12` within 7e-5 (the α exact in both). Without constraints β is exact at any `C`.
//!
//! The rows of `X` enter `A` column by column (`2np` non-zeros); the LDL factorisation (faer's
//! supernodal one, as for AID's LP) then costs about `n p² + p³` per iteration, and the method
//! needs 15–40 iterations. It runs on one thread, so that the result does not depend on the
//! thread count (the problems [`super::Method::choose`] gives it take half a minute at most).
//!
//! # Stopping inside a Newton step
//!
//! A Newton step is one factorisation of the KKT matrix (`(p + 2 + 2n) + (k2 + 4n + k1)` rows),
//! inside faer, which offers no point to stop at: 0.6–1.8 s at n = 20,000, p = 50 (faer takes
//! its simplicial LDLᵀ there: the flop count per stored entry, about p/2, is below its
//! supernodal threshold of 40, so the dense p × p block is formed one scalar update at a time).
//! Clarabel therefore runs on a thread of its own ([`drive`]), and this solve's thread supervises
//! it: it answers Clarabel's termination callback at each iteration boundary (time limit,
//! monitor), and between boundaries looks at [`Monitor::interrupted`] every [`POLL`]. On
//! Ctrl-C it returns at once, its result to be discarded, and leaves Clarabel's thread to end
//! at its next boundary, alone. The time limit is counted from the start of this solve (setup
//! included; Clarabel's own limit counts from its first iteration) and is met at a boundary
//! when the next step would end past it, judged by the longest step so far: the solve ends
//! within the limit instead of one step after it.

use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultInfo, DefaultSettings, DefaultSettingsBuilder, DefaultSolution, DefaultSolver, IPSolver,
    NonnegativeConeT, SolverStatus, SupportedConeT, ZeroConeT,
};

use super::select::{GammaRule, Selection};
use super::state::State;
use super::{ConstrainedSvrProblem, GsmoReport};
use crate::protocol::{
    Control, Monitor, Progress, Solution, SolveError, SolveOptions, SolveStats, Status,
};

/// Clarabel's relative feasibility and gap tolerances (as the test oracle's): the inactive
/// multipliers end at the barrier's scale, so rounding them to 0 ([`on_bound`]) moves β and the
/// scores by about this much.
const RELATIVE_TOLERANCE: f64 = 1e-12;

/// The tolerances Clarabel falls back to when round-off stops it above [`RELATIVE_TOLERANCE`]
/// (its "almost solved"): still the optimum to 1e-9, reported as converged.
const REDUCED_TOLERANCE: f64 = 1e-9;

/// How often the supervising thread looks at [`Monitor::interrupted`] while a Newton step runs.
const POLL: Duration = Duration::from_millis(10);

/// What Clarabel's thread reports at an iteration boundary (its termination callback).
struct Boundary {
    iteration: u32,
    gap_rel: f64,
    cost_primal: f64,
    /// Whether the iterate meets the reduced tolerances: Clarabel is about to end as solved,
    /// and the time limit does not cut it short.
    near_optimum: bool,
}

/// The QP handed to Clarabel's thread (owned: the thread may outlive the solve's borrows).
struct Qp {
    quadratic: CscMatrix<f64>,
    linear: Vec<f64>,
    constraints: CscMatrix<f64>,
    rhs: Vec<f64>,
    cones: Vec<SupportedConeT<f64>>,
    settings: DefaultSettings<f64>,
    /// The unit of Clarabel's objective in LSVR-P's (`C σ`: module documentation, "Scaling").
    objective_unit: f64,
}

/// How [`drive`] ended: Clarabel's solution with the status the supervisor gave it (time
/// limit, monitor), or nothing (Ctrl-C: Clarabel was left to end alone).
enum Driven {
    Solved(Box<DefaultSolution<f64>>, Option<Status>),
    Interrupted,
}

/// Runs Clarabel on `qp` on a thread of its own and supervises it from this one (module
/// documentation, "Stopping inside a Newton step"). `started` is the start of the solve; `n`
/// the samples (the progress's active size).
fn drive(
    qp: Qp,
    options: &SolveOptions,
    started: Instant,
    n: usize,
    monitor: &mut dyn Monitor,
) -> Result<Driven, SolveError> {
    let (boundary_sender, boundaries) = mpsc::channel::<Boundary>();
    let (verdict_sender, verdicts) = mpsc::channel::<bool>();
    // `Mutex`: the callback must be `Sync`; only Clarabel's thread locks it.
    let verdicts = Mutex::new(verdicts);
    let objective_unit = qp.objective_unit;
    let clarabel = move || -> Result<DefaultSolution<f64>, String> {
        let Qp { quadratic, linear, constraints, rhs, cones, settings, .. } = qp;
        let mut solver =
            DefaultSolver::new(&quadratic, &linear, &constraints, &rhs, &cones, settings)
                .map_err(|e| format!("{e:?}"))?;
        drop((quadratic, constraints));
        // At each boundary: report, and wait for the supervisor's verdict (true ends the solve
        // with `CallbackTerminated`). A supervisor gone (Ctrl-C) ends it too.
        solver.set_termination_callback(move |info: &DefaultInfo<f64>| {
            let boundary = Boundary {
                iteration: info.iterations,
                gap_rel: info.gap_rel,
                cost_primal: info.cost_primal,
                near_optimum: ((info.gap_abs < REDUCED_TOLERANCE)
                    || (info.gap_rel < REDUCED_TOLERANCE))
                    && info.res_primal < REDUCED_TOLERANCE
                    && info.res_dual < REDUCED_TOLERANCE,
            };
            if boundary_sender.send(boundary).is_err() {
                return true;
            }
            let verdicts = verdicts.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            verdicts.recv().unwrap_or(true)
        });
        solver.solve();
        // Drops the callback, and with it the sender: the supervisor's wait ends.
        solver.unset_termination_callback();
        Ok(solver.solution)
    };
    let handle = std::thread::Builder::new()
        .name("kernelkit-clarabel".to_owned())
        .spawn(clarabel)
        .map_err(|e| SolveError::ThreadPool(e.to_string()))?;
    // The longest time between two boundaries so far (the first: setup and Clarabel's
    // starting point, one factorisation at least).
    let mut step = Duration::ZERO;
    let mut last = started;
    let mut verdict = None;
    loop {
        match boundaries.recv_timeout(POLL) {
            Ok(boundary) => {
                let now = Instant::now();
                step = step.max(now - last);
                last = now;
                if monitor.interrupted() {
                    return Ok(Driven::Interrupted);
                }
                let elapsed = now - started;
                let out_of_time = options.time_limit.is_some_and(|limit| {
                    !boundary.near_optimum && (elapsed >= limit || elapsed + step > limit)
                });
                let progress = Progress {
                    iteration: u64::from(boundary.iteration),
                    gap: boundary.gap_rel,
                    objective: boundary.cost_primal * objective_unit,
                    active_size: n,
                    cache: Default::default(),
                };
                verdict = if out_of_time {
                    Some(Status::TimeLimit)
                } else if boundary.iteration > 0 && monitor.report(&progress) == Control::Stop {
                    // Like GSMO, no report before the first step.
                    Some(Status::Stopped)
                } else {
                    None
                };
                // Clarabel's thread waits for this answer; it cannot have gone.
                let _ = verdict_sender.send(verdict.is_some());
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if monitor.interrupted() {
                    return Ok(Driven::Interrupted);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    match handle.join() {
        Ok(solution) => Ok(Driven::Solved(
            Box::new(solution.map_err(|e| SolveError::invalid("constrained SVR", e))?),
            verdict,
        )),
        // A panic of Clarabel (a bug) reaches the caller as the solve's own.
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// The program's constraint matrix in compressed columns, its right-hand side and its cones.
struct Program {
    constraints: CscMatrix<f64>,
    rhs: Vec<f64>,
    n_equalities: usize,
    n_inequalities: usize,
}

/// Builds `A`, `h / scale` and the cone sizes of the module documentation.
fn program(problem: &ConstrainedSvrProblem<'_>, scale: f64) -> Program {
    let x = problem.gram.rows();
    let (n, p) = (x.n_rows(), x.n_features());
    let (k1, k2) = (problem.inequalities.len(), problem.equalities.len());
    let alpha_row = k2;
    let star_row = k2 + n;
    let gamma_row = k2 + 2 * n;
    let bound_row = gamma_row + k1;
    let n_rows = bound_row + 2 * n;
    let mut colptr = Vec::with_capacity(p + 3 + 2 * n);
    let mut rowval = Vec::with_capacity(2 * n * p + 6 * n + 3);
    let mut nzval = Vec::with_capacity(2 * n * p + 6 * n + 3);
    colptr.push(0);
    let mut column = vec![0.0; n];
    for j in 0..p {
        let (rows, values) = problem.equalities.by_column.row(j);
        rowval.extend(rows.iter().copied());
        nzval.extend_from_slice(values);
        for (i, value) in column.iter_mut().enumerate() {
            *value = x.row(i)[j];
        }
        for (sign, first) in [(1.0, alpha_row), (-1.0, star_row)] {
            for (i, &v) in column.iter().enumerate() {
                if v != 0.0 {
                    rowval.push(first + i);
                    nzval.push(sign * v);
                }
            }
        }
        let (rows, values) = problem.inequalities.by_column.row(j);
        rowval.extend(rows.iter().map(|u| gamma_row + u));
        nzval.extend_from_slice(values);
        colptr.push(rowval.len());
    }
    // β0.
    for (sign, first) in [(1.0, alpha_row), (-1.0, star_row)] {
        rowval.extend(first..first + n);
        nzval.extend(std::iter::repeat_n(sign, n));
    }
    colptr.push(rowval.len());
    // ε.
    rowval.extend(alpha_row..star_row + n);
    nzval.extend(std::iter::repeat_n(-1.0, 2 * n));
    colptr.push(rowval.len());
    // ξ, then ξ*.
    for (first, bound) in [(alpha_row, bound_row), (star_row, bound_row + n)] {
        for i in 0..n {
            rowval.extend([first + i, bound + i]);
            nzval.extend([-1.0, -1.0]);
            colptr.push(rowval.len());
        }
    }
    let mut rhs = Vec::with_capacity(n_rows);
    rhs.extend_from_slice(&problem.equalities.rhs);
    rhs.extend_from_slice(&problem.y);
    rhs.extend(problem.y.iter().map(|v| -v));
    rhs.extend_from_slice(&problem.inequalities.rhs);
    rhs.resize(n_rows, 0.0);
    for value in &mut rhs {
        *value /= scale;
    }
    Program {
        constraints: CscMatrix::new(n_rows, p + 2 + 2 * n, colptr, rowval, nzval),
        rhs,
        n_equalities: k2,
        n_inequalities: n_rows - k2,
    }
}

/// A multiplier `z ∈ [0, upper]` from the interior point: `0` when its constraint's slack
/// `s` exceeds it (the constraint is inactive: complementarity `s z → 0` leaves `z` at the
/// scale of the barrier), `upper` when the slack `s_upper` of the bound `z ≤ upper` (the row
/// `−ξ_i ≤ 0`, whose multiplier is `z_upper = upper − z`) exceeds `z_upper`, else `z` clamped.
/// Both pairs must be in the scaled program's units (see "Scaling" in the module
/// documentation): the comparisons of a slack with a multiplier are not otherwise meaningful.
fn on_bound(z: f64, s: f64, z_upper: f64, s_upper: f64, upper: f64) -> f64 {
    if s > z {
        0.0
    } else if s_upper > z_upper {
        upper
    } else {
        z.clamp(0.0, upper)
    }
}

/// Spreads `target − Σ block` over the entries strictly inside `(0, upper)` (at most a few
/// rounds: each entry moves within its box), so that the rounding of [`on_bound`] keeps the
/// dual's sums `Σα = Σα* = C n ν / 2` (the differences are of the order of the solver's
/// tolerance).
fn restore_sum(block: &mut [f64], target: f64, upper: f64) {
    for _ in 0..4 {
        let missing = target - block.iter().sum::<f64>();
        let free: Vec<usize> =
            (0..block.len()).filter(|&i| block[i] > 0.0 && block[i] < upper).collect();
        if missing == 0.0 || free.is_empty() {
            return;
        }
        let share = missing / free.len() as f64;
        for i in free {
            block[i] = (block[i] + share).clamp(0.0, upper);
        }
    }
}

/// `σ = ‖(d, y, b)‖_∞`, the scale of the program's right-hand side (1 where it is 0): the unit
/// in which Clarabel sees β, β0, ε and ξ (module documentation, "Scaling").
fn problem_scale(problem: &ConstrainedSvrProblem<'_>) -> f64 {
    let largest = problem
        .equalities
        .rhs
        .iter()
        .chain(&problem.y)
        .chain(&problem.inequalities.rhs)
        .fold(0.0_f64, |largest, v| largest.max(v.abs()));
    if largest > 0.0 && largest.is_finite() {
        largest
    } else {
        1.0
    }
}

/// The result of a solve interrupted by Ctrl-C, which the caller discards: GSMO's starting
/// point θ⁰, with status [`Status::Stopped`] and a NaN objective ([`Monitor::interrupted`]).
fn interrupted(problem: &ConstrainedSvrProblem<'_>) -> (Solution, GsmoReport) {
    let (n, p) = (problem.n_samples(), problem.n_features());
    let (k1, k2) = (problem.n_inequalities(), problem.n_equalities());
    let state = State::initial(n, p, k1, k2, problem.c, problem.nu);
    let mut theta = Vec::with_capacity(2 * n + k1 + k2);
    for block in [&state.alpha, &state.alpha_star, &state.gamma, &state.mu] {
        theta.extend_from_slice(block);
    }
    let solution = Solution {
        x: theta,
        objective: f64::NAN,
        bias: 0.0,
        gap: f64::NAN,
        iterations: 0,
        status: Status::Stopped,
        stats: SolveStats { min_active_size: n as u64, ..SolveStats::default() },
        gradient: None,
    };
    (solution, GsmoReport { coef: state.beta, ..GsmoReport::default() })
}

pub(super) fn solve(
    problem: &ConstrainedSvrProblem<'_>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, GsmoReport), SolveError> {
    let started = Instant::now();
    let x = problem.gram.rows();
    let (n, p) = (x.n_rows(), x.n_features());
    let (c, nu) = (problem.c, problem.nu);
    let scale = problem_scale(problem);
    let Program { constraints, rhs, n_equalities, n_inequalities } = program(problem, scale);
    let n_var = p + 2 + 2 * n;
    let quadratic = {
        let mut colptr: Vec<usize> = (0..=p).collect();
        colptr.resize(n_var + 1, p);
        CscMatrix::new(n_var, n_var, colptr, (0..p).collect(), vec![scale / c; p])
    };
    let mut linear = vec![0.0; p + 1];
    linear.push(n as f64 * nu);
    linear.resize(n_var, 1.0);
    let mut settings = DefaultSettingsBuilder::default();
    settings
        .verbose(false)
        .tol_gap_abs(RELATIVE_TOLERANCE)
        .tol_gap_rel(RELATIVE_TOLERANCE)
        .tol_feas(RELATIVE_TOLERANCE)
        .tol_ktratio(1e-10)
        .reduced_tol_gap_abs(REDUCED_TOLERANCE)
        .reduced_tol_gap_rel(REDUCED_TOLERANCE)
        .reduced_tol_feas(REDUCED_TOLERANCE)
        .max_iter(u32::try_from(options.max_iter.unwrap_or(200).min(1000)).unwrap_or(200))
        .direct_solve_method("faer".to_owned())
        // One thread: the factorisation's results must not depend on the thread count.
        .max_threads(1);
    // No Clarabel time limit: `drive` keeps it, from the start of this solve.
    let settings =
        settings.build().map_err(|e| SolveError::invalid("QP settings", e.to_string()))?;
    let mut cones = Vec::with_capacity(2);
    if n_equalities > 0 {
        cones.push(ZeroConeT(n_equalities));
    }
    cones.push(NonnegativeConeT(n_inequalities));
    let qp = Qp { quadratic, linear, constraints, rhs, cones, settings, objective_unit: c * scale };
    let (solution, verdict) = match drive(qp, options, started, n, monitor)? {
        Driven::Solved(solution, verdict) => (solution, verdict),
        Driven::Interrupted => return Ok(interrupted(problem)),
    };
    let status = match (solution.status, verdict) {
        (SolverStatus::Solved | SolverStatus::AlmostSolved, _) => Status::Converged,
        (SolverStatus::MaxIterations, _) => Status::MaxIterations,
        (SolverStatus::MaxTime, _) => Status::TimeLimit,
        (SolverStatus::CallbackTerminated, Some(status)) => status,
        (SolverStatus::CallbackTerminated, None) => Status::Stopped,
        _ => Status::NumericalError,
    };
    let (k1, k2) = (problem.inequalities.len(), problem.equalities.len());
    let (duals, slacks) = (&solution.z, &solution.s);
    let bound_row = k2 + 2 * n + k1;
    let mut state = State::initial(n, p, k1, k2, c, nu);
    // The scaled program's multipliers are LSVR-P's divided by C; 1 · C is C exactly.
    for (block, first, bound) in
        [(&mut state.alpha, k2, bound_row), (&mut state.alpha_star, k2 + n, bound_row + n)]
    {
        for (i, value) in block.iter_mut().enumerate() {
            *value = c * on_bound(
                duals[first + i],
                slacks[first + i],
                duals[bound + i],
                slacks[bound + i],
                1.0,
            );
        }
    }
    let half = c * n as f64 * nu / 2.0;
    restore_sum(&mut state.alpha, half, c);
    restore_sum(&mut state.alpha_star, half, c);
    // A row `a_uᵀβ ≤ b_u` compares distance with force in β's own units (module
    // documentation, "Scaling"): `σ s / ‖a_u‖` against `C γ_u ‖a_u‖`.
    for (u, value) in state.gamma.iter_mut().enumerate() {
        let row = k2 + 2 * n + u;
        let norm2 = problem.inequalities.row_sq_norms[u];
        let norm2 = if norm2 > 0.0 { norm2 } else { 1.0 };
        let slack = slacks[row] * scale / (c * norm2);
        *value = c * on_bound(duals[row], slack, f64::INFINITY, 0.0, f64::INFINITY);
    }
    for (value, &dual) in state.mu.iter_mut().zip(&duals[..k2]) {
        *value = -c * dual;
    }
    state.refresh(x, &problem.y, &problem.inequalities, &problem.equalities);
    let selection = Selection::compute(
        &state,
        &problem.y,
        &problem.inequalities.rhs,
        &problem.equalities.rhs,
        c,
        GammaRule::ProjectedGradient,
    );
    let violation = selection.best().map_or(0.0, |(_, score)| score);
    let primal = &solution.x;
    let objective = state.objective();
    let status = if status == Status::Converged
        && !(objective.is_finite() && primal.iter().all(|v| v.is_finite()))
    {
        Status::NumericalError
    } else {
        status
    };
    let iterations = u64::from(solution.iterations);
    let final_progress = Progress {
        iteration: iterations,
        gap: violation,
        objective,
        active_size: n,
        cache: Default::default(),
    };
    if status != Status::Stopped {
        let _ = monitor.report(&final_progress);
    }
    let mut theta = Vec::with_capacity(2 * n + k1 + k2);
    theta.extend_from_slice(&state.alpha);
    theta.extend_from_slice(&state.alpha_star);
    theta.extend_from_slice(&state.gamma);
    theta.extend_from_slice(&state.mu);
    let report = GsmoReport {
        coef: state.beta.clone(),
        intercept: scale * primal[p],
        epsilon: (scale * primal[p + 1]).max(0.0),
        ..GsmoReport::default()
    };
    let stats = SolveStats { min_active_size: n as u64, ..SolveStats::default() };
    let solution = Solution {
        x: theta,
        objective,
        bias: scale * primal[p],
        gap: violation,
        iterations,
        status,
        stats,
        gradient: None,
    };
    Ok((solution, report))
}
