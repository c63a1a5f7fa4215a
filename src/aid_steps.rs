//! AID's steps for the Dask driver (`kernelkit.dask`): the random sample and starting clusters,
//! k-means seeding, assignment and centres, the S3VM label search, the per-block evaluation of
//! a round, the per-key sums, the split, the aggregated SVM solve and the driver's bookkeeping.
//! The whole-fit entry points are in `aid.rs`; the steps are the core's (`kernelkit_solvers::aid`),
//! so that a Dask fit runs the same code as a local one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kernelkit_kernels::KernelFunction;
use kernelkit_solvers::aid::{
    aggregated_objective, assign, centres_from_sums, evaluate_block, group_seed, initial_sample,
    random_labels_from, residual, sample_decision, search_labels, share, solve_aggregated,
    tightened_inner_tol, warm_start, AggregatedPoints, AidOptions, AidTracker, Block,
    BlockSolution, Formulation, KMeansSeeding, KeySums, Partition, RoundSummary,
};
use kernelkit_solvers::{Control, Smo};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::aid::history_entry;
use crate::arrays::{matrix, vector};
use crate::errors::{parse_choice, CoreError};
use crate::kernel::Kernel;
use crate::options::parse_options;
use crate::progress::{detached, run_interruptible, PythonMonitor};

/// `+1`, `−1` or `0` per value of `values` (named `name` in errors).
pub(crate) fn s3vm_labels(values: &PyReadonlyArray1<'_, f64>, name: &str) -> PyResult<Vec<i8>> {
    vector(values)
        .iter()
        .enumerate()
        .map(|(i, &v)| match v {
            1.0 => Ok(1),
            -1.0 => Ok(-1),
            0.0 => Ok(0),
            other => {
                Err(PyValueError::new_err(format!("{name}[{i}] = {other} is not -1, 0 or +1")))
            }
        })
        .collect()
}

// -- AID's steps, for a driver that holds the rows in blocks (kernelkit.dask) -----------------

fn positions_array<'py>(py: Python<'py>, positions: &[usize]) -> Bound<'py, PyArray1<i64>> {
    PyArray1::from_vec(py, positions.iter().map(|&i| i as i64).collect())
}

/// The rows (sorted) that the k-means start of LAD (`d` with any intercept column) or the SVM
/// fits its model on.
#[pyfunction]
#[pyo3(signature = (n, d, seed))]
pub(crate) fn aid_initial_sample(
    py: Python<'_>,
    n: usize,
    d: usize,
    seed: u64,
) -> Bound<'_, PyArray1<i64>> {
    positions_array(py, &initial_sample(n, d, seed))
}

/// Rows `start .. start + count` of `init="random"`'s cluster ids, and whether one of their
/// draws was rejected (which makes later rows' ids depend on the rows before them).
#[pyfunction]
#[pyo3(signature = (start, count, n_clusters, seed))]
pub(crate) fn aid_random_labels(
    py: Python<'_>,
    start: usize,
    count: usize,
    n_clusters: usize,
    seed: u64,
) -> PyResult<(Bound<'_, PyArray1<i64>>, bool)> {
    if n_clusters == 0 {
        return Err(PyValueError::new_err("n_clusters must be >= 1, got 0"));
    }
    let (labels, rejected) = random_labels_from(start, count, n_clusters, seed);
    Ok((PyArray1::from_vec(py, labels), rejected))
}

/// `n_clusters` shared over groups of `group_sizes` rows in proportion (at least 1 each, 0
/// for an empty group).
#[pyfunction]
#[pyo3(signature = (n_clusters, group_sizes))]
pub(crate) fn aid_cluster_shares(n_clusters: usize, group_sizes: Vec<usize>) -> Vec<usize> {
    share(n_clusters, &group_sizes)
}

/// The positions (sorted, among the `n` points of group `group`) whose points the k-means++
/// seeding of that group's k-means looks at.
#[pyfunction]
#[pyo3(signature = (n, seed, group))]
pub(crate) fn aid_kmeans_positions(
    py: Python<'_>,
    n: usize,
    seed: u64,
    group: usize,
) -> Bound<'_, PyArray1<i64>> {
    positions_array(py, KMeansSeeding::new(n, group_seed(seed, group)).positions())
}

