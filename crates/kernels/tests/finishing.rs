//! `KernelSource::fill_block_finishing` hands every value of the block to its `finish` exactly
//! once, bitwise the value `fill_block` computes, on every path of every kernel source (the
//! `f32` columns of `SignedQ` are stored from these windows).

use std::sync::Mutex;

use kernelkit_kernels::{
    CsrRows, DenseKernel, DenseRows, KernelFunction, KernelSource, PrecomputedGram, QMatrix,
    QMatrixPasses, SignedQ, SparseKernel,
};

const RBF: KernelFunction = KernelFunction::Rbf { gamma: 0.05 };

/// Checks one block of `source`: the windows cover `rows × (start..end)` once, with the values
/// of `fill_block`, and the output buffer ends as `fill_block` leaves it.
fn check_block(source: &dyn KernelSource, rows: &[usize], start: usize, end: usize, what: &str) {
    let width = end - start;
    let mut expected = vec![0.0; rows.len() * width];
    source.fill_block(rows, start, end, &mut expected);
    let windows: Mutex<Vec<(usize, usize, Vec<f64>)>> = Mutex::new(Vec::new());
    let mut out = vec![f64::NAN; rows.len() * width];
    source.fill_block_finishing(rows, start, end, &mut out, &|r, c0, values| {
        windows.lock().unwrap().push((r, c0, values.to_vec()));
    });
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&out), bits(&expected), "{what}: the output buffer");
    let mut seen = vec![0u32; rows.len() * width];
    let mut finished = vec![f64::NAN; rows.len() * width];
    for (r, c0, values) in windows.into_inner().unwrap() {
        assert!(r < rows.len() && c0 + values.len() <= width, "{what}: window out of the block");
        for (c, value) in values.into_iter().enumerate() {
            seen[r * width + c0 + c] += 1;
            finished[r * width + c0 + c] = value;
        }
    }
    assert!(seen.iter().all(|&k| k == 1), "{what}: a value finished other than once");
    assert_eq!(bits(&finished), bits(&expected), "{what}: the finished values");
}

/// The blocks a solver asks for: one, two and three rows (direct products), five rows (a
/// GEMM), the whole range and a window that starts inside it, after position swaps.
fn check_source(source: &mut dyn KernelSource, what: &str) {
    let n = source.len();
    for (i, j) in [(0, n - 1), (3, 7), (n / 2, 11)] {
        source.swap_index(i, j);
    }
    for rows in [vec![5], vec![n - 1, 2], vec![0, 9, n / 3], vec![1, 4, 8, 16, 32]] {
        check_block(source, &rows, 0, n, what);
        check_block(source, &rows, 37, n - 5, what);
    }
}

/// `KernelSource::bitwise_rows`: a block of up to that many rows (at most 16 tried) gives each
/// row bitwise the values of a block of that row alone, over the whole range and over a window
/// inside it, after position swaps (the gradient reconstruction takes columns in such blocks).
fn check_bitwise_rows(source: &mut dyn KernelSource, what: &str) {
    let n = source.len();
    for (i, j) in [(1, n - 1), (5, 9), (n / 3, 12)] {
        source.swap_index(i, j);
    }
    let most = source.bitwise_rows().min(16);
    assert!(most >= 1, "{what}");
    for count in 1..=most {
        let rows: Vec<usize> = (0..count).map(|r| (r * 7919 + 3) % n).collect();
        for (start, end) in [(0, n), (41, n - 3)] {
            let width = end - start;
            let mut block = vec![0.0; count * width];
            source.fill_block(&rows, start, end, &mut block);
            for (r, &row) in rows.iter().enumerate() {
                let mut alone = vec![0.0; width];
                source.fill_block(&[row], start, end, &mut alone);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&block[r * width..(r + 1) * width]),
                    bits(&alone),
                    "{what}: row {r} of a block of {count}, {start}..{end}"
                );
            }
        }
    }
}

fn wave(n: usize, d: usize, scale: f64) -> Vec<f64> {
    (0..n * d).map(|k| (k as f64 * scale).sin()).collect()
}

