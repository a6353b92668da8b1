"""The upstream's response relayed to the agent as it arrives, and a decoded copy for judging.

A :class:`Relay` runs one exchange's pump, a task of its own: it sends the agent's request
upstream (:class:`~.client.UpstreamClient`), sends the answer's status and headers on to the
agent, then the body the moment it arrives: each read takes whatever the upstream has sent
since the last one (one chunk when the relay keeps up, all those waiting when it fell behind),
never waiting for more. Each piece written is queued for the recording session, which reads
that queue through :class:`~.body.RelayTransport` (the transport of the httpx client a
:class:`~inspector.net.runner.SessionRunner` is given): it sees the upstream's status and
headers as received and the body with its Content-Encoding undone (a copy).

Invariants:
- The agent never waits for the recording: setting up a capture, writing it, judging and
  closing it all happen on the session's side of the queue. The agent gets the body exactly
  as received, encoded bodies included, each piece written before the next read.
- How the relay ended (:class:`Ending`) decides what the agent gets last: a clean end of body
  only when the upstream's body ended cleanly; otherwise (the upstream reset or stalled, the
  proxy stopped) the agent's connection is cut with a TCP reset, never a clean end. When the
  agent goes away first, the relay keeps reading the upstream to its end (``DRAINED``), so
  the recording holds the whole stream, the point where the agent left marked in it
  (:data:`AGENT_LEFT`, queued between the last bytes the agent was sent and the first it
  was not); bounded by :class:`Drain` (bytes and seconds), and never when draining is off or
  the proxy itself stops the exchange (:meth:`Relay.abandon`): then the upstream request is
  dropped (``AGENT_GONE``) and its connection closed. Only a connection whose body ended
  cleanly goes back to the pool.
- The session reads what the upstream sent, ended the same way: the upstream's own error (so
  it records a reset as a reset), a clean end (drained to it), or :class:`AgentGone` (a
  session cut short). Once it stops reading (:meth:`Relay.detach`), nothing more is queued.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

import aiohttp
import httpx
from aiohttp import web
from multidict import CIMultiDict

from inspector.core.base.settings import DRAIN_BYTES, DRAIN_SECONDS

from ..listen import reset
from .client import Answer, UpstreamClient, answer_of, as_httpx
from .routes import Route, end_to_end


class AgentLeft:
    """The marker queued where the agent left: what came before it was sent to the agent,
    what follows was drained from the upstream for the recording only."""

    __slots__ = ("relayed",)

    def __init__(self, relayed: int) -> None:
        self.relayed = relayed
        """Body bytes the agent had been sent (as received: encoded, when it was)."""


Item = bytes | BaseException | AgentLeft | None
"""What the session reads: body bytes, the error that ended the body, the point where the
agent left, or None (a clean end)."""


@dataclass(frozen=True)
class Drain:
    """Whether, and how far, an upstream is read to its end once its agent left."""

    on: bool = True
    seconds: float = DRAIN_SECONDS
    bytes: int = DRAIN_BYTES

    def describe(self) -> str:
        """``up to 60 s and 64 MiB``, or ``off``."""
        if not self.on:
            return "off"
        return f"up to {self.seconds:g} s and {self.bytes / (1024 * 1024):g} MiB"


DRAIN: Final = Drain()
"""The default: drain, up to :data:`DRAIN_SECONDS` and :data:`DRAIN_BYTES`."""


class Ending(StrEnum):
    """How a relay ended (``open`` while it has not)."""

    OPEN = "open"
    COMPLETE = "complete"
    """The upstream's body ended cleanly, and so does the agent's."""
    BROKEN = "broken"
    """The upstream broke off (reset, timeout) or the session stopped: the agent is cut."""
    AGENT_GONE = "agent_gone"
    """The agent disconnected: the upstream request was dropped (draining off, over its
    bounds, or the proxy stopping)."""
    DRAINED = "drained"
    """The agent disconnected; the upstream's body was read on to its clean end."""


class AgentGone(asyncio.CancelledError):
    """The agent's connection closed: what was relaying stops as a cancelled session does."""


class _DrainOver(Exception):
    """Draining reached its bound (the message says which)."""


class _Dropped(ConnectionError):
    """The agent left and draining is off: the upstream request is dropped."""


