"""The bad-input matrix (issue 10): every public estimator × every kind of bad or unusual input.

``MATRIX`` below is the whole table: one row per case, one column per estimator. A cell says
what must happen:

* ``V``: a ``ValueError`` whose message matches the case's pattern (it names the problem or the
  parameter);
* ``T``: a ``TypeError`` whose message matches the case's pattern;
* ``N``: scikit-learn's ``NotFittedError`` (from every prediction method);
* ``W``: it works, and the model is checked against an oracle (the case's ``works``):
  scikit-learn's equivalent estimator, an exact LP / tight reference solve, or the same fit on
  the float64 C-contiguous form of the same data (equal to 1e-12);
* ``.``: not applicable, for the reason in ``NOT_APPLICABLE`` (for a hyperparameter case: the
  estimator has no such parameter, which ``test_absent_parameter`` checks).

Every V/T/N/W cell is one item of ``test_cell``; parameters that only one or a few estimators have
are in ``SPECIFIC`` (``test_specific_parameter``). No case may panic or hang: a Rust panic would
surface as ``pyo3_runtime.PanicException``, which is neither a ``ValueError`` nor a
``TypeError``, and fails the cell.

Columns: SVC, NuSVC, SVR, NuSVR, OneClassSVM (OCSVM), PUClassifier (PU), FrankWolfeSVC (FWSVC),
MEBClassifier (MEB, the same class), ConstrainedSVR (CSVR), SparseKernelLogisticRegression
(KLR), AIDClassifier (AIDC), AIDRegressor (AIDR), AIDSemiSupervisedClassifier (AIDS).
Estimators without ``sample_weight`` in ``fit`` (PU, FWSVC, MEB, CSVR, KLR and the three AID
estimators) raise Python's own ``TypeError`` for it (the ``T`` cells of the ``sw_*`` rows).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import sklearn.svm
from kk_aid import lad_lp, svc_reference, svm_primal
from numpy.typing import NDArray
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

import kernelkit

Array = NDArray[np.float64]
Thunk = Callable[[], object]

N_ROWS, N_FEATURES, N_LABELED = 30, 3, 12
PREDICTION_METHODS = ("decision_function", "predict", "predict_proba", "score_samples")


@dataclass(frozen=True)
class Spec:
    """One column of the matrix: an estimator, what its ``y`` means and its test defaults."""

    cls: type[Any]
    kind: str  # "classifier", "binary", "regressor", "outlier", "pu" or "semi"
    params: Mapping[str, Any] = field(default_factory=dict)

    def make(self, **params: Any) -> Any:
        return self.cls(**{"n_jobs": 1, **self.params, **params})


SPECS: dict[str, Spec] = {
    "SVC": Spec(kernelkit.SVC, "classifier"),
    "NuSVC": Spec(kernelkit.NuSVC, "classifier"),
    "SVR": Spec(kernelkit.SVR, "regressor"),
    "NuSVR": Spec(kernelkit.NuSVR, "regressor"),
    "OCSVM": Spec(kernelkit.OneClassSVM, "outlier"),
    "PU": Spec(kernelkit.PUClassifier, "pu", {"prior": 0.5}),
    "FWSVC": Spec(kernelkit.FrankWolfeSVC, "classifier", {"random_state": 0}),
    "MEB": Spec(kernelkit.MEBClassifier, "classifier", {"random_state": 0}),
    "KLR": Spec(kernelkit.SparseKernelLogisticRegression, "binary"),
    "CSVR": Spec(kernelkit.ConstrainedSVR, "regressor"),
    "AIDC": Spec(kernelkit.AIDClassifier, "binary", {"random_state": 0}),
    "AIDR": Spec(kernelkit.AIDRegressor, "regressor", {"random_state": 0}),
    "AIDS": Spec(kernelkit.AIDSemiSupervisedClassifier, "semi", {"random_state": 0}),
}

# fmt: off
MATRIX = """
case                     SVC NuSVC SVR NuSVR OCSVM PU FWSVC MEB KLR CSVR AIDC AIDR AIDS
x_nan_fit                 V    V    V    V     V    V   V    V   V   V    V    V    V
x_inf_fit                 V    V    V    V     V    V   V    V   V   V    V    V    V
x_neginf_fit              V    V    V    V     V    V   V    V   V   V    V    V    V
x_nan_predict             V    V    V    V     V    V   V    V   V   V    V    V    V
x_inf_predict             V    V    V    V     V    V   V    V   V   V    V    V    V
x_neginf_predict          V    V    V    V     V    V   V    V   V   V    V    V    V
y_nan                     V    V    V    V     W    V   V    V   V   V    V    V    V
y_inf                     V    V    V    V     W    V   V    V   V   V    V    V    V
y_neginf                  V    V    V    V     W    V   V    V   V   V    V    V    V
y_none                    V    V    V    V     .    V   V    V   V   V    V    V    V
y_two_columns             V    V    V    V     W    V   V    V   V   V    V    V    V
y_non_numeric             .    .    V    V     W    V   .    .   .   V    .    V    V
xy_length_mismatch        V    V    V    V     W    V   V    V   V   V    V    V    V
x_empty                   V    V    V    V     V    V   V    V   V   V    V    V    V
x_zero_features           V    V    V    V     V    V   V    V   V   V    V    V    V
one_row                   V    V    W    W     W    V   V    V   V   V    V    W    V
one_feature               W    W    W    W     W    W   W    W   W   W    W    W    W
x_one_dimensional         V    V    V    V     V    V   V    V   V   V    V    V    V
x_three_dimensional       V    V    V    V     V    V   V    V   V   V    V    V    V
x_object_text             V    V    V    V     V    V   V    V   V   V    V    V    V
x_string_text             V    V    V    V     V    V   V    V   V   V    V    V    V
x_string_numbers          W    W    W    W     W    W   W    W   W   W    W    W    W
x_complex                 V    V    V    V     V    V   V    V   V   V    V    V    V
x_overflowing             V    V    V    V     V    V   V    V   V   V    V    V    V
x_strided                 W    W    W    W     W    W   W    W   W   W    W    W    W
x_fortran                 W    W    W    W     W    W   W    W   W   W    W    W    W
x_float32                 W    W    W    W     W    W   W    W   W   W    W    W    W
x_int                     W    W    W    W     W    W   W    W   W   W    W    W    W
single_target_value       V    V    W    W     .    V   V    V   V   W    V    W    V
y_continuous_labels       V    V    .    .     W    V   V    V   V   .    V    .    V
labels_outside            .    .    .    .     .    V   .    .   V   .    V    .    V
C_zero                    V    .    V    V     .    .   V    V   V   V    V    .    V
C_negative                V    .    V    V     .    .   V    V   V   V    V    .    V
C_nan                     V    .    V    V     .    .   V    V   V   V    V    .    V
nu_zero                   .    V    .    V     V    .   .    .   .   V    .    .    .
nu_negative               .    V    .    V     V    .   .    .   .   V    .    .    .
nu_above_one              .    V    .    V     V    .   .    .   .   V    .    .    .
nu_nan                    .    V    .    V     V    .   .    .   .   V    .    .    .
gamma_negative            V    V    V    V     V    V   V    V   V   .    V    .    .
gamma_zero                V    V    V    V     V    V   V    V   V   .    V    .    .
gamma_unknown_string      V    V    V    V     V    V   V    V   V   .    V    .    .
kernel_unknown            V    V    V    V     V    V   V    V   V   .    V    .    .
kernel_precomputed        .    .    .    .     .    V   .    .   .   .    V    .    .
precomputed_not_square    V    V    V    V     V    .   V    V   V   .    .    .    .
precomputed_wrong_columns V    V    V    V     V    .   V    V   V   .    .    .    .
degree_negative           V    V    V    V     V    V   V    V   V   .    V    .    .
coef0_nan                 V    V    V    V     V    V   V    V   V   .    V    .    .
sw_negative               V    V    V    V     V    T   T    T   T   T    T    T    T
sw_nan                    V    V    V    V     V    T   T    T   T   T    T    T    T
sw_wrong_length           V    V    V    V     V    T   T    T   T   T    T    T    T
sw_all_zero               V    V    V    V     V    T   T    T   T   T    T    T    T
tol_zero                  V    V    V    V     V    V   .    .   V   V    V    V    V
tol_negative              V    V    V    V     V    V   .    .   V   V    V    V    V
max_iter_zero             V    V    V    V     V    V   V    V   V   V    V    V    V
max_iter_below_minus_one  V    V    V    V     V    V   V    V   V   V    V    V    V
max_iter_float            T    T    T    T     T    T   T    T   T   T    T    T    T
max_iter_huge             W    W    W    W     W    W   W    W   W   W    W    W    W
cache_size_zero           V    V    V    V     V    V   V    V   V   V    V    .    .
cache_size_negative       V    V    V    V     V    V   V    V   V   V    V    .    .
epsilon_negative          .    .    V    .     .    .   V    V   .   .    .    .    .
epsilon_nan               .    .    V    .     .    .   V    V   .   .    .    .    .
n_jobs_zero               V    V    V    V     V    V   V    V   V   V    V    V    V
n_jobs_float              T    T    T    T     T    T   T    T   T   T    T    T    T
time_limit_zero           V    V    V    V     V    V   V    V   V   V    V    V    V
time_limit_huge           W    W    W    W     W    W   W    W   W   W    W    W    W
callback_not_callable     T    T    T    T     T    T   T    T   T   T    T    T    T
predict_before_fit        N    N    N    N     N    N   N    N   N   N    N    N    N
predict_wrong_features    V    V    V    V     V    V   V    V   V   V    V    V    V
"""
# fmt: on

NOT_APPLICABLE = {
    "y_none": "OCSVM: fit(X) without y is its ordinary use (its y is ignored: the W cells of "
    "the other y rows check that any y gives the model of fit(X))",
    "y_non_numeric": "classifiers take labels of any type (strings included)",
    "y_continuous_labels": "regressors take continuous y",
    "single_target_value": "OCSVM has no y",
    "labels_outside": "SVC, NuSVC, FWSVC, MEB: any number of classes of any labels is valid; "
    "regressors and OCSVM have no labels",
    "kernel_precomputed": "supported by the kernel SVMs (cells precomputed_*); CSVR, AIDR and "
    "AIDS are linear, with no kernel parameter",
    "precomputed_not_square": "PU and AIDC reject kernel='precomputed' (kernel_precomputed); "
    "CSVR, AIDR and AIDS have no kernel",
    "precomputed_wrong_columns": "as precomputed_not_square",
    "parameters": "the estimator has no such parameter (checked by test_absent_parameter): "
    "NuSVC and OCSVM have nu instead of C, PU has lam; FWSVC has no tol (epsilon is its "
    "stopping rule), NuSVR no epsilon (it is learned); AIDR and AIDS are linear and have no "
    "cache_size (AIDS's inner solver is a kernelkit.solvers.Smo)",
}


# --------------------------------------------------------------------------------------------
# data and fitting
# --------------------------------------------------------------------------------------------
def _target(spec: Spec, x: Array) -> Any:
    """A valid ``y`` for ``x``: labels from the sign of a linear score (both classes present),
    a linear target, PU labels (1: labeled positive, 0: unlabeled) or semi-supervised labels
    (-1: unlabeled)."""
    n = x.shape[0]
    score = x[:, 0] + (0.5 * x[:, 1] if x.shape[1] > 1 else 0.0)
    labels = (score > 0).astype(np.int64)
    if n >= 4:
        labels[:4] = [0, 1, 0, 1]
    if spec.kind == "regressor":
        return 2.0 * score + 1.0
    if spec.kind == "outlier":
        return None
    if spec.kind == "pu":
        return np.where((labels == 1) & (np.arange(n) % 3 != 0), 1, 0)
    if spec.kind == "semi":
        return np.where(np.arange(n) < N_LABELED, labels, -1)
    return labels


def _data(spec: Spec, n: int = N_ROWS, d: int = N_FEATURES) -> tuple[Array, Any]:
    x = np.random.default_rng(0).standard_normal((n, d))
    return x, _target(spec, x)


def _fit(est: Any, x: Any, y: Any, **fit_params: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kernelkit.ConvergenceWarning)
        return est.fit(x, y, **fit_params)


def _fitted(spec: Spec, **params: Any) -> tuple[Any, Array]:
    x, y = _data(spec)
    return _fit(spec.make(**params), x, y), x


def _call(est: Any, method: str, x: Any) -> Thunk:
    return lambda: getattr(est, method)(x)


def _methods(est: Any) -> list[str]:
    return [m for m in PREDICTION_METHODS if hasattr(est, m)]


def _assert_same_outputs(
    got: Any, want: Any, x: Any, x_want: Any = None, atol: float = 1e-12
) -> None:
    """Every prediction method of ``got`` on ``x`` equals ``want``'s on ``x_want``."""
    x_want = x if x_want is None else x_want
    for method in _methods(want):
        np.testing.assert_allclose(
            np.asarray(getattr(got, method)(x), dtype=np.float64),
            np.asarray(getattr(want, method)(x_want), dtype=np.float64),
            rtol=0,
            atol=atol,
            err_msg=method,
        )


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

    def pattern(self, label: str) -> str:
        return self.matches.get(label, self.match)

    def thunks(self, spec: Spec) -> list[Thunk]:
        if self.param is not None:
            name, value = self.param
            x, y = _data(spec)
            return [lambda: _fit(spec.make(**{name: value}), x, y)]
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


