//! Warm starts of the SMO formulations: a start's given or carried gradient (`BoxQp::gradient0`,
//! `PreviousSolution`) reaches the cold optimum, each formulation returns the gradient a later
//! warm start takes back, starts that break the constraints are refused, and a warm start that
//! ends at a degenerate optimum is solved again cold.

use kernelkit_kernels::SignedQ;
use kernelkit_solvers::formulations::{c_svc, c_svc_from};
use kernelkit_solvers::{
    BoxQp, Engine, NoMonitor, PreviousSolution, Smo, Solution, SolveError, SolveOptions, Solver,
    Status,
};

#[path = "common/clouds.rs"]
mod clouds;
#[path = "common/kkt.rs"]
mod kkt;
#[path = "common/xorshift.rs"]
mod xorshift;
use clouds::{kkt_violation, rbf, signed_q, two_clouds};

/// A warm start with its gradient given (`BoxQp::gradient0`) reaches the optimum of a start
/// whose gradient the solver computes (the iterates differ by the rounding of the two
/// gradients, so only the solutions are compared).
#[test]
fn a_given_warm_start_gradient_reaches_the_same_optimum() {
    let (n, d) = (150, 3);
    let (x, y) = two_clouds(n, d, 8);
    let kernel = rbf(&x, n, d);
    let q = signed_q(&kernel, &y);
    let upper = vec![2.0; n];
    // A feasible start: equal weight on the first positive and the first negative.
    let mut alpha0 = vec![0.0; n];
    let plus = y.iter().position(|&v| v == 1).unwrap();
    let minus = y.iter().position(|&v| v == -1).unwrap();
    alpha0[plus] = 0.7;
    alpha0[minus] = 0.7;
    let p = vec![-1.0; n];
    let gradient: Vec<f64> =
        (0..n).map(|i| p[i] + (0..n).map(|j| q[i][j] * alpha0[j]).sum::<f64>()).collect();
    let options = SolveOptions { tol: 1e-6, ..SolveOptions::default() };
    let solve = |gradient0: Option<Vec<f64>>| {
        let signed =
            SignedQ::new(rbf(&x, n, d), y.iter().map(|&v| f64::from(v)).collect(), 1 << 24);
        let mut problem =
            BoxQp::new(signed, p.clone(), y.clone(), upper.clone(), Some(alpha0.clone())).unwrap();
        problem.gradient0 = gradient0;
        Smo.solve(&mut problem, &options, &mut NoMonitor).unwrap()
    };
    let (computed, given) = (solve(None), solve(Some(gradient)));
    assert_eq!(given.status, Status::Converged);
    assert!((computed.objective - given.objective).abs() <= 1e-6 * computed.objective.abs());
    assert!(kkt_violation(&q, &p, &y, &upper, &given.x) <= 1e-5);
}

