"""The Cohere v2 chat dialect: ``message-*`` / ``content-*`` / ``tool-plan-delta`` /
``tool-call-*`` / ``citation-*`` events -> deltas.

Invariants:
- Dispatch is on the data's ``type`` (falling back to the SSE ``event:`` name), so a gateway
  that drops the ``event:`` lines still maps correctly.
- Every part of an event sits under ``delta.message`` (``content``, ``tool_plan``,
  ``tool_calls``), the finish under ``delta`` of ``message-end``. ``index`` is passed through
  unchanged; content blocks and tool calls count their indexes apart, so only
  ``tool-call-end`` becomes ``CLOSE(index)`` (a ``content-end`` is META: its index names a
  content block, never a call).
- ``tool-call-start`` opens a call with id, name and type exactly as received and its
  ``function.arguments`` as received (``""`` included); ``tool-call-delta`` carries argument
  fragments only. The tool plan (``tool-plan-delta``) and ``thinking`` content are REASONING,
  ``text`` content is TEXT.
- ``message-end`` is the stream's end: its ``finish_reason`` (``COMPLETE``, ``TOOL_CALL``,
  ``MAX_TOKENS``, ``STOP_SEQUENCE``, ``ERROR``, ``TIMEOUT``) becomes FINISH, its ``usage``
  USAGE, an ``error`` string ERROR, then DONE.
- Known events without a normalized meaning (``message-start``, ``content-start`` of an empty
  block, ``content-end``, ``citation-*``, ``debug``) become META; unknown types UNKNOWN with
  the object; nothing is dropped. A field of the wrong type is flagged with its path
  (:mod:`inspector.core.quirks.events.wrongtype`) and the event mapped as far as it can be.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.model import OMITTED, AnyDelta, Delta, DeltaKind, SSEEvent, ToolCallDelta
from inspector.core.providers.wire.errors import error_message
from inspector.core.providers.wire.events import OwnDialect, decode_object
from inspector.core.providers.wire.fields import identity_at, index_at, object_at, string_at
from inspector.core.quirks.events.wrongtype import wrong_type

_META = DeltaKind.META
_UNKNOWN = DeltaKind.UNKNOWN
_PLAIN_META = frozenset({"content-end", "citation-start", "citation-end", "debug"})


def _message(seq: int, obj: dict[str, Any], out: list[AnyDelta]) -> dict[str, Any] | None:
    """``obj.delta.message`` (flagged when either is not an object), or None."""
    delta = object_at(obj, "delta", seq, out)
    if delta is None:
        return None
    message = object_at(delta, "message", seq, out, "delta.")
    return message if message else None


class CohereV2Dialect(OwnDialect):
    """Maps Cohere v2 chat stream events to deltas."""

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        obj = decode_object(ev, out)
        if obj is None:
            return
        seq = ev.seq
        t = obj.get("type", ev.event)
        if type(t) is not str:
            out.append(wrong_type(seq, "type", "string", t, obj))
        if t == "tool-call-delta":
            self._call_delta(seq, obj, out)
        elif t == "content-delta" or t == "content-start":
            self._content(seq, t, obj, out)
        elif t == "tool-plan-delta":
            message = _message(seq, obj, out)
            plan = string_at(message, "tool_plan", seq, out, "delta.message.") if message else None
            if type(plan) is str and plan:
                out.append(Delta(seq, DeltaKind.REASONING, plan, obj))
            else:
                out.append(Delta(seq, _META, {"type": t}, obj))
        elif t == "tool-call-start":
            self._call_start(seq, obj, out)
        elif t == "tool-call-end":
            out.append(Delta(seq, DeltaKind.CLOSE, index_at(obj, "index", seq, out), obj))
        elif t == "message-start":
            message = _message(seq, obj, out) or {}
            head = {"id": obj.get("id"), "role": message.get("role")}
            out.append(Delta(seq, _META, {"message": head}, obj))
        elif t == "message-end":
            self._end(seq, obj, out)
        elif type(t) is str and t in _PLAIN_META:
            out.append(Delta(seq, _META, {"type": t, "index": obj.get("index")}, obj))
        elif "message" in obj and "type" not in obj and ev.event == "message":
            out.append(Delta(seq, DeltaKind.ERROR, error_message(obj), obj))  # an error body
        else:
            out.append(Delta(seq, _UNKNOWN, obj, ev.data))

    @staticmethod
    def _content(seq: int, t: str, obj: dict[str, Any], out: list[AnyDelta]) -> None:
        message = _message(seq, obj, out)
        content = object_at(message, "content", seq, out, "delta.message.") if message else None
        said = False
        if content:
            for key, kind in (("text", DeltaKind.TEXT), ("thinking", DeltaKind.REASONING)):
                value = string_at(content, key, seq, out, "delta.message.content.")
                if type(value) is str and value:
                    out.append(Delta(seq, kind, value, obj))
                    said = True
        if t == "content-start":
            out.append(Delta(seq, _META, {"content_start": obj.get("index"), "content": content},
                             obj))  # fmt: skip
        elif not said:
            out.append(Delta(seq, _META, {"type": t, "index": obj.get("index")}, obj))

    @staticmethod
    def _call(seq: int, obj: dict[str, Any], out: list[AnyDelta]) -> dict[str, Any] | None:
        message = _message(seq, obj, out)
        if message is None:
            return None
        call = object_at(message, "tool_calls", seq, out, "delta.message.")
        return call if call is not None else None

    def _call_start(self, seq: int, obj: dict[str, Any], out: list[AnyDelta]) -> None:
        index = index_at(obj, "index", seq, out)
        call = self._call(seq, obj, out)
        if call is None:
            out.append(Delta(seq, _UNKNOWN, obj, None))
            return
        path = "delta.message.tool_calls."
        fn = object_at(call, "function", seq, out, path)
        name: Any = OMITTED
        args: Any = OMITTED
        if fn is not None:
            name = identity_at(fn, "name", seq, out, path + "function.")
            args = string_at(fn, "arguments", seq, out, path + "function.")
        out.append(
            ToolCallDelta(
                seq,
                0,
                index,
                identity_at(call, "id", seq, out, path),
                name,
                args,
                identity_at(call, "type", seq, out, path),
            )
        )

    def _call_delta(self, seq: int, obj: dict[str, Any], out: list[AnyDelta]) -> None:
        index = index_at(obj, "index", seq, out)
        call = self._call(seq, obj, out)
        fn = object_at(call, "function", seq, out, "delta.message.tool_calls.") if call else None
        if fn is None:
            out.append(Delta(seq, _UNKNOWN, obj, None))
            return
        args = string_at(fn, "arguments", seq, out, "delta.message.tool_calls.function.")
        out.append(ToolCallDelta(seq, 0, index, OMITTED, OMITTED, args))

    @staticmethod
    def _end(seq: int, obj: dict[str, Any], out: list[AnyDelta]) -> None:
        delta = object_at(obj, "delta", seq, out)
        if delta:
            reason = string_at(delta, "finish_reason", seq, out, "delta.")
            if reason is not OMITTED and reason is not None:
                out.append(Delta(seq, DeltaKind.FINISH, reason, obj))
            error = delta.get("error")
            if error:
                out.append(Delta(seq, DeltaKind.ERROR, error_message(error), obj))
            usage = object_at(delta, "usage", seq, out, "delta.")
            if usage is not None:
                out.append(Delta(seq, DeltaKind.USAGE, usage, obj))
        out.append(Delta(seq, DeltaKind.DONE, None, obj))
