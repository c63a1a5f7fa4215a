//! Algorithm 1: the core vector machine (Tsang, Kwok & Cheung 2005) as the paper runs it: the
//! Bădoiu–Clarkson iteration on the MEB of the modified kernel.
//!
//! The core set is kept in the prefix `0..q` of the positions. Each iteration
//!
//! 1. finds the furthest point outside the core set (every other point, or a sample with the
//!    retry rule of [`super::search`]), from `s_i = Σ_{j<q} α_j k̃_ij` computed as kernel blocks
//!    against the core set (the `O(m·q_k)` scan of the paper);
//! 2. stops if it lies inside `B(c, (1+ε) r)` (the rule (37) of the other methods);
//! 3. otherwise adds it (violators only, as LibCVM) and re-solves the MEB of the core set with the
//!    SMO engine, warm-started from the previous weights with the new point at 0, to the
//!    tolerance `ε′ r² / 2` ([`super::core_set`]): the core set then meets the same relative
//!    criterion as the whole set at exit.

use kernelkit_kernels::KernelSource;

use super::core_set::{solve_core_set, WarmStart};
use super::search::{best_of_sample, best_outside_basis, Vertex};
use super::{FrankWolfe, FrankWolfeReport, Run, SimplexQp};
use crate::protocol::{Monitor, Solution, SolveError, SolveOptions, Status};

pub(super) fn solve<K: KernelSource>(
    config: &FrankWolfe,
    problem: &mut SimplexQp<K>,
    delta2: f64,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, FrankWolfeReport), SolveError> {
    let mut run = Run::new(config, &mut problem.q, delta2, options, true);
    run.initialize(monitor)?;
    let status = loop {
        let vertex = furthest_outside(&mut run);
        let core_min = super::iterate::argmin(&run.it.s[..run.it.basis], |_| true)
            .map(|(position, s)| Vertex { position, s });
        let Some(vertex) = vertex else {
            run.gap = core_min.map_or(0.0, |v| 2.0 * (run.it.r_big - v.s));
            break Status::Converged;
        };
        let nearest = Vertex::better(core_min, Some(vertex)).unwrap_or(vertex);
        run.gap = 2.0 * (run.it.r_big - nearest.s);
        // An `s` that is not finite (reported first by the searches) is kernel values beyond
        // the range of floating point: the core set's SMO could not start from it.
        if !nearest.s.is_finite() || !run.it.r_big.is_finite() {
            break Status::NumericalError;
        }
        if run.satisfies_stop(&vertex) {
            break Status::Converged;
        }
        if let Some(status) = run.check_limits(monitor) {
            break status;
        }
        run.admit(vertex);
        let q = run.it.basis;
        let tol = (0.5 * run.config().relative_gap() * run.it.r2()).max(f64::MIN_POSITIVE);
        let inner_options = SolveOptions {
            time_limit: options.time_limit.map(|t| t.saturating_sub(run.started.elapsed())),
            ..options.clone()
        };
        let positions: Vec<usize> = (0..q).collect();
        // `s` is `K̃α` on the core set, the new point's included (its `α` is 0): the warm
        // start's gradient.
        let start =
            WarmStart { alpha: run.it.alpha[..q].to_vec(), gradient: Some(run.it.s[..q].to_vec()) };
        let solution = solve_core_set(run.meb, &positions, q, start, tol, &inner_options, monitor)?;
        run.report.inner_iterations += solution.iterations;
        update_core_set(&mut run, &solution.x);
        run.report.toward_steps += 1;
        run.iterations += 1;
        match solution.status {
            Status::Stopped | Status::TimeLimit | Status::NumericalError | Status::Stalled => {
                break solution.status
            }
            Status::Converged | Status::MaxIterations | Status::NotConvex => {}
        }
    };
    Ok(run.finish(status, 0))
}

/// Sets `α = x` on the core set `0..q` and updates `s = K̃α` there by the changed weights only
/// (`s += Σ_j Δα_j K̃[0..q, j]`; the SMO steps touch few of them), then `R = αᵀs`.
fn update_core_set<K: KernelSource>(run: &mut Run<'_, K>, x: &[f64]) {
    let q = x.len();
    for (j, &new) in x.iter().enumerate() {
        let change = new - run.it.alpha[j];
        if change != 0.0 {
            run.it.alpha[j] = new;
            let column = run.meb.column(j, q);
            for (s, &k) in run.it.s[..q].iter_mut().zip(column) {
                *s += change * k;
            }
        }
    }
    run.it.support = run.it.alpha[..q].iter().filter(|&&a| a > 0.0).count();
    run.it.r_big = run.it.alpha[..q].iter().zip(&run.it.s[..q]).map(|(a, s)| a * s).sum();
    run.refresh_weighted_diagonal();
    if run.iterations.is_multiple_of(super::run::RENORMALIZE_EVERY) {
        let positions: Vec<usize> = (0..q).collect();
        run.recompute_s(&positions);
    }
}

/// The point outside the core set with the smallest `s` (sampled with retries, or exact), with
/// `verify_full` as for the other methods.
fn furthest_outside<K: KernelSource>(run: &mut Run<'_, K>) -> Option<Vertex> {
    let basis = run.it.basis;
    let n = run.meb.size();
    let Some(sample_size) = run.config().sample_size else {
        return best_outside_basis(run.meb, &run.it.alpha, basis, &mut run.scratch);
    };
    let mut best = None;
    for _ in 0..run.config().sample_trials {
        let sample = run.random.distinct(basis, n, sample_size);
        best =
            Vertex::better(best, best_of_sample(run.meb, &run.it.alpha, &run.it.s, basis, &sample));
        if best.is_some_and(|v| !run.satisfies_stop(&v)) || basis + sample.len() >= n {
            return best;
        }
    }
    if run.config().verify_full {
        best = Vertex::better(
            best,
            best_outside_basis(run.meb, &run.it.alpha, basis, &mut run.scratch),
        );
    }
    best
}
