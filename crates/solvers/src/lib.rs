//! # kernelkit-solvers: decomposition solvers for kernel machines
//!
//! * [`protocol`]: the uniform [`Solver`] trait, [`SolveOptions`], [`Solution`], [`Status`] and
//!   the [`Monitor`] that receives [`Progress`] (progress bars, callbacks, Ctrl-C).
//! * [`BoxQp`]: `min ½αᵀQα + pᵀα  s.t.  yᵀα = Δ, 0 ≤ α_i ≤ u_i`, the problem family of the
//!   LIBSVM formulations.
//! * [`Smo`]: the SMO engine of LIBSVM (Fan, Chen & Lin 2005; Chang & Lin 2011), written from
//!   those descriptions: second-order working-set selection, shrinking with gradient
//!   reconstruction, per-variable upper bounds.
//! * [`formulations`]: C-SVC, ν-SVC, ε-SVR, ν-SVR and one-class SVM as a `BoxQp` plus
//!   post-processing.
//! * [`Usmo`]: positive-unlabeled learning with the double hinge loss ([`PuProblem`]).
//! * [`FrankWolfe`]: the L2-SVM as a minimum enclosing ball ([`SimplexQp`]) by the core vector
//!   machine, Frank–Wolfe and away-step Frank–Wolfe.
//! * [`KlrSmo`]: sparse kernel logistic regression ([`KlrProblem`]) by SMO with a second-order
//!   working set and a safeguarded Newton subproblem.
//! * [`Gsmo`]: linear ν-SVR with linear constraints on the weights
//!   ([`ConstrainedSvrProblem`]) by the generalized SMO.
//!
//! * [`aid`]: the Aggregate and Iterative Disaggregate meta-algorithm ([`Aid`]) for LAD
//!   regression, the C-SVM and the semi-supervised SVM, over any inner solver.
//!
//! The crate has no Python dependency.
//!
//! # Example
//!
//! A C-SVC on four rows (RBF kernel, `C = 1`): the dual solution `α` meets the equality
//! `yᵀα = 0` and the box `0 ≤ α ≤ C`, and the decision function
//! `f(x_i) = Σ_j α_j y_j K(x_j, x_i) + b` separates the two classes.
//!
//! ```
//! use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction, KernelSource};
//! use kernelkit_solvers::formulations::c_svc;
//! use kernelkit_solvers::{NoMonitor, SolveOptions, Status};
//!
//! let x = [0.0, 0.0, 0.0, 1.0, 3.0, 3.0, 3.0, 4.0]; // four rows of two features
//! let y = [1i8, 1, -1, -1];
//! let kernel = DenseKernel::new(DenseRows::new(&x, 4, 2)?, KernelFunction::Rbf { gamma: 0.5 })?;
//! let mut gram = [0.0; 16];
//! kernel.fill_block(&[0, 1, 2, 3], 0, 4, &mut gram);
//! let options = SolveOptions { tol: 1e-6, ..SolveOptions::default() };
//! let solution = c_svc(kernel, &y, vec![1.0; 4], &options, &mut NoMonitor)?;
//! assert_eq!(solution.status, Status::Converged);
//! let alpha = &solution.x;
//! assert!(alpha.iter().all(|&a| (0.0..=1.0).contains(&a)));
//! assert!(alpha.iter().zip(&y).map(|(a, &s)| a * f64::from(s)).sum::<f64>().abs() < 1e-12);
//! for i in 0..4 {
//!     let f: f64 = (0..4).map(|j| alpha[j] * f64::from(y[j]) * gram[4 * j + i]).sum::<f64>()
//!         + solution.bias;
//!     assert_eq!(f.signum(), f64::from(y[i]));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The module documentation carries the mathematics and the design, and links into the private
// modules where they live: `cargo doc --document-private-items` (run by `.ci/run` with
// warnings as errors) resolves those links.
#![allow(rustdoc::private_intra_doc_links)]

pub mod aid;
pub mod box_qp;
pub mod constrained_svr;
pub mod formulations;
pub mod frank_wolfe;
pub mod klr;
mod parallel;
pub mod protocol;
pub mod smo;
#[cfg(test)]
#[path = "../tests/common/xorshift.rs"]
mod test_random;
pub mod usmo;

pub use aid::{Aid, AidOptions, AidStatus};
pub use box_qp::{check_symmetric, BoxQp, PreviousSolution};
pub use constrained_svr::{
    Block, ConstrainedSvrProblem, GammaRule, Gsmo, GsmoReport, HistoryPoint, LinearConstraints,
    Method as ConstrainedSvrMethod, MethodPreference as ConstrainedSvrMethodPreference,
    SparseMatrix,
};
pub use frank_wolfe::{
    FrankWolfe, FrankWolfeReport, Method, RadiusRule, SamplePool, SimplexQp, Start,
};
pub use klr::{KlrProblem, KlrReport, KlrSmo, WorkingSetRule};
pub use parallel::{with_thread_pool, PoolLease};
pub use protocol::{
    Control, Engine, Monitor, NoMonitor, Progress, Solution, SolveError, SolveOptions, SolveStats,
    Solver, Status,
};
pub use smo::{NuSmo, Smo};
pub use usmo::{KernelColumns, LinearRows, PuProblem, UnlabeledKernel, Usmo};
