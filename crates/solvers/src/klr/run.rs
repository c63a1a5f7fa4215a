//! The main loop of the KLR SMO.

use std::time::Instant;

use kernelkit_kernels::KernelSource;

use super::state::State;
use super::subproblem::PairSubproblem;
use super::{KlrProblem, KlrReport, KlrSmo, WorkingSetRule};
use crate::protocol::{
    checkpoint, negative_curvature, Monitor, Progress, Solution, SolveOptions, SolveStats, Status,
};

/// Relative slack of the per-step decrease count (round-off of `f`).
const DECREASE_SLACK: f64 = 1e-12;

/// Iterations (per point, and at least [`STALLED_MIN`]) without a new smallest gap `m − M` before
/// the solve is declared stalled: the gradients carry round-off of order `ulp(C)/γ` (the `log`
/// of `C − α` near the upper bound; digest pitfall 17), and a tolerance below that floor can
/// never be met. The objective cannot serve here: its own round-off (`n·ε·Σ|terms|`) exceeds
/// the decrease of a late SMO step.
const STALLED_PER_POINT: u64 = 50;
const STALLED_MIN: u64 = 50_000;

pub(super) fn solve<K: KernelSource>(
    solver: &KlrSmo,
    problem: &mut KlrProblem<K>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> (Solution, KlrReport) {
    let started = Instant::now();
    let KlrProblem { columns, y, c, lambda, bound } = problem;
    let n = y.len();
    let mut state = State::initial(y, c, *lambda, *bound);
    state.compute_f(columns.kernel());
    let mut report = KlrReport::default();
    let mut stats = SolveStats { min_active_size: n as u64, ..SolveStats::default() };
    let track = solver.record_history;
    let mut objective = if track { state.objective() } else { f64::NAN };
    if track {
        report.objectives.push(objective);
        report.step_norms.push(0.0);
    }
    let mut iterations = 0u64;
    let mut fresh = true;
    // The smallest gap so far and the iteration that reached it.
    let (mut best_gap, mut best_at) = (f64::INFINITY, 0u64);
    let stall_window = (STALLED_PER_POINT * n as u64).max(STALLED_MIN);
    // Whether the problem is known not to be convex: the kernel function does not guarantee a
    // positive semidefinite matrix, or a pair of negative curvature was met. The step then
    // clamps η at 0 (it minimises another function than the objective), and a point that
    // meets the stopping rule is only stationary.
    let mut not_convex = columns.kernel().known_positive_semidefinite() == Some(false);
    let (mut m, mut big_m);
    let status = loop {
        let (up, low) = state.violating_pair();
        (m, big_m) = (up.value, low.value);
        if !(up.exists() && low.exists()) || m - big_m <= options.tol {
            // A NaN is never selected: an empty set must not pass for convergence.
            if !state.f.iter().all(|v| v.is_finite()) {
                break Status::NumericalError;
            }
            if fresh {
                break if not_convex { Status::NotConvex } else { Status::Converged };
            }
            // Confirm on F recomputed from the kernel (no drift of the incremental updates).
            state.compute_f(columns.kernel());
            stats.gradient_reconstructions += 1;
            fresh = true;
            continue;
        }
        if !(m - big_m).is_finite() {
            break Status::NumericalError;
        }
        if iterations >= options.iteration_limit(n) {
            break Status::MaxIterations;
        }
        if m - big_m < best_gap {
            (best_gap, best_at) = (m - big_m, iterations);
        } else if iterations - best_at >= stall_window {
            break Status::Stalled;
        }
        if iterations > 0 && iterations.is_multiple_of(options.report_every) {
            let stop = checkpoint(options, started, monitor, || Progress {
                iteration: iterations,
                gap: m - big_m,
                objective: state.objective(),
                active_size: n,
                cache: columns.cache_stats(),
            });
            if let Some(stop) = stop {
                break stop;
            }
        }
        let i = up.index;
        let j = match solver.rule {
            WorkingSetRule::FirstOrder => low.index,
            WorkingSetRule::SecondOrder => {
                let (column_i, diagonal) = columns.column_and_diagonal(i);
                // Never empty while m > M: j^MVP qualifies.
                state.second_order_partner(i, m, column_i, diagonal).unwrap_or(low.index)
            }
        };
        let diagonal = (columns.diagonal()[i], columns.diagonal()[j]);
        let (column_i, column_j) = columns.pair(i, j, columns.size());
        let eta = diagonal.0 + diagonal.1 - 2.0 * column_i[j];
        not_convex |= negative_curvature(eta, diagonal.0.abs() + diagonal.1.abs());
        let (y_i, y_j) = (state.y[i], state.y[j]);
        let (alpha_i, alpha_j) = (state.alpha[i], state.alpha[j]);
        // Room along +y_i for α_i and along −y_j for α_j.
        let (upper_i, upper_j) = (state.upper[i], state.upper[j]);
        let room_i = if y_i > 0.0 { upper_i - alpha_i } else { alpha_i - state.lower };
        let room_j = if y_j > 0.0 { alpha_j - state.lower } else { upper_j - alpha_j };
        let subproblem = PairSubproblem {
            c_i: state.c[i],
            c_j: state.c[j],
            alpha_i,
            alpha_j,
            y_i,
            y_j,
            violation: state.gneg(i) - state.gneg(j),
            eta: eta.max(0.0),
            t_max: room_i.min(room_j),
        };
        let t = subproblem.solve();
        // A step to the edge puts the binding variable(s) exactly on the bound.
        let lower = state.lower;
        let bound_of = |y_s: f64, along: bool, upper: f64| {
            if (y_s > 0.0) == along {
                upper
            } else {
                lower
            }
        };
        let new_i = if t == subproblem.t_max && room_i == t {
            bound_of(y_i, true, upper_i)
        } else {
            (alpha_i + t * y_i).clamp(lower, upper_i)
        };
        let new_j = if t == subproblem.t_max && room_j == t {
            bound_of(y_j, false, upper_j)
        } else {
            (alpha_j - t * y_j).clamp(lower, upper_j)
        };
        state.set_alpha(i, new_i);
        state.set_alpha(j, new_j);
        state.update_f((new_i - alpha_i) * y_i, (new_j - alpha_j) * y_j, column_i, column_j);
        fresh = false;
        iterations += 1;
        if track {
            let next = state.objective();
            if next > objective + DECREASE_SLACK * objective.abs().max(1.0) {
                stats.objective_increases += 1;
            }
            objective = next;
            report.objectives.push(objective);
            report.step_norms.push((new_i - alpha_i).powi(2) + (new_j - alpha_j).powi(2));
        }
    };
    stats.cache = columns.cache_stats();
    let solution = Solution {
        objective: state.objective(),
        bias: state.bias(m, big_m),
        gap: m - big_m,
        iterations,
        status,
        stats,
        gradient: None,
        x: state.alpha,
    };
    (solution, report)
}
