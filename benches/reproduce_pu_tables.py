"""Reproduce Tables III (linear) and IV (Gaussian) of Sansone, De Natale & Zhou, "Efficient
Training for Positive Unlabeled Learning" (TPAMI 2019) with ``kernelkit.PUClassifier``.

Protocol (digest ``shared/papers/seed-000-pu-usmo.md`` §4.3, the authors' ``demo2.m``):

* the 12 small UCI sets of ``shared/data/pu-usmo``; the prior π is the whole-dataset positive
  fraction rounded to 2 decimals, exactly the values hard-coded in ``demo2.m``;
* ``⌊0.2·π·N⌋`` random positives are labeled; every other row (positives and negatives) is
  unlabeled and forms D_n (the original row order is kept, as MATLAB's logical indexing does);
* λ ∈ {1e-4, 1e-3, 1e-2, 1e-1}; linear kernel and Gaussian kernel of scale 1,
  ``exp(−‖x−y‖²/2)``, i.e. ``gamma=0.5``; τ = 2e-3 (``tol=2e-3``);
* seeded splits (``numpy.random.default_rng(seed)``, seeds 0..splits−1); mean over splits.

Two F-measures are reported per cell:

* ``paper F``: what the authors' ``performance.m`` computes in ``demo2.m`` and what the tables
  print. It is the F-measure of the *majority class* of the D_n labels (class 0 on ties), and
  ``demo2.m`` predicts on the full X (N rows) but scores against the n labels of D_n, so it
  compares ``y(D_n)[k]`` with the prediction for ``X[k]``, k < n (digest §4.3 (i) and (ii));
* ``F1``: the ordinary F1 of the positive class (y = 1) on D_n with the predictions for D_n.

The deviation and the summary statistics (median |dev|, share of cells within 5 points) compare
the mean paper F with the paper's printed USMO value. Results go to ``benches/results``.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kernelkit import PUClassifier

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "pu_tables.json"

LABELED_FRACTION = 0.2
TOL = 2e-3  # the paper's τ: REF-CODE tol = 1e-3 with a violation when gap > 2·tol (digest §1.5)
GAUSSIAN_GAMMA = 0.5  # "scale 1": exp(−‖x−y‖²/(2·1²)) (digest §1.5, §6 #15)
LAMS = (1e-4, 1e-3, 1e-2, 1e-1)
KERNELS = ("linear", "gaussian")

# demo2.m: whole-dataset positive fractions, rounded to 2 decimals (digest §4.3).
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
DATASETS = tuple(PRIORS)

TABLE_NAMES: dict[str, str] = {
    "australian": "Australian",
    "clean1": "Clean1",
    "diabetes": "Diabetes",
    "heart": "Heart",
    "heart-statlog": "Heart-statlog",
    "house": "House",
    "house-votes": "House-votes",
    "ionosphere": "Ionosphere",
    "isolet": "Isolet",
    "krvskp": "Krvskp",
    "liverDisorders": "Liverdisorders",
    "spectf": "Spectf",
}

# Tables III and IV verbatim (digest §4.4, §4.5): per λ, the columns
# (Init*, [6] ramp loss, [7] double-hinge QP, USMO).
METHODS = ("init", "ramp[6]", "qp[7]", "usmo")
Row = dict[float, tuple[float, float, float, float]]
PAPER_TABLES: dict[str, dict[str, Row]] = {
    "linear": {
        "australian": {
            1e-4: (61.8, 61.5, 67.9, 68.3),
            1e-3: (61.8, 68.8, 67.7, 67.6),
            1e-2: (61.8, 63.4, 69.0, 69.3),
            1e-1: (61.8, 58.5, 70.0, 70.2),
        },
        "clean1": {
            1e-4: (60.6, 81.6, 70.5, 70.2),
            1e-3: (63.8, 76.2, 65.5, 65.6),
            1e-2: (64.6, 81.9, 73.3, 73.0),
            1e-1: (66.2, 80.4, 77.9, 75.6),
        },
        "diabetes": {
            1e-4: (41.8, 73.3, 70.0, 70.1),
            1e-3: (41.4, 71.5, 71.2, 71.1),
            1e-2: (37.6, 77.9, 78.0, 79.3),
            1e-1: (6.5, 82.3, 82.3, 82.3),
        },
        "heart": {
            1e-4: (46.8, 60.8, 60.1, 59.4),
            1e-3: (49.0, 63.4, 60.7, 60.0),
            1e-2: (57.2, 64.9, 66.0, 66.0),
            1e-1: (75.6, 75.6, 75.6, 75.6),
        },
        "heart-statlog": {
            1e-4: (63.3, 65.1, 54.5, 54.5),
            1e-3: (63.8, 58.1, 55.4, 55.2),
            1e-2: (66.9, 61.2, 53.8, 53.8),
            1e-1: (75.6, 67.5, 61.7, 60.2),
        },
        "house": {
            1e-4: (49.0, 57.9, 59.9, 59.9),
            1e-3: (49.8, 66.7, 59.0, 59.0),
            1e-2: (49.8, 57.9, 57.4, 56.8),
            1e-1: (58.4, 51.8, 64.6, 64.0),
        },
        "house-votes": {
            1e-4: (59.3, 51.6, 59.6, 59.6),
            1e-3: (60.0, 56.6, 60.0, 59.9),
            1e-2: (66.9, 59.3, 57.1, 57.2),
            1e-1: (71.8, 51.3, 61.7, 62.0),
        },
        "ionosphere": {
            1e-4: (19.3, 59.9, 65.1, 65.1),
            1e-3: (19.3, 74.9, 71.5, 72.0),
            1e-2: (19.3, 71.9, 72.6, 73.7),
            1e-1: (22.3, 75.5, 75.2, 75.2),
        },
        "isolet": {
            1e-4: (98.3, 77.1, 91.8, 93.7),
            1e-3: (98.1, 78.0, 93.3, 93.3),
            1e-2: (98.1, 81.1, 94.7, 94.7),
            1e-1: (98.0, 86.8, 95.5, 95.5),
        },
        "krvskp": {
            1e-4: (57.0, 78.4, 81.1, 81.1),
            1e-3: (57.3, 78.7, 79.6, 79.9),
            1e-2: (61.1, 75.8, 82.9, 82.9),
            1e-1: (68.8, 75.0, 80.6, 80.6),
        },
        "liverDisorders": {
            1e-4: (54.5, 56.0, 55.7, 56.0),
            1e-3: (60.0, 58.1, 63.9, 63.4),
            1e-2: (69.0, 68.8, 68.8, 68.8),
            1e-1: (68.8, 68.8, 68.8, 68.8),
        },
        "spectf": {
            1e-4: (56.4, 58.0, 73.5, 73.5),
            1e-3: (60.4, 66.3, 72.9, 72.3),
            1e-2: (58.1, 79.9, 80.6, 80.6),
            1e-1: (79.2, 81.1, 81.1, 81.1),
        },
    },
    "gaussian": {
        "australian": {
            1e-4: (67.0, 64.2, 64.2, 64.7),
            1e-3: (67.0, 64.2, 70.6, 70.6),
            1e-2: (67.0, 57.2, 59.4, 59.4),
            1e-1: (67.0, 0.0, 0.0, 0.0),
        },
        "clean1": {
            1e-4: (28.7, 80.1, 77.6, 77.6),
            1e-3: (44.0, 80.6, 81.7, 81.7),
            1e-2: (78.3, 78.0, 76.6, 76.6),
            1e-1: (76.4, 76.4, 76.4, 76.4),
        },
        "diabetes": {
            1e-4: (58.8, 74.1, 70.0, 70.0),
            1e-3: (58.4, 71.3, 71.2, 70.6),
            1e-2: (52.6, 80.7, 80.1, 80.1),
            1e-1: (0.0, 82.3, 82.3, 82.3),
        },
        "heart": {
            1e-4: (46.5, 66.7, 58.9, 58.9),
            1e-3: (47.7, 64.1, 59.8, 59.8),
            1e-2: (63.8, 70.3, 70.9, 70.9),
            1e-1: (75.6, 75.6, 75.6, 75.6),
        },
        "heart-statlog": {
            1e-4: (30.7, 70.3, 53.5, 53.5),
            1e-3: (31.5, 65.1, 56.7, 56.7),
            1e-2: (49.6, 60.6, 56.4, 56.4),
            1e-1: (75.6, 75.6, 75.6, 75.6),
        },
        "house": {
            1e-4: (38.5, 63.9, 56.5, 56.5),
            1e-3: (37.1, 68.8, 61.1, 60.1),
            1e-2: (28.2, 59.1, 56.8, 54.2),
            1e-1: (74.0, 74.0, 74.0, 74.0),
        },
        "house-votes": {
            1e-4: (64.2, 29.7, 61.2, 61.2),
            1e-3: (64.1, 54.3, 59.2, 59.4),
            1e-2: (67.4, 61.1, 57.5, 57.5),
            1e-1: (71.8, 71.8, 71.8, 71.8),
        },
        "ionosphere": {
            1e-4: (55.6, 52.6, 65.3, 65.3),
            1e-3: (56.3, 68.2, 74.3, 74.1),
            1e-2: (58.4, 58.7, 65.7, 65.7),
            1e-1: (72.7, 74.2, 74.2, 74.2),
        },
        "isolet": {
            1e-4: (0.0, 73.3, 75.3, 75.3),
            1e-3: (0.0, 73.8, 75.7, 75.7),
            1e-2: (0.0, 74.1, 76.4, 76.4),
            1e-1: (0.0, 73.3, 75.9, 75.9),
        },
        "krvskp": {
            1e-4: (52.0, 73.9, 82.4, 82.5),
            1e-3: (59.4, 77.2, 84.3, 84.1),
            1e-2: (44.2, 73.2, 73.2, 73.2),
            1e-1: (73.2, 73.2, 73.2, 73.2),
        },
        "liverDisorders": {
            1e-4: (44.3, 60.6, 57.0, 56.2),
            1e-3: (49.5, 63.7, 62.2, 62.5),
            1e-2: (68.8, 68.8, 68.8, 68.8),
            1e-1: (68.8, 68.8, 68.8, 68.8),
        },
        "spectf": {
            1e-4: (61.5, 38.0, 74.0, 74.0),
            1e-3: (80.0, 62.4, 72.9, 72.1),
            1e-2: (69.0, 81.1, 81.1, 81.1),
            1e-1: (81.1, 81.1, 81.1, 81.1),
        },
    },
}

IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
FloatArray = NDArray[np.float64]


# --------------------------------------------------------------------------- protocol
def load_dataset(data_dir: Path, name: str) -> tuple[FloatArray, IntArray]:
    """X (N x d, float64) and y ∈ {0, 1} of ``pu-usmo/<name>.npz``."""
    with np.load(data_dir / "pu-usmo" / f"{name}.npz") as z:
        return np.asarray(z["X"], dtype=np.float64), np.asarray(z["y"], dtype=np.int64)


def n_labeled(n_rows: int, prior: float) -> int:
    """demo2.m labels the positives met while ``count <= N·π·0.2`` (same float operations)."""
    return math.floor(n_rows * prior * LABELED_FRACTION)


def labeled_mask(y: IntArray, prior: float, seed: int) -> BoolArray:
    """demo2.m's split: walk a random permutation and keep the first ⌊0.2·π·N⌋ positives met
    as labeled; every other row is unlabeled."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    positives_in_order = order[y[order] == 1]
    mask = np.zeros(len(y), dtype=bool)
    mask[positives_in_order[: n_labeled(len(y), prior)]] = True
    return mask


