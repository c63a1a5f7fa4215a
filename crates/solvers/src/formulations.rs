//! The LIBSVM formulations as a [`BoxQp`] plus post-processing (Chang & Lin 2011, §2).
//!
//! | formulation | `Q` | `p` | `y` | `u_i` | `α⁰` |
//! |---|---|---|---|---|---|
//! | C-SVC | `y_i y_j K_ij` | `−e` | labels | `C·w_{y_i}·s_i` | `0` |
//! | one-class | `K_ij` | `0` | `+e` | `s_i` | `Σα⁰ = ν Σ s_i`, filled greedily |
//! | ε-SVR | `[K −K; −K K]` | `(ε − z, ε + z)` | `(+e, −e)` | `C·s_i` twice | `0` |
//!
//! | ν-SVC | `y_i y_j K_ij` | `0` | labels | `s_i` | `Σ_{y=±1} α⁰ = ν Σ s / 2` each, greedily |
//! | ν-SVR | `[K −K; −K K]` | `(−z, z)` | `(+e, −e)` | `C·s_i` twice | `α⁰_i = α*⁰_i`, `Σ = C ν Σ s / 2` |
//!
//! (`w`: class weights, `s`: sample weights, `z`: regression targets.) The ν formulations are
//! solved by [`NuSmo`] (two equality constraints). ν-SVC's solution is rescaled by the `r` the
//! solver returns (Chang & Lin 2001): `α ← α / r`, `ρ ← ρ / r`, objective `← objective / r²`,
//! which is the C-SVC solution for `C = 1/r`; ν-SVR's tube width is `ε = −r`. As in LIBSVM (and
//! scikit-learn), class weights do not enter ν-SVC. The one-class starting
//! point puts `α_i = min(u_i, remaining)` on the first variables until `Σα = ν Σ u_i`, as
//! scikit-learn's LIBSVM does (with unit weights: `α_i = 1` for `i < ⌊νl⌋` and the fraction on
//! the next one, LIBSVM's rule). The ε-SVR solution is returned as `β = α − α*`.
//!
//! **The returned gradients.** C-SVC and one-class solutions return the dual's gradient
//! `Qx + p`; ν-SVC's returns `Qx` for its rescaled `x = α/r` (its `p` is 0, so the unscaled
//! solve's `Qα` divided by `r`), and a warm start takes it back unscaled, `(α', Qα')`.
//!
//! **The SVR gradients.** The regressions' `Q(α, α*)` is `(Kβ, −Kβ)`: it depends on `β` only,
//! so their solutions return the gradient as `Kβ` (length `l`: the decision values at the
//! training rows less the bias), and a warm start takes a previous solve as `(β', Kβ')`
//! ([`svr_previous`]): the `2l` gradient `(Kβ' + p₊, −Kβ' + p₋)` at `(β'⁺, β'⁻)`, valid
//! whatever the targets and `ε` (they enter `p` only), and updated by the columns of the
//! variables the start moved from that split.

//! **A warm start whose optimum is degenerate is solved again cold.** Where no variable of the
//! optimum lies strictly inside its box (an ε-SVR whose tube holds every target, so `β = 0`; a
//! ν formulation whose `ν Σ s` is a whole number of bounds), every offset of an interval is
//! optimal and LIBSVM takes its midpoint; but a variable that the rounding of the pair steps
//! leaves within an ulp of its bound counts as free and moves the offset to the end of the
//! interval. Which such residues a solve leaves depends on its path: a warm start, which must
//! bring its variables back to their bounds, keeps some where the cold start keeps none (and
//! the cold start, LIBSVM's, keeps some of its own), so the two models would predict apart
//! (an ε-SVR on targets within ±1.3 refitted from ε = 0.1 to 5: offset 3.79 warm, −0.018
//! cold). A solve from a given `alpha0` that converges to such an optimum (every variable
//! within `1e-12` of a bound, relative to the bound; for the ν formulations, whose offsets
//! `r±` are each label's, every variable of one label) is therefore solved again from the
//! formulation's cold start ([`solve_or_restart_cold`], `SolveStats::restarted_cold`), so a
//! warm fit always gives the cold fit's model.

