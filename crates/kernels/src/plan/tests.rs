use std::collections::HashSet;

use super::*;
use crate::test_random::XorShift;
use crate::{CsrRows, DenseKernel, DenseRows, KernelSource, PrecomputedGram, SparseKernel};

const RBF: KernelFunction = KernelFunction::Rbf { gamma: 0.1 };
const LINEAR: KernelFunction = KernelFunction::Linear;

/// Dense data of many rows with every value distinct (the facts of `dense_f64`).
fn dense(n_rows: usize, n_features: usize) -> DataFacts {
    DataFacts {
        given: Given::Dense,
        n_rows,
        n_features,
        density: 1.0,
        ones_only: false,
        exactly_f32: false,
        fixed_grid: false,
        nnz: n_rows * n_features,
        longest_row: n_features,
        distinct_rows: n_rows,
        max_sq_norm: 10.5,
    }
}

fn csr(n_rows: usize, n_features: usize, nnz: usize, longest_row: usize) -> DataFacts {
    let density = nnz as f64 / (n_rows * n_features) as f64;
    DataFacts { given: Given::Csr, density, nnz, longest_row, ..dense(n_rows, n_features) }
}

/// Every branch of [`plan`], in the order of the module's table.
#[test]
fn the_table_lists_every_branch() {
    let f32_products = Preferences { single_products: true, ..Preferences::default() };
    let none = Preferences::default();
    let ones = |facts: DataFacts, max_sq_norm: f64| DataFacts {
        ones_only: true,
        max_sq_norm,
        exactly_f32: true,
        ..facts
    };
    let on_grid = DataFacts { exactly_f32: true, fixed_grid: true, ..dense(500, 256) };
    let single = DataFacts { exactly_f32: true, ..dense(500, 256) };
    let table: Vec<(&str, DataFacts, KernelFunction, Preferences, KernelPath)> = vec![
        (
            "callable",
            DataFacts { given: Given::Callable, ..dense(5, 3) },
            RBF,
            none,
            KernelPath::Callable,
        ),
        (
            "gram",
            DataFacts { given: Given::Precomputed, ..dense(5, 5) },
            RBF,
            none,
            KernelPath::Precomputed,
        ),
        (
            "linear, w asked",
            dense(500, 30),
            LINEAR,
            Preferences { linear_primal: true, ..none },
            KernelPath::LinearPrimal,
        ),
        (
            "RBF, w asked",
            DataFacts { distinct_rows: 10, ..dense(1000, 8) },
            RBF,
            Preferences { linear_primal: true, ..none },
            KernelPath::DenseFeatureMajor,
        ),
        (
            "0/1 CSR, RBF",
            ones(csr(1000, 123, 14_000, 14), 14.0),
            RBF,
            none,
            KernelPath::BitsetRbfTable,
        ),
        (
            "0/1 CSR, linear",
            ones(csr(1000, 123, 14_000, 14), 14.0),
            LINEAR,
            none,
            KernelPath::Bitset,
        ),
        (
            "0/1 CSR, RBF, a huge norm",
            ones(csr(10, 1024, 20, 2), 1e7),
            RBF,
            none,
            KernelPath::Bitset,
        ),
        (
            "0/1 CSR, 1,025 features",
            ones(csr(1000, 1025, 14_000, 14), 14.0),
            RBF,
            none,
            KernelPath::CsrPadded,
        ),
        (
            "0/1 dense, 10 % non-zeros",
            DataFacts { density: 0.1, ..ones(dense(1000, 120), 12.0) },
            RBF,
            none,
            KernelPath::BitsetRbfTable,
        ),
        ("CSR, similar rows", csr(1000, 300, 30_000, 40), RBF, none, KernelPath::CsrPadded),
        ("CSR, one long row", csr(1000, 300, 30_000, 300), RBF, none, KernelPath::Csr),
        (
            "CSR, similar rows, 65,537 features (merged, not scattered)",
            csr(1000, 65_537, 30_000, 40),
            RBF,
            none,
            KernelPath::Csr,
        ),
        ("CSR, every row empty", csr(1000, 300, 0, 0), RBF, none, KernelPath::Csr),
        (
            "dense, 19 % non-zeros",
            DataFacts { density: 0.19, nnz: 57_000, longest_row: 70, ..dense(1000, 300) },
            RBF,
            none,
            KernelPath::CsrPadded,
        ),
        (
            "narrow, repeated",
            DataFacts { distinct_rows: 100, ..dense(2000, 8) },
            RBF,
            none,
            KernelPath::DenseDistinctRows,
        ),
        (
            "narrow, 80 % distinct",
            DataFacts { distinct_rows: 1600, ..dense(2000, 8) },
            RBF,
            none,
            KernelPath::DenseFeatureMajor,
        ),
        (
            "narrow, few rows",
            DataFacts { distinct_rows: 10, ..dense(1000, 8) },
            RBF,
            none,
            KernelPath::DenseFeatureMajor,
        ),
        (
            "narrow, f32 products",
            DataFacts { exactly_f32: true, ..dense(100, 64) },
            RBF,
            f32_products,
            KernelPath::DenseFeatureMajor,
        ),
        ("pixels, f32 products", on_grid, RBF, f32_products, KernelPath::FixedPointI16),
        ("pixels", on_grid, RBF, none, KernelPath::DenseF32),
        ("f32, f32 products", single, RBF, f32_products, KernelPath::DenseF32Products),
        ("f32", single, LINEAR, none, KernelPath::DenseF32),
        ("f64, f32 products", dense(500, 256), RBF, f32_products, KernelPath::DenseF64),
        ("f64", dense(500, 256), RBF, none, KernelPath::DenseF64),
        ("narrow, too many values", dense(1 << 20, 32), RBF, none, KernelPath::DenseF64),
        ("no features", dense(10, 0), RBF, none, KernelPath::DenseF64),
    ];
    for (name, facts, function, preferences, expected) in &table {
        assert_eq!(plan(facts, *function, preferences), *expected, "{name}");
    }
    let covered: HashSet<KernelPath> = table.iter().map(|row| row.4).collect();
    let planned: HashSet<KernelPath> =
        KernelPath::ALL.into_iter().filter(|&p| p != KernelPath::Custom).collect();
    assert_eq!(covered, planned, "the table covers every path the plan can take");
    let names: HashSet<&str> = KernelPath::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(names.len(), KernelPath::ALL.len(), "names are unique");
}

