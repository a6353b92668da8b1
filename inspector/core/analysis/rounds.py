"""Rounds and tool events: how a tool loop's session is laid out in a capture and an Analysis.

A tool loop records synthetic ``event`` records (:meth:`CaptureWriter.event`) beside the chunks
of each attempt. Their kinds:

==============  ===========================================================================
round           a round begins with this attempt: ``{"round", "mode", "session_t"}``
tool_dispatch   a closed call was dispatched: ``{"call_id", "name", "slot", "arguments",
                "position", "session_t"}``
tool_result     its result landed: :meth:`ToolResult.to_json` + ``position``, ``session_t``
loop_end        the loop stopped: ``{"reason", "rounds", "final_text", "session_t"}``
==============  ===========================================================================

Invariants:
- An event's ``t`` is seconds since its attempt's request (the chunks' clock); ``position``
  (a :class:`StreamPosition`) says how many chunks of the attempt had arrived, so chunks and
  events merge back into exact arrival order (:func:`merged`). Events without a position
  (another writer's) are placed by ``t``, after chunks of the same time.
- An attempt belongs to the round of the latest ``round`` event at or before it; attempts
  before any (every capture older than tool loops) are round 1, so a capture without events
  is one round, judged exactly as before.
- Every ``tool_dispatch`` is answered by exactly one ``tool_result`` of the same attempt
  (status ok, error or cancelled); invalid or unknown calls get a ``tool_result`` with no
  dispatch before it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from inspector.core.analysis.continuation import StreamPosition, ToolResult
from inspector.core.base.model import plain
from inspector.core.capture.reader import Attempt

if TYPE_CHECKING:
    from inspector.core.analysis.session import AttemptView

ROUND: Final = "round"
TOOL_DISPATCH: Final = "tool_dispatch"
TOOL_RESULT: Final = "tool_result"
LOOP_END: Final = "loop_end"
KINDS: Final = (ROUND, TOOL_DISPATCH, TOOL_RESULT, LOOP_END)


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


def stream_end(view: AttemptView) -> float | None:
    """Seconds from the attempt's request to the end of its body (end record, else last event)."""
    end = view.source.end if view.source is not None else None
    if end is not None and isinstance(end.get("t"), int | float):
        return float(end["t"])
    events = view.state.events
    return events[-1].t if events else None


@dataclass
class Round:
    """One model round: its attempts (a seed 1 retry makes two) and its tool traffic."""

    number: int
    """1-based round number."""
    attempts: list[AttemptView]
    """The round's attempts, in order; the last one's calls reach history."""

    @property
    def final(self) -> AttemptView:
        """The attempt whose calls were answered."""
        return self.attempts[-1]

    @property
    def events(self) -> list[ToolEvent]:
        """Every tool event of every attempt of the round, in arrival order."""
        return [e for view in self.attempts for e in view.events]

    @property
    def results(self) -> list[ToolResult]:
        """The final attempt's results, in the order they landed."""
        return self.final.results

    @property
    def stream_end(self) -> float | None:
        """Seconds from the final attempt's request to the end of its body."""
        return stream_end(self.final)

    @property
    def saved(self) -> float:
        """Seconds the round's wait for results was shorter than a sequential loop's (which
        starts every tool at the stream's end and waits for the slowest)."""
        end, results = self.stream_end, [r for r in self.results if r.completed is not None]
        if end is None or not results:
            return 0.0
        sequential = max(r.duration or 0.0 for r in results)
        streaming = max(0.0, max(r.completed.t for r in results if r.completed) - end)
        return max(0.0, sequential - streaming)

    def to_json(self) -> dict[str, Any]:
        """The ``analyze --json`` shape (``rounds`` entries)."""
        st = self.final.state
        end = self.stream_end
        return {
            "round": self.number,
            "attempts": [v.number for v in self.attempts],
            "finish_reason": st.finish_reason,
            "text": st.full_text,
            "tool_calls": [{"slot": v.call.slot, "id": plain(v.effective_id),
                            "name": plain(v.name)}
                           for v in self.final.verdicts if not v.orphan],
            "tool_results": [{**r.to_json(), "saved": round(r.saved(end), 6) if end else 0.0}
                             for r in self.results],
            "stream_end": end,
            "saved": round(self.saved, 6),
        }  # fmt: skip


def group(views: Sequence[AttemptView]) -> list[Round]:
    """Consecutive attempts with the same round number, as rounds."""
    out: list[Round] = []
    for view in views:
        if out and out[-1].number == view.round:
            out[-1].attempts.append(view)
        else:
            out.append(Round(view.round, [view]))
    return out
