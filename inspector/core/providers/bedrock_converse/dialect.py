"""The Bedrock dialect: ConverseStream events (and InvokeModelWithResponseStream chunks) ->
deltas.

An event's type is its frame's ``:event-type`` with its payload the inner object (the real
wire), or, when the event has no type of its own (a JSON line), the one key of a wrapped
payload (``{"contentBlockDelta": {…}}``, as the SDKs' fixtures hold them): both read alike.

Invariants:
- ``contentBlockIndex`` is passed through unchanged. ``contentBlockStart`` whose ``start``
  holds a ``toolUse`` opens a call (an :class:`~inspector.core.base.kinds.ItemDelta` of kind
  ``function``, item type ``toolUse``) with ``toolUseId``/``name`` exactly as received and no
  arguments; each ``contentBlockDelta`` ``toolUse.input`` is an argument fragment as received
  (``""`` included; an object is its compact JSON with ``args_object``, the
  ``arguments_not_string`` quirk; another value that is not a string is flagged); every
  ``contentBlockStop`` is ``CLOSE(index)``.
- ``text`` deltas are TEXT, ``reasoningContent.text`` REASONING; a reasoning signature,
  redacted reasoning, a citation, a non-tool block start are META; ``messageStop`` is
  FINISH with its ``stopReason`` as received; ``metadata`` is USAGE (its ``usage``) or META.
- An exception (a frame of ``:message-type`` exception, typed ``…Exception``, or a wrapped
  ``{"throttlingException": {…}}``) and an error body (``{"message": …}``) are ERROR with a
  one-line message; anything else unknown is UNKNOWN, kept verbatim; nothing is dropped.
- A ``chunk`` event (InvokeModelWithResponseStream: ``{"bytes": base64}``) carries one
  Anthropic Messages event: it is decoded and read by the anthropic provider's own dialect
  (its deltas carry the chunk's ``seq``); bytes that are not base64 JSON are UNKNOWN.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

import orjson

from inspector.core.base.kinds import CallKind, ItemDelta
from inspector.core.base.model import (
    OMITTED,
    AnyDelta,
    Delta,
    DeltaKind,
    EventKind,
    SSEEvent,
    ToolCallDelta,
)
from inspector.core.base.provider import Provider
from inspector.core.providers.anthropic.dialect import AnthropicDialect
from inspector.core.providers.wire.errors import error_message
from inspector.core.providers.wire.events import OwnDialect, decode_object
from inspector.core.providers.wire.fields import (
    compact_json,
    identity_at,
    index_at,
    object_at,
    string_at,
)
from inspector.core.quirks.events.wrongtype import wrong_type

EVENTS: Final = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    }
)
"""ConverseStream's event types."""
CHUNK: Final = "chunk"
"""InvokeModelWithResponseStream's event type (a base64 payload of the model's own event)."""
TOOL_USE: Final = "toolUse"
"""The item type of a Converse tool call (its block's key)."""

_META = DeltaKind.META
_UNKNOWN = DeltaKind.UNKNOWN
_INDEX = "contentBlockIndex"


def is_exception(name: object) -> bool:
    """An exception's type (``throttlingException``, ``modelStreamErrorException`` …)."""
    return type(name) is str and name.endswith("Exception") and len(name) > 9


def unwrapped(ev: SSEEvent, obj: dict[str, Any]) -> tuple[str | None, Any]:
    """The event's type and body: its frame's type with the object, or a wrapped object's
    one key and value; ``(None, obj)`` when neither tells."""
    if ev.event != "message":
        return ev.event, obj
    if len(obj) == 1:
        ((key, value),) = obj.items()
        if key in EVENTS or key == CHUNK or is_exception(key):
            return key, value
    return None, obj


