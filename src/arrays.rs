//! NumPy arrays in and out. Arrays that are already `float64` and C-contiguous are read in
//! place; anything else is copied once into a contiguous buffer.

use std::borrow::Cow;

use numpy::{Element, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::PyResult;

/// A row-major matrix view: values, rows, columns.
pub(crate) struct Matrix<'a, T: Clone = f64> {
    pub values: Cow<'a, [T]>,
    pub rows: usize,
    pub cols: usize,
}

pub(crate) fn matrix<'a, T: Element + Copy>(array: &'a PyReadonlyArray2<'_, T>) -> Matrix<'a, T> {
    let shape = array.shape();
    let (rows, cols) = (shape[0], shape[1]);
    // `as_slice` also accepts a Fortran-ordered array, whose memory is column-major: only a
    // C-contiguous array is read in place; any other is copied in row-major order.
    let values = match array.as_slice() {
        Ok(slice) if array.is_c_contiguous() => Cow::Borrowed(slice),
        _ => Cow::Owned(array.as_array().iter().copied().collect()),
    };
    Matrix { values, rows, cols }
}

pub(crate) fn vector<'a>(array: &'a PyReadonlyArray1<'_, f64>) -> Cow<'a, [f64]> {
    match array.as_slice() {
        Ok(slice) => Cow::Borrowed(slice),
        Err(_) => Cow::Owned(array.as_array().iter().copied().collect()),
    }
}

/// Labels as `±1` signs; anything else is a `ValueError` naming `name`.
pub(crate) fn signs(array: &PyReadonlyArray1<'_, f64>, name: &str) -> PyResult<Vec<i8>> {
    array
        .as_array()
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if v == 1.0 {
                Ok(1)
            } else if v == -1.0 {
                Ok(-1)
            } else {
                Err(PyValueError::new_err(format!("{name}[{i}] = {v} is not -1 or +1")))
            }
        })
        .collect()
}
