//! Kernel functions, with LIBSVM's definitions.
//!
//! | kernel | `k(x, z)` |
//! |---|---|
//! | linear | `⟨x, z⟩` |
//! | RBF | `exp(−γ‖x − z‖²)`, with `‖x − z‖² = ‖x‖² + ‖z‖² − 2⟨x, z⟩` |
//! | polynomial | `(γ⟨x, z⟩ + coef0)^degree` |
//! | sigmoid | `tanh(γ⟨x, z⟩ + coef0)` |
//!
//! Every kernel is a function of the inner product and the two squared norms, so a block of
//! kernel values is one matrix product followed by [`KernelFunction::from_inner_product`].

use crate::error::KernelError;

/// A kernel function of two rows, expressed through their inner product.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KernelFunction {
    /// `⟨x, z⟩`.
    Linear,
    /// `exp(−γ‖x − z‖²)`.
    Rbf {
        /// Width `γ > 0`.
        gamma: f64,
    },
    /// `(γ⟨x, z⟩ + coef0)^degree`.
    Polynomial {
        /// Scale `γ > 0`.
        gamma: f64,
        /// Offset.
        coef0: f64,
        /// Degree.
        degree: u32,
    },
    /// `tanh(γ⟨x, z⟩ + coef0)`.
    Sigmoid {
        /// Scale.
        gamma: f64,
        /// Offset.
        coef0: f64,
    },
}

impl KernelFunction {
    /// Checks the parameters: finite values and a positive `gamma` where it scales a distance.
    pub fn validate(&self) -> Result<(), KernelError> {
        let finite = |name, value: f64| {
            if value.is_finite() {
                Ok(())
            } else {
                Err(KernelError::InvalidParameter { name, value, reason: "must be finite" })
            }
        };
        match *self {
            KernelFunction::Linear => Ok(()),
            KernelFunction::Rbf { gamma } | KernelFunction::Polynomial { gamma, .. } => {
                finite("gamma", gamma)?;
                if gamma <= 0.0 {
                    return Err(KernelError::InvalidParameter {
                        name: "gamma",
                        value: gamma,
                        reason: "must be > 0",
                    });
                }
                if let KernelFunction::Polynomial { coef0, .. } = *self {
                    finite("coef0", coef0)?;
                }
                Ok(())
            }
            KernelFunction::Sigmoid { gamma, coef0 } => {
                finite("gamma", gamma)?;
                finite("coef0", coef0)
            }
        }
    }

    /// Whether every Gram matrix of this kernel, over any rows, is positive semidefinite, so
    /// that the dual problems built on it are convex and their optimality certificates hold.
    ///
    /// Linear and RBF kernels are; so is the polynomial kernel with `coef0 ≥ 0` (its expansion
    /// `Σ_k binom(d, k) coef0^(d−k) γ^k ⟨x, z⟩^k` is a non-negative combination of the PSD
    /// kernels `⟨x, z⟩^k`, Schur's product theorem) or degree 0 (the constant 1). The sigmoid
    /// kernel is not, for any parameters in general (Lin & Lin, "A study on sigmoid kernels
    /// for SVM and the training of non-PSD kernels by SMO-type methods", 2003), nor is the
    /// polynomial one with `coef0 < 0` (for degree 1, the rows `x = z = 0` give the 1 × 1 Gram
    /// matrix `[coef0]`).
    pub fn positive_semidefinite(&self) -> bool {
        match *self {
            KernelFunction::Linear | KernelFunction::Rbf { .. } => true,
            KernelFunction::Polynomial { coef0, degree, .. } => degree == 0 || coef0 >= 0.0,
            KernelFunction::Sigmoid { .. } => false,
        }
    }

    /// Whether the kernel needs the squared norms of the rows.
    pub fn uses_norms(&self) -> bool {
        matches!(self, KernelFunction::Rbf { .. })
    }

    /// Turns a row of inner products `⟨x, z_c⟩` into kernel values `k(x, z_c)` in place.
    /// The RBF runs through the vectorised [`crate::simd::rbf_in_place`] (its argument and
    /// exponential in one pass).
    pub fn map_row(&self, values: &mut [f64], sq_norm_x: f64, sq_norms_z: &[f64]) {
        match *self {
            KernelFunction::Linear => {}
            KernelFunction::Rbf { gamma } => {
                crate::simd::rbf_in_place(values, sq_norm_x, sq_norms_z, gamma);
            }
            _ => {
                for (v, &sq_norm_z) in values.iter_mut().zip(sq_norms_z) {
                    *v = self.from_inner_product(*v, sq_norm_x, sq_norm_z);
                }
            }
        }
    }

    /// `k(x, z)` from `⟨x, z⟩`, `‖x‖²` and `‖z‖²`.
    #[inline(always)]
    pub fn from_inner_product(&self, dot: f64, sq_norm_x: f64, sq_norm_z: f64) -> f64 {
        match *self {
            KernelFunction::Linear => dot,
            KernelFunction::Rbf { gamma } => {
                // The expansion can round below zero for (nearly) equal rows.
                let sq_dist = (sq_norm_x + sq_norm_z - 2.0 * dot).max(0.0);
                (-gamma * sq_dist).exp()
            }
            KernelFunction::Polynomial { gamma, coef0, degree } => {
                powi(gamma * dot + coef0, degree)
            }
            KernelFunction::Sigmoid { gamma, coef0 } => (gamma * dot + coef0).tanh(),
        }
    }
}

