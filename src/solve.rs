//! The solve entry points: one per formulation, plus the low-level `BoxQp`.

use std::sync::Arc;

use kernelkit_kernels::plan::{reads_sparse, uses_linear_primal};
use kernelkit_kernels::{
    density, kernel_row_sums, CsrRows, DenseKernel, DenseRows, KernelFunction, KernelPath,
    KernelSource, Level, PrecomputedGram, Preferences, SignedQ, SparseKernel,
};
use kernelkit_solvers::usmo::Selection;
use kernelkit_solvers::{
    check_symmetric, formulations, BoxQp, FrankWolfe, KernelColumns, KlrProblem, KlrSmo,
    LinearRows, Method, PreviousSolution, PuProblem, RadiusRule, SamplePool, SimplexQp, Smo,
    SolveError, SolveOptions, Solver, Start, Usmo, WorkingSetRule,
};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{matrix, signs, vector};
use crate::callable::{raise_kept, CallableKernel};
use crate::errors::{parse_choice, CoreError};
use crate::kernel::Kernel;
use crate::options::{parse_options, Options};
use crate::progress::{run_interruptible, PythonMonitor};
use crate::sparse::{data, Data, Input, Storage};

/// The result of a solve (see `kernelkit_solvers::Solution`).
#[pyclass(frozen, get_all, module = "kernelkit._core")]
pub(crate) struct Solution {
    /// The solution vector (for a ``BoxQp``: α).
    x: Py<PyArray1<f64>>,
    /// The objective at ``x``.
    objective: f64,
    /// The bias (intercept) recovered from the optimality conditions.
    bias: f64,
    /// The solver's optimality measure at exit (for SMO, the maximal KKT violation).
    gap: f64,
    /// Iterations done.
    iterations: u64,
    /// How the solve ended.
    ///
    /// One of ``"converged"``, ``"max_iterations"``, ``"time_limit"``, ``"stopped"``,
    /// ``"numerical_error"``, ``"stalled"`` and ``"not_convex"`` (sparse KLR with a kernel
    /// matrix that is not positive semidefinite).
    ///
    status: String,
    /// Counters of the solve (kernel cache, objective increases, shrinking).
    pub(crate) stats: Py<PyDict>,
    /// The dual objective's gradient at ``x``, or None.
    ///
    /// Given where the solver ends with it exact: ``Qx + p`` for the C-SVC and one-class
    /// solves, ``Qx`` for ν-SVC (``x = α/r``; passed back times ``r``), ``Kβ`` for the
    /// regressions (``x = β = α − α*``; their dual's gradient is ``(Kβ + p₊, −Kβ + p₋)``).
    /// Passed back with ``x`` as ``previous``, a warm start updates it instead of computing it
    /// afresh.
    ///
    gradient: Option<Py<PyArray1<f64>>>,
}

#[pymethods]
impl Solution {
    fn __repr__(&self) -> String {
        format!(
            "Solution(status={:?}, objective={}, bias={}, gap={}, iterations={})",
            self.status, self.objective, self.bias, self.gap, self.iterations
        )
    }
}

/// Runs `job` with the GIL released inside a pool of `n_threads` (the calling thread watches
/// for Ctrl-C), then turns the outcome into a Python `Solution` (or the exception that
/// interrupted it), with the job's extra value (the scale of the ν formulations).
pub(crate) fn run_with_extra<E: Send>(
    py: Python<'_>,
    options: Options,
    job: impl FnOnce(
            &SolveOptions,
            &mut PythonMonitor,
        ) -> Result<(kernelkit_solvers::Solution, E), CoreError>
        + Send,
) -> PyResult<(Solution, E)> {
    let interrupted = options.interrupted();
    let mut monitor = PythonMonitor::new(options.callback, Arc::clone(&interrupted));
    let solve_options = options.solve;
    let (outcome, signal) = run_interruptible(py, &interrupted, solve_options.n_threads, || {
        job(&solve_options, &mut monitor)
    })?;
    if let Some(error) = signal.or_else(|| monitor.error.take()) {
        return Err(error);
    }
    let (solution, extra) = outcome?;
    Ok((python_solution(py, solution)?, extra))
}