use kernelkit_kernels::{KernelSource, QMatrix, QMatrixPasses, SignedQ, SvrQ};

use crate::box_qp::{BoxQp, PreviousSolution};
use crate::protocol::{Monitor, Solution, SolveError, SolveOptions, Solver, Status};
use crate::smo::{NuSmo, Smo};

/// C-SVC: `x` of the solution is `α ≥ 0` (the dual coefficients are `y_i α_i`).
pub fn c_svc<K: KernelSource>(
    kernel: K,
    labels: &[i8],
    upper: Vec<f64>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Solution, SolveError> {
    c_svc_from(kernel, labels, upper, None, None, options, monitor)
}

/// C-SVC started from a feasible `alpha0` (`0 ≤ α⁰ ≤ upper`; the equality `yᵀα = yᵀα⁰` is
/// the one `alpha0` satisfies): the warm start AID's aggregated SVM uses (Park, Zhang & Sun,
/// §4), exposed so that a distributed AID solves the same problem from the same point.
/// `None` is [`c_svc`]'s cold start `α = 0`. With `previous` (a solve of the same kernel and
/// labels), the initial gradient is that solution's, updated by the columns of the variables
/// where `alpha0` differs from it (`BoxQp::gradient0_at`).
pub fn c_svc_from<K: KernelSource>(
    kernel: K,
    labels: &[i8],
    upper: Vec<f64>,
    alpha0: Option<Vec<f64>>,
    previous: Option<PreviousSolution>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Solution, SolveError> {
    check_len("y", kernel.len(), labels.len())?;
    let signs = labels.iter().map(|&y| f64::from(y)).collect();
    let n = kernel.len();
    let cold = alpha0.is_some().then(|| vec![0.0; n]);
    let q = SignedQ::new(kernel, signs, options.cache_bytes);
    let mut problem =
        BoxQp::new(q, vec![-1.0; n], labels.to_vec(), upper, alpha0)?.with_previous(previous)?;
    smo_or_restart_cold(&mut problem, cold, options, monitor)
}

/// One-class SVM with parameter `ν ∈ (0, 1]` and per-sample bounds `upper` (sample weights).
pub fn one_class<K: KernelSource>(
    kernel: K,
    nu: f64,
    upper: Vec<f64>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Solution, SolveError> {
    one_class_from(kernel, nu, upper, None, None, options, monitor)
}

/// [`one_class`] started from `alpha0` (a warm start: `0 ≤ α⁰ ≤ upper` with
/// `Σα⁰ = ν Σ upper`), or from LIBSVM's greedy point when `None`; `previous` as for
/// [`c_svc_from`].
pub fn one_class_from<K: KernelSource>(
    kernel: K,
    nu: f64,
    upper: Vec<f64>,
    alpha0: Option<Vec<f64>>,
    previous: Option<PreviousSolution>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Solution, SolveError> {
    check_nu(nu)?;
    let n = kernel.len();
    check_len("sample bounds", n, upper.len())?;
    // Σ u_i ν accumulated term by term, as scikit-learn's LIBSVM does (the rounding of this sum
    // decides the last, fractional, starting value).
    let total: f64 = upper.iter().fold(0.0, |sum, &u| sum + u * nu);
    let greedy = || {
        let mut remaining = total;
        let mut alpha0 = vec![0.0; n];
        for (a, &u) in alpha0.iter_mut().zip(&upper) {
            if remaining <= 0.0 {
                break;
            }
            *a = u.min(remaining);
            remaining -= *a;
        }
        alpha0
    };
    let (alpha0, cold) = match alpha0 {
        Some(alpha0) => {
            check_len("alpha0", n, alpha0.len())?;
            check_sum("the sum of alpha0", alpha0.iter().sum(), total)?;
            (alpha0, Some(greedy()))
        }
        None => (greedy(), None),
    };
    let q = SignedQ::unsigned(kernel, options.cache_bytes);
    let mut problem =
        BoxQp::new(q, vec![0.0; n], vec![1; n], upper, Some(alpha0))?.with_previous(previous)?;
    smo_or_restart_cold(&mut problem, cold, options, monitor)
}

/// ε-SVR with targets `z` and per-sample bounds `upper` (`C` × sample weights). The solution's
/// `x` is `β = α − α*` (length `l`).
pub fn epsilon_svr<K: KernelSource>(
    kernel: K,
    targets: &[f64],
    epsilon: f64,
    upper: Vec<f64>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Solution, SolveError> {
    epsilon_svr_from(kernel, targets, epsilon, upper, None, None, options, monitor)
}

/// [`epsilon_svr`] started from `alpha0 = (α⁰, α*⁰)` of length `2l` (a warm start:
/// `0 ≤ α⁰, α*⁰ ≤ upper`, `Σα⁰ = Σα*⁰`), or from 0 when `None`. With `previous = (β', Kβ')`
/// (a solve of the same rows and kernel), the initial gradient is updated from it (the module
/// docs, "The SVR gradients").
#[allow(clippy::too_many_arguments)]
pub fn epsilon_svr_from<K: KernelSource>(
    kernel: K,
    targets: &[f64],
    epsilon: f64,
    upper: Vec<f64>,
    alpha0: Option<Vec<f64>>,
    previous: Option<PreviousSolution>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Solution, SolveError> {
    if !(epsilon.is_finite() && epsilon >= 0.0) {
        return Err(SolveError::invalid(
            "epsilon",
            format!("epsilon = {epsilon} must be finite and >= 0"),
        ));
    }
    let l = kernel.len();
    check_regression(l, targets, &upper)?;
    let p: Vec<f64> =
        targets.iter().map(|z| epsilon - z).chain(targets.iter().map(|z| epsilon + z)).collect();
    let (y, upper2) = svr_labels_and_bounds(&upper);
    if let Some(alpha0) = &alpha0 {
        check_len("alpha0", 2 * l, alpha0.len())?;
        let (above, below) = alpha0.split_at(l);
        check_sum("the sum of alpha0 minus alpha0*", above.iter().sum(), below.iter().sum())?;
    }
    let previous = svr_previous(previous, &p)?;
    let cold = alpha0.is_some().then(|| vec![0.0; 2 * l]);
    let q = SvrQ::new(kernel, options.cache_bytes);
    let mut problem = BoxQp::new(q, p, y, upper2, alpha0)?.with_previous(previous)?;
    let mut solution = smo_or_restart_cold(&mut problem, cold, options, monitor)?;
    solution.x = alpha_minus_alpha_star(&solution.x);
    solution.gradient = solution.gradient.map(|g| kernel_part(&g, &problem.p));
    Ok(solution)
}

/// The `2l`-variable previous solve of an SVR dual with linear term `p` from `(β', Kβ')`
/// (the module docs, "The SVR gradients"); `previous` must have `l` values in each part.
fn svr_previous(
    previous: Option<PreviousSolution>,
    p: &[f64],
) -> Result<Option<PreviousSolution>, SolveError> {
    let Some(PreviousSolution { x: beta, gradient: k_beta }) = previous else { return Ok(None) };
    let l = p.len() / 2;
    check_len("previous", l, beta.len())?;
    check_len("previous", l, k_beta.len())?;
    let (above, below) = p.split_at(l);
    Ok(Some(PreviousSolution {
        x: beta.iter().map(|b| b.max(0.0)).chain(beta.iter().map(|b| (-b).max(0.0))).collect(),
        gradient: k_beta
            .iter()
            .zip(above)
            .map(|(f, p)| f + p)
            .chain(k_beta.iter().zip(below).map(|(f, p)| p - f))
            .collect(),
    }))
}

/// `Kβ` from the gradient `(Kβ + p₊, −Kβ + p₋)` of an SVR dual's `2l` variables.
fn kernel_part(gradient: &[f64], p: &[f64]) -> Vec<f64> {
    let l = p.len() / 2;
    gradient[..l].iter().zip(&p[..l]).map(|(g, p)| g - p).collect()
}

/// The checks of both regressions' data: `l` targets, all finite, and `l` sample bounds.
fn check_regression(l: usize, targets: &[f64], upper: &[f64]) -> Result<(), SolveError> {
    check_len("y", l, targets.len())?;
    check_len("sample bounds", l, upper.len())?;
    if let Some(i) = targets.iter().position(|z| !z.is_finite()) {
        return Err(SolveError::invalid("y", format!("y[{i}] is not finite")));
    }
    Ok(())
}

/// The labels `(+e, −e)` and the bounds `(upper, upper)` of the `2l` variables `(α, α*)` of an
/// SVR dual.
fn svr_labels_and_bounds(upper: &[f64]) -> (Vec<i8>, Vec<f64>) {
    let l = upper.len();
    let y = std::iter::repeat_n(1i8, l).chain(std::iter::repeat_n(-1i8, l)).collect();
    (y, upper.iter().chain(upper).copied().collect())
}

/// `β = α − α*` from the `2l` variables `(α, α*)` of an SVR dual.
fn alpha_minus_alpha_star(x: &[f64]) -> Vec<f64> {
    let (alpha, alpha_star) = x.split_at(x.len() / 2);
    alpha.iter().zip(alpha_star).map(|(a, b)| a - b).collect()
}

/// A warm start's equality constraint: `value` must be `target` up to rounding (`1e-9` of the
/// larger magnitude, at least `1e-9`), else the start would define another problem.
fn check_sum(what: &str, value: f64, target: f64) -> Result<(), SolveError> {
    if (value - target).abs() <= 1e-9 * value.abs().max(target.abs()).max(1.0) {
        Ok(())
    } else {
        Err(SolveError::invalid(
            "alpha0",
            format!("{what} is {value}, not {target} as the constraints require"),
        ))
    }
}

fn check_len(name: &'static str, expected: usize, actual: usize) -> Result<(), SolveError> {
    if expected == actual {
        Ok(())
    } else {
        Err(SolveError::LengthMismatch { name, expected, actual })
    }
}

/// ν-SVC with per-sample bounds `upper` (sample weights). Returns the solution rescaled to the
/// C-SVC form (`x = α/r ≥ 0`, dual coefficients `y_i x_i`; `bias = −ρ/r`) and `r`.
pub fn nu_svc<K: KernelSource>(
    kernel: K,
    labels: &[i8],
    nu: f64,
    upper: Vec<f64>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, f64), SolveError> {
    nu_svc_from(kernel, labels, nu, upper, None, None, options, monitor)
}

/// [`nu_svc`] started from the unscaled `alpha0` (a warm start: `0 ≤ α⁰ ≤ upper` with
/// `Σ_{y=±1} α⁰ = ν Σ upper / 2` on each side), or from LIBSVM's greedy point when `None`.
/// With `previous = (α', Qα')`, an earlier solve's solution and gradient unscaled (its `x` and
/// `gradient` times its `r`: `p = 0`, so the gradient scales with the point), the initial
/// gradient is updated from it as in [`c_svc_from`].
#[allow(clippy::too_many_arguments)]
pub fn nu_svc_from<K: KernelSource>(
    kernel: K,
    labels: &[i8],
    nu: f64,
    upper: Vec<f64>,
    alpha0: Option<Vec<f64>>,
    previous: Option<PreviousSolution>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, f64), SolveError> {
    nu_svc_solve(kernel, labels, nu, upper, alpha0, previous, false, options, monitor)
}

/// [`nu_svc`] as LIBSVM's solver runs it on a problem that `svm_check_parameter` never saw:
/// the cross-validation folds of its probability estimates (`svm_binary_svc_probability`
/// trains each fold with `svm_train` directly). A fold holds four fifths of a pair's rows, so
/// a `ν` feasible for the pair, `ν Σw / 2 ≤ min(Σ_{y=+1} w, Σ_{y=−1} w)`, can ask more of a
/// fold's smaller class than its weight. LIBSVM's greedy start then puts every variable of
/// that class at its bound and the sum falls short; since each ν-SVC step moves two variables
/// of one class, the class stays there, and the solve is that of the sums
/// `min(ν Σw / 2, Σ_class w)`, which this solves (where [`nu_svc`] reports `nu` infeasible).
/// That class has no free variable, so its offset `r±` is only bounded on one side: LIBSVM
/// takes the midpoint with infinity, and its fold model is NaN; this takes the finite end (the
/// degenerate case of `calculate_rho_nu`), so the fold decides with finite values. A fold whose
/// optimum has no positive scale `r` (where [`nu_svc`] reports `nu` invalid and LIBSVM's
/// division flips the sign) is the zero function (`w = 0`, see the body), returned as `x = 0`,
/// bias 0, scale 0; a positive `r`, however small, scales the fold as LIBSVM does.
pub fn nu_svc_capped<K: KernelSource>(
    kernel: K,
    labels: &[i8],
    nu: f64,
    upper: Vec<f64>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, f64), SolveError> {
    nu_svc_solve(kernel, labels, nu, upper, None, None, true, options, monitor)
}

/// [`nu_svc_from`], or with `capped` [`nu_svc_capped`]'s sums.
#[allow(clippy::too_many_arguments)]
fn nu_svc_solve<K: KernelSource>(
    kernel: K,
    labels: &[i8],
    nu: f64,
    upper: Vec<f64>,
    alpha0: Option<Vec<f64>>,
    previous: Option<PreviousSolution>,
    capped: bool,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, f64), SolveError> {
    check_nu(nu)?;
    let n = kernel.len();
    check_len("y", n, labels.len())?;
    check_len("sample bounds", n, upper.len())?;
    let total: f64 = upper.iter().fold(0.0, |sum, &u| sum + nu * u);
    let (positive, negative): (f64, f64) = labels.iter().zip(&upper).fold(
        (0.0, 0.0),
        |(p, m), (&y, &u)| {
            if y == 1 {
                (p + u, m)
            } else {
                (p, m + u)
            }
        },
    );
    if !capped && total / 2.0 > positive.min(negative) {
        return Err(SolveError::invalid(
            "nu",
            format!(
                "specified nu = {nu} is infeasible: nu must be <= 2 min(n+, n-) / n (weighted)"
            ),
        ));
    }
    let greedy = || {
        let mut remaining = [total / 2.0, total / 2.0];
        labels
            .iter()
            .zip(&upper)
            .map(|(&y, &u)| {
                let side = usize::from(y != 1);
                let a = u.min(remaining[side]).max(0.0);
                remaining[side] -= a;
                a
            })
            .collect::<Vec<f64>>()
    };
    let (alpha0, cold) = match alpha0 {
        Some(alpha0) => {
            check_len("alpha0", n, alpha0.len())?;
            for side in [1, -1] {
                let sum = labels.iter().zip(&alpha0).filter(|(&y, _)| y == side).map(|(_, a)| a);
                check_sum("the sum of alpha0 over one class", sum.sum(), total / 2.0)?;
            }
            (alpha0, Some(greedy()))
        }
        None => (greedy(), None),
    };
    let signs = labels.iter().map(|&y| f64::from(y)).collect();
    let q = SignedQ::new(kernel, signs, options.cache_bytes);
    let mut problem = BoxQp::new(q, vec![0.0; n], labels.to_vec(), upper, Some(alpha0))?
        .with_previous(previous)?;
    let (mut solution, mut r) = nu_smo_or_restart_cold(&mut problem, cold, options, monitor)?;
    if capped && solution.status == Status::Converged && !(r.is_finite() && r > 0.0) {
        // A fold's optimum without a positive scale. In the primal, ρν = ‖w‖² + Σξ/l (ρ = r;
        // Chang & Lin 2001), so r ≤ 0 means w = 0 up to the solve's precision: the fold's
        // model is the zero function, whose sign LIBSVM's division by r flips (a linear fold
        // whose r came out −5e-6 gave decision values of −1e5 times the rows' own). It is
        // returned as such, deciding 0, undecided (as LIBSVM decides a fold without training
        // rows). With an indefinite kernel (sigmoid) r can be clearly negative; the fold has
        // no scale either. A positive r is divided by as LIBSVM does, however small: the
        // sigmoid fit takes any scale, and a fold with r below `tol` can still order its rows
        // (an RBF fold with r = 1.4e-4 at `tol=1e-3` was 77–80 % right on its held-out rows;
        // zeroed, as when every r ≤ `tol` was, its probabilities were flat).
        solution.x.iter_mut().for_each(|a| *a = 0.0);
        solution.gradient = None;
        solution.bias = 0.0;
        solution.objective = 0.0;
        return Ok((solution, 0.0));
    }
    if !(r.is_finite() && r > 0.0) {
        if solution.status == Status::Converged {
            // r = 0: w = 0 at the optimum, the rows give the classes no direction apart,
            // whatever `nu` (identical rows in both classes, or a kernel constant on them:
            // `gamma` near 0, or rows too small for it); r < 0: an indefinite kernel.
            return Err(SolveError::invalid(
                "nu",
                format!(
                    "the nu-SVC solution has a non-positive scale r = {r}: the kernel gives the \
                     classes no separating direction (w = 0: identical rows in both classes, or \
                     a kernel constant on these rows, as with gamma near 0 or values too small), \
                     or the kernel is not positive semidefinite (poly, sigmoid), where another \
                     nu or kernel may do"
                ),
            ));
        }
        // An iterate stopped early (limit, callback) may not have a positive scale yet; it is
        // returned unscaled, which keeps the sign of its decision function.
        r = 1.0;
    }
    for a in solution.x.iter_mut().chain(solution.gradient.iter_mut().flatten()) {
        *a /= r;
    }
    solution.bias /= r;
    solution.objective /= r * r;
    Ok((solution, r))
}

/// ν-SVR with targets `z` and per-sample bounds `upper` (`C` × sample weights). Returns the
/// solution with `x = α − α*` and the tube width `ε = −r`.
pub fn nu_svr<K: KernelSource>(
    kernel: K,
    targets: &[f64],
    nu: f64,
    upper: Vec<f64>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, f64), SolveError> {
    nu_svr_from(kernel, targets, nu, upper, None, None, options, monitor)
}

/// [`nu_svr`] started from `alpha0 = (α⁰, α*⁰)` of length `2l` (a warm start:
/// `0 ≤ α⁰, α*⁰ ≤ upper`, `Σα⁰ = Σα*⁰ = ν Σ upper / 2`), or from LIBSVM's greedy point when
/// `None`; `previous = (β', Kβ')` as for [`epsilon_svr_from`].
#[allow(clippy::too_many_arguments)]
pub fn nu_svr_from<K: KernelSource>(
    kernel: K,
    targets: &[f64],
    nu: f64,
    upper: Vec<f64>,
    alpha0: Option<Vec<f64>>,
    previous: Option<PreviousSolution>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, f64), SolveError> {
    check_nu(nu)?;
    let l = kernel.len();
    check_regression(l, targets, &upper)?;
    let half_sum = upper.iter().fold(0.0, |sum, &u| sum + u * nu) / 2.0;
    let greedy = || {
        let mut remaining = half_sum;
        let half: Vec<f64> = upper
            .iter()
            .map(|&u| {
                let a = remaining.min(u).max(0.0);
                remaining -= a;
                a
            })
            .collect();
        half.iter().chain(&half).copied().collect::<Vec<f64>>()
    };
    let (alpha0, cold) = match alpha0 {
        Some(alpha0) => {
            check_len("alpha0", 2 * l, alpha0.len())?;
            let (above, below) = alpha0.split_at(l);
            check_sum("the sum of alpha0", above.iter().sum(), half_sum)?;
            check_sum("the sum of alpha0*", below.iter().sum(), half_sum)?;
            (alpha0, Some(greedy()))
        }
        None => (greedy(), None),
    };
    let p: Vec<f64> = targets.iter().map(|z| -z).chain(targets.iter().copied()).collect();
    let (y, upper2) = svr_labels_and_bounds(&upper);
    let previous = svr_previous(previous, &p)?;
    let q = SvrQ::new(kernel, options.cache_bytes);
    let mut problem = BoxQp::new(q, p, y, upper2, Some(alpha0))?.with_previous(previous)?;
    let (mut solution, r) = nu_smo_or_restart_cold(&mut problem, cold, options, monitor)?;
    solution.x = alpha_minus_alpha_star(&solution.x);
    solution.gradient = solution.gradient.map(|g| kernel_part(&g, &problem.p));
    Ok((solution, -r))
}

/// Solves `problem` with `solve`; where `cold` is given (the problem starts from a caller's
/// `alpha0`: a warm start) and the solve converged to a degenerate optimum, solves it again
/// from `cold`, the formulation's own start (the module docs: a degenerate optimum's offset
/// depends on the rounding residues of the path). The kernel cache carries over.
fn solve_or_restart_cold<Q: QMatrix, T>(
    problem: &mut BoxQp<Q>,
    cold: Option<Vec<f64>>,
    offsets: Offsets,
    mut solve: impl FnMut(&mut BoxQp<Q>) -> Result<(Solution, T), SolveError>,
) -> Result<(Solution, T), SolveError> {
    let solved = solve(problem)?;
    let Some(cold) = cold else { return Ok(solved) };
    let all_at_a_bound = |label: Option<i8>| {
        let variables = solved.0.x.iter().zip(&problem.upper).zip(&problem.y);
        let mut group = variables.filter(|(_, &y)| label.is_none_or(|label| y == label));
        group.all(|((&a, &u), _)| at_a_bound(a, u))
    };
    let degenerate = match offsets {
        Offsets::One => all_at_a_bound(None),
        Offsets::PerLabel => all_at_a_bound(Some(1)) || all_at_a_bound(Some(-1)),
    };
    if solved.0.status != Status::Converged || !degenerate {
        return Ok(solved);
    }
    problem.alpha0 = cold;
    problem.gradient0 = None;
    problem.gradient0_at = None;
    let (mut solution, extra) = solve(problem)?;
    solution.stats.restarted_cold = true;
    Ok((solution, extra))
}

/// LIBSVM's solver ([`Smo`], one offset ρ) through [`solve_or_restart_cold`].
fn smo_or_restart_cold<Q: QMatrixPasses>(
    problem: &mut BoxQp<Q>,
    cold: Option<Vec<f64>>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<Solution, SolveError> {
    solve_or_restart_cold(problem, cold, Offsets::One, |problem| {
        Ok((Smo.solve(problem, options, monitor)?, ()))
    })
    .map(|(solution, ())| solution)
}

/// The ν solver ([`NuSmo`], each label's offset, and its scale `r`) through
/// [`solve_or_restart_cold`].
fn nu_smo_or_restart_cold<Q: QMatrixPasses>(
    problem: &mut BoxQp<Q>,
    cold: Option<Vec<f64>>,
    options: &SolveOptions,
    monitor: &mut dyn Monitor,
) -> Result<(Solution, f64), SolveError> {
    solve_or_restart_cold(problem, cold, Offsets::PerLabel, |problem| {
        NuSmo.solve_with_scale(problem, options, monitor)
    })
}

/// Which variables the solver's offset is taken over (`calculate_rho`): all of them (one
/// offset ρ), or each label's (the ν formulations' `r⁺` and `r⁻`).
#[derive(Clone, Copy)]
enum Offsets {
    One,
    PerLabel,
}

/// Whether `α` is within `1e-12 u` of `0` or of `u`: not free but by the rounding of the pair
/// steps. Measured residues: 5.6e-17 and 4.4e-16 of `C = 1` (ε-SVR, ν-SVR), and 1.0e-14 of
/// `C = 0.01` (ν-SVR, 45 ulps, which a margin of 16 ulps missed). A genuinely free variable
/// that near a bound only costs the cold solve.
fn at_a_bound(alpha: f64, upper: f64) -> bool {
    let margin = 1e-12 * upper;
    alpha <= margin || alpha >= upper - margin
}

fn check_nu(nu: f64) -> Result<(), SolveError> {
    if nu > 0.0 && nu <= 1.0 {
        Ok(())
    } else {
        Err(SolveError::invalid("nu", format!("nu = {nu} must be in (0, 1]")))
    }
}
