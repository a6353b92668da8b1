"""The Amazon Bedrock provider (``bedrock-converse``): ConverseStream, and
InvokeModelWithResponseStream carrying Anthropic Messages events, both in AWS event-stream
frames.

The provider: its body is binary frames (:mod:`.eventstream`; JSON lines read alike); every
content block is closed explicitly (``contentBlockStop``); ``messageStop`` says why the turn
ended (``tool_use``, ``end_turn``, ``max_tokens`` …) and ``metadata`` follows with the usage,
so the stream has no end marker of its own to miss. Arguments arrive as string fragments
(``toolUse.input``), each call with its ``toolUseId``: those are the checks that apply. A
request goes to ``{base}/model/{modelId}/converse-stream`` with ``toolConfig.tools`` of
``toolSpec``s; a continuation appends an assistant message of ``text`` and ``toolUse`` blocks
(parsed input), then a user message of ``toolResult`` blocks. An error answer is
``{"message": …}`` with its type in the ``x-amzn-errortype`` header. The key (a Bedrock API
key) goes in ``authorization`` as a bearer token; a live profile signs with SigV4 instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final
from urllib.parse import quote

from inspector.core.base.provider import (
    EXPLICIT,
    Turn,
    TurnResult,
    WireRequest,
)
from inspector.core.providers.bedrock_converse import recognition
from inspector.core.providers.bedrock_converse.dialect import BedrockDialect
from inspector.core.providers.bedrock_converse.eventstream import CONTENT_TYPE, EVENTSTREAM
from inspector.core.providers.bedrock_converse.tools import read as read_tools
from inspector.core.providers.bedrock_converse.tools import written as written_tools
from inspector.core.providers.wire.errors import error_message, wrapped_error
from inspector.core.providers.wire.package import PackagedProvider, Parts
from inspector.core.providers.wire.requests import as_list, split_system, text_of
from inspector.core.quirks.codes import ARGUMENTS_NOT_STRING, MISSING_CALL_ID

NAME: Final = "bedrock-converse"
"""Its registry name (settings, profiles, captures, a replica's ``dialects``)."""

ERROR_TYPE_HEADER: Final = "x-amzn-errortype"
"""The response header that names an error answer's type (``ValidationException:…``)."""


def error_type(status: int) -> str:
    """The exception type Bedrock answers ``status`` with."""
    return {400: "ValidationException", 403: "AccessDeniedException",
            404: "ResourceNotFoundException", 429: "ThrottlingException",
            503: "ServiceUnavailableException"}.get(
        status, "InternalServerException" if status >= 500 else "ValidationException")  # fmt: skip


def converse_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-chat messages (system ones taken out) as Converse messages of content blocks."""
    out: list[dict[str, Any]] = []
    for m in messages:
        role = "assistant" if m.get("role") == "assistant" else "user"
        out.append({"role": role, "content": [{"text": text_of(m.get("content"))}]})
    return out


class BedrockConverse(PackagedProvider):
    """The Amazon Bedrock provider (see the module docstring)."""

    name = NAME
    title = "Amazon Bedrock ConverseStream"
    closing = EXPLICIT
    checks = frozenset({ARGUMENTS_NOT_STRING, MISSING_CALL_ID})
    end_marker = None
    key_header = "authorization"
    version_segment = ""
    framing = EVENTSTREAM

    parts = Parts(recognition.recognises, BedrockDialect, written_tools, read_tools)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """``tool_use`` with at least one call."""
        return calls > 0 and reason == "tool_use"

    def error_message(self, body: Any) -> str:
        """``{"message": …}`` (``Message`` from some services), with its ``__type`` or
        ``type`` when the body names one; an exception event's object alike; a gateway's
        ``{"error": {…}}`` as the other providers read it."""
        if isinstance(body, dict):
            message = body.get("message", body.get("Message"))
            kind = body.get("__type", body.get("type"))
            if message is not None:
                return error_message({"type": kind, "message": message})
        return wrapped_error(body)  # a gateway's ``{"error": {…}}``

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """``{"message": …}`` (the type goes in ``x-amzn-errortype``, see :func:`error_type`)."""
        return {"message": message}

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """``{base}/model/{modelId}/converse-stream``: the system text apart,
        ``inferenceConfig.maxTokens`` 1024, the tools under ``toolConfig``."""
        system, turns = split_system(messages)
        body: dict[str, Any] = {
            "messages": converse_messages(turns),
            "inferenceConfig": {"maxTokens": 1024},
        }
        if system:
            body["system"] = [{"text": system}]
        if tools:
            body["toolConfig"] = {"tools": self.tools(tools)}
        url = f"{base_url.rstrip('/')}/model/{quote(model, safe='')}/converse-stream"
        return WireRequest(url, body, {"accept": CONTENT_TYPE})

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """``messages`` += assistant ``text`` + ``toolUse`` blocks, then the ``toolResult``s."""
        blocks: list[dict[str, Any]] = [{"text": turn.text}] if turn.text else []
        blocks += [{"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.input or {}}}
                   for c in turn.calls]  # fmt: skip
        answers = [{"toolResult": {"toolUseId": r.call_id, "content": [{"text": r.text}],
                    "status": "error" if r.is_error else "success"}} for r in results]  # fmt: skip
        body["messages"] = [
            *as_list(body.get("messages")),
            {"role": "assistant", "content": blocks},
            {"role": "user", "content": answers},
        ]


PROVIDER = BedrockConverse()
"""The one Amazon Bedrock provider."""
