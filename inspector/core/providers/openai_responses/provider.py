"""The OpenAI Responses provider: its closing rule, checks, end marker, requests (``/responses``),
continuations, error bodies and key header.

The provider: each call item is closed explicitly (``output_item.done``); the stream ends with
``response.completed``; a turn with calls completes normally (``completed``). A continuation
appends ``function_call`` items, then ``function_call_output`` items matched by ``call_id``
(reasoning items are not echoed: they need signatures). The key is a Bearer token.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from inspector.core.base.provider import (
    EXPLICIT,
    Turn,
    TurnResult,
    WireRequest,
)
from inspector.core.providers.openai_responses import recognition
from inspector.core.providers.openai_responses.dialect import ResponsesDialect, error_event_message
from inspector.core.providers.openai_responses.tools import read as read_tools
from inspector.core.providers.openai_responses.tools import written as written_tools
from inspector.core.providers.wire.errors import error_message, openai_error_body
from inspector.core.providers.wire.package import PackagedProvider, Parts
from inspector.core.providers.wire.requests import args_text, as_list, split_system
from inspector.core.quirks.codes import ARGUMENTS_NOT_STRING, MISSING_CALL_ID

NAME: Final = "openai-responses"
"""Its registry name (settings, profiles, captures, a replica's ``dialects``)."""


class Responses(PackagedProvider):
    """The Responses API provider (see the module docstring)."""

    name = NAME
    title = "OpenAI Responses"
    closing = EXPLICIT
    checks = frozenset({ARGUMENTS_NOT_STRING, MISSING_CALL_ID})
    end_marker = "response.completed"
    key_header = "authorization"
    version_segment = "/v1"

    parts = Parts(recognition.recognises, ResponsesDialect, written_tools, read_tools)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """No dedicated reason: calls plus a normal completion mean "tool calls"."""
        return calls > 0 and reason == "completed"

    def error_message(self, body: Any) -> str:
        """An HTTP error body is ``{"error": {…}}``; an error event may also be flat."""
        if isinstance(body, dict):
            return error_event_message(body)
        return error_message(body)

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The same ``{"error": {…}}`` body as Chat Completions."""
        return openai_error_body(status, message)

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """``{base}/responses``: the messages as ``input``, the system text as instructions."""
        system, turns = split_system(messages)
        body: dict[str, Any] = {"model": model, "input": turns, "stream": True}
        if system:
            body["instructions"] = system
        if tools:
            body["tools"] = self.tools(tools)
        return WireRequest(f"{base_url}/responses", body)

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """``input`` += ``function_call`` items, then ``function_call_output`` items (a string
        input becomes its user message first)."""
        items = body.get("input")
        start = [{"role": "user", "content": items}] if isinstance(items, str) else as_list(items)
        if turn.text:
            start.append({"role": "assistant", "content": turn.text})
        start += [{"type": "function_call", "call_id": c.id, "name": c.name,
                   "arguments": args_text(c.arguments)} for c in turn.calls]  # fmt: skip
        start += [{"type": "function_call_output", "call_id": r.call_id, "output": r.text}
                  for r in results]  # fmt: skip
        body["input"] = start


PROVIDER = Responses()
"""The one Responses API provider."""
