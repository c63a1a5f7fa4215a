//! How USMO reads the kernel among the unlabeled rows: kernel columns from the shared
//! `RowCache` ([`KernelColumns`]), or, for the linear kernel, the rows themselves
//! ([`LinearRows`]: the w-vector fast path).
//!
//! A step on `(i, j)` needs `K_ij` and then the cache update `f̂ −= Δ_i K_{·,i} + Δ_j K_{·,j}`.
//! With a linear kernel `K_{u,i} = ⟨x_u, x_i⟩`, so the update is one pass
//! `f̂_u −= ⟨x_u, v⟩` with `v = Δ_i x_i + Δ_j x_j`: no kernel column, no cache, half the
//! memory traffic of two columns; the iterates are those of the kernel path up to the rounding
//! of the inner products (the kernel path reads `f32` cached values).

use kernelkit_kernels::{CacheStats, QMatrix, RowSet};

/// The kernel among the unlabeled rows, as the USMO iteration uses it.
pub trait UnlabeledKernel: Send {
    /// Number of unlabeled rows.
    fn size(&self) -> usize;
    /// `K_uu` for every row.
    fn diagonal(&self) -> Vec<f64>;
    /// Calls `decide(K_ij)`; when it returns the changes `(Δ_i, Δ_j)`, applies
    /// `cache −= Δ_i K_{·,i} + Δ_j K_{·,j}` and returns them.
    fn step(
        &mut self,
        i: usize,
        j: usize,
        cache: &mut [f64],
        decide: &mut dyn FnMut(f64) -> Option<(f64, f64)>,
    ) -> Option<(f64, f64)>;
    /// `cache −= Σ_v σ_v K_{·,v}`.
    fn subtract_weighted_columns(&mut self, sigma: &[f64], cache: &mut [f64]);
    /// Kernel cache counters (zero without a cache).
    fn cache_stats(&self) -> CacheStats {
        CacheStats::default()
    }
}

/// Kernel columns from a [`QMatrix`] (any kernel; the shared row cache).
#[derive(Debug)]
pub struct KernelColumns<Q>(pub Q);

impl<Q: QMatrix> UnlabeledKernel for KernelColumns<Q> {
    fn size(&self) -> usize {
        self.0.size()
    }

    fn diagonal(&self) -> Vec<f64> {
        self.0.diagonal().to_vec()
    }

    fn step(
        &mut self,
        i: usize,
        j: usize,
        cache: &mut [f64],
        decide: &mut dyn FnMut(f64) -> Option<(f64, f64)>,
    ) -> Option<(f64, f64)> {
        let n = self.0.size();
        let (k_i, k_j) = self.0.column_pair(i, j, n);
        let (d_i, d_j) = decide(f64::from(k_i[j]))?;
        update_cache(cache, |lo, hi, out| {
            for ((f, &a), &b) in out.iter_mut().zip(&k_i[lo..hi]).zip(&k_j[lo..hi]) {
                *f -= d_i * f64::from(a) + d_j * f64::from(b);
            }
        });
        Some((d_i, d_j))
    }

    fn subtract_weighted_columns(&mut self, sigma: &[f64], cache: &mut [f64]) {
        let n = sigma.len();
        for (v, &s) in sigma.iter().enumerate() {
            if s != 0.0 {
                let column = self.0.column(v, n);
                update_cache(cache, |lo, hi, out| {
                    for (f, &k) in out.iter_mut().zip(&column[lo..hi]) {
                        *f -= s * f64::from(k);
                    }
                });
            }
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
    scratch: Vec<f64>,
}

impl<'r, 'a> LinearRows<'r, 'a> {
    /// The linear kernel over `rows`.
    pub fn new(rows: RowSet<'r, 'a>) -> Self {
        LinearRows { scratch: vec![0.0; rows.n_features()], rows }
    }
}

impl UnlabeledKernel for LinearRows<'_, '_> {
    fn size(&self) -> usize {
        self.rows.n_rows()
    }

    fn diagonal(&self) -> Vec<f64> {
        (0..self.rows.n_rows()).map(|u| self.rows.sq_norm(u)).collect()
    }

    fn step(
        &mut self,
        i: usize,
        j: usize,
        cache: &mut [f64],
        decide: &mut dyn FnMut(f64) -> Option<(f64, f64)>,
    ) -> Option<(f64, f64)> {
        self.rows.scatter(j, &mut self.scratch);
        let k_ij = self.rows.dot_dense(i, &self.scratch);
        let (d_i, d_j) = decide(k_ij)?;
        // v = Δ_i x_i + Δ_j x_j
        let mut x_i = vec![0.0; self.scratch.len()];
        self.rows.scatter(i, &mut x_i);
        for (v, &a) in self.scratch.iter_mut().zip(&x_i) {
            *v = d_j * *v + d_i * a;
        }
        let (rows, v) = (self.rows, &self.scratch);
        update_cache(cache, |lo, hi, out| {
            for (u, f) in (lo..hi).zip(out.iter_mut()) {
                *f -= rows.dot_dense(u, v);
            }
        });
        Some((d_i, d_j))
    }

    fn subtract_weighted_columns(&mut self, sigma: &[f64], cache: &mut [f64]) {
        // Σ_v σ_v ⟨x_u, x_v⟩ = ⟨x_u, Σ_v σ_v x_v⟩.
        let d = self.scratch.len();
        let mut w = vec![0.0; d];
        let mut row = vec![0.0; d];
        for (v, &s) in sigma.iter().enumerate() {
            if s != 0.0 {
                self.rows.scatter(v, &mut row);
                for (a, &r) in w.iter_mut().zip(&row) {
                    *a += s * r;
                }
            }
        }
        let rows = self.rows;
        update_cache(cache, |lo, hi, out| {
            for (u, f) in (lo..hi).zip(out.iter_mut()) {
                *f -= rows.dot_dense(u, &w);
            }
        });
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
