//! Thread pools sized by `n_jobs`, built once and reused: building a pool starts OS threads,
//! which would cost more than a small solve (one-vs-one fits solve many).
//!
//! A pool is lent to one caller at a time. One-vs-one fits solve their class pairs
//! concurrently from several Python threads, each pair with a share of the threads
//! (`n_jobs = 2`, two pairs at a time, one thread each). Had they shared the one pool of that
//! size, `install` would have queued the second pair behind the first on the pool's single
//! thread, and the two pairs would have run one after the other. So a caller takes an idle
//! pool of its size, or builds one when every pool of that size is in use, and gives it back
//! when its job ends: there are as many pools of a size as callers that ever used that size at
//! once.
//!
//! Fork safety: a forked child process inherits the parent's memory, so the pools, but none of
//! their threads; a job handed to such a pool would wait forever. The pools therefore remember
//! the process that built them, and a child builds its own (the inherited ones are leaked, not
//! dropped: their threads do not exist in the child to be told to stop).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::protocol::SolveError;

/// The idle pools of one process, by size, and how many of each size were built.
struct Pools {
    process_id: u32,
    idle: HashMap<usize, Vec<Arc<rayon::ThreadPool>>>,
    built: HashMap<usize, usize>,
}

/// The most threads a pool gets: a pool's threads live as long as the process, so an
/// `n_jobs` far above the core count (a typo, `10**6`) is clamped rather than obeyed. Results do
/// not depend on the thread count.
fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).max(64)
}

/// The process's pools, locked; a child process of a fork drops (leaks) its parent's.
fn pools() -> MutexGuard<'static, Pools> {
    static POOLS: OnceLock<Mutex<Pools>> = OnceLock::new();
    let process_id = std::process::id();
    let pools = POOLS.get_or_init(|| {
        Mutex::new(Pools { process_id, idle: HashMap::new(), built: HashMap::new() })
    });
    let mut pools = pools.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if pools.process_id != process_id {
        // Forked: the inherited pools have no threads here.
        std::mem::forget(std::mem::take(&mut pools.idle));
        pools.built.clear();
        pools.process_id = process_id;
    }
    pools
}

/// A pool of a given size lent to one caller alone; dropping the lease gives it back. A caller
/// that must keep its own thread free (a watcher of Ctrl-C) spawns its job into the pool with
/// `in_place_scope` rather than `install`, so that no thread is started for the call.
pub struct PoolLease {
    n_threads: usize,
    process_id: u32,
    pool: Arc<rayon::ThreadPool>,
}

impl PoolLease {
    /// An idle pool of `n_threads` threads (`0` = one per core; clamped to [`max_threads`]),
    /// built if every pool of that size is lent.
    pub fn take(n_threads: usize) -> Result<Self, SolveError> {
        let n_threads = n_threads.min(max_threads());
        let mut pools = pools();
        let process_id = pools.process_id;
        if let Some(pool) = pools.idle.get_mut(&n_threads).and_then(Vec::pop) {
            return Ok(Self { n_threads, process_id, pool });
        }
        let built = pools.built.entry(n_threads).or_insert(0);
        let number = *built;
        *built += 1;
        drop(pools);
        // Thread names (at most 15 bytes on Linux) say which pool a thread belongs to:
        // `kkpool<size>-<index>` for the first pool of a size (size 0 being "one per core"),
        // `kkpool<size>.<pool>-<index>` for the pools built while it was in use.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n_threads)
            .thread_name(move |i| match number {
                0 => format!("kkpool{n_threads}-{i}"),
                _ => format!("kkpool{n_threads}.{number}-{i}"),
            })
            .build()
            .map_err(|e| SolveError::ThreadPool(e.to_string()))?;
        Ok(Self { n_threads, process_id, pool: Arc::new(pool) })
    }

    /// The pool lent.
    pub fn pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }
}

impl Drop for PoolLease {
    fn drop(&mut self) {
        let mut pools = pools();
        // A lease taken before a fork belongs to the parent's pools: never give it to the
        // child's (its threads are not in the child; the child's copy is leaked with them).
        if pools.process_id == self.process_id {
            pools.idle.entry(self.n_threads).or_default().push(Arc::clone(&self.pool));
        } else {
            std::mem::forget(Arc::clone(&self.pool));
        }
    }
}

/// Runs `job` inside a rayon pool of `n_threads` threads (`0` = one per core) that no other
/// caller uses meanwhile.
///
/// Every parallel loop of the solvers uses fixed chunk boundaries, so the result of `job` does
/// not depend on `n_threads`.
pub fn with_thread_pool<T: Send>(
    n_threads: usize,
    job: impl FnOnce() -> T + Send,
) -> Result<T, SolveError> {
    let lease = PoolLease::take(n_threads)?;
    Ok(lease.pool.install(job))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    /// Two callers asking for one thread each at the same time each get a pool of their own:
    /// both jobs are inside their pools at once. With one shared pool of one thread, the second
    /// job would start only after the first had waited out its 10 s for it.
    #[test]
    fn concurrent_callers_of_one_size_run_at_the_same_time() {
        let arrived = AtomicUsize::new(0);
        let saw_the_other = |_| {
            with_thread_pool(1, || {
                assert_eq!(rayon::current_num_threads(), 1);
                arrived.fetch_add(1, Ordering::SeqCst);
                let deadline = Instant::now() + Duration::from_secs(10);
                while arrived.load(Ordering::SeqCst) < 2 && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(1));
                }
                arrived.load(Ordering::SeqCst) == 2
            })
            .unwrap()
        };
        let both: Vec<bool> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..2).map(|k| scope.spawn(move || saw_the_other(k))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(both, [true, true], "the two jobs ran one after the other");
        assert!(pools().built[&1] >= 2);
    }
}