def paper_f_measure(true_labels: IntArray, pred_labels: IntArray) -> float:
    """F-measure as REF-CODE ``performance.m`` computes it: the "positive" class is the majority
    class of ``true_labels`` (class 0 on ties); NaN precision, recall or F become 0."""
    true_labels = np.asarray(true_labels)
    pred_labels = np.asarray(pred_labels)
    cls = 1 if np.count_nonzero(true_labels == 1) > np.count_nonzero(true_labels == 0) else 0
    in_cls = true_labels == cls
    tp = int(np.count_nonzero(pred_labels[in_cls] == cls))
    fp = int(np.count_nonzero(pred_labels[~in_cls] == cls))
    n_cls = int(np.count_nonzero(in_cls))
    precision = tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = tp / n_cls if n_cls > 0 else 0.0
    if precision + recall == 0.0:
        return 0.0
    return 2.0 * precision * recall / (precision + recall)


def f1_positive(true_labels: IntArray, pred_labels: IntArray) -> float:
    """The ordinary F1 score of class 1 (0 when there is no true or predicted positive)."""
    tp = int(np.count_nonzero((true_labels == 1) & (pred_labels == 1)))
    denominator = int(np.count_nonzero(true_labels == 1) + np.count_nonzero(pred_labels == 1))
    return 2.0 * tp / denominator if denominator > 0 else 0.0


