"""The line interpreter of the SSE decoder: complete lines in, events out (WHATWG rules).

:class:`LineInterpreter` holds what the event stream defines between lines (the event being
built, the last event ID, the next ``seq``) and turns complete lines into events;
:class:`~inspector.core.events.sse.SSEDecoder` cuts the bytes it is fed into those lines (and
takes the common buffers at once). The module docstring of :mod:`.sse` states the invariants
both keep.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from inspector.core.base.model import UTF8_ERROR, EventKind, SSEEvent
from inspector.core.events.lines import parse_retry

__all__ = ["LineInterpreter"]

_NEVER = 1 << 62  # past any offset: no chunk boundary to look for
_EVENT = EventKind.EVENT
_COMMENT = EventKind.COMMENT
_ERROR = EventKind.ERROR


class LineInterpreter:
    """The state between lines, and the interpretation of complete lines."""

    def __init__(self) -> None:
        self._t = 0.0
        self._seq = 0
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

    def _idle(self) -> bool:
        """No event is being built: the next line starts a block afresh."""
        return self._ev_start < 0 and not self._data and not self._etype and self._retry is None

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
        reason = f"{UTF8_ERROR} byte 0x{raw[exc.start]:02x} at byte {bad}"
        out.append(SSEEvent(seq, _ERROR, "", reason, None, None, bad, bad + 1, t))
        return str(raw, "utf-8", "replace")
