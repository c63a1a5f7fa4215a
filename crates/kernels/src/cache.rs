//! `RowCache`: LIBSVM's LRU cache of kernel columns (Chang & Lin 2011, §4.1; LIBSVM's `Cache`).
//!
//! * Columns are stored as `f32` by default (the solver's gradients stay `f64`), as LIBSVM's
//!   `Qfloat`; a solver whose stopping rule needs more digits (Frank–Wolfe's relative
//!   criterion, digest 002 P15) stores `f64` (`RowCache<f64>`). The budget is
//!   `cache_bytes / size_of::<T>()` values, never less than two full columns, so that the two
//!   columns of a working pair always fit together.
//! * A column may be **partial**: it holds positions `0..len` for the `len` the solver asked for
//!   (the active-set size when shrinking). A later request for a longer prefix extends it, and
//!   only the missing positions `len_old..len_new` are computed; [`RowCache::get`] returns where
//!   the caller must start filling.
//! * When space is needed, whole columns are evicted, least recently used first. The budget
//!   counts allocated values: by default a column holds exactly its length (LIBSVM; with
//!   [`RowCache::with_loose_fit`], up to twice its length when it took over the buffer of a
//!   column evicted for it); with
//!   [`Growth::Geometric`] an extended column reserves 50 % more than asked (capped at `n`), for a
//!   caller that extends many columns one position at a time (Frank–Wolfe's growing basis),
//!   which would otherwise copy every column at every extension.
//! * [`RowCache::swap_index`] keeps the cache coherent when the solver exchanges positions
//!   `i < j`: the columns of `i` and `j` trade places, and inside every cached column entries
//!   `i` and `j` are exchanged. A column that holds `i` but not `j` cannot be repaired and is
//!   dropped by LIBSVM; here it keeps its prefix `0..i`, which is still exact. The exchanges
//!   inside the columns are applied *lazily*: a swap is logged, and a column replays the swaps
//!   it missed when it is next requested (or when the log reaches its limit). Eager exchanges
//!   touch two random cache lines of every cached column per swap, thousands of swaps per
//!   shrinking (a visible share of an a9a fit); replayed ones stay inside one column,
//!   and columns evicted before their next use never pay. The two columns that trade places
//!   take their count of replayed swaps with them and are not brought up to date either (a
//!   shrunk variable's column, moved out of the active set, would replay the whole log only to
//!   be evicted unused; measurements of both: `docs/performance.md`, "Kernel cache").
//! * A caller that computes a column writes its missing positions straight into the cache's
//!   uninitialised room ([`RowCache::get_unfilled`], then [`RowCache::set_filled`]): nothing is
//!   zeroed first.

use std::mem::MaybeUninit;

/// Counters of a [`RowCache`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Requests served entirely from the cache.
    pub hits: u64,
    /// Requests that needed new values computed (absent or too short columns).
    pub misses: u64,
    /// Kernel values computed to serve the misses.
    pub values_computed: u64,
    /// Bytes held by cached values now.
    pub bytes_in_use: u64,
    /// The budget in bytes (at least two full columns).
    pub budget_bytes: u64,
}

/// With a loose fit, a recycled buffer up to `RECYCLE_MAX_FACTOR` times as long as a new column
/// needs is taken as it is. A tighter limit made a fit shrink recycled buffers and extend
/// columns by `realloc`, and the heap's fragments then made it touch much more memory than its
/// budget of columns, in page faults that each cost more than computing the values of a page.
/// Twice the length faults much less, for slightly more column misses, and fits faster
/// (measurements: `docs/performance.md`, "Kernel cache").
const RECYCLE_MAX_FACTOR: usize = 2;

/// Sentinel node of the circular LRU list.
const NIL: usize = usize::MAX;

/// Once the log of pending swaps holds `max(n, PENDING_LIMIT)` entries, every column replays it
/// and it is cleared, so that it stays bounded.
const PENDING_LIMIT: usize = 1 << 16;

/// How an extended column reserves memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Growth {
    /// Exactly the requested length (LIBSVM).
    #[default]
    Exact,
    /// At least 1.5 × the previous length when a cached column is extended (capped at `n`).
    Geometric,
}

