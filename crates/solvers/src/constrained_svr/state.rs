//! The iterate of GSMO in the β-state form (digest §2.4): the dual blocks `θ = (α, α*, γ, μ)`
//! together with `β = −Xᵀ(α − α*) − Aᵀγ + Γᵀμ` (Prop. 2.1 (3)) and its images `r = Xβ`,
//! `s = Aβ`, `q = Γβ`, which give every gradient of the dual (digest §1.6):
//!
//! ```text
//! ∇_α f = y − r,   ∇_α* f = −(y − r),   ∇_γ f = b − s,   ∇_μ f = q − d
//! f(θ) = ½‖β‖² + yᵀ(α − α*) + bᵀγ − dᵀμ         (paper eq. (16), with the ½ of §1.5)
//! ```
//!
//! Every step changes β by a sparse or two-row `Δβ` and updates `r`, `s`, `q` and the linear
//! term `lᵀθ` incrementally; [`State::refresh`] recomputes them from θ.

use kernelkit_kernels::team::{self, DisjointSlices};
use kernelkit_kernels::{DenseRows, PARALLEL_MIN_LEN};

use super::constraints::LinearConstraints;

/// Rows per parallel task in the O(n) passes (fixed, so results do not depend on threads).
pub(crate) const ROW_CHUNK: usize = 4096;

/// Runs `f(start, chunk)` over consecutive chunks of `out` (`start` = the chunk's first index):
/// in fixed chunks on the rayon pool when `out` is long, else in one call.
pub(crate) fn update_rows(out: &mut [f64], f: impl Fn(usize, &mut [f64]) + Sync) {
    if out.len() < PARALLEL_MIN_LEN {
        f(0, out);
    } else {
        let n = out.len();
        let out = DisjointSlices::new(out);
        team::for_each_chunk(n.div_ceil(ROW_CHUNK), |c| {
            let (lo, hi) = (c * ROW_CHUNK, ((c + 1) * ROW_CHUNK).min(n));
            // SAFETY: chunk c alone writes lo..hi.
            f(lo, unsafe { out.range(lo, hi) });
        });
    }
}

/// A change `Δβ` of the weights: its non-zeros (the steps on one constraint row, and pair
/// steps with few features), or every coordinate (pair steps with many features, computed in
/// parallel).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Change<'a> {
    /// `Δβ_l = deltas[t]` for `l = coordinates[t]`, zero elsewhere.
    Sparse { coordinates: &'a [usize], deltas: &'a [f64] },
    /// `Δβ` itself.
    Dense(&'a [f64]),
}

/// `r += X Δβ`.
pub(crate) fn add_rows_times(r: &mut [f64], x: &DenseRows<'_>, change: Change<'_>) {
    update_rows(r, |start, chunk| {
        for (t, value) in chunk.iter_mut().enumerate() {
            let row = x.row(start + t);
            *value += match change {
                Change::Dense(deltas) => row.iter().zip(deltas).map(|(a, d)| a * d).sum::<f64>(),
                Change::Sparse { coordinates, deltas } => {
                    coordinates.iter().zip(deltas).map(|(&l, &d)| row[l] * d).sum::<f64>()
                }
            };
        }
    });
}

/// `Σ v_l²`, over fixed chunks in parallel when `v` is long (the same sum for any thread count).
pub(crate) fn sum_of_squares(v: &[f64]) -> f64 {
    if v.len() < PARALLEL_MIN_LEN {
        v.iter().map(|x| x * x).sum()
    } else {
        let n = v.len();
        let chunk_sum = |c: usize| -> f64 {
            v[c * ROW_CHUNK..((c + 1) * ROW_CHUNK).min(n)].iter().map(|x| x * x).sum()
        };
        // Summed in chunk order from −0.0, as `Iterator::sum` of the chunk sums was.
        team::fold_chunks(n.div_ceil(ROW_CHUNK), chunk_sum, -0.0, |total, part| total + part)
    }
}

