"""``@ai-sdk/cohere`` 4.0.81's stream transform (``doStream`` of
``cohere-chat-language-model.ts``, ``POST {baseURL}/chat``), for the ``tool-call`` parts it
emits, and its failed-response handler.

What the SDK does, modelled here:
- A status that is not 2xx: ``APICallError`` whose message is the body's top-level
  ``message`` (Cohere's error shape, ``cohereErrorDataSchema``: ``{"message": string}``), else
  the status text (:func:`cohere_status_error`).
- Each dispatched event's data is parsed (``JSONParseError`` part on failure, the stream goes
  on). ``tool-call-start`` opens the one pending call (id, ``function.name``,
  ``function.arguments`` as its first text); ``tool-call-delta`` appends
  ``function.arguments`` to it; ``tool-call-end`` emits the ``tool-call`` part with input
  ``JSON.stringify(parseJSON(arguments.trim() || "{}") ?? {})`` (arguments that do not parse
  throw ``JSONParseError``: the stream ends, the calls before it handed over) and closes it.
  A delta or end with no pending call is ignored. Ids and names are the wire's own; event
  names (``event:``) are never read, only each chunk's ``type``.
- Text, thinking, tool-plan, citations and ``message-end`` emit no ``tool-call`` part; the
  flush always emits ``finish`` (no ``NoOutputGeneratedError``).

Not modelled: the chunk schema's (zod discriminated union) ``TypeValidationError`` parts for
a chunk of an unknown ``type`` or a missing field (such a chunk is read as far as it goes).
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from inspector.core.clients.base import ClientRaised, Exchange
from inspector.core.clients.vercel_ai.common import json_parse_error, secure_parse
from inspector.core.clients.vercel_ai.parts import PartsRun, js_stringify
from inspector.core.clients.vercel_ai.tracker import js_trim
from inspector.core.clients.vercel_ai.v8_json import JsSyntaxError


def cohere_status_error(exchange: Exchange) -> ClientRaised | None:
    """``createJsonErrorResponseHandler`` with Cohere's error schema, for a status that is not
    2xx (None for 2xx): the body's ``message`` string, else the status text."""
    status = exchange.status
    if status == 0:
        return ClientRaised("APICallError", "Cannot connect to API: connect ECONNREFUSED")
    if 200 <= status < 300:
        return None
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    text = exchange.body.decode("utf-8", "replace")
    try:
        body = secure_parse(text) if js_trim(text) else None
    except JsSyntaxError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return ClientRaised("APICallError", body["message"])
    return ClientRaised("APICallError", reason)


def _tool_calls(value: dict[str, Any]) -> dict[str, Any]:
    """``value.delta.message.tool_calls`` (the schema requires it; absent: an empty dict)."""
    delta = value.get("delta")
    message = delta.get("message") if isinstance(delta, dict) else None
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return calls if isinstance(calls, dict) else {}


def _arguments(calls: dict[str, Any]) -> str:
    function = calls.get("function")
    text = function.get("arguments") if isinstance(function, dict) else None
    return text if isinstance(text, str) else ""


class CohereRun(PartsRun):
    """One Cohere v2 chat stream through ``@ai-sdk/cohere`` (see the module)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.pending: list[Any] | None = None
        """The open call: ``[id, name, arguments so far]`` (``pendingToolCall``), or None."""

    def chunk(self, value: dict[str, Any]) -> None:
        kind = value.get("type")
        if kind == "tool-call-start":
            calls = _tool_calls(value)
            function = calls.get("function")
            name = function.get("name") if isinstance(function, dict) else None
            self.pending = [calls.get("id"), name, _arguments(calls)]
        elif kind == "tool-call-delta" and self.pending is not None:
            self.pending[2] += _arguments(_tool_calls(value))
        elif kind == "tool-call-end" and self.pending is not None:
            id_, name, text = self.pending
            self.pending = None
            source = js_trim(text) or "{}"
            try:
                parsed = secure_parse(source)
            except JsSyntaxError as exc:
                raise json_parse_error(source, exc) from None
            self.emit(id_, name, js_stringify({} if parsed is None else parsed))
