//! Repeated rows: rows compared and hashed by their values' bits, and the first occurrence of
//! each row.
//!
//! Two rows are the same when every value has the same bits, with the one difference that no
//! kernel can see taken away: `-0.0` counts as `0.0`, and a CSR row's stored zeros count as
//! absent (every product with a zero is a zero, which leaves every sum, norm and distance as it
//! was). So a fit's merged rows, and with them its solution, do not depend on how the zeros
//! were written: `X` and `X + 0.0`, or a CSR matrix before and after `eliminate_zeros()`, had
//! decision values 1.2e-3 and 7.4e-4 apart when the sign and the storage of zeros counted.
//!
//! Rows are hashed in parallel ([`digests`]), then offered in order to an open-addressing
//! table of first occurrences ([`FirstSeen`]): with the standard library's map behind a
//! per-word `Hasher`, finding the repeats was a noticeable share of a small fit (measurements:
//! `docs/performance.md`, "Finding repeated rows").
//!
//! Users: [`crate::distinct`] (a kernel column over the distinct rows of narrow dense data) and
//! the C-SVC reduction of identical training rows (`kernelkit.SVC`: identical rows with the
//! same label are one dual variable).

use rayon::prelude::*;

/// Rows hashed per parallel task (a few microseconds of work each).
const DIGEST_CHUNK: usize = 1024;

/// Multiplier of the digest's chains (the golden-ratio constant of Fibonacci hashing).
const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// One word into a chain of the digest.
#[inline(always)]
fn mix(state: &mut u64, word: u64) {
    *state = (state.rotate_left(23) ^ word).wrapping_mul(MULTIPLIER);
}

/// The four chains of a digest of `count` words, folded and mixed.
fn fold(states: [u64; 4], count: usize) -> u64 {
    let [a, b, c, d] = states;
    let h = (a ^ b.rotate_left(16) ^ c.rotate_left(32) ^ d.rotate_left(48) ^ count as u64)
        .wrapping_mul(MULTIPLIER);
    // The high bits carry the mixing of the multiply; fold them into the low bits too.
    (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 32)
}

/// A 64-bit digest of a sequence of words: word `k` goes to chain `k mod 4` of four
/// independent multiply chains (one chain is bound by the multiply's latency), folded and
/// mixed at the end. Equal sequences have equal digests; rows crafted to collide only slow
/// the search down, since rows with equal digests are compared word by word.
fn digest(words: impl Iterator<Item = u64>) -> u64 {
    let mut states = [0u64; 4];
    let mut count = 0;
    for word in words {
        mix(&mut states[count % 4], word);
        count += 1;
    }
    fold(states, count)
}

/// The digest of a dense row's value bits: [`digest`] of them, four words at a time.
/// A value of a dense row as the repetition test reads it: its bits, `-0.0` read as `0.0`.
pub trait RowValue: Copy + Sync {
    /// The value's bits (those of an `f32` widened to 64 bits as an integer, not as a float:
    /// two `f32` rows are equal bit for bit exactly when their `f64` widenings are), with
    /// `-0.0` read as `0.0`.
    fn bits(self) -> u64;
}

impl RowValue for f64 {
    #[inline]
    fn bits(self) -> u64 {
        // −0.0 + 0.0 = +0.0; every other value is itself.
        (self + 0.0).to_bits()
    }
}

impl RowValue for f32 {
    #[inline]
    fn bits(self) -> u64 {
        u64::from((self + 0.0).to_bits())
    }
}

/// A CSR row's stored entries as the repetition test reads them: (column, value bits) of its
/// non-zero values.
fn sparse_entries<'r>(
    indices: &'r [u32],
    values: &'r [f64],
) -> impl Iterator<Item = (u32, u64)> + 'r {
    indices.iter().zip(values).filter(|(_, &v)| v != 0.0).map(|(&k, &v)| (k, v.bits()))
}

pub(crate) fn dense_digest<T: RowValue>(row: &[T]) -> u64 {
    let mut states = [0u64; 4];
    let chunks = row.chunks_exact(4);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (state, v) in states.iter_mut().zip(chunk) {
            mix(state, v.bits());
        }
    }
    for (state, v) in states.iter_mut().zip(rest) {
        mix(state, v.bits());
    }
    fold(states, row.len())
}