def _y_is_ignored(change: Callable[[Spec, Any], Any]) -> Callable[[Spec], None]:
    """OneClassSVM ignores y (as scikit-learn's does): the model is the one of fit(X)."""

    def works(spec: Spec) -> None:
        x, _ = _data(spec)
        ignored = _fit(spec.make(), x, change(spec, _target(SPECS["SVR"], x)))
        _assert_same_outputs(ignored, _fit(spec.make(), x, None), x)

    return works


def _y_with(value: float) -> Callable[[Spec, Any], Any]:
    def change(spec: Spec, y: Any) -> Any:
        y = np.array(y, dtype=np.float64)
        y[7] = value
        return y

    return change


def _y_non_numeric(spec: Spec, y: Any) -> Any:
    return np.array([f"v{value}" for value in y])


def _same_model_after(
    convert: Callable[[Array], Any], reference: Callable[[Array], Array] = lambda a: a
) -> Callable[[Spec], None]:
    """Fitting on ``convert(x)`` gives the model of the float64 C-contiguous ``reference(x)``,
    and predicting on the converted rows gives the same values (to 1e-12)."""

    def works(spec: Spec) -> None:
        x, _ = _data(spec)
        x = np.ascontiguousarray(reference(x), dtype=np.float64)
        y = _target(spec, x)
        want = _fit(spec.make(), x, y)
        converted = convert(x)
        got = _fit(spec.make(), converted, y)
        _assert_same_outputs(got, want, x)
        _assert_same_outputs(got, want, convert(x), x)

    return works


