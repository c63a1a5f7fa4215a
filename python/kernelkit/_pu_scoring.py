"""Model selection from positive and unlabeled data: scores that do not need the true labels.

``PUClassifier.score`` (scikit-learn's accuracy) compares the predictions with ``y``, which in
PU learning is the *labeled / unlabeled* indicator: a model that predicts "labeled" scores
best, so ``GridSearchCV`` with the default score optimises the wrong target. Two criteria
estimate the quality of the predictions on the true labels from PU data alone:

* **Unbiased PU accuracy** (du Plessis, Niu & Sugiyama, "Analysis of learning from positive
  and unlabeled data", NIPS 2014; the risk ``PUClassifier`` minimises, with the 0-1 loss).
  With ``π`` the class prior of the unlabeled rows, the misclassification rate on the
  unlabeled distribution is

  ``R = π P_P(ŷ = 0) + P_U(ŷ = 1) − π P_P(ŷ = 1) = 2π P_P(ŷ = 0) + P_U(ŷ = 1) − π``

  (the positives hidden among the unlabeled rows are counted as false positives by
  ``P_U(ŷ = 1)``; the labeled positives, of the same distribution, take them back). The score
  is ``1 − R̂``, an unbiased estimate of the accuracy on the unlabeled rows (it can leave
  ``[0, 1]`` on small validation folds). It needs the prior.
* **Lee & Liu's criterion** ("Learning with positive and unlabeled examples using weighted
  logistic regression", ICML 2003): ``recall² / P(ŷ = 1)``, with the recall measured on the
  labeled positives (the recall on every positive when the labeled ones are a random
  sample of them) and ``P(ŷ = 1)`` on every row. It is proportional to ``precision · recall``
  (``precision · recall = recall² · P(y = 1) / P(ŷ = 1)``), the square of their geometric
  mean, and needs no prior.

Both take ``y`` as ``PUClassifier`` does: 1 for a labeled positive, 0 for an unlabeled row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._docstrings import shared_docstrings

__all__ = ["lee_liu_score", "make_pu_scorer", "pu_accuracy_score"]

METRICS = ("accuracy", "lee_liu")


def _split(y: Any, y_pred: Any) -> tuple[Any, Any]:
    """``y`` and ``y_pred`` as 0/1 integer arrays of one length, with a clear error else."""
    labels = np.asarray(y).ravel()
    predicted = np.asarray(y_pred).ravel()
    if labels.shape != predicted.shape:
        raise ValueError(
            f"y and y_pred must have the same length, got {labels.shape[0]} and "
            f"{predicted.shape[0]}"
        )
    for name, values in (("y", labels), ("y_pred", predicted)):
        if not np.isin(values, (0, 1)).all():
            raise ValueError(f"{name} must hold 1 (labeled positive / positive) and 0 only")
    if not (labels == 1).any():
        raise ValueError("y has no labeled positive (1): the PU scores need some")
    return labels.astype(np.intp), predicted.astype(np.intp)


@shared_docstrings
def pu_accuracy_score(y: Any, y_pred: Any, prior: float) -> float:
    """The unbiased estimate of the accuracy on the unlabeled rows, ``1 − R̂`` (module doc).

    {{pu_score: Parameters}}
    prior : float
        The class prior of the unlabeled rows, in (0, 1) (as ``PUClassifier``'s ``prior``).

    Returns
    -------
    float
        ``1 − (2π P_P(ŷ = 0) + P_U(ŷ = 1) − π)``.
    """
    if isinstance(prior, bool) or not isinstance(prior, (int, float, np.number)):
        raise TypeError(f"prior must be a real number, got {type(prior).__name__}")
    if not 0.0 < float(prior) < 1.0:
        raise ValueError(f"prior must be in (0, 1), got {prior!r}")
    labels, predicted = _split(y, y_pred)
    unlabeled = labels == 0
    if not unlabeled.any():
        raise ValueError("y has no unlabeled row (0): the PU accuracy needs some")
    missed = float(np.mean(predicted[labels == 1] == 0))
    flagged = float(np.mean(predicted[unlabeled] == 1))
    return 1.0 - (2.0 * float(prior) * missed + flagged - float(prior))


@shared_docstrings
def lee_liu_score(y: Any, y_pred: Any) -> float:
    """Lee & Liu's criterion ``recall² / P(ŷ = 1)`` (module doc); 0 when nothing is predicted
    positive.

    {{pu_score: Parameters}}

    Returns
    -------
    float
        ``recall² / P(ŷ = 1)``, the recall on the labeled positives.
    """
    labels, predicted = _split(y, y_pred)
    positive_rate = float(np.mean(predicted == 1))
    if positive_rate == 0.0:
        return 0.0
    recall = float(np.mean(predicted[labels == 1] == 1))
    return recall**2 / positive_rate


def make_pu_scorer(
    metric: str = "accuracy", *, prior: float | None = None
) -> Callable[[Any, Any, Any], float]:
    """A scorer ``scorer(estimator, X, y)`` for ``GridSearchCV``/``cross_val_score`` that
    judges an estimator's ``predict`` on PU data.

    Parameters
    ----------
    metric : {"accuracy", "lee_liu"}, default="accuracy"
        :func:`pu_accuracy_score` or :func:`lee_liu_score`.
    prior : float or None, default=None
        The prior of ``"accuracy"``; None reads the estimator's ``prior`` parameter (a
        ``PUClassifier``'s), so that a grid over ``prior`` scores each model with its own.

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> float``, greater is better.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")

    def scorer(estimator: Any, X: Any, y: Any) -> float:
        predicted = estimator.predict(X)
        if metric == "lee_liu":
            return lee_liu_score(y, predicted)
        used = prior if prior is not None else getattr(estimator, "prior", None)
        if used is None:
            raise ValueError(
                "the PU accuracy needs the prior of the unlabeled rows: pass "
                "make_pu_scorer(prior=...) for an estimator without a prior parameter"
            )
        return pu_accuracy_score(y, predicted, used)

    return scorer
