//! Sums of scaled `Q` columns, `target[t] += Σ_r s_r · Q[t, k_r]`: how a decomposition solver
//! updates its gradient `G = Qα + p` after a step changed `α_{k_r}` by `s_r`, and how it builds
//! `G` and `Ḡ` from the columns of the non-zero variables.
//!
//! Every position sums its terms in the order of the columns, one product and one sum per
//! term ([`add_scaled`]), and the parallel passes split the positions into fixed chunks with no
//! reduction across them: the result does not depend on the thread count or on how the columns
//! are grouped into passes.

use crate::qmatrix::{QMatrix, QMatrixPasses};
use crate::team::{self, DisjointSlices};

/// Positions per parallel task: small enough that the chunks of an active set of
/// 10,000–30,000 positions split evenly over two threads (4,096 left one thread a chunk more
/// than the other on most passes; measurements: `docs/performance.md`, "Column sums"). The
/// results do not depend on it (no reduction crosses a chunk).
pub const UPDATE_CHUNK: usize = 1024;

/// `target[t] += scale · column[t]`, position by position: every `G` and `Ḡ` term a solver adds
/// goes through this one loop, in a fused pass or not, so the sums are the same either way.
#[inline]
pub fn add_scaled(target: &mut [f64], column: &[f32], scale: f64) {
    for (g, &q) in target.iter_mut().zip(column) {
        *g += scale * f64::from(q);
    }
}

/// [`add_scaled`] in parallel over fixed chunks.
pub fn add_scaled_column(target: &mut [f64], column: &[f32], scale: f64) {
    add_scaled_columns(target, &[column], &[scale]);
}

/// `target[t] += scales[c] · columns[c][t]` for the columns `c` in order, in parallel over
/// fixed chunks of positions: each position gets the sums [`add_scaled_column`] would give it
/// column after column, in one pass.
///
/// # Panics
/// If `scales` and `columns` differ in length.
pub fn add_scaled_columns(target: &mut [f64], columns: &[&[f32]], scales: &[f64]) {
    assert_eq!(scales.len(), columns.len(), "add_scaled_columns: one scale per column");
    in_update_chunks(target, |target, lo| add_scaled_group(target, columns, scales, lo));
}

/// Columns summed per load and store of a position in [`add_scaled_group`].
const GROUP: usize = 4;