/// LRU cache of columns of `T` (`f32` by default) indexed by position `0..n`.
#[derive(Debug, Clone)]
pub struct RowCache<T = f32> {
    columns: Vec<Vec<T>>,
    /// LRU links: `prev[n]`/`next[n]` are the sentinel; `next[sentinel]` is the least recently
    /// used column, `prev[sentinel]` the most recently used.
    prev: Vec<usize>,
    next: Vec<usize>,
    /// Position swaps not yet applied inside the columns, oldest first, as `(lo, hi)`.
    pending: Vec<(u32, u32)>,
    /// `synced[h]`: how many entries of `pending` column `h` already reflects.
    synced: Vec<usize>,
    budget: usize,
    /// Values allocated (the capacities of the cached columns).
    used: usize,
    growth: Growth,
    /// [`RowCache::with_loose_fit`].
    loose_fit: bool,
    stats: CacheStats,
}

impl<T: Copy + Default> RowCache<T> {
    /// A cache for `n` columns of length at most `n`, holding at most `budget_bytes` of values
    /// (raised to two full columns if smaller).
    ///
    /// # Panics
    /// When `n` columns' bookkeeping exceeds what memory can index (`n > isize::MAX / 64`):
    /// no data set of that many rows exists.
    pub fn new(n: usize, budget_bytes: usize) -> Self {
        assert!(
            n <= isize::MAX as usize / 64,
            "RowCache::new: {n} columns exceed what memory can index"
        );
        let budget = (budget_bytes / std::mem::size_of::<T>()).max(2 * n);
        let sentinel = n;
        RowCache {
            columns: vec![Vec::new(); n],
            prev: vec![sentinel; n + 1],
            next: vec![sentinel; n + 1],
            pending: Vec::new(),
            synced: vec![0; n],
            budget,
            used: 0,
            growth: Growth::Exact,
            loose_fit: false,
            stats: CacheStats {
                budget_bytes: (budget * std::mem::size_of::<T>()) as u64,
                ..CacheStats::default()
            },
        }
    }

    /// The same cache with the given [`Growth`].
    pub fn with_growth(mut self, growth: Growth) -> Self {
        self.growth = growth;
        self
    }

