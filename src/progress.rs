//! The bridge from a running solve (GIL released) to Python: Ctrl-C and the user's callback.
//!
//! Python runs signal handlers only on its main thread, while the solve runs on a worker of its
//! rayon pool. So [`run_interruptible`] keeps the calling thread as a watcher: it waits for the
//! solve, checks for signals every [`SIGNAL_POLL`], and on Ctrl-C raises a flag that the
//! [`PythonMonitor`] reads at its next report; the solve then returns with status "stopped" and
//! the `KeyboardInterrupt` is raised in Python.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use kernelkit_solvers::{Control, Monitor, PoolLease, Progress};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::CoreError;

/// Least time between two calls of the user's callback.
const MIN_INTERVAL: Duration = Duration::from_millis(20);
/// How often the watching thread checks for signals.
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// A flag that stops the solves given it (solver option `stop`) at their next report, read
/// without the GIL: one-vs-one's concurrent pairs are stopped with it when one of them fails
/// or the fit is interrupted. Their results are discarded, so a stopped solve returns at once,
/// as on Ctrl-C (no final gradient rebuild: no objective, bias or gap). (A Python callback
/// for that would take the GIL in every solve, against the threads preparing the next pairs,
/// and slowed fits; measurements: `docs/performance.md`, "One-vs-one pairs from Python".)
#[pyclass(frozen, module = "kernelkit._core")]
pub(crate) struct StopFlag {
    pub(crate) flag: Arc<AtomicBool>,
}

#[pymethods]
impl StopFlag {
    #[new]
    fn new() -> Self {
        StopFlag { flag: Arc::new(AtomicBool::new(false)) }
    }

    /// Stops every solve holding the flag, at its next report.
    fn set(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Whether `set` was called.
    fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

/// Stops the solve when the watcher saw Ctrl-C, and calls the callback after at least
/// [`MIN_INTERVAL`] of solving, and at least as long as the callback's last call took: the
/// solve waits while the callback runs, so a slow callback takes at most half of the time (a
/// 300 ms callback timed from the start of its call was called again after every report, and
/// a 0.7 s fit took 250 s).
pub(crate) struct PythonMonitor {
    callback: Option<Py<PyAny>>,
    /// When the callback may be called next (`None`: at the first report).
    next_visit: Option<Instant>,
    interrupted: Arc<AtomicBool>,
    /// The exception raised by the callback, if any.
    pub error: Option<PyErr>,
}

impl PythonMonitor {
    pub(crate) fn new(callback: Option<Py<PyAny>>, interrupted: Arc<AtomicBool>) -> Self {
        PythonMonitor { callback, next_visit: None, interrupted, error: None }
    }

    fn visit(&mut self, py: Python<'_>, progress: &Progress) -> PyResult<Control> {
        let Some(callback) = &self.callback else { return Ok(Control::Continue) };
        let report = PyDict::new(py);
        report.set_item("iteration", progress.iteration)?;
        report.set_item("gap", progress.gap)?;
        report.set_item("objective", progress.objective)?;
        report.set_item("active_size", progress.active_size)?;
        report.set_item("cache_hits", progress.cache.hits)?;
        report.set_item("cache_misses", progress.cache.misses)?;
        let answer = callback.call1(py, (report,))?;
        let stop = answer.is_truthy(py).map_err(|error| {
            let message = format!(
                "callback must return None or a bool (true stops the solve), got a value whose \
                 truth is undefined: {error}"
            );
            PyValueError::new_err(message)
        })?;
        Ok(if stop { Control::Stop } else { Control::Continue })
    }
}

impl Monitor for PythonMonitor {
    fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::Relaxed)
    }

    fn report(&mut self, progress: &Progress) -> Control {
        if self.interrupted.load(Ordering::Relaxed) {
            return Control::Stop;
        }
        if self.callback.is_none() || self.next_visit.is_some_and(|t| Instant::now() < t) {
            return Control::Continue;
        }
        Python::attach(|py| {
            // Timed from the call itself, not from before the wait for the GIL: a wait longer
            // than the next one put two calls less than MIN_INTERVAL apart (16-18 ms).
            let called = Instant::now();
            let control = match self.visit(py, progress) {
                Ok(control) => control,
                Err(error) => {
                    self.error = Some(error);
                    Control::Stop
                }
            };
            let returned = Instant::now();
            self.next_visit = Some(returned + MIN_INTERVAL.max(returned - called));
            control
        })
    }
}

