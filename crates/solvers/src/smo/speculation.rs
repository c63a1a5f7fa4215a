//! Speculative kernel columns: when a column is missing, the columns of the next likely
//! working-set members are computed in the same pass over the data.
//!
//! A dense kernel column reads every row of `X`; on data with many features that read, not the
//! arithmetic, is its cost, and two or three columns computed in one pass cost little more
//! than one (`KernelSource::shares_passes`). SMO needs its columns one at a time (`j` is chosen
//! with the column of `i`), so the pass that computes a missing column also computes the most
//! violating uncached position of `I_up` (a likely next `i`) and of `I_low` (a likely next `j`).
//! An offline replay of the LIBSVM path found that most of the columns computed this way were
//! requested later and that far fewer passes over the data were needed (measurements:
//! `docs/performance.md`, "Speculative columns"). The [`QMatrix`](kernelkit_kernels::QMatrix) allows it only while its cache
//! has room (nothing is evicted for a guess) and gives each column bitwise the value a lone
//! computation would, so the solver's path, iterations and result do not change; only the time
//! does.

use kernelkit_kernels::QMatrixPasses;

use super::state::Variables;

/// The candidate with the largest value, ties to the larger position (deterministic).
#[derive(Clone, Copy)]
struct Best(f64, Option<usize>);

impl Best {
    const NONE: Best = Best(f64::NEG_INFINITY, None);

    fn beaten_by(&self, value: f64) -> bool {
        value >= self.0
    }
}

/// Makes `Q[0..active_size, needed]` resident; when it is missing and `q` allows speculation,
/// together with the most violating uncached positions of `I_up` and `I_low`.
pub(crate) fn prefetch_with_candidates<Q: QMatrixPasses>(
    q: &mut Q,
    v: &Variables,
    active_size: usize,
    needed: usize,
) {
    let width = q.speculation_width(active_size);
    if width == 0 || q.is_cached(needed, active_size) {
        return;
    }
    let mut columns = Vec::with_capacity(width + 1);
    columns.push(needed);
    // Most violating: the largest −y_t G_t over I_up, the largest y_t G_t over I_low.
    let mut best = (Best::NONE, [Best::NONE; 2]);
    let cached = |t: usize| q.is_cached(t, active_size);
    visit_positions(v, active_size, &mut best, |best, t| consider(best, v, t, needed, cached));
    let (up, low) = best;
    let low = if low[0].1.is_some() && low[0].1 == up.1 { low[1] } else { low[0] };
    for candidate in [up.1, low.1].into_iter().flatten().take(width) {
        columns.push(candidate);
    }
    q.prefetch(&columns, active_size);
}

/// The most violating position of `I_up` (by `−y_t G_t`) and the two most violating of
/// `I_low` (by `y_t G_t`) among the uncached positions other than `needed`.
type Candidates = (Best, [Best; 2]);

/// Offers position `t` to the candidates. The cache is consulted only for a position that
/// would become a candidate, so mostly not at all; the `I_low` side keeps its two best so that
/// it has one left when both sides pick the same position.
#[inline]
fn consider(
    (up, low): &mut Candidates,
    v: &Variables,
    t: usize,
    needed: usize,
    cached: impl Fn(usize) -> bool,
) {
    if t == needed {
        return;
    }
    let y_g = f64::from(v.y[t]) * v.gradient[t];
    let (in_up, in_low) = if v.y[t] == 1 {
        (!v.is_upper(t), !v.is_lower(t))
    } else {
        (!v.is_lower(t), !v.is_upper(t))
    };
    if in_up && up.beaten_by(-y_g) && !cached(t) {
        *up = Best(-y_g, Some(t));
    }
    if in_low && low[1].beaten_by(y_g) && !cached(t) {
        if low[0].beaten_by(y_g) {
            *low = [Best(y_g, Some(t)), low[0]];
        } else {
            low[1] = Best(y_g, Some(t));
        }
    }
}

/// Runs `visit` over the positions `0..active_size` that can change the candidates (AVX2: four
/// at a time, skipping the groups in which no value reaches a threshold; `visit` changes the
/// candidates only for such a value, so the result is that of visiting every position).
fn visit_positions(
    v: &Variables,
    active_size: usize,
    best: &mut Candidates,
    mut visit: impl FnMut(&mut Candidates, usize),
) {
    #[cfg(target_arch = "x86_64")]
    if v.simd >= kernelkit_kernels::Level::Avx2 {
        let slices = (&v.y[..active_size], &v.bound[..active_size], &v.gradient[..active_size]);
        // SAFETY: the CPU supports AVX2 (the level).
        unsafe {
            super::scan_avx2::visit_reaching(slices, best, |(up, low)| (up.0, low[1].0), visit);
        }
        return;
    }
    for t in 0..active_size {
        visit(best, t);
    }
}

