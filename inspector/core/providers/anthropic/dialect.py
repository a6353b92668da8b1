"""The Anthropic Messages dialect: ``message_*`` / ``content_block_*`` events -> deltas.

Invariants:
- Dispatch is on the data's ``type`` (falling back to the SSE ``event:`` name), so a gateway
  that drops the ``event:`` lines still maps correctly.
- ``index`` is the content-block index, passed through unchanged (text is usually block 0 and
  the first tool block 1). Every ``content_block_stop`` becomes ``CLOSE(index)``, text blocks
  included; the accumulator ignores closes for indices it holds no call for.
- Tool blocks (``tool_use``, ``server_tool_use``, ``mcp_tool_use``) open with a ToolCallDelta
  whose id/name/type are exactly as received and whose arguments are OMITTED, unless ``input``
  is a non-empty object (some gateways send the whole input there): then its compact JSON with
  ``args_object=True``. ``extra`` holds ``block_type`` plus any other block keys (``caller``,
  ``server_name`` …) verbatim; a non-object, non-``{}`` ``input`` is kept as ``extra["input"]``.
- ``input_json_delta.partial_json`` fragments are passed on as received (``""`` included).
- Kinds: a ``tool_use`` block is the agent's (``function``, programmatic ones too: their
  ``caller`` rides in ``extra``); ``server_tool_use`` and ``mcp_tool_use`` are run by the
  provider (``hosted``). Every ``*_tool_result`` block (web search, web fetch, code execution,
  bash / text-editor code execution, tool search, MCP, advisor) is a RESULT delta
  ``{"id": its tool_use_id, "item_type": its type, …}`` beside the call it answers.
- Blocks that arrive whole inside ``message_start.message.content`` (programmatic tool calling
  sends a message's tool_use there) map as a start and a stop at their position in that list:
  a tool block opens its lane with its whole input and is closed at once; text and thinking
  are kept.
- Known events without a normalized meaning (non-tool block starts, signature/citation deltas)
  become META; unknown types become UNKNOWN with the object; nothing is dropped.
- A field of the wrong type (an ``index`` that is not an integer, a ``delta`` that is not an
  object, a ``stop_reason`` that is not a string …) is flagged with its path
  (:mod:`inspector.core.quirks.events.wrongtype`) and the event mapped as far as it can be: an index
  or stop reason as received, a part that is not an object left out.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.kinds import CallKind, ItemDelta
from inspector.core.base.model import OMITTED, AnyDelta, Delta, DeltaKind, SSEEvent, ToolCallDelta
from inspector.core.providers.wire.errors import wrapped_error
from inspector.core.providers.wire.events import OwnDialect, decode_object
from inspector.core.providers.wire.fields import (
    compact_json,
    error_at,
    identity_at,
    index_at,
    object_at,
    string_at,
)
from inspector.core.quirks.events.wrongtype import wrong_type

TOOL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
"""Content-block types that are tool calls."""
HOSTED_BLOCKS = frozenset({"server_tool_use", "mcp_tool_use"})
"""Tool blocks the provider runs (their results arrive as ``*_tool_result`` blocks)."""

_TOOL_BLOCK_KEYS = frozenset({"type", "id", "name", "input"})

_META = DeltaKind.META
_TEXT = DeltaKind.TEXT
_REASONING = DeltaKind.REASONING
_UNKNOWN = DeltaKind.UNKNOWN


def _text(
    seq: int, kind: str, obj: dict[str, Any], key: str, out: list[AnyDelta], path: str
) -> None:
    """A TEXT or REASONING delta for ``obj[key]`` when it is a non-empty string (anything else
    carries no text; a value that is not a string or null is flagged)."""
    value = string_at(obj, key, seq, out, path)
    if type(value) is str and value:
        out.append(Delta(seq, kind, value))


class AnthropicDialect(OwnDialect):
    """Maps Anthropic ``message_*`` / ``content_block_*`` events to deltas."""

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        obj = decode_object(ev, out)
        if obj is None:
            return
        seq = ev.seq
        data = ev.data
        t = obj.get("type", ev.event)
        if type(t) is not str:
            out.append(wrong_type(seq, "type", "string", t, obj))

        if t == "content_block_delta":
            self._block_delta(seq, obj, data, out)
        elif t == "content_block_start":
            self._block_start(seq, obj, data, out)
        elif t == "content_block_stop":
            out.append(Delta(seq, DeltaKind.CLOSE, index_at(obj, "index", seq, out), obj))
        elif t == "ping":
            out.append(Delta(seq, DeltaKind.KEEPALIVE, "ping", obj))
        elif t == "message_start":
            message = object_at(obj, "message", seq, out)
            if message is not None:
                head = {k: v for k, v in message.items() if k != "content"}
                out.append(Delta(seq, _META, {"message": head}, obj))
                content = message.get("content")
                if type(content) is list and content:
                    self._whole_blocks(seq, content, out)
                usage = object_at(message, "usage", seq, out, "message.")
                if usage is not None:
                    out.append(Delta(seq, DeltaKind.USAGE, usage, obj))
            elif obj.get("message") is None:
                out.append(Delta(seq, _UNKNOWN, obj, data))
        elif t == "message_delta":
            delta = object_at(obj, "delta", seq, out)
            stop = string_at(delta, "stop_reason", seq, out, "delta.") if delta else None
            stop = None if stop is OMITTED else stop  # kept as received: no known reason
            usage = object_at(obj, "usage", seq, out)
            if stop is not None:
                out.append(Delta(seq, DeltaKind.FINISH, stop, obj))
            if usage is not None:
                out.append(Delta(seq, DeltaKind.USAGE, usage, obj))
            if stop is None and usage is None:
                out.append(Delta(seq, _META, {"type": t}, obj))
        elif t == "message_stop":
            out.append(Delta(seq, DeltaKind.DONE, None, obj))
        elif t == "error" or "error" in obj:
            error_at(obj, "error", seq, out)
            out.append(Delta(seq, DeltaKind.ERROR, wrapped_error(obj), obj))
        else:
            out.append(Delta(seq, _UNKNOWN, obj, data))

    @staticmethod
    def _block_start(seq: int, obj: dict[str, Any], data: str, out: list[AnyDelta]) -> None:
        index = index_at(obj, "index", seq, out)
        block = object_at(obj, "content_block", seq, out)
        if block is None:
            if "content_block" not in obj or obj["content_block"] is None:
                out.append(Delta(seq, _UNKNOWN, obj, data))
            return
        bt = identity_at(block, "type", seq, out, "content_block.")
        if type(bt) is str and bt in TOOL_BLOCKS:
            _tool_block(seq, index, bt, block, out, "content_block.")
            return
        if type(bt) is str and bt.endswith("_tool_result"):
            _result(seq, bt, block, obj, out)
            return
        out.append(Delta(seq, _META, {"block_start": index, "content_block": block}, obj))
        if bt == "text":
            _text(seq, _TEXT, block, "text", out, "content_block.")
        elif bt == "thinking":
            _text(seq, _REASONING, block, "thinking", out, "content_block.")

    @staticmethod
    def _whole_blocks(seq: int, content: list[Any], out: list[AnyDelta]) -> None:
        """Blocks that arrived whole in ``message_start``: each a start and a stop at its
        position in the list (see the module docstring)."""
        for i, block in enumerate(content):
            path = f"message.content[{i}]."
            if type(block) is not dict:
                out.append(wrong_type(seq, path[:-1], "object", block, content))
                continue
            bt = block.get("type")
            if type(bt) is str and bt in TOOL_BLOCKS:
                _tool_block(seq, i, bt, block, out, path)
                out.append(Delta(seq, DeltaKind.CLOSE, i, block))
            elif type(bt) is str and bt.endswith("_tool_result"):
                _result(seq, bt, block, block, out)
            elif bt == "text":
                _text(seq, _TEXT, block, "text", out, path)
            elif bt == "thinking":
                _text(seq, _REASONING, block, "thinking", out, path)

    @staticmethod
    def _block_delta(seq: int, obj: dict[str, Any], data: str, out: list[AnyDelta]) -> None:
        index = index_at(obj, "index", seq, out)
        delta = object_at(obj, "delta", seq, out)
        if delta is None:
            if obj.get("delta") is None:
                out.append(Delta(seq, _UNKNOWN, obj, data))
            return
        dt = string_at(delta, "type", seq, out, "delta.")
        if dt == "input_json_delta":
            args = string_at(delta, "partial_json", seq, out, "delta.")
            out.append(ToolCallDelta(seq, 0, index, OMITTED, OMITTED, args))
        elif dt == "text_delta":
            _text(seq, _TEXT, delta, "text", out, "delta.")
        elif dt == "thinking_delta":
            _text(seq, _REASONING, delta, "thinking", out, "delta.")
        elif dt == "signature_delta" or dt == "citations_delta" or dt == "compaction_delta":
            out.append(Delta(seq, _META, {"index": index, **delta}, obj))
        else:
            out.append(Delta(seq, _UNKNOWN, obj, data))


def _tool_block(
    seq: int, index: Any, bt: str, block: dict[str, Any], out: list[AnyDelta], path: str
) -> None:
    """The delta opening a tool block (see the module docstring)."""
    extra: dict[str, Any] = {"block_type": bt}
    for k, v in block.items():
        if k not in _TOOL_BLOCK_KEYS:
            extra[k] = v
    args: Any = OMITTED
    obj_args = False
    inp = block.get("input", OMITTED)
    if type(inp) is dict:
        if inp:
            args = compact_json(inp)
            obj_args = True
    elif inp is not OMITTED:
        extra["input"] = inp
        if inp is not None:
            out.append(wrong_type(seq, path + "input", "object", inp, block))
    block_id = identity_at(block, "id", seq, out, path)
    name = identity_at(block, "name", seq, out, path)
    kind = CallKind.HOSTED if bt in HOSTED_BLOCKS else CallKind.FUNCTION
    out.append(ItemDelta(seq, 0, index, block_id, name, args, bt, obj_args, False, extra,
                         call_kind=kind, item_type=bt))  # fmt: skip


def _result(seq: int, bt: str, block: dict[str, Any], raw: Any, out: list[AnyDelta]) -> None:
    """A ``*_tool_result`` block: a RESULT beside the call its ``tool_use_id`` names."""
    reported = {**block, "id": block.get("tool_use_id"), "item_type": bt}
    out.append(Delta(seq, DeltaKind.RESULT, reported, raw))
