"""How close ``PUClassifier``'s two selections' models are at each ``tol`` (issue 45).

The PU paper's 12 small sets, the authors' ``demo2.m`` split (seed 0: ``⌊0.2·π·N⌋`` random
positives labeled), π the positive fraction of the unlabeled rows, both kernels (Gaussian
γ = 0.5), λ ∈ {1e-4, 1e-3, 1e-2, 1e-1}: 96 problems, each fitted with ``selection="full"`` and
``"paper"`` at every ``--tols`` value, one thread. Per tol: the largest
``max|d_paper − d_full| / max|d_full|`` over the rows, how many problems exceed ``1e-4``, and
the CPU seconds of all fits per selection. Writes ``benches/results/pu_selection_tol.{json,md}``.

    python benches/pu_selection_tol.py [--tols 1e-3,1e-4,1e-5]
"""

from __future__ import annotations

import time
from pathlib import Path

import harness
import numpy as np
from harness import report

from kernelkit import PUClassifier

KERNELS, LAMBDAS = ("linear", "rbf"), (1e-4, 1e-3, 1e-2, 1e-1)


def problems(folder: Path) -> list[tuple[str, np.ndarray, np.ndarray, float]]:
    out = []
    for path in sorted((folder / "pu-usmo").glob("*.npz")):
        data = np.load(path)
        x, labels = np.asarray(data["X"], dtype=np.float64), data["y"]
        positives = np.flatnonzero(labels == 1)
        count = int(0.2 * np.mean(labels == 1) * len(labels))
        y = np.zeros(len(labels), dtype=np.int64)
        y[np.random.default_rng(0).choice(positives, count, replace=False)] = 1
        out.append((path.stem, x, y, float(np.mean(labels[y == 0] == 1))))
    return out


def main(argv: list[str] | None = None) -> None:
    p = harness.parser(__doc__, "pu_selection_tol")
    p.add_argument("--tols", default=[1e-3, 1e-4, 1e-5], type=harness.floats)
    a = p.parse_args(argv)
    run, rows = harness.Run(argv), []
    for tol in a.tols:
        diffs, seconds = [], {"full": 0.0, "paper": 0.0}
        for _, x, y, prior in problems(a.data):
            for kernel in KERNELS:
                for lam in LAMBDAS:
                    d = {}
                    for selection in seconds:
                        model = PUClassifier(prior=prior, lam=lam, kernel=kernel, gamma=0.5,
                                             tol=tol, selection=selection, n_jobs=1)  # fmt: skip
                        start = time.process_time()
                        model.fit(x, y)
                        seconds[selection] += time.process_time() - start
                        d[selection] = model.decision_function(x)
                    scale = np.abs(d["full"]).max()
                    diffs.append(float(np.abs(d["paper"] - d["full"]).max() / scale))
        rows.append({"tol": tol, "problems": len(diffs), "largest": max(diffs),
                     "above_1e-4": sum(v > 1e-4 for v in diffs), "full_cpu_s": seconds["full"],
                     "paper_cpu_s": seconds["paper"]})  # fmt: skip
    cols: list[report.Column] = [
        ("tol", "tol:g"), ("problems", "problems"), ("largest Δd / max|d|", "largest:.1e"),
        ("above 1e-4", "above_1e-4"), ("full CPU s", "full_cpu_s:.2f"),
        ("paper CPU s", "paper_cpu_s:.2f"),
    ]  # fmt: skip
    run.write(a.out, run.record(rows=rows), report.table(rows, cols, 3, done=None))


if __name__ == "__main__":
    main()
