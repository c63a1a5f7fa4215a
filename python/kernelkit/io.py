"""LIBSVM model files: :func:`save_libsvm_model` and :func:`load_libsvm_model`.

The format is the one LIBSVM's ``svm-train`` writes and ``svm-predict`` reads (Chang & Lin,
"LIBSVM: a library for support vector machines", 2011; ``svm_save_model`` in ``svm.cpp``), and
that LIBSVM's bindings, ThunderSVM and others read too. A header of ``key value…`` lines, then
``SV`` and one line per support vector::

    svm_type c_svc                 (nu_svc, one_class, epsilon_svr, nu_svr)
    kernel_type rbf                (linear, polynomial, rbf, sigmoid, precomputed)
    degree 3                       (polynomial only)
    gamma 0.5                      (polynomial, rbf, sigmoid)
    coef0 0                        (polynomial, sigmoid)
    nr_class 3                     (2 for the one-class and regression types)
    total_sv 120
    rho 0.1 -0.3 0.2               (one per pair of classes; one value otherwise)
    label 1 2 3                    (classification: the labels, in the model's class order)
    probA -1.9 -2.1 -1.7           (with probability estimates: one per pair)
    probB 0.01 -0.2 0.1
    nr_sv 40 50 30                 (classification: support vectors per class, in that order)
    SV
    c_1 … c_{k−1} index:value index:value …

Each support vector line holds its ``k − 1`` coefficients (one for the other formulations) and
its non-zero features, indices from 1 in increasing order; with a precomputed kernel the only
feature is ``0:s``, the support vector's row in the training set counted from 1. The decision
value of the pair (i, j) of the model's class order is ``Σ c K(sv, x) − ρ``, positive for
class i, where class i's support vectors carry their coefficient in column ``j − 1`` and class
j's in column ``i`` (LIBSVM's layout, which kernelkit's classifiers keep).

Writing: a fitted model's classes are written in sorted order (kernelkit's), a model read
from a LIBSVM file in that file's order; the kernel is the one the model was fitted with (as
``predict`` uses it, whatever ``set_params`` changed since). Every number is written with the
shortest representation that reads back exactly (LIBSVM itself prints feature values with 8
significant digits). The support vectors of a model fitted on dense rows list every feature,
zeros too; those of a sparse fit, like LIBSVM's, list the non-zeros, and where no support vector
has a non-zero last feature, the first line ends with an explicit ``width:0`` (which LIBSVM reads
and which adds nothing to a kernel), so that the model is read back as wide as it was fitted. The
reader makes dense vectors of lines that list every feature and CSR vectors otherwise
(``sparse=`` decides instead), so kernelkit → file → kernelkit gives the same model, predicting
bit for bit (a sparse fit is read back with ``sparse=True``; its vectors store no zero). Labels
and the degree are written only where LIBSVM reads them back, in a C ``int``.

Reading: the file is text in UTF-8 (LIBSVM writes ASCII), its lines ending with ``\\n`` or
``\\r\\n``; a carriage return that ends no such line (a lone ``\\r``, the old Mac OS line end)
is refused with its line: LIBSVM's reader does not take it for a line end and misreads the file
(libsvm-official 3.37's ``svm_load_model`` read the header, then no usable support vector: its
model predicted −ρ on every row), so convert the line endings. The labels may come in any order
(``svm-train`` orders them by first appearance). The classes are sorted, and each pair whose
classes swap places changes sign: its coefficients and ``ρ``, and the ``B`` of its sigmoid
(``1/(1 + exp(A f + B))`` at −f is ``1/(1 + exp(A f − B))``). A tie of the one-vote-per-pair
vote still goes to the class that comes first in the file, a pair's decision of exactly 0 to the
pair's second class in the file's order, and the pairwise coupling of the probabilities visits
the classes in that order, as LIBSVM does (and as a model saved again is written). A model file
records neither C, ν, ε nor the training set's size: the loaded estimator has the default
hyper-parameters, ``n_features_in_`` is the largest feature index (or ``n_features``, when
given; a file without support vectors has no index, and its model predicts its constant on rows
of any width), and ``support_`` counts the support vectors (for a precomputed kernel, their
training rows; the kernel matrix given to predict then needs ``n_features`` columns, default the
largest training row referred to). A regression's ``probA`` (LIBSVM's Laplace scale of its
errors) and a one-class model's ``prob_density_marks`` are checked and kept for
:func:`save_libsvm_model`, not used.

The reader checks everything it reads and rejects a malformed file with
:class:`LibsvmModelError` (a ``ValueError``) naming the line and what is wrong: unknown or
repeated keys, missing ones, a classifier's keys in another model's header, counts that
disagree, non-finite or unparsable numbers (numbers as LIBSVM's C reader takes them: ASCII
digits, sign, point and exponent; words separated by spaces and tabs), feature
indices out of order or beyond 2³¹ − 1, labels beyond int64, a ``degree`` beyond 2³² − 1, fewer or
more support vector lines than announced (blank lines at the end of the file are none, as for
LIBSVM's reader, which stops after ``total_sv`` lines).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils.validation import check_is_fitted

from ._class_order import reorder_classes
from ._libsvm_reader import ESTIMATOR_OF_TYPE, KERNEL_OF_NAME, parse_model
from .exceptions import InvalidParameterError, LibsvmModelError
from .nu_svc import NuSVC
from .nu_svr import NuSVR
from .one_class import OneClassSVM
from .svc import SVC
from .svr import SVR

#: The widest model a LIBSVM file can describe (its feature indices are C ints).
MAX_FEATURES = 2**31 - 1

__all__ = ["LibsvmModelError", "load_libsvm_model", "save_libsvm_model"]

_TYPES = {estimator: name for name, estimator in ESTIMATOR_OF_TYPE.items()}
_KERNELS = {kernel: name for name, kernel in KERNEL_OF_NAME.items()}
#: The largest ``int`` of C: LIBSVM reads labels and the degree into one.
_C_INT_MAX = 2**31 - 1

# -- writing -------------------------------------------------------------------------------


def _number(value: float) -> str:
    """The shortest text that reads back as ``value`` exactly."""
    return repr(float(value))


def save_libsvm_model(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted SVC, NuSVC, SVR, NuSVR or OneClassSVM as a LIBSVM model file.

    Parameters
    ----------
    estimator : SVC, NuSVC, SVR, NuSVR or OneClassSVM
        A fitted estimator with the kernel ``"linear"``, ``"poly"``, ``"rbf"``, ``"sigmoid"``
        or ``"precomputed"``; classifiers need integer class labels that fit LIBSVM's C
        ``int``. The file holds the model as fitted (its kernel's parameters, not ones set
        since), as :meth:`predict` uses it.
    path : str or path-like
        The file to write.

    Raises
    ------
    ValueError
        For another estimator, a callable kernel, labels that are not integers or a label or
        ``degree`` beyond LIBSVM's C ``int`` (−2³¹ … 2³¹ − 1), which LIBSVM would read as
        another number.
    """
    kind = _TYPES.get(type(estimator))
    if kind is None:
        raise ValueError(
            "LIBSVM model files hold kernelkit's SVC, NuSVC, SVR, NuSVR and OneClassSVM "
            f"models, got {type(estimator).__module__}.{type(estimator).__qualname__}"
        )
    check_is_fitted(estimator, "support_")
    kernel_kind, gamma, degree, coef0 = estimator._kernel_params
    if kernel_kind not in _KERNELS:
        raise ValueError("a callable kernel cannot be written to a LIBSVM model file")
    kernel = _KERNELS[kernel_kind]
    if kernel == "polynomial" and degree > _C_INT_MAX:
        raise ValueError(
            f"degree={degree} exceeds {_C_INT_MAX}, the largest degree a LIBSVM model file "
            "holds (LIBSVM reads it into a C int)"
        )
    classifier = kind in ("c_svc", "nu_svc")
    rows = np.arange(estimator.support_.shape[0])
    if classifier:
        labels = _integer_labels(estimator.classes_)
        # A model loaded from a LIBSVM file is written in the file's order of its classes,
        # which decides the vote's ties (kernelkit.io's module doc); a fitted one, sorted.
        visit = getattr(estimator, "_vote_order", None)
        visit = np.arange(len(labels)) if visit is None else np.asarray(visit)
        layout = reorder_classes(
            visit,
            estimator.n_support_,
            np.asarray(estimator._dual_coef_libsvm, dtype=np.float64),
            np.asarray(estimator._intercept_libsvm, dtype=np.float64),
            np.asarray(estimator._probA, dtype=np.float64),
            np.asarray(estimator._probB, dtype=np.float64),
        )
        labels = [labels[c] for c in visit]
        coef, rho, rows = layout.coef, -layout.constant, layout.rows
    else:
        coef = np.asarray(estimator._dual_coef_, dtype=np.float64)
        rho = -np.asarray(estimator.intercept_, dtype=np.float64)
    n_classes = len(labels) if classifier else 2
    lines = [f"svm_type {kind}", f"kernel_type {kernel}"]
    if kernel == "polynomial":
        lines.append(f"degree {int(degree)}")
    if kernel in ("polynomial", "rbf", "sigmoid"):
        lines.append(f"gamma {_number(gamma)}")
    if kernel in ("polynomial", "sigmoid"):
        lines.append(f"coef0 {_number(coef0)}")
    lines += [
        f"nr_class {n_classes}",
        f"total_sv {coef.shape[1]}",
        "rho " + " ".join(_number(r) for r in rho),
    ]
    if classifier:
        lines.append("label " + " ".join(str(label) for label in labels))
        if layout.prob_a.size:
            lines.append("probA " + " ".join(_number(a) for a in layout.prob_a))
            lines.append("probB " + " ".join(_number(b) for b in layout.prob_b))
        lines.append("nr_sv " + " ".join(str(int(n)) for n in layout.n_support))
    else:
        # The lines a model loaded from a LIBSVM file carried and kernelkit does not use.
        for key, values in getattr(estimator, "_libsvm_extras", {}).items():
            lines.append(f"{key} " + " ".join(_number(v) for v in values))
    lines.append("SV")
    for t, features in enumerate(_feature_texts(estimator, kernel, rows)):
        lines.append(" ".join([*(_number(c) for c in coef[:, t]), features]).rstrip())
    with open(path, "w", encoding="ascii", newline="\n") as out:
        out.write("\n".join(lines) + "\n")