    /// The same cache, where a new column takes over the buffer of a column evicted for it as
    /// it is when that buffer is at most twice the column's length (not shrunk to it):
    /// the budget counts the whole buffer, so fewer columns may fit, but no allocation is split
    /// or freed. Which columns are evicted then differs from LIBSVM's accounting by lengths;
    /// the values served do not.
    pub fn with_loose_fit(mut self) -> Self {
        self.loose_fit = true;
        self
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// Whether the cache has no positions.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The budget in values.
    pub fn budget_values(&self) -> usize {
        self.budget
    }

    /// Values allocated now (column capacities; the lengths unless [`Growth::Geometric`]).
    pub fn used_values(&self) -> usize {
        self.used
    }

    /// Length of the cached prefix of column `i` (0 when absent), counting the swaps not yet
    /// applied to it.
    pub fn cached_len(&self, i: usize) -> usize {
        let mut len = self.columns[i].len();
        if len == 0 {
            return 0;
        }
        for &(lo, hi) in &self.pending[self.synced[i].min(self.pending.len())..] {
            let (lo, hi) = (lo as usize, hi as usize);
            if len > lo && len <= hi {
                len = lo;
            }
        }
        len
    }

    /// [`RowCache::cached_len`], after applying the pending swaps to column `i` (cheaper when
    /// many swaps are pending).
    pub fn refresh(&mut self, i: usize) -> usize {
        self.sync(i);
        self.columns[i].len()
    }

    /// Counts `values` computed for `columns` columns that a caller keeps outside the cache
    /// (as misses: requests that needed new values computed).
    pub fn count_computed(&mut self, columns: usize, values: usize) {
        self.stats.misses += columns as u64;
        self.stats.values_computed += values as u64;
    }

    /// The counters.
    pub fn stats(&self) -> CacheStats {
        CacheStats { bytes_in_use: (self.used * std::mem::size_of::<T>()) as u64, ..self.stats }
    }

    /// Column `i` with at least `len` positions, made most recently used. Returns the column and
    /// the number of leading positions that already hold values: the caller must fill
    /// `start..len` when `start < len` (they hold zeros). Never evicts `pinned`.
    pub fn get(&mut self, i: usize, len: usize, pinned: Option<usize>) -> (&mut [T], usize) {
        let (cached, missing) = self.get_unfilled(i, len, pinned);
        let have = cached.len();
        for value in missing {
            value.write(T::default());
        }
        // SAFETY: every position `have..len` was just written.
        unsafe { self.set_filled(i, len) };
        (&mut self.columns[i][..len], have)
    }

    /// [`RowCache::get`] without writing the missing positions: returns the cached prefix
    /// `0..have` of column `i` and the room for `have..len`, uninitialised. The caller writes
    /// every position of the room, then calls [`RowCache::set_filled`]`(i, len)`; until then
    /// the column holds only its prefix (a caller that stops early, by a panic, loses nothing
    /// but the room it reserved, which a later request of the column reuses). This is how a
    /// new column's memory is first written by the (parallel) kernel pass that computes it,
    /// rather than zeroed on this thread first: the zeroing and the page faults of fresh
    /// memory would all fall on the solve's thread (measurements: `docs/performance.md`,
    /// "Kernel cache").
    /// Never evicts `pinned`.
    pub fn get_unfilled(
        &mut self,
        i: usize,
        len: usize,
        pinned: Option<usize>,
    ) -> (&mut [T], &mut [MaybeUninit<T>]) {
        self.get_unfilled_pinning(i, len, pinned.as_slice())
    }

    /// [`RowCache::get_unfilled`] for several distinct columns at once, each pinned while room
    /// is made for the others: the cached prefix and the uninitialised room of each, for
    /// [`RowCache::set_filled`] on every one. When the budget cannot hold them all, the
    /// columns are allocated beyond it (nothing of theirs is evicted).
    ///
    /// # Panics
    /// If a column appears twice.
    #[allow(clippy::type_complexity)]
    pub fn get_many_unfilled(
        &mut self,
        columns: &[usize],
        len: usize,
    ) -> Vec<(&mut [T], &mut [MaybeUninit<T>])> {
        let mut seen = std::collections::HashSet::with_capacity(columns.len());
        assert!(
            columns.iter().all(|&i| seen.insert(i)),
            "RowCache::get_many_unfilled: a column twice"
        );
        let mut parts = Vec::with_capacity(columns.len());
        for &i in columns {
            let (cached, missing) = self.get_unfilled_pinning(i, len, columns);
            parts.push((cached.as_mut_ptr(), cached.len(), missing.as_mut_ptr(), missing.len()));
        }
        parts
            .into_iter()
            .map(|(cached, have, missing, room)| {
                // SAFETY: each request pinned every column of `columns`, so none was evicted,
                // and a request extends and relinks its own column only: the buffers of the
                // earlier columns were neither freed nor moved nor written, and they are
                // distinct buffers (distinct columns).
                unsafe {
                    (
                        std::slice::from_raw_parts_mut(cached, have),
                        std::slice::from_raw_parts_mut(missing, room),
                    )
                }
            })
            .collect()
    }

    /// [`RowCache::get_unfilled`], never evicting a column of `pinned`.
    fn get_unfilled_pinning(
        &mut self,
        i: usize,
        len: usize,
        pinned: &[usize],
    ) -> (&mut [T], &mut [MaybeUninit<T>]) {
        self.sync(i);
        let have = self.columns[i].len();
        if have > 0 {
            self.unlink(i);
        }
        if have < len {
            let capacity = self.columns[i].capacity();
            let target = match self.growth {
                Growth::Geometric if have > 0 => len.max(have + have / 2).min(self.columns.len()),
                _ => len,
            };
            let more = target.saturating_sub(capacity);
            // A new column takes over the allocation of the last column evicted for it (its
            // stale values are forgotten and overwritten by the caller): no allocation.
            let mut recycled: Option<Vec<T>> = None;
            while self.used + more > self.budget {
                let victim = self.least_recent_excluding(pinned);
                let Some(victim) = victim else { break };
                let buffer = self.evict(victim);
                if have == 0 && capacity == 0 && buffer.capacity() >= target {
                    recycled = Some(buffer);
                }
            }
            let column = &mut self.columns[i];
            if let Some(mut buffer) = recycled {
                buffer.clear();
                // With a loose fit, kept as it is when at most twice as long as needed (the
                // budget counts its whole capacity): shrinking it in place split the
                // allocation, and the freed tails fragmented the heap (`realloc` and `free`
                // were 2 % of an a9a fit's samples, on the solve's thread; see
                // `RECYCLE_MAX_FACTOR`).
                let kept = self.loose_fit
                    && buffer.capacity() <= RECYCLE_MAX_FACTOR * target
                    && self.used + buffer.capacity() <= self.budget;
                if !kept {
                    buffer.shrink_to(target);
                }
                if kept || buffer.capacity() == target {
                    *column = buffer;
                }
            }
            // `reserve_exact`: a doubling growth would hold up to twice the budget.
            if target > column.capacity() {
                column.reserve_exact(target - column.len());
            }
            self.used += column.capacity() - capacity;
            self.stats.misses += 1;
            self.stats.values_computed += (len - have) as u64;
        } else {
            self.stats.hits += 1;
        }
        if have > 0 {
            self.link_most_recent(i);
        }
        let column = &mut self.columns[i];
        let cached = have.min(len);
        let room = len - cached;
        debug_assert!(column.capacity() >= len);
        let start = column.as_mut_ptr();
        // SAFETY: the buffer holds `capacity ≥ len` values, of which `0..have` are initialised:
        // `0..cached` and `cached..len` are two disjoint parts of it, borrowed from `self` for
        // as long as the returned slices live (the second only as `MaybeUninit`).
        unsafe {
            (
                std::slice::from_raw_parts_mut(start, cached),
                std::slice::from_raw_parts_mut(start.add(cached).cast::<MaybeUninit<T>>(), room),
            )
        }
    }

    /// Records that column `i` now holds `len` values, after [`RowCache::get_unfilled`] (or
    /// [`RowCache::get_pair_unfilled`], [`RowCache::get_beside_unfilled`]) returned its room
    /// and the caller wrote it; a no-op when the column already held `len` values.
    ///
    /// # Safety
    /// The last request of column `i` was one of those, for at least `len` positions; every
    /// position of the room it returned, up to `len`, was written; and since then no swap
    /// happened and column `i` was not requested again (a request of another column that
    /// pins `i`, as the pair and beside forms do, is fine).
    ///
    /// # Panics
    /// If column `i` has no room for `len` values (it was evicted meanwhile).
    pub unsafe fn set_filled(&mut self, i: usize, len: usize) {
        let column = &mut self.columns[i];
        let was_empty = column.is_empty();
        if column.len() < len {
            assert!(len <= column.capacity(), "RowCache::set_filled: column {i} has no room");
            // SAFETY: the caller's contract: `0..len` is initialised, within the capacity.
            unsafe { column.set_len(len) };
        }
        if was_empty && len > 0 {
            self.link_most_recent(i);
        }
    }

    /// [`RowCache::get_unfilled`] for two distinct columns at once (`i` pinned while room is
    /// made for `j`, which is pinned itself while room is made for `i`): the cached prefix and
    /// the uninitialised room of each column, for [`RowCache::set_filled`] on both.
    ///
    /// # Panics
    /// If `i == j`.
    #[allow(clippy::type_complexity)]
    pub fn get_pair_unfilled(
        &mut self,
        i: usize,
        j: usize,
        len: usize,
    ) -> [(&mut [T], &mut [MaybeUninit<T>]); 2] {
        assert_ne!(i, j, "RowCache::get_pair_unfilled: two distinct columns");
        let (cached_i, missing_i) = self.get_unfilled(i, len, Some(j));
        let (cached_i, have_i) = (cached_i.as_mut_ptr(), cached_i.len());
        let (missing_i, room_i) = (missing_i.as_mut_ptr(), missing_i.len());
        let column_j = self.get_unfilled(j, len, Some(i));
        // SAFETY: `get_unfilled(j, …, Some(i))` applies pending swaps to, extends and relinks
        // column j only, and evicts columns other than the pinned i (an i still empty is not in
        // the LRU list at all): column i's buffer is neither freed nor moved nor written, so the
        // pointers still address its prefix and its room, and the two columns are distinct
        // buffers.
        let column_i = unsafe {
            (
                std::slice::from_raw_parts_mut(cached_i, have_i),
                std::slice::from_raw_parts_mut(missing_i, room_i),
            )
        };
        [column_i, column_j]
    }

    /// [`RowCache::get_unfilled`] for column `j` (pinning `beside`), and column `beside` itself
    /// read as [`RowCache::peek`] reads it (no counter, no LRU move): the new column is written
    /// while the other is read. Returns `j`'s cached prefix, its room and the companion.
    ///
    /// # Panics
    /// If `beside == Some(j)`, or as [`RowCache::peek`] panics for `beside`.
    #[allow(clippy::type_complexity)]
    pub fn get_beside_unfilled(
        &mut self,
        j: usize,
        len: usize,
        beside: Option<usize>,
    ) -> (&mut [T], &mut [MaybeUninit<T>], Option<&[T]>) {
        assert_ne!(beside, Some(j), "RowCache::get_beside: two distinct columns");
        let (cached, missing) = self.get_unfilled(j, len, beside);
        let (cached, have) = (cached.as_mut_ptr(), cached.len());
        let (missing, room) = (missing.as_mut_ptr(), missing.len());
        let companion = beside.map(|i| self.peek(i, len));
        // SAFETY: `get_unfilled(j, …, beside)` evicted only columns other than the pinned
        // `beside`, and `peek` moves nothing: column j's buffer still holds its prefix and its
        // room, and it is a buffer distinct from column `beside`'s, which is only read.
        let (cached, missing) = unsafe {
            (
                std::slice::from_raw_parts_mut(cached, have),
                std::slice::from_raw_parts_mut(missing, room),
            )
        };
        (cached, missing, companion)
    }

    /// Column `i` (which must hold at least `len` values) without touching the LRU order.
    ///
    /// # Panics
    /// If a position swap happened since column `i` was last returned by [`RowCache::get`]
    /// (its entries would be in the old order).
    pub fn peek(&self, i: usize, len: usize) -> &[T] {
        assert!(
            self.columns[i].is_empty() || self.synced[i] == self.pending.len(),
            "RowCache::peek: column {i} has swaps pending; call get first"
        );
        &self.columns[i][..len]
    }

    /// Exchanges positions `i` and `j` in the whole cache (see the module documentation).
    pub fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        // Columns i and j trade places with their `synced` counts: what a column's values
        // reflect does not depend on where it is stored, and the new swap is pending for
        // them as for every other column (no replay here: a shrunk variable's column would
        // replay the whole log only to move out of the active set).
        if !self.columns[i].is_empty() {
            self.unlink(i);
        }
        if !self.columns[j].is_empty() {
            self.unlink(j);
        }
        self.columns.swap(i, j);
        self.synced.swap(i, j);
        if !self.columns[i].is_empty() {
            self.link_most_recent(i);
        }
        if !self.columns[j].is_empty() {
            self.link_most_recent(j);
        }
        let (lo, hi) = (i.min(j), i.max(j));
        self.pending.push((lo as u32, hi as u32));
        if self.pending.len() >= PENDING_LIMIT.max(self.columns.len()) {
            self.sync_all();
        }
    }

