"""The openai SDK's SSE decoding of one body: the events it dispatches, each pinned to an
inspector event, worked out once per exchange and shared by every replica that reads the
SDK's chunks (openai-python, LiteLLM, LangChain, the hand-written loops).

Follows openai 3.57.0 ``openai/_streaming.py`` (``SSEDecoder``, ``_SSELineDecoder``); what it
models is listed in :mod:`.sse`, which turns these dispatches into chunks.

Invariants:
- :func:`dispatches` is a pure function of the exchange's events, body bytes and whether the
  body was cut short; the same :class:`Dispatches` is returned when the same body (by
  identity; the events container without bytes) with as many events is asked about again
  (event objects are never compared: a container may build one per access). The last
  :data:`_KEEP` are kept until :func:`forget`. Nothing in one is ever changed after it is
  built.
- Compact: a dispatch is its pin and the span of its data in the body (24 bytes); only data
  no single span holds (several ``data:`` lines, no body) and event names are kept as
  strings. :meth:`Dispatches.data` decodes a span when asked, afresh each time.
- One JSON decode per dispatch for every replica: :meth:`Dispatches.value` keeps the last
  :data:`RING` decoded values of data under :data:`_SHARED_BYTES` in a ring (by dispatch
  index), so replicas run a block of events at a time in turn (``judge.run_replicas``) read
  each chunk decoded once, and the same object. A shared value is read-only: no replica
  changes what it is handed (each copies what it changes, as its library's ``to_dict()`` /
  ``model_dump()`` does; tests/core/clients/test_shared_values.py holds every replica to it
  over the golden corpus). The ring is the only thing in a :class:`Dispatches` that changes
  after it is built, and it changes no value anyone reads.
- Building one reads the body once, line by line, without a copy of it (no list of lines;
  an ASCII body is not decoded at all) and reads each event's offsets a few times at most.
- Dispatches stop at the first ``[DONE]`` (``done``) or at an undecodable line (``end``: the
  ``UnicodeDecodeError``, pinned to the inspector's ERROR event for that line); pins never
  decrease.
"""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.clients.base import ClientRaised, Exchange

_LINE_END: Final = re.compile(b"\r\n|\r|\n")
_KEEP: Final = 4
"""How many exchanges' dispatches are kept (replicas run one after another on each)."""
_FIELDS: Final = (b"data", b"event", b"id", b"retry")
_BYTES_PER_EVENT: Final = 64
"""Events at least this long on average are pinned by bisecting a copy of their end column
(a flood of short comments is galloped over instead: a copy would cost more than the body)."""
_BIG: Final = 1 << 16
"""Data spans at least this long are decoded through a memoryview (no bytes copy first)."""
RING: Final = 64
"""Decoded values kept per exchange (a power of two): more than the dispatches of one block
of events the replicas take turns on (``judge.TURN``)."""
_MASK: Final = RING - 1
_UNREAD: Final = object()
_SHARED_BYTES: Final = 1 << 14
"""Data at least this long is decoded for each reader and never kept (the ring holds at most
RING of these sizes' values: a few MB)."""


