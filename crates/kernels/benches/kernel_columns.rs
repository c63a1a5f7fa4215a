//! Kernel block fill and row-cache hit/miss costs.
//!
//! `cargo bench -p kernelkit-kernels --bench kernel_columns`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kernelkit_kernels::{
    CsrRows, DenseKernel, DenseRows, KernelFunction, KernelSource, QMatrix, RowCache, SignedQ,
    SparseKernel,
};

#[path = "../../solvers/tests/common/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

/// a9a-like data: `n × d`, about 11% non-zero binary features.
fn data(n: usize, d: usize) -> Vec<f64> {
    data_with_density(n, d, 9)
}

/// The RBF kernel (γ = 0.5) over the dense rows `values` (`n × d`).
fn rbf(values: &[f64], n: usize, d: usize) -> DenseKernel<'_> {
    DenseKernel::new(DenseRows::new(values, n, d).unwrap(), KernelFunction::Rbf { gamma: 0.5 })
        .unwrap()
}

/// `n × d` binary data with about one value in `one_in` non-zero.
fn data_with_density(n: usize, d: usize, one_in: u64) -> Vec<f64> {
    let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
    (0..n * d).map(|_| if random.next_u64().is_multiple_of(one_in) { 1.0 } else { 0.0 }).collect()
}

fn kernel_block_fill(c: &mut Criterion) {
    let (n, d) = (8000, 123);
    let values = data(n, d);
    let kernel = rbf(&values, n, d);
    let mut group = c.benchmark_group("fill_block_rbf_8000x123");
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for rows in [1usize, 2, 8, 32, 128] {
            let index: Vec<usize> = (0..rows).map(|r| r * 37 % n).collect();
            let mut out = vec![0.0; rows * n];
            group.throughput(Throughput::Elements((rows * n) as u64));
            group.bench_with_input(
                BenchmarkId::new(format!("threads{threads}"), rows),
                &rows,
                |b, _| {
                    // Inside the pool: handing each call to a sleeping pool thread would cost
                    // about 50 us, more than most of the calls.
                    pool.install(|| b.iter(|| kernel.fill_block(black_box(&index), 0, n, &mut out)))
                },
            );
        }
    }
    group.finish();
}

fn cache_hit_and_miss(c: &mut Criterion) {
    let (n, d) = (4000, 123);
    let values = data(n, d);
    let kernel = rbf(&values, n, d);
    let signs: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
    let mut group = c.benchmark_group("signed_q_column_4000");
    let mut q = SignedQ::new(kernel.clone(), signs.clone(), 1 << 30);
    q.column(7, n);
    group.bench_function("hit", |b| b.iter(|| black_box(q.column(black_box(7), n)[3])));
    // A two-column budget: every alternate request misses.
    let mut small = SignedQ::new(kernel, signs, 0);
    let mut next = 0usize;
    group.bench_function("miss", |b| {
        b.iter(|| {
            next = (next + 1) % 3;
            black_box(small.column(next, n)[3])
        })
    });
    group.finish();

    let mut lru = c.benchmark_group("row_cache");
    lru.bench_function("get_evict_1000_columns_of_1000", |b| {
        b.iter(|| {
            let mut cache = RowCache::<f32>::new(1000, 1000 * 4 * 100);
            for k in 0..1000 {
                let (column, _) = cache.get(k * 7 % 1000, 1000, None);
                column[0] = 1.0;
            }
            black_box(cache.stats())
        })
    });
    lru.finish();
}

