"""Every data set of the benchmarks, each loaded one way: the files of ``../shared/data`` (see
its README.md) and the synthetic generators; the subsets and scalings the protocols use; the
hand-over of arrays to the fit processes (``stash`` / ``unstash``)."""

from __future__ import annotations

import gzip
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
DATA_DIR = Path(__file__).resolve().parents[3] / "shared" / "data"
KDD_NORMAL_ID = 11  # PMLB kddcup ids are the 23 labels in alphabetical order; 11 = "normal."
LIBSVM = {"a9a": ("a9a/a9a.train.svm", "a9a/a9a.test.svm", 123), "w8a": ("w8a/w8a.svm", None, 300)}


class DataMissing(FileNotFoundError):
    """A file of ../shared/data is not there."""


@dataclass
class Data:
    """Rows and labels as stored; the official test split where the data set has one."""

    X: Any
    y: Any
    X_test: Any = None
    y_test: Any = None
    source: str = ""


def _need(path: Path) -> Path:
    if not path.exists():
        raise DataMissing(f"{path} not found (see ../shared/data/README.md)")
    return path


def svmlight(path: Path, n_features: int, dense: bool = True) -> tuple[Any, FloatArray]:
    """A LIBSVM text file: C-contiguous float64 rows (CSR with sorted indices if not dense)."""
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(_need(path)), n_features=n_features)
    if dense:
        X = np.ascontiguousarray(X.toarray(), dtype=np.float64)
    else:
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
    return X, np.ascontiguousarray(y, dtype=np.float64)


def pmlb(path: Path) -> tuple[FloatArray, FloatArray]:
    """A PMLB ``.tsv.gz``: the features (float64) and the last column, ``target``, as float64."""
    with gzip.open(_need(path), "rt") as fh:
        fh.readline()  # header
        table = np.loadtxt(fh, delimiter="\t", dtype=np.float64)
    return np.ascontiguousarray(table[:, :-1]), np.ascontiguousarray(table[:, -1])


def monk2() -> tuple[FloatArray, NDArray[np.int64]]:
    """The 432-row MONK-2 test set: all 3·3·2·3·4·2 attribute combinations (itertools order),
    label 1 iff exactly two of a1..a6 take their first value (1)."""
    levels = (3, 3, 2, 3, 4, 2)
    rows = np.array(list(itertools.product(*(range(1, k + 1) for k in levels))), dtype=np.float64)
    return rows, (np.sum(rows == 1.0, axis=1) == 2).astype(np.int64)


def load(name: str, data_dir: Path = DATA_DIR, dense: bool = True) -> Data:
    """One data set, whole, as stored:

    * ``a9a`` (a9a.t as the test split), ``w8a``: LIBSVM files, labels ±1, dense float64 or
      (``dense=False``) CSR;
    * ``usps``: float32 pixels in [0, 1], labels 0–9, the official 7,291 / 2,007 split;
    * ``banknote``: ``misc/banknote.csv``; ``monk2``: regenerated (``monk2()``);
    * ``pu-usmo/<name>``: the USMO authors' preprocessed sets, labels {0, 1};
    * any other name: the PMLB file ``pmlb/<name>.tsv.gz`` (class ids as float64).
    """
    if name in LIBSVM:
        train, test, nf = LIBSVM[name]
        X, y = svmlight(data_dir / train, nf, dense)
        Xt, yt = svmlight(data_dir / test, nf, dense) if test else (None, None)
        return Data(X, y, Xt, yt, train)
    if name == "usps":
        with np.load(_need(data_dir / "usps" / "usps.npz")) as z:
            return Data(z["X_train"], z["y_train"], z["X_test"], z["y_test"], "usps/usps.npz")
    if name == "banknote":
        A = np.loadtxt(_need(data_dir / "misc" / "banknote.csv"), delimiter=",")
        return Data(np.ascontiguousarray(A[:, :-1]), A[:, -1], source="misc/banknote.csv")
    if name == "monk2":
        return Data(*monk2(), source="regenerated MONK-2 test set (432 rows)")
    if name.startswith("pu-usmo/"):
        with np.load(_need(data_dir / f"{name}.npz")) as z:
            X, y = np.asarray(z["X"], dtype=np.float64), np.asarray(z["y"], dtype=np.int64)
        return Data(X, y, source=f"{name}.npz")
    X, y = pmlb(data_dir / "pmlb" / f"{name}.tsv.gz")
    return Data(X, y, source=f"pmlb/{name}.tsv.gz")


# --------------------------------------------------------------------------- synthetic
def lad_rows(n: int, m: int, seed: int) -> tuple[FloatArray, FloatArray, float]:
    """X ~ N(0, 1) (n × m), y = β0 + Xβ + Student-t(3) noise with β0, β ~ N(0, 1); also β0."""
    rng = np.random.default_rng([seed, 1, n, m])
    beta0 = float(rng.normal())
    beta = rng.normal(size=m)
    X = rng.standard_normal(size=(n, m))
    return X, beta0 + X @ beta + rng.standard_t(3.0, size=n), beta0


