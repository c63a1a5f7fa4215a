"""ONNX export (``kernelkit.onnx``, issue 44): onnxruntime runs the converted graph and must
reproduce the model's ``predict`` (at least 99 % of rows; the operators compute in float32),
``decision_function`` and ``predict_proba`` (within ``1e-4 · max|value| + 1e-5``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import onnxruntime
import pytest
import scipy.sparse as sp
import skl2onnx
from numpy.typing import NDArray
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import NotFittedError
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kernelkit
import kernelkit.io
import kernelkit.onnx

pytestmark = pytest.mark.filterwarnings("ignore:.*probability.*:FutureWarning")


def _run(model: Any, X: Any, **options: Any) -> list[Any]:
    onx = skl2onnx.to_onnx(model, np.asarray(X[:1], dtype=np.float32), **options)
    session = onnxruntime.InferenceSession(
        onx.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    feed = {session.get_inputs()[0].name: np.asarray(X, dtype=np.float32)}
    outputs: list[Any] = session.run(None, feed)
    return outputs


def _close(actual: NDArray[Any], expected: NDArray[Any]) -> None:
    bound = 1e-4 * float(np.abs(expected).max()) + 1e-5
    assert actual.shape == expected.shape
    assert float(np.abs(actual - expected).max()) <= bound


def _agree(labels: NDArray[Any], expected: NDArray[Any]) -> None:
    assert np.mean(labels == expected) >= 0.99


def _classification(n_classes: int, seed: int = 0) -> tuple[NDArray[Any], NDArray[Any]]:
    X, y = make_classification(
        500, 8, n_informative=5, n_classes=n_classes, flip_y=0.05, random_state=seed
    )
    return X, y


# The sigmoid kernel is indefinite: ν-SVC pairs find no valid scale with it, so NuSVC goes
# without.
MODELS = [("SVC", k) for k in ("rbf", "linear", "poly", "sigmoid")] + [
    ("NuSVC", k) for k in ("rbf", "linear", "poly")
]


@pytest.mark.parametrize("shape", ["ovr", "ovo"])
@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize(("name", "kernel"), MODELS)
def test_classifier_scores(name: str, kernel: str, n_classes: int, shape: str) -> None:
    X, y = _classification(n_classes, seed=n_classes)
    params: dict[str, Any] = {"kernel": kernel, "decision_function_shape": shape}
    if kernel in ("poly", "sigmoid"):
        params.update(gamma=0.05, coef0=0.5 if kernel == "poly" else -0.5)
    if name == "NuSVC":
        # A ν whose pairs keep moderate coefficients: the operators sum in float32, so a model
        # whose dual coefficients reach 1e5 (ν = 0.3, linear, here) loses its decision values.
        params["nu"] = 0.7
    model = getattr(kernelkit, name)(**params).fit(X, y)
    labels, scores = _run(model, X, options={"zipmap": False})
    _agree(labels, model.predict(X))
    decision = model.decision_function(X)
    if n_classes == 2:
        decision = np.column_stack([-decision, decision])
    if n_classes > 2 and shape == "ovr":
        # The one-vs-rest transform jumps by a vote where a pairwise value crosses 0: rows
        # with a pairwise value within float32 rounding of 0 may take either side.
        pairwise = model.set_params(decision_function_shape="ovo").decision_function(X)
        clear = np.abs(pairwise).min(axis=1) > 1e-4 * np.abs(pairwise).max()
        assert clear.mean() >= 0.99
        scores, decision = scores[clear], decision[clear]
    _close(scores, decision)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("name", ["SVC", "NuSVC"])
def test_classifier_probabilities(name: str, n_classes: int) -> None:
    X, y = _classification(n_classes, seed=10 + n_classes)
    model = getattr(kernelkit, name)(probability=True, random_state=0).fit(X, y)
    labels, probabilities = _run(model, X, options={"zipmap": False})
    _agree(labels, model.predict(X))
    _close(probabilities, model.predict_proba(X))
    # The default output: one dict of class probabilities per row (skl2onnx's ZipMap).
    _, mapped = _run(model, X[:5])
    assert [sorted(row) for row in mapped] == [sorted(int(c) for c in model.classes_)] * 5
    np.testing.assert_allclose(
        [[row[int(c)] for c in model.classes_] for row in mapped], probabilities[:5], rtol=1e-6
    )


def test_string_labels_sparse_rows_and_double_input() -> None:
    X, y = _classification(3, seed=4)
    names = np.array(["cat", "dog", "eel"])[y]
    model = kernelkit.SVC(probability=True, random_state=0).fit(sp.csr_matrix(X), names)
    onx = skl2onnx.to_onnx(model, X[:1].astype(np.float64), options={"zipmap": False})
    session = onnxruntime.InferenceSession(onx.SerializeToString())
    labels, probabilities = session.run(None, {session.get_inputs()[0].name: X})
    _agree(labels, model.predict(X))
    _close(probabilities, model.predict_proba(X))


def test_in_a_pipeline() -> None:
    X, y = _classification(3, seed=5)
    pipeline = make_pipeline(StandardScaler(), kernelkit.SVC(C=3.0)).fit(X * 10 + 3, y)
    labels, scores = _run(pipeline, X * 10 + 3, options={"zipmap": False})
    _agree(labels, pipeline.predict(X * 10 + 3))
    _close(scores, pipeline.decision_function(X * 10 + 3))


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("name", ["SVR", "NuSVR"])
def test_regressors(name: str, kernel: str) -> None:
    X, y = make_regression(400, 6, noise=1.0, random_state=1)
    X = StandardScaler().fit_transform(X)
    params: dict[str, Any] = {"kernel": kernel, "C": 10.0}
    if kernel == "poly":
        params.update(gamma=0.2, coef0=1.0, degree=2)
    model = getattr(kernelkit, name)(**params).fit(X, y)
    (prediction,) = _run(model, X)
    _close(prediction[:, 0], model.predict(X))


def test_one_class() -> None:
    X, _ = _classification(2, seed=6)
    model = kernelkit.OneClassSVM(nu=0.2, gamma=0.1).fit(X)
    labels, scores = _run(model, X)
    _agree(labels, model.predict(X))
    _close(scores[:, 0], model.decision_function(X))


@pytest.mark.parametrize("kernel", ["precomputed", "callable"])
def test_kernels_without_an_onnx_form_are_refused(kernel: str) -> None:
    X, y = _classification(2)
    if kernel == "precomputed":
        model = kernelkit.SVC(kernel="precomputed").fit(X @ X.T, y)
    else:
        model = kernelkit.SVC(kernel=lambda a, b: a @ b.T).fit(X, y)
    with pytest.raises(ValueError, match="cannot be exported to ONNX"):
        skl2onnx.to_onnx(model, X[:1].astype(np.float32))


# A LIBSVM model file with its labels in another order than sorted (as svm-train writes them,
# by first appearance), its pairs' values x1, x2 and x3 of a row: a linear kernel with unit
# support vectors. Where the signs of the three make a cycle, every class has one vote.
CYCLIC_MODEL = """svm_type c_svc
kernel_type linear
nr_class 3
total_sv 4
rho 0 0 0
label 3 1 2
{probabilities}nr_sv 2 1 1
SV
1 0 1:1
0 1 2:1
0 1 3:1
0 0 1:1
"""


@pytest.mark.parametrize("shape", ["ovr", "ovo"])
@pytest.mark.parametrize("probability", [False, True])
def test_a_model_read_from_a_libsvm_file_keeps_its_class_order(
    probability: bool, shape: str, tmp_path: Any
) -> None:
    """The loaded model breaks ties of the vote and couples the pairs in the file's class
    order (3, 1, 2), as LIBSVM does, and so must its graph: one ``SVMClassifier`` in that order,
    its pairs and columns put back in the sorted order. Oracle for the labels: LIBSVM."""
    from libsvm.svmutil import svm_load_model, svm_predict

    platt = "probA -2 -1.5 -1\nprobB 0.1 -0.2 0.3\n" if probability else ""
    (tmp_path / "model").write_text(CYCLIC_MODEL.format(probabilities=platt))
    model = kernelkit.io.load_libsvm_model(tmp_path / "model")
    model.set_params(decision_function_shape=shape)
    X = np.random.default_rng(0).normal(size=(2000, 3))
    pairwise = model.set_params(decision_function_shape="ovo").decision_function(X)
    model.set_params(decision_function_shape=shape)
    wins = np.column_stack(
        [
            (pairwise[:, 0] > 0) + (pairwise[:, 1] > 0),
            (pairwise[:, 0] <= 0) + (pairwise[:, 2] > 0),
            (pairwise[:, 1] <= 0) + (pairwise[:, 2] <= 0),
        ]
    )
    tied = wins.max(axis=1) == 1
    assert tied.mean() > 0.2
    libsvm_rows = [{j + 1: float(v) for j, v in enumerate(row)} for row in X]
    libsvm_labels, _, _ = svm_predict(
        [0.0] * len(X), libsvm_rows, svm_load_model(str(tmp_path / "model")), "-q"
    )
    np.testing.assert_array_equal(model.predict(X), libsvm_labels)
    predicted, scores = _run(model, X, options={"zipmap": False})
    _agree(predicted, model.predict(X))
    assert np.mean(predicted[tied] == model.predict(X)[tied]) >= 0.99
    if probability:
        _close(scores, model.predict_proba(X))
    elif shape == "ovo":
        _close(scores, pairwise)
    else:
        clear = np.abs(pairwise).min(axis=1) > 1e-4 * np.abs(pairwise).max()
        _close(scores[clear], model.decision_function(X)[clear])


@pytest.mark.parametrize("probability", [False, True])
def test_break_ties_labels_are_the_argmax_of_the_scores(probability: bool, tmp_path: Any) -> None:
    """With ``break_ties=True`` (and ``"ovr"``) ``predict`` is the argmax of
    ``decision_function``, not the vote: on the cyclic model every tied row's label depends on
    it (the vote's labels agreed on 83 % of the rows), and a fitted model's on a few."""
    platt = "probA -2 -1.5 -1\nprobB 0.1 -0.2 0.3\n" if probability else ""
    (tmp_path / "model").write_text(CYCLIC_MODEL.format(probabilities=platt))
    cyclic = kernelkit.io.load_libsvm_model(tmp_path / "model").set_params(break_ties=True)
    X = np.random.default_rng(1).normal(size=(2000, 3))
    X4, y4 = _classification(4, seed=2)
    fitted = kernelkit.SVC(gamma=0.5, break_ties=True, probability=probability, random_state=0)
    for model, rows in ((cyclic, X), (fitted.fit(X4, y4), X4)):
        predicted = _run(model, rows, options={"zipmap": False})[0]
        expected = model.classes_[np.argmax(model.decision_function(rows), axis=1)]
        np.testing.assert_array_equal(model.predict(rows), expected)
        _agree(predicted, expected)
    argmax = cyclic.classes_[np.argmax(cyclic.decision_function(X), axis=1)]
    assert np.mean(cyclic.set_params(break_ties=False).predict(X) == argmax) < 0.9


def test_models_without_support_vectors(tmp_path: Any) -> None:
    """The operators take no empty attribute, and onnxruntime 1.18 aborts the process on a
    class without vectors: the graph of a model without support vectors (an SVR of constant
    targets; LIBSVM files with ``total_sv 0``) still gives its constant, and a class without
    any (``nr_sv 2 0 1``) changes nothing."""
    X, _ = make_regression(60, 4, random_state=0)
    regressor = kernelkit.SVR().fit(X, np.full(60, 3.0))
    assert regressor.support_.shape == (0,)
    _close(_run(regressor, X)[0][:, 0], regressor.predict(X))
    one_class_without = "1 0.5 1:1 2:-1\n0 1 3:2\n-1 -1.5 1:0.5 4:1\n"
    for labels, rho, n_support, vectors in (
        ("1 2", "0.5", "0 0", ""),
        ("3 1 2", "0.5 -0.25 0.75", "0 0 0", ""),
        ("3 1 2", "0.5 -0.25 0.75", "2 0 1", one_class_without),  # onnxruntime 1.18 aborted
    ):
        k, total = len(labels.split()), sum(int(n) for n in n_support.split())
        (tmp_path / "model").write_text(
            f"svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class {k}\ntotal_sv {total}\n"
            f"rho {rho}\nlabel {labels}\nnr_sv {n_support}\nSV\n{vectors}"
        )
        model = kernelkit.io.load_libsvm_model(tmp_path / "model")
        predicted, scores = _run(model, X, options={"zipmap": False})
        np.testing.assert_array_equal(predicted, model.predict(X))
        _close(scores if k > 2 else scores[:, 1], model.decision_function(X))


@pytest.mark.parametrize("name", ["SVC", "SVR"])
def test_the_graph_holds_the_kernel_the_model_was_fitted_with(name: str) -> None:
    """``predict`` uses the fitted kernel whatever ``set_params`` changed since, and so must
    the graph (the changed degree and coef0 moved the decision values by 303 before)."""
    if name == "SVC":
        X, y = _classification(3)
    else:
        X, y = make_regression(300, 8, noise=1.0, random_state=0)
        X, y = X / X.std(axis=0), y / y.std()
    model = getattr(kernelkit, name)(kernel="poly", gamma=0.2, degree=2, coef0=1.0).fit(X, y)
    model.set_params(kernel="rbf", gamma=3.0, degree=3, coef0=0.0)
    outputs = _run(model, X, options={"zipmap": False} if name == "SVC" else {})
    if name == "SVC":
        _agree(outputs[0], model.predict(X))
        _close(outputs[1], model.decision_function(X))
    else:
        _close(outputs[0][:, 0], model.predict(X))


def test_a_decision_of_zero_in_a_file_with_the_other_class_first(tmp_path: Any) -> None:
    """LIBSVM gives a pair's decision of exactly 0 to its second class in the file's order:
    ``-1`` in a file labelled ``1 -1``, ``classes_[0]`` in kernelkit's sorted order."""
    (tmp_path / "model").write_text(
        "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\n"
        "nr_sv 1 1\nSV\n1 1:1\n-1 1:-1\n"
    )
    model = kernelkit.io.load_libsvm_model(tmp_path / "model")
    X = np.array([[0.0], [1.0], [-1.0], [0.0]])
    np.testing.assert_array_equal(model.predict(X), [-1, 1, -1, -1])
    np.testing.assert_array_equal(_run(model, X, options={"zipmap": False})[0], [-1, 1, -1, -1])


def _run_double(model: Any, X: Any, **options: Any) -> list[Any]:
    """As :func:`_run`, with a float64 input."""
    onx = skl2onnx.to_onnx(model, np.asarray(X[:1], dtype=np.float64), **options)
    session = onnxruntime.InferenceSession(
        onx.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    outputs: list[Any] = session.run(None, {session.get_inputs()[0].name: np.asarray(X)})
    return outputs


@pytest.mark.parametrize("name", ["SVC", "SVR", "OneClassSVM"])
def test_rbf_rows_far_from_the_origin(name: str) -> None:
    """predict shifts RBF rows far from the origin for their spread to their mean
    (``_rbf_shift``); the graph did not, and at an offset of 1.7e9 onnxruntime's labels agreed
    with predict on half the rows (SVR: off by 108). The graph now holds the shifted support
    vectors and subtracts the shift from the input in float64; a float32 input, already rounded
    at that scale, warns."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((400, 2)) * 100
    X = Z + 1.7e9
    if name == "SVC":
        model: Any = kernelkit.SVC(gamma=1e-4, C=10).fit(X, (Z[:, 0] * Z[:, 1] > 0).astype(int))
        labels, scores = _run_double(model, X, options={"zipmap": False})
        _agree(labels, model.predict(X))
        _close(scores[:, 1], model.decision_function(X))
    elif name == "SVR":
        model = kernelkit.SVR(gamma=1e-4, C=10).fit(X, np.sin(Z[:, 0] / 50))
        (prediction,) = _run_double(model, X)
        _close(prediction[:, 0], model.predict(X))
    else:
        model = kernelkit.OneClassSVM(gamma=1e-4, nu=0.2).fit(X)
        labels, scores = _run_double(model, X)
        _agree(labels, model.predict(X))
        _close(scores[:, 0], model.decision_function(X))
    with pytest.warns(UserWarning, match="float64 input"):
        skl2onnx.to_onnx(model, X[:1].astype(np.float32))


def test_models_beyond_float32_are_refused() -> None:
    """The operators compute in float32: gamma="scale" on rows of 1e-30 is 3e59; onnxruntime
    gave NaN scores and labels that agreed with predict on 50-65 % of rows. Such a model is
    refused, naming what overflows. (A linear kernel of rows of 1e20, 1e40, was the other case:
    its fit now stops with numerical_error, beyond the float32 kernel columns, and is refused as
    scikit-learn's is, ``test_a_numerical_error_is_refused_as_scikit_learn_does``.)"""
    X = np.random.default_rng(0).standard_normal((200, 3)) * 1e-30
    y = (X[:, 0] > 0).astype(int)
    model = kernelkit.SVC(kernel="rbf").fit(X, y)
    assert np.all(np.isfinite(model.decision_function(X)))  # fine in float64
    with pytest.raises(ValueError, match="float32's range"):
        skl2onnx.to_onnx(model, X[:1].astype(np.float64))


def test_linear_models_with_large_cancelling_coefficients() -> None:
    """An SVR with a linear kernel, C = 1e12 and epsilon = 0 has dual coefficients of ~2e5 that
    cancel; the graph summed their terms in float32 and its predictions (values up to ~11) were
    off by 0.36 (a probe's model, coefficients of 1e8: by 163). A linear model of one decision
    function now has the graph hold w = Σ coef_i sv_i, summed in float64."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 3))
    t = X @ np.array([1.0, 2.0, 3.0]) + 1e-3 * rng.standard_normal(200)
    model = kernelkit.SVR(kernel="linear", C=1e12, epsilon=0.0).fit(X, t)
    assert np.abs(model.dual_coef_).max() > 1e5
    (prediction,) = _run_double(model, X)
    _close(prediction[:, 0], model.predict(X))


@pytest.mark.parametrize("name", ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"])
def test_an_unfitted_model_raises_not_fitted(name: str) -> None:
    """skl2onnx's classifier parser reads ``classes_`` before any converter runs: an unfitted
    SVC raised its "No known ways to retrieve the number of classes"."""
    with pytest.raises(NotFittedError, match=f"This {name} instance is not fitted"):
        skl2onnx.to_onnx(getattr(kernelkit, name)(), np.zeros((1, 3), dtype=np.float32))


EPS32 = float(np.finfo(np.float32).eps)


def _terms(model: Any, X: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The oracle of the float32 error: each decision value ``f = Σ c_i K(sv_i, x) + ρ`` (a
    classifier's pairs, in scikit-learn's ``"ovo"`` order) and the size of its terms,
    ``S = Σ |c_i| |K(sv_i, x)| + |ρ|``, from scikit-learn's kernel and the public attributes."""
    params = model.get_params()
    kernel = pairwise_kernels(
        X,
        model.support_vectors_,
        metric=params["kernel"],
        filter_params=True,
        gamma=params["gamma"],
        degree=params["degree"],
        coef0=params["coef0"],
    )
    coef = np.asarray(model.dual_coef_)
    if getattr(model, "classes_", np.zeros(2)).size > 2:
        # LIBSVM's layout: pair (a, b) weights class a's vectors by row b − 1, b's by row a.
        starts = np.concatenate([[0], np.cumsum(model.n_support_)])
        k = len(model.classes_)
        columns = []
        for a in range(k):
            for b in range(a + 1, k):
                column = np.zeros(coef.shape[1])
                sa, sb = slice(starts[a], starts[a + 1]), slice(starts[b], starts[b + 1])
                column[sa], column[sb] = coef[b - 1, sa], coef[a, sb]
                columns.append(column)
        weights = np.column_stack(columns)
    else:
        weights = coef.T
    intercept = np.asarray(model.intercept_)
    return kernel @ weights + intercept, np.abs(kernel) @ np.abs(weights) + np.abs(intercept)


def _probe_one_class() -> tuple[Any, NDArray[Any]]:
    """A probe's model: dual coefficients at most 1, but poly kernel values whose terms sum to
    2944 where the decision values reach 3.3e-3 (scores off by 3 % in float32)."""
    X, _ = make_classification(200, 6, n_informative=4, n_classes=3, random_state=0)
    return kernelkit.OneClassSVM(kernel="poly", gamma=0.1, nu=0.2).fit(X), X


def _ovo_nusvc(kernel: str, **params: Any) -> tuple[Any, NDArray[Any]]:
    X, y = _classification(3, seed=0)
    model = kernelkit.NuSVC(kernel=kernel, nu=0.5, decision_function_shape="ovo", **params)
    return model.fit(X, y), X


def _rbf_svc() -> tuple[Any, NDArray[Any]]:
    X, y = _classification(2, seed=2)
    return kernelkit.SVC(gamma=0.1, C=3.0).fit(X, y), X


def _poly_svr() -> tuple[Any, NDArray[Any]]:
    X, y = make_regression(400, 6, noise=1.0, random_state=1)
    X = StandardScaler().fit_transform(X)
    return kernelkit.SVR(kernel="poly", C=10.0, gamma=0.2, coef0=1.0, degree=2).fit(X, y), X


# (model, whether its terms cancel beyond 1e-3 of its largest value in float32)
CANCELLING = {
    "probe one-class poly": (_probe_one_class, True),
    # Coefficients of 7.5e3 that cancel: a pair's values reach 7.5, their terms 2.8e7.
    "3-class linear NuSVC": (lambda: _ovo_nusvc("linear"), True),
    "3-class rbf NuSVC": (lambda: _ovo_nusvc("rbf", gamma=0.1), False),
    "rbf SVC": (_rbf_svc, False),
    "poly SVR": (_poly_svr, False),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", list(CANCELLING))
def test_the_float32_error_is_bounded_by_the_terms_that_cancel(case: str, dtype: Any) -> None:
    """The documented bound: onnxruntime's decision values are within 10 ε₃₂ S(x) of the
    model's, S(x) = Σ |c_i| |K(sv_i, x)| + |ρ| (the docs said 1e-5 of the largest value unless
    the coefficients are very large: the probe's one-class model, coefficients at most 1, was
    off by 3 %). The converter warns of the models whose ε₃₂ max S exceeds 1e-3 max |f|, and
    only of them (it warned of none)."""
    build, cancels = CANCELLING[case]
    model, X = build()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        onx = skl2onnx.to_onnx(model, X[:1].astype(dtype), options=_options(model))  # here
    warned = [w for w in caught if "cancel" in str(w.message)]
    assert [w.category for w in warned] == ([UserWarning] if cancels else [])
    # The warning names the to_onnx call, not a line of kernelkit or skl2onnx.
    assert all((w.filename, w.lineno) == (__file__, _line_of("  # here")) for w in warned)
    session = onnxruntime.InferenceSession(
        onx.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    outputs = session.run(None, {session.get_inputs()[0].name: X.astype(dtype)})
    f, S = _terms(model, X)
    if isinstance(model, kernelkit.SVR):
        exported = outputs[0]
    elif isinstance(model, kernelkit.OneClassSVM):
        exported = outputs[1]
    else:
        exported = outputs[1][:, 1:] if len(model.classes_) == 2 else outputs[1]
    assert exported.shape == f.shape
    np.testing.assert_allclose(f[:, 0], _model_values(model, X), rtol=1e-9, atol=1e-12)
    assert np.all(np.abs(exported - f) <= 10 * EPS32 * S)
    # The estimate on the support vectors, checked against the oracle's on the rows.
    assert (EPS32 * S.max(axis=0) / np.abs(f).max(axis=0) > 1e-3).any() == cancels


def _options(model: Any) -> dict[str, Any]:
    return {"zipmap": False} if hasattr(model, "classes_") else {}


def _model_values(model: Any, X: NDArray[Any]) -> NDArray[Any]:
    """The model's own first decision value (the oracle's check)."""
    if isinstance(model, kernelkit.SVR):
        return np.asarray(model.predict(X))
    values = np.asarray(model.decision_function(X))
    return values if values.ndim == 1 else values[:, 0]


def _line_of(marker: str) -> int:
    with open(__file__, encoding="utf-8") as source:
        return next(
            n for n, text in enumerate(source, start=1) if marker in text and "_line_of" not in text
        )