/// The facts of dense rows, computed here naively.
fn facts_of(values: &[f64], n: usize, d: usize) -> DataFacts {
    let rows: Vec<&[f64]> = if d == 0 { vec![] } else { values.chunks_exact(d).collect() };
    let nnz = values.iter().filter(|&&v| v != 0.0).count();
    let exactly_f32 = values.iter().all(|&v| f64::from(v as f32) == v);
    let single: Vec<f32> = values.iter().map(|&v| v as f32).collect();
    let distinct: HashSet<Vec<u64>> =
        rows.iter().map(|row| row.iter().map(|v| v.to_bits()).collect()).collect();
    DataFacts {
        given: Given::Dense,
        n_rows: n,
        n_features: d,
        density: if values.is_empty() { 1.0 } else { nnz as f64 / values.len() as f64 },
        ones_only: values.iter().all(|&v| v == 0.0 || v == 1.0),
        exactly_f32,
        fixed_grid: exactly_f32
            && d > 0
            && crate::fixed_point::FixedRows::from_single(&single, d).is_some(),
        nnz,
        longest_row: rows
            .iter()
            .map(|r| r.iter().filter(|&&v| v != 0.0).count())
            .max()
            .unwrap_or(0),
        distinct_rows: distinct.len(),
        max_sq_norm: rows.iter().map(|r| r.iter().map(|v| v * v).sum::<f64>()).fold(0.0, f64::max),
    }
}

