"""The call-level findings of a stream merged once per call (:class:`CallFold`): what
:func:`~inspector.core.quirks.detect.detect` asks of every call on every look, kept for the
leading calls that can no longer change, so a look costs O(calls that may still change).

A closed call changes only by taking a late fragment, and its findings, its place in the turn
(an orphan or not) and its wire index with it. Every tool-call delta lands in exactly one
call's fragments or in the accumulator's ``unrouted`` (:class:`ToolDeltas` counts them), so
while the folded calls' fragments, the others' and the unrouted ones add up to the tool-call
deltas received, no folded call took one; otherwise the fold starts again (late fragments
are rare).

Invariants:
- The fold holds the calls ``[0, upto)`` of one calls list under one accumulator and one
  provider, every one closed when folded; a policy flip (new calls) or another provider
  starts it again. When the count does not add up even for a fresh fold, nothing is kept
  folded: every look walks every call (as before the fold).
- :meth:`CallFold.look` gives exactly what walking every call gives: each code's chunks (as
  :class:`~inspector.core.quirks.seqruns.SeqRuns` the caller owns), each code's first note
  in slot order, the calls that make the turn, the calls written in text and whether the wire
  indexes run 0..n-1 without a gap.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Final

from inspector.core.base.kinds import CallKind
from inspector.core.base.model import DeltaKind
from inspector.core.calls.stream import StreamState
from inspector.core.calls.textcalls import from_text
from inspector.core.calls.toolcall import ToolCall
from inspector.core.quirks.calls.findings import Findings
from inspector.core.quirks.seqruns import SeqRuns

_kind = attrgetter("kind")
_TOOL = DeltaKind.TOOL_CALL

_INDEXES: Final = 1 << 22  # wire indexes below this are kept as a byte map


HOSTED = CallKind.HOSTED


class ToolDeltas:
    """How many tool-call deltas a stream holds, counting only the new ones each time."""

    __slots__ = ("count", "deltas")

    def __init__(self) -> None:
        self.deltas = 0
        self.count = 0

    def update(self, state: StreamState, scanned: tuple[int, int] = (-1, 0)) -> int:
        """The tool-call deltas in ``state`` now; ``scanned`` is (deltas, tool-call deltas among
        them) as a wire scan of ``state`` counted them, taken when it covers every delta."""
        deltas = state.deltas
        n = len(deltas)
        if scanned[0] == n:
            self.deltas, self.count = scanned
        elif n != self.deltas:
            self.count += list(map(_kind, deltas.stored(self.deltas))).count(_TOOL)
            self.deltas = n
        return self.count


class Look:
    """What every call of a stream shows, for one :func:`detect`."""

    __slots__ = ("gapless", "hits", "notes", "turn", "written")

    def __init__(self) -> None:
        self.hits: dict[str, SeqRuns] = {}
        """Code -> its chunks among the calls' findings (the caller's own)."""
        self.notes: dict[str, str] = {}
        """Code -> its first note, in slot order."""
        self.turn = 0
        """Calls that make the turn: the agent's (no hosted item), neither written in text
        nor orphans."""
        self.written: list[ToolCall] = []
        """The calls written in text, in slot order."""
        self.gapless = True
        """The calls' integer wire indexes are 0..n-1 (or there are none)."""


class CallFold:
    """The findings of the leading closed calls of one calls list (see the module docstring)."""

    def __init__(self, calls: list[Any] | None = None, acc: Any = None, provider: Any = None):
        self.calls, self.acc, self.provider = calls, acc, provider
        self.upto = 0
        self.frags = 0  # fragments of the folded wire calls
        self.base = Look()
        self._indexes = bytearray()  # 1 at each folded integer index in [0, _INDEXES)
        self._distinct = 0  # distinct integer indexes among the folded calls
        self._odd = False  # a folded index outside the byte map

    def fits(self, state: StreamState, tool_deltas: int) -> bool:
        """No folded call changed: the fold holds for ``state``'s calls now."""
        calls, acc = state.calls, state.acc
        if calls is not self.calls or acc is not self.acc or state.provider is not self.provider:
            return False
        tail = sum(c.fragment_count for c in calls[self.upto :] if type(c) is ToolCall)
        unrouted = len(acc.unrouted) if acc is not None else 0
        return self.frags + tail + unrouted == tool_deltas

    def advance(self, state: StreamState, findings: Callable[[ToolCall], Findings]) -> None:
        """Fold the leading calls that closed since (a feeder with a time budget calls this
        so that a look has only the open calls left)."""
        acc = state.acc
        calls = state.calls
        base = self.base
        for slot in range(self.upto, len(calls)):
            c = calls[slot]
            if c.open:
                return
            if from_text(c):
                base.written.append(c)
            else:
                _merge(base, findings(c))
                base.turn += c.kind != HOSTED and not (acc is not None and acc.is_orphan(c))
            self._fold(c)

    def look(self, state: StreamState, findings: Callable[[ToolCall], Findings]) -> Look:
        """Every call's findings merged (the folded ones from the fold), folding the leading
        calls that closed since."""
        acc = state.acc
        calls = state.calls
        base = self.base
        out = Look()
        out.hits = {code: runs.copy() for code, runs in base.hits.items()}
        out.notes = dict(base.notes)
        out.turn, out.written = base.turn, list(base.written)
        tail_indexes: set[int] = set()
        folding = True
        for slot in range(self.upto, len(calls)):
            c = calls[slot]
            folding = folding and not c.open
            text = from_text(c)
            found = () if text else findings(c)
            turn = not text and c.kind != HOSTED and not (acc is not None and acc.is_orphan(c))
            for into in (base, out) if folding else (out,):
                if text:
                    into.written.append(c)
                else:
                    _merge(into, found)
                    into.turn += turn
            if folding:
                self._fold(c)
            elif type(c.index) is int:
                tail_indexes.add(c.index)
        out.gapless = self._gapless(tail_indexes)
        return out

    def _fold(self, c: Any) -> None:
        """The closed call ``c`` joins the fold (its findings are in ``base`` already)."""
        self.upto += 1
        if type(c) is ToolCall:
            self.frags += c.fragment_count
        index = c.index
        if type(index) is int:
            if 0 <= index < _INDEXES:
                marks = self._indexes
                if index >= len(marks):
                    marks.extend(bytes(index + 1 - len(marks)))
                if not marks[index]:
                    marks[index] = 1
                    self._distinct += 1
            else:
                self._odd = True

    def _gapless(self, tail: set[int]) -> bool:
        """Do the integer indexes of every call run 0..n-1 (the fold's and ``tail``)?"""
        if self._odd:
            return False
        marks = self._indexes
        new = [i for i in tail if not (0 <= i < len(marks) and marks[i])]
        if any(not 0 <= i < _INDEXES for i in new):
            return False
        top = max(len(marks) - 1 if self._distinct else -1, max(new, default=-1))
        return top == self._distinct + len(new) - 1


def _merge(into: Look, findings: Findings) -> None:
    """Add one call's flat findings (code, seq, note, …) to ``into``."""
    hits, notes = into.hits, into.notes
    for i in range(0, len(findings), 3):
        code = findings[i]
        runs = hits.get(code)
        if runs is None:
            runs = hits[code] = SeqRuns()
        runs.append(findings[i + 1])
        if findings[i + 2] is not None:
            notes.setdefault(code, findings[i + 2])
