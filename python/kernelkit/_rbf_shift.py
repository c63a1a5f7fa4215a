"""Rows shifted to their mean before an RBF kernel, where they lie far from the origin.

The core computes ``‖x − z‖² = ‖x‖² + ‖z‖² − 2⟨x, z⟩`` (as LIBSVM's training does): fast, but
the difference cancels where the rows lie far from the origin for their spread (timestamps,
coordinates in metres), and the rounding of ``‖x‖²`` swamps the distance. Two features at
1.7e9 ± 100 gave decision values off by up to 1.24, and 3 % of the training rows predicted
otherwise than the model's exact kernel decides (LIBSVM's ``svm_predict`` sums
``(x_k − z_k)²`` and has no such error there; its training has). The RBF kernel depends on
``x − z`` only, so rows shifted by a common vector have the same kernel, and shifted to their
mean the expansion loses only about ``eps`` of their spread. Rows are shifted when the squared
norm of their mean exceeds their spread (the mean squared distance to the mean) by
:data:`SHIFT_RATIO` (both taken over :data:`SAMPLE_ROWS` of them), where the expansion may
lose more than about 1e-12 of a distance; elsewhere, as for standardized or 0/1 rows, they are
kept as they are, and so are the core's fast paths for them (float32 read in place,
fixed-point pixels, bit sets). Sparse rows are shifted in the columns far from the origin for
their own spread only (those columns are then stored in full, the others stay sparse): at
1.7e9 their models were off by up to 8.7, worse than LIBSVM's, whose sparse prediction sums
the differences. The shift is applied where rows go to the core (training rows,
prediction against the support vectors) by every estimator with an RBF kernel, AID's dask fit
(``dask/_fit.py``, from the same sample) and ``solvers.aggregated_kernel``; the core itself
would be the one place for it (``_core.kernel_matrix`` is exact only for rows near the origin).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

#: Squared norm of the rows' mean over their spread beyond which they are shifted.
SHIFT_RATIO = 1e4

#: Rows (evenly spaced) from which the mean and the spread are taken: any vector near the rows
#: serves as the shift, and each prediction takes it from the support vectors (4,472 × 100:
#: 1.3 ms over all of them, 0.09 ms over 256, for a one-row prediction of 1.8 ms).
SAMPLE_ROWS = 256


#: A shift: a dense vector, or for sparse rows a 1-row CSR matrix (its columns far from the
#: origin only: a dense vector of a hashed feature space, 2**24 to 2**31 columns, was 128 MB to
#: 16 GB per fit and per prediction).
Shift = Any


def rbf_shift(rows: Any, kind: str) -> Shift | None:
    """The vector to subtract from ``rows`` (and from every row paired with them in an RBF
    kernel), or None where no shift is needed: another kernel, or rows near the origin for
    their spread. For sparse rows the shift is the mean of the columns far from the origin for
    their own spread (``mean² > variance``) and 0 elsewhere, so that the shifted rows stay
    sparse but in those columns, and what remains of the mean is within their spread; it is a
    1-row CSR matrix, and costs memory and time in the sample's stored values, not in the
    columns."""
    shape: tuple[int, ...] = getattr(rows, "shape", ())
    if kind != "rbf" or len(shape) != 2 or shape[0] == 0:
        return None
    columns: NDArray[np.intp] | None = None
    if sp.issparse(rows):
        sample = sp.csr_matrix(rows[:: max(1, rows.shape[0] // SAMPLE_ROWS)], dtype=np.float64)
        columns, center, variances = _sparse_moments(sample)
    elif isinstance(rows, np.ndarray):
        sample = rows[:: max(1, len(rows) // SAMPLE_ROWS)]
        center = sample.mean(axis=0, dtype=np.float64)
        variances = sample.var(axis=0, dtype=np.float64)
    else:
        return None
    if not float(center @ center) > SHIFT_RATIO * float(variances.sum()):
        return None
    if columns is None:
        return center
    far = center * center > variances
    kept = (center[far], columns[far], np.array([0, int(far.sum())]))
    return sp.csr_matrix(kept, shape=(1, shape[1]))


def _sparse_moments(
    sample: Any,
) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]]:
    """The columns stored in a CSR ``sample`` (every other column has mean and variance 0),
    and each one's mean and variance over the sample's rows, its zeros included, the variance
    summed from the deviations (not ``E[x²] − mean²``, which cancels for columns far from the
    origin)."""
    n = sample.shape[0]
    columns, stored_column = np.unique(sample.indices, return_inverse=True)
    k = len(columns)
    center = np.bincount(stored_column, weights=sample.data, minlength=k) / n
    deviations = (sample.data - center[stored_column]) ** 2
    stored = np.bincount(stored_column, minlength=k)
    squares = np.bincount(stored_column, weights=deviations, minlength=k)
    variances: NDArray[np.float64] = (squares + (n - stored) * center**2) / n
    return columns.astype(np.intp), center, variances


def shifted(rows: Any, shift: Shift | None) -> Any:
    """``rows − shift`` as C-contiguous float64 rows (CSR for sparse rows, its columns of
    non-zero shift stored in full), or ``rows`` itself without a shift."""
    if shift is None:
        return rows
    if sp.issparse(rows):
        # scipy's subtraction sums repeated indices and takes unsorted ones; no canonical
        # copy first (``sum_duplicates`` would sort the caller's own arrays in place).
        csr = sp.csr_matrix(rows, dtype=np.float64)
        if sp.issparse(shift):
            columns, values = shift.indices, shift.data
        else:
            columns = np.flatnonzero(shift)
            values = shift[columns]
        n = csr.shape[0]
        offsets = sp.csr_matrix(
            (
                np.tile(values, n),
                np.tile(columns, n),
                np.arange(0, n * len(columns) + 1, len(columns)),
            ),
            shape=csr.shape,
        )
        return sp.csr_matrix(csr - offsets)
    dense_shift = shift.toarray().ravel() if sp.issparse(shift) else shift
    return np.ascontiguousarray(np.asarray(rows, dtype=np.float64) - dense_shift)


def solved_rows(rows: Any, kind: str) -> Any:
    """The training rows as the core solves over them: shifted to their mean where
    :func:`rbf_shift` says, else as given."""
    return shifted(rows, rbf_shift(rows, kind))


def against_support(rows: Any, support: Any, kind: str) -> tuple[Any, Any]:
    """``rows`` and the support vectors, both shifted by the support vectors' shift (where
    :func:`rbf_shift` says), for the kernel between them."""
    shift = rbf_shift(support, kind)
    return shifted(rows, shift), shifted(support, shift)
