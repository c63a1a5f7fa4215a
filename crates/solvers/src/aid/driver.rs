//! The AID loop (Park & Klabjan, Algorithm 1) over any [`AggregatedModel`]: solve the
//! aggregated problem, evaluate its solution on every row, keep the best, stop when every
//! cluster is pure or the certified gap is small, else split the impure clusters.

use std::time::{Duration, Instant};

use crate::aid::partition::Partition;
use crate::protocol::{Control, Monitor, SolveError};

/// What one aggregated solve gives back, evaluated on the original rows.
#[derive(Debug, Clone)]
pub struct Round {
    /// `F^t`: the aggregated problem's objective at its computed solution.
    pub aggregated_objective: f64,
    /// A certified lower bound on the optimum of the *original* problem from this round (the
    /// aggregated dual value for LAD and SVM), or `−∞` when none is known.
    pub lower_bound: f64,
    /// `E^t`: the original problem's objective at the mapped solution.
    pub full_objective: f64,
    /// Whether the aggregated problem's solver met its stopping rule. One stopped early (an
    /// LP at its time limit, SMO at `max_iter`) certifies nothing: its value bounds nothing
    /// and a pure partition does not prove its solution optimal.
    pub solved: bool,
    /// Per row, bit `c` set when the row is compatible with cell `c` (rows within the purity
    /// tolerance of a cell boundary are compatible with both cells).
    pub masks: Vec<u8>,
    /// Per row, the cell the row goes to when its cluster splits.
    pub cells: Vec<u8>,
}

/// A problem AID can aggregate: LAD, SVM (linear or kernel) or S3VM.
pub trait AggregatedModel {
    /// The fitted parameters of one round (coefficients, dual variables …).
    type Fit: Clone;

    /// Number of original rows.
    fn n_rows(&self) -> usize;

    /// Solves the aggregated problem of `partition` and evaluates it on every row. `splits`
    /// lists the clusters split since the previous call (empty on the first call), for models
    /// that update aggregated data incrementally.
    fn solve(
        &mut self,
        partition: &Partition,
        splits: &[crate::aid::partition::Split],
        inner: &mut dyn Monitor,
    ) -> Result<(Round, Self::Fit), SolveError>;

    /// Whether a pure partition certifies optimality (LAD, SVM: yes; S3VM: no, digest §7.1).
    fn purity_certifies_optimality(&self) -> bool;
}

/// AID's options.
#[derive(Debug, Clone, PartialEq)]
pub struct AidOptions {
    /// Stop when `(upper − lower)/upper ≤ tol` (the paper's §3.1 gap, with a certified lower
    /// bound; digest §7.2).
    pub tol: f64,
    /// Maximum number of aggregated solves.
    pub max_iter: usize,
    /// Wall-clock limit for the whole run.
    pub time_limit: Option<Duration>,
}

impl Default for AidOptions {
    fn default() -> Self {
        AidOptions { tol: 1e-4, max_iter: 100, time_limit: None }
    }
}

/// How an AID run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AidStatus {
    /// Every cluster is pure, which certifies optimality (LAD, SVM).
    Optimal,
    /// Every cluster is pure; for S3VM this is *not* a certificate (Prop. 5 is false).
    Pure,
    /// The certified relative gap fell to `tol`.
    Gap,
    /// `max_iter` aggregated solves were done.
    MaxIterations,
    /// The time limit was reached.
    TimeLimit,
    /// The monitor asked to stop.
    Stopped,
}

impl AidStatus {
    /// A stable lower-case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            AidStatus::Optimal => "optimal",
            AidStatus::Pure => "pure",
            AidStatus::Gap => "gap",
            AidStatus::MaxIterations => "max_iter",
            AidStatus::TimeLimit => "time_limit",
            AidStatus::Stopped => "stopped",
        }
    }
}

/// One row of the history: one aggregated solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AidIteration {
    /// `t`, from 0.
    pub iteration: usize,
    /// `|K^t|`.
    pub n_clusters: usize,
    /// Best certified lower bound so far (non-decreasing).
    pub lower_bound: f64,
    /// Best full objective so far, `min_{s ≤ t} E^s` (non-increasing).
    pub upper_bound: f64,
    /// `(upper − lower)/upper`.
    pub gap: f64,
    /// `F^t`.
    pub aggregated_objective: f64,
    /// `E^t`.
    pub full_objective: f64,
    /// Clusters that are not pure.
    pub n_impure: usize,
    /// Seconds since the start of the run.
    pub time: f64,
}

/// Receives AID's progress.
pub trait AidMonitor: Send {
    /// Called after every aggregated solve.
    fn iteration(&mut self, record: &AidIteration) -> Control;
    /// The monitor of the inner solves (it may stop them, e.g. on Ctrl-C).
    fn inner(&mut self) -> &mut dyn Monitor;
}

