"""The upstream's response relayed to the agent as it arrives, and a decoded copy for judging.

A :class:`Relay` runs one exchange's pump, a task of its own: it sends the agent's request
upstream (:class:`~.client.UpstreamClient`), sends the answer's status and headers on to the
agent, then the body the moment it arrives: each read takes whatever the upstream has sent
since the last one (one chunk when the relay keeps up, all those waiting when it fell behind),
never waiting for more. Each piece written is queued for the recording session, which reads
that queue through :class:`RelayTransport` (the transport of the httpx client a
:class:`~inspector.net.runner.SessionRunner` is given): it sees the upstream's status and
headers as received and the body with its Content-Encoding undone (a copy).

Invariants:
- The agent never waits for the recording: setting up a capture, writing it, judging and
  closing it all happen on the session's side of the queue. The agent gets the body exactly
  as received, encoded bodies included, each piece written before the next read.
- How the relay ended (:class:`Ending`) decides what the agent gets last: a clean end of body
  only when the upstream's body ended cleanly; otherwise (the upstream reset or stalled, the
  proxy stopped) the agent's connection is cut with a TCP reset, never a clean end. When the
  agent goes away first, the upstream request is dropped (``AGENT_GONE``) and its connection
  closed; only a connection whose body ended cleanly goes back to the pool.
- The session reads exactly what the agent was sent, ended the same way: the upstream's own
  error (so it records a reset as a reset), or :class:`AgentGone` (a cancelled session).
  Once it stops reading (:meth:`Relay.detach`), nothing more is queued.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import time
from collections.abc import AsyncIterator
from enum import StrEnum
from typing import Any

import aiohttp
import httpx
from aiohttp import web

# The decoders httpx itself uses (the project pins httpx < 0.29): gzip, deflate, br, zstd.
from httpx._decoders import SUPPORTED_DECODERS, ContentDecoder, IdentityDecoder, MultiDecoder
from multidict import CIMultiDict

from .client import Answer, UpstreamClient, answer_of, as_httpx
from .routes import Route, end_to_end

Item = bytes | BaseException | None
"""What the session reads: body bytes, the error that ended the body, or None (a clean end)."""


class Ending(StrEnum):
    """How a relay ended (``open`` while it has not)."""

    OPEN = "open"
    COMPLETE = "complete"
    """The upstream's body ended cleanly, and so does the agent's."""
    BROKEN = "broken"
    """The upstream broke off (reset, timeout) or the session stopped: the agent is cut."""
    AGENT_GONE = "agent_gone"
    """The agent disconnected: the upstream request was dropped."""


class AgentGone(asyncio.CancelledError):
    """The agent's connection closed: what was relaying stops as a cancelled session does."""


def decoder_for(headers: httpx.Headers) -> ContentDecoder:
    """A decoder undoing ``headers``' Content-Encoding (unknown codings pass through)."""
    found = [
        SUPPORTED_DECODERS[value.strip().lower()]()
        for value in headers.get_list("content-encoding", split_commas=True)
        if value.strip().lower() in SUPPORTED_DECODERS
    ]
    if not found:
        return IdentityDecoder()
    return found[0] if len(found) == 1 else MultiDecoder(children=found)


def decoded(body: bytes, headers: httpx.Headers) -> bytes | None:
    """``body`` with its Content-Encoding undone, or None when it cannot be."""
    decoder = decoder_for(headers)
    try:
        return decoder.decode(body) + decoder.flush()
    except httpx.DecodingError:
        return None


