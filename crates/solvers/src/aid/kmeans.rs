//! Weighted k-means for AID's initial clusters (Park & Klabjan §4: "one iteration of k-means";
//! Lloyd 1982 with the k-means++ seeding of Arthur & Vassilvitskii 2007).
//!
//! Points `z_i ∈ R^d` with weights `ω_i > 0`. Seeding draws the first centre with probability
//! `∝ ω_i` and each next one with probability `∝ ω_i · D(z_i)²` (the squared distance to the
//! nearest centre so far), on a seeded random sample of at most [`SEEDING_SAMPLE`] points so that
//! seeding stays `O(sample · k · d)` however large `n` is. Each Lloyd iteration assigns every
//! point to its nearest centre (parallel over points; in one dimension by binary search over the
//! sorted centres, `O(n log k)`; in more, by scanning the centres sorted by their first
//! coordinate outwards from the point's, until that coordinate alone is farther than the best) and moves each centre to the weighted mean of its points. Empty
//! clusters are dropped, so fewer than `k` clusters may come back. Ties go to the lowest centre,
//! so the result does not depend on the thread count.

use rayon::prelude::*;

use crate::frank_wolfe::search::Random;
use crate::protocol::SolveError;

/// Points considered by the k-means++ seeding.
pub const SEEDING_SAMPLE: usize = 20_000;

/// Cluster labels `0..K'` (`K' ≤ k`, empty clusters dropped) of `n` points (row-major `n × d`),
/// after k-means++ seeding and `iterations` Lloyd iterations.
pub fn weighted_kmeans(
    points: &[f64],
    d: usize,
    weights: &[f64],
    k: usize,
    iterations: usize,
    seed: u64,
) -> Vec<u32> {
    let n = weights.len();
    if n == 0 {
        return Vec::new();
    }
    let k = k.clamp(1, n);
    let mut random = Random::new(seed);
    let mut centres = seed_centres(points, d, weights, k, &mut random);
    let mut labels = assign(points, d, &centres);
    for _ in 0..iterations {
        centres = weighted_means(points, d, weights, &labels, centres.len() / d.max(1));
        labels = assign(points, d, &centres);
    }
    compact(&labels)
}

fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// The positions (among `n` points) the k-means++ seeding looks at: all of them, or a sorted
/// random sample of [`SEEDING_SAMPLE`] drawn from `random`.
fn seeding_sample(n: usize, random: &mut Random) -> Vec<usize> {
    if n <= SEEDING_SAMPLE {
        (0..n).collect()
    } else {
        let mut s = random.distinct(0, n, SEEDING_SAMPLE);
        s.sort_unstable();
        s
    }
}

/// k-means++ on a sample: `k` centres (fewer when the sample has fewer distinct points).
fn seed_centres(
    points: &[f64],
    d: usize,
    weights: &[f64],
    k: usize,
    random: &mut Random,
) -> Vec<f64> {
    let sample = seeding_sample(weights.len(), random);
    let sample_points: Vec<f64> =
        sample.iter().flat_map(|&i| points[i * d..(i + 1) * d].iter().copied()).collect();
    let sample_weights: Vec<f64> = sample.iter().map(|&i| weights[i]).collect();
    seed_on_sample(&sample_points, d, &sample_weights, k, random)
}

