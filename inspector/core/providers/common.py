"""What every provider module shares: the wire-event handling all dialects agree on, the
error-object message, and the neutral request pieces (system text, tool functions).

Invariants:
- Comments become KEEPALIVE, wire decode errors ERROR (``raw={"wire": "decode"}``), data that
  is not JSON UNKNOWN (``{"undecodable": …}``) or KEEPALIVE for a comment re-wrapped as data
  (``data: : …``), a JSON value that is no object a ``wire_field_type`` problem at path
  ``(event)`` (:func:`not_object`): the same in every dialect.
- A field of the wrong type is flagged once, with its path, by :func:`index_at`,
  :func:`string_at`, :func:`object_at` and :func:`error_at`
  (:mod:`inspector.core.quirks.events.wrongtype`).
- Identity strings (a call's id and name, an entry's or item's type, a Responses item id) are
  shared (:func:`shared`, :func:`identity_at`): the same name repeated in 200,000 calls is one
  string, not 200,000 (values and their identity checks are unchanged: a str equal to itself).
- Pure: nothing here does I/O; the only state is a small bounded table of recently seen
  identity strings (:func:`shared`), which changes no result.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from typing import Any

import orjson

from inspector.core.base.model import (
    OMITTED,
    AnyDelta,
    Delta,
    DeltaKind,
    EventKind,
    SSEEvent,
    ToolCallDelta,
)
from inspector.core.base.provider import Dialect, Provider
from inspector.core.events.plain import PlainRun
from inspector.core.providers.openai_chat_shape import Shape, ShapeMemo
from inspector.core.providers.shape_runs import map_run
from inspector.core.quirks.events.wrongtype import wrong_type

_loads = orjson.loads
_dumps = orjson.dumps
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


class MemoDialect(OwnDialect):
    """An own dialect with a shape memo (:mod:`.openai_chat_shape`): ``_memo`` (None: turned
    off, the full path for every event) and its current ``_shape`` (None: none proved yet)."""

    def __init__(self, provider: Provider, memo: ShapeMemo | None) -> None:
        super().__init__(provider)
        self._shape: Shape | None = None
        """The shape memo's current shape."""
        self._memo = memo

    def feed_run(self, run: PlainRun, out: list[AnyDelta], spans: list[tuple[int, int]]) -> None:
        """Append the deltas of a decoder's plain run of events (:class:`PlainRun`), exactly
        as :meth:`feed` event by event would. Events that fit the current plain shape are
        taken at once (:func:`.shape_runs.map_run`) with no event object; each such span of
        continuation fragments (no id, no name) is noted in ``spans`` as its ``(start, stop)``
        positions in ``out``, for the accumulator to take at once too."""
        values, seq, n, i = run.values, run.seq, len(run.values), 0
        feed = self.feed
        events: Iterator[SSEEvent] | None = None  # built from position i on, while not taken
        while i < n:
            shape = self._shape
            if type(shape) is Shape:
                k = map_run(shape, values, i, seq + i, out)
                if k:
                    if shape.id is OMITTED and shape.name is OMITTED:
                        spans.append((len(out) - k, len(out)))
                    i += k
                    events = None
                    if i == n:
                        break
            if events is None:
                events = run.events(i)
            feed(next(events), out)
            i += 1

    def _offer(self, ev: SSEEvent, one: ToolCallDelta, obj: dict[str, Any]) -> None:
        """The full path mapped ``ev`` (decoded as ``obj``) to the one delta ``one``, which the
        current shape (if any) missed: keep that shape, or try one of this event (backoff)."""
        memo, shape = self._memo, self._shape
        if memo is None:
            return
        if shape is None and memo.skip:  # ShapeMemo.after's first check, without the call
            memo.skip -= 1
        else:
            self._shape = memo.after(ev, one, obj, shape, self._unmemoized)

    def _unmemoized(self, ev: SSEEvent) -> list[AnyDelta]:
        """The full path's deltas for ``ev`` (the shape memo's proofs)."""
        memo, shape = self._memo, self._shape
        self._memo = self._shape = None
        out: list[AnyDelta] = []
        try:
            self.feed(ev, out)
        finally:
            self._memo, self._shape = memo, shape
        return out


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
        out.append(undecodable(ev, exc))
        return None
    if type(obj) is not dict:
        out.append(not_object(ev, obj))
        return None
    return obj


# -- fields of the wrong type (inspector.core.quirks.events.wrongtype) ----------------------------


def index_at(obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = "") -> Any:
    """``obj[key]`` as received (OMITTED when absent), flagged unless it is an integer or null
    (an index is an identity field: null is a value of its own). ``path`` prefixes the key."""
    value = obj.get(key, OMITTED)
    if value is not OMITTED and value is not None and type(value) is not int:
        out.append(wrong_type(seq, path + key, "integer", value, obj))
    return value


def string_at(obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = "") -> Any:
    """``obj[key]`` as received (OMITTED when absent), flagged unless it is a string or null."""
    value = obj.get(key, OMITTED)
    if value is not OMITTED and value is not None and type(value) is not str:
        out.append(wrong_type(seq, path + key, "string", value, obj))
    return value


