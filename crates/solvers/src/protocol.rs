//! The uniform solver protocol shared by every engine (DESIGN.md, "The uniform Solver protocol").

use std::time::{Duration, Instant};

use kernelkit_kernels::{CacheStats, KernelError, KernelPath, Level};

/// A solver for problems of type `P`.
pub trait Solver<P> {
    /// A short stable name (`"smo"`, …).
    fn name(&self) -> &'static str;

    /// Solves `problem`, reporting to `monitor`. Hitting a limit is a [`Status`], not an error.
    fn solve(
        &self,
        problem: &mut P,
        options: &SolveOptions,
        monitor: &mut dyn Monitor,
    ) -> Result<Solution, SolveError>;
}

/// Implements [`Solver`]`<$problem>` for `$solver` (with the impl's generic parameters in the
/// brackets) by its inherent method `$method`, which solves and returns the solution with
/// something more (a report, a scale): [`Solver::solve`] keeps the solution. [`Solver::name`]
/// is `$name` (a `fn(&Self) -> &'static str`) of the solver.
macro_rules! solver_by_method {
    (impl[$($generics:tt)*] $problem:ty => $solver:ty, $method:ident, $name:expr) => {
        impl<$($generics)*> $crate::protocol::Solver<$problem> for $solver {
            fn name(&self) -> &'static str {
                let name: fn(&Self) -> &'static str = $name;
                name(self)
            }

            fn solve(
                &self,
                problem: &mut $problem,
                options: &$crate::protocol::SolveOptions,
                monitor: &mut dyn $crate::protocol::Monitor,
            ) -> Result<$crate::protocol::Solution, $crate::protocol::SolveError> {
                Ok(self.$method(problem, options, monitor)?.0)
            }
        }
    };
}
pub(crate) use solver_by_method;

/// Options common to every solver.
#[derive(Debug, Clone, PartialEq)]
pub struct SolveOptions {
    /// Stopping tolerance on the maximal KKT violation (LIBSVM's `eps`).
    pub tol: f64,
    /// Iteration limit (`None`: LIBSVM's `max(10⁷, 100·l)` for a solve of `l` variables,
    /// [`SolveOptions::iteration_limit`]).
    pub max_iter: Option<u64>,
    /// Kernel cache budget in bytes.
    pub cache_bytes: usize,
    /// Whether to shrink the active set (LIBSVM's `-h`).
    pub shrinking: bool,
    /// Threads for the parallel passes (`0` = one per core); results do not depend on it.
    pub n_threads: usize,
    /// Seed for randomised solvers.
    pub seed: u64,
    /// Wall-clock limit.
    pub time_limit: Option<Duration>,
    /// The monitor is called every this many iterations.
    pub report_every: u64,
    /// The decomposition the SMO solvers ([`crate::Smo`], [`crate::NuSmo`]) run; other solvers
    /// ignore it.
    pub engine: Engine,
    /// Most variables per batch of the batched engine (`None`: 256, fewer when the cache holds
    /// fewer than two batches' columns).
    pub batch_size: Option<usize>,
    /// The batched engine shrinks (with `shrinking`) problems of at least this many variables.
    /// Smaller ones' active sets fall below the few thousand positions from which a pass is
    /// split over the threads (`PARALLEL_MIN_LEN`), so shrinking would move most of their work
    /// onto one thread: on two threads it slowed the smaller problems measured and sped up the
    /// larger ones (measurements: `docs/performance.md`, "The batched engine's constants").
    pub batched_shrinking_from: usize,
    /// The vector instructions the solvers' scans may use (default [`Level::current`], the
    /// level of the kernel loops; a lower level gives bitwise the same scans, a higher one than
    /// the CPU's is lowered to it).
    pub simd: Level,
}

/// The decomposition of the SMO solvers (see `smo` and `smo::batched`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The solver chooses from the problem (never from the thread count, so that the model
    /// does not depend on it) and reports its choice in [`SolveStats::engine`].
    #[default]
    Auto,
    /// LIBSVM's: one pair per iteration, with shrinking (LIBSVM's iterations exactly).
    Libsvm,
    /// Batches of many variables: their columns computed as one block, their subproblem solved
    /// by the same pair steps on one thread, the gradient updated once per batch.
    Batched,
}

impl Engine {
    /// A stable lower-case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Libsvm => "libsvm",
            Engine::Batched => "batched",
        }
    }

    /// The engine of a name given by [`Engine::as_str`].
    pub fn parse(name: &str) -> Option<Engine> {
        [Engine::Auto, Engine::Libsvm, Engine::Batched].into_iter().find(|e| e.as_str() == name)
    }
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            tol: 1e-3,
            max_iter: None,
            cache_bytes: 200 << 20,
            shrinking: true,
            n_threads: 0,
            seed: 0,
            time_limit: None,
            report_every: 64,
            engine: Engine::Auto,
            batch_size: None,
            batched_shrinking_from: 20_000,
            simd: Level::current(),
        }
    }
}

