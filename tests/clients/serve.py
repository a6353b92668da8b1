"""A loopback HTTP server that answers any request with one stream's exact bytes.

``async with replay_server(stream) as base_url:`` serves ``stream`` (a
:class:`~clients.streams.Stream` or a :class:`Reply`) on ``http://127.0.0.1:PORT`` for any
method and path, as often as it is asked, until the block ends.

Invariants:
- The reply is the stream's final attempt as recorded (:func:`reply_of`): its status, its
  response headers (less the ones that describe the old connection: ``transfer-encoding``,
  ``content-length``, ``connection``, ``keep-alive``, ``date``, ``server``; aiohttp writes
  its own framing, and a recorded ``content-length`` is kept when it is the body's length),
  then each recorded chunk in one write, in order, with no delay. A raw ``.sse`` body is
  ``200 text/event-stream`` in one chunk. A reply without a Content-Type goes out as
  aiohttp's ``application/octet-stream`` (none is in the corpus).
- How the body ends follows the capture's ``end`` record: a clean end, or, when the body
  itself ended with a transport error (an ``end`` whose reason is not ``eof`` on a 2xx event
  stream: a reset, a timeout), a TCP reset (``SO_LINGER`` 0, then abort) after the recorded
  chunks, as the demo provider's ``fault-reset`` does. An HTTP error status or a body that is
  no event stream was read whole before the inspector judged it: it ends cleanly. An attempt
  with no response at all is a reset before any header.
- The server keeps no state between requests but :attr:`ReplayServer.requests` (method, path
  and query, body) for tests.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from aiohttp import web

from clients.streams import SSE, Stream
from inspector.core.providers import BEDROCK_CONVERSE
from inspector.core.providers.bedrock_converse.eventstream import event_frame
from inspector.net.client import is_sse

EVENTSTREAM = "application/vnd.amazon.eventstream"


def _frames(body: bytes) -> tuple[bytes, ...]:
    """A Bedrock fixture's JSON lines (``{"<event type>": payload}`` each, README of
    ``../shared/fixtures/realworld``) as the binary frames the real wire carries, one a write:
    ``:event-type`` the line's key, the payload its value."""
    frames = []
    for line in body.splitlines():
        if line.strip():
            ((kind, payload),) = json.loads(line).items()
            frames.append(event_frame(kind, json.dumps(payload).encode()))
    return tuple(frames)


DROPPED = frozenset(
    {"transfer-encoding", "content-length", "connection", "keep-alive", "date", "server"}
)
"""Response headers that described the recorded connection, not the response."""
RESET_PAUSE = 0.05
"""Seconds between the last chunk and a reset (the demo's own gap), so the chunks arrive."""


@dataclass(frozen=True)
class Reply:
    """What the server answers: a recorded response."""

    status: int | None
    """None: no response (the connection is reset before any header)."""
    headers: tuple[tuple[str, str], ...] = ()
    chunks: tuple[bytes, ...] = ()
    reset: bool = False
    """End with a TCP reset after the chunks (the body ended with a transport error)."""
    content_length: int | None = None
    """The recorded Content-Length, when it is the body's length."""


def reply_of(stream: Stream) -> Reply:
    """The final attempt of ``stream`` as a :class:`Reply` (see the module's invariants)."""
    source = stream.source
    chunks = tuple(data for _, data in source.chunks)
    if stream.capture.kind == "raw-sse" and stream.dialect == BEDROCK_CONVERSE:
        return Reply(200, (("content-type", EVENTSTREAM),), _frames(b"".join(chunks)))
    if stream.capture.kind == "raw-sse":
        return Reply(200, (("content-type", SSE),), chunks)
    if source.response is None:
        return Reply(None, reset=True)
    pairs = tuple((str(k), str(v)) for k, v in (source.response.get("headers") or {}).items())
    status = int(source.response["status"])
    ctype = next((v for k, v in pairs if k.lower() == "content-type"), None)
    ended = (source.end or {}).get("reason", "eof")
    reset = ended != "eof" and 200 <= status < 300 and is_sse(ctype)
    length = next((v for k, v in pairs if k.lower() == "content-length"), None)
    whole = not reset and length is not None and length == str(sum(len(c) for c in chunks))
    headers = tuple((k, v) for k, v in pairs if k.lower() not in DROPPED)
    return Reply(status, headers, chunks, reset, int(length) if whole and length else None)


@dataclass
class ReplayServer:
    """The server behind :func:`replay_server`."""

    reply: Reply
    requests: list[tuple[str, str, bytes]] = field(default_factory=list)
    """Every request seen: (method, path with query, body)."""
    _runner: web.AppRunner | None = None

    async def start(self) -> str:
        """Listen on a free loopback port; the base URL."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._answer)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        return f"http://{host}:{port}"

    async def stop(self) -> None:
        """Close the listener and every connection."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        self.requests.append((request.method, request.path_qs, await request.read()))
        reply = self.reply
        if reply.status is None:
            _reset(request)
            raise asyncio.CancelledError  # nothing to answer: the connection is gone
        response = web.StreamResponse(status=reply.status)
        for name, value in reply.headers:
            response.headers.add(name, value)
        if reply.content_length is not None:
            response.content_length = reply.content_length
        await response.prepare(request)
        for chunk in reply.chunks:
            await response.write(chunk)
        if reply.reset:
            await asyncio.sleep(RESET_PAUSE)
            _reset(request)
            return response
        await response.write_eof()
        return response


def _reset(request: web.Request) -> None:
    """Abort the connection with SO_LINGER 0: the peer gets a TCP RST, not a FIN."""
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


@asynccontextmanager
async def replay_server(what: Stream | Reply) -> AsyncIterator[str]:
    """Serve ``what`` on loopback for the block; yields the base URL (no trailing slash)."""
    async with replay(what) as (url, _):
        yield url


@asynccontextmanager
async def replay(what: Stream | Reply) -> AsyncIterator[tuple[str, ReplayServer]]:
    """As :func:`replay_server`, with the server (its :attr:`~ReplayServer.requests`)."""
    server = ReplayServer(what if isinstance(what, Reply) else reply_of(what))
    try:
        yield await server.start(), server
    finally:
        await server.stop()
