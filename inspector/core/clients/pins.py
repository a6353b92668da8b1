"""Where a library's own reading of a body lands among the inspector's wire events.

Replicas whose library decodes the body's bytes itself (its own line splitting, UTF-8 handling
and event framing) re-read ``Exchange.body`` and pin each thing the library does to the
inspector event it follows, so the driver feeds it at the right ``seq``.

Invariants:
- :meth:`Pins.at` is the ``seq`` of the last inspector event ending at or before a byte offset
  (-1 before the first), :meth:`Pins.within` the event holding it; pins never decrease.
- :meth:`Pins.bad_line` pins a line the library cannot decode to the inspector's own ERROR
  event inside that line, when there is one and it is not behind the pins already given.
- :func:`lines` splits at CR, LF and CRLF (the SSE line ends) and yields every line with its
  byte range; a last line without its line end comes with ``ended=False``.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from inspector.core.base.model import EventKind, SSEEvent

_LINE_END: Final = re.compile(b"\r\n|\r|\n")


class Pins:
    """Byte offsets to inspector ``seq`` numbers (see the module's invariants)."""

    def __init__(self, events: Sequence[SSEEvent]) -> None:
        self.events = events
        offsets = getattr(events, "offsets", None)  # a column of them, when the events have one
        self.ends: Sequence[int] = (
            offsets()[1] if callable(offsets) else array("q", (ev.end for ev in events))
        )
        """Each event's end offset (8 bytes an event, no int object each)."""
        self.floor = -1

    def at(self, offset: int) -> int:
        """The last event ending at or before ``offset`` (never below an earlier pin)."""
        k = bisect_right(self.ends, offset) - 1
        self.floor = max(self.floor, self.events[k].seq if k >= 0 else -1)
        return self.floor

    def within(self, offset: int) -> int:
        """The event whose bytes hold ``offset`` (the first ending at or after it): where a
        library that acts in the middle of an event (on one of its lines) acts."""
        k = bisect_left(self.ends, offset)
        if k < len(self.events):
            self.floor = max(self.floor, self.events[k].seq)
        return self.floor

    def bad_line(self, start: int, end: int) -> int:
        """The inspector's ERROR event for an undecodable line ``[start, end)``."""
        fallback = self.at(end)
        for ev in self.events:
            if ev.kind == EventKind.ERROR and start <= ev.start < end:
                return ev.seq if ev.seq <= fallback else fallback
        return fallback


def lines(body: bytes) -> Iterator[tuple[int, int, bytes, bool]]:
    """``(start, end, line, ended)`` per line: ``end`` is past its line end (see above)."""
    pos = 0
    for match in _LINE_END.finditer(body):
        yield pos, match.end(), body[pos : match.start()], True
        pos = match.end()
    if pos < len(body):
        yield pos, len(body), body[pos:], False


def utf8_error(raw: bytes) -> str:
    """``str()`` of the UnicodeDecodeError decoding ``raw`` strictly raises ("" if none)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return str(exc)
    return ""


def stops(seqs: Sequence[int], last: int | None) -> Iterator[int]:
    """The distinct pins (never below 0) of ``seqs`` (ascending) and then ``last``."""
    prev = -1
    for seq in seqs:
        if seq > prev:
            prev = seq
            yield seq
        elif prev < 0:
            prev = 0
            yield 0
    if last is not None and last > prev:
        yield last
    elif last is not None and prev < 0:
        yield 0


def pinned(
    events: Sequence[SSEEvent], seqs: Sequence[int], last: int | None = None
) -> Iterable[SSEEvent]:
    """The events at :func:`stops` of ``seqs`` and ``last`` (what a run that only acts at
    its pins must be fed), or every event when they are not numbered by position."""
    if not events or events[0].seq != 0 or events[-1].seq != len(events) - 1:
        return events
    return (events[seq] for seq in stops(seqs, last))


BLOCK: Final = 64
"""Events built at once by :func:`of_kind` (a slice, not the whole run of a kind at once:
a run of 200,000 dispatches is never built in one piece)."""


def of_kind(events: Sequence[SSEEvent], kind: str) -> Iterable[SSEEvent]:
    """The events of one kind, in order: built a block at a time within the runs of that
    kind where the events can say where those are (``runs``), else every event looked at."""
    runs = getattr(events, "runs", None)
    if not callable(runs):
        return (event for event in events if event.kind == kind)
    spans: Iterable[tuple[int, int]] = runs(kind)
    return (
        e for lo, hi in spans for a in range(lo, hi, BLOCK) for e in events[a : min(hi, a + BLOCK)]
    )
