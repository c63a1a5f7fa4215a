//! The SMO pass that applies a step: `G += Q_i·Δα_i + Q_j·Δα_j` over the active positions,
//! fused with the first scan of the next selection, and the `Ḡ` terms of variables that
//! entered or left their upper bound (see the module doc of [`super`] for the fusion with the
//! pass that computes a missing column).

use kernelkit_kernels::column_sums::UPDATE_CHUNK;
pub(super) use kernelkit_kernels::column_sums::{
    add_scaled, add_scaled_column, add_scaled_columns,
};
use kernelkit_kernels::team::{self, DisjointSlices};
use kernelkit_kernels::{PerThread, QMatrixPasses};

use super::state::Variables;
use super::strategy::Strategy;

/// `target[t] += scale · Q[t, k]` for `t ∈ from..target.len()` (the `Ḡ` of the inactive
/// positions; a column of the gradient reconstruction), added by the pass that computes the
/// column's missing positions when it fuses ([`QMatrixPasses::column_then`]: the column holds at
/// most `from` positions), else by a pass of its own over the resident column. Each position
/// gets the one product and sum [`add_scaled_column`] adds.
pub(super) fn add_scaled_column_from<Q: QMatrixPasses>(
    q: &mut Q,
    k: usize,
    target: &mut [f64],
    from: usize,
    scale: f64,
) {
    let len = target.len();
    let fused = {
        let target = DisjointSlices::new(&mut target[from..]);
        let then = |c0: usize, column: &[f32], _: Option<&[f32]>| {
            let (lo, hi) = (c0.max(from), c0 + column.len());
            if lo < hi {
                // SAFETY: the windows of one column are disjoint (`column_then`).
                let target = unsafe { target.range(lo - from, hi - from) };
                add_scaled(target, &column[lo - c0..], scale);
            }
        };
        q.column_then(k, None, len, from, &then)
    };
    if !fused {
        let column = &q.column(k, len)[from..];
        add_scaled_column(&mut target[from..], column, scale);
    }
}

/// [`update_gradient_and_scan`] inside the pass that computes the missing column `j`
/// ([`QMatrixPasses::column_then`]): each window of `Q[.., j]` updates its positions of the gradient
/// and is scanned as soon as it is stored. The windows' scans are merged as they finish, which
/// gives the same maximum as the chunks merged in order (the merge is commutative: ties go to
/// the larger index). `None` when the matrix did not fuse (nothing was computed or updated).
pub(super) fn update_gradient_and_scan_in_fill<S: Strategy, Q: QMatrixPasses>(
    q: &mut Q,
    v: &mut Variables,
    (i, j): (usize, usize),
    active_size: usize,
    update: PairUpdate,
) -> Option<S::First> {
    let Variables { gradient, gradient_bar, y, bound, simd, .. } = v;
    let simd = *simd;
    let (y, bound) = (&y[..active_size], &bound[..active_size]);
    let gradient = DisjointSlices::new(&mut gradient[..active_size]);
    let gradient_bar = DisjointSlices::new(&mut gradient_bar[..active_size]);
    let first = PerThread::new(S::NO_FIRST);
    let then = |c0: usize, q_j: &[f32], q_i: Option<&[f32]>| {
        let c1 = c0 + q_j.len();
        let q_i = q_i.expect("column_then passes the resident column's window");
        // SAFETY (both ranges): the windows of one column are disjoint (`column_then`).
        let g = unsafe { gradient.range(c0, c1) };
        update.apply(g, || unsafe { gradient_bar.range(c0, c1) }, q_i, q_j);
        first.add(S::first_scan(simd, &y[c0..c1], &bound[c0..c1], g, c0), S::merge_first);
    };
    q.column_then(j, Some(i), active_size, 0, &then).then(|| first.merged(S::merge_first))
}

/// One SMO step's changes, position by position: `G += Q_i·Δα_i + Q_j·Δα_j`, and
/// `Ḡ += Q_k·(±u_k)` for each of `i`, `j` that entered (+) or left (−) its upper bound (LIBSVM's
/// `G_bar` update), each `Ḡ` term added as [`add_scaled_column`] adds it (`i`'s first).
#[derive(Debug, Clone, Copy)]
pub(super) struct PairUpdate {
    pub(super) d_i: f64,
    pub(super) d_j: f64,
    pub(super) bar_i: Option<f64>,
    pub(super) bar_j: Option<f64>,
}

impl PairUpdate {
    /// Applies the step to the positions of one window: `g` and `Q_i`, `Q_j` over them, and
    /// their `Ḡ`, asked for only when a bound changed.
    #[inline]
    fn apply<'a>(
        &self,
        g: &mut [f64],
        g_bar: impl FnOnce() -> &'a mut [f64],
        q_i: &[f32],
        q_j: &[f32],
    ) {
        for ((g, &a), &b) in g.iter_mut().zip(q_i).zip(q_j) {
            *g += f64::from(a) * self.d_i + f64::from(b) * self.d_j;
        }
        if self.bar_i.is_none() && self.bar_j.is_none() {
            return;
        }
        let g_bar = g_bar();
        for (column, scale) in [(q_i, self.bar_i), (q_j, self.bar_j)] {
            if let Some(scale) = scale {
                add_scaled(g_bar, column, scale);
            }
        }
    }
}

/// `G[k] += Q_i[k]·Δα_i + Q_j[k]·Δα_j` for every active `k`, in parallel over fixed chunks, and
/// in the same pass the first scan of the next selection over the updated gradient (the chunk
/// results merged in order, so the scan does not depend on the thread count).
pub(super) fn update_gradient_and_scan<S: Strategy>(
    v: &mut Variables,
    active_size: usize,
    q_i: &[f32],
    q_j: &[f32],
    update: PairUpdate,
) -> S::First {
    let Variables { gradient, gradient_bar, y, bound, simd, .. } = v;
    let simd = *simd;
    let (gradient, y, bound) =
        (&mut gradient[..active_size], &y[..active_size], &bound[..active_size]);
    let gradient_bar = &mut gradient_bar[..active_size];
    if active_size < kernelkit_kernels::PARALLEL_MIN_LEN {
        update.apply(gradient, || gradient_bar, q_i, q_j);
        return S::first_scan(simd, y, bound, gradient, 0);
    }
    let gradient = DisjointSlices::new(gradient);
    let gradient_bar = DisjointSlices::new(gradient_bar);
    team::fold_chunks(
        active_size.div_ceil(UPDATE_CHUNK),
        |c| {
            let (lo, hi) = (c * UPDATE_CHUNK, ((c + 1) * UPDATE_CHUNK).min(active_size));
            // SAFETY: chunk c alone writes lo..hi of G and of Ḡ.
            let g = unsafe { gradient.range(lo, hi) };
            update.apply(g, || unsafe { gradient_bar.range(lo, hi) }, &q_i[lo..hi], &q_j[lo..hi]);
            S::first_scan(simd, &y[lo..hi], &bound[lo..hi], g, lo)
        },
        S::NO_FIRST,
        S::merge_first,
    )
}