/// The kernel the Python layer builds for dense rows (`dispatch_kernel!`: CSR when mostly
/// zeros), reporting its path.
fn built_path(
    values: &[f64],
    n: usize,
    d: usize,
    function: KernelFunction,
    single: bool,
) -> KernelPath {
    if reads_sparse(crate::density(values)) {
        let rows = CsrRows::from_dense(values, n, d).unwrap();
        return SparseKernel::new(rows, function).unwrap().path();
    }
    let rows = DenseRows::new(values, n, d).unwrap();
    DenseKernel::new(rows, function).unwrap().with_single_products(single).path()
}

/// Deterministic values in `[0, 1)`.
fn uniform(len: usize, seed: u64) -> Vec<f64> {
    let mut random = XorShift::seeded(seed);
    (0..len).map(|_| random.uniform()).collect()
}

/// A data set for [`built_kernels_follow_the_plan`]: name, row-major values, rows, features,
/// the kernel, whether `f32` products are asked, and the path expected.
type BuiltCase = (&'static str, Vec<f64>, usize, usize, KernelFunction, bool, KernelPath);

/// Each kernel the constructors build is the plan of its data's facts, for data made to take
/// every path.
#[test]
fn built_kernels_follow_the_plan() {
    let sparse_ones = |n: usize, d: usize, seed: u64| -> Vec<f64> {
        uniform(n * d, seed).iter().map(|&u| if u < 0.08 { 1.0 } else { 0.0 }).collect()
    };
    // Eight non-zeros a row (similar lengths), or also one full row.
    let sparse_values = |n: usize, d: usize, long_first: bool| -> Vec<f64> {
        let mut v = vec![0.0; n * d];
        for r in 0..n {
            for k in 0..8 {
                v[r * d + (r * 7 + k * 13) % d] = (r + k) as f64 * 0.25 + 0.5;
            }
        }
        if long_first {
            v[..d].iter_mut().enumerate().for_each(|(k, x)| *x = k as f64 + 0.5);
        }
        v
    };
    let repeated: Vec<f64> =
        (0..2000 * 6).map(|t| ((t / 6 % 50) * 7 + t % 6) as f64 * 0.3).collect();
    let pixels: Vec<f64> =
        uniform(300 * 100, 9).iter().map(|&u| (u * 255.0).floor() / 256.0).collect();
    let singles: Vec<f64> = uniform(300 * 100, 11).iter().map(|&u| f64::from(u as f32)).collect();
    let doubles = uniform(300 * 100, 13);
    let cases: Vec<BuiltCase> = vec![
        ("0/1, RBF", sparse_ones(600, 150, 1), 600, 150, RBF, false, KernelPath::BitsetRbfTable),
        ("0/1, linear", sparse_ones(600, 150, 2), 600, 150, LINEAR, false, KernelPath::Bitset),
        (
            "sparse values",
            sparse_values(600, 150, false),
            600,
            150,
            RBF,
            false,
            KernelPath::CsrPadded,
        ),
        ("one long row", sparse_values(600, 150, true), 600, 150, RBF, false, KernelPath::Csr),
        ("repeated narrow", repeated, 2000, 6, RBF, false, KernelPath::DenseDistinctRows),
        ("narrow", uniform(2000 * 6, 3), 2000, 6, RBF, false, KernelPath::DenseFeatureMajor),
        ("pixels", pixels.clone(), 300, 100, RBF, true, KernelPath::FixedPointI16),
        ("pixels, f64 products", pixels, 300, 100, RBF, false, KernelPath::DenseF32),
        ("f32", singles.clone(), 300, 100, RBF, true, KernelPath::DenseF32Products),
        ("f32, f64 products", singles, 300, 100, LINEAR, false, KernelPath::DenseF32),
        ("f64", doubles, 300, 100, RBF, true, KernelPath::DenseF64),
    ];
    for (name, values, n, d, function, single, expected) in cases {
        let facts = facts_of(&values, n, d);
        let preferences = Preferences { single_products: single, ..Preferences::default() };
        assert_eq!(plan(&facts, function, &preferences), expected, "{name}: the plan");
        assert_eq!(built_path(&values, n, d, function, single), expected, "{name}: the kernel");
    }
    let gram = [2.0, 1.0, 1.0, 2.0];
    assert_eq!(PrecomputedGram::new(&gram, 2, 2).unwrap().path(), KernelPath::Precomputed);
}
