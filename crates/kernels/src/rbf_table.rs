//! The RBF kernel of 0/1 rows by table lookup.
//!
//! For rows whose every stored value is `1` (one-hot and bag-of-words data: a9a, w8a), the inner
//! product `⟨x, z⟩` is the number of shared features and `‖x‖²`, `‖z‖²` are the numbers of
//! features, so the squared distance `m = ‖x‖² + ‖z‖² − 2⟨x, z⟩` is an integer in
//! `0..=2 · max ‖x‖²`. [`KernelFunction::map_row`] computes `exp(−γ m)` from it, with every
//! intermediate exact but the product `−γ · m`; the table holds exactly those values, computed
//! once by the same `exp` ([`crate::simd::exp_in_place`]), so a lookup is bitwise the value
//! `map_row` gives, for a fraction of its cost (the exponential was a large share of an a9a
//! fit).
//! The lookups are vectorised here too: AVX2 gathers, or, for a table of at most 32 values
//! (rows of at most 15 features, as a9a's), permutes of the table held in four AVX-512
//! registers, which made the lookups much cheaper (measurements: `docs/performance.md`, "RBF
//! table lookups").

use crate::function::KernelFunction;
use crate::simd::{level, Level};

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
        if !Self::fits(function, max_sq_norm) {
            return None;
        }
        let largest = 2.0 * max_sq_norm;
        // map_row's argument, −γ · max(m, 0), for each integer m.
        let mut values: Vec<f64> = (0..=largest as usize).map(|m| -gamma * m as f64).collect();
        crate::simd::exp_in_place(&mut values);
        Some(IntegerRbf { values })
    }

    /// Whether [`IntegerRbf::new`] builds a table for `function` and `max_sq_norm`.
    pub(crate) fn fits(function: KernelFunction, max_sq_norm: f64) -> bool {
        let largest = 2.0 * max_sq_norm;
        matches!(function, KernelFunction::Rbf { .. })
            && (0.0..MAX_ENTRIES as f64).contains(&largest)
            && max_sq_norm.fract() == 0.0
    }

    /// [`KernelFunction::map_row`] of the RBF for `values` holding the inner products of a
    /// 0/1 row of `sq_norm_x` features with 0/1 rows of `sq_norms_z` features.
    pub(crate) fn map_row(&self, values: &mut [f64], sq_norm_x: f64, sq_norms_z: &[f64]) {
        // Every count is an exact small integer, so each distance is one within the table.
        lookup_squared_distances(values, sq_norm_x, sq_norms_z, &self.values);
    }
}

/// `values[c] ← table[m]` with `m = sq_norm_x + sq_norms_z[c] − 2 values[c]` (for `c` below
/// the shorter length), `m` truncated to an integer and clamped to the table: the RBF of 0/1
/// rows by lookup, where every `m` is an exact count in range. A short table is read from
/// AVX-512 registers eight values at a time, a longer one by AVX2 gathers four at a time; every
/// version gives the same values for every `m` below `2^31` (and NaN).
///
/// # Panics
/// If `table` is empty or longer than `i32::MAX` entries.
fn lookup_squared_distances(values: &mut [f64], sq_norm_x: f64, sq_norms_z: &[f64], table: &[f64]) {
    assert!(!table.is_empty() && table.len() <= i32::MAX as usize, "lookup: bad table length");
    let n = values.len().min(sq_norms_z.len());
    let (values, sq_norms_z) = (&mut values[..n], &sq_norms_z[..n]);
    #[cfg(target_arch = "x86_64")]
    if level() >= Level::Avx2 {
        if table.len() <= SHORT_TABLE && level() >= Level::Avx512 {
            // SAFETY: AVX-512F and AVX2 are available (the level).
            unsafe { lookup_short_table_avx512(values, sq_norm_x, sq_norms_z, table) };
        } else {
            // SAFETY: AVX2 is available.
            unsafe { lookup_squared_distances_avx2(values, sq_norm_x, sq_norms_z, table) };
        }
        return;
    }
    lookup_tail(values, sq_norm_x, sq_norms_z, table);
}

/// Longest table [`lookup_short_table_avx512`] holds in registers (four of eight values).
const SHORT_TABLE: usize = 32;