#[cfg(test)]
mod tests {
    use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction, QMatrix, SignedQ};

    use super::*;

    fn problem(n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
        let x: Vec<f64> = (0..n * d).map(|k| ((k * 37 % 101) as f64 / 50.0 - 1.0).sin()).collect();
        let y: Vec<f64> = (0..n).map(|t| if t % 3 == 0 { 1.0 } else { -1.0 }).collect();
        (x, y)
    }

    #[test]
    fn speculative_columns_are_the_columns_computed_alone() {
        let (n, d) = (200, 80);
        let (x, y) = problem(n, d);
        let kernel = || {
            let rows = DenseRows::new(&x, n, d).unwrap();
            DenseKernel::new(rows, KernelFunction::Rbf { gamma: 0.05 }).unwrap()
        };
        let mut speculating = SignedQ::new(kernel(), y.clone(), 1 << 22);
        let mut alone = SignedQ::new(kernel(), y.clone(), 1 << 22);
        let labels: Vec<i8> = y.iter().map(|&s| s as i8).collect();
        let mut v = Variables::new(
            vec![1.0; n],
            labels,
            vec![0.0; n],
            vec![-1.0; n],
            vec![1.0; n],
            kernelkit_kernels::Level::current(),
        );
        for t in 0..n {
            v.gradient[t] = ((t * 7919) % 13) as f64 * 0.1 - 0.6;
        }
        assert_eq!(speculating.speculation_width(n), 2);
        prefetch_with_candidates(&mut speculating, &v, n, 5);
        let cached: Vec<usize> = (0..n).filter(|&t| speculating.is_cached(t, n)).collect();
        assert_eq!(cached.len(), 3, "the needed column and two candidates: {cached:?}");
        assert!(cached.contains(&5));
        for &t in &cached {
            let (a, b) = (speculating.column(t, n).to_vec(), alone.column(t, n).to_vec());
            assert!(a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits()), "column {t}");
        }
        // A cached column is not recomputed, and nothing is guessed for it.
        let before = speculating.cache_stats();
        prefetch_with_candidates(&mut speculating, &v, n, 5);
        assert_eq!(speculating.cache_stats().misses, before.misses);
    }

    #[test]
    fn skipping_groups_finds_the_candidates_of_the_full_loop() {
        let mut next = crate::smo::state::test_draws(17);
        for n in [0, 1, 3, 4, 9, 64, 333, 1000] {
            let y: Vec<i8> =
                (0..n).map(|_| if next().is_multiple_of(2) { 1 } else { -1 }).collect();
            let mut v = Variables::new(
                vec![1.0; n],
                y,
                vec![0.0; n],
                vec![-1.0; n],
                vec![1.0; n],
                kernelkit_kernels::Level::current(),
            );
            for t in 0..n {
                v.alpha[t] = [0.0, 1.0, 0.5][next() % 3];
                v.update_bound(t);
                // A coarse grid: many ties, which go to the last position.
                v.gradient[t] = (next() % 7) as f64 * 0.5 - 1.5;
            }
            let cached: Vec<bool> = (0..n).map(|_| next().is_multiple_of(3)).collect();
            for needed in [0, n / 2, n.saturating_sub(1)] {
                let consider_t = |best: &mut Candidates, t: usize| {
                    consider(best, &v, t, needed, |t| cached[t]);
                };
                let mut skipping = (Best::NONE, [Best::NONE; 2]);
                visit_positions(&v, n, &mut skipping, consider_t);
                let mut full = (Best::NONE, [Best::NONE; 2]);
                (0..n).for_each(|t| consider_t(&mut full, t));
                let key = |(up, low): Candidates| {
                    [up, low[0], low[1]].map(|Best(value, t)| (value.to_bits(), t))
                };
                assert_eq!(key(skipping), key(full), "n={n}, needed={needed}");
            }
        }
    }

    #[test]
    fn no_speculation_without_room_or_shared_passes() {
        let (n, d) = (100, 80);
        let (x, y) = problem(n, d);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let kernel = DenseKernel::new(rows, KernelFunction::Rbf { gamma: 0.05 }).unwrap();
        // Room for two columns: a guess could evict a needed one.
        let tight = SignedQ::new(kernel, y.clone(), 2 * n * 4);
        assert_eq!(tight.speculation_width(n), 0);
        // Few features: the products, not the reads, cost.
        let rows = DenseRows::new(&x[..n * 8], n, 8).unwrap();
        let narrow = DenseKernel::new(rows, KernelFunction::Rbf { gamma: 0.05 }).unwrap();
        assert_eq!(SignedQ::new(narrow, y, 1 << 22).speculation_width(n), 0);
    }
}
