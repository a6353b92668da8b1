"""The folder ``matrix --out DIR`` writes: checked before anything runs, written by rename.

Invariants:
- Nothing is written through a symlink: ``DIR`` itself, ``matrix.json``, ``matrix.md``,
  ``matrix.html``, ``captures`` or a capture in it that is a symlink stops the run before it
  starts (one line; ``--force`` does not change that: remove the link).
- ``DIR`` is missing, empty, or a previous matrix (it holds a ``matrix.json``): a previous
  matrix is replaced — its files are rewritten and its captures removed before the run, so
  no stale capture is left for a cell to open. Any other non-empty folder is refused unless
  ``force``.
- Every file is written whole or not at all (:func:`write_file`: a temporary file beside it,
  renamed over it: a rename replaces a name, never writes through a link).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Final

from inspector.core.base.errors import InspectorError

RESULT: Final = "matrix.json"
WRITTEN: Final = (RESULT, "matrix.md", "matrix.html")
CAPTURES: Final = "captures"


class MatrixFolderError(InspectorError):
    """A folder ``matrix --out`` will not write into (one line)."""


def prepare(out: Path, *, force: bool = False) -> None:
    """Make ``out`` ready for a new matrix (module doc); MatrixFolderError when it is not."""
    if out.is_symlink():
        raise MatrixFolderError(f"{out}: is a symlink; give the folder itself")
    if out.exists() and not out.is_dir():
        raise MatrixFolderError(f"{out}: exists and is not a folder")
    captures = out / CAPTURES
    links = [out / n for n in (*WRITTEN, CAPTURES) if (out / n).is_symlink()]
    if captures.is_dir() and not captures.is_symlink():
        links += [p for p in captures.iterdir() if p.is_symlink()]
    if links:
        raise MatrixFolderError(
            f"{links[0]}: is a symlink; matrix --out never writes through one (remove it)"
        )
    if out.is_dir() and any(out.iterdir()):
        previous = (out / RESULT).is_file()
        if not previous and not force:
            raise MatrixFolderError(
                f"{out}: is not empty and holds no previous matrix ({RESULT}); "
                "give an empty or new folder, or --force to write into it"
            )
        if captures.is_dir():
            for p in captures.glob("*.jsonl"):
                p.unlink()
    out.mkdir(parents=True, exist_ok=True)


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` by rename (module doc); OSError propagates."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "xb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
