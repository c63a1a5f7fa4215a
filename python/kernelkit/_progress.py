"""Progress reporting: the user's callback and the ``verbose`` progress bar, as one callable."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

Callback = Callable[[Mapping[str, Any]], "bool | None"]


@contextmanager
def progress_callback(
    callback: Callback | None, verbose: bool | int, description: str
) -> Iterator[Callback | None]:
    """Yields the callable to hand to the Rust solver (``None`` when nothing listens).

    With ``verbose``, a tqdm bar on stderr shows the iterations, the current KKT gap and the
    kernel cache hit rate; the bar is closed when the block ends.
    """
    if not verbose:
        yield callback
        return
    from tqdm.auto import tqdm

    bar = tqdm(desc=description, unit=" it", leave=True, dynamic_ncols=True)
    last = [0]

    def report(progress: Mapping[str, Any]) -> bool | None:
        iteration = int(progress["iteration"])
        bar.update(iteration - last[0])
        last[0] = iteration
        requests = progress["cache_hits"] + progress["cache_misses"]
        hit_rate = progress["cache_hits"] / requests if requests else 0.0
        bar.set_postfix(gap=f"{progress['gap']:.3g}", cache_hits=f"{hit_rate:.0%}", refresh=False)
        return callback(progress) if callback is not None else None

    try:
        yield report
    finally:
        bar.close()
