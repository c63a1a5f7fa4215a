//! The SIMD level: the one place where kernelkit learns what the CPU can run.
//!
//! Every vectorised loop of both crates is compiled several times (`#[target_feature]`) and
//! chosen at run time by one value, [`Level::current`]: the CPU's features, detected once, capped
//! by the environment variable `KERNELKIT_SIMD` (as matrixmultiply's `MMTEST_FEATURE` caps its
//! kernels). Capping is how every compiled loop below the host's runs in tests: `.ci/run` runs
//! the Rust tests and the kernel Python tests once per level this machine supports.
//!
//! | level        | `KERNELKIT_SIMD` | features required                                  |
//! |--------------|------------------|----------------------------------------------------|
//! | `Scalar`     | `scalar`         | none (baseline x86-64: SSE2; portable bit counts)  |
//! | `Avx2`       | `avx2`           | AVX2, FMA, `popcnt`                                |
//! | `Avx512`     | `avx512`         | the above, AVX-512F, AVX-512BW                     |
//! | `Avx512Vnni` | `avx512vnni`     | the above, AVX-512 VNNI                            |
//!
//! `native` (or an unset variable) is the highest level the CPU has; a cap above it gives the
//! CPU's level. The popcount features: `popcnt` belongs to `Avx2` (every AVX2 CPU, Intel since
//! Haswell and every AMD Zen, has it, so `Scalar` is the only level that runs the portable bit
//! count and tests it); AVX-512 `vpopcntq` (VPOPCNTDQ) is not a level of its own, because CPUs
//! with VNNI lack it (Cascade Lake) and CPUs with it differ in VNNI too: the bit-set loop uses it
//! at `Avx512` and above where the CPU has it ([`Level::vpopcntq`]). So on a CPU with both
//! (Ice Lake, Sapphire Rapids, Zen 4) `scalar`, `avx2` and `avx512` run the three bit counts.
//!
//! Results never depend on the level beyond the last bit of sums that use fused multiply–adds
//! (`Scalar` multiplies and adds separately); the loops that promise bitwise agreement between
//! levels (the AVX-512 and AVX2 inner products, the integer counts, the scans of the solvers)
//! are tested bit for bit.

use std::sync::OnceLock;

/// A set of vector instructions every loop may assume (ordered: each level includes the ones
/// below it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Baseline code of the target (SSE2 on x86-64), no `popcnt`.
    Scalar,
    /// AVX2 with FMA and `popcnt`.
    Avx2,
    /// AVX-512F and AVX-512BW (the 16-bit integer products of fixed-point rows without VNNI).
    Avx512,
    /// AVX-512 with VNNI (`vpdpwssd`).
    Avx512Vnni,
}

/// The environment variable that caps the level.
pub const ENV: &str = "KERNELKIT_SIMD";

/// What the CPU has, detected once.
#[derive(Debug, Clone, Copy)]
struct Features {
    level: Level,
    vpopcntq: bool,
}

fn features() -> Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    *FEATURES.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Features {
    use std::arch::is_x86_feature_detected as has;
    let avx2 = has!("avx2") && has!("fma") && has!("popcnt");
    let avx512 = avx2 && has!("avx512f") && has!("avx512bw");
    let level = match (avx2, avx512, avx512 && has!("avx512vnni")) {
        (_, _, true) => Level::Avx512Vnni,
        (_, true, false) => Level::Avx512,
        (true, false, false) => Level::Avx2,
        _ => Level::Scalar,
    };
    Features { level, vpopcntq: avx512 && has!("avx512vpopcntdq") }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Features {
    Features { level: Level::Scalar, vpopcntq: false }
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 4] = [Level::Scalar, Level::Avx2, Level::Avx512, Level::Avx512Vnni];

    /// The name `KERNELKIT_SIMD` takes and `solver_stats_["simd"]` reports.
    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
            Level::Avx512Vnni => "avx512vnni",
        }
    }

    /// The level a value of `KERNELKIT_SIMD` asks for: `Ok(None)` for `native` or an empty
    /// value, an error naming the variable and the accepted values otherwise.
    pub fn parse(value: &str) -> Result<Option<Level>, String> {
        let value = value.trim().to_ascii_lowercase();
        if value.is_empty() || value == "native" {
            return Ok(None);
        }
        Level::ALL.into_iter().find(|level| level.name() == value).map(Some).ok_or_else(|| {
            format!("{ENV}={value:?} is not a SIMD level: use scalar, avx2, avx512, avx512vnni or native")
        })
    }

    /// The highest level this CPU supports (detected once).
    pub fn detected() -> Level {
        features().level
    }

    /// The level every loop runs at: [`Level::detected`] capped by `KERNELKIT_SIMD`, read once
    /// per process. An unrecognised value runs the native level ([`Level::check_env`] reports
    /// it: the Python estimators raise on it before fitting).
    pub fn current() -> Level {
        static CURRENT: OnceLock<Level> = OnceLock::new();
        *CURRENT.get_or_init(|| {
            let cap = std::env::var(ENV).ok().and_then(|v| Level::parse(&v).ok().flatten());
            cap.map_or(Level::detected(), |cap| cap.min(Level::detected()))
        })
    }

    /// Whether `KERNELKIT_SIMD` holds a value [`Level::parse`] accepts (unset is fine).
    pub fn check_env() -> Result<(), String> {
        match std::env::var(ENV) {
            Ok(value) => Level::parse(&value).map(|_| ()),
            Err(std::env::VarError::NotPresent) => Ok(()),
            Err(std::env::VarError::NotUnicode(_)) => Err(format!("{ENV} is not valid Unicode")),
        }
    }

    /// Every level this CPU can run, lowest first (for tests that compare the levels' loops).
    pub fn supported() -> impl Iterator<Item = Level> {
        Level::ALL.into_iter().filter(|&level| level <= Level::detected())
    }

    /// Whether the bit-set loop may use AVX-512 `vpopcntq` at this level (see the module docs).
    pub fn vpopcntq(self) -> bool {
        self >= Level::Avx512 && features().vpopcntq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_bad_values_are_named() {
        for level in Level::ALL {
            assert_eq!(Level::parse(level.name()), Ok(Some(level)));
            assert_eq!(Level::parse(&level.name().to_uppercase()), Ok(Some(level)));
        }
        assert_eq!(Level::parse("native"), Ok(None));
        assert_eq!(Level::parse(""), Ok(None));
        let error = Level::parse("sse4").unwrap_err();
        assert!(error.contains("KERNELKIT_SIMD") && error.contains("avx512vnni"), "{error}");
    }

    #[test]
    fn the_current_level_never_exceeds_the_cpus() {
        assert!(Level::current() <= Level::detected());
        assert!(Level::supported().all(|level| level <= Level::detected()));
        assert_eq!(Level::supported().next(), Some(Level::Scalar));
        if let Ok(Some(cap)) = std::env::var(ENV).map(|v| Level::parse(&v).unwrap_or(None)) {
            assert_eq!(Level::current(), cap.min(Level::detected()));
        }
        assert!(!Level::Avx2.vpopcntq() && !Level::Scalar.vpopcntq());
    }
}
