//! `PaddedRows`: CSR rows in *position* order, one fixed-width slot per row, stored in the most
//! compact encoding that represents them exactly.
//!
//! A sparse kernel column reads every stored value of every active row; for one-hot or text
//! data that read, not the arithmetic, bounds its cost, and the sparse column loop is a large
//! share of such a fit (measurements: `docs/performance.md`, "Padded sparse rows"). The
//! slots therefore hold
//!
//! * column indices as `u16` (rows are padded only up to 65,536 features,
//!   [`crate::plan::pads_rows`]: wider requested rows are merged, not scattered, and never
//!   read the slots);
//! * values not at all when every stored value is `1.0` (binary features: a9a, w8a), as `f32`
//!   when every value is exactly representable in `f32` (pixels, counts, data loaded from `f32`),
//!   and as `f64` otherwise.
//!
//! Every encoding is lossless, and the inner products are summed in the order of
//! [`crate::sparse::scatter_dot`] (four interleaved accumulators, then the tail), so the kernel
//! values are bitwise those of the plain CSR path. Two requested rows are served by one pass over
//! the slots ([`PaddedRows::inner_products_pair`]): each slot's indices are read once for both,
//! which is the common case inside SMO (a working pair's two columns).

use crate::dense::swap_row_slices;

/// The stored values of one slot.
trait SlotValues {
    fn get(&self, k: usize) -> f64;
}

/// Every value is `1.0`.
struct Ones;

impl SlotValues for Ones {
    #[inline(always)]
    fn get(&self, _k: usize) -> f64 {
        1.0
    }
}

impl SlotValues for [f32] {
    #[inline(always)]
    fn get(&self, k: usize) -> f64 {
        f64::from(self[k])
    }
}

impl SlotValues for [f64] {
    #[inline(always)]
    fn get(&self, k: usize) -> f64 {
        self[k]
    }
}

#[derive(Debug, Clone)]
enum Values {
    Ones,
    Single(Vec<f32>),
    Double(Vec<f64>),
}

/// The rows in position order, each in a slot of `width` entries (see the module
/// documentation).
#[derive(Debug, Clone)]
pub(crate) struct PaddedRows {
    width: usize,
    n_features: usize,
    indices: Vec<u16>,
    values: Values,
    lens: Vec<u32>,
    sq_norms: Vec<f64>,
}

/// Runs `$body` with `$indices` bound to the stored indices and `$values` to the concrete
/// slice of the values' encoding, so that the inner loop is compiled once per encoding.
macro_rules! with_encoding {
    ($rows:expr, |$indices:ident, $values:ident| $body:block) => {{
        let $indices: &[u16] = &$rows.indices;
        match &$rows.values {
            Values::Ones => {
                let $values = &Ones;
                $body
            }
            Values::Single(v) => {
                let $values: &[f32] = v;
                $body
            }
            Values::Double(v) => {
                let $values: &[f64] = v;
                $body
            }
        }
    }};
}

impl PaddedRows {
    /// Pads rows whose longest is at most twice the mean length (and not empty); `None` for
    /// rows of very unequal lengths, which padding would inflate.
    pub(crate) fn build(
        indptr: &[usize],
        indices: &[u32],
        values: &[f64],
        sq_norms: &[f64],
        n_features: usize,
    ) -> Option<PaddedRows> {
        let n = indptr.len().checked_sub(1)?;
        let width = indptr.windows(2).map(|w| w[1] - w[0]).max()?;
        let nnz = indptr[n];
        if !crate::plan::pads_rows(n, width, nnz, n_features) {
            return None;
        }
        let lens: Vec<u32> = indptr.windows(2).map(|w| (w[1] - w[0]) as u32).collect();
        let slots = |pad: u32| {
            let mut out = vec![pad; width * n];
            for r in 0..n {
                let (lo, hi) = (indptr[r], indptr[r + 1]);
                out[r * width..r * width + hi - lo].copy_from_slice(&indices[lo..hi]);
            }
            out
        };
        let indices = slots(0).iter().map(|&k| k as u16).collect();
        let spread = |fill: &mut dyn FnMut(usize, usize)| {
            for r in 0..n {
                for (k, position) in (indptr[r]..indptr[r + 1]).enumerate() {
                    fill(r * width + k, position);
                }
            }
        };
        let values = if values.iter().all(|&v| v == 1.0) {
            Values::Ones
        } else if values.iter().all(|&v| f64::from(v as f32) == v) {
            let mut out = vec![0.0f32; width * n];
            spread(&mut |slot, k| out[slot] = values[k] as f32);
            Values::Single(out)
        } else {
            let mut out = vec![0.0f64; width * n];
            spread(&mut |slot, k| out[slot] = values[k]);
            Values::Double(out)
        };
        Some(PaddedRows { width, n_features, indices, values, lens, sq_norms: sq_norms.to_vec() })
    }

