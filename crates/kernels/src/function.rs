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
}
