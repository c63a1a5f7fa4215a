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

Writing: kernelkit's classes are in sorted order, and every number is written with the
shortest representation that reads back exactly (LIBSVM itself prints feature values with 8
significant digits). The support vectors of a model fitted on dense rows list every feature,
zeros too; those of a sparse fit, like LIBSVM's, list the non-zeros. The reader makes dense
vectors of lines that list every feature and CSR vectors otherwise (``sparse=`` decides
instead), so kernelkit → file → kernelkit gives the same model, predicting bit for bit (a sparse
fit whose vectors hold no zero is read back with ``sparse=True``).

Reading: the labels may come in any order (``svm-train`` orders them by first appearance). The
classes are sorted, and each pair whose classes swap places changes sign: its coefficients and
``ρ``, and the ``B`` of its sigmoid (``1/(1 + exp(A f + B))`` at −f is
``1/(1 + exp(A f − B))``). A tie of the one-vote-per-pair vote still goes to the class that
comes first in the file, and the pairwise coupling of the probabilities visits the classes in
that order, as LIBSVM does (a model loaded so and saved again is written in sorted order, and
then follows it). A model file records neither C, ν, ε nor the training set's size: the loaded
estimator has the default hyper-parameters, ``n_features_in_`` is the largest feature index (or
``n_features``, when given), and ``support_`` counts the support vectors (for a precomputed
kernel, their training rows; the kernel matrix given to predict then needs ``n_features``
columns, default the largest training row referred to).

