//! `Partition`: the clusters `C^t = {C_1, …, C_K}` of AID, a partition of the rows, and its
//! refinement by per-row cells (Park & Klabjan, Algorithm 1, Step 5: "decluster").

use crate::protocol::SolveError;

/// A partition of the rows `0..n` into non-empty clusters `0..K`.
///
/// Cluster ids are stable under [`Partition::split`]: a split cluster keeps its id for its
/// first part, and the other parts get new ids appended at the end, so pure clusters keep their
/// ids (and their members, in the same order) from one iteration to the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    cluster_of: Vec<u32>,
    members: Vec<Vec<u32>>,
}

/// One split cluster: the parent id and the ids of its parts (the parent id first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The cluster that was split (its id is reused by the first part).
    pub parent: usize,
    /// The parts, `parts[0] == parent`.
    pub parts: Vec<usize>,
}

impl Split {
    /// The cluster each of the `k` clusters after `splits` comes from among the `k_old` before
    /// (itself for a cluster that did not split).
    pub fn parents(k_old: usize, k: usize, splits: &[Split]) -> Vec<usize> {
        let mut parent: Vec<usize> = (0..k).collect();
        for split in splits {
            for &part in &split.parts {
                parent[part] = split.parent;
            }
        }
        debug_assert!(parent.iter().all(|&p| p < k_old.max(1)));
        parent
    }
}

impl Partition {
    /// The partition given by any per-row labels: rows with equal labels share a cluster. Ids are
    /// renumbered `0..K` in order of first appearance.
    pub fn from_labels(labels: &[i64]) -> Result<Self, SolveError> {
        if labels.is_empty() {
            return Err(SolveError::invalid("clusters", "there are no rows"));
        }
        if u32::try_from(labels.len()).is_err() {
            return Err(SolveError::invalid(
                "clusters",
                format!("{} rows exceed the 2^32 supported", labels.len()),
            ));
        }
        let mut ids = std::collections::HashMap::new();
        let mut members: Vec<Vec<u32>> = Vec::new();
        let cluster_of = labels
            .iter()
            .enumerate()
            .map(|(i, label)| {
                let id = *ids.entry(*label).or_insert_with(|| {
                    members.push(Vec::new());
                    members.len() - 1
                });
                members[id].push(i as u32);
                id as u32
            })
            .collect();
        Ok(Partition { cluster_of, members })
    }

    /// All rows in one cluster.
    pub fn single(n: usize) -> Result<Self, SolveError> {
        Self::from_labels(&vec![0; n])
    }

    /// The partition whose clusters are the intersections of this partition's clusters with the
    /// groups (`group[i]`: e.g. the class of row `i`). Makes clusters label-pure.
    pub fn refine_by(&self, group: &[u8]) -> Self {
        let labels: Vec<i64> = self
            .cluster_of
            .iter()
            .zip(group)
            .map(|(&k, &g)| i64::from(k) * 256 + i64::from(g))
            .collect();
        // A refinement of a valid partition is valid.
        Self::from_labels(&labels).unwrap_or_else(|_| self.clone())
    }

    /// Number of rows `n`.
    pub fn n_rows(&self) -> usize {
        self.cluster_of.len()
    }

    /// Number of clusters `K`.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are no clusters (never, for a constructed partition).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The cluster of every row.
    pub fn cluster_of(&self) -> &[u32] {
        &self.cluster_of
    }

    /// The rows of cluster `k`.
    pub fn members(&self, k: usize) -> &[u32] {
        &self.members[k]
    }

    /// `|C_k|` as a float.
    pub fn size(&self, k: usize) -> f64 {
        self.members[k].len() as f64
    }

