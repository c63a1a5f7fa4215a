"""scipy.sparse input: conversion to the Rust core's CSR matrix, without densifying."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from . import _core


def to_core_rows(X: Any) -> Any:
    """A CSR ``_core.CsrMatrix`` for sparse X (duplicates summed, float64, int64 indices); dense
    arrays are returned unchanged."""
    if not sp.issparse(X):
        return X
    csr = sp.csr_matrix(X, dtype=np.float64, copy=False)
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    return _core.CsrMatrix(
        np.ascontiguousarray(csr.data, dtype=np.float64),
        np.ascontiguousarray(csr.indices, dtype=np.int64),
        np.ascontiguousarray(csr.indptr, dtype=np.int64),
        int(csr.shape[1]),
    )


def dense_kernel_block(block: Any) -> NDArray[np.float64]:
    """A callable kernel's result as a float64 array: densified when it is sparse (scikit-learn
    accepts either, and a kernel over sparse rows may return a sparse Gram block)."""
    if sp.issparse(block):
        block = block.toarray()
    dense: NDArray[np.float64] = np.asarray(block, dtype=np.float64)
    return dense
