//! The SMO engine on small and medium problems: KKT conditions checked independently from the
//! returned solution, monotone objective, invariance to shrinking and to the thread count,
//! limits and monitors.

use kernelkit_kernels::{
    columns_one_by_one, CacheStats, ColumnsVisit, CsrRows, DenseKernel, KernelFunction,
    KernelSource, PrecomputedGram, QMatrix, QMatrixPasses, SignedQ, SparseKernel, WindowThen,
};
use kernelkit_solvers::formulations::{c_svc, epsilon_svr, one_class};
use kernelkit_solvers::{
    with_thread_pool, BoxQp, Control, Engine, Monitor, NoMonitor, Progress, Smo, Solution,
    SolveError, SolveOptions, Solver, Status,
};

#[path = "common/clouds.rs"]
mod clouds;
#[path = "common/kkt.rs"]
mod kkt;
#[path = "common/same.rs"]
mod same;
#[path = "common/xorshift.rs"]
mod xorshift;
use clouds::{kkt_violation, rbf, signed_q, two_clouds};
use same::assert_same_iterates;

#[test]
fn c_svc_satisfies_kkt_and_is_invariant_to_shrinking() {
    let (n, d) = (300, 4);
    let (x, y) = two_clouds(n, d, 1);
    let upper: Vec<f64> = (0..n).map(|i| if i % 7 == 0 { 0.5 } else { 2.0 }).collect();
    let mut objectives = Vec::new();
    for shrinking in [true, false] {
        let options = SolveOptions { tol: 1e-6, shrinking, ..SolveOptions::default() };
        let solution = c_svc(rbf(&x, n, d), &y, upper.clone(), &options, &mut NoMonitor).unwrap();
        assert_eq!(solution.status, Status::Converged);
        assert_eq!(solution.stats.objective_increases, 0);
        let q = signed_q(&rbf(&x, n, d), &y);
        let violation = kkt_violation(&q, &vec![-1.0; n], &y, &upper, &solution.x);
        assert!(violation <= 1e-6 + 1e-9, "KKT violation {violation}");
        let balance: f64 = solution.x.iter().zip(&y).map(|(a, &s)| a * f64::from(s)).sum();
        assert!(balance.abs() < 1e-9, "yᵀα = {balance}");
        assert!(solution.x.iter().zip(&upper).all(|(&a, &u)| (0.0..=u).contains(&a)));
        objectives.push(solution.objective);
    }
    assert!((objectives[0] - objectives[1]).abs() <= 1e-6 * objectives[0].abs());
}

#[test]
fn thread_count_does_not_change_the_solution() {
    // Large enough for the parallel scans, updates and kernel blocks to run.
    let (n, d) = (6000, 5);
    let (x, y) = two_clouds(n, d, 2);
    let upper = vec![1.0; n];
    let solve = |threads| {
        with_thread_pool(threads, || {
            let options = SolveOptions { n_threads: threads, ..SolveOptions::default() };
            c_svc(rbf(&x, n, d), &y, upper.clone(), &options, &mut NoMonitor).unwrap()
        })
        .unwrap()
    };
    assert_same_iterates(&solve(1), &solve(2), "1 and 2 threads");
}

#[test]
fn one_class_and_svr_satisfy_their_constraints() {
    let (n, d) = (200, 3);
    let (x, _) = two_clouds(n, d, 3);
    let options = SolveOptions { tol: 1e-6, ..SolveOptions::default() };
    let nu = 0.3;
    let solution = one_class(rbf(&x, n, d), nu, vec![1.0; n], &options, &mut NoMonitor).unwrap();
    let total: f64 = solution.x.iter().sum();
    assert!((total - nu * n as f64).abs() < 1e-9);
    let ones = vec![1i8; n];
    let q = signed_q(&rbf(&x, n, d), &ones);
    assert!(kkt_violation(&q, &vec![0.0; n], &ones, &vec![1.0; n], &solution.x) <= 1e-6 + 1e-9);

    let targets: Vec<f64> = (0..n).map(|i| x[i * d] * 2.0 - x[i * d + 1]).collect();
    let svr =
        epsilon_svr(rbf(&x, n, d), &targets, 0.1, vec![3.0; n], &options, &mut NoMonitor).unwrap();
    assert_eq!(svr.status, Status::Converged);
    assert!(svr.x.iter().sum::<f64>().abs() < 1e-9);
    assert!(svr.x.iter().all(|b| b.abs() <= 3.0));
    assert_eq!(svr.stats.objective_increases, 0);
}