/// The k-means++ centres (`k' × d`, `k' ≤ n_clusters`) of group `group`'s `n` points, from
/// the points at [`aid_kmeans_positions`] (`points`, in that order).
#[pyfunction]
#[pyo3(signature = (points, n, n_clusters, seed, group))]
pub(crate) fn aid_kmeans_seed<'py>(
    py: Python<'py>,
    points: PyReadonlyArray2<'_, f64>,
    n: usize,
    n_clusters: usize,
    seed: u64,
    group: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let points = matrix(&points);
    let d = points.cols;
    let seeding = KMeansSeeding::new(n, group_seed(seed, group));
    let centres = detached(py, 0, || seeding.centres(&points.values, d, n_clusters))?;
    rows_array(py, centres.map_err(CoreError::from)?, d)
}

/// Row-major values of `d` columns as a 2-D array.
fn rows_array(py: Python<'_>, values: Vec<f64>, d: usize) -> PyResult<Bound<'_, PyArray2<f64>>> {
    let rows = values.len().checked_div(d).unwrap_or(0);
    PyArray1::from_vec(py, values).reshape([rows, d])
}

/// The nearest of `centres` to every row of `points` (lowest index on ties): the k-means
/// assignment step.
#[pyfunction]
#[pyo3(signature = (points, centres))]
pub(crate) fn aid_kmeans_assign<'py>(
    py: Python<'py>,
    points: PyReadonlyArray2<'_, f64>,
    centres: PyReadonlyArray2<'_, f64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (points, centres) = (matrix(&points), matrix(&centres));
    if points.cols != centres.cols {
        return Err(PyValueError::new_err(format!(
            "centres has {} columns but points has {}",
            centres.cols, points.cols
        )));
    }
    if centres.rows == 0 {
        return Err(PyValueError::new_err("centres has no rows"));
    }
    let labels = detached(py, 0, || assign(&points.values, points.cols, &centres.values))?;
    Ok(PyArray1::from_vec(py, labels.into_iter().map(i64::from).collect()))
}

/// The aggregated S3VM of given clusters searched over its unlabeled clusters' labels (the
/// step AID-S3VM takes per aggregated solve; no balance constraint): `centroids` `K × d`,
/// `labels` +1/−1/0 per cluster, `weights` each cluster's hinge weight; it ends early after
/// `remaining` seconds. The inner SMO's options are keyword arguments.
#[pyfunction]
#[pyo3(signature = (centroids, labels, weights, exact_max_clusters, remaining=None, **options))]
pub(crate) fn aid_s3vm_search<'py>(
    py: Python<'py>,
    centroids: PyReadonlyArray2<'_, f64>,
    labels: PyReadonlyArray1<'_, f64>,
    weights: PyReadonlyArray1<'_, f64>,
    exact_max_clusters: usize,
    remaining: Option<f64>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let parsed = parse_options(options)?;
    let interrupted = parsed.interrupted();
    let solve = parsed.solve;
    let centroids = matrix(&centroids);
    let d = centroids.cols;
    let labels = s3vm_labels(&labels, "labels")?;
    let weights = vector(&weights).into_owned();
    let deadline = match remaining {
        None => None,
        Some(seconds) if seconds.is_finite() => {
            Some(Instant::now() + Duration::from_secs_f64(seconds.max(0.0)))
        }
        Some(seconds) => {
            return Err(PyValueError::new_err(format!("remaining must be finite, got {seconds}")))
        }
    };
    let values = centroids.values.into_owned();
    let mut monitor = PythonMonitor::new(None, Arc::clone(&interrupted));
    let (outcome, signal) = run_interruptible(py, &interrupted, solve.n_threads, || {
        search_labels(
            values,
            d,
            labels,
            weights,
            exact_max_clusters,
            &Smo,
            &solve,
            deadline,
            &mut monitor,
        )
    })?;
    if let Some(error) = signal.or_else(|| monitor.error.take()) {
        return Err(error);
    }
    let found = outcome.map_err(CoreError::from)?;
    let out = PyDict::new(py);
    out.set_item("objective", found.objective)?;
    out.set_item("w_norm2", found.w.iter().map(|v| v * v).sum::<f64>())?;
    out.set_item("coef", PyArray1::from_vec(py, found.w))?;
    out.set_item("bias", found.bias)?;
    out.set_item("lower_bound", found.lower_bound)?;
    out.set_item("svm_solves", found.solves)?;
    out.set_item("cut", found.cut)?;
    Ok(out)
}

