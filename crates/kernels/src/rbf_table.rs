//! The RBF kernel of 0/1 rows by table lookup.
//!
//! For rows whose every stored value is `1` (one-hot and bag-of-words data: a9a, w8a), the inner
//! product `⟨x, z⟩` is the number of shared features and `‖x‖²`, `‖z‖²` are the numbers of
//! features, so the squared distance `m = ‖x‖² + ‖z‖² − 2⟨x, z⟩` is an integer in
//! `0..=2 · max ‖x‖²`. [`KernelFunction::map_row`] computes `exp(−γ m)` from it, with every
//! intermediate exact but the product `−γ · m`; the table holds exactly those values, computed
//! once by the same `exp` ([`crate::simd::exp_in_place`]), so a lookup is bitwise the value
//! `map_row` gives, for a fraction of its cost (the exponential was a quarter of an a9a fit).

use crate::function::KernelFunction;

/// Longest table kept (rows of up to half this many features).
const MAX_ENTRIES: usize = 1 << 20;

/// `exp(−γ m)` for every integer squared distance `m` of 0/1 rows.
#[derive(Debug, Clone)]
pub(crate) struct IntegerRbf {
    values: Vec<f64>,
}

impl IntegerRbf {
    /// The table for the RBF `function` over 0/1 rows of at most `max_sq_norm` features
    /// (`None` for another kernel, or a table longer than [`MAX_ENTRIES`]).
    pub(crate) fn new(function: KernelFunction, max_sq_norm: f64) -> Option<IntegerRbf> {
        let KernelFunction::Rbf { gamma } = function else { return None };
        let largest = 2.0 * max_sq_norm;
        if !(0.0..MAX_ENTRIES as f64).contains(&largest) || max_sq_norm.fract() != 0.0 {
            return None;
        }
        // map_row's argument, −γ · max(m, 0), for each integer m.
        let mut values: Vec<f64> = (0..=largest as usize).map(|m| -gamma * m as f64).collect();
        crate::simd::exp_in_place(&mut values);
        Some(IntegerRbf { values })
    }

    /// [`KernelFunction::map_row`] of the RBF for `values` holding the inner products of a
    /// 0/1 row of `sq_norm_x` features with 0/1 rows of `sq_norms_z` features.
    pub(crate) fn map_row(&self, values: &mut [f64], sq_norm_x: f64, sq_norms_z: &[f64]) {
        // Every count is an exact small integer, so each distance is one within the table.
        crate::simd::lookup_squared_distances(values, sq_norm_x, sq_norms_z, &self.values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_are_bitwise_map_row() {
        let function = KernelFunction::Rbf { gamma: 0.37 };
        let table = IntegerRbf::new(function, 40.0).unwrap();
        let sq_norms_z: Vec<f64> = (0..=40).map(f64::from).collect();
        for sq_norm_x in [0.0, 1.0, 17.0, 40.0] {
            // Every count the norms allow.
            let counts: Vec<f64> =
                sq_norms_z.iter().map(|&z| (z.min(sq_norm_x) * 0.6).floor()).collect();
            let mut expected = counts.clone();
            function.map_row(&mut expected, sq_norm_x, &sq_norms_z);
            let mut got = counts;
            table.map_row(&mut got, sq_norm_x, &sq_norms_z);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&expected), "‖x‖² = {sq_norm_x}");
        }
    }

    #[test]
    fn binary_sparse_columns_are_bitwise_map_row_of_the_counts() {
        use crate::source::KernelSource;
        use crate::sparse::{CsrRows, SparseKernel};
        let (n, d) = (500, 120);
        let values: Vec<f64> =
            (0..n * d).map(|k| f64::from(u8::from((k * 7 + k / d) % 11 < 2))).collect();
        let function = KernelFunction::Rbf { gamma: 0.11 };
        let mut kernel =
            SparseKernel::new(CsrRows::from_dense(&values, n, d).unwrap(), function).unwrap();
        assert!(kernel.looks_up_rbf());
        // The positions are permuted as shrinking does; `order[p]` is the row at position p.
        let mut order: Vec<usize> = (0..n).collect();
        for (i, j) in [(0, 450), (3, 9), (77, 499)] {
            kernel.swap_index(i, j);
            order.swap(i, j);
        }
        let row = |p: usize| &values[order[p] * d..(order[p] + 1) * d];
        let count = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, z)| x * z).sum::<f64>();
        for requested in [vec![3], vec![0, 499], vec![9, 1, 77]] {
            let (start, end) = (2, n);
            let mut got = vec![0.0; requested.len() * (end - start)];
            kernel.fill_block(&requested, start, end, &mut got);
            for (r, &i) in requested.iter().enumerate() {
                let mut expected: Vec<f64> = (start..end).map(|p| count(row(i), row(p))).collect();
                let norms: Vec<f64> = (start..end).map(|p| count(row(p), row(p))).collect();
                function.map_row(&mut expected, count(row(i), row(i)), &norms);
                let window = &got[r * (end - start)..(r + 1) * (end - start)];
                let same = window.iter().zip(&expected).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "column of position {i}");
            }
        }
    }

    #[test]
    fn only_the_rbf_of_integer_norms_gets_a_table() {
        assert!(IntegerRbf::new(KernelFunction::Linear, 10.0).is_none());
        assert!(IntegerRbf::new(KernelFunction::Rbf { gamma: 1.0 }, 2.5).is_none());
        assert!(IntegerRbf::new(KernelFunction::Rbf { gamma: 1.0 }, 1e9).is_none());
        assert_eq!(IntegerRbf::new(KernelFunction::Rbf { gamma: 1.0 }, 0.0).unwrap().values, [1.0]);
    }
}
