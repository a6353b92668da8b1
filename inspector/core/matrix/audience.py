"""What an audience reads first in a matrix: which clients break, per target and overall, and
which client columns say nothing (``n/a`` on every row: no target speaks a dialect that
library reads).

Shared by ``matrix.md``, ``matrix.html`` and the Matrix view, so the three say the same.

Invariants:
- Pure: words from a :class:`~.result.MatrixResult`, through :func:`client_column` (a
  replica over one row's runs: its worst word). A client breaks a target when that word is
  neither ``agrees``, ``n/a`` nor ``pending``.
- A column is hidden only when every row is ``n/a`` in it: a row not yet run is ``pending``, so
  a matrix not run hides nothing; a hidden column stays one click (or one checkbox) away, and
  the views say how many are hidden and which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from inspector.core.matrix.result import MatrixResult
from inspector.core.reports.words import CLIENT_WORDS, label

QUIET: Final = frozenset({"agrees", "n/a", "pending"})
"""Client column words that do not mean "this client would not get the calls"."""
NAMES_SHOWN: Final = 4
"""Target names listed per breaking client in the overall line (then ``+N more``)."""


@dataclass(frozen=True)
class ClientColumn:
    """One replica over one target's runs: its worst word, and how many of the runs it judged
    it got the right calls for (``right``/``judged``)."""

    word: str
    right: int
    judged: int

    @property
    def text(self) -> str:
        """``✓ agrees 6/6``, ``✗ merged 2/6``, ``n/a``."""
        return label(self.word) + (f" {self.right}/{self.judged}" if self.judged else "")

    @property
    def colour_key(self) -> str:
        """The :data:`COLOURS` entry for this word."""
        if self.word in ("agrees", "n/a", "pending"):
            return self.word
        return "breaks"


def client_column(result: MatrixResult, target: str, replica: str) -> ClientColumn:
    """What ``replica`` made of every finished run of ``target``'s row."""
    outcomes = [
        run.clients[replica]
        for col in result.scenarios
        for run in result.cell(target, col).runs
        if replica in run.clients
    ]
    judged = [o for o in outcomes if o.right is not None]
    if not judged:
        ran = any(result.cell(target, c).runs for c in result.scenarios)
        return ClientColumn("n/a" if ran else "pending", 0, 0)
    wrong = [o.word for o in judged if not o.right]
    order: dict[str, int] = {w: i for i, w in enumerate(reversed(CLIENT_WORDS))}
    word = min(wrong, key=lambda w: order.get(w, -1)) if wrong else "agrees"
    return ClientColumn(word, len(judged) - len(wrong), len(judged))


def _column_word(result: MatrixResult, target: str, replica: str) -> str:
    return client_column(result, target, replica).word


def na_everywhere(result: MatrixResult) -> list[str]:
    """The replicas whose column is ``n/a`` on every row (none when there is no row)."""
    if not result.rows:
        return []
    return [
        r
        for r in result.replicas
        if all(_column_word(result, row.name, r) == "n/a" for row in result.rows)
    ]


def breaking(result: MatrixResult, target: str) -> list[str]:
    """The replicas that would not get ``target``'s calls on some run, in column order."""
    return [r for r in result.replicas if _column_word(result, target, r) not in QUIET]


def row_line(result: MatrixResult, target: str) -> str:
    """``breaks by-id, openai-python`` / ``no client breaks`` / ``not run`` for one target."""
    if not any(result.cell(target, s).runs for s in result.scenarios):
        return "not run"
    names = breaking(result, target)
    return "breaks " + ", ".join(names) if names else "no client breaks"


def breaks_line(result: MatrixResult) -> str:
    """The overall line: each breaking client with the targets it breaks on (most first),
    then how many run targets every client gets the calls on."""
    ran = [row.name for row in result.rows if any(result.cell(row.name, s).runs
                                                   for s in result.scenarios)]  # fmt: skip
    if not ran:
        return "Which clients break: nothing has run yet."
    broken = {r: [t for t in ran if r in breaking(result, t)] for r in result.replicas}
    broken = {r: ts for r, ts in broken.items() if ts}
    clean = sum(1 for t in ran if not any(t in ts for ts in broken.values()))
    if not broken:
        return f"Which clients break: none — every client got the calls on all {len(ran)} targets."
    parts = []
    for replica, targets in sorted(broken.items(), key=lambda kv: -len(kv[1])):
        names = ", ".join(targets[:NAMES_SHOWN])
        more = f" +{len(targets) - NAMES_SHOWN} more" if len(targets) > NAMES_SHOWN else ""
        parts.append(f"{replica} on {len(targets)} of {len(ran)} ({names}{more})")
    tail = f"; every client got the calls on {clean} of {len(ran)} targets."
    return "Which clients break: " + "; ".join(parts) + tail


def hidden_line(hidden: list[str]) -> str:
    """What a view says of its hidden columns ("" when none)."""
    if not hidden:
        return ""
    n = len(hidden)
    return (f"{n} client column{'s' if n != 1 else ''} hidden (n/a on every row: no target "
            f"speaks a dialect it reads): {', '.join(hidden)}")  # fmt: skip
