"""LIBSVM's one-vs-one layout of a classifier, moved to another order of its classes.

A classifier of ``k`` classes in some order ``c_0, …, c_{k−1}`` stores (Chang & Lin 2011, §7;
``svm_save_model``) its support vectors grouped by class in that order, ``n_support[s]`` of
class ``c_s``; a coefficient matrix of ``k − 1`` rows, where for the pair ``(s, t)``, ``s < t``,
class ``c_s``'s vectors carry their coefficient in row ``t − 1`` and class ``c_t``'s in row
``s``; and one constant per pair, in the order ``(0, 1), (0, 2), …, (k − 2, k − 1)``, the pair's
decision ``Σ coef · K(sv, x) + constant`` being positive for its first class. With probability
estimates each pair also has a sigmoid ``1 / (1 + exp(A f + B))`` of that decision ``f``.

The same model with its classes in another order has the pair of ``c_a`` and ``c_b`` at another
place, and where the two swap, the pair's decision changes sign: its coefficients and constant,
and the sigmoid's ``B`` (``A`` multiplies ``f`` and changes sign with it, which the sign of
``f`` cancels). The order matters beyond the layout: LIBSVM breaks a tie of the vote in favour
of the class that comes first, and its pairwise coupling of the probabilities visits the classes
in that order. kernelkit keeps its classes sorted; a model read from a LIBSVM file comes in the
file's order (``svm-train`` writes the labels by first appearance) and is moved to the sorted
one (:mod:`kernelkit.io`), and its ONNX graph is moved back to the file's
(:mod:`kernelkit.onnx`), both by :func:`reorder_classes`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["ClassOrderLayout", "pair_index", "reorder_classes"]


def pair_index(s: int, t: int, k: int) -> int:
    """The place of the pair ``(s, t)``, ``s < t``, among the ``k (k − 1) / 2`` pairs."""
    return s * (2 * k - s - 1) // 2 + (t - s - 1)


class ClassOrderLayout(NamedTuple):
    """A classifier's layout in the new order of its classes (see :func:`reorder_classes`)."""

    #: The support vectors' rows in the new layout, as rows of the old one.
    rows: NDArray[np.intp]
    #: Support vectors per class, in the new order.
    n_support: NDArray[np.intp]
    #: The coefficients, ``k − 1`` rows.
    coef: NDArray[np.float64]
    #: One constant per pair.
    constant: NDArray[np.float64]
    #: The pairs' sigmoids (empty without probabilities).
    prob_a: NDArray[np.float64]
    prob_b: NDArray[np.float64]
    #: ``source[q]``, the old place of the new pair ``q``; ``sign[q]``, −1 where its two
    #: classes swapped (its decision is the old pair's negated).
    source: NDArray[np.intp]
    sign: NDArray[np.float64]


def reorder_classes(
    visit: NDArray[np.intp],
    n_support: NDArray[np.integer],
    coef: NDArray[np.float64],
    constant: NDArray[np.float64],
    prob_a: NDArray[np.float64],
    prob_b: NDArray[np.float64],
) -> ClassOrderLayout:
    """The layout of a classifier whose class at new place ``s`` is its class ``visit[s]``.

    ``coef`` has ``k − 1`` rows, one column per support vector; ``constant`` is each pair's
    constant term (``+`` in the decision); ``prob_a`` and ``prob_b`` are empty or one per pair.
    """
    visit = np.asarray(visit, dtype=np.intp)
    counts = np.asarray(n_support, dtype=np.intp)
    k = len(visit)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
    placed = np.concatenate([[0], np.cumsum(counts[visit])[:-1]]).astype(np.intp)
    rows = np.concatenate(
        [np.arange(0, dtype=np.intp)]
        + [np.arange(starts[a], starts[a] + counts[a], dtype=np.intp) for a in visit]
    )
    n_pairs = k * (k - 1) // 2
    new_coef = np.zeros(coef.shape)
    new_constant = np.empty(n_pairs)
    new_a, new_b = np.empty(prob_a.size), np.empty(prob_b.size)
    source, sign = np.empty(n_pairs, dtype=np.intp), np.empty(n_pairs)

    def block(a: int, other: int) -> NDArray[np.float64]:
        """Old class ``a``'s coefficients for its pair with old class ``other``."""
        row = other - 1 if other > a else other
        values: NDArray[np.float64] = coef[row, starts[a] : starts[a] + counts[a]]
        return values

    q = 0
    for s in range(k):
        for t in range(s + 1, k):
            a, b = int(visit[s]), int(visit[t])
            p = pair_index(min(a, b), max(a, b), k)
            sign[q] = 1.0 if a < b else -1.0
            source[q] = p
            new_coef[t - 1, placed[s] : placed[s] + counts[a]] = sign[q] * block(a, b)
            new_coef[s, placed[t] : placed[t] + counts[b]] = sign[q] * block(b, a)
            new_constant[q] = sign[q] * constant[p]
            if prob_a.size:
                new_a[q], new_b[q] = prob_a[p], sign[q] * prob_b[p]
            q += 1
    return ClassOrderLayout(rows, counts[visit], new_coef, new_constant, new_a, new_b, source, sign)
