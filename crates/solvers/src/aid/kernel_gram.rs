//! `AggregatedGram`: the block sums `S(k,q) = Σ_{i∈C_k} Σ_{j∈C_q} K(x_i, x_j)` of the Gram
//! matrix over AID's clusters, kept up to date as clusters split (Park & Klabjan, Appendix B;
//! digest §3.4). The aggregated kernel is `K̄(k,q) = S(k,q) / (|C_k| |C_q|)`.
//!
//! The first partition costs one pass over the Gram matrix (`n²` kernel values, in row blocks).
//! When a parent `p` splits into parts, the rows of every part but the largest (the "computed"
//! parts) are summed against the new clusters, `|part| · n` kernel values from the row cache;
//! the largest part `r` is obtained by subtraction,
//!
//! ```text
//! S(r, q) = S_old(p, p') − Σ_{a ∈ computed(p), b ∈ parts(p')} S(a, b) − Σ_{b ∈ computed(p')} S(r, b),
//! ```
//!
//! where `p'` is the old cluster containing `q` (`q` itself when it did not split). Subtracting
//! to get the *larger* part keeps the relative rounding error of its means below twice that of
//! the parent. The row cache also serves the decision values
//! `f_i = Σ_j α̂_j y_j K(x_j, x_i) + b`, whose support rows are mostly the rows of the clusters
//! that split next.

use kernelkit_kernels::{
    CacheStats, CachedColumns, DenseKernel, DenseRows, KernelFunction, KernelSource,
};
use rayon::prelude::*;

use crate::aid::partition::{Partition, Split};
use crate::protocol::{Monitor, SolveError};

/// Largest aggregated Gram matrix (bytes) AID keeps.
pub const MAX_GRAM_BYTES: usize = 4 << 30;

/// Rows per block when the first partition's sums are computed.
const BLOCK_ROWS: usize = 64;
/// Blocks per round of that pass: an interruption is seen within one round (16 blocks of 64
/// rows at 20,000 rows: 2 · 10⁷ kernel values, about 0.1 s on one core).
const ROUND_BLOCKS: usize = 16;

/// The block sums of the Gram matrix over the current partition.
#[derive(Debug)]
pub struct AggregatedGram<'a> {
    columns: CachedColumns<DenseKernel<'a>>,
    sums: Vec<f64>,
    sizes: Vec<f64>,
    k: usize,
}

impl<'a> AggregatedGram<'a> {
    /// Over dense rows `x` (`n × d`) and `kernel`, with a column cache of `cache_bytes`.
    pub fn new(
        x: &'a [f64],
        d: usize,
        kernel: KernelFunction,
        cache_bytes: usize,
    ) -> Result<Self, SolveError> {
        if d == 0 {
            // Without a feature the rows' count is lost (n · 0 values).
            return Err(SolveError::invalid("X", "has no feature: at least one is needed"));
        }
        let n = x.len() / d;
        let rows = DenseRows::new(x, n, d)?;
        let source = DenseKernel::new(rows, kernel)?;
        Ok(AggregatedGram {
            columns: CachedColumns::plain(source, cache_bytes),
            sums: Vec::new(),
            sizes: Vec::new(),
            k: 0,
        })
    }

    /// How the kernel values over the rows are computed ([`kernelkit_kernels::plan`](mod@kernelkit_kernels::plan)).
    pub fn kernel_path(&self) -> kernelkit_kernels::KernelPath {
        self.columns.kernel().path()
    }

    /// Kernel cache counters.
    pub fn stats(&self) -> CacheStats {
        self.columns.cache_stats()
    }

    /// `Σ_{j∈C_q} K(x_i, x_j)` for every cluster `q`, for row `i`, from the cache.
    fn row_by_cluster(&mut self, i: usize, cluster_of: &[u32], k: usize) -> Vec<f64> {
        let (column, _) = self.columns.column_and_diagonal(i);
        let mut out = vec![0.0; k];
        for (value, &q) in column.iter().zip(cluster_of) {
            out[q as usize] += value;
        }
        out
    }

