//! The one place where core errors become Python exceptions.

use kernelkit_kernels::KernelError;
use kernelkit_solvers::SolveError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::PyErr;

/// Core errors as Python exceptions: invalid data and parameters are `ValueError`s.
pub(crate) struct CoreError(pub SolveError);

impl From<SolveError> for CoreError {
    fn from(error: SolveError) -> Self {
        CoreError(error)
    }
}

impl From<KernelError> for CoreError {
    fn from(error: KernelError) -> Self {
        CoreError(SolveError::Kernel(error))
    }
}

impl From<CoreError> for PyErr {
    fn from(error: CoreError) -> PyErr {
        match error.0 {
            SolveError::ThreadPool(message) => PyRuntimeError::new_err(message),
            // The signal's own exception is raised before any error of the solve.
            SolveError::Interrupted => PyRuntimeError::new_err(
                "kernelkit internal error (a bug; please report it): an interrupted solve \
                 returned without its signal",
            ),
            other => PyValueError::new_err(other.to_string()),
        }
    }
}

/// The enum value that a string parameter names, from `choices` (`(name, value)` pairs in the
/// order the message lists them); any other string is a `ValueError` naming `parameter` and the
/// accepted names: "`parameter` must be 'a', 'b' or 'c', got \"other\"".
pub(crate) fn parse_choice<T: Copy>(
    parameter: &str,
    value: &str,
    choices: &[(&str, T)],
) -> Result<T, PyErr> {
    if let Some(&(_, chosen)) = choices.iter().find(|(name, _)| *name == value) {
        return Ok(chosen);
    }
    let quoted: Vec<String> = choices.iter().map(|(name, _)| format!("'{name}'")).collect();
    let accepted = match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    Err(PyValueError::new_err(format!("{parameter} must be {accepted}, got {value:?}")))
}
