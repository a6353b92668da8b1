"""What the anthropic SDK raises before and after reading a body: the status errors by class,
and httpx2's errors for a body cut short (the ``anthropic-sdk`` replica's, see there).

Invariants: pure functions of the exchange; the class names are the SDK 2.15.0's.
"""

from __future__ import annotations

import json
from typing import Final

from inspector.core.clients.base import ClientRaised, Exchange

CLASSES: Final = {
    400: "BadRequestError", 401: "AuthenticationError", 402: "PaymentRequiredError",
    403: "PermissionDeniedError", 404: "NotFoundError", 408: "RequestTimeoutError",
    409: "ConflictError", 412: "PreconditionFailedError", 413: "ContentTooLargeError",
    422: "UnprocessableEntityError", 429: "RateLimitError",
    431: "RequestHeaderFieldsTooLargeError", 499: "ClientClosedRequestError",
    501: "HTTPNotImplementedError", 503: "ServiceUnavailableError", 504: "GatewayTimeoutError",
    529: "OverloadedError",
}  # fmt: skip


def status_error(exchange: Exchange) -> ClientRaised | None:
    """What the SDK raises before reading the body (None for a 2xx response)."""
    status = exchange.status
    if status == 0:
        return ClientRaised("APIConnectionError", "Connection error.")
    if 200 <= status < 300:
        return None
    name = CLASSES.get(status) or ("InternalServerError" if status >= 500 else "APIStatusError")
    text = exchange.body.decode("utf-8", "replace").strip()
    try:
        message = f"Error code: {status} - {json.loads(text)}"
    except (ValueError, RecursionError):  # the SDK's ``except Exception``
        message = text or f"Error code: {status}"
    return ClientRaised(name, message)


def cut_raise(exchange: Exchange) -> ClientRaised | None:
    """What httpx2 raises when the body ends early (None when the body ended cleanly: the
    inspector's own HTTP-status and content-type errors are no cut for the client)."""
    why = (exchange.transport_error or "").lower()
    if "read timeout" in why or "timed out" in why:
        return ClientRaised("ReadTimeout", "")
    if why.startswith("connection broken") or "reset" in why:
        return ClientRaised("ReadError", "")
    return None
