//! Inner products of left rows against right rows stored *feature-major*, for short rows.
//!
//! A row-by-row dot product of a short row costs more in its reduction than in its few
//! products; with the right rows stored feature-major (`by_feature[k · stride + t]` is feature
//! `k` of row `t`) the loop runs across rows instead, each output summed over the features in
//! order and kept in a register over all of them. Blocks of 32 outputs (eight independent
//! chains of four-lane multiply–adds on AVX2) keep both FMA units busy; every output is summed
//! in the same order whichever block computes it, so values do not depend on the block width.

use crate::dense::DenseRows;
use crate::level::Level;
use crate::simd::{level, multiply_add};

/// Outputs accumulated in registers at a time by [`dot_feature_major`].
const FEATURE_MAJOR_BLOCK: usize = 8;

#[inline(always)]
fn dot_feature_major_generic<const FMA: bool, const WIDE: usize>(
    left: &[&[f64]],
    by_feature: &[f64],
    stride: usize,
    first: usize,
    outs: &mut [&mut [f64]],
) {
    // Blocks of WIDE outputs (independent chains of multiply–adds that keep both FMA units
    // busy), every left row's block in turn while the block's features are in the core's
    // cache: a pass over the data serves all the rows (a column over many rows is bound by
    // reading them), then blocks of eight, then outputs one by one. Every output is summed over
    // the features in the same order whichever block computes it, alone or beside other rows.
    let shared = outs.iter().map(|out| out.len()).min().unwrap_or(0) / WIDE * WIDE;
    for c in (0..shared).step_by(WIDE) {
        for (x, out) in left.iter().zip(outs.iter_mut()) {
            if let Some((&x_0, rest)) = x.split_first() {
                feature_major_block::<FMA, WIDE>(x_0, rest, by_feature, stride, first, out, c);
            }
        }
    }
    for (x, out) in left.iter().zip(outs.iter_mut()) {
        let Some((&x_0, rest)) = x.split_first() else {
            out.fill(0.0);
            continue;
        };
        let mut c =
            feature_major_blocks::<FMA, WIDE>(x_0, rest, by_feature, stride, first, out, shared);
        c = feature_major_blocks::<FMA, FEATURE_MAJOR_BLOCK>(
            x_0, rest, by_feature, stride, first, out, c,
        );
        for (c, o) in out.iter_mut().enumerate().skip(c) {
            let mut sum = x_0 * by_feature[first + c];
            for (k, &x_k) in rest.iter().enumerate() {
                sum = multiply_add::<FMA>(x_k, by_feature[(k + 1) * stride + first + c], sum);
            }
            *o = sum;
        }
    }
}

/// `out[c..c + B] = ⟨x, z_{first + c ..}⟩` for whole blocks of `B` outputs from `from` on, the
/// `B` sums kept in registers over all features and stored once; returns where it stopped.
#[inline(always)]
fn feature_major_blocks<const FMA: bool, const B: usize>(
    x_0: f64,
    rest: &[f64],
    by_feature: &[f64],
    stride: usize,
    first: usize,
    out: &mut [f64],
    from: usize,
) -> usize {
    let full = from + (out.len() - from) / B * B;
    for c in (from..full).step_by(B) {
        feature_major_block::<FMA, B>(x_0, rest, by_feature, stride, first, out, c);
    }
    full
}

