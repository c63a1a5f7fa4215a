"""The reader behind :func:`kernelkit.io.load_libsvm_model`: a LIBSVM model file's text into
the fitted estimator. The format, and what the reader checks, are in :mod:`kernelkit.io`'s
module doc."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ._base import MAX_DEGREE
from ._class_order import reorder_classes
from .exceptions import LibsvmModelError
from .nu_svc import NuSVC
from .nu_svr import NuSVR
from .one_class import OneClassSVM
from .svc import SVC
from .svr import SVR

__all__ = ["ESTIMATOR_OF_TYPE", "KERNEL_OF_NAME", "parse_model"]

#: The estimator of each ``svm_type``.
ESTIMATOR_OF_TYPE: dict[str, type[SVC | NuSVC | SVR | NuSVR | OneClassSVM]] = {
    "c_svc": SVC,
    "nu_svc": NuSVC,
    "one_class": OneClassSVM,
    "epsilon_svr": SVR,
    "nu_svr": NuSVR,
}
#: The kernel of each ``kernel_type``.
KERNEL_OF_NAME = {
    "linear": "linear",
    "polynomial": "poly",
    "rbf": "rbf",
    "sigmoid": "sigmoid",
    "precomputed": "precomputed",
}
_MAX_INDEX = 2**31 - 1
#: LIBSVM's number of one-class probability marks (``nr_marks`` in ``svm.cpp``, 3.3).
_DENSITY_MARKS = 10
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

#: The largest integer a header may hold: labels are int64 (``classes_``), the others less.
_INT64_MAX = 2**63 - 1


#: LIBSVM's numbers (``strtol``/``strtod`` in the C locale): ASCII digits, an optional sign,
#: point and exponent. Python's ``int`` and ``float`` would also take ``1_5``, other scripts'
#: digits and surrounding Unicode spaces, which LIBSVM reads as other values or not at all.
_INTEGER = re.compile(r"[+-]?[0-9]+")
_REAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: LIBSVM separates the words of a line by spaces and tabs only (``strtok(…, " \t")``).
_SEPARATORS = re.compile(r"[ \t]+")


def _words(line: str) -> list[str]:
    """The words of a line, separated by spaces and tabs (another character, such as a
    no-break space, stays in its word, whose number then fails to parse)."""
    stripped = line.strip(" \t")
    return _SEPARATORS.split(stripped) if stripped else []


class _Reader:
    """Lines of a model file with their numbers, and errors that name them."""

    def __init__(self, text: str, name: str) -> None:
        # Lines end at "\n" (an "\r" before it is LIBSVM's too: CRLF files read), not at the
        # other characters str.splitlines() takes, which LIBSVM's reader does not.
        self.lines = [line.removesuffix("\r") for line in text.split("\n")]
        for number, line in enumerate(self.lines, start=1):
            if "\r" in line:
                # A lone "\r" (old Mac OS line ends). Python's text mode took it for a line end;
                # LIBSVM's reader does not: libsvm-official 3.37's svm_load_model read such a
                # file's header, then no usable support vector (it predicted -rho on every row).
                raise LibsvmModelError(
                    f"{name}, line {number}: a carriage return (\\r) not followed by a line "
                    "feed: the lines of a LIBSVM model file end with \\n or \\r\\n, and LIBSVM "
                    "misreads this file; convert its line endings"
                )
        # Blank lines at the end are no support vectors (LIBSVM reads total_sv lines and
        # stops); a blank line anywhere else is still an error.
        while self.lines and not _words(self.lines[-1]):
            self.lines.pop()
        self.name = name
        self.number = 0

    def error(self, what: str, number: int | None = None) -> LibsvmModelError:
        line = self.number if number is None else number
        return LibsvmModelError(f"{self.name}, line {line}: {what}")

    def integer(self, word: str, what: str, minimum: int, maximum: int = _INT64_MAX) -> int:
        if _INTEGER.fullmatch(word) is None:
            raise self.error(f"{what} must be an integer, got {word!r}")
        negative = word.startswith("-")
        digits = word.lstrip("+-").lstrip("0") or "0"
        if len(digits) > len(str(_INT64_MAX)):
            # Beyond every bound, and perhaps beyond the 4300 digits that int() converts.
            bound = f"at least {minimum}" if negative else f"at most {maximum}"
            raise self.error(f"{what} must be {bound}, got an integer of {len(digits)} digits")
        value = -int(digits) if negative else int(digits)
        if value < minimum:
            raise self.error(f"{what} must be at least {minimum}, got {value}")
        if value > maximum:
            raise self.error(f"{what} must be at most {maximum}, got {value}")
        return value

    def real(self, word: str, what: str) -> float:
        if _REAL.fullmatch(word) is None:
            if word.lower().lstrip("+-") in ("inf", "infinity", "nan"):
                raise self.error(f"{what} must be finite, got {word!r}")
            raise self.error(f"{what} must be a number, got {word!r}")
        value = float(word)
        if not math.isfinite(value):
            raise self.error(f"{what} must be finite, got {word!r}")
        return value


def parse_model(
    text: str, name: str, n_features: int | None, sparse: bool | None
) -> SVC | NuSVC | SVR | NuSVR | OneClassSVM:
    reader = _Reader(text, name)
    header: dict[str, list[str]] = {}
    seen_at: dict[str, int] = {}
    for number, line in enumerate(reader.lines, start=1):
        reader.number = number
        words = _words(line)
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
    if svm_type not in ESTIMATOR_OF_TYPE:
        raise reader.error(f"unknown svm_type {svm_type!r}", seen_at["svm_type"])
    kernel_name = single("kernel_type")
    if kernel_name not in KERNEL_OF_NAME:
        raise reader.error(f"unknown kernel_type {kernel_name!r}", seen_at["kernel_type"])
    kernel = KERNEL_OF_NAME[kernel_name]
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
    blank = next(
        (t for t in range(sv_start, len(reader.lines)) if not _words(reader.lines[t])), None
    )
    if blank is not None:
        # Named where it is: the count below would blame total_sv's line for it.
        raise reader.error("empty line among the support vectors", blank + 1)
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
        if "prob_density_marks" in header:
            raise reader.error(
                "'prob_density_marks' belongs to one-class models", seen_at["prob_density_marks"]
            )
    extras = {} if classifier else _unused_lines(reader, svm_type, header, seen_at, reals)
    n_coef = n_classes - 1 if classifier else 1
    coef, indptr, indices, values = _support_vectors(reader, sv_start, total, n_coef, kernel)
    largest = int(indices.max()) if len(indices) else 0
    # Without support vectors the file holds no feature index: the model predicts its
    # constant on rows of any width (it has no n_features_in_), unless n_features is given.
    width = (largest or None) if n_features is None else int(n_features)
    if width is not None and width < max(largest, 1):
        raise LibsvmModelError(
            f"{name}: n_features must be at least {max(largest, 1)} (the largest index in the "
            f"file), got {width}"
        )
    # gamma only matters to the kernels that have it (and is then > 0, checked above).
    estimator: SVC | NuSVC | SVR | NuSVR | OneClassSVM = ESTIMATOR_OF_TYPE[svm_type](
        kernel=kernel, gamma=gamma if gamma > 0 else "scale", degree=degree, coef0=coef0
    )
    estimator._store_kernel((kernel, gamma if gamma > 0 else 1.0, degree, coef0))
    if width is not None:
        estimator.n_features_in_ = width
    columns = 0 if width is None else width
    estimator.shape_fit_ = (columns if kernel == "precomputed" else total, columns)
    if kernel == "precomputed":
        # A training row per support vector, counted from 1.
        rows = indices.astype(np.int64) - 1
        support_rows, vectors = rows, np.empty((0, 0))
    else:
        support_rows = np.arange(total)
        vectors = sp.csr_matrix(
            (values, indices.astype(np.int64) - 1, indptr), shape=(total, columns)
        )
        # Explicit zeros (save_libsvm_model writes one to record a sparse model's width) are
        # no stored entries, as after a fit.
        vectors.eliminate_zeros()
        # Dense when every line lists every feature (as save_libsvm_model writes the vectors of
        # a model fitted on dense rows), else CSR (as LIBSVM writes them: non-zeros only).
        if sparse is False or (sparse is None and total and len(indices) == total * columns):
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
        estimator._dual_coef_ = coef.T.copy()
        estimator.intercept_ = -rho.copy()
        estimator.n_support_ = np.array([total], dtype=np.int32)
        estimator._libsvm_extras = extras
        if svm_type == "one_class":
            estimator.offset_ = rho[:1].copy()
    estimator.support_ = support_rows.astype(np.int32)
    estimator.support_vectors_ = vectors
    estimator.fit_status_ = 0
    return estimator


def _unused_lines(
    reader: _Reader,
    svm_type: str,
    header: dict[str, list[str]],
    seen_at: dict[str, int],
    reals: Callable[[str, int], Float64Array],
) -> dict[str, Float64Array]:
    """The lines of a regression or one-class header that kernelkit checks and keeps (for
    :func:`save_libsvm_model`) but does not use: a regression's ``probA``, the scale of
    LIBSVM's Laplace model of its errors (``svm_get_svr_probability``), and a one-class
    model's ``prob_density_marks`` (LIBSVM 3.3's probability estimates, ten marks). The
    classifiers' lines are refused."""
    for key in ("label", "nr_sv", "probB"):
        if key in header:
            raise reader.error(f"{key!r} belongs to classifiers, not {svm_type}", seen_at[key])
    one_class = svm_type == "one_class"
    wrong, right = ("probA", "prob_density_marks") if one_class else ("prob_density_marks", "probA")
    if wrong in header:
        raise reader.error(f"{wrong!r} does not belong to {svm_type}", seen_at[wrong])
    if right not in header:
        return {}
    values = reals(right, _DENSITY_MARKS if one_class else 1)
    if not one_class and values[0] <= 0:
        raise reader.error(
            f"probA of {svm_type} must be > 0, got {float(values[0])}", seen_at[right]
        )
    return {right: values}


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
        words = _words(reader.lines[number - 1])
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
    estimator._dual_coef_ = -layout.coef if k == 2 else layout.coef.copy()
    estimator.intercept_ = -intercept if k == 2 else intercept.copy()
    if prob_a.size:
        estimator._probA, estimator._probB = layout.prob_a, layout.prob_b
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            estimator.set_params(probability=True)
    else:
        estimator._probA, estimator._probB = np.empty(0), np.empty(0)
    return layout.rows
