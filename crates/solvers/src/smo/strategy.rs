//! What distinguishes LIBSVM's two solvers, as a compile-time strategy of the one SMO engine.
//!
//! * [`OneEquality`] (LIBSVM's `Solver`): one constraint `yᵀα = Δ`; the working pair may mix
//!   labels.
//! * [`TwoEqualities`] (LIBSVM's `Solver_NU`, Chang & Lin 2001 "Training ν-support vector
//!   classifiers", and Chang & Lin 2011 §4.2): the ν formulations keep `Σ_{y=+1} α` and
//!   `Σ_{y=−1} α` fixed separately, so both indices of a pair carry the same label, the
//!   stopping test is `max(m⁺ − M⁺, m⁻ − M⁻) < tol`, shrinking uses the four per-label
//!   extremes, and the offset comes with a scale `r` (`ρ = (r⁺ − r⁻)/2`, `r = (r⁺ + r⁻)/2`).
//!
//! The engine is generic over the strategy, so no flag is tested in its loops.

use kernelkit_kernels::{Level, PerThread, QMatrixPasses};

use super::state::{Bound, Variables};
use super::working_set::ArgMax;
use super::{rho, shrinking, working_set};

/// The parts of SMO that depend on the equality constraints.
pub(crate) trait Strategy {
    /// What the first scan of the selection finds (its arg-maxima over `I_up`).
    type First: Copy + Send;
    /// The groups of variables a pair may come from (one per equality constraint).
    const GROUPS: &'static [working_set::Labels];
    /// The first scan of an empty range.
    const NO_FIRST: Self::First;

    /// The first scan over the chunk of positions `offset..offset + y.len()`, from slices: it
    /// reads nothing else, so the engine runs it inside the gradient update (one pass instead
    /// of two per iteration).
    fn first_scan(
        simd: Level,
        y: &[i8],
        bound: &[Bound],
        gradient: &[f64],
        offset: usize,
    ) -> Self::First;

    /// Merges the first scans of two consecutive chunks (ties to the later one).
    fn merge_first(earlier: Self::First, later: Self::First) -> Self::First;

    /// The rest of the selection, given the first scan of positions `0..active_size`.
    fn select_after_first<Q: QMatrixPasses>(
        q: &mut Q,
        v: &Variables,
        active_size: usize,
        tol: f64,
        first: Self::First,
    ) -> working_set::Selection;

    /// Selects a working pair on positions `0..active_size` (None: optimal within `tol`).
    fn select<Q: QMatrixPasses>(
        q: &mut Q,
        v: &Variables,
        active_size: usize,
        tol: f64,
    ) -> working_set::Selection {
        let first = working_set::chunked(
            active_size,
            |lo, hi| {
                Self::first_scan(v.simd, &v.y[lo..hi], &v.bound[lo..hi], &v.gradient[lo..hi], lo)
            },
            Self::merge_first,
            Self::NO_FIRST,
        );
        Self::select_after_first(q, v, active_size, tol, first)
    }

    /// The four extremes over positions `0..active_size` that
    /// [`Shrinker::shrink`](super::shrinking::Shrinker::shrink) compares against.
    fn shrink_extremes(v: &Variables, active_size: usize) -> [f64; 4];

    /// `(ρ, r)` from the exact gradient (`r = 1` for one equality).
    fn offset(v: &Variables, len: usize) -> (f64, f64);

    /// The maximal violation over positions `0..len`.
    fn max_violation(v: &Variables, len: usize) -> f64;
}

/// LIBSVM's `Solver`: one equality constraint.
#[derive(Debug)]
pub(crate) struct OneEquality;

impl Strategy for OneEquality {
    type First = ArgMax;
    const GROUPS: &'static [working_set::Labels] = &[working_set::Labels::Both];
    const NO_FIRST: ArgMax = ArgMax::EMPTY;

    fn first_scan(
        simd: Level,
        y: &[i8],
        bound: &[Bound],
        gradient: &[f64],
        offset: usize,
    ) -> ArgMax {
        working_set::max_up(simd, y, bound, gradient, offset, working_set::Labels::Both)
    }