def gauss_classes(n: int, m: int, seed: int, separation: float = 3.0) -> tuple[FloatArray, Any]:
    """Two balanced classes x | y ~ N(y·(δ/2)·u, I_m), y = ±1, u a random unit vector; δ = 3
    gives a Bayes error Φ(−δ/2) ≈ 6.7 % (many margin errors at C = 0.1)."""
    rng = np.random.default_rng([seed, 2, n, m])
    u = rng.normal(size=m)
    u /= np.linalg.norm(u)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return rng.standard_normal(size=(n, m)) + (0.5 * separation) * y[:, None] * u[None, :], y


def overlapping_classes(n: int, d: int, seed: int = 0) -> tuple[FloatArray, Any]:
    """Two overlapping classes N(±0.5·1, I_d), y = ±1: many support vectors, a busy cache."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    return rng.standard_normal((n, d)) + 0.5 * y[:, None], y


def pu_mixture(n: int, prior: float, rng: np.random.Generator, d: int = 10) -> tuple[Any, Any]:
    """``n`` points, P(y=1) = prior (labels 1/0); each class an equal mixture of two unit
    Gaussians, positives around ±2 e2 + 1.5 e1, negatives around ±2 e2 − 1.5 e1 (Bayes error
    ≈ 7 %). One row-major draw, so the first m rows do not depend on n (nested sizes)."""
    from scipy.stats import norm

    Z = rng.standard_normal((n, d + 2))
    y = (Z[:, d] < norm.ppf(prior)).astype(np.int8)
    X = Z[:, :d].copy()
    X[:, 0] += np.where(y == 1, 1.5, -1.5)
    X[:, 1] += np.where(Z[:, d + 1] < 0.0, 2.0, -2.0)
    return X, y


# --------------------------------------------------------------------------- subsets, scaling
def nested_subset(X: Any, y: Any, n: int | None, seed: int) -> tuple[Any, Any]:
    """The first ``n`` rows of a seeded permutation, in file order (all rows if n ≥ rows)."""
    if n is None or n >= X.shape[0]:
        return X, y
    keep = np.sort(np.random.default_rng([seed, X.shape[0]]).permutation(X.shape[0])[:n])
    return np.ascontiguousarray(X[keep]), np.ascontiguousarray(y[keep])


def stratified_subsample(X: Any, y: Any, max_rows: int | None, seed: int) -> tuple[Any, Any]:
    """A seeded stratified subset of at most ``max_rows`` rows, in file order."""
    if max_rows is None or len(y) <= max_rows:
        return X, y
    from sklearn.model_selection import train_test_split

    keep, _ = train_test_split(
        np.arange(len(y)), train_size=max_rows, stratify=y, random_state=seed
    )
    keep = np.sort(keep)
    return np.ascontiguousarray(X[keep]), y[keep]


def standardize(X: Any, *more: Any) -> Any:
    """Columns to mean 0, std 1 with the statistics of ``X`` (constant columns only centred);
    ``X`` alone, or the tuple of ``X`` and every array of ``more`` scaled the same way."""
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    out = tuple(np.ascontiguousarray((A - mu) / sd) for A in (X, *more))
    return out if more else out[0]


def minmax(X: Any, *more: Any) -> tuple[Any, ...]:
    """(A − min)/range with the column minimum and range of ``X`` (range 1 for a constant
    column): ``X`` lands in [0, 1], the others may fall slightly outside (not clipped)."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return tuple(np.ascontiguousarray((A - lo) / span) for A in (X, *more))


def scale_gamma(X: Any) -> float:
    """scikit-learn's ``gamma="scale"``: 1 / (n_features · Var X)."""
    return float(1.0 / (X.shape[1] * X.var(dtype=np.float64)))


# --------------------------------------------------------------------------- hand-over
def stash(folder: Path, **arrays: Any) -> str:
    """Write arrays for the fit processes (.npy; sparse ones as CSR .npz); returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, a in arrays.items():
        if sp.issparse(a):
            sp.save_npz(folder / f"{name}.npz", sp.csr_matrix(a), compressed=False)
        elif a is not None:
            np.save(folder / f"{name}.npy", np.ascontiguousarray(a))
    return str(folder)


def unstash(folder: str, name: str, n: int | None = None) -> Any:
    """Array ``name`` of a stash (its first ``n`` rows), C-contiguous (CSR with sorted indices);
    None when the stash has no such array."""
    base = Path(folder, name)
    if base.with_suffix(".npz").exists():
        X = sp.load_npz(base.with_suffix(".npz")).tocsr()[:n]
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
        return X
    if not base.with_suffix(".npy").exists():
        return None
    return np.ascontiguousarray(np.load(base.with_suffix(".npy"), mmap_mode="r")[:n])
