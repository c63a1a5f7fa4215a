//! AID (Park & Klabjan 2016) against direct solves of the full problems, and its invariants.

use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction, KernelSource};
use kernelkit_solvers::aid::{
    assign, lad_partition, random_labels_from, s3vm_partition, search_labels, svm_partition,
    weighted_kmeans, AggregatedGram, Aid, AidOptions, AidResult, AidStatus, ClarabelLp, Initial,
    KMeansSeeding, LadModel, NoAidMonitor, Partition, S3vmBalance, S3vmData, S3vmModel, SvmData,
    SvmModel, WeightedLad,
};
use kernelkit_solvers::formulations::c_svc;
use kernelkit_solvers::{
    Control, Monitor, NoMonitor, Progress, Smo, SolveError, SolveOptions, Solver,
};

mod common;
use common::Random;

fn assert_monotone_bounds<F>(result: &AidResult<F>, optimum: f64) {
    for pair in result.history.windows(2) {
        assert!(pair[1].lower_bound >= pair[0].lower_bound, "lower bound decreased");
        assert!(pair[1].upper_bound <= pair[0].upper_bound, "upper bound increased");
    }
    for entry in &result.history {
        assert!(entry.lower_bound <= optimum * (1.0 + 1e-7) + 1e-9, "{entry:?} vs {optimum}");
        // The direct solve is itself accurate to about 1e-8 (f32 kernel cache).
        assert!(entry.upper_bound >= optimum * (1.0 - 1e-7), "{entry:?} vs {optimum}");
        assert!(entry.aggregated_objective <= optimum * (1.0 + 1e-6) + 1e-9, "{entry:?}");
    }
}

fn lad_data(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>, usize) {
    let mut rng = Random(seed);
    let d = 4;
    let beta = [1.5, -2.0, 0.5, 3.0];
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let row = [rng.normal(), rng.normal(), rng.normal(), 1.0];
        let noise = rng.normal() / (0.2 + rng.uniform());
        y.push(row.iter().zip(&beta).map(|(a, b)| a * b).sum::<f64>() + noise);
        x.extend_from_slice(&row);
    }
    (x, y, d)
}

#[test]
fn lad_reaches_the_direct_optimum_from_kmeans_and_random_starts() {
    let (x, y, d) = lad_data(300, 1);
    let mut full = WeightedLad { x: x.clone(), d, y: y.clone(), weights: vec![1.0; y.len()] };
    let options = SolveOptions { tol: 1e-10, ..SolveOptions::default() };
    let optimum = ClarabelLp.solve(&mut full, &options, &mut NoMonitor).unwrap().objective;
    let aid = Aid { options: AidOptions { tol: 0.0, max_iter: 200, time_limit: None } };
    for initial in [Initial::KMeans { k: 9, seed: 3 }, Initial::Random { k: 9, seed: 4 }] {
        let mut model = LadModel::new(&x, d, &y, ClarabelLp, options.clone()).unwrap();
        let start = lad_partition(&x, d, &y, &initial, &mut NoMonitor).unwrap();
        let result = aid.run(&mut model, start, &mut NoAidMonitor::default()).unwrap();
        assert_eq!(result.status, AidStatus::Optimal, "{initial:?}");
        assert!(
            (result.objective - optimum).abs() <= 1e-7 * optimum,
            "{} vs {optimum}",
            result.objective
        );
        assert_monotone_bounds(&result, optimum);
        assert!(result.history.windows(2).all(|p| p[1].n_clusters > p[0].n_clusters));
    }
}

fn svm_data(n: usize, seed: u64) -> (Vec<f64>, Vec<i8>) {
    let mut rng = Random(seed);
    let mut x = Vec::with_capacity(2 * n);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let label: i8 = if i % 3 == 0 { -1 } else { 1 };
        let shift = f64::from(label);
        x.extend_from_slice(&[rng.normal() + shift, 0.5 * rng.normal() - shift]);
        y.push(label);
    }
    (x, y)
}

/// `½ αᵀQα + C Σ hinge` of the full problem from a direct SMO solve.
fn direct_svm_objective(x: &[f64], y: &[i8], c: f64, kernel: KernelFunction) -> f64 {
    let n = y.len();
    let source = DenseKernel::new(DenseRows::new(x, n, 2).unwrap(), kernel).unwrap();
    let options = SolveOptions { tol: 1e-9, ..SolveOptions::default() };
    let solution = c_svc(source.clone(), y, vec![c; n], &options, &mut NoMonitor).unwrap();
    let mut gram = vec![0.0; n * n];
    source.fill_block(&(0..n).collect::<Vec<_>>(), 0, n, &mut gram);
    let coef: Vec<f64> = solution.x.iter().zip(y).map(|(a, &l)| a * f64::from(l)).collect();
    let f: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| coef[j] * gram[j * n + i]).sum::<f64>() + solution.bias)
        .collect();
    let norm2: f64 = (0..n).map(|i| coef[i] * (f[i] - solution.bias)).sum();
    0.5 * norm2
        + c * f.iter().zip(y).map(|(fi, &l)| (1.0 - f64::from(l) * fi).max(0.0)).sum::<f64>()
}

