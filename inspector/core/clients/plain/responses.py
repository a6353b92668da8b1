"""The plain Responses stream: the one shape openai-python and the AI SDK read alike.

:func:`responses_calls` reads a body in one pass (:mod:`.named`: one ``orjson.loads`` per
event) and returns its function calls when the body is plain, None at the first thing that is
not. Both libraries hand over a call only at its end (openai-python: the ``response.completed``
event's ``output``; the AI SDK: each ``output_item.done``'s ``arguments``), so plain means
that every place a call's identity and arguments are written says the same.

Plain, exactly (anything else is refused, however harmless it may be):
- status 200, a ``text/event-stream`` content type, a clean end of the body, the framing of
  :mod:`.named` (``event: <type>`` then ``data: <object>``, no ``[DONE]``);
- every event holds only the keys listed for its type here (plus ``sequence_number``, an
  integer); no event has an ``error`` key (the openai SDK raises on a truthy one);
- first ``response.created``, then optionally ``response.in_progress``: each a ``response``
  object with a string ``id`` (the same in both) and ``output`` ``[]``;
- then the output items one after the other, ``output_index`` 0, 1, 2 … (never two open at
  once), each ``response.output_item.added`` … ``response.output_item.done``:
  - ``function_call``: added with ``type``, ``id`` (a non-empty string), ``call_id`` (a
    non-empty string no other call has), ``name`` (a non-empty string), ``arguments`` ``""``
    and ``status`` ``in_progress``; then ``response.function_call_arguments.delta`` events
    (``item_id`` the item's id, its ``output_index``, a string ``delta``, an optional string
    ``obfuscation``), one ``response.function_call_arguments.done`` whose ``arguments`` are the
    deltas joined; done with the same ``id``, ``call_id``, ``name``, those ``arguments`` and
    ``status`` ``completed``; the joined arguments are a JSON object, ``{`` first and ``}``
    last;
  - ``message`` (``role`` ``assistant``, ``status`` ``in_progress``, ``content`` ``[]``, an
    optional ``phase``, a string or null, the same when done):
    ``response.content_part.added`` / ``.done`` of ``output_text`` parts at ``content_index``
    0, 1 … in order, ``response.output_text.delta`` (a string ``delta``) and
    ``response.output_text.done`` of the open part; done with the same ``id``, a ``content``
    list of ``output_text`` objects;
  - ``reasoning`` (``summary`` ``[]``; optional ``encrypted_content``, a string or null,
    ``content`` and ``status``): its ``response.reasoning_summary_part.*``,
    ``response.reasoning_summary_text.*`` and ``response.reasoning_text.*`` events (of the
    item's ``item_id`` and ``output_index``; neither library reads them), done with the same
    ``id`` and a ``summary`` list;
- last ``response.completed``, the same response ``id``, its ``output`` exactly the done
  items in order; nothing after it.
Hosted items (web search, file search, code interpreter, MCP …), custom (free-form) tool
calls and built-in agent tools (apply_patch, shell, local_shell, tool_search) are refused: each
library hands those over in its own way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.plain.named import framed, object_text

_SEQ: Final = "sequence_number"
_LIFE: Final = frozenset({"type", _SEQ, "response"})
_ITEM_EVENT: Final = frozenset({"type", _SEQ, "output_index", "item"})
_ARG_DELTA: Final = frozenset({"type", _SEQ, "item_id", "output_index", "delta", "obfuscation"})
_ARG_DONE: Final = frozenset({"type", _SEQ, "item_id", "output_index", "arguments"})
_PART: Final = frozenset({"type", _SEQ, "item_id", "output_index", "content_index", "part"})
_TEXT_DELTA: Final = frozenset(
    {"type", _SEQ, "item_id", "output_index", "content_index", "delta", "logprobs", "obfuscation"}
)
_TEXT_DONE: Final = frozenset(
    {"type", _SEQ, "item_id", "output_index", "content_index", "text", "logprobs"}
)
_CALL: Final = frozenset({"type", "id", "call_id", "name", "arguments", "status"})
_MESSAGE: Final = frozenset({"type", "id", "role", "status", "content", "phase"})
_REASONING: Final = frozenset({"type", "id", "summary", "encrypted_content", "content", "status"})
_REASONING_EVENT: Final = frozenset(
    {
        "type", _SEQ, "item_id", "output_index", "summary_index", "content_index", "part",
        "delta", "text", "obfuscation",
    }
)  # fmt: skip
_REASONING_EVENTS: Final = frozenset(
    {
        "response.reasoning_summary_part.added", "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
        "response.reasoning_text.delta", "response.reasoning_text.done",
    }
)  # fmt: skip
_OUTPUT_TEXT: Final = frozenset({"type", "text", "annotations", "logprobs"})


def _text(value: Any) -> bool:
    return type(value) is str and bool(value)


def responses_calls(
    exchange: Exchange, pieces: Iterable[bytes] | None = None, expected: Sequence[str] | None = None
) -> list[HandedCall] | None:
    """The function calls of a plain Responses body (module docstring), None when not plain;
    its body is ``pieces`` joined, or ``exchange.body`` (``expected`` is not read: :func:`.read`
    compares every call)."""
    framing = framed(exchange, pieces)
    if framing is None:
        return None
    events = framing.chunks()
    reader = _Reader()
    for chunk in events:
        if _SEQ in chunk and type(chunk[_SEQ]) is not int:
            return None
        if not reader.read(chunk):
            return None
    if framing.refused or not reader.completed:
        return None
    return reader.calls


class _Reader:
    """The stream read so far (one event at a time, :meth:`read`: False when not plain)."""

    def __init__(self) -> None:
        self.id: str | None = None
        self.phase = 0  # 0 nothing, 1 created, 2 in progress, 3 completed
        self.item: dict[str, Any] | None = None  # the open item, as added
        self.index = 0  # the open (or next) item's output_index
        self.pieces: list[str] = []  # the open call's argument deltas
        self.argued: str | None = None  # the open call's arguments.done text
        self.parts: list[bool] = []  # the open message's parts (True: done)
        self.done: list[dict[str, Any]] = []
        self.calls: list[HandedCall] = []
        self.call_ids: set[str] = set()

    @property
    def completed(self) -> bool:
        return self.phase == 3

    def read(self, chunk: dict[str, Any]) -> bool:
        kind = chunk["type"]
        if self.phase == 3:
            return False
        if kind in ("response.created", "response.in_progress"):
            return self.lifecycle(chunk, kind)
        if self.phase == 0:
            return False
        if kind == "response.completed":
            return self.complete(chunk)
        if kind == "response.output_item.added":
            return self.added(chunk)
        if kind == "response.output_item.done":
            return self.item_done(chunk)
        item = self.item
        if item is None or chunk.get("output_index") != self.index:
            return False
        if type(chunk["output_index"]) is not int or chunk.get("item_id") != item["id"]:
            return False
        if item["type"] == "function_call":
            return self.argument(chunk, kind)
        if item["type"] == "message":
            return self.text(chunk, kind)
        return kind in _REASONING_EVENTS and chunk.keys() <= _REASONING_EVENT

    def lifecycle(self, chunk: dict[str, Any], kind: str) -> bool:
        if not chunk.keys() <= _LIFE or self.phase != (0 if kind == "response.created" else 1):
            return False
        response = chunk.get("response")
        if type(response) is not dict or response.get("output") != []:
            return False
        if type(response["output"]) is not list or not _text(response.get("id")):
            return False
        if self.id is not None and response["id"] != self.id:
            return False
        self.id = response["id"]
        self.phase += 1
        return True

    def added(self, chunk: dict[str, Any]) -> bool:
        if self.item is not None or not chunk.keys() <= _ITEM_EVENT:
            return False
        index, item = chunk.get("output_index"), chunk.get("item")
        if type(index) is not int or index != self.index or type(item) is not dict:
            return False
        kind = item.get("type")
        if not _text(item.get("id")):
            return False
        if kind == "function_call":
            if not item.keys() <= _CALL or item.get("arguments") != "":
                return False
            call_id = item.get("call_id")
            if type(call_id) is not str or not call_id or call_id in self.call_ids:
                return False
            if not _text(item.get("name")):
                return False
            if item.get("status") != "in_progress":
                return False
            self.call_ids.add(call_id)
            self.pieces, self.argued = [], None
        elif kind == "message":
            if not item.keys() <= _MESSAGE or item.get("role") != "assistant":
                return False
            if item.get("status") != "in_progress" or item.get("content") != []:
                return False
            if type(item.get("phase", "")) not in (str, type(None)):
                return False
            self.parts = []
        elif kind == "reasoning":
            if not item.keys() <= _REASONING or item.get("summary") != []:
                return False
            if type(item.get("encrypted_content", "")) not in (str, type(None)):
                return False
        else:
            return False
        self.item = item
        return True

    def argument(self, chunk: dict[str, Any], kind: str) -> bool:
        if self.argued is not None:
            return False
        if kind == "response.function_call_arguments.delta":
            delta = chunk.get("delta")
            if not chunk.keys() <= _ARG_DELTA or type(delta) is not str:
                return False
            if type(chunk.get("obfuscation", "")) is not str:
                return False
            self.pieces.append(delta)
            return True
        if kind == "response.function_call_arguments.done":
            text = "".join(self.pieces)
            if not chunk.keys() <= _ARG_DONE or chunk.get("arguments") != text:
                return False
            if type(chunk["arguments"]) is not str:
                return False
            self.argued = text
            return True
        return False

    def text(self, chunk: dict[str, Any], kind: str) -> bool:
        parts = self.parts
        at = chunk.get("content_index")
        if type(at) is not int:
            return False
        if kind == "response.content_part.added":
            part = chunk.get("part")
            if not chunk.keys() <= _PART or at != len(parts) or (parts and not parts[-1]):
                return False
            if not _output_text(part):
                return False
            parts.append(False)
            return True
        if not parts or at != len(parts) - 1 or parts[-1]:
            return False
        if kind == "response.output_text.delta":
            return (
                chunk.keys() <= _TEXT_DELTA
                and type(chunk.get("delta")) is str
                and (type(chunk.get("obfuscation", "")) is str)
            )
        if kind == "response.output_text.done":
            return chunk.keys() <= _TEXT_DONE and type(chunk.get("text")) is str
        if kind == "response.content_part.done":
            if not chunk.keys() <= _PART or not _output_text(chunk.get("part")):
                return False
            parts[-1] = True
            return True
        return False

    def item_done(self, chunk: dict[str, Any]) -> bool:
        added = self.item
        if added is None or not chunk.keys() <= _ITEM_EVENT:
            return False
        index, item = chunk.get("output_index"), chunk.get("item")
        if type(index) is not int or index != self.index or type(item) is not dict:
            return False
        kind = added["type"]
        if item.get("type") != kind or item.get("id") != added["id"]:
            return False
        if kind == "function_call":
            text = self.argued
            if text is None or not item.keys() <= _CALL or item.get("status") != "completed":
                return False
            if item.get("call_id") != added["call_id"] or item.get("name") != added["name"]:
                return False
            if item.get("arguments") != text or type(item["arguments"]) is not str:
                return False
            if not object_text(text):
                return False
            self.calls.append(HandedCall(added["call_id"], added["name"], text))
        elif kind == "message":
            content = item.get("content")
            if not item.keys() <= _MESSAGE or item.get("role") != "assistant":
                return False
            if self.parts and not self.parts[-1]:
                return False
            if type(content) is not list or not all(_output_text(p) for p in content):
                return False
            if item.get("phase") != added.get("phase"):
                return False
        elif not item.keys() <= _REASONING or type(item.get("summary")) is not list:
            return False
        self.done.append(item)
        self.item = None
        self.index += 1
        return True

    def complete(self, chunk: dict[str, Any]) -> bool:
        if self.item is not None or not chunk.keys() <= _LIFE:
            return False
        response = chunk.get("response")
        if type(response) is not dict or response.get("id") != self.id:
            return False
        if response.get("output") != self.done:
            return False
        self.phase = 3
        return True


def _output_text(part: Any) -> bool:
    """An ``output_text`` content part of the plain fields."""
    return (
        type(part) is dict
        and part.get("type") == "output_text"
        and part.keys() <= _OUTPUT_TEXT
        and type(part.get("text")) is str
        and type(part.get("annotations", [])) is list
        and not part.get("annotations")
    )
