//! AID's initial clusters (Park & Klabjan §4, §5.2; the unspecified details are resolved as the
//! digest §7.9 recommends).
//!
//! * LAD: fit LAD on a random sample of `max(10·d, 1000)` rows, compute every row's residual
//!   `r_i`, standardise the pairs `(r_i, y_i)` and run k-means on them.
//! * SVM: fit the SVM on a random sample of `max(10·d, 1000)` rows (with the kernel), compute
//!   every row's signed decision value, and run one-dimensional k-means on it **per class** (the
//!   paper "runs the clustering algorithm twice"), `k` shared in proportion to the class sizes.
//! * S3VM: k-means on the features, per group (labeled +1, labeled −1, unlabeled).
//!
//! k-means is [`weighted_kmeans`] with one Lloyd iteration after k-means++ seeding ("one
//! iteration of k-means", §4). [`Initial::Random`] draws a uniformly random partition into `k`
//! clusters (then made group-pure); [`Initial::Given`] takes the caller's cluster ids.

use kernelkit_kernels::{kernel_block, DenseRows, KernelFunction};
use rayon::prelude::*;

use crate::aid::kmeans::weighted_kmeans;
use crate::aid::lad::{residual, ClarabelLp, WeightedLad};
use crate::aid::partition::Partition;
use crate::aid::svm::{linear_decision, linear_weights};
use crate::formulations::c_svc;
use crate::frank_wolfe::search::Random;
use crate::protocol::{Monitor, SolveError, SolveOptions, Solver, Status};

/// How AID's first partition is made.
#[derive(Debug, Clone, PartialEq)]
pub enum Initial {
    /// The paper's recipe with `k` clusters in all.
    KMeans {
        /// Number of clusters.
        k: usize,
        /// Seed of the sample and the k-means++ seeding.
        seed: u64,
    },
    /// A uniformly random partition into `k` clusters.
    Random {
        /// Number of clusters.
        k: usize,
        /// Seed.
        seed: u64,
    },
    /// The caller's cluster id for every row (any integers).
    Given(Vec<i64>),
}

/// Rows fitted on by the sample-based recipes.
fn sample_size(n: usize, d: usize) -> usize {
    n.min((10 * d).max(1000))
}

/// The rows (sorted) the k-means starts of LAD and the SVM fit their model on, for `n` rows of
/// `d` columns (LAD: with any intercept column).
pub fn initial_sample(n: usize, d: usize, seed: u64) -> Vec<usize> {
    let mut rows = Random::new(seed ^ 0x5EED).distinct(0, n, sample_size(n, d));
    rows.sort_unstable();
    rows
}

/// The SplitMix64 increment: the generator's state after `t` draws is `seed + t · GOLDEN`.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// Rows `start .. start + count` of [`Initial::Random`]'s partition into `k` clusters (one
/// uniform draw in `0..k` per row, by rejection), computed without the rows before `start`,
/// and whether a draw of these rows was rejected. A rejection (probability below `k / 2^64`
/// per row) shifts the stream of every later row: rows computed from a later `start` then
/// differ from `random_labels_from(0, n, ..)`'s.
pub fn random_labels_from(start: usize, count: usize, k: usize, seed: u64) -> (Vec<i64>, bool) {
    let k = k.max(1) as u64;
    let zone = u64::MAX - u64::MAX % k;
    let mut random = Random::new(seed.wrapping_add((start as u64).wrapping_mul(GOLDEN)));
    let mut rejected = false;
    let labels = (0..count)
        .map(|_| loop {
            let v = random.next_u64();
            if v < zone {
                break (v % k) as i64;
            }
            rejected = true;
        })
        .collect();
    (labels, rejected)
}

/// The seed of the k-means of group `group` (the per-group k-means of the SVM and S3VM
/// starts; LAD's one k-means is group 0).
pub fn group_seed(seed: u64, group: usize) -> u64 {
    seed.wrapping_add(group as u64)
}

/// Checks `k` against `n`.
fn check_k(k: usize, n: usize) -> Result<(), SolveError> {
    if k == 0 || k > n {
        return Err(SolveError::invalid(
            "n_clusters",
            format!("{k} must be between 1 and the number of rows {n}"),
        ));
    }
    Ok(())
}