@dataclass
class Dispatches:
    """What the SDK's SSE layer dispatches for one body (see the module's invariants)."""

    body: bytes = b""
    seqs: array[int] = field(default_factory=lambda: array("i"))
    """The inspector event each dispatched event is pinned to (4 bytes: fewer than 2**31)."""
    spans: array[int] = field(default_factory=lambda: array("q"))
    """Per dispatch, where its data lies in ``body`` (start, end; -1, -1: in ``texts``): 4
    bytes each for a body under 2 GiB (:func:`_spans`)."""
    texts: dict[int, str] = field(default_factory=dict)
    """Data no single span of the body holds, by dispatch."""
    named: dict[int, str] = field(default_factory=dict)
    """Each dispatched event's ``event:`` name, where it has one (not ``message`` without
    bytes)."""
    long_digits: bool | None = None
    """The body holds 19 digits in a row somewhere (None: not looked yet)."""
    done: bool = False
    """A ``[DONE]`` ended the stream (nothing after it is read, a cut body included)."""
    end: tuple[int, ClientRaised] | None = None
    """An undecodable line after the last dispatch: where, and the SDK's raise there."""
    _keys: array[int] | None = field(default=None, repr=False, compare=False)
    """The dispatch whose decoded value each ring slot holds (-1: none), made at first use."""
    _values: list[Any] = field(default_factory=list, repr=False, compare=False)
    _event_keys: array[int] | None = field(default=None, repr=False, compare=False)
    _events: list[SSEEvent | None] = field(default_factory=list, repr=False, compare=False)
    _events_of: object = field(default=None, repr=False, compare=False)
    decodes: int = field(default=0, repr=False, compare=False)
    """How many JSON decodes :meth:`value` made (a count for tests and the bench)."""

    def __len__(self) -> int:
        return len(self.seqs)

    def name(self, i: int) -> str | None:
        """The ``i``-th dispatch's event name (None for none)."""
        return self.named.get(i)

    def data(self, i: int) -> str:
        """The ``i``-th dispatch's data, decoded afresh (the caller's to drop)."""
        text = self.texts.get(i)
        if text is not None:
            return text
        start, end = self.spans[2 * i], self.spans[2 * i + 1]
        if end - start < _BIG:
            return self.body[start:end].decode("utf-8")
        return str(memoryview(self.body)[start:end], "utf-8")

    def value(self, i: int) -> Any:
        """``json.loads`` of the ``i``-th dispatch's data as the SDK calls it (the stdlib),
        read by orjson straight from the body where both give the same (:func:`sdk_loads`;
        a body with 19 digits in a row anywhere is read by :func:`sdk_loads` per dispatch).
        Shared: the same object to every reader while it is in the ring (read-only, see the
        module's invariants); a refusal raises afresh for each."""
        slot = i & _MASK
        keys = self._keys
        if keys is not None and keys[slot] == i:
            return self._values[slot]
        self.decodes += 1
        text = self.texts.get(i)
        if text is None:
            start, end = self.spans[2 * i], self.spans[2 * i + 1]
            size = end - start
            if self.long_digits is None:
                self.long_digits = _LONG_DIGITS_BYTES.search(self.body) is not None
            value: Any = _UNREAD
            if not self.long_digits:
                try:  # noqa: SIM105 (suppress() is two calls a chunk)
                    value = orjson.loads(memoryview(self.body)[start:end])
                except orjson.JSONDecodeError:
                    pass
            if value is _UNREAD:
                value = sdk_loads(self.data(i))
        else:
            size = len(text)
            value = sdk_loads(text)
        if size < _SHARED_BYTES:
            if keys is None:
                keys = self._keys = array("q", [-1]) * RING
                self._values = [None] * RING
            keys[slot] = i
            self._values[slot] = value
        return value

    def pinned(self, events: Sequence[SSEEvent], last: int | None) -> Iterable[SSEEvent]:
        """:func:`~inspector.core.clients.pins.pinned` of these dispatches' pins and ``last``
        (its :func:`~inspector.core.clients.pins.stops`, written out here), each event built
        once for every run reading it in the same turn (kept in a ring like the values:
        read-only)."""
        if not events or events[0].seq != 0 or events[-1].seq != len(events) - 1:
            return events
        return self._built(events, last)

    def _built(self, events: Sequence[SSEEvent], last: int | None) -> Iterator[SSEEvent]:
        keys = self._event_keys
        if keys is None or self._events_of is not events:
            keys = self._event_keys = array("q", [-1]) * RING
            self._events = [None] * RING
            self._events_of = events
        held = self._events
        prev = -1
        for seq in self.seqs:
            if seq > prev:
                prev = seq
            elif prev < 0:
                prev = seq = 0
            else:
                continue
            slot = seq & _MASK
            if keys[slot] == seq:
                yield held[slot]  # type: ignore[misc]
            else:
                event = held[slot] = events[seq]
                keys[slot] = seq
                yield event
        if last is not None and (last > prev or prev < 0):
            yield events[last if last > prev else 0]

    def add(self, seq: int, name: str | None, text: str | None, span: tuple[int, int]) -> bool:
        """Add one dispatch (its data as ``text``, or None: the body's ``span``); False when
        it is ``[DONE]`` (the stream ends there)."""
        if text is None and self.body.startswith(b"[DONE]", span[0], span[1]):
            self.done = True
            return False
        if text is not None and text.startswith("[DONE]"):
            self.done = True
            return False
        if name is not None:
            self.named[len(self.seqs)] = name
        if text is not None:
            self.texts[len(self.seqs)] = text
            span = (-1, -1)
        self.seqs.append(seq)
        self.spans.extend(span)
        return True


