//! [`PerThread`]: what the windows of one parallel pass add up, one slot per thread.
//!
//! The windows of a fused pass (a kernel column computed, stored, applied to the gradient and
//! scanned window by window) each add a result to something shared: the count of values
//! written, a scan's best candidate. With one shared counter or lock, every window took its
//! cache line from the other core while both threads were working: about 20 windows per pass,
//! two such lines, tens of thousands of passes per fit. Here each thread adds to a slot on a
//! cache line of its own, and the slots are merged once the pass is over. The merge must give
//! the same result whichever thread added what, in whichever order (commutative and
//! associative), as the maxima of the working-set scans do (ties to the larger position).

use std::sync::{Mutex, PoisonError};

/// One thread's slot, on cache lines of its own (two lines: the adjacent-line prefetcher
/// pairs them).
#[repr(align(128))]
struct Slot<T>(Mutex<T>);

/// Slots held inline (in the value itself, on the stack of the pass's caller) for a pool of up
/// to `INLINE_SLOTS - 1` threads: no allocation per pass. An a9a fit makes about 57,000 passes;
/// allocating and freeing their aligned slots was a fifth of the serial work between the passes
/// (`memalign`, `malloc` and `free`: 66 of 298 such samples of a one-thread fit).
const INLINE_SLOTS: usize = 8;

/// The slots: inline for small pools, else on the heap.
enum Slots<T> {
    Inline { slots: [Slot<T>; INLINE_SLOTS], len: usize },
    Heap(Box<[Slot<T>]>),
}

/// Per-thread partial results of one pass (see the module documentation).
pub struct PerThread<T> {
    slots: Slots<T>,
}

impl<T: Copy> PerThread<T> {
    /// One slot holding `empty` (the merge's identity: an empty slot must not change the
    /// result) per thread of the current rayon pool, and one for a thread outside it.
    pub fn new(empty: T) -> Self {
        let len = rayon::current_num_threads() + 1;
        let slots = if len <= INLINE_SLOTS {
            Slots::Inline { slots: std::array::from_fn(|_| Slot(Mutex::new(empty))), len }
        } else {
            Slots::Heap((0..len).map(|_| Slot(Mutex::new(empty))).collect())
        };
        PerThread { slots }
    }

    fn slots(&self) -> &[Slot<T>] {
        match &self.slots {
            Slots::Inline { slots, len } => &slots[..*len],
            Slots::Heap(slots) => slots,
        }
    }

    /// Merges `value` into the calling thread's slot. A thread of another pool shares a slot
    /// (correct, only slower).
    pub fn add(&self, value: T, merge: impl Fn(T, T) -> T) {
        let slots = self.slots();
        let index = rayon::current_thread_index().map_or(0, |k| k + 1) % slots.len();
        let mut slot = slots[index].0.lock().unwrap_or_else(PoisonError::into_inner);
        *slot = merge(*slot, value);
    }

    /// The slots merged in thread order.
    pub fn merged(mut self, merge: impl Fn(T, T) -> T) -> T {
        let slots = match &mut self.slots {
            Slots::Inline { slots, len } => &mut slots[..*len],
            Slots::Heap(slots) => &mut slots[..],
        };
        let mut values =
            slots.iter_mut().map(|slot| *slot.0.get_mut().unwrap_or_else(PoisonError::into_inner));
        let first = values.next().expect("PerThread: at least one slot");
        values.fold(first, merge)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::{for_each_chunk, TeamGuard};

    #[test]
    fn the_windows_of_a_pass_add_up_on_any_thread_count() {
        for threads in [1, 2, 3, INLINE_SLOTS + 1] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let _team = TeamGuard::enter();
                for n in [1usize, 7, 64, 300] {
                    let sum = PerThread::new(0usize);
                    let best = PerThread::new((0u64, 0usize));
                    for_each_chunk(n, |c| {
                        sum.add(c, |a, b| a + b);
                        // Values with ties: the larger position wins a tie.
                        best.add(((c % 5) as u64, c), std::cmp::max);
                    });
                    assert_eq!(sum.merged(|a, b| a + b), n * (n - 1) / 2);
                    let expected = (0..n).map(|c| ((c % 5) as u64, c)).max().unwrap();
                    assert_eq!(best.merged(std::cmp::max), expected);
                }
            });
        }
        // Outside any pool.
        let sum = PerThread::new(0i64);
        sum.add(2, |a, b| a + b);
        assert_eq!(sum.merged(|a, b| a + b), 2);
    }
}
