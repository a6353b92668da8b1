"""A whole matrix's result: ``matrix.json`` (``format_version`` 1, schema :data:`SCHEMA`,
documented in docs/matrix.md).

Invariants:
- One entry per cell (target x scenario, in spec order: rows, then columns) and, in it, one
  per run, each with its capture path relative to the matrix folder.
- ``to_json`` / ``from_json`` round-trip; ``from_json`` refuses another ``format_version`` or
  a malformed file with a :class:`MatrixFileError` (one line), never a traceback.
- Cells are never blank: a cell not run yet is ``pending``; an error is a run with its class.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from inspector.core.base.errors import InspectorError
from inspector.core.matrix.cells import Cell, CellRun
from inspector.core.matrix.spec import MatrixSpec, MatrixSpecError

FORMAT_VERSION: Final = 1
FILE_NAME: Final = "matrix.json"


class MatrixFileError(InspectorError):
    """A ``matrix.json`` that cannot be read (one line)."""


@dataclass(frozen=True)
class Row:
    """A target as the result names it: label, profile, dialect, model."""

    name: str
    profile: str
    dialect: str
    model: str


@dataclass
class MatrixResult:
    """Every cell of a matrix, with the spec it was run from and the replicas judged."""

    spec: MatrixSpec | None
    """None when read from a file whose spec no longer loads (a scenario file gone)."""
    rows: list[Row]
    scenarios: list[str]
    cells: dict[tuple[str, str], Cell]
    replicas: list[str] = field(default_factory=list)
    """The client replicas judged, in display order (the client column group)."""
    started: str = ""
    """UTC start time, ISO 8601."""
    duration: float = 0.0
    """Wall seconds the matrix took."""
    spec_json: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def empty(cls, spec: MatrixSpec, replicas: list[str], started: str = "") -> MatrixResult:
        """Every cell ``pending``, in spec order."""
        rows = [Row(t.name, t.profile.name, t.profile.dialect, t.model) for t in spec.targets]
        cols = [s.name for s in spec.scenarios]
        cells = {(r.name, c): Cell(r.name, c) for r in rows for c in cols}
        return cls(spec, rows, cols, cells, replicas, started, 0.0, spec.to_json())

    def cell(self, target: str, scenario: str) -> Cell:
        """The cell at (target, scenario) (KeyError if none)."""
        return self.cells[(target, scenario)]

    def __iter__(self) -> Iterator[Cell]:
        """Cells row by row, in spec order."""
        for row in self.rows:
            for col in self.scenarios:
                yield self.cells[(row.name, col)]

    def runs(self) -> Iterator[tuple[Cell, CellRun]]:
        """Every finished run with its cell."""
        for cell in self:
            for run in cell.runs:
                yield cell, run

    def to_json(self) -> dict[str, Any]:
        """``matrix.json``'s content."""
        return {
            "format_version": FORMAT_VERSION,
            "started": self.started,
            "duration": round(self.duration, 3),
            "spec": self.spec_json,
            "targets": [vars(r).copy() for r in self.rows],
            "scenarios": list(self.scenarios),
            "replicas": list(self.replicas),
            "cells": [c.to_json() for c in self],
        }

    def dumps(self) -> bytes:
        """``matrix.json``'s bytes (indented, a newline at the end)."""
        return orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2) + b"\n"

    @classmethod
    def from_json(cls, obj: Any, where: str = FILE_NAME, base: Path | None = None) -> MatrixResult:
        """A result from ``matrix.json``'s content (MatrixFileError, one line, if malformed)."""
        if not isinstance(obj, dict) or obj.get("format_version") != FORMAT_VERSION:
            version = obj.get("format_version") if isinstance(obj, dict) else None
            raise MatrixFileError(f"{where}: not a matrix.json of format_version "
                                  f"{FORMAT_VERSION} (found {version!r})")  # fmt: skip
        try:
            rows = [Row(str(t["name"]), str(t["profile"]), str(t["dialect"]), str(t["model"]))
                    for t in obj["targets"]]  # fmt: skip
            cols = [str(s) for s in obj["scenarios"]]
            cells = {(r.name, c): Cell(r.name, c) for r in rows for c in cols}
            for entry in obj["cells"]:
                cell = Cell.from_json(entry)
                if cell.key not in cells:
                    raise ValueError(f"cell {cell.key} is outside the matrix")
                cells[cell.key] = cell
            result = cls(None, rows, cols, cells, [str(r) for r in obj.get("replicas", [])],
                         str(obj.get("started", "")), float(obj.get("duration", 0.0)),
                         dict(obj.get("spec") or {}))  # fmt: skip
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise MatrixFileError(f"{where}: malformed matrix.json ({exc!r})") from None
        try:
            result.spec = MatrixSpec.from_json(result.spec_json, where, base)
        except MatrixSpecError:
            result.spec = None  # the result still shows; reruns need the spec
        return result


def load_result(folder_or_file: str | Path) -> MatrixResult:
    """A saved matrix: a folder holding ``matrix.json``, or the file itself."""
    p = Path(folder_or_file)
    path = p / FILE_NAME if p.is_dir() else p
    try:
        obj = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise MatrixFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise MatrixFileError(f"{path}: not valid JSON: {exc}") from None
    return MatrixResult.from_json(obj, str(path), path.parent)
