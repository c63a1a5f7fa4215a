//! The linear semi-supervised SVM in AID (Park & Klabjan §3.3, eqs. (12)–(16)): a **heuristic**.
//!
//! Original problem (12), labeled rows `L`, unlabeled rows `U`, `f_i = w·x_i + b`:
//! `E* = min_{w,b} ½‖w‖² + C_l Σ_L max(0, 1 − y_i f_i) + C_u Σ_U max(0, 1 − |f_i|)` (the unknown
//! labels are eliminated by Lemma 1, `d_i = sign f_i`, `+1` at 0; the paper's mapping
//! (15)→(13) prints the sign reversed, digest §7.6). Clusters never mix labeled and unlabeled
//! rows or the two labeled classes. The aggregated problem (15) puts one unknown label `d_k` on
//! each unlabeled cluster mean, weight `C_u|D_k|`, and labeled cluster means weight `C_l|C_k|`;
//! for fixed labels it is a weighted SVM ([`crate::aid::svm`]), solved by the inner solver.
//!
//! The search over the labels ([`LabelSearch`]) is exact, by depth-first branch and bound, when
//! there are at most `exact_max_clusters` unlabeled clusters: a node fixes the labels of a
//! prefix of the unlabeled clusters (ordered by decreasing `|f̄_k|` under the labeled-only SVM),
//! its lower bound is the dual value of the SVM on the labeled and fixed clusters only (the
//! dropped losses are ≥ 0), and every node's `(w, b)` evaluated with Lemma-1 labels on all
//! clusters is a feasible point, hence an upper bound. Beyond that it is a local search:
//! alternate the SVM for fixed labels with Lemma-1 relabelling until the labels repeat (each step
//! minimises over one block, so the objective does not increase).
//!
//! Rows are evaluated as in §3.3: labeled rows by `g_i = 1 − y_i f_i` (pure: all `g ≤ 0` or all
//! `g ≥ 0`), unlabeled rows by the cell of `f_i` among `(−∞,−1]`, `(−1,0]`, `(0,1)`, `[1,∞)` —
//! Prop. 5's condition with per-row Lemma-1 labels (Step 3(a) as printed uses the cluster's
//! label `d̄_k` and gives other, coarser sets; digest §7.6). At a pure partition `E^t = F^t`
//! (Lemma 2), **but Prop. 5's optimality claim is false** (digest §7.1, §8.3): for unlabeled rows
//! the loss `max(0, 1 − |f|)` is not convex, `F^t` is not a lower bound of `E*`, and a pure
//! partition can stop above the optimum. The model therefore never reports optimality; its
//! lower bound is the dual value of the labeled-only aggregated SVM, valid but weak.
//!
//! The search can take thousands of SVM solves, so it also obeys the run's limits: it ends,
//! keeping the best point found so far, as soon as an inner solve was stopped (Ctrl-C, the
//! callback) or cut by the time limit, or the time limit (counted from the first aggregated
//! solve) has passed. A root solve that did not converge gives no lower bound.

use std::time::Instant;

use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction, SignedQ};

use crate::aid::driver::{AggregatedModel, Round};
use crate::aid::partition::{Partition, Split};
use crate::aid::svm::{hinge_cells, linear_decision, linear_weights, SvmFit};
use crate::box_qp::BoxQp;
use crate::protocol::{Monitor, SolveError, SolveOptions, Solver, Status};

/// The weighted SVM of one label assignment: `(w, b, dual value)`.
struct Weighted {
    w: Vec<f64>,
    b: f64,
    dual: f64,
    /// The solve converged (its dual value is then a valid bound).
    converged: bool,
}

/// The aggregated S3VM of one partition and the search over its cluster labels.
pub struct LabelSearch<'s, S> {
    centroids: Vec<f64>,
    d: usize,
    /// +1/−1 for labeled clusters, 0 for unlabeled ones.
    labels: Vec<i8>,
    /// `C_l|C_k|` or `C_u|D_k|`.
    weights: Vec<f64>,
    solver: &'s S,
    options: &'s SolveOptions,
    /// Aggregated SVM solves done.
    pub solves: usize,
    /// When the search must end (the run's time limit).
    deadline: Option<Instant>,
    /// An inner solve was stopped or cut, or the deadline passed: end the search.
    cut: bool,
}