def _integer_labels(classes: NDArray[Any]) -> list[int]:
    labels = []
    for label in classes:
        value = label.item() if isinstance(label, np.generic) else label
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"LIBSVM model files hold integer class labels, got {value!r}")
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(f"LIBSVM model files hold integer class labels, got {value!r}")
        if not -_C_INT_MAX - 1 <= value <= _C_INT_MAX:
            raise ValueError(
                f"the label {value!r} is beyond LIBSVM's C int (-2**31 … 2**31 - 1): LIBSVM "
                "would read it as another number"
            )
        labels.append(int(value))
    return labels


def _feature_texts(estimator: Any, kernel: str, rows: NDArray[np.intp]) -> Iterator[str]:
    """The ``index:value`` part of the line of each support vector, in the order ``rows``."""
    if kernel == "precomputed":
        for row in np.asarray(estimator.support_)[rows]:
            yield f"0:{int(row) + 1}"
        return
    vectors = estimator.support_vectors_
    if not sp.issparse(vectors):
        # Dense vectors with every feature, zeros too: read back as dense (see the module doc).
        for row in np.asarray(vectors)[rows]:
            yield " ".join(f"{j + 1}:{_number(v)}" for j, v in enumerate(row))
        return
    # LIBSVM's sparse dot product needs increasing indices, and so does the reader: a CSR
    # matrix with unsorted or repeated indices (a column selection `X[:, order]` has them) is
    # canonicalised on a copy.
    vectors = sp.csr_matrix(vectors, copy=True)
    vectors.sum_duplicates()
    width = vectors.shape[1]
    # The file records no width: where no support vector has a non-zero last feature, the
    # first line ends with an explicit "width:0" (LIBSVM's reader takes it, and it adds
    # nothing to a kernel), so that the model is read back as wide as it was fitted.
    marked = width == 0 or vectors[:, width - 1].count_nonzero() > 0
    for t in rows:
        start, stop = vectors.indptr[t], vectors.indptr[t + 1]
        words = [
            f"{int(j) + 1}:{_number(v)}"
            for j, v in zip(vectors.indices[start:stop], vectors.data[start:stop], strict=True)
            if v != 0
        ]
        if not marked:
            words.append(f"{width}:0")
            marked = True
        yield " ".join(words)


