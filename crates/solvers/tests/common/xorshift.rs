//! Marsaglia's xorshift64 generator (shifts 13, 7, 17; Marsaglia 2003, "Xorshift RNGs"), the
//! deterministic data of the SMO and USMO tests and of the benches (`#[path]`-included).

/// An xorshift64 generator holding its state (never 0).
pub struct XorShift(pub u64);

impl XorShift {
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
