"""Check a release wheel of kernelkit: its tags (abi3 for CPython >= 3.10; on Linux a manylinux
tag that ``auditwheel show`` confirms), no debug sections in the extension (``readelf -S``), and
print its size. Usage: ``python ci/check_wheel.py dist/kernelkit-*.whl``."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

wheel = Path(sys.argv[1])
name = wheel.name
print(f"{name}: {wheel.stat().st_size / 1e6:.2f} MB")
match = re.fullmatch(r"kernelkit-[^-]+-cp310-abi3-(?P<platform>.+)\.whl", name)
if match is None:
    sys.exit(f"{name}: not an abi3 wheel for CPython >= 3.10")
platform = match["platform"]
if not platform.startswith("manylinux"):
    sys.exit(f"{name}: platform tag {platform} is not a manylinux tag")

shown = subprocess.run(
    [sys.executable, "-m", "auditwheel", "show", str(wheel)],
    check=True,
    capture_output=True,
    text=True,
).stdout
print(shown.strip())
consistent = re.search(r'consistent\s+with the following platform tag:\s+"([^"]+)"', shown)
if consistent is None:
    sys.exit("auditwheel show did not name a platform tag")
# auditwheel names the most specific tag the wheel's symbols allow; the wheel's first tag must
# be it or an alias of it (manylinux2014 is manylinux_2_17).
aliases = {"manylinux2014_x86_64": "manylinux_2_17_x86_64"}
tags = [aliases.get(tag, tag) for tag in platform.split(".")]
if aliases.get(consistent[1], consistent[1]) not in tags:
    sys.exit(f"auditwheel accepts {consistent[1]}, but the wheel claims {platform}")

with zipfile.ZipFile(wheel) as archive, tempfile.TemporaryDirectory() as scratch:
    (extension,) = [n for n in archive.namelist() if re.search(r"_core.*\.so$", n)]
    path = archive.extract(extension, scratch)
    sections = subprocess.run(
        ["readelf", "-S", "-W", path], check=True, capture_output=True, text=True
    ).stdout
    size = Path(path).stat().st_size
debug = sorted(set(re.findall(r"\.(?:z?debug_\w+|symtab)\b", sections)))
if debug:
    sys.exit(f"{extension} carries debug information or a symbol table: {debug}")
print(f"{extension}: {size / 1e6:.2f} MB, no debug sections, no .symtab")
