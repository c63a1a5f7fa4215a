//! Sparse input: scipy CSR matrices reach Rust as a `CsrMatrix` (built once by the Python
//! layer from `data`, `indices`, `indptr`), and every entry point takes dense or sparse rows.

use std::borrow::Cow;

use kernelkit_kernels::{CsrRows, DenseRows, KernelError, RowSet};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::arrays::{matrix, Matrix};
use crate::errors::CoreError;
use crate::subsets::{Subset, SubsetInput};

/// A CSR matrix (scipy's layout), validated once.
#[pyclass(frozen, module = "kernelkit._core")]
#[derive(Debug)]
pub(crate) struct CsrMatrix {
    indptr: Vec<usize>,
    indices: Vec<u32>,
    data: Vec<f64>,
    n_rows: usize,
    n_cols: usize,
}

#[pymethods]
impl CsrMatrix {
    #[new]
    fn new(
        data: PyReadonlyArray1<'_, f64>,
        indices: PyReadonlyArray1<'_, i64>,
        indptr: PyReadonlyArray1<'_, i64>,
        n_cols: usize,
    ) -> PyResult<Self> {
        let to_usize = |v: i64, name: &str| {
            usize::try_from(v).map_err(|_| PyValueError::new_err(format!("negative {name}: {v}")))
        };
        let indptr: Vec<usize> =
            indptr.as_array().iter().map(|&v| to_usize(v, "indptr")).collect::<PyResult<_>>()?;
        let indices: Vec<u32> = indices
            .as_array()
            .iter()
            .map(|&v| {
                u32::try_from(v)
                    .map_err(|_| PyValueError::new_err(format!("column index {v} out of range")))
            })
            .collect::<PyResult<_>>()?;
        let data: Vec<f64> = data.as_array().iter().copied().collect();
        let n_rows = indptr
            .len()
            .checked_sub(1)
            .ok_or_else(|| PyValueError::new_err("indptr must have at least one entry"))?;
        let matrix = CsrMatrix { indptr, indices, data, n_rows, n_cols };
        matrix.rows().map_err(CoreError::from)?;
        Ok(matrix)
    }

    /// `(n_rows, n_cols)`.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.n_rows, self.n_cols)
    }

    /// Stored values.
    #[getter]
    fn nnz(&self) -> usize {
        self.data.len()
    }
}

impl CsrMatrix {
    /// The raw arrays: `indptr`, column indices and values.
    pub(crate) fn arrays(&self) -> (&[usize], &[u32], &[f64]) {
        (&self.indptr, &self.indices, &self.data)
    }

    pub(crate) fn rows(&self) -> Result<CsrRows<'_>, KernelError> {
        CsrRows::new(
            Cow::Borrowed(&self.indptr),
            Cow::Borrowed(&self.indices),
            Cow::Borrowed(&self.data),
            self.n_rows,
            self.n_cols,
        )
    }
}

/// Rows as received from Python: a 2-D float64 array, a `CsrMatrix` or a `RowSubset`.
#[derive(FromPyObject)]
pub(crate) enum Input<'py> {
    Dense(PyReadonlyArray2<'py, f64>),
    Sparse(Bound<'py, CsrMatrix>),
    Subset(SubsetInput<'py>),
}

/// Rows ready for the GIL-free part: borrowed values, `Send`.
pub(crate) enum Data<'a> {
    Dense(Matrix<'a>),
    Sparse(&'a CsrMatrix),
    Subset(Subset<'a>),
}

pub(crate) fn data<'a>(input: &'a Input<'_>) -> Data<'a> {
    match input {
        Input::Dense(array) => Data::Dense(matrix(array)),
        Input::Sparse(csr) => Data::Sparse(csr.get()),
        Input::Subset(subset) => Data::Subset(Subset::new(subset)),
    }
}

/// Owned storage behind a [`RowSet`].
pub(crate) enum Storage<'a> {
    Dense(DenseRows<'a>),
    Sparse(CsrRows<'a>),
}

impl<'a> Storage<'a> {
    pub(crate) fn new(data: &'a Data<'_>) -> Result<Self, CoreError> {
        Ok(match data {
            Data::Dense(m) => Storage::Dense(DenseRows::new(&m.values, m.rows, m.cols)?),
            Data::Sparse(csr) => Storage::Sparse(csr.rows()?),
            Data::Subset(subset) => Storage::Dense(subset.rows()?),
        })
    }

    pub(crate) fn row_set(&self) -> RowSet<'_, 'a> {
        match self {
            Storage::Dense(rows) => RowSet::Dense(rows),
            Storage::Sparse(rows) => RowSet::Sparse(rows),
        }
    }
}
