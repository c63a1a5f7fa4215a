//! The AID loop (Park & Klabjan, Algorithm 1) over any [`AggregatedModel`]: solve the
//! aggregated problem, evaluate its solution on every row, keep the best, stop when every
//! cluster is pure or the certified gap is small, else split the impure clusters.

use std::time::{Duration, Instant};

use crate::aid::partition::Partition;
use crate::protocol::{check_option, Control, Monitor, SolveError, SolveOptions};

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

    /// Whether a pure partition certifies optimality only together with a certified gap of at
    /// most `tol` ([`AidTracker::with_gap_certificate`]): purity gives `E^t = F^t` at the
    /// *computed* aggregated solution, the optimum `E*` only when that solution is the
    /// aggregated optimum. LAD's LPs are solved to a relative duality gap of 1e-9, a
    /// certificate of their own (`false`, the default); the SVM's SMO stops on a KKT
    /// violation, which bounds its duality gap `F^t − D^t` only by about `ε C n`, not
    /// relative to the objective (`true`, [`SvmModel`](crate::aid::SvmModel)).
    fn purity_needs_gap(&self) -> bool {
        false
    }

    /// AID's `tol`, given before the first solve, for a model that solves each aggregated
    /// problem until its own duality gap is within a share of it (the SVM). Default: unused.
    fn set_gap_target(&mut self, _tol: f64) {}

    /// The instant the run's `time_limit` counts from, for a model whose solves take the time
    /// left of it (LAD, SVM, S3VM; without it, from their first solve): a driver whose initial
    /// partition solves too (the SVM's sample) gives its start, so that the limit bounds the
    /// whole fit. Default: unused.
    fn start_clock(&mut self, _at: std::time::Instant) {}
}

/// `options` with `time_limit` cut to the time left since `started` (set now when unset): the
/// aggregated solves of the models whose `time_limit` bounds all of them together, as it bounds
/// the run ([`AggregatedModel::start_clock`]).
pub(crate) fn time_left(options: &SolveOptions, started: &mut Option<Instant>) -> SolveOptions {
    let started = *started.get_or_insert_with(Instant::now);
    let mut options = options.clone();
    options.time_limit = options.time_limit.map(|limit| limit.saturating_sub(started.elapsed()));
    options
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
    /// Every cluster is pure, which certifies optimality (LAD; SVM when the certified gap is
    /// also at most `tol`).
    Optimal,
    /// Every cluster is pure without a certificate: for S3VM purity certifies nothing (Prop. 5
    /// is false); for the SVM the certified gap stayed above `tol` (the aggregated optimum
    /// could not be resolved further in float64), or the last solve did not converge.
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

/// What the driver needs to know of one aggregated solve, however its solution was evaluated
/// (on rows in memory by [`AggregatedModel::solve`], or block by block).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundSummary {
    /// `F^t`.
    pub aggregated_objective: f64,
    /// The round's certified lower bound (`−∞`: none).
    pub lower_bound: f64,
    /// `E^t`.
    pub full_objective: f64,
    /// Whether the aggregated solver met its stopping rule ([`Round::solved`]).
    pub solved: bool,
    /// `|K^t|`.
    pub n_clusters: usize,
    /// Clusters that are not pure.
    pub n_impure: usize,
}

/// AID's bookkeeping between aggregated solves (Algorithm 1's steps 3–4 without the rows):
/// the best full objective, the certified lower bound, the gap, the history, and whether and
/// why the run ends. [`Aid::run`] drives it over rows in memory; a driver that holds the rows
/// in blocks (`kernelkit.dask`) drives it through the binding, so both stop alike.
#[derive(Debug, Clone)]
pub struct AidTracker {
    options: AidOptions,
    certifies: bool,
    needs_gap: bool,
    start: Instant,
    history: Vec<AidIteration>,
    best: f64,
    lower: f64,
    last: Option<RoundSummary>,
}

impl AidTracker {
    /// A run with `options`; `certifies`: whether a pure partition certifies optimality
    /// ([`AggregatedModel::purity_certifies_optimality`]). The clock starts now.
    pub fn new(options: AidOptions, certifies: bool) -> Result<Self, SolveError> {
        let tol_ok = options.tol.is_finite() && options.tol >= 0.0;
        check_option(tol_ok, "tol", "must be finite and >= 0")?;
        check_option(options.max_iter != 0, "max_iter", "must be >= 1")?;
        Ok(AidTracker {
            options,
            certifies,
            needs_gap: false,
            start: Instant::now(),
            history: Vec::new(),
            best: f64::INFINITY,
            lower: f64::NEG_INFINITY,
            last: None,
        })
    }

    /// A pure partition then certifies optimality only with a certified gap of at most `tol`
    /// ([`AggregatedModel::purity_needs_gap`]).
    pub fn with_gap_certificate(mut self, needs_gap: bool) -> Self {
        self.needs_gap = needs_gap;
        self
    }

    /// The relative gap `(upper − lower)/upper` of bounds `upper`, `lower`.
    fn relative_gap(upper: f64, lower: f64) -> f64 {
        // No lower bound (S3VM, a kernel that is not PSD): no gap either, whatever the sign
        // of the objective.
        if lower == f64::NEG_INFINITY {
            f64::INFINITY
        } else if upper > 0.0 {
            ((upper - lower) / upper).max(0.0)
        } else {
            0.0
        }
    }

