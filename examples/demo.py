"""kernelkit demo: every estimator next to its scikit-learn twin, on data bundled with sklearn.

Both libraries get the same parameters (numeric gamma, C, tol, cache_size); the table shows fit
times (best of 3), the ratio sklearn / kernelkit, test scores and how often predictions agree.

    python examples/demo.py
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn import svm
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.linear_model import LinearRegression, QuantileRegressor
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.semi_supervised import SelfTrainingClassifier

import kernelkit

Array = NDArray[Any]
SHARED: dict[str, Any] = {"tol": 1e-3, "cache_size": 200}  # passed to both libraries
REPEATS = 3
SEED = 0


@dataclass
class Row:
    dataset: str
    estimator: str
    kk_fit_s: float
    sk_fit_s: float
    kk_score: float
    sk_score: float
    agreement: str


def scale_gamma(X: Array) -> float:
    """The number that gamma="scale" stands for, so both libraries get the same value."""
    return float(1.0 / (X.shape[1] * X.var()))


def fit_timed(est: Any, X: Array, y: Array | None = None) -> float:
    """Fit ``REPEATS`` times and return the best wall time in seconds."""
    best = np.inf
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        est.fit(X, y)
        best = min(best, time.perf_counter() - t0)
    return float(best)


def split(X: Array, y: Array, stratify: bool = True) -> list[Array]:
    parts: list[Array] = train_test_split(
        X, y, test_size=0.25, random_state=SEED, stratify=y if stratify else None
    )
    return parts


def standardize(X_tr: Array, X_te: Array) -> tuple[Array, Array]:
    scaler = StandardScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te)


def compare_classifier(name: str, X: Array, y: Array, scale: bool, estimator: str = "SVC") -> Row:
    X_tr, X_te, y_tr, y_te = split(X, y)
    if scale:
        X_tr, X_te = standardize(X_tr, X_te)
    penalty = {"nu": 0.2} if estimator == "NuSVC" else {"C": 1.0}
    params: dict[str, Any] = {**penalty, "kernel": "rbf", "gamma": scale_gamma(X_tr), **SHARED}
    kk, sk = getattr(kernelkit, estimator)(**params), getattr(svm, estimator)(**params)
    return score_row(name, estimator, kk, sk, (X_tr, y_tr), (X_te, y_te))


def regression_split(X: Array, y: Array) -> tuple[Array, Array, Array, Array]:
    """Train/test split with standardized features and targets."""
    X_tr, X_te, y_tr, y_te = split(X, y, stratify=False)
    X_tr, X_te = standardize(X_tr, X_te)
    y_scaler = StandardScaler().fit(y_tr[:, None])
    y_tr, y_te = (y_scaler.transform(v[:, None]).ravel() for v in (y_tr, y_te))
    return X_tr, X_te, y_tr, y_te


def score_row(
    name: str,
    estimator: str,
    kk: Any,
    sk: Any,
    train: tuple[Array, Array | None],
    test: tuple[Array, Array],
    regression: bool = False,
) -> Row:
    """Fits both estimators on ``train`` (timed) and scores them on ``test``: accuracy and the
    share of equal predictions, or (``regression``) R² and the largest prediction difference."""
    kk_s, sk_s = fit_timed(kk, *train), fit_timed(sk, *train)
    X_te, y_te = test
    kk_pred, sk_pred = kk.predict(X_te), sk.predict(X_te)
    if regression:
        scores = r2_score(y_te, kk_pred), r2_score(y_te, sk_pred)
        agreement = f"max|Δ| {np.max(np.abs(kk_pred - sk_pred)):.1e}"
    else:
        scores = np.mean(kk_pred == y_te), np.mean(sk_pred == y_te)
        agreement = f"{np.mean(kk_pred == sk_pred):.1%}"
    return Row(name, estimator, kk_s, sk_s, float(scores[0]), float(scores[1]), agreement)


def compare_regressor(name: str, X: Array, y: Array, estimator: str = "SVR") -> Row:
    X_tr, X_te, y_tr, y_te = regression_split(X, y)
    tube = {"nu": 0.5} if estimator == "NuSVR" else {"epsilon": 0.1}
    params: dict[str, Any] = {
        "C": 1.0,
        **tube,
        "kernel": "rbf",
        "gamma": scale_gamma(X_tr),
        **SHARED,
    }
    kk, sk = getattr(kernelkit, estimator)(**params), getattr(svm, estimator)(**params)
    return score_row(name, estimator, kk, sk, (X_tr, y_tr), (X_te, y_te), regression=True)


def compare_novelty(name: str, X: Array, y: Array, inlier_class: int) -> tuple[Row, str]:
    """Train on the training rows of one class; on the test split, +1 should mean that class."""
    X_tr, X_te, y_tr, y_te = split(X, y)
    X_tr, X_te = standardize(X_tr[y_tr == inlier_class], X_te)
    params: dict[str, Any] = {"nu": 0.1, "kernel": "rbf", "gamma": scale_gamma(X_tr), **SHARED}
    kk, sk = kernelkit.OneClassSVM(**params), svm.OneClassSVM(**params)
    truth = np.where(y_te == inlier_class, 1, -1)
    row = score_row(name, "OneClassSVM", kk, sk, (X_tr, None), (X_te, truth))
    kk_pred, sk_pred = kk.predict(X_te), sk.predict(X_te)
    note = (
        f"OneClassSVM on {name}: trained on the {len(X_tr)} training rows of class "
        f"{inlier_class}, nu=0.1;\n  on the test split, inliers/outliers: "
        f"kernelkit {np.mean(kk_pred == 1):.1%}/"
        f"{np.mean(kk_pred == -1):.1%}, sklearn {np.mean(sk_pred == 1):.1%}/"
        f"{np.mean(sk_pred == -1):.1%} (class {inlier_class} is {np.mean(truth == 1):.1%});\n"
        f"  score = accuracy of 'predicted inlier <=> class {inlier_class}'"
    )
    return row, note


def compare_pu(name: str, X: Array, y: Array) -> tuple[Row, str]:
    """PU learning: only 30% of the positives keep their label, the rest of the data is
    unlabeled. PUClassifier is given the prior; scikit-learn's SVC can only treat the
    unlabeled rows as negatives (the usual naive baseline). Score: accuracy on the test split."""
    X_tr, X_te, y_tr, y_te = split(X, y)
    X_tr, X_te = standardize(X_tr, X_te)
    rng = np.random.default_rng(0)
    labeled = (y_tr == 1) & (rng.random(len(y_tr)) < 0.3)
    s = labeled.astype(int)  # 1 = labeled positive, 0 = unlabeled
    prior = float(np.mean(y_tr == 1))
    gamma = scale_gamma(X_tr)
    kk = kernelkit.PUClassifier(prior=prior, lam=0.01, gamma=gamma, tol=SHARED["tol"])
    sk = svm.SVC(C=1.0, gamma=gamma, tol=SHARED["tol"], cache_size=SHARED["cache_size"])
    row = score_row(name, "PUClassifier", kk, sk, (X_tr, s), (X_te, y_te))
    note = (
        f"PUClassifier on {name}: {labeled.sum()} of {int((y_tr == 1).sum())} training "
        f"positives labeled, prior {prior:.2f}; the scikit-learn column is SVC trained on the "
        "same labels with the unlabeled rows taken as negatives (no PU estimator in scikit-learn)"
    )
    return row, note


def compare_frank_wolfe(name: str, X: Array, y: Array, scale: bool) -> tuple[Row, str]:
    """The L2-SVM (squared slacks) by away-step Frank–Wolfe, beside scikit-learn's SVC (hinge
    loss): not the same model, so the scores, not the predictions, are what to compare."""
    X_tr, X_te, y_tr, y_te = split(X, y)
    if scale:
        X_tr, X_te = standardize(X_tr, X_te)
    gamma = scale_gamma(X_tr)
    kk = kernelkit.FrankWolfeSVC(method="mfw", C=10.0, gamma=gamma, random_state=SEED)
    sk = svm.SVC(C=1.0, gamma=gamma, tol=SHARED["tol"], cache_size=SHARED["cache_size"])
    row = score_row(name, "FrankWolfeSVC", kk, sk, (X_tr, y_tr), (X_te, y_te))
    note = (
        "FrankWolfeSVC: the L2-SVM as a minimum enclosing ball (MFW, C=10 on squared slacks, "
        "epsilon=1e-6, 59 sampled points per search); the scikit-learn column is SVC (hinge loss, "
        "C=1) with the same gamma"
    )
    return row, note


def compare_constrained(name: str, X: Array, y: Array) -> tuple[list[Row], str]:
    """Linear ν-SVR: without constraints beside scikit-learn's NuSVR(kernel="linear") (the same
    model), and with β >= 0 beside scikit-learn's non-negative least squares."""
    X_tr, X_te, y_tr, y_te = regression_split(X, y)
    pairs = [
        ("ConstrainedSVR", None, svm.NuSVR(kernel="linear", C=1.0, nu=0.5, tol=SHARED["tol"])),
        ("ConstrainedSVR β>=0", "nonnegative", LinearRegression(positive=True)),
    ]
    rows = [
        score_row(
            name,
            label,
            kernelkit.ConstrainedSVR(C=1.0, nu=0.5, constraint=constraint, tol=SHARED["tol"]),
            sk,
            (X_tr, y_tr),
            (X_te, y_te),
            regression=True,
        )
        for label, constraint, sk in pairs
    ]
    note = (
        "ConstrainedSVR: linear nu-SVR (C=1, nu=0.5), by an interior-point method at this size "
        "(the generalized SMO on larger data); without constraints "
        "beside scikit-learn's NuSVR(kernel='linear') (the same model), with constraint="
        "'nonnegative' beside LinearRegression(positive=True) (non-negative least squares, "
        "another model of the same family)"
    )
    return rows, note