def make_classifier(kernel: str, lam: float, prior: float, tol: float = TOL) -> PUClassifier:
    if kernel == "linear":
        return PUClassifier(prior=prior, lam=lam, kernel="linear", tol=tol)
    if kernel == "gaussian":
        return PUClassifier(prior=prior, lam=lam, kernel="rbf", gamma=GAUSSIAN_GAMMA, tol=tol)
    raise ValueError(f"unknown kernel {kernel!r} (expected 'linear' or 'gaussian')")


@dataclass(frozen=True)
class SplitResult:
    seed: int
    paper_f: float  # performance.m with demo2.m's index mismatch (the tables' protocol)
    paper_f_transductive: float  # performance.m on the D_n predictions (no index mismatch)
    f1: float  # F1 of class 1 on D_n
    frac_pred_positive_unlabeled: float  # share of D_n predicted positive
    frac_pred_positive_all: float  # share of X predicted positive
    n_labeled: int
    n_unlabeled: int
    fit_seconds: float
    n_iter: int
    status: str
    kkt_gap: float
    objective: float
    intercept: float


def run_split(
    x: FloatArray, y: IntArray, prior: float, kernel: str, lam: float, seed: int, tol: float = TOL
) -> SplitResult:
    """One demo2.m run: split, fit on (labeled positives, D_n), predict on the full X."""
    labeled = labeled_mask(y, prior, seed)
    model = make_classifier(kernel, lam, prior, tol)
    start = time.perf_counter()
    model.fit(x, labeled.astype(np.int64))
    seconds = time.perf_counter() - start
    pred = np.asarray(model.predict(x), dtype=np.int64)
    y_u = y[~labeled]
    n_u = len(y_u)
    return SplitResult(
        seed=seed,
        paper_f=100.0 * paper_f_measure(y_u, pred[:n_u]),
        paper_f_transductive=100.0 * paper_f_measure(y_u, pred[~labeled]),
        f1=100.0 * f1_positive(y_u, pred[~labeled]),
        frac_pred_positive_unlabeled=float(np.mean(pred[~labeled] == 1)),
        frac_pred_positive_all=float(np.mean(pred == 1)),
        n_labeled=int(labeled.sum()),
        n_unlabeled=n_u,
        fit_seconds=seconds,
        n_iter=int(model.n_iter_),
        status=str(model.status_),
        kkt_gap=float(model.kkt_gap_),
        objective=float(model.objective_),
        intercept=float(np.ravel(model.intercept_)[0]),
    )