# -- reading -------------------------------------------------------------------------------


def load_libsvm_model(
    path: str | os.PathLike[str], *, n_features: int | None = None, sparse: bool | None = None
) -> SVC | NuSVC | SVR | NuSVR | OneClassSVM:
    """Read a LIBSVM model file into the matching fitted kernelkit estimator.

    Parameters
    ----------
    path : str or path-like
        A model file written by LIBSVM's ``svm-train`` / ``svm_save_model``, by
        :func:`save_libsvm_model` or by another tool that writes the format.
    n_features : int or None, default=None
        The number of features (for a precomputed kernel, of training rows) the model
        predicts on; None takes the largest feature index (training row) in the file.
    sparse : bool or None, default=None
        Whether ``support_vectors_`` is a CSR matrix (as after a fit on sparse rows) or a
        dense array; None makes them dense when every line lists every feature (as
        :func:`save_libsvm_model` writes a model fitted on dense rows), else CSR.

    Returns
    -------
    SVC, NuSVC, SVR, NuSVR or OneClassSVM
        The fitted estimator (``svm_type`` c_svc, nu_svc, epsilon_svr, nu_svr, one_class),
        predicting as the file's model does; its hyper-parameters other than the kernel's are
        the defaults (the file does not record them).

    Raises
    ------
    LibsvmModelError
        When the file is malformed (the message names the line), or ``n_features`` is smaller
        than an index in the file.
    """
    if n_features is not None and (
        isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral)
    ):
        raise InvalidParameterError(
            f"n_features must be an int or None, got {type(n_features).__name__}"
        )
    if n_features is not None and not 1 <= n_features <= MAX_FEATURES:
        raise ValueError(f"n_features must be between 1 and {MAX_FEATURES}, got {n_features}")
    if sparse is not None and not isinstance(sparse, (bool, np.bool_)):
        raise InvalidParameterError(f"sparse must be a bool or None, got {type(sparse).__name__}")
    name = os.fspath(path)
    # Bytes, decoded here: a text-mode read would take a lone "\r" for the end of a line (the
    # reader refuses it, as LIBSVM misreads such a file), and its decoding error gave the
    # byte's position in the file but not its line.
    with open(path, "rb") as source:
        data = source.read()
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise LibsvmModelError(
            f"{name}, line {line}: not a text file: byte 0x{data[error.start]:02x} (byte "
            f"{error.start} of the file) is not UTF-8 ({error.reason})"
        ) from None
    return parse_model(text, name, n_features, sparse)