/// Cluster ids (`int64`, each in `0..bound`) as `u32`, or a `ValueError` naming `name`.
fn ids(values: &PyReadonlyArray1<'_, i64>, bound: usize, name: &str) -> PyResult<Vec<u32>> {
    values
        .as_array()
        .iter()
        .enumerate()
        .map(|(i, &v)| match u32::try_from(v) {
            Ok(id) if (id as usize) < bound => Ok(id),
            _ => Err(PyValueError::new_err(format!("{name}[{i}] = {v} is not in 0..{bound}"))),
        })
        .collect()
}

/// `count`, `min_first` (`2^63 − 1` for a key without rows), `sum_x` (`n_keys × d`, when
/// `x` was summed: `d` is `Some`) and any `sum_y` of `sums` into `out`.
fn put_key_sums(
    py: Python<'_>,
    out: &Bound<'_, PyDict>,
    sums: KeySums,
    d: Option<usize>,
) -> PyResult<()> {
    let to_i64 = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    let n_keys = sums.count.len();
    out.set_item("count", PyArray1::from_vec(py, sums.count.into_iter().map(to_i64).collect()))?;
    out.set_item(
        "min_first",
        PyArray1::from_vec(py, sums.first.into_iter().map(to_i64).collect()),
    )?;
    if let Some(d) = d {
        out.set_item("sum_x", PyArray1::from_vec(py, sums.sum_x).reshape([n_keys, d])?)?;
    }
    if !sums.sum_y.is_empty() {
        out.set_item("sum_y", PyArray1::from_vec(py, sums.sum_y))?;
    }
    Ok(())
}

/// The accepted values of `aid_evaluate_block`'s `formulation` ([`parse_choice`]).
const FORMULATIONS: &[(&str, Formulation)] =
    &[("lad", Formulation::Lad), ("svm", Formulation::Svm), ("s3vm", Formulation::S3vm)];

/// One AID iteration's work on a block of rows (`kernelkit.dask`): the round's solution
/// (`beta` for `"lad"`, with the intercept last when it has `d + 1` values; `w` and `bias`, or
/// `support`, `coef`, `kernel` and `bias`, for `"svm"` and `"s3vm"`) evaluated on rows `x`
/// with targets or labels `y` (S3VM: 0 unlabeled) in clusters `clusters` (`0..n_clusters`);
/// `start` is the global index of the block's first row. Returns a dict: per row `keys`
/// (`cluster · n_cells + cell`); `lack` and `lack_strict` (`n_cells × n_clusters`: with and
/// without the tolerance), `loss`, `sum_f` (SVM), and
/// per key `count`, `min_first`, `sum_x` (with `sums_x`) and `sum_y` (LAD).
#[pyfunction]
#[pyo3(signature = (
    formulation, x, y, clusters, n_clusters, start, tol, sums_x, beta=None, w=None, bias=0.0,
    support=None, coef=None, kernel=None
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn aid_evaluate_block<'py>(
    py: Python<'py>,
    formulation: &str,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    clusters: PyReadonlyArray1<'_, i64>,
    n_clusters: usize,
    start: u64,
    tol: f64,
    sums_x: bool,
    beta: Option<PyReadonlyArray1<'_, f64>>,
    w: Option<PyReadonlyArray1<'_, f64>>,
    bias: f64,
    support: Option<PyReadonlyArray2<'_, f64>>,
    coef: Option<PyReadonlyArray1<'_, f64>>,
    kernel: Option<&Kernel>,
) -> PyResult<Bound<'py, PyDict>> {
    let formulation = parse_choice("formulation", formulation, FORMULATIONS)?;
    let x = matrix(&x);
    let y = vector(&y);
    if y.len() != x.rows {
        return Err(PyValueError::new_err(format!("x has {} rows but y has {}", x.rows, y.len())));
    }
    let clusters = ids(&clusters, n_clusters, "clusters")?;
    let beta = beta.as_ref().map(vector);
    let w = w.as_ref().map(vector);
    let support = support.as_ref().map(matrix);
    let coef = coef.as_ref().map(vector);
    let solution = match (&beta, &w, &support, &coef, kernel) {
        (Some(beta), None, None, None, None) => BlockSolution::Lad { beta },
        (None, Some(w), None, None, None) => BlockSolution::Linear { w, bias },
        (None, None, Some(support), Some(coef), Some(kernel)) => {
            if support.cols != x.cols {
                return Err(PyValueError::new_err(format!(
                    "support has {} columns but x has {}",
                    support.cols, x.cols
                )));
            }
            BlockSolution::Kernel {
                support: &support.values,
                coef,
                kernel: kernel.function()?,
                bias,
            }
        }
        _ => {
            return Err(PyValueError::new_err(
                "give beta (LAD), w (linear), or support, coef and kernel (kernel expansion)",
            ))
        }
    };
    let block = Block { x: &x.values, d: x.cols, y: &y, clusters: &clusters, n_clusters, start };
    let stats = detached(py, 0, || evaluate_block(&block, formulation, &solution, tol, sums_x))?;
    let stats = stats.map_err(CoreError::from)?;
    let out = PyDict::new(py);
    let keys: Vec<i64> = stats.keys.iter().map(|&key| i64::from(key)).collect();
    out.set_item("keys", PyArray1::from_vec(py, keys))?;
    let lack: Vec<i64> = stats.lack.iter().map(|&v| v as i64).collect();
    let n_cells = formulation.n_cells();
    out.set_item("lack", PyArray1::from_vec(py, lack).reshape([n_cells, n_clusters])?)?;
    let strict: Vec<i64> = stats.lack_strict.iter().map(|&v| v as i64).collect();
    out.set_item("lack_strict", PyArray1::from_vec(py, strict).reshape([n_cells, n_clusters])?)?;
    out.set_item("loss", PyArray1::from_vec(py, stats.loss))?;
    if formulation == Formulation::Svm {
        out.set_item("sum_f", PyArray1::from_vec(py, stats.sum_f))?;
    }
    put_key_sums(py, &out, stats.key_sums, sums_x.then_some(x.cols))?;
    Ok(out)
}

