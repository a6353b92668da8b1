"""One physical request, streamed: every byte recorded the moment it arrives, then analysed.

:func:`stream_attempt` sends a :class:`~inspector.core.requests.scenarios.RequestSpec` and reads the
response with ``aiter_raw()`` (the bytes as they came off the wire: ``accept-encoding:
identity`` is sent so there is nothing to decompress).

Invariants:
- Record, then feed: each chunk is written to the capture (flushed) *before* ``sink`` sees it,
  so a crash in analysis or a SIGKILL never loses a byte that was received.
- Everything received is recorded and fed, error bodies and non-SSE bodies included — the same
  chunks :meth:`Analysis.from_capture` will replay, so a live analysis equals a replayed one.
- Every attempt that sent its request ends with exactly one ``end`` record: ``eof`` (success),
  ``error`` (provider/transport error), ``timeout`` or ``cancelled``; its ``t`` is seconds since
  the request, like the chunks'.
- The key lives only in the in-memory request headers; records get them via the writer, which
  redacts credentials.
- Errors leave as :class:`~inspector.net.errors.LiveError` with ``outcome`` set;
  ``asyncio.CancelledError`` is re-raised after the ``end`` record is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import httpx
import orjson

from inspector.core.base.provider import Head
from inspector.core.capture.records import Attempt
from inspector.core.capture.redaction import (
    Headers,
    RedactedBody,
    redact_body,
    redact_headers,
    redact_url,
)
from inspector.core.capture.writer import CaptureWriter
from inspector.core.providers import REGISTRY
from inspector.core.providers.sniff import recognise
from inspector.core.requests.scenarios import RequestSpec

from .errors import (
    BudgetExhausted,
    ConnectError,
    ConnectTimeout,
    LiveError,
    NotSSEError,
    ProviderHTTPError,
    ReadTimeout,
    StreamBroken,
    TimeoutError_,
)
from .sigv4 import signature

MAX_NON_SSE_BODY = 8 * 1024 * 1024
"""Stop reading an error or non-SSE body after this many bytes (what was read is recorded)."""
_HEAD = 512

Sink = Callable[[bytes, float], None]
Clock = Callable[[], float]


class RecordWriter(Protocol):
    """What :func:`stream_attempt` records to
    (:class:`~inspector.core.capture.reader.CaptureWriter`)."""

    def request(self, attempt: int, method: str, url: str, headers: Headers | None,
                body: Any, t: float = 0.0) -> None: ...  # fmt: skip
    def response(self, attempt: int, status: int, headers: Headers | None, t: float) -> None: ...
    def chunk(self, attempt: int, t: float, data: bytes) -> None: ...
    def end(self, attempt: int, t: float, reason: str, error: str | None = None) -> None: ...


class MirroredWriter:
    """A RecordWriter that writes the capture (if any) and mirrors each record into a core
    :class:`Attempt` (the one an Analysis shows), so live views see what loading the capture
    would give. ``on_response`` is called once the response record is written; ``secrets``
    (the key) are redacted from the mirrored records as the writer redacts its own."""

    def __init__(
        self,
        writer: CaptureWriter | None,
        source: Attempt,
        on_response: Callable[[], None] | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.writer, self.source, self.on_response = writer, source, on_response
        self.secrets = secrets

    def request(self, attempt: int, method: str, url: str, headers: Headers | None,
                body: Any, t: float = 0.0) -> None:  # fmt: skip
        if self.writer is not None:
            self.writer.request(attempt, method, url, headers, body, t)
        self.source.request = {"type": "request", "attempt": attempt, "t": t, "method": method,
                               "url": redact_url(url, self.secrets),
                               "headers": redact_headers(headers, self.secrets),
                               "body": redact_body(body, self.secrets)}  # fmt: skip

    def response(self, attempt: int, status: int, headers: Headers | None, t: float) -> None:
        if self.writer is not None:
            self.writer.response(attempt, status, headers, t)
        self.source.response = {"type": "response", "attempt": attempt, "t": t,
                                "status": status,
                                "headers": redact_headers(headers, self.secrets)}  # fmt: skip
        if self.on_response is not None:
            self.on_response()

    def chunk(self, attempt: int, t: float, data: bytes) -> None:
        if self.writer is not None:
            self.writer.chunk(attempt, t, data)
        self.source.chunks.append((t, data))

    def end(self, attempt: int, t: float, reason: str, error: str | None = None) -> None:
        if self.writer is not None:
            self.writer.end(attempt, t, reason, error)
        self.source.end = {"type": "end", "attempt": attempt, "t": t, "reason": reason,
                           "error": error}  # fmt: skip


@dataclass
class AttemptOutcome:
    """How one physical request went. A returned outcome has ``error`` None; the outcome
    attached to a raised LiveError (``exc.outcome``) carries that error."""

    attempt: int
    status: int | None = None
    """HTTP status, None when no response arrived."""
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers (credentials redacted)."""
    bytes: int = 0
    """Body bytes received (and recorded)."""
    duration: float = 0.0
    """Seconds from sending the request to the end of the attempt."""
    error: LiveError | None = None
    ended_by: str = "eof"
    """eof | error | timeout | cancelled (the capture's end reason)."""


