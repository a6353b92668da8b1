"""Errors in each provider's shape, and the stream-level faults the ``fault-…`` scenarios inject.

Invariants:
- :func:`error_body` gives the JSON a real provider returns for a status: OpenAI (chat and
  Responses) ``{"error": {message, type, param, code}}``, Anthropic ``{"type": "error",
  "error": {type, message}}``, Gemini ``{"error": {code, message, status}}``.
- :func:`inject` is pure: it rewrites a clean stream's frames and never adds events, except
  the :class:`~.wire.Pause` / :class:`~.wire.Reset` markers, placed inside the first call's
  arguments (:func:`cut_point`; a reset drops everything after it). Byte faults touch only the first
  occurrence of ``☀`` (the text preface every fault scenario streams): invalid UTF-8 replaces
  its three bytes with ``0xff``; the split writes the frame in two TCP writes, cut inside it.
"""

from __future__ import annotations

from typing import Any

from .wire import Frame, Pause, Reset, Split

SUN = "☀".encode()
"""The character the byte faults break (it is in :data:`.planner.FAULT_TEXT`)."""

# status -> (OpenAI type, OpenAI code, Anthropic type, Gemini status)
_KINDS: dict[int, tuple[str, str | None, str, str]] = {
    400: ("invalid_request_error", None, "invalid_request_error", "INVALID_ARGUMENT"),
    401: ("invalid_request_error", "invalid_api_key", "authentication_error", "UNAUTHENTICATED"),
    404: ("invalid_request_error", "model_not_found", "not_found_error", "NOT_FOUND"),
    429: ("requests", "rate_limit_exceeded", "rate_limit_error", "RESOURCE_EXHAUSTED"),
    500: ("server_error", None, "api_error", "INTERNAL"),
}

FAULT_MESSAGES = {
    401: "Incorrect API key provided (fault-401 from the demo provider: any key works with "
    "the other models).",
    429: "Rate limit reached (fault-429 from the demo provider): please try again in 1s.",
    500: "The server had an error while processing your request (fault-500 from the demo "
    "provider).",
}

RETRY_AFTER = 1
"""Seconds the 429 fault asks clients to wait (``retry-after`` header)."""

HTML = (
    b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n<body><h1>Sign in to "
    b"continue</h1><p>fault-wrong-content-type: a proxy answered with a web page, status "
    b"200, instead of an event stream.</p></body></html>\n"
)


def error_body(
    dialect: str, status: int, message: str, param: str | None = None, request_id: str = ""
) -> dict[str, Any]:
    """The error JSON ``dialect``'s provider returns with ``status``."""
    oa_type, oa_code, an_type, g_status = _KINDS.get(status, _KINDS[500])
    if dialect == "anthropic":
        return {
            "type": "error",
            "error": {"type": an_type, "message": message},
            "request_id": request_id,
        }
    if dialect in ("gemini", "gemini-interactions"):
        return {"error": {"code": status, "message": message, "status": g_status}}
    if dialect == "cohere-v2":
        return {"id": request_id or "demo", "message": message}
    return {"error": {"message": message, "type": oa_type, "param": param, "code": oa_code}}


def cut_point(frames: list[Frame], marker: bytes | None) -> int:
    """Where a reset or stall cuts: two frames after the first frame holding ``marker`` (the
    first call's id: so inside its arguments), else half-way (Gemini: calls arrive whole)."""
    if marker:
        for i, frame in enumerate(frames):
            if isinstance(frame, bytes) and marker in frame:
                return min(i + 3, len(frames) - 1)
    return len(frames) // 2


def inject(
    fault: str | None, frames: list[Frame], *, stall: float, gap: float, marker: bytes | None = None
) -> list[Frame]:
    """``frames`` with ``fault`` applied (None and status faults leave them unchanged)."""
    cut = cut_point(frames, marker)
    if fault == "reset":
        return [*frames[:cut], Pause(gap), Reset()]
    if fault == "stall":
        return [*frames[:cut], Pause(stall), *frames[cut:]]
    if fault in ("invalid-utf8", "split"):
        out = list(frames)
        for i, frame in enumerate(out):
            if isinstance(frame, bytes) and SUN in frame:
                if fault == "invalid-utf8":
                    out[i] = frame.replace(SUN, b"\xff", 1)
                else:
                    cut = frame.index(SUN) + 1  # after the first of its three bytes
                    out[i] = Split((frame[:cut], frame[cut:]), gap)
                break
        return out
    return frames
