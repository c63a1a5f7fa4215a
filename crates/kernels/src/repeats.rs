//! Repeated rows: rows compared and hashed bit for bit, and the first occurrence of each row.
//!
//! Two rows are the same when every stored value has the same bits (so `-0.0` and `0.0`
//! differ, which is only conservative: a repeat is missed, never invented). For CSR rows the
//! stored column indices must agree too, so a row with an explicit zero is not the same as one
//! without it (canonical CSR, as the Python layer passes, has no explicit zeros from
//! scipy's arithmetic, but may hold them when the user stored them).
//!
//! Users: [`crate::distinct`] (a kernel column over the distinct rows of narrow dense data) and
//! the C-SVC reduction of identical training rows (`kernelkit.SVC`: identical rows with the
//! same label are one dual variable).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A dense row as a hash key, compared bit for bit.
pub(crate) struct BitRow<'a>(pub(crate) &'a [f64]);

impl PartialEq for BitRow<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(other.0).all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl Eq for BitRow<'_> {}

impl Hash for BitRow<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for v in self.0 {
            state.write_u64(v.to_bits());
        }
    }
}

/// A CSR row (stored column indices and values) as a hash key, compared bit for bit.
struct BitSparseRow<'a>(&'a [u32], &'a [f64]);

impl PartialEq for BitSparseRow<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 && BitRow(self.1) == BitRow(other.1)
    }
}

impl Eq for BitSparseRow<'_> {}

impl Hash for BitSparseRow<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.len() as u64);
        for (&k, v) in self.0.iter().zip(self.1) {
            state.write_u64(u64::from(k));
            state.write_u64(v.to_bits());
        }
    }
}

/// A fast hash of a row's bits (multiply and rotate per word, then a final mix): SipHash over
/// every value of every row cost more than the rest of finding the repeats. Rows crafted to
/// collide could only slow the search down: equal hashes are compared row against row.
///
/// Words go round-robin to four independent states, so that four multiply chains are in
/// flight at once (one chain is bound by the multiply's latency: 1.8 ms for the 20,000 × 41
/// rows of the kddcup subset).
#[derive(Default)]
pub(crate) struct RowHasher {
    states: [u64; 4],
    words: usize,
}

impl Hasher for RowHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        let state = &mut self.states[self.words % 4];
        *state = (state.rotate_left(23) ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.words += 1;
    }

    fn finish(&self) -> u64 {
        let [a, b, c, d] = self.states;
        let h = (a ^ b.rotate_left(16) ^ c.rotate_left(32) ^ d.rotate_left(48) ^ self.words as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // The high bits carry the mixing of the multiply; fold them into the low bits too.
        (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 32)
    }
}

/// `first[t]`: the smallest `s ≤ t` whose key equals the key of `t` (`first[t] == t` for a
/// first occurrence).
fn first_occurrences<K: Eq + Hash>(n: usize, key: impl Fn(usize) -> K) -> Vec<usize> {
    let mut first_of: HashMap<K, usize, BuildHasherDefault<RowHasher>> =
        HashMap::with_capacity_and_hasher(n, Default::default());
    (0..n).map(|t| *first_of.entry(key(t)).or_insert(t)).collect()
}

/// For each row of the row-major `n_rows × n_features` dense `values`, the first row with the
/// same bits.
///
/// # Panics
/// If `values` does not hold `n_rows × n_features` values.
pub fn first_dense_occurrences(values: &[f64], n_rows: usize, n_features: usize) -> Vec<usize> {
    assert_eq!(values.len(), n_rows * n_features, "first_dense_occurrences: wrong length");
    if n_features == 0 {
        return vec![0; n_rows];
    }
    first_occurrences(n_rows, |t| BitRow(&values[t * n_features..(t + 1) * n_features]))
}

/// For each row of the CSR arrays (`indptr` of length `n_rows + 1`), the first row with the
/// same stored indices and value bits.
///
/// # Panics
/// If `indptr` is not a valid row pointer into `indices` and `values`.
pub fn first_sparse_occurrences(indptr: &[usize], indices: &[u32], values: &[f64]) -> Vec<usize> {
    let n_rows = indptr.len().saturating_sub(1);
    first_occurrences(n_rows, |t| {
        let (lo, hi) = (indptr[t], indptr[t + 1]);
        BitSparseRow(&indices[lo..hi], &values[lo..hi])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dense_row_points_to_its_first_copy() {
        let values = [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 0.0, -0.0, 3.0, 4.0, 0.0, 0.0];
        assert_eq!(first_dense_occurrences(&values, 6, 2), vec![0, 1, 0, 3, 1, 5]);
        assert_eq!(first_dense_occurrences(&[], 3, 0), vec![0, 0, 0]);
    }

    #[test]
    fn each_sparse_row_points_to_its_first_copy() {
        // Rows: {0: 1}, {1: 1}, {0: 1}, {}, {0: 1, 1: 0}, {}, {1: 1}.
        let indptr = [0, 1, 2, 3, 3, 5, 5, 6];
        let indices = [0, 1, 0, 0, 1, 1];
        let values = [1.0, 1.0, 1.0, 1.0, 0.0, 1.0];
        assert_eq!(first_sparse_occurrences(&indptr, &indices, &values), vec![0, 1, 0, 3, 4, 3, 1]);
    }
}
