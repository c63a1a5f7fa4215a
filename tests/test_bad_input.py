"""Bad input must raise a ValueError whose message names the problem."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import kernelkit

ESTIMATORS = ["SVC", "SVR", "OneClassSVM"]


def _data(n: int = 40, d: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d))
    y = (x[:, 0] > 0).astype(int)
    y[0], y[1] = 0, 1
    return x, y


def _make(name: str, **params: Any) -> Any:
    return getattr(kernelkit, name)(**params)


def _fit(est: Any, x: Any, y: Any, **kw: Any) -> Any:
    if isinstance(est, kernelkit.OneClassSVM):
        return est.fit(x, **kw)
    return est.fit(x, y, **kw)


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize(
    ("bad", "match"),
    [(np.nan, r"(?i)nan|finite"), (np.inf, r"(?i)inf|finite"), (-np.inf, r"(?i)inf|finite")],
    ids=["nan", "inf", "-inf"],
)
def test_non_finite_x(name: str, bad: float, match: str) -> None:
    x, y = _data()
    x[5, 1] = bad
    with pytest.raises(ValueError, match=match):
        _fit(_make(name), x, y)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_non_finite_x_at_predict(name: str) -> None:
    x, y = _data()
    est = _fit(_make(name), x, y)
    xt = x.copy()
    xt[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"(?i)nan|finite"):
        est.predict(xt)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_x_one_dimensional(name: str) -> None:
    x, y = _data()
    with pytest.raises(ValueError, match=r"(?i)2d|2-d|two.dim|dimension|1d|reshape"):
        _fit(_make(name), x[:, 0], y)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_x_three_dimensional(name: str) -> None:
    x, y = _data()
    with pytest.raises(ValueError, match=r"(?i)2d|2-d|two.dim|dim|3d"):
        _fit(_make(name), x.reshape(len(x), 3, 1), y)


@pytest.mark.parametrize("name", ["SVC", "SVR"])
def test_y_length_mismatch(name: str) -> None:
    x, y = _data()
    with pytest.raises(ValueError, match=r"(?i)inconsistent|length|mismatch|samples"):
        _fit(_make(name), x, y[:-3])


def test_svc_single_class() -> None:
    x, _ = _data()
    with pytest.raises(ValueError, match=r"(?i)class"):
        kernelkit.SVC().fit(x, np.ones(len(x), dtype=int))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_empty_x(name: str) -> None:
    x = np.empty((0, 3))
    y = np.empty(0)
    with pytest.raises(ValueError, match=r"(?i)0 sample|empty|zero|at least|minimum"):
        _fit(_make(name), x, y)


@pytest.mark.parametrize("name", ["SVC", "SVR"])
@pytest.mark.parametrize("c", [0.0, -1.0, np.nan], ids=["zero", "negative", "nan"])
def test_bad_c(name: str, c: float) -> None:
    x, y = _data()
    with pytest.raises(ValueError, match=r"\bC\b"):
        _fit(_make(name, C=c), x, y)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_unknown_kernel(name: str) -> None:
    x, y = _data()
    with pytest.raises(ValueError, match=r"(?i)kernel"):
        _fit(_make(name, kernel="gaussian-ish"), x, y)


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("gamma", [-0.5, "fancy"], ids=["negative", "unknown-string"])
def test_bad_gamma(name: str, gamma: Any) -> None:
    x, y = _data()
    with pytest.raises(ValueError, match=r"(?i)gamma"):
        _fit(_make(name, gamma=gamma), x, y)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_precomputed_non_square_at_fit(name: str) -> None:
    x, y = _data()
    k = x @ x[:10].T  # 40 x 10
    with pytest.raises(ValueError, match=r"(?i)square|precomputed"):
        _fit(_make(name, kernel="precomputed"), k, y)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_precomputed_wrong_columns_at_predict(name: str) -> None:
    x, y = _data()
    est = _fit(_make(name, kernel="precomputed"), x @ x.T, y)
    k_test = x[:5] @ x[:-1].T  # 39 columns instead of 40
    with pytest.raises(ValueError, match=r"(?i)precomputed|column|shape|train|features|samples"):
        est.predict(k_test)


@pytest.mark.parametrize("nu", [0.0, -0.1, 1.5, np.nan], ids=["zero", "negative", "above1", "nan"])
def test_one_class_nu_out_of_range(nu: float) -> None:
    x, _ = _data()
    with pytest.raises(ValueError, match=r"\bnu\b"):
        kernelkit.OneClassSVM(nu=nu).fit(x)


@pytest.mark.parametrize("epsilon", [-0.1, np.nan], ids=["negative", "nan"])
def test_svr_negative_epsilon(epsilon: float) -> None:
    x, y = _data()
    with pytest.raises(ValueError, match=r"(?i)epsilon"):
        kernelkit.SVR(epsilon=epsilon).fit(x, y.astype(float))


@pytest.mark.parametrize("name", ["SVC", "OneClassSVM"])
def test_negative_sample_weight(name: str) -> None:
    x, y = _data()
    sw = np.ones(len(y))
    sw[3] = -1.0
    with pytest.raises(ValueError, match=r"(?i)sample.?weight|negative"):
        _fit(_make(name), x, y, sample_weight=sw)


@pytest.mark.parametrize("name", ["SVC", "OneClassSVM"])
def test_sample_weight_wrong_length(name: str) -> None:
    x, y = _data()
    with pytest.raises(ValueError, match=r"(?i)sample.?weight|shape|length|samples"):
        _fit(_make(name), x, y, sample_weight=np.ones(len(y) + 2))


@pytest.mark.parametrize(
    ("name", "method"),
    [
        ("SVC", "predict"),
        ("SVC", "decision_function"),
        ("SVR", "predict"),
        ("OneClassSVM", "predict"),
        ("OneClassSVM", "decision_function"),
        ("OneClassSVM", "score_samples"),
    ],
)
def test_predict_before_fit(name: str, method: str) -> None:
    x, _ = _data()
    with pytest.raises(NotFittedError):
        getattr(_make(name), method)(x)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_predict_wrong_number_of_features(name: str) -> None:
    x, y = _data()
    est = _fit(_make(name), x, y)
    with pytest.raises(ValueError, match=r"(?i)feature"):
        est.predict(np.ones((4, x.shape[1] + 1)))


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize(
    ("param", "value", "match"),
    [
        ("tol", -1e-3, r"(?i)\btol\b"),
        ("cache_size", -5, r"(?i)cache"),
        ("degree", -1, r"(?i)degree"),
    ],
    ids=["tol-negative", "cache-negative", "degree-negative"],
)
def test_bad_solver_parameters(name: str, param: str, value: Any, match: str) -> None:
    x, y = _data()
    with pytest.raises(ValueError, match=match):
        _fit(_make(name, kernel="poly", **{param: value}), x, y)


def test_error_leaves_estimator_unfitted() -> None:
    """A failed fit on a fresh estimator must not leave a half-fitted model behind."""
    x, y = _data()
    x[0, 0] = np.nan
    est = kernelkit.SVC()
    with pytest.raises(ValueError):
        est.fit(x, y)
    with pytest.raises(NotFittedError):
        est.predict(np.zeros((1, 3)))
