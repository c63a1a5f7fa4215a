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
//! ## Unbalanced data (§4.3, [`S3vmBalance`])
//!
//! The paper offers two options, which it says "significantly affect the result":
//!
//! * the **balance constraint** `Σ_{i∈U} (w·x_i + b)/|U| = Σ_{i∈L} y_i/|L|` (printed with `b_i`,
//!   a typo for `b`; digest §7). It is linear in `(w, b)`, so it aggregates exactly: with `x̄_U`
//!   the mean of the unlabeled rows (the same over the rows and over the weighted cluster
//!   means) and `r` the right-hand side, it reads `w·x̄_U + b = r`. Centering every row,
//!   `x' = x − x̄_U`, turns it into a fixed bias: `f = w·x' + r`. For fixed labels the SVM is
//!   then `min ½‖w‖² + Σ_k c_k max(0, 1 − y_k(w·x'_k + r))`, whose dual
//!   `max Σ_k α_k(1 − y_k r) − ½‖Σ_k α_k y_k x'_k‖²`, `0 ≤ α ≤ c`, has no equality constraint.
//!   The SMO engine always keeps one, `yᵀα` fixed, so two zero rows with signs `+1` and `−1`,
//!   linear term 0 and a bound no step reaches are added: their gradient is always 0, and at a
//!   KKT point (either free, or both at 0 where `I_up` holds one and `I_low` the other) they pin
//!   the equality's multiplier to 0, which leaves the problem without the equality. The node's
//!   `b = r − w·x̄_U`. Every bound of the search stays valid: each node's problem has the
//!   constraint, and its `(w, b)` satisfies it on all rows.
//! * the **balance cost**: the labeled rows' weight `C_l` is multiplied by `max{1, |L⁻|/|L⁺|}`
//!   for the positives and `max{1, |L⁺|/|L⁻|}` for the negatives, the stated intent ("larger
//!   weights for the minority class"). As printed the factors are swapped and up-weight the
//!   majority class (digest §7); [`S3vmBalance::CostAsPrinted`] keeps that reading, since the
//!   paper's numbers may come from either.
//!
//! The search can take thousands of SVM solves, so it also obeys the run's limits: it ends,
//! keeping the best point found so far, as soon as an inner solve was stopped (Ctrl-C, the
//! callback) or cut by the time limit, or the time limit (counted from the first aggregated
//! solve) has passed. A root solve that did not converge gives no lower bound.

use std::rc::Rc;
use std::time::Instant;

use kernelkit_kernels::{DenseKernel, SignedQ};

use crate::aid::driver::{AggregatedModel, Round};
use crate::aid::partition::{Partition, Split};
use crate::aid::refined::{solve_refined, DualTerms, LinearDual};
use crate::aid::svm::{hinge_cells, linear_decision, linear_weights, SvmFit};
use crate::box_qp::BoxQp;
use crate::protocol::{Monitor, SolveError, SolveOptions, Solver, Status};

/// The weighted SVM of one label assignment: `(w, b, dual value)` and its dual solution.
struct Weighted {
    w: Vec<f64>,
    b: f64,
    dual: f64,
    /// The solve converged (its dual value is then a valid bound).
    converged: bool,
    /// The dual solution: one `α_k` per chosen cluster of positive weight, in order, then the
    /// two zero rows of the balance constraint (if any).
    alpha: Vec<f64>,
    /// How many of `alpha` are clusters'.
    clusters: usize,
}

/// The lowest aggregated objective found so far and its `(w, b)`.
struct Best {
    value: f64,
    w: Vec<f64>,
    b: f64,
}

/// The balance constraint `w·x̄_U + b = r` (module documentation).
#[derive(Debug, Clone)]
struct BalanceConstraint {
    /// `x̄_U`, the mean of the unlabeled rows.
    mean: Vec<f64>,
    /// `r = Σ_L y_i / |L|`.
    target: f64,
}

