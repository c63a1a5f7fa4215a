"""AID estimators: ``AIDRegressor`` (LAD), ``AIDClassifier`` (C-SVM) and
``AIDSemiSupervisedClassifier`` (linear S3VM).

AID (Park & Klabjan, "An Aggregate and Iterative Disaggregate Algorithm with Proven Optimality
in Machine Learning", 2016) trains on cluster means weighted by the cluster sizes, then splits
only the clusters whose rows disagree (different residual signs, different sides of the margin)
and solves again. For LAD and the SVM every aggregated optimum is a lower bound of the true
optimum and the aggregated solution evaluated on all rows an upper bound; when every cluster is
pure the two meet and the solution is optimal (``status_ == "optimal"``). For the S3VM the
paper's optimality claim is false (a counterexample is in the test suite), so
``AIDSemiSupervisedClassifier`` is a heuristic and never reports "optimal".
"""

from __future__ import annotations

from ._aid_lad import AIDRegressor
from ._aid_s3vm import AIDSemiSupervisedClassifier
from ._aid_svm import AIDClassifier

__all__ = ["AIDClassifier", "AIDRegressor", "AIDSemiSupervisedClassifier"]