/// Where a Ctrl-C can meet a call of the core that this module watches: the points at which
/// [`_simulate_interrupt_at`] makes one arrive, deterministically, for the test suite.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum InterruptPoint {
    /// In Rust with the GIL held, before the watcher starts polling.
    BeforeWatch = 1,
    /// On the solving thread (not Python's main thread), as the job starts.
    InSolver = 2,
    /// After the job has returned and the watcher has stopped polling: pending when the call
    /// returns to Python, where it must still raise before `fit` returns.
    AfterSolve = 3,
}

/// The point at which the next watched call simulates a Ctrl-C (0: none); cleared when used.
static SIMULATED_INTERRUPT: AtomicU8 = AtomicU8::new(0);

/// At `point`, if a test asked for it: a Ctrl-C as if SIGINT had arrived there
/// (`PyErr_SetInterrupt` trips Python's SIGINT handler from any thread, GIL or not).
fn simulate_interrupt(point: InterruptPoint) {
    let asked = SIMULATED_INTERRUPT
        .compare_exchange(point as u8, 0, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    if asked {
        // SAFETY: async-signal-safe, callable without the GIL (CPython's documentation).
        unsafe { pyo3::ffi::PyErr_SetInterrupt() };
    }
}

/// Test hook: the next watched call of the core simulates a Ctrl-C at `point`
/// (`"before_watch"`, `"in_solver"` or `"after_solve"`; `None` clears it).
#[pyfunction]
#[pyo3(signature = (point))]
pub(crate) fn _simulate_interrupt_at(point: Option<&str>) -> PyResult<()> {
    let code = match point {
        None => 0,
        Some("before_watch") => InterruptPoint::BeforeWatch as u8,
        Some("in_solver") => InterruptPoint::InSolver as u8,
        Some("after_solve") => InterruptPoint::AfterSolve as u8,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "point must be 'before_watch', 'in_solver', 'after_solve' or None, got {other:?}"
            )))
        }
    };
    SIMULATED_INTERRUPT.store(code, Ordering::SeqCst);
    Ok(())
}

/// Runs `job` with the GIL released in a leased pool of `n_threads` threads (`0`: one per core),
/// never on rayon's global pool: a forked child process inherits the global pool without its
/// threads, and a job queued there waits forever (the leased pools are fork-safe:
/// `kernelkit_solvers::parallel`). For short steps that report no progress; a solve runs
/// through [`run_interruptible`].
pub(crate) fn detached<T: Send>(
    py: Python<'_>,
    n_threads: usize,
    job: impl FnOnce() -> T + Send,
) -> Result<T, CoreError> {
    py.detach(|| kernelkit_solvers::with_thread_pool(n_threads, job)).map_err(CoreError::from)
}

/// Runs `job` with the GIL released on a thread of a pool of `n_threads` threads (`0`: one per
/// core) lent to it alone, while this thread checks for signals every [`SIGNAL_POLL`]. On a
/// signal whose handler raises (Ctrl-C), sets `interrupted` and keeps the exception, which is
/// returned once the job has stopped. A panic of the job (a bug) becomes a `RuntimeError`
/// naming it as an internal error, never an abort.
///
/// The job is spawned into the pool (`in_place_scope`), not handed to a thread started for the
/// call: a one-vs-one fit solves 45 pairs on USPS, and a thread per solve cost a start, a stack
/// mapped and unmapped, and a second hand-over to the pool each time.
pub(crate) fn run_interruptible<T: Send>(
    py: Python<'_>,
    interrupted: &Arc<AtomicBool>,
    n_threads: usize,
    job: impl FnOnce() -> T + Send,
) -> PyResult<(T, Option<PyErr>)> {
    simulate_interrupt(InterruptPoint::BeforeWatch);
    let outcome = py.detach(|| {
        let lease = PoolLease::take(n_threads).map_err(CoreError::from)?;
        let (done, finished) = mpsc::channel::<()>();
        let mut result = None;
        let mut signal = None;
        // A panic of the job reaches this thread when the scope ends (rayon resumes it there).
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let slot = &mut result;
            lease.pool().in_place_scope(|scope| {
                // `move`: a panic of the job drops the sender, which ends the wait below.
                scope.spawn(move |_| {
                    simulate_interrupt(InterruptPoint::InSolver);
                    *slot = Some(job());
                    let _ = done.send(());
                });
                // Ends when the job sent its result or dropped the sender (a panic).
                watch_signals(&finished, interrupted, &mut signal);
            })
        }));
        match (outcome, result) {
            (Ok(()), Some(result)) => Ok((result, signal)),
            (Err(panic), _) => Err(internal_error(panic.as_ref())),
            (Ok(()), None) => Err(PyRuntimeError::new_err(
                "kernelkit internal error (a bug; please report it): the solve returned nothing",
            )),
        }
    });
    simulate_interrupt(InterruptPoint::AfterSolve);
    outcome
}