impl SolveOptions {
    /// The iteration limit of a solve of `l` variables: `max_iter`, else LIBSVM's
    /// `max(10⁷, 100·l)` (`Solver::Solve`). Every iterative solver stops there (status
    /// `max_iterations`): a tolerance below what the problem's rounding resolves would
    /// otherwise never end, as it does not in scikit-learn, whose copy of LIBSVM dropped the
    /// limit.
    pub fn iteration_limit(&self, l: usize) -> u64 {
        self.max_iter.unwrap_or_else(|| (l as u64).saturating_mul(100).max(10_000_000))
    }

    /// Checks the options.
    pub fn validate(&self) -> Result<(), SolveError> {
        check_option(self.tol.is_finite() && self.tol > 0.0, "tol", "must be finite and > 0")?;
        check_option(self.max_iter != Some(0), "max_iter", "must be >= 1")?;
        check_option(self.batch_size.is_none_or(|size| size >= 2), "batch_size", "must be >= 2")?;
        check_option(self.report_every != 0, "report_every", "must be >= 1")
    }
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The stopping criterion holds.
    Converged,
    /// `max_iter` was reached.
    MaxIterations,
    /// `time_limit` was reached.
    TimeLimit,
    /// The monitor asked to stop.
    Stopped,
    /// A non-finite value appeared.
    NumericalError,
    /// The objective stopped decreasing before the tolerance was met (the tolerance is below
    /// what floating point can resolve for this problem).
    Stalled,
    /// The stopping criterion holds, but the problem is not convex (its kernel matrix is not
    /// positive semidefinite: the kernel function does not guarantee it, or the solve met a
    /// pair with negative curvature), so the point is stationary, not certified optimal.
    NotConvex,
}

impl Status {
    /// A stable lower-case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Converged => "converged",
            Status::MaxIterations => "max_iterations",
            Status::TimeLimit => "time_limit",
            Status::Stopped => "stopped",
            Status::NumericalError => "numerical_error",
            Status::Stalled => "stalled",
            Status::NotConvex => "not_convex",
        }
    }
}

/// Whether a curvature `η` (a pair's `K_ii + K_jj − 2K_ij`, a direction's `‖z_v − c‖²`) proves
/// the kernel matrix indefinite: `η < −1e-10 · scale`, `scale` the magnitude of the values `η`
/// was computed from (round-off in a positive semidefinite matrix's values stays orders of
/// magnitude below it). The solvers that meet one end with [`Status::NotConvex`] where they
/// would have reported [`Status::Converged`].
pub(crate) fn negative_curvature(eta: f64, scale: f64) -> bool {
    eta < -1e-10 * scale
}

/// Counters of one solve.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SolveStats {
    /// Kernel cache counters at exit.
    pub cache: CacheStats,
    /// Iterations whose step increased the objective (must stay 0 for a convex problem).
    pub objective_increases: u64,
    /// Times the gradient of the shrunk variables was reconstructed.
    pub gradient_reconstructions: u64,
    /// Smallest active-set size reached by shrinking.
    pub min_active_size: u64,
    /// Parallel passes of the solve: the points where its threads met
    /// ([`kernelkit_kernels::team::Passes`]; the same number for any thread count).
    pub parallel_passes: u64,
    /// The solve's wall time outside its parallel passes (the part no thread count shortens).
    pub serial_time: std::time::Duration,
    /// The engine an SMO solve ran ([`Engine::Libsvm`] or [`Engine::Batched`]; `None` for
    /// other solvers).
    pub engine: Option<Engine>,
    /// Batches of the batched engine (0 for the others).
    pub batches: u64,
    /// How the kernel values were computed (set by whoever built the kernel source: the
    /// solvers know only the columns).
    pub kernel_path: Option<KernelPath>,
    /// A warm start converged to a degenerate optimum and the problem was solved again from
    /// the cold start (`formulations`, "A warm start whose optimum is degenerate"): the other
    /// counters are that solve's.
    pub restarted_cold: bool,
}

