//! `QMatrix`: the Hessian of a dual problem, column by column, as a decomposition solver sees it.
//!
//! LIBSVM's `QMatrix`/`SVC_Q`/`ONE_CLASS_Q`/`SVR_Q` split (Chang & Lin 2011, §4): the solver only
//! asks for columns `Q[0..len, i]` (`len` = the current active-set size), the diagonal, and
//! position swaps ([`QMatrix`]). What the SMO solvers ask beyond that (cache queries,
//! prefetches, passes fused into a column's computation, passes over many columns) is the
//! extension [`QMatrixPasses`], whose defaults reduce every method to the core. Both are
//! implemented by the one cached-column type under its [`Signs`](crate::Signs) map,
//! [`SignedQ`](crate::SignedQ) (`signed_q.rs`), and by [`crate::SvrQ`] (`svr_qmatrix.rs`):
//!
//! * [`SignedQ`](crate::SignedQ): `Q_ij = y_i y_j K_ij` (C-SVC, ν-SVC, PU); with unit signs,
//!   `Q_ij = K_ij` (one-class, user-given matrices).
//! * [`crate::SvrQ`]: the `2l × 2l` ε-SVR matrix, assembled from the same type's `f32` kernel
//!   rows.
//!
//! `Q` values are `f32`, as LIBSVM's `Qfloat`; the diagonal is `f64`. This file also holds what
//! both fill their caches with: [`fill_rooms`] (a kernel block stored window by window on the
//! threads that compute it) and [`fill_cached`] (many columns made resident at once).

use std::mem::MaybeUninit;

use crate::cache::{CacheStats, RowCache};
use crate::per_thread::PerThread;
use crate::source::KernelSource;
use crate::team::DisjointSlices;

/// The dual Hessian as seen by a decomposition solver: LIBSVM's core (size, diagonal,
/// columns, swaps). The SMO solvers' faster passes are [`QMatrixPasses`].
pub trait QMatrix: Send {
    /// Number of variables.
    fn size(&self) -> usize;
    /// `Q_ii` for every position.
    fn diagonal(&self) -> &[f64];
    /// `Q[0..len, i]`.
    fn column(&mut self, i: usize, len: usize) -> &[f32];
    /// `Q[0..len, i]` and `Q[0..len, j]` together (both stay valid).
    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]);
    /// Exchanges positions `i` and `j` (rows, columns, diagonal and signs).
    fn swap_index(&mut self, i: usize, j: usize);
    /// Counters of the underlying cache.
    fn cache_stats(&self) -> CacheStats;
}

/// What the SMO solvers ask of a [`QMatrix`] beyond LIBSVM's core, each with a default that
/// reduces it to the core (a matrix that only has columns implements it as `impl
/// QMatrixPasses for M {}`): cache queries, prefetches and speculative columns, passes of the
/// solver fused into the pass that computes a column, and passes over many columns (gradient
/// updates of a batch, reconstructions, submatrices). Each method states what it must give
/// bitwise, so that a faster implementation never changes the solver's path.
pub trait QMatrixPasses: QMatrix {
    /// Whether the kernel behind the matrix is positive semidefinite by construction
    /// ([`crate::KernelSource::known_positive_semidefinite`]).
    fn known_positive_semidefinite(&self) -> Option<bool> {
        None
    }

    /// Whether `Q[0..len, i]` would be served without computing anything.
    fn is_cached(&self, _i: usize, _len: usize) -> bool {
        false
    }

    /// How many columns of length `len` the cache holds at most.
    fn cache_capacity(&self, _len: usize) -> usize {
        0
    }

    /// A hint: the columns `Q[0..len, k]`, `k ∈ indices`, will be needed soon. Implementations
    /// compute the missing ones as one block (one GEMM) and cache them. The values are those
    /// [`QMatrix::column`] would compute, up to the rounding of the inner products (a GEMM
    /// accumulates in another order than a single dot product); the choice of columns must
    /// therefore not depend on the thread count, so that results do not either.
    fn prefetch(&mut self, _indices: &[usize], _len: usize) {}

