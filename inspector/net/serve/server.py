"""The loopback server that answers a capture's recorded exchanges as a provider.

Which attempt answers which request: **in order**. The n-th request gets the n-th recorded
attempt, and after the last the order starts again from the first. Matching by the request
was rejected: a retry sends the very request its first attempt sent (``demo-truncated-then-
valid``, a client's own retry of a 5xx), so only order tells the two answers apart, and a
client's request differs from the recorded one in what the inspector must not care about (a
user agent, a key, a reordered header). Starting again lets the same script or test run twice
against one server. A request on another path than the recorded one is answered all the
same, and noted in :attr:`CaptureServer.served`.

Invariants:
- asyncio + aiohttp.web only (no Qt): :meth:`CaptureServer.start` runs on whatever loop runs.
- Each recorded chunk is one ``write``, at ``t / speed`` seconds after the request arrived
  (no waits at all when ``speed`` is None); the head at its recorded time likewise.
- :meth:`CaptureServer.stop` is idempotent and prompt: streams still waiting are cut and
  every connection is closed; nothing (task, socket) is left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from aiohttp import web

from inspector.core.capture.records import Capture
from inspector.net.listen import listen, reset
from inspector.net.serve.plan import Reply, Speed, replies_of

RESET_PAUSE: Final = 0.05
"""Seconds between the last chunk and a reset, so the chunks arrive before it."""


@dataclass(frozen=True)
class Served:
    """One request the server answered: which attempt, and where it was asked."""

    attempt: int
    method: str
    path: str
    body: bytes
    recorded_path: str

    @property
    def other_path(self) -> bool:
        """Asked on another path than the recorded one (answered all the same)."""
        return bool(self.recorded_path) and self.path != self.recorded_path


class CaptureServer:
    """Serve ``capture``'s attempts in order on ``host:port`` (0: the OS picks a free port)."""

    def __init__(
        self, capture: Capture, *, speed: Speed = 1.0, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.replies: list[Reply] = replies_of(capture)
        self.speed = speed
        self.host = host
        self.port = port
        self.url = ""
        """``http://HOST:PORT`` once started (the bound port when ``port`` was 0)."""
        self.served: list[Served] = []
        """Every request answered, in arrival order."""
        self.on_served: Callable[[Served, Reply], None] | None = None
        """Called with each request as it is answered (the command line prints them)."""
        self._runner: web.AppRunner | None = None
        self._stopping = asyncio.Event()

    @property
    def running(self) -> bool:
        return self._runner is not None

    async def start(self) -> str:
        """Listen and return the URL; calling it again returns the same URL."""
        if self._runner is not None:
            return self.url
        self._stopping = asyncio.Event()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._answer)
        self._runner, self.port, self.url = await listen(app, self.host, self.port, 1.0)
        return self.url

    async def stop(self) -> None:
        """Close the listener and every connection; safe to call twice or before start."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._stopping.set()
        await runner.cleanup()

    def next_reply(self) -> Reply:
        """The reply for the next request (see the module docstring: in order, then again)."""
        return self.replies[len(self.served) % len(self.replies)]

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        loop = asyncio.get_running_loop()
        start = loop.time()
        body = await request.read()
        reply = self.next_reply()
        served = Served(reply.attempt, request.method, request.path_qs, body, reply.path)
        self.served.append(served)
        if self.on_served is not None:
            self.on_served(served, reply)
        if reply.status is None:
            await self._until(start, reply.head_at)
            reset(request)
            raise asyncio.CancelledError  # nothing to answer: the connection is gone
        response = web.StreamResponse(status=reply.status)
        for name, value in reply.headers:
            response.headers.add(name, value)
        if reply.sized:
            response.content_length = len(reply.body)
        await self._until(start, reply.head_at)
        with contextlib.suppress(ConnectionError):  # the client left: nothing more to send it
            await self._send(request, response, reply, start)
        return response

    async def _send(
        self, request: web.Request, response: web.StreamResponse, reply: Reply, start: float
    ) -> None:
        await response.prepare(request)
        for t, chunk in reply.chunks:
            if not await self._until(start, t):
                reset(request)
                return
            await response.write(chunk)
        if reply.reset:
            await asyncio.sleep(RESET_PAUSE)
            reset(request)
            return
        await response.write_eof()

    async def _until(self, start: float, t: float) -> bool:
        """Wait until ``t / speed`` seconds after ``start``; False when stopping instead."""
        if self._stopping.is_set():
            return False
        if self.speed is None:
            return True
        delay = start + t / self.speed - asyncio.get_running_loop().time()
        if delay <= 0:
            return True
        try:
            await asyncio.wait_for(self._stopping.wait(), delay)
        except TimeoutError:
            return True
        return False
