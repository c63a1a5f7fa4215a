//! The iterate of the KLR SMO: α, `F = K(α∘y)` and the per-point terms that change only when
//! `α_s` does (`y_s·log(α_s/(C − α_s)) − λ y_s`, the entropy curvature `C/(α_s(C − α_s))` and
//! `C·G(α_s/C)`), so that an iteration evaluates logarithms for two points only.

use kernelkit_kernels::team::{self, DisjointSlices};
use kernelkit_kernels::{KernelSource, PARALLEL_MIN_LEN};

/// Points per parallel task in the O(n) passes (fixed: results do not depend on threads).
const CHUNK: usize = 4096;

/// Rows of the kernel computed at once when `F` is built from scratch.
const BLOCK_ROWS: usize = 64;

/// (value, index), ties to the smaller index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Extreme {
    pub value: f64,
    pub index: usize,
}

impl Extreme {
    const fn none(value: f64) -> Self {
        Extreme { value, index: usize::MAX }
    }
    pub(crate) fn exists(&self) -> bool {
        self.index != usize::MAX
    }
    #[inline]
    fn above(&mut self, value: f64, index: usize) {
        if value > self.value || (value == self.value && value.is_finite() && index < self.index) {
            *self = Extreme { value, index };
        }
    }
    #[inline]
    fn below(&mut self, value: f64, index: usize) {
        if value < self.value || (value == self.value && value.is_finite() && index < self.index) {
            *self = Extreme { value, index };
        }
    }
}

/// Runs `scan(start, end)` over fixed chunks of `0..n` (in parallel when long) and folds the
/// chunk results in order with `merge`.
fn chunked<T: Send + Copy>(
    n: usize,
    scan: impl Fn(usize, usize) -> T + Sync,
    merge: impl Fn(T, T) -> T,
) -> T {
    if n < PARALLEL_MIN_LEN {
        return scan(0, n);
    }
    let scan_chunk = |k: usize| scan(k * CHUNK, ((k + 1) * CHUNK).min(n));
    let folded = team::fold_chunks(n.div_ceil(CHUNK), scan_chunk, None, |acc, part| {
        Some(match acc {
            None => part,
            Some(acc) => merge(acc, part),
        })
    });
    folded.expect("n > 0")
}

/// The SMO iterate.
#[derive(Debug, Clone)]
pub(crate) struct State {
    /// `C_s`: `C` times the point's weight (sample and class weights).
    pub c: Vec<f64>,
    pub lambda: f64,
    /// γ, and `C_s − γ` per point.
    pub lower: f64,
    pub upper: Vec<f64>,
    pub y: Vec<f64>,
    pub alpha: Vec<f64>,
    /// `F_s = Σ_j α_j y_j K_sj`.
    pub f: Vec<f64>,
    /// `y_s log(α_s/(C − α_s)) − λ y_s`, so that `gneg_s = −F_s − log_term_s`.
    pub log_term: Vec<f64>,
    /// `C/(α_s(C − α_s))`.
    pub curvature: Vec<f64>,
    /// `C·G(α_s/C)`.
    pub entropy: Vec<f64>,
    /// Each point's working sets, kept by [`State::set_alpha`]: bit [`IN_UP`] when it is in
    /// `I_up` (it may move up along `y_s`), bit [`IN_LOW`] when in `I_low`. The scans read
    /// this byte instead of `y_s`, `α_s` and `C_s − γ` (three `f64` streams).
    pub sets: Vec<u8>,
}

/// [`State::sets`]'s bit for `I_up = {s : y_s = +1, α_s < C_s − γ} ∪ {s : y_s = −1, α_s > γ}`.
pub(crate) const IN_UP: u8 = 1;
/// [`State::sets`]'s bit for `I_low = {s : y_s = +1, α_s > γ} ∪ {s : y_s = −1, α_s < C_s − γ}`.
pub(crate) const IN_LOW: u8 = 2;