The reader checks everything it reads and rejects a malformed file with
:class:`LibsvmModelError` (a ``ValueError``) naming the line and what is wrong: unknown or
repeated keys, missing ones, counts that disagree, non-finite or unparsable numbers, feature
indices out of order or beyond 2³¹ − 1, labels beyond int64, a ``degree`` beyond 2³² − 1, fewer or
more support vector lines than announced (blank lines at the end of the file are none, as for
LIBSVM's reader, which stops after ``total_sv`` lines).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils.validation import check_is_fitted

from ._base import MAX_DEGREE
from ._class_order import reorder_classes
from .nu_svc import NuSVC
from .nu_svr import NuSVR
from .one_class import OneClassSVM
from .svc import SVC
from .svr import SVR

__all__ = ["LibsvmModelError", "load_libsvm_model", "save_libsvm_model"]

_TYPES: dict[type, str] = {
    SVC: "c_svc",
    NuSVC: "nu_svc",
    OneClassSVM: "one_class",
    SVR: "epsilon_svr",
    NuSVR: "nu_svr",
}
_ESTIMATORS: dict[str, type[SVC | NuSVC | SVR | NuSVR | OneClassSVM]] = {
    name: cls for cls, name in _TYPES.items()
}
_KERNELS = {
    "linear": "linear",
    "poly": "polynomial",
    "rbf": "rbf",
    "sigmoid": "sigmoid",
    "precomputed": "precomputed",
}
_KERNEL_OF_FILE = {name: kernel for kernel, name in _KERNELS.items()}
_MAX_INDEX = 2**31 - 1
_HEADER_KEYS = (
    "svm_type",
    "kernel_type",
    "degree",
    "gamma",
    "coef0",
    "nr_class",
    "total_sv",
    "rho",
    "label",
    "probA",
    "probB",
    "nr_sv",
    "prob_density_marks",
)

Float64Array = NDArray[np.float64]


class LibsvmModelError(ValueError):
    """A LIBSVM model file that cannot be read: the message names the line and the problem."""


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
        or ``"precomputed"``; classifiers need integer class labels (LIBSVM's).
    path : str or path-like
        The file to write.

    Raises
    ------
    ValueError
        For another estimator, a callable kernel or labels that are not integers.
    """
    kind = _TYPES.get(type(estimator))
    if kind is None:
        raise ValueError(
            "LIBSVM model files hold SVC, NuSVC, SVR, NuSVR and OneClassSVM models, got "
            f"{type(estimator).__name__}"
        )
    check_is_fitted(estimator, "support_")
    if callable(estimator.kernel):
        raise ValueError("a callable kernel cannot be written to a LIBSVM model file")
    kernel = _KERNELS[estimator.kernel]
    classifier = kind in ("c_svc", "nu_svc")
    if classifier:
        labels = _integer_labels(estimator.classes_)
        coef = np.asarray(estimator._dual_coef_libsvm, dtype=np.float64)
        rho = -np.asarray(estimator._intercept_libsvm, dtype=np.float64)
    else:
        coef = np.asarray(estimator.dual_coef_, dtype=np.float64)
        rho = -np.asarray(estimator.intercept_, dtype=np.float64)
    n_classes = len(labels) if classifier else 2
    lines = [f"svm_type {kind}", f"kernel_type {kernel}"]
    gamma, coef0, degree = float(estimator._gamma), float(estimator.coef0), int(estimator.degree)
    if kernel == "polynomial":
        lines.append(f"degree {degree}")
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
        if estimator._probA.size:
            lines.append("probA " + " ".join(_number(a) for a in estimator._probA))
            lines.append("probB " + " ".join(_number(b) for b in estimator._probB))
        lines.append("nr_sv " + " ".join(str(int(n)) for n in estimator.n_support_))
    lines.append("SV")
    for t, features in enumerate(_feature_texts(estimator, kernel)):
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
        labels.append(int(value))
    return labels


def _feature_texts(estimator: Any, kernel: str) -> Iterator[str]:
    """The ``index:value`` part of each support vector's line."""
    if kernel == "precomputed":
        for row in np.asarray(estimator.support_):
            yield f"0:{int(row) + 1}"
        return
    vectors = estimator.support_vectors_
    if not sp.issparse(vectors):
        # Dense vectors with every feature, zeros too: read back as dense (see the module doc).
        for row in np.asarray(vectors):
            yield " ".join(f"{j + 1}:{_number(v)}" for j, v in enumerate(row))
        return
    vectors = sp.csr_matrix(vectors)
    for t in range(vectors.shape[0]):
        start, stop = vectors.indptr[t], vectors.indptr[t + 1]
        yield " ".join(
            f"{int(j) + 1}:{_number(v)}"
            for j, v in zip(vectors.indices[start:stop], vectors.data[start:stop], strict=True)
            if v != 0
        )


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
    with open(path, encoding="utf-8", errors="strict") as source:
        try:
            text = source.read()
        except UnicodeDecodeError as error:
            raise LibsvmModelError(f"{os.fspath(path)}: not a text file ({error})") from None
    return _parse(text, os.fspath(path), n_features, sparse)


#: The largest integer a header may hold: labels are int64 (``classes_``), the others less.
_INT64_MAX = 2**63 - 1


class _Reader:
    """Lines of a model file with their numbers, and errors that name them."""

    def __init__(self, text: str, name: str) -> None:
        self.lines = text.splitlines()
        # Blank lines at the end are no support vectors (LIBSVM reads total_sv lines and
        # stops); a blank line anywhere else is still an error.
        while self.lines and not self.lines[-1].strip():
            self.lines.pop()
        self.name = name
        self.number = 0

    def error(self, what: str, number: int | None = None) -> LibsvmModelError:
        line = self.number if number is None else number
        return LibsvmModelError(f"{self.name}, line {line}: {what}")

    def integer(self, word: str, what: str, minimum: int, maximum: int = _INT64_MAX) -> int:
        try:
            value = int(word)
        except ValueError:
            raise self.error(f"{what} must be an integer, got {word!r}") from None
        if value < minimum:
            raise self.error(f"{what} must be at least {minimum}, got {value}")
        if value > maximum:
            raise self.error(f"{what} must be at most {maximum}, got {value}")
        return value

    def real(self, word: str, what: str) -> float:
        try:
            value = float(word)
        except ValueError:
            raise self.error(f"{what} must be a number, got {word!r}") from None
        if not math.isfinite(value):
            raise self.error(f"{what} must be finite, got {word!r}")
        return value


def _parse(
    text: str, name: str, n_features: int | None, sparse: bool | None
) -> SVC | NuSVC | SVR | NuSVR | OneClassSVM:
    reader = _Reader(text, name)
    header: dict[str, list[str]] = {}
    seen_at: dict[str, int] = {}
    for number, line in enumerate(reader.lines, start=1):
        reader.number = number
        words = line.split()
        if not words:
            raise reader.error("empty line in the header")
        key = words[0]
        if key == "SV":
            if len(words) != 1:
                raise reader.error("the line 'SV' must hold nothing else")
            break
        if key not in _HEADER_KEYS:
            raise reader.error(f"unknown header key {key!r}")
        if key in header:
            raise reader.error(f"{key!r} repeated (first on line {seen_at[key]})")
        header[key], seen_at[key] = words[1:], number
    else:
        reader.number = len(reader.lines)
        raise reader.error("the line 'SV' that starts the support vectors is missing")
    sv_start = reader.number

    def single(key: str) -> str:
        if key not in header:
            raise reader.error(f"the header lacks {key!r}", sv_start)
        values = header[key]
        if len(values) != 1:
            raise reader.error(f"{key!r} takes one value, got {len(values)}", seen_at[key])
        return values[0]

    def at(key: str) -> _Reader:
        """The reader at ``key``'s line (at the 'SV' line when the key is missing, which
        :func:`single` then reports)."""
        reader.number = seen_at.get(key, sv_start)
        return reader

    svm_type = single("svm_type")
    if svm_type not in _ESTIMATORS:
        raise reader.error(f"unknown svm_type {svm_type!r}", seen_at["svm_type"])
    kernel_name = single("kernel_type")
    if kernel_name not in _KERNEL_OF_FILE:
        raise reader.error(f"unknown kernel_type {kernel_name!r}", seen_at["kernel_type"])
    kernel = _KERNEL_OF_FILE[kernel_name]
    degree = (
        at("degree").integer(single("degree"), "degree", 0, MAX_DEGREE) if "degree" in header else 3
    )
    gamma = at("gamma").real(single("gamma"), "gamma") if "gamma" in header else 0.0
    coef0 = at("coef0").real(single("coef0"), "coef0") if "coef0" in header else 0.0
    if kernel in ("poly", "rbf", "sigmoid") and gamma <= 0:
        where = seen_at.get("gamma", seen_at["kernel_type"])
        raise reader.error(f"the {kernel_name} kernel needs a gamma > 0, got {gamma!r}", where)
    classifier = svm_type in ("c_svc", "nu_svc")
    n_classes = at("nr_class").integer(single("nr_class"), "nr_class", 2)
    if not classifier and n_classes != 2:
        raise reader.error(
            f"nr_class of {svm_type} must be 2, got {n_classes}", seen_at["nr_class"]
        )
    total = at("total_sv").integer(single("total_sv"), "total_sv", 0)
    remaining = len(reader.lines) - sv_start
    if total != remaining:
        raise reader.error(
            f"total_sv is {total} but {remaining} support vector lines follow 'SV'",
            seen_at["total_sv"],
        )
    n_pairs = n_classes * (n_classes - 1) // 2 if classifier else 1

    def reals(key: str, count: int) -> Float64Array:
        if key not in header:
            raise reader.error(f"the header lacks {key!r}", sv_start)
        words = header[key]
        if len(words) != count:
            raise reader.error(f"{key!r} takes {count} values, got {len(words)}", seen_at[key])
        return np.array([at(key).real(w, key) for w in words], dtype=np.float64)

    rho = reals("rho", n_pairs)
    labels: list[int] = []
    prob_a = prob_b = np.empty(0)
    n_support = np.array([total])
    if classifier:
        if "label" not in header or "nr_sv" not in header:
            raise reader.error("a classifier's header needs 'label' and 'nr_sv'", sv_start)
        if len(header["label"]) != n_classes:
            raise reader.error(
                f"'label' takes {n_classes} values, got {len(header['label'])}",
                seen_at["label"],
            )
        labels = [at("label").integer(w, "a label", -_INT64_MAX - 1) for w in header["label"]]
        if len(set(labels)) != n_classes:
            raise reader.error("the labels are not distinct", seen_at["label"])
        if len(header["nr_sv"]) != n_classes:
            raise reader.error(
                f"'nr_sv' takes {n_classes} values, got {len(header['nr_sv'])}",
                seen_at["nr_sv"],
            )
        n_support = np.array([at("nr_sv").integer(w, "nr_sv", 0) for w in header["nr_sv"]])
        if int(n_support.sum()) != total:
            raise reader.error(
                f"nr_sv sums to {int(n_support.sum())}, not total_sv = {total}", seen_at["nr_sv"]
            )
        if ("probA" in header) != ("probB" in header):
            where = seen_at.get("probA", seen_at.get("probB", sv_start))
            raise reader.error("'probA' and 'probB' come together", where)
        if "probA" in header:
            prob_a, prob_b = reals("probA", n_pairs), reals("probB", n_pairs)
    n_coef = n_classes - 1 if classifier else 1
    coef, indptr, indices, values = _support_vectors(reader, sv_start, total, n_coef, kernel)
    largest = int(indices.max()) if len(indices) else 0
    width = max(largest, 1) if n_features is None else int(n_features)
    if width < max(largest, 1):
        raise LibsvmModelError(
            f"{name}: n_features must be at least {max(largest, 1)} (the largest index in the "
            f"file), got {width}"
        )
    # gamma only matters to the kernels that have it (and is then > 0, checked above).
    estimator: SVC | NuSVC | SVR | NuSVR | OneClassSVM = _ESTIMATORS[svm_type](
        kernel=kernel, gamma=gamma if gamma > 0 else "scale", degree=degree, coef0=coef0
    )
    estimator._store_kernel((kernel, gamma if gamma > 0 else 1.0, degree, coef0))
    estimator.n_features_in_ = width
    estimator.shape_fit_ = (width if kernel == "precomputed" else total, width)
    if kernel == "precomputed":
        # A training row per support vector, counted from 1.
        rows = indices.astype(np.int64) - 1
        support_rows, vectors = rows, np.empty((0, 0))
    else:
        support_rows = np.arange(total)
        vectors = sp.csr_matrix(
            (values, indices.astype(np.int64) - 1, indptr), shape=(total, width)
        )
        # Dense when every line lists every feature (as save_libsvm_model writes the vectors of
        # a model fitted on dense rows), else CSR (as LIBSVM writes them: non-zeros only).
        if sparse is False or (sparse is None and total and len(indices) == total * width):
            try:
                vectors = vectors.toarray()
            except (MemoryError, ValueError):
                raise LibsvmModelError(
                    f"{name}: dense support vectors would hold {total} x {width} values; "
                    "load them with sparse=True"
                ) from None
    if classifier:
        # The support vectors grouped by class in sorted order, as the coefficients are.
        order = _store_classifier(estimator, labels, n_support, coef, rho, prob_a, prob_b)
        support_rows = support_rows[order]
        if kernel != "precomputed":
            vectors = vectors[order]
    else:
        estimator.dual_coef_ = coef.T.copy()
        estimator.intercept_ = -rho.copy()
        estimator.n_support_ = np.array([total], dtype=np.int32)
        if svm_type == "one_class":
            estimator.offset_ = float(rho[0])
    estimator.support_ = support_rows.astype(np.int32)
    estimator.support_vectors_ = vectors
    estimator.fit_status_ = 0
    return estimator


def _support_vectors(
    reader: _Reader, sv_start: int, total: int, n_coef: int, kernel: str
) -> tuple[Float64Array, NDArray[np.int64], NDArray[np.int64], Float64Array]:
    """The coefficients ``(total, n_coef)`` and the features as CSR parts ``indptr``,
    ``indices`` (from 1; a precomputed kernel's training rows) and ``values``."""
    coef = np.empty((total, n_coef))
    indptr = np.zeros(total + 1, dtype=np.int64)
    indices: list[int] = []
    values: list[float] = []
    for t in range(total):
        number = sv_start + 1 + t
        reader.number = number
        words = reader.lines[number - 1].split()
        if len(words) < n_coef:
            raise reader.error(f"a support vector needs {n_coef} coefficients, got {len(words)}")
        for c in range(n_coef):
            coef[t, c] = reader.real(words[c], "a coefficient")
        previous = 0 if kernel != "precomputed" else -1
        features = words[n_coef:]
        if kernel == "precomputed" and len(features) != 1:
            raise reader.error("with a precomputed kernel a support vector is one '0:row' pair")
        for word in features:
            index_text, colon, value_text = word.partition(":")
            if not colon:
                raise reader.error(f"expected index:value, got {word!r}")
            index = reader.integer(index_text, "a feature index", 0)
            if kernel == "precomputed":
                if index != 0:
                    raise reader.error(f"with a precomputed kernel the index is 0, got {index}")
                row = reader.integer(value_text, "the training row of '0:row'", 1)
                if row > _MAX_INDEX:
                    raise reader.error(f"the training row {row} exceeds {_MAX_INDEX}")
                indices.append(row)
                values.append(1.0)
                continue
            if index <= previous:
                raise reader.error(
                    f"feature indices must increase from 1, got {index} after {previous}"
                )
            if index > _MAX_INDEX:
                raise reader.error(f"the feature index {index} exceeds {_MAX_INDEX}")
            indices.append(index)
            values.append(reader.real(value_text, "a feature value"))
            previous = index
        indptr[t + 1] = len(indices)
    return coef, indptr, np.asarray(indices, dtype=np.int64), np.asarray(values, dtype=np.float64)


def _store_classifier(
    estimator: Any,
    labels: list[int],
    n_support: NDArray[Any],
    coef: Float64Array,
    rho: Float64Array,
    prob_a: Float64Array,
    prob_b: Float64Array,
) -> NDArray[np.intp]:
    """The classifier's fitted attributes from the file's classes, pairs and coefficients
    (``coef`` of shape ``(total, k − 1)``), with the classes sorted (see the module doc).
    Returns the support vectors' rows in the sorted layout, as rows of the file."""
    k = len(labels)
    order = np.argsort(labels)  # sorted position -> file class
    # The file's decision subtracts ρ: kernelkit's intercept is −ρ.
    layout = reorder_classes(order, n_support, coef.T, -rho, prob_a, prob_b)
    intercept = layout.constant
    estimator.classes_ = np.asarray(sorted(labels))
    if list(order) != list(range(k)):
        # LIBSVM breaks a tie of the vote by the file's order of the labels: the classes'
        # (sorted) indices in that order.
        estimator._vote_order = np.argsort(order)
    estimator.class_weight_ = np.ones(k)
    estimator.n_support_ = layout.n_support.astype(np.int32)
    estimator._dual_coef_libsvm = layout.coef
    estimator._intercept_libsvm = intercept
    estimator.dual_coef_ = -layout.coef if k == 2 else layout.coef.copy()
    estimator.intercept_ = -intercept if k == 2 else intercept.copy()
    if prob_a.size:
        estimator._probA, estimator._probB = layout.prob_a, layout.prob_b
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            estimator.set_params(probability=True)
    else:
        estimator._probA, estimator._probB = np.empty(0), np.empty(0)
    return layout.rows