#[test]
fn svm_reaches_the_direct_optimum_linear_and_rbf() {
    let options = SolveOptions { tol: 1e-9, ..SolveOptions::default() };
    // "Optimal" certifies a gap of at most `tol` (a gap of 0 is beyond float64's reach).
    let aid = Aid { options: AidOptions { tol: 1e-9, max_iter: 200, time_limit: None } };
    for (kernel, n) in [(KernelFunction::Linear, 240), (KernelFunction::Rbf { gamma: 0.7 }, 120)] {
        let (x, y) = svm_data(n, 5);
        let c = 0.5;
        let optimum = direct_svm_objective(&x, &y, c, kernel);
        for initial in [Initial::KMeans { k: 6, seed: 1 }, Initial::Random { k: 6, seed: 2 }] {
            let data = SvmData { x: &x, d: 2, y: &y, c, kernel };
            let mut model = SvmModel::new(data, Smo, options.clone()).unwrap();
            let start =
                svm_partition(&x, 2, &y, c, kernel, &initial, &options, &mut NoMonitor).unwrap();
            let result = aid.run(&mut model, start, &mut NoAidMonitor::default()).unwrap();
            assert_eq!(result.status, AidStatus::Optimal, "{kernel:?} {initial:?}");
            let relative = (result.objective - optimum).abs() / optimum;
            assert!(relative <= 1e-6, "{kernel:?} {initial:?}: {} vs {optimum}", result.objective);
            assert_monotone_bounds(&result, optimum);
            // Label-pure clusters throughout: the final partition never mixes classes.
            for k in 0..result.partition.len() {
                let rows = result.partition.members(k);
                assert!(rows.iter().all(|&i| y[i as usize] == y[rows[0] as usize]));
            }
        }
    }
}

fn block_means(x: &[f64], d: usize, kernel: KernelFunction, partition: &Partition) -> Vec<f64> {
    let n = x.len() / d;
    let source = DenseKernel::new(DenseRows::new(x, n, d).unwrap(), kernel).unwrap();
    let mut gram = vec![0.0; n * n];
    source.fill_block(&(0..n).collect::<Vec<_>>(), 0, n, &mut gram);
    let k = partition.len();
    let mut out = vec![0.0; k * k];
    for a in 0..k {
        for b in 0..k {
            let mut sum = 0.0;
            for &i in partition.members(a) {
                for &j in partition.members(b) {
                    sum += gram[i as usize * n + j as usize];
                }
            }
            out[a * k + b] = sum / (partition.size(a) * partition.size(b));
        }
    }
    out
}

#[test]
fn aggregated_kernel_is_the_block_mean_after_every_split() {
    let mut rng = Random(11);
    let (n, d) = (70, 3);
    let x: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
    let kernel = KernelFunction::Rbf { gamma: 0.3 };
    let labels: Vec<i64> = (0..n).map(|_| (rng.uniform() * 5.0) as i64).collect();
    let mut partition = Partition::from_labels(&labels).unwrap();
    let mut gram = AggregatedGram::new(&x, d, kernel, 1 << 20).unwrap();
    gram.update(&partition, &[], &NoMonitor).unwrap();
    for round in 0..4 {
        let expected = block_means(&x, d, kernel, &partition);
        for (got, want) in gram.means().iter().zip(&expected) {
            assert!((got - want).abs() <= 1e-12, "round {round}: {got} vs {want}");
        }
        // Split about half of the clusters into up to three random cells.
        let clusters: Vec<usize> = (0..partition.len()).filter(|&k| k % 2 == round % 2).collect();
        let cells: Vec<u8> = (0..n).map(|_| (rng.uniform() * 3.0) as u8).collect();
        let splits = partition.split(&clusters, &cells);
        gram.update(&partition, &splits, &NoMonitor).unwrap();
    }
    // The block mean is not the kernel of the centroids (digest §7.8).
    let centroids = partition.centroids(&x, d);
    let k = partition.len();
    let source = DenseKernel::new(DenseRows::new(&centroids, k, d).unwrap(), kernel).unwrap();
    let mut at_centroids = vec![0.0; k * k];
    source.fill_block(&(0..k).collect::<Vec<_>>(), 0, k, &mut at_centroids);
    let differs = gram.means().iter().zip(&at_centroids).any(|(a, b)| (a - b).abs() > 1e-3);
    assert!(differs);
}