/// `base^exponent` by squaring, as LIBSVM's `powi`.
#[inline(always)]
fn powi(base: f64, exponent: u32) -> f64 {
    let mut result = 1.0;
    let mut square = base;
    let mut e = exponent;
    while e > 0 {
        if e & 1 == 1 {
            result *= square;
        }
        square *= square;
        e >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powi_matches_powf() {
        for degree in 0..8 {
            for base in [-1.7, -0.3, 0.0, 0.5, 2.25] {
                let expected = f64::powi(base, degree as i32);
                assert!((powi(base, degree) - expected).abs() <= 1e-12 * expected.abs().max(1.0));
            }
        }
    }

    #[test]
    fn rbf_of_identical_rows_is_one() {
        let k = KernelFunction::Rbf { gamma: 3.0 };
        // A dot product that rounds slightly above the norms must not give a value above 1.
        assert_eq!(k.from_inner_product(2.000_000_000_000_001, 2.0, 2.0), 1.0);
    }

    #[test]
    fn invalid_gamma_is_rejected() {
        assert!(KernelFunction::Rbf { gamma: 0.0 }.validate().is_err());
        assert!(KernelFunction::Rbf { gamma: f64::NAN }.validate().is_err());
        assert!(KernelFunction::Polynomial { gamma: 1.0, coef0: f64::INFINITY, degree: 2 }
            .validate()
            .is_err());
        assert!(KernelFunction::Sigmoid { gamma: 0.1, coef0: -1.0 }.validate().is_ok());
    }

    /// The Gram matrix of `rows` (each of `d` values) under `f`.
    fn gram(f: KernelFunction, rows: &[f64], d: usize) -> Vec<Vec<f64>> {
        let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>();
        let rows: Vec<&[f64]> = rows.chunks_exact(d).collect();
        rows.iter()
            .map(|x| {
                rows.iter()
                    .map(|z| {
                        let dot = x.iter().zip(*z).map(|(a, b)| a * b).sum();
                        f.from_inner_product(dot, norm(x), norm(z))
                    })
                    .collect()
            })
            .collect()
    }

    /// Whether the Cholesky factorisation of `m + jitter · I` succeeds.
    fn cholesky_succeeds(mut m: Vec<Vec<f64>>, jitter: f64) -> bool {
        let n = m.len();
        for (i, row) in m.iter_mut().enumerate() {
            row[i] += jitter;
        }
        for j in 0..n {
            let pivot = m[j][j] - (0..j).map(|k| m[j][k] * m[j][k]).sum::<f64>();
            if pivot <= 0.0 {
                return false;
            }
            m[j][j] = pivot.sqrt();
            for i in j + 1..n {
                m[i][j] = (m[i][j] - (0..j).map(|k| m[i][k] * m[j][k]).sum::<f64>()) / m[j][j];
            }
        }
        true
    }

    /// The functions said PSD give Gram matrices that factorise (random rows, a 1e-9 jitter for
    /// round-off); each function said not PSD has a witness whose Gram matrix does not.
    #[test]
    fn positive_semidefinite_matches_the_gram_matrices() {
        let d = 3;
        let rows: Vec<f64> =
            (0..24 * d).map(|k| (((k * 7919) % 211) as f64 / 53.0) - 2.0).collect();
        let psd = [
            KernelFunction::Linear,
            KernelFunction::Rbf { gamma: 0.7 },
            KernelFunction::Polynomial { gamma: 0.5, coef0: 1.0, degree: 3 },
            KernelFunction::Polynomial { gamma: 0.5, coef0: 0.0, degree: 2 },
            KernelFunction::Polynomial { gamma: 0.5, coef0: -1.0, degree: 0 },
        ];
        for f in psd {
            assert!(f.positive_semidefinite(), "{f:?}");
            let m = gram(f, &rows, d);
            let scale = m.iter().flatten().fold(1.0f64, |a, v| a.max(v.abs()));
            assert!(cholesky_succeeds(m, 1e-9 * scale), "{f:?}");
        }
        // (function, rows of one feature whose Gram matrix is not PSD)
        let witnesses: [(KernelFunction, &[f64]); 4] = [
            (KernelFunction::Sigmoid { gamma: 1.0, coef0: 0.0 }, &[1.0, 2.0]),
            (KernelFunction::Sigmoid { gamma: 2.0, coef0: -1.0 }, &[0.0]),
            (KernelFunction::Polynomial { gamma: 1.0, coef0: -1.0, degree: 1 }, &[0.0]),
            (KernelFunction::Polynomial { gamma: 1.0, coef0: -1.0, degree: 2 }, &[1.0, 0.0]),
        ];
        for (f, witness) in witnesses {
            assert!(!f.positive_semidefinite(), "{f:?}");
            assert!(!cholesky_succeeds(gram(f, witness, 1), 1e-9), "{f:?}");
        }
    }
}
