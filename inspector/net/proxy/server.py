"""The recording proxy: an HTTP server in front of one upstream that forwards every request
and records each LLM exchange as a judged session.

Flow of a request: its body is read whole, its :class:`~.routes.Route` decided (LLM endpoint
or not), an :class:`~.exchange.Exchange` numbered, and the request forwarded as received by a
:class:`~.relay.Relay`, which relays the response to the agent as it arrives. A body larger
than :data:`~.routes.INLINE_BODY` is forwarded before it is parsed: reading and redacting it
happen in a worker thread, in short steps, once the upstream has it. An LLM exchange
is recorded beside it by a :class:`~.exchange.ProxySession` (a
:class:`~inspector.net.runner.SessionRunner` whose client reads the relay's decoded copy of
the body), set up once the agent has had the body's first piece (or after
:data:`SETUP_DELAY` when the upstream is slower): creating the capture and the session never
delays the first byte. The relay keeps what arrives meanwhile, so the capture still holds
every byte, each with the time the proxy received it. Any other request is only forwarded.

Invariants:
- asyncio + aiohttp + httpx only (no Qt): it runs on any loop, the window's qasync loop too.
- The proxy's own work never holds the loop that serves agents for long: a large request
  body is parsed, redacted and recorded in worker threads, each step short enough (about a
  millisecond of the interpreter) that other exchanges are served between them.
- The agent's credentials are forwarded and never written: the session records redacted
  copies (the request's secrets are redacted from the URL, headers and body it is given, and
  the capture writer redacts by name and by value).
- No answer from the upstream (unreachable, refused, timing out before its headers): the agent
  gets a 502 whose JSON body is in the dialect's error shape (:meth:`Route.error_body`), and
  the capture's end record says why. A capture that cannot be written never blocks the
  agent: the request is then forwarded unrecorded and the exchange says why.
- :meth:`RecordingProxy.stop` cancels every exchange in flight, draining ones included (each
  capture gets every byte received, then its ``cancelled`` end record, and is closed), then
  closes the listener and the upstream client. The proxy's own stop never drains.
- The verdict of a session is the stream's, not the agent's socket: an agent that hangs up
  after the provider's end marker leaves an ``eof`` capture, judged ``accepted``. An agent
  that hangs up earlier leaves its upstream read on to the end (:class:`~.relay.Drain`: on by
  default, bounded by bytes and seconds), with an ``agent_left`` event where it left, so the
  capture and the clients judge the whole stream.
- An exchange is listed (``on_start``) when its recording is set up, or at once when it is
  only forwarded; it ends (``on_end``) once its agent has had its answer and its capture is
  closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import httpx
import orjson
from aiohttp import web

from inspector.core.analysis.session import Analysis
from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import DEFAULT_MODE, HEADER_TIMEOUT, Settings, ValidationMode
from inspector.core.capture.claim import discard_claim
from inspector.core.capture.redaction import mask_secrets
from inspector.core.capture.writer import new_capture_path
from inspector.core.providers import REGISTRY
from inspector.core.verdicts.tools import ToolRegistry, listed_tools

from ..bodyworker import WorkerFailed
from ..client import map_httpx_error
from ..policy import LoopSettings
from .body import RelayTransport, decoded
from .client import UpstreamClient
from .deadline import DeadlineSite
from .exchange import Exchange, ProxySession
from .relay import DRAIN, Drain, Ending, Relay
from .routes import INLINE_BODY, Route, Upstream

BAD_GATEWAY: Final = 502
REGISTRIES_KEPT: Final = 16
"""Tool registries kept for reuse (one per distinct set of tools an agent offers)."""
MAX_REQUEST_BODY: Final = 512 * 1024 * 1024
"""The largest request body forwarded (read whole before it is sent on)."""

SETUP_DELAY: Final = 0.05
"""Seconds an LLM exchange's recording waits for the agent to have the body's first piece
before it is set up anyway (an upstream that takes longer has it ready well before then)."""

SETUP_GRACE: Final = 0.01
"""Seconds more it waits after that first piece: the moments around the first byte are when
the agent and the upstream are busiest, and the set-up's burst of work would compete with
them for the CPU."""

Listener = Callable[[Exchange], None]


class NotRecorded(InspectorError, ValueError):
    """Why an LLM exchange is forwarded without a recording (one line)."""


class RecordingProxy:
    """One proxy: a listening address in front of one upstream (see the module docstring)."""

    def __init__(
        self,
        upstream: str,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        captures: str | Path | None = None,
        validation: ValidationMode = DEFAULT_MODE,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        drain: Drain = DRAIN,
        header_timeout: float = HEADER_TIMEOUT,
        on_start: Listener | None = None,
        on_update: Listener | None = None,
        on_end: Listener | None = None,
    ) -> None:
        """``captures``: the folder each LLM exchange's capture is written to (None: judged,
        not written). ``drain``: whether (and how far) an upstream is read on once its agent
        left. ``header_timeout``: seconds a request's headers may take to arrive (from its
        first byte, or from the connection's opening for its first request; :mod:`.deadline`).
        ``on_start``/``on_end`` are called once per exchange, ``on_update`` whenever its
        session has something new (a chunk: often)."""
        self.upstream = Upstream.parse(upstream)
        self.host, self.port = host, port
        self.captures = Path(captures) if captures is not None else None
        self.settings = LoopSettings(
            retry=False,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            tool_argument_validation=validation,
        )
        self.drain = drain
        self.header_timeout = header_timeout
        self.on_start, self.on_update, self.on_end = on_start, on_update, on_end
        self.exchanges: list[Exchange] = []
        """Every request so far, in arrival order."""
        self.origin = ""
        """``http://HOST:PORT`` once started."""
        self._runner: web.AppRunner | None = None
        self._client: UpstreamClient | None = None
        self._in_flight: dict[asyncio.Task[object], Exchange] = {}
        """Handlers answering an agent, and their exchanges."""
        self._recordings: set[asyncio.Task[None]] = set()
        self._ending: set[Exchange] = set()
        """Exchanges whose clients are being judged, not yet said to have ended."""
        """Sessions still recording (a capture closes after its agent's answer ended)."""
        self._registries: dict[bytes, ToolRegistry] = {}
        """Tool registries by the tools they were made from (:meth:`_analysis`)."""
        self._draining: set[Relay] = set()
        """Relays still reading an upstream whose agent left."""
        self._stopping = False

    # -- lifecycle --------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._runner is not None

    @property
    def agent_url(self) -> str:
        """The base URL to give the agent (empty before :meth:`start`)."""
        return self.upstream.agent_url(self.origin) if self.origin else ""

    async def start(self) -> str:
        """Listen; returns the agent's base URL. OSError when the address is taken."""
        if self._runner is not None:
            return self.agent_url
        s = self.settings
        self._client = UpstreamClient(self.upstream, connect_timeout=s.connect_timeout,
                                      read_timeout=s.read_timeout)  # fmt: skip
        await self._client.open()
        app = web.Application(client_max_size=MAX_REQUEST_BODY)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(
            app,
            access_log=None,
            handler_cancellation=True,  # an agent that goes away cancels its exchange
            auto_decompress=False,  # request bodies are forwarded exactly as received
            shutdown_timeout=1.0,
        )
        await runner.setup()
        try:
            site = DeadlineSite(runner, self.host, self.port, seconds=self.header_timeout)
            await site.start()
        except BaseException:
            await runner.cleanup()
            await self._client.close()
            raise
        self._runner = runner
        host, port = runner.addresses[0][:2]
        self.port = port
        self.origin = f"http://{host if ':' not in host else f'[{host}]'}:{port}"
        return self.agent_url

    async def stop(self) -> None:
        """Cancel the exchanges in flight (their captures end ``cancelled``), stop listening
        and close the upstream client; calling it again does nothing."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._stopping = True
        for relay in list(self._draining):
            relay.abandon(stopping=True)
        tasks = list(self._in_flight)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        while self._recordings:  # a recording that closes starts the judging of its clients
            await asyncio.gather(*list(self._recordings), return_exceptions=True)
        await runner.cleanup()
        if self._client is not None:
            await self._client.close()

    # -- one request -------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        parts = await _body(request)
        headers = [(k, v) for k, v in request.headers.items()]
        method, path = request.method, request.raw_path
        if sum(map(len, parts)) > INLINE_BODY:  # forwarded first, read in a worker
            route = Route.large(self.upstream, method, path, headers, parts)
        else:
            body = b"".join(parts)
            plain = decoded(body, httpx.Headers(headers)) if body else body
            route = Route.of(self.upstream, method, path, headers, body, plain)
        ex = Exchange(len(self.exchanges) + 1, route.method, route.path, route.dialect,
                      route.model if route.dialect else None, secrets=route.secrets)  # fmt: skip
        self.exchanges.append(ex)
        task = asyncio.current_task()
        assert task is not None
        self._in_flight[task] = ex
        assert self._client is not None
        relay = Relay(request, self._client, route, recorded=route.dialect is not None,
                      drain=self.drain)  # fmt: skip
        relay.start()  # forwarding first: whatever else there is to do is done after
        recording = None
        if route.dialect is not None:
            recording = self._keep(asyncio.ensure_future(self._recording(relay, route, ex)))
        else:
            self._tell(self.on_start, ex)
        try:
            return await self._answer(relay, route, ex)
        finally:
            del self._in_flight[task]
            if recording is None or recording.done():
                self._ended(ex)  # else when its recording has closed (_recording)

    async def _recording(self, relay: Relay, route: Route, ex: Exchange) -> None:
        """Record an LLM exchange beside its relay, which answers the agent on its own: once
        the agent has had the body's first piece (or the upstream is slow to send one), set
        up the session and its capture, then run it over the relay's copy of the body to its
        end (its capture closed). The exchange has ended once its agent has had its answer
        too. A large body is read (parsed, redacted) first, in a worker thread, once the
        upstream has it: the agent's request and every other exchange go on meanwhile."""
        if route.pending:
            await relay.settled(None, SETUP_GRACE)  # the upstream has the body by then
            route = await asyncio.to_thread(_read_body, route, self.captures)
            ex.secrets, ex.dialect = route.secrets, route.dialect
            ex.model = mask_secrets(route.model, route.secrets) if route.model else None
            if route.dialect is None:  # no JSON object after all: forwarded only
                relay.detach()
                self._tell(self.on_start, ex)
                if ex not in self._in_flight.values():
                    self._ended(ex)
                return
        else:
            await relay.settled(SETUP_DELAY, SETUP_GRACE)
        try:
            session, client = await self._session(relay, route, ex)
        except (InspectorError, ValueError) as exc:  # never block the agent for a capture
            relay.detach()
            await asyncio.to_thread(_let_go, route)
            ex.note = f"not recorded: {exc}"
            self._tell(self.on_start, ex)
            if ex not in self._in_flight.values():
                self._ended(ex)
            return
        ex.session = session
        self._tell(self.on_start, ex)
        try:
            await session.run()
        except Exception as exc:  # a bug while recording: the agent is served regardless
            ex.note = f"recording stopped: internal error: {type(exc).__name__}: {exc}"
        finally:
            relay.detach()
            await client.aclose()
            if relay.response is not None:  # else the proxy's own 502 says it all
                ex.size, ex.ending, ex.drained = relay.relayed, relay.ending, relay.drained
            if relay.left_at is not None:
                ex.note = _left_note(relay)
            if session.error is not None and ex.note is None:
                ex.note = str(session.error)
            failed = session.writer.failed if session.writer is not None else None
            if failed is not None and ex.note is None:  # the stream was judged to its end
                ex.note = f"recording stopped: {failed}"
            try:
                await asyncio.to_thread(_let_go, route)
            finally:
                if ex not in self._in_flight.values():
                    self._ended(ex)

    async def _session(
        self, relay: Relay, route: Route, ex: Exchange
    ) -> tuple[ProxySession, httpx.AsyncClient]:
        """The session recording ``route`` from ``relay``, and its client (to close); raises
        what stops it from recording (a capture that cannot be created, a refused request)."""
        assert route.dialect is not None
        try:  # a file created off the loop: the file system may take its time
            name = ex.model or route.dialect
            path = await asyncio.to_thread(self._capture_path, name, route.secrets)
        except (InspectorError, OSError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise NotRecorded(f"cannot create a capture in {self.captures}: {why}") from None
        meta = {"source": "proxy", "upstream": self.upstream.shown(), "proxy": self.origin}
        holder: list[ProxySession] = []
        transport = RelayTransport(
            relay,
            on_left=lambda marker: holder[0].agent_left(marker),
            complete=lambda: bool(holder) and holder[0].complete(),
        )
        client = httpx.AsyncClient(transport=transport, trust_env=False)
        news = lambda: self._tell(self.on_update, ex)  # noqa: E731
        try:
            session = ProxySession(route.spec(), dialect=route.dialect, settings=self.settings,
                                   capture_path=path, analysis=self._analysis(route),
                                   key=route.key, meta=meta, client=client, on_update=news,
                                   clock=relay.clock, secrets=route.secrets)  # fmt: skip
        except BaseException:
            await client.aclose()
            if path is not None:
                discard_claim(path)  # never written: no pending capture left behind
            raise
        holder.append(session)
        return session, client

    async def _answer(self, relay: Relay, route: Route, ex: Exchange) -> web.StreamResponse:
        """Wait for the relay to give the agent all it will get; a 502 when the upstream gave
        no answer."""
        pump = relay.pump
        assert pump is not None
        try:
            await asyncio.shield(pump)
        except asyncio.CancelledError:  # the agent went away, or the proxy stops
            relay.abandon(stopping=self._stopping)
            if not pump.done():  # draining: stop() may still have to end it
                self._draining.add(relay)
                pump.add_done_callback(lambda _: self._draining.discard(relay))
            raise
        finally:
            ex.status, ex.size, ex.ending = relay.status, relay.relayed, relay.ending
        if relay.response is None:
            s = self.settings
            error = map_httpx_error(relay.error or RuntimeError("no answer"), route.shown_url, 0,
                                    connect_timeout=s.connect_timeout,
                                    read_timeout=s.read_timeout)  # fmt: skip
            return self._bad_gateway(route, ex, str(error))
        if relay.left_at is not None and ex.note is None:
            ex.note = _left_note(relay)
        return relay.response

    def _keep(self, task: asyncio.Task[None]) -> asyncio.Task[None]:
        """Hold ``task`` until it is done (:meth:`stop` awaits what is left)."""
        self._recordings.add(task)
        task.add_done_callback(self._recordings.discard)
        return task

    def _ended(self, ex: Exchange) -> None:
        """The agent has had its answer and the recording has closed: judge the clients off
        the loop (the replicas take ~0.25 ms per event: a second for a long stream, which on
        the loop would hold up every agent the proxy serves), then say the exchange ended."""
        if ex.ended or ex in self._ending:
            return
        self._ending.add(ex)
        self._keep(asyncio.ensure_future(self._judge(ex)))

    async def _judge(self, ex: Exchange) -> None:
        try:
            if ex.recorded:
                await asyncio.to_thread(ex.judge_clients)
        except Exception as exc:  # a replica's bug: the exchange still ends, and says so
            ex.note = ex.note or f"clients not judged: internal error: {type(exc).__name__}"
        finally:
            self._ending.discard(ex)
            ex.ended = True
            self._tell(self.on_end, ex)

    def _analysis(self, route: Route) -> Analysis:
        """A fresh Analysis judged against the request's tools, whose registry is shared by
        every request offering the same tools (checking their schemas takes milliseconds,
        and an agent sends the same tools with every request)."""
        assert route.dialect is not None
        key, request = route.tools_key(), route.request or {}
        registry = None
        if key is not None:
            registry = self._registries.pop(key, None) or ToolRegistry.from_definitions(
                listed_tools(request), REGISTRY
            )
            self._registries[key] = registry  # the most recent last
            while len(self._registries) > REGISTRIES_KEPT:
                del self._registries[next(iter(self._registries))]
        validation = self.settings.tool_argument_validation
        settings = Settings(dialect=route.dialect, validation=validation)
        return Analysis(settings, registry, providers=REGISTRY)

    def _capture_path(self, name: str, secrets: tuple[str, ...]) -> Path | None:
        """A new capture file in the captures folder (None: not recording to files), never
        named after a secret."""
        if self.captures is None:
            return None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return new_capture_path(self.captures, stamp, "proxy", name, secrets=secrets)

    def _bad_gateway(self, route: Route, ex: Exchange, why: str) -> web.Response:
        """The agent's answer when the upstream gave none: 502, in the dialect's shape."""
        why = mask_secrets(why, route.secrets)
        message = f"toolcall-inspector proxy: no answer from {self.upstream.shown()}: {why}"
        ex.status, ex.note = BAD_GATEWAY, why
        body = orjson.dumps(route.error_body(BAD_GATEWAY, message))
        ex.size = len(body)
        return web.Response(status=BAD_GATEWAY, body=body, content_type="application/json")

    @staticmethod
    def _tell(listener: Listener | None, ex: Exchange) -> None:
        if listener is not None:
            listener(ex)


async def _body(request: web.Request) -> list[bytes]:
    """The request's body as the reads it came in (never joined here: a large one is joined
    in a worker); 413 past :data:`MAX_REQUEST_BODY`, as aiohttp's own ``read`` answers."""
    parts: list[bytes] = []
    size = 0
    while chunk := await request.content.readany():
        size += len(chunk)
        if size > MAX_REQUEST_BODY:
            raise web.HTTPRequestEntityTooLarge(max_size=MAX_REQUEST_BODY, actual_size=size)
        parts.append(chunk)
    return parts


def _read_body(route: Route, folder: Path | None = None) -> Route:
    """A pending route's body read in the body worker's process (:meth:`Route.read_apart`):
    nothing of it holds this process's interpreter. Where the worker cannot run, read here
    instead (:func:`_read_body_here`): recorded all the same. Run in a worker thread."""
    try:
        return route.read_apart(folder)
    except WorkerFailed:
        return _read_body_here(route)


def _read_body_here(route: Route) -> Route:
    """A pending route's body read in this process (:meth:`Route.read`), its
    Content-Encoding undone first (zlib lets other threads run while it inflates): run in a
    worker thread.

    The cyclic garbage collector is paused meanwhile and what exists then is frozen after
    (``gc.freeze``): a body of 400,000 small messages is millions of objects, and every full
    collection while they are made, or later while the exchange lists them, scans them all
    holding the interpreter (1.4-2 s steps measured). Reference counting frees them as
    usual when the exchange goes."""
    with _collector_paused():
        body = route.joined()
        if route.encoded:
            body = decoded(bytes(body), httpx.Headers(route.received)) or b""
        read = route.read(body)
        gc.freeze()
    return read


_PAUSES = [0]
"""Large bodies being read now."""
_WAS_ON = [True]
"""Whether the collector was on when the first of them began."""
_PAUSE_LOCK = threading.Lock()


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic collector off while any large body is being read (then as it was)."""
    with _PAUSE_LOCK:
        if _PAUSES[0] == 0:
            _WAS_ON[0] = gc.isenabled()
            gc.disable()
        _PAUSES[0] += 1
    try:
        yield
    finally:
        with _PAUSE_LOCK:
            _PAUSES[0] -= 1
            if _PAUSES[0] == 0 and _WAS_ON[0]:
                gc.enable()


def _let_go(route: Route) -> None:
    """Close a large body's JSON file (:meth:`Route.read_apart`) once its capture has it, or
    will never: the file has no name, so closing it frees its space. In a worker thread: the
    system frees 200 MB of pages inside ``close`` (65 ms measured), which on the loop would
    hold every agent up."""
    if route.recorded is not None and route.recorded.json is not None:
        route.recorded.json.close()


def _left_note(relay: Relay) -> str:
    """Where the agent left and what the proxy did about it, in one line."""
    note = f"the agent disconnected after {relay.left_at} bytes"
    if relay.ending is Ending.DRAINED:
        return f"{note}; the upstream was read on to its end ({relay.drained} bytes more)"
    if relay.drained:
        return f"{note}; {relay.drained} bytes more read from the upstream, then dropped"
    return note