/// A solve returns its gradient `Qx + p` (the dense reference's), and a warm start from a point
/// that moved away from that solution (`BoxQp::gradient0_at`: the solver adds the columns of
/// the moved variables) reaches the optimum of a start whose gradient the solver computes, on
/// both engines. The gradient's point without the gradient is refused.
#[test]
fn a_warm_start_updates_the_previous_gradient() {
    let (n, d) = (150, 3);
    let (x, y) = two_clouds(n, d, 9);
    let q = signed_q(&rbf(&x, n, d), &y);
    let p = vec![-1.0; n];
    let first =
        c_svc(rbf(&x, n, d), &y, vec![0.5; n], &SolveOptions::default(), &mut NoMonitor).unwrap();
    let gradient = first.gradient.clone().unwrap();
    for (i, g) in gradient.iter().enumerate() {
        let reference = p[i] + (0..n).map(|j| q[i][j] * first.x[j]).sum::<f64>();
        assert!((g - reference).abs() <= 1e-9, "gradient[{i}] = {g}, reference {reference}");
    }
    // The start: the previous solution with one positive and one negative variable moved up
    // together (yᵀα unchanged), in the box of C = 2.
    let upper = vec![2.0; n];
    let mut alpha0 = first.x.clone();
    let plus = y.iter().position(|&v| v == 1).unwrap();
    let minus = y.iter().position(|&v| v == -1).unwrap();
    alpha0[plus] += 0.3;
    alpha0[minus] += 0.3;
    let previous = PreviousSolution { x: first.x.clone(), gradient };
    for engine in [Engine::Libsvm, Engine::Batched] {
        let options = SolveOptions { tol: 1e-6, engine, ..SolveOptions::default() };
        let solve = |previous: Option<PreviousSolution>| {
            let signed =
                SignedQ::new(rbf(&x, n, d), y.iter().map(|&v| f64::from(v)).collect(), 1 << 24);
            let problem =
                BoxQp::new(signed, p.clone(), y.clone(), upper.clone(), Some(alpha0.clone()))
                    .unwrap();
            let mut problem = problem.with_previous(previous).unwrap();
            Smo.solve(&mut problem, &options, &mut NoMonitor).unwrap()
        };
        let (computed, updated) = (solve(None), solve(Some(previous.clone())));
        assert_eq!(updated.status, Status::Converged);
        assert!((computed.objective - updated.objective).abs() <= 1e-9 * computed.objective.abs());
        assert!(kkt_violation(&q, &p, &y, &upper, &updated.x) <= 1e-5);
    }
    let signed = SignedQ::new(rbf(&x, n, d), y.iter().map(|&v| f64::from(v)).collect(), 1 << 24);
    let mut problem = BoxQp::new(signed, p.clone(), y.clone(), upper, Some(alpha0)).unwrap();
    problem.gradient0_at = Some(first.x);
    let error = Smo.solve(&mut problem, &SolveOptions::default(), &mut NoMonitor).unwrap_err();
    assert!(error.to_string().contains("gradient0_at"), "{error}");
}

/// The regressions return `Kβ` as their gradient (the dense reference's, `K` rounded to f32 as
/// the solver caches it), and a warm start given `previous = (β', Kβ')` ends where one whose
/// gradient the solver computes ends; for ε-SVR from the previous split `(β'⁺, β'⁻)` with a
/// larger C, without computing the columns of the support vectors again. A previous solve
/// of another length is refused, naming `previous`.
#[test]
fn the_regressions_carry_their_kernel_gradient() {
    use kernelkit_solvers::formulations::{epsilon_svr_from, nu_svr_from};
    let (n, d) = (150, 3);
    let (x, _) = two_clouds(n, d, 13);
    let targets: Vec<f64> = (0..n).map(|i| x[i * d] - 0.5 * x[i * d + 2]).collect();
    let k = signed_q(&rbf(&x, n, d), &vec![1; n]);
    let options = SolveOptions { tol: 1e-8, ..SolveOptions::default() };
    for nu in [false, true] {
        let solve = |c: f64, start: Option<Vec<f64>>, previous: Option<PreviousSolution>| {
            let (kernel, upper, options) = (rbf(&x, n, d), vec![c; n], &options);
            if nu {
                nu_svr_from(kernel, &targets, 0.3, upper, start, previous, options, &mut NoMonitor)
                    .map(|(solution, _)| solution)
            } else {
                let monitor = &mut NoMonitor;
                epsilon_svr_from(kernel, &targets, 0.1, upper, start, previous, options, monitor)
            }
        };
        let first = solve(1.0, None, None).unwrap();
        let gradient = first.gradient.clone().unwrap();
        assert_eq!(gradient.len(), n);
        for (i, g) in gradient.iter().enumerate() {
            let reference: f64 = (0..n).map(|j| k[i][j] * first.x[j]).sum();
            assert!((g - reference).abs() <= 1e-9, "nu {nu}: Kβ[{i}] = {g}, reference {reference}");
        }
        // The start at C = 3: the split of β (ε-SVR: as it is, feasible; ν-SVR: scaled by 3, as
        // its sums scale with C), which moves the ν-SVR's variables away from the split.
        let scale = if nu { 3.0 } else { 1.0 };
        let start: Vec<f64> = first
            .x
            .iter()
            .map(|b| b.max(0.0) * scale)
            .chain(first.x.iter().map(|b| (-b).max(0.0) * scale))
            .collect();
        let previous = PreviousSolution { x: first.x.clone(), gradient: gradient.clone() };
        let fresh = solve(3.0, Some(start.clone()), None).unwrap();
        let carried = solve(3.0, Some(start.clone()), Some(previous)).unwrap();
        assert_eq!(carried.status, Status::Converged);
        let close = (carried.objective - fresh.objective).abs() <= 1e-9 * fresh.objective.abs();
        assert!(close, "nu {nu}: {} against {}", carried.objective, fresh.objective);
        if !nu {
            // One step from each: the fresh start's gradient costs a column per support
            // vector, the carried one none (the start is the previous split).
            let one_step = SolveOptions { max_iter: Some(1), ..options };
            let values = |previous: Option<PreviousSolution>| {
                let (kernel, upper) = (rbf(&x, n, d), vec![3.0; n]);
                let start = Some(start.clone());
                let monitor = &mut NoMonitor;
                epsilon_svr_from(kernel, &targets, 0.1, upper, start, previous, &one_step, monitor)
                    .unwrap()
                    .stats
                    .cache
                    .values_computed
            };
            let support = first.x.iter().filter(|&&b| b != 0.0).count() as u64;
            let previous = PreviousSolution { x: first.x.clone(), gradient: gradient.clone() };
            let (fresh_values, carried_values) = (values(None), values(Some(previous)));
            assert!(support > 20, "{support} support vectors");
            assert!(carried_values <= 2 * n as u64, "{carried_values}: one step's two columns");
            assert!(fresh_values >= support * n as u64, "{fresh_values}");
        }
        let wrong = PreviousSolution { x: start.clone(), gradient: start.clone() };
        let refused = solve(3.0, Some(start), Some(wrong));
        assert!(
            matches!(refused, Err(SolveError::LengthMismatch { name: "previous", .. })),
            "{refused:?}"
        );
    }
}

