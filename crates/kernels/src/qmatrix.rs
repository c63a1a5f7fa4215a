//! `QMatrix`: the Hessian of a dual problem, column by column, as a decomposition solver sees it.
//!
//! LIBSVM's `QMatrix`/`SVC_Q`/`ONE_CLASS_Q`/`SVR_Q` split (Chang & Lin 2011, §4): the solver only
//! asks for columns `Q[0..len, i]` (`len` = the current active-set size), the diagonal, and
//! position swaps ([`QMatrix`]). What the SMO solvers ask beyond that (cache queries,
//! prefetches, passes fused into a column's computation, passes over many columns) is the
//! extension [`QMatrixPasses`], whose defaults reduce every method to the core. The adapters
//! fold a formulation into both:
//!
//! * [`SignedQ`]: `Q_ij = y_i y_j K_ij` (C-SVC, ν-SVC, PU); with unit signs
//!   ([`SignedQ::unsigned`]), `Q_ij = K_ij` (one-class, user-given matrices).
//! * [`crate::SvrQ`] (its own module): the `2l × 2l` ε-SVR matrix.
//!
//! `Q` values are `f32`, as LIBSVM's `Qfloat`; the diagonal is `f64`. [`SignedQ`] stores a
//! column's `f32` values window by window as the kernel source computes them
//! ([`KernelSource::fill_block_finishing`]), on the thread that computed the window: no second
//! pass over the `f64` block, and no second fork and join per column.

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

/// Most columns [`SignedQ::columns_from`] computes in one block.
const BLOCK_COLUMNS: usize = 16;

/// Most columns [`QMatrixPasses::add_columns_from`] computes outside the cache in one block (one
/// GEMM): 64 columns of 60,000 positions are 15 MB of `f32`.
pub(crate) const UNCACHED_BLOCK: usize = 64;

/// What [`QMatrixPasses::column_then`] runs on each window: `(c0, window of the new column, window
/// of the resident one)`.
pub type WindowThen<'a> = dyn Fn(usize, &[f32], Option<&[f32]>) + Sync + 'a;

/// `Q_ij = s_i s_j K_ij` over a cached kernel source.
#[derive(Debug)]
pub struct SignedQ<K> {
    kernel: K,
    signs: Vec<f64>,
    diagonal: Vec<f64>,
    cache: RowCache,
    scratch: Vec<f64>,
    /// The `f32` values of a [`QMatrixPasses::columns_from`] block (not cached).
    block: Vec<MaybeUninit<f32>>,
}

impl<K: KernelSource> SignedQ<K> {
    /// `y_i y_j K_ij`, for labels `y_i ∈ {−1, +1}`; `cache_bytes` bounds the column cache.
    ///
    /// # Panics
    /// If `signs` and the kernel have different lengths.
    pub fn new(kernel: K, signs: Vec<f64>, cache_bytes: usize) -> Self {
        assert_eq!(kernel.len(), signs.len(), "SignedQ: one sign per point");
        let diagonal = (0..kernel.len()).map(|i| kernel.diagonal_value(i)).collect();
        let cache = RowCache::new(kernel.len(), cache_bytes).with_loose_fit();
        SignedQ { kernel, signs, diagonal, cache, scratch: Vec::new(), block: Vec::new() }
    }

    /// `K_ij` itself (all signs +1): the one-class matrix, or a user-given `Q`.
    pub fn unsigned(kernel: K, cache_bytes: usize) -> Self {
        let n = kernel.len();
        Self::new(kernel, vec![1.0; n], cache_bytes)
    }

    /// The kernel source, in its current position order.
    pub fn kernel(&self) -> &K {
        &self.kernel
    }

    fn ensure(&mut self, i: usize, len: usize, pinned: Option<usize>) {
        let SignedQ { kernel, signs, cache, scratch, .. } = self;
        let (cached, missing) = cache.get_unfilled(i, len, pinned);
        fill_signed(kernel, signs, scratch, i, missing, cached.len(), &|_, _| {});
        // SAFETY: `fill_signed` wrote every missing position.
        unsafe { cache.set_filled(i, len) };
    }