/// Per key (`keys`: `int64` in `0..n_keys`) of a block whose first row is row `start`: the
/// rows `count`, the first row `min_first`, and the sums of the rows of `x` (`sum_x`) and of
/// `y` (`sum_y`) when given, each summed in row order.
#[pyfunction]
#[pyo3(signature = (keys, n_keys, start, x=None, y=None))]
pub(crate) fn aid_key_sums<'py>(
    py: Python<'py>,
    keys: PyReadonlyArray1<'_, i64>,
    n_keys: usize,
    start: u64,
    x: Option<PyReadonlyArray2<'_, f64>>,
    y: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let keys = ids(&keys, n_keys, "keys")?;
    let x = x.as_ref().map(matrix);
    let y = y.as_ref().map(vector);
    let sums =
        KeySums::new(&keys, n_keys, start, x.as_ref().map(|m| (&*m.values, m.cols)), y.as_deref())
            .map_err(CoreError::from)?;
    let out = PyDict::new(py);
    put_key_sums(py, &out, sums, x.as_ref().map(|m| m.cols))?;
    Ok(out)
}

/// A split's per-key cluster ids and per-cluster parents.
type TableAndParents<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// AID's split of the impure `clusters` from per-key (`cluster · n_cells + cell`) row counts
/// and first rows: per key the id of the cluster its rows join (−1: no rows), and per new
/// cluster the cluster it came from (the core's `Partition::split` numbering).
#[pyfunction]
#[pyo3(signature = (count, first, clusters, n_clusters, n_cells))]
pub(crate) fn aid_split<'py>(
    py: Python<'py>,
    count: PyReadonlyArray1<'_, i64>,
    first: PyReadonlyArray1<'_, i64>,
    clusters: PyReadonlyArray1<'_, i64>,
    n_clusters: usize,
    n_cells: usize,
) -> PyResult<TableAndParents<'py>> {
    let n_keys = n_clusters * n_cells;
    let unsigned = |values: &PyReadonlyArray1<'_, i64>, name: &str| -> PyResult<Vec<u64>> {
        let values: Vec<u64> = values.as_array().iter().map(|&v| v.max(0) as u64).collect();
        if values.len() != n_keys {
            return Err(PyValueError::new_err(format!(
                "{name} has {} values, expected n_clusters * n_cells = {n_keys}",
                values.len()
            )));
        }
        Ok(values)
    };
    let (count, first) = (unsigned(&count, "count")?, unsigned(&first, "first")?);
    let clusters: Vec<usize> =
        ids(&clusters, n_clusters, "clusters")?.into_iter().map(|c| c as usize).collect();
    let (table, parent) = Partition::split_keyed(&count, &first, &clusters, n_clusters, n_cells);
    let parent = parent.into_iter().map(|p| p as i64).collect();
    Ok((PyArray1::from_vec(py, table), PyArray1::from_vec(py, parent)))
}

