//! AID entry points: LAD, SVM and S3VM over dense rows, and the aggregated kernel (the Dask
//! driver's single steps are in `aid_steps.rs`).
//!
//! Every entry point takes the initial clusters as `init` (`"kmeans"` or `"random"` with
//! `n_clusters` and `seed`, or an `int64` array of cluster ids), the AID options (`tol`,
//! `max_iter`, `time_limit`) and the inner solver's options as keyword arguments (see
//! [`parse_options`]); `callback` receives one dict per aggregated solve. The result is a dict.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use kernelkit_solvers::aid::{
    lad_partition, s3vm_partition, svm_partition, AggregatedGram, AggregatedModel, Aid,
    AidIteration, AidMonitor, AidOptions, AidResult, ClarabelLp, Initial, LadModel, Partition,
    S3vmBalance, S3vmData, S3vmModel, SvmData, SvmModel, WeightedLad,
};
use kernelkit_solvers::{Control, Monitor, Smo, SolveError, Solver};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::aid_steps::s3vm_labels;
use crate::arrays::{matrix, vector};
use crate::errors::CoreError;
use crate::kernel::Kernel;
use crate::options::parse_options;
use crate::progress::{detached, run_interruptible, PythonMonitor};
use crate::solve::{run, Solution};

/// Calls the user's callback after every aggregated solve; the inner solves get a monitor that
/// only watches for Ctrl-C.
struct PythonAidMonitor {
    callback: Option<Py<PyAny>>,
    interrupted: Arc<AtomicBool>,
    inner: PythonMonitor,
    error: Option<PyErr>,
}

impl PythonAidMonitor {
    fn visit(&self, py: Python<'_>, record: &AidIteration) -> PyResult<Control> {
        let Some(callback) = &self.callback else { return Ok(Control::Continue) };
        let answer = callback.call1(py, (history_entry(py, record)?,))?;
        Ok(if answer.is_truthy(py)? { Control::Stop } else { Control::Continue })
    }
}

impl AidMonitor for PythonAidMonitor {
    fn iteration(&mut self, record: &AidIteration) -> Control {
        if self.interrupted.load(Ordering::Relaxed) {
            return Control::Stop;
        }
        if self.callback.is_none() {
            return Control::Continue;
        }
        Python::attach(|py| match self.visit(py, record) {
            Ok(control) => control,
            Err(error) => {
                self.error = Some(error);
                Control::Stop
            }
        })
    }

    fn inner(&mut self) -> &mut dyn Monitor {
        &mut self.inner
    }
}

pub(crate) fn history_entry<'py>(
    py: Python<'py>,
    record: &AidIteration,
) -> PyResult<Bound<'py, PyDict>> {
    let entry = PyDict::new(py);
    entry.set_item("iteration", record.iteration)?;
    entry.set_item("n_clusters", record.n_clusters)?;
    entry.set_item("lower_bound", record.lower_bound)?;
    entry.set_item("upper_bound", record.upper_bound)?;
    entry.set_item("gap", record.gap)?;
    entry.set_item("time", record.time)?;
    entry.set_item("aggregated_objective", record.aggregated_objective)?;
    entry.set_item("full_objective", record.full_objective)?;
    entry.set_item("n_impure", record.n_impure)?;
    Ok(entry)
}

/// The initial clusters from Python's `init`, `n_clusters` and `seed`.
fn initial(init: &Bound<'_, PyAny>, n_clusters: usize, seed: u64, n: usize) -> PyResult<Initial> {
    if let Ok(kind) = init.extract::<String>() {
        return match kind.as_str() {
            "kmeans" => Ok(Initial::KMeans { k: n_clusters, seed }),
            "random" => Ok(Initial::Random { k: n_clusters, seed }),
            other => Err(PyValueError::new_err(format!(
                "init must be 'kmeans', 'random' or an array of cluster ids, got {other:?}"
            ))),
        };
    }
    let labels: PyReadonlyArray1<'_, i64> = init.extract()?;
    let labels = labels.as_array().to_vec();
    if labels.len() != n {
        return Err(PyValueError::new_err(format!(
            "init has {} cluster ids, expected one per row ({n})",
            labels.len()
        )));
    }
    Ok(Initial::Given(labels))
}

/// Checks that `X` and `y` have the same rows, then reads the initial clusters.
fn start(
    init: &Bound<'_, PyAny>,
    n_clusters: usize,
    seed: u64,
    rows: usize,
    n: usize,
) -> PyResult<Initial> {
    if rows != n {
        return Err(PyValueError::new_err(format!("X has {rows} rows but y has {n}")));
    }
    initial(init, n_clusters, seed, n)
}

/// Everything an AID entry point needs besides the data.
struct Run {
    aid: Aid,
    inner: kernelkit_solvers::SolveOptions,
    callback: Option<Py<PyAny>>,
    /// Set by Ctrl-C or a given `StopFlag`.
    interrupted: Arc<AtomicBool>,
}