/// The Python `Solution` of a solver's solution, with its statistics as a dict.
pub(crate) fn python_solution(
    py: Python<'_>,
    solution: kernelkit_solvers::Solution,
) -> PyResult<Solution> {
    let stats = PyDict::new(py);
    let s = solution.stats;
    stats.set_item("cache_hits", s.cache.hits)?;
    stats.set_item("cache_misses", s.cache.misses)?;
    stats.set_item("kernel_values_computed", s.cache.values_computed)?;
    stats.set_item("cache_bytes_in_use", s.cache.bytes_in_use)?;
    stats.set_item("cache_budget_bytes", s.cache.budget_bytes)?;
    stats.set_item("objective_increases", s.objective_increases)?;
    stats.set_item("gradient_reconstructions", s.gradient_reconstructions)?;
    stats.set_item("min_active_size", s.min_active_size)?;
    stats.set_item("parallel_passes", s.parallel_passes)?;
    stats.set_item("serial_seconds", s.serial_time.as_secs_f64())?;
    if let Some(engine) = s.engine {
        stats.set_item("engine", engine.as_str())?;
        stats.set_item("batches", s.batches)?;
    }
    if let Some(path) = s.kernel_path {
        stats.set_item("kernel_path", path.name())?;
    }
    stats.set_item("restarted_cold", s.restarted_cold)?;
    stats.set_item("simd", Level::current().name())?;
    Ok(Solution {
        x: PyArray1::from_vec(py, solution.x).unbind(),
        objective: solution.objective,
        bias: solution.bias,
        gap: solution.gap,
        iterations: solution.iterations,
        status: solution.status.as_str().to_owned(),
        stats: stats.unbind(),
        gradient: solution.gradient.map(|g| PyArray1::from_vec(py, g).unbind()),
    })
}

/// [`run_with_extra`] for jobs without an extra value.
pub(crate) fn run(
    py: Python<'_>,
    options: Options,
    job: impl FnOnce(&SolveOptions, &mut PythonMonitor) -> Result<kernelkit_solvers::Solution, CoreError>
        + Send,
) -> PyResult<Solution> {
    let (solution, _) =
        run_with_extra(py, options, |opts, monitor| Ok((job(opts, monitor)?, f64::NAN)))?;
    Ok(solution)
}

/// The kernel function of `kernel` for rows `x`, which cannot be a precomputed Gram matrix
/// (`not_gram` says why; the dense arm checks for a Gram matrix first).
fn function_of_rows(kernel: &Kernel, not_gram: &str) -> Result<KernelFunction, CoreError> {
    if kernel.is_precomputed() {
        return Err(CoreError(SolveError::invalid("X", not_gram)));
    }
    kernel.function().map_err(|e| CoreError(SolveError::invalid("kernel", e.to_string())))
}

/// A solve's result, with the path of the kernel it ran on recorded in its statistics.
pub(crate) trait WithPath {
    fn with_path(self, path: KernelPath) -> Self;
}

impl WithPath for kernelkit_solvers::Solution {
    fn with_path(mut self, path: KernelPath) -> Self {
        self.stats.kernel_path = Some(path);
        self
    }
}

impl<E> WithPath for (kernelkit_solvers::Solution, E) {
    fn with_path(self, path: KernelPath) -> Self {
        (self.0.with_path(path), self.1)
    }
}

/// `$body` (a solve over the kernel source `$source`), with the source's path recorded.
macro_rules! with_path {
    ($source:ident, $body:expr) => {{
        let path = $source.path();
        $body.map(|solution| WithPath::with_path(solution, path))
    }};
}