/// ν-SVC returns `Qx` for its rescaled `x = α/r` (the dense reference's), and a warm start from
/// the unscaled solution with `previous = (α', Qα')` (`x` and gradient times `r`) ends where
/// one whose gradient the solver computes ends, computing the columns of the variables at
/// their upper bound only (for `Ḡ`), not those of every support vector.
#[test]
fn nu_svc_returns_its_gradient_and_starts_from_it_unscaled() {
    use kernelkit_solvers::formulations::nu_svc_from;
    let (n, d) = (150, 3);
    let (x, y) = two_clouds(n, d, 17);
    let q = signed_q(&rbf(&x, n, d), &y);
    let solve = |start: Option<Vec<f64>>, previous: Option<PreviousSolution>, max_iter| {
        let options = SolveOptions { tol: 1e-8, max_iter, ..SolveOptions::default() };
        let (kernel, upper, monitor) = (rbf(&x, n, d), vec![1.0; n], &mut NoMonitor);
        nu_svc_from(kernel, &y, 0.15, upper, start, previous, &options, monitor).unwrap()
    };
    let (first, r) = solve(None, None, None);
    let gradient = first.gradient.clone().unwrap();
    for (i, g) in gradient.iter().enumerate() {
        let reference: f64 = (0..n).map(|j| q[i][j] * first.x[j]).sum();
        assert!((g - reference).abs() <= 1e-9, "gradient[{i}] = {g}, reference {reference}");
    }
    let unscaled = |v: &[f64]| v.iter().map(|a| a * r).collect::<Vec<f64>>();
    let start = unscaled(&first.x);
    let previous = PreviousSolution { x: start.clone(), gradient: unscaled(&gradient) };
    let (fresh, _) = solve(Some(start.clone()), None, None);
    let (carried, _) = solve(Some(start.clone()), Some(previous.clone()), None);
    assert_eq!(carried.status, Status::Converged);
    assert!((carried.objective - fresh.objective).abs() <= 1e-9 * fresh.objective.abs());
    let support = start.iter().filter(|&&a| a > 0.0).count() as u64;
    let bound = start.iter().filter(|&&a| a == 1.0).count() as u64;
    assert!(support > bound + 20, "{support} support vectors, {bound} at the bound");
    let one_step = |previous| solve(Some(start.clone()), previous, Some(1)).0.stats.cache;
    assert!(one_step(Some(previous)).values_computed <= (bound + 2) * n as u64);
    assert!(one_step(None).values_computed >= support * n as u64);
}