/// Per-row cluster ids from `initial`; `kmeans(k, seed)` makes the model's k-means start.
fn start_labels(
    initial: &Initial,
    n: usize,
    kmeans: impl FnOnce(usize, u64) -> Result<Vec<i64>, SolveError>,
) -> Result<Vec<i64>, SolveError> {
    match initial {
        Initial::Given(labels) => Ok(labels.clone()),
        Initial::Random { k, seed } => {
            check_k(*k, n)?;
            Ok(random_labels_from(0, n, *k, *seed).0)
        }
        Initial::KMeans { k, seed } => {
            check_k(*k, n)?;
            kmeans(*k, *seed)
        }
    }
}

/// `k` split over groups in proportion to their sizes, at least 1 each (groups absent get 0).
pub fn share(k: usize, group_sizes: &[usize]) -> Vec<usize> {
    let n: usize = group_sizes.iter().sum();
    group_sizes
        .iter()
        .map(|&s| {
            if s == 0 {
                0
            } else {
                ((k as f64 * s as f64 / n as f64).round() as usize).clamp(1, s)
            }
        })
        .collect()
}

/// k-means within each group (`group[i] < groups`), each on its own `values` (`dim` per row).
fn kmeans_per_group(
    values: &[f64],
    dim: usize,
    group: &[u8],
    groups: usize,
    k: usize,
    seed: u64,
) -> Vec<i64> {
    let n = group.len();
    let sizes: Vec<usize> =
        (0..groups).map(|g| group.iter().filter(|&&v| v as usize == g).count()).collect();
    let ks = share(k, &sizes);
    let mut labels = vec![0i64; n];
    for (g, &k_group) in ks.iter().enumerate() {
        let rows: Vec<usize> = (0..n).filter(|&i| group[i] as usize == g).collect();
        if rows.is_empty() {
            continue;
        }
        let points: Vec<f64> =
            rows.iter().flat_map(|&i| values[i * dim..(i + 1) * dim].iter().copied()).collect();
        let found =
            weighted_kmeans(&points, dim, &vec![1.0; rows.len()], k_group, 1, group_seed(seed, g));
        for (&i, &c) in rows.iter().zip(&found) {
            labels[i] = ((g as i64) << 32) + i64::from(c);
        }
    }
    labels
}

/// The first partition of LAD over `x` (`n × d`, with any intercept column) and `y`.
/// `monitor` watches the LP on a sample (k-means start): a Ctrl-C there ends the start with
/// [`SolveError::Interrupted`].
pub fn lad_partition(
    x: &[f64],
    d: usize,
    y: &[f64],
    initial: &Initial,
    monitor: &mut dyn Monitor,
) -> Result<Partition, SolveError> {
    let n = y.len();
    let labels = start_labels(initial, n, |k, seed| {
        let rows = initial_sample(n, d, seed);
        let mut sample = WeightedLad {
            x: rows.iter().flat_map(|&i| x[i * d..(i + 1) * d].iter().copied()).collect(),
            d,
            y: rows.iter().map(|&i| y[i]).collect(),
            weights: vec![1.0; rows.len()],
        };
        let options = SolveOptions { tol: 1e-8, ..SolveOptions::default() };
        let solution = ClarabelLp.solve(&mut sample, &options, monitor)?;
        if monitor.interrupted() {
            return Err(SolveError::Interrupted);
        }
        let beta = solution.x;
        let residuals: Vec<f64> = x
            .par_chunks(d.max(1))
            .zip(y.par_iter())
            .map(|(row, &t)| residual(row, t, &beta))
            .collect();
        let points = standardized_pairs(&residuals, y);
        Ok(weighted_kmeans(&points, 2, &vec![1.0; n], k, 1, group_seed(seed, 0))
            .into_iter()
            .map(i64::from)
            .collect())
    })?;
    Partition::from_labels(&labels)
}

/// `(r_i, y_i)` with each column scaled to mean 0 and variance 1 (a constant column stays 0).
fn standardized_pairs(a: &[f64], b: &[f64]) -> Vec<f64> {
    let standardize = |v: &[f64]| -> Vec<f64> {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        v.iter().map(|x| if sd > 0.0 { (x - mean) / sd } else { 0.0 }).collect()
    };
    let (a, b) = (standardize(a), standardize(b));
    a.iter().zip(&b).flat_map(|(u, v)| [*u, *v]).collect()
}

