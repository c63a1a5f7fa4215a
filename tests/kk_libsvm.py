"""LIBSVM itself as an oracle (the ``libsvm-official`` package): its labels, decision values and
probabilities of rows, for a model file, through its C functions."""

from __future__ import annotations

from ctypes import c_double
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from libsvm.svm import gen_svm_nodearray
from libsvm.svm import libsvm as libsvm_c
from libsvm.svmutil import svm_load_model
from numpy.typing import NDArray

__all__ = ["libsvm_rows", "libsvm_values"]


def libsvm_rows(X: Any) -> list[dict[int, float]]:
    """Rows in the LIBSVM binding's own format: ``{index from 1: value}`` of the non-zeros."""
    dense = X.toarray() if sp.issparse(X) else np.asarray(X)
    return [{j + 1: float(v) for j, v in enumerate(row) if v != 0} for row in dense]


def libsvm_values(path: Path, X: NDArray[Any], probability: bool = False) -> tuple[Any, Any]:
    """LIBSVM's labels and decision values (probabilities) of the rows, by its C functions
    ``svm_predict_values`` / ``svm_predict_probability``. (libsvm-official 3.37's
    ``svmutil.svm_predict`` sizes the decision values of a ν-SVC model for one pair, as for a
    regression, and writes past the buffer with three classes or more.)"""
    model = svm_load_model(str(path))
    n_classes = model.get_nr_class()
    width = n_classes if probability else max(1, n_classes * (n_classes - 1) // 2)
    predict = libsvm_c.svm_predict_probability if probability else libsvm_c.svm_predict_values
    buffer = (c_double * width)()
    labels, values = [], []
    for row in libsvm_rows(X):
        nodes, _ = gen_svm_nodearray(row)
        labels.append(predict(model, nodes, buffer))
        values.append(buffer[:width])
    return np.asarray(labels), np.asarray(values)
