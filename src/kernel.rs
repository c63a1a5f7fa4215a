//! The kernel specification shared by every estimator, and blocked kernel matrices.

use kernelkit_kernels::plan::reads_sparse;
use kernelkit_kernels::{
    cross_kernel, cross_kernel_product, density, CsrRows, DenseRows, KernelFunction,
};
use numpy::{PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::callable::CallableKernel;
use crate::errors::CoreError;
use crate::progress::interruptible;
use crate::sparse::{data, Input, Storage};

/// A kernel: `"linear"`, `"rbf"`, `"poly"`, `"sigmoid"`, `"precomputed"`, or `"callable"`
/// with the Python `function(A, B) -> Gram block`.
#[pyclass(frozen, get_all, module = "kernelkit._core")]
#[derive(Debug)]
pub(crate) struct Kernel {
    kind: String,
    gamma: f64,
    degree: u32,
    coef0: f64,
    function: Option<Py<PyAny>>,
}

#[pymethods]
impl Kernel {
    #[new]
    #[pyo3(signature = (kind, gamma=1.0, degree=3, coef0=0.0, function=None))]
    fn new(
        kind: &str,
        gamma: f64,
        degree: u32,
        coef0: f64,
        function: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        if (kind == "callable") != function.is_some() {
            return Err(PyValueError::new_err(
                "a 'callable' kernel needs `function`, and only a callable kernel takes one",
            ));
        }
        let kernel = Kernel { kind: kind.to_owned(), gamma, degree, coef0, function };
        if kernel.kind != "precomputed" && kernel.kind != "callable" {
            kernel.function()?.validate().map_err(CoreError::from)?;
        }
        Ok(kernel)
    }

    fn __repr__(&self) -> String {
        format!(
            "Kernel(kind={:?}, gamma={}, degree={}, coef0={})",
            self.kind, self.gamma, self.degree, self.coef0
        )
    }
}

impl Kernel {
    pub(crate) fn is_precomputed(&self) -> bool {
        self.kind == "precomputed"
    }

    pub(crate) fn is_callable(&self) -> bool {
        self.function.is_some()
    }

    /// The callable kernel over `x` (with its diagonal computed), when this kernel is one.
    pub(crate) fn callable_source(
        &self,
        py: Python<'_>,
        x: &Input<'_>,
    ) -> PyResult<Option<CallableKernel>> {
        let Some(function) = &self.function else { return Ok(None) };
        let Input::Dense(rows) = x else {
            return Err(PyValueError::new_err(
                "a callable kernel needs dense rows (pass X as a NumPy array)",
            ));
        };
        let n = rows.shape()[0];
        let rows = rows.as_any().clone().unbind();
        Ok(Some(CallableKernel::new(py, function.clone_ref(py), rows, n)?))
    }

    /// The kernel function (an error for `"precomputed"` or an unknown name).
    pub(crate) fn function(&self) -> PyResult<KernelFunction> {
        let (gamma, coef0, degree) = (self.gamma, self.coef0, self.degree);
        match self.kind.as_str() {
            "linear" => Ok(KernelFunction::Linear),
            "rbf" => Ok(KernelFunction::Rbf { gamma }),
            "poly" => Ok(KernelFunction::Polynomial { gamma, coef0, degree }),
            "sigmoid" => Ok(KernelFunction::Sigmoid { gamma, coef0 }),
            "precomputed" | "callable" => Err(PyValueError::new_err(format!(
                "a {} kernel has no built-in kernel function",
                self.kind
            ))),
            other => Err(PyValueError::new_err(format!(
                "unknown kernel {other:?}: expected 'linear', 'rbf', 'poly', 'sigmoid' or \
                 'precomputed'"
            ))),
        }
    }
}

/// `K(a_i, b_j)` for all rows of `a` and `b` (each dense or CSR), computed in blocks on
/// `n_jobs` threads; Ctrl-C stops it between blocks and raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (a, b, kernel, n_jobs=0))]
pub(crate) fn kernel_matrix<'py>(
    py: Python<'py>,
    a: Input<'py>,
    b: Input<'py>,
    kernel: &Kernel,
    n_jobs: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let function = kernel.function()?;
    let (a, b) = (data(&a), data(&b));
    let values =
        interruptible(py, n_jobs, |stop| -> Result<(Vec<f64>, usize, usize), CoreError> {
            let (left, right) = binary_as_csr(Storage::new(&a)?, Storage::new(&b)?)?;
            let (m, n) = (left.row_set().n_rows(), right.row_set().n_rows());
            let mut out = vec![0.0; m * n];
            cross_kernel(left.row_set(), right.row_set(), function, &mut out, stop)?;
            Ok((out, m, n))
        })?;
    let (values, m, n) = values;
    let array = numpy::ndarray::Array2::from_shape_vec((m, n), values)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyArray2::from_owned_array(py, array))
}