    /// Whether a pure partition from a solve with lower bound `lower_bound` and full objective
    /// `full_objective` would fall short of a certificate only for want of the gap: then
    /// [`Aid::run`] tests it for purity again with the strict cells.
    pub fn purity_falls_short(&self, lower_bound: f64, full_objective: f64) -> bool {
        let upper = self.best.min(full_objective);
        let lower = self.lower.max(lower_bound.min(upper));
        self.certifies && self.needs_gap && Self::relative_gap(upper, lower) > self.options.tol
    }

    /// Records one aggregated solve: returns its history entry and whether its full objective
    /// is the best so far (the caller keeps that round's fit).
    pub fn record(&mut self, round: &RoundSummary) -> Result<(AidIteration, bool), SolveError> {
        if !round.full_objective.is_finite() {
            return Err(SolveError::invalid(
                "objective",
                "the aggregated solution has a non-finite objective",
            ));
        }
        let improved = self.history.is_empty() || round.full_objective < self.best;
        if improved {
            self.best = round.full_objective;
        }
        let upper = self.best;
        self.lower = self.lower.max(round.lower_bound.min(upper));
        let lower = self.lower;
        let gap = Self::relative_gap(upper, lower);
        let record = AidIteration {
            iteration: self.history.len(),
            n_clusters: round.n_clusters,
            lower_bound: lower,
            upper_bound: upper,
            gap,
            aggregated_objective: round.aggregated_objective,
            full_objective: round.full_objective,
            n_impure: round.n_impure,
            time: self.start.elapsed().as_secs_f64(),
        };
        self.history.push(record);
        self.last = Some(*round);
        Ok((record, improved))
    }

    /// How the run ends after the last recorded solve, given the monitor's word on it (`None`:
    /// go on and split the impure clusters; also before any solve).
    pub fn status(&self, control: Control) -> Option<AidStatus> {
        let (round, record) = (self.last?, self.history.last()?);
        let out_of_time =
            self.options.time_limit.is_some_and(|limit| self.start.elapsed() >= limit);
        if round.n_impure == 0 && !round.solved && (control == Control::Stop || out_of_time) {
            // A solve cut short (the S3VM's label search at the time limit): its partition's
            // purity says nothing of the search it did not finish.
            Some(if control == Control::Stop { AidStatus::Stopped } else { AidStatus::TimeLimit })
        } else if round.n_impure == 0 {
            let gap_met = !self.needs_gap || record.gap <= self.options.tol;
            let certified = self.certifies && round.solved && gap_met;
            Some(if certified { AidStatus::Optimal } else { AidStatus::Pure })
        } else if record.gap <= self.options.tol {
            Some(AidStatus::Gap)
        } else if control == Control::Stop {
            Some(AidStatus::Stopped)
        } else if self.history.len() >= self.options.max_iter {
            Some(AidStatus::MaxIterations)
        } else if out_of_time {
            Some(AidStatus::TimeLimit)
        } else {
            None
        }
    }

    /// The best full objective so far (`+∞` before any solve).
    pub fn best_objective(&self) -> f64 {
        self.best
    }

    /// The certified lower bound so far.
    pub fn lower_bound(&self) -> f64 {
        self.lower
    }

    /// One entry per recorded solve.
    pub fn history(&self) -> &[AidIteration] {
        &self.history
    }

    /// The history, taken out.
    pub fn into_history(self) -> Vec<AidIteration> {
        self.history
    }
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
        let mut tracker =
            AidTracker::new(self.options.clone(), model.purity_certifies_optimality())?
                .with_gap_certificate(model.purity_needs_gap());
        model.set_gap_target(self.options.tol);
        if partition.n_rows() != model.n_rows() {
            return Err(SolveError::LengthMismatch {
                name: "clusters",
                expected: model.n_rows(),
                actual: partition.n_rows(),
            });
        }
        let mut best: Option<M::Fit> = None;
        let mut splits = Vec::new();
        loop {
            let (round, fit) = model.solve(&partition, &splits, monitor.inner())?;
            if monitor.inner().interrupted() {
                // Ctrl-C inside the solve: its result is partial (possibly a NaN objective).
                return Err(SolveError::Interrupted);
            }
            let mut impure = partition.impure_clusters(&round.masks);
            if impure.is_empty()
                && round.solved
                && tracker.purity_falls_short(round.lower_bound, round.full_objective)
            {
                // Rows within the purity tolerance of their margin fit both cells, but their
                // hinges, `C Σ |g_i|` over them, are in `E^t` and not in `F^t`: where that
                // keeps the gap above `tol`, split their clusters by the strict cells.
                let strict: Vec<u8> = round.cells.iter().map(|&cell| 1u8 << cell).collect();
                impure = partition.impure_clusters(&strict);
            }
            let summary = RoundSummary {
                aggregated_objective: round.aggregated_objective,
                lower_bound: round.lower_bound,
                full_objective: round.full_objective,
                solved: round.solved,
                n_clusters: partition.len(),
                n_impure: impure.len(),
            };
            let (record, improved) = tracker.record(&summary)?;
            if improved {
                best = Some(fit);
            }
            let control = monitor.iteration(&record);
            if let Some(status) = tracker.status(control) {
                return Ok(AidResult {
                    fit: best.expect("one round was solved"),
                    objective: tracker.best_objective(),
                    last_aggregated_objective: round.aggregated_objective,
                    lower_bound: tracker.lower_bound(),
                    history: tracker.into_history(),
                    status,
                    partition,
                });
            }
            splits = partition.split(&impure, &round.cells);
        }
    }
}
