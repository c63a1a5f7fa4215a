"""The 12 datasets of the sparse kernel logistic regression paper (seed paper 004, Consolo,
Manno & Amaldi; digest ``shared/papers/seed-004-sparse-klr.md`` §5.2), loaded offline from
``../shared/data`` (see its README.md), plus the splits and the scaling of the protocol (§5.3).

Sources (labels are kept as in the file: the estimators accept any two labels):

* banknote: ``misc/banknote.csv`` (UCI, 1372 × 4);
* coil2000, ionosphere, magic, ring, sonar, spambase, twonorm: the PMLB files of the same name;
* diabetes: PMLB ``pima`` (Pima Indians; not sklearn's regression ``load_diabetes``);
* waveform: PMLB ``waveform_21`` (5000 × 21), binarised as class 1 vs classes {0, 2} (the
  paper's "class 1" vs the other two);
* wisconsin: PMLB ``wdbc`` (569 × 30), falling back to ``sklearn.datasets.load_breast_cancer``;
* monk2: regenerated exactly as the paper's 432-row set (the full MONK-2 test set: every
  attribute combination, positive iff exactly two of a1..a6 equal 1; 142 positive). PMLB's
  ``monk2`` (601 rows, train + test merged) is not the paper's version. Attribute codes are used
  as numbers and min-max scaled like every other feature (digest §7.15).

Differences from the paper's copies (digest §5.2, §7.15): spambase has 4601 rows here (paper
4597, perhaps a de-duplicated copy); everything else has the paper's N × p.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _common import load_pmlb
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"

# name -> (relative file or None, paper N, paper p)
DATASETS: dict[str, tuple[str | None, int, int]] = {
    "banknote": ("misc/banknote.csv", 1372, 4),
    "coil2000": ("pmlb/coil2000.tsv.gz", 9822, 85),
    "diabetes": ("pmlb/pima.tsv.gz", 768, 8),
    "ionosphere": ("pmlb/ionosphere.tsv.gz", 351, 34),
    "magic": ("pmlb/magic.tsv.gz", 19020, 10),
    "monk2": (None, 432, 6),
    "ring": ("pmlb/ring.tsv.gz", 7400, 20),
    "sonar": ("pmlb/sonar.tsv.gz", 208, 60),
    "spambase": ("pmlb/spambase.tsv.gz", 4597, 57),
    "twonorm": ("pmlb/twonorm.tsv.gz", 7400, 20),
    "waveform": ("pmlb/waveform_21.tsv.gz", 5000, 21),
    "wisconsin": ("pmlb/wdbc.tsv.gz", 569, 30),
}
ALL_DATASETS = tuple(DATASETS)


@dataclass
class Dataset:
    name: str
    X: FloatArray
    y: IntArray
    source: str
    n_full: int  # rows in the file (before any subsampling)

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.X.shape[0]), int(self.X.shape[1]))


class DataMissing(RuntimeError):
    """The dataset's file is not in the data folder."""


def _load_pmlb(path: Path) -> tuple[FloatArray, IntArray]:
    X, labels = load_pmlb(path)
    return X, labels.astype(np.int64)


def monk2() -> tuple[FloatArray, IntArray]:
    """The 432-row MONK-2 test set: all 3·3·2·3·4·2 attribute combinations (itertools order),
    label 1 iff exactly two of a1..a6 take their first value (1)."""
    levels = (3, 3, 2, 3, 4, 2)
    rows = np.array(list(itertools.product(*(range(1, k + 1) for k in levels))), dtype=np.float64)
    y = (np.sum(rows == 1.0, axis=1) == 2).astype(np.int64)
    return rows, y


def load(name: str, data_dir: Path = DATA_DIR) -> Dataset:
    """Load one of the 12 datasets (raw features, labels as in the file)."""
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; choose from {list(DATASETS)}")
    rel = DATASETS[name][0]
    if rel is None:
        X, y = monk2()
        return Dataset(name, X, y, "regenerated MONK-2 test set (432 rows)", len(y))
    path = data_dir / rel
    if not path.exists():
        if name == "wisconsin":
            from sklearn.datasets import load_breast_cancer

            bc = load_breast_cancer()
            X = np.asarray(bc.data, dtype=np.float64)
            y = np.asarray(bc.target, dtype=np.int64)
            return Dataset(name, X, y, "sklearn load_breast_cancer", len(y))
        raise DataMissing(f"{name}: {path} not found")
    if rel.endswith(".csv"):
        A = np.loadtxt(path, delimiter=",", dtype=np.float64)
        X, y = np.ascontiguousarray(A[:, :-1]), A[:, -1].astype(np.int64)
    else:
        X, y = _load_pmlb(path)
    if name == "waveform":
        y = (y == 1).astype(np.int64)  # class 1 vs classes {0, 2}
    return Dataset(name, X, y, str(rel), len(y))


