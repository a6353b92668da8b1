"""LiteLLM's exception mapping for the openai provider: which class LiteLLM raises for an
error, and how ``str()`` words it.

Follows litellm 1.110.2: ``litellm_core_utils/exception_mapping_utils.py`` (``exception_type``,
``_map_openai_exception``, ``get_error_message``, ``ExceptionCheckers``), ``exceptions.py``
(each class's ``str()``: ``litellm.<Class>: <message>``), ``llms/openai/openai.py`` (the SDK's
request-time error re-raised as ``OpenAIError`` with the SDK's message and status) and
``litellm_core_utils/streaming_handler.py`` (``_handle_stream_fallback_error``).

Invariants:
- The class follows the wording before the status: a message that mentions a rate limit (or
  a standalone 429) is a ``RateLimitError``, one about the context window a
  ``ContextWindowExceededError``, a timeout's wording a ``Timeout``, whatever the status; then
  the status; an error without one (raised while the stream is read) is an
  ``APIConnectionError``.
- The message LiteLLM shows is the error body's ``message`` when it has one, else the
  original exception's; it reads ``<Class>: OpenAIException - <message>`` for most classes.
- Raised while the stream is read, a mapped error is wrapped in ``MidStreamFallbackError``
  unless it is a 4xx other than 429 (those are raised as they are).
- ``num_retries`` and ``max_retries`` are 0 (the runner's settings): no retry suffix.
"""

from __future__ import annotations

import json
import re
from typing import Final

from inspector.core.clients.base import ClientRaised, Exchange

_OAI: Final = "OpenAIException"
BUILDER: Final = "Error building chunks for logging/streaming usage calculation"
"""What ``stream_chunk_builder`` raises (``APIError``) when it cannot read its chunks."""
NO_FINISH: Final = "Stream ended before a finish_reason was received"
"""What a stream that ended without a finish reason raises (wrapped)."""
_TIMEOUTS: Final = (
    "Request Timeout Error",
    "Request timed out",
    "Timed out generating response",
    "The read operation timed out",
)
_CONTEXT: Final = (
    "exceed context limit",
    "this model's maximum context length is",
    "requested token count exceeds the model's maximum context length",
    "string too long. expected a string with maximum length",
    "model's maximum context limit",
    "is longer than the model's context length",
    "input tokens exceed the configured limit",
    "`inputs` tokens + `max_new_tokens` must be",
    "exceeds the available context size",
    "exceeds the maximum number of tokens allowed",
    '"code": "context_length_exceeded"',
    "prompt is too long",
)
_BY_STATUS: Final = {
    400: ("BadRequestError", ""),
    401: ("AuthenticationError", "AuthenticationError: "),
    404: ("NotFoundError", "NotFoundError: "),
    408: ("Timeout", "Timeout Error: "),
    422: ("BadRequestError", ""),
    429: ("RateLimitError", "RateLimitError: "),
    500: ("InternalServerError", "InternalServerError: "),
    502: ("BadGatewayError", "BadGatewayError: "),
    503: ("ServiceUnavailableError", "ServiceUnavailableError: "),
    504: ("Timeout", "Timeout Error: "),
}
_STATUS_OF: Final = {
    "BadRequestError": 400, "ContextWindowExceededError": 400, "NotFoundError": 404,
    "AuthenticationError": 401, "Timeout": 408, "RateLimitError": 429,
    "ContentPolicyViolationError": 400,
}  # fmt: skip


def error(cls: str, message: str) -> ClientRaised:
    """A LiteLLM exception as ``str()`` words it (num_retries and max_retries are 0)."""
    if cls in ("ContextWindowExceededError", "ContentPolicyViolationError"):
        inner = f"litellm.BadRequestError: {message}"
        if cls == "ContextWindowExceededError":
            return ClientRaised(cls, f"litellm.ContextWindowExceededError: {inner}")
        return ClientRaised(cls, f"litellm.BadRequestError: litellm.{cls}: {message}")
    return ClientRaised(cls, f"litellm.{cls}: {message}")


def _rate_limit(text: str, status: int | None) -> bool:
    if re.search(r"\b429\b", text) and status in (None, 429):
        return True
    lower = text.lower()
    return bool(re.search(r"rate[\s_\-]*limit", lower)) or "service tier capacity exceeded" in lower


