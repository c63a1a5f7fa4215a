//! Errors raised while building kernel data.

/// Invalid data or kernel parameters. Every variant names the offending input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KernelError {
    /// A buffer does not have the length its declared shape needs.
    #[error("{name}: expected {expected} values for the given shape, got {actual}")]
    ShapeMismatch {
        /// Name of the argument.
        name: &'static str,
        /// Length implied by the shape.
        expected: usize,
        /// Length received.
        actual: usize,
    },
    /// A value is NaN or infinite.
    #[error("{name} contains NaN or infinity (first at flat index {index})")]
    NotFinite {
        /// Name of the argument.
        name: &'static str,
        /// Flat index of the first non-finite value.
        index: usize,
    },
    /// A precomputed Gram matrix that is not square.
    #[error("precomputed kernel must be square, got {rows} x {cols}")]
    NotSquare {
        /// Rows received.
        rows: usize,
        /// Columns received.
        cols: usize,
    },
    /// A kernel parameter out of its domain.
    #[error("invalid kernel parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// Value received.
        value: f64,
        /// What is required.
        reason: &'static str,
    },
    /// Inconsistent sparse-matrix arrays.
    #[error("invalid CSR matrix: {0}")]
    InvalidStructure(&'static str),
    /// Two row sets with a different number of features.
    #[error("feature count mismatch: {left} vs {right}")]
    FeatureMismatch {
        /// Features of the first set.
        left: usize,
        /// Features of the second set.
        right: usize,
    },
    /// A row index past the last row.
    #[error("{name}: row index {index} out of range for {n_rows} rows")]
    RowOutOfRange {
        /// Name of the argument.
        name: &'static str,
        /// The index received.
        index: usize,
        /// Rows there are.
        n_rows: usize,
    },
}

/// Returns the first non-finite value of `values`, as a [`KernelError::NotFinite`].
pub(crate) fn check_finite(name: &'static str, values: &[f64]) -> Result<(), KernelError> {
    use crate::parallel::{parallel_input_pass, INPUT_PASS_VALUES};
    use rayon::prelude::*;
    let first = if parallel_input_pass(values.len()) {
        values
            .par_chunks(INPUT_PASS_VALUES)
            .enumerate()
            .filter_map(|(b, chunk)| {
                chunk.iter().position(|v| !v.is_finite()).map(|k| b * INPUT_PASS_VALUES + k)
            })
            .min()
    } else {
        values.iter().position(|v| !v.is_finite())
    };
    match first {
        Some(index) => Err(KernelError::NotFinite { name, index }),
        None => Ok(()),
    }
}