    /// `‖x‖²` of the row at each position.
    pub(crate) fn sq_norms(&self) -> &[f64] {
        &self.sq_norms
    }

    /// Exchanges the rows at positions `i` and `j`.
    pub(crate) fn swap(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        let w = self.width;
        swap_row_slices(&mut self.indices, i, j, w);
        match &mut self.values {
            Values::Ones => {}
            Values::Single(v) => swap_row_slices(v, i, j, w),
            Values::Double(v) => swap_row_slices(v, i, j, w),
        }
        self.lens.swap(i, j);
        self.sq_norms.swap(i, j);
    }

    /// `out[c] = ⟨x, row at position first + c⟩`, for a dense `x` of `n_features` values.
    pub(crate) fn inner_products(&self, x: &[f64], first: usize, out: &mut [f64]) {
        assert_eq!(x.len(), self.n_features, "PaddedRows: x has the wrong length");
        with_encoding!(self, |indices, values| {
            for (c, o) in out.iter_mut().enumerate() {
                let (lo, len) = self.slot(first + c);
                *o = dot(x, &indices[lo..lo + len], &SlotWindow { values, offset: lo });
            }
        });
    }

    /// [`PaddedRows::inner_products`] for two vectors in one pass over the rows.
    pub(crate) fn inner_products_pair(
        &self,
        (x, z): (&[f64], &[f64]),
        first: usize,
        (out_x, out_z): (&mut [f64], &mut [f64]),
    ) {
        assert!(
            x.len() == self.n_features && z.len() == self.n_features,
            "PaddedRows: x or z has the wrong length"
        );
        assert_eq!(out_x.len(), out_z.len(), "PaddedRows: outputs of different lengths");
        with_encoding!(self, |indices, values| {
            for (c, (o_x, o_z)) in out_x.iter_mut().zip(out_z.iter_mut()).enumerate() {
                let (lo, len) = self.slot(first + c);
                let window = SlotWindow { values, offset: lo };
                (*o_x, *o_z) = dot_pair((x, z), &indices[lo..lo + len], &window);
            }
        });
    }

    /// Start and length of the slot at `position`.
    #[inline(always)]
    fn slot(&self, position: usize) -> (usize, usize) {
        (position * self.width, self.lens[position] as usize)
    }
}

/// The values of one slot: entry `k` is `values[offset + k]`.
struct SlotWindow<'a, V: ?Sized> {
    values: &'a V,
    offset: usize,
}

impl<V: SlotValues + ?Sized> SlotWindow<'_, V> {
    #[inline(always)]
    fn get(&self, k: usize) -> f64 {
        self.values.get(self.offset + k)
    }
}

/// `x[index]` for a stored index.
///
/// # Safety
/// `index < x.len()`: every stored index is below `n_features` (checked by `CsrRows::new`), and
/// the public entry points assert `x.len() == n_features`.
#[inline(always)]
unsafe fn gather(x: &[f64], index: usize) -> f64 {
    debug_assert!(index < x.len());
    // SAFETY: the caller's contract.
    unsafe { *x.get_unchecked(index) }
}

/// `Σ_k x[indices[k]] · v_k`, in the summation order of [`crate::sparse::scatter_dot`].
#[inline(always)]
fn dot<V: SlotValues + ?Sized>(x: &[f64], indices: &[u16], values: &SlotWindow<'_, V>) -> f64 {
    let n = indices.len();
    let mut acc = [0.0f64; 4];
    let mut k = 0;
    while k + 4 <= n {
        for lane in 0..4 {
            // SAFETY: stored indices are below n_features = x.len() (see `gather`).
            acc[lane] +=
                unsafe { gather(x, usize::from(indices[k + lane])) } * values.get(k + lane);
        }
        k += 4;
    }
    let mut sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    while k < n {
        // SAFETY: as above.
        sum += unsafe { gather(x, usize::from(indices[k])) } * values.get(k);
        k += 1;
    }
    sum
}

