"""The vocabulary both halves of quirk detection share: a collector of hits, what counts as a
real id or name, and the wire lane a fragment belongs to.

Invariants: pure functions of their arguments; nothing here knows a provider.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.model import ToolCallDelta
from inspector.core.calls.wirefield import is_key


class Seen:
    """Collects chunk numbers (and the first note) per quirk code while scanning."""

    def __init__(self) -> None:
        self.hits: dict[str, list[int]] = {}
        self.notes: dict[str, str] = {}

    def add(self, code: str, seq: int, note: str | None = None) -> None:
        self.hits.setdefault(code, []).append(seq)
        if note and code not in self.notes:
            self.notes[code] = note


def real(value: Any) -> bool:
    """An id/name that names something on the wire (not omitted, null, "" or "null")."""
    return isinstance(value, str) and value not in ("", "null")


def lane(d: ToolCallDelta) -> tuple[Any, Any]:
    """(choice, wire index): with ``n`` > 1 every choice numbers its calls from 0. A choice
    that is no integer or string shares lane None (the dialect flagged it)."""
    choice = d.extra.get("choice", 0) if d.extra else 0
    return (choice if is_key(choice) else None), d.index
