//! Every representation of the plan against one naive `f64` reference, at the running SIMD level
//! (`.ci/run` repeats the crate's tests at every level the machine supports, so every compiled
//! loop meets this test).
//!
//! The data families: random values, adversarial magnitudes (10⁻⁶ to 10⁶ in one row), rows
//! repeated many times, all-zero rows, 0/1 rows, float32 values, fixed-point grey levels, one
//! feature and 65,537 features. Each is built by the constructors the Python layer uses (dense
//! rows with `f64` or `f32` products, and CSR rows), and blocks of one row, three rows (a shared
//! pass) and twenty rows (a GEMM) are compared with the reference:
//!
//! * `f64` paths: `|Δ⟨x,z⟩| ≤ 2(d + 2) u Σ|x_k z_k|` (`u = 2⁻⁵³`: the reference and the kernel
//!   each within the classical bound of a sum of `d` products);
//! * `f32` products and fixed-point rows: the bounds of `single_products` and `fixed_point`,
//!   `(d/16 + 5) 2⁻²⁴ Σ|x_k z_k| + 2⁻²¹ M Σ(|x_k| + |z_k|)` (`M` the largest magnitude);
//! * 0/1 rows on bit sets: bitwise (the counts are exact integers, as is the reference's sum);
//! * the RBF: the inner product's bound times `2γ`, plus the norms' and `exp`'s few ulp.

use crate::plan::reads_sparse;
use crate::test_random::XorShift;
use crate::{
    CsrRows, DenseKernel, DenseRows, KernelFunction, KernelPath, KernelSource, SparseKernel,
};

const U64: f64 = f64::EPSILON / 2.0;

/// Deterministic uniform values in `[0, 1)` (xorshift).
struct Stream(XorShift);

impl Stream {
    fn next(&mut self) -> f64 {
        self.0.uniform()
    }

    fn normal(&mut self) -> f64 {
        // Box–Muller, one of the pair.
        let (a, b) = (self.next().max(1e-300), self.next());
        (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
    }
}

struct Family {
    name: &'static str,
    values: Vec<f64>,
    n: usize,
    d: usize,
}

fn family(
    name: &'static str,
    n: usize,
    d: usize,
    seed: u64,
    value: impl Fn(&mut Stream, usize, usize) -> f64,
) -> Family {
    let mut s = Stream(XorShift::seeded(seed));
    let values = (0..n * d).map(|t| value(&mut s, t / d, t % d)).collect();
    Family { name, values, n, d }
}

fn families() -> Vec<Family> {
    let adversarial = |s: &mut Stream, _: usize, _: usize| {
        let sign = if s.next() < 0.5 { -1.0 } else { 1.0 };
        sign * 10f64.powf(12.0 * s.next() - 6.0)
    };
    let mut out = vec![
        family("random, wide", 300, 100, 1, |s, _, _| s.normal()),
        family("random, narrow", 1500, 10, 2, |s, _, _| s.normal()),
        family("adversarial magnitudes, wide", 300, 100, 3, adversarial),
        family("adversarial magnitudes, narrow", 1500, 8, 4, adversarial),
        family("float32, wide", 300, 100, 5, |s, _, _| f64::from(s.normal() as f32)),
        family("grey levels k/256, wide", 300, 100, 6, |s, _, _| {
            (s.next() * 256.0).floor() / 256.0
        }),
        family("one feature", 1500, 1, 7, |s, _, _| s.normal()),
        family("65,537 features", 12, 65_537, 8, |s, _, _| s.normal()),
        family("65,537 features, 5 % non-zeros", 12, 65_537, 9, |s, _, _| {
            if s.next() < 0.05 {
                s.normal()
            } else {
                0.0
            }
        }),
        family("0/1, 8 % ones", 600, 150, 10, |s, _, _| if s.next() < 0.08 { 1.0 } else { 0.0 }),
        family(
            "0/1, 65,537 features",
            12,
            65_537,
            11,
            |s, _, _| if s.next() < 0.01 { 1.0 } else { 0.0 },
        ),
        family(
            "sparse values",
            600,
            150,
            12,
            |s, _, _| if s.next() < 0.05 { s.normal() } else { 0.0 },
        ),
    ];
    // Rows repeated: forty distinct narrow rows over 2,000 positions, ten wide ones over 300.
    for (name, n, d, distinct) in
        [("duplicates, narrow", 2000, 8, 40), ("duplicates, wide", 300, 100, 10)]
    {
        let base = family(name, distinct, d, 13 + d as u64, |s, _, _| s.normal());
        let values =
            (0..n).flat_map(|r| base.values[(r * 7 % distinct) * d..][..d].to_vec()).collect();
        out.push(Family { name, values, n, d });
    }
    // Every seventh row zero.
    for (name, n, d) in [("zero rows, wide", 300, 100), ("zero rows, narrow", 1500, 10)] {
        out.push(family(
            name,
            n,
            d,
            17 + d as u64,
            |s, r, _| if r % 7 == 0 { 0.0 } else { s.normal() },
        ));
    }
    out
}

/// The kernel sources the Python layer builds for these rows: dense (or CSR when mostly zeros)
/// with `f64` products, the same with `f32` products asked, and CSR rows.
fn sources<'a>(
    f: &'a Family,
    function: KernelFunction,
) -> Vec<(String, Box<dyn KernelSource + 'a>)> {
    let dense = |single: bool| -> Box<dyn KernelSource + 'a> {
        if reads_sparse(crate::density(&f.values)) {
            let rows = CsrRows::from_dense(&f.values, f.n, f.d).unwrap();
            return Box::new(SparseKernel::new(rows, function).unwrap());
        }
        let rows = DenseRows::new(&f.values, f.n, f.d).unwrap();
        Box::new(DenseKernel::new(rows, function).unwrap().with_single_products(single))
    };
    let csr = CsrRows::from_dense(&f.values, f.n, f.d).unwrap();
    let built: Vec<Box<dyn KernelSource + 'a>> =
        vec![dense(false), dense(true), Box::new(SparseKernel::new(csr, function).unwrap())];
    built.into_iter().map(|source| (source.path().name().to_owned(), source)).collect()
}

