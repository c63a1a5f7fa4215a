//! How USMO reads the kernel among the unlabeled rows: kernel columns from the shared
//! `RowCache` ([`KernelColumns`]), or, for the linear kernel, the rows themselves
//! ([`LinearRows`]: the w-vector fast path).
//!
//! A step on `(i, j)` needs `K_ij` and then the cache update `f̂ −= Δ_i K_{·,i} + Δ_j K_{·,j}`.
//! With a linear kernel `K_{u,i} = ⟨x_u, x_i⟩`, so the update is one pass
//! `f̂_u −= ⟨x_u, v⟩` with `v = Δ_i x_i + Δ_j x_j`: no kernel column, no cache, half the
//! memory traffic of two columns; the iterates are those of the kernel path up to the rounding
//! of the inner products (the kernel path reads `f32` cached values).
//!
//! Rows are addressed by *position*. The full scan keeps every position current (`len = n`);
//! the paper's scheme (`super::paper`) keeps the function cache current only on an active
//! prefix `0..len` of positions, reorders positions with [`UnlabeledKernel::swap`], and reads
//! the others through [`UnlabeledKernel::outside_value`] and [`UnlabeledKernel::refresh`]:
//!
//! * the kernel columns remember nothing: the solver keeps, for each active position `v`, how
//!   far `σ_v` moved since the last refresh (`moved[v]`), and the value of an outside position
//!   is its stored value minus `Σ_v moved[v] K_{t,v}`, one column over the prefix. A position
//!   that moved must therefore stay active until the next refresh ([`UnlabeledKernel::detach`]
//!   answers `None`);
//! * the linear rows keep `Δw = Σ_v moved_v x_v` themselves, so the value of an outside
//!   position is `stored − ⟨x_t, Δw⟩` (O(d)), and any position may leave the prefix.

use kernelkit_kernels::{CacheStats, QMatrixPasses, RowSet};

/// The kernel among the unlabeled rows, as the USMO iteration uses it (by position).
pub trait UnlabeledKernel: Send {
    /// Number of unlabeled rows.
    fn size(&self) -> usize;
    /// `K_uu` for every row.
    fn diagonal(&self) -> Vec<f64>;
    /// Calls `decide(K_ij)`; when it returns the changes `(Δ_i, Δ_j)`, applies
    /// `cache[t] −= Δ_i K_{t,i} + Δ_j K_{t,j}` for the positions `t < len` (`i, j < len`) and
    /// returns them.
    fn step(
        &mut self,
        i: usize,
        j: usize,
        len: usize,
        cache: &mut [f64],
        decide: &mut dyn FnMut(f64) -> Option<(f64, f64)>,
    ) -> Option<(f64, f64)>;
    /// `cache −= Σ_v σ_v K_{·,v}`.
    fn subtract_weighted_columns(&mut self, sigma: &[f64], cache: &mut [f64]);
    /// Exchanges positions `a` and `b`.
    fn swap(&mut self, a: usize, b: usize);
    /// The current `f̂_t` of a position `t ≥ len` outside the active prefix whose stored value
    /// is `stored`, when the active positions moved by `moved[v]` (`v < len`) since the last
    /// [`UnlabeledKernel::refresh`]; `moved` is empty when nothing moved.
    fn outside_value(&mut self, t: usize, len: usize, stored: f64, moved: &[f64]) -> f64;
    /// The stored value under which the active position `t`, whose current value is `value`,
    /// can leave the prefix; `None` when it cannot before the next refresh.
    fn detach(&mut self, t: usize, value: f64) -> Option<f64>;
    /// Makes `cache[t]` the current `f̂_t` for every position `t ≥ len`, when the active
    /// positions moved by `moved` (as for [`UnlabeledKernel::outside_value`]).
    fn refresh(&mut self, len: usize, moved: &[f64], cache: &mut [f64]);
    /// Kernel cache counters (zero without a cache).
    fn cache_stats(&self) -> CacheStats {
        CacheStats::default()
    }
    /// Whether the kernel is positive semidefinite by construction (`None`: unknown).
    fn known_positive_semidefinite(&self) -> Option<bool> {
        None
    }
}

