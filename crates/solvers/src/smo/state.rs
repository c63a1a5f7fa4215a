//! The solver's variables, indexed by position (positions are permuted by shrinking).

use kernelkit_kernels::{Level, QMatrix};

/// Where `α_i` sits in its box.
/// One byte with fixed values, which the vectorised scans read directly (`scan_avx2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Bound {
    /// `α_i = 0`.
    Lower = 0,
    /// `α_i = u_i`.
    Upper = 1,
    /// `0 < α_i < u_i`.
    Free = 2,
}

/// Everything the SMO iteration reads and writes, except `Q`.
#[derive(Debug)]
pub(crate) struct Variables {
    /// `Q_ii`, permuted with the positions.
    pub diagonal: Vec<f64>,
    pub y: Vec<i8>,
    pub alpha: Vec<f64>,
    /// `G = Qα + p`, exact on the active positions, reconstructed on demand elsewhere.
    pub gradient: Vec<f64>,
    /// `Ḡ_i = Σ_{j : α_j = u_j} u_j Q_ij`, kept for every position.
    pub gradient_bar: Vec<f64>,
    pub p: Vec<f64>,
    pub upper: Vec<f64>,
    pub bound: Vec<Bound>,
    /// `active_set[position]` = the variable's original index.
    pub active_set: Vec<usize>,
    /// The vector instructions the scans may use (`SolveOptions::simd`).
    pub simd: Level,
}

impl Variables {
    pub fn new(
        diagonal: Vec<f64>,
        y: Vec<i8>,
        alpha: Vec<f64>,
        p: Vec<f64>,
        upper: Vec<f64>,
        simd: Level,
    ) -> Self {
        let n = alpha.len();
        let mut variables = Variables {
            diagonal,
            y,
            alpha,
            gradient: vec![0.0; n],
            gradient_bar: vec![0.0; n],
            p,
            upper,
            bound: vec![Bound::Lower; n],
            active_set: (0..n).collect(),
            // Never above the CPU's: the scans' `unsafe` calls rely on it.
            simd: simd.min(Level::detected()),
        };
        for i in 0..n {
            variables.update_bound(i);
        }
        variables
    }

    pub fn len(&self) -> usize {
        self.alpha.len()
    }

    /// LIBSVM's `update_alpha_status`.
    #[inline]
    pub fn update_bound(&mut self, i: usize) {
        self.bound[i] = if self.alpha[i] >= self.upper[i] {
            Bound::Upper
        } else if self.alpha[i] <= 0.0 {
            Bound::Lower
        } else {
            Bound::Free
        };
    }

    #[inline]
    pub fn is_upper(&self, i: usize) -> bool {
        self.bound[i] == Bound::Upper
    }

    #[inline]
    pub fn is_lower(&self, i: usize) -> bool {
        self.bound[i] == Bound::Lower
    }

    #[inline]
    pub fn is_free(&self, i: usize) -> bool {
        self.bound[i] == Bound::Free
    }

    /// Exchanges positions `i` and `j` everywhere, `Q` included.
    pub fn swap_index<Q: QMatrix>(&mut self, q: &mut Q, i: usize, j: usize) {
        q.swap_index(i, j);
        self.diagonal.swap(i, j);
        self.y.swap(i, j);
        self.alpha.swap(i, j);
        self.gradient.swap(i, j);
        self.gradient_bar.swap(i, j);
        self.p.swap(i, j);
        self.upper.swap(i, j);
        self.bound.swap(i, j);
        self.active_set.swap(i, j);
    }

    /// `f(α) = ½αᵀQα + pᵀα = Σ α_i (G_i + p_i) / 2`, valid when `G` is exact everywhere.
    pub fn objective(&self) -> f64 {
        self.alpha
            .iter()
            .zip(&self.gradient)
            .zip(&self.p)
            .map(|((a, g), p)| a * (g + p))
            .sum::<f64>()
            / 2.0
    }
}

/// The test data of the scans: Knuth's MMIX linear congruential generator from `seed`, its
/// top 31 bits per draw.
#[cfg(test)]
pub(crate) fn test_draws(seed: u64) -> impl FnMut() -> usize {
    let mut state = seed;
    move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    }
}

/// Variables for tests of the scans, with many ties: gradients on a coarse grid, every bound,
/// and labels `±1` at random or all `only`.
#[cfg(test)]
pub(crate) fn tied_variables(n: usize, seed: u64, only: Option<i8>) -> Variables {
    let mut next = test_draws(seed);
    let y: Vec<i8> =
        (0..n).map(|_| only.unwrap_or(if next().is_multiple_of(2) { 1 } else { -1 })).collect();
    let mut v = Variables::new(
        (0..n).map(|_| [0.5, 1.0, 1.0, 2.0][next() % 4]).collect(),
        y,
        vec![0.0; n],
        vec![-1.0; n],
        vec![1.0; n],
        Level::current(),
    );
    for t in 0..n {
        v.alpha[t] = [0.0, 1.0, 0.5][next() % 3];
        v.update_bound(t);
        v.gradient[t] = (next() % 9) as f64 * 0.25 - 1.0;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scans_never_run_above_the_cpus_level() {
        for asked in Level::ALL {
            let v = Variables::new(vec![1.0], vec![1], vec![0.0], vec![-1.0], vec![1.0], asked);
            assert_eq!(v.simd, asked.min(Level::detected()));
        }
    }
}
