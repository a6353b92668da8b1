"""Tool events: how a tool loop's session, round by round, is laid out in a capture.

A tool loop records synthetic ``event`` records (:meth:`CaptureWriter.event`) beside the chunks
of each attempt. Their kinds:

==============  ===========================================================================
round           a round begins with this attempt: ``{"round", "mode", "session_t"}``
tool_dispatch   a closed call was dispatched: ``{"call_id", "name", "slot", "arguments",
                "position", "session_t"}``
tool_result     its result landed: :meth:`ToolResult.to_json` + ``position``, ``session_t``
loop_end        the loop stopped: ``{"reason", "rounds", "final_text", "session_t"}``
agent_left      (the recording proxy) the agent hung up here; the chunks after it were read
                from the upstream for the recording only: ``{"relayed", "position"}``
==============  ===========================================================================

Invariants:
- An event's ``t`` is seconds since its attempt's request (the chunks' clock); ``position``
  (a :class:`StreamPosition`) says how many chunks of the attempt had arrived, so chunks and
  events merge back into exact arrival order (:func:`merged`). Events without a position
  (another writer's) are placed by ``t``, after chunks of the same time.
- An attempt belongs to the round of the latest ``round`` event at or before it; attempts
  before any (every capture older than tool loops) are round 1, so a capture without events
  is one round, judged exactly as before (the grouping:
  :class:`inspector.core.analysis.attempt.Round`).
- Every ``tool_dispatch`` is answered by exactly one ``tool_result`` of the same attempt
  (status ok, error or cancelled); invalid or unknown calls get a ``tool_result`` with no
  dispatch before it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from inspector.core.analysis.continuation import StreamPosition, ToolResult
from inspector.core.capture.records import Attempt

ROUND: Final = "round"
TOOL_DISPATCH: Final = "tool_dispatch"
TOOL_RESULT: Final = "tool_result"
LOOP_END: Final = "loop_end"
AGENT_LEFT: Final = "agent_left"
KINDS: Final = (ROUND, TOOL_DISPATCH, TOOL_RESULT, LOOP_END, AGENT_LEFT)


@dataclass(frozen=True)
class ToolEvent:
    """One synthetic timeline event, as recorded."""

    kind: str
    """round | tool_dispatch | tool_result | loop_end (others are kept, not interpreted)."""
    attempt: int
    """The capture attempt it belongs to."""
    t: float
    """Seconds since that attempt's request."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """The record's ``data``, verbatim."""

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ToolEvent:
        """An ``event`` record (as :func:`inspector.core.capture.reader.load` returns it)."""
        t = record.get("t")
        data = record.get("data")
        return cls(str(record.get("kind")), int(record.get("attempt") or 0),
                   float(t) if isinstance(t, int | float) else 0.0,
                   data if isinstance(data, dict) else {})  # fmt: skip

    def to_record(self) -> dict[str, Any]:
        """The capture record (what :meth:`CaptureWriter.event` writes)."""
        return {"type": "event", "attempt": self.attempt, "t": self.t, "kind": self.kind,
                "data": dict(self.data)}  # fmt: skip

    @property
    def position(self) -> StreamPosition | None:
        """Where the stream was when the event happened (None for foreign events)."""
        return StreamPosition.from_json(self.data.get("position"))

    @property
    def call_id(self) -> str | None:
        """The call id a ``tool_dispatch`` or ``tool_result`` names (None when it names none,
        or something that is not a string: ``data`` is read from a file, verbatim)."""
        value = self.data.get("call_id")
        return value if type(value) is str else None

    @property
    def session_t(self) -> float | None:
        """Seconds since the session began, when recorded."""
        value = self.data.get("session_t")
        return float(value) if isinstance(value, int | float) else None

    @property
    def result(self) -> ToolResult | None:
        """The :class:`ToolResult` of a ``tool_result`` event (None for other kinds)."""
        return ToolResult.from_json(self.data, self.attempt) if self.kind == TOOL_RESULT else None


def merged(attempt: Attempt) -> Iterator[tuple[float, bytes | None, ToolEvent | None]]:
    """The attempt's chunks and events in arrival order: ``(t, chunk, None)`` or
    ``(t, None, event)`` (see the module docstring)."""
    events = [ToolEvent.from_record(r) for r in attempt.events]
    if not events:
        for t, data in attempt.chunks:
            yield t, data, None
        return
    slots: list[tuple[int, float, int, ToolEvent]] = []
    for order, ev in enumerate(events):
        pos = ev.position
        after = pos.chunks if pos is not None else sum(1 for t, _ in attempt.chunks if t <= ev.t)
        slots.append((min(after, len(attempt.chunks)), ev.t, order, ev))
    slots.sort(key=lambda s: (s[0], s[2]))
    i = 0
    for n, (t, data) in enumerate(attempt.chunks):
        while i < len(slots) and slots[i][0] <= n:
            yield slots[i][1], None, slots[i][3]
            i += 1
        yield t, data, None
    for _, t, _, ev in slots[i:]:
        yield t, None, ev
