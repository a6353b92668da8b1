"""The openai SDK's SSE decoding of one body: the events it dispatches, each pinned to an
inspector event, worked out once per exchange and shared by every replica that reads the
SDK's chunks (openai-python, LiteLLM, LangChain, the hand-written loops).

Follows openai 3.57.0 ``openai/_streaming.py`` (``SSEDecoder``, ``_SSELineDecoder``); what it
models is listed in :mod:`.openai_sse`, which turns these dispatches into chunks.

Invariants:
- :func:`dispatches` is a pure function of the exchange's events, body bytes and whether the
  body was cut short; the same :class:`Dispatches` is returned when the same body and events
  are asked about again (known by the body object, the number of events and the last event
  object: events lists only grow, and an event belongs to one stream). The last
  :data:`_KEEP` are kept, with their body and last event (not the analysis). Nothing in one is
  ever changed after it is built.
- ``data`` strings are handed out as they are (strings are immutable): each replica decodes
  the JSON itself, so no decoded value is shared between replicas.
- Dispatches stop at the first ``[DONE]`` (``done``) or at an undecodable line (``end``: the
  ``UnicodeDecodeError``, pinned to the inspector's ERROR event for that line); pins never
  decrease.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Final

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.clients.base import ClientRaised, Exchange

_LINE_END: Final = re.compile(b"\r\n|\r|\n")
_KEEP: Final = 4
"""How many exchanges' dispatches are kept (replicas run one after another on each)."""


@dataclass
class Dispatches:
    """What the SDK's SSE layer dispatches for one body (see the module's invariants)."""

    seqs: list[int] = field(default_factory=list)
    """The inspector event each dispatched event is pinned to."""
    names: list[str | None] = field(default_factory=list)
    """Each dispatched event's ``event:`` name (None for none, or ``message`` without bytes)."""
    datas: list[str] = field(default_factory=list)
    """Each dispatched event's data."""
    done: bool = False
    """A ``[DONE]`` ended the stream (nothing after it is read, a cut body included)."""
    end: tuple[int, ClientRaised] | None = None
    """An undecodable line after the last dispatch: where, and the SDK's raise there."""

    def add(self, seq: int, name: str | None, data: str) -> bool:
        """Add one dispatch; False when it is ``[DONE]`` (the stream ends there)."""
        if data.startswith("[DONE]"):
            self.done = True
            return False
        self.seqs.append(seq)
        self.names.append(name)
        self.datas.append(data)
        return True


_MEMO: OrderedDict[tuple[int, int, int, bool], tuple[object, bytes, Dispatches]] = OrderedDict()


def dispatches(exchange: Exchange) -> Dispatches:
    """The SDK's dispatched events for ``exchange`` (kept for the next replica to ask)."""
    events, body = exchange.events, exchange.body
    last = events[-1] if events else None
    cut = exchange.transport_error is not None
    key = (id(last), len(events), id(body), cut)
    kept = _MEMO.get(key)
    if kept is not None and kept[0] is last and kept[1] is body:
        _MEMO.move_to_end(key)
        return kept[2]
    found = decode(exchange)
    _MEMO[key] = (last, body, found)
    while len(_MEMO) > _KEEP:
        _MEMO.popitem(last=False)
    return found


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
    out = Dispatches()
    pins = _Pins(events)
    name: str | None = None
    data: list[str] | None = None
    retry: int | None = None
    last_id: str | None = None
    pos = 0
    for start, pos, raw in _lines(body):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            out.end = (pins.bad_line(start, pos), _utf8(raw))
            return out
        if not line:
            if (name or data or last_id or retry is not None) and not out.add(
                pins.at(pos), name or None, "\n".join(data or [])
            ):
                return out
            name = data = retry = None
            continue
        if line[0] == ":":
            continue
        field_name, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if field_name == "event":
            name = value
        elif field_name == "data":
            data = [value] if data is None else [*data, value]
        elif field_name == "id" and "\0" not in value:
            last_id = value
        elif field_name == "retry":
            with suppress(ValueError):
                retry = int(value)
    tail = body[pos:]
    if tail and not cut:  # the SDK decodes the last line (it may raise), never dispatches it
        try:
            tail.decode("utf-8")
        except UnicodeDecodeError:
            out.end = (pins.bad_line(pos, len(body)), _utf8(tail))
    return out


def _lines(body: bytes) -> list[tuple[int, int, bytes]]:
    """``(start, end, line)`` per ended line, ``end`` past its line end."""
    out = []
    pos = 0
    if b"\r" not in body:  # the common case, without a regular expression
        for raw in body.split(b"\n")[:-1]:
            out.append((pos, pos + len(raw) + 1, raw))
            pos += len(raw) + 1
        return out
    for match in _LINE_END.finditer(body):
        out.append((pos, match.end(), body[pos : match.start()]))
        pos = match.end()
    return out


def _from_events(events: Sequence[SSEEvent]) -> Dispatches:
    """Without bytes: one dispatch per inspector EVENT; an ERROR ends them (a
    UnicodeDecodeError worded from the inspector's reason)."""
    out = Dispatches()
    for ev in events:
        if ev.kind == EventKind.EVENT:
            if not out.add(ev.seq, None if ev.event == "message" else ev.event, ev.data):
                return out
        elif ev.kind == EventKind.ERROR:
            out.end = (ev.seq, ClientRaised("UnicodeDecodeError", ev.data))
            return out
    return out


class _Pins:
    """Pins byte offsets to inspector events, never decreasing."""

    def __init__(self, events: Sequence[SSEEvent]) -> None:
        self.events = events
        self.ends = [ev.end for ev in events]
        self.floor = -1

    def at(self, offset: int) -> int:
        """The last event ending at or before ``offset``."""
        k = bisect_right(self.ends, offset) - 1
        self.floor = max(self.floor, self.events[k].seq if k >= 0 else -1)
        return self.floor

    def bad_line(self, start: int, end: int) -> int:
        """The inspector's ERROR event for the undecodable line ``[start, end)``."""
        for ev in self.events[bisect_right(self.ends, start) :]:
            if ev.kind == EventKind.ERROR and start <= ev.start < end:
                self.floor = max(self.floor, ev.seq)
                return self.floor
        return self.at(end)


def _utf8(raw: bytes) -> ClientRaised:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ClientRaised("UnicodeDecodeError", str(exc))
    raise AssertionError("decodable line")  # pragma: no cover - callers pass bad lines
