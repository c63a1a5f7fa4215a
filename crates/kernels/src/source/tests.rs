use super::*;
use crate::cross::kernel_block;

fn naive(x: &[f64], z: &[f64], f: KernelFunction) -> f64 {
    let dot: f64 = x.iter().zip(z).map(|(a, b)| a * b).sum();
    let nx: f64 = x.iter().map(|a| a * a).sum();
    let nz: f64 = z.iter().map(|a| a * a).sum();
    match f {
        KernelFunction::Rbf { gamma } => {
            let d2: f64 = x.iter().zip(z).map(|(a, b)| (a - b) * (a - b)).sum();
            (-gamma * d2).exp()
        }
        _ => f.from_inner_product(dot, nx, nz),
    }
}

fn data(n: usize, d: usize) -> Vec<f64> {
    (0..n * d).map(|k| ((k * 7919 % 101) as f64 / 50.0) - 1.0).collect()
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|x| x.to_bits()).collect()
}

/// `a` and `b` give bitwise the same block for each `(rows, start, end)`.
fn assert_same_blocks(
    a: &DenseKernel<'_>,
    b: &DenseKernel<'_>,
    cases: &[(Vec<usize>, usize, usize)],
    what: &str,
) {
    for (rows, start, end) in cases {
        let mut out = vec![0.0; rows.len() * (end - start)];
        let mut expected = out.clone();
        a.fill_block(rows, *start, *end, &mut out);
        b.fill_block(rows, *start, *end, &mut expected);
        assert_eq!(bits(&out), bits(&expected), "{what} rows {rows:?} {start}..{end}");
    }
}

