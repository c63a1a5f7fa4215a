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
//!   shrinking (8 % of an a9a fit in the issue-9 profile); replayed ones stay inside one column,
//!   and columns evicted before their next use never pay. The two columns that trade places
//!   take their count of replayed swaps with them and are not brought up to date either (a
//!   shrunk variable's column, moved out of the active set, would replay the whole log only to
//!   be evicted unused: that halved `sync`'s share of an a9a fit, 1.3 % -> 0.75 % of the
//!   samples).
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
/// needs is taken as it is. With at most an eighth longer instead, a fresh a9a fit (2 threads,
/// 200 MB) shrank 11,354 recycled buffers and extended 8,553 columns by `realloc`, and the
/// heap's fragments made it touch about 305 MB for its 200 MB of columns: 82,000 page faults
/// (about 3.5 µs each on the benchmark machine, more than computing the 1,024 values of a
/// page). Twice: 60,000 faults, peak RSS 574 → 489 MB, 0.6 % more column misses (80,306 →
/// 80,819), fit medians 1.86 → 1.35 s on 2 threads and 2.54 → 2.30 s on 1 (4 rounds each,
/// builds alternated, a fresh process per fit).
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
    pub fn new(n: usize, budget_bytes: usize) -> Self {
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
    /// memory were 5 % of a warm kddcup fit's samples, all on the solve's thread.
    /// Never evicts `pinned`.
    pub fn get_unfilled(
        &mut self,
        i: usize,
        len: usize,
        pinned: Option<usize>,
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
        let column = &mut self.columns[h];
        for &(lo, hi) in &self.pending[from..] {
            let (lo, hi) = (lo as usize, hi as usize);
            let len = column.len();
            if len > hi {
                column.swap(lo, hi);
            } else if len > lo {
                column.truncate(lo);
            }
        }
        if column.is_empty() {
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

    fn least_recent_excluding(&self, pinned: Option<usize>) -> Option<usize> {
        let sentinel = self.columns.len();
        let mut h = self.next[sentinel];
        while h != sentinel {
            if Some(h) != pinned {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fill_room(room: &mut [MaybeUninit<f32>], value: f32) {
        for slot in room {
            slot.write(value);
        }
    }

    #[test]
    fn budget_is_at_least_two_columns() {
        let cache = RowCache::<f32>::new(10, 0);
        assert_eq!(cache.budget_values(), 20);
    }

    #[test]
    fn a_pair_keeps_both_columns_when_the_budget_holds_only_them() {
        let mut cache = RowCache::<f32>::new(4, 4 * 8); // two full columns
        cache.get(0, 4, None).0.fill(1.0);
        cache.get(1, 4, None).0.fill(2.0);
        // Column 2 is extended from a prefix of 2 and column 3 is new: both evict the others.
        cache.get(2, 2, None).0.fill(3.0);
        let [(column_2, room_2), (column_3, room_3)] = cache.get_pair_unfilled(2, 3, 4);
        let (have_2, have_3) = (column_2.len(), column_3.len());
        assert_eq!((have_2, have_3), (2, 0));
        fill_room(room_2, 4.0);
        fill_room(room_3, 5.0);
        // SAFETY: both rooms written.
        unsafe {
            cache.set_filled(2, 4);
            cache.set_filled(3, 4);
        }
        assert_eq!(cache.peek(2, 4), &[3.0, 3.0, 4.0, 4.0]);
        assert_eq!(cache.peek(3, 4), &[5.0; 4]);
        assert_eq!((cache.cached_len(0), cache.cached_len(1)), (0, 0));
    }

    #[test]
    fn a_loose_fit_keeps_a_recycled_buffer_a_little_longer_than_its_column() {
        for loose in [false, true] {
            let cache = RowCache::<f32>::new(100, 200 * 4); // two full columns
            let mut cache = if loose { cache.with_loose_fit() } else { cache };
            cache.get(0, 100, None).0.fill(1.0);
            cache.get(1, 100, None).0.fill(2.0);
            // Column 2 evicts column 0 and takes its buffer: 100 values for 95 (at most twice
            // as long) are kept with a loose fit, shrunk to 95 without.
            let (column, start) = cache.get(2, 95, None);
            assert_eq!((column.len(), start), (95, 0));
            column.fill(3.0);
            assert_eq!(cache.used_values(), if loose { 200 } else { 195 }, "loose: {loose}");
            // A buffer more than twice too long is shrunk either way.
            let (column, _) = cache.get(3, 45, None);
            column.fill(4.0);
            assert_eq!(cache.used_values(), if loose { 145 } else { 140 }, "loose: {loose}");
            assert_eq!((cache.cached_len(0), cache.cached_len(1)), (0, 0));
            assert_eq!(cache.peek(2, 95), &[3.0; 95]);
            assert_eq!(cache.peek(3, 45), &[4.0; 45]);
        }
    }

    #[test]
    fn least_recently_used_column_is_evicted_first() {
        let mut cache = RowCache::<f32>::new(4, 4 * 8); // 8 values: two full columns
        cache.get(0, 4, None);
        cache.get(1, 4, None);
        cache.get(0, 4, None); // 1 is now least recent
        cache.get(2, 4, None);
        assert_eq!(cache.cached_len(1), 0);
        assert_eq!(cache.cached_len(0), 4);
        assert_eq!(cache.cached_len(2), 4);
        assert_eq!(cache.stats().hits, 1);
        assert_eq!(cache.stats().misses, 3);
    }

    #[test]
    fn geometric_growth_reserves_ahead_and_stays_within_the_budget() {
        let n = 100;
        let mut cache = RowCache::<f64>::new(n, 3 * n * 8).with_growth(Growth::Geometric);
        for len in 1..=n {
            for i in 0..5 {
                let (column, start) = cache.get(i, len, None);
                for (k, value) in column.iter_mut().enumerate().skip(start) {
                    *value = (i * 1000 + k) as f64;
                }
                assert!(cache.used_values() <= cache.budget_values());
            }
        }
        // Columns still cached hold the values written, whatever was evicted in between.
        for i in 0..5 {
            let have = cache.cached_len(i);
            for (k, &value) in cache.peek(i, have).iter().enumerate() {
                assert_eq!(value, (i * 1000 + k) as f64);
            }
        }
        assert!(cache.stats().values_computed >= 5 * n as u64);
    }

    #[test]
    fn swaps_keep_every_cached_value_coherent() {
        // Column h of position p holds value(original[h], original[k]) at k; random requests
        // of random lengths interleaved with swaps must keep that true for every cached entry.
        let n = 60;
        let value = |a: usize, b: usize| (a * 1000 + b) as f32;
        let mut original: Vec<usize> = (0..n).collect();
        let mut cache = RowCache::<f32>::new(n, 12 * n * 4);
        let mut state: u64 = 7;
        let mut next = |m: usize| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % m
        };
        for _ in 0..3000 {
            if next(3) == 0 {
                let (i, j) = (next(n), next(n));
                cache.swap_index(i, j);
                original.swap(i, j);
            } else {
                let (i, len) = (next(n), 1 + next(n));
                let (column, start) = cache.get(i, len, None);
                for (k, v) in column.iter_mut().enumerate().skip(start) {
                    *v = value(original[i], original[k]);
                }
            }
            for h in 0..n {
                let len = cache.refresh(h);
                for (k, &v) in cache.peek(h, len).iter().enumerate() {
                    assert_eq!(v, value(original[h], original[k]));
                }
            }
            assert!(cache.used_values() <= cache.budget_values());
        }
    }

    #[test]
    fn partial_columns_are_extended() {
        let mut cache = RowCache::<f32>::new(5, 1 << 10);
        let (col, start) = cache.get(3, 2, None);
        assert_eq!(start, 0);
        col.copy_from_slice(&[1.0, 2.0]);
        let (col, start) = cache.get(3, 5, None);
        assert_eq!(start, 2);
        assert_eq!(&col[..2], &[1.0, 2.0]);
        assert_eq!(cache.stats().values_computed, 5);
    }

    #[test]
    fn unfilled_room_counts_only_once_written() {
        let mut cache = RowCache::<f32>::new(6, 6 * 4 * 3); // three full columns
        let (cached, room) = cache.get_unfilled(1, 4, None);
        assert_eq!((cached.len(), room.len()), (0, 4));
        for (k, value) in room.iter_mut().enumerate() {
            value.write(k as f32);
        }
        // SAFETY: the whole room was written.
        unsafe { cache.set_filled(1, 4) };
        assert_eq!(cache.peek(1, 4), &[0.0, 1.0, 2.0, 3.0]);

        // Extending: the prefix comes back cached, the room is the rest.
        let (cached, room) = cache.get_unfilled(1, 6, None);
        assert_eq!((cached, room.len()), (&mut [0.0, 1.0, 2.0, 3.0][..], 2));
        room[0].write(4.0);
        room[1].write(5.0);
        // SAFETY: written.
        unsafe { cache.set_filled(1, 6) };
        assert_eq!(cache.peek(1, 6), &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);

        // A room never marked filled leaves the column as it was, and its reservation is
        // reused (not counted twice) by the next request.
        let _ = cache.get_unfilled(2, 6, None);
        let used = cache.used_values();
        assert_eq!(cache.cached_len(2), 0);
        let (cached, room) = cache.get_unfilled(2, 6, None);
        assert_eq!((cached.len(), room.len()), (0, 6));
        assert_eq!(cache.used_values(), used);
        assert_eq!(cache.stats().misses, 4);

        // The pair form: both rooms, neither column evicted for the other.
        let [(cached_3, room_3), (cached_4, room_4)] = cache.get_pair_unfilled(3, 4, 6);
        assert_eq!((cached_3.len(), room_3.len(), cached_4.len(), room_4.len()), (0, 6, 0, 6));
        fill_room(room_3, 3.0);
        fill_room(room_4, 4.0);
        // SAFETY: both rooms written.
        unsafe {
            cache.set_filled(3, 6);
            cache.set_filled(4, 6);
        }
        assert_eq!(cache.peek(3, 6), &[3.0; 6]);
        assert_eq!(cache.peek(4, 6), &[4.0; 6]);
        assert!(cache.used_values() <= cache.budget_values());
        // Column 1 (least recently used) made room for them; 2 was never filled.
        assert_eq!((cache.cached_len(1), cache.cached_len(2)), (0, 0));
    }
}
