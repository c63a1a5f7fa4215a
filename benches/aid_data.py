"""Data of the AID benchmark (issue 8, seed paper 001; digest ``shared/papers/seed-001-aid.md``):
synthetic generators, offline loaders for ``../shared/data`` and an on-disk hand-over of the arrays
to the per-fit subprocesses.

Synthetic (the paper's LAD and IBM generators are not described, digest §5.6, so these are ours):

* ``lad``: X ~ N(0, 1) i.i.d. (n × m), an intercept β0 ~ N(0, 1), β ~ N(0, 1) (m), y = β0 + Xβ + ε
  with ε ~ Student-t(3) (heavy tails: where LAD differs from least squares). m counts the feature
  columns; every solver fits the intercept separately (so the LP has m + 1 coefficients).
* ``gauss``: two balanced Gaussian classes, x | y ~ N(y·(δ/2)·u, I_m) with y ∈ {−1, +1}, u a random
  unit vector and δ = ``GAUSS_SEPARATION`` = 3 (Bayes error Φ(−δ/2) ≈ 6.7 %: overlapping classes,
  so the C = 0.1 hinge problem has many margin errors and bounded support vectors).

Every synthetic instance is drawn from ``np.random.default_rng([seed, kind, n, m])``.

Real (``../shared/data``, see its README.md):

* LAD: PMLB ``344_mv`` and ``564_fried`` (40,768 × 10 each). Columns are standardised (constant
  columns only centred): with an intercept this changes neither the LAD optimum Σ|r| nor the
  fitted values, only the conditioning.
* SVM: ``a9a`` (LIBSVM a9a training file, 32,561 × 123, binary features, not scaled), ``w8a``
  (49,749 × 300, binary, not scaled), both densified; ``kddcup`` (PMLB 10 % KDD Cup 1999, 494,020 ×
  41; PMLB ids are the 23 labels in alphabetical order, id 11 = "normal." (97,277 rows) → −1, every
  attack → +1; protocol/service/flag stay PMLB integer codes; all 41 columns standardised, the two
  constant columns only centred). kddcup has only 145,585 distinct rows. Subsets of a real set
  (``--max-rows`` or a size ladder) are the first n rows of one seeded permutation, so smaller
  subsets are nested in larger ones.
* RBF: PMLB ``magic`` (19,020 × 10, labels {0, 1} → {−1, +1}), standardised, nested subsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from _common import load_pmlb, standardize
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"
GAUSS_SEPARATION = 3.0
KDD_NORMAL_ID = 11
SYNTHETIC = ("lad", "gauss")
LAD_REAL = ("344_mv", "564_fried")
SVM_REAL = ("a9a", "w8a", "kddcup")
RBF_REAL = ("magic",)
_KIND_ID = {"lad": 1, "gauss": 2}


class DataMissing(RuntimeError):
    """A file of ../shared/data is not there."""


@dataclass
class Problem:
    """One instance: arrays plus a JSON-able description."""

    name: str
    X: FloatArray
    y: FloatArray
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def m(self) -> int:
        return int(self.X.shape[1])


# --------------------------------------------------------------------------- synthetic
def make_lad(n: int, m: int, seed: int) -> Problem:
    """LAD instance: intercept + m N(0, 1) columns, β ~ N(0, 1), Student-t(3) noise."""
    rng = np.random.default_rng([seed, _KIND_ID["lad"], n, m])
    beta0 = float(rng.normal())
    beta = rng.normal(size=m)
    X = rng.standard_normal(size=(n, m))
    y = beta0 + X @ beta + rng.standard_t(3.0, size=n)
    meta = {
        "source": "synthetic lad: X~N(0,1), intercept + beta ~ N(0,1), Student-t(3) noise",
        "seed": seed,
        "beta0_true": beta0,
    }
    return Problem(f"lad n={n} m={m}", X, y, meta)


def make_gauss(n: int, m: int, seed: int, separation: float = GAUSS_SEPARATION) -> Problem:
    """Two balanced Gaussian classes N(±(δ/2)u, I_m), labels ±1 (first n//2 rows −1 then +1,
    shuffled)."""
    rng = np.random.default_rng([seed, _KIND_ID["gauss"], n, m])
    u = rng.normal(size=m)
    u /= np.linalg.norm(u)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    X = rng.standard_normal(size=(n, m)) + (0.5 * separation) * y[:, None] * u[None, :]
    meta = {
        "source": f"synthetic gauss: x|y ~ N(y*{separation / 2:g}*u, I), u random unit vector",
        "seed": seed,
        "class_counts": {"-1": int(np.sum(y < 0)), "+1": int(np.sum(y > 0))},
    }
    return Problem(f"gauss n={n} m={m}", X, y, meta)


# --------------------------------------------------------------------------- real
def _require(path: Path) -> Path:
    if not path.exists():
        raise DataMissing(f"{path} not found (see ../shared/data/README.md)")
    return path


def _load_pmlb(path: Path) -> tuple[FloatArray, FloatArray]:
    return load_pmlb(_require(path))


def load_real(name: str, data_dir: Path = DATA_DIR) -> Problem:
    """One of the real sets (full size), prepared as described in the module docstring."""
    if name in LAD_REAL:
        X, y = _load_pmlb(data_dir / "pmlb" / f"{name}.tsv.gz")
        meta = {"source": f"pmlb/{name}.tsv.gz", "scaling": "standardised columns"}
        return Problem(name, standardize(X), y, meta)
    if name in ("a9a", "w8a"):
        from _common import load_svmlight_dense

        rel, nf = ("a9a/a9a.train.svm", 123) if name == "a9a" else ("w8a/w8a.svm", 300)
        X, y = load_svmlight_dense(_require(data_dir / rel), nf)
        y = np.where(y > 0, 1.0, -1.0)
        meta = {"source": rel, "scaling": "none (binary features), densified"}
        return Problem(name, X, y, meta)
    if name == "kddcup":
        X, ids = _load_pmlb(data_dir / "pmlb" / "kddcup.tsv.gz")
        y = np.where(ids.astype(np.int64) == KDD_NORMAL_ID, -1.0, 1.0)
        meta = {
            "source": "pmlb/kddcup.tsv.gz (10% KDD Cup 1999)",
            "task": f"binary: normal (PMLB id {KDD_NORMAL_ID}) = -1, attack = +1",
            "scaling": "categoricals as PMLB integer codes; standardised columns",
        }
        return Problem(name, standardize(X), y, meta)
    if name == "magic":
        X, y01 = _load_pmlb(data_dir / "pmlb" / "magic.tsv.gz")
        y = np.where(y01 > 0, 1.0, -1.0)
        meta = {"source": "pmlb/magic.tsv.gz", "scaling": "standardised columns"}
        return Problem(name, standardize(X), y, meta)
    raise KeyError(f"unknown dataset {name!r}")


def nested_subset(prob: Problem, n: int | None, seed: int) -> Problem:
    """The first ``n`` rows of a seeded permutation (the whole set, unpermuted, if n ≥ rows)."""
    if n is None or n >= prob.n:
        meta = dict(prob.meta, rows_in_file=prob.n)
        return Problem(prob.name, prob.X, prob.y, meta)
    perm = np.random.default_rng([seed, prob.n]).permutation(prob.n)
    keep = np.sort(perm[:n])
    meta = dict(prob.meta, rows_in_file=prob.n, subset=f"first {n} of a seeded permutation")
    return Problem(
        f"{prob.name}[{n}]",
        np.ascontiguousarray(prob.X[keep]),
        np.ascontiguousarray(prob.y[keep]),
        meta,
    )


def describe(prob: Problem) -> dict[str, Any]:
    out: dict[str, Any] = {"name": prob.name, "n": prob.n, "m": prob.m, **prob.meta}
    if set(np.unique(prob.y[: min(prob.n, 1000)])) <= {-1.0, 1.0}:
        out["class_counts"] = {"-1": int(np.sum(prob.y < 0)), "+1": int(np.sum(prob.y > 0))}
    return out


# --------------------------------------------------------------------------- hand-over
def save_problem(prob: Problem, folder: Path) -> tuple[str, str]:
    """Write X and y as .npy files in ``folder``; returns their paths (for the subprocesses)."""
    folder.mkdir(parents=True, exist_ok=True)
    tag = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{prob.name}_{prob.n}x{prob.m}")
    px, py = folder / f"{tag}_X.npy", folder / f"{tag}_y.npy"
    np.save(px, prob.X)
    np.save(py, prob.y)
    return str(px), str(py)


def load_arrays(paths: tuple[str, str]) -> tuple[FloatArray, FloatArray]:
    X = np.ascontiguousarray(np.load(paths[0]), dtype=np.float64)
    y = np.ascontiguousarray(np.load(paths[1]), dtype=np.float64)
    return X, y


if __name__ == "__main__":
    for nm in (*LAD_REAL, *SVM_REAL, *RBF_REAL):
        try:
            p = load_real(nm)
        except DataMissing as exc:
            print(f"{nm}: missing ({exc})")
            continue
        print(describe(p))
    print(describe(make_lad(1000, 10, 0)))
    print(describe(make_gauss(1000, 10, 0)))
