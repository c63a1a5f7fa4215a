//! The intercept β0 and the tube half-width ε from the dual solution (digest §1.8; the paper
//! does not say how to compute them, and the authors' code predicts without an intercept).
//!
//! At a KKT point the α-block gradient `∇_α f = y − Xβ` equals `β0 − ε` on every free `α_i`
//! (`0 < α_i < C`: the upper tube constraint is active) and the α*-block gradient
//! `−(y − Xβ)` equals `−β0 − ε` on every free `α*_i`. With `r_α`, `r_α*` those common values,
//!
//! ```text
//! β0 = (r_α − r_α*) / 2,    ε = −(r_α + r_α*) / 2
//! ```
//!
//! Each common value is the mean over the block's free variables; a block without free
//! variable takes the middle of its KKT interval, `½(max_{I_low} ∇ + min_{I_up} ∇)`, as LIBSVM
//! does. (β0, ε) is then one point of a segment of optima (digest pitfall 11); the primal
//! objective is the same on the whole segment. Free means farther than `1e-12·C` from both
//! bounds.

/// `(β0, ε)` from the final residual gradient `g = y − Xβ` and the bounded blocks.
pub(crate) fn intercept_and_epsilon(
    g: &[f64],
    alpha: &[f64],
    alpha_star: &[f64],
    c: f64,
) -> (f64, f64) {
    let r_alpha = common_value(g.iter().copied(), alpha, c);
    let r_star = common_value(g.iter().map(|v| -v), alpha_star, c);
    let epsilon = (-(r_alpha + r_star) / 2.0).max(0.0);
    ((r_alpha - r_star) / 2.0, epsilon)
}

fn common_value(gradient: impl Iterator<Item = f64>, values: &[f64], c: f64) -> f64 {
    let (lower_edge, upper_edge) = (1e-12 * c, (1.0 - 1e-12) * c);
    let (mut free_sum, mut free_count) = (0.0, 0usize);
    let (mut max_low, mut min_up) = (f64::NEG_INFINITY, f64::INFINITY);
    for (g, &v) in gradient.zip(values) {
        if v > lower_edge && v < upper_edge {
            free_sum += g;
            free_count += 1;
        }
        if v > 0.0 {
            max_low = max_low.max(g);
        }
        if v < c {
            min_up = min_up.min(g);
        }
    }
    if free_count > 0 {
        free_sum / free_count as f64
    } else if max_low.is_finite() && min_up.is_finite() {
        0.5 * (max_low + min_up)
    } else if max_low.is_finite() {
        max_low
    } else {
        min_up
    }
}

#[cfg(test)]
mod tests {
    use super::intercept_and_epsilon;

    #[test]
    fn free_variables_give_the_tube() {
        // β0 = 0.3, ε = 0.2: free α at g = β0 − ε = 0.1, free α* at −g = −β0 − ε = −0.5.
        let g = [0.1, 0.5, 0.0, -0.7];
        let alpha = [0.5, 0.0, 0.0, 0.0];
        let alpha_star = [0.0, 0.5, 0.0, 0.0];
        let (b0, eps) = intercept_and_epsilon(&g, &alpha, &alpha_star, 1.0);
        assert!((b0 - 0.3).abs() < 1e-15 && (eps - 0.2).abs() < 1e-15, "{b0} {eps}");
    }
}
