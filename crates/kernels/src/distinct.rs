//! Repeated rows computed once: a kernel column over the distinct rows, gathered to positions.
//!
//! Data with categorical or coarsely quantised features often repeats rows: of a 20,000-row
//! sample of KDD Cup '99, 8,181 rows are distinct. Identical rows have identical kernel values
//! against any row (the same products summed in the same order, the same norm, the same map),
//! so a column `K[i, start..end]` is the column over the distinct rows, `K[i, u]` for each
//! distinct row `u`, read through the position → distinct-row index. That is bitwise the column
//! computed position by position: the solver's path (working sets, iterations, objective) does
//! not change, only the number of products and exponentials does.
//!
//! The distinct rows never move; shrinking's swaps exchange two entries of the index. A window
//! not much wider than the number of distinct rows (a shrunken active set) is cheaper to compute
//! directly, and so is a block of many rows, which the direct path computes as one GEMM unless
//! the distinct rows are few; the owner decides with [`DistinctRows::pays_for`].

use crate::dense::DenseRows;
use crate::dense_stores::GEMM_MIN_ROWS;
use crate::feature_major::{restrict, used_features};
use crate::function::KernelFunction;
use crate::panels::{to_panels, PANEL_ROWS};
use crate::parallel::{
    for_column_chunks, ColumnWindows, COLUMN_CHUNK, PARALLEL_MIN_LEN, PARALLEL_MIN_WORK,
};
use crate::repeats::{dense_digest, digests, same_bits, FirstSeen};
use crate::source::Finish;

// Chunks of the distinct rows start on a panel.
const _: () = assert!(COLUMN_CHUNK.is_multiple_of(PANEL_ROWS));

/// For a block of [`GEMM_MIN_ROWS`] rows or more (the batched engine's prefetches, gradient
/// initialisation and reconstruction), which the direct path computes by one GEMM, the
/// fraction below which the distinct rows still pay: above it, the panel products over the
/// distinct rows and the gather back to the positions cost more than the direct path's one GEMM
/// (measurements: `docs/performance.md`, "Distinct rows").
const MAX_DISTINCT_FRACTION_IN_BLOCKS: f64 = 0.15;

/// The distinct rows of a dense row set, and which one each position holds.
#[derive(Debug, Clone)]
pub(crate) struct DistinctRows {
    /// The distinct rows, in order of first occurrence, with their norms.
    rows: DenseRows<'static>,
    /// The features not zero in every row (those of [`crate::feature_major::FeatureMajor`]:
    /// every row is one of the distinct rows).
    used: Vec<usize>,
    /// The same rows over the features `used`, in panels of sixteen
    /// ([`crate::panels::to_panels`]).
    panels: Vec<f64>,
    /// `of_position[t]`: the distinct row at position `t`.
    of_position: Vec<u32>,
}

impl DistinctRows {
    /// The distinct rows of `rows`, when there are enough rows and few enough distinct ones
    /// for a column over them to pay (else `None`). Rows are compared by their values' bits,
    /// `-0.0` read as `0.0` ([`crate::repeats`]).
    pub(crate) fn find(rows: &DenseRows<'_>) -> Option<DistinctRows> {
        let (n, d) = (rows.n_rows(), rows.n_features());
        // `plan::uses_repeats`: the search stops at the first distinct row too many.
        if !crate::plan::uses_repeats(n, 0) || d == 0 {
            return None;
        }
        let most = crate::plan::most_distinct_rows(n);
        let digests = digests(n, |t| dense_digest(rows.row(t)));
        let mut seen = FirstSeen::new(&digests);
        // `distinct_of[s]`: the distinct row of a first occurrence `s`.
        let mut distinct_of = vec![0u32; n];
        let mut of_position = Vec::with_capacity(n);
        let mut firsts = Vec::new();
        for t in 0..n {
            let s = seen.first(t, |s, t| same_bits(rows.row(s), rows.row(t)));
            if s == t {
                if firsts.len() == most {
                    return None;
                }
                distinct_of[t] = firsts.len() as u32;
                firsts.push(t);
            }
            of_position.push(distinct_of[s]);
        }
        let m = firsts.len();
        let values: Vec<f64> = firsts.iter().flat_map(|&t| rows.row(t).iter().copied()).collect();
        let used = used_features(&values, d);
        let panels = to_panels(&restrict(&values, d, &used), m, used.len());
        let rows = DenseRows::from_vec(values, m, d).ok()?;
        Some(DistinctRows { rows, used, panels, of_position })
    }