def stratified_subsample(ds: Dataset, max_rows: int | None, seed: int) -> Dataset:
    """A seeded stratified random subset of at most ``max_rows`` rows (row order kept)."""
    n = ds.shape[0]
    if max_rows is None or n <= max_rows:
        return ds
    from sklearn.model_selection import train_test_split

    keep, _ = train_test_split(np.arange(n), train_size=max_rows, stratify=ds.y, random_state=seed)
    keep = np.sort(keep)
    return Dataset(
        ds.name,
        np.ascontiguousarray(ds.X[keep]),
        ds.y[keep],
        f"{ds.source}, stratified subsample {max_rows}/{n} (seed {seed})",
        ds.n_full,
    )


def minmax_fit(X: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Column minimum and range of the training rows (range 1 for constant columns)."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    return lo, np.where(hi > lo, hi - lo, 1.0)


def minmax_apply(X: FloatArray, lo: FloatArray, span: FloatArray) -> FloatArray:
    """(X − lo)/span: the training rows land in [0, 1]; test rows may fall slightly outside
    (not clipped)."""
    return np.ascontiguousarray((X - lo) / span)


def cv_folds(y: IntArray, k: int, seed: int) -> list[tuple[IntArray, IntArray]]:
    """Stratified, shuffled, seeded k-fold split: list of (train, test) row indices."""
    from sklearn.model_selection import StratifiedKFold

    skf = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    return [(tr.astype(np.int64), te.astype(np.int64)) for tr, te in skf.split(y, y)]


def validation_split(y: IntArray, fraction: float, seed: int) -> tuple[IntArray, IntArray]:
    """Stratified seeded split of a training fold into (fit, validation) positions; the
    validation part has ``ceil(fraction·n)`` rows (at least one per class)."""
    from sklearn.model_selection import train_test_split

    n = len(y)
    n_val = max(int(np.ceil(fraction * n)), len(np.unique(y)))
    fit, val = train_test_split(np.arange(n), test_size=n_val, stratify=y, random_state=seed)
    return np.sort(fit).astype(np.int64), np.sort(val).astype(np.int64)


def describe(ds: Dataset) -> dict[str, object]:
    labels, counts = np.unique(ds.y, return_counts=True)
    paper_n, paper_p = DATASETS[ds.name][1], DATASETS[ds.name][2]
    return {
        "name": ds.name,
        "source": ds.source,
        "rows": ds.shape[0],
        "features": ds.shape[1],
        "rows_in_file": ds.n_full,
        "paper_shape": [paper_n, paper_p],
        "same_shape_as_paper": ds.n_full == paper_n and ds.shape[1] == paper_p,
        "class_counts": {str(int(v)): int(c) for v, c in zip(labels, counts, strict=True)},
    }


if __name__ == "__main__":
    for nm in ALL_DATASETS:
        try:
            d = load(nm)
        except DataMissing as exc:
            print(f"{nm:<11} missing: {exc}")
            continue
        info = describe(d)
        print(
            f"{nm:<11} {info['rows']:>6} x {info['features']:<3} paper {info['paper_shape']} "
            f"classes {info['class_counts']}  [{info['source']}]"
        )


def parse_max_rows(text: str | None, default: Mapping[str, int]) -> dict[str, int]:
    """Row caps from the command line: ``None`` → ``default``; ``"none"`` → no cap; ``"2500"`` →
    every dataset; ``"magic=6000,ring=3000"`` → per dataset."""
    if text is None:
        return dict(default)
    if text.strip().lower() in ("", "none"):
        return {}
    out: dict[str, int] = {}
    for tok in text.split(","):
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k.strip()] = int(v)
        else:
            out.update(dict.fromkeys(ALL_DATASETS, int(tok)))
    return out
