"""The one-vs-one model of the SVM classifiers, in LIBSVM's layout: how the pairs' solutions
are stored (``dual_coef_``, ``intercept_``, ``support_``) and evaluated (the pairwise decision
values, scikit-learn's one-vs-rest transform of them, the vote). Shared by ``SVC``, ``NuSVC`` and
``FrankWolfeSVC``, and by models read from LIBSVM model files (``kernelkit.io``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.validation import check_is_fitted

from ._base import Float64Array
from ._docstrings import shared_docstrings

__all__ = ["OneVsOneModel"]


@shared_docstrings
class OneVsOneModel:
    """The fitted one-vs-one model: pair (a, b), ``a < b`` in the order of ``classes_``, has
    the decision value ``Σ coef K(sv, x) + intercept``, positive for class a."""

    classes_: NDArray[Any]
    n_support_: NDArray[np.int32]
    support_: NDArray[np.int32]
    support_vectors_: Any
    _dual_coef_: Float64Array
    intercept_: Float64Array
    _dual_coef_libsvm: Float64Array
    _intercept_libsvm: Float64Array
    kernel: Any
    break_ties: bool
    decision_function_shape: str

    if TYPE_CHECKING:  # provided by the SVM base (``_base.KernelSvmMixin``)

        def _decision_values(self, X: Any, coef: Float64Array) -> Float64Array: ...

        def _check_predict_input(self, X: Any) -> Any: ...

        @staticmethod
        def _support_rows(X: Any, support: NDArray[np.integer[Any]]) -> Any: ...

    def _store_libsvm_layout(
        self,
        y_index: NDArray[np.intp],
        pair_coefs: list[tuple[NDArray[np.intp], Float64Array]],
        biases: Float64Array,
        X: Float64Array,
    ) -> None:
        """Builds scikit-learn's fitted attributes from the per-pair solutions.

        Support vectors are grouped by class (in class order, then by sample index); a sample
        is a support vector if any pair gives it a non-zero coefficient. For the pair (a, b),
        the coefficients of class a's vectors go to row b − 1 of ``dual_coef_`` and those of
        class b's vectors to row a, as in LIBSVM's model layout.
        """
        n_classes = len(self.classes_)
        n_samples = len(y_index)
        nonzero = np.zeros(n_samples, dtype=bool)
        for index, coef in pair_coefs:
            nonzero[index[coef != 0]] = True
        support = np.concatenate(
            [np.flatnonzero(nonzero & (y_index == c)) for c in range(n_classes)]
        ).astype(np.int32)
        position = np.full(n_samples, -1, dtype=np.intp)
        position[support] = np.arange(len(support))
        dual_coef = np.zeros((n_classes - 1, len(support)))
        pair = 0
        for a in range(n_classes):
            for b in range(a + 1, n_classes):
                index, coef = pair_coefs[pair]
                kept = coef != 0
                rows = np.where(y_index[index[kept]] == a, b - 1, a)
                dual_coef[rows, position[index[kept]]] = coef[kept]
                pair += 1
        self.support_ = support
        self.n_support_ = np.bincount(y_index[support], minlength=n_classes).astype(np.int32)
        if self.kernel == "precomputed" or callable(self.kernel):
            # Empty, as scikit-learn's: a callable's model keeps its training rows (``_fit_X``).
            self.support_vectors_ = np.empty((0, 0), dtype=np.float64)
        else:
            self.support_vectors_ = self._support_rows(X, support)
        # LIBSVM's orientation (positive decision = first class of the pair), kept for predict.
        self._dual_coef_libsvm = dual_coef
        self._intercept_libsvm = biases
        if n_classes == 2:
            # scikit-learn flips binary models so that a positive decision means classes_[1].
            self._dual_coef_ = -dual_coef
            self.intercept_ = -biases
        else:
            self._dual_coef_ = dual_coef
            self.intercept_ = biases.copy()

    def _pairwise_decision(self, X: Float64Array) -> Float64Array:
        """LIBSVM's decision values, one column per pair (positive: the pair's first class)."""
        return self._decision_values(X, self._pair_weights()) + self._intercept_libsvm

    def _pair_weights(self) -> Float64Array:
        """The coefficients of the support vectors in each pair's decision value, shape
        ``(n_SV, n_pairs)``: LIBSVM's layout spread out, zeros for other classes' vectors."""
        n_classes = len(self.classes_)
        starts = np.concatenate([[0], np.cumsum(self.n_support_)])
        coef = self._dual_coef_libsvm
        # One column per pair (a, b): class a's support vectors weighted by row b − 1 of the
        # coefficients, class b's by row a, every other support vector by 0.
        n_pairs = n_classes * (n_classes - 1) // 2
        weights = np.zeros((coef.shape[1], n_pairs))
        pair = 0
        for a in range(n_classes):
            for b in range(a + 1, n_classes):
                sa, sb = slice(starts[a], starts[a + 1]), slice(starts[b], starts[b + 1])
                weights[sa, pair], weights[sb, pair] = coef[b - 1, sa], coef[a, sb]
                pair += 1
        return weights

    def decision_function(self, X: Any) -> Float64Array:
        """Evaluate the decision function of the samples in X.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes) or (n_samples, n_pairs)
            For two classes, ``Σ dual_coef_[0, k] K(support_vectors_[k], x) + intercept_[0]``:
            positive for ``classes_[1]``. Otherwise one column per class with
            ``decision_function_shape="ovr"`` (one-vs-one votes plus a confidence in
            (−1/3, 1/3), scikit-learn's transform), or with ``"ovo"`` one column per pair
            ``(a, b)``, ``a < b`` in class order, positive for class ``a``.
        """
        X_checked = self._check_predict_input(X)
        decision = self._pairwise_decision(X_checked)
        if len(self.classes_) == 2:
            return -decision[:, 0]
        if self.decision_function_shape == "ovr":
            return _ovr_from_ovo(decision, len(self.classes_))
        return decision

    def predict(self, X: Any) -> NDArray[Any]:
        """Predict the class of the samples in X.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples,)
            The class of each row: the winner of LIBSVM's one-vs-one vote (a tie goes to the
            class that comes first in ``classes_``, or in the labels of the LIBSVM model file
            the model was loaded from), or with ``break_ties=True`` the argmax of
            :meth:`decision_function`.
        """
        check_is_fitted(self, "support_")
        if self.break_ties and self.decision_function_shape == "ovo":
            # As scikit-learn's: the fit, decision_function and predict_proba stand.
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        n_classes = len(self.classes_)
        if self.break_ties and self.decision_function_shape == "ovr" and n_classes > 2:
            labels: NDArray[Any] = self.classes_[np.argmax(self.decision_function(X), axis=1)]
            return labels
        X_checked = self._check_predict_input(X)
        decision = self._pairwise_decision(X_checked)
        # LIBSVM's order of the classes: sorted, or that of a LIBSVM model file's labels
        # (``kernelkit.io``). A tie of the vote goes to the class that comes first in it, and a
        # pair's decision of exactly 0 to the class that comes second (LIBSVM votes for the
        # first where the decision is > 0): to ``a`` where the file has ``b`` first.
        order = getattr(self, "_vote_order", None)
        place = np.arange(n_classes) if order is None else np.argsort(order)
        votes = np.zeros((decision.shape[0], n_classes), dtype=np.int64)
        pair = 0
        rows = np.arange(decision.shape[0])
        for a in range(n_classes):
            for b in range(a + 1, n_classes):
                wins = decision[:, pair] >= 0 if place[a] > place[b] else decision[:, pair] > 0
                np.add.at(votes, (rows, np.where(wins, a, b)), 1)
                pair += 1
        winner = (
            np.argmax(votes, axis=1) if order is None else order[np.argmax(votes[:, order], axis=1)]
        )
        predicted: NDArray[Any] = self.classes_[winner]
        return predicted


def _ovr_from_ovo(decision: Float64Array, n_classes: int) -> Float64Array:
    """One column per class: one-vs-one votes plus a confidence squashed into (−1/3, 1/3), so
    that confidences only break ties between equal vote counts (scikit-learn's convention)."""
    votes = np.zeros((decision.shape[0], n_classes))
    confidence = np.zeros((decision.shape[0], n_classes))
    pair = 0
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            value = decision[:, pair]
            votes[:, a] += value >= 0
            votes[:, b] += value < 0
            confidence[:, a] += value
            confidence[:, b] -= value
            pair += 1
    result: Float64Array = votes + confidence / (3 * (np.abs(confidence) + 1))
    return result
