//! A team of spinning threads for the short parallel passes of an iterative solver.
//!
//! An SMO iteration makes several parallel passes over `O(n)` values (a kernel column, the
//! gradient update, the second working-set scan), each a few tens of microseconds long. With a
//! fork-join pool every pass wakes the other threads, which have gone to sleep (or are yielding
//! to the kernel) since the last one: that costs system time and much of the parallel speed-up
//! (measurements: `docs/performance.md`, "Spinning threads"). A [`TeamGuard`] borrows the other
//! threads of the current rayon pool for the length of a solve (one `spawn_broadcast` job each)
//! and keeps them spinning between passes, so that a pass starts in well under a microsecond.
//!
//! A pass is a number of fixed chunks ([`for_each_chunk`], [`fold_chunks`]): chunk boundaries
//! are chosen by the caller from the data only, and per-chunk results are returned in chunk
//! order, so no result depends on the number of threads or on which thread ran which chunk.
//! Without a team on the calling thread (one thread, or outside a solve) the same chunks run on
//! rayon.
//!
//! Protocol: one 64-bit word holds the pass's generation and the range `front..back` of its
//! unclaimed chunks; a thread claims chunks by compare-and-swap on the whole word, so a claim
//! can only succeed for the pass it was read for. The owner claims from the front, the members
//! from the back: on uniform passes each thread then gets about the same positions pass after
//! pass (a column's values are stored, then read by the gradient update and the scans, by the
//! core that computed them, from its own cache), where claiming in one order interleaves the
//! threads' chunks differently every pass. A member's claim takes `⌈unclaimed / threads⌉`
//! chunks (guided self-scheduling): a few claims per pass, the last ones single chunks that
//! even out the shares. The owner claims one chunk at a time. It publishes the pass and claims
//! first, so a guided first claim of its own was half the pass, which no other thread could
//! take over when the owner ran late (it comes to each pass from the serial work between
//! passes, and its virtual CPU is as likely as any to be preempted on a shared host); its
//! single claims move the claim word's line only when a member has claimed in between.
//! A member adds the number of chunks it ran to the shared count once per pass; the owner
//! waits until that count and its own cover the pass.
//!
//! The claim rules were measured (`docs/performance.md`, "Team claims").
//!
//! The pass's closure is published before the word and read after a successful claim; the
//! owner returns only when every chunk is done, so the closure outlives every call. A panic in
//! a chunk is caught, the pass completes, and the panic resumes on the owner's thread.
//!
//! With the crate feature `team-timers` a team times itself and prints a summary to standard
//! error when its solve ends: passes and chunks; the owner's time running chunks, waiting at
//! the joins, and between passes (its serial work); the members' time running chunks, from a
//! pass's publication to their first claim, and from their last chunk to the pass's end. A
//! one-thread solve then runs as a team of one, so that its passes can be compared. (For
//! profiling only: `MATURIN_PEP517_ARGS="--features team-timers" pip install -e .`; the timers
//! read the clock a few times per pass and claim.)

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;

/// Bits of the claim word: generation (16) | front (24) | back (24); the unclaimed chunks of
/// the pass are `front..back`.
const COUNT_BITS: u32 = 24;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
/// Most chunks in one pass.
pub const MAX_CHUNKS: usize = COUNT_MASK as usize;
/// How long an idle member spins before it starts sleeping between checks.
const SPIN_BEFORE_SLEEP: Duration = Duration::from_micros(300);
/// The sleep between checks of an idle member once it stopped spinning.
const IDLE_SLEEP: Duration = Duration::from_micros(50);

type Pass<'a> = &'a (dyn Fn(usize) + Sync);

struct Shared {
    /// The owner and its members.
    threads: usize,
    claim: AtomicU64,
    /// Points at the owner's `Pass` (a fat reference on the owner's stack).
    pass: AtomicPtr<()>,
    /// On cache lines of its own: the members add to it at the end of a pass while the owner
    /// spins on it, and the claim word's line stays with the threads claiming.
    done: Padded<AtomicUsize>,
    closed: AtomicBool,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    #[cfg(feature = "team-timers")]
    timers: timers::Timers,
}

