//! Exact RBF values where the expansion of the squared distance cancels.
//!
//! Every representation computes the RBF's squared distance from inner products,
//! `m̃ = ‖x‖² + ‖z‖² − 2⟨x, z⟩` ([`crate::KernelFunction::map_row`]): the inner products come in
//! blocks (a GEMM, SIMD lanes) and the norms from a sum of their own. Each term is rounded
//! relative to its own size, so `m̃` is off by about `u (‖x‖² + ‖z‖²)` and the kernel value
//! `e^(−γ m̃)` by the factor `e^(±γ u (‖x‖² + ‖z‖²))`, where `u = ε (4 + √d)` for rows of `d`
//! features (a typical error, not the worst case: sums in blocks round like a random walk) and
//! `ε` the precision of the products' sums (`f64`, or `f32` where one to three columns are
//! summed in `f32`).
//! Near the origin for their spread (the Python layer shifts RBF rows to their mean,
//! `_rbf_shift.py`) that is far below `1e-12`; for rows far apart in units of `γ^(−1/2)`
//! (unscaled features with `γ = 1`) it is not: two identical rows of norm `1e9` at `γ = 1` got
//! `K = 6.6e-112` instead of 1, and an SVC on them "converged" to decisions 1 off LIBSVM's.
//! (LIBSVM's training columns use the same expansion, but sum `⟨x, x⟩` and `‖x‖²` in one loop,
//! so that identical rows give exactly 0; its prediction sums the differences.)
//!
//! [`ExpansionGuard`] repairs those values. For a block whose largest bound
//! `γ u (max ‖x‖² + max ‖z‖²)` exceeds [`MAX_EXPONENT_ERROR`] (`f64` sums; 1.2e-4 for `f32`
//! sums, [`COARSE_ROUNDINGS`]), every value whose own bound does
//! is recomputed from `Σ_k (x_k − z_k)²` ([`crate::RowStore::sq_distance`]), whose rounding is
//! relative to the distance itself: unless it is certainly below the smallest double (computed
//! as 0 with a bound below 1: the true value is below `e^(−744)`). The repair depends only on
//! the value and the two norms, so it gives every block size and thread count the same values.
//! A block below the bound, every block of usual data, costs one comparison.

use crate::function::KernelFunction;

/// The largest error of `γ m̃` (the relative error of a kernel value) left unrepaired where the
/// inner products are summed in `f64`.
pub(crate) const MAX_EXPONENT_ERROR: f64 = 1e-9;

/// Where they are summed in a coarser precision `ε` (`f32`, for float32 input whose values the
/// cache stores in `f32` anyway), the largest error left is this many `ε` (1.2e-4 for `f32`):
/// that path's own rounding, about `ε (4 + √d) γ (‖x‖² + ‖z‖²)`, is its design for rows near
/// the origin, and only an expansion that cancels far beyond it is repaired.
const COARSE_ROUNDINGS: f64 = 1e3;

/// The repair of one block's RBF values (`None` from [`ExpansionGuard::for_block`] where the
/// block needs none).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExpansionGuard {
    gamma: f64,
    /// `γ u`: the bound of `γ m̃`'s error per unit of `‖x‖² + ‖z‖²`.
    per_norm: f64,
    /// The largest bound left unrepaired.
    limit: f64,
}

impl ExpansionGuard {
    /// The guard of a block of `function` over rows of `n_features` features whose inner
    /// products are rounded to `rounding` ([`crate::RowStore::rounding`]: `ε` of `f64` or `f32`)
    /// and whose left rows have the squared norms `left_norms` and right rows norms of at most
    /// `max_right`: `None` for another kernel (before anything is computed) or where no value
    /// of the block can be off by more than [`MAX_EXPONENT_ERROR`] (or [`COARSE_ROUNDINGS`]
    /// times a coarser `rounding`).
    pub(crate) fn for_block(
        function: KernelFunction,
        n_features: usize,
        rounding: f64,
        left_norms: &[f64],
        max_right: f64,
    ) -> Option<ExpansionGuard> {
        let KernelFunction::Rbf { gamma } = function else { return None };
        let per_norm = gamma * rounding * (4.0 + (n_features as f64).sqrt());
        let limit = MAX_EXPONENT_ERROR.max(COARSE_ROUNDINGS * rounding);
        // Norms that overflowed to infinity repair every value.
        (per_norm * (largest(left_norms) + max_right) > limit).then_some(ExpansionGuard {
            gamma,
            per_norm,
            limit,
        })
    }

    /// Recomputes the values of `row` (kernel values of the left row of norm `left_norm` with
    /// the rows of norms `right_norms`) whose expansion may be off, `sq_distance(c)` giving
    /// `‖x − z_c‖²` summed from the differences.
    pub(crate) fn repair(
        &self,
        row: &mut [f64],
        left_norm: f64,
        right_norms: &[f64],
        sq_distance: impl Fn(usize) -> f64,
    ) {
        for (c, (value, &right_norm)) in row.iter_mut().zip(right_norms).enumerate() {
            let bound = self.per_norm * (left_norm + right_norm);
            if bound > self.limit && (*value > 0.0 || bound >= 1.0) {
                *value = (-self.gamma * sq_distance(c)).exp();
            }
        }
    }
}

/// The largest of `values` (0 for none; NaN-free norms).
pub(crate) fn largest(values: &[f64]) -> f64 {
    values.iter().copied().fold(0.0, f64::max)
}

