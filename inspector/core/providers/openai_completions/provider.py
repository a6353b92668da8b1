"""The OpenAI legacy completions provider (``/v1/completions``): text only.

The provider: the stream is ``text_completion`` chunks ending with ``[DONE]``; the API takes a
``prompt`` and offers no tools, so no turn ever asks for tool results (``tool_calls = False``,
read with ``getattr`` by the reports: "this dialect has no tool calls"); a request's tools are
left out. Errors are OpenAI's ``{"error": {…}}``; the key is a Bearer token.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from inspector.core.base.provider import (
    IN_ORDER,
    Head,
    Recognition,
    ToolShape,
    Turn,
    TurnResult,
    WireRequest,
)
from inspector.core.events.sse import SSE
from inspector.core.providers.openai_completions import recognition
from inspector.core.providers.openai_completions.dialect import CompletionsDialect
from inspector.core.providers.wire.errors import openai_error_body, wrapped_error
from inspector.core.providers.wire.requests import text_of

NAME: Final = "openai-completions"
"""Its registry name (settings, profiles, captures)."""


class OpenAICompletions:
    """The legacy completions provider (see the module docstring)."""

    name = NAME
    title = "OpenAI legacy completions"
    closing = IN_ORDER
    checks: frozenset[str] = frozenset()
    end_marker = "[DONE]"
    key_header = "authorization"
    version_segment = "/v1"
    framing = SSE
    tool_calls = False
    """This API has no tool calls (read with ``getattr``; a provider without it has them)."""

    def recognises(self, head: Head, content_type: str | None, url: str | None) -> Recognition:
        """See :mod:`.recognition`."""
        return recognition.recognises(head, content_type, url)

    def dialect(self) -> CompletionsDialect:
        """A fresh dialect for one response body."""
        return CompletionsDialect(self)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """Never: the API has no tools."""
        return False

    def error_message(self, body: Any) -> str:
        """``{"error": {"message", "type", "param", "code"}}``."""
        return wrapped_error(body)

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """``{"error": {"message", "type", "param", "code"}}``."""
        return openai_error_body(status, message)

    def tools(self, neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """None: the API takes no tools."""
        return []

    def tool_shape(self, entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
        """No shape of its own."""
        return None

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """``{base}/completions`` with the messages' text joined as the ``prompt`` (tools are
        not offered: the API has none)."""
        prompt = "\n\n".join(text_of(m.get("content")) for m in messages)
        return WireRequest(
            f"{base_url}/completions",
            {"model": model, "prompt": prompt, "stream": True, "max_tokens": 256},
        )

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """The turn's text appended to the prompt (there are no calls to answer)."""
        prompt = body.get("prompt")
        body["prompt"] = f"{prompt if isinstance(prompt, str) else ''}{turn.text}"


PROVIDER = OpenAICompletions()
"""The one legacy completions provider."""
