//! The Frank–Wolfe vertex search: the point furthest from the centre, `argmax_i ‖z_i − c‖²`,
//! i.e. `argmin_i s_i` with `s = K̃α` (eqs. (20), (26), (28)).
//!
//! * **Full scan**: every point's `s_i` is maintained; the search is an exact argmin.
//! * **Sampling** (§5.2.3, Theorem 1 of the paper, from Schölkopf & Smola): `sample_size`
//!   distinct points drawn uniformly. With 59 points, the sampled maximum of the distances is in
//!   their top 5 % with probability `1 − 0.95⁵⁹ ≥ 0.95`. `s_i` is maintained for the *basis* (the
//!   points that have ever been in the core set) and computed for the others against the basis,
//!   through the cache. The paper leaves the pool and the candidates open (digest P6); here:
//!   - **FW and MFW** (Algorithms 2 and 3): the sample is the candidate set of the vertex `i*`
//!     and of the stopping test, as the paper's "evaluate (20) on a random subset" reads; MFW's
//!     away vertex `j*` is exact over the core set. [`SamplePool`](super::SamplePool) says
//!     where the sample is drawn: from all points (the default), or, as LibCVM's sampler on
//!     whose code the paper built, from the points outside the core set (`α_i = 0`, drawn by
//!     rejection). The second makes FW stop once the points outside the core set are inside
//!     the ball, whatever the core weights: on letter's pairs after 200–300 steps instead of
//!     10⁴–5·10⁵, its objective 1–3·10⁻³ below the optimum and the test accuracy 9 points
//!     lower (`docs/frank_wolfe.md`, Benchmarks). Adding the core set to
//!     the candidates (the digest's suggestion for MFW) makes the stopping test exact on it:
//!     plain FW then stagnates (its core weights only decay geometrically), and MFW spends most
//!     of its iterations there, for about the same accuracy (measurements: `docs/performance.md`,
//!     "Frank–Wolfe's candidates");
//!   - **CVM** (Algorithm 1): a sample of the points outside the core set (LibCVM's pool; the core
//!     set is optimal after each sub-problem).
//!
//!   **Retry rule** (the paper leaves it open, digest P6; LibCVM uses 7): when no candidate
//!   violates the stopping rule, a fresh sample is drawn, up to `sample_trials` samples in a row,
//!   before the solver declares convergence. With `verify_full`, a full scan over every
//!   non-basis point then confirms it (or returns the worst violator, and the solver goes on).
//!
//! The random stream is a SplitMix64 generator seeded by `SolveOptions::seed`; samples are drawn
//! on the calling thread, so results do not depend on the thread count.

use kernelkit_kernels::{KernelSource, MebQ};

use super::iterate::lower;

/// SplitMix64 (Steele, Lea & Flood 2014): a small, well-mixed 64-bit generator, with the
/// marks that make drawing distinct positions O(1) per draw.
#[derive(Debug, Clone)]
pub(crate) struct Random {
    state: u64,
    /// `marks[p] == stamp`: `p` was drawn in the current [`Random::distinct`] call.
    marks: Vec<u32>,
    stamp: u32,
}

impl Random {
    pub fn new(seed: u64) -> Self {
        Random { state: seed, marks: Vec::new(), stamp: 0 }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by rejection (no modulo bias).
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let v = self.next_u64();
            if v < zone {
                return (v % n) as usize;
            }
        }
    }

    /// A stamp no position of `0..n` carries yet: the marks of a new draw.
    fn new_stamp(&mut self, n: usize) {
        if self.marks.len() < n {
            self.marks.resize(n, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.marks.fill(0);
            self.stamp = 1;
        }
    }

    /// `count` distinct positions drawn uniformly from `lo..hi` (all of them if fewer),
    /// in drawing order.
    pub fn distinct(&mut self, lo: usize, hi: usize, count: usize) -> Vec<usize> {
        let pool = hi.saturating_sub(lo);
        if pool <= count {
            return (lo..hi).collect();
        }
        self.new_stamp(hi);
        let mut chosen = Vec::with_capacity(count);
        while chosen.len() < count {
            let p = lo + self.below(pool);
            if self.marks[p] != self.stamp {
                self.marks[p] = self.stamp;
                chosen.push(p);
            }
        }
        chosen
    }

    /// `count` distinct positions drawn uniformly from the `eligible` ones of `0..n` (all of
    /// them, in order, if there are no more than `count`), in drawing order; `eligible_count`
    /// is how many there are. Rejection sampling: the expected draws per position are
    /// `n / eligible_count`.
    pub fn distinct_where(
        &mut self,
        n: usize,
        count: usize,
        eligible_count: usize,
        eligible: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        if eligible_count <= count {
            return (0..n).filter(|&p| eligible(p)).collect();
        }
        self.new_stamp(n);
        let mut chosen = Vec::with_capacity(count);
        while chosen.len() < count {
            let p = self.below(n);
            if self.marks[p] != self.stamp && eligible(p) {
                self.marks[p] = self.stamp;
                chosen.push(p);
            }
        }
        chosen
    }
}

