"""Bad input beyond the shared rows of the bad-input matrix (``kk_bad_input.py``).

Parameters that only one or a few estimators have (``SPECIFIC``: decision_function_shape,
break_ties, class_weight, shrinking, PU's prior and lam, KLR's, FrankWolfeSVC's,
ConstrainedSVR's and the AID estimators' own parameters), a failed fit that leaves the
estimator as it was, and the limits of ``kernelkit.solvers.Smo`` beyond the core's range.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kk_bad_input import EXCEPTIONS, N_ROWS, SPECS, _data, _fit, _methods
from sklearn.exceptions import NotFittedError

import kernelkit

# --------------------------------------------------------------------------------------------
# parameters of one or a few estimators: (column, parameters, outcome, message pattern)
# --------------------------------------------------------------------------------------------
SVC_LIKE = ("SVC", "NuSVC", "FWSVC")
SPECIFIC: list[tuple[str, dict[str, Any], str, str]] = [
    *[
        (label, {"decision_function_shape": "ovx"}, "V", r"decision_function_shape")
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
    # random_state as scikit-learn's parameter checks take it (numpy's seeds), named at fit.
    *[
        (label, {"random_state": value}, "V", r"random_state must be None, an int in \[0, 2\*\*32")
        for label in ("SVC", "NuSVC", "FWSVC", "MEB", "AIDC", "AIDR", "AIDS")
        for value in (-1, 2**32, 0.5, "seed", True, np.random.default_rng(0))
    ],
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
    # An int beyond float's range: named as not finite, not a ufunc's type error.
    *[(label, {"coef0": 10**400}, "V", r"coef0 must be a finite") for label in ("SVC", "AIDC")],
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


@pytest.mark.parametrize(
    "value", [10**400, -(10**400), 10**5000], ids=["1e400", "-1e400", "1e5000"]
)
@pytest.mark.parametrize(
    ("label", "name"),
    [
        *[("SVC", name) for name in ("C", "tol", "cache_size", "time_limit", "gamma", "coef0")],
        ("SVR", "epsilon"),
        *[(label, "nu") for label in ("NuSVC", "NuSVR", "OCSVM", "CSVR")],
        ("CSVR", "C"),
        ("PU", "prior"),
        ("PU", "lam"),
        ("KLR", "lam"),
        ("KLR", "bound_eps"),
        ("FWSVC", "epsilon"),
        ("AIDC", "C"),
        ("AIDS", "C_unlabeled"),
        ("AIDR", "tol"),
    ],
)
def test_an_int_beyond_float_range_is_named(label: str, name: str, value: int) -> None:
    """A float parameter given an int beyond float's range (C=10**400) raised a bare
    OverflowError from float(value); a 5000-digit one could not even be written into the
    message (Python's int-to-string limit). Now a ValueError names the parameter and the
    int's size."""
    spec = SPECS[label]
    x, y = _data(spec)
    size = rf"{'-' if value < 0 else ''}10\*\*{5000 if value > 10**400 else 400}"
    with pytest.raises(ValueError, match=rf"^{name} must .*, got an int of about {size}$"):
        _fit(spec.make(**{name: value}), x, y)


@pytest.mark.parametrize("label", SVC_LIKE)
def test_break_ties_with_ovo_is_refused_by_predict(label: str) -> None:
    """As scikit-learn's: the fit stands, and so do decision_function and predict_proba;
    predict, whose ties break_ties would break, names the conflict."""
    spec = SPECS[label]
    x, y = _data(spec)
    model = _fit(spec.make(break_ties=True, decision_function_shape="ovo"), x, y)
    reference = _fit(spec.make(decision_function_shape="ovo"), x, y)
    np.testing.assert_array_equal(model.decision_function(x), reference.decision_function(x))
    with pytest.raises(ValueError, match=r"break_ties must be False when decision_function"):
        model.predict(x)


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
    message = r"max_iter must be -1 or None \(the default limit\) or >= 1"
    with pytest.raises(ValueError, match=message):
        Smo(max_iter=-2).solve(problem)


@pytest.mark.parametrize(
    ("field", "value", "error", "match"),
    [
        ("tol", "small", TypeError, r"tol must be a real number, got str"),
        ("tol", 0.0, ValueError, r"tol must be finite and > 0"),
        ("tol", 10**400, ValueError, r"tol must be finite and > 0, got an int of about 10\*\*400"),
        ("max_iter", 1.5, TypeError, r"max_iter must be an int or None, got float"),
        ("max_iter", "10", TypeError, r"max_iter must be an int or None, got str"),
        ("max_iter", True, TypeError, r"max_iter must be an int or None, got bool"),
        ("max_iter", 0, ValueError, r"max_iter must be -1 or None \(the default limit\) or >= 1"),
        ("shrinking", "no", TypeError, r"shrinking must be a bool"),
        ("cache_size", -1.0, ValueError, r"cache_size must be finite and >= 0"),
        ("cache_size", "big", TypeError, r"cache_size must be a real number"),
        ("n_jobs", 1.5, TypeError, r"n_jobs must be an int or None"),
        ("time_limit", 0.0, ValueError, r"time_limit must be finite and > 0"),
        ("time_limit", 10**400, ValueError, r"time_limit must be finite and > 0"),
    ],
    ids=lambda v: "1e400" if v == 10**400 else None,
)
def test_smo_fields_are_checked(field: str, value: Any, error: type, match: str) -> None:
    """The fields of kernelkit.solvers.Smo (the AID classifiers' inner solver) went to the core
    unchecked: a string or an int beyond float's range failed in a conversion that did not
    name the field, and AIDClassifier took max_iter=1.5 and shrinking="no" without a word."""
    from kernelkit.solvers import Smo

    with pytest.raises(error, match=f"^{match}"):
        Smo(**{field: value})


@pytest.mark.parametrize("engine", ["fast", "LIBSVM", 1, None])
def test_an_unknown_engine_names_the_parameter(engine: Any) -> None:
    from kernelkit import SVC, SVR, NuSVC, NuSVR, OneClassSVM

    x = np.random.default_rng(0).normal(size=(30, 3))
    y = np.where(x[:, 0] > 0, 1, -1)
    for estimator in (SVC, NuSVC, SVR, NuSVR, OneClassSVM):
        with pytest.raises(
            ValueError, match=r"engine must be one of \('auto', 'libsvm', 'batched'\)"
        ):
            estimator(engine=engine).fit(x, y)


def test_the_engine_that_ran_is_reported() -> None:
    """Forced engines report themselves; "auto" keeps LIBSVM's on a small problem, and both
    reach the same optimum within tol (the objective) and the same predictions."""
    from kernelkit import SVR

    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 4))
    y = np.sin(x[:, 0]) + 0.1 * rng.normal(size=400)
    fits = {e: SVR(engine=e, tol=1e-6).fit(x, y) for e in ("auto", "libsvm", "batched")}
    assert {e: f.solver_stats_["engine"] for e, f in fits.items()} == {
        "auto": "libsvm",
        "libsvm": "libsvm",
        "batched": "batched",
    }
    assert fits["batched"].solver_stats_["batches"] >= 1
    assert fits["libsvm"].solver_stats_["batches"] == 0
    a, b = fits["libsvm"].objective_, fits["batched"].objective_
    assert abs(a - b) <= 1e-6 * abs(a)
    np.testing.assert_allclose(fits["libsvm"].predict(x), fits["batched"].predict(x), atol=1e-3)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("SVC", {"degree": 2.0, "kernel": "poly"}),
        ("SVC", {"max_iter": 100.0}),
        ("SVC", {"shrinking": 1}),
        ("NuSVC", {"nu": "0.5"}),
        ("SVR", {"C": "1"}),
        ("NuSVR", {"max_iter": 10.5}),
        ("OneClassSVM", {"shrinking": "yes"}),
    ],
)
def test_a_parameter_of_the_wrong_type_is_a_value_error_too(
    name: str, params: dict[str, Any]
) -> None:
    """scikit-learn's parameter errors are both ValueError and TypeError (its
    InvalidParameterError); so are kernelkit's, so that ``except ValueError`` written for
    scikit-learn's estimators still catches them."""
    import sklearn.svm

    X = np.random.default_rng(0).standard_normal((30, 3))
    y = np.arange(30) % 2
    target = () if name == "OneClassSVM" else (y,)
    with pytest.raises(ValueError) as theirs:
        getattr(sklearn.svm, name)(**params).fit(X, *target)
    assert isinstance(theirs.value, TypeError)
    with pytest.raises(kernelkit.InvalidParameterError) as ours:
        getattr(kernelkit, name)(**params).fit(X, *target)
    assert isinstance(ours.value, ValueError) and isinstance(ours.value, TypeError)
    assert next(iter(params)) in str(ours.value)