/// Runs `$body` with `$source` bound to the kernel source of `$x`: a precomputed Gram matrix,
/// CSR rows for sparse input, or when the dense data is mostly zeros (`plan::reads_sparse`: a
/// kernel column then reads and multiplies only the non-zeros), or dense rows; a row subset is
/// dense rows gathered with the facts computed once for the whole array. The finer choice
/// (bit sets, padded slots, feature-major, distinct, `f32`, fixed-point rows) is the kernel
/// constructors', through `kernelkit_kernels::plan`; the source's path is recorded in the
/// solution's statistics.
macro_rules! dispatch_kernel {
    ($x:expr, $kernel:expr, $callable:expr, $preferences:expr, |$source:ident| $body:expr) => {{
        let preferences: Preferences = $preferences;
        if let Some($source) = $callable {
            return with_path!($source, $body);
        }
        match &$x {
            Data::Sparse(csr) => {
                let function =
                    function_of_rows($kernel, "a precomputed kernel must be a dense array")?;
                let $source = SparseKernel::new(csr.rows()?, function)?;
                with_path!($source, $body)
            }
            Data::Subset(subset) => {
                let function =
                    function_of_rows($kernel, "a precomputed kernel cannot be a row subset")?;
                // The choice made for dense rows below, made from the facts.
                if reads_sparse(subset.density()) {
                    let (values, n_rows, n_features) = subset.gather()?;
                    let rows = CsrRows::from_dense(&values, n_rows, n_features)?;
                    let $source = SparseKernel::new(rows, function)?;
                    with_path!($source, $body)
                } else {
                    let $source = subset.kernel(function, preferences.single_products)?;
                    with_path!($source, $body)
                }
            }
            Data::Dense(x) => {
                if $kernel.is_precomputed() {
                    let $source = PrecomputedGram::new(&x.values, x.rows, x.cols)?;
                    with_path!($source, $body)
                } else {
                    let function = function_of_rows($kernel, "")?;
                    if reads_sparse(density(&x.values)) {
                        let rows = CsrRows::from_dense(&x.values, x.rows, x.cols)?;
                        let $source = SparseKernel::new(rows, function)?;
                        with_path!($source, $body)
                    } else {
                        let rows = DenseRows::new(&x.values, x.rows, x.cols)?;
                        let $source = DenseKernel::new(rows, function)?
                            .with_single_products(preferences.single_products);
                        with_path!($source, $body)
                    }
                }
            }
        }
    }};
}

/// The common part of the entry points over rows: checks the kernel, prepares a callable
/// kernel (with the GIL), parses the options, runs `job` with the GIL released and raises what
/// a callable kernel kept. `job` gets the kernel `Preferences` of a solver that caches `f32`
/// columns when `f32_columns` (`Preferences::for_input`).
fn solve_rows<E: Send>(
    py: Python<'_>,
    x: &Input<'_>,
    kernel: &Kernel,
    options: Option<&Bound<'_, PyDict>>,
    f32_columns: bool,
    job: impl FnOnce(
            &Data<'_>,
            Option<CallableKernel>,
            Preferences,
            &SolveOptions,
            &mut PythonMonitor,
        ) -> Result<(kernelkit_solvers::Solution, E), CoreError>
        + Send,
) -> PyResult<(Solution, E)> {
    check_kernel(kernel)?;
    let callable = kernel.callable_source(py, x)?;
    let kept = callable.as_ref().map(CallableKernel::error_slot);
    let options = parse_options(options)?;
    let preferences = Preferences::for_input(options.float32_input, f32_columns);
    let rows = data(x);
    let result = run_with_extra(py, options, |opts, monitor| {
        job(&rows, callable, preferences, opts, monitor)
    });
    raise_kept(kept)?;
    result
}

fn check_kernel(kernel: &Kernel) -> PyResult<()> {
    if kernel.is_precomputed() || kernel.is_callable() {
        Ok(())
    } else {
        kernel.function().map(|_| ())
    }
}

/// `previous = (x', g')` of a solve: an earlier solution and its gradient.
pub(crate) type Previous<'py> = (PyReadonlyArray1<'py, f64>, PyReadonlyArray1<'py, f64>);

/// The core's `PreviousSolution` of `previous = (x', g')`, which only a warm start from
/// `alpha0` may give, with as many values in each as `alpha0` has (`per_row`: one per training
/// row, half as many for the SVRs' `(α, α*)`); the solver checks the values.
pub(crate) fn previous_solution(
    previous: Option<&Previous<'_>>,
    alpha0: Option<&Vec<f64>>,
    per_row: bool,
) -> PyResult<Option<PreviousSolution>> {
    let Some((x, gradient)) = previous else { return Ok(None) };
    let invalid = |reason: String| PyErr::from(CoreError(SolveError::invalid("previous", reason)));
    let Some(alpha0) = alpha0 else {
        return Err(invalid(
            "it is the solution a warm start moved from, and alpha0 (the start) is not given"
                .to_owned(),
        ));
    };
    let (x, gradient) = (vector(x).into_owned(), vector(gradient).into_owned());
    let expected = if per_row { alpha0.len() / 2 } else { alpha0.len() };
    if x.len() != expected || gradient.len() != expected {
        return Err(invalid(format!(
            "its solution and gradient have {} and {} values, alpha0 has {}{}",
            x.len(),
            gradient.len(),
            alpha0.len(),
            if per_row { " (alpha and alpha*: one pair per row)" } else { "" }
        )));
    }
    Ok(Some(PreviousSolution { x, gradient }))
}

