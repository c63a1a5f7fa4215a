//! What one-vs-one training computes once about the rows, instead of once per class pair.
//!
//! A multiclass C-SVC (LIBSVM's one-vs-one) solves one dual per pair of classes, each over the
//! rows of its two classes: with `k` classes every row is in `k − 1` solves. Checking the rows
//! for NaN and infinity, summing their squared norms, looking whether every value is exactly an
//! `f32` (and making that copy) and counting their non-zeros then costs `k − 1` times what it
//! needs to (with ten classes, a noticeable share of the fit; measurements:
//! `docs/performance.md`, "One-vs-one row facts"). [`RowFacts`] does it once over all rows;
//! [`RowFacts::kernel`] builds the kernel of one pair by gathering the pair's rows, norms and
//! `f32` rows.
//!
//! Every fact of a row depends on that row alone, so the gathered kernel is the kernel
//! [`DenseKernel::new`] builds over the gathered rows, value for value: the same norms (summed
//! in the row's order by [`sq_norm`]), the same `f32` rows, and [`RowFacts::density`] the
//! same fraction [`density`](crate::density) computes over the gathered values.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::dense::{sq_norm, DenseRows};
use crate::error::{first_non_finite, KernelError};
use crate::fixed_point::FixedRows;
use crate::function::KernelFunction;
use crate::plan::{reads_feature_major, NARROW_MAX_FEATURES};
use crate::source::{exactly_single, narrow_exactly, DenseKernel};
use crate::team::DisjointSlices;

/// Rows per block of [`RowFacts::new`].
const FACT_BLOCK_ROWS: usize = 256;

/// The row-major values a [`RowFacts`] describes, as the caller holds them: `f64`, or `f32`
/// (float32 training rows read in place: no `f64` copy of them is made, and their `f32` rows
/// are gathered from them directly).
#[derive(Debug, Clone, Copy)]
pub enum FactRows<'a> {
    Double(&'a [f64]),
    Single(&'a [f32]),
}

impl FactRows<'_> {
    fn len(&self) -> usize {
        match self {
            FactRows::Double(values) => values.len(),
            FactRows::Single(values) => values.len(),
        }
    }
}

/// Facts about row-major dense rows that every subset of them shares. The rows themselves stay
/// with the caller (a NumPy array read in place) and are passed to each method again: they
/// must be the rows the facts were computed from.
#[derive(Debug, Clone)]
pub struct RowFacts {
    n_rows: usize,
    n_features: usize,
    sq_norms: Vec<f64>,
    /// The rows in `f32`, when every value of `f64` rows is exactly an `f32` (`None` for
    /// `f32` rows: they are read in place).
    single: Option<Vec<f32>>,
    /// Every value is exactly an `f32` (always so for `f32` rows).
    all_single: bool,
    /// Non-zero values of each row.
    nonzeros: Vec<usize>,
    /// The `f32` rows as integer multiples of one quantum, when they are
    /// ([`crate::fixed_point`]): found by [`RowFacts::new`] for `f32` rows, by the first kernel
    /// that sums in single precision for `f64` rows.
    fixed: OnceLock<Option<FixedRows>>,
}

