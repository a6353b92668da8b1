"""The plain Anthropic Messages stream: the one shape the anthropic SDK and the AI SDK read
alike.

:func:`anthropic_calls` reads a body in one pass (:mod:`.named`: one ``orjson.loads`` per
event) and returns its ``tool_use`` calls when the body is plain, None at the first thing that
is not. The calls' arguments are the wire's text; each library then writes its parsed value
again (the anthropic SDK ``json.dumps`` of jiter's parse, the AI SDK ``JSON.stringify``): that
is each replica's :meth:`~inspector.core.clients.base.Replica.plain_calls`.

Plain, exactly (anything else is refused, however harmless it may be):
- status 200, a ``text/event-stream`` content type, a clean end of the body, the framing of
  :mod:`.named` (``event: <type>`` then ``data: <object>``: the anthropic SDK skips an event
  with no name);
- first ``message_start`` (keys ``type``, ``message``): a ``message`` object with a string
  ``id`` and ``content`` ``[]`` (its other fields are read by neither library); only once;
- ``ping`` (key ``type`` only) anywhere after it;
- then content blocks one after the other, ``index`` 0, 1, 2 … (never two open at once),
  each ``content_block_start`` (keys ``type``, ``index``, ``content_block``), its
  ``content_block_delta`` events (keys ``type``, ``index``, ``delta``), and
  ``content_block_stop`` (keys ``type``, ``index``):
  - ``text`` (``text`` a string; no citations) with ``text_delta`` deltas (``text`` a string);
  - ``thinking`` (``thinking`` and an optional ``signature``, strings) with
    ``thinking_delta`` / ``signature_delta`` deltas (a string each);
  - ``tool_use``: ``id`` (a non-empty string no other block has), ``name`` (a non-empty
    string), ``input`` ``{}`` and an optional ``caller`` object; its deltas are
    ``input_json_delta`` with a string ``partial_json``, which joined are a JSON object,
    ``{`` first and ``}`` last, or nothing at all (a call without arguments: its arguments
    ``""``, handed over by both as ``{}``, the ``input`` it started with);
- then one ``message_delta`` (keys ``type``, ``delta``, ``usage`` and an optional
  ``context_management``: ``delta`` and ``usage`` objects) with no block open;
- last ``message_stop`` (key ``type`` only); nothing after it. Exactly
  ``event: message_stop\ndata: {"type":"message_stop"}`` may end the body without its blank
  line (a recorded stream does): then neither library dispatches it, and neither reads it
  for a call.
Server tools, MCP tools, tool calls that arrive whole in ``message_start``, tool inputs sent
whole in ``content_block_start``, redacted thinking, citations and ``error`` events are
refused: each library reads those in its own way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.plain.named import framed, object_text

_START: Final = frozenset({"type", "message"})
_BLOCK: Final = frozenset({"type", "index", "content_block"})
_DELTA: Final = frozenset({"type", "index", "delta"})
_STOP: Final = frozenset({"type", "index"})
_MESSAGE_DELTA: Final = frozenset({"type", "delta", "usage", "context_management"})
_TOOL: Final = frozenset({"type", "id", "name", "input", "caller"})
_DELTAS: Final = {
    "text": {"text_delta": "text"},
    "thinking": {"thinking_delta": "thinking", "signature_delta": "signature"},
    "tool_use": {"input_json_delta": "partial_json"},
}
"""Per block type, the delta types it may have and the string field each carries."""
_UNENDED_STOP: Final = b'event: message_stop\ndata: {"type":"message_stop"}'
"""A last ``message_stop`` without its blank line (recorded so): dispatched by neither
library, and read by neither for a call."""


def anthropic_calls(
    exchange: Exchange, pieces: Iterable[bytes] | None = None, expected: Sequence[str] | None = None
) -> list[HandedCall] | None:
    """The calls of a plain Anthropic Messages body (module docstring), None when not plain;
    its body is ``pieces`` joined, or ``exchange.body`` (``expected`` is not read: :func:`.read`
    compares every call)."""
    framing = framed(exchange, pieces, _UNENDED_STOP)
    if framing is None:
        return None
    started = stopped = ended = False
    block: str | None = None  # the open block's type
    index = 0  # the open (or next) block's index
    call: HandedCall | None = None  # the open tool_use block
    parts: list[str] = []
    calls: list[HandedCall] = []
    ids: set[str] = set()
    for chunk in framing.chunks():
        kind = chunk["type"]
        if ended:
            return None
        if not started:
            if kind != "message_start" or chunk.keys() != _START:
                return None
            message = chunk["message"]
            if type(message) is not dict or type(message.get("id")) is not str:
                return None
            if message.get("content") != [] or type(message["content"]) is not list:
                return None
            started = True
        elif kind == "ping":
            if len(chunk) != 1:
                return None
        elif kind == "content_block_start":
            if stopped or block is not None or chunk.keys() != _BLOCK:
                return None
            if chunk["index"] != index or type(chunk["index"]) is not int:
                return None
            content = chunk["content_block"]
            if type(content) is not dict:
                return None
            block = content.get("type")
            if block == "tool_use":
                call = _tool_use(content, ids)
                if call is None:
                    return None
                parts = []
            elif not _quiet_block(content):
                return None
        elif kind == "content_block_delta":
            if block is None or chunk.keys() != _DELTA or chunk["index"] != index:
                return None
            if type(chunk["index"]) is not int:
                return None
            delta = chunk["delta"]
            if type(delta) is not dict or len(delta) != 2:
                return None
            what = delta.get("type")
            field = _DELTAS[block].get(what) if type(what) is str else None
            if field is None or type(delta.get(field)) is not str:
                return None
            if call is not None:
                parts.append(delta[field])
        elif kind == "content_block_stop":
            if block is None or chunk.keys() != _STOP or chunk["index"] != index:
                return None
            if type(chunk["index"]) is not int:
                return None
            if call is not None:
                text = "".join(parts)
                if text and not object_text(text):
                    return None
                calls.append(HandedCall(call.id, call.name, text))
            block, call = None, None
            index += 1
        elif kind == "message_delta":
            if stopped or block is not None or not chunk.keys() <= _MESSAGE_DELTA:
                return None
            if type(chunk.get("delta")) is not dict or type(chunk.get("usage")) is not dict:
                return None
            stopped = True
        elif kind == "message_stop":
            if not stopped or len(chunk) != 1:
                return None
            ended = True
        else:
            return None
    if framing.refused or not (ended or (framing.unended and stopped and block is None)):
        return None
    return calls


def _tool_use(content: dict[str, Any], ids: set[str]) -> HandedCall | None:
    """A ``tool_use`` block's start, when plain: its id and name (arguments to come)."""
    id_, name = content.get("id"), content.get("name")
    if not content.keys() <= _TOOL or content.get("input") != {}:
        return None
    if type(content["input"]) is not dict or type(content.get("caller", {})) is not dict:
        return None
    if type(id_) is not str or not id_ or id_ in ids or type(name) is not str or not name:
        return None
    ids.add(id_)
    return HandedCall(id_, name, "")


def _quiet_block(content: dict[str, Any]) -> bool:
    """A text or thinking block's start, of the plain fields (no citations, no redaction)."""
    kind = content.get("type")
    if kind == "text":
        return content.keys() == {"type", "text"} and type(content["text"]) is str
    if kind == "thinking":
        return (
            content.keys() <= {"type", "thinking", "signature"}
            and type(content.get("thinking")) is str
            and type(content.get("signature", "")) is str
        )
    return False
