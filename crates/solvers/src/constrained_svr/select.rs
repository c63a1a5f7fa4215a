//! The violation scores of Algorithm 2 and the block they select.
//!
//! * α block (Algorithm 1, the maximal violating pair of Keerthi et al. 2001):
//!   `i = argmin_{α_i < C} ∇_α f`, `j = argmax_{α_j > 0} ∇_α f`, `Δ1 = ∇_j − ∇_i`.
//! * α* block: the same with `∇_α* f = −∇_α f` and the bounds of α*, `Δ2`.
//! * γ block: [`GammaRule::ProjectedGradient`] (default) scores `|∇_γj f|` when `γ_j > 0` and
//!   `max(−∇_γj f, 0)` when `γ_j = 0`, the complete KKT violation of `γ ≥ 0` (digest §2.5).
//!   [`GammaRule::Paper`] is Definition 3.3 as printed, `Δ3 = −min_j ∇_γj f`: it never sees a
//!   positive multiplier on an inactive constraint (`γ_j > 0`, `∇_γj f > 0`), so Algorithm 2
//!   can stop at a non-optimal point (kept for reproducing the paper only).
//! * μ block: `Δ4 = max_j |∇_μj f|`, `u = argmax_j |∇_μj f|` (Algorithm 2 prints `argmax ∇_μ f`
//!   without the absolute value: a typo, it must select what `Δ4` measures).
//!
//! The n-long scan of the α blocks is one fused pass over fixed chunks (rayon above
//! [`PARALLEL_MIN_LEN`]); ties go to the smallest index, and blocks tie in the order 1–4 as in
//! the paper's if/elif chain, so the choice does not depend on the thread count.

use kernelkit_kernels::PARALLEL_MIN_LEN;

use super::state::{State, ROW_CHUNK};

/// The rule that scores the inequality multipliers γ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GammaRule {
    /// The projected gradient (complete KKT check; the digest's fix). Default.
    #[default]
    ProjectedGradient,
    /// The paper's Definition 3.3 (`−min ∇_γ f`); can stop early. Reproduction only.
    Paper,
}

/// The four blocks of `θ`, numbered as in the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// α: a pair step.
    Alpha = 1,
    /// α*: a pair step.
    AlphaStar = 2,
    /// γ: one inequality multiplier.
    Gamma = 3,
    /// μ: one equality multiplier.
    Mu = 4,
}

/// A (value, index) extreme; ties keep the smaller index.
#[derive(Debug, Clone, Copy)]
struct Extreme {
    value: f64,
    index: usize,
}

impl Extreme {
    const fn none(value: f64) -> Self {
        Extreme { value, index: usize::MAX }
    }
    #[inline]
    fn below(&mut self, value: f64, index: usize) {
        if value < self.value {
            *self = Extreme { value, index };
        }
    }
    #[inline]
    fn above(&mut self, value: f64, index: usize) {
        if value > self.value {
            *self = Extreme { value, index };
        }
    }
    fn exists(&self) -> bool {
        self.index != usize::MAX
    }
}

/// Extremes of `g = ∇_α f` over the four index sets of the α and α* blocks.
#[derive(Debug, Clone, Copy)]
struct PairExtremes {
    /// min g over `α < C` (α's i).
    alpha_up: Extreme,
    /// max g over `α > 0` (α's j).
    alpha_low: Extreme,
    /// max g over `α* < C` (α*'s i: the min of `−g`).
    star_up: Extreme,
    /// min g over `α* > 0` (α*'s j: the max of `−g`).
    star_low: Extreme,
}

impl PairExtremes {
    const EMPTY: PairExtremes = PairExtremes {
        alpha_up: Extreme::none(f64::INFINITY),
        alpha_low: Extreme::none(f64::NEG_INFINITY),
        star_up: Extreme::none(f64::NEG_INFINITY),
        star_low: Extreme::none(f64::INFINITY),
    };

    fn scan(state: &State, y: &[f64], c: f64, start: usize, end: usize) -> Self {
        let mut e = PairExtremes::EMPTY;
        let rows = y[start..end].iter().zip(&state.r[start..end]);
        let bounds = state.alpha[start..end].iter().zip(&state.alpha_star[start..end]);
        for (offset, ((&y_i, &r_i), (&a, &s))) in rows.zip(bounds).enumerate() {
            let (i, g) = (start + offset, y_i - r_i);
            // Which sets `i` belongs to is random by index (about half the variables sit at a
            // bound): mask the candidates without branches, so that the only branches left
            // are the rare improvements of an extreme.
            e.alpha_up.below(if a < c { g } else { f64::INFINITY }, i);
            e.alpha_low.above(if a > 0.0 { g } else { f64::NEG_INFINITY }, i);
            e.star_up.above(if s < c { g } else { f64::NEG_INFINITY }, i);
            e.star_low.below(if s > 0.0 { g } else { f64::INFINITY }, i);
        }
        e
    }