impl RowFacts {
    /// Checks `values` (`n_rows × n_features`, row-major: the length, finiteness) and computes
    /// the facts, in one pass over blocks of rows on the current rayon pool (rather than four
    /// sequential passes). Each fact of a row is computed as [`DenseRows::new`] and
    /// [`DenseKernel::new`] compute it (norms summed in the row's order, the `f32` copy
    /// only when every value is exactly an `f32`), and the error names the first non-finite
    /// value. `f32` values are those rows widened to `f64`, with the same facts; no copy of
    /// them is kept (they are every value's `f32`).
    pub fn new(
        values: FactRows<'_>,
        n_rows: usize,
        n_features: usize,
    ) -> Result<Self, KernelError> {
        crate::dense::check_shape(values.len(), n_rows, n_features)?;
        let d = n_features;
        if d == 0 {
            return Ok(RowFacts {
                n_rows,
                n_features,
                sq_norms: vec![0.0; n_rows],
                single: Some(Vec::new()),
                all_single: true,
                nonzeros: vec![0; n_rows],
                fixed: OnceLock::new(),
            });
        }
        let mut sq_norms = vec![0.0; n_rows];
        let mut nonzeros = vec![0; n_rows];
        let (first_non_finite, single) = match values {
            FactRows::Double(values) => {
                let mut single = vec![0.0f32; values.len()];
                // Set by the first block holding a value that is not an f32: later blocks skip
                // the copy.
                let inexact = AtomicBool::new(false);
                let first = {
                    let narrowed = DisjointSlices::new(&mut single);
                    scan_blocks(values, d, &mut sq_norms, &mut nonzeros, |lo, block| {
                        // SAFETY: each block is scanned once, and blocks are disjoint.
                        let narrowed = unsafe { narrowed.range(lo, lo + block.len()) };
                        if !inexact.load(Ordering::Relaxed) && !narrow_exactly(block, narrowed) {
                            inexact.store(true, Ordering::Relaxed);
                        }
                    })
                };
                (first, (!inexact.into_inner()).then_some(single))
            }
            // f32 rows are every value's f32 themselves: no copy.
            FactRows::Single(values) => {
                (scan_blocks(values, d, &mut sq_norms, &mut nonzeros, |_, _| {}), None)
            }
        };
        if let Some(index) = first_non_finite {
            return Err(KernelError::NotFinite { name: "X", index });
        }
        let all_single = matches!(values, FactRows::Single(_)) || single.is_some();
        // Row-major float32 rows are summed in single precision, or as integers when they are
        // fixed-point: found here, in parallel, rather than by the first pair's kernel while
        // the other workers wait for it (5 ms of a 100 ms USPS fit, one thread working). Rows
        // of at most `NARROW_MAX_FEATURES` may be read feature-major (in `f64`), so they are
        // looked at only when a kernel asks.
        let fixed = match values {
            FactRows::Single(values) if d > NARROW_MAX_FEATURES => {
                OnceLock::from(FixedRows::from_single(values, d))
            }
            FactRows::Single(_) | FactRows::Double(_) => OnceLock::new(),
        };
        Ok(RowFacts { n_rows, n_features, sq_norms, single, all_single, nonzeros, fixed })
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Checks that `values` has the shape the facts were computed for and that every index is
    /// a row.
    fn check(&self, values: FactRows<'_>, index: &[usize]) -> Result<(), KernelError> {
        let expected = self.n_rows * self.n_features;
        if values.len() != expected {
            return Err(KernelError::ShapeMismatch { name: "X", expected, actual: values.len() });
        }
        match index.iter().find(|&&i| i >= self.n_rows) {
            Some(&index) => {
                Err(KernelError::RowOutOfRange { name: "index", index, n_rows: self.n_rows })
            }
            None => Ok(()),
        }
    }

    /// The fraction of non-zero values of the rows `index`: [`crate::density`] of those rows.
    pub fn density(&self, index: &[usize]) -> f64 {
        let len = index.len() * self.n_features;
        if len == 0 {
            return 1.0;
        }
        let nonzeros: usize = index.iter().map(|&i| self.nonzeros[i]).sum();
        nonzeros as f64 / len as f64
    }

    /// The rows `index` of `values`, row-major, in `f64`.
    pub fn gather(&self, values: FactRows<'_>, index: &[usize]) -> Result<Vec<f64>, KernelError> {
        self.check(values, index)?;
        Ok(match values {
            FactRows::Double(values) => gather_rows(values, self.n_features, index),
            FactRows::Single(values) => {
                gather_rows(values, self.n_features, index).into_iter().map(f64::from).collect()
            }
        })
    }

    /// The norms of the rows `index`.
    fn norms(&self, index: &[usize]) -> Vec<f64> {
        index.iter().map(|&i| self.sq_norms[i]).collect()
    }

    /// The rows `index` of `values` with their norms, as [`DenseRows::new`] would give them
    /// (without checking them again).
    pub fn rows(
        &self,
        values: FactRows<'_>,
        index: &[usize],
    ) -> Result<DenseRows<'static>, KernelError> {
        let gathered = self.gather(values, index)?;
        Ok(DenseRows::from_checked_parts(gathered, index.len(), self.n_features, self.norms(index)))
    }

