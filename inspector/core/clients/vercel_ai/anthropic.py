"""``@ai-sdk/anthropic`` 4.0.105's stream transform (``doStream`` of
``anthropic-messages-language-model.ts``), for the ``tool-call`` parts it emits.

What the SDK does, modelled here:
- ``message_start``: a second one with another id while a message is open is an ``error``
  part (``InvalidResponseDataError``) and the transform reads nothing more; the same id
  again is ignored (``message_stop`` closes a message). Its ``content`` may hold
  ``tool_use`` blocks that arrived whole (programmatic calls, with a ``caller``): each is a
  ``tool-call`` at once, input ``JSON.stringify(input ?? {})``.
- ``content_block_start``: ``tool_use`` opens a call (input: the block's own, stringified,
  when it is a non-empty object); ``server_tool_use`` of the known server tools opens a
  provider-executed call (``text_editor_code_execution``/``bash_code_execution`` named
  ``code_execution``; the first input delta of those gets its ``{"type": …,`` prefix;
  ``advisor`` has input ``{}``); ``mcp_tool_use`` is a provider-executed ``tool-call`` at
  once. Unknown block types throw ``Unsupported content block type``.
- ``input_json_delta``: non-empty text appended to an open call's input.
- ``content_block_stop``: the call is emitted, input ``{}`` when blank; a ``code_execution``
  input with ``code`` and no ``type`` becomes ``{"type": "programmatic-tool-call", …}``.
- ``error``: an ``error`` part, ``StreamProviderError`` with the error's message.

Not modelled: the chunk schema's (zod) ``TypeValidationError`` parts, toolsets, the JSON
response tool, and server tools beyond those named here.
"""

from __future__ import annotations

import json
from typing import Any, Final

from inspector.core.clients.base import ClientRaised
from inspector.core.clients.vercel_ai.common import secure_parse
from inspector.core.clients.vercel_ai.parts import (
    PartsRun,
    js_stringify,
    nonempty_object,
    provider_stream_error,
)
from inspector.core.clients.vercel_ai.v8_json import JsSyntaxError

_SERVER: Final = (
    "web_fetch",
    "web_search",
    "code_execution",
    "text_editor_code_execution",
    "bash_code_execution",
)
_SEARCH: Final = ("tool_search_tool_regex", "tool_search_tool_bm25")
_NO_LENGTH: Final = "Cannot read properties of undefined (reading 'length')"
_QUIET: Final = frozenset(
    {"text", "thinking", "redacted_thinking", "compaction", "fallback", "container_upload"}
)


class AnthropicRun(PartsRun):
    """One Messages stream through ``@ai-sdk/anthropic``."""

    no_output = True

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.open_id: Any = None
        self.is_open = False
        self.blocks: dict[Any, dict[str, Any]] = {}

    def chunk(self, value: dict[str, Any]) -> None:
        kind = value.get("type")
        if kind == "message_start":
            self.message_start(value["message"])
        elif kind == "content_block_start":
            self.block_start(value.get("index"), value["content_block"])
        elif kind == "content_block_delta":
            delta = value["delta"]
            if delta.get("type") == "input_json_delta":
                self.input_delta(value.get("index"), delta["partial_json"])
        elif kind == "content_block_stop":
            self.block_stop(value.get("index"))
        elif kind == "message_stop":
            self.is_open, self.open_id = False, None
        elif kind == "error":
            self.error_part(provider_stream_error(value.get("error")))

    def message_start(self, message: dict[str, Any]) -> None:
        if self.is_open:
            if message.get("id") == self.open_id:
                return
            self.stopped = True
            self.error_part(
                ClientRaised(
                    "InvalidResponseDataError",
                    f"Received message_start for message {json.dumps(message.get('id'))} "
                    f"while message {json.dumps(self.open_id)} is still open.",
                )
            )
            return
        self.is_open, self.open_id = True, message.get("id")
        for part in message.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "tool_use":
                value = part.get("input")
                text = js_stringify({} if value is None else value)
                self.emit(part.get("id"), part.get("name"), text)

    def block_start(self, index: Any, part: dict[str, Any]) -> None:
        kind = part.get("type")
        if kind == "tool_use":
            value = part.get("input")
            start = js_stringify(value) if nonempty_object(value) else ""
            self.blocks[index] = {"id": part.get("id"), "name": part.get("name"), "input": start,
                                  "first": not start, "hosted": False, "prefix": None}  # fmt: skip
        elif kind == "server_tool_use":
            self.server_tool(index, part)
        elif kind == "mcp_tool_use":
            self.emit(part.get("id"), part.get("name"), js_stringify(part.get("input")), True)
        elif isinstance(kind, str) and (kind in _QUIET or kind.endswith("_result")):
            self.blocks.pop(index, None)
        else:
            raise ClientRaised("Error", f"Unsupported content block type: {kind}")

    def server_tool(self, index: Any, part: dict[str, Any]) -> None:
        name = part.get("name")
        value = part.get("input")
        if name in _SERVER:
            code = name in ("text_editor_code_execution", "bash_code_execution")
            tool = "code_execution" if code else name
            prefix = name if code else None
            if name == "code_execution":
                prefix = "programmatic-tool-call"
            start = js_stringify(value) if isinstance(value, dict) and value else ""
            self.blocks[index] = {"id": part.get("id"), "name": tool, "input": start,
                                  "first": not start, "hosted": True, "prefix": prefix,
                                  "tool": tool}  # fmt: skip
        elif name in _SEARCH:
            self.blocks[index] = {"id": part.get("id"), "name": name, "input": "", "first": True,
                                  "hosted": True, "prefix": None}  # fmt: skip
        elif name == "advisor":
            self.blocks[index] = {"id": part.get("id"), "name": name, "input": "{}",
                                  "first": False, "hosted": True, "prefix": None}  # fmt: skip
        else:
            self.blocks.pop(index, None)

    def input_delta(self, index: Any, delta: Any) -> None:
        if not isinstance(delta, str):
            raise ClientRaised("TypeError", _NO_LENGTH)
        if not delta:
            return
        block = self.blocks.get(index)
        if block is None:
            return
        if block["first"] and block["prefix"] is not None:
            delta = f'{{"type": "{block["prefix"]}",{delta[1:]}'
        block["input"] += delta
        block["first"] = False

    def block_stop(self, index: Any) -> None:
        block = self.blocks.pop(index, None)
        if block is None:
            return
        text = block["input"] or "{}"
        if block.get("tool") == "code_execution":
            try:
                parsed = secure_parse(text)
            except JsSyntaxError:
                parsed = None
            if isinstance(parsed, dict) and "code" in parsed and "type" not in parsed:
                text = js_stringify({"type": "programmatic-tool-call", **parsed})
        self.emit(block["id"], block["name"], text, block["hosted"])