/// `Σ_k (a_k − b_k)²` of two rows of the same length (values widened to `f64` exactly, so an
/// `f64` row and an `f32` one can be compared without a copy).
pub(crate) fn dense_sq_distance<A, B>(a: &[A], b: &[B]) -> f64
where
    A: Copy + Into<f64>,
    B: Copy + Into<f64>,
{
    a.iter().zip(b).map(|(&x, &z)| (x.into() - z.into()).powi(2)).sum()
}

/// `Σ_k (x_k − z_k)²` of a dense row `x` and a sparse row `z` with strictly increasing indices.
pub(crate) fn dense_sparse_sq_distance(x: &[f64], z: (&[u32], &[f64])) -> f64 {
    let (indices, values) = z;
    let mut stored = indices.iter().zip(values).peekable();
    let mut sum = 0.0;
    for (k, &x_k) in x.iter().enumerate() {
        let z_k = match stored.peek() {
            Some(&(&index, &value)) if index as usize == k => {
                stored.next();
                value
            }
            _ => 0.0,
        };
        sum += (x_k - z_k).powi(2);
    }
    sum
}

/// `Σ_k (a_k − b_k)²` of two sparse rows with strictly increasing indices, by merging them
/// (a row that has run out reads as index `u64::MAX`).
pub(crate) fn sparse_sq_distance(a: (&[u32], &[f64]), b: (&[u32], &[f64])) -> f64 {
    let ((a_indices, a_values), (b_indices, b_values)) = (a, b);
    let at = |indices: &[u32], i: usize| indices.get(i).map_or(u64::MAX, |&k| u64::from(k));
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < a_indices.len() || j < b_indices.len() {
        let (p, q) = (at(a_indices, i), at(b_indices, j));
        let x = if p <= q {
            i += 1;
            a_values[i - 1]
        } else {
            0.0
        };
        let z = if q <= p {
            j += 1;
            b_values[j - 1]
        } else {
            0.0
        };
        sum += (x - z) * (x - z);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_blocks_need_no_guard() {
        let rbf = KernelFunction::Rbf { gamma: 0.5 };
        assert!(ExpansionGuard::for_block(rbf, 123, f64::EPSILON, &[15.0], 15.0).is_none());
        assert!(ExpansionGuard::for_block(
            KernelFunction::Linear,
            2,
            f64::EPSILON,
            &[1e300],
            1e300
        )
        .is_none());
        assert!(ExpansionGuard::for_block(rbf, 2, f64::EPSILON, &[1e18], 0.0).is_some());
        assert!(ExpansionGuard::for_block(rbf, 2, f64::EPSILON, &[f64::INFINITY], 0.0).is_some());
        // f32 sums: their own rounding at usual norms is no reason to repair.
        let single = f64::from(f32::EPSILON);
        assert!(ExpansionGuard::for_block(rbf, 100, single, &[15.0], 15.0).is_none());
        assert!(ExpansionGuard::for_block(rbf, 100, single, &[1e4], 1e4).is_some());
    }

    #[test]
    fn repair_recomputes_only_values_that_may_be_off() {
        let guard = ExpansionGuard::for_block(
            KernelFunction::Rbf { gamma: 1.0 },
            2,
            f64::EPSILON,
            &[1e18],
            1e18,
        )
        .expect("a guard");
        // Norms 1e18 (bound ≈ 1e3): every value, zero or not; norms 1 (bound ≈ 1e-15): none.
        let mut row = [0.0, 0.25, 0.0, 0.5];
        guard.repair(&mut row, 1e18, &[1e18, 1e18, 1.0, 1.0], |c| c as f64);
        assert_eq!(row, [1.0, (-1.0f64).exp(), (-2.0f64).exp(), (-3.0f64).exp()]);
        let mut row = [0.0, 0.25];
        guard.repair(&mut row, 1.0, &[1.0, 1.0], |_| 0.0);
        assert_eq!(row, [0.0, 0.25]);
        // A bound between 1e-9 and 1: a value computed as 0 is certainly negligible.
        let mut row = [0.0, 0.25];
        guard.repair(&mut row, 1e8, &[1e8, 1e8], |_| 0.0);
        assert_eq!(row, [0.0, 1.0]);
    }

    #[test]
    fn distances_of_sparse_rows_match_the_dense_ones() {
        let a = [0.0, 1.5, 0.0, -2.0, 0.0];
        let b = [3.0, 1.0, 0.0, 0.0, 0.25];
        let sparse = |x: &[f64]| -> (Vec<u32>, Vec<f64>) {
            let kept: Vec<usize> = (0..x.len()).filter(|&k| x[k] != 0.0).collect();
            (kept.iter().map(|&k| k as u32).collect(), kept.iter().map(|&k| x[k]).collect())
        };
        let expected = dense_sq_distance(&a, &b);
        assert_eq!(expected, 9.0 + 0.25 + 4.0 + 0.0625);
        let (sa, sb) = (sparse(&a), sparse(&b));
        assert_eq!(dense_sparse_sq_distance(&a, (&sb.0, &sb.1)), expected);
        assert_eq!(sparse_sq_distance((&sa.0, &sa.1), (&sb.0, &sb.1)), expected);
        assert_eq!(sparse_sq_distance((&sb.0, &sb.1), (&sa.0, &sa.1)), expected);
        assert_eq!(
            sparse_sq_distance((&[], &[]), (&sb.0, &sb.1)),
            dense_sq_distance(&[0.0; 5], &b)
        );
    }
}
