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
- A ``data:`` line longer than ``LONG`` bytes is decoded straight from the buffer (no copy of
  the line, no copy of its value): the line's bytes are held at most twice (the pieces, then
  the joined buffer) besides the decoded value.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from itertools import accumulate, repeat
from operator import itemgetter
from typing import Any

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.events.lines import at_once, built, parse_retry, split_cr

__all__ = ["LONG", "SSEDecoder", "decode_all"]

LONG = 1 << 20
"""A line longer than this is a long line (see the module's invariants)."""
_MANY = 2048  # bytes from which all-data blocks are worth trying at once (data_blocks)
_NEVER = 1 << 62
_first, _second, _last = (
    itemgetter(0),
    itemgetter(1),
    itemgetter(-1),
)  # past any offset: no chunk boundary to look for

_BOM = b"\xef\xbb\xbf"
_EVENT = EventKind.EVENT
_COMMENT = EventKind.COMMENT
_ERROR = EventKind.ERROR


class SSEDecoder:
    """Feed raw body bytes in any chunking; get back the events each chunk completed."""

    def __init__(self) -> None:
        self.offset = 0
        """Total bytes fed so far."""
        self._t = 0.0
        self._seq = 0
        self._head: bytes | None = b""  # first bytes while a leading BOM is undecided
        self._pending: list[bytes] = []  # incomplete tail: no LF, at most a final CR
        self._tail_cr = False
        self._base = 0  # absolute offset of the first pending byte
        self._data: list[str] = []
        self._etype = ""
        self._last_id: str | None = None
        self._retry: int | None = None
        self._ev_start = -1  # first byte of the event being built; -1 when none
        self._comment_text = ""  # the last comment's text: a repeated one shares its string
        self.marked = 0
        """How many events emitted so far are not plain: a comment, an error, or an event with
        an ``event:`` type, an id or a retry (a reader may skip looking for those when this
        count did not move)."""

    def feed(self, data: bytes, t: float = 0.0) -> list[SSEEvent]:
        """Consume one chunk arriving at time ``t``; return the events it completed."""
        self._t = t
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
        elif len(data) > _MANY and self._idle() and (found := at_once(data, self._comment_text)):
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

    def _idle(self) -> bool:
        """No event is being built: the next line starts a block afresh."""
        return self._ev_start < 0 and not self._data and not self._etype and self._retry is None

    def _emit(self, kind: str, *found: Any) -> bytes:
        """Emit the events :func:`at_once` found (what :meth:`_run` would emit); ``found`` is
        what it gives after the kind, then ``out``, ``ends`` and ``times`` as in :meth:`_feed`."""
        values, offsets, tail, types, out, ends, times = found
        base, seq, last_id = self._base, self._seq, self._last_id
        stops = [base + o for o in offsets] if base else offsets
        t: Iterable[float] = repeat(self._t) if ends is None else times
        if ends is not None and ends != stops:  # each by the chunk holding its end
            t = map(times.__getitem__, map(bisect_left, repeat(ends), stops))
        out += built(kind, seq, [base, *stops], values, types, last_id, t)
        if kind == _COMMENT:
            self._comment_text = values[-1]
        self._seq = seq + len(values)
        self._base = stops[-1]
        if last_id is not None or kind == _COMMENT or types is not None:
            self.marked += len(values)
        return bytes(tail)

    def feed_many(self, chunks: Iterable[tuple[float, bytes]]) -> list[SSEEvent]:
        """Consume several ``(t, data)`` chunks: exactly the events (``t`` included) that
        feeding them one by one gives, at a fraction of the per-call cost.

        A run of chunks that each end with LF (the last one may end anywhere) is joined and
        decoded at once; each event then takes the time of the chunk that held the end of the
        line it was emitted on, which is where one-by-one feeding would have emitted it. A
        chunk ending in anything else closes its run, so a CR held back at a chunk's end (it
        may start a CRLF) never falls inside a joined run.
        """
        out: list[SSEEvent] = []
        if isinstance(chunks, list) and len(chunks) > 1 and self._head is None:
            datas = list(map(_second, chunks))  # one run, the common case: checked in C
            if all(datas) and list(map(_last, datas[:-1])).count(10) == len(datas) - 1:
                self._feed_run(chunks, out, datas)
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

    def _feed_run(
        self, run: list[tuple[float, bytes]], out: list[SSEEvent], datas: list[bytes] | None = None
    ) -> None:
        if len(run) == 1:
            out += self.feed(run[0][1], run[0][0])
            return
        datas = datas or list(map(_second, run))
        # Inside a run only the first line can start before its chunk (in bytes held from
        # earlier), so every line, and every event's ``end`` on it (an ERROR's bad byte too),
        # lies in the chunk whose end it is emitted at: that chunk's time is the event's.
        ends = list(accumulate(map(len, datas), initial=self.offset))[1:]
        times = list(map(_first, run))
        self._t = times[-1]
        out += self._feed(b"".join(datas), ends, times)

    def close(self, t: float | None = None) -> list[SSEEvent]:
        """End of stream: finish a partial last line and dispatch a pending event with data."""
        if t is not None:
            self._t = t
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

    def _run(
        self,
        lines: list[bytes],
        eols: Iterable[int],
        pos: int,
        out: list[SSEEvent],
        ends: list[int] | None = None,
        times: list[float] | None = None,
    ) -> int:
        """Interpret complete lines starting at absolute offset ``pos``; return the end offset.
        ``ends``/``times``: see :meth:`_feed`."""
        data = self._data
        etype = self._etype
        last_id = self._last_id
        retry = self._retry
        ev_start = self._ev_start
        t = self._t
        seq = self._seq
        marked = self.marked
        k, bound = 0, _NEVER
        if ends is not None and times is not None:
            bound, t = ends[0], times[0]
        for raw, eol in zip(lines, eols, strict=False):
            end = pos + len(raw) + eol
            if end > bound:  # the line ends in a later chunk of a joined run: its time
                k = bisect_left(ends, end, k)  # type: ignore[arg-type]
                bound, t = ends[k], times[k]  # type: ignore[index]
            if not raw:  # blank line: dispatch
                if data:
                    text = "\n".join(data)
                    if etype or last_id is not None or retry is not None:
                        marked += 1
                    etn = etype or "message"
                    out.append(SSEEvent(seq, _EVENT, etn, text, last_id, retry, ev_start, end, t))
                    seq += 1
                    data = []
                etype = ""
                retry = None
                ev_start = -1
                pos = end
                continue
            try:
                line = raw.decode()
            except UnicodeDecodeError as exc:
                line = self._invalid(raw, seq, pos, exc, out, t)
                seq += 1
                marked += 1
            if line.startswith("data: "):
                data.append(line[6:])
            elif line.startswith("event: "):
                etype = line[7:]
            elif line[0] == ":":
                self._comment(line, seq, pos, end, out, t)
                seq += 1
                marked += 1
                pos = end
                continue
            else:
                name, _, value = line.partition(":")
                if value[:1] == " ":
                    value = value[1:]
                if name == "data":
                    data.append(value)
                elif name == "event":
                    etype = value
                elif name == "id":
                    if "\0" not in value:
                        last_id = value
                elif name == "retry":
                    retry = parse_retry(value, retry)
            if ev_start < 0:
                ev_start = pos
            pos = end
        self._data = data
        self._etype = etype
        self._last_id = last_id
        self._retry = retry
        self._ev_start = ev_start
        self._seq = seq
        self.marked = marked
        return pos

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

    def _comment(
        self, line: str, seq: int, start: int, end: int, out: list[SSEEvent], t: float
    ) -> None:
        """Emit a comment line as its own event (one leading space after the colon dropped).

        A keep-alive repeats one text: each comment equal to the last shares its string (a
        million ``: keep-alive`` lines hold one text, not a million)."""
        text = line[2:] if line[1:2] == " " else line[1:]
        if text == self._comment_text:
            text = self._comment_text
        else:
            self._comment_text = text
        out.append(SSEEvent(seq, _COMMENT, "", "", None, None, start, end, t, text))

    def _invalid(
        self,
        raw: bytes | memoryview,
        seq: int,
        pos: int,
        exc: UnicodeDecodeError,
        out: list[SSEEvent],
        t: float,
    ) -> str:
        """Emit an ERROR for the first bad byte of a line; return the line decoded leniently."""
        bad = pos + exc.start
        reason = f"invalid UTF-8 byte 0x{raw[exc.start]:02x} at byte {bad}"
        out.append(SSEEvent(seq, _ERROR, "", reason, None, None, bad, bad + 1, t))
        return str(raw, "utf-8", "replace")


def decode_all(body: bytes) -> list[SSEEvent]:
    """Decode a whole body at once: feed it in one chunk, then close."""
    decoder = SSEDecoder()
    events = decoder.feed(body)
    events += decoder.close()
    return events