/// k-means' Lloyd update: the centres (`k' × d`, centres without mass dropped) from the sums
/// of the points nearest each centre (`k × d`) and their numbers or masses (`k`).
#[pyfunction]
#[pyo3(signature = (sums, mass))]
pub(crate) fn aid_kmeans_centres<'py>(
    py: Python<'py>,
    sums: PyReadonlyArray2<'_, f64>,
    mass: PyReadonlyArray1<'_, f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (sums, mass) = (matrix(&sums), vector(&mass));
    if sums.rows != mass.len() {
        return Err(PyValueError::new_err(format!(
            "sums has {} rows but mass has {} values",
            sums.rows,
            mass.len()
        )));
    }
    rows_array(py, centres_from_sums(&sums.values, &mass, sums.cols), sums.cols)
}

/// AID's bookkeeping between aggregated solves, for a driver that evaluates the solutions
/// itself (`kernelkit.dask`): the core's `AidTracker`, which `Aid::run` drives in memory. The
/// clock starts at construction.
#[pyclass(module = "kernelkit._core")]
pub(crate) struct AidDriver {
    tracker: AidTracker,
}

#[pymethods]
impl AidDriver {
    /// `needs_gap`: a pure partition certifies optimality only with a certified gap of at most
    /// `tol` (the SVM's; `AidTracker::with_gap_certificate`).
    #[new]
    #[pyo3(signature = (tol, max_iter, time_limit, certifies, needs_gap=false))]
    fn new(
        tol: f64,
        max_iter: usize,
        time_limit: Option<f64>,
        certifies: bool,
        needs_gap: bool,
    ) -> PyResult<Self> {
        let time_limit = match time_limit {
            None => None,
            Some(seconds) if seconds.is_finite() && seconds >= 0.0 => {
                Some(Duration::from_secs_f64(seconds))
            }
            Some(seconds) => {
                return Err(PyValueError::new_err(format!(
                    "time_limit must be finite and >= 0, got {seconds}"
                )))
            }
        };
        let options = AidOptions { tol, max_iter, time_limit };
        let tracker = AidTracker::new(options, certifies)
            .map_err(CoreError::from)?
            .with_gap_certificate(needs_gap);
        Ok(AidDriver { tracker })
    }

    /// Whether a pure partition from a solve with `lower_bound` and `full_objective` falls
    /// short of a certificate only for want of the gap: then the driver splits by the strict
    /// cells (`lack_strict`), as `Aid::run` does.
    fn purity_falls_short(&self, lower_bound: f64, full_objective: f64) -> bool {
        self.tracker.purity_falls_short(lower_bound, full_objective)
    }

    /// Records one aggregated solve; returns its history entry and whether its full
    /// objective is the best so far.
    #[pyo3(signature = (
        aggregated_objective, lower_bound, full_objective, solved, n_clusters, n_impure
    ))]
    #[allow(clippy::too_many_arguments)]
    fn record<'py>(
        &mut self,
        py: Python<'py>,
        aggregated_objective: f64,
        lower_bound: f64,
        full_objective: f64,
        solved: bool,
        n_clusters: usize,
        n_impure: usize,
    ) -> PyResult<(Bound<'py, PyDict>, bool)> {
        let round = RoundSummary {
            aggregated_objective,
            lower_bound,
            full_objective,
            solved,
            n_clusters,
            n_impure,
        };
        let (record, improved) = self.tracker.record(&round).map_err(CoreError::from)?;
        Ok((history_entry(py, &record)?, improved))
    }

    /// How the run ends after the last recorded solve (`stop`: the callback asked to stop),
    /// or `None` to go on.
    fn status(&self, stop: bool) -> Option<&'static str> {
        let control = if stop { Control::Stop } else { Control::Continue };
        self.tracker.status(control).map(|status| status.as_str())
    }

    /// The best full objective so far.
    #[getter]
    fn objective(&self) -> f64 {
        self.tracker.best_objective()
    }

    /// The certified lower bound so far.
    #[getter]
    fn lower_bound(&self) -> f64 {
        self.tracker.lower_bound()
    }
}

