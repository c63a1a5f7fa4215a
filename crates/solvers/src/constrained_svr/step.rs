//! The closed-form updates of Definition 3.5 on the β-state.
//!
//! * α / α* pair `(i, j)`, `i ∈ I_up`, `j ∈ I_low` of the block: with `η = ‖x_i − x_j‖²`
//!   (guarded below by `1e-12`, LIBSVM's τ, for duplicate rows), the unconstrained minimiser
//!   `t_q = (∇_j − ∇_i)/η` is clipped to `[max(−v_i, v_j − C), min(v_j, C − v_i)]` and
//!   `v_i += t`, `v_j −= t` (the paper's `I2` for α* has a misplaced superscript; the bound is
//!   `min(α*_j, C − α*_i)`). A variable that reaches a bound is set to it exactly and its partner
//!   to the remaining sum, as LIBSVM does: otherwise round-off leaves values like `2e-16` that
//!   stay in `I_low` and pass for free support vectors (digest §2.6).
//! * γ_u: `γ_u ← max(γ_u − ∇_γu f / (AAᵀ)_uu, 0)`, the exact minimiser along `γ_u` (Def. 3.5.3;
//!   Appendix C prints it with the signs reversed).
//! * μ_u: `μ_u ← μ_u − ∇_μu f / (ΓΓᵀ)_uu` (Def. 3.5.4).
//!
//! `β = −Xᵀ(α − α*) − Aᵀγ + Γᵀμ`, so a change `Δα` moves β by `−XᵀΔα`, `Δα*` by `+XᵀΔα*`,
//! `Δγ_u` by `−Δγ_u A_uᵀ` and `Δμ_u` by `+Δμ_u Γ_uᵀ`; `r = Xβ` follows from two Gram columns for
//! a pair and from `X A_uᵀ` for a constraint step.

use kernelkit_kernels::DenseRows;

use super::constraints::LinearConstraints;
use super::gram::GramColumns;
use super::select::{Block, Pair};
use kernelkit_kernels::PARALLEL_MIN_LEN;

use super::state::{add_rows_times, update_rows, Change, State};

/// Lower bound on the curvature `η` of a pair step (LIBSVM's τ).
const MIN_CURVATURE: f64 = 1e-12;

/// Buffers reused by every step (no allocation inside the iteration loop).
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    coordinates: Vec<usize>,
    deltas: Vec<f64>,
    /// A dense `Δβ` (pair steps with at least `PARALLEL_MIN_LEN` features).
    dense: Vec<f64>,
}

/// The constant data of the problem a step needs.
pub(crate) struct Data<'p> {
    pub y: &'p [f64],
    pub c: f64,
    pub inequalities: &'p LinearConstraints,
    pub equalities: &'p LinearConstraints,
}

/// The new values of a pair `(v_i, v_j)` after the clipped step (Def. 3.5.1–2).
fn pair_values(v_i: f64, v_j: f64, violation: f64, eta: f64, c: f64) -> (f64, f64) {
    let lower = (-v_i).max(v_j - c);
    let upper = v_j.min(c - v_i);
    let t = (violation / eta.max(MIN_CURVATURE)).clamp(lower, upper);
    let total = v_i + v_j;
    let (new_i, new_j) = if t == upper {
        if upper == v_j {
            (total, 0.0)
        } else {
            (c, total - c)
        }
    } else if t == lower {
        if lower == -v_i {
            (0.0, total)
        } else {
            (total - c, c)
        }
    } else {
        (v_i + t, v_j - t)
    };
    (new_i.clamp(0.0, c), new_j.clamp(0.0, c))
}

