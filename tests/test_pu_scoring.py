"""Model selection from PU data (kernelkit.pu.pu_accuracy_score, lee_liu_score,
make_pu_scorer; issue 45).

* The unbiased PU accuracy, computed from PU data with the prior of the unlabeled rows, is the
  accuracy on the true labels of those rows (within sampling error), for classifiers from
  trivial to good; the same formula with the prior of the whole pool is biased.
* Lee & Liu's criterion is recall² / P(ŷ = 1) (a NumPy reference) and orders classifiers as
  precision · recall on the true labels does.
* GridSearchCV over PUClassifier(lam, gamma) with either PU scorer picks a model whose accuracy
  on the true test labels is at least that of the model the default score (accuracy against the
  labeled / unlabeled indicator) picks.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from kernelkit import PUClassifier
from kernelkit.pu import lee_liu_score, make_pu_scorer, pu_accuracy_score

POOL_PRIOR, LABELED_FRACTION = 0.4, 0.3
# The positives left among the unlabeled rows (docs/pu_classifier.md, "The prior").
UNLABELED_PRIOR = POOL_PRIOR * (1 - LABELED_FRACTION) / (1 - POOL_PRIOR * LABELED_FRACTION)


def draw(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two Gaussian classes (40 % positives), 30 % of the positives labeled: X, the PU
    indicator s and the true labels."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < POOL_PRIOR).astype(int)
    x = rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, 1.2, -1.0)
    s = ((y == 1) & (rng.random(n) < LABELED_FRACTION)).astype(int)
    return x, s, y


@pytest.mark.parametrize("threshold", [-10.0, -1.0, 0.0, 0.1, 1.0, 10.0])
def test_pu_accuracy_is_the_accuracy_on_the_unlabeled_rows(threshold: float) -> None:
    """Classifiers `x₀ + x₁ > threshold` (from "all positive" to "all negative"): the PU
    estimate with the unlabeled rows' prior is within 0.015 of the true accuracy on those
    rows (200,000 rows); with the pool's prior 0.4 it is off by more where the classifier
    predicts positives."""
    x, s, y = draw(200_000, seed=1)
    predicted = (x.sum(axis=1) > threshold).astype(int)
    unlabeled = s == 0
    truth = float(np.mean(predicted[unlabeled] == y[unlabeled]))
    estimate = pu_accuracy_score(s, predicted, UNLABELED_PRIOR)
    assert abs(estimate - truth) <= 0.015, (estimate, truth)
    recall = float(np.mean(predicted[s == 1]))
    wrong_prior = pu_accuracy_score(s, predicted, POOL_PRIOR)
    # The bias of the pool's prior is (π_pool − π_U)(2 recall − 1): visible unless recall ≈ ½.
    assert wrong_prior - estimate == pytest.approx(
        (POOL_PRIOR - UNLABELED_PRIOR) * (2 * recall - 1), abs=1e-12
    )


def test_lee_liu_score_orders_as_precision_times_recall() -> None:
    """recall² / P(ŷ = 1) against its NumPy definition, and, across classifiers, proportional
    to precision · recall on the true labels (the constant 1 / P(y = 1); 3 % for the sampling
    error of the recall on about 24,000 labeled positives)."""
    x, s, y = draw(200_000, seed=2)
    ratios = []
    for threshold in (-1.0, 0.0, 0.5, 1.0, 2.0):
        predicted = (x.sum(axis=1) > threshold).astype(int)
        score = lee_liu_score(s, predicted)
        recall_labeled = np.mean(predicted[s == 1])
        assert score == pytest.approx(recall_labeled**2 / np.mean(predicted), rel=1e-12)
        precision = np.mean(y[predicted == 1])
        recall = np.mean(predicted[y == 1])
        ratios.append(score / (precision * recall))
    np.testing.assert_allclose(ratios, 1 / np.mean(y), rtol=0.03)
    assert lee_liu_score(s, np.zeros_like(s)) == 0.0


def test_bad_input_is_named() -> None:
    s = np.array([1, 0, 0, 1])
    with pytest.raises(ValueError, match="prior"):
        pu_accuracy_score(s, s, 1.0)
    with pytest.raises(ValueError, match="y_pred"):
        pu_accuracy_score(s, np.array([0, 2, 1, 0]), 0.3)
    with pytest.raises(ValueError, match="same length"):
        lee_liu_score(s, s[:3])
    with pytest.raises(ValueError, match="labeled positive"):
        lee_liu_score(np.zeros(4), s)
    with pytest.raises(ValueError, match="metric"):
        make_pu_scorer("f1")
    with pytest.raises(ValueError, match="prior"):
        make_pu_scorer()(_Fixed(), np.zeros((4, 1)), s)


class _Fixed:
    """An estimator without a prior parameter."""

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.ones(len(X), dtype=int)


@pytest.mark.parametrize("metric", ["accuracy", "lee_liu"])
def test_grid_search_with_a_pu_scorer_picks_at_least_as_well(metric: str) -> None:
    """GridSearchCV over lam and gamma: the model picked by the PU scorer is at least as
    accurate on the true test labels as the one the default score picks, and (on this data)
    clearly better than predicting everything negative."""
    x, s, _ = draw(600, seed=3)
    x_test, _, y_test = draw(4000, seed=4)
    grid = {"lam": [1e-3, 1e-2, 1e-1, 1.0], "gamma": [0.05, 0.5, 5.0]}
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    model = PUClassifier(prior=UNLABELED_PRIOR)
    by_default = GridSearchCV(model, grid, cv=folds).fit(x, s)
    by_pu = GridSearchCV(model, grid, cv=folds, scoring=make_pu_scorer(metric)).fit(x, s)
    default_accuracy = by_default.best_estimator_.score(x_test, y_test)
    pu_accuracy = by_pu.best_estimator_.score(x_test, y_test)
    assert pu_accuracy >= default_accuracy, (by_pu.best_params_, by_default.best_params_)
    assert pu_accuracy >= np.mean(y_test == 0) + 0.15