/// `K(a, b) · coef` for `coef` of shape `(|b|, k)`: the decision values of a kernel machine
/// (`b` its support vectors), computed in blocks of rows on `n_jobs` threads without holding
/// `K(a, b)`, and with `b` converted once (not once per block of `a`). Ctrl-C stops it between
/// blocks and raises `KeyboardInterrupt` (600,000 rows against 2,998 support vectors went on for
/// 17.7 s after the signal when nothing watched).
#[pyfunction]
#[pyo3(signature = (a, b, kernel, coef, n_jobs=0))]
pub(crate) fn kernel_matrix_product<'py>(
    py: Python<'py>,
    a: Input<'py>,
    b: Input<'py>,
    kernel: &Kernel,
    coef: PyReadonlyArray2<'py, f64>,
    n_jobs: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let function = kernel.function()?;
    let coef = coef.as_array();
    let k = coef.ncols();
    // One contiguous vector per output column.
    let coef_t: Vec<f64> = coef.t().iter().copied().collect();
    if coef_t.iter().any(|v| !v.is_finite()) {
        return Err(PyValueError::new_err("coef contains NaN or infinity"));
    }
    let (a, b) = (data(&a), data(&b));
    let (values, m) = interruptible(py, n_jobs, |stop| -> Result<(Vec<f64>, usize), CoreError> {
        let (left, right) = binary_as_csr(Storage::new(&a)?, Storage::new(&b)?)?;
        let (rows, sv) = (left.row_set(), right.row_set());
        let m = rows.n_rows();
        let mut out = vec![0.0; m * k];
        cross_kernel_product(rows, sv, function, &coef_t, k, &mut out, stop)?;
        Ok((out, m))
    })?;
    let array = numpy::ndarray::Array2::from_shape_vec((m, k), values)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyArray2::from_owned_array(py, array))
}

/// Two dense row sets of 0/1 values, mostly zeros (one-hot data passed as NumPy arrays, as
/// a9a densified), as CSR: their products are then counts of shared features on bit sets
/// (`kernelkit_kernels` `bitmap`), several times cheaper than a dense GEMM over all features.
fn binary_as_csr<'a>(
    left: Storage<'a>,
    right: Storage<'a>,
) -> Result<(Storage<'a>, Storage<'a>), CoreError> {
    let sparse_binary = |rows: &DenseRows<'_>| {
        let values = rows.rows(0, rows.n_rows());
        values.iter().all(|&v| v == 0.0 || v == 1.0) && reads_sparse(density(values))
    };
    match (left, right) {
        (Storage::Dense(a), Storage::Dense(b)) if sparse_binary(&a) && sparse_binary(&b) => {
            let to_csr = |rows: &DenseRows<'_>| {
                CsrRows::from_dense(rows.rows(0, rows.n_rows()), rows.n_rows(), rows.n_features())
            };
            Ok((Storage::Sparse(to_csr(&a)?), Storage::Sparse(to_csr(&b)?)))
        }
        pair => Ok(pair),
    }
}
