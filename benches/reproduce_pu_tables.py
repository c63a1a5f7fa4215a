"""Reproduce Tables III (linear) and IV (Gaussian) of Sansone, De Natale & Zhou, "Efficient
Training for Positive Unlabeled Learning" (TPAMI 2019) with ``kernelkit.PUClassifier``.

Protocol (digest ``shared/papers/seed-000-pu-usmo.md`` §4.3, the authors' ``demo2.m``): the 12
sets of ``pu-usmo``, π the positive fraction rounded to 2 decimals; ⌊0.2·π·N⌋ random positives
labeled, every other row unlabeled (D_n, in file order); λ ∈ {1e-4, …, 1e-1}; linear and
Gaussian kernel exp(−‖x−y‖²/2); τ = 2e-3; seeded splits, mean over ``--splits``. ``paper F``:
what ``performance.m`` computes and the tables print, the F of the *majority* class of D_n
(class 0 on ties), scoring the predictions for X[:n] against D_n's n labels (§4.3 (i), (ii));
``F1``: the F1 of class 1 on D_n. Deviations: mean paper F minus the printed USMO value.

``--prior``: instead, ``kernelkit.pu.estimate_prior`` (``--methods``, their defaults, nothing
tuned) on ``--seeds`` such labelings of every set; the truth is the positive fraction of the
unlabeled rows (the ``prior`` ``PUClassifier`` needs). Per set and method: the mean and standard
deviation of the estimates and how many labelings land within 0.05 (``pu_prior.{json,md}``).

``--selection-tols 1e-3,1e-4,1e-5``: instead, how close ``selection="full"`` and ``"paper"``
are at each tol (issue 45) on the 96 problems (12 sets, seed-0 split of ⌊0.2·π·N⌋ positives, π
the positive fraction of the unlabeled rows, both kernels, Gaussian γ = 0.5, the four λ), one
thread: the largest max|d_paper − d_full| / max|d_full|, how many exceed 1e-4 and the CPU
seconds of all fits per selection (``pu_selection_tol.{json,md}``).

    python benches/reproduce_pu_tables.py [--splits 10]
    python benches/reproduce_pu_tables.py --prior [--seeds 5] [--methods km2,km1,elkan_noto]
    python benches/reproduce_pu_tables.py --selection-tols 1e-3,1e-4,1e-5
"""

from __future__ import annotations

import itertools
import math
import platform
import sys
import time
from typing import Any

import harness
import numpy as np

from kernelkit import PUClassifier

WITHIN = 0.05  # --prior: an estimate this close to the truth counts
TOL, GAUSSIAN_GAMMA, LAMS = 2e-3, 0.5, (1e-4, 1e-3, 1e-2, 1e-1)  # digest §1.5, §6 #15
# demo2.m: whole-dataset positive fractions, rounded to 2 decimals (digest §4.3).
PRIORS = {"australian": 0.56, "clean1": 0.44, "diabetes": 0.35, "heart": 0.44,
          "heart-statlog": 0.44, "house": 0.47, "house-votes": 0.61, "ionosphere": 0.64,
          "isolet": 0.50, "krvskp": 0.48, "liverDisorders": 0.58, "spectf": 0.73}  # fmt: skip
DATASETS, TABLE_NAMES = tuple(PRIORS), {name: name.capitalize() for name in PRIORS}
METHODS = ("init", "ramp[6]", "qp[7]", "usmo")  # the columns of papers/pu_usmo.txt
PAPER: dict[str, dict[str, dict[float, list[float]]]] = {}
for kernel, name, *values in harness.paper("pu_usmo"):
    cells = np.reshape([float(v) for v in values], (4, 4)).tolist()
    PAPER.setdefault(kernel, {})[name] = dict(zip(LAMS, cells, strict=True))


def load_dataset(data_dir: Any, name: str) -> tuple[Any, Any]:
    """X (float64) and y ∈ {0, 1} of ``pu-usmo/<name>``."""
    ds = harness.data.load(f"pu-usmo/{name}", data_dir)
    return ds.X, ds.y