/// A given gradient is used only where updating it costs fewer columns than computing it afresh:
/// a start at 0 given the previous solution (all its support vectors moved) computes none, as a
/// cold start does, and ends at the cold optimum.
#[test]
fn a_start_that_moved_more_than_it_keeps_computes_its_gradient_afresh() {
    let (n, d) = (150, 3);
    let (x, y) = two_clouds(n, d, 9);
    let upper = vec![0.5; n];
    let first =
        c_svc(rbf(&x, n, d), &y, upper.clone(), &SolveOptions::default(), &mut NoMonitor).unwrap();
    let support = first.x.iter().filter(|&&a| a > 0.0).count();
    assert!(support > 20, "{support} support vectors");
    let previous = PreviousSolution { x: first.x.clone(), gradient: first.gradient.unwrap() };
    let solve = |previous: Option<PreviousSolution>, max_iter| {
        let options = SolveOptions { max_iter, ..SolveOptions::default() };
        let (kernel, start) = (rbf(&x, n, d), Some(vec![0.0; n]));
        c_svc_from(kernel, &y, upper.clone(), start, previous, &options, &mut NoMonitor).unwrap()
    };
    let one_step = solve(Some(previous.clone()), Some(1)).stats.cache.values_computed;
    assert!(one_step <= 2 * n as u64, "{one_step} kernel values for one step from 0");
    let (warm, cold) = (solve(Some(previous), None), solve(None, None));
    assert_eq!(warm.x, cold.x);
    assert_eq!(warm.iterations, cold.iterations);
}

/// A warm start from the optimum of the same problem needs (almost) no iteration and keeps the
/// optimum, for every formulation that takes one; a start that violates the formulation's
/// equality constraints is refused, naming `alpha0`.
#[test]
fn warm_starts_from_the_optimum_stay_there_and_bad_starts_are_refused() {
    use kernelkit_solvers::formulations::{
        epsilon_svr_from, nu_svc_from, nu_svr_from, one_class_from,
    };
    let (n, d) = (200, 3);
    let (x, y) = two_clouds(n, d, 11);
    let targets: Vec<f64> = (0..n).map(|i| x[i * d] - 0.5 * x[i * d + 2]).collect();
    let options = SolveOptions { tol: 1e-8, ..SolveOptions::default() };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);

    // Each formulation as `solve(alpha0) -> (solution, scale)`: solved cold, then warm from
    // `start(cold, scale)`, then from `bad` (when given), which must be refused.
    type Solve<'s> = dyn Fn(Option<Vec<f64>>) -> Result<(Solution, f64), SolveError> + 's;
    let check =
        |solve: &Solve<'_>, start: fn(&Solution, f64) -> Vec<f64>, bad: Option<Vec<f64>>| {
            let (cold, r) = solve(None).unwrap();
            let (warm, _) = solve(Some(start(&cold, r))).unwrap();
            assert!(warm.iterations <= 2 && close(warm.objective, cold.objective));
            if let Some(bad) = bad {
                let refused = solve(Some(bad));
                assert!(matches!(refused, Err(SolveError::InvalidProblem { name: "alpha0", .. })));
            }
        };
    // β = α − α* with α α* = 0 at an SVR optimum (ε > 0), so (β⁺, β⁻) is its (α, α*).
    let split = |cold: &Solution, _: f64| -> Vec<f64> {
        cold.x.iter().map(|b| b.max(0.0)).chain(cold.x.iter().map(|b| (-b).max(0.0))).collect()
    };
    let mut unbalanced = vec![0.0; 2 * n];
    unbalanced[0] = 1.0;

    check(
        &|start| {
            one_class_from(rbf(&x, n, d), 0.3, vec![1.0; n], start, None, &options, &mut NoMonitor)
                .map(|solution| (solution, 1.0))
        },
        |cold, _| cold.x.clone(),
        Some(vec![0.0; n]),
    );
    check(
        &|start| {
            let (upper, monitor) = (vec![3.0; n], &mut NoMonitor);
            epsilon_svr_from(rbf(&x, n, d), &targets, 0.1, upper, start, None, &options, monitor)
                .map(|solution| (solution, 1.0))
        },
        split,
        Some(unbalanced),
    );
    check(
        &|start| {
            nu_svc_from(rbf(&x, n, d), &y, 0.4, vec![1.0; n], start, None, &options, &mut NoMonitor)
        },
        |cold, r| cold.x.iter().map(|a| a * r).collect(),
        Some(vec![0.1; n]),
    );
    check(
        &|start| {
            let (upper, monitor) = (vec![2.0; n], &mut NoMonitor);
            nu_svr_from(rbf(&x, n, d), &targets, 0.3, upper, start, None, &options, monitor)
        },
        split,
        None,
    );
}

