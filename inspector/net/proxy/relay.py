"""The upstream's response relayed to the agent as it arrives, and a decoded copy for judging.

Invariants:
- Each chunk read from the upstream is written to the agent before anything else is done with
  it (recording and judging come after, on the session's side): the agent gets the body
  exactly as received, encoded bodies included, chunk by chunk, with nothing held back.
- The session reads the body through :class:`RelayTransport` (the transport of the httpx
  client a :class:`~inspector.net.runner.SessionRunner` is given): it sees the upstream's
  status and headers as received and the body with its Content-Encoding undone (a copy); it
  never writes to the agent.
- How the relay ended (:class:`Ending`) decides what the agent gets last: a clean end of body
  only when the upstream's body ended cleanly, written at once (the agent never waits for the
  recording to close); otherwise (the upstream reset or stalled, the session was stopped) the
  agent's connection is cut with a TCP reset, never a clean end.
  When the agent goes away first, the upstream request is dropped (``AGENT_GONE``).
- If the session stops reading early without failing (it reads at most
  :data:`~inspector.net.client.MAX_NON_SSE_BODY` of a body that is no stream), the rest is
  still relayed to the agent, unrecorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import AsyncIterator
from enum import StrEnum
from typing import Any

import httpx
from aiohttp import web

# The decoders httpx itself uses (the project pins httpx < 0.29): gzip, deflate, br, zstd.
from httpx._decoders import SUPPORTED_DECODERS, ContentDecoder, IdentityDecoder, MultiDecoder
from multidict import CIMultiDict

from .routes import end_to_end


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

    def __init__(
        self, agent: web.Request, upstream: httpx.AsyncClient, outgoing: httpx.Request
    ) -> None:
        self.agent, self.upstream, self.outgoing = agent, upstream, outgoing
        self.response: web.StreamResponse | None = None
        """The agent's response, once the upstream's status and headers were sent on."""
        self.status: int | None = None
        """The upstream's status, once it answered."""
        self.relayed = 0
        """Body bytes written to the agent (as received: encoded, when it was)."""
        self.ending = Ending.OPEN
        self.opened = False
        """The upstream's answer was taken (by a recording session, or to forward it)."""
        self.settled = asyncio.Event()
        """Set once the agent has had all it will get from the relay: the whole body, a cut,
        or nothing (no answer: the proxy answers for the upstream)."""
        self._sending: asyncio.Task[httpx.Response] | None = None
        self._upstream_response: httpx.Response | None = None
        self._raw: AsyncIterator[bytes] | None = None

    def send(self) -> None:
        """Send the request upstream now, as its own task (:meth:`open` takes the answer): the
        agent's request leaves before anything is set up to record it."""
        if self._sending is None:
            self._sending = asyncio.ensure_future(self.upstream.send(self.outgoing, stream=True))

    async def open(self) -> httpx.Response:
        """The upstream's answer (sending the request if :meth:`send` did not yet); once its
        status and headers are in, they go on to the agent. Raises httpx errors (no answer)
        or :class:`AgentGone`."""
        self.opened = True
        self.send()
        assert self._sending is not None
        try:
            response = await self._sending
        except BaseException:
            self.settled.set()  # no answer: the agent's answer is the proxy's own
            raise
        self._upstream_response, self.status = response, response.status_code
        self._raw = response.aiter_raw()
        headers = CIMultiDict(end_to_end(response.headers.multi_items()))
        reason = response.reason_phrase or None
        self.response = web.StreamResponse(status=self.status, reason=reason, headers=headers)
        try:
            await self.response.prepare(self.agent)
        except ConnectionError:
            self._settle(Ending.AGENT_GONE)
            await self.close()
            raise AgentGone("the agent disconnected") from None
        except BaseException:
            self._broken()
            await self.close()
            raise
        return response

    async def _write(self, raw: bytes) -> None:
        assert self.response is not None
        try:
            await self.response.write(raw)
        except ConnectionError:
            self._settle(Ending.AGENT_GONE)
            raise AgentGone("the agent disconnected") from None
        self.relayed += len(raw)

    async def chunks(self) -> AsyncIterator[bytes]:
        """The upstream's body as received, each chunk written to the agent first; the
        agent's body ends the moment the upstream's does (recording may still be closing)."""
        assert self._raw is not None
        try:
            async for raw in self._raw:
                await self._write(raw)
                yield raw
        except GeneratorExit:
            raise  # the reader stopped early: drain() relays the rest
        except BaseException:
            self._broken()
            raise
        await self._complete()

    async def drain(self) -> None:
        """Relay whatever is left of the body (nothing when it ended or broke, or while the
        task is being cancelled); raises nothing of the upstream's: a break is ``BROKEN``."""
        task = asyncio.current_task()
        if self.ending is not Ending.OPEN or self._raw is None or (task and task.cancelling()):
            return
        try:
            async for raw in self._raw:
                await self._write(raw)
        except httpx.HTTPError:
            self._broken()
            return
        except BaseException:
            self._broken()
            raise
        await self._complete()

    async def _complete(self) -> None:
        """The upstream's body ended cleanly: so does the agent's, at once."""
        assert self.response is not None
        try:
            await self.response.write_eof()
        except ConnectionError:
            self._settle(Ending.AGENT_GONE)
            return
        self._settle(Ending.COMPLETE)

    def abandon(self) -> None:
        """The exchange is cancelled from outside (the agent went away, the proxy stops):
        settle as such, and cut the agent unless the whole body was sent."""
        self._broken()
        self.finish()

    def _broken(self) -> None:
        """The relay stopped before the end: the agent went away (its connection is closing:
        the exchange was cancelled for it), or the upstream side broke off."""
        transport = self.agent.transport
        gone = transport is None or transport.is_closing()
        self._settle(Ending.AGENT_GONE if gone else Ending.BROKEN)

    def _settle(self, ending: Ending) -> None:
        if self.ending is Ending.OPEN:
            self.ending = ending
        self.settled.set()

    async def close(self) -> None:
        """Release the upstream connection (dropped unless its body was read to the end), or
        drop the request if its answer was never taken."""
        sending = self._sending
        if self._upstream_response is None and sending is not None:
            if not sending.done():
                sending.cancel()
            with contextlib.suppress(BaseException):
                self._upstream_response = await sending
        if self._upstream_response is not None:
            await self._upstream_response.aclose()

    def finish(self) -> None:
        """The agent's last word when the relay did not end cleanly: a cut (a clean end was
        written the moment the upstream's body ended)."""
        if self.response is not None and self.ending is not Ending.COMPLETE:
            cut(self.agent)


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
    """The body a session reads: the relay's chunks, decoded; closing it before the end
    relays the rest to the agent, then releases the upstream connection."""

    def __init__(self, relay: Relay, decoder: ContentDecoder) -> None:
        self._relay, self._decoder = relay, decoder
        self._decoding = True

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for raw in self._relay.chunks():
            data = self._decode(raw)
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
        try:
            await self._relay.drain()
        finally:
            await self._relay.close()


class RelayTransport(httpx.AsyncBaseTransport):
    """What a session's httpx client sends through: whatever request the session builds,
    the relay's own request goes upstream (the agent's, as received), and the session gets
    the upstream's response with a decoded copy of its body."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        upstream = await self.relay.open()
        extensions: dict[str, Any] = {
            k: upstream.extensions[k]
            for k in ("http_version", "reason_phrase")
            if k in upstream.extensions
        }
        body = _DecodedBody(self.relay, decoder_for(upstream.headers))
        return httpx.Response(
            upstream.status_code, headers=upstream.headers, stream=body, extensions=extensions
        )