    /// The clusters whose rows do not share a cell: `masks[i]` has bit `c` set when row `i` is
    /// compatible with cell `c`; a cluster is pure when one cell is compatible with all its rows.
    pub fn impure_clusters(&self, masks: &[u8]) -> Vec<usize> {
        (0..self.len())
            .filter(|&k| {
                let common =
                    self.members[k].iter().fold(u8::MAX, |acc, &i| acc & masks[i as usize]);
                common == 0
            })
            .collect()
    }

    /// Splits each cluster of `clusters` into its non-empty cells (`cell[i]`: the cell row `i`
    /// goes to). The first part keeps the parent's id, the others are appended.
    pub fn split(&mut self, clusters: &[usize], cell: &[u8]) -> Vec<Split> {
        let mut splits = Vec::with_capacity(clusters.len());
        for &k in clusters {
            let rows = std::mem::take(&mut self.members[k]);
            let mut parts: Vec<(u8, Vec<u32>)> = Vec::new();
            for i in rows {
                let c = cell[i as usize];
                match parts.iter_mut().find(|(pc, _)| *pc == c) {
                    Some((_, part)) => part.push(i),
                    None => parts.push((c, vec![i])),
                }
            }
            let mut ids = Vec::with_capacity(parts.len());
            for (index, (_, part)) in parts.into_iter().enumerate() {
                let id = if index == 0 {
                    k
                } else {
                    self.members.push(Vec::new());
                    self.members.len() - 1
                };
                for &i in &part {
                    self.cluster_of[i as usize] = id as u32;
                }
                self.members[id] = part;
                ids.push(id);
            }
            splits.push(Split { parent: k, parts: ids });
        }
        splits
    }

    /// [`Partition::split`] for a driver that holds the rows in blocks and knows, per cluster
    /// `k` and cell `c` (key `k · n_cells + c`), the number of rows `count[key]` and the first
    /// row `first[key]` (summed and minimised over the blocks): returns, per key, the id of the
    /// cluster its rows join (`−1` for an empty key) and, per new cluster, the cluster it was
    /// split from (itself for an old one). As in `split`, the part holding a split cluster's
    /// first row keeps its id and the other parts get new ids in the order of their first rows,
    /// cluster after cluster in the order of `clusters`; `clusters` not listed keep their ids.
    pub fn split_keyed(
        count: &[u64],
        first: &[u64],
        clusters: &[usize],
        k: usize,
        n_cells: usize,
    ) -> (Vec<i64>, Vec<usize>) {
        let mut table: Vec<i64> = (0..k * n_cells)
            .map(|key| if count[key] > 0 { (key / n_cells) as i64 } else { -1 })
            .collect();
        let mut parent: Vec<usize> = (0..k).collect();
        for &c in clusters {
            let mut cells: Vec<usize> =
                (0..n_cells).filter(|&cell| count[c * n_cells + cell] > 0).collect();
            cells.sort_by_key(|&cell| first[c * n_cells + cell]);
            for &cell in cells.iter().skip(1) {
                table[c * n_cells + cell] = parent.len() as i64;
                parent.push(c);
            }
        }
        (table, parent)
    }

    /// The per-cluster means of the rows of a row-major `n × d` matrix (`K × d`).
    pub fn centroids(&self, values: &[f64], d: usize) -> Vec<f64> {
        use rayon::prelude::*;
        let mut out = vec![0.0; self.len() * d];
        if d == 0 {
            return out;
        }
        out.par_chunks_mut(d).zip(&self.members).for_each(|(centroid, rows)| {
            for &i in rows {
                let row = &values[i as usize * d..(i as usize + 1) * d];
                for (c, v) in centroid.iter_mut().zip(row) {
                    *c += v;
                }
            }
            let size = rows.len() as f64;
            for c in centroid.iter_mut() {
                *c /= size;
            }
        });
        out
    }

    /// The per-cluster means of a per-row vector.
    pub fn means(&self, values: &[f64]) -> Vec<f64> {
        self.members
            .iter()
            .map(|rows| rows.iter().map(|&i| values[i as usize]).sum::<f64>() / rows.len() as f64)
            .collect()
    }

