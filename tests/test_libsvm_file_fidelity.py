"""What a LIBSVM model file keeps of a model (``kernelkit.io``, issue 44): the model as fitted
and as LIBSVM will read it, beyond the plain round trips of ``test_libsvm_files.py``.

Oracles: LIBSVM itself (``libsvm-official``'s C functions, ``kk_libsvm``), which reads the
files kernelkit writes and must predict as the model does; the model itself, which a file
read back must reproduce bit for bit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from kk_libsvm import libsvm_rows, libsvm_values
from libsvm.svmutil import svm_save_model, svm_train
from sklearn.datasets import make_classification, make_regression

import kernelkit
from kernelkit.io import load_libsvm_model, save_libsvm_model

pytestmark = pytest.mark.filterwarnings("ignore:.*probability.*:FutureWarning")


def _header(path: Path, key: str) -> list[str]:
    """The words after ``key`` on its header line (empty when the header has no such line)."""
    for line in path.read_text().splitlines():
        words = line.split()
        if words and words[0] == "SV":
            break
        if words and words[0] == key:
            return words[1:]
    return []


def test_a_sparse_fit_is_read_back_as_wide_as_it_was_fitted(tmp_path: Path) -> None:
    """Its last feature is zero in every support vector, so no line lists it: the file's
    explicit ``6:0`` keeps the width, which LIBSVM reads without harm."""
    X, y = make_classification(300, 6, n_informative=4, random_state=0)
    X[:, -1] = 0.0
    rows = sp.csr_matrix(X)
    model = kernelkit.SVC(gamma=0.2).fit(rows, y)
    save_libsvm_model(model, tmp_path / "model")
    loaded = load_libsvm_model(tmp_path / "model")
    assert loaded.n_features_in_ == 6 and loaded.support_vectors_.shape == (len(model.support_), 6)
    assert sp.issparse(loaded.support_vectors_)
    difference = loaded.support_vectors_ - model.support_vectors_
    assert difference.count_nonzero() == 0
    assert loaded.support_vectors_.nnz == model.support_vectors_.nnz  # the 0 is not stored
    np.testing.assert_array_equal(loaded.decision_function(rows), model.decision_function(rows))
    labels, values = libsvm_values(tmp_path / "model", X)
    np.testing.assert_array_equal(labels, model.predict(X))
    np.testing.assert_allclose(-values[:, 0], model.decision_function(X), rtol=1e-9, atol=1e-12)


def test_a_model_without_support_vectors_predicts_its_constant(tmp_path: Path) -> None:
    """An SVR of constant targets has no support vector, and its file no feature index: the
    loaded model predicts the constant on rows of any width, as LIBSVM does."""
    X, _ = make_regression(60, 4, random_state=0)
    model = kernelkit.SVR().fit(X, np.full(60, 3.0))
    assert model.support_.shape == (0,)
    save_libsvm_model(model, tmp_path / "model")
    loaded = load_libsvm_model(tmp_path / "model")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.predict(np.ones((3, 9))), np.full(3, 3.0))
    labels, _ = libsvm_values(tmp_path / "model", X)
    np.testing.assert_array_equal(labels, model.predict(X))
    assert load_libsvm_model(tmp_path / "model", n_features=4).n_features_in_ == 4


def test_the_file_holds_the_kernel_the_model_was_fitted_with(tmp_path: Path) -> None:
    """``predict`` uses the fitted kernel whatever ``set_params`` changed since, and so must
    the file: LIBSVM then predicts as the model does."""
    X, y = make_classification(300, 5, random_state=1)
    model = kernelkit.SVC(kernel="poly", gamma=0.2, degree=2, coef0=1.0).fit(X, y)
    expected = model.decision_function(X)
    model.set_params(kernel="sigmoid", gamma=5.0, degree=3, coef0=0.0)
    save_libsvm_model(model, tmp_path / "model")
    assert _header(tmp_path / "model", "kernel_type") == ["polynomial"]
    assert _header(tmp_path / "model", "degree") == ["2"]
    labels, values = libsvm_values(tmp_path / "model", X)
    np.testing.assert_array_equal(labels, model.predict(X))
    np.testing.assert_allclose(-values[:, 0], expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(
        load_libsvm_model(tmp_path / "model").decision_function(X), expected
    )


def test_labels_and_a_degree_beyond_a_c_int_are_refused(tmp_path: Path) -> None:
    """LIBSVM reads labels and the degree into a C ``int``: 2**31 would come back as
    −2**31, 2**40 as 0. The extremes that fit are written and read back by LIBSVM."""
    X, y = make_classification(200, 4, random_state=2)
    for labels, fits in (
        ([0, 2**31], False),
        ([-(2**31) - 1, 0], False),
        ([-(2**31), 2**31 - 1], True),
    ):
        model = kernelkit.SVC().fit(X, np.asarray(labels)[y])
        if fits:
            save_libsvm_model(model, tmp_path / "model")
            read, _ = libsvm_values(tmp_path / "model", X)
            np.testing.assert_array_equal(read, model.predict(X))
        else:
            with pytest.raises(ValueError, match="beyond LIBSVM's C int"):
                save_libsvm_model(model, tmp_path / "model")
    (tmp_path / "deep").write_text(
        "svm_type c_svc\nkernel_type polynomial\ndegree 2147483648\ngamma 1\ncoef0 0\n"
        "nr_class 2\ntotal_sv 2\nrho 0\nlabel 1 2\nnr_sv 1 1\nSV\n1 1:1\n-1 1:-1\n"
    )
    with pytest.raises(ValueError, match="degree=2147483648 exceeds 2147483647"):
        save_libsvm_model(load_libsvm_model(tmp_path / "deep"), tmp_path / "model")


def _libsvm_model_with_unsorted_labels(tmp_path: Path, options: str) -> tuple[Path, Any]:
    """A LIBSVM model of four classes whose labels come in the order 40, 7, -2, 3 (svm-train
    lists them by first appearance) and the rows it predicts."""
    X, y = make_classification(
        400, 6, n_informative=4, n_classes=4, flip_y=0.1, class_sep=0.6, random_state=4
    )
    labels = np.asarray([7, -2, 40, 3])[y]
    first = [int(np.flatnonzero(labels == c)[0]) for c in (40, 7, -2, 3)]
    order = np.r_[first, np.setdiff1d(np.arange(len(X)), first)]
    trained = svm_train(labels[order].astype(float).tolist(), libsvm_rows(X[order]), options)
    svm_save_model(str(tmp_path / "libsvm"), trained)
    return tmp_path / "libsvm", X


@pytest.mark.parametrize("probability", [False, True])
def test_a_loaded_model_is_saved_in_the_files_class_order(
    probability: bool, tmp_path: Path
) -> None:
    """The order decides the vote's ties and the coupling: saved again in sorted order, the
    model would predict otherwise (1.3 % of the rows of a 5-class model before)."""
    original, X = _libsvm_model_with_unsorted_labels(
        tmp_path, "-q -g 0.5 -c 3" + (" -b 1" if probability else "")
    )
    loaded = load_libsvm_model(original)
    save_libsvm_model(loaded, tmp_path / "again")
    assert (
        _header(tmp_path / "again", "label") == _header(original, "label") == ["40", "7", "-2", "3"]
    )
    assert _header(tmp_path / "again", "nr_sv") == _header(original, "nr_sv")
    reloaded = load_libsvm_model(tmp_path / "again")
    for method in ("predict", "decision_function") + (("predict_proba",) if probability else ()):
        np.testing.assert_array_equal(getattr(reloaded, method)(X), getattr(loaded, method)(X))
    for with_probability in (False, True) if probability else (False,):
        labels, values = libsvm_values(original, X, with_probability)
        again_labels, again_values = libsvm_values(tmp_path / "again", X, with_probability)
        np.testing.assert_array_equal(again_labels, labels)
        np.testing.assert_array_equal(again_values, values)
    np.testing.assert_array_equal(reloaded.predict(X), libsvm_values(original, X)[0])


BINARY_WITH_A_ZERO = """svm_type c_svc
kernel_type linear
nr_class 2
total_sv 2
rho 0
label {labels}
nr_sv 1 1
SV
1 1:1
-1 1:-1
"""

CYCLE_OF_ZEROS = """svm_type c_svc
kernel_type linear
nr_class 3
total_sv 4
rho 0 0 0
label {labels}
nr_sv 2 1 1
SV
1 0 1:1
0 1 2:1
0 1 3:1
0 0 1:1
"""


@pytest.mark.parametrize(
    ("text", "labels", "width"),
    [
        (BINARY_WITH_A_ZERO, "1 -1", 1),
        (BINARY_WITH_A_ZERO, "-1 1", 1),
        (CYCLE_OF_ZEROS, "3 1 2", 3),
        (CYCLE_OF_ZEROS, "2 3 1", 3),
        (CYCLE_OF_ZEROS, "1 2 3", 3),
    ],
)
def test_a_decision_of_exactly_zero_votes_as_libsvm(
    text: str, labels: str, width: int, tmp_path: Path
) -> None:
    """LIBSVM votes for a pair's first class (in the file's order) where its decision is > 0,
    so a decision of exactly 0 goes to the second: in kernelkit's sorted orientation, to the
    first where the file has the pair the other way round."""
    (tmp_path / "model").write_text(text.format(labels=labels))
    model = load_libsvm_model(tmp_path / "model")
    X = np.vstack(
        [np.zeros((1, width)), np.eye(width), -np.eye(width), [np.r_[1.0, [0] * (width - 1)]]]
    )
    assert (model.set_params(decision_function_shape="ovo").decision_function(X) == 0).any()
    libsvm_labels, _ = libsvm_values(tmp_path / "model", X)
    np.testing.assert_array_equal(model.predict(X), libsvm_labels)


@pytest.mark.parametrize("options", ["-s 3 -b 1 -g 0.3", "-s 4 -b 1 -n 0.4", "-s 2 -b 1 -n 0.3"])
def test_the_lines_kernelkit_does_not_use_are_kept(options: str, tmp_path: Path) -> None:
    """A regression's ``probA`` and a one-class model's ``prob_density_marks`` (LIBSVM's
    probability estimates of those types) are written back as read, and dropped by a refit."""
    X, y = make_regression(120, 4, noise=1.0, random_state=3)
    trained = svm_train((y / y.std()).tolist(), libsvm_rows(X), options + " -q")
    svm_save_model(str(tmp_path / "libsvm"), trained)
    key = "prob_density_marks" if "-s 2" in options else "probA"
    written = [float(v) for v in _header(tmp_path / "libsvm", key)]
    assert len(written) == (10 if key == "prob_density_marks" else 1)
    loaded = load_libsvm_model(tmp_path / "libsvm")
    save_libsvm_model(loaded, tmp_path / "again")
    assert [float(v) for v in _header(tmp_path / "again", key)] == written
    loaded.fit(X) if "-s 2" in options else loaded.fit(X, y / y.std())
    save_libsvm_model(loaded, tmp_path / "refitted")
    assert _header(tmp_path / "refitted", key) == []