/// The best vertex among some candidates: its position and `s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Vertex {
    pub position: usize,
    pub s: f64,
}

impl Vertex {
    /// The better (smaller `s`, an `s` that is not finite first: [`lower`]; on ties the first)
    /// of two optional vertices.
    pub fn better(a: Option<Vertex>, b: Option<Vertex>) -> Option<Vertex> {
        match (a, b) {
            (Some(x), Some(y)) => Some(if lower(y.s, x.s) { y } else { x }),
            (x, None) => x,
            (None, y) => y,
        }
    }
}

/// `s_p = Σ_{t < basis} α_t k̃(p, t)` for each sampled position `p` (the maintained `s[p]` for
/// a basis position), and the smallest.
///
/// The columns `k̃[0..basis, p]` go through the shared cache, as LibCVM's rows of sampled points
/// do (digest §2.7): a point sampled again later costs only the entries of the points that
/// joined the basis since (the cache's partial columns), not `basis` new kernel values.
pub(crate) fn best_of_sample<K: KernelSource>(
    meb: &mut MebQ<K>,
    alpha: &[f64],
    maintained: &[f64],
    basis: usize,
    positions: &[usize],
) -> Option<Vertex> {
    let mut best = None;
    for &p in positions {
        let s = if p < basis { maintained[p] } else { dot(&alpha[..basis], meb.column(p, basis)) };
        best = Vertex::better(best, Some(Vertex { position: p, s }));
    }
    best
}

/// Independent partial sums of [`dot`]: enough for the adds of eight two-wide registers to
/// overlap (the sampled search is most of a sampled solve's time; four lanes left it bound by
/// the adds' latency).
const DOT_LANES: usize = 16;

/// `Σ a_t b_t`, in [`DOT_LANES`] independent lanes summed pairwise (the order is fixed: results
/// do not depend on anything but the inputs).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut lanes = [0.0; DOT_LANES];
    let (blocks_a, blocks_b) = (a.chunks_exact(DOT_LANES), b.chunks_exact(DOT_LANES));
    let tail: f64 = blocks_a.remainder().iter().zip(blocks_b.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in blocks_a.zip(blocks_b) {
        for k in 0..DOT_LANES {
            lanes[k] += x[k] * y[k];
        }
    }
    let mut width = DOT_LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            lanes[k] += lanes[k + width];
        }
    }
    lanes[0] + tail
}

/// `s_p` for each of `positions` (all `≥ basis`) as one uncached kernel block, and the smallest
/// (for one-off scans that would only flush the cache).
fn best_of_block<K: KernelSource>(
    meb: &mut MebQ<K>,
    alpha: &[f64],
    basis: usize,
    positions: &[usize],
    scratch: &mut Vec<f64>,
) -> Option<Vertex> {
    if positions.is_empty() {
        return None;
    }
    scratch.resize(positions.len() * basis, 0.0);
    meb.uncached_columns(positions, basis, scratch);
    let mut best = None;
    for (&p, row) in positions.iter().zip(scratch.chunks_exact(basis.max(1))) {
        let s = if basis == 0 { 0.0 } else { dot(&alpha[..basis], row) };
        best = Vertex::better(best, Some(Vertex { position: p, s }));
    }
    best
}

