//! The solver options every entry point takes, parsed from Python keyword arguments.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use kernelkit_solvers::{Engine, SolveOptions};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::CoreError;
use crate::progress::StopFlag;

/// Options shared by every entry point, as received from Python.
pub(crate) struct Options {
    pub(crate) solve: SolveOptions,
    pub(crate) callback: Option<Py<PyAny>>,
    /// The flag of a `StopFlag`: the solve stops at its next report once it is set.
    pub(crate) stop: Option<Arc<AtomicBool>>,
    /// The rows were a float32 array (a fact the plan turns into `Preferences`).
    pub(crate) float32_input: bool,
}

impl Options {
    /// The flag the solve's monitor reads: the given `stop`, else a fresh one (which only
    /// Ctrl-C sets).
    pub(crate) fn interrupted(&self) -> Arc<AtomicBool> {
        self.stop.clone().unwrap_or_else(|| Arc::new(AtomicBool::new(false)))
    }
}

/// The solver options every entry point takes as keyword arguments: `tol`, `max_iter`,
/// `cache_size` (MB), `shrinking`, `n_jobs` (0 = every core), `time_limit` (s), `callback`,
/// `stop` (a `StopFlag`), `float32_input` (the rows were a float32 array:
/// `kernelkit_kernels::Preferences::for_input`) and `engine` (`"auto"`, `"libsvm"` or `"batched"`: the SMO solvers').
pub(crate) fn parse_options(given: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
    let mut tol: f64 = 1e-3;
    let mut max_iter = None;
    let mut cache_size: f64 = 200.0;
    let mut shrinking = true;
    let mut n_jobs = 0usize;
    let mut time_limit: Option<f64> = None;
    let mut callback: Option<Py<PyAny>> = None;
    let mut stop = None;
    let mut float32_input = false;
    let mut engine = Engine::Auto;
    // An unknown SIMD level is named before any work (the loops would run the native one).
    kernelkit_kernels::Level::check_env().map_err(PyValueError::new_err)?;
    if let Some(given) = given {
        for (key, value) in given.iter() {
            let key: String = key.extract()?;
            match key.as_str() {
                "tol" => tol = value.extract()?,
                "max_iter" => max_iter = value.extract()?,
                "cache_size" => cache_size = value.extract()?,
                "shrinking" => shrinking = value.extract()?,
                "n_jobs" => n_jobs = value.extract()?,
                "time_limit" => time_limit = value.extract()?,
                "float32_input" => float32_input = value.extract()?,
                "engine" => {
                    let name: String = value.extract()?;
                    engine = Engine::parse(&name).ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "engine = {name:?}: expected \"auto\", \"libsvm\" or \"batched\""
                        ))
                    })?;
                }
                "callback" => {
                    callback = if value.is_none() { None } else { Some(value.unbind()) };
                }
                "stop" if !value.is_none() => {
                    stop = Some(Arc::clone(&value.cast::<StopFlag>()?.get().flag));
                }
                "stop" => stop = None,
                other => {
                    return Err(PyTypeError::new_err(format!(
                        "unexpected solver option {other:?}: expected tol, max_iter, cache_size, \
                         shrinking, n_jobs, time_limit, float32_input, engine, callback or stop"
                    )))
                }
            }
        }
    }
    if !(cache_size.is_finite() && cache_size >= 0.0) {
        return Err(PyValueError::new_err(format!("cache_size = {cache_size} must be >= 0 (MB)")));
    }
    let time_limit = match time_limit {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            return Err(PyValueError::new_err(format!("time_limit = {t} must be > 0 (seconds)")))
        }
        // Beyond what a `Duration` holds (about 5.8e11 years): no limit.
        Some(t) => Duration::try_from_secs_f64(t).ok(),
        None => None,
    };
    let solve = SolveOptions {
        tol,
        max_iter,
        cache_bytes: (cache_size * 1024.0 * 1024.0) as usize,
        shrinking,
        n_threads: n_jobs,
        time_limit,
        engine,
        ..SolveOptions::default()
    };
    solve.validate().map_err(CoreError::from)?;
    Ok(Options { solve, callback, stop, float32_input })
}
