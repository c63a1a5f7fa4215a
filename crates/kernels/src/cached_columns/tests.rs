use super::*;
use crate::{DenseKernel, DenseRows, KernelFunction};

fn kernel(values: &[f64], n: usize, d: usize) -> DenseKernel<'_> {
    DenseKernel::new(DenseRows::new(values, n, d).unwrap(), KernelFunction::Rbf { gamma: 0.7 })
        .unwrap()
}

fn naive(values: &[f64], d: usize, y: &[f64], c: f64, i: usize, j: usize) -> f64 {
    let sq: f64 = (0..d).map(|t| (values[i * d + t] - values[j * d + t]).powi(2)).sum::<f64>();
    let k = (-0.7 * sq).exp();
    y[i] * y[j] * (k + 1.0) + if i == j { 1.0 / c } else { 0.0 }
}

#[test]
fn columns_are_the_modified_kernel_under_swaps() {
    let (n, d, c) = (11, 3, 4.0);
    let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.43).sin()).collect();
    let y: Vec<f64> = (0..n).map(|k| if k % 3 == 0 { 1.0 } else { -1.0 }).collect();
    // A small budget forces evictions and partial columns.
    let mut q = MebQ::modified(kernel(&values, n, d), y.clone(), c, 0);
    let mut perm: Vec<usize> = (0..n).collect();
    for (step, &(a, b)) in [(0, 6), (3, 10), (1, 3), (9, 2)].iter().enumerate() {
        let len = 4 + step;
        for i in [a, b, 7] {
            let column = q.column(i, len).to_vec();
            for (t, &value) in column.iter().enumerate() {
                let expected = naive(&values, d, &y, c, perm[i], perm[t]);
                assert!((value - expected).abs() <= 1e-14, "{value} vs {expected}");
            }
            assert_eq!(q.diagonal()[i], naive(&values, d, &y, c, perm[i], perm[i]));
        }
        let mut block = vec![0.0; 2 * len];
        q.uncached_columns(&[b, 8], len, &mut block);
        for (r, &i) in [b, 8].iter().enumerate() {
            for t in 0..len {
                let expected = naive(&values, d, &y, c, perm[i], perm[t]);
                assert!((block[r * len + t] - expected).abs() <= 1e-14);
            }
        }
        q.swap_index(a, b);
        perm.swap(a, b);
    }
}

#[test]
fn plain_columns_are_the_kernel_and_follow_swaps() {
    let (n, d) = (9, 4);
    let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.31).cos()).collect();
    let k_value = |i: usize, j: usize| -> f64 {
        let sq: f64 = (0..d).map(|t| (values[i * d + t] - values[j * d + t]).powi(2)).sum();
        (-0.7 * sq).exp()
    };
    // A budget of two columns: evictions and refills.
    let mut columns = CachedColumns::plain(kernel(&values, n, d), 0);
    let mut perm: Vec<usize> = (0..n).collect();
    for &(a, b) in &[(0, 5), (2, 8), (5, 1)] {
        for i in [a, b, 3] {
            let (column, diagonal) = columns.column_and_diagonal(i);
            assert_eq!(column.len(), n);
            for (t, &value) in column.iter().enumerate() {
                assert!((value - k_value(perm[i], perm[t])).abs() <= 1e-14);
            }
            assert_eq!(diagonal[i], 1.0);
        }
        let (column_a, column_b, _) = columns.pair_and_kernel(a, b);
        assert!((column_a[b] - column_b[a]).abs() <= 1e-14);
        assert!(columns.is_cached(a, n) && columns.is_cached(b, n));
        columns.swap_index(a, b);
        perm.swap(a, b);
    }
    assert!(columns.cache_stats().misses > 0);
}

/// The [`Signs`] map in `f64` columns is `s_i s_t K_it`, and [`SignedQ`] (the same map, stored in
/// `f32`) holds exactly those values rounded once, under swaps and evictions of both caches.
#[test]
fn signed_columns_in_f64_and_f32_are_the_same_values() {
    use crate::QMatrix;
    let (n, d) = (10, 3);
    let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.57).sin()).collect();
    let y: Vec<f64> = (0..n).map(|k| if k % 4 == 1 { 1.0 } else { -1.0 }).collect();
    let signs = Signs { signs: y.clone() };
    let cache = RowCache::new(n, 0);
    let mut wide = CachedColumns::with_cache(kernel(&values, n, d), signs, cache);
    let mut narrow = SignedQ::new(kernel(&values, n, d), y.clone(), 0);
    let reference = kernel(&values, n, d);
    let mut perm: Vec<usize> = (0..n).collect();
    for (step, &(a, b)) in [(0, 7), (4, 9), (2, 4), (8, 1)].iter().enumerate() {
        let len = n - step;
        for i in [a, b, 5] {
            let column = wide.column(i, len).to_vec();
            let rounded = QMatrix::column(&mut narrow, i, len);
            for t in 0..len {
                let mut k = [0.0];
                reference.fill_block(&[perm[i]], perm[t], perm[t] + 1, &mut k);
                assert_eq!(column[t], y[perm[i]] * y[perm[t]] * k[0], "i {i}, t {t}");
                assert_eq!(rounded[t].to_bits(), (column[t] as f32).to_bits(), "i {i}, t {t}");
            }
            assert_eq!(wide.diagonal()[i], QMatrix::diagonal(&narrow)[i]);
        }
        wide.swap_index(a, b);
        QMatrix::swap_index(&mut narrow, a, b);
        perm.swap(a, b);
    }
}
