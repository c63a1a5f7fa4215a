"""Shared tables and helpers of the bad-input matrix (issue 10): every public estimator × every
kind of bad or unusual input.

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

Every V/T/N/W cell is one item of ``test_cell`` (``test_bad_input_cells.py``, which also holds
the rows: ``CASES``); parameters that only one or a few estimators have are in ``SPECIFIC``
(``test_specific_parameter``, ``test_bad_input_specific.py``). No case may panic or hang: a Rust
panic would surface as ``pyo3_runtime.PanicException``, which is neither a ``ValueError`` nor a
``TypeError``, and fails the cell.

Columns: SVC, NuSVC, SVR, NuSVR, OneClassSVM (OCSVM), PUClassifier (PU), FrankWolfeSVC (FWSVC),
MEBClassifier (MEB, the same class), ConstrainedSVR (CSVR), SparseKernelLogisticRegression
(KLR), AIDClassifier (AIDC), AIDRegressor (AIDR), AIDSemiSupervisedClassifier (AIDS).
Estimators without ``sample_weight`` in ``fit`` (PU, FWSVC, MEB, CSVR, KLR and the three AID
estimators) raise Python's own ``TypeError`` for it (the ``T`` cells of the ``sw_*`` rows).

This module holds the columns (``SPECS``), the table (``MATRIX``, ``NOT_APPLICABLE``, parsed
into ``COLUMNS`` and ``TABLE``), the expected exceptions, the data and fitting helpers, and the
oracles of the W cells.
"""

from __future__ import annotations

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
labels_outside            .    .    .    .     .    V   .    .   .   .    V    .    V
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
degree_beyond_32_bits     V    V    V    V     V    V   V    V   V   .    V    .    .
coef0_nan                 V    V    V    V     V    V   V    V   V   .    V    .    .
sw_negative               V    V    V    V     V    T   T    T   V   T    T    T    T
sw_nan                    V    V    V    V     V    T   T    T   V   T    T    T    T
sw_wrong_length           V    V    V    V     V    T   T    T   V   T    T    T    T
sw_all_zero               V    V    V    V     V    T   T    T   V   T    T    T    T
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
    "labels_outside": "SVC, NuSVC, FWSVC, MEB, KLR: any number of classes of any labels is "
    "valid; regressors and OCSVM have no labels",
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
# the oracles of the W cells
# --------------------------------------------------------------------------------------------
def _y_is_ignored(change: Callable[[Spec, Any], Any]) -> Callable[[Spec], None]:
    """OneClassSVM ignores y (as scikit-learn's does): the model is the one of fit(X)."""

    def works(spec: Spec) -> None:
        x, _ = _data(spec)
        ignored = _fit(spec.make(), x, change(spec, _target(SPECS["SVR"], x)))
        _assert_same_outputs(ignored, _fit(spec.make(), x, None), x)

    return works


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


#: The estimators whose ``max_iter`` counts aggregated solves and has no "unlimited" value.
AID_ESTIMATORS = (
    kernelkit.AIDClassifier,
    kernelkit.AIDRegressor,
    kernelkit.AIDSemiSupervisedClassifier,
)


def _same_model_with(name: str, huge: Any) -> Callable[[Spec], None]:
    """A value no solve can reach (10**30 iterations, 1e300 seconds) is no limit: the model
    equals the unlimited one (AID's max_iter has no "unlimited": 10**6 solves stands for it)."""

    def works(spec: Spec) -> None:
        unlimited: Any = None
        if name == "max_iter":
            unlimited = 10**6 if spec.cls in AID_ESTIMATORS else -1
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


# -- constant target ------------------------------------------------------------------------
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
