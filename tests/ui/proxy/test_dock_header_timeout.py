"""The Proxy panel's header timeout in the real window: the spin box beside the drain toggle
reaches the proxy it starts, and a client on a real socket that trickles its headers is sent
408 and cut off once that time has passed (the 30 s default would not have cut it yet)."""

from __future__ import annotations

import asyncio
import time

import qasync
from PySide6.QtCore import QSettings

from inspector.core.base.settings import HEADER_TIMEOUT
from inspector.ui.shell.mainwindow import MainWindow
from ui.proxy.test_dock_drain import dock_of
from ui.waiting import until

SET = 1.0
"""The timeout set in the panel (seconds)."""
NOT_DEFAULT = HEADER_TIMEOUT * 2 / 3
"""How long the test waits for the cut at most: before the default would have cut it."""


async def _trickled(origin: str) -> tuple[bytes, float]:
    """Open a connection to ``origin``, send a request line and part of a header, then a byte
    now and then, never the blank line; what came back before the proxy closed it, and the
    seconds from the first byte sent."""
    host, port = origin.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    start = time.monotonic()
    writer.write(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    received = b""
    try:
        async with asyncio.timeout(NOT_DEFAULT):
            while True:
                try:
                    data = await asyncio.wait_for(reader.read(4096), SET / 5)
                except TimeoutError:
                    writer.write(b"a")  # still trickling
                    continue
                if not data:
                    break
                received += data
    except ConnectionError:
        pass
    finally:
        writer.close()
    return received, time.monotonic() - start


def test_the_panels_header_timeout_cuts_a_trickling_client(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    dock = dock_of(window)
    assert dock.header_timeout.value() == HEADER_TIMEOUT  # the default, as the CLI's
    dock.header_timeout.setValue(SET)
    settings = QSettings("toolcall-inspector", "toolcall-inspector")
    assert settings.value("proxy_header_timeout", type=float) == SET  # kept for next time
    dock.demo_button.click()

    async def scenario() -> tuple[bytes, float]:
        await until(lambda: dock.rows)
        (proxy,) = window.proxies.proxies
        assert proxy.header_timeout == SET
        return await _trickled(proxy.origin)

    received, seconds = qloop.run_until_complete(scenario())
    assert received.startswith(b"HTTP/1.1 408"), received[:80]
    assert seconds >= SET * 0.9  # never before the time set (and well before the default)
