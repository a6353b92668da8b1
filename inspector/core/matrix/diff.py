"""Two matrices compared (before and after a provider or client upgrade): which cells changed,
and whether for the worse.

A cell is a (target, scenario) of either matrix, or a (target, ``client: NAME``) of its client
column group. It changed when its word or its passing share of runs did (``pass 3/3`` and
``pass 1/1`` are the same), or when only one matrix has it.

Invariants:
- ``worse`` and ``better`` compare a cell's word by the cells' precedence
  (:data:`~.cells.PRECEDENCE`; ``pass`` and ``not checked`` rank alike, so a change of
  validation mode alone is no regression), then its passing share of runs. A cell ``pending``
  on either side (never run) is ``changed``, neither worse nor better: nothing was measured.
- A client column is worse when its word ranks lower (``agrees`` above ``n/a`` above any word
  that breaks) or it got the right calls for a smaller share of the runs.
- Changes come in the order of matrix B's rows and columns, then what only A has.
- :func:`regressed` decides the ``matrix diff`` exit code: 1 when any cell got worse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from inspector.core.matrix.cells import PRECEDENCE
from inspector.core.matrix.exports import cell_text, client_column
from inspector.core.matrix.result import MatrixResult

ChangeKind = Literal["worse", "better", "changed", "added", "removed"]
CLIENT_PREFIX: Final = "client: "
"""How a client column is named where a scenario's name would be."""


@dataclass(frozen=True)
class Side:
    """A cell as one matrix shows it: its text (``✔ pass 3/3``), its word, and its passing
    runs over its runs."""

    text: str
    word: str
    passed: int
    runs: int

    @property
    def share(self) -> float:
        return self.passed / self.runs if self.runs else 0.0


@dataclass(frozen=True)
class CellChange:
    """One cell that differs between matrix A (``before``) and matrix B (``after``)."""

    target: str
    column: str
    """A scenario, or ``client: NAME`` for a client column."""
    before: Side | None
    after: Side | None
    kind: ChangeKind

    @property
    def arrow(self) -> str:
        """``✔ pass 3/3 → ✖ INVALID 1/3`` (``—`` for the side that has no such cell)."""
        a = self.before.text if self.before else "—"
        b = self.after.text if self.after else "—"
        return f"{a} → {b}"


def _rank(word: str) -> int:
    if word == "not checked":
        word = "pass"
    return PRECEDENCE.index(word) if word in PRECEDENCE else -1


def _client_rank(word: str) -> int:
    return {"agrees": 2, "n/a": 1, "pending": 1}.get(word, 0)


def _sides(result: MatrixResult) -> dict[tuple[str, str], Side]:
    out: dict[tuple[str, str], Side] = {}
    for row in result.rows:
        for col in result.scenarios:
            cell = result.cell(row.name, col)
            out[(row.name, col)] = Side(cell_text(cell), cell.word, cell.passed, len(cell.runs))
        for replica in result.replicas:
            cc = client_column(result, row.name, replica)
            out[(row.name, CLIENT_PREFIX + replica)] = Side(cc.text, cc.word, cc.right, cc.judged)
    return out


def _kind(column: str, a: Side, b: Side) -> ChangeKind:
    if "pending" in (a.word, b.word):
        return "changed"
    rank = _client_rank if column.startswith(CLIENT_PREFIX) else _rank
    if rank(a.word) != rank(b.word):
        return "worse" if rank(b.word) < rank(a.word) else "better"
    if a.share != b.share:
        return "worse" if b.share < a.share else "better"
    return "changed"


def diff(a: MatrixResult, b: MatrixResult) -> list[CellChange]:
    """Every cell that differs from ``a`` (before) to ``b`` (after); see the module docstring."""
    before, after = _sides(a), _sides(b)
    changes: list[CellChange] = []
    for key, side in after.items():
        old = before.get(key)
        if old is None:
            changes.append(CellChange(*key, None, side, "added"))
        elif (old.word, old.share) != (side.word, side.share):
            changes.append(CellChange(*key, old, side, _kind(key[1], old, side)))
    changes += [CellChange(*k, s, None, "removed") for k, s in before.items() if k not in after]
    return changes


def regressed(changes: list[CellChange]) -> bool:
    """Did any cell get worse? (``matrix diff`` exits 1 then.)"""
    return any(c.kind == "worse" for c in changes)


def counts(changes: list[CellChange]) -> str:
    """``3 cells changed: 1 worse, 1 better, 1 added`` (``no cell changed``)."""
    if not changes:
        return "no cell changed"
    kinds: list[ChangeKind] = ["worse", "better", "changed", "added", "removed"]
    parts = [f"{n} {k}" for k in kinds if (n := sum(1 for c in changes if c.kind == k))]
    noun = "cell" if len(changes) == 1 else "cells"
    return f"{len(changes)} {noun} changed: " + ", ".join(parts)


def table(changes: list[CellChange]) -> str:
    """The changes as a plain-text table (target, column, before → after, change)."""
    head = ("target", "scenario / client", "before → after", "change")
    rows = [(c.target, c.column, c.arrow, c.kind) for c in changes]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
             for r in [head, *rows]]  # fmt: skip
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