#[test]
fn dense_paths_finish_every_value_once_bitwise() {
    let (n, d) = (2600, 70);
    // Wide rows in f64, and wide rows exactly in f32 (read through the f32 copy).
    let wide = wave(n, d, 0.37);
    let single: Vec<f64> = wide.iter().map(|v| (v * 64.0).round() / 64.0).collect();
    // Narrow rows (feature-major), distinct, and narrow rows repeated (the distinct rows).
    let narrow = wave(n, 6, 0.11);
    let m = 300;
    let repeated: Vec<f64> =
        (0..n).flat_map(|t| narrow[(t * 389 % m) * 6..][..6].to_vec()).collect();
    let cases: [(&str, &[f64], usize); 4] = [
        ("dense f64", &wide, d),
        ("dense f32", &single, d),
        ("dense narrow", &narrow, 6),
        ("dense repeated", &repeated, 6),
    ];
    for (what, values, d) in cases {
        let mut kernel = DenseKernel::new(DenseRows::new(values, n, d).unwrap(), RBF).unwrap();
        assert_eq!(kernel.reads_single_precision(), what == "dense f32", "{what}");
        assert_eq!(kernel.distinct_rows().is_some(), what == "dense repeated", "{what}");
        check_source(&mut kernel, what);
        assert_eq!(kernel.bitwise_rows(), 3, "{what}");
        check_bitwise_rows(&mut kernel, what);
    }
}

#[test]
fn sparse_paths_finish_every_value_once_bitwise() {
    let (n, d) = (2600, 150);
    // 0/1 rows (the bit-set path with the table of exponentials) and sparse real rows.
    let binary: Vec<f64> =
        (0..n * d).map(|k| f64::from(u8::from((k * 7 + k / d) % 9 < 2))).collect();
    let real: Vec<f64> = (0..n * d)
        .map(|k| if k % 7 == 3 || k % 11 == 0 { (k % 13) as f64 - 6.0 } else { 0.0 })
        .collect();
    // Rows of very unequal lengths, one in 50 full (not padded: the general CSR path).
    let uneven: Vec<f64> = (0..n * d)
        .map(|k| {
            let (t, f) = (k / d, k % d);
            if (t % 50 == 0 || f < 3) && k % 3 != 0 {
                (k % 17) as f64 * 0.25 - 1.0
            } else {
                0.0
            }
        })
        .collect();
    for (what, values) in [("sparse binary", &binary), ("sparse real", &real), ("uneven", &uneven)]
    {
        let rows = CsrRows::from_dense(values, n, d).unwrap();
        let mut kernel = SparseKernel::new(rows, RBF).unwrap();
        assert_eq!(kernel.looks_up_rbf(), what == "sparse binary", "{what}");
        check_source(&mut kernel, what);
        assert_eq!(kernel.bitwise_rows(), 16, "{what}");
        check_bitwise_rows(&mut kernel, what);
    }
}

#[test]
fn a_source_without_its_own_finishing_finishes_after_filling() {
    let n = 1500;
    let points = wave(n, 3, 0.7);
    let rows = DenseRows::new(&points, n, 3).unwrap();
    let mut gram = vec![0.0; n * n];
    kernelkit_kernels::kernel_block(&rows, &rows, RBF, &mut gram).unwrap();
    let mut source = PrecomputedGram::new(&gram, n, n).unwrap();
    check_source(&mut source, "precomputed");
    check_bitwise_rows(&mut source, "precomputed");
}

/// `n × d` 0/1 rows (about two values in eleven are 1) and the signs `−1` at every third
/// position, `+1` elsewhere: the signed matrices' tests.
fn binary_rows_and_signs(n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
    let values = (0..n * d).map(|k| f64::from(u8::from((k * 5 + k / d) % 11 < 2))).collect();
    let signs = (0..n).map(|t| if t % 3 == 0 { -1.0 } else { 1.0 }).collect();
    (values, signs)
}

#[test]
fn signed_columns_stored_from_the_windows_are_the_signed_kernel_in_f32() {
    // Two columns computed as one pair, and a column extended after shrinking, against
    // s_i s_t K_it rounded to f32 from a plain fill_block.
    let (n, d) = (5000, 150);
    let (values, signs) = binary_rows_and_signs(n, d);
    let kernel = || SparseKernel::new(CsrRows::from_dense(&values, n, d).unwrap(), RBF).unwrap();
    let reference = kernel();
    let expected = |i: usize, len: usize| -> Vec<f32> {
        let mut k = vec![0.0; len];
        reference.fill_block(&[i], 0, len, &mut k);
        k.iter().zip(&signs).map(|(&k_it, &s_t)| (signs[i] * s_t * k_it) as f32).collect()
    };
    let mut q = SignedQ::new(kernel(), signs.clone(), 64 << 20);
    let (q_i, q_j) = q.column_pair(10, 4000, 3000);
    assert_eq!(q_i, &expected(10, 3000)[..], "column i of the pair");
    assert_eq!(q_j, &expected(4000, 3000)[..], "column j of the pair");
    assert_eq!(q.column(10, n), &expected(10, n)[..], "a column extended to the full length");
}

