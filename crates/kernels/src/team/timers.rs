//! The team's self-timing (crate feature `team-timers`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Nanosecond totals; the owner's fields are written by the owner only.
#[derive(Default)]
pub(super) struct Timers {
    passes: AtomicU64,
    chunks: AtomicU64,
    owner_work: AtomicU64,
    member_work: AtomicU64,
    join: AtomicU64,
    between: AtomicU64,
    in_passes: AtomicU64,
    /// The team's start and the end of the owner's last pass.
    clock: Mutex<Option<(Instant, Instant)>>,
    /// The origin of the times below (the first pass).
    first: std::sync::OnceLock<Instant>,
    /// When the current pass was published.
    publish: AtomicU64,
    /// When the members ran their last chunk of the current pass (0: none ran).
    member_end: AtomicU64,
    /// From a pass's publication to a member's first claim, summed.
    member_start: AtomicU64,
    /// From the members' last chunk to the end of the owner's pass, summed.
    member_end_idle: AtomicU64,
}

fn add(total: &AtomicU64, elapsed: Duration) {
    total.fetch_add(elapsed.as_nanos() as u64, Ordering::Relaxed);
}

impl Timers {
    pub(super) fn add_work(&self, owner: bool, elapsed: Duration) {
        add(if owner { &self.owner_work } else { &self.member_work }, elapsed);
    }

    pub(super) fn pass_starts(&self, n_chunks: usize) -> Instant {
        let now = Instant::now();
        let mut clock = self.clock.lock().unwrap_or_else(|e| e.into_inner());
        match *clock {
            Some((_, last_end)) => add(&self.between, now - last_end),
            None => *clock = Some((now, now)),
        }
        self.passes.fetch_add(1, Ordering::Relaxed);
        self.chunks.fetch_add(n_chunks as u64, Ordering::Relaxed);
        now
    }

    /// The owner's pass ends: it started at `started` and its join wait at `joining`.
    pub(super) fn pass_ends(&self, started: Instant, joining: Instant) {
        let now = Instant::now();
        add(&self.join, now - joining);
        add(&self.in_passes, now - started);
        let mut clock = self.clock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, last_end)) = clock.as_mut() {
            *last_end = now;
        }
        let member_end = self.member_end.swap(0, Ordering::Acquire);
        if member_end > 0 {
            self.member_end_idle
                .fetch_add(self.since_start(now).saturating_sub(member_end), Ordering::Relaxed);
        }
    }

    /// Nanoseconds from the team's first pass to `now`.
    fn since_start(&self, now: Instant) -> u64 {
        let clock = self.first.get_or_init(|| now);
        now.saturating_duration_since(*clock).as_nanos() as u64
    }

    /// The owner published a pass.
    pub(super) fn published(&self) {
        self.publish.store(self.since_start(Instant::now()), Ordering::Release);
    }

    /// A member's first claim in a pass succeeded.
    pub(super) fn member_starts(&self) {
        let now = self.since_start(Instant::now());
        let published = self.publish.load(Ordering::Acquire);
        self.member_start.fetch_add(now.saturating_sub(published), Ordering::Relaxed);
    }

    /// A member ran its last chunk of a pass (before it reports them done).
    pub(super) fn member_ends(&self) {
        self.member_end.fetch_max(self.since_start(Instant::now()), Ordering::Release);
    }

    pub(super) fn report(&self, threads: usize) {
        let Some((first, last)) = *self.clock.lock().unwrap_or_else(|e| e.into_inner()) else {
            return;
        };
        let s = |total: &AtomicU64| total.load(Ordering::Relaxed) as f64 * 1e-9;
        eprintln!(
            "team of {threads}: {} passes, {} chunks, {:.4} s from the first pass to the \
             last; owner: in passes {:.4} s (chunks {:.4} s, join {:.4} s), between passes \
             {:.4} s; members: chunks {:.4} s, from a pass's start to their first claim \
             {:.4} s, from their last chunk to the pass's end {:.4} s",
            self.passes.load(Ordering::Relaxed),
            self.chunks.load(Ordering::Relaxed),
            (last - first).as_secs_f64(),
            s(&self.in_passes),
            s(&self.owner_work),
            s(&self.join),
            s(&self.between),
            s(&self.member_work),
            s(&self.member_start),
            s(&self.member_end_idle),
        );
    }
}
