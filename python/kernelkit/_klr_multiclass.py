"""More than two classes for :class:`kernelkit.SparseKernelLogisticRegression`: binary KLR
models combined one-vs-rest or one-vs-one.

The dual (22) of Consolo, Manno & Amaldi is binary. With ``k > 2`` classes:

* ``multi_class="ovr"``: ``k`` models, model ``c`` separating class ``c`` (positive) from the
  others on every row. Its probability ``σ(d_c(x))`` estimates ``P(c | x)`` as a binary
  problem; the ``k`` estimates are normalised to sum to one,
  ``P(c | x) = σ(d_c) / Σ_j σ(d_j)`` (as scikit-learn's ``OneVsRestClassifier`` does), and
  ``decision_function`` returns the ``d_c``.
* ``multi_class="ovo"``: ``k (k − 1) / 2`` models, the one of classes ``a < b`` trained on
  their rows only with ``b`` positive, so that ``σ(−d_ab(x))`` estimates ``P(a | a or b, x)``.
  These pairwise probabilities are coupled into class probabilities by Wu, Lin & Weng's method
  2 (2004; :func:`kernelkit._probability.couple_pairwise`, the coupling of LIBSVM's
  ``probability=True``), and ``decision_function`` returns their logarithms (floored at the
  smallest normal double, ``log`` of which is about −708, where a probability is 0).

  The pair probabilities are the models' own ``σ(−d_ab)``, not clipped as SVC's Platt
  estimates are (``MIN_PAIR_PROBABILITY``): they are the logistic models' probabilities, which
  the binary estimator reports unclipped, and a clip at ``1e-7`` would make every pair with
  ``|d| > 16`` look the same. In double precision ``σ(±d)`` is exactly 0 or 1 beyond
  ``|d| ≈ 37``; the coupling takes that limit (the class that wins each of its pairs surely
  gets probability 1; see the coupling's module doc) where LIBSVM's iteration divided by 0
  and returned NaN (iris, linear kernel, C = 100, rows times 3: 73 of 150). The coupling's
  stopping rule is absolute (``0.005 / k``), so probabilities much below it, and their
  logarithms, are known in order of magnitude at best; ``predict`` needs only the largest.

In both cases ``predict`` is the class of largest probability, which is also the largest
decision value. ``gamma="scale"`` is resolved once, on every training row, so that every
model has the same kernel (scikit-learn's ``SVC`` does the same for its pairs).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone

from ._base import Float64Array
from ._callable import take_rows
from ._probability import couple_pairwise

__all__ = ["MULTI_CLASS", "MulticlassKlr"]

MULTI_CLASS = ("ovr", "ovo")


class MulticlassKlr:
    """The fitted binary models of one multiclass fit and how to combine them."""

    def __init__(self, scheme: str, n_classes: int) -> None:
        self.scheme = scheme
        self.n_classes = n_classes
        #: One binary model per subproblem, in the order of ``problems``.
        self.estimators: list[Any] = []
        #: ``(positive class, negative class or -1 for the rest, training rows)`` per model.
        self.problems: list[tuple[int, int, NDArray[np.intp]]] = []

    def subproblems(self, encoded: NDArray[np.intp]) -> list[tuple[int, int, NDArray[np.intp]]]:
        """The binary subproblems of the scheme over the class indices ``encoded``."""
        k = self.n_classes
        if self.scheme == "ovr":
            every = np.arange(len(encoded))
            return [(c, -1, every) for c in range(k)]
        return [
            (b, a, np.flatnonzero((encoded == a) | (encoded == b)))
            for a in range(k)
            for b in range(a + 1, k)
        ]

    def fit(
        self,
        template: Any,
        X: Any,
        encoded: NDArray[np.intp],
        precomputed: bool,
        weights: Float64Array,
    ) -> MulticlassKlr:
        """Fits one clone of ``template`` (a binary estimator with a resolved ``gamma``) per
        subproblem, with the rows' ``weights`` as sample weights; for a precomputed kernel each
        gets its rows' block of the Gram matrix."""
        self.problems = self.subproblems(encoded)
        self.estimators = []
        for positive, _, rows in self.problems:
            block = X[np.ix_(rows, rows)] if precomputed else take_rows(X, rows)
            labels = (encoded[rows] == positive).astype(np.intp)
            model = clone(template).fit(block, labels, sample_weight=weights[rows])
            self.estimators.append(model)
        return self

    def _binary_decisions(self, X: Any, precomputed: bool) -> Float64Array:
        """``(n, n_models)``: each model's decision value, positive for its positive class."""
        columns = [
            estimator.decision_function(X[:, rows] if precomputed else X)
            for estimator, (_, _, rows) in zip(self.estimators, self.problems, strict=True)
        ]
        return np.column_stack(columns)

    def probabilities(self, X: Any, precomputed: bool) -> Float64Array:
        """``(n, n_classes)`` class probabilities, each row summing to one."""
        decisions = self._binary_decisions(X, precomputed)
        positive = 0.5 * (1.0 + np.tanh(0.5 * decisions))
        if self.scheme == "ovr":
            # σ(d) > 0 for every finite d; at least one of k values is bounded away from 0
            # unless all underflow, which the floor keeps from dividing by zero.
            total = np.maximum(positive.sum(axis=1, keepdims=True), np.finfo(float).tiny)
            normalised: Float64Array = positive / total
            return normalised
        # Column (a, b) of couple_pairwise holds P(a | a or b): the model's negative class.
        coupled: Float64Array = couple_pairwise(1.0 - positive, self.n_classes)
        return coupled

    def decisions(self, X: Any, precomputed: bool) -> Float64Array:
        """``(n, n_classes)`` scores whose largest is the predicted class."""
        if self.scheme == "ovr":
            return self._binary_decisions(X, precomputed)
        probabilities = self.probabilities(X, precomputed)
        logs: Float64Array = np.log(np.maximum(probabilities, np.finfo(float).tiny))
        return logs