def _same_model_with(name: str, huge: Any) -> Callable[[Spec], None]:
    """A value no solve can reach (10**30 iterations, 1e300 seconds) is no limit: the model
    equals the unlimited one (AID's max_iter has no "unlimited": 10**6 solves stands for it)."""

    def works(spec: Spec) -> None:
        unlimited: Any = None
        if name == "max_iter":
            unlimited = 10**6 if spec.cls.__module__.endswith(".aid") else -1
        x, y = _data(spec)
        got = _fit(spec.make(**{name: huge}), x, y)
        want = _fit(spec.make(**{name: unlimited}), x, y)
        _assert_same_outputs(got, want, x)

    return works


def _strided(a: Array) -> Array:
    wide = np.zeros((2 * a.shape[0], 3 * a.shape[1]))
    wide[::2, ::3] = a
    view = wide[::2, ::3]
    assert not view.flags.c_contiguous and not view.flags.f_contiguous
    return view


def _fortran(a: Array) -> Array:
    converted = np.asfortranarray(a)
    assert converted.flags.f_contiguous and not converted.flags.c_contiguous
    return converted


# -- 1 feature ------------------------------------------------------------------------------
SKLEARN_TWINS: dict[str, Callable[..., Any]] = {
    "SVC": sklearn.svm.SVC,
    "NuSVC": sklearn.svm.NuSVC,
    "SVR": sklearn.svm.SVR,
    "NuSVR": sklearn.svm.NuSVR,
    "OCSVM": sklearn.svm.OneClassSVM,
}