/// C-SVC on rows `x` with labels `y ∈ {−1, +1}` and per-sample upper bounds.
/// With `alpha0`, the solve starts from that feasible point (`0 ≤ α⁰ ≤ upper`) and keeps its
/// `yᵀα⁰`; with `previous = (x', g')`, the solution and gradient of an earlier solve of the
/// same rows, labels and kernel, its gradient starts from `g'` (see [`previous_solution`]).
#[pyfunction]
#[pyo3(signature = (x, y, upper, kernel, alpha0=None, previous=None, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_c_svc(
    py: Python<'_>,
    x: Input<'_>,
    y: PyReadonlyArray1<'_, f64>,
    upper: PyReadonlyArray1<'_, f64>,
    kernel: &Kernel,
    alpha0: Option<PyReadonlyArray1<'_, f64>>,
    previous: Option<Previous<'_>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Solution> {
    let labels = signs(&y, "y")?;
    let upper = vector(&upper).into_owned();
    let alpha0 = alpha0.as_ref().map(|a| vector(a).into_owned());
    let previous = previous_solution(previous.as_ref(), alpha0.as_ref(), false)?;
    let (solution, _) =
        solve_rows(py, &x, kernel, options, true, |x, callable, preferences, opts, monitor| {
            dispatch_kernel!(x, kernel, callable, preferences, |source| Ok((
                formulations::c_svc_from(source, &labels, upper, alpha0, previous, opts, monitor)?,
                f64::NAN
            )))
        })?;
    Ok(solution)
}

/// C-SVC on rows `x` of a built-in kernel (no callable: the GIL is not taken), from `alpha0`
/// with `previous` as in `solve_c_svc`, for the solves that `solve_c_svc_pairs` runs on its
/// workers.
#[allow(clippy::too_many_arguments)]
pub(crate) fn c_svc_of_rows(
    x: &Data<'_>,
    kernel: &Kernel,
    labels: &[i8],
    upper: Vec<f64>,
    alpha0: Option<Vec<f64>>,
    previous: Option<PreviousSolution>,
    preferences: Preferences,
    opts: &SolveOptions,
    monitor: &mut PythonMonitor,
) -> Result<kernelkit_solvers::Solution, CoreError> {
    let callable: Option<CallableKernel> = None;
    dispatch_kernel!(x, kernel, callable, preferences, |source| Ok(formulations::c_svc_from(
        source, labels, upper, alpha0, previous, opts, monitor
    )?))
}

/// One-class SVM on rows `x` with parameter `nu` and per-sample upper bounds; with `alpha0`
/// (`Σα⁰ = ν Σ upper`), the solve starts from it, and with `previous` as for `solve_c_svc`.
#[pyfunction]
#[pyo3(signature = (x, upper, nu, kernel, alpha0=None, previous=None, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_one_class(
    py: Python<'_>,
    x: Input<'_>,
    upper: PyReadonlyArray1<'_, f64>,
    nu: f64,
    kernel: &Kernel,
    alpha0: Option<PyReadonlyArray1<'_, f64>>,
    previous: Option<Previous<'_>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Solution> {
    let upper = vector(&upper).into_owned();
    let alpha0 = alpha0.as_ref().map(|a| vector(a).into_owned());
    let previous = previous_solution(previous.as_ref(), alpha0.as_ref(), false)?;
    let (solution, _) =
        solve_rows(py, &x, kernel, options, true, |x, callable, preferences, opts, monitor| {
            dispatch_kernel!(x, kernel, callable, preferences, |source| Ok((
                formulations::one_class_from(source, nu, upper, alpha0, previous, opts, monitor)?,
                f64::NAN
            )))
        })?;
    Ok(solution)
}

