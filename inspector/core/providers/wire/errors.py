"""A provider error's one-line message, from the error object every dialect's errors share
(``{"type", "code", "status", "message"}``, usually wrapped as ``{"error": {…}}``), and the
error body both OpenAI dialects answer with.

Invariant: a message is one line (whitespace runs collapse to one space) and never raises,
whatever the object holds.
"""

from __future__ import annotations

from typing import Any

import orjson

_dumps = orjson.dumps


def error_message(err: Any) -> str:
    """A one-line message for a provider error object (``{"type","code","status","message"}``).

    ``"overloaded_error: Overloaded"``, ``"502: Provider disconnected"``; a string error is used
    as is; anything else becomes its compact JSON. Whitespace runs collapse to one space.
    """
    if isinstance(err, dict):
        msg = err.get("message")
        if msg is None:
            msg = err.get("error") if isinstance(err.get("error"), str) else None
        prefix = " ".join(
            str(err[k]) for k in ("type", "status", "code") if err.get(k) not in (None, "")
        )
        if msg is None:
            text = _dumps(err, default=str).decode()
            text = f"{prefix}: {text}" if prefix else text
        else:
            text = f"{prefix}: {msg}" if prefix else str(msg)
    elif isinstance(err, str):
        text = err
    else:
        text = _dumps(err, default=str).decode()
    return " ".join(text.split())


def wrapped_error(body: Any) -> str:
    """The message of an ``{"error": {…}}`` body (the error object itself when it is not
    wrapped): the shape OpenAI, Anthropic and Gemini error bodies share."""
    if isinstance(body, list) and body:  # Gemini sometimes wraps the error in a list
        body = body[0]
    return error_message(body.get("error", body) if isinstance(body, dict) else body)


def openai_error_body(status: int, message: str) -> dict[str, Any]:
    """OpenAI's error body (Chat Completions and Responses alike): ``{"error": {"message",
    "type", "param", "code"}}``, typed ``server_error`` for a 5xx status."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
