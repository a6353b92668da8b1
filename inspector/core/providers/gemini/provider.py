"""The Gemini provider: its closing rule, requests (``:streamGenerateContent?alt=sse``),
continuations, tool schemas, error bodies and key header.

The provider: calls arrive whole and a finish closes what is open; there is no end marker to
miss; arguments are objects by design (not a quirk); a turn with calls finishes with ``STOP``.
A continuation appends a model content of ``functionCall`` parts (an ``id`` only when the
provider sent one: Gemini pairs responses by name and order; ``thoughtSignature`` echoed),
then a user content of ``functionResponse`` parts. Tool schemas are converted to Gemini's
OpenAPI subset. The key goes in ``x-goog-api-key``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final
from urllib.parse import quote

from inspector.core.base.provider import (
    ON_FINISH,
    Turn,
    TurnResult,
    WireRequest,
)
from inspector.core.providers.gemini import recognition
from inspector.core.providers.gemini.dialect import GeminiDialect
from inspector.core.providers.gemini.tools import read as read_tools
from inspector.core.providers.gemini.tools import written as written_tools
from inspector.core.providers.wire.package import PackagedProvider, Parts
from inspector.core.providers.wire.requests import as_list, split_system, text_of

NAME: Final = "gemini"
"""Its registry name (settings, profiles, captures, a replica's ``dialects``)."""

_STATUS_NAMES: Final = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED", 502: "UNAVAILABLE", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}  # fmt: skip
"""Google's status names for the HTTP statuses an error body is made for."""


class Gemini(PackagedProvider):
    """The Gemini provider (see the module docstring)."""

    name = NAME
    title = "Gemini"
    closing = ON_FINISH
    checks: frozenset[str] = frozenset()
    end_marker = None
    key_header = "x-goog-api-key"
    version_segment = "/v1beta"

    parts = Parts(recognition.recognises, GeminiDialect, written_tools, read_tools)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """No dedicated reason: calls plus a normal ``STOP`` mean "tool calls"."""
        return calls > 0 and reason == "STOP"

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """``{"error": {"code", "message", "status"}}`` with Google's status name."""
        name = _STATUS_NAMES.get(status, "INTERNAL" if status >= 500 else "INVALID_ARGUMENT")
        return {"error": {"code": status, "message": message, "status": name}}

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """``{base}/models/{model}:streamGenerateContent?alt=sse``: ``contents`` with text
        parts, the system text as ``systemInstruction``."""
        system, turns = split_system(messages)
        url = f"{base_url}/models/{quote(model, safe='')}:streamGenerateContent?alt=sse"
        contents = [{"role": "model" if m.get("role") == "assistant" else "user",
                     "parts": [{"text": text_of(m.get("content"))}]} for m in turns]  # fmt: skip
        body: dict[str, Any] = {"contents": contents}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        converted = self.tools(tools)
        if converted:
            body["tools"] = converted
        return WireRequest(url, body)

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """``contents`` += the model's ``functionCall`` parts, then the ``functionResponse``s."""
        parts: list[dict[str, Any]] = []
        if turn.reasoning:
            parts.append({"text": turn.reasoning, "thought": True})
        if turn.text:
            parts.append({"text": turn.text})
        answers = []
        for c, r in zip(turn.calls, results, strict=True):
            fc: dict[str, Any] = {"name": c.name, "args": c.input or {}}
            fr: dict[str, Any] = {
                "name": c.name,
                "response": {"error": r.text} if r.is_error else {"output": r.text},
            }
            if c.wire_id is not None:
                fc["id"] = fr["id"] = c.wire_id
            part: dict[str, Any] = {"functionCall": fc}
            if "thoughtSignature" in c.extra:
                part["thoughtSignature"] = c.extra["thoughtSignature"]
            parts.append(part)
            answers.append({"functionResponse": fr})
        body["contents"] = [
            *as_list(body.get("contents")),
            {"role": "model", "parts": parts},
            {"role": "user", "parts": answers},
        ]


PROVIDER = Gemini()
"""The one Gemini provider."""