def _label_of(spec: Spec) -> str:
    return next(label for label, s in SPECS.items() if s is spec)


def _padded_twin(spec: Spec, x: Array, y: Any, **params: Any) -> None:
    """The model on one feature equals the model on that feature plus a zero column (the
    kernel matrices are equal, with gamma fixed), on which the estimator is tested elsewhere."""
    padded = np.hstack([x, np.zeros_like(x)])
    one = _fit(spec.make(**params), x, y)
    two = _fit(spec.make(**params), padded, y)
    _assert_same_outputs(one, two, x, padded, atol=1e-10)


def _one_feature(spec: Spec) -> None:
    label = _label_of(spec)
    x, y = _data(spec, d=1)
    if label in SKLEARN_TWINS:
        ours = _fit(spec.make(tol=1e-8), x, y)
        theirs = SKLEARN_TWINS[label](tol=1e-8).fit(x, y)
        x_test = np.linspace(-3, 3, 25)[:, None]
        for method in ("decision_function", "predict"):
            if hasattr(ours, method):
                np.testing.assert_allclose(
                    getattr(ours, method)(x_test), getattr(theirs, method)(x_test), atol=1e-6
                )
    elif label == "KLR":
        # Linear kernel, lam = 0: L2-regularised logistic regression with a free intercept.
        ours = _fit(spec.make(kernel="linear", tol=1e-9, bound_eps=1e-10), x, y)
        theirs = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit(x, y)
        np.testing.assert_allclose(
            ours.decision_function(x), theirs.decision_function(x), atol=1e-5
        )
    elif label == "CSVR":
        # Without constraints, ConstrainedSVR is NuSVR(kernel="linear") (its docstring). The
        # target is noisy: LIBSVM takes minutes on an exactly linear one at tol=1e-8.
        y = y + np.random.default_rng(1).standard_normal(len(y))
        ours = _fit(spec.make(tol=1e-8), x, y)
        theirs = sklearn.svm.NuSVR(kernel="linear", tol=1e-8).fit(x, y)
        np.testing.assert_allclose(ours.predict(x), theirs.predict(x), atol=1e-6)
    elif label == "AIDR":
        y = y + np.random.default_rng(1).standard_normal(len(y))
        ours = _fit(spec.make(), x, y)
        lad = lad_lp(x, y)
        recomputed = float(np.sum(np.abs(y - ours.predict(x))))
        assert recomputed == pytest.approx(lad.objective, rel=1e-7)
        assert ours.objective_ == pytest.approx(lad.objective, rel=1e-7)
    elif label == "AIDC":
        signs = np.where(y == 1, 1.0, -1.0)
        ours = _fit(spec.make(), x, y)
        svm = svc_reference(x, signs, 1.0)
        value = svm_primal(x, signs, ours.coef_, float(ours.intercept_[0]), 1.0)
        assert svm.dual - 1e-7 <= value <= svm.primal * (1 + 1e-5)
    elif label == "AIDS":
        _padded_twin(spec, x, y)
    else:  # PU, FWSVC, MEB
        _padded_twin(spec, x, y, gamma=0.5)


