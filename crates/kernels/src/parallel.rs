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
    (start..end)
        .step_by(chunk)
        .map(move |lo| (lo, (lo + chunk).min(end)))
}
