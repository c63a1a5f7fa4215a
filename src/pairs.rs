//! `solve_c_svc_pairs`: the C-SVC duals of one-vs-one's class pairs, solved concurrently by
//! workers of one thread each, in one call.
//!
//! A multiclass fit solves one dual per pair of classes (45 for USPS's ten digits), each
//! short. Driven from Python, each solve was a round trip through a thread pool of Python
//! threads: the GIL, a future, a hand-over to the solve's pool thread and back, a noticeable
//! fraction of a short solve between two solves of one thread, while the other thread's solve
//! ran alone (measurements: `docs/performance.md`, "One-vs-one pairs from Python").
//! Here each worker takes the next pair (in the given order) as soon as it has finished one,
//! without the GIL. Every solve is the one `solve_c_svc` would run on its pair (a pool of one
//! thread, the same options, the same start and previous solve for a warm fit), so the
//! solutions do not depend on the route.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use kernelkit_kernels::Preferences;
use kernelkit_solvers::PreviousSolution;
use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{signs, vector};
use crate::errors::CoreError;
use crate::kernel::Kernel;
use crate::options::parse_options;
use crate::progress::{run_workers, PythonMonitor};
use crate::solve::{c_svc_of_rows, previous_solution, python_solution, Previous, Solution};
use crate::sparse::Data;
use crate::subsets::{Subset, SubsetInput};

/// C-SVC on each row subset `subsets[k]` with labels `ys[k] ∈ {−1, +1}` and upper bounds
/// `uppers[k]`, on `n_workers` workers of one thread; the solutions in the pairs' order. With
/// `alpha0s` (and `previous`), pair `k` starts from `alpha0s[k]` (with `previous[k]`) where
/// that entry is not None, as `solve_c_svc` does (a warm start). The kernel must be built in
/// (no callable, no precomputed Gram matrix) and `callback` is not taken (a solve's reports
/// would need the GIL); `stop` and Ctrl-C stop every solve. The first failed solve's error (in
/// the pairs' order) is raised.
#[pyfunction]
#[pyo3(signature = (subsets, ys, uppers, kernel, n_workers, alpha0s=None, previous=None, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_c_svc_pairs(
    py: Python<'_>,
    subsets: Vec<SubsetInput<'_>>,
    ys: Vec<PyReadonlyArray1<'_, f64>>,
    uppers: Vec<PyReadonlyArray1<'_, f64>>,
    kernel: &Kernel,
    n_workers: usize,
    alpha0s: Option<Vec<Option<PyReadonlyArray1<'_, f64>>>>,
    previous: Option<Vec<Option<Previous<'_>>>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Solution>> {
    let n = subsets.len();
    let (n_starts, n_previous) =
        (alpha0s.as_ref().map_or(n, Vec::len), previous.as_ref().map_or(n, Vec::len));
    if ys.len() != n || uppers.len() != n || n_starts != n || n_previous != n {
        return Err(PyValueError::new_err(format!(
            "subsets, ys, uppers, alpha0s and previous must have one entry per pair: got {n}, \
             {}, {}, {n_starts} and {n_previous}",
            ys.len(),
            uppers.len()
        )));
    }
    let starts: Vec<Option<Vec<f64>>> = match &alpha0s {
        Some(alpha0s) => {
            alpha0s.iter().map(|a| a.as_ref().map(|a| vector(a).into_owned())).collect()
        }
        None => vec![None; n],
    };
    let previous: Vec<Option<PreviousSolution>> = match &previous {
        Some(previous) => previous
            .iter()
            .zip(&starts)
            .map(|(p, start)| previous_solution(p.as_ref(), start.as_ref(), false))
            .collect::<PyResult<_>>()?,
        None => vec![None; n],
    };
    if kernel.is_callable() || kernel.is_precomputed() {
        return Err(PyValueError::new_err(
            "solve_c_svc_pairs takes a built-in kernel (not callable, not precomputed)",
        ));
    }
    kernel.function()?;
    let options = parse_options(options)?;
    if options.callback.is_some() {
        return Err(PyValueError::new_err("solve_c_svc_pairs takes no callback"));
    }
    let labels = ys.iter().map(|y| signs(y, "y")).collect::<PyResult<Vec<_>>>()?;
    let uppers: Vec<Vec<f64>> = uppers.iter().map(|u| vector(u).into_owned()).collect();
    let rows: Vec<Subset<'_>> = subsets.iter().map(Subset::new).collect();
    let interrupted = options.interrupted();
    let solve_options = options.solve;
    let preferences = Preferences::for_input(options.float32_input, true);
    let results: Vec<Mutex<Option<Result<kernelkit_solvers::Solution, CoreError>>>> =
        (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let worker = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= n {
            break;
        }
        let mut monitor = PythonMonitor::new(None, Arc::clone(&interrupted));
        let data = Data::Subset(rows[k]);
        let result = c_svc_of_rows(
            &data,
            kernel,
            &labels[k],
            uppers[k].clone(),
            starts[k].clone(),
            previous[k].clone(),
            preferences,
            &solve_options,
            &mut monitor,
        );
        *results[k].lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
    };
    if let Some(signal) = run_workers(py, &interrupted, n_workers, &worker)? {
        return Err(signal);
    }
    results
        .into_iter()
        .map(|slot| {
            let result = slot.into_inner().unwrap_or_else(PoisonError::into_inner);
            let solution = result.ok_or_else(|| {
                PyRuntimeError::new_err(
                    "kernelkit internal error (a bug; please report it): a pair was not solved",
                )
            })??;
            python_solution(py, solution)
        })
        .collect()
}
