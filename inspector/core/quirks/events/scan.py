"""The ``events`` family's detector: the events and the deltas that carry no call fragment,
as the wire scan (:class:`~inspector.core.quirks.wirescan.WireScan`) hands them over.

Invariants:
- :meth:`EventScan.events` reads the events appended since its last call and builds none but
  the first comment of a run (for the note) and the error events: a million keep-alive
  comments in a row are added as one run of chunks.
- :meth:`EventScan.delta` is given each non-tool delta once, in arrival order: what one shows
  by itself (:func:`~.deltas.delta_quirks`), with the few before it (tags in the text, fields
  of the wrong type) or with the finishes before it (:class:`~.finishes.Finishes`).
- :meth:`EventScan.after_done` draws ``data_after_done`` from the stream so far as a whole,
  into the caller's collector: every event after the end marker but comments and keep-alives.
"""

from __future__ import annotations

from inspector.core.base.model import UTF8_ERROR, Delta, DeltaKind, EventKind
from inspector.core.calls.stream import StreamState
from inspector.core.events.log import EventLog
from inspector.core.quirks.codes import (
    BAD_FRAME,
    DATA_AFTER_DONE,
    INVALID_UTF8,
    KEEPALIVE_COMMENTS,
)
from inspector.core.quirks.events.deltas import TextTags, WrongFields, delta_quirks
from inspector.core.quirks.events.finishes import Finishes
from inspector.core.quirks.events.wrongtype import describe, field_problem
from inspector.core.quirks.seen import Seen
from inspector.core.quirks.seqruns import SeqRuns

_COMMENT = EventKind.COMMENT
_ERROR = EventKind.ERROR
_KEEPALIVE = DeltaKind.KEEPALIVE


class EventScan:
    """What one stream's events and non-tool deltas showed so far (see the module docstring).
    Its hits go to ``seen``, the wire scan's collector."""

    __slots__ = ("_fields", "_finishes", "_keepalive", "_tags", "events_done", "seen")

    def __init__(self, seen: Seen) -> None:
        self.seen = seen
        self.events_done = 0
        """Events scanned."""
        self._keepalive = SeqRuns()  # chunks of keep-alive deltas that are no comment event
        self._tags = TextTags()  # tool-call tags in the text
        self._fields = WrongFields()  # fields of the wrong type
        self._finishes = Finishes()

    def events(self, events: EventLog) -> None:
        """Comments and undecodable bytes among the events since the last call, found without
        building the others: a run of consecutive comments is added at once (a million
        keep-alives in a row: one run, and one event built for the note)."""
        start = self.events_done
        seen = self.seen
        for lo, hi in events.runs(_COMMENT, start):
            note = None
            if KEEPALIVE_COMMENTS not in seen.hits:
                note = f"{events[lo].comment.strip()!r}"
            seen.add(KEEPALIVE_COMMENTS, lo, note)
            runs = seen.hits[KEEPALIVE_COMMENTS]
            assert isinstance(runs, SeqRuns)  # a compact Seen
            runs.add_run(lo + 1, hi)
        for ev in events.select(_ERROR, start):  # a framing's other errors: its frames
            code = INVALID_UTF8 if ev.data.startswith(UTF8_ERROR) else BAD_FRAME
            seen.add(code, ev.seq, ev.data)
        self.events_done = len(events)

    def delta(self, d: Delta) -> None:
        """The non-tool delta ``d``, after every one before it."""
        kind = d.kind
        if kind == _KEEPALIVE:  # a keep-alive that is no comment event (a ping)
            self._keepalive.append(d.seq)
        elif kind == DeltaKind.FINISH:
            self._finishes.feed(d, self.seen)
        elif kind == DeltaKind.TEXT and isinstance(d.value, str):
            self._tags.feed(d.seq, d.value, self.seen)
        elif kind == DeltaKind.UNKNOWN:
            problem = field_problem(d)
            if problem is not None:
                self._fields.add(d.seq, describe(problem), self.seen)
                return
        delta_quirks(d, self.seen)

    def after_done(self, state: StreamState, out: Seen) -> None:
        """Add to ``out`` the events after ``state``'s end marker (events, not deltas: a chunk
        that maps to no delta still counts; comments and keep-alives do not)."""
        done = state.done_seq
        if done is None:
            return
        for kind in (EventKind.EVENT, _ERROR):  # comments built not even then
            for ev in state.events.select(kind, done + 1):
                if ev.seq not in self._keepalive:
                    out.add(DATA_AFTER_DONE, ev.seq)
