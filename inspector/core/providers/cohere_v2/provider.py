"""The Cohere v2 chat provider: its closing rule, checks, end marker, requests (``/v2/chat``),
continuations, error bodies and key header.

The provider: every call is closed explicitly (``tool-call-end``), a call still open at
``message-end`` was cut off; the stream ends with ``message-end`` (no ``[DONE]``), whose
``finish_reason`` is ``TOOL_CALL`` for a turn that asks for tool results; arguments arrive as
strings. Its errors are ``{"id"?, "message"}`` (an HTTP error body; a failed generation ends
with ``finish_reason: ERROR`` and ``delta.error``). A continuation appends the assistant
message (``tool_plan`` + ``tool_calls``), then one ``role: tool`` message per call. The key is
a Bearer token (``CO_API_KEY`` in the built-in profile).
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
from inspector.core.providers.cohere_v2 import recognition
from inspector.core.providers.cohere_v2.dialect import CohereV2Dialect
from inspector.core.providers.cohere_v2.tools import read as read_tools
from inspector.core.providers.cohere_v2.tools import written as written_tools
from inspector.core.providers.wire.package import PackagedProvider, Parts
from inspector.core.providers.wire.requests import args_text, as_list
from inspector.core.quirks.codes import ARGUMENTS_NOT_STRING, MISSING_CALL_ID

NAME: Final = "cohere-v2"
"""Its registry name (settings, profiles, captures, a replica's ``dialects``)."""

TOOL_FINISH: Final = "TOOL_CALL"
"""The finish reason of a turn that asks for tool results."""


class CohereV2(PackagedProvider):
    """The Cohere v2 chat provider (see the module docstring)."""

    name = NAME
    title = "Cohere v2 chat"
    closing = EXPLICIT
    checks = frozenset({ARGUMENTS_NOT_STRING, MISSING_CALL_ID})
    end_marker = "message-end"
    key_header = "authorization"
    version_segment = "/v2"

    parts = Parts(recognition.recognises, CohereV2Dialect, written_tools, read_tools)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """``TOOL_CALL`` with at least one call."""
        return calls > 0 and reason == TOOL_FINISH

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """``{"message"}``, as Cohere answers an HTTP error."""
        return {"message": message}

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """``{base}/chat`` (the base ends with ``/v2``) with the messages as they are (v2 takes
        system, user, assistant and tool roles)."""
        body: dict[str, Any] = {"model": model, "messages": messages, "stream": True}
        if tools:
            body["tools"] = self.tools(tools)
        return WireRequest(f"{base_url}/chat", body)

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """``messages`` += the assistant message (``tool_plan``, ``tool_calls``), then one
        ``role: tool`` message per call."""
        msg: dict[str, Any] = {"role": "assistant"}
        if turn.text:
            msg["content"] = turn.text
        if turn.reasoning:
            msg["tool_plan"] = turn.reasoning
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


PROVIDER = CohereV2()
"""The one Cohere v2 chat provider."""