/// The exact best vertex among every non-basis position `basis..n`, in blocks.
pub(crate) fn best_outside_basis<K: KernelSource>(
    meb: &mut MebQ<K>,
    alpha: &[f64],
    basis: usize,
    scratch: &mut Vec<f64>,
) -> Option<Vertex> {
    const BLOCK: usize = 256;
    let n = meb.size();
    let mut best = None;
    let mut lo = basis;
    while lo < n {
        let hi = (lo + BLOCK).min(n);
        let positions: Vec<usize> = (lo..hi).collect();
        best = Vertex::better(best, best_of_block(meb, alpha, basis, &positions, scratch));
        lo = hi;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_samples_are_distinct_in_range_and_reproducible() {
        let mut a = Random::new(7);
        let mut b = Random::new(7);
        for _ in 0..100 {
            let x = a.distinct(10, 1000, 59);
            assert_eq!(x, b.distinct(10, 1000, 59));
            assert_eq!(x.len(), 59);
            assert!(x.iter().all(|&p| (10..1000).contains(&p)));
            let mut sorted = x.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 59);
        }
        assert_eq!(a.distinct(5, 9, 59), vec![5, 6, 7, 8]);
    }

    #[test]
    fn samples_of_the_eligible_positions_are_eligible_distinct_and_all_of_them_when_few() {
        let n = 500;
        let eligible = |p: usize| !p.is_multiple_of(3);
        let count = (0..n).filter(|&p| eligible(p)).count();
        let mut a = Random::new(5);
        let mut b = Random::new(5);
        let mut seen = vec![false; n];
        for _ in 0..200 {
            let x = a.distinct_where(n, 59, count, eligible);
            assert_eq!(x, b.distinct_where(n, 59, count, eligible));
            assert_eq!(x.len(), 59);
            assert!(x.iter().all(|&p| p < n && eligible(p)));
            let mut sorted = x.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 59);
            for p in x {
                seen[p] = true;
            }
        }
        // Every eligible position is drawn sooner or later: the draw is not confined to a part.
        assert!((0..n).all(|p| seen[p] == eligible(p)));
        // No more eligible positions than asked for: all of them, in order.
        let few = |p: usize| p % 100 == 7;
        assert_eq!(a.distinct_where(n, 59, 5, few), vec![7, 107, 207, 307, 407]);
        // A count below the truth (a weight that underflowed to 0 unnoticed) still terminates.
        assert_eq!(a.distinct_where(n, 3, 4, few).len(), 3);
    }

    #[test]
    fn dot_is_the_sum_of_products_for_every_length() {
        for n in 0..100 {
            // Integers (exact in any order), then values whose sum rounds.
            let a: Vec<f64> = (0..n).map(|t| ((t * 7) % 11) as f64 - 5.0).collect();
            let b: Vec<f64> = (0..n).map(|t| ((t * 3) % 5) as f64 + 1.0).collect();
            let exact: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert_eq!(dot(&a, &b), exact, "n = {n}");
            let c: Vec<f64> = (0..n).map(|t| (t as f64 * 0.37).sin()).collect();
            let naive: f64 = c.iter().zip(&b).map(|(x, y)| x * y).sum();
            let bound: f64 = c.iter().zip(&b).map(|(x, y)| (x * y).abs()).sum::<f64>();
            assert!((dot(&c, &b) - naive).abs() <= 4.0 * n as f64 * f64::EPSILON * bound);
        }
    }

    /// Theorem 1 of the paper: the maximum of 59 uniform draws is in the top 5 % with
    /// probability at least 0.95.
    #[test]
    fn the_sampled_maximum_is_in_the_top_five_percent_at_least_95_percent_of_the_time() {
        let mut random = Random::new(11);
        let (n, trials) = (1000, 20_000);
        let hits = (0..trials)
            .filter(|_| random.distinct(0, n, 59).into_iter().max().unwrap() >= n - n / 20)
            .count();
        assert!(hits as f64 / trials as f64 >= 0.95, "{hits} / {trials}");
    }
}
