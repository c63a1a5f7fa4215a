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


class DenseBlocksKernel:
    """A callable kernel over dense rows, as the core can call it: what the user's kernel
    returns (a NumPy array, a list, or a sparse matrix, all of which scikit-learn accepts) as
    a float64 array."""

    def __init__(self, function: Any) -> None:
        self.function = function

    def __call__(
        self, left: NDArray[np.float64], right: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        return dense_kernel_block(self.function(left, right))


class SparseRowsKernel:
    """A callable kernel over the sparse rows of ``X``, as the core can call it.

    The core hands a callable kernel blocks of dense rows. For sparse X, the rows given to the
    core are the rows' numbers (a float64 column, :meth:`numbers`), and this wrapper calls the
    user's kernel on the sparse rows they name, as scikit-learn calls it with sparse X, and
    densifies what it returns."""

    def __init__(self, function: Any, X: Any) -> None:
        self.function = function
        self.rows = sp.csr_matrix(X)

    @staticmethod
    def numbers(index: Any) -> Any:
        """The column of row numbers that stands for the rows ``index`` (exact in float64)."""
        return np.asarray(index, dtype=np.float64).reshape(-1, 1)

    def __call__(
        self, left: NDArray[np.float64], right: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        return dense_kernel_block(
            self.function(
                self.rows[left[:, 0].astype(np.intp)], self.rows[right[:, 0].astype(np.intp)]
            )
        )