/// k-means++ over the seeding sample's points (row-major, `d` each) and weights, continuing
/// `random` after the sample was drawn.
fn seed_on_sample(
    sample_points: &[f64],
    d: usize,
    sample_weights: &[f64],
    k: usize,
    random: &mut Random,
) -> Vec<f64> {
    let point = |s: usize| &sample_points[s * d..(s + 1) * d];
    let draw = |random: &mut Random, mass: &[f64]| -> Option<usize> {
        let total: f64 = mass.iter().sum();
        if total.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        let target = (random.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let mut acc = 0.0;
        for (s, &m) in mass.iter().enumerate() {
            acc += m;
            if acc > target && m > 0.0 {
                return Some(s);
            }
        }
        mass.iter().rposition(|&m| m > 0.0)
    };
    let first = draw(random, sample_weights).unwrap_or(0);
    let mut centres: Vec<f64> = point(first).to_vec();
    let mut nearest: Vec<f64> = (0..sample_weights.len())
        .into_par_iter()
        .map(|s| squared_distance(point(s), &centres[..d]))
        .collect();
    while centres.len() / d.max(1) < k {
        let mass: Vec<f64> = nearest.iter().zip(sample_weights).map(|(a, w)| a * w).collect();
        let Some(next) = draw(random, &mass) else { break };
        let start = centres.len();
        centres.extend_from_slice(point(next));
        let centre = centres[start..].to_vec();
        nearest.par_iter_mut().enumerate().for_each(|(s, best)| {
            *best = best.min(squared_distance(point(s), &centre));
        });
        if d == 0 {
            break;
        }
    }
    centres
}

/// The seeding of [`weighted_kmeans`] with unit weights in two steps, for points that are not
/// held in one array (AID on row blocks): [`KMeansSeeding::positions`] names the points the
/// seeding looks at, [`KMeansSeeding::centres`] seeds from those points. Together they give the
/// centres `weighted_kmeans(points, d, ones, k, _, seed)` starts its Lloyd iterations from.
#[derive(Debug, Clone)]
pub struct KMeansSeeding {
    random: Random,
    positions: Vec<usize>,
    n: usize,
}

impl KMeansSeeding {
    /// The seeding of `n` points with `seed`.
    pub fn new(n: usize, seed: u64) -> Self {
        let mut random = Random::new(seed);
        let positions = seeding_sample(n, &mut random);
        KMeansSeeding { random, positions, n }
    }

    /// The positions (sorted, among the `n` points) whose points [`KMeansSeeding::centres`]
    /// needs, in this order.
    pub fn positions(&self) -> &[usize] {
        &self.positions
    }

    /// The k-means++ centres (row-major, `d` each; at most `k`, at least 1) from the points at
    /// [`KMeansSeeding::positions`] (`sample_points`, row-major, in that order).
    pub fn centres(
        mut self,
        sample_points: &[f64],
        d: usize,
        k: usize,
    ) -> Result<Vec<f64>, SolveError> {
        let n = self.positions.len();
        if sample_points.len() != n * d {
            return Err(SolveError::LengthMismatch {
                name: "sample_points",
                expected: n * d,
                actual: sample_points.len(),
            });
        }
        if n == 0 {
            return Err(SolveError::invalid("sample_points", "there are no points to seed from"));
        }
        let k = k.clamp(1, self.n.max(1));
        Ok(seed_on_sample(sample_points, d, &vec![1.0; n], k, &mut self.random))
    }
}

/// The nearest centre of every point (lowest index on ties).
pub fn assign(points: &[f64], d: usize, centres: &[f64]) -> Vec<u32> {
    let k = centres.len() / d.max(1);
    if d == 0 || k <= 1 {
        return vec![0; points.len() / d.max(1)];
    }
    if d == 1 {
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| centres[a].total_cmp(&centres[b]).then(a.cmp(&b)));
        let sorted: Vec<f64> = order.iter().map(|&c| centres[c]).collect();
        return points
            .par_iter()
            .map(|&z| {
                let p = sorted.partition_point(|&c| c < z);
                let mut best = p.min(k - 1);
                if p > 0 {
                    // The first of a run of equal centres has the lowest index.
                    let left = sorted.partition_point(|&c| c < sorted[p - 1]);
                    let (to_left, to_right) = (z - sorted[left], (sorted[best] - z).abs());
                    if to_left < to_right || (to_left == to_right && order[left] < order[best]) {
                        best = left;
                    }
                }
                order[best] as u32
            })
            .collect();
    }
    // Centres sorted by their first coordinate: a centre whose first coordinate is farther
    // than the best distance so far cannot be nearer (the squared distance, summed left to
    // right from that coordinate's square, is at least that square in floating point too), so
    // each point scans outwards from its position and stops early. Ties go to the lowest
    // centre, as a scan of all centres in order would give.
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| centres[a * d].total_cmp(&centres[b * d]).then(a.cmp(&b)));
    let first: Vec<f64> = order.iter().map(|&c| centres[c * d]).collect();
    points
        .par_chunks(d)
        .map(|z| {
            let mut best = (f64::INFINITY, usize::MAX);
            let visit = |s: usize, best: &mut (f64, usize)| -> bool {
                let gap = first[s] - z[0];
                if gap * gap > best.0 {
                    return false;
                }
                let c = order[s];
                let dist = squared_distance(z, &centres[c * d..(c + 1) * d]);
                if dist < best.0 || (dist == best.0 && c < best.1) {
                    *best = (dist, c);
                }
                true
            };
            let p = first.partition_point(|&v| v < z[0]);
            for s in p..k {
                if !visit(s, &mut best) {
                    break;
                }
            }
            for s in (0..p).rev() {
                if !visit(s, &mut best) {
                    break;
                }
            }
            best.1 as u32
        })
        .collect()
}

