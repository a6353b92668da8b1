"""What can go wrong in a live session, as one tree (modelled on httpx's ``_exceptions.py``)::

    InspectorError                    (inspector.core.base.errors)
    └── LiveError                     a live session could not get (all of) a response
        ├── MissingKey                no key in the environment or the OS keyring
        ├── ConnectError              the host could not be reached (DNS, refused, TLS, bad URL)
        ├── TimeoutError_             something took too long
        │   ├── ConnectTimeout        connecting took longer than the connect timeout
        │   ├── ReadTimeout           no data for the read timeout
        │   └── BudgetExhausted       the retry ran out of the attempt's time budget
        ├── ProviderHTTPError         the provider answered with a non-2xx status
        ├── NotSSEError               a 2xx answer that is not text/event-stream
        └── StreamBroken              the connection broke before the body was complete

Invariants:
- ``str(error)`` is one line a user can act on (no newlines, clipped); the attributes keep
  the details (status, body, byte counts) for views that show more.
- No error ever carries a credential: messages are built from redacted URLs and provider
  bodies only.
- ``outcome`` is filled by :func:`inspector.net.client.stream_attempt` before it raises, so a
  caller always knows how far the attempt got.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.errors import InspectorError
from inspector.core.base.provider import Provider
from inspector.core.capture.redaction import redact_url

_CLIP = 200


def one_line(text: str, limit: int = _CLIP) -> str:
    """``text`` on one line, whitespace collapsed, clipped to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class LiveError(InspectorError):
    """Base of every live-session error; ``str()`` is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message, 400))
        self.outcome: Any = None
        """The :class:`~inspector.net.client.AttemptOutcome` of the attempt, once known."""


class MissingKey(LiveError):
    """The profile needs a key and none was found."""

    def __init__(self, env: str, profile: str) -> None:
        super().__init__(
            f"no API key for profile {profile!r}: set {env} (or store it in the OS keyring "
            f"as service 'toolcall-inspector', user {profile!r})"
        )
        self.env = env
        self.profile = profile


class ConnectError(LiveError):
    """The request never reached the provider."""


class TimeoutError_(LiveError):  # the trailing underscore keeps clear of the builtin
    """Base of the timeouts."""

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.seconds = seconds


class ConnectTimeout(TimeoutError_):
    """Connecting took longer than the connect timeout."""

    def __init__(self, url: str, seconds: float) -> None:
        super().__init__(f"could not connect to {redact_url(url)} within {seconds:g} s "
                         "(connect timeout)", seconds)  # fmt: skip


class ReadTimeout(TimeoutError_):
    """No data arrived for the read timeout."""

    def __init__(self, seconds: float, received: int = 0) -> None:
        super().__init__(f"no data for {seconds:g} s (read timeout) after {received} bytes",
                         seconds)  # fmt: skip
        self.received = received


class BudgetExhausted(TimeoutError_):
    """The retry did not finish within what was left of the attempt budget."""

    def __init__(self, seconds: float, received: int = 0) -> None:
        super().__init__(f"the attempt budget ran out ({seconds:.3g} s were left for the "
                         f"retry) after {received} bytes", seconds)  # fmt: skip
        self.received = received


class ProviderHTTPError(LiveError):
    """A non-2xx response; ``body`` is what the provider said (all of it, as bytes)."""

    def __init__(
        self,
        status: int,
        url: str,
        body: bytes,
        reason: str = "",
        retry_after: str | None = None,
        provider: Provider | None = None,
    ) -> None:
        """``provider``: whose error shape ``body`` is in (None: read the common shapes)."""
        self.status = status
        self.url = redact_url(url)
        self.body = body
        self.detail = provider_message(body, provider) or reason or "(no body)"
        self.retry_after = retry_after
        """The response's ``retry-after`` header (429/503), as sent."""
        wait = f" (retry-after: {one_line(retry_after, 40)})" if retry_after else ""
        super().__init__(f"HTTP {status} from {self.url}: {one_line(self.detail)}{wait}")


class NotSSEError(LiveError):
    """A 2xx response that is not an event stream (e.g. a non-streamed JSON completion)."""

    def __init__(self, content_type: str | None, head: bytes) -> None:
        self.content_type = content_type
        self.head = head
        """The first bytes of the body."""
        shown = head[:120].decode("utf-8", "replace")
        super().__init__(f"expected text/event-stream, got {content_type or 'no content-type'}"
                         f": {shown!r}")  # fmt: skip


class StreamBroken(LiveError):
    """The connection closed or reset before the body was complete."""

    def __init__(self, detail: str, received: int) -> None:
        self.received = received
        self.detail = detail
        super().__init__(f"connection broken after {received} bytes: {detail}")


def provider_message(body: bytes, provider: Provider | None = None) -> str:
    """The provider's error message from an error body, read in ``provider``'s error shape
    when the request was built for one (``Provider.error_message``), else in the common
    shapes (JSON ``error.message`` and the like), else the body's text; clipped to one line."""
    import orjson  # local: keeps this module's import cheap for the CLI's startup

    text = body.decode("utf-8", "replace").strip()
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:
        return one_line(text)
    if provider is not None and isinstance(obj, dict | list) and obj:
        return one_line(provider.error_message(obj))
    for candidate in _messages(obj):
        return one_line(candidate)
    return one_line(text)


def _messages(obj: Any) -> list[str]:
    """Message strings in the common error shapes, best first."""
    if isinstance(obj, list) and obj:  # Gemini sometimes wraps the error in a list
        obj = obj[0]
    if not isinstance(obj, dict):
        return []
    err = obj.get("error", obj)
    if isinstance(err, str):
        return [err]
    if isinstance(err, dict):
        msg = err.get("message") or err.get("detail") or err.get("type")
        if isinstance(msg, str) and msg:
            return [msg]
    for key in ("message", "detail"):
        if isinstance(obj.get(key), str) and obj[key]:
            return [obj[key]]
    return []
