//! Fixed-size chunking of index ranges for rayon.
//!
//! Chunk boundaries depend only on the range, never on the number of threads, so every element
//! is computed by the same arithmetic whatever the thread pool: results are bitwise identical
//! for any `n_jobs`.

/// Below this many elements an O(n) pass runs on the calling thread.
pub const PARALLEL_MIN_LEN: usize = 4096;

/// Splits `start..end` into consecutive ranges of at most `chunk` elements.
pub fn chunk_ranges(
    start: usize,
    end: usize,
    chunk: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let chunk = chunk.max(1);
    (start..end).step_by(chunk).map(move |lo| (lo, (lo + chunk).min(end)))
}

/// Values per task of the one-off passes over the input (finiteness, norms, density), which
/// run in parallel only inside a rayon pool (a solve's), never starting the global one.
pub(crate) const INPUT_PASS_VALUES: usize = 1 << 16;

/// Whether a pass over `len` input values runs in parallel: large enough, and on a thread of a
/// rayon pool (inside a solve), so that no other pool is started for it.
pub(crate) fn parallel_input_pass(len: usize) -> bool {
    len >= 4 * INPUT_PASS_VALUES && rayon::current_thread_index().is_some()
}

/// Positions per parallel task when filling a block of kernel columns.
pub(crate) const COLUMN_CHUNK: usize = 1024;
/// Below this many multiply-adds a block is computed on the calling thread.
pub(crate) const PARALLEL_MIN_WORK: usize = 1 << 16;

/// Runs `window(c0, c1)` over the positions `0..width`: on the calling thread when
/// `sequential` (too little work to share), else over fixed chunks of [`COLUMN_CHUNK`]
/// positions on the solve's team (rayon outside a solve). The chunks depend on `width` only.
pub(crate) fn for_column_chunks(
    width: usize,
    sequential: bool,
    window: impl Fn(usize, usize) + Sync,
) {
    if sequential {
        window(0, width);
        return;
    }
    crate::team::for_each_chunk(width.div_ceil(COLUMN_CHUNK), |c| {
        window(c * COLUMN_CHUNK, ((c + 1) * COLUMN_CHUNK).min(width))
    });
}

/// A row-major output buffer handed to parallel tasks that each write a disjoint range of
/// columns in every row.
pub(crate) struct ColumnWindows<'a> {
    start: *mut f64,
    rows: usize,
    stride: usize,
    _buffer: std::marker::PhantomData<&'a mut [f64]>,
}

// SAFETY: a `ColumnWindows` only hands out windows through `row`, whose contract requires that
// no two live windows overlap; the buffer itself is exclusively borrowed for `'a`.
unsafe impl Send for ColumnWindows<'_> {}
unsafe impl Sync for ColumnWindows<'_> {}

impl<'a> ColumnWindows<'a> {
    /// Wraps `out`, whose rows are `stride` values long.
    pub(crate) fn new(out: &'a mut [f64], stride: usize) -> Self {
        let rows = out.len().checked_div(stride).unwrap_or(0);
        ColumnWindows { start: out.as_mut_ptr(), rows, stride, _buffer: std::marker::PhantomData }
    }

    /// Row stride.
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    /// Pointer to entry `(r, c)`.
    ///
    /// # Panics
    /// If `(r, c)` is outside the buffer.
    pub(crate) fn pointer(&self, r: usize, c: usize) -> *mut f64 {
        assert!(r < self.rows && c < self.stride, "ColumnWindows: ({r}, {c}) out of bounds");
        // SAFETY: in bounds, checked above.
        unsafe { self.start.add(r * self.stride + c) }
    }

    /// Columns `c0..c1` of row `r`.
    ///
    /// # Safety
    /// No other live window may overlap this one.
    ///
    /// # Panics
    /// If the window is outside the buffer.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn row(&self, r: usize, c0: usize, c1: usize) -> &mut [f64] {
        assert!(r < self.rows && c0 <= c1 && c1 <= self.stride, "ColumnWindows: bad window");
        // SAFETY: in bounds (checked); exclusivity is the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.start.add(r * self.stride + c0), c1 - c0) }
    }
}
