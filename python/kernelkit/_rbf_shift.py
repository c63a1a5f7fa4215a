"""Dense rows shifted to their mean before an RBF kernel, where they lie far from the origin.

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
fixed-point pixels, bit sets). The shift is applied where rows go to the core (training rows,
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


def rbf_shift(rows: Any, kind: str) -> NDArray[np.float64] | None:
    """The vector to subtract from ``rows`` (and from every row paired with them in an RBF
    kernel), or None where no shift is needed: another kernel, sparse rows, or rows near the
    origin for their spread."""
    if kind != "rbf" or sp.issparse(rows) or not isinstance(rows, np.ndarray) or len(rows) == 0:
        return None
    sample = rows[:: max(1, len(rows) // SAMPLE_ROWS)]
    center: NDArray[np.float64] = sample.mean(axis=0, dtype=np.float64)
    spread = float(sample.var(axis=0, dtype=np.float64).sum())
    if not float(center @ center) > SHIFT_RATIO * spread:
        return None
    return center


def shifted(rows: Any, shift: NDArray[np.float64] | None) -> Any:
    """``rows − shift`` as C-contiguous float64 rows, or ``rows`` itself without a shift."""
    if shift is None:
        return rows
    return np.ascontiguousarray(np.asarray(rows, dtype=np.float64) - shift)


def solved_rows(rows: Any, kind: str) -> Any:
    """The training rows as the core solves over them: shifted to their mean where
    :func:`rbf_shift` says, else as given."""
    return shifted(rows, rbf_shift(rows, kind))


def against_support(rows: Any, support: Any, kind: str) -> tuple[Any, Any]:
    """``rows`` and the support vectors, both shifted by the support vectors' shift (where
    :func:`rbf_shift` says), for the kernel between them."""
    shift = rbf_shift(support, kind)
    return shifted(rows, shift), shifted(support, shift)
