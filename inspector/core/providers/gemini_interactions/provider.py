"""The Gemini Interactions provider: its closing rule, end marker, requests
(``POST {base}/interactions``), continuations, error bodies and key header.

The provider: each step is closed explicitly (``step.stop``), a call still open at the end was
cut off; the stream ends with ``interaction.completed``, whose ``status`` is
``requires_action`` when the turn asks for tool results; function arguments stream as strings
(``arguments_delta``); hosted calls (``google_search_call`` …) and their ``*_result`` steps are
Google's, shown, never the agent's. A continuation is stateless: ``input`` becomes a list of
turns, the model's ``function_call`` steps then the user's ``function_result`` steps
(``call_id``). Errors are Google's ``{"error": {"code", "message", "status"}}``; the key goes in
``x-goog-api-key``.
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
from inspector.core.providers.gemini_interactions import recognition
from inspector.core.providers.gemini_interactions.dialect import InteractionsDialect
from inspector.core.providers.gemini_interactions.tools import read as read_tools
from inspector.core.providers.gemini_interactions.tools import written as written_tools
from inspector.core.providers.wire.package import PackagedProvider, Parts
from inspector.core.providers.wire.requests import split_system, text_of
from inspector.core.quirks.codes import MISSING_CALL_ID

NAME: Final = "gemini-interactions"
"""Its registry name (settings, profiles, captures, a replica's ``dialects``)."""

TOOL_FINISH: Final = "requires_action"
"""The status of an interaction that waits for the agent's tool results."""

_STATUS_NAMES: Final = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}  # fmt: skip


class GeminiInteractions(PackagedProvider):
    """The Gemini Interactions provider (see the module docstring)."""

    name = NAME
    title = "Gemini Interactions"
    closing = EXPLICIT
    checks = frozenset({MISSING_CALL_ID})
    end_marker = "interaction.completed"
    key_header = "x-goog-api-key"
    version_segment = "/v1beta"

    parts = Parts(recognition.recognises, InteractionsDialect, written_tools, read_tools)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """``requires_action`` with at least one call."""
        return calls > 0 and reason == TOOL_FINISH

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """``{"error": {"code", "message", "status"}}`` with Google's status name."""
        name = _STATUS_NAMES.get(status, "INTERNAL" if status >= 500 else "INVALID_ARGUMENT")
        return {"error": {"code": status, "message": message, "status": name}}

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """``{base}/interactions`` with ``stream: true``: ``input`` as turns of text, the system
        text as ``system_instruction``."""
        system, turns = split_system(messages)
        inputs = [{"role": "model" if m.get("role") == "assistant" else "user",
                   "content": [{"type": "text", "text": text_of(m.get("content"))}]}
                  for m in turns]  # fmt: skip
        body: dict[str, Any] = {"model": model, "input": inputs, "stream": True}
        if system:
            body["system_instruction"] = system
        if tools:
            body["tools"] = self.tools(tools)
        return WireRequest(f"{base_url}/interactions", body)

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """``input`` += the model's turn (text, ``function_call`` steps), then the user's
        ``function_result`` steps."""
        given = body.get("input")
        if isinstance(given, str):
            inputs: list[Any] = [{"role": "user", "content": [{"type": "text", "text": given}]}]
        else:
            inputs = list(given) if isinstance(given, list) else []
        said: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
        said += [{"type": "function_call", "id": c.id, "name": c.name,
                  "arguments": c.input or {}} for c in turn.calls]  # fmt: skip
        answers = [{"type": "function_result", "call_id": r.call_id, "result": r.text,
                    "is_error": r.is_error} for r in results]  # fmt: skip
        body["input"] = [*inputs, {"role": "model", "content": said},
                         {"role": "user", "content": answers}]  # fmt: skip


PROVIDER = GeminiInteractions()
"""The one Gemini Interactions provider."""
