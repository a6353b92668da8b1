"""Each call's own quirk findings, kept per call slot in a compact table
(:class:`FindingsTable`): a stream may hold 200,000 calls, each with a finding or two.

Invariants:
- A call's findings are flat, ``(code, seq, note, code, seq, note, …)`` in the order found,
  the note None after a code's first hit; the shared empty tuple when there are none.
- The table keeps, per slot, the call they were worked out for, its fragment count then, and
  the findings as a *pattern*: the same tuple with every seq made relative to the call's first
  fragment's seq. Calls that show the same things at the same places (every call sent whole
  in one chunk says ``whole_call_single_chunk`` at its opener with the same note) share one
  pattern tuple, so a slot costs three references, not a record and a tuple of its own.
- :meth:`FindingsTable.get` gives back exactly the findings :meth:`FindingsTable.put` was
  given for that slot (the seqs made absolute again from the same call's first fragment).
"""

from __future__ import annotations

from array import array
from sys import intern
from typing import Any, Final

from inspector.core.calls.toolcall import ToolCall
from inspector.core.quirks.seen import Seen

Findings = tuple[Any, ...]
"""One call's findings, flat (see the module docstring)."""

_POOLED: Final = 256
"""Distinct patterns a table shares at most (beyond, each slot keeps its own)."""


def flat(seen: Seen) -> Findings:
    """``seen`` as flat findings (notes interned: 200,000 calls may say the same one)."""
    if not seen.hits:
        return ()
    out: list[Any] = []
    for code, hits in seen.hits.items():
        note = seen.notes.get(code)
        for seq in hits:
            out += (code, seq, intern(note) if note else None)
            note = None
    return tuple(out)


def _base(call: ToolCall) -> int:
    """The seq the call's findings are kept relative to: its first fragment's."""
    return call.fragments[0].seq


class FindingsTable:
    """Per call slot: the call, its fragment count, its findings (see the module docstring)."""

    __slots__ = ("_calls", "_counts", "_patterns", "_pool")

    def __init__(self) -> None:
        self._calls: list[ToolCall | None] = []
        self._counts = array("q")  # each slot's fragment count when its findings were made
        self._patterns: list[Findings] = []
        self._pool: dict[Findings, Findings] = {}

    def __len__(self) -> int:
        return len(self._calls)

    def call(self, slot: int) -> ToolCall | None:
        """The call whose findings slot ``slot`` holds (None: none yet)."""
        return self._calls[slot] if slot < len(self._calls) else None

    def count(self, slot: int) -> int:
        """How many fragments that call had when its findings were made."""
        return self._counts[slot]

    def get(self, slot: int, call: ToolCall) -> Findings:
        """Slot ``slot``'s findings, now standing for ``call`` (the same one, or a rebuilt one
        with the very same fragments)."""
        self._calls[slot] = call
        pattern = self._patterns[slot]
        if not pattern:
            return ()
        base = _base(call)
        if len(pattern) == 3:  # one finding (the common case): no list
            return (pattern[0], pattern[1] + base, pattern[2])
        out = list(pattern)
        for i in range(1, len(out), 3):
            out[i] += base
        return tuple(out)

    def put(self, slot: int, call: ToolCall, findings: Findings) -> None:
        """Keep ``findings``, worked out for ``call`` (its fragments as they are now)."""
        grow = slot + 1 - len(self._calls)
        if grow > 0:
            self._calls.extend([None] * grow)
            self._counts.extend([0] * grow)
            self._patterns.extend([()] * grow)
        self._calls[slot] = call
        self._counts[slot] = call.fragment_count
        pattern: Findings = ()
        if findings:
            base = _base(call)
            if len(findings) == 3:  # one finding (the common case): no list
                pattern = (findings[0], findings[1] - base, findings[2])
            else:
                out = list(findings)
                for i in range(1, len(out), 3):
                    out[i] -= base
                pattern = tuple(out)
            pool = self._pool
            pattern = pool.get(pattern, pattern)
            if len(pool) < _POOLED:
                pool.setdefault(pattern, pattern)
        self._patterns[slot] = pattern