/// A warm start that converges to a degenerate optimum is solved again from the cold start:
/// an ε-SVR whose tube holds every target has the optimum β = 0 with no free variable, where
/// any offset of an interval is optimal and the pair steps back to 0 may leave an ulp-sized
/// "free" residue that would decide it. The warm solve's result is the cold solve's.
#[test]
fn a_warm_start_to_a_degenerate_optimum_is_solved_again_cold() {
    use kernelkit_solvers::formulations::epsilon_svr_from;
    let (n, d) = (120, 3);
    let (x, _) = two_clouds(n, d, 5);
    let targets: Vec<f64> = (0..n).map(|i| (x[i * d] * 1.7).sin()).collect();
    let options = SolveOptions { tol: 1e-10, ..SolveOptions::default() };
    let solve = |epsilon: f64, start: Option<Vec<f64>>| {
        let (kernel, upper) = (rbf(&x, n, d), vec![1.0; n]);
        epsilon_svr_from(kernel, &targets, epsilon, upper, start, None, &options, &mut NoMonitor)
            .unwrap()
    };
    let tight = solve(0.05, None);
    assert!(!tight.stats.restarted_cold);
    let start: Vec<f64> =
        tight.x.iter().map(|b| b.max(0.0)).chain(tight.x.iter().map(|b| (-b).max(0.0))).collect();
    let warm = solve(5.0, Some(start.clone()));
    let cold = solve(5.0, None);
    assert!(warm.stats.restarted_cold && !cold.stats.restarted_cold);
    assert!(cold.x.iter().all(|&b| b == 0.0));
    assert_eq!((&warm.x, warm.bias, warm.objective), (&cold.x, cold.bias, cold.objective));
    // A start to a regular optimum is kept.
    let regular = solve(0.1, Some(start));
    assert!(!regular.stats.restarted_cold);
}

/// A problem solved twice (a warm start's cold restart, `formulations`) is solved in its own
/// order the second time: the first solve's shrinking swapped the matrix's positions, and the
/// second paired them with `y`, `p` and the bounds in the variables' order, so its solution
/// put the coefficients on the wrong rows. Oracle: the same second solve on a fresh matrix,
/// and the dense KKT conditions.
#[test]
fn a_second_solve_of_a_shrunk_problem_is_in_the_variables_order() {
    let (n, d) = (300, 3);
    let (x, y) = two_clouds(n, d, 11);
    let kernel = rbf(&x, n, d);
    let q = signed_q(&kernel, &y);
    let p = vec![-1.0; n];
    let upper: Vec<f64> = (0..n).map(|i| 0.5 + (i % 7) as f64).collect();
    let options = SolveOptions { tol: 1e-8, engine: Engine::Libsvm, ..SolveOptions::default() };
    let fresh = || {
        let signs = y.iter().map(|&v| f64::from(v)).collect();
        let signed = SignedQ::new(rbf(&x, n, d), signs, 1 << 24);
        BoxQp::new(signed, p.clone(), y.clone(), upper.clone(), None).unwrap()
    };
    let mut twice = fresh();
    let first = Smo.solve(&mut twice, &options, &mut NoMonitor).unwrap();
    assert!(first.stats.min_active_size < n as u64, "the first solve must shrink");
    let second = Smo.solve(&mut twice, &options, &mut NoMonitor).unwrap();
    let once = Smo.solve(&mut fresh(), &options, &mut NoMonitor).unwrap();
    assert_eq!(second.status, Status::Converged);
    assert_eq!(second.x, once.x);
    assert!(kkt_violation(&q, &p, &y, &upper, &second.x) <= 1e-6);
}
