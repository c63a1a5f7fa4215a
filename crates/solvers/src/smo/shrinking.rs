//! Shrinking and gradient reconstruction (Chang & Lin 2011, §5; LIBSVM's `do_shrinking`,
//! `be_shrunk`, `reconstruct_gradient`).
//!
//! A bounded variable whose violation says it will stay at its bound is moved behind the
//! active set (`swap_index`), so that the scans and gradient updates only touch the active
//! positions. `Ḡ_i = Σ_{j at upper bound} u_j Q_ij` is kept for every position, so that the
//! full gradient `G_i = Ḡ_i + p_i + Σ_{j free} α_j Q_ij` can be rebuilt when the active set is
//! optimal or the solve ends. Once the active set is nearly optimal (`m − M ≤ 10·tol`), the
//! gradient is reconstructed once and every variable is made active again (`unshrink`).
//!
//! The reconstruction adds `α_i Q_ti` of every free `i` to every inactive `t`. LIBSVM asks for
//! one column per free variable; here the columns' inactive positions come in blocks of
//! [`QMatrixPasses::block_columns`] (one pass over the data for the block, [`QMatrixPasses::columns_from`]),
//! and each block is added in one parallel pass in which every position sums the block's
//! columns in the order of `i`: the gradient is bitwise the one added column by column, with two
//! passes per block instead of one per free variable (measurements: `docs/performance.md`,
//! "Gradient reconstruction in blocks").

use kernelkit_kernels::QMatrixPasses;

use super::state::{Bound, Variables};
use super::INTERRUPT_CHECK_COLUMNS;
use crate::protocol::Monitor;

/// Whether position `i` may be shrunk, given the four extremes of [`extremes`] or
/// [`extremes_nu`].
fn be_shrunk(v: &Variables, i: usize, g_max: [f64; 4]) -> bool {
    if v.is_upper(i) {
        if v.y[i] == 1 {
            -v.gradient[i] > g_max[0]
        } else {
            -v.gradient[i] > g_max[3]
        }
    } else if v.is_lower(i) {
        if v.y[i] == 1 {
            v.gradient[i] > g_max[1]
        } else {
            v.gradient[i] > g_max[2]
        }
    } else {
        false
    }
}

/// LIBSVM's `do_shrinking` extremes over positions `0..active_size`: `m(α) = g_max1 = max {−y_i
/// G_i : i ∈ I_up}` and `−M(α) = g_max2 = max {y_i G_i : i ∈ I_low}`, as the four per-label
/// extremes of [`extremes_nu`] they stand for, `[g_max1, g_max2, g_max1, g_max2]` (so
/// [`be_shrunk`] and the gap `g_max1 + g_max2` are those of one equality constraint).
pub(crate) fn extremes(v: &Variables, active_size: usize) -> [f64; 4] {
    let mut g_max1 = f64::NEG_INFINITY; // max { −y_i G_i : i ∈ I_up }
    let mut g_max2 = f64::NEG_INFINITY; // max {  y_i G_i : i ∈ I_low }
    for i in 0..active_size {
        let g = v.gradient[i];
        if v.y[i] == 1 {
            if !v.is_upper(i) && -g >= g_max1 {
                g_max1 = -g;
            }
            if !v.is_lower(i) && g >= g_max2 {
                g_max2 = g;
            }
        } else {
            if !v.is_upper(i) && -g >= g_max2 {
                g_max2 = -g;
            }
            if !v.is_lower(i) && g >= g_max1 {
                g_max1 = g;
            }
        }
    }
    [g_max1, g_max2, g_max1, g_max2]
}

/// LIBSVM's `Solver_NU::do_shrinking` extremes over positions `0..active_size`, per label:
/// `[max −G (y=+1, α<u), max G (y=+1, α>0), max G (y=−1, α>0), max −G (y=−1, α<u)]`.
pub(crate) fn extremes_nu(v: &Variables, active_size: usize) -> [f64; 4] {
    let mut g_max = [f64::NEG_INFINITY; 4];
    for i in 0..active_size {
        let g = v.gradient[i];
        if !v.is_upper(i) {
            if v.y[i] == 1 {
                g_max[0] = g_max[0].max(-g);
            } else {
                g_max[3] = g_max[3].max(-g);
            }
        }
        if !v.is_lower(i) {
            if v.y[i] == 1 {
                g_max[1] = g_max[1].max(g);
            } else {
                g_max[2] = g_max[2].max(g);
            }
        }
    }
    g_max
}