def _context(text: str) -> bool:
    lower = text.lower()
    if "string_above_max_length" in lower or (
        "invalid 'user'" in lower and "string too long" in lower
    ):
        return False
    return (
        any(s in lower for s in _CONTEXT)
        or ("current length is" in lower and "while limit is" in lower)
        or ("maximum input length is" in lower and "tokens" in lower)
        or ("input too long:" in lower and "input tokens, limit is" in lower)
    )


def mapped(error_str: str, message: str, status: int | None) -> ClientRaised:
    """``exception_type`` for the openai provider: ``error_str`` is the original exception's
    message, ``message`` the one LiteLLM shows (the error body's, when it has one),
    ``status`` the HTTP status (None for an error without one: a stream error)."""
    if any(s in error_str for s in _TIMEOUTS):
        return error("Timeout", f"APITimeoutError - Request timed out. Error_str: {error_str}")
    message = message.replace("openai.OpenAIError", "openai.openaiError")
    said = f"{_OAI} - {message}"
    lower = error_str.lower()
    if _rate_limit(error_str, status):
        return error("RateLimitError", f"RateLimitError: {said}")
    if _context(error_str):
        return error("ContextWindowExceededError", f"ContextWindowExceededError: {said}")
    if "invalid_request_error" in error_str and "model_not_found" in error_str:
        return error("NotFoundError", said)
    if "A timeout occurred" in error_str:
        return error("Timeout", said)
    if (
        ("invalid_request_error" in error_str and "content_policy_violation" in error_str)
        or ("Invalid prompt" in error_str and "violating our usage policy" in error_str)
        or "request was rejected as a result of the safety system" in lower
    ):
        return error("ContentPolicyViolationError", f"ContentPolicyViolationError: {said}")
    if "invalid_request_error" in error_str and "Incorrect API key provided" not in error_str:
        cls = {401: "AuthenticationError", 404: "NotFoundError"}.get(status or 0)
        return error(cls or "BadRequestError", said)
    if (
        "Web server is returning an unknown error" in error_str
        or "The server had an error processing your request." in error_str
    ):
        return error("InternalServerError", said)
    if "Request too large" in error_str:
        return error("RateLimitError", f"RateLimitError: {said}")
    if "Mistral API raised a streaming error" in error_str:
        return error("APIError", said)
    if status is None:
        return error("APIConnectionError", f"APIConnectionError: {said}")
    cls, prefix = _BY_STATUS.get(status, ("APIError", "APIError: "))
    return error(cls, f"{prefix}{said}")


def _status_of(raised: ClientRaised) -> int:
    return _STATUS_OF.get(raised.type, 500)


def request_error(raised: ClientRaised, exchange: Exchange) -> ClientRaised:
    """What ``acompletion`` raises for the SDK's request-time error (an HTTP error status;
    no response at all counts as 500)."""
    status = exchange.status if exchange.status >= 400 else 500
    return mapped(raised.message, _body_message(exchange) or raised.message, status)


def _body_message(exchange: Exchange) -> str | None:
    """``get_error_message``: the error body's ``message`` (inside ``error`` or not)."""
    try:
        body = json.loads(exchange.body.decode("utf-8", "replace").strip())
    except ValueError:
        return None
    data = body.get("error", body) if isinstance(body, dict) else body
    if not isinstance(data, dict):
        return None
    if data.get("message"):
        return str(data["message"])
    nested = data.get("error")
    message = nested.get("message") if isinstance(nested, dict) else None
    return None if message is None else str(message)


def stream_error(error_str: str) -> ClientRaised:
    """What ``__anext__`` raises for an error while the stream is read: mapped, then wrapped
    in ``MidStreamFallbackError`` unless it is a 4xx other than 429."""
    inner = mapped(error_str, error_str, None)
    return fallback(inner)


def fallback(inner: ClientRaised) -> ClientRaised:
    """``_handle_stream_fallback_error`` on an already mapped LiteLLM exception."""
    status = _status_of(inner)
    if 400 <= status < 500 and status != 429:
        return inner
    text = inner.message
    return ClientRaised(
        "MidStreamFallbackError",
        f"litellm.MidStreamFallbackError: {text} Original exception: {inner.type}: {text}",
    )