/// The result of a solve.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// The variables, in the problem's original order.
    pub x: Vec<f64>,
    /// The objective value at `x`.
    pub objective: f64,
    /// The bias `b` of the decision function `Σ … + b` (LIBSVM's `−ρ`).
    pub bias: f64,
    /// The maximal KKT violation at exit.
    pub gap: f64,
    /// Iterations performed.
    pub iterations: u64,
    /// How the solve ended.
    pub status: Status,
    /// Counters.
    pub stats: SolveStats,
    /// The objective's gradient at `x` (`Qx + p` of a [`BoxQp`](crate::box_qp::BoxQp)), in
    /// the order of `x`, where the solver ends with it exact and `x` is the problem's own
    /// variables (the SMO solvers of C-SVC and the one-class SVM: a warm start from `x` passes
    /// it back as `BoxQp::gradient0`); `None` elsewhere.
    pub gradient: Option<Vec<f64>>,
}

/// What a solver reports to its [`Monitor`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Iterations so far.
    pub iteration: u64,
    /// The current maximal KKT violation (over the active set).
    pub gap: f64,
    /// The current objective value.
    pub objective: f64,
    /// Variables in the active set.
    pub active_size: usize,
    /// Kernel cache counters.
    pub cache: CacheStats,
}

/// The answer of a [`Monitor`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Go on.
    Continue,
    /// Stop now; the solver returns its current point with [`Status::Stopped`].
    Stop,
}

/// Receives progress during a solve.
pub trait Monitor: Send {
    /// Called every `report_every` iterations.
    fn report(&mut self, progress: &Progress) -> Control;

    /// Whether the solve must end at once, its result to be discarded (Ctrl-C). Solvers check
    /// it inside long phases that have no consistent point to report, such as SMO's gradient
    /// initialisation; they then return [`Status::Stopped`] with a non-finite objective.
    fn interrupted(&self) -> bool {
        false
    }
}

/// A monitor that never stops the solve.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoMonitor;

impl Monitor for NoMonitor {
    fn report(&mut self, _progress: &Progress) -> Control {
        Control::Continue
    }
}

/// What every few steps of a solve checks (every [`SolveOptions::report_every`] iterations):
/// the time limit, then the monitor, given the `progress` only when the time is not up.
/// `Some(status)` ends the solve.
pub(crate) fn checkpoint(
    options: &SolveOptions,
    started: Instant,
    monitor: &mut dyn Monitor,
    progress: impl FnOnce() -> Progress,
) -> Option<Status> {
    if options.time_limit.is_some_and(|t| started.elapsed() >= t) {
        return Some(Status::TimeLimit);
    }
    (monitor.report(&progress()) == Control::Stop).then_some(Status::Stopped)
}

/// `Ok` when the option `name` `holds`, else [`SolveError::InvalidOption`] "invalid option
/// `name`: `reason`".
pub(crate) fn check_option(
    holds: bool,
    name: &'static str,
    reason: &'static str,
) -> Result<(), SolveError> {
    if holds {
        Ok(())
    } else {
        Err(SolveError::InvalidOption { name, reason })
    }
}

/// Checks that the problem parameter `name` (`C`, `lam`) is finite and `> 0`: else
/// [`SolveError::InvalidProblem`] "`name` = `value` must be finite and > 0".
pub(crate) fn check_positive(name: &'static str, value: f64) -> Result<(), SolveError> {
    if value.is_finite() && value > 0.0 {
        return Ok(());
    }
    Err(SolveError::invalid(name, format!("{name} = {value} must be finite and > 0")))
}

impl SolveError {
    /// [`SolveError::InvalidProblem`]: "invalid `name`: `reason`".
    pub fn invalid(name: &'static str, reason: impl Into<String>) -> Self {
        SolveError::InvalidProblem { name, reason: reason.into() }
    }
}

/// Invalid problems and options. Every variant names what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolveError {
    /// Invalid kernel data or parameters.
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// A problem vector of the wrong length.
    #[error("{name} has length {actual}, expected {expected}")]
    LengthMismatch {
        /// Name of the vector.
        name: &'static str,
        /// Length expected.
        expected: usize,
        /// Length received.
        actual: usize,
    },
    /// A problem value out of its domain.
    #[error("invalid {name}: {reason}")]
    InvalidProblem {
        /// What is wrong.
        name: &'static str,
        /// Why.
        reason: String,
    },
    /// An option out of its domain.
    #[error("invalid option {name}: {reason}")]
    InvalidOption {
        /// Option name.
        name: &'static str,
        /// What is required.
        reason: &'static str,
    },
    /// The thread pool could not be built.
    #[error("could not start the thread pool: {0}")]
    ThreadPool(String),
    /// The monitor reported an interruption (Ctrl-C) in a phase whose partial result cannot be
    /// used (AID's start); the caller raises the interruption itself.
    #[error("interrupted")]
    Interrupted,
}
