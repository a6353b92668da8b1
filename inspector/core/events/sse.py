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
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from itertools import accumulate, repeat

from inspector.core.base.model import EventKind, SSEEvent

__all__ = ["SSEDecoder", "decode_all"]

_BOM = b"\xef\xbb\xbf"
_EVENT = EventKind.EVENT
_COMMENT = EventKind.COMMENT
_ERROR = EventKind.ERROR


def _split_cr(buf: bytes) -> tuple[list[bytes], list[int], bytes]:
    """Split ``buf`` (which holds a CR) into complete lines, their line-end sizes, and a tail.

    A CR at the very end of ``buf`` stays in the tail: the next byte may be its LF.
    """
    cr = buf.count(b"\r")
    if cr == buf.count(b"\n"):
        lines = buf.split(b"\r\n")
        if len(lines) == cr + 1:  # every CR and every LF is in a CRLF pair
            tail = lines.pop()
            return lines, [2] * len(lines), tail
    out: list[bytes] = []
    eols: list[int] = []
    pieces = buf.split(b"\n")
    tail = pieces.pop()
    for piece in pieces:
        if b"\r" not in piece:
            out.append(piece)
            eols.append(1)
            continue
        crlf = piece.endswith(b"\r")
        sub = piece[:-1].split(b"\r") if crlf else piece.split(b"\r")
        out += sub
        eols += [1] * (len(sub) - 1)
        eols.append(2 if crlf else 1)
    if b"\r" in tail:
        sub = tail.split(b"\r")
        tail = sub.pop()
        if not tail:  # buf ended with CR: hold that line back with its CR
            tail = sub.pop() + b"\r"
        out += sub
        eols += [1] * len(sub)
    return out, eols, tail


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

    def feed(self, data: bytes, t: float = 0.0) -> list[SSEEvent]:
        """Consume one chunk arriving at time ``t``; return the events it completed."""
        self._t = t
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
        if b"\r" in data:
            lines, eols, tail = _split_cr(data)
        else:
            lines = data.split(b"\n")
            tail = lines.pop()
            eols = repeat(1)
        out: list[SSEEvent] = []
        self._base = self._run(lines, eols, self._base, out)
        if tail:
            pending.append(tail)
        self._tail_cr = tail.endswith(b"\r")
        return out

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

    def _feed_run(self, run: list[tuple[float, bytes]], out: list[SSEEvent]) -> None:
        if len(run) == 1:
            out += self.feed(run[0][1], run[0][0])
            return
        start = self.offset
        joined = b"".join([data for _, data in run])
        events = self.feed(joined, run[-1][0])
        if not events:
            return
        ends = list(accumulate([len(data) for _, data in run], initial=start))[1:]
        # Inside a run only the first line can start before its chunk (in bytes held from
        # earlier), so every line, and every event's ``end`` on it (an ERROR's bad byte too),
        # lies in the chunk whose end it is emitted at: that chunk's time is the event's.
        k = 0
        for ev in events:
            k = bisect_left(ends, ev.end, k)
            ev.t = run[k][0]
        out += events

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

    def _run(self, lines: list[bytes], eols: Iterable[int], pos: int, out: list[SSEEvent]) -> int:
        """Interpret complete lines starting at absolute offset ``pos``; return the end offset."""
        data = self._data
        etype = self._etype
        last_id = self._last_id
        retry = self._retry
        ev_start = self._ev_start
        t = self._t
        seq = self._seq
        for raw, eol in zip(lines, eols, strict=False):
            end = pos + len(raw) + eol
            if not raw:  # blank line: dispatch
                if data:
                    text = "\n".join(data)
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
                line = self._invalid(raw, seq, pos, exc, out)
                seq += 1
            if line.startswith("data: "):
                data.append(line[6:])
            elif line.startswith("event: "):
                etype = line[7:]
            elif line[0] == ":":
                self._comment(line, seq, pos, end, out)
                seq += 1
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
                    retry = _parse_retry(value, retry)
            if ev_start < 0:
                ev_start = pos
            pos = end
        self._data = data
        self._etype = etype
        self._last_id = last_id
        self._retry = retry
        self._ev_start = ev_start
        self._seq = seq
        return pos

    def _comment(self, line: str, seq: int, start: int, end: int, out: list[SSEEvent]) -> None:
        """Emit a comment line as its own event (one leading space after the colon dropped).

        A keep-alive repeats one text: each comment equal to the last shares its string (a
        million ``: keep-alive`` lines hold one text, not a million)."""
        text = line[2:] if line[1:2] == " " else line[1:]
        if text == self._comment_text:
            text = self._comment_text
        else:
            self._comment_text = text
        out.append(SSEEvent(seq, _COMMENT, "", "", None, None, start, end, self._t, text))

    def _invalid(
        self, raw: bytes, seq: int, pos: int, exc: UnicodeDecodeError, out: list[SSEEvent]
    ) -> str:
        """Emit an ERROR for the first bad byte of a line; return the line decoded leniently."""
        bad = pos + exc.start
        reason = f"invalid UTF-8 byte 0x{raw[exc.start]:02x} at byte {bad}"
        out.append(SSEEvent(seq, _ERROR, "", reason, None, None, bad, bad + 1, self._t))
        return raw.decode("utf-8", "replace")


def _parse_retry(value: str, current: int | None) -> int | None:
    """WHATWG ``retry``: only a non-empty run of ASCII digits counts; anything else is ignored."""
    if value.isascii() and value.isdigit():
        try:
            return int(value)
        except ValueError:  # beyond int()'s digit limit: ignore like any other bad value
            return current
    return current


def decode_all(body: bytes) -> list[SSEEvent]:
    """Decode a whole body at once: feed it in one chunk, then close."""
    decoder = SSEDecoder()
    events = decoder.feed(body)
    events += decoder.close()
    return events