def compare_klr(name: str, X: Array, y: Array) -> tuple[Row, str]:
    """Sparse kernel logistic regression (λ = C/10, the paper's choice) beside scikit-learn's
    SVC with the same kernel and C: two sparse kernel classifiers."""
    X_tr, X_te, y_tr, y_te = split(X, y)
    scaler = MinMaxScaler().fit(X_tr)
    X_tr, X_te = scaler.transform(X_tr), np.clip(scaler.transform(X_te), 0.0, 1.0)
    C, gamma = 100.0, 0.5
    kk = kernelkit.SparseKernelLogisticRegression(C=C, lam=C / 10, gamma=gamma)
    sk = svm.SVC(C=C, gamma=gamma, tol=SHARED["tol"], cache_size=SHARED["cache_size"])
    row = score_row(name, "SparseKernelLogReg", kk, sk, (X_tr, y_tr), (X_te, y_te))
    note = (
        f"SparseKernelLogisticRegression on {name}: features in [0, 1], RBF gamma=0.5, C=100, "
        f"lam=C/10; it uses {kk.sparsity_:.1%} of the training points (SVC: "
        f"{len(sk.support_) / len(y_tr):.1%} support vectors) and gives probabilities"
    )
    return row, note


def compare_aid(cancer: Any, diabetes: Any) -> tuple[list[Row], str]:
    """AID (aggregate and iterative disaggregate): LAD beside scikit-learn's QuantileRegressor
    (median, no penalty: the same objective), the linear C-SVM beside SVC(kernel="linear"), and
    the semi-supervised S3VM (10% of the labels) beside SelfTrainingClassifier(SVC)."""
    X_tr, X_te, y_tr, y_te = regression_split(diabetes.data, diabetes.target)
    lad = kernelkit.AIDRegressor(random_state=SEED)
    median = QuantileRegressor(quantile=0.5, alpha=0.0, solver="highs")
    rows = [
        score_row(
            "diabetes", "AIDRegressor", lad, median, (X_tr, y_tr), (X_te, y_te), regression=True
        )
    ]
    lad_gap = (lad.objective_ - np.abs(y_tr - median.predict(X_tr)).sum()) / lad.objective_

    X_tr, X_te, y_tr, y_te = split(cancer.data, cancer.target)
    X_tr, X_te = standardize(X_tr, X_te)
    C = 0.1
    aid = kernelkit.AIDClassifier(C=C, random_state=SEED)
    linear = svm.SVC(kernel="linear", C=C, tol=SHARED["tol"], cache_size=SHARED["cache_size"])
    rows.append(
        score_row("breast_cancer", "AIDClassifier", aid, linear, (X_tr, y_tr), (X_te, y_te))
    )
    signs = np.where(y_tr == aid.classes_[1], 1.0, -1.0)
    w, b = linear.coef_[0], linear.intercept_[0]
    svc_objective = 0.5 * w @ w + C * np.maximum(0.0, 1.0 - signs * (X_tr @ w + b)).sum()

    hidden = np.random.default_rng(SEED).random(len(y_tr)) > 0.1
    y_partial = np.where(hidden, -1, y_tr)
    s3vm = kernelkit.AIDSemiSupervisedClassifier(C=1.0, C_unlabeled=0.1, random_state=SEED)
    self_training = SelfTrainingClassifier(
        svm.SVC(kernel="linear", C=1.0, probability=True, random_state=SEED)
    )
    rows.append(
        score_row(
            "breast_cancer",
            "AIDSemiSupervised",
            s3vm,
            self_training,
            (X_tr, y_partial),
            (X_te, y_te),
        )
    )
    note = (
        f"AID: AIDRegressor ends {lad.status_} after {lad.n_iter_} aggregated LPs on "
        f"{lad.history_[-1]['n_clusters']} of {len(y_tr)} rows, objective within {lad_gap:.1e} "
        f"of QuantileRegressor's; AIDClassifier (C={C}) ends {aid.status_} after {aid.n_iter_} "
        f"solves, objective {aid.objective_:.6f} vs SVC's {svc_objective:.6f}; "
        f"AIDSemiSupervisedClassifier (a heuristic) sees {int((~hidden).sum())} labels, beside "
        "SelfTrainingClassifier(SVC(kernel='linear')) on the same labels"
    )
    return rows, note


