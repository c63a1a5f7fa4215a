use super::*;

#[test]
fn exp_is_accurate_over_the_rbf_range() {
    let mut xs: Vec<f64> = (0..20_000).map(|k| -(k as f64) * 0.0375).collect();
    xs.extend([0.0, -1e-300, -0.5, 1.0, 3.3, -707.9, -708.1, -1e6]);
    let mut got = xs.clone();
    exp_in_place(&mut got);
    for (&x, &e) in xs.iter().zip(&got) {
        let expected = x.exp();
        if expected < 1e-300 {
            assert!(e < 1e-300, "exp({x}) = {e}");
        } else {
            assert!((e - expected).abs() <= 4e-16 * expected, "exp({x}): {e} vs {expected}");
        }
    }
    let mut nan = [f64::NAN];
    exp_in_place(&mut nan);
    assert!(nan[0].is_nan());
}

#[test]
fn exp_is_the_same_at_every_vector_width() {
    // Values across the range, the clamps and every tail length.
    let xs: Vec<f64> = (0..4099)
        .map(|k| -(k as f64) * 0.1739 + [0.0, 1e-9, -1e-300, 700.0, -800.0][k % 5])
        .collect();
    for len in [0, 1, 7, 8, 9, 31, 4099] {
        let mut scalar = xs[..len].to_vec();
        xs[..len].iter().zip(&mut scalar).for_each(|(&x, e)| *e = exp_one::<true>(x));
        let mut dispatched = xs[..len].to_vec();
        exp_in_place(&mut dispatched);
        #[cfg(target_arch = "x86_64")]
        if level() >= Level::Avx2 {
            let mut avx2 = xs[..len].to_vec();
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            unsafe { exp_in_place_avx2(&mut avx2) };
            assert_eq!(bits(&avx2), bits(&scalar), "AVX2, {len} values");
            assert_eq!(bits(&dispatched), bits(&scalar), "dispatched, {len} values");
        }
    }
}