/// [`run_interruptible`] for a computation without a solver's monitor (a prediction's kernel
/// values): `job` is given the flag that Ctrl-C raises and stops at its next check of it (the
/// kernels' blocks of rows). On Ctrl-C the partial result is dropped and the `KeyboardInterrupt`
/// returned, so the caller never sees an incomplete result.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    n_threads: usize,
    job: impl FnOnce(&AtomicBool) -> Result<T, CoreError> + Send,
) -> PyResult<T> {
    let interrupted = Arc::new(AtomicBool::new(false));
    let (result, signal) = run_interruptible(py, &interrupted, n_threads, || job(&interrupted))?;
    match signal {
        Some(error) => Err(error),
        None => Ok(result?),
    }
}

/// Runs `worker` once on each of `n_workers` pools of one thread (leased as for a solve, so
/// that each worker's solves have their own thread team) with the GIL released, while this
/// thread checks for signals every [`SIGNAL_POLL`] (Ctrl-C raises `interrupted`, which the
/// workers' monitors read). Returns the signal's exception, if any, once every worker has
/// returned; a panic of a worker becomes a `RuntimeError`, as in [`run_interruptible`].
pub(crate) fn run_workers(
    py: Python<'_>,
    interrupted: &Arc<AtomicBool>,
    n_workers: usize,
    worker: &(dyn Fn() + Sync),
) -> PyResult<Option<PyErr>> {
    simulate_interrupt(InterruptPoint::BeforeWatch);
    let worker = &|| {
        simulate_interrupt(InterruptPoint::InSolver);
        worker();
    };
    let outcome = py.detach(|| {
        let leases = (0..n_workers.max(1))
            .map(|_| PoolLease::take(1))
            .collect::<Result<Vec<_>, _>>()
            .map_err(CoreError::from)?;
        // Each worker holds a sender, dropped when it returns or panics: the wait below ends
        // when every sender is gone.
        let (sender, finished) = mpsc::channel::<()>();
        let mut signal = None;
        let wait = &mut |sender: mpsc::Sender<()>| {
            drop(sender);
            watch_signals(&finished, interrupted, &mut signal);
        };
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            spawn_workers(&leases, worker, sender, wait);
        }))
        .map_err(|panic| internal_error(panic.as_ref()))?;
        Ok(signal)
    });
    simulate_interrupt(InterruptPoint::AfterSolve);
    outcome
}

/// Waits until `finished` receives or every sender is dropped, checking for signals every
/// [`SIGNAL_POLL`]: the first one raised (Ctrl-C) sets `interrupted` and is kept in `signal`.
fn watch_signals(
    finished: &mpsc::Receiver<()>,
    interrupted: &AtomicBool,
    signal: &mut Option<PyErr>,
) {
    while let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(SIGNAL_POLL) {
        if signal.is_none() {
            if let Err(error) = Python::attach(|py| py.check_signals()) {
                interrupted.store(true, Ordering::Relaxed);
                *signal = Some(error);
            }
        }
    }
}

/// Spawns `worker` into the first lease's pool and recurses into the others, then `wait`s
/// (inside every scope, which end once their workers have returned).
fn spawn_workers(
    leases: &[PoolLease],
    worker: &(dyn Fn() + Sync),
    sender: mpsc::Sender<()>,
    wait: &mut dyn FnMut(mpsc::Sender<()>),
) {
    match leases.split_first() {
        None => wait(sender),
        Some((lease, rest)) => lease.pool().in_place_scope(|scope| {
            let mine = sender.clone();
            scope.spawn(move |_| {
                worker();
                drop(mine);
            });
            spawn_workers(rest, worker, sender, wait);
        }),
    }
}

/// The Python exception for a Rust panic: a bug in kernelkit, reported with its message.
fn internal_error(payload: &(dyn std::any::Any + Send)) -> PyErr {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    PyRuntimeError::new_err(format!(
        "kernelkit internal error (a bug; please report it): {message}"
    ))
}

/// Panics inside a solver thread, to test that the panic reaches Python as a `RuntimeError`.
#[pyfunction]
pub(crate) fn _panic_in_solver_thread(py: Python<'_>) -> PyResult<()> {
    let interrupted = Arc::new(AtomicBool::new(false));
    let (never, _) = run_interruptible(py, &interrupted, 1, || -> u8 {
        panic!("deliberate panic for the test suite")
    })?;
    Err(PyRuntimeError::new_err(format!("the panic was lost ({never})")))
}
