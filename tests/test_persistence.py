"""Persistence and meta-estimators: pickle and joblib round trips, ``clone``, ``GridSearchCV``.

A fitted model must come back from pickle or joblib bit for bit: the same predictions and decision
values (``assert_array_equal``), the same fitted arrays, and it must keep working (predict, refit).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pytest
import sklearn.svm
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import StandardScaler

import kernelkit

Array = NDArray[Any]
Case = tuple[BaseEstimator, Array, Array | None, Array]


def _breast_cancer() -> tuple[Array, Array]:
    x, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(x), y


def _svc_binary() -> Case:
    x, y = _breast_cancer()
    return kernelkit.SVC(C=2.0, n_jobs=1), x[:400], y[:400], x[400:]


def _svc_multiclass() -> Case:
    x, y = load_digits(return_X_y=True)
    x = x / 16.0
    model = kernelkit.SVC(C=5.0, gamma=0.02, class_weight="balanced", n_jobs=1)
    return model, x[:600], y[:600], x[600:900]


def _svc_multiclass_string_labels() -> Case:
    x, y = load_digits(return_X_y=True)
    labels = np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight"])
    keep = y < len(labels)
    x, y = x[keep] / 16.0, labels[y[keep]]
    return kernelkit.SVC(decision_function_shape="ovo", n_jobs=1), x[:500], y[:500], x[500:700]


def _svr() -> Case:
    x, y = load_diabetes(return_X_y=True)
    x = StandardScaler().fit_transform(x)
    y = (y - y.mean()) / y.std()
    return kernelkit.SVR(C=3.0, epsilon=0.05, n_jobs=1), x[:350], y[:350], x[350:]


def _one_class() -> Case:
    x, _ = _breast_cancer()
    return kernelkit.OneClassSVM(nu=0.1, gamma=0.02, n_jobs=1), x[:400], None, x[400:]


def _svc_precomputed() -> Case:
    x, y = _breast_cancer()
    gram = x @ x[:300].T
    return kernelkit.SVC(kernel="precomputed", n_jobs=1), gram[:300], y[:300], gram[300:]


CASES: dict[str, Callable[[], Case]] = {
    "svc-binary": _svc_binary,
    "svc-multiclass": _svc_multiclass,
    "svc-multiclass-str-ovo": _svc_multiclass_string_labels,
    "svr": _svr,
    "one-class": _one_class,
    "svc-precomputed": _svc_precomputed,
}

FITTED_ARRAYS = ("support_", "support_vectors_", "dual_coef_", "intercept_", "n_support_")


def _fit(model: BaseEstimator, x: Array, y: Array | None) -> BaseEstimator:
    return model.fit(x) if y is None else model.fit(x, y)


def _outputs(model: BaseEstimator, x: Array) -> dict[str, Array]:
    """Everything the model computes on x."""
    out = {"predict": np.asarray(model.predict(x))}
    for method in ("decision_function", "score_samples"):
        if hasattr(model, method):
            out[method] = np.asarray(getattr(model, method)(x))
    return out


def _pickle_bytes(model: BaseEstimator, tmp_path: Path) -> BaseEstimator:
    restored: BaseEstimator = pickle.loads(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    return restored


def _pickle_file(model: BaseEstimator, tmp_path: Path) -> BaseEstimator:
    path = tmp_path / "model.pkl"
    with path.open("wb") as fh:
        pickle.dump(model, fh)
    with path.open("rb") as fh:
        restored: BaseEstimator = pickle.load(fh)
    return restored


def _joblib_file(model: BaseEstimator, tmp_path: Path) -> BaseEstimator:
    path = tmp_path / "model.joblib"
    joblib.dump(model, path)
    restored: BaseEstimator = joblib.load(path)
    return restored


def _joblib_compressed_memmap(model: BaseEstimator, tmp_path: Path) -> BaseEstimator:
    """joblib twice: compressed, then uncompressed and loaded with ``mmap_mode="r"`` (fitted
    arrays come back as read-only memory maps)."""
    compressed = tmp_path / "model.joblib.gz"
    joblib.dump(model, compressed, compress=3)
    plain = tmp_path / "model-plain.joblib"
    joblib.dump(joblib.load(compressed), plain)
    restored: BaseEstimator = joblib.load(plain, mmap_mode="r")
    return restored


ROUND_TRIPS: dict[str, Callable[[BaseEstimator, Path], BaseEstimator]] = {
    "pickle-bytes": _pickle_bytes,
    "pickle-file": _pickle_file,
    "joblib-file": _joblib_file,
    "joblib-compressed-mmap": _joblib_compressed_memmap,
}


@pytest.fixture(scope="module", params=list(CASES))
def fitted(request: pytest.FixtureRequest) -> tuple[BaseEstimator, Case]:
    case = CASES[request.param]()
    model, x, y, _ = case
    return _fit(model, x, y), case


@pytest.mark.parametrize("round_trip", list(ROUND_TRIPS))
def test_fitted_round_trip(
    fitted: tuple[BaseEstimator, Case], round_trip: str, tmp_path: Path
) -> None:
    model, (_, x, y, x_test) = fitted
    restored = ROUND_TRIPS[round_trip](model, tmp_path)
    assert type(restored) is type(model)
    assert restored is not model
    assert restored.get_params() == model.get_params()

    expected = _outputs(model, x_test)
    got = _outputs(restored, x_test)
    assert set(got) == set(expected)
    for method, values in expected.items():
        np.testing.assert_array_equal(got[method], values, err_msg=method)
    # Also on the training rows and on a single row.
    np.testing.assert_array_equal(restored.predict(x), model.predict(x))
    np.testing.assert_array_equal(restored.predict(x_test[:1]), model.predict(x_test[:1]))

    for name in (*FITTED_ARRAYS, "objective_", "kkt_gap_", "n_iter_", "n_features_in_"):
        np.testing.assert_array_equal(getattr(restored, name), getattr(model, name), err_msg=name)
    assert restored.status_ == model.status_
    if hasattr(model, "classes_"):
        np.testing.assert_array_equal(restored.classes_, model.classes_)
    if hasattr(model, "offset_"):
        assert restored.offset_ == model.offset_

    # The restored model is a working estimator: it refits to the same model.
    refitted = _fit(restored, np.array(x), None if y is None else np.array(y))
    for method, values in _outputs(refitted, x_test).items():
        np.testing.assert_array_equal(values, expected[method], err_msg=f"refit {method}")


def test_pickled_model_does_not_follow_set_params() -> None:
    """The fitted kernel is stored with the model: changing a parameter after the fit (or after a
    round trip) does not change predictions until the next fit, as with scikit-learn."""
    model, x, y, x_test = _svc_binary()
    model.fit(x, y)
    before = model.decision_function(x_test)
    restored = pickle.loads(pickle.dumps(model))
    restored.set_params(gamma=10.0, kernel="poly")
    np.testing.assert_array_equal(restored.decision_function(x_test), before)


def _stop_never(progress: Mapping[str, Any]) -> bool:
    return False


@pytest.mark.parametrize(
    "estimator",
    [
        kernelkit.SVC(),
        kernelkit.SVC(
            C=3.0,
            kernel="poly",
            degree=2,
            gamma=0.1,
            coef0=1.0,
            class_weight={0: 1.0, 1: 2.5},
            decision_function_shape="ovo",
            n_jobs=1,
            callback=_stop_never,
            time_limit=5.0,
        ),
        kernelkit.SVR(),
        kernelkit.SVR(C=0.5, epsilon=0.2, kernel="sigmoid", shrinking=False, max_iter=10_000),
        kernelkit.OneClassSVM(),
        kernelkit.OneClassSVM(nu=0.2, gamma="auto", cache_size=50, tol=1e-5),
    ],
    ids=["svc", "svc-params", "svr", "svr-params", "one-class", "one-class-params"],
)
@pytest.mark.parametrize("round_trip", ["pickle-bytes", "joblib-file"])
def test_unfitted_round_trip(estimator: BaseEstimator, round_trip: str, tmp_path: Path) -> None:
    restored = ROUND_TRIPS[round_trip](estimator, tmp_path)
    assert type(restored) is type(estimator)
    assert restored.get_params() == estimator.get_params()
    assert repr(restored) == repr(estimator)
    with pytest.raises(NotFittedError):
        restored.predict(np.zeros((2, 3)))


@pytest.mark.parametrize("case", list(CASES))
def test_clone(case: str) -> None:
    model, x, y, x_test = CASES[case]()
    _fit(model, x, y)
    copy = clone(model)
    assert type(copy) is type(model)
    assert copy.get_params() == model.get_params()
    assert not hasattr(copy, "support_")
    assert not hasattr(copy, "n_features_in_")
    with pytest.raises(NotFittedError):
        copy.predict(x_test)
    # Fitting the clone on the same data reproduces the model exactly (the fit is deterministic).
    _fit(copy, x, y)
    for method, values in _outputs(model, x_test).items():
        np.testing.assert_array_equal(_outputs(copy, x_test)[method], values, err_msg=method)
    # The clone is independent: changing it leaves the original alone.
    copy.set_params(tol=0.5)
    assert model.get_params()["tol"] != 0.5


def test_grid_search_matches_scikit_learn() -> None:
    """The same grid, folds and data select the same parameters as scikit-learn's SVC, with the
    same cross-validated accuracies (the models are the same)."""
    x, y = _breast_cancer()
    grid = {"C": [0.1, 1.0, 10.0], "gamma": [0.003, 0.03, 0.3]}
    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    # n_jobs=2: the candidates are pickled to joblib worker processes and back.
    ours = GridSearchCV(kernelkit.SVC(n_jobs=1), grid, cv=folds, n_jobs=2).fit(x, y)
    reference = GridSearchCV(sklearn.svm.SVC(), grid, cv=folds).fit(x, y)

    assert ours.best_params_ == reference.best_params_
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"], atol=1e-12
    )
    assert isinstance(ours.best_estimator_, kernelkit.SVC)
    assert ours.best_estimator_.get_params()["n_jobs"] == 1
    np.testing.assert_array_equal(ours.best_estimator_.support_, reference.best_estimator_.support_)
    np.testing.assert_array_equal(ours.predict(x), reference.predict(x))
    np.testing.assert_allclose(
        ours.decision_function(x), reference.decision_function(x), rtol=1e-6, atol=1e-6
    )
    # Accuracy well above chance on this easy problem.
    assert ours.best_score_ > 0.95
