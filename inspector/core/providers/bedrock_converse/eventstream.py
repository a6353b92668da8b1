"""AWS event-stream framing (``application/vnd.amazon.eventstream``), and the JSON-lines form.

A frame: a 12-byte prelude (total length, headers length, both uint32 big-endian, then the
CRC32 of those 8 bytes), the headers (each: a one-byte name length, the name, a one-byte
value type, the value), the payload, and the CRC32 of everything before it. Bedrock's frames
carry ``:event-type`` (``contentBlockDelta`` …), ``:message-type`` (``event`` or
``exception``), ``:content-type`` and, on an exception, ``:exception-type``.

:class:`EventStreamDecoder` turns a body, chunked any way, into wire events
(:class:`~inspector.core.base.model.SSEEvent`): one EVENT per frame, typed by its
``:event-type`` (its ``:exception-type`` for an exception frame), its payload as text, its
byte range the frame's. A body whose first byte is not 0 (a frame under 16 MiB starts with a
zero byte) is read as JSON lines instead: one EVENT of type ``message`` per non-blank line
(the form the SDKs' test fixtures and a JSON error body take).

Invariants:
- Chunking never changes the result: the same events (kind, type, data, ``start``/``end``)
  whatever the chunk boundaries; only ``t`` differs. Work is linear in the bytes fed (a frame
  is cut once its last byte is in; the buffer is consumed from the front).
- Nothing raises and nothing received is lost. A prelude whose CRC does not match (or whose
  lengths cannot be a frame) is a wire ERROR event; the bytes up to the next valid prelude
  are one ERROR event naming their count. A frame whose message CRC does not match is its
  EVENT (its content as it came) and then an ERROR event over its 4 CRC bytes. Headers that
  cannot be read are an ERROR event, and the frame is still an EVENT (its payload). A
  payload that is not UTF-8 is an ERROR event, then the EVENT with U+FFFD replacements. A
  body that ends inside a frame (or a prelude) is an ERROR event over what was received of it.
- An exception frame (``:message-type: exception``) is an EVENT typed by its
  ``:exception-type`` (``throttlingException`` …): the dialect reports it as the provider's
  error; the headers that differ from the usual ones (:meth:`EventStreamDecoder.headers`) say
  it was an exception.
- ``marked`` counts events that are not plain (typed frames, errors); JSON lines are plain.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from typing import Any, Final

from inspector.core.base.model import UTF8_ERROR, EventKind, SSEEvent

CONTENT_TYPE: Final = "application/vnd.amazon.eventstream"
"""The content type of a body of event-stream frames."""

PRELUDE: Final = 12
"""Bytes of the prelude (total length, headers length, prelude CRC)."""
MIN_FRAME: Final = 16
"""The smallest frame: a prelude and a message CRC."""
MAX_FRAME: Final = 16 * 1024 * 1024 + 128 * 1024 + MIN_FRAME
"""The largest frame read (botocore: payloads up to 16 MiB, headers up to 128 KiB)."""

EVENT_TYPE: Final = ":event-type"
MESSAGE_TYPE: Final = ":message-type"
CONTENT_TYPE_HEADER: Final = ":content-type"
EXCEPTION_TYPE: Final = ":exception-type"
JSON: Final = "application/json"

_EVENT = EventKind.EVENT
_ERROR = EventKind.ERROR
_u32 = struct.Struct(">I")
_prelude = struct.Struct(">II")
_crc = zlib.crc32
# value type -> fixed size (None: a uint16 length then that many bytes)
_SIZES: Final = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 6: None, 7: None, 8: 8, 9: 16}


class HeaderError(ValueError):
    """Headers that cannot be read (the reason, one line)."""


def read_headers(data: bytes | bytearray | memoryview) -> list[tuple[str, Any]]:
    """The headers of a frame's header block, in order (values: bool, int, bytes, str, or a
    UUID's 16 bytes); :class:`HeaderError` when the block cannot be read whole."""
    out: list[tuple[str, Any]] = []
    i, n = 0, len(data)
    while i < n:
        size = data[i]
        name_end = i + 1 + size
        if name_end + 1 > n:
            raise HeaderError(f"header at byte {i} runs past the header block")
        name = bytes(data[i + 1 : name_end]).decode("utf-8", "replace")
        kind = data[name_end]
        i = name_end + 1
        if kind not in _SIZES:
            raise HeaderError(f"header {name!r} has unknown value type {kind}")
        fixed = _SIZES[kind]
        if fixed is None:
            if i + 2 > n:
                raise HeaderError(f"header {name!r} runs past the header block")
            fixed = int.from_bytes(data[i : i + 2], "big")
            i += 2
        if i + fixed > n:
            raise HeaderError(f"header {name!r} runs past the header block")
        raw = bytes(data[i : i + fixed])
        i += fixed
        value: Any
        if kind in (0, 1):
            value = kind == 0
        elif kind == 7:
            value = raw.decode("utf-8", "replace")
        elif kind in (2, 3, 4, 5, 8):
            value = int.from_bytes(raw, "big", signed=True)
        else:
            value = raw
        out.append((name, value))
    return out


