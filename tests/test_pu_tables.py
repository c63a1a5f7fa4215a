"""PUClassifier against the cells of Tables III/IV (Sansone, De Natale & Zhou) that do not depend
on the random split (digest ``shared/papers/seed-000-pu-usmo.md`` §5.8).

Protocol of ``benches/reproduce_pu_tables.py`` (the authors' ``demo2.m``): π is the rounded
whole-dataset positive fraction, ``⌊0.2·π·N⌋`` random positives are labeled and all other rows
form D_n; Gaussian "scale 1" is ``gamma=0.5``; τ = 2e-3. The tables print the F-measure of
``performance.m``: the F of the *majority* class of the D_n labels (class 0 on ties), computed on
the predictions for ``X[:n]`` (``demo2.m`` predicts on all of X and scores against the n labels of
D_n).

Why one split is enough: the class counts of D_n are fixed by ``⌊0.2·π·N⌋`` whatever the seed,
and in these cells the classifier predicts one class for every row, so the majority-class F is a
function of the counts alone. The tests assert the constant prediction too, since it is what
makes the cell split-independent.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from kernelkit import PUClassifier

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TOL = 2e-3
GAUSSIAN_GAMMA = 0.5
SEED = 0

PRIORS: dict[str, float] = {
    "australian": 0.56,
    "clean1": 0.44,
    "diabetes": 0.35,
    "heart": 0.44,
    "heart-statlog": 0.44,
    "house": 0.47,
    "house-votes": 0.61,
    "ionosphere": 0.64,
    "isolet": 0.50,
    "krvskp": 0.48,
    "liverDisorders": 0.58,
    "spectf": 0.73,
}

# (kernel, λ, dataset, printed F, predicted class); digest §5.8. Australian is majority-negative
# in D_n (306 positives, 307 negatives), so its 0.0 comes from predicting *every* row positive.
# Two cells are constant on almost every split, not all: over seeds 0..9, linear λ=1e-2
# Liverdisorders (seed 8: 2 unlabeled positives at f ≈ −0.09, −0.05) and Gaussian λ=1e-2 Krvskp
# (seed 4: 2 labeled positives at f ≈ +0.06, +0.002) each have one split with 2 rows of the other
# class; β is pinned there (KKT interval width ≈ τ), so it is the optimum, not a solver defect. The
# 10-split means (68.80, 73.22) still round to the printed values; seed 0 is constant for all.
SPLIT_INDEPENDENT_CELLS: list[tuple[str, float, str, float, int]] = [
    ("linear", 1e-1, "diabetes", 82.3, 0),
    ("linear", 1e-1, "heart", 75.6, 0),
    ("linear", 1e-1, "liverDisorders", 68.8, 1),
    ("linear", 1e-1, "spectf", 81.1, 1),
    ("linear", 1e-2, "liverDisorders", 68.8, 1),
    ("gaussian", 1e-1, "australian", 0.0, 1),
    ("gaussian", 1e-1, "clean1", 76.4, 0),
    ("gaussian", 1e-1, "diabetes", 82.3, 0),
    ("gaussian", 1e-1, "heart", 75.6, 0),
    ("gaussian", 1e-1, "heart-statlog", 75.6, 0),
    ("gaussian", 1e-1, "house", 74.0, 0),
    ("gaussian", 1e-1, "house-votes", 71.8, 1),
    ("gaussian", 1e-1, "ionosphere", 74.2, 1),
    ("gaussian", 1e-1, "krvskp", 73.2, 0),
    ("gaussian", 1e-1, "liverDisorders", 68.8, 1),
    ("gaussian", 1e-1, "spectf", 81.1, 1),
    ("gaussian", 1e-2, "krvskp", 73.2, 0),
    ("gaussian", 1e-2, "liverDisorders", 68.8, 1),
    ("gaussian", 1e-2, "spectf", 81.1, 1),
]

# D_n composition (positives, negatives) under demo2.m's split; digest §4.3 gives Australian's.
UNLABELED_COUNTS: dict[str, tuple[int, int]] = {
    "australian": (306, 307),
    "diabetes": (215, 500),
    "heart": (97, 150),
    "krvskp": (1221, 1669),
    "liverDisorders": (160, 145),
    "spectf": (204, 95),
}


# --------------------------------------------------------------------------- protocol helper
def load(name: str) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    path = DATA / "pu-usmo" / f"{name}.npz"
    if not path.exists():
        raise FileNotFoundError(f"test data not found: {path} (see shared/data/README.md)")
    with np.load(path) as z:
        return np.asarray(z["X"], dtype=np.float64), np.asarray(z["y"], dtype=np.int64)


def labeled_mask(y: NDArray[np.int64], prior: float, seed: int) -> NDArray[np.bool_]:
    """demo2.m: the first ⌊N·π·0.2⌋ positives met along a random permutation are labeled."""
    order = np.random.default_rng(seed).permutation(len(y))
    positives_in_order = order[y[order] == 1]
    mask = np.zeros(len(y), dtype=bool)
    mask[positives_in_order[: math.floor(len(y) * prior * 0.2)]] = True
    return mask


def paper_f_measure(true_labels: NDArray[Any], pred_labels: NDArray[Any]) -> float:
    """REF-CODE performance.m: F of the majority class of ``true_labels`` (0 on ties)."""
    cls = 1 if np.count_nonzero(true_labels == 1) > np.count_nonzero(true_labels == 0) else 0
    in_cls = true_labels == cls
    tp = int(np.count_nonzero(pred_labels[in_cls] == cls))
    fp = int(np.count_nonzero(pred_labels[~in_cls] == cls))
    precision = tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = tp / int(np.count_nonzero(in_cls))
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def fit_split(
    kernel: str, lam: float, name: str, seed: int
) -> tuple[PUClassifier, NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
    """Fits one demo2.m split; returns the model, y, the predictions on all of X, the mask."""
    x, y = load(name)
    prior = PRIORS[name]
    labeled = labeled_mask(y, prior, seed)
    params: dict[str, Any] = (
        {"kernel": "linear"} if kernel == "linear" else {"kernel": "rbf", "gamma": GAUSSIAN_GAMMA}
    )
    model = PUClassifier(prior=prior, lam=lam, tol=TOL, **params)
    model.fit(x, labeled.astype(np.int64))
    return model, y, np.asarray(model.predict(x), dtype=np.int64), labeled


# --------------------------------------------------------------------------- tests
@pytest.mark.parametrize(("name", "counts"), sorted(UNLABELED_COUNTS.items()))
def test_split_keeps_the_unlabeled_class_counts(name: str, counts: tuple[int, int]) -> None:
    _, y = load(name)
    for seed in range(3):
        y_u = y[~labeled_mask(y, PRIORS[name], seed)]
        assert (int(np.sum(y_u == 1)), int(np.sum(y_u == 0))) == counts


@pytest.mark.parametrize(
    ("kernel", "lam", "name", "printed", "predicted_class"),
    SPLIT_INDEPENDENT_CELLS,
    ids=[f"{k}-{lam:g}-{n}" for k, lam, n, _, _ in SPLIT_INDEPENDENT_CELLS],
)
def test_split_independent_table_cell(
    kernel: str, lam: float, name: str, printed: float, predicted_class: int
) -> None:
    model, y, pred, labeled = fit_split(kernel, lam, name, SEED)
    assert model.status_ == "converged", (model.status_, model.kkt_gap_)
    y_u = y[~labeled]
    n = len(y_u)

    # The paper's protocol: predictions for X[:n] scored against y(D_n) ...
    paper_f = 100 * paper_f_measure(y_u, pred[:n])
    # ... and, since the prediction is constant, the same value without the index mismatch.
    transductive_f = 100 * paper_f_measure(y_u, pred[~labeled])

    classes, counts = np.unique(pred, return_counts=True)
    assert classes.tolist() == [predicted_class], (
        f"expected every row predicted {predicted_class}, got classes {classes} x {counts}; "
        f"intercept {model.intercept_}, paper F {paper_f:.2f} vs printed {printed}"
    )
    assert f"{paper_f:.1f}" == f"{printed:.1f}", (paper_f, printed)
    assert f"{transductive_f:.1f}" == f"{printed:.1f}", (transductive_f, printed)
