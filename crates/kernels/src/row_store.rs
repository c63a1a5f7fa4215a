//! One storage trait, one generic kernel: [`RowStore`] is what a representation of the rows
//! must do, [`Kernel`] turns any of them into a [`KernelSource`].
//!
//! A block `K[rows, start..end]` is, for every representation, the same four steps:
//!
//! 1. gather the requested rows once per block ([`RowStore::gather`]: `f64` rows, their `f32`
//!    copy, integer multiples, scattered CSR rows, bit sets…);
//! 2. cut the positions `start..end` into the fixed column chunks of the crate (so that values
//!    do not depend on the thread count) and, in each chunk, compute the inner products of the
//!    gathered rows with the rows at those positions ([`RowStore::inner_products`]);
//! 3. map inner products to kernel values with the rows' squared norms
//!    ([`RowStore::map_row`]: [`KernelFunction::map_row`], or a table for 0/1 rows), and
//!    recompute the RBF values whose expansion may have cancelled from the rows' differences
//!    ([`RowStore::sq_distance`], `rbf_expansion.rs`: rows far apart in units of `γ^(−1/2)`);
//! 4. hand each finished window to the caller's [`Finish`] while it is in the core's cache.
//!
//! Steps 2–4 live here, once; a representation only says how to gather, how to multiply, how
//! to subtract, how to follow a swap of positions, and what it guarantees bitwise. A
//! representation whose columns are cheaper computed another way for some blocks (distinct
//! rows of repeated data) takes the whole block in [`RowStore::fill_whole_block`].
//!
//! The representations, and which one [`crate::plan`](mod@crate::plan) chooses: `dense_stores.rs`
//! ([`F64Rows`](crate::dense_stores::F64Rows), `F32Rows`, `FixedPointRows`,
//! `FeatureMajorRows`) and `sparse.rs` (`CsrStore`, `PaddedStore`, `BitsetStore`).

use crate::function::KernelFunction;
use crate::parallel::{for_column_chunks, ColumnWindows, PARALLEL_MIN_WORK};
use crate::plan::KernelPath;
use crate::rbf_expansion::{largest, ExpansionGuard};
use crate::source::{Finish, KernelSource, NO_FINISH, SHARED_PASS_ROWS};

/// One representation of the training rows, indexed by *position* (permuted by
/// [`RowStore::swap`] when a solver shrinks).
pub trait RowStore: Send + Sync {
    /// The requested rows of one block, in the form the inner products read.
    type Left: Sync;

    /// Number of rows.
    fn n_rows(&self) -> usize;

    /// `‖x‖²` of the row at each position, in position order.
    fn sq_norms(&self) -> &[f64];

    /// The rows at `positions`, gathered once for a whole block.
    fn gather(&self, positions: &[usize]) -> Self::Left;

    /// `⟨left row r, row at position first + c⟩` into `window.row(r)[c]`, for every row of
    /// the window (as many as were gathered) and `c < window.len()`.
    fn inner_products(&self, left: &Self::Left, first: usize, window: &mut Window<'_>);

    /// Turns one row of inner products into kernel values (`right_norms` are the norms of the
    /// window's positions). The default is the function's own map; 0/1 rows look it up.
    #[inline]
    fn map_row(
        &self,
        function: KernelFunction,
        row: &mut [f64],
        left_norm: f64,
        right_norms: &[f64],
    ) {
        function.map_row(row, left_norm, right_norms);
    }

    /// `‖x − z‖²` of left row `r` and the row at `position`, summed from the differences of
    /// the values this store reads (no cancellation): the RBF values whose expansion may be off
    /// are recomputed from it ([`crate::rbf_expansion`]).
    fn sq_distance(&self, left: &Self::Left, r: usize, position: usize) -> f64;

    /// The precision `ε` that inner products are summed in: `f64`'s, or `f32`'s for a store
    /// that sums some in `f32` ([`crate::rbf_expansion`] bounds their rounding with it).
    fn rounding(&self) -> f64 {
        f64::EPSILON
    }

    /// Exchanges positions `i` and `j`.
    fn swap(&mut self, i: usize, j: usize);

    /// Number of features.
    fn n_features(&self) -> usize;

    /// Multiply–adds per kernel value, roughly: decides when a block is worth the threads. The
    /// default is a dense row's features; sparse rows count their stored values.
    fn cost_per_value(&self) -> usize {
        self.n_features().max(1)
    }

    /// See [`KernelSource::bitwise_rows`]. The default is the dense rows' promise: up to
    /// [`SHARED_PASS_ROWS`] rows, each value a dot product summed as for its row alone.
    fn bitwise_rows(&self) -> usize {
        SHARED_PASS_ROWS
    }

    /// See [`KernelSource::shares_passes`].
    fn shares_passes(&self) -> bool {
        false
    }

    /// The representation's name ([`crate::plan`](mod@crate::plan)).
    fn path(&self) -> KernelPath;

    /// Fills the whole block itself when that is cheaper than the steps of [`Kernel`] (and
    /// bitwise the same values); `false`, and nothing written, otherwise.
    #[allow(clippy::too_many_arguments)]
    fn fill_whole_block(
        &self,
        _function: KernelFunction,
        _left: &Self::Left,
        _left_norms: &[f64],
        _start: usize,
        _end: usize,
        _out: &mut [f64],
        _finish: Finish<'_>,
    ) -> bool {
        false
    }
}

/// Columns `c0..c1` of every row of a block being filled, owned by one task.
pub struct Window<'w> {
    out: &'w ColumnWindows<'w>,
    n_rows: usize,
    c0: usize,
    c1: usize,
}

