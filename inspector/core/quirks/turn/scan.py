"""The ``turn`` family's detectors: what only the turn as a whole shows, once its finish or
its end is known.

Invariants:
- :func:`scan_turn` is a pure function of the stream and of what every call showed (the
  :class:`~inspector.core.quirks.calls.fold.Look`): calls left as text, gaps in the wire
  indexes (when the provider lists ``sparse_index``), a finish that is no tool finish for the
  turn's calls (asked of the provider; hosted items are not the agent's calls, and in a body
  that joins responses only the last one's calls count), and a stream that ended without a
  finish or without the provider's end marker. Nothing while the provider is unknown (still
  sniffing).
- :class:`Truncation` gives ``silent_truncation`` per wire lane once the last finish claims a
  normal end (:func:`claimed_end`), worked out again only when deltas arrived since: O(lanes),
  since the wire scan follows each lane's text as a JSON state while it streams
  (:mod:`inspector.core.quirks.lanes.text`).
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.kinds import CallKind
from inspector.core.base.provider import Provider
from inspector.core.calls.accumulator import CUTOFF_REASONS
from inspector.core.calls.stream import StreamState
from inspector.core.calls.textcalls import from_text, written_notes
from inspector.core.quirks.calls.fold import Look
from inspector.core.quirks.codes import (
    FINISH_REASON_MISMATCH,
    MISSING_DONE,
    MISSING_FINISH_REASON,
    SILENT_TRUNCATION,
    SPARSE_INDEX,
    TEXT_MODE_TOOL_CALL,
)
from inspector.core.quirks.events.finishes import MALFORMED_CALL_REASONS
from inspector.core.quirks.seen import Seen
from inspector.core.quirks.wirescan import WireScan

NOTHING = Seen()
"""An empty collector (never added to)."""


def scan_turn(state: StreamState, seen: Seen, provider: Provider | None, look: Look) -> None:
    """Add to ``seen`` what the turn as a whole shows so far (see the module docstring)."""
    if provider is None:  # still sniffing: no deltas, no calls, not ended
        return
    for seq, note in written_notes(look.written):  # the provider left these calls as text
        seen.add(TEXT_MODE_TOOL_CALL, seq, note)
    if SPARSE_INDEX in provider.checks and not look.gapless:
        indexes = sorted({c.index for c in state.calls if type(c.index) is int})
        if indexes and indexes != list(range(len(indexes))):
            gap = next(i for n, i in enumerate(indexes) if i != n)  # the first out-of-place one
            first = next(c for c in state.calls if c.index == gap)
            seen.add(SPARSE_INDEX, first.fragments[0].seq, f"indexes {indexes}")
    calls = look.turn
    if state.segment_start >= 0:  # responses joined in one body: the last one's calls
        calls = _calls_since(state, state.segment_start)
    reason = state.finish_reason
    if calls and state.finish and reason != "" and not provider.is_tool_finish(reason, calls):
        seen.add(
            FINISH_REASON_MISMATCH, state.finish[-1][0], f"{reason!r} with {calls} tool call(s)"
        )
    last = state.events[-1].seq if state.events else 0
    if state.ended and not state.finish and state.events:
        seen.add(MISSING_FINISH_REASON, last)
    marker = provider.end_marker
    if state.ended and marker is not None and state.done_seq is None and state.events:
        seen.add(MISSING_DONE, last, f"no {marker}")


def _calls_since(state: StreamState, seq: int) -> int:
    """The agent's calls (no hosted item, orphan or call written in text) opened after
    chunk ``seq``."""
    acc = state.acc
    return sum(
        1
        for c in state.calls
        if not from_text(c)
        and c.fragments[0].seq > seq
        and c.kind != CallKind.HOSTED
        and not (acc is not None and acc.is_orphan(c))
    )


def claimed_end(state: StreamState) -> tuple[int, str] | None:
    """(chunk, reason) of the finish when it claims the output ended normally: a reason that is
    no cut-off, no rejected call and not empty, in a stream that reported no error."""
    if not state.finish or state.errors:
        return None
    seq, reason = state.finish[-1]
    if type(reason) is not str or not reason or reason in CUTOFF_REASONS:
        return None
    return None if reason in MALFORMED_CALL_REASONS else (seq, reason)


class Truncation:
    """``silent_truncation`` of one stream, kept until deltas arrive (see the module
    docstring)."""

    __slots__ = ("_cut",)

    def __init__(self) -> None:
        self._cut: tuple[Any, Seen] = ((), Seen())

    def seen(self, state: StreamState, wire: WireScan) -> Seen:
        """Per wire lane whose text is a proper prefix of JSON under a finish that claims a
        normal end: its last chunk, and the finish's. ``wire`` is the stream's wire scan."""
        claimed = claimed_end(state)
        if claimed is None:
            return NOTHING
        key = (len(state.deltas), claimed)
        if self._cut[0] != key:
            wire.advance(state)  # a no-op after detect's own
            seen = Seen()
            for seq, label in wire.texts.cut():
                seen.add(SILENT_TRUNCATION, seq, f"{label} under {claimed[1]!r}")
                seen.add(SILENT_TRUNCATION, claimed[0])
            self._cut = (key, seen)
        return self._cut[1]
