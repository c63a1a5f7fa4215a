"""Scale-out on Dask (``pip install kernelkit[dask]``).

* **Many fits**: :func:`grid_search`, :func:`one_vs_rest` and :func:`one_vs_one` run
  scikit-learn's meta-estimators with one Dask task per fit, the data scattered to the workers
  once and ``threads_per_fit`` Rust threads per fit (:func:`dask_backend` does the same for any
  joblib-parallel code, e.g. a ``GridSearchCV`` of your own).
* **Prediction at scale**: :func:`predict`, :func:`decision_function` (and :func:`apply` for
  any method) over a dask array or DataFrame, blockwise, with the model sent once.
* **AID beyond one machine's memory**: ``AIDRegressor``, ``AIDClassifier`` and
  ``AIDSemiSupervisedClassifier`` accept a dask array (or DataFrame) in ``fit``; the clustering,
  the aggregation and the purity checks run over the blocks, only the aggregated problems are
  solved in one task, and the result is the in-memory AID's (same partitions and iterates).

See ``docs/dask.md``.
"""

from __future__ import annotations

from ._fit import fit_aid
from ._predict import apply, decision_function, predict
from ._search import dask_backend, grid_search, one_vs_one, one_vs_rest

__all__ = [
    "apply",
    "dask_backend",
    "decision_function",
    "fit_aid",
    "grid_search",
    "one_vs_one",
    "one_vs_rest",
    "predict",
]