/// Windows `(c0, new column's values, companion's values)` handed to a `column_then`.
type Seen = Mutex<Vec<(usize, Vec<f32>, Option<Vec<f32>>)>>;

/// `SignedQ::column_then` on `kernel()`: a missing column computed beside a resident one hands
/// every window of `0..len` to the pass once, with the values `column` returns afterwards
/// (bitwise) and the resident column's values beside them; the cache counters and the cache's
/// contents are those of the unfused `column` / `column_pair` calls of a twin matrix. When it
/// must not fuse, it computes and calls nothing.
fn check_column_then<K: KernelSource>(kernel: impl Fn() -> K, what: &str) {
    let n = kernel().len();
    let signs: Vec<f64> = (0..n).map(|t| if t % 3 == 0 { -1.0 } else { 1.0 }).collect();
    let mut fused = SignedQ::new(kernel(), signs.clone(), 64 << 20);
    let mut plain = SignedQ::new(kernel(), signs, 64 << 20);
    assert!(fused.fuses_passes());
    for q in [&mut fused, &mut plain] {
        q.swap_index(3, n - 2);
        let _ = q.column(5, n);
    }
    let len = n - 40;
    let (i, j) = (5, n / 2);
    let seen: Seen = Mutex::new(Vec::new());
    let record = |c0: usize, new: &[f32], beside: Option<&[f32]>| {
        seen.lock().unwrap().push((c0, new.to_vec(), beside.map(<[f32]>::to_vec)));
    };
    let _ = fused.column(i, len);
    assert!(fused.column_then(j, Some(i), len, 0, &record), "{what}: a missing column fuses");
    let _ = plain.column_pair(i, j, len);
    let (q_i, q_j) = (plain.column(i, len).to_vec(), plain.column(j, len).to_vec());
    let mut covered = vec![0u32; len];
    for (c0, new, beside) in std::mem::take(&mut *seen.lock().unwrap()) {
        let c1 = c0 + new.len();
        assert!(c1 <= len, "{what}: window beyond len");
        covered[c0..c1].iter_mut().for_each(|k| *k += 1);
        assert_eq!(new, q_j[c0..c1], "{what}: the new column's window");
        assert_eq!(beside.as_deref(), Some(&q_i[c0..c1]), "{what}: the companion's window");
    }
    assert!(covered.iter().all(|&k| k == 1), "{what}: a position passed other than once");
    // `plain` made one more `column` call on each of i and j (two hits) above.
    let (a, b) = (fused.cache_stats(), plain.cache_stats());
    assert_eq!((a.hits + 2, a.misses, a.values_computed), (b.hits, b.misses, b.values_computed));
    assert_eq!(fused.column(j, len), &q_j[..], "{what}: the stored column");

    // A column extended from its prefix: the windows cover the missing positions only, and
    // `from` may lie past the prefix (the caller skips what comes before it).
    let short = len / 3;
    for q in [&mut fused, &mut plain] {
        let _ = q.column(n - 3, short);
    }
    assert!(fused.column_then(n - 3, None, n, short + 100, &record), "{what}: an extension");
    let full = plain.column(n - 3, n).to_vec();
    let mut covered = vec![0u32; n];
    for (c0, new, beside) in std::mem::take(&mut *seen.lock().unwrap()) {
        assert!(beside.is_none(), "{what}: no companion asked for");
        covered[c0..c0 + new.len()].iter_mut().for_each(|k| *k += 1);
        assert_eq!(new, full[c0..c0 + new.len()], "{what}: an extension's window");
    }
    assert!(covered[..short].iter().all(|&k| k == 0), "{what}: the prefix is not recomputed");
    assert!(covered[short..].iter().all(|&k| k == 1), "{what}: the rest passed once");
    assert_eq!(fused.column(n - 3, n), &full[..], "{what}: the extended column");

    // Nothing fuses (or is computed) when the column holds more than `from` values, its
    // companion is missing, the two are one, or the length is 0.
    let never = |_: usize, _: &[f32], _: Option<&[f32]>| panic!("{what}: fused when it must not");
    let before = fused.cache_stats();
    assert!(!fused.column_then(j, Some(i), len, 0, &never), "{what}: a cached column");
    assert!(!fused.column_then(j, None, n, len - 1, &never), "{what}: a prefix past from");
    assert!(!fused.column_then(n - 1, Some(7), len, 0, &never), "{what}: a missing companion");
    assert!(!fused.column_then(n - 1, Some(n - 1), len, 0, &never), "{what}: j beside itself");
    assert!(!fused.column_then(n - 1, None, 0, 0, &never), "{what}: an empty column");
    let after = fused.cache_stats();
    assert_eq!((before.hits, before.misses), (after.hits, after.misses), "{what}: counters");
    assert!(!fused.is_cached(n - 1, 1), "{what}: nothing was computed");
}

