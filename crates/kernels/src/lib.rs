//! # kernelkit-kernels: the column oracle
//!
//! Everything a dual decomposition solver needs to know about the data, and nothing else.
//! Three files hold the decisions: [`plan`](mod@plan) (which representation of the rows computes the
//! kernel values, from facts about the data: [`KernelPath`]), `row_store.rs` ([`RowStore`], the
//! one trait every representation implements, and [`Kernel`], the one generic kernel over any
//! of them, a [`KernelSource`]) and [`level`] (the SIMD [`Level`], the only place where CPU
//! features are detected, capped by `KERNELKIT_SIMD`). The representations are one type each,
//! in `dense_stores.rs` and `sparse_stores.rs`.
//!
//! * [`DenseRows`]: the training rows (row-major `f64`) with their squared norms, and
//!   [`CsrRows`] for sparse rows (scipy CSR, or dense data with few non-zeros); [`RowFacts`]
//!   computes once what one-vs-one's pair subsets of the same rows share;
//! * [`KernelFunction`]: linear, RBF, polynomial, sigmoid (LIBSVM's definitions) and
//!   [`PrecomputedGram`] for a user-given Gram matrix;
//! * [`KernelSource`]: blocks of kernel values `K[rows, start..end]`, inner products (one GEMM
//!   for dense blocks of four rows or more, `matrixmultiply`) followed by the elementwise map,
//!   in parallel over fixed chunks: on the solve's spinning [`team`] inside a solve, else on
//!   rayon. [`DenseKernel`] and [`SparseKernel`] are the [`Kernel`] over the store the plan
//!   chose; [`DenseKernel`] computes the columns of often repeated short rows (categorical data)
//!   over the distinct rows once and gathers them to the positions (bitwise the same values);
//! * [`RowCache`]: LIBSVM's LRU cache of `f32` columns under a byte budget, with lazily
//!   extended partial columns and `swap_index` coherence for shrinking;
//! * [`QMatrix`]: the only interface a dual solver sees, with the SMO solvers' passes
//!   ([`QMatrixPasses`]), implemented by [`SignedQ`] (`y_i y_j K_ij`, C-SVC;
//!   [`SignedQ::unsigned`] for one-class and user matrices) and [`SvrQ`] (the doubled
//!   `2l × 2l` ε-SVR matrix);
//! * [`CachedColumns`]: the one cached-column type, columns of `map(K)` ([`EntryMap`]) in `f64`
//!   or `f32`: [`Plain`] for sparse KLR, GSMO and AID, [`Meb`] ([`MebQ`]) for the L2-SVM's
//!   modified kernel `y_i y_j (k_ij + 1) + δ_ij / C` (Frank–Wolfe), [`Signs`] in `f32`
//!   ([`SignedQ`]) for SMO and USMO, and plain `f32` kernel rows under [`SvrQ`].
//!
//! The crate has no Python dependency; `kernelkit-py` is a thin binding over it.
//!
//! # Example
//!
//! A block of RBF kernel values, `K[rows, start..end]`, against the definition
//! `exp(−γ‖x − z‖²)`:
//!
//! ```
//! use kernelkit_kernels::{DenseKernel, DenseRows, KernelFunction, KernelSource};
//!
//! let x = [0.0, 0.0, 1.0, 0.0, 0.0, 2.0]; // three rows of two features, row-major
//! let kernel = DenseKernel::new(DenseRows::new(&x, 3, 2)?, KernelFunction::Rbf { gamma: 0.5 })?;
//! let mut block = [0.0; 6];
//! kernel.fill_block(&[0, 2], 0, 3, &mut block); // rows 0 and 2, every column
//! let distance2 =
//!     |a: usize, b: usize| (0..2).map(|f| (x[2 * a + f] - x[2 * b + f]).powi(2)).sum::<f64>();
//! for (r, &i) in [0, 2].iter().enumerate() {
//!     for j in 0..3 {
//!         assert!((block[3 * r + j] - (-0.5 * distance2(i, j)).exp()).abs() < 1e-15);
//!     }
//! }
//! # Ok::<(), kernelkit_kernels::KernelError>(())
//! ```

// The module documentation carries the mathematics and the design, and links into the private
// modules where they live: `cargo doc --document-private-items` (run by `.ci/run` with
// warnings as errors) resolves those links.
#![allow(rustdoc::private_intra_doc_links)]

mod bitmap;
mod cache;
mod cached_columns;
pub mod column_sums;
mod cross;
mod dense;
mod dense_stores;
mod distinct;
mod error;
mod feature_major;
mod fixed_point;
mod function;
pub mod level;
mod padded;
mod panels;
mod parallel;
mod per_thread;
pub mod plan;
mod precomputed;
mod qmatrix;
mod rbf_expansion;
mod rbf_table;
#[cfg(test)]
mod reference_tests;
mod repeats;
mod row_facts;
mod row_store;
mod signed_q;
mod simd;
mod simd_avx512;
mod single_products;
mod source;
mod sparse;
mod sparse_stores;
mod svr_qmatrix;
pub mod team;
#[cfg(test)]
#[path = "../../solvers/tests/common/xorshift.rs"]
mod test_random;

pub use cache::{CacheStats, Growth, RowCache};
pub use cached_columns::{CachedColumns, EntryMap, Meb, MebQ, Plain, SignedQ, Signs};
pub use cross::{cross_kernel, cross_kernel_product, kernel_block, kernel_row_sums, RowSet};
pub use dense::DenseRows;
pub use dense_stores::{F32Rows, F64Rows, FeatureMajorRows, FixedPointRows};
pub use error::KernelError;
pub use function::KernelFunction;
pub use level::Level;
pub use parallel::{chunk_ranges, PARALLEL_MIN_LEN};
pub use per_thread::PerThread;
pub use plan::{plan, DataFacts, Given, KernelPath, Preferences, SPARSE_DENSITY_THRESHOLD};
pub use precomputed::PrecomputedGram;
pub use qmatrix::{columns_one_by_one, ColumnsVisit, QMatrix, QMatrixPasses, WindowThen};
pub use repeats::{first_dense_occurrences, first_sparse_occurrences, RowValue};
pub use row_facts::{FactRows, RowFacts};
pub use row_store::{Kernel, RowStore, Window};
pub use source::{DenseKernel, Finish, KernelSource, SHARED_PASS_ROWS};
pub use sparse::{density, CsrRows, SparseKernel};
pub use sparse_stores::{BitsetStore, CsrStore, PaddedStore};
pub use svr_qmatrix::SvrQ;