/// The aggregated S3VM of one partition and the search over its cluster labels.
pub struct LabelSearch<'s, S> {
    centroids: Vec<f64>,
    d: usize,
    /// +1/−1 for labeled clusters, 0 for unlabeled ones.
    labels: Vec<i8>,
    /// `C_l|C_k|` (times the class's balance cost) or `C_u|D_k|`.
    weights: Vec<f64>,
    /// The balance constraint, when asked for.
    balance: Option<&'s BalanceConstraint>,
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
    /// The SVM of the clusters `chosen` labelled `labels`, solved to float64 accuracy
    /// ([`solve_refined`]); started from `parent`'s solution with the new last cluster at 0
    /// when `chosen` is `parent`'s clusters and one more (a branch-and-bound child: feasible,
    /// as the bounds and `yᵀα` are unchanged), else from 0.
    fn svm(
        &mut self,
        chosen: &[usize],
        labels: &[i8],
        parent: Option<&Weighted>,
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
        let target = self.balance.map_or(0.0, |balance| balance.target);
        if chosen.is_empty() {
            // w = 0; with the balance constraint the bias is r.
            let empty = Vec::new();
            return Ok(Weighted {
                w: vec![0.0; d],
                b: target,
                dual: 0.0,
                converged: true,
                alpha: empty,
                clusters: 0,
            });
        }
        // The parent's clusters, the new one (when of positive weight) at 0, the zero rows.
        let alpha0: Option<Vec<f64>> = parent.and_then(|parent| {
            let (clusters, pinned) = parent.alpha.split_at(parent.clusters.min(parent.alpha.len()));
            let new = chosen.len().checked_sub(clusters.len()).filter(|&new| new <= 1)?;
            let start = clusters.iter().copied().chain(std::iter::repeat_n(0.0, new));
            Some(start.chain(pinned.iter().copied()).collect())
        });
        let mut rows: Vec<f64> = chosen
            .iter()
            .flat_map(|&k| self.centroids[k * d..(k + 1) * d].iter().copied())
            .collect();
        let mut signs: Vec<f64> = labels.iter().map(|&l| f64::from(l)).collect();
        let mut upper: Vec<f64> = chosen.iter().map(|&k| self.weights[k]).collect();
        let mut p = vec![-1.0; chosen.len()];
        let mut labels = labels;
        if let Some(balance) = self.balance {
            // Centered rows, the fixed bias r in the linear term, and the two zero rows that
            // free the dual of its equality (module documentation).
            for row in rows.chunks_exact_mut(d.max(1)).take(chosen.len()) {
                for (v, m) in row.iter_mut().zip(&balance.mean) {
                    *v -= m;
                }
            }
            for (p_k, &y_k) in p.iter_mut().zip(&signs) {
                *p_k = -(1.0 - y_k * balance.target);
            }
            let unreachable = 2.0 * upper.iter().sum::<f64>() + 1.0;
            for sign in [1i8, -1] {
                rows.extend(std::iter::repeat_n(0.0, d));
                signs.push(f64::from(sign));
                labels.push(sign);
                upper.push(unreachable);
                p.push(0.0);
            }
        }
        let terms = DualTerms { signs: &signs, y: &labels, p: &p, upper: &upper };
        let dual = LinearDual { rows: &rows, d, terms };
        let alpha0 = alpha0.filter(|start| start.len() == signs.len());
        let solution = solve_refined(&dual, alpha0, self.solver, self.options, inner)?;
        let w = linear_weights(&rows, d, &solution.x, &signs);
        // −pᵀα − ½‖w‖²: Σ α_k without the constraint, Σ α_k (1 − y_k r) with it.
        let linear: f64 = solution.x.iter().zip(&p).map(|(a, p_k)| -a * p_k).sum();
        let dual = linear - 0.5 * w.iter().map(|v| v * v).sum::<f64>();
        let b = match self.balance {
            Some(balance) => {
                balance.target - w.iter().zip(&balance.mean).map(|(a, m)| a * m).sum::<f64>()
            }
            None => solution.bias,
        };
        if matches!(solution.status, Status::Stopped | Status::TimeLimit)
            || self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
        {
            self.cut = true;
        }
        let converged = solution.status == Status::Converged;
        Ok(Weighted { w, b, dual, converged, alpha: solution.x, clusters: chosen.len() })
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

    /// The SVM of the clusters `chosen` labelled `labeled_signs` then `more` ([`Self::svm`]),
    /// kept in `best` when its aggregated objective is lower; returns the solve and the decision
    /// values of its `(w, b)` ([`Self::evaluate`]).
    fn try_labels(
        &mut self,
        chosen: &[usize],
        labeled_signs: &[i8],
        more: &[i8],
        parent: Option<&Weighted>,
        inner: &mut dyn Monitor,
        best: &mut Best,
    ) -> Result<(Weighted, Vec<f64>), SolveError> {
        let mut signs = labeled_signs.to_vec();
        signs.extend_from_slice(more);
        let node = self.svm(chosen, &signs, parent, inner)?;
        let (value, f) = self.evaluate(&node.w, node.b);
        if value < best.value {
            *best = Best { value, w: node.w.clone(), b: node.b };
        }
        Ok((node, f))
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
        let root = self.svm(&labeled, &labeled_signs, None, inner)?;
        let (value, f) = self.evaluate(&root.w, root.b);
        let mut best = Best { value, w: root.w.clone(), b: root.b };
        let lower = if root.converged { root.dual } else { f64::NEG_INFINITY };
        if self.cut {
            return Ok((best.value, best.w, best.b, lower));
        }
        let mut unlabeled: Vec<usize> =
            (0..self.labels.len()).filter(|&k| self.labels[k] == 0).collect();
        unlabeled.sort_by(|&a, &b| f[b].abs().total_cmp(&f[a].abs()).then(a.cmp(&b)));
        if unlabeled.len() <= exact_max {
            // Depth-first branch and bound; a node is the labels of a prefix of `unlabeled`,
            // with its parent's solve (its start).
            let root = Rc::new(root);
            let mut stack: Vec<(Vec<i8>, Rc<Weighted>)> = Vec::new();
            let first = if f.get(unlabeled.first().copied().unwrap_or(0)).is_some_and(|v| *v >= 0.0)
            {
                1
            } else {
                -1
            };
            if !unlabeled.is_empty() {
                stack.push((vec![-first], Rc::clone(&root)));
                stack.push((vec![first], Rc::clone(&root)));
            }
            while let Some((prefix, parent)) = stack.pop() {
                let mut chosen = labeled.clone();
                chosen.extend_from_slice(&unlabeled[..prefix.len()]);
                let (node, f) = self.try_labels(
                    &chosen,
                    &labeled_signs,
                    &prefix,
                    Some(&parent),
                    inner,
                    &mut best,
                )?;
                if self.cut {
                    break;
                }
                if prefix.len() == unlabeled.len() || node.dual >= best.value * (1.0 - 1e-12) {
                    continue;
                }
                let next = unlabeled[prefix.len()];
                let greedy: i8 = if f[next] >= 0.0 { 1 } else { -1 };
                let node = Rc::new(node);
                for label in [-greedy, greedy] {
                    let mut child = prefix.clone();
                    child.push(label);
                    stack.push((child, Rc::clone(&node)));
                }
            }
        } else {
            let mut current: Vec<i8> =
                unlabeled.iter().map(|&k| if f[k] >= 0.0 { 1 } else { -1 }).collect();
            let all: Vec<usize> = labeled.iter().chain(&unlabeled).copied().collect();
            for _ in 0..100 {
                let (_, f) =
                    self.try_labels(&all, &labeled_signs, &current, None, inner, &mut best)?;
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
        Ok((best.value, best.w, best.b, lower))
    }

    /// Runs the search and reports it.
    fn finish(
        mut self,
        exact_max: usize,
        inner: &mut dyn Monitor,
    ) -> Result<LabelSearchResult, SolveError> {
        let (objective, w, bias, lower_bound) = self.run(exact_max, inner)?;
        Ok(LabelSearchResult {
            objective,
            w,
            bias,
            lower_bound,
            solves: self.solves,
            cut: self.cut,
        })
    }
}

/// What [`search_labels`] found: the best point of the search over the unlabeled clusters'
/// labels.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelSearchResult {
    /// `F`: the aggregated objective (15) at the best point, with Lemma-1 labels.
    pub objective: f64,
    /// `w`.
    pub w: Vec<f64>,
    /// `b`.
    pub bias: f64,
    /// The dual value of the labeled-only aggregated SVM (`−∞` when its solve did not converge).
    pub lower_bound: f64,
    /// Aggregated SVM solves done.
    pub solves: usize,
    /// The search ended early: an inner solve was stopped or cut, or the deadline passed.
    pub cut: bool,
}

/// The aggregated S3VM (15) of given clusters, searched over the labels of its unlabeled
/// clusters (module documentation; without the balance constraint): `centroids` row-major
/// `K × d`, `labels` `+1`, `−1` or `0` (unlabeled) per cluster, `weights` each cluster's hinge
/// weight (`C_l|C_k|`, `C_u|D_k|`). Exact by branch and bound with at most
/// `exact_max_clusters` unlabeled clusters, else a local search; it ends early, keeping the
/// best point, when an inner solve is stopped or cut, or at `deadline`. The step
/// [`S3vmModel`] takes once per aggregated solve.
#[allow(clippy::too_many_arguments)]
pub fn search_labels<S: Solver<BoxQp<SignedQ<DenseKernel<'static>>>>>(
    centroids: Vec<f64>,
    d: usize,
    labels: Vec<i8>,
    weights: Vec<f64>,
    exact_max_clusters: usize,
    solver: &S,
    options: &SolveOptions,
    deadline: Option<Instant>,
    inner: &mut dyn Monitor,
) -> Result<LabelSearchResult, SolveError> {
    let k = labels.len();
    if k == 0 {
        return Err(SolveError::invalid("labels", "there are no clusters"));
    }
    if centroids.len() != k * d {
        return Err(SolveError::LengthMismatch {
            name: "centroids",
            expected: k * d,
            actual: centroids.len(),
        });
    }
    if weights.len() != k {
        return Err(SolveError::LengthMismatch {
            name: "weights",
            expected: k,
            actual: weights.len(),
        });
    }
    if let Some(v) = labels.iter().find(|v| !(-1..=1).contains(*v)) {
        return Err(SolveError::invalid("labels", format!("{v} is not -1, 0 or +1")));
    }
    if let Some(w) = weights.iter().find(|w| !(w.is_finite() && **w >= 0.0)) {
        return Err(SolveError::invalid("weights", format!("{w} is not finite and >= 0")));
    }
    if let Some(i) = centroids.iter().position(|v| !v.is_finite()) {
        return Err(SolveError::invalid("centroids", format!("value {i} is not finite")));
    }
    let search = LabelSearch {
        centroids,
        d,
        labels,
        weights,
        balance: None,
        solver,
        options,
        solves: 0,
        deadline,
        cut: false,
    };
    search.finish(exact_max_clusters, inner)
}