def is_sse(content_type: str | None) -> bool:
    """True for text/event-stream, for a content type a provider's framing proves its own
    (Bedrock's ``application/vnd.amazon.eventstream``), and for a missing content-type
    (nothing says otherwise)."""
    if content_type is None:
        return True
    bare = content_type.split(";")[0].strip().lower()
    return bare == "text/event-stream" or _framed(bare)


@functools.cache
def _framed(content_type: str) -> bool:
    return recognise(REGISTRY, Head(), content_type) is not None


def map_httpx_error(exc: Exception, url: str, received: int, *, connect_timeout: float,
                    read_timeout: float) -> LiveError:  # fmt: skip
    """The LiveError for an httpx exception (the most specific class wins)."""
    msg = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectTimeout):
        return ConnectTimeout(url, connect_timeout)
    if isinstance(exc, httpx.ReadTimeout):
        return ReadTimeout(read_timeout, received)
    if isinstance(exc, httpx.TimeoutException):
        return TimeoutError_(f"{type(exc).__name__} talking to {redact_url(url)}", read_timeout)
    if isinstance(exc, httpx.ConnectError | httpx.UnsupportedProtocol | httpx.ProxyError |
                  httpx.InvalidURL):  # fmt: skip
        return ConnectError(f"cannot connect to {redact_url(url)}: {msg}")
    if isinstance(exc, httpx.NetworkError | httpx.RemoteProtocolError):
        return StreamBroken(msg, received)
    return LiveError(f"{type(exc).__name__} talking to {redact_url(url)}: {msg}")


async def stream_attempt(
    client: httpx.AsyncClient,
    spec: RequestSpec,
    key: str | None,
    *,
    attempt: int,
    writer: RecordWriter | None,
    sink: Sink,
    clock: Clock = time.monotonic,
    read_timeout: float = 60.0,
    connect_timeout: float = 10.0,
    deadline: float | None = None,
) -> AttemptOutcome:
    """Send ``spec`` once and stream its body into ``writer`` and ``sink`` (see module doc).

    ``deadline`` (a ``clock()`` value) bounds the whole attempt: passing it raises
    :class:`BudgetExhausted`. Raises LiveError subclasses, or CancelledError when cancelled.
    """
    t0 = clock()
    out = AttemptOutcome(attempt)
    headers = httpx.Headers(spec.headers)
    headers.setdefault("accept-encoding", "identity")
    headers.update(spec.key_headers(key))
    if writer is not None:
        args = (attempt, spec.method, spec.url, headers.multi_items(), spec.body, 0.0)
        if is_large(spec.body):  # hundreds of MB written: in a worker, the loop serves on
            await in_worker(writer.request, *args)
        else:
            writer.request(*args)
    budget = None if deadline is None else max(0.0, deadline - t0)
    loop_deadline = None if budget is None else asyncio.get_running_loop().time() + budget
    error: LiveError | None = None
    try:
        async with asyncio.timeout_at(loop_deadline):
            await _exchange(client, spec, headers, out, writer, sink, lambda: clock() - t0,
                            read_timeout, connect_timeout)  # fmt: skip
    except LiveError as exc:
        error = exc
    except TimeoutError:  # only the budget's own timeout reaches here
        error = BudgetExhausted(budget or 0.0, out.bytes)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        error = map_httpx_error(exc, spec.url, out.bytes, connect_timeout=connect_timeout,
                                read_timeout=read_timeout)  # fmt: skip
    except asyncio.CancelledError:
        _finish(writer, out, clock() - t0, "cancelled", "cancelled")
        raise
    except BaseException as exc:
        with contextlib.suppress(OSError):  # the capture itself may be what failed
            _finish(writer, out, clock() - t0, "error", f"internal error: {type(exc).__name__}")
        raise
    if error is None:
        _finish(writer, out, clock() - t0, "eof", None)
        return out
    reason = "timeout" if isinstance(error, TimeoutError_) else "error"
    _finish(writer, out, clock() - t0, reason, str(error))
    out.error, error.outcome = error, out
    raise error


