//! Row subsets of one training array: one-vs-one solves each class pair over the rows of its
//! two classes, which reach Rust as a `RowSubset` (the whole array, read in place, and the
//! pair's row indices) instead of a copy of those rows. The facts every pair shares (finite
//! values, norms, the `f32` copy, non-zeros) are computed once, by `DenseRowFacts`
//! ([`kernelkit_kernels::RowFacts`]).

use kernelkit_kernels::{DenseKernel, DenseRows, FactRows, KernelFunction, RowFacts};
use numpy::{PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::Borrowed;

use crate::errors::CoreError;
use crate::progress::detached;

/// A C-contiguous float64 or float32 training array (read in place: float32 rows are not
/// copied to float64) with the facts its row subsets share.
#[pyclass(frozen, module = "kernelkit._core")]
pub(crate) struct DenseRowFacts {
    array: FactArray,
    facts: RowFacts,
}

/// The training array of a `DenseRowFacts`, in its dtype.
enum FactArray {
    Double(Py<PyArray2<f64>>),
    Single(Py<PyArray2<f32>>),
}

/// A `FactArray` borrowed read-only.
enum ReadonlyRows<'py> {
    Double(PyReadonlyArray2<'py, f64>),
    Single(PyReadonlyArray2<'py, f32>),
}

impl ReadonlyRows<'_> {
    /// The values, when the array is C-contiguous.
    fn values(&self) -> Option<FactRows<'_>> {
        match self {
            ReadonlyRows::Double(a) => {
                a.as_slice().ok().filter(|_| a.is_c_contiguous()).map(FactRows::Double)
            }
            ReadonlyRows::Single(a) => {
                a.as_slice().ok().filter(|_| a.is_c_contiguous()).map(FactRows::Single)
            }
        }
    }
}

#[pymethods]
impl DenseRowFacts {
    /// Checks and computes the facts of `x` (float64 or float32) on `n_jobs` threads (0: every
    /// core).
    #[new]
    #[pyo3(signature = (x, n_jobs=0))]
    fn new(py: Python<'_>, x: &Bound<'_, PyAny>, n_jobs: usize) -> PyResult<Self> {
        let array = if let Ok(single) = x.cast::<PyArray2<f32>>() {
            FactArray::Single(single.clone().unbind())
        } else if let Ok(double) = x.cast::<PyArray2<f64>>() {
            FactArray::Double(double.clone().unbind())
        } else {
            return Err(PyTypeError::new_err("X must be a 2-D float64 or float32 NumPy array"));
        };
        let readonly = array.readonly(py);
        let values = readonly
            .values()
            .ok_or_else(|| PyValueError::new_err("X must be a C-contiguous array"))?;
        let (n_rows, n_features) = readonly.shape();
        let facts = detached(py, n_jobs, || RowFacts::new(values, n_rows, n_features))?
            .map_err(CoreError::from)?;
        drop(readonly);
        Ok(DenseRowFacts { array, facts })
    }

    /// `(n_rows, n_features)` of the whole array.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.facts.n_rows(), self.facts.n_features())
    }
}

impl FactArray {
    fn readonly<'py>(&self, py: Python<'py>) -> ReadonlyRows<'py> {
        match self {
            FactArray::Double(a) => ReadonlyRows::Double(a.bind(py).readonly()),
            FactArray::Single(a) => ReadonlyRows::Single(a.bind(py).readonly()),
        }
    }
}

impl ReadonlyRows<'_> {
    fn shape(&self) -> (usize, usize) {
        let shape = match self {
            ReadonlyRows::Double(a) => a.shape(),
            ReadonlyRows::Single(a) => a.shape(),
        };
        (shape[0], shape[1])
    }
}

/// The rows `index` (in that order) of a `DenseRowFacts`' array.
#[pyclass(frozen, module = "kernelkit._core")]
pub(crate) struct RowSubset {
    facts: Py<DenseRowFacts>,
    index: Vec<usize>,
}

#[pymethods]
impl RowSubset {
    #[new]
    fn new(facts: Bound<'_, DenseRowFacts>, index: PyReadonlyArray1<'_, i64>) -> PyResult<Self> {
        let n_rows = facts.get().facts.n_rows();
        let index = index
            .as_array()
            .iter()
            .map(|&i| {
                usize::try_from(i).ok().filter(|&i| i < n_rows).ok_or_else(|| {
                    PyValueError::new_err(format!("index: row {i} out of range for {n_rows} rows"))
                })
            })
            .collect::<PyResult<_>>()?;
        Ok(RowSubset { facts: facts.unbind(), index })
    }

    /// `(len(index), n_features)`.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.index.len(), self.facts.get().facts.n_features())
    }
}

/// A `RowSubset` received by an entry point, with its array borrowed read-only for the call.
pub(crate) struct SubsetInput<'py> {
    subset: Bound<'py, RowSubset>,
    array: ReadonlyRows<'py>,
}

impl<'a, 'py> FromPyObject<'a, 'py> for SubsetInput<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let subset = obj.cast::<RowSubset>()?.to_owned();
        let array = subset.get().facts.get().array.readonly(obj.py());
        if array.values().is_none() {
            return Err(PyValueError::new_err(
                "the array of a RowSubset is no longer C-contiguous",
            ));
        }
        Ok(SubsetInput { subset, array })
    }
}

/// A subset ready for the GIL-free part: the whole array's values, its facts, the indices.
#[derive(Clone, Copy)]
pub(crate) struct Subset<'a> {
    values: FactRows<'a>,
    facts: &'a RowFacts,
    index: &'a [usize],
}

impl<'a> Subset<'a> {
    pub(crate) fn new(input: &'a SubsetInput<'_>) -> Self {
        let subset = input.subset.get();
        // C-contiguous when extracted, in this call (were it not, no values: the facts would
        // report a shape mismatch).
        let values = input.array.values().unwrap_or(FactRows::Double(&[]));
        Subset { values, facts: &subset.facts.get().facts, index: &subset.index }
    }

    /// The fraction of non-zero values of the subset's rows.
    pub(crate) fn density(&self) -> f64 {
        self.facts.density(self.index)
    }

    /// The subset's rows, row-major: `(values, n_rows, n_features)`.
    pub(crate) fn gather(&self) -> Result<(Vec<f64>, usize, usize), CoreError> {
        let values = self.facts.gather(self.values, self.index)?;
        Ok((values, self.index.len(), self.facts.n_features()))
    }

    /// The subset's rows with their norms.
    pub(crate) fn rows(&self) -> Result<DenseRows<'static>, CoreError> {
        Ok(self.facts.rows(self.values, self.index)?)
    }

    /// The kernel over the subset's rows, summing in `f32` when `single_products`
    /// ([`DenseKernel::with_single_products`]).
    pub(crate) fn kernel(
        &self,
        function: KernelFunction,
        single_products: bool,
    ) -> Result<DenseKernel<'static>, CoreError> {
        Ok(self.facts.kernel_with_single_products(
            self.values,
            self.index,
            function,
            single_products,
        )?)
    }
}
