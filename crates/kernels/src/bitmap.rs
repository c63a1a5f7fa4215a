//! `BinaryRows`: rows whose stored values are all `1.0` (or stored zeros, which a bit set leaves
//! out as the sums leave out their zero products), as bit sets over at most
//! [`crate::plan::MAX_BIT_SET_WORDS`]` × 64` features, in position order.
//!
//! For binary features (a9a, w8a and most one-hot data) the inner product of two rows is the
//! number of features they share: `⟨x, z⟩ = Σ_w popcount(x_w & z_w)` over the 64-bit words of
//! the two bit sets. That is a few instructions per pair of rows instead of one gathered load
//! per stored feature, and it is exact: the count is an integer, as is the sum of ones it
//! replaces, so the kernel values are bitwise those of the CSR path. The counts use `vpopcntq`
//! (AVX-512, eight words at a time) or `popcnt` where the CPU has them, else the portable count.

/// Bit sets of binary rows, `words` 64-bit words per row, in position order.
#[derive(Debug, Clone)]
pub(crate) struct BinaryRows {
    words: usize,
    bits: Vec<u64>,
}

impl BinaryRows {
    /// The bit sets of CSR rows whose values are all `1.0` or `0.0` (a stored zero, `±0.0`,
    /// sets no bit: its products are zeros, which leave every sum as it was); `None` when some
    /// value is neither, or when `n_features` needs more than
    /// [`crate::plan::MAX_BIT_SET_WORDS`] words (the bit sets would then outweigh the indices of
    /// typical sparse rows; `plan::reads_bit_sets`).
    pub(crate) fn build(
        indptr: &[usize],
        indices: &[u32],
        values: &[f64],
        n_features: usize,
    ) -> Option<BinaryRows> {
        let ones_only = values.iter().all(|&v| v == 1.0 || v == 0.0);
        if !crate::plan::reads_bit_sets(ones_only, n_features) {
            return None;
        }
        let words = n_features.div_ceil(64).max(1);
        let n = indptr.len().checked_sub(1)?;
        let mut bits = vec![0u64; n * words];
        for r in 0..n {
            let (lo, hi) = (indptr[r], indptr[r + 1]);
            for (&k, &v) in indices[lo..hi].iter().zip(&values[lo..hi]) {
                if v == 1.0 {
                    let k = k as usize;
                    bits[r * words + k / 64] |= 1 << (k % 64);
                }
            }
        }
        Some(BinaryRows { words, bits })
    }

    /// The bit set of a dense vector when every entry is 0 or 1 (else `None`).
    pub(crate) fn query(&self, x: &[f64]) -> Option<Vec<u64>> {
        let mut bits = vec![0u64; self.words];
        for (k, &v) in x.iter().enumerate() {
            if v == 1.0 {
                *bits.get_mut(k / 64)? |= 1 << (k % 64);
            } else if v != 0.0 {
                return None;
            }
        }
        Some(bits)
    }

    /// 64-bit words per row.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// The bit set of the row at position `p` (a [`BinaryRows::query`] of that row).
    pub(crate) fn row(&self, p: usize) -> &[u64] {
        &self.bits[p * self.words..(p + 1) * self.words]
    }

    /// Exchanges the rows at positions `i` and `j`.
    pub(crate) fn swap(&mut self, i: usize, j: usize) {
        crate::dense::swap_row_slices(&mut self.bits, i, j, self.words);
    }

    /// `out[c] = ⟨x, row at position first + c⟩` for the bit set `x` of [`BinaryRows::query`].
    pub(crate) fn inner_products(&self, x: &[u64], first: usize, out: &mut [f64]) {
        assert_eq!(x.len(), self.words, "BinaryRows: query of the wrong width");
        let rows = &self.bits[first * self.words..(first + out.len()) * self.words];
        // The counts are integers: every instruction set gives the same values.
        #[cfg(target_arch = "x86_64")]
        {
            let level = crate::Level::current();
            if level.vpopcntq() {
                // SAFETY: the CPU has AVX-512F and VPOPCNTDQ (`Level::vpopcntq`).
                return unsafe { count_avx512(x, rows, out) };
            }
            if level >= crate::Level::Avx2 {
                // SAFETY: the CPU has `popcnt` (part of the AVX2 level).
                return unsafe { count_popcnt(x, rows, out) };
            }
        }
        count_any(x, rows, out);
    }
}

