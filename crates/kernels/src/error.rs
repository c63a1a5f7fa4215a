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
            .filter_map(|(b, chunk)| first_non_finite(chunk).map(|k| b * INPUT_PASS_VALUES + k))
            .min()
    } else {
        first_non_finite(values)
    };
    match first {
        Some(index) => Err(KernelError::NotFinite { name, index }),
        None => Ok(()),
    }
}

/// The index of the first value of `values` that is not finite. Groups of values are tested
/// without an early exit inside a group, which the compiler vectorises; only a group that
/// holds a non-finite value is searched value by value. (The search alone, one branch per
/// value, was about half of the input scan's samples on USPS.)
pub(crate) fn first_non_finite<T: Copy + Into<f64>>(values: &[T]) -> Option<usize> {
    values.chunks(FINITE_GROUP).enumerate().find_map(|(g, group)| {
        let finite = group.iter().fold(true, |finite, &v| finite & v.into().is_finite());
        if finite {
            return None;
        }
        group.iter().position(|&v| !v.into().is_finite()).map(|k| g * FINITE_GROUP + k)
    })
}

/// Values tested together by [`first_non_finite`] between two early-exit checks.
const FINITE_GROUP: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    /// The grouped search names the index the value-by-value search names: one or two bad
    /// values at group edges, inside a group and in the short last group, in f64 and f32.
    #[test]
    fn first_non_finite_is_the_first_index_searched_value_by_value() {
        let n = 3 * FINITE_GROUP + 17;
        let spots = [0, FINITE_GROUP - 1, FINITE_GROUP, FINITE_GROUP + 100, n - 1];
        for &first in &spots {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let mut values: Vec<f64> = (0..n).map(|k| k as f64 - 300.0).collect();
                values[first] = bad;
                if first + 5 < n {
                    values[first + 5] = f64::NAN;
                }
                let expected = values.iter().position(|v| !v.is_finite());
                assert_eq!(first_non_finite(&values), expected);
                let single: Vec<f32> = values.iter().map(|&v| v as f32).collect();
                assert_eq!(first_non_finite(&single), expected);
            }
        }
        let finite: Vec<f64> = (0..n).map(|k| k as f64).collect();
        assert_eq!(first_non_finite(&finite), None);
        assert_eq!(first_non_finite::<f64>(&[]), None);
    }
}