/// [`lookup_squared_distances`] for a table of at most [`SHORT_TABLE`] values (rows of at most
/// 15 features: a9a's have 14), eight distances at a time, the table in four registers: two
/// two-register permutes and a blend on bit 4 of the index instead of a gather (AVX2's gathers
/// were a large share of an a9a fit: `docs/performance.md`, "RBF table lookups"). The
/// distances, their truncation and clamp are the AVX2 loop's, and each value is a table entry:
/// the same values bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2")]
fn lookup_short_table_avx512(
    values: &mut [f64],
    sq_norm_x: f64,
    sq_norms_z: &[f64],
    table: &[f64],
) {
    use std::arch::x86_64::{
        _mm256_max_epi32, _mm256_min_epi32, _mm256_set1_epi32, _mm256_setzero_si256, _mm512_add_pd,
        _mm512_cvtepi32_epi64, _mm512_cvttpd_epi32, _mm512_loadu_pd, _mm512_mask_blend_pd,
        _mm512_permutex2var_pd, _mm512_set1_epi64, _mm512_set1_pd, _mm512_storeu_pd, _mm512_sub_pd,
        _mm512_test_epi64_mask,
    };
    let n = values.len();
    assert!(sq_norms_z.len() == n && !table.is_empty() && table.len() <= SHORT_TABLE);
    let mut padded = [0.0f64; SHORT_TABLE];
    padded[..table.len()].copy_from_slice(table);
    // SAFETY: `padded` holds 32 values, four loads of eight.
    let [t0, t1, t2, t3] =
        std::array::from_fn(|r| unsafe { _mm512_loadu_pd(padded.as_ptr().add(8 * r)) });
    let norm_x = _mm512_set1_pd(sq_norm_x);
    let last = _mm256_set1_epi32(table.len() as i32 - 1);
    let upper_half = _mm512_set1_epi64(16);
    let mut k = 0;
    while k + 8 <= n {
        // SAFETY: k + 8 ≤ n, the length of `values` and `sq_norms_z`. Every index is clamped to
        // 0..table.len() (a NaN or out-of-range distance truncates to i32::MIN, which the clamp
        // sends to 0), so every value comes from the table, never from its padding.
        unsafe {
            let v = _mm512_loadu_pd(values.as_ptr().add(k));
            let sum = _mm512_add_pd(norm_x, _mm512_loadu_pd(sq_norms_z.as_ptr().add(k)));
            let distance = _mm512_sub_pd(sum, _mm512_add_pd(v, v));
            let index = _mm512_cvttpd_epi32(distance);
            let index = _mm256_min_epi32(_mm256_max_epi32(index, _mm256_setzero_si256()), last);
            let index = _mm512_cvtepi32_epi64(index);
            // Bits 0–3 choose among 16 values of two registers; bit 4 between the two pairs.
            let low = _mm512_permutex2var_pd(t0, index, t1);
            let high = _mm512_permutex2var_pd(t2, index, t3);
            let looked_up =
                _mm512_mask_blend_pd(_mm512_test_epi64_mask(index, upper_half), low, high);
            _mm512_storeu_pd(values.as_mut_ptr().add(k), looked_up);
        }
        k += 8;
    }
    lookup_tail(&mut values[k..], sq_norm_x, &sq_norms_z[k..], table);
}

#[inline(always)]
fn lookup_tail(values: &mut [f64], sq_norm_x: f64, sq_norms_z: &[f64], table: &[f64]) {
    let last = table.len() as i64 - 1;
    for (v, &sq_norm_z) in values.iter_mut().zip(sq_norms_z) {
        let distance = sq_norm_x + sq_norm_z - 2.0 * *v;
        *v = table[(distance as i64).clamp(0, last) as usize];
    }
}