/// [`count_any`] compiled for AVX-512 with `vpopcntq` (the compiler vectorises the counts).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
fn count_avx512(x: &[u64], rows: &[u64], out: &mut [f64]) {
    count_any(x, rows, out);
}

/// [`count_any`] compiled with the `popcnt` instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn count_popcnt(x: &[u64], rows: &[u64], out: &mut [f64]) {
    count_any(x, rows, out);
}

/// `out[c] = popcount(x & row c)` over the rows of `x.len()` words each.
#[inline(always)]
fn count_any(x: &[u64], rows: &[u64], out: &mut [f64]) {
    match x.len() {
        1 => count::<1>(x, rows, out),
        2 => count::<2>(x, rows, out),
        3 => count::<3>(x, rows, out),
        4 => count::<4>(x, rows, out),
        5 => count::<5>(x, rows, out),
        words => {
            for (o, row) in out.iter_mut().zip(rows.chunks_exact(words)) {
                let shared: u32 = row.iter().zip(x).map(|(a, b)| (a & b).count_ones()).sum();
                *o = f64::from(shared);
            }
        }
    }
}

/// [`count_any`] with the word count known at compile time.
#[inline(always)]
fn count<const W: usize>(x: &[u64], rows: &[u64], out: &mut [f64]) {
    let x: [u64; W] = x.try_into().expect("query width checked by the caller");
    for (o, row) in out.iter_mut().zip(rows.chunks_exact(W)) {
        let mut shared = 0u32;
        for w in 0..W {
            shared += (row[w] & x[w]).count_ones();
        }
        *o = f64::from(shared);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_the_inner_products_of_binary_rows() {
        for d in [5, 64, 123, 300, 1000] {
            let n = 30;
            let mut indptr = vec![0];
            let mut indices = Vec::new();
            for r in 0..n {
                let mut row: Vec<u32> = (0..12).map(|k| ((r * 37 + k * 53) % d) as u32).collect();
                row.sort_unstable();
                row.dedup();
                indices.extend(row);
                indptr.push(indices.len());
            }
            let values = vec![1.0; indices.len()];
            let mut rows = BinaryRows::build(&indptr, &indices, &values, d).unwrap();
            let dense = |r: usize| {
                let mut x = vec![0.0; d];
                for &k in &indices[indptr[r]..indptr[r + 1]] {
                    x[k as usize] = 1.0;
                }
                x
            };
            let mut order: Vec<usize> = (0..n).collect();
            rows.swap(0, 29);
            order.swap(0, 29);
            let x = dense(7);
            let mut out = vec![0.0; n - 2];
            rows.inner_products(&rows.query(&x).unwrap(), 2, &mut out);
            for (c, &got) in out.iter().enumerate() {
                let z = dense(order[c + 2]);
                let expected: f64 = x.iter().zip(&z).map(|(a, b)| a * b).sum();
                assert_eq!(got, expected, "d={d}, position {}", c + 2);
            }
        }
        assert!(BinaryRows::build(&[0, 1], &[0], &[2.0], 3).is_none());
        // Stored zeros set no bit: row {0: 1, 2: 0, 5: −0} is the bit set {0}.
        let zeros = BinaryRows::build(&[0, 3], &[0, 2, 5], &[1.0, 0.0, -0.0], 3).unwrap();
        let plain = BinaryRows::build(&[0, 1], &[0], &[1.0], 3).unwrap();
        assert_eq!(zeros.bits, plain.bits);
        assert!(BinaryRows::build(&[0, 1], &[0], &[1.0], 2000).is_none());
        let rows = BinaryRows::build(&[0, 1], &[0], &[1.0], 3).unwrap();
        assert!(rows.query(&[0.5, 0.0, 0.0]).is_none());
    }
}
