"""What the recording proxy sends upstream and what its captures hold: the agent's request
exactly as sent (no header of the proxy's own, the path not re-quoted, no redirect followed,
no cookie kept), and each piece of the answer timed when the proxy received it."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web

from inspector.core.capture.reader import load
from inspector.core.reports.clients import clients_verdict
from inspector.net.proxy import RecordingProxy
from net.proxy.ending import ended

QUESTION = "What's the weather in Paris?"
TOOLS: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]  # fmt: skip


async def test_the_capture_times_each_piece_when_the_proxy_received_it(
    proxy: RecordingProxy,
) -> None:
    """The recording is set up after the first byte went to the agent, yet the capture's
    times are the arrivals: the request at 0, the answer after it, the pieces spread over the
    stream's pacing as the agent saw them (not bunched at the moment the session read them)."""
    body = {"model": "demo-parallel", "stream": True, "tools": TOOLS,
            "messages": [{"role": "user", "content": QUESTION}]}  # fmt: skip
    arrivals: list[float] = []
    async with httpx.AsyncClient(trust_env=False) as client:
        start = time.monotonic()
        async with client.stream("POST", proxy.origin + "/v1/chat/completions", json=body,
                                 headers={"x-demo-chunk-delay": "0.02"}) as response:  # fmt: skip
            async for _ in response.aiter_raw():
                arrivals.append(time.monotonic() - start)
    ex = await ended(proxy)
    (attempt,) = load(str(ex.capture_path)).attempts
    times = [t for t, _ in attempt.chunks]
    assert attempt.response is not None and 0 < attempt.response["t"] <= times[0]
    assert times == sorted(times) and len(times) >= 10
    seen, recorded = arrivals[-1] - arrivals[0], times[-1] - times[0]
    assert seen > 0.15 and abs(recorded - seen) < 0.5 * seen  # paced like the agent's


class Echo:
    """An upstream that notes each request's raw path and headers, sets a cookie, and
    redirects ``/moved``."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, list[tuple[bytes, bytes]], bytes]] = []

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.raw_path, list(request.raw_headers), await request.read()))
        if request.path == "/moved":
            raise web.HTTPTemporaryRedirect("/elsewhere")
        response = web.Response(text="ok")
        response.set_cookie("session", "kept-by-no-one")
        return response


async def test_the_upstream_gets_the_agents_request_as_sent(tmp_path: Path) -> None:
    echo = Echo()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", echo.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    upstream = f"127.0.0.1:{runner.addresses[0][1]}"
    server = RecordingProxy(f"http://{upstream}", captures=tmp_path)
    await server.start()
    sent = [(b"X-Trace", b"a"), (b"Content-Length", b"7"), (b"x-trace", b"b")]
    path = "/v1/files/a%2Fb?q=%7E&empty="
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        lines = [f"PUT {path} HTTP/1.1".encode(), f"Host: {server.origin[7:]}".encode()]
        lines += [k + b": " + v for k, v in sent] + [b"Connection: keep-alive", b"", b"payload"]
        writer.write(b"\r\n".join(lines))
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        writer.close()
        async with httpx.AsyncClient(trust_env=False) as client:
            moved = await client.get(server.origin + "/moved", headers={"cookie": "mine=1"})
    finally:
        await server.stop()
        await runner.cleanup()
    assert head.startswith(b"HTTP/1.1 200")
    (raw_path, headers, body), (_, again, _) = echo.seen
    assert raw_path == path and body == b"payload"  # the path not re-quoted, the body as sent
    spelt = [(b"X-Trace" if k == b"x-trace" else k, v) for k, v in sent]  # the first spelling
    assert headers == [(b"Host", upstream.encode()), *spelt]  # in order, none of its own
    assert moved.status_code == 307 and moved.headers["location"] == "/elsewhere"  # not followed
    assert [v for k, v in again if k.lower() == b"cookie"] == [b"mine=1"]  # no cookie kept


async def test_the_clients_are_judged_off_the_loop_before_the_exchange_is_said_to_end(
    proxy: RecordingProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replicas cost tens of microseconds per event, a second on a long stream: run on
    the loop they held up every agent the proxy serves (the bench's throughput fell to a
    fifth). They run in a worker thread once the recording has closed; the exchange ends,
    and its line names the clients it breaks, only after that; reading the line before then
    never runs a replica."""
    threads: list[str] = []

    def judged(analysis: Any) -> Any:
        threads.append(threading.current_thread().name)
        return clients_verdict(analysis)

    monkeypatch.setattr("inspector.net.proxy.exchange.clients_verdict", judged)
    told: list[str] = []
    proxy.on_end = lambda ex: told.append(ex.line())
    body = {"model": "demo-missing-index", "stream": True, "tools": TOOLS,
            "messages": [{"role": "user", "content": QUESTION}]}  # fmt: skip
    async with httpx.AsyncClient(trust_env=False) as client:
        response = await client.post(proxy.origin + "/v1/chat/completions", json=body)
        assert response.status_code == 200
        listed = proxy.exchanges[-1].line()  # as the panel reads it, maybe before the end
    ex = await ended(proxy)
    assert threads and threading.main_thread().name not in threads
    assert len(threads) == 1  # judged once, whoever reads the line
    assert "breaks" not in listed or ex.ended
    (line,) = told
    assert "✗ breaks" in line and "openai-python (raised)" in line and line == ex.line()