/// Whether a pure partition certifies an AID-SVM run with `kernel` optimal (Props. 3–4 need a
/// positive semidefinite kernel).
#[pyfunction]
#[pyo3(signature = (kernel))]
pub(crate) fn aid_kernel_certifies(kernel: &Kernel) -> PyResult<bool> {
    Ok(kernel.function()?.positive_semidefinite())
}

/// The inner tolerance of the next aggregated SVM solve of a pure partition (the core's
/// `tightened_inner_tol`, the rule `Aid::run` refines by): from inner tolerance `tol`, the
/// aggregated duality gap `inner_gap` of the last solve, the gap wanted `target`, the gap
/// before the last tightening `gap_before` and whether the solve `converged`; `None`: stop.
#[pyfunction]
#[pyo3(signature = (tol, inner_gap, target, gap_before, converged))]
pub(crate) fn aid_svm_tightened_tol(
    tol: f64,
    inner_gap: f64,
    target: f64,
    gap_before: f64,
    converged: bool,
) -> Option<f64> {
    tightened_inner_tol(tol, inner_gap, target, gap_before, converged)
}

/// One AID-SVM aggregated solve, as the core's rounds do it: the dual (21) on `points` (the
/// centroids, `K × d`, for the linear kernel; `K̄`, `K × K`, for any other `kernel`) with
/// cluster labels ±1 `labels`, bounds `C · sizes` and the warm start of clusters split from
/// the previous round's (`shares`: its `α_p/|C_p|`; `parent`: each cluster's previous cluster;
/// none: a cold start), by SMO with the keyword options. Returns a dict: `alpha`, `bias`,
/// `coef` (`w`; linear kernel), `w_norm2`, `lower_bound` (the dual value; `−∞` for a kernel
/// that is not PSD), `shares` (`α_k/|C_k|`) and `solved`.
#[pyfunction]
#[pyo3(signature = (points, labels, sizes, c, kernel, shares=None, parent=None, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn aid_svm_aggregated<'py>(
    py: Python<'py>,
    points: PyReadonlyArray2<'_, f64>,
    labels: PyReadonlyArray1<'_, f64>,
    sizes: PyReadonlyArray1<'_, f64>,
    c: f64,
    kernel: &Kernel,
    shares: Option<PyReadonlyArray1<'_, f64>>,
    parent: Option<PyReadonlyArray1<'_, i64>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let function = kernel.function()?;
    let points = matrix(&points);
    let labels = crate::arrays::signs(&labels, "labels")?;
    let sizes = vector(&sizes).into_owned();
    let k = labels.len();
    if sizes.len() != k || points.rows != k {
        return Err(PyValueError::new_err(format!(
            "labels has {k} values, sizes {} and points {} rows",
            sizes.len(),
            points.rows
        )));
    }
    let gram = function != KernelFunction::Linear;
    if gram && points.cols != k {
        return Err(PyValueError::new_err(format!(
            "points must be the {k} x {k} aggregated Gram matrix for a non-linear kernel, got {} \
             columns",
            points.cols
        )));
    }
    let upper: Vec<f64> = sizes.iter().map(|size| c * size).collect();
    let alpha0 = match (&shares, &parent) {
        (Some(shares), Some(parent)) => {
            let shares = vector(shares);
            let parent = ids(parent, shares.len(), "parent")?;
            if parent.len() != k {
                return Err(PyValueError::new_err(format!(
                    "parent has {} values, expected {k}",
                    parent.len()
                )));
            }
            let parent: Vec<usize> = parent.into_iter().map(|p| p as usize).collect();
            let counts: Vec<usize> = sizes.iter().map(|&size| size as usize).collect();
            warm_start(&shares, &parent, &counts, &upper)
        }
        (None, None) => vec![0.0; k],
        _ => return Err(PyValueError::new_err("give both shares and parent, or neither")),
    };
    let parsed = parse_options(options)?;
    let interrupted = parsed.interrupted();
    let solve = parsed.solve;
    let values = points.values.into_owned();
    let d = points.cols;
    let mut monitor = PythonMonitor::new(None, Arc::clone(&interrupted));
    let (outcome, signal) = run_interruptible(py, &interrupted, solve.n_threads, || {
        let points = if gram {
            AggregatedPoints::Gram(&values)
        } else {
            AggregatedPoints::Centroids { values: &values, d }
        };
        solve_aggregated(points, labels, upper, alpha0, &Smo, &solve, &mut monitor)
    })?;
    if let Some(error) = signal.or_else(|| monitor.error.take()) {
        return Err(error);
    }
    let found = outcome.map_err(CoreError::from)?;
    let lower = if function.positive_semidefinite() {
        found.alpha.iter().sum::<f64>() - 0.5 * found.w_norm2
    } else {
        f64::NEG_INFINITY
    };
    let out = PyDict::new(py);
    let shares: Vec<f64> = found.alpha.iter().zip(&sizes).map(|(a, size)| a / size).collect();
    out.set_item("shares", PyArray1::from_vec(py, shares))?;
    out.set_item("alpha", PyArray1::from_vec(py, found.alpha))?;
    out.set_item("bias", found.bias)?;
    out.set_item("coef", PyArray1::from_vec(py, found.w))?;
    out.set_item("w_norm2", found.w_norm2)?;
    out.set_item("lower_bound", lower)?;
    out.set_item("solved", found.converged)?;
    Ok(out)
}

