//! `first_occurrences`: which training rows repeat an earlier one (the C-SVC reduction of
//! identical rows, `kernelkit._duplicates`).

use kernelkit_kernels::{first_dense_occurrences, first_sparse_occurrences};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::arrays::matrix;
use crate::progress::detached;
use crate::sparse::{data, Data, Input};

/// For each row of `x` (a dense float64 or float32 array or a `CsrMatrix`), the index of the first row
/// with the same bits (its own index for a first occurrence), as int64. The rows are hashed on
/// `n_jobs` threads (0: every core).
#[pyfunction]
#[pyo3(signature = (x, n_jobs=0))]
pub(crate) fn first_occurrences<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    n_jobs: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if let Ok(single) = x.cast::<PyArray2<f32>>() {
        // float32 rows: their bits, without a float64 copy (equal exactly when the float64
        // widenings are).
        let readonly = single.readonly();
        let m = matrix(&readonly);
        let (values, n_rows, n_cols) = (&m.values, m.rows, m.cols);
        let first = detached(py, n_jobs, || first_dense_occurrences(values, n_rows, n_cols))?;
        return Ok(PyArray1::from_iter(py, first.into_iter().map(|t| t as i64)));
    }
    let x: Input<'py> = x.extract()?;
    let rows = data(&x);
    let first = match &rows {
        Data::Dense(m) => {
            let (values, n_rows, n_cols) = (&m.values, m.rows, m.cols);
            detached(py, n_jobs, || first_dense_occurrences(values, n_rows, n_cols))
        }
        Data::Sparse(csr) => {
            let (indptr, indices, values) = csr.arrays();
            detached(py, n_jobs, || first_sparse_occurrences(indptr, indices, values))
        }
        Data::Subset(_) => {
            return Err(PyTypeError::new_err("first_occurrences takes an array or a CsrMatrix"))
        }
    }?;
    Ok(PyArray1::from_iter(py, first.into_iter().map(|t| t as i64)))
}
