//! The exact two-variable step of USMO (digest §2.2; the paper's §4.1 and Table I).
//!
//! For the pair `(i, j)`, mass `Δ` moves from `σ_i` to `σ_j` (`σ_i + σ_j = a` stays fixed):
//!
//! ```text
//! ΔΦ(Δ) = (f̂_i − f̂_j) Δ + ½ η Δ² + g(σ_i − Δ) − g(σ_i) + g(σ_j + Δ) − g(σ_j),
//! η = K_ii + K_jj − 2 K_ij,   g(s) = max(−s, s − c2).
//! ```
//!
//! Each of `σ_i, σ_j` lies on the low branch (`σ ≤ c2/2`, slope −1) or the high branch
//! (`σ ≥ c2/2`, slope +1) of `g`: the four cases of Table I, each a convex quadratic on an
//! interval of `σ_j`, minimised at `σ_j + (f̂_j − f̂_i + s_i − s_j)/η` (Table I's numerators
//! divided by η: **the paper prints Case 1 without the division**; digest §2.2). The clipped
//! minimiser of every non-empty case, and the interval ends (which also cover `η ≤ 0`, where
//! the pieces are linear or concave), are evaluated with the exact `ΔΦ`, and the lowest is kept.
//! A step is taken only if it strictly lowers Φ. Results within `1e−12·c2` of `0`, `c2/2` or
//! `c2` are snapped onto them, keeping `σ_i + σ_j` exact.

use super::hinge;

/// What the step needs about the pair.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairInput {
    pub sigma: (f64, f64),
    pub cache: (f64, f64),
    pub k_ii: f64,
    pub k_jj: f64,
    pub k_ij: f64,
    pub c2: f64,
}

/// The new pair and the change of Φ it causes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairStep {
    pub sigma: (f64, f64),
    pub objective_change: f64,
}

impl PairInput {
    /// The exact `ΔΦ` of moving to `σ_j = t` (and `σ_i = a − t`).
    fn change(&self, t: f64) -> f64 {
        let (s_i, s_j) = self.sigma;
        let (f_i, f_j) = self.cache;
        let delta = t - s_j;
        let eta = self.k_ii + self.k_jj - 2.0 * self.k_ij;
        (f_i - f_j) * delta + 0.5 * eta * delta * delta + hinge(s_i - delta, self.c2)
            - hinge(s_i, self.c2)
            + hinge(s_j + delta, self.c2)
            - hinge(s_j, self.c2)
    }
}

/// Snaps `value` onto `0`, `c2/2` or `c2` when within `1e−12·c2`.
fn snap(value: f64, c2: f64) -> Option<f64> {
    let eps = super::BOUND_TOLERANCE * c2;
    [0.0, c2 / 2.0, c2].into_iter().find(|&p| (value - p).abs() <= eps)
}

/// The best step for the pair, or `None` when no feasible move lowers Φ.
pub(crate) fn solve_pair(input: &PairInput) -> Option<PairStep> {
    let (s_i, s_j) = input.sigma;
    let (f_i, f_j) = input.cache;
    let c2 = input.c2;
    let half = c2 / 2.0;
    let a = s_i + s_j;
    if a <= 0.0 {
        return None;
    }
    let eta = input.k_ii + input.k_jj - 2.0 * input.k_ij;
    // (branch of i, branch of j, interval of σ_j): Table I's four cases; +1 high, −1 low.
    let cases = [
        (1.0, 1.0, (half.max(a - c2), c2.min(a - half))),
        (1.0, -1.0, (0f64.max(a - c2), half.min(a - half))),
        (-1.0, 1.0, (half.max(a - half), c2.min(a))),
        (-1.0, -1.0, (0f64.max(a - half), half.min(a))),
    ];
    let mut best: Option<(f64, f64)> = None; // (ΔΦ, σ_j)
    let mut offer = |t: f64| {
        let change = input.change(t);
        if change.is_finite() && best.is_none_or(|(b, _)| change < b) {
            best = Some((change, t));
        }
    };
    for &(branch_i, branch_j, (lo, hi)) in &cases {
        if lo > hi {
            continue;
        }
        if eta > 0.0 {
            let stationary = s_j + (f_j - f_i + branch_i - branch_j) / eta;
            offer(stationary.clamp(lo, hi));
        }
        offer(lo);
        offer(hi);
    }
    let (change, t) = best?;
    let mut new_j = t.clamp(0.0, c2);
    if let Some(p) = snap(new_j, c2) {
        new_j = p;
    }
    let mut new_i = a - new_j;
    if let Some(p) = snap(new_i, c2) {
        new_i = p;
        // Within rounding of a bound itself (both snapped): never let it cross the box.
        new_j = (a - p).clamp(0.0, c2);
    }
    new_i = new_i.clamp(0.0, c2);
    let moved = (new_j - s_j).abs() > 1e-15 * c2;
    if !(change < 0.0 && moved) {
        return None;
    }
    Some(PairStep { sigma: (new_i, new_j), objective_change: input.change(new_j) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::XorShift;

    /// Φ restricted to the pair, minimised on a fine grid of the feasible segment.
    fn grid_minimum(input: &PairInput) -> f64 {
        let a = input.sigma.0 + input.sigma.1;
        let (lo, hi) = (0f64.max(a - input.c2), input.c2.min(a));
        (0..=20_000)
            .map(|k| input.change(lo + (hi - lo) * k as f64 / 20_000.0))
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn the_four_cases_find_the_exact_pair_minimum() {
        let mut random = XorShift(0x1234_5678_9ABC_DEF1);
        let mut uniform = move || random.uniform();
        for _ in 0..2000 {
            let c2 = 0.5 + uniform();
            let (k_ii, k_jj) = (0.2 + uniform(), 0.2 + uniform());
            let k_ij = (uniform() * 2.0 - 1.0) * (k_ii * k_jj).sqrt();
            let input = PairInput {
                sigma: (uniform() * c2, uniform() * c2),
                cache: (uniform() * 6.0 - 3.0, uniform() * 6.0 - 3.0),
                k_ii,
                k_jj,
                k_ij,
                c2,
            };
            let grid = grid_minimum(&input);
            let found = solve_pair(&input).map_or(0.0, |s| s.objective_change);
            // The exact minimum is never worse than the grid's (up to the grid's resolution).
            assert!(found <= grid + 1e-6, "{input:?}: {found} vs grid {grid}");
            if let Some(step) = solve_pair(&input) {
                let a = input.sigma.0 + input.sigma.1;
                assert!((step.sigma.0 + step.sigma.1 - a).abs() <= 1e-12 * a.max(1.0));
                assert!((0.0..=c2).contains(&step.sigma.0) && (0.0..=c2).contains(&step.sigma.1));
            }
        }
    }

    #[test]
    fn the_c4_pair_is_improved() {
        // Digest §2.3: u1 in (0, c2/2) with f̂ = 0 and u2 in (c2/2, c2) with f̂ = 5. C1–C3 hold,
        // C4 does not (5 − 0 − 2 > 0): moving mass from u1 to u2 must lower Φ.
        let input = PairInput {
            sigma: (0.2, 0.8),
            cache: (0.0, 5.0),
            k_ii: 1.0,
            k_jj: 1.0,
            k_ij: 0.5,
            c2: 1.0,
        };
        let step = solve_pair(&input).expect("the pair violates C4");
        assert!(step.objective_change < 0.0);
        assert!(step.sigma.1 > 0.8);
    }
}