    /// How many columns of length `len` are worth computing *speculatively* alongside a
    /// missing one, in the same [`QMatrixPasses::prefetch`] (0: none). Non-zero only when that
    /// prefetch gives each column bitwise the value [`QMatrix::column`] would (so the solver's
    /// path does not change), shares one pass over the data, and fits in the cache without
    /// evicting anything.
    fn speculation_width(&self, _len: usize) -> usize {
        0
    }

    /// Whether [`QMatrixPasses::column_then`] may fuse (when `false`, it never does, and a solver
    /// keeps its unfused path without asking).
    fn fuses_passes(&self) -> bool {
        false
    }

    /// Computes the missing positions of column `Q[0..len, j]` and hands each window of them to
    /// `then(c0, &Q[c0..c1, j], companion)` as soon as the window is stored, on the thread that
    /// computed it, with `companion = Some(&Q[c0..c1, i])` when `beside = Some(i)` (column `i`
    /// stays resident meanwhile). The windows are disjoint and cover `have..len` once, where
    /// `have ≤ from` is the number of positions the column already held, so a pass of the
    /// solver over `from..len` (a gradient update, a working-set scan, the gradient
    /// reconstruction's positions) runs inside the pass that computes the column, while each
    /// window is in its core's cache: one synchronisation of the threads instead of two.
    /// Windows, or parts of them, before `from` are the caller's to skip.
    ///
    /// Returns `true` when it did so, with column `j` then resident as [`QMatrix::column`]
    /// leaves it (same values, same cache counters). Returns `false`, having computed and
    /// called nothing, unless column `j` holds at most `from` values and fewer than `len`,
    /// column `i` (if any) is resident over `0..len` and `i ≠ j`: the caller then makes its
    /// pass itself. The default never fuses.
    fn column_then(
        &mut self,
        _j: usize,
        _beside: Option<usize>,
        _len: usize,
        _from: usize,
        _then: &WindowThen<'_>,
    ) -> bool {
        false
    }

    /// How many columns [`QMatrixPasses::columns_from`] computes in one pass over the data (1: one
    /// at a time).
    fn block_columns(&self) -> usize {
        1
    }

    /// Hands `visit(r, values)` the values `Q[from..len, k]` (`from ≤ len`) of the columns
    /// `k ∈ columns`, `values[s]` those of `columns[r + s]`: every column once, in order, each
    /// bitwise [`QMatrix::column`]`(k, len)[from..]`. For a pass over many columns' positions
    /// `from..len` (the gradient reconstruction). The default is [`columns_one_by_one`].
    fn columns_from(
        &mut self,
        columns: &[usize],
        from: usize,
        len: usize,
        visit: &mut ColumnsVisit<'_>,
    ) {
        columns_one_by_one(self, columns, from, len, visit);
    }

    /// `target[t] += Σ_r scales[r] · Q[t, columns[r]]` for `t ∈ 0..target.len()`: the gradient
    /// update of a step on many variables. Each position's sum is fixed by the columns and
    /// scales (not by the thread count); matrices whose columns are all resident (after
    /// [`QMatrixPasses::prefetch`]) add them in one parallel pass. The default is
    /// [`add_columns_by_blocks`](crate::column_sums::add_columns_by_blocks).
    fn add_columns(&mut self, columns: &[usize], scales: &[f64], target: &mut [f64]) {
        crate::column_sums::add_columns_by_blocks(self, columns, scales, target);
    }

