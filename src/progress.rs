//! The bridge from a running solve (GIL released) to Python: Ctrl-C and the user's callback.

use std::time::{Duration, Instant};

use kernelkit_solvers::{Control, Monitor, Progress};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Least time between two visits to Python (signals and callback).
const MIN_INTERVAL: Duration = Duration::from_millis(20);

/// Checks for Ctrl-C and calls the callback, at most every [`MIN_INTERVAL`].
pub(crate) struct PythonMonitor {
    callback: Option<Py<PyAny>>,
    last_visit: Option<Instant>,
    /// The exception that stopped the solve (KeyboardInterrupt, or raised by the callback).
    pub error: Option<PyErr>,
}

impl PythonMonitor {
    pub(crate) fn new(callback: Option<Py<PyAny>>) -> Self {
        PythonMonitor {
            callback,
            last_visit: None,
            error: None,
        }
    }

    fn visit(&mut self, py: Python<'_>, progress: &Progress) -> PyResult<Control> {
        py.check_signals()?;
        let Some(callback) = &self.callback else {
            return Ok(Control::Continue);
        };
        let report = PyDict::new(py);
        report.set_item("iteration", progress.iteration)?;
        report.set_item("gap", progress.gap)?;
        report.set_item("objective", progress.objective)?;
        report.set_item("active_size", progress.active_size)?;
        report.set_item("cache_hits", progress.cache.hits)?;
        report.set_item("cache_misses", progress.cache.misses)?;
        let answer = callback.call1(py, (report,))?;
        Ok(if answer.is_truthy(py)? {
            Control::Stop
        } else {
            Control::Continue
        })
    }
}

impl Monitor for PythonMonitor {
    fn report(&mut self, progress: &Progress) -> Control {
        if self.last_visit.is_some_and(|t| t.elapsed() < MIN_INTERVAL) {
            return Control::Continue;
        }
        self.last_visit = Some(Instant::now());
        Python::attach(|py| match self.visit(py, progress) {
            Ok(control) => control,
            Err(error) => {
                self.error = Some(error);
                Control::Stop
            }
        })
    }
}