_LONG_DIGITS: Final = re.compile(r"[0-9]{19}")
"""Nineteen digits in a row: a number orjson may read otherwise than Python (an integer past
64 bits becomes a float there; one of up to 18 digits is exact in both)."""
_LONG_DIGITS_BYTES: Final = re.compile(rb"[0-9]{19}")


def sdk_loads(data: str) -> Any:
    """``json.loads(data)`` (the stdlib, as the SDK calls it), read by orjson where both give
    the same value: orjson reads a text without 19 digits in a row to the same values, types,
    key order and duplicate-key winner (tests/core/clients/openai_sdk/test_sdk_loads.py compares
    them on random texts); whatever it refuses (NaN, Infinity, a number past a double, a lone
    surrogate, a deep nesting, any malformed text) is read by the stdlib, so a refusal's
    type and message, and what only the stdlib accepts, are the stdlib's own."""
    if _LONG_DIGITS.search(data) is None:
        with suppress(orjson.JSONDecodeError):
            return orjson.loads(data)
    return json.loads(data)


def _spans(size: int) -> array[int]:
    """An empty span column for a body of ``size`` bytes: the narrowest that holds them."""
    return array("i" if size < 2**31 else "q")


_MEMO: OrderedDict[tuple[int, int, bool], tuple[object, Dispatches]] = OrderedDict()


def dispatches(exchange: Exchange) -> Dispatches:
    """The SDK's dispatched events for ``exchange`` (kept for the next replica to ask)."""
    events, body = exchange.events, exchange.body
    owner: object = body if body else events
    key = (id(owner), len(events), exchange.transport_error is not None)
    kept = _MEMO.get(key)
    if kept is not None and kept[0] is owner:
        _MEMO.move_to_end(key)
        return kept[1]
    found = decode(exchange)
    _MEMO[key] = (owner, found)
    while len(_MEMO) > _KEEP:
        _MEMO.popitem(last=False)
    return found


def forget() -> None:
    """Drop every kept decoding (the replicas are done with these bodies)."""
    _MEMO.clear()


def decode(exchange: Exchange) -> Dispatches:
    """The SDK's dispatched events for ``exchange``, worked out afresh: from the body's bytes,
    or, without bytes, from the inspector's events (what only the bytes show is then not
    modelled)."""
    events, body = exchange.events, exchange.body
    if body or not events:
        return _from_body(body, events, exchange.transport_error is not None)
    return _from_events(events)


def _from_body(body: bytes, events: Sequence[SSEEvent], cut: bool) -> Dispatches:
    """The SDK's decoding of the bytes: lines split at CR, LF, CRLF, each decoded as UTF-8 on
    its own (an undecodable one ends it); a blank line dispatches when an event type, data, a
    retry or a last event id is set; comments ignored; no BOM stripped; a final event without
    its blank line never dispatched. ``cut``: the SDK never decodes a last unended line."""
    out = Dispatches(body, spans=_spans(len(body)))
    pins = _Pins(events, len(body))
    ascii_only = body.isascii()
    name: str | None = None
    data: list[tuple[int, int]] = []
    retry: int | None = None
    last_id: str | None = None
    pos = 0
    for start, stop, pos in _lines(body):
        if not ascii_only and not _decodes(body, start, stop):
            out.end = (pins.bad_line(start, pos), _utf8(body[start:stop]))
            return out
        if start == stop:
            if (name or data or last_id or retry is not None) and not out.add(
                pins.at(pos), name or None, *_data(body, data)
            ):
                return out
            name, data, retry = None, [], None
            continue
        if body[start] == 0x3A:  # ":": a comment
            continue
        colon = body.find(b":", start, stop)
        head = colon if colon >= 0 else stop
        if head - start > 5 or body[start:head] not in _FIELDS:
            continue
        field_name = body[start:head]
        value = min(head + 1, stop)
        if value < stop and body[value] == 0x20:
            value += 1
        if field_name == b"data":
            data.append((value, stop))
        elif field_name == b"event":
            name = body[value:stop].decode("utf-8")
        elif field_name == b"id":
            text = body[value:stop].decode("utf-8")
            if "\0" not in text:
                last_id = text
        else:
            with suppress(ValueError):
                retry = int(body[value:stop].decode("utf-8"))
    # the SDK decodes the last line, never dispatches it
    if pos < len(body) and not cut and not _decodes(body, pos, len(body)):
        out.end = (pins.bad_line(pos, len(body)), _utf8(body[pos:]))
    return out


