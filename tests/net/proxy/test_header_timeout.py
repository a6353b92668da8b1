"""Issue 30: the proxy's header read timeout. A client that trickles its request headers, or
opens a connection and sends nothing, is cut off once the timeout passes; a request whose
headers arrived in time is answered however long its answer takes; a kept-alive connection
between requests is not timed. Real sockets; the timeout is set small (1 s) and every wait
is an event (the socket closing), never a measured duration."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from inspector.cli.main import main
from inspector.net.proxy import RecordingProxy

TIMEOUT = 1.0


@pytest.fixture
async def upstream() -> AsyncIterator[str]:
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(2 * TIMEOUT)  # an answer slower than the header timeout
        return web.Response(text="slow ok")

    async def fast(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_get("/v1/slow", slow)
    app.router.add_get("/v1/models", fast)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
    await runner.cleanup()


@pytest.fixture
async def proxy(upstream: str, tmp_path: Path) -> AsyncIterator[RecordingProxy]:
    server = RecordingProxy(upstream, captures=tmp_path, header_timeout=TIMEOUT)
    await server.start()
    yield server
    await server.stop()


async def _connect(proxy: RecordingProxy) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = proxy.origin.removeprefix("http://").rsplit(":", 1)
    return await asyncio.open_connection(host, int(port))


async def _until_closed(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        trickle: bytes = b"") -> bytes:  # fmt: skip
    """Send ``trickle`` a byte at a time (a tenth of the timeout apart, then again from its
    start) until the proxy closes the connection; what it sent back."""
    received = b""
    k = 0
    while True:
        if trickle:
            writer.write(trickle[k % len(trickle) : k % len(trickle) + 1])
            k += 1
            try:
                await writer.drain()
            except ConnectionError:
                break
        try:
            data = await asyncio.wait_for(reader.read(4096), TIMEOUT / 10)
        except TimeoutError:
            assert k < 500, "the proxy never closed the connection"  # 50 timeouts' worth
            continue
        except ConnectionError:
            break
        if not data:
            break
        received += data
    writer.close()
    return received


async def test_trickled_headers_get_408_and_the_connection_closed(proxy: RecordingProxy) -> None:
    reader, writer = await _connect(proxy)
    header = b"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 400
    answer = await _until_closed(reader, writer, header)
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    assert b"the request headers took too long" in answer
    assert proxy.exchanges == []  # never a request: nothing was forwarded


async def test_a_connection_that_sends_nothing_is_closed(proxy: RecordingProxy) -> None:
    reader, writer = await _connect(proxy)
    assert await _until_closed(reader, writer) == b""  # no request begun: no 408 either


async def test_headers_in_time_are_answered_however_long_the_answer_takes(
    proxy: RecordingProxy,
) -> None:
    reader, writer = await _connect(proxy)
    writer.write(b"GET /v1/slow HTTP/1.1\r\nHost: x\r\n\r\n")
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    # The connection is kept alive and idle: no timer. A second request, in time, is
    # answered on it; then a trickled third one is cut off.
    writer.write(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
    await reader.readuntil(b"slow ok")
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    await reader.readexactly(2)  # "ok"
    answer = await _until_closed(reader, writer, b"GET /v1/models HTTP/1.1\r\nX: " + b"b" * 300)
    assert answer.startswith(b"HTTP/1.1 408")
    assert len(proxy.exchanges) == 2


def test_the_flag_refuses_a_timeout_that_is_not_positive(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["proxy", "--upstream", "http://127.0.0.1:9", "--header-timeout", "0"])
    assert code == 2
    assert "--header-timeout" in capsys.readouterr().err
