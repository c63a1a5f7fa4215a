//! The per-row work of one AID iteration over a block of rows, for a driver that holds the rows
//! in blocks (`kernelkit.dask`): evaluate a round's solution on the block's rows, give every row
//! its cell, and sum what the driver needs per cluster (the purity tests, the losses, the sums
//! of the next partition's clusters). Partial results of blocks merge by addition (counts,
//! sums) and minimum (first rows); the split of the impure clusters is
//! [`Partition::split_keyed`](crate::aid::Partition::split_keyed).
//!
//! The per-row tests are the in-memory models' ([`lad_cell`],
//! [`hinge_cell`], `unlabeled_cell`), and the decision values
//! are summed in the same order as theirs, so a row gets the same cell in any block. The sums
//! over a block's rows run in row order; a driver that merges blocks sums in another order than
//! the in-memory models (which sum a whole cluster in row order), which moves the aggregated
//! data by rounding only.

use kernelkit_kernels::{kernel_block, DenseRows, KernelFunction};

use crate::aid::lad::{lad_cell, residual};
use crate::aid::s3vm::unlabeled_cell;
use crate::aid::svm::hinge_cell;
use crate::protocol::SolveError;

/// No row: the `first` entry of a key without rows.
pub const NO_ROW: u64 = u64::MAX;

/// Support rows per kernel block of [`BlockSolution::Kernel`]'s decision values.
const SUPPORT_BLOCK: usize = 2048;

/// `Ok` when `name` has `expected` values, else [`SolveError::LengthMismatch`].
fn check_len(name: &'static str, expected: usize, actual: usize) -> Result<(), SolveError> {
    if actual == expected {
        Ok(())
    } else {
        Err(SolveError::LengthMismatch { name, expected, actual })
    }
}

/// `Ok` when every id of `name` is below `bound`, else [`SolveError::InvalidProblem`].
fn check_ids(name: &'static str, ids: &[u32], bound: usize) -> Result<(), SolveError> {
    match ids.iter().find(|&&id| id as usize >= bound) {
        None => Ok(()),
        Some(bad) => Err(SolveError::invalid(name, format!("{bad} is not below {bound}"))),
    }
}

/// Which problem a block is evaluated for: it sets the cells (LAD and SVM 2, S3VM 6) and the
/// losses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Formulation {
    /// Residual signs of `y − x·β` (cells 0: `r > 0`, 1: `r ≤ 0`).
    Lad,
    /// Margin sides of `g = 1 − y f` (cells 0: `g > 0`, 1: `g ≤ 0`).
    Svm,
    /// Labeled rows as the SVM, unlabeled rows (`y = 0`) in cells 2..=5 by `f`.
    S3vm,
}

impl Formulation {
    /// Cells per cluster (also the bits of a row's mask).
    pub fn n_cells(self) -> usize {
        match self {
            Formulation::Lad | Formulation::Svm => 2,
            Formulation::S3vm => 6,
        }
    }
}

/// One round's solution, as the rows need it.
#[derive(Debug, Clone, Copy)]
pub enum BlockSolution<'a> {
    /// LAD coefficients `β` (`d` values, or `d + 1` with the intercept last).
    Lad {
        /// `β`.
        beta: &'a [f64],
    },
    /// A linear decision function `f = x·w + b`.
    Linear {
        /// `w`.
        w: &'a [f64],
        /// `b`.
        bias: f64,
    },
    /// A kernel expansion `f = Σ_j coef_j K(s_j, x) + b`, summed over the support rows in
    /// order (as the in-memory SVM sums over its rows).
    Kernel {
        /// Support rows, row-major `|S| × d`.
        support: &'a [f64],
        /// `α̂_j y_j` of each support row.
        coef: &'a [f64],
        /// The kernel.
        kernel: KernelFunction,
        /// `b`.
        bias: f64,
    },
}

/// A block of rows.
#[derive(Debug, Clone, Copy)]
pub struct Block<'a> {
    /// The rows, row-major `n_b × d`.
    pub x: &'a [f64],
    /// Columns `d`.
    pub d: usize,
    /// LAD targets, or labels ±1 (S3VM: 0 for unlabeled rows).
    pub y: &'a [f64],
    /// The cluster of every row, `< n_clusters`.
    pub clusters: &'a [u32],
    /// Number of clusters `K`.
    pub n_clusters: usize,
    /// The global index of the block's first row.
    pub start: u64,
}