    /// Brings the sums to `partition`, given the splits since the last call (all of them, or a
    /// first call, when `splits` is empty and nothing is known yet). Between blocks of rows it
    /// asks `monitor` whether the solve was interrupted (Ctrl-C; the first partition's sums are
    /// `n²` kernel values, seconds at 20,000 rows), and then returns
    /// [`SolveError::Interrupted`] with the sums left unusable.
    pub fn update(
        &mut self,
        partition: &Partition,
        splits: &[Split],
        monitor: &dyn Monitor,
    ) -> Result<(), SolveError> {
        let k_new = partition.len();
        if k_new.saturating_mul(k_new).saturating_mul(8) > MAX_GRAM_BYTES {
            return Err(SolveError::invalid(
                "kernel",
                format!(
                    "the aggregated Gram matrix of {k_new} clusters needs more than {} GiB; use \
                     kernel='linear', fewer rows or fewer initial clusters",
                    MAX_GRAM_BYTES >> 30
                ),
            ));
        }
        let rebuild = self.k == 0 || splits.is_empty() && self.k != k_new;
        // Unknown until the sums are brought up to date: an interruption leaves 0, and the
        // next update rebuilds.
        let k_old = std::mem::take(&mut self.k);
        if rebuild {
            self.rebuild(partition, monitor)?;
        } else if !splits.is_empty() {
            self.apply_splits(partition, splits, k_old, monitor)?;
        }
        self.k = k_new;
        self.sizes = (0..k_new).map(|q| partition.size(q)).collect();
        Ok(())
    }