/// ε-SVR on rows `x` with targets `y` and per-sample upper bounds; `x` of the result is
/// `β = α − α*`, its gradient `Kβ`. With `alpha0 = (α⁰, α*⁰)` (length `2l`, `Σα⁰ = Σα*⁰`), the
/// solve starts from it; with `previous = (β', Kβ')` of an earlier solve of the same rows and
/// kernel, its gradient starts from that one's.
#[pyfunction]
#[pyo3(signature = (x, y, upper, epsilon, kernel, alpha0=None, previous=None, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_epsilon_svr(
    py: Python<'_>,
    x: Input<'_>,
    y: PyReadonlyArray1<'_, f64>,
    upper: PyReadonlyArray1<'_, f64>,
    epsilon: f64,
    kernel: &Kernel,
    alpha0: Option<PyReadonlyArray1<'_, f64>>,
    previous: Option<Previous<'_>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Solution> {
    let targets = vector(&y).into_owned();
    let upper = vector(&upper).into_owned();
    let alpha0 = alpha0.as_ref().map(|a| vector(a).into_owned());
    let previous = previous_solution(previous.as_ref(), alpha0.as_ref(), true)?;
    let (solution, _) =
        solve_rows(py, &x, kernel, options, true, |x, callable, preferences, opts, monitor| {
            dispatch_kernel!(x, kernel, callable, preferences, |source| Ok((
                formulations::epsilon_svr_from(
                    source, &targets, epsilon, upper, alpha0, previous, opts, monitor
                )?,
                f64::NAN
            )))
        })?;
    Ok(solution)
}

/// `min ½αᵀQα + pᵀα` s.t. `yᵀα = yᵀα⁰`, `0 ≤ α ≤ upper`, for a user-given dense `Q`.
#[pyfunction]
#[pyo3(signature = (q, p, y, upper, alpha0=None, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_box_qp(
    py: Python<'_>,
    q: PyReadonlyArray2<'_, f64>,
    p: PyReadonlyArray1<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    upper: PyReadonlyArray1<'_, f64>,
    alpha0: Option<PyReadonlyArray1<'_, f64>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Solution> {
    let options = parse_options(options)?;
    let q = matrix(&q);
    let p = vector(&p).into_owned();
    let labels = signs(&y, "y")?;
    let upper = vector(&upper).into_owned();
    let alpha0 = alpha0.as_ref().map(|a| vector(a).into_owned());
    run(py, options, |opts, monitor| {
        let gram = PrecomputedGram::new(&q.values, q.rows, q.cols)?;
        check_symmetric(&q.values, q.rows)?;
        let mut problem =
            BoxQp::new(SignedQ::unsigned(gram, opts.cache_bytes), p, labels, upper, alpha0)?;
        Ok(Smo.solve(&mut problem, opts, monitor)?.with_path(KernelPath::Precomputed))
    })
}

/// ν-SVC on rows `x` with labels `y ∈ {−1, +1}` and per-sample bounds (sample weights).
/// Returns the solution in C-SVC form (`x = α/r`, `bias = −ρ/r`, gradient `Qx`) and `r`
/// (`C = 1/r`). With the unscaled `alpha0` (`Σ_{y=±1} α⁰ = ν Σ upper / 2` each), the solve
/// starts from it; with `previous = (α', Qα')`, an earlier solve's `x` and gradient times its
/// `r`, its gradient starts from that one's. With `capped` (a probability fold; no start), a
/// class that cannot carry `ν Σ upper / 2` is held at its bounds (`nu_svc_capped`).
#[pyfunction]
#[pyo3(signature = (x, y, upper, nu, kernel, alpha0=None, previous=None, capped=false, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_nu_svc(
    py: Python<'_>,
    x: Input<'_>,
    y: PyReadonlyArray1<'_, f64>,
    upper: PyReadonlyArray1<'_, f64>,
    nu: f64,
    kernel: &Kernel,
    alpha0: Option<PyReadonlyArray1<'_, f64>>,
    previous: Option<Previous<'_>>,
    capped: bool,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Solution, f64)> {
    let labels = signs(&y, "y")?;
    let upper = vector(&upper).into_owned();
    let alpha0 = alpha0.as_ref().map(|a| vector(a).into_owned());
    let previous = previous_solution(previous.as_ref(), alpha0.as_ref(), false)?;
    if capped && alpha0.is_some() {
        let reason = "a capped solve (a probability fold) starts from LIBSVM's point, not alpha0";
        return Err(CoreError(SolveError::invalid("capped", reason.to_owned())).into());
    }
    solve_rows(py, &x, kernel, options, true, |x, callable, preferences, opts, monitor| {
        dispatch_kernel!(x, kernel, callable, preferences, |source| Ok(if capped {
            formulations::nu_svc_capped(source, &labels, nu, upper, opts, monitor)?
        } else {
            formulations::nu_svc_from(source, &labels, nu, upper, alpha0, previous, opts, monitor)?
        }))
    })
}