/// What the reference needs of a pair of rows: `⟨x, z⟩`, `Σ|x_k z_k|`, `Σ(|x_k| + |z_k|)`.
fn reference(x: &[f64], z: &[f64]) -> (f64, f64, f64) {
    let dot = x.iter().zip(z).map(|(a, b)| a * b).sum();
    let abs = x.iter().zip(z).map(|(a, b)| (a * b).abs()).sum();
    let l1 = x.iter().chain(z).map(|a| a.abs()).sum();
    (dot, abs, l1)
}

/// The bound on `|Δ⟨x, z⟩|` of a path, and whether the path promises the exact value.
fn inner_product_bound(path: KernelPath, d: usize, abs: f64, l1: f64, largest: f64) -> (f64, bool) {
    let f64_bound = 2.0 * (d as f64 + 2.0) * U64 * abs;
    match path {
        KernelPath::Bitset | KernelPath::BitsetRbfTable => (0.0, true),
        KernelPath::DenseF32Products | KernelPath::FixedPointI16 => (
            (d as f64 / 16.0 + 5.0) * 2f64.powi(-24) * abs
                + 2f64.powi(-21) * largest * l1
                + f64_bound,
            false,
        ),
        _ => (f64_bound, false),
    }
}

fn block(source: &dyn KernelSource, rows: &[usize], start: usize, end: usize) -> Vec<f64> {
    let mut out = vec![f64::NAN; rows.len() * (end - start)];
    source.fill_block(rows, start, end, &mut out);
    out
}

/// `check(r, c, K[r, c])` for every value of blocks of one row, three rows (a shared pass) and
/// twenty rows (a GEMM) of `source` (over `n` rows) at the columns `start..end`.
fn check_blocks(
    source: &dyn KernelSource,
    n: usize,
    start: usize,
    end: usize,
    mut check: impl FnMut(usize, usize, f64),
) {
    let picks: [&[usize]; 3] =
        [&[0], &[1, 7, n - 1], &(0..20).map(|r| r * n / 20).collect::<Vec<_>>()];
    for rows in picks {
        let values = block(source, rows, start, end);
        for (i, &r) in rows.iter().enumerate() {
            for c in start..end {
                check(r, c, values[i * (end - start) + c - start]);
            }
        }
    }
}