def labeled_mask(y: Any, prior: float, seed: int) -> Any:
    """demo2.m's split: walk a random permutation and keep the first ⌊0.2·π·N⌋ positives met
    as labeled (the same float operations as ``count <= N·π·0.2``); the others are D_n."""
    order = np.random.default_rng(seed).permutation(len(y))
    mask = np.zeros(len(y), dtype=bool)
    mask[order[y[order] == 1][: math.floor(len(y) * prior * 0.2)]] = True
    return mask


def paper_f(true: Any, pred: Any) -> float:
    """F-measure as REF-CODE ``performance.m`` computes it: the "positive" class is the majority
    class of ``true`` (class 0 on ties); NaN precision, recall or F become 0."""
    cls = 1 if np.count_nonzero(true == 1) > np.count_nonzero(true == 0) else 0
    tp, fp = np.count_nonzero(pred[true == cls] == cls), np.count_nonzero(pred[true != cls] == cls)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / np.count_nonzero(true == cls) if np.any(true == cls) else 0.0
    return 2.0 * precision * recall / (precision + recall) if precision + recall else 0.0


def f1_positive(true: Any, pred: Any) -> float:
    denominator = np.count_nonzero(true == 1) + np.count_nonzero(pred == 1)
    return 2.0 * np.count_nonzero((true == 1) & (pred == 1)) / denominator if denominator else 0.0


def run_split(X: Any, y: Any, prior: float, kernel: str, lam: float, seed: int) -> dict[str, Any]:
    """One demo2.m run: split, fit on (labeled positives, D_n), predict on the full X."""
    labeled = labeled_mask(y, prior, seed)
    gaussian = kernel == "gaussian"
    rbf = {"kernel": "rbf", "gamma": GAUSSIAN_GAMMA} if gaussian else {"kernel": "linear"}
    model = PUClassifier(prior=prior, lam=lam, tol=TOL, **rbf)
    start = time.perf_counter()
    model.fit(X, labeled.astype(np.int64))
    seconds = time.perf_counter() - start
    pred, y_u = np.asarray(model.predict(X), dtype=np.int64), y[~labeled]
    return {
        "seed": seed, "paper_f": 100.0 * paper_f(y_u, pred[: len(y_u)]),  # demo2.m's index mismatch
        "paper_f_transductive": 100.0 * paper_f(y_u, pred[~labeled]),
        "f1": 100.0 * f1_positive(y_u, pred[~labeled]),
        "frac_pred_positive_unlabeled": float(np.mean(pred[~labeled] == 1)),
        "frac_pred_positive_all": float(np.mean(pred == 1)), "n_labeled": int(labeled.sum()),
        "n_unlabeled": len(y_u), "fit_seconds": seconds, "n_iter": int(model.n_iter_),
        "status": str(model.status_), "kkt_gap": float(model.kkt_gap_),
        "objective": float(model.objective_), "intercept": float(np.ravel(model.intercept_)[0]),
    }  # fmt: skip


def summary(deviations: list[float]) -> dict[str, float | int]:
    if not deviations:
        return {"cells": 0}
    a = np.abs(np.asarray(deviations))
    return {"cells": len(deviations), "median_abs_dev": float(np.median(a)),
            "p90_abs_dev": float(np.percentile(a, 90)), "max_abs_dev": float(a.max()),
            "mean_dev": float(np.mean(deviations)),
            "share_within_5": float(np.mean(a <= 5.0))}  # fmt: skip


def format_summary(label: str, s: dict[str, Any]) -> str:
    if not s.get("cells"):
        return f"{label}: no cells"
    return (f"{label}: cells={s['cells']}  median |dev|={s['median_abs_dev']:.2f}  "
            f"p90={s['p90_abs_dev']:.2f}  max={s['max_abs_dev']:.2f}  mean "
            f"dev={s['mean_dev']:+.2f}  within 5 pts="
            f"{100 * float(s['share_within_5']):.0f}%")  # fmt: skip


