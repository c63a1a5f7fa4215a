//! Sparse constraint matrices: the rows of `A` (inequalities `Aβ ≤ b`) and `Γ` (equalities
//! `Γβ = d`) of the constrained ν-SVR, stored twice: by rows (`A_j·β`, `‖A_j‖²`, the γ/μ steps
//! `Δβ = ±δ A_jᵀ`) and by columns (`A·Δβ` for a `Δβ` that touches few coordinates).

use super::state::{update_rows, Change};
use crate::protocol::SolveError;

/// A sparse `n_rows × n_cols` matrix in compressed-row form.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseMatrix {
    n_rows: usize,
    n_cols: usize,
    indptr: Vec<usize>,
    indices: Vec<usize>,
    values: Vec<f64>,
}

impl SparseMatrix {
    /// The empty `0 × n_cols` matrix (no constraint of this kind).
    pub fn empty(n_cols: usize) -> Self {
        SparseMatrix { n_rows: 0, n_cols, indptr: vec![0], indices: Vec::new(), values: Vec::new() }
    }

    /// A matrix from its compressed rows: row `j` holds `values[indptr[j]..indptr[j + 1]]` at
    /// the columns `indices[..]` (which must be distinct within a row). Explicit zeros are
    /// dropped. `name` is used in errors.
    pub fn from_csr(
        name: &'static str,
        n_cols: usize,
        indptr: Vec<usize>,
        indices: Vec<usize>,
        values: Vec<f64>,
    ) -> Result<Self, SolveError> {
        let invalid = |reason: String| SolveError::invalid(name, reason);
        if indptr.is_empty() || indptr[0] != 0 {
            return Err(invalid("indptr must start with 0".into()));
        }
        if indices.len() != values.len() {
            return Err(invalid(format!(
                "{} column indices for {} values",
                indices.len(),
                values.len()
            )));
        }
        if indptr.windows(2).any(|w| w[1] < w[0]) || indptr[indptr.len() - 1] != values.len() {
            return Err(invalid(
                "indptr must be non-decreasing and end at the number of values".into(),
            ));
        }
        let n_rows = indptr.len() - 1;
        let mut matrix = SparseMatrix {
            n_rows,
            n_cols,
            indptr: vec![0],
            indices: Vec::with_capacity(indices.len()),
            values: Vec::with_capacity(values.len()),
        };
        let mut seen = vec![usize::MAX; n_cols];
        for j in 0..n_rows {
            for k in indptr[j]..indptr[j + 1] {
                let (column, value) = (indices[k], values[k]);
                if column >= n_cols {
                    return Err(invalid(format!(
                        "row {j} has column index {column}, but there are {n_cols} features"
                    )));
                }
                if !value.is_finite() {
                    return Err(invalid(format!("row {j} has a non-finite value {value}")));
                }
                if seen[column] == j {
                    return Err(invalid(format!("row {j} has column {column} twice")));
                }
                seen[column] = j;
                if value != 0.0 {
                    matrix.indices.push(column);
                    matrix.values.push(value);
                }
            }
            if matrix.indices.len() == matrix.indptr[j] {
                return Err(invalid(format!(
                    "row {j} is zero: a zero constraint row is either void or infeasible"
                )));
            }
            matrix.indptr.push(matrix.indices.len());
        }
        Ok(matrix)
    }

    /// A dense row-major `n_rows × n_cols` matrix.
    pub fn from_dense(
        name: &'static str,
        n_rows: usize,
        n_cols: usize,
        dense: &[f64],
    ) -> Result<Self, SolveError> {
        if dense.len() != n_rows * n_cols {
            return Err(SolveError::LengthMismatch {
                name,
                expected: n_rows * n_cols,
                actual: dense.len(),
            });
        }
        let mut indptr = vec![0];
        let mut indices = Vec::new();
        let mut values = Vec::new();
        for row in dense.chunks_exact(n_cols.max(1)).take(n_rows) {
            for (column, &value) in row.iter().enumerate() {
                if value != 0.0 || !value.is_finite() {
                    indices.push(column);
                    values.push(value);
                }
            }
            indptr.push(indices.len());
        }
        if n_cols == 0 {
            indptr = vec![0; n_rows + 1];
        }
        SparseMatrix::from_csr(name, n_cols, indptr, indices, values)
    }

