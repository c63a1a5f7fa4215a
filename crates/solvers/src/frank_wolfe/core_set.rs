//! The MEB of a subset of the points, solved by the SMO engine: the random-MEB initialisation of
//! every method (digest §2.2, "Option B", as LibCVM does it) and the reduced QP (21) of each CVM
//! iteration (Algorithm 1).
//!
//! `min αᵀK̃_Sα  s.t.  Σα = 1, α ≥ 0` over the points `S` is the [`BoxQp`]
//! `Q = K̃_S, p = 0, y = 1, u = 1` (the bound `α ≤ 1` never binds below the simplex). The SMO
//! engine reads `Q` through [`CoreSetQ`], a [`QMatrix`] view of the shared `f64` column cache
//! restricted to `S` (columns gathered into `f32`, as for every SMO solve). Its stopping test
//! `max_{α_j>0} s_j − min_i s_i ≤ tol` with `s = K̃_Sα` bounds the Frank–Wolfe gap of the subset:
//! `2(R − min s) ≤ 2 tol`, since `R = αᵀs ≤ max_{α_j>0} s_j`.

use kernelkit_kernels::{CacheStats, KernelSource, MebQ, QMatrix, QMatrixPasses};

use crate::box_qp::BoxQp;
use crate::protocol::{Monitor, Solution, SolveError, SolveOptions, Solver};
use crate::smo::Smo;

/// `K̃` restricted to the positions `map` of a [`MebQ`] (see the module documentation).
pub(crate) struct CoreSetQ<'a, K> {
    meb: &'a mut MebQ<K>,
    /// View position → position in `meb`.
    map: Vec<usize>,
    /// Every position of `map` is `< outer_len`: columns are read as `K̃[0..outer_len, i]`.
    outer_len: usize,
    diagonal: Vec<f64>,
    buffers: [Vec<f32>; 2],
    next_buffer: usize,
}

impl<'a, K: KernelSource> CoreSetQ<'a, K> {
    pub fn new(meb: &'a mut MebQ<K>, map: Vec<usize>, outer_len: usize) -> Self {
        debug_assert!(map.iter().all(|&p| p < outer_len));
        let diagonal = map.iter().map(|&p| meb.diagonal()[p]).collect();
        let n = map.len();
        CoreSetQ {
            meb,
            map,
            outer_len,
            diagonal,
            buffers: [vec![0.0; n], vec![0.0; n]],
            next_buffer: 0,
        }
    }

    fn gather(&mut self, i: usize, len: usize, slot: usize) {
        let CoreSetQ { meb, map, outer_len, buffers, .. } = self;
        let column = meb.column(map[i], *outer_len);
        for (b, &p) in buffers[slot][..len].iter_mut().zip(&map[..len]) {
            *b = column[p] as f32;
        }
    }
}

impl<K: KernelSource> QMatrix for CoreSetQ<'_, K> {
    fn size(&self) -> usize {
        self.map.len()
    }

    fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    fn column(&mut self, i: usize, len: usize) -> &[f32] {
        let slot = self.next_buffer;
        self.next_buffer = 1 - slot;
        self.gather(i, len, slot);
        &self.buffers[slot][..len]
    }

    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.gather(i, len, 0);
        self.gather(j, len, 1);
        self.next_buffer = 0;
        (&self.buffers[0][..len], &self.buffers[1][..len])
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.map.swap(i, j);
        self.diagonal.swap(i, j);
    }

    fn cache_stats(&self) -> CacheStats {
        self.meb.cache_stats()
    }
}

impl<K: KernelSource> QMatrixPasses for CoreSetQ<'_, K> {
    fn is_cached(&self, i: usize, _len: usize) -> bool {
        self.meb.is_cached(self.map[i], self.outer_len)
    }
}

/// Where a core-set solve starts: feasible weights (one per position) and, when known, `K̃α`
/// at those positions.
pub(crate) struct WarmStart {
    pub alpha: Vec<f64>,
    pub gradient: Option<Vec<f64>>,
}

/// Solves the MEB of the points at `positions` (all `< outer_len`) from `start` to the SMO
/// tolerance `tol`. Returns the SMO solution, whose `x` follows `positions`.
pub(crate) fn solve_core_set<K: KernelSource>(
    meb: &mut MebQ<K>,
    positions: &[usize],
    outer_len: usize,
    start: WarmStart,
    tol: f64,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Solution, SolveError> {
    let n = positions.len();
    let view = CoreSetQ::new(meb, positions.to_vec(), outer_len);
    let mut problem = BoxQp::new(view, vec![0.0; n], vec![1; n], vec![1.0; n], Some(start.alpha))?;
    problem.gradient0 = start.gradient;
    let inner = SolveOptions { tol, max_iter: None, ..options.clone() };
    Smo.solve(&mut problem, &inner, monitor)
}
