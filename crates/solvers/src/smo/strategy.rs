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

use kernelkit_kernels::QMatrix;

use super::shrinking::Shrinker;
use super::state::Variables;
use super::{rho, working_set};

/// The parts of SMO that depend on the equality constraints.
pub(crate) trait Strategy {
    /// Selects a working pair on positions `0..active_size` (None: optimal within `tol`).
    fn select<Q: QMatrix>(
        q: &mut Q,
        v: &Variables,
        active_size: usize,
        tol: f64,
    ) -> working_set::Selection;

    /// Shrinks the active set; returns its new size.
    fn shrink<Q: QMatrix>(
        shrinker: &mut Shrinker,
        q: &mut Q,
        v: &mut Variables,
        active_size: usize,
        tol: f64,
    ) -> usize;

    /// `(ρ, r)` from the exact gradient (`r = 1` for one equality).
    fn offset(v: &Variables, len: usize) -> (f64, f64);

    /// The maximal violation over positions `0..len`.
    fn max_violation(v: &Variables, len: usize) -> f64;
}

/// LIBSVM's `Solver`: one equality constraint.
#[derive(Debug)]
pub(crate) struct OneEquality;

impl Strategy for OneEquality {
    fn select<Q: QMatrix>(
        q: &mut Q,
        v: &Variables,
        active_size: usize,
        tol: f64,
    ) -> working_set::Selection {
        let (first, g_max) = working_set::select_first(v, active_size);
        let Some(i) = first else {
            return working_set::Selection { pair: None, gap: 0.0 };
        };
        let q_i = q.column(i, active_size);
        working_set::select_second(v, q_i, i, g_max, tol)
    }

    fn shrink<Q: QMatrix>(
        shrinker: &mut Shrinker,
        q: &mut Q,
        v: &mut Variables,
        active_size: usize,
        tol: f64,
    ) -> usize {
        shrinker.shrink(q, v, active_size, tol)
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
    fn select<Q: QMatrix>(
        q: &mut Q,
        v: &Variables,
        active_size: usize,
        tol: f64,
    ) -> working_set::Selection {
        let (positive, negative) = super::working_set_nu::select_first(v, active_size);
        match (positive.1, negative.1) {
            (Some(ip), Some(i_n)) => {
                let (q_ip, q_in) = q.column_pair(ip, i_n, active_size);
                super::working_set_nu::select_second(
                    v,
                    (positive, Some(q_ip)),
                    (negative, Some(q_in)),
                    tol,
                )
            }
            (Some(ip), None) => {
                let q_ip = q.column(ip, active_size);
                super::working_set_nu::select_second(
                    v,
                    (positive, Some(q_ip)),
                    (negative, None),
                    tol,
                )
            }
            (None, Some(i_n)) => {
                let q_in = q.column(i_n, active_size);
                super::working_set_nu::select_second(
                    v,
                    (positive, None),
                    (negative, Some(q_in)),
                    tol,
                )
            }
            (None, None) => working_set::Selection { pair: None, gap: 0.0 },
        }
    }

    fn shrink<Q: QMatrix>(
        shrinker: &mut Shrinker,
        q: &mut Q,
        v: &mut Variables,
        active_size: usize,
        tol: f64,
    ) -> usize {
        shrinker.shrink_nu(q, v, active_size, tol)
    }

    fn offset(v: &Variables, len: usize) -> (f64, f64) {
        rho::calculate_rho_nu(v, len)
    }

    fn max_violation(v: &Variables, len: usize) -> f64 {
        super::working_set_nu::max_violation(v, len)
    }
}