impl<'s, S: Solver<BoxQp<SignedQ<DenseKernel<'static>>>>> LabelSearch<'s, S> {
    fn svm(
        &mut self,
        chosen: &[usize],
        labels: &[i8],
        inner: &mut dyn Monitor,
    ) -> Result<Weighted, SolveError> {
        self.solves += 1;
        let d = self.d;
        // A cluster of weight 0 (`C_unlabeled = 0`) has `α_k ∈ [0, 0]`: it is left out of the
        // QP, whose solution it cannot change (and whose solver refuses an empty box).
        let (chosen, labels): (Vec<usize>, Vec<i8>) = chosen
            .iter()
            .zip(labels)
            .filter(|&(&k, _)| self.weights[k] > 0.0)
            .map(|(&k, &label)| (k, label))
            .unzip();
        if chosen.is_empty() {
            return Ok(Weighted { w: vec![0.0; d], b: 0.0, dual: 0.0, converged: true });
        }
        let rows: Vec<f64> = chosen
            .iter()
            .flat_map(|&k| self.centroids[k * d..(k + 1) * d].iter().copied())
            .collect();
        let signs: Vec<f64> = labels.iter().map(|&l| f64::from(l)).collect();
        let upper: Vec<f64> = chosen.iter().map(|&k| self.weights[k]).collect();
        let kernel = DenseKernel::new(
            DenseRows::from_vec(rows.clone(), chosen.len(), d)?,
            KernelFunction::Linear,
        )?;
        let q = SignedQ::new(kernel, signs.clone(), self.options.cache_bytes);
        let mut problem = BoxQp::new(q, vec![-1.0; chosen.len()], labels, upper, None)?;
        let solution = self.solver.solve(&mut problem, self.options, inner)?;
        let w = linear_weights(&rows, d, &solution.x, &signs);
        let dual = solution.x.iter().sum::<f64>() - 0.5 * w.iter().map(|v| v * v).sum::<f64>();
        if matches!(solution.status, Status::Stopped | Status::TimeLimit)
            || self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
        {
            self.cut = true;
        }
        let converged = solution.status == Status::Converged;
        Ok(Weighted { w, b: solution.bias, dual, converged })
    }

    /// The aggregated objective at `(w, b)` with Lemma-1 labels, and those labels.
    fn evaluate(&self, w: &[f64], b: f64) -> (f64, Vec<f64>) {
        let f = linear_decision(&self.centroids, self.d, w, b);
        let mut value = 0.5 * w.iter().map(|v| v * v).sum::<f64>();
        for (k, &fk) in f.iter().enumerate() {
            let margin =
                if self.labels[k] == 0 { fk.abs() } else { f64::from(self.labels[k]) * fk };
            value += self.weights[k] * (1.0 - margin).max(0.0);
        }
        (value, f)
    }

    /// The best `(w, b)` found and its aggregated objective; exact when there are at most
    /// `exact_max` unlabeled clusters.
    fn run(
        &mut self,
        exact_max: usize,
        inner: &mut dyn Monitor,
    ) -> Result<(f64, Vec<f64>, f64, f64), SolveError> {
        let labeled: Vec<usize> = (0..self.labels.len()).filter(|&k| self.labels[k] != 0).collect();
        let labeled_signs: Vec<i8> = labeled.iter().map(|&k| self.labels[k]).collect();
        let root = self.svm(&labeled, &labeled_signs, inner)?;
        let (mut best_value, f) = self.evaluate(&root.w, root.b);
        let mut best = (root.w.clone(), root.b);
        let lower = if root.converged { root.dual } else { f64::NEG_INFINITY };
        if self.cut {
            return Ok((best_value, best.0, best.1, lower));
        }
        let mut unlabeled: Vec<usize> =
            (0..self.labels.len()).filter(|&k| self.labels[k] == 0).collect();
        unlabeled.sort_by(|&a, &b| f[b].abs().total_cmp(&f[a].abs()).then(a.cmp(&b)));
        if unlabeled.len() <= exact_max {
            // Depth-first branch and bound; a node is (prefix length, labels of the prefix).
            let mut stack: Vec<Vec<i8>> = Vec::new();
            let first = if f.get(unlabeled.first().copied().unwrap_or(0)).is_some_and(|v| *v >= 0.0)
            {
                1
            } else {
                -1
            };
            if !unlabeled.is_empty() {
                stack.push(vec![-first]);
                stack.push(vec![first]);
            }
            while let Some(prefix) = stack.pop() {
                let mut chosen = labeled.clone();
                chosen.extend_from_slice(&unlabeled[..prefix.len()]);
                let mut signs = labeled_signs.clone();
                signs.extend_from_slice(&prefix);
                let node = self.svm(&chosen, &signs, inner)?;
                let (value, f) = self.evaluate(&node.w, node.b);
                if value < best_value {
                    best_value = value;
                    best = (node.w.clone(), node.b);
                }
                if self.cut {
                    break;
                }
                if prefix.len() == unlabeled.len() || node.dual >= best_value * (1.0 - 1e-12) {
                    continue;
                }
                let next = unlabeled[prefix.len()];
                let greedy: i8 = if f[next] >= 0.0 { 1 } else { -1 };
                for label in [-greedy, greedy] {
                    let mut child = prefix.clone();
                    child.push(label);
                    stack.push(child);
                }
            }
        } else {
            let mut current: Vec<i8> =
                unlabeled.iter().map(|&k| if f[k] >= 0.0 { 1 } else { -1 }).collect();
            let all: Vec<usize> = labeled.iter().chain(&unlabeled).copied().collect();
            for _ in 0..100 {
                let mut signs = labeled_signs.clone();
                signs.extend_from_slice(&current);
                let node = self.svm(&all, &signs, inner)?;
                let (value, f) = self.evaluate(&node.w, node.b);
                if value < best_value {
                    best_value = value;
                    best = (node.w.clone(), node.b);
                }
                if self.cut {
                    break;
                }
                let relabelled: Vec<i8> =
                    unlabeled.iter().map(|&k| if f[k] >= 0.0 { 1 } else { -1 }).collect();
                if relabelled == current {
                    break;
                }
                current = relabelled;
            }
        }
        Ok((best_value, best.0, best.1, lower))
    }
}