/// Kernel columns from a [`QMatrixPasses`] (any kernel; the shared row cache).
#[derive(Debug)]
pub struct KernelColumns<Q>(pub Q);

impl<Q: QMatrixPasses> UnlabeledKernel for KernelColumns<Q> {
    fn size(&self) -> usize {
        self.0.size()
    }

    fn known_positive_semidefinite(&self) -> Option<bool> {
        self.0.known_positive_semidefinite()
    }

    fn diagonal(&self) -> Vec<f64> {
        self.0.diagonal().to_vec()
    }

    fn step(
        &mut self,
        i: usize,
        j: usize,
        len: usize,
        cache: &mut [f64],
        decide: &mut dyn FnMut(f64) -> Option<(f64, f64)>,
    ) -> Option<(f64, f64)> {
        let (k_i, k_j) = self.0.column_pair(i, j, len);
        let (d_i, d_j) = decide(f64::from(k_i[j]))?;
        update_cache(&mut cache[..len], |lo, hi, out| {
            for ((f, &a), &b) in out.iter_mut().zip(&k_i[lo..hi]).zip(&k_j[lo..hi]) {
                *f -= d_i * f64::from(a) + d_j * f64::from(b);
            }
        });
        Some((d_i, d_j))
    }

    fn subtract_weighted_columns(&mut self, sigma: &[f64], cache: &mut [f64]) {
        let (columns, scales): (Vec<usize>, Vec<f64>) =
            sigma.iter().enumerate().filter(|(_, &s)| s != 0.0).map(|(v, &s)| (v, -s)).unzip();
        self.0.add_columns_from(&columns, &scales, 0, cache);
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.0.swap_index(a, b);
    }

    fn outside_value(&mut self, t: usize, len: usize, stored: f64, moved: &[f64]) -> f64 {
        if moved.is_empty() {
            return stored;
        }
        // K symmetric: column t over the prefix is K_{t,v} for every active v.
        let column = self.0.column(t, len);
        stored - moved.iter().zip(column).map(|(&m, &k)| m * f64::from(k)).sum::<f64>()
    }

    fn detach(&mut self, _t: usize, _value: f64) -> Option<f64> {
        None
    }

    fn refresh(&mut self, len: usize, moved: &[f64], cache: &mut [f64]) {
        let (columns, scales): (Vec<usize>, Vec<f64>) =
            moved.iter().enumerate().filter(|(_, &m)| m != 0.0).map(|(v, &m)| (v, -m)).unzip();
        if !columns.is_empty() && len < cache.len() {
            self.0.add_columns_from(&columns, &scales, len, &mut cache[len..]);
        }
    }

    fn cache_stats(&self) -> CacheStats {
        self.0.cache_stats()
    }
}

/// The unlabeled rows under the linear kernel (the w-vector fast path).
#[derive(Debug)]
pub struct LinearRows<'r, 'a> {
    rows: RowSet<'r, 'a>,
    /// The row at each position.
    order: Vec<usize>,
    /// `Δw = Σ_v Δσ_v x_v` of the steps since the last refresh.
    moved: Vec<f64>,
    scratch: Vec<f64>,
    other: Vec<f64>,
}

impl<'r, 'a> LinearRows<'r, 'a> {
    /// The linear kernel over `rows`.
    pub fn new(rows: RowSet<'r, 'a>) -> Self {
        let d = rows.n_features();
        LinearRows {
            order: (0..rows.n_rows()).collect(),
            moved: vec![0.0; d],
            scratch: vec![0.0; d],
            other: vec![0.0; d],
            rows,
        }
    }
}

impl UnlabeledKernel for LinearRows<'_, '_> {
    fn size(&self) -> usize {
        self.rows.n_rows()
    }

