//! The plan: how kernel values are computed for given data, decided in one place.
//!
//! Each kernel source of this crate stores its rows in one of a few representations, each fast
//! for one kind of data. [`plan`] maps facts about the data ([`DataFacts`]), the kernel function
//! and the caller's [`Preferences`] to the representation, a [`KernelPath`]; the table below is
//! the whole decision, in order, and every threshold it uses is defined in this file. The
//! sources' constructors ([`crate::DenseKernel`], [`crate::SparseKernel`]) call these rules and
//! build one store of `dense_stores.rs` / `sparse_stores.rs` ([`crate::RowStore`]); the kernel
//! reports what was built ([`crate::KernelSource::path`], reported to Python users as
//! `solver_stats_["kernel_path"]`), and a test checks that each built kernel is the plan of its
//! data.
//!
//! | data                                                           | path                     |
//! |----------------------------------------------------------------|--------------------------|
//! | a Python callable                                              | `callable`               |
//! | a precomputed Gram matrix                                      | `precomputed`            |
//! | the linear kernel, for a solver that can use `w` (USMO)        | `linear_primal`          |
//! | CSR input, or dense with < 20 % non-zeros ([`reads_sparse`])   | the CSR paths below      |
//! | · every non-zero is 1, ≤ 1,024 features, RBF with a short table | `bitset_rbf_table`       |
//! | · every non-zero is 1, ≤ 1,024 features                         | `bitset`                 |
//! | · rows of similar length, ≤ 65,536 features ([`pads_rows`])     | `csr_padded`             |
//! | · otherwise                                                     | `csr`                    |
//! | dense, ≤ 64 features ([`reads_feature_major`]), ≤ 80 % distinct rows (≥ 1,024 rows) | `dense_distinct_rows` |
//! | dense, ≤ 64 features                                           | `dense_feature_major`    |
//! | dense, every value exactly an `f32`, `f32` products asked, values on one fixed-point grid | `fixed_point_i16` |
//! | dense, every value exactly an `f32`, `f32` products asked      | `dense_f32_products`     |
//! | dense, every value exactly an `f32`                            | `dense_f32`              |
//! | dense                                                          | `dense_f64`              |
//!
//! Why each: bit sets count shared features with `popcnt` (one-hot data such as a9a) and the
//! RBF of two 0/1 rows depends only on an integer distance, so it is looked up; padded slots
//! read a CSR row without its row pointer when rows are similar in length; short rows are read
//! feature-major (the products of a column vectorise over rows); repeated short rows are
//! computed once per distinct row and gathered; `f32` copies halve the bytes a column of wide
//! rows reads; fixed-point rows (pixels, counts) are summed exactly in 16-bit integers. The
//! `f32` products are asked for float32 input, whose kernel values the cache stores in `f32`
//! anyway (`Preferences::single_products`); solvers that cache `f64` columns (Frank–Wolfe,
//! sparse KLR) never ask.

use crate::function::KernelFunction;
use crate::sparse::SCATTER_MAX_FEATURES;

/// Dense data with a smaller fraction of non-zeros is read as CSR rows: a kernel column then
/// reads fewer bytes and does fewer multiply–adds (criterion bench `kernel_columns`,
/// `fill_block_dense_vs_csr`).
pub const SPARSE_DENSITY_THRESHOLD: f64 = 0.2;

/// Rows with at most this many features are read feature-major.
pub(crate) const NARROW_MAX_FEATURES: usize = 64;
/// ... unless the copy would exceed this many values (128 MB).
const NARROW_MAX_VALUES: usize = 1 << 24;

/// 0/1 rows are kept as bit sets of at most this many 64-bit words (1,024 features).
pub(crate) const MAX_BIT_SET_WORDS: usize = 16;

/// Repeated rows are looked for only from this many rows on.
pub(crate) const MIN_ROWS_FOR_REPEATS: usize = 1024;
/// Repeats are used only when at most this fraction of the rows is distinct.
pub(crate) const MAX_DISTINCT_FRACTION: f64 = 0.8;