impl<'w> Window<'w> {
    /// # Safety
    /// No other live window may overlap columns `c0..c1` of rows `0..n_rows` of `out`.
    unsafe fn new(out: &'w ColumnWindows<'w>, n_rows: usize, c0: usize, c1: usize) -> Self {
        Window { out, n_rows, c0, c1 }
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.c1 - self.c0
    }

    /// Whether the window has no columns.
    pub fn is_empty(&self) -> bool {
        self.c1 == self.c0
    }

    /// Row `r`.
    pub fn row(&mut self, r: usize) -> &mut [f64] {
        assert!(r < self.n_rows, "Window: row {r} of {}", self.n_rows);
        // SAFETY: the window owns these columns of these rows (`new`), and `&mut self` keeps
        // any other slice of it from being alive.
        unsafe { self.out.row(r, self.c0, self.c1) }
    }

    /// Rows `r0..r1`, each its own slice.
    pub fn rows(&mut self, r0: usize, r1: usize) -> Vec<&mut [f64]> {
        assert!(r0 <= r1 && r1 <= self.n_rows, "Window: rows {r0}..{r1} of {}", self.n_rows);
        // SAFETY: as in `row`; the rows are distinct.
        (r0..r1).map(|r| unsafe { self.out.row(r, self.c0, self.c1) }).collect()
    }

    /// The window `= left · rightᵀ` by one GEMM: `left` is `n_rows × d` and `right` the
    /// window's `len() × d` rows, both row-major (`matrixmultiply` packs both into cache-sized
    /// panels).
    pub(crate) fn gemm(&mut self, left: &[f64], right: &[f64], d: usize) {
        let (m, n) = (self.n_rows, self.len());
        assert!(m > 0 && n > 0 && left.len() == m * d && right.len() == n * d, "Window::gemm");
        let _last = self.out.pointer(m - 1, self.c1 - 1);
        // SAFETY: the pointers and strides describe `left` (m × d, row-major), `right` read as
        // its transpose (d × n), and the m × n window of `out` at column c0, which this window
        // owns; all are in bounds (`pointer` checks the first and the last entry).
        unsafe {
            matrixmultiply::dgemm(
                m,
                d,
                n,
                1.0,
                left.as_ptr(),
                d as isize,
                1,
                right.as_ptr(),
                1,
                d as isize,
                0.0,
                self.out.pointer(0, self.c0),
                self.out.stride() as isize,
                1,
            );
        }
    }
}

/// A kernel function over one representation of the rows.
#[derive(Debug, Clone)]
pub struct Kernel<S> {
    store: S,
    function: KernelFunction,
    /// The largest squared norm of the rows (which swaps do not change), for
    /// [`ExpansionGuard::for_block`].
    max_sq_norm: f64,
}

impl<S: RowStore> Kernel<S> {
    /// Combines a representation and a kernel function, validating the function's parameters.
    pub fn new(store: S, function: KernelFunction) -> Result<Self, crate::KernelError> {
        function.validate()?;
        Ok(Self::validated(store, function))
    }

    /// [`Kernel::new`] of a function already validated.
    pub(crate) fn validated(store: S, function: KernelFunction) -> Self {
        let max_sq_norm = largest(store.sq_norms());
        Kernel { store, function, max_sq_norm }
    }

    /// The representation, given back.
    pub(crate) fn into_store(self) -> S {
        self.store
    }

    /// The representation.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The kernel function.
    pub fn function(&self) -> KernelFunction {
        self.function
    }