/// ν-SVR on rows `x` with targets `y` and per-sample bounds (`C` × sample weights). Returns the
/// solution (`x = α − α*`, gradient `Kβ`) and the tube width ε found. With `alpha0 = (α⁰, α*⁰)`
/// (length `2l`, `Σα⁰ = Σα*⁰ = ν Σ upper / 2`), the solve starts from it; `previous` as for
/// `solve_epsilon_svr`.
#[pyfunction]
#[pyo3(signature = (x, y, upper, nu, kernel, alpha0=None, previous=None, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_nu_svr(
    py: Python<'_>,
    x: Input<'_>,
    y: PyReadonlyArray1<'_, f64>,
    upper: PyReadonlyArray1<'_, f64>,
    nu: f64,
    kernel: &Kernel,
    alpha0: Option<PyReadonlyArray1<'_, f64>>,
    previous: Option<Previous<'_>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Solution, f64)> {
    let targets = vector(&y).into_owned();
    let upper = vector(&upper).into_owned();
    let alpha0 = alpha0.as_ref().map(|a| vector(a).into_owned());
    let previous = previous_solution(previous.as_ref(), alpha0.as_ref(), true)?;
    solve_rows(py, &x, kernel, options, true, |x, callable, preferences, opts, monitor| {
        dispatch_kernel!(x, kernel, callable, preferences, |source| Ok(formulations::nu_svr_from(
            source, &targets, nu, upper, alpha0, previous, opts, monitor
        )?))
    })
}