def _data(body: bytes, data: list[tuple[int, int]]) -> tuple[str | None, tuple[int, int]]:
    """An event's data: one line's span of the body, else its lines joined as text."""
    if len(data) == 1:
        return None, data[0]
    return "\n".join(body[a:b].decode("utf-8") for a, b in data), (-1, -1)


def _lines(body: bytes) -> Iterator[tuple[int, int, int]]:
    """``(start, stop, next)`` per ended line: its text is ``body[start:stop]``, the next line
    starts at ``next`` (past its line end)."""
    pos = 0
    if b"\r" not in body:  # the common case, without a regular expression
        find = body.find
        end = find(b"\n")
        while end >= 0:
            yield pos, end, end + 1
            pos = end + 1
            end = find(b"\n", pos)
        return
    for match in _LINE_END.finditer(body):
        yield pos, match.start(), match.end()
        pos = match.end()


def _decodes(body: bytes, start: int, stop: int) -> bool:
    """Whether ``body[start:stop]`` is UTF-8 (read through a view: no copy of a long line)."""
    try:
        str(memoryview(body)[start:stop], "utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _from_events(events: Sequence[SSEEvent]) -> Dispatches:
    """Without bytes: one dispatch per inspector EVENT; an ERROR ends them (a
    UnicodeDecodeError worded from the inspector's reason)."""
    out = Dispatches()
    for ev in events:
        if ev.kind == EventKind.EVENT:
            name = None if ev.event == "message" else ev.event
            if not out.add(ev.seq, name, ev.data, (-1, -1)):
                return out
        elif ev.kind == EventKind.ERROR:
            out.end = (ev.seq, ClientRaised("UnicodeDecodeError", ev.data))
            return out
    return out


class _Pins:
    """Pins byte offsets to inspector events, never decreasing. Offsets are asked in
    ascending order: each search starts from the last one, bisecting the events' end offsets
    when the events can give them as a column (no event built), else galloping over the
    events (a few event reads per dispatch, however many comments lie between)."""

    def __init__(self, events: Sequence[SSEEvent], size: int = 0) -> None:
        self.events = events
        self.last = -1
        """The last event known to end at or before the last offset asked."""
        self.floor = -1
        offsets = getattr(events, "offsets", None)
        numbered = bool(events) and events[0].seq == 0 and events[-1].seq == len(events) - 1
        worth = size >= _BYTES_PER_EVENT * len(events)  # (the columns cost 16 bytes an event)
        self.ends: Sequence[int] | None = (
            offsets()[1] if callable(offsets) and numbered and worth else None
        )
        """The events' end offsets, when they come as a column (events numbered by position:
        an index is then its seq) and events are long enough for a copy of it to be small."""

    def _ending_by(self, offset: int) -> int:
        """The index of the last event ending at or before ``offset`` (-1: none)."""
        if self.ends is not None:
            self.last = bisect_right(self.ends, offset, max(self.last, 0)) - 1
            return self.last
        events, count = self.events, len(self.events)
        low, step = self.last, 1
        high = low + step
        while high < count and events[high].end <= offset:
            low, step = high, step * 2
            high = low + step
        high = min(high, count)
        while high - low > 1:
            mid = (low + high) // 2
            if events[mid].end <= offset:
                low = mid
            else:
                high = mid
        self.last = low
        return low

    def at(self, offset: int) -> int:
        """The last event ending at or before ``offset``."""
        k = self._ending_by(offset)
        seq = k if self.ends is not None or k < 0 else self.events[k].seq
        self.floor = max(self.floor, seq)
        return self.floor

    def bad_line(self, start: int, end: int) -> int:
        """The inspector's ERROR event for the undecodable line ``[start, end)``."""
        events = self.events
        for k in range(self._ending_by(start) + 1, len(events)):
            ev = events[k]
            if ev.start >= end:
                break
            if ev.kind == EventKind.ERROR and start <= ev.start:
                self.floor = max(self.floor, ev.seq)
                return self.floor
        return self.at(end)


def _utf8(raw: bytes) -> ClientRaised:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ClientRaised("UnicodeDecodeError", str(exc))
    raise AssertionError("decodable line")  # pragma: no cover - callers pass bad lines
