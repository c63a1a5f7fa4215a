//! The soft-margin C-SVM in AID (Park & Klabjan §3.2, eqs. (5)–(10), Prop. 3–4, Appendix B).
//!
//! Original problem (5)/(7): `E* = min_{w,b} ½‖w‖² + C Σ_i max(0, 1 − y_i(w·φ(x_i) + b))`, `b`
//! unregularised (the paper's `M` is our `C`). Clusters never mix labels (§3.2). The aggregated
//! problem (9)/(20) is the same SVM on the cluster means `φ̄_k = mean_{i∈C_k} φ(x_i)` with the
//! per-cluster bound `C·|C_k|`; its dual (21) is the [`BoxQp`]
//!
//! ```text
//! min_α ½ Σ_{k,q} α_k α_q y_k y_q K̄(k,q) − Σ_k α_k   s.t.  Σ_k y_k α_k = 0,  0 ≤ α_k ≤ C|C_k|,
//! ```
//!
//! with `K̄(k,q) = mean_{i∈C_k, j∈C_q} K(x_i, x_j)` (the block mean of the Gram matrix, never
//! `K(x̄_k, x̄_q)`; digest §7.8), solved by the inner solver `S` (LIBSVM's SMO by default). For
//! the linear kernel `K̄` is the linear kernel of the centroids `x̄_k` and `w = Σ_k α_k y_k x̄_k`
//! is explicit; for other kernels [`AggregatedGram`] keeps `K̄`.
//!
//! Every row gets `f_i = w·φ(x_i) + b`, computed as `Σ_j α̂_j y_j K(x_j, x_i) + b` with
//! `α̂_j = α_k/|C_k|` for `j ∈ C_k` (the dual reconstruction at the end of §3.2, feasible for
//! (6) and giving the same `w`). Then `g_i = 1 − y_i f_i`, `E^t` (10), and
//! `F^t = ½‖w‖² + C Σ_k |C_k| max(0, 1 − y_k f̄_k)` with `f̄_k = mean_{i∈C_k} f_i`
//! (Appendix B: `w·φ̄_k + b` is the cluster mean of `f`). The certified lower bound is the dual
//! value `Σ_k α_k − ½‖w‖² ≤ F^t ≤ E*` (weak duality; the bound needs only label-pure clusters).
//! A cluster is pure when all its `g_i ≤ 0` or all `g_i ≥ 0` (the weak form of Step 2a (ii) is
//! what the proof of Prop. 3 uses; digest §7.4); an impure one splits into `{g > 0}`, `{g ≤ 0}`.
//!
//! Warm start (digest §3.4): the new cluster's `α` is the sum of its rows' `α̂`, which keeps the
//! bounds and `Σ y α` and gives the previous solution's objective.

use kernelkit_kernels::{DenseKernel, KernelFunction, KernelPath, PrecomputedGram, SignedQ};
use rayon::prelude::*;
use std::time::Instant;

use crate::aid::driver::{time_left, AggregatedModel, Round};
use crate::aid::kernel_gram::AggregatedGram;
use crate::aid::partition::{Partition, Split};
use crate::aid::refined::{solve_refined, DualTerms, GramDual, LinearDual};
use crate::box_qp::BoxQp;
use crate::protocol::{Monitor, SolveError, SolveOptions, Solver, Status};

/// The fit of one SVM round, on the original rows.
#[derive(Debug, Clone, PartialEq)]
pub struct SvmFit {
    /// `α̂_i y_i` for every row (`α̂_i = α_k/|C_k|`).
    pub dual_coef: Vec<f64>,
    /// `w` (linear kernel only; empty otherwise).
    pub w: Vec<f64>,
    /// `b`.
    pub bias: f64,
    /// `f_i` on the training rows.
    pub decision: Vec<f64>,
}

/// The data of an SVM problem: dense rows, labels ±1, `C`, the kernel.
#[derive(Debug, Clone, Copy)]
pub struct SvmData<'a> {
    /// `n × d`, row-major.
    pub x: &'a [f64],
    /// Columns.
    pub d: usize,
    /// Labels, each −1 or +1.
    pub y: &'a [i8],
    /// The penalty `C > 0`.
    pub c: f64,
    /// The kernel.
    pub kernel: KernelFunction,
}

