//! AID: the Aggregate and Iterative Disaggregate algorithm (Park & Klabjan, "An Aggregate and
//! Iterative Disaggregate Algorithm with Proven Optimality in Machine Learning", 2016).
//!
//! AID solves a learning problem over `n` rows by solving a sequence of much smaller, weighted
//! problems over cluster means (Algorithm 1):
//!
//! 1. cluster the rows ([`init`], [`kmeans`]): `C^0 = {C_1, …, C_K}`;
//! 2. solve the aggregated problem: the same model on the cluster means, cluster `k` weighted by
//!    `|C_k|` ([`lad`]: eq. (3), [`svm`]: eqs. (9), (20)–(21), [`s3vm`]: eq. (15));
//! 3. evaluate its solution on every original row: `E^t`, the full objective (an upper bound of
//!    the optimum `E*`), and each row's *cell* (the sign of its residual or margin);
//! 4. stop when every cluster lies in one cell (Props. 1, 3: then `E^t = F^t = E*`), else split
//!    every impure cluster by cell ([`Partition::split`]) and go to 2.
//!
//! For LAD and SVM, `F^t ≤ E*` for *any* refinement of the start (Props. 2, 4), so the
//! aggregated problems' optimal values increase to `E*`. The [`driver`] keeps a certified lower
//! bound `max_t D^t` (`D^t ≤ F^t`: the aggregated problem's dual value, which stays a bound when
//! the inner solver is inexact, digest §7.5) and the upper bound `min_t E^t`, and stops when
//! `(upper − lower)/upper ≤ tol` — the paper's §3.1 gap (Table 10 prints `(upper − lower)/lower`
//! instead, digest §7.2; `E_best` includes `t = 0`). The initial cluster count of the paper
//! (`r^0 n` with `r^0 = max(1.1m/n, …)`) is ambiguous (digest §3.2, §7.9): the caller chooses
//! `k`; the Python estimators document their default.
//!
//! For S3VM the paper's optimality claim (Prop. 5) is **false** (digest §7.1, §8.3): AID-S3VM is
//! a heuristic that reports `pure`, never `optimal`.
//!
//! The aggregated problems are solved by any [`Solver`](crate::Solver): LAD by an LP solver
//! ([`ClarabelLp`] by default), SVM and S3VM by a [`BoxQp`](crate::BoxQp) solver
//! ([`Smo`](crate::Smo) by default; one bound `C·|C_k|` per aggregated point).

pub mod block;
pub mod driver;
pub mod init;
pub mod kernel_gram;
pub mod kmeans;
pub mod lad;
pub mod partition;
mod refined;
pub mod s3vm;
pub mod svm;

pub use block::{evaluate_block, Block, BlockSolution, BlockStats, Formulation, KeySums, NO_ROW};
pub use driver::{
    AggregatedModel, Aid, AidIteration, AidMonitor, AidOptions, AidResult, AidStatus, AidTracker,
    NoAidMonitor, Round, RoundSummary,
};
pub use init::{
    group_seed, initial_sample, lad_partition, random_labels_from, s3vm_partition, sample_decision,
    share, svm_partition, Initial,
};
pub use kernel_gram::AggregatedGram;
pub use kmeans::{assign, centres_from_sums, weighted_kmeans, KMeansSeeding};
pub use lad::{residual, ClarabelLp, LadFit, LadModel, WeightedLad};
pub use partition::{Partition, Split};
pub use s3vm::{search_labels, LabelSearchResult, S3vmBalance, S3vmData, S3vmModel};
pub use svm::{
    aggregated_objective, solve_aggregated, tightened_inner_tol, warm_start, AggregatedPoints,
    AggregatedSvm, SvmData, SvmFit, SvmModel,
};
