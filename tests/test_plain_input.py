"""Plain NumPy input is checked without scikit-learn's ``validate_data`` (whose first call in a
process looks for dataframe plug-ins): the fast path must accept exactly what scikit-learn
accepts, record what it records, and hand everything else to scikit-learn unchanged."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_X_y

import kernelkit
from kernelkit import _base
from kernelkit._validation import check_class_labels, class_index, plain_rows, plain_target


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("validate_data was called on plain NumPy input")


@pytest.fixture
def problem() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 2, 7)


def test_plain_rows_equal_check_array() -> None:
    rng = np.random.default_rng(1)
    for X in [
        rng.normal(size=(5, 3)),
        np.asfortranarray(rng.normal(size=(5, 3))),
        rng.normal(size=(5, 3)).astype(np.float32),
        rng.normal(size=(10, 6))[::2, ::3],
    ]:
        rows = plain_rows(X)
        assert rows is not None
        expected = check_array(X, dtype=np.float64, order="C")
        assert rows.dtype == np.float64 and rows.flags.c_contiguous
        np.testing.assert_array_equal(rows, expected)


@pytest.mark.parametrize(
    "X",
    [
        np.array([[1.0, np.nan]]),
        np.array([[np.inf, 1.0]]),
        np.array([[1, 2]]),  # integers: scikit-learn converts them
        np.zeros((0, 3)),
        np.zeros((3, 0)),
        np.zeros(3),
        np.array([[1 + 1j, 0]]),
        [[1.0, 2.0]],
        np.ma.masked_array([[1.0, 2.0]]),
    ],
)
def test_anything_else_is_left_to_scikit_learn(X: Any) -> None:
    assert plain_rows(X) is None


def test_overflowing_sum_is_left_to_scikit_learn() -> None:
    X = np.full((4, 2), 1e308)
    assert plain_rows(X) is None
    np.testing.assert_array_equal(check_array(X), X)  # finite: scikit-learn accepts it


def test_plain_target() -> None:
    assert plain_target(np.array([1, 2, 1]), 3) is not None
    assert plain_target(np.array([1.0, 2.5]), 2) is not None
    for y, n in [
        (np.array([1.0, np.nan]), 2),
        (np.array([1, 2]), 3),
        (np.array([[1], [2]]), 2),
        (np.array(["a", "b"]), 2),
        (np.array([1, 2], dtype=object), 2),
        ([1, 2], 2),
    ]:
        assert plain_target(y, n) is None


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")
@pytest.mark.parametrize(
    "y",
    [
        np.array([0, 1, 1]),
        np.array([True, False]),
        np.array([1.0, 2.0, 3.0]),
        np.array([-1.0, 1.0], dtype=np.float32),
        np.array([0.5, 1.0]),
        np.array([1.0, np.nan]),
        np.array([1.0, np.inf]),
        np.array(["a", "b"]),
        np.array([1e20, 2.0]),
    ],
)
def test_check_class_labels_agrees_with_scikit_learn(y: np.ndarray) -> None:
    try:
        check_classification_targets(y)
    except ValueError as error:
        with pytest.raises(ValueError, match=str(error)[:20]):
            check_class_labels(y)
    else:
        check_class_labels(y)


@pytest.mark.parametrize(
    "make", [lambda: kernelkit.SVC(), lambda: kernelkit.SVR(), lambda: kernelkit.OneClassSVM()]
)
def test_fit_and_predict_skip_validate_data(
    make: Any, problem: tuple[np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    X, y = problem
    reference = make().fit(X, y)
    monkeypatch.setattr(_base, "validate_data", _refuse)
    model = make().fit(X, y)
    assert model.n_features_in_ == 3 and not hasattr(model, "feature_names_in_")
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    np.testing.assert_array_equal(model.dual_coef_, reference.dual_coef_)


def test_feature_names_of_a_dataframe_fit_are_dropped_by_a_plain_fit(
    problem: tuple[np.ndarray, np.ndarray],
) -> None:
    X, y = problem
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = kernelkit.SVC().fit(frame, y)
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    # Plain rows for a model fitted with names: scikit-learn's warning, from scikit-learn.
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.predict(X)
    model.fit(X, y)
    assert not hasattr(model, "feature_names_in_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(X)


def test_wrong_width_at_predict_gets_scikit_learn_error(
    problem: tuple[np.ndarray, np.ndarray],
) -> None:
    X, y = problem
    model = kernelkit.SVC().fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but SVC is expecting 3"):
        model.predict(X[:, :2])


def test_plain_fit_records_what_check_x_y_returns(problem: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = problem
    X32 = X.astype(np.float32)
    model = kernelkit.SVC().fit(X32, y.astype(np.float64))
    expected_X, _ = check_X_y(X32, y, dtype=np.float64)
    np.testing.assert_array_equal(model.support_vectors_, expected_X[model.support_])
    assert model.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(model.classes_, [2.0, 7.0])


@pytest.mark.parametrize(
    "y",
    [
        np.array([1.0, -1.0, -1.0, 1.0]),
        np.array([3, 7, 7, 3, 3], dtype=np.int32),
        np.array([True, False, True]),
        np.array([2.5, 2.5]),
        np.array([1, 2, 3, 1]),
        np.array([0.0, 1.0, -0.0]),
        np.array([-0.0, 0.0]),
        np.array([5.0, -2.0], dtype=np.float32),
        np.array(["b", "a", "b"]),
        np.array([7]),
    ],
)
def test_class_index_equals_numpy_unique(y: np.ndarray) -> None:
    classes, index = class_index(y)
    expected_classes, expected_index = np.unique(y, return_inverse=True)
    assert classes.dtype == expected_classes.dtype and index.dtype == np.intp
    np.testing.assert_array_equal(classes, expected_classes)
    if classes.dtype.kind == "f":  # the same zeros too
        np.testing.assert_array_equal(np.signbit(classes), np.signbit(expected_classes))
    np.testing.assert_array_equal(index, expected_index)