/// The shrinking state carried across iterations.
#[derive(Debug, Default)]
pub(crate) struct Shrinker {
    /// Set once the active set has been restored to the full set near the optimum.
    pub unshrunk: bool,
    /// Number of gradient reconstructions performed.
    pub reconstructions: u64,
}

impl Shrinker {
    /// LIBSVM's `do_shrinking` (and `Solver_NU::do_shrinking`), given the four extremes `g_max`
    /// of [`extremes`] (or [`extremes_nu`]) over the active positions: the first time the gap
    /// is within `10·tol`, the gradient is rebuilt and every position made active again; then
    /// each active position that [`be_shrunk`] is swapped behind the last one kept (LIBSVM's
    /// order). Returns the new active-set size.
    pub fn shrink<Q: QMatrixPasses>(
        &mut self,
        q: &mut Q,
        v: &mut Variables,
        mut active_size: usize,
        tol: f64,
        g_max: [f64; 4],
        monitor: &dyn Monitor,
    ) -> usize {
        let near_optimum = (g_max[0] + g_max[1]).max(g_max[2] + g_max[3]) <= tol * 10.0;
        if !self.unshrunk && near_optimum {
            self.unshrunk = true;
            self.reconstruct_gradient(q, v, active_size, monitor);
            active_size = v.len();
        }
        let mut i = 0;
        while i < active_size {
            if be_shrunk(v, i, g_max) {
                active_size -= 1;
                while active_size > i {
                    if !be_shrunk(v, active_size, g_max) {
                        v.swap_index(q, i, active_size);
                        break;
                    }
                    active_size -= 1;
                }
            }
            i += 1;
        }
        active_size
    }

    /// LIBSVM's `reconstruct_gradient`: makes `G` exact on the inactive positions
    /// `active_size..l`, choosing the cheaper of the two column orders.
    ///
    /// A rebuild computes up to `l` kernel columns (seconds on a large problem with a small
    /// cache), so it checks `monitor.interrupted()` every [`INTERRUPT_CHECK_COLUMNS`] columns
    /// and returns early on Ctrl-C, leaving `G` inexact: the caller then checks the monitor and
    /// discards the solve.
    pub fn reconstruct_gradient<Q: QMatrixPasses>(
        &mut self,
        q: &mut Q,
        v: &mut Variables,
        active_size: usize,
        monitor: &dyn Monitor,
    ) {
        let l = v.len();
        if active_size == l {
            return;
        }
        self.reconstructions += 1;
        for j in active_size..l {
            v.gradient[j] = v.gradient_bar[j] + v.p[j];
        }
        let n_free = (0..active_size).filter(|&j| v.is_free(j)).count();
        if n_free * l > 2 * active_size * (l - active_size) {
            for i in active_size..l {
                if (i - active_size).is_multiple_of(INTERRUPT_CHECK_COLUMNS)
                    && monitor.interrupted()
                {
                    return;
                }
                let q_i = q.column(i, active_size);
                let mut sum = 0.0;
                for ((&q_ij, &alpha_j), &bound_j) in q_i.iter().zip(&v.alpha).zip(&v.bound) {
                    if bound_j == Bound::Free {
                        sum += alpha_j * f64::from(q_ij);
                    }
                }
                v.gradient[i] += sum;
            }
        } else {
            // `G_t += α_i Q_ti` for the free `i` in order, at every inactive `t`: the columns'
            // inactive positions come in blocks ([`QMatrixPasses::columns_from`]: one pass over the
            // data for several columns), and one parallel pass adds a block's columns, each
            // position summing them in the order of `i`, so `G` is bitwise that of the columns
            // added one by one. The free columns go in groups of whole blocks, about
            // [`INTERRUPT_CHECK_COLUMNS`] columns, in order (the same sums, the same blocks),
            // with a check for Ctrl-C between groups.
            let free: Vec<usize> = (0..active_size).filter(|&i| v.is_free(i)).collect();
            let block = q.block_columns().max(1);
            let group_size = block * INTERRUPT_CHECK_COLUMNS.div_ceil(block);
            let Variables { gradient, alpha, .. } = v;
            let inactive = &mut gradient[active_size..];
            for group in free.chunks(group_size) {
                if monitor.interrupted() {
                    return;
                }
                let mut visit = |r: usize, values: &[&[f32]]| {
                    let scales: Vec<f64> =
                        group[r..r + values.len()].iter().map(|&i| alpha[i]).collect();
                    super::gradient_update::add_scaled_columns(inactive, values, &scales);
                };
                q.columns_from(group, active_size, l, &mut visit);
            }
        }
    }
}