/// One kernel column (one left row against all rows) from dense rows and from CSR, by
/// density: where CSR starts to pay (`SPARSE_DENSITY_THRESHOLD`).
fn dense_versus_csr(c: &mut Criterion) {
    let (n, d) = (8000, 123);
    let mut group = c.benchmark_group("fill_block_dense_vs_csr_8000x123");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for one_in in [2u64, 4, 8, 16] {
        let values = data_with_density(n, d, one_in);
        let f = KernelFunction::Rbf { gamma: 0.5 };
        let dense = DenseKernel::new(DenseRows::new(&values, n, d).unwrap(), f).unwrap();
        let sparse = SparseKernel::new(CsrRows::from_dense(&values, n, d).unwrap(), f).unwrap();
        let mut out = vec![0.0; n];
        let label = format!("density_1_in_{one_in}");
        group.bench_function(BenchmarkId::new("dense", &label), |b| {
            pool.install(|| b.iter(|| dense.fill_block(black_box(&[5]), 0, n, &mut out)))
        });
        group.bench_function(BenchmarkId::new("csr", &label), |b| {
            pool.install(|| b.iter(|| sparse.fill_block(black_box(&[5]), 0, n, &mut out)))
        });
    }
    group.finish();
}

/// One, two or three columns per `fill_block`, one thread:
/// * wide dense rows (a USPS one-vs-one pair, 1,458 × 256), in `f64` and exactly-`f32` values
///   (read from the `f32` copy): the columns share one pass over the rows
///   (`KernelSource::shares_passes`, the speculative columns of SMO);
/// * narrow rows (a kddcup subset, 20,000 × 41, kept feature-major), which do not share passes:
///   the reference for that choice; all distinct, and 8,181 distinct rows repeated (computed
///   once each, then gathered).
fn shared_passes(c: &mut Criterion) {
    let wave = |n: usize, d: usize| -> Vec<f64> {
        (0..n * d).map(|k| ((k * 37 % 101) as f64 / 50.0 - 1.0).sin()).collect()
    };
    let wide = wave(1458, 256);
    let wide_single: Vec<f64> = wide.iter().map(|&v| f64::from(v as f32)).collect();
    // Every row distinct; and 8,181 distinct rows repeated, as in the kddcup subset.
    let distinct: Vec<f64> = (0..20_000 * 41).map(|k| (k as f64 * 0.618).sin()).collect();
    let repeated: Vec<f64> =
        (0..20_000).flat_map(|t| distinct[(t * 389 % 8181) * 41..][..41].to_vec()).collect();
    let cases = [
        ("wide_rbf_1458x256", &wide, 1458, 256),
        ("wide_f32_rbf_1458x256", &wide_single, 1458, 256),
        ("wide_f32_single_products_rbf_1458x256", &wide_single, 1458, 256),
        ("narrow_rbf_20000x41", &distinct, 20_000, 41),
        ("narrow_repeated_rbf_20000x41", &repeated, 20_000, 41),
    ];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for (name, values, n, d) in cases {
        let kernel = DenseKernel::new(
            DenseRows::new(values, n, d).unwrap(),
            KernelFunction::Rbf { gamma: 0.01 },
        )
        .unwrap()
        .with_single_products(name.contains("single_products"));
        assert_eq!(kernel.sums_in_single_precision(), name.contains("single_products"));
        assert_eq!(kernel.shares_passes(), name.starts_with("wide"));
        assert_eq!(kernel.reads_single_precision(), name.contains("f32"));
        assert_eq!(kernel.distinct_rows().is_some(), name.contains("repeated"));
        let mut group = c.benchmark_group(format!("fill_block_{name}"));
        for rows in [1usize, 2, 3] {
            let index: Vec<usize> = (0..rows).map(|r| r * 7 + 1).collect();
            let mut out = vec![0.0; rows * n];
            group.throughput(Throughput::Elements((rows * n) as u64));
            group.bench_with_input(BenchmarkId::new("columns", rows), &rows, |b, _| {
                // Inside the pool: handing each call to a sleeping pool thread would cost
                // about 50 us, more than most of the calls.
                pool.install(|| b.iter(|| kernel.fill_block(black_box(&index), 0, n, &mut out)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, kernel_block_fill, cache_hit_and_miss, dense_versus_csr, shared_passes);
criterion_main!(benches);
