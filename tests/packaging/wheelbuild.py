"""Building the package the way ``make test`` can afford (no network, seconds): a copy of the
files the build reads, ``pip wheel --no-deps --no-build-isolation`` on it (the build runs in a
temporary folder, never in the checkout another build may be using)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("inspector", "resources", "docs", "setup.py", "pyproject.toml", "README.md", "LICENSE")
"""What the build reads (the sdist holds these)."""
SHIPPED = {"resources": "inspector/resources", "docs": "inspector/docs"}
"""Repository folder -> where it is in an install."""


def source_copy(target: Path) -> Path:
    """The build's inputs copied under ``target`` (no caches, no build leftovers)."""
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    target.mkdir(parents=True)
    for name in SOURCES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, target / name, ignore=junk)
        else:
            shutil.copy2(src, target / name)
    return target


def build_wheel(work: Path) -> Path:
    """A wheel of the checkout, built without network from a copy of it under ``work``."""
    src = source_copy(work / "src")
    dist = work / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(dist), str(src)],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    (wheel,) = dist.glob("toolcall_inspector-*.whl")
    return wheel


def shipped_files() -> set[str]:
    """Every file of ``resources/`` and ``docs/``, as it must be named in a wheel."""
    names = set()
    for folder, package in SHIPPED.items():
        for p in (REPO / folder).rglob("*"):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
                names.add(f"{package}/{p.relative_to(REPO / folder).as_posix()}")
    return names
