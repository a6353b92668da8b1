"""The header read timeout: a connection whose request headers take too long is closed.

aiohttp's server has no such timeout of its own: a client that trickles its headers a byte at
a time holds the socket (and a file descriptor) until its keep-alive timer ends, if that is
set at all. Each connection's protocol (aiohttp's ``RequestHandler``) is wrapped by a
:class:`HeaderDeadline`, which forwards every event to it and keeps one timer:

- armed when the connection opens, and when the first bytes of a later request arrive on a
  connection that was between requests;
- disarmed as soon as aiohttp has parsed a request's headers (the request is then the
  proxy's to answer, however long its body or its answer take);
- when it fires with the headers still incomplete, the client is sent ``408 Request
  Timeout`` if it sent part of them, and the connection is closed.

A kept-alive connection that sends nothing is left to aiohttp's keep-alive timeout: only a
request that has begun, or a connection's first one, is timed. Reads ``RequestHandler``'s
``_request_count`` and ``_current_request`` (present in every aiohttp 3 release; a test with a
real trickling socket guards them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiohttp import web


def _response() -> bytes:
    text = b"toolcall-inspector proxy: the request headers took too long\n"
    head = (
        b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Length: "
    )
    return head + str(len(text)).encode() + b"\r\n\r\n" + text


class HeaderDeadline(asyncio.Protocol):
    """One connection's protocol with a header read deadline (see the module docstring)."""

    def __init__(self, inner: asyncio.Protocol, seconds: float) -> None:
        self.inner, self.seconds = inner, seconds
        self.transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._count = 0
        """Requests whose headers had been parsed when the timer was armed."""
        self._partial = False
        """Bytes of the timed request arrived (a 408 is sent, not a bare close)."""

    # -- the events, forwarded -------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.inner.connection_made(transport)
        self._arm(partial=False)

    def data_received(self, data: bytes) -> None:
        before = self._parsed()
        idle = self._timer is None and self._between_requests()
        self.inner.data_received(data)
        if self._parsed() > before:
            self._disarm()
        elif idle:  # the first bytes of a later request
            self._arm(partial=True)
        elif self._timer is not None:
            self._partial = True

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    # -- the timer -------------------------------------------------------------------------

    def _parsed(self) -> int:
        count: int = getattr(self.inner, "_request_count", 0)
        return count

    def _between_requests(self) -> bool:
        return getattr(self.inner, "_current_request", None) is None

    def _arm(self, *, partial: bool) -> None:
        self._disarm()
        self._count, self._partial = self._parsed(), partial
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.seconds, self._expired)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if self._parsed() > self._count or not self._between_requests():
            return  # its headers came in meanwhile: the request is being answered
        if self._partial:
            transport.write(_response())
        transport.close()


def deadline_factory(server: Callable[[], Any], seconds: float) -> Callable[[], HeaderDeadline]:
    """A protocol factory for ``loop.create_server``: aiohttp's ``server`` (an
    ``AppRunner.server``), each connection's protocol given a header read deadline."""
    return lambda: HeaderDeadline(server(), seconds)


class DeadlineSite(web.TCPSite):
    """A TCP site whose connections have a header read deadline of ``seconds``: aiohttp's
    own ``TCPSite.start`` with the protocol factory wrapped (it takes no factory of ours)."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, *, seconds: float) -> None:
        super().__init__(runner, host, port)
        self.seconds = seconds

    async def start(self) -> None:
        await web.BaseSite.start(self)  # registers the site with its runner
        server = self._runner.server
        assert server is not None
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            deadline_factory(server, self.seconds),
            self._host,
            self._port,
            reuse_address=self._reuse_address,
            reuse_port=self._reuse_port,
            backlog=self._backlog,
        )
        sockets = self._server.sockets
        self._bound_port = sockets[0].getsockname()[1] if sockets else self._port