/// `target[t] += scales[c] · columns[c][lo + t]` for the columns `c` in order: bitwise
/// [`add_scaled`] column after column (the same products and sums in the same order, never
/// fused into one rounding), but [`GROUP`] columns per pass over `target`, so that each value
/// is loaded and stored once per four terms; compiled for the widest vectors of this machine
/// (the versions differ only in width, not in any value).
fn add_scaled_group(target: &mut [f64], columns: &[&[f32]], scales: &[f64], lo: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::Level::current() >= crate::Level::Avx512 {
            // SAFETY: the CPU has AVX-512F (and AVX2, checked with it).
            return unsafe { add_scaled_group_avx512(target, columns, scales, lo) };
        }
        if crate::Level::current() >= crate::Level::Avx2 {
            // SAFETY: the CPU has AVX2.
            return unsafe { add_scaled_group_avx2(target, columns, scales, lo) };
        }
    }
    add_scaled_group_body(target, columns, scales, lo);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_scaled_group_avx2(target: &mut [f64], columns: &[&[f32]], scales: &[f64], lo: usize) {
    add_scaled_group_body(target, columns, scales, lo);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2")]
unsafe fn add_scaled_group_avx512(
    target: &mut [f64],
    columns: &[&[f32]],
    scales: &[f64],
    lo: usize,
) {
    add_scaled_group_body(target, columns, scales, lo);
}

#[inline(always)]
fn add_scaled_group_body(target: &mut [f64], columns: &[&[f32]], scales: &[f64], lo: usize) {
    let n = target.len();
    let whole = columns.len() / GROUP * GROUP;
    for (group, s) in columns[..whole].chunks_exact(GROUP).zip(scales.chunks_exact(GROUP)) {
        let (c0, c1) = (&group[0][lo..lo + n], &group[1][lo..lo + n]);
        let (c2, c3) = (&group[2][lo..lo + n], &group[3][lo..lo + n]);
        for t in 0..n {
            let mut g = target[t];
            g += s[0] * f64::from(c0[t]);
            g += s[1] * f64::from(c1[t]);
            g += s[2] * f64::from(c2[t]);
            g += s[3] * f64::from(c3[t]);
            target[t] = g;
        }
    }
    for (column, &scale) in columns[whole..].iter().zip(&scales[whole..]) {
        add_scaled(target, &column[lo..lo + n], scale);
    }
}

/// Runs `body(&mut target[lo..hi], lo)` over fixed chunks of [`UPDATE_CHUNK`] positions, in
/// parallel (on the solve's team) unless `target` is short, in which case `body(target, 0)`
/// runs on the calling thread. For passes in which each position's value depends on nothing
/// but the position, so the result does not depend on the chunks or the thread count.
pub fn in_update_chunks(target: &mut [f64], body: impl Fn(&mut [f64], usize) + Sync) {
    let len = target.len();
    if len < crate::PARALLEL_MIN_LEN {
        body(target, 0);
    } else {
        let target = DisjointSlices::new(target);
        team::for_each_chunk(len.div_ceil(UPDATE_CHUNK), |c| {
            let (lo, hi) = (c * UPDATE_CHUNK, ((c + 1) * UPDATE_CHUNK).min(len));
            // SAFETY: chunk c alone writes lo..hi.
            body(unsafe { target.range(lo, hi) }, lo);
        });
    }
}

/// [`QMatrixPasses::add_columns`] through [`QMatrixPasses::columns_from`]: one parallel pass per block of
/// columns the matrix hands over (the trait's default).
pub fn add_columns_by_blocks<Q: QMatrixPasses + ?Sized>(
    q: &mut Q,
    columns: &[usize],
    scales: &[f64],
    target: &mut [f64],
) {
    assert_eq!(scales.len(), columns.len(), "add_columns: one scale per column");
    let len = target.len();
    q.columns_from(columns, 0, len, &mut |r, values| {
        add_scaled_columns(target, values, &scales[r..r + values.len()]);
    });
}

/// Entries per task of [`submatrix_in_parallel`]: a submatrix of the batched engine (256 rows,
/// 64 new columns) makes a few tasks.
const SUBMATRIX_TASK: usize = 4096;

/// `out[c·n .. (c+1)·n]` (column `c` of an `n`-row submatrix) written by `column(c, out)`,
/// over fixed groups of columns, in parallel (on the solve's team) when there are at least
/// [`crate::PARALLEL_MIN_LEN`] entries: the gathers of [`QMatrixPasses::submatrix`] from resident
/// columns, which ran between the passes, on one thread, while the other threads idled
/// (measurements: `docs/performance.md`, "Column sums"). Each entry is a copy, so nothing
/// depends on the grouping.
pub fn submatrix_in_parallel(out: &mut [f32], n: usize, column: impl Fn(usize, &mut [f32]) + Sync) {
    if n == 0 {
        return;
    }
    let n_columns = out.len() / n;
    if out.len() < crate::PARALLEL_MIN_LEN {
        for (c, values) in out.chunks_exact_mut(n).enumerate() {
            column(c, values);
        }
        return;
    }
    let per_task = SUBMATRIX_TASK.div_ceil(n).max(n_columns.div_ceil(team::MAX_CHUNKS));
    let out = DisjointSlices::new(out);
    team::for_each_chunk(n_columns.div_ceil(per_task), |task| {
        for c in task * per_task..((task + 1) * per_task).min(n_columns) {
            // SAFETY: column c belongs to this task alone.
            column(c, unsafe { out.range(c * n, (c + 1) * n) });
        }
    });
}

/// [`QMatrixPasses::submatrix`] through [`QMatrix::column`] (the trait's default): `out[c·n + r] =
/// Q[rows[r], columns[c]]`, column by column.
pub fn submatrix_by_columns<Q: QMatrix + ?Sized>(
    q: &mut Q,
    rows: &[usize],
    columns: &[usize],
    out: &mut [f32],
) {
    let n = rows.len();
    assert_eq!(out.len(), n * columns.len(), "submatrix: out holds rows × columns values");
    let len = q.size();
    for (c, &k) in columns.iter().enumerate() {
        let column = q.column(k, len);
        for (r, &t) in rows.iter().enumerate() {
            out[c * n + r] = column[t];
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::qmatrix::tests::kernel;
    use crate::{QMatrix, QMatrixPasses, SignedQ, SvrQ};

    /// `Σ_r scales[r] Q[t, columns[r]]` and `Q[rows, columns]` from single columns, in `f64`.
    fn reference<Q: QMatrix>(q: &mut Q, columns: &[usize], scales: &[f64]) -> (Vec<f64>, Vec<f32>) {
        let n = q.size();
        let mut sums = vec![0.0; n];
        let mut entries = Vec::new();
        for (&k, &scale) in columns.iter().zip(scales) {
            let column = q.column(k, n).to_vec();
            for (s, &value) in sums.iter_mut().zip(&column) {
                *s += scale * f64::from(value);
            }
            entries.extend(columns.iter().map(|&t| column[t]));
        }
        (sums, entries)
    }

    /// After a prefetch (one block, or more columns than the cache holds), `add_columns` and
    /// `submatrix` give what the columns give one by one.
    fn check<Q: QMatrixPasses>(mut q: Q, mut plain: Q, columns: &[usize]) {
        let n = q.size();
        let scales: Vec<f64> = (0..columns.len()).map(|r| (r as f64 * 0.7).sin()).collect();
        let (sums, entries) = reference(&mut plain, columns, &scales);
        q.prefetch(columns, n);
        let mut target = vec![0.0; n];
        q.add_columns(columns, &scales, &mut target);
        for (a, b) in target.iter().zip(&sums) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
        }
        let mut block = vec![0.0; columns.len() * columns.len()];
        q.submatrix(columns, columns, &mut block);
        assert_eq!(block, entries);
        // Over the positions from..: resident or computed outside the cache.
        for (matrix, from) in [(&mut q, n / 3), (&mut plain, 0)] {
            let mut tail = vec![0.0; n - from];
            matrix.add_columns_from(columns, &scales, from, &mut tail);
            for (a, b) in tail.iter().zip(&sums[from..]) {
                assert!((a - b).abs() <= 1e-6 * (1.0 + b.abs()), "{a} vs {b}");
            }
        }
    }

    /// Every compiled version of the grouped sums gives, bit for bit, the sums of the columns
    /// added one after the other (any number of columns, lengths with and without a tail).
    #[test]
    fn grouped_column_sums_are_bitwise_those_column_by_column() {
        use super::{add_scaled, add_scaled_group_body};
        let len = 1037;
        let columns: Vec<Vec<f32>> = (0..9)
            .map(|c| (0..len).map(|t| ((t * 7 + c * 13) as f32 * 0.37).sin()).collect())
            .collect();
        let scales: Vec<f64> = (0..9).map(|c| (c as f64 * 1.3).cos() * 1e3).collect();
        let start: Vec<f64> = (0..len - 5).map(|t| (t as f64 * 0.11).tan()).collect();
        type Version = fn(&mut [f64], &[&[f32]], &[f64], usize);
        let mut versions: Vec<(&str, Version)> = vec![("generic", add_scaled_group_body)];
        #[cfg(target_arch = "x86_64")]
        {
            if crate::Level::current() >= crate::Level::Avx2 {
                versions.push(("avx2", |t, c, s, lo| unsafe {
                    super::add_scaled_group_avx2(t, c, s, lo)
                }));
            }
            if crate::Level::current() >= crate::Level::Avx512 {
                versions.push(("avx512", |t, c, s, lo| unsafe {
                    super::add_scaled_group_avx512(t, c, s, lo)
                }));
            }
        }
        for k in 0..=columns.len() {
            let refs: Vec<&[f32]> = columns[..k].iter().map(Vec::as_slice).collect();
            let mut expected = start.clone();
            for (column, &scale) in refs.iter().zip(&scales) {
                add_scaled(&mut expected, &column[5..], scale);
            }
            for (name, version) in &versions {
                let mut got = start.clone();
                version(&mut got, &refs, &scales[..k], 5);
                let same = got.iter().zip(&expected).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{name}, {k} columns");
            }
        }
    }

    /// A submatrix large enough to be gathered in parallel groups of columns holds the
    /// columns' entries, for the signed and the ε-SVR matrix.
    #[test]
    fn large_submatrices_are_the_columns_entries() {
        fn check<Q: QMatrixPasses>(mut q: Q, columns: &[usize]) {
            let n = q.size();
            let rows: Vec<usize> = (0..n).rev().collect();
            q.prefetch(columns, n);
            let mut block = vec![0.0; n * columns.len()];
            q.submatrix(&rows, columns, &mut block);
            assert!(block.len() >= crate::PARALLEL_MIN_LEN);
            for (c, &k) in columns.iter().enumerate() {
                let column = q.column(k, n).to_vec();
                let expected: Vec<f32> = rows.iter().map(|&t| column[t]).collect();
                assert_eq!(&block[c * n..(c + 1) * n], &expected[..], "column {k}");
            }
        }
        let (n, d) = (300, 3);
        let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.29).sin()).collect();
        let y: Vec<f64> = (0..n).map(|k| if k % 4 == 0 { 1.0 } else { -1.0 }).collect();
        let columns: Vec<usize> = (0..40).map(|c| c * 7).collect();
        check(SignedQ::new(kernel(&values, n, d), y, 1 << 22), &columns);
        let doubled: Vec<usize> = columns.iter().map(|&c| c + n * (c % 2)).collect();
        check(SvrQ::new(kernel(&values, n, d), 1 << 22), &doubled);
    }

    #[test]
    fn column_sums_and_submatrices_are_those_of_the_columns() {
        let (n, d) = (37, 4);
        let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.33).cos()).collect();
        let y: Vec<f64> = (0..n).map(|k| if k % 3 == 0 { 1.0 } else { -1.0 }).collect();
        let columns = [3, 0, 36, 17, 8, 21];
        for cache_bytes in [1 << 20, 3 * n * 4] {
            let signed = |bytes| SignedQ::new(kernel(&values, n, d), y.clone(), bytes);
            check(signed(cache_bytes), signed(1 << 20), &columns);
            // ε-SVR: both positions of point 3 (3 and 3 + n), and a negative one alone.
            let svr = |bytes| SvrQ::new(kernel(&values, n, d), bytes);
            check(svr(cache_bytes), svr(1 << 20), &[3, 3 + n, 40, 0, 17, 2 * n - 1]);
        }
    }
}