/// The digest of a CSR row: the column indices and value bits of its non-zero values.
fn sparse_digest(indices: &[u32], values: &[f64]) -> u64 {
    digest(sparse_entries(indices, values).flat_map(|(k, bits)| [u64::from(k), bits]))
}

/// The digests of rows `0..n`, in parallel (on the current rayon pool) over fixed chunks.
pub(crate) fn digests(n: usize, digest_of: impl Fn(usize) -> u64 + Sync) -> Vec<u64> {
    (0..n).into_par_iter().with_min_len(DIGEST_CHUNK).map(&digest_of).collect()
}

/// An open-addressing table of the first occurrences seen so far, keyed by row digests: rows
/// are offered in increasing order, and [`FirstSeen::first`] returns the first earlier row
/// equal to the one offered (or the row itself, which is then recorded).
pub(crate) struct FirstSeen<'a> {
    digests: &'a [u64],
    /// Row of each slot (`EMPTY` for none); a power of two at least twice the rows.
    slots: Vec<usize>,
    /// `64 − log2(slots.len())`: a digest's high bits choose its first slot.
    shift: u32,
}

const EMPTY: usize = usize::MAX;

impl<'a> FirstSeen<'a> {
    /// An empty table for rows with the given digests.
    pub(crate) fn new(digests: &'a [u64]) -> Self {
        let size = (2 * digests.len()).next_power_of_two().max(16);
        FirstSeen { digests, slots: vec![EMPTY; size], shift: 64 - size.trailing_zeros() }
    }

    /// The first row `s ≤ t` among those offered with `same(s, t)` (rows with equal digests
    /// are compared by `same`); `t` itself, recorded, when there is none.
    pub(crate) fn first(&mut self, t: usize, same: impl Fn(usize, usize) -> bool) -> usize {
        let digest = self.digests[t];
        let mask = self.slots.len() - 1;
        let mut slot = (digest >> self.shift) as usize;
        loop {
            match self.slots[slot] {
                EMPTY => {
                    self.slots[slot] = t;
                    return t;
                }
                s if self.digests[s] == digest && same(s, t) => return s,
                _ => slot = (slot + 1) & mask,
            }
        }
    }
}

/// `first[t]`: the smallest `s ≤ t` with `same(s, t)`, from the rows' digests.
fn first_occurrences(digests: &[u64], same: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut seen = FirstSeen::new(digests);
    (0..digests.len()).map(|t| seen.first(t, &same)).collect()
}

/// Whether two dense rows have the same bits (either zero read as `0.0`).
pub(crate) fn same_bits<T: RowValue>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.bits() == y.bits())
}

/// For each row of the row-major `n_rows × n_features` dense `values`, the first row with the
/// same bits (either zero read as `0.0`). The rows are hashed in parallel on the current rayon pool.
///
/// # Panics
/// If `values` does not hold `n_rows × n_features` values.
pub fn first_dense_occurrences<T: RowValue>(
    values: &[T],
    n_rows: usize,
    n_features: usize,
) -> Vec<usize> {
    assert_eq!(values.len(), n_rows * n_features, "first_dense_occurrences: wrong length");
    if n_features == 0 {
        return vec![0; n_rows];
    }
    let row = |t: usize| &values[t * n_features..(t + 1) * n_features];
    let digests = digests(n_rows, |t| dense_digest(row(t)));
    first_occurrences(&digests, |s, t| same_bits(row(s), row(t)))
}