/// Weighted means of the points of each label; an empty cluster keeps no centre (it is
/// dropped: its points are none, so nothing is lost).
fn weighted_means(points: &[f64], d: usize, weights: &[f64], labels: &[u32], k: usize) -> Vec<f64> {
    let mut sums = vec![0.0; k * d];
    let mut mass = vec![0.0; k];
    for (i, &label) in labels.iter().enumerate() {
        let c = label as usize;
        mass[c] += weights[i];
        for (s, v) in sums[c * d..(c + 1) * d].iter_mut().zip(&points[i * d..(i + 1) * d]) {
            *s += weights[i] * v;
        }
    }
    centres_from_sums(&sums, &mass, d)
}

/// The Lloyd update from the per-centre sums of the weighted points (`k × d`) and their masses
/// (`k`): the means of the centres with mass, in centre order (an empty centre is dropped).
pub fn centres_from_sums(sums: &[f64], mass: &[f64], d: usize) -> Vec<f64> {
    let mut centres = Vec::with_capacity(sums.len());
    for (c, &m) in mass.iter().enumerate() {
        if m > 0.0 {
            centres.extend(sums[c * d..(c + 1) * d].iter().map(|s| s / m));
        }
    }
    centres
}

/// Renumbers labels `0..K'` in order of first appearance.
fn compact(labels: &[u32]) -> Vec<u32> {
    let mut map = std::collections::HashMap::new();
    labels
        .iter()
        .map(|&l| {
            let next = map.len() as u32;
            *map.entry(l).or_insert(next)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separated_groups_are_found_in_one_and_two_dimensions() {
        // Three tight groups far apart.
        let groups = [-10.0, 0.0, 10.0];
        let one_d: Vec<f64> = (0..90).map(|i| groups[i % 3] + (i as f64) * 1e-3).collect();
        let labels = weighted_kmeans(&one_d, 1, &vec![1.0; 90], 3, 2, 7);
        for i in 0..90 {
            assert_eq!(labels[i], labels[i % 3], "row {i}");
        }
        assert_eq!(labels.iter().max(), Some(&2));
        let two_d: Vec<f64> = one_d.iter().flat_map(|&v| [v, -v]).collect();
        let labels = weighted_kmeans(&two_d, 2, &vec![1.0; 90], 3, 2, 7);
        for i in 0..90 {
            assert_eq!(labels[i], labels[i % 3], "row {i}");
        }
    }

    #[test]
    fn weights_pull_the_centre() {
        // Two points; with k = 1 the centre is the weighted mean, so both get label 0, and
        // weighted_means gives the weighted average.
        let centres = weighted_means(&[0.0, 4.0], 1, &[3.0, 1.0], &[0, 0], 1);
        assert_eq!(centres, vec![1.0]);
        assert_eq!(weighted_kmeans(&[0.0, 4.0], 1, &[3.0, 1.0], 1, 1, 0), vec![0, 0]);
    }

    #[test]
    fn one_dimensional_assignment_matches_brute_force() {
        let centres = [3.0, -1.0, 0.5, 7.0, 0.5];
        let points: Vec<f64> = (0..200).map(|i| (i as f64) * 0.05 - 2.0).collect();
        let fast = assign(&points, 1, &centres);
        let slow = assign_brute(&points, &centres);
        assert_eq!(fast, slow);
    }

    #[test]
    fn pruned_assignment_matches_brute_force_with_ties() {
        // Centres on a coarse grid, two of them repeated, and points on a finer grid: many
        // points are equally far from several centres.
        let mut centres: Vec<f64> = Vec::new();
        for i in 0..6 {
            for j in 0..5 {
                centres.extend([f64::from(i) * 0.5 - 1.0, f64::from(j) * 0.5 - 1.0]);
            }
        }
        centres.extend_from_within(4..6);
        centres.extend_from_within(20..22);
        let mut points: Vec<f64> = Vec::new();
        for i in 0..41 {
            for j in 0..37 {
                points.extend([f64::from(i) * 0.0625 - 1.3, f64::from(j) * 0.0625 - 1.2]);
            }
        }
        let k = centres.len() / 2;
        let slow: Vec<u32> = points
            .chunks(2)
            .map(|z| {
                let mut best = (f64::INFINITY, 0u32);
                for c in 0..k {
                    let dist = squared_distance(z, &centres[2 * c..2 * c + 2]);
                    if dist < best.0 {
                        best = (dist, c as u32);
                    }
                }
                best.1
            })
            .collect();
        assert_eq!(assign(&points, 2, &centres), slow);
    }

    fn assign_brute(points: &[f64], centres: &[f64]) -> Vec<u32> {
        points
            .iter()
            .map(|&z| {
                let mut best = (f64::INFINITY, 0u32);
                for (c, &v) in centres.iter().enumerate() {
                    if (z - v).abs() < best.0 {
                        best = ((z - v).abs(), c as u32);
                    }
                }
                best.1
            })
            .collect()
    }
}
