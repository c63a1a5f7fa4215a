"""The names the Frank–Wolfe scripts import, now in ``harness`` (kept until they move to it)."""

# ruff: noqa: F401

from pathlib import Path
from typing import Any

from harness import strs as parse_str_list
from harness.data import DATA_DIR as DEFAULT_DATA_DIR
from harness.data import pmlb as load_pmlb
from harness.data import svmlight
from harness.machine import (
    current_rss_mb,
    load_snapshot,
    machine_info,
    package_versions,
    peak_rss_mb,
    reset_peak_rss,
    run_isolated,
)
from harness.objectives import relative_difference
from harness.report import fmt, markdown_table, write_json


def load_svmlight_dense(path: Path, n_features: int, n_rows: int | None = None) -> Any:
    X, y = svmlight(path, n_features)
    return X[:n_rows], y[:n_rows]