# -- 1 row ----------------------------------------------------------------------------------
def _one_row(spec: Spec) -> None:
    label = _label_of(spec)
    x, y = _data(spec, n=1)
    x_test = np.random.default_rng(2).standard_normal((5, N_FEATURES))
    ours = _fit(spec.make(), x, y)
    if label in SKLEARN_TWINS:
        theirs = SKLEARN_TWINS[label]().fit(x, y)
        for method in _methods(ours):
            np.testing.assert_allclose(
                getattr(ours, method)(x_test), getattr(theirs, method)(x_test), atol=1e-12
            )
    else:  # AIDR: a line through the single point
        assert ours.objective_ == pytest.approx(0.0, abs=1e-9)
        np.testing.assert_allclose(ours.predict(x), y, atol=1e-9)


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


def _constant_target(spec: Spec) -> None:
    """A regressor on a constant target predicts the constant (SVR: within its epsilon tube,
    as scikit-learn's SVR)."""
    label = _label_of(spec)
    x, _ = _data(spec)
    y = np.full(len(x), 2.5)
    ours = _fit(spec.make(), x, y)
    prediction = ours.predict(x)
    if label in SKLEARN_TWINS:
        np.testing.assert_allclose(
            prediction, SKLEARN_TWINS[label]().fit(x, y).predict(x), atol=1e-12
        )
    slack = float(getattr(ours, "epsilon", 0.0)) + 1e-9
    assert np.all(np.abs(prediction - 2.5) <= slack)


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
        {"PU": r"y must hold 1 \(labeled positive\) and 0 \(unlabeled\)"},
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
    "gamma_zero": _param("gamma", 0.0),
    "gamma_unknown_string": _param("gamma", "fancy"),
    "kernel_unknown": _param("kernel", "gaussian-ish"),
    "kernel_precomputed": Case(r"kernel", bad=_kernel_precomputed),
    "precomputed_not_square": Case(r"(?i)square", bad=_precomputed_not_square),
    "precomputed_wrong_columns": Case(
        r"(?i)X has 29 features, but \w+ is expecting 30", bad=_precomputed_wrong_columns
    ),
    "degree_negative": _param("degree", -1),
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


