"""The vocabulary both halves of quirk detection share: a collector of hits, what counts as a
real id or name, and the wire lane a fragment belongs to.

Invariants: pure functions of their arguments; nothing here knows a provider.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.model import ToolCallDelta
from inspector.core.calls.wirefield import is_key
from inspector.core.quirks.seqruns import SeqRuns


class Seen:
    """Collects chunk numbers (and the first note) per quirk code while scanning.

    A ``compact`` one keeps each code's chunks as :class:`SeqRuns` (ascending, de-duplicated,
    a few bytes per run: for scans that live as long as the stream); a plain one keeps them
    as added, in a list (for short-lived ones)."""

    __slots__ = ("_compact", "hits", "notes")

    def __init__(self, compact: bool = False) -> None:
        self.hits: dict[str, list[int] | SeqRuns] = {}
        self.notes: dict[str, str] = {}
        self._compact = compact

    def add(self, code: str, seq: int, note: str | None = None) -> None:
        hits = self.hits.get(code)
        if hits is None:
            hits = self.hits[code] = SeqRuns() if self._compact else []
        hits.append(seq)
        if note and code not in self.notes:
            self.notes[code] = note


def real(value: Any) -> bool:
    """An id/name that names something on the wire (not omitted, null, "" or "null")."""
    return isinstance(value, str) and value not in ("", "null")


def lane(d: ToolCallDelta) -> Any:
    """The wire lane of ``d``: its wire index for the first choice (choice 0, the common
    case: no tuple per lane), else (choice, wire index): with ``n`` > 1 every choice numbers
    its calls from 0. A choice that is no integer or string shares lane (None, index) (the
    dialect flagged it). An index is an int or a string, so the two forms never collide."""
    choice = d.extra.get("choice", 0) if d.extra else 0
    if type(choice) is int and choice == 0:
        return d.index
    return (choice if is_key(choice) else None), d.index
