//! Rows in panels of sixteen: the layout of [`crate::distinct::DistinctRows`], whose rows never
//! move, for one-row kernel columns over narrow rows.
//!
//! The feature-major layout (`by_feature[k · n + t]`) reads `d` streams at once, one per
//! feature, which the hardware prefetchers follow badly at d ≈ 40 (`kernel_columns` bench:
//! 145–158 µs for a column of 8,181 × 41 feature-major, 120 µs from panels). A panel holds the
//! `d` features of sixteen rows contiguously, one stream per panel, and its sums are the
//! feature-major ones bit for bit.

use crate::level::Level;
use crate::simd::{level, multiply_add};

/// Rows per panel of [`dot_panels`]: sixteen sums, four AVX2 vectors, in flight at a time.
pub(crate) const PANEL_ROWS: usize = 16;

/// The rows `t` of a row set laid out in panels of [`PANEL_ROWS`] rows: panel `p` holds feature
/// `k` of rows `16p … 16p + 15` at `panels[(p · d + k) · 16 ..][..16]`, the last panel padded
/// with zeros. A panel is one contiguous stream of `16 d` values, where the feature-major
/// layout reads `d` streams at once.
pub(crate) fn to_panels(values: &[f64], n_rows: usize, d: usize) -> Vec<f64> {
    const P: usize = PANEL_ROWS;
    let mut panels = vec![0.0; n_rows.div_ceil(P) * P * d];
    for (t, row) in values.chunks_exact(d.max(1)).take(n_rows).enumerate() {
        let panel = &mut panels[(t / P) * P * d..][..P * d];
        for (k, &v) in row.iter().enumerate() {
            panel[k * P + t % P] = v;
        }
    }
    panels
}

fn dot_panels_generic<const FMA: bool>(
    x: &[f64],
    panels: &[f64],
    first_panel: usize,
    out: &mut [f64],
) {
    const P: usize = PANEL_ROWS;
    let d = x.len();
    let Some((&x_0, rest)) = x.split_first() else {
        out.fill(0.0);
        return;
    };
    for (p, out_panel) in out.chunks_mut(P).enumerate() {
        let panel = &panels[(first_panel + p) * d * P..][..d * P];
        let mut acc = [0.0f64; P];
        for (a, &z) in acc.iter_mut().zip(&panel[..P]) {
            *a = x_0 * z;
        }
        for (k, &x_k) in rest.iter().enumerate() {
            for (a, &z) in acc.iter_mut().zip(&panel[(k + 1) * P..][..P]) {
                *a = multiply_add::<FMA>(x_k, z, *a);
            }
        }
        out_panel.copy_from_slice(&acc[..out_panel.len()]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_panels_avx2(x: &[f64], panels: &[f64], first_panel: usize, out: &mut [f64]) {
    dot_panels_generic::<true>(x, panels, first_panel, out);
}

/// `out[c] = ⟨x, z_{16 · first_panel + c}⟩` for rows `z` laid out by [`to_panels`]: each
/// product summed over the features in order exactly as [`crate::feature_major::dot_feature_major`] sums it (the
/// first product, then one multiply–add per feature), so the two agree bit for bit.
///
/// # Panics
/// If a row needed is outside `panels`.
pub(crate) fn dot_panels(x: &[f64], panels: &[f64], first_panel: usize, out: &mut [f64]) {
    assert!(
        x.is_empty()
            || (first_panel + out.len().div_ceil(PANEL_ROWS)) * PANEL_ROWS * x.len()
                <= panels.len(),
        "dot_panels: rows outside the panels"
    );
    match level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU supports AVX2 and FMA (the level).
        level if level >= Level::Avx2 => unsafe { dot_panels_avx2(x, panels, first_panel, out) },
        _ => dot_panels_generic::<false>(x, panels, first_panel, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::DenseRows;

    #[test]
    fn panel_sums_are_the_feature_major_sums_bit_for_bit() {
        for d in [1, 5, 41, 64] {
            let n = 37; // two full panels and a padded one
            let values: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.377).sin() * 3.0).collect();
            let rows = DenseRows::new(&values, n, d).unwrap();
            let by_feature = rows.feature_major();
            let panels = to_panels(&values, n, d);
            let x: Vec<f64> = (0..d).map(|k| (k as f64 * 1.3).cos()).collect();
            for first_panel in [0, 1, 2] {
                let first = first_panel * PANEL_ROWS;
                let mut from_panels = vec![0.0; n - first];
                dot_panels(&x, &panels, first_panel, &mut from_panels);
                let mut expected = vec![0.0; n - first];
                crate::feature_major::dot_feature_major(
                    &[&x],
                    &by_feature,
                    n,
                    first,
                    &mut [&mut expected],
                );
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&from_panels), bits(&expected), "d={d}, panel {first_panel}");
            }
        }
    }
}
