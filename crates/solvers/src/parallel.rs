//! Thread pools sized by `n_jobs`, built once per size and reused: building a pool starts OS
//! threads, which would cost more than a small solve (one-vs-one fits solve many).
//!
//! Fork safety: a forked child process inherits the parent's memory, so the pools, but none of
//! their threads; a job handed to such a pool would wait forever. The pools therefore remember
//! the process that built them, and a child builds its own (the inherited ones are leaked, not
//! dropped: their threads do not exist in the child to be told to stop).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::protocol::SolveError;

/// The pools of one process, by size.
struct Pools {
    process_id: u32,
    by_size: HashMap<usize, Arc<rayon::ThreadPool>>,
}

/// The most threads a pool gets: a pool's threads live as long as the process, so an
/// `n_jobs` far above the core count (a typo, `10**6`) is clamped rather than obeyed. Results do
/// not depend on the thread count.
fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).max(64)
}

fn pool(n_threads: usize) -> Result<Arc<rayon::ThreadPool>, SolveError> {
    let n_threads = n_threads.min(max_threads());
    static POOLS: OnceLock<Mutex<Pools>> = OnceLock::new();
    let process_id = std::process::id();
    let pools = POOLS.get_or_init(|| Mutex::new(Pools { process_id, by_size: HashMap::new() }));
    let mut pools = pools.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if pools.process_id != process_id {
        // Forked: the inherited pools have no threads here.
        std::mem::forget(std::mem::take(&mut pools.by_size));
        pools.process_id = process_id;
    }
    if let Some(pool) = pools.by_size.get(&n_threads) {
        return Ok(Arc::clone(pool));
    }
    // Thread names (at most 15 bytes on Linux) say which pool a thread belongs to:
    // `kkpool<size>-<index>`, size 0 being "one per core".
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n_threads)
        .thread_name(move |i| format!("kkpool{n_threads}-{i}"))
        .build()
        .map_err(|e| SolveError::ThreadPool(e.to_string()))?;
    let pool = Arc::new(pool);
    pools.by_size.insert(n_threads, Arc::clone(&pool));
    Ok(pool)
}

/// Runs `job` inside a rayon pool of `n_threads` threads (`0` = one per core).
///
/// Every parallel loop of the solvers uses fixed chunk boundaries, so the result of `job` does
/// not depend on `n_threads`.
pub fn with_thread_pool<T: Send>(
    n_threads: usize,
    job: impl FnOnce() -> T + Send,
) -> Result<T, SolveError> {
    Ok(pool(n_threads)?.install(job))
}