    /// Combines with a later chunk (strict comparisons keep the earlier index on ties).
    fn merge(mut self, later: &PairExtremes) -> Self {
        self.alpha_up.below(later.alpha_up.value, later.alpha_up.index);
        self.alpha_low.above(later.alpha_low.value, later.alpha_low.index);
        self.star_up.above(later.star_up.value, later.star_up.index);
        self.star_low.below(later.star_low.value, later.star_low.index);
        self
    }
}

/// A working pair `(i, j)` of one block: `i` from `I_up` (its variable increases), `j` from
/// `I_low`, and the violation `∇_j − ∇_i` of that block's gradient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pair {
    pub up: usize,
    pub low: usize,
    pub violation: f64,
}

/// The scores of the four blocks at the current iterate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Selection {
    pub alpha: Option<Pair>,
    pub alpha_star: Option<Pair>,
    /// `(u, Δ3)`.
    pub gamma: Option<(usize, f64)>,
    /// `(u, Δ4)`.
    pub mu: Option<(usize, f64)>,
}

impl Selection {
    /// Scores every block of `state`.
    pub(crate) fn compute(
        state: &State,
        y: &[f64],
        b: &[f64],
        d: &[f64],
        c: f64,
        rule: GammaRule,
    ) -> Self {
        let n = y.len();
        let extremes = if n < PARALLEL_MIN_LEN {
            PairExtremes::scan(state, y, c, 0, n)
        } else {
            kernelkit_kernels::team::fold_chunks(
                n.div_ceil(ROW_CHUNK),
                |k| PairExtremes::scan(state, y, c, k * ROW_CHUNK, ((k + 1) * ROW_CHUNK).min(n)),
                PairExtremes::EMPTY,
                |acc, chunk| acc.merge(&chunk),
            )
        };
        let alpha = (extremes.alpha_up.exists() && extremes.alpha_low.exists()).then_some(Pair {
            up: extremes.alpha_up.index,
            low: extremes.alpha_low.index,
            violation: extremes.alpha_low.value - extremes.alpha_up.value,
        });
        let alpha_star =
            (extremes.star_up.exists() && extremes.star_low.exists()).then_some(Pair {
                up: extremes.star_up.index,
                low: extremes.star_low.index,
                violation: extremes.star_up.value - extremes.star_low.value,
            });
        let mut gamma = Extreme::none(f64::NEG_INFINITY);
        for (u, (&b_u, &s_u)) in b.iter().zip(&state.s).enumerate() {
            let gradient = b_u - s_u;
            let score = match rule {
                GammaRule::ProjectedGradient if state.gamma[u] > 0.0 => gradient.abs(),
                GammaRule::ProjectedGradient => (-gradient).max(0.0),
                GammaRule::Paper => -gradient,
            };
            gamma.above(score, u);
        }
        let mut mu = Extreme::none(f64::NEG_INFINITY);
        for (u, (&d_u, &q_u)) in d.iter().zip(&state.q).enumerate() {
            mu.above((q_u - d_u).abs(), u);
        }
        Selection {
            alpha,
            alpha_star,
            gamma: gamma.exists().then_some((gamma.index, gamma.value)),
            mu: mu.exists().then_some((mu.index, mu.value)),
        }
    }

    /// The block with the largest score and that score `Δ` (the first block on ties), or
    /// `None` when no block has a candidate.
    pub(crate) fn best(&self) -> Option<(Block, f64)> {
        let scores = [
            (Block::Alpha, self.alpha.map(|p| p.violation)),
            (Block::AlphaStar, self.alpha_star.map(|p| p.violation)),
            (Block::Gamma, self.gamma.map(|g| g.1)),
            (Block::Mu, self.mu.map(|m| m.1)),
        ];
        let mut best: Option<(Block, f64)> = None;
        for (block, score) in scores {
            if let Some(score) = score {
                if best.is_none_or(|(_, top)| score > top) {
                    best = Some((block, score));
                }
            }
        }
        best
    }
}