#[test]
fn every_representation_agrees_with_the_naive_reference() {
    let mut seen = std::collections::HashSet::new();
    for f in families() {
        let row = |r: usize| &f.values[r * f.d..(r + 1) * f.d];
        let largest = f.values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mean_sq = f.values.iter().map(|v| v * v).sum::<f64>() / f.values.len() as f64;
        let gamma = 1.0 / (f.d as f64 * mean_sq.max(1e-300));
        for function in [KernelFunction::Linear, KernelFunction::Rbf { gamma }] {
            for (path_name, source) in sources(&f, function) {
                let path = source.path();
                seen.insert(path);
                check_blocks(source.as_ref(), f.n, 3, f.n - 2, |r, c, got| {
                    let (x, z) = (row(r), row(c));
                    let (dot, abs, l1) = reference(x, z);
                    let (bound, exact) = inner_product_bound(path, f.d, abs, l1, largest);
                    let context =
                        || format!("{}, {path_name}, {function:?}, row {r}, column {c}", f.name);
                    match function {
                        KernelFunction::Linear if exact => {
                            assert_eq!(got.to_bits(), dot.to_bits(), "{}", context());
                        }
                        KernelFunction::Linear => {
                            assert!(
                                (got - dot).abs() <= bound,
                                "{}: {got} vs {dot}, bound {bound}",
                                context()
                            );
                        }
                        _ => {
                            let (nx, _, _) = reference(x, x);
                            let (nz, _, _) = reference(z, z);
                            let distance = (nx + nz - 2.0 * dot).max(0.0);
                            let expected = (-gamma * distance).exp();
                            let norms = 2.0 * (f.d as f64 + 2.0) * U64 * (nx + nz);
                            let slack =
                                gamma * (2.0 * bound + norms + 4.0 * U64 * (nx + nz)) + 1e-14;
                            assert!(
                                (got - expected).abs() <= slack * expected.max(1.0),
                                "{}: {got} vs {expected}, slack {slack}",
                                context()
                            );
                        }
                    }
                });
            }
        }
    }
    let representations: std::collections::HashSet<KernelPath> = KernelPath::ALL
        .into_iter()
        .filter(|p| {
            !matches!(
                p,
                KernelPath::Callable
                    | KernelPath::Precomputed
                    | KernelPath::LinearPrimal
                    | KernelPath::Custom
            )
        })
        .collect();
    assert_eq!(seen, representations, "every representation of the plan meets the reference");
}

/// Rows far from the origin for `γ` (`rbf_expansion.rs`): every representation's RBF values
/// against `e^(−γ Σ(x_k − z_k)²)` summed from the differences, and exactly 1 for identical rows.
/// Offset families (norms `~1e14 d` at `γ = 1/d`: the expansion alone is off by a factor up to
/// `e^(±1)`) cover the `f64` and `f32` paths, CSR and repeated rows; a huge `γ` (`1e20`, every
/// value but identical rows' 0) covers the exact integer paths (0/1 rows, whose RBF is always
/// looked up, and fixed-point rows) and the widest CSR rows.
#[test]
fn rbf_values_of_rows_far_from_the_origin_are_exact() {
    let offset = |name: &'static str, family: Family, offset: f64| Family {
        name,
        values: family.values.iter().map(|v| v + offset).collect(),
        ..family
    };
    let mut cases: Vec<(Family, f64)> = Vec::new();
    for f in families() {
        let gamma_of = |f: &Family| 1.0 / f.d as f64;
        match f.name {
            "random, wide" | "random, narrow" | "duplicates, narrow" | "duplicates, wide" => {
                let f = offset(f.name, f, 1e7);
                let gamma = gamma_of(&f);
                cases.push((f, gamma));
            }
            "float32, wide" => {
                // 1e7 + normal, rounded to f32 (spacing 1 there): still exactly f32 values.
                let values = f.values.iter().map(|v| f64::from((v * 4.0 + 1e7) as f32)).collect();
                let f = Family { values, ..f };
                let gamma = 1.0 / (16.0 * f.d as f64);
                cases.push((f, gamma));
            }
            "grey levels k/256, wide" | "0/1, 8 % ones" | "65,537 features, 5 % non-zeros" => {
                cases.push((f, 1e20))
            }
            _ => {}
        }
    }
    let mut seen = std::collections::HashSet::new();
    for (f, gamma) in &cases {
        let row = |r: usize| &f.values[r * f.d..(r + 1) * f.d];
        let function = KernelFunction::Rbf { gamma: *gamma };
        for (path_name, source) in sources(f, function) {
            seen.insert(source.path());
            check_blocks(source.as_ref(), f.n, 0, f.n, |r, c, got| {
                let (x, z) = (row(r), row(c));
                let distance: f64 = x.iter().zip(z).map(|(a, b)| (a - b).powi(2)).sum();
                let expected = (-gamma * distance).exp();
                let context = format!("{}, {path_name}, γ {gamma}, row {r}, column {c}", f.name);
                if x == z {
                    assert_eq!(got, 1.0, "{context}");
                }
                let slack = gamma * 2.0 * (f.d as f64 + 2.0) * U64 * distance + 1e-14;
                assert!(
                    (got - expected).abs() <= slack * expected.max(1e-300),
                    "{context}: {got} vs {expected}, slack {slack}"
                );
            });
        }
    }
    let expected = [
        KernelPath::DenseF64,
        KernelPath::DenseF32,
        KernelPath::DenseF32Products,
        KernelPath::DenseFeatureMajor,
        KernelPath::DenseDistinctRows,
        KernelPath::FixedPointI16,
        KernelPath::Csr,
        KernelPath::CsrPadded,
        KernelPath::BitsetRbfTable,
    ];
    for path in expected {
        assert!(seen.contains(&path), "{path:?} not met: {seen:?}");
    }
}