    /// The distinct rows.
    pub(crate) fn rows(&self) -> &DenseRows<'static> {
        &self.rows
    }

    /// `out[r · m + u] = K(left[r], u)` for every distinct row `u` (`out` is `n_left × m`),
    /// each value bitwise as the feature-major column computes it: the same products summed in
    /// the same order ([`crate::panels::dot_panels`]), then the same map. In parallel over fixed
    /// chunks of panels.
    pub(crate) fn columns(
        &self,
        left: &[&[f64]],
        left_norms: &[f64],
        function: KernelFunction,
        out: &mut [f64],
    ) {
        let m = self.rows.n_rows();
        assert_eq!(out.len(), left.len() * m, "columns: output has the wrong length");
        let norms = self.rows.sq_norms();
        let d = self.rows.n_features();
        let left_used: Vec<Vec<f64>> = left.iter().map(|x| restrict(x, d, &self.used)).collect();
        let windows = ColumnWindows::new(out, m);
        let window = |c0: usize, c1: usize| {
            for (r, x) in left_used.iter().enumerate() {
                // SAFETY: the task owns columns c0..c1, one window per row alive at a time.
                let to = unsafe { windows.row(r, c0, c1) };
                crate::panels::dot_panels(x, &self.panels, c0 / PANEL_ROWS, to);
                function.map_row(to, left_norms[r], &norms[c0..c1]);
            }
        };
        for_column_chunks(m, left.len() * m * self.rows.n_features() < PARALLEL_MIN_WORK, window);
    }

    /// Whether a window of `width` positions for `n_left` rows is cheaper through the distinct
    /// rows: all of them are computed, then `width` values gathered, against `width` values
    /// computed directly, by one GEMM from [`GEMM_MIN_ROWS`] rows on
    /// ([`MAX_DISTINCT_FRACTION_IN_BLOCKS`]).
    pub(crate) fn pays_for(&self, width: usize, n_left: usize) -> bool {
        let most = if n_left < GEMM_MIN_ROWS {
            crate::plan::MAX_DISTINCT_FRACTION
        } else {
            MAX_DISTINCT_FRACTION_IN_BLOCKS
        };
        (self.rows.n_rows() as f64) < most * width as f64
    }

    /// Exchanges positions `i` and `j`.
    pub(crate) fn swap_index(&mut self, i: usize, j: usize) {
        self.of_position.swap(i, j);
    }

    /// `out[r · width + c] = over_distinct[r · m + of_position[start + c]]` for every row `r`
    /// of the row-major `over_distinct` (`n_left × m`), `width = end − start`; each window is
    /// finished as soon as it is gathered.
    pub(crate) fn gather(
        &self,
        over_distinct: &[f64],
        start: usize,
        end: usize,
        out: &mut [f64],
        finish: Finish<'_>,
    ) {
        let (m, width) = (self.rows.n_rows(), end - start);
        let n_left = over_distinct.len() / m;
        assert_eq!(out.len(), n_left * width, "gather: output has the wrong length");
        let of_position = &self.of_position[start..end];
        let windows = ColumnWindows::new(out, width);
        let window = |c0: usize, c1: usize| {
            for r in 0..n_left {
                let from = &over_distinct[r * m..(r + 1) * m];
                // SAFETY: the task owns columns c0..c1, one window per row alive at a time.
                let to = unsafe { windows.row(r, c0, c1) };
                for (o, &u) in to.iter_mut().zip(&of_position[c0..c1]) {
                    *o = from[u as usize];
                }
                finish(r, c0, to);
            }
        };
        for_column_chunks(width, width < PARALLEL_MIN_LEN, window);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeated(n: usize, d: usize, distinct: usize) -> Vec<f64> {
        (0..n)
            .flat_map(|t| (0..d).map(move |k| ((t * 7 % distinct) * 31 + k) as f64 / 9.0))
            .collect()
    }

    #[test]
    fn finds_distinct_rows_in_order_of_first_occurrence() {
        let (n, d) = (2000, 3);
        let values = repeated(n, d, 300);
        let rows = DenseRows::new(&values, n, d).unwrap();
        let distinct = DistinctRows::find(&rows).unwrap();
        assert_eq!(distinct.rows().n_rows(), 300);
        for t in 0..n {
            assert_eq!(distinct.rows().row(distinct.of_position[t] as usize), rows.row(t));
        }
        // Panels of sixteen rows, the last one padded.
        assert_eq!(distinct.panels.len(), 304 * d);
        for u in 0..300 {
            for k in 0..d {
                assert_eq!(
                    distinct.panels[(u / 16 * d + k) * 16 + u % 16],
                    distinct.rows().row(u)[k]
                );
            }
        }
        assert!(distinct.panels[(18 * d) * 16..].iter().skip(12).step_by(16).all(|&v| v == 0.0));
    }

    #[test]
    fn few_rows_or_mostly_distinct_rows_are_left_alone() {
        let values = repeated(500, 2, 10);
        assert!(DistinctRows::find(&DenseRows::new(&values, 500, 2).unwrap()).is_none());
        let values = repeated(3000, 2, 2900);
        assert!(DistinctRows::find(&DenseRows::new(&values, 3000, 2).unwrap()).is_none());
        // Rows (−0.0, v) and (0.0, v) are one row: no kernel tells the two zeros apart.
        let mut values = repeated(2000, 2, 100);
        values[0] = -0.0;
        values[2] = 0.0;
        values[3] = values[1];
        let distinct = DistinctRows::find(&DenseRows::new(&values, 2000, 2).unwrap()).unwrap();
        assert_eq!(distinct.of_position[0], distinct.of_position[1]);
    }

    #[test]
    fn blocks_take_the_distinct_rows_only_when_few() {
        let (n, d) = (5000, 2);
        for (distinct_rows, single, block) in [(40, true, true), (1500, true, false)] {
            let values = repeated(n, d, distinct_rows);
            let distinct = DistinctRows::find(&DenseRows::new(&values, n, d).unwrap()).unwrap();
            assert_eq!(distinct.rows().n_rows(), distinct_rows);
            assert_eq!(distinct.pays_for(n, 1), single);
            assert_eq!(distinct.pays_for(n, GEMM_MIN_ROWS - 1), single);
            assert_eq!(distinct.pays_for(n, GEMM_MIN_ROWS), block);
            // A window not much wider than the distinct rows is computed directly.
            assert!(!distinct.pays_for(distinct_rows, 1));
        }
    }

    #[test]
    fn gather_follows_swapped_positions() {
        let (n, d) = (5000, 2);
        let values = repeated(n, d, 40);
        let mut distinct = DistinctRows::find(&DenseRows::new(&values, n, d).unwrap()).unwrap();
        distinct.swap_index(3, 4500);
        let over: Vec<f64> = (0..2 * 40).map(|k| k as f64).collect();
        let (start, end) = (2, n);
        let mut out = vec![0.0; 2 * (end - start)];
        distinct.gather(&over, start, end, &mut out, crate::source::NO_FINISH);
        for r in 0..2 {
            for t in start..end {
                let u = distinct.of_position[t] as usize;
                assert_eq!(out[r * (end - start) + t - start], over[r * 40 + u]);
            }
        }
    }
}