def markdown_tables(cells: list[dict[str, Any]], splits: int) -> str:
    """Tables III and IV: per data set and λ, the paper's USMO F beside kernelkit's mean paper F."""
    lines: list[str] = []
    for kernel, table in (("linear", "III"), ("gaussian", "IV")):
        if not (mine := [c for c in cells if c["kernel"] == kernel]):
            continue
        lams = sorted({c["lam"] for c in mine})
        lines += [f"Table {table} ({kernel} kernel): F-measure, the paper's USMO / kernelkit "
                  f"(mean of {splits} splits)", "",
                  "| data set | π | " + " | ".join(f"λ = {lam:g}" for lam in lams) + " |",
                  "|---|---:|" + "---:|" * len(lams)]  # fmt: skip
        for name in dict.fromkeys(c["dataset"] for c in mine):
            row = {c["lam"]: c for c in mine if c["dataset"] == name}
            entries = ["" if (c := row.get(lam)) is None else
                       f"{'-' if c['paper'] is None else format(c['paper']['usmo'], '.1f')} / "
                       f"{c['paper_f_mean']:.1f}" for lam in lams]  # fmt: skip
            lines.append(f"| {TABLE_NAMES[name]} | {PRIORS[name]} | " + " | ".join(entries) + " |")
        lines.append("")
    return "\n".join(lines)


HEADER = (f"{'dataset':<15}{'lambda':>8}{'paper':>8}{'ours':>8}{'dev':>8}{'±sd':>7}{'[7]':>7}"
          f"{'F1':>8}{'Fdn':>8}{'pos%':>7}{'iters':>8}{'s/fit':>8}")  # fmt: skip
COLUMNS = (
    "columns: paper = printed USMO value; ours = mean paper F (performance.m, demo2.m index "
    "mismatch); dev = ours − paper; [7] = printed QP value; F1 = F1 of class 1 on D_n; Fdn = "
    "majority-class F on D_n without the index mismatch; pos% = D_n predicted positive"
)


