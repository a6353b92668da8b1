"""Incremental Server-Sent Events decoder (WHATWG event-stream interpretation) with byte ranges.

Invariants:
- Chunking never changes the result: feeding a body in any pieces yields the same events
  (``seq``, ``kind``, fields, ``start``/``end``) as feeding it whole; only ``t`` differs.
  A line end is LF, CRLF or CR; a CR that ends a chunk is held back until the next byte shows
  whether an LF follows, so a CRLF split across chunks is one line end, never two.
- Lines are buffered whole and decoded as UTF-8 one complete line at a time, so multi-byte
  characters split across chunks decode correctly. Invalid UTF-8 yields an ERROR event at the
  absolute offset of the line's first bad byte, emitted before anything built from that line;
  the line is then decoded with U+FFFD replacements. No input makes the decoder raise.
- A UTF-8 BOM is stripped only at the very start of the stream (offset 0); the first line then
  starts at offset 3. A BOM anywhere else is ordinary data.
- Fields follow WHATWG: ``data`` lines join with "\\n"; ``event`` sets the type ("message"
  when unset or empty); ``id`` sets the last event ID, which persists across events, unless it
  contains U+0000; ``retry`` of ASCII digits only attaches an int to the event being built;
  unknown fields are ignored; one space after the colon is dropped; a line without a colon is
  a field name with an empty value.
- A blank line dispatches the event being built if it has at least one data line (WHATWG);
  otherwise the block is dropped (its ``id`` still updates the last event ID). ``close()``
  also dispatches a pending event that has data but no terminating blank line.
- Comment lines (":...") are emitted at once as COMMENT events covering their own line.
- Every emitted event gets ``seq`` 0, 1, 2, ... in emission order. EVENT ranges run from the
  first byte of the event's first field line to one past its blank line's line end (or EOF).
  COMMENT and ERROR events carry ``event=""``, ``id=None`` and ``retry=None``.
- Emission order keeps ``end`` non-decreasing; EVENT ``start`` values strictly increase.
- Work is linear in the bytes fed: an incomplete tail is kept as a list of pieces and joined
  once when a line end arrives, so 1-byte chunks of a long line never rescan the buffer.
- The common buffers are cut at once, in C, with exactly the result line by line gives: a run
  of chunks of one plain event each (:func:`~.plain.chunk_values`), a buffer of plain events,
  of typed ones or of comments (:func:`~.lines.at_once`); :attr:`SSEDecoder.plain` describes
  plain events cut that way to the stream's event log, in columns. Anything else (or any
  doubt) goes line by line, which defines the result.
- A ``data:`` line longer than ``LONG`` bytes is decoded straight from the buffer (no copy of
  the line, no copy of its value): the line's bytes are held at most twice (the pieces, then
  the joined buffer) besides the decoded value.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from itertools import accumulate, repeat
from operator import itemgetter
from typing import Any, Final

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.events.interpret import LineInterpreter
from inspector.core.events.lines import at_once, split_cr
from inspector.core.events.plain import PlainRun, built, chunk_values

__all__ = ["LONG", "SSE", "SSEDecoder", "SSEFraming", "decode_all"]

LONG = 1 << 20
"""A line longer than this is a long line (see the module's invariants)."""
_MANY = 2048  # bytes from which all-data blocks are worth trying at once (data_blocks)
_first, _second, _last = itemgetter(0), itemgetter(1), itemgetter(-1)

_BOM = b"\xef\xbb\xbf"
_EVENT = EventKind.EVENT
_COMMENT = EventKind.COMMENT


class SSEDecoder(LineInterpreter):
    """Feed raw body bytes in any chunking; get back the events each chunk completed."""

    def __init__(self) -> None:
        super().__init__()
        self.offset = 0
        """Total bytes fed so far."""
        self._head: bytes | None = b""  # first bytes while a leading BOM is undecided
        self._pending: list[bytes] = []  # incomplete tail: no LF, at most a final CR
        self._tail_cr = False
        self._runs: list[PlainRun] | None = None  # feed_lazy: plain runs left unbuilt
        self.plain: PlainRun | None = None
        """The columns of plain one-line data events the last call emitted at once (the last
        such stretch of them; :meth:`PlainRun.covers` tells whether it is all it returned)."""

    def feed(self, data: bytes, t: float = 0.0) -> list[SSEEvent]:
        """Consume one chunk arriving at time ``t``; return the events it completed."""
        self._t = t
        self.plain = None
        return self._feed(data, None, None)

    def _feed(
        self, data: bytes, ends: list[int] | None, times: list[float] | None
    ) -> list[SSEEvent]:
        """``feed``; with ``ends``/``times`` (one per joined chunk: its end offset and time)
        each event takes the time of the chunk holding the end of the line it is emitted on."""
        if not data:
            return []
        self.offset += len(data)
        if self._head is not None:
            data = self._strip_bom(data)
            if not data:
                return []
        pending = self._pending
        if not self._tail_cr and b"\n" not in data and b"\r" not in data:
            pending.append(data)
            return []
        if pending:
            pending.append(data)
            data = b"".join(pending)
            pending.clear()
        lines: list[bytes]
        eols: Iterable[int]
        out: list[SSEEvent] = []
        if b"\r" in data:
            lines, eols, tail = split_cr(data)
        elif len(data) > _MANY and self._idle() and (found := self._at_once(data)):
            tail = self._emit(*found, out, ends, times)
            lines = []
        elif len(data) > LONG:
            tail = self._run_long(data, out, ends, times)
            lines = []
        else:
            lines = data.split(b"\n")
            tail = lines.pop()
            eols = repeat(1)
        if lines:
            self._base = self._run(lines, eols, self._base, out, ends, times)
        if tail:
            pending.append(tail)
        self._tail_cr = tail.endswith(b"\r")
        return out

    def _at_once(self, data: bytes) -> tuple[Any, ...] | None:
        return at_once(data, self._comment_text, self._base)

    def _emit(self, kind: str, *found: Any) -> bytes:
        """Emit the events :func:`at_once` found (what :meth:`_run` would emit); ``found`` is
        what it gives after the kind, then ``out``, ``ends`` and ``times`` as in :meth:`_feed`."""
        values, bounds, tail, types, out, ends, times = found
        seq, last_id, stops = self._seq, self._last_id, bounds[1:]
        if ends is None:
            t = [self._t] * len(values)
        elif ends == stops:  # one event a chunk
            t = times
        else:  # each by the chunk holding its end
            t = list(map(times.__getitem__, map(bisect_left, repeat(ends), stops)))
        self._seq = seq + len(values)
        self._base = stops[-1]
        if last_id is not None or kind == _COMMENT or types is not None:
            out += built(kind, seq, bounds, values, types, last_id, t)
            if kind == _COMMENT:
                self._comment_text = values[-1]
            self.marked += len(values)
        elif self._runs is not None:  # feed_lazy: the run itself, no event built
            self._runs.append(PlainRun(seq, bounds, values, t, None))
        else:
            out += built(kind, seq, bounds, values, types, last_id, t)
            self.plain = PlainRun(seq, bounds, values, t, None)
        return bytes(tail)

    def feed_many(
        self, chunks: Iterable[tuple[float, bytes]], bounds: list[int] | None = None
    ) -> list[SSEEvent]:
        """Consume several ``(t, data)`` chunks: exactly the events (``t`` included) that
        feeding them one by one gives, at a fraction of the per-call cost. ``bounds``, when the
        caller has them: each chunk's absolute start offset, then the last one's end.

        A run of chunks that each end with LF (the last one may end anywhere) is joined and
        decoded at once; each event then takes the time of the chunk that held the end of the
        line it was emitted on, which is where one-by-one feeding would have emitted it. A
        chunk ending in anything else closes its run, so a CR held back at a chunk's end (it
        may start a CRLF) never falls inside a joined run.
        """
        out: list[SSEEvent] = []
        self.plain = None
        if isinstance(chunks, list) and len(chunks) > 2 and self._head is not None:
            out = self.feed(chunks[0][1], chunks[0][0])  # decides whether a BOM leads
            return out + self.feed_many(chunks[1:], None if bounds is None else bounds[1:])
        if isinstance(chunks, list) and len(chunks) > 1 and self._head is None:
            datas = list(map(_second, chunks))  # one run, the common case: checked in C
            if bounds is None or len(bounds) != len(datas) + 1 or bounds[0] != self.offset:
                bounds = list(accumulate(map(len, datas), initial=self.offset))
            if self._clean() and (values := chunk_values(datas)) is not None:
                return self._chunk_events(chunks, bounds, datas, values)
            if all(datas) and list(map(_last, datas[:-1])).count(10) == len(datas) - 1:
                self._feed_run(chunks, out, datas, bounds)
                return out
        run: list[tuple[float, bytes]] = []
        for chunk in chunks:
            data = chunk[1]
            if self._head is not None or not data:  # BOM undecided, or empty: one by one
                if run:
                    self._feed_run(run, out)
                    run = []
                out += self.feed(data, chunk[0])
                continue
            run.append(chunk)
            if data[-1] != 10:  # not LF: the run ends here
                self._feed_run(run, out)
                run = []
        if run:
            self._feed_run(run, out)
        return out

    def feed_lazy(
        self, chunks: list[tuple[float, bytes]], bounds: list[int]
    ) -> tuple[list[SSEEvent], list[PlainRun]]:
        """:meth:`feed_many`, except that the stretches of plain events cut at once (a network
        read of many whole ``data:`` events and a cut one carried on) are left as runs, no
        event object built: the events it built, and those runs. Together they are exactly
        the events :meth:`feed_many` returns (times included); by ``seq``, a run's events
        come after the built events with a lower ``seq`` and before those with a higher one.
        ``bounds`` as in :meth:`feed_many`."""
        runs: list[PlainRun] = []
        self._runs = runs
        try:
            events = self.feed_many(chunks, bounds)
        finally:
            self._runs = None
        self.plain = None
        return events, runs

    @property
    def fresh(self) -> bool:
        """Whether a leading BOM is still undecided (nothing, or only a BOM's first bytes, fed
        yet): the first bytes are fed on their own."""
        return self._head is not None

    def feed_plain(
        self, chunks: Sequence[tuple[float, bytes]], bounds: list[int]
    ) -> PlainRun | None:
        """Consume ``chunks`` at once if each is exactly one plain data event (see
        :func:`chunk_values`) and nothing is held back: their events in columns, no event
        object built (:meth:`PlainRun.events` builds them on demand, equal to what
        :meth:`feed_many` returns). None, consuming nothing, otherwise. ``bounds``: each
        chunk's absolute start offset, then the last one's end."""
        self.plain = None
        if len(chunks) < 2 or self._head is not None or not self._clean():
            return None
        if len(bounds) != len(chunks) + 1 or bounds[0] != self.offset:
            return None
        datas = list(map(_second, chunks))
        values = chunk_values(datas)
        if values is None:
            return None
        return self._take(chunks, bounds, datas, values)

    def _clean(self) -> bool:
        """Nothing held back, no event being built, no id in force: a chunk of one plain event
        gives just that event."""
        return (
            not self._pending
            and self._base == self.offset
            and self._last_id is None
            and not self._tail_cr
            and self._idle()
        )

    def _chunk_events(
        self,
        chunks: list[tuple[float, bytes]],
        bounds: list[int],
        datas: list[bytes],
        values: list[str],
    ) -> list[SSEEvent]:
        """The events of chunks that are one plain event each (:func:`chunk_values`): event
        ``i`` is chunk ``i``, at its time (where feeding them one by one would emit it)."""
        return list(self._take(chunks, bounds, datas, values).events())

    def _take(
        self,
        chunks: Sequence[tuple[float, bytes]],
        bounds: list[int],
        datas: list[bytes],
        values: list[str],
    ) -> PlainRun:
        """Take chunks that are one plain event each as consumed: their run."""
        times = list(map(_first, chunks))
        seq = self._seq
        self.offset = self._base = bounds[-1]
        self._seq = seq + len(values)
        self._t = times[-1]
        self.plain = run = PlainRun(seq, bounds, values, times, datas)
        return run

    def _feed_run(
        self,
        run: list[tuple[float, bytes]],
        out: list[SSEEvent],
        datas: list[bytes] | None = None,
        bounds: list[int] | None = None,
    ) -> None:
        if len(run) == 1:
            out += self.feed(run[0][1], run[0][0])
            return
        datas = datas or list(map(_second, run))
        # Inside a run only the first line can start before its chunk (in bytes held from
        # earlier), so every line, and every event's ``end`` on it (an ERROR's bad byte too),
        # lies in the chunk whose end it is emitted at: that chunk's time is the event's.
        if bounds is None:
            bounds = list(accumulate(map(len, datas), initial=self.offset))
        ends = bounds[1:]
        times = list(map(_first, run))
        self._t = times[-1]
        out += self._feed(b"".join(datas), ends, times)

    def close(self, t: float | None = None) -> list[SSEEvent]:
        """End of stream: finish a partial last line and dispatch a pending event with data."""
        if t is not None:
            self._t = t
        self.plain = None
        out: list[SSEEvent] = []
        if self._head:  # fewer than 3 bytes, all a BOM prefix: they are content
            self._pending.append(self._head)
        self._head = None
        tail = b"".join(self._pending)
        self._pending.clear()
        self._tail_cr = False
        lines: list[bytes] = []
        eols: list[int] = []
        if tail:
            cr = tail.endswith(b"\r")
            lines.append(tail[:-1] if cr else tail)
            eols.append(1 if cr else 0)
        lines.append(b"")  # the end of the stream acts as a blank line (of no bytes): a
        eols.append(0)  # pending event with data is dispatched, and the block state reset
        self._base = self._run(lines, eols, self._base, out)
        return out

    def _strip_bom(self, data: bytes) -> bytes:
        """Collect the first bytes until a leading BOM is ruled in (and dropped) or out."""
        head = self._head + data if self._head else data
        if len(head) < 3 and _BOM.startswith(head):
            self._head = head
            return b""
        self._head = None
        if head.startswith(_BOM):
            self._base = 3
            return head[3:]
        return head

    def _run_long(
        self, data: bytes, out: list[SSEEvent], ends: list[int] | None, times: list[float] | None
    ) -> bytes:
        """Interpret the complete lines of a large buffer without CRs, a long ``data:`` line
        decoded in place; return the incomplete tail."""
        pos, n = 0, len(data)
        view = memoryview(data)
        while pos < n:
            nl = data.find(b"\n", pos)
            if nl < 0:
                break
            if nl - pos <= LONG:  # ordinary lines: every line up to LONG bytes on, at once
                cut = data.rfind(b"\n", pos, pos + LONG + 1) + 1
                lines = data[pos:cut].split(b"\n")
                lines.pop()
                self._base = self._run(lines, repeat(1), self._base, out, ends, times)
                pos = cut
            elif data.startswith(b"data: ", pos):
                self._long_data(view[pos + 6 : nl], out, ends, times)
                pos = nl + 1
            else:
                self._base = self._run([data[pos:nl]], [1], self._base, out, ends, times)
                pos = nl + 1
        return data[pos:]

    def _long_data(
        self, value: memoryview, out: list[SSEEvent], ends: list[int] | None, t: list[float] | None
    ) -> None:
        """A long ``data:`` line (``value`` is the field's value): what :meth:`_run` does."""
        start = self._base
        end = self._base = start + 6 + len(value) + 1
        try:
            text = str(value, "utf-8")
        except UnicodeDecodeError as exc:
            when = self._t if ends is None or t is None else t[bisect_left(ends, end)]
            text = self._invalid(value, self._seq, start + 6, exc, out, when)
            self._seq += 1
            self.marked += 1
        self._data.append(text)
        if self._ev_start < 0:
            self._ev_start = start


def decode_all(body: bytes) -> list[SSEEvent]:
    """Decode a whole body at once: feed it in one chunk, then close."""
    decoder = SSEDecoder()
    events = decoder.feed(body)
    events += decoder.close()
    return events


class SSEFraming:
    """Server-sent events: the default :class:`~inspector.core.base.provider.Framing` (every
    built-in provider's), whose plain events the event log reads back from the chunks."""

    name = "sse"
    reads_back = True

    def decoder(self) -> SSEDecoder:
        """A fresh decoder for one body."""
        return SSEDecoder()


SSE: Final = SSEFraming()
"""The SSE framing: what a provider's ``framing`` is unless it says otherwise."""