/// The aggregated SVM's objective `½‖w‖² + C Σ_k |C_k| max(0, 1 − y_k f̄_k)` from the clusters'
/// sizes, labels ±1 and sums of the rows' decision values `sum_f`.
#[pyfunction]
#[pyo3(signature = (w_norm2, c, sizes, labels, sum_f))]
pub(crate) fn aid_svm_aggregated_objective(
    w_norm2: f64,
    c: f64,
    sizes: PyReadonlyArray1<'_, f64>,
    labels: PyReadonlyArray1<'_, f64>,
    sum_f: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    let (sizes, signs, sum_f) = (vector(&sizes), vector(&labels), vector(&sum_f));
    if signs.len() != sizes.len() || sum_f.len() != sizes.len() {
        return Err(PyValueError::new_err(format!(
            "sizes has {} values, labels {} and sum_f {}",
            sizes.len(),
            signs.len(),
            sum_f.len()
        )));
    }
    Ok(aggregated_objective(w_norm2, c, &sizes, &signs, &sum_f))
}

/// `y − x·β` for every row of `x` (`β` with `d` values, or `d + 1` with the intercept last):
/// the residuals the LAD k-means start standardises, the same bits as in memory.
#[pyfunction]
#[pyo3(signature = (x, y, beta))]
pub(crate) fn aid_lad_residuals<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    beta: PyReadonlyArray1<'_, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (x, y, beta) = (matrix(&x), vector(&y), vector(&beta));
    if y.len() != x.rows || (beta.len() != x.cols && beta.len() != x.cols + 1) {
        return Err(PyValueError::new_err(format!(
            "x is {} x {}, y has {} values and beta {} (expected d or d + 1)",
            x.rows,
            x.cols,
            y.len(),
            beta.len()
        )));
    }
    let rows = x.values.chunks_exact(x.cols.max(1)).take(x.rows);
    let residuals = rows.zip(y.iter()).map(|(row, &t)| residual(row, t, &beta)).collect();
    Ok(PyArray1::from_vec(py, residuals))
}

/// `bias + Σ_s coef_s K(support_s, x_i)` for every row of `x`: the decision values of the SVM
/// on the k-means start's sample, the points the SVM's k-means start clusters (the same bits
/// as in memory, in any block of rows).
#[pyfunction]
#[pyo3(signature = (x, support, coef, bias, kernel))]
pub(crate) fn aid_sample_decision<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
    support: PyReadonlyArray2<'_, f64>,
    coef: PyReadonlyArray1<'_, f64>,
    bias: f64,
    kernel: &Kernel,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let function = kernel.function()?;
    let (x, support, coef) = (matrix(&x), matrix(&support), vector(&coef));
    if support.cols != x.cols || support.rows != coef.len() {
        return Err(PyValueError::new_err(format!(
            "support is {} x {} and coef has {} values, for x with {} columns",
            support.rows,
            support.cols,
            coef.len(),
            x.cols
        )));
    }
    let decision = detached(py, 0, || {
        sample_decision(&x.values, x.cols, &support.values, &coef, bias, function)
    })?
    .map_err(CoreError::from)?;
    Ok(PyArray1::from_vec(py, decision))
}
