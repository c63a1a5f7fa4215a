//! The entry point of the constrained linear ν-SVR (`kernelkit.ConstrainedSVR`).

use kernelkit_kernels::DenseRows;
use kernelkit_solvers::{
    ConstrainedSvrMethod, ConstrainedSvrMethodPreference, ConstrainedSvrProblem, GammaRule, Gsmo,
    GsmoReport, LinearConstraints, SparseMatrix,
};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{matrix, vector};
use crate::errors::{parse_choice, CoreError};
use crate::options::parse_options;
use crate::solve::{run_with_extra, Solution, WithPath};

/// Compressed-row indices from NumPy (`int64`), checked to be non-negative.
fn indices(array: &PyReadonlyArray1<'_, i64>, name: &str) -> PyResult<Vec<usize>> {
    array
        .as_array()
        .iter()
        .map(|&v| {
            usize::try_from(v)
                .map_err(|_| PyValueError::new_err(format!("{name} has a negative entry {v}")))
        })
        .collect()
}

/// One constraint block `M β (≤ or =) rhs` from its CSR arrays.
fn constraints(
    names: (&'static str, &'static str),
    n_features: usize,
    csr: (PyReadonlyArray1<'_, i64>, PyReadonlyArray1<'_, i64>, PyReadonlyArray1<'_, f64>),
    rhs: PyReadonlyArray1<'_, f64>,
) -> PyResult<LinearConstraints> {
    let (indptr, columns, values) = csr;
    let matrix = SparseMatrix::from_csr(
        names.0,
        n_features,
        indices(&indptr, names.0)?,
        indices(&columns, names.0)?,
        vector(&values).into_owned(),
    )
    .map_err(CoreError::from)?;
    Ok(LinearConstraints::new(names.0, names.1, matrix, vector(&rhs).into_owned(), n_features)
        .map_err(CoreError::from)?)
}

/// The accepted values of `solve_constrained_svr`'s `gamma_rule` and `method`
/// ([`parse_choice`]).
const GAMMA_RULES: &[(&str, GammaRule)] =
    &[("projected", GammaRule::ProjectedGradient), ("paper", GammaRule::Paper)];
const METHODS: &[(&str, ConstrainedSvrMethodPreference)] = &[
    ("auto", ConstrainedSvrMethodPreference::Auto),
    ("gsmo", ConstrainedSvrMethodPreference::Gsmo),
    ("interior_point", ConstrainedSvrMethodPreference::InteriorPoint),
];

/// Solves the constrained ν-SVR on dense `x` (n × p) with scikit-learn's `c`; `A` and `Γ` are
/// given as CSR arrays (indptr, indices, data); `method` is `"auto"`, `"gsmo"` or
/// `"interior_point"` (the core decides for `"auto"`, and `solver_stats["method"]` says which
/// ran). Returns the solution (`x` = α, α*, γ, μ; `bias` = β0), β, ε, and the history
/// (`objective`, `violation`, `block` arrays) when asked.
#[pyfunction]
#[pyo3(signature = (
    x, y, c, nu, a_indptr, a_indices, a_data, b, gamma_indptr, gamma_indices, gamma_data, d,
    gamma_rule="projected", record_history=false, method="auto", **options
))]
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
pub(crate) fn solve_constrained_svr(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    c: f64,
    nu: f64,
    a_indptr: PyReadonlyArray1<'_, i64>,
    a_indices: PyReadonlyArray1<'_, i64>,
    a_data: PyReadonlyArray1<'_, f64>,
    b: PyReadonlyArray1<'_, f64>,
    gamma_indptr: PyReadonlyArray1<'_, i64>,
    gamma_indices: PyReadonlyArray1<'_, i64>,
    gamma_data: PyReadonlyArray1<'_, f64>,
    d: PyReadonlyArray1<'_, f64>,
    gamma_rule: &str,
    record_history: bool,
    method: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Solution, Py<PyArray1<f64>>, f64, Option<Py<PyDict>>)> {
    let gamma_rule = parse_choice("gamma_rule", gamma_rule, GAMMA_RULES)?;
    let preference = parse_choice("method", method, METHODS)?;
    let options = parse_options(options)?;
    let x = matrix(&x);
    let p = x.cols;
    let inequalities = constraints(("A", "b"), p, (a_indptr, a_indices, a_data), b)?;
    let equalities = constraints(("Gamma", "d"), p, (gamma_indptr, gamma_indices, gamma_data), d)?;
    let targets = vector(&y);
    let rows = DenseRows::new(&x.values, x.rows, x.cols).map_err(CoreError::from)?;
    let solver = Gsmo { gamma_rule, record_history };
    let (solution, (report, method)): (Solution, (GsmoReport, ConstrainedSvrMethod)) =
        run_with_extra(py, options, |opts, monitor| {
            let mut problem = ConstrainedSvrProblem::new(
                rows,
                &targets,
                c,
                nu,
                inequalities,
                equalities,
                opts.cache_bytes,
            )?;
            let path = problem.kernel_path();
            let (solution, report, method) = ConstrainedSvrMethod::choose_and_solve(
                preference,
                &solver,
                &mut problem,
                opts,
                monitor,
            )?;
            Ok((solution.with_path(path), (report, method)))
        })?;
    let stats = solution.stats.bind(py);
    stats.set_item("method", method.as_str())?;
    for (name, count) in
        ["alpha_steps", "alpha_star_steps", "gamma_steps", "mu_steps"].iter().zip(report.steps)
    {
        stats.set_item(*name, count)?;
    }
    let history = if record_history {
        let dict = PyDict::new(py);
        let points = &report.history;
        let objective: Vec<f64> = points.iter().map(|h| h.objective).collect();
        let violation: Vec<f64> = points.iter().map(|h| h.violation).collect();
        let block: Vec<f64> =
            points.iter().map(|h| h.block.map_or(0.0, |b| b as u8 as f64)).collect();
        dict.set_item("objective", PyArray1::from_vec(py, objective))?;
        dict.set_item("violation", PyArray1::from_vec(py, violation))?;
        dict.set_item("block", PyArray1::from_vec(py, block))?;
        Some(dict.unbind())
    } else {
        None
    };
    let coef = PyArray1::from_vec(py, report.coef).unbind();
    Ok((solution, coef, report.epsilon, history))
}