def cell(kernel: str, name: str, lam: float, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The means over the splits of one (kernel, data set, λ) beside the paper's values."""
    mean = {k: float(np.mean([r[k] for r in runs])) for k in runs[0] if k not in ("status", "seed")}
    printed = PAPER[kernel][name].get(lam)
    dev = None if printed is None else mean["paper_f"] - printed[3]
    sd = np.std([r["paper_f"] for r in runs])
    out = {"kernel": kernel, "dataset": name, "lam": lam, "prior": PRIORS[name],
           "paper": dict(zip(METHODS, printed, strict=True)) if printed else None,
           "paper_f_mean": mean["paper_f"], "paper_f_std": float(sd), "deviation": dev,
           "paper_f_transductive_mean": mean["paper_f_transductive"], "f1_mean": mean["f1"],
           "f1_std": float(np.std([r["f1"] for r in runs])), "splits": runs}  # fmt: skip
    cells = [f"{'-' if printed is None else f'{printed[3]:.1f}':>8}", f"{mean['paper_f']:>8.1f}",
             f"{'-' if dev is None else f'{dev:+.1f}':>8}", f"{sd:>7.1f}",
             f"{'-' if printed is None else f'{printed[2]:.1f}':>7}", f"{mean['f1']:>8.1f}",
             f"{mean['paper_f_transductive']:>8.1f}",
             f"{100 * mean['frac_pred_positive_unlabeled']:>7.1f}", f"{mean['n_iter']:>8.0f}",
             f"{mean['fit_seconds']:>8.2f}"]  # fmt: skip
    print(f"{TABLE_NAMES[name]:<15}{lam:>8g}" + "".join(cells), flush=True)
    if bad := sorted({r["status"] for r in runs} - {"converged"}):
        print(f"    warning: solver status {bad}")
    return out


def prior(a: Any, argv: list[str] | None) -> int:
    """``--prior``: every method of ``estimate_prior`` on ``--seeds`` labelings of every set."""
    from kernelkit.pu import estimate_prior

    run, rows, table = harness.Run(argv), [], []
    close, close_mean = dict.fromkeys(a.methods, 0), dict.fromkeys(a.methods, 0)
    for name in DATASETS:
        X, y = load_dataset(a.data, name)
        for seed in range(a.seeds):
            labeled = labeled_mask(y, PRIORS[name], seed)
            truth = float(y[~labeled].mean())
            for method in a.methods:
                start = time.perf_counter()
                value = estimate_prior(X, labeled.astype(int), method=method, random_state=seed)
                seconds = time.perf_counter() - start
                rows.append({"set": name, "seed": seed, "method": method, "truth": truth,
                             "estimate": value, "seconds": seconds})  # fmt: skip
                print(f"{name:15s} seed {seed} {method:11s} truth {truth:.3f} estimate "
                      f"{value:.3f} ({seconds:.1f} s)", flush=True)  # fmt: skip
        mine = [r for r in rows if r["set"] == name]
        truth, line = mine[0]["truth"], [TABLE_NAMES[name], f"{mine[0]['truth']:.3f}"]
        line.append(str(len(mine) // len(a.methods)))
        for method in a.methods:
            values = np.array([r["estimate"] for r in mine if r["method"] == method])
            hits = int(np.sum(np.abs(values - truth) <= WITHIN))
            close[method] += hits == len(values)
            close_mean[method] += abs(values.mean() - truth) <= WITHIN
            line.append(f"{values.mean():.3f} ± {values.std():.3f} ({hits}/{len(values)})")
        table.append(line)
    notes = "; ".join(f"{m}: mean within {WITHIN} on {close_mean[m]} sets, every labeling "
                      f"within {WITHIN} on {close[m]} sets" for m in a.methods)  # fmt: skip
    header = ["data set", "truth π_U", "labelings",
              *(f"{m}: mean ± sd (within {WITHIN})" for m in a.methods)]  # fmt: skip
    out = a.out if "--out" in (argv or sys.argv) else a.out.with_name("pu_prior.json")
    record = run.record(rows=rows, methods=a.methods, seeds=a.seeds, notes=notes)
    run.write(out, record, harness.report.markdown_table(header, table) + f"\n\n{notes}")
    return 0


def selection_tols(a: Any, argv: list[str] | None) -> int:
    """``--selection-tols``: the two selections' decision values compared at each tol."""
    sets = []
    for name in DATASETS:
        X, labels = load_dataset(a.data, name)
        y = np.zeros(len(labels), dtype=np.int64)
        count = int(0.2 * np.mean(labels == 1) * len(labels))
        y[np.random.default_rng(0).choice(np.flatnonzero(labels == 1), count, replace=False)] = 1
        sets.append((X, y, float(np.mean(labels[y == 0] == 1))))
    run, rows = harness.Run(argv), []
    for tol in a.selection_tols:
        diffs, seconds = [], {"full": 0.0, "paper": 0.0}
        for (X, y, pi), kernel, lam in itertools.product(sets, ("linear", "rbf"), LAMS):
            d = {}
            for selection in seconds:
                model = PUClassifier(prior=pi, lam=lam, kernel=kernel, gamma=GAUSSIAN_GAMMA,
                                     tol=tol, selection=selection, n_jobs=1)  # fmt: skip
                start = time.process_time()
                model.fit(X, y)
                seconds[selection] += time.process_time() - start
                d[selection] = model.decision_function(X)
            diffs.append(float(np.abs(d["paper"] - d["full"]).max() / np.abs(d["full"]).max()))
        rows.append({"tol": tol, "problems": len(diffs), "largest": max(diffs),
                     "above_1e-4": sum(v > 1e-4 for v in diffs), "full_cpu_s": seconds["full"],
                     "paper_cpu_s": seconds["paper"]})  # fmt: skip
    cols: list[harness.report.Column] = [
        ("tol", "tol:g"), ("problems", "problems"), ("largest Δd / max|d|", "largest:.1e"),
        ("above 1e-4", "above_1e-4"), ("full CPU s", "full_cpu_s:.2f"),
        ("paper CPU s", "paper_cpu_s:.2f"),
    ]  # fmt: skip
    out = a.out if "--out" in (argv or sys.argv) else a.out.with_name("pu_selection_tol.json")
    run.write(out, run.record(rows=rows), harness.report.table(rows, cols, 3, done=None))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, "pu_tables.json")
    harness.options(p, splits=(10, "seeded splits per cell"),
                    datasets=(list(PRIORS), None, harness.strs), kernels=["linear", "gaussian"],
                    lams=(list(LAMS), None, harness.floats), prior=False, seeds=5,
                    methods=["km2", "km1", "elkan_noto"],
                    selection_tols=([], None, harness.floats))  # fmt: skip
    a = p.parse_args(argv)
    if a.prior or a.selection_tols:
        return (prior if a.prior else selection_tols)(a, argv)
    if a.splits < 1:
        p.error("--splits must be >= 1")
    harness.known(p, "datasets", a.datasets, list(PRIORS))
    harness.known(p, "kernels", a.kernels, ("linear", "gaussian"))
    for lam in set(a.lams) - set(LAMS):
        print(f"note: λ={lam:g} is not in the paper's grid; no paper value to compare")
    run, cells = harness.Run(argv), []
    for kernel in a.kernels:
        table = "III" if kernel == "linear" else "IV"
        print(f"\nTable {table} ({kernel} kernel), mean over {a.splits} split(s), tol={TOL:g}")
        print(HEADER + "\n" + "-" * len(HEADER))
        for name in a.datasets:
            X, y = load_dataset(a.data, name)
            for lam in a.lams:
                runs = [run_split(X, y, PRIORS[name], kernel, lam, s) for s in range(a.splits)]
                cells.append(cell(kernel, name, lam, runs))
    print("\n" + COLUMNS + "\n\nSummary (ours vs the printed USMO column)")
    summaries: dict[str, Any] = {}
    for kernel in a.kernels:
        mine = [c for c in cells if c["kernel"] == kernel and c["paper"]]
        summaries[kernel] = {
            "vs_usmo": summary([c["deviation"] for c in mine]),
            "vs_qp": summary([c["paper_f_mean"] - c["paper"]["qp[7]"] for c in mine]),
        }
        print(format_summary(f"  {kernel:<8} vs USMO", summaries[kernel]["vs_usmo"]))
        print(format_summary(f"  {kernel:<8} vs [7]  ", summaries[kernel]["vs_qp"]))
    summaries["all"] = {"vs_usmo": summary([c["deviation"] for c in cells if c["paper"]])}
    print(format_summary("  all      vs USMO", summaries["all"]["vs_usmo"]))
    protocol = {
        "labeled": "floor(0.2*prior*N) random positives (demo2.m); the rest is D_n",
        "priors": PRIORS, "tol": TOL, "gaussian_gamma": GAUSSIAN_GAMMA, "splits": a.splits,
        "paper_f": "performance.m: majority class of y(D_n) (0 on ties); predictions for X[:n] "
        "against y(D_n) (demo2.m index mismatch)", "f1": "F1 of class 1 on D_n",
    }  # fmt: skip
    paper = "Sansone, De Natale & Zhou, Efficient Training for PU Learning, Tables III/IV"
    record = run.record(paper=paper, protocol=protocol, summary=summaries, cells=cells)
    lines = [
        format_summary(f"- {k} vs the paper's USMO", summaries[k]["vs_usmo"]) for k in a.kernels
    ]
    md = [markdown_tables(cells, a.splits), "Deviations (kernelkit − paper, F points):", "",
          *lines, "", f"`python benches/reproduce_pu_tables.py`, {run.wall:.0f} s on "
          f"{platform.machine()}."]  # fmt: skip
    run.write(a.out, record, "\n".join(md), echo=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
