"""The Gemini Interactions dialect: ``interaction.*`` / ``step.*`` events (and the earlier
``content.*`` ones) -> deltas.

Invariants:
- Dispatch is on the data's ``event_type`` (falling back to the SSE ``event:`` name).
- ``index`` is the step index, passed through unchanged; every ``step.stop`` (``content.stop``)
  becomes ``CLOSE(index)`` (the accumulator ignores closes of indexes it holds no call for).
- A step that is a call (:func:`.steps.call_kind`) opens with an :class:`ItemDelta`: its
  ``call_kind`` (``function`` for ``function_call``, ``hosted`` for ``google_search_call`` and
  the other ``*_call`` steps Google runs), its ``item_type`` the step type as received, id and
  name exactly as received, arguments OMITTED unless the step carries a non-empty object
  (then its compact JSON, ``args_object=True``). ``arguments_delta`` strings are fragments of
  the call at their index. A hosted call's input (an object in its ``step.delta``) is META
  beside it: no argument string was streamed, so its lane's arguments stay empty.
- A ``*_result`` step is never a call: each of its deltas (or a result the start carries) is
  a RESULT ``{"id": call_id, "item_type", "result"}`` joined to its call by ``call_id``.
- ``interaction.completed`` is the end: its ``status`` (``completed``, ``requires_action`` —
  the turn wants tool results —, ``failed``, ``incomplete``, ``cancelled``) is FINISH, its
  ``usage`` USAGE, an ``error`` ERROR, then DONE. A ``[DONE]`` data line after it (the API's
  ``event: done``) restates that end: a KEEPALIVE, not data after the end.
- Text (``text`` deltas) is TEXT, thought summaries REASONING; signatures, annotations,
  statuses and step starts without content are META; unknown types UNKNOWN with the object.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.kinds import ItemDelta
from inspector.core.base.model import OMITTED, AnyDelta, Delta, DeltaKind, SSEEvent, ToolCallDelta
from inspector.core.providers.gemini_interactions.steps import (
    THOUGHT_STEPS,
    call_kind,
    is_result,
)
from inspector.core.providers.wire.errors import wrapped_error
from inspector.core.providers.wire.events import OwnDialect, decode_object
from inspector.core.providers.wire.fields import (
    compact_json,
    identity_at,
    index_at,
    object_at,
    string_at,
)
from inspector.core.quirks.events.wrongtype import wrong_type

_META = DeltaKind.META
_UNKNOWN = DeltaKind.UNKNOWN
_STARTS = frozenset({"step.start", "content.start"})
_DELTAS = frozenset({"step.delta", "content.delta"})
_STOPS = frozenset({"step.stop", "content.stop"})
_ENDS = frozenset({"interaction.completed", "interaction.complete"})
_CALL_KEYS = frozenset({"type", "id", "name", "arguments"})


class InteractionsDialect(OwnDialect):
    """Maps Gemini Interactions stream events to deltas (keeps, per open result step, the
    call it answers)."""

    def __init__(self, provider: Any) -> None:
        super().__init__(provider)
        self._results: dict[Any, tuple[Any, str]] = {}
        """Result steps by index: (the call_id they answer, their type)."""
        self._ended = False

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        if self._ended and ev.data.strip() == "[DONE]":
            out.append(Delta(ev.seq, DeltaKind.KEEPALIVE, "[DONE]", ev.data))
            return
        obj = decode_object(ev, out)
        if obj is None:
            return
        seq = ev.seq
        t = obj.get("event_type", ev.event)
        if type(t) is not str:
            out.append(wrong_type(seq, "event_type", "string", t, obj))
            t = ""
        if t in _DELTAS:
            self._delta(seq, obj, out)
        elif t in _STARTS:
            self._start(seq, obj, out)
        elif t in _STOPS:
            index = index_at(obj, "index", seq, out)
            if type(index) is int:
                self._results.pop(index, None)
            out.append(Delta(seq, DeltaKind.CLOSE, index, obj))
        elif t in _ENDS:
            self._end(seq, obj, out)
        elif t == "interaction.created" or t == "interaction.status_update":
            head = obj.get("interaction", obj)
            status = head.get("status") if type(head) is dict else None
            out.append(Delta(seq, _META, {"type": t, "status": status}, obj))
        elif t == "error" or "error" in obj:
            out.append(Delta(seq, DeltaKind.ERROR, wrapped_error(obj), obj))
        else:
            out.append(Delta(seq, _UNKNOWN, obj, ev.data))

    # -- steps -----------------------------------------------------------------------------

    def _start(self, seq: int, obj: dict[str, Any], out: list[AnyDelta]) -> None:
        index = index_at(obj, "index", seq, out)
        key = "step" if "step" in obj else "content"
        step = object_at(obj, key, seq, out)
        if step is None:
            out.append(Delta(seq, _UNKNOWN, obj, None))
            return
        st = identity_at(step, "type", seq, out, key + ".")
        kind = call_kind(st)
        if kind is not None:
            out.append(self._opener(seq, index, step, st, kind, key + ".", out))
            return
        out.append(Delta(seq, _META, {"step_start": index, "step": step}, obj))
        if is_result(st):
            if type(index) is int:
                self._results[index] = (step.get("call_id", OMITTED), st)
            if "result" in step:
                out.append(self._result(seq, index, step, obj))
            return
        self._content(seq, step, type(st) is str and st in THOUGHT_STEPS, obj, out)

    @staticmethod
    def _opener(
        seq: int, index: Any, step: dict[str, Any], st: Any, kind: str, path: str,
        out: list[AnyDelta],
    ) -> ItemDelta:  # fmt: skip
        args: Any = OMITTED
        obj_args = False
        given = step.get("arguments", OMITTED)
        if type(given) is dict:
            if given:
                args, obj_args = compact_json(given), True
        elif type(given) is str:
            args = given
        elif given is not OMITTED and given is not None:
            out.append(wrong_type(seq, path + "arguments", "object", given, step))
        if kind != "function" and args is OMITTED:
            args = ""  # a hosted call streams no argument string
        extra = {k: v for k, v in step.items() if k not in _CALL_KEYS} or None
        return ItemDelta(
            seq, 0, index, identity_at(step, "id", seq, out, path),
            identity_at(step, "name", seq, out, path), args, st, obj_args, False, extra,
            call_kind=kind, item_type=st,
        )  # fmt: skip

    def _result(self, seq: int, index: Any, part: dict[str, Any], raw: Any) -> Delta:
        known = self._results.get(index) if type(index) is int else None
        call_id, st = known or (OMITTED, part.get("type"))
        call_id = part.get("call_id", call_id)
        value = {"id": call_id, "item_type": st, "result": part.get("result")}
        if "is_error" in part:
            value["is_error"] = part["is_error"]
        return Delta(seq, DeltaKind.RESULT, value, raw)

    @staticmethod
    def _content(
        seq: int, step: dict[str, Any], thought: bool, raw: Any, out: list[AnyDelta]
    ) -> None:
        """Text a step start already carries (``content`` blocks, a thought's ``summary``)."""
        kind = DeltaKind.REASONING if thought else DeltaKind.TEXT
        for key in ("content", "summary"):
            blocks = step.get(key)
            if type(blocks) is not list:
                continue
            for block in blocks:
                if type(block) is dict and type(block.get("text")) is str and block["text"]:
                    out.append(Delta(seq, kind, block["text"], raw))

    def _delta(self, seq: int, obj: dict[str, Any], out: list[AnyDelta]) -> None:
        index = index_at(obj, "index", seq, out)
        delta = object_at(obj, "delta", seq, out)
        if delta is None:
            out.append(Delta(seq, _UNKNOWN, obj, None))
            return
        dt = string_at(delta, "type", seq, out, "delta.")
        if dt == "text":
            text = string_at(delta, "text", seq, out, "delta.")
            if type(text) is str and text:
                out.append(Delta(seq, DeltaKind.TEXT, text, obj))
            else:  # an empty or missing text: the event is still shown
                out.append(Delta(seq, _META, {"index": index, **delta}, obj))
        elif dt == "arguments_delta":
            args = string_at(delta, "arguments", seq, out, "delta.")
            out.append(ToolCallDelta(seq, 0, index, OMITTED, OMITTED, args))
        elif dt in ("thought_summary", "thought"):
            content = delta.get("content")
            text = content.get("text") if type(content) is dict else delta.get("text")
            if type(text) is str and text:
                out.append(Delta(seq, DeltaKind.REASONING, text, obj))
            else:
                out.append(Delta(seq, _META, {"index": index, **delta}, obj))
        elif (type(index) is int and index in self._results) or is_result(dt):
            out.append(self._result(seq, index, delta, obj))
        elif call_kind(dt) == "function" and "name" in delta:  # content.delta: a whole call
            out.append(self._opener(seq, index, delta, dt, "function", "delta.", out))
        else:  # signatures, annotations, a hosted call's input
            out.append(Delta(seq, _META, {"index": index, **delta}, obj))

    def _end(self, seq: int, obj: dict[str, Any], out: list[AnyDelta]) -> None:
        self._ended = True
        inter = object_at(obj, "interaction", seq, out)
        if inter is not None:
            status = string_at(inter, "status", seq, out, "interaction.")
            if type(status) is str:
                out.append(Delta(seq, DeltaKind.FINISH, status, obj))
            if inter.get("error"):
                out.append(Delta(seq, DeltaKind.ERROR, wrapped_error(inter), obj))
            usage = object_at(inter, "usage", seq, out, "interaction.")
            if usage is not None:
                out.append(Delta(seq, DeltaKind.USAGE, usage, obj))
        out.append(Delta(seq, DeltaKind.DONE, None, obj))