/// Per key (`key = cluster · n_cells + cell`, or any integer label): the rows of a block, the
/// first (global) row, and the sums of `x` and `y` over the rows, each in row order.
#[derive(Debug, Clone, PartialEq)]
pub struct KeySums {
    /// Rows per key.
    pub count: Vec<u64>,
    /// The smallest global row index per key ([`NO_ROW`] for none).
    pub first: Vec<u64>,
    /// `n_keys × d` sums of the rows (empty when not asked for).
    pub sum_x: Vec<f64>,
    /// Sums of `y` (empty when not asked for).
    pub sum_y: Vec<f64>,
}

impl KeySums {
    /// The sums over the rows of `x` (`d` columns; `None`: no sums of `x`) and `y` (`None`: no
    /// sums of `y`) by `keys` (each `< n_keys`); `start` is the global index of the first row.
    pub fn new(
        keys: &[u32],
        n_keys: usize,
        start: u64,
        x: Option<(&[f64], usize)>,
        y: Option<&[f64]>,
    ) -> Result<Self, SolveError> {
        let n = keys.len();
        check_ids("keys", keys, n_keys)?;
        if let Some((values, d)) = x {
            check_len("x", n * d, values.len())?;
        }
        if let Some(values) = y {
            check_len("y", n, values.len())?;
        }
        let mut count = vec![0u64; n_keys];
        let mut first = vec![NO_ROW; n_keys];
        for (i, &key) in keys.iter().enumerate() {
            let key = key as usize;
            if count[key] == 0 {
                first[key] = start + i as u64;
            }
            count[key] += 1;
        }
        let sum_x = match x {
            None => Vec::new(),
            Some((values, d)) => {
                let mut sums = vec![0.0; n_keys * d];
                for (&key, row) in keys.iter().zip(values.chunks_exact(d.max(1))) {
                    let key = key as usize;
                    for (s, v) in sums[key * d..(key + 1) * d].iter_mut().zip(row) {
                        *s += v;
                    }
                }
                sums
            }
        };
        let sum_y = match y {
            None => Vec::new(),
            Some(values) => {
                let mut sums = vec![0.0; n_keys];
                for (&key, v) in keys.iter().zip(values) {
                    sums[key as usize] += v;
                }
                sums
            }
        };
        Ok(KeySums { count, first, sum_x, sum_y })
    }
}

/// What the evaluation of one block gives back.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockStats {
    /// Per row, `cluster · n_cells + cell`: the part of its cluster the row goes to if the
    /// cluster splits.
    pub keys: Vec<u32>,
    /// `n_cells × K`: per cell `c` and cluster, the rows not compatible with cell `c`. A cluster
    /// is impure when every cell lacks some row (summed over all blocks).
    pub lack: Vec<u64>,
    /// `n_cells × K`: as `lack`, with every row compatible with its own cell only (no
    /// tolerance): the strict purity that `Aid::run` splits by when a pure partition's gap
    /// stays above `tol` ([`crate::aid::AidTracker::purity_falls_short`]).
    pub lack_strict: Vec<u64>,
    /// The loss summed over the rows: LAD `[Σ|r|]`, SVM `[Σ max(0, g)]`, S3VM
    /// `[Σ_labeled max(0, g), Σ_unlabeled max(0, 1 − |f|)]`.
    pub loss: Vec<f64>,
    /// SVM: `Σ f` per cluster (the aggregated objective needs the clusters' mean decision
    /// values); empty otherwise.
    pub sum_f: Vec<f64>,
    /// Per key, the sums of the next partition's clusters.
    pub key_sums: KeySums,
}

