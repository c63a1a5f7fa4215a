"""Progress reporting: the user's callback and the ``verbose`` progress bar, as one callable."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

Callback = Callable[[Mapping[str, Any]], "bool | None"]


#: What writing to a closed, detached or missing stderr raises (``2>&-``: OSError; a closed
#: ``sys.stderr``: ValueError; ``sys.stderr = None``, as under pythonw: AttributeError).
_UNWRITABLE = (OSError, ValueError, AttributeError)


def write_progress_line(text: str) -> None:
    """A line on stderr, or nothing where stderr cannot be written: progress never fails a
    fit (``print(file=None)`` would write to stdout)."""
    if sys.stderr is None:
        return
    with suppress(*_UNWRITABLE):
        print(text, file=sys.stderr, flush=True)


class _ProgressBar:
    """A tqdm bar fed by the solver's progress reports, then by its final solution (the last
    report can be up to one reporting interval old). Where stderr cannot be written, the bar
    goes silent and the fit goes on."""

    def __init__(self, callback: Callback | None, description: str) -> None:
        from tqdm.auto import tqdm

        self._callback = callback
        self._iterations = 0
        self._bar: Any = None
        if sys.stderr is not None:
            with suppress(*_UNWRITABLE):
                self._bar = tqdm(desc=description, unit=" it", leave=True, dynamic_ncols=True)

    def _draw(self, action: Callable[[Any], Any]) -> None:
        """``action(bar)``, dropping the bar for good when stderr cannot be written."""
        if self._bar is None:
            return
        try:
            action(self._bar)
        except _UNWRITABLE:
            self._bar = None

    def _show(self, iterations: int, gap: float, hits: float, misses: float) -> None:
        step = max(0, iterations - self._iterations)
        self._iterations = max(self._iterations, iterations)
        requests = hits + misses
        hit_rate = hits / requests if requests else 0.0
        self._draw(lambda bar: bar.update(step))
        self._draw(
            lambda bar: bar.set_postfix(
                gap=f"{gap:.3g}", cache_hits=f"{hit_rate:.0%}", refresh=False
            )
        )

    def __call__(self, progress: Mapping[str, Any]) -> bool | None:
        self._show(
            int(progress["iteration"]),
            float(progress["gap"]),
            float(progress.get("cache_hits", 0)),
            float(progress.get("cache_misses", 0)),
        )
        return self._callback(progress) if self._callback is not None else None

    def finish(self, solution: Any) -> None:
        stats = solution.stats
        self._show(
            int(solution.iterations),
            float(solution.gap),
            float(stats.get("cache_hits", 0)),
            float(stats.get("cache_misses", 0)),
        )
        self._draw(lambda bar: bar.refresh())

    def close(self) -> None:
        self._draw(lambda bar: bar.close())


@contextmanager
def progress_callback(
    callback: Callback | None, verbose: bool | int, description: str
) -> Iterator[Callback | None]:
    """Yields the callable to hand to the Rust solver (``None`` when nothing listens).

    With ``verbose``, a tqdm bar on stderr shows the iterations, the current KKT gap and the
    kernel cache hit rate; :func:`report_solution` shows the final ones, and the bar is closed
    when the block ends.
    """
    if not verbose:
        yield callback
        return
    bar = _ProgressBar(callback, description)
    try:
        yield bar
    finally:
        bar.close()


def report_solution(callback: Callback | None, result: Any) -> None:
    """Shows a solve's final iterations, gap and cache hit rate on its progress bar, if any.

    ``result`` is an entry point's return value: a ``Solution``, or a tuple that starts with
    one."""
    if isinstance(callback, _ProgressBar):
        callback.finish(result[0] if isinstance(result, tuple) else result)
