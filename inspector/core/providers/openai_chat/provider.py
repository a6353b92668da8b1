"""The OpenAI-compatible Chat Completions provider: its closing rule, checks, end marker, requests
(``/chat/completions``), continuations, error bodies and key header.

The provider: calls stream in index order (the next index or a finish closes them), the stream
ends with ``[DONE]``, the wire index checks apply (missing, duplicated, sparse), a continuation
appends an assistant ``tool_calls`` message then one ``role: tool`` message per call
(``tool_call_id``; reasoning echoed as ``reasoning_content``), the key is a Bearer token.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from inspector.core.base.provider import (
    IN_ORDER,
    Turn,
    TurnResult,
    WireRequest,
)
from inspector.core.providers.openai_chat import recognition
from inspector.core.providers.openai_chat.dialect import OpenAIChatDialect
from inspector.core.providers.openai_chat.tools import read as read_tools
from inspector.core.providers.openai_chat.tools import written as written_tools
from inspector.core.providers.wire.errors import openai_error_body
from inspector.core.providers.wire.package import PackagedProvider, Parts
from inspector.core.providers.wire.requests import args_text, as_list
from inspector.core.quirks.codes import (
    ARGUMENTS_NOT_STRING,
    DUPLICATE_INDEX_IN_CHUNK,
    MISSING_CALL_ID,
    MISSING_INDEX,
    SPARSE_INDEX,
    USAGE_ONLY_CHUNK,
    WHOLE_CALL_SINGLE_CHUNK,
)

NAME: Final = "openai-chat"
"""Its registry name (settings, profiles, captures, a replica's ``dialects``)."""

_TOOL_FINISH = frozenset({"tool_calls", "function_call"})


class OpenAIChat(PackagedProvider):
    """The Chat Completions provider (see the module docstring)."""

    name = NAME
    title = "OpenAI Chat Completions"
    closing = IN_ORDER
    checks = frozenset(
        {
            ARGUMENTS_NOT_STRING,
            MISSING_INDEX,
            DUPLICATE_INDEX_IN_CHUNK,
            SPARSE_INDEX,
            WHOLE_CALL_SINGLE_CHUNK,
            MISSING_CALL_ID,
        }
    )
    end_marker = "[DONE]"
    key_header = "authorization"
    version_segment = "/v1"
    stream_usage: Mapping[str, Any] = MappingProxyType({"stream_options": {"include_usage": True}})
    """What a streaming request adds to get usage in the stream (read with ``getattr``: a
    provider without it sends usage unasked, or never)."""
    stream_usage_shows = frozenset({USAGE_ONLY_CHUNK})
    """The quirk codes a stream shows because ``stream_usage`` asked for it (not the model's)."""

    parts = Parts(recognition.recognises, OpenAIChatDialect, written_tools, read_tools)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """``tool_calls`` (or the legacy ``function_call``) with at least one call."""
        return calls > 0 and type(reason) is str and reason in _TOOL_FINISH

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """``{"error": {"message", "type", "param", "code"}}``."""
        return openai_error_body(status, message)

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """``{base}/chat/completions`` with the messages as they are."""
        body: dict[str, Any] = {"model": model, "messages": messages, "stream": True}
        if tools:
            body["tools"] = self.tools(tools)
        return WireRequest(f"{base_url}/chat/completions", body)

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """``messages`` += the assistant ``tool_calls`` message, then one tool message each."""
        msg: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if turn.reasoning:
            msg["reasoning_content"] = turn.reasoning
        msg["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": args_text(c.arguments)},
            }
            for c in turn.calls
        ]
        answers = [{"role": "tool", "tool_call_id": r.call_id, "content": r.text} for r in results]
        body["messages"] = [*as_list(body.get("messages")), msg, *answers]


PROVIDER = OpenAIChat()
"""The one Chat Completions provider."""