def _parse_matrix() -> tuple[list[str], dict[str, dict[str, str]]]:
    lines = [line.split() for line in MATRIX.strip().splitlines()]
    header, rows = lines[0][1:], lines[1:]
    return header, {row[0]: dict(zip(header, row[1:], strict=True)) for row in rows}


COLUMNS, TABLE = _parse_matrix()
EXCEPTIONS: dict[str, type[BaseException]] = {
    "V": ValueError,
    "T": TypeError,
    "N": NotFittedError,
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
    Python's TypeError, not silently stored."""
    param = CASES[case].param
    assert param is not None
    name, value = param
    spec = SPECS[label]
    assert name not in spec.make().get_params()
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{name}'"):
        spec.make(**{name: value})


# --------------------------------------------------------------------------------------------
# parameters of one or a few estimators: (column, parameters, outcome, message pattern)
# --------------------------------------------------------------------------------------------
SVC_LIKE = ("SVC", "NuSVC", "FWSVC")
SPECIFIC: list[tuple[str, dict[str, Any], str, str]] = [
    *[
        (label, {"decision_function_shape": "ovx"}, "V", r"decision_function_shape")
        for label in SVC_LIKE
    ],
    *[
        (label, {"break_ties": True, "decision_function_shape": "ovo"}, "V", r"break_ties")
        for label in SVC_LIKE
    ],
    *[(label, {"break_ties": "yes"}, "T", r"break_ties must be a bool") for label in SVC_LIKE],
    *[
        (label, {"class_weight": weight}, "V", r"class_weight")
        for label in ("SVC", "NuSVC")
        for weight in ("heavy", {0: -1.0}, {0: np.nan}, {0: 0.0}, {5: 1.0})
    ],
    *[
        (label, {"shrinking": "no"}, "T", r"shrinking must be a bool")
        for label in ("SVC", "NuSVC", "SVR", "NuSVR", "OCSVM")
    ],
    ("PU", {"prior": None}, "V", r"prior is required"),
    ("PU", {"prior": 0.0}, "V", r"prior must be in \(0, 1\)"),
    ("PU", {"prior": 1.0}, "V", r"prior must be in \(0, 1\)"),
    ("PU", {"prior": np.nan}, "V", r"prior must be in \(0, 1\)"),
    ("PU", {"prior": "half"}, "T", r"prior must be a real number"),
    ("PU", {"lam": 0.0}, "V", r"\blam\b"),
    ("PU", {"lam": -1.0}, "V", r"\blam\b"),
    ("PU", {"kernel": lambda a, b: a @ b.T}, "V", r"kernel must be 'linear'"),
    ("KLR", {"lam": -0.1}, "V", r"\blam\b"),
    ("KLR", {"bound_eps": 0.0}, "V", r"bound_eps"),
    ("KLR", {"bound_eps": 0.5}, "V", r"bound_eps must be < C / 2"),
    ("KLR", {"selection": "third_order"}, "V", r"selection"),
    ("KLR", {"record_history": "yes"}, "T", r"record_history must be a bool"),
    ("FWSVC", {"method": "newton"}, "V", r"method"),
    ("FWSVC", {"method": "cvm", "kernel": "poly"}, "V", r"(?i)cvm.*constant k\(x, x\)"),
    ("FWSVC", {"sample_size": 0}, "V", r"sample_size"),
    ("FWSVC", {"sample_size": 1.5}, "T", r"sample_size"),
    ("FWSVC", {"sample_trials": 0}, "V", r"sample_trials"),
    ("FWSVC", {"init_size": 1}, "V", r"init_size"),
    ("FWSVC", {"verify_full": "yes"}, "T", r"verify_full must be a bool"),
    ("FWSVC", {"random_state": "seed"}, "V", r"cannot be used to seed"),
    ("CSVR", {"constraint": "convex"}, "V", r"constraint must be None or one of"),
    ("CSVR", {"gamma_rule": "dual"}, "V", r"gamma_rule"),
    ("CSVR", {"A": np.ones((2, 5))}, "V", r"A has 5 columns, but X has 3 features"),
    ("CSVR", {"b": np.ones(2)}, "V", r"b is given without A"),
    ("CSVR", {"A": [[np.nan, 1.0, 1.0]]}, "V", r"A contains NaN"),
    ("CSVR", {"A": [[1.0, 0, 0], [-1.0, 0, 0]], "b": [-1.0, -1.0]}, "V", r"infeasible"),
    ("CSVR", {"Gamma": [["a", "b", "c"]]}, "T", r"Gamma must be numeric"),
    ("CSVR", {"Gamma": np.ones((1, 3)), "d": np.ones(2)}, "V", r"d must have one value per row"),
    ("CSVR", {"record_history": "yes"}, "T", r"record_history must be a bool"),
    ("AIDR", {"fit_intercept": "no"}, "T", r"fit_intercept must be a bool"),
    *[
        entry
        for label in ("AIDC", "AIDR", "AIDS")
        for entry in (
            (label, {"n_clusters": 0}, "V", r"n_clusters must be >= 1"),
            (label, {"n_clusters": 1.5}, "T", r"n_clusters must be an int"),
            (label, {"n_clusters": 10 * N_ROWS}, "V", r"n_clusters = 300 exceeds"),
            (label, {"init": "spectral"}, "V", r"init must be 'kmeans', 'random'"),
            (label, {"init": np.zeros(5, dtype=np.int64)}, "V", r"init must have one cluster"),
            (label, {"init": np.zeros(N_ROWS)}, "V", r"init cluster ids must be integers"),
            (label, {"random_state": "seed"}, "T", r"random_state must be None"),
        )
    ],
    ("AIDC", {"solver": "smo"}, "T", r"solver must be None or a kernelkit.solvers.Smo"),
    ("AIDS", {"solver": "smo"}, "T", r"solver must be None or a kernelkit.solvers.Smo"),
    ("AIDS", {"C_unlabeled": -1.0}, "V", r"C_unlabeled"),
    ("AIDS", {"exact_max_clusters": -1}, "V", r"exact_max_clusters"),
    ("AIDS", {"exact_max_clusters": 1.5}, "V", r"exact_max_clusters"),
    ("AIDS", {"exact_max_clusters": 31}, "V", r"exact_max_clusters = 31"),
]


@pytest.mark.parametrize(
    ("label", "params", "code", "match"),
    [
        pytest.param(*entry, id=f"{entry[0]}-{'-'.join(map(str, entry[1]))}-{i}")
        for i, entry in enumerate(SPECIFIC)
    ],
)
def test_specific_parameter(label: str, params: dict[str, Any], code: str, match: str) -> None:
    spec = SPECS[label]
    x, y = _data(spec)
    with pytest.raises(EXCEPTIONS[code], match=match):
        _fit(spec.make(**params), x, y)


@pytest.mark.parametrize("label", list(SPECS))
def test_failed_fit_leaves_estimator_unfitted(label: str) -> None:
    """A fit that fails on its input leaves a fresh estimator unfitted (no half-fitted model),
    and a fitted one with its previous model."""
    spec = SPECS[label]
    x, y = _data(spec)
    bad = x.copy()
    bad[0, 0] = np.nan
    fresh = spec.make()
    with pytest.raises(ValueError):
        _fit(fresh, bad, y)
    for method in _methods(fresh):
        with pytest.raises(NotFittedError):
            getattr(fresh, method)(x)
    fitted = _fit(spec.make(), x, y)
    before = {m: np.asarray(getattr(fitted, m)(x), dtype=np.float64) for m in _methods(fitted)}
    with pytest.raises(ValueError):
        _fit(fitted, bad, y)
    for method, values in before.items():
        np.testing.assert_array_equal(getattr(fitted, method)(x), values)


def test_smo_limits_beyond_the_core_range() -> None:
    """kernelkit.solvers.Smo (the inner solver of AIDClassifier and AIDSemiSupervisedClassifier):
    limits no solve can reach are no limit (they used to overflow the core: an OverflowError
    for max_iter, a Rust panic for time_limit), and max_iter below -1 names itself."""
    from kernelkit.solvers import BoxQp, Smo

    q = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.5]])
    problem = BoxQp(q, p=-np.ones(3), y=np.array([1.0, -1.0, 1.0]), upper=np.ones(3))
    free = Smo(tol=1e-10).solve(problem)
    huge = Smo(tol=1e-10, max_iter=10**30, time_limit=1e300).solve(problem)
    assert huge.status == free.status == "converged"
    np.testing.assert_array_equal(np.asarray(huge.x), np.asarray(free.x))
    with pytest.raises(ValueError, match=r"max_iter must be -1 or None \(no limit\) or >= 1"):
        Smo(max_iter=-2).solve(problem)