impl SvmData<'_> {
    /// Checks shapes, labels, `C` and finiteness.
    pub fn validate(&self) -> Result<(), SolveError> {
        let n = self.y.len();
        if self.x.len() != n * self.d {
            return Err(SolveError::LengthMismatch {
                name: "X",
                expected: n * self.d,
                actual: self.x.len(),
            });
        }
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(SolveError::invalid("C", format!("{} must be finite and > 0", self.c)));
        }
        if self.y.iter().any(|&v| v != 1 && v != -1) {
            return Err(SolveError::invalid("y", "labels must be -1 or +1"));
        }
        if let Some(i) = self.x.iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid("X", format!("value {i} is not finite")));
        }
        self.kernel.validate()?;
        Ok(())
    }
}

/// Per-row evaluation shared by the SVM and the labeled part of S3VM: masks and cells of
/// `g_i = 1 − y_i f_i` (bit 0: `g ≥ 0` side, bit 1: `g ≤ 0` side), and `Σ_i max(0, g_i)`.
pub(crate) fn hinge_cells(decision: &[f64], y: &[i8], tol: f64) -> (Vec<u8>, Vec<u8>, f64) {
    let g: Vec<f64> = decision.iter().zip(y).map(|(f, &l)| 1.0 - f64::from(l) * f).collect();
    let (masks, cells) = g.iter().map(|&g| hinge_cell(g, tol)).unzip();
    (masks, cells, g.iter().map(|g| g.max(0.0)).sum())
}

/// The mask and cell of a row with `g = 1 − y f`: cell 0 holds `g > 0`, cell 1 `g ≤ 0`; bit `c`
/// of the mask is set when the row fits cell `c` (rows within `tol` of 0 fit both).
pub(crate) fn hinge_cell(g: f64, tol: f64) -> (u8, u8) {
    (u8::from(g >= -tol) | (u8::from(g <= tol) << 1), u8::from(g <= 0.0))
}

/// `Σ_k α_k y_k x̄_k` for dense centroids.
pub(crate) fn linear_weights(
    centroids: &[f64],
    d: usize,
    alpha: &[f64],
    signs: &[f64],
) -> Vec<f64> {
    let mut w = vec![0.0; d];
    for (k, row) in centroids.chunks(d.max(1)).enumerate().take(alpha.len()) {
        let coef = alpha[k] * signs[k];
        if coef != 0.0 {
            for (wj, xj) in w.iter_mut().zip(row) {
                *wj += coef * xj;
            }
        }
    }
    w
}

/// `f_i = x_i·w + b` for every row.
pub(crate) fn linear_decision(x: &[f64], d: usize, w: &[f64], b: f64) -> Vec<f64> {
    x.par_chunks(d.max(1))
        .map(|row| row.iter().zip(w).map(|(a, c)| a * c).sum::<f64>() + b)
        .collect()
}

/// The SVM of AID with inner solver `S`.
#[derive(Debug)]
pub struct SvmModel<'a, S> {
    data: SvmData<'a>,
    solver: S,
    options: SolveOptions,
    purity_tol: f64,
    /// `α̂_i` of the previous round (the rows' dual coefficients).
    row_alpha: Vec<f64>,
    /// `α_k/|C_k|` per cluster of the previous round (warm start; empty before the first).
    shares: Vec<f64>,
    /// The aggregated Gram matrix, for non-linear kernels.
    gram: Option<AggregatedGram<'a>>,
    /// `F^t − D^t` of the last round (the aggregated problem's duality gap at its computed
    /// solution), and whether its solve converged.
    last_inner_gap: f64,
    last_converged: bool,
    /// `F^t − D^t` of the round before the last tightening (`∞`: none yet).
    gap_before_tightening: f64,
    /// The inner tolerance given (each round starts from it).
    base_tol: f64,
    /// AID's `tol` ([`AggregatedModel::set_gap_target`]; 0: none, no tightening).
    gap_tol: f64,
    /// When the first aggregated solve started: `options.time_limit` bounds all of them
    /// together (each gets the time left), as it bounds the AID run (as the LAD model's LPs).
    started: Option<Instant>,
}