def encode_headers(headers: Sequence[tuple[str, str]]) -> bytes:
    """String headers (value type 7) as a header block."""
    out = bytearray()
    for name, value in headers:
        key, val = name.encode(), value.encode()
        out += bytes((len(key),)) + key + b"\x07" + len(val).to_bytes(2, "big") + val
    return bytes(out)


def encode_frame(headers: Sequence[tuple[str, str]], payload: bytes) -> bytes:
    """One frame with string ``headers`` and ``payload``, both CRCs correct."""
    block = encode_headers(headers)
    total = PRELUDE + len(block) + len(payload) + 4
    head = _prelude.pack(total, len(block))
    head += _u32.pack(_crc(head))
    body = head + block + payload
    return body + _u32.pack(_crc(body))


def event_frame(event_type: str, payload: bytes) -> bytes:
    """An event frame as Bedrock sends one: ``:event-type``, JSON content, ``event``."""
    return encode_frame(
        ((EVENT_TYPE, event_type), (CONTENT_TYPE_HEADER, JSON), (MESSAGE_TYPE, "event")),
        payload,
    )


def exception_frame(exception_type: str, payload: bytes) -> bytes:
    """An exception frame: ``:exception-type``, JSON content, ``exception``."""
    return encode_frame(
        ((EXCEPTION_TYPE, exception_type), (CONTENT_TYPE_HEADER, JSON),
         (MESSAGE_TYPE, "exception")),
        payload,
    )  # fmt: skip


def prelude_ok(data: bytes | bytearray | memoryview, at: int = 0) -> bool:
    """``data[at:at+12]`` is a prelude whose CRC matches and whose lengths can be a frame."""
    if len(data) - at < PRELUDE:
        return False
    total, hlen = _prelude.unpack_from(data, at)
    if _u32.unpack_from(data, at + 8)[0] != _crc(data[at : at + 8]):
        return False
    return bool(MIN_FRAME <= total <= MAX_FRAME and hlen <= total - MIN_FRAME)