/// A value on two cache lines of its own (the adjacent-line prefetcher pairs lines).
#[repr(align(128))]
struct Padded<T>(T);

fn generation(word: u64) -> u64 {
    word >> (2 * COUNT_BITS)
}

fn front(word: u64) -> usize {
    ((word >> COUNT_BITS) & COUNT_MASK) as usize
}

fn back(word: u64) -> usize {
    (word & COUNT_MASK) as usize
}

/// Which end of the unclaimed range a thread claims from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    /// The owner: chunk `front`, then `front + 1`, …
    Front,
    /// The members: chunk `back − 1`, then `back − 2`, …
    Back,
}

impl Shared {
    /// Claims (from `end`) and runs chunks of the pass `word` was read for, until none is left;
    /// returns how many it ran. A member's claim takes `⌈unclaimed / threads⌉` chunks (guided
    /// self-scheduling, Polychronopoulos & Kuck 1987): a pass costs a member a few claims
    /// instead of one per chunk, and its last claims are single chunks that even out the
    /// threads' shares. The owner claims single chunks (see the module documentation). The
    /// caller reports the count to `done`.
    fn work(&self, mut word: u64, end: End) -> usize {
        let mut ran = 0;
        loop {
            let (front, back) = (front(word), back(word));
            if front >= back {
                return ran;
            }
            let (claimed, chunks) = match end {
                End::Front => (word + (1 << COUNT_BITS), front..front + 1),
                End::Back => {
                    let take = (back - front).div_ceil(self.threads);
                    (word - take as u64, back - take..back)
                }
            };
            match self.claim.compare_exchange_weak(
                word,
                claimed,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    #[cfg(feature = "team-timers")]
                    if ran == 0 && end == End::Back {
                        self.timers.member_starts();
                    }
                    #[cfg(feature = "team-timers")]
                    let started = Instant::now();
                    // SAFETY: the claim succeeded for this pass, whose owner published `pass`
                    // before the claim word and waits for these chunks before it returns.
                    let pass: Pass<'_> =
                        unsafe { *(self.pass.load(Ordering::Acquire) as *const Pass<'_>) };
                    for chunk in chunks {
                        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| pass(chunk))) {
                            let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                            slot.get_or_insert(payload);
                        }
                        ran += 1;
                    }
                    #[cfg(feature = "team-timers")]
                    self.timers.add_work(end == End::Front, started.elapsed());
                    word = claimed;
                }
                Err(current) => {
                    if generation(current) != generation(word) {
                        return ran;
                    }
                    word = current;
                }
            }
        }
    }

    /// The loop of a member thread: claim chunks of every pass until the team closes.
    fn member_loop(&self) {
        let mut idle_since = Instant::now();
        let mut spins = 0u32;
        while !self.closed.load(Ordering::Acquire) {
            let word = self.claim.load(Ordering::Acquire);
            let ran = self.work(word, End::Back);
            if ran > 0 {
                #[cfg(feature = "team-timers")]
                self.timers.member_ends();
                // One update of the shared count per pass (after every chunk's writes), not
                // one per chunk: each would take the line from the owner's cache.
                self.done.0.fetch_add(ran, Ordering::AcqRel);
                idle_since = Instant::now();
                spins = 0;
                continue;
            }
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && idle_since.elapsed() > SPIN_BEFORE_SLEEP {
                std::thread::sleep(IDLE_SLEEP);
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Shared>>> = const { RefCell::new(None) };
    /// The passes this thread ran ([`passes_so_far`]).
    static PASSES: Cell<Passes> = const { Cell::new(Passes { count: 0, time: Duration::ZERO }) };
}

/// The parallel passes a thread has run: how many ([`for_each_chunk`] calls with at least one
/// chunk, on a team or on rayon: the points where the threads meet, whatever their number) and
/// how long they took from publication to the last chunk's end. A solver takes the difference
/// of two readings on its thread: its passes, and its serial time (the rest of its wall time),
/// from which its speed-up on any number of threads can be bounded (Amdahl). Two clock reads
/// per pass (about 40 ns; an SMO iteration makes two to four passes of microseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Passes {
    pub count: u64,
    pub time: Duration,
}

impl Passes {
    /// The passes run between `earlier` and `self`.
    pub fn since(self, earlier: Passes) -> Passes {
        Passes { count: self.count - earlier.count, time: self.time.saturating_sub(earlier.time) }
    }
}

/// The passes the calling thread has run so far (see [`Passes`]).
pub fn passes_so_far() -> Passes {
    PASSES.with(Cell::get)
}

/// Counts one pass of the calling thread that started at `started`.
fn count_pass(started: Instant) {
    let elapsed = started.elapsed();
    PASSES.with(|p| {
        let Passes { count, time } = p.get();
        p.set(Passes { count: count + 1, time: time + elapsed });
    });
}

/// The team of the current solve; dropping it releases the borrowed threads.
pub struct TeamGuard {
    shared: Option<Arc<Shared>>,
}

impl TeamGuard {
    /// Borrows the other threads of the current rayon pool as a team for this thread, if the
    /// pool has more than one thread (or the timers are on) and this thread has no team yet;
    /// else a no-op guard.
    pub fn enter() -> TeamGuard {
        let threads = rayon::current_num_threads();
        let nested = CURRENT.with(|c| c.borrow().is_some());
        // With the timers, one thread is a team too (to compare its passes with a team's).
        let least = if cfg!(feature = "team-timers") { 1 } else { 2 };
        if threads < least || nested || rayon::current_thread_index().is_none() {
            return TeamGuard { shared: None };
        }
        let shared = Arc::new(Shared {
            threads,
            claim: AtomicU64::new(0),
            pass: AtomicPtr::new(std::ptr::null_mut()),
            done: Padded(AtomicUsize::new(0)),
            closed: AtomicBool::new(false),
            panic: Mutex::new(None),
            #[cfg(feature = "team-timers")]
            timers: timers::Timers::default(),
        });
        let owner = rayon::current_thread_index();
        let members = Arc::clone(&shared);
        rayon::spawn_broadcast(move |context| {
            if Some(context.index()) != owner {
                members.member_loop();
            }
        });
        CURRENT.with(|c| *c.borrow_mut() = Some(Arc::clone(&shared)));
        TeamGuard { shared: Some(shared) }
    }
}

impl Drop for TeamGuard {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            shared.closed.store(true, Ordering::Release);
            CURRENT.with(|c| *c.borrow_mut() = None);
            #[cfg(feature = "team-timers")]
            shared.timers.report(shared.threads);
        }
    }
}