fn parse_run(tol: f64, max_iter: usize, options: Option<&Bound<'_, PyDict>>) -> PyResult<Run> {
    let parsed = parse_options(options)?;
    // `time_limit` bounds the whole run: checked between aggregated solves, and each inner
    // solve gets the time left (`run_aid`).
    let aid = Aid { options: AidOptions { tol, max_iter, time_limit: parsed.solve.time_limit } };
    let interrupted = parsed.interrupted();
    Ok(Run { aid, inner: parsed.solve, callback: parsed.callback, interrupted })
}

/// Runs AID on `model` with the GIL released; returns the result or the exception that
/// stopped it.
fn run_aid<M: AggregatedModel + Send>(
    py: Python<'_>,
    run: Run,
    model: M,
    partition: impl FnOnce(&mut dyn Monitor) -> Result<Partition, SolveError> + Send,
) -> PyResult<(AidResult<M::Fit>, f64, M)>
where
    M::Fit: Send,
{
    let interrupted = Arc::clone(&run.interrupted);
    let mut monitor = PythonAidMonitor {
        callback: run.callback,
        interrupted: Arc::clone(&interrupted),
        inner: PythonMonitor::new(None, Arc::clone(&interrupted)),
        error: None,
    };
    let threads = run.inner.n_threads;
    let mut aid = run.aid;
    let mut model = model;
    let (outcome, signal) = run_interruptible(py, &interrupted, threads, || {
        // `time_limit` bounds the whole fit: the initial partition (the SVM's sample solve)
        // counts against it, and every aggregated solve gets the time left of it (an
        // `AIDClassifier` whose sample solve took the whole limit ran to twice it).
        let clock = std::time::Instant::now();
        model.start_clock(clock);
        let start = partition(monitor.inner())?;
        let init = clock.elapsed();
        aid.options.time_limit = aid.options.time_limit.map(|limit| limit.saturating_sub(init));
        aid.run(&mut model, start, &mut monitor).map(|result| (result, init.as_secs_f64()))
    })?;
    if let Some(error) = signal.or_else(|| monitor.error.take()) {
        return Err(error);
    }
    let (result, init_time) = outcome.map_err(CoreError::from)?;
    Ok((result, init_time, model))
}

/// The common part of every result dict.
fn result_dict<'py, F>(
    py: Python<'py>,
    result: &AidResult<F>,
    init_time: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("init_time", init_time)?;
    out.set_item("objective", result.objective)?;
    out.set_item("aggregated_objective", result.last_aggregated_objective)?;
    out.set_item("lower_bound", result.lower_bound)?;
    out.set_item("status", result.status.as_str())?;
    out.set_item("n_iter", result.history.len())?;
    let history = PyList::empty(py);
    for record in &result.history {
        history.append(history_entry(py, record)?)?;
    }
    out.set_item("history", history)?;
    let labels: Vec<i64> = result.partition.cluster_of().iter().map(|&k| i64::from(k)).collect();
    out.set_item("labels", PyArray1::from_vec(py, labels))?;
    Ok(out)
}

/// AID for LAD: `min_β Σ|y − Xβ|` (`X` includes any intercept column).
#[pyfunction]
#[pyo3(signature = (x, y, init, n_clusters, seed, gap_tol, max_solves, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn aid_lad<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    init: &Bound<'_, PyAny>,
    n_clusters: usize,
    seed: u64,
    gap_tol: f64,
    max_solves: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let x = matrix(&x);
    let y = vector(&y);
    let initial = start(init, n_clusters, seed, x.rows, y.len())?;
    let run = parse_run(gap_tol, max_solves, options)?;
    let d = x.cols;
    let model =
        LadModel::new(&x.values, d, &y, ClarabelLp, run.inner.clone()).map_err(CoreError::from)?;
    let (result, init_time, _) =
        run_aid(py, run, model, |monitor| lad_partition(&x.values, d, &y, &initial, monitor))?;
    let out = result_dict(py, &result, init_time)?;
    out.set_item("coef", PyArray1::from_vec(py, result.fit.beta))?;
    Ok(out)
}

/// The weighted LAD `min_β Σ_k w_k |y_k − x_k·β|` (weights > 0) by the Clarabel LP that AID-LAD
/// solves its aggregated problem with (`solution.x` is `β`, `objective − gap` the LP's dual
/// value); `tol` is the LP's relative duality gap (AID's inner solves use 1e-9).
#[pyfunction]
#[pyo3(signature = (x, y, weights, **options))]
pub(crate) fn solve_weighted_lad(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    weights: PyReadonlyArray1<'_, f64>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Solution> {
    let options = parse_options(options)?;
    let x = matrix(&x);
    let mut problem = WeightedLad {
        x: x.values.into_owned(),
        d: x.cols,
        y: vector(&y).into_owned(),
        weights: vector(&weights).into_owned(),
    };
    if problem.y.len() != x.rows {
        return Err(PyValueError::new_err(format!(
            "x has {} rows but y has {} values",
            x.rows,
            problem.y.len()
        )));
    }
    if let Some(bad) = problem.weights.iter().find(|w| !(w.is_finite() && **w > 0.0)) {
        return Err(PyValueError::new_err(format!(
            "every weight must be finite and > 0, got {bad}"
        )));
    }
    run(py, options, |opts, monitor| Ok(ClarabelLp.solve(&mut problem, opts, monitor)?))
}