    /// The rows `index` in `f32`, when every value is exactly an `f32`.
    fn gather_single(&self, values: FactRows<'_>, index: &[usize]) -> Option<Vec<f32>> {
        match (values, &self.single) {
            (FactRows::Single(values), _) => Some(gather_rows(values, self.n_features, index)),
            (FactRows::Double(_), Some(single)) => {
                Some(gather_rows(single, self.n_features, index))
            }
            (FactRows::Double(_), None) => None,
        }
    }

    /// The kernel over the rows `index` of `values`: [`DenseKernel::new`] of those rows (in
    /// `f64`), value for value. When every value is exactly an `f32` and the rows are read
    /// row-major, the kernel keeps only the gathered `f32` rows ([`DenseKernel::rows`] is then
    /// `None`).
    pub fn kernel(
        &self,
        values: FactRows<'_>,
        index: &[usize],
        function: KernelFunction,
    ) -> Result<DenseKernel<'static>, KernelError> {
        let row_major = self.n_features > 0 && !reads_feature_major(index.len(), self.n_features);
        if self.all_single && row_major {
            // Every value is exactly an f32 and the rows are read row-major: the kernel reads
            // the f32 rows only, and the f64 rows are not gathered.
            self.check(values, index)?;
            if let Some(single) = self.gather_single(values, index) {
                return DenseKernel::single_only(
                    single,
                    self.norms(index),
                    self.n_features,
                    function,
                );
            }
        }
        let rows = self.rows(values, index)?;
        DenseKernel::with_single(rows, function, |rows| match self.gather_single(values, index) {
            Some(single) => Some(single),
            // Some subsets may be exactly f32 when not every row is.
            None => exactly_single(rows.rows(0, rows.n_rows())),
        })
    }

    /// [`RowFacts::kernel`], then [`DenseKernel::with_single_products`]`(single_products)`, with
    /// the integer rows of [`crate::fixed_point`] gathered from one copy of all the rows (found
    /// once, at the first such kernel: USPS's 45 one-vs-one pairs would look for them 45 times).
    pub fn kernel_with_single_products(
        &self,
        values: FactRows<'_>,
        index: &[usize],
        function: KernelFunction,
        single_products: bool,
    ) -> Result<DenseKernel<'static>, KernelError> {
        let row_major = self.n_features > 0 && !reads_feature_major(index.len(), self.n_features);
        if single_products && self.all_single && row_major {
            self.check(values, index)?;
            if let Some(fixed) = self.fixed_rows(values) {
                return DenseKernel::fixed_only(
                    FixedRows {
                        values: gather_rows(&fixed.values, self.n_features, index),
                        quantum_sq: fixed.quantum_sq,
                    },
                    self.norms(index),
                    self.n_features,
                    function,
                );
            }
        }
        let kernel = self.kernel(values, index, function)?;
        // The f32 sums (when the kernel has the f32 rows), without looking for integer rows
        // again: all the rows are not integer multiples (found above), or not all are exactly
        // f32 and there is no copy of all the rows to gather them from.
        Ok(if single_products { kernel.with_single_products_over(None) } else { kernel })
    }

    /// All the rows as integer multiples of one quantum, when every value is exactly an `f32`
    /// and they are ([`FixedRows::from_single`]).
    fn fixed_rows(&self, values: FactRows<'_>) -> Option<&FixedRows> {
        let d = self.n_features;
        self.fixed
            .get_or_init(|| match (values, &self.single) {
                _ if d == 0 => None,
                (FactRows::Single(values), _) => FixedRows::from_single(values, d),
                (FactRows::Double(_), Some(single)) => FixedRows::from_single(single, d),
                (FactRows::Double(_), None) => None,
            })
            .as_ref()
    }
}

/// Checks blocks of rows (of `d` values) for non-finite values and computes each row's squared
/// norm (as [`sq_norm`] sums it, over the values widened to `f64`) and non-zeros, in parallel
/// on the current rayon pool; `also(offset, block)` runs on each finite block. Returns the
/// index of the first non-finite value.
fn scan_blocks<T: Copy + Into<f64> + Sync>(
    values: &[T],
    d: usize,
    sq_norms: &mut [f64],
    nonzeros: &mut [usize],
    also: impl Fn(usize, &[T]) + Sync,
) -> Option<usize> {
    values
        .par_chunks(FACT_BLOCK_ROWS * d)
        .zip(sq_norms.par_chunks_mut(FACT_BLOCK_ROWS))
        .zip(nonzeros.par_chunks_mut(FACT_BLOCK_ROWS))
        .enumerate()
        .filter_map(|(b, ((block, norms), nonzeros))| {
            let lo = b * FACT_BLOCK_ROWS * d;
            if let Some(k) = first_non_finite(block) {
                return Some(lo + k);
            }
            for ((row, norm), count) in block.chunks_exact(d).zip(norms).zip(nonzeros) {
                *norm = sq_norm(row);
                *count = count_nonzero(row);
            }
            also(lo, block);
            None
        })
        .min()
}

