"""Recording proxies in the window (Live ▸ Proxy…): the controller that runs them and opens
their sessions (the dock that shows them is :mod:`.dock`; the controller makes no widget).

Invariants:
- Proxies run on the window's qasync loop (:class:`~inspector.net.proxy.RecordingProxy`),
  any number at once, each in front of its own upstream. Every task is kept until it
  finishes; :meth:`ProxyController.aclose` stops every proxy (each capture in flight gets its
  ``cancelled`` end record) and awaits them, so nothing outlives the window.
- The session list hears about exchanges through ``exchanges_changed``, at most four times a
  second while proxies run (never per chunk): the proxies' callbacks only mark it stale.
- A proxied LLM exchange opens like a live session: while its body arrives the document
  follows its Analysis (live lanes); when it ends, the document becomes the replay of its
  capture. Its Analysis is an ordinary one, so every view (the client replicas too) reads it.
- Nothing here holds a key: exchanges list redacted paths, and an upstream URL that carries
  credentials is never remembered in QSettings.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QDockWidget

from inspector.core.base.settings import HEADER_TIMEOUT
from inspector.core.capture.redaction import redact_url
from inspector.net.proxy import Drain, Exchange, ProxyError, RecordingProxy, parse_listen
from inspector.ui.document.host import Host
from inspector.ui.live import live

LISTEN = "127.0.0.1:0"
"""The panel's listen address: any free loopback port (the CLI's fixed 8766 is often taken by
a proxy already running; the base URL to give the agent is shown and copied)."""
FLUSH_MS = 250
"""How often the session list is brought up to date while proxies run."""


class ProxyController(QObject):
    """Starts and stops the window's proxies, lists their exchanges, opens them."""

    proxies_changed = Signal()
    """A proxy started or stopped (:attr:`proxies` changed)."""
    exchanges_changed = Signal()
    """New exchanges, or news of listed ones (throttled: see the module docstring)."""
    failed = Signal(str)
    """A proxy could not start: one line."""

    def __init__(self, host: Host, demo: Callable[[], Awaitable[str]] | None = None) -> None:
        """``demo``: starts the window's demo provider (once) and gives its base URL."""
        super().__init__(host.window())
        self.host = host
        self.demo = demo
        self.proxies: list[RecordingProxy] = []
        """Running proxies, in the order they started."""
        self.exchanges: list[Exchange] = []
        """Every exchange of every proxy, in arrival order (the list shows newest first)."""
        self.owner: dict[int, RecordingProxy] = {}
        """id(exchange) -> the proxy it came through."""
        self.shown: Exchange | None = None
        """The exchange last opened in the document."""
        self.dock: QDockWidget | None = None
        """The Proxy dock, once Live ▸ Proxy… opened it (:func:`.dock.show_dock`)."""
        self._stale = False
        self._timer = QTimer(self)
        self._timer.setObjectName("proxy-list-flush")
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self._flush)
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- proxies -------------------------------------------------------------------------------

    def start(self, upstream: str, listen: str = LISTEN, *, drain: bool = True,
              header_timeout: float = HEADER_TIMEOUT) -> bool:  # fmt: skip
        """Start a proxy in front of ``upstream`` on ``listen``; False (and ``failed``) when
        either cannot be used. Listening happens on the loop: a taken address is reported
        through ``failed`` too. ``drain``: read an upstream on once its agent hung up early
        (bounded: :class:`~inspector.net.proxy.Drain`). ``header_timeout``: seconds a
        request's headers may take to arrive (``proxy --header-timeout``)."""
        try:
            host, port = parse_listen(listen)
            proxy = RecordingProxy(upstream, host=host, port=port, captures=live.captures_dir(),
                                   validation=self.host.doc.settings.validation,
                                   drain=Drain(on=drain),
                                   header_timeout=header_timeout)  # fmt: skip
        except (ProxyError, OSError) as exc:
            self.failed.emit(f"Cannot start the proxy: {exc}")
            return False
        proxy.on_start = lambda ex: self._arrived(proxy, ex)
        proxy.on_update = lambda _ex: self._mark()
        proxy.on_end = self._ended
        self._spawn(self._listen(proxy, listen))
        return True

    def start_demo(self, listen: str = LISTEN, *, drain: bool = True,
                   header_timeout: float = HEADER_TIMEOUT) -> None:  # fmt: skip
        """Start a proxy in front of the window's built-in demo provider (no key needed),
        started first if it is not running yet (``demo``: how the window starts it)."""
        if self.demo is None:
            self.failed.emit("The built-in demo provider is not available here")
            return

        async def go() -> None:
            assert self.demo is not None
            try:
                url = await self.demo()
            except OSError as exc:
                self.failed.emit(f"Cannot start the demo provider: {exc.strerror or exc}")
                return
            self.start(url, listen, drain=drain, header_timeout=header_timeout)

        self._spawn(go())

    async def _listen(self, proxy: RecordingProxy, listen: str) -> None:
        try:
            await proxy.start()
        except OSError as exc:
            self.failed.emit(f"Cannot listen on {listen}: {exc.strerror or exc}")
            return
        self.proxies.append(proxy)
        self._timer.start()
        self.host.statusBar().showMessage(
            f"Proxy on {proxy.agent_url} → {proxy.upstream.shown()}: give the agent "
            f"{proxy.agent_url} as its base URL"
        )
        remembered = redact_url(proxy.upstream.base) == proxy.upstream.base  # no credentials
        if remembered:
            self.host.settings.setValue("proxy_upstream", proxy.upstream.base)
        self.proxies_changed.emit()

    def stop(self, proxy: RecordingProxy) -> None:
        """Stop one proxy: what is in flight is cancelled (its capture ends ``cancelled``)."""
        if proxy in self.proxies:
            self.proxies.remove(proxy)
            self._spawn(proxy.stop())
            self.proxies_changed.emit()

    def stop_all(self) -> None:
        """Stop every proxy (the window is closing); :meth:`aclose` awaits them."""
        for proxy in list(self.proxies):
            self.stop(proxy)
        self._timer.stop()

    async def aclose(self) -> None:
        """Stop every proxy and await every task."""
        self.stop_all()
        tasks = list(self._tasks)
        await asyncio.gather(*tasks, return_exceptions=True)
        self._timer.stop()

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- exchanges -----------------------------------------------------------------------------

    def _arrived(self, proxy: RecordingProxy, ex: Exchange) -> None:
        self.exchanges.append(ex)
        self.owner[id(ex)] = proxy
        self._mark()

    def _mark(self) -> None:
        self._stale = True

    def _ended(self, ex: Exchange) -> None:
        self._stale = True
        doc = self.host.doc
        if ex is self.shown and ex.analysis is not None and doc.analysis is ex.analysis:
            doc.stop_live_view(ex.capture_path)

    def _flush(self) -> None:
        if self._stale:
            self._stale = False
            self.exchanges_changed.emit()
        if not self.proxies and not self._tasks:
            self._timer.stop()

    def open(self, ex: Exchange) -> None:
        """Show ``ex`` in the document: live lanes while it streams, its capture once it has
        ended; a forwarded-only request is described on the status line."""
        w = self.host
        if ex.analysis is None:
            w.statusBar().showMessage(f"{ex.line()} — forwarded, not recorded (not an LLM call)")
            return
        self.shown = ex
        name = f"proxy: {ex.method} {ex.path} · {ex.model or ex.dialect}"
        if not ex.ended:
            w.doc.attach_live(ex.analysis, name)
        elif ex.capture_path is not None:
            w.open(ex.capture_path, remember=False)
        else:  # judged but not written: shown as it stands
            w.doc.attach_live(ex.analysis, name)
            w.doc.stop_live_view(None)
        w.statusBar().showMessage(ex.line())