@pytest.mark.parametrize("name", ["NuSVR", "NuSVC"])
def test_a_model_that_is_not_finite_is_refused_as_scikit_learn_refuses_it(name: str) -> None:
    """Rows of 1e20 under a linear kernel: every SMO step stays finite, but ν's offset comes
    out NaN. NuSVR stored that NaN intercept with status "converged" (predicting NaN), NuSVC
    blamed nu; scikit-learn raises that the coefficients or intercepts are not finite, and so
    does kernelkit now, keeping the previous model."""
    import sklearn.svm

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = 2 * X[:, 0] + 1 if name == "NuSVR" else (X[:, 0] > 0).astype(int)
    if name == "NuSVR":
        with pytest.raises(ValueError, match="not finite"):
            sklearn.svm.NuSVR(kernel="linear").fit(X * 1e20, y)
    model = getattr(kernelkit, name)(kernel="linear").fit(X, y)
    before = model.predict(X)
    with pytest.raises(ValueError, match="coefficients or intercepts are not finite"):
        model.fit(X * 1e20, y)
    np.testing.assert_array_equal(model.predict(X), before)


def test_a_solve_whose_offset_is_not_finite_is_a_numerical_error() -> None:
    """OneClassSVM on the same rows reported "converged" with an objective beyond the float
    range; its status became ``numerical_error``, and such a solve is now refused, as
    scikit-learn refuses the fit (``test_a_numerical_error_is_refused_as_scikit_learn_does``)."""
    X = np.random.default_rng(0).normal(size=(30, 3)) * 1e20
    with pytest.raises(ValueError, match="not finite \\(status 'numerical_error'\\)"):
        kernelkit.OneClassSVM(kernel="linear").fit(X)