def is_large(body: object) -> bool:
    """Is ``body`` a large request body, written in pieces off the loop
    (:class:`~inspector.core.capture.redaction.RedactedBody`)?"""
    return isinstance(body, RedactedBody) and body.large


async def _in_pieces(body: object) -> AsyncIterator[bytes]:
    """A large body's JSON, a piece at a time (a transport that reads it; the proxy's does
    not: its agent's own body was forwarded)."""
    assert isinstance(body, RedactedBody)
    for piece in body.in_pieces():
        yield piece


async def in_worker(function: Callable[..., None], *args: Any) -> None:
    """Run ``function(*args)`` in a worker thread and wait for it. Cancelled meanwhile, it
    still waits for the worker to finish before it raises: whatever the function writes to
    is never used by two threads at once."""
    task = asyncio.ensure_future(asyncio.to_thread(function, *args))
    cancelled = False
    while True:
        try:
            await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            if task.done():
                break
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    task.result()


def _raw_chunks(response: httpx.Response) -> AsyncGenerator[bytes, None]:
    """The body as it comes off the wire (a body already in memory, as MockTransport's bytes
    content is, comes as one chunk)."""
    if response.is_stream_consumed:

        async def whole() -> AsyncGenerator[bytes, None]:
            yield response.content

        return whole()
    return cast(AsyncGenerator[bytes, None], response.aiter_raw())


def _finish(writer: RecordWriter | None, out: AttemptOutcome, t: float, reason: str,
            error: str | None) -> None:  # fmt: skip
    out.duration, out.ended_by = t, reason
    if writer is not None:
        writer.end(out.attempt, t, reason, error)


async def _exchange(
    client: httpx.AsyncClient,
    spec: RequestSpec,
    headers: httpx.Headers,
    out: AttemptOutcome,
    writer: RecordWriter | None,
    sink: Sink,
    now: Clock,
    read_timeout: float,
    connect_timeout: float,
) -> None:
    """Request, response record, body chunks; raises on a non-2xx or non-SSE answer."""
    timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
    content: bytes | AsyncIterator[bytes] = (
        _in_pieces(spec.body) if is_large(spec.body) else orjson.dumps(spec.body)
    )
    # Signed now, after the capture recorded the headers: never written.
    if spec.aws_region and isinstance(content, bytes):
        headers.update(signature(spec.method, spec.url, headers, content, spec.aws_region))
    async with client.stream(spec.method, spec.url, headers=headers, content=content,
                             timeout=timeout) as response:  # fmt: skip
        out.status = response.status_code
        out.headers = redact_headers(response.headers.multi_items())
        if writer is not None:
            writer.response(out.attempt, out.status, response.headers.multi_items(), now())
        ctype = response.headers.get("content-type")
        failed = not 200 <= out.status < 300
        plain = failed or not is_sse(ctype)
        kept = bytearray()
        chunks = _raw_chunks(response)
        try:
            while True:
                try:
                    async with asyncio.timeout(read_timeout):
                        data = await anext(chunks)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    raise ReadTimeout(read_timeout, out.bytes) from None
                if not data:
                    continue
                t = now()
                out.bytes += len(data)
                if writer is not None:
                    writer.chunk(out.attempt, t, data)
                sink(data, t)
                if plain:
                    kept += data if failed else data[: max(0, _HEAD - len(kept))]
                    if out.bytes >= MAX_NON_SSE_BODY:
                        break
        finally:
            await chunks.aclose()
    if failed:
        raise ProviderHTTPError(
            out.status,
            spec.url,
            bytes(kept),
            response.reason_phrase,
            response.headers.get("retry-after"),
            REGISTRY.get(spec.dialect) if spec.dialect and spec.dialect in REGISTRY else None,
        )
    if plain:
        raise NotSSEError(ctype, bytes(kept))
