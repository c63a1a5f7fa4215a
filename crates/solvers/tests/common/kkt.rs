//! The maximal violation of the KKT conditions of a dual with one equality constraint
//! (C-SVC, ε-SVR, one-class), computed from scratch by the SMO tests (`#[path]`-included).

/// `max_{I_up} v_t − min_{I_low} v_t` for `v_t = −y_t G_t` (`minus_y_gradient(t)`, called once
/// per position in order), where `I_up` holds the positions that may move up (`y_t = 1` below
/// `upper`, `y_t = −1` above 0) and `I_low` those that may move down.
pub fn max_violation(
    y: &[i8],
    upper: &[f64],
    alpha: &[f64],
    mut minus_y_gradient: impl FnMut(usize) -> f64,
) -> f64 {
    let (mut up, mut low) = (f64::NEG_INFINITY, f64::INFINITY);
    for t in 0..alpha.len() {
        let value = minus_y_gradient(t);
        let (below, above) = (alpha[t] < upper[t], alpha[t] > 0.0);
        if (y[t] == 1 && below) || (y[t] == -1 && above) {
            up = up.max(value);
        }
        if (y[t] == 1 && above) || (y[t] == -1 && below) {
            low = low.min(value);
        }
    }
    up - low
}