#[test]
fn blocks_match_naive_kernel_for_every_function_and_size() {
    let functions = [
        KernelFunction::Linear,
        KernelFunction::Rbf { gamma: 0.3 },
        KernelFunction::Polynomial { gamma: 0.5, coef0: 1.0, degree: 3 },
        KernelFunction::Sigmoid { gamma: 0.1, coef0: -0.5 },
    ];
    for (n, d) in [(7, 3), (300, 17), (2500, 40)] {
        let values = data(n, d);
        for f in functions {
            let kernel = DenseKernel::new(DenseRows::new(&values, n, d).unwrap(), f).unwrap();
            for rows in [vec![0], vec![3, 1], (0..6).collect::<Vec<_>>()] {
                let (start, end) = (1, n);
                let mut out = vec![0.0; rows.len() * (end - start)];
                kernel.fill_block(&rows, start, end, &mut out);
                for (r, &i) in rows.iter().enumerate() {
                    for j in start..end {
                        let rows_f64 = kernel.rows().expect("DenseKernel::new keeps the f64 rows");
                        let expected = naive(rows_f64.row(i), rows_f64.row(j), f);
                        let got = out[r * (end - start) + j - start];
                        assert!(
                            (got - expected).abs() <= 1e-10 * expected.abs().max(1.0),
                            "{f:?} n={n} row {i} col {j}: {got} vs {expected}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn exactly_single_rows_are_read_in_f32_with_bitwise_the_same_columns() {
    let (n, d) = (301, 70);
    // Multiples of 1/64 in [−1, 1]: exactly f32. Nudging one value by 1e-12 makes them not.
    let exact: Vec<f64> = data(n, d).iter().map(|v| (v * 64.0).round() / 64.0).collect();
    let mut inexact = exact.clone();
    inexact[5 * d + 3] += 1e-12;
    let f = KernelFunction::Rbf { gamma: 0.05 };
    let mut kernel = DenseKernel::new(DenseRows::new(&exact, n, d).unwrap(), f).unwrap();
    assert!(kernel.reads_single_precision());
    let plain = DenseKernel::new(DenseRows::new(&inexact, n, d).unwrap(), f).unwrap();
    assert!(!plain.reads_single_precision());
    // Shrinking permutes the positions: the f32 rows must follow.
    kernel.swap_index(4, 250);
    kernel.swap_index(17, 3);
    let rows_f64 = kernel.rows().expect("DenseKernel::new keeps the f64 rows").clone();
    for rows in [vec![4], vec![250, 3], vec![0, 17, 299]] {
        let (start, end) = (2, n);
        let mut out = vec![0.0; rows.len() * (end - start)];
        kernel.fill_block(&rows, start, end, &mut out);
        // kernel_block reads the same (permuted) rows in f64.
        let left: Vec<f64> = rows.iter().flat_map(|&r| rows_f64.row(r).to_vec()).collect();
        let left = DenseRows::new(&left, rows.len(), d).unwrap();
        let right = DenseRows::new(rows_f64.rows(start, end), end - start, d).unwrap();
        let mut expected = vec![0.0; out.len()];
        kernel_block(&left, &right, f, &mut expected).unwrap();
        assert_eq!(bits(&out), bits(&expected), "rows {rows:?}");
    }
}

#[test]
fn single_products_sum_in_f32_for_every_pass_and_follow_swaps() {
    use crate::single_products::dot_single;
    let (n, d) = (203, 83);
    // Values with 20 significant bits (exactly f32; their f32 sums round).
    let exact: Vec<f64> =
        data(n, d).iter().enumerate().map(|(k, v)| v * (1.0 + k as f64 / 1e6)).collect();
    let exact: Vec<f64> = exact.iter().map(|&v| f64::from(v as f32)).collect();
    let single: Vec<f32> = exact.iter().map(|&v| v as f32).collect();
    let linear = KernelFunction::Linear;
    let rbf = KernelFunction::Rbf { gamma: 0.05 };
    let fma = crate::Level::current() >= crate::Level::Avx2;
    let reference = |x: &[f32], z: &[f32]| {
        if fma {
            dot_single::<true>(x, z)
        } else {
            dot_single::<false>(x, z)
        }
    };
    // Positions permuted as shrinking would, in the kernel and in a plain copy.
    let swaps = [(4, 150), (17, 3), (0, 202)];
    let mut order: Vec<usize> = (0..n).collect();
    for &(i, j) in &swaps {
        order.swap(i, j);
    }
    let row = |p: usize| &single[order[p] * d..(order[p] + 1) * d];
    for f in [linear, rbf] {
        let rows = DenseRows::new(&exact, n, d).unwrap();
        let mut kernel = DenseKernel::new(rows, f).unwrap().with_single_products(true);
        assert!(kernel.sums_in_single_precision());
        for &(i, j) in &swaps {
            kernel.swap_index(i, j);
        }
        let mut double = DenseKernel::new(DenseRows::new(&exact, n, d).unwrap(), f).unwrap();
        for &(i, j) in &swaps {
            double.swap_index(i, j);
        }
        let mut differ = 0;
        for rows in [vec![4], vec![150, 3], vec![0, 17, 202]] {
            let (start, end) = (1, n);
            let mut out = vec![0.0; rows.len() * (end - start)];
            kernel.fill_block(&rows, start, end, &mut out);
            let mut in_double = vec![0.0; out.len()];
            double.fill_block(&rows, start, end, &mut in_double);
            for (r, &p) in rows.iter().enumerate() {
                for c in start..end {
                    let got = out[r * (end - start) + c - start];
                    let dot = reference(row(p), row(c));
                    if f == linear {
                        assert_eq!(got.to_bits(), dot.to_bits(), "row {p}, position {c}");
                    }
                    // Every pass (1–3 rows, AVX-512 blocks and the rest) gives the value
                    // of the row alone.
                    let mut alone = vec![0.0; 1];
                    kernel.fill_block(&[p], c, c + 1, &mut alone);
                    assert_eq!(got.to_bits(), alone[0].to_bits(), "row {p}, position {c}");
                    let exact_value = in_double[r * (end - start) + c - start];
                    let magnitude: f64 =
                        row(p).iter().zip(row(c)).map(|(a, b)| f64::from(a * b).abs()).sum();
                    let bound = (d as f64 / 16.0 + 5.0) * f64::from(f32::EPSILON) * magnitude;
                    let slope = if f == linear { 1.0 } else { 2.0 * 0.05 };
                    assert!((got - exact_value).abs() <= slope * bound + 1e-15);
                    differ += usize::from(got != exact_value);
                }
            }
        }
        assert!(differ > 0, "{f:?}: the f32 sums round somewhere");
    }
    // Rows that are not all exactly f32 keep the f64 products.
    let mut inexact = exact.clone();
    inexact[7] += 1e-12;
    let rows = DenseRows::new(&inexact, n, d).unwrap();
    let kernel = DenseKernel::new(rows, rbf).unwrap().with_single_products(true);
    assert!(!kernel.sums_in_single_precision());
}

#[test]
fn repeated_rows_give_bitwise_the_columns_computed_position_by_position() {
    // 3,000 narrow rows, 700 distinct, shuffled: columns go through the distinct rows.
    let (n, d, m) = (3000, 41, 700);
    let distinct_values: Vec<f64> = (0..m * d).map(|k| (k as f64 * 0.618).sin()).collect();
    let values: Vec<f64> =
        (0..n).flat_map(|t| distinct_values[(t * 389 % m) * d..][..d].to_vec()).collect();
    let functions = [
        KernelFunction::Rbf { gamma: 0.05 },
        KernelFunction::Linear,
        KernelFunction::Polynomial { gamma: 0.1, coef0: 1.0, degree: 3 },
        KernelFunction::Sigmoid { gamma: 0.01, coef0: -0.5 },
    ];
    for f in functions {
        let mut kernel = DenseKernel::new(DenseRows::new(&values, n, d).unwrap(), f).unwrap();
        assert_eq!(kernel.distinct_rows(), Some(m));
        let mut direct = kernel.clone().map_feature_major(|store| store.without_distinct_rows());
        for (i, j) in [(4, 2500), (17, 3), (0, 2999), (1000, 1001)] {
            kernel.swap_index(i, j);
            direct.swap_index(i, j);
        }
        // Wide windows (gathered), and one narrower than the distinct rows (direct).
        let cases = [
            (vec![4], 0, n),
            (vec![2500, 3], 5, n),
            (vec![0, 17, 2999], 1, 2990),
            (vec![9], 0, 600),
        ];
        assert_same_blocks(&kernel, &direct, &cases, &format!("{f:?}"));
    }
}

#[test]
fn features_zero_in_every_row_are_left_out_with_bitwise_the_same_columns() {
    // Narrow rows whose features 0, 5, 6 and the last are zero in every row (0.0 or -0.0),
    // with repeats (some columns go through the distinct rows) and without.
    let (n, d) = (1500, 12);
    let zero = |k: usize| [0, 5, 6, d - 1].contains(&k);
    for m in [n, 300] {
        let values: Vec<f64> = (0..n * d)
            .map(|p| {
                let (t, k) = ((p / d) * 389 % m, p % d);
                match (zero(k), t % 2) {
                    (true, 0) => 0.0,
                    (true, _) => -0.0,
                    (false, _) => ((t * d + k) as f64 * 0.618).sin(),
                }
            })
            .collect();
        for f in [
            KernelFunction::Rbf { gamma: 0.05 },
            KernelFunction::Linear,
            KernelFunction::Polynomial { gamma: 0.1, coef0: 1.0, degree: 3 },
        ] {
            let mut kernel = DenseKernel::new(DenseRows::new(&values, n, d).unwrap(), f).unwrap();
            assert_eq!(kernel.distinct_rows(), (m < n).then_some(m));
            let used = kernel.used_features().unwrap();
            assert_eq!(used, (0..d).filter(|&k| !zero(k)).collect::<Vec<_>>());
            // The same kernel reading every feature, position by position.
            let mut whole = kernel
                .clone()
                .map_feature_major(|store| store.keeping_every_feature().without_distinct_rows());
            for (i, j) in [(4, 1400), (17, 3)] {
                kernel.swap_index(i, j);
                whole.swap_index(i, j);
            }
            let cases = [(vec![4], 0, n), (vec![1400, 3], 5, n), (vec![9], 7, 90)];
            assert_same_blocks(&kernel, &whole, &cases, &format!("{f:?} m={m}"));
        }
    }
}

#[test]
fn kernel_block_matches_fill_block() {
    let (n, m, d) = (150, 70, 9);
    let a = data(m, d);
    let b = data(n, d);
    let f = KernelFunction::Rbf { gamma: 0.7 };
    let rows_a = DenseRows::new(&a, m, d).unwrap();
    let rows_b = DenseRows::new(&b, n, d).unwrap();
    let mut out = vec![0.0; m * n];
    kernel_block(&rows_a, &rows_b, f, &mut out).unwrap();
    for i in 0..m {
        for j in 0..n {
            let expected = naive(rows_a.row(i), rows_b.row(j), f);
            assert!((out[i * n + j] - expected).abs() < 1e-12);
        }
    }
}