class Relay:
    """One upstream exchange relayed to one agent request (see the module docstring)."""

    def __init__(self, agent: web.Request, upstream: UpstreamClient, route: Route,
                 *, recorded: bool = True, drain: Drain = DRAIN) -> None:  # fmt: skip
        """``recorded``: queue the body for a session (else it is only relayed, and never
        drained). ``drain``: what happens once the agent left."""
        self.agent, self.upstream, self.route = agent, upstream, route
        self.drain = drain if recorded else Drain(on=False)
        self.left_at: int | None = None
        """Body bytes the agent had been sent when it left (None while it is there)."""
        self.drained = 0
        """Body bytes read from the upstream after the agent left."""
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
        self._drain_deadline: float | None = None

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

    async def settled(self, delay: float | None, grace: float) -> None:
        """Wait until the agent has had the body's first piece or will get none, then
        ``grace`` seconds more (the agent reading it, the upstream sending the next ones), or
        for ``delay`` seconds when the upstream takes longer (None: however long it takes;
        never raises)."""
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

    def abandon(self, *, stopping: bool) -> None:
        """The agent's handler was cancelled: the agent went away (``stopping`` False) or the
        proxy stops. Drain when asked to and the agent left; else drop the upstream request."""
        pump = self.pump
        if pump is None or pump.done():
            return
        if not stopping:
            self._left()
        if stopping or not self.drain.on or self._queue is None:
            pump.cancel()

    def _left(self) -> None:
        """The agent is gone: mark the place once, cut its connection, write no more."""
        if self.left_at is None:
            self.left_at = self.relayed
            self._put(AgentLeft(self.relayed))
            reset(self.agent)

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
            if self.ending in (Ending.COMPLETE, Ending.DRAINED):
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
        put = self._put
        try:
            try:
                await response.prepare(self.agent)
            except ConnectionError:
                self._agent_gone()
            while True:
                data = await self._read(upstream)
                if not data:
                    break
                at = time.monotonic()
                if self.left_at is None:
                    try:
                        await response.write(data)
                    except ConnectionError:  # the agent's side: its connection closed
                        self._agent_gone()
                    else:
                        self.relayed += len(data)
                if self.left_at is not None:
                    self.drained += len(data)
                put(data, at)
                self._settle()
                if self.left_at is not None and self.drained >= self.drain.bytes:
                    raise _DrainOver(f"{self.drained} bytes drained (the limit)")
            if self.left_at is None:
                await response.write_eof()
        except _Dropped:  # the agent left and draining is off
            self._end(Ending.AGENT_GONE, AgentGone("the agent disconnected"))
        except _DrainOver as over:
            self._end(Ending.AGENT_GONE, AgentGone(f"the agent disconnected; {over}"))
        except ConnectionError:  # the agent left as its body ended: it was sent every byte
            self.ending = Ending.COMPLETE
            self._put(None)
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
            self.ending = Ending.COMPLETE if self.left_at is None else Ending.DRAINED
            self._put(None)

    async def _read(self, upstream: aiohttp.ClientResponse) -> bytes:
        """What has arrived from the upstream, never waiting for more; once the agent left,
        waiting no longer than the drain's time left."""
        try:
            if self.left_at is None:
                return await upstream.content.readany()
            left = self._drain_until - time.monotonic()
            if left <= 0:
                raise _DrainOver(f"drained for {self.drain.seconds:g} s (the limit)")
            try:
                return await asyncio.wait_for(upstream.content.readany(), left)
            except TimeoutError:
                raise _DrainOver(f"drained for {self.drain.seconds:g} s (the limit)") from None
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise as_httpx(exc, answered=True) from exc

    def _agent_gone(self) -> None:
        """A write to the agent failed: drain (when on), else stop as a cancelled exchange."""
        self._left()
        if not self.drain.on or self._queue is None:
            raise _Dropped

    @property
    def _drain_until(self) -> float:
        if self._drain_deadline is None:
            self._drain_deadline = time.monotonic() + self.drain.seconds
        return self._drain_deadline

    def _gone(self) -> Ending:
        transport = self.agent.transport
        return Ending.AGENT_GONE if transport is None or transport.is_closing() else Ending.BROKEN

    def _end(self, ending: Ending, error: BaseException) -> None:
        """The body stopped short: the session is told why, the agent is cut."""
        self.ending = ending
        self._put(error)
        reset(self.agent)


def _seen(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
