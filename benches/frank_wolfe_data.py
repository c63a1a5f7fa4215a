"""The datasets of the Frank–Wolfe benchmark (issue #5): loading, splits and scaling, from
../shared/data (offline), and the paper's RBF width statistic (digest P8)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _common
import numpy as np
from _common import load_svmlight_dense
from numpy.typing import NDArray

ALL_DATASETS = ("a9a", "w8a", "usps", "letter", "shuttle", "kddcup")
W8A_TEST_FRACTION = 0.3
KDD_TEST_FRACTION = 0.2
KDD_NORMAL_ID = 11
KDD_CATEGORICAL = (1, 2, 3)  # protocol_type, service, flag
# PMLB kddcup ids are the 23 labels in alphabetical order; the paper's 5 classes (KDD'99 tasks).
KDD_LABELS = [
    *("back", "buffer_overflow", "ftp_write", "guess_passwd", "imap", "ipsweep", "land"),
    *("loadmodule", "multihop", "neptune", "nmap", "normal", "perl", "phf", "pod", "portsweep"),
    *("rootkit", "satan", "smurf", "spy", "teardrop", "warezclient", "warezmaster"),
]
KDD_CATEGORY = {
    "normal": 0,
    **dict.fromkeys(("back", "land", "neptune", "pod", "smurf", "teardrop"), 1),  # DoS
    **dict.fromkeys(("ipsweep", "nmap", "portsweep", "satan"), 2),  # Probe
    **dict.fromkeys(
        (
            "ftp_write",
            "guess_passwd",
            "imap",
            "multihop",
            "phf",
            "spy",
            "warezclient",
            "warezmaster",
        ),
        3,
    ),  # R2L
    **dict.fromkeys(("buffer_overflow", "loadmodule", "perl", "rootkit"), 4),  # U2R
}


def minmax_fit(X: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return lo, span


def load_pmlb(path: Path) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    X, labels = _common.load_pmlb(path)
    return X, labels.astype(np.int64)


def one_hot(
    X: NDArray[np.float64], columns: Sequence[int]
) -> tuple[NDArray[np.float64], list[int]]:
    """Replace integer-coded ``columns`` by one-hot blocks (levels from the whole file)."""
    keep = [j for j in range(X.shape[1]) if j not in columns]
    blocks, levels = [X[:, keep]], []
    for j in columns:
        values = np.unique(X[:, j])
        blocks.append((X[:, j][:, None] == values[None, :]).astype(np.float64))
        levels.append(int(values.size))
    return np.ascontiguousarray(np.hstack(blocks)), levels


def split_rows(
    n: int, test_fraction: float, rng: np.random.Generator
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    perm = rng.permutation(n)
    n_test = round(test_fraction * n)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def load_dataset(name: str, data_dir: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Train/test arrays (float64, labels float64) and a description of the split."""
    rng = np.random.default_rng([args.seed, ALL_DATASETS.index(name)])
    if name == "a9a":
        X, y = load_svmlight_dense(data_dir / "a9a" / "a9a.train.svm", 123)
        Xt, yt = load_svmlight_dense(data_dir / "a9a" / "a9a.test.svm", 123)
        split, scaling = "official a9a / a9a.t", "none (binary features)"
    elif name == "w8a":
        Xa, ya = load_svmlight_dense(data_dir / "w8a" / "w8a.svm", 300)
        tr, te = split_rows(Xa.shape[0], W8A_TEST_FRACTION, rng)
        X, y, Xt, yt = Xa[tr], ya[tr], Xa[te], ya[te]
        split, scaling = f"random 70/30 of w8a.svm (seed {args.seed})", "none (binary features)"
    elif name == "usps":
        z = np.load(data_dir / "usps" / "usps.npz")
        X, y = z["X_train"].astype(np.float64), z["y_train"].astype(np.float64)
        Xt, yt = z["X_test"].astype(np.float64), z["y_test"].astype(np.float64)
        split, scaling = "official 7,291 / 2,007", "none (pixels in [0, 1])"
    elif name in ("letter", "shuttle"):
        Xa, ya = load_pmlb(data_dir / "pmlb" / f"{name}.tsv.gz")
        n_train = 15_000 if name == "letter" else 43_500
        X, y, Xt, yt = Xa[:n_train], ya[:n_train], Xa[n_train:], ya[n_train:]
        split = (
            "first 15,000 / last 5,000 rows of PMLB (PMLB order ≠ UCI: not LIBSVM's rows)"
            if name == "letter"
            else "first 43,500 / last 14,500 rows of PMLB = Statlog shuttle.trn / shuttle.tst"
        )
        scaling = "min-max [0, 1] on train"
    elif name == "kddcup":
        Xa, ids = load_pmlb(data_dir / "pmlb" / "kddcup.tsv.gz")
        if args.kdd_encoding == "onehot":
            Xa, levels = one_hot(Xa, KDD_CATEGORICAL)
            enc = f"one-hot protocol/service/flag ({'+'.join(map(str, levels))} levels)"
        else:
            enc = "protocol/service/flag as PMLB integer codes"
        if args.kdd_task == "binary":
            ya = np.where(ids == KDD_NORMAL_ID, -1.0, 1.0)
            task = f"binary: normal (PMLB id {KDD_NORMAL_ID}) = −1, attack = +1"
        else:
            ya = np.array([KDD_CATEGORY[KDD_LABELS[i]] for i in range(23)], dtype=np.float64)[ids]
            task = "5 classes: 0 normal, 1 DoS, 2 Probe, 3 R2L, 4 U2R"
        tr, te = split_rows(Xa.shape[0], KDD_TEST_FRACTION, rng)
        X, y, Xt, yt = Xa[tr], ya[tr], Xa[te], ya[te]
        split = f"random 80/20 (seed {args.seed}); {task}"
        scaling = f"{enc}; min-max [0, 1] on train"
    else:
        raise ValueError(name)
    n_train_full, n_test_full = X.shape[0], Xt.shape[0]
    if args.max_train is not None and X.shape[0] > args.max_train:
        keep = np.sort(rng.choice(X.shape[0], args.max_train, replace=False))
        X, y = X[keep], y[keep]
    if args.max_test is not None and Xt.shape[0] > args.max_test:
        keep = np.sort(rng.choice(Xt.shape[0], args.max_test, replace=False))
        Xt, yt = Xt[keep], yt[keep]
    if scaling.endswith("min-max [0, 1] on train"):
        lo, span = minmax_fit(X)
        X, Xt = (X - lo) / span, (Xt - lo) / span
    classes, counts = np.unique(y, return_counts=True)
    return {
        "X": np.ascontiguousarray(X, dtype=np.float64),
        "y": np.ascontiguousarray(y, dtype=np.float64),
        "Xt": np.ascontiguousarray(Xt, dtype=np.float64),
        "yt": np.ascontiguousarray(yt, dtype=np.float64),
        "meta": {
            "name": name,
            "split": split,
            "scaling": scaling,
            "n_train_full": n_train_full,
            "n_test_full": n_test_full,
            "n_train": int(X.shape[0]),
            "n_test": int(Xt.shape[0]),
            "n_features": int(X.shape[1]),
            "n_classes": int(classes.size),
            "train_class_counts": {f"{c:g}": int(k) for c, k in zip(classes, counts, strict=True)},
        },
    }


def mean_sq_dist(X: NDArray[np.float64], max_points: int, seed: int) -> float:
    """Mean ‖x_i − x_j‖² over distinct pairs of ≤ ``max_points`` random rows (closed form)."""
    rng = np.random.default_rng(seed)
    S = X
    if X.shape[0] > max_points:
        S = X[np.sort(rng.choice(X.shape[0], max_points, replace=False))]
    s = S.shape[0]
    centred = S - S.mean(axis=0)
    return float(2.0 * np.einsum("ij,ij->", centred, centred) / (s - 1))