def print_table(rows: list[Row]) -> None:
    header = (
        "dataset",
        "estimator",
        "kernelkit fit",
        "sklearn fit",
        "sklearn/kk",
        "kernelkit score",
        "sklearn score",
        "prediction agreement",
    )
    cells = [
        (
            r.dataset,
            r.estimator,
            f"{r.kk_fit_s * 1e3:.1f} ms",
            f"{r.sk_fit_s * 1e3:.1f} ms",
            f"{r.sk_fit_s / r.kk_fit_s:.2f}x",
            f"{r.kk_score:.4f}",
            f"{r.sk_score:.4f}",
            r.agreement,
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(c[j]) for c in cells)) for j, h in enumerate(header)]
    print(_line(header, widths))
    print("-" * len(_line(header, widths)))
    for c in cells:
        print(_line(c, widths))


def _line(values: tuple[str, ...], widths: list[int]) -> str:
    """Text columns (dataset, estimator) left-aligned, numbers right-aligned."""
    return "  ".join(
        v.ljust(w) if j < 2 else v.rjust(w)
        for j, (v, w) in enumerate(zip(values, widths, strict=True))
    )


def main() -> None:
    cancer, digits, diabetes = load_breast_cancer(), load_digits(), load_diabetes()
    rows = [
        compare_classifier("breast_cancer", cancer.data, cancer.target, scale=True),
        compare_classifier("digits", digits.data / 16.0, digits.target, scale=False),
        compare_classifier("digits", digits.data / 16.0, digits.target, False, "NuSVC"),
        compare_regressor("diabetes", diabetes.data, diabetes.target),
        compare_regressor("diabetes", diabetes.data, diabetes.target, "NuSVR"),
    ]
    novelty_row, novelty_note = compare_novelty("breast_cancer", cancer.data, cancer.target, 1)
    rows.append(novelty_row)
    pu_row, pu_note = compare_pu("breast_cancer", cancer.data, cancer.target)
    rows.append(pu_row)
    fw_row, fw_note = compare_frank_wolfe("breast_cancer", cancer.data, cancer.target, True)
    rows.append(fw_row)
    rows.append(compare_frank_wolfe("digits", digits.data / 16.0, digits.target, False)[0])
    constrained_rows, constrained_note = compare_constrained(
        "diabetes", diabetes.data, diabetes.target
    )
    rows.extend(constrained_rows)
    klr_row, klr_note = compare_klr("breast_cancer", cancer.data, cancer.target)
    rows.append(klr_row)
    aid_rows, aid_note = compare_aid(cancer, diabetes)
    rows.extend(aid_rows)

    print(
        f"kernelkit {getattr(kernelkit, '__version__', '?')} vs scikit-learn "
        f"(same C, numeric gamma, tol={SHARED['tol']}, cache_size={SHARED['cache_size']} MB; "
        f"fit time = best of {REPEATS}; score = accuracy, or R² for the regressors)\n"
    )
    print_table(rows)
    print(
        f"\n{novelty_note}\n\n{pu_note}\n\n{fw_note}\n\n{constrained_note}\n\n{klr_note}"
        f"\n\n{aid_note}"
    )


if __name__ == "__main__":
    main()
