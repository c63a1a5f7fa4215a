//! A user-given Gram matrix (`kernel="precomputed"`), or any user-given dense `Q`.
//!
//! Shrinking permutes the variables; instead of moving rows and columns of an `n × n` matrix the
//! Gram matrix keeps a position → row permutation and reads through it.

use std::borrow::Cow;

use crate::error::{check_finite, KernelError};
use crate::source::KernelSource;

/// A square row-major `n × n` matrix read through a permutation.
#[derive(Debug, Clone)]
pub struct PrecomputedGram<'a> {
    values: Cow<'a, [f64]>,
    n: usize,
    permutation: Vec<usize>,
}

impl<'a> PrecomputedGram<'a> {
    /// Wraps a row-major `rows × cols` matrix, which must be square and finite.
    pub fn new(values: &'a [f64], rows: usize, cols: usize) -> Result<Self, KernelError> {
        if rows != cols {
            return Err(KernelError::NotSquare { rows, cols });
        }
        let expected = rows.saturating_mul(cols);
        if values.len() != expected {
            return Err(KernelError::ShapeMismatch {
                name: "precomputed kernel",
                expected,
                actual: values.len(),
            });
        }
        check_finite("precomputed kernel", values)?;
        Ok(PrecomputedGram {
            values: Cow::Borrowed(values),
            n: rows,
            permutation: (0..rows).collect(),
        })
    }

    #[inline]
    fn at(&self, i: usize, j: usize) -> f64 {
        self.values[self.permutation[i] * self.n + self.permutation[j]]
    }
}

impl KernelSource for PrecomputedGram<'_> {
    fn len(&self) -> usize {
        self.n
    }

    fn diagonal_value(&self, i: usize) -> f64 {
        self.at(i, i)
    }

    fn fill_block(&self, rows: &[usize], start: usize, end: usize, out: &mut [f64]) {
        let width = end - start;
        debug_assert_eq!(out.len(), rows.len() * width);
        for (&r, out_row) in rows.iter().zip(out.chunks_exact_mut(width.max(1))) {
            let base = self.permutation[r] * self.n;
            for (o, &p) in out_row.iter_mut().zip(&self.permutation[start..end]) {
                *o = self.values[base + p];
            }
        }
    }

    fn bitwise_rows(&self) -> usize {
        // Values are read, not computed.
        usize::MAX
    }

    fn path(&self) -> crate::KernelPath {
        crate::KernelPath::Precomputed
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.permutation.swap(i, j);
    }
}