@pytest.mark.parametrize("name", ["SVC", "SVR", "OneClassSVM"])
def test_a_numerical_error_is_refused_as_scikit_learn_does(name: str) -> None:
    """``kernel="poly", degree=200, gamma=1`` on rows of norm about 1.7: kernel values beyond
    the float32 column cache's range (3.4e38), so the first SMO step is not finite and the solve
    stops with ``numerical_error``. The one-step model was kept, with a warning to raise
    max_iter / time_limit, which cannot help; scikit-learn raises (its LIBSVM carries the NaN
    into the model). Now a ValueError says what happened and what helps, and the previous model
    stays."""
    import sklearn.svm

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    target = {"SVC": ((X[:, 0] > 0).astype(int),), "SVR": (2 * X[:, 0] + 1,)}.get(name, ())
    overflowing = {"kernel": "poly", "degree": 200, "gamma": 1.0}
    with pytest.raises(ValueError, match="not finite"):
        getattr(sklearn.svm, name)(**overflowing).fit(X, *target)
    model = getattr(kernelkit, name)().fit(X, *target)
    before = model.predict(X)
    with pytest.raises(ValueError, match=r"not finite.*scale the features"):
        model.set_params(**overflowing).fit(X, *target)
    np.testing.assert_array_equal(model.predict(X), before)


def test_the_warning_of_a_numerical_error_does_not_advise_more_iterations() -> None:
    """The estimators that keep a model stopped by ``numerical_error`` (``ConstrainedSVR``)
    warned "Raise max_iter / time_limit, or check the callback", which cannot help a solve that
    met a value it could not use; the warning now says what happened and what helps."""
    from kernelkit._warn import warn_unconverged

    with pytest.warns(kernelkit.ConvergenceWarning) as record:
        warn_unconverged(["numerical_error"], default_limit=True)
    message = str(record[0].message)
    assert "not finite" in message and "Scale the features" in message, message
    assert "max_iter" not in message, message


def test_aggregated_kernel_of_rows_without_a_feature_is_an_error() -> None:
    """It panicked in the core (an index past the rows: 4 × 0 values hold no row count)."""
    from kernelkit.solvers import aggregated_kernel

    with pytest.raises(ValueError, match="no feature"):
        aggregated_kernel(np.ones((4, 0)), np.arange(4))