    /// Applies the pending swaps to column `h`: entries `lo` and `hi` are exchanged when the
    /// column holds both, and a column that holds `lo` but not `hi` keeps only its valid
    /// prefix `0..lo` (LIBSVM drops it; the prefix is still exact). An emptied column is
    /// evicted.
    fn sync(&mut self, h: usize) {
        let from = self.synced[h].min(self.pending.len());
        self.synced[h] = self.pending.len();
        if self.columns[h].is_empty() {
            return;
        }
        replay(&mut self.columns[h], &self.pending[from..]);
        if self.columns[h].is_empty() {
            self.evict(h);
        }
    }

    /// Brings every column up to date and forgets the pending swaps.
    fn sync_all(&mut self) {
        for h in 0..self.columns.len() {
            self.sync(h);
        }
        self.pending.clear();
        self.synced.fill(0);
    }

    fn least_recent_excluding(&self, pinned: &[usize]) -> Option<usize> {
        let sentinel = self.columns.len();
        let mut h = self.next[sentinel];
        while h != sentinel {
            if !pinned.contains(&h) {
                return Some(h);
            }
            h = self.next[h];
        }
        None
    }

    /// Drops column `h` from the cache; returns its buffer.
    fn evict(&mut self, h: usize) -> Vec<T> {
        self.unlink(h);
        self.used -= self.columns[h].capacity();
        std::mem::take(&mut self.columns[h])
    }

