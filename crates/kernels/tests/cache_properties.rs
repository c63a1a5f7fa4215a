//! Property tests of `RowCache` against a naive model of LIBSVM's cache semantics.
//!
//! With a loose fit (`RowCache::with_loose_fit`) the cache may keep a recycled buffer longer
//! than its column, so it evicts other columns than the model: every check below holds
//! except the comparison with the model's set of columns and its use of the budget.
//!
//! The oracle keeps the list of cached columns in LRU order with their lengths, and the matrix
//! the columns come from under the current position permutation. Until the first swap, the
//! cache must hold exactly the columns the oracle holds (LRU eviction). Throughout, and after
//! swaps (which the cache applies lazily, keeping the exact prefix of a column it cannot
//! repair), every value it holds must be the matrix entry of the current positions, a request
//! must be served from exactly the prefix `cached_len` announced, and it never holds more than
//! its budget.

use kernelkit_kernels::RowCache;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Get { index: usize, len: usize },
    Swap { i: usize, j: usize },
}

fn op(n: usize) -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..n, 1..=n).prop_map(|(index, len)| Op::Get { index, len }),
        1 => (0..n, 0..n).prop_map(|(i, j)| Op::Swap { i, j }),
    ]
}

/// The value of entry `(row, col)` of the underlying symmetric matrix, by original index.
fn value(a: usize, b: usize) -> f32 {
    let (lo, hi) = (a.min(b), a.max(b));
    (lo * 1000 + hi) as f32
}

/// A deliberately simple model: a vector of (position, length) in LRU order.
struct Oracle {
    lru: Vec<(usize, usize)>,
    permutation: Vec<usize>,
    budget: usize,
}

impl Oracle {
    fn used(&self) -> usize {
        self.lru.iter().map(|&(_, len)| len).sum()
    }

    fn get(&mut self, index: usize, len: usize) -> usize {
        let have = match self.lru.iter().position(|&(p, _)| p == index) {
            Some(k) => self.lru.remove(k).1,
            None => 0,
        };
        let mut new_len = have;
        if have < len {
            // The column being extended still holds its `have` values while others are evicted.
            while have + self.used() + (len - have) > self.budget && !self.lru.is_empty() {
                self.lru.remove(0);
            }
            new_len = len;
        }
        self.lru.push((index, new_len));
        have.min(len)
    }

    fn swap(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        self.permutation.swap(i, j);
        let mut moved = Vec::new();
        self.lru.retain(|&(p, len)| {
            if p == i || p == j {
                moved.push((if p == i { j } else { i }, len));
                false
            } else {
                true
            }
        });
        // LIBSVM re-inserts position i's new column first, then j's.
        moved.sort_by_key(|&(p, _)| if p == i { 0 } else { 1 });
        self.lru.extend(moved);
        let (lo, hi) = (i.min(j), i.max(j));
        self.lru.retain(|&(_, len)| !(len > lo && len <= hi));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn cache_matches_the_naive_lru_model(
        n in 2usize..12,
        budget_columns in 0usize..30,
        ops in prop::collection::vec(op(12), 1..80),
        loose in any::<bool>(),
    ) {
        let budget_bytes = budget_columns * 4 * n / 2;
        let cache = RowCache::<f32>::new(n, budget_bytes);
        let mut cache = if loose { cache.with_loose_fit() } else { cache };
        let mut oracle = Oracle {
            lru: Vec::new(),
            permutation: (0..n).collect(),
            budget: cache.budget_values(),
        };
        prop_assert!(cache.budget_values() >= 2 * n);
        let mut swapped = false;
        for op in ops {
            match op {
                Op::Get { index, len } => {
                    let (index, len) = (index % n, len.min(n).max(1));
                    let expected_start = oracle.get(index, len);
                    let announced = cache.cached_len(index);
                    let perm = oracle.permutation.clone();
                    let (column, start) = cache.get(index, len, None);
                    prop_assert_eq!(start, announced.min(len));
                    if !swapped && !loose {
                        prop_assert_eq!(start, expected_start);
                    }
                    for k in 0..start {
                        prop_assert_eq!(column[k], value(perm[index], perm[k]), "kept entry {}", k);
                    }
                    for k in start..len {
                        column[k] = value(perm[index], perm[k]);
                    }
                }
                Op::Swap { i, j } => {
                    let (i, j) = (i % n, j % n);
                    swapped |= i != j;
                    oracle.swap(i, j);
                    cache.swap_index(i, j);
                }
            }
            prop_assert!(cache.used_values() <= cache.budget_values());
            if !swapped && !loose {
                prop_assert_eq!(cache.used_values(), oracle.used());
            }
            for p in 0..n {
                let announced = cache.cached_len(p);
                if !swapped && !loose {
                    let expected =
                        oracle.lru.iter().find(|&&(q, _)| q == p).map_or(0, |&(_, len)| len);
                    prop_assert_eq!(announced, expected, "cached length of {}", p);
                }
            }
        }
        // Every column still held, brought up to date, holds the current entries.
        for p in 0..n {
            let announced = cache.cached_len(p);
            prop_assert_eq!(cache.refresh(p), announced);
            let perm = &oracle.permutation;
            for (k, &v) in cache.peek(p, announced).iter().enumerate() {
                prop_assert_eq!(v, value(perm[p], perm[k]), "column {} entry {}", p, k);
            }
        }
    }
}
