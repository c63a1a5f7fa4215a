"""The fitted attributes of the five LIBSVM estimators have scikit-learn's types, shapes, dtypes
and writeability, so that code written against scikit-learn's (``offset_[0]``,
``dual_coef_.toarray()`` after a sparse fit, a write to ``coef_`` that scikit-learn refuses)
behaves the same."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.svm
from sklearn.datasets import make_classification

import kernelkit

NAMES = ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"]
ATTRIBUTES = [
    "support_",
    "support_vectors_",
    "dual_coef_",
    "intercept_",
    "n_support_",
    "fit_status_",
    "shape_fit_",
    "offset_",
    "classes_",
    "class_weight_",
    "coef_",
]


def _fit(library: Any, name: str, kernel: str, X: Any, y: Any) -> Any:
    model = getattr(library, name)(kernel=kernel)
    return model.fit(X) if name == "OneClassSVM" else model.fit(X, y)


def _describe(value: Any) -> tuple[Any, ...]:
    if sp.issparse(value):
        return ("sparse", value.shape, value.dtype, value.data.flags.writeable)
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype, value.flags.writeable)
    return (type(value).__name__,)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("name", NAMES)
def test_fitted_attributes_have_scikit_learns_types(name: str, kernel: str, sparse: bool) -> None:
    """Dense and sparse fits: a sparse fit's ``support_vectors_``, ``dual_coef_`` and
    ``coef_`` are sparse matrices, as scikit-learn's (``dual_coef_.toarray()`` works)."""
    X, y = make_classification(120, 4, n_informative=3, n_redundant=0, random_state=0)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    ours = _fit(kernelkit, name, kernel, X, y)
    theirs = _fit(sklearn.svm, name, kernel, X, y)
    for attribute in ATTRIBUTES:
        if not hasattr(theirs, attribute):
            assert not hasattr(ours, attribute), attribute
            continue
        assert _describe(getattr(ours, attribute)) == _describe(getattr(theirs, attribute)), (
            attribute
        )
    ours_coef, their_coef = ours.dual_coef_, theirs.dual_coef_
    if sparse:
        ours_coef, their_coef = ours_coef.toarray(), their_coef.toarray()
    np.testing.assert_allclose(np.abs(ours_coef), np.abs(their_coef), rtol=1e-2, atol=1e-2)
    if kernel == "linear" and not sparse:
        with pytest.raises(ValueError, match="read-only"):
            ours.coef_[0, 0] = 0.0
    if name == "OneClassSVM":
        np.testing.assert_allclose(ours.offset_, theirs.offset_, rtol=1e-6)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("name", ["SVC", "NuSVC"])
def test_multiclass_coef_is_read_only(name: str, sparse: bool) -> None:
    """A multiclass linear ``coef_`` (one row per class pair) was writeable, and a write to it
    was lost at the next access; scikit-learn's is read-only, as kernelkit's binary one."""
    X, y = make_classification(150, 4, n_informative=3, n_redundant=0, n_classes=3, random_state=0)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    ours = _fit(kernelkit, name, "linear", X, y)
    theirs = _fit(sklearn.svm, name, "linear", X, y)
    assert _describe(ours.coef_) == _describe(theirs.coef_)
    with pytest.raises(ValueError, match="read-only"):
        (ours.coef_.data if sparse else ours.coef_)[0] = 0.0


def test_loaded_one_class_offset_is_an_array(tmp_path: Any) -> None:
    """A one-class model read from a LIBSVM file has the same ``offset_`` as the fitted one."""
    X = np.random.default_rng(0).standard_normal((80, 3))
    model = kernelkit.OneClassSVM(nu=0.3).fit(X)
    kernelkit.io.save_libsvm_model(model, tmp_path / "one_class.model")
    loaded = kernelkit.io.load_libsvm_model(tmp_path / "one_class.model")
    assert _describe(loaded.offset_) == _describe(model.offset_)
    np.testing.assert_allclose(loaded.offset_, model.offset_, rtol=1e-12)


def test_a_sparse_models_dual_coef_survives_pickling_and_old_pickles() -> None:
    """The model keeps the coefficients dense (``_dual_coef_``); a pickle made when they were
    kept as ``dual_coef_`` loads with the same values."""
    import pickle

    X, y = make_classification(80, 4, random_state=1)
    model = kernelkit.SVC().fit(sp.csr_matrix(X), y)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.dual_coef_.toarray(), model.dual_coef_.toarray())
    old_state = dict(model.__getstate__())
    old_state["dual_coef_"] = old_state.pop("_dual_coef_")
    old = kernelkit.SVC.__new__(kernelkit.SVC)
    old.__setstate__(old_state)
    np.testing.assert_array_equal(old.decision_function(X), model.decision_function(X))
    assert sp.issparse(old.dual_coef_)