/// A pair step in the α block (`block = Alpha`) or the α* block.
pub(crate) fn pair_step(
    state: &mut State,
    gram: &mut GramColumns<'_>,
    data: &Data<'_>,
    scratch: &mut Scratch,
    block: Block,
    pair: Pair,
) {
    let (i, j) = (pair.up, pair.low);
    // β = −Xᵀα + Xᵀα*: the sign of a block's variables in β.
    let sign = if block == Block::Alpha { -1.0 } else { 1.0 };
    let values = if block == Block::Alpha { &mut state.alpha } else { &mut state.alpha_star };
    let (k_ii, k_jj) = (gram.diagonal(i), gram.diagonal(j));
    let (x, columns) = gram.rows_and_pair(i, j);
    let (x_i, x_j) = (x.row(i), x.row(j));
    let eta = match columns {
        Some((column_i, _)) => k_ii + k_jj - 2.0 * column_i[j],
        None => x_i.iter().zip(x_j).map(|(a, b)| (a - b) * (a - b)).sum(),
    };
    let (old_i, old_j) = (values[i], values[j]);
    let (new_i, new_j) = pair_values(old_i, old_j, pair.violation, eta, data.c);
    values[i] = new_i;
    values[j] = new_j;
    let (delta_i, delta_j) = (new_i - old_i, new_j - old_j);
    let (weight_i, weight_j) = (sign * delta_i, sign * delta_j);
    state.linear -= sign * (data.y[i] * delta_i + data.y[j] * delta_j);
    let wide = x_i.len() >= PARALLEL_MIN_LEN;
    scratch.coordinates.clear();
    scratch.deltas.clear();
    if wide {
        scratch.dense.resize(x_i.len(), 0.0);
        update_rows(&mut scratch.dense, |start, chunk| {
            let (a, b) = (&x_i[start..], &x_j[start..]);
            for ((delta, &a), &b) in chunk.iter_mut().zip(a).zip(b) {
                *delta = weight_i * a + weight_j * b;
            }
        });
        let dense = &scratch.dense;
        update_rows(&mut state.beta, |start, chunk| {
            for (beta, &delta) in chunk.iter_mut().zip(&dense[start..]) {
                *beta += delta;
            }
        });
    } else {
        for (l, (&a, &b)) in x_i.iter().zip(x_j).enumerate() {
            let delta = weight_i * a + weight_j * b;
            if delta != 0.0 {
                state.beta[l] += delta;
                scratch.coordinates.push(l);
                scratch.deltas.push(delta);
            }
        }
    }
    let change = if wide {
        Change::Dense(&scratch.dense)
    } else {
        Change::Sparse { coordinates: &scratch.coordinates, deltas: &scratch.deltas }
    };
    match columns {
        Some((column_i, column_j)) => update_rows(&mut state.r, |start, chunk| {
            let (ci, cj) = (&column_i[start..], &column_j[start..]);
            for ((r, &ki), &kj) in chunk.iter_mut().zip(ci).zip(cj) {
                *r += weight_i * ki + weight_j * kj;
            }
        }),
        None => add_rows_times(&mut state.r, x, change),
    }
    data.inequalities.add_change(change, &mut state.s);
    data.equalities.add_change(change, &mut state.q);
}

/// A step on one multiplier: `γ_u` (`block = Gamma`) or `μ_u`.
pub(crate) fn constraint_step(
    state: &mut State,
    x: &DenseRows<'_>,
    data: &Data<'_>,
    scratch: &mut Scratch,
    block: Block,
    u: usize,
) {
    let (constraints, weight) = if block == Block::Gamma {
        let gradient = data.inequalities.rhs[u] - state.s[u];
        let old = state.gamma[u];
        let new = (old - gradient / data.inequalities.row_sq_norms[u]).max(0.0);
        state.gamma[u] = new;
        state.linear += data.inequalities.rhs[u] * (new - old);
        (data.inequalities, -(new - old))
    } else {
        let gradient = state.q[u] - data.equalities.rhs[u];
        let delta = -gradient / data.equalities.row_sq_norms[u];
        state.mu[u] += delta;
        state.linear -= data.equalities.rhs[u] * delta;
        (data.equalities, delta)
    };
    let (columns, entries) = constraints.matrix.row(u);
    scratch.coordinates.clear();
    scratch.coordinates.extend_from_slice(columns);
    scratch.deltas.clear();
    scratch.deltas.extend(entries.iter().map(|m| weight * m));
    state.add_sparse_beta(
        x,
        &scratch.coordinates,
        &scratch.deltas,
        data.inequalities,
        data.equalities,
    );
}

#[cfg(test)]
mod tests {
    use super::pair_values;

    #[test]
    fn pair_values_assign_bounds_exactly() {
        let c = 0.5;
        // Unclipped: moves by violation / eta.
        assert_eq!(pair_values(0.1, 0.2, 0.05, 1.0, c), (0.1 + 0.05, 0.2 - 0.05));
        // Clipped at v_j = 0: the partner takes the whole sum, and v_j is exactly 0.
        assert_eq!(pair_values(0.1, 0.2, 10.0, 1.0, c), (0.1 + 0.2, 0.0));
        // Clipped at v_i = C: exactly C.
        assert_eq!(pair_values(0.45, 0.2, 10.0, 1.0, c), (c, 0.45 + 0.2 - c));
        // Duplicate rows (eta = 0) go to a bound instead of dividing by zero.
        let (a, b) = pair_values(0.1, 0.2, 1e-3, 0.0, c);
        assert!(a.is_finite() && b.is_finite() && (a == c || b == 0.0), "{a} {b}");
    }
}