    /// `target[t − from] += Σ_r scales[r] · Q[t, columns[r]]` for `t ∈ from..from +
    /// target.len()`: a gradient reconstruction's free columns over the inactive positions.
    /// The resident columns are read from the cache; the others are computed over those
    /// positions only, in blocks, and not cached (nothing is evicted for them). Each position's
    /// sum is fixed by the columns (not by the thread count), but the blocks may round the
    /// inner products differently from [`QMatrix::column`]. The default takes the columns as
    /// [`QMatrixPasses::columns_from`] hands them.
    fn add_columns_from(
        &mut self,
        columns: &[usize],
        scales: &[f64],
        from: usize,
        target: &mut [f64],
    ) {
        assert_eq!(scales.len(), columns.len(), "add_columns_from: one scale per column");
        let len = from + target.len();
        self.columns_from(columns, from, len, &mut |r, values| {
            crate::column_sums::add_scaled_columns(target, values, &scales[r..r + values.len()]);
        });
    }

    /// `out[c·n + r] = Q[rows[r], columns[c]]` (`n = rows.len()`, column-major): entries of
    /// the Hessian of a subproblem, read from the columns (resident after
    /// [`QMatrixPasses::prefetch`]). The default is
    /// [`submatrix_by_columns`](crate::column_sums::submatrix_by_columns).
    fn submatrix(&mut self, rows: &[usize], columns: &[usize], out: &mut [f32]) {
        crate::column_sums::submatrix_by_columns(self, rows, columns, out);
    }
}

/// [`QMatrixPasses::columns_from`] one column at a time, each as [`QMatrix::column`] returns it: the
/// trait's default, for a matrix without blocks of columns (or a wrapper turning them off).
pub fn columns_one_by_one<Q: QMatrix + ?Sized>(
    q: &mut Q,
    columns: &[usize],
    from: usize,
    len: usize,
    visit: &mut ColumnsVisit<'_>,
) {
    for (r, &k) in columns.iter().enumerate() {
        let column = q.column(k, len);
        visit(r, &[&column[from..]]);
    }
}

/// What [`QMatrixPasses::columns_from`] calls: `(index of the first column, their values)`.
pub type ColumnsVisit<'a> = dyn FnMut(usize, &[&[f32]]) + 'a;

/// Most columns [`QMatrixPasses::add_columns_from`] computes outside the cache in one block (one
/// GEMM): 64 columns of 60,000 positions are 15 MB of `f32`.
pub(crate) const UNCACHED_BLOCK: usize = 64;

/// What [`QMatrixPasses::column_then`] runs on each window: `(c0, window of the new column, window
/// of the resident one)`.
pub type WindowThen<'a> = dyn Fn(usize, &[f32], Option<&[f32]>) + Sync + 'a;

/// How [`fill_rooms`] stores a computed window: `(row, c0, window of the room, values)`.
type StoreWindow<'a> = dyn Fn(usize, usize, &mut [MaybeUninit<f32>], &[f64]) + Sync + 'a;

/// Computes the kernel block `K[rows, start..start + w]` into `rooms` (one uninitialised slice
/// of `w` values per row), window by window as the kernel source computes it, on the thread
/// that computed each window: `store(r, c0, window, values)` must write the whole `window` of
/// row `r` (positions `start + c0 ..`) from its `f64` `values`. Every position of every room
/// is then written; the windows' lengths are counted to check it (disjoint windows, the
/// source's contract that `DisjointSlices` relies on, whose lengths add up to the rooms cover
/// them), so the caller may mark the rooms filled.
pub(crate) fn fill_rooms<K: KernelSource>(
    kernel: &K,
    scratch: &mut Vec<f64>,
    rows: &[usize],
    rooms: &mut [&mut [MaybeUninit<f32>]],
    start: usize,
    store: &StoreWindow<'_>,
) {
    let width = rooms.first().map_or(0, |room| room.len());
    assert!(rooms.len() == rows.len() && rooms.iter().all(|room| room.len() == width));
    if width == 0 {
        return;
    }
    let scratch = scratch_of(scratch, rows.len() * width);
    let rooms: Vec<DisjointSlices<'_, MaybeUninit<f32>>> =
        rooms.iter_mut().map(|room| DisjointSlices::new(room)).collect();
    let written = PerThread::new(0usize);
    let finish = |r: usize, c0: usize, values: &[f64]| {
        // SAFETY: the windows of one row of the block are disjoint, and the rows' rooms are
        // distinct cache columns.
        let window = unsafe { rooms[r].range(c0, c0 + values.len()) };
        written.add(window.len(), |a, b| a + b);
        store(r, c0, window, values);
    };
    kernel.fill_block_finishing(rows, start, start + width, scratch, &finish);
    let written = written.merged(|a, b| a + b);
    assert_eq!(written, rows.len() * width, "the kernel source left a cache column unfilled");
}

