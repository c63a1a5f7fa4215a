"""``verbose=True``: a tqdm bar on stderr per solve, whose last state is the solve's own final
iteration count, KKT gap and kernel cache hit rate; the AID estimators print one line per
aggregated solve, matching ``history_``. Verbose output never changes the model."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

import kernelkit

BAR = re.compile(r"(?P<iterations>\d+) it \[[^\]]*cache_hits=(?P<hits>\d+)%, gap=(?P<gap>[^\]]+)\]")
AID_LINE = re.compile(
    r"iteration (?P<iteration>\d+), (?P<clusters>\d+) clusters, "
    r"bounds \[(?P<lower>[^,]+), (?P<upper>[^\]]+)\], gap (?P<gap>\S+)"
)


def _data() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    x, y = make_classification(n_samples=300, n_features=5, random_state=0)
    xr, yr = make_regression(n_samples=300, n_features=5, noise=3.0, random_state=0)
    positives_labeled = np.where((y == 1) & (np.arange(300) % 3 == 0), 1, 0)
    partly_labeled = np.where(np.arange(300) % 5 == 0, y, -1)
    return {
        "classes": (x, y),
        "regression": (xr, yr / yr.std()),
        "pu": (x, positives_labeled),
        "semi": (x, partly_labeled),
    }


SOLVER_ESTIMATORS = [
    ("SVC", {}, "classes"),
    ("NuSVC", {}, "classes"),
    ("SVR", {}, "regression"),
    ("NuSVR", {}, "regression"),
    ("OneClassSVM", {}, "classes"),
    ("PUClassifier", {"prior": 0.5}, "pu"),
    ("FrankWolfeSVC", {"random_state": 0}, "classes"),
    ("ConstrainedSVR", {}, "regression"),  # the interior-point method: no kernel cache
    ("ConstrainedSVR", {"method": "gsmo"}, "regression"),
    ("SparseKernelLogisticRegression", {}, "classes"),
]
AID_ESTIMATORS = [
    ("AIDClassifier", {"random_state": 0}, "classes"),
    ("AIDRegressor", {"random_state": 0}, "regression"),
    ("AIDSemiSupervisedClassifier", {"random_state": 0}, "semi"),
]


def _fit(name: str, params: dict[str, Any], data: str, **extra: Any) -> Any:
    x, y = _data()[data]
    model = getattr(kernelkit, name)(**params, **extra)
    return model.fit(x) if name == "OneClassSVM" else model.fit(x, y)


VerboseFits = tuple[Any, Any, str]


@pytest.fixture
def verbose_fits(request: pytest.FixtureRequest, capfd: pytest.CaptureFixture[str]) -> VerboseFits:
    """For the case ``(name, params, data)`` in ``request.param``: the model fitted without and
    with ``verbose=True``, and what the verbose fit wrote to stderr."""
    name, params, data = request.param
    quiet = _fit(name, params, data)
    capfd.readouterr()
    loud = _fit(name, params, data, verbose=True)
    return quiet, loud, capfd.readouterr().err


def _each(cases: list[tuple[str, dict[str, Any], str]]) -> pytest.MarkDecorator:
    """Runs a test once per case, through the ``verbose_fits`` fixture."""
    ids = [f"{name}-params{i}-{data}" for i, (name, _, data) in enumerate(cases)]  # pytest's ids
    return pytest.mark.parametrize("verbose_fits", cases, indirect=True, ids=ids)


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, (list, np.ndarray)) else value


@_each(SOLVER_ESTIMATORS)
def test_the_bar_ends_on_the_solves_final_state(verbose_fits: VerboseFits) -> None:
    quiet, loud, err = verbose_fits
    states = list(BAR.finditer(err))
    assert states, f"no progress bar on stderr: {err!r}"
    last = states[-1]
    # One solve (binary data): the bar's last state is that solve's result.
    assert int(last["iterations"]) == int(_first(loud.n_iter_))
    stats = _first(loud.solver_stats_)
    requests = stats["cache_hits"] + stats["cache_misses"]
    hits = round(100 * stats["cache_hits"] / requests) if requests else 0
    assert int(last["hits"]) == hits
    gap = float(last["gap"])
    assert np.isfinite(gap)
    if hasattr(loud, "kkt_gap_"):
        assert gap == pytest.approx(float(_first(loud.kkt_gap_)), rel=5e-3)
    # The bar's counts grow: iterations never go down between two redraws.
    counts = [int(m["iterations"]) for m in states]
    assert counts == sorted(counts)
    for attribute in ("dual_coef_", "coef_", "intercept_"):
        if hasattr(quiet, attribute):
            np.testing.assert_array_equal(getattr(quiet, attribute), getattr(loud, attribute))


def test_one_bar_per_class_pair(capfd: pytest.CaptureFixture[str]) -> None:
    x, y = make_classification(
        n_samples=300, n_features=6, n_informative=4, n_classes=3, random_state=0
    )
    capfd.readouterr()
    model = kernelkit.SVC(verbose=True).fit(x, y)
    err = capfd.readouterr().err
    for (a, b), iterations in zip([(0, 1), (0, 2), (1, 2)], model.n_iter_, strict=True):
        states = re.findall(rf"SVC {a} vs {b}: (\d+) it", err)
        assert states and int(states[-1]) == iterations


@_each(AID_ESTIMATORS)
def test_aid_prints_each_aggregated_solve(verbose_fits: VerboseFits) -> None:
    quiet, loud, err = verbose_fits
    lines = list(AID_LINE.finditer(err))
    assert len(lines) == len(loud.history_)
    for line, entry in zip(lines, loud.history_, strict=True):
        assert int(line["clusters"]) == entry["n_clusters"]
        assert float(line["gap"]) == pytest.approx(entry["gap"], rel=5e-3, abs=1e-12)
    np.testing.assert_array_equal(quiet.coef_, loud.coef_)


class _BrokenStream:
    """A stderr whose writes fail as a closed file descriptor's do (``2>&-``)."""

    def write(self, text: str) -> int:
        raise OSError(9, "Bad file descriptor")

    def flush(self) -> None:
        raise OSError(9, "Bad file descriptor")


def _closed_stream() -> Any:
    import io

    stream = io.StringIO()
    stream.close()
    return stream


@pytest.mark.parametrize(
    "stderr", [None, _BrokenStream(), _closed_stream()], ids=["none", "bad_fd", "closed"]
)
def test_verbose_fits_where_stderr_cannot_be_written(
    stderr: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``verbose`` made every fit raise where stderr could not be written (a daemon with
    ``2>&-``: OSError; pythonw's ``sys.stderr = None``: AttributeError, and the AID lines went
    to stdout). The progress goes silent; the models are those of quiet fits."""
    X, y = make_classification(300, 5, random_state=0)
    quiet = [kernelkit.SVC(), kernelkit.AIDClassifier(random_state=0)]
    expected = [model.fit(X, y).decision_function(X) for model in quiet]
    monkeypatch.setattr("sys.stderr", stderr)
    loud = [kernelkit.SVC(verbose=True), kernelkit.AIDClassifier(random_state=0, verbose=True)]
    for model, values in zip(loud, expected, strict=True):
        np.testing.assert_array_equal(model.fit(X, y).decision_function(X), values)
    assert capsys.readouterr().out == ""