#[test]
fn user_given_matrix_matches_the_kernel_path() {
    let (n, d) = (120, 3);
    let (x, y) = two_clouds(n, d, 4);
    let kernel = rbf(&x, n, d);
    let mut gram = vec![0.0; n * n];
    kernel.fill_block(&(0..n).collect::<Vec<_>>(), 0, n, &mut gram);
    let options = SolveOptions { tol: 1e-8, ..SolveOptions::default() };
    let from_kernel = c_svc(kernel, &y, vec![1.0; n], &options, &mut NoMonitor).unwrap();
    let source = PrecomputedGram::new(&gram, n, n).unwrap();
    let from_gram = c_svc(source, &y, vec![1.0; n], &options, &mut NoMonitor).unwrap();
    assert!((from_kernel.objective - from_gram.objective).abs() < 1e-9);
}

struct StopAfter(u64);

impl Monitor for StopAfter {
    fn report(&mut self, progress: &Progress) -> Control {
        if progress.iteration >= self.0 {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

#[test]
fn limits_and_monitors_end_the_solve_with_a_status() {
    let (n, d) = (400, 4);
    let (x, y) = two_clouds(n, d, 5);
    let options = SolveOptions { max_iter: Some(10), ..SolveOptions::default() };
    let limited = c_svc(rbf(&x, n, d), &y, vec![1.0; n], &options, &mut NoMonitor).unwrap();
    assert_eq!(limited.status, Status::MaxIterations);
    assert_eq!(limited.iterations, 10);

    let options = SolveOptions { report_every: 5, ..SolveOptions::default() };
    let stopped = c_svc(rbf(&x, n, d), &y, vec![1.0; n], &options, &mut StopAfter(20)).unwrap();
    assert_eq!(stopped.status, Status::Stopped);
    assert_eq!(stopped.iterations, 20);
    // The returned point is feasible and its gap is reported.
    let balance: f64 = stopped.x.iter().zip(&y).map(|(a, &s)| a * f64::from(s)).sum();
    assert!(balance.abs() < 1e-9);
    assert!(stopped.gap > 0.0);
}

/// Interrupted (Ctrl-C) from the start.
struct Interrupted;

impl Monitor for Interrupted {
    fn report(&mut self, _progress: &Progress) -> Control {
        Control::Stop
    }
    fn interrupted(&self) -> bool {
        true
    }
}

#[test]
fn an_interruption_ends_the_gradient_initialisation() {
    // One-class: ν·n of the α start non-zero, so the gradient needs that many columns.
    let (n, d) = (400, 4);
    let (x, _) = two_clouds(n, d, 6);
    let options = SolveOptions::default();
    let kernel = rbf(&x, n, d);
    let solution = one_class(kernel, 0.5, vec![1.0; n], &options, &mut Interrupted).unwrap();
    assert_eq!(solution.status, Status::Stopped);
    assert_eq!(solution.iterations, 0);
    assert!(solution.objective.is_nan());
    // Fewer columns than the initialisation needs: it stopped at its first check.
    let needed = solution.x.iter().filter(|&&a| a > 0.0).count() as u64;
    assert!(solution.stats.cache.misses < needed, "{:?}", solution.stats.cache);
}

/// Stops the solve at its `at`-th report, as Ctrl-C (`interrupted`) or as a callback.
struct StopAt {
    reports: u32,
    at: u32,
    ctrl_c: bool,
}

impl Monitor for StopAt {
    fn report(&mut self, _progress: &Progress) -> Control {
        self.reports += 1;
        if self.reports >= self.at {
            Control::Stop
        } else {
            Control::Continue
        }
    }
    fn interrupted(&self) -> bool {
        self.ctrl_c && self.reports >= self.at
    }
}

#[test]
fn an_interruption_in_the_loop_skips_the_final_rebuild() {
    // Overlapping clouds and a large C: many iterations, shrinking active.
    let (n, d) = (600, 3);
    let (x, y) = two_clouds(n, d, 9);
    let options = SolveOptions { tol: 1e-8, ..SolveOptions::default() };
    let stop = |ctrl_c| {
        let mut monitor = StopAt { reports: 0, at: 3, ctrl_c };
        c_svc(rbf(&x, n, d), &y, vec![100.0; n], &options, &mut monitor).unwrap()
    };
    // A callback's stop keeps the last iterate: G rebuilt, a finite objective and gap.
    let kept = stop(false);
    assert_eq!(kept.status, Status::Stopped);
    assert!(kept.objective.is_finite() && kept.gap.is_finite() && kept.iterations > 0);
    // Ctrl-C: the result is discarded, so nothing more is computed (no objective).
    let interrupted = stop(true);
    assert_eq!(interrupted.status, Status::Stopped);
    assert!(interrupted.objective.is_nan());
    assert_eq!(interrupted.iterations, kept.iterations); // the same report stopped both
}

#[test]
fn invalid_problems_are_errors() {
    let (n, d) = (10, 2);
    let (x, y) = two_clouds(n, d, 6);
    let bad_upper =
        c_svc(rbf(&x, n, d), &y, vec![0.0; n], &SolveOptions::default(), &mut NoMonitor);
    assert!(matches!(bad_upper, Err(SolveError::InvalidProblem { name: "upper", .. })));
    let short =
        c_svc(rbf(&x, n, d), &y[..5], vec![1.0; n], &SolveOptions::default(), &mut NoMonitor);
    assert!(matches!(short, Err(SolveError::LengthMismatch { .. })));
    let options = SolveOptions { tol: -1.0, ..SolveOptions::default() };
    let bad_tol = c_svc(rbf(&x, n, d), &y, vec![1.0; n], &options, &mut NoMonitor);
    assert!(matches!(bad_tol, Err(SolveError::InvalidOption { name: "tol", .. })));
    let nu = one_class(rbf(&x, n, d), 1.5, vec![1.0; n], &SolveOptions::default(), &mut NoMonitor);
    assert!(matches!(nu, Err(SolveError::InvalidProblem { name: "nu", .. })));
    let infeasible = BoxQp::new(
        SignedQ::unsigned(rbf(&x, n, d), 0),
        vec![0.0; n],
        vec![1; n],
        vec![1.0; n],
        Some(vec![2.0; n]),
    );
    assert!(matches!(infeasible, Err(SolveError::InvalidProblem { name: "alpha0", .. })));
    assert_eq!(<Smo as Solver<BoxQp<SignedQ<DenseKernel<'_>>>>>::name(&Smo), "smo");
}

#[test]
fn nu_formulations_keep_both_equalities_and_their_bounds() {
    use kernelkit_solvers::formulations::{nu_svc, nu_svc_capped, nu_svr};
    let (n, d) = (240, 3);
    let (x, y) = two_clouds(n, d, 7);
    let options = SolveOptions { tol: 1e-6, ..SolveOptions::default() };
    let (solution, r) = nu_svc(rbf(&x, n, d), &y, 0.4, vec![1.0; n], &options, &mut NoMonitor)
        .expect("feasible nu");
    assert_eq!(solution.status, Status::Converged);
    assert_eq!(solution.stats.objective_increases, 0);
    assert!(r > 0.0);
    // Rescaled to C-SVC form with C = 1/r: 0 ≤ α ≤ 1/r and yᵀα = 0; before rescaling each label
    // summed to ν n / 2.
    let positive: f64 = solution.x.iter().zip(&y).filter(|(_, &s)| s == 1).map(|(a, _)| a).sum();
    let negative: f64 = solution.x.iter().zip(&y).filter(|(_, &s)| s == -1).map(|(a, _)| a).sum();
    assert!((positive * r - 0.4 * n as f64 / 2.0).abs() < 1e-9);
    assert!((negative * r - 0.4 * n as f64 / 2.0).abs() < 1e-9);
    assert!(solution.x.iter().all(|&a| (0.0..=1.0 / r + 1e-12).contains(&a)));

    let infeasible = nu_svc(rbf(&x, n, d), &y, 0.99, vec![1.0; n], &options, &mut NoMonitor);
    assert!(matches!(infeasible, Err(SolveError::InvalidProblem { name: "nu", .. })));
    // A probability fold's solve (LIBSVM's, unchecked): a feasible ν gives nu_svc's solve; one
    // too large for the lighter class holds that class at its bounds.
    let (capped, capped_r) =
        nu_svc_capped(rbf(&x, n, d), &y, 0.4, vec![1.0; n], &options, &mut NoMonitor).unwrap();
    assert_eq!((capped.x, capped_r), (solution.x.clone(), r));
    let lighter = if y.iter().filter(|&&s| s == 1).count() * 2 <= n { 1 } else { -1 };
    let (held, r) =
        nu_svc_capped(rbf(&x, n, d), &y, 0.99, vec![1.0; n], &options, &mut NoMonitor).unwrap();
    assert_eq!(held.status, Status::Converged);
    assert!(r.is_finite() && r > 0.0 && held.bias.is_finite());
    let heavier: f64 = held.x.iter().zip(&y).filter(|(_, &s)| s != lighter).map(|(a, _)| a).sum();
    assert!((heavier * r - 0.99 * n as f64 / 2.0).abs() < 1e-9);
    let mut lighter_class = held.x.iter().zip(&y).filter(|(_, &s)| s == lighter);
    assert!(lighter_class.all(|(a, _)| (a * r - 1.0).abs() < 1e-12));

    let targets: Vec<f64> = (0..n).map(|i| x[i * d] - 0.5 * x[i * d + 2]).collect();
    let (svr, epsilon) =
        nu_svr(rbf(&x, n, d), &targets, 0.3, vec![2.0; n], &options, &mut NoMonitor).unwrap();
    assert_eq!(svr.status, Status::Converged);
    assert!(epsilon >= 0.0);
    assert!(svr.x.iter().sum::<f64>().abs() < 1e-9);
    assert!(svr.x.iter().all(|b| b.abs() <= 2.0 + 1e-12));
}

#[test]
fn a_capped_fold_without_a_scale_is_the_zero_function() {
    use kernelkit_solvers::formulations::{nu_svc, nu_svc_capped};
    // Every point twice, once per label: the two classes' reduced convex hulls coincide, so
    // the ν-SVC optimum has w = 0 and its scale r is 0 up to rounding (ρν = ‖w‖² + Σξ/l).
    let (m, d) = (60, 3);
    let (points, _) = two_clouds(m, d, 11);
    let x = [points.clone(), points].concat();
    let y: Vec<i8> = (0..2 * m).map(|i| if i < m { 1 } else { -1 }).collect();
    let options = SolveOptions { tol: 1e-6, ..SolveOptions::default() };
    let plain = nu_svc(rbf(&x, 2 * m, d), &y, 0.5, vec![1.0; 2 * m], &options, &mut NoMonitor);
    // LIBSVM divides by that rounding error; the estimator's own fit reports it or returns
    // a scale of the order of tol.
    assert!(plain.map_or(true, |(_, r)| r.abs() <= options.tol));
    let (fold, r) =
        nu_svc_capped(rbf(&x, 2 * m, d), &y, 0.5, vec![1.0; 2 * m], &options, &mut NoMonitor)
            .unwrap();
    assert_eq!(fold.status, Status::Converged);
    assert_eq!(r, 0.0);
    assert!(fold.x.iter().all(|&a| a == 0.0) && fold.bias == 0.0 && fold.objective == 0.0);
}

/// `SignedQ` with its fused passes (`column_then`) or its blocks of columns (`columns_from`)
/// turned off, each falling back to the trait's default; every other call goes to the inner
/// matrix.
struct Without<Q> {
    q: Q,
    fusion: bool,
    blocks: bool,
}

impl<Q: QMatrix> QMatrix for Without<Q> {
    fn size(&self) -> usize {
        self.q.size()
    }
    fn diagonal(&self) -> &[f64] {
        self.q.diagonal()
    }
    fn column(&mut self, i: usize, len: usize) -> &[f32] {
        self.q.column(i, len)
    }
    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.q.column_pair(i, j, len)
    }
    fn swap_index(&mut self, i: usize, j: usize) {
        self.q.swap_index(i, j);
    }
    fn cache_stats(&self) -> CacheStats {
        self.q.cache_stats()
    }
}

impl<Q: QMatrixPasses> QMatrixPasses for Without<Q> {
    fn is_cached(&self, i: usize, len: usize) -> bool {
        self.q.is_cached(i, len)
    }
    fn cache_capacity(&self, len: usize) -> usize {
        self.q.cache_capacity(len)
    }
    fn prefetch(&mut self, indices: &[usize], len: usize) {
        self.q.prefetch(indices, len);
    }
    fn speculation_width(&self, len: usize) -> usize {
        self.q.speculation_width(len)
    }
    fn fuses_passes(&self) -> bool {
        !self.fusion && self.q.fuses_passes()
    }
    fn column_then(
        &mut self,
        j: usize,
        beside: Option<usize>,
        len: usize,
        from: usize,
        then: &WindowThen<'_>,
    ) -> bool {
        !self.fusion && self.q.column_then(j, beside, len, from, then)
    }
    fn block_columns(&self) -> usize {
        if self.blocks {
            1
        } else {
            self.q.block_columns()
        }
    }
    fn columns_from(
        &mut self,
        columns: &[usize],
        from: usize,
        len: usize,
        visit: &mut ColumnsVisit<'_>,
    ) {
        if self.blocks {
            columns_one_by_one(&mut self.q, columns, from, len, visit);
        } else {
            self.q.columns_from(columns, from, len, visit);
        }
    }
}

/// Solves the C-SVC of two clouds (6,000 points, 16 features: several windows per column,
/// a cache small enough to evict, shrinking on) on `threads` threads, `SignedQ` without its
/// fusion or its blocks as asked; with `binary`, of 0/1 rows instead (the sparse kernel, whose
/// blocks hold 16 columns).
fn solve_without(threads: usize, fusion: bool, blocks: bool, binary: bool) -> Solution {
    let (n, d) = (6000, 16);
    let (x, y) = two_clouds(n, d, 4);
    let upper: Vec<f64> = (0..n).map(|i| if i % 5 == 0 { 0.3 } else { 1.0 }).collect();
    // 0/1 rows: each feature set with probability 15 %, the first eight 30 % for y = +1.
    let bits: Vec<f64> = (0..n * 64)
        .map(|k: usize| {
            let hash = (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
            let percent = if k % 64 < 8 && y[k / 64] == 1 { 30 } else { 15 };
            f64::from(u8::from(hash % 100 < percent))
        })
        .collect();
    with_thread_pool(threads, || {
        let options = SolveOptions { n_threads: threads, ..SolveOptions::default() };
        let signs: Vec<f64> = y.iter().map(|&s| f64::from(s)).collect();
        let (p, labels) = (vec![-1.0; n], y.clone());
        if binary {
            let rows = CsrRows::from_dense(&bits, n, 64).unwrap();
            let kernel = SparseKernel::new(rows, KernelFunction::Rbf { gamma: 0.2 }).unwrap();
            let q = Without { q: SignedQ::new(kernel, signs, 1 << 20), fusion, blocks };
            let mut problem = BoxQp::new(q, p, labels, upper.clone(), None).unwrap();
            Smo.solve(&mut problem, &options, &mut NoMonitor).unwrap()
        } else {
            let q = Without { q: SignedQ::new(rbf(&x, n, d), signs, 1 << 20), fusion, blocks };
            let mut problem = BoxQp::new(q, p, labels, upper.clone(), None).unwrap();
            Smo.solve(&mut problem, &options, &mut NoMonitor).unwrap()
        }
    })
    .unwrap()
}

#[test]
fn fused_column_passes_give_the_unfused_iterates() {
    // The missing columns of i (with the second scan) and of j (with the gradient update and
    // the first scan) are computed by the passes that use them; the solve must be the one
    // without fusion, bit for bit, with the same cache counters, on one and two threads.
    for threads in [1, 2] {
        let fused = solve_without(threads, false, false, false);
        let plain = solve_without(threads, true, false, false);
        assert_eq!(fused.status, Status::Converged);
        assert!(plain.stats.cache.misses > 100, "the cache evicts and misses");
        assert_same_iterates(&fused, &plain, &format!("{threads} threads"));
        assert_eq!(fused.objective.to_bits(), plain.objective.to_bits());
        let (a, b) = (fused.stats.cache, plain.stats.cache);
        assert_eq!((a.hits, a.misses, a.values_computed), (b.hits, b.misses, b.values_computed));
    }
}

#[test]
fn a_gradient_reconstructed_in_blocks_of_columns_gives_the_same_iterates() {
    // The reconstruction adds the free columns' inactive positions a block of columns at a
    // time (computed together, not cached): every position sums them in the order of the
    // columns, so the solve is the one that adds them column by column, bit for bit. Dense
    // rows make blocks of three columns, 0/1 rows blocks of sixteen.
    for binary in [false, true] {
        for threads in [1, 2] {
            let what = format!("binary {binary}, {threads} threads");
            let blocks = solve_without(threads, false, false, binary);
            let single = solve_without(threads, false, true, binary);
            assert_eq!(blocks.status, Status::Converged);
            let reconstructions = blocks.stats.gradient_reconstructions;
            assert!(reconstructions >= 2, "{what}: unshrinking, the end: {reconstructions}");
            let free = blocks.x.iter().filter(|&&a| a > 0.0 && a < 0.3).count();
            assert!(free > 50, "{what}: free variables to reconstruct with: {free}");
            assert_same_iterates(&blocks, &single, &what);
            assert_eq!(blocks.objective.to_bits(), single.objective.to_bits(), "{what}");
        }
    }
}

#[test]
fn limits_monitors_and_interruptions_end_a_batched_solve() {
    let (n, d) = (400, 4);
    let (x, y) = two_clouds(n, d, 5);
    let batched = SolveOptions {
        engine: Engine::Batched,
        batch_size: Some(16),
        batched_shrinking_from: 0,
        ..SolveOptions::default()
    };
    let limited = SolveOptions { max_iter: Some(10), ..batched };
    let limited = c_svc(rbf(&x, n, d), &y, vec![1.0; n], &limited, &mut NoMonitor).unwrap();
    assert_eq!(limited.status, Status::MaxIterations);
    assert_eq!(limited.iterations, 10);
    assert!(limited.gap > 0.0 && limited.objective.is_finite());

    let stop = |ctrl_c| {
        let mut monitor = StopAt { reports: 0, at: 3, ctrl_c };
        let options = SolveOptions { tol: 1e-6, ..batched };
        c_svc(rbf(&x, n, d), &y, vec![100.0; n], &options, &mut monitor).unwrap()
    };
    let kept = stop(false);
    assert_eq!(kept.status, Status::Stopped);
    assert!(kept.objective.is_finite() && kept.iterations > 0);
    let balance: f64 = kept.x.iter().zip(&y).map(|(a, &s)| a * f64::from(s)).sum();
    assert!(balance.abs() < 1e-9);
    let interrupted = stop(true);
    assert_eq!(interrupted.status, Status::Stopped);
    assert!(interrupted.objective.is_nan());
    assert_eq!(interrupted.iterations, kept.iterations);

    let bad = SolveOptions { batch_size: Some(1), ..batched };
    let refused = c_svc(rbf(&x, n, d), &y, vec![1.0; n], &bad, &mut NoMonitor);
    assert!(matches!(refused, Err(SolveError::InvalidOption { name: "batch_size", .. })));
}