    /// All sums from scratch: one pass over the Gram matrix in row blocks, in rounds of
    /// [`ROUND_BLOCKS`] blocks (in parallel within a round) between which `monitor` is asked.
    /// The per-row sums are added in row order, so the sums do not depend on the rounds or the
    /// thread count.
    fn rebuild(&mut self, partition: &Partition, monitor: &dyn Monitor) -> Result<(), SolveError> {
        let k = partition.len();
        let cluster_of = partition.cluster_of();
        let n = cluster_of.len();
        let kernel = self.columns.kernel();
        let rows: Vec<usize> = (0..n).collect();
        let mut sums = vec![0.0; k * k];
        for round in rows.chunks(BLOCK_ROWS * ROUND_BLOCKS) {
            if monitor.interrupted() {
                return Err(SolveError::Interrupted);
            }
            let per_row: Vec<Vec<f64>> = round
                .par_chunks(BLOCK_ROWS)
                .flat_map_iter(|block| {
                    let mut values = vec![0.0; block.len() * n];
                    kernel.fill_block(block, 0, n, &mut values);
                    values
                        .chunks(n)
                        .map(|row| {
                            let mut out = vec![0.0; k];
                            for (v, &q) in row.iter().zip(cluster_of) {
                                out[q as usize] += v;
                            }
                            out
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            for (&i, row) in round.iter().zip(&per_row) {
                let cluster = cluster_of[i] as usize;
                for (s, v) in sums[cluster * k..(cluster + 1) * k].iter_mut().zip(row) {
                    *s += v;
                }
            }
        }
        self.sums = sums;
        Ok(())
    }

    /// The sums after `splits` from those of the `k_old` clusters before (the module's
    /// subtraction), asking `monitor` before each row's kernel column.
    fn apply_splits(
        &mut self,
        partition: &Partition,
        splits: &[Split],
        k_old: usize,
        monitor: &dyn Monitor,
    ) -> Result<(), SolveError> {
        let k = partition.len();
        let cluster_of = partition.cluster_of().to_vec();
        // The old cluster of every new cluster, and the part of each split that is subtracted.
        let mut parent: Vec<usize> = (0..k).collect();
        let mut remainder = vec![false; k];
        let mut computed: Vec<(usize, Vec<f64>)> = Vec::new();
        let mut parts_of: Vec<Vec<usize>> = (0..k_old).map(|q| vec![q]).collect();
        for split in splits {
            let largest = *split
                .parts
                .iter()
                .max_by_key(|&&q| (partition.members(q).len(), std::cmp::Reverse(q)))
                .expect("a split has parts");
            for &q in &split.parts {
                parent[q] = split.parent;
                if q == largest {
                    remainder[q] = true;
                } else {
                    let rows: Vec<u32> = partition.members(q).to_vec();
                    let mut sum = vec![0.0; k];
                    for i in rows {
                        if monitor.interrupted() {
                            return Err(SolveError::Interrupted);
                        }
                        let v = self.row_by_cluster(i as usize, &cluster_of, k);
                        for (s, x) in sum.iter_mut().zip(&v) {
                            *s += x;
                        }
                    }
                    computed.push((q, sum));
                }
            }
            parts_of[split.parent] = split.parts.clone();
        }
        let old = std::mem::take(&mut self.sums);
        let mut sums = vec![0.0; k * k];
        let split_parent = |q: usize| parent[q] != q || parts_of[q].len() > 1;
        for q1 in 0..k_old {
            if split_parent(q1) {
                continue;
            }
            for q2 in 0..k_old {
                if !split_parent(q2) {
                    sums[q1 * k + q2] = old[q1 * k_old + q2];
                }
            }
        }
        let mut row_of = vec![usize::MAX; k];
        for (index, (q, sum)) in computed.iter().enumerate() {
            row_of[*q] = index;
            for (b, &value) in sum.iter().enumerate() {
                sums[q * k + b] = value;
                sums[b * k + q] = value;
            }
        }
        let known = |a: usize, b: usize| -> f64 {
            if row_of[a] != usize::MAX {
                computed[row_of[a]].1[b]
            } else {
                computed[row_of[b]].1[a]
            }
        };
        for r in (0..k).filter(|&q| remainder[q]) {
            let p = parent[r];
            let comp_p: Vec<usize> =
                parts_of[p].iter().copied().filter(|&a| !remainder[a]).collect();
            for q in (0..k).filter(|&q| row_of[q] == usize::MAX) {
                let p2 = parent[q];
                let mut value = old[p * k_old + p2];
                for &a in &comp_p {
                    for &b in &parts_of[p2] {
                        value -= known(a, b);
                    }
                }
                for &b in parts_of[p2].iter().filter(|&&b| !remainder[b] && b != q) {
                    value -= known(b, r);
                }
                sums[r * k + q] = value;
                sums[q * k + r] = value;
            }
        }
        self.sums = sums;
        Ok(())
    }

    /// `K̄(k,q) = S(k,q)/(|C_k||C_q|)`, row-major `K × K`.
    pub fn means(&self) -> Vec<f64> {
        let k = self.k;
        let mut out = self.sums.clone();
        out.par_chunks_mut(k.max(1)).enumerate().for_each(|(a, row)| {
            for (b, v) in row.iter_mut().enumerate() {
                *v /= self.sizes[a] * self.sizes[b];
            }
        });
        out
    }

    /// `f_i = Σ_j coef_j K(x_j, x_i) + b` for every row, asking `monitor` before each kernel
    /// column ([`SolveError::Interrupted`] as in [`AggregatedGram::update`]).
    pub fn decision(
        &mut self,
        coef: &[f64],
        b: f64,
        monitor: &dyn Monitor,
    ) -> Result<Vec<f64>, SolveError> {
        let mut f = vec![b; coef.len()];
        for (j, &c) in coef.iter().enumerate() {
            if c != 0.0 {
                if monitor.interrupted() {
                    return Err(SolveError::Interrupted);
                }
                let (column, _) = self.columns.column_and_diagonal(j);
                f.par_iter_mut().zip(column.par_iter()).for_each(|(fi, kij)| *fi += c * kij);
            }
        }
        Ok(f)
    }
}