/// The S3VM data: dense rows, labels (`+1`, `−1`, or `0` for unlabeled), the two penalties.
#[derive(Debug, Clone, Copy)]
pub struct S3vmData<'a> {
    /// `n × d`, row-major.
    pub x: &'a [f64],
    /// Columns.
    pub d: usize,
    /// `+1`, `−1`, or `0` (unlabeled).
    pub y: &'a [i8],
    /// `C_l > 0`.
    pub c_labeled: f64,
    /// `C_u ≥ 0`.
    pub c_unlabeled: f64,
}

/// The S3VM of AID with inner solver `S`.
#[derive(Debug)]
pub struct S3vmModel<'a, S> {
    data: S3vmData<'a>,
    solver: S,
    options: SolveOptions,
    exact_max_clusters: usize,
    purity_tol: f64,
    /// Aggregated SVM solves over the whole run.
    pub svm_solves: usize,
    /// When the first aggregated solve started (the time limit counts from it).
    started: Option<Instant>,
}

impl<'a, S: Solver<BoxQp<SignedQ<DenseKernel<'static>>>>> S3vmModel<'a, S> {
    /// A model over `data`.
    pub fn new(
        data: S3vmData<'a>,
        solver: S,
        options: SolveOptions,
        exact_max_clusters: usize,
    ) -> Result<Self, SolveError> {
        let n = data.y.len();
        if data.x.len() != n * data.d {
            return Err(SolveError::LengthMismatch {
                name: "X",
                expected: n * data.d,
                actual: data.x.len(),
            });
        }
        if !(data.c_labeled.is_finite() && data.c_labeled > 0.0) {
            return Err(SolveError::InvalidProblem {
                name: "C",
                reason: "must be finite and > 0".into(),
            });
        }
        if !(data.c_unlabeled.is_finite() && data.c_unlabeled >= 0.0) {
            return Err(SolveError::InvalidProblem {
                name: "C_unlabeled",
                reason: "must be finite and >= 0".into(),
            });
        }
        if !(data.y.contains(&1) && data.y.contains(&-1)) {
            return Err(SolveError::InvalidProblem {
                name: "y",
                reason: "the labeled rows need both classes".into(),
            });
        }
        if let Some(i) = data.x.iter().position(|v| !v.is_finite()) {
            return Err(SolveError::InvalidProblem {
                name: "X",
                reason: format!("value {i} is not finite"),
            });
        }
        Ok(S3vmModel {
            data,
            solver,
            options,
            exact_max_clusters,
            purity_tol: 1e-9,
            svm_solves: 0,
            started: None,
        })
    }
}