/// The smallest inner tolerance [`SvmModel::tighten_inner`] asks for: the KKT violation is a
/// difference of gradient entries of order 1 (`p = −1`), which float64 resolves to about
/// 1e-15 of the largest `|Q α|` term.
const MIN_INNER_TOL: f64 = 1e-14;

/// The rule of [`SvmModel::tighten_inner`] (its docs give the reasons), for any driver of the
/// rounds (`kernelkit.dask` too): the inner tolerance of the next solve of a pure partition
/// whose aggregated duality gap `inner_gap` (`F − D` of the last solve, at inner tolerance
/// `tol`; `converged`: whether that solve converged) is above `target`, or `None` to stop
/// refining: the gap is already at most `target`, did not fall below `gap_before` (the gap
/// before the last tightening; `∞` before the first), the solve did not converge, or `tol` is
/// down to [`MIN_INNER_TOL`].
pub fn tightened_inner_tol(
    tol: f64,
    inner_gap: f64,
    target: f64,
    gap_before: f64,
    converged: bool,
) -> Option<f64> {
    let open = inner_gap.is_finite() && inner_gap > target && target > 0.0;
    let improving = inner_gap < gap_before;
    if !(open && improving && converged && tol > MIN_INNER_TOL) {
        return None;
    }
    Some((tol * (0.5 * target / inner_gap).clamp(1e-4, 0.1)).max(MIN_INNER_TOL))
}