    /// `K[left, start..end]` for rows already gathered (`left_norms` their norms), into the
    /// row-major `out` (`left_norms.len() × (end − start)`); on the calling thread when `here`
    /// (a caller already parallel over blocks), else over the crate's column chunks.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn fill_gathered(
        &self,
        left: &S::Left,
        left_norms: &[f64],
        start: usize,
        end: usize,
        out: &mut [f64],
        finish: Finish<'_>,
        here: bool,
    ) {
        let (n_left, width) = (left_norms.len(), end - start);
        assert_eq!(out.len(), n_left * width, "fill_block: output has the wrong length");
        if width == 0 || n_left == 0 {
            return;
        }
        let (d, rounding) = (self.store.n_features(), self.store.rounding());
        let guard =
            ExpansionGuard::for_block(self.function, d, rounding, left_norms, self.max_sq_norm);
        // A whole block computed another way has no guard (none of its values may be off).
        if guard.is_none()
            && self.store.fill_whole_block(self.function, left, left_norms, start, end, out, finish)
        {
            return;
        }
        let norms = self.store.sq_norms();
        let sequential = here || n_left * width * self.store.cost_per_value() < PARALLEL_MIN_WORK;
        let windows = ColumnWindows::new(out, width);
        for_column_chunks(width, sequential, |c0, c1| {
            // SAFETY: this task is the only one given columns c0..c1.
            let mut window = unsafe { Window::new(&windows, n_left, c0, c1) };
            self.store.inner_products(left, start + c0, &mut window);
            let right_norms = &norms[start + c0..start + c1];
            for (r, &left_norm) in left_norms.iter().enumerate() {
                let row = window.row(r);
                self.store.map_row(self.function, row, left_norm, right_norms);
                if let Some(guard) = &guard {
                    let first = start + c0;
                    guard.repair(row, left_norm, right_norms, |c| {
                        self.store.sq_distance(left, r, first + c)
                    });
                }
                finish(r, c0, row);
            }
        });
    }
}

impl<S: RowStore> KernelSource for Kernel<S> {
    fn len(&self) -> usize {
        self.store.n_rows()
    }

    fn diagonal_value(&self, i: usize) -> f64 {
        let norm = self.store.sq_norms()[i];
        self.function.from_inner_product(norm, norm, norm)
    }

    fn fill_block(&self, rows: &[usize], start: usize, end: usize, out: &mut [f64]) {
        self.fill_block_finishing(rows, start, end, out, NO_FINISH);
    }

    fn fill_block_finishing(
        &self,
        rows: &[usize],
        start: usize,
        end: usize,
        out: &mut [f64],
        finish: Finish<'_>,
    ) {
        assert_eq!(
            out.len(),
            rows.len() * (end - start),
            "fill_block: output has the wrong length"
        );
        if rows.is_empty() || end == start {
            return;
        }
        let norms = self.store.sq_norms();
        let left_norms: Vec<f64> = rows.iter().map(|&r| norms[r]).collect();
        let left = self.store.gather(rows);
        self.fill_gathered(&left, &left_norms, start, end, out, finish, false);
    }

    fn shares_passes(&self) -> bool {
        self.store.shares_passes()
    }

    fn bitwise_rows(&self) -> usize {
        self.store.bitwise_rows()
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.store.swap(i, j);
    }

    fn path(&self) -> KernelPath {
        self.store.path()
    }

    fn known_positive_semidefinite(&self) -> Option<bool> {
        Some(self.function.positive_semidefinite())
    }
}

/// The [`RowStore::n_rows`] and [`RowStore::n_features`] of a store over its `rows` field (any
/// rows with those two methods: dense, norms only, CSR), inside the store's `impl RowStore`.
macro_rules! size_of_rows {
    () => {
        fn n_rows(&self) -> usize {
            self.rows.n_rows()
        }

        fn n_features(&self) -> usize {
            self.rows.n_features()
        }
    };
}
pub(crate) use size_of_rows;

/// Implements [`KernelSource`] for `$wrapper<'_>`, a tuple struct over the enum `$planned` whose
/// every variant holds one [`Kernel`] (the representation the plan chose), by forwarding each
/// method to that kernel.
macro_rules! forward_kernel_source {
    ($wrapper:ident, $planned:ident { $($variant:ident),+ $(,)? }) => {
        impl $crate::source::KernelSource for $wrapper<'_> {
            fn len(&self) -> usize {
                match &self.0 { $($planned::$variant(k) => k.len()),+ }
            }

            fn diagonal_value(&self, i: usize) -> f64 {
                match &self.0 { $($planned::$variant(k) => k.diagonal_value(i)),+ }
            }

            fn fill_block(&self, rows: &[usize], start: usize, end: usize, out: &mut [f64]) {
                match &self.0 { $($planned::$variant(k) => k.fill_block(rows, start, end, out)),+ }
            }

            fn fill_block_finishing(
                &self,
                rows: &[usize],
                start: usize,
                end: usize,
                out: &mut [f64],
                finish: $crate::source::Finish<'_>,
            ) {
                match &self.0 {
                    $($planned::$variant(k) => k.fill_block_finishing(rows, start, end, out, finish)),+
                }
            }

            fn shares_passes(&self) -> bool {
                match &self.0 { $($planned::$variant(k) => k.shares_passes()),+ }
            }

            fn bitwise_rows(&self) -> usize {
                match &self.0 { $($planned::$variant(k) => k.bitwise_rows()),+ }
            }

            fn swap_index(&mut self, i: usize, j: usize) {
                match &mut self.0 { $($planned::$variant(k) => k.swap_index(i, j)),+ }
            }

            fn path(&self) -> $crate::plan::KernelPath {
                match &self.0 { $($planned::$variant(k) => k.path()),+ }
            }

            fn known_positive_semidefinite(&self) -> Option<bool> {
                match &self.0 { $($planned::$variant(k) => k.known_positive_semidefinite()),+ }
            }
        }
    };
}
pub(crate) use forward_kernel_source;
