"""What a served capture answers: one :class:`Reply` per recorded attempt, in order.

Invariants:
- A reply's body is the attempt's chunks exactly as recorded, each with its recorded time
  (seconds since the request); nothing is decoded, re-encoded or re-chunked.
- Its headers are the recorded response headers less those that described the recorded
  connection and its framing (:data:`FRAMING`): the server writes its own
  ``Transfer-Encoding``/``Content-Length`` for what it sends, and never a
  ``Content-Encoding`` (the recorded chunks are the decoded body).
- How the body ends follows the attempt's ``end`` record: a clean end, or, when a 2xx event
  stream itself ended with a transport error (an end whose reason is not ``eof``), a TCP reset
  after the recorded chunks. An attempt with no response at all is a reset before any header.
- A raw body (no records) is ``200`` with ``text/event-stream`` when it is text, else
  ``application/octet-stream``, on any path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from inspector.core.base.errors import InspectorError
from inspector.core.capture.records import Attempt, Capture

FRAMING: Final = frozenset(
    {
        "transfer-encoding",
        "content-length",
        "content-encoding",
        "connection",
        "keep-alive",
        "date",
        "server",
    }
)
"""Response headers the server recomputes or drops: they described the recorded connection."""
SSE: Final = "text/event-stream"
STREAMED: Final = frozenset({SSE, "application/vnd.amazon.eventstream", "application/x-ndjson"})
"""Content types whose body is read as it arrives: a transport error ends them mid-way."""
SPEEDS: Final = ("1", "10", "max")
"""The ``--speed`` choices the command line offers (any positive number is accepted)."""

Speed = float | None
"""How many times faster than recorded the chunks are sent; None: no waits at all."""


class ServeError(InspectorError):
    """A capture that cannot be served (no attempt, a bad ``--speed``); one line for the user."""


def parse_speed(text: str) -> Speed:
    """``"1"`` the recorded pace, ``"10"`` ten times faster, ``"max"`` no waits."""
    if text.strip().lower() == "max":
        return None
    try:
        speed = float(text)
    except ValueError:
        speed = 0.0
    if not speed > 0:
        raise ServeError(f"--speed {text!r}: give a positive number (1, 10) or max")
    return speed


@dataclass(frozen=True)
class Reply:
    """One recorded attempt's answer."""

    attempt: int
    status: int | None
    """None: no response was recorded (the connection is reset before any header)."""
    headers: tuple[tuple[str, str], ...] = ()
    chunks: tuple[tuple[float, bytes], ...] = ()
    """(seconds since the request, bytes) as recorded."""
    head_at: float = 0.0
    """When the response head was recorded (seconds since the request)."""
    reset: bool = False
    """End with a TCP reset after the chunks (the body ended with a transport error)."""
    sized: bool = False
    """The recorded response had a Content-Length: send one (recomputed) rather than chunks."""
    method: str = "POST"
    path: str = ""
    """The recorded request's path and query; "" when none was recorded (a raw body)."""

    @property
    def body(self) -> bytes:
        """Every byte the reply sends."""
        return b"".join(data for _, data in self.chunks)


def replies_of(capture: Capture) -> list[Reply]:
    """The capture's attempts as replies, in attempt order (see the module's invariants)."""
    if not capture.attempts:
        raise ServeError(f"{capture.path or 'the capture'}: no attempt to serve")
    if capture.kind == "raw-sse":
        attempt = capture.attempts[0]
        chunks = tuple(attempt.chunks)
        body = b"".join(data for _, data in chunks)
        ctype = SSE if _is_text(body) else "application/octet-stream"
        return [Reply(attempt.number, 200, (("content-type", ctype),), chunks)]
    return [_reply(attempt) for attempt in capture.attempts]


def _reply(attempt: Attempt) -> Reply:
    request = attempt.request or {}
    method = str(request.get("method") or "POST")
    url = urlsplit(str(request.get("url") or ""))
    path = url.path + (f"?{url.query}" if url.query else "")
    if attempt.response is None:
        return Reply(attempt.number, None, reset=True, method=method, path=path)
    response = attempt.response
    pairs = tuple((str(k), str(v)) for k, v in (response.get("headers") or {}).items())
    status = int(response["status"])
    ctype = next((v for k, v in pairs if k.lower() == "content-type"), None)
    ended = (attempt.end or {}).get("reason", "eof")
    streamed = ctype is None or ctype.split(";")[0].strip().lower() in STREAMED
    reset = ended != "eof" and 200 <= status < 300 and streamed
    sized = any(k.lower() == "content-length" for k, _ in pairs) and not reset
    headers = tuple((k, v) for k, v in pairs if k.lower() not in FRAMING)
    head_at = float(response.get("t") or 0.0)
    return Reply(
        attempt.number, status, headers, tuple(attempt.chunks), head_at, reset, sized, method, path
    )


def _is_text(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