impl<'a, S> SvmModel<'a, S>
where
    S: Solver<BoxQp<SignedQ<DenseKernel<'static>>>>
        + for<'g> Solver<BoxQp<SignedQ<PrecomputedGram<'g>>>>,
{
    /// A model over `data`; `options` go to every inner solve (`cache_bytes` also bounds the
    /// full-kernel column cache of the non-linear case).
    pub fn new(data: SvmData<'a>, solver: S, options: SolveOptions) -> Result<Self, SolveError> {
        data.validate()?;
        let n = data.y.len();
        let gram = if data.kernel == KernelFunction::Linear {
            None
        } else {
            Some(AggregatedGram::new(data.x, data.d, data.kernel, options.cache_bytes)?)
        };
        let base_tol = options.tol;
        Ok(SvmModel {
            data,
            solver,
            options,
            purity_tol: 1e-9,
            row_alpha: vec![0.0; n],
            shares: Vec::new(),
            gram,
            last_inner_gap: f64::INFINITY,
            last_converged: false,
            gap_before_tightening: f64::INFINITY,
            base_tol,
            gap_tol: 0.0,
            started: None,
        })
    }

    /// Cache counters of the full-kernel columns (non-linear kernels).
    pub fn kernel_evaluations(&self) -> u64 {
        self.gram.as_ref().map_or(0, |g| g.stats().values_computed)
    }

    /// How kernel values are computed: the full-kernel columns' path for a non-linear kernel,
    /// [`KernelPath::LinearPrimal`] for the linear one (`w` from the clusters' centroids).
    pub fn kernel_path(&self) -> KernelPath {
        self.gram.as_ref().map_or(KernelPath::LinearPrimal, AggregatedGram::kernel_path)
    }

    /// One solve of the aggregated SVM of `partition`, evaluated on every row.
    fn solve_once(
        &mut self,
        partition: &Partition,
        splits: &[Split],
        inner: &mut dyn Monitor,
    ) -> Result<(Round, SvmFit), SolveError> {
        let data = self.data;
        let k = partition.len();
        let labels: Vec<i8> = partition.labels(data.y);
        let signs: Vec<f64> = labels.iter().map(|&l| f64::from(l)).collect();
        let sizes: Vec<f64> = (0..k).map(|c| partition.size(c)).collect();
        let upper: Vec<f64> = sizes.iter().map(|size| data.c * size).collect();
        let alpha0 = self.warm_start(partition, splits, &upper);
        let options = time_left(&self.options, &mut self.started);
        let aggregated = match self.gram.as_mut() {
            Some(gram) => {
                gram.update(partition, splits, inner)?;
                let means = gram.means();
                let points = AggregatedPoints::Gram(&means);
                solve_aggregated(points, labels, upper, alpha0, &self.solver, &options, inner)?
            }
            None => {
                let centroids = partition.centroids(data.x, data.d);
                let points = AggregatedPoints::Centroids { values: &centroids, d: data.d };
                solve_aggregated(points, labels, upper, alpha0, &self.solver, &options, inner)?
            }
        };
        let AggregatedSvm { alpha, bias: b, w, w_norm2, converged } = aggregated;
        self.shares = alpha.iter().zip(&sizes).map(|(a, size)| a / size).collect();
        for (c, &share) in self.shares.iter().enumerate() {
            for &i in partition.members(c) {
                self.row_alpha[i as usize] = share;
            }
        }
        let dual_coef: Vec<f64> =
            self.row_alpha.iter().zip(data.y).map(|(a, &l)| a * f64::from(l)).collect();
        let decision = match self.gram.as_mut() {
            Some(gram) => gram.decision(&dual_coef, b, inner)?,
            None => linear_decision(data.x, data.d, &w, b),
        };
        let (masks, cells, hinge) = hinge_cells(&decision, data.y, self.purity_tol);
        let sum_f = partition.sums(&decision);
        let aggregated = aggregated_objective(w_norm2, data.c, &sizes, &signs, &sum_f);
        let dual_value = alpha.iter().sum::<f64>() - 0.5 * w_norm2;
        self.last_inner_gap = aggregated - dual_value;
        self.last_converged = converged;
        let round = Round {
            aggregated_objective: aggregated,
            lower_bound: if self.purity_certifies_optimality() {
                dual_value
            } else {
                f64::NEG_INFINITY
            },
            full_objective: 0.5 * w_norm2 + data.c * hinge,
            solved: converged,
            masks,
            cells,
        };
        Ok((round, SvmFit { dual_coef, w, bias: b, decision }))
    }

    /// SMO stops at a KKT violation `ε` (`options.tol`); the aggregated duality gap is
    /// `F − D = Σ_k [C|C_k| max(0, g_k) − α_k g_k]` (`g_k = 1 − y_k f̄_k`; with `Σ_k y_k α_k = 0`,
    /// `‖w‖² = Σ_k α_k y_k f̄_k`), each term at most about `ε · C|C_k|`. So the gap scales with
    /// `ε` and is bounded only by `ε C n`, not by the objective: on 40 rows scaled by 1e4
    /// (objective 2e-7 at `C = 1`), `ε = 1e-6` left rows 4e-7 inside the margin whose hinge
    /// (1.6e-6 in all) was 8× the optimum. The new tolerance is the old one times the ratio of
    /// the gap wanted to the gap left (at most 0.1, at least 1e-4 per step), down to
    /// [`MIN_INNER_TOL`] (at most 8 solves from 1e-6); a tightening that did not lower the gap
    /// (rounding, not `ε`, sets it) or a solve that did not converge ends the refinement.
    fn tighten_inner(&mut self, target: f64) -> bool {
        let gap = self.last_inner_gap;
        let next = tightened_inner_tol(
            self.options.tol,
            gap,
            target,
            self.gap_before_tightening,
            self.last_converged,
        );
        if let Some(tol) = next {
            self.options.tol = tol;
            self.gap_before_tightening = gap;
        }
        next.is_some()
    }

    fn warm_start(&self, partition: &Partition, splits: &[Split], upper: &[f64]) -> Vec<f64> {
        if self.shares.is_empty() {
            return vec![0.0; partition.len()];
        }
        let parent = Split::parents(self.shares.len(), partition.len(), splits);
        let counts: Vec<usize> = (0..partition.len()).map(|q| partition.members(q).len()).collect();
        warm_start(&self.shares, &parent, &counts, upper)
    }
}