/// The decision values (LAD: residuals) of `solution` on the block's rows, summed over the
/// features (and support rows) in the in-memory models' order.
fn decision(block: &Block<'_>, solution: &BlockSolution<'_>) -> Result<Vec<f64>, SolveError> {
    let d = block.d;
    let dot = |row: &[f64], w: &[f64]| row.iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
    let rows = block.x.chunks_exact(d.max(1)).take(block.y.len());
    Ok(match *solution {
        BlockSolution::Lad { beta } => {
            if beta.len() != d + 1 {
                // Without an intercept: one coefficient per column.
                check_len("beta", d, beta.len())?;
            }
            rows.zip(block.y).map(|(row, &y)| residual(row, y, beta)).collect()
        }
        BlockSolution::Linear { w, bias } => {
            check_len("w", d, w.len())?;
            rows.map(|row| dot(row, w) + bias).collect()
        }
        BlockSolution::Kernel { support, coef, kernel, bias } => {
            let n_support = coef.len();
            check_len("support", n_support * d, support.len())?;
            let n = block.y.len();
            let mut f = vec![bias; n];
            let left = DenseRows::new(block.x, n, d)?;
            let mut values = Vec::new();
            for lo in (0..n_support).step_by(SUPPORT_BLOCK) {
                let hi = (lo + SUPPORT_BLOCK).min(n_support);
                let right = DenseRows::new(&support[lo * d..hi * d], hi - lo, d)?;
                values.resize(n * (hi - lo), 0.0);
                kernel_block(&left, &right, kernel, &mut values)?;
                for (j, &c) in coef[lo..hi].iter().enumerate() {
                    for (fi, row) in f.iter_mut().zip(values.chunks_exact(hi - lo)) {
                        *fi += c * row[j];
                    }
                }
            }
            f
        }
    })
}

