"""What every dialect does alike with a wire event: a dialect's own base, and the deltas
that stand in for an event that carries no JSON object.

Invariants:
- Comments become KEEPALIVE, wire decode errors ERROR (``raw={"wire": "decode"}``), data that
  is not JSON UNKNOWN (``{"undecodable": …}``) or KEEPALIVE for a comment re-wrapped as data
  (``data: : …``), a JSON value that is no object a ``wire_field_type`` problem at path
  ``(event)`` (:func:`not_object`): the same in every dialect.
- Pure: nothing here does I/O or keeps state.
"""

from __future__ import annotations

import json as _json
from typing import Any

import orjson

from inspector.core.base.model import AnyDelta, Delta, DeltaKind, EventKind, SSEEvent
from inspector.core.base.provider import Dialect, Provider
from inspector.core.quirks.events.wrongtype import wrong_type


def lenient_loads(data: str, refused: Exception | None = None) -> Any:
    """``orjson.loads``, or, for data it refuses only for a lone surrogate escape (``"\\ud83d"``
    whose pair comes in the next chunk), Python's ``json.loads``, which reads it as every real
    client does (Python's json and JavaScript's ``JSON.parse`` both accept it): the string
    then holds the lone surrogate, and a call's joined arguments pair it with the next
    (:mod:`inspector.core.calls.surrogates`). Raises orjson's error otherwise. A hot path
    calls orjson itself and this only with the error orjson raised (``refused``)."""
    exc = refused
    if exc is None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as raised:
            exc = raised
    if "surrogate" not in str(exc):
        raise exc
    try:
        return _json.loads(data)
    except ValueError:
        raise exc from None


_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError

EVENT_PATH = "(event)"
"""The path a wrong type names when the whole event is no JSON object."""

_COMMENT = EventKind.COMMENT
_WIRE_ERROR = EventKind.ERROR


class OwnDialect(Dialect):
    """What a provider's own dialect (not ``auto``) answers about itself: its provider from
    the start, never a fallback, and it does the work itself. Subclasses write ``feed``."""

    fallback = False

    def __init__(self, provider: Provider) -> None:
        self._provider = provider

    @property
    def provider(self) -> Provider:
        """The provider this dialect decodes for."""
        return self._provider

    @property
    def direct(self) -> Dialect:
        """Itself: there is no wrapper to skip."""
        return self

    def finish(self, out: list[AnyDelta]) -> None:
        """End of stream: nothing is buffered, so nothing to add."""


# -- wire events -------------------------------------------------------------------------------


def non_event(ev: SSEEvent) -> Delta:
    """The delta for a wire event that carries no data: a comment or a decode error."""
    kind = ev.kind
    if kind == _COMMENT:
        return Delta(ev.seq, DeltaKind.KEEPALIVE, ev.comment)
    if kind == _WIRE_ERROR:
        return Delta(ev.seq, DeltaKind.ERROR, ev.data, {"wire": "decode"})
    return Delta(ev.seq, DeltaKind.UNKNOWN, {"event_kind": kind}, ev.data)


def undecodable(ev: SSEEvent, exc: Exception) -> Delta:
    """The delta for data that is not JSON.

    ``data: : OPENROUTER PROCESSING`` (a comment a proxy re-wrapped as data) is a KEEPALIVE with
    the text as value and the data as raw; a ``[DONE]`` with stray whitespace is DONE; anything
    else is UNKNOWN with the parser's message (a number beyond a double's range is named so:
    the frame is whole, not cut mid-JSON).
    """
    data = ev.data
    stripped = data.strip()
    if stripped.startswith(":"):
        return Delta(ev.seq, DeltaKind.KEEPALIVE, stripped[1:].strip(), data)
    if stripped == "[DONE]":
        return Delta(ev.seq, DeltaKind.DONE, None, data)
    why = str(exc)
    if why.startswith("number is infinity"):  # orjson's word for a number beyond a double
        why = "a number out of range (beyond a double): " + why.removeprefix(
            "number is infinity when parsed as double: "
        )
    return Delta(ev.seq, DeltaKind.UNKNOWN, {"undecodable": why}, data)


def not_object(ev: SSEEvent, value: Any) -> Delta:
    """The delta for an event whose data is JSON but no object (``[1,2]``, ``"s"``, ``3``,
    ``null``, ``true``): a wrong type at path ``(event)``, the data as received in ``raw``."""
    return wrong_type(ev.seq, EVENT_PATH, "object", value, ev.data)


def decode_object(ev: SSEEvent, out: list[AnyDelta]) -> dict[str, Any] | None:
    """The event's JSON object, or None after appending what stands in for the event: a
    comment or decode error, undecodable data, or a JSON non-object (:func:`not_object`)."""
    if ev.kind != EventKind.EVENT:
        out.append(non_event(ev))
        return None
    try:
        obj = _loads(ev.data)
    except _JSONDecodeError as exc:
        try:
            obj = lenient_loads(ev.data, exc)  # a lone surrogate escape, as clients read it
        except _JSONDecodeError:
            out.append(undecodable(ev, exc))
            return None
    if type(obj) is not dict:
        out.append(not_object(ev, obj))
        return None
    return obj