impl<'a, S> AggregatedModel for SvmModel<'a, S>
where
    S: Solver<BoxQp<SignedQ<DenseKernel<'static>>>>
        + for<'g> Solver<BoxQp<SignedQ<PrecomputedGram<'g>>>>,
{
    type Fit = SvmFit;

    fn n_rows(&self) -> usize {
        self.data.y.len()
    }

    /// One aggregated solve, then, while the partition is pure but the aggregated problem's
    /// duality gap `F^t − D^t` keeps AID's certified gap above its `tol`, the same problem again
    /// from its solution with a tighter inner tolerance ([`SvmModel::tighten_inner`]): one
    /// round, one entry of the history.
    fn solve(
        &mut self,
        partition: &Partition,
        splits: &[Split],
        inner: &mut dyn Monitor,
    ) -> Result<(Round, SvmFit), SolveError> {
        self.options.tol = self.base_tol;
        self.gap_before_tightening = f64::INFINITY;
        let mut result = self.solve_once(partition, splits, inner)?;
        loop {
            let round = &result.0;
            let pure = partition.impure_clusters(&round.masks).is_empty();
            let target = 0.5 * self.gap_tol * round.full_objective;
            let certifies = self.purity_certifies_optimality();
            if !(pure && certifies && !inner.interrupted() && self.tighten_inner(target)) {
                return Ok(result);
            }
            // The shares are this partition's now: no split maps them.
            result = self.solve_once(partition, &[], inner)?;
        }
    }

    fn purity_needs_gap(&self) -> bool {
        true
    }

    fn set_gap_target(&mut self, tol: f64) {
        self.gap_tol = tol;
    }

    fn start_clock(&mut self, at: Instant) {
        self.started = Some(at);
    }

    fn purity_certifies_optimality(&self) -> bool {
        // Props. 3–4 rest on the convexity of the dual: with a kernel that is not positive
        // semidefinite (sigmoid, polynomial with coef0 < 0) neither purity nor the dual value
        // certifies anything (issue 46: a sigmoid run reported "optimal" above another seed's
        // objective).
        self.data.kernel.positive_semidefinite()
    }
}

/// The points of an aggregated SVM: the clusters' centroids (linear kernel, `K × d`) or the
/// aggregated Gram matrix `K̄` (`K × K`).
#[derive(Debug, Clone, Copy)]
pub enum AggregatedPoints<'a> {
    /// The centroids `x̄_k`, row-major.
    Centroids {
        /// `K × d` values.
        values: &'a [f64],
        /// Columns `d`.
        d: usize,
    },
    /// `K̄`, row-major `K × K`.
    Gram(&'a [f64]),
}

/// The solution of one aggregated SVM (21).
#[derive(Debug, Clone, PartialEq)]
pub struct AggregatedSvm {
    /// `α_k`.
    pub alpha: Vec<f64>,
    /// `b`.
    pub bias: f64,
    /// `w = Σ_k α_k y_k x̄_k` (centroids only; empty for `K̄`).
    pub w: Vec<f64>,
    /// `‖w‖²`.
    pub w_norm2: f64,
    /// Whether the solver met its stopping rule.
    pub converged: bool,
}

