"""The Anthropic Messages provider: its closing rule, checks, end marker, requests (``/messages``),
continuations, error bodies and key header.

The provider: every block is closed explicitly (``content_block_stop``); the stream ends with
``message_stop``; arguments arrive as strings (``input_json_delta``). A continuation appends an
assistant message of ``text`` + ``tool_use`` blocks (parsed input), then one user message of
``tool_result`` blocks (``tool_use_id``, ``is_error``); thinking blocks are not echoed (they
need signatures the stream does not carry in full). The key goes in ``x-api-key``.
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
from inspector.core.providers.anthropic import recognition
from inspector.core.providers.anthropic.dialect import AnthropicDialect
from inspector.core.providers.anthropic.tools import read as read_tools
from inspector.core.providers.anthropic.tools import written as written_tools
from inspector.core.providers.wire.package import PackagedProvider, Parts
from inspector.core.providers.wire.requests import as_list, split_system
from inspector.core.quirks.codes import ARGUMENTS_NOT_STRING, MISSING_CALL_ID

NAME: Final = "anthropic"
"""Its registry name (settings, profiles, captures, a replica's ``dialects``)."""

VERSION: Final = "2023-06-01"
"""The ``anthropic-version`` header every request carries."""


class Anthropic(PackagedProvider):
    """The Anthropic Messages provider (see the module docstring)."""

    name = NAME
    title = "Anthropic Messages"
    closing = EXPLICIT
    checks = frozenset({ARGUMENTS_NOT_STRING, MISSING_CALL_ID})
    end_marker = "message_stop"
    key_header = "x-api-key"
    version_segment = "/v1"

    parts = Parts(recognition.recognises, AnthropicDialect, written_tools, read_tools)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """``tool_use`` with at least one call."""
        return calls > 0 and reason == "tool_use"

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """``{"type": "error", "error": {"type", "message"}}``: ``api_error`` for a 5xx."""
        kind = "api_error" if status >= 500 else "invalid_request_error"
        return {"type": "error", "error": {"type": kind, "message": message}}

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """``{base}/messages``: the system text apart, ``max_tokens`` (required) 1024."""
        system, turns = split_system(messages)
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": 1024,
            "messages": turns,
            "stream": True,
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = self.tools(tools)
        return WireRequest(f"{base_url}/messages", body, {"anthropic-version": VERSION})

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """``messages`` += assistant text + ``tool_use`` blocks, then the ``tool_result``s."""
        blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input or {}}
                   for c in turn.calls]  # fmt: skip
        answers = [{"type": "tool_result", "tool_use_id": r.call_id, "content": r.text,
                    "is_error": r.is_error} for r in results]  # fmt: skip
        body["messages"] = [
            *as_list(body.get("messages")),
            {"role": "assistant", "content": blocks},
            {"role": "user", "content": answers},
        ]


PROVIDER = Anthropic()
"""The one Anthropic Messages provider."""