# --------------------------------------------------------------------------- reporting
def summary(deviations: list[float]) -> dict[str, float | int]:
    if not deviations:
        return {"cells": 0}
    a = np.abs(np.asarray(deviations))
    return {
        "cells": len(deviations),
        "median_abs_dev": float(np.median(a)),
        "p90_abs_dev": float(np.percentile(a, 90)),
        "max_abs_dev": float(a.max()),
        "mean_dev": float(np.mean(deviations)),
        "share_within_5": float(np.mean(a <= 5.0)),
    }


def format_summary(label: str, s: dict[str, float | int]) -> str:
    if not s.get("cells"):
        return f"{label}: no cells"
    return (
        f"{label}: cells={s['cells']}  median |dev|={s['median_abs_dev']:.2f}  "
        f"p90={s['p90_abs_dev']:.2f}  max={s['max_abs_dev']:.2f}  "
        f"mean dev={s['mean_dev']:+.2f}  within 5 pts={100 * float(s['share_within_5']):.0f}%"
    )


def markdown_tables(cells: list[dict[str, Any]], splits: int) -> str:
    """Tables III and IV as Markdown: per data set and λ, the paper's USMO F-measure beside
    kernelkit's mean paper F over the splits (``paper / kernelkit``)."""
    lines: list[str] = []
    for kernel, table in (("linear", "III"), ("gaussian", "IV")):
        mine = [c for c in cells if c["kernel"] == kernel]
        if not mine:
            continue
        lams = sorted({c["lam"] for c in mine})
        lines += [
            f"Table {table} ({kernel} kernel): F-measure, the paper's USMO / kernelkit "
            f"(mean of {splits} splits)",
            "",
            "| data set | π | " + " | ".join(f"λ = {lam:g}" for lam in lams) + " |",
            "|---|---:|" + "---:|" * len(lams),
        ]
        for name in dict.fromkeys(c["dataset"] for c in mine):
            row = {c["lam"]: c for c in mine if c["dataset"] == name}
            entries = []
            for lam in lams:
                cell = row.get(lam)
                if cell is None:
                    entries.append("")
                    continue
                printed = "-" if cell["paper"] is None else f"{cell['paper']['usmo']:.1f}"
                entries.append(f"{printed} / {cell['paper_f_mean']:.1f}")
            prior = next(iter(row.values()))["prior"]
            lines.append(f"| {TABLE_NAMES[name]} | {prior} | " + " | ".join(entries) + " |")
        lines.append("")
    return "\n".join(lines)