/// Masks and cells of unlabeled rows: cells 2..=5 are `(−∞,−1]`, `(−1,0]`, `(0,1)`, `[1,∞)`;
/// a row within `tol` of a boundary fits the cells on both sides.
pub(crate) fn unlabeled_cell(f: f64, tol: f64) -> (u8, u8) {
    let cell = if f <= -1.0 {
        2
    } else if f <= 0.0 {
        3
    } else if f < 1.0 {
        4
    } else {
        5
    };
    let mut mask = 1u8 << cell;
    for (boundary, low) in [(-1.0, 2), (0.0, 3), (1.0, 4)] {
        if (f - boundary).abs() <= tol {
            mask |= (1 << low) | (1 << (low + 1));
        }
    }
    (mask, cell)
}

impl<S: Solver<BoxQp<SignedQ<DenseKernel<'static>>>>> AggregatedModel for S3vmModel<'_, S> {
    type Fit = SvmFit;

    fn n_rows(&self) -> usize {
        self.data.y.len()
    }

    fn solve(
        &mut self,
        partition: &Partition,
        _splits: &[Split],
        inner: &mut dyn Monitor,
    ) -> Result<(Round, SvmFit), SolveError> {
        let data = self.data;
        let k = partition.len();
        let labels: Vec<i8> = partition.labels(data.y);
        let weights = (0..k)
            .map(|c| {
                partition.size(c) * if labels[c] == 0 { data.c_unlabeled } else { data.c_labeled }
            })
            .collect();
        let started = *self.started.get_or_insert_with(Instant::now);
        let mut search = LabelSearch {
            centroids: partition.centroids(data.x, data.d),
            d: data.d,
            labels,
            weights,
            solver: &self.solver,
            options: &self.options,
            solves: 0,
            deadline: self.options.time_limit.map(|limit| started + limit),
            cut: false,
        };
        let (aggregated, w, b, lower) = search.run(self.exact_max_clusters, inner)?;
        let cut = search.cut;
        self.svm_solves += search.solves;
        let decision = linear_decision(data.x, data.d, &w, b);
        let signs: Vec<i8> = data.y.iter().map(|&l| if l == 0 { 1 } else { l }).collect();
        let (mut masks, mut cells, _) = hinge_cells(&decision, &signs, self.purity_tol);
        let mut objective = 0.5 * w.iter().map(|v| v * v).sum::<f64>();
        for (i, &f) in decision.iter().enumerate() {
            if data.y[i] == 0 {
                (masks[i], cells[i]) = unlabeled_cell(f, self.purity_tol);
                objective += data.c_unlabeled * (1.0 - f.abs()).max(0.0);
            } else {
                objective += data.c_labeled * (1.0 - f64::from(data.y[i]) * f).max(0.0);
            }
        }
        let round = Round {
            aggregated_objective: aggregated,
            lower_bound: lower,
            full_objective: objective,
            solved: !cut,
            masks,
            cells,
        };
        Ok((round, SvmFit { dual_coef: Vec::new(), w, bias: b, decision }))
    }

    fn purity_certifies_optimality(&self) -> bool {
        false
    }
}