    /// Columns `i` and `j`, both cached up to `start` exactly, extended to `len` by one block
    /// (each pinned while the other is made room for, so neither loses its prefix).
    fn fill_pair(&mut self, i: usize, j: usize, start: usize, len: usize) {
        let [(cached_i, missing_i), (cached_j, missing_j)] =
            self.cache.get_pair_unfilled(i, j, len);
        debug_assert_eq!((cached_i.len(), cached_j.len()), (start, start));
        let (column_signs, signs) = ([self.signs[i], self.signs[j]], &self.signs[start..len]);
        let store = |r: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
            store_signed(window, values, column_signs[r], &signs[c0..c0 + values.len()]);
        };
        fill_rooms(
            &self.kernel,
            &mut self.scratch,
            &[i, j],
            &mut [missing_i, missing_j],
            start,
            &store,
        );
        // SAFETY: `fill_rooms` wrote every position of both rooms.
        unsafe {
            self.cache.set_filled(i, len);
            self.cache.set_filled(j, len);
        }
    }
}

/// Writes `Q[start..start + missing.len(), j]` in `f32` into `missing` (the uninitialised room
/// of column `j` from position `start` on), window by window as the kernel source computes
/// them, handing each stored window to `after(c0, &Q[c0..c1, j])` on the thread that computed
/// it (`c0` counts from the column's first position). Every position of `missing` is written.
fn fill_signed<K: KernelSource>(
    kernel: &K,
    signs: &[f64],
    scratch: &mut Vec<f64>,
    j: usize,
    missing: &mut [MaybeUninit<f32>],
    start: usize,
    after: &(dyn Fn(usize, &[f32]) + Sync),
) {
    let (s_j, signs) = (signs[j], &signs[start..start + missing.len()]);
    let store = |_: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
        after(start + c0, store_signed(window, values, s_j, &signs[c0..c0 + values.len()]));
    };
    fill_rooms(kernel, scratch, &[j], &mut [missing], start, &store);
}

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

/// Writes `column[t] = (s · signs[t] · values[t]) as f32` for every `t` of the window (as long
/// as `values` and `signs`) and returns it, initialised.
fn store_signed<'a>(
    column: &'a mut [MaybeUninit<f32>],
    values: &[f64],
    s: f64,
    signs: &[f64],
) -> &'a [f32] {
    assert!(values.len() == column.len() && signs.len() == column.len());
    #[inline(always)]
    fn body(column: &mut [MaybeUninit<f32>], values: &[f64], s: f64, signs: &[f64]) {
        for ((q, &value), &s_t) in column.iter_mut().zip(values).zip(signs) {
            q.write((s * s_t * value) as f32);
        }
    }
    // The same operations eight or four wide (baseline x86-64 code converts two at a time:
    // this loop was 10 % of an a9a fit's samples).
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx2")]
        fn avx512(column: &mut [MaybeUninit<f32>], values: &[f64], s: f64, signs: &[f64]) {
            body(column, values, s, signs);
        }
        #[target_feature(enable = "avx2")]
        fn avx2(column: &mut [MaybeUninit<f32>], values: &[f64], s: f64, signs: &[f64]) {
            body(column, values, s, signs);
        }
        if crate::Level::current() >= crate::Level::Avx512 {
            // SAFETY: the CPU has AVX-512F and AVX2.
            unsafe { avx512(column, values, s, signs) };
        } else if crate::Level::current() >= crate::Level::Avx2 {
            // SAFETY: the CPU has AVX2.
            unsafe { avx2(column, values, s, signs) };
        } else {
            body(column, values, s, signs);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    body(column, values, s, signs);
    // SAFETY: every value of the window was written just above (the lengths are equal), and
    // `MaybeUninit<f32>` has the layout of `f32`.
    unsafe { &*(std::ptr::from_mut(column) as *const [f32]) }
}

impl<K: KernelSource> QMatrix for SignedQ<K> {
    fn size(&self) -> usize {
        self.signs.len()
    }

    fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    fn column(&mut self, i: usize, len: usize) -> &[f32] {
        self.ensure(i, len, None);
        self.cache.peek(i, len)
    }

    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        let (have_i, have_j) = (self.cache.refresh(i), self.cache.refresh(j));
        if i != j && have_i == have_j && have_i < len {
            // Both columns miss the same positions: one block, one pass over the data.
            self.fill_pair(i, j, have_i, len);
        } else {
            self.ensure(i, len, None);
            self.ensure(j, len, Some(i));
        }
        (self.cache.peek(i, len), self.cache.peek(j, len))
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.cache.swap_index(i, j);
        self.kernel.swap_index(i, j);
        self.signs.swap(i, j);
        self.diagonal.swap(i, j);
    }

    fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }
}

impl<K: KernelSource> QMatrixPasses for SignedQ<K> {
    fn is_cached(&self, i: usize, len: usize) -> bool {
        self.cache.cached_len(i) >= len
    }

    fn cache_capacity(&self, len: usize) -> usize {
        self.cache.budget_values() / len.max(1)
    }

    fn speculation_width(&self, len: usize) -> usize {
        // Guessed columns must be bitwise those computed alone (the path must not change).
        let width = self.kernel.bitwise_rows().min(crate::SHARED_PASS_ROWS) - 1;
        let free = self.cache.budget_values().saturating_sub(self.cache.used_values());
        if self.kernel.shares_passes() && free >= (width + 1) * len {
            width
        } else {
            0
        }
    }

    fn fuses_passes(&self) -> bool {
        true
    }

    fn column_then(
        &mut self,
        j: usize,
        beside: Option<usize>,
        len: usize,
        from: usize,
        then: &WindowThen<'_>,
    ) -> bool {
        if beside == Some(j) {
            return false;
        }
        let have = self.cache.refresh(j);
        if have > from || have >= len {
            return false;
        }
        if let Some(i) = beside {
            if self.cache.refresh(i) < len {
                return false;
            }
        }
        let SignedQ { kernel, signs, cache, scratch, .. } = self;
        let (cached, missing, companion) = cache.get_beside_unfilled(j, len, beside);
        debug_assert_eq!(cached.len(), have);
        let after = |c0: usize, window: &[f32]| {
            then(c0, window, companion.map(|q_i| &q_i[c0..c0 + window.len()]));
        };
        fill_signed(kernel, signs, scratch, j, missing, have, &after);
        // SAFETY: `fill_signed` wrote every missing position.
        unsafe { cache.set_filled(j, len) };
        true
    }

    fn block_columns(&self) -> usize {
        self.kernel.bitwise_rows().clamp(1, BLOCK_COLUMNS)
    }