/// Solves the aggregated SVM dual (21) on `points` with labels ±1 `labels`, bounds `upper`
/// (`C|C_k|`) and warm start `alpha0` by `solver`: the step of every AID-SVM round, whoever
/// holds the rows.
pub fn solve_aggregated<S>(
    points: AggregatedPoints<'_>,
    labels: Vec<i8>,
    upper: Vec<f64>,
    alpha0: Vec<f64>,
    solver: &S,
    options: &SolveOptions,
    inner: &mut dyn Monitor,
) -> Result<AggregatedSvm, SolveError>
where
    S: Solver<BoxQp<SignedQ<DenseKernel<'static>>>>
        + for<'g> Solver<BoxQp<SignedQ<PrecomputedGram<'g>>>>,
{
    let k = labels.len();
    let signs: Vec<f64> = labels.iter().map(|&l| f64::from(l)).collect();
    let p = vec![-1.0; k];
    // Solved to float64 accuracy (`refined`): the f32 columns would leave an error of
    // 2⁻²⁴·C|C_k| in the gradient, above `tol` at a large `C`.
    let (solution, w, w_norm2) = match points {
        AggregatedPoints::Gram(means) => {
            if means.len() != k * k {
                return Err(SolveError::LengthMismatch {
                    name: "means",
                    expected: k * k,
                    actual: means.len(),
                });
            }
            let terms = DualTerms { signs: &signs, y: &labels, p: &p, upper: &upper };
            let dual = GramDual { means, terms };
            let solution = solve_refined(&dual, Some(alpha0), solver, options, inner)?;
            let coef: Vec<f64> = solution.x.iter().zip(&signs).map(|(a, s)| a * s).collect();
            let w_norm2 = quadratic_form(means, k, &coef);
            (solution, Vec::new(), w_norm2)
        }
        AggregatedPoints::Centroids { values, d } => {
            if values.len() != k * d {
                return Err(SolveError::LengthMismatch {
                    name: "centroids",
                    expected: k * d,
                    actual: values.len(),
                });
            }
            let terms = DualTerms { signs: &signs, y: &labels, p: &p, upper: &upper };
            let dual = LinearDual { rows: values, d, terms };
            let solution = solve_refined(&dual, Some(alpha0), solver, options, inner)?;
            let w = linear_weights(values, d, &solution.x, &signs);
            let w_norm2 = w.iter().map(|v| v * v).sum::<f64>();
            (solution, w, w_norm2)
        }
    };
    if solution.status == Status::NumericalError || !solution.bias.is_finite() {
        return Err(SolveError::invalid("aggregated SVM", "the inner solver failed"));
    }
    let converged = solution.status == Status::Converged;
    Ok(AggregatedSvm { alpha: solution.x, bias: solution.bias, w, w_norm2, converged })
}

/// The warm start of the clusters after a split: cluster `c`'s `α` is the sum of its rows'
/// `α̂ = shares[parent[c]]` (the previous round's `α_p/|C_p|`, added row by row), clamped to
/// `[0, upper[c]]` (digest §3.4: it keeps `Σ y α` and the previous objective).
pub fn warm_start(shares: &[f64], parent: &[usize], counts: &[usize], upper: &[f64]) -> Vec<f64> {
    parent
        .iter()
        .zip(counts)
        .zip(upper)
        .map(|((&p, &n), &u)| std::iter::repeat_n(shares[p], n).sum::<f64>().clamp(0.0, u))
        .collect()
}

/// `F^t = ½‖w‖² + C Σ_k |C_k| max(0, 1 − y_k f̄_k)`, `f̄_k = sum_f[k]/|C_k|` (Appendix B: the
/// aggregated SVM's objective from the clusters' sums of the rows' decision values).
pub fn aggregated_objective(
    w_norm2: f64,
    c: f64,
    sizes: &[f64],
    signs: &[f64],
    sum_f: &[f64],
) -> f64 {
    let hinge: f64 = (0..sizes.len())
        .map(|k| sizes[k] * (1.0 - signs[k] * (sum_f[k] / sizes[k])).max(0.0))
        .sum();
    0.5 * w_norm2 + c * hinge
}

/// `cᵀ M c` for a symmetric row-major `k × k` matrix. The rows' terms are computed in parallel and summed in row order: rayon's parallel `sum`
/// adds in the order its work was split and stolen, which made AID's objectives and bounds
/// differ in the last bits between thread counts and runs (a probe; the kept round is chosen by
/// comparing them).
pub(crate) fn quadratic_form(m: &[f64], k: usize, c: &[f64]) -> f64 {
    let terms: Vec<f64> =
        m.par_chunks(k.max(1))
            .zip(c.par_iter())
            .map(|(row, &ci)| {
                if ci == 0.0 {
                    0.0
                } else {
                    ci * row.iter().zip(c).map(|(a, b)| a * b).sum::<f64>()
                }
            })
            .collect();
    terms.iter().sum()
}