/// The paper's options for unbalanced data (§4.3; module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum S3vmBalance {
    /// Neither option.
    #[default]
    None,
    /// `Σ_U f_i/|U| = Σ_L y_i/|L|`.
    Constraint,
    /// Labeled weights `C_l · max{1, |L⁻|/|L⁺|}` on positives, `C_l · max{1, |L⁺|/|L⁻|}` on
    /// negatives: the minority class weighs more, as the paper intends.
    Cost,
    /// The factors as printed (swapped): the majority class weighs more.
    CostAsPrinted,
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
    /// The option for unbalanced data.
    pub balance: S3vmBalance,
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
    /// The hinge weights of a negative, unlabeled and positive row (indexed by `label + 1`).
    row_weights: [f64; 3],
    /// The balance constraint, with [`S3vmBalance::Constraint`].
    balance: Option<BalanceConstraint>,
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
            return Err(SolveError::invalid("C", "must be finite and > 0"));
        }
        if !(data.c_unlabeled.is_finite() && data.c_unlabeled >= 0.0) {
            return Err(SolveError::invalid("C_unlabeled", "must be finite and >= 0"));
        }
        if !(data.y.contains(&1) && data.y.contains(&-1)) {
            return Err(SolveError::invalid("y", "the labeled rows need both classes"));
        }
        if let Some(i) = data.x.iter().position(|v| !v.is_finite()) {
            return Err(SolveError::invalid("X", format!("value {i} is not finite")));
        }
        // The balance cost's class factors (module documentation): as the paper intends, each
        // class weighs max{1, the other class's count / its own}; as printed, swapped.
        let count = |class: i8| data.y.iter().filter(|&&v| v == class).count() as f64;
        let (positives, negatives) = (count(1), count(-1));
        let intended = ((negatives / positives).max(1.0), (positives / negatives).max(1.0));
        let (positive_factor, negative_factor) = match data.balance {
            S3vmBalance::Cost => intended,
            S3vmBalance::CostAsPrinted => (intended.1, intended.0),
            S3vmBalance::None | S3vmBalance::Constraint => (1.0, 1.0),
        };
        let row_weights =
            [data.c_labeled * negative_factor, data.c_unlabeled, data.c_labeled * positive_factor];
        let balance = match data.balance {
            S3vmBalance::Constraint => {
                let unlabeled = data.y.iter().filter(|&&v| v == 0).count();
                if unlabeled == 0 {
                    return Err(SolveError::invalid(
                        "balance",
                        "the balance constraint needs unlabeled rows",
                    ));
                }
                let mut mean = vec![0.0; data.d];
                for (row, _) in
                    data.x.chunks_exact(data.d.max(1)).zip(data.y).filter(|(_, &v)| v == 0)
                {
                    for (m, v) in mean.iter_mut().zip(row) {
                        *m += v;
                    }
                }
                mean.iter_mut().for_each(|m| *m /= unlabeled as f64);
                let labeled = data.y.iter().filter(|&&v| v != 0);
                let target =
                    labeled.clone().map(|&v| f64::from(v)).sum::<f64>() / labeled.count() as f64;
                Some(BalanceConstraint { mean, target })
            }
            _ => None,
        };
        Ok(S3vmModel {
            data,
            solver,
            options,
            exact_max_clusters,
            purity_tol: 1e-9,
            svm_solves: 0,
            started: None,
            row_weights,
            balance,
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
        let row_weights = self.row_weights;
        let weight = |label: i8| row_weights[(label + 1) as usize];
        let weights = (0..k).map(|c| partition.size(c) * weight(labels[c])).collect();
        let started = *self.started.get_or_insert_with(Instant::now);
        let search = LabelSearch {
            centroids: partition.centroids(data.x, data.d),
            d: data.d,
            labels,
            weights,
            balance: self.balance.as_ref(),
            solver: &self.solver,
            options: &self.options,
            solves: 0,
            deadline: self.options.time_limit.map(|limit| started + limit),
            cut: false,
        };
        let LabelSearchResult {
            objective: aggregated,
            w,
            bias: b,
            lower_bound: lower,
            solves,
            cut,
        } = search.finish(self.exact_max_clusters, inner)?;
        self.svm_solves += solves;
        let decision = linear_decision(data.x, data.d, &w, b);
        let signs: Vec<i8> = data.y.iter().map(|&l| if l == 0 { 1 } else { l }).collect();
        let (mut masks, mut cells, _) = hinge_cells(&decision, &signs, self.purity_tol);
        let mut objective = 0.5 * w.iter().map(|v| v * v).sum::<f64>();
        for (i, &f) in decision.iter().enumerate() {
            if data.y[i] == 0 {
                (masks[i], cells[i]) = unlabeled_cell(f, self.purity_tol);
                objective += weight(0) * (1.0 - f.abs()).max(0.0);
            } else {
                objective += weight(data.y[i]) * (1.0 - f64::from(data.y[i]) * f).max(0.0);
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

    fn start_clock(&mut self, at: Instant) {
        self.started = Some(at);
    }

    fn purity_certifies_optimality(&self) -> bool {
        false
    }
}
