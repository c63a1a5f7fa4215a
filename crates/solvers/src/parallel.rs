//! Thread pools sized by `n_jobs`.

use crate::protocol::SolveError;

/// Runs `job` inside a rayon pool of `n_threads` threads (`0` = one per core).
///
/// Every parallel loop of the solvers uses fixed chunk boundaries, so the result of `job` does
/// not depend on `n_threads`.
pub fn with_thread_pool<T: Send>(
    n_threads: usize,
    job: impl FnOnce() -> T + Send,
) -> Result<T, SolveError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n_threads)
        .build()
        .map_err(|e| SolveError::ThreadPool(e.to_string()))?;
    Ok(pool.install(job))
}