/// [`dot`] against two vectors, reading the indices and values once.
#[inline(always)]
fn dot_pair<V: SlotValues + ?Sized>(
    (x, z): (&[f64], &[f64]),
    indices: &[u16],
    values: &SlotWindow<'_, V>,
) -> (f64, f64) {
    debug_assert_eq!(x.len(), z.len());
    let n = indices.len();
    let mut acc_x = [0.0f64; 4];
    let mut acc_z = [0.0f64; 4];
    let mut k = 0;
    while k + 4 <= n {
        for lane in 0..4 {
            let (index, value) = (usize::from(indices[k + lane]), values.get(k + lane));
            // SAFETY: stored indices are below n_features = x.len() = z.len() (see `gather`).
            acc_x[lane] += unsafe { gather(x, index) } * value;
            acc_z[lane] += unsafe { gather(z, index) } * value;
        }
        k += 4;
    }
    let mut sum_x = (acc_x[0] + acc_x[1]) + (acc_x[2] + acc_x[3]);
    let mut sum_z = (acc_z[0] + acc_z[1]) + (acc_z[2] + acc_z[3]);
    while k < n {
        let (index, value) = (usize::from(indices[k]), values.get(k));
        // SAFETY: as above.
        sum_x += unsafe { gather(x, index) } * value;
        sum_z += unsafe { gather(z, index) } * value;
        k += 1;
    }
    (sum_x, sum_z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::scatter_dot;

    /// Rows of 3 to 5 entries over `d` features with the given value generator.
    fn rows(n: usize, d: usize, value: impl Fn(usize) -> f64) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
        let mut indptr = vec![0];
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for r in 0..n {
            let len = 3 + r % 3;
            for k in 0..len {
                indices.push(((r * 7 + k * (d / len)) % d) as u32);
                values.push(value(r * 5 + k));
            }
            let lo = *indptr.last().unwrap();
            let row = &mut indices[lo..];
            row.sort_unstable();
            indptr.push(indices.len());
        }
        (indptr, indices, values)
    }

    #[test]
    fn every_encoding_gives_the_plain_csr_products_bitwise() {
        let n = 40;
        let encodings: [(usize, &dyn Fn(usize) -> f64); 4] = [
            (123, &|_| 1.0),
            (300, &|k| (k % 7) as f64 * 0.25),
            (65_536, &|k| 0.1 * k as f64 - 1.3),
            (50, &|k| 1.0 / (1.0 + k as f64)),
        ];
        for (d, value) in encodings {
            let (indptr, indices, values) = rows(n, d, value);
            let norms = vec![0.0; n];
            let mut padded = PaddedRows::build(&indptr, &indices, &values, &norms, d).unwrap();
            let x: Vec<f64> = (0..d).map(|k| ((k * 31) % 17) as f64 / 7.0 - 1.0).collect();
            let z: Vec<f64> = (0..d).map(|k| ((k * 13) % 11) as f64 / 3.0).collect();
            let mut order: Vec<usize> = (0..n).collect();
            for (i, j) in [(0, 39), (5, 6), (17, 2)] {
                padded.swap(i, j);
                order.swap(i, j);
            }
            let expect = |v: &[f64], p: usize| {
                let r = order[p];
                scatter_dot(
                    v,
                    &indices[indptr[r]..indptr[r + 1]],
                    &values[indptr[r]..indptr[r + 1]],
                )
            };
            let (mut one, mut a, mut b) = (vec![0.0; n - 3], vec![0.0; n - 3], vec![0.0; n - 3]);
            padded.inner_products(&x, 3, &mut one);
            padded.inner_products_pair((&x, &z), 3, (&mut a, &mut b));
            for c in 0..n - 3 {
                assert_eq!(one[c].to_bits(), expect(&x, c + 3).to_bits(), "d={d}");
                assert_eq!(a[c].to_bits(), expect(&x, c + 3).to_bits(), "d={d}");
                assert_eq!(b[c].to_bits(), expect(&z, c + 3).to_bits(), "d={d}");
            }
        }
    }

    #[test]
    fn the_encoding_is_the_most_compact_exact_one() {
        let build = |d: usize, value: &dyn Fn(usize) -> f64| {
            let (indptr, indices, values) = rows(10, d, value);
            PaddedRows::build(&indptr, &indices, &values, &[0.0; 10], d).unwrap()
        };
        let ones = build(100, &|_| 1.0);
        assert!(matches!(ones.values, Values::Ones));
        let halves = build(60_000, &|k| k as f64 * 0.5);
        assert!(matches!(halves.values, Values::Single(_)));
        let tenths = build(10, &|k| k as f64 * 0.1);
        assert!(matches!(tenths.values, Values::Double(_)));
    }
}
