"""The framing of a plain stream of named events (Responses, Anthropic Messages): every event
exactly ``event: <type>\\ndata: <JSON object>\\n\\n``, its ``type`` field the event's name.

Invariants: :func:`named_chunks` reads the body once, one ``orjson.loads`` per event, keeps no
decoded value but the one it yields, and stops (returns) at the first byte that is not of this
framing, after which the caller's ``refused`` says so. What it accepts, exactly:
- a ``text/event-stream`` content type; no CR anywhere; the body ends with ``\\n\\n``;
- each event (between blank lines) is one ``event: `` line (one space) and one ``data: `` line
  (one space), nothing else: no comment, no ``id:``/``retry:`` field, no second data line, no
  empty event;
- the data is valid UTF-8 JSON read strictly (orjson: no lone surrogate, no integer wider than
  64 bits, no NaN), a JSON object whose ``type`` is a string equal to the event's name.
Every library this is used for reads such a body as exactly these objects in this order (the
openai and anthropic SDKs' SSE decoders, eventsource-parser, then ``json.loads``/``JSON.parse``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Final

import orjson

from inspector.core.clients.base import Exchange
from inspector.core.clients.plain.prototype import PROTOTYPE

_loads = orjson.loads
_Error = orjson.JSONDecodeError
_EVENT: Final = b"event: "
_DATA: Final = b"\ndata: "


def body_of(exchange: Exchange, pieces: Iterable[bytes] | None) -> bytes | None:
    """The body a reader reads: ``pieces`` joined when given (then ``exchange.body`` is left
    empty by the judge: :func:`~inspector.core.clients.judge.exchange_in_pieces`), else
    ``exchange.body``; None (not plain) when a ``__proto__``/``constructor`` key may be in it
    (:mod:`.prototype`)."""
    body = exchange.body if pieces is None else b"".join(pieces)
    return None if PROTOTYPE.search(body) else body


def event_body(exchange: Exchange, pieces: Iterable[bytes] | None) -> bytes | None:
    """:func:`body_of` of an event stream; None (not plain) for another content type."""
    return body_of(exchange, pieces) if event_stream(exchange.content_type) else None


def framed(
    exchange: Exchange, pieces: Iterable[bytes] | None, unended: bytes = b""
) -> Framing | None:
    """The named framing of an event-stream body (:func:`event_body`), None (not plain)
    otherwise."""
    body = event_body(exchange, pieces)
    return None if body is None else Framing(body, unended)


def event_stream(content_type: str | None) -> bool:
    """The content type is ``text/event-stream`` (parameters aside)."""
    return (content_type or "").split(";")[0].strip().lower() == "text/event-stream"


class Framing:
    """The events of a body, one decoded object at a time (:meth:`chunks`); :attr:`refused`
    is True once a byte was not of the framing (the iteration then ends early).

    ``unended``: the exact bytes of a last event that may come without its blank line (every
    SSE decoder reads the body's end as no blank line: that event is never dispatched). A
    body ending so (after ``\n\n``, or as the whole body) is read without it, and
    :attr:`unended` says it was there."""

    __slots__ = ("body", "refused", "unended")

    def __init__(self, body: bytes, unended: bytes = b"") -> None:
        self.unended = bool(unended) and body.endswith(unended)
        if self.unended:
            body = body[: len(body) - len(unended)]
            self.unended = not body or body.endswith(b"\n\n")
        self.body = body
        self.refused = (bool(body) and not body.endswith(b"\n\n")) or b"\r" in body

    def chunks(self) -> Iterator[dict[str, Any]]:
        if self.refused:
            return
        body = self.body
        find, end, start = body.find, len(body) - 2, 0
        while start <= end:
            cut = find(b"\n\n", start)
            if cut < 0 or body[start : start + 7] != _EVENT:
                break
            line = find(b"\n", start + 7, cut)
            if line < 0 or body[line : line + 7] != _DATA or find(b"\n", line + 1, cut) >= 0:
                break
            try:
                chunk = _loads(body[line + 7 : cut])
            except _Error:
                break
            if type(chunk) is not dict:
                break
            kind = chunk.get("type")
            if type(kind) is not str or kind.encode() != body[start + 7 : line]:
                break
            start = cut + 2
            yield chunk
        else:
            return
        self.refused = True


def object_text(text: str) -> bool:
    """A call's arguments are a JSON object, ``{`` first and ``}`` last (no whitespace around
    it: a library that hands a call over at the first parsable prefix, the AI SDK, then hands
    over exactly this text), read as orjson reads it."""
    if text[:1] != "{" or text[-1:] != "}":
        return False
    try:
        return type(_loads(text)) is dict
    except _Error:
        return False