    /// The value of each cluster's first row: the cluster's label when clusters are label-pure.
    pub fn labels<T: Copy>(&self, values: &[T]) -> Vec<T> {
        self.members.iter().map(|rows| values[rows[0] as usize]).collect()
    }

    /// The per-cluster sums of a per-row vector.
    pub fn sums(&self, values: &[f64]) -> Vec<f64> {
        self.members.iter().map(|rows| rows.iter().map(|&i| values[i as usize]).sum()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_pure_clusters_and_refines_impure_ones() {
        let mut p = Partition::from_labels(&[7, 7, 3, 3, 3, 7]).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p.members(0), &[0, 1, 5]);
        // Cells: rows 0, 5 in cell 0, row 1 in cell 1; cluster 1 all in cell 1.
        let masks = [1, 2, 2, 2, 3, 1];
        assert_eq!(p.impure_clusters(&masks), vec![0]);
        let cells = [0, 1, 1, 1, 1, 0];
        let splits = p.split(&[0], &cells);
        assert_eq!(splits, vec![Split { parent: 0, parts: vec![0, 2] }]);
        assert_eq!(p.members(0), &[0, 5]);
        assert_eq!(p.members(1), &[2, 3, 4]);
        assert_eq!(p.members(2), &[1]);
        assert_eq!(p.cluster_of(), &[0, 2, 1, 1, 1, 0]);
        assert!(p.impure_clusters(&masks).is_empty());
    }

    #[test]
    fn split_keyed_equals_split() {
        // 12 rows in 3 clusters, cells 0..3 in a scrambled order; clusters 0 and 2 split.
        let labels = [2, 0, 1, 0, 2, 2, 0, 1, 0, 2, 1, 0];
        let cells = [1u8, 2, 0, 0, 1, 0, 2, 1, 1, 2, 0, 2];
        let (k, n_cells) = (3, 3);
        let mut p = Partition::from_labels(&labels).unwrap();
        let mut count = vec![0u64; k * n_cells];
        let mut first = vec![u64::MAX; k * n_cells];
        for (i, &c) in cells.iter().enumerate() {
            let key = p.cluster_of()[i] as usize * n_cells + usize::from(c);
            count[key] += 1;
            first[key] = first[key].min(i as u64);
        }
        let keys: Vec<usize> = (0..labels.len())
            .map(|i| p.cluster_of()[i] as usize * n_cells + usize::from(cells[i]))
            .collect();
        let (table, parent) = Partition::split_keyed(&count, &first, &[0, 2], k, n_cells);
        let splits = p.split(&[0, 2], &cells);
        let ids: Vec<u32> = keys.iter().map(|&key| table[key] as u32).collect();
        assert_eq!(ids, p.cluster_of());
        assert_eq!(parent.len(), p.len());
        for split in splits {
            for part in split.parts {
                assert_eq!(parent[part], split.parent);
            }
        }
    }

    #[test]
    fn parents_follow_the_splits() {
        let mut p = Partition::from_labels(&[0, 1, 0, 1, 2]).unwrap();
        let splits = p.split(&[0, 1], &[0, 1, 1, 0, 0]);
        assert_eq!(Split::parents(3, p.len(), &splits), vec![0, 1, 2, 0, 1]);
    }

    #[test]
    fn refine_by_groups_makes_label_pure_clusters() {
        let p = Partition::single(5).unwrap().refine_by(&[1, 0, 1, 0, 0]);
        assert_eq!(p.len(), 2);
        assert_eq!(p.members(0), &[0, 2]);
        assert_eq!(p.members(1), &[1, 3, 4]);
        let values = [1.0, 2.0, 3.0, 4.0, 6.0];
        assert_eq!(p.means(&values), vec![2.0, 4.0]);
        assert_eq!(p.centroids(&values, 1), vec![2.0, 4.0]);
    }
}
