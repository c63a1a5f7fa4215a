use super::*;

fn fill_room(room: &mut [MaybeUninit<f32>], value: f32) {
    for slot in room {
        slot.write(value);
    }
}

/// A deterministic stream of numbers `next(m) < m` (a linear congruential generator).
fn below(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed;
    move |m| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % m
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
    let mut next = below(7);
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

#[test]
fn refreshing_many_columns_at_once_is_refreshing_each() {
    // Two caches see the same requests and swaps; after every few swaps one refreshes a random
    // set of columns at once, the other refreshes them one by one: the same columns, lengths,
    // values and evictions.
    let n = 60;
    let value = |a: usize, b: usize| (a * 1000 + b) as f32;
    let mut original: Vec<usize> = (0..n).collect();
    let mut one_by_one = RowCache::<f32>::new(n, 20 * n * 4);
    let mut at_once = RowCache::<f32>::new(n, 20 * n * 4);
    let mut next = below(11);
    for round in 0..2000 {
        match next(4) {
            0 => {
                let (i, j) = (next(n), next(n));
                one_by_one.swap_index(i, j);
                at_once.swap_index(i, j);
                original.swap(i, j);
            }
            1 => {
                let columns: Vec<usize> = (0..1 + next(12)).map(|_| next(n)).collect();
                for &h in &columns {
                    one_by_one.refresh(h);
                }
                at_once.refresh_many(&columns);
            }
            _ => {
                let (i, len) = (next(n), 1 + next(n));
                for cache in [&mut one_by_one, &mut at_once] {
                    let (column, start) = cache.get(i, len, None);
                    for (k, v) in column.iter_mut().enumerate().skip(start) {
                        *v = value(original[i], original[k]);
                    }
                }
            }
        }
        if round % 50 == 0 {
            for h in 0..n {
                let (a, b) = (one_by_one.refresh(h), at_once.refresh(h));
                assert_eq!(a, b, "column {h}");
                assert_eq!(one_by_one.peek(h, a), at_once.peek(h, b));
                for (k, &v) in at_once.peek(h, b).iter().enumerate() {
                    assert_eq!(v, value(original[h], original[k]));
                }
            }
            assert_eq!(one_by_one.used_values(), at_once.used_values());
        }
    }
}

#[test]
#[should_panic(expected = "exceed what memory can index")]
fn a_column_count_beyond_memory_panics_with_its_reason() {
    // It was "attempt to multiply with overflow" (debug) or a wrapped budget (release).
    let _ = RowCache::<f32>::new(usize::MAX, 1000);
}