/// How the values of a kernel are computed: one representation of the rows and its loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelPath {
    /// A Python callable returns blocks of values.
    Callable,
    /// A user-given Gram matrix.
    Precomputed,
    /// CSR rows, scattered or merged.
    Csr,
    /// CSR rows of similar lengths, in padded slots.
    CsrPadded,
    /// 0/1 rows as bit sets, inner products by counting shared features.
    Bitset,
    /// [`KernelPath::Bitset`] with the RBF looked up in a table of integer distances.
    BitsetRbfTable,
    /// Dense `f64` rows, read row-major (GEMM for blocks).
    DenseF64,
    /// Dense rows that are exactly `f32`, read in `f32` (products in `f64`).
    DenseF32,
    /// Dense `f32` rows with one to three columns summed in `f32`.
    DenseF32Products,
    /// Dense `f32` rows that are multiples of one quantum, summed exactly in 16-bit integers.
    FixedPointI16,
    /// Short dense rows, read feature-major.
    DenseFeatureMajor,
    /// Short, often repeated dense rows, computed once per distinct row.
    DenseDistinctRows,
    /// The linear kernel's primal vector `w = Σ c_i x_i`, no kernel columns at all (USMO's
    /// fast path, [`Preferences::linear_primal`]).
    LinearPrimal,
    /// A kernel source defined outside this crate.
    Custom,
}

impl KernelPath {
    /// Every path, in the order of the plan's table.
    pub const ALL: [KernelPath; 14] = [
        KernelPath::Callable,
        KernelPath::Precomputed,
        KernelPath::LinearPrimal,
        KernelPath::BitsetRbfTable,
        KernelPath::Bitset,
        KernelPath::CsrPadded,
        KernelPath::Csr,
        KernelPath::DenseDistinctRows,
        KernelPath::DenseFeatureMajor,
        KernelPath::FixedPointI16,
        KernelPath::DenseF32Products,
        KernelPath::DenseF32,
        KernelPath::DenseF64,
        KernelPath::Custom,
    ];

    /// The short stable name reported as `solver_stats_["kernel_path"]`.
    pub fn name(self) -> &'static str {
        match self {
            KernelPath::Callable => "callable",
            KernelPath::Precomputed => "precomputed",
            KernelPath::Csr => "csr",
            KernelPath::CsrPadded => "csr_padded",
            KernelPath::Bitset => "bitset",
            KernelPath::BitsetRbfTable => "bitset_rbf_table",
            KernelPath::DenseF64 => "dense_f64",
            KernelPath::DenseF32 => "dense_f32",
            KernelPath::DenseF32Products => "dense_f32_products",
            KernelPath::FixedPointI16 => "fixed_point_i16",
            KernelPath::DenseFeatureMajor => "dense_feature_major",
            KernelPath::DenseDistinctRows => "dense_distinct_rows",
            KernelPath::LinearPrimal => "linear_primal",
            KernelPath::Custom => "custom",
        }
    }
}

/// How the data reaches the kernel layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Given {
    /// A Python callable computes the kernel.
    Callable,
    /// The data is the Gram matrix.
    Precomputed,
    /// CSR arrays.
    Csr,
    /// A dense row-major array.
    Dense,
}

/// What the plan needs to know about the data (each fact is computed by the kernel source's
/// constructor from the rows; a test builds them independently).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataFacts {
    /// The form of the input.
    pub given: Given,
    /// Rows.
    pub n_rows: usize,
    /// Features.
    pub n_features: usize,
    /// Fraction of non-zero values (dense input; 1 for an empty array).
    pub density: f64,
    /// Every non-zero value is exactly 1.
    pub ones_only: bool,
    /// Every value is exactly an `f32`.
    pub exactly_f32: bool,
    /// Every value is an integer multiple of one quantum (`crate::fixed_point`).
    pub fixed_grid: bool,
    /// Non-zero values.
    pub nnz: usize,
    /// Non-zero values of the longest row.
    pub longest_row: usize,
    /// Distinct rows (equal values, `-0.0` read as `0.0`: [`crate::repeats`]).
    pub distinct_rows: usize,
    /// Largest squared norm of a row (for the RBF table of 0/1 rows).
    pub max_sq_norm: f64,
}

/// What the caller asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Preferences {
    /// One to three columns may be summed in `f32` (float32 input whose kernel values are
    /// cached in `f32`).
    pub single_products: bool,
    /// The solver can work with the linear kernel's primal vector instead of kernel columns.
    pub linear_primal: bool,
}