@pytest.mark.parametrize("gamma", ["scale", "auto", "wide"])
def test_aggregated_kernel_names_what_gamma_may_be(gamma: str) -> None:
    """aggregated_kernel takes no named gamma rule, and its message listed the empty list of
    rules: "gamma must be  or a float > 0"."""
    from kernelkit.solvers import aggregated_kernel

    with pytest.raises(ValueError, match=rf"^gamma must be a float > 0, got '{gamma}'$"):
        aggregated_kernel(np.ones((4, 2)), np.arange(4), gamma=gamma)  # type: ignore[arg-type]


def _broken_csr(kind: str) -> Any:
    import scipy.sparse as sp

    rows = np.random.default_rng(0).normal(size=(30, 3))
    rows[rows < 0.3] = 0
    matrix = sp.csr_matrix(rows)
    if kind == "index beyond the columns":
        matrix.indices[0] = 100000
    elif kind == "negative index":
        matrix.indices[0] = -1
    else:  # a decreasing indptr
        matrix.indptr[1] = matrix.indptr[2] + 1
    return matrix, 2 * rows[:, 0] + 1


@pytest.mark.parametrize("kind", ["index beyond the columns", "negative index", "indptr"])
@pytest.mark.parametrize(
    "name", ["SVR", "ConstrainedSVR", "AIDRegressor", "AIDClassifier", "NuSVC"]
)
def test_a_broken_sparse_matrix_is_refused_not_crashed_on(name: str, kind: str) -> None:
    """A CSR matrix with an index out of range or a decreasing indptr: ConstrainedSVR's
    product crashed the process (scipy does not check), the AID estimators fitted on it or
    aborted, and every estimator met scipy's C++ error for the indptr. Each says now that X is
    not a valid CSR matrix, at fit and at predict."""
    broken, target = _broken_csr(kind)
    y = target if name in ("SVR", "ConstrainedSVR", "AIDRegressor") else (target > 1).astype(int)
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        getattr(kernelkit, name)().fit(broken, y)
    valid = np.random.default_rng(1).normal(size=(30, 3))
    fitted = getattr(kernelkit, name)().fit(valid, y)
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        fitted.predict(broken)


@pytest.mark.parametrize("kind", ["index beyond the columns", "negative index", "indptr"])
@pytest.mark.parametrize("name", ["A", "Gamma"])
def test_a_broken_sparse_constraint_matrix_is_refused_not_crashed_on(name: str, kind: str) -> None:
    """ConstrainedSVR's A or Gamma as a CSR matrix with an index out of range or a decreasing
    indptr: its structure was not checked, and scipy's conversion aborted the process, raised
    its own C++ or linprog errors, or a ValueError that did not name the matrix."""
    broken, _ = _broken_csr(kind)
    x = np.random.default_rng(1).normal(size=(30, 3))
    with pytest.raises(ValueError, match=f"^{name} is not a valid CSR matrix"):
        kernelkit.ConstrainedSVR(**{name: broken}).fit(x, x[:, 0])