    fn merge_first(earlier: ArgMax, later: ArgMax) -> ArgMax {
        earlier.merge(later)
    }

    fn select_after_first<Q: QMatrixPasses>(
        q: &mut Q,
        v: &Variables,
        active_size: usize,
        tol: f64,
        first: ArgMax,
    ) -> working_set::Selection {
        let ArgMax(g_max, first) = first;
        let Some(i) = first else {
            return working_set::Selection { pair: None, gap: 0.0 };
        };
        super::speculation::prefetch_with_candidates(q, v, active_size, i);
        // Column i not computed at all: scan each window as the pass that computes the column
        // stores it (`QMatrixPasses::column_then`), one synchronisation instead of two. The windows'
        // scans merge in any order to what the chunks merged in order give.
        let scanned = PerThread::new((ArgMax::EMPTY, f64::NEG_INFINITY));
        let then = |c0: usize, q_i: &[f32], _: Option<&[f32]>| {
            let scan = working_set::second_scan(v, q_i, i, g_max, c0, working_set::Labels::Both);
            scanned.add(scan, working_set::merge_second);
        };
        if q.column_then(i, None, active_size, 0, &then) {
            return working_set::selection_from(
                scanned.merged(working_set::merge_second),
                i,
                g_max,
                tol,
            );
        }
        let q_i = q.column(i, active_size);
        working_set::select_second(v, q_i, i, g_max, tol)
    }

    fn shrink_extremes(v: &Variables, active_size: usize) -> [f64; 4] {
        shrinking::extremes(v, active_size)
    }

    fn offset(v: &Variables, len: usize) -> (f64, f64) {
        (rho::calculate_rho(v, len), 1.0)
    }

    fn max_violation(v: &Variables, len: usize) -> f64 {
        working_set::max_violation(v, len)
    }
}

/// LIBSVM's `Solver_NU`: one equality constraint per label.
#[derive(Debug)]
pub(crate) struct TwoEqualities;

impl Strategy for TwoEqualities {
    type First = (ArgMax, ArgMax);
    const GROUPS: &'static [working_set::Labels] =
        &[working_set::Labels::Only(1), working_set::Labels::Only(-1)];
    const NO_FIRST: (ArgMax, ArgMax) = (ArgMax::EMPTY, ArgMax::EMPTY);

    fn first_scan(
        simd: Level,
        y: &[i8],
        bound: &[Bound],
        gradient: &[f64],
        offset: usize,
    ) -> (ArgMax, ArgMax) {
        super::working_set_nu::first_extremes(simd, y, bound, gradient, offset)
    }

    fn merge_first(earlier: (ArgMax, ArgMax), later: (ArgMax, ArgMax)) -> (ArgMax, ArgMax) {
        super::working_set_nu::merge_extremes(earlier, later)
    }

    fn select_after_first<Q: QMatrixPasses>(
        q: &mut Q,
        v: &Variables,
        active_size: usize,
        tol: f64,
        (positive, negative): (ArgMax, ArgMax),
    ) -> working_set::Selection {
        // The columns of the labels that have a first index: both in one pass when both do.
        let (q_ip, q_in) = match (positive.1, negative.1) {
            (Some(ip), Some(i_n)) => {
                let (q_ip, q_in) = q.column_pair(ip, i_n, active_size);
                (Some(q_ip), Some(q_in))
            }
            (Some(ip), None) => (Some(q.column(ip, active_size)), None),
            (None, Some(i_n)) => (None, Some(q.column(i_n, active_size))),
            (None, None) => return working_set::Selection { pair: None, gap: 0.0 },
        };
        super::working_set_nu::select_second(v, (positive, q_ip), (negative, q_in), tol)
    }

    fn shrink_extremes(v: &Variables, active_size: usize) -> [f64; 4] {
        shrinking::extremes_nu(v, active_size)
    }

    fn offset(v: &Variables, len: usize) -> (f64, f64) {
        rho::calculate_rho_nu(v, len)
    }

    fn max_violation(v: &Variables, len: usize) -> f64 {
        super::working_set_nu::max_violation(v, len)
    }
}