    /// Number of rows (constraints).
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of columns (features).
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// Stored non-zeros.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Row `j` as (column indices, values).
    #[inline]
    pub fn row(&self, j: usize) -> (&[usize], &[f64]) {
        let range = self.indptr[j]..self.indptr[j + 1];
        (&self.indices[range.clone()], &self.values[range])
    }

    /// `A_j · v`.
    #[inline]
    pub fn row_dot(&self, j: usize, v: &[f64]) -> f64 {
        let (columns, values) = self.row(j);
        columns.iter().zip(values).map(|(&c, &a)| a * v[c]).sum()
    }

    /// `‖A_j‖²` for every row.
    pub fn row_sq_norms(&self) -> Vec<f64> {
        (0..self.n_rows).map(|j| self.row(j).1.iter().map(|a| a * a).sum()).collect()
    }

    /// `out = A v`.
    pub fn mul(&self, v: &[f64], out: &mut [f64]) {
        for (j, value) in out.iter_mut().enumerate().take(self.n_rows) {
            *value = self.row_dot(j, v);
        }
    }

    /// `out += scale · Aᵀ w`.
    pub fn transpose_mul_add(&self, w: &[f64], scale: f64, out: &mut [f64]) {
        for (j, &weight) in w.iter().enumerate().take(self.n_rows) {
            if weight == 0.0 {
                continue;
            }
            let (columns, values) = self.row(j);
            for (&c, &a) in columns.iter().zip(values) {
                out[c] += scale * weight * a;
            }
        }
    }

    /// The transpose, in compressed-row form (that is, this matrix by columns).
    pub fn transpose(&self) -> SparseMatrix {
        let mut counts = vec![0usize; self.n_cols + 1];
        for &c in &self.indices {
            counts[c + 1] += 1;
        }
        for c in 0..self.n_cols {
            counts[c + 1] += counts[c];
        }
        let mut next = counts.clone();
        let mut indices = vec![0; self.nnz()];
        let mut values = vec![0.0; self.nnz()];
        for j in 0..self.n_rows {
            let (columns, row_values) = self.row(j);
            for (&c, &a) in columns.iter().zip(row_values) {
                indices[next[c]] = j;
                values[next[c]] = a;
                next[c] += 1;
            }
        }
        SparseMatrix { n_rows: self.n_cols, n_cols: self.n_rows, indptr: counts, indices, values }
    }
}

/// One kind of constraint: `Mβ ≤ rhs` or `Mβ = rhs`, with `M` by rows and by columns.
#[derive(Debug, Clone)]
pub struct LinearConstraints {
    /// `M`, by rows.
    pub matrix: SparseMatrix,
    /// `Mᵀ`, by rows (the columns of `M`).
    pub by_column: SparseMatrix,
    /// The right-hand side.
    pub rhs: Vec<f64>,
    /// `‖M_j‖²`, the diagonal of `MMᵀ` (the curvature of a γ or μ step).
    pub row_sq_norms: Vec<f64>,
}

