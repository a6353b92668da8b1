"""The OpenAI Responses dialect: ``response.*`` events -> deltas.

Invariants:
- A function call's identity is its ``call_id`` (the id a tool reply must echo), passed as
  ``ToolCallDelta.id`` exactly as received; the item id (``fc_…``) rides in
  ``extra["item_id"]``. ``index`` is the ``output_index`` as received.
- When an arguments event lacks ``output_index``, the index is looked up from the item id
  seen in ``response.output_item.added`` and ``extra["index_from_item_id"]`` is set; an
  unknown item id leaves the index OMITTED.
- ``function_call_arguments.done`` and ``output_item.done`` restate the whole arguments: they
  are emitted with ``final=True`` (the accumulator reconciles, never appends). ``output_item.done``
  for a call is followed by ``CLOSE(output_index)``. LM Studio sends no delta events at all;
  its calls arrive only through these final fragments.
- Every tool-call item type (:mod:`.items`) opens a lane with an
  :class:`~inspector.core.base.kinds.ItemDelta` saying its kind and wire type: its identity is
  its ``call_id`` (its item ``id`` when it has none). ``custom_tool_call`` (free-form input)
  maps like a function call, with ``input`` as the arguments and ``custom_tool_call_input.*``
  as the fragments; ``mcp_call_arguments.*`` and ``code_interpreter_call_code.*`` stream the
  input of theirs, ``apply_patch_call_operation_diff.*`` the patch's diff and
  ``shell_call_command.delta`` the shell's commands (routed by ``output_index``; the event
  keeps its ``command_index``): each delta is a fragment of the item's lane as it arrives, a
  ``*.done`` that restates all of it a ``final`` one. An object input (``action``,
  ``operation``…) is its compact JSON on the item's ``output_item.done`` (``args_object``,
  ``final``): it restates the whole input of which the streamed text was one field, and the
  accumulator takes it in place of that text (:mod:`inspector.core.calls.accumulator`). A
  programmatic call's ``caller`` and a namespaced call's ``namespace`` ride in ``extra``.
- What the stream reports of an item's execution (an ``*_output`` item, a hosted item's done
  results) is a RESULT delta ``{"id": call identity, "item_type", …}`` beside the call.
- An arguments delta that differs from a proved one only in its ``delta`` text,
  ``obfuscation`` and ``sequence_number`` is mapped by the shape memo without a decode
  (:mod:`inspector.core.providers.shapememo.shape`), only for an integer ``output_index``
  and a string item id: what the dialect learns later cannot change such a delta.
- The stream ends with ``response.completed`` / ``.incomplete`` (FINISH, USAGE, DONE) or
  ``response.failed`` (ERROR, FINISH("failed"), DONE); there is no ``[DONE]``.
- Known lifecycle events with no normalized meaning become META ``{"type": …}`` (the object is
  in ``raw``); unknown types become UNKNOWN. Nothing is dropped.
- A field of the wrong type (an ``output_index`` that is not an integer, a ``response`` that is
  not an object …) is flagged with its path (:mod:`inspector.core.quirks.events.wrongtype`) and the
  event mapped as far as it can be: identity fields as received, an object that is not one
  read as empty.
"""

from __future__ import annotations

from typing import Any

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
from inspector.core.providers.openai_responses.items import (
    ITEMS,
    OUTPUT_ITEMS,
    STRING_INPUTS,
    identity_field,
    item_input,
    kind_of_item,
    result_of,
)
from inspector.core.providers.shapememo.dialect import MemoDialect
from inspector.core.providers.shapememo.shape import ShapeMemo
from inspector.core.providers.wire.errors import error_message
from inspector.core.providers.wire.events import decode_object
from inspector.core.providers.wire.fields import (
    compact_json,
    error_at,
    identity_at,
    index_at,
    object_at,
    string_at,
)
from inspector.core.quirks.events.wrongtype import wrong_type

CALL_ITEMS = frozenset(ITEMS)
"""Output item types that are tool calls (every one becomes a lane: :mod:`.items`)."""

LIFECYCLE = frozenset(
    {
        "response.queued",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.done",
        "response.output_text.annotation.added",
        "response.refusal.delta",
        "response.refusal.done",
        "response.reasoning_text.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.done",
    }
)
"""Event types that are known but carry nothing the normalized deltas model."""

LIFECYCLE_FAMILIES = (
    "response.web_search_call.",
    "response.file_search_call.",
    "response.code_interpreter_call",
    "response.image_generation_call.",
    "response.mcp_",
    "response.audio.",
    "response.shell_call",
    "response.local_shell_call",
    "response.apply_patch_call",
    "response.computer_call",
    "response.tool_search_call",
    "response.program",
    "response.compaction.",
)
"""Prefixes of built-in and hosted tool events (their progress, a shell's command and output
text, a shell's ``command.added`` / ``.done``: the item's whole input and output come with its
``output_item.done``) and of audio events, shown as META. The input deltas among them
(:data:`_ARG_DELTAS`, :data:`_ARG_DONES`) are matched first and fill their lanes."""