class Relay:
    """One upstream exchange relayed to one agent request (see the module docstring)."""

    def __init__(self, agent: web.Request, upstream: UpstreamClient, route: Route,
                 *, recorded: bool = True) -> None:  # fmt: skip
        """``recorded``: queue the body for a session (else it is only relayed)."""
        self.agent, self.upstream, self.route = agent, upstream, route
        self.response: web.StreamResponse | None = None
        """The agent's response, once the upstream's status and headers were sent on."""
        self.status: int | None = None
        """The upstream's status, once it answered."""
        self.relayed = 0
        """Body bytes written to the agent (as received: encoded, when it was)."""
        self.ending = Ending.OPEN
        self.error: httpx.TransportError | None = None
        """The upstream's error when it gave no answer, or broke off mid-body."""
        self.pump: asyncio.Task[None] | None = None
        """The task relaying the exchange (:meth:`start`); it ends when the agent has had
        everything it will get."""
        loop = asyncio.get_running_loop()
        self._head: asyncio.Future[Answer] = loop.create_future()
        self._head.add_done_callback(_seen)  # a forward-only relay never asks for it
        self._settled: asyncio.Future[None] = loop.create_future()
        """Done once the agent has had the body's first piece, or will get none."""
        self._queue: asyncio.Queue[tuple[Item, float]] | None = (
            asyncio.Queue() if recorded else None
        )
        self._held: list[tuple[Item, float]] = []
        """The body's end, taken from the queue with the bytes before it (:meth:`queued`)."""
        self._answered = self._now = time.monotonic()

    def start(self) -> asyncio.Task[None]:
        """Send the request upstream and relay the answer, as a task of its own."""
        if self.pump is None:
            self.pump = asyncio.ensure_future(self._run())
        return self.pump

    def clock(self) -> float:
        """The recording session's clock: when what it is reading happened. From the request's
        sending (so its ``t`` 0) until it reads the answer, then the answer's arrival, then
        the arrival of the last piece it was handed (:meth:`queued`): the capture holds the
        times the proxy received its bytes, however late the session reads them."""
        return self._now

    async def settled(self, delay: float, grace: float) -> None:
        """Wait until the agent has had the body's first piece or will get none, then
        ``grace`` seconds more (the agent reading it, the upstream sending the next ones), or
        for ``delay`` seconds when the upstream takes longer (never raises)."""
        await asyncio.wait((self._settled,), timeout=delay)
        if self._settled.done():
            await asyncio.sleep(grace)

    async def head(self) -> Answer:
        """The upstream's answer (status and headers); raises its error when it gave none."""
        try:
            return await asyncio.shield(self._head)
        finally:
            self._now = self._answered

    async def queued(self) -> Item:
        """The next item for the session: the bytes received since it last asked (chunks
        waiting are joined: a session that fell behind catches up in one step), the error
        that ended the body, or None at its clean end."""
        queue = self._queue
        assert queue is not None
        item, self._now = self._held.pop() if self._held else await queue.get()
        if not isinstance(item, bytes) or queue.empty():
            return item
        parts = [item]
        while not queue.empty():
            more, at = queue.get_nowait()
            if not isinstance(more, bytes):
                self._held.append((more, at))  # the end comes after these bytes
                break
            parts.append(more)
            self._now = at
        return b"".join(parts)

    def detach(self) -> None:
        """The session stopped reading: queue nothing more (the agent still gets it all)."""
        self._queue = None

    def _put(self, item: Item, at: float | None = None) -> None:
        """Queue ``item`` for the session, received at ``at`` (now, unless given)."""
        if self._queue is not None:
            self._queue.put_nowait((item, time.monotonic() if at is None else at))

    async def _run(self) -> None:
        self._now = time.monotonic()  # the request leaves: its t 0
        try:
            response = await self.upstream.send(self.route)
        except httpx.TransportError as exc:  # no answer: the agent's answer is the proxy's own
            self._answered = time.monotonic()
            self.error = exc
            self._head.set_exception(exc)
            self._settle()
            return
        except BaseException:
            self._answered = time.monotonic()
            self._head.cancel()
            self._settle()
            raise
        self._answered = time.monotonic()
        self._head.set_result(answer_of(response))
        self.status = response.status
        try:
            await self._relay(response)
        finally:
            if self.ending is Ending.COMPLETE:
                response.release()  # its connection goes back to the pool
            else:
                response.close()  # dropped: the upstream sees its request cancelled
            self._settle()

    def _settle(self) -> None:
        if not self._settled.done():
            self._settled.set_result(None)

    async def _relay(self, upstream: aiohttp.ClientResponse) -> None:
        headers = CIMultiDict(end_to_end(upstream.headers.items()))
        response = web.StreamResponse(status=upstream.status, reason=upstream.reason or None,
                                      headers=headers)  # fmt: skip
        self.response = response
        body, put = upstream.content, self._put
        try:
            await response.prepare(self.agent)
            while True:
                try:
                    data = await body.readany()  # what has arrived, never waiting for more
                except (aiohttp.ClientError, TimeoutError) as exc:
                    raise as_httpx(exc, answered=True) from exc
                if not data:
                    break
                at = time.monotonic()
                await response.write(data)
                self.relayed += len(data)
                put(data, at)
                self._settle()
            await response.write_eof()
        except ConnectionError:  # the agent's side: its connection closed
            self._end(Ending.AGENT_GONE, AgentGone("the agent disconnected"))
        except httpx.TransportError as exc:  # the upstream's side: a reset, a timeout
            self.error = exc
            self._end(Ending.BROKEN, exc)
        except asyncio.CancelledError:  # the agent went away, or the proxy stops
            self._end(self._gone(), AgentGone("the exchange was stopped"))
            raise
        except BaseException as exc:  # a bug: the session still gets an end, the agent is cut
            self._end(Ending.BROKEN, exc)
            raise
        else:
            self.ending = Ending.COMPLETE
            self._put(None)

    def _gone(self) -> Ending:
        transport = self.agent.transport
        return Ending.AGENT_GONE if transport is None or transport.is_closing() else Ending.BROKEN

    def _end(self, ending: Ending, error: BaseException) -> None:
        """The body stopped short: the session is told why, the agent is cut."""
        self.ending = ending
        self._put(error)
        cut(self.agent)


