"""What an installation must give: the declared version, floors that the CI floors job pins,
and every public estimator fitting a small problem to the right answer.

.ci/wheel runs this file in two fresh environments, the wheel installed with ``--no-deps``: the
newest CPython with the newest dependencies, and CPython 3.10 with every dependency at its
declared floor (``ci/min-constraints.txt``), there with the whole suite.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sklearn.linear_model
import sklearn.svm
from sklearn.base import BaseEstimator
from sklearn.datasets import make_blobs, make_regression

import kernelkit

CONSTRAINTS = Path(__file__).resolve().parents[1] / "ci" / "min-constraints.txt"


def test_version_is_the_installed_distributions() -> None:
    assert kernelkit.__version__ == importlib.metadata.version("kernelkit")


def _floors() -> dict[str, str]:
    """name -> floor of every ``name>=floor`` requirement in the installed metadata."""
    floors = {}
    for requirement in importlib.metadata.requires("kernelkit") or []:
        spec = requirement.split(";")[0]
        match = re.match(r"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*(.*)", spec)
        assert match is not None, requirement
        floor = re.search(r">=\s*([0-9][^,\s]*)", match[2])
        if floor is not None:
            floors[match[1].lower()] = floor[1]
    return floors


def test_the_floors_job_pins_every_declared_floor() -> None:
    """ci/min-constraints.txt pins each floor of the runtime and test requirements exactly (a
    `.0` patch level where the floor omits it), and pins nothing else."""
    pins = dict(
        line.split("==")
        for line in map(str.strip, CONSTRAINTS.read_text().splitlines())
        if line and not line.startswith("#")
    )
    floors = _floors()
    floors.pop("maturin")  # a build tool in the test extra, not run by the suite
    expected = {name: floor + ".0" * (2 - floor.count(".")) for name, floor in floors.items()}
    assert {name.lower(): pin for name, pin in pins.items()} == expected


def _blobs(n: int = 120, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    x, y = make_blobs(n_samples=n, centers=[[-2, -2], [2, 2]], cluster_std=1.0, random_state=seed)
    return x, y


def _accuracy(model: Any, x: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(model.predict(x) == y))


def _libsvm_same(ours: Any, theirs: Any, x: np.ndarray, y: np.ndarray | None) -> None:
    ours.fit(x, y)
    theirs.fit(x, y)
    d_ours = ours.decision_function(x) if hasattr(ours, "decision_function") else ours.predict(x)
    d_theirs = (
        theirs.decision_function(x) if hasattr(theirs, "decision_function") else theirs.predict(x)
    )
    scale = float(np.max(np.abs(d_theirs)))
    np.testing.assert_allclose(d_ours, d_theirs, rtol=0, atol=1e-3 * scale)


def _regression() -> tuple[np.ndarray, np.ndarray]:
    x, y = make_regression(n_samples=120, n_features=3, noise=5.0, random_state=0)
    return x, y / np.std(y)


def _unlabeled() -> tuple[np.ndarray, None]:
    return _blobs()[0], None


def _libsvm(
    name: str, params: dict[str, Any], data: Callable[[], tuple[np.ndarray, np.ndarray | None]]
) -> Callable[[], None]:
    """The fit of a LIBSVM-family estimator: the same decision values as scikit-learn's
    estimator of the same name and parameters, on ``data()``."""

    def fit() -> None:
        x, y = data()
        ours, theirs = getattr(kernelkit, name)(**params), getattr(sklearn.svm, name)(**params)
        _libsvm_same(ours, theirs, x, y)

    return fit


def _pu() -> None:
    x, y = _blobs(n=200)
    rng = np.random.default_rng(0)
    labeled = (y == 1) & (rng.random(len(y)) < 0.5)
    unlabeled_prior = float(np.mean(y[~labeled] == 1))
    model = kernelkit.PUClassifier(prior=unlabeled_prior).fit(x, labeled.astype(int))
    assert _accuracy(model, x, y) > 0.9


def _frank_wolfe() -> None:
    x, y = _blobs()
    assert _accuracy(kernelkit.FrankWolfeSVC(C=10.0).fit(x, y), x, y) > 0.95


def _constrained_svr() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((150, 4))
    y = x @ np.array([1.0, 0.5, 0.0, 2.0]) + 0.05 * rng.standard_normal(150)
    model = kernelkit.ConstrainedSVR(C=10.0, constraint="nonnegative").fit(x, y)
    assert np.all(model.coef_ >= -1e-9)
    assert model.score(x, y) > 0.95


def _sparse_klr() -> None:
    x, y = _blobs()
    model = kernelkit.SparseKernelLogisticRegression(C=1.0).fit(x, y)
    assert _accuracy(model, x, y) > 0.95
    np.testing.assert_allclose(model.predict_proba(x).sum(axis=1), 1.0, rtol=0, atol=1e-12)


def _aid_regressor() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((200, 3))
    y = x @ np.array([1.0, -2.0, 0.5]) + 1.0 + rng.laplace(size=200)
    model = kernelkit.AIDRegressor(random_state=0).fit(x, y)
    reference = sklearn.linear_model.QuantileRegressor(quantile=0.5, alpha=0.0).fit(x, y)
    ours = np.abs(y - model.predict(x)).sum()
    theirs = np.abs(y - reference.predict(x)).sum()
    assert ours <= theirs * (1 + 1e-4)


def _aid_classifier() -> None:
    x, y = _blobs()
    model = kernelkit.AIDClassifier(C=1.0, random_state=0).fit(x, y)
    reference = sklearn.svm.SVC(kernel="linear", C=1.0).fit(x, y)
    assert np.mean(model.predict(x) == reference.predict(x)) > 0.97


def _aid_semi_supervised() -> None:
    x, y = _blobs(n=200)
    partial = np.where(np.arange(len(y)) % 5 == 0, y, -1)
    model = kernelkit.AIDSemiSupervisedClassifier(random_state=0).fit(x, partial)
    assert _accuracy(model, x, y) > 0.9


FITS: dict[type[Any], Callable[[], None]] = {
    kernelkit.SVC: _libsvm("SVC", {"C": 2.0}, _blobs),
    kernelkit.NuSVC: _libsvm("NuSVC", {"nu": 0.3}, _blobs),
    kernelkit.SVR: _libsvm("SVR", {"C": 3.0}, _regression),
    kernelkit.NuSVR: _libsvm("NuSVR", {"nu": 0.4}, _regression),
    kernelkit.OneClassSVM: _libsvm("OneClassSVM", {"nu": 0.2}, _unlabeled),
    kernelkit.PUClassifier: _pu,
    kernelkit.FrankWolfeSVC: _frank_wolfe,
    kernelkit.ConstrainedSVR: _constrained_svr,
    kernelkit.SparseKernelLogisticRegression: _sparse_klr,
    kernelkit.AIDRegressor: _aid_regressor,
    kernelkit.AIDClassifier: _aid_classifier,
    kernelkit.AIDSemiSupervisedClassifier: _aid_semi_supervised,
}


def test_every_public_estimator_is_covered() -> None:
    public = {
        obj
        for name in kernelkit.__all__
        if inspect.isclass(obj := getattr(kernelkit, name)) and issubclass(obj, BaseEstimator)
    }
    assert public == set(FITS)


@pytest.mark.parametrize("estimator", list(FITS), ids=lambda cls: cls.__name__)
def test_every_public_estimator_fits_a_small_problem(estimator: type[Any]) -> None:
    FITS[estimator]()