/// The first partition of the SVM (labels ±1), label-pure. `monitor` watches the SVM on a
/// sample (k-means start): a Ctrl-C there ends the start with [`SolveError::Interrupted`].
#[allow(clippy::too_many_arguments)]
pub fn svm_partition(
    x: &[f64],
    d: usize,
    y: &[i8],
    c: f64,
    kernel: KernelFunction,
    initial: &Initial,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Partition, SolveError> {
    let n = y.len();
    let group: Vec<u8> = y.iter().map(|&l| u8::from(l > 0)).collect();
    let labels = start_labels(initial, n, |k, seed| {
        let decision = sample_svm_decision(x, d, y, c, kernel, seed, options, monitor)?;
        Ok(kmeans_per_group(&decision, 1, &group, 2, k, seed))
    })?;
    Ok(Partition::from_labels(&labels)?.refine_by(&group))
}

/// The decision values on every row of a C-SVM fitted on a random sample (0 everywhere when the
/// sample has one class only).
#[allow(clippy::too_many_arguments)]
fn sample_svm_decision(
    x: &[f64],
    d: usize,
    y: &[i8],
    c: f64,
    kernel: KernelFunction,
    seed: u64,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Vec<f64>, SolveError> {
    let n = y.len();
    let rows = initial_sample(n, d, seed);
    let labels: Vec<i8> = rows.iter().map(|&i| y[i]).collect();
    if !(labels.contains(&1) && labels.contains(&-1)) {
        return Ok(vec![0.0; n]);
    }
    let values: Vec<f64> =
        rows.iter().flat_map(|&i| x[i * d..(i + 1) * d].iter().copied()).collect();
    let sample = DenseRows::from_vec(values, rows.len(), d)?;
    let source = kernelkit_kernels::DenseKernel::new(sample.clone(), kernel)?;
    let options = SolveOptions { tol: 1e-3, ..options.clone() };
    let solution = c_svc(source, &labels, vec![c; rows.len()], &options, monitor)?;
    if solution.status == Status::Stopped && monitor.interrupted() {
        return Err(SolveError::Interrupted);
    }
    let support: Vec<usize> = (0..rows.len()).filter(|&s| solution.x[s] > 0.0).collect();
    let coef: Vec<f64> = support.iter().map(|&s| solution.x[s] * f64::from(labels[s])).collect();
    let sv_values: Vec<f64> = support.iter().flat_map(|&s| sample.row(s).iter().copied()).collect();
    sample_decision(x, d, &sv_values, &coef, solution.bias, kernel)
}

/// `b + Σ_s coef_s K(sv_s, x_i)` for every row of `x` (`n × d`; `sv`: `|coef| × d`), the sum
/// over the support rows taken first (the linear kernel: `x_i·w + b`, `w = Σ_s coef_s sv_s`,
/// `O((n + |S|) d)` instead of `O(n |S| d)`): the points the SVM's k-means start clusters, the
/// same for a row in any block of rows.
pub fn sample_decision(
    x: &[f64],
    d: usize,
    sv: &[f64],
    coef: &[f64],
    bias: f64,
    kernel: KernelFunction,
) -> Result<Vec<f64>, SolveError> {
    if kernel == KernelFunction::Linear {
        let w = linear_weights(sv, d, coef, &vec![1.0; coef.len()]);
        return Ok(linear_decision(x, d, &w, bias));
    }
    let n = x.len().checked_div(d).unwrap_or(0);
    let sv = DenseRows::new(sv, coef.len(), d)?;
    let all = DenseRows::new(x, n, d)?;
    let chunk = 4096;
    let mut decision = vec![bias; n];
    for start in (0..n).step_by(chunk) {
        let end = (start + chunk).min(n);
        let block_rows = DenseRows::new(all.rows(start, end), end - start, d)?;
        let mut block = vec![0.0; (end - start) * coef.len()];
        kernel_block(&block_rows, &sv, kernel, &mut block)?;
        for (f, row) in decision[start..end].iter_mut().zip(block.chunks(coef.len().max(1))) {
            *f += row.iter().zip(coef).map(|(k, a)| k * a).sum::<f64>();
        }
    }
    Ok(decision)
}

/// The first partition of the S3VM (`y`: +1, −1, 0 for unlabeled), pure in the three groups.
pub fn s3vm_partition(
    x: &[f64],
    d: usize,
    y: &[i8],
    initial: &Initial,
) -> Result<Partition, SolveError> {
    let n = y.len();
    let group: Vec<u8> = y.iter().map(|&l| (l + 1) as u8).collect();
    let labels =
        start_labels(initial, n, |k, seed| Ok(kmeans_per_group(x, d, &group, 3, k, seed)))?;
    Ok(Partition::from_labels(&labels)?.refine_by(&group))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_proportional_and_positive() {
        assert_eq!(share(10, &[50, 50]), vec![5, 5]);
        assert_eq!(share(10, &[99, 1]), vec![10, 1]);
        assert_eq!(share(4, &[0, 7, 1]), vec![0, 4, 1]);
    }
}