/// A monitor that reports Ctrl-C from its `after`-th question on, counting the questions.
struct InterruptedAfter {
    after: usize,
    asked: std::sync::atomic::AtomicUsize,
}

impl Monitor for InterruptedAfter {
    fn report(&mut self, _progress: &Progress) -> Control {
        Control::Continue
    }

    fn interrupted(&self) -> bool {
        self.asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1 >= self.after
    }
}

#[test]
fn aggregated_kernel_sums_stop_at_an_interruption() {
    // The first partition's sums are n² kernel values (seconds at 20,000 rows): they ask
    // between rounds of rows, a split before each row's column, the decision values before
    // each column, and each stops at the first "interrupted".
    let mut rng = Random(12);
    let (n, d) = (3000, 2);
    let x: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
    let kernel = KernelFunction::Rbf { gamma: 0.3 };
    let labels: Vec<i64> = (0..n).map(|i| (i % 4) as i64).collect();
    let mut partition = Partition::from_labels(&labels).unwrap();
    let monitor = |after| InterruptedAfter { after, asked: Default::default() };
    let mut gram = AggregatedGram::new(&x, d, kernel, 1 << 20).unwrap();
    let stopped = monitor(2);
    assert!(matches!(gram.update(&partition, &[], &stopped), Err(SolveError::Interrupted)));
    assert_eq!(stopped.asked.into_inner(), 2, "the pass stopped at the second round");
    let unbothered = monitor(usize::MAX);
    gram.update(&partition, &[], &unbothered).unwrap();
    assert!(unbothered.asked.into_inner() >= n / 1024, "the pass asked once per round");
    let cells: Vec<u8> = (0..n).map(|i| (i / 4 % 2) as u8).collect();
    let splits = partition.split(&[0, 1], &cells);
    assert_eq!(splits.len(), 2);
    let stopped = monitor(3);
    assert!(matches!(gram.update(&partition, &splits, &stopped), Err(SolveError::Interrupted)));
    assert_eq!(stopped.asked.into_inner(), 3);
    let coef = vec![0.5; n];
    let stopped = monitor(1);
    assert!(matches!(gram.decision(&coef, 0.0, &stopped), Err(SolveError::Interrupted)));
}

#[test]
fn s3vm_counterexample_stops_pure_above_the_optimum() {
    // Digest §8.3: a pure final partition whose objective is 23% above the true optimum.
    let labeled = [
        [0.8916122155234119, 1.8144604997673728],
        [0.20330949437098766, 2.1889871203074502],
        [-1.4309529073488443, -4.4875957073615735],
        [-1.0473224241970343, -0.9081861979290371],
    ];
    let unlabeled = [
        [-2.350201041222289, 0.9483438837883948],
        [2.3739863658103646, -2.3122003491613996],
        [1.5119200189951172, 1.7347695999188917],
        [-1.9007691129550595, -0.8861873527727842],
        [-2.1864004502714027, -1.1574301735286947],
        [-0.10001032165079214, 2.3324370192729154],
        [-1.2778335217016896, -3.1093459151316014],
    ];
    let x: Vec<f64> = labeled.iter().chain(&unlabeled).flatten().copied().collect();
    let y: Vec<i8> = vec![1, 1, -1, -1, 0, 0, 0, 0, 0, 0, 0];
    let clusters: Vec<i64> = vec![0, 1, 2, 3, 10, 11, 12, 13, 14, 11, 14];
    let options = SolveOptions { tol: 1e-10, ..SolveOptions::default() };
    let data = S3vmData {
        x: &x,
        d: 2,
        y: &y,
        c_labeled: 0.5,
        c_unlabeled: 0.1,
        balance: S3vmBalance::None,
    };
    let mut model = S3vmModel::new(data, Smo, options, 12).unwrap();
    let start = s3vm_partition(&x, 2, &y, &Initial::Given(clusters)).unwrap();
    let aid = Aid { options: AidOptions { tol: 0.0, max_iter: 10, time_limit: None } };
    let result = aid.run(&mut model, start, &mut NoAidMonitor::default()).unwrap();
    assert_eq!(result.status, AidStatus::Pure);
    assert_eq!(result.history.len(), 1);
    assert!(
        (result.last_aggregated_objective - 0.3241388).abs() < 1e-6,
        "{}",
        result.last_aggregated_objective
    );
    assert!((result.objective - result.last_aggregated_objective).abs() < 1e-9);
    // The brute-force optimum of the digest, 0.2639187, is far below.
    assert!(result.objective > 0.2639187 * 1.2);

    // The aggregated solve is the pure step `search_labels` (what the Dask driver calls): on the
    // start's clusters it gives the driver's iterate bit for bit.
    let start =
        s3vm_partition(&x, 2, &y, &Initial::Given(vec![0, 1, 2, 3, 10, 11, 12, 13, 14, 11, 14]))
            .unwrap();
    let labels = start.labels(&y);
    let weights: Vec<f64> =
        (0..start.len()).map(|k| start.size(k) * if labels[k] == 0 { 0.1 } else { 0.5 }).collect();
    let options = SolveOptions { tol: 1e-10, ..SolveOptions::default() };
    let found = search_labels(
        start.centroids(&x, 2),
        2,
        labels.clone(),
        weights.clone(),
        12,
        &Smo,
        &options,
        None,
        &mut NoMonitor,
    )
    .unwrap();
    assert_eq!(found.objective.to_bits(), result.last_aggregated_objective.to_bits());
    assert_eq!(found.w, result.fit.w);
    assert_eq!(found.bias.to_bits(), result.fit.bias.to_bits());
    assert!(!found.cut);
    // Bad input names the argument.
    let mut negative = weights;
    negative[0] = -1.0;
    let error = search_labels(
        start.centroids(&x, 2),
        2,
        labels,
        negative,
        12,
        &Smo,
        &options,
        None,
        &mut NoMonitor,
    )
    .unwrap_err();
    assert!(error.to_string().contains("weights"), "{error}");
}