/// The number of non-zero values (branch-free, vectorised).
fn count_nonzero<T: Copy + Into<f64>>(row: &[T]) -> usize {
    row.iter().map(|&v| usize::from(v.into() != 0.0)).sum()
}

/// Rows `index` of the row-major `values` (rows of `d` values).
fn gather_rows<T: Copy>(values: &[T], d: usize, index: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(index.len() * d);
    for &i in index {
        out.extend_from_slice(&values[i * d..(i + 1) * d]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::KernelSource;
    use crate::sparse::density;

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|v| v.to_bits()).collect()
    }

    /// Rows whose values are exactly f32 (multiples of 1/64) or not (thirds), with zeros.
    fn rows(n: usize, d: usize, exact: bool) -> Vec<f64> {
        (0..n * d)
            .map(|k| {
                let v = ((k * 37 + k / d * 11) % 29) as f64 - 9.0;
                let v = if v < 0.0 { 0.0 } else { v };
                if exact {
                    v / 64.0
                } else {
                    v / 3.0
                }
            })
            .collect()
    }

    /// A subset's kernel is the kernel built from its gathered rows: the same columns, bit for
    /// bit, the same diagonal and the same choice of f32 rows, for wide rows (row-major, f32 or
    /// not, and a subset exactly f32 inside rows that are not), narrow rows (feature-major)
    /// and repeated narrow rows (computed over the distinct rows).
    #[test]
    fn a_subset_kernel_is_the_kernel_of_the_gathered_rows() {
        let f = KernelFunction::Rbf { gamma: 0.01 };
        let mut mixed = rows(400, 70, true);
        mixed[8 * 70 + 3] = 1.0 / 3.0; // row 8 is not exactly f32; the others are
        let distinct = rows(300, 5, false);
        let repeated: Vec<f64> =
            (0..3000).flat_map(|t| distinct[(t % 300) * 5..][..5].to_vec()).collect();
        let cases = [
            (rows(400, 70, true), 70, true),
            (rows(400, 70, false), 70, false),
            (mixed.clone(), 70, true),
            (rows(400, 9, false), 9, false),
            (repeated, 5, false),
        ];
        for (values, d, subset_single) in cases {
            let n = values.len() / d;
            let facts = RowFacts::new(FactRows::Double(&values), n, d).unwrap();
            // Every third row backwards, then the rows ≡ 1 (mod 3): two "classes", row 8 out.
            let index: Vec<usize> =
                (0..n).rev().filter(|i| i % 3 == 0).chain((0..n).filter(|i| i % 3 == 1)).collect();
            let gathered = facts.gather(FactRows::Double(&values), &index).unwrap();
            let m = index.len();
            let mut expected =
                DenseKernel::new(DenseRows::new(&gathered, m, d).unwrap(), f).unwrap();
            let mut subset = facts.kernel(FactRows::Double(&values), &index, f).unwrap();
            assert_eq!(facts.density(&index), density(&gathered));
            assert_eq!(subset.reads_single_precision(), d > 64 && subset_single);
            assert_eq!(subset.reads_single_precision(), expected.reads_single_precision());
            assert_eq!(subset.distinct_rows(), expected.distinct_rows());
            // Wide rows that are all exactly f32 are not gathered in f64 (the columns below
            // use their norms); a subset exactly f32 inside rows that are not keeps them.
            let all_single = values.iter().all(|&v| f64::from(v as f32) == v);
            assert_eq!(subset.rows().is_none(), d > 64 && all_single);
            // The same rows given in f32 (when they are all exactly f32): the same facts, and
            // the same kernel without an f64 copy of the rows.
            let single: Vec<f32> = values.iter().map(|&v| v as f32).collect();
            let mut from_single = all_single.then(|| {
                let facts = RowFacts::new(FactRows::Single(&single), n, d).unwrap();
                assert_eq!(
                    facts.sq_norms,
                    RowFacts::new(FactRows::Double(&values), n, d).unwrap().sq_norms
                );
                assert_eq!(
                    bits(&facts.gather(FactRows::Single(&single), &index).unwrap()),
                    bits(&gathered)
                );
                assert_eq!(facts.density(&index), density(&gathered));
                facts.kernel(FactRows::Single(&single), &index, f).unwrap()
            });
            if let Some(kernel) = &from_single {
                assert_eq!(kernel.rows().is_none(), d > 64);
                assert_eq!(kernel.reads_single_precision(), d > 64);
            }
            for kernel in [&mut expected, &mut subset].into_iter().chain(from_single.as_mut()) {
                kernel.swap_index(3, m - 2);
            }
            // One to three rows share a pass; five go through a GEMM (over the widened f32
            // rows when the kernel keeps only those).
            for wanted in [vec![0], vec![5, m - 2], vec![1, 3, m - 1], vec![0, 2, 3, 7, m - 2]] {
                let mut a = vec![0.0; wanted.len() * m];
                let mut b = a.clone();
                subset.fill_block(&wanted, 0, m, &mut a);
                expected.fill_block(&wanted, 0, m, &mut b);
                assert_eq!(bits(&a), bits(&b), "d = {d}, rows {wanted:?}");
                if let Some(kernel) = &mut from_single {
                    kernel.fill_block(&wanted, 0, m, &mut a);
                    assert_eq!(bits(&a), bits(&b), "f32 rows, d = {d}, rows {wanted:?}");
                }
            }
            for i in 0..m {
                assert_eq!(
                    subset.diagonal_value(i).to_bits(),
                    expected.diagonal_value(i).to_bits()
                );
            }
        }
    }

    #[test]
    fn bad_rows_and_indices_are_errors() {
        let values = rows(10, 4, false);
        assert!(matches!(
            RowFacts::new(FactRows::Double(&values), 10, 5),
            Err(KernelError::ShapeMismatch { .. })
        ));
        let mut bad = values.clone();
        bad[13] = f64::NAN;
        assert_eq!(
            RowFacts::new(FactRows::Double(&bad), 10, 4).unwrap_err(),
            KernelError::NotFinite { name: "X", index: 13 }
        );
        // Non-finite values in several blocks of rows: the first one is named.
        let mut bad = rows(1000, 3, true);
        bad[900 * 3 + 1] = f64::NEG_INFINITY;
        bad[300 * 3 + 2] = f64::NAN;
        bad[700 * 3] = f64::INFINITY;
        assert_eq!(
            RowFacts::new(FactRows::Double(&bad), 1000, 3).unwrap_err(),
            KernelError::NotFinite { name: "X", index: 300 * 3 + 2 }
        );
        // f32 rows: the same checks.
        let mut single: Vec<f32> = rows(1000, 3, true).iter().map(|&v| v as f32).collect();
        single[700 * 3] = f32::INFINITY;
        single[300 * 3 + 2] = f32::NAN;
        assert_eq!(
            RowFacts::new(FactRows::Single(&single), 1000, 3).unwrap_err(),
            KernelError::NotFinite { name: "X", index: 300 * 3 + 2 }
        );
        assert!(matches!(
            RowFacts::new(FactRows::Single(&single[..5]), 1000, 3),
            Err(KernelError::ShapeMismatch { .. })
        ));
        let facts = RowFacts::new(FactRows::Double(&values), 10, 4).unwrap();
        assert_eq!(
            facts.gather(FactRows::Double(&values), &[0, 10]).unwrap_err(),
            KernelError::RowOutOfRange { name: "index", index: 10, n_rows: 10 }
        );
        assert!(matches!(
            facts.kernel(FactRows::Double(&values[..36]), &[0], KernelFunction::Linear),
            Err(KernelError::ShapeMismatch { .. })
        ));
        assert_eq!(facts.density(&[]), 1.0);
    }

    /// Fixed-point float32 rows (`k / 2000` computed in `f32`, as USPS's pixels): a subset's
    /// kernel that sums in single precision sums exactly over the integers, from one copy of
    /// all the rows; every block (one row, three, six: the GEMM's size) gives bitwise the
    /// exact integer sum, through swaps, within the documented bound of the `f64` kernel.
    #[test]
    fn fixed_point_rows_are_summed_exactly_for_every_block_and_swap() {
        let (n, d) = (230, 90);
        let single: Vec<f32> = (0..n * d)
            .map(|k| {
                let level = ((k * 7919 + k / d * 13) % 2601) as f32;
                if level > 2000.0 {
                    0.0
                } else {
                    level / 2000.0
                }
            })
            .collect();
        let facts = RowFacts::new(FactRows::Single(&single), n, d).unwrap();
        let index: Vec<usize> = (0..n).rev().step_by(2).chain(1..40).collect();
        let gathered: Vec<f64> =
            gather_rows(&single, d, &index).iter().map(|&v| v.into()).collect();
        let m = index.len();
        let quantum = 1.0 / 2000.0;
        let integer = |p: usize| -> Vec<i64> {
            gathered[p * d..(p + 1) * d].iter().map(|&v| (v / quantum).round() as i64).collect()
        };
        for f in [KernelFunction::Linear, KernelFunction::Rbf { gamma: 0.02 }] {
            let mut kernel = facts
                .kernel_with_single_products(FactRows::Single(&single), &index, f, true)
                .unwrap();
            assert!(kernel.sums_in_integers() && kernel.sums_in_single_precision());
            let plain = facts
                .kernel_with_single_products(FactRows::Single(&single), &index, f, false)
                .unwrap();
            assert!(!plain.sums_in_integers() && !plain.sums_in_single_precision());
            let mut double = DenseKernel::new(DenseRows::new(&gathered, m, d).unwrap(), f).unwrap();
            let swaps = [(4, 150), (17, 3), (0, m - 1)];
            let mut order: Vec<usize> = (0..m).collect();
            for &(i, j) in &swaps {
                kernel.swap_index(i, j);
                double.swap_index(i, j);
                order.swap(i, j);
            }
            let mut worst = 0.0f64;
            for rows in [vec![4], vec![150, 3], vec![0, 17, m - 1], vec![1, 2, 5, 8, 9, 60]] {
                let (start, end) = (1, m);
                let width = end - start;
                let mut out = vec![0.0; rows.len() * width];
                kernel.fill_block(&rows, start, end, &mut out);
                let mut in_double = vec![0.0; out.len()];
                double.fill_block(&rows, start, end, &mut in_double);
                for (r, &p) in rows.iter().enumerate() {
                    let x = integer(order[p]);
                    for c in start..end {
                        let got = out[r * width + c - start];
                        let mut alone = [0.0];
                        kernel.fill_block(&[p], c, c + 1, &mut alone);
                        assert_eq!(got.to_bits(), alone[0].to_bits(), "row {p}, position {c}");
                        let z = integer(order[c]);
                        let exact: i64 = x.iter().zip(&z).map(|(a, b)| a * b).sum();
                        if f == KernelFunction::Linear {
                            assert_eq!(got, exact as f64 * (quantum * quantum), "row {p}, {c}");
                        }
                        // Within 2⁻²² M Σ(|x| + |z|) of the f64 kernel (M = 1; the RBF's
                        // slope is at most 2γ).
                        let sum_abs: f64 =
                            (x.iter().chain(&z).map(|v| v.abs()).sum::<i64>()) as f64 * quantum;
                        let bound = sum_abs / f64::from(1u32 << 22);
                        let difference = (got - in_double[r * width + c - start]).abs();
                        assert!(difference <= bound + 1e-15, "row {p}, {c}: {difference}");
                        worst = worst.max(difference);
                    }
                }
            }
            assert!(worst > 0.0, "{f:?}: the quantized values differ from the f32 ones");
        }
        // Rows that are not fixed-point keep the f32 sums.
        let mut noisy = single.clone();
        noisy[5] = 0.123_456_7;
        let facts = RowFacts::new(FactRows::Single(&noisy), n, d).unwrap();
        let kernel = facts
            .kernel_with_single_products(
                FactRows::Single(&noisy),
                &index,
                KernelFunction::Linear,
                true,
            )
            .unwrap();
        assert!(kernel.sums_in_single_precision() && !kernel.sums_in_integers());
    }
}