def parse_list(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in items if t not in allowed]
    if unknown:
        raise SystemExit(f"unknown {what}: {unknown}; choose from {list(allowed)}")
    return items


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--splits", type=int, default=10, help="seeded splits per cell")
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated names")
    parser.add_argument("--kernels", default=",".join(KERNELS), help="linear,gaussian")
    parser.add_argument("--lams", default=",".join(f"{lam:g}" for lam in LAMS))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)

    if args.splits < 1:
        raise SystemExit("--splits must be >= 1")
    datasets = parse_list(args.datasets, DATASETS, "dataset")
    kernels = parse_list(args.kernels, KERNELS, "kernel")
    lams = [float(t) for t in args.lams.split(",") if t.strip()]
    for lam in lams:
        if lam not in LAMS:
            print(f"note: λ={lam:g} is not in the paper's grid; no paper value to compare")

    cells: list[dict[str, Any]] = []
    devs: dict[str, list[float]] = {k: [] for k in kernels}
    devs_qp: dict[str, list[float]] = {k: [] for k in kernels}
    wall = time.perf_counter()
    for kernel in kernels:
        table = "III" if kernel == "linear" else "IV"
        print(f"\nTable {table} ({kernel} kernel), mean over {args.splits} split(s), tol={TOL:g}")
        header = (
            f"{'dataset':<15}{'lambda':>8}{'paper':>8}{'ours':>8}{'dev':>8}{'±sd':>7}"
            f"{'[7]':>7}{'F1':>8}{'Fdn':>8}{'pos%':>7}{'iters':>8}{'s/fit':>8}"
        )
        print(header)
        print("-" * len(header))
        for name in datasets:
            x, y = load_dataset(args.data, name)
            prior = PRIORS[name]
            for lam in lams:
                runs = [run_split(x, y, prior, kernel, lam, seed) for seed in range(args.splits)]
                paper_f = np.array([r.paper_f for r in runs])
                transductive = np.array([r.paper_f_transductive for r in runs])
                f1 = np.array([r.f1 for r in runs])
                ours = float(paper_f.mean())
                printed = PAPER_TABLES[kernel][name].get(lam)
                dev = None if printed is None else ours - printed[3]
                if printed is not None and dev is not None:
                    devs[kernel].append(dev)
                    devs_qp[kernel].append(ours - printed[2])
                cell = {
                    "kernel": kernel,
                    "dataset": name,
                    "lam": lam,
                    "prior": prior,
                    "paper": dict(zip(METHODS, printed, strict=True)) if printed else None,
                    "paper_f_mean": ours,
                    "paper_f_std": float(paper_f.std()),
                    "deviation": dev,
                    "paper_f_transductive_mean": float(transductive.mean()),
                    "f1_mean": float(f1.mean()),
                    "f1_std": float(f1.std()),
                    "splits": [asdict(r) for r in runs],
                }
                cells.append(cell)
                print(
                    f"{TABLE_NAMES[name]:<15}{lam:>8g}"
                    f"{'-' if printed is None else f'{printed[3]:.1f}':>8}{ours:>8.1f}"
                    f"{'-' if dev is None else f'{dev:+.1f}':>8}{paper_f.std():>7.1f}"
                    f"{'-' if printed is None else f'{printed[2]:.1f}':>7}"
                    f"{cell['f1_mean']:>8.1f}{cell['paper_f_transductive_mean']:>8.1f}"
                    f"{100 * np.mean([r.frac_pred_positive_unlabeled for r in runs]):>7.1f}"
                    f"{np.mean([r.n_iter for r in runs]):>8.0f}"
                    f"{np.mean([r.fit_seconds for r in runs]):>8.2f}",
                    flush=True,
                )
                bad = sorted({r.status for r in runs} - {"converged"})
                if bad:
                    print(f"    warning: solver status {bad}")

    print(
        "\ncolumns: paper = printed USMO value; ours = mean paper F (performance.m, demo2.m index"
        " mismatch); dev = ours − paper; [7] = printed QP value; F1 = F1 of class 1 on D_n;"
        " Fdn = majority-class F on D_n without the index mismatch; pos% = D_n predicted positive"
    )
    print("\nSummary (ours vs the printed USMO column)")
    summaries: dict[str, Any] = {}
    for kernel in kernels:
        s_usmo, s_qp = summary(devs[kernel]), summary(devs_qp[kernel])
        summaries[kernel] = {"vs_usmo": s_usmo, "vs_qp": s_qp}
        print(format_summary(f"  {kernel:<8} vs USMO", s_usmo))
        print(format_summary(f"  {kernel:<8} vs [7]  ", s_qp))
    every = [d for k in kernels for d in devs[k]]
    summaries["all"] = {"vs_usmo": summary(every)}
    print(format_summary("  all      vs USMO", summaries["all"]["vs_usmo"]))
    seconds = time.perf_counter() - wall
    print(f"\nwall time {seconds:.1f} s")

    try:
        version: str | None = metadata.version("kernelkit")
    except metadata.PackageNotFoundError:
        version = None
    result = {
        "paper": "Sansone, De Natale & Zhou, Efficient Training for PU Learning, Tables III/IV",
        "protocol": {
            "labeled": "floor(0.2*prior*N) random positives (demo2.m); the rest is D_n",
            "priors": PRIORS,
            "tol": TOL,
            "gaussian_gamma": GAUSSIAN_GAMMA,
            "splits": args.splits,
            "seeds": list(range(args.splits)),
            "paper_f": "performance.m: majority class of y(D_n) (0 on ties); predictions for "
            "X[:n] against y(D_n) (demo2.m index mismatch)",
            "f1": "F1 of class 1 on D_n",
        },
        "kernelkit_version": version,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "wall_seconds": seconds,
        "summary": summaries,
        "cells": cells,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    summary_lines = [
        format_summary(f"- {kernel} vs the paper's USMO", summaries[kernel]["vs_usmo"])
        for kernel in kernels
    ]
    args.out.with_suffix(".md").write_text(
        markdown_tables(cells, args.splits)
        + "\nDeviations (kernelkit − paper, F points):\n\n"
        + "\n".join(summary_lines)
        + f"\n\n`python benches/reproduce_pu_tables.py`, {seconds:.0f} s on {platform.machine()}.\n"
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
