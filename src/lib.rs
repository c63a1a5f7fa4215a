//! `kernelkit._core`: the Python binding of the kernelkit crates.
//!
//! The glue only converts arrays ([`arrays`]), releases the GIL around the Rust work, bridges
//! progress, callbacks and Ctrl-C ([`progress`]), and maps errors ([`errors`]).

mod aid;
mod aid_steps;
mod arrays;
mod callable;
mod constrained_svr;
mod errors;
mod kernel;
mod options;
mod pairs;
mod progress;
mod repeats;
mod solve;
mod sparse;
mod subsets;

use pyo3::prelude::*;

/// The SIMD levels this CPU supports, lowest first, and the one the loops run at
/// (`KERNELKIT_SIMD` caps it; see `kernelkit_kernels::level`).
#[pyfunction]
fn simd_levels() -> PyResult<(Vec<&'static str>, &'static str)> {
    use kernelkit_kernels::Level;
    Level::check_env().map_err(pyo3::exceptions::PyValueError::new_err)?;
    Ok((Level::supported().map(Level::name).collect(), Level::current().name()))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<kernel::Kernel>()?;
    m.add_class::<solve::Solution>()?;
    m.add_class::<progress::StopFlag>()?;
    m.add_class::<sparse::CsrMatrix>()?;
    m.add_class::<subsets::DenseRowFacts>()?;
    m.add_class::<subsets::RowSubset>()?;
    m.add_class::<aid_steps::AidDriver>()?;
    m.add_function(wrap_pyfunction!(simd_levels, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::kernel_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(repeats::first_occurrences, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::kernel_matrix_product, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_c_svc, m)?)?;
    m.add_function(wrap_pyfunction!(pairs::solve_c_svc_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_one_class, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_epsilon_svr, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_box_qp, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_nu_svc, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_nu_svr, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_pu, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_frank_wolfe, m)?)?;
    m.add_function(wrap_pyfunction!(constrained_svr::solve_constrained_svr, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_klr, m)?)?;
    m.add_function(wrap_pyfunction!(aid::aid_lad, m)?)?;
    m.add_function(wrap_pyfunction!(aid::aid_svm, m)?)?;
    m.add_function(wrap_pyfunction!(aid::aid_s3vm, m)?)?;
    m.add_function(wrap_pyfunction!(aid::aggregated_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(aid::solve_weighted_lad, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_initial_sample, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_random_labels, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_cluster_shares, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_kmeans_positions, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_kmeans_seed, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_kmeans_assign, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_s3vm_search, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_evaluate_block, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_key_sums, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_split, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_kmeans_centres, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_svm_aggregated, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_svm_aggregated_objective, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_kernel_certifies, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_svm_tightened_tol, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_lad_residuals, m)?)?;
    m.add_function(wrap_pyfunction!(aid_steps::aid_sample_decision, m)?)?;
    m.add_function(wrap_pyfunction!(progress::_panic_in_solver_thread, m)?)?;
    m.add_function(wrap_pyfunction!(progress::_simulate_interrupt_at, m)?)?;
    Ok(())
}