    fn known_positive_semidefinite(&self) -> Option<bool> {
        Some(true)
    }

    fn diagonal(&self) -> Vec<f64> {
        self.order.iter().map(|&u| self.rows.sq_norm(u)).collect()
    }

    fn step(
        &mut self,
        i: usize,
        j: usize,
        len: usize,
        cache: &mut [f64],
        decide: &mut dyn FnMut(f64) -> Option<(f64, f64)>,
    ) -> Option<(f64, f64)> {
        let (row_i, row_j) = (self.order[i], self.order[j]);
        self.rows.scatter(row_j, &mut self.scratch);
        let k_ij = self.rows.dot_dense(row_i, &self.scratch);
        let (d_i, d_j) = decide(k_ij)?;
        // v = Δ_i x_i + Δ_j x_j
        self.rows.scatter(row_i, &mut self.other);
        for ((v, &a), w) in self.scratch.iter_mut().zip(&self.other).zip(&mut self.moved) {
            *v = d_j * *v + d_i * a;
            *w += *v;
        }
        let (rows, order, v) = (self.rows, &self.order, &self.scratch);
        update_cache(&mut cache[..len], |lo, hi, out| {
            for (&u, f) in order[lo..hi].iter().zip(out.iter_mut()) {
                *f -= rows.dot_dense(u, v);
            }
        });
        Some((d_i, d_j))
    }

    fn subtract_weighted_columns(&mut self, sigma: &[f64], cache: &mut [f64]) {
        // Σ_v σ_v ⟨x_u, x_v⟩ = ⟨x_u, Σ_v σ_v x_v⟩.
        let d = self.scratch.len();
        let mut w = vec![0.0; d];
        for (v, &s) in sigma.iter().enumerate() {
            if s != 0.0 {
                self.rows.scatter(self.order[v], &mut self.scratch);
                for (a, &r) in w.iter_mut().zip(&self.scratch) {
                    *a += s * r;
                }
            }
        }
        let (rows, order) = (self.rows, &self.order);
        update_cache(cache, |lo, hi, out| {
            for (&u, f) in order[lo..hi].iter().zip(out.iter_mut()) {
                *f -= rows.dot_dense(u, &w);
            }
        });
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.order.swap(a, b);
    }

    fn outside_value(&mut self, t: usize, _len: usize, stored: f64, _moved: &[f64]) -> f64 {
        stored - self.rows.dot_dense(self.order[t], &self.moved)
    }

    fn detach(&mut self, t: usize, value: f64) -> Option<f64> {
        Some(value + self.rows.dot_dense(self.order[t], &self.moved))
    }

    fn refresh(&mut self, len: usize, _moved: &[f64], cache: &mut [f64]) {
        if len < cache.len() {
            let (rows, order, w) = (self.rows, &self.order[len..], &self.moved);
            update_cache(&mut cache[len..], |lo, hi, out| {
                for (&u, f) in order[lo..hi].iter().zip(out.iter_mut()) {
                    *f -= rows.dot_dense(u, w);
                }
            });
        }
        self.moved.fill(0.0);
    }
}

/// Positions per parallel task.
const CHUNK: usize = 4096;

/// Runs `body(lo, hi, &mut cache[lo..hi])` over fixed chunks, in parallel when large.
fn update_cache(cache: &mut [f64], body: impl Fn(usize, usize, &mut [f64]) + Sync) {
    if cache.len() < kernelkit_kernels::PARALLEL_MIN_LEN {
        let n = cache.len();
        body(0, n, cache);
    } else {
        let n = cache.len();
        let cache = kernelkit_kernels::team::DisjointSlices::new(cache);
        kernelkit_kernels::team::for_each_chunk(n.div_ceil(CHUNK), |k| {
            let (lo, hi) = (k * CHUNK, ((k + 1) * CHUNK).min(n));
            // SAFETY: chunk k alone writes lo..hi.
            body(lo, hi, unsafe { cache.range(lo, hi) });
        });
    }
}