#[test]
fn a_missing_column_passes_each_window_once_to_the_fused_pass() {
    let n = 5000;
    let wide = wave(n, 70, 0.37);
    let narrow = wave(n, 6, 0.11);
    let binary: Vec<f64> =
        (0..n * 150).map(|k| f64::from(u8::from((k * 7 + k / 150) % 9 < 2))).collect();
    check_column_then(
        || DenseKernel::new(DenseRows::new(&wide, n, 70).unwrap(), RBF).unwrap(),
        "dense wide",
    );
    check_column_then(
        || DenseKernel::new(DenseRows::new(&narrow, n, 6).unwrap(), RBF).unwrap(),
        "dense narrow",
    );
    check_column_then(
        || SparseKernel::new(CsrRows::from_dense(&binary, n, 150).unwrap(), RBF).unwrap(),
        "sparse binary",
    );
}

#[test]
fn columns_from_gives_each_column_bitwise_and_stores_none_it_computed() {
    // Twenty columns (more than one block of 16): one resident over the whole length (read
    // from the cache, a hit), one resident over a prefix and the others absent (computed over
    // `from..n` in blocks, counted as misses, not stored), after position swaps; against the
    // columns a twin matrix computes one by one.
    let (n, d) = (3000, 150);
    let (values, signs) = binary_rows_and_signs(n, d);
    let kernel = || SparseKernel::new(CsrRows::from_dense(&values, n, d).unwrap(), RBF).unwrap();
    let mut q = SignedQ::new(kernel(), signs.clone(), 64 << 20);
    let mut twin = SignedQ::new(kernel(), signs, 64 << 20);
    assert_eq!(q.block_columns(), 16);
    for m in [&mut q, &mut twin] {
        m.swap_index(2, n - 1);
        m.swap_index(100, 7);
    }
    let _ = q.column(7, n);
    let _ = q.column(40, n / 2);
    let columns: Vec<usize> =
        (0..20).map(|r| if r < 2 { [7, 40][r] } else { (r * 131) % n }).collect();
    let from = n / 2 + 17;
    let before = q.cache_stats();
    let mut seen: Vec<(usize, Vec<f32>)> = Vec::new();
    q.columns_from(&columns, from, n, &mut |r, block| {
        for (s, column) in block.iter().enumerate() {
            seen.push((r + s, column.to_vec()));
        }
    });
    assert_eq!(seen.iter().map(|(r, _)| *r).collect::<Vec<_>>(), (0..20).collect::<Vec<_>>());
    for ((_, got), &k) in seen.iter().zip(&columns) {
        assert_eq!(got, &twin.column(k, n)[from..], "column {k}");
    }
    let after = q.cache_stats();
    assert_eq!(after.hits, before.hits + 1, "the resident column");
    assert_eq!(after.misses, before.misses + 19);
    assert_eq!(after.values_computed, before.values_computed + 19 * (n - from) as u64);
    assert!(q.is_cached(7, n));
    assert!(q.is_cached(40, n / 2) && !q.is_cached(40, n / 2 + 1), "the prefix stays as it was");
    assert!(columns[2..].iter().all(|&k| !q.is_cached(k, 1)), "nothing computed is stored");
}