impl LinearConstraints {
    /// Checks that `rhs` has one finite value per row of `matrix` with `n_features` columns.
    pub fn new(
        name: &'static str,
        rhs_name: &'static str,
        matrix: SparseMatrix,
        rhs: Vec<f64>,
        n_features: usize,
    ) -> Result<Self, SolveError> {
        if matrix.n_cols() != n_features {
            return Err(SolveError::invalid(
                name,
                format!("has {} columns, but X has {n_features} features", matrix.n_cols()),
            ));
        }
        if rhs.len() != matrix.n_rows() {
            return Err(SolveError::LengthMismatch {
                name: rhs_name,
                expected: matrix.n_rows(),
                actual: rhs.len(),
            });
        }
        if let Some(j) = rhs.iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid(
                rhs_name,
                format!("{rhs_name}[{j}] = {} is not finite", rhs[j]),
            ));
        }
        let by_column = matrix.transpose();
        let row_sq_norms = matrix.row_sq_norms();
        Ok(LinearConstraints { matrix, by_column, rhs, row_sq_norms })
    }

    /// No constraint of this kind.
    pub fn none(n_features: usize) -> Self {
        let matrix = SparseMatrix::empty(n_features);
        LinearConstraints {
            by_column: matrix.transpose(),
            matrix,
            rhs: Vec::new(),
            row_sq_norms: Vec::new(),
        }
    }

    /// Number of constraints.
    pub fn len(&self) -> usize {
        self.rhs.len()
    }

    /// Whether there is no constraint.
    pub fn is_empty(&self) -> bool {
        self.rhs.is_empty()
    }

    /// `values += M Δβ`: by the columns of `M` for a sparse change, by its rows (in parallel
    /// when there are many) for a dense one.
    pub(crate) fn add_change(&self, change: Change<'_>, values: &mut [f64]) {
        match change {
            Change::Sparse { coordinates, deltas } => self.add_image(coordinates, deltas, values),
            Change::Dense(delta) => update_rows(values, |start, chunk| {
                for (t, value) in chunk.iter_mut().enumerate() {
                    *value += self.matrix.row_dot(start + t, delta);
                }
            }),
        }
    }

    /// `values += M Δβ` for a `Δβ` given by its non-zeros (`coordinates`, `deltas`).
    pub fn add_image(&self, coordinates: &[usize], deltas: &[f64], values: &mut [f64]) {
        for (&l, &delta) in coordinates.iter().zip(deltas) {
            let (rows, entries) = self.by_column.row(l);
            for (&j, &m) in rows.iter().zip(entries) {
                values[j] += m * delta;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_and_products_agree_with_dense() {
        let dense = [1.0, 0.0, -2.0, 0.0, 3.0, 4.0];
        let m = SparseMatrix::from_dense("A", 2, 3, &dense).unwrap();
        assert_eq!(m.nnz(), 4);
        let v = [0.5, -1.0, 2.0];
        let mut out = [0.0; 2];
        m.mul(&v, &mut out);
        assert_eq!(out, [0.5 - 4.0, -3.0 + 8.0]);
        let t = m.transpose();
        assert_eq!((t.n_rows(), t.n_cols()), (3, 2));
        assert_eq!(t.row(2), (&[0usize, 1][..], &[-2.0, 4.0][..]));
        let mut back = [0.0; 3];
        m.transpose_mul_add(&[1.0, 2.0], 1.0, &mut back);
        assert_eq!(back, [1.0, 6.0, 6.0]);
    }

    #[test]
    fn invalid_rows_are_named() {
        let zero_row = SparseMatrix::from_dense("A", 2, 2, &[1.0, 0.0, 0.0, 0.0]).unwrap_err();
        assert!(zero_row.to_string().contains("row 1 is zero"), "{zero_row}");
        let nan = SparseMatrix::from_dense("Gamma", 1, 2, &[1.0, f64::NAN]).unwrap_err();
        assert!(nan.to_string().contains("Gamma"), "{nan}");
        let out_of_range = SparseMatrix::from_csr("A", 2, vec![0, 1], vec![5], vec![1.0]);
        assert!(out_of_range.unwrap_err().to_string().contains("column index 5"));
        let rhs = LinearConstraints::new("A", "b", SparseMatrix::empty(3), vec![1.0], 3);
        assert!(matches!(rhs, Err(SolveError::LengthMismatch { name: "b", .. })));
    }
}
