"""The cells of the bad-input matrix: every public estimator × every kind of bad or unusual input.

The table (``MATRIX``: which cell must raise ``V``/``T``/``N``, work ``W`` or is not
applicable ``.``), the estimators' columns, the data and fitting helpers and the oracles of the
W cells are in ``kk_bad_input.py``. Here: the rows (``CASES``: bad X and y at fit and predict,
NaN/inf, shapes, dtypes and layouts, labels, hyperparameters, precomputed kernels, sample
weights, prediction before fit or with the wrong number of features), a check that the table
is complete, one ``test_cell`` item per V/T/N/W cell, and ``test_absent_parameter`` for the
``.`` cells of the hyperparameter rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pytest
from kk_bad_input import (
    COLUMNS,
    EXCEPTIONS,
    N_LABELED,
    NOT_APPLICABLE,
    SPECS,
    TABLE,
    Array,
    Spec,
    Thunk,
    _call,
    _constant_target,
    _data,
    _fit,
    _fitted,
    _fortran,
    _methods,
    _one_feature,
    _one_row,
    _same_model_after,
    _same_model_with,
    _strided,
    _y_is_ignored,
)

import kernelkit


# --------------------------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """One row of the matrix.

    ``bad(spec)`` returns the calls that must each raise (V, T, N cells); ``works(spec)`` runs
    the oracle check (W cells); ``param`` makes a hyperparameter case: fit valid data with
    ``param[0] = param[1]``. ``match`` is the message pattern, ``matches`` per-column ones.
    """

    match: str = ""
    matches: Mapping[str, str] = field(default_factory=dict)
    bad: Callable[[Spec], list[Thunk]] | None = None
    works: Callable[[Spec], None] | None = None
    param: tuple[str, Any] | None = None
    #: Parameters set with ``param`` (the kernel that makes it bad).
    also: Mapping[str, Any] = field(default_factory=dict)

    def pattern(self, label: str) -> str:
        return self.matches.get(label, self.match)

    def thunks(self, spec: Spec) -> list[Thunk]:
        if self.param is not None:
            name, value = self.param
            x, y = _data(spec)
            return [lambda: _fit(spec.make(**{**self.also, name: value}), x, y)]
        assert self.bad is not None
        return self.bad(spec)


def _bad_x_at_fit(change: Callable[[Array], Any]) -> Callable[[Spec], list[Thunk]]:
    def thunks(spec: Spec) -> list[Thunk]:
        x, y = _data(spec)
        return [lambda: _fit(spec.make(), change(x.copy()), y)]

    return thunks


def _bad_x_at_predict(change: Callable[[Array], Any]) -> Callable[[Spec], list[Thunk]]:
    def thunks(spec: Spec) -> list[Thunk]:
        est, x = _fitted(spec)
        bad = change(x.copy())
        return [_call(est, m, bad) for m in _methods(est)]

    return thunks


def _set(value: float, at: tuple[int, ...] = (5, 1)) -> Callable[[Array], Array]:
    def change(a: Array) -> Array:
        a = np.array(a, dtype=np.float64)
        a[at] = value
        return a

    return change


def _bad_y(change: Callable[[Spec, Any], Any]) -> Callable[[Spec], list[Thunk]]:
    def thunks(spec: Spec) -> list[Thunk]:
        x, y = _data(spec)
        return [lambda: _fit(spec.make(), x, change(spec, y))]

    return thunks


def _y_with(value: float) -> Callable[[Spec, Any], Any]:
    def change(spec: Spec, y: Any) -> Any:
        y = np.array(y, dtype=np.float64)
        y[7] = value
        return y

    return change


def _y_non_numeric(spec: Spec, y: Any) -> Any:
    return np.array([f"v{value}" for value in y])


# -- 1 row ----------------------------------------------------------------------------------
def _one_row_bad(spec: Spec) -> list[Thunk]:
    x, y = _data(spec, n=1)
    return [lambda: _fit(spec.make(), x, y)]


# -- one class / constant target ------------------------------------------------------------
def _single_value_bad(spec: Spec) -> list[Thunk]:
    x, y = _data(spec)
    if spec.kind == "pu":
        return [
            lambda: _fit(spec.make(), x, np.zeros(len(y), dtype=np.int64)),
            lambda: _fit(spec.make(), x, np.ones(len(y), dtype=np.int64)),
        ]
    if spec.kind == "semi":
        one_class = np.where(np.arange(len(y)) < N_LABELED, 1, -1)
        return [lambda: _fit(spec.make(), x, one_class)]
    return [lambda: _fit(spec.make(), x, np.ones(len(y), dtype=np.int64))]


# -- labels outside the expected set --------------------------------------------------------
def _labels_outside(spec: Spec) -> list[Thunk]:
    x, y = _data(spec)
    n = len(y)
    if spec.kind == "pu":  # PU expects 1 (labeled positive) and 0 (unlabeled) only
        return [
            lambda: _fit(spec.make(), x, np.where(y == 1, 1, -1)),  # -1 for unlabeled
            lambda: _fit(spec.make(), x, np.where(np.arange(n) == 5, 2, y)),
        ]
    if spec.kind == "semi":  # -1 is the unlabeled marker; the labeled rows need 2 classes
        return [
            lambda: _fit(spec.make(), x, np.where(y == -1, -2, y)),  # another marker
            lambda: _fit(spec.make(), x, np.full(n, -1)),  # nothing labeled
        ]
    three = np.arange(n) % 3  # binary-only classifiers
    return [lambda: _fit(spec.make(), x, three)]


# -- precomputed kernels --------------------------------------------------------------------
def _precomputed_not_square(spec: Spec) -> list[Thunk]:
    x, y = _data(spec)
    gram = x @ x[:10].T
    return [lambda: _fit(spec.make(kernel="precomputed"), gram, y)]


def _precomputed_wrong_columns(spec: Spec) -> list[Thunk]:
    x, y = _data(spec)
    est = _fit(spec.make(kernel="precomputed"), x @ x.T, y)
    gram = x[:5] @ x[:-1].T
    return [_call(est, m, gram) for m in _methods(est)]


def _kernel_precomputed(spec: Spec) -> list[Thunk]:
    x, y = _data(spec)
    return [lambda: _fit(spec.make(kernel="precomputed"), x @ x.T, y)]


# -- sample_weight --------------------------------------------------------------------------
def _bad_weights(make: Callable[[int], Array]) -> Callable[[Spec], list[Thunk]]:
    def thunks(spec: Spec) -> list[Thunk]:
        x, y = _data(spec)
        return [lambda: _fit(spec.make(), x, y, sample_weight=make(len(x)))]

    return thunks


def _weights_with(value: float) -> Callable[[int], Array]:
    def make(n: int) -> Array:
        weights = np.ones(n)
        weights[3] = value
        return weights

    return make


# -- prediction -----------------------------------------------------------------------------
def _predict_before_fit(spec: Spec) -> list[Thunk]:
    est = spec.make()
    x, _ = _data(spec)
    return [_call(est, m, x) for m in _methods(est)]


def _predict_wrong_features(spec: Spec) -> list[Thunk]:
    est, x = _fitted(spec)
    wide = np.ones((4, x.shape[1] + 1))
    return [_call(est, m, wide) for m in _methods(est)]


NAN, INF = r"(?i)\bNaN\b", r"(?i)\binfinity\b"
NUMERIC_Y = r"(?i)\by must be numeric"
SAMPLE_WEIGHT = r"(?i)sample.weight"


def _param(name: str, value: Any, match: str | None = None) -> Case:
    return Case(
        match=match or rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", param=(name, value)
    )


CASES: dict[str, Case] = {
    "x_nan_fit": Case(NAN, bad=_bad_x_at_fit(_set(np.nan))),
    "x_inf_fit": Case(INF, bad=_bad_x_at_fit(_set(np.inf))),
    "x_neginf_fit": Case(INF, bad=_bad_x_at_fit(_set(-np.inf))),
    "x_nan_predict": Case(NAN, bad=_bad_x_at_predict(_set(np.nan, (0, 0)))),
    "x_inf_predict": Case(INF, bad=_bad_x_at_predict(_set(np.inf, (0, 0)))),
    "x_neginf_predict": Case(INF, bad=_bad_x_at_predict(_set(-np.inf, (0, 0)))),
    "y_nan": Case(NAN, bad=_bad_y(_y_with(np.nan)), works=_y_is_ignored(_y_with(np.nan))),
    "y_inf": Case(INF, bad=_bad_y(_y_with(np.inf)), works=_y_is_ignored(_y_with(np.inf))),
    "y_neginf": Case(INF, bad=_bad_y(_y_with(-np.inf)), works=_y_is_ignored(_y_with(-np.inf))),
    "y_none": Case(r"requires y to be passed", bad=_bad_y(lambda spec, y: None)),
    "y_two_columns": Case(
        r"(?i)\by should be a 1d array",
        bad=_bad_y(lambda spec, y: np.column_stack([y, y])),
        works=_y_is_ignored(lambda spec, y: np.column_stack([y, y])),
    ),
    "y_non_numeric": Case(
        NUMERIC_Y,
        {"PU": r"y must hold 1 \(labeled positive\) and 0 \(unlabeled\)"},
        bad=_bad_y(_y_non_numeric),
        works=_y_is_ignored(_y_non_numeric),
    ),
    "xy_length_mismatch": Case(
        r"inconsistent numbers of samples",
        bad=_bad_y(lambda spec, y: y[:-3]),
        works=_y_is_ignored(lambda spec, y: y[:-3]),
    ),
    "x_empty": Case(r"0 sample\(s\)", bad=_bad_x_at_fit(lambda a: a[:0])),
    "x_zero_features": Case(r"0 feature\(s\)", bad=_bad_x_at_fit(lambda a: a[:, :0])),
    "one_row": Case(
        r"(?i)\b1 class|only one class|greater than one",
        {
            "PU": r"no unlabeled row|no labeled positive",
            "CSVR": r"1 sample\(s\) .* minimum of 2",
        },
        bad=_one_row_bad,
        works=_one_row,
    ),
    "one_feature": Case(works=_one_feature),
    "x_one_dimensional": Case(r"Expected 2D array", bad=_bad_x_at_fit(lambda a: a[:, 0])),
    "x_three_dimensional": Case(
        r"(?i)dim", bad=_bad_x_at_fit(lambda a: a.reshape(a.shape[0], a.shape[1], 1))
    ),
    "x_object_text": Case(
        r"could not convert string to float",
        bad=_bad_x_at_fit(
            lambda a: np.where(np.arange(a.size).reshape(a.shape) == 4, "a", a).astype(object)
        ),
    ),
    "x_string_text": Case(
        r"could not convert string to float",
        bad=_bad_x_at_fit(lambda a: np.full(a.shape, "abc")),
    ),
    "x_string_numbers": Case(
        works=_same_model_after(lambda a: np.vectorize(repr, otypes=[str])(a.astype(float)))
    ),
    "x_complex": Case(r"(?i)complex", bad=_bad_x_at_fit(lambda a: a + 1j)),
    "x_overflowing": Case(r"(?i)values too large", bad=_bad_x_at_fit(lambda a: a * 1e200)),
    "x_strided": Case(works=_same_model_after(_strided)),
    "x_fortran": Case(works=_same_model_after(_fortran)),
    "x_float32": Case(
        works=_same_model_after(lambda a: a.astype(np.float32), lambda a: a.astype(np.float32))
    ),
    "x_int": Case(works=_same_model_after(lambda a: a.astype(np.int64), lambda a: np.rint(3 * a))),
    "single_target_value": Case(
        r"(?i)\b1 class|only one class|greater than one",
        {"PU": r"no unlabeled row|no labeled positive"},
        bad=_single_value_bad,
        works=_constant_target,
    ),
    "y_continuous_labels": Case(
        r"Unknown label type: continuous",
        bad=_bad_y(lambda spec, y: np.linspace(-1.3, 2.7, len(y))),
        works=_y_is_ignored(lambda spec, y: np.linspace(-1.3, 2.7, len(y))),
    ),
    "labels_outside": Case(
        r"(?i)exactly 2 classes",
        {"PU": r"y must hold 1 \(labeled positive\) and 0 \(unlabeled\)"},
        bad=_labels_outside,
    ),
    "C_zero": _param("C", 0.0),
    "C_negative": _param("C", -1.0),
    "C_nan": _param("C", np.nan),
    "nu_zero": _param("nu", 0.0),
    "nu_negative": _param("nu", -0.1),
    "nu_above_one": _param("nu", 1.5),
    "nu_nan": _param("nu", np.nan),
    "gamma_negative": _param("gamma", -0.5),
    # Refused where the kernel uses gamma (AIDClassifier's default kernel is linear, which
    # ignores it and takes 0, as scikit-learn's linear SVC does).
    "gamma_zero": replace(_param("gamma", 0.0), also={"kernel": "rbf"}),
    "gamma_unknown_string": _param("gamma", "fancy"),
    "kernel_unknown": _param("kernel", "gaussian-ish"),
    "kernel_precomputed": Case(r"kernel", bad=_kernel_precomputed),
    "precomputed_not_square": Case(r"(?i)square", bad=_precomputed_not_square),
    "precomputed_wrong_columns": Case(
        r"(?i)X has 29 features, but \w+ is expecting 30", bad=_precomputed_wrong_columns
    ),
    "degree_negative": _param("degree", -1),
    "degree_beyond_32_bits": _param("degree", 2**32),
    "coef0_nan": _param("coef0", np.nan),
    "sw_negative": Case(SAMPLE_WEIGHT, bad=_bad_weights(_weights_with(-1.0))),
    "sw_nan": Case(SAMPLE_WEIGHT, bad=_bad_weights(_weights_with(np.nan))),
    "sw_wrong_length": Case(SAMPLE_WEIGHT, bad=_bad_weights(lambda n: np.ones(n + 2))),
    "sw_all_zero": Case(SAMPLE_WEIGHT, bad=_bad_weights(np.zeros)),
    "tol_zero": _param("tol", 0.0),
    "tol_negative": _param("tol", -1e-3),
    "max_iter_zero": _param("max_iter", 0),
    "max_iter_below_minus_one": _param("max_iter", -2),
    "max_iter_float": _param("max_iter", 1.5),
    "max_iter_huge": Case(works=_same_model_with("max_iter", 10**30)),
    "cache_size_zero": _param("cache_size", 0),
    "cache_size_negative": _param("cache_size", -5.0),
    "epsilon_negative": _param("epsilon", -0.1),
    "epsilon_nan": _param("epsilon", np.nan),
    "n_jobs_zero": _param("n_jobs", 0),
    "n_jobs_float": _param("n_jobs", 1.5),
    "time_limit_zero": _param("time_limit", 0.0),
    "time_limit_huge": Case(works=_same_model_with("time_limit", 1e300)),
    "callback_not_callable": _param("callback", "print"),
    "predict_before_fit": Case(bad=_predict_before_fit),
    "predict_wrong_features": Case(
        r"X has 4 features, but \w+ is expecting 3 features", bad=_predict_wrong_features
    ),
}


CELLS = [
    pytest.param(case, label, code, id=f"{case}-{label}")
    for case, row in TABLE.items()
    for label, code in row.items()
    if code != "."
]


def test_matrix_is_complete() -> None:
    """Every estimator has a column, every case a row, and every cell a valid code that its
    case can run."""
    assert list(SPECS) == COLUMNS
    assert list(TABLE) == list(CASES)
    for case, row in TABLE.items():
        for label, code in row.items():
            assert code in "VTNW.", (case, label, code)
            if code == "W":
                assert CASES[case].works is not None, (case, label)
            elif code != ".":
                assert CASES[case].bad is not None or CASES[case].param is not None
    exported = {name for name in kernelkit.__all__ if isinstance(getattr(kernelkit, name), type)}
    estimators = {name for name in exported if hasattr(getattr(kernelkit, name), "fit")}
    assert {getattr(kernelkit, name) for name in estimators} == {s.cls for s in SPECS.values()}


def test_every_not_applicable_cell_has_a_reason() -> None:
    for case, row in TABLE.items():
        if "." in row.values() and CASES[case].param is None:
            assert case in NOT_APPLICABLE, case


@pytest.mark.parametrize(("case", "label", "code"), CELLS)
def test_cell(case: str, label: str, code: str) -> None:
    spec, row = SPECS[label], CASES[case]
    if code == "W":
        assert row.works is not None
        row.works(spec)
        return
    thunks = row.thunks(spec)
    assert thunks
    for thunk in thunks:
        with pytest.raises(EXCEPTIONS[code], match=row.pattern(label) or None):
            thunk()


ABSENT = [
    pytest.param(case, label, id=f"{case}-{label}")
    for case, row in TABLE.items()
    if CASES[case].param is not None
    for label, code in row.items()
    if code == "."
]


@pytest.mark.parametrize(("case", "label"), ABSENT)
def test_absent_parameter(case: str, label: str) -> None:
    """A '.' in a hyperparameter row means the estimator has no such parameter: passing it is
    Python's TypeError naming the estimator (not its private parameters class), not silently
    stored."""
    param = CASES[case].param
    assert param is not None
    name, value = param
    spec = SPECS[label]
    estimator = spec.make()
    assert name not in estimator.get_params()
    message = (
        rf"^{type(estimator).__name__}\.__init__\(\) got an unexpected keyword argument '{name}'"
    )
    with pytest.raises(TypeError, match=message):
        spec.make(**{name: value})