/// Evaluates `solution` on `block` for `formulation`: every row's cell and mask (rows within
/// `tol` of a cell boundary fit both sides), and the block's partial sums.
pub fn evaluate_block(
    block: &Block<'_>,
    formulation: Formulation,
    solution: &BlockSolution<'_>,
    tol: f64,
    sums_x: bool,
) -> Result<BlockStats, SolveError> {
    let n = block.y.len();
    let k = block.n_clusters;
    check_len("x", n * block.d, block.x.len())?;
    check_len("clusters", n, block.clusters.len())?;
    check_ids("clusters", block.clusters, k)?;
    let lad = formulation == Formulation::Lad;
    if lad != matches!(solution, BlockSolution::Lad { .. }) {
        return Err(SolveError::invalid(
            "solution",
            "LAD takes coefficients beta, SVM and S3VM a decision function",
        ));
    }
    let f = decision(block, solution)?;
    let n_cells = formulation.n_cells();
    let mut keys = Vec::with_capacity(n);
    let mut lack = vec![0u64; n_cells * k];
    let mut lack_strict = vec![0u64; n_cells * k];
    let mut loss = vec![0.0; if formulation == Formulation::S3vm { 2 } else { 1 }];
    let mut sum_f = if formulation == Formulation::Svm { vec![0.0; k] } else { Vec::new() };
    for ((&fi, &y), &cluster) in f.iter().zip(block.y).zip(block.clusters) {
        let cluster = cluster as usize;
        let (mask, cell) = match formulation {
            Formulation::Lad => {
                loss[0] += fi.abs();
                lad_cell(fi, tol)
            }
            Formulation::S3vm if y == 0.0 => {
                loss[1] += (1.0 - fi.abs()).max(0.0);
                unlabeled_cell(fi, tol)
            }
            _ => {
                let g = 1.0 - y * fi;
                loss[0] += g.max(0.0);
                if let Some(sum) = sum_f.get_mut(cluster) {
                    *sum += fi;
                }
                hinge_cell(g, tol)
            }
        };
        for (c, missing) in lack.chunks_exact_mut(k.max(1)).enumerate() {
            if mask >> c & 1 == 0 {
                missing[cluster] += 1;
            }
        }
        for (c, missing) in lack_strict.chunks_exact_mut(k.max(1)).enumerate() {
            if c != usize::from(cell) {
                missing[cluster] += 1;
            }
        }
        keys.push((cluster * n_cells + usize::from(cell)) as u32);
    }
    let x = sums_x.then_some((block.x, block.d));
    let key_sums = KeySums::new(&keys, k * n_cells, block.start, x, lad.then_some(block.y))?;
    Ok(BlockStats { keys, lack, lack_strict, loss, sum_f, key_sums })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aid::partition::Partition;

    #[test]
    fn block_cells_match_the_partition_split() {
        // LAD on 6 rows in 2 clusters: residual signs split cluster 0, cluster 1 is pure.
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let y = [2.0, 1.0, 3.5, 4.5, 5.5, 6.5];
        let clusters = [0, 0, 1, 1, 1, 0];
        let block = Block { x: &x, d: 1, y: &y, clusters: &clusters, n_clusters: 2, start: 10 };
        let stats = evaluate_block(
            &block,
            Formulation::Lad,
            &BlockSolution::Lad { beta: &[1.0] },
            1e-9,
            true,
        )
        .unwrap();
        // r = 1, −1, 0.5, 0.5, 0.5, 0.5: cluster 0 lacks rows in both cells.
        assert_eq!(stats.keys, vec![0, 1, 2, 2, 2, 0]);
        assert_eq!(stats.lack, vec![1, 0, 2, 3]);
        // No row is within 1e-9 of 0: strictly the same counts.
        assert_eq!(stats.lack_strict, stats.lack);
        // With a tolerance of 2 every row fits both cells, but strictly only its own: cluster 0
        // (cells 0, 1, 0) still lacks rows in both.
        let loose = evaluate_block(
            &block,
            Formulation::Lad,
            &BlockSolution::Lad { beta: &[1.0] },
            2.0,
            false,
        )
        .unwrap();
        assert_eq!(loose.lack, vec![0; 4]);
        assert_eq!(loose.lack_strict, vec![1, 0, 2, 3]);
        assert_eq!(stats.loss, vec![4.0]);
        assert_eq!(stats.key_sums.count, vec![2, 1, 3, 0]);
        assert_eq!(stats.key_sums.first, vec![10, 11, 12, NO_ROW]);
        assert_eq!(stats.key_sums.sum_x, vec![7.0, 2.0, 12.0, 0.0]);
        assert_eq!(stats.key_sums.sum_y, vec![8.5, 1.0, 13.5, 0.0]);
        let mut p = Partition::from_labels(&[0, 0, 1, 1, 1, 0]).unwrap();
        let (table, parent) =
            Partition::split_keyed(&stats.key_sums.count, &stats.key_sums.first, &[0], 2, 2);
        let cells: Vec<u8> = stats.keys.iter().map(|&key| (key % 2) as u8).collect();
        p.split(&[0], &cells);
        let ids: Vec<u32> = stats.keys.iter().map(|&key| table[key as usize] as u32).collect();
        assert_eq!(ids, p.cluster_of());
        assert_eq!(parent, vec![0, 1, 0]);
    }

    #[test]
    fn kernel_decision_sums_support_rows_in_order() {
        let x = [0.0, 1.0, 2.0];
        let y = [1.0, -1.0, 1.0];
        let support = [0.5, 1.5];
        let coef = [0.25, -0.75];
        let kernel = KernelFunction::Rbf { gamma: 0.5 };
        let block = Block { x: &x, d: 1, y: &y, clusters: &[0, 0, 0], n_clusters: 1, start: 0 };
        let solution = BlockSolution::Kernel { support: &support, coef: &coef, kernel, bias: 0.1 };
        let f = decision(&block, &solution).unwrap();
        for (i, &xi) in x.iter().enumerate() {
            let k = |s: f64| (-0.5 * (xi - s) * (xi - s)).exp();
            let expected = 0.1 + 0.25 * k(0.5) - 0.75 * k(1.5);
            assert!((f[i] - expected).abs() < 1e-12, "{} vs {expected}", f[i]);
        }
        let stats = evaluate_block(&block, Formulation::Svm, &solution, 1e-9, false).unwrap();
        let total: f64 = f.iter().sum();
        assert_eq!(stats.sum_f, vec![total]);
        assert!(stats.key_sums.sum_x.is_empty() && stats.key_sums.sum_y.is_empty());
    }

    #[test]
    fn s3vm_unlabeled_rows_get_cells_two_to_five() {
        let x = [-2.0, -0.5, 0.5, 2.0, 0.5];
        let y = [0.0, 0.0, 0.0, 0.0, 1.0];
        let block = Block { x: &x, d: 1, y: &y, clusters: &[0; 5], n_clusters: 1, start: 0 };
        let solution = BlockSolution::Linear { w: &[1.0], bias: 0.0 };
        let stats = evaluate_block(&block, Formulation::S3vm, &solution, 1e-9, false).unwrap();
        assert_eq!(stats.keys, vec![2, 3, 4, 5, 0]);
        // Unlabeled: Σ max(0, 1 − |f|) = 0.5 + 0.5; labeled: max(0, 1 − 0.5).
        assert_eq!(stats.loss, vec![0.5, 1.0]);
        assert!(stats.sum_f.is_empty());
    }
}
