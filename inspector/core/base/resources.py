"""The files that ship with the app: the repository's top-level ``resources/`` (scenarios,
samples, the demo tools' sample files) and ``docs/`` (the in-app help and its pictures).

In every install both are packages of their own: the build maps ``resources/`` to
:data:`RESOURCES_PACKAGE` and ``docs/`` to :data:`DOCS_PACKAGE` (``setup.py``), so a wheel,
an sdist, ``pipx install`` and ``pip install -e .`` all find them the same way, through
:mod:`importlib.resources`. Nothing in ``inspector/`` finds a file by walking up from a
module's ``__file__`` (a guard test enforces it).

Invariants:
- A file or folder is handed out as a real :class:`~pathlib.Path` (the Samples menu globs a
  folder, the demo's file search confines itself to one, Qt opens a page by its file URL).
  From an install on disk that is the installed file itself; from a zip (zipimport) the
  package is copied once per process into a temporary folder removed at exit.
- An install without its data is :class:`ResourcesMissing` (one line naming what is missing),
  never an empty folder that lets a command succeed on nothing.
- Nothing is looked up at import time: a module may name a resource in a function, never in a
  module-level constant or a default argument.
"""

from __future__ import annotations

import atexit
import functools
import importlib.resources
import shutil
import tempfile
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

from inspector.core.base.errors import InspectorError

RESOURCES_PACKAGE: Final = "inspector.resources"
"""The repository's ``resources/`` folder, installed."""
DOCS_PACKAGE: Final = "inspector.docs"
"""The repository's ``docs/`` folder, installed."""


class ResourcesMissing(InspectorError):
    """The install lacks the files the app ships with (one line)."""


def resource(*parts: str) -> Path:
    """A file or folder under ``resources/``, e.g. ``resource("samples")``."""
    return _joined(RESOURCES_PACKAGE, parts)


def doc(*parts: str) -> Path:
    """A file or folder under ``docs/``, e.g. ``doc("quirks.md")``."""
    return _joined(DOCS_PACKAGE, parts)


def _joined(package: str, parts: tuple[str, ...]) -> Path:
    path = root(package).joinpath(*parts)
    if not path.exists():
        name = "/".join((package.rsplit(".", 1)[-1], *parts))
        raise ResourcesMissing(f"{name} is not in this install ({path}): reinstall the package")
    return path


@functools.cache
def root(package: str) -> Path:
    """The folder of a data package, as a real directory (see the module docstring)."""
    try:
        found = importlib.resources.files(package)
    except ModuleNotFoundError:
        raise ResourcesMissing(
            f"this install has no {package} (the files the app ships with): reinstall "
            "toolcall-inspector from a wheel or a clone"
        ) from None
    if isinstance(found, Path):
        return found
    return extracted(found, package)


def extracted(found: Traversable, package: str) -> Path:
    """A copy of ``found`` (a folder inside a zip) on disk, removed when the process exits."""
    target = Path(tempfile.mkdtemp(prefix=f"toolcall-inspector-{package.rsplit('.', 1)[-1]}-"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    _copy(found, target)
    return target


def _copy(source: Traversable, target: Path) -> None:
    for item in source.iterdir():
        if item.is_dir():
            if item.name != "__pycache__":
                (target / item.name).mkdir()
                _copy(item, target / item.name)
        else:
            (target / item.name).write_bytes(item.read_bytes())