    /// The columns the cache holds over `0..len` are read from it (each a hit, made most
    /// recently used); the others are computed over `from..len` only, as one block of at most
    /// [`KernelSource::bitwise_rows`] rows (bitwise the values of a lone column), stored in a
    /// buffer of their own and not cached: nothing is evicted for them.
    fn columns_from(
        &mut self,
        columns: &[usize],
        from: usize,
        len: usize,
        visit: &mut ColumnsVisit<'_>,
    ) {
        if columns.len() > self.block_columns() {
            for (b, block) in columns.chunks(self.block_columns()).enumerate() {
                let first = b * self.block_columns();
                self.columns_from(block, from, len, &mut |r, values| visit(first + r, values));
            }
            return;
        }
        let width = len.saturating_sub(from);
        let mut computed = Vec::with_capacity(columns.len());
        for &k in columns {
            if self.cache.refresh(k) >= len {
                self.cache.get_unfilled(k, len, None);
            } else {
                computed.push(k);
            }
        }
        let SignedQ { kernel, signs, cache, scratch, block, .. } = self;
        if block.len() < computed.len() * width {
            block.resize(computed.len() * width, MaybeUninit::uninit());
        }
        if !computed.is_empty() && width > 0 {
            let mut rooms: Vec<&mut [MaybeUninit<f32>]> =
                block.chunks_exact_mut(width).take(computed.len()).collect();
            let column_signs: Vec<f64> = computed.iter().map(|&k| signs[k]).collect();
            let signs = &signs[from..len];
            let store = |r: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
                store_signed(window, values, column_signs[r], &signs[c0..c0 + values.len()]);
            };
            fill_rooms(kernel, scratch, &computed, &mut rooms, from, &store);
            cache.count_computed(computed.len(), computed.len() * width);
        }
        let mut next_computed = 0;
        let values: Vec<&[f32]> = columns
            .iter()
            .map(|&k| {
                if computed.get(next_computed) == Some(&k) {
                    let room = &block[next_computed * width..(next_computed + 1) * width];
                    next_computed += 1;
                    // SAFETY: `fill_rooms` wrote every position of the first `computed.len()`
                    // rooms, and `MaybeUninit<f32>` has the layout of `f32`.
                    unsafe { &*(std::ptr::from_ref(room) as *const [f32]) }
                } else {
                    &cache.peek(k, len)[from..]
                }
            })
            .collect();
        visit(0, &values);
    }

    /// The resident columns in one pass; the others in blocks of [`UNCACHED_BLOCK`] columns
    /// (one GEMM each over the positions `from..`, then one pass).
    fn add_columns_from(
        &mut self,
        columns: &[usize],
        scales: &[f64],
        from: usize,
        target: &mut [f64],
    ) {
        assert_eq!(scales.len(), columns.len(), "add_columns_from: one scale per column");
        let len = from + target.len();
        let width = target.len();
        let (mut resident, mut missing) = (Vec::new(), Vec::new());
        for (&k, &scale) in columns.iter().zip(scales) {
            if self.cache.refresh(k) >= len {
                resident.push((k, scale));
            } else {
                missing.push((k, scale));
            }
        }
        let values: Vec<&[f32]> =
            resident.iter().map(|&(k, _)| &self.cache.peek(k, len)[from..]).collect();
        let resident_scales: Vec<f64> = resident.iter().map(|&(_, scale)| scale).collect();
        crate::column_sums::add_scaled_columns(target, &values, &resident_scales);
        if width == 0 {
            return;
        }
        let SignedQ { kernel, signs, cache, scratch, block, .. } = self;
        for group in missing.chunks(UNCACHED_BLOCK) {
            let ids: Vec<usize> = group.iter().map(|&(k, _)| k).collect();
            if block.len() < ids.len() * width {
                block.resize(ids.len() * width, MaybeUninit::uninit());
            }
            let mut rooms: Vec<&mut [MaybeUninit<f32>]> =
                block.chunks_exact_mut(width).take(ids.len()).collect();
            let column_signs: Vec<f64> = ids.iter().map(|&k| signs[k]).collect();
            let signs = &signs[from..len];
            let store = |r: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
                store_signed(window, values, column_signs[r], &signs[c0..c0 + values.len()]);
            };
            fill_rooms(kernel, scratch, &ids, &mut rooms, from, &store);
            cache.count_computed(ids.len(), ids.len() * width);
            let values: Vec<&[f32]> = block
                .chunks_exact(width)
                .take(ids.len())
                // SAFETY: `fill_rooms` wrote every position of the first `ids.len()` rooms, and
                // `MaybeUninit<f32>` has the layout of `f32`.
                .map(|room| unsafe { &*(std::ptr::from_ref(room) as *const [f32]) })
                .collect();
            let group_scales: Vec<f64> = group.iter().map(|&(_, scale)| scale).collect();
            crate::column_sums::add_scaled_columns(target, &values, &group_scales);
        }
    }

    /// One pass over the resident columns; when one is missing, by blocks (the default).
    fn add_columns(&mut self, columns: &[usize], scales: &[f64], target: &mut [f64]) {
        let len = target.len();
        if !columns.iter().all(|&k| self.cache.refresh(k) >= len) {
            crate::column_sums::add_columns_by_blocks(self, columns, scales, target);
            return;
        }
        let values: Vec<&[f32]> = columns.iter().map(|&k| self.cache.peek(k, len)).collect();
        crate::column_sums::add_scaled_columns(target, &values, scales);
    }

    fn submatrix(&mut self, rows: &[usize], columns: &[usize], out: &mut [f32]) {
        let len = rows.iter().max().map_or(0, |&k| k + 1);
        if !columns.iter().all(|&k| self.cache.refresh(k) >= len) {
            crate::column_sums::submatrix_by_columns(self, rows, columns, out);
            return;
        }
        let n = rows.len();
        assert_eq!(out.len(), n * columns.len(), "submatrix: out holds rows × columns values");
        let resident: Vec<&[f32]> = columns.iter().map(|&k| self.cache.peek(k, len)).collect();
        crate::column_sums::submatrix_in_parallel(out, n, |c, values| {
            for (value, &t) in values.iter_mut().zip(rows) {
                *value = resident[c][t];
            }
        });
    }

    /// The resident columns among `indices` are made most recently used first, so that
    /// computing the missing ones does not evict them ([`fill_cached`]).
    fn prefetch(&mut self, indices: &[usize], len: usize) {
        let SignedQ { kernel, signs, cache, scratch, .. } = self;
        let signs = &*signs;
        let store = |k: usize, c0: usize, window: &mut [MaybeUninit<f32>], values: &[f64]| {
            store_signed(window, values, signs[k], &signs[c0..c0 + values.len()]);
        };
        fill_cached(kernel, cache, scratch, indices, len, &store);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::{DenseKernel, DenseRows, KernelFunction};

    #[test]
    fn signed_windows_are_the_scalar_products_rounded_once() {
        // Every vector width's tail; values that round differently in f32, and ±0, ±∞, NaN.
        for n in [0, 1, 3, 4, 7, 8, 9, 16, 17, 33] {
            let values: Vec<f64> = (0..n)
                .map(|t| match t % 9 {
                    6 => -0.0,
                    7 => f64::INFINITY,
                    8 => f64::NAN,
                    r => (t as f64 * 0.731).sin() * 10f64.powi(r as i32 - 3) + 1e-9,
                })
                .collect();
            let signs: Vec<f64> = (0..n).map(|t| if t % 3 == 0 { -1.0 } else { 1.0 }).collect();
            for s in [1.0, -1.0] {
                let mut column = vec![MaybeUninit::<f32>::uninit(); n];
                let stored = store_signed(&mut column, &values, s, &signs);
                for t in 0..n {
                    let expected = (s * signs[t] * values[t]) as f32;
                    assert_eq!(stored[t].to_bits(), expected.to_bits(), "n {n}, t {t}, s {s}");
                }
            }
        }
    }

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

    #[test]
    fn signed_q_is_coherent_under_swaps() {
        let (n, d) = (9, 3);
        let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.37).sin()).collect();
        let y: Vec<f64> = (0..n).map(|k| if k % 3 == 0 { 1.0 } else { -1.0 }).collect();
        let reference = kernel(&values, n, d);
        // A budget of 2 columns forces evictions and partial-column drops.
        let mut q = SignedQ::new(kernel(&values, n, d), y.clone(), 0);
        let mut perm: Vec<usize> = (0..n).collect();
        let swaps = [(0, 5), (2, 8), (1, 2), (7, 3), (0, 8)];
        for (step, &(a, b)) in swaps.iter().enumerate() {
            let len = n - step;
            for i in [a, b, (a + b) % n] {
                let col = q.column(i, len).to_vec();
                for (k, &value) in col.iter().enumerate() {
                    let expected = y[perm[i]] * y[perm[k]] * k_value(&reference, perm[i], perm[k]);
                    assert_eq!(value, expected as f32);
                }
            }
            q.swap_index(a, b);
            perm.swap(a, b);
        }
    }

    #[test]
    fn prefetched_columns_equal_computed_columns() {
        let (n, d) = (40, 6);
        let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.21).sin()).collect();
        let y: Vec<f64> = (0..n).map(|k| if k % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let mut direct = SignedQ::new(kernel(&values, n, d), y.clone(), 1 << 20);
        let mut prefetched = SignedQ::new(kernel(&values, n, d), y, 1 << 20);
        let wanted: Vec<usize> = (0..12).map(|k| k * 3).collect();
        prefetched.prefetch(&wanted, n - 5);
        for &k in &wanted {
            assert!(prefetched.is_cached(k, n - 5));
            let (a, b) = (prefetched.column(k, n - 5).to_vec(), direct.column(k, n - 5).to_vec());
            for (x, z) in a.iter().zip(&b) {
                assert!((x - z).abs() <= 1e-6 * z.abs().max(1.0), "{x} vs {z}");
            }
        }
    }
}
