"""Callable kernels: the training rows as the user gave them, and the kernel's values on them.

scikit-learn does not validate ``X`` when the kernel is callable: a list of strings, a
dataframe, float32, integer or sparse rows reach the callable as they were given, at fit
(``kernel(X, X)``, the Gram matrix, once) and at prediction (``kernel(X_test, X_fit)``).
kernelkit does the same. The core then solves over the Gram matrix as a precomputed kernel,
when its ``n²`` float64 values fit :data:`GRAM_BYTES`; beyond, the core is handed the rows'
numbers (a float64 column) and calls :class:`IndexedRowsKernel` on blocks of them, which calls
the user's kernel on the rows they name, so that no ``n × n`` matrix is ever held.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples

from ._sparse import dense_kernel_block

__all__ = [
    "GRAM_BYTES",
    "IndexedRowsKernel",
    "kernel_block",
    "n_rows",
    "row_numbers",
    "take_rows",
]

#: The largest Gram matrix (bytes of float64) a callable kernel is asked for at once: 1 GiB,
#: 11,585 training rows. Up to it, fit calls the kernel once, on (X, X), as scikit-learn does
#: (``docs/performance.md``, "Callable kernels"); beyond, on blocks of rows. A prediction
#: takes as many test rows at once as keep their values against every training row within it.
GRAM_BYTES = 2**30


def n_rows(X: Any) -> int:
    """The number of rows of X in any form scikit-learn counts (a ``TypeError`` for one it
    cannot)."""
    return int(_num_samples(X))


def _indexable(X: Any) -> Any:
    """X itself, or CSR for a sparse format that has no row indexing (COO, DIA, ...)."""
    return X.tocsr() if sp.issparse(X) and X.format not in ("csr", "csc") else X


def take_rows(X: Any, index: Any) -> Any:
    """The rows ``index`` (an array of row numbers, or a slice) of X, in X's own form: a list
    of a list, a dataframe of a dataframe, CSR rows of any sparse matrix."""
    return _safe_indexing(_indexable(X), index)


def kernel_block(function: Any, A: Any, B: Any) -> NDArray[np.float64]:
    """``function(A, B)`` as a float64 array of shape ``(len(A), len(B))`` (densified when the
    callable returns a sparse matrix, as scikit-learn accepts); a ``ValueError`` for another
    shape."""
    block = dense_kernel_block(function(A, B))
    expected = (n_rows(A), n_rows(B))
    if block.shape != expected:
        raise ValueError(
            f"the kernel callable returned shape {block.shape} for "
            f"{expected[0]} x {expected[1]} rows"
        )
    return block


def row_numbers(n: int) -> NDArray[np.float64]:
    """The column of row numbers that stands for the ``n`` training rows in the core (exact
    in float64)."""
    return np.arange(n, dtype=np.float64).reshape(-1, 1)


class IndexedRowsKernel:
    """A callable kernel over the training rows ``X`` (in the user's form), as the core calls
    it: on blocks of the column of row numbers (:func:`row_numbers`), each given to the user's
    kernel as the rows it names."""

    def __init__(self, function: Any, X: Any) -> None:
        self.function = function
        self.rows = _indexable(X)

    def __call__(
        self, left: NDArray[np.float64], right: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        return kernel_block(
            self.function,
            _safe_indexing(self.rows, left[:, 0].astype(np.intp)),
            _safe_indexing(self.rows, right[:, 0].astype(np.intp)),
        )