/// The dual iterate and its β-state.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub alpha: Vec<f64>,
    pub alpha_star: Vec<f64>,
    pub gamma: Vec<f64>,
    pub mu: Vec<f64>,
    pub beta: Vec<f64>,
    /// `Xβ`.
    pub r: Vec<f64>,
    /// `Aβ`.
    pub s: Vec<f64>,
    /// `Γβ`.
    pub q: Vec<f64>,
    /// `yᵀ(α − α*) + bᵀγ − dᵀμ`.
    pub linear: f64,
}

impl State {
    /// LIBSVM's ν-SVR start (`solve_nu_svr`, also the authors' code): fill `α` and `α*`
    /// identically up to `Σα = Σα* = C n ν / 2`, `γ = μ = 0`; then `β = 0`.
    pub(crate) fn initial(n: usize, p: usize, k1: usize, k2: usize, c: f64, nu: f64) -> Self {
        let mut remaining = c * n as f64 * nu / 2.0;
        let mut alpha = vec![0.0; n];
        for value in alpha.iter_mut() {
            *value = remaining.min(c);
            remaining -= *value;
            if remaining <= 0.0 {
                break;
            }
        }
        State {
            alpha_star: alpha.clone(),
            alpha,
            gamma: vec![0.0; k1],
            mu: vec![0.0; k2],
            beta: vec![0.0; p],
            r: vec![0.0; n],
            s: vec![0.0; k1],
            q: vec![0.0; k2],
            linear: 0.0,
        }
    }

    /// `f(θ) = ½‖β‖² + lᵀθ`.
    pub(crate) fn objective(&self) -> f64 {
        0.5 * sum_of_squares(&self.beta) + self.linear
    }

    /// Recomputes β, `r`, `s`, `q` and `lᵀθ` from θ (no drift of the incremental updates).
    pub(crate) fn refresh(
        &mut self,
        x: &DenseRows<'_>,
        y: &[f64],
        inequalities: &LinearConstraints,
        equalities: &LinearConstraints,
    ) {
        let p = self.beta.len();
        let mut beta = vec![0.0; p];
        for (i, row) in (0..x.n_rows()).map(|i| (i, x.row(i))) {
            let weight = self.alpha[i] - self.alpha_star[i];
            if weight != 0.0 {
                for (b, &v) in beta.iter_mut().zip(row) {
                    *b -= weight * v;
                }
            }
        }
        inequalities.matrix.transpose_mul_add(&self.gamma, -1.0, &mut beta);
        equalities.matrix.transpose_mul_add(&self.mu, 1.0, &mut beta);
        self.beta = beta;
        let beta = &self.beta;
        update_rows(&mut self.r, |start, chunk| {
            for (t, value) in chunk.iter_mut().enumerate() {
                *value = x.row(start + t).iter().zip(beta).map(|(a, b)| a * b).sum();
            }
        });
        inequalities.matrix.mul(beta, &mut self.s);
        equalities.matrix.mul(beta, &mut self.q);
        let difference: f64 = y
            .iter()
            .zip(self.alpha.iter().zip(&self.alpha_star))
            .map(|(y, (a, s))| y * (a - s))
            .sum();
        let gamma_term: f64 = inequalities.rhs.iter().zip(&self.gamma).map(|(b, g)| b * g).sum();
        let mu_term: f64 = equalities.rhs.iter().zip(&self.mu).map(|(d, m)| d * m).sum();
        self.linear = difference + gamma_term - mu_term;
    }

    /// Applies `β += Δβ` given by its non-zeros, with `r += XΔβ`, `s += AΔβ`, `q += ΓΔβ`
    /// (the γ and μ steps; `Δβ` is a multiple of one constraint row).
    pub(crate) fn add_sparse_beta(
        &mut self,
        x: &DenseRows<'_>,
        coordinates: &[usize],
        deltas: &[f64],
        inequalities: &LinearConstraints,
        equalities: &LinearConstraints,
    ) {
        for (&l, &delta) in coordinates.iter().zip(deltas) {
            self.beta[l] += delta;
        }
        add_rows_times(&mut self.r, x, Change::Sparse { coordinates, deltas });
        inequalities.add_image(coordinates, deltas, &mut self.s);
        equalities.add_image(coordinates, deltas, &mut self.q);
    }
}