impl State {
    /// The feasible start (module documentation), with `F = 0` (the caller computes it): each
    /// class sums to the same `s`. With one `C` for every point, `α_i = s / m_{class(i)}`;
    /// with per-point `C_i`, each class spreads `s` over its points in proportion to their room
    /// `C_i − 2γ` above `γ` (the same point when the `C_i` are equal).
    pub(crate) fn initial(y: &[f64], c: &[f64], lambda: f64, bound: f64) -> Self {
        let uniform = c.iter().all(|&v| v == c[0]);
        let positive = |i: usize| y[i] > 0.0;
        let n = y.len();
        let count = |side: bool| (0..n).filter(|&i| positive(i) == side).count() as f64;
        let room = |side: bool| -> f64 {
            (0..n).filter(|&i| positive(i) == side).map(|i| c[i] - bound).sum()
        };
        let (positives, negatives) = (count(true), count(false));
        // Each class can sum to [m_class γ, Σ_class (C_i − γ)]; s lies in both ranges.
        let smallest = positives.max(negatives) * bound;
        // (With one C, the product minority·(C − γ): the start of the unweighted solver.)
        let largest = if uniform {
            positives.min(negatives) * (c[0] - bound)
        } else {
            room(true).min(room(false))
        };
        let s = if (smallest..=largest).contains(&1.0) {
            1.0
        } else if uniform {
            let minority = positives.min(negatives);
            (minority * c[0] / 2.0).clamp((smallest * (1.0 + 1e-9)).min(largest), largest)
        } else {
            0.5 * (smallest + largest)
        };
        let alpha: Vec<f64> = if uniform {
            y.iter().map(|&v| s / if v > 0.0 { positives } else { negatives }).collect()
        } else {
            let spread = |side: bool| {
                let m = count(side);
                let total: f64 =
                    (0..n).filter(|&i| positive(i) == side).map(|i| c[i] - 2.0 * bound).sum();
                (s - m * bound) / total
            };
            let (up, down) = (spread(true), spread(false));
            (0..n)
                .map(|i| bound + (c[i] - 2.0 * bound) * if positive(i) { up } else { down })
                .collect()
        };
        let mut state = State {
            c: c.to_vec(),
            lambda,
            lower: bound,
            upper: c.iter().map(|&v| v - bound).collect(),
            y: y.to_vec(),
            alpha,
            f: vec![0.0; n],
            log_term: vec![0.0; n],
            curvature: vec![0.0; n],
            entropy: vec![0.0; n],
            sets: vec![0; n],
        };
        for i in 0..n {
            let value = state.alpha[i].clamp(bound, state.upper[i]);
            state.set_alpha(i, value);
        }
        state
    }

    /// Sets `α_i` and its cached terms.
    pub(crate) fn set_alpha(&mut self, i: usize, value: f64) {
        let (a, c) = (value, self.c[i]);
        let complement = c - a;
        self.alpha[i] = a;
        self.log_term[i] = self.y[i] * (a.ln() - complement.ln()) - self.lambda * self.y[i];
        self.curvature[i] = c / (a * complement);
        self.entropy[i] = a * (a / c).ln() + complement * (complement / c).ln();
        let (positive, above_lower, below_upper) =
            (self.y[i] > 0.0, a > self.lower, a < self.upper[i]);
        let is_up = (positive & below_upper) | (!positive & above_lower);
        let is_low = (positive & above_lower) | (!positive & below_upper);
        self.sets[i] = (u8::from(is_up) * IN_UP) | (u8::from(is_low) * IN_LOW);
    }

    /// `gneg_i = −y_i ∇f_i`.
    #[inline]
    pub(crate) fn gneg(&self, i: usize) -> f64 {
        -self.f[i] - self.log_term[i]
    }

    /// Recomputes `F = K(α∘y)` from the kernel, in blocks of rows.
    pub(crate) fn compute_f<K: KernelSource>(&mut self, kernel: &K) {
        let n = self.y.len();
        let weights: Vec<f64> = self.alpha.iter().zip(&self.y).map(|(a, y)| a * y).collect();
        let mut block = vec![0.0; BLOCK_ROWS * n];
        let mut rows = Vec::with_capacity(BLOCK_ROWS);
        for start in (0..n).step_by(BLOCK_ROWS) {
            let end = (start + BLOCK_ROWS).min(n);
            rows.clear();
            rows.extend(start..end);
            let block = &mut block[..(end - start) * n];
            kernel.fill_block(&rows, 0, n, block);
            for (r, values) in block.chunks_exact(n).enumerate() {
                self.f[start + r] = values.iter().zip(&weights).map(|(k, w)| k * w).sum();
            }
        }
    }

    /// `m = max_{I_up} gneg` (with `i*`) and `M = min_{I_low} gneg` (with `j^MVP`).
    pub(crate) fn violating_pair(&self) -> (Extreme, Extreme) {
        chunked(
            self.y.len(),
            |start, end| {
                let (mut up, mut low) =
                    (Extreme::none(f64::NEG_INFINITY), Extreme::none(f64::INFINITY));
                let terms = self.f[start..end].iter().zip(&self.log_term[start..end]);
                for (offset, ((&f, &log_term), &sets)) in
                    terms.zip(&self.sets[start..end]).enumerate()
                {
                    // Set membership is random by index: no branches but the rare updates.
                    let g = -f - log_term;
                    let (is_up, is_low) = (sets & IN_UP != 0, sets & IN_LOW != 0);
                    up.above(if is_up { g } else { f64::NEG_INFINITY }, start + offset);
                    low.below(if is_low { g } else { f64::INFINITY }, start + offset);
                }
                (up, low)
            },
            |(mut up, mut low), (later_up, later_low)| {
                if later_up.exists() {
                    up.above(later_up.value, later_up.index);
                }
                if later_low.exists() {
                    low.below(later_low.value, later_low.index);
                }
                (up, low)
            },
        )
    }