class BedrockDialect(OwnDialect):
    """Maps ConverseStream events (and Anthropic chunks) to deltas."""

    def __init__(self, provider: Provider) -> None:
        super().__init__(provider)
        self._inner: AnthropicDialect | None = None  # made at the first chunk

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        obj = decode_object(ev, out)
        if obj is None:
            return
        seq = ev.seq
        t, body = unwrapped(ev, obj)
        if type(body) is not dict:
            out.append(wrong_type(seq, t or "(event)", "object", body, obj))
            return
        if t == "contentBlockDelta":
            self._delta(seq, body, obj, out)
        elif t == "contentBlockStart":
            self._start(seq, body, obj, out)
        elif t == "contentBlockStop":
            out.append(Delta(seq, DeltaKind.CLOSE, index_at(body, _INDEX, seq, out), obj))
        elif t == "messageStart":
            out.append(Delta(seq, _META, {"message": body}, obj))
        elif t == "messageStop":
            stop = string_at(body, "stopReason", seq, out)
            if stop is OMITTED or stop is None:
                out.append(Delta(seq, _META, {"messageStop": body}, obj))
            else:
                out.append(Delta(seq, DeltaKind.FINISH, stop, obj))
        elif t == "metadata":
            usage = object_at(body, "usage", seq, out)
            if usage is not None:
                out.append(Delta(seq, DeltaKind.USAGE, usage, obj))
            else:
                out.append(Delta(seq, _META, {"metadata": body}, obj))
        elif t == CHUNK:
            self._chunk(ev, body, obj, out)
        elif is_exception(t) or (t is None and set(body) <= {"message", "Message", "type"}
                                 and ("message" in body or "Message" in body)):  # fmt: skip
            out.append(Delta(seq, DeltaKind.ERROR, _error(t, body), obj))
        else:
            out.append(Delta(seq, _UNKNOWN, obj, ev.data))

    @staticmethod
    def _start(seq: int, body: dict[str, Any], obj: dict[str, Any], out: list[AnyDelta]) -> None:
        index = index_at(body, _INDEX, seq, out)
        start = object_at(body, "start", seq, out)
        tool = object_at(start, TOOL_USE, seq, out, "start.") if start is not None else None
        if tool is None:
            out.append(Delta(seq, _META, {"block_start": index, "start": body.get("start")}, obj))
            return
        extra = {k: v for k, v in tool.items() if k not in ("toolUseId", "name", "type")}
        out.append(
            ItemDelta(
                seq,
                0,
                index,
                identity_at(tool, "toolUseId", seq, out, "start.toolUse."),
                identity_at(tool, "name", seq, out, "start.toolUse."),
                OMITTED,
                identity_at(tool, "type", seq, out, "start.toolUse."),
                extra=extra or None,
                call_kind=CallKind.FUNCTION,
                item_type=TOOL_USE,
            )
        )

    @staticmethod
    def _delta(seq: int, body: dict[str, Any], obj: dict[str, Any], out: list[AnyDelta]) -> None:
        index = index_at(body, _INDEX, seq, out)
        delta = object_at(body, "delta", seq, out)
        if delta is None:
            out.append(Delta(seq, _UNKNOWN, obj, None))
            return
        if TOOL_USE in delta:
            tool = object_at(delta, TOOL_USE, seq, out, "delta.")
            if tool is not None:
                value = tool.get("input", OMITTED)
                if type(value) is dict:  # an object, not its text: read as its compact JSON
                    out.append(ToolCallDelta(seq, 0, index, OMITTED, OMITTED,
                                             compact_json(value), OMITTED, True))  # fmt: skip
                    return
                args = string_at(tool, "input", seq, out, "delta.toolUse.")
                out.append(ToolCallDelta(seq, 0, index, OMITTED, OMITTED, args))
                return
        elif "text" in delta:
            text = string_at(delta, "text", seq, out, "delta.")
            if type(text) is str and text:
                out.append(Delta(seq, DeltaKind.TEXT, text, obj))
            return
        elif "reasoningContent" in delta:
            reasoning = object_at(delta, "reasoningContent", seq, out, "delta.")
            if reasoning is not None and "text" in reasoning:
                text = string_at(reasoning, "text", seq, out, "delta.reasoningContent.")
                if type(text) is str and text:
                    out.append(Delta(seq, DeltaKind.REASONING, text, obj))
                return
            out.append(Delta(seq, _META, {"index": index, **delta}, obj))
            return
        elif delta.keys() & {"citation", "toolResult", "image"}:
            out.append(Delta(seq, _META, {"index": index, **delta}, obj))
            return
        out.append(Delta(seq, _UNKNOWN, obj, None))

    def _chunk(self, ev: SSEEvent, body: dict[str, Any], obj: dict[str, Any],
               out: list[AnyDelta]) -> None:  # fmt: skip
        raw = body.get("bytes")
        try:
            text = base64.b64decode(raw, validate=True).decode() if type(raw) is str else None
        except (binascii.Error, UnicodeDecodeError):
            text = None
        if text is None:
            why = "a chunk whose bytes are not base64 UTF-8"
            out.append(Delta(ev.seq, _UNKNOWN, {"undecodable": why}, ev.data))
            return
        try:
            inner = orjson.loads(text)
        except orjson.JSONDecodeError:
            inner = None
        name = inner.get("type") if type(inner) is dict else None
        event = name if type(name) is str and name else "message"
        if self._inner is None:
            self._inner = AnthropicDialect(self.provider)
        carried = SSEEvent(ev.seq, EventKind.EVENT, event, text, None, None, ev.start, ev.end,
                           ev.t)  # fmt: skip
        self._inner.feed(carried, out)


def _error(kind: str | None, body: dict[str, Any]) -> str:
    message = body.get("message", body.get("Message"))
    if kind is None:
        kind = body.get("type") if type(body.get("type")) is str else None
    return error_message({"type": kind, "message": message} if message is not None else body)
