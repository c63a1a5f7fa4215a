//! The main loop of GSMO: score, stop or step, report.

use std::time::Instant;

use super::recover::intercept_and_epsilon;
use super::select::{Block, Selection};
use super::state::State;
use super::step::{constraint_step, pair_step, Data, Scratch};
use super::{ConstrainedSvrProblem, Gsmo, GsmoReport, HistoryPoint};
use crate::protocol::{
    checkpoint, Monitor, Progress, Solution, SolveError, SolveOptions, SolveStats, Status,
};

/// Relative slack allowed in the per-step decrease test (round-off of `½‖β‖² + lᵀθ`).
const DECREASE_SLACK: f64 = 1e-12;

pub(super) fn solve(
    solver: &Gsmo,
    problem: &mut ConstrainedSvrProblem<'_>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, GsmoReport), SolveError> {
    let started = Instant::now();
    let ConstrainedSvrProblem { gram, y, c, nu, inequalities, equalities } = problem;
    let (c, nu) = (*c, *nu);
    let n = y.len();
    let p = gram.rows().n_features();
    let data = Data { y, c, inequalities, equalities };
    let mut state = State::initial(n, p, inequalities.len(), equalities.len(), c, nu);
    let mut scratch = Scratch::default();
    let mut report = GsmoReport::default();
    let mut stats = SolveStats { min_active_size: n as u64, ..SolveStats::default() };
    let mut objective = state.objective();
    let mut iterations = 0u64;
    let limit = options.iteration_limit(2 * n + inequalities.len() + equalities.len());
    // Whether `state` was recomputed from θ since the last step.
    let mut fresh = true;
    let mut violation;
    let status = loop {
        let selection =
            Selection::compute(&state, y, &inequalities.rhs, &equalities.rhs, c, solver.gamma_rule);
        let best = selection.best();
        violation = best.map_or(0.0, |(_, score)| score);
        if solver.record_history {
            match report.history.last_mut() {
                Some(last) if iterations > 0 => last.violation = violation,
                _ => report.history.push(HistoryPoint { objective, violation, block: None }),
            }
        }
        let Some((block, _)) = best.filter(|_| violation > options.tol) else {
            // A NaN is never selected: an empty selection must not pass for convergence.
            if !(objective.is_finite() && state.r.iter().all(|v| v.is_finite())) {
                break Status::NumericalError;
            }
            if fresh {
                break Status::Converged;
            }
            // Confirm on a state recomputed from θ: incremental drift must not end the solve.
            state.refresh(gram.rows(), y, inequalities, equalities);
            stats.gradient_reconstructions += 1;
            objective = state.objective();
            fresh = true;
            continue;
        };
        if !(violation.is_finite() && objective.is_finite()) {
            break Status::NumericalError;
        }
        if iterations >= limit {
            break Status::MaxIterations;
        }
        if iterations > 0 && iterations.is_multiple_of(options.report_every) {
            let stop = checkpoint(options, started, monitor, || Progress {
                iteration: iterations,
                gap: violation,
                objective,
                active_size: n,
                cache: gram.stats(),
            });
            if let Some(stop) = stop {
                break stop;
            }
        }
        match block {
            Block::Alpha | Block::AlphaStar => {
                let pair =
                    if block == Block::Alpha { selection.alpha } else { selection.alpha_star };
                pair_step(&mut state, gram, &data, &mut scratch, block, pair.expect("scored"))
            }
            Block::Gamma | Block::Mu => {
                let multiplier = if block == Block::Gamma { selection.gamma } else { selection.mu };
                let (u, _) = multiplier.expect("scored");
                constraint_step(&mut state, gram.rows(), &data, &mut scratch, block, u)
            }
        }
        fresh = false;
        iterations += 1;
        report.steps[block as usize - 1] += 1;
        let next = state.objective();
        if next > objective + DECREASE_SLACK * objective.abs().max(1.0) {
            stats.objective_increases += 1;
        }
        objective = next;
        if solver.record_history {
            report.history.push(HistoryPoint {
                objective,
                violation: f64::NAN,
                block: Some(block),
            });
        }
    };
    if !fresh {
        state.refresh(gram.rows(), y, inequalities, equalities);
        stats.gradient_reconstructions += 1;
    }
    let g: Vec<f64> = y.iter().zip(&state.r).map(|(y, r)| y - r).collect();
    let (intercept, epsilon) = intercept_and_epsilon(&g, &state.alpha, &state.alpha_star, c);
    stats.cache = gram.stats();
    let objective = state.objective();
    let mut x = Vec::with_capacity(2 * n + state.gamma.len() + state.mu.len());
    x.extend_from_slice(&state.alpha);
    x.extend_from_slice(&state.alpha_star);
    x.extend_from_slice(&state.gamma);
    x.extend_from_slice(&state.mu);
    report.coef = state.beta;
    report.intercept = intercept;
    report.epsilon = epsilon;
    let solution = Solution {
        x,
        objective,
        bias: intercept,
        gap: violation,
        iterations,
        status,
        stats,
        gradient: None,
    };
    Ok((solution, report))
}