/// USMO for PU learning: labeled positives `x_positive`, unlabeled rows `x_unlabeled`, prior
/// `π`, regularisation `λ`, working-set `selection` (`"full"` or `"paper"`). The solution's `x`
/// is `σ` (one value per unlabeled row) and `bias` is β; the extra value is `c1` (the
/// coefficient of every positive). `stats` also holds `selection` and `whole_set_passes` (the
/// paper scheme's passes over every row; 0 for `"full"`, which scans every row at each step).
#[pyfunction]
#[pyo3(signature = (x_positive, x_unlabeled, kernel, prior, lam, selection="full", **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_pu(
    py: Python<'_>,
    x_positive: Input<'_>,
    x_unlabeled: Input<'_>,
    kernel: &Kernel,
    prior: f64,
    lam: f64,
    selection: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Solution, f64)> {
    let selection = Selection::parse(selection).ok_or_else(|| {
        PyValueError::new_err(format!("selection = {selection:?}: expected \"full\" or \"paper\""))
    })?;
    let usmo = Usmo::new(selection);
    let function = kernel.function()?;
    let options = parse_options(options)?;
    let single_products = Preferences::for_input(options.float32_input, true).single_products;
    let (positive, unlabeled) = (data(&x_positive), data(&x_unlabeled));
    // The whole-set passes of the paper scheme are its gradient reconstructions (each pass
    // starts by bringing every stored f̂ up to date).
    let passes = |solution: &kernelkit_solvers::Solution| match selection {
        Selection::Full => 0,
        Selection::Paper => solution.stats.gradient_reconstructions,
    };
    let (solution, (c1, whole_set_passes)) = run_with_extra(py, options, |opts, monitor| {
        let n_positive = Storage::new(&positive)?.row_set().n_rows();
        let (sums, unlabeled_sums) = {
            let (left, right) = (Storage::new(&unlabeled)?, Storage::new(&positive)?);
            // Only the full scheme's uniform start reads Σ_v k(x_u, x_v) (n² kernel values).
            let unlabeled_sums = match selection {
                Selection::Full => Some(kernel_row_sums(left.row_set(), left.row_set(), function)?),
                Selection::Paper => None,
            };
            (kernel_row_sums(left.row_set(), right.row_set(), function)?, unlabeled_sums)
        };
        let storage = Storage::new(&unlabeled)?;
        // USMO can run on the linear kernel's w; other kernels read the rows as training does.
        let wants = Preferences { linear_primal: true, ..Preferences::default() };
        if uses_linear_primal(function, &wants) {
            // The w-vector fast path: no kernel columns, no cache.
            let mut problem =
                PuProblem::new(LinearRows::new(storage.row_set()), sums, prior, lam, n_positive)?;
            problem.unlabeled_sums = unlabeled_sums;
            let c1 = problem.c1;
            let solution = usmo.solve(&mut problem, opts, monitor)?;
            let extra = (c1, passes(&solution));
            return Ok((solution.with_path(KernelPath::LinearPrimal), extra));
        }
        let storage = match storage {
            Storage::Dense(rows) if reads_sparse(density(rows.rows(0, rows.n_rows()))) => {
                let values = rows.rows(0, rows.n_rows());
                Storage::Sparse(CsrRows::from_dense(values, rows.n_rows(), rows.n_features())?)
            }
            storage => storage,
        };
        match storage {
            Storage::Sparse(rows) => {
                let kernel = SparseKernel::new(rows, function)?;
                let path = kernel.path();
                let q = SignedQ::unsigned(kernel, opts.cache_bytes);
                let mut problem = PuProblem::new(KernelColumns(q), sums, prior, lam, n_positive)?;
                problem.unlabeled_sums = unlabeled_sums;
                let solution = usmo.solve(&mut problem, opts, monitor)?;
                let extra = (problem.c1, passes(&solution));
                Ok((solution.with_path(path), extra))
            }
            Storage::Dense(rows) => {
                let kernel =
                    DenseKernel::new(rows, function)?.with_single_products(single_products);
                let path = kernel.path();
                let q = SignedQ::unsigned(kernel, opts.cache_bytes);
                let mut problem = PuProblem::new(KernelColumns(q), sums, prior, lam, n_positive)?;
                problem.unlabeled_sums = unlabeled_sums;
                let solution = usmo.solve(&mut problem, opts, monitor)?;
                let extra = (problem.c1, passes(&solution));
                Ok((solution.with_path(path), extra))
            }
        }
    })?;
    let stats = solution.stats.bind(py);
    stats.set_item("selection", selection.as_str())?;
    stats.set_item("whole_set_passes", whole_set_passes)?;
    Ok((solution, c1))
}

/// The accepted values of `solve_frank_wolfe`'s `sample_pool`, `init`, `method` and
/// `radius_rule`, and of `solve_klr`'s `selection` ([`parse_choice`]).
const SAMPLE_POOLS: &[(&str, SamplePool)] =
    &[("all", SamplePool::All), ("noncore", SamplePool::NonCore)];
const STARTS: &[(&str, Start)] = &[("random", Start::RandomMeb), ("furthest", Start::FurthestPair)];
const METHODS: &[(&str, Method)] =
    &[("cvm", Method::Cvm), ("fw", Method::Fw), ("mfw", Method::Mfw)];
const RADIUS_RULES: &[(&str, RadiusRule)] =
    &[("exact", RadiusRule::Exact), ("paper", RadiusRule::PaperPrinted)];
const KLR_SELECTIONS: &[(&str, WorkingSetRule)] =
    &[("second_order", WorkingSetRule::SecondOrder), ("first_order", WorkingSetRule::FirstOrder)];