/// An [`AidMonitor`] that never stops.
#[derive(Debug, Default)]
pub struct NoAidMonitor(crate::protocol::NoMonitor);

impl AidMonitor for NoAidMonitor {
    fn iteration(&mut self, _record: &AidIteration) -> Control {
        Control::Continue
    }
    fn inner(&mut self) -> &mut dyn Monitor {
        &mut self.0
    }
}

/// The result of an AID run.
#[derive(Debug, Clone)]
pub struct AidResult<F> {
    /// The fit with the smallest full objective `E^t` seen.
    pub fit: F,
    /// Its full objective.
    pub objective: f64,
    /// The aggregated objective `F^t` of the last solve.
    pub last_aggregated_objective: f64,
    /// The certified lower bound.
    pub lower_bound: f64,
    /// One entry per aggregated solve.
    pub history: Vec<AidIteration>,
    /// How the run ended.
    pub status: AidStatus,
    /// The final partition.
    pub partition: Partition,
}

/// The AID meta-algorithm, generic over the aggregated model (and through it over the inner
/// solver).
#[derive(Debug, Clone, Default)]
pub struct Aid {
    /// Options.
    pub options: AidOptions,
}

impl Aid {
    /// Runs AID from `partition` (which must already respect the model's groups, e.g. be
    /// label-pure for SVM).
    pub fn run<M: AggregatedModel>(
        &self,
        model: &mut M,
        mut partition: Partition,
        monitor: &mut dyn AidMonitor,
    ) -> Result<AidResult<M::Fit>, SolveError> {
        let options = &self.options;
        if !(options.tol.is_finite() && options.tol >= 0.0) {
            return Err(SolveError::InvalidOption {
                name: "tol",
                reason: "must be finite and >= 0",
            });
        }
        if options.max_iter == 0 {
            return Err(SolveError::InvalidOption { name: "max_iter", reason: "must be >= 1" });
        }
        if partition.n_rows() != model.n_rows() {
            return Err(SolveError::LengthMismatch {
                name: "clusters",
                expected: model.n_rows(),
                actual: partition.n_rows(),
            });
        }
        let start = Instant::now();
        let mut history = Vec::new();
        let mut best: Option<(f64, M::Fit)> = None;
        let mut lower = f64::NEG_INFINITY;
        let mut splits = Vec::new();
        loop {
            let (round, fit) = model.solve(&partition, &splits, monitor.inner())?;
            if monitor.inner().interrupted() {
                // Ctrl-C inside the solve: its result is partial (possibly a NaN objective).
                return Err(SolveError::Interrupted);
            }
            if !round.full_objective.is_finite() {
                return Err(SolveError::InvalidProblem {
                    name: "objective",
                    reason: "the aggregated solution has a non-finite objective".into(),
                });
            }
            if best.as_ref().is_none_or(|(e, _)| round.full_objective < *e) {
                best = Some((round.full_objective, fit));
            }
            let upper = best.as_ref().map_or(f64::INFINITY, |(e, _)| *e);
            lower = lower.max(round.lower_bound.min(upper));
            // No lower bound (S3VM, a kernel that is not PSD): no gap either, whatever the sign
            // of the objective.
            let gap = if lower == f64::NEG_INFINITY {
                f64::INFINITY
            } else if upper > 0.0 {
                ((upper - lower) / upper).max(0.0)
            } else {
                0.0
            };
            let impure = partition.impure_clusters(&round.masks);
            let record = AidIteration {
                iteration: history.len(),
                n_clusters: partition.len(),
                lower_bound: lower,
                upper_bound: upper,
                gap,
                aggregated_objective: round.aggregated_objective,
                full_objective: round.full_objective,
                n_impure: impure.len(),
                time: start.elapsed().as_secs_f64(),
            };
            history.push(record);
            let control = monitor.iteration(&record);
            let status = if impure.is_empty() {
                Some(if model.purity_certifies_optimality() && round.solved {
                    AidStatus::Optimal
                } else {
                    AidStatus::Pure
                })
            } else if gap <= options.tol {
                Some(AidStatus::Gap)
            } else if control == Control::Stop {
                Some(AidStatus::Stopped)
            } else if history.len() >= options.max_iter {
                Some(AidStatus::MaxIterations)
            } else if options.time_limit.is_some_and(|limit| start.elapsed() >= limit) {
                Some(AidStatus::TimeLimit)
            } else {
                None
            };
            if let Some(status) = status {
                let (objective, fit) = best.expect("one round was solved");
                return Ok(AidResult {
                    fit,
                    objective,
                    last_aggregated_objective: round.aggregated_objective,
                    lower_bound: lower,
                    history,
                    status,
                    partition,
                });
            }
            splits = partition.split(&impure, &round.cells);
        }
    }
}