impl Preferences {
    /// The preferences for rows that were float32 input (`float32_input`) of a solver that
    /// caches its columns in `f32` (`f32_columns`: the SMO family; Frank–Wolfe and sparse KLR
    /// cache `f64`): `f32` products exactly when both hold, since they are then as precise as
    /// the cached columns.
    pub fn for_input(float32_input: bool, f32_columns: bool) -> Preferences {
        Preferences { single_products: float32_input && f32_columns, ..Preferences::default() }
    }
}

/// Whether a solver that can work with the linear kernel's primal `w` does so (`Given` callable
/// and precomputed kernels are never linear functions).
pub fn uses_linear_primal(function: KernelFunction, preferences: &Preferences) -> bool {
    preferences.linear_primal && function == KernelFunction::Linear
}

/// Whether dense data with this fraction of non-zeros is read as CSR rows (training, PU and
/// prediction alike).
pub fn reads_sparse(density: f64) -> bool {
    density < SPARSE_DENSITY_THRESHOLD
}

/// Whether `n` dense rows of `d` features are read feature-major (and looked at for repeats).
pub fn reads_feature_major(n: usize, d: usize) -> bool {
    d > 0 && d <= NARROW_MAX_FEATURES && n.saturating_mul(d) <= NARROW_MAX_VALUES
}

/// Whether rows of `n_features` features whose non-zeros are all 1 are kept as bit sets.
pub fn reads_bit_sets(ones_only: bool, n_features: usize) -> bool {
    ones_only && n_features.div_ceil(64).max(1) <= MAX_BIT_SET_WORDS
}

/// Whether `n` CSR rows of `n_features` features with `nnz` non-zeros, the longest `width`,
/// are padded to that width: when padding at most doubles the non-zeros read (and rows are not
/// all empty), and the rows are narrow enough for a requested row to be scattered (wider ones
/// are merged by sorted indices and would never read the slots).
pub fn pads_rows(n: usize, width: usize, nnz: usize, n_features: usize) -> bool {
    width > 0 && width.saturating_mul(n) <= 2 * nnz + n && n_features <= SCATTER_MAX_FEATURES
}

/// Whether `distinct` distinct rows out of `n` are few enough to compute columns over.
pub fn uses_repeats(n: usize, distinct: usize) -> bool {
    n >= MIN_ROWS_FOR_REPEATS && n <= u32::MAX as usize && distinct < most_distinct_rows(n)
}

/// The number of distinct rows from which repeats are not used (the search stops there).
pub(crate) fn most_distinct_rows(n: usize) -> usize {
    (n as f64 * MAX_DISTINCT_FRACTION) as usize
}

/// Whether the RBF of 0/1 rows of at most `max_sq_norm` features is looked up in a table.
pub fn looks_up_rbf(function: KernelFunction, max_sq_norm: f64) -> bool {
    crate::rbf_table::IntegerRbf::fits(function, max_sq_norm)
}

/// The representation for `facts`, `function` and `preferences` (the table of the module).
pub fn plan(facts: &DataFacts, function: KernelFunction, preferences: &Preferences) -> KernelPath {
    match facts.given {
        Given::Callable => return KernelPath::Callable,
        Given::Precomputed => return KernelPath::Precomputed,
        Given::Csr | Given::Dense => {}
    }
    if uses_linear_primal(function, preferences) {
        return KernelPath::LinearPrimal;
    }
    if facts.given == Given::Csr || reads_sparse(facts.density) {
        if reads_bit_sets(facts.ones_only, facts.n_features) {
            return if looks_up_rbf(function, facts.max_sq_norm) {
                KernelPath::BitsetRbfTable
            } else {
                KernelPath::Bitset
            };
        }
        return if pads_rows(facts.n_rows, facts.longest_row, facts.nnz, facts.n_features) {
            KernelPath::CsrPadded
        } else {
            KernelPath::Csr
        };
    }
    if reads_feature_major(facts.n_rows, facts.n_features) {
        return if uses_repeats(facts.n_rows, facts.distinct_rows) {
            KernelPath::DenseDistinctRows
        } else {
            KernelPath::DenseFeatureMajor
        };
    }
    match (facts.exactly_f32 && facts.n_features > 0, preferences.single_products) {
        (true, true) if facts.fixed_grid => KernelPath::FixedPointI16,
        (true, true) => KernelPath::DenseF32Products,
        (true, false) => KernelPath::DenseF32,
        (false, _) => KernelPath::DenseF64,
    }
}

#[cfg(test)]
mod tests;