/// AID for the C-SVM (labels ±1) with any built-in kernel.
#[pyfunction]
#[pyo3(signature = (x, y, kernel, c, init, n_clusters, seed, gap_tol, max_solves, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn aid_svm<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    kernel: &Kernel,
    c: f64,
    init: &Bound<'_, PyAny>,
    n_clusters: usize,
    seed: u64,
    gap_tol: f64,
    max_solves: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let x = matrix(&x);
    let labels = crate::arrays::signs(&y, "y")?;
    let function = kernel.function()?;
    let initial = start(init, n_clusters, seed, x.rows, labels.len())?;
    let run = parse_run(gap_tol, max_solves, options)?;
    let data = SvmData { x: &x.values, d: x.cols, y: &labels, c, kernel: function };
    let inner = run.inner.clone();
    // The model's kernel source is built in parallel: in a leased pool, with the GIL released.
    let model = detached(py, inner.n_threads, || SvmModel::new(data, Smo, inner.clone()))?
        .map_err(CoreError::from)?;
    let (result, init_time, model) = run_aid(py, run, model, |monitor| {
        svm_partition(data.x, data.d, data.y, c, function, &initial, &inner, monitor)
    })?;
    let out = result_dict(py, &result, init_time)?;
    let fit = result.fit;
    out.set_item("dual_coef", PyArray1::from_vec(py, fit.dual_coef))?;
    out.set_item("coef", PyArray1::from_vec(py, fit.w))?;
    out.set_item("bias", fit.bias)?;
    out.set_item("kernel_values_computed", model.kernel_evaluations())?;
    out.set_item("kernel_path", model.kernel_path().name())?;
    out.set_item("simd", kernelkit_kernels::Level::current().name())?;
    Ok(out)
}

/// AID for the linear S3VM (`y`: +1, −1, or 0 for unlabeled rows): a heuristic.
#[pyfunction]
#[pyo3(signature = (
    x, y, c, c_unlabeled, exact_max_clusters, balance, init, n_clusters, seed, gap_tol,
    max_solves, **options
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn aid_s3vm<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    c: f64,
    c_unlabeled: f64,
    exact_max_clusters: usize,
    balance: Option<&str>,
    init: &Bound<'_, PyAny>,
    n_clusters: usize,
    seed: u64,
    gap_tol: f64,
    max_solves: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let balance = match balance {
        None => S3vmBalance::None,
        Some("constraint") => S3vmBalance::Constraint,
        Some("cost") => S3vmBalance::Cost,
        Some("cost_as_printed") => S3vmBalance::CostAsPrinted,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "balance must be None, 'constraint', 'cost' or 'cost_as_printed', got {other:?}"
            )))
        }
    };
    let x = matrix(&x);
    let labels = s3vm_labels(&y, "y")?;
    let initial = start(init, n_clusters, seed, x.rows, labels.len())?;
    let run = parse_run(gap_tol, max_solves, options)?;
    let data = S3vmData { x: &x.values, d: x.cols, y: &labels, c_labeled: c, c_unlabeled, balance };
    let model = S3vmModel::new(data, Smo, run.inner.clone(), exact_max_clusters)
        .map_err(CoreError::from)?;
    let (result, init_time, model) =
        run_aid(py, run, model, |_| s3vm_partition(data.x, data.d, data.y, &initial))?;
    let out = result_dict(py, &result, init_time)?;
    out.set_item("coef", PyArray1::from_vec(py, result.fit.w))?;
    out.set_item("bias", result.fit.bias)?;
    out.set_item("svm_solves", model.svm_solves)?;
    Ok(out)
}

/// `K̄(k, q)`: the block means of the Gram matrix of `x` over the clusters `clusters` (ids
/// renumbered in order of first appearance).
#[pyfunction]
#[pyo3(signature = (x, clusters, kernel))]
pub(crate) fn aggregated_kernel<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
    clusters: PyReadonlyArray1<'_, i64>,
    kernel: &Kernel,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let x = matrix(&x);
    let clusters = clusters.as_array().to_vec();
    if clusters.len() != x.rows {
        return Err(PyValueError::new_err(format!(
            "clusters has {} ids, expected one per row ({})",
            clusters.len(),
            x.rows
        )));
    }
    let function = kernel.function()?;
    let partition = Partition::from_labels(&clusters).map_err(CoreError::from)?;
    let k = partition.len();
    // n² kernel values: interruptible, as a fit is.
    let interrupted = Arc::new(AtomicBool::new(false));
    let monitor = PythonMonitor::new(None, Arc::clone(&interrupted));
    let (means, signal) = run_interruptible(py, &interrupted, 0, || {
        let mut gram = AggregatedGram::new(&x.values, x.cols, function, 0)?;
        gram.update(&partition, &[], &monitor)?;
        Ok::<_, SolveError>(gram.means())
    })?;
    if let Some(error) = signal {
        return Err(error);
    }
    let means = means.map_err(CoreError::from)?;
    PyArray1::from_vec(py, means).reshape([k, k])
}
