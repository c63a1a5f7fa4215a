//! Thread pools sized by `n_jobs`, built once per size and reused: building a pool starts OS
//! threads, which would cost more than a small solve (one-vs-one fits solve many).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::protocol::SolveError;

fn pool(n_threads: usize) -> Result<Arc<rayon::ThreadPool>, SolveError> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut pools = pools.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(pool) = pools.get(&n_threads) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n_threads)
        .thread_name(|i| format!("kernelkit-{i}"))
        .build()
        .map_err(|e| SolveError::ThreadPool(e.to_string()))?;
    let pool = Arc::new(pool);
    pools.insert(n_threads, Arc::clone(&pool));
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