    fn unlink(&mut self, h: usize) {
        let (p, n) = (self.prev[h], self.next[h]);
        self.next[p] = n;
        self.prev[n] = p;
        self.prev[h] = NIL;
        self.next[h] = NIL;
    }

    fn link_most_recent(&mut self, h: usize) {
        let sentinel = self.columns.len();
        let last = self.prev[sentinel];
        self.next[h] = sentinel;
        self.prev[h] = last;
        self.next[last] = h;
        self.prev[sentinel] = h;
    }
}

/// Applies `swaps` (oldest first) to a column: entries `lo` and `hi` exchanged when it holds
/// both, the column cut to its valid prefix `0..lo` when it holds `lo` but not `hi`.
fn replay<T>(column: &mut Vec<T>, swaps: &[(u32, u32)]) {
    for &(lo, hi) in swaps {
        let (lo, hi) = (lo as usize, hi as usize);
        let len = column.len();
        if len > hi {
            column.swap(lo, hi);
        } else if len > lo {
            column.truncate(lo);
        }
    }
}

impl<T: Copy + Default + Send> RowCache<T> {
    /// [`RowCache::refresh`] for every column of `columns` (repeats allowed), the pending swaps
    /// replayed in the columns that are behind in one parallel pass, a column per task (on the
    /// solve's team): a batch of columns otherwise replayed the swaps of shrinking one column
    /// after another on the solving thread, a random access per swap, while the other threads
    /// waited. Each column gets the swaps `refresh` would give it, so nothing depends on the
    /// thread count.
    pub fn refresh_many(&mut self, columns: &[usize]) {
        let pending = self.pending.len();
        let mut behind: Vec<usize> = columns
            .iter()
            .copied()
            .filter(|&h| self.synced[h] < pending && !self.columns[h].is_empty())
            .collect();
        behind.sort_unstable();
        behind.dedup();
        if behind.len() < 2 {
            for &h in &behind {
                self.sync(h);
            }
            return;
        }
        let mut taken: Vec<(Vec<T>, usize)> = behind
            .iter()
            .map(|&h| (std::mem::take(&mut self.columns[h]), self.synced[h].min(pending)))
            .collect();
        let swaps = &self.pending;
        let total = taken.len();
        let per_task = total.div_ceil(crate::team::MAX_CHUNKS);
        let n_tasks = total.div_ceil(per_task);
        let slots = crate::team::DisjointSlices::new(&mut taken);
        crate::team::for_each_chunk(n_tasks, |task| {
            let (lo, hi) = (task * per_task, ((task + 1) * per_task).min(total));
            // SAFETY: the columns lo..hi belong to this task alone.
            for (column, from) in unsafe { slots.range(lo, hi) } {
                replay(column, &swaps[*from..]);
            }
        });
        for (&h, (column, _)) in behind.iter().zip(taken) {
            self.columns[h] = column;
            self.synced[h] = pending;
            if self.columns[h].is_empty() {
                self.evict(h);
            }
        }
    }
}

#[cfg(test)]
mod tests;