/// The L2-SVM through the minimum enclosing ball (Frank–Wolfe family) on rows `x` with labels
/// `y ∈ {−1, +1}`. The solution's `x` is `α` on the unit simplex, `objective` is `αᵀK̃α`, `bias`
/// is `Σ α_i y_i`, `gap` the Frank–Wolfe gap; `stats` also holds `radius2`, `delta2`,
/// `fw_steps`, `away_steps`, `drop_steps`, `coreset_size` and `inner_iterations`.
#[pyfunction]
#[pyo3(signature = (
    x, y, kernel, c, method, epsilon, sample_size=None, seed=0, sample_trials=7, init_size=20,
    verify_full=false, radius_rule="exact", init="random", sample_pool="all", **options
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_frank_wolfe(
    py: Python<'_>,
    x: Input<'_>,
    y: PyReadonlyArray1<'_, f64>,
    kernel: &Kernel,
    c: f64,
    method: &str,
    epsilon: f64,
    sample_size: Option<usize>,
    seed: u64,
    sample_trials: u32,
    init_size: usize,
    verify_full: bool,
    radius_rule: &str,
    init: &str,
    sample_pool: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Solution> {
    let sample_pool = parse_choice("sample_pool", sample_pool, SAMPLE_POOLS)?;
    let start = parse_choice("init", init, STARTS)?;
    let method = parse_choice("method", method, METHODS)?;
    let radius_rule = parse_choice("radius_rule", radius_rule, RADIUS_RULES)?;
    let solver = FrankWolfe {
        method,
        epsilon,
        sample_size,
        sample_trials,
        sample_pool,
        init_size,
        start,
        verify_full,
        radius_rule,
    };
    solver.validate().map_err(CoreError::from)?;
    let labels = vector(&y).into_owned();
    let (solution, report) =
        solve_rows(py, &x, kernel, options, false, |x, callable, preferences, opts, monitor| {
            let opts = SolveOptions { seed, ..opts.clone() };
            // Frank–Wolfe caches f64 columns for its relative stopping rule: f64 products
            // (`f32_columns` false above).
            dispatch_kernel!(x, kernel, callable, preferences, |source| {
                let mut problem = SimplexQp::new(source, &labels, c, opts.cache_bytes)?;
                Ok(solver.solve_with_report(&mut problem, &opts, monitor)?)
            })
        })?;
    let stats = solution.stats.bind(py);
    stats.set_item("radius2", report.radius2)?;
    stats.set_item("delta2", report.delta2)?;
    stats.set_item("fw_steps", report.toward_steps)?;
    stats.set_item("away_steps", report.away_steps)?;
    stats.set_item("drop_steps", report.drop_steps)?;
    stats.set_item("coreset_size", report.coreset_size)?;
    stats.set_item("inner_iterations", report.inner_iterations)?;
    Ok(solution)
}

/// Sparse kernel logistic regression (problem (22) of Consolo, Manno & Amaldi) on rows `x` with
/// labels `y ∈ {−1, +1}`. Returns the solution (`x` = α, `bias` = b) and, when
/// `record_history`, the objective and the squared step norm of every iteration.
#[pyfunction]
#[pyo3(signature = (
    x, y, kernel, c, lam, bound_eps, selection="second_order", record_history=false,
    sample_weight=None, **options
))]
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
pub(crate) fn solve_klr(
    py: Python<'_>,
    x: Input<'_>,
    y: PyReadonlyArray1<'_, f64>,
    kernel: &Kernel,
    c: f64,
    lam: f64,
    bound_eps: f64,
    selection: &str,
    record_history: bool,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Solution, Option<Py<PyDict>>)> {
    let rule = parse_choice("selection", selection, KLR_SELECTIONS)?;
    let solver = KlrSmo { rule, record_history };
    let labels = vector(&y).into_owned();
    let weights = sample_weight.as_ref().map(|w| vector(w).into_owned());
    let (solution, report) =
        solve_rows(py, &x, kernel, options, false, |x, callable, preferences, opts, monitor| {
            // Sparse KLR caches f64 columns (its τ = 1e-5 on logarithmic gradients): f64
            // products (`f32_columns` false above).
            dispatch_kernel!(x, kernel, callable, preferences, |source| {
                let mut problem = KlrProblem::weighted(
                    source,
                    &labels,
                    c,
                    weights.as_deref(),
                    lam,
                    bound_eps,
                    opts.cache_bytes,
                )?;
                Ok(solver.solve_with_report(&mut problem, opts, monitor)?)
            })
        })?;
    let history = if record_history {
        let dict = PyDict::new(py);
        dict.set_item("objective", PyArray1::from_vec(py, report.objectives))?;
        dict.set_item("step_norm2", PyArray1::from_vec(py, report.step_norms))?;
        Some(dict.unbind())
    } else {
        None
    };
    Ok((solution, history))
}
