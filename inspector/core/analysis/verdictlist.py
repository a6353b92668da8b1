"""One attempt's verdicts kept current in O(calls that changed) (:class:`VerdictList`).

A verdict changes only when its call's shape does (fragments, open, truncated: see
:func:`~inspector.core.verdicts.judge.call_shape`), when its call is another object (a policy
flip rebuilds every call) or when what calls are judged under does (the judgement's
:meth:`~inspector.core.analysis.judgement.Judgement.basis`). So after new data, only these
calls are judged again:

- the calls opened since the last look;
- the calls open at the last look (only an open call takes fragments in order, closes or is
  found truncated);
- a closed call that took a late fragment: every tool-call delta lands in exactly one call's
  fragments or in the accumulator's ``unrouted``, so when the new tool-call deltas are more
  than the fragments the first two kinds took (less the new unrouted ones), some closed call
  took one, and every call is judged again (late fragments are rare).

Invariants: the list read is always what judging every call afresh would give (tests compare
the two on streams fed piece by piece); it is a new list whenever a verdict in it changed
(a reader may keep an old one), and the judgement's per-slot cache stays the one source of
verdicts (:meth:`~inspector.core.analysis.judgement.Judgement.verdict`).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from inspector.core.analysis.judgement import Judgement
from inspector.core.base.model import DeltaKind
from inspector.core.calls.stream import StreamState
from inspector.core.calls.toolcall import ToolCall
from inspector.core.verdicts.judge import CallVerdict

_kind = attrgetter("kind")
_TOOL = DeltaKind.TOOL_CALL


class VerdictList:
    """The verdicts of one stream's calls, in lane order (see the module docstring)."""

    __slots__ = (
        "_basis",
        "_calls",
        "_counted",
        "_open",
        "_tool_deltas",
        "_unrouted",
        "deltas",
        "verdicts",
    )

    def __init__(self) -> None:
        self.verdicts: list[CallVerdict] = []
        """Per call, in lane order."""
        self.deltas = 0
        """Deltas of the stream counted so far."""
        self._counted = 0  # tool-call deltas among them
        self._tool_deltas = 0  # tool-call deltas at the last look
        self._calls: list[Any] | None = None  # the calls list judged (a flip makes another)
        self._basis: tuple[Any, ...] | None = None
        self._open: dict[int, int] = {}  # slot of a call open at the last look -> its fragments
        self._unrouted = 0  # the accumulator's unrouted fragments at the last look

    def refresh(self, judgement: Judgement, state: StreamState) -> list[CallVerdict]:
        """The verdicts now, judging again only the calls that may have changed."""
        tool_deltas = self._count(state)
        calls = state.calls
        basis = judgement.basis(state)
        unrouted = len(state.acc.unrouted) if state.acc is not None else 0
        if calls is not self._calls or basis is not self._basis:
            self._all(judgement, state, calls)
        else:
            old = self.verdicts
            fresh = [*self._open, *range(len(old), len(calls))]
            grown = 0
            for slot in fresh:
                call = calls[slot]
                if type(call) is ToolCall:
                    grown += call.fragment_count - self._open.get(slot, 0)
            if grown != tool_deltas - self._tool_deltas - (unrouted - self._unrouted):
                self._all(judgement, state, calls)  # a closed call took a late fragment
            elif fresh:
                verdicts = old.copy()
                verdict = judgement.verdict
                for slot in fresh:
                    v = verdict(state, calls[slot])
                    if slot < len(verdicts):
                        verdicts[slot] = v
                    else:
                        verdicts.append(v)
                self.verdicts = verdicts
                self._open = _open_of(calls, fresh)
        self._calls, self._basis = calls, basis
        self._tool_deltas, self._unrouted = tool_deltas, unrouted
        return self.verdicts

    def _all(self, judgement: Judgement, state: StreamState, calls: list[Any]) -> None:
        """Every call judged (from the judgement's cache where it still holds)."""
        verdict = judgement.verdict
        self.verdicts = [verdict(state, c) for c in calls]
        self._open = _open_of(calls, range(len(calls)))

    def _count(self, state: StreamState) -> int:
        """Tool-call deltas in the stream so far (only the new ones are looked at)."""
        deltas = state.deltas
        n = len(deltas)
        if n != self.deltas:
            self._counted += list(map(_kind, deltas.stored(self.deltas))).count(_TOOL)
            self.deltas = n
        return self._counted


def _open_of(calls: list[Any], slots: Any) -> dict[int, int]:
    """Slot -> fragments of the calls among ``slots`` still open."""
    return {s: calls[s].fragment_count for s in slots if calls[s].open}
