//! Callable kernels: a Python function `k(A, B) -> array` evaluated on blocks of rows, as
//! scikit-learn allows `kernel=callable`. The solver asks for kernel columns with the GIL
//! released; each block attaches to Python, slices the training rows, and calls the function
//! once. A Python exception is kept and raised when the solve returns; meanwhile the block is
//! filled with NaN, which ends the solve at its next step.

use std::sync::{Arc, Mutex};

use kernelkit_kernels::KernelSource;
use numpy::{PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The exception raised by a callable kernel during a solve, if any.
pub(crate) type ErrorSlot = Arc<Mutex<Option<PyErr>>>;

/// Rows per call when the diagonal is computed up front.
const DIAGONAL_BLOCK: usize = 256;

/// A kernel given as a Python callable over the rows of a Python array.
pub(crate) struct CallableKernel {
    function: Py<PyAny>,
    rows: Py<PyAny>,
    permutation: Vec<usize>,
    diagonal: Vec<f64>,
    error: ErrorSlot,
}

impl CallableKernel {
    /// Wraps `function` over `rows` (`n` rows), computing the diagonal `k(x_i, x_i)` in blocks.
    pub(crate) fn new(
        py: Python<'_>,
        function: Py<PyAny>,
        rows: Py<PyAny>,
        n: usize,
    ) -> PyResult<Self> {
        let mut kernel = CallableKernel {
            function,
            rows,
            permutation: (0..n).collect(),
            diagonal: Vec::with_capacity(n),
            error: Arc::new(Mutex::new(None)),
        };
        for start in (0..n).step_by(DIAGONAL_BLOCK) {
            let block: Vec<usize> = (start..(start + DIAGONAL_BLOCK).min(n)).collect();
            let values = kernel.evaluate(py, &block, &block)?;
            let width = block.len();
            kernel.diagonal.extend((0..width).map(|k| values[k * width + k]));
        }
        Ok(kernel)
    }

    pub(crate) fn error_slot(&self) -> ErrorSlot {
        Arc::clone(&self.error)
    }

    /// `k(X[left], X[right])` as a row-major vector, checking the shape and finiteness.
    fn evaluate(&self, py: Python<'_>, left: &[usize], right: &[usize]) -> PyResult<Vec<f64>> {
        let rows = self.rows.bind(py);
        let take = |positions: &[usize]| -> PyResult<Bound<'_, PyAny>> {
            let index: Vec<i64> = positions.iter().map(|&p| self.permutation[p] as i64).collect();
            rows.get_item(PyArray1::from_vec(py, index))
        };
        let result = self.function.bind(py).call1((take(left)?, take(right)?))?;
        let numpy = py.import("numpy")?;
        let array = numpy.getattr("asarray")?.call1((result, "float64"))?;
        let array: PyReadonlyArray2<'_, f64> = array.extract().map_err(|_| {
            PyValueError::new_err("the kernel callable must return a 2-D array of numbers")
        })?;
        if array.shape() != [left.len(), right.len()] {
            return Err(PyValueError::new_err(format!(
                "the kernel callable returned shape {:?} for {} x {} rows",
                array.shape(),
                left.len(),
                right.len()
            )));
        }
        let values: Vec<f64> = array.as_array().iter().copied().collect();
        if values.iter().any(|v| !v.is_finite()) {
            return Err(PyValueError::new_err("the kernel callable returned NaN or infinity"));
        }
        Ok(values)
    }
}

impl KernelSource for CallableKernel {
    fn len(&self) -> usize {
        self.permutation.len()
    }

    fn diagonal_value(&self, i: usize) -> f64 {
        self.diagonal[i]
    }

    fn fill_block(&self, rows: &[usize], start: usize, end: usize, out: &mut [f64]) {
        let right: Vec<usize> = (start..end).collect();
        let outcome = Python::attach(|py| self.evaluate(py, rows, &right));
        match outcome {
            Ok(values) => out.copy_from_slice(&values),
            Err(error) => {
                let mut slot = self.error.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                slot.get_or_insert(error);
                out.fill(f64::NAN);
            }
        }
    }

    fn path(&self) -> kernelkit_kernels::KernelPath {
        kernelkit_kernels::KernelPath::Callable
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.permutation.swap(i, j);
        self.diagonal.swap(i, j);
    }
}

/// Raises the exception a callable kernel kept, if any.
pub(crate) fn raise_kept(slot: Option<ErrorSlot>) -> PyResult<()> {
    if let Some(slot) = slot {
        let kept = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        if let Some(error) = kept {
            return Err(error);
        }
    }
    Ok(())
}