/// [`lookup_squared_distances`] with AVX2 gathers, for equally long `values` and `sq_norms_z`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn lookup_squared_distances_avx2(
    values: &mut [f64],
    sq_norm_x: f64,
    sq_norms_z: &[f64],
    table: &[f64],
) {
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_cvttpd_epi32, _mm256_i32gather_pd, _mm256_loadu_pd, _mm256_set1_pd,
        _mm256_storeu_pd, _mm256_sub_pd, _mm_max_epi32, _mm_min_epi32, _mm_set1_epi32,
        _mm_setzero_si128,
    };
    let n = values.len();
    assert!(sq_norms_z.len() == n && !table.is_empty() && table.len() <= i32::MAX as usize);
    let norm_x = _mm256_set1_pd(sq_norm_x);
    let last = _mm_set1_epi32(table.len() as i32 - 1);
    let mut k = 0;
    while k + 4 <= n {
        // SAFETY: k + 4 ≤ n, the length of `values` and `sq_norms_z`; every gathered offset is
        // clamped to 0..table.len() (a NaN or out-of-range distance truncates to i32::MIN,
        // which the clamp sends to 0).
        unsafe {
            let v = _mm256_loadu_pd(values.as_ptr().add(k));
            let sum = _mm256_add_pd(norm_x, _mm256_loadu_pd(sq_norms_z.as_ptr().add(k)));
            let distance = _mm256_sub_pd(sum, _mm256_add_pd(v, v));
            let index = _mm256_cvttpd_epi32(distance);
            let index = _mm_min_epi32(_mm_max_epi32(index, _mm_setzero_si128()), last);
            let looked_up = _mm256_i32gather_pd::<8>(table.as_ptr(), index);
            _mm256_storeu_pd(values.as_mut_ptr().add(k), looked_up);
        }
        k += 4;
    }
    lookup_tail(&mut values[k..], sq_norm_x, &sq_norms_z[k..], table);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|v| v.to_bits()).collect()
    }

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

    #[test]
    fn lookups_clamp_to_the_table_in_both_versions() {
        let table: Vec<f64> = (0..9).map(|m| f64::from(m) * 10.0).collect();
        // Counts in range, then distances below 0, above the table, NaN and infinite.
        let mut values = vec![0.0, 1.0, 2.0, 3.0, 4.0, 9.0, -1.0, f64::NAN, 1e300, 0.5];
        let sq_norms_z = vec![3.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0];
        let mut plain = values.clone();
        lookup_squared_distances(&mut values, 4.0, &sq_norms_z, &table);
        lookup_tail(&mut plain, 4.0, &sq_norms_z, &table);
        let expected = [70.0, 60.0, 40.0, 20.0, 0.0, 0.0, 80.0, 0.0, 0.0, 70.0];
        assert_eq!(values, expected);
        assert_eq!(plain, expected);
    }

    #[test]
    fn short_tables_in_registers_give_the_gathered_values() {
        // Tables across the register boundaries (8, 16, 32 values) and past them (AVX2 path);
        // distances in range, below 0, past the table, NaN; every tail length.
        for table_len in [1, 2, 8, 9, 16, 17, 29, 32, 33] {
            let table: Vec<f64> = (0..table_len).map(|m| (-0.37 * m as f64).exp()).collect();
            for n in [0, 1, 7, 8, 9, 23, 64, 67] {
                let sq_norms_z: Vec<f64> = (0..n).map(|k| (k % 15) as f64).collect();
                let products: Vec<f64> = (0..n)
                    .map(|k| match k % 11 {
                        9 => f64::NAN,
                        10 => -3.0,
                        r => ((k * 7) % 15).min(k % 15) as f64 - (r % 3) as f64,
                    })
                    .collect();
                let mut dispatched = products.clone();
                lookup_squared_distances(&mut dispatched, 14.0, &sq_norms_z, &table);
                let mut plain = products.clone();
                lookup_tail(&mut plain, 14.0, &sq_norms_z, &table);
                assert_eq!(bits(&dispatched), bits(&plain), "table {table_len}, {n} values");
                #[cfg(target_arch = "x86_64")]
                if level() >= Level::Avx2 {
                    let mut gathered = products.clone();
                    // SAFETY: AVX2 is available (checked just above).
                    unsafe {
                        lookup_squared_distances_avx2(&mut gathered, 14.0, &sq_norms_z, &table)
                    };
                    assert_eq!(bits(&gathered), bits(&plain), "AVX2, table {table_len}, {n}");
                }
            }
        }
    }
}