#[test]
fn rbf_in_place_is_the_argument_loop_then_exp_bit_for_bit() {
    // Inner products around the norms: negative distances (clamped to 0), zero, the range.
    let gamma = 0.0371;
    let sq_norm_x = 57.25;
    let n = 1029;
    let sq_norms_z: Vec<f64> = (0..n).map(|k| 40.0 + (k % 37) as f64 * 1.75).collect();
    let products: Vec<f64> =
        (0..n).map(|k| [0.5, -3.0, 1e-12, 60.0, 25.0][k % 5] * (1.0 + (k as f64) * 1e-3)).collect();
    for (len, norms) in [(0, 0), (1, 1), (9, 9), (n, n), (n, n - 5), (40, 0)] {
        let mut expected = products[..len].to_vec();
        for (v, &sq_norm_z) in expected.iter_mut().zip(&sq_norms_z[..norms]) {
            *v = -gamma * (sq_norm_x + sq_norm_z - 2.0 * *v).max(0.0);
        }
        exp_in_place(&mut expected);
        let mut fused = products[..len].to_vec();
        rbf_in_place(&mut fused, sq_norm_x, &sq_norms_z[..norms], gamma);
        assert_eq!(bits(&fused), bits(&expected), "{len} values, {norms} norms");
        let mut generic = products[..len.min(norms)].to_vec();
        let fma = level() >= Level::Avx2;
        let generic_norms = &sq_norms_z[..len.min(norms)];
        if fma {
            rbf_in_place_generic::<true>(&mut generic, sq_norm_x, generic_norms, gamma);
        } else {
            rbf_in_place_generic::<false>(&mut generic, sq_norm_x, generic_norms, gamma);
        }
        assert_eq!(bits(&generic), bits(&expected[..len.min(norms)]), "scalar, {len}");
    }
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn feature_major_products_match_plain_sums() {
    let (n, d) = (37, 9);
    let rows: Vec<f64> = (0..n * d).map(|k| ((k * 29) % 23) as f64 / 5.0 - 2.0).collect();
    let by_feature: Vec<f64> = (0..d * n).map(|k| rows[(k % n) * d + k / n]).collect();
    let x: Vec<f64> = (0..d).map(|k| k as f64 * 0.3 - 1.0).collect();
    let z: Vec<f64> = (0..d).map(|k| (k as f64).cos()).collect();
    let (mut a, mut b) = (vec![0.0; n - 4], vec![0.0; n - 4]);
    crate::feature_major::dot_feature_major(&[&x, &z], &by_feature, n, 4, &mut [&mut a, &mut b]);
    for c in 0..n - 4 {
        let row = &rows[(c + 4) * d..(c + 5) * d];
        let plain = |v: &[f64]| v.iter().zip(row).fold(0.0, |s, (p, q)| p * q + s);
        assert!((a[c] - plain(&x)).abs() <= 1e-13);
        assert!((b[c] - plain(&z)).abs() <= 1e-13);
    }
}

#[test]
fn gather_signed_matches_the_plain_loop() {
    let row: Vec<f32> = (0..101).map(|k| (k as f32 * 0.37).sin()).collect();
    for n in [0, 1, 7, 8, 9, 64, 203] {
        let index: Vec<u32> = (0..n).map(|k| ((k * 53 + 11) % 101) as u32).collect();
        let signs: Vec<f32> = (0..n).map(|k| if k % 3 == 0 { -1.0 } else { 1.0 }).collect();
        for scale in [1.0f32, -1.0] {
            let mut out = vec![f32::NAN; n];
            gather_signed(&row, &index, &signs, scale, &mut out);
            for k in 0..n {
                let expected = scale * signs[k] * row[index[k] as usize];
                assert_eq!(out[k].to_bits(), expected.to_bits(), "n={n}, k={k}");
            }
        }
    }
}

#[test]
#[should_panic(expected = "out of the row")]
fn gather_signed_refuses_an_index_outside_the_row() {
    let mut out = [0.0f32; 9];
    gather_signed(&[1.0; 4], &[0, 1, 2, 3, 4, 0, 1, 2, 3], &[1.0; 9], 1.0, &mut out);
}

#[test]
fn single_precision_rows_give_bitwise_the_double_products() {
    for d in [1, 5, 63, 64, 65, 200, 256] {
        for n_rows in [1, 2, 3, 7] {
            let single: Vec<f32> =
                (0..n_rows * d).map(|k| ((k as f32) * 0.731).sin() * 3.7).collect();
            let double: Vec<f64> = single.iter().map(|&v| f64::from(v)).collect();
            let x: Vec<f64> = (0..d).map(|k| (k as f64 * 1.37).cos() / 3.0).collect();
            let z: Vec<f64> = (0..d).map(|k| k as f64 * 1e-3 - 0.1).collect();
            let (mut a, mut b) = (vec![0.0; n_rows], vec![0.0; n_rows]);
            let (mut a32, mut b32) = (vec![0.0; n_rows], vec![0.0; n_rows]);
            dot_rows(&[&x, &z], &double, &mut [&mut a, &mut b]);
            dot_rows(&[&x, &z], &single, &mut [&mut a32, &mut b32]);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&a32), "d={d}, rows={n_rows}");
            assert_eq!(bits(&b), bits(&b32), "d={d}, rows={n_rows}");
            // Three left rows share one pass (one right row at a time): still each `dot`.
            let w: Vec<f64> = (0..d).map(|k| (k as f64 * 0.29).tan()).collect();
            let mut three = vec![vec![0.0; n_rows]; 3];
            let mut three32 = vec![vec![0.0; n_rows]; 3];
            let [t0, t1, t2] = &mut three[..] else { unreachable!() };
            dot_rows(&[&x, &z, &w], &double, &mut [t0, t1, t2]);
            let [t0, t1, t2] = &mut three32[..] else { unreachable!() };
            dot_rows(&[&x, &z, &w], &single, &mut [t0, t1, t2]);
            for (r, left) in [&x, &z, &w].into_iter().enumerate() {
                let alone: Vec<f64> = double.chunks_exact(d).map(|row| dot(left, row)).collect();
                assert_eq!(bits(&three[r]), bits(&alone), "d={d}, rows={n_rows}, left {r}");
                assert_eq!(bits(&three32[r]), bits(&alone), "d={d}, rows={n_rows}, left {r}");
            }
        }
    }
}

#[test]
fn dot_matches_a_plain_sum() {
    for len in [0, 1, 3, 4, 7, 8, 15, 16, 17, 21, 63, 64, 65, 123, 300] {
        let x: Vec<f64> = (0..len).map(|k| (k as f64 * 0.7).sin()).collect();
        let z: Vec<f64> = (0..len).map(|k| (k as f64 * 1.3).cos()).collect();
        let plain: f64 = x.iter().zip(&z).map(|(a, b)| a * b).sum();
        assert!((dot(&x, &z) - plain).abs() <= 1e-12 * (len as f64 + 1.0));
        if len > 0 {
            let rows: Vec<f64> = z.iter().chain(&x).copied().collect();
            let (mut a, mut b) = (vec![0.0; 2], vec![0.0; 2]);
            dot_rows(&[&x, &z], &rows, &mut [&mut a, &mut b]);
            assert_eq!(a, [dot(&x, &z), dot(&x, &x)]);
            assert_eq!(b, [dot(&z, &z), dot(&z, &x)]);
            // An odd number of rows: pairs, then one alone; every product is `dot`.
            let w: Vec<f64> = (0..len).map(|k| (k as f64 * 0.11).tan()).collect();
            let rows: Vec<f64> = [&z, &w, &x].into_iter().flatten().copied().collect();
            let mut c = vec![0.0; 3];
            dot_rows(&[&x], &rows, &mut [&mut c]);
            let expected = [dot(&x, &z), dot(&x, &w), dot(&x, &x)];
            assert_eq!(
                c.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                expected.map(f64::to_bits),
                "len={len}"
            );
        }
    }
}