class EventStreamDecoder:
    """One body's frames (or JSON lines) -> wire events; see the module's invariants."""

    def __init__(self) -> None:
        self.offset = 0
        """Bytes fed so far."""
        self.marked = 0
        self.plain: Any = None  # never a run of plain events cut at once
        self._buf = bytearray()
        self._base = 0  # absolute offset of _buf[0]
        self._seq = 0
        self._lines: bool | None = None  # undecided until the first byte
        self._skipping = -1  # start of unframed bytes being skipped, or -1
        self._skip_reason = ""
        self._headers: dict[int, tuple[tuple[str, Any], ...]] = {}

    # -- the FrameDecoder protocol -------------------------------------------------------

    @property
    def fresh(self) -> bool:
        """Nothing fed yet."""
        return self.offset == 0

    @property
    def lines(self) -> bool | None:
        """True: JSON lines; False: binary frames; None: nothing fed yet."""
        return self._lines

    def feed(self, data: bytes, t: float = 0.0) -> list[SSEEvent]:
        """Consume one chunk arriving at ``t``; return the events it completed."""
        if not data:
            return []
        self.offset += len(data)
        self._buf += data
        if self._lines is None:
            self._lines = self._buf[0] != 0
        out: list[SSEEvent] = []
        if self._lines:
            self._cut_lines(out, t)
        else:
            self._cut_frames(out, t)
        return out

    def feed_many(
        self, chunks: Sequence[tuple[float, bytes]], bounds: list[int] | None = None
    ) -> list[SSEEvent]:
        """Consume several ``(t, data)`` chunks: what feeding them one by one gives."""
        out: list[SSEEvent] = []
        for t, data in chunks:
            out += self.feed(data, t)
        return out

    def feed_plain(self, chunks: Sequence[tuple[float, bytes]], bounds: list[int]) -> None:
        """Never takes chunks at once (no plain runs in this framing)."""
        return None

    def close(self, t: float | None = None) -> list[SSEEvent]:
        """End of body: a last line without its line end, or what was cut off inside a frame."""
        when = t or 0.0
        out: list[SSEEvent] = []
        buf = self._buf
        if self._lines:
            if buf.strip():
                self._line(bytes(buf), self._base, self._base + len(buf), out, when)
        elif self._skipping >= 0:
            self._skipped(self._base + len(buf), out, when)
        elif buf:
            if len(buf) >= PRELUDE:
                total = _prelude.unpack_from(buf)[0]
                what = f"the body ended inside a frame: {len(buf)} of its {total} bytes came"
            else:
                what = f"the body ended inside a frame's prelude: {len(buf)} of 12 bytes came"
            self._error(what, self._base, self._base + len(buf), out, when)
        self._base += len(buf)
        buf.clear()
        return out

    # -- what a frame said besides its type and payload ----------------------------------

    def headers(self, ev: SSEEvent) -> tuple[tuple[str, Any], ...] | None:
        """The headers of the frame ``ev`` was cut from, in order; None for a JSON line or a
        wire error. Kept only where they differ from an event frame's usual three."""
        if self._lines is not False or ev.kind != _EVENT:
            return None
        kept = self._headers.get(ev.seq)
        if kept is not None:
            return kept
        return ((EVENT_TYPE, ev.event), (CONTENT_TYPE_HEADER, JSON), (MESSAGE_TYPE, "event"))

    # -- cutting -------------------------------------------------------------------------

    def _emit(self, kind: str, event: str, data: str, start: int, end: int, t: float,
              out: list[SSEEvent]) -> SSEEvent:  # fmt: skip
        ev = SSEEvent(self._seq, kind, event, data, None, None, start, end, t)
        self._seq += 1
        if kind != _EVENT or event != "message":
            self.marked += 1
        out.append(ev)
        return ev

    def _error(self, why: str, start: int, end: int, out: list[SSEEvent], t: float) -> None:
        self._emit(_ERROR, "", why, start, end, t, out)

    def _cut_lines(self, out: list[SSEEvent], t: float) -> None:
        buf = self._buf
        at = 0
        while (nl := buf.find(b"\n", at)) >= 0:
            line = bytes(buf[at:nl])
            if line.strip():
                self._line(line, self._base + at, self._base + nl + 1, out, t)
            at = nl + 1
        if at:
            del buf[:at]
            self._base += at

    def _line(self, line: bytes, start: int, end: int, out: list[SSEEvent], t: float) -> None:
        self._emit(_EVENT, "message", self._text(line, start, out, t).strip(), start, end, t,
                   out)  # fmt: skip

    def _text(self, raw: bytes, start: int, out: list[SSEEvent], t: float) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = start + exc.start
            self._error(f"{UTF8_ERROR} byte 0x{raw[exc.start]:02x} at byte {bad}", bad, bad + 1,
                        out, t)  # fmt: skip
            return raw.decode("utf-8", "replace")

    def _cut_frames(self, out: list[SSEEvent], t: float) -> None:
        buf = self._buf
        at = 0
        n = len(buf)
        while True:
            if self._skipping >= 0:
                at = self._resync(at, out, t)
                if self._skipping >= 0:
                    break
            if n - at < PRELUDE:
                break
            if not prelude_ok(buf, at):
                total, hlen = _prelude.unpack_from(buf, at)
                if _u32.unpack_from(buf, at + 8)[0] != _crc(buf[at : at + 8]):
                    self._skip_reason = "the prelude's CRC does not match"
                else:
                    self._skip_reason = f"a prelude of impossible lengths ({total}, {hlen})"
                self._skipping = self._base + at
                at += 1
                continue
            total = _prelude.unpack_from(buf, at)[0]
            if n - at < total:
                break
            self._frame(memoryview(buf)[at : at + total], self._base + at, out, t)
            at += total
        if at:
            del buf[:at]
            self._base += at

    def _resync(self, at: int, out: list[SSEEvent], t: float) -> int:
        """Skip bytes from ``at`` to the next valid prelude (emitting what was skipped), or to
        where a prelude could still start once more bytes come."""
        buf = self._buf
        last = len(buf) - PRELUDE
        while at <= last:
            if prelude_ok(buf, at):
                self._skipped(self._base + at, out, t)
                return at
            at += 1
        return max(at, 0)

    def _skipped(self, end: int, out: list[SSEEvent], t: float) -> None:
        start = self._skipping
        why = f"{end - start} bytes are not a frame ({self._skip_reason} at byte {start})"
        self._error(why, start, end, out, t)
        self._skipping = -1

    def _frame(self, frame: memoryview, start: int, out: list[SSEEvent], t: float) -> None:
        total, hlen = _prelude.unpack_from(frame)
        end = start + total
        crc_ok = _u32.unpack_from(frame, total - 4)[0] == _crc(frame[: total - 4])
        headers: tuple[tuple[str, Any], ...] = ()
        try:
            headers = tuple(read_headers(frame[PRELUDE : PRELUDE + hlen]))
        except HeaderError as exc:
            self._error(f"unreadable frame headers: {exc}", start + PRELUDE,
                        start + PRELUDE + hlen, out, t)  # fmt: skip
        found = dict(headers)
        exception = found.get(MESSAGE_TYPE) == "exception"
        name = found.get(EXCEPTION_TYPE if exception else EVENT_TYPE)
        if type(name) is not str or not name:
            name = found.get(MESSAGE_TYPE) if type(found.get(MESSAGE_TYPE)) is str else ""
            name = name or "message"
        payload = bytes(frame[PRELUDE + hlen : total - 4])
        data = self._text(payload, start + PRELUDE + hlen, out, t)
        ev = self._emit(_EVENT, name, data, start, end, t, out)
        usual = ((EVENT_TYPE, name), (CONTENT_TYPE_HEADER, JSON), (MESSAGE_TYPE, "event"))
        if headers != usual:
            self._headers[ev.seq] = headers
        if not crc_ok:
            self._error("the frame's message CRC does not match", end - 4, end, out, t)


class EventStreamFraming:
    """AWS event-stream frames (or JSON lines): the Bedrock providers' framing."""

    name = "aws-eventstream"
    reads_back = False

    def decoder(self) -> EventStreamDecoder:
        """A fresh decoder for one body."""
        return EventStreamDecoder()


EVENTSTREAM: Final = EventStreamFraming()
"""The one event-stream framing."""