def test_frank_wolfe_epsilon_whose_gap_overflows_is_named() -> None:
    """epsilon = 1e160: the stopping gap 2ε + ε² overflows; the error named ``tol``, which
    FrankWolfeSVC does not have."""
    x = np.random.default_rng(0).normal(size=(30, 3))
    y = (x[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="epsilon"):
        kernelkit.FrankWolfeSVC(epsilon=1e160).fit(x, y)
    kernelkit.FrankWolfeSVC(epsilon=1e100).fit(x, y)  # 2ε + ε² = 1e200: still a gap


def test_frank_wolfe_c_whose_inverse_overflows_is_named() -> None:
    """C = 1e-320: 1 / C, on K̃'s diagonal, is infinite; the error named k(x_0, x_0)."""
    x = np.random.default_rng(0).normal(size=(30, 3))
    y = (x[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match=r"^C must be large enough that 1 / C is finite"):
        kernelkit.FrankWolfeSVC(C=1e-320).fit(x, y)
    kernelkit.FrankWolfeSVC(C=1e-300).fit(x, y)  # 1 / C = 1e300: a number


@pytest.mark.parametrize(
    ("name", "gamma"),
    [
        ("SVC", "scale"),
        ("SVR", "scale"),
        ("FrankWolfeSVC", "scale"),
        ("FrankWolfeSVC", "mean_distance"),
    ],
)
def test_a_gamma_rule_that_overflows_on_tiny_rows_is_named(name: str, gamma: str) -> None:
    """Rows of 1e-160: the variance (or mean squared distance) underflows to ~1e-320, so the
    rule's gamma is infinite; the error said "gamma = inf", which the user never set."""
    x = np.random.default_rng(0).normal(size=(50, 3))
    y = (x[:, 0] > 0).astype(int)
    model = getattr(kernelkit, name)(gamma=gamma)
    with pytest.raises(ValueError, match=rf"^gamma='{gamma}' is undefined: .* overflows float64"):
        model.fit(x * 1e-160, y)
    model.fit(x * 1e-150, y)  # gamma ~ 1e299: a number


@pytest.mark.parametrize(
    ("name", "largest"),
    [
        ("sample_size", int(np.iinfo(np.uintp).max)),
        ("sample_trials", 2**32 - 1),
        ("init_size", int(np.iinfo(np.uintp).max)),
    ],
)
def test_frank_wolfe_ints_beyond_the_core_range_are_named(name: str, largest: int) -> None:
    """sample_size and init_size (the core's usize) and sample_trials (its u32) had no upper
    bound: one beyond the core's type was a bare OverflowError from the binding."""
    x = np.random.default_rng(0).normal(size=(30, 3))
    y = (x[:, 0] > 0).astype(int)
    for value in (largest + 1, 10**30):
        with pytest.raises(ValueError, match=rf"^{name} must be >= \d and <= {largest}, got"):
            kernelkit.FrankWolfeSVC(**{name: value}).fit(x, y)
    kernelkit.FrankWolfeSVC(**{name: largest}).fit(x, y)  # the largest is taken


@pytest.mark.parametrize("verbose", ["yes", float("nan"), -1, 1.5])
@pytest.mark.parametrize("name", ["SVC", "OneClassSVM", "ConstrainedSVR", "AIDRegressor"])
def test_verbose_of_the_wrong_kind_is_refused(name: str, verbose: Any) -> None:
    """verbose was taken as whatever it was; scikit-learn refuses these."""
    x = np.random.default_rng(0).normal(size=(30, 3))
    y = x[:, 0] if name in ("ConstrainedSVR", "AIDRegressor") else (x[:, 0] > 0).astype(int)
    model = getattr(kernelkit, name)(verbose=verbose)
    with pytest.raises(ValueError, match="verbose"):
        model.fit(x) if name == "OneClassSVM" else model.fit(x, y)


@pytest.mark.parametrize("selection", ["full", "paper"])
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"kernel": "poly", "degree": 1000}, r"not finite.*scale the features"),
        ({"lam": 1e-310}, r"lam = 1e-310 is too small for floating point"),
        ({"kernel": "poly", "degree": 2, "coef0": -1e300}, r"sum to inf, beyond the range"),
    ],
)
def test_pu_classifier_refuses_parameters_that_overflow(
    selection: str, params: dict[str, Any], message: str
) -> None:
    """PUClassifier had no finite-model check. ``degree=1000`` overflows the float32 kernel
    columns: the scans skipped the NaN function values and the fit stored ``status_
    "converged"`` after 0 steps, with an infinite intercept (``"full"``). ``lam=1e-310`` makes
    the dual's bounds infinite: NaN coefficients, "converged". ``coef0=-1e300`` was refused
    as "invalid positive_sums", a name the user never gave. Each is now a ValueError naming
    the problem, and the previous model stays."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = ((X[:, 0] > 0) & (rng.random(60) < 0.5)).astype(int)
    model = kernelkit.PUClassifier(prior=0.4, selection=selection).fit(X, y)
    before = model.decision_function(X)
    with pytest.raises(ValueError, match=message):
        model.set_params(**params).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), before)


def test_pu_classifier_refuses_an_intercept_that_overflows() -> None:
    """``kernel="poly", degree=1, coef0=-1e300``: kernel values of -1e300, -inf in the float32
    columns. The paper selection stored an intercept of -inf with ``status_ "converged"``
    (decision values NaN); the solve is now a numerical error, which the fit refuses."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = ((X[:, 0] > 0) & (rng.random(60) < 0.5)).astype(int)
    model = kernelkit.PUClassifier(prior=0.4, kernel="poly", degree=1, coef0=-1e300)
    with pytest.raises(ValueError, match=r"not finite.*scale the features"):
        model.fit(X, y)
    assert not hasattr(model, "intercept_")