def _seen(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def cut(request: web.Request) -> None:
    """Abort the agent's connection with a TCP reset (SO_LINGER 0), as a broken upstream
    connection ends: the agent sees the body cut off, never a clean end."""
    transport = request.transport
    if transport is None or transport.is_closing():
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


class _DecodedBody(httpx.AsyncByteStream):
    """The body a session reads: the relay's queued chunks, decoded, ended as the agent's
    was; closing it detaches the session from the relay."""

    def __init__(self, relay: Relay, decoder: ContentDecoder) -> None:
        self._relay, self._decoder = relay, decoder
        self._decoding = True

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            item = await self._relay.queued()
            if item is None:
                break
            if isinstance(item, BaseException):
                raise item
            data = self._decode(item)
            if data:
                yield data
        tail = self._flush()
        if tail:
            yield tail

    def _decode(self, raw: bytes) -> bytes:
        if not self._decoding:
            return raw
        try:
            return self._decoder.decode(raw)
        except httpx.DecodingError:  # judged as received from here on; relayed regardless
            self._decoding = False
            return raw

    def _flush(self) -> bytes:
        if not self._decoding:
            return b""
        try:
            return self._decoder.flush()
        except httpx.DecodingError:
            return b""

    async def aclose(self) -> None:
        self._relay.detach()


class RelayTransport(httpx.AsyncBaseTransport):
    """What a session's httpx client sends through: whatever request the session builds,
    the relay's own request went upstream (the agent's, as received), and the session gets
    the upstream's answer with a decoded copy of its body."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        answer = await self.relay.head()
        headers = httpx.Headers(answer.headers)
        extensions: dict[str, Any] = {"http_version": answer.http_version.encode("ascii")}
        if answer.reason is not None:
            extensions["reason_phrase"] = answer.reason.encode("ascii", "replace")
        body = _DecodedBody(self.relay, decoder_for(headers))
        return httpx.Response(answer.status, headers=headers, stream=body, extensions=extensions)