def identity_at(
    obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = ""
) -> Any:
    """:func:`string_at` for an identity field (id, name, type): a string comes back shared."""
    value = obj.get(key, OMITTED)
    if type(value) is str:
        return shared_id(value) if key in _ID_KEYS else _intern(value)
    if value is not OMITTED and value is not None:
        out.append(wrong_type(seq, path + key, "string", value, obj))
    return value


_intern = sys.intern

_IDS: dict[str, str] = {}
"""The ids seen last (at most ``_IDS_MAX``): a repeated one is handed back as the copy already
held. Bounded, unlike ``sys.intern``'s table, which holds an entry for every live string: a
stream of 200,000 calls, each with its own id, kept ~50-100 bytes a call there."""
_IDS_MAX = 256
_ID_KEYS = frozenset({"id", "call_id", "item_id"})


def shared(value: Any) -> Any:
    """``value``, the one shared copy of it when it is a string (``sys.intern``): a name or a
    type repeated in every call costs one object. For the few names and types of a stream."""
    return _intern(value) if type(value) is str else value


def shared_id(value: Any) -> Any:
    """``value``, the copy already held when the same id was seen recently (an item id on each
    of its 100,000 fragments costs one object), else itself: ids are mostly unique, so the
    table is small and bounded. Equal strings either way: nothing but memory depends on it."""
    if type(value) is not str:
        return value
    got = _IDS.get(value)
    if got is not None:
        return got
    if len(_IDS) >= _IDS_MAX:
        _IDS.clear()
    _IDS[value] = value
    return value


def object_at(obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = "") -> Any:
    """``obj[key]`` when it is an object; None otherwise, flagged unless absent or null."""
    value = obj.get(key)
    if type(value) is dict:
        return value
    if value is not None:
        out.append(wrong_type(seq, path + key, "object", value, obj))
    return None


def error_at(obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = "") -> None:
    """Flag ``obj[key]``, a provider error, unless it is an object, a string or null (or
    absent); flag its ``message`` unless that is a string or null. The error's text is made
    by :func:`error_message` from whatever it holds."""
    err = obj.get(key)
    if type(err) is dict:
        string_at(err, "message", seq, out, f"{path}{key}.")
    elif err is not None and type(err) is not str:
        out.append(wrong_type(seq, path + key, "object", err, obj))


def error_message(err: Any) -> str:
    """A one-line message for a provider error object (``{"type","code","status","message"}``).

    ``"overloaded_error: Overloaded"``, ``"502: Provider disconnected"``; a string error is used
    as is; anything else becomes its compact JSON. Whitespace runs collapse to one space.
    """
    if isinstance(err, dict):
        msg = err.get("message")
        if msg is None:
            msg = err.get("error") if isinstance(err.get("error"), str) else None
        prefix = " ".join(
            str(err[k]) for k in ("type", "status", "code") if err.get(k) not in (None, "")
        )
        if msg is None:
            text = _dumps(err, default=str).decode()
            text = f"{prefix}: {text}" if prefix else text
        else:
            text = f"{prefix}: {msg}" if prefix else str(msg)
    elif isinstance(err, str):
        text = err
    else:
        text = _dumps(err, default=str).decode()
    return " ".join(text.split())


def wrapped_error(body: Any) -> str:
    """The message of an ``{"error": {…}}`` body (the error object itself when it is not
    wrapped): the shape OpenAI, Anthropic and Gemini error bodies share."""
    if isinstance(body, list) and body:  # Gemini sometimes wraps the error in a list
        body = body[0]
    return error_message(body.get("error", body) if isinstance(body, dict) else body)


def openai_error_body(status: int, message: str) -> dict[str, Any]:
    """OpenAI's error body (Chat Completions and Responses alike): ``{"error": {"message",
    "type", "param", "code"}}``, typed ``server_error`` for a 5xx status."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def compact_json(value: Any) -> str:
    """Compact JSON text of an argument object (what ``JSON.stringify`` would produce)."""
    return _dumps(value, default=str).decode()


# -- requests ----------------------------------------------------------------------------------


def text_of(content: Any) -> str:
    """A message's content as text (non-string content as its JSON)."""
    return content if isinstance(content, str) else _dumps(content).decode()


def split_system(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """(the system messages' text joined by blank lines, the other messages)."""
    system = "\n\n".join(text_of(m.get("content")) for m in messages if m.get("role") == "system")
    return system, [m for m in messages if m.get("role") != "system"]


def function(tool: dict[str, Any]) -> tuple[str, str | None, dict[str, Any]]:
    """(name, description, parameters schema) of a neutral tool; the schema is a copy, an
    empty object schema when the tool declares none."""
    fn = tool["function"]
    params = fn.get("parameters")
    schema = (
        copy.deepcopy(params) if isinstance(params, dict) else {"type": "object", "properties": {}}
    )
    return fn["name"], fn.get("description"), schema


def as_list(value: Any) -> list[Any]:
    """A body field that should hold a list, as a new list (empty when it holds none)."""
    return list(value) if isinstance(value, list) else []


def args_text(arguments: str) -> str:
    """Arguments as a continuation echoes them: blank becomes ``{}``."""
    return arguments if arguments.strip() else "{}"
