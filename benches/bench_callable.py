"""A callable kernel's fit: time and calls of the callable, kernelkit against scikit-learn.

``make_classification(--rows, 20 features, 3 classes, random_state=0)``, the callable
``rbf_kernel(A, B, gamma=0.05)``, ``SVC(C=1, tol=1e-3)``; the best of ``--repeats`` fits of
each (the calls counted on the last). The kernelkit measured is the one Python imports: run it
once per build to compare two (``PYTHONPATH=<old checkout>/python``).

    cd benches && PYTHONPATH=../python python bench_callable.py --rows 2000
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from sklearn import svm
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit


class CountingRbf:
    """``rbf_kernel(A, B, gamma=0.05)``, counting its calls and the kernel values asked for."""

    def __init__(self) -> None:
        self.calls = 0
        self.values = 0

    def __call__(self, A: Any, B: Any) -> Any:
        self.calls += 1
        self.values += A.shape[0] * B.shape[0]
        return rbf_kernel(A, B, gamma=0.05)


def best_fit(cls: Any, X: Any, y: Any, repeats: int) -> tuple[float, CountingRbf, Any]:
    times = []
    for _ in range(repeats):
        kernel = CountingRbf()
        start = time.perf_counter()
        model = cls(kernel=kernel, C=1.0, tol=1e-3).fit(X, y)
        times.append(time.perf_counter() - start)
    return min(times), kernel, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X, y = make_classification(args.rows, 20, n_informative=10, n_classes=3, random_state=0)
    print(f"rows={args.rows}, 3 classes, kernelkit from {kernelkit.__file__}")
    theirs = None
    for name, cls in (("scikit-learn", svm.SVC), ("kernelkit", kernelkit.SVC)):
        seconds, kernel, model = best_fit(cls, X, y, args.repeats)
        line = f"{name:>12}: {seconds:6.3f} s, {kernel.calls:5d} calls, {kernel.values:,} values"
        if theirs is None:
            theirs = model
        else:
            gap = np.abs(model.decision_function(X) - theirs.decision_function(X)).max()
            line += f", n_iter_ {model.n_iter_.tolist()} (scikit-learn's "
            line += f"{theirs.n_iter_.tolist()}), max |decision difference| {gap:.1e}"
        print(line)


if __name__ == "__main__":
    main()
