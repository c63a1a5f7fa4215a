//! The check that two solves took the same steps to the same point, bit for bit (thread
//! counts, fused or plain passes, blocks of columns): the SMO tests (`#[path]`-included).

use kernelkit_solvers::Solution;

/// Asserts that `a` and `b` have the same iteration count, `x` and bias, bit for bit; `what`
/// names the case in the message.
pub fn assert_same_iterates(a: &Solution, b: &Solution, what: &str) {
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<u64>>();
    assert_eq!(a.iterations, b.iterations, "{what}: iterations");
    assert_eq!(bits(&a.x), bits(&b.x), "{what}: x");
    assert_eq!(a.bias.to_bits(), b.bias.to_bits(), "{what}: bias");
}