/// `out[c..c + B] = ⟨x, z_{first + c ..}⟩` (with `x = (x_0, rest…)`), the `B` sums kept in
/// registers over all features and stored once.
#[inline(always)]
fn feature_major_block<const FMA: bool, const B: usize>(
    x_0: f64,
    rest: &[f64],
    by_feature: &[f64],
    stride: usize,
    first: usize,
    out: &mut [f64],
    c: usize,
) {
    // Feature k of rows first + c .. first + c + B.
    let block = |k: usize| &by_feature[k * stride + first + c..][..B];
    let mut acc = [0.0f64; B];
    for (a, &z) in acc.iter_mut().zip(block(0)) {
        *a = x_0 * z;
    }
    for (k, &x_k) in rest.iter().enumerate() {
        for (a, &z) in acc.iter_mut().zip(block(k + 1)) {
            *a = multiply_add::<FMA>(x_k, z, *a);
        }
    }
    out[c..c + B].copy_from_slice(&acc);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_feature_major_avx2(
    left: &[&[f64]],
    by_feature: &[f64],
    stride: usize,
    first: usize,
    outs: &mut [&mut [f64]],
) {
    // Eight chains of four lanes.
    dot_feature_major_generic::<true, 32>(left, by_feature, stride, first, outs);
}

/// `outs[r][c] = ⟨left[r], z_{first + c}⟩` for rows `z` stored *feature-major* in `by_feature`
/// (`by_feature[k · stride + t]` is feature `k` of row `t`): each product is summed over the
/// features in order, blocks of eight outputs staying in registers over all features, so the
/// loop vectorises across rows, which a row-by-row dot product of a short row cannot (its
/// reduction costs more than its few products).
///
/// # Panics
/// If `left` and `outs` differ in length, or a row `z` needed is outside `by_feature`.
pub fn dot_feature_major(
    left: &[&[f64]],
    by_feature: &[f64],
    stride: usize,
    first: usize,
    outs: &mut [&mut [f64]],
) {
    assert_eq!(left.len(), outs.len(), "dot_feature_major: one output per left row");
    for (x, out) in left.iter().zip(outs.iter()) {
        if !x.is_empty() {
            assert!(
                (x.len() - 1) * stride + first + out.len() <= by_feature.len(),
                "dot_feature_major: rows outside the data"
            );
        }
    }
    match level() {
        #[cfg(target_arch = "x86_64")]
        level if level >= Level::Avx2 => {
            // SAFETY: the CPU supports AVX2 and FMA (the level).
            unsafe { dot_feature_major_avx2(left, by_feature, stride, first, outs) }
        }
        _ => dot_feature_major_generic::<false, 8>(left, by_feature, stride, first, outs),
    }
}

/// The feature-major copy of narrow rows, without the features that are zero in every row.
///
/// A product over the features in order (the first product, then one multiply–add per
/// feature) is unchanged by a feature whose values are zero in both rows: its multiply–add adds
/// a zero to the running sum, which leaves a non-zero sum as it is and can at most turn a
/// zero sum's sign. Every left row of a training column is one of the rows, so a feature zero
/// in every row is zero in both operands of every product of the copy; leaving it out reads
/// `d_used / d` of the bytes (a column over narrow rows is bound by reading them: 5 of the 41
/// features of the kddcup subset are zero throughout). The kernel values are those of the
/// whole rows, up to the sign of a zero inner product, which no kernel function or solver step
/// tells apart.
#[derive(Debug, Clone)]
pub(crate) struct FeatureMajor {
    /// The features kept, in increasing order.
    pub(crate) used: Vec<usize>,
    /// `values[k · n + t]`: feature `used[k]` of the row at position `t`.
    pub(crate) values: Vec<f64>,
}

impl FeatureMajor {
    /// The copy of `rows`.
    pub(crate) fn new(rows: &DenseRows<'_>) -> Self {
        let (n, d) = (rows.n_rows(), rows.n_features());
        let used = used_features(rows.rows(0, n), d);
        let values = if used.len() == d {
            rows.feature_major()
        } else {
            let mut values = vec![0.0; n * used.len()];
            for (t, row) in rows.rows(0, n).chunks_exact(d.max(1)).enumerate() {
                for (k, &feature) in used.iter().enumerate() {
                    values[k * n + t] = row[feature];
                }
            }
            values
        };
        FeatureMajor { used, values }
    }

    /// The left rows (row-major, `d` wide) restricted to the features kept.
    pub(crate) fn left(&self, left: &[f64], d: usize) -> Vec<f64> {
        restrict(left, d, &self.used)
    }
}

/// The features of the row-major `values` (`d` wide) that are not zero in every row, in order.
pub(crate) fn used_features(values: &[f64], d: usize) -> Vec<usize> {
    let mut seen = vec![false; d];
    for row in values.chunks_exact(d.max(1)) {
        for (seen, &v) in seen.iter_mut().zip(row) {
            *seen |= v != 0.0;
        }
    }
    (0..d).filter(|&k| seen[k]).collect()
}

/// The row-major `values` (`d` wide) restricted to the features `used`.
pub(crate) fn restrict(values: &[f64], d: usize, used: &[usize]) -> Vec<f64> {
    values.chunks_exact(d.max(1)).flat_map(|row| used.iter().map(|&k| row[k])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::XorShift;

    #[test]
    fn feature_major_blocks_sum_each_output_in_feature_order() {
        // Widths that end in every kind of block (64, 32, 8 and single outputs).
        let (d, n) = (11, 64 * 3 + 32 + 8 + 5);
        let mut random = XorShift(0x2545_F491_4F6C_DD1D);
        let mut next = || random.uniform() - 0.5;
        let by_feature: Vec<f64> = (0..d * n).map(|_| next()).collect();
        let x: Vec<f64> = (0..d).map(|_| next()).collect();
        for first in [0, 3] {
            for width in [n - first, 71, 40, 9, 1] {
                let mut out = vec![f64::NAN; width];
                dot_feature_major(&[&x], &by_feature, n, first, &mut [&mut out]);
                // Fused multiply–adds from the AVX2 level on, separate ones below.
                let fma = level() >= Level::Avx2;
                for (c, value) in out.iter().enumerate() {
                    let mut expected = x[0] * by_feature[first + c];
                    for k in 1..d {
                        let z = by_feature[k * n + first + c];
                        expected =
                            if fma { x[k].mul_add(z, expected) } else { x[k] * z + expected };
                    }
                    assert_eq!(value.to_bits(), expected.to_bits(), "first {first}, column {c}");
                }
            }
        }
    }

    #[test]
    fn rows_sharing_a_pass_get_their_values_alone() {
        // Three left rows (one empty) over outputs of different lengths: the blocks they share
        // and the ones each finishes alone give every value bitwise as a pass of its own.
        let (d, n) = (7, 64 * 2 + 32 + 8 + 3);
        let by_feature: Vec<f64> = (0..d * n).map(|k| ((k as f64) * 0.618).sin()).collect();
        let rows: [Vec<f64>; 3] =
            [(0..d).map(|k| (k as f64).cos()).collect(), Vec::new(), vec![0.5; d]];
        for widths in [[n, n, n], [n - 2, 40, 75], [33, 200 - 40, 9]] {
            let first = 2;
            let widths = widths.map(|w| w.min(n - first));
            let mut together: Vec<Vec<f64>> = widths.iter().map(|&w| vec![f64::NAN; w]).collect();
            let left: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
            let mut outs: Vec<&mut [f64]> = together.iter_mut().map(Vec::as_mut_slice).collect();
            dot_feature_major(&left, &by_feature, n, first, &mut outs);
            for (r, row) in rows.iter().enumerate() {
                let mut alone = vec![f64::NAN; widths[r]];
                dot_feature_major(&[row], &by_feature, n, first, &mut [&mut alone]);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&together[r]), bits(&alone), "row {r}, widths {widths:?}");
            }
        }
    }
}
