"""Check a virtual environment into which .ci/wheel installed kernelkit's wheel: kernelkit is
imported from that environment (not from a checkout), and, given a constraints file, every
pinned distribution is installed at exactly its pinned version. Prints what it found.

Usage: ``python ci/check_install.py VENV [CONSTRAINTS]``.
"""

from __future__ import annotations

import re
import sys
from importlib.metadata import version
from pathlib import Path

import kernelkit

venv = Path(sys.argv[1]).resolve()
if not Path(kernelkit.__file__).resolve().is_relative_to(venv):
    sys.exit(f"kernelkit was imported from {kernelkit.__file__}, not from {venv}")
print(
    f"Python {sys.version.split()[0]}, kernelkit {kernelkit.__version__} from {kernelkit.__file__}"
)

if len(sys.argv) > 2:
    wrong = []
    for line in Path(sys.argv[2]).read_text().splitlines():
        pin = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s#]+)", line.strip())
        if pin is None:
            continue
        installed = version(pin[1])
        print(f"  {pin[1]} {installed}")
        if installed != pin[2]:
            wrong.append(f"{pin[1]} {installed} (pinned {pin[2]})")
    if wrong:
        sys.exit("not at the pinned versions: " + ", ".join(wrong))
