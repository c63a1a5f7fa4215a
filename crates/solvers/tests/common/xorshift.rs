//! Marsaglia's xorshift64 generator (shifts 13, 7, 17; Marsaglia 2003, "Xorshift RNGs"), the
//! deterministic data of the SMO and USMO tests, of the benches and of the kernels crate's unit
//! tests (`#[path]`-included; each includer uses part of it).
#![allow(dead_code)]

/// An xorshift64 generator holding its state (never 0).
pub struct XorShift(pub u64);

impl XorShift {
    /// The generator of `seed`: the seed times the 64-bit golden-ratio constant, made odd.
    pub fn seeded(seed: u64) -> Self {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next state.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `[0, 1)`: the top 53 bits of the next state.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