_EVENT = EventKind.EVENT
_META = DeltaKind.META
_UNKNOWN = DeltaKind.UNKNOWN
_TEXT_EVENTS = frozenset({"response.output_text.delta"})
_REASONING_EVENTS = frozenset(
    {"response.reasoning_text.delta", "response.reasoning_summary_text.delta"}
)
_ARG_DELTAS = frozenset(
    {
        "response.function_call_arguments.delta",
        "response.custom_tool_call_input.delta",
        "response.mcp_call_arguments.delta",
        "response.code_interpreter_call_code.delta",
        "response.apply_patch_call_operation_diff.delta",
        "response.shell_call_command.delta",
    }
)
"""Events streaming a piece of an item's input: a fragment of its lane as it arrives."""
_ARG_DONES = {
    "response.function_call_arguments.done": "arguments",
    "response.custom_tool_call_input.done": "input",
    "response.mcp_call_arguments.done": "arguments",
    "response.code_interpreter_call_code.done": "code",
    "response.apply_patch_call_operation_diff.done": "diff",
}
"""Events restating the whole streamed input (a ``final`` fragment) -> the field holding it.
``shell_call_command.done`` is not one: it restates one command of the action, not all that
streamed (the item's ``output_item.done`` restates the whole action)."""
_EXTRA_KEYS = ("caller", "namespace", "execution", "environment", "server_label")
"""Item fields kept in a lane's ``extra`` (who called it, where it runs)."""