    /// The second-order choice of `j` for `i` with `gneg_i = m` (eqs. (34)–(35)).
    pub(crate) fn second_order_partner(
        &self,
        i: usize,
        m: f64,
        column_i: &[f64],
        diagonal: &[f64],
    ) -> Option<usize> {
        let (k_ii, h_i) = (diagonal[i], self.curvature[i]);
        let best = chunked(
            self.y.len(),
            |start, end| {
                let mut best = Extreme::none(f64::NEG_INFINITY);
                let terms = self.f[start..end].iter().zip(&self.log_term[start..end]);
                let kernel = column_i[start..end].iter().zip(&diagonal[start..end]);
                let points = self.curvature[start..end].iter().zip(&self.sets[start..end]);
                for (offset, (((&f, &log_term), (&k_ij, &k_jj)), (&h_j, &sets))) in
                    terms.zip(kernel).zip(points).enumerate()
                {
                    let g = -f - log_term;
                    let is_low = sets & IN_LOW != 0;
                    let v = m - g;
                    let q = k_ii + k_jj - 2.0 * k_ij + h_i + h_j;
                    let score = if is_low & (g < m) { v * v / q } else { f64::NEG_INFINITY };
                    best.above(score, start + offset);
                }
                best
            },
            |mut best, later| {
                if later.exists() {
                    best.above(later.value, later.index);
                }
                best
            },
        );
        best.exists().then_some(best.index)
    }

    /// `f(α) = ½ Σ α_i y_i F_i + Σ C·G(α_i/C) − λ Σ α_i`.
    pub(crate) fn objective(&self) -> f64 {
        let terms = |start: usize, end: usize| {
            (start..end)
                .map(|i| {
                    0.5 * self.alpha[i] * self.y[i] * self.f[i] + self.entropy[i]
                        - self.lambda * self.alpha[i]
                })
                .sum::<f64>()
        };
        chunked(self.y.len(), terms, |a, b| a + b)
    }

    /// `F += d_i K[:, i] + d_j K[:, j]`.
    pub(crate) fn update_f(&mut self, d_i: f64, d_j: f64, column_i: &[f64], column_j: &[f64]) {
        let apply = |offset: usize, chunk: &mut [f64]| {
            let (ci, cj) = (&column_i[offset..], &column_j[offset..]);
            for ((f, &ki), &kj) in chunk.iter_mut().zip(ci).zip(cj) {
                *f += d_i * ki + d_j * kj;
            }
        };
        if self.f.len() < PARALLEL_MIN_LEN {
            apply(0, &mut self.f);
        } else {
            let n = self.f.len();
            let f = DisjointSlices::new(&mut self.f);
            team::for_each_chunk(n.div_ceil(CHUNK), |k| {
                let (lo, hi) = (k * CHUNK, ((k + 1) * CHUNK).min(n));
                // SAFETY: chunk k alone writes lo..hi.
                apply(lo, unsafe { f.range(lo, hi) });
            });
        }
    }

    /// The KKT bias: the mean of `gneg` over the free variables, else `(m + M)/2`.
    pub(crate) fn bias(&self, m: f64, big_m: f64) -> f64 {
        let (mut sum, mut count) = (0.0, 0usize);
        for i in 0..self.y.len() {
            if self.alpha[i] > self.lower && self.alpha[i] < self.upper[i] {
                sum += self.gneg(i);
                count += 1;
            }
        }
        if count > 0 {
            sum / count as f64
        } else {
            0.5 * (m + big_m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set bits kept by `set_alpha` are the definitions of `I_up` and `I_low` for every
    /// position of `α` in the box (at either end, inside), both labels and unequal `C_s`.
    #[test]
    fn sets_follow_alpha() {
        let y = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0];
        let c = [1.0, 1.0, 2.0, 2.0, 0.5, 0.5];
        let bound = 1e-3;
        let mut state = State::initial(&y, &c, 0.1, bound);
        for i in 0..y.len() {
            let upper = c[i] - bound;
            for a in [bound, 0.5 * (bound + upper), upper] {
                state.set_alpha(i, a);
                let (below_upper, above_lower) = (a < upper, a > bound);
                let (up, low) = if y[i] > 0.0 {
                    (below_upper, above_lower)
                } else {
                    (above_lower, below_upper)
                };
                assert_eq!(state.sets[i] & IN_UP != 0, up, "I_up at i = {i}, α = {a}");
                assert_eq!(state.sets[i] & IN_LOW != 0, low, "I_low at i = {i}, α = {a}");
            }
        }
    }
}