/// For each row of the CSR arrays (`indptr` of length `n_rows + 1`), the first row with the
/// same non-zero values, at the same columns with the same bits (stored zeros left out). The
/// rows are hashed in parallel on the current rayon pool.
///
/// # Panics
/// If `indptr` is not a valid row pointer into `indices` and `values`.
pub fn first_sparse_occurrences(indptr: &[usize], indices: &[u32], values: &[f64]) -> Vec<usize> {
    let n_rows = indptr.len().saturating_sub(1);
    let row = |t: usize| {
        let (lo, hi) = (indptr[t], indptr[t + 1]);
        (&indices[lo..hi], &values[lo..hi])
    };
    let digests = digests(n_rows, |t| {
        let (k, v) = row(t);
        sparse_digest(k, v)
    });
    first_occurrences(&digests, |s, t| {
        let ((k_s, v_s), (k_t, v_t)) = (row(s), row(t));
        sparse_entries(k_s, v_s).eq(sparse_entries(k_t, v_t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::XorShift;

    #[test]
    fn each_dense_row_points_to_its_first_copy() {
        let values = [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 0.0, -0.0, 3.0, 4.0, 0.0, 0.0];
        // Row 5 (0, 0) is row 3 (0, −0): no kernel tells the two zeros apart.
        assert_eq!(first_dense_occurrences(&values, 6, 2), vec![0, 1, 0, 3, 1, 3]);
        // The same rows in f32: the same groups.
        let single: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        assert_eq!(first_dense_occurrences(&single, 6, 2), vec![0, 1, 0, 3, 1, 3]);
        assert_eq!(first_dense_occurrences::<f64>(&[], 3, 0), vec![0, 0, 0]);
    }

    #[test]
    fn each_sparse_row_points_to_its_first_copy() {
        // Rows: {0: 1}, {1: 1}, {0: 1}, {}, {0: 1, 1: 0}, {}, {1: 1}, {0: −0}, {1: 2}: the
        // stored zeros count as absent (row 4 is row 0, row 7 row 3).
        let indptr = [0, 1, 2, 3, 3, 5, 5, 6, 7, 8];
        let indices = [0, 1, 0, 0, 1, 1, 0, 1];
        let values = [1.0, 1.0, 1.0, 1.0, 0.0, 1.0, -0.0, 2.0];
        assert_eq!(
            first_sparse_occurrences(&indptr, &indices, &values),
            vec![0, 1, 0, 3, 0, 3, 1, 3, 8]
        );
    }

    /// The first equal row of each row by comparing with every earlier one.
    fn naive_first(n: usize, same: impl Fn(usize, usize) -> bool) -> Vec<usize> {
        (0..n).map(|t| (0..=t).find(|&s| same(s, t)).unwrap()).collect()
    }

    #[test]
    fn equal_digests_of_different_rows_are_told_apart() {
        // Every row has the same digest: the table must compare rows, probing past the ones
        // that differ, and still return the first equal one.
        let keys = [5, 7, 5, 9, 7, 7, 1, 9, 5];
        let digests = vec![42u64; keys.len()];
        let first = first_occurrences(&digests, |s, t| keys[s] == keys[t]);
        assert_eq!(first, naive_first(keys.len(), |s, t| keys[s] == keys[t]));
        assert_eq!(first, vec![0, 1, 0, 3, 1, 1, 6, 3, 0]);
    }

    #[test]
    fn many_repeats_match_the_pairwise_comparison() {
        // 3,000 rows drawn from 40 ones (some differing only in the last feature, or only in
        // the sign of a zero, which makes them the same row), dense and as CSR with the 0.0
        // left out and the −0.0 stored. The reference compares the values as numbers.
        let d = 7;
        let mut random = XorShift(0x2545_F491_4F6C_DD1D);
        let mut next = || random.next_u64();
        let distinct: Vec<Vec<f64>> = (0..40)
            .map(|u| {
                (0..d)
                    .map(|k| match (u + k) % 5 {
                        0 => 0.0,
                        1 if u % 2 == 0 => -0.0,
                        _ => ((u * 31 + k * 7) % 13) as f64 / 4.0,
                    })
                    .collect()
            })
            .collect();
        let n = 3000;
        let which: Vec<usize> = (0..n).map(|_| (next() % 40) as usize).collect();
        let values: Vec<f64> = which.iter().flat_map(|&u| distinct[u].clone()).collect();
        let row = |t: usize| &values[t * d..(t + 1) * d];
        let expected = naive_first(n, |s, t| row(s) == row(t));
        assert_eq!(first_dense_occurrences(&values, n, d), expected);

        let (mut indptr, mut indices, mut stored) = (vec![0], Vec::new(), Vec::new());
        for t in 0..n {
            for (k, &v) in row(t).iter().enumerate() {
                if v.to_bits() != 0 {
                    indices.push(k as u32);
                    stored.push(v);
                }
            }
            indptr.push(indices.len());
        }
        assert_eq!(first_sparse_occurrences(&indptr, &indices, &stored), expected);
    }
}