class ResponsesDialect(MemoDialect):
    """Maps Responses API ``response.*`` events to deltas."""

    def __init__(self, provider: Provider, memo: bool = True) -> None:
        # The shape memo serves arguments deltas.
        super().__init__(provider, ShapeMemo("delta", None, _by_index, True) if memo else None)
        self._index_of: dict[str, Any] = {}
        """item id -> output_index, from ``output_item.added`` (for events lacking the index)."""
        self._extras: dict[tuple[str, bool], dict[str, Any]] = {}
        """(item id, index taken from it) -> the extra its fragments share."""
        self._tools: list[Any] | None = None
        """The response's own tool list (``response.created``), when it gave one."""

    def _index(self, index: Any, item_id: Any, extra: dict[str, Any]) -> Any:
        """The output index as received, or (when absent) the one its item id was added at."""
        if index is OMITTED and type(item_id) is str and item_id in self._index_of:
            index = self._index_of[item_id]
            extra["index_from_item_id"] = True
        return index

    def _ref(
        self, seq: int, obj: dict[str, Any], out: list[AnyDelta]
    ) -> tuple[Any, dict[str, Any]]:
        """(output index, extra) of an event that refers to an item by id and index. The
        extra of an item named by a string id is one dict shared by all its fragments (a
        call streamed in 100,000 deltas has one, not 100,000): it is never changed after."""
        item_id = identity_at(obj, "item_id", seq, out)
        index = index_at(obj, "output_index", seq, out)
        if type(item_id) is not str:
            extra: dict[str, Any] = {"item_id": item_id}
            return self._index(index, item_id, extra), extra
        key = (item_id, index is OMITTED and item_id in self._index_of)
        shared_extra = self._extras.get(key)
        if shared_extra is None:
            shared_extra = self._extras[key] = {"item_id": item_id}
        return self._index(index, item_id, shared_extra), shared_extra

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        shape = self._shape
        if shape is not None and ev.kind == _EVENT:
            got = shape.map(ev)
            if got is not None:
                out.append(got)
                return
        n0 = len(out)
        obj = decode_object(ev, out)
        if obj is None:
            return
        seq = ev.seq
        t = obj.get("type", ev.event)
        if type(t) is not str:
            out.append(wrong_type(seq, "type", "string", t, obj))
            return

        if t in _ARG_DELTAS:
            index, extra = self._ref(seq, obj, out)
            args = string_at(obj, "delta", seq, out)
            one = ToolCallDelta(seq, 0, index, OMITTED, OMITTED, args, extra=extra)
            out.append(one)
            if len(out) == n0 + 1:  # nothing flagged besides: a shape candidate
                self._offer(ev, one, obj)
        elif t in _TEXT_EVENTS:
            text = string_at(obj, "delta", seq, out)
            if type(text) is str and text:
                out.append(Delta(seq, DeltaKind.TEXT, text))
        elif t in _REASONING_EVENTS:
            text = string_at(obj, "delta", seq, out)
            if type(text) is str and text:
                out.append(Delta(seq, DeltaKind.REASONING, text))
        elif t in _ARG_DONES:
            index, extra = self._ref(seq, obj, out)
            name = identity_at(obj, "name", seq, out)
            args = string_at(obj, _ARG_DONES[t], seq, out)
            out.append(ToolCallDelta(seq, 0, index, OMITTED, name, args, final=True, extra=extra))
        elif t == "response.output_item.added" or t == "response.output_item.done":
            self._item(seq, t, obj, ev.data, out)
        elif t == "response.created" or t == "response.in_progress":
            resp = object_at(obj, "response", seq, out)  # flagged, and shown as received
            tools = resp.get("tools") if resp is not None else None
            if tools is not None and type(tools) is not list:  # the tool source: read if a list
                out.append(wrong_type(seq, "response.tools", "array", tools, obj))
            elif tools:
                self._tools = tools
            out.append(Delta(seq, _META, {"type": t, "response": obj.get("response")}, obj))
        elif t == "response.completed" or t == "response.incomplete":
            resp = object_at(obj, "response", seq, out) or {}
            reason = "completed"
            if t == "response.incomplete":
                details = object_at(resp, "incomplete_details", seq, out, "response.")
                why = details.get("reason") if details is not None else None
                reason = f"incomplete:{why}" if why is not None else "incomplete"
            out.append(Delta(seq, DeltaKind.FINISH, reason, obj))
            usage = object_at(resp, "usage", seq, out, "response.")
            if usage is not None:
                out.append(Delta(seq, DeltaKind.USAGE, usage, obj))
            out.append(Delta(seq, DeltaKind.DONE, None, obj))
        elif t == "response.failed":
            resp = object_at(obj, "response", seq, out)
            err = None
            if resp is not None:
                error_at(resp, "error", seq, out, "response.")
                err = resp.get("error")
            msg = error_message(err) if err is not None else "response failed"
            out.append(Delta(seq, DeltaKind.ERROR, msg, obj))
            out.append(Delta(seq, DeltaKind.FINISH, "failed", obj))
            out.append(Delta(seq, DeltaKind.DONE, None, obj))
        elif t == "error":
            error_at(obj, "error", seq, out)
            out.append(Delta(seq, DeltaKind.ERROR, error_event_message(obj), obj))
        elif t in LIFECYCLE or t.startswith(LIFECYCLE_FAMILIES):
            out.append(Delta(seq, _META, {"type": t}, obj))
        elif "error" in obj and obj["error"] is not None:
            error_at(obj, "error", seq, out)
            out.append(Delta(seq, DeltaKind.ERROR, error_message(obj["error"]), obj))
        else:
            out.append(Delta(seq, _UNKNOWN, obj, ev.data))

    def _item(self, seq: int, t: str, obj: dict[str, Any], data: str, out: list[AnyDelta]) -> None:
        """``output_item.added`` / ``.done``: open or restate a call item; an output item that
        reports a call's execution is a RESULT once done; other items are META."""
        item = object_at(obj, "item", seq, out)
        if item is None:
            if obj.get("item") is None:
                out.append(Delta(seq, _UNKNOWN, obj, data))
            return
        it = identity_at(item, "type", seq, out, "item.")
        done = t == "response.output_item.done"
        if type(it) is not str or it not in CALL_ITEMS:
            if done and type(it) is str and it in OUTPUT_ITEMS:
                reported = {**item, "id": item.get("call_id"), "item_id": item.get("id"),
                            "item_type": it}  # fmt: skip
                out.append(Delta(seq, DeltaKind.RESULT, reported, obj))
            else:
                out.append(Delta(seq, _META, {"type": t, "item": item}, obj))
            return
        item_id = identity_at(item, "id", seq, out, "item.")
        extra: dict[str, Any] = {"item_id": item_id}
        for key in _EXTRA_KEYS:
            if key in item and item[key] is not None:
                extra[key] = item[key]
        index = index_at(obj, "output_index", seq, out)
        if index is OMITTED:
            index = self._index(index, item_id, extra)
        elif not done and type(item_id) is str:
            self._index_of[item_id] = index
        kind = kind_of_item(item, it, self._tools)
        call_id = identity_at(item, identity_field(item, it), seq, out, "item.")
        name = identity_at(item, "name", seq, out, "item.")
        args: Any = OMITTED
        whole = False
        if it == "function_call" or it == "custom_tool_call":
            args = string_at(item, ITEMS[it][1], seq, out, "item.")  # type: ignore[arg-type]
        else:
            field, value = item_input(item, it)
            if type(value) is str and field in STRING_INPUTS:
                args = value
            elif done and (type(value) is dict or type(value) is list):
                args, whole = compact_json(value), True
        result = result_of(it, item) if done and kind == CallKind.HOSTED else None
        out.append(ItemDelta(seq, 0, index, call_id, name, args, it, whole, done, extra,
                             call_kind=kind, item_type=it, result=result))  # fmt: skip
        if done:
            out.append(Delta(seq, DeltaKind.CLOSE, index, obj))
            if result is not None:
                out.append(Delta(seq, DeltaKind.RESULT, {"id": call_id, "item_type": it,
                                                         **result}, obj))  # fmt: skip


def _by_index(delta: ToolCallDelta) -> bool:
    """A delta a shape may stand for: an integer ``output_index`` on the wire and a string
    item id (so its extra is the one shared dict, whatever the dialect learns later)."""
    extra = delta.extra
    return (
        type(delta.index) is int
        and extra is not None
        and type(extra.get("item_id")) is str
        and "index_from_item_id" not in extra
    )


def error_event_message(obj: dict[str, Any]) -> str:
    """``{"type": "error", "error": {…}}``, or the flat ``{"type": "error", "code", "message"}``."""
    err = obj.get("error")
    if err is None:
        err = {k: v for k, v in obj.items() if k != "type"}
    return error_message(err)