#[test]
fn blockwise_random_ids_are_the_random_start() {
    let (x, y, d) = lad_data(1000, 5);
    let (k, seed) = (7, 11);
    let mut ids = Vec::new();
    for (start, end) in [(0, 333), (333, 334), (334, 1000)] {
        let (block, rejected) = random_labels_from(start, end - start, k, seed);
        assert!(!rejected);
        ids.extend(block);
    }
    assert!(ids.iter().all(|&c| (0..k as i64).contains(&c)));
    let start = lad_partition(&x, d, &y, &Initial::Random { k, seed }, &mut NoMonitor).unwrap();
    assert_eq!(start, Partition::from_labels(&ids).unwrap());
    assert_eq!(start.len(), k);
}

#[test]
fn two_step_seeding_and_assignment_are_weighted_kmeans() {
    // More points than the seeding sample, so that the seeding draws one.
    let mut rng = Random(9);
    let (n, d, k, seed) = (25_000, 2, 40, 17);
    let points: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
    let seeding = KMeansSeeding::new(n, seed);
    let positions = seeding.positions().to_vec();
    assert_eq!(positions.len(), 20_000);
    assert!(positions.windows(2).all(|p| p[0] < p[1]));
    let sample: Vec<f64> =
        positions.iter().flat_map(|&i| points[i * d..(i + 1) * d].iter().copied()).collect();
    let centres = seeding.centres(&sample, d, k).unwrap();
    assert_eq!(centres.len(), k * d);
    let labels: Vec<i64> = assign(&points, d, &centres).into_iter().map(i64::from).collect();
    let reference: Vec<i64> =
        weighted_kmeans(&points, d, &vec![1.0; n], k, 0, seed).into_iter().map(i64::from).collect();
    assert_eq!(
        Partition::from_labels(&labels).unwrap(),
        Partition::from_labels(&reference).unwrap()
    );
    // Every point's centre is a nearest one (brute force).
    for (i, &c) in labels.iter().enumerate().step_by(97) {
        let z = &points[i * d..(i + 1) * d];
        let dist = |j: usize| -> f64 {
            z.iter().zip(&centres[j * d..(j + 1) * d]).map(|(a, b)| (a - b) * (a - b)).sum()
        };
        assert!((0..k).all(|j| dist(c as usize) <= dist(j)), "row {i}");
    }
    let error = KMeansSeeding::new(n, seed).centres(&sample[1..], d, k).unwrap_err();
    assert!(error.to_string().contains("sample_points"), "{error}");
}

#[test]
fn aggregated_kernel_refuses_rows_without_a_feature() {
    // n · 0 values: the rows' count is lost, and the clusters' ids would index past them.
    let error = AggregatedGram::new(&[], 0, KernelFunction::Linear, 1 << 20).err();
    assert!(error.is_some_and(|e| e.to_string().contains("no feature")));
}