/// Makes the columns `columns` (distinct) resident over `0..len` in `cache`: the resident ones
/// are made most recently used, then the missing parts of the others are computed as blocks
/// of the columns that hold the same cached prefix (in a solve without shrinking, one block),
/// stored window by window on the threads that compute them ([`fill_rooms`], with
/// `store(column, c0, window, values)`, `c0` counting from the column's first position), so
/// that neither the conversion to `f32` nor the page faults of new columns run on one thread.
pub(crate) fn fill_cached<K: KernelSource>(
    kernel: &K,
    cache: &mut RowCache,
    scratch: &mut Vec<f64>,
    columns: &[usize],
    len: usize,
    store: &StoreWindow<'_>,
) {
    let mut missing: Vec<usize> = Vec::new();
    cache.refresh_many(columns);
    for &k in columns {
        if cache.refresh(k) >= len {
            cache.get_unfilled(k, len, None);
        } else {
            missing.push(k);
        }
    }
    // A group's rooms may evict columns of a later group: their prefixes are read again.
    while !missing.is_empty() {
        let mut prefixes: Vec<(usize, usize)> =
            missing.iter().map(|&k| (cache.refresh(k), k)).collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        let start = prefixes[0].0;
        let ids: Vec<usize> =
            prefixes.iter().take_while(|&&(have, _)| have == start).map(|&(_, k)| k).collect();
        missing = prefixes[ids.len()..].iter().map(|&(_, k)| k).collect();
        let mut rooms: Vec<&mut [MaybeUninit<f32>]> =
            cache.get_many_unfilled(&ids, len).into_iter().map(|(_, room)| room).collect();
        let each = |r: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
            store(ids[r], start + c0, window, values);
        };
        fill_rooms(kernel, scratch, &ids, &mut rooms, start, &each);
        for &k in &ids {
            // SAFETY: `fill_rooms` wrote every position of every room.
            unsafe { cache.set_filled(k, len) };
        }
    }
}

/// The first `n` values of the scratch buffer, which only grows: a block's output is written
/// whole by the kernel source (`KernelSource::fill_block`), so no value needs zeroing, and a
/// buffer resized to each block's length zero-filled every growth on the solve's thread.
pub(crate) fn scratch_of(scratch: &mut Vec<f64>, n: usize) -> &mut [f64] {
    if scratch.len() < n {
        scratch.resize(n, 0.0);
    }
    &mut scratch[..n]
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::{DenseKernel, DenseRows, KernelFunction, KernelSource};

    /// An RBF kernel over `n` rows of `d` values (shared with `svr_qmatrix`'s tests).
    pub(crate) fn kernel(values: &[f64], n: usize, d: usize) -> DenseKernel<'_> {
        DenseKernel::new(DenseRows::new(values, n, d).unwrap(), KernelFunction::Rbf { gamma: 0.5 })
            .unwrap()
    }

    /// `K(x_i, x_j)` computed alone.
    pub(crate) fn k_value(k: &DenseKernel<'_>, i: usize, j: usize) -> f64 {
        let mut out = [0.0];
        k.fill_block(&[i], j, j + 1, &mut out);
        out[0]
    }
}