/// Runs `pass(c)` for every chunk `c < n_chunks`, on the calling thread's team when it has one,
/// else on rayon.
///
/// # Panics
/// If `n_chunks > MAX_CHUNKS` with a team, or when a chunk panics (after every chunk ran).
pub fn for_each_chunk(n_chunks: usize, pass: impl Fn(usize) + Sync) {
    if n_chunks == 0 {
        return;
    }
    let pass_started = Instant::now();
    let team = CURRENT.with(|c| c.borrow().clone());
    let Some(shared) = team else {
        let pass = &pass;
        (0..n_chunks).into_par_iter().for_each(pass);
        count_pass(pass_started);
        return;
    };
    assert!(n_chunks <= MAX_CHUNKS, "team: {n_chunks} chunks in one pass");
    // Taken out of the thread-local for the pass: a nested pass runs on rayon.
    CURRENT.with(|c| *c.borrow_mut() = None);
    #[cfg(feature = "team-timers")]
    let started = shared.timers.pass_starts(n_chunks);
    let pass: Pass<'_> = &pass;
    shared.done.0.store(0, Ordering::Relaxed);
    shared.pass.store(&pass as *const Pass<'_> as *mut (), Ordering::Release);
    let previous = shared.claim.load(Ordering::Acquire);
    let word = ((generation(previous) + 1) & 0xFFFF) << (2 * COUNT_BITS) | n_chunks as u64;
    #[cfg(feature = "team-timers")]
    shared.timers.published();
    shared.claim.store(word, Ordering::Release);
    let own = shared.work(word, End::Front);
    #[cfg(feature = "team-timers")]
    let joining = Instant::now();
    while shared.done.0.load(Ordering::Acquire) + own < n_chunks {
        std::hint::spin_loop();
    }
    #[cfg(feature = "team-timers")]
    shared.timers.pass_ends(started, joining);
    CURRENT.with(|c| *c.borrow_mut() = Some(Arc::clone(&shared)));
    count_pass(pass_started);
    let payload = shared.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(payload) = payload {
        resume_unwind(payload);
    }
}

#[cfg(feature = "team-timers")]
mod timers;

/// `[f(0), f(1), …, f(n_chunks − 1)]`, computed as [`for_each_chunk`] does (for
/// [`fold_chunks`] beyond its stack slots).
fn map_chunks<T: Send>(n_chunks: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let mut results: Vec<Option<T>> = (0..n_chunks).map(|_| None).collect();
    let slots = DisjointSlices::new(&mut results);
    for_each_chunk(n_chunks, |c| {
        // SAFETY: chunk c alone writes slot c.
        let slot = unsafe { slots.range(c, c + 1) };
        slot[0] = Some(f(c));
    });
    results.into_iter().map(|slot| slot.expect("team: every chunk ran")).collect()
}

/// Chunk results held on the stack by [`fold_chunks`] (more chunks go through [`map_chunks`]).
const STACK_CHUNKS: usize = 64;

/// `merge(…merge(merge(init, f(0)), f(1))…, f(n_chunks − 1))`: [`map_chunks`] folded in chunk
/// order, without allocating for up to 64 chunks (an SMO iteration makes several such passes).
pub fn fold_chunks<T: Send, R>(
    n_chunks: usize,
    f: impl Fn(usize) -> T + Sync,
    init: R,
    mut merge: impl FnMut(R, T) -> R,
) -> R {
    if n_chunks > STACK_CHUNKS {
        return map_chunks(n_chunks, f).into_iter().fold(init, merge);
    }
    let mut results: [Option<T>; STACK_CHUNKS] = std::array::from_fn(|_| None);
    let slots = DisjointSlices::new(&mut results[..n_chunks]);
    for_each_chunk(n_chunks, |c| {
        // SAFETY: chunk c alone writes slot c.
        let slot = unsafe { slots.range(c, c + 1) };
        slot[0] = Some(f(c));
    });
    let mut folded = init;
    for slot in &mut results[..n_chunks] {
        folded = merge(folded, slot.take().expect("team: every chunk ran"));
    }
    folded
}

/// A mutable slice shared by the chunks of one pass, each writing its own disjoint range.
pub struct DisjointSlices<'a, T> {
    start: *mut T,
    len: usize,
    _slice: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: ranges handed out by `range` never overlap (the caller's contract), and the slice is
// exclusively borrowed for 'a.
unsafe impl<T: Send> Send for DisjointSlices<'_, T> {}
unsafe impl<T: Send> Sync for DisjointSlices<'_, T> {}

impl<'a, T> DisjointSlices<'a, T> {
    /// Wraps `slice`.
    pub fn new(slice: &'a mut [T]) -> Self {
        DisjointSlices {
            start: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: std::marker::PhantomData,
        }
    }

    /// `slice[lo..hi]`.
    ///
    /// # Safety
    /// No other live range may overlap `lo..hi`.
    ///
    /// # Panics
    /// If `lo..hi` is not inside the slice.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn range(&self, lo: usize, hi: usize) -> &mut [T] {
        assert!(lo <= hi && hi <= self.len, "DisjointSlices: {lo}..{hi} outside 0..{}", self.len);
        // SAFETY: in bounds (checked); exclusivity is the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.start.add(lo), hi - lo) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
    }

    #[test]
    fn the_passes_of_a_thread_are_counted_whatever_the_threads() {
        for threads in [1, 2, 3] {
            pool(threads).install(|| {
                let _team = TeamGuard::enter();
                let before = passes_so_far();
                for n in [0, 1, 7, 100] {
                    for_each_chunk(n, |_| std::thread::sleep(Duration::from_micros(50)));
                }
                let _ = fold_chunks(3, |c| c, 0, |a, c| a + c);
                let passes = passes_so_far().since(before);
                // Four passes with chunks (an empty one is none); each took at least one
                // chunk's sleep.
                assert_eq!(passes.count, 4, "{threads} threads");
                assert!(passes.time >= Duration::from_micros(150), "{threads} threads");
            });
        }
    }

    #[test]
    fn fold_chunks_folds_in_chunk_order() {
        for threads in [1, 2, 3] {
            pool(threads).install(|| {
                let _team = TeamGuard::enter();
                for n in [0, 1, 5, STACK_CHUNKS, STACK_CHUNKS + 1, 200] {
                    let folded = fold_chunks(
                        n,
                        |c| c,
                        Vec::new(),
                        |mut all, c| {
                            all.push(c);
                            all
                        },
                    );
                    assert_eq!(folded, (0..n).collect::<Vec<_>>());
                }
            });
        }
    }

    #[test]
    fn every_chunk_runs_once_in_order_of_results() {
        for threads in [1, 2, 3] {
            pool(threads).install(|| {
                let _team = TeamGuard::enter();
                for pass in 0..2000usize {
                    let n = 1 + pass % 37;
                    let counts: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                    let squares = map_chunks(n, |c| {
                        counts[c].fetch_add(1, Ordering::Relaxed);
                        c * c + pass
                    });
                    assert!(counts.iter().all(|k| k.load(Ordering::Relaxed) == 1));
                    assert_eq!(squares, (0..n).map(|c| c * c + pass).collect::<Vec<_>>());
                }
            });
        }
    }

    #[test]
    fn the_owner_returns_only_after_every_claimed_chunk_finished() {
        // Chunks of very unequal length, claimed several at a time: whichever thread runs the
        // long ones, every chunk's write is visible when the pass returns.
        for threads in [2, 3] {
            pool(threads).install(|| {
                let _team = TeamGuard::enter();
                for pass in 0..200usize {
                    let n = 3 + pass % 29;
                    let finished: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                    for_each_chunk(n, |c| {
                        let mut x = c as u64;
                        for _ in 0..((c * 7 + pass) % 11) * 2000 {
                            x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005));
                        }
                        std::hint::black_box(x);
                        finished[c].store(1, Ordering::Relaxed);
                    });
                    let done = finished.iter().filter(|f| f.load(Ordering::Relaxed) == 1).count();
                    assert_eq!(done, n, "pass {pass}");
                }
            });
        }
    }

    #[test]
    fn disjoint_ranges_are_written_by_their_chunks() {
        pool(2).install(|| {
            let _team = TeamGuard::enter();
            let mut values = vec![0usize; 10_000];
            let shared = DisjointSlices::new(&mut values);
            for_each_chunk(10, |c| {
                // SAFETY: chunk c owns c·1000..(c + 1)·1000.
                for (k, v) in
                    unsafe { shared.range(c * 1000, (c + 1) * 1000) }.iter_mut().enumerate()
                {
                    *v = c * 1000 + k;
                }
            });
            assert!(values.iter().enumerate().all(|(k, &v)| k == v));
        });
    }

    #[test]
    fn a_panic_in_a_chunk_reaches_the_owner_after_the_pass() {
        pool(2).install(|| {
            let _team = TeamGuard::enter();
            let ran = AtomicUsize::new(0);
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                for_each_chunk(64, |c| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    assert!(c != 13, "chunk 13 fails");
                });
            }));
            assert!(outcome.is_err());
            assert_eq!(ran.load(Ordering::Relaxed), 64);
            // The team still works after the panic.
            assert_eq!(map_chunks(5, |c| c + 1), vec![1, 2, 3, 4, 5]);
        });
    }

    #[test]
    fn without_a_team_the_chunks_run_on_rayon() {
        assert_eq!(map_chunks(4, |c| 2 * c), vec![0, 2, 4, 6]);
    }
}
